"""The store of record: one SQLite file in WAL mode.

Many readers (other processes included) and one writer at a time. Every change to a
source is one transaction, so a reader sees a source either before or after a refresh,
never half of it. Writers also hold an advisory file lock (``write.lock``) for the whole
write, which orders them with the lexical index's commit.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from docmentor.errors import NotFoundError, StoreError, UsageError
from docmentor.models import SourceSpec
from docmentor.store.dbapi import Connection, Row, missing_table
from docmentor.store.migrations import MIGRATIONS
from docmentor.store.rows import DocChange, SourceRow, StoredDoc, now_iso, source_row, stored_doc

log = logging.getLogger(__name__)


_DOC_COLS = "id, source, path, url, title, fmt, content_hash, etag, last_modified, fetched_at, indexed_at, stale, error, served"


class Store:
    """SQLite access. One connection per thread; safe to share across threads."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self._local = threading.local()
        # every thread's connection with its thread: closed by close_all; one whose thread
        # ended is handed to the next new thread (a server's worker threads come and go)
        self._conns: list[tuple[sqlite3.Connection, threading.Thread]] = []
        self._all_lock = threading.Lock()
        self._closed = False
        self._lock_path = path.parent / "write.lock"  # remove_files names it too
        if not readonly:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._migrate()
        elif not path.exists():
            raise NotFoundError(
                f"no index at {path.parent}", hint="add a source first: docmentor add PATH_OR_URL"
            )

    #: the SQL dialect behind :meth:`conn` ("sqlite" here, "postgresql" for :class:`PgStore`)
    dialect = "sqlite"

    def pgvector_ready(self, dimensions: int) -> bool:
        """Whether vectors are also kept in pgvector (PostgreSQL with the extension only)."""
        return False

    @property
    def has_pgvector(self) -> bool:
        """Whether pgvector was found ready (without trying)."""
        return False

    @property
    def location(self) -> str:
        """Where the index is, for messages (a file path, or a database URL without password)."""
        return str(self.path)

    # -- connections -------------------------------------------------------------
    def conn(self) -> Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            if self._closed:
                raise StoreError(f"the index {self.path.parent} was closed", hint="open it again to use it")
            db = self._adopt_idle()  # None once closed: then the check below raises
            if db is None:
                try:
                    db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
                    db.row_factory = sqlite3.Row
                    _wal(db)
                    db.execute("PRAGMA synchronous=NORMAL")
                    db.execute("PRAGMA foreign_keys=ON")
                    db.execute("PRAGMA busy_timeout=30000")
                except sqlite3.DatabaseError as exc:
                    db = self._read_only_connection(exc)
                with self._all_lock:
                    if self._closed:  # closed while this thread connected: not kept open
                        db.close()
                        raise StoreError(
                            f"the index {self.path.parent} was closed", hint="open it again to use it"
                        )
                    self._conns.append((db, threading.current_thread()))
            self._local.db = db
        return db

    def _read_only_connection(self, error: sqlite3.DatabaseError) -> sqlite3.Connection:
        """A connection to an index on a read-only file system (a volume mounted read-only),
        or the StoreError of ``error``: WAL needs its -shm file, which cannot be made there,
        so the file is read as it is (SQLite's ``immutable``: nobody can write it through
        this mount)."""
        if not self.path.is_file() or os.access(self.path.parent, os.W_OK):
            raise StoreError(f"cannot open the index {self.path}: {error}") from error
        wal = self.path.with_name(self.path.name + "-wal")
        if wal.is_file() and wal.stat().st_size > 0:  # commits read as-is would leave out
            raise StoreError(
                f"the index {self.path.parent} is on a read-only file system with commits still in "
                f"{wal.name} that cannot be folded in here",
                hint="open it once where it can be written (any docmentor command does), then mount it again",
            ) from error
        uri = "file:" + urllib.parse.quote(str(self.path)) + "?mode=ro&immutable=1"
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA query_only=ON")
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the index {self.path}: {error}") from exc
        return db

    def _adopt_idle(self) -> sqlite3.Connection | None:
        """An idle connection whose thread has ended, now this thread's; those a thread left
        inside a transaction are closed and forgotten."""
        me = threading.current_thread()
        found: sqlite3.Connection | None = None
        with self._all_lock:
            if self._closed:
                return None
            keep: list[tuple[sqlite3.Connection, threading.Thread]] = []
            for db, owner in self._conns:
                if owner.is_alive():
                    keep.append((db, owner))
                    continue
                try:
                    busy = db.in_transaction
                except sqlite3.ProgrammingError:  # closed
                    continue
                if busy:
                    db.close()
                elif found is None:
                    found = db
                    keep.append((db, me))
                else:
                    keep.append((db, owner))
            self._conns[:] = keep
        return found

    def close(self) -> None:
        """Close this thread's connection (the next call of the thread opens one again)."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None
            with self._all_lock:
                self._conns[:] = [(d, o) for d, o in self._conns if d is not db]

    def close_all(self) -> None:
        """Close every thread's connection; the store cannot be used after it. A connection
        another live thread holds is left to that thread (closing it under a statement
        running there is not safe): it closes when the thread ends, and the thread opens no
        other."""
        me = threading.current_thread()
        with self._all_lock:
            self._closed = True
            for db, owner in self._conns:
                if owner is me or not owner.is_alive():
                    db.close()
            self._conns.clear()
        self._local = threading.local()

    @staticmethod
    def remove_files(path: Path) -> None:
        """Delete the store at ``path``: the database, its WAL and shared-memory files and the
        write lock (closed stores only: for an index that a failed first write just made)."""
        for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", "write.lock"):
            (path.parent / name).unlink(missing_ok=True)

    @contextlib.contextmanager
    def write_lock(self, timeout: float = 600.0) -> Iterator[None]:
        """Exclusive across processes: one writer at a time for SQLite and the lexical index."""
        self._lock_path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock_file(self._lock_path) as fh:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise StoreError("another docmentor process is writing this index") from None
                    time.sleep(0.05)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    @contextlib.contextmanager
    def try_write_lock(self) -> Iterator[bool | None]:
        """The write lock if no other writer holds it now (True), else nothing: False while
        another writer holds it, None when this process cannot take it at all (a read-only
        index folder). For a reader that may repair the index but must not wait behind a
        long refresh."""
        try:
            fh = open(self._lock_path, "a+")  # noqa: SIM115 - closed below
        except OSError:  # e.g. a read-only index folder: this process cannot write anyway
            yield None
            return
        with fh, _flock_now(fh) as mine:
            yield mine

    @contextlib.contextmanager
    def try_named_lock(self, name: str) -> Iterator[bool]:
        """A lock of its own (``name``: e.g. "embed") if no other process holds it now; False
        at once otherwise (a second embedder skips, it does not wait)."""
        with self._lock_file(self.path.parent / f"{name}.lock") as fh, _flock_now(fh) as mine:
            yield mine

    def check_writable(self) -> None:
        """The StoreError of an index that cannot be written (a read-only file system), said
        before a refresh reads anything; nothing when it can be."""
        if self.path.parent.is_dir() and not os.access(self.path.parent, os.W_OK):
            self._lock_file(self._lock_path).close()

    def _lock_file(self, path: Path) -> IO[str]:
        """A lock file opened for flock, or the StoreError of an index that cannot be
        written (a read-only file system: it can be searched and read, not changed)."""
        try:
            return open(path, "a+")
        except OSError as exc:
            if os.access(path.parent, os.W_OK):
                raise
            raise StoreError(
                f"the index {path.parent} cannot be written ({exc.strerror or exc}): it can be searched "
                "and read here, not changed",
                hint="refresh it where it can be written",
            ) from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        db = self.conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        else:
            db.execute("COMMIT")

    def row_transaction(self) -> contextlib.AbstractContextManager[Connection]:
        """A write transaction whose statements lock the rows they need (``FOR UPDATE``): on
        SQLite, :meth:`transaction` (one writer at a time); PostgreSQL's lets writers of other
        rows run beside it."""
        return self.transaction()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read transaction: every read inside sees one committed state (WAL snapshot)."""
        db = self.conn()
        if db.in_transaction:
            yield db
            return
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    def _applied(self) -> set[str] | None:
        """Migrations already applied, read without the writer lock (None: a new index)."""
        try:
            return {r[0] for r in self.conn().execute("SELECT name FROM _migrations")}
        except Exception as exc:
            if missing_table(exc):
                return None
            raise

    def _migrate(self) -> None:
        # Fast path: an up-to-date index is opened without waiting for a writer that may be
        # in the middle of a long refresh (a new MCP server must be ready at once).
        if self._applied() == {name for name, _ in MIGRATIONS}:
            return
        db = self.conn()
        with self.write_lock():
            db.execute(
                "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            done = {r[0] for r in db.execute("SELECT name FROM _migrations")}
            known = {name for name, _ in MIGRATIONS}
            if done - known:
                raise StoreError(
                    f"the index {self.location} was written by a newer docmentor ({sorted(done - known)[-1]})",
                    hint="upgrade docmentor",
                )
            for name, fn in MIGRATIONS:
                if name in done:
                    continue
                log.info("applying migration %s", name)
                db.execute("BEGIN IMMEDIATE")
                try:
                    fn(db)
                    db.execute("INSERT INTO _migrations VALUES (?, ?)", (name, now_iso()))
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")

    # -- settings ----------------------------------------------------------------
    def get_setting(self, key: str) -> str | None:
        row = self.conn().execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        self.conn().execute(
            "INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- sources -----------------------------------------------------------------
    def sources(self) -> list[SourceRow]:
        rows = (
            self.conn()
            .execute(
                """SELECT s.*,
                   (SELECT count(*) FROM documents d WHERE d.source = s.name) AS documents,
                   (SELECT count(*) FROM sections x JOIN documents d ON d.id = x.document_id
                     WHERE d.source = s.name) AS sections,
                   (SELECT count(*) FROM documents d WHERE d.source = s.name AND d.stale = 1) AS stale
               FROM sources s ORDER BY s.name"""
            )
            .fetchall()
        )
        return [source_row(r) for r in rows]

    def source(self, name: str) -> SourceRow:
        for row in self.sources():
            if row.name == name:
                return row
        known = ", ".join(r.name for r in self.sources()) or "none"
        if not name.strip():  # an empty variable in a script: refused, not "not found"
            raise UsageError("empty source name", hint=f"name one of: {known}")
        raise NotFoundError(f"unknown source {name!r}", hint=f"known sources: {known}")

    def source_versions(self) -> dict[str, str | None]:
        return {r[0]: r[1] for r in self.conn().execute("SELECT name, version FROM sources")}

    def set_source_version(self, name: str, version: str | None, origin: str | None) -> None:
        """Record the library version a source describes and where it was read (None: it
        describes none any more)."""
        with self.transaction() as db:
            db.execute(
                "UPDATE sources SET version = ?, version_origin = ? WHERE name = ?", (version, origin, name)
            )

    def has_source(self, name: str) -> bool:
        return self.conn().execute("SELECT 1 FROM sources WHERE name = ?", (name,)).fetchone() is not None

    def set_source_status(
        self,
        name: str,
        *,
        status: str,
        error: str | None,
        refreshed: bool = False,
        options: dict[str, Any] | None = None,
    ) -> None:
        """A source's status and error; ``refreshed``: now is its last refresh; ``options``:
        its options now (an ``add`` again with other options, where no document changed)."""
        with self.transaction() as db:
            db.execute("UPDATE sources SET status = ?, error = ? WHERE name = ?", (status, error, name))
            if refreshed:  # an unchanged refresh is a refresh too
                db.execute("UPDATE sources SET refreshed_at = ? WHERE name = ?", (now_iso(), name))
            if options is not None:
                db.execute(
                    "UPDATE sources SET options = ? WHERE name = ?",
                    (json.dumps(options, sort_keys=True), name),
                )

    def generations(self) -> tuple[tuple[str, int, int], ...]:
        """(name, generation, lexical generation) of every source. The two generations differ
        while a writer is between its store and lexical commits, or when it died there."""
        rows = self.conn().execute("SELECT name, generation, lexical_generation FROM sources ORDER BY name")
        return tuple((str(r[0]), int(r[1]), int(r[2])) for r in rows)

    def live_sections(self, section_ids: list[int]) -> set[tuple[int, int, str]]:
        """(section id, document id, path) of those sections the store still has."""
        out: set[tuple[int, int, str]] = set()
        db = self.conn()
        for i in range(0, len(section_ids), 500):
            chunk = section_ids[i : i + 500]
            rows = db.execute(
                f"""SELECT x.id, x.document_id, d.path FROM sections x JOIN documents d ON d.id = x.document_id
                    WHERE x.id IN ({",".join("?" * len(chunk))})""",
                chunk,
            )
            out.update((int(r[0]), int(r[1]), str(r[2])) for r in rows)
        return out

    def mark_lexical(self, name: str, generation: int) -> None:
        self.conn().execute("UPDATE sources SET lexical_generation = ? WHERE name = ?", (generation, name))

    def delete_source(self, name: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM sources WHERE name = ?", (name,))

    # -- documents ---------------------------------------------------------------
    def documents(self, source: str) -> dict[str, StoredDoc]:
        rows = self.conn().execute(f"SELECT {_DOC_COLS} FROM documents WHERE source = ?", (source,))
        return {r["path"]: stored_doc(r) for r in rows}

    def document_ids(self, source: str) -> list[int]:
        return [r[0] for r in self.conn().execute("SELECT id FROM documents WHERE source = ?", (source,))]

    def find_document(
        self,
        *,
        source: str | None = None,
        path: str | None = None,
        url: str | None = None,
        doc_id: int | None = None,
    ) -> StoredDoc | None:
        db = self.conn()
        if doc_id is not None:
            row = db.execute(f"SELECT {_DOC_COLS} FROM documents WHERE id = ?", (doc_id,)).fetchone()
        elif url is not None:
            row = db.execute(
                f"SELECT {_DOC_COLS} FROM documents WHERE url = ? ORDER BY id LIMIT 1", (url,)
            ).fetchone()
        elif source is not None and path is not None:
            row = db.execute(
                f"SELECT {_DOC_COLS} FROM documents WHERE source = ? AND path = ?", (source, path)
            ).fetchone()
        elif path is not None:
            row = db.execute(
                f"SELECT {_DOC_COLS} FROM documents WHERE path = ? ORDER BY id LIMIT 1", (path,)
            ).fetchone()
        else:
            row = None
        return None if row is None else stored_doc(row)

    def sources_with_path(self, path: str) -> list[str]:
        """The sources that hold a document at ``path`` (sorted)."""
        rows = self.conn().execute("SELECT source FROM documents WHERE path = ? ORDER BY source", (path,))
        return [str(r[0]) for r in rows]

    def content(self, doc_id: int) -> str:
        row = self.conn().execute("SELECT content FROM documents WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"document {doc_id} is gone")
        return str(row[0])

    def stale_documents(self, doc_ids: Sequence[int]) -> set[int]:
        """Which of these documents are kept stale (gone from their origin, not yet pruned)."""
        out: set[int] = set()
        ids = sorted(set(doc_ids))
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            rows = self.conn().execute(
                f"SELECT id FROM documents WHERE stale = 1 AND id IN ({','.join('?' * len(chunk))})", chunk
            )
            out.update(int(r[0]) for r in rows)
        return out

    def line_map(self, doc_id: int) -> list[int] | None:
        row = self.conn().execute("SELECT line_map FROM documents WHERE id = ?", (doc_id,)).fetchone()
        return None if row is None or not row[0] else list(json.loads(row[0]))

    def document_facts(self, sources: list[str] | None = None) -> list[Row]:
        """What assembly needs of every document: path, title, front matter, times."""
        sql = "SELECT id, source, path, url, title, meta, updated_at, fetched_at FROM documents"
        if sources:
            sql += f" WHERE source IN ({','.join('?' * len(sources))})"
        return self.conn().execute(sql, sources or []).fetchall()

    def links(self, sources: list[str] | None = None) -> list[Row]:
        """Every stored link (document_id, target, anchor, line), for the link graph."""
        sql = "SELECT l.document_id, l.target, l.anchor, l.line FROM links l"
        if sources:
            sql += f" JOIN documents d ON d.id = l.document_id WHERE d.source IN ({','.join('?' * len(sources))})"
        return self.conn().execute(sql, sources or []).fetchall()

    def sections_by_id(self, ids: list[int]) -> dict[int, Row]:
        out: dict[int, Row] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            rows = self.conn().execute(
                f"SELECT * FROM sections WHERE id IN ({','.join('?' * len(chunk))})", chunk
            )
            out.update({int(r["id"]): r for r in rows})
        return out

    def sections_of(self, doc_id: int) -> list[Row]:
        return (
            self.conn()
            .execute("SELECT * FROM sections WHERE document_id = ? ORDER BY ord", (doc_id,))
            .fetchall()
        )

    def lexical_rows(self, doc_ids: list[int]) -> Iterator[Row]:
        """Everything the lexical index stores for the sections of these documents."""
        db = self.conn()
        for i in range(0, len(doc_ids), 500):
            chunk = doc_ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            # `for … yield`, not `yield from`: a generator closed after the store (Ctrl-C in the
            # middle of a write) would close the cursor on a closed connection, and print it
            rows = db.execute(
                f"""SELECT x.id AS section_id, x.heading, x.heading_path, x.level, x.line_start, x.line_end,
                           x.text, d.id AS document_id, d.source, d.path, d.url, d.title, d.indexed_at
                    FROM sections x JOIN documents d ON d.id = x.document_id
                    WHERE d.id IN ({marks}) AND d.searchable = 1 ORDER BY d.id, x.ord""",
                chunk,
            )
            for row in rows:  # noqa: UP028 (see above)
                yield row

    # -- the one write path ------------------------------------------------------
    def apply(
        self,
        spec: SourceSpec,
        *,
        changes: list[DocChange],
        delete_paths: list[str],
        stale: dict[str, str],
        fresh_paths: list[str],
        version: str | None = None,
        title: str | None = None,
        served: dict[str, str] | None = None,
        version_origin: str | None = None,
    ) -> tuple[int, list[int], list[int]]:
        """Write one refresh of one source atomically.

        ``stale`` maps paths kept from before to why they were not refreshed; ``served``
        how new or changed documents were served (path → 'html' | 'text'); ``version`` the
        library version the source describes and ``version_origin`` where it was read (None:
        both stay as they were).
        Returns the new generation, the ids of documents written (to index) and the ids
        of documents removed or replaced (to drop from the lexical index).
        """
        stamp = now_iso()
        written: list[int] = []
        dropped: list[int] = []
        with self.transaction() as db:
            db.execute(
                """INSERT INTO sources (name, kind, target, options, version, title, created_at, refreshed_at,
                                        status, error)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'ok', NULL)
                   ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, target = excluded.target,
                       options = excluded.options, version = COALESCE(excluded.version, sources.version),
                       title = COALESCE(excluded.title, sources.title), refreshed_at = excluded.refreshed_at,
                       status = 'ok', error = NULL""",
                (
                    spec.name,
                    spec.kind,
                    spec.target,
                    json.dumps(spec.options.as_dict(), sort_keys=True),
                    version,
                    title,
                    stamp,
                    stamp,
                ),
            )
            for path in delete_paths:
                row = db.execute(
                    "SELECT id FROM documents WHERE source = ? AND path = ?", (spec.name, path)
                ).fetchone()
                if row is not None:
                    dropped.append(int(row[0]))
                    db.execute("DELETE FROM documents WHERE id = ?", (row[0],))
            for path, error in stale.items():
                db.execute(
                    "UPDATE documents SET stale = 1, error = ? WHERE source = ? AND path = ?",
                    (error, spec.name, path),
                )
            if version is not None:
                db.execute(
                    "UPDATE sources SET version_origin = ? WHERE name = ?", (version_origin, spec.name)
                )
            if fresh_paths:
                db.executemany(
                    "UPDATE documents SET stale = 0, error = NULL, fetched_at = ? WHERE source = ? AND path = ?",
                    [(stamp, spec.name, p) for p in fresh_paths],
                )
            for ch in changes:
                written.append(
                    self._write_doc(db, spec.name, ch, stamp, dropped, (served or {}).get(ch.raw.path))
                )
            if served:  # unchanged documents too (rows written before the column existed)
                db.executemany(
                    "UPDATE documents SET served = ? WHERE source = ? AND path = ? AND served IS NOT ?",
                    [(v, spec.name, p, v) for p, v in served.items()],
                )
            db.execute("UPDATE sources SET generation = generation + 1 WHERE name = ?", (spec.name,))
            gen = int(db.execute("SELECT generation FROM sources WHERE name = ?", (spec.name,)).fetchone()[0])
        return gen, written, dropped

    def _write_doc(
        self,
        db: Connection,
        source: str,
        ch: DocChange,
        stamp: str,
        dropped: list[int],
        served: str | None = None,
    ) -> int:
        raw, parsed = ch.raw, ch.parsed
        old = db.execute(
            "SELECT id FROM documents WHERE source = ? AND path = ?", (source, raw.path)
        ).fetchone()
        if old is not None:
            dropped.append(int(old[0]))
            db.execute("DELETE FROM documents WHERE id = ?", (old[0],))
        cur = db.execute(
            """INSERT INTO documents (source, path, url, title, fmt, content, content_hash, line_map, meta, etag,
                                      last_modified, fetched_at, indexed_at, searchable, updated_at, served)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
            (
                source,
                raw.path,
                raw.url,
                parsed.title,
                raw.fmt,
                raw.content,
                ch.content_hash,
                json.dumps(raw.line_map) if raw.line_map else None,
                json.dumps(parsed.meta, default=str),
                raw.etag,
                raw.last_modified,
                stamp,
                stamp,
                int(raw.searchable),
                raw.updated_at,
                served,
            ),
        )
        doc_id = int(cur.fetchone()[0])
        for ord_, sec in enumerate(parsed.sections):
            scur = db.execute(
                """INSERT INTO sections (document_id, ord, heading, heading_path, level, anchor, line_start,
                                         line_end, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
                (
                    doc_id,
                    ord_,
                    sec.heading,
                    json.dumps(sec.heading_path),
                    sec.level,
                    sec.anchor,
                    sec.line_start,
                    sec.line_end,
                    sec.text,
                ),
            )
            sid = int(scur.fetchone()[0])
            if sec.code_blocks:
                db.executemany(
                    "INSERT INTO code_blocks (section_id, document_id, language, code, line) VALUES (?, ?, ?, ?, ?)",
                    [(sid, doc_id, cb.language, cb.code, cb.line) for cb in sec.code_blocks],
                )
        if parsed.links:
            db.executemany(
                "INSERT INTO links (document_id, target, anchor, line) VALUES (?, ?, ?, ?)",
                [(doc_id, ln.target, ln.anchor, ln.line) for ln in parsed.links],
            )
        return doc_id


@contextlib.contextmanager
def _flock_now(fh: IO[str]) -> Iterator[bool]:
    """An exclusive lock on the open file ``fh`` if no process holds it now (True, released
    at the end), else False at once."""
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        yield False
        return
    try:
        yield True
    finally:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _wal(db: sqlite3.Connection) -> None:
    """Switch to WAL (persistent in the file). Switching needs an exclusive lock, and SQLite
    answers BUSY at once — without the busy handler — when processes open a new index
    together, so retry for a while."""
    if str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
        return
    deadline = time.monotonic() + 30
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
