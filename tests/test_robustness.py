"""Regression tests for defects found in review: each one lost data, hung, or broke a promise."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest
import toktok
from mcp import Client

import httpserver
from docmentor import assemble_context
from docmentor.engine import Docmentor
from docmentor.errors import SourceUnavailableError, UsageError
from docmentor.server import build_server

http_server = httpserver.http_server
MD = "text/markdown; charset=utf-8"


@pytest.fixture
def engine(index_location: str) -> Iterator[Docmentor]:
    """A new index on each backend (the embedded one, a PostgreSQL schema)."""
    with closing(Docmentor(index_location)) as eng:
        yield eng


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Docmentor]:
    """An embedded index only, for what reads the documents' folder and never the store."""
    with closing(Docmentor(tmp_path / "index")) as eng:
        yield eng


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_an_unreadable_folder_keeps_its_documents(
    engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write(tmp_path / "docs", {"a.md": "# A\n\nalpha\n", "sub/b.md": "# B\n\nbravo\n"})
    engine.add(str(docs), name="s")
    real_scandir = os.scandir

    def failing(path: Any) -> Any:  # EACCES on sub/ (root would read through chmod 000)
        if str(path).endswith("sub"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", failing)
    report = engine.refresh("s")[0]
    assert report.removed == 0
    assert [h.path for h in engine.search("bravo")] == ["sub/b.md"]
    assert engine.sources()[0]["stale_documents"] == 1
    monkeypatch.setattr(os, "scandir", real_scandir)
    engine.refresh("s")
    assert engine.sources()[0]["stale_documents"] == 0


def test_an_unreadable_file_keeps_its_document(
    engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write(tmp_path / "docs", {"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbravo\n"})
    engine.add(str(docs), name="s")
    real = Path.read_bytes

    def failing(self: Path) -> bytes:
        if self.name == "b.md":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", failing)
    report = engine.refresh("s")[0]
    assert report.removed == 0 and engine.search("bravo")[0].path == "b.md"


def test_a_fifo_in_the_docs_folder_does_not_hang(sqlite_engine: Docmentor, tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {"a.md": "# A\n\nalpha\n"})
    os.mkfifo(docs / "pipe.md")
    signal.alarm(20)  # a read of the FIFO would block forever
    try:
        report = sqlite_engine.add(str(docs), name="s")
    finally:
        signal.alarm(0)
    assert report.documents == 1


def test_include_amplification_is_capped(engine: Docmentor, tmp_path: Path) -> None:
    root = tmp_path / "amp"
    for i in range(7):  # each file includes the next ten times: 10**6 copies without a cap
        body = "\n".join([f'--8<-- "f{i + 1}.md"'] * 10) if i < 6 else "x" * 700
        write(root, {f"f{i}.md": f"# F{i}\n\n{body}\n"})
    report = engine.add(str(root), name="amp", options={"max_bytes": 200_000})
    assert any("size cap" in w for w in report.warnings)
    assert len(engine.get("amp:f0.md").content) <= 400_000


def test_an_llms_txt_that_suddenly_lists_nothing_leaves_the_source(
    engine: Docmentor, http_server: httpserver.HttpServer
) -> None:
    http_server.add("/docs/a.md", "# A\n\nalpha\n", content_type=MD)
    http_server.add(
        "/docs/llms.txt",
        "# Docs\n\n## Docs\n\n- [A](a.md)\n",
        "Service temporarily unavailable",
        content_type="text/plain",
    )
    url = http_server.url("/docs/llms.txt")
    engine.add(url, name="site", options={"retries": 0, "timeout": 5.0})
    before = engine.sources()[0]["documents"]
    with pytest.raises(SourceUnavailableError, match="lists no documents"):
        engine.refresh("site")
    assert engine.sources()[0]["documents"] == before
    assert engine.search("alpha")[0].path == "/docs/a.md"


def test_a_bare_path_in_several_sources_is_ambiguous(engine: Docmentor, tmp_path: Path) -> None:
    engine.add(str(write(tmp_path / "one", {"guide.md": "# One\n\nfirst\n"})), name="one")
    engine.add(str(write(tmp_path / "two", {"guide.md": "# Two\n\nsecond\n"})), name="two")
    with pytest.raises(UsageError, match=r"one:guide.md, two:guide.md"):
        engine.get("guide.md")
    assert "second" in engine.get("two:guide.md").content


def test_a_huge_query_is_cheap(engine: Docmentor, tmp_path: Path) -> None:
    engine.add(str(write(tmp_path / "docs", {"a.md": "# A\n\nword1 alpha\n"})), name="s")
    hits = engine.search(" ".join(f"word{i}" for i in range(100_000)))
    assert hits and hits[0].path == "a.md"


def test_assembly_json_and_long_questions_stay_in_budget(engine: Docmentor, tmp_path: Path) -> None:
    pages = {
        f"p{i}.md": f"# Page {i}\n\n" + ("Timeouts and proxies and pools. " * 80) + "\n" for i in range(12)
    }
    engine.add(str(write(tmp_path / "docs", pages)), name="s")
    for budget in (1000, 4000):
        d = assemble_context(engine, "timeouts proxies pools", max_tokens=budget, fmt="json")
        # the budget counts the digest as Markdown, the content JSON structures (docs/assemble.md)
        data = json.loads(d.json_text)
        assert data["actual_tokens"] == toktok.batch_count([d.markdown], "o200k_base")[0] <= budget
    d = assemble_context(engine, " ".join(["timeouts proxies"] * 500), max_tokens=1000)
    assert toktok.batch_count([d.markdown], "o200k_base")[0] <= 1000


def test_score_document_reads_only_indexed_or_working_folders(
    engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write(tmp_path / "docs", {"a.md": "# A\n\nalpha TODO\n"})
    secret = write(tmp_path / "elsewhere", {"secret.md": "# S\n\nAWS_SECRET=abc TODO\n"})
    engine.add(str(docs), name="s")
    monkeypatch.chdir(docs)

    async def call(path: str) -> Any:
        async with Client(build_server(engine)) as client:
            return await client.call_tool("score_document", {"path_or_url": path})

    denied = anyio.run(call, str(secret / "secret.md"))
    assert denied.is_error and "is not an indexed document" in denied.content[0].text
    assert "AWS_SECRET" not in denied.content[0].text
    allowed = anyio.run(call, str(docs / "a.md"))
    assert not allowed.is_error


def test_report_grades_cannot_inject_markup(tmp_path: Path) -> None:
    from docmentor.clarity.report import render_html

    result = {
        "generated_at": "x",
        "documents": [],
        "summary": {
            "documents": 0,
            "average_score": 5.0,
            "average_grade": 'A" onmouseover="alert(1)',
            "critical_issues": 0,
            "warning_issues": 0,
            "info_issues": 0,
            "scoring_version": "v",
            "rubric_hash": "h",
            "target_score": 8.0,
        },
    }
    page = render_html(result)
    assert '.replace(/[^A-Za-z0-9-]/g, "")' in page  # the class name is sanitised in the renderer
    assert 'onmouseover="alert(1)' not in page.split('<script type="application/json"')[0]


# -- library knowledge ----------------------------------------------------------------------

LIB = Path(__file__).parent / "fixtures" / "readme_lib"


def test_introspecting_another_environment_never_runs_modules_from_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from docmentor.library.surface.api_python import load_api

    trap = tmp_path / "trap"
    trap.mkdir()
    marker = tmp_path / "PWNED"
    (trap / "json.py").write_text(f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    monkeypatch.chdir(trap)
    surface = load_api("minidb", python=sys.executable, search_paths=[LIB])
    assert surface.resolve("minidb.connect") is not None
    assert not marker.exists()


def test_generate_refuses_to_overwrite_what_it_did_not_write(tmp_path: Path) -> None:
    from docmentor.library import generate

    out = tmp_path / "out"
    (out / "knowledge_base").mkdir(parents=True)
    (out / "knowledge_base" / "thesis.txt").write_text("years of work", encoding="utf-8")
    eng = Docmentor(tmp_path / "db")
    with pytest.raises(UsageError, match="not a docmentor knowledge base"):
        generate(eng, library="minidb", docs_path=LIB / "docs", out=out, search_paths=[LIB])
    assert (out / "knowledge_base" / "thesis.txt").read_text(encoding="utf-8") == "years of work"
    with pytest.raises(UsageError, match="is a file"):
        generate(
            eng,
            library="minidb",
            docs_path=LIB / "docs",
            out=out / "knowledge_base" / "thesis.txt",
            search_paths=[LIB],
        )


def test_a_pathological_example_does_not_abort_generation(tmp_path: Path) -> None:
    import shutil as _shutil

    from docmentor.library import generate

    lib = tmp_path / "lib"
    _shutil.copytree(LIB, lib)
    deep = " + ".join(["1"] * 600)
    (lib / "docs" / "deep.md").write_text(
        f"# Deep\n\n```python\nimport minidb\nx = minidb.connect('a') + {deep}\n```\n", encoding="utf-8"
    )
    result = generate(
        Docmentor(tmp_path / "db"),
        library="minidb",
        docs_path=lib / "docs",
        out=tmp_path / "out",
        search_paths=[lib],
    )
    assert result.api_count > 0 and result.readme_path is not None
