"""The constructor parameters of a named tuple class, read from its definition as
``collections.namedtuple`` and ``typing.NamedTuple`` make them (static analysis sees no
``__new__``; it showed cachetools' ``CacheInfo(...)``):

- ``class Info(NamedTuple)``: its annotated class attributes in definition order (not a
  ``ClassVar``), each defaulting to the value assigned;
- ``class Point(namedtuple("Point", "x y"))`` or ``namedtuple("Point", ["x", "y"],
  defaults=(0,))``: the field names the call lists (a string split at commas and spaces,
  or a list or tuple of strings), the last ones defaulting to ``defaults``' values.

A class that writes its own ``__new__`` or ``__init__`` is not read here.
"""

from __future__ import annotations

from typing import Any

import griffe

from docmentor.library.surface.api_python_attrs import body_attributes, expr_path

__all__ = ["namedtuple_parameters"]

_TYPED = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple", "NamedTuple"})
_FACTORIES = frozenset({"collections.namedtuple", "namedtuple"})
_POSITIONAL = griffe.ParameterKind.positional_or_keyword


def _strings(expr: Any) -> list[str] | None:
    """The strings of a literal string, list or tuple of strings; None for anything else."""
    text = str(expr)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1].replace(",", " ").split()
    if isinstance(expr, griffe.ExprList | griffe.ExprTuple):
        items = [str(e) for e in expr.elements]
        if all(len(i) >= 2 and i[0] == i[-1] and i[0] in "'\"" for i in items):
            return [i[1:-1] for i in items]
    return None


def _from_call(call: griffe.ExprCall, members: dict[str, Any]) -> list[griffe.Parameter] | None:
    positional = [a for a in call.arguments if not isinstance(a, griffe.ExprKeyword)]
    keywords = {a.name: a.value for a in call.arguments if isinstance(a, griffe.ExprKeyword)}
    fields_expr = positional[1] if len(positional) > 1 else keywords.get("field_names")
    names = _strings(fields_expr) if fields_expr is not None else None
    if not names or not all(n.isidentifier() for n in names):
        return None
    defaults_expr = keywords.get("defaults")
    defaults = (
        [str(e) for e in defaults_expr.elements]
        if isinstance(defaults_expr, griffe.ExprList | griffe.ExprTuple)
        else []
    )
    first_default = len(names) - len(defaults)
    return [
        griffe.Parameter(
            n,
            annotation=_annotation(members.get(n)),  # a stub's `hits: int` for the field
            kind=_POSITIONAL,
            default=defaults[k - first_default] if k >= first_default else None,
        )
        for k, n in enumerate(names)
    ]


def _annotation(member: Any) -> Any:
    try:
        return None if member is None or member.is_alias else member.annotation
    except Exception:  # griffe: a member it cannot read
        return None


def namedtuple_parameters(cls: Any) -> list[griffe.Parameter] | None:
    """The parameters a named tuple class is called with (module docstring); None when
    ``cls`` is no named tuple or writes its own constructor."""
    if {"__new__", "__init__"} & set(cls.members):
        return None
    for base in getattr(cls, "bases", []):
        if isinstance(base, griffe.ExprCall) and expr_path(base.function) in _FACTORIES:
            return _from_call(base, dict(cls.members))
        if not isinstance(base, griffe.ExprCall) and expr_path(base) in _TYPED:  # not NamedTuple("A", [...])
            params = []
            for attribute in body_attributes(cls):
                annotation = attribute.annotation
                # griffe reads `kind: ClassVar[str]` as a class attribute only (no instance's)
                if annotation is None or "instance-attribute" not in attribute.labels:
                    continue
                value = attribute.value
                params.append(
                    griffe.Parameter(
                        attribute.name,
                        annotation=annotation,
                        kind=_POSITIONAL,
                        default=None if value is None else str(value),
                    )
                )
            return params
    return None
