"""The store of record on PostgreSQL: the same tables, statements and migrations as SQLite's.

:class:`PgStore` is a :class:`~docmentor.store.db.Store` whose connections are psycopg's,
wrapped so the store's code runs unchanged (:class:`PgConnection`: its SQL rewritten by
:func:`~docmentor.store.dbapi.to_postgres`, rows readable by position and by name). One
connection per thread, in autocommit mode with the store's explicit ``BEGIN`` / ``COMMIT``.
The cross-process write lock is a PostgreSQL advisory lock held on its own connection, so
it orders writers on every machine that shares the database (SQLite's is a file lock).

The index lives in one schema of the database: ``public`` unless the URL names another with
``?options=-csearch_path%3DNAME`` (tests use one schema each).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from docmentor.errors import DocmentorError, IndexUnavailable, StoreError
from docmentor.store.dbapi import MissingTable, to_postgres

__all__ = ["PgConnection", "PgRow", "is_postgres_url", "psycopg_module", "redact"]

_SCHEMES = ("postgresql://", "postgres://")
log = logging.getLogger(__name__)


def is_postgres_url(location: str) -> bool:
    """Whether ``location`` names a PostgreSQL database (``postgresql://…``, ``postgres://…``)."""
    return location.lower().startswith(_SCHEMES)


def redact(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages and logs): the one in
    ``user:password@`` (a ``?`` in it included: libpq reads ``u:p?w@db``) and a ``password=``
    parameter (libpq reads both)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority = rest.split("/", 1)[0]
    at = authority.rfind("@")
    prefix, tail = f"{scheme}://", rest
    if at >= 0:
        userinfo, tail = rest[:at], rest[at + 1 :]
        prefix += f"{userinfo.split(':', 1)[0]}:***@" if ":" in userinfo else f"{userinfo}@"
    base, qmark, query = tail.partition("?")
    if qmark:
        query = "&".join("password=***" if _key(part) == "password" else part for part in query.split("&"))
    return prefix + base + qmark + query


def _key(parameter: str) -> str:
    """A URL parameter's name as libpq reads it (percent-decoded, any case)."""
    from urllib.parse import unquote

    return unquote(parameter.partition("=")[0]).strip().lower()


def psycopg_module() -> Any:
    """psycopg, or a usage error saying which extra installs it."""
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the extra is part of the test install
        raise DocmentorError(
            "a PostgreSQL index needs psycopg", hint="pip install 'docmentor[postgres]'"
        ) from None
    return psycopg


class PgRow(tuple[Any, ...]):
    """A row as :class:`sqlite3.Row` reads: ``row[0]``, ``row["name"]``, ``row.keys()``."""

    _names: tuple[str, ...]
    _index: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: tuple[str, ...], index: dict[str, int]) -> PgRow:
        row = super().__new__(cls, values)
        row._names, row._index = names, index
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return super().__getitem__(self._index[key])
        return super().__getitem__(key)

    def keys(self) -> list[str]:
        return list(self._names)


def _row_factory(cursor: Any) -> Any:
    description = cursor.description
    if description is None:
        return tuple
    names = tuple(d.name for d in description)
    index = {name: i for i, name in enumerate(names)}

    def make(values: Sequence[Any]) -> PgRow:
        return PgRow(values, names, index)

    return make


