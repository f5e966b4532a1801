"""Checks on the page's structure and wording: headings, placeholders, terminology."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from docmentor.clarity.checks._page import page_of, shorten
from docmentor.clarity.checks._registry import check
from docmentor.clarity.models import CheckedDocument, Issue
from docmentor.models import Section
from docmentor.parse.common import LABEL_LINE

_PLACEHOLDER = re.compile(r"(?<![\w-])(TODO|FIXME|TBD|XXX)(?![\w-])|\blorem\s+ipsum\b", re.IGNORECASE)
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
# A word as written in prose: not part of a dotted name, path, identifier or call.
_WORD = re.compile(r"(?<![\w./\\@#$%&=~-])([A-Za-z][A-Za-z0-9]*)(?![\w/\\(@=~-]|\.[A-Za-z0-9])")


def _body_empty(section: Section) -> bool:
    lines = section.text.split("\n")
    while lines and (not lines[0].strip() or LABEL_LINE.fullmatch(lines[0])):
        lines = lines[1:]  # the labels naming it, above its heading
    skip = 1
    if len(lines) > 1 and not lines[0].lstrip().startswith("#") and _SETEXT.match(lines[1]):
        skip = 2
    body = _COMMENT.sub("", "\n".join(lines[skip:]))
    return not body.strip()


def _has_body(section: Section) -> bool:
    if section.heading.startswith("::: "):  # mkdocstrings' heading form: the API's rendered docs
        return True
    if section.level > 0:
        return not _body_empty(section)
    return bool(_COMMENT.sub("", section.text).strip())


@check("headings")
def heading_structure(doc: CheckedDocument) -> Iterator[Issue]:
    """Heading problems: more than one H1 (warning), skipped levels such as H2 → H4 (info),
    and empty sections — a heading with no text and no subsections (info).

    A page may start at any level (many MkDocs pages have no H1 and start with H2). A page
    with nothing under its headings (empty, front matter only, headings only) is one critical
    ``empty_document`` issue instead: a reader finds nothing to act on.
    """
    page = page_of(doc)
    if not any(_has_body(s) for s in doc.parsed.sections):
        yield page.issue(
            type="empty_document",
            severity="critical",
            dimensions=["completeness"],
            line=1,
            message="The page has no content" + (" under its headings" if doc.parsed.sections else ""),
            suggested_fix="Write the page, or remove it (and the links to it).",
            quote=next((line.strip() for line in page.lines if line.strip()), ""),
            effort="high",
        )
        return
    sections = [s for s in doc.parsed.sections if s.level > 0]
    first_h1: Section | None = None
    previous = 0
    for k, s in enumerate(sections):
        quote = s.text.split("\n", 1)[0]
        if s.level == 1:
            if first_h1 is None:
                first_h1 = s
            else:
                yield page.issue(
                    type="multiple_h1",
                    severity="warning",
                    dimensions=["logical_flow"],
                    line=s.line_start,
                    message=(
                        f"Second top-level heading (the page already has “{shorten(first_h1.heading, 40)}” "
                        f"at line {first_h1.line_start})"
                    ),
                    suggested_fix="Keep one H1 as the page title; make the others H2.",
                    quote=quote,
                    effort="low",
                )
        if previous and s.level > previous + 1:
            yield page.issue(
                type="skipped_heading_level",
                severity="info",
                dimensions=["logical_flow"],
                line=s.line_start,
                message=f"Heading level jumps from H{previous} to H{s.level}",
                suggested_fix=f"Use H{previous + 1} here, or add the missing level above it.",
                quote=quote,
                effort="low",
            )
        previous = s.level
        nxt = sections[k + 1] if k + 1 < len(sections) else None
        has_children = nxt is not None and nxt.level > s.level
        if not has_children and _body_empty(s) and not s.heading.startswith("::: "):
            yield page.issue(
                type="empty_section",
                severity="info",
                dimensions=["completeness"],
                line=s.line_start,
                message=f"Section “{shorten(s.heading, 60)}” is empty",
                suggested_fix="Write the section or remove the heading.",
                quote=quote,
                effort="medium",
            )


@check("placeholders")
def placeholder_text(doc: CheckedDocument) -> Iterator[Issue]:
    """Leftover ``TODO``, ``FIXME``, ``TBD``, ``XXX`` (upper case, as words) and *lorem ipsum*
    in the page's prose and headings.

    Code blocks, inline code, URLs and HTML comments are not prose: a ``# TODO`` in an
    example is usually an instruction to the reader, a comment is invisible to them.
    """
    page = page_of(doc)
    for i, text in page.prose_lines():
        for m in _PLACEHOLDER.finditer(text):
            word = m.group(0)
            if m.group(1) and not word.isupper():
                continue
            yield page.issue(
                type="placeholder_text",
                severity="warning",
                dimensions=["completeness"],
                line=page.orig(i),
                message=f"Leftover placeholder “{word}”",
                suggested_fix="Write the missing content or remove the placeholder.",
                quote=page.lines[i].strip(),
                effort="medium",
            )
            break


_HUMP = re.compile(r"[a-z0-9][A-Z][a-z]")


def _identifier_pair(a: str, b: str) -> bool:
    """``writeMode`` / ``WriteMode``: camelCase and PascalCase of one identifier are two API names
    (a property and its type), not a spelling drift. ``lanceDB`` / ``LanceDB`` is a drift."""
    return a[1:] == b[1:] and a[0] != b[0] and bool(_HUMP.search(a)) and bool(_HUMP.search(b))


def _styled(word: str) -> bool:
    """Mixed case inside the word (GitHub, LanceDB, macOS), but not ALL CAPS."""
    return any(c.isupper() for c in word[1:]) and not word.isupper()


@check("terminology")
def inconsistent_terminology(doc: CheckedDocument) -> Iterator[Issue]:
    """The same product or API name written in different casings on one page
    (``GitHub``/``Github``, ``LanceDB``/``Lancedb``/``lanceDB``, ``JavaScript``/``Javascript``).

    Words are compared case-insensitively in prose and headings (code, URLs and link
    targets excluded). A group is reported when one spelling has mixed case (a name) and
    there are two or more spellings among the mixed-case and Capitalised ones; all-lower
    spellings (package and command names) and ALL-CAPS ones (acronyms, emphasis) are left
    alone, and so are camelCase/PascalCase pairs of one identifier (``writeMode`` the
    property, ``WriteMode`` its type). Each minority spelling gets one issue, at its first use.
    """
    page = page_of(doc)
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for i, text in page.prose_lines():
        if not any(c.isupper() for c in text):
            continue
        for m in _WORD.finditer(text):
            word = m.group(1)
            if len(word) < 3 or word.islower() or word.isupper():
                continue
            counts[word] += 1
            first.setdefault(word, i)
    groups: dict[str, list[str]] = {}
    for word in counts:
        groups.setdefault(word.lower(), []).append(word)
    for variants in groups.values():
        if len(variants) < 2 or not any(_styled(v) for v in variants):
            continue
        ranked = sorted(variants, key=lambda v: (-counts[v], not _styled(v), v))
        major = ranked[0]
        for minor in ranked[1:]:
            if _identifier_pair(major, minor):
                continue
            i = first[minor]
            yield page.issue(
                type="inconsistent_terminology",
                severity="info",
                dimensions=["consistency"],
                line=page.orig(i),
                message=(
                    f"“{minor}” is also written “{major}” on this page ({counts[major]}× vs {counts[minor]}×)"
                ),
                suggested_fix=f"Use one spelling throughout (probably “{major}”).",
                quote=page.lines[i].strip(),
                effort="low",
            )
