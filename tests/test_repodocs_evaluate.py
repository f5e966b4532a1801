"""Evaluating generated repository documentation without a model (repodocs/evaluate.py): the
sample fixture documented by ``document_repository`` scores 1.0 on every metric; each fault
injected into a copy of the output lowers exactly its metric and names the unit; a RepoMemory
run's commit order and READ trace give order violations and the redundant-read rate."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.repodocs import build_graph, document_repository, read_repository, traversal
from docmentor.repodocs.evaluate import EvaluationError, Failure, RepoDocsEvaluation, evaluate_docs
from docmentor.repodocs.units import REPOSITORY_ID, Component, Module, Package
from docmentor.store import repomem, repomem_trace
from docmentor.store.db import Store
from docmentor.store.repomem_rows import NewUnit

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
METRICS = ("sections", "coverage", "signatures", "parameters", "symbols", "links")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE, root)
    return root


@pytest.fixture
def out(repo: Path, tmp_path: Path) -> Path:
    target = tmp_path / "out"
    document_repository(repo, target)
    return target


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    engine = Docmentor(tmp_path / "db")
    yield engine.store
    engine.close()


def _values(ev: RepoDocsEvaluation) -> dict[str, float]:
    return {m.name: m.value for m in ev.metrics}


def _edit_text(out: Path, unit_id: str, old: str, new: str) -> None:
    """Replace ``old`` (present once) in ``unit_id``'s document in documentation.json."""
    path = out / "documentation.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = next(u for u in data["units"] if u["id"] == unit_id)
    assert entry["text"].count(old) == 1, entry["text"]
    entry["text"] = entry["text"].replace(old, new)
    path.write_text(json.dumps(data), encoding="utf-8")


def _edit_page(out: Path, page: str, old: str, new: str) -> None:
    path = out / page
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_documented_sample_scores_one_on_every_metric(repo: Path, out: Path) -> None:
    ev = evaluate_docs(repo, out)
    assert _values(ev) == dict.fromkeys(METRICS, 1.0)
    assert all(m.checked > 0 and not m.failures for m in ev.metrics)
    assert ev.missing == () and ev.unknown == ()
    assert ev.order is None and ev.reads is None
    # the conditional sections were checked both ways: present where the code calls for them
    assert ev.sections.checked > 100 and ev.coverage.checked > 40
    data = ev.to_dict()
    assert data["metrics"]["links"]["value"] == 1.0 and data["order_violations"] is None
    json.dumps(data)


def _only(ev: RepoDocsEvaluation, metric: str) -> tuple[Failure, ...]:
    """The failures of ``metric``, asserting every other metric is still 1.0."""
    values = _values(ev)
    assert values[metric] < 1.0
    assert {k: v for k, v in values.items() if k != metric} == dict.fromkeys(set(METRICS) - {metric}, 1.0)
    return next(m for m in ev.metrics if m.name == metric).failures


def test_a_parameter_dropped_from_args_lowers_coverage(repo: Path, out: Path) -> None:
    _edit_text(out, "shop.pricing.discounted", "- `rate` (`float`)\n", "")
    failures = _only(evaluate_docs(repo, out), "coverage")
    assert failures == (Failure("shop.pricing.discounted", "parameter not under Args: rate"),)


def test_an_invented_symbol_lowers_symbols(repo: Path, out: Path) -> None:
    _edit_text(
        out,
        "shop.pricing.total",
        "> The sum of the items' prices, less the discount.",
        "> The sum of the items' prices, less the discount, see `shop.pricing.made_up_helper`.",
    )
    failures = _only(evaluate_docs(repo, out), "symbols")
    assert [(f.unit, "made_up_helper" in f.what) for f in failures] == [("shop.pricing.total", True)]


def test_broken_links_lower_links_and_name_the_unit(repo: Path, out: Path) -> None:
    _edit_page(out, "modules/shop.pricing.md", "shop.util.md#c-logged", "shop.util.md#c-nowhere")
    _edit_page(out, "index.md", "(packages/shop.md)", "(packages/shops.md)")
    failures = _only(evaluate_docs(repo, out), "links")
    assert [(f.unit, f.what.split(":")[0]) for f in failures] == [
        (REPOSITORY_ID, "link to no file"),
        ("shop.pricing.discounted", "link to no anchor"),
    ]


