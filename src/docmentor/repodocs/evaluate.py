"""Evaluate a repository's generated documentation without a model: the code (``read_repository``,
``build_graph``, ``traversal``) against the output folder (``documentation.json`` and the
Markdown tree ``document_repository`` writes) and, when a RepoMemory run is given, its commit
order and trace. This module reads the documents and checks each against its unit; the link
check is ``evaluate_links.py``, a run's order and reads ``evaluate_run.py``, the result
records ``evaluate_metrics.py``.

The metrics (each a fraction in [0, 1] of the checks that pass, with every failing check listed
as unit id + what, so it can be fixed):

- **sections**: the sections the deterministic format (``deterministic.py``) requires of the
  unit's granularity, conditional on the code: Args exactly when the function has parameters
  (without a method's ``self``/``cls``), Returns exactly when it returns a value, Yields when it
  yields, Raises exactly when it raises; a class's Bases, Constructor, Attributes and Methods
  when it has them; a module's Public API when it has public definitions; a package's Modules
  and Subpackages; the repository's Architecture, Packages, Modules and Problems.
- **coverage**: the code's entities named in their section — a function's parameters (Args)
  and raised exception classes (Raises), a class's ``__init__`` parameters (Constructor),
  public methods (Methods) and attributes (Attributes), a module's public definitions (Public
  API), the repository's top-level packages and modules (Packages / Modules). A section that is
  missing is counted once, under sections, not again here.
- **signatures**: the Signature section's code block equals the code's decorators and signature.
- **symbols**: every name in a code span (outside fenced blocks; prose is not read) resolves
  (``verify.code_names`` / ``SymbolTable``,
  with the unit's own source as its local names), or is the path of a file of the repository.
- **links**: every relative link in the Markdown tree (outside code blocks and spans, its
  ``]`` not escaped) leads to a file of the tree and, with an
  anchor, to an ``<a id>`` or a heading of that file (web and ``mailto:`` links are not checked).
- **order** (a run given): for every dependency edge the traversal kept (not dropped to break a
  cycle) between two committed units, the dependency was committed first. The commit order is
  the run's trace (each unit's last ``FINISH``) when every committed unit has one, else the
  ``committed_at`` times (units committed in the same second are not ordered, not counted).
- **reads** (a run given): the share of READ actions that repeat one the same unit made before
  (same kind and query, else same target), the share answered from the cache, and the cache's
  hit count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError
from docmentor.repodocs.code_facts import CodeFacts, read_facts
from docmentor.repodocs.deterministic import has_returns, is_public, receiver_free
from docmentor.repodocs.evaluate_links import link_metric
from docmentor.repodocs.evaluate_metrics import Failure, Metric, ReadStats
from docmentor.repodocs.evaluate_run import order_metric, read_stats
from docmentor.repodocs.graph import Graph, build_graph
from docmentor.repodocs.markdown import rest_after_first_sentence
from docmentor.repodocs.output import JSON_NAME
from docmentor.repodocs.python_units import DEFAULT_MAX_BYTES, read_repository
from docmentor.repodocs.units import REPOSITORY_ID, Component, Module, Package, RepoUnits, Unit
from docmentor.repodocs.verify import (
    SymbolTable,
    code_names,
    documented_parameters,
    documented_raises,
    sections,
    source_names,
)

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["EvaluationError", "Failure", "Metric", "ReadStats", "RepoDocsEvaluation", "evaluate_docs"]

_ARGS_NAMES = ("args", "arguments", "parameters")


class EvaluationError(NotFoundError):
    """The output folder cannot be evaluated (no ``documentation.json`` of this format)."""


@dataclass(frozen=True, slots=True)
class RepoDocsEvaluation:
    """The metrics of one output folder (``order`` and ``reads`` only when a run was given);
    ``missing``: units of the code with no document, ``unknown``: documents of no unit."""

    root: str
    out: str
    units: int
    sections: Metric
    coverage: Metric
    signatures: Metric
    symbols: Metric
    links: Metric
    missing: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    order: Metric | None = None
    reads: ReadStats | None = None
    metrics: tuple[Metric, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        found = [self.sections, self.coverage, self.signatures, self.symbols, self.links]
        object.__setattr__(self, "metrics", tuple([*found, *([self.order] if self.order else [])]))

    @property
    def order_violations(self) -> int:
        return len(self.order.failures) if self.order else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "out": self.out,
            "units": self.units,
            "missing": list(self.missing),
            "unknown": list(self.unknown),
            "metrics": {m.name: m.to_dict() for m in self.metrics},
            "order_violations": self.order_violations if self.order else None,
            "reads": self.reads.to_dict() if self.reads else None,
        }


def evaluate_docs(
    root: Path,
    out: Path,
    *,
    store: Store | None = None,
    run_id: int | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> RepoDocsEvaluation:
    """Evaluate the documentation under ``out`` of the repository at ``root`` (see the module
    docstring); with ``store`` and ``run_id``, the RepoMemory run's order and reads too.
    Raises ``EvaluationError`` when ``out`` holds no readable ``documentation.json`` and
    ``NotADirectoryError`` when ``root`` is no folder."""
    root = root.resolve()
    out = out.resolve()
    texts, places = _documents(out)
    units = read_repository(root, max_bytes=max_bytes)
    graph = build_graph(units)
    code = _Code(root, units, graph, read_facts(root, units))
    all_units = units.units()
    checks = _Checks()
    for unit_id in sorted(set(all_units) & set(texts)):
        checks.unit(code, all_units[unit_id], texts[unit_id])
    links = link_metric(out, places)
    order = reads = None
    if store is not None and run_id is not None:
        order = order_metric(store, run_id, graph)
        reads = read_stats(store, run_id)
    return RepoDocsEvaluation(
        root=str(root),
        out=str(out),
        units=len(all_units),
        sections=checks.metric("sections"),
        coverage=checks.metric("coverage"),
        signatures=checks.metric("signatures"),
        symbols=checks.metric("symbols"),
        links=links,
        missing=tuple(sorted(set(all_units) - set(texts))),
        unknown=tuple(sorted(set(texts) - set(all_units))),
        order=order,
        reads=reads,
    )


# -- the documents and the code -------------------------------------------------------------


def _documents(out: Path) -> tuple[dict[str, str], dict[tuple[str, str | None], str]]:
    """Each unit's document text by id, and each unit's id by its (page, anchor)."""
    try:
        data = json.loads((out / JSON_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EvaluationError(f"{out / JSON_NAME} cannot be read: {exc}") from exc
    entries = data.get("units") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise EvaluationError(f"{out / JSON_NAME} has no list of units")
    texts: dict[str, str] = {}
    places: dict[tuple[str, str | None], str] = {}
    for e in entries:
        if isinstance(e, dict) and isinstance(e.get("id"), str):
            texts[e["id"]] = str(e.get("text") or "")
            if isinstance(e.get("page"), str):
                anchor = e.get("anchor")
                places[(e["page"], anchor if isinstance(anchor, str) else None)] = e["id"]
    return texts, places


class _Code:
    """What the checks need from the code: units, graph, facts, symbols, source lines."""

    def __init__(self, root: Path, units: RepoUnits, graph: Graph, facts: CodeFacts) -> None:
        self.root = root
        self.units = units
        self.facts = facts
        self.table = SymbolTable(units, graph)
        self.modules = {m.id: m for m in units.modules}
        self.paths = frozenset([*(m.path for m in units.modules), *(p.path for p in units.problems)])
        self.components = {c.id: c for c in units.components}
        self._lines: dict[str, list[str]] = {}

    def source(self, unit: Unit) -> str:
        if not isinstance(unit, Component | Module):
            return ""
        if unit.path not in self._lines:
            try:
                text = (self.root / unit.path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[unit.path] = text.splitlines()
        return "\n".join(self._lines[unit.path][unit.line_start - 1 : unit.line_end])


class _Checks:
    """The per-document checks, their counts and failures by metric."""

    def __init__(self) -> None:
        self.checked: dict[str, int] = {}
        self.failed: dict[str, list[Failure]] = {}

    def count(self, metric: str, unit_id: str, ok: bool, what: str) -> None:
        self.checked[metric] = self.checked.get(metric, 0) + 1
        if not ok:
            self.failed.setdefault(metric, []).append(Failure(unit_id, what))

    def metric(self, name: str) -> Metric:
        failures = tuple(self.failed.get(name, []))
        checked = self.checked.get(name, 0)
        return Metric(name, checked, checked - len(failures), failures)

    def unit(self, code: _Code, unit: Unit, document: str) -> None:
        found = sections(document)
        for name, wanted in _expected_sections(code, unit):
            present = _section(found, name) is not None
            if wanted:
                self.count("sections", unit.id, present, f"missing section: {name.title()}")
            elif name in _CONDITIONAL and present:
                self.count("sections", unit.id, False, f"section the code does not call for: {name.title()}")
            elif name in _CONDITIONAL:
                self.count("sections", unit.id, True, "")
        for section, entity, names in _entities(code, unit):
            lines = _section(found, section)
            if lines is None:
                continue  # counted under sections
            listed = _listed(lines, section, document)
            ok = any(n in listed for n in names)
            self.count("coverage", unit.id, ok, f"{entity} not under {section.title()}: {names[0]}")
        if isinstance(unit, Component):
            self._signature(unit, found)
        local = source_names(code.source(unit))
        for name in code_names(_spans_only(document)):
            ok = name in code.paths or code.table.resolves(name, local)
            self.count("symbols", unit.id, ok, f"names something that resolves nowhere: `{name}`")

    def _signature(self, c: Component, found: dict[str, list[str]]) -> None:
        lines = _section(found, "signature")
        if lines is None:
            return  # counted under sections
        expected = "\n".join([*(f"@{d}" for d in c.decorators), c.signature])
        written = "\n".join(_fenced(lines)).strip()
        self.count(
            "signatures", c.id, written == expected, f"signature {written!r} is not the code's {expected!r}"
        )


# -- sections and entities ----------------------------------------------------------------

_CONDITIONAL = frozenset({"args", "returns", "yields", "raises"})


def _expected_sections(code: _Code, unit: Unit) -> list[tuple[str, bool]]:
    """(section, required) pairs; a conditional section with ``False`` must be absent."""
    if isinstance(unit, Component) and unit.kind != "class":
        return [
            ("summary", True),
            ("description", bool(rest_after_first_sentence(unit.docstring))),
            ("signature", True),
            ("args", bool(receiver_free(unit))),
            ("returns", has_returns(unit, code.facts)),
            ("yields", unit.id in code.facts.yields),
            ("raises", bool(unit.raises)),
            ("source", True),
        ]
    if isinstance(unit, Component):
        return [
            ("summary", True),
            ("signature", True),
            ("bases", bool(unit.bases)),
            ("constructor", unit.init_signature is not None),
            ("attributes", bool(unit.attributes)),
            ("methods", bool(unit.members)),
            ("source", True),
        ]
    if isinstance(unit, Module):
        public = [c for c in unit.components if is_public(code.components[c].name)]
        return [("role", True), ("public api", bool(public)), ("source", True)]
    if isinstance(unit, Package):
        modules = [c for c in unit.children if c in code.modules]
        return [
            ("summary", True),
            ("modules", bool(modules)),
            ("subpackages", len(modules) < len(unit.children)),
        ]
    units = code.units
    return [
        ("purpose", True),
        ("architecture", bool(units.modules)),
        ("packages", bool(units.packages)),
        ("modules", bool(units.modules)),
        ("problems", bool(units.problems)),
    ]


def _entities(code: _Code, unit: Unit) -> list[tuple[str, str, tuple[str, ...]]]:
    """(section, what, accepted names) for every entity the code has that its section names."""
    out: list[tuple[str, str, tuple[str, ...]]] = []
    if isinstance(unit, Component) and unit.kind != "class":
        out += [("args", "parameter", (p.name,)) for p in receiver_free(unit)]
        local = code.facts.local_names.get(unit.id, frozenset())
        raised = [r for r in unit.raises if r.split(".")[0] not in local]  # not a re-raised variable
        out += [("raises", "raised exception", (r, r.rsplit(".", 1)[-1])) for r in dict.fromkeys(raised)]
    elif isinstance(unit, Component):
        out += [("constructor", "constructor parameter", (p.name,)) for p in unit.parameters]
        for m in unit.members:
            member = code.components[m]
            if is_public(member.name) and member.kind != "class":
                out.append(("methods", "public method", (m, member.qualname, member.name)))
        out += [("attributes", "attribute", (a,)) for a in unit.attributes]
    elif isinstance(unit, Module):
        for c in unit.components:
            component = code.components[c]
            if is_public(component.name):
                out.append(("public api", "public definition", (c, component.qualname)))
    elif unit.id == REPOSITORY_ID:
        for p in code.units.packages:
            if p.parent == REPOSITORY_ID:
                out.append(("packages", "top-level package", (p.id,)))
        for mod in code.units.modules:
            if mod.package == REPOSITORY_ID:
                out.append(("modules", "top-level module", (mod.id,)))
    return out


def _section(found: dict[str, list[str]], name: str) -> list[str] | None:
    if name == "args":
        return next((found[n] for n in _ARGS_NAMES if n in found), None)
    return found.get(name)


def _listed(lines: list[str], section: str, document: str) -> set[str]:
    """The names a section lists: each top-level list item's first code span (``*`` of
    ``*args`` dropped), plus what ``verify`` reads under Args and Raises."""
    names: set[str] = set()
    for line in lines:
        stripped = line.lstrip()
        if not stripped.startswith(("- ", "* ", "+ ")) and not stripped.startswith("`"):
            continue
        pieces = stripped.split("`")
        if len(pieces) >= 3:
            names.add(pieces[1].strip().lstrip("*"))
    if section == "args":
        names.update(documented_parameters(document))
    elif section == "raises":
        names.update(documented_raises(document))
    elif section == "constructor":
        names.update(documented_parameters("## Args\n\n" + "\n".join(lines)))
    return names


def _spans_only(document: str) -> str:
    """The document's code spans only (outside fenced blocks; an escaped backtick opens none),
    one line of spans per line, so ``code_names`` reads no prose."""
    out: list[str] = []
    fenced = False
    for line in document.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            pieces = line.replace("\\`", "").split("`")
            closed = len(pieces) - (1 if len(pieces) % 2 == 0 else 0)
            out.append(" ".join(f"`{p}`" for i, p in enumerate(pieces) if i % 2 == 1 and i < closed))
    return "\n".join(out)


def _fenced(lines: list[str]) -> list[str]:
    """The lines of the first fenced block."""
    out: list[str] = []
    inside = False
    for line in lines:
        if line.strip().startswith(("```", "~~~")):
            if inside:
                break
            inside = True
            continue
        if inside:
            out.append(line)
    return out
