"""The store of record in a PostgreSQL database (``--db postgresql://…``).

Everything but the plumbing is :class:`~docmentor.store.db.Store`'s own code: its statements
run through :class:`~docmentor.store.pg.PgConnection`, its migrations are the same named
migrations (recorded in ``_migrations`` as on SQLite). What differs is here: connections
(one per thread), the write lock (an advisory lock every replica sees), read snapshots
(``REPEATABLE READ``) and what "no index yet" means (no ``_migrations`` table).
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

from docmentor.errors import NotFoundError, StoreError
from docmentor.store.db import Store
from docmentor.store.dbapi import Connection
from docmentor.store.pg import AdvisoryLock, PgConnection, connect, lock_key, redact

__all__ = ["PgStore"]

_WRITE_LOCK = "docmentor:write"
_TRANSACTION_LOCK = "docmentor:transaction"


def _close_every(connections: list[PgConnection], lock: threading.Lock) -> None:
    with lock:
        for db in connections:
            # never connected again by a thread still at work on it (a closed connection is
            # otherwise replaced on its next statement: a session nobody closes, a leak)
            db.url = None
            db.close()
        connections.clear()


def _database_ident(url: str) -> str:
    """The database and schema ``url`` opens (one index per schema), or StoreError."""
    conn = connect(url)
    try:
        row = conn.execute("SELECT current_database(), current_schema()").fetchone()
    finally:
        conn.close()
    if row[1] is None:
        raise StoreError(
            f"the database {redact(url)} has no schema in its search path to keep the index in",
            hint="create the schema first (CREATE SCHEMA name), or leave search_path alone",
        )
    return f"{row[0]}.{row[1]}"


class PgStore(Store):
    """A :class:`Store` in the database ``url`` (its schema: see :mod:`docmentor.store.pg`)."""

    dialect = "postgresql"

    def __init__(self, url: str, *, readonly: bool = False) -> None:
        self.url = url
        self.readonly = readonly
        self._local = threading.local()
        self._ident = _database_ident(url)  # locks are per database: name them by schema too
        self._write = AdvisoryLock(url, f"{_WRITE_LOCK}:{self._ident}")
        self._tx_key = lock_key(f"{_TRANSACTION_LOCK}:{self._ident}")
        self._pgvector: bool | None = None  # unknown until first use
        self._vector_schema: str | None = None  # where pgvector's type and operators are
        self._vector_size = 0  # the dimensions of unit_embeddings' vectors
        self._pgvector_lock = threading.Lock()
        self._all: list[PgConnection] = []  # every thread's connection, closed by close_all
        self._owners: dict[int, threading.Thread] = {}  # id of a connection in _all → its thread
        self._closed = False  # close_all was called: the store cannot be used any more
        self._all_lock = threading.Lock()
        # a store dropped without close_all (an engine nobody closed) closes its sessions when
        # it is collected, instead of leaving them open to the server until the process ends
        weakref.finalize(self, _close_every, self._all, self._all_lock)
        try:
            if not readonly:
                self._migrate()
            elif self._applied() is None:
                raise NotFoundError(
                    f"no index in the database {redact(url)}",
                    hint="add a source first: docmentor --db URL add PATH",
                )
        except BaseException:
            self.close_all()
            raise

    @property
    def location(self) -> str:
        return redact(self.url)

    @property
    def has_pgvector(self) -> bool:
        return bool(self._pgvector)

    def pgvector_ready(self, dimensions: int) -> bool:
        """Whether vectors of ``dimensions`` are kept (and searched) in pgvector too: the table
        and its HNSW index made on first use (:func:`~docmentor.store.pgvector_rows.prepare_pgvector`),
        for the size of the first vectors written."""
        with self._pgvector_lock:
            if self._pgvector is None:
                from docmentor.store.pgvector_rows import extension_schema, prepare_pgvector

                self._vector_schema = extension_schema(self)
                if self._vector_schema is not None:  # on this thread's connection: path set
                    self._vector_size = prepare_pgvector(self, dimensions)
                self._pgvector = self._vector_schema is not None
            return self._pgvector and dimensions == self._vector_size

    @property
    def path(self) -> Path:  # type: ignore[override]
        raise StoreError(f"the index in {self.location} has no folder")

    # -- connections -------------------------------------------------------------
    def conn(self) -> Connection:
        db: PgConnection | None = getattr(self._local, "db", None)
        if db is None or db.raw.closed:
            if self._closed:
                raise StoreError(f"the index in {self.location} was closed", hint="open it again to use it")
            db = self._adopted()
            if db is None:
                db = connect(self.url)
                with self._all_lock:
                    if self._closed:  # closed while this thread connected: not kept open
                        db.close()
                        raise StoreError(
                            f"the index in {self.location} was closed", hint="open it again to use it"
                        )
                    self._all.append(db)
                    self._owners[id(db)] = threading.current_thread()
            self._local.db = db
        schema = self._vector_schema
        if schema is not None and db.extra_schema != schema:
            db.use_schema(schema)
        return db

    def _adopted(self) -> PgConnection | None:
        """An idle connection whose thread has ended, for this thread; the closed ones and
        those a thread left inside a transaction are closed and forgotten. A server's worker
        threads come and go (anyio retires an idle one after 10 s): without this, each new
        thread opened a connection and every ended one kept its own open, until PostgreSQL
        refused everyone (a team tour: 97 idle sessions after three bursts of requests)."""
        with self._all_lock:
            if self._closed:  # closed meanwhile: conn() connects and refuses under the lock
                return None
            found: PgConnection | None = None
            keep: list[PgConnection] = []
            for db in self._all:
                owner = self._owners.get(id(db))
                if owner is not None and owner.is_alive():
                    keep.append(db)  # its thread's
                elif db.raw.closed or db.in_transaction:
                    db.close()
                    self._owners.pop(id(db), None)
                else:  # idle: this thread's, or the next new thread's
                    found = found or db
                    keep.append(db)
            self._all[:] = keep
            if found is not None:  # this thread's now, under the lock: no other thread takes it
                self._owners[id(found)] = threading.current_thread()
            return found

    def close(self) -> None:
        db: PgConnection | None = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    def close_all(self) -> None:
        """Close every thread's connection (a server shutting down, a test's end)."""
        self._closed = True
        _close_every(self._all, self._all_lock)
        self._owners.clear()
        self._local = threading.local()

    def check_writable(self) -> None:
        """A database is written through its connection: nothing to check here."""

    # -- locks and transactions --------------------------------------------------
    @contextlib.contextmanager
    def write_lock(self, timeout: float = 600.0) -> Iterator[None]:
        with self._write.held(timeout, "another docmentor process is writing this index"):
            yield

    @contextlib.contextmanager
    def try_write_lock(self) -> Iterator[bool | None]:
        with self._write.try_held() as got:
            yield got

    @contextlib.contextmanager
    def try_named_lock(self, name: str) -> Iterator[bool]:
        with AdvisoryLock(self.url, f"docmentor:{self._ident}:{name}").try_held() as got:
            yield got

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One writer at a time, as SQLite's ``BEGIN IMMEDIATE``: a transaction-scoped advisory
        lock taken first, so read-then-write statements (next sequence numbers, counters)
        never race another writer."""
        with self._transaction(exclusive=True) as db:
            yield db

    def row_transaction(self) -> contextlib.AbstractContextManager[Connection]:
        return self._transaction(exclusive=False)

    @contextlib.contextmanager
    def _transaction(self, *, exclusive: bool) -> Iterator[Connection]:
        db = self.conn()
        db.execute("BEGIN")
        try:
            if exclusive:
                db.execute("SELECT pg_advisory_xact_lock(?)", (self._tx_key,))
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        else:
            db.execute("COMMIT")

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Connection]:
        db = self.conn()
        if db.in_transaction:
            yield db
            return
        db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        try:
            yield db
        finally:
            db.execute("COMMIT")
