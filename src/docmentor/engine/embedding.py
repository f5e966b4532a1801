"""Embedding the search units and searching them by meaning (the hybrid half of search)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from docmentor.engine.core import IndexCore
from docmentor.engine.reports import Progress
from docmentor.search.analyzer import identifiers_only
from docmentor.search.config import RankingConfig
from docmentor.search.hybrid import blend
from docmentor.search.lexical import LexicalSearch
from docmentor.search.semantic import EmbedReport, VectorCache, embed_pending, vector_model
from docmentor.search.semantic_pg import PgVectorSearch

log = logging.getLogger(__name__)


class Embedding(IndexCore):
    """Embeds sections (:meth:`embed`) and finds the units nearest a query by meaning."""

    def embed(
        self,
        *,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
        sources: Sequence[str] | None = None,
    ) -> EmbedReport:
        """Embed every search unit that has no vector yet (unchanged ones keep theirs); only
        those of ``sources`` when given (``refresh NAME`` embeds that source, not the others'
        units left without vectors by ``--no-embeddings``).

        Each batch commits on its own: ``stop`` (or Ctrl-C) ends the run after the batch in
        hand, and what is still missing is embedded by the next call. Never raises for a
        model that cannot be loaded: the report says why nothing was embedded, and search
        stays lexical."""
        if not self.embeddings:
            return EmbedReport(skipped="embeddings are turned off")
        from docmentor.embeddings import EmbeddingUnavailable, get_embedder

        try:
            embedder = get_embedder()
        except EmbeddingUnavailable as exc:
            log.warning("sections not embedded: %s", exc)
            return EmbedReport(skipped=str(exc))
        cb = (lambda done, total: progress(done, total, "embedding")) if progress else None
        return embed_pending(
            self.store,
            embedder,
            stub_chars=self.ranking.stub_chars,
            code_lines=self.ranking.embed_code_lines,
            max_tokens=self.ranking.embed_tokens,
            progress=cb,
            stop=stop,
            sources=sources,
        )

    def _vector_cache(self) -> VectorCache | PgVectorSearch | None:
        """This process's view of the section vectors (PostgreSQL with pgvector: the
        database's search); None when embeddings are off."""
        if not self.embeddings:
            return None
        if self._vectors is None:
            from docmentor.embeddings import DIMENSIONS, MODEL_ID

            model = vector_model(MODEL_ID, self.ranking.embed_tokens)
            with self._open_lock:
                if self._vectors is None:
                    self._vectors = (
                        PgVectorSearch(self.store, model)
                        if self.store.pgvector_ready(DIMENSIONS)
                        else VectorCache(self.store, model, DIMENSIONS)
                    )
        return self._vectors

    def _query_vector(self, query: str) -> Any:
        """The query's embedding, or None: embeddings off, the model not loadable, or (for a
        server) not loaded yet: it is then loaded in the background and search stays lexical."""
        from docmentor.embeddings import EmbeddingUnavailable, embedder_loaded, get_embedder

        if self._model_failed:
            return None
        if not self.wait_for_model and not embedder_loaded():
            self.load_model_in_background()
            loading = self._loading
            if self.model_wait > 0 and loading is not None:
                loading.join(timeout=self.model_wait)  # a load under way is ~1 s: worth the wait
            if not embedder_loaded():
                return None
        try:
            return get_embedder().embed_one(query)
        except EmbeddingUnavailable as exc:
            self._model_failed = True
            log.warning("searching by words only: %s", exc)
            return None

    def load_model_in_background(self) -> None:
        """Start loading the embedding model in a thread, once per process."""
        with self._open_lock:
            if self._loading is not None:
                return
            self._loading = threading.Thread(target=self._load_model, name="docmentor-model", daemon=True)
            self._loading.start()

    def _load_model(self) -> None:
        from docmentor.embeddings import EmbeddingUnavailable, get_embedder

        try:
            get_embedder()
        except EmbeddingUnavailable as exc:
            self._model_failed = True
            log.warning("searching by words only: %s", exc)

    def _nearest(
        self,
        query: str,
        source: str | Sequence[str] | None,
        top: int,
        ranking: RankingConfig | None = None,
        also: Sequence[int] = (),
    ) -> tuple[list[tuple[int, float]], Callable[[int], float | None]] | None:
        """The ``top`` units nearest the query by meaning and each unit's cosine (by section
        id; ``also``: the other units whose cosines will be asked); None where there is
        nothing to compare: embeddings off, no vector yet (the model is then not even
        loaded), or no model."""
        cache = self._vector_cache()
        if cache is None or (ranking or self.ranking).semantic_weight <= 0:
            return None
        cache.refresh()
        if not len(cache):
            return None
        vector = self._query_vector(query)
        return None if vector is None else cache.search(vector, source=source, top=top, also=also)

    def _hybrid(
        self,
        index: LexicalSearch,
        query: str,
        hits: list[Any],
        doc_scores: dict[int, float],
        *,
        source: str | Sequence[str] | None,
        check: bool = False,
        terms: Sequence[tuple[str, float]] = (),
        ranking: RankingConfig | None = None,
    ) -> list[Any] | None:
        """Lexical hits blended with the nearest units by meaning; None: no vectors to use.
        ``terms``: the analysed query, to score by words the units found by meaning alone.
        ``check``: keep only units the store still has (see :meth:`_read_lexical`)."""
        r = ranking or self.ranking
        if r.identifiers_by_words and identifiers_only(query):
            return None  # exact names: the model reads them as their parts
        have = {int(h.fields.get("section_id", 0)) for h in hits}
        found = self._nearest(query, source, r.semantic_pool, r, also=sorted(have))
        if found is None:
            return None
        nearest, cosine = found
        extra = index.units(
            [sid for sid, _ in nearest if sid not in have],
            source=source,
            doc_scores=doc_scores,
            terms=terms,
            config=r,
        )
        if check:
            extra = self._live(extra)
        return blend(hits, extra, cosine, r)
