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
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import tantivy

from docmentor.errors import StoreError
from docmentor.search.analyzer import analyze_joined

log = logging.getLogger(__name__)

# Field boosts: a match in the title or a heading says more than one in the body.
BOOSTS: Mapping[str, float] = {"title": 1.0, "heading": 1.0, "path": 1.0, "body": 1.0}
MAX_TERM = 80


@dataclass(frozen=True, slots=True)
class LexicalHit:
    score: float
    fields: dict[str, Any]


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("doc_key", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("source", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(
        "kind", stored=False, tokenizer_name="raw", index_option="basic"
    )  # "s"ection | "d"ocument
    for name in BOOSTS:
        sb.add_text_field(name, stored=False, tokenizer_name="whitespace", index_option="freq")
    sb.add_integer_field("section_id", stored=True)
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
    """What the index stores of a section's text (its terms, space-joined): computed ahead of
    :meth:`LexicalIndex.replace` (``body_terms``) when parsing runs elsewhere."""
    return _terms(text)


@lru_cache(maxsize=4096)
def _short_terms(text: str) -> str:
    """Titles, heading paths and file names repeat across a document's sections."""
    return _terms(text)


def _path_terms(path: str) -> str:
    """The file name's words (``resource-limits.md`` → resource, limit)."""
    name = path.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return _short_terms(name.replace("-", " ").replace("_", " "))


def doc_key(document_id: int) -> str:
    return str(document_id)


class LexicalIndex:
    def __init__(self, path: Path, *, recreate: bool = False) -> None:
        self.path = path
        if recreate and path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self.index = tantivy.Index(_schema(), path=str(path), reuse=True)
        except ValueError as exc:
            raise StoreError(
                f"the lexical index at {path} is unusable: {exc}", hint="run: docmentor reindex"
            ) from exc
        self._meta_stamp = self._stamp()
        self._searcher = self.index.searcher()

    def _stamp(self) -> tuple[float, int]:
        try:
            st = os.stat(self.path / "meta.json")
        except FileNotFoundError:
            return (0.0, 0)
        return (st.st_mtime, st.st_size)

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
    ) -> int:
        """Drop documents (and whole sources), add sections, and commit once.

        ``body_terms`` maps section texts to :func:`section_terms` already computed.
        """
        writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        try:
            if drop_all:
                writer.delete_all_documents()
            for name in drop_sources:
                writer.delete_documents_by_term("source", name)
            for doc_id in drop_document_ids:
                writer.delete_documents_by_term("doc_key", doc_key(doc_id))
            n = 0
            group: list[Any] = []
            bodies: list[str] = []
            for row in rows:
                if group and group[0]["document_id"] != row["document_id"]:
                    writer.add_document(self._doc_entry(group, bodies))
                    group, bodies = [], []
                group.append(row)
                text = str(row["text"])
                body = body_terms.get(text) if body_terms else None
                if body is None:
                    body = _terms(text)
                bodies.append(body)
                writer.add_document(self._document(row, body))
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
    def _doc_entry(rows: list[Mapping[str, Any]], bodies: list[str]) -> tantivy.Document:
        """One entry per document: the whole text, for the document-level half of the score."""
        first = rows[0]
        doc = tantivy.Document()
        doc.add_text("doc_key", doc_key(int(first["document_id"])))
        doc.add_text("source", str(first["source"]))
        doc.add_text("kind", "d")
        doc.add_text("title", _terms(str(first["title"])))
        doc.add_text("heading", _terms(" ".join(str(r["heading"]) for r in rows)))
        doc.add_text("path", _path_terms(str(first["path"])))
        doc.add_text("body", " ".join(bodies))
        doc.add_integer("document_id", int(first["document_id"]))
        return doc

    @staticmethod
    def _document(row: Mapping[str, Any], body: str) -> tantivy.Document:
        stored_path = row["heading_path"]  # JSON from the store (or a list)
        heading_path = json.loads(stored_path) if isinstance(stored_path, str) else stored_path
        path = str(row["path"])
        doc = tantivy.Document()
        doc.add_text("doc_key", doc_key(int(row["document_id"])))
        doc.add_text("source", str(row["source"]))
        doc.add_text("kind", "s")
        doc.add_text("title", _short_terms(str(row["title"])))
        doc.add_text(
            "heading",
            _short_terms(
                " ".join(
                    heading_path[1:] if heading_path and heading_path[0] == row["title"] else heading_path
                )
            ),
        )
        doc.add_text("path", _path_terms(path))
        doc.add_text("body", body)
        doc.add_integer("section_id", int(row["section_id"]))
        doc.add_integer("document_id", int(row["document_id"]))
        doc.add_integer("line_start", int(row["line_start"]))
        doc.add_integer("line_end", int(row["line_end"]))
        doc.add_bytes("s_path", path.encode())
        doc.add_bytes("s_url", str(row["url"]).encode())
        doc.add_bytes("s_title", str(row["title"]).encode())
        doc.add_bytes("s_heading", str(row["heading"]).encode())
        doc.add_bytes(
            "s_heading_path",
            (stored_path if isinstance(stored_path, str) else json.dumps(heading_path)).encode(),
        )
        doc.add_bytes("s_text", str(row["text"]).encode())
        doc.add_bytes("s_indexed_at", str(row["indexed_at"]).encode())
        return doc

    # -- reading -----------------------------------------------------------------------
    def _terms_query(self, terms: Sequence[tuple[str, float]]) -> tantivy.Query:
        """Any of the terms in any field, each weighted (built once per search, used twice)."""
        schema = self.index.schema
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for term, weight in terms:
            t = term[:MAX_TERM]
            for field, boost in BOOSTS.items():
                q = tantivy.Query.term_query(schema, field, t)
                b = boost * weight
                clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(q, b) if b != 1.0 else q))
        return tantivy.Query.boolean_query(clauses)

    def _query(self, matching: tantivy.Query, *, kind: str, source: str | None) -> tantivy.Query:
        schema = self.index.schema
        must = [
            (tantivy.Occur.Must, matching),
            (tantivy.Occur.Must, tantivy.Query.term_query(schema, "kind", kind)),
        ]
        if source is not None:
            must.append((tantivy.Occur.Must, tantivy.Query.term_query(schema, "source", source)))
        return tantivy.Query.boolean_query(must)

    def search(
        self, terms: Sequence[tuple[str, float]], *, source: str | None = None, limit: int = 10
    ) -> list[LexicalHit]:
        """Sections by BM25, each with ``doc_score``: its document's BM25 over the whole text."""
        if not terms:
            return []
        searcher = self.searcher()
        matching = self._terms_query(terms)
        doc_scores: dict[int, float] = {}
        for score, address in searcher.search(
            self._query(matching, kind="d", source=source), limit=30, count=False
        ).hits:
            doc_scores[int(searcher.doc(address)["document_id"][0])] = float(score)
        hits: list[LexicalHit] = []
        for score, address in searcher.search(
            self._query(matching, kind="s", source=source), limit=limit, count=False
        ).hits:
            d = searcher.doc(address)
            fields = {
                k: v[0].decode() if isinstance(v[0], bytes) else v[0] for k, v in d.to_dict().items() if v
            }
            fields["doc_score"] = doc_scores.get(int(fields["document_id"]), 0.0)
            hits.append(LexicalHit(score=float(score), fields=fields))
        return hits

    def knows(self, term: str) -> bool:
        """Whether any section's text holds ``term`` (an analysed term)."""
        return bool(self.searcher().doc_freq("body", term[:MAX_TERM]))

    def num_docs(self) -> int:
        return int(self.searcher().num_docs)
