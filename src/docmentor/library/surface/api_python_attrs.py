"""The constructor parameters of a class that attrs writes the ``__init__`` of, read from its
fields as attrs reads them (static analysis never sees the method attrs generates).

A class decorated by ``attr.s`` / ``attr.attrs`` / ``attrs.define`` / ``mutable`` / ``frozen``
/ ``attr.dataclass`` (from ``attr`` or ``attrs``) takes, in definition order and after its
attrs bases' fields:

- every ``attr.ib()`` / ``attr.attrib()`` / ``attrs.field()`` class attribute, and
- with ``auto_attribs`` (the ``define`` family's default, unless an unannotated ``attr.ib``
  says otherwise; ``attr.s(auto_attribs=True)``) every annotated class attribute that is not a
  ``ClassVar``,

except those with ``init=False``. A parameter is named by the field's ``alias``, else by its
name without leading underscores (``_deadline`` → ``deadline``); it is keyword-only when the
field or the decorator says ``kw_only=True``; its default is the field's ``default``, its
``factory`` (``factory=list`` → ``list()``) or the value assigned. trio's ``CancelScope``
showed ``CancelScope(...)``; it is ``CancelScope(*, relative_deadline: float = inf, deadline:
float = inf, shield: bool = False)``, as ``inspect.signature`` says.
"""

from __future__ import annotations

from typing import Any

import griffe

__all__ = ["attrs_parameters", "body_attributes", "expr_path"]

_MODULES = ("attr", "attrs")
_CLASS_DECORATORS = frozenset({"s", "attrs", "define", "mutable", "frozen", "dataclass"})
_FIELD_CALLS = frozenset({"ib", "attrib", "field"})
_AUTO_BY_DEFAULT = frozenset({"define", "mutable", "frozen", "dataclass"})


def _from_attrs(path: str, names: frozenset[str]) -> bool:
    module, _, name = path.rpartition(".")
    return module in _MODULES and name in names


def _keywords(expr: Any) -> dict[str, Any]:
    """The keyword arguments of a call expression (none for a bare name)."""
    if not isinstance(expr, griffe.ExprCall):
        return {}
    return {a.name: a.value for a in expr.arguments if isinstance(a, griffe.ExprKeyword)}


def _is_true(value: Any) -> bool:
    return str(value) == "True"


def _decorator(cls: Any) -> tuple[str, dict[str, Any]] | None:
    """The attrs class decorator of ``cls`` (its name and keywords), if it has one."""
    for d in cls.decorators:
        try:
            path = d.callable_path
        except Exception:  # griffe: an expression it cannot name
            continue
        if _from_attrs(path, _CLASS_DECORATORS):
            return path.rpartition(".")[2], _keywords(d.value)
    return None


def _field_call(value: Any) -> dict[str, Any] | None:
    """The keywords of ``attr.ib(…)`` / ``attrs.field(…)``, None when the value is not one."""
    if not isinstance(value, griffe.ExprCall):
        return None
    path = expr_path(value.function)
    return _keywords(value) if _from_attrs(path, _FIELD_CALLS) or path in _FIELD_CALLS else None


def expr_path(expr: Any) -> str:
    """The path a name expression resolves to (``attr.ib``), or its text when griffe cannot
    resolve it."""
    try:
        return str(expr.canonical_path) if hasattr(expr, "canonical_path") else str(expr)
    except Exception:  # an unresolvable name
        return str(expr)


def body_attributes(cls: Any) -> list[Any]:
    """The class attributes written in the class body (not assigned on ``self`` in a method),
    in definition order."""
    methods = [
        (m.lineno or 0, m.endlineno or 0) for m in cls.members.values() if not m.is_alias and m.is_function
    ]
    found = []
    for member in cls.members.values():
        if member.is_alias or not member.is_attribute or member.lineno is None:
            continue
        if any(start <= member.lineno <= end for start, end in methods):
            continue
        found.append(member)
    return sorted(found, key=lambda m: m.lineno)


def _fields(cls: Any, seen: set[str]) -> list[tuple[str, griffe.Parameter]] | None:
    """``cls``'s fields as (field name, parameter), its attrs bases' first; None when
    ``cls`` is not an attrs class."""
    found = _decorator(cls)
    if found is None or cls.path in seen:
        return None
    seen.add(cls.path)
    name, options = found
    inherited: list[tuple[str, griffe.Parameter]] = []
    for base in getattr(cls, "resolved_bases", []):
        if isinstance(base, griffe.Class):
            inherited += _fields(base, seen) or []
    attributes = body_attributes(cls)
    calls = {a.name: _field_call(a.value) for a in attributes}
    auto = options.get("auto_attribs")
    if auto is None:
        bare_ib = any(calls[a.name] is not None and a.annotation is None for a in attributes)
        auto_attribs = name in _AUTO_BY_DEFAULT and not bare_ib
    else:
        auto_attribs = _is_true(auto)
    kw_only_class = _is_true(options.get("kw_only"))
    own: list[tuple[str, griffe.Parameter]] = []
    for attribute in attributes:
        call = calls[attribute.name]
        annotation = attribute.annotation
        if call is None:
            # griffe reads `x: ClassVar[int]` as a class attribute only (no instance's)
            if not auto_attribs or annotation is None or "instance-attribute" not in attribute.labels:
                continue
            call = {}
            default = attribute.value
        else:
            default = call.get("default")
            if default is None and call.get("factory") is not None:
                default = f"{call['factory']}()"
        if "init" in call and not _is_true(call["init"]):
            continue
        alias = call.get("alias")
        param_name = str(alias).strip("'\"") if alias is not None else attribute.name.lstrip("_")
        kind = (
            griffe.ParameterKind.keyword_only
            if kw_only_class or _is_true(call.get("kw_only"))
            else griffe.ParameterKind.positional_or_keyword
        )
        if (
            isinstance(default, griffe.ExprCall)
            and str(default.function).endswith("Factory")
            and default.arguments
        ):
            default = f"{default.arguments[0]}()"
        own.append(
            (
                attribute.name,
                griffe.Parameter(
                    param_name,
                    annotation=annotation if annotation is not None else call.get("type"),
                    kind=kind,
                    default=None if default is None else str(default),
                ),
            )
        )
    names = {field for field, _ in own}
    return [item for item in inherited if item[0] not in names] + own


def attrs_parameters(cls: Any, _seen: frozenset[str] = frozenset()) -> list[griffe.Parameter] | None:
    """The parameters attrs gives ``cls``'s ``__init__`` (module docstring), keyword-only ones
    last as attrs orders them; None when ``cls`` is not an attrs class or a decorator option
    this reading does not follow (``init=False``: no generated ``__init__``) is set."""
    found = _decorator(cls)
    if found is None:  # a plain subclass of an attrs class inherits its __init__ (trio's Lock)
        seen = _seen | {cls.path}
        for base in getattr(cls, "resolved_bases", []):
            # `class OrderedDict(OrderedDict)` resolves its base to itself: no cycle walked
            if not isinstance(base, griffe.Class) or base.path in seen:
                continue
            if not ({"__init__", "__new__"} & set(base.members)):
                return attrs_parameters(base, seen)
        return None
    if "init" in found[1] and not _is_true(found[1]["init"]):
        return None
    fields = _fields(cls, set())
    if fields is None:
        return None
    params = [p for _, p in fields]
    positional = [p for p in params if p.kind is not griffe.ParameterKind.keyword_only]
    return positional + [p for p in params if p.kind is griffe.ParameterKind.keyword_only]
