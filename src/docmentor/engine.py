"""The library API: one facade over sources → parse → store → search.

The CLI, the MCP server and the tests all call :class:`Docmentor`; nothing else writes
the index.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar
from urllib.parse import urljoin

from docmentor.config import (
    ConfiguredSource,
    auto_name,
    default_db,
    embeddings_enabled,
    is_url,
    validate_name,
)
from docmentor.errors import DocmentorError, NotFoundError, SourceUnavailableError, StoreError, UsageError
from docmentor.models import RawDocument, SearchHit, SourceKind, SourceOptions, SourceSpec
from docmentor.parse.batch import parse_many
from docmentor.search.analyzer import ANALYZER_VERSION, analyze_query
from docmentor.search.config import DEFAULT as DEFAULT_RANKING
from docmentor.search.config import RankingConfig
from docmentor.search.hybrid import blend
from docmentor.search.lexical import LexicalIndex, section_terms
from docmentor.search.ranking import excerpts, rank_hits
from docmentor.search.semantic import (
    EmbedReport,
    VectorCache,
    counts,
    embed_pending,
    vector_model,
    write_units,
)
from docmentor.search.units import Unit
from docmentor.store.db import DocChange, SourceRow, Store, StoredDoc

if TYPE_CHECKING:
    from docmentor.assemble import Digest

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
DEFAULT_MAX_BYTES = 5_000_000
#: seconds one ``refresh`` of every source may take (llms.txt fetching stops then; what was
#: not fetched keeps its last good copy, sources not reached are left as they were)
DEFAULT_REFRESH_DEADLINE = 1800.0
#: a refresh that would leave a source fewer than half of its documents, when it had at least
#: this many, removes none (they stay, stale) and warns: removing them takes ``refresh --prune``
PRUNE_GUARD_MIN = 4
#: seconds a search waits for a writer between its store and lexical commits (then it
#: filters its hits against the store instead)
SETTLE_WAIT = 5.0
#: searches run again when a writer committed while they ran, before filtering against the store
READ_ATTEMPTS = 3
_T = TypeVar("_T")


@dataclass
class RefreshReport:
    """What one refresh of one source did."""

    source: str
    kind: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    documents: int = 0
    sections: int = 0
    seconds: float = 0.0
    error: str | None = None  # the whole source could not be read; it was left as it was
    refused: set[str] = field(default_factory=set)  # of ``failed``, links refused by policy
    embedding: EmbedReport | None = None  # the embedding run that followed, if any

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "error": self.error,
            "kind": self.kind,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "failed": [{"path": p, "error": e} for p, e in self.failed],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "warnings": self.warnings,
            "documents": self.documents,
            "sections": self.sections,
            "seconds": round(self.seconds, 3),
            "embedding": self.embedding.to_dict() if self.embedding is not None else None,
        }


@dataclass(frozen=True)
class DocPage:
    source: str
    path: str
    url: str
    title: str
    content: str
    offset: int
    length: int
    total_length: int
    has_more: bool
    stale: bool
    error: str | None
    indexed_at: str
    #: characters of what was asked for (the lines' text with ``lines``, else the document);
    #: ``has_more`` and the next ``offset`` count in it (not in the JSON)
    span_length: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "path": self.path,
            "url": self.url,
            "title": self.title,
            "content": self.content,
            "offset": self.offset,
            "length": self.length,
            "total_length": self.total_length,
            "has_more": self.has_more,
            "stale": self.stale,
            "error": self.error,
            "indexed_at": self.indexed_at,
        }


class SourceInfo(TypedDict):
    """One indexed source, as :meth:`Docmentor.sources` lists it (and ``sources --json`` prints it)."""

    name: str
    kind: str
    target: str
    title: str | None
    version: str | None
    documents: int
    sections: int
    stale_documents: int
    status: str
    error: str | None
    created_at: str
    refreshed_at: str | None
    options: dict[str, Any]
    units: int  # search units
    embedded: int  # of them, with a vector


class DocExcerpts(TypedDict):
    """The passages of one document that best match a query (:meth:`Docmentor.excerpt`)."""

    source: str
    path: str
    url: str
    title: str
    query: str
    #: each: heading, heading_path, line_start, line_end, text, score
    excerpts: list[dict[str, Any]]


# Part of every content hash: bump it when parsing changes (sections, links …), so the next
# refresh re-parses documents whose text did not change.
PARSE_VERSION = "p4"  # p4: reST titles without inline markup; front-matter-only pages


def content_hash(doc: RawDocument) -> str:
    return hashlib.sha256(f"{PARSE_VERSION}\0{doc.fmt}\0{doc.content}".encode()).hexdigest()


class Docmentor:
    """An index of documentation sources.

    Args:
        db: the index folder (``--db``); default ``$DOCMENTOR_DB`` or ``~/.docmentor``.
        create: create the index if it does not exist (writers); readers get
            :class:`NotFoundError` instead.
        ranking: the ranking constants (default :data:`docmentor.search.config.DEFAULT`).
    """

    def __init__(
        self,
        db: str | Path | None = None,
        *,
        create: bool = True,
        ranking: RankingConfig | None = None,
        embeddings: bool | None = None,
    ) -> None:
        self.ranking = ranking or DEFAULT_RANKING
        #: sections embedded and searched by meaning too (``--no-embeddings``, ``DOCMENTOR_EMBEDDINGS=0``)
        self.embeddings = embeddings_enabled() if embeddings is None else embeddings
        root = Path(db).expanduser() if db else default_db()
        if root.exists() and not root.is_dir():
            raise UsageError(f"db {root} is a file; it must be a folder docmentor owns", arguments=("db",))
        self.root = root
        self.store = Store(root / "index.sqlite3", readonly=not create)
        self._lexical: LexicalIndex | None = None
        self._vectors: VectorCache | None = None
        #: a search waits for the embedding model to load (the CLI); False: it searches by
        #: words until a background load is done (a server)
        self.wait_for_model = True
        self._model_failed = False
        self._loading: threading.Thread | None = None  # the background model load, once
        self._open_lock = threading.Lock()
        self._generations_seen: Any = None  # the store's generations at this process's last search
        self._cannot_repair = False  # a repair by this reader failed (e.g. a read-only index folder)
        #: held while configured sources are added (a server's start-up and its refresh tool)
        self.adding_configured = threading.Lock()
        self._check_analyzer(writer=create)

    # -- plumbing ------------------------------------------------------------------
    @property
    def lexical(self) -> LexicalIndex:
        """The lexical index, opened (made, for a writer holding the write lock) on first use."""
        if self._lexical is None:
            with self._open_lock:  # threads of one server: one LexicalIndex, not two
                if self._lexical is None:
                    self._lexical = LexicalIndex(self.root / "lexical", config=self.ranking)
        return self._lexical

    def _lexical_to_read(self) -> LexicalIndex | None:
        """The lexical index for a search; None while no writer has made it (nothing indexed)."""
        if self._lexical is None and not (self.root / "lexical" / "meta.json").exists():
            return None
        return self.lexical

    def _settle(self) -> tuple[Any, bool]:
        """The store's source generations, and whether the lexical index is at them.

        A writer commits the store, then the lexical index, then records that the two agree
        (``lexical_generation``). A source found behind while the write lock is free was left
        so by a writer that died between the two commits: it is repaired here, by whoever
        reads first. While a writer holds the lock (it is between its commits), this waits
        for it, at most :data:`SETTLE_WAIT` seconds; False when the index is still behind
        then, or cannot be repaired by this process (e.g. a read-only folder: then it is not
        tried again)."""
        waited: float | None = None
        repaired = False
        while True:
            gens = self.store.generations()
            if all(g == lg for _, g, lg in gens):
                return gens, True
            with self.store.try_write_lock() as mine:
                if mine is None or (mine and (repaired or self._cannot_repair)):
                    return gens, False  # nobody to wait for, or nothing more this process can do
                if mine:
                    repaired = True
                    try:
                        self._repair()
                    except Exception as exc:  # searches still answer, checked against the store
                        self._cannot_repair = True
                        log.warning(
                            "cannot repair the search index: %s; results are checked against the store", exc
                        )
                        log.debug("repair failed", exc_info=True)
                        return gens, False
                    continue
            if waited is None:
                waited = time.monotonic() + SETTLE_WAIT
            elif time.monotonic() >= waited:
                return gens, False
            time.sleep(0.01)

    def _read_lexical(self, run: Callable[[LexicalIndex | None, bool], _T]) -> _T:
        """``run(index, check)`` on a lexical index that matches the store.

        The store's generations are read before the search and again after it: when the
        index was at them before and they did not move, the hits are what the store holds.
        Otherwise (a writer committed meanwhile) the search runs again; after
        :data:`READ_ATTEMPTS` such runs (writers busy, a loaded machine) it runs once more
        holding the write lock, so no writer commits meanwhile. When the index cannot be
        brought to the store (a read-only folder, a writer holding the lock for long), it
        runs with ``check=True``: its hits are filtered against the store, so a search
        never serves a section the store no longer has."""
        for _ in range(READ_ATTEMPTS):
            before, settled = self._settle()
            if not settled:
                return run(self._lexical_to_read(), True)
            index = self._lexical_to_read()
            if index is not None and before != self._generations_seen:
                # the store moved since this process last looked: read the newest lexical commit
                # (the index's own change check is by file time, which two quick commits can share)
                index.reload()
                self._generations_seen = before
            result = run(index, False)
            if self.store.generations() == before:
                return result
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(self.store.write_lock(timeout=SETTLE_WAIT))
            except (StoreError, OSError):  # a writer at work for long, or a read-only folder
                return run(self._lexical_to_read(), True)
            if any(g != lg for _, g, lg in self.store.generations()):
                try:
                    self._repair()
                except Exception as exc:
                    log.debug("repair failed: %s", exc, exc_info=True)
                    return run(self._lexical_to_read(), True)
            index = self._lexical_to_read()
            if index is not None:
                index.reload()
            return run(index, False)
        raise AssertionError("unreachable")  # for the type checker: ExitStack may swallow

    def _live(self, hits: list[Any]) -> list[Any]:
        """The lexical hits whose section the store still has, in the same document and path."""
        if not hits:
            return hits
        live = self.store.live_sections([int(h.fields["section_id"]) for h in hits])
        return [
            h
            for h in hits
            if (int(h.fields["section_id"]), int(h.fields["document_id"]), str(h.fields.get("s_path")))
            in live
        ]

    @property
    def index_version(self) -> str:
        """The analyzer and the index shape, stored with the index: one for every reader."""
        return f"{ANALYZER_VERSION}/{self.ranking.index_signature()}"

    def _check_analyzer(self, *, writer: bool) -> None:
        stored = self.store.get_setting("analyzer")
        if stored == self.index_version:
            return
        if not writer:
            raise StoreError(
                f"the index was built with analyzer {stored!r}, this docmentor uses {self.index_version!r}",
                hint="run: docmentor reindex",
            )
        with self.store.write_lock():
            if self.store.get_setting("analyzer") != self.index_version:
                if stored is not None:
                    log.warning(
                        "analyzer changed (%s → %s): rebuilding the lexical index", stored, self.index_version
                    )
                lexical = self.root / "lexical"
                # A new index has nothing to rebuild: the first writer makes the lexical index, under
                # the write lock (readers never make it). Making it here would also start tantivy's
                # reader thread, and a process with threads must not fork (see parse.batch).
                if self.store.sources() or (lexical.is_dir() and any(lexical.iterdir())):
                    self._rebuild_lexical()
                self.store.set_setting("analyzer", self.index_version)

    def _rebuild_lexical(self) -> int:
        # Mark every source behind first (a writer that dies here is repaired by the next one),
        # and rebuild in one commit over the old index, so searches never see it empty.
        for row in self.store.sources():
            self.store.mark_lexical(row.name, -1)
        try:
            self._lexical = LexicalIndex(self.root / "lexical", config=self.ranking)
            self._lexical.searcher()
        except (StoreError, ValueError):  # unreadable (e.g. another schema): start afresh
            self._lexical = LexicalIndex(self.root / "lexical", recreate=True, config=self.ranking)
        ids = [i for row in self.store.sources() for i in self.store.document_ids(row.name)]
        units: list[Unit] = []
        n = self.lexical.replace(
            drop_document_ids=(), rows=self.store.lexical_rows(ids), drop_all=True, on_unit=units.append
        )
        write_units(
            self.store,
            units,
            code_lines=self.ranking.embed_code_lines,
            clear_sources=[r.name for r in self.store.sources()],
        )
        for row in self.store.sources():
            self.store.mark_lexical(row.name, row.generation)
        return n

    def _repair(self) -> None:
        """Bring the lexical index up to the store where a writer died between the two commits."""
        for row in self.store.sources():
            if row.lexical_generation != row.generation:
                log.warning("re-indexing source %s: lexical index behind the store", row.name)
                units: list[Unit] = []
                self.lexical.replace(
                    drop_document_ids=(),
                    drop_sources=[row.name],
                    rows=self.store.lexical_rows(self.store.document_ids(row.name)),
                    on_unit=units.append,
                )
                write_units(
                    self.store, units, code_lines=self.ranking.embed_code_lines, clear_sources=[row.name]
                )
                self.store.mark_lexical(row.name, row.generation)

    def close(self) -> None:
        self.store.close()

    # -- sources ---------------------------------------------------------------------
    def add(
        self,
        target: str | os.PathLike[str],
        *,
        name: str | None = None,
        options: SourceOptions | Mapping[str, object] | None = None,
        progress: Progress | None = None,
        embed: bool = True,
    ) -> RefreshReport:
        """Register a source (folder, llms.txt URL or local llms.txt file) and index it now.

        ``options``: how it is read (:class:`SourceOptions`, or a mapping of its fields, e.g.
        ``{"max_bytes": 200_000}``; a bad one raises :class:`UsageError`).
        The source is searchable by words once its lexical index is committed; then, unless
        ``embed=False`` or embeddings are off, its new sections are embedded (:meth:`embed`)."""
        spec = self.make_spec(target, name=name, options=options)
        report = self._refresh_spec(spec, progress=progress)
        if embed:
            report.embedding = self.embed(progress=progress)
        return report

    @staticmethod
    def make_spec(
        target: str | os.PathLike[str],
        *,
        name: str | None = None,
        options: SourceOptions | Mapping[str, object] | None = None,
    ) -> SourceSpec:
        target = os.fspath(target).strip()
        if not target:
            raise UsageError(
                "empty target", hint="give a docs folder, an llms.txt URL or a local llms.txt file"
            )
        from docmentor.sources.llmstxt import detect_kind

        if options is None:
            opts = SourceOptions()
        elif isinstance(options, SourceOptions):
            opts = options
        else:
            opts = SourceOptions.parse(options)
        kind: SourceKind
        if is_url(target):
            kind = detect_kind(target)
        elif "://" in target:
            raise UsageError(f"unsupported URL scheme in {target!r}", hint="use http(s):// or a local path")
        else:
            # absolute but not resolved: a `docs -> v2` symlink is followed anew at each refresh
            path = Path(os.path.abspath(Path(target).expanduser()))
            if not path.exists():
                raise SourceUnavailableError(f"no such file or folder: {target}")
            if path.is_dir():
                kind = "folder"
                if opts.base_paths is not None:
                    opts = replace(opts, base_paths=tuple(str((path / b).resolve()) for b in opts.base_paths))
            elif path.name.lower().endswith(".txt"):
                kind = detect_kind(str(path))
            else:
                raise UsageError(f"{target} is a file; add its folder, or an llms.txt file")
            target = str(path)
        return SourceSpec(
            name=validate_name(name) if name else auto_name(target),
            kind=kind,
            target=target,
            options=opts,
        )

    def refresh_with_config(
        self,
        configured: Sequence[ConfiguredSource],
        *,
        progress: Progress | None = None,
        embed: bool = True,
        prune: bool = False,
        deadline: float | None = DEFAULT_REFRESH_DEADLINE,
    ) -> list[RefreshReport]:
        """Index the configured sources that are not in the index yet, each on its own (one
        that cannot be read is a report with its ``error``, kind ``configured``), then
        refresh every other source (``configured``: ``docmentor.toml``'s sources, :func:`load_config`).
        ``prune`` and ``deadline`` (seconds for the whole call) as for :meth:`refresh`."""
        reports: list[RefreshReport] = []
        added: set[str] = set()
        ends = _deadline(deadline)
        with self.adding_configured:  # one thread of this process adds them, the others wait
            known = {r.name for r in self.store.sources()}
            for src in configured:
                if src.name in known or src.name in added:
                    continue
                added.add(src.name)
                try:
                    if ends is not None and time.monotonic() >= ends:
                        raise SourceUnavailableError(f"not added: the time limit of {deadline:g} s passed")
                    spec = self.make_spec(src.target, name=src.name, options=src.settings)
                    reports.append(self._refresh_spec(spec, progress=progress, ends=ends))
                except Exception as exc:  # this one is not indexed; the others still are
                    message = _failure(src.name, exc)
                    failed = RefreshReport(
                        source=src.name, kind="configured", error=message, warnings=[message]
                    )
                    reports.append(failed)
        reports.extend(self._refresh_rows(None, progress=progress, exclude=added, prune=prune, ends=ends))
        if embed:
            self._attach_embedding(reports, progress)
        return reports

    def refresh(
        self,
        name: str | None = None,
        *,
        progress: Progress | None = None,
        exclude: Collection[str] = (),
        embed: bool = True,
        prune: bool = False,
        deadline: float | None = DEFAULT_REFRESH_DEADLINE,
    ) -> list[RefreshReport]:
        """Re-read one source, or all but ``exclude``.

        A source that cannot be read, or whose refresh fails in any way, is left as it was:
        with ``name`` the error is raised; otherwise it is that source's report (``error``)
        and the other sources are still refreshed.

        ``prune``: remove the documents a source no longer lists even when that is most of
        them (without it, a refresh that would leave a source of at least
        :data:`PRUNE_GUARD_MIN` documents fewer than half of them keeps them, marked stale,
        with a warning).
        ``deadline``: seconds for the whole call (None: no limit); llms.txt documents not
        fetched by then keep their last good copy, sources not reached are left as they were.
        """
        reports = self._refresh_rows(
            name, progress=progress, exclude=exclude, prune=prune, ends=_deadline(deadline)
        )
        if embed:
            self._attach_embedding(reports, progress)
        return reports

    def _refresh_rows(
        self,
        name: str | None,
        *,
        progress: Progress | None,
        exclude: Collection[str],
        prune: bool,
        ends: float | None,
    ) -> list[RefreshReport]:
        rows = (
            [self.store.source(name)] if name else [r for r in self.store.sources() if r.name not in exclude]
        )
        reports: list[RefreshReport] = []
        for row in rows:
            try:
                if ends is not None and time.monotonic() >= ends:
                    raise SourceUnavailableError(
                        "not refreshed: the time limit of this refresh passed",
                        hint="it keeps its documents; refresh it on its own, or with a longer deadline",
                        arguments=("deadline",),
                    )
                reports.append(self._refresh_spec(row.spec, progress=progress, prune=prune, ends=ends))
            except Exception as exc:  # any failure of one source is that source's, not the others'
                message = _failure(row.name, exc)
                try:
                    self.store.set_source_status(row.name, status="error", error=message)
                except Exception:  # e.g. the disk is full: the report still says it
                    log.debug("cannot record the error of source %s", row.name, exc_info=True)
                if name:
                    if isinstance(exc, DocmentorError):
                        raise
                    raise SourceUnavailableError(
                        f"cannot refresh {name}: {message}",
                        hint="it was left as it was; run with --debug for the traceback",
                    ) from exc
                reports.append(
                    RefreshReport(
                        source=row.name,
                        kind=row.kind,
                        error=message,
                        warnings=[message],
                        failed=[(row.target, message)],
                        documents=row.documents,  # what is still indexed from it
                        sections=row.sections,
                    )
                )
        return reports

    def _attach_embedding(self, reports: list[RefreshReport], progress: Progress | None) -> None:
        if not reports or not self.embeddings:
            return
        done = self.embed(progress=progress)
        for r in reports:
            r.embedding = done

    def sources(self) -> list[SourceInfo]:
        """Every source, with how many of its search units are embedded."""
        from docmentor.embeddings import MODEL_ID

        per_source = counts(self.store, vector_model(MODEL_ID, self.ranking.embed_tokens))
        return [_source_info(r, *per_source.get(r.name, (0, 0))) for r in self.store.sources()]

    # -- embeddings ------------------------------------------------------------------------
    def embed(self, *, progress: Progress | None = None, stop: threading.Event | None = None) -> EmbedReport:
        """Embed every search unit that has no vector yet (unchanged ones keep theirs).

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
        )

    def _vector_cache(self) -> VectorCache | None:
        """This process's view of the section vectors; None when embeddings are off."""
        if not self.embeddings:
            return None
        if self._vectors is None:
            from docmentor.embeddings import DIMENSIONS, MODEL_ID

            with self._open_lock:
                if self._vectors is None:
                    self._vectors = VectorCache(
                        self.store, vector_model(MODEL_ID, self.ranking.embed_tokens), DIMENSIONS
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
        self, query: str, source: str | None, top: int
    ) -> tuple[list[tuple[int, float]], Callable[[int], float | None]] | None:
        """The ``top`` units nearest the query by meaning and each unit's cosine (by section
        id); None where there is nothing to compare: embeddings off, no vector yet (the model
        is then not even loaded), or no model."""
        cache = self._vector_cache()
        if cache is None or self.ranking.semantic_weight <= 0:
            return None
        cache.refresh()
        if not len(cache):
            return None
        vector = self._query_vector(query)
        return None if vector is None else cache.search(vector, source=source, top=top)

    def _hybrid(
        self,
        index: LexicalIndex,
        query: str,
        hits: list[Any],
        doc_scores: dict[int, float],
        *,
        source: str | None,
        check: bool = False,
    ) -> list[Any] | None:
        """Lexical hits blended with the nearest units by meaning; None: no vectors to use.
        ``check``: keep only units the store still has (see :meth:`_read_lexical`)."""
        found = self._nearest(query, source, self.ranking.semantic_pool)
        if found is None:
            return None
        nearest, cosine = found
        have = {int(h.fields.get("section_id", 0)) for h in hits}
        extra = index.units(
            [sid for sid, _ in nearest if sid not in have], source=source, doc_scores=doc_scores
        )
        if check:
            extra = self._live(extra)
        return blend(hits, extra, cosine, self.ranking)

    def remove(self, name: str) -> None:
        self.store.source(name)  # raises NotFoundError
        with self.store.write_lock():
            # lexical first, marked behind: a writer dying in between leaves a source the next
            # writer re-indexes, never search results from a source the store no longer has
            self.store.mark_lexical(name, -1)
            self.lexical.replace(drop_document_ids=(), rows=(), drop_sources=[name])
            self.store.delete_source(name)

    def reindex(self) -> int:
        """Rebuild the lexical index from the store; returns the number of sections."""
        with self.store.write_lock():
            n = self._rebuild_lexical()
            self.store.set_setting("analyzer", self.index_version)
        return n

    # -- the refresh itself -------------------------------------------------------------
    def _refresh_spec(
        self, spec: SourceSpec, *, progress: Progress | None, prune: bool = False, ends: float | None = None
    ) -> RefreshReport:
        t0 = time.perf_counter()
        report = RefreshReport(source=spec.name, kind=spec.kind)
        existing = self.store.documents(spec.name) if self.store.has_source(spec.name) else {}
        if existing:
            old = self.store.source(spec.name)
            if old.target != spec.target:
                raise UsageError(
                    f"source {spec.name!r} already points at {old.target}",
                    hint="remove it first, or choose another name",
                    arguments=("name",),
                )
        served: dict[str, str] = {}  # llms.txt documents: how each was served ('html' | 'text')
        if spec.kind == "folder":
            docs, stale, fresh, ok_paths = self._read_folder(spec, report)
            version, title, index_path = None, None, None
        else:
            docs, stale, fresh, ok_paths, version, title = self._read_llms(
                spec, existing, report, progress, served, ends
            )
            index_path = ok_paths[0]  # the llms.txt itself

        to_parse: list[tuple[RawDocument, str]] = []
        for raw in docs:
            h = content_hash(raw)
            prev = existing.get(raw.path)
            if prev is not None and prev.content_hash == h:
                report.unchanged += 1
                if prev.stale:
                    fresh.append(raw.path)
                continue
            to_parse.append((raw, h))
            if prev is None:
                report.added += 1
            else:
                report.updated += 1
        # parsed, and each section's index terms computed, on two cores when it pays
        parsed, body_terms = parse_many([raw for raw, _ in to_parse], analyze=section_terms)
        changes = [
            DocChange(raw=raw, parsed=p, content_hash=h) for (raw, h), p in zip(to_parse, parsed, strict=True)
        ]
        _set_updated_times(spec, [c.raw for c in changes])
        listed = set(ok_paths) | set(stale)
        delete_paths = [p for p in existing if p not in listed]
        if delete_paths and not prune:
            delete_paths = _guard_removals(spec, existing, listed, delete_paths, index_path, stale, report)
        report.removed = len(delete_paths)
        stale = {p: e for p, e in stale.items() if p in existing}
        # how unchanged documents were served, where the store does not know it yet (rows older
        # than the `served` column): recorded once, so an HTML error page is caught next time
        served_unknown = any(p in existing and existing[p].served != v for p, v in served.items())
        needs_write = bool(changes or delete_paths or stale or fresh or served_unknown) or not existing
        # a writer that died between the two commits left some source behind: repair it now
        if needs_write or any(r.lexical_generation != r.generation for r in self.store.sources()):
            with self.store.write_lock():
                self._repair()
                gen, written, dropped = self.store.apply(
                    spec,
                    changes=changes,
                    delete_paths=delete_paths,
                    stale=stale,
                    fresh_paths=fresh,
                    version=version,
                    title=title,
                    served=served,
                )
                units: list[Unit] = []
                self.lexical.replace(
                    drop_document_ids=dropped,
                    rows=self.store.lexical_rows(written),
                    body_terms=body_terms,
                    on_unit=units.append,
                )
                write_units(self.store, units, code_lines=self.ranking.embed_code_lines)
                self.store.mark_lexical(spec.name, gen)
        else:
            self.store.set_source_status(spec.name, status="ok", error=None, refreshed=True)
        unread = [(p, e) for p, e in report.failed if p not in report.refused]
        if unread:  # the source is fine; some of its documents are not (a 404 link)
            first_path, first_error = unread[0]
            self.store.set_source_status(
                spec.name,
                status="ok",
                error=f"{len(unread)} document(s) could not be read, first {first_path}: {first_error}",
            )
        row = self.store.source(spec.name)
        report.documents, report.sections = row.documents, row.sections
        report.seconds = time.perf_counter() - t0
        return report

    def _read_folder(
        self, spec: SourceSpec, report: RefreshReport
    ) -> tuple[list[RawDocument], dict[str, str], list[str], list[str]]:
        from docmentor.sources.local import scan_folder

        root = Path(spec.target)
        if not root.is_dir():
            raise SourceUnavailableError(f"the folder {root} is gone", hint="nothing was changed")
        opts = spec.options
        scan = scan_folder(
            root,
            max_bytes=opts.max_bytes or DEFAULT_MAX_BYTES,
            base_dirs=[Path(b) for b in opts.base_paths or ()],
            use_gitignore=opts.use_gitignore is not False,
            max_included_bytes=opts.max_included_bytes,
        )
        report.skipped = list(scan.skipped)
        report.warnings = list(scan.warnings)
        # A file or folder that could not be read this time keeps what the index has of it.
        stale: dict[str, str] = {}
        if scan.unreadable:
            known = self.store.documents(spec.name) if self.store.has_source(spec.name) else {}
            for path in known:
                for prefix, error in scan.unreadable.items():
                    if path == prefix or ((prefix == "" or prefix.endswith("/")) and path.startswith(prefix)):
                        stale[path] = error
                        break
        return scan.documents, stale, [], [d.path for d in scan.documents]

    def _read_llms(
        self,
        spec: SourceSpec,
        existing: dict[str, Any],
        report: RefreshReport,
        progress: Progress | None,
        served: dict[str, str],
        ends: float | None,
    ) -> tuple[list[RawDocument], dict[str, str], list[str], list[str], str | None, str | None]:
        from docmentor.sources.fetch import DEFAULT_DEADLINE
        from docmentor.sources.llmstxt import FetchSettings, PriorDoc, load_llms_source

        opts = spec.options
        limit = opts.deadline or DEFAULT_DEADLINE
        if ends is not None:  # the whole refresh's limit, when it is closer
            limit = max(min(limit, ends - time.monotonic()), 0.001)
        settings = FetchSettings(
            concurrency=opts.concurrency or 8,
            timeout=opts.timeout or 20.0,
            max_bytes=opts.max_bytes or DEFAULT_MAX_BYTES,
            retries=2 if opts.retries is None else opts.retries,
            allowed_hosts=opts.allowed_hosts or (),
            include_optional=opts.include_optional is not False,
            deadline=limit,
        )
        # Outcomes are keyed by the link URL, the store keeps the final URL (after redirects):
        # look stored documents up by both, or a redirected document that fails is dropped.
        by_url = {d.url: d for d in existing.values()}
        if is_url(spec.target):
            for d in existing.values():
                by_url.setdefault(urljoin(spec.target, d.path), d)
        prior = {
            u: PriorDoc(etag=d.etag, last_modified=d.last_modified, served=d.served)
            for u, d in by_url.items()
        }
        cb = (lambda done, total: progress(done, total, spec.name)) if progress else None
        listing = load_llms_source(spec.target, prior=prior, settings=settings, progress=cb)
        linked_before = [d for d in existing.values() if d.path != listing.index_document.path]
        if listing.kind == "llms_txt" and not listing.outcomes and linked_before:
            # An llms.txt that suddenly lists nothing is far more likely a broken page (an empty
            # body, an error text served with 200) than a site that deleted all its docs.
            raise SourceUnavailableError(
                f"{spec.target} lists no documents any more (it had {len(linked_before)})",
                hint="the source was left as it was; remove it if the site really is gone",
            )
        index_before = existing.get(listing.index_document.path)
        if not listing.index_framed and index_before is not None:
            cut = self._cut_short(index_before, listing.index_document.content)
            if cut is not None:
                raise SourceUnavailableError(
                    f"{spec.target}: {cut}", hint="the source was left as it was; try again later"
                )
        if listing.kind == "llms_txt" and listing.outcomes:
            listing.index_document.searchable = False  # a table of contents: `get` serves it, search skips it
        docs: list[RawDocument] = [listing.index_document]
        ok_paths = [listing.index_document.path]
        stale: dict[str, str] = {}
        fresh: list[str] = []
        seen: set[str] = {listing.index_document.path}
        served[listing.index_document.path] = "text"
        for out in listing.outcomes:
            prev = by_url.get(out.url)
            if out.status == "ok" and out.document is not None and not out.framed and prev is not None:
                cut = self._cut_short(prev, out.document.content)
                if cut is not None:  # a failed fetch: the last good copy stays, marked stale
                    out.status, out.document, out.error = "failed", None, cut
            if out.status == "ok" and out.document is not None:
                doc = out.document
                if doc.path in seen:
                    doc.path = doc.url
                seen.add(doc.path)
                served[doc.path] = "html" if out.html else "text"
                docs.append(doc)
                ok_paths.append(doc.path)
            elif out.status == "not_modified":
                if prev is not None:
                    ok_paths.append(prev.path)
                    report.unchanged += 1
                    if prev.stale:
                        fresh.append(prev.path)
            else:
                report.failed.append((out.url, out.error or out.status))
                if out.status == "refused":  # by policy (another host …): not a failing source
                    report.refused.add(out.url)
                if prev is not None:
                    stale[prev.path] = out.error or out.status
        report.warnings.extend(listing.warnings)
        return docs, stale, fresh, ok_paths, None, listing.title

    def _cut_short(self, prev: Any, text: str) -> str | None:
        """Why a body the server ended by closing the connection (no Content-Length, not
        chunked) is taken for a cut-short copy of the last good one: it is shorter, and the
        start of it (up to its last whole line). None: it may well be the document."""
        old = self.store.content(prev.id)
        new = text.rstrip("\ufffd")  # a multi-byte character cut in half
        if len(new) >= len(old):
            return None
        whole_lines = new if new.endswith("\n") else new[: new.rfind("\n") + 1]
        if old.startswith(new) or (whole_lines and old.startswith(whole_lines)):
            return (
                f"body cut short: the connection closed after {len(new)} of the {len(old)} characters of the "
                "last good copy, with no Content-Length to tell"
            )
        return None

    # -- reading ---------------------------------------------------------------------------
    def check_source(self, source: str | None) -> None:
        """:class:`NotFoundError` naming the indexed sources when ``source`` is not one of
        them (None: every source, always fine)."""
        self._known_source(source)

    def _known_source(self, source: str | None) -> None:
        if source is not None and not self.store.has_source(source):
            known = ", ".join(r.name for r in self.store.sources()) or "none"
            raise NotFoundError(f"unknown source {source!r}", hint=f"known sources: {known}")

    def query_terms(
        self, query: str, index: LexicalIndex | None = None, ranking: RankingConfig | None = None
    ) -> list[tuple[str, float]]:
        """The analysed query with the ranking config's weights."""
        index = index if index is not None else self._lexical_to_read()
        r = ranking or self.ranking
        return analyze_query(
            query,
            index.knows if index is not None else None,
            whole_weight=r.whole_weight,
            part_weight=r.part_weight,
            joined_weight=r.joined_weight,
        )

    def search(
        self,
        query: str,
        *,
        source: str | None = None,
        limit: int = 10,
        per_document: int | None = None,
        snippets: bool = True,
        pool: int | None = None,
        semantic: bool = True,
        ranking: RankingConfig | None = None,
    ) -> list[SearchHit]:
        """Rank sections for a query. Any string is accepted; an empty list when nothing matches.

        ``snippets=False``: results without their ``snippet``; ``pool``: how many of the best
        sections are read before de-duplication and the per-document cap pick ``limit`` of
        them (default ``4 × limit``, at least the config's ``lexical_pool``). Both for callers
        that only need which sections match, fast (find_api's section ranking).
        ``semantic=False``: by words only, even where sections are embedded. ``ranking``:
        other query-time constants than the engine's (the index shape stays the engine's)."""
        if limit < 1:
            raise UsageError("limit must be at least 1", arguments=("limit",))
        limit = min(limit, 100)
        self._known_source(source)
        r = ranking or self.ranking

        def run(index: LexicalIndex | None, check: bool) -> list[SearchHit]:
            terms = self.query_terms(query, index, r)
            if not terms or index is None:
                return []
            doc_scores: dict[int, float] = {}
            hits = index.search(
                terms,
                source=source,
                limit=max(limit, pool) if pool else max(limit * 4, r.lexical_pool),
                doc_scores=doc_scores,
                config=r,
            )
            if check:
                hits = self._live(hits)
            blended = (
                self._hybrid(index, query, hits, doc_scores, source=source, check=check) if semantic else None
            )
            return rank_hits(
                blended if blended is not None else hits,
                terms,
                limit=limit,
                per_document=per_document if per_document is not None else r.per_document,
                versions=self.store.source_versions(),
                snippets=snippets,
                config=r,
                fused=blended is not None,
            )

        return self._read_lexical(run)

    def candidates(self, query: str, *, source: str | None = None, limit: int = 200) -> list[SearchHit]:
        """Every section matching a query, best first, with no per-document cap (for assembly).

        The same analyzer, index and scoring as :meth:`search`.
        """
        self._known_source(source)

        def run(index: LexicalIndex | None, check: bool) -> list[SearchHit]:
            terms = self.query_terms(query, index)
            if not terms or index is None:
                return []
            doc_scores: dict[int, float] = {}
            hits = index.search(terms, source=source, limit=max(1, min(limit, 1000)), doc_scores=doc_scores)
            if check:
                hits = self._live(hits)
            blended = self._hybrid(index, query, hits, doc_scores, source=source, check=check)
            ranked = blended if blended is not None else hits
            return rank_hits(
                ranked,
                terms,
                limit=len(ranked),
                per_document=len(ranked),
                versions={},
                config=self.ranking,
                collapse=False,
                fused=blended is not None,
            )

        return self._read_lexical(run)

    def assemble(
        self,
        query: str,
        *,
        max_tokens: int = 8000,
        depth: int = 1,
        sections: int = 20,
        source: str | None = None,
        encoding: str = "o200k_base",
        allow_empty: bool = False,
        now: datetime | None = None,
        fmt: str = "markdown",
    ) -> Digest:
        """A token-budgeted digest for one question: see :func:`docmentor.assemble.assemble`
        (the same arguments and defaults; ``tests/test_public_api.py`` checks they agree)."""
        from docmentor.assemble import assemble

        return assemble(
            self,
            query,
            max_tokens=max_tokens,
            depth=depth,
            sections=sections,
            source=source,
            encoding=encoding,
            allow_empty=allow_empty,
            now=now,
            fmt=fmt,
        )

    def find(self, ref: str, *, source: str | None = None) -> Any:
        """The stored document a reference names (URL, ``source:path``, path or absolute file)."""
        self._known_source(source)
        ref = ref.strip()
        st = self.store
        doc = None

        def paths(p: str) -> tuple[str, ...]:
            # as given, without ./, and with the leading / of an llms.txt source's URL paths
            bare = p.lstrip("./")
            return tuple(dict.fromkeys((p, bare, "/" + bare) if bare else (p,)))

        def in_source(name: str, p: str) -> StoredDoc | None:
            return next((d for d in (st.find_document(source=name, path=c) for c in paths(p)) if d), None)

        if source is not None:
            doc = in_source(source, ref)
            if doc is None and (is_url(ref) or ref.startswith("file://")):
                doc = st.find_document(url=ref)
        else:
            head, sep, rest = ref.partition(":")
            if sep and not rest.startswith("//") and st.has_source(head):
                doc = in_source(head, rest)
            if doc is None and (is_url(ref) or ref.startswith("file://")):
                doc = st.find_document(url=ref)
            if doc is None and ref.startswith("/"):
                doc = st.find_document(url=Path(ref).resolve().as_uri())
            if doc is None:
                # every source holding the reference in any of its forms: one, or ask which
                owners = [(o, c) for c in paths(ref) for o in st.sources_with_path(c)]
                if len({o for o, _ in owners}) > 1:
                    choices = ", ".join(f"{o}:{c}" for o, c in owners)
                    raise UsageError(
                        f"{ref!r} is in several sources",
                        hint=f"name one: {choices}, or pass source",
                        arguments=("source",),
                    )
                if owners:
                    doc = st.find_document(source=owners[0][0], path=owners[0][1])
        if doc is None:
            raise NotFoundError(
                f"no indexed document {ref!r}" + (f" in source {source!r}" if source else ""),
                hint="use a URL or a path as search results show it, e.g. SOURCE:docs/page.md",
            )
        return doc

    def get(
        self,
        ref: str,
        *,
        source: str | None = None,
        offset: int = 0,
        limit: int = 50_000,
        lines: tuple[int, int] | None = None,
    ) -> DocPage:
        """A stored document (Markdown after includes), paginated by characters.

        ``lines=(start, end)`` first narrows it to the lines of the original file a search
        result points at (1-based, inclusive; included text counts as its directive's line).
        """
        if offset < 0 or limit < 1:
            raise UsageError("offset must be ≥ 0 and limit ≥ 1", arguments=("offset", "limit"))
        with self.store.snapshot():  # the document, its text and line map from one state
            doc = self.find(ref, source=source)
            text = self.store.content(doc.id)
            line_map = self.store.line_map(doc.id) if lines is not None else None
        whole = len(text)  # total_length: the document's, also when only some lines are asked for
        if lines is not None:
            start, end = lines
            if start < 1 or end < start:
                raise UsageError(f"bad line range {start}-{end}", hint="use START-END, 1-based, START <= END")
            numbered = [
                (line_map[i - 1] if line_map and i <= len(line_map) else i, ln)
                for i, ln in enumerate(text.removesuffix("\n").split("\n"), 1)
            ]
            last = max((n for n, _ in numbered), default=0)
            if start > last:
                raise UsageError(
                    f"lines {start}-{end}: {doc.path} has {last} lines", hint=f"ask for lines up to {last}"
                )
            text = "\n".join(ln for n, ln in numbered if start <= n <= end)
        part = text[offset : offset + limit]
        return DocPage(
            source=doc.source,
            path=doc.path,
            url=doc.url,
            title=doc.title,
            content=part,
            offset=offset,
            length=len(part),
            total_length=whole,
            has_more=offset + len(part) < len(text),
            stale=doc.stale,
            error=doc.error,
            indexed_at=doc.indexed_at,
            span_length=len(text),
        )

    def excerpt(
        self,
        ref: str,
        query: str,
        *,
        source: str | None = None,
        max_chunks: int = 5,
        context_chars: int = 500,
    ) -> DocExcerpts:
        """The passages of one document that best match a query."""
        with self.store.snapshot():
            doc = self.find(ref, source=source)
            sections = self.store.sections_of(doc.id)
        index = self._lexical_to_read()
        found = self._nearest(query, doc.source, 1)  # for the units' cosines
        chunks = excerpts(
            sections,
            self.query_terms(query, index),
            max_chunks=max(1, min(max_chunks, 20)),
            context_chars=max(50, min(context_chars, 5000)),
            cosine=found[1] if found is not None else None,
            config=self.ranking,
        )
        return {
            "source": doc.source,
            "path": doc.path,
            "url": doc.url,
            "title": doc.title,
            "query": query,
            "excerpts": chunks,
        }


