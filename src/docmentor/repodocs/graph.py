"""The edges between a repository's units: containment, imports, calls and inheritance.

Every edge reads "``source`` depends on ``target``" (the target's document is written first):

- ``contains``: repository → its top packages and modules, package → its modules and
  sub-packages, module → its top-level functions and classes, class → its methods and nested
  classes (a parent is documented after its children).
- ``imports``: module → module, for every import in it (lazy imports in functions too),
  relative ones resolved; ``from pkg import name`` is an edge to the module ``pkg.name`` when
  there is one, else to ``pkg``'s ``__init__``.
- ``calls``: component → component (a module's own top-level code: module → component),
  resolved through, in this order, the function's own imports, the module's definitions, its
  ``Name = other`` aliases, its imports (following re-exports through ``__init__``
  modules) and its ``from m import *`` (names found in the repository); ``self.m()``/``cls.m()`` to the enclosing class's method, else its in-repo bases'
  (depth first, left to right); ``super().m()`` to the bases'; a constructor call ``Foo()``
  to the class and to its ``__init__`` (its own or an in-repo base's). A decorator is called
  with what it decorates: decorated → decorator.
- ``inherits``: class → in-repo base class.

TypeScript/JavaScript, Go and Rust modules (``graph_languages.py`` resolves their names):
``imports`` edges to the imported module (a Go import to the package's unit), ``calls`` through
the definitions in scope, imports and re-exports, ``this.m()`` / the receiver's ``r.m()`` /
``self.m()`` / ``Self::m()`` to the class's or its bases' method, ``super(…)`` to the base's
constructor, constructions (``new X()``: the class and its ``constructor``; ``X{…}``, ``X {
… }``: the type; ``X::new()``: the function) and ``inherits`` edges for ``extends`` /
``implements``, ``impl Trait for X`` and Go struct embedding. Python modules never resolve
names through them (or they through Python's).

What resolves outside the repository (a library's ``numpy.array``, ``os.path.join``, an
external base class, an external import) is no edge: it is kept by name in
``Graph.external`` for the unit that uses it (for a later docs lookup). Builtins, and calls
on names that are neither defined nor imported (parameters, locals), are dropped.
"""

from __future__ import annotations

import builtins
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from docmentor.repodocs.graph_languages import ForeignNames, base_name, is_foreign
from docmentor.repodocs.units import REPOSITORY_ID, CallSite, Component, ImportRef, Module, RepoUnits, Unit

EdgeKind = Literal["contains", "imports", "calls", "inherits"]

_BUILTINS = frozenset(dir(builtins))
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_MAX_HOPS = 12  # re-exports and aliases followed at most this deep (a cycle of them ends)
_JS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


@dataclass(frozen=True, slots=True, order=True)
class Edge:
    """``source`` depends on ``target``; ``line`` where the source names it (0: containment)."""

    source: str
    target: str
    kind: EdgeKind
    line: int = 0


@dataclass(frozen=True)
class Graph:
    """The units by id, the edges (sorted, one per source, target and kind, at its first
    line) and each unit's external references (sorted dotted names)."""

    units: dict[str, Unit]
    edges: tuple[Edge, ...]
    external: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: module id → (name, unit id) of the names its ``__all__`` lists that it imports from
    #: elsewhere in the repository (``httpx/__init__.py``'s ``Client``): its re-exports
    exports: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)

    def dependencies(self, unit_id: str) -> list[Edge]:
        """The edges from ``unit_id``: what it depends on (one pass over the edges)."""
        return [e for e in self.edges if e.source == unit_id]

    def dependents(self, unit_id: str) -> list[Edge]:
        """The edges to ``unit_id``: what depends on it (one pass over the edges)."""
        return [e for e in self.edges if e.target == unit_id]


# A resolution: an in-repo unit id, or an external dotted name.
@dataclass(frozen=True, slots=True)
class _Found:
    unit: str | None = None
    external: str | None = None


def build_graph(units: RepoUnits) -> Graph:
    """The graph of ``units`` (independent of the order of its tuples)."""
    return _Builder(units).build()


