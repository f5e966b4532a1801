"""Search units and their vectors in the index (``search_units``, ``unit_vectors``).

The search layer decides what a unit is, what of it is embedded and how vectors are searched
(:mod:`docmentor.search.semantic`); the store keeps the rows: each unit of each document with
the hash of its embedded text, and one float16 vector per model and hash. Every write of
units bumps the ``units_generation`` setting, so a reader's cached view knows to reload; new
vectors only grow ``unit_vectors``' rowid, so a reader can append just those.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from docmentor.store.db import Store
    from docmentor.store.dbapi import Connection

__all__ = [
    "UNITS_GENERATION",
    "UnitRow",
    "VectorState",
    "VectorsView",
    "delete_orphan_vectors",
    "pending_units",
    "unit_counts",
    "unit_sources",
    "vector_state",
    "vectors_after",
    "vectors_view",
    "write_unit_rows",
    "write_vectors",
]

UNITS_GENERATION = "units_generation"  # settings key: bumped whenever units are written


class UnitRow(NamedTuple):
    """One search unit as stored: its section, document, source and the hash of its text."""

    section_id: int
    document_id: int
    source: str
    hash: str


@dataclass(frozen=True, slots=True)
class VectorState:
    """What a reader compares to know whether its view is current."""

    units_generation: str | None  # None: no units were ever written
    last_rowid: int  # the newest vector's rowid (0: none)


@dataclass(frozen=True, slots=True)
class VectorsView:
    """Every unit and the vectors of one model, read from one committed state."""

    last_rowid: int
    units: list[tuple[int, str, str]]  # (section id, source, hash)
    vectors: dict[str, bytes]  # hash → float16 vector, rowid ≤ last_rowid


def write_unit_rows(store: Store, rows: Iterable[UnitRow], *, clear_sources: Sequence[str] = ()) -> None:
    """Replace these units (first dropping every unit of ``clear_sources``), in one transaction."""
    with store.transaction() as db:
        for name in clear_sources:
            db.execute("DELETE FROM search_units WHERE source = ?", (name,))
        db.executemany(
            """INSERT INTO search_units VALUES (?, ?, ?, ?) ON CONFLICT (section_id) DO UPDATE SET
               document_id = excluded.document_id, source = excluded.source, hash = excluded.hash""",
            list(rows),
        )
        _bump(db)


def _bump(db: Connection) -> None:
    db.execute(
        "INSERT INTO settings VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(settings.value AS INTEGER) + 1",
        (UNITS_GENERATION,),
    )


def pending_units(store: Store, model: str, sources: Sequence[str] | None = None) -> dict[str, int]:
    """Hashes of units without a vector for ``model`` → a document that holds one (only the
    units of ``sources``, when given)."""
    only = f" AND u.source IN ({','.join('?' * len(sources))})" if sources else ""
    rows = store.conn().execute(
        f"""SELECT u.hash, MIN(u.document_id) FROM search_units u
           LEFT JOIN unit_vectors v ON v.model = ? AND v.hash = u.hash
           WHERE v.hash IS NULL{only} GROUP BY u.hash""",
        (model, *(sources or ())),
    )
    return {str(h): int(d) for h, d in rows}


def unit_sources(store: Store, hashes: Sequence[str]) -> set[str]:
    """The sources that hold a unit with one of these hashes (a text two sources share is one
    vector for both)."""
    out: set[str] = set()
    for i in range(0, len(hashes), 500):
        chunk = list(hashes[i : i + 500])
        rows = store.conn().execute(
            f"SELECT DISTINCT source FROM search_units WHERE hash IN ({','.join('?' * len(chunk))})", chunk
        )
        out.update(str(r[0]) for r in rows)
    return out


def unit_counts(store: Store, model: str) -> dict[str, tuple[int, int]]:
    """Per source: (units, units with a vector for ``model``)."""
    rows = store.conn().execute(
        """SELECT u.source, COUNT(*), COUNT(v.hash) FROM search_units u
           LEFT JOIN unit_vectors v ON v.model = ? AND v.hash = u.hash GROUP BY u.source""",
        (model,),
    )
    return {str(s): (int(n), int(e)) for s, n, e in rows}


def write_vectors(store: Store, model: str, vectors: Sequence[tuple[str, bytes]]) -> None:
    """Store (hash, float16 vector bytes) pairs for ``model``, one transaction (on PostgreSQL
    with pgvector, as ``vector`` values too: :mod:`docmentor.store.pgvector_rows`)."""
    in_pgvector = bool(vectors) and store.pgvector_ready(len(vectors[0][1]) // 2)
    with store.transaction() as db:
        if in_pgvector:
            from docmentor.store.pgvector_rows import write_embeddings

            write_embeddings(db, model, vectors)
        db.executemany(
            # a hash's vector never changes: one already stored keeps its place (and rowid)
            "INSERT INTO unit_vectors (model, hash, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(model, h, data) for h, data in vectors],
        )


def delete_orphan_vectors(store: Store, model: str) -> None:
    """Drop ``model``'s vectors no unit has any more (their sections changed or went away)."""
    with store.transaction() as db:
        if store.has_pgvector:  # only where the table was made
            from docmentor.store.pgvector_rows import delete_orphan_embeddings

            delete_orphan_embeddings(db, model)
        db.execute(
            # NOT EXISTS, not NOT IN: PostgreSQL runs NOT IN over a large subquery in quadratic time
            "DELETE FROM unit_vectors WHERE model = ?"
            " AND NOT EXISTS (SELECT 1 FROM search_units u WHERE u.hash = unit_vectors.hash)",
            (model,),
        )


def vector_state(store: Store) -> VectorState:
    db = store.conn()
    row = db.execute("SELECT value FROM settings WHERE key = ?", (UNITS_GENERATION,)).fetchone()
    last = db.execute("SELECT MAX(rowid) FROM unit_vectors").fetchone()[0] or 0
    return VectorState(None if row is None else str(row[0]), int(last))


def vectors_view(store: Store, model: str) -> VectorsView:
    """Every unit and ``model``'s vectors, from one committed state (a read transaction)."""
    with store.snapshot() as db:
        last = db.execute("SELECT MAX(rowid) FROM unit_vectors").fetchone()[0] or 0
        units = [
            (int(sid), str(source), str(h))
            for sid, source, h in db.execute("SELECT section_id, source, hash FROM search_units")
        ]
        vectors = {
            str(h): bytes(data)
            for h, data in db.execute(
                "SELECT hash, data FROM unit_vectors WHERE model = ? AND rowid <= ?", (model, last)
            )
        }
    return VectorsView(int(last), units, vectors)


def vectors_after(store: Store, model: str, after: int, upto: int) -> list[tuple[str, bytes]]:
    """``model``'s vectors with ``after`` < rowid ≤ ``upto``: (hash, float16 vector bytes)."""
    rows = store.conn().execute(
        "SELECT hash, data FROM unit_vectors WHERE model = ? AND rowid > ? AND rowid <= ?",
        (model, after, upto),
    )
    return [(str(h), bytes(data)) for h, data in rows]
