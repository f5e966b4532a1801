"""Section vectors in pgvector, for an index in PostgreSQL (``unit_embeddings``).

The store keeps every vector in ``unit_vectors`` (float16 bytes by model and hash, on both
databases). When the database has the pgvector extension, an index in PostgreSQL also keeps
them as ``vector`` values with an HNSW index (inner product: the vectors are unit length),
and the nearest units of a query are found by the database, not in each replica's memory.
Without the extension (it needs a superuser to be installed) the engine reads the vectors
into memory as on SQLite, and says so once in the log.

PostgreSQL only; nothing here runs on SQLite.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = [
    "EF_SEARCH",
    "delete_orphan_embeddings",
    "extension_schema",
    "nearest_units",
    "prepare_pgvector",
    "unit_cosines",
    "vector_text",
    "write_embeddings",
]

log = logging.getLogger(__name__)

#: HNSW candidates per search (pgvector's hnsw.ef_search, default 40): a source filter is
#: applied after the index scan, so more candidates keep a filtered search's top full
EF_SEARCH = 200
_BATCH = 500


def vector_text(data: bytes | Any) -> str:
    """A float16 vector (bytes) or an array as pgvector's text form ``[x,y,…]``."""
    import numpy as np

    values = (
        np.frombuffer(data, dtype=np.float16) if isinstance(data, bytes | bytearray | memoryview) else data
    )
    return "[" + ",".join(f"{float(v):.6g}" for v in values) + "]"


def extension_schema(store: Store) -> str | None:
    """The schema pgvector is installed in (made in ``public`` when it is missing), or None
    when the database cannot have it. Its type and operators are found through the search
    path, so a connection whose path lacks that schema adds it (``PgStore.conn``)."""
    db = store.conn()
    try:
        db.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    except Exception as exc:  # not installed on the server, or no right to create it
        log.warning(
            "pgvector is not available (%s): vectors are searched in memory; to search them in "
            "the database, run once as a superuser: CREATE EXTENSION vector SCHEMA public",
            str(exc).strip(),
        )
        return None
    row = db.execute(
        """SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
           WHERE e.extname = 'vector'"""
    ).fetchone()
    return None if row is None else str(row[0])


def prepare_pgvector(store: Store, dimensions: int) -> int:
    """Make ``unit_embeddings`` and its HNSW index if they are missing, and copy in the
    vectors stored before (the extension's schema is on the connection's path); the table's
    dimensions (those of the first model that wrote it: vectors of another size stay in
    ``unit_vectors`` only)."""
    with store.transaction() as tx:
        tx.execute(
            f"""CREATE TABLE IF NOT EXISTS unit_embeddings (
                    model TEXT NOT NULL,
                    hash TEXT NOT NULL,
                    embedding vector({int(dimensions)}) NOT NULL,
                    PRIMARY KEY (model, hash))"""
        )
        tx.execute(
            "CREATE INDEX IF NOT EXISTS unit_embeddings_hnsw ON unit_embeddings USING hnsw (embedding vector_ip_ops)"
        )
        size = int(
            tx.execute(
                """SELECT atttypmod FROM pg_attribute
                   WHERE attrelid = CAST('unit_embeddings' AS regclass) AND attname = 'embedding'"""
            ).fetchone()[0]
        )
        missing = tx.execute(
            """SELECT v.model, v.hash, v.data FROM unit_vectors v
               LEFT JOIN unit_embeddings e ON e.model = v.model AND e.hash = v.hash WHERE e.hash IS NULL"""
        ).fetchall()
        _insert(
            tx, [(str(m), str(h), vector_text(bytes(d))) for m, h, d in missing if len(bytes(d)) == 2 * size]
        )
    return size


def _insert(db: Any, rows: Sequence[tuple[str, str, str]]) -> None:
    for i in range(0, len(rows), _BATCH):
        db.executemany(
            "INSERT INTO unit_embeddings (model, hash, embedding) VALUES (?, ?, CAST(? AS vector))"
            " ON CONFLICT DO NOTHING",
            list(rows[i : i + _BATCH]),
        )


def write_embeddings(db: Any, model: str, vectors: Sequence[tuple[str, bytes]]) -> None:
    """Inside the caller's transaction: (hash, float16 bytes) pairs as pgvector values."""
    _insert(db, [(model, h, vector_text(data)) for h, data in vectors])


def delete_orphan_embeddings(db: Any, model: str) -> None:
    db.execute(
        "DELETE FROM unit_embeddings WHERE model = ?"
        " AND NOT EXISTS (SELECT 1 FROM search_units u WHERE u.hash = unit_embeddings.hash)",
        (model,),
    )


def nearest_units(
    store: Store, model: str, query: str, *, sources: Sequence[str] | None, top: int
) -> list[tuple[int, float]]:
    """The ``top`` units nearest ``query`` (pgvector text) by inner product, best first:
    (section id, cosine), found through the HNSW index."""
    where = ""
    params: list[Any] = [query, model]
    if sources is not None:
        where = f" AND u.source IN ({','.join('?' * len(sources))})"
        params.extend(sources)
    params.extend([query, int(top)])
    db = store.conn()
    db.execute(f"SET hnsw.ef_search = {max(EF_SEARCH, int(top))}")
    rows = db.execute(
        f"""SELECT u.section_id, -(e.embedding <#> CAST(? AS vector)) AS score
            FROM unit_embeddings e JOIN search_units u ON u.hash = e.hash
            WHERE e.model = ?{where}
            ORDER BY e.embedding <#> CAST(? AS vector) LIMIT ?""",
        params,
    )
    return [(int(r[0]), float(r[1])) for r in rows]


def unit_cosines(store: Store, model: str, query: str, section_ids: Sequence[int]) -> dict[int, float]:
    """The cosine of each of these units that has a vector."""
    out: dict[int, float] = {}
    ids = list(section_ids)
    db = store.conn()
    for i in range(0, len(ids), _BATCH):
        chunk = ids[i : i + _BATCH]
        rows = db.execute(
            f"""SELECT u.section_id, -(e.embedding <#> CAST(? AS vector))
                FROM search_units u JOIN unit_embeddings e ON e.hash = u.hash AND e.model = ?
                WHERE u.section_id IN ({",".join("?" * len(chunk))})""",
            [query, model, *chunk],
        )
        out.update((int(r[0]), float(r[1])) for r in rows)
    return out
