"""A section's text cut into blocks for the digest: its own heading found and dropped, fenced
code kept whole (an unclosed fence closed), headings demoted below the digest's ``###``,
paragraphs; and the offsets where a paragraph may be cut when the section is trimmed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from docmentor.assemble.models import Candidate
from docmentor.parse.common import COMMENT_LINE, LABEL_LINE, comment_span
from docmentor.parse.fences import Fence, closes, fence_open
from docmentor.parse.markdown import myst_directive
from docmentor.parse.rst import roles_as_code
from docmentor.parse.shown_code import code_as_shown

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RST_ADORN = re.compile(r"^([=\-~^\"'`#*+:._<>])\1+[ \t]*$")
_RST_DIRECTIVE_NAME = re.compile(r"[ \t]*+\.\.[ \t]++([\w-]++)::")
#: sphinx.ext.doctest's set-up and clean-up code: run around the page's doctests, never shown
HIDDEN_DIRECTIVES = frozenset({"testsetup", "testcleanup"})
_RST_EXPLICIT = re.compile(r"[ \t]*+\.\.(?:[ \t]|$)")  # a directive, comment or target: `.. note::`
_NOT_HEADING_TEXT = re.compile(r"^\s*(?:[-*+>|]|\d+[.)])(?:\s|$)")
_LIST_LINE = re.compile(r"[ \t]*(?:[-*+>|]|\d+[.)])\s")
_SENTENCE_END = re.compile(r"[.!?…][\"'’”)\]*_]*(?=\s)")


@dataclass(slots=True)
class Block:
    """A unit of a section's body: a fenced code block (atomic), a heading, or a paragraph."""

    kind: Literal["code", "heading", "para"]
    text: str
    first: int  # 0-based index of its first line in the candidate's text
    last: int  # … and of its last line
    cuttable: bool = False  # prose that may be cut at sentence boundaries


@dataclass(slots=True)
class Prepared:
    candidate: Candidate
    blocks: list[Block]
    body: str  # the whole body as printed when untrimmed ("" when the section has no text)
    canonical: float | None


def _find_close(lines: list[str], start: int, fence: Fence) -> int | None:
    for j in range(start, len(lines)):
        if closes(lines[j], fence, any_indent=True):
            return j
    return None


def _own_heading(lines: list[str], heading: str) -> tuple[int, int | None]:
    """Index of the first body line after the section's own heading, and that heading's level."""
    i = 0
    # blank lines, and the labels that name the section (`.. _helpers:`, `(helpers)=`) above it
    while i < len(lines) and (not lines[i].strip() or LABEL_LINE.fullmatch(lines[i])):
        i += 1
    if i >= len(lines):
        return i, None
    first = lines[i]
    m = _ATX.match(first)
    if m:
        return i + 1, len(m.group(1))
    title = heading.strip()
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    # reST over- and underlined title: ====\nTitle\n====
    if (
        title
        and _RST_ADORN.match(first)
        and i + 2 < len(lines)
        and lines[i + 1].strip() == title
        and lines[i + 2].strip() == first.strip()
    ):
        return i + 3, 1
    if title and first.strip() == title and (_SETEXT.match(nxt) or _RST_ADORN.match(nxt)):
        return i + 2, 1 if nxt.strip()[0] == "=" else 2
    return i, None


# a whole line that is an HTML comment (`<!-- ::start:framework -->`); linear: no nested quantifier


def _demoted(text: str, level: int, offset: int) -> str:
    return f"{'#' * min(6, max(4, level + offset))} {text.strip()}"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _rst_body_end(lines: list[str], start: int, indent: int) -> int:
    """The index after the lines from ``start`` that are blank or indented deeper than
    ``indent`` (a reST directive's or literal block's body), trailing blank lines left out."""
    j = start
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent):
        j += 1
    while j > start and not lines[j - 1].strip():
        j -= 1
    return j


