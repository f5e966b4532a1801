"""The MCP contract a client can rely on, through the official client (in-process and over
stdio): ranges and choices in the input schemas and refused outside them, typed output
schemas the structured content matches, errors written for a model, protocol details."""

from __future__ import annotations

import inspect
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import anyio
import jsonschema
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from docmentor.engine import Docmentor
from docmentor.library import generate
from docmentor.mcp_contract import untitled
from docmentor.server import build_server
from mcptool import tool_call

LIB = Path(__file__).parent / "fixtures" / "readme_lib"
ALL_TOOLS = {
    "search_docs", "get_doc", "get_doc_excerpt", "list_sources", "refresh_sources", "assemble_context",
    "get_rubric", "calculate_clarity_score", "calculate_dimension_score", "get_improvement_roadmap",
    "explain_score", "score_document", "find_api", "get_examples", "get_library_overview", "report_issue",
}  # fmt: skip
ISSUES = [{"type": "logical_gap", "severity": "critical", "line": 4, "section": "Setup", "message": "gap"}]
# one call of every tool, on an index with a documentation source and a knowledge base
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_docs", {"query": "insert rows", "limit": 3}),
    ("get_doc", {"url_or_path": "minidb-docs:index.md", "limit": 80}),
    ("get_doc", {"url_or_path": "minidb-docs:quickstart.md", "lines": "9-12"}),
    ("get_doc_excerpt", {"url_or_path": "minidb-docs:index.md", "query": "rows"}),
    ("list_sources", {}),
    ("refresh_sources", {"source": "minidb-docs"}),
    ("assemble_context", {"query": "insert rows", "max_tokens": 600}),
    ("assemble_context", {"query": "insert rows", "max_tokens": 600, "format": "json"}),
    ("assemble_context", {"query": "zyxwvut quaggaflux"}),
    ("get_rubric", {}),
    ("calculate_clarity_score", {"critical_issues": 1, "total_code_blocks": 2, "api_accuracy_score": 0.5}),
    ("calculate_dimension_score", {"dimension": "completeness", "warning_issues_for_dimension": 2}),
    ("get_improvement_roadmap", {"current_score": 5, "target_score": 8, "issues": ISSUES}),
    ("explain_score", {"critical_issues": 1}),
    ("explain_score", {"score": 5.5, "critical_issues": 3, "penalties_applied": [{"type": "x", "penalty": 1.5}]}),
    ("score_document", {"path_or_url": "minidb-docs:quickstart.md"}),
    ("get_library_overview", {"aspect": "all"}),
    ("find_api", {"query": "insert rows into a table", "max_results": 2}),
    ("get_examples", {"task_description": "filter rows", "complexity": "beginner"}),
    ("report_issue", {"query": "compact the file", "issue_type": "missing_example"}),
]  # fmt: skip


def run(fn: Any) -> Any:
    return anyio.run(fn)


def _kb_engine(tmp: Path, where: str | Path) -> Docmentor:
    lib = tmp / "lib"
    shutil.copytree(LIB, lib, ignore=shutil.ignore_patterns("__pycache__"))
    eng = Docmentor(where)
    generate(eng, library="minidb", docs_path=lib / "docs", out=tmp / "gen", search_paths=[lib])
    return eng


@pytest.fixture(scope="module")
def kb_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Docmentor]:
    tmp = tmp_path_factory.mktemp("contract")
    eng = _kb_engine(tmp, tmp / "index")
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def kb_engine_postgres(
    tmp_path_factory: pytest.TempPathFactory, module_postgres_url: str
) -> Iterator[Docmentor]:
    """The same knowledge base and documents in PostgreSQL (a team server's index)."""
    eng = _kb_engine(tmp_path_factory.mktemp("contract-pg"), module_postgres_url)
    yield eng
    eng.close()


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Docmentor]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nline three\n\n## Setup\n\nline seven\nline eight\nline nine\n")
    eng = Docmentor(tmp_path / "index")
    eng.add(str(docs), name="g")
    yield eng
    eng.close()


