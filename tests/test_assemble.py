"""Context assembly end to end: golden digests, canonicality in JSON, budget honesty,
labelled questions on a slice of the httpx docs, the CLI (``assemble``, ``eval``) and the
``assemble_context`` MCP tool.

Golden digests live in ``tests/fixtures/assemble_golden/``; rewrite them with
``DOCMENTOR_UPDATE_GOLDEN=1 pytest tests/test_assemble.py`` and read the diff.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
import toktok
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp_types import CallToolResult, TextContent

from docmentor import assemble_context
from docmentor.assemble import RELEVANCE_THRESHOLD
from docmentor.assemble.canonical import FACTOR_KEYS
from docmentor.assemble.render import render_json
from docmentor.cli import main
from docmentor.engine import Docmentor
from docmentor.server import MAX_DIGEST_TOKENS, build_server

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "assemble"
GOLDEN = HERE / "fixtures" / "assemble_golden"
HTTPX = HERE / "fixtures" / "httpx"  # a slice of the httpx docs (NOTICE)
QUESTIONS = HERE / "fixtures" / "eval" / "httpx.jsonl"  # six labelled questions about the slice
UPDATE_GOLDEN = os.environ.get("DOCMENTOR_UPDATE_GOLDEN") == "1"

NOW = datetime(2026, 1, 1, tzinfo=UTC)
# Update times of the fixture files (mtime; the copy is not a git work tree), fixed so that the
# recency factor — and so the ranking — is the same on every machine: most pages changed within
# 90 days of NOW (+0.1), ADR-0001 within the year (0), the stale pages long ago (−0.1).
MTIMES = {
    "docs/adr/ADR-0001-use-postgres.md": datetime(2025, 6, 2, 12, tzinfo=UTC),
    "docs/adr/ADR-0002-retry-policy.md": datetime(2023, 6, 12, 12, tzinfo=UTC),
    "docs/guides/legacy-deploy.md": datetime(2023, 1, 16, 12, tzinfo=UTC),
    "docs/scratch/old-notes.md": datetime(2022, 9, 1, 12, tzinfo=UTC),
}
DEFAULT_MTIME = datetime(2025, 12, 1, 12, tzinfo=UTC)

GOLDEN_QUESTIONS = {
    "deploy": "how do we deploy a new service",
    "retry": "what is our retry policy",
    "restart": "how do I restart the worker",
}
JSON_KEYS = {
    "query",
    "generated_at",
    "token_budget",
    "actual_tokens",
    "actual_tokens_of",
    "encoding",
    "primary_areas",
    "documents_scanned",
    "sections_selected",
    "documents",
    "sections",
    "metadata",
}
DOC_KEYS = {
    "path",
    "source",
    "url",
    "title",
    "score",
    "relevance",
    "canonicality",
    "status",
    "updated_at",
    "inlinks",
    "factors",
    "sections_included",
}
SOURCE_LINE = re.compile(
    r"^\*\*Source:\*\* (?P<path>\S+):(?P<a>\d+)-(?P<b>\d+)(?: \(canonical: [01]\.\d\d\))?$", re.M
)
ACTUAL = re.compile(r"^\*\*Actual Tokens:\*\* (\d+)$", re.M)
SELECTED = re.compile(r"^\*\*Sections Selected:\*\* (\d+)$", re.M)
DOC_ENTRY = re.compile(
    r"^\d+\. \*\*(?P<path>\S+)\*\* \(score: (?P<score>\d\.\d\d), canonical: (?P<canon>\d\.\d\d)\)$", re.M
)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,}")


# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def module_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("assemble")
    with pytest.MonkeyPatch.context() as mp:  # module fixtures run before the autouse home
        mp.setenv("DOCMENTOR_HOME", str(path / "home"))
        mp.delenv("DOCMENTOR_DB", raising=False)
        mp.delenv("DOCMENTOR_SOURCES", raising=False)
        yield path


@pytest.fixture(scope="module")
def fx_dir(module_tmp: Path) -> Path:
    """A copy of the fixture corpus with fixed update times."""
    root = module_tmp / "fx"
    shutil.copytree(FIXTURE, root)
    for f in root.rglob("*.md"):
        when = MTIMES.get(f.relative_to(root).as_posix(), DEFAULT_MTIME).timestamp()
        os.utime(f, (when, when))
    return root


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def new_index(request: pytest.FixtureRequest, module_tmp: Path) -> Callable[[str], str]:
    """Where the module's indexes live, on each backend: ``new_index(name)`` gives a folder
    of the embedded index, or the URL of a new PostgreSQL schema (``--db`` takes either)."""
    if request.param == "postgres":
        schemas: Callable[[], str] = request.getfixturevalue("module_postgres_schemas")
        return lambda name: schemas()
    return lambda name: str(module_tmp / f"{name}-index")


def _index(db: str, **sources: Path) -> str:
    eng = Docmentor(db)
    for name, folder in sources.items():
        eng.add(str(folder), name=name)
    eng.close()
    return db


@pytest.fixture(scope="module")
def fx_db(new_index: Callable[[str], str], fx_dir: Path) -> str:
    return _index(new_index("fx"), fx=fx_dir)


@pytest.fixture(scope="module")
def httpx_db(new_index: Callable[[str], str]) -> str:
    return _index(new_index("httpx"), httpx=HTTPX)


@pytest.fixture(scope="module")
def two_db(new_index: Callable[[str], str], module_tmp: Path, fx_dir: Path) -> str:
    """The fixture corpus and a second, unrelated source that also talks about deploying."""
    other = module_tmp / "ops"
    other.mkdir(exist_ok=True)
    (other / "deploy-notes.md").write_text(
        "# Deploy notes\n\nTo deploy a new service to the edge cluster, run `edge push`.\n", encoding="utf-8"
    )
    return _index(new_index("two"), fx=fx_dir, ops=other)


@pytest.fixture(scope="module")
def fx_engine(fx_db: str) -> Iterator[Docmentor]:
    eng = Docmentor(fx_db, create=False)
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def httpx_engine(httpx_db: str) -> Iterator[Docmentor]:
    eng = Docmentor(httpx_db, create=False)
    yield eng
    eng.close()


# ----------------------------------------------------------------------------- helpers


def recount(text: str) -> int:
    return int(toktok.batch_count([text], "o200k_base")[0])


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0]


def file_lines(root: Path, path: str) -> int:
    return len((root / path).read_text(encoding="utf-8").splitlines())


def check_digest(md: str, budget: int, roots: dict[str, Path]) -> list[tuple[str, int, int]]:
    """The invariants every digest keeps; returns its (path, start, end) sources."""
    assert md.startswith("# Context Digest for: ")
    real = recount(md)
    assert real <= budget, (real, budget)  # we aim at the budget itself …
    assert real <= budget * 1.1  # … and never go more than 10% over it
    (printed,) = ACTUAL.findall(md)
    assert int(printed) == real
    sources = [(m["path"], int(m["a"]), int(m["b"])) for m in SOURCE_LINE.finditer(md)]
    selected = SELECTED.findall(md)
    assert selected == [str(len(sources))]
    assert len(set(sources)) == len(sources), "a section appears twice"
    by_path: dict[str, list[tuple[int, int]]] = {}
    for path, a, b in sources:
        assert 1 <= a <= b, (path, a, b)
        root = next(r for r in roots.values() if (r / path).is_file())
        assert b <= file_lines(root, path), (path, a, b)
        by_path.setdefault(path, []).append((a, b))
    for path, spans in by_path.items():  # sections never overlap either (trimmed ones included)
        spans.sort()
        for (_, b1), (a2, _) in itertools.pairwise(spans):
            assert b1 < a2, (path, spans)
    return sources


def vocabulary(*roots: Path) -> list[str]:
    words: set[str] = set()
    for root in roots:
        for f in sorted(root.rglob("*.md")):
            words.update(w.lower() for w in WORD.findall(f.read_text(encoding="utf-8", errors="replace")))
    return sorted(words)


VOCAB = vocabulary(FIXTURE, HTTPX)


# ----------------------------------------------------------------------------- golden digests


@pytest.mark.parametrize("name", sorted(GOLDEN_QUESTIONS))
def test_golden_digest(fx_engine: Docmentor, fx_dir: Path, name: str) -> None:
    digest = assemble_context(fx_engine, GOLDEN_QUESTIONS[name], depth=1, now=NOW)
    md = digest.markdown
    snapshot = GOLDEN / f"{name}.md"
    if UPDATE_GOLDEN:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(md, encoding="utf-8")
    assert snapshot.is_file(), f"no snapshot {snapshot}: run with DOCMENTOR_UPDATE_GOLDEN=1"
    assert md == snapshot.read_text(encoding="utf-8"), (
        f"{name}: the digest changed; if on purpose, rerun with DOCMENTOR_UPDATE_GOLDEN=1 and review the diff"
    )
    check_digest(md, 8000, {"fx": fx_dir})
    # the layout, in its order (docs/assemble.md)
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads == ["## Top Relevant Documents", "## Distilled Content", "## Metadata", "## Usage with LLM"]
    assert "**Generated:** 2026-01-01T00:00:00Z\n**Token Budget:** 8000\n" in md
    # documents found by search come first, best combined score first (cross-reference-only ones after)
    data = render_json(digest)
    primary = {s["path"] for s in data["sections"] if s["origin"] == "search"}
    docs = data["documents"]
    flags = [d["path"] in primary for d in docs]
    assert flags == sorted(flags, reverse=True)
    scores = [d["score"] for d in docs if d["path"] in primary]
    assert scores == sorted(scores, reverse=True)
    # the digest shows each score to 2 places, the JSON to 4: the same number (0.49503 is
    # "0.50" in one and 0.4950 in the other: rounding the JSON's again would say 0.49)
    shown = [(m["path"], float(m["score"])) for m in DOC_ENTRY.finditer(md)]
    assert [p for p, _ in shown] == [d["path"] for d in docs]
    assert all(abs(v - d["score"]) <= 0.00505 for (_, v), d in zip(shown, docs, strict=True))


def test_candidates_for_assembly_skip_the_snippets_and_keep_the_texts(fx_engine: Docmentor) -> None:
    """Assembly reads whole sections: its candidates choose no snippet window (a sixth of an
    assembly's time on 1,000 files), and are otherwise the same hits in the same order."""
    with_snippets = fx_engine.candidates("deploy the service to production")
    without = fx_engine.candidates("deploy the service to production", snippets=False)
    assert len(with_snippets) > 3 and any(h.snippet for h in with_snippets)
    assert [h.section_id for h in without] == [h.section_id for h in with_snippets]
    assert [h.score for h in without] == [h.score for h in with_snippets]
    assert all(h.snippet == "" and h.text for h in without)


def test_golden_deploy_reads_as_a_reader_expects(fx_engine: Docmentor) -> None:
    data = render_json(assemble_context(fx_engine, GOLDEN_QUESTIONS["deploy"], depth=1, now=NOW))
    docs = {d["path"]: d for d in data["documents"]}
    order = list(docs)
    assert order[0] == "docs/guides/deploy.md"
    # the deprecated Capistrano page, as relevant as any, comes after every canonical page that
    # is about the question too (a page barely matching it may come later still)
    primary = {s["path"] for s in data["sections"] if s["origin"] == "search"}
    ranked = [p for p in order if p in primary]
    legacy = ranked.index("docs/guides/legacy-deploy.md")
    current = [
        p for p in ranked if docs[p]["status"] in ("canonical", "accepted") and docs[p]["relevance"] >= 0.3
    ]
    assert len(current) >= 4
    assert all(ranked.index(p) < legacy for p in current)
    assert docs["docs/guides/legacy-deploy.md"]["status"] == "deprecated"
    assert docs["docs/guides/legacy-deploy.md"]["canonicality"] < 0.5
    crossrefs = {(s["path"], s["heading"]): s for s in data["sections"] if s["origin"] == "crossref"}
    # deploy.md links to the overview's "Data flow" (an anchor): that section is already in the
    # digest, inside the overview's opening section that brings its short subsections along
    # (RankingConfig.subsection_chars), so no cross-reference repeats it
    overview = next(
        s
        for s in data["sections"]
        if (s["path"], s["heading"]) == ("docs/architecture/overview.md", "Architecture overview")
    )
    assert "#### Data flow" in overview["text"] and overview["line_end"] >= 26
    assert ("docs/architecture/overview.md", "Data flow") not in crossrefs
    # an ADR link without an anchor brings in the ADR's introduction (its first section with text),
    # and says which lines referenced it
    assert crossrefs[("docs/adr/ADR-0001-use-postgres.md", "Context")]["referenced_by"] == [
        "docs/guides/deploy.md:14",
        "docs/architecture/overview.md:16",
    ]
    # a link from the root (/docs/...) and a plain link to the same page: one section, both referrers
    runbook = crossrefs[("docs/runbooks/RUNBOOK.md", "Operations runbook")]
    assert runbook["referenced_by"] == ["docs/guides/deploy.md:41", "docs/index.md:15"]
    # links that leave the index (https:, mailto:, a page not written yet) bring nothing in
    assert {p for p, _ in crossrefs} <= {d["path"] for d in data["documents"]}
    assert all(s["path"].startswith("docs/") for s in data["sections"])


def test_golden_retry_resolves_adr_mentions(fx_engine: Docmentor) -> None:
    data = render_json(assemble_context(fx_engine, GOLDEN_QUESTIONS["retry"], depth=1, now=NOW))
    docs = {d["path"]: d for d in data["documents"]}
    old, new = docs["docs/adr/ADR-0002-retry-policy.md"], docs["docs/adr/ADR-0003-retry-budgets.md"]
    assert (old["status"], new["status"]) == ("superseded", "accepted")
    assert old["factors"]["status"] == -0.3 and new["factors"]["status"] == 0.0
    assert new["canonicality"] > old["canonicality"]
    assert docs["docs/scratch/old-notes.md"]["canonicality"] < 0.5
    assert list(docs).index("docs/scratch/old-notes.md") > list(docs).index(
        "docs/adr/ADR-0003-retry-budgets.md"
    )
    texts = " ".join(s["text"] for s in data["sections"])
    assert "exponential backoff and full jitter" in texts  # the current policy is in the digest
    # a reference-style link ([operations runbook][runbook] → RUNBOOK.md#rollback) is followed
    (rollback,) = [s for s in data["sections"] if s["heading"] == "Rollback"]
    assert (rollback["origin"], rollback["referenced_by"]) == ("crossref", ["docs/guides/deploy.md:34"])


def test_plain_adr_mention_is_followed(fx_engine: Docmentor) -> None:
    # configuration.md:17 says "see the retry policy in ADR-0003" without a link
    data = render_json(assemble_context(fx_engine, "environment variables timeout", depth=1, now=NOW))
    refs = [s for s in data["sections"] if s["origin"] == "crossref" and "ADR-0003" in s["path"]]
    assert refs, [s["path"] for s in data["sections"]]
    assert "docs/guides/configuration.md:17" in refs[0]["referenced_by"]


def test_depth_two_goes_further_than_depth_one(fx_engine: Docmentor) -> None:
    q = GOLDEN_QUESTIONS["deploy"]
    one = render_json(assemble_context(fx_engine, q, depth=1, now=NOW))["sections"]
    two = render_json(assemble_context(fx_engine, q, depth=2, max_tokens=16000, now=NOW))["sections"]
    zero = render_json(assemble_context(fx_engine, q, depth=0, now=NOW))["sections"]
    assert {s["origin"] for s in zero} == {"search"}
    assert any(s["origin"] == "crossref" for s in one)
    keys = lambda secs: {(s["path"], s["section_line_start"]) for s in secs}  # noqa: E731
    assert keys(zero) < keys(one) <= keys(two)


# ----------------------------------------------------------------------------- canonicality in JSON


def test_json_shows_every_canonicality_factor(
    capsys: pytest.CaptureFixture[str], fx_db: str, fx_dir: Path
) -> None:
    for q in GOLDEN_QUESTIONS.values():
        rc, out, err = cli(capsys, "--db", fx_db, "assemble", q, "--format", "json")
        assert (rc, err) == (0, ""), err
        data = json.loads(out)
        assert set(data) == JSON_KEYS
        assert data["query"] == q
        assert data["token_budget"] == 8000 and data["encoding"] == "o200k_base"
        assert data["actual_tokens_of"] == "markdown"
        assert data["sections_selected"] == len(data["sections"]) > 0
        assert data["documents_scanned"] == 11
        for doc in data["documents"]:
            assert set(doc) == DOC_KEYS
            assert tuple(doc["factors"]) == FACTOR_KEYS
            assert 0.0 <= doc["relevance"] <= 1.0 and 0.0 <= doc["canonicality"] <= 1.0
            assert doc["score"] == pytest.approx(0.7 * doc["relevance"] + 0.3 * doc["canonicality"], abs=2e-4)
            total = min(max(sum(doc["factors"].values()), 0.0), 1.0)
            assert doc["canonicality"] == pytest.approx(total, abs=5e-4)
            assert doc["factors"]["baseline"] == 0.5
            assert doc["factors"]["recency"] in (-0.1, 0.0, 0.1)
            assert 0.0 <= doc["factors"]["links"] <= 0.15
            assert doc["sections_included"] >= 1
        for sec in data["sections"]:
            assert sec["line_start"] <= sec["line_end"] <= file_lines(fx_dir, sec["path"])
    # the factors say why: status and path of the fixture's pages
    rc, out, _ = cli(
        capsys,
        "--db",
        fx_db,
        "assemble",
        "deploy configuration retry restart notes",
        "--format",
        "json",
        "--sections",
        "40",
        "--max-tokens",
        "20000",
    )
    docs = {d["path"]: d for d in json.loads(out)["documents"]}
    assert docs["docs/guides/legacy-deploy.md"]["factors"]["status"] == -0.3
    assert docs["docs/guides/configuration.md"]["factors"]["status"] == -0.2
    assert docs["docs/guides/configuration.md"]["status"] == "draft"
    assert docs["docs/architecture/overview.md"]["factors"]["status"] == 0.2
    assert docs["docs/architecture/overview.md"]["factors"]["path"] == 0.2
    assert docs["docs/scratch/old-notes.md"]["factors"]["path"] == -0.3
    assert docs["docs/runbooks/RUNBOOK.md"]["factors"]["filename"] == 0.1
    assert docs["docs/guides/deploy.md"]["factors"]["links"] > 0.0  # four pages link to it


# ----------------------------------------------------------------------------- budget honesty


@pytest.fixture(scope="module")
def corpora(fx_engine: Docmentor, httpx_engine: Docmentor, fx_dir: Path) -> dict[str, tuple[Docmentor, Path]]:
    return {"fx": (fx_engine, fx_dir), "httpx": (httpx_engine, HTTPX)}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    corpus=st.sampled_from(["fx", "httpx"]),
    words=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=8),
    budget=st.one_of(st.sampled_from([1000, 4000, 8000, 16000]), st.integers(200, 20000)),
    depth=st.sampled_from([0, 1, 2]),
)
def test_budget_is_honest_for_random_queries(
    corpora: dict[str, tuple[Docmentor, Path]], corpus: str, words: list[str], budget: int, depth: int
) -> None:
    engine, root = corpora[corpus]
    digest = assemble_context(engine, " ".join(words), max_tokens=budget, depth=depth, allow_empty=True)
    sources = check_digest(digest.markdown, budget, {corpus: root})
    assert digest.actual_tokens == recount(digest.markdown)
    assert [(s.candidate.path, s.line_start, s.line_end) for s in digest.sections] == sources
    if depth == 0:
        assert all(s.candidate.origin == "search" for s in digest.sections)


