"""How a library's objects are called, where an ``ApiEntry`` cannot say: what calling an
instance takes (its class's ``__call__``, inherited within the library included:
``nlp = Pipeline(...); nlp(text, lower=True)``); which methods bind their class or nothing
(``@classmethod``, ``@staticmethod``: ``Database.memory(strict=True)`` passes no receiver,
so its arguments are checked as written); what constructing a class takes when the library
gives it a ``__new__`` and no ``__init__``; and the ``@typing.overload`` signatures of a
callable (a function, a method, a class's ``__init__``, a ``__call__``) whose own signature
takes anything: a decorator factory ``def retry(*dargs, **dkw)`` declares its keywords
(``stop=``, ``wait=``) only in its overloads.

Read from the griffe objects once the walk is done (:func:`call_forms`); the drift report
checks ``obj(...)``, ``Cls.method(...)`` and ``@retry(...)`` with it. ``__call__`` and the
overloads are no APIs of the catalog: their entries are kept here only, for their parameters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import griffe

from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python_entry import alias_target, api_entry, class_members

__all__ = ["Binding", "CallForms", "call_forms"]

Binding = Literal["classmethod", "staticmethod"]


@dataclass(frozen=True, slots=True)
class CallForms:
    """The calls a surface's entries do not describe."""

    #: class api_id → the entry of its instances' ``__call__`` (defined on it or on a base
    #: the library has; one from outside the library is unknown, so absent)
    calls: dict[str, ApiEntry] = field(default_factory=dict)
    #: method api_id → how it binds, for the methods that take no instance
    bindings: dict[str, Binding] = field(default_factory=dict)
    #: api_id of a function, method, class (its ``__init__``, or ``__new__``) or ``__call__``
    #: whose own signature has ``*args`` or ``**kwargs`` → its overloads' entries (two or more)
    overloads: dict[str, tuple[ApiEntry, ...]] = field(default_factory=dict)
    #: class api_id → its ``__new__``'s entry, for a class the library gives a ``__new__``
    #: and no ``__init__``: what constructing it takes (its entry then shows no parameters)
    constructors: dict[str, ApiEntry] = field(default_factory=dict)
    #: classes whose metaclass may construct them otherwise (``class X(metaclass=Meta)``
    #: with a ``Meta.__call__``, or a metaclass from outside the library): what
    #: constructing them takes is unknown
    made_by_metaclass: frozenset[str] = frozenset()


def call_forms(
    entries: Iterable[ApiEntry], collection: Any, bound_over: Mapping[str, Any] | None = None
) -> CallForms:
    """The ``__call__`` of each class, the binding of each class- or static method, the
    overloads of what takes anything, and the ``__new__`` of classes without ``__init__``.

    Args:
        entries: the surface's entries (classes, functions and methods are read).
        collection: griffe's modules collection the entries were read from.
        bound_over: api_id → the object a package binds over its same-named submodule
            (``pkg.retry`` the function, where the collection holds the module).
    """
    bound_over = bound_over or {}
    calls: dict[str, ApiEntry] = {}
    bindings: dict[str, Binding] = {}
    overloads: dict[str, tuple[ApiEntry, ...]] = {}
    constructors: dict[str, ApiEntry] = {}
    metaclassed: set[str] = set()
    for entry in entries:
        if entry.language != "python" or entry.kind not in ("class", "method", "function"):
            continue
        obj = bound_over.get(entry.api_id) or _get(collection, entry.api_id)
        if obj is None:
            continue
        if entry.kind != "class":
            if not obj.is_function:
                continue
            if "staticmethod" in obj.labels:
                bindings[entry.api_id] = "staticmethod"
            elif "classmethod" in obj.labels:
                bindings[entry.api_id] = "classmethod"
            _add_overloads(overloads, entry.api_id, obj)
            continue
        if not obj.is_class:
            continue
        if _custom_metaclass(obj, collection):
            metaclassed.add(entry.api_id)
        members = class_members(obj)
        init = members.get("__init__")
        init = alias_target(init) if init is not None else None
        if init is not None and init.is_function:
            _add_overloads(overloads, entry.api_id, init)
        else:  # `Token(value)` runs `__new__(cls, value)` when no `__init__` takes it
            new = members.get("__new__")
            new = alias_target(new) if new is not None else None
            made = _entry(new) if new is not None and new.is_function else None
            if made is not None:
                constructors[entry.api_id] = made
                _add_overloads(overloads, entry.api_id, new)
        member = members.get("__call__")
        target = alias_target(member) if member is not None else None
        if target is None or not target.is_function or "property" in target.labels:
            continue
        call = _entry(target)
        if call is not None:
            calls[entry.api_id] = call
            _add_overloads(overloads, call.api_id, target)
    return CallForms(
        calls=calls,
        bindings=bindings,
        overloads=overloads,
        constructors=constructors,
        made_by_metaclass=frozenset(metaclassed),
    )


_ANYTHING = frozenset({griffe.ParameterKind.var_positional, griffe.ParameterKind.var_keyword})


def _add_overloads(out: dict[str, tuple[ApiEntry, ...]], api_id: str, function: Any) -> None:
    """``function``'s overloads under ``api_id``, when its own signature takes anything."""
    if api_id in out:
        return
    declared = list(getattr(function, "overloads", None) or ())
    if len(declared) < 2 or not any(p.kind in _ANYTHING for p in function.parameters):
        return
    found = [e for o in declared if (e := _entry(o)) is not None]
    if len(found) == len(declared):  # every one read, or none trusted
        out[api_id] = tuple(found)


# metaclasses that construct as ``type`` does: ``__init__`` (or ``__new__``) takes the call
_PLAIN_METACLASSES = frozenset({"type", "builtins.type", "abc.ABCMeta", "ABCMeta"})


def _custom_metaclass(cls: Any, collection: Any) -> bool:
    """Whether ``cls`` names a metaclass that may construct it otherwise than ``type``: one
    of the library's with a ``__call__``, or one from elsewhere (unknown)."""
    meta = (getattr(cls, "keywords", None) or {}).get("metaclass")
    if meta is None:
        return False
    path = str(getattr(meta, "canonical_path", None) or meta)
    if path in _PLAIN_METACLASSES:
        return False
    target = _get(collection, path)
    if target is None or not target.is_class:
        return True
    return "__call__" in class_members(target)


def _entry(function: Any) -> ApiEntry | None:
    try:
        return api_entry(function)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, ValueError, AttributeError):
        return None  # a signature griffe cannot read: not checked


def _get(collection: Any, path: str) -> Any:
    """The griffe object at ``path``, an alias followed to what it names (None: unknown)."""
    try:
        obj = collection[path]
        return obj.final_target if obj.is_alias else obj
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
