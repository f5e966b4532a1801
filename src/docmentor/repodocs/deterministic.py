"""Documents for every unit written from the code alone, without a model (issue 21's
no-LLM mode, and the base a model's documents enrich).

Each granularity has the sections of the MemDocAgent paper's formats, and a section is
written exactly when the code determines it:

- function / method: Summary (the docstring's first sentence, else a sentence built from
  the signature, saying so), Description (the rest of the docstring, when there is any),
  Signature, Args (parameters other than a method's ``self``/``cls``), Returns (a return
  annotation other than ``None``, or a ``return <value>``), Yields (a ``yield``), Raises
  (exception names its ``raise`` statements name), Calls and Called by (in-repository units,
  linked; outside names as code), Source.
- class: Summary, Description, Signature, Bases, Constructor (its ``__init__``'s parameters,
  or a dataclass's fields), Attributes, Methods (the method map), Subclasses, Calls,
  Called by (instantiation sites), Source.
- module: Role (the docstring's first paragraph, else a built sentence), Description, Public
  API (top-level components that are public: ``units.is_public``, by the language's rule),
  Private definitions, Dependencies (in
  the repository, linked, and outside it), Imported by, Diagram (Mermaid: its components'
  calls and inheritance, the modules it imports), Source.
- package: Summary, Modules, Subpackages.
- repository: Purpose (the README's first paragraph, else the top package's docstring, else
  a built sentence), Architecture (Mermaid: packages and top modules, their imports),
  Packages, Modules (every module, linked, with its role), Problems (files not read).

Text taken from the code's docstrings and the README is escaped (``markdown.plain``), so it
cannot open a link or a code span: every code span and link here is written by this module
from the units, and names only units, parameters, annotations, defaults and exception names
as written, and imported names. Links are relative to the unit's page (``Layout``).
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from docmentor.repodocs.code_facts import CodeFacts
from docmentor.repodocs.graph import Graph
from docmentor.repodocs.markdown import (
    code,
    fence,
    first_paragraph,
    first_sentence,
    mermaid_label,
    plain,
    quote,
    rest_after_first_sentence,
    without_lead_in,
)
from docmentor.repodocs.treesitter_units import fence_language, returns_value
from docmentor.repodocs.units import (
    REPOSITORY_ID,
    Component,
    Module,
    Package,
    Parameter,
    RepoUnits,
    Unit,
    is_public,
)

MAX_DIAGRAM_EDGES = 80  # a diagram draws at most this many edges (the rest are counted)
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_README_NAMES = ("README.md", "README.rst", "README.txt", "README")


@dataclass(frozen=True, slots=True)
class Section:
    """One section of a document: its name (the heading) and its Markdown body."""

    name: str
    body: str


@dataclass(frozen=True, slots=True)
class UnitDocument:
    """A unit's document: ``title`` is its heading's text, ``sections`` in order;
    ``depends_on`` the ids it has calls/imports/inherits edges to, ``children`` the ids it
    contains."""

    id: str
    kind: str
    title: str
    path: str
    line_start: int | None
    line_end: int | None
    content_hash: str
    page: str
    anchor: str | None
    sections: tuple[Section, ...]
    depends_on: tuple[str, ...]
    children: tuple[str, ...]

    def text(self, level: int = 2) -> str:
        """The sections as Markdown, each under a heading of ``level`` (at most 6)."""
        marks = "#" * min(level, 6)
        return "\n\n".join(f"{marks} {s.name}\n\n{s.body}" for s in self.sections) + "\n"

    def section_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sections)


class Layout:
    """Where each unit's document is: the repository in ``index.md``, a package in
    ``packages/<name>.md``, a module in ``modules/<name>.md``, a component as a section of
    its module's page with an anchor. Names are the ids where they are safe file names, else
    the id made safe plus a short hash of it (also when two names differ only by case)."""

    def __init__(self, units: RepoUnits) -> None:
        self.pages: dict[str, str] = {REPOSITORY_ID: "index.md"}
        self.anchors: dict[str, str] = {}
        for folder, ids in (
            ("packages", [p.id for p in units.packages]),
            ("modules", [m.id for m in units.modules]),
        ):
            taken: set[str] = set()
            for unit_id in sorted(ids):
                name = _UNSAFE.sub("-", unit_id).strip("-.") or "unit"
                if name != unit_id or name.lower() in taken:
                    name = f"{name}-{hashlib.sha256(unit_id.encode()).hexdigest()[:8]}"
                taken.add(name.lower())
                self.pages[unit_id] = f"{folder}/{name}.md"
        for c in units.components:
            self.pages[c.id] = self.pages[c.module]
            local = c.id[len(c.module) + 1 :]  # the qualname, with a #2 of a name defined twice
            anchor = "c-" + local.replace("#", "--").replace(".", "-")
            safe = _UNSAFE.sub("-", anchor)  # a TS member named by a string: `"~validate"`
            self.anchors[c.id] = (
                safe if safe == anchor else f"{safe}-{hashlib.sha256(local.encode()).hexdigest()[:8]}"
            )

    def href(self, unit_id: str, from_id: str) -> str:
        """The relative link from ``from_id``'s page to ``unit_id``'s document."""
        page = self.pages[unit_id]
        prefix = "" if self.pages[from_id] == "index.md" else "../"
        anchor = self.anchors.get(unit_id)
        return f"{prefix}{page}" + (f"#{anchor}" if anchor else "")


def receiver_free(c: Component) -> tuple[Parameter, ...]:
    """A function's parameters, without a method's ``self``/``cls`` (its first parameter,
    unless it is a static method)."""
    if (
        c.kind == "method"
        and c.method_kind != "static"
        and c.parameters
        and c.parameters[0].kind in ("positional_only", "positional_or_keyword")
    ):
        return c.parameters[1:]
    return c.parameters


def annotated_value(c: Component) -> bool:
    """The function's written return type says it returns a value: not ``None`` (Python), not
    ``void``/``never``/``Promise<void>`` (TypeScript), not ``()`` (Rust); Go's result list."""
    if c.returns is None:
        return False
    if fence_language(c.path) == "python":
        return c.returns.strip() != "None"
    return returns_value(c.returns)


