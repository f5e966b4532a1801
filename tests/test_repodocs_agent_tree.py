"""An agent's run written as the Markdown tree (repodocs/agent_tree.py): the model's documents
where committed, the code's (marked) where not, every link resolving, byte-identical twice,
and served by ``docmentor search`` through ``repo-docs generate`` with a model."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError, UsageError
from docmentor.repodocs.agent import run_agent
from docmentor.repodocs.agent_tree import model_sections, write_agent_tree
from docmentor.repodocs.output import OutputError
from docmentor.repodocs.serve import repo_docs_progress, repo_docs_unit
from openai_server import OpenAIServer
from openai_server import openai_server as openai_server  # the fixture
from test_repodocs_agent import UNITS, Model, client_for, good_document
from test_repodocs_output import ANCHOR, broken_links

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
FAILED = "shop.util.clamp"
MARKED = "shop.pricing.discounted"
WORD = "quuxificated"  # a word only the model's document of MARKED holds


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    target = tmp_path / "sample"
    shutil.copytree(SAMPLE, target)
    return target


def scripted() -> Model:
    model = Model()
    model.scores[FAILED] = lambda n: {"consistency": 0.6, "completeness": 0.5, "helpfulness": 0.5}
    model.documents[MARKED] = lambda n: good_document(UNITS[MARKED]).replace(
        "It does its job.",
        f"It applies the {WORD} discount rule, with [`shop.util`](shop.util.md) ([code](shop/pricing.py)).",
    )
    return model


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def section_of(page: str, anchor: str) -> str:
    """The text of a component's section: from its anchor to the next anchor."""
    start = page.index(f'<a id="{anchor}"></a>')
    following = [m.start() for m in ANCHOR.finditer(page) if m.start() > start]
    return page[start : following[0] if following else len(page)]


def test_a_run_is_written_as_the_tree_with_the_models_text_and_the_codes_where_it_failed(
    openai_server: OpenAIServer, repo: Path, tmp_path: Path
) -> None:
    openai_server.script(scripted())
    engine = Docmentor(tmp_path / "db")
    try:
        with client_for(openai_server) as client:
            report = run_agent(repo, engine.store, client)
        assert report.failed == [FAILED]
        out = tmp_path / "docs"
        with pytest.raises(NotFoundError, match="no committed document"):  # no tree yet
            repo_docs_unit(engine, repo, FAILED, out)
        result = write_agent_tree(engine.store, repo, report.run_id, out)
        # the failed unit's document is the tree's, written from the code (it says so)
        shown = repo_docs_unit(engine, repo, FAILED, out)
        assert shown.mode == "model" and "Written from the code alone" in shown.document
        first = tree(out)
        again = write_agent_tree(engine.store, repo, report.run_id, out)
    finally:
        engine.close()
    assert tree(out) == first and again == result  # byte-identical
    assert result.tree.out == str(out) and result.tree.files == len(first)
    assert result.from_code == (FAILED,) and len(result.from_model) == len(UNITS) - 1
    assert "index.md" in first and any(p.startswith("packages/") for p in first)
    assert broken_links(out) == []
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "## Purpose\n\nWhat it holds." in index and "](modules/" in index  # model + navigation
    data = json.loads((out / "documentation.json").read_text(encoding="utf-8"))
    assert data["run"] == {"id": report.run_id, "model": "scripted"}
    units = {u["id"]: u for u in data["units"]}
    assert set(units) == set(UNITS)
    keys = {"id", "kind", "path", "span", "hash", "text", "depends_on", "children", "source", "status"}
    assert all(keys <= set(u) for u in units.values())
    assert units[FAILED]["source"] == "code" and units[FAILED]["status"] == "failed"
    assert all(u["source"] == "model" for i, u in units.items() if i != FAILED)
    assert WORD in units[MARKED]["text"] and units[MARKED]["hash"] == UNITS[MARKED].content_hash
    page = (out / units[MARKED]["page"]).read_text(encoding="utf-8")
    # the model's module document has its Components; the components' documents come after,
    # under a heading of their own (not a second "## Components")
    assert page.count("\n## Components\n") == 1 and "\n## Component documents\n" in page
    marked = section_of(page, units[MARKED]["anchor"])
    assert f"It applies the {WORD} discount rule" in marked and "Written from the code" not in marked
    # the model's links, made to work from the module page its document is on
    assert "with [`shop.util`](../modules/shop.util.md) (code (`shop/pricing.py`))." in marked
    page = (out / units[FAILED]["page"]).read_text(encoding="utf-8")
    failed = section_of(page, units[FAILED]["anchor"])
    assert "Written from the code alone: the model's document for this unit failed" in failed
    assert "#### Signature" in failed and "did not pass VERIFY" in failed  # the code's document
    engine = Docmentor(tmp_path / "db")
    try:  # the tree was written after the run, from it: progress is still the run's
        progress = repo_docs_progress(engine, repo, out)
    finally:
        engine.close()
    assert (progress.mode, progress.run_id, progress.failed) == ("model", report.run_id, 1)


