"""The lexical index as tables, for an index in PostgreSQL (``lex_entries``, ``lex_postings``).

The embedded index keeps its lexical index in tantivy's files beside the SQLite file; an
index in PostgreSQL keeps it in the database, so every replica reads the same one and a
refresh commits it like any other write. :mod:`docmentor.search.lexical_pg` decides what
an entry holds and how BM25 scores it; this module only stores and sums:

- ``lex_entries``: one row per entry — a search unit (``kind`` 's', key = its section id) or
  a whole document ('d', key = minus its document id) — with what a hit shows.
- ``lex_postings``: (term, field, key) with the term's frequency in that field and the
  field's length as tantivy records it (:func:`recorded_length`), indexed by (term, field):
  a query reads only its terms' rows.
- ``lex_lengths``: each entry's field lengths, for the average lengths BM25 divides by.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = [
    "PER_TERM",
    "LexEntry",
    "LexStats",
    "TermPostings",
    "doc_freqs",
    "entries",
    "keep_top_postings",
    "lexical_stats",
    "recorded_length",
    "replace_entries",
    "score_entries",
    "term_postings",
]

_CHUNK = 500
#: postings kept per (term, field) in its lex_terms row (m017) and read by a search
#: (score_entries): a term in more entries than this contributes to its densest ones only. 500: the dev suite on PostgreSQL (make eval's
#: three corpora, eval_suite --postgres) keeps every figure of the exact sum but one (tanstack
#: nDCG 0.740 → 0.742); search p50 on 3 copies of the shared corpora (20k sections, lexical,
#: in-process) 86 ms (every posting) → 52 ms (2,000) → 34 ms (500)
PER_TERM = 500


def _norm_table() -> list[int]:
    """The 256 field lengths tantivy can record (its one-byte field norms): 0–40 exactly,
    then runs of eight values, the step doubling from 2 after each run."""
    table = list(range(41))
    step = 2
    while len(table) < 256:
        for _ in range(8):
            if len(table) == 256:
                break
            table.append(table[-1] + step)
        step *= 2
    return table


_NORMS = _norm_table()


def recorded_length(n: int) -> int:
    """``n`` as tantivy records a field's length: the largest table value not above it."""
    return _NORMS[bisect.bisect_right(_NORMS, n) - 1]


@dataclass(frozen=True, slots=True)
class LexEntry:
    """One entry and its terms: ``fields`` maps a field to its whitespace-joined terms."""

    key: int
    kind: str  # 's' (a unit) or 'd' (a whole document)
    source: str
    document_id: int
    stored: dict[str, Any]  # what a hit shows (section id, lines, path, text, …)
    fields: dict[str, str]


@dataclass(frozen=True, slots=True)
class LexStats:
    docs: int  # every entry, of both kinds (as tantivy counts documents)
    tokens: dict[str, int]  # field → total length
    by_kind: dict[str, int]  # kind → entries
    by_source: dict[str, int]  # source → entries


def _postings(entry: LexEntry) -> Iterable[tuple[str, str, int, int, int, float]]:
    for field, text in entry.fields.items():
        terms = text.split()
        if not terms:
            continue
        counts: dict[str, int] = {}
        for term in terms:
            counts[term] = counts.get(term, 0) + 1
        n = recorded_length(len(terms))
        for term, tf in counts.items():
            yield term, field, entry.key, tf, n, tf / max(n, 1)


