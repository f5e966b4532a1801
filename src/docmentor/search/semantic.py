"""Section embeddings: stored by content hash in the index, searched in memory.

The record (SQLite) keeps ``search_units`` (each search unit of each document and the hash
of the text that is embedded) and ``unit_vectors`` (one float16 vector per model and hash);
the SQL on them is the store's (:mod:`docmentor.store.vectors`).
A refresh writes the units with the lexical index; embedding comes after, in batches that
commit on their own, so an interrupted run loses at most one batch and the next refresh
(or ``serve``'s background thread) embeds what is still missing. Unchanged units keep their
hash, so their vectors are never computed again.

:class:`VectorCache` is one process's view: a float32 matrix aligned to the units that have
a vector. New vectors are appended as they arrive (cheap while a background run fills
them); a change of the units (a refresh) reloads the whole view.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docmentor.search.units import Unit, build_units
from docmentor.store.vectors import (
    UnitRow,
    delete_orphan_vectors,
    pending_units,
    unit_counts,
    unit_sources,
    vector_state,
    vectors_after,
    vectors_view,
    write_unit_rows,
    write_vectors,
)

if TYPE_CHECKING:
    import numpy as np

    from docmentor.store.db import Store

log = logging.getLogger(__name__)

BATCH = 64  # texts per embedding batch (one SQLite commit each)


@dataclass(frozen=True)
class EmbedReport:
    """What one embedding run did."""

    embedded: int = 0
    pending: int = 0  # units still without a vector (interrupted, or another process is on them)
    seconds: float = 0.0
    skipped: str | None = None  # why nothing ran (turned off, another process embedding …)
    sources: tuple[str, ...] = ()  # whose sections were embedded (a shared text: every source's)

    def to_dict(self) -> dict[str, Any]:
        return {
            "embedded": self.embedded,
            "pending": self.pending,
            "seconds": round(self.seconds, 3),
            "skipped": self.skipped,
            "sources": list(self.sources),
        }


def vector_model(model_id: str, max_tokens: int) -> str:
    """What a stored vector was made with: the model and how much of a text it read."""
    return f"{model_id}/t{max_tokens}"


# -- writing ---------------------------------------------------------------------------
def write_units(
    store: Store, units: Iterable[Unit], *, code_lines: int, clear_sources: Sequence[str] = ()
) -> None:
    """Record units written to the lexical index (the caller holds the write lock)."""
    rows = [UnitRow(u.section_id, u.document_id, u.source, u.content_hash(code_lines)) for u in units]
    write_unit_rows(store, rows, clear_sources=clear_sources)


def counts(store: Store, model: str) -> dict[str, tuple[int, int]]:
    """Per source: (units, units with a vector for ``model``)."""
    return unit_counts(store, model)


@contextlib.contextmanager
def embed_lock(store: Store) -> Iterator[bool]:
    """Whether this process may embed now (one process at a time; others skip, not wait)."""
    with store.try_named_lock("embed") as mine:
        yield mine


def embed_pending(
    store: Store,
    embedder: Any,
    *,
    stub_chars: int,
    code_lines: int,
    max_tokens: int,
    progress: Callable[[int, int], None] | None = None,
    stop: threading.Event | None = None,
    sources: Sequence[str] | None = None,
) -> EmbedReport:
    """Embed every unit that has no vector yet (of ``sources``, when given), shortest texts
    first, a batch per commit."""
    import numpy as np

    t0 = time.perf_counter()
    embedded = 0
    model = vector_model(str(embedder.model_id), max_tokens)
    with embed_lock(store) as mine:
        if not mine:
            return EmbedReport(
                skipped="another docmentor process is embedding this index",
                pending=len(pending_units(store, model, sources)),
            )
        missing = pending_units(store, model, sources)
        if not missing:
            delete_orphan_vectors(store, model)
            return EmbedReport(seconds=time.perf_counter() - t0)
        texts: dict[str, str] = {}
        doc_ids = sorted(set(missing.values()))
        for unit in build_units(store.lexical_rows(doc_ids), stub_chars=stub_chars):
            h = unit.content_hash(code_lines)
            if h in missing and h not in texts:
                texts[h] = unit.embed_text(code_lines)
        if len(texts) < len(missing):  # units of documents no longer searchable, or changed meanwhile
            log.debug("%d unit hashes have no text now", len(missing) - len(texts))
        # similar lengths together: the shares of a batch take about as long
        order = sorted(texts, key=lambda h: len(texts[h]))
        done_sources: set[str] = set()
        total = len(order)
        if progress is not None:
            progress(0, total)
        for start in range(0, total, BATCH):
            if stop is not None and stop.is_set():
                break
            batch = order[start : start + BATCH]
            vectors = embedder.embed([texts[h] for h in batch], max_tokens=max_tokens)
            write_vectors(
                store,
                model,
                [(h, v.astype(np.float16).tobytes()) for h, v in zip(batch, vectors, strict=True)],
            )
            embedded += len(batch)
            done_sources |= unit_sources(store, batch)  # a text two sources share: both
            if progress is not None:
                progress(embedded, total)
        pending = len(pending_units(store, model, sources))
        if not pending:
            delete_orphan_vectors(store, model)
    return EmbedReport(
        embedded=embedded,
        pending=pending,
        seconds=time.perf_counter() - t0,
        sources=tuple(sorted(done_sources)),
    )


# -- reading ---------------------------------------------------------------------------
class VectorCache:
    """One process's in-memory view of the units that have vectors (thread-safe)."""

    def __init__(self, store: Store, model: str, dimensions: int) -> None:
        import numpy as np

        self.store = store
        self.model = model
        self.dimensions = dimensions
        self._lock = threading.Lock()
        self._generation: str | None = None
        self._last_rowid = 0
        self._row_of: dict[int, int] = {}  # section id → matrix row
        self._units_of_hash: dict[str, list[tuple[int, str]]] = {}  # hash → units (section id, source)
        self._ids = np.zeros(0, dtype=np.int64)
        self._sources: list[str] = []
        self._source_codes = np.zeros(0, dtype=np.int32)
        self._codes: dict[str, int] = {}
        self._matrix = np.zeros((0, dimensions), dtype=np.float32)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def refresh(self) -> None:
        """Bring the view up to the store: a full reload when units changed, else new vectors only."""
        state = vector_state(self.store)
        generation, last = state.units_generation, state.last_rowid
        if generation == self._generation and last == self._last_rowid:
            return
        with self._lock:
            if generation != self._generation or last < self._last_rowid:
                self._reload(generation)
            elif last != self._last_rowid:
                self._append(last)

    def _reload(self, generation: str | None) -> None:
        import numpy as np

        view = vectors_view(self.store, self.model)
        last, vectors = view.last_rowid, view.vectors
        self._units_of_hash = {}
        for sid, source, h in view.units:
            self._units_of_hash.setdefault(h, []).append((sid, source))
        self._row_of = {}
        self._codes = {}
        self._sources = []
        ids: list[int] = []
        codes: list[int] = []
        rows: list[bytes] = []
        for h, data in vectors.items():
            for sid, source in self._units_of_hash.get(str(h), ()):
                self._row_of[sid] = len(ids)
                ids.append(sid)
                codes.append(self._code(source))
                rows.append(data)
        n = len(ids)
        matrix = np.zeros((max(n, 16), self.dimensions), dtype=np.float32)
        if n:
            matrix[:n] = np.frombuffer(b"".join(rows), dtype=np.float16).reshape(n, self.dimensions)
        self._matrix = matrix
        self._ids = np.zeros(matrix.shape[0], dtype=np.int64)
        self._ids[:n] = ids
        self._source_codes = np.full(matrix.shape[0], -1, dtype=np.int32)
        self._source_codes[:n] = codes
        self._size = n
        self._generation = generation
        self._last_rowid = last

    def _code(self, source: str) -> int:
        code = self._codes.get(source)
        if code is None:
            code = self._codes[source] = len(self._sources)
            self._sources.append(source)
        return code

    def _append(self, last: int) -> None:
        import numpy as np

        new = vectors_after(self.store, self.model, self._last_rowid, last)
        adds = [
            (sid, source, data)
            for h, data in new
            for sid, source in self._units_of_hash.get(str(h), ())
            if sid not in self._row_of
        ]
        need = self._size + len(adds)
        if need > self._matrix.shape[0]:
            grow = max(need, 2 * self._matrix.shape[0])
            matrix = np.zeros((grow, self.dimensions), dtype=np.float32)
            matrix[: self._size] = self._matrix[: self._size]
            ids = np.zeros(grow, dtype=np.int64)
            ids[: self._size] = self._ids[: self._size]
            codes = np.full(grow, -1, dtype=np.int32)
            codes[: self._size] = self._source_codes[: self._size]
            self._matrix, self._ids, self._source_codes = matrix, ids, codes
        for sid, source, data in adds:
            row = self._size
            self._matrix[row] = np.frombuffer(data, dtype=np.float16)
            self._ids[row] = sid
            self._source_codes[row] = self._code(source)
            self._row_of[sid] = row
            self._size += 1
        self._last_rowid = last

    def search(
        self,
        query_vector: np.ndarray,
        *,
        source: str | Sequence[str] | None,
        top: int,
        also: Sequence[int] = (),
    ) -> tuple[list[tuple[int, float]], Callable[[int], float | None]]:
        """The ``top`` nearest units (section id, cosine), and a look-up of any unit's cosine;
        ``source``: of one source, of any of several, or of all (None). ``also``: the units
        whose cosines will be looked up (this cache has them all; PgVectorSearch needs them)."""
        import numpy as np

        with self._lock:
            n = self._size
            if n == 0:
                return [], _none
            scores = self._matrix[:n] @ query_vector.astype(np.float32, copy=False)
            if isinstance(source, str):
                code = self._codes.get(source)
                if code is None:
                    return [], _none
                scores = np.where(self._source_codes[:n] == code, scores, -np.inf)
            elif source is not None:
                codes = [c for s in source if (c := self._codes.get(s)) is not None]
                if not codes:
                    return [], _none
                scores = np.where(np.isin(self._source_codes[:n], codes), scores, -np.inf)
            k = min(top, n)
            best = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
            best = best[np.argsort(-scores[best])]
            ids = self._ids[:n]
            nearest = [(int(ids[i]), float(scores[i])) for i in best if np.isfinite(scores[i])]
            row_of = self._row_of  # rows appended later are ≥ n: the look-up ignores them

        def cosine(sid: int) -> float | None:
            row = row_of.get(sid)
            if row is None or row >= n:
                return None
            value = float(scores[row])
            return value if np.isfinite(value) else None

        return nearest, cosine


def _none(_key: int) -> float | None:
    return None
