"""The MCP server through the official client: in-process, over stdio, and over HTTP."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

from docmentor.engine import Docmentor
from docmentor.server import build_server
from mcptool import CLARITY_TOOLS, converse, structured, tool_call

T = TypeVar("T")

GUIDE = """\
# Widget Guide

Widgets are small reusable parts.

## Install

Run `pip install widget` to get the frobnicator.

## Configure

Set `WIDGET_COLOR` before starting. The colour must be a hex triple.

## Troubleshooting

If the frobnicator stalls, restart it. Restarting clears the cache.
"""

FAQ = "# FAQ\n\n## Why widgets?\n\nBecause gadgets were taken.\n"
READ_TOOLS = ("search_docs", "get_doc", "get_doc_excerpt", "list_sources", "assemble_context")
API_TOOLS = ("find_api", "get_examples", "get_library_overview", "report_issue")


def run(fn: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(fn)


def write_docs(root: Path) -> Path:
    root.mkdir()
    (root / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "faq.md").write_text(FAQ, encoding="utf-8")
    return root


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "widgets")


@pytest.fixture
def engine(index_location: str, docs: Path) -> Iterator[Docmentor]:
    """The widget docs indexed on each backend, for a test that changes them or the index;
    ``index_location`` is where (``--db``)."""
    eng = Docmentor(index_location)
    eng.add(str(docs), name="w")
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def shared_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_docs(tmp_path_factory.mktemp("mcp") / "widgets")


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def reader_location(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared_docs: Path
) -> str:
    """The widget docs indexed once per backend for the tests that only read them: a
    folder, or a PostgreSQL schema's URL (``--db``)."""
    if request.param == "postgres":
        where = str(request.getfixturevalue("module_postgres_url"))
    else:
        where = str(tmp_path_factory.mktemp("mcp-index") / "index")
    with closing(Docmentor(where)) as eng:
        eng.add(str(shared_docs), name="w")
    return where


@pytest.fixture
def reader(reader_location: str) -> Iterator[Docmentor]:
    with closing(Docmentor(reader_location)) as eng:
        yield eng


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    assert result.structured_content is None
    (text,) = result.content
    assert isinstance(text, TextContent)
    return text.text


def call(engine: Docmentor, name: str, args: dict[str, Any] | None = None) -> CallToolResult:
    async def go() -> CallToolResult:
        async with Client(build_server(engine)) as client:
            return await client.call_tool(name, args or {})

    return run(go)


# ----------------------------------------------------------------------- in-process


def test_tools_annotations_and_instructions(reader: Docmentor) -> None:
    async def go() -> tuple[Any, str | None]:
        async with Client(build_server(reader)) as client:
            return await client.list_tools(), client.instructions

    tools, instructions = run(go)
    by_name = {t.name: t for t in tools.tools}
    assert sorted(by_name) == sorted([*READ_TOOLS, *CLARITY_TOOLS, *API_TOOLS, "refresh_sources"])
    for name in READ_TOOLS:
        ann = by_name[name].annotations
        assert ann is not None and ann.read_only_hint is True and ann.destructive_hint is False, name
    ann = by_name["refresh_sources"].annotations
    assert ann is not None and ann.read_only_hint is False
    assert set(by_name["search_docs"].input_schema["properties"]) == {"query", "limit", "source", "version"}
    assert by_name["search_docs"].input_schema["required"] == ["query"]
    assert set(by_name["get_doc"].input_schema["properties"]) == {"url_or_path", "offset", "limit", "lines"}
    assert {"url_or_path", "query"} <= set(by_name["get_doc_excerpt"].input_schema["properties"])
    for tool in tools.tools:
        assert tool.description and len(tool.description) > 40, tool.name
    assert instructions is not None
    assert len(instructions.encode()) < 2048
    assert "w (2 docs)" in instructions
    assert "search_docs" in instructions


