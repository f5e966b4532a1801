"""A chosen section carries its subsections: the index splits a page at every heading, but a
reader of ``## At the field level`` expects its ``### Using Strict()`` part with it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docmentor.assemble.models import Candidate

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["with_subsections"]

Key = tuple[int, int, int]  # Candidate.key: (document, line_start, line_end)


def with_subsections(
    store: Store, selected: list[Candidate], *, max_chars: int
) -> tuple[list[Candidate], set[Key]]:
    """``selected`` with each section's text and line range grown over the subsections that
    follow it (deeper headings, up to the next heading of its level or above), while their text
    adds up to at most ``max_chars``; and the keys of the sections the grown ones now hold (their
    own rows and the subsections taken in), which a cross-reference must not bring again.

    A subsection chosen on its own stays where it is (the growth stops before it), a document's
    untitled opening never takes the page's sections, and a candidate the store no longer has
    (a refresh replaced the rows) stays as it is. Each subsection is written as a Markdown
    heading at its page line, its text at its own: line numbers counted from the section's first
    line stay the page's (a trimmed section's range, a mention's line). ``max_chars`` 0 changes
    nothing."""
    if max_chars <= 0:
        return selected, set()
    chosen = {(c.document_id, c.line_start) for c in selected}
    rows_of: dict[int, list[Any]] = {}
    covered: set[Key] = set()
    out: list[Candidate] = []
    for c in selected:
        rows = rows_of.get(c.document_id)
        if rows is None:
            rows = rows_of[c.document_id] = list(store.sections_of(c.document_id))
        at = next((i for i, r in enumerate(rows) if int(r["id"]) == c.section_id), None)
        level = int(rows[at]["level"]) if at is not None else 0
        if at is None or level == 0:
            out.append(c)
            continue
        text = c.text.rstrip()
        last = c.line_start + text.count("\n")  # the page line the text ends on
        end, used, grown = c.line_end, 0, False
        for row in rows[at + 1 :]:
            start = int(row["line_start"])
            if int(row["level"]) <= level or (c.document_id, start) in chosen:
                break
            if start <= c.line_end:
                continue  # a stub the search unit already holds (docmentor.search.units)
            heading = str(row["heading"])
            skip, body = _body(str(row["text"]), heading)
            if used + len(heading) + len(body) > max_chars:
                break
            used += len(heading) + len(body)
            text += "\n" * max(2, start - last) + "#" * int(row["level"]) + " " + heading
            last = start
            if body:
                text += "\n" * max(2, skip) + body
                last = start + max(2, skip) + body.count("\n")
            end = max(end, int(row["line_end"]))
            covered.add((c.document_id, start, int(row["line_end"])))
            grown = True
        if grown:
            covered.add(c.key)  # the section as the index has it
            c = replace(c, text=text, line_end=end)
        out.append(c)
    return out, covered


def _body(text: str, heading: str) -> tuple[int, str]:
    """A section's text after its heading (a Markdown heading line, or a reST title with its
    under- and overline), and how many lines after the text's first it starts."""
    lines = text.split("\n")
    k = 0
    if lines and _is_rule(lines[0]) and len(lines) > 1 and heading in lines[1]:
        k = 1  # a reST overline
    if k < len(lines) and heading and heading in lines[k]:
        k += 1
        if k < len(lines) and _is_rule(lines[k]):
            k += 1  # a reST underline
    while k < len(lines) and not lines[k].strip():
        k += 1
    return k, "\n".join(lines[k:]).rstrip()


def _is_rule(line: str) -> bool:
    """A reST title's under- or overline: one punctuation character repeated."""
    s = line.strip()
    return len(s) >= 2 and len(set(s)) == 1 and not s[0].isalnum() and not s[0].isspace()
