"""Evaluating a tree the model wrote (repodocs/evaluate_checks.py, evaluate_params.py): a run of
the scripted model through the real client (tests/openai_server.py), written by
``write_agent_tree``, is scored by the model's formats (``prompts.FORMATS``) where
documentation.json says the model wrote the unit and by the code's format where it did not;
documents that follow the formats score 1.0, and each fault lowers its metric and names the
unit. The ``parameters`` metric on both formats: stated types and defaults against the code."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.repodocs import read_repository
from docmentor.repodocs.agent import run_agent
from docmentor.repodocs.agent_tree import write_agent_tree
from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.evaluate import RepoDocsEvaluation, evaluate_docs
from docmentor.repodocs.evaluate_metrics import Failure
from docmentor.repodocs.evaluate_params import documented_entries
from docmentor.repodocs.units import Component, Module, Package, Unit
from openai_server import OpenAIServer
from openai_server import openai_server as openai_server  # the fixture
from test_repodocs_agent import Model, client_for

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
REPO = read_repository(SAMPLE)
UNITS = REPO.units()
FACTS = read_facts(SAMPLE, REPO)
FAILED = "shop.models.Base.name_of"  # the model never passes VERIFY: the code's document
CHECKED = ("sections", "coverage", "parameters", "symbols", "links")


def _args(params: tuple[object, ...]) -> str:
    lines = []
    for p in params:
        assert hasattr(p, "name")
        notes = [n for n in (getattr(p, "annotation", None),) if n]
        default = getattr(p, "default", None)
        if default is not None:
            notes.append(f"default {default}")
        note = f" ({', '.join(notes)})" if notes else ""
        lines.append(f"{p.name}{note}: the {p.name}.")
    return "## Args\n" + "\n".join(lines)


def _function(unit: Component) -> list[str]:
    params = unit.parameters
    if unit.kind == "method" and unit.method_kind != "static":
        params = params[1:]
    parts = [f"## Summary\nWhat `{unit.qualname}` is for.", "## Description\nIt does its job."]
    if params:
        parts.append(_args(params))
    if (unit.returns not in (None, "None")) or unit.id in FACTS.returns_value:
        parts.append("## Returns\nThe result.")
    if unit.raises:
        parts.append("## Raises\n" + "\n".join(f"{r}: when the input is bad." for r in unit.raises))
    return parts


def full_document(unit: Unit) -> str:
    """A document in the model's format of the unit's granularity, every section the code
    calls for and nothing else."""
    if isinstance(unit, Component) and unit.kind != "class":
        parts = _function(unit)
    elif isinstance(unit, Component):
        parts = [f"## Summary\nThe class `{unit.name}`.", "## Description\nIt keeps state."]
        if unit.parameters:
            parts.append(_args(unit.parameters))
        if unit.attributes:
            parts.append("## Attributes\n" + "\n".join(f"- `{a}`: kept." for a in unit.attributes))
        if unit.members:
            names = [UNITS[m].name for m in unit.members]
            parts.append("## Methods\n" + "\n".join(f"- `{n}`: what it is for." for n in names))
    elif isinstance(unit, Module):
        names = [UNITS[c].name for c in unit.components]
        parts = [f"## Role\nThe module `{unit.id}`: what it is for and where it stops."]
        parts.append("## Components\n" + ("\n".join(f"- `{n}`: a part." for n in names) or "None."))
        if names:
            public = [n for n in names if not n.startswith("_")]
            if public:
                parts.append("## Public API\n" + "\n".join(f"- `{n}`" for n in public))
        if unit.imports:
            parts.append("## Dependencies\n" + "\n".join(f"- {r.target}" for r in unit.imports))
        if names:
            parts.append("## Diagram\n```mermaid\nflowchart LR\n  a --> b\n```")
        return "\n\n".join(parts)
    else:
        children = unit.children if isinstance(unit, Package) else _top_level()
        parts = [
            "## Purpose\nWhat it holds.",
            "## Overview\n" + "\n".join(f"- `{c}`: a part." for c in children),
        ]
        return "\n\n".join(parts)
    parts.append("## Examples\n```python\nresult = use_it()\n```")
    return "\n\n".join(parts)


def _top_level() -> list[str]:
    return [p.id for p in REPO.packages if p.parent == "."] + [m.id for m in REPO.modules if m.package == "."]


def _constant(document: str) -> Callable[[int], str]:
    return lambda n: document


def scripted() -> Model:
    model = Model()
    for unit_id, unit in UNITS.items():
        model.documents[unit_id] = _constant(full_document(unit))
    model.scores[FAILED] = lambda n: {"consistency": 0.5, "completeness": 0.5, "helpfulness": 0.5}
    return model


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample documented by the scripted model and written as the tree: (repo, out)."""
    base = tmp_path_factory.mktemp("agent-eval")
    repo = base / "sample"
    shutil.copytree(SAMPLE, repo)
    with OpenAIServer() as server:
        server.script(scripted())
        engine = Docmentor(base / "db")
        try:
            with client_for(server) as client:
                report = run_agent(repo, engine.store, client)
            assert report.failed == [FAILED]
            write_agent_tree(engine.store, repo, report.run_id, base / "docs")
        finally:
            engine.close()
    return repo, base / "docs"


