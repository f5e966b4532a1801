"""Parse an llms.txt (https://llmstxt.org): its title, summary, details and sections of links.

Lenient where real files are (nested or numbered lists, fenced code ignored, a file without
H2s); lines that look like broken links become warnings. ``docmentor.sources.llmstxt``
decides what of it to fetch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin

from docmentor.parse.fences import Fence, closes, fence_open

# Every pattern here reads someone else's text, so each runs in linear time on any line: no
# two quantifiers can trade the same characters (possessive ``*+`` where they could), and
# the headings are read with string methods (the pattern ``^#\s+(.+?)\s*#*\s*$`` was cubic
# on a line of spaces).
# CommonMark allows balanced brackets in a link's text and balanced parentheses in its URL
# (``[Array[T]](array.md)``, ``page_(v2).md``): one level of each is read. Each repetition's
# alternatives start with different characters and are possessive: linear time.
_LINK = re.compile(
    r"^\s*+(?:(?:[-*+]|\d++[.)])\s*+)?\[(?P<title>(?:[^\[\]\\]|\\.|\[[^\[\]]*+\])*+)\]"
    r"\(\s*+(?:(?P<url><[^>]*+>|(?:[^()\s]|\([^()\s]*+\))++)(?:\s++(?:\"[^\"]*+\"|'[^']*+'))?|(?<=\s)(?:\"[^\"]*+\"|'[^']*+'))?"
    r"\s*+\)(?P<rest>.*)$"
)
# what the pattern before read, tried when _LINK does not match: an unbalanced `[` in the text
# (`- [a [b](x.md)`), which that one took as text (a review: such pages were no longer fetched)
_LINK_PLAIN = re.compile(
    r"^\s*+(?:(?:[-*+]|\d++[.)])\s*+)?\[(?P<title>[^\]]*+)\]"
    r"\(\s*+(?:(?P<url><[^>]*+>|[^)\s]++)(?:\s++(?:\"[^\"]*+\"|'[^']*+'))?|(?<=\s)(?:\"[^\"]*+\"|'[^']*+'))?"
    r"\s*+\)(?P<rest>.*)$"
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_NOTES_SEP = re.compile(r"^\s*[:\-\u2013\u2014]\s*")


@dataclass(frozen=True, slots=True)
class LlmsLink:
    title: str
    url: str  # absolute, fragment removed
    notes: str | None
    optional: bool
    section: str
    line: int


@dataclass(frozen=True, slots=True)
class LlmsSection:
    name: str
    links: tuple[LlmsLink, ...]

    @property
    def optional(self) -> bool:
        return self.name.strip().lower() == "optional"


@dataclass(frozen=True, slots=True)
class ParsedLlmsTxt:
    title: str | None
    summary: str | None
    details: str
    sections: tuple[LlmsSection, ...]
    warnings: tuple[str, ...] = ()

    @property
    def links(self) -> list[LlmsLink]:
        return [link for section in self.sections for link in section.links]


def parse_llms_txt(text: str, base_url: str) -> ParsedLlmsTxt:
    """Parse llms.txt Markdown; relative link URLs are resolved against ``base_url``.

    Lenient where real files are: links may sit in nested or numbered lists, text in
    fenced code is ignored, and a file without any H2 keeps its list links in a
    section named ``""``. Lines that look like broken links become warnings.
    """
    title: str | None = None
    summary: list[str] = []
    details: list[str] = []
    warnings: list[str] = []
    sections: list[tuple[str, list[LlmsLink]]] = []
    preamble: list[LlmsLink] = []
    in_summary = False  # just after the H1, where the blockquote summary may be
    fence: Fence | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        opens = fence_open(line, any_indent=True) if fence is None else None
        if fence is not None or opens is not None:
            if opens is not None:
                fence = opens
            elif fence is not None and closes(line, fence, any_indent=True):
                fence = None
            if not sections:
                details.append(line)
            in_summary = False
            continue
        if (h2 := _heading(line, 2)) is not None:
            sections.append((h2, []))
            in_summary = False
            continue
        if not sections and title is None and (h1 := _heading(line, 1)) is not None:
            title = h1
            in_summary = True
            continue
        if in_summary:
            if line.lstrip().startswith(">"):
                summary.append(line.lstrip()[1:].strip())
                continue
            if not line.strip() and not summary:
                continue
            in_summary = False
        if not sections:
            details.append(line)
        section_name = sections[-1][0] if sections else ""
        link = _parse_link_line(line, lineno, base_url, section_name, warnings)
        if link is not None:
            (sections[-1][1] if sections else preamble).append(link)
    if title is None:
        warnings.append("the llms.txt has no H1 title (its first line should be # NAME)")
    built = [LlmsSection(name, tuple(links)) for name, links in sections]
    if not built and preamble:
        built = [LlmsSection("", tuple(preamble))]
    return ParsedLlmsTxt(
        title=title,
        summary=" ".join(s for s in summary if s) or None,
        details="\n".join(details).strip(),
        sections=tuple(built),
        warnings=tuple(warnings),
    )


def _heading(line: str, level: int) -> str | None:
    r"""The stripped title of an ATX heading of ``level`` (``# Title``, ``## Title ##``), else None.

    What ``^#{level}\s+(.+?)\s*#*\s*$`` matched, stripped, in linear time: at least one
    space after the marks, a title of at least one character, a closing run of ``#`` dropped.
    """
    marks = "#" * level
    if not line.startswith(marks):
        return None
    rest = line[level:]
    if len(rest) < 2 or not rest[0].isspace():
        return None
    body = rest.lstrip()
    if not body:  # spaces only: the title was one of them
        return ""
    core = body.rstrip().rstrip("#").rstrip()
    return body[: max(len(core), 1)].strip()


def _parse_link_line(
    line: str, lineno: int, base_url: str, section: str, warnings: list[str]
) -> LlmsLink | None:
    match = _LINK.match(line) or _LINK_PLAIN.match(line)
    if match is None:
        if _LIST_ITEM.match(line) and ("](" in line or line.split(maxsplit=1)[-1].startswith("[")):
            warnings.append(f"line {lineno}: malformed link skipped: {line.strip()[:80]}")
        return None
    raw = (match.group("url") or "").strip()
    if raw.startswith("<") and raw.endswith(">"):
        raw = raw[1:-1].strip().replace(" ", "%20")
    if not raw or raw.startswith("#"):
        warnings.append(f"line {lineno}: link without a document URL skipped: {line.strip()[:80]}")
        return None
    url = urldefrag(urljoin(base_url, raw)).url
    notes = _NOTES_SEP.sub("", match.group("rest"), count=1).strip() or None
    return LlmsLink(
        title=match.group("title").strip(),
        url=url,
        notes=notes,
        optional=section.strip().lower() == "optional",
        section=section,
        line=lineno,
    )
