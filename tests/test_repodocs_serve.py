"""``repodocs/serve.py`` on a real index: which documentation is the latest (the tree or the
agent's run), a ``documentation.json`` that does not parse, and the repodocs MCP tools'
confinement against a symlink out of the allowed folder (in-process client)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from docmentor import document_repository, register_repo_docs, repo_docs_progress, repo_docs_unit
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError
from docmentor.server import build_server
from docmentor.store import repomem
from docmentor.store.repomem_rows import NewUnit

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    target = tmp_path / "allowed" / "sample"
    shutil.copytree(SAMPLE, target)
    return target


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Docmentor]:
    eng = Docmentor(tmp_path / "db")
    yield eng
    eng.close()


def test_the_more_recent_of_tree_and_run_is_the_latest(engine: Docmentor, repo: Path) -> None:
    with pytest.raises(NotFoundError, match="no documentation of"):
        repo_docs_progress(engine, repo)
    result = document_repository(repo)
    tree = repo_docs_progress(engine, repo)
    assert (tree.mode, tree.finished, tree.out) == ("no_model", True, result.out)
    assert tree.total == sum(result.documents.values())
    # an agent run started after the tree was written is the latest
    json_path = Path(result.out) / "documentation.json"
    os.utime(json_path, (1_000_000, 1_000_000))
    run = repomem.start_run(engine.store, repo, model="m")
    repomem.register_units(engine.store, run.id, [NewUnit("shop.util", "module", "h", "shop")])
    repomem.commit_unit(
        engine.store,
        run.id,
        "shop.util",
        document="U.",
        claims=["u"],
        model="m",
        prompt_tokens=3,
        completion_tokens=1,
    )
    latest = repo_docs_progress(engine, repo)
    assert (latest.mode, latest.run_id, latest.total, latest.done, latest.tokens) == (
        "model",
        run.id,
        1,
        1,
        4,
    )
    assert repo_docs_unit(engine, repo, "shop.util").document == "U."
    # the tree written again is newer than the run
    document_repository(repo)
    assert repo_docs_progress(engine, repo).mode == "no_model"
    unit = repo_docs_unit(engine, repo, "shop.util")
    assert unit.mode == "no_model" and unit.kind == "module" and unit.document != "U."
    with pytest.raises(NotFoundError, match="has no unit 'clamp'") as raised:
        repo_docs_unit(engine, repo, "clamp")
    assert raised.value.hint == "did you mean shop.util.clamp?"


def test_a_documentation_json_that_does_not_parse_is_a_clear_error(engine: Docmentor, repo: Path) -> None:
    result = document_repository(repo)
    json_path = Path(result.out) / "documentation.json"
    json_path.write_text("{not json", encoding="utf-8")
    with pytest.raises(NotFoundError, match=r"documentation\.json cannot be read") as raised:
        repo_docs_progress(engine, repo)
    assert raised.value.hint == "generate the documentation again"
    json_path.write_text(json.dumps({"units": "no list"}), encoding="utf-8")
    with pytest.raises(NotFoundError, match="cannot be read"):
        repo_docs_unit(engine, repo, "shop")


def test_register_names_and_refreshes_the_source(engine: Docmentor, repo: Path) -> None:
    result = document_repository(repo)
    first = register_repo_docs(engine, result, embed=False)
    assert (first.name, first.refreshed) == ("repo-sample", False) and first.documents == result.files - 1
    again = register_repo_docs(engine, document_repository(repo), embed=False)
    assert (again.name, again.refreshed) == ("repo-sample", True)
    assert [s["name"] for s in engine.sources()] == ["repo-sample"]


def _text(result: CallToolResult) -> str:
    assert result.is_error
    (text,) = result.content
    assert isinstance(text, TextContent)
    return text.text


def test_a_symlink_out_of_the_allowed_folder_is_refused(
    engine: Docmentor, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(SAMPLE, outside)
    link = repo.parent / "escape"
    link.symlink_to(outside, target_is_directory=True)
    server = build_server(engine, tools=["repodocs"], allow_paths=[repo.parent])

    async def go() -> tuple[CallToolResult, CallToolResult]:
        async with Client(server) as client:
            escaped = await client.call_tool("repo_docs_generate", {"path": str(link), "no_llm": True})
            inside = await client.call_tool("repo_docs_generate", {"path": str(repo), "no_llm": True})
            return escaped, inside

    escaped, inside = anyio.run(go)
    assert _text(escaped).startswith(f"{str(link)!r} is not a folder this server may read")
    assert not (outside / ".docmentor-docs").exists()
    assert not inside.is_error and (repo / ".docmentor-docs" / "index.md").is_file()


def test_an_unknown_unit_is_told_the_ids_it_likely_meant() -> None:
    """A model writes a unit as Python imports it (``pkg.add``): the id has ``__init__``."""
    from docmentor.repodocs.runs import close_unit_ids

    ids = [
        ".",
        "pkg",
        "pkg.__init__",
        "pkg.__init__.add",
        "pkg.util",
        "pkg.util.helper",
        "pkg.util.Helper.run",
    ]
    assert close_unit_ids("pkg.add", ids)[0] == "pkg.__init__.add"
    assert close_unit_ids("pkg.__init__.ad", ids)[0] == "pkg.__init__.add"
    assert close_unit_ids("add", ids) == ["pkg.__init__.add"]
    assert close_unit_ids("pkg.utl", ids)[0] == "pkg.util"
    assert close_unit_ids("Helper.run", ids) == ["pkg.util.Helper.run"]
    assert close_unit_ids("zzz", ids) == []
