"""Parse a refresh's documents (and analyze their sections), on two cores when it pays.

Parsing is pure Python and CPU-bound, so threads do not help. On Linux, with a second
core free and no other thread in this process, :func:`parse_many` forks once: the child
parses about half the documents (by size) while this process parses the rest, and sends
its results back through a pipe (``marshal``, else ``pickle``). The results are the same
either way; if the child fails for any reason its half is parsed here.

Why keep the fork beside the plain loop (``DOCMENTOR_PARALLEL=0`` turns it off): measured with
``.venv/bin/python benchmarks/bench_fast_paths.py parse`` (2 CPUs shared with other work,
Python 3.11, 2026-11-28) on tests/fixtures/* copied several times: with the second core idle,
parsing 1,264 documents (3.3 M characters) took 779 ms forked against 1,353 ms in the loop, and
``docmentor add`` of 1,975 (5.1 M characters, no embeddings) 2.9 s against 4.1 s; with both cores
busy elsewhere the two come out even (1.8 vs 2.1 s parsing, 4.3 vs 4.1 s for ``add``), so the
fork costs nothing measurable when it cannot help. About a second per 2,000 documents on an
ordinary machine: noticeable on a first ``add``. That both paths give the same documents and
section terms (front matter only pickle can carry included) and that a failing child costs only
time is tested in tests/test_parse_batch.py (``test_two_cores_give_what_one_gives``,
``test_a_failing_child_costs_only_time``).
"""

from __future__ import annotations

import gc
import logging
import marshal
import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from docmentor.config import env_switch
from docmentor.models import CodeBlock, Link, ParsedDocument, RawDocument, Section
from docmentor.parse import parse_document

log = logging.getLogger(__name__)

__all__ = ["parse_many"]

# Below this much text, a fork (a few ms) and the transfer cost more than half the parsing.
MIN_PARALLEL_CHARS = 256_000

Analyze = Callable[[str], str]
_Item = tuple[ParsedDocument, list[str]]  # a parsed document, the analysis of its sections


def parse_many(docs: Sequence[RawDocument], analyze: Analyze) -> tuple[list[ParsedDocument], dict[str, str]]:
    """Each document parsed, in order, and ``analyze(text)`` of every searchable section text.

    Returns the parsed documents and a mapping section text → analysis.
    """
    items: list[_Item | None] = [None] * len(docs)
    mine, theirs = _split(docs)
    if theirs:
        results = _in_child(
            [docs[i] for i in theirs], analyze, lambda: _work([docs[i] for i in mine], analyze)
        )
        if results is not None:
            done_here, done_there = results
            for i, item in zip(mine, done_here, strict=True):
                items[i] = item
            for i, item in zip(theirs, done_there, strict=True):
                items[i] = item
    parsed: list[ParsedDocument] = []
    analyzed: dict[str, str] = {}
    for doc, maybe in zip(docs, items, strict=True):
        p, terms = maybe if maybe is not None else _work([doc], analyze)[0]
        parsed.append(p)
        if doc.searchable:
            analyzed.update(zip((s.text for s in p.sections), terms, strict=True))
    return parsed, analyzed


def _split(docs: Sequence[RawDocument]) -> tuple[list[int], list[int]]:
    """Indexes for this process and for a child (empty: no child), balanced by size."""
    if not _may_fork() or sum(len(d.content) for d in docs) < MIN_PARALLEL_CHARS:
        return list(range(len(docs))), []
    mine: list[int] = []
    theirs: list[int] = []
    size_mine = size_theirs = 0
    for i in sorted(range(len(docs)), key=lambda i: -len(docs[i].content)):
        if size_mine <= size_theirs:
            mine.append(i)
            size_mine += len(docs[i].content)
        else:
            theirs.append(i)
            size_theirs += len(docs[i].content)
    return sorted(mine), sorted(theirs)


def _may_fork() -> bool:
    if sys.platform != "linux" or env_switch("DOCMENTOR_PARALLEL") is False:  # 0, false, off, no
        return False
    try:
        if len(os.sched_getaffinity(0)) < 2:
            return False
        # Forking a process with other threads (an MCP server, a tantivy reader) is unsafe.
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _in_child(
    docs: Sequence[RawDocument], analyze: Analyze, meanwhile: Callable[[], list[_Item]]
) -> tuple[list[_Item], list[_Item]] | None:
    """``_work(docs)`` in a forked child while ``meanwhile()`` runs here; None when the child failed."""
    read_fd, write_fd = os.pipe()
    # Objects that exist now are shared with the child page by page: keep both processes' garbage
    # collectors off them, or each collection writes to (and so copies) every page.
    gc.freeze()
    try:
        pid = os.fork()
    except OSError as exc:
        gc.unfreeze()
        log.debug("fork failed (%s): parsing on one core", exc)
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the child: compute, send, and leave without running any of the parent's cleanup
        code = 1
        try:
            gc.disable()  # short-lived: no collections at all
            os.close(read_fd)
            payload = _encode_batch(_work(docs, analyze))
            with open(write_fd, "wb") as out:
                out.write(payload)
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    finished = False
    try:
        here = meanwhile()
        with open(read_fd, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(pid, 0)
        finished = True
        if status != 0:
            log.debug("the parse child failed (status %s): parsing its half here", status)
            return None
        try:
            there = _decode_batch(payload)
        except Exception as exc:  # a cut or garbled payload: the parent does that half
            log.debug("unreadable results from the parse child (%s)", exc)
            return None
        return (here, there) if len(there) == len(docs) else None
    finally:
        gc.unfreeze()
        if not finished:  # interrupted, or an error here: do not leave the child behind
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def _work(docs: Sequence[RawDocument], analyze: Analyze) -> list[_Item]:
    out: list[_Item] = []
    for doc in docs:
        p = parse_document(doc)
        out.append((p, [analyze(s.text) for s in p.sections] if doc.searchable else []))
    return out


def _encode(p: ParsedDocument) -> tuple[Any, ...]:
    sections = [
        (
            s.heading,
            s.heading_path,
            s.level,
            s.line_start,
            s.line_end,
            s.text,
            s.anchor,
            [(c.language, c.code, c.line) for c in s.code_blocks],
        )
        for s in p.sections
    ]
    return (p.title, p.meta, sections, [(ln.target, ln.anchor, ln.text, ln.line) for ln in p.links])


def _decode(t: tuple[Any, ...]) -> ParsedDocument:
    title, meta, sections, links = t
    return ParsedDocument(
        title=title,
        meta=meta,
        sections=[
            Section(
                heading=h,
                heading_path=list(hp),
                level=lvl,
                line_start=ls,
                line_end=le,
                text=text,
                anchor=anchor,
                code_blocks=[CodeBlock(language=lang, code=code, line=line) for lang, code, line in cbs],
            )
            for h, hp, lvl, ls, le, text, anchor, cbs in sections
        ],
        links=[Link(target=tg, anchor=a, text=tx, line=ln) for tg, a, tx, ln in links],
    )


def _encode_batch(items: list[_Item]) -> bytes:
    plain = [(_encode(p), terms) for p, terms in items]
    try:
        return b"M" + marshal.dumps(plain)
    except ValueError:  # front matter with values marshal cannot carry (dates …)
        return b"P" + pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL)


def _decode_batch(payload: bytes) -> list[_Item]:
    if payload[:1] == b"M":
        plain = marshal.loads(payload[1:])
    elif payload[:1] == b"P":
        plain = pickle.loads(payload[1:])
    else:
        raise ValueError("no data from the parse child")
    return [(_decode(p), list(terms)) for p, terms in plain]
