"""The checks of one unit's document against its code, counted by metric: sections, coverage,
signatures, parameters and symbols (``evaluate.py``'s docstring defines them). What a document
must hold depends on its origin: a document written from the code (``deterministic.py``'s
format) or by the model (``prompts.FORMATS``, the paper's granularity formats), each
conditional on the code in the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from docmentor.repodocs.code_facts import CodeFacts
from docmentor.repodocs.deterministic import has_returns, receiver_free
from docmentor.repodocs.evaluate_metrics import Failure, Metric
from docmentor.repodocs.evaluate_params import parameter_checks
from docmentor.repodocs.graph import Graph
from docmentor.repodocs.markdown import rest_after_first_sentence
from docmentor.repodocs.model_format import CONDITIONAL, has_mermaid, model_section, model_sections
from docmentor.repodocs.model_format import title as section_title
from docmentor.repodocs.units import REPOSITORY_ID, Component, Module, Package, RepoUnits, Unit, is_public
from docmentor.repodocs.verify import (
    SymbolTable,
    code_names,
    documented_parameters,
    documented_raises,
    sections,
    source_names,
    unit_file,
    unit_language,
)

__all__ = ["CodeView", "DocumentChecks", "Origin", "expected_sections"]

Origin = Literal["code", "model"]


class CodeView:
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
        """The unit's source text (a module's whole file); "" for a package or the repository."""
        if not isinstance(unit, Component | Module):
            return ""
        if unit.path not in self._lines:
            try:
                text = (self.root / unit.path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[unit.path] = text.splitlines()
        return "\n".join(self._lines[unit.path][unit.line_start - 1 : unit.line_end])


class DocumentChecks:
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

    def unit(self, code: CodeView, unit: Unit, document: str, origin: Origin = "code") -> None:
        """Check ``document``, of ``origin``, against ``unit``'s code."""
        found = sections(document)
        for name, wanted in expected_sections(code, unit, origin):
            lines = _section(found, name, origin)
            title = section_title(name)
            if wanted:
                ok = lines is not None and (name != "diagram" or origin == "code" or has_mermaid(lines))
                what = f"missing section: {title}" if lines is None else f"no Mermaid block under {title}"
                self.count("sections", unit.id, ok, what)
            elif name in CONDITIONAL:
                ok = lines is None
                self.count("sections", unit.id, ok, f"section the code does not call for: {title}")
        for names_of, entity, names in _entities(code, unit, origin):
            listed: set[str] = set()
            present = False
            for section in names_of:
                lines = _section(found, section, origin)
                if lines is not None:
                    present = True
                    listed |= _listed(lines, section, document)
            if not present:
                continue  # counted under sections
            ok = any(n in listed for n in names)
            where = " or ".join(section_title(s) for s in names_of)
            self.count("coverage", unit.id, ok, f"{entity} not under {where}: {names[0]}")
        if isinstance(unit, Component):
            if origin == "code":
                self._signature(unit, found)
            self._parameters(unit, found, origin)
        local = source_names(code.source(unit))
        language, path = unit_language(unit), unit_file(unit)
        for name in code_names(_spans_only(document)):
            ok = name in code.paths or code.table.resolves(name, local, language, path)
            self.count("symbols", unit.id, ok, f"names something that resolves nowhere: `{name}`")

    def _signature(self, c: Component, found: dict[str, list[str]]) -> None:
        lines = _section(found, "signature", "code")
        if lines is None:
            return  # counted under sections
        expected = "\n".join([*(f"@{d}" for d in c.decorators), c.signature])
        written = "\n".join(_fenced(lines)).strip()
        self.count(
            "signatures", c.id, written == expected, f"signature {written!r} is not the code's {expected!r}"
        )

    def _parameters(self, c: Component, found: dict[str, list[str]], origin: Origin) -> None:
        """What Args (a class's Constructor, in the code's format) states of each parameter."""
        if c.kind == "class":
            params = c.parameters
            lines = _section(found, "constructor" if origin == "code" else "args", origin)
        else:
            params = receiver_free(c)
            lines = _section(found, "args", origin)
        for ok, what in parameter_checks(c, params, lines or []):
            self.count("parameters", c.id, ok, what)


