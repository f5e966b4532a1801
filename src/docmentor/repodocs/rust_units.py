"""One Rust file → its ``Module`` unit, its components and its ``impl`` blocks' methods,
through tree-sitter.

A file's crate path: its path from the crate's ``src/`` folder (the nearest one above it),
``lib.rs``/``main.rs`` the crate root, ``mod.rs`` its folder (``src/shapes/mod.rs`` is
``shapes``, ``src/shapes/circle.rs`` ``shapes::circle``); ``rust_module_path`` gives it.

Components: functions, structs, enums, unions and traits (classes); a trait's methods (with a
default body or not) are its members, an ``impl`` block's functions members of its type —
found in the file, else in the crate when one type has that name
(``treesitter_units.attach_methods``) — and ``impl Trait for Type`` adds ``Trait`` to the
type's bases, as a trait's supertraits are its bases. A method's ``self`` is its first
parameter (Args leaves it out); a function without ``self`` in an ``impl`` is a static
method. Fields and enum variants are attributes. Doc comments: ``///`` and ``/** */`` above a
definition (attributes may stand between; the span starts at the first of them), the file's
``//!``. Attributes are not decorators (the signature starts at the item's visibility).
Items inside an inline ``mod x { … }`` and macros are not read as components. Public: an
item declared ``pub`` (``declared_pub``); a trait's methods with their trait, an ``impl Trait
for Type`` block's always (they take no visibility), an inherent ``impl``'s when ``pub``.

Calls: ``f()``, ``a::b::f()`` and ``Type::new()`` written with dots (``a.b.f``,
``Type.new``), ``self::f()`` as ``f``, struct literals ``Type { … }`` (written ``Type``);
``self.m()`` and ``Self::m()`` as ``self.m``. Raises: none (errors are ``Result`` values; a
``panic!`` is a macro, not a typed exception). Imports: each ``use`` leaf and each ``mod x;``,
resolved against the crate's files (``crate::``, ``self::``, ``super::``, and paths relative
to the module): an in-repository module's id as the target and the item as the name; others
(``std::fmt::Display``) as ``std.fmt`` + ``Display``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from docmentor.repodocs.treesitter_units import (
    FileFacts,
    Ids,
    MethodGroup,
    ReadFile,
    Source,
    clean_block_comment,
    clean_line_comments,
    comments_above,
    end_line,
    line,
    parameter,
    unique_calls,
    walk,
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

# an absolute crate path (its parts) → (the id of the longest prefix that is a module, the
# number of parts it takes), or None
Resolver = Callable[[tuple[str, ...]], tuple[str, int] | None]

_DOC = frozenset({"line_comment", "block_comment"})
_ATTRIBUTES = frozenset({"attribute_item"})
_CLASSES = frozenset({"struct_item", "enum_item", "union_item", "trait_item"})
_BODIES = frozenset({"field_declaration_list", "enum_variant_list", "declaration_list"})


def rust_module_path(rel: str) -> tuple[str, tuple[str, ...]]:
    """(crate folder, crate path parts) of a ``.rs`` file: ``src/a/b.rs`` → (``.``, (a, b))."""
    parts = PurePosixPath(rel).with_suffix("").parts
    if "src" in parts:
        k = len(parts) - 1 - parts[::-1].index("src")
        crate = "/".join(parts[:k]) or "."
        inner = parts[k + 1 :]
    else:
        crate, inner = "/".join(parts[:-1]) or ".", parts[-1:]
    if inner and inner[-1] == "mod":
        inner = inner[:-1]
    elif len(inner) == 1 and inner[0] in ("lib", "main"):
        inner = ()
    return crate, tuple(inner)


def read_rust(rel: str, data: bytes, tree: Tree, module_id: str, resolve: Resolver) -> ReadFile:
    """The module, components and methods of one parsed Rust file."""
    return _Reader(rel, Source(data), module_id, resolve).read(tree.root_node)


def _doc_text(nodes: list[Node], source: Source, inner: bool) -> str | None:
    marker = "//!" if inner else "///"
    block = "/*!" if inner else "/**"
    texts = [source.of(n) for n in nodes]
    lines = [t for t in texts if t.startswith(marker) and not t.startswith("////")]
    blocks = [t for t in texts if t.startswith(block)]
    out = clean_line_comments(lines, marker) if lines else ""
    out = "\n".join(filter(None, [out, *(clean_block_comment(b) for b in blocks)]))
    return out or None


class _Reader:
    def __init__(self, rel: str, source: Source, module_id: str, resolve: Resolver) -> None:
        self.rel = rel
        self.source = source
        self.id = module_id
        self.resolve = resolve
        self.path = rust_module_path(rel)[1]
        self.ids = Ids()
        self.components: list[Component] = []
        self.groups: list[MethodGroup] = []
        self.facts = FileFacts()
        self.imports: list[ImportRef] = []

    def read(self, root: Node) -> ReadFile:
        children = list(root.named_children)
        top: list[str] = []
        head = []
        for node in children:
            if node.type not in _DOC:
                break
            head.append(node)
        for i, node in enumerate(children):
            kind = node.type
            if kind == "function_item":
                top.append(self._function(children, i, None, None))
            elif kind in _CLASSES:
                top.append(self._class(children, i))
            elif kind == "impl_item":
                self._impl(node)
            elif kind == "use_declaration":
                self._use(node)
            elif kind == "mod_item" and node.child_by_field_name("body") is None:
                name = self.source.of(node.child_by_field_name("name"))
                found = self.resolve((*self.path, name))
                if found is not None and found[1] == len(self.path) + 1:
                    self.imports.append(ImportRef(found[0], None, name, 0, line(node)))
            elif kind in ("const_item", "static_item"):
                self.facts.module_names.add(self.source.of(node.child_by_field_name("name")))
        last = max(len(self.source.lines), 1)
        module = Module(
            id=self.id,
            name="::".join(("crate", *self.path)),
            path=self.rel,
            package=REPOSITORY_ID,
            line_start=1,
            line_end=last,
            docstring=_doc_text(head, self.source, inner=True),
            content_hash=self.source.hash(1, last),
            imports=tuple(self.imports),
            components=tuple(top),
        )
        return ReadFile(module, self.components, self.groups, self.facts)

    def _span(self, siblings: list[Node], index: int) -> tuple[int, int, str | None]:
        above = comments_above(siblings, index, _DOC | _ATTRIBUTES, frozenset())
        docs = [n for n in above if n.type in _DOC]
        doc = _doc_text(docs, self.source, inner=False)
        firsts = [n for n in above if n.type in _ATTRIBUTES or (doc and n.type in _DOC)]
        start = line(firsts[0]) if firsts else line(siblings[index])
        return start, end_line(siblings[index]), doc

    # -- definitions ------------------------------------------------------------------------

    def _function(
        self, siblings: list[Node], index: int, owner: Component | None, in_impl: str | None
    ) -> str:
        node = siblings[index]
        name = self.source.of(node.child_by_field_name("name"))
        start, end, doc = self._span(siblings, index)
        body = node.child_by_field_name("body")
        signature = self.source.between(
            _header_start(node), body.start_byte if body is not None else node.end_byte
        )
        signature = signature.removesuffix(";").rstrip()
        params = _parameters(node.child_by_field_name("parameters"), self.source)
        returns_node = node.child_by_field_name("return_type")
        returns = self.source.of(returns_node) if returns_node is not None else None
        method = owner is not None or in_impl is not None
        method_kind: MethodKind | None = None
        if method:
            method_kind = "instance" if params and params[0].name == "self" else "static"
        if owner is not None:
            unit_id = self.ids.unique(f"{owner.id}.{name}")
            qualname = f"{owner.qualname}.{name}"
        else:
            unit_id = "" if in_impl is not None else self.ids.unique(f"{self.id}.{name}")
            qualname = name
        scope = body if body is not None else node
        if owner is not None:  # a trait's method: public with its trait
            public = owner.public
        elif in_impl is not None and self.groups[-1].trait is not None:
            public = True  # impl Trait for Type: as visible as the trait (no `pub` there)
        else:
            public = declared_pub(node, self.source)
        component = Component(
            id=unit_id,
            kind="method" if method else "function",
            name=name,
            qualname=qualname,
            module=self.id,
            parent=owner.id if owner is not None else self.id,
            path=self.rel,
            line_start=start,
            line_end=end,
            signature=signature,
            docstring=doc,
            content_hash=self.source.hash(start, end),
            parameters=params,
            returns=returns,
            is_async=any(
                c.type == "function_modifiers" and "async" in self.source.of(c) for c in node.children
            ),
            calls=unique_calls(self._calls(scope, method)),
            method_kind=method_kind,
            public=public,
        )
        if returns is not None and returns.strip() not in ("()", "!"):
            self.facts.returns.add((start, end))
        self.facts.local[(start, end)] = frozenset(_locals(node, self.source))
        if in_impl is None:
            self.components.append(component)
        else:
            self.groups[-1].methods.append(component)
        return unit_id

    def _class(self, siblings: list[Node], index: int) -> str:
        node = siblings[index]
        name = self.source.of(node.child_by_field_name("name"))
        start, end, doc = self._span(siblings, index)
        body = node.child_by_field_name("body")
        stop = body.start_byte if body is not None and body.type in _BODIES else node.end_byte
        signature = self.source.between(_header_start(node), stop).removesuffix(";").rstrip()
        unit_id = self.ids.unique(f"{self.id}.{name}")
        bounds = node.child_by_field_name("bounds")
        bases = tuple(self.source.of(b) for b in bounds.named_children) if bounds is not None else ()
        placeholder = Component(
            unit_id, "class", name, name, self.id, self.id, self.rel, start, end, signature, doc,
            self.source.hash(start, end), bases=bases, public=declared_pub(node, self.source),
        )  # fmt: skip
        members: list[str] = []
        attributes: list[str] = []
        inner = list(body.named_children) if body is not None else []
        for i, child in enumerate(inner):
            if child.type in ("function_item", "function_signature_item"):
                members.append(self._function(inner, i, placeholder, None))
            elif child.type in ("field_declaration", "enum_variant"):
                attributes.append(self.source.of(child.child_by_field_name("name")))
        self.components.append(replace(placeholder, members=tuple(members), attributes=tuple(attributes)))
        return unit_id

    def _impl(self, node: Node) -> None:
        target = node.child_by_field_name("type")
        trait = node.child_by_field_name("trait")
        if target is None:
            return
        type_name = _type_name(self.source.of(target))
        self.groups.append(
            MethodGroup(type_name, self.id, [], self.source.of(trait) if trait is not None else None)
        )
        body = node.child_by_field_name("body")
        inner = list(body.named_children) if body is not None else []
        for i, child in enumerate(inner):
            if child.type == "function_item":
                self._function(inner, i, None, type_name)

    # -- use declarations ---------------------------------------------------------------------

    def _use(self, node: Node) -> None:
        argument = node.child_by_field_name("argument")
        if argument is None:
            return
        for parts, alias, star in _leaves(argument, self.source):
            self._import(parts, alias, star, line(node))

    def _import(self, parts: tuple[str, ...], alias: str | None, star: bool, at: int) -> None:
        if not parts:
            return
        absolute: tuple[str, ...] | None = None
        if parts[0] == "crate":
            absolute = parts[1:]
        elif parts[0] in ("self", "super"):
            base = list(self.path)
            climb = list(parts)
            while climb and climb[0] in ("self", "super"):
                if climb.pop(0) == "super" and base:
                    base.pop()
            absolute = (*base, *climb)
        found = self.resolve(absolute) if absolute is not None else self.resolve((*self.path, *parts))
        if absolute is None and found is not None and found[1] <= len(self.path):
            found = None  # not a child module of this one: another crate's path
        if absolute is None and found is None:  # another crate: std, serde …
            target = ".".join(parts[:-1]) if len(parts) > 1 and not star else ".".join(parts)
            name = "*" if star else (parts[-1] if len(parts) > 1 else None)
            self.imports.append(ImportRef(target, name, alias, 0, at))
            return
        if found is None:
            return
        module, used = found
        whole = absolute if absolute is not None else (*self.path, *parts)
        rest = whole[used:]
        if star:
            if not rest:
                self.imports.append(ImportRef(module, "*", None, 1, at))
            return
        if not rest:
            self.imports.append(ImportRef(module, None, alias or whole[-1], 1, at))
        else:
            bound = alias or (rest[-1] if len(rest) > 1 else None)
            self.imports.append(ImportRef(module, ".".join(rest), bound, 1, at))

    # -- code -------------------------------------------------------------------------------

    def _calls(self, scope: Node, method: bool) -> Iterator[CallSite]:
        for node in walk(scope, frozenset({"macro_invocation"})):
            if node.type == "call_expression":
                name = _dotted(node.child_by_field_name("function"), self.source, method)
            elif node.type == "struct_expression":
                name = _dotted(node.child_by_field_name("name"), self.source, method)
            else:
                continue
            if name is not None:
                yield CallSite(name, line(node))


def declared_pub(node: Node, source: Source) -> bool:
    """The item is declared ``pub``: public outside its crate (``pub(crate)``, ``pub(super)``,
    ``pub(in path)`` and ``pub(self)`` are not)."""
    visibility = next((c for c in node.children if c.type == "visibility_modifier"), None)
    return visibility is not None and source.of(visibility).strip() == "pub"


def _leaves(node: Node, source: Source) -> Iterator[tuple[tuple[str, ...], str | None, bool]]:
    """Each leaf of a ``use`` tree: (path parts, alias, is a glob); iterative, in source order."""
    stack: list[tuple[Node, tuple[str, ...]]] = [(node, ())]
    while stack:
        current, prefix = stack.pop()
        kind = current.type
        if kind == "use_as_clause":
            path = _path_parts(current.child_by_field_name("path"), source)
            alias = current.child_by_field_name("alias")
            yield (*prefix, *path), source.of(alias) if alias is not None else None, False
        elif kind == "scoped_use_list":
            base = (*prefix, *_path_parts(current.child_by_field_name("path"), source))
            listed = current.child_by_field_name("list")
            if listed is not None:
                stack.append((listed, base))
        elif kind == "use_list":
            stack += [(child, prefix) for child in reversed(current.named_children)]
        elif kind == "use_wildcard":
            inner = next(iter(current.named_children), None)
            yield (*prefix, *(_path_parts(inner, source) if inner is not None else ())), None, True
        else:
            parts = _path_parts(current, source)
            if parts == ("self",) and prefix:  # use a::{self}
                yield prefix, None, False
            elif parts:
                yield (*prefix, *parts), None, False


def _type_name(text: str) -> str:
    """An ``impl`` target's type name: ``Wrap<T>`` → ``Wrap``, ``&'a mut a::Foo`` → ``Foo``,
    ``[u8]`` → ``_`` (no name)."""
    head = text.split("<", 1)[0].split("::")[-1]
    words = [w for w in head.replace("&", " ").split() if w not in ("mut", "dyn") and not w.startswith("'")]
    name = words[-1] if words else ""
    return name if name.replace("_", "a").isalnum() else "_"


def _path_parts(node: Node | None, source: Source) -> tuple[str, ...]:
    if node is None:
        return ()
    text = source.of(node)
    return tuple(p.strip() for p in text.split("::") if p.strip())


def _header_start(node: Node) -> int:
    """Where an item's signature starts: its visibility or its first keyword (no attribute)."""
    for child in node.children:
        if child.type not in _DOC and child.type not in _ATTRIBUTES:
            return child.start_byte
    return node.start_byte