def replace_entries(
    store: Store,
    *,
    drop_document_ids: Iterable[int],
    drop_sources: Iterable[str],
    drop_all: bool,
    add: Iterable[LexEntry],
) -> int:
    """Drop entries (of documents, of whole sources, or all) and add ``add``, in one
    transaction; the number of entries added."""
    n = 0
    touched: set[str] = set()  # terms whose document frequencies change
    with store.transaction() as db:
        if drop_all:
            for table in ("lex_postings", "lex_lengths", "lex_entries", "lex_terms"):
                db.execute(f"DELETE FROM {table}")  # the names above, no input
        doomed: list[int] = []
        for name in drop_sources:
            doomed.extend(
                int(r[0]) for r in db.execute("SELECT key FROM lex_entries WHERE source = ?", (name,))
            )
        doc_ids = list(drop_document_ids)
        for i in range(0, len(doc_ids), _CHUNK):
            chunk = doc_ids[i : i + _CHUNK]
            rows = db.execute(
                f"SELECT key FROM lex_entries WHERE document_id IN ({','.join('?' * len(chunk))})", chunk
            )
            doomed.extend(int(r[0]) for r in rows)
        for i in range(0, len(doomed), _CHUNK):
            chunk = doomed[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            touched.update(
                str(r[0])
                for r in db.execute(f"SELECT DISTINCT term FROM lex_postings WHERE key IN ({marks})", chunk)
            )
            for table in ("lex_postings", "lex_lengths", "lex_entries"):
                db.execute(f"DELETE FROM {table} WHERE key IN ({marks})", chunk)
        batch: list[LexEntry] = []
        for entry in add:
            batch.append(entry)
            if len(batch) >= _CHUNK:
                _insert(db, batch)
                touched.update(t for e in batch for text in e.fields.values() for t in text.split())
                n += len(batch)
                batch = []
        if batch:
            _insert(db, batch)
            touched.update(t for e in batch for text in e.fields.values() for t in text.split())
            n += len(batch)
        _count_terms(db, sorted(touched), top=store.dialect == "postgresql")
        if store.dialect == "postgresql":  # any not kept yet (m019 filling, an older writer)
            keep_top_postings(db, "t.top_keys IS NULL")
        stats = _count(db)
        db.execute(
            "INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (_STATS, json.dumps({"docs": stats.docs, "tokens": stats.tokens, "by_kind": stats.by_kind,
                                 "by_source": stats.by_source})),
        )  # fmt: skip
    if store.dialect == "postgresql":  # fresh statistics, and index-only reads of the postings
        store.conn().execute("VACUUM (ANALYZE) lex_entries, lex_lengths, lex_postings, lex_terms")
    return n


def _top(where: str) -> str:
    """(term, field, df, and the term's ``PER_TERM`` densest postings in that field) of the
    (term, field)s of ``lex_terms`` matching ``where``: the keys, frequencies and lengths as
    packed big-endian integers (PostgreSQL's ``int8send``/``int4send``), densest first, read
    through the postings' density index."""
    ordered = "ORDER BY p.density DESC, p.key"
    return f"""SELECT t.term, t.field, t.df,
                   string_agg(int8send(p.key), ''::bytea {ordered}),
                   string_agg(int4send(p.tf::int4), ''::bytea {ordered}),
                   string_agg(int4send(p.len::int4), ''::bytea {ordered})
               FROM lex_terms t CROSS JOIN LATERAL (
                   SELECT q.key, q.tf, q.len, q.density FROM lex_postings q
                   WHERE q.term = t.term AND q.field = t.field
                   ORDER BY q.density DESC, q.key LIMIT {PER_TERM}) p
               WHERE {where} GROUP BY t.term, t.field, t.df"""


def keep_top_postings(db: Any, where: str = "TRUE", params: Sequence[Any] = ()) -> None:
    """Store the densest postings of the (term, field)s matching ``where`` (SQL over
    ``lex_terms t``: the store's own text, never input) in their ``lex_terms`` rows
    (PostgreSQL only: what :func:`score_entries` reads)."""
    db.execute(
        f"""UPDATE lex_terms SET top_keys = x.k, top_tfs = x.tf, top_lens = x.len
            FROM ({_top(where)}) x(term, field, df, k, tf, len)
            WHERE lex_terms.term = x.term AND lex_terms.field = x.field""",
        list(params),
    )