def _deadline(seconds: float | None) -> float | None:
    """The monotonic time a call with a limit of ``seconds`` must end (None: no limit)."""
    if seconds is None:
        return None
    if not seconds > 0:
        raise UsageError(f"the refresh time limit must be positive, not {seconds!r}")
    return time.monotonic() + seconds


def _guard_removals(
    spec: SourceSpec,
    existing: dict[str, Any],
    listed: set[str],
    delete_paths: list[str],
    index_path: str | None,
    stale: dict[str, str],
    report: RefreshReport,
) -> list[str]:
    """The documents a refresh without ``prune`` removes: all that vanished, unless the
    source would keep fewer than half of the documents it had, when it had at least
    :data:`PRUNE_GUARD_MIN`: then none (they are marked stale, and the report warns). A
    listing that suddenly drops most of a site is more often a broken or partial page (a
    folder: an unmounted disk) than a site that deleted its documentation; a site that
    renamed its pages lists as many as before, and is refreshed as usual."""
    had = sum(1 for p in existing if p != index_path)
    now = sum(1 for p in listed if p != index_path)
    if had < PRUNE_GUARD_MIN or 2 * now >= had:
        return delete_paths
    where = "the llms.txt no longer lists it" if index_path is not None else "no longer in the folder"
    for path in delete_paths:
        stale[path] = f"{where}; kept until `docmentor refresh --prune {spec.name}`"
    report.warnings.append(
        f"{len(delete_paths)} of the {had} documents of {spec.name} are gone from {spec.target}: they were "
        "kept, marked stale, in case the page is broken or partial (or a disk not mounted). "
        f"If they really are gone: docmentor refresh --prune {spec.name}"
    )
    return []