def test_budget_is_honest_on_every_labelled_question(httpx_engine: Docmentor) -> None:
    questions = [
        json.loads(line)["query"]
        for line in QUESTIONS.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(questions) == 6
    worst = 0.0
    for q in questions:
        for budget in (1000, 4000, 8000, 16000):
            digest = assemble_context(httpx_engine, q, max_tokens=budget)
            check_digest(digest.markdown, budget, {"httpx": HTTPX})
            worst = max(worst, recount(digest.markdown) / budget)
    assert worst <= 1.0


def test_other_encodings_count_exactly(fx_engine: Docmentor) -> None:
    digest = assemble_context(
        fx_engine, GOLDEN_QUESTIONS["deploy"], max_tokens=1000, encoding="cl100k_base", now=NOW
    )
    real = int(toktok.batch_count([digest.markdown], "cl100k_base")[0])
    assert digest.actual_tokens == real <= 1000
    assert "**Encoding:** cl100k_base" in digest.markdown


# ----------------------------------------------------------------------------- labelled questions
# (whole-corpus checks — the dev sets, the comparison with the shared evaluator — are in
# benchmarks/corpus_checks.py: `make eval`)


def test_eval_assemble_on_labelled_questions(
    capsys: pytest.CaptureFixture[str], httpx_db: str, tmp_path: Path
) -> None:
    rc, out, err = cli(capsys, "--db", httpx_db, "eval", "assemble", QUESTIONS, "--max-tokens", "2000")
    assert (rc, err) == (0, ""), err
    lines = out.splitlines()
    assert len(lines) == 7
    row = re.compile(r"^slice-\d\t[01]\.\d\d\t(pass|FAIL)\t\d+ tokens(\tmissing: .+)?$")
    for line in lines[:-1]:
        assert row.match(line), line
        assert int(line.split("\t")[3].split()[0]) <= 2000
    assert lines[-1] == "passed 6/6 (100%), mean coverage 1.00", out
    # a string no digest holds: that question fails, and says what is missing
    one = tmp_path / "one.jsonl"
    one.write_text(
        json.dumps(
            {"id": "lost", "query": "timeouts", "expected_contains": ["zqxj-not-in-httpx", "Timeout"]}
        ),
        encoding="utf-8",
    )
    rc, out, err = cli(capsys, "--db", httpx_db, "eval", "assemble", one, "--max-tokens", "2000")
    assert (rc, err) == (0, "")
    assert out.splitlines()[0].startswith("lost\t0.50\tFAIL\t")
    assert out.splitlines()[0].endswith("\tmissing: zqxj-not-in-httpx")
    assert out.splitlines()[-1] == "passed 0/1 (0%), mean coverage 0.50"
    # words of the question alone are no coverage: the digest's header and usage note repeat
    # the question, its documentation does not hold them (a tour: they always passed)
    one.write_text(
        json.dumps(
            {
                "id": "echo",
                "query": "use the flux capacitor quantum mode",
                "expected_contains": ["flux capacitor"],
            }
        ),
        encoding="utf-8",
    )
    rc, out, err = cli(capsys, "--db", httpx_db, "eval", "assemble", one, "--max-tokens", "2000")
    assert rc == 0 and out.splitlines()[0].startswith("echo\t0.00\tFAIL\t"), out


def test_eval_search_scores_what_search_returns(
    capsys: pytest.CaptureFixture[str], httpx_db: str, httpx_engine: Docmentor
) -> None:
    rc, out, err = cli(capsys, "--db", httpx_db, "eval", "search", QUESTIONS)
    assert (rc, err) == (0, ""), err
    lines = out.splitlines()
    assert lines[-3] == "questions=6"
    doc_line = re.fullmatch(
        r"document mrr=(\d\.\d{3}) r@1=(\d\.\d{3}) r@5=(\d\.\d{3}) r@10=(\d\.\d{3}) ndcg=(\d\.\d{3})",
        lines[-2],
    )
    sec_line = re.fullmatch(r"section  mrr=(\d\.\d{3}) r@5=(\d\.\d{3}) ndcg=(\d\.\d{3})", lines[-1])
    assert doc_line and sec_line, lines[-2:]
    # document MRR recomputed from the hits `search --source httpx --limit 10` gives
    questions = [
        json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    reciprocal = []
    for q in questions:
        answers = {lab["path"] for lab in q["relevant"] if lab["grade"] == 2}
        docs = list(dict.fromkeys(h.path for h in httpx_engine.search(q["query"], source="httpx", limit=10)))
        reciprocal.append(next((1 / (i + 1) for i, p in enumerate(docs) if p in answers), 0.0))
    assert float(doc_line[1]) == pytest.approx(sum(reciprocal) / len(reciprocal), abs=1e-3)
    assert float(doc_line[1]) >= 0.8
    # the JSON form says the same
    rc, out, _ = cli(capsys, "--db", httpx_db, "eval", "search", QUESTIONS, "--json")
    data = json.loads(out)
    assert data["summary"]["document"]["mrr"] == pytest.approx(float(doc_line[1]), abs=1e-3)
    assert data["summary"]["section"]["mrr"] == pytest.approx(float(sec_line[1]), abs=1e-3)
    assert [q["id"] for q in data["questions"]] == [f"slice-{i}" for i in range(1, 7)]


def test_eval_holds_a_run_to_minimum_figures(
    capsys: pytest.CaptureFixture[str], httpx_db: str, tmp_path: Path
) -> None:
    """`--min NAME=VALUE` (repeatable): exit 1 after the results, naming the figures below
    their minimum, so CI can gate on labelled questions; a name the harness has not, or a
    value that is no share, is a usage error before anything runs."""
    rc, out, err = cli(
        capsys, "--db", httpx_db, "eval", "search", QUESTIONS, "--min", "mrr=0.5", "--min", "section.r@5=0"
    )
    assert (rc, err) == (0, ""), err
    label = json.loads(QUESTIONS.read_text(encoding="utf-8").splitlines()[0])["relevant"][0]
    missed = tmp_path / "missed.jsonl"  # a question its labelled page does not answer
    missed.write_text(
        json.dumps({"query": "zqxv flux capacitor", "relevant": [{**label, "grade": 2}]}) + "\n"
    )
    rc, out, err = cli(
        capsys, "--db", httpx_db, "eval", "search", missed, "--json", "--min", "mrr=0.5", "--min", "r@10=0"
    )
    assert json.loads(out)["summary"]["document"]["mrr"] == 0  # the results are written all the same
    assert rc == 1 and err == "error: below the minimum: mrr 0.0000 < 0.5\n", err
    rc, _, err = cli(capsys, "--db", httpx_db, "eval", "search", QUESTIONS, "--min", "mmr=0.5")
    assert rc == 2 and err.startswith("error: --min: search has no figure 'mmr'; did you mean 'mrr'?"), err
    rc, _, err = cli(capsys, "--db", httpx_db, "eval", "search", QUESTIONS, "--min", "mrr=80")
    assert rc == 2 and "a number from 0 to 1" in err, err
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"query": "flux capacitor", "expected_contains": ["flux capacitor"]}) + "\n")
    rc, _, err = cli(
        capsys, "--db", httpx_db, "eval", "assemble", one, "--max-tokens", "2000", "--min", "pass_rate=1"
    )
    assert rc == 1 and err.startswith("error: below the minimum: pass_rate 0.0000 < 1"), err
    rc, _, err = cli(capsys, "--db", httpx_db, "eval", "api", one, "--min", "recall=1")
    assert rc == 2 and "known: top1, top3, mrr" in err, err