def _count_terms(db: Any, terms: Sequence[str], *, top: bool) -> None:
    """Recount the document frequencies of ``terms`` (in every field) from the postings, and
    with ``top`` keep their densest postings (:func:`keep_top_postings`)."""
    for i in range(0, len(terms), _CHUNK):
        chunk = list(terms[i : i + _CHUNK])
        marks = ",".join("?" * len(chunk))
        db.execute(f"DELETE FROM lex_terms WHERE term IN ({marks})", chunk)
        db.execute(
            f"INSERT INTO lex_terms (term, field, df) SELECT term, field, COUNT(*) FROM lex_postings"
            f" WHERE term IN ({marks}) GROUP BY term, field",
            chunk,
        )
        if top:
            keep_top_postings(db, f"t.term IN ({marks})", chunk)


def _insert(db: Any, batch: Sequence[LexEntry]) -> None:
    tables = (
        (
            "lex_entries",
            ("key", "kind", "source", "document_id", "stored"),
            [
                (e.key, e.kind, e.source, e.document_id, json.dumps(e.stored, ensure_ascii=False))
                for e in batch
            ],
        ),
        (
            "lex_lengths",
            ("key", "field", "len"),
            [(e.key, f, len(t.split())) for e in batch for f, t in e.fields.items()],
        ),
        (
            "lex_postings",
            ("term", "field", "key", "tf", "len", "density"),
            [p for e in batch for p in _postings(e)],
        ),
    )
    for table, columns, rows in tables:
        copy = getattr(db, "copy_rows", None)  # PostgreSQL's COPY
        if copy is not None:
            copy(table, columns, rows)
        else:
            marks = ", ".join("?" * len(columns))
            db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)


_STATS = "lexical_stats"  # settings key: the statistics as of the last lexical write


def _count(db: Any) -> LexStats:
    by: dict[tuple[str, str], int] = {
        (str(r[0]), str(r[1])): int(r[2])
        for r in db.execute("SELECT kind, source, COUNT(*) FROM lex_entries GROUP BY kind, source")
    }
    tokens = {
        str(r[0]): int(r[1]) for r in db.execute("SELECT field, SUM(len) FROM lex_lengths GROUP BY field")
    }
    by_kind: dict[str, int] = {}
    by_source: dict[str, int] = {}
    for (kind, source), n in by.items():
        by_kind[kind] = by_kind.get(kind, 0) + n
        by_source[source] = by_source.get(source, 0) + n
    return LexStats(sum(by.values()), tokens, by_kind, by_source)


def lexical_stats(store: Store) -> LexStats:
    """The entries' counts and field lengths BM25 needs: kept with every lexical write (one
    small read per search, however large the index), counted when none were kept."""
    row = store.conn().execute("SELECT value FROM settings WHERE key = ?", (_STATS,)).fetchone()
    if row is None:
        return _count(store.conn())
    data = json.loads(row[0])
    return LexStats(int(data["docs"]), data["tokens"], data["by_kind"], data["by_source"])


def doc_freqs(store: Store, terms: Sequence[str]) -> dict[tuple[str, str], int]:
    """(term, field) → the number of entries whose field holds the term."""
    if not terms:
        return {}
    rows = store.conn().execute(
        f"SELECT term, field, df FROM lex_terms WHERE term IN ({','.join('?' * len(terms))})", list(terms)
    )
    return {(str(r[0]), str(r[1])): int(r[2]) for r in rows}


@dataclass(frozen=True, slots=True)
class TermPostings:
    """A (term, field)'s document frequency and its densest postings (``PER_TERM`` at most:
    entry keys, term frequencies, recorded field lengths), densest first."""

    df: int
    keys: npt.NDArray[np.int64]
    tfs: npt.NDArray[np.float64]
    lens: npt.NDArray[np.float64]


