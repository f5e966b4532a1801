"""The library's classes by their bases as written: which class a base names, subclasses.

Used by the drift report (is a member missing, or on a subclass?) and by deprecation
(is every override of a method deprecated?).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from docmentor.library.models import ApiEntry

__all__ = ["ClassTree"]


class ClassTree:
    """Classes of one surface, linked to the bases their definitions name."""

    def __init__(
        self, entries: Iterable[ApiEntry], lookup: Callable[[str], ApiEntry | None] | None = None
    ) -> None:
        """
        Args:
            entries: the surface's entries (only classes are kept).
            lookup: resolves a dotted name to an entry (default: the classes' ids and aliases).
        """
        classes = [e for e in entries if e.kind == "class"]
        if lookup is None:
            names = {path: e for e in classes for path in (*e.aliases, e.api_id)}
            lookup = names.get
        self._lookup = lookup
        self.by_short: dict[str, list[ApiEntry]] = {}
        for e in classes:
            self.by_short.setdefault(e.name, []).append(e)
        self.bases: dict[str, list[str]] = {}
        self.children: dict[str, list[str]] = {}
        for e in classes:
            resolved = [b for b in (self.base(e, text) for text in e.bases) if b]
            self.bases[e.api_id] = resolved
            for b in resolved:
                self.children.setdefault(b, []).append(e.api_id)

    def base(self, cls: ApiEntry, text: str) -> str | None:
        """api_id of a base class as written in ``cls``'s definition, when it is in the surface."""
        text = text.split("[", 1)[0].strip()
        module = cls.api_id.rpartition(".")[0]
        while "." in module and self._lookup(module) is not None:  # a nested class's module is its class's
            module = module.rpartition(".")[0]
        found = self._lookup(text) or self._lookup(f"{module}.{text}")
        if found is None:  # imported under its short name from elsewhere in the library
            same = self.by_short.get(text.rpartition(".")[2], [])
            found = same[0] if len(same) == 1 else None
        return found.api_id if found is not None and found.kind == "class" else None

    def subclasses(self, api_id: str) -> Iterator[str]:
        """Every class below ``api_id``, depth first, each once (not ``api_id`` itself)."""
        seen = {api_id}
        todo = list(self.children.get(api_id, []))
        while todo:
            sub = todo.pop()
            if sub in seen:
                continue
            seen.add(sub)
            yield sub
            todo += self.children.get(sub, [])
