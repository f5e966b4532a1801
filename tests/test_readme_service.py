"""Library knowledge served: `readme-llm generate|drift`, `api find|examples|overview`, `eval api`,
the `api`/`feedback` MCP tools through the official client, version warnings, the feedback
store under concurrent writers, and regeneration seen by a running reader.

The fixture library ``tests/fixtures/readme_lib`` (package ``minidb`` + MkDocs docs) is
copied per test so pages and code can be changed; the CLI finds the package on ``sys.path``
(as a user's environment would), the library API through ``search_paths``. Nothing is mocked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import TextContent

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError
from docmentor.library import generate
from docmentor.library.knowledge.kb_index import load_entries
from docmentor.library.service.feedback import ISSUE_TYPES, analyze
from docmentor.library.service.service import LibraryKnowledge
from docmentor.server import build_server
from docmentor.sources.project_files import pinned_version
from docmentor.store.kb import list_kbs
from mcptool import structured

LIB = Path(__file__).parent / "fixtures" / "readme_lib"
CONTRACT_KEYS = {"rank", "api_id", "signature", "description", "relevance", "importance"}
FIND_LINE = re.compile(
    r"^(?P<rank>\d+)\. (?P<api>\S+)  \[minidb\]  relevance (?P<rel>\d\.\d\d), importance (?P<imp>\d\.\d\d)$"
)
# a page whose examples the installed minidb does not support
DRIFT_PAGE = """\
# Pitfalls

## Read-only access

```python
import minidb

db = minidb.connect("app.db", readonly=True)
db.truncate("users")
```
"""
NEW_API = '''
    def snapshot(self, target: str) -> str:
        """Write a consistent point-in-time backup copy of every table to ``target``.

        Args:
            target: Where the backup file goes.

        Returns:
            The path of the backup.
        """
        return target
'''


def run(fn: Any) -> Any:
    return anyio.run(fn)


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    """A private copy of the fixture library (package, docs, mkdocs.yml, included snippets)."""
    root = tmp_path / "lib"
    shutil.copytree(LIB, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def work(tmp_path: Path, lib: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's working folder (no pins), with minidb importable in the current environment."""
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(lib))
    return folder


class IndexCli(Cli):
    """``docmentor --db LOCATION ...`` on either backend: an index folder or a PostgreSQL URL."""

    def __init__(self, location: str, capsys: pytest.CaptureFixture[str]) -> None:
        super().__init__(Path(location), capsys)
        self.location = location  # a URL is no Path: ``Path`` would fold its "//"

    def __call__(self, *args: str) -> tuple[int, str, str]:
        return self.raw("--db", self.location, *args)


@pytest.fixture
def cli(index_location: str, capsys: pytest.CaptureFixture[str]) -> IndexCli:
    """The CLI on an empty index of each backend."""
    return IndexCli(index_location, capsys)


