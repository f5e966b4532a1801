"""parse_many: the same documents and section terms on one core or two (a forked child),
and a failing child costs nothing but time."""

from __future__ import annotations

import datetime
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from docmentor.models import RawDocument
from docmentor.parse import batch, parse_document
from docmentor.search.lexical import section_terms
from docmentor.sources.local import scan_folder

FIXTURES = Path(__file__).parent / "fixtures"  # the folders of documents the tests use
# Below the real threshold (256,000 characters) so that the test fixtures, ~80 documents (225 KB) of
# every format docmentor reads, are enough for a child (the real threshold: the last test).
MIN_PARALLEL_CHARS = 100_000

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the two-core path is Linux-only")


def corpus() -> list[RawDocument]:
    docs = [
        doc
        for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir())
        for doc in scan_folder(folder, max_bytes=5_000_000).documents
    ]
    assert sum(len(d.content) for d in docs) > MIN_PARALLEL_CHARS
    dated = RawDocument(  # front matter marshal cannot carry (a date): the pickle path
        path="dated.md",
        url="file:///dated.md",
        content="---\ntitle: Dated\ndate: 2024-05-01\n---\n# Dated\n\nText.\n",
    )
    toc = RawDocument(
        path="llms.txt", url="file:///llms.txt", content="# TOC\n\n- [a](a.md)\n", searchable=False
    )
    return [*docs, dated, toc]


def expected(docs: list[RawDocument]) -> tuple[list[Any], dict[str, str]]:
    parsed = [parse_document(d) for d in docs]
    terms = {
        s.text: section_terms(s.text)
        for d, p in zip(docs, parsed, strict=True)
        if d.searchable
        for s in p.sections
    }
    return parsed, terms


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: no child")
    calls: list[int] = []
    real_fork = os.fork

    def counting_fork() -> int:
        pid = real_fork()
        if pid:
            calls.append(pid)
        return pid

    monkeypatch.setattr(batch.os, "fork", counting_fork)
    monkeypatch.setattr(batch, "_may_fork", lambda: True)  # pytest may run other threads
    monkeypatch.setattr(batch, "MIN_PARALLEL_CHARS", MIN_PARALLEL_CHARS)
    return calls


def test_two_cores_give_what_one_gives(forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    docs = corpus()
    parsed, terms = batch.parse_many(docs, analyze=section_terms)
    assert len(forks) == 1
    want_parsed, want_terms = expected(docs)
    assert parsed == want_parsed
    assert terms == want_terms
    assert parsed[-2].meta["date"] == datetime.date(2024, 5, 1)  # a date: came through pickle

    monkeypatch.setattr(batch, "_may_fork", lambda: False)
    assert batch.parse_many(docs, analyze=section_terms) == (want_parsed, want_terms)
    assert len(forks) == 1


@pytest.mark.parametrize("failure", ["raises", "garbage", "dies"])
def test_a_failing_child_costs_only_time(
    forks: list[int], monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    real_encode = batch._encode_batch

    def broken(items: Any) -> bytes:
        if failure == "raises":
            raise RuntimeError("child broke")
        if failure == "dies":
            os._exit(3)
        return real_encode(items)[:100]  # cut short

    monkeypatch.setattr(batch, "_encode_batch", broken)
    docs = corpus()
    assert batch.parse_many(docs, analyze=section_terms) == expected(docs)
    assert len(forks) == 1


def test_small_batches_and_threads_stay_on_one_core(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def fork() -> int:
        calls.append(1)
        return 0

    monkeypatch.setattr(batch.os, "fork", fork)
    small = [RawDocument(path="a.md", url="file:///a.md", content="# A\n\nText.\n")]
    assert batch.parse_many(small, analyze=section_terms)[0][0].title == "A"
    assert calls == []

    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert not batch._may_fork()  # another thread: never fork
    finally:
        stop.set()
        worker.join()
    monkeypatch.setenv("DOCMENTOR_PARALLEL", "0")
    assert not batch._may_fork()


def test_a_child_only_above_the_real_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "_may_fork", lambda: True)
    text = "# B\n\n" + "word " * ((batch.MIN_PARALLEL_CHARS - 10) // 5)
    doc = RawDocument(path="b.md", url="file:///b.md", content=text)
    assert len(text) < batch.MIN_PARALLEL_CHARS
    assert batch._split([doc]) == ([0], [])
    assert batch._split([doc, doc]) == ([0], [1])  # twice as much: half for a child
