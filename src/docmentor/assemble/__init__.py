"""Context assembly: one question in, one token-budgeted digest out.

The steps (each in its own module):

1. retrieval — the engine's own search (same analyzer, same index) returns every matching
   section; relevance is normalised per query (the best hit is 1.0) and hits under the
   threshold are dropped;
2. canonicality (``canonical.py``) — path, file name, recency, front-matter status and
   link authority (``links.py``) give each document a score in [0, 1]; documents rank by
   ``0.7 · relevance + 0.3 · canonicality``, and their best sections are taken in that order;
3. cross-references (``crossrefs.py``) — links and ADR mentions in the chosen sections
   pull in the sections they point at, to ``depth`` 1 or 2;
4. distillation (``distill.py``, over ``blocks.py``) — sections are added, trimmed at
   paragraph or sentence boundaries when needed, while the whole digest, counted exactly
   (``tokens.py``), fits the budget; ``render.py`` renders it as Markdown or JSON.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from docmentor.assemble.models import Candidate, Digest, DocumentScore
from docmentor.errors import NotFoundError, UsageError
from docmentor.parse.common import slugify

if TYPE_CHECKING:
    from docmentor.assemble.canonical import CanonicalScore
    from docmentor.assemble.links import LinkGraph
    from docmentor.engine import Docmentor

__all__ = ["RELEVANCE_THRESHOLD", "WEIGHTS", "Digest", "assemble"]

WEIGHTS = {"relevance": 0.7, "canonicality": 0.3}
RELEVANCE_THRESHOLD = 0.15  # share of the best hit's score a section needs to be considered
MAX_PER_DOCUMENT = 6  # sections of one document before the next document gets its turn
MAX_TOKENS_RANGE = (200, 200_000)
_GENERIC = {
    "docs",
    "doc",
    "src",
    "documentation",
    "index",
    "readme",
    "guide",
    "guides",
    "site",
    "content",
    "pages",
}
_GRAPHS: dict[tuple[str, tuple[tuple[str, int], ...]], LinkGraph] = {}


def assemble(
    engine: Docmentor,
    query: str,
    *,
    max_tokens: int = 8000,
    depth: int = 1,
    sections: int = 20,
    source: str | None = None,
    encoding: str = "o200k_base",
    allow_empty: bool = False,
    now: datetime | None = None,
    fmt: str = "markdown",
    version: str | None = None,
) -> Digest:
    """Build the digest for ``query``.

    ``fmt`` "json" also renders ``json_text``, fitted to ``max_tokens`` like the Markdown: the
    sections are chosen once, and the JSON's are the Markdown's less the last ones taken when its
    keys leave no room for them (see ``render.distill``).

    Raises:
        UsageError: an option is out of range.
        NotFoundError: unknown ``source``, a ``version`` nobody indexed, or nothing matched
            (unless ``allow_empty``).

    ``source`` may name a library (every version of it) and ``version`` one of its versions;
    where several versions of a library are indexed, the sections come from one (asked, the
    project's pinned, else the newest: ``Docmentor.version_scope``), and the digest's metadata
    says which (``versions``: source → version, ``version_reasons``: source → why).
    """
    from docmentor.assemble.crossrefs import expand
    from docmentor.assemble.distill import distill
    from docmentor.assemble.subsections import with_subsections
    from docmentor.assemble.tokens import ENCODINGS

    if not query.strip():
        raise UsageError("empty question", hint="ask something, e.g. 'how do I set a timeout?'")
    lo, hi = MAX_TOKENS_RANGE
    if not lo <= max_tokens <= hi:
        raise UsageError(f"max_tokens must be between {lo} and {hi}", arguments=("max_tokens",))
    if not 0 <= depth <= 2:
        raise UsageError("depth must be 0, 1 or 2", arguments=("depth",))
    if not 1 <= sections <= 100:
        raise UsageError("sections must be between 1 and 100", arguments=("sections",))
    if encoding not in ENCODINGS:
        raise UsageError(f"unknown encoding {encoding!r}", hint=f"choose from {', '.join(ENCODINGS)}")
    now = now or datetime.now(UTC)
    started = time.perf_counter()

    store = engine.store
    rows = store.sources()
    versions = engine.version_scope(source, version)
    names = versions.names() or [r.name for r in rows]
    hits = engine.candidates(
        query, source=source, version=version, limit=max(sections * 10, 200), snippets=False
    )
    facts = {int(r["id"]): r for r in store.document_facts(names)}
    if not hits and not allow_empty:
        scope = f" in source {source!r}" if source else ""
        raise NotFoundError(
            f"nothing in the index matches {query!r}{scope}",
            hint="try other words or an API name, check the sources, or pass allow_empty",
            arguments=("allow_empty",),
        )

    top = hits[0].score if hits else 1.0
    by_section = store.sections_by_id([h.section_id for h in hits])
    pool: list[Candidate] = []
    for h in hits:
        rel = h.score / top if top > 0 else 0.0
        if rel < RELEVANCE_THRESHOLD:
            continue
        # The hit carries the section as the index committed it: a refresh running in another
        # process may already have replaced the store's rows (new ids), so they are optional.
        row = by_section.get(h.section_id)
        pool.append(
            Candidate(
                section_id=h.section_id,
                document_id=h.document_id,
                source=h.source,
                path=h.path,
                url=h.url,
                title=h.title,
                heading=h.heading,
                heading_path=list(h.heading_path),
                anchor=str(row["anchor"]) if row is not None else slugify(h.heading),
                line_start=h.line_start,
                line_end=h.line_end,
                text=h.text or (str(row["text"]) if row is not None else ""),
                relevance=rel,
                stale=h.stale,  # said beside its citation: the text may no longer be true
            )
        )

    graph = _graph(engine, names, rows)
    tally = _Tally(facts, graph, now)
    by_doc: dict[int, list[Candidate]] = {}
    for c in pool:
        tally.see(c)
        by_doc.setdefault(c.document_id, []).append(c)
    order = sorted(by_doc, key=lambda d: (-tally.combined(d), tally.first[d].path))
    chosen: dict[int, list[Candidate]] = {}
    taken = 0
    for doc_id in order:  # top documents, then their best sections
        if taken >= sections:
            break
        best = sorted(by_doc[doc_id], key=lambda c: -c.relevance)[: min(MAX_PER_DOCUMENT, sections - taken)]
        chosen[doc_id] = sorted(best, key=lambda c: c.line_start)  # reading order within a document
        taken += len(best)
    selected = [c for doc_id in order if doc_id in chosen for c in chosen[doc_id]]
    selected, covered = with_subsections(store, selected, max_chars=engine.ranking.subsection_chars)

    expansions: list[Candidate] = []
    if depth > 0 and selected:
        expansions = expand(
            selected,
            graph=graph,
            store=store,
            depth=depth,
            max_expansions=min(10, max(2, sections // 2)),
            already={c.key for c in selected} | covered,  # a grown section holds these
        )
        # a search unit can hold short sections after its own (docmentor.search.units): a link
        # to one of those is already in the digest
        spans = [(c.path, c.line_start, c.line_end) for c in selected]
        expansions = [
            c
            for c in expansions
            if not any(p == c.path and a <= c.line_start and c.line_end <= b for p, a, b in spans)
        ]
        for c in expansions:
            if c.document_id not in chosen:  # a link must not re-rank a document already ranked by search
                tally.see(c)
    documents = [tally.score(d) for d in order if d in chosen]
    documents += [tally.score(d) for d in dict.fromkeys(c.document_id for c in expansions) if d not in chosen]

    stats: dict[str, Any] = {
        "candidate_sections": len(hits),
        "relevance_threshold": RELEVANCE_THRESHOLD,
        "above_threshold": len(pool),
        "selected": len(selected),
        "cross_references": len(expansions),
        "depth": depth,
        "weights": dict(WEIGHTS),
        "source": source,
        "seconds": 0.0,
    }
    if versions.reasons:  # several versions of a library, or one asked for: which answered, and why
        used = sorted({d.source for d in documents})
        stats["versions"] = {s: versions.versions.get(s) for s in used}
        stats["version_reasons"] = {s: versions.reasons[s] for s in used if s in versions.reasons}

    gone = store.stale_documents([c.document_id for c in expansions])  # search hits say it already
    for c in expansions:
        c.stale = c.document_id in gone

    # One selection for every format; the budget counts the text that is printed.
    digest = distill(
        query=query,
        documents=documents,
        candidates=selected + expansions,
        max_tokens=max_tokens,
        encoding=encoding,
        documents_scanned=len(facts),
        stats=stats,
        generated_at=now.replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        primary_areas=primary_areas(documents),
        fmt="json" if fmt == "json" else "markdown",
    )
    digest = replace(digest, stats={**digest.stats, "seconds": round(time.perf_counter() - started, 4)})
    if fmt == "json":
        digest = replace(digest, json_text=json_text(digest))
    return digest


def json_text(digest: Digest) -> str:
    """The digest as the JSON text that ``--format json`` prints."""
    from docmentor.assemble.render import render_json_text

    return render_json_text(digest)


class _Tally:
    """Each document's score while candidates come in: its first candidate, its canonicality
    (computed once), the best relevance seen so far; :meth:`score` builds the result."""

    def __init__(self, facts: dict[int, Any], graph: LinkGraph, now: datetime) -> None:
        self.facts = facts
        self.graph = graph
        self.now = now
        self.first: dict[int, Candidate] = {}
        self.relevance: dict[int, float] = {}
        self.canon: dict[int, CanonicalScore] = {}

    def see(self, c: Candidate) -> None:
        doc_id = c.document_id
        if doc_id in self.first:
            self.relevance[doc_id] = max(self.relevance[doc_id], c.relevance)
            return
        from docmentor.assemble.canonical import canonicality

        fact = self.facts.get(doc_id)
        self.first[doc_id] = c
        self.relevance[doc_id] = c.relevance
        self.canon[doc_id] = canonicality(
            path=c.path,
            title=c.title,
            meta=_meta(fact),
            updated_at=fact["updated_at"] if fact is not None else None,
            authority=self.graph.authority(doc_id),
            now=self.now,
        )

    def combined(self, doc_id: int) -> float:
        return (
            WEIGHTS["relevance"] * self.relevance[doc_id] + WEIGHTS["canonicality"] * self.canon[doc_id].score
        )

    def score(self, doc_id: int) -> DocumentScore:
        c, canon, fact = self.first[doc_id], self.canon[doc_id], self.facts.get(doc_id)
        return DocumentScore(
            document_id=doc_id,
            source=c.source,
            path=c.path,
            url=c.url,
            title=c.title,
            relevance=self.relevance[doc_id],
            canonicality=canon.score,
            combined=self.combined(doc_id),
            status=canon.status,
            updated_at=fact["updated_at"] if fact is not None else None,
            factors=dict(canon.factors),
            inlinks=self.graph.inlinks(doc_id),
        )


def primary_areas(documents: list[DocumentScore], n: int = 3) -> list[str]:
    """A few words for what the digest is about: the most telling path parts of the top documents."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for rank, doc in enumerate(documents[:8]):
        parts = [p for p in re.split(r"[/\\]", doc.path.strip("/")) if p]
        stem = re.sub(r"\.(md|mdx|markdown|rst|txt)$", "", parts[-1], flags=re.I) if parts else ""
        stem = re.sub(r"^(adr[-_]?\d+[-_]?)", "", stem, flags=re.I)
        candidates = [stem, *reversed(parts[:-1])]
        area = next((p.replace("_", "-").lower() for p in candidates if p and p.lower() not in _GENERIC), "")
        if area:
            counts[area] += 1
            first.setdefault(area, rank)
    return sorted(counts, key=lambda a: (-counts[a], first[a]))[:n]


def _meta(fact: Any) -> dict[str, Any]:
    if fact is None or not fact["meta"]:
        return {}
    try:
        meta = json.loads(fact["meta"])
    except (TypeError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _graph(engine: Docmentor, names: list[str], rows: list[Any]) -> LinkGraph:
    """The link graph of these sources, cached per process while their generations hold."""
    from docmentor.assemble.links import LinkGraph

    gens = {r.name: r.generation for r in rows}
    key = (engine.store.location, tuple((n, gens.get(n, -1)) for n in sorted(names)))  # folder or database
    graph = _GRAPHS.get(key)
    if graph is None:
        graph = LinkGraph.build(engine.store, names)
        if len(_GRAPHS) > 16:
            _GRAPHS.clear()
        _GRAPHS[key] = graph
    return graph