@pytest.fixture
def generated(cli: IndexCli, work: Path, lib: Path) -> IndexCli:
    out = cli.ok("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))
    assert "(registered, generation 1)" in out
    return cli


@pytest.fixture
def engine(index_location: str, tmp_path: Path, lib: Path) -> Iterator[Docmentor]:
    """minidb's knowledge base generated into a new index of each backend, for a test that
    writes (feedback, a regeneration)."""
    eng = Docmentor(index_location)
    generate(eng, library="minidb", docs_path=lib / "docs", out=tmp_path / "gen", search_paths=[lib])
    yield eng
    eng.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def kb_location(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared_cache: Path
) -> Iterator[str]:
    """minidb's knowledge base generated once per backend, for the tests that only read it."""
    root = tmp_path_factory.mktemp("readme-kb")
    lib = root / "lib"
    shutil.copytree(LIB, lib, ignore=shutil.ignore_patterns("__pycache__"))
    with pytest.MonkeyPatch.context() as mp:  # module fixtures run before the autouse home
        mp.setenv("DOCMENTOR_HOME", str(root / "home"))
        mp.setenv("DOCMENTOR_CACHE", str(shared_cache))
        mp.delenv("DOCMENTOR_DB", raising=False)
        mp.delenv("DOCMENTOR_SOURCES", raising=False)
        if request.param == "postgres":
            where = str(request.getfixturevalue("module_postgres_url"))
        else:
            where = str(root / "index")
        with closing(Docmentor(where, embeddings=True)) as eng:  # the APIs embedded, as users get them
            generate(eng, library="minidb", docs_path=lib / "docs", out=root / "gen", search_paths=[lib])
        yield where


@pytest.fixture
def kb_cli(kb_location: str, work: Path, capsys: pytest.CaptureFixture[str]) -> IndexCli:
    """The CLI on ``kb_location`` (read only), from the user's working folder."""
    return IndexCli(kb_location, capsys)


@pytest.fixture
def kb_engine(kb_location: str) -> Iterator[Docmentor]:
    with closing(Docmentor(kb_location, embeddings=True)) as eng:  # find_api by meaning too
        yield eng


# -- readme-llm generate / drift ---------------------------------------------------------------


def test_generate_cli_text_and_outputs(cli: IndexCli, work: Path, lib: Path) -> None:
    out = cli.ok("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))
    readme = work / "readme_llm" / "README.LLM"
    tokens = re.search(r"\(14 sections, (\d+) tokens\)", out)
    assert tokens is not None and int(tokens.group(1)) > 500
    assert out.splitlines() == [
        "minidb 1.2.0: 18 APIs, 8 examples (8 matched to APIs)",
        f"README.LLM: {Path('readme_llm') / 'README.LLM'} (14 sections, {tokens.group(1)} tokens)",
        f"knowledge base: {Path('readme_llm') / 'knowledge_base'} (registered, generation 1)",
        "docs: source minidb-docs (11 search units; docmentor search -s minidb …)",
        "drift: 0 missing APIs, 0 invalid signatures, 0 uses of deprecated APIs (docmentor readme-llm drift)",
    ]
    assert readme.read_text(encoding="utf-8").startswith("<ReadMe.LLM>\n<rules>\n")
    kb = work / "readme_llm" / "knowledge_base"
    assert {p.name for p in kb.iterdir()} >= {
        "index.json",
        "library_overview.json",
        "api_catalog",
        "examples_db",
        "metadata.json",
        "drift.json",
    }
    # registered: `api` answers at once, from the same index
    assert (
        cli.json("api", "find", "open a database stored at a path")["results"][0]["api_id"]
        == "minidb.core.connect"
    )


def test_generate_cli_json_formats_and_errors(cli: IndexCli, work: Path, lib: Path, tmp_path: Path) -> None:
    docs = str(lib / "docs")
    data = cli.json("readme-llm", "generate", "-l", "minidb", "--docs-path", docs, "--out", "o1")
    assert data["library"] == "minidb" and data["version"] == "1.2.0"
    assert (data["api_count"], data["example_count"], data["readme_sections"]) == (18, 8, 14)
    assert data["generation"] == 1 and data["drift"] == {
        "missing_api": 0,
        "invalid_api_signature": 0,
        "deprecated_api": 0,
        "examples_checked": 8,
        "examples_not_checked": 0,
    }
    assert Path(data["readme_path"]) == Path("o1/README.LLM") and (work / "o1" / "README.LLM").is_file()
    assert data["warnings"] == []

    # monolithic: README.LLM only, nothing registered in a fresh index
    mono = Cli(tmp_path / "mono-index", cli.capsys)
    out = mono.ok(
        "readme-llm", "generate", "-l", "minidb", "--docs-path", docs, "--out", "o2", "--output-format",
        "monolithic",
    )  # fmt: skip
    assert "knowledge base:" not in out and "README.LLM: o2" in out
    assert sorted(p.name for p in (work / "o2").iterdir()) == ["README.LLM"]
    assert list_kbs(Docmentor(tmp_path / "mono-index", create=False).store) == []
    err = mono.fails("api", "find", "open a database")
    assert "no library knowledge base is registered" in err and "readme-llm generate" in err

    # a value outside the choices is a usage error (exit 2) that names them
    rc, out, err = cli("readme-llm", "generate", "-l", "minidb", "--out", "o3", "--output-format", "html")
    assert rc == 2 and out == "" and "'html' is not one of 'monolithic', 'knowledge_base', 'both'" in err
    err = cli.fails("readme-llm", "generate", "-l", "no_such_lib_xyz", "--docs-path", docs, "--out", "o4")
    assert "'no_such_lib_xyz' is not installed" in err and "pip install" in err
    assert not (work / "o3").exists() and not (work / "o4").exists()
    # the failed runs left the registered knowledge base alone
    assert cli.json("readme-llm", "drift", "--library", "minidb")["counts"]["missing_api"] == 0


def test_drift_cli_text_and_json(cli: IndexCli, work: Path, lib: Path) -> None:
    (lib / "docs" / "pitfalls.md").write_text(DRIFT_PAGE, encoding="utf-8")
    out = cli.ok("readme-llm", "generate", "-l", "minidb", "--docs-path", str(lib / "docs"))
    assert "drift: 1 missing APIs, 1 invalid signatures" in out
    data = cli.json("readme-llm", "drift", "--library", "minidb")
    assert data["library"] == "minidb" and data["version"] == "1.2.0"
    assert data["examples_checked"] == 9
    assert data["counts"] == {"missing_api": 1, "invalid_api_signature": 1, "deprecated_api": 0}
    by_kind = {f["kind"]: f for f in data["findings"]}
    assert by_kind["missing_api"]["api"].endswith("truncate")
    assert by_kind["invalid_api_signature"]["api_id"] == "minidb.core.connect"
    assert "readonly" in by_kind["invalid_api_signature"]["message"]
    assert {f["path"] for f in data["findings"]} == {"pitfalls.md"}
    # the lines in the original page
    assert (by_kind["invalid_api_signature"]["line"], by_kind["missing_api"]["line"]) == (8, 9)

    text = cli.ok("readme-llm", "drift", "--library", "minidb").splitlines()
    assert text[0] == (
        "Drift report for minidb 1.2.0: 9 examples checked, 1 missing APIs, 1 invalid signatures, 0 uses of deprecated APIs"
    )
    assert len(text) == 3
    for line, finding in zip(text[1:], data["findings"], strict=True):
        assert line.startswith(f"pitfalls.md:{finding['line']}: {finding['kind']}: {finding['message']}")
        if finding["suggestion"]:  # a whole sentence, shown as it is
            assert line.endswith(f" ({finding['suggestion']})") and "did you mean did you mean" not in line

    err = cli.fails("readme-llm", "drift", "--library", "nope")
    assert "no knowledge base for 'nope'" in err
    # --check: a CI gate, after the report
    rc, out, err = cli("readme-llm", "drift", "--library", "minidb", "--check")
    assert rc == 1 and out.splitlines() == text
    assert err.strip() == "error: --check: 1 missing APIs, 1 invalid signatures in the docs' examples"

    # the example is marked: README.LLM and the overview leave it out, get_examples says why
    readme = (work / "readme_llm" / "README.LLM").read_text(encoding="utf-8")
    assert "readonly=True" not in readme and "db.truncate" not in readme
    overview = cli.json("api", "overview", "minidb")["overview"]
    assert "readonly=True" not in overview
    found = cli.json("api", "examples", "open a database", "--api", "minidb.core.connect")["examples"]
    assert found and all(e["drift"] == [] for e in found)  # the ones to copy come first
    # no task: what the text says names the APIs asked about, not a task
    rc, out, err = cli("api", "examples", "--api", "minidb.nosuch")
    assert rc == 0 and out.strip() == "no example uses minidb.nosuch"
    assert err.strip() == (
        "warning: no API named 'minidb.nosuch' in the knowledge base: and no task was given to choose "
        "examples by"
    )
    # a typo in a path of the package is no API, not every API of its last part (a tour's
    # `httpx.Clinet.get` got AsyncClient.get's examples and no warning)
    rc, out, err = cli("api", "examples", "--api", "minidb.kore.connect")
    assert rc == 0 and out.strip() == "no example uses minidb.kore.connect"
    assert err.strip() == (
        "warning: no API named 'minidb.kore.connect' in the knowledge base (did you mean "
        "minidb.core.connect?): and no task was given to choose examples by"
    )
    found = cli.json("api", "examples", "pitfalls of read-only access, truncate")["examples"]
    (marked,) = [e for e in found if "readonly=True" in e["code"]]
    assert len(marked["drift"]) == 2 and any("readonly" in m for m in marked["drift"])
    printed = cli.ok("api", "examples", "pitfalls of read-only access, truncate")  # the text says so too
    shown = [b for b in printed.split("### ")[1:] if "readonly=True" in b]
    assert len(shown) == 1 and all(
        f"warning: does not match the installed version: {m}" in shown[0] for m in marked["drift"]
    )

    # the clarity score of the docs counts the drift: 1 missing API (1.2) + 1 invalid signature (0.8)
    page = next(
        d
        for d in cli.json("clarity", "score", "--source", "minidb-docs", "--json")["documents"]
        if d["path"] == "pitfalls.md"
    )
    penalties = {p["type"]: p["penalty"] for p in page["clarity_score"]["calculation_breakdown"]["penalties"]}
    assert penalties.get("missing_api_signatures") == 1.2
    assert penalties.get("invalid_api_signatures") == 0.8
    # the same page named by its file, or its folder, gets the same score (the index knows
    # whose docs folder it is in); and so does the MCP tool's
    by_file = cli.json("clarity", "score", str(lib / "docs" / "pitfalls.md"), "--json")["documents"][0]
    assert by_file["clarity_score"] == page["clarity_score"]
    rc, out, err = cli("clarity", "score", str(lib / "docs"), "--json")
    # the folder is read as `add` reads it: the docs_dir of the mkdocs.yml above it, its
    # includes are read from that project (examples/basic.py), nothing to warn of
    assert rc == 0 and err == "", err
    by_folder = next(d for d in json.loads(out)["documents"] if d["path"] == "pitfalls.md")
    assert by_folder["clarity_score"] == page["clarity_score"]
    # a second source registered on a folder the page is in (the library's docs inside it):
    # the page still gets the drift of the source its knowledge base was built from
    cli.ok("add", str(lib), "--name", "a-whole-lib")  # listed before minidb-docs
    nested = cli.json("clarity", "score", str(lib / "docs" / "pitfalls.md"), "--json")["documents"][0]
    assert nested["clarity_score"] == page["clarity_score"]
    from docmentor.access import ReadPolicy, score_document

    engine = Docmentor(cli.location, create=False)
    try:
        for ref in ("minidb-docs:pitfalls.md", str(lib / "docs" / "pitfalls.md")):
            scored = score_document(engine, ref, policy=ReadPolicy()).to_dict()
            assert scored["clarity_score"] == page["clarity_score"], ref
    finally:
        engine.close()

    # a use of a deprecated API is reported, not scored: the example still runs
    (drift_file,) = work.rglob("knowledge_base/drift.json")
    report = json.loads(drift_file.read_text())
    report["findings"].append(
        {**report["findings"][0], "kind": "deprecated_api", "message": "x is deprecated"}
    )
    drift_file.write_text(json.dumps(report))
    again = next(
        d
        for d in cli.json("clarity", "score", "--source", "minidb-docs", "--json")["documents"]
        if d["path"] == "pitfalls.md"
    )
    assert again["clarity_score"] == page["clarity_score"]


def test_remove_unregisters_a_knowledge_base_and_drift_says_when_its_folder_is_gone(
    cli: IndexCli, work: Path, lib: Path
) -> None:
    import shutil

    cli.ok("readme-llm", "generate", "-l", "minidb", "--docs-path", str(lib / "docs"), "--out", "kb1")
    shutil.move(str(work / "kb1"), str(work / "moved"))
    err = cli.fails("readme-llm", "drift", "--library", "minidb")
    assert "the knowledge base folder of 'minidb' is gone" in err and "regenerate" in err
    # named as package indexes name it (a tour: `drift -l dirty-equals` for dirty_equals)
    err = cli.fails("readme-llm", "drift", "--library", "MiniDB")
    assert "the knowledge base folder of 'minidb' is gone" in err
    assert cli.json("api", "find", "open a database")["results"]  # served from the index still

    data = cli.json("readme-llm", "remove", "--library", "MINIDB")
    assert data["removed"] == "minidb" and data["docs_source"] == "minidb-docs"
    err = cli.fails("api", "find", "open a database")
    assert "no library knowledge base is registered" in err
    with closing(Docmentor(cli.location, create=False)) as engine:
        rows = (
            engine.store.conn()
            .execute(
                "SELECT (SELECT count(*) FROM kb_entries) + (SELECT count(*) FROM kb_examples) + (SELECT count(*) FROM kb_vectors)"
            )
            .fetchone()[0]
        )
    assert rows == 0  # nothing of it is left behind
    err = cli.fails("readme-llm", "remove", "--library", "minidb")
    assert "no knowledge base for 'minidb'" in err and "registered: none" in err


# -- api find / examples / overview --------------------------------------------------------------


def test_api_find_text_and_json(kb_cli: IndexCli) -> None:
    cli = kb_cli
    data = cli.json("api", "find", "insert rows into a table", "--limit", "3")
    assert data["query"] == "insert rows into a table"
    assert data["versions"] == {"minidb": "1.2.0"} and data["warnings"] == []
    results = data["results"]
    assert [r["rank"] for r in results] == [1, 2, 3]
    for r in results:
        assert set(r) >= CONTRACT_KEYS
        assert 0.0 <= r["relevance"] <= 1.0 and 0.0 <= r["importance"] <= 1.0
    assert results[0]["api_id"] == "minidb.core.Database.insert"
    assert results[0]["signature"] == "insert(self, table: str, rows: list[dict[str, Any]]) -> int"
    assert results[0]["description"] == "Insert rows into a table, creating the table on first use."
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)

    # the same answer as the library (the CLI only formats it)
    with closing(Docmentor(cli.location, create=False)) as engine:
        direct = LibraryKnowledge(engine).find_api("insert rows into a table", max_results=3).to_dict()
    assert direct == data

    lines = cli.ok("api", "find", "insert rows into a table", "--limit", "3").splitlines()
    heads = [FIND_LINE.match(line) for line in lines if not line.startswith("   ")]
    assert all(heads) and len(heads) == 3
    for m, r in zip(heads, results, strict=True):
        assert m is not None
        # the public path users import it by, then where it is defined
        assert (int(m["rank"]), m["api"]) == (r["rank"], (r["aliases"] or [r["api_id"]])[0])
        assert float(m["rel"]) == pytest.approx(r["relevance"], abs=0.005)
    assert lines[0].startswith("1. minidb.Database.insert  [minidb]")
    assert lines[1] == "   insert(self, table: str, rows: list[dict[str, Any]]) -> int"
    assert lines[2] == "   defined as minidb.core.Database.insert"
    assert lines[3] == "   Insert rows into a table, creating the table on first use."

    assert cli.ok("api", "find", "zzzqqq") == "no API matches 'zzzqqq'\n"
    err = cli.fails("api", "find", "x", "--library", "nope")
    assert "no knowledge base for 'nope'" in err and "libraries with one: minidb" in err
    # a library as written elsewhere ("MiniDB"): the one registered
    assert (
        cli.json("api", "find", "insert rows into a table", "--library", "MiniDB", "--limit", "3")["results"]
        == results
    )


def test_api_examples_and_overview(kb_cli: IndexCli) -> None:
    cli = kb_cli
    data = cli.json(
        "api", "examples", "filter rows", "--api", "minidb.query.Query.where", "--complexity", "beginner"
    )
    assert data["task"] == "filter rows" and data["versions"] == {"minidb": "1.2.0"}
    examples = data["examples"]
    assert examples and len(examples) <= 3
    assert "minidb.query.Query.where" in examples[0]["apis_used"]
    for ex in examples:
        assert ex["complexity"] == "beginner" and ex["library"] == "minidb" and ex["language"] == "python"
        assert re.fullmatch(r"\w+\.md:\d+", ex["source"])
    text = cli.ok(
        "api", "examples", "filter rows", "--api", "minidb.query.Query.where", "--complexity", "beginner"
    )
    first = examples[0]
    assert text.startswith(f"### {first['title']}  [minidb] ({first['source']}, beginner)\n```python\n")
    assert first["code"].rstrip() in text
    # an API's examples need no task in words (a humanize tour: "Missing argument 'TASK'")
    alone = cli.json("api", "examples", "--api", "minidb.query.Query.where")
    assert alone["examples"] and "minidb.query.Query.where" in alone["examples"][0]["apis_used"]
    assert "empty task" in cli.misused("api", "examples")
    assert text.count("### ") == len(examples)

    # an API no example uses: what is shown was chosen by the task, and that is said
    unused = cli.json("api", "examples", "format a row", "--api", "format_row")
    assert all("minidb.utils.format_row" not in ex["apis_used"] for ex in unused["examples"])
    assert unused["warnings"] == [
        "none of these examples uses 'format_row' (the docs show no call of it that was matched):"
        " they were chosen by the task"
    ]
    assert data["warnings"] == []
    # a blank name says nothing; with no example at all, no example "does not use" it
    assert (
        cli.json("api", "examples", "filter rows", "--api", " ", "--api", "minidb.query.Query.where")[
            "warnings"
        ]
        == []
    )
    nothing = cli.json("api", "examples", "format a row", "--api", "format_row", "--complexity", "advanced")
    assert nothing["examples"] == [] and nothing["warnings"] == []

    # --limit, as `api find` takes it
    assert len(cli.json("api", "examples", "filter rows", "--limit", "1")["examples"]) == 1
    assert "--limit must be between 1 and 20" in cli.misused("api", "examples", "x", "--limit", "0")

    # a complexity nobody has: nothing, said plainly
    assert cli.json("api", "examples", "filter rows", "--complexity", "advanced")["examples"] == []
    assert "no example matches 'filter rows'" in cli.ok(
        "api", "examples", "filter rows", "--complexity", "advanced"
    )

    out = cli.ok("api", "overview", "minidb", "--aspect", "quickstart")
    assert out.startswith("# minidb 1.2.0\n")
    # -l as `api find` and `api examples` take it; two different names are refused
    assert cli.ok("api", "overview", "-l", "minidb", "--aspect", "quickstart") == out
    assert "two libraries named" in cli.misused("api", "overview", "minidb", "-l", "other")
    assert "pip install minidb" in out and "minidb.connect(" in out
    ov = cli.json("api", "overview", "minidb", "--aspect", "quickstart")
    assert ov["library"] == "minidb" and ov["aspect"] == "quickstart"
    assert ov["versions"] == {"minidb": "1.2.0"} and ov["warnings"] == []
    assert out == f"# minidb 1.2.0\n{ov['overview']}\n"
    full = cli.json("api", "overview", "minidb")["overview"]
    assert ov["overview"] in full and len(full) > len(ov["overview"])

    for args, named in (
        (("api", "examples", "x", "--complexity", "hard"), "'hard' is not one of 'beginner', 'intermediate'"),
        (
            ("api", "overview", "minidb", "--aspect", "usage"),
            "'usage' is not one of 'architecture', 'quickstart'",
        ),
    ):
        rc, out, err = cli(*args)
        assert rc == 2 and out == "" and err.startswith("error: ") and named in err, err
    # the CLI spells the choices (no library import for --help): the library's own values
    from docmentor.cli import library as cli_library
    from docmentor.library import OUTPUT_FORMATS
    from docmentor.library.service.service import ASPECTS, COMPLEXITIES

    assert tuple(OUTPUT_FORMATS) == cli_library.OUTPUT_FORMAT_CHOICES
    assert (cli_library.COMPLEXITY_CHOICES, cli_library.ASPECT_CHOICES) == (COMPLEXITIES, ASPECTS)
    assert "no knowledge base for 'nope'" in cli.fails("api", "overview", "nope")


def test_api_without_an_index_or_a_knowledge_base(cli: IndexCli, work: Path, lib: Path) -> None:
    assert "no index " in cli.fails("api", "find", "open a database")
    assert "no index " in cli.fails("api", "overview", "minidb")
    assert cli("add", str(lib / "docs"), "--name", "docs")[0] == 0
    for args in (("api", "find", "x"), ("api", "examples", "x"), ("api", "overview", "minidb")):
        err = cli.fails(*args)
        assert "no library knowledge base is registered" in err or "no knowledge base for 'minidb'" in err


def test_eval_api_prints_top1_top3_mrr(
    kb_cli: IndexCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "1")  # find_api by meaning too, as users run it
    qs = tmp_path / "minidb_api.jsonl"
    rows = [
        {"id": "m-1", "query": "open a database stored at a path", "expected_api": ["minidb.core.connect", "minidb.connect"]},
        {"id": "m-2", "query": "open a database", "expected_api": ["minidb.core.Database"]},  # second, after connect
        {"id": "m-3", "query": "zzzqqq", "expected_api": ["minidb.core.Database.close"]},
        {"id": "m-4", "query": "no label here"},
    ]  # fmt: skip
    qs.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    out = kb_cli.ok("eval", "api", str(qs), "--library", "minidb").splitlines()
    assert out[0] == "id\trank ('-': not in the first 10)\tquery"
    assert out[1].startswith("m-1\t1\t") and out[2].startswith("m-2\t2\t") and out[3].startswith("m-3\t-\t")
    assert out[-1] == "questions=3 top1=0.333 top3=0.667 mrr=0.5000"
    data = kb_cli.json("eval", "api", str(qs))
    assert data["summary"] == {"questions": 3, "limit": 10, "top1": 0.3333, "top3": 0.6667, "mrr": 0.5}
    assert [q["rank"] for q in data["questions"]] == [1, 2, None]
    # --limit 1: the second-placed answer counts as not found
    data = kb_cli.json("eval", "api", str(qs), "--limit", "1")
    assert [q["rank"] for q in data["questions"]] == [1, None, None] and data["summary"]["limit"] == 1
    assert "--limit must be between 1 and 50" in kb_cli.misused("eval", "api", str(qs), "--limit", "0")
    blank = tmp_path / "blank.jsonl"
    blank.write_text(
        '{"query": "open a database", "expected_api": ["minidb.core.Database"]}\n{"query": " "}\n'
    )
    assert f'{blank}:2: each line needs a "query" string, not a blank one' in kb_cli.misused(
        "eval", "api", str(blank)
    )
    bad = tmp_path / "nolabels.jsonl"
    bad.write_text('{"query": "x"}\n', encoding="utf-8")
    assert 'no question has "expected_api"' in kb_cli.misused("eval", "api", str(bad))


def test_blank_queries_are_refused_not_answered_with_nothing(kb_cli: IndexCli) -> None:
    assert "empty query" in kb_cli.misused("api", "find", "  ")
    assert "empty task" in kb_cli.misused("api", "examples", "")
    assert "empty query" in kb_cli.misused("search", "\t")
    # a blank task that names the APIs it involves is a question
    data = kb_cli.json("api", "examples", "", "--api", "minidb.connect")
    assert data["examples"] and all("minidb.core.connect" in e["apis_used"] for e in data["examples"])


# -- version warnings -----------------------------------------------------------------------------


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: str) -> Path:
    """The user's project folder, with one requirements file, as the working folder."""
    project = tmp_path / "project"
    project.mkdir()
    (project / name).write_text(content, encoding="utf-8")
    monkeypatch.chdir(project)
    return project


