"""The MkDocs include forms' syntax: pymdownx.snippets (``--8<--``), ``{!…!}``
(markdown-include, mdx_include), ``{*…*}`` (markdown-include-variants) and ``{% include-markdown
… %}`` / ``{% include … %}`` (mkdocs-include-markdown-plugin).

Their patterns, mdx_include's row slices and the variants' ``ln[…]`` ranges; what they mean
is in ``docmentor.sources.includes``. Every pattern here reads the user's (or a repository's)
text, so each runs in linear time on any line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docmentor.parse.fences import Fence, closes, fence_open

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


# mkdocs-include-markdown-plugin: ``{% include-markdown "path" start="…" %}`` and ``{% include
# "path" %}``, on one line or several. The tag's text is read by :func:`plugin_tag`, a scan
# over its characters (no pattern on it).
PLUGIN_TAG_LINES = 30  # a tag not closed within this many lines is text
_PLUGIN_NAMES = ("include-markdown", "include")


@dataclass(frozen=True, slots=True)
class PluginTag:
    """One mkdocs-include-markdown-plugin directive: its name, path and arguments."""

    name: str  # "include-markdown" or "include"
    path: str
    args: dict[str, str]


def plugin_tag(inner: str) -> PluginTag | None:
    """The directive inside ``{%`` … ``%}`` (Jinja's ``-`` whitespace control allowed), or None
    when it is no include (``{% if x %}``) or its path is missing. Values are quoted (``"…"``,
    ``'…'``, ``\\`` escapes the quote) or bare words (``true``, ``2``)."""
    text = inner.strip().strip("-").strip()
    name = next((n for n in _PLUGIN_NAMES if text.startswith(n)), None)
    if name is None:
        return None
    rest = text[len(name) :]
    if rest[:1] not in (" ", "\t", "\n", '"', "'"):
        return None  # {% includes %}, {% include_raw %}: another tag
    words = _words(rest)
    if not words or ("=" in words[0][0] and not words[0][1]):
        return None
    path = words[0][0]
    args: dict[str, str] = {}
    for word, quoted in words[1:]:
        key, eq, value = word.partition("=")
        if eq and not quoted:
            args[key.strip().replace("_", "-")] = value
    return PluginTag(name, path, args) if path else None


def _words(text: str) -> list[tuple[str, bool]]:
    """Space-separated words, a quoted part read whole (``start="a b"`` is one word, its value
    unquoted): (word, whether it is a quoted string alone). One pass over the characters."""
    words: list[tuple[str, bool]] = []
    word: list[str] = []
    quoted_alone = False
    quote = ""
    k = 0
    while k < len(text):
        c = text[k]
        if quote:
            if c == "\\" and k + 1 < len(text) and text[k + 1] in "\"'\\":
                word.append(text[k + 1])
                k += 2
                continue
            if c == quote:
                quote = ""
            else:
                word.append(c)
        elif c in "\"'":
            quoted_alone = not word
            quote = c
        elif c.isspace():
            if word or quoted_alone:
                words.append(("".join(word), quoted_alone))
            word, quoted_alone = [], False
        else:
            word.append(c)
            quoted_alone = False
        k += 1
    if word or quoted_alone:
        words.append(("".join(word), quoted_alone))
    return words


def unescape(value: str) -> str:
    """A ``start``/``end`` value's Python-style escapes read (``\\n`` is a newline), as the
    plugin reads them; a value they do not parse in stays as written."""
    if "\\" not in value:
        return value
    try:
        return value.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return value


def between(text: str, start: str | None, end: str | None) -> tuple[list[tuple[int, int]], list[str]]:
    """The (begin, end) character spans of ``text`` the plugin includes for ``start`` and
    ``end``, joined as they are (no newline between them), and the delimiters not found.
    As mkdocs-include-markdown-plugin's ``filter_inclusions``: ``start`` alone, the text after
    its first occurrence (nothing when it is missing); ``end`` alone, the text before its
    first occurrence (all of it when it is missing); both, every part after a ``start`` (the
    whole text when there is none) cut at each ``end``, keeping the first, third, … pieces."""
    missing = [f'start="{start}"'] if start and start not in text else []
    if end and end not in text:
        missing.append(f'end="{end}"')
    if start and not end:
        at = text.find(start)
        return ([(at + len(start), len(text))] if at >= 0 else []), missing
    if end and not start:
        at = text.find(end)
        return [(0, at if at >= 0 else len(text))], missing
    if not (start and end):
        return [(0, len(text))], missing
    parts: list[tuple[int, int]] = []
    at = text.find(start)
    if at < 0:
        parts.append((0, len(text)))
    while at >= 0:
        begin = at + len(start)
        nxt = text.find(start, begin)
        parts.append((begin, nxt if nxt >= 0 else len(text)))
        at = nxt
    spans: list[tuple[int, int]] = []
    for begin, stop in parts:
        keep = True
        k = begin
        while True:
            cut = text.find(end, k, stop)
            piece_end = cut if cut >= 0 else stop
            if keep:
                spans.append((k, piece_end))
            if cut < 0:
                break
            keep = not keep
            k = cut + len(end)
    return spans, missing


def tag_end(line: str, begin: int, quote: str = "") -> tuple[int, str]:
    """Where the ``%}`` that closes a tag starts on ``line`` (from ``begin``), outside quoted
    strings (a ``\\`` escapes the quote), and the quote still open at the end of the line
    (``quote``: the one open at its start); -1 when it does not close here. One pass."""
    if not quote and line.find('"', begin) < 0 and line.find("'", begin) < 0:
        return line.find("%}", begin), ""  # no string on it: the first %} (found in C)
    k = begin
    n = len(line)
    while k < n:
        c = line[k]
        if quote:
            if c == "\\":
                k += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "%" and k + 1 < n and line[k + 1] == "}":
            return k, ""
        k += 1
    return -1, quote


def heading_offset(lines: list[str], offset: int) -> list[str]:
    """Markdown ATX headings outside code blocks made ``offset`` levels deeper (shallower when
    negative), between 1 and 6, as the plugin's ``heading-offset`` does."""
    if not offset:
        return lines
    out: list[str] = []
    fence: Fence | None = None
    for line in lines:
        if fence is None:
            fence = fence_open(line, any_indent=True)
            stripped = line.lstrip(" ")
            hashes = len(stripped) - len(stripped.lstrip("#"))
            heading = 1 <= hashes <= 6 and len(line) - len(stripped) < 4
            if fence is None and heading and stripped[hashes : hashes + 1] in ("", " ", "\t"):
                level = min(max(hashes + offset, 1), 6)
                line = line[: len(line) - len(stripped)] + "#" * level + stripped[hashes:]
        elif closes(line, fence, any_indent=True):
            fence = None
        out.append(line)
    return out
