"""Rust: ``pub`` items, inline ``pub mod``s, inherent and trait ``impl`` blocks, ``pub use``
re-exports, ``///`` and ``/** */`` doc comments."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docmentor.library.models import ApiParameter
from docmentor.library.surface.treesitter.core import (
    Collector,
    Reexport,
    SourceFile,
    api_return,
    declaration_header,
    descendants,
    node_text,
    squash_space,
)

if TYPE_CHECKING:
    from tree_sitter import Node


_RUST_TYPES = {"struct_item": "struct", "enum_item": "enum", "union_item": "union", "trait_item": "trait"}


def _rust_doc(node: Node) -> str:
    parts: list[str] = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type != "attribute_item":
            if prev.child_by_field_name("inner") is not None:
                break
            doc = prev.child_by_field_name("doc")
            if doc is not None and prev.child_by_field_name("outer") is not None:
                text = node_text(doc)
                if prev.type == "block_comment":
                    text = "\n".join(re.sub(r"^\s*\* ?", "", line) for line in text.strip().splitlines())
                parts.append("\n".join(line.removeprefix(" ") for line in text.rstrip("\n").split("\n")))
        prev = prev.prev_named_sibling
    return "\n".join(reversed(parts)).strip()


def _pub(node: Node) -> bool:
    return any(ch.type == "visibility_modifier" and node_text(ch) == "pub" for ch in node.children)


def _attributes(node: Node) -> list[str]:
    """The ``#[…]`` attributes written right above ``node`` (their inside, spaces removed:
    ``doc(hidden)``, ``macro_export``)."""
    out = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item":
            out.append("".join(node_text(prev).removeprefix("#[").removesuffix("]").split()))
        prev = prev.prev_named_sibling
    return out


def _macro(c: Collector, f: SourceFile, node: Node) -> None:
    """A ``#[macro_export] macro_rules! name`` is the crate root's ``name!``, whatever module
    defines it (anyhow's ``bail!``, ``ensure!``: the crate's main API, a tour found missing)."""
    name = node_text(node.child_by_field_name("name"))
    rules = [squash_space(node_text(r.child_by_field_name("left")))[1:-1].strip() for r in node.named_children
             if r.type == "macro_rule" and r.child_by_field_name("left") is not None]  # fmt: skip
    c.add(
        SourceFile(f.rel, "", f.language, f.source),
        node,
        name=name,
        kind="function",
        docstring=_rust_doc(node),
        signature=f"{name}!({rules[0] if rules else '...'})"[:300],
    )


def _rust_params(node: Node | None) -> list[ApiParameter]:
    out = []
    for p in node.named_children if node is not None else []:
        if p.type == "parameter":
            name = squash_space(node_text(p.child_by_field_name("pattern"))).removeprefix("mut ")
            out.append(ApiParameter(name=name, type=squash_space(node_text(p.child_by_field_name("type")))))
        elif p.type == "variadic_parameter":
            out.append(ApiParameter(name="...", required=False, kind="var-positional"))
    return out


def _rust_fn(c: Collector, f: SourceFile, node: Node, module: str, parent: str | None) -> None:
    ret = squash_space(node_text(node.child_by_field_name("return_type"))) or None
    c.add(
        f,
        node,
        name=node_text(node.child_by_field_name("name")),
        parent=parent,
        kind="method" if parent else "function",
        docstring=_rust_doc(node),
        signature=declaration_header(node, node.child_by_field_name("body"), f.source),
        parameters=_rust_params(node.child_by_field_name("parameters")),
        returns=api_return(ret),
    )


def collect_rust_items(c: Collector, f: SourceFile, container: Node, module: str) -> None:
    mf = SourceFile(f.rel, module, f.language, f.source)  # inline `pub mod` items live in a submodule
    for node in container.named_children:
        t = node.type
        attributes = _attributes(node)
        hidden = any("doc(hidden)" in a for a in attributes)  # `cfg_attr(docsrs, doc(hidden))` too
        if t == "macro_definition":
            if "macro_export" in attributes and not hidden:
                _macro(c, f, node)
            continue
        if t == "mod_item":
            sub = ".".join(p for p in (module, node_text(node.child_by_field_name("name"))) if p)
            if not _pub(node) or hidden:
                # `mod ptr;`, `#[doc(hidden)] pub mod __private`: what it defines reaches users
                # only through a `pub use` elsewhere (a tour: 49 of anyhow's 70 "APIs" were such)
                c.hidden_modules.add(sub)
            body = node.child_by_field_name("body")
            if body is not None:
                collect_rust_items(c, f, body, sub)
            continue
        if hidden:
            continue
        if t == "impl_item":
            _rust_impl(c, mf, node, module)
        elif t == "use_declaration" and _pub(node):
            _rust_use(c, module, node.child_by_field_name("argument"), "", public=True)
        elif t == "use_declaration":
            _rust_use(c, module, node.child_by_field_name("argument"), "", public=False)
        elif not _pub(node):
            continue
        elif t in ("function_item", "function_signature_item"):
            _rust_fn(c, mf, node, module, None)
        elif t in _RUST_TYPES:
            body = node.child_by_field_name("body")
            api_id = c.add(
                mf,
                node,
                name=node_text(node.child_by_field_name("name")),
                kind="class",
                signature=declaration_header(node, body, f.source),
                docstring=_rust_doc(node),
                bases=[
                    squash_space(node_text(b))
                    for b in descendants(
                        node.child_by_field_name("bounds"),
                        "type_identifier",
                        "scoped_type_identifier",
                        "generic_type",
                        depth=0,
                    )
                ],
            )
            for m in body.named_children if body is not None else []:
                if t == "trait_item" and m.type in ("function_item", "function_signature_item"):
                    _rust_fn(c, mf, m, module, api_id)
                elif m.type == "field_declaration" and _pub(m):
                    type_text = squash_space(node_text(m.child_by_field_name("type")))
                    member = node_text(m.child_by_field_name("name"))
                    c.add(
                        mf,
                        m,
                        name=member,
                        parent=api_id,
                        kind="property",
                        docstring=_rust_doc(m),
                        signature=f"pub {member}: {type_text}",
                        returns=api_return(type_text),
                    )
        elif t in ("type_item", "const_item", "static_item"):
            type_node = node.child_by_field_name("type")
            c.add(
                mf,
                node,
                name=node_text(node.child_by_field_name("name")),
                kind="attribute",
                signature=squash_space(node_text(node)).removesuffix(";")[:300],
                docstring=_rust_doc(node),
                returns=api_return(squash_space(node_text(type_node)) or None),
            )


def drop_unreachable(c: Collector) -> None:
    """Leave out what users cannot name: an item of a hidden module (:attr:`Collector.hidden_modules`)
    with no public path through a ``pub use`` (an alias outside them), and its members."""
    hidden = c.hidden_modules
    if not hidden:
        return
    prefix = c.library + "."

    def inside(module: str) -> bool:
        return any(module == h or module.startswith(h + ".") for h in hidden)

    def reachable(entry_id: str) -> bool:
        e = c.entries.get(entry_id)
        if e is None:
            return False
        if e.parent is not None:
            return reachable(e.parent)
        paths = [a.removeprefix(prefix).rpartition(".")[0] for a in e.aliases if a.startswith(prefix)]
        return not inside(c.module.get(entry_id, "")) or any(not inside(m) for m in paths)

    for api_id in [k for k in c.entries if not reachable(k)]:
        del c.entries[api_id]


def _rust_impl(c: Collector, f: SourceFile, node: Node, module: str) -> None:
    type_node = node.child_by_field_name("type")
    if type_node is not None and type_node.type == "generic_type":
        type_node = type_node.child_by_field_name("type")
    owner = node_text(type_node).split("::")[-1]
    trait = node.child_by_field_name("trait")
    if trait is not None:  # the trait's methods are documented on the trait
        c.impls.append((module, owner, re.split(r"<", node_text(trait))[0].split("::")[-1]))
        return
    body = node.child_by_field_name("body")
    for m in body.named_children if body is not None else []:
        if m.type == "function_item" and _pub(m):
            _rust_fn(c, f, m, module, c.qualify(module, owner))


def _rust_use(c: Collector, module: str, node: Node | None, prefix: str, *, public: bool) -> None:
    if node is None:
        return
    t = node.type
    if t in ("scoped_identifier", "identifier", "use_as_clause", "self"):
        path_node = node.child_by_field_name("path") if t == "use_as_clause" else node
        path = "::".join(p for p in (prefix, node_text(path_node)) if p)
        target, _, name = path.rpartition("::")
        local = node_text(node.child_by_field_name("alias")) if t == "use_as_clause" else name
        if name == "self":
            target, _, name = target.rpartition("::")
            local = name
        if public:
            c.reexports.append(Reexport(module, _rust_targets(module, target), name, local))
        else:
            c.imports.setdefault(module, {})[local] = (_rust_targets(module, target), name)
    elif t in ("scoped_use_list", "use_list"):
        sub = "::".join(p for p in (prefix, node_text(node.child_by_field_name("path"))) if p)
        items = node.child_by_field_name("list") if t == "scoped_use_list" else node
        for item in items.named_children if items is not None else []:
            _rust_use(c, module, item, sub, public=public)
    elif t == "use_wildcard":
        path = "::".join(p for p in (prefix, node_text(node).removesuffix("::*")) if p)
        if public:
            c.reexports.append(Reexport(module, _rust_targets(module, path), "*", "*"))


def _rust_targets(module: str, path: str) -> list[str]:
    parts = [p for p in path.split("::") if p]
    here = module.split(".") if module else []
    if parts[:1] == ["crate"]:
        return [".".join(parts[1:])]
    while parts[:1] in (["self"], ["super"]):
        if parts.pop(0) == "super":
            here = here[:-1]
    return list(dict.fromkeys([".".join(here + parts), ".".join(parts)]))
