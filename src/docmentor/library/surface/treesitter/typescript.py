"""TypeScript and JavaScript: ``export`` declarations, ``export { a as b }`` and re-exports,
CommonJS ``module.exports``, class and interface members, JSDoc."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Literal

from docmentor.library.models import ApiParameter
from docmentor.library.surface.treesitter.core import (
    Collector,
    Reexport,
    SourceFile,
    api_return,
    declaration_header,
    descendants,
    module_of,
    node_text,
    squash_space,
    summary_of,
)

if TYPE_CHECKING:
    from tree_sitter import Node

_HIDDEN_TAGS = frozenset({"internal", "private", "hidden", "ignore"})


@dataclass
class _Doc:
    text: str = ""
    params: dict[str, tuple[str | None, str, bool, str | None]] = field(default_factory=dict)
    returns: tuple[str | None, str] = (None, "")
    tags: set[str] = field(default_factory=set)


_TAG = re.compile(r"^@(\w+)\s*(?:\{(?P<type>[^}]*)\})?\s*(?P<rest>.*)$", re.S)


def _function_type(type_node: Node | None) -> Node | None:
    """The function type a type annotation is (``: (date: Date) => Date``), if it is one."""
    if type_node is None:
        return None
    inner = (
        type_node.named_children[0]
        if type_node.type == "type_annotation" and type_node.named_children
        else type_node
    )
    while inner.type == "parenthesized_type" and inner.named_children:
        inner = inner.named_children[0]
    return inner if inner.type == "function_type" else None


def _jsdoc(comment: str) -> _Doc:
    body = comment.removeprefix("/**").removesuffix("*/")
    lines = [re.sub(r"^\s*\* ?", "", line).rstrip() for line in body.splitlines()]
    text = re.sub(r"\{@link(?:code|plain)?\s+([^}|\s]+)[^}]*\}", r"\1", "\n".join(lines)).strip()
    doc = _Doc(text=text)
    for block in re.split(r"\n(?=@)", "\n" + text)[1:]:
        m = _TAG.match(block.strip())
        if m is None:
            continue
        tag, type_, rest = m.group(1), m.group("type"), " ".join(m.group("rest").split())
        doc.tags.add(tag)
        if tag in ("param", "arg", "argument"):
            name, _, desc = rest.partition(" ")
            optional, default = name.startswith("["), None
            name = name.strip("[]")
            if "=" in name:
                name, default = name.split("=", 1)
            doc.params[name] = (type_, desc.removeprefix("- ").strip(), optional, default)
        elif tag in ("returns", "return"):
            doc.returns = (type_, rest.removeprefix("- ").strip())
    return doc


def _main_text(doc: _Doc) -> str:
    return re.split(r"\n@\w", "\n" + doc.text, maxsplit=1)[0].strip()


_JS_FUNCTIONS = ("function_declaration", "generator_function_declaration", "function_signature")
_JS_VALUES_FN = ("arrow_function", "function_expression", "function", "generator_function")
_JS_CLASSES = ("class_declaration", "abstract_class_declaration", "class", "interface_declaration")


def _js_comment(node: Node) -> _Doc | None:
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        prev = prev.prev_named_sibling
    if prev is not None and prev.type == "comment" and node_text(prev).startswith("/**"):
        return _jsdoc(node_text(prev))
    return None


class JsCollector:
    def __init__(self, c: Collector, f: SourceFile) -> None:
        self.c, self.f = c, f
        self.locals: dict[str, tuple[Node, Node]] = {}  # name → (declaration, doc anchor)
        self.imports: dict[str, tuple[list[str], str]] = {}  # local → (modules, imported name)
        self.namespaces: dict[str, list[str]] = {}  # `import * as z from "./external"`: z → its modules

    def run(self, root: Node) -> None:
        exports: list[tuple[str, str]] = []  # (local, exported) from `export { a as b }`
        for child in root.named_children:
            if child.type == "export_statement":
                self.export(child, exports)
            elif child.type == "import_statement":
                self.record_import(child)
            elif child.type == "expression_statement":
                self.commonjs(child, exports)
            else:
                for name, decl in self.declared(child):
                    self.locals.setdefault(name, (decl, child))
        for local, (decl, _) in self.locals.items():
            self.note_instance(local, decl)
        for local, exported in exports:
            if local in self.locals:
                decl, anchor = self.locals[local]
                self.declaration(decl, anchor, name=exported, only=local)
            elif local in self.imports:
                targets, imported = self.imports[local]
                self.reexport(targets, imported, exported)
            elif local in self.namespaces:  # `export { z }` of `import * as z`
                self.namespace_export(self.namespaces[local], exported)

    def note_instance(self, name: str, decl: Node) -> None:
        """Record a module-level ``const x = new X()``: ``x.method`` is then X's method."""
        if decl.type not in ("lexical_declaration", "variable_declaration"):
            return
        for d in decl.named_children:
            if d.type != "variable_declarator" or node_text(d.child_by_field_name("name")) != name:
                continue
            value = d.child_by_field_name("value")
            if value is not None and value.type == "new_expression":
                made = node_text(value.child_by_field_name("constructor"))
                if made:
                    self.c.instances.setdefault(self.f.module, {})[name] = made

    def declared(self, node: Node) -> list[tuple[str, Node]]:
        if node.type == "ambient_declaration":
            return [x for child in node.named_children for x in self.declared(child)]
        if node.type in ("lexical_declaration", "variable_declaration"):
            return [
                (node_text(d.child_by_field_name("name")), node)
                for d in node.named_children
                if d.type == "variable_declarator"
            ]
        name = node.child_by_field_name("name")
        return [(node_text(name), node)] if name is not None else []

    def namespace_export(self, targets: list[str], name: str) -> None:
        """A module exported as a namespace (zod's ``z``): its names are this module's
        ``name.X`` too (``z.string``, which the docs call)."""
        if targets and name != "default":
            path = ".".join(p for p in (self.f.module, name) if p)
            self.c.reexports.append(Reexport(path, targets, "*", "*"))
            self.c.namespaces.setdefault(self.f.module, {})[name] = path

    def record_import(self, node: Node) -> None:
        targets = self.targets(node_text(node.child_by_field_name("source")).strip("\"'`"))
        for ns in descendants(node, "namespace_import"):
            name = next((node_text(ch) for ch in ns.named_children if ch.type == "identifier"), "")
            if name:
                self.namespaces[name] = targets
        for spec_node in descendants(node, "import_specifier"):
            imported = node_text(spec_node.child_by_field_name("name"))
            local = node_text(spec_node.child_by_field_name("alias")) or imported
            self.imports[local] = (targets, imported)
            self.c.imports.setdefault(self.f.module, {})[local] = (targets, imported)

    def targets(self, spec: str) -> list[str]:
        """The modules a relative import specifier may name (``./x`` → ``x``, ``x/index``)."""
        if not spec.startswith("."):
            return []
        base = posixpath.normpath(posixpath.join(self.f.rel.parent.as_posix(), spec))
        base = re.sub(r"\.(?:[cm]?[jt]sx?)$", "", base)
        lang = self.f.language
        return [
            module_of(PurePosixPath(base + ".ts"), lang),
            module_of(PurePosixPath(base, "index.ts"), lang),
        ]

    def reexport(self, targets: list[str], name: str, local: str) -> None:
        if targets:
            self.c.reexports.append(Reexport(self.f.module, targets, name, local))

    def export(self, node: Node, exports: list[tuple[str, str]]) -> None:
        source = node.child_by_field_name("source")
        default = any(child.type == "default" for child in node.children)
        decl = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        if source is not None:
            spec = self.targets(node_text(source).strip("\"'`"))
            clause = next((ch for ch in node.named_children if ch.type == "export_clause"), None)
            namespace = next((ch for ch in node.named_children if ch.type == "namespace_export"), None)
            if clause is None and namespace is None:
                self.reexport(spec, "*", "*")
            elif namespace is not None:  # `export * as z from "./external"`
                name = next(
                    (node_text(ch) for ch in namespace.named_children if ch.type in ("identifier", "string")),
                    "",
                )
                self.namespace_export(spec, name.strip("\"'"))
            for s in descendants(clause, "export_specifier") if clause is not None else []:
                name = node_text(s.child_by_field_name("name"))
                self.reexport(spec, name, node_text(s.child_by_field_name("alias")) or name)
        elif decl is not None:
            self.declaration(decl, node, name="default" if default and decl.type in _JS_VALUES_FN else None)
        elif value is not None:
            if value.type == "identifier":
                exports.append((node_text(value), node_text(value)))
            else:
                self.value(value, node, node_text(value.child_by_field_name("name")) or "default", "")
        else:
            for s in descendants(node, "export_specifier"):
                name = node_text(s.child_by_field_name("name"))
                exports.append((name, node_text(s.child_by_field_name("alias")) or name))

    def commonjs(self, stmt: Node, exports: list[tuple[str, str]]) -> None:
        expr = stmt.named_children[0] if stmt.named_children else None
        if expr is None or expr.type != "assignment_expression":
            return
        left, right = node_text(expr.child_by_field_name("left")), expr.child_by_field_name("right")
        if right is None:
            return
        if left == "module.exports":
            if right.type == "object":
                for prop in right.named_children:
                    if prop.type == "shorthand_property_identifier":
                        exports.append((node_text(prop), node_text(prop)))
                    elif prop.type == "pair":
                        key, val = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                        if val is not None and val.type == "identifier":
                            exports.append((node_text(val), node_text(key)))
                        elif val is not None:
                            self.value(val, stmt, node_text(key), f"{node_text(key)}: ")
            elif right.type == "identifier":
                exports.append((node_text(right), node_text(right)))
            else:
                self.value(right, stmt, node_text(right.child_by_field_name("name")) or "default", "")
        elif m := re.fullmatch(r"(?:module\.)?exports\.([\w$]+)", left):
            if right.type == "identifier":
                exports.append((node_text(right), m.group(1)))
            else:
                self.value(right, stmt, m.group(1), f"{left} = ")

    def declaration(self, decl: Node, anchor: Node, *, name: str | None = None, only: str = "") -> None:
        t = decl.type
        if t == "ambient_declaration":
            for child in decl.named_children:
                self.declaration(child, anchor, name=name, only=only)
            return
        doc = _js_comment(anchor) or _js_comment(decl) or _Doc()
        if doc.tags & _HIDDEN_TAGS:
            return
        own = node_text(decl.child_by_field_name("name"))
        if t in _JS_FUNCTIONS or t in _JS_VALUES_FN:
            self.function(
                decl,
                name or own or "default",
                doc,
                header=declaration_header(decl, decl.child_by_field_name("body"), self.f.source),
            )
        elif t in _JS_CLASSES:
            self.klass(decl, name or own or "default", doc)
        elif (
            t == "type_alias_declaration"
            and (value := decl.child_by_field_name("value")) is not None
            and (value.type == "object_type")
        ):
            self.object_type(decl, value, name or own, doc)  # `type KyInstance = { get: …; post(…): … }`
        elif t in ("type_alias_declaration", "enum_declaration"):
            kind = "attribute" if t == "type_alias_declaration" else "class"
            value = decl.child_by_field_name("value")
            self.c.add(
                self.f,
                decl,
                name=name or own,
                kind=kind,
                docstring=doc.text,
                summary=_main_text(doc),
                signature=squash_space(node_text(decl)).removesuffix(";")[:300],
                returns=api_return(node_text(value)) if value is not None else None,
            )
        elif t in ("lexical_declaration", "variable_declaration"):
            keyword = node_text(decl.child_by_field_name("kind")) or node_text(decl.children[0])
            for d in decl.named_children:
                own = node_text(d.child_by_field_name("name"))
                if d.type != "variable_declarator" or (only and own != only):
                    continue
                value = d.child_by_field_name("value")
                if value is not None and value.type in (*_JS_VALUES_FN, "class"):
                    self.value(value, anchor, name or own, f"{keyword} ", start=d)
                    continue
                type_node = d.child_by_field_name("type")
                type_text = node_text(type_node).removeprefix(":").strip() or None
                shape = _function_type(type_node)
                if shape is not None and value is None:  # `declare const addDays: (date: Date) => Date`
                    self.function(shape, name or own, doc, header=f"{keyword} {own}: {type_text}")
                    continue
                sig = f"{keyword} {own}" + (f": {type_text}" if type_text else "")
                if type_text is None and value is not None and len(node_text(value)) <= 80:
                    sig += f" = {squash_space(node_text(value))}"
                self.c.add(
                    self.f,
                    d,
                    name=name or own,
                    kind="attribute",
                    docstring=doc.text,
                    summary=_main_text(doc),
                    signature=sig,
                    returns=api_return(type_text),
                )

    def value(self, value: Node, anchor: Node, name: str, prefix: str, start: Node | None = None) -> None:
        doc = _js_comment(anchor) or _Doc()
        if doc.tags & _HIDDEN_TAGS:
            return
        if value.type == "class":
            self.klass(value, name, doc)
        elif value.type in _JS_VALUES_FN:
            body = value.child_by_field_name("body")
            header = prefix + declaration_header(start or value, body, self.f.source)
            self.function(value, name, doc, header=header)

    def params(self, node: Node | None, doc: _Doc) -> list[ApiParameter]:
        if node is None:
            return []
        items = [node] if node.type == "identifier" else node.named_children
        out = []
        for p in items:
            pattern, type_node, value, optional = p, None, None, p.type == "optional_parameter"
            if p.type in ("required_parameter", "optional_parameter"):
                pattern = p.child_by_field_name("pattern") or p
                type_node, value = p.child_by_field_name("type"), p.child_by_field_name("value")
            elif p.type == "assignment_pattern":
                pattern, value = p.child_by_field_name("left") or p, p.child_by_field_name("right")
            elif p.type not in ("identifier", "rest_pattern", "object_pattern", "array_pattern"):
                continue
            if pattern.type == "this":
                continue
            rest = pattern.type == "rest_pattern"
            name = squash_space(node_text(pattern)).removeprefix("...")
            type_text = node_text(type_node).removeprefix(":").strip() or None
            doc_type, desc, doc_optional, doc_default = doc.params.get(name, (None, "", False, None))
            default = squash_space(node_text(value)) if value is not None else doc_default
            out.append(
                ApiParameter(
                    name=name,
                    type=type_text or doc_type,
                    default=default,
                    required=not (optional or doc_optional or rest or default is not None),
                    kind="var-positional" if rest else "positional or keyword",
                    description=desc,
                )
            )
        return out

    def function(
        self,
        node: Node,
        name: str,
        doc: _Doc,
        *,
        header: str,
        parent: str | None = None,
        kind: Literal["function", "method", "property"] = "function",
    ) -> None:
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        ret = node_text(node.child_by_field_name("return_type")).removeprefix(":").strip() or doc.returns[0]
        self.c.add(
            self.f,
            node,
            name=name,
            parent=parent,
            kind=kind,
            signature=header,
            parameters=[] if kind == "property" else self.params(params, doc),
            returns=api_return(ret, doc.returns[1]),
            docstring=doc.text,
            summary=_main_text(doc),
        )

    def object_type(self, decl: Node, value: Node, name: str, doc: _Doc) -> None:
        """A type alias of an object type (ky's ``type KyInstance = { <T>(url): …; post: (…) =>
        …; create(…): KyInstance }``): a shape like an interface, its members collected as an
        interface's; a member typed as a function is a method; a call signature makes the
        shape's own parameters."""
        api_id = self.c.add(
            self.f,
            decl,
            name=name,
            kind="class",
            signature=f"type {name} = {{…}}",
            docstring=doc.text,
            summary=_main_text(doc),
        )
        for m in value.named_children:
            mdoc = _js_comment(m) or _Doc()
            if mdoc.tags & _HIDDEN_TAGS:
                continue
            if m.type == "call_signature":
                entry = self.c.entries[api_id]
                if not entry.parameters:
                    entry.parameters = self.params(m.child_by_field_name("parameters"), mdoc)
                continue
            name_node = m.child_by_field_name("name")
            member = node_text(name_node)
            if name_node is None or member.startswith(("_", "#")):
                continue
            if m.type == "method_signature":
                header = squash_space(node_text(m)).removesuffix(";").removesuffix(",")
                self.function(m, member, mdoc, header=header, parent=api_id, kind="method")
            elif m.type == "property_signature":
                type_node = m.child_by_field_name("type")
                shape = _function_type(type_node)
                header = squash_space(node_text(m)).removesuffix(";").removesuffix(",")
                if shape is not None:
                    self.function(shape, member, mdoc, header=header, parent=api_id, kind="method")
                    continue
                self.c.add(
                    self.f,
                    m,
                    name=member,
                    parent=api_id,
                    kind="property",
                    signature=header,
                    returns=api_return(node_text(type_node).removeprefix(":").strip() or None),
                    docstring=mdoc.text,
                    summary=_main_text(mdoc),
                )

    def klass(self, node: Node, name: str, doc: _Doc) -> None:
        body = node.child_by_field_name("body")
        bases = []
        for heritage in node.named_children:
            if heritage.type not in ("class_heritage", "extends_type_clause"):
                continue
            for clause in [heritage, *heritage.named_children]:
                bases += [
                    node_text(x.child_by_field_name("name") or x)
                    for x in clause.named_children
                    if x.type in ("identifier", "type_identifier", "member_expression", "generic_type")
                ]
        api_id = self.c.add(
            self.f,
            node,
            name=name,
            kind="class",
            signature=declaration_header(node, body, self.f.source),
            docstring=doc.text,
            summary=_main_text(doc),
            bases=bases,
        )
        ctor: Node | None = None
        for m in body.named_children if body is not None else []:
            name_node = m.child_by_field_name("name") or m.child_by_field_name("property")
            member = node_text(name_node)
            words = {child.type for child in m.children} | {
                node_text(child) for child in m.children if child.type == "accessibility_modifier"
            }
            if (
                name_node is None
                or name_node.type not in ("property_identifier", "identifier")
                or (member.startswith(("_", "#")) or words & {"private", "protected", "set"})
            ):
                continue
            mdoc = _js_comment(m) or _Doc()
            if mdoc.tags & _HIDDEN_TAGS:
                continue
            if member == "constructor":
                ctor = ctor or m
            elif m.type in ("method_definition", "method_signature", "abstract_method_signature"):
                kind: Literal["method", "property"] = "property" if "get" in words else "method"
                header = declaration_header(m, m.child_by_field_name("body"), self.f.source)
                self.function(m, member, mdoc, header=header, parent=api_id, kind=kind)
            elif m.type in ("public_field_definition", "property_signature", "field_definition"):
                value = m.child_by_field_name("value")
                if value is not None and value.type in _JS_VALUES_FN:
                    self.function(
                        value,
                        member,
                        mdoc,
                        header=declaration_header(m, value.child_by_field_name("body"), self.f.source),
                        parent=api_id,
                        kind="method",
                    )
                    continue
                type_text = node_text(m.child_by_field_name("type")).removeprefix(":").strip() or None
                self.c.add(
                    self.f,
                    m,
                    name=member,
                    parent=api_id,
                    kind="property",
                    signature=squash_space(node_text(m)).removesuffix(";").removesuffix(","),
                    returns=api_return(type_text),
                    docstring=mdoc.text,
                    summary=_main_text(mdoc),
                )
        if ctor is not None:
            entry = self.c.entries[api_id]
            cdoc = _js_comment(ctor) or _Doc()
            entry.parameters = self.params(ctor.child_by_field_name("parameters"), cdoc)
            if not entry.docstring and cdoc.text:
                entry.docstring, entry.description = cdoc.text, summary_of(_main_text(cdoc))