def test_instructions_stay_small_with_many_sources(index_location: str, tmp_path: Path) -> None:
    eng = Docmentor(index_location)
    for i in range(30):
        folder = tmp_path / f"src{i}"
        folder.mkdir()
        (folder / "a.md").write_text(f"# Page {i}\n\ntext\n", encoding="utf-8")
        eng.add(str(folder), name=f"source-with-a-rather-long-name-{i:02d}")

    async def go() -> str | None:
        async with Client(build_server(eng)) as client:
            return client.instructions

    instructions = run(go)
    eng.close()
    assert instructions is not None and len(instructions.encode()) < 2048
    assert "and 18 more" in instructions


def test_search_docs_equals_the_library(reader: Docmentor) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("frobnicator", {}),
        ("widget colour", {"limit": 2}),
        ("gadgets", {"source": "w"}),
    ]
    for query, args in cases:
        data = structured(call(reader, "search_docs", {"query": query, **args}))
        expected = reader.search(query, limit=int(args.get("limit", 5)), source=args.get("source"))
        assert data == {"query": query, "results": [h.to_dict() for h in expected]}
        assert data["results"], query
    data = structured(call(reader, "search_docs", {"query": "frobnicator"}))
    assert (data["results"][0]["path"], data["results"][0]["heading"]) in {
        ("guide.md", "Install"),
        ("guide.md", "Troubleshooting"),
    }
    assert structured(call(reader, "search_docs", {"query": "zzqqxx"})) == {"query": "zzqqxx", "results": []}
    # a blank query is a mistake the agent learns of (as the CLI says), not a search for nothing
    blank = call(reader, "search_docs", {"query": "  "})
    first = blank.content[0]
    assert blank.is_error and isinstance(first, TextContent) and "empty query" in first.text


