"""Code fences, line by line, as CommonMark reads them.

An opening fence is a run of at least three backticks or tildes, indented by at most three
spaces, followed by an info string (which, after backticks, may not contain a backtick:
```` ```x``` is code ```` is inline code, not a fence). The fence is closed by a line
holding only a run of the same character at least as long (indented by at most three
spaces, spaces and tabs after it), or by the end of the document.

``any_indent=True`` accepts fences at any indentation: a line-by-line reader that does not
track containers cannot know that a fence indented by four spaces sits in a list item, a
MkDocs content tab (``=== "Sync"``) or an admonition, where it is still a fence.

Plain string operations, no regular expressions: linear in the line's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docmentor.parse.common import LINK_DEFINITION
from docmentor.parse.shown_code import code_as_shown, may_hide_code

__all__ = [
    "Fence",
    "as_read_text",
    "closes",
    "code_spans",
    "fence_open",
    "outside_fences",
    "without_html_comments",
]

_FENCE_CHARS = "`~"


@dataclass(frozen=True, slots=True)
class Fence:
    """An open fence: its character, run length, indentation and info string."""

    char: str  # "`" or "~" (a MyST colon fence, ":", closes the same way)
    length: int  # the run's length; a closing run is at least as long
    indent: str  # the whitespace before the run
    info: str  # the info string, stripped ("python", "{code-block} python", "")


def fence_open(line: str, *, any_indent: bool = False) -> Fence | None:
    """The fence ``line`` opens, or None when it is not an opening fence line."""
    body = line.lstrip(" \t") if any_indent else line.lstrip(" ")
    indent = len(line) - len(body)
    if not body or body[0] not in _FENCE_CHARS or (not any_indent and indent > 3):
        return None
    char = body[0]
    length = len(body) - len(body.lstrip(char))
    if length < 3:
        return None
    info = body[length:]
    if char == "`" and "`" in info:
        return None  # an inline code span
    return Fence(char, length, line[:indent], info.strip())


def closes(line: str, fence: Fence, *, any_indent: bool = False) -> bool:
    """Whether ``line`` closes ``fence``: only a run of its character, at least as long."""
    body = line.lstrip(" \t") if any_indent else line.lstrip(" ")
    if not any_indent and len(line) - len(body) > 3:
        return False
    rest = body.lstrip(fence.char)
    return len(body) - len(rest) >= fence.length and not rest.strip(" \t\r\n")


def outside_fences(text: str) -> str:
    """``text`` without its fenced code blocks (fences included; inline code is kept)."""
    out: list[str] = []
    fence: Fence | None = None
    for line in text.split("\n"):
        if fence is None:
            fence = fence_open(line, any_indent=True)
            if fence is None:
                out.append(line)
        elif closes(line, fence, any_indent=True):
            fence = None
    return "\n".join(out)


def without_html_comments(text: str) -> str:
    """``text`` without the HTML comments of its prose (``<!-- markdownlint-disable … -->``,
    ``<!-- old anchor … -->``): what a reader of the rendered page never sees. As CommonMark
    reads them: a comment that opens a line (after at most three spaces) runs until its
    ``-->``, over lines, or to the end of the text; one inside a line is a comment only when
    it closes there; inline code (`` `<!--truncate-->` ``) and fenced code are code. One pass:
    linear."""
    return _markup_out(text, tags=False)


def _markup_out(text: str, *, tags: bool) -> str:
    """:func:`without_html_comments`, and with ``tags`` the tags of the prose too, in one pass."""
    shown = tags and may_hide_code(text)
    if "<!--" not in text and not (tags and ("<" in text or "]:" in text)) and not shown:
        return text
    out: list[str] = []
    fence: Fence | None = None
    code: list[str] = []  # the open block's lines, when they are read as shown
    hidden = False  # inside a comment that began on an earlier line
    raw_end = ""  # inside a <script> or <style> block: the closing tag that ends it
    for line in text.split("\n"):
        if fence is not None:
            if closes(line, fence, any_indent=True):
                out += [*(code_as_shown(fence.info, code) if shown else code), line]
                fence, code = None, []
            else:
                code.append(line)
            continue
        if raw_end:
            if raw_end in line.lower():
                raw_end = ""
            continue
        if tags and not hidden:  # inside an HTML comment, `<script>` is the comment's text
            raw_end = _raw_block(line)
            if raw_end:
                if raw_end in line.lower():
                    raw_end = ""
                continue
        if hidden:
            end = line.find("-->")
            if end < 0:
                continue
            hidden, line = False, line[end + 3 :]
            if not line.strip():
                continue
        if "<!--" not in line:
            fence = fence_open(line, any_indent=True)
            if tags and fence is None and "]:" in line and LINK_DEFINITION.fullmatch(line):
                continue  # a link's destination, not shown on the page
            out.append(_tags_out(line) if tags and fence is None and "<" in line else line)
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent <= 3 and line.startswith("<!--", indent):  # an HTML block: to its `-->`
            end = line.find("-->", indent + 4)
            if end < 0:
                hidden = True
                continue
            line = line[:indent] + line[end + 3 :]
            if not line.strip():
                continue
        line = _inline_comments_out(line)
        out.append(_tags_out(line) if tags and "<" in line else line)
    if fence is not None:  # a block left open: to the text's end
        out += code_as_shown(fence.info, code) if shown else code
    return "\n".join(out)


def _raw_block(line: str) -> str:
    """The closing tag of the ``<script>`` or ``<style>`` block ``line`` opens, as CommonMark
    reads one (indented by at most three spaces, the name followed by a space, ``>`` or the
    line's end: VitePress' ``<script setup>``); "" when it opens none."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith("<"):
        return ""
    lowered = body[:8].lower()
    for name in ("script", "style"):
        if lowered.startswith("<" + name):
            after = body[1 + len(name) : 2 + len(name)]
            if after in ("", " ", "\t", ">"):
                return f"</{name}>"
    return ""


