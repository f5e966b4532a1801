"""Search units: the sections as search ranks them.

A unit is a section, plus the tiny sections right after it that belong to it (deeper
headings with fewer than ``stub_chars`` characters of their own): generated reference
pages split one member into "Parameters", "Returns" and one-line entries, and ranked alone
each of those is a rival of whole guide sections. A page's bare title (``# Getting Started``
right above ``## Installation``) is no unit: alone, its words outranked the page's sections
on them, which carry them as title words. The shape decides, never a name.

A unit keeps its first section's id, heading and start line, ends where its last section
ends, and its text is the sections' texts joined. The lexical index and the embeddings
both read units, so they rank the same things.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from docmentor.parse.fences import Fence, as_read_text, closes, fence_open


@dataclass(slots=True)
class Unit:
    section_id: int
    document_id: int
    source: str
    path: str
    url: str
    title: str
    heading: str
    heading_path: list[str]
    level: int
    line_start: int
    line_end: int
    texts: list[str]
    indexed_at: str

    @property
    def text(self) -> str:
        return self.texts[0] if len(self.texts) == 1 else "\n\n".join(self.texts)

    def embed_text(self, code_lines: int) -> str:
        """What the embedding model reads: where the section is, then its text with each code
        block cut to its first ``code_lines`` lines (the model reads a few hundred tokens:
        prose says more per token of what a section is about), as a reader reads it
        (:func:`~docmentor.parse.fences.as_read_text`: no HTML comments or tags in prose)."""
        place = " > ".join(p for p in [self.title, *self.heading_path] if p)
        place = " > ".join(dict.fromkeys(place.split(" > ")))  # the title often opens the path too
        text = _cut_code(as_read_text(self.text), code_lines)
        return f"{place}\n{text}" if place else text

    def content_hash(self, code_lines: int) -> str:
        """Key of the unit's vector: unchanged units are never embedded again."""
        return hashlib.sha256(self.embed_text(code_lines).encode()).hexdigest()[:32]


def own_text(text: str, heading: str) -> str:
    """A section's text after its heading line (and the line of ``=`` or ``-`` under it, or
    over and under it, that marks a reST or setext heading)."""
    if heading:
        lines = text.lstrip("\n").split("\n")
        start = 1 if lines and _adornment(lines[0]) else 0
        if start < len(lines) and heading in lines[start]:
            start += 1
            if start < len(lines) and _adornment(lines[start]):
                start += 1
            return "\n".join(lines[start:]).strip()
    return text.strip()


def _adornment(line: str) -> bool:
    """A line of one punctuation character repeated: a reST heading's under- or overline."""
    mark = line.strip()
    return len(mark) >= 2 and len(set(mark)) == 1 and mark[0] in _ADORNMENT_MARKS


_ADORNMENT_MARKS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[。！？]")  # Chinese and Japanese stops need no space


def is_stub(text: str, heading: str, stub_chars: int) -> bool:
    """A reference stub: fewer than ``stub_chars`` characters of its own and no sentence
    ("- query: str", "`MatchQuery`"), unlike a short section that says something
    ("Run `pip install widget` to get it.")."""
    body = own_text(text, heading)
    return len(body) < stub_chars and _SENTENCE_END.search(body.replace("`", "")) is None


# A line a reader never sees: a reST label or hyperlink target (``.. _name:``), a substitution
# definition, a directive that renders nothing (``.. currentmodule::``, ``.. rst-class::``,
# ``.. meta::``…), a reST comment (``..`` and text with no ``::``), a page-wide field
# (``:orphan:``) or a directive's option, a MyST label (``(name)=``), a one-line HTML comment,
# an MDX import, a line of ``&nbsp;``, a Markdown link definition or ``[//]: #`` comment.
# Anchored, each alternative scanned once: linear on any line.
_INVISIBLE = re.compile(
    r"[ \t]*(?:"
    r"\.\.[ \t]+_[^:\n]*:.*"
    r"|\.\.[ \t]+\|[^|\n]+\|[ \t].*"
    r"|\.\.[ \t]+(?:py:)?(?:currentmodule|module|rst-class|highlight|default-role|meta|index|title|tags)::.*"
    r"|\.\.(?:[ \t]+(?![\[_|])(?!.*::).*)?"  # a comment (not a footnote, target or substitution)
    r"|:[\w-]+:(?:[ \t].*)?"  # a field, ``:orphan:`` (not a role: :class:`Foo` is prose)
    r"|\([^()\s]+\)="
    r"|<!--(?:(?!-->).)*-->"  # one comment, nothing beside it
    r"|import[ \t][^\n]*['\"](?:[ \t]*;)?"  # an MDX page's ESM import (`import Tabs from '@theme/Tabs';`)
    r"|&nbsp;(?:[ \t]*&nbsp;)*"  # a spacer line (no two runs of blanks side by side: linear)
    r"|\[[^\]\n]*\]:[ \t]*\S+(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?"  # a link definition
    r")[ \t]*"
)