def test_a_unit_whose_code_changed_after_its_commit_gets_the_codes_document(
    openai_server: OpenAIServer, repo: Path, tmp_path: Path
) -> None:
    openai_server.script(Model())
    engine = Docmentor(tmp_path / "db")
    try:
        with client_for(openai_server) as client:
            report = run_agent(repo, engine.store, client)
        util = repo / "shop" / "util.py"
        util.write_text(util.read_text() + "\n\ndef brand_new_helper(x):\n    return x\n")
        result = write_agent_tree(engine.store, repo, report.run_id, tmp_path / "docs")
        with pytest.raises(UsageError, match="documents"):
            write_agent_tree(engine.store, tmp_path, report.run_id, tmp_path / "other")
        foreign = tmp_path / "mine"
        foreign.mkdir()
        (foreign / "keep.md").write_text("keep\n")
        with pytest.raises(OutputError):
            write_agent_tree(engine.store, repo, report.run_id, foreign)
    finally:
        engine.close()
    data = json.loads((tmp_path / "docs" / "documentation.json").read_text(encoding="utf-8"))
    status = {u["id"]: u["status"] for u in data["units"]}
    assert status["shop.util.brand_new_helper"] == "missing"
    assert status["shop.util"] == "stale" and "shop.util" in result.from_code
    assert status["shop.pricing"] == "committed"
    assert tree(foreign) == {"keep.md": b"keep\n"}


def test_model_sections_split_at_top_headings_outside_fences() -> None:
    doc = (
        "Intro line.\n\n## Summary\nS.\n\n### Detail\nD.\n\n```python\n## not a heading\n```\n## Args\nx: y."
    )
    sections = model_sections(doc)
    assert [s.name for s in sections] == ["Summary", "Summary", "Args"]
    assert sections[0].body == "Intro line."
    assert "**Detail**" in sections[1].body and "## not a heading" in sections[1].body
    assert [s.name for s in model_sections("# Only\nbody")] == ["Only"]
    assert model_sections("")[0].body.startswith("(The model's document is empty")
    hostile = "#" * 200_000 + " x" + " #" * 100_000 + "\n" + "#a" * 100_000
    start = time.perf_counter()
    model_sections(hostile)
    assert time.perf_counter() - start < 1.0


def test_generate_with_a_model_writes_and_registers_the_tree_and_search_finds_the_models_text(
    repo: Path,
    tmp_path: Path,
    openai_server: OpenAIServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    openai_server.script(scripted())
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "scripted")
    cli = Cli(tmp_path / "db", capsys)
    rc, out, err = cli("repo-docs", "generate", str(repo))
    # the sample's problem files are named on stderr, as without a model
    assert (
        rc == 0 and all(line.startswith("warning: ") for line in err.splitlines()) and "broken.py" in err
    ), err
    target = repo / ".docmentor-docs"
    assert f"wrote {target} (" in out and "1 from the code alone" in out
    assert "indexed as the docs source repo-sample" in out
    hits = cli.json("search", WORD)["results"]
    assert hits and hits[0]["source"] == "repo-sample" and hits[0]["path"] == "modules/shop.pricing.md"
    # --out and --no-register: the tree goes there and no second source is added
    other = tmp_path / "tree"
    data = cli.json("repo-docs", "generate", str(repo), "--out", str(other), "--no-register")
    assert data["tree"]["out"] == str(other) and data["source"] is None
    assert data["tree"]["from_code"] == [FAILED] and (other / "index.md").is_file()
    assert [s["name"] for s in cli.json("sources")["sources"]] == ["repo-sample"]