@pytest.mark.parametrize(
    ("name", "content", "pinned"),
    [
        (
            "pyproject.toml",
            '[project]\nname = "app"\ndependencies = ["MiniDB[fast] == 1.1.0", "x>=1"]\n',
            "1.1.0",
        ),
        ("requirements.txt", "httpx>=0.27\nminidb==0.9.3 \\\n    --hash=sha256:abc\n", "0.9.3"),
        ("uv.lock", 'version = 1\n\n[[package]]\nname = "minidb"\nversion = "2.0.1"\n', "2.0.1"),
    ],
)
def test_version_warning_when_the_project_pins_another_version(
    kb_engine: Docmentor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    content: str,
    pinned: str,
) -> None:
    project = _project(tmp_path, monkeypatch, name, content)
    assert pinned_version(project, "minidb") == pinned
    data = LibraryKnowledge(kb_engine).find_api("open a database").to_dict()
    assert data["results"] and data["versions"] == {"minidb": "1.2.0"}
    (warning,) = data["warnings"]
    assert (
        "minidb 1.2.0" in warning and f"minidb {pinned}" in warning.lower()
    )  # the name as the project writes it
    # every answer carries it
    assert LibraryKnowledge(kb_engine).overview("minidb", aspect="quickstart").to_dict()["warnings"] == [
        warning
    ]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("requirements.txt", "minidb==1.2.0\n"),
        ("requirements-dev.txt", "minidb==1.2  # same version, PEP 440\n"),
        ("pyproject.toml", '[project]\nname = "app"\ndependencies = ["minidb==1.2.0"]\n'),
        ("uv.lock", 'version = 1\n\n[[package]]\nname = "minidb"\nversion = "1.2.0"\n'),
        ("requirements.txt", "minidb>=1.0\nminidb==1.*\n"),  # ranges are not pins
    ],
)
def test_no_version_warning_for_the_same_version(
    kb_engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: str
) -> None:
    _project(tmp_path, monkeypatch, name, content)
    data = LibraryKnowledge(kb_engine).find_api("open a database").to_dict()
    assert data["results"] and data["warnings"] == []