def _parameters(node: Node | None, source: Source) -> tuple[Parameter, ...]:
    if node is None:
        return ()
    out: list[Parameter] = []
    for p in node.named_children:
        if p.type == "self_parameter":
            out.append(parameter("self"))
        elif p.type == "parameter":
            out.append(
                parameter(
                    source.of(p.child_by_field_name("pattern")), source.of(p.child_by_field_name("type"))
                )
            )
        elif p.type == "variadic_parameter":
            out.append(parameter("args", None, rest=True))
    return tuple(out)


def _dotted(node: Node | None, source: Source, method: bool) -> str | None:
    """A call's target with dots: ``a::b::f`` → ``a.b.f``, ``Vec::<T>::new`` → ``Vec.new``,
    ``self.m`` and ``Self::m`` → ``self.m`` (in a method), ``self::f`` → ``f``."""
    if node is None:
        return None
    fields: list[str] = []
    while node is not None and node.type == "field_expression":  # a.b.c(): iterative
        fields.append(source.of(node.child_by_field_name("field")))
        node = node.child_by_field_name("value")
    if fields:
        if node is not None and node.type == "self":
            return ".".join(["self", *reversed(fields)]) if method else None
        if node is None or node.type != "identifier":
            return None
        return ".".join([source.of(node), *reversed(fields)])
    if node is not None and node.type == "generic_function":
        node = node.child_by_field_name("function")
    if node is None or node.type not in (
        "identifier",
        "scoped_identifier",
        "type_identifier",
        "scoped_type_identifier",
    ):
        return None
    text = source.of(node)
    parts = []
    for part in text.split("::"):
        part = part.split("<", 1)[0].strip()
        if part:
            parts.append(part)
    if not parts or not all(p.replace("_", "a").isalnum() for p in parts):
        return None
    if parts[0] == "self" and len(parts) > 1:
        parts = parts[1:]
    elif parts[0] == "Self":
        if not method or len(parts) == 1:
            return None
        parts[0] = "self"
    return ".".join(parts)


def _locals(node: Node, source: Source) -> set[str]:
    out: set[str] = set()
    for inner in walk(node):
        if inner.type in ("let_declaration", "parameter"):
            pattern = inner.child_by_field_name("pattern")
            if pattern is not None:
                out.update(source.of(n) for n in walk(pattern) if n.type == "identifier")
    return out