@pytest.fixture
def tree(written: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the written tree a test may break."""
    repo, docs = written
    shutil.copytree(docs, tmp_path / "docs")
    return repo, tmp_path / "docs"


def _values(ev: RepoDocsEvaluation) -> dict[str, float]:
    return {m.name: m.value for m in ev.metrics}


def _edit(out: Path, unit_id: str, old: str, new: str) -> None:
    path = out / "documentation.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = next(u for u in data["units"] if u["id"] == unit_id)
    assert entry["text"].count(old) == 1, entry["text"]
    entry["text"] = entry["text"].replace(old, new)
    path.write_text(json.dumps(data), encoding="utf-8")


def _only(ev: RepoDocsEvaluation, metric: str) -> tuple[Failure, ...]:
    values = _values(ev)
    assert values[metric] < 1.0
    assert {k: v for k, v in values.items() if k != metric and k in CHECKED} == dict.fromkeys(
        set(CHECKED) - {metric}, 1.0
    )
    return next(m for m in ev.metrics if m.name == metric).failures


def test_the_models_tree_that_follows_its_formats_scores_one(tree: tuple[Path, Path]) -> None:
    repo, out = tree
    data = json.loads((out / "documentation.json").read_text(encoding="utf-8"))
    sources = {u["id"]: u["source"] for u in data["units"]}
    assert sources[FAILED] == "code" and {s for i, s in sources.items() if i != FAILED} == {"model"}
    ev = evaluate_docs(repo, out)
    assert {k: v for k, v in _values(ev).items() if k in CHECKED} == dict.fromkeys(CHECKED, 1.0)
    assert ev.sections.checked > 100 and ev.coverage.checked > 40 and ev.parameters.checked >= 20
    # only the unit the model failed is in the code's format: its Signature is the one checked
    assert ev.signatures.checked == 1 and ev.signatures.value == 1.0


def test_the_run_the_tree_was_written_from_gives_order_and_reads(
    written: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, docs = written
    db = docs.parent / "db"
    engine = Docmentor(db)
    try:
        ev = evaluate_docs(repo, docs, store=engine.store)
        other = evaluate_docs(SAMPLE, docs, store=engine.store)  # the run is of another root
    finally:
        engine.close()
    assert ev.order is not None and ev.order.checked > 30 and ev.order_violations == 0
    assert ev.reads is not None and ev.reads.reads >= len(UNITS) and ev.reads.redundant_rate == 0.0
    assert other.order is None and other.reads is None
    cli = Cli(db, capsys)
    data = cli.json("repo-docs", "evaluate", str(repo), "--out", str(docs), "--no-llm")
    assert data["order_violations"] == 0 and data["metrics"]["order"]["value"] == 1.0
    assert data["reads"]["reads"] == ev.reads.reads
    text = cli.ok("repo-docs", "evaluate", str(repo), "--out", str(docs), "--no-llm")
    assert "order violations: 0; reads: " in text
    fresh = Cli(tmp_path / "no-index", capsys)  # no index: the tree alone
    assert fresh.json("repo-docs", "evaluate", str(repo), "--out", str(docs), "--no-llm")["reads"] is None


def test_the_models_format_is_required_of_the_models_documents(tree: tuple[Path, Path]) -> None:
    repo, out = tree
    total = "shop.pricing.total"
    _edit(out, total, "## Examples\n\n```python\nresult = use_it()\n```", "")
    _edit(out, "shop.util", "```mermaid\nflowchart LR\n  a --> b\n```", "(a picture)")
    _edit(out, "shop.pricing.make_item", "## Examples", "## Raises\n\nKeyError: never.\n\n## Examples")
    failures = _only(evaluate_docs(repo, out), "sections")
    assert failures == (
        Failure("shop.pricing.make_item", "section the code does not call for: Raises"),
        Failure(total, "missing section: Examples"),
        Failure("shop.util", "no Mermaid block under Diagram"),
    )


def test_a_dropped_parameter_or_method_lowers_coverage_of_a_models_document(tree: tuple[Path, Path]) -> None:
    repo, out = tree
    _edit(out, "shop.util.clamp", "hi (float, default 1.0): the hi.\n", "")
    _edit(out, "shop.models.Item", "- `label`: what it is for.\n", "")
    _edit(out, ".", "- `shop`: a part.\n", "")
    failures = _only(evaluate_docs(repo, out), "coverage")
    assert failures == (
        Failure(".", "top-level package not under Overview: shop"),
        Failure("shop.models.Item", "public method not under Methods: shop.models.Item.label"),
        Failure("shop.util.clamp", "parameter not under Args: hi"),
    )


def test_an_invented_symbol_in_a_models_document_lowers_symbols(tree: tuple[Path, Path]) -> None:
    repo, out = tree
    _edit(out, "shop.sub", "## Purpose\n\nWhat it holds.", "## Purpose\n\nWhat `misc.helper_one` holds.")
    failures = _only(evaluate_docs(repo, out), "symbols")
    assert failures == (Failure("shop.sub", "names something that resolves nowhere: `misc.helper_one`"),)


def test_wrong_defaults_and_types_lower_parameters(tree: tuple[Path, Path]) -> None:
    repo, out = tree
    _edit(out, "shop.util.clamp", "lo (float, default 0.0)", "lo (float, default 0.5)")
    _edit(out, "shop.pricing.total", "items (list[m.Item])", "items (dict[str, Item])")
    _edit(out, "shop.models.Money", 'currency (str, default "EUR")', "currency (str, default 'USD')")
    _edit(out, "shop.util.round2", "x (float): the x.", "x (float): the x.\ny (int): invented.")
    failures = _only(evaluate_docs(repo, out), "parameters")
    assert [(f.unit, f.what.split(" is ")[0]) for f in failures] == [
        ("shop.models.Money", "default of currency"),
        ("shop.pricing.total", "type of items"),
        ("shop.util.clamp", "default of lo"),
        ("shop.util.round2", "documented parameter not in the signature 'def round2(x: float) -> float': y"),
    ]
    assert "'0.5'" in failures[2].what and "'0.0'" in failures[2].what


def test_equivalent_types_and_defaults_pass(tree: tuple[Path, Path]) -> None:
    repo, out = tree
    _edit(out, "shop.pricing.total", "items (list[m.Item])", "items (List[shop.models.Item])")
    _edit(
        out,
        "shop.util.clamp",
        "lo (float, default 0.0)",
        "lo (`float`, optional): the lo. Defaults to `0.0`.",
    )
    _edit(out, "shop.models.Money", 'currency (str, default "EUR")', "currency (str, default 'EUR')")
    _edit(
        out, "shop.pricing.make_item", "name (str)", "name (the item's name as a string)"
    )  # prose: unchecked
    ev = evaluate_docs(repo, out)
    assert ev.parameters.value == 1.0 and ev.parameters.failures == ()


def test_documented_entries_read_both_formats() -> None:
    lines = [
        "- `rate` (`float`, keyword-only, default `0.0`)",
        "- `*args` (any number of positional arguments)",
        "`Item(name: str, price: float = 0.0)`",
        "rate (float, optional): The rate. Defaults to 0.5.",
        "- **table** (dict[str, tuple[int, int]]): y",
        'cur (str): c. Defaults to `"EUR"`.',
        "z: it defaults to zero",
        "  nested (int): deeper than the entries: not one",
    ]
    got = [(e.name, e.type, e.default) for e in documented_entries(lines)]
    assert got == [
        ("rate", "float", "0.0"),
        ("args", None, None),
        ("rate", "float", "0.5"),
        ("table", "dict[str, tuple[int, int]]", None),
        ("cur", "str", '"EUR"'),
        ("z", None, None),
    ]


def test_reading_entries_is_linear_on_hostile_text() -> None:
    hostile = [
        "x (" + "[" * 100_000 + "`" * 50_001,
        "y (int" + ", default" * 50_000 + ")",
        "z: defaults to " + "`" * 100_000,
        "w (" + "a " * 100_000 + "):" + " default is 1" * 10_000,
    ]
    start = time.perf_counter()
    entries = documented_entries(hostile)
    assert time.perf_counter() - start < 3.0  # ~0.15 s on this machine, 20x margin for a loaded one
    assert [e.name for e in entries] == ["x", "y", "z", "w"]
