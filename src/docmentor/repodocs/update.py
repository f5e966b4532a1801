"""What an incremental update re-documents (issue 21, item 6): from the graph of the code as it
is now and the units whose code hash changed, were added or were removed since the last run,
the exact set of units whose documents are stale.

The set is, in this order:

1. the *seeds*: every changed and every added unit, every unit whose stored document
   depended on a removed unit (the memory's ``depends_on``: its document cites a unit that
   is gone, though its own code may be the same), and every unit whose dependencies are not
   the stored ones though its code is the same (*rewired*: ``from .util import clamp as cl``
   became ``... import round2 as cl``, and ``total``, which calls ``cl``, now uses another
   unit);
2. the *dependents* of the seeds through the graph's ``calls``, ``imports`` and ``inherits``
   edges (every edge reads "source depends on target", so a dependent is an edge's source),
   edges dropped to break a cycle included (the code still uses the unit);
3. the *ancestors* (containment parents up to the repository) of everything in 1 and 2: a
   parent's document summarises its children's.

Dependents are **transitive** by default: a document is written from its dependencies'
documents (READ returns them, VERIFY checks the draft against them), and a changed callee
changes what its callers do, and so what their callers do: ``Item.describe`` calls
``Base.describe``, which calls ``Base.name_of``; when ``name_of`` returns something else,
both ``describe`` documents state an old behaviour. Stopping after the direct dependents
(``transitive=False``) costs fewer model calls and leaves such second-hand statements stale;
it is there for a caller who accepts that. Ancestors added only as ancestors (in step 3) bring
no dependents of their own: their code did not change (a parent whose code changed is a
seed already, as its hash covers its children's code).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from docmentor.repodocs.graph import Graph

__all__ = ["UpdatePlan", "plan_update"]


@dataclass(frozen=True)
class UpdatePlan:
    """Each part sorted: the seeds (changed, added, citing a removed unit, rewired), the dependents
    and ancestors each brings in (not repeating an earlier part), the removed units, and
    ``redo``, everything to document again (seeds, dependents and ancestors, in the graph)."""

    changed: tuple[str, ...]
    added: tuple[str, ...]
    cite_removed: tuple[str, ...]
    rewired: tuple[str, ...]
    dependents: tuple[str, ...]
    ancestors: tuple[str, ...]
    removed: tuple[str, ...]
    redo: tuple[str, ...]


def plan_update(
    graph: Graph,
    changed: Iterable[str],
    added: Iterable[str] = (),
    removed: Iterable[str] = (),
    *,
    previous_dependencies: Mapping[str, Iterable[str]] | None = None,
    current_dependencies: Mapping[str, Iterable[str]] | None = None,
    transitive: bool = True,
) -> UpdatePlan:
    """The units to re-document after the code changed (see the module's docstring).
    ``changed``, ``added``: unit ids of ``graph`` (ids it does not have are ignored: they
    name nothing to document); ``removed``: ids of the last run that ``graph`` no longer has;
    ``previous_dependencies``: each committed unit's ``depends_on`` from that run (the units
    its document was written from); ``current_dependencies``: each unit's now (a unit named
    in both with a different set is rewired; a unit absent from either is not compared)."""
    units = graph.units
    changed_ids = sorted({u for u in changed if u in units})
    added_ids = sorted({u for u in added if u in units})
    removed_ids = sorted({u for u in removed if u not in units})
    gone = set(removed_ids)
    cite = sorted(
        {u for u, deps in (previous_dependencies or {}).items() if u in units and not gone.isdisjoint(deps)}
        - set(changed_ids)
        - set(added_ids)
    )
    before = previous_dependencies or {}
    rewired = sorted(
        {
            u
            for u, deps in (current_dependencies or {}).items()
            if u in units and u in before and set(deps) != set(before[u])
        }
        - set(changed_ids)
        - set(added_ids)
        - set(cite)
    )
    seeds = set(changed_ids) | set(added_ids) | set(cite) | set(rewired)
    users: dict[str, set[str]] = defaultdict(set)  # unit → the units that depend on it
    parent: dict[str, str] = {}
    for e in graph.edges:
        if e.kind == "contains":
            parent.setdefault(e.target, e.source)
        elif e.source != e.target:
            users[e.target].add(e.source)
    reached = set(seeds)
    frontier = sorted(seeds)
    while frontier:
        found = {d for u in frontier for d in users.get(u, ()) if d not in reached}
        reached |= found
        frontier = sorted(found) if transitive else []
    dependents = reached - seeds
    ancestors: set[str] = set()
    for u in sorted(reached):
        p = parent.get(u)
        while p is not None and p not in reached and p not in ancestors:
            ancestors.add(p)
            p = parent.get(p)
    return UpdatePlan(
        changed=tuple(changed_ids),
        added=tuple(added_ids),
        cite_removed=tuple(cite),
        rewired=tuple(rewired),
        dependents=tuple(sorted(dependents)),
        ancestors=tuple(sorted(ancestors)),
        removed=tuple(removed_ids),
        redo=tuple(sorted(reached | ancestors)),
    )