def test_a_removed_raises_section_lowers_sections_only(repo: Path, out: Path) -> None:
    _edit_text(out, "shop.pricing.fetch_prices", "## Raises\n\n- `LookupError`\n\n", "")
    failures = _only(evaluate_docs(repo, out), "sections")
    assert failures == (Failure("shop.pricing.fetch_prices", "missing section: Raises"),)


def test_a_section_the_code_does_not_call_for_is_a_failure(repo: Path, out: Path) -> None:
    # make_item returns a value but raises nothing: a Raises section is wrong
    _edit_text(out, "shop.pricing.make_item", "## Source", "## Raises\n\n- `KeyError`\n\n## Source")
    failures = _only(evaluate_docs(repo, out), "sections")
    assert failures == (Failure("shop.pricing.make_item", "section the code does not call for: Raises"),)


def test_an_altered_signature_lowers_signatures(repo: Path, out: Path) -> None:
    _edit_text(
        out, "shop.pricing.total", "discount: float = 0.0) -> float", "discount: float = 0.5) -> float"
    )
    failures = _only(evaluate_docs(repo, out), "signatures")
    assert [f.unit for f in failures] == ["shop.pricing.total"]
    assert "0.5" in failures[0].what and "0.0" in failures[0].what


def test_a_wrong_default_or_type_or_an_invented_parameter_lowers_parameters(repo: Path, out: Path) -> None:
    _edit_text(out, "shop.util.clamp", "- `hi` (`float`, default `1.0`)", "- `hi` (`float`, default `2.0`)")
    _edit_text(out, "shop.pricing.discounted", "- `rate` (`float`)", "- `rate` (`int`)")
    _edit_text(
        out, "shop.models.Item", "- `price` (`float`, default `0.0`)", "- `price` (`float`)\n- `cost` (`int`)"
    )
    failures = _only(evaluate_docs(repo, out), "parameters")
    assert [(f.unit, f.what.split(" is ")[0]) for f in failures] == [
        (
            "shop.models.Item",
            "documented parameter not in the signature 'Item(name: str, price: float = 0.0)': cost",
        ),
        ("shop.pricing.discounted", "type of rate"),
        ("shop.util.clamp", "default of hi"),
    ]
    assert "'2.0'" in failures[2].what and "'1.0'" in failures[2].what


