"""Docstrings a module assigns after the fact, which griffe's visitor does not read.

``natsort_key = natsort_keygen()`` then ``natsort_key.__doc__ = \"\"\"The default natural
sorting key…\"\"\"`` documents an object that has no ``def`` to hold a docstring (a
``functools.partial``, an instance), or a function defined in several branches of an
``if``. Sphinx's autodoc reads the attribute at import time; read statically, the API had
no description and ranked last for its own task. Each such string literal becomes the
docstring of the module's object it names, unless that object has one of its own.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterable
from typing import Any

import griffe

from docmentor.library.surface.api_python_entry import is_literal
from docmentor.library.surface.module_source import module_text

__all__ = ["add_assigned_docstrings"]


def add_assigned_docstrings(modules: Iterable[Any]) -> int:
    """Give each module-level object of ``modules`` without a docstring the string literal
    its module assigns to its ``__doc__`` at the top level; returns how many got one. A
    module that cannot be read (no file, binary, too large, not Python) is left as is."""
    added = 0
    for mod in modules:
        text = module_text(mod)
        if text is None or ".__doc__" not in text:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        assigned: dict[str, tuple[str, ast.stmt]] = {}  # the last assignment is the one that holds
        for node in tree.body:
            found = _assigned_doc(node)
            if found is not None:
                assigned[found[0]] = (found[1], node)
        for name, (doc, node) in assigned.items():
            member = mod.members.get(name)
            if member is None or getattr(member, "is_alias", False) or member.is_module:
                continue  # another module's object, imported: its own module documents it
            if member.is_attribute and member.value is not None and is_literal(str(member.value)):
                continue  # `LIMIT = 3`: an int's __doc__ cannot be set
            if member.docstring is not None and member.docstring.value.strip():
                continue
            doc = _without_signature_line(doc, name)
            if doc:
                member.docstring = griffe.Docstring(
                    doc, lineno=node.lineno, endlineno=node.end_lineno, parent=member
                )
                added += 1
    return added


def _assigned_doc(node: ast.stmt) -> tuple[str, str] | None:
    """``(name, text)`` of a top-level ``name.__doc__ = "text"`` (one target, a plain string)."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target, value = node.targets[0], node.value
    if not (
        isinstance(target, ast.Attribute)
        and target.attr == "__doc__"
        and isinstance(target.value, ast.Name)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    ):
        return None
    return target.value.id, inspect.cleandoc(value.value)


def _without_signature_line(doc: str, name: str) -> str:
    """The docstring without a first line that only spells the object's call signature
    (``natsort_key(val)``, ``f(x) -> int``), as autodoc's ``autodoc_docstring_signature``
    strips it."""
    first, _, rest = doc.partition("\n")
    line = first.strip()
    if not line.startswith(f"{name}("):
        return doc
    depth, end = 0, -1
    for at, char in enumerate(line):  # the parenthesis that closes the first one
        depth += (char == "(") - (char == ")")
        if depth == 0 and char == ")":
            end = at
            break
    after = line[end + 1 :].strip() if end >= 0 else "?"
    if after == "" or after.startswith("->"):  # `name(args)` or `name(args) -> type`, nothing else
        return inspect.cleandoc(rest)
    return doc
