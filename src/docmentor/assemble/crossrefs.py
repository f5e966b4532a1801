"""Cross-reference expansion: the sections that chosen sections point at.

For each selected section, in order: the Markdown links written inside its line range
(inline and reference-style, as the link graph resolved them) and its ``ADR-nnnn``
mentions, in line order. A link with an anchor brings in the section with that anchor;
a link without one (and an ADR mention) brings in the document's introduction — its
first section with text, not the whole document. At depth 2 the sections brought in are
followed the same way. Every section comes once (by document and line range); one
reached twice lists both referrers.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from docmentor.assemble.models import Candidate
from docmentor.errors import DocmentorError
from docmentor.parse.common import mkdocs_numbered, slugify
from docmentor.search.units import renders_nothing

if TYPE_CHECKING:
    from docmentor.assemble.links import LinkGraph
    from docmentor.store.db import Store

__all__ = ["DECAY", "MAX_DEPTH", "expand", "introduction", "section_for_anchor"]

log = logging.getLogger(__name__)

MAX_DEPTH = 2
DECAY = 0.5  # a cross-reference's relevance: its referrer's times this


def expand(
    selected: list[Candidate],
    *,
    graph: LinkGraph,
    store: Store,
    depth: int = 1,
    max_expansions: int = 10,
    already: set[tuple[int, int, int]] | None = None,
) -> list[Candidate]:
    """Sections referenced by ``selected``, to ``depth`` hops (at most 2), at most ``max_expansions``.

    Args:
        selected: the chosen sections, best first (referrer order decides who is expanded first).
        graph: the link graph of the sources searched.
        store: where section rows are read.
        depth: hops to follow; 0 returns nothing, more than 2 counts as 2.
        max_expansions: the most sections returned.
        already: keys (:attr:`Candidate.key`) of sections not to return again.

    Returns:
        New candidates with ``origin="crossref"``, their ``depth`` and ``referenced_by``
        (``path:line`` of every link or mention that led to them), in discovery order.
        Links to documents that are gone are skipped, never raised.
    """
    depth = min(max(depth, 0), MAX_DEPTH)
    if depth == 0 or max_expansions <= 0 or not selected:
        return []
    seen: set[tuple[int, int, int]] = {c.key for c in selected}
    if already:
        seen |= set(already)
    shown = {_same_text(c.text) for c in selected}  # a copy elsewhere would repeat what is shown
    found: dict[tuple[int, int, int], Candidate] = {}
    sections: dict[int, list[Any]] = {}  # document id → its section rows, read once per call

    def rows_of(doc_id: int) -> list[Any]:
        rows = sections.get(doc_id)
        if rows is None:
            try:
                rows = list(store.sections_of(doc_id))
            except DocmentorError as exc:  # a document removed under us
                log.debug("no sections for document %s: %s", doc_id, exc)
                rows = []
            sections[doc_id] = rows
        return rows

    frontier = list(selected)
    for level in range(1, depth + 1):
        nxt: list[Candidate] = []
        for referrer in frontier:
            for target_doc, anchor, line in _references(referrer, graph):
                info = graph.document(target_doc)
                rows = rows_of(target_doc)
                if info is None or not rows:
                    continue
                row = section_for_anchor(rows, anchor) if anchor else None
                if row is None:
                    if target_doc == referrer.document_id:
                        continue  # a link to its own document's top, or an unknown anchor there
                    row = introduction(rows)
                if row is None:
                    continue
                where = f"{referrer.path}:{line}"
                key = (target_doc, int(row["line_start"]), int(row["line_end"]))
                if key in seen:
                    continue
                hit = found.get(key)
                if hit is not None:
                    if where not in hit.referenced_by:
                        hit.referenced_by.append(where)
                    hit.relevance = max(hit.relevance, referrer.relevance * DECAY)
                    continue
                if len(found) >= max_expansions:
                    continue
                if _same_text(str(row["text"])) in shown:
                    seen.add(key)
                    continue
                cand = _candidate(row, info, relevance=referrer.relevance * DECAY, depth=level, where=where)
                found[key] = cand
                nxt.append(cand)
        frontier = nxt
        if not frontier:
            break
    return list(found.values())


def _references(c: Candidate, graph: LinkGraph) -> list[tuple[int, str | None, int]]:
    """(target document, anchor, line) for the links and ADR mentions inside a candidate, in line order."""
    refs: list[tuple[int, int, int, str | None]] = [
        (ln.line, 0, ln.target_doc, ln.anchor)
        for ln in graph.outlinks(c.document_id)
        if c.line_start <= ln.line <= c.line_end
    ]
    linked = {(line, doc) for line, _, doc, _ in refs}
    text = c.text
    for number, offset in graph.mentions(text):
        doc = graph.adr(number, c.source)
        if doc is None or doc == c.document_id:
            continue
        line = c.line_start + text.count("\n", 0, offset)
        if (line, doc) not in linked:  # "[ADR-0001](adr/ADR-0001-x.md#y)": the link says where
            refs.append((line, 1, doc, None))
    refs.sort(key=lambda r: (r[0], r[1]))  # stable: links of one line keep their order
    return [(doc, anchor, line) for line, _, doc, anchor in refs]


def section_for_anchor(rows: list[Any], anchor: str) -> Any | None:
    """The section a ``#anchor`` names: its stored anchor, else a heading that slugifies to it."""
    wanted = unquote(anchor).strip()
    if not wanted:
        return None
    for anchor_as in (wanted, mkdocs_numbered(wanted)):  # as written first, then as stored
        for row in rows:
            if anchor_as and row["anchor"] == anchor_as:
                return row
    low, slug = wanted.lower(), slugify(wanted)
    for row in rows:
        if row["heading"] and (row["anchor"] or "").lower() == low:
            return row
    for row in rows:
        if row["heading"] and slugify(row["heading"]) in (low, slug):
            return row
    return None


def introduction(rows: list[Any]) -> Any | None:
    """A document's introduction: its first section with text besides its heading (the preamble or
    the H1 section), else its first section. A preamble a reader does not read (markup, a
    breadcrumb trail: :func:`~docmentor.search.units.renders_nothing`) is none."""
    for row in rows:
        text = str(row["text"])
        body = text.split("\n", 1)[1] if row["heading"] and "\n" in text else ("" if row["heading"] else text)
        if not row["heading"] and renders_nothing(text):
            continue
        if body.strip():
            return row
    return rows[0] if rows else None


def _same_text(text: str) -> str:
    """What two copies of a section share: their words, whitespace aside."""
    return " ".join(text.split())


def _candidate(row: Any, info: Any, *, relevance: float, depth: int, where: str) -> Candidate:
    try:
        heading_path = [str(h) for h in json.loads(row["heading_path"] or "[]")]
    except (TypeError, ValueError):
        heading_path = []
    return Candidate(
        section_id=int(row["id"]),
        document_id=int(row["document_id"]),
        source=info.source,
        path=info.path,
        url=info.url,
        title=info.title,
        heading=str(row["heading"]),
        heading_path=heading_path,
        anchor=str(row["anchor"] or ""),
        line_start=int(row["line_start"]),
        line_end=int(row["line_end"]),
        text=str(row["text"]),
        relevance=relevance,
        origin="crossref",
        referenced_by=[where],
        depth=depth,
    )