def test_missing_output_and_unknown_units(repo: Path, out: Path, tmp_path: Path) -> None:
    with pytest.raises(EvaluationError):
        evaluate_docs(repo, tmp_path / "nowhere")
    (out / "documentation.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(EvaluationError):
        evaluate_docs(repo, out)
    fresh = tmp_path / "fresh"
    document_repository(repo, fresh)
    (repo / "shop" / "util.py").unlink()  # its units are documented but gone from the code
    ev = evaluate_docs(repo, fresh)
    assert "shop.util" in ev.unknown and "shop.util.clamp" in ev.unknown
    assert ev.missing == ()


# -- a RepoMemory run -------------------------------------------------------------------------


def _granularity(unit: object) -> str:
    if isinstance(unit, Component):
        return "component"
    if isinstance(unit, Module):
        return "module"
    return "package" if isinstance(unit, Package) else "repository"


def _run(store: Store, repo: Path) -> tuple[int, tuple[str, ...], list[tuple[str, str]]]:
    """A new run with every unit registered in traversal order; the order and the kept call
    edges between two functions."""
    units = read_repository(repo)
    graph = build_graph(units)
    order = traversal(graph)
    run = repomem.start_run(store, repo, model=None, resume=False)
    everything = units.units()
    repomem.register_units(
        store,
        run.id,
        [NewUnit(u, _granularity(everything[u]), everything[u].content_hash) for u in order.order],
    )
    dropped = {(e.source, e.target) for e in order.dropped}
    calls = [
        (e.source, e.target)
        for e in graph.edges
        if e.kind == "calls" and e.source != e.target and (e.source, e.target) not in dropped
    ]
    return run.id, order.order, calls


def _commit(store: Store, run_id: int, unit_id: str) -> None:
    repomem.commit_unit(store, run_id, unit_id, document=f"# {unit_id}\n")
    repomem_trace.append_trace(store, run_id, unit_id=unit_id, action="FINISH")


def test_a_run_in_traversal_order_has_no_order_violation(repo: Path, out: Path, store: Store) -> None:
    run_id, order, _ = _run(store, repo)
    assert traversal(build_graph(read_repository(repo))).dropped  # a cycle's edge: not counted
    for unit_id in order:
        _commit(store, run_id, unit_id)
    ev = evaluate_docs(repo, out, store=store, run_id=run_id)
    assert ev.order is not None and ev.order.checked > 50
    assert ev.order_violations == 0 and ev.order.value == 1.0
    assert ev.reads is not None and ev.reads.reads == 0 and ev.reads.redundant_rate == 0.0


def test_a_caller_committed_before_its_callee_is_one_violation(repo: Path, out: Path, store: Store) -> None:
    run_id, _, calls = _run(store, repo)
    caller, callee = ("shop.pricing.discounted", "shop.util.clamp")
    assert (caller, callee) in calls
    _commit(store, run_id, caller)
    _commit(store, run_id, callee)
    ev = evaluate_docs(repo, out, store=store, run_id=run_id)
    assert ev.order is not None and ev.order.checked == 1
    assert ev.order_violations == 1
    assert ev.order.failures == (Failure(caller, f"committed before its dependency {callee}"),)
    assert ev.to_dict()["order_violations"] == 1


def test_the_trace_gives_the_redundant_read_rate_and_cache_hits(repo: Path, out: Path, store: Store) -> None:
    run_id, _, _ = _run(store, repo)
    a, b = "shop.pricing.total", "shop.util.clamp"
    reads = [
        (a, {"target": "memory", "kind": "memory", "query": f"{a}@1", "cached": False}),
        (a, {"target": b, "kind": "code", "query": f"{b}@1", "cached": False}),
        (a, {"target": "memory", "kind": "memory", "query": f"{a}@1", "cached": True}),  # again
        (b, {"target": b, "kind": "code", "query": f"{b}@1", "cached": True}),  # another unit's
    ]
    for unit_id, inputs in reads:
        repomem_trace.append_trace(store, run_id, unit_id=unit_id, action="READ", inputs=inputs)
    repomem_trace.append_trace(store, run_id, unit_id=a, action="WRITE")
    repomem_trace.cache_put(store, run_id, "code", f"{b}@1", "def clamp(...)")
    assert repomem_trace.cache_get(store, run_id, "code", f"{b}@1") is not None
    ev = evaluate_docs(repo, out, store=store, run_id=run_id)
    assert ev.reads is not None
    assert (ev.reads.reads, ev.reads.repeated, ev.reads.cached, ev.reads.cache_hits) == (4, 1, 2, 1)
    assert ev.reads.redundant_rate == 0.25 and ev.reads.cached_rate == 0.5
    assert [f.unit for f in ev.reads.repeats] == [a]
    assert ev.order is not None and ev.order.checked == 0  # nothing committed


def test_without_a_trace_the_commit_times_give_the_order(repo: Path, out: Path, store: Store) -> None:
    run_id, _, _ = _run(store, repo)
    caller, callee = ("shop.pricing.discounted", "shop.util.clamp")
    for unit_id in (caller, callee):
        repomem.commit_unit(store, run_id, unit_id, document=f"# {unit_id}\n")
    with store.transaction() as db:
        db.execute(
            "UPDATE repo_units SET committed_at = '2026-01-01T00:00:00Z' WHERE run_id = ? AND unit_id = ?",
            (run_id, caller),
        )
        db.execute(
            "UPDATE repo_units SET committed_at = '2026-01-01T00:00:01Z' WHERE run_id = ? AND unit_id = ?",
            (run_id, callee),
        )
    ev = evaluate_docs(repo, out, store=store, run_id=run_id)
    assert ev.order is not None and ev.order_violations == 1 and ev.order.failures[0].unit == caller
    with store.transaction() as db:  # the same second: no order is known, nothing is counted
        db.execute("UPDATE repo_units SET committed_at = '2026-01-01T00:00:01Z' WHERE run_id = ?", (run_id,))
    ev = evaluate_docs(repo, out, store=store, run_id=run_id)
    assert ev.order is not None and ev.order.checked == 0 and ev.order_violations == 0


def test_an_escaped_or_quoted_link_is_not_a_link(repo: Path, out: Path) -> None:
    _edit_page(
        out,
        "modules/shop.pricing.md",
        "## Components\n",
        "## Components\n\nNot links: \\[x\\](nowhere.md), `[x](nowhere.md)`, [web](https://example.org/x.md)\n",
    )
    _edit_page(out, "index.md", "(packages/shop.md)", "(packages/sh%6Fp.md)")  # percent-encoded
    assert evaluate_docs(repo, out).links.failures == ()
