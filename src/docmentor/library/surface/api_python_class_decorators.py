"""Which of a class's decorators may make it something other than the class as written.

A class decorator may build the class anew (``@dataclass`` writes its ``__init__``, attrs'
``@define`` its fields) or replace it; the surface then does not trust the class statement
for its call. Many decorators only mark or register the class and return it as it is: the
standard library's ``@final``, ``@total_ordering``, ``@unique``, ``@runtime_checkable``, and a
package's own helpers that set a plain attribute and ``return obj`` (yarl's
``@rewrite_module`` sets ``__module__``: its ``URL`` then lost its constructor's signature,
``URL(...)``). One that sets a special method (``cls.__init__ = …``, ``setattr(cls, "__new__",
…)``) or hands the class to a call that might is no such helper.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from typing import Any

import griffe

from docmentor.library.surface.module_source import module_text

# decorators of the standard library that return the class they are given, used bare
_KEEPING = frozenset(
    {f"{module}.final" for module in ("typing", "typing_extensions")}
    | {f"{module}.runtime_checkable" for module in ("typing", "typing_extensions")}
    | {"typing.type_check_only", "functools.total_ordering", "enum.unique"}
)
# special attributes a decorator may set without changing how the class is called
_NAMING = frozenset({"__module__", "__qualname__", "__doc__", "__name__"})
# calls the class may be handed to without being changed: questions, and putting it in a
# container (a registry)
_READING_CALLS = frozenset({"isinstance", "issubclass", "getattr", "hasattr", "id", "type", "repr", "str"})
_STORING_METHODS = frozenset({"append", "add", "setdefault", "insert"})


def building_decorators(cls: Any) -> list[Any]:
    """The class's decorators that may build or replace it: all but those that return the
    class they are given (:func:`keeps_class`)."""
    return [d for d in getattr(cls, "decorators", None) or () if not keeps_class(cls, d)]


def keeps_class(cls: Any, decorator: Any) -> bool:
    """Whether a class decorator, used bare (``@name``, not ``@name(...)``), returns the class
    it is given as written: a known one of the standard library (by its full path), or a
    plain function of the package that returns its first parameter on every path and
    changes nothing of how it is called (:func:`_keeps_first`)."""
    value = decorator.value
    if not isinstance(value, (griffe.ExprName, griffe.ExprAttribute)):
        return False  # `@register("x")`: what the call returns decorates, unread
    path = str(decorator.callable_path)
    if path in _KEEPING:
        return True
    try:
        function = cls.modules_collection[path]
        if function.is_alias:
            function = function.final_target
    except Exception:  # KeyError, an alias griffe cannot follow: from outside the package
        return False
    if not getattr(function, "is_function", False) or function.decorators:
        return False
    start, end = function.lineno, function.endlineno
    text = module_text(function, stubs=False)  # a stub's declaration says nothing of what it returns
    if text is None or not start or not end:
        return False
    return _returns_first_parameter("\n".join(text.splitlines()[start - 1 : end]), function.name)


@functools.lru_cache(maxsize=256)
def _returns_first_parameter(source: str, name: str) -> bool:
    """Whether the function ``name`` whose source is ``source`` keeps its first parameter
    (:func:`_keeps_first`); False when ``source`` holds another function (a stub's line
    numbers) or does not parse."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return False
    function = tree.body[0] if tree.body else None
    # an async function returns a coroutine; lines of another function: a stub's numbers
    if not isinstance(function, ast.FunctionDef) or function.name != name:
        return False
    return _keeps_first(function)


def _keeps_first(function: ast.FunctionDef) -> bool:
    """Whether a function returns its first parameter on every path (its last statement is
    such a ``return``, as is every other; nested functions and classes are not its own),
    never yields, never rebinds it (a ``raise`` path returns nothing), sets no special attribute on it but its names
    (``__module__``, ``__doc__`` …) and hands it to no call but a question (``isinstance``)
    or a container's (``registry.append(cls)``)."""
    arguments = [*function.args.posonlyargs, *function.args.args]
    if not arguments or not function.body:
        return False
    first = arguments[0].arg
    last = function.body[-1]
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name) and last.value.id == first):
        return False  # it may fall off the end: None
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # its own returns and names
        if isinstance(node, ast.Raise):
            continue  # `raise TypeError(cls)`: no class comes out of that path
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(node, ast.Return) and not (isinstance(node.value, ast.Name) and node.value.id == first):
            return False
        if isinstance(node, ast.Name) and node.id == first and not isinstance(node.ctx, ast.Load):
            return False  # `cls = wrap(cls)`: what it returns is another object
        if isinstance(node, ast.Attribute) and _sets_special(node, first):
            return False  # `cls.__init__ = …`: another call
        if isinstance(node, ast.Call) and not _harmless_call(node, first):
            return False
        pending.extend(ast.iter_child_nodes(node))
    return True


def _sets_special(node: ast.Attribute, first: str) -> bool:
    """Whether ``node`` sets (or deletes) a special attribute of ``first`` other than its
    names."""
    stored = _is(node.value, first) and not isinstance(node.ctx, ast.Load)
    return stored and node.attr.startswith("__") and node.attr not in _NAMING


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _harmless_call(call: ast.Call, first: str) -> bool:
    """Whether a call leaves the parameter ``first`` as it is: it is not among the call's
    arguments, or the call only asks about it or stores it; ``setattr(cls, "name", …)`` sets
    a plain attribute or one of its names."""
    handed = [a for a in [*call.args, *(k.value for k in call.keywords)] if _is(a, first)]
    if not handed:
        return True
    callee = call.func
    if isinstance(callee, ast.Name) and callee.id == "setattr" and call.args and _is(call.args[0], first):
        name = call.args[1] if len(call.args) > 1 else None
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return False  # a name computed at run time: any
        return not name.value.startswith("__") or name.value in _NAMING
    if isinstance(callee, ast.Name):
        return callee.id in _READING_CALLS
    if isinstance(callee, ast.Attribute) and not _is(callee.value, first):
        return callee.attr in _STORING_METHODS
    return False