_BACKTICKS = re.compile(r"`+")


def code_spans(line: str) -> list[tuple[str, bool]]:
    """``line`` in pieces, each with whether it is a code span: as CommonMark pairs them, a run
    of backticks closed by the next run of the same length (```` ``<Tabs>`` ````), an unclosed
    run being text. Linear: each run's closer is found from a table built right to left."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    closer: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for k in range(len(runs) - 1, -1, -1):
        size = runs[k][1] - runs[k][0]
        closer[k] = last.get(size)
        last[size] = k
    pieces: list[tuple[str, bool]] = []
    at = k = 0
    while k < len(runs):
        end = closer[k]
        if end is None:
            k += 1
            continue
        pieces += [(line[at : runs[k][0]], False), (line[runs[k][0] : runs[end][1]], True)]
        at, k = runs[end][1], end + 1
    pieces.append((line[at:], False))
    return pieces


def _inline_comments_out(line: str) -> str:
    """A line without the comments that open and close in it, outside its code spans."""
    if "<!--" not in line:
        return line
    parts = line.split("`")
    for k in range(0, len(parts), 2):  # outside inline code
        segment = parts[k]
        kept: list[str] = []
        at = 0
        while True:
            start = segment.find("<!--", at)
            end = segment.find("-->", start + 4) if start >= 0 else -1
            if end < 0:
                kept.append(segment[at:])
                break
            kept.append(segment[at:start])
            at = end + 3
        parts[k] = "".join(kept)
    return "`".join(parts)


# an HTML or JSX tag on one line (`<TabItem value="npm" label="npm">`, `</Tabs>`, `<img src=…/>`):
# a name, then anything but angle brackets; linear (one pass, no nested quantifiers)
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s[^<>\n]*)?/?>")


# a site component with its text ending a heading (VitePress' `<Version>4.1.0</Version>`,
# `<Badge type="tip">beta</Badge>`): a badge beside the title; each try scans to the next `<`
# at most: linear
_TRAILING_COMPONENT = re.compile(
    r"<(?P<name>[A-Z][\w$.]*+)(?:[ \t][^<>\n]*+)?>[^<\n]*+</(?P=name)[ \t]*+>[ \t]*+\Z"
)
MAX_BADGES = 4  # components taken off one heading's end (each a search of the heading)
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}+")


def without_badges(heading: str) -> str:
    """A heading's text without the components that end it (`mockThrow <Version>4.1.0</Version>
    <Badge>advanced</Badge>` → `mockThrow`): badges beside the title. A component inside the
    title (`Use <Term>SSR</Term> mode`) or making the whole title is its text, and stays."""
    for _ in range(MAX_BADGES):
        m = _TRAILING_COMPONENT.search(heading) if "</" in heading else None
        if m is None or not heading[: m.start()].strip():
            break
        heading = heading[: m.start()].rstrip()
    return heading


def line_as_shown(line: str) -> str:
    """A line of prose (not code) as the rendered page shows it: without its HTML or JSX
    tags outside code spans (a tag's ``label`` stays, :func:`as_read_text` reads them so), a
    heading line also without the badges that end it (:func:`without_badges`); the blanks a
    tag leaves are one. A line of only tags is empty."""
    if "<" not in line:
        return line
    body = line.lstrip(" #")
    shown = line[: len(line) - len(body)] + without_badges(body) if line.lstrip().startswith("#") else line
    shown = _tags_out(shown)
    if shown == line:
        return line
    indent = line[: len(line) - len(line.lstrip())]
    return indent + _SPACES.sub(" ", shown.strip())


def as_read_text(text: str) -> str:
    """``text`` as a reader of the rendered page reads it, for the index and the embeddings:
    without its prose's HTML comments (:func:`without_html_comments`) and without the HTML or
    JSX tags around its prose (`<Tabs>`, `<div align="center">`: their names and attributes
    are markup, not words of the page; their text stays). Code — fenced blocks and inline
    code spans (`Promise<T>`) — is kept as the page shows it
    (:func:`~docmentor.parse.shown_code.code_as_shown`: no twoslash setup, no magic comments)."""
    return _markup_out(text, tags=True)


def _tags_out(line: str) -> str:
    """A line of prose without its tags, outside its code spans; a tag's ``label`` is the
    text a reader sees (Docusaurus' ``<TabItem value="zod" label="Zod">``: the tab's title)."""
    return "".join(p if code else _TAG.sub(_label, p) for p, code in code_spans(line))


# a tag's `label` attribute, the one a reader sees as text (a tab's title); a quoted value on
# one line, linear
_LABEL = re.compile(r"""(?<![\w-])label=(?:"([^"\n]*)"|'([^'\n]*)')""")


def tag_label(tag: str) -> str:
    """The text of a tag's ``label`` attribute (Docusaurus' ``<TabItem value="zod" label="Zod">``,
    MDX's ``<TabItem label="npm">``: the tab's title), stripped; "" without one."""
    m = _LABEL.search(tag)
    return (m.group(1) or m.group(2) or "").strip() if m is not None else ""


def _label(tag: re.Match[str]) -> str:
    label = tag_label(tag.group(0))
    return f" {label} " if label else " "
