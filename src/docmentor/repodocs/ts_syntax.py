"""The TypeScript/JavaScript syntax-tree reading ``ts_units`` needs beside its reader: which
node types define functions and classes, a definition's parameters, bases, signature start,
``this.x`` attributes, a call's dotted name, returns and yields, the names a function binds,
a file's module doc comment, CommonJS export names, what a file exports and whether a class
member is public. Iterative walks only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from docmentor.repodocs.treesitter_units import (
    Source,
    clean_block_comment,
    end_line,
    line,
    parameter,
    walk,
)
from docmentor.repodocs.units import MethodKind, Parameter

if TYPE_CHECKING:
    from tree_sitter import Node

FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
CLASSES = frozenset(
    {"class_declaration", "abstract_class_declaration", "interface_declaration", "enum_declaration", "class"}
)
FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
SCOPES = frozenset(
    {*FUNCTION_VALUES, "function_declaration", "generator_function_declaration", "method_definition"}
)


def commonjs_name(assigned: Node, source: Source) -> str | None:
    """The name ``module.exports.f = …`` / ``exports.f = …`` exports (``module.exports = …``:
    the function's own name, else ``exports``)."""
    left = source.of(assigned.child_by_field_name("left")).replace(" ", "")
    for prefix in ("module.exports.", "exports."):
        rest = left.removeprefix(prefix)
        if rest != left and rest.isidentifier():
            return rest
    if left == "module.exports":
        right = assigned.child_by_field_name("right")
        named = right.child_by_field_name("name") if right is not None else None
        return source.of(named) if named is not None else "exports"
    return None


def commonjs_exported(assigned: Node, source: Source) -> list[tuple[str, str | None]]:
    """The local names a CommonJS assignment exports, each with the name it is exported as
    (None: the module itself): ``module.exports = a`` (``a``, None), ``module.exports = { a,
    b: c }`` (``a``, ``a``) and (``c``, ``b``), ``module.exports.x = a`` and ``exports.x = a``
    (``a``, ``x``). A function or class written in place is a definition of its own
    (``commonjs_name``)."""
    left = source.of(assigned.child_by_field_name("left")).replace(" ", "")
    right = assigned.child_by_field_name("right")
    if right is None:
        return []
    whole = left == "module.exports"
    member = next((left[len(p) :] for p in ("module.exports.", "exports.") if left.startswith(p)), "")
    if not whole and not member.isidentifier():
        return []
    if right.type == "identifier":
        return [(source.of(right), None if whole else member)]
    out: list[tuple[str, str | None]] = []
    if whole and right.type == "object":
        for entry in right.named_children:
            if entry.type == "shorthand_property_identifier":
                out.append((source.of(entry), source.of(entry)))
            elif entry.type == "pair":
                key, value = entry.child_by_field_name("key"), entry.child_by_field_name("value")
                if key is not None and value is not None and value.type == "identifier":
                    out.append((source.of(value), source.of(key).strip("'\"")))
    return out


def exported_locals(export: Node, source: Source) -> list[tuple[str, str | None]]:
    """The local names an ``export`` statement without ``from`` exports apart from their
    definitions, each with the name it is exported as: ``export { a, b as c }`` (``a``, ``a``)
    and (``b``, ``c``), ``export default a`` (``a``, ``default``), ``export = a`` (``a``, None:
    the module itself)."""
    out: list[tuple[str, str | None]] = []
    default = any(c.type == "default" for c in export.children)
    for child in export.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                name = spec.child_by_field_name("name") if spec.type == "export_specifier" else None
                alias = spec.child_by_field_name("alias") if spec.type == "export_specifier" else None
                if name is not None:
                    local = source.of(name)
                    out.append((local, source.of(alias) if alias is not None else local))
        elif child.type == "identifier":  # export default a; export = a
            out.append((source.of(child), "default" if default else None))
    return out


def member_public(member: Node) -> bool:
    """A class's or an interface's member is public unless it is ``private``, ``protected`` or
    ``#private``."""
    for child in member.children:
        if child.type == "accessibility_modifier" and any(
            c.type in ("private", "protected") for c in child.children
        ):
            return False
    name = member.child_by_field_name("name") or member.child_by_field_name("property")
    return name is None or name.type != "private_property_identifier"


def signature_start(outer: Node) -> int:
    """Where a definition's signature starts: its first child that is no decorator."""
    for child in outer.children:
        if child.type not in ("decorator", "comment"):
            if child.type in ("lexical_declaration", "variable_declaration", "class_declaration"):
                return (
                    signature_start(child)
                    if child.children and child.children[0].type == "decorator"
                    else child.start_byte
                )
            return child.start_byte
    return outer.start_byte


def module_doc(children: list[Node], source: Source) -> str | None:
    """A ``/** … */`` comment at the top of the file that belongs to no definition (a blank
    line or no code after it)."""
    first = next(
        (c for c in children if not (c.type == "expression_statement" and "use strict" in source.of(c))), None
    )
    if first is None or first.type != "comment" or not source.of(first).startswith("/**"):
        return None
    following = [c for c in children if c.start_byte > first.end_byte]
    if following and line(following[0]) <= end_line(first) + 1 and following[0].type != "comment":
        return None
    return clean_block_comment(source.of(first)) or None


def import_level(node: Node, source: Source) -> int:
    spec = node.child_by_field_name("source")
    return 1 if spec is not None and source.of(spec).strip("'\"`").startswith(".") else 0


def method_kind(node: Node) -> MethodKind:
    kinds = {c.type for c in node.children}
    if "static" in kinds:
        return "static"
    if "get" in kinds or "set" in kinds:
        return "property"
    return "instance"


def parameters(node: Node, source: Source) -> tuple[Parameter, ...]:
    formal = node.child_by_field_name("parameters")
    if formal is None:
        single = node.child_by_field_name("parameter")  # x => …
        return (parameter(source.of(single)),) if single is not None else ()
    out: list[Parameter] = []
    for p in formal.named_children:
        if p.type in ("comment", "accessibility_modifier", "this"):
            continue
        pattern = p.child_by_field_name("pattern")
        annotation = p.child_by_field_name("type")
        value = p.child_by_field_name("value")
        if p.type in ("required_parameter", "optional_parameter") and pattern is not None:
            rest = pattern.type == "rest_pattern"
            name = source.of(pattern).removeprefix("...") if rest else source.of(pattern)
            if name == "this":
                continue
            typed = source.of(annotation).lstrip(":").strip() if annotation is not None else None
            out.append(parameter(name, typed, source.of(value) if value is not None else None, rest=rest))
        elif p.type == "assignment_pattern":
            out.append(
                parameter(
                    source.of(p.child_by_field_name("left")), None, source.of(p.child_by_field_name("right"))
                )
            )
        elif p.type == "rest_pattern":
            out.append(parameter(source.of(p).removeprefix("..."), rest=True))
        else:
            out.append(parameter(source.of(p)))
    return tuple(out)


def parameter_properties(init: Node, source: Source) -> list[Parameter]:
    """Constructor parameters with an accessibility modifier (``private x``): fields too."""
    formal = init.child_by_field_name("parameters")
    out = []
    for p in formal.named_children if formal is not None else []:
        if any(c.type in ("accessibility_modifier", "readonly") for c in p.children):
            pattern = p.child_by_field_name("pattern")
            if pattern is not None:
                out.append(parameter(source.of(pattern)))
    return out


def heritage(node: Node, source: Source) -> Iterator[str]:
    """The classes and interfaces a class extends and implements, an interface extends."""
    for child in node.named_children:
        if child.type in ("class_heritage", "extends_type_clause"):
            clauses = child.named_children if child.type == "class_heritage" else [child]
            for clause in clauses:
                for base in clause.named_children:
                    if base.type != "comment":
                        yield source.of(base)
            if child.type == "class_heritage" and not child.named_children:
                yield source.of(child).removeprefix("extends").strip()


def this_attributes(body: Node, source: Source) -> list[str]:
    out = []
    for node in walk(body):
        if node.type == "assignment_expression":
            left = node.child_by_field_name("left")
            if left is not None and left.type == "member_expression":
                obj = left.child_by_field_name("object")
                if obj is not None and obj.type == "this":
                    out.append(source.of(left.child_by_field_name("property")))
    return out


def dotted(node: Node | None, source: Source, receiver: str | None) -> str | None:
    """``a.b.c`` for an identifier or a member chain on one (``this`` → ``self``, ``super``
    → ``super()``); None for anything else (a call's result, an index)."""
    parts: list[str] = []
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        if prop is None or prop.type not in ("property_identifier", "private_property_identifier"):
            return None
        parts.append(source.of(prop))
        node = node.child_by_field_name("object")
    if node is None:
        return None
    if node.type == "identifier":
        parts.append(source.of(node))
    elif node.type == "this" and parts:
        parts.append("self" if receiver else "this")
    elif node.type == "super" and parts:
        parts.append("super()")
    else:
        return None
    return ".".join(reversed(parts))


def returns_value(body: Node) -> bool:
    for node in walk(body, SCOPES | CLASSES):
        if node.type == "return_statement" and node.named_children:
            return True
    return False


def yields(scope: Node) -> bool:
    return any(n.type == "yield_expression" for n in walk(scope, SCOPES | CLASSES))


def bound_names(pattern: Node, source: Source) -> set[str]:
    if pattern.type == "identifier":
        return {source.of(pattern)}
    return {
        source.of(n)
        for n in walk(pattern)
        if n.type in ("identifier", "shorthand_property_identifier_pattern")
    }


def locals(node: Node, source: Source) -> set[str]:
    out: set[str] = set()
    for inner in walk(node):
        if inner.type == "variable_declarator":
            name = inner.child_by_field_name("name")
            if name is not None:
                out |= bound_names(name, source)
        elif inner.type == "catch_clause":
            param = inner.child_by_field_name("parameter")
            if param is not None:
                out |= bound_names(param, source)
    return out