def calls(engine: Docmentor, todo: list[tuple[str, dict[str, Any]]], **options: Any) -> tuple[Any, list[Any]]:
    async def go() -> tuple[Any, list[Any]]:
        async with Client(build_server(engine, **options)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools, [await client.call_tool(name, args) for name, args in todo]

    return run(go)


def error_text(result: CallToolResult) -> str:
    assert result.is_error and result.structured_content is None
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


# -------------------------------------------------------------------------- input schemas


def test_input_schemas_carry_the_ranges_and_choices(kb_engine: Docmentor) -> None:
    tools, _ = calls(kb_engine, [])
    assert set(tools) == ALL_TOOLS

    def prop(tool: str, name: str) -> dict[str, Any]:
        schema = tools[tool].input_schema["properties"][name]
        return next((s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"), schema)

    expected = {
        ("search_docs", "limit"): (1, 20),
        ("get_doc", "offset"): (0, None),
        ("get_doc", "limit"): (1, 100_000),
        ("get_doc_excerpt", "max_chunks"): (1, 20),
        ("get_doc_excerpt", "context_chars"): (50, 5000),
        ("assemble_context", "max_tokens"): (200, 20_000),
        ("assemble_context", "depth"): (0, 2),
        ("assemble_context", "sections"): (1, 100),
        ("find_api", "max_results"): (1, 20),
        ("calculate_clarity_score", "critical_issues"): (0, None),
        ("calculate_clarity_score", "total_code_blocks"): (0, None),
        ("calculate_clarity_score", "api_accuracy_score"): (0, 1),
        ("calculate_dimension_score", "warning_issues_for_dimension"): (0, None),
        ("get_improvement_roadmap", "current_score"): (0, 10),
        ("explain_score", "score"): (0, 10),
        ("score_document", "target_score"): (0, 10),
    }
    for (tool, name), (lo, hi) in expected.items():
        p = prop(tool, name)
        assert (p.get("minimum"), p.get("maximum")) == (lo, hi), (tool, name, p)
    assert prop("assemble_context", "format")["enum"] == ["markdown", "json"]
    assert prop("calculate_dimension_score", "dimension")["enum"] == [
        "instruction_clarity", "logical_flow", "completeness", "consistency", "prerequisite_coverage"
    ]  # fmt: skip
    assert "pattern" in prop("get_doc", "lines")
    for tool in tools.values():  # every argument says what it is
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description") or name in ("issue_type", "dimension"), (tool.name, name)


def test_the_choices_are_the_librarys() -> None:
    from docmentor import mcp_api, mcp_clarity
    from docmentor.clarity.models import DIMENSIONS
    from docmentor.library.service.feedback import ISSUE_TYPES
    from docmentor.library.service.service import ASPECTS, COMPLEXITIES

    assert get_args(mcp_api.Aspect) == ASPECTS and get_args(mcp_api.Complexity) == COMPLEXITIES
    assert get_args(mcp_api.IssueType) == ISSUE_TYPES and get_args(mcp_clarity.Dimension) == DIMENSIONS


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("search_docs", {"query": "x", "limit": 0}, "limit must be between 1 and 20, got 0. Try: a value from 1 to 20."),
        ("search_docs", {"query": "x", "limit": -5}, "limit must be between 1 and 20, got -5. Try: a value from 1 to 20."),
        ("search_docs", {"query": "x", "limit": 100000}, "limit must be between 1 and 20, got 100000. Try: a value from 1 to 20."),
        ("get_doc", {"url_or_path": "g:guide.md", "offset": -10}, "offset must be at least 0, got -10. Try: 0 or more."),
        ("get_doc", {"url_or_path": "g:guide.md", "limit": 0}, "limit must be between 1 and 100000, got 0. Try: a value from 1 to 100000."),
        ("get_doc", {"url_or_path": "g:guide.md", "lines": "seven"}, 'lines "seven" is not a line range. Try: START-END, e.g. 12-40.'),
        ("get_doc_excerpt", {"url_or_path": "g:guide.md", "query": "x", "max_chunks": 0}, "max_chunks must be between 1 and 20, got 0. Try: a value from 1 to 20."),
        ("assemble_context", {"query": "x", "max_tokens": -1}, "max_tokens must be between 200 and 20000, got -1. Try: a value from 200 to 20000."),
        ("assemble_context", {"query": "x", "depth": 7}, "depth must be between 0 and 2, got 7. Try: a value from 0 to 2."),
        ("assemble_context", {"query": "x", "sections": -3}, "sections must be between 1 and 100, got -3. Try: a value from 1 to 100."),
        ("assemble_context", {"query": "x", "format": "yaml"}, 'unknown format "yaml". Try: one of markdown, json.'),
        ("calculate_clarity_score", {"critical_issues": -1}, "critical_issues must be at least 0, got -1. Try: 0 or more."),
        ("calculate_clarity_score", {"total_code_blocks": -2}, "total_code_blocks must be at least 0, got -2. Try: 0 or more."),
        ("calculate_dimension_score", {"dimension": "readability"}, 'unknown dimension "readability". Try: one of instruction_clarity, logical_flow, completeness, consistency, prerequisite_coverage.'),
        ("get_improvement_roadmap", {"current_score": 11, "target_score": 8, "issues": []}, "current_score must be between 0 and 10, got 11. Try: a value from 0 to 10."),
        ("get_improvement_roadmap", {"current_score": 5, "target_score": 8, "issues": [3]}, "issues[0] must be an object, got 3. Try: pass an object."),
        ("score_document", {"path_or_url": "g:guide.md", "target_score": -1}, "target_score must be between 0 and 10, got -1. Try: a value from 0 to 10."),
        ("search_docs", {"query": "x", "limit": "many"}, 'limit must be a whole number, got "many". Try: pass a whole number.'),
        ("list_sources", {"verbose": True}, "list_sources takes no argument 'verbose'. Try: call it without arguments."),
        ("search_docs", {"query": "x", "version": "latest"}, 'version "latest" is not a version number. Try: one such as 2.1 or v0.28.1 (list_sources shows the indexed ones), or leave it out for the newest.'),
    ],
)  # fmt: skip
def test_out_of_range_values_are_tool_errors_naming_the_range(
    small: Docmentor, tool: str, args: dict[str, Any], message: str
) -> None:
    _, (result,) = calls(small, [(tool, args)])
    assert error_text(result) == message


# ------------------------------------------------------------------------- output schemas


@pytest.mark.parametrize("engine", ["kb_engine", "kb_engine_postgres"])
def test_every_tool_has_a_typed_output_schema_and_its_results_match_it(
    engine: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every tool on either backend: the embedded index and an index in PostgreSQL
    monkeypatch.chdir(tmp_path)  # no project pins, no configured sources here
    tools, results = calls(request.getfixturevalue(engine), CALLS)
    for tool in tools.values():
        schema = tool.output_schema
        assert schema is not None and schema.get("type") == "object", tool.name
        jsonschema.Draft202012Validator.check_schema(schema)
        # typed: the keys it promises, or the type of every value; not {"additionalProperties": true}
        assert schema.get("properties") or isinstance(schema.get("additionalProperties"), dict), tool.name
    seen = set()
    for (name, args), result in zip(CALLS, results, strict=True):
        assert not result.is_error, (name, args, result.content)
        data = result.structured_content
        jsonschema.validate(data, tools[name].output_schema)
        (text,) = result.content
        assert isinstance(text, TextContent)
        if name == "assemble_context" and args.get("format") != "json":
            assert text.text == data["digest"]  # the model reads the Markdown digest
        elif name == "assemble_context":
            assert {**json.loads(text.text), "format": "json"} == data  # the JSON digest itself
        else:  # the mirror is compact JSON of the same content
            assert json.loads(text.text) == data and "\n" not in text.text, name
        seen.add(name)
    assert seen == ALL_TOOLS


def test_assemble_context_returns_the_digest_in_structured_content(kb_engine: Docmentor) -> None:
    _, (md, js) = calls(
        kb_engine,
        [
            ("assemble_context", {"query": "insert rows", "max_tokens": 600}),
            ("assemble_context", {"query": "insert rows", "max_tokens": 600, "format": "json"}),
        ],
    )
    data = md.structured_content
    assert data["format"] == "markdown" and data["digest"].startswith('# Context Digest for: "insert rows"')
    assert data["sections_selected"] == len(data["sections"]) > 0
    # the passages are in the digest once, not again as each section's text (an MCP tour:
    # structured content was three times the budget)
    assert all(s["path"] and s["line_start"] and "text" not in s for s in data["sections"])
    for section in data["sections"]:  # every selected passage is in the digest text too
        assert f"{section['path']}:{section['line_start']}-{section['line_end']}" in data["digest"]
    parsed = js.structured_content
    assert parsed["format"] == "json" and "digest" not in parsed
    assert parsed["sections"] and parsed["sections"][0]["text"]


# -------------------------------------------------------------------------------- errors


def test_errors_name_the_tools_arguments_not_the_cli_flags(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\ntext\n")
    eng = Docmentor(tmp_path / "index")
    eng.add(str(docs), name="a")
    eng.add(str(docs), name="b")
    _, (ambiguous,) = calls(eng, [("get_doc", {"url_or_path": "guide.md"})])
    text = error_text(ambiguous)
    assert text == "'guide.md' is in several sources. Try: name one: a:guide.md, b:guide.md.", text
    assert "--" not in text
    eng.close()


def test_unknown_tool_is_a_json_rpc_error_and_no_prompts_are_advertised(small: Docmentor) -> None:
    async def go() -> tuple[Any, Any, Any]:
        async with Client(build_server(small)) as client:
            caps = client.server_capabilities
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("no_such_tool", {})
            with pytest.raises(MCPError) as prompts:
                await client.list_prompts()
            after = await client.call_tool("search_docs", {"query": "setup"})  # the session goes on
            return caps, (unknown.value, prompts.value), after

    caps, (unknown, prompts), after = run(go)
    assert unknown.code == -32602 and "no_such_tool" in unknown.message and "search_docs" in unknown.message
    assert prompts.code == -32601
    assert caps.prompts is None and caps.tools is not None and caps.resources is not None
    assert not after.is_error


def test_tool_descriptions_have_no_docstring_indentation(kb_engine: Docmentor) -> None:
    tools, _ = calls(kb_engine, [])
    for tool in tools.values():
        assert tool.description == inspect.cleandoc(tool.description), tool.name
        assert "\n    " not in tool.description and not tool.description.startswith(" "), tool.name


# -------------------------------------------------------------------- instructions, state


def test_instructions_without_a_knowledge_base_do_not_send_the_model_to_find_api(
    small: Docmentor, kb_engine: Docmentor
) -> None:
    async def instructions(engine: Docmentor) -> str:
        async with Client(build_server(engine)) as client:
            return client.instructions or ""

    without = run(lambda: instructions(small))
    assert "No library knowledge base is registered yet" in without
    assert "Before calling an API" not in without
    with_kb = run(lambda: instructions(kb_engine))
    assert "Library knowledge bases: minidb" in with_kb and "find_api(task in words)" in with_kb


def test_a_configured_source_that_cannot_be_indexed_is_listed_with_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docmentor.server import _background

    work = tmp_path / "project"
    (work / "manual").mkdir(parents=True)
    (work / "manual" / "intro.md").write_text("# Intro\n\nThe zeppelin manual.\n")
    (work / "docmentor.toml").write_text('sources = ["bad:http://127.0.0.1:9/llms.txt", "cfg:manual"]\n')
    monkeypatch.chdir(work)
    eng = Docmentor(tmp_path / "index", create=True)
    server = build_server(eng, tools=["docs"])
    _background(eng, server, configured=True, interval_hours=0)  # as `serve` starts
    deadline = time.monotonic() + 30
    while "cfg (1 docs)" not in (server.instructions or "") and time.monotonic() < deadline:
        time.sleep(0.05)

    async def listed() -> list[dict[str, Any]]:
        async with Client(server) as client:
            return (await client.call_tool("list_sources", {})).structured_content["sources"]

    rows = {r["name"]: r for r in run(listed)}
    assert rows["cfg"]["status"] == "ok" and rows["cfg"]["documents"] == 1
    bad = rows["bad"]
    assert (bad["kind"], bad["status"], bad["documents"]) == ("configured", "error", 0)
    assert "127.0.0.1:9" in bad["error"] and bad["target"] == "http://127.0.0.1:9/llms.txt"
    # in a new server, refresh_sources tries it again, and list_sources lists it with its error
    _, (refreshed, again) = calls(eng, [("refresh_sources", {}), ("list_sources", {})], tools=["docs"])
    assert {r["source"]: r["error"] is not None for r in refreshed.structured_content["sources"]} == {
        "bad": True,
        "cfg": False,
    }
    assert [(r["name"], r["status"]) for r in again.structured_content["sources"]] == [
        ("cfg", "ok"),
        ("bad", "error"),
    ]
    eng.close()


def test_get_doc_lines(small: Docmentor) -> None:
    _, (seven_nine, one, beyond) = calls(
        small,
        [
            ("get_doc", {"url_or_path": "g:guide.md", "lines": "7-9"}),
            ("get_doc", {"url_or_path": "g:guide.md", "lines": "1"}),
            ("get_doc", {"url_or_path": "g:guide.md", "lines": "40-50"}),
        ],
    )
    assert seven_nine.structured_content["content"] == "line seven\nline eight\nline nine"
    assert one.structured_content["content"] == "# Guide"
    assert error_text(beyond) == "lines 40-50: guide.md has 9 lines. Try: ask for lines up to 9."


# -------------------------------------------------------------------- stdio, raw lines


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "r", "version": "0"},
    },
}


