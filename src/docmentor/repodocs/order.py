"""The order units are documented in (the MemDocAgent paper's Algorithms 1–2).

Every edge of the graph (``graph.py``) says its source depends on its target, so the order
puts each target first: a callee before its caller, a base class before its subclass, an
imported module before its importer, every method before its class, every component before
its module, every module and sub-package before its package, and the repository last.

Cycles (mutual recursion, modules importing each other, a classmethod calling ``cls()``) are
found with Tarjan's strongly connected components, iteratively (no recursion, so a deep
graph does not reach Python's recursion limit), and broken by one deterministic rule: inside
a component, units are placed one at a time, next the unit with the fewest dependencies not
yet placed — a unit that contains others (a class) only once they are placed — and among
those the lowest *rank*, where a unit's code ends: (file path, last line, innermost first,
id). A unit's edges to units not placed yet are dropped (its edge to itself too). So a
containment edge is never dropped, and a cycle of n calls loses one edge, not n - 1 (two
functions that call each other: the one earlier in the files is documented first, without
the other's document). The dropped edges are listed in ``Traversal.dropped``; what is left
has no cycle.

Among the units whose dependencies are all done, the next is the one of lowest rank (so a
file's units come out in source order where their dependencies allow). ``levels`` groups the
units by their longest chain of dependencies: a unit depends only on units of lower levels
(its dropped edges aside), so the units of one level can be documented at the same time.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docmentor.repodocs.graph import Edge, Graph
from docmentor.repodocs.units import Component, Module, Package, Repository, Unit

_END = 1 << 30


@dataclass(frozen=True)
class Traversal:
    """``order``: every unit id, dependencies first. ``levels``: the same ids by level (each
    sorted by rank). ``dropped``: the edges left out to break cycles. ``cycles``: the strongly
    connected components of more than one unit (and units that depend on themselves), each
    in rank order."""

    order: tuple[str, ...]
    levels: tuple[tuple[str, ...], ...]
    dropped: tuple[Edge, ...]
    cycles: tuple[tuple[str, ...], ...]

    def position(self) -> dict[str, int]:
        """Each unit's index in ``order``."""
        return {unit_id: i for i, unit_id in enumerate(self.order)}


def rank(unit: Unit) -> tuple[str, int, int, str]:
    """Where a unit's code ends: (path, last line, minus first line, id); a package after
    the code in its folder, the repository after everything."""
    if isinstance(unit, Component | Module):
        return (unit.path, unit.line_end, -unit.line_start, unit.id)
    if isinstance(unit, Package):
        return (unit.path + "/\uffff", _END, 0, unit.id)
    assert isinstance(unit, Repository)
    return ("\uffff\uffff", _END, 0, unit.id)


