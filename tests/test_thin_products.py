"""The rules the adapters used to hold, as library calls (issue 20): the stored drift report,
why a digest is empty, the clarity gate and the documents below the target, which questions
an evaluation measures, a misspelt library in the feedback analysis, and a hint every
adapter can show as it is. Each through the library call and the surface that uses it."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult

from clitool import Cli
from docmentor import (
    ClarityGate,
    Docmentor,
    DriftReport,
    NotFoundError,
    UsageError,
    analyze_feedback,
    assemble_context,
    calculate_clarity_score,
    drift_report,
    generate,
    load_questions,
    score_paths,
    scored_commit,
)
from docmentor.server import build_server

FIXTURES = Path(__file__).parent / "fixtures"
CLARITY_DOCS = FIXTURES / "clarity_cli" / "docs"
DRIFT_PAGE = """\
# Pitfalls

## Read-only access

```python
import minidb

db = minidb.connect("app.db", readonly=True)
db.truncate("users")
```
"""
LONG = " ".join(f"widget calibration step {i} adjusts the dial by one notch" for i in range(120))


# -------------------------------------------------------------------------- the drift report


@pytest.fixture
def generated(
    index_location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, Path]]:
    """An index of each backend with minidb's knowledge base (a page of drifted examples):
    (where the index is, the knowledge base's folder)."""
    lib = tmp_path / "lib"
    shutil.copytree(FIXTURES / "readme_lib", lib, ignore=shutil.ignore_patterns("__pycache__"))
    (lib / "docs" / "pitfalls.md").write_text(DRIFT_PAGE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(lib))
    db, out = index_location, tmp_path / "gen"
    with closing(Docmentor(db)) as eng:
        generate(eng, library="minidb", docs_path=lib / "docs", out=out, search_paths=[lib])
    yield db, out


def test_drift_report_reads_the_last_generation(
    generated: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = generated
    (stored,) = out.rglob("knowledge_base/drift.json")
    with closing(Docmentor(db, create=False)) as eng:
        report = drift_report(eng, "minidb")
        assert isinstance(report, DriftReport)
        assert report.to_dict() == json.loads(stored.read_text(encoding="utf-8"))
        assert (report.missing, report.invalid, report.deprecated) == (1, 1, 0)
        with pytest.raises(NotFoundError, match="no knowledge base for 'nope'") as exc:
            drift_report(eng, "nope")
        assert exc.value.hint == "run: docmentor readme-llm generate --library nope"
    cli = Cli(db, capsys)
    assert cli.json("readme-llm", "drift", "--library", "minidb") == report.to_dict()
    first = cli.ok("readme-llm", "drift", "--library", "minidb").splitlines()[0]
    assert first == (
        f"Drift report for minidb {report.version}: {report.examples_checked} examples checked, "
        "1 missing APIs, 1 invalid signatures, 0 uses of deprecated APIs"
    )

    stored.unlink()
    with (
        closing(Docmentor(db, create=False)) as eng,
        pytest.raises(NotFoundError, match="no drift report for 'minidb'"),
    ):
        drift_report(eng, "minidb")
    shutil.rmtree(stored.parent)
    with (
        closing(Docmentor(db, create=False)) as eng,
        pytest.raises(NotFoundError, match="folder of 'minidb' is gone"),
    ):
        drift_report(eng, "minidb")


# -------------------------------------------------------------------------- an empty digest


@pytest.fixture
def engine(index_location: str, tmp_path: Path) -> Iterator[Docmentor]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "calibration.md").write_text(f"# Widget calibration\n\n{LONG}.\n", encoding="utf-8")
    (docs / "guide.md").write_text(
        "# Releases\n\nThe release process: tag, then publish.\n", encoding="utf-8"
    )
    with closing(Docmentor(index_location)) as eng:
        eng.add(str(docs), name="fx")
        yield eng


def test_a_digest_says_why_it_is_empty(engine: Docmentor) -> None:
    assert assemble_context(engine, "widget calibration").empty_reason is None
    tight = assemble_context(engine, "widget calibration dial", max_tokens=200)
    assert not tight.sections and tight.stats["candidate_sections"]
    assert tight.empty_reason == "nothing_fit"
    none = assemble_context(engine, "zebra quokka", allow_empty=True)
    assert none.empty_reason == "nothing_matched"


def test_the_json_digest_is_its_fitted_text_as_data(engine: Docmentor) -> None:
    digest = assemble_context(engine, "release process", fmt="json", max_tokens=2000)
    assert digest.sections and digest.to_dict() == json.loads(digest.json_text)

    async def go() -> object:
        async with Client(build_server(engine)) as client:
            return await client.call_tool(
                "assemble_context", {"query": "release process", "max_tokens": 2000, "format": "json"}
            )

    result = anyio.run(go)
    assert isinstance(result, CallToolResult) and not result.is_error
    data = result.structured_content
    assert data is not None and data["format"] == "json" and "note" not in data
    assert {k: data[k] for k in ("query", "documents", "sections")} == {
        k: digest.to_dict()[k] for k in ("query", "documents", "sections")
    }


# -------------------------------------------------------------------------- clarity


def test_below_target_and_the_gate_are_the_reports() -> None:
    report = score_paths([CLARITY_DOCS])
    below = report.below_target()
    assert [(Path(d.path).name, d.score.overall_score) for d in below] == [
        ("howto.md", 7.3),
        ("broken.md", 7.6),
    ]
    assert report.gate() == ClarityGate(min_score=None, below_min=(), critical=())
    gate = report.gate(min_score=7.5, fail_on_critical=True)
    assert gate.failed and [Path(d.path).name for d in gate.below_min] == ["howto.md"]
    assert [(Path(p).name, i.line, i.type) for p, i in gate.critical] == [("broken.md", 10, "syntax_error")]
    assert not report.gate(min_score=7.3).failed  # the lowest score is not below 7.3


def test_a_penalty_names_what_it_counts_without_its_weight() -> None:
    score = calculate_clarity_score({"broken_links": 3, "total_code_blocks": 0})
    labels = {p.type: p.label for p in score.penalties}
    assert labels == {"broken_links": "3 broken links", "no_code_blocks": "No code blocks in the document"}
    (links,) = [p for p in score.penalties if p.type == "broken_links"]
    assert links.explanation == "3 broken links × 0.3 points each"


def test_scored_commit_is_the_commit_of_the_scored_folder(index_location: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(CLARITY_DOCS, repo)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "docs"], check=True)
    head = subprocess.run(
        [*git, "rev-parse", "--short=12", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert scored_commit([repo / "guide.md"]) == head  # a file: its folder's
    with closing(Docmentor(index_location)) as eng:
        eng.add(str(repo), name="docs")
        assert scored_commit([], engine=eng, source="docs") == head
    assert scored_commit([tmp_path]) is None  # not a work tree


# -------------------------------------------------------------------------- evaluation, feedback


def test_each_harness_takes_the_questions_it_measures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"query": "a", "relevant": [{"path": "a.md"}]}\n{"query": "b", "expected_contains": []}\n',
        encoding="utf-8",
    )
    assert [q["query"] for q in load_questions(path)] == ["a", "b"]
    assert [q["query"] for q in load_questions(path, harness="search")] == ["a"]
    with pytest.raises(UsageError) as exc:
        load_questions(path, harness="assemble")
    assert str(exc.value) == f'{path}: no question has "expected_contains"'
    # the command line says so before it needs an index
    assert Cli(tmp_path / "none", capsys).misused("eval", "api", str(path)) == (
        f'error: {path}: no question has "expected_api"\n'
    )


