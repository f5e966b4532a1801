"""How a library's objects are called, where an ``ApiEntry`` cannot say: what calling an
instance takes (its class's ``__call__``, inherited within the library included:
``nlp = Pipeline(...); nlp(text, lower=True)``), and which methods bind their class or
nothing (``@classmethod``, ``@staticmethod``: ``Database.memory(strict=True)`` passes no
receiver, so its arguments are checked as written).

Read from the griffe objects once the walk is done (:func:`call_forms`); the drift report
checks ``obj(...)`` and ``Cls.method(...)`` with it. ``__call__`` is no API of the catalog
(special methods are not listed): its entry is kept here only, for its parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
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


def call_forms(entries: Iterable[ApiEntry], collection: Any) -> CallForms:
    """The ``__call__`` of each class and the binding of each class- or static method.

    Args:
        entries: the surface's entries (classes and methods are read).
        collection: griffe's modules collection the entries were read from.
    """
    calls: dict[str, ApiEntry] = {}
    bindings: dict[str, Binding] = {}
    for entry in entries:
        if entry.language != "python" or entry.kind not in ("class", "method"):
            continue
        obj = _get(collection, entry.api_id)
        if obj is None:
            continue
        if entry.kind == "method":
            labels: set[str] = set(obj.labels) if obj.is_function else set()
            if "staticmethod" in labels:
                bindings[entry.api_id] = "staticmethod"
            elif "classmethod" in labels:
                bindings[entry.api_id] = "classmethod"
            continue
        if not obj.is_class:
            continue
        member = class_members(obj).get("__call__")
        target = alias_target(member) if member is not None else None
        if target is None or not target.is_function or "property" in target.labels:
            continue
        try:
            calls[entry.api_id] = api_entry(target)
        except (griffe.AliasResolutionError, griffe.CyclicAliasError, ValueError):
            continue  # a signature griffe cannot read: not checked
    return CallForms(calls=calls, bindings=bindings)


def _get(collection: Any, path: str) -> Any:
    """The griffe object at ``path``, an alias followed to what it names (None: unknown)."""
    try:
        obj = collection[path]
        return obj.final_target if obj.is_alias else obj
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
