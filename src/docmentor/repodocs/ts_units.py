"""One TypeScript or JavaScript file (``.ts .tsx .mts .cts .js .jsx .mjs .cjs``) → its
``Module`` unit and its components, through tree-sitter.

Components: function declarations (generators too), module-level ``const f = (…) => …`` and
``const f = function …`` (functions), classes, interfaces and enums (classes), and a class's
or an interface's methods (getters are properties, ``static`` methods static). A method's
parameters start with an implicit ``this`` (its receiver, as Python's ``self``: Args leaves
it out). Calls: ``f()``, ``ns.f()``, ``new X()`` (written ``X``); on ``this`` written
``self.m``, ``super(…)`` ``super().constructor`` and ``super.m()`` ``super().m``. Raises:
the classes ``throw new X(…)`` constructs (a thrown variable names none). Imports: ES
``import … from`` and ``export … from`` (re-exports) and ``require('…')``; a relative
specifier is resolved to the repository's file (``./x`` → ``x.ts``, ``x.tsx``, ``x.js`` …,
``x/index.*``) and named by its module id, a bare one (``react``) kept as written. A default
import is the name ``default``; ``export default X`` is the alias ``default`` → ``X``, and a
name exported under another (``export { a as b }``, ``module.exports = { b: a }``,
``exports.b = a``) the alias ``b`` → ``a``.
Public: a top-level definition the file exports — ``export …``, ``export default``, ``export {
a as b }``, ``export = a``, CommonJS ``module.exports = …`` / ``exports.x = …`` — and a class's
or an interface's member that is not ``private``, ``protected`` or ``#private``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from docmentor.repodocs.treesitter_units import (
    FileFacts,
    Ids,
    ReadFile,
    Source,
    clean_block_comment,
    comments_above,
    end_line,
    line,
    unique_calls,
    walk,
)
from docmentor.repodocs.ts_syntax import (
    CLASSES,
    FUNCTION_VALUES,
    FUNCTIONS,
    SCOPES,
    bound_names,
    commonjs_exported,
    commonjs_name,
    dotted,
    exported_locals,
    heritage,
    import_level,
    locals,
    member_public,
    method_kind,
    module_doc,
    parameter_properties,
    parameters,
    returns_value,
    signature_start,
    this_attributes,
    yields,
)
from docmentor.repodocs.units import (
    REPOSITORY_ID,
    CallSite,
    Component,
    ImportRef,
    MethodKind,
    Module,
    Parameter,
)

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

Resolver = Callable[[str], str | None]  # an import specifier → the module id it names, or None

_DOC = frozenset({"comment"})
_BETWEEN = frozenset({"decorator"})


@dataclass
class _Def:
    """A definition and where its text starts (its doc comment, decorators) and ends."""

    node: Node  # the declaration (function, class, variable declarator's value)
    outer: Node  # the statement (an ``export`` around it included)
    doc: str | None
    start: int
    decorators: tuple[str, ...] = ()
    name: str = ""
    declarator: Node | None = None
    exported: bool = False  # by its statement: ``export …``, ``exports.f = function …``


def read_ts(rel: str, data: bytes, tree: Tree, module_id: str, resolve: Resolver) -> ReadFile:
    """The module and components of one parsed file (``module_id``: its id; ``resolve``: a
    relative import specifier → a module id)."""
    return _Reader(rel, Source(data), module_id, resolve).read(tree.root_node)


class _Reader:
    def __init__(self, rel: str, source: Source, module_id: str, resolve: Resolver) -> None:
        self.rel = rel
        self.source = source
        self.id = module_id
        self.resolve = resolve
        self.ids = Ids()
        self.components: list[Component] = []
        self.facts = FileFacts()
        self.imports: list[ImportRef] = []
        self.aliases: list[tuple[str, str]] = []
        self.calls: list[CallSite] = []
        self.exported: set[str] = set()  # local names exported apart from their definition

    def read(self, root: Node) -> ReadFile:
        children = list(root.named_children)
        top: list[str] = []
        for i, node in enumerate(children):
            for d in self._definitions(children, i):
                top.append(self._class(d, None) if d.node.type in CLASSES else self._function(d, None))
            self._statement(node)
        self.components = [
            replace(c, public=True) if c.parent == self.id and c.name in self.exported else c
            for c in self.components
        ]
        module = Module(
            id=self.id,
            name=self.id,
            path=self.rel,
            package=REPOSITORY_ID,
            line_start=1,
            line_end=max(len(self.source.lines), 1),
            docstring=module_doc(children, self.source),
            content_hash=self.source.hash(1, max(len(self.source.lines), 1)),
            imports=tuple(self.imports),
            aliases=tuple(self.aliases),
            calls=unique_calls(self.calls),
            components=tuple(top),
        )
        return ReadFile(module, self.components, facts=self.facts)

    # -- what a top-level statement defines, imports and calls --------------------------------

    def _definitions(self, siblings: list[Node], index: int) -> Iterator[_Def]:
        outer = siblings[index]
        node = outer
        if node.type == "export_statement":
            node = node.child_by_field_name("declaration") or node.child_by_field_name("value") or node
        if node.type in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                value = declarator.child_by_field_name("value")
                name = declarator.child_by_field_name("name")
                if declarator.type != "variable_declarator" or name is None:
                    continue
                if (
                    value is not None
                    and value.type in FUNCTION_VALUES | {"class"}
                    and name.type == "identifier"
                ):
                    yield self._def(siblings, index, value, self.source.of(name), declarator)
                else:
                    self.facts.module_names.update(bound_names(name, self.source))
            return
        if node.type == "expression_statement":  # CommonJS: exports.f = function …
            assigned = next(iter(node.named_children), None)
            if assigned is not None and assigned.type == "assignment_expression":
                exported = commonjs_name(assigned, self.source)
                value = assigned.child_by_field_name("right")
                if exported is not None and value is not None and value.type in FUNCTION_VALUES | {"class"}:
                    yield replace(self._def(siblings, index, value, exported), exported=True)
            return
        if node.type in FUNCTIONS | CLASSES or (
            outer.type == "export_statement" and node.type in FUNCTION_VALUES
        ):
            name_node = node.child_by_field_name("name")
            yield self._def(siblings, index, node, self.source.of(name_node) if name_node else "default")

    def _def(
        self, siblings: list[Node], index: int, node: Node, name: str, declarator: Node | None = None
    ) -> _Def:
        outer = siblings[index]
        docs = comments_above(siblings, index, _DOC, _BETWEEN)
        docs = docs[-1:] if docs and self.source.of(docs[-1]).startswith("/**") else []
        above: list[Node] = []
        for sibling in reversed(siblings[:index]):
            if sibling.type == "decorator":
                above.append(sibling)
            elif sibling.type != "comment":
                break
        own = [c for c in (*outer.children, *node.children) if c.type == "decorator"]
        decorators = sorted({d.start_byte: d for d in (*above, *own)}.values(), key=lambda d: d.start_byte)
        start = min([line(outer), *(line(d) for d in docs), *(line(d) for d in decorators)])
        doc = clean_block_comment(self.source.of(docs[0])) if docs else None
        names = tuple(self.source.of(d).removeprefix("@").strip() for d in decorators)
        exported = outer.type == "export_statement"
        return _Def(node, outer, doc or None, start, names, name, declarator, exported)

    def _statement(self, node: Node) -> None:
        if node.type == "import_statement":
            self._import(node)
        elif node.type == "export_statement":
            self._export(node)
        if node.type in (
            "lexical_declaration",
            "variable_declaration",
            "export_statement",
            "expression_statement",
        ):
            for inner in walk(node, SCOPES | CLASSES):
                if (
                    inner.type == "call_expression"
                    and self.source.of(inner.child_by_field_name("function")) == "require"
                ):
                    self._require(inner)
            if node.type != "export_statement":  # the top-level code's own calls
                self.calls += self._calls(node, None, SCOPES | CLASSES)
        if node.type == "expression_statement":
            assigned = next(iter(node.named_children), None)
            if assigned is not None and assigned.type == "assignment_expression":
                self._exported(commonjs_exported(assigned, self.source))

    def _exported(self, pairs: list[tuple[str, str | None]]) -> None:
        """Local names exported apart from their definitions: public, and one exported under
        another name (``export { a as b }``, ``module.exports = { b: a }``) the alias ``b`` →
        ``a``, so an import of ``b`` resolves (``export default a`` is the alias already)."""
        for local, name in pairs:
            self.exported.add(local)
            if name is not None and name not in (local, "default") and (name, local) not in self.aliases:
                self.aliases.append((name, local))

    def _import(self, node: Node) -> None:
        target = self._target(node.child_by_field_name("source"))
        if target is None:
            return
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        at = line(node)
        if clause is None:
            self.imports.append(ImportRef(target, None, None, import_level(node, self.source), at))
            return
        level = import_level(node, self.source)
        for part in clause.named_children:
            if part.type == "identifier":
                self.imports.append(ImportRef(target, "default", self.source.of(part), level, at))
            elif part.type == "namespace_import":
                alias = next((self.source.of(c) for c in part.named_children if c.type == "identifier"), None)
                self.imports.append(ImportRef(target, None, alias, level, at))
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type == "import_specifier":
                        self._specifier(spec, target, level, at)

    def _export(self, node: Node) -> None:
        source = node.child_by_field_name("source")
        value = node.child_by_field_name("value")
        if source is None:
            self._exported(exported_locals(node, self.source))
            if value is not None and value.type == "identifier":
                self.aliases.append(("default", self.source.of(value)))
            elif value is not None and value.type in FUNCTION_VALUES:
                self.aliases.append(("default", "default"))
            declaration = node.child_by_field_name("declaration")
            if declaration is not None and "default" in [c.type for c in node.children]:
                named = declaration.child_by_field_name("name")
                if named is not None:
                    self.aliases.append(("default", self.source.of(named)))
            return
        target = self._target(source)
        if target is None:
            return
        level, at = import_level(node, self.source), line(node)
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        if clause is None:  # export * from './x' (or * as ns)
            ns = next((c for c in node.named_children if c.type in ("namespace_export", "identifier")), None)
            alias = self.source.of(ns).split()[-1] if ns is not None else None
            self.imports.append(ImportRef(target, None if alias else "*", alias, level, at))
            return
        for spec in clause.named_children:
            if spec.type == "export_specifier":
                self._specifier(spec, target, level, at)

    def _specifier(self, spec: Node, target: str, level: int, at: int) -> None:
        """``name`` or ``name as alias`` of an import or re-export list."""
        name = self.source.of(spec.child_by_field_name("name"))
        alias = spec.child_by_field_name("alias")
        self.imports.append(ImportRef(target, name, self.source.of(alias) if alias else None, level, at))

    def _require(self, call: Node) -> None:
        args = call.child_by_field_name("arguments")
        strings = [a for a in (args.named_children if args else []) if a.type == "string"]
        target = self._target(strings[0]) if strings else None
        if target is None:
            return
        declarator = call.parent
        level, at = (1 if self.source.of(strings[0]).strip("'\"`").startswith(".") else 0), line(call)
        name = (
            declarator.child_by_field_name("name")
            if declarator and declarator.type == "variable_declarator"
            else None
        )
        if name is not None and name.type == "identifier":
            self.imports.append(ImportRef(target, None, self.source.of(name), level, at))
        elif name is not None and name.type == "object_pattern":
            for bound in name.named_children:
                if bound.type == "shorthand_property_identifier_pattern":
                    self.imports.append(ImportRef(target, self.source.of(bound), None, level, at))
                elif bound.type == "pair_pattern":
                    key, value = bound.child_by_field_name("key"), bound.child_by_field_name("value")
                    self.imports.append(
                        ImportRef(target, self.source.of(key), self.source.of(value), level, at)
                    )
        else:
            self.imports.append(ImportRef(target, None, None, level, at))

    def _target(self, string: Node | None) -> str | None:
        """An import's specifier: the module id of a relative one (as written when it names no
        file of the repository), a package's name as written."""
        if string is None:
            return None
        spec = self.source.of(string).strip("'\"`")
        if not spec:
            return None
        if spec.startswith("."):
            return self.resolve(spec) or spec
        return spec

    # -- definitions ------------------------------------------------------------------------

    def _function(
        self,
        d: _Def,
        owner: Component | None,
        method_kind: MethodKind | None = None,
        public: bool | None = None,
    ) -> str:
        node = d.node
        body = node.child_by_field_name("body")
        if owner is None:
            qualname = d.name
            unit_id = self.ids.unique(f"{self.id}.{qualname}")
        else:
            qualname = f"{owner.qualname}.{d.name}"
            unit_id = self.ids.unique(f"{owner.id}.{d.name}")
        end = end_line(d.outer)
        params = parameters(node, self.source)
        if owner is not None and method_kind != "static":
            params = (Parameter("this", "positional_or_keyword"), *params)
        returns_node = node.child_by_field_name("return_type")
        returns = self.source.of(returns_node).lstrip(":").strip() if returns_node is not None else None
        start = signature_start(d.outer)
        stop = body.start_byte if body is not None else d.outer.end_byte
        signature = self.source.between(start, stop).rstrip(";").rstrip()
        if signature.endswith("{"):
            signature = signature[:-1].rstrip()
        is_async = any(c.type == "async" for c in node.children)
        scope = body if body is not None else node
        receiver = "this" if owner is not None else None
        self.components.append(
            Component(
                id=unit_id,
                kind="method" if owner is not None else "function",
                name=d.name,
                qualname=qualname,
                module=self.id,
                parent=owner.id if owner is not None else self.id,
                path=self.rel,
                line_start=d.start,
                line_end=end,
                signature=signature,
                docstring=d.doc,
                content_hash=self.source.hash(d.start, end),
                decorators=d.decorators,
                parameters=params,
                returns=returns or None,
                is_async=is_async,
                raises=tuple(dict.fromkeys(self._raises(scope))),
                calls=unique_calls([*self._calls(scope, receiver), *self._default_calls(node)]),
                method_kind=method_kind,
                public=d.exported if owner is None else public,
            )
        )
        span = (d.start, end)
        if body is not None and (body.type != "statement_block" or returns_value(body)):
            self.facts.returns.add(span)
        if any(c.type == "*" for c in node.children) or yields(scope):
            self.facts.yields.add(span)
        self.facts.local[span] = frozenset(locals(node, self.source)) | {p.name for p in params}
        return unit_id

    def _class(self, d: _Def, owner: Component | None) -> str:
        node = d.node
        name = d.name
        qualname = name if owner is None else f"{owner.qualname}.{name}"
        unit_id = self.ids.unique(f"{self.id}.{qualname}")
        body = node.child_by_field_name("body")
        end = end_line(d.outer)
        stop = body.start_byte if body is not None else d.outer.end_byte
        signature = self.source.between(signature_start(d.outer), stop)
        bases = tuple(heritage(node, self.source))
        placeholder = Component(
            unit_id, "class", name, qualname, self.id, owner.id if owner else self.id, self.rel, d.start, end,
            signature, d.doc, self.source.hash(d.start, end), public=d.exported,
        )  # fmt: skip
        members: list[str] = []
        attributes: list[str] = []
        init: Node | None = None
        children = list(body.named_children) if body is not None else []
        for i, child in enumerate(children):
            kind = child.type
            if kind in ("method_definition", "method_signature", "abstract_method_signature"):
                name_node = child.child_by_field_name("name")
                method_name = self.source.of(name_node)
                if method_name == "constructor":
                    init = child
                member = self._def(children, i, child, method_name)
                members.append(self._function(member, placeholder, method_kind(child), member_public(child)))
            elif kind in ("public_field_definition", "field_definition", "property_signature"):
                field_name = child.child_by_field_name("name") or child.child_by_field_name("property")
                value = child.child_by_field_name("value")
                if value is not None and value.type in FUNCTION_VALUES:  # handle = (e) => …
                    member = self._def(children, i, value, self.source.of(field_name))
                    members.append(
                        self._function(member, placeholder, method_kind(child), member_public(child))
                    )
                else:
                    attributes.append(self.source.of(field_name))
            elif kind in ("enum_assignment", "property_identifier"):
                target = child.child_by_field_name("name") or child
                attributes.append(self.source.of(target))
        attributes += this_attributes(body, self.source) if body is not None else []
        params: tuple[Parameter, ...] = ()
        init_signature: str | None = None
        if init is not None:
            params = parameters(init, self.source)
            formal = init.child_by_field_name("parameters")
            init_signature = self.source.between(formal.start_byte, formal.end_byte) if formal else "()"
            attributes += [p.name for p in parameter_properties(init, self.source)]
        self.components.append(
            replace(
                placeholder,
                decorators=d.decorators,
                parameters=params,
                bases=bases,
                init_signature=init_signature,
                members=tuple(members),
                attributes=tuple(dict.fromkeys(a for a in attributes if a)),
            )
        )
        return unit_id

    # -- code inside a definition -------------------------------------------------------------

    def _calls(
        self, scope: Node, receiver: str | None, stop: frozenset[str] = frozenset()
    ) -> Iterator[CallSite]:
        for node in walk(scope, stop):
            if node.type == "call_expression":
                callee = node.child_by_field_name("function")
                if callee is not None and callee.type == "super":
                    yield CallSite("super().constructor", line(node))
                    continue
                name = dotted(callee, self.source, receiver)
                if name is not None and name != "require":
                    yield CallSite(name, line(node))
            elif node.type == "new_expression":
                name = dotted(node.child_by_field_name("constructor"), self.source, receiver)
                if name is not None:
                    yield CallSite(name, line(node))

    def _default_calls(self, node: Node) -> Iterator[CallSite]:
        formal = node.child_by_field_name("parameters")
        if formal is not None:
            yield from self._calls(formal, None)

    def _raises(self, scope: Node) -> Iterator[str]:
        for node in walk(scope):
            if node.type == "throw_statement":
                thrown = next(iter(node.named_children), None)
                if thrown is not None and thrown.type == "new_expression":
                    name = dotted(thrown.child_by_field_name("constructor"), self.source, None)
                    if name is not None:
                        yield name
