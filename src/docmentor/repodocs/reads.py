"""What the agent's READ action reads, and each unit's own code: the source text of units
(cut to a token budget, or in pages of a token size: ``budget.py``), their outline (the
signatures of their members, for a unit too large for one page), their neighbours in the graph
(callees, callers, the owning class) and the committed documents of what a unit depends on and
contains.

``RepoView`` is built once per run from the units and the graph; its neighbour lists are
indexed up front, so a READ costs the size of its answer, not a pass over every edge.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from docmentor.assemble.tokens import DEFAULT_ENCODING
from docmentor.repodocs.budget import pages, share, trim
from docmentor.repodocs.graph import Graph
from docmentor.repodocs.order import Traversal
from docmentor.repodocs.units import Component, Module, Package, Repository, RepoUnits, Unit
from docmentor.repodocs.verify import source_names

GRANULARITY = {
    "function": "component",
    "method": "component",
    "class": "component",
    "module": "module",
    "package": "package",
    "repository": "repository",
}


class RepoView:
    """The repository as the agent reads it: units, their code and their neighbours."""

    def __init__(
        self, root: Path, repo: RepoUnits, graph: Graph, order: Traversal, encoding: str = DEFAULT_ENCODING
    ) -> None:
        self.root = root
        self.encoding = encoding  # what budgets are counted in
        self.repo = repo
        self.graph = graph
        self.order = order
        self.units: dict[str, Unit] = graph.units
        dropped = {(e.source, e.target, e.kind) for e in order.dropped}
        self.depends_on: dict[str, list[str]] = defaultdict(list)  # uses (not containment)
        self.children: dict[str, list[str]] = defaultdict(list)
        self.callees: dict[str, list[str]] = defaultdict(list)
        self.callers: dict[str, list[str]] = defaultdict(list)
        for e in graph.edges:
            if e.source == e.target:
                continue
            if e.kind == "contains":
                self.children[e.source].append(e.target)
                continue
            if (e.source, e.target, e.kind) not in dropped and e.target not in self.depends_on[e.source]:
                self.depends_on[e.source].append(e.target)
            if e.kind == "calls":
                self.callees[e.source].append(e.target)
                self.callers[e.target].append(e.source)
        self._lines: dict[str, list[str]] = {}
        self._pages: dict[tuple[str, int], list[str]] = {}
        self._names: dict[str, frozenset[str]] = {}

    # -- a unit's facts ---------------------------------------------------------------

    def kind(self, unit_id: str) -> str:
        return self.units[unit_id].kind

    def granularity(self, unit_id: str) -> str:
        return GRANULARITY[self.kind(unit_id)]

    def parent(self, unit_id: str) -> str | None:
        unit = self.units[unit_id]
        if isinstance(unit, Component | Package):
            return unit.parent
        if isinstance(unit, Module):
            return unit.package
        return None

    def owner(self, unit_id: str) -> str | None:
        """The class a method belongs to."""
        unit = self.units[unit_id]
        if isinstance(unit, Component) and unit.kind == "method":
            return unit.parent
        return None

    def callee_ids(self, unit_id: str) -> list[str]:
        """What the unit calls; a class: what its ``__init__`` calls too."""
        out = list(self.callees.get(unit_id, ()))
        unit = self.units[unit_id]
        if isinstance(unit, Component) and unit.kind == "class":
            init = f"{unit_id}.__init__"
            out += [c for c in self.callees.get(init, ()) if c not in out]
        return out

    def caller_ids(self, unit_id: str) -> list[str]:
        """What calls the unit (a class: where it is instantiated)."""
        return list(self.callers.get(unit_id, ()))

    def span(self, unit_id: str) -> str:
        unit = self.units[unit_id]
        if isinstance(unit, Component | Module):
            return f":{unit.line_start}-{unit.line_end}"
        return ""

    def signature(self, unit_id: str) -> str:
        unit = self.units[unit_id]
        return unit.signature if isinstance(unit, Component) else ""

    def imports(self, unit_id: str) -> list[str]:
        """The imports of the unit's module (and the unit's own lazy imports), as written."""
        unit = self.units[unit_id]
        module_id = unit.module if isinstance(unit, Component) else unit_id
        module = self.units.get(module_id)
        refs = list(module.imports) if isinstance(module, Module) else []
        if isinstance(unit, Component):
            refs += [r for r in unit.imports if r not in refs]
        out = []
        for r in refs:
            text = f"from {r.target} import {r.name}" if r.name is not None else f"import {r.target}"
            out.append(text + (f" as {r.alias}" if r.alias else ""))
        return list(dict.fromkeys(out))

    # -- code ---------------------------------------------------------------------------

    def full_source(self, unit_id: str) -> str:
        """The unit's code (a package or the repository: what it holds)."""
        unit = self.units[unit_id]
        if isinstance(unit, Package | Repository):
            kids = self.children.get(unit_id, [])
            return "Contains:\n" + "\n".join(f"- {k} ({self.kind(k)})" for k in kids)
        lines = self._file(unit.path)
        return "\n".join(lines[unit.line_start - 1 : unit.line_end])

    def module_source(self, unit_id: str) -> str:
        """The code of the file the unit is in (its own, for a package or the repository)."""
        unit = self.units[unit_id]
        if isinstance(unit, Component):
            return "\n".join(self._file(unit.path))
        return self.full_source(unit_id)

    def module_names(self, unit_id: str) -> frozenset[str]:
        """The names the code of the unit's file binds (``verify.source_names``), parsed once per
        file: a document may name them."""
        unit = self.units[unit_id]
        key = unit.path if isinstance(unit, Component | Module) else unit_id
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = source_names(self.module_source(unit_id))
        return found

    def source(self, unit_id: str, budget: int) -> str:
        """The unit's code within ``budget`` tokens (cut, saying so)."""
        return trim(self.full_source(unit_id), budget, self.encoding)

    def source_page(self, unit_id: str, page: int, size: int) -> tuple[str, int]:
        """Page ``page`` (from 1) of the unit's code in pages of ``size`` tokens ("" past the
        last), and how many pages there are: a unit too large for one request is read in pages
        instead of overflowing the model's context."""
        cut = self._pages.get((unit_id, size))
        if cut is None:
            cut = self._pages[(unit_id, size)] = pages(self.full_source(unit_id), size, self.encoding)
        return (cut[page - 1] if 1 <= page <= len(cut) else ""), len(cut)

    def outline(self, unit_id: str) -> str:
        """The unit's members by signature and lines, its docstring's first line and its size:
        what the task carries of a unit whose code takes more than one page."""
        unit = self.units[unit_id]
        lines = []
        doc = (getattr(unit, "docstring", None) or "").strip()
        if doc:
            lines.append(f"Docstring: {doc.splitlines()[0]}")
        if isinstance(unit, Component | Module):
            lines.append(
                f"Lines {unit.line_start}-{unit.line_end} ({unit.line_end - unit.line_start + 1} lines)"
            )
        for kid in self.children.get(unit_id, []):
            member = self.units[kid]
            if isinstance(member, Component):
                lines.append(f"- {member.signature}  [{kid}, lines {member.line_start}-{member.line_end}]")
            else:
                lines.append(f"- {kid} ({member.kind})")
        return "\n".join(lines)

    def sources(self, ids: list[str], budget: int) -> str:
        """Several units' code, each under a header with its location, within ``budget`` tokens
        (the largest cut first, saying so)."""
        parts = []
        for uid in ids:
            unit = self.units[uid]
            parts.append((f"### {uid} ({unit.kind}, {unit.path}{self.span(uid)})", self.full_source(uid)))
        return share(parts, budget, self.encoding)

    def _file(self, path: str) -> list[str]:
        lines = self._lines.get(path)
        if lines is None:
            try:
                raw = (self.root / path).read_bytes()
            except OSError:  # gone since it was read: nothing to show
                raw = b""
            lines = raw.decode("utf-8", errors="replace").splitlines()  # as the reader reads it
            self._lines[path] = lines
        return lines
