"""The background work of a long-running process (``docmentor serve``): index the configured
sources not indexed yet, refresh every source periodically, and embed what has no vector.

:class:`RefreshScheduler` runs the first two in one daemon thread, :class:`BackgroundEmbedder`
the third in another; :class:`UnindexedSources` remembers the configured sources that could
not be indexed (with why), for a listing of sources. :func:`refresh_pass` is one refresh as
every caller runs it (``docmentor refresh``, the refresh tool, the periodic pass). Nothing
here knows of MCP: a caller that shows something derived from the index (the server's
instructions) passes ``on_change``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from docmentor.config import DEFAULT_REFRESH_DEADLINE, indexed_name
from docmentor.errors import DocmentorError

if TYPE_CHECKING:
    from docmentor.config import ConfiguredSource
    from docmentor.engine import Docmentor
    from docmentor.engine.reports import Progress, RefreshReport

log = logging.getLogger(__name__)


def configured_sources() -> list[ConfiguredSource]:
    """The sources the working folder's config names; none (with a warning) when the config
    cannot be read: the indexed sources are still refreshed."""
    from docmentor.config import load_config

    try:
        return list(load_config().sources)
    except Exception as exc:  # a broken docmentor.toml must not stop a server's refreshes
        log.warning("the configured sources cannot be read: %s", exc)
        return []


def configured_row(
    name: str, target: str, options: Mapping[str, Any], *, status: str, error: str, tried: bool
) -> dict[str, Any]:
    """A configured source that is not indexed, as a row shaped like ``Docmentor.sources()``'s
    (kind "configured"); ``tried``: a refresh tried to index it (``refreshed_at`` is then)."""
    return {
        "name": name,
        "kind": "configured",
        "target": target,
        "title": None,
        "version": None,
        "version_origin": None,
        "library": name.partition("@")[0],
        "documents": 0,
        "sections": 0,
        "stale_documents": 0,
        "status": status,
        "error": error,
        "created_at": None,
        "refreshed_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        if tried
        else None,
        "options": dict(options),
        "units": 0,
        "embedded": 0,
    }


def not_indexed_yet(
    indexed: Sequence[Mapping[str, Any]], configured: Iterable[ConfiguredSource]
) -> list[dict[str, Any]]:
    """The configured sources no indexed source answers for, as rows (status "not indexed")."""

    names = {r["name"] for r in indexed}
    return [
        _not_indexed_row(src, "configured, not indexed yet: `docmentor refresh` (or `serve`) indexes it")
        for src in configured
        if indexed_name(src.name, src.settings.version) not in names
    ]


def _not_indexed_row(src: ConfiguredSource, error: str) -> dict[str, Any]:
    return configured_row(src.name, src.target, src.options, status="not indexed", error=error, tried=False)


class UnindexedSources:
    """The configured sources that could not be indexed, as rows shaped like
    ``Docmentor.sources()``'s (kind "configured", status "error", the error), until they are;
    and those a server is indexing now (status "not indexed"), until they are indexed or fail."""

    def __init__(self) -> None:
        self._failed: dict[str, dict[str, Any]] = {}
        self._indexing: dict[str, dict[str, Any]] = {}  # by the name the index will give it
        self._lock = threading.Lock()

    def failed(self, name: str, target: str, options: dict[str, Any], error: str) -> None:
        row = configured_row(name, target, options, status="error", error=error, tried=True)
        with self._lock:
            self._failed[name] = row
            for key in [k for k, r in self._indexing.items() if r["name"] == name]:
                del self._indexing[key]

    def indexing(self, sources: Iterable[ConfiguredSource]) -> None:
        """Configured sources a server starts indexing: listed until they are indexed (a server
        that indexes them at start answered ``list_sources`` with none of them before)."""

        with self._lock:
            for src in sources:
                self._indexing[indexed_name(src.name, src.settings.version)] = _not_indexed_row(
                    src, "configured, being indexed by this server now"
                )

    def indexed(self) -> None:
        """The indexing pass is over: what it did not index has failed (listed as such)."""
        with self._lock:
            self._indexing.clear()

    def note(self, configured: Iterable[ConfiguredSource], reports: Iterable[Any]) -> None:
        """The configured sources a refresh (``Docmentor.refresh_with_config``) could not index."""
        by_name = {src.name: src for src in configured}
        for r in reports:
            if r.kind == "configured" and r.error and r.source in by_name:
                src = by_name[r.source]
                self.failed(src.name, src.target, src.options, r.error)

    def sources(self, indexed: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """The indexed sources, then the configured ones that are not (with their error), then
        those being indexed."""
        names = {r["name"] for r in indexed}
        with self._lock:
            for name in names & set(self._failed):
                del self._failed[name]
            waiting = [
                r for key, r in self._indexing.items() if key not in names and r["name"] not in self._failed
            ]
            return [*indexed, *self._failed.values(), *waiting]


def refresh_pass(
    engine: Docmentor,
    name: str | None = None,
    *,
    configured: Sequence[ConfiguredSource] | None = None,
    unindexed: UnindexedSources | None = None,
    progress: Progress | None = None,
    embed: bool = False,
    prune: bool = False,
    deadline: float | None = DEFAULT_REFRESH_DEADLINE,
    report_errors: bool = False,
) -> list[RefreshReport]:
    """One refresh: the source ``name`` alone (``Docmentor.refresh``, its error raised, or
    its report's with ``report_errors``), or every source with the configured ones not indexed
    yet (``Docmentor.refresh_with_config``).

    ``configured``: those sources (default: :func:`configured_sources`, the working folder's
    config, none when it cannot be read); the ones that could not be indexed are noted in
    ``unindexed``. ``progress``, ``embed``, ``prune`` and ``deadline`` as for the engine's
    calls (here ``embed`` defaults to False: each caller embeds in its own way).

    ``name`` may be a configured source not indexed yet: it is indexed
    (``Docmentor.refresh_configured``), as a refresh of every source would; a configured
    source indexed is refreshed with its entry's options."""
    wanted = list(configured_sources() if configured is None else configured)
    if name is not None:  # "" too: a blank name is refused, not taken for every source
        src = configured_named(name, wanted)
        if src is None or (src.indexed_name != name and engine.store.has_source(name)):
            return engine.refresh(
                name,
                progress=progress,
                embed=embed,
                prune=prune,
                deadline=deadline,
                report_errors=report_errors,
            )
        try:
            one = engine.refresh_configured(
                src,
                progress=progress,
                embed=embed,
                prune=prune,
                deadline=deadline,
                report_errors=report_errors,
            )
        except Exception as exc:
            if unindexed is not None and not engine.store.has_source(src.indexed_name):
                unindexed.failed(src.name, src.target, src.options, str(exc) or type(exc).__name__)
            raise
        if unindexed is not None:
            unindexed.note([src], one)
        return one
    reports = engine.refresh_with_config(
        wanted, progress=progress, embed=embed, prune=prune, deadline=deadline
    )
    if unindexed is not None:
        unindexed.note(wanted, reports)
    return reports


def configured_named(name: str, configured: Iterable[ConfiguredSource]) -> ConfiguredSource | None:
    """The configured source ``name`` names: the one indexed under that name, else the one
    source of that name (``httpx`` for ``httpx@0.27`` when no other version is configured)."""
    sources = list(configured)
    exact = [s for s in sources if s.indexed_name == name]
    named = [s for s in sources if s.name == name]
    return exact[0] if exact else named[0] if len(named) == 1 else None


class BackgroundEmbedder:
    """One thread that embeds the sections still without vectors, whenever woken (at start,
    after each refresh). A stop ends it after the batch in hand; what is left is embedded by
    the next server or refresh."""

    def __init__(self) -> None:
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._engine: Docmentor | None = None

    def start(self, engine: Docmentor) -> None:
        if not engine.embeddings or self._thread is not None:
            return
        self._engine = engine
        self._stopping.clear()
        self._thread = threading.Thread(target=self._loop, name="docmentor-embed", daemon=True)
        self._thread.start()
        self.wake()

    def wake(self) -> None:
        self._wanted.set()

    def stop(self, timeout: float = 10.0) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        self._wanted.set()
        thread.join(timeout=timeout)

    def _loop(self) -> None:
        engine = self._engine
        assert engine is not None
        while not self._stopping.is_set():
            self._wanted.wait()
            self._wanted.clear()
            if self._stopping.is_set():
                return
            try:
                done = engine.embed(stop=self._stopping)
                if done.embedded:
                    log.info("embedded %d sections in %.1f s", done.embedded, done.seconds)
            except DocmentorError as exc:
                log.warning("sections not embedded: %s", exc)
            except Exception:
                log.exception("embedding sections failed")


#: settings key: when a server last made the periodic pass (seconds since the epoch)
PERIODIC_REFRESH_AT = "periodic_refresh_at"


class RefreshScheduler:
    """Index the configured sources that are missing (``configured``), then refresh every
    source every ``interval_hours`` (0: never), in one daemon thread.

    Each configured source on its own: one that cannot be read is one warning line (and a
    row in ``unindexed``), and the others are still indexed. After each pass the embedder is
    woken and ``on_change`` called; neither a failed refresh nor ``on_change`` ends the thread.
    """

    def __init__(
        self,
        engine: Docmentor,
        *,
        configured: bool,
        interval_hours: float,
        embedder: BackgroundEmbedder | None = None,
        unindexed: UnindexedSources | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        if interval_hours < 0:
            raise ValueError("interval_hours must be 0 (off) or more")
        self.engine = engine
        self.configured = configured
        self.interval_hours = interval_hours
        self.embedder = embedder
        self.unindexed = unindexed
        self.on_change = on_change
        self.thread: threading.Thread | None = None

    def start(self) -> threading.Thread:
        self.thread = threading.Thread(target=self.run, name="docmentor-refresh", daemon=True)
        self.thread.start()
        return self.thread

    def run(self) -> None:
        if self.configured:
            self.index_configured()
        self._wake()
        while self.interval_hours > 0:
            time.sleep(self.interval_hours * 3600)
            self.refresh()

    def index_configured(self) -> None:
        """Index the configured sources that are not indexed yet (not while another thread
        of this process does: ``Docmentor.adding_configured``)."""

        engine = self.engine
        with engine.adding_configured:
            try:
                known = {s["name"] for s in engine.sources()}
            except DocmentorError as exc:
                log.warning("cannot list the indexed sources: %s", exc)
                known = set()
            todo = [s for s in configured_sources() if indexed_name(s.name, s.settings.version) not in known]
            if self.unindexed is not None:
                self.unindexed.indexing(todo)
            try:
                for src in todo:
                    self._index_one(src)
            finally:  # whatever ended the pass, no row says "being indexed now" any more
                if self.unindexed is not None:
                    self.unindexed.indexed()
        self._changed()

    def _index_one(self, src: ConfiguredSource) -> None:
        log.info("indexing configured source %s", src.name)
        try:
            self.engine.add(src.target, name=src.name, options=src.options, embed=False)
        except Exception as exc:
            if isinstance(exc, DocmentorError):
                log.warning("configured source %s not indexed: %s", src.name, exc)
            else:
                log.exception("indexing configured source %s failed", src.name)
            if self.unindexed is not None:  # a listing of sources shows it, with why
                self.unindexed.failed(src.name, src.target, src.options, str(exc) or type(exc).__name__)

    def refresh(self) -> bool:
        """One periodic pass: every source refreshed (configured ones not indexed yet added) —
        once per period however many servers share the index: the pass runs under a lock of
        the index's (a file lock, or a PostgreSQL advisory lock every replica sees) and only
        when no server has made one within 90% of the period. Whether this one did it."""
        store = self.engine.store
        with store.try_named_lock("periodic-refresh") as mine:
            if not mine:
                return False  # another server is refreshing now
            last = store.get_setting(PERIODIC_REFRESH_AT)
            period = self.interval_hours * 3600 * 0.9
            if last is not None and period > 0 and time.time() - float(last) < period:
                return False  # another server did this period's pass
            self._refresh()
            store.set_setting(PERIODIC_REFRESH_AT, repr(time.time()))
        return True

    def _refresh(self) -> None:
        t0 = time.monotonic()
        try:
            reports = refresh_pass(
                self.engine, configured=None if self.configured else [], unindexed=self.unindexed
            )
            self._wake()
            # which replica made the period's pass, and what it did (a team tour: no trace)
            log.info(
                "periodic refresh by this server: %d source(s) in %.1f s: %d added, %d updated, "
                "%d unchanged, %d removed document(s)%s",
                len(reports),
                time.monotonic() - t0,
                sum(r.added for r in reports),
                sum(r.updated for r in reports),
                sum(r.unchanged for r in reports),
                sum(r.removed for r in reports),
                "".join(f"; {n} not refreshed" for n in [sum(bool(r.error) for r in reports)] if n),
            )
            for r in reports:
                if r.error:
                    log.warning("source %s not refreshed: %s", r.source, r.error)
                elif r.failed:  # its other documents were refreshed; these keep their last copy
                    path, error = r.failed[0]
                    more = f" (and {len(r.failed) - 1} more)" if len(r.failed) > 1 else ""
                    log.warning("source %s: %s could not be read: %s%s", r.source, path, error, more)
        except DocmentorError as exc:
            log.warning("background refresh failed: %s", exc)
        except Exception:
            log.exception("background refresh failed")
        self._changed()

    def _wake(self) -> None:
        if self.embedder is not None:
            self.embedder.wake()

    def _changed(self) -> None:
        if self.on_change is None:
            return
        try:
            self.on_change()
        except Exception as exc:  # never worth failing a refresh for
            log.debug("after a refresh: %s", exc)