def strongly_connected(nodes: Sequence[str], successors: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, without recursion. Components come out with
    each one after every component it has an edge to (dependencies first)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for start in nodes:
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, i = work[-1]
            nexts = successors.get(node, ())
            if i < len(nexts):
                work[-1] = (node, i + 1)
                after = nexts[i]
                if after not in index:
                    index[after] = low[after] = len(index)
                    stack.append(after)
                    on_stack.add(after)
                    work.append((after, 0))
                elif after in on_stack:
                    low[node] = min(low[node], index[after])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(component)
    return found


def traversal(graph: Graph) -> Traversal:
    """The documentation order of ``graph``'s units (see the module's docstring)."""
    ranks = {unit_id: rank(unit) for unit_id, unit in graph.units.items()}
    successors: dict[str, list[str]] = defaultdict(list)
    for e in graph.edges:
        if e.source in ranks and e.target in ranks:
            successors[e.source].append(e.target)
    nodes = sorted(ranks, key=ranks.__getitem__)
    for source in successors:
        successors[source] = sorted(set(successors[source]), key=ranks.__getitem__)
    components = strongly_connected(nodes, successors)
    cyclic = [m for m in components if len(m) > 1 or m[0] in successors.get(m[0], ())]
    cycles = [tuple(sorted(members, key=ranks.__getitem__)) for members in cyclic]
    where = {unit_id: k for k, members in enumerate(cyclic) for unit_id in members}
    inside: dict[int, list[Edge]] = defaultdict(list)  # each cycle's own edges
    for e in graph.edges:
        k = where.get(e.source)
        if k is not None and where.get(e.target) == k:
            inside[k].append(e)
    removed: set[tuple[str, str]] = set()
    for k, members in enumerate(cyclic):
        removed |= _break_cycle(set(members), inside[k], ranks)
    dropped = sorted({e for e in graph.edges if (e.source, e.target) in removed})
    kept: dict[str, set[str]] = {
        s: {t for t in targets if (s, t) not in removed} for s, targets in successors.items()
    }
    order = _kahn(nodes, kept, ranks)
    level: dict[str, int] = {}
    for unit_id in order:
        level[unit_id] = 1 + max((level[d] for d in kept.get(unit_id, ())), default=-1)
    levels: list[list[str]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for unit_id in order:
        levels[level[unit_id]].append(unit_id)
    return Traversal(
        tuple(order),
        tuple(tuple(sorted(group, key=ranks.__getitem__)) for group in levels),
        tuple(dropped),
        tuple(sorted(cycles, key=lambda c: ranks[c[0]])),
    )


def _break_cycle(
    members: set[str], edges: Sequence[Edge], ranks: dict[str, tuple[str, int, int, str]]
) -> set[tuple[str, str]]:
    """The (dependent, dependency) pairs to drop so one strongly connected component has no
    cycle: its units are placed one at a time, next the one with the fewest dependencies not
    yet placed (a unit that contains others only once they are placed), ties by rank; a
    unit's edges to units not yet placed are dropped."""
    depends: dict[str, set[str]] = defaultdict(set)
    contains: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e.source in members and e.target in members:
            (contains if e.kind == "contains" else depends)[e.source].add(e.target)
    for source, children in contains.items():
        depends[source] -= children  # a child: a containment, never dropped
    dependents: dict[str, list[str]] = defaultdict(list)
    parents: dict[str, list[str]] = defaultdict(list)
    for source, targets in depends.items():
        for target in targets:
            dependents[target].append(source)
    for source, children in contains.items():
        for child in children:
            parents[child].append(source)
    waiting = {u: len(depends[u]) for u in members}
    blocked = {u: len(contains[u]) for u in members}
    heap = [(waiting[u], ranks[u]) for u in members if not blocked[u]]
    heapq.heapify(heap)
    placed: set[str] = set()
    dropped: set[tuple[str, str]] = set()
    while heap:
        count, key = heapq.heappop(heap)
        unit = key[3]
        if unit in placed or count != waiting[unit]:
            continue  # a stale entry
        dropped |= {(unit, t) for t in depends[unit] if t not in placed}  # a self-edge too
        placed.add(unit)
        for after in dependents[unit]:
            if after not in placed:
                waiting[after] -= 1
                if not blocked[after]:
                    heapq.heappush(heap, (waiting[after], ranks[after]))
        for parent in parents[unit]:
            blocked[parent] -= 1
            if not blocked[parent]:
                heapq.heappush(heap, (waiting[parent], ranks[parent]))
    return dropped


def _kahn(
    nodes: list[str], depends: dict[str, set[str]], ranks: dict[str, tuple[str, int, int, str]]
) -> list[str]:
    """Dependencies first; among the ready units the lowest rank next."""
    waiting = {n: len(depends.get(n, ())) for n in nodes}
    dependents: dict[str, list[str]] = defaultdict(list)
    for source, targets in depends.items():
        for target in targets:
            dependents[target].append(source)
    ready = [ranks[n] for n in nodes if waiting[n] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        unit_id = heapq.heappop(ready)[3]
        order.append(unit_id)
        for after in dependents[unit_id]:
            waiting[after] -= 1
            if waiting[after] == 0:
                heapq.heappush(ready, ranks[after])
    if len(order) != len(nodes):  # cannot happen: every cycle lost an edge
        raise RuntimeError(f"the order left out {len(nodes) - len(order)} units in a cycle")
    return order