def term_postings(store: Store, terms: Sequence[str]) -> dict[tuple[str, str], TermPostings]:
    """(term, field) → its :class:`TermPostings`, for every field holding one of ``terms``:
    one row per (term, field), however many entries hold the term."""
    out: dict[tuple[str, str], TermPostings] = {}
    if not terms:
        return out
    rows = store.conn().execute(
        "SELECT term, field, df, top_keys, top_tfs, top_lens FROM lex_terms"
        f" WHERE term IN ({','.join('?' * len(terms))})",
        list(terms),
    )
    for r in rows.fetchall():
        term, field, packed = str(r[0]), str(r[1]), (r[3], r[4], r[5])
        if any(p is None for p in packed):
            # not kept yet (an index being filled by m019, or a write by an older process):
            # read them from the postings, as they would have been kept
            found = (
                store.conn()
                .execute(
                    "SELECT key, tf, len FROM lex_postings WHERE term = ? AND field = ?"
                    f" ORDER BY density DESC, key LIMIT {PER_TERM}",
                    (term, field),
                )
                .fetchall()
            )
            keys = np.array([int(f[0]) for f in found], dtype=np.int64)
            tfs = np.array([float(f[1]) for f in found])
            lens = np.array([float(f[2]) for f in found])
        else:
            keys = np.frombuffer(bytes(packed[0]), dtype=">i8").astype(np.int64)
            tfs = np.frombuffer(bytes(packed[1]), dtype=">i4").astype(np.float64)
            lens = np.frombuffer(bytes(packed[2]), dtype=">i4").astype(np.float64)
        out[(term, field)] = TermPostings(int(r[2]), keys, tfs, lens)
    return out


def score_entries(
    store: Store,
    weights: Sequence[tuple[str, str, float, float]],
    *,
    kind: str,
    sources: Sequence[str] | None,
    limit: int,
    keys: Sequence[int] | None = None,
    postings: Mapping[tuple[str, str], TermPostings] | None = None,
    k1: float = 1.2,
    b: float = 0.75,
) -> list[tuple[int, float]]:
    """BM25 of the entries of ``kind`` (of ``sources``; of ``keys``) holding any weighted
    (term, field) — each field belongs to one kind, ``kind`` only matters with ``sources`` —
    Σ weight · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)), best first (ties by key).
    ``weights``: (term, field, weight, the field's average length).

    Without ``keys``, each (term, field) contributes its ``PER_TERM`` densest postings (the
    term's share of the field; ``postings``: those of :func:`term_postings`, read when not
    given): the work per search is bounded however large the index; an entry outside a common
    term's densest postings misses that term's part of its score (a term in fewer entries than
    ``PER_TERM``, which is most, is read whole). With ``keys``, those entries' scores are
    exact, summed in the database from their own postings."""
    if not weights:
        return []
    if keys is None:
        if postings is None:
            postings = term_postings(store, sorted({w[0] for w in weights}))
        summed = _sum_postings(postings, weights, k1=k1, b=b)
        return _first(store, summed, kind=kind, sources=sources, limit=limit)
    values = ", ".join(
        ["(CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS DOUBLE PRECISION), CAST(? AS DOUBLE PRECISION))"]
        * len(weights)
    )
    terms = sorted({str(w[0]) for w in weights})
    formula = f"w.weight * p.tf * {k1 + 1} / (p.tf + {k1} * ({1 - b} + {b} * p.len / w.avglen))"
    sql = f"""WITH w(term, field, weight, avglen) AS (VALUES {values})
              SELECT p.key, SUM({formula}) AS score
              FROM (SELECT key, term, field, tf, len FROM lex_postings
                    WHERE key IN ({",".join("?" * len(keys))})
                    AND term IN ({",".join("?" * len(terms))}) OFFSET 0) p
              JOIN w ON p.term = w.term AND p.field = w.field
              GROUP BY p.key ORDER BY score DESC, p.key LIMIT ?"""
    # by entry, then term (lex_postings_entry, m016): OFFSET 0 keeps PostgreSQL from reading by term
    params: list[Any] = [x for w in weights for x in w]
    rows = store.conn().execute(sql, [*params, *keys, *terms, int(limit)]).fetchall()
    summed = (np.array([int(r[0]) for r in rows], dtype=np.int64), np.array([float(r[1]) for r in rows]))
    return _first(store, summed, kind=kind, sources=sources, limit=limit)


