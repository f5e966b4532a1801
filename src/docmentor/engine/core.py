"""Opening the index and keeping its lexical index at the store's state.

:class:`IndexCore` opens the store and the lexical index, checks the analyzer, and makes
every read see one consistent state: it waits for a writer between its two commits, or
repairs what a writer that died left behind, or filters hits against the store.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Self, TypeVar

from docmentor.config import (
    check_environment,
    default_location,
    embeddings_enabled,
    index_location,
    load_config,
)
from docmentor.engine.scope import unknown_source
from docmentor.errors import DocmentorError, NotFoundError, StoreError, UsageError
from docmentor.search.analyzer import ANALYZER_VERSION
from docmentor.search.config import DEFAULT as DEFAULT_RANKING
from docmentor.search.config import RankingConfig
from docmentor.search.lexical import LexicalIndex, LexicalSearch
from docmentor.search.semantic import VectorCache, write_units
from docmentor.search.semantic_pg import PgVectorSearch
from docmentor.search.units import Unit
from docmentor.store.db import Store
from docmentor.store.pg_store import PgStore

log = logging.getLogger(__name__)

#: seconds a search waits for a writer between its store and lexical commits (then it
#: filters its hits against the store instead)
SETTLE_WAIT = 5.0
#: searches run again when a writer committed while they ran, before filtering against the store
READ_ATTEMPTS = 3
_T = TypeVar("_T")
#: the index folder's store and lexical index
STORE_FILE = "index.sqlite3"
LEXICAL_FOLDER = "lexical"


def index_root(db: str | Path | None = None) -> Path | str:
    """Where the index is: ``db`` if given, else :func:`docmentor.config.default_location` —
    a folder, or the URL of a PostgreSQL database.

    Raises:
        UsageError: it is a file, or a URL of another kind (argument ``db``).
    """
    root = index_location(str(db), "db", arguments=("db",)) if db else default_location()
    if isinstance(root, str):
        return root
    if root.exists() and not root.is_dir():
        raise UsageError(f"db {root} is a file; it must be a folder docmentor owns", arguments=("db",))
    return root


def index_exists(db: str | Path | None = None) -> bool:
    """Whether the index folder (:func:`index_root`), or database, holds an index."""
    root = index_root(db)
    if isinstance(root, Path):
        return (root / STORE_FILE).exists()
    try:
        PgStore(root, readonly=True).close_all()
    except NotFoundError:
        return False
    return True


@contextlib.contextmanager
def index_removed_on_failure(db: str | Path | None = None) -> Iterator[None]:
    """A block that may create the index (a first ``add``): when it raises and there was no
    index before, what opening one made is removed, so a failed first add leaves no index;
    the folder itself only when the block made it and nothing else is in it (it may be
    ``DOCMENTOR_HOME``, with the cache and the config file in it). Engines opened in the
    block must be closed when it raises."""
    root = index_root(db)
    if isinstance(root, str) or (root / STORE_FILE).exists():  # a database: its tables stay
        yield
        return
    made_folder = not root.exists()
    try:
        yield
    except BaseException:
        Store.remove_files(root / STORE_FILE)
        shutil.rmtree(root / LEXICAL_FOLDER, ignore_errors=True)
        if made_folder:
            with contextlib.suppress(OSError):  # not empty: something else lives there now
                root.rmdir()
        raise


class IndexCore:
    """The index folder, its store and lexical index, kept in step (see :class:`Docmentor`)."""

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
        check_environment()  # a bad DOCMENTOR_* value: an error now, not in a background thread
        self.embeddings = embeddings_enabled() if embeddings is None else embeddings
        where = index_root(db)
        #: the index folder; None for an index in PostgreSQL (``self.store.location`` says where)
        self.root: Path | None = where if isinstance(where, Path) else None
        self.store = (
            Store(where / STORE_FILE, readonly=not create)
            if isinstance(where, Path)
            else PgStore(where, readonly=not create)
        )
        self._lexical: LexicalSearch | None = None
        self._vectors: VectorCache | PgVectorSearch | None = None
        #: a search waits for the embedding model to load (the CLI); False: it searches by
        #: words until a background load is done (a server), after waiting ``model_wait``
        #: seconds at most for it (the server's first question is its agent's first)
        self.wait_for_model = True
        self.model_wait = 0.0
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
    def lexical(self) -> LexicalSearch:
        """The lexical index, opened (made, for a writer holding the write lock) on first use."""
        if self._lexical is None:
            with self._open_lock:  # threads of one server: one LexicalIndex, not two
                if self._lexical is None:
                    self._lexical = self._open_lexical()
        return self._lexical

    def _open_lexical(self, *, recreate: bool = False) -> LexicalSearch:
        if self.root is None:  # PostgreSQL: its module (and numpy) load only for such an index
            from docmentor.search.lexical_pg import PgLexicalIndex

            return PgLexicalIndex(self.store, config=self.ranking)
        return LexicalIndex(self.root / LEXICAL_FOLDER, recreate=recreate, config=self.ranking)

    def _lexical_to_read(self) -> LexicalSearch | None:
        """The lexical index for a search; None while no writer has made it (nothing indexed)."""
        if (
            self._lexical is None
            and self.root is not None
            and not (self.root / LEXICAL_FOLDER / "meta.json").exists()
        ):
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
        tried again). A lexical index whose folder is gone is repaired the same way: rebuilt
        whole from the store."""
        waited: float | None = None
        repaired = False
        while True:
            gens = self.store.generations()
            # a lexical index whose folder is gone is behind the store too (_repair rebuilds it)
            if all(g == lg for _, g, lg in gens) and not self._lexical_lost():
                return gens, True
            with self.store.try_write_lock() as mine:
                if mine is None and self._lexical_lost():  # a read-only folder: said once
                    self._cannot_repair = True
                    log.warning(
                        "the search index of %s is missing; run `docmentor reindex` where it can be written",
                        self.root,
                    )
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

    def _lexical_lost(self) -> bool:
        """Whether the folder's lexical index is gone while its store has documents (a folder
        copied without ``lexical/``, or that folder removed), and this process has not yet
        found it cannot rebuild it: searches would find nothing."""
        return (
            self._lexical is None
            and not self._cannot_repair  # tried, and this process cannot: not again every search
            and self._lexical_folder_gone()
        )

    def _lexical_folder_gone(self) -> bool:
        """The local lexical index has no ``meta.json`` while the store has documents."""
        return (
            self.root is not None
            and not (self.root / LEXICAL_FOLDER / "meta.json").exists()
            and any(row.documents for row in self.store.sources())
        )

    def _read_lexical(self, run: Callable[[LexicalSearch | None, bool], _T]) -> _T:
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
                lexical = None if self.root is None else self.root / LEXICAL_FOLDER
                # A new index has nothing to rebuild: the first writer makes the lexical index, under
                # the write lock (readers never make it). Making it here would also start tantivy's
                # reader thread, and a process with threads must not fork (see parse.batch).
                if self.store.sources() or (lexical and lexical.is_dir() and any(lexical.iterdir())):
                    self._rebuild_lexical()
                self.store.set_setting("analyzer", self.index_version)

    def _rebuild_lexical(self) -> int:
        # Mark every source behind first (a writer that dies here is repaired by the next one),
        # and rebuild in one commit over the old index, so searches never see it empty.
        for row in self.store.sources():
            self.store.mark_lexical(row.name, -1)
        try:
            self._lexical = self._open_lexical()
            self._lexical.searcher()
        except (StoreError, ValueError):  # unreadable (e.g. another schema): start afresh
            self._lexical = self._open_lexical(recreate=True)
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
        """Bring the lexical index up to the store where a writer died between the two commits,
        or rebuild it whole when its folder is gone (a writer that came before any reader would
        otherwise make a new one holding only what it writes). Under the write lock."""
        if self._lexical_folder_gone():
            log.warning("the search index of %s is missing: rebuilding it from the store", self.root)
            self._lexical = None  # a handle on the folder that went is no index
            self._rebuild_lexical()
            return
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
        """Close the index: its threads' connections to it (a server's too; on the embedded
        index a thread still at work keeps its own until it ends). Using the engine afterwards
        is a :class:`StoreError`; open it again instead."""
        self.store.close_all()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check_source(self, source: str | None) -> None:
        """:class:`NotFoundError` naming the indexed sources when ``source`` is not one of
        them (None: every source, always fine)."""
        self._known_source(source)

    def sources_named(self, name: str) -> list[str]:
        """The sources ``name`` names: itself when it is one, else the versions of the
        library so named (``httpx`` → ``httpx@0.27``, ``httpx@0.28``), as ``--source`` reads
        it; :class:`NotFoundError` naming the indexed sources when it names none."""
        from docmentor.sources.versions import library_of

        if self.store.has_source(name):
            return [name]
        versions = sorted(
            r.name for r in self.store.sources() if "@" in r.name and library_of(r.name) == name
        )
        if not versions:
            self._known_source(name)
        return versions

    def _known_source(self, source: str | None) -> None:
        if source is not None and not self.store.has_source(source):
            known = [r.name for r in self.store.sources()]
            raise unknown_source(source, known, configured_not_indexed(known))


def configured_not_indexed(indexed: Iterable[str]) -> dict[str, str]:
    """The working folder's configured sources that no name of ``indexed`` holds, by the
    name each is indexed under: the file that configures it (none when the configuration
    cannot be read: its own error is said where it is read)."""
    try:
        configured = load_config().sources
    except DocmentorError:
        return {}
    names = set(indexed)
    return {
        src.indexed_name: src.origin or "DOCMENTOR_SOURCES"
        for src in configured
        if src.indexed_name not in names
    }
