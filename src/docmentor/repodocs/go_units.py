"""One Go file → its ``Module`` unit, its components and its methods, through tree-sitter.

Components: functions, and every ``type`` declaration (structs, interfaces, defined types) as
a class; a method is a member of its receiver's type — found in any file of the package
(``treesitter_units.attach_methods``), the receiver its first parameter (Args leaves it out),
a value receiver ``instance``, no static methods. A struct's named fields are its attributes,
its embedded fields (and an interface's embedded interfaces) its bases. Doc comments: the
``//`` lines directly above a declaration (the file's: above ``package``). Calls: ``f()``,
``pkg.F()``, composite literals ``T{…}`` / ``pkg.T{…}`` (constructions, written ``T``); on the
receiver written ``self.M``. Public: a name whose first letter is upper case (exported), a
method's too. Raises: none (Go returns errors as values; ``panic`` is a call).
Imports: each import path, its bound name the alias or the path's last element; a path inside
the repository's Go module (``go.mod``'s ``module`` line) names the package folder's unit id
(``resolve``), others kept as written (``fmt``, ``github.com/x/y``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from docmentor.repodocs.treesitter_units import (
    FileFacts,
    Ids,
    MethodGroup,
    ReadFile,
    Source,
    clean_line_comments,
    comments_above,
    end_line,
    line,
    parameter,
    unique_calls,
    walk,
)
from docmentor.repodocs.units import REPOSITORY_ID, CallSite, Component, ImportRef, Module, Parameter

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

Resolver = Callable[[str], str | None]  # an import path → the id of the package unit it names

_DOC = frozenset({"comment"})
_NOTHING: frozenset[str] = frozenset()


def read_go(rel: str, data: bytes, tree: Tree, module_id: str, resolve: Resolver) -> ReadFile:
    """The module, components and methods of one parsed Go file."""
    return _Reader(rel, Source(data), module_id, resolve).read(tree.root_node)


class _Reader:
    def __init__(self, rel: str, source: Source, module_id: str, resolve: Resolver) -> None:
        self.rel = rel
        self.source = source
        self.id = module_id
        self.resolve = resolve
        self.ids = Ids()
        self.components: list[Component] = []
        self.groups: dict[str, MethodGroup] = {}
        self.facts = FileFacts()
        self.imports: list[ImportRef] = []
        self.calls: list[CallSite] = []

    def read(self, root: Node) -> ReadFile:
        children = list(root.named_children)
        top: list[str] = []
        doc: str | None = None
        for i, node in enumerate(children):
            kind = node.type
            if kind == "package_clause":
                doc = self._doc(children, i)
            elif kind == "import_declaration":
                self._imports(node)
            elif kind == "function_declaration":
                top.append(self._function(children, i, None))
            elif kind == "method_declaration":
                self._method(children, i)
            elif kind == "type_declaration":
                top += self._types(children, i)
            elif kind in ("var_declaration", "const_declaration"):
                for spec in walk(node):
                    if spec.type in ("var_spec", "const_spec"):
                        names = [c for c in spec.children_by_field_name("name")]
                        self.facts.module_names.update(self.source.of(n) for n in names)
                self.calls += self._calls(node, None)
        last = max(len(self.source.lines), 1)
        module = Module(
            id=self.id,
            name=self.id,
            path=self.rel,
            package=REPOSITORY_ID,
            line_start=1,
            line_end=last,
            docstring=doc,
            content_hash=self.source.hash(1, last),
            imports=tuple(self.imports),
            calls=unique_calls(self.calls),
            components=tuple(top),
        )
        return ReadFile(module, self.components, list(self.groups.values()), self.facts)

    def _doc(self, siblings: list[Node], index: int) -> str | None:
        docs = comments_above(siblings, index, _DOC, _NOTHING)
        texts = [self.source.of(d) for d in docs]
        if not texts or not all(t.startswith("//") for t in texts):
            return None
        return clean_line_comments(_prose(texts), "//") or None

    def _span(
        self, siblings: list[Node], index: int, node: Node | None = None
    ) -> tuple[int, int, str | None]:
        docs = comments_above(siblings, index, _DOC, _NOTHING)
        texts = [self.source.of(d) for d in docs]
        lines = texts and all(t.startswith("//") for t in texts)
        doc = clean_line_comments(_prose(texts), "//") if lines else None
        start = line(docs[0]) if lines else line(node or siblings[index])
        return start, end_line(node or siblings[index]), doc or None

    def _imports(self, node: Node) -> None:
        for spec in walk(node):
            if spec.type != "import_spec":
                continue
            path = self.source.of(spec.child_by_field_name("path")).strip('"`')
            name = spec.child_by_field_name("name")
            bound = self.source.of(name) if name is not None else path.rsplit("/", 1)[-1]
            if bound == "_":
                continue
            target = self.resolve(path) or path
            if bound == ".":
                self.imports.append(ImportRef(target, "*", None, 0, line(spec)))
            else:
                self.imports.append(ImportRef(target, None, bound, 0, line(spec)))

    # -- definitions ------------------------------------------------------------------------

    def _function(self, siblings: list[Node], index: int, receiver: Parameter | None) -> str:
        node = siblings[index]
        name = self.source.of(node.child_by_field_name("name"))
        start, end, doc = self._span(siblings, index)
        body = node.child_by_field_name("body")
        signature = self.source.between(
            node.start_byte, body.start_byte if body is not None else node.end_byte
        )
        params = _parameters(node.child_by_field_name("parameters"), self.source)
        result = node.child_by_field_name("result")
        returns = self.source.of(result) if result is not None else None
        unit_id = "" if receiver is not None else self.ids.unique(f"{self.id}.{name}")
        scope = body if body is not None else node
        component = Component(
            id=unit_id,
            kind="method" if receiver is not None else "function",
            name=name,
            qualname=name,
            module=self.id,
            parent=self.id,
            path=self.rel,
            line_start=start,
            line_end=end,
            signature=signature,
            docstring=doc,
            content_hash=self.source.hash(start, end),
            parameters=((receiver,) if receiver else ()) + params,
            returns=returns,
            calls=unique_calls(self._calls(scope, receiver.name if receiver else None)),
            method_kind="instance" if receiver is not None else None,
            public=exported(name),
        )
        if returns is not None:
            self.facts.returns.add((start, end))
        self.facts.local[(start, end)] = frozenset(_locals(node, self.source))
        if receiver is None:
            self.components.append(component)
        else:
            type_name = _type_name(receiver.annotation or "")
            group = self.groups.setdefault(type_name, MethodGroup(type_name, self.id, []))
            group.methods.append(component)
        return unit_id

    def _method(self, siblings: list[Node], index: int) -> None:
        receivers = _parameters(siblings[index].child_by_field_name("receiver"), self.source)
        receiver = receivers[0] if receivers else parameter("_")
        if receiver.name == "":
            receiver = parameter("_", receiver.annotation)
        self._function(siblings, index, receiver)

    def _types(self, siblings: list[Node], index: int) -> list[str]:
        declaration = siblings[index]
        specs = [c for c in declaration.named_children if c.type == "type_spec"]
        ids: list[str] = []
        for spec in specs:
            name = self.source.of(spec.child_by_field_name("name"))
            if len(specs) == 1:
                start, end, doc = self._span(siblings, index)
            else:  # type ( A struct{…}; B int ): each spec with its own comments
                inner = list(declaration.named_children)
                start, end, doc = self._span(inner, inner.index(spec), spec)
            body = spec.child_by_field_name("type")
            stop = _body_start(body)
            signature = "type " + self.source.between(
                spec.start_byte, stop if stop is not None else spec.end_byte
            )
            attributes, bases = _fields(body, self.source)
            unit_id = self.ids.unique(f"{self.id}.{name}")
            self.components.append(
                Component(
                    id=unit_id,
                    kind="class",
                    name=name,
                    qualname=name,
                    module=self.id,
                    parent=self.id,
                    path=self.rel,
                    line_start=start,
                    line_end=end,
                    signature=signature,
                    docstring=doc,
                    content_hash=self.source.hash(start, end),
                    bases=tuple(bases),
                    attributes=tuple(attributes),
                    calls=unique_calls(self._calls(spec, None)),
                    public=exported(name),
                )
            )
            ids.append(unit_id)
        return ids

    def _calls(self, scope: Node, receiver: str | None) -> Iterator[CallSite]:
        for node in walk(scope):
            if node.type == "call_expression":
                name = _dotted(node.child_by_field_name("function"), self.source, receiver)
            elif node.type == "composite_literal":
                name = _dotted(node.child_by_field_name("type"), self.source, None)
            else:
                continue
            if name is not None:
                yield CallSite(name, line(node))


def exported(name: str) -> bool:
    """Go's rule: a name is exported when its first character is an upper-case letter."""
    return name[:1].isupper()


