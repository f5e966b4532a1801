"""Registered knowledge bases in the index (tables of migration ``m004_knowledge_bases``).

Registering copies a knowledge base's records into the index in one transaction, replacing
the library's previous rows, so readers (the MCP server, ``docmentor api``) see the old
knowledge base or the new one, never a mix. Each registration bumps the library's
``generation``; readers that cache per library compare it.

The store keeps plain data and knows no product: records go in and come out as JSON texts
(:class:`KbRecords`), and the product turns them into its models and back
(:mod:`docmentor.library.knowledge.kb_index`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError, StoreError
from docmentor.store.dbapi import MissingTable, missing_table

if TYPE_CHECKING:
    from docmentor.embeddings import LibraryVectors
    from docmentor.store.db import Store

__all__ = [
    "KbRecords",
    "KbRow",
    "list_kbs",
    "load_entry_records",
    "load_example_records",
    "load_metadata",
    "load_overview",
    "load_vectors",
    "register_records",
    "unregister_kb",
]


@dataclass(frozen=True, slots=True)
class KbRecords:
    """One knowledge base as the index keeps it: plain data, the records as JSON texts."""

    library: str
    version: str | None
    path: str  # the knowledge base's folder, resolved
    generated_at: str
    entries: Sequence[tuple[str, str]]  # (api_id, the entry as JSON), in catalog order
    examples: Sequence[tuple[str, str]]  # (example_id, the example as JSON), in document order
    overview: str  # JSON object
    metadata: str  # JSON object
    vectors: LibraryVectors | None = None


@dataclass(frozen=True, slots=True)
class KbRow:
    library: str
    version: str | None
    path: str
    generated_at: str
    api_count: int
    example_count: int
    generation: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "version": self.version,
            "path": self.path,
            "generated_at": self.generated_at,
            "api_count": self.api_count,
            "example_count": self.example_count,
            "generation": self.generation,
        }


def register_records(store: Store, kb: KbRecords) -> int:
    """Register ``kb`` for its library, replacing the library's rows; returns the new generation."""
    library = kb.library
    entries = [(library, api_id, i, data) for i, (api_id, data) in enumerate(kb.entries)]
    examples = [(library, example_id, i, data) for i, (example_id, data) in enumerate(kb.examples)]
    with store.transaction() as db:
        db.execute("DELETE FROM kb_entries WHERE library = ?", (library,))
        db.execute("DELETE FROM kb_examples WHERE library = ?", (library,))
        db.execute("DELETE FROM kb_vectors WHERE library = ?", (library,))
        db.execute(
            """INSERT INTO knowledge_bases (library, version, path, generated_at, api_count, example_count,
                                            generation, overview, metadata)
               VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)
               ON CONFLICT(library) DO UPDATE SET version = excluded.version, path = excluded.path,
                   generated_at = excluded.generated_at, api_count = excluded.api_count,
                   example_count = excluded.example_count, overview = excluded.overview,
                   metadata = excluded.metadata, generation = knowledge_bases.generation + 1""",
            (
                library,
                kb.version,
                kb.path,
                kb.generated_at,
                len(kb.entries),
                len(kb.examples),
                kb.overview,
                kb.metadata,
            ),
        )
        db.executemany(
            """INSERT INTO kb_entries VALUES (?, ?, ?, ?) ON CONFLICT (library, api_id)
               DO UPDATE SET ord = excluded.ord, data = excluded.data""",
            entries,
        )
        db.executemany(
            """INSERT INTO kb_examples VALUES (?, ?, ?, ?) ON CONFLICT (library, example_id)
               DO UPDATE SET ord = excluded.ord, data = excluded.data""",
            examples,
        )
        if kb.vectors is not None:
            v = kb.vectors
            db.execute(
                "INSERT INTO kb_vectors VALUES (?, ?, ?, ?, ?)",
                (
                    library,
                    v.model,
                    int(v.matrix.shape[1]),
                    json.dumps({"rows": v.api_ids, "primary": v.primary}),
                    v.matrix.astype("<f4").tobytes(),
                ),
            )
        row = db.execute("SELECT generation FROM knowledge_bases WHERE library = ?", (library,)).fetchone()
    return int(row[0])


