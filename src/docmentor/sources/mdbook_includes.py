"""mdBook's links preprocessor: where its ``{{#…}}`` expressions are on a line, and which lines
of a file each one shows.

The forms, as mdBook 0.5 reads them (``crates/mdbook-driver/src/builtin_preprocessors/links.rs``):

* ``{{#include path}}``, ``{{#include path:3}}`` (line 3), ``{{#include path:3:10}}``,
  ``{{#include path::10}}``, ``{{#include path:3:}}`` (1-based, inclusive) and
  ``{{#include path:name}}`` (the lines between ``ANCHOR: name`` and ``ANCHOR_END: name``,
  anchor lines left out);
* ``{{#rustdoc_include …}}``, the same forms, where the file's other lines are hidden (``# ``)
  lines of the code block: the page shows only the picked ones;
* ``{{#playground path attr …}}`` (and the old ``{{#playpen …}}``): the file as a ``rust``
  code block, its attributes after a comma (``rust,editable``);
* ``{{#title text}}``: the chapter's title in the browser, nothing on the page;
* ``\\{{#…}}``: escaped, shown without its backslash (up to the last ``}}`` of the line).

Paths are the including file's folder's. Deviations, chosen for indexing: an expression is read
on one line (mdBook's may span lines); a rustdoc_include's hidden lines are left out (the page
hides them); anchor lines are left out of whole files and line ranges too (build markers, not
text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

#: what every mdBook expression starts with (a line without it is never scanned)
OPEN = "{{"
LinkKind = Literal["include", "rustdoc_include", "playground", "title", "escaped"]
_KINDS: dict[str, LinkKind] = {
    "include": "include",
    "rustdoc_include": "rustdoc_include",
    "playground": "playground",
    "playpen": "playground",
    "title": "title",
}
# `ANCHOR: name` / `ANCHOR_END: name` anywhere on a line (a comment of any language); possessive
_ANCHOR = re.compile(r"ANCHOR(?P<end>_END)?+:\s*+(?P<name>[\w-]++)")
_TYPE = re.compile(r"\{\{\s*+#(?P<type>[A-Za-z0-9_]++)\s")


@dataclass(frozen=True, slots=True)
class Link:
    """One ``{{#…}}`` expression of a line: ``line[start:end]`` is its text."""

    start: int
    end: int
    kind: LinkKind
    path: str = ""
    spec: str | None = None  # what follows the path's first ':' (a line range or an anchor)
    attrs: tuple[str, ...] = ()  # a playground's attributes; a title's text is ``path``


def find_links(line: str) -> list[Link]:
    """The expressions of ``line``, in order, as mdBook's pattern finds them. Linear: a
    candidate's end is the first ``}`` after it, so one that fails there fails for every
    candidate before that ``}`` too, and the scan goes on after it."""
    links: list[Link] = []
    last_close = line.rfind("}}")  # where an escaped expression ends: the line's last `}}`
    pos = 0
    while (at := line.find(OPEN, pos)) != -1:
        if at > 0 and line[at - 1] == "\\" and line.startswith("#", at + 2) and last_close >= at + 3:
            links.append(Link(at - 1, last_close + 2, "escaped"))  # `\{{#…}}`: shown as written
            pos = last_close + 2
            continue
        m = _TYPE.match(line, at)
        if m is None:
            pos = at + 1
            continue
        close = line.find("}", m.end())
        if close == -1:
            break  # no `}` after: no expression ends on this line
        pos = close + 1
        if not line.startswith("}}", close):
            continue
        pos = close + 2
        body = line[m.end() - 1 : close]  # from the whitespace after the type
        kind = _KINDS.get(m["type"])
        words = body.split()
        if kind is None or not words:
            continue  # mdBook skips an unknown expression whole
        if kind == "title":
            links.append(Link(at, close + 2, kind, body.strip()))
            continue
        if kind == "playground":  # its path takes no range: `a.rs:2` is a file's name
            links.append(Link(at, close + 2, kind, words[0], None, tuple(words[1:])))
            continue
        path, colon, spec = words[0].partition(":")
        links.append(Link(at, close + 2, kind, path, spec if colon else None, tuple(words[1:])))
    return links


def anchor(line: str) -> tuple[bool, str] | None:
    """``(is_end, name)`` of the first ``ANCHOR:`` / ``ANCHOR_END:`` marker on ``line``."""
    m = _ANCHOR.search(line)
    return None if m is None else (bool(m["end"]), m["name"])


def shown(lines: Sequence[str], spec: str | None, *, every: bool = False) -> list[int] | None:
    """The indices of ``lines`` an include shows: all (``spec`` None), a line range
    (``3``, ``3:10``, ``:10``, ``3:``) or an anchor's lines (the first span of that name;
    ``every``: all of them, as a rustdoc_include shows them); None when the anchor is not
    there. Anchor lines are left out."""
    n = len(lines)
    rows: range | list[int]
    if spec is None:
        rows = range(n)
    else:
        first, _, rest = spec.partition(":")
        if first and not _number(first):
            return _anchored(lines, first, every)
        end_text = rest.partition(":")[0] if ":" in spec else None
        start = max(int(first) - 1, 0) if first else None
        end = int(end_text) if end_text is not None and _number(end_text) else None
        if start is not None and end_text is None:  # `path:3`: one line
            rows = range(start, min(start + 1, n))
        elif start is not None:
            rows = range(start, n if end is None else min(end, n))
        else:
            rows = range(0, n if end is None else min(end, n))
    return [k for k in rows if anchor(lines[k]) is None]


def _number(text: str) -> bool:
    """Whether ``text`` reads as a line number as Rust's ``usize`` parse reads it (``3``, ``+3``)."""
    digits = text.removeprefix("+")
    return digits.isascii() and digits.isdigit()


def _anchored(lines: Sequence[str], name: str, every: bool) -> list[int] | None:
    """The lines between ``ANCHOR: name`` and its ``ANCHOR_END: name`` (other anchors' marker
    lines left out), the first such span or ``every`` one; None when no such anchor starts."""
    out: list[int] = []
    inside = found = False
    for k, line in enumerate(lines):
        mark = anchor(line)
        if inside:
            if mark is None:
                out.append(k)
            elif mark == (True, name):
                if not every:
                    break
                inside = False
        elif mark == (False, name):
            inside = found = True
    return out if found else None
