"""Units nearest a query by meaning, found by PostgreSQL (pgvector's HNSW index).

:class:`PgVectorSearch` answers as :class:`~docmentor.search.semantic.VectorCache` does —
the nearest units (section id, cosine) and a look-up of other units' cosines — for an index
in PostgreSQL with pgvector, so a replica holds no vectors in memory however large the index.
The HNSW search is approximate (pgvector's recall at ``EF_SEARCH`` candidates); the
look-up of the lexical hits' cosines is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from docmentor.store.pgvector_rows import nearest_units, unit_cosines, vector_text
from docmentor.store.vectors import unit_counts, vector_state

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["PgVectorSearch"]


class PgVectorSearch:
    def __init__(self, store: Store, model: str) -> None:
        self.store = store
        self.model = model
        self._state: Any = None
        self._embedded = 0

    def __len__(self) -> int:
        return self._embedded

    def refresh(self) -> None:
        """Recount the embedded units when vectors or units were written since the last look."""
        state = vector_state(self.store)
        if state != self._state:
            self._embedded = sum(e for _, e in unit_counts(self.store, self.model).values())
            self._state = state

    def search(
        self, query_vector: Any, *, source: str | Sequence[str] | None, top: int, also: Sequence[int] = ()
    ) -> tuple[list[tuple[int, float]], Callable[[int], float | None]]:
        """The ``top`` nearest units (of ``source``), and the cosines of those and of ``also``."""
        query = vector_text(query_vector)
        sources = None if source is None else [source] if isinstance(source, str) else list(source)
        nearest = nearest_units(self.store, self.model, query, sources=sources, top=top)
        cosines = dict(nearest)
        missing = [int(i) for i in also if int(i) not in cosines]
        if missing:
            cosines.update(unit_cosines(self.store, self.model, query, missing))
        return nearest, cosines.get
