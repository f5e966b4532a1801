"""Sync and async editions of one API: ``Client.get`` and ``AsyncClient.get``.

Libraries often ship every operation twice, once blocking and once as a coroutine, and a
task matches both about equally. Listed one after the other they fill two of an agent's
first three results with one answer, so ``find_api`` counts an edition after its twin at
``twin_weight`` (:mod:`docmentor.library.find.config`) of its score, and every result names its other editions
(``variants``).

Editions are found by name, within one module of one library:

- a class and the same name with ``Async`` before it: ``Client`` / ``AsyncClient``,
  ``HTTPTransport`` / ``AsyncHTTPTransport``, ``Table`` / ``AsyncTable``;
- members of the same name on two such classes: ``Table.delete`` / ``AsyncTable.delete``;
- a coroutine (its signature starts with ``async``) named as a sibling with ``a``,
  ``async_`` before it or ``_async`` after it: ``Response.read`` / ``Response.aread``,
  ``connect`` / ``connect_async`` in one module. A plain function that happens to start
  with ``a`` (``add``) is no coroutine and keeps its name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from docmentor.library.models import ApiEntry

__all__ = ["editions"]


def _bare_class(name: str) -> str:
    """``AsyncClient`` → ``Client``; ``Asyncio`` and ``Async`` stay."""
    rest = name[len("Async") :]
    return rest if name.startswith("Async") and rest[:1].isupper() else name


def _sync_names(name: str) -> list[str]:
    """The names a coroutine's blocking twin may have."""
    out = []
    if name.startswith("async_") and len(name) > 6:
        out.append(name[6:])
    if name.endswith("_async") and len(name) > 6:
        out.append(name[:-6])
    if name.startswith("a") and len(name) > 1:
        out.append(name[1:])
    return out


def editions(entries: Iterable[ApiEntry]) -> list[list[str]]:
    """Groups of two or more api_ids that are editions of one API (each id in one group)."""
    entries = list(entries)
    by_id = {e.api_id: e for e in entries}

    def module(e: ApiEntry) -> str:
        return e.api_id.rpartition(".")[0]

    def owner(e: ApiEntry) -> tuple[str, ...]:
        """Where a member lives, twin classes alike: ("class", module, "Client") or ("module", path)."""
        parent = by_id.get(e.parent) if e.parent else None
        if parent is not None:
            return ("class", module(parent), _bare_class(parent.name))
        return ("module", module(e))

    members = {(owner(e), e.name) for e in entries if e.kind != "class"}
    groups: dict[tuple[object, ...], list[str]] = defaultdict(list)
    for e in entries:
        if e.kind == "module":
            continue
        if e.kind == "class":
            key: tuple[object, ...] = ("class", e.language, module(e), _bare_class(e.name))
        else:
            name = e.name
            if e.signature.startswith("async "):
                where = owner(e)
                name = next((s for s in _sync_names(e.name) if (where, s) in members), name)
            key = (e.language, owner(e), name)
        groups[key].append(e.api_id)
    return [sorted(ids) for ids in groups.values() if len(ids) > 1]
