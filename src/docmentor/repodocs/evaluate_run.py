"""What a RepoMemory run says about how documentation was written: dependency-order
violations of its commits (``order_metric``) and its READ actions repeated or answered from
the cache (``read_stats``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docmentor.repodocs.evaluate_metrics import Failure, Metric, ReadStats
from docmentor.repodocs.graph import Graph
from docmentor.repodocs.order import traversal
from docmentor.store import repomem, repomem_trace

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["order_metric", "read_stats"]


def order_metric(store: Store, run_id: int, graph: Graph) -> Metric:
    committed = {u.unit_id: u for u in repomem.units(store, run_id, status="committed")}
    finished: dict[str, int] = {}
    for row in repomem_trace.trace(store, run_id):
        if row.action == "FINISH" and row.unit_id in committed:
            finished[row.unit_id] = row.seq
    if committed and set(finished) == set(committed):
        position: dict[str, tuple[str | int, ...]] = {u: (finished[u],) for u in committed}
    else:
        position = {u: (row.committed_at or "",) for u, row in committed.items()}
    dropped = {(e.source, e.target) for e in traversal(graph).dropped}
    pairs = sorted(
        {
            (e.source, e.target)
            for e in graph.edges
            if e.source != e.target and (e.source, e.target) not in dropped
        }
    )
    checked = 0
    failures: list[Failure] = []
    for source, target in pairs:
        if source not in committed or target not in committed or position[source] == position[target]:
            continue
        checked += 1
        if position[source] < position[target]:
            failures.append(Failure(source, f"committed before its dependency {target}"))
    return Metric("order", checked, checked - len(failures), tuple(failures))


def read_stats(store: Store, run_id: int) -> ReadStats:
    seen: set[tuple[str | None, str, str]] = set()
    reads = repeated = cached = 0
    repeats: list[Failure] = []
    for row in repomem_trace.trace(store, run_id):
        if row.action != "READ":
            continue
        reads += 1
        inputs = row.inputs
        kind, query = inputs.get("kind"), inputs.get("query")
        key = (
            (row.unit_id, str(kind), str(query))
            if kind is not None and query is not None
            else (row.unit_id, "target", str(inputs.get("target")))
        )
        if key in seen:
            repeated += 1
            repeats.append(Failure(row.unit_id or "", f"READ {key[1]} {key[2]} again (action {row.seq})"))
        seen.add(key)
        cached += inputs.get("cached") is True
    hits = repomem_trace.progress(store, run_id).cache_hits
    return ReadStats(reads, repeated, cached, hits, tuple(repeats))
