"""The repodocs MCP tools (repo_docs_generate, repo_docs_status, repo_docs_show) through the
official client over stdio, on a copy of the sample repository in an --allow-path folder; and
the group's absence when --tools does not name it."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from docmentor.engine import Docmentor
from docmentor.server import DEFAULT_GROUPS, TOOL_GROUPS, check_groups
from mcptool import structured
from openai_server import OpenAIServer
from openai_server import openai_server as openai_server  # the fixture
from test_repodocs_agent import UNITS, Model

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
REPODOCS_TOOLS = {"repo_docs_generate", "repo_docs_status", "repo_docs_show"}


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    allowed = tmp_path / "repos"
    allowed.mkdir()
    shutil.copytree(SAMPLE, allowed / "sample")
    outside = tmp_path / "outside"
    shutil.copytree(SAMPLE, outside / "sample")
    Docmentor(tmp_path / "index").close()  # an empty index
    return {
        "allowed": allowed,
        "repo": allowed / "sample",
        "outside": outside / "sample",
        "db": tmp_path / "index",
    }


def _params(tmp_path: Path, db: Path, *extra: str) -> StdioServerParameters:
    env = dict(os.environ)
    env["DOCMENTOR_HOME"] = str(tmp_path / "home")
    for name in ("DOCMENTOR_DB", "DOCMENTOR_SOURCES", "DOCMENTOR_LLM_BASE_URL", "DOCMENTOR_LLM_MODEL"):
        env.pop(name, None)
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "docmentor", "--db", str(db), "serve", *extra],
        env=env,
        cwd=tmp_path,
    )


def _text(result: CallToolResult) -> str:
    assert result.is_error
    (text,) = result.content
    assert isinstance(text, TextContent)
    return text.text


def test_repodocs_is_a_group_asked_for_by_name() -> None:
    assert "repodocs" in TOOL_GROUPS and "repodocs" not in DEFAULT_GROUPS
    assert check_groups(None) == list(DEFAULT_GROUPS)
    assert check_groups(["repodocs"]) == ["repodocs"]


def test_generate_status_show_over_stdio(layout: dict[str, Path], tmp_path: Path) -> None:
    params = _params(
        tmp_path, layout["db"], "--tools", "docs,repodocs", "--allow-path", str(layout["allowed"])
    )
    repo = str(layout["repo"])

    async def go() -> dict[str, Any]:
        async with Client(params) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            before = await client.call_tool("repo_docs_status", {"path": repo})
            generated = await client.call_tool("repo_docs_generate", {"path": repo, "no_llm": True})
            return {
                "tools": tools,
                "before": before,
                "generated": generated,
                "status": await client.call_tool("repo_docs_status", {"path": repo}),
                "show": await client.call_tool(
                    "repo_docs_show", {"unit": "shop.pricing.discounted", "path": repo}
                ),
                "unknown": await client.call_tool("repo_docs_show", {"unit": "discounted", "path": repo}),
                "search": await client.call_tool(
                    "search_docs", {"query": "discounted", "source": "repo-sample"}
                ),
                "again": await client.call_tool("repo_docs_generate", {"path": repo, "no_llm": True}),
                "sources": await client.call_tool("list_sources", {}),
            }

    r = anyio.run(go)
    assert set(r["tools"]) >= REPODOCS_TOOLS
    for name in REPODOCS_TOOLS:
        assert r["tools"][name].output_schema is not None, name
    assert r["tools"]["repo_docs_status"].annotations.read_only_hint is True
    assert "no documentation of" in _text(r["before"])
    gen = structured(r["generated"])
    assert gen["mode"] == "no_model" and gen["finished"] is True and gen["run_id"] is None
    assert gen["source"] == "repo-sample" and gen["out"] == str(layout["repo"] / ".docmentor-docs")
    assert gen["documents"]["function"] > 0 and gen["problems"] == 3  # broken.py, blob.py, latin.py
    status = structured(r["status"])
    assert status["finished"] is True and status["running"] is False and status["mode"] == "no_model"
    total = sum(gen["documents"].values())
    assert status["units"] == {"total": total, "done": total, "failed": 0, "pending": 0}
    show = structured(r["show"])
    assert show["unit"] == "shop.pricing.discounted" and show["kind"] == "function"
    assert "discounted" in show["document"]
    assert _text(r["unknown"]).endswith(". Did you mean shop.pricing.discounted?")  # no "?.", no "Try:"
    hits = structured(r["search"])["results"]
    assert hits and hits[0]["path"] == "modules/shop.pricing.md"
    assert structured(r["again"])["source"] == "repo-sample"
    assert [s["name"] for s in structured(r["sources"])["sources"]] == ["repo-sample"]


def test_a_path_outside_the_allowed_folders_gets_one_answer(layout: dict[str, Path], tmp_path: Path) -> None:
    params = _params(tmp_path, layout["db"], "--tools", "repodocs", "--allow-path", str(layout["allowed"]))
    refused = [
        str(layout["outside"]),
        str(tmp_path / "nowhere"),
        "/etc",
        str(layout["allowed"] / ".." / "outside"),
    ]

    async def go() -> list[CallToolResult]:
        async with Client(params) as client:
            results = []
            for ref in refused:
                results.append(await client.call_tool("repo_docs_generate", {"path": ref, "no_llm": True}))
                results.append(await client.call_tool("repo_docs_status", {"path": ref}))
                results.append(await client.call_tool("repo_docs_show", {"unit": "shop", "path": ref}))
            results.append(
                await client.call_tool("repo_docs_status", {"path": str(layout["allowed"] / "missing")})
            )
            return results

    *outside, missing = anyio.run(go)
    refs = [ref for ref in refused for _ in range(3)]
    answers = {_text(result).replace(repr(ref), "REF") for ref, result in zip(refs, outside, strict=True)}
    assert answers == {
        "REF is not a folder this server may read. Try: give a repository folder inside the allowed "
        "folders (the user allows one with `docmentor serve --allow-path DIR`)."
    }, answers
    assert not (layout["outside"] / ".docmentor-docs").exists()  # nothing written outside
    assert "no folder" in _text(missing)


def test_the_tools_are_absent_without_the_group(layout: dict[str, Path], tmp_path: Path) -> None:
    params = _params(tmp_path, layout["db"], "--allow-path", str(layout["allowed"]))

    async def go() -> tuple[set[str], str]:
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            with pytest.raises(MCPError) as raised:
                await client.call_tool("repo_docs_status", {"path": str(layout["repo"])})
            return names, str(raised.value)

    names, error = anyio.run(go)
    assert "search_docs" in names and not names & REPODOCS_TOOLS
    assert "Unknown tool: repo_docs_status" in error


def test_generate_with_a_model_runs_in_the_background(
    layout: dict[str, Path], tmp_path: Path, openai_server: OpenAIServer
) -> None:
    openai_server.script(Model())
    params = _params(
        tmp_path, layout["db"], "--tools", "docs,repodocs", "--allow-path", str(layout["allowed"])
    )
    params.env = {
        **(params.env or {}),
        "DOCMENTOR_LLM_BASE_URL": openai_server.base_url,
        "DOCMENTOR_LLM_MODEL": "scripted",
    }
    repo = str(layout["repo"])

    async def go() -> tuple[CallToolResult, list[dict[str, Any]], CallToolResult, CallToolResult]:
        async with Client(params) as client:
            started = await client.call_tool("repo_docs_generate", {"path": repo})
            seen = []
            for _ in range(600):  # at most a minute
                seen.append(structured(await client.call_tool("repo_docs_status", {"path": repo})))
                if seen[-1]["finished"] and not seen[-1]["running"]:
                    break
                await anyio.sleep(0.1)
            return (
                started,
                seen,
                await client.call_tool("repo_docs_show", {"unit": "shop.pricing.discounted", "path": repo}),
                await client.call_tool(
                    "search_docs", {"query": "discounted price", "source": "repo-sample", "limit": 3}
                ),
            )

    started, seen, show, found = anyio.run(go)
    gen = structured(started)
    assert gen["mode"] == "model" and gen["finished"] is False and isinstance(gen["run_id"], int)
    last = seen[-1]
    total = len(UNITS)
    assert last["finished"] is True and last["run_id"] == gen["run_id"] and last["mode"] == "model"
    assert last["units"] == {"total": total, "done": total, "failed": 0, "pending": 0}
    assert last["tokens"] > 0
    assert [s["units"]["done"] for s in seen] == sorted(
        s["units"]["done"] for s in seen
    )  # progress only grows
    unit = structured(show)
    assert unit["mode"] == "model" and unit["unit"] == "shop.pricing.discounted" and unit["document"]
    # the run's documents are then written as the tree and indexed as the docs source repo-sample
    tree = json.loads((layout["repo"] / ".docmentor-docs" / "documentation.json").read_text())
    assert tree["run"]["id"] == gen["run_id"]
    assert {u["source"] for u in tree["units"]} == {"model"}
    hits = structured(found)["results"]
    assert hits and all(h["source"] == "repo-sample" for h in hits)
    assert any("discounted" in h["path"] or "pricing" in h["path"] for h in hits)


def test_a_background_run_that_stopped_says_why_in_its_status(
    layout: dict[str, Path], tmp_path: Path, openai_server: OpenAIServer
) -> None:
    """The endpoint fails: the run stops early; repo_docs_status says why and where its tree
    was written (it said only "running": false)."""
    from openai_server import error

    openai_server.script(*[error(500, "boom")] * 100)
    params = _params(tmp_path, layout["db"], "--tools", "repodocs", "--allow-path", str(layout["allowed"]))
    params.env = {
        **(params.env or {}),
        "DOCMENTOR_LLM_BASE_URL": openai_server.base_url,
        "DOCMENTOR_LLM_MODEL": "scripted",
        "DOCMENTOR_LLM_MAX_ATTEMPTS": "1",
    }
    repo = str(layout["repo"])

    async def go() -> dict[str, Any]:
        async with Client(params) as client:
            await client.call_tool("repo_docs_generate", {"path": repo})
            for _ in range(600):  # at most a minute
                status = structured(await client.call_tool("repo_docs_status", {"path": repo}))
                if not status["running"] and status["stopped"]:
                    return status
                await anyio.sleep(0.1)
            return status

    status = anyio.run(go)
    assert status["stopped"] is not None and status["stopped"].startswith("stopped after 3 units in a row"), (
        status
    )
    assert status["out"] == str(layout["repo"] / ".docmentor-docs") and not status["finished"]


def test_the_group_without_a_folder_to_reach_is_warned_of(layout: dict[str, Path], tmp_path: Path) -> None:
    """``--tools repodocs`` with no ``--allow-path`` starts (its tools say why on each call),
    with a warning on stderr; ``--tools ""`` names no group: an error, not the default five."""
    import subprocess

    params = _params(tmp_path, layout["db"], "--tools", "docs,repodocs")
    done = subprocess.run(
        [params.command, *params.args], env=params.env, cwd=params.cwd, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "warning: --tools repodocs without --allow-path: its tools reach no repository" in done.stderr
    empty = _params(tmp_path, layout["db"], "--tools", " , ")
    done = subprocess.run(
        [empty.command, *empty.args], env=empty.env, cwd=empty.cwd, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("error: --tools names no tool group"), done.stderr