def _split_blocks(lines: list[str], start: int, own_level: int | None, *, rst: bool = False) -> list[Block]:
    """Cut the body into blocks; headings inside it are demoted below the digest's ``###``.
    In reST (``rst``) a directive with its indented body (``.. doctest::``, ``.. note::``) and a
    literal block after a paragraph ending ``::`` are kept whole, as fenced code is."""
    offset = 3 - (own_level if own_level is not None else 0)
    blocks: list[Block] = []
    para: list[tuple[int, str]] = []

    def flush() -> None:
        if para:
            # a reST role as Sphinx shows it, as snippets show it (`:func:`~flask.abort`` → `abort`)
            texts = [roles_as_code(t) if rst and ":`" in t else t for _, t in para]
            code_like = all(t.startswith(("    ", "\t")) for t in texts) or texts[0].lstrip().startswith("|")
            blocks.append(Block("para", "\n".join(texts), para[0][0], para[-1][0], cuttable=not code_like))
            para.clear()

    i, n = start, len(lines)
    literal_after: int | None = None  # reST: the indent of a paragraph that ended with "::"
    while i < n:
        line = lines[i]
        if not line.strip():
            if para and para[-1][1].rstrip().endswith("::"):
                literal_after = _indent(para[0][1])
            flush()
            i += 1
            continue
        if COMMENT_LINE.fullmatch(line) or (("_" in line or ")=" in line) and LABEL_LINE.fullmatch(line)):
            # a line only an HTML comment, a label (`.. _x:`, `(x)=`): nothing a reader sees
            flush()  # (a paragraph around it ends there: its lines stay the ones it shows)
            i += 1
            continue
        if not rst and "<!--" in line and (span := comment_span(lines, i)):
            flush()  # a comment over several lines (commented-out components): not on the page
            i += span
            continue
        explicit = rst and _RST_EXPLICIT.match(line) is not None
        if explicit or (rst and literal_after is not None and not para and _indent(line) > literal_after):
            # a directive and its body, or a `::` paragraph's literal block: one block, never cut
            flush()
            end = _rst_body_end(
                lines, i + 1, _indent(line) if explicit or literal_after is None else literal_after
            )
            hidden = (
                explicit
                and (m := _RST_DIRECTIVE_NAME.match(line)) is not None
                and m.group(1) in HIDDEN_DIRECTIVES
            )
            if not hidden:  # a `.. testsetup::` is never shown
                blocks.append(Block("code", "\n".join(lines[i:end]), i, end - 1))
            literal_after = None
            i = end
            continue
        literal_after = None
        fence = fence_open(line, any_indent=True)
        if fence is not None:
            close = _find_close(lines, i + 1, fence)
            heading_text = para[-1][1] if para else ""
            if (
                close is None
                and heading_text
                and not _NOT_HEADING_TEXT.match(heading_text)
                and _RST_ADORN.match(line)
            ):
                # a reST underline made of fence characters (``~~~~``), not a code fence
                idx, _ = para.pop()
                flush()
                blocks.append(Block("heading", _demoted(heading_text, 3, offset), idx, i))
                i += 1
                continue
            flush()
            end = close if close is not None else n - 1
            if myst_directive(fence.info) in HIDDEN_DIRECTIVES:
                i = end + 1  # sphinx.ext.doctest's set-up: run before the page's doctests, never shown
                continue
            # the code as the page shows it: no twoslash setup above `// ---cut---`, no
            # `// highlight-next-line` (parse.shown_code)
            inside = code_as_shown(fence.info, lines[i + 1 : end if close is not None else n])
            body = [
                line,
                *inside,
                lines[end] if close is not None else f"{fence.indent}{fence.char * fence.length}",
            ]
            blocks.append(Block("code", "\n".join(body), i, end))
            i = end + 1
            continue
        m = _ATX.match(line)
        if m:
            flush()
            if m.group(2):
                blocks.append(Block("heading", _demoted(m.group(2), len(m.group(1)), offset), i, i))
            i += 1
            continue
        if para and _SETEXT.match(line) and not _NOT_HEADING_TEXT.match(para[-1][1]):
            idx, heading_text = para.pop()
            flush()
            level = 1 if line.strip()[0] == "=" else 2
            blocks.append(Block("heading", _demoted(heading_text, level, offset), idx, i))
            i += 1
            continue
        para.append((i, line))
        i += 1
    flush()
    return blocks


def prepare(c: Candidate, canonical: float | None) -> Prepared:
    lines = c.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start, level = _own_heading(lines, c.heading)
    blocks = _split_blocks(lines, start, level, rst=c.path.lower().endswith((".rst", ".rest")))
    while blocks and blocks[-1].kind == "heading":
        blocks.pop()  # a trailing heading introduces nothing
    return Prepared(c, blocks, "\n\n".join(b.text for b in blocks), canonical)


def sentence_cuts(text: str) -> list[int]:
    """Offsets where a paragraph may be cut: after a sentence, or before a list/table/quote line."""
    cuts = {m.end() for m in _SENTENCE_END.finditer(text)}
    cuts.update(m.start() for m in re.finditer("\n", text) if _LIST_LINE.match(text, m.end()))
    # never cut inside an inline code span
    return sorted(p for p in cuts if 0 < p < len(text.rstrip()) and text.count("`", 0, p) % 2 == 0)