def _sum_postings(
    postings: Mapping[tuple[str, str], TermPostings],
    weights: Sequence[tuple[str, str, float, float]],
    *,
    k1: float,
    b: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Every entry in the weighted (term, field)s' postings, and its summed score."""
    keys: list[npt.NDArray[np.int64]] = []
    scores: list[npt.NDArray[np.float64]] = []
    for term, field, weight, avglen in weights:
        found = postings.get((term, field))
        if found is None or not len(found.keys):
            continue
        tf = found.tfs
        keys.append(found.keys)
        scores.append(weight * tf * (k1 + 1) / (tf + k1 * ((1 - b) + b * found.lens / avglen)))
    if not keys:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    unique, where = np.unique(np.concatenate(keys), return_inverse=True)
    return unique, np.bincount(where, weights=np.concatenate(scores)).astype(np.float64)


def _best(keys: npt.NDArray[np.int64], sums: npt.NDArray[np.float64], n: int) -> list[tuple[int, float]]:
    """The ``n`` best (key, score), best first, ties by key: only those sorted (a search
    sums thousands of entries and keeps tens)."""
    if n <= 0:
        return []
    if len(sums) > n:
        kth = np.partition(sums, len(sums) - n)[len(sums) - n]
        keep = sums >= kth  # every entry tied with the n-th, so ties still go by key
        keys, sums = keys[keep], sums[keep]
    order = np.lexsort((keys, -sums))[:n]
    return list(zip(keys[order].tolist(), sums[order].tolist(), strict=True))


def _first(
    store: Store,
    summed: tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]],
    *,
    kind: str,
    sources: Sequence[str] | None,
    limit: int,
) -> list[tuple[int, float]]:
    """The best ``limit`` of the ``summed`` entries that are entries of ``kind`` in
    ``sources`` (every one when ``sources`` is None: a field's entries are of one kind)."""
    if sources is None:
        return _best(*summed, limit)
    n = max(4 * limit, _CHUNK)
    looked = 0
    kept: set[int] = set()
    while True:
        ranked = _best(*summed, n)
        fresh = [k for k, _ in ranked[looked:]]
        kept.update(_of_sources(store, fresh, kind=kind, sources=sources))
        out = [pair for pair in ranked if pair[0] in kept]
        if len(out) >= limit or len(ranked) < n:
            return out[:limit]
        looked, n = len(ranked), n * 4


def _of_sources(store: Store, keys: Sequence[int], *, kind: str, sources: Sequence[str]) -> set[int]:
    """Those of ``keys`` that are entries of ``kind`` in ``sources`` (keys only, not what
    they show)."""
    out: set[int] = set()
    db = store.conn()
    for i in range(0, len(keys), _CHUNK):
        chunk = list(keys[i : i + _CHUNK])
        rows = db.execute(
            f"SELECT key FROM lex_entries WHERE kind = ? AND key IN ({','.join('?' * len(chunk))})"
            f" AND source IN ({','.join('?' * len(sources))})",
            [kind, *chunk, *sources],
        )
        out.update(int(r[0]) for r in rows)
    return out


def entries(
    store: Store, keys: Sequence[int], *, kind: str, sources: Sequence[str] | None = None
) -> dict[int, tuple[str, int, dict[str, Any]]]:
    """key → (source, document id, stored fields) of those entries still indexed."""
    out: dict[int, tuple[str, int, dict[str, Any]]] = {}
    db = store.conn()
    for i in range(0, len(keys), _CHUNK):
        chunk = list(keys[i : i + _CHUNK])
        sql = f"SELECT key, source, document_id, stored FROM lex_entries WHERE kind = ? AND key IN ({','.join('?' * len(chunk))})"
        params: list[Any] = [kind, *chunk]
        if sources is not None:
            sql += f" AND source IN ({','.join('?' * len(sources))})"
            params.extend(sources)
        for r in db.execute(sql, params):
            out[int(r[0])] = (str(r[1]), int(r[2]), json.loads(r[3]))
    return out