def _prose(texts: list[str]) -> list[str]:
    """Comment lines without the tool directives among them (``//go:generate``, ``//nolint``)."""
    return [t for t in texts if not t.startswith(("//go:", "//nolint", "//line ", "//export "))]


def _body_start(body: Node | None) -> int | None:
    """Where a struct's or an interface's ``{`` is (its header ends there)."""
    if body is None or body.type not in ("struct_type", "interface_type"):
        return None
    brace = next((c for c in body.children if c.type in ("{", "field_declaration_list")), None)
    return brace.start_byte if brace is not None else None


def _fields(body: Node | None, source: Source) -> tuple[list[str], list[str]]:
    """A struct's named fields and embedded types; an interface's embedded interfaces."""
    attributes: list[str] = []
    bases: list[str] = []
    if body is None:
        return attributes, bases
    if body.type == "struct_type":
        for decl in walk(body):
            if decl.type != "field_declaration":
                continue
            names = decl.children_by_field_name("name")
            if names:
                attributes += [source.of(n) for n in names]
            else:
                bases.append(source.of(decl.child_by_field_name("type")).lstrip("*"))
    elif body.type == "interface_type":
        for elem in body.named_children:
            if elem.type in (
                "type_elem",
                "constraint_elem",
                "interface_type_name",
                "qualified_type",
                "type_identifier",
            ):
                bases.append(source.of(elem))
    return attributes, bases


