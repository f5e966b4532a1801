"""The MkDocs include forms' syntax: pymdownx.snippets (``--8<--``), ``{!…!}``
(markdown-include, mdx_include) and ``{*…*}`` (markdown-include-variants).

Their patterns, mdx_include's row slices and the variants' ``ln[…]`` ranges; what they mean
is in ``docmentor.sources.includes``. Every pattern here reads the user's (or a repository's)
text, so each runs in linear time on any line.
"""

from __future__ import annotations

import re

SNIPPET_INLINE = re.compile(
    r"""^(?P<space>[ \t]*)(?P<escape>;*)-+8<-+[ \t]+"""
    r"""(?P<target>"(?:\\"|[^"])+?"|'(?:\\'|[^'])+?')[ \t]*$"""
)
SNIPPET_BLOCK = re.compile(r"^[ \t]*(?P<escape>;*)-+8<-+[ \t]*$")
SNIPPET_FILE = re.compile(
    r"^(?P<path>.*?)(?:(?P<start>:[0-9]*)?(?P<end>:[0-9]*)?|(?P<section>:[a-z][-_0-9a-z]*)?)$",
    re.IGNORECASE,
)
# markdown-include and mdx_include. Linear on any line: the body stops at the first ``!``,
# ``{`` or ``}``, so the text scanned from one ``{!`` never holds another one.
MD_INCLUDE = re.compile(
    r"(?P<escape>\\?)\{!(?P<recurse>[+-]?)(?P<apply>>?)(?P<body>[^!{}\n]*)"
    r"!(?:lines=(?P<lines>[0-9 -]+))?\}"
)
# markdown-include-variants' ``ln[…]`` option; the value stops at the next bracket.
VARIANT_LN = re.compile(r"\bln\[(?P<value>[^\[\]]*)\]")
ABOVE, HERE, BELOW = "# Code above omitted 👆", "# Code here omitted 👈", "# Code below omitted 👇"


def parse_row_slice(spec: str) -> list[tuple[int | None, int | None]] | None:
    """An mdx_include ``[ln:…]`` slice as (first, last) rows: ``None`` is unspecified, ``0``
    the last row (``e``). Columns (``.c``) are dropped. ``None`` when it does not parse."""
    parts: list[tuple[int | None, int | None]] = []
    for part in spec.replace(".e", ".").split(","):
        if not part:
            continue
        ends = part.split("-")
        if len(ends) > 2:
            return None
        rows: list[int | None] = []
        for end in ends:
            row = end.partition(".")[0].strip()
            if row == "e":
                rows.append(0)
            elif not row:
                rows.append(None)
            elif row.isdigit() and int(row) > 0:
                rows.append(int(row))
            else:
                return None
        parts.append((rows[0], rows[-1]))
    return parts


def row_slice(total: int, parts: list[tuple[int | None, int | None]]) -> list[int]:
    """The line indices an rcslice row slice picks, ``-1`` for the two blank lines mdx_include
    puts between slices. A slice whose first row is after its last (or unspecified, with the
    last given: ``-3``) runs backwards, as rcslice's do."""
    picked: list[int] = []
    for k, (first, last) in enumerate(parts):
        a = total if first == 0 else first
        b = total if last == 0 else last
        if k:
            picked += [-1, -1]
        if b is None or (a is not None and a <= b):
            picked.extend(range((a or 1) - 1, total if b is None else min(b, total)))
        else:
            picked.extend(range(min(a or total, total) - 1, b - 2, -1))
    return picked


def parse_ln(value: str) -> list[tuple[int, int]] | None:
    """markdown-include-variants' ``ln[1:3,8]``: 1-based inclusive (first, last) ranges."""
    ranges: list[tuple[int, int]] = []
    for part in value.split(","):
        first, colon, last = part.strip().partition(":")
        first, last = first.strip(), last.strip() if colon else first.strip()
        if not (first.isdigit() and last.isdigit()):
            return None
        ranges.append((int(first), int(last)))
    return sorted(ranges)


def variants_line(line: str) -> tuple[str, str, str] | None:
    """A markdown-include-variants line, ``{* path options *}`` alone on its line: its
    path, options and indent (the plugin takes it unindented only; indented, it is kept
    in the list item or tab it sits in)."""
    stripped = line.strip()
    if len(stripped) < 5 or not stripped.startswith("{*") or not stripped.endswith("*}"):
        return None
    words = stripped[2:-2].split(None, 1)
    if not words:
        return None
    return words[0], words[1] if len(words) > 1 else "", line[: len(line) - len(line.lstrip())]