@pytest.mark.parametrize(
    ("name", "content", "wants"),
    [
        ("requirements.txt", "minidb>=1.3,<2\n", "requires minidb<2,>=1.3"),
        (
            "requirements.txt",
            "-r base.txt\n# minidb==1.2.0\nminidb~=1.1.0 ; python_version > '3'\n",
            "requires minidb~=1.1.0",
        ),
        (
            "pyproject.toml",
            '[project]\nname = "app"\n[project.optional-dependencies]\ndb = ["minidb!=1.2.0"]\n',
            "requires minidb!=1.2.0",
        ),
        (
            "pyproject.toml",
            '[project]\nname = "app"\n[dependency-groups]\ndev = ["minidb==1.0.*"]\n',
            "requires minidb==1.0.*",
        ),
    ],
)
def test_version_warning_when_the_projects_range_leaves_the_version_out(
    kb_engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: str, wants: str
) -> None:
    _project(tmp_path, monkeypatch, name, content)
    (warning,) = LibraryKnowledge(kb_engine).find_api("open a database").to_dict()["warnings"]
    assert warning == f"this describes minidb 1.2.0, but your project {wants}: check the differences"


def test_version_warning_in_the_cli(kb_cli: IndexCli, work: Path) -> None:
    (work / "requirements.txt").write_text("minidb==1.0.0\n", encoding="utf-8")
    rc, out, err = kb_cli("api", "find", "open a database stored at a path")
    assert rc == 0 and out.startswith("1. minidb.connect  [minidb]")
    assert (
        err
        == "warning: this describes minidb 1.2.0, but your project pins minidb 1.0.0: check the differences\n"
    )
    assert kb_cli.json("api", "find", "open a database")["warnings"] == [err[len("warning: ") : -1]]


