"""The lexical index of an index in PostgreSQL: the same entries and BM25 as tantivy's.

:class:`PgLexicalIndex` has :class:`~docmentor.search.lexical.LexicalIndex`'s interface and
writes the same entries (:func:`~docmentor.search.lexical.unit_fields`,
:func:`~docmentor.search.lexical.document_fields`: the same analyzer, fields, padding and
stub merging) into tables (:mod:`docmentor.store.lexical_tables`), and scores them as
tantivy does: BM25 with k1 = 1.2 and b = 0.75 per field, idf = ln(1 + (N − df + ½)/(df + ½))
over every entry, each (term, field) clause weighted by the field's boost and the term's
weight, and the filter clauses' own scores (the kind's and the source's idf) added, so
scores — not only orders — match what the hybrid blend expects. Field lengths are coarsened
to tantivy's one-byte field norms (:func:`~docmentor.store.lexical_tables.recorded_length`),
so the scores are tantivy's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from docmentor.search.config import DEFAULT, RankingConfig
from docmentor.search.lexical import (
    DOC_FIELDS,
    MAX_TERM,
    LexicalHit,
    document_fields,
    pad_terms,
    section_boosts,
    stored_fields,
    unit_fields,
    unit_terms,
)
from docmentor.search.units import Unit, build_units
from docmentor.store.lexical_tables import (
    LexEntry,
    LexStats,
    doc_freqs,
    entries,
    lexical_stats,
    replace_entries,
    score_entries,
    term_postings,
)

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["PgLexicalIndex"]


def _idf(n: int, df: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _sources(source: str | Sequence[str] | None) -> list[str] | None:
    if source is None:
        return None
    return [source] if isinstance(source, str) else list(source)


def _narrowing(source: str | Sequence[str] | None, stats: LexStats) -> list[str] | None:
    """The sources to keep, or None when ``source`` keeps every indexed one (no filter to
    apply: a search that filters looks up each scored entry's source)."""
    sources = _sources(source)
    if sources is None or set(stats.by_source) <= set(sources):
        return None
    return sources


class PgLexicalIndex:
    """The lexical index in ``store``'s tables (see the module)."""

    def __init__(self, store: Store, *, config: RankingConfig = DEFAULT) -> None:
        self.store = store
        self.config = config

    # -- what the engine calls on tantivy's index, with nothing to do here ----------
    def reload(self) -> None:
        """Every read sees the database's newest commit: nothing to reload."""

    def searcher(self) -> None:
        """Nothing to open."""

    # -- writing (the caller holds the store's write lock) ---------------------------
    def replace(
        self,
        *,
        drop_document_ids: Iterable[int],
        rows: Iterable[Any],
        drop_sources: Iterable[str] = (),
        drop_all: bool = False,
        body_terms: Mapping[str, str] | None = None,
        on_unit: Callable[[Unit], None] | None = None,
    ) -> int:
        """As :meth:`LexicalIndex.replace`: drop, add the units of ``rows``, commit once."""
        counted: list[int] = [0]

        def add() -> Iterator[LexEntry]:
            pad = pad_terms(self.config)
            group: list[Unit] = []
            bodies: list[str] = []
            for unit in build_units(rows, stub_chars=self.config.stub_chars):
                if group and group[0].document_id != unit.document_id:
                    yield _document_entry(group, bodies)
                    group, bodies = [], []
                body, parts = unit_terms(unit, body_terms)
                group.append(unit)
                bodies.append(body + " " + parts)
                yield LexEntry(
                    key=unit.section_id,
                    kind="s",
                    source=unit.source,
                    document_id=unit.document_id,
                    stored=_stored(unit),
                    fields=unit_fields(unit, body, parts, pad),
                )
                if on_unit is not None:
                    on_unit(unit)
                counted[0] += 1
            if group:
                yield _document_entry(group, bodies)

        replace_entries(
            self.store,
            drop_document_ids=drop_document_ids,
            drop_sources=drop_sources,
            drop_all=drop_all,
            add=add(),
        )
        return counted[0]

    # -- reading -------------------------------------------------------------------
    def _weights(
        self,
        terms: Sequence[tuple[str, float]],
        boosts: Mapping[str, float],
        stats: LexStats,
        dfs: Mapping[tuple[str, str], int],
    ) -> list[tuple[str, str, float, float]]:
        out = []
        for term, weight in terms:
            t = term[:MAX_TERM]
            for field, boost in boosts.items():
                df = dfs.get((t, field), 0)
                tokens = stats.tokens.get(field, 0)
                if boost * weight <= 0 or df == 0 or tokens == 0:
                    continue
                out.append((t, field, boost * weight * _idf(stats.docs, df), tokens / stats.docs))
        return out

    @staticmethod
    def _filter_score(stats: LexStats, kind: str, asked: str | Sequence[str] | None) -> float:
        """What tantivy's filter clauses add: the kind's idf, and the source's when one source
        is asked for (a filter over several scores nothing: see LexicalIndex._query)."""
        score = _idf(stats.docs, stats.by_kind.get(kind, 0))
        if isinstance(asked, str):
            score += _idf(stats.docs, stats.by_source.get(asked, 0))
        return score

    def search(
        self,
        terms: Sequence[tuple[str, float]],
        *,
        source: str | Sequence[str] | None = None,
        limit: int = 10,
        config: RankingConfig | None = None,
        doc_scores: dict[int, float] | None = None,
    ) -> list[LexicalHit]:
        """As :meth:`LexicalIndex.search`: units by BM25, each with its document's score."""
        if not terms:
            return []
        config = config or self.config
        stats = lexical_stats(self.store)
        if stats.docs == 0:
            return []
        sources = _narrowing(source, stats)
        postings = term_postings(self.store, sorted({t[:MAX_TERM] for t, _ in terms}))
        dfs = {pair: found.df for pair, found in postings.items()}
        boosts = section_boosts(config)
        doc_boosts = {d: boosts[f] for d, f in DOC_FIELDS.items()}
        if doc_scores is None:
            doc_scores = {}
        doc_weights = self._weights(terms, doc_boosts, stats, dfs)
        found_docs = score_entries(
            self.store, doc_weights, kind="d", sources=sources, limit=30, postings=postings
        )
        for key, score in found_docs:
            doc_scores[-key] = score + self._filter_score(stats, "d", source)
        weights = self._weights(terms, boosts, stats, dfs)
        found = score_entries(self.store, weights, kind="s", sources=sources, limit=limit, postings=postings)
        return self._hits(found, stats, source, doc_scores)

    def _hits(
        self,
        found: Sequence[tuple[int, float]],
        stats: LexStats,
        source: str | Sequence[str] | None,
        doc_scores: Mapping[int, float],
        *,
        scored: bool = True,
    ) -> list[LexicalHit]:
        rows = entries(self.store, [k for k, _ in found], kind="s", sources=_sources(source))
        hits = []
        for key, score in found:
            if key not in rows:
                continue
            _, document_id, stored = rows[key]
            fields = {**stored, "doc_score": doc_scores.get(document_id, 0.0)}
            total = score + self._filter_score(stats, "s", source) if scored else 0.0
            hits.append(LexicalHit(score=total, fields=fields))
        return hits

    def units(
        self,
        section_ids: Sequence[int],
        *,
        source: str | Sequence[str] | None = None,
        doc_scores: Mapping[int, float] | None = None,
        terms: Sequence[tuple[str, float]] = (),
        config: RankingConfig | None = None,
    ) -> list[LexicalHit]:
        """As :meth:`LexicalIndex.units`: these units, each scored by ``terms`` (0 without)."""
        if not section_ids:
            return []
        ids = [int(i) for i in section_ids]
        if not terms:
            return self._hits(
                [(i, 0.0) for i in ids], LexStats(0, {}, {}, {}), source, doc_scores or {}, scored=False
            )
        stats = lexical_stats(self.store)
        dfs = doc_freqs(self.store, sorted({t[:MAX_TERM] for t, _ in terms}))
        weights = self._weights(terms, section_boosts(config or self.config), stats, dfs)
        scores = dict(
            score_entries(
                self.store, weights, kind="s", sources=_narrowing(source, stats), limit=len(ids), keys=ids
            )
        )
        ranked = sorted(ids, key=lambda i: -scores.get(i, 0.0))  # best first, as tantivy returns them
        return self._hits([(i, scores.get(i, 0.0)) for i in ranked], stats, source, doc_scores or {})

    def knows(self, term: str) -> bool:
        """Whether any section's text holds ``term`` (an analysed term)."""
        return bool(self.holding([term]))

    def holding(self, terms: Iterable[str]) -> set[str]:
        """Those of ``terms`` some section's text holds, in one look-up."""
        wanted = {t: t[:MAX_TERM] for t in terms}
        dfs = doc_freqs(self.store, sorted(set(wanted.values())))
        return {t for t, cut in wanted.items() if dfs.get((cut, "body"), 0) > 0}

    def num_docs(self) -> int:
        return lexical_stats(self.store).docs


def _stored(unit: Unit) -> dict[str, Any]:
    return {
        "source": unit.source,
        "section_id": unit.section_id,
        "document_id": unit.document_id,
        "line_start": unit.line_start,
        "line_end": unit.line_end,
        **stored_fields(unit),
    }


def _document_entry(units: list[Unit], bodies: list[str]) -> LexEntry:
    first = units[0]
    return LexEntry(
        key=-first.document_id,
        kind="d",
        source=first.source,
        document_id=first.document_id,
        stored={"document_id": first.document_id, "source": first.source},
        fields=document_fields(units, bodies),
    )
