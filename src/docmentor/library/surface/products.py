"""What a library's objects give that ``ApiReturn.class_id`` cannot say: the classes an
instance gives when indexed or called (``db[name]`` → ``Table`` or ``View`` through
``Database.__getitem__``; ``factory(...)`` through ``__call__``), and the several classes of a
function or method returning a union of library classes (``-> Table | View``).

Read from the griffe objects once the walk is done (:func:`products`); the matcher and drift
type ``obj[key].method(...)`` and ``obj(...).method(...)`` with it, importance gives the
classes so reached their producer's weight.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

import griffe

from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python_entry import alias_target, class_members

__all__ = ["OPERATORS", "PRODUCERS", "products"]

#: the special methods whose return value is what an instance gives: ``obj[key]``, ``obj(...)``,
#: and an operator on it (``a + b``, ``a | b``, ``~a``: pyparsing builds its grammars so)
OPERATORS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.MatMult: "matmul",
    ast.Div: "truediv",
    ast.BitOr: "or",
    ast.BitAnd: "and",
    ast.BitXor: "xor",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
}
PRODUCERS = (
    "__getitem__",
    "__call__",
    "__invert__",
    *(f"__{n}__" for n in OPERATORS.values()),
    *(f"__r{n}__" for n in OPERATORS.values()),
    *(f"__i{n}__" for n in OPERATORS.values()),
)

_UNION = frozenset({"Union", "Optional"})
_WRAPPERS = frozenset({"Annotated", "Final", "ClassVar", "Awaitable", "Coroutine", "Required", "NotRequired"})
_SELF = frozenset({"Self", "typing.Self", "typing_extensions.Self"})
_MAX_DEPTH = 20  # nesting of an annotation read (a pathological one is left unread)


def products(
    entries: Iterable[ApiEntry], collection: Any, class_paths: Mapping[str, str]
) -> dict[str, tuple[str, ...]]:
    """``"<class api_id>.__getitem__"`` / ``".__call__"`` → the library classes it returns, and
    ``<function api_id>`` → the classes of a union return of two or more library classes.

    Args:
        entries: the surface's entries (classes, functions, methods).
        collection: griffe's modules collection the entries were read from.
        class_paths: every path of a public class → its api_id (the walk's ``class_paths``).
    """
    out: dict[str, tuple[str, ...]] = {}
    for entry in entries:
        if entry.language != "python":
            continue
        if entry.kind == "class":
            cls = _get(collection, entry.api_id)
            if cls is None or not cls.is_class:
                continue
            members = class_members(cls)
            for name in PRODUCERS:
                member = members.get(name)
                target = alias_target(member) if member is not None else None
                if target is None or not target.is_function:
                    continue
                found = _classes(target.returns, target, entry.api_id, collection, class_paths)
                if found:
                    out[f"{entry.api_id}.{name}"] = found
        elif (
            entry.kind in ("function", "method") and entry.returns is not None and not entry.returns.class_id
        ):
            obj = _get(collection, entry.api_id)
            if obj is None or not obj.is_function:
                continue
            found = _classes(obj.returns, obj, entry.parent, collection, class_paths)
            if len(found) >= 2:
                out[entry.api_id] = found
    return out


def _get(collection: Any, path: str) -> Any:
    try:
        obj = collection[path]
        return obj.final_target if obj.is_alias else obj
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _classes(
    annotation: Any, where: Any, receiver: str | None, collection: Any, class_paths: Mapping[str, str]
) -> tuple[str, ...]:
    """The library classes an annotation names: itself, or each member of a union (``X | Y``,
    ``Union[X, Y]``, ``Optional[X]``; ``None`` left out), in order."""
    names: list[str] = []
    _names(annotation, names, 0)
    module = where.module.path if getattr(where, "module", None) is not None else ""
    found: dict[str, None] = {}
    for name in names:
        if name in _SELF or name.rsplit(".", 1)[-1] == "Self":
            if receiver is not None:
                found[receiver] = None
            continue
        for path in (name, f"{module}.{name}" if module else name):
            cls = class_paths.get(path)
            if cls is None:
                target = _get(collection, path)
                cls = class_paths.get(target.path) if target is not None else None
            if cls is not None:
                found[cls] = None
                break
    return tuple(found)


def _names(annotation: Any, out: list[str], depth: int) -> None:
    """The dotted names a union annotation is made of (griffe expressions or source text)."""
    if annotation is None or depth > _MAX_DEPTH:
        return
    if isinstance(annotation, str):
        text = annotation.strip()
        try:
            node = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError):
            return
        _ast_names(node, out, depth)
    elif isinstance(annotation, griffe.ExprBinOp) and annotation.operator == "|":
        _names(annotation.left, out, depth + 1)
        _names(annotation.right, out, depth + 1)
    elif isinstance(annotation, griffe.ExprSubscript):
        head = str(annotation.left).rsplit(".", 1)[-1]
        inner = annotation.slice
        elements = list(inner.elements) if isinstance(inner, griffe.ExprTuple) else [inner]
        if head in _UNION:
            for element in elements:
                _names(element, out, depth + 1)
        elif head in _WRAPPERS and elements:
            _names(elements[-1] if head == "Coroutine" else elements[0], out, depth + 1)
    elif isinstance(annotation, griffe.ExprName | griffe.ExprAttribute):
        path = annotation.canonical_path
        if path != "None":
            out.append(path)


def _ast_names(node: ast.expr, out: list[str], depth: int) -> None:
    """:func:`_names` over a string annotation's syntax (``"Table | View"``)."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        _names(node.value, out, depth + 1)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        _ast_names(node.left, out, depth + 1)
        _ast_names(node.right, out, depth + 1)
    elif isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rsplit(".", 1)[-1]
        elements = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head in _UNION:
            for element in elements:
                _ast_names(element, out, depth + 1)
        elif head in _WRAPPERS and elements:
            _ast_names(elements[-1] if head == "Coroutine" else elements[0], out, depth + 1)
    elif isinstance(node, ast.Name | ast.Attribute):
        text = ast.unparse(node)
        if text != "None":
            out.append(text)