class _Cursor:
    """What ``execute`` returns: rows, ``rowcount``; for an INSERT, ``lastrowid`` as SQLite's."""

    def __init__(self, cursor: Any, lastrowid: int | None = None) -> None:
        self._cursor = cursor
        self.lastrowid = lastrowid

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    def fetchone(self) -> Any:
        return self._cursor.fetchone() if self._cursor.description is not None else None

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall()) if self._cursor.description is not None else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """A psycopg connection with the :class:`sqlite3.Connection` calls the store makes."""

    def __init__(self, raw: Any, url: str | None = None) -> None:
        self.raw = raw
        self.url = url  # to connect again when the server dropped this connection
        self._psycopg = psycopg_module()
        self.extra_schema: str | None = None  # a schema added to the search path (pgvector's)

    @property
    def in_transaction(self) -> bool:
        status = self.raw.info.transaction_status
        return bool(status != self._psycopg.pq.TransactionStatus.IDLE)

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> _Cursor:
        params = list(parameters)
        statement = to_postgres(sql, params=bool(params))
        idle = not self.in_transaction
        try:
            try:
                cursor = self.raw.execute(statement, params if params else None)
            except self._psycopg.OperationalError as exc:
                if not self.raw.closed:
                    raise
                if not idle or self.url is None:  # the transaction it was in is gone
                    raise self._lost(exc, committing=statement.strip().upper() == "COMMIT") from None
                # the server restarted (or dropped idle connections) since this thread's last
                # statement: outside a transaction nothing is lost, so connect again and run
                # it once more (a tour: every replica thread's next request failed, once each)
                self._reconnect()
                try:
                    cursor = self.raw.execute(statement, params if params else None)
                except self._psycopg.OperationalError as again:
                    if not self.raw.closed:
                        raise
                    raise self._lost(again) from None
        except self._psycopg.errors.UndefinedTable as exc:
            raise MissingTable(str(exc)) from exc
        return _Cursor(cursor)

    def _lost(self, exc: Exception, *, committing: bool = False) -> IndexUnavailable:
        """The error of a statement whose connection the server closed."""
        return IndexUnavailable(
            f"the connection to the PostgreSQL index was lost: {' '.join(str(exc).split())}",
            # a COMMIT may have taken effect before the connection went: say so, not "try again"
            hint="the change may have been kept: check before trying again"
            if committing
            else "nothing of the interrupted change was kept; try again",
        )

    def _reconnect(self) -> None:
        assert self.url is not None
        log.info("the PostgreSQL connection was closed by the server; connecting again")
        fresh = connect(self.url)
        if self.extra_schema is not None:
            try:
                fresh.use_schema(self.extra_schema)
            except self._psycopg.Error as exc:
                fresh.close()
                raise self._lost(exc) from None
        self.raw = fresh.raw

    def use_schema(self, schema: str) -> None:
        """Add ``schema`` (pgvector's) to this connection's search path."""
        self.raw.execute(
            "SELECT set_config('search_path', current_setting('search_path') || ', ' || quote_ident(%s), false)",
            (schema,),
        )
        self.extra_schema = schema

    def executemany(self, sql: str, parameters: Any, /) -> _Cursor:
        rows = [list(p) for p in parameters]
        cursor = self.raw.cursor()
        if rows:
            try:
                cursor.executemany(to_postgres(sql), rows)
            except self._psycopg.OperationalError as exc:
                if not self.raw.closed:
                    raise
                raise self._lost(exc) from None
        return _Cursor(cursor)

    def copy_rows(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Bulk rows into ``table`` with COPY (several times executemany's speed); ``table``
        and ``columns`` are the store's own names, never input."""
        try:
            with (
                self.raw.cursor() as cursor,
                cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
            ):
                for row in rows:
                    copy.write_row(row)
        except self._psycopg.OperationalError as exc:
            if not self.raw.closed:
                raise
            raise self._lost(exc) from None

    def close(self) -> None:
        self.raw.close()


def connect(url: str) -> PgConnection:
    """A new autocommit connection to ``url``; IndexUnavailable when it cannot be made."""
    psycopg = psycopg_module()
    try:
        raw = psycopg.connect(url, autocommit=True, row_factory=_row_factory, connect_timeout=10)
    except psycopg.Error as exc:
        raise IndexUnavailable(
            f"cannot connect to the PostgreSQL index {redact(url)}: {' '.join(str(exc).split())}",
            hint="check the URL, that the server runs and that the user may connect",
        ) from None
    return PgConnection(raw, url)


def lock_key(name: str) -> int:
    """A 64-bit advisory lock key for ``name`` (stable across processes and machines)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


class AdvisoryLock:
    """A session-level PostgreSQL advisory lock on a connection of its own."""

    def __init__(self, url: str, name: str) -> None:
        self.url = url
        self.key = lock_key(name)
        self._guard = threading.Lock()  # threads of one process take turns, as with flock

    @contextlib.contextmanager
    def held(self, timeout: float, busy: str) -> Iterator[None]:
        with self._guard:
            conn = connect(self.url)
            try:
                deadline = time.monotonic() + timeout
                while not conn.execute("SELECT pg_try_advisory_lock(?)", (self.key,)).fetchone()[0]:
                    if time.monotonic() > deadline:
                        raise StoreError(busy)
                    time.sleep(0.05)
                yield
            finally:
                conn.close()  # ends the session: the lock goes with it

    @contextlib.contextmanager
    def try_held(self) -> Iterator[bool]:
        if not self._guard.acquire(blocking=False):
            yield False
            return
        try:
            conn = connect(self.url)
            try:
                yield bool(conn.execute("SELECT pg_try_advisory_lock(?)", (self.key,)).fetchone()[0])
            finally:
                conn.close()
        finally:
            self._guard.release()