def has_returns(c: Component, facts: CodeFacts) -> bool:
    """Returns is written: a return annotation that says a value (``annotated_value``), or
    none and a ``return <value>`` (a TypeScript function annotated ``void`` has none)."""
    if fence_language(c.path) == "python":
        return annotated_value(c) or c.id in facts.returns_value
    if c.returns is not None:
        return annotated_value(c)
    return c.id in facts.returns_value


def readme_paragraph(root: Path) -> str:
    """The first paragraph of the repository's README that is prose (not a heading, a badge
    line, an HTML line or a directive), or empty."""
    try:  # any case: immer's readme.md, a Readme.rst
        present = {p.name.lower(): p for p in root.iterdir() if p.is_file()}
    except OSError:
        return ""
    for name in _README_NAMES:
        path = present.get(name.lower())
        if path is None:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        paragraph: list[str] = []
        for line in text.splitlines():
            stripped = line.strip()
            if not stripped:
                if paragraph:
                    break
                continue
            if not paragraph and stripped.startswith(("#", "[!", "![", "<", "..", "=", "-", "*", "`", "|")):
                continue
            paragraph.append(stripped)
        return without_lead_in(" ".join(paragraph))
    return ""


class Documenter:
    """Builds every unit's document from the units, their graph and the code facts."""

    def __init__(self, units: RepoUnits, graph: Graph, facts: CodeFacts, root: Path) -> None:
        self.units = units
        self.graph = graph
        self.facts = facts
        self.root = root
        self.layout = Layout(units)
        self.all = units.units()
        self.components = {c.id: c for c in units.components}
        self.modules = {m.id: m for m in units.modules}
        self.out_edges: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.in_edges: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for e in graph.edges:
            if e.kind != "contains":
                self.out_edges[e.source].append((e.kind, e.target))
                self.in_edges[e.target].append((e.kind, e.source))

    # -- shared pieces ----------------------------------------------------------------------

    def link(self, unit_id: str, from_id: str) -> str:
        return f"[{code(unit_id)}]({self.layout.href(unit_id, from_id)})"

    def targets(self, unit_id: str, kind: str) -> list[str]:
        return sorted({t for k, t in self.out_edges.get(unit_id, []) if k == kind})

    def sources(self, unit_id: str, kind: str) -> list[str]:
        return sorted({s for k, s in self.in_edges.get(unit_id, []) if k == kind})

    def one_line(self, unit_id: str) -> str:
        """A unit's one-line description: its docstring's first sentence, escaped."""
        unit = self.all[unit_id]
        if isinstance(unit, Component):
            return plain(first_sentence(unit.docstring))
        if isinstance(unit, Module):
            return plain(first_sentence(unit.docstring))
        if isinstance(unit, Package):
            init = self.modules.get(f"{unit.id}.__init__")
            return plain(first_sentence(init.docstring)) if init else ""
        return ""

    def listed(self, unit_id: str, from_id: str, label: str | None = None) -> str:
        line = self.one_line(unit_id)
        head = f"- {self.link(unit_id, from_id)}" + (f" ({label})" if label else "")
        return f"{head}: {line}" if line else head

    def source(self, path: str, start: int, end: int) -> Section:
        return Section("Source", f"{code(f'{path}:{start}-{end}')} (lines {start}–{end})")

    def document(self, unit: Unit, sections: list[Section], title: str) -> UnitDocument:
        span = (unit.line_start, unit.line_end) if isinstance(unit, Component | Module) else (None, None)
        depends = sorted({t for _, t in self.out_edges.get(unit.id, [])})
        if isinstance(unit, Component):
            children: tuple[str, ...] = unit.members
        elif isinstance(unit, Module):
            children = unit.components
        else:
            children = unit.children
        return UnitDocument(
            id=unit.id,
            kind=unit.kind,
            title=title,
            path=unit.path,
            line_start=span[0],
            line_end=span[1],
            content_hash=unit.content_hash,
            page=self.layout.pages[unit.id],
            anchor=self.layout.anchors.get(unit.id),
            sections=tuple(sections),
            depends_on=tuple(depends),
            children=tuple(sorted(children)),
        )

    # -- components -------------------------------------------------------------------------

    def component(self, c: Component) -> UnitDocument:
        sections = [self._summary(c)]
        description = rest_after_first_sentence(c.docstring)
        if description:
            sections.append(Section("Description", quote(description)))
        signature = "\n".join([*(f"@{d}" for d in c.decorators), c.signature])
        sections.append(Section("Signature", fence(signature, fence_language(c.path))))
        if c.overloads:  # the @overload stubs: the calls type checkers accept
            sections.append(Section("Overloads", fence("\n".join(c.overloads), fence_language(c.path))))
        if c.kind == "class":
            sections += self._class_sections(c)
        else:
            sections += self._function_sections(c)
        calls = self._calls(c)
        if calls:
            sections.append(Section("Calls", calls))
        callers = self.sources(c.id, "calls")
        if callers:
            sections.append(Section("Called by", "\n".join(self.listed(s, c.id) for s in callers)))
        sections.append(self.source(c.path, c.line_start, c.line_end))
        local = c.id[len(c.module) + 1 :]
        return self.document(c, sections, f"{code(local)} ({self._kind_label(c)})")

    def _kind_label(self, c: Component) -> str:
        if c.kind == "class":
            return "class"
        prefix = "async " if c.is_async else ""
        if c.kind == "function":
            return f"{prefix}function"
        return {"static": "static method", "class": "class method", "property": "property"}.get(
            c.method_kind or "", f"{prefix}method"
        )

    def _summary(self, c: Component) -> Section:
        sentence = first_sentence(c.docstring)
        if sentence:
            return Section("Summary", quote(sentence))
        owner = self.all.get(c.parent)
        where = (
            f"of class {code(owner.qualname)}"
            if isinstance(owner, Component)
            else f"in module {code(c.module)}"
        )
        if c.kind == "class":
            bases = [b for b in c.bases if "=" not in b]
            based = f", derived from {', '.join(code(b) for b in bases)}" if bases else ""
            text = f"{code(c.name)} is a class {where}{based}."
        else:
            params = receiver_free(c)
            takes = "takes " + _names([code(_shown(p)) for p in params]) if params else "takes no arguments"
            gives = ""
            if annotated_value(c) and c.returns is not None:
                gives = f" and returns {code(c.returns)}"
            elif has_returns(c, self.facts):
                gives = " and returns a value"
            text = f"{code(c.name)} is {_article(self._kind_label(c))} {where} that {takes}{gives}."
        return Section("Summary", text + " (No docstring: this sentence is built from the signature.)")

    def _function_sections(self, c: Component) -> list[Section]:
        out: list[Section] = []
        params = receiver_free(c)
        if params:
            out.append(Section("Args", _parameter_list(params)))
        if has_returns(c, self.facts):
            if annotated_value(c) and c.returns is not None:
                out.append(Section("Returns", code(c.returns)))
            else:
                out.append(Section("Returns", "A value (the function has no return annotation)."))
        if c.id in self.facts.yields:
            out.append(Section("Yields", "Values, one per `yield` (a generator)."))
        if c.raises:
            local = self.facts.local_names.get(c.id, frozenset())
            lines = [
                f"- {code(r)}"
                + (" (a variable holding the exception: re-raised)" if r.split(".")[0] in local else "")
                for r in c.raises
            ]
            out.append(Section("Raises", "\n".join(lines)))
        return out

    def _class_sections(self, c: Component) -> list[Section]:
        out: list[Section] = []
        bases = list(c.bases)
        if bases:
            in_repo = self.targets(c.id, "inherits")
            lines = [f"- {code(b)}" for b in bases]
            lines += [f"- in this repository: {self.link(t, c.id)}" for t in in_repo]
            out.append(Section("Bases", "\n".join(lines)))
        if c.init_signature is not None:
            body = f"{code(c.name + c.init_signature)}"
            body += "\n\n" + _parameter_list(c.parameters) if c.parameters else "\n\nTakes no arguments."
            out.append(Section("Constructor", body))
        if c.attributes:
            out.append(Section("Attributes", "\n".join(f"- {code(a)}" for a in c.attributes)))
        if c.members:
            lines = [self.listed(m, c.id, self._kind_label(self.components[m])) for m in c.members]
            out.append(Section("Methods", "\n".join(lines)))
        subclasses = self.sources(c.id, "inherits")
        if subclasses:
            out.append(Section("Subclasses", "\n".join(f"- {self.link(s, c.id)}" for s in subclasses)))
        return out

    def _calls(self, c: Component) -> str:
        lines = [self.listed(t, c.id) for t in self.targets(c.id, "calls")]
        lines += [f"- {code(name)} (outside the repository)" for name in self.graph.external.get(c.id, ())]
        return "\n".join(lines)

    # -- modules, packages, repository ------------------------------------------------------

    def module(self, m: Module) -> UnitDocument:
        role = first_paragraph(m.docstring)
        if role:
            sections = [Section("Role", quote(role))]
        else:
            counts = _counts([self.components[c].kind for c in m.components])
            text = f"Module {code(m.id)} ({m.path}) defines {counts}."
            sections = [
                Section("Role", text + " (No module docstring: this sentence is built from the code.)")
            ]
        rest = _after_first_paragraph(m.docstring or "")
        if rest:
            sections.append(Section("Description", quote(rest)))
        public = [c for c in m.components if is_public(self.components[c])]
        private = [c for c in m.components if not is_public(self.components[c])]
        if public:
            lines = [self.listed(c, m.id, self._kind_label(self.components[c])) for c in public]
            sections.append(Section("Public API", "\n".join(lines)))
        reexported = self._reexported(m.id, m.id)
        if reexported:
            sections.append(Section("Re-exported", reexported))
        if private:
            lines = [self.listed(c, m.id, self._kind_label(self.components[c])) for c in private]
            sections.append(Section("Private definitions", "\n".join(lines)))
        dependencies = self._dependencies(m)
        if dependencies:
            sections.append(Section("Dependencies", dependencies))
        importers = self.sources(m.id, "imports")
        if importers:
            sections.append(Section("Imported by", "\n".join(f"- {self.link(s, m.id)}" for s in importers)))
        diagram = self._module_diagram(m)
        if diagram:
            sections.append(Section("Diagram", diagram))
        sections.append(self.source(m.path, m.line_start, m.line_end))
        return self.document(m, sections, f"Module {code(m.id)}")

    def _reexported(self, module_id: str, from_id: str) -> str:
        """The names a module's ``__all__`` re-exports, each linked to what it names: the
        public names its users import (``httpx.Client``, defined in ``httpx._client``)."""
        return "\n".join(
            f"- {plain(name)}: {self.link(unit, from_id)}"
            for name, unit in self.graph.exports.get(module_id, ())
        )

    def _dependencies(self, m: Module) -> str:
        inside = self.targets(m.id, "imports")
        outside = self.graph.external.get(m.id, ())
        parts: list[str] = []
        if inside:
            parts.append("In this repository:\n\n" + "\n".join(f"- {self.link(t, m.id)}" for t in inside))
        if outside:
            parts.append("Outside the repository:\n\n" + "\n".join(f"- {code(n)}" for n in outside))
        return "\n\n".join(parts)

    def _module_diagram(self, m: Module) -> str:
        members = [c.id for c in self.units.components if c.module == m.id]
        if not members and not self.targets(m.id, "imports"):
            return ""
        edges: list[tuple[str, str, str]] = []
        for unit_id in [m.id, *members]:
            for kind in ("calls", "inherits", "imports"):
                edges += [(unit_id, kind, t) for t in self.targets(unit_id, kind)]
        return _mermaid([m.id, *members], edges)

    def package(self, p: Package) -> UnitDocument:
        init = self.modules.get(f"{p.id}.__init__")
        summary = first_paragraph(init.docstring) if init else ""
        modules = [c for c in p.children if c in self.modules]
        subpackages = [c for c in p.children if c not in self.modules]
        if summary:
            sections = [Section("Summary", quote(summary))]
        else:
            what = "package" if p.python_package else "folder of modules"
            text = (
                f"{code(p.id)} is a {what} ({p.path}/) with {_count(len(modules), 'module')} and "
                f"{_count(len(subpackages), 'subpackage')}. (No package docstring: this sentence is "
                "built from the code.)"
            )
            sections = [Section("Summary", text)]
        if init is not None and (reexported := self._reexported(init.id, p.id)):
            sections.append(Section("Public API", f"What {code(init.id)} re-exports:\n\n{reexported}"))
        if modules:
            sections.append(Section("Modules", "\n".join(self.listed(c, p.id) for c in modules)))
        if subpackages:
            sections.append(Section("Subpackages", "\n".join(self.listed(c, p.id) for c in subpackages)))
        return self.document(p, sections, f"Package {code(p.id)}")

    def repository(self) -> UnitDocument:
        repo = self.units.repository
        purpose = readme_paragraph(self.root)
        if not purpose:
            # the folder given is itself a package: its own __init__ speaks for it, before a
            # sub-package that happens to be its only one
            init = self.modules.get("__init__")
            tops = [p for p in self.units.packages if p.parent == REPOSITORY_ID and p.python_package]
            if init is None and len(tops) == 1:
                init = self.modules.get(f"{tops[0].id}.__init__")
            purpose = first_paragraph(init.docstring) if init else ""
        if purpose:
            sections = [Section("Purpose", quote(purpose))]
        else:
            text = (
                f"The repository {plain(repo.name)} holds {_count(len(self.units.modules), self._module_noun())} in "
                f"{_count(len(self.units.packages), 'package')}. (No README or package docstring: this "
                "sentence is built from the code.)"
            )
            sections = [Section("Purpose", text)]
        if self.units.modules:
            sections.append(Section("Architecture", self._architecture()))
        if self.units.packages:
            lines = [self.listed(p.id, REPOSITORY_ID) for p in self.units.packages]
            sections.append(Section("Packages", "\n".join(lines)))
        if self.units.modules:
            lines = [self.listed(m.id, REPOSITORY_ID) for m in self.units.modules]
            sections.append(Section("Modules", "\n".join(lines)))
        if self.units.problems:
            lines = [f"- {code(p.path)}: {plain(p.error)}" for p in self.units.problems]
            sections.append(Section("Problems", "\n".join(lines)))
        return self.document(repo, sections, f"Repository {plain(repo.name)}")

    def _module_noun(self) -> str:
        languages = {fence_language(m.path) for m in self.units.modules}
        return "Python module" if languages <= {"python"} else "module"

    def _architecture(self) -> str:
        """Packages and the modules directly in the repository, with their imports and the
        packages they contain."""
        owner: dict[str, str] = {
            m.id: m.package if m.package != REPOSITORY_ID else m.id for m in self.units.modules
        }
        nodes = [p.id for p in self.units.packages] + [
            m.id for m in self.units.modules if m.package == REPOSITORY_ID
        ]
        edges: set[tuple[str, str, str]] = set()
        for p in self.units.packages:
            if p.parent != REPOSITORY_ID:
                edges.add((p.parent, "contains", p.id))
        for e in self.graph.edges:
            if e.kind == "imports" and owner.get(e.source) != owner.get(e.target):
                # a Go import names a package: the package is its own node
                edges.add((owner[e.source], "imports", owner.get(e.target, e.target)))
        return _mermaid(nodes, sorted(edges))

    # -- all --------------------------------------------------------------------------------

    def documents(self) -> dict[str, UnitDocument]:
        """Every unit's document by id."""
        out: dict[str, UnitDocument] = {}
        for c in self.units.components:
            out[c.id] = self.component(c)
        for m in self.units.modules:
            out[m.id] = self.module(m)
        for p in self.units.packages:
            out[p.id] = self.package(p)
        out[REPOSITORY_ID] = self.repository()
        return out


