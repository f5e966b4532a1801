"""The lexical index: BM25 over sections with tantivy, derived from the store.

Terms come from :mod:`docmentor.search.analyzer` (pre-analysed, whitespace-joined), so
the index and every query use the same analyzer. Each section is one tantivy document
that also stores what a search result shows, so a search reads only this index and sees
one committed state: tantivy commits are atomic, and readers reload when a writer in any
process has committed.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import tantivy

from docmentor.errors import StoreError
from docmentor.parse.fences import as_read_text
from docmentor.search.analyzer import analyze_joined, analyze_split
from docmentor.search.config import DEFAULT, RankingConfig
from docmentor.search.units import Unit, build_units

log = logging.getLogger(__name__)

# The fields of a section entry, and of a document entry (its whole text): separate fields,
# so the documents' lengths do not count in the sections' average length, nor the reverse.
SECTION_FIELDS = ("title", "heading", "path", "body", "parts")
DOC_FIELDS = {"d_title": "title", "d_heading": "heading", "d_path": "path", "d_body": "body"}
MAX_TERM = 80
PAD_TERM = "_"  # never a term of the analyzer (words start with a letter or digit)
_SPLIT = "\x1f"  # between the words and the identifier parts of ``section_terms``


@dataclass(frozen=True, slots=True)
class LexicalHit:
    score: float
    fields: dict[str, Any]


class LexicalSearch(Protocol):
    """What the engine asks of a lexical index: tantivy's (:class:`LexicalIndex`) or the one
    in PostgreSQL's tables (:class:`docmentor.search.lexical_pg.PgLexicalIndex`)."""

    def reload(self) -> None: ...
    def searcher(self) -> Any: ...
    def replace(
        self,
        *,
        drop_document_ids: Iterable[int],
        rows: Iterable[Any],
        drop_sources: Iterable[str] = ...,
        drop_all: bool = ...,
        body_terms: Mapping[str, str] | None = ...,
        on_unit: Callable[[Unit], None] | None = ...,
    ) -> int: ...
    def search(
        self,
        terms: Sequence[tuple[str, float]],
        *,
        source: str | Sequence[str] | None = ...,
        limit: int = ...,
        config: RankingConfig | None = ...,
        doc_scores: dict[int, float] | None = ...,
    ) -> list[LexicalHit]: ...
    def units(
        self,
        section_ids: Sequence[int],
        *,
        source: str | Sequence[str] | None = ...,
        doc_scores: Mapping[int, float] | None = ...,
        terms: Sequence[tuple[str, float]] = ...,
        config: RankingConfig | None = ...,
    ) -> list[LexicalHit]: ...
    def knows(self, term: str) -> bool: ...
    def holding(self, terms: Iterable[str]) -> set[str]: ...
    def num_docs(self) -> int: ...


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("doc_key", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("source", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(
        "kind", stored=False, tokenizer_name="raw", index_option="basic"
    )  # "s"ection | "d"ocument
    for name in (*SECTION_FIELDS, *DOC_FIELDS):
        sb.add_text_field(name, stored=False, tokenizer_name="whitespace", index_option="freq")
    sb.add_integer_field("section_id", stored=True, indexed=True)
    sb.add_integer_field("document_id", stored=True)
    sb.add_integer_field("line_start", stored=True)
    sb.add_integer_field("line_end", stored=True)
    # What a result shows: stored only, as UTF-8 bytes. A stored text field would be indexed
    # too (each whole section text one "raw" term), which was most of the indexing time.
    for name in STORED:
        sb.add_bytes_field(name, stored=True, indexed=False)
    return sb.build()


STORED = ("s_path", "s_url", "s_title", "s_heading", "s_heading_path", "s_text", "s_indexed_at")


def _terms(text: str) -> str:
    return analyze_joined(text, MAX_TERM)


def section_terms(text: str) -> str:
    """What the index stores of a section's text (its words, then its identifier parts; not
    its prose's HTML comments and tags, which no reader reads), computed ahead of
    :meth:`LexicalIndex.replace` (``body_terms``) when parsing runs elsewhere."""
    words, parts = analyze_split(as_read_text(text), MAX_TERM)
    return words + _SPLIT + parts


@lru_cache(maxsize=4096)
def _short_terms(text: str) -> str:
    """Titles, heading paths and file names repeat across a document's sections."""
    return _terms(text)


def _path_terms(path: str) -> str:
    """The file name's words (``resource-limits.md`` → resource, limit)."""
    name = path.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return _short_terms(name.replace("-", " ").replace("_", " "))


@lru_cache(maxsize=8)
def _pad(n: int) -> str:
    return " ".join([PAD_TERM] * n)


def doc_key(document_id: int) -> str:
    return str(document_id)


def document_fields(units: list[Unit], bodies: list[str]) -> dict[str, str]:
    """The terms of a document's entry, by field (:data:`DOC_FIELDS`): its title, every
    heading, its file name and the terms of all its units' texts (``bodies``)."""
    first = units[0]
    return {
        "d_title": _terms(first.title),
        "d_heading": _terms(" ".join(u.heading for u in units)),
        "d_path": _path_terms(first.path),
        "d_body": " ".join(bodies),
    }


def unit_fields(unit: Unit, body: str, parts: str, pad: str) -> dict[str, str]:
    """The terms of a unit's entry, by field (:data:`SECTION_FIELDS`); ``pad`` lowers BM25's
    length normalisation (RankingConfig.length_pad)."""
    heading_path = unit.heading_path
    heading = heading_path[1:] if heading_path and heading_path[0] == unit.title else heading_path
    return {
        "title": _short_terms(unit.title),
        "heading": _short_terms(" ".join(heading)),
        "path": _path_terms(unit.path),
        "body": f"{body} {pad}" if pad else body,
        "parts": f"{parts} {pad}" if pad else parts,
    }


def stored_fields(unit: Unit) -> dict[str, str]:
    """What a hit on ``unit`` shows (:data:`STORED`)."""
    return {
        "s_path": unit.path,
        "s_url": unit.url,
        "s_title": unit.title,
        "s_heading": unit.heading,
        "s_heading_path": json.dumps(unit.heading_path, ensure_ascii=False),
        "s_text": unit.text,
        "s_indexed_at": unit.indexed_at,
    }


def unit_terms(unit: Unit, body_terms: Mapping[str, str] | None) -> tuple[str, str]:
    """A unit's body words and identifier parts (``body_terms``: texts already analysed)."""
    words, parts = [], []
    for text in unit.texts:
        terms = body_terms.get(text) if body_terms else None
        w, _, p = (terms if terms is not None else section_terms(text)).partition(_SPLIT)
        words.append(w)
        parts.append(p)
    return " ".join(words), " ".join(parts)


def pad_terms(config: RankingConfig) -> str:
    """The padding of every unit's body and parts fields (``length_pad`` terms, or none)."""
    return _pad(config.length_pad) if config.length_pad > 0 else ""


def section_boosts(config: RankingConfig) -> dict[str, float]:
    """Each section field's weight in a query."""
    return {
        "title": config.title_boost,
        "heading": config.heading_boost,
        "path": config.path_boost,
        "body": config.body_boost,
        "parts": config.parts_boost,
    }


class LexicalIndex:
    """The tantivy index of search units (:mod:`docmentor.search.units`) and documents.

    ``config`` gives the index shape (:meth:`RankingConfig.index_signature`): the writer's
    and every reader's must agree, which :class:`docmentor.engine.Docmentor` checks.
    """

    def __init__(self, path: Path, *, recreate: bool = False, config: RankingConfig = DEFAULT) -> None:
        self.path = path
        self.config = config
        if recreate and path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self.index = tantivy.Index(_schema(), path=str(path), reuse=True)
        except ValueError as exc:
            if "Read-only file system" not in str(exc) or os.access(path, os.W_OK):
                raise StoreError(
                    f"the lexical index at {path} is unusable: {exc}", hint="run: docmentor reindex"
                ) from exc
            self.index = self._read_only_copy()
        self._meta_stamp = self._stamp()
        self._searcher = self.index.searcher()

    def _read_only_copy(self) -> tantivy.Index:
        """The index on a read-only file system (a volume mounted read-only): tantivy takes a
        lock file even to read, so a copy in a temporary folder is searched (removed when
        this object is); the store is read in place."""
        copy = Path(tempfile.mkdtemp(prefix="docmentor-lexical-"))
        weakref.finalize(self, shutil.rmtree, copy, ignore_errors=True)
        shutil.copytree(self.path, copy, dirs_exist_ok=True)
        log.warning(
            "the search index %s is on a read-only file system: searching a copy in %s", self.path, copy
        )
        try:
            return tantivy.Index(_schema(), path=str(copy), reuse=True)
        except ValueError as exc:
            raise StoreError(f"the lexical index at {self.path} is unusable: {exc}") from exc

    def _stamp(self) -> tuple[float, int]:
        try:
            st = os.stat(self.path / "meta.json")
        except FileNotFoundError:
            return (0.0, 0)
        return (st.st_mtime, st.st_size)

    def reload(self) -> None:
        """Read the newest commit now: the caller knows another process committed (the store's
        generations moved), which the file-time check of :meth:`searcher` can miss when two
        commits share a timestamp."""
        with self._lock:
            self.index.reload()
            self._searcher = self.index.searcher()
            self._meta_stamp = self._stamp()

    def searcher(self) -> tantivy.Searcher:
        """A searcher on the newest committed state (reloaded when another process committed)."""
        stamp = self._stamp()
        if stamp != self._meta_stamp:
            with self._lock:
                if stamp != self._meta_stamp:
                    self.index.reload()
                    self._searcher = self.index.searcher()
                    self._meta_stamp = stamp
        return self._searcher

    # -- writing (the caller holds the store's write lock) -------------------------
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
        """Drop documents (and whole sources), add the units of ``rows`` (sections ordered
        by document, as ``Store.lexical_rows`` gives them), and commit once. Returns the
        number of units; ``on_unit`` sees each.

        ``body_terms`` maps section texts to :func:`section_terms` already computed.
        """
        writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        pad = pad_terms(self.config)
        try:
            if drop_all:
                writer.delete_all_documents()
            for name in drop_sources:
                writer.delete_documents_by_term("source", name)
            for doc_id in drop_document_ids:
                writer.delete_documents_by_term("doc_key", doc_key(doc_id))
            n = 0
            group: list[Unit] = []
            bodies: list[str] = []
            for unit in build_units(rows, stub_chars=self.config.stub_chars):
                if group and group[0].document_id != unit.document_id:
                    writer.add_document(self._doc_entry(group, bodies))
                    group, bodies = [], []
                body, part_terms = unit_terms(unit, body_terms)
                group.append(unit)
                bodies.append(body + " " + part_terms)
                writer.add_document(self._document(unit, body, part_terms, pad))
                if on_unit is not None:
                    on_unit(unit)
                n += 1
            if group:
                writer.add_document(self._doc_entry(group, bodies))
            writer.commit()
            writer.wait_merging_threads()
        except BaseException:
            try:
                writer.rollback()
            finally:
                del writer
            raise
        self.index.reload()
        self._searcher = self.index.searcher()
        self._meta_stamp = self._stamp()
        return n

    @staticmethod
    def _doc_entry(units: list[Unit], bodies: list[str]) -> tantivy.Document:
        """One entry per document: the whole text, for the document-level half of the score."""
        first = units[0]
        doc = tantivy.Document()
        doc.add_text("doc_key", doc_key(first.document_id))
        doc.add_text("source", first.source)
        doc.add_text("kind", "d")
        for name, text in document_fields(units, bodies).items():
            doc.add_text(name, text)
        doc.add_integer("document_id", first.document_id)
        return doc

    @staticmethod
    def _document(unit: Unit, body: str, parts: str, pad: str) -> tantivy.Document:
        doc = tantivy.Document()
        doc.add_text("doc_key", doc_key(unit.document_id))
        doc.add_text("source", unit.source)
        doc.add_text("kind", "s")
        for name, text in unit_fields(unit, body, parts, pad).items():
            doc.add_text(name, text)
        doc.add_integer("section_id", unit.section_id)
        doc.add_integer("document_id", unit.document_id)
        doc.add_integer("line_start", unit.line_start)
        doc.add_integer("line_end", unit.line_end)
        for name, value in stored_fields(unit).items():
            doc.add_bytes(name, value.encode())
        return doc

    # -- reading -----------------------------------------------------------------------
    def _terms_query(self, terms: Sequence[tuple[str, float]], boosts: Mapping[str, float]) -> tantivy.Query:
        """Any of the terms in any field, each weighted."""
        schema = self.index.schema
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for term, weight in terms:
            t = term[:MAX_TERM]
            for name, boost in boosts.items():
                b = boost * weight
                if b <= 0:
                    continue
                q = tantivy.Query.term_query(schema, name, t)
                clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(q, b) if b != 1.0 else q))
        return tantivy.Query.boolean_query(clauses)

    def _section_boosts(self, config: RankingConfig) -> dict[str, float]:
        return section_boosts(config)

    def _query(
        self, matching: tantivy.Query, *, kind: str, source: str | Sequence[str] | None
    ) -> tantivy.Query:
        """``source``: one source, any of several (several versions of libraries), or all (None)."""
        schema = self.index.schema
        must = [
            (tantivy.Occur.Must, matching),
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "kind", kind)),
        ]
        if isinstance(source, str):
            must.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "source", source)))
        elif source is not None:
            # scoring nothing: each source's own idf would favour the smaller sources
            any_of = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "source", s)) for s in source]
            within = tantivy.Query.const_score_query(tantivy.Query.boolean_query(any_of), 0.0)
            must.append((tantivy.Occur.Must, within))
        return tantivy.Query.boolean_query(must)

    def search(
        self,
        terms: Sequence[tuple[str, float]],
        *,
        source: str | Sequence[str] | None = None,
        limit: int = 10,
        config: RankingConfig | None = None,
        doc_scores: dict[int, float] | None = None,
    ) -> list[LexicalHit]:
        """Units by BM25, each with ``doc_score``: its document's BM25 over the whole text
        (``doc_scores``, when given, receives every document's that matched)."""
        if not terms:
            return []
        config = config or self.config
        searcher = self.searcher()
        boosts = self._section_boosts(config)
        doc_boosts = {d: boosts[f] for d, f in DOC_FIELDS.items()}  # the same weights, per field
        if doc_scores is None:
            doc_scores = {}
        for score, address in searcher.search(
            self._query(self._terms_query(terms, doc_boosts), kind="d", source=source), limit=30, count=False
        ).hits:
            doc_scores[int(searcher.doc(address)["document_id"][0])] = float(score)
        hits: list[LexicalHit] = []
        matching = self._terms_query(terms, boosts)
        for score, address in searcher.search(
            self._query(matching, kind="s", source=source), limit=limit, count=False
        ).hits:
            hits.append(self._hit(searcher, address, float(score), doc_scores))
        return hits

    @staticmethod
    def _hit(
        searcher: tantivy.Searcher, address: Any, score: float, doc_scores: Mapping[int, float]
    ) -> LexicalHit:
        d = searcher.doc(address)
        fields = {k: v[0].decode() if isinstance(v[0], bytes) else v[0] for k, v in d.to_dict().items() if v}
        fields["doc_score"] = doc_scores.get(int(fields["document_id"]), 0.0)
        return LexicalHit(score=score, fields=fields)

    def units(
        self,
        section_ids: Sequence[int],
        *,
        source: str | Sequence[str] | None = None,
        doc_scores: Mapping[int, float] | None = None,
        terms: Sequence[tuple[str, float]] = (),
        config: RankingConfig | None = None,
    ) -> list[LexicalHit]:
        """The entries of these units, those still indexed; for candidates found another way
        (embeddings). Each scored by ``terms`` as :meth:`search` scores it (0 without terms or
        when none of them is in it): a unit just below the lexical pool keeps its words' score."""
        if not section_ids:
            return []
        searcher = self.searcher()
        schema = self.index.schema
        ids = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(schema, "section_id", int(i)))
                for i in section_ids
            ]
        )
        query = self._query(tantivy.Query.const_score_query(ids, 0.0), kind="s", source=source)
        if terms:
            matching = self._terms_query(terms, self._section_boosts(config or self.config))
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Should, matching)]
            )
        found = searcher.search(query, limit=len(section_ids), count=False).hits
        return [
            self._hit(searcher, address, float(score) if terms else 0.0, doc_scores or {})
            for score, address in found
        ]

    def knows(self, term: str) -> bool:
        """Whether any section's text holds ``term`` (an analysed term)."""
        return bool(self.searcher().doc_freq("body", term[:MAX_TERM]))

    def holding(self, terms: Iterable[str]) -> set[str]:
        """Those of ``terms`` some section's text holds (:meth:`knows` of each)."""
        return {t for t in terms if self.knows(t)}

    def num_docs(self) -> int:
        return int(self.searcher().num_docs)
