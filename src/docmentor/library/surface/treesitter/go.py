"""Go: capitalised functions, types, methods and struct fields, ``//`` doc comments;
``package main`` and ``internal/`` are skipped."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docmentor.library.models import ApiParameter
from docmentor.library.surface.treesitter.core import (
    Collector,
    SourceFile,
    api_return,
    declaration_header,
    node_text,
    squash_space,
)

if TYPE_CHECKING:
    from tree_sitter import Node


def _exported(name: str) -> bool:
    return name[:1].isupper()


def _go_doc(node: Node) -> str:
    lines: list[str] = []
    row, prev = node.start_point[0], node.prev_named_sibling
    while prev is not None and prev.type == "comment" and prev.end_point[0] == row - 1:
        text = node_text(prev)
        if not text.startswith("//"):
            break
        lines.append(text[2:].removeprefix(" "))
        row, prev = prev.start_point[0], prev.prev_named_sibling
    return "\n".join(reversed(lines)).strip()


def _go_params(node: Node | None) -> list[ApiParameter]:
    out = []
    for p in node.named_children if node is not None else []:
        if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        type_text = squash_space(node_text(p.child_by_field_name("type")))
        variadic = p.type == "variadic_parameter_declaration"
        names = [node_text(n) for n in p.children_by_field_name("name")] or ["_"]
        out += [
            ApiParameter(
                name=name,
                type=f"...{type_text}" if variadic else type_text,
                required=not variadic,
                kind="var-positional" if variadic else "positional or keyword",
            )
            for name in names
        ]
    return out


def _go_type_name(node: Node | None) -> str:
    text = node_text(node).lstrip("*").strip()
    return re.split(r"[\[\s]", text, maxsplit=1)[0]


def collect_go_file(c: Collector, f: SourceFile, root: Node) -> None:
    package = next((ch for ch in root.named_children if ch.type == "package_clause"), None)
    if package is None or node_text(package).split()[-1] == "main" or "internal" in f.module.split("."):
        return
    for node in root.named_children:
        if node.type in ("function_declaration", "method_declaration"):
            name = node_text(node.child_by_field_name("name"))
            receiver = node.child_by_field_name("receiver")
            owner = ""
            if receiver is not None:
                decl = next(iter(receiver.named_children), None)
                owner = _go_type_name(decl.child_by_field_name("type") if decl is not None else None)
            if not _exported(name) or (receiver is not None and not _exported(owner)):
                continue
            doc = _go_doc(node)
            c.add(
                f,
                node,
                name=name,
                parent=c.qualify(f.module, owner) if owner else None,
                kind="method" if owner else "function",
                signature=declaration_header(node, node.child_by_field_name("body"), f.source),
                parameters=_go_params(node.child_by_field_name("parameters")),
                returns=api_return(squash_space(node_text(node.child_by_field_name("result")))),
                docstring=doc,
            )
        elif node.type == "type_declaration":
            for spec in node.named_children:
                if spec.type in ("type_spec", "type_alias"):
                    _go_type(c, f, spec, _go_doc(spec) or _go_doc(node))


def _go_type(c: Collector, f: SourceFile, spec: Node, doc: str) -> None:
    name = node_text(spec.child_by_field_name("name"))
    if not _exported(name):
        return
    body = spec.child_by_field_name("type")
    shape = body.type if body is not None else ""
    word = {"struct_type": "struct", "interface_type": "interface"}.get(shape)
    type_params = node_text(spec.child_by_field_name("type_parameters"))
    alias = spec.type == "type_alias"
    sig = f"type {name}{type_params}{' =' if alias else ''} {word or squash_space(node_text(body))[:200]}"
    api_id = c.add(
        f,
        spec,
        name=name,
        kind="attribute" if alias else "class",
        signature=sig,
        docstring=doc,
        returns=api_return(squash_space(node_text(body))) if alias else None,
    )
    members = body.named_children if body is not None else []
    if shape == "struct_type":
        members = next((m.named_children for m in members if m.type == "field_declaration_list"), [])
    for m in members:
        if m.type == "field_declaration":
            names = [node_text(n) for n in m.children_by_field_name("name")]
            type_text = squash_space(node_text(m.child_by_field_name("type")))
            if not names:  # embedded: its fields and methods are promoted
                c.impls.append((f.module, name, _go_type_name(m.child_by_field_name("type"))))
            for field_name in filter(_exported, names):
                c.add(
                    f,
                    m,
                    name=field_name,
                    parent=api_id,
                    kind="property",
                    docstring=_go_doc(m),
                    signature=f"{field_name} {type_text}",
                    returns=api_return(type_text),
                )
        elif m.type == "method_elem" and _exported(member := node_text(m.child_by_field_name("name"))):
            c.add(
                f,
                m,
                name=member,
                parent=api_id,
                kind="method",
                signature=squash_space(node_text(m)),
                parameters=_go_params(m.child_by_field_name("parameters")),
                docstring=_go_doc(m),
                returns=api_return(squash_space(node_text(m.child_by_field_name("result")))),
            )
        elif m.type == "type_elem":
            c.impls.append((f.module, name, _go_type_name(m)))