def test_eval_search_warns_of_a_labelled_heading_its_document_does_not_have(
    capsys: pytest.CaptureFixture[str], httpx_db: str, tmp_path: Path
) -> None:
    """A label whose heading was renamed (or misspelt) can only miss: said, as a label whose
    path is not indexed is (a tour: section MRR fell to 0 without a word)."""
    first = json.loads(QUESTIONS.read_text(encoding="utf-8").splitlines()[0])
    label = next(lab for lab in first["relevant"] if lab.get("heading"))
    wrong = {**first, "relevant": [{**label, "heading": "A Heading Nobody Wrote"}]}
    path = tmp_path / "renamed.jsonl"
    path.write_text(json.dumps(wrong) + "\n", encoding="utf-8")
    rc, _, err = cli(capsys, "--db", httpx_db, "eval", "search", path)
    assert rc == 0 and err.startswith(
        f"warning: 1 labelled heading(s) not in their document, scored as misses: {label['path']}#A Heading Nobody Wrote"
    ), err
    rc, _, err = cli(capsys, "--db", httpx_db, "eval", "search", QUESTIONS)
    assert (rc, err) == (0, ""), err  # the fixture's own headings are all there


def test_eval_search_labels_relative_to_the_folder_above_the_source(
    capsys: pytest.CaptureFixture[str], httpx_db: str, new_index: Callable[[str], str], tmp_path: Path
) -> None:
    # the labels say docs/advanced/x.md; a source added at docs/ stores advanced/x.md
    docs_db = _index(new_index("httpx-docs"), httpx=HTTPX / "docs")
    rc, root_out, _ = cli(capsys, "--db", httpx_db, "eval", "search", QUESTIONS, "--json")
    rc2, docs_out, err = cli(capsys, "--db", docs_db, "eval", "search", QUESTIONS, "--json")
    assert (rc, rc2, err) == (0, 0, "")
    ours, theirs = json.loads(docs_out)["summary"], json.loads(root_out)["summary"]
    assert ours["document"] == pytest.approx(theirs["document"], abs=0.01)  # the root also has README.md
    assert ours["section"] == pytest.approx(theirs["section"], abs=0.01)
    # labels that name nothing indexed: one clear error, not zeros
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(
        json.dumps({"query": "timeouts", "relevant": [{"path": "elsewhere/x.md", "grade": 2}]}) + "\n",
        encoding="utf-8",
    )
    rc, out, err = cli(capsys, "--db", docs_db, "eval", "search", foreign)
    assert (rc, out) == (2, "")  # a usage error: the labelled set does not fit the index
    assert one_error(err).startswith(
        "error: none of the 1 labelled documents is indexed (first: elsewhere/x.md)"
    )
    # some missing: scored as misses, with a warning
    foreign.write_text(
        json.dumps({"query": "timeouts", "relevant": [{"path": "elsewhere/x.md", "grade": 2},
                                                     {"path": "docs/advanced/timeouts.md", "grade": 2}]}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    rc, out, err = cli(capsys, "--db", docs_db, "eval", "search", foreign)
    assert rc == 0
    assert err == "warning: 1 labelled document(s) not indexed, scored as misses: elsewhere/x.md\n"


def test_align_labels_renames_by_the_common_folder_only() -> None:
    from docmentor.evaluation import align_labels

    qs: list[dict[str, Any]] = [
        {"query": "a", "relevant": [{"path": "docs/a/x.md"}, {"path": "docs/b.md"}]},
        {"query": "b", "relevant": [{"path": "other/index.md"}, {"path": "c.md"}]},
    ]
    out, renamed, unmatched = align_labels(qs, {"a/x.md", "b.md", "z/index.md", "c.md"})
    assert [[lab["path"] for lab in q["relevant"]] for q in out] == [
        ["a/x.md", "b.md"],
        ["other/index.md", "c.md"],
    ]
    assert renamed == {"a/x.md": "docs/a/x.md", "b.md": "docs/b.md"}
    assert unmatched == ["other/index.md"]  # "index.md" elsewhere is a coincidence of names
    assert qs[0]["relevant"][0]["path"] == "docs/a/x.md"  # the input is not changed
    # a label is renamed only to an indexed path it ends with, never to a same-named page
    one = [{"query": "q", "relevant": [{"path": "guide/install.md"}, {"path": "x.md"}]}]
    assert align_labels(one, {"admin/install.md", "sub/x.md"})[2] == ["guide/install.md", "x.md"]
    # an llms.txt source's leading slash
    out, renamed, _ = align_labels([{"query": "q", "relevant": [{"path": "docs/x.md"}]}], {"/docs/x.md"})
    assert out[0]["relevant"][0]["path"] == "/docs/x.md" and renamed == {"/docs/x.md": "docs/x.md"}


# ----------------------------------------------------------------------------- CLI


def test_cli_assemble_prints_the_markdown(
    capsys: pytest.CaptureFixture[str], fx_db: str, fx_dir: Path
) -> None:
    rc, out, err = cli(capsys, "--db", fx_db, "assemble", GOLDEN_QUESTIONS["deploy"], "--max-tokens", "4000")
    assert (rc, err) == (0, ""), err
    assert out.startswith(f'# Context Digest for: "{GOLDEN_QUESTIONS["deploy"]}"\n')
    assert "**Token Budget:** 4000\n" in out
    check_digest(out, 4000, {"fx": fx_dir})
    assert "### Cross-Reference: " in out


def test_cli_output_file(
    capsys: pytest.CaptureFixture[str], fx_db: str, fx_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "context.md"
    rc, out, err = cli(capsys, "--db", fx_db, "assemble", "retry policy", "--output", target)
    assert rc == 0 and out == ""
    md = target.read_text(encoding="utf-8")
    n = len(SOURCE_LINE.findall(md))
    assert n > 1 and err == f"wrote {target} ({recount(md)} tokens, {n} sections)\n"
    check_digest(md, 8000, {"fx": fx_dir})
    target_json = tmp_path / "context.json"
    rc, out, _ = cli(capsys, "--db", fx_db, "assemble", "retry policy", "-f", "json", "-o", target_json)
    assert rc == 0 and out == ""
    assert set(json.loads(target_json.read_text(encoding="utf-8"))) == JSON_KEYS


def test_cli_source_filter(capsys: pytest.CaptureFixture[str], two_db: str) -> None:
    q = "deploy a new service"
    paths: dict[str | None, set[str]] = {}
    for source in (None, "fx", "ops"):
        extra = ["--source", source] if source else []
        rc, out, err = cli(capsys, "--db", two_db, "assemble", q, "--format", "json", *extra)
        assert (rc, err) == (0, ""), err
        data = json.loads(out)
        assert data["metadata"]["source"] == source
        paths[source] = {s["path"] for s in data["sections"]}
        assert {d["source"] for d in data["documents"]} == ({source} if source else {"fx", "ops"})
    assert paths["ops"] == {"deploy-notes.md"}
    assert "deploy-notes.md" not in paths["fx"] and "docs/guides/deploy.md" in paths["fx"]
    assert paths[None] >= {"deploy-notes.md", "docs/guides/deploy.md"}


def test_cli_sections_and_depth(capsys: pytest.CaptureFixture[str], fx_db: str) -> None:
    q = GOLDEN_QUESTIONS["deploy"]
    rc, out, _ = cli(capsys, "--db", fx_db, "assemble", q, "--format", "json", "--sections", "1")
    assert rc == 0
    secs = json.loads(out)["sections"]
    assert [s["origin"] for s in secs].count("search") == 1
    assert secs[0]["path"] == "docs/guides/deploy.md"
    rc, out, _ = cli(capsys, "--db", fx_db, "assemble", q, "--sections", "3")
    assert rc == 0 and len([b for b in re.findall(r"^### (?!Cross-Reference)", out, re.M)]) == 3
    rc, out, _ = cli(capsys, "--db", fx_db, "assemble", q, "--depth", "0")
    assert rc == 0
    assert "Cross-Reference" not in out and "Referenced by" not in out
    assert "- Cross-references followed: 0\n" in out
    rc, out, _ = cli(capsys, "--db", fx_db, "assemble", q, "--depth", "1")
    assert rc == 0 and "### Cross-Reference: " in out and "**Referenced by:** " in out


def test_cli_allow_empty(capsys: pytest.CaptureFixture[str], fx_db: str) -> None:
    q = "zyxwvut quaggaflux"
    rc, out, err = cli(capsys, "--db", fx_db, "assemble", q)
    assert rc == 1 and out == ""
    line = one_error(err)
    assert "nothing in the index matches" in line and "--allow-empty" in line
    rc, out, err = cli(capsys, "--db", fx_db, "assemble", q, "--allow-empty")
    assert (rc, err) == (0, "")
    assert "**Sections Selected:** 0\n" in out and "**Source:**" not in out
    assert "_Nothing in the index matched this question._" in out
    assert int(ACTUAL.findall(out)[0]) == recount(out) <= 8000
    rc, out, _ = cli(capsys, "--db", fx_db, "assemble", q, "--allow-empty", "--format", "json")
    data = json.loads(out)
    assert (data["sections"], data["documents"], data["sections_selected"]) == ([], [], 0)


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        (["--source", "nope"], "unknown source 'nope'", 1),
        (["--depth", "3"], "--depth must be 0, 1 or 2", 2),
        (["--depth", "-1"], "--depth must be 0, 1 or 2", 2),
        (["--max-tokens", "50"], "--max-tokens must be between 200 and 200000", 2),
        (["--sections", "0"], "--sections must be between 1 and 100", 2),
    ],
)
def test_cli_assemble_errors(
    capsys: pytest.CaptureFixture[str], fx_db: str, args: list[str], message: str, code: int
) -> None:
    """A value out of range is a usage error (exit 2); a source that is not there, exit 1."""
    rc, out, err = cli(capsys, "--db", fx_db, "assemble", "deploy", *args)
    assert (rc, out) == (code, "")
    assert message in one_error(err)


def test_cli_assemble_error_no_index_and_unwritable_output(
    capsys: pytest.CaptureFixture[str], fx_db: str, new_index: Callable[[str], str], tmp_path: Path
) -> None:
    nowhere = new_index("none")  # an empty folder or schema of the backend
    for _ in range(2):  # the first try made no index either
        rc, out, err = cli(capsys, "--db", nowhere, "assemble", "deploy")
        assert (rc, out) == (1, "")
        assert "no index " in one_error(err)
    if "://" not in nowhere:
        assert not (Path(nowhere) / "index.sqlite3").exists()
    bad = tmp_path / "missing-dir" / "out.md"
    rc, out, err = cli(capsys, "--db", fx_db, "assemble", "deploy", "--output", bad)
    assert (rc, out) == (2, "")  # the path given is at fault: a usage error
    assert f"cannot write {bad}" in one_error(err)
    rc, out, err = cli(capsys, "--db", fx_db, "assemble", "deploy", "--output", tmp_path)  # a folder
    assert (rc, out) == (2, "")
    assert "cannot write" in one_error(err)


def test_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], fx_db: str) -> None:
    for args in (["assemble"], ["assemble", "deploy", "--max-tokens", "many"], ["eval", "assemble"]):
        rc, out, err = cli(capsys, "--db", fx_db, *args)
        assert (rc, out) == (2, ""), args
        one_error(err)