def _parameters(node: Node | None, source: Source) -> tuple[Parameter, ...]:
    if node is None:
        return ()
    out: list[Parameter] = []
    for decl in node.named_children:
        if decl.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        rest = decl.type == "variadic_parameter_declaration"
        typed = decl.child_by_field_name("type")
        annotation = ("..." if rest else "") + source.of(typed) if typed is not None else None
        names = decl.children_by_field_name("name")
        if not names:
            out.append(parameter("", annotation, rest=rest))
        out += [parameter(source.of(n), annotation, rest=rest) for n in names]
    return tuple(out)


def _type_name(annotation: str) -> str:
    """A receiver's type name: ``*Store[T]`` → ``Store``."""
    return annotation.lstrip("*").split("[", 1)[0].strip()


def _dotted(node: Node | None, source: Source, receiver: str | None) -> str | None:
    parts: list[str] = []
    while node is not None and node.type in ("selector_expression", "qualified_type"):
        last = node.child_by_field_name("field") or node.child_by_field_name("name")
        if last is None:
            return None
        parts.append(source.of(last))
        node = node.child_by_field_name("operand") or node.child_by_field_name("package")
    if node is None or node.type not in ("identifier", "type_identifier", "package_identifier"):
        return None
    head = source.of(node)
    parts.append("self" if receiver is not None and head == receiver and parts else head)
    return ".".join(reversed(parts))


def _locals(node: Node, source: Source) -> set[str]:
    out: set[str] = set()
    for inner in walk(node):
        if inner.type in ("short_var_declaration", "var_spec", "parameter_declaration", "range_clause"):
            target = inner.child_by_field_name("left") or inner
            out.update(source.of(n) for n in walk(target) if n.type == "identifier")
    return out
