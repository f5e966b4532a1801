"""The logic the CLI and the MCP server used to hold, called directly as the library:
the import path an API is shown by, eval-api's figures, the clarity trend and the roadmap's
next fixes, score_document's read policy and the background refresh scheduler.

The adapters' own tests (test_cli*, test_mcp*, test_clarity_cli, test_readme_service) check
that they show the same through their surfaces; here each library function is called
without them. Nothing is mocked: a real index, a real knowledge base (the fixture library
``tests/fixtures/readme_lib``), real files.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from docmentor.engine import Docmentor
from docmentor.evaluation import ApiEval, api_rank, evaluate_api, expected_apis
from docmentor.library import generate
from docmentor.library.find.import_paths import import_path
from docmentor.library.service.service import LibraryKnowledge
from docmentor.server import build_server
from mcptool import structured

LIB = Path(__file__).parent / "fixtures" / "readme_lib"


@pytest.fixture(scope="module")
def kb_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Docmentor]:
    """An index with the fixture library's knowledge base (generated once for the module)."""
    tmp = tmp_path_factory.mktemp("kb")
    lib = tmp / "lib"
    shutil.copytree(LIB, lib, ignore=shutil.ignore_patterns("__pycache__"))
    eng = Docmentor(tmp / "index", embeddings=True)  # find_api by meaning too, as users get it
    generate(eng, library="minidb", docs_path=lib / "docs", out=tmp / "gen", search_paths=[lib])
    yield eng
    eng.close()


# -- the import path users see (library.find.import_paths) ----------------------------------------


def test_api_find_shows_the_path_users_import_by() -> None:
    # a private definition: its shortest public alias
    assert (
        import_path("httpx._client.Client.get", ["httpx.Client.get", "httpx.AsyncClient.get"])
        == "httpx.Client.get"
    )
    # a public definition against an inherited member's alias as short: the definition
    assert import_path("m.fields.Field.make_error", ["m.fields.IP.make_error"]) == "m.fields.Field.make_error"
    # a shorter re-export wins; every path private: the id
    assert import_path("pkg.core.connect", ["pkg.connect", "pkg.compat.connect"]) == "pkg.connect"
    assert import_path("pkg._a.f", ["pkg._b.f"]) == "pkg._a.f"
    assert import_path("pkg.f") == "pkg.f"  # no aliases: the id