def test_cli_eval_errors(
    capsys: pytest.CaptureFixture[str], fx_db: str, new_index: Callable[[str], str], tmp_path: Path
) -> None:
    """Each fault of the question file is a usage error (exit 2); no index at all is exit 1."""
    missing = tmp_path / "nope.jsonl"
    for kind in ("search", "assemble"):
        rc, out, err = cli(capsys, "--db", fx_db, "eval", kind, missing)
        assert (rc, out) == (2, "")
        assert f"cannot read {missing}" in one_error(err)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"query": "deploy", "expected_contains": ["deploy"]}\n{not json\n', encoding="utf-8")
    for kind in ("search", "assemble"):
        rc, out, err = cli(capsys, "--db", fx_db, "eval", kind, broken)
        assert (rc, out) == (2, "")
        assert f"{broken}:2: not JSON" in one_error(err)
    no_query = tmp_path / "no-query.jsonl"
    no_query.write_text('{"question": "deploy"}\n', encoding="utf-8")
    rc, _, err = cli(capsys, "--db", fx_db, "eval", "assemble", no_query)
    assert rc == 2 and f'{no_query}:1: each line needs a "query" string' in one_error(err)
    unlabelled = tmp_path / "plain.jsonl"
    unlabelled.write_text('{"query": "deploy"}\n\n{"query": "retry"}\n', encoding="utf-8")
    rc, out, err = cli(capsys, "--db", fx_db, "eval", "search", unlabelled)
    assert (rc, out) == (2, "") and 'no question has "relevant" labels' in one_error(err)
    rc, out, err = cli(capsys, "--db", fx_db, "eval", "assemble", unlabelled)
    assert (rc, out) == (2, "") and 'no question has "expected_contains"' in one_error(err)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    rc, _, err = cli(capsys, "--db", fx_db, "eval", "assemble", empty)
    assert rc == 2 and "no questions" in one_error(err)
    # labelled questions but no index
    ok = tmp_path / "ok.jsonl"
    ok.write_text('{"query": "deploy", "expected_contains": ["deploy"]}\n', encoding="utf-8")
    rc, _, err = cli(capsys, "--db", new_index("none"), "eval", "assemble", ok)
    assert rc == 1 and "no index " in one_error(err)


def test_cli_eval_assemble_on_the_fixture(
    capsys: pytest.CaptureFixture[str], fx_db: str, tmp_path: Path
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps(
            {
                "id": "a",
                "query": "what is our retry policy",
                "expected_contains": ["full jitter", "Idempotency-Key"],
            }
        )
        + "\n"
        + json.dumps(
            {
                "id": "b",
                "query": "retry policy",
                "expected_contains": ["full jitter", "no such phrase at all"],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    rc, out, err = cli(capsys, "--db", fx_db, "eval", "assemble", questions, "--json")
    assert (rc, err) == (0, ""), err
    data = json.loads(out)
    by_id = {r["id"]: r for r in data["questions"]}
    assert (by_id["a"]["coverage"], by_id["a"]["passed"], by_id["a"]["missing"]) == (1.0, True, [])
    assert (by_id["b"]["coverage"], by_id["b"]["passed"]) == (0.5, False)
    assert by_id["b"]["missing"] == ["no such phrase at all"]
    assert data["summary"] == {
        "questions": 2,
        "passed": 1,
        "pass_rate": 0.5,
        "mean_coverage": 0.75,
        "max_tokens": 8000,
    }


# ----------------------------------------------------------------------------- MCP


def call(engine: Docmentor, args: dict[str, Any]) -> CallToolResult:
    async def go() -> CallToolResult:
        async with Client(build_server(engine)) as client:
            return await client.call_tool("assemble_context", args)

    return anyio.run(go)


def text_of(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


def test_mcp_tool_is_listed_read_only(fx_engine: Docmentor) -> None:
    async def go() -> Any:
        async with Client(build_server(fx_engine)) as client:
            return await client.list_tools()

    tools = {t.name: t for t in anyio.run(go).tools}
    tool = tools["assemble_context"]
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    props = tool.input_schema["properties"]
    assert set(props) == {"query", "max_tokens", "depth", "sections", "source", "version", "format"}
    assert tool.input_schema["required"] == ["query"]
    assert props["max_tokens"]["default"] == 8000 and props["format"]["default"] == "markdown"


def test_mcp_markdown_and_json(fx_engine: Docmentor, fx_dir: Path) -> None:
    q = GOLDEN_QUESTIONS["deploy"]
    result = call(fx_engine, {"query": q, "max_tokens": 4000})
    assert not result.is_error
    md = text_of(result)
    assert md.startswith(f'# Context Digest for: "{q}"')
    check_digest(md, 4000, {"fx": fx_dir})
    summary = result.structured_content
    assert summary is not None
    assert summary["query"] == q and summary["token_budget"] == 4000
    assert summary["actual_tokens"] == recount(md) <= summary["token_budget"]
    assert summary["sections_selected"] == len(SOURCE_LINE.findall(md))
    assert summary["documents"][0]["path"] == "docs/guides/deploy.md"
    # the same library call as the CLI: the same digest but for the generation time in its header
    body = lambda text: text.split("\n---\n", 1)[1]  # noqa: E731
    assert body(md) == body(assemble_context(fx_engine, q, max_tokens=4000).markdown)

    result = call(fx_engine, {"query": q, "format": "json", "depth": 0, "source": "fx"})
    assert not result.is_error
    data = json.loads(text_of(result))
    assert set(data) == JSON_KEYS
    assert {s["origin"] for s in data["sections"]} == {"search"}
    assert result.structured_content is not None
    assert result.structured_content["actual_tokens"] == data["actual_tokens"] <= 8000


def test_mcp_nothing_matched_and_errors(fx_engine: Docmentor) -> None:
    result = call(fx_engine, {"query": "zyxwvut quaggaflux"})
    assert not result.is_error
    text = text_of(result)
    assert text.startswith("# Context Digest for:")
    assert "Nothing in the index matched" in text and "search_docs" in text
    assert result.structured_content is not None and result.structured_content["sections_selected"] == 0

    async def go() -> list[CallToolResult]:
        async with Client(build_server(fx_engine)) as client:
            return [
                await client.call_tool("assemble_context", {"query": "deploy", "format": "yaml"}),
                await client.call_tool("assemble_context", {"query": "deploy", "source": "nope"}),
                await client.call_tool("assemble_context", {"query": "   "}),
                await client.call_tool("assemble_context", {"query": "deploy"}),  # the session survives
            ]

    bad_format, bad_source, blank, fine = anyio.run(go)
    for r in (bad_format, bad_source, blank):
        assert r.is_error and "Traceback" not in text_of(r)
    assert "format" in text_of(bad_format) and "markdown" in text_of(bad_format)
    assert "unknown source 'nope'" in text_of(bad_source)
    assert "empty question" in text_of(blank)
    assert not fine.is_error


@pytest.fixture(scope="module")
def big_engine(module_tmp: Path, new_index: Callable[[str], str]) -> Iterator[Docmentor]:
    """Many long sections that all match "widget calibration": more than 20k tokens of them."""
    rng = random.Random(7)
    filler = ["gear", "spring", "lever", "dial", "torque", "sensor", "offset", "drift", "sample", "bench"]
    root = module_tmp / "widgets"
    root.mkdir(exist_ok=True)
    for i in range(30):
        parts = [f"# Widget calibration part {i}\n"]
        for j in range(4):
            para = " ".join(rng.choice(filler) for _ in range(220))
            parts.append(f"## Widget calibration step {i}.{j}\n\nWidget calibration: {para}.\n")
        (root / f"part-{i:02d}.md").write_text("\n".join(parts), encoding="utf-8")
    eng = Docmentor(new_index("widgets"))
    eng.add(str(root), name="widgets")
    yield eng
    eng.close()


def test_mcp_caps_the_budget_at_20k(big_engine: Docmentor) -> None:
    q = "widget calibration"
    uncapped = assemble_context(big_engine, q, max_tokens=100_000, sections=100)
    assert uncapped.actual_tokens > MAX_DIGEST_TOKENS  # so the cap below is what keeps it small
    refused = call(big_engine, {"query": q, "max_tokens": 100_000, "sections": 100})
    assert (
        text_of(refused)
        == "max_tokens must be between 200 and 20000, got 100000. Try: a value from 200 to 20000."
    )
    result = call(big_engine, {"query": q, "max_tokens": MAX_DIGEST_TOKENS, "sections": 100})
    assert not result.is_error
    summary = result.structured_content
    assert summary is not None
    assert summary["token_budget"] == MAX_DIGEST_TOKENS
    md = text_of(result)
    assert summary["actual_tokens"] == recount(md)
    assert MAX_DIGEST_TOKENS * 0.8 < summary["actual_tokens"] <= MAX_DIGEST_TOKENS


def test_mcp_small_budget_is_not_reported_as_nothing_matched(big_engine: Docmentor) -> None:
    # every section is one long sentence: none can be trimmed into the smallest budget
    result = call(big_engine, {"query": "widget calibration", "max_tokens": 200})
    assert not result.is_error
    summary = result.structured_content
    assert summary is not None
    assert summary["token_budget"] == 200 and summary["sections_selected"] == 0
    text = text_of(result)
    assert recount(text.split("\n\nNo matching section")[0]) == summary["actual_tokens"] <= 200
    assert "Nothing in the index matched" not in text
    assert "No matching section fit within max_tokens" in text


def test_relevance_threshold_is_reported(fx_engine: Docmentor) -> None:
    md = assemble_context(fx_engine, "retry", now=NOW).markdown
    assert f"- Relevance threshold: {RELEVANCE_THRESHOLD:.2f}\n" in md


def test_json_fitted_to_a_small_budget_reports_the_budget_asked_for(
    capsys: pytest.CaptureFixture[str], fx_db: str
) -> None:
    from docmentor.assemble.tokens import count_tokens

    q = GOLDEN_QUESTIONS["deploy"]
    rc, md, _ = cli(capsys, "--db", fx_db, "assemble", q, "--max-tokens", "700")
    rc2, out, _ = cli(capsys, "--db", fx_db, "assemble", q, "--format", "json", "--max-tokens", "700")
    assert rc == rc2 == 0
    assert "**Token Budget:** 700" in md
    data = json.loads(out)
    assert data["token_budget"] == 700
    # the budget counts what is printed, in both formats (docs/assemble.md)
    assert count_tokens(md, "o200k_base") <= 700
    assert count_tokens(out, "o200k_base") <= 700
    assert data["sections"]


def test_a_tight_budget_takes_a_documents_best_sections_first_and_shows_them_in_reading_order(
    index_location: str, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    filler = "\n\n".join(
        f"Paragraph {k} about the widget in general, its colour and its size." for k in range(12)
    )
    (docs / "guide.md").write_text(
        "# Guide\n\n"
        f"## Colours\n\nThe widget timeout is rarely mentioned here. {filler}\n\n"
        f"## Sizes\n\nWidget sizes and one timeout. {filler}\n\n"
        "## Timeouts\n\nSet the widget timeout with `timeout=5`: the widget timeout applies to every call.\n",
        encoding="utf-8",
    )
    eng = Docmentor(index_location)
    eng.add(str(docs), name="d")
    digest = assemble_context(eng, "how do I set the widget timeout", max_tokens=700, depth=0)
    headings = [s.candidate.heading for s in digest.sections]
    assert "Timeouts" in headings  # the best section, though it comes last in the file
    lines = [s.line_start for s in digest.sections]
    assert lines == sorted(lines)  # shown in the page's order
    eng.close()


def test_eval_search_without_grades_counts_every_labelled_section() -> None:
    """Labels without a grade (1 by default) are all answers, at the section level as at the
    document level: the top hit being the one labelled section is MRR 1, not 0."""
    from docmentor.evaluation import score_search

    q = {"id": "q", "query": "client", "relevant": [{"path": "api/client.md", "heading": "Client API"}]}
    hit = {
        "path": "api/client.md",
        "heading": "Client API",
        "heading_path": ["Client API"],
        "line_start": 1,
        "line_end": 4,
    }
    other = {**hit, "path": "other.md", "heading": "Other", "heading_path": ["Other"]}
    row = score_search(q, [hit], lambda _path: [])
    assert row["doc"]["mrr"] == row["section"]["mrr"] == row["section"]["r@5"] == 1.0
    assert score_search(q, [other, hit], lambda _path: [])["section"]["mrr"] == 0.5
    graded = {**q, "relevant": [*q["relevant"], {"path": "other.md", "heading": "Other", "grade": 2}]}
    assert score_search(graded, [hit, other], lambda _path: [])["section"]["mrr"] == 0.5  # grade 2 first
    # grade 0 says "not relevant": never an answer, and labels all 0 score 0 (it divided by zero)
    zero = {**q, "relevant": [{"path": "other.md", "heading": "Other", "grade": 0}]}
    row = score_search(zero, [other], lambda _path: [])
    assert row["doc"] == {"mrr": 0.0, "r@1": 0.0, "r@5": 0.0, "r@10": 0.0, "ndcg": 0.0}
    mixed = {**q, "relevant": [*q["relevant"], {"path": "other.md", "heading": "Other", "grade": 0}]}
    assert score_search(mixed, [other, hit], lambda _path: [])["doc"]["mrr"] == 0.5


def test_a_cross_reference_comes_only_with_the_section_that_links_to_it(tmp_path: Path) -> None:
    """When the budget leaves out the section holding a link, the page it links to is not
    brought as a cross-reference of nothing in the digest."""
    docs = tmp_path / "docs"
    docs.mkdir()
    long = " ".join(
        f"Retries back off exponentially, attempt {i} waits longer than the last." for i in range(120)
    )
    (docs / "retries.md").write_text(
        f"# Retries\n\nFirst read [the setup](setup.md).\n\n{long}\n", encoding="utf-8"
    )
    (docs / "setup.md").write_text("# Setup\n\nInstall it with pip.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index", embeddings=False)
    engine.add(str(docs), name="d")
    roomy = assemble_context(engine, "retry backoff", max_tokens=8000, depth=1, now=NOW)
    assert [(s.candidate.path, s.candidate.origin) for s in roomy.sections] == [
        ("retries.md", "search"),
        ("setup.md", "crossref"),
    ]
    for budget in (200, 260, 320):
        digest = assemble_context(engine, "retry backoff", max_tokens=budget, depth=1, now=NOW)
        shown = {(s.candidate.path, s.candidate.origin) for s in digest.sections}
        if ("setup.md", "crossref") in shown:  # only with the linking line shown
            (link,) = [s for s in digest.sections if s.candidate.path == "retries.md"]
            assert link.line_start <= 3 <= link.line_end, (budget, digest.sections)
        assert shown <= {("retries.md", "search"), ("setup.md", "crossref")}, shown
    engine.close()


def test_the_top_documents_of_a_digest_over_several_sources_name_their_source(tmp_path: Path) -> None:
    """Pages of two libraries in one digest are listed as SOURCE:PATH, the reference get_doc
    takes (an agent tour: another library's pages sat among the first one's, unnamed); a
    digest of one source lists bare paths as before."""
    from docmentor.engine import Docmentor

    for name, word in (("alpha", "retries"), ("beta", "retries")):
        docs = tmp_path / name
        docs.mkdir()
        (docs / "guide.md").write_text(
            f"# Guide\n\nConfigure {word} with a policy of {name}.\n", encoding="utf-8"
        )
    with Docmentor(tmp_path / "db", embeddings=False) as engine:
        engine.add(tmp_path / "alpha", name="alpha")
        engine.add(tmp_path / "beta", name="beta")
        both = assemble_context(engine, "configure retries", max_tokens=3000).markdown
        assert "**alpha:guide.md**" in both and "**beta:guide.md**" in both, both
        engine.remove("beta")
        one = assemble_context(engine, "configure retries", max_tokens=3000).markdown
        assert "1. **guide.md**" in one, one


def test_a_labelled_heading_with_a_link_is_found_as_the_scoring_finds_it(tmp_path: Path) -> None:
    """A heading written with a link (``## The `Client` [link](x.md)``) is stored as its words;
    a label that copies the markup is that heading, not a missing one (a review)."""
    from docmentor import check_labels
    from docmentor.engine import Docmentor

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.md").write_text(
        "# P\n\n## The `Client` [link](x.md)\n\nText about the client.\n", encoding="utf-8"
    )
    with Docmentor(tmp_path / "db", embeddings=False) as engine:
        engine.add(docs, name="d")
        q = {
            "id": "q",
            "query": "client",
            "relevant": [{"path": "page.md", "heading": "The `Client` [link](x.md)"}],
        }
        assert check_labels(engine, [q]).headings_missing == ()
        gone = {**q, "relevant": [{"path": "page.md", "heading": "Nowhere"}]}
        assert check_labels(engine, [gone]).headings_missing == ("page.md#Nowhere",)