# -- sections and entities ----------------------------------------------------------------


def expected_sections(code: CodeView, unit: Unit, origin: Origin) -> list[tuple[str, bool]]:
    """(section, required) pairs of ``unit``'s document of ``origin``; a conditional section
    (Args, Returns, Yields, Raises) with ``False`` must be absent."""
    if origin == "model":
        return model_sections(unit, code.facts, code.components)
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
        public = [c for c in unit.components if is_public(code.components[c])]
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


Entity = tuple[tuple[str, ...], str, tuple[str, ...]]  # sections, what, accepted names


def _entities(code: CodeView, unit: Unit, origin: Origin) -> list[Entity]:
    """(sections, what, accepted names) for every entity the code has that one of the sections
    of ``origin``'s format names."""
    out: list[Entity] = []
    model = origin == "model"
    if isinstance(unit, Component) and unit.kind != "class":
        out += [(("args",), "parameter", (p.name,)) for p in receiver_free(unit)]
        local = code.facts.local_names.get(unit.id, frozenset())
        raised = [r for r in unit.raises if r.split(".")[0] not in local]  # not a re-raised variable
        out += [(("raises",), "raised exception", (r, r.rsplit(".", 1)[-1])) for r in dict.fromkeys(raised)]
    elif isinstance(unit, Component):
        init = ("args",) if model else ("constructor",)
        out += [(init, "constructor parameter", (p.name,)) for p in unit.parameters]
        for m in unit.members:
            member = code.components[m]
            if is_public(member) and member.kind != "class":
                out.append((("methods",), "public method", (m, member.qualname, member.name)))
        out += [(("attributes",), "attribute", (a,)) for a in unit.attributes]
    elif isinstance(unit, Module):
        where = ("components", "public api") if model else ("public api",)
        for c in unit.components:
            component = code.components[c]
            if is_public(component):
                out.append((where, "public definition", (c, component.qualname)))
    elif isinstance(unit, Package):
        if model:
            out += [(("overview",), "module or sub-package", (child,)) for child in unit.children]
    elif unit.id == REPOSITORY_ID:
        packages, modules = (("overview",), ("overview",)) if model else (("packages",), ("modules",))
        for p in code.units.packages:
            if p.parent == REPOSITORY_ID:
                out.append((packages, "top-level package", (p.id,)))
        for mod in code.units.modules:
            if mod.package == REPOSITORY_ID:
                out.append((modules, "top-level module", (mod.id,)))
    return out


def _section(found: dict[str, list[str]], name: str, origin: Origin) -> list[str] | None:
    if origin == "model" or name == "args":
        return model_section(found, name)
    return found.get(name)


def _listed(lines: list[str], section: str, document: str) -> set[str]:
    """The names a section lists: each top-level list item's first code span (``*`` of
    ``*args`` dropped), the ``name (…): …`` entries, the pages its links lead to (``id.md``),
    plus what ``verify`` reads under Args and Raises."""
    names: set[str] = set()
    for line in lines:
        stripped = line.lstrip()
        if not stripped.startswith(("- ", "* ", "+ ")) and not stripped.startswith("`"):
            continue
        pieces = stripped.split("`")
        if len(pieces) >= 3:
            names.add(pieces[1].strip().lstrip("*"))
        at = stripped.find("](")
        if at != -1:
            target = stripped[at + 2 :].split(")", 1)[0].split("#", 1)[0]
            names.add(target.rsplit("/", 1)[-1].removesuffix(".md"))
    if section == "args":
        names.update(documented_parameters(document))
    elif section == "raises":
        names.update(documented_raises(document))
    else:
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
