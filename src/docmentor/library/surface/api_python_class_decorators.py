"""Which of a class's decorators may make it something other than the class as written.

A class decorator may build the class anew (``@dataclass`` writes its ``__init__``, attrs'
``@define`` its fields) or replace it; the surface then does not trust the class statement
for its call. Many decorators only mark or register the class and return it as it is: the
standard library's ``@final``, ``@total_ordering``, ``@unique``, ``@runtime_checkable``, and a
package's own helpers that set an attribute and ``return obj`` (yarl's ``@rewrite_module``
sets ``__module__``: its ``URL`` then lost its constructor's signature, ``URL(...)``).
"""

from __future__ import annotations

import ast
import functools
import textwrap
from pathlib import Path
from typing import Any

import griffe

# decorators of the standard library that return the class they are given, used bare
_KEEPING = frozenset({"final", "total_ordering", "unique", "runtime_checkable", "type_check_only"})


def building_decorators(cls: Any) -> list[Any]:
    """The class's decorators that may build or replace it: all but those that return the
    class they are given (:func:`keeps_class`)."""
    return [d for d in getattr(cls, "decorators", None) or () if not keeps_class(cls, d)]


def keeps_class(cls: Any, decorator: Any) -> bool:
    """Whether a class decorator, used bare (``@name``, not ``@name(...)``), returns the class
    it is given: a known one of the standard library, or a plain function of the package
    whose every ``return`` returns its first parameter."""
    value = decorator.value
    if not isinstance(value, (griffe.ExprName, griffe.ExprAttribute)):
        return False  # `@register("x")`: what the call returns decorates, unread
    path = str(decorator.callable_path)
    if path.rsplit(".", 1)[-1] in _KEEPING:
        return True
    try:
        function = cls.modules_collection[path]
        if function.is_alias:
            function = function.final_target
    except Exception:  # KeyError, an alias griffe cannot follow: from outside the package
        return False
    if not getattr(function, "is_function", False) or function.decorators:
        return False
    filepath, start, end = getattr(function, "filepath", None), function.lineno, function.endlineno
    if not isinstance(filepath, Path) or filepath.suffix != ".py" or not start or not end:
        return False  # a stub's declaration says nothing of what it returns
    return _returns_first_parameter(str(filepath), start, end)


@functools.lru_cache(maxsize=256)
def _returns_first_parameter(filepath: str, start: int, end: int) -> bool:
    """Whether the function on lines ``start``–``end`` of the file returns its first
    parameter (:func:`_returns_only_first`); False when the file cannot be read."""
    try:
        lines = Path(filepath).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    return _returns_only_first("\n".join(lines[start - 1 : end]))


def _returns_only_first(source: str) -> bool:
    """Whether the function in ``source`` returns its first parameter on every ``return``
    (at least one; nested functions and classes are not its returns), never rebinds it and
    never yields."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return False
    function = tree.body[0] if tree.body else None
    if not isinstance(function, ast.FunctionDef):  # an async one returns a coroutine
        return False
    arguments = [*function.args.posonlyargs, *function.args.args]
    if not arguments:
        return False
    first = arguments[0].arg
    returns: list[ast.Return] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # its own returns
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Name) and node.id == first and not isinstance(node.ctx, ast.Load):
            return False  # `obj = wrap(obj)`: what it returns is another object
        if isinstance(node, ast.Return):
            returns.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return bool(returns) and all(isinstance(r.value, ast.Name) and r.value.id == first for r in returns)