def renders_nothing(text: str) -> bool:
    """Whether a page's text before its first heading is only markup a reader never sees
    (:data:`_INVISIBLE`, and what :func:`~docmentor.parse.fences.as_read_text` leaves out:
    tags, comments, a ``<script setup>`` block), thematic breaks and navigation (a breadcrumb
    trail: TypeDoc's pages open with two): such a preamble, ``.. _options:`` above the title, is no answer,
    and tiny, it outranked the page's real sections on the title's words. (An index built
    before keeps such a unit until its page is indexed again, or ``docmentor reindex``: the
    analyzer version was not raised for it, so readers of older indexes go on working.)"""
    return all(
        _INVISIBLE.fullmatch(line) or _BREAK.fullmatch(line) or _navigation(line)
        for line in as_read_text(text).split("\n")
        if line.strip()
    )


_BREAK = re.compile(r"[ \t]*(?:\*[ \t]*){3,}|[ \t]*(?:-[ \t]*){3,}|[ \t]*(?:_[ \t]*){3,}")  # a thematic break
_LINK_TEXT = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)")  # [text](url), linear
_CRUMB_SEPARATORS = frozenset("•·/|>›»→←<‹«-–—:")
MAX_CRUMB_WORDS = 3  # a breadcrumb's words besides its links: the page it is on


def _navigation(line: str) -> bool:
    """Whether a line is a breadcrumb trail or a page's navigation: links (at least one) and
    separators, and a few words besides (TypeDoc's ``[API Documentation](../index.md) /
    [pinia](../index.md) / MutationType``, ``[**API Documentation**](…) • **Docs**``)."""
    if "](" not in line:
        return False
    rest, links = _LINK_TEXT.subn(" ", line)
    if not links:
        return False
    words = [w for w in rest.replace("*", " ").replace("_", " ").split() if not set(w) <= _CRUMB_SEPARATORS]
    return len(words) <= MAX_CRUMB_WORDS


def build_units(rows: Iterable[Any], *, stub_chars: int) -> Iterator[Unit]:
    """Units of rows ordered by document, then section order (``Store.lexical_rows``); a
    preamble that renders nothing (:func:`renders_nothing`) is no unit, nor a page's title
    with nothing of its own above its first subsection (:func:`_only_opens`)."""
    current: Unit | None = None
    for row in rows:
        stored = row["heading_path"]
        heading_path = json.loads(stored) if isinstance(stored, str) else list(stored)
        level = int(row["level"])
        text = str(row["text"])
        heading = str(row["heading"])
        if level == 0 and not heading and renders_nothing(text):
            continue
        if current is not None and current.level == 1 and _only_opens(current, row, heading_path, level):
            current = None  # a page's bare title: its words are every section's title words
        if (
            current is not None
            and current.document_id == int(row["document_id"])
            and level > current.level >= 1
            and current.heading_path == heading_path[: len(current.heading_path)]
            and is_stub(text, heading, stub_chars)
        ):
            current.texts.append(text)
            current.line_end = max(current.line_end, int(row["line_end"]))
            continue
        if current is not None:
            yield current
        current = Unit(
            section_id=int(row["section_id"]),
            document_id=int(row["document_id"]),
            source=str(row["source"]),
            path=str(row["path"]),
            url=str(row["url"]),
            title=str(row["title"]),
            heading=heading,
            heading_path=heading_path,
            level=level,
            line_start=int(row["line_start"]),
            line_end=int(row["line_end"]),
            texts=[text],
            indexed_at=str(row["indexed_at"]),
        )
    if current is not None:
        yield current


def _only_opens(unit: Unit, row: Any, heading_path: list[str], level: int) -> bool:
    """Whether a unit is a heading with nothing under it but the sections that follow
    (``# Getting Started`` right above ``## Installation``). Only a page's title (level 1)
    is then left out: a deeper one keeps its unit (a reference page's ``### total`` above
    ``#### Summary`` is what a search for ``total`` wants; taking in the subsection instead
    cost tanstack-query 0.885 → 0.868 doc MRR, leaving every such heading out gained pydantic
    a section and lost that)."""
    return (
        len(unit.texts) == 1
        and unit.level >= 1
        and unit.document_id == int(row["document_id"])
        and level > unit.level
        and unit.heading_path == heading_path[: len(unit.heading_path)]
        and renders_nothing(own_text(unit.texts[0], unit.heading))
    )


def _cut_code(text: str, code_lines: int) -> str:
    """The text with each fenced code block cut to its first ``code_lines`` lines."""
    out: list[str] = []
    fence: Fence | None = None
    kept = 0
    for line in text.split("\n"):
        if fence is None and (fence := fence_open(line, any_indent=True)) is not None:
            kept = 0
            continue
        if fence is not None and closes(line, fence, any_indent=True):
            fence = None
            continue
        if fence is not None:
            if kept < code_lines:
                out.append(line)
            kept += 1
            continue
        out.append(line)
    return "\n".join(out)
