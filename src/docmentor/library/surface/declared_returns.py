"""The class an unannotated function's docstring says it returns.

A function without a return annotation often says what it gives in its docstring: a type
(``:rtype: Statement``, ``:rtype: list of :class:`Statement```, Google's ``Returns:
Statement: …``) or a returns field naming one class (``:returns: A tuple of
:class:`~pkg.sql.Statement` instances.``). Users reach that class's methods through the call
as they would through an annotation's, so the walk reads it when there is no annotation:
the class itself, or the class of the items of a list, tuple, iterator or generator.

Only one class named in the text counts (two are a choice the text explains, not a type),
and only a name written as a type: a reST class role, or a type field's dotted name.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Declared", "declared_return"]

# a reST class role: :class:`Statement`, :py:class:`~pkg.sql.Statement`, :class:`the statement <Statement>`
_ROLE = re.compile(r":(?:py:)?(?:class|obj):`(?:[^`<\n]{0,200}<)?[~!]?([A-Za-z_][\w.]*)>?`")
_NAME = re.compile(r"[~!]?([A-Za-z_][\w.]*)")
_HOLDERS = "list|tuple|sequence|iterator|iterable|generator|set|collection|array"
# what holds several of the class named next: `a list of `, `an iterator over the ` before it …
_HELD_BEFORE = re.compile(rf"\b(?:{_HOLDERS})s?\s+(?:of|over)\s+(?:(?:a|an|the)\s+)?\Z", re.IGNORECASE)
# … or ` instances`, ` objects` after it
_HELD_AFTER = re.compile(r"\A\s*(?:instances|objects)\b", re.IGNORECASE)
# a type field's container of one named type: `list of Statement`, `list[Statement]`, `tuple[X, ...]`
_HELD = re.compile(
    rf"(?:{_HOLDERS})(?: (?:of|over) |\[)[~!]?([A-Za-z_][\w.]*)(?:, ?\.\.\.)?\]?", re.IGNORECASE
)
# "or None" and its spellings: the class is still what a call gives when it gives something
_OR_NONE = re.compile(
    r"\A(?:Optional\[(?P<inner>[^\[\]]{1,200})\]|(?P<left>.{1,200}?)\s*(?:\||\bor\b)\s*(?::\w+:`)?None`?)\Z"
)
_MAPPING = re.compile(r"\b(?:dict|dictionary|mapping|map)\b", re.IGNORECASE)  # keyed by another thing
_NOT_CLASSES = frozenset({"None", "True", "False"})
_MAX_TYPE = 200  # a longer type field is prose, not a type


class Declared(NamedTuple):
    """A declared return: the class's name as written, and whether the call gives several of them."""

    name: str
    items: bool


def declared_return(type_text: str | None, description: str | None) -> Declared | None:
    """The class a docstring's returns type (``type_text``) or, failing that, its returns
    description names; None when neither names exactly one class (`None`, `True` and `False`
    roles are no classes), or when a mapping holds it (``dict mapping str to :class:`Foo```)."""
    if type_text:
        found = _from_type(type_text)
        if found is not None:
            return found
    return _from_roles(description) if description else None


def _from_roles(text: str) -> Declared | None:
    """The one class the roles of ``text`` name, and whether a container holds it."""
    roles = [m for m in _ROLE.finditer(text) if m.group(1) not in _NOT_CLASSES]
    if len({m.group(1) for m in roles}) != 1 or _MAPPING.search(text):
        return None
    role = roles[0]
    held = _HELD_BEFORE.search(text[max(0, role.start() - 60) : role.start()]) is not None
    return Declared(role.group(1), held or _HELD_AFTER.match(text[role.end() :]) is not None)


def _from_type(text: str) -> Declared | None:
    plain = " ".join(text.split())
    if len(plain) > _MAX_TYPE:
        return None
    if _ROLE.search(plain):
        return _from_roles(plain)
    optional = _OR_NONE.match(plain)
    if optional is not None:
        plain = (optional.group("inner") or optional.group("left")).strip()
    whole = _NAME.fullmatch(plain)
    if whole is not None:
        return Declared(whole.group(1), False) if whole.group(1) not in _NOT_CLASSES else None
    if _MAPPING.search(plain):
        return None
    held = _HELD.fullmatch(plain)
    return Declared(held.group(1), True) if held is not None else None
