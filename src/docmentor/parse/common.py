"""Helpers shared by the Markdown and reST sectioners."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from docmentor.models import Section

_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR are line breaks too (markdown-it and editors count them so)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


# a terminal's escape sequences (colours in a pasted test run: `\x1b[32m✓\x1b[39m`): CSI, OSC
# (ended by BEL or ST, at most to the line's end), a character set's choice (`\x1b(B`), a
# stray ESC alone (not the letter after it); possessive classes: linear
_TERMINAL = re.compile(r"\x1b(?:\[[0-?]*+[ -/]*+[@-~]|\][^\x07\x1b\n]*+(?:\x07|\x1b\\)?|[()*+][0-~])?")


def without_terminal_codes(text: str) -> str:
    """``text`` without a terminal's escape sequences: a pasted or included console output
    (`.ansi` files) reads as the terminal shows it, not as `[32m✓[39m`."""
    return _TERMINAL.sub("", text) if "\x1b" in text else text


def slugify(text: str) -> str:
    """Heading anchor as GitHub and MkDocs (toc) compute it, near enough for links."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    text = re.sub(r"`|\*\*|__", "", text)
    text = _SLUG_DROP.sub("", text)
    return re.sub(r"\s+", "-", text).strip("-")


def mkdocs_numbered(anchor: str) -> str | None:
    """A repeated heading's anchor as stored (MkDocs' `footer_1`) for the form GitHub,
    Docusaurus and Starlight link it by (`footer-1`); None for an anchor without such a number."""
    stem, dash, number = anchor.rpartition("-")
    return f"{stem}_{number}" if dash and stem and number.isdigit() else None


def map_line(line_map: list[int] | None, line: int) -> int:
    """Original-file line for a 1-based line of the served text."""
    if not line_map:
        return line
    idx = min(max(line, 1), len(line_map)) - 1
    return line_map[idx]


CODE_LINE_REACH = 40  # lines after a block's opening line where its code may start


def code_start_line(lines: Sequence[str], line: int, code: str) -> int | None:
    """The 1-based line where a code block opening at ``line`` starts its code, when that is
    not the next line (a reST directive's options and blank line between; a Markdown indented
    block, whose code starts on its own line); None otherwise or when it cannot be told."""
    first = next((c.strip() for c in code.split("\n") if c.strip()), "")
    if not first:
        return None
    # from the block's own line (a Markdown indented block's code starts on it)
    for k in range(max(line - 1, 0), min(line + CODE_LINE_REACH, len(lines))):
        if lines[k].strip() == first:
            return k + 1 if k + 1 != line + 1 else None
    return None


def build_sections(
    lines: list[str],
    heads: list[tuple[int, int, str]],
    *,
    line_map: list[int] | None,
    title: str,
) -> list[Section]:
    """Cut ``lines`` into sections at ``heads`` (0-based line, level, text).

    A section's own text runs from its heading to the next heading of any level; the
    preamble (text before the first heading) is a section with an empty heading when
    it holds any text.
    """
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    bounds = [*heads, (len(lines), 0, "")]
    first = heads[0][0] if heads else len(lines)
    pre = lines[:first]
    if any(s.strip() for s in pre):
        start, end = _trim(pre, 0)
        sections.append(
            Section(
                heading="",
                heading_path=[],
                level=0,
                line_start=map_line(line_map, start + 1),
                line_end=map_line(line_map, end + 1),
                text="\n".join(lines[start : end + 1]),
            )
        )
    seen: dict[str, int] = {}
    for i, (lineno, level, text) in enumerate(heads):
        nxt = bounds[i + 1][0]
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        body = lines[lineno:nxt]
        _, end = _trim(body, lineno)
        slug = slugify(text)
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        sections.append(
            Section(
                heading=text,
                heading_path=[h for _, h in stack],
                level=level,
                line_start=map_line(line_map, lineno + 1),
                line_end=map_line(line_map, end + 1),
                text="\n".join(lines[lineno : end + 1]),
                anchor=slug if n == 0 else f"{slug}_{n}",
            )
        )
    del title
    return sections


def _trim(block: list[str], offset: int) -> tuple[int, int]:
    """First and last non-blank 0-based line numbers of a block (offset added)."""
    start, end = 0, len(block) - 1
    while start < end and not block[start].strip():
        start += 1
    while end > start and not block[end].strip():
        end -= 1
    return offset + start, offset + max(end, start)


# a label line that names the section after it: reST's `.. _calling-retry:`, MyST's `(upserts)=`
REST_LABEL = re.compile(r"[ \t]*\.\.[ \t]+_[^:`\n]+:[ \t]*")
MYST_LABEL = re.compile(r"[ \t]*\([^()\s]+\)=[ \t]*")
# Python-Markdown's attr_list at a heading's end: `{#id}`, `{: #id .class }`, `{ .lg .middle }`,
# `{ id=navigation-path }`, `{ data-toc-label="Version" #x }`, `{ data-search-exclude }` (a
# bare word only when hyphenated: `## Use {name}` stays a title's words)
ATTR_LIST = re.compile(
    r"(?<![ \t])[ \t]*\{:?[ \t]*(?:[#.]|[A-Za-z][\w-]*=|[A-Za-z]\w*-[\w-]*(?=[ \t}]))[^{}\n]*\}[ \t]*$"
)  # one start per run of blanks
# the id an attr_list gives: `#id` (`#9.5.15` too) or `id=value`, quoted or not; a quoted value
# of another key (`title="see #b"`) is read whole, so that its words give no id
_ATTR_ID = re.compile(
    r"""(?<![^\s{:])(?:#([\w.:-]+)|id=(?:"([^"\n]*)"|'([^'\n]*)'|([^\s}"']+)))|[\w-]+=(?:"[^"\n]*"|'[^'\n]*')"""
)