def _mermaid(nodes: list[str], edges: list[tuple[str, str, str]]) -> str:
    """A Mermaid flowchart: one node per id (``n0``, ``n1`` … in sorted order of the ids, the
    id as the quoted label), edges sorted; at most ``MAX_DIAGRAM_EDGES`` drawn."""
    ordered = sorted(set(nodes) | {s for s, _, _ in edges} | {t for _, _, t in edges})
    names = {unit_id: f"n{i}" for i, unit_id in enumerate(ordered)}
    lines = ["flowchart LR"]
    lines += [f"  {names[u]}[{mermaid_label(u)}]" for u in ordered]
    arrows = {
        "calls": "-->|calls|",
        "imports": "-.->|imports|",
        "inherits": "==>|inherits|",
        "contains": "---",
    }
    drawn = sorted(set(edges))
    lines += [f"  {names[s]} {arrows[k]} {names[t]}" for s, k, t in drawn[:MAX_DIAGRAM_EDGES]]
    text = fence("\n".join(lines), "mermaid")
    if len(drawn) > MAX_DIAGRAM_EDGES:
        text += f"\n\n{len(drawn) - MAX_DIAGRAM_EDGES} more edges are not drawn."
    return text


def _parameter_list(params: tuple[Parameter, ...]) -> str:
    lines: list[str] = []
    for p in params:
        notes: list[str] = []
        if p.annotation is not None:
            notes.append(code(p.annotation))
        kind = {
            "positional_only": "positional-only",
            "keyword_only": "keyword-only",
            "var_positional": "any number of positional arguments",
            "var_keyword": "any number of keyword arguments",
        }.get(p.kind)
        if kind:
            notes.append(kind)
        if p.default is not None:
            notes.append(f"default {code(p.default)}")
        lines.append(f"- {code(_shown(p))}" + (f" ({', '.join(notes)})" if notes else ""))
    return "\n".join(lines)


def _shown(p: Parameter) -> str:
    return {"var_positional": "*", "var_keyword": "**"}.get(p.kind, "") + p.name


def _names(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _article(text: str) -> str:
    return ("an " if text[:1] in "aeiou" else "a ") + text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _counts(kinds: list[str]) -> str:
    if not kinds:
        return "no functions or classes"
    parts = [_count(kinds.count(k), k) for k in ("function", "class") if kinds.count(k)]
    return _names(parts).replace("classs", "classes")


def _after_first_paragraph(text: str) -> str:
    lines = text.strip().splitlines()
    for i, line in enumerate(lines):
        if not line.strip():
            return "\n".join(lines[i + 1 :]).strip()
    return ""