# -- MCP tools through the official client ---------------------------------------------------------


def test_mcp_instructions_name_the_tools_served_and_the_knowledge_bases(kb_engine: Docmentor) -> None:
    async def go(tools: list[str] | None) -> str | None:
        async with Client(build_server(kb_engine, tools=tools)) as client:
            return client.instructions

    everything = run(lambda: go(None))
    assert everything is not None and "search_docs" in everything and "find_api" in everything
    assert "Library knowledge bases: minidb " in everything and len(everything.encode()) < 2048
    api_only = run(lambda: go(["api", "feedback"]))
    assert api_only is not None and "find_api" in api_only and "report_issue" in api_only
    assert "search_docs" not in api_only and "get_doc" not in api_only  # tools it does not serve
    docs_only = run(lambda: go(["docs"]))
    assert docs_only is not None and "search_docs" in docs_only and "find_api" not in docs_only


def test_mcp_api_tools(engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no project pins here

    async def go() -> dict[str, Any]:
        async with Client(build_server(engine)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            found = await client.call_tool(
                "find_api", {"query": "insert rows into a table", "max_results": 3}
            )
            examples = await client.call_tool(
                "get_examples",
                {"task_description": "filter rows", "apis_involved": ["minidb.query.Query.where"]},
            )
            overview = await client.call_tool("get_library_overview", {"aspect": "architecture"})
            bad_aspect = await client.call_tool("get_library_overview", {"aspect": "usage"})
            unknown = await client.call_tool("find_api", {"query": "x", "library": "nope"})
            clamped = await client.call_tool("find_api", {"query": "insert rows", "max_results": 1000})
            none_such = await client.call_tool(
                "get_examples", {"task_description": "filter rows", "apis_involved": ["nosuch.api", "where"]}
            )
            report = {
                "query": "compact the database file",
                "issue_type": "missing_example",
                "apis_tried": ["minidb.core.Database.vacuum"],
                "library": "minidb",
            }
            first = await client.call_tool("report_issue", report)
            second = await client.call_tool("report_issue", report)
            bad = await client.call_tool("report_issue", {"query": "x", "issue_type": "bug"})
            return {
                "tools": tools,
                "found": found,
                "examples": examples,
                "overview": overview,
                "bad_aspect": bad_aspect,
                "unknown": unknown,
                "clamped": clamped,
                "none_such": none_such,
                "first": first,
                "second": second,
                "bad": bad,
            }

    r = run(go)
    assert set(r["tools"]) >= {"find_api", "get_examples", "get_library_overview", "report_issue"}
    assert set(r["tools"]["find_api"].input_schema["properties"]) == {
        "query",
        "max_results",
        "library",
        "version",
    }
    assert set(r["tools"]["report_issue"].input_schema["required"]) == {"query", "issue_type"}
    for name in ("find_api", "get_examples", "get_library_overview"):  # each says it returns an object
        assert r["tools"][name].output_schema["type"] == "object", name

    # find_api's text mirror is the structured content as compact JSON
    (mirror,) = r["found"].content
    assert json.loads(mirror.text) == structured(r["found"]) and "\n" not in mirror.text  # not indented

    found = structured(r["found"])
    assert found["versions"] == {"minidb": "1.2.0"} and found["warnings"] == []
    assert len(found["results"]) == 3 and found["results"][0]["api_id"] == "minidb.core.Database.insert"
    for res in found["results"]:
        assert set(res) >= CONTRACT_KEYS | {"library", "parameters", "returns", "aliases"}
    assert found == LibraryKnowledge(engine).find_api("insert rows into a table", max_results=3).to_dict()

    examples = structured(r["examples"])
    assert "minidb.query.Query.where" in examples["examples"][0]["apis_used"] and examples["warnings"] == []
    # out-of-range arguments are refused with the range, unknown ones answered and said so
    (refused,) = r["clamped"].content
    assert r["clamped"].is_error and refused.text == (
        "max_results must be between 1 and 20, got 1000. Try: a value from 1 to 20."
    )
    (warning,) = structured(r["none_such"])["warnings"]
    assert (
        warning
        == "no API named 'nosuch.api' in the knowledge base: the examples are chosen by the task alone"
    )
    overview = structured(r["overview"])
    assert overview["library"] == "minidb" and overview["aspect"] == "architecture" and overview["overview"]
    for name in ("bad_aspect", "unknown", "bad"):
        assert r[name].is_error, name
    (text,) = r["bad"].content
    assert isinstance(text, TextContent) and 'unknown issue_type "bug"' in text.text
    # the allowed values are in the schemas, before an agent guesses
    tools = r["tools"]
    assert tools["report_issue"].input_schema["properties"]["issue_type"]["enum"] == list(ISSUE_TYPES)
    assert tools["get_examples"].input_schema["properties"]["complexity"]["enum"] == [
        "beginner", "intermediate", "advanced", "any"
    ]  # fmt: skip
    assert tools["get_library_overview"].input_schema["properties"]["aspect"]["enum"] == [
        "architecture", "quickstart", "concepts", "all"
    ]  # fmt: skip
    (text,) = r["unknown"].content
    assert isinstance(text, TextContent) and "no knowledge base for 'nope'" in text.text

    first, second = structured(r["first"]), structured(r["second"])
    assert first["status"] == "logged" and first["times_reported"] == 1 and second["times_reported"] == 2
    assert any("find_api" in s for s in first["suggestions"])
    rows = engine.store.conn().execute("SELECT count, session_context FROM feedback").fetchall()
    assert len(rows) == 1 and rows[0]["count"] == 2
    context = json.loads(rows[0]["session_context"])
    calls = [(c["tool"], c["arguments"]) for c in context]
    assert ("find_api", {"query": "insert rows into a table", "max_results": 3, "library": None}) in calls
    assert [c[0] for c in calls] == [
        "find_api",
        "get_examples",
        "get_library_overview",
        "find_api",
        "get_examples",
    ]  # calls refused for their arguments (aspect "usage", max_results 1000) never ran


# -- feedback: concurrent writers and the report ------------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
from docmentor.library.service.feedback import report_issue
from docmentor.store.db import Store
from docmentor.store.pg_store import PgStore

db, w, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
store = PgStore(db) if db.startswith("postgresql:") else Store(Path(db) / "index.sqlite3")
while not go.exists():
    time.sleep(0.002)
seen = []
for i in range(50):
    if i % 2 == 0:
        r = report_issue(store, query="how do I  compact the database", issue_type="missing_example",
                         library="minidb").to_dict()
        seen.append(r["times_reported"])
    else:
        r = report_issue(store, query=f"writer {w} question {i}", issue_type="unclear_docs", library="minidb",
                         apis_tried=["minidb.core.Database.drop", f"minidb.w{w}"], error_message=None).to_dict()
        assert r["times_reported"] == 1, r
print(" ".join(map(str, seen)))
"""


def test_feedback_concurrent_writers_and_analyze(
    index_location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = index_location
    go = tmp_path / "go"
    env = dict(os.environ)
    env.pop("DOCMENTOR_DB", None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, db, str(w), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for w in range(4)
    ]
    time.sleep(0.3)  # let them open (and migrate) the index, then start together
    go.touch()
    outputs = [p.communicate(timeout=60) for p in procs]
    for p, (_, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
    # every increment of the shared report was seen by exactly one writer: none lost, none doubled
    seen = sorted(int(x) for out, _ in outputs for x in out.split())
    assert seen == list(range(1, 101))

    monkeypatch.chdir(tmp_path)
    cli = IndexCli(db, capsys)
    data = cli.json("feedback", "analyze")
    assert data["summary"]["total_issues"] == 200
    assert data["summary"]["distinct_reports"] == 101
    assert data["summary"]["unique_queries"] == 101
    assert data["summary"]["by_type"] == {
        "error": 0,
        "unclear_docs": 100,
        "missing_example": 100,
        "wrong_signature": 0,
    }
    top = data["top_failing_queries"]
    assert len(top) == 10
    assert top[0] == {
        "query": "how do I compact the database",
        "count": 100,
        "issue_types": {"missing_example": 100},
        "recommendation": "Add an example for: how do I compact the database",
    }
    assert all(
        q["count"] == 1 and q["recommendation"].startswith("Improve the description of: ") for q in top[1:]
    )
    assert data["missing_examples"] == ["how do I compact the database"]
    assert data["unclear_apis"][0] == {"api": "minidb.core.Database.drop", "count": 100}
    assert sorted(u["api"] for u in data["unclear_apis"][1:]) == [f"minidb.w{w}" for w in range(4)]
    assert all(u["count"] == 25 for u in data["unclear_apis"][1:])
    assert data["recommendations"][:2] == [
        "Add 1 missing example(s) to the documentation",
        "Improve the descriptions of 5 API(s): minidb.core.Database.drop, "
        + ", ".join(f"minidb.w{w}" for w in range(4)),
    ]
    with closing(Docmentor(db, create=False)) as engine:
        assert data == analyze(engine.store).to_dict()

    text = cli.ok("feedback", "analyze")
    assert text.startswith(
        "Feedback Analysis Report\n========================\n\nSummary:\n- Total issues: 200\n"
    )
    assert '1. "how do I compact the database" (100 failures)\n' in text
    assert "   → Recommendation: Add an example for: how do I compact the database\n" in text
    assert "Missing Examples (1 gaps identified):\n- how do I compact the database\n" in text
    assert "Unclear APIs:\n- minidb.core.Database.drop (100)\n" in text
    assert "✓ Add 1 missing example(s) to the documentation" in text

    report = tmp_path / "feedback.json"
    assert cli.ok("feedback", "analyze", "--library", "minidb", "--output-report", str(report)) == text
    assert json.loads(report.read_text(encoding="utf-8")) == {
        **data,
        "summary": {**data["summary"], "library": "minidb"},
    }
    # a library with neither a knowledge base nor reports is a misspelling, not "no issues"
    assert "no knowledge base and no reports for 'other'" in cli.fails(
        "feedback", "analyze", "--library", "other"
    )
    err = cli.misused("feedback", "analyze", "--output-report", str(tmp_path / "missing" / "r.json"))
    assert "cannot write" in err


# -- regeneration -------------------------------------------------------------------------------------


def test_regeneration_is_atomic_and_seen_by_a_running_reader(
    engine: Docmentor, lib: Path, tmp_path: Path
) -> None:
    knowledge = LibraryKnowledge(engine, cwd=tmp_path)
    query = "write a point-in-time backup copy of every table"
    before = knowledge.find_api(query).to_dict()
    assert all("snapshot" not in r["api_id"] for r in before["results"])
    idle = LibraryKnowledge(engine, cwd=tmp_path)  # no call during the regeneration
    idle.find_api(query)
    assert idle.ready()
    old_ids = frozenset(e.api_id for e in load_entries(engine.store, "minidb"))
    (gen1,) = [r.generation for r in list_kbs(engine.store)]

    core = lib / "minidb" / "core.py"
    text = core.read_text(encoding="utf-8")
    anchor = "    @property\n    def tables(self)"
    assert text.count(anchor) == 1
    core.write_text(text.replace(anchor, NEW_API.lstrip("\n") + "\n" + anchor), encoding="utf-8")

    # a reader polling while the knowledge base is replaced sees the old entries or the new, never a mix
    seen: list[frozenset[str]] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            seen.append(frozenset(e.api_id for _, e in knowledge.index().entries))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        result = generate(
            engine, library="minidb", docs_path=lib / "docs", out=tmp_path / "gen2", search_paths=[lib]
        )
    finally:
        stop.set()
        thread.join(timeout=30)
    assert result.generation is not None and result.generation == gen1 + 1
    # a server runs find_api in its event loop only while its index is current
    assert not idle.ready()
    new_ids = frozenset(e.api_id for e in load_entries(engine.store, "minidb"))
    assert new_ids == old_ids | {"minidb.core.Database.snapshot"}
    assert seen and set(seen) <= {old_ids, new_ids}

    # the same LibraryKnowledge instance sees the new generation on its next call
    after = knowledge.find_api(query).to_dict()
    assert knowledge.ready()
    assert after["results"][0]["api_id"] == "minidb.core.Database.snapshot"
    assert after["results"][0]["signature"] == "snapshot(self, target: str) -> str"
    assert [r.generation for r in list_kbs(engine.store)] == [gen1 + 1]


def test_generate_cli_no_embeddings(cli: IndexCli, work: Path, lib: Path) -> None:
    out = cli.ok(
        "readme-llm", "generate", "-l", "minidb", "--docs-path", str(lib / "docs"), "--no-embeddings"
    )
    assert "(registered, generation 1)" in out
    assert not (work / "readme_llm" / "knowledge_base" / "embeddings").exists()
    meta = json.loads((work / "readme_llm" / "knowledge_base" / "metadata.json").read_text(encoding="utf-8"))
    assert meta["settings"]["embeddings"] is None and "embeddings" in meta["stats"]["timings"]
    results = cli.json("api", "find", "insert rows into a table")["results"]
    assert results[0]["api_id"] == "minidb.core.Database.insert"
    assert set(results[0]["signals"]) == {"lexical", "sections"}


def test_a_report_without_a_library_is_filed_under_the_one_it_is_about(engine: Docmentor) -> None:
    from docmentor.library.service.feedback import analyze, report_issue

    report_issue(engine.store, query="compact the file", issue_type="missing_example")
    assert analyze(engine.store, library="minidb").to_dict()["summary"]["total_issues"] == 1
    # asked about no library, every report about one: the summary names it
    assert analyze(engine.store).to_dict()["summary"]["library"] == "minidb"
    # with several libraries registered: the one its APIs or the session's last call name
    from docmentor.library.service.feedback import _inferred_library
    from docmentor.library.service.results import ToolCall
    from docmentor.store.kb import KbRow

    rows = [KbRow(lib, "1", "p", "t", 1, 1, 1) for lib in ("minidb", "other")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("docmentor.store.kb.list_kbs", lambda store: rows)
        assert _inferred_library(engine.store, ["other.Thing.run"], []) == "other"
        assert (
            _inferred_library(
                engine.store, [], [ToolCall("find_api", {"library": "minidb"}, "2026-01-01T00:00:00Z")]
            )
            == "minidb"
        )
        assert _inferred_library(engine.store, ["minidb.x", "other.y"], []) is None
        assert _inferred_library(engine.store, [], []) is None


def test_warming_loads_the_index_and_the_query_model(kb_engine: Docmentor, tmp_path: Path) -> None:
    from docmentor import embeddings

    knowledge = LibraryKnowledge(kb_engine, cwd=tmp_path)
    assert knowledge._index is None and not knowledge.ready()
    knowledge.warm()
    assert knowledge.ready()  # find_api now answers in milliseconds
    index = knowledge._index
    assert index is not None and index.entries and index.semantic
    assert embeddings._shared  # the query model is loaded
    knowledge.find_api("insert rows")
    assert knowledge._index is index  # the warmed index is the one used
    LibraryKnowledge(Docmentor(tmp_path / "empty")).warm()  # nothing registered: nothing to do, no error


def test_generate_lists_the_docs_indexing_warnings(cli: IndexCli, work: Path, lib: Path) -> None:
    (lib / "docs" / "broken.md").write_text(
        "# Broken\n\n" + "".join(f'--8<-- "missing{i}.py"\n\n' for i in range(7)), encoding="utf-8"
    )
    rc, _, err = cli("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))
    assert rc == 0
    (line,) = [w for w in err.splitlines() if "while indexing the docs" in w]
    assert line.startswith(
        "warning: 7 warning(s) while indexing the docs: broken.md:3: include not found: missing0.py;"
    )
    assert line.count("include not found") == 5
    assert line.endswith("; … (all of them: --json, under docs_warnings)")
    data = cli.json("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))
    assert len(data["docs_warnings"]) == 7 and all("include not found" in w for w in data["docs_warnings"])


def test_generate_says_how_to_read_includes_outside_the_docs_folder(
    cli: IndexCli, work: Path, lib: Path
) -> None:
    """A python-dateutil tour: `index.rst` includes `../README.rst`; generate's warning said
    "include refused: path escapes the docs root" and not how to allow it (`--base-path`,
    which `docmentor add` already suggests)."""
    # the project's mkdocs.yml folder (lib) is read already: a file above it
    (lib.parent / "README.rst").write_text("MiniDB\n======\n\nA tiny database.\n", encoding="utf-8")
    (lib / "docs" / "readme.rst").write_text(".. include:: ../../README.rst\n", encoding="utf-8")
    rc, _, err = cli("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))
    assert rc == 0
    (line,) = [w for w in err.splitlines() if "while indexing the docs" in w]
    assert "include refused: path escapes the docs root: ../../README.rst" in line
    assert line.endswith(f"run generate again with --base-path {lib.parent.resolve()}"), line
    again = ("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))
    rc, _, err = cli(*again, "--base-path", str(lib.parent))
    assert rc == 0 and "while indexing the docs" not in err, err


ASYNC_EDITION = '''

class AsyncDatabase:
    """A database for asyncio programs: the same tables as :class:`Database`."""

    async def insert(self, table: str, rows: list[dict[str, Any]]) -> int:
        """Insert rows into a table, creating the table on first use."""
        return len(rows)
'''


def test_api_find_names_the_other_editions_of_an_api(cli: IndexCli, work: Path, lib: Path) -> None:
    core = lib / "minidb" / "core.py"
    core.write_text(core.read_text(encoding="utf-8") + ASYNC_EDITION, encoding="utf-8")
    init = lib / "minidb" / "__init__.py"
    text = init.read_text(encoding="utf-8").replace("import Database,", "import AsyncDatabase, Database,")
    init.write_text(
        text.replace('__all__ = ["Database",', '__all__ = ["AsyncDatabase", "Database",'), encoding="utf-8"
    )
    cli.ok("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))

    data = cli.json("api", "find", "insert rows into a table", "--limit", "3")
    by_id = {r["api_id"]: r for r in data["results"]}
    sync, coro = "minidb.core.Database.insert", "minidb.core.AsyncDatabase.insert"
    assert data["results"][0]["api_id"] == sync  # the documented edition first
    # other editions by the path users import them by, as the result's own import_path
    assert by_id[sync]["variants"] == ["minidb.AsyncDatabase.insert"]
    assert by_id.get(coro, {"variants": ["minidb.Database.insert"]})["variants"] == ["minidb.Database.insert"]
    lines = cli.ok("api", "find", "insert rows into a table", "--limit", "3").splitlines()
    assert lines[:5] == [
        lines[0],
        "   insert(self, table: str, rows: list[dict[str, Any]]) -> int",
        f"   defined as {sync}",
        "   Insert rows into a table, creating the table on first use.",
        "   the sync edition of: minidb.AsyncDatabase.insert",
    ]
    assert lines[0].startswith("1. minidb.Database.insert  [minidb]")


def test_a_docs_folder_without_documents_is_refused_and_the_index_kept(
    generated: IndexCli, tmp_path: Path, lib: Path
) -> None:
    """A wrong --docs-path must not empty the docs index nor replace the knowledge base."""
    before = generated.json("sources")
    empty = tmp_path / "nodocs"
    (empty / ".hidden").mkdir(parents=True)
    (empty / ".hidden" / "notes.md").write_text("# Hidden\n", encoding="utf-8")  # not indexed: not counted
    (empty / "logo.png").write_bytes(b"\x89PNG")
    (empty / "node_modules" / "x").mkdir(parents=True)
    (empty / "node_modules" / "x" / "README.md").write_text("# A dependency\n", encoding="utf-8")
    (empty / "_build").mkdir()
    (empty / "_build" / "page.md").write_text("# Built\n", encoding="utf-8")  # the indexer skips both
    err = generated.fails("readme-llm", "generate", "--library", "minidb", "--docs-path", str(empty))
    assert f"no documentation files in {empty}" in err
    assert generated.json("sources") == before
    data = generated.json("api", "find", "insert rows into a table")
    assert data["results"][0]["signals"]["sections"] is not None  # the docs' ranking is still there
    assert "(registered, generation 2)" in generated.ok(
        "readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs")
    )


def test_generating_from_the_indexed_docs_reads_their_directives_and_keeps_the_source_options(
    cli: IndexCli, work: Path, lib: Path
) -> None:
    """Without --docs-path the library's indexed docs folder is read for autodoc directives
    as it is with it; and --docs-path on the same folder keeps the source's --base-path."""
    docs = lib / "docs"
    (docs / "ref.rst").write_text(".. autoclass:: minidb.core.Hidden\n", encoding="utf-8")
    core = lib / "minidb" / "core.py"
    core.write_text(
        core.read_text(encoding="utf-8") + '\n\nclass Hidden:\n    """Not in __all__."""\n', encoding="utf-8"
    )
    (lib / "README.md").write_text("Minidb stores rows in one file for you.\n", encoding="utf-8")
    assert cli("add", str(docs), "--name", "minidb-docs", "--base-path", str(lib))[0] == 0
    cli.json("readme-llm", "generate", "--library", "minidb")  # from the indexed source
    ids = {
        r["api_id"] for r in cli.json("api", "find", "hidden class not in all", "--limit", "20")["results"]
    }
    assert "minidb.core.Hidden" in ids, ids
    cli.json("readme-llm", "generate", "--library", "minidb", "--docs-path", str(docs))
    listed = cli.json("sources")
    rows = listed["sources"] if isinstance(listed, dict) else listed
    row = next(r for r in rows if r["name"] == "minidb-docs")
    assert row["options"].get("base_paths") == [str(lib.resolve())], row
    listed = cli.json("sources")
    rows = listed["sources"] if isinstance(listed, dict) else listed
    row = next(r for r in rows if r["name"] == "minidb-docs")
    assert row["options"].get("base_paths") == [str(lib.resolve())], row


def test_generate_base_path_lets_the_docs_include_the_project_readme(
    cli: IndexCli, work: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    docs = project / "docs"
    docs.mkdir(parents=True)
    (project / "README.md").write_text("Minidb stores rows in one file for you.\n", encoding="utf-8")
    (docs / "index.md").write_text("# Minidb\n\n```{include} ../README.md\n```\n", encoding="utf-8")
    err = cli("readme-llm", "generate", "--library", "minidb", "--docs-path", str(docs))[2]
    assert "index.md:3: include refused: path escapes the docs root: ../README.md" in err
    before = cli.json("sources")
    err = cli.misused(
        "readme-llm",
        "generate",
        "--library",
        "minidb",
        "--docs-path",
        str(docs),
        "--base-path",
        str(project / "nope"),
    )
    assert f"--base-path {project / 'nope'} is not a folder" in err and cli.json("sources") == before
    rc, _, err = cli(
        "readme-llm", "generate", "--library", "minidb", "--docs-path", str(docs), "--base-path", str(project)
    )
    assert rc == 0 and "include refused" not in err
    hits = cli.json("search", "stores rows in one file")["results"]
    assert hits and hits[0]["path"] == "index.md"  # the README's text, included


def test_drift_in_included_code_points_at_the_include(tmp_path: Path) -> None:
    """A call the installed version refuses, in code a page includes (``--8<--``), is
    reported at the include's line: the included lines are the directive's on the page."""
    pkg = tmp_path / "pkgs"
    pkg.mkdir()
    (pkg / "minisky.py").write_text(
        '"""Weather."""\n\n\ndef connect(key: str, timeout: float = 1.0) -> None:\n    """Connect."""\n',
        encoding="utf-8",
    )
    docs = tmp_path / "docs"
    (docs / "snippets").mkdir(parents=True)
    (docs / "snippets" / "setup.py").write_text(
        'import minisky\n\nx = 1\nminisky.connect("k", retries=3)\n', encoding="utf-8"
    )
    page = '# Guide\n\nSet it up:\n\n```python\n--8<-- "snippets/setup.py"\n```\n\nThen:\n\n'
    page += '```python\nimport minisky\n\nminisky.connect("k", tries=2)\n```\n'
    (docs / "guide.md").write_text(page, encoding="utf-8")
    with closing(Docmentor(tmp_path / "index", embeddings=False)) as eng:
        generate(eng, library="minisky", docs_path=docs, out=tmp_path / "gen", search_paths=[pkg])
        from docmentor.library.service.registry import drift_report

        found = sorted((f.path, f.line) for f in drift_report(eng, "minisky").findings)
    assert found == [("guide.md", 6), ("guide.md", 14)], found  # the include's line; a plain block's own


def test_generate_says_when_its_docs_are_searched_by_words_only(
    tmp_path: Path, lib: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A blinker tour: after generate, `sources` said 0/18 embedded and nothing had said why.
    With embeddings on, generate's summary says how its docs become searchable by meaning."""
    from docmentor.cli.library import _say_docs_search

    engine = Docmentor(tmp_path / "db", create=True, embeddings=True)
    try:
        engine.add(str(lib / "docs"), name="minidb-docs", embed=False)  # as generate indexes them
        _say_docs_search(engine, "minidb-docs", "minidb")
    finally:
        engine.close()
    out = capsys.readouterr().out
    assert out.startswith("docs: source minidb-docs (") and "search -s minidb" in out
    assert "by words until `docmentor refresh minidb-docs` embeds them" in out


def test_report_issue_suggests_the_tools_that_can_answer(engine: Docmentor, tmp_path: Path) -> None:
    """With a knowledge base for the library: find_api and its kin; with none (an index of
    docs alone, or another library), the docs tools, never a tool that would answer
    "no knowledge base"."""
    from docmentor.library.service.feedback import report_issue

    known = report_issue(
        engine.store, query="compact the file", issue_type="missing_example", library="MiniDB"
    )
    assert known.suggestions[0] == "Try find_api with: compact the file"  # a name as find_api takes it
    for issue_type in ("missing_example", "wrong_signature", "error", "unclear_docs"):
        other = report_issue(
            engine.store, query="open a pool", issue_type=issue_type, library="poolkit", error_message="boom",
            apis_tried=["poolkit.Pool"],
        )  # fmt: skip
        said = " ".join(other.suggestions)
        assert "search_docs" in said and "get_doc_excerpt" in said, (issue_type, said)
        assert "get_library_overview" not in said and "get_examples" not in said.replace(
            "find_api and get_examples: docmentor readme-llm generate --library poolkit", ""
        ), said
    with closing(Docmentor(tmp_path / "docs-only")) as bare:
        none = report_issue(bare.store, query="stream a download", issue_type="missing_example")
        assert none.suggestions[0] == "Try search_docs with: stream a download"


def test_readme_llm_list_shows_the_registered_knowledge_bases(
    kb_cli: IndexCli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (row,) = kb_cli.json("readme-llm", "list")["knowledge_bases"]
    assert (row["library"], row["version"], row["generation"]) == ("minidb", "1.2.0", 1)
    assert row["api_count"] > 10 and Path(row["path"]).is_dir()
    (line,) = kb_cli.ok("readme-llm", "list").splitlines()
    assert line.startswith(f"minidb\t1.2.0\t{row['api_count']} APIs, ") and line.endswith(row["path"])
    none = IndexCli(str(tmp_path / "none"), capsys)
    assert none.ok("readme-llm", "list").startswith("no knowledge bases: make one with")
    assert none.json("readme-llm", "list") == {"knowledge_bases": []}
    assert not (tmp_path / "none").exists()  # listing made no index


def test_a_wrong_signature_asks_for_the_signature_checked_not_better_prose(tmp_path: Path) -> None:
    from docmentor.library.service.feedback import analyze, report_issue

    with closing(Docmentor(tmp_path / "db")) as eng:
        report_issue(eng.store, query="get a page", issue_type="wrong_signature", apis_tried=["pkg.get"])
        recs = analyze(eng.store).recommendations
        assert not any(r.startswith("Improve the descriptions") for r in recs), recs
        assert any(r.startswith("Re-validate signatures: 1 report(s)") for r in recs), recs
        report_issue(eng.store, query="post a form", issue_type="unclear_docs", apis_tried=["pkg.post"])
        recs = analyze(eng.store).recommendations
        assert "Improve the descriptions of 1 API(s): pkg.post" in recs, recs


def test_a_library_without_a_knowledge_base_but_with_indexed_docs_is_pointed_at_them(
    engine: Docmentor, tmp_path: Path
) -> None:
    """An MCP tour: find_api(library="pydantic") answered "no knowledge base", naming the
    libraries that have one, while pydantic's docs were indexed and search could answer."""
    docs = tmp_path / "otherdocs"
    docs.mkdir()
    (docs / "index.md").write_text("# Other\n\nAbout the other library.\n", encoding="utf-8")
    engine.add(docs, name="other-lib-docs")
    knowledge = LibraryKnowledge(engine)
    with pytest.raises(NotFoundError) as caught:
        knowledge.find_api("x", library="Other_Lib")
    assert (caught.value.hint or "").startswith(
        "its docs are indexed: search them (source 'other-lib-docs'); "
    )
    with pytest.raises(NotFoundError) as caught:
        knowledge.find_api("x", library="nope")
    assert (caught.value.hint or "").startswith("libraries with one: minidb")


def test_examples_asked_for_by_the_ids_find_api_lists_come_first(kb_engine: Docmentor) -> None:
    """An MCP tour: find_api lists "ids of examples that use them", and no tool took them
    (get_examples warned "no API named 'docs-advanced-transports-12'" and left it out)."""
    knowledge = LibraryKnowledge(kb_engine)
    found = knowledge.find_api("open a database").to_dict()
    ids = [x for r in found["results"] for x in r.get("examples", [])]
    assert len(ids) >= 2, found
    wanted = [ids[-1], f"minidb:{ids[0]}"]
    got = knowledge.get_examples("something else entirely", apis_involved=wanted).to_dict()
    assert [e["example_id"] for e in got["examples"][:2]] == [ids[-1], ids[0]]
    assert got["warnings"] == []
    unknown = knowledge.get_examples("open a database", apis_involved=["no-such-example-7"]).to_dict()
    assert unknown["warnings"][0].startswith("no API named 'no-such-example-7'")


def test_generate_takes_the_library_as_its_first_argument(cli: IndexCli, work: Path, lib: Path) -> None:
    """A tour: `readme-llm generate httpx` said "Missing option '--library'" while `api
    overview httpx` takes the name first."""
    out = cli.ok("readme-llm", "generate", "minidb", "--docs-path", str(lib / "docs"), "--no-embeddings")
    assert "(registered, generation 1)" in out
    assert "two libraries named: 'minidb' and --library 'other'" in cli.misused(
        "readme-llm", "generate", "minidb", "--library", "other"
    )
    assert "name the library" in cli.misused("readme-llm", "generate")
