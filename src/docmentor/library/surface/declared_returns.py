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
# what holds several of a thing: `list of X`, `tuple of X`, `iterator over X`, `X instances`, `list[X]`
_ITEMS = re.compile(rf"\b(?:{_HOLDERS})s?\b|\b(?:instances|objects)\b|\[", re.IGNORECASE)
# a type field's container of one named type: `list of Statement`, `list[Statement]`, `tuple[X, ...]`
_HELD = re.compile(
    rf"(?:{_HOLDERS})(?: (?:of|over) |\[)[~!]?([A-Za-z_][\w.]*)(?:, ?\.\.\.)?\]?", re.IGNORECASE
)
_MAX_TYPE = 200  # a longer type field is prose, not a type


class Declared(NamedTuple):
    """A declared return: the class's name as written, and whether the call gives several of them."""

    name: str
    items: bool


def declared_return(type_text: str | None, description: str | None) -> Declared | None:
    """The class a docstring's returns type (``type_text``) or, failing that, its returns
    description names; None when neither names exactly one class."""
    if type_text:
        found = _from_type(type_text)
        if found is not None:
            return found
    if description:
        names = {m.group(1) for m in _ROLE.finditer(description)}
        if len(names) == 1:
            name = names.pop()
            role = _ROLE.search(description)
            assert role is not None
            around = description[: role.start()] + " " + description[role.end() :]
            return Declared(name, _ITEMS.search(around) is not None)
    return None


def _from_type(text: str) -> Declared | None:
    roles = {m.group(1) for m in _ROLE.finditer(text)}
    if len(roles) > 1:
        return None
    if roles:
        name = roles.pop()
        role = _ROLE.search(text)
        assert role is not None
        rest = text[: role.start()] + " " + text[role.end() :]
        return Declared(name, _ITEMS.search(rest) is not None)
    plain = " ".join(text.split())
    if len(plain) > _MAX_TYPE:
        return None
    whole = _NAME.fullmatch(plain)
    if whole is not None:
        return Declared(whole.group(1), False)
    held = _HELD.fullmatch(plain)
    return Declared(held.group(1), True) if held is not None else None
