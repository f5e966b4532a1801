"""Classes named through type aliases, which griffe does not follow.

Pint builds its ``Quantity`` from facets whose registries name their quantity classes by
class-level aliases (``class PlainRegistry: Quantity: TypeAlias = PlainQuantity[Any]``), and
exports it by another (``pint.Quantity = UnitRegistry.Quantity``). Python binds each of those
names to the class itself, but griffe sees attributes: ``class Quantity(facets.PlainRegistry
.Quantity, …)`` got no base, so neither its inherited methods (``to``, ``to_base_units``) nor
the class behind ``pint.Quantity`` were in the catalog. :func:`class_through_alias` follows
such a name to its class; :func:`resolve_alias_bases` rewrites a class's bases that name one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import griffe

from docmentor.library.surface.api_python_entry import object_at

__all__ = ["class_through_alias", "resolve_alias_bases"]

MAX_LINKS = 4  # aliases of aliases followed at most (a cycle ends there)
# annotations an alias of a class may carry: none, or one saying it is a type alias
_ALIAS_ANNOTATIONS = frozenset({"TypeAlias", "typing.TypeAlias", "typing_extensions.TypeAlias"})


def class_through_alias(obj: Any, lookup: Callable[[str], Any]) -> Any | None:
    """The class an attribute is another name for, through other such attributes (at most
    :data:`MAX_LINKS`): its value a name of a class, or of a generic class subscripted
    (``PlainQuantity[Any]``), the attribute a class-level one, unannotated, or one annotated
    ``TypeAlias``; None for anything else (a typed setting, a call, an instance, a module's
    constant on the way: ``renderer = settings.DEFAULT_RENDERER`` stays a setting, as
    ``DEFAULT_RENDERER = HtmlRenderer`` does). ``lookup``: a path → its object or None."""
    for _ in range(MAX_LINKS):
        if obj is None or obj.is_class:
            return obj
        if not obj.is_attribute:
            return None
        annotation = getattr(obj, "annotation", None)
        alias = annotation is not None and str(annotation) in _ALIAS_ANNOTATIONS
        if annotation is not None and not alias:
            return None
        if not alias and (obj.parent is None or not obj.parent.is_class):
            return None  # a module's value on the way (review): its own setting, not an alias
        value = getattr(obj, "value", None)
        if isinstance(value, griffe.ExprSubscript):
            value = value.left
        if not isinstance(value, griffe.ExprName | griffe.ExprAttribute):
            return None
        try:
            path = _value_path(obj, value)
        except Exception:  # griffe failing on a name it cannot resolve
            return None
        obj = lookup(path)
    return obj if obj is not None and obj.is_class else None


def _value_path(obj: Any, value: Any) -> str:
    """The path the name ``value`` binds where ``obj``'s assignment reads it: a class body's
    ``Quantity: TypeAlias = Quantity`` reads the module's ``Quantity`` (the class's own name
    is not bound yet while its value is computed)."""
    scope = obj.parent
    if isinstance(value, griffe.ExprName) and value.name == obj.name and scope is not None and scope.is_class:
        # the module's: a class body sees no enclosing class's names either (review)
        return str(obj.module.resolve(value.name))
    return str(value.canonical_path)


def resolve_alias_bases(modules: Iterable[Any], collection: Any) -> int:
    """Rewrite each base of the modules' classes that names a class through type aliases
    (``facets.PlainRegistry.Quantity``) as that class's path, so griffe resolves it (its
    members are inherited, its place in the MRO known); how many bases were rewritten. A
    base griffe resolves already, or that names no class, is left as written."""

    def lookup(path: str) -> Any:
        return object_at(collection, path)

    rewritten = 0
    for mod in modules:
        for cls in _classes(mod):
            bases = list(cls.bases)
            for i, base in enumerate(bases):
                if isinstance(base, str) or not isinstance(base, griffe.ExprName | griffe.ExprAttribute):
                    continue
                try:
                    named = lookup(base.canonical_path)
                except Exception:  # griffe failing on a base it cannot resolve
                    continue
                if named is None or named.is_class or not named.is_attribute:
                    continue
                found = class_through_alias(named, lookup)
                if found is not None and found.path != cls.path:
                    bases[i] = found.path
                    rewritten += 1
            if rewritten and bases != list(cls.bases):
                cls.bases = bases
    return rewritten


def _classes(mod: Any) -> Iterable[Any]:
    """The classes a module defines, nested ones too (not those it imports)."""
    todo = [m for m in mod.members.values() if not m.is_alias and m.is_class]
    while todo:
        cls = todo.pop()
        yield cls
        todo += [m for m in cls.members.values() if not m.is_alias and m.is_class]