def _failure(source: str, exc: BaseException) -> str:
    """One line for a source's failed refresh; the traceback of an unexpected one goes to the debug log."""
    if isinstance(exc, DocmentorError):
        return str(exc)
    log.debug("refreshing source %s failed", source, exc_info=exc)
    return f"unexpected {type(exc).__name__}: {exc} (the source was left as it was)"


def _set_updated_times(spec: SourceSpec, docs: list[RawDocument]) -> None:
    """When each new or changed document last changed at its origin (for recency)."""
    if not docs:
        return
    if spec.kind == "folder":
        from docmentor.sources.gitdates import updated_times

        times = updated_times(Path(spec.target), [d.path for d in docs])
        for d in docs:
            d.updated_at = times.get(d.path)
        return
    for d in docs:
        if d.last_modified and d.updated_at is None:
            d.updated_at = http_date_iso(d.last_modified)


_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES, 1)}
_IMF_FIXDATE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT"
)


def http_date_iso(value: str) -> str | None:
    """An HTTP date (``Last-Modified``) as ISO 8601 UTC, or None when it is not a date."""
    m = _IMF_FIXDATE.fullmatch(value.strip())
    if m and m.group(2) in _MONTHS:  # the one format servers send today, without email.utils
        day, _, year, hh, mm, ss = m.groups()
        try:
            stamp = datetime(int(year), _MONTHS[m.group(2)], int(day), int(hh), int(mm), int(ss), tzinfo=UTC)
        except ValueError:
            return None
        return stamp.isoformat().replace("+00:00", "Z")
    from email.utils import parsedate_to_datetime  # obsolete formats (RFC 850, asctime)

    from docmentor.sources.gitdates import iso

    try:
        return iso(parsedate_to_datetime(value).timestamp())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _source_info(r: SourceRow, units: int, embedded: int) -> SourceInfo:
    return {
        "name": r.name,
        "kind": r.kind,
        "target": r.target,
        "title": r.title,
        "version": r.version,
        "documents": r.documents,
        "sections": r.sections,
        "stale_documents": r.stale,
        "status": r.status,
        "error": r.error,
        "created_at": r.created_at,
        "refreshed_at": r.refreshed_at,
        "options": r.options,
        "units": units,
        "embedded": embedded,
    }


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2)


__all__: Sequence[str] = ["DocExcerpts", "DocPage", "Docmentor", "RefreshReport", "SourceInfo"]
