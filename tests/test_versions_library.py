"""Versioned knowledge bases (issue 23, part 5): two versions of one library's knowledge base
registered side by side, find_api / get_examples / get_library_overview answering from the
version asked for, the project's pinned one, or the newest — and the project files those
pins are read from (uv.lock, poetry.lock, pyproject.toml with Poetry's tables, package.json).

The library is the fixture ``tests/fixtures/readme_lib`` (``minidb``), generated for real
twice: as 1.0.0, and as 2.0.0 with one more method (``Database.snapshot``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError
from docmentor.library import generate
from docmentor.library.service.service import LibraryKnowledge
from docmentor.server import build_server
from docmentor.sources.project_files import npm_specifier, requirement
from docmentor.store.docs import documents_by_path
from docmentor.store.kb import list_kbs
from mcptool import structured

LIB = Path(__file__).parent / "fixtures" / "readme_lib"
SNAPSHOT = '''
    def snapshot(self, target: str) -> str:
        """Write a consistent point-in-time backup copy of every table to ``target``."""
        return target
'''
TASK = "write a point-in-time backup copy of the tables"


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def index(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An index with minidb 1.0.0 and 2.0.0 generated and registered, on each backend (the
    tests only read it)."""
    root = tmp_path_factory.mktemp("versioned-kb")
    v1, v2 = root / "v1", root / "v2"
    shutil.copytree(LIB, v1, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(LIB, v2, ignore=shutil.ignore_patterns("__pycache__"))
    core = v2 / "minidb" / "core.py"
    anchor = "    @property\n    def tables(self)"
    core.write_text(core.read_text(encoding="utf-8").replace(anchor, SNAPSHOT.lstrip("\n") + "\n" + anchor))
    where = (
        str(root / "index")
        if request.param == "sqlite"
        else str(request.getfixturevalue("module_postgres_url"))
    )
    engine = Docmentor(where)
    for lib, version in ((v1, "1.0.0"), (v2, "2.0.0")):
        generate(
            engine,
            library="minidb",
            docs_path=v1 / "docs",  # one docs source for both
            out=root / f"out-{version}",
            search_paths=[lib],
            version=version,
            embeddings=False,
        )
    engine.close()
    yield where


@pytest.fixture
def engine(index: str) -> Iterator[Docmentor]:
    eng = Docmentor(index)
    yield eng
    eng.close()


def ids(found: Any) -> set[str]:
    return {r.api_id for r in found.results}


def test_both_versions_are_registered_side_by_side(engine: Docmentor) -> None:
    rows = {r.library: r.version for r in list_kbs(engine.store)}
    assert rows == {"minidb": "1.0.0", "minidb@2.0.0": "2.0.0"}


def test_the_newest_answers_without_a_pin(engine: Docmentor, tmp_path: Path) -> None:
    found = LibraryKnowledge(engine, cwd=tmp_path).find_api(TASK, max_results=10)
    assert "minidb.core.Database.snapshot" in ids(found)
    assert dict(found.versions) == {"minidb": "2.0.0"}
    assert found.to_dict()["version_reasons"] == {"minidb": "newest"}


def test_the_pinned_version_answers(engine: Docmentor, tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("minidb==1.0.0\n", encoding="utf-8")
    knowledge = LibraryKnowledge(engine, cwd=tmp_path)
    found = knowledge.find_api(TASK, max_results=10)
    assert "minidb.core.Database.snapshot" not in ids(found)
    assert (dict(found.versions), dict(found.version_reasons)) == ({"minidb": "1.0.0"}, {"minidb": "pinned"})
    assert found.warnings == ()  # the project gets what it pins: nothing to warn about
    overview = knowledge.overview("minidb")
    assert (dict(overview.versions), dict(overview.version_reasons)) == (
        {"minidb": "1.0.0"},
        {"minidb": "pinned"},
    )
    examples = knowledge.get_examples("open a database and insert rows")
    assert examples.examples and dict(examples.version_reasons) == {"minidb": "pinned"}


def test_an_asked_version_answers_and_an_unknown_one_is_named(engine: Docmentor, tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("minidb==1.0.0\n", encoding="utf-8")
    knowledge = LibraryKnowledge(engine, cwd=tmp_path)
    asked = knowledge.find_api(TASK, max_results=10, library="minidb", version="2.0")
    assert "minidb.core.Database.snapshot" in ids(asked)
    assert dict(asked.version_reasons) == {"minidb": "asked"}
    by_name = knowledge.find_api(TASK, max_results=10, library="minidb@2.0.0")  # the registered name
    assert dict(by_name.versions) == {"minidb": "2.0.0"}
    with pytest.raises(NotFoundError) as caught:
        knowledge.find_api(TASK, library="minidb", version="3.0")
    assert "no knowledge base of minidb describes version 3.0" in str(caught.value)
    assert caught.value.hint is not None and "minidb 1.0.0, 2.0.0" in caught.value.hint
    # the pinned one answers again after an asked call (no state kept between calls)
    assert dict(knowledge.find_api(TASK).versions) == {"minidb": "1.0.0"}


def test_a_pin_with_no_knowledge_base_warns(engine: Docmentor, tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("minidb==1.5.0\n", encoding="utf-8")
    found = LibraryKnowledge(engine, cwd=tmp_path).find_api(TASK)
    assert dict(found.version_reasons) == {"minidb": "newest"}
    assert any("minidb==1.5.0" in w and "1.0.0, 2.0.0" in w for w in found.warnings)
    assert any("describes minidb 2.0.0, but your project pins minidb 1.5.0" in w for w in found.warnings)


def test_cli_api_version(index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = Cli(index, capsys)
    data = cli.json("api", "find", TASK, "--version", "1.0.0", "--limit", "10")
    assert data["versions"] == {"minidb": "1.0.0"} and data["version_reasons"] == {"minidb": "asked"}
    assert all("snapshot" not in r["api_id"] for r in data["results"])
    rc, out, err = cli("api", "overview", "minidb", "--version", "2.0.0")
    assert rc == 0 and out.startswith("# minidb 2.0.0") and err == "note: minidb 2.0.0 answered (asked)\n"
    err = cli.fails("api", "examples", "open a database", "--version", "9")
    assert "describes version 9" in err and "1.0.0, 2.0.0" in err


def test_drift_reads_the_version_find_api_answers_from(
    index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tour: `readme-llm drift -l attrs` gave the bare-named knowledge base's report, not
    the newest nor the pinned one, and had no --version."""
    monkeypatch.chdir(tmp_path)
    cli = Cli(index, capsys)
    assert cli.json("readme-llm", "drift", "-l", "minidb")["version"] == "2.0.0"  # the newest
    assert cli.json("readme-llm", "drift", "-l", "minidb", "--version", "1.0.0")["version"] == "1.0.0"
    # spelt otherwise, as package indexes compare names: the same choice (a review)
    assert cli.json("readme-llm", "drift", "-l", "MiniDB")["version"] == "2.0.0"
    assert cli.json("readme-llm", "drift", "-l", "MiniDB", "--version", "1.0.0")["version"] == "1.0.0"
    (tmp_path / "requirements.txt").write_text("minidb==1.0.0\n", encoding="utf-8")
    assert cli.json("readme-llm", "drift", "-l", "minidb")["version"] == "1.0.0"  # the pinned


def test_mcp_api_tools_take_a_version(engine: Docmentor) -> None:
    async def go() -> list[Any]:
        async with Client(build_server(engine)) as client:
            return [
                await client.call_tool("find_api", {"query": TASK, "version": "1.0.0", "max_results": 10}),
                await client.call_tool("get_library_overview", {"library": "minidb", "version": "2.0.0"}),
                await client.call_tool(
                    "get_examples", {"task_description": "insert rows", "version": "1.0.0"}
                ),
                await client.call_tool("find_api", {"query": TASK, "version": "7.0"}),
            ]

    found, overview, examples, missing = anyio.run(go)
    data = structured(found)
    assert data["versions"] == {"minidb": "1.0.0"} and data["version_reasons"] == {"minidb": "asked"}
    assert structured(overview)["versions"] == {"minidb": "2.0.0"}
    assert structured(examples)["version_reasons"] == {"minidb": "asked"}
    assert missing.is_error and "describes version 7.0" in missing.content[0].text


def test_one_version_registered_answers_as_before(index_location: str, tmp_path: Path) -> None:
    engine = Docmentor(index_location)
    generate(
        engine,
        library="minidb",
        docs_path=LIB / "docs",
        out=tmp_path / "out",
        search_paths=[LIB],
        version="1.0.0",
        embeddings=False,
    )
    found = LibraryKnowledge(engine, cwd=tmp_path).find_api(TASK)
    assert dict(found.versions) == {"minidb": "1.0.0"} and "version_reasons" not in found.to_dict()
    engine.close()


# -- the project files pins are read from ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "specifier"),
    [
        ("poetry.lock", '[[package]]\nname = "minidb"\nversion = "1.2.0"\n', "==1.2.0"),
        ("pyproject.toml", '[tool.poetry.dependencies]\nminidb = {version = "^1.2"}\n', ">=1.2,<2"),
        ("pyproject.toml", '[tool.poetry.group.dev.dependencies]\nminidb = "~1.2.3"\n', ">=1.2.3,<1.3"),
        ("package.json", '{"devDependencies": {"minidb": "1.4.x"}}', "==1.4.*"),
        ("package.json", '{"dependencies": {"MiniDB": ">= 1.0 < 2"}}', ">=1.0,<2"),
    ],
)
def test_pins_from_poetry_and_package_json(tmp_path: Path, name: str, text: str, specifier: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    found = requirement(tmp_path, "minidb")
    assert found is not None and found.specifier == specifier


def test_uv_lock_comes_before_package_json(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"dependencies": {"minidb": "^2.0.0"}}', encoding="utf-8")
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "minidb"\nversion = "1.0.0"\n', encoding="utf-8")
    found = requirement(tmp_path, "minidb")
    assert found is not None and found.pinned == "1.0.0"


@pytest.mark.parametrize(
    ("npm", "pep440"),
    [
        ("^4.2.0", ">=4.2.0,<5"),
        ("^0.2.3", ">=0.2.3,<0.3"),
        ("^0.0.3", ">=0.0.3,<0.0.4"),
        ("~1.2.3", ">=1.2.3,<1.3"),
        ("4.29.5", "==4.29.5"),
        ("1.2 - 2.3", ">=1.2,<=2.3"),
        ("latest", None),
        ("a || b", None),
        ("*", None),
        ("github:user/repo", None),
    ],
)
def test_npm_ranges(npm: str, pep440: str | None) -> None:
    assert npm_specifier(npm) == pep440


def test_npm_ranges_in_linear_time() -> None:
    import time

    for text in ("^" + "1." * 30_000, "1" * 60_000 + "x", ">= " + " " * 60_000 + "1", "-" * 60_000):
        start = time.perf_counter()
        npm_specifier(text)
        assert time.perf_counter() - start < 0.5


def test_each_version_keeps_its_own_docs_source(index_location: str, tmp_path: Path) -> None:
    """Generating a second version with its own docs indexes them beside the first's (a
    source named after the version's registration) instead of re-pointing the first's:
    the first version's find_api keeps reading its own pages."""
    v1, v2 = tmp_path / "v1", tmp_path / "v2"
    shutil.copytree(LIB, v1, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(LIB, v2, ignore=shutil.ignore_patterns("__pycache__"))
    (v2 / "docs" / "backups.md").write_text("# Backups\n\nOnly in 2.0.\n", encoding="utf-8")
    engine = Docmentor(index_location)
    try:
        results = [
            generate(
                engine,
                library="minidb",
                docs_path=lib / "docs",
                out=tmp_path / f"out-{version}",
                search_paths=[lib],
                version=version,
                embeddings=False,
            )
            for lib, version in ((v1, "1.0.0"), (v2, "2.0.0"))
        ]
        assert [r.docs_source for r in results] == ["minidb-docs", "minidb-2.0.0-docs"]
        assert not any("re-indexed" in w for r in results for w in r.warnings)
        targets = {s.name: s.target for s in engine.store.sources()}
        assert targets["minidb-docs"] == str((v1 / "docs").resolve())
        assert targets["minidb-2.0.0-docs"] == str((v2 / "docs").resolve())
        pages = {name: {d.path for d in documents_by_path(engine.store, name)} for name in targets}
        assert "backups.md" in pages["minidb-2.0.0-docs"] and "backups.md" not in pages["minidb-docs"]
        # regenerating 2.0.0 without --docs-path reads its own docs source again
        again = generate(engine, library="minidb", out=tmp_path / "again", search_paths=[v2],
                         version="2.0.0", embeddings=False)  # fmt: skip
        assert again.docs_source == "minidb-2.0.0-docs"
        # a third version without docs of its own reads the library's first docs, and says so
        third = generate(engine, library="minidb", out=tmp_path / "third", search_paths=[v2],
                         version="3.0.0", embeddings=False)  # fmt: skip
        assert third.docs_source == "minidb-docs"
        assert any("no documentation of this version" in w for w in third.warnings)
    finally:
        engine.close()