def unregister_kb(store: Store, library: str) -> KbRow:
    """Remove a library's knowledge base from the index, its APIs, examples and vectors with
    it (the folder on disk is left alone); returns what was registered."""
    row = _require(store, library)
    with store.transaction() as db:
        for table in ("kb_entries", "kb_examples", "kb_vectors", "knowledge_bases"):
            db.execute(f"DELETE FROM {table} WHERE library = ?", (library,))  # the names above, no input
    return row


def list_kbs(store: Store) -> list[KbRow]:
    """Every registered knowledge base, by library name (an index without the tables: none)."""
    try:
        rows = store.conn().execute(
            """SELECT library, version, path, generated_at, api_count, example_count, generation
               FROM knowledge_bases ORDER BY library"""
        )
        return [KbRow(*tuple(r)) for r in rows]
    except (sqlite3.OperationalError, MissingTable) as exc:
        if missing_table(exc):
            return []
        raise StoreError(f"cannot read the knowledge bases: {exc}") from exc


def _require(store: Store, library: str) -> KbRow:
    rows = list_kbs(store)
    for row in rows:
        if row.library == library:
            return row
    known = ", ".join(r.library for r in rows) or "none"
    raise NotFoundError(
        f"no knowledge base for library {library!r}",
        hint=f"libraries with one: {known}; readme-llm generate makes one for another",
    )


def _column(store: Store, library: str, column: str) -> Any:
    _require(store, library)
    row = (
        store.conn().execute(f"SELECT {column} FROM knowledge_bases WHERE library = ?", (library,)).fetchone()
    )
    return json.loads(row[0]) if row is not None else {}


def load_entry_records(store: Store, library: str) -> list[str]:
    """The library's API catalog as JSON texts, most important first."""
    return _load_records(store, library, "kb_entries")


def load_example_records(store: Store, library: str) -> list[str]:
    """The library's examples database as JSON texts, in document order."""
    return _load_records(store, library, "kb_examples")


def _load_records(store: Store, library: str, table: str) -> list[str]:
    with store.snapshot() as db:
        _require(store, library)
        rows = db.execute(f"SELECT data FROM {table} WHERE library = ? ORDER BY ord", (library,)).fetchall()
    return [r[0] for r in rows]  # TEXT as written by register_records


def load_vectors(store: Store, library: str) -> LibraryVectors | None:
    """The library's API embeddings, or None when it was generated without them."""
    import numpy as np

    from docmentor.embeddings import LibraryVectors

    with store.snapshot() as db:
        _require(store, library)
        row = db.execute(
            "SELECT model, dimensions, api_ids, data FROM kb_vectors WHERE library = ?", (library,)
        ).fetchone()
    if row is None:
        return None
    model, dimensions, ids_json, data = row
    ids = json.loads(ids_json)
    api_ids, primary = (ids.get("rows"), ids.get("primary")) if isinstance(ids, dict) else (ids, None)
    matrix = np.frombuffer(data, dtype="<f4").astype(np.float32)
    if not isinstance(api_ids, list) or matrix.size != len(api_ids) * int(dimensions):
        raise StoreError(
            f"the index's embeddings of {library!r} are damaged",
            hint=f"regenerate them: docmentor readme-llm generate --library {library}",
        )
    return LibraryVectors(
        model=str(model),
        api_ids=[str(a) for a in api_ids],
        matrix=matrix.reshape(len(api_ids), int(dimensions)),
        primary=primary if isinstance(primary, int) else -1,
    )


def load_overview(store: Store, library: str) -> dict[str, Any]:
    """The library's overview (library_overview.json) as a dict."""
    return dict(_column(store, library, "overview"))


def load_metadata(store: Store, library: str) -> dict[str, Any]:
    """The library's metadata.json as a dict."""
    return dict(_column(store, library, "metadata"))