def attr_list_id(attrs: str) -> str | None:
    """The id an attr_list (:data:`ATTR_LIST`'s match) gives the heading, if any: the last
    one, as Python-Markdown keeps it (`{#a id=b}` is `b`)."""
    found = None
    for m in _ATTR_ID.finditer(attrs):
        given = next((g for g in m.groups() if g), None)
        if given is not None:
            found = given
    return found


# a line that is only an HTML comment, at the margin (an indented one is a literal block's);
# linear: no nested quantifier
COMMENT_LINE = re.compile(r"<!--(?:[^-]|-(?!->))*-->[ \t]*")
MAX_COMMENT_LINES = 200  # an HTML comment over more lines than this is read as text


def comment_span(lines: Sequence[str], i: int) -> int:
    """How many lines an HTML comment opening at the margin of ``lines[i]`` and closing on a
    later line takes (a page's commented-out components: `<!--` / `<VueSchoolLink …/>` /
    `-->`): 0 when none opens there, it closes on its own line (:data:`COMMENT_LINE`), it
    never closes within :data:`MAX_COMMENT_LINES`, or text follows its end."""
    line = lines[i]
    if not line.startswith("<!--") or "-->" in line[4:]:
        return 0
    for j in range(i + 1, min(len(lines), i + MAX_COMMENT_LINES)):
        end = lines[j].find("-->")
        if end >= 0:
            return j - i + 1 if not lines[j][end + 3 :].strip() else 0
    return 0


# a Markdown link reference definition (`[cite]: https://…`, `[x]: <url> "title"`): what a
# link elsewhere points at, never shown on the rendered page (a footnote `[^1]: …` is shown)
# (its destination, then at most a quoted title: `[Note]: the API changed` is a paragraph)
LINK_DEFINITION = re.compile(
    r" {0,3}\[(?!\^)[^\[\]\n]+\]:[ \t]*(?:<[^<>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*"
)
# a label line, reST's `.. _tutorial_inserting_orm:` or MyST's `(label)=` (the name: group 1 or 2):
# a link target, not text
LABEL_LINE = re.compile(r"[ \t]*+(?:\.\.[ \t]++_([^:`\n]++):|\(([^()\s]++)\)=)[ \t]*+")


def labelled_start(lines: Sequence[str], start: int, floor: int, label: re.Pattern[str]) -> int:
    """Where the section whose heading starts at line ``start`` starts: at the ``label`` lines
    right above its heading (blank lines between), which name it for cross-references, not at
    the end of the section before. ``floor``: the first line a section may start at."""
    first = start
    k = start - 1
    while k >= floor and (not lines[k].strip() or label.fullmatch(lines[k])):
        if lines[k].strip():
            first = k
        k -= 1
    return first
