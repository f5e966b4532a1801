"""A Markdown page that is only a table of contents: mdBook's and GitBook's ``SUMMARY.md``, a
folder's index that lists its pages and says nothing else.

Such a page holds every page's title and none of their text: searched, it answers a question
with a list of links to the answer (a tour of the Rust book: ``SUMMARY.md`` ranked first for
"get the text a user types into a variable", above the chapter that shows it). It is kept for
``get`` and left out of search, as an llms.txt's own table of contents is.
"""

from __future__ import annotations

import re

#: links a page lists, at the least, to be a table of contents (a short "see also" list is not)
MIN_LINKS = 5
# a line that is one link, in a list item or bare: `- [Title](page.md)`, `1. [Title]()`,
# `[Foreword](foreword.md)`; possessive, disjoint parts: linear
_LINK_LINE = re.compile(r"[ \t]*+(?:[-*+]|\d{1,9}[.)])?+[ \t]*+\[[^\[\]\n]*+\]\([^()\s]*+\)[ \t]*+")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_BREAK = re.compile(r" {0,3}(?:(?:-[ \t]*+){3,}+|(?:\*[ \t]*+){3,}+|(?:_[ \t]*+){3,}+)")


def table_of_contents(text: str) -> bool:
    """Whether the page, past its front matter, is headings, thematic breaks and at least
    :data:`MIN_LINKS` lines that are each one link (twice as many as its headings: a FAQ whose
    questions are headings, each answered by a link, says something), and nothing else."""
    lines = text.splitlines()
    skip = _front_matter_end(lines)
    links = headings = 0
    for line in lines[skip:]:
        if not line.strip() or _BREAK.fullmatch(line):
            continue
        if _HEADING.match(line):
            headings += 1
        elif _LINK_LINE.fullmatch(line) is None:
            return False
        else:
            links += 1
    return links >= max(MIN_LINKS, 2 * headings)


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after a YAML or TOML front matter (0 without one). Its
    delimiters are enough here: what it says does not matter, and parsing the YAML of every
    page cost a scan of tanstack-query's 496 pages 84 ms."""
    if not lines or lines[0].rstrip() not in ("---", "+++"):
        return 0
    close = ("---", "...") if lines[0].rstrip() == "---" else ("+++",)
    return next((k + 1 for k in range(1, len(lines)) if lines[k].rstrip() in close), 0)
