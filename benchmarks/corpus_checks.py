"""Whole-corpus checks: what the unit tests check on small slices of real documentation
(tests/fixtures/httpx, lancedb, backstage_adrs), checked here on the whole shared corpora and
the httpx dev set. `make eval` runs them after the dev-suite table:

    .venv/bin/pytest -q benchmarks/corpus_checks.py

They read ``../shared`` (``DOCMENTOR_SHARED`` points elsewhere) and fail, not skip, without it.
Nothing in the package or in tests/ needs that folder.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DOCMENTOR_SHARED") or ROOT.parent / "shared")
CORPORA = SHARED / "corpora"
HTTPX = CORPORA / "httpx"
LANCEDB = CORPORA / "lancedb"
DEV_SET = SHARED / "eval" / "httpx.jsonl"

# As in tests/conftest.py: words only (the figures below were measured so), and nothing under ~.
os.environ["DOCMENTOR_EMBEDDINGS"] = "0"
os.environ["DOCMENTOR_HOME"] = tempfile.mkdtemp(prefix="docmentor-corpus-checks-")
os.environ.pop("DOCMENTOR_DB", None)
os.environ.pop("DOCMENTOR_SOURCES", None)
sys.path.insert(0, str(ROOT / "tests"))  # the tests' helpers: digest invariants, fake API surfaces

import toktok  # noqa: E402

from docmentor import assemble_context  # noqa: E402
from docmentor.assemble import bpe  # noqa: E402
from docmentor.clarity.checks import SiteFiles, checked_document, run_checks  # noqa: E402
from docmentor.clarity.models import Issue  # noqa: E402
from docmentor.engine import Docmentor  # noqa: E402
from docmentor.library.examples.examples import detect_languages, extract_examples  # noqa: E402
from docmentor.library.examples.matcher import match_examples  # noqa: E402
from docmentor.parse import parse_document  # noqa: E402
from docmentor.sources.local import scan_folder  # noqa: E402
from test_assemble import check_digest, cli, recount  # noqa: E402
from test_readme_examples import lancedb_surface, lancedb_ts_surface  # noqa: E402

if not CORPORA.is_dir() or not DEV_SET.is_file():
    raise pytest.UsageError(
        f"the shared corpora are not at {SHARED}: these checks need them (set DOCMENTOR_SHARED)"
    )


def _index(db: Path, **sources: Path) -> Path:
    engine = Docmentor(db)
    for name, folder in sources.items():
        engine.add(str(folder), name=name)
    engine.close()
    return db


@pytest.fixture(scope="module")
def httpx_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _index(tmp_path_factory.mktemp("httpx") / "db", httpx=HTTPX)


@pytest.fixture(scope="module")
def httpx_engine(httpx_db: Path) -> Iterator[Docmentor]:
    engine = Docmentor(httpx_db, create=False)
    yield engine
    engine.close()


def _questions() -> list[dict[str, object]]:
    return [json.loads(line) for line in DEV_SET.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- search and parsing on the whole httpx corpus -------------------------------------------------


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("How do I set a timeout?", "docs/advanced/timeouts.md"),
        ("proxies", "docs/advanced/proxies.md"),
        ("max_connections", "docs/advanced/resource-limits.md"),
        ("HTTP/2", "docs/http2.md"),
        ("client side certificates", "docs/advanced/ssl.md"),
    ],
)
def test_httpx_smoke(httpx_engine: Docmentor, query: str, path: str) -> None:
    hits = httpx_engine.search(query, source="httpx")
    assert hits[0].path == path, [(h.path, h.heading) for h in hits[:5]]


def test_httpx_titles_are_an_h1_or_the_file_name() -> None:
    by_path = {d.path: parse_document(d).title for d in scan_folder(HTTPX).documents}
    assert len(by_path) >= 20
    assert by_path["docs/advanced/ssl.md"] == "ssl.md"
    assert by_path["docs/advanced/timeouts.md"] == "timeouts.md"
    assert by_path["docs/quickstart.md"] == "QuickStart"


def test_lancedb_scan() -> None:
    started = time.perf_counter()
    scan = scan_folder(LANCEDB)
    assert time.perf_counter() - started < 1.5  # ~0.07 s on the dev machine
    assert len(scan.documents) > 200
    assert scan.skipped == []
    assert len(scan.warnings) == 4 and all("include section not found" in w for w in scan.warnings)


# -- token counts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", bpe.ENCODINGS)
def test_bpe_counts_equal_toktok_on_the_corpora(encoding: str) -> None:
    data = bpe.build(encoding, toktok._encoding(encoding).token_byte_values(), "corpus-checks")
    counter = bpe.Counter(encoding, bpe.load(data, encoding, "corpus-checks"))
    files = sorted(
        p for p in CORPORA.rglob("*") if p.is_file() and p.suffix in {".md", ".mdx", ".rst", ".txt"}
    )
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    texts += [s for t in texts for s in t.split("\n#")]
    assert len(texts) > 5000
    assert counter.count_many(texts) == toktok.batch_count(texts, encoding)


# -- clarity checks on three corpora ---------------------------------------------------------------


def _check_corpus(root: Path) -> dict[str, list[Issue]]:
    files = SiteFiles(root)
    return {
        raw.path: run_checks(checked_document(raw, root=root, files=files)).issues
        for raw in scan_folder(root).documents
    }


def test_clarity_on_the_corpora(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="docmentor.clarity"):
        start = time.perf_counter()
        lancedb = _check_corpus(LANCEDB)
        elapsed = time.perf_counter() - start
        httpx = _check_corpus(HTTPX)
        backstage = _check_corpus(CORPORA / "backstage")
    assert not caplog.records, caplog.text  # no check crashed
    assert elapsed < 15
    assert len(lancedb) > 200 and len(httpx) > 20 and len(backstage) > 100
    every = [i for corpus in (lancedb, httpx, backstage) for issues in corpus.values() for i in issues]
    assert not [i for i in every if "--8<--" in i.context_quote or i.context_quote.lstrip().startswith(":::")]
    basic = {i.type for i in lancedb["docs/src/basic.md"]}
    assert "syntax_error" not in basic and "broken_link" not in basic and "undefined_name" not in basic
    assert not [
        i for i in lancedb["docs/src/search.md"] if i.type == "undefined_name" and "`db`" in i.message
    ]
    assert not [i for i in httpx["docs/api.md"] if i.type in ("broken_link", "empty_section")]
    assert not [i for i in lancedb["docs/src/reranking/custom_reranker.md"] if i.type == "syntax_error"]
    assert not [i for i in lancedb["docs/src/integrations/phidata.md"] if i.type == "syntax_error"]
    assert not [
        i
        for i in lancedb["docs/src/javascript/interfaces/WriteOptions.md"]
        if i.type == "inconsistent_terminology"
    ]
    # duplicate backstage headings (``### `spec.owner` [required]`` per kind) still resolve
    assert not [
        i
        for i in backstage["docs/features/software-catalog/descriptor-format.md"]
        if i.type == "broken_link" and "string-references" not in i.message
    ]
    assert any(i.type == "syntax_error" for i in httpx["docs/advanced/transports.md"])
    assert any(i.type == "syntax_error" for i in lancedb["docs/src/embeddings/embedding_functions.md"])


# -- examples of the whole LanceDB user guide ------------------------------------------------------


def test_lancedb_examples(tmp_path: Path) -> None:
    t0 = time.perf_counter()
    engine = Docmentor(tmp_path / "db")
    engine.add(str(LANCEDB / "docs" / "src"), name="lancedb", options={"base_paths": [str(LANCEDB)]})
    examples = extract_examples(engine, "lancedb", languages=None)
    counts = Counter(e.language for e in examples)
    assert {"python", "typescript"} <= set(detect_languages(examples))
    assert counts["python"] > 200 and counts["typescript"] > 200
    assert len({e.example_id for e in examples}) == len(examples)
    wanted = [e for e in examples if e.language in ("python", "typescript", "javascript")]
    surface, ts_surface = lancedb_surface(), lancedb_ts_surface()
    match_examples(wanted, surface, library="lancedb")
    match_examples(wanted, ts_surface, library="lancedb")
    matched = Counter(e.language for e in wanted if e.apis_used)
    assert matched["python"] > 50 and matched["typescript"] > 50
    connect = surface.resolve("lancedb.db.DBConnection.create_table")
    assert connect is not None and len(connect.examples) > 10
    by_id = {e.example_id: e for e in wanted}
    for entry in (*surface.entries, *ts_surface.entries):
        for example_id in entry.examples:
            assert entry.api_id in by_id[example_id].apis_used
    assert time.perf_counter() - t0 < 20


# -- the httpx dev set ------------------------------------------------------------------------------


def test_budget_is_honest_on_every_dev_question(httpx_engine: Docmentor) -> None:
    questions = [str(q["query"]) for q in _questions()]
    assert len(questions) == 30
    for q in questions:
        for budget in (1000, 4000, 8000, 16000):
            digest = assemble_context(httpx_engine, q, max_tokens=budget)
            check_digest(digest.markdown, budget, {"httpx": HTTPX})
            assert recount(digest.markdown) <= budget


def test_eval_assemble_on_the_dev_set(capsys: pytest.CaptureFixture[str], httpx_db: Path) -> None:
    rc, out, err = cli(
        capsys, "--db", str(httpx_db), "eval", "assemble", str(DEV_SET), "--max-tokens", "8000"
    )
    assert (rc, err) == (0, ""), err
    lines = out.splitlines()
    assert len(lines) == 31
    m = re.fullmatch(r"passed (\d+)/(\d+) \(\d+%\), mean coverage (\d\.\d\d)", lines[-1])
    assert m, lines[-1]
    passed, total = int(m[1]), int(m[2])
    assert total == 30
    assert passed / total >= 0.9, out
    assert passed == sum("\tpass\t" in line for line in lines[:-1])


def _evaluate_py() -> ModuleType:
    spec = importlib.util.spec_from_file_location("shared_evaluate", SHARED / "eval" / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_eval_search_matches_the_shared_evaluator(
    capsys: pytest.CaptureFixture[str], httpx_db: Path, httpx_engine: Docmentor
) -> None:
    rc, out, err = cli(capsys, "--db", str(httpx_db), "eval", "search", str(DEV_SET), "--json")
    assert (rc, err) == (0, ""), err
    summary = json.loads(out)["summary"]
    ev = _evaluate_py()
    rows = [
        ev.score_query(
            q, [h.to_dict() for h in httpx_engine.search(str(q["query"]), source="httpx", limit=10)], HTTPX
        )
        for q in _questions()
    ]

    def mean(level: str, key: str) -> float:
        return sum(r[level][key] for r in rows) / len(rows)

    for key in ("mrr", "r@1", "r@5", "r@10", "ndcg"):
        assert summary["document"][key] == pytest.approx(mean("doc", key), abs=1e-3), key
    for key in ("mrr", "r@5", "ndcg"):
        assert summary["section"][key] == pytest.approx(mean("section", key), abs=1e-3), key
    assert summary["document"]["mrr"] >= 0.88


def test_eval_search_labels_relative_to_the_folder_above_the_source(
    capsys: pytest.CaptureFixture[str], httpx_db: Path, tmp_path: Path
) -> None:
    docs_db = _index(tmp_path / "docs-db", httpx=HTTPX / "docs")
    rc, root_out, _ = cli(capsys, "--db", str(httpx_db), "eval", "search", str(DEV_SET), "--json")
    rc2, docs_out, err = cli(capsys, "--db", str(docs_db), "eval", "search", str(DEV_SET), "--json")
    assert (rc, rc2, err) == (0, 0, "")
    ours, theirs = json.loads(docs_out)["summary"], json.loads(root_out)["summary"]
    assert ours["document"] == pytest.approx(theirs["document"], abs=0.01)  # the root also has README.md
    assert ours["section"] == pytest.approx(theirs["section"], abs=0.01)
