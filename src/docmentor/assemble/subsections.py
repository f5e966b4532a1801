"""A chosen section carries its subsections: the index splits a page at every heading, but a
reader of ``## At the field level`` expects its ``### Using Strict()`` part with it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docmentor.assemble.models import Candidate

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["with_subsections"]


def with_subsections(store: Store, selected: list[Candidate], *, max_chars: int) -> list[Candidate]:
    """``selected`` with each section's text and line range grown over the subsections that
    follow it (deeper headings, up to the next heading of its level or above), while their text
    adds up to at most ``max_chars``. A subsection chosen on its own stays where it is (the
    growth stops before it), and a document's untitled opening never takes the page's
    sections. ``max_chars`` 0 changes nothing."""
    if max_chars <= 0:
        return selected
    chosen = {(c.document_id, c.line_start) for c in selected}
    rows_of: dict[int, list[Any]] = {}
    out: list[Candidate] = []
    for c in selected:
        rows = rows_of.get(c.document_id)
        if rows is None:
            rows = rows_of[c.document_id] = list(store.sections_of(c.document_id))
        at = next((i for i, r in enumerate(rows) if int(r["line_start"]) == c.line_start), None)
        level = int(rows[at]["level"]) if at is not None else 0
        if at is None or level == 0:
            out.append(c)
            continue
        texts: list[str] = []
        end, used = c.line_end, 0
        for row in rows[at + 1 :]:
            if int(row["level"]) <= level or (c.document_id, int(row["line_start"])) in chosen:
                break
            if int(row["line_start"]) <= c.line_end:
                continue  # a stub the search unit already holds (docmentor.search.units)
            text = str(row["text"])
            if used + len(text) > max_chars:
                break
            used += len(text)
            texts.append(text.strip("\n"))
            end = max(end, int(row["line_end"]))
        if texts:
            c = replace(c, text="\n\n".join([c.text.rstrip("\n"), *texts]), line_end=end)
        out.append(c)
    return out