def test_search_docs_limit_is_checked(index_location: str, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(30):
        (folder / f"p{i:02d}.md").write_text(f"# Page {i}\n\nthe walrus {i}\n", encoding="utf-8")
    eng = Docmentor(index_location)
    eng.add(str(folder), name="many")
    assert len(structured(call(eng, "search_docs", {"query": "walrus", "limit": 20}))["results"]) == 20
    assert len(structured(call(eng, "search_docs", {"query": "walrus", "limit": 1}))["results"]) == 1
    for limit in (500, 0, -5):  # refused, with the range: not silently 20 or 1
        text = error_text(call(eng, "search_docs", {"query": "walrus", "limit": limit}))
        assert text == f"limit must be between 1 and 20, got {limit}. Try: a value from 1 to 20.", text
    eng.close()


def test_get_doc_paginates(reader: Docmentor, shared_docs: Path) -> None:
    async def go() -> list[dict[str, Any]]:
        pages = []
        async with Client(build_server(reader)) as client:
            offset = 0
            while True:
                page = structured(
                    await client.call_tool(
                        "get_doc", {"url_or_path": "w:guide.md", "offset": offset, "limit": 50}
                    )
                )
                pages.append(page)
                if not page["has_more"]:
                    return pages
                offset = page["offset"] + page["length"]

    pages = run(go)
    assert "".join(p["content"] for p in pages) == GUIDE
    assert len(pages) == -(-len(GUIDE) // 50)
    assert [p["offset"] for p in pages] == list(range(0, len(GUIDE), 50))
    assert {p["total_length"] for p in pages} == {len(GUIDE)}
    assert [p["has_more"] for p in pages] == [True] * (len(pages) - 1) + [False]
    first = pages[0]
    assert (first["source"], first["path"], first["url"], first["title"]) == (
        "w",
        "guide.md",
        (shared_docs / "guide.md").as_uri(),
        "Widget Guide",
    )
    by_url = structured(call(reader, "get_doc", {"url_or_path": (shared_docs / "faq.md").as_uri()}))
    assert (by_url["content"], by_url["has_more"], by_url["offset"]) == (FAQ, False, 0)


def test_get_doc_excerpt(reader: Docmentor) -> None:
    data = structured(
        call(reader, "get_doc_excerpt", {"url_or_path": "w:guide.md", "query": "frobnicator stalls restart"})
    )
    assert (data["source"], data["path"], data["query"]) == ("w", "guide.md", "frobnicator stalls restart")
    assert data["excerpts"]
    best = data["excerpts"][0]
    assert best["heading"] == "Troubleshooting"
    assert (best["line_start"], best["line_end"]) == (13, 15)
    assert "restart it" in best["text"]
    blank = call(reader, "get_doc_excerpt", {"url_or_path": "w:guide.md", "query": "  "})
    (said,) = blank.content
    assert blank.is_error and isinstance(said, TextContent) and "empty query" in said.text  # as search_docs


def test_list_sources_and_resource(reader: Docmentor) -> None:
    assert structured(call(reader, "list_sources")) == {"sources": reader.sources()}

    async def go() -> Any:
        async with Client(build_server(reader)) as client:
            listed = await client.list_resources()
            return listed, await client.read_resource("doc://sources")

    listed, read = run(go)
    assert [str(r.uri) for r in listed.resources] == ["doc://sources"]
    (content,) = read.contents
    assert content.mime_type == "application/json"
    assert json.loads(content.text) == {"sources": reader.sources()}
    assert reader.sources()[0]["documents"] == 2


def test_refresh_sources(engine: Docmentor, docs: Path) -> None:
    (docs / "faq.md").write_text(FAQ.replace("gadgets", "gizmos"), encoding="utf-8")
    (docs / "new.md").write_text("# New\n\nThe yak shaver.\n", encoding="utf-8")
    data = structured(call(engine, "refresh_sources", {"source": "w"}))
    (report,) = data["sources"]
    assert (report["source"], report["added"], report["updated"], report["unchanged"], report["removed"]) == (
        "w",
        1,
        1,
        1,
        0,
    )
    assert report["documents"] == 3
    assert structured(call(engine, "search_docs", {"query": "gadgets"}))["results"] == []
    assert structured(call(engine, "search_docs", {"query": "gizmos"}))["results"][0]["path"] == "faq.md"
    data = structured(call(engine, "refresh_sources"))
    assert [(r["source"], r["unchanged"]) for r in data["sources"]] == [("w", 3)]


def test_tool_errors_are_results_written_for_the_model(reader: Docmentor, shared_docs: Path) -> None:
    before = reader.sources()

    async def go() -> list[tuple[str, CallToolResult]]:
        out = []
        async with Client(build_server(reader)) as client:
            for name, args in (
                ("search_docs", {"query": "widget", "source": "nope"}),
                ("get_doc", {"url_or_path": "w:missing.md"}),
                ("get_doc", {"url_or_path": "missing.md"}),
                ("get_doc_excerpt", {"url_or_path": "nowhere", "query": "x"}),
                ("refresh_sources", {"source": "nope"}),
                ("search_docs", {"query": 5}),
                ("search_docs", {}),
                ("search_docs", {"query": "widget", "source": "ww"}),
            ):
                out.append((name, await client.call_tool(name, args)))
            # the session survives every error
            out.append(("search_docs", await client.call_tool("search_docs", {"query": "widget"})))
        return out

    results = run(go)
    texts = [error_text(r) for _, r in results[:-1]]
    assert "unknown source 'nope'" in texts[0] and "known sources: w" in texts[0]
    assert "no indexed document 'w:missing.md'" in texts[1] and "Try: use a URL, or a path" in texts[1]
    assert "no indexed document 'missing.md'" in texts[2]
    assert "no indexed document 'nowhere'" in texts[3]
    assert "unknown source 'nope'" in texts[4]
    assert texts[5] == "query must be a string, got 5. Try: pass a string.", texts[5]
    assert texts[6] == "search_docs needs the argument 'query'. Try: pass query.", texts[6]
    # a hint that asks is said as a question, not after "Try:" (a team tour)
    assert texts[7] == "unknown source 'ww'. Did you mean 'w'? known sources: w.", texts[7]
    for text in texts:
        assert (
            "pydantic" not in text
            and "validation error" not in text
            and not text.startswith("Error executing")
        )
        assert "Traceback" not in text
    assert structured(results[-1][1])["results"]
    assert reader.sources() == before


def test_refresh_of_a_vanished_folder_is_a_tool_error(engine: Docmentor, docs: Path) -> None:
    for f in docs.iterdir():
        f.unlink()
    docs.rmdir()
    text = error_text(call(engine, "refresh_sources", {"source": "w"}))
    assert "is gone; the source's documents are kept as they were" in text and "docmentor remove w" in text
    (src,) = engine.sources()
    assert (src["documents"], src["status"]) == (2, "error")
    assert structured(call(engine, "search_docs", {"query": "gadgets"}))["results"][0]["path"] == "faq.md"


# ----------------------------------------------------------------- real processes


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["DOCMENTOR_HOME"] = str(tmp_path / "home")
    env.pop("DOCMENTOR_DB", None)
    env.pop("DOCMENTOR_SOURCES", None)
    return env


def test_stdio_server(reader: Docmentor, reader_location: str, tmp_path: Path) -> None:
    db = reader_location
    problems: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            problems.append(message)

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docmentor", "--db", db, "serve"],
        env=_env(tmp_path),
        cwd=tmp_path,
    )

    async def go() -> Any:
        async with Client(params, message_handler=on_message) as client:
            tools = await client.list_tools()
            hits = await client.call_tool("search_docs", {"query": "frobnicator"})
            bad = await client.call_tool("get_doc", {"url_or_path": "nope"})
            return tools, hits, bad

    tools, hits, bad = run(go)
    assert "search_docs" in {t.name for t in tools.tools}
    assert structured(hits) == {
        "query": "frobnicator",
        "results": [h.to_dict() for h in reader.search("frobnicator", limit=5)],
    }
    assert "no indexed document 'nope'" in error_text(bad)
    assert problems == []  # every stdout line was a JSON-RPC message


# SQLite only, for time: test_stdio_server checks on both backends that every stdout line is
# a JSON-RPC message; this one checks the raw pipe on one.
@pytest.mark.parametrize("reader_location", ["sqlite"], indirect=True)
def test_stdio_stdout_is_only_protocol(reader: Docmentor, reader_location: str, tmp_path: Path) -> None:
    """Raw pipes: every line the server writes to stdout is a JSON-RPC message."""
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        tool_call(2, "search_docs", {"query": "frobnicator"}),
        tool_call(3, "get_doc", {"url_or_path": "nope"}),
        tool_call(4, "refresh_sources"),
    ]
    replies, stderr = converse(
        [sys.executable, "-m", "docmentor", "--db", reader_location, "serve"],
        messages,
        env=_env(tmp_path),
        cwd=tmp_path,
    )  # every stdout line parsed as JSON, exit status 0
    assert all(r.get("jsonrpc") == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if "id" in r}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[2]["result"]["structuredContent"]["results"][0]["path"] == "guide.md"
    assert by_id[3]["result"]["isError"] is True
    assert by_id[4]["result"]["structuredContent"]["sources"][0]["unchanged"] == 2
    assert "Traceback" not in stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpServerProcess:
    def __init__(self, db: str, tmp_path: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = (tmp_path / f"server-{self.port}.log").open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "docmentor",
                "--db",
                db,
                "serve",
                "--transport",
                "http",
                "--port",
                str(self.port),
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=_env(tmp_path),
            cwd=tmp_path,
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, Path(self.log.name).read_text()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"server on {self.port} did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture
def http_servers(tmp_path: Path) -> Iterator[Callable[[str], HttpServerProcess]]:
    started: list[HttpServerProcess] = []

    def start(db: str) -> HttpServerProcess:
        server = HttpServerProcess(db, tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def test_http_server(
    reader: Docmentor, reader_location: str, http_servers: Callable[[str], HttpServerProcess]
) -> None:
    server = http_servers(reader_location)
    server.wait_ready()

    async def go() -> CallToolResult:
        async with Client(server.url) as client:
            return await client.call_tool("search_docs", {"query": "frobnicator", "limit": 3})

    data = structured(run(go))
    assert data == {
        "query": "frobnicator",
        "results": [h.to_dict() for h in reader.search("frobnicator", limit=3)],
    }
    server.stop()
    assert server.proc.returncode in (0, -signal.SIGTERM)
    log = Path(server.log.name).read_text()
    assert "Traceback" not in log and "ERROR" not in log, log
    assert log.startswith(f"docmentor: MCP over streamable HTTP at {server.url}\n"), log


# SQLite only, for time: the port is checked the same way whatever the index (test_http_server
# serves PostgreSQL).
@pytest.mark.parametrize("reader_location", ["sqlite"], indirect=True)
def test_http_server_on_a_port_in_use_is_one_error(reader_location: str, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "docmentor", "--db", reader_location, "serve", "--transport", "http",
             "--port", str(port)],
            capture_output=True, text=True, env=_env(tmp_path), cwd=tmp_path, timeout=60,
        )  # fmt: skip
    assert (proc.returncode, proc.stdout) == (1, "")
    assert (
        proc.stderr
        == f"error: cannot serve on 127.0.0.1:{port}: Address already in use (pass another --port)\n"
    )


def test_two_servers_share_one_index(
    engine: Docmentor, index_location: str, docs: Path, http_servers: Callable[[str], HttpServerProcess]
) -> None:
    one, two = http_servers(index_location), http_servers(index_location)
    one.wait_ready()
    two.wait_ready()

    async def search(server: HttpServerProcess, query: str) -> list[str]:
        async with Client(server.url) as client:
            data = structured(await client.call_tool("search_docs", {"query": query}))
            return [r["path"] for r in data["results"]]

    async def go() -> None:
        assert await search(two, "gadgets") == ["faq.md"]
        assert await search(two, "hovercraft") == []
        (docs / "faq.md").write_text(FAQ.replace("gadgets", "hovercraft"), encoding="utf-8")
        async with Client(one.url) as client:
            data = structured(await client.call_tool("refresh_sources", {"source": "w"}))
        assert data["sources"][0]["updated"] == 1
        assert await search(two, "hovercraft") == ["faq.md"]
        assert await search(two, "gadgets") == []
        async with Client(two.url) as client:
            sources = structured(await client.call_tool("list_sources"))["sources"]
        assert sources[0]["documents"] == 2

    run(go)


def _project_with_configured_sources(
    index_location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Docmentor:
    """A working folder whose docmentor.toml names an unreachable source, then a folder."""
    work = tmp_path / "project"
    (work / "manual").mkdir(parents=True)
    (work / "manual" / "intro.md").write_text("# Intro\n\nThe zeppelin manual.\n", encoding="utf-8")
    (work / "docmentor.toml").write_text('sources = ["bad:http://127.0.0.1:9/llms.txt", "cfg:manual"]\n')
    monkeypatch.chdir(work)
    return Docmentor(index_location, create=True)


def test_configured_sources_are_indexed_one_by_one_and_named_in_new_sessions(
    index_location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docmentor.server import _background

    # the first configured source cannot be read (nothing listens there); the second can
    engine = _project_with_configured_sources(index_location, tmp_path, monkeypatch)
    server = build_server(engine, tools=["docs"])
    assert "Indexed sources: none yet" in (server.instructions or "")
    _background(engine, server, configured=True, interval_hours=0)
    deadline = time.monotonic() + 30
    while "cfg (1 docs)" not in (server.instructions or "") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [s["name"] for s in engine.sources()] == ["cfg"]
    assert "Indexed sources: cfg (1 docs)." in (server.instructions or "")
    engine.close()


def test_an_argument_a_tool_does_not_take_is_an_error(reader: Docmentor) -> None:
    async def go() -> tuple[CallToolResult, CallToolResult, dict[str, Any]]:
        async with Client(build_server(reader)) as client:
            schema = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            wrong = await client.call_tool("calculate_clarity_score", {"document": "print(x)"})
            right = await client.call_tool("search_docs", {"query": "frobnicator", "limit": 1})
            return wrong, right, schema

    wrong, right, schema = run(go)
    assert wrong.is_error
    text = wrong.content[0].text if isinstance(wrong.content[0], TextContent) else ""
    assert text == (
        "calculate_clarity_score takes no argument 'document'. Try: use only its arguments "
        "(critical_issues, warning_issues, info_issues, total_code_blocks, successful_examples, "
        "failed_examples, skipped_examples, total_api_signatures, valid_api_signatures, "
        "invalid_api_signatures, missing_api_signatures, api_accuracy_score, broken_links, missing_alt_text)."
    ), text
    assert not right.is_error
    assert all(s.get("additionalProperties") is False for s in schema.values())


def test_refresh_sources_indexes_configured_sources_and_reports_the_ones_it_cannot_read(
    index_location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the first configured source cannot be read (nothing listens there); the second can
    engine = _project_with_configured_sources(index_location, tmp_path, monkeypatch)

    async def go() -> dict[str, Any]:
        async with Client(build_server(engine, tools=["docs"])) as client:
            return structured(await client.call_tool("refresh_sources", {}))

    data = run(go)
    by_name = {r["source"]: r for r in data["sources"]}
    assert by_name["cfg"]["error"] is None and by_name["cfg"]["documents"] == 1
    assert by_name["bad"]["kind"] == "configured" and "127.0.0.1:9" in by_name["bad"]["error"]
    engine.close()


def test_serving_on_an_address_of_another_machine_says_which_option_to_change() -> None:
    from docmentor.errors import UsageError
    from docmentor.mcp_http import check_port as _check_port

    with pytest.raises(UsageError) as info:
        _check_port("192.0.2.1", 8765)  # TEST-NET-1: never this machine's
    assert str(info.value).startswith("cannot serve on 192.0.2.1:8765: ")
    assert info.value.hint == "pass a --host of this machine, e.g. 127.0.0.1"


def test_serve_options_are_checked_before_anything_starts(
    index_location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clitool import Cli

    cli = Cli(tmp_path, capsys)
    for argv, code, message in (
        (("--transport", "carrier-pigeon"), 2, "error: Invalid value for '--transport' / '-t': 'carrier-pigeon' is not one of 'stdio', 'http'."),
        (("--refresh-interval", "-1"), 2, "error: Invalid value for '--refresh-interval': -1.0 is not in the range x>=0."),
        (("--allow-path", str(tmp_path / "nope")), 2, "error: Invalid value for '--allow-path': Directory"),
        (("--insecure",), 2, "error: --insecure: only for --transport http (drop it, or serve over HTTP)"),
        (("--tools", "docs,bogus"), 2, "error: unknown tool group(s): bogus (choose from "),
        (("--token-file", str(tmp_path / "none"), "-t", "http"), 2, f"error: cannot read the token file {tmp_path / 'none'}"),
    ):  # fmt: skip
        rc, out, err = cli.raw("--db", index_location, "serve", *argv)
        assert (rc, out) == (code, ""), (argv, err)
        assert err.startswith(message), (argv, err)
        assert "Traceback" not in err
    # nothing was created: no index folder, no index in the schema
    if "://" not in index_location:
        assert not Path(index_location).exists()
    rc, out, err = cli.raw("--db", index_location, "search", "widget")
    assert (rc, out) == (1, "") and err.startswith("error: no index "), err


def test_an_excerpt_cut_from_a_long_section_names_its_own_lines(tmp_path: Path) -> None:
    """An agent quotes an excerpt by its lines: a window cut from a long section reports the
    lines of the text it returns, not the whole section's."""
    docs = tmp_path / "docs"
    docs.mkdir()
    body = "\n".join(f"Line {i} says nothing much about anything at all." for i in range(3, 40))
    (docs / "long.md").write_text(
        f"# Long\n\n{body}\nTo stop it, call widget.shutdown() once.\n", encoding="utf-8"
    )
    engine = Docmentor(tmp_path / "index", embeddings=False)
    engine.add(str(docs), name="d")
    data = structured(
        call(
            engine, "get_doc_excerpt", {"url_or_path": "d:long.md", "query": "shutdown", "context_chars": 50}
        )
    )
    best = data["excerpts"][0]
    lines = (docs / "long.md").read_text(encoding="utf-8").splitlines()
    shown = lines[best["line_start"] - 1 : best["line_end"]]
    assert "widget.shutdown()" in best["text"] and best["line_end"] == 40 and best["line_start"] >= 38, best
    assert "\n".join(shown).endswith(best["text"].removeprefix("…").strip()), (shown, best)
    engine.close()


def test_an_excerpt_cut_inside_a_code_block_still_names_its_own_lines(tmp_path: Path) -> None:
    """A window cut inside a long code block is shown as a code block of its own (a fence
    opened before it): its text is then not the section's, and its lines were the whole
    section's span; now the lines its text is found on, in order."""
    docs = tmp_path / "docs"
    docs.mkdir()
    code = "\n".join(f"    value_{i} = compute_weather({i})  # a town nobody visits" for i in range(60))
    code = code.replace("value_30 = compute_weather(30)", "value_30 = widget.shutdown(30)")
    page = (
        f"# Guide\n\n## Setup\n\nThe whole program:\n\n```python\ndef main():\n{code}\n```\n\nThat is all.\n"
    )
    (docs / "guide.md").write_text(page, encoding="utf-8")
    engine = Docmentor(tmp_path / "index", embeddings=False)
    engine.add(str(docs), name="d")
    data = structured(
        call(
            engine,
            "get_doc_excerpt",
            {"url_or_path": "d:guide.md", "query": "shutdown", "context_chars": 120},
        )
    )
    best = data["excerpts"][0]
    assert best["text"].startswith("```python") and "widget.shutdown(30)" in best["text"], best
    lines = page.splitlines()
    assert best["line_end"] - best["line_start"] < 12, best  # not the section's 70 lines
    shown = "\n".join(lines[best["line_start"] - 1 : best["line_end"]])
    for piece in best["text"].split("\n"):
        piece = piece.strip().strip("…").strip()
        if len(piece) >= 8 and not piece.startswith("```"):
            assert piece in shown, (piece, best)
    engine.close()


def test_an_excerpt_holds_a_code_block_it_would_cut_whole(tmp_path: Path) -> None:
    """An agent copies the code an excerpt shows: a window that would stop inside a short
    block grows to its closing fence (a tour's download loop was cut after ``as progress:``
    and closed by a fence of the excerpt's own), and names the lines it shows; a block too
    long to grow shows a ``…`` line where the cut is."""
    docs = tmp_path / "docs"
    docs.mkdir()
    prose = " ".join(f"Sentence {i} about monitoring progress of large downloads." for i in range(12))
    loop = "\n".join(f"        progress.update(chunk_{i})" for i in range(8))
    page = (
        f"# Clients\n\n## Progress\n\n{prose}\n\n```python\nwith httpx.stream('GET', url) as response:\n"
        f"    with tqdm(total=total) as progress:\n{loop}\n        download_file.write(chunk)\n```\n\n"
        "After the loop.\n"
    )
    (docs / "clients.md").write_text(page, encoding="utf-8")
    huge = "\n".join(
        f"    step_{i}(download, progress)  # one more line of a long program" for i in range(200)
    )
    (docs / "huge.md").write_text(
        f"# Huge\n\n## Program\n\n{prose}\n\n```python\ndef main():\n{huge}\n```\n", encoding="utf-8"
    )
    engine = Docmentor(tmp_path / "index", embeddings=False)
    engine.add(str(docs), name="d")
    best = engine.excerpt("d:clients.md", "monitoring progress of large downloads", context_chars=400)[
        "excerpts"
    ][0]
    assert best["text"].rstrip().endswith("download_file.write(chunk)\n```"), best["text"]
    lines = page.splitlines()
    assert lines[best["line_end"] - 1] == "```" and "download_file.write" in lines[best["line_end"] - 2]
    assert lines[best["line_start"] - 1].strip() in best["text"]
    cut = engine.excerpt("d:huge.md", "monitoring progress of large downloads", context_chars=400)[
        "excerpts"
    ][0]
    assert "def main():" in cut["text"] and cut["text"].rstrip().endswith("…\n```"), cut["text"]
    engine.close()


def test_the_instructions_name_every_tool_of_each_group(reader: Docmentor, tmp_path: Path) -> None:
    """A model reads the instructions before the tool list: each tool a group serves is
    named there (``--tools jobs`` alone gave empty instructions; score_document was unnamed)."""
    from docmentor.server import TOOL_GROUPS

    for group in TOOL_GROUPS:
        extra = {"allow_paths": [tmp_path]} if group == "repodocs" else {}

        async def go(group: str = group, extra: dict[str, Any] = extra) -> tuple[str, list[str]]:
            async with Client(build_server(reader, tools=[group], **extra)) as client:
                return client.instructions or "", [t.name for t in (await client.list_tools()).tools]

        text, names = run(go)
        assert names, group
        assert [n for n in names if n not in text] == [], (group, text)
