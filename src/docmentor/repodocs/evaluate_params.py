"""The ``parameters`` metric of repository documentation: what a document states about each
parameter it lists (under Args, or a class's Constructor in the code's format) against the
signature — the name is a parameter, the stated type is its annotation, the stated default its
default.

An entry is a line at the section's outermost indentation naming a parameter: ``- `rate`
(`float`, keyword-only, default `0.0`)`` (the code's format), ``rate (float, optional):
meaning. Defaults to `0.5`.`` or ``- **rate** (float): …`` (a model's). Its parenthesis holds
the type (its first note that is not ``optional``, ``keyword-only`` … or ``default …``) and
perhaps ``default X``; after it, ``Defaults to X`` / ``default is X`` counts when X is a code
span or a literal (a number, a quoted string, ``None``, ``True``, ``False``), so a prose
"defaults to zero" is not read.

One check per stated fact: a listed name that is no parameter fails (unless the function
takes ``**kwargs``); a stated type is compared with the annotation when the parameter has one
and the text is a type expression, not prose ("a list of items" is not checked): dotted names
compared by their last part (``m.Item`` is ``Item``), ``List``/``Dict``/… as ``list``/``dict``,
``Optional[X]`` and ``X or None`` as ``X | None``, union members in any order; a stated default
fails when the parameter has none or another (quotes, spaces and backticks aside). Every scan
is linear in the text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docmentor.repodocs.units import Component, Parameter

__all__ = ["DocumentedParameter", "documented_entries", "parameter_checks"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_LITERAL = re.compile(r"-?[0-9][0-9_.eE+-]*|None|True|False|'[^']*'|\"[^\"]*\"")
_IGNORED_NOTES = (
    "optional",
    "required",
    "keyword-only",
    "keyword only",
    "positional-only",
    "positional only",
)
_PROSE_DEFAULTS = ("defaults to ", "default is ", "default: ", "default ")
_TYPING = {
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Type": "type",
}
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True, slots=True)
class DocumentedParameter:
    """One parameter as a document states it: its name, and its type and default when stated."""

    name: str
    type: str | None
    default: str | None


def documented_entries(lines: Sequence[str]) -> list[DocumentedParameter]:
    """The parameter entries of a section's lines (see the module docstring)."""
    entries = [line for line in lines if line.strip()]
    if not entries:
        return []
    indent = min(len(line) - len(line.lstrip()) for line in entries)
    out: list[DocumentedParameter] = []
    for line in entries:
        if len(line) - len(line.lstrip()) == indent:
            entry = _entry(line.strip())
            if entry is not None:
                out.append(entry)
    return out


def _entry(text: str) -> DocumentedParameter | None:
    if text.startswith(("- ", "* ", "+ ")):
        text = text[2:].lstrip()
    ticked = text.startswith("`")
    text = text.lstrip("`*")
    m = _NAME.match(text)
    if m is None or m.group(0) in ("None", "none"):
        return None
    rest = text[m.end() :]
    if ticked and not rest.startswith("`"):
        return None  # a code span that is more than a name (a signature written out)
    rest = rest.lstrip("`*").lstrip()
    if not rest.startswith(("(", ":", "-", "—", "–")):
        return None
    kind: str | None = None
    default: str | None = None
    after = rest
    if rest.startswith("("):
        inside, after = _parenthesised(rest)
        kind, default = _notes(inside)
    if default is None:
        default = _prose_default(after)
    return DocumentedParameter(m.group(0), kind, default)


def _parenthesised(text: str) -> tuple[str, str]:
    """The text inside the parenthesis ``text`` opens (nested brackets and code spans kept
    whole) and what follows it; an unclosed one holds the rest of the line."""
    depth = 0
    ticked = False
    for i, ch in enumerate(text):
        if ch == "`":
            ticked = not ticked
        elif ticked:
            continue
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                return text[1:i], text[i + 1 :]
    return text[1:], ""


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets and code spans."""
    parts: list[str] = []
    depth = 0
    ticked = False
    start = 0
    for i, ch in enumerate(text):
        if ch == "`":
            ticked = not ticked
        elif ticked:
            continue
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _notes(inside: str) -> tuple[str | None, str | None]:
    """(type, default) of a parenthesis's notes."""
    kind: str | None = None
    default: str | None = None
    for piece in _split_top(inside, ","):
        note = piece.strip()
        low = note.lower()
        if low.startswith("default"):
            value = note[len("default") :].lstrip()
            for lead in ("s to ", "s to", "is ", ":", "="):
                if value.lower().startswith(lead):
                    value = value[len(lead) :].lstrip()
                    break
            default = _unticked(value) or None
        elif low in _IGNORED_NOTES or low.startswith("any number of") or not note:
            continue
        elif kind is None:
            kind = _unticked(note)
    return kind, default