class _Builder:
    def __init__(self, repo: RepoUnits) -> None:
        self.repo = repo
        self.units = repo.units()
        self.modules: dict[str, Module] = {m.id: m for m in repo.modules}
        self.components: dict[str, Component] = {c.id: c for c in repo.components}
        # import name → [(import root, module id)], sorted; "pkg" names pkg's __init__
        by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for m in sorted(repo.modules, key=lambda m: m.id):
            if is_foreign(m.path):
                continue
            parts = m.name.split(".")
            root = Path(m.path).parents[len(parts) - 1].as_posix()
            by_name[m.name].append((root, m.id))
            if parts[-1] == "__init__" and len(parts) > 1:
                by_name[".".join(parts[:-1])].append((root, m.id))
        self.by_name = dict(by_name)
        self.roots = {mid: root for pairs in by_name.values() for root, mid in pairs}
        self.tops = {name.split(".")[0] for name in by_name}
        self.package_name = repo.repository.package_name
        # scope → name → component id: a module's top-level definitions, a class's members
        self.members: dict[str, dict[str, str]] = defaultdict(dict)
        for c in sorted(repo.components, key=lambda c: (c.line_start, c.id)):
            self.members[c.parent].setdefault(c.name, c.id)
        local_lines: dict[str, set[tuple[int, str, str | None]]] = defaultdict(set)
        for c in repo.components:
            local_lines[c.module] |= {(i.line, i.target, i.name) for i in c.imports}
        self.bindings: dict[str, dict[str, ImportRef]] = {}
        self.stars: dict[str, list[str]] = {}
        self.aliases: dict[str, dict[str, str]] = {}
        for m in repo.modules:
            if is_foreign(m.path):
                continue
            top_level = [i for i in m.imports if (i.line, i.target, i.name) not in local_lines[m.id]]
            self.bindings[m.id] = {i.bound: i for i in top_level if i.name != "*"}
            self.stars[m.id] = [i.target for i in top_level if i.name == "*"]
            self.aliases[m.id] = dict(m.aliases)
        self.edges: dict[tuple[str, str, EdgeKind], int] = {}
        self.external: dict[str, set[str]] = defaultdict(set)
        self.foreign = ForeignNames(
            repo, self.members, lambda class_id, name: self._lookup(class_id, name, set())
        )

    def build(self) -> Graph:
        self._containment()
        for m in self.repo.modules:
            if is_foreign(m.path):
                self._foreign_module(m)
                continue
            self._imports(m)
            self._calls(m.id, m.id, m.calls, {})
        for c in self.repo.components:
            if is_foreign(c.path):
                self._foreign_component(c)
                continue
            local = {i.bound: i for i in c.imports}
            self._calls(c.id, c.module, c.calls, local, c)
            for d in c.decorators:
                self._named(c.id, c.module, _head(d), c.line_start, local)
            if c.kind == "class":
                self._bases(c)
        edges = tuple(sorted(Edge(s, t, k, line) for (s, t, k), line in self.edges.items()))
        external = {u: tuple(sorted(names)) for u, names in sorted(self.external.items()) if names}
        return Graph(self.units, edges, external, self._exports())

    def _exports(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Each module's re-exports: the names of its ``__all__`` it does not define, found
        through its imports (star imports too) at a unit of the repository."""
        out: dict[str, tuple[tuple[str, str], ...]] = {}
        for m in self.repo.modules:
            own = self.members.get(m.id, {})
            found = []
            for name in m.exports:
                if name in own:
                    continue
                at = self._resolve(m.id, name, {})
                if at is not None and at.unit is not None and at.unit != m.id:
                    found.append((name, at.unit))
            if found:
                out[m.id] = tuple(found)
        return out

    def _edge(self, source: str, target: str, kind: EdgeKind, line: int) -> None:
        key = (source, target, kind)
        if key not in self.edges or line < self.edges[key]:
            self.edges[key] = line

    def _containment(self) -> None:
        for child in self.repo.repository.children:
            self._edge(REPOSITORY_ID, child, "contains", 0)
        for p in self.repo.packages:
            for child in p.children:
                self._edge(p.id, child, "contains", 0)
        for m in self.repo.modules:
            for child in m.components:
                self._edge(m.id, child, "contains", 0)
        for c in self.repo.components:
            for child in c.members:
                self._edge(c.id, child, "contains", 0)

    # -- imports ----------------------------------------------------------------------------

    def _imports(self, m: Module) -> None:
        root = self.roots[m.id]
        for i in m.imports:
            target = self._inside(i.target)
            names = [f"{target}.{i.name}", target] if i.name is not None and i.name != "*" else [target]
            found = next((t for t in (self._module(n, root) for n in names) if t is not None), None)
            if found is not None:
                if found != m.id:
                    self._edge(m.id, found, "imports", i.line)
            elif target.split(".")[0] not in self.tops and not target.startswith("."):
                self.external[m.id].add(names[0])

    def _inside(self, dotted: str) -> str:
        """A name through the root's own package name (``httpx._api`` when the root is
        ``httpx/``) as the repository's ids name it (``_api``; ``httpx.Client``:
        ``__init__.Client``)."""
        head, _, rest = dotted.partition(".")
        if head != self.package_name or head in self.tops:
            return dotted
        if rest.partition(".")[0] in self.tops:
            return rest
        return "__init__" + (f".{rest}" if rest else "")

    def _module(self, name: str, root: str) -> str | None:
        """The module id of import name ``name`` (the importer's own import root first)."""
        pairs = self.by_name.get(name)
        if not pairs:
            return None
        return next((mid for r, mid in pairs if r == root), pairs[0][1])

    # -- calls ------------------------------------------------------------------------------

    def _calls(
        self,
        source: str,
        module: str,
        calls: tuple[CallSite, ...],
        local: dict[str, ImportRef],
        owner: Component | None = None,
    ) -> None:
        cls = self._enclosing_class(owner)
        for call in calls:
            on_self = call.name == "self" or call.name.startswith(("self.", "super()."))
            if cls is not None and owner is not None and on_self:
                self._self_call(source, cls, owner, call)
                continue
            if owner is not None and self._typed_call(source, owner, call, local):
                continue
            self._named(source, module, call.name, call.line, local)

    def _typed_call(self, source: str, owner: Component, call: CallSite, local: dict[str, ImportRef]) -> bool:
        """``x.method()`` where the code states what ``x`` holds — a parameter's or a
        local's annotation, a class called, a function whose return is annotated (a tour:
        httpx's ``transport.handle_request(request)`` after ``transport =
        self._transport_for_url(url)`` was in no call list): the method's call edge."""
        head, _, rest = call.name.partition(".")
        if not rest or "." in rest:
            return False
        spec = dict(owner.local_types).get(head)
        if spec is None:
            spec = next((p.annotation for p in owner.parameters if p.name == head and p.annotation), None)
        class_id = self._class_of(owner, spec, local) if spec else None
        target = self._lookup(class_id, rest, set()) if class_id is not None else None
        if target is None:
            return False
        self._call_edge(source, target, call.line)
        return True

    def _class_of(self, owner: Component, spec: str, local: dict[str, ImportRef]) -> str | None:
        """The in-repo class a ``local_types`` entry or an annotation names, if it names one."""
        if not spec.startswith("call:"):
            return self._class_named(owner.module, spec, local)
        callee = spec.removeprefix("call:")
        cls = self._enclosing_class(owner)
        if callee.startswith("self.") and cls is not None:
            unit = (
                self._lookup(cls.id, callee.removeprefix("self."), set()) if callee.count(".") == 1 else None
            )
        else:
            found = self._resolve(owner.module, callee, local)
            unit = found.unit if found is not None else None
        target = self.components.get(unit) if unit is not None else None
        if target is None:
            return None
        if target.kind == "class":
            return target.id
        if not target.returns:
            return None
        return self._class_named(target.module, target.returns, {i.bound: i for i in target.imports})

    def _class_named(self, module: str, annotation: str, local: dict[str, ImportRef]) -> str | None:
        name = _annotated_class(annotation)
        found = self._resolve(module, name, local) if name is not None else None
        unit = self.components.get(found.unit) if found is not None and found.unit is not None else None
        return unit.id if unit is not None and unit.kind == "class" else None

    def _named(self, source: str, module: str, name: str, line: int, local: dict[str, ImportRef]) -> None:
        found = self._resolve(module, name, local)
        if found is None:
            return
        if found.external is not None:
            self.external[source].add(found.external)
        elif found.unit is not None:
            self._call_edge(source, found.unit, line)

    def _call_edge(self, source: str, target: str, line: int) -> None:
        unit = self.components.get(target)
        if unit is None:  # a module: not callable
            return
        self._edge(source, target, "calls", line)
        if unit.kind == "class":
            constructor = "constructor" if unit.path.endswith(_JS_SUFFIXES) else "__init__"
            init = self._lookup(target, constructor, set())
            if init is not None:
                self._edge(source, init, "calls", line)

    def _enclosing_class(self, owner: Component | None) -> Component | None:
        if owner is None or owner.kind != "method":
            return None
        return self.components.get(owner.parent)

    def _self_call(self, source: str, cls: Component, owner: Component, call: CallSite) -> None:
        head, _, rest = call.name.partition(".")
        if head == "self" and not rest:
            if owner.method_kind == "class":  # cls(...): the class's constructor
                self._call_edge(source, cls.id, call.line)
            return
        if "." in rest:  # self.attr.method(): what attr holds is not known
            return
        if head == "self":
            target = self._lookup(cls.id, rest, set())
        else:  # super().name
            target = next((t for b in self._bases_of(cls) if (t := self._lookup(b, rest, set()))), None)
        if target is not None:
            self._call_edge(source, target, call.line)

    def _lookup(self, class_id: str, name: str, seen: set[str]) -> str | None:
        """``name`` in the class, else in its in-repo bases, depth first, left to right."""
        if class_id in seen:
            return None
        seen.add(class_id)
        found = self.members.get(class_id, {}).get(name)
        if found is not None:
            return found
        cls = self.components.get(class_id)
        if cls is None:
            return None
        for base in self._bases_of(cls):
            found = self._lookup(base, name, seen)
            if found is not None:
                return found
        return None

    def _bases_of(self, cls: Component) -> Iterator[str]:
        for base in cls.bases:
            if "=" in base:  # metaclass=…, total=False
                continue
            found = self._base(cls, base)
            if found is not None and found.unit is not None and found.unit in self.components:
                yield found.unit

    def _bases(self, cls: Component) -> None:
        for base in cls.bases:
            if "=" in base:
                continue
            found = self._base(cls, base)
            if found is None:
                continue
            if found.external is not None:
                self.external[cls.id].add(found.external)
            elif found.unit is not None and found.unit in self.components:
                self._edge(cls.id, found.unit, "inherits", cls.line_start)

    def _base(self, cls: Component, base: str) -> _Found | None:
        if not is_foreign(cls.path):
            return self._resolve(cls.module, _head(base), {})
        return self._foreign_resolve(cls.path, base_name(base))

    # -- TypeScript/JavaScript, Go and Rust ---------------------------------------------------

    def _foreign_resolve(self, path: str, name: str) -> _Found | None:
        module = self.foreign.file_module(path)
        found = self.foreign.resolve(module, name) if module is not None else None
        if found is None:
            return None
        return _Found(unit=found[0], external=found[1])

    def _foreign_named(self, source: str, path: str, name: str, line: int) -> None:
        found = self._foreign_resolve(path, name)
        if found is None:
            return
        if found.external is not None:
            self.external[source].add(found.external)
        elif found.unit is not None:
            self._call_edge(source, found.unit, line)

    def _foreign_module(self, m: Module) -> None:
        for ref in m.imports:
            target, external = self.foreign.import_target(ref)
            if target is not None and target != m.id:
                self._edge(m.id, target, "imports", ref.line)
            elif external is not None:
                self.external[m.id].add(external)
        for call in m.calls:
            self._foreign_named(m.id, m.path, call.name, call.line)

    def _foreign_component(self, c: Component) -> None:
        cls = self._enclosing_class(c)
        for call in c.calls:
            on_self = call.name == "self" or call.name.startswith(("self.", "super()."))
            if cls is not None and on_self:
                self._self_call(c.id, cls, c, call)
            else:
                self._foreign_named(c.id, c.path, call.name, call.line)
        for d in c.decorators:
            self._foreign_named(c.id, c.path, _head(d), c.line_start)
        if c.kind == "class":
            self._bases(c)

    # -- name resolution --------------------------------------------------------------------

    def _resolve(self, module: str, name: str, local: dict[str, ImportRef], hops: int = 0) -> _Found | None:
        """What the dotted ``name`` means in ``module`` (with a function's ``local`` imports)."""
        if not name or hops > _MAX_HOPS:
            return None
        head, _, rest = name.partition(".")
        if head in local:
            return self._absolute(_imported(local[head], rest), self.roots.get(module, "."), hops + 1)
        if head in self.members.get(module, {}):
            return self._within(self.members[module][head], rest)
        alias = self.aliases.get(module, {}).get(head)
        if alias is not None and alias.split(".")[0] != head:
            return self._resolve(module, alias + (f".{rest}" if rest else ""), {}, hops + 1)
        binding = self.bindings.get(module, {}).get(head)
        if binding is not None:
            return self._absolute(_imported(binding, rest), self.roots.get(module, "."), hops + 1)
        for star in self.stars.get(module, ()):  # `from pkg.mod import *`: in-repo names only
            found = self._absolute(f"{star}.{name}", self.roots.get(module, "."), hops + 1)
            if found is not None and found.unit is not None:
                return found
        return None  # a builtin, a parameter or a local: nothing to link

    def _within(self, unit_id: str, rest: str) -> _Found | None:
        """``rest`` (``method`` or ``Inner.method``) inside a component; the component itself
        when empty."""
        for part in rest.split(".") if rest else []:
            found = self.members.get(unit_id, {}).get(part)
            if found is None:
                found = self._lookup(unit_id, part, set())
            if found is None:
                return None
            unit_id = found
        return _Found(unit=unit_id)

    def _absolute(self, dotted: str, root: str, hops: int) -> _Found | None:
        """An absolute dotted name: the longest prefix that is an in-repo module, then the
        rest inside it (through its re-exports); outside the repository: external."""
        if dotted.startswith("."):
            return None
        parts = self._inside(dotted).split(".")
        if parts[0] not in self.tops:
            return None if parts[0] in _BUILTINS and len(parts) == 1 else _Found(external=dotted)
        for k in range(len(parts), 0, -1):
            module = self._module(".".join(parts[:k]), root)
            if module is None:
                continue
            rest = ".".join(parts[k:])
            if not rest:
                return _Found(unit=module)
            return self._resolve(module, rest, {}, hops + 1)
        return None


_OPTIONAL = re.compile(r"(?:[A-Za-z_][\w.]*\.)?Optional\[([^\[\]]*+)\]")


def _annotated_class(annotation: str) -> str | None:
    """The dotted name an annotation holds an instance of: ``Client``, ``"Client"``,
    ``Client | None``, ``Optional[Client]``; None for anything else (``list[Client]``)."""
    text = annotation.strip().strip("'\"").strip()
    optional = _OPTIONAL.fullmatch(text)
    if optional is not None:
        text = optional.group(1).strip()
    if "|" in text:
        kept = [p.strip() for p in text.split("|") if p.strip() not in ("None", "")]
        text = kept[0] if len(kept) == 1 else ""
    return text if _DOTTED.fullmatch(text) else None


def _imported(ref: ImportRef, rest: str) -> str:
    """The absolute dotted name that ``bound.rest`` stands for."""
    if ref.name is not None:
        base = f"{ref.target}.{ref.name}"
    elif ref.alias:
        base = ref.target
    else:
        base = ref.target.split(".")[0]
    return base + (f".{rest}" if rest else "")


def _head(text: str) -> str:
    """The dotted name a decorator or base expression starts with (``app.route('/')`` →
    ``app.route``, ``Base[int]`` → ``Base``); empty when it starts with none."""
    match = _DOTTED.match(text)
    return match.group(0) if match else ""