def test_find_api_answers_carry_the_import_path_over_mcp_as_in_the_library(
    kb_engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no project pins here
    direct = LibraryKnowledge(kb_engine).find_api("insert rows into a table", max_results=3).to_dict()
    assert direct["results"][0]["import_path"] == "minidb.Database.insert"
    for r in direct["results"]:
        assert r["import_path"] == import_path(r["api_id"], r["aliases"])

    async def go() -> Any:
        async with Client(build_server(kb_engine, tools=["api"])) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            found = await client.call_tool(
                "find_api", {"query": "insert rows into a table", "max_results": 3}
            )
            return tools["find_api"], structured(found)

    tool, found = anyio.run(go)
    # the output schema names it, and the answer (checked against that schema by the SDK) has it
    item = tool.output_schema["properties"]["results"]["items"]["properties"]  # written out flat
    assert item["import_path"] == {"type": "string"}  # listed without pydantic's title annotation
    assert [r["import_path"] for r in found["results"]] == [r["import_path"] for r in direct["results"]]
    assert found["results"][0]["import_path"] == "minidb.Database.insert"
    assert found["results"][0]["api_id"] == "minidb.core.Database.insert"


# -- eval api's figures (evaluation.evaluate_api) ------------------------------------------------


def test_expected_api_is_one_id_or_a_list_of_ids() -> None:
    assert expected_apis("a.b") == {"a.b"}  # not its characters
    assert expected_apis(["a.b", "a.c"]) == {"a.b", "a.c"}
    results = [
        {"rank": 1, "api_id": "x.y", "aliases": []},
        {"rank": 2, "api_id": "x._z.f", "aliases": ["x.f"]},
    ]
    assert api_rank(results, "x.f") == 2  # an alias counts
    assert api_rank(results, ["q", "x.y"]) == 1
    assert api_rank(results, "nope") is None


def test_evaluate_api_scores_find_api_on_labelled_questions(
    kb_engine: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    knowledge = LibraryKnowledge(kb_engine)
    questions: list[dict[str, Any]] = [
        {"id": "m-1", "query": "open a database stored at a path", "expected_api": ["minidb.core.connect", "minidb.connect"]},
        {"id": "m-2", "query": "open a database", "expected_api": "minidb.core.Database"},  # second, after connect
        {"id": "m-3", "query": "zzzqqq", "expected_api": ["minidb.core.Database.close"]},
        {"id": "m-4", "query": "no label here"},
    ]  # fmt: skip
    result = evaluate_api(knowledge, questions, limit=10, library="minidb")
    assert isinstance(result, ApiEval)
    assert [(q.id, q.rank) for q in result.questions] == [("m-1", 1), ("m-2", 2), ("m-3", None)]
    assert result.questions[0].top[0] == "minidb.core.connect" and len(result.questions[1].top) <= 3
    assert (result.top1, result.top3, result.mrr) == pytest.approx((1 / 3, 2 / 3, 0.5))
    assert result.summary() == {"questions": 3, "limit": 10, "top1": 0.3333, "top3": 0.6667, "mrr": 0.5}
    assert [q.id for q in result.misses] == ["m-2", "m-3"]
    assert result.questions[0].to_dict() == {
        "id": "m-1",
        "query": "open a database stored at a path",
        "rank": 1,
        "top": list(result.questions[0].top),
    }
    with pytest.raises(AttributeError):  # frozen
        result.top1 = 1.0  # type: ignore[misc]
    # a rank beyond the limit is not found
    assert [q.rank for q in evaluate_api(knowledge, questions, limit=1).questions] == [1, None, None]
    from docmentor.errors import UsageError

    with pytest.raises(UsageError, match="limit must be between 1 and 50"):
        evaluate_api(knowledge, questions, limit=0)
    with pytest.raises(UsageError, match='no question has "expected_api"'):
        evaluate_api(knowledge, [{"id": "1", "query": "x"}])


# -- the clarity roadmap as data and the trend (clarity.roadmap, clarity.history) ----------------

ISSUES: list[dict[str, Any]] = [
    {"type": "syntax_error", "severity": "critical", "line": 10, "section": "Setup", "message": "bad code"},
    {"type": "broken_link", "severity": "warning", "line": 4, "section": "Intro", "message": "404"},
    {"type": "missing_alt_text", "severity": "info", "line": 0, "section": "", "message": "no alt"},
    {"type": "todo_marker", "severity": "warning", "section": "Notes", "message": "TODO left"},
]


def test_the_roadmap_is_data_and_next_steps_do_not_repeat_a_fix() -> None:
    from docmentor.clarity.roadmap import QuickWin, get_improvement_roadmap

    plan = get_improvement_roadmap(5.0, 8.0, ISSUES)
    # critical first, then by effort, then line (the whole page first); all four to reach 8
    assert [f.issue_type for f in plan.fixes] == [
        "syntax_error",
        "todo_marker",
        "broken_link",
        "missing_alt_text",
    ]
    assert not plan.reachable and plan.new_score == Decimal("7.9")
    assert plan.fixes[0].impact_text == "+2.0 points" and plan.fixes[0].line == 10
    assert plan.quick_wins[0] == QuickWin("syntax_error", "Setup", 10, 30, plan.fixes[0].impact)
    assert plan.quick_wins[0].text == "Fix syntax error in Setup (line 10) - 30 min, +2.0 impact"
    with pytest.raises(AttributeError):
        plan.fixes[0].line = 3  # type: ignore[misc]
    # the fixes first; a quick win of the same type on the same line is that fix again; one
    # without a line (the TODO) repeats none
    steps = plan.next_steps(10)
    assert steps[: len(plan.fixes)] == plan.fixes
    wins = [s for s in steps if isinstance(s, QuickWin)]
    assert [(w.issue_type, w.line) for w in wins] == [("todo_marker", 0)]
    assert len(steps) == len(plan.fixes) + 1 and plan.next_steps(2) == plan.fixes[:2]
    # nothing to fix: the quick wins alone
    done = get_improvement_roadmap(9.5, 8.0, ISSUES)
    assert done.fixes == () and done.next_steps(3) == done.quick_wins[:3]


def test_trend_points_record_history_and_the_trend_summary(tmp_path: Path) -> None:
    from docmentor.clarity import score_paths
    from docmentor.clarity.history import ScoreChange, record_history, trend, trend_summary

    earlier: list[dict[str, Any]] = [
        {"date": "d1", "score": 7, "commit": "abc", "grade": "B"},
        {"date": "d2", "score": True},  # not a score
        {"date": "d3", "score": "8"},  # nor this
    ]
    assert trend(earlier, date="d4", score=8.5) == [
        {"date": "d1", "score": 7, "commit": "abc"},
        {"date": "d4", "score": 8.5},
    ]

    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text("# Page\n\nInstall it with `pip install x`.\n\n## Use\n\nCall it.\n", encoding="utf-8")
    history = tmp_path / "out" / "history.jsonl"
    first = score_paths([page]).to_dict()
    record_history(first, history, commit="c1")  # no file yet: one point each, and the file written
    (doc,) = first["documents"]
    assert doc["trend"] == [{"date": first["generated_at"], "score": doc["clarity_score"]["overall_score"]}]
    assert trend_summary(first["documents"]) is None
    lines = [json.loads(line) for line in history.read_text(encoding="utf-8").splitlines()]
    assert [(e["path"], e["commit"]) for e in lines] == [(doc["path"], "c1")]

    second = score_paths([page]).to_dict()
    record_history(second, history, commit=None)
    points = second["documents"][0]["trend"]
    assert [p.get("commit") for p in points] == ["c1", None] and len(points) == 2
    summary = trend_summary(second["documents"])
    assert summary is not None and summary.compared == 1 and summary.change == 0.0
    assert summary.most_changed == ()  # no score moved
    assert len(history.read_text(encoding="utf-8").splitlines()) == 2

    docs = [
        {"path": "a.md", "trend": [{"score": 6.0}, {"score": 8.0}]},
        {"path": "b.md", "trend": [{"score": 9.0}, {"score": 8.5}]},
        {"path": "c.md", "trend": [{"score": 7.0}, {"score": 7.0}]},
        {"path": "d.md", "trend": [{"score": 5.0}]},  # first run: not compared
    ]
    moved = trend_summary(docs, most_changed=2)
    assert moved is not None and moved.compared == 3
    assert (moved.before, moved.after) == pytest.approx((22 / 3, 23.5 / 3))
    assert moved.most_changed == (ScoreChange("a.md", 6.0, 8.0), ScoreChange("b.md", 9.0, 8.5))


# -- what score_document may read (access) -------------------------------------------------------


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    indexed = tmp_path / "indexed"
    indexed.mkdir()
    (indexed / "guide.md").write_text("# Guide\n\nRun `make` to build it.\n", encoding="utf-8")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "draft.md").write_text("# Draft\n\nA page in an allowed folder.\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nNot for the model.\n", encoding="utf-8")
    (allowed / "link.md").symlink_to(outside / "secret.md")  # inside by name, outside in fact
    return {"indexed": indexed, "allowed": allowed, "outside": outside}


def test_the_read_policy_allows_indexed_documents_and_allowed_folders_only(
    tmp_path: Path, folders: dict[str, Path]
) -> None:
    from docmentor.access import Readable, ReadPolicy, score_document
    from docmentor.clarity import score_paths
    from docmentor.errors import NotFoundError

    engine = Docmentor(tmp_path / "index", embeddings=False)
    engine.add(str(folders["indexed"]), name="docs")
    policy = ReadPolicy.allowing([folders["allowed"]])
    assert policy.allowed == (folders["allowed"].resolve(),)

    draft = folders["allowed"] / "draft.md"
    assert policy.resolve(engine, str(draft)) == Readable(file=draft)
    with pytest.raises(NotFoundError, match=r"no file .*nope\.md in the allowed folders"):
        policy.resolve(engine, str(folders["allowed"] / "nope.md"))
    # an indexed document by SOURCE:PATH: its stored text, with the folder it was read from
    found = policy.resolve(engine, "docs:guide.md")
    assert found.file is None and found.root == folders["indexed"]
    assert found.document is not None and "Run `make`" in found.document.content
    # the indexed file by its own path: read as the file
    assert (
        policy.resolve(engine, str(folders["indexed"] / "guide.md")).file == folders["indexed"] / "guide.md"
    )
    # anything else gets one answer, whether it exists or not (a symlink out of a folder too)
    answers = set()
    for ref in (
        str(folders["outside"] / "secret.md"),
        str(folders["outside"] / "missing.md"),
        str(folders["allowed"] / "link.md"),
        "/etc/hostname",
        "docs:missing.md",
    ):
        with pytest.raises(NotFoundError) as info:
            policy.resolve(engine, ref)
        answers.add(str(info.value).replace(repr(ref), "REF"))
    (answer,) = answers
    assert answer.startswith("REF is not an indexed document, nor a file in a folder this server may read (")
    # no allowed folder: a file outside the index is refused
    with pytest.raises(NotFoundError, match="nor a file in a folder"):
        ReadPolicy().resolve(engine, str(draft))

    scored = score_document(engine, str(draft), policy=policy, target=9.0)
    assert scored == score_paths([draft], target=9.0).documents[0]
    by_ref = score_document(engine, "docs:guide.md", policy=policy).to_dict()
    assert by_ref["path"] == "guide.md" and 0 <= by_ref["clarity_score"]["overall_score"] <= 10
    engine.close()


# -- the background refresh scheduler (scheduler) ------------------------------------------------


def test_the_scheduler_indexes_configured_sources_one_by_one_and_remembers_the_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docmentor.scheduler import RefreshScheduler, UnindexedSources, configured_sources

    work = tmp_path / "project"
    (work / "manual").mkdir(parents=True)
    (work / "manual" / "intro.md").write_text("# Intro\n\nThe zeppelin manual.\n", encoding="utf-8")
    # the first configured source cannot be read (nothing listens on port 9), the second can
    (work / "docmentor.toml").write_text('sources = ["bad:http://127.0.0.1:9/llms.txt", "cfg:manual"]\n')
    monkeypatch.chdir(work)
    assert [s.name for s in configured_sources()] == ["bad", "cfg"]
    engine = Docmentor(tmp_path / "index", create=True, embeddings=False)
    unindexed = UnindexedSources()
    changes: list[int] = []

    def changed() -> None:
        changes.append(len(engine.sources()))
        raise RuntimeError("a listener failing ends nothing")

    scheduler = RefreshScheduler(
        engine, configured=True, interval_hours=0, unindexed=unindexed, on_change=changed
    )
    # while they are indexed, a listing shows them (list_sources answered [] at a server's start)
    listed: list[list[tuple[str, str]]] = []
    add = engine.add

    def listing_add(*args: Any, **kwargs: Any) -> Any:
        listed.append([(r["name"], r["status"]) for r in unindexed.sources(engine.sources())])
        return add(*args, **kwargs)

    monkeypatch.setattr(engine, "add", listing_add)
    scheduler.index_configured()
    assert listed == [
        [("bad", "not indexed"), ("cfg", "not indexed")],
        [("bad", "error"), ("cfg", "not indexed")],
    ]
    assert [s["name"] for s in engine.sources()] == ["cfg"] and changes == [1]
    rows = unindexed.sources(engine.sources())
    assert [(r["name"], r["kind"], r["status"]) for r in rows] == [
        ("cfg", "folder", "ok"),
        ("bad", "configured", "error"),
    ]
    assert "127.0.0.1:9" in rows[1]["error"] and rows[1]["target"] == "http://127.0.0.1:9/llms.txt"

    scheduler.refresh()  # a periodic pass: the bad one is still reported, the listener called
    assert changes == [1, 1] and [r["name"] for r in unindexed.sources(engine.sources())] == ["cfg", "bad"]
    # once a source is indexed, its failure is forgotten
    unindexed.failed("cfg", "manual", {}, "was down")
    assert [r["name"] for r in unindexed.sources(engine.sources())] == ["cfg", "bad"]

    # started, with no interval: one pass in its own thread, which then ends
    thread = RefreshScheduler(engine, configured=True, interval_hours=0).start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    with pytest.raises(ValueError, match="interval_hours"):
        RefreshScheduler(engine, configured=False, interval_hours=-1)
    engine.close()


# -- eval search and eval assemble (evaluation) --------------------------------------------------


def test_evaluate_search_and_assemble_over_an_index(tmp_path: Path) -> None:
    from docmentor.errors import NotFoundError, UsageError
    from docmentor.evaluation import check_labels, evaluate_assemble, evaluate_search, source_folder

    docs = tmp_path / "site" / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "install.md").write_text(
        "# Install\n\nRun `pip install zeppelin` to install the zeppelin client.\n\n"
        "## Upgrade\n\nRun `pip install -U zeppelin` to upgrade.\n",
        encoding="utf-8",
    )
    (docs / "tuning.md").write_text("# Tuning\n\nSet the ballast before take-off.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index", embeddings=False)
    engine.add(str(docs), name="docs")
    assert source_folder(engine, "docs") == source_folder(engine, None) == docs
    with pytest.raises(NotFoundError, match="unknown source 'nope'"):
        engine.check_source("nope")
    engine.check_source(None)

    questions: list[dict[str, Any]] = [
        # labelled relative to the folder above the source: docs/guide/install.md
        {"id": "q1", "query": "upgrade zeppelin", "relevant": [{"path": "docs/guide/install.md", "heading": "Upgrade", "grade": 2}]},
        {"id": "q2", "query": "ballast before take-off", "relevant": [{"path": "docs/tuning.md", "grade": 2}, {"path": "docs/gone.md", "grade": 1}]},
        {"id": "q3", "query": "no labels"},
    ]  # fmt: skip
    with pytest.raises(NotFoundError, match="unknown source"):
        check_labels(engine, questions, source="nope")
    labels = check_labels(engine, questions)
    assert [q["id"] for q in labels.questions] == ["q1", "q2"]
    assert labels.renamed == {"guide/install.md": "docs/guide/install.md", "tuning.md": "docs/tuning.md"}
    assert labels.unmatched == ("docs/gone.md",) and labels.labelled == 3 and not labels.none_indexed
    run = evaluate_search(engine, labels)
    q1, q2 = run.questions
    assert q1["doc"]["mrr"] == 1.0 and q1["section"]["mrr"] == 1.0  # the Upgrade section first
    assert q2["doc"]["mrr"] == 1.0 and q2["top"][0] == "tuning.md"
    summary = run.summary()
    assert summary["questions"] == 2 and summary["document"]["mrr"] == 1.0
    foreign = check_labels(engine, [{"query": "x", "relevant": [{"path": "elsewhere/x.md"}]}])
    assert foreign.none_indexed and foreign.unmatched == ("elsewhere/x.md",)

    asked: list[dict[str, Any]] = [
        {"id": "a1", "query": "how do I upgrade zeppelin", "expected_contains": ["pip install -U zeppelin"]},
        {"id": "a2", "query": "tuning", "expected_contains": ["ballast", "zqxj-nowhere"]},
        {"id": "a3", "query": "unlabelled"},
    ]
    result = evaluate_assemble(engine, asked, max_tokens=2000)
    assert [(q.id, q.coverage, q.passed, q.missing) for q in result.questions] == [
        ("a1", 1.0, True, ()),
        ("a2", 0.5, False, ("zqxj-nowhere",)),
    ]
    assert all(0 < q.tokens <= 2000 for q in result.questions)
    assert result.summary() == {
        "questions": 2,
        "passed": 1,
        "pass_rate": 0.5,
        "mean_coverage": 0.75,
        "max_tokens": 2000,
    }
    assert result.questions[1].to_dict()["missing"] == ["zqxj-nowhere"]
    with pytest.raises(UsageError, match='no question has "expected_contains"'):
        evaluate_assemble(engine, [{"id": "1", "query": "x"}])
    engine.close()