def _prose_default(text: str) -> str | None:
    """``Defaults to X`` after an entry's name, X a code span or a literal."""
    low = text.lower()
    for lead in _PROSE_DEFAULTS:
        at = low.find(lead)
        if at == -1:
            continue
        value = text[at + len(lead) :].lstrip()
        if value.startswith("`"):
            fence = len(value) - len(value.lstrip("`"))
            end = value.find("`" * fence, fence)
            return value[fence:end].strip() if end != -1 else None
        literal = _LITERAL.match(value)
        if literal is not None:
            return literal.group(0).rstrip(".")
        return None
    return None


def _unticked(text: str) -> str:
    return text.strip().strip("`").strip()


# -- the checks ---------------------------------------------------------------------------


def parameter_checks(
    unit: Component, parameters: Sequence[Parameter], lines: Sequence[str]
) -> list[tuple[bool, str]]:
    """(passed, what fails) for each fact the section ``lines`` state about ``parameters``
    (the signature's, without a method's ``self``/``cls``) of ``unit``."""
    shown = unit.signature
    if unit.kind == "class" and unit.init_signature is not None:
        shown = unit.name + unit.init_signature
    by_name = {p.name: p for p in parameters}
    open_ended = any(p.kind == "var_keyword" for p in parameters)
    out: list[tuple[bool, str]] = []
    for entry in documented_entries(lines):
        param = by_name.get(entry.name)
        if param is None:
            if not open_ended:
                out.append((False, f"documented parameter not in the signature {shown!r}: {entry.name}"))
            continue
        if entry.type is not None and param.annotation is not None and _is_type(entry.type):
            same = _type_key(entry.type) == _type_key(param.annotation)
            out.append(
                (
                    same,
                    f"type of {entry.name} is documented as {entry.type!r}, the code's is {param.annotation!r}",
                )
            )
        if entry.default is not None:
            if param.default is None:
                out.append(
                    (False, f"default of {entry.name} is documented as {entry.default!r}; it has none")
                )
            else:
                same = _value_key(entry.default) == _value_key(param.default)
                out.append(
                    (
                        same,
                        f"default of {entry.name} is documented as {entry.default!r}, the code's is {param.default!r}",
                    )
                )
    return out


def _is_type(text: str) -> bool:
    """Whether ``text`` reads as a type expression: names, brackets, dots, commas, ``|``, and
    spaces only beside punctuation or as ``or``."""
    text = text.replace(" or ", " | ")
    tokens = [w for w in _split_top(text, " ") if w]
    for left, right in itertools.pairwise(tokens):
        if _identifier_char(left[-1]) and _identifier_char(right[0]):
            return False  # two words side by side: prose
    return all(_identifier_char(ch) or ch in ".[](),|'\" -*" for ch in text)


def _identifier_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _type_key(text: str) -> tuple[str, ...]:
    """A type expression's comparable form: its union members, sorted, each without spaces,
    module prefixes or typing's capitalised aliases."""
    text = text.strip().strip("`").replace(" or ", "|")
    text = "".join(text.split())
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # a forward reference
    if text.startswith("Optional[") and text.endswith("]"):
        text = text[len("Optional[") : -1] + "|None"
    text = _DOTTED.sub(
        lambda m: _TYPING.get(m.group(0).rsplit(".", 1)[-1], m.group(0).rsplit(".", 1)[-1]), text
    )
    text = text.replace("'", "").replace('"', "")
    return tuple(sorted(_split_top(text, "|")))


def _value_key(text: str) -> str:
    return "".join(text.strip().strip("`").split()).replace("'", '"')
