"""What a documentation agent's READ answers for one unit (``agent_unit.py``'s loop), over what
every unit of a run shares (``Shared``): memory (the committed documents of the unit's
dependencies and children), the code through the graph (callees, callers, the owning class, any
unit by id, one page at a time) and docmentor's own index (``search``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from docmentor.llm import LLMClient
from docmentor.repodocs.agent_results import AgentConfig
from docmentor.repodocs.budget import Budget, share, trim
from docmentor.repodocs.code_facts import CodeFacts
from docmentor.repodocs.reads import RepoView
from docmentor.repodocs.units import sha256_text
from docmentor.repodocs.verify import SymbolTable
from docmentor.store import repomem

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.store.db import Store

GRAPH_TARGETS = ("memory", "callees", "callers", "owner")


@dataclass
class Shared:
    """What every unit of a run shares."""

    store: Store
    run_id: int
    client: LLMClient
    config: AgentConfig
    view: RepoView
    symbols: SymbolTable
    docs: Docmentor | None
    system: str
    facts: dict[str, str]  # each unit's deterministic document (from the code, no model)
    code_facts: CodeFacts  # what the code returns, yields and binds (the sections VERIFY requires)
    version: str  # the repository's code hash: cached code answers are keyed by it
    pages: frozenset[str]  # the Markdown tree's pages (deterministic.Layout), links may name them
    file_lines: dict[str, int]  # each module's path and line count, for path:line locations
    budget: Budget  # the run's token budget: the window split once


def read_answer(shared: Shared, unit_id: str, key: tuple[str, str]) -> str:
    """The answer to a READ of ``unit_id``'s task, by its cache key (kind, query)."""
    kind, query = key
    view, budget = shared.view, shared.budget.read
    if kind == "memory":
        return memory(shared, unit_id, budget)
    if kind == "callees":
        ids = view.callee_ids(unit_id)
        return view.sources(ids, budget) if ids else "It calls no unit of the repository."
    if kind == "callers":
        ids = view.caller_ids(unit_id)
        return view.sources(ids, budget) if ids else "No unit of the repository calls it."
    if kind == "owner":
        owner = view.owner(unit_id)
        return view.sources([owner], budget) if owner else "It belongs to no class."
    if kind == "code":
        target, _, rest = query.rpartition("@")
        page = int(rest.partition("#")[2] or 1)
        return code_page(view, target, page, shared.budget.source)
    return search(shared, query, budget)


def code_page(view: RepoView, unit_id: str, page: int, size: int) -> str:
    """A unit's code, one page at a time, under a header saying where it is and how to go on."""
    text, count = view.source_page(unit_id, page, size)
    unit = view.units[unit_id]
    header = f"### {unit_id} ({unit.kind}, {unit.path}{view.span(unit_id)})"
    if page > count:
        return f"{header}\nIt has {count} page(s) of code; there is no page {page}."
    if count > 1:
        header += f" page {page} of {count}"
    more = (
        f'\n[page {page} of {count}: READ {{"target": "{unit_id}", "page": {page + 1}}} for the next]'
        if page < count
        else ""
    )
    return f"{header}\n{text}{more}"


def memory_ids(view: RepoView, unit_id: str) -> list[str]:
    """The unit's dependencies and children, each once: whose documents its memory holds."""
    return list(dict.fromkeys([*view.depends_on.get(unit_id, []), *view.children.get(unit_id, [])]))


def memory_version(shared: Shared, unit_id: str) -> str:
    """Which of the unit's dependencies and children are committed, and when: a cached
    memory answer is only reused while that is unchanged."""
    docs = repomem.committed_documents(shared.store, shared.run_id, memory_ids(shared.view, unit_id))
    stamp = "\n".join(f"{u}\t{docs[u].committed_at}" for u in sorted(docs))
    return sha256_text(stamp)[:12]


def memory(shared: Shared, unit_id: str, budget: int) -> str:
    """The committed documents of the unit's dependencies and children, within ``budget``
    tokens: when they do not all fit, the largest are cut first, and a note says which were cut
    or left out (``budget.share``)."""
    view = shared.view
    ids = memory_ids(view, unit_id)
    if not ids:
        return "Nothing in memory: it depends on and contains no documented unit."
    docs = repomem.committed_documents(shared.store, shared.run_id, ids)
    parts = []
    for uid in ids:
        row = docs.get(uid)
        relation = "contains" if uid in view.children.get(unit_id, []) else "depends on"
        body = (row.document or "") if row is not None else "(not documented: it failed)"
        parts.append((f"### {uid} ({relation})", body))
    return share(parts, budget, shared.budget.encoding)


def search(shared: Shared, query: str, budget: int) -> str:
    """docmentor's own index on ``query``, within ``budget``."""
    if shared.docs is None:
        return "No documentation index is available to search."
    hits = shared.docs.search(query, limit=shared.config.search_limit, semantic=False)
    if not hits:
        return "The documentation index has nothing on this."
    parts = [f"### {h.title} — {h.heading} ({h.source}: {h.path}:{h.line_start})\n{h.snippet}" for h in hits]
    return trim("\n\n".join(parts), budget, shared.budget.encoding)