def _stdio_session(
    small: Docmentor, tmp_path: Path, lines: list[str], last_id: int
) -> tuple[list[dict[str, Any]], str, int | None, float]:
    """Write ``lines`` (after initialize) to ``docmentor serve`` over stdio pipes, read replies
    until the one with ``last_id``, then close stdin. Returns the replies, stderr, the exit
    code and the seconds from the first write to the exit."""
    env = dict(os.environ, DOCMENTOR_HOME=str(tmp_path / "home"))
    env.pop("DOCMENTOR_SOURCES", None)
    proc = subprocess.Popen(  # unbuffered: a line read ahead into Python's buffer is invisible to select
        [sys.executable, "-m", "docmentor", "--db", str(small.root), "serve"], bufsize=0,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    session = [json.dumps(_INITIALIZE), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    replies: list[dict[str, Any]] = []
    started = time.monotonic()
    try:
        proc.stdin.write(("\n".join([*session, *lines]) + "\n").encode())
        proc.stdin.flush()
        while not any(r.get("id") == last_id for r in replies) and time.monotonic() < started + 60:
            if select.select([proc.stdout], [], [], 0.5)[0]:
                line = proc.stdout.readline()
                assert line, "the server closed stdout"
                replies.append(json.loads(line))
        proc.stdin.close()
        proc.wait(timeout=30)
        stderr = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return replies, stderr, proc.returncode, time.monotonic() - started


def test_malformed_lines_on_stdio_get_json_rpc_errors_and_the_session_goes_on(
    small: Docmentor, tmp_path: Path
) -> None:
    lines = [
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {',  # cut short
        json.dumps([tool_call(3, "list_sources")]),  # a batch
        json.dumps({"id": 4, "method": "tools/list"}),  # no "jsonrpc"
        "\x00\x01 garbage",
        json.dumps(tool_call(5, "search_docs", {"query": "setup"})),
    ]
    replies, stderr, returncode, _ = _stdio_session(small, tmp_path, lines, 5)
    assert returncode == 0, stderr
    errors = [(r["id"], r["error"]["code"]) for r in replies if "error" in r]
    assert errors == [(None, -32700), (None, -32600), (4, -32600), (None, -32700)], replies
    batch = next(r for r in replies if "error" in r and (r["id"], r["error"]["code"]) == (None, -32600))
    assert "batches are not supported" in batch["error"]["message"]
    by_id = {r["id"]: r for r in replies if "result" in r}
    assert by_id[5]["result"]["structuredContent"]["results"][0]["path"] == "guide.md"
    assert "Traceback" not in stderr


def _nested_call(request_id: int, depth: int) -> str:
    """A tools/call whose argument nests ``depth`` lists: past Python's and pydantic's limits."""
    query = "[" * depth + "]" * depth
    return (
        f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", '
        f'"params": {{"name": "search_docs", "arguments": {{"query": {query}}}}}}}'
    )


def test_deeply_nested_lines_on_stdio_are_refused_and_the_session_goes_on(
    small: Docmentor, tmp_path: Path
) -> None:
    lines = [
        _nested_call(2, 3000),  # past Python's recursion limit
        _nested_call(3, 600),  # readable by json, not by the SDK's parser
        json.dumps(tool_call(5, "search_docs", {"query": "setup"})),
    ]
    replies, stderr, returncode, seconds = _stdio_session(small, tmp_path, lines, 5)
    assert returncode == 0, stderr
    assert seconds < 28  # every request read was answered: no 30 s wait at the end
    errors = [(r["id"], r["error"]["code"]) for r in replies if "error" in r]
    assert errors == [(None, -32700), (3, -32600)], replies
    assert any("too deeply" in r["error"]["message"] for r in replies if "error" in r)
    assert next(r for r in replies if r.get("id") == 5)["result"]["structuredContent"]["results"]
    assert "Traceback" not in stderr


def test_malformed_bodies_over_http_get_the_same_json_rpc_errors(small: Docmentor, tmp_path: Path) -> None:
    import socket

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = dict(os.environ, DOCMENTOR_HOME=str(tmp_path / "home"))
    env.pop("DOCMENTOR_SOURCES", None)
    log = (tmp_path / "http.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "docmentor", "--db", str(small.root), "serve", "-t", "http", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, (
                    tmp_path / "http.log"
                ).read_text()
                time.sleep(0.05)
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        answers, refused = [], []
        for body in ('{"jsonrpc": "2.0", "id": 1, "method": ', json.dumps([tool_call(2, "list_sources")]),
                     json.dumps({"id": 3, "method": "tools/list"}), _nested_call(4, 3000),
                     _nested_call(5, 600)):  # fmt: skip
            response = httpx.post(f"http://127.0.0.1:{port}/mcp", content=body, headers=headers, timeout=10)
            answers.append((response.status_code, response.json()))
        # a name the server does not answer to is refused before its body is looked at
        for body in ('{"jsonrpc": ', _nested_call(6, 3000)):
            response = httpx.post(
                f"http://127.0.0.1:{port}/mcp",
                content=body,
                headers={**headers, "Host": "evil.example"},
                timeout=10,
            )
            refused.append(response.status_code)
        # a GET gets 405 at once (stateless: no stream to offer), whatever it accepts
        gets = []
        for accept in ("*/*", "text/event-stream"):
            got = httpx.get(f"http://127.0.0.1:{port}/mcp", headers={"Accept": accept}, timeout=5)
            gets.append((got.status_code, got.headers.get("allow"), got.json()["error"]["code"]))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
    assert gets == [(405, "POST", -32600)] * 2
    assert refused == [421, 421]
    assert [(status, a["id"], a["error"]["code"]) for status, a in answers] == [
        (400, None, -32700),
        (400, None, -32600),
        (400, 3, -32600),
        (400, None, -32700),
        (400, 5, -32600),
    ]
    for _, answer in answers:
        assert "pydantic" not in answer["error"]["message"]


def test_malformed_lines_on_a_socket_stdio_are_answered_too(small: Docmentor, tmp_path: Path) -> None:
    """Node's child processes (MCP Inspector, Claude Code) get socket pairs, which the SDK's
    own stdio transport reads: its unreadable lines are answered as well."""
    import socket

    env = dict(os.environ, DOCMENTOR_HOME=str(tmp_path / "home"))
    env.pop("DOCMENTOR_SOURCES", None)
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(
        [sys.executable, "-m", "docmentor", "--db", str(small.root), "serve"],
        stdin=theirs.fileno(), stdout=theirs.fileno(), stderr=subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    theirs.close()
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "0"},
        },
    }
    lines = [
        json.dumps(init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": ',  # cut short
        json.dumps([tool_call(3, "list_sources")]),  # a batch
        json.dumps(tool_call(5, "search_docs", {"query": "setup"})),
    ]
    replies: list[dict[str, Any]] = []
    try:
        ours.sendall(("\n".join(lines) + "\n").encode())
        reader = ours.makefile("rb")
        ours.settimeout(60)
        while not any(r.get("id") == 5 for r in replies):
            line = reader.readline()
            assert line, "the server closed its end"
            replies.append(json.loads(line))
        reader.close()
        ours.shutdown(socket.SHUT_WR)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        ours.close()
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode()
        proc.stderr.close()
    errors = [(r["id"], r["error"]["code"]) for r in replies if "error" in r]
    assert errors == [(None, -32700), (None, -32600)], replies
    assert next(r for r in replies if r.get("id") == 5)["result"]["structuredContent"]["results"]
    assert "Traceback" not in stderr


def test_listed_schemas_carry_no_title_annotations(small: Docmentor) -> None:
    # pydantic's titles ("Line Start") say nothing the names do not, and the tool list goes
    # into every session's context; a property named "title" is a property, and stays
    tools, _ = calls(small, [])

    def titles(node: Any) -> int:
        if isinstance(node, dict):
            own = 1 if isinstance(node.get("title"), str) else 0
            return own + sum(titles(v) for v in node.values())
        return sum(titles(v) for v in node) if isinstance(node, list) else 0

    for tool in tools.values():
        assert titles(tool.input_schema) == 0 and titles(tool.output_schema) == 0, tool.name
    result = tools["search_docs"].output_schema["properties"]["results"]["items"]
    assert result["properties"]["title"] == {"type": "string"} and "title" in result["required"]
    assert tools["search_docs"].input_schema["properties"]["limit"]["maximum"] == 20


def test_untitled_keeps_everything_but_title_strings() -> None:
    schema = {
        "title": "Out",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string"},
            "n": {"type": "integer", "title": "N"},
            "default": {"type": "string", "title": "Default"},  # a property named like a keyword
        },
        "required": ["title"],
        "anyOf": [{"title": "A", "const": 1}],
        "default": {"title": "a value, not a schema"},
        "examples": [{"title": "x"}],
    }
    assert untitled(schema) == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "n": {"type": "integer"}, "default": {"type": "string"}},
        "required": ["title"],
        "anyOf": [{"const": 1}],
        "default": {"title": "a value, not a schema"},
        "examples": [{"title": "x"}],
    }