def test_two_questions_with_one_id_are_refused_naming_both_lines(tmp_path: Path) -> None:
    # results are reported by id: two questions under one would be told apart by nobody
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"id": "t1", "query": "a", "expected_api": "x.a"}\n'
        '{"query": "b", "expected_api": "x.b"}\n'
        '{"id": "t1", "query": "c", "expected_api": "x.c"}\n',
        encoding="utf-8",
    )
    with pytest.raises(UsageError) as exc:
        load_questions(path)
    assert exc.value.message == f"{path}:3: the id 't1' is also line 1's"
    assert exc.value.hint is not None and "an id of its own" in exc.value.hint
    path.write_text(
        '{"query": "a", "expected_api": "x.a"}\n{"id": "1", "query": "b", "expected_api": "x.b"}\n'
    )
    with pytest.raises(UsageError, match="the id '1' is also line 1's"):
        load_questions(path)  # a line without an id is named by its number


def test_a_misspelt_library_is_no_empty_feedback_analysis(
    index_location: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with closing(Docmentor(index_location)) as eng:
        with pytest.raises(NotFoundError, match="no knowledge base and no reports for 'minidbb'") as exc:
            analyze_feedback(eng.store, "minidbb")
        assert exc.value.hint == "known: none"
        assert analyze_feedback(eng.store).summary.total_issues == 0
    err = Cli(index_location, capsys).fails("feedback", "analyze", "--library", "minidbb")
    assert err == "error: no knowledge base and no reports for 'minidbb' (known: none)\n"


# -------------------------------------------------------------------------- a neutral hint


def test_an_ambiguous_reference_hints_with_the_references_themselves(
    index_location: str, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\ntext\n", encoding="utf-8")
    with closing(Docmentor(index_location)) as eng:
        eng.add(str(docs), name="a")
        eng.add(str(docs), name="b")
        with pytest.raises(UsageError) as exc:
            eng.get("guide.md")
    assert (exc.value.hint, exc.value.arguments) == ("name one: a:guide.md, b:guide.md", ())
