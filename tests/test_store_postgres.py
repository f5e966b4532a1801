"""The store of record on PostgreSQL (a real server: the pgserver wheel, see conftest.py).

The same writes on the embedded store and on PostgreSQL must read back the same; what only
PostgreSQL has (a URL, advisory locks, other replicas' connections) is tested here too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import astuple
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docmentor.embeddings import LibraryVectors
from docmentor.errors import NotFoundError, StoreError
from docmentor.models import RawDocument, SourceOptions, SourceSpec
from docmentor.parse import parse_document
from docmentor.store import docs, feedback, kb, vectors
from docmentor.store.db import Store
from docmentor.store.dbapi import to_postgres
from docmentor.store.migrations import MIGRATIONS
from docmentor.store.pg import redact
from docmentor.store.pg_store import PgStore
from docmentor.store.rows import DocChange

PAGE = """# Clients

Use a client.

## Timeouts

Set `timeout=5`:

```python
client = Client(timeout=5)
```

See [proxies](proxies.md#setup).
"""


def _change(path: str, text: str) -> DocChange:
    raw = RawDocument(path=path, url=f"file:///docs/{path}", content=text, line_map=[1, 2, 3])
    return DocChange(raw=raw, parsed=parse_document(raw), content_hash=f"h-{len(text)}-{path}")


def _spec(name: str = "docs") -> SourceSpec:
    return SourceSpec(name=name, kind="folder", target="/docs", options=SourceOptions())


def _kb(library: str, n: int) -> kb.KbRecords:
    matrix = np.arange(n * 4, dtype="<f4").reshape(n, 4)
    return kb.KbRecords(
        library=library,
        version="1.0",
        path=f"/kb/{library}",
        generated_at="2026-11-28T00:00:00Z",
        entries=[(f"{library}.f{i}", json.dumps({"i": i})) for i in range(n)],
        examples=[(f"ex{i}", json.dumps({"code": f"f{i}()"})) for i in range(n)],
        overview='{"summary": "s"}',
        metadata='{"m": 1}',
        vectors=LibraryVectors(
            model="m", api_ids=[f"{library}.f{i}" for i in range(n)], matrix=matrix, primary=n
        ),
    )


def _exercise(store: Store) -> dict[str, Any]:
    """Every kind of write the store makes, then everything it reads back (ids left out)."""
    gen, written, dropped = store.apply(
        _spec(), changes=[_change("a.md", PAGE), _change("b.md", "# B\n\ntext b\n")], delete_paths=[],
        stale={}, fresh_paths=[], version="1.2", title="Docs", served={"a.md": "text"},
    )  # fmt: skip
    gen2, written2, dropped2 = store.apply(
        _spec(), changes=[_change("a.md", PAGE + "\nmore\n")], delete_paths=["b.md"],
        stale={}, fresh_paths=[], served={"a.md": "text"},
    )  # fmt: skip
    store.set_setting("k", "v1")
    store.set_setting("k", "v2")
    doc = store.find_document(source="docs", path="a.md")
    assert doc is not None
    sections = store.sections_of(doc.id)
    units = [vectors.UnitRow(int(s["id"]), doc.id, "docs", f"u{s['ord']}") for s in sections]
    vectors.write_unit_rows(store, units)
    vectors.write_vectors(store, "m", [("u0", b"\x01\x02"), ("u1", b"\x03\x04")])
    vectors.write_vectors(store, "m", [("u0", b"\x09\x09")])  # a hash's vector is kept
    view = vectors.vectors_view(store, "m")
    after = vectors.vectors_after(store, "m", 0, view.last_rowid)
    n_kb = kb.register_records(store, _kb("lib", 3))
    n_kb2 = kb.register_records(store, _kb("lib", 2))
    loaded = kb.load_vectors(store, "lib")
    for _ in range(2):
        feedback.record_feedback(
            store, key="k1", library="lib", query="q", issue_type="wrong", apis_tried=["lib.f0"],
            error_message=None, code_attempted=None, session_context=[{"a": "b"}], at="2026-11-28T00:00:00Z",
        )  # fmt: skip
    return {
        "generations": (gen, gen2, len(written), len(dropped), len(written2), len(dropped2)),
        "sources": [(r.name, r.version, r.title, r.documents, r.sections, r.stale) for r in store.sources()],
        "versions": store.source_versions(),
        "setting": store.get_setting("k"),
        "doc": (doc.path, doc.title, doc.stale, doc.served),
        "content": store.content(doc.id),
        "line_map": store.line_map(doc.id),
        "sections": [(s["heading"], s["level"], s["line_start"], s["line_end"]) for s in sections],
        "source_sections": [(r.heading, r.path) for r in docs.sections_of_source(store, "docs")],
        "code": [(c.language, c.code) for c in docs.code_blocks(store, doc.id)],
        "links": [(r["target"], r["anchor"]) for r in store.links(["docs"])],
        "facts": [(r["path"], r["title"]) for r in store.document_facts(["docs"])],
        "lexical": [(r["heading"], r["path"]) for r in store.lexical_rows([doc.id])],
        "live": len(store.live_sections([int(s["id"]) for s in sections])),
        "paths": store.sources_with_path("a.md"),
        "vectors": (sorted(view.vectors.items()), sorted(after), view.last_rowid > 0),
        "pending": vectors.pending_units(store, "m") == {f"u{i}": doc.id for i in range(2, len(sections))},
        "counts": vectors.unit_counts(store, "m"),
        "kb": (
            n_kb,
            n_kb2,
            [astuple(r)[:6] for r in kb.list_kbs(store)],
            kb.load_entry_records(store, "lib"),
        ),
        "kb_vectors": None if loaded is None else (loaded.api_ids, loaded.matrix.tolist()),
        "feedback": [(r.key, r.count, r.library) for r in feedback.feedback_rows(store, "lib")],
    }


def test_the_same_writes_read_back_the_same_on_both_backends(tmp_path: Path, postgres_url: str) -> None:
    sqlite_store = Store(tmp_path / "index.sqlite3")
    pg_store = PgStore(postgres_url)
    try:
        embedded, postgres = _exercise(sqlite_store), _exercise(pg_store)
        assert postgres == embedded
        assert embedded["sources"] == [("docs", "1.2", "Docs", 1, len(embedded["sections"]), 0)]
        assert embedded["code"] == [("python", "client = Client(timeout=5)\n")]
        pg_store.delete_source("docs")  # cascades to documents, sections, code blocks and links
        assert pg_store.sources() == [] and docs.sections_of_source(pg_store, "docs") == []
    finally:
        pg_store.close_all()


def test_migrations_are_recorded_once_and_in_order(postgres_url: str) -> None:
    PgStore(postgres_url).close_all()
    store = PgStore(postgres_url)  # opening again applies nothing
    rows = store.conn().execute("SELECT name FROM _migrations ORDER BY name").fetchall()
    assert [r[0] for r in rows] == sorted(name for name, _ in MIGRATIONS)
    store.conn().execute("INSERT INTO _migrations VALUES (?, ?)", ("m999_from_the_future", "now"))
    store.close_all()
    with pytest.raises(StoreError, match="newer docmentor"):
        PgStore(postgres_url)


def test_a_reader_never_creates_an_index(postgres_url: str) -> None:
    with pytest.raises(NotFoundError, match="no index in the database"):
        PgStore(postgres_url, readonly=True)
    writer = PgStore(postgres_url)
    reader = PgStore(postgres_url, readonly=True)
    assert reader.sources() == []
    writer.close_all()
    reader.close_all()


def test_an_unreachable_server_is_a_clear_error_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://docs:s3cret@/docs?host={tmp_path}&port=1"
    with pytest.raises(StoreError) as caught:
        PgStore(url)
    assert "s3cret" not in str(caught.value) and "docs:***@" in str(caught.value)
    assert "\n" not in str(caught.value)  # one line, whatever the driver's message
    assert caught.value.hint


def test_writers_in_other_processes_wait_for_the_write_lock(postgres_url: str) -> None:
    store = PgStore(postgres_url)
    child = (
        "import sys, time\nfrom docmentor.store.pg_store import PgStore\n"
        "s = PgStore(sys.argv[1])\nt = time.monotonic()\n"
        "with s.write_lock(timeout=0.3):\n    pass\n"
    )
    try:
        with store.write_lock():
            with store.try_write_lock() as other_thread_in_the_lock:
                assert other_thread_in_the_lock is False
            done = subprocess.run([sys.executable, "-c", child, postgres_url], capture_output=True, text=True)
            assert done.returncode != 0 and "another docmentor process is writing" in done.stderr
        done = subprocess.run([sys.executable, "-c", child, postgres_url], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        with store.try_write_lock() as free:
            assert free is True
    finally:
        store.close_all()


def test_counters_written_from_many_threads_lose_no_count(postgres_url: str) -> None:
    store = PgStore(postgres_url)

    def report() -> None:
        for _ in range(10):
            feedback.record_feedback(
                store, key="same", library="lib", query="q", issue_type="wrong", apis_tried=[],
                error_message=None, code_attempted=None, session_context=[], at="2026-11-28T00:00:00Z",
            )  # fmt: skip
        store.close()

    threads = [threading.Thread(target=report) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.count for r in feedback.feedback_rows(store, "lib")] == [40]
    store.close_all()


def test_sqlite_statements_are_rewritten_for_postgresql() -> None:
    ddl = to_postgres("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, x REAL, b BLOB)")
    assert "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" in ddl
    assert "n BIGINT NOT NULL" in ddl and "x DOUBLE PRECISION" in ddl and "b BYTEA" in ddl
    assert "rowid" not in ddl  # an integer key is the table's rowid
    assert (
        to_postgres("CREATE TABLE s (k TEXT PRIMARY KEY, v TEXT)")
        .rstrip()
        .endswith("rowid BIGINT GENERATED ALWAYS AS IDENTITY\n)")
    )
    assert to_postgres("SELECT '?', 'a%' FROM t WHERE a = ? AND b IS NOT ?") == (
        "SELECT '?', 'a%%' FROM t WHERE a = %s AND b IS DISTINCT FROM %s"
    )
    assert to_postgres("SELECT 1 WHERE 'x' LIKE 'a%'", params=False) == "SELECT 1 WHERE 'x' LIKE 'a%'"
    assert to_postgres("BEGIN IMMEDIATE") == "BEGIN"


def test_a_password_is_never_shown() -> None:
    assert redact("postgresql://u:pw@db:5432/x") == "postgresql://u:***@db:5432/x"
    assert redact("postgresql://u@db/x") == "postgresql://u@db/x"
    assert redact("postgresql:///x?host=/run") == "postgresql:///x?host=/run"
    # libpq reads a password parameter too (a team tour saw it printed in clear)
    assert redact("postgresql:///x?host=/run&user=u&password=S3cret") == (
        "postgresql:///x?host=/run&user=u&password=***"
    )
    assert redact("postgresql://u:pw@db/x?Password=a&sslmode=require") == (
        "postgresql://u:***@db/x?password=***&sslmode=require"
    )
    # a `?` in the password (libpq reads `u:p?w@db`), a percent-encoded parameter name (a review)
    assert redact("postgresql://u:p?w@db/x") == "postgresql://u:***@db/x"
    assert redact("postgresql://u:p?w@db") == "postgresql://u:***@db"
    assert redact("postgresql:///x?host=/run&%70assword=S") == "postgresql:///x?host=/run&password=***"


def test_a_store_nobody_closed_closes_its_sessions_when_collected(postgres_url: str) -> None:
    """An engine dropped without ``close()`` (every thread's connection of its store) ends its
    server sessions when it is collected: no connection left open, none warned about."""
    import gc
    import warnings

    from docmentor.store.pg_store import PgStore

    def open_one(s: PgStore, into: list[Any]) -> None:
        into.append(s.conn())  # a PgConnection (``raw``: its psycopg connection)

    store = PgStore(postgres_url)
    opened: list[Any] = [store.conn()]
    worker = threading.Thread(target=open_one, args=(store, opened))
    worker.start()
    worker.join()
    assert not any(c.raw.closed for c in opened)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        del store, worker
        gc.collect()
    assert all(c.raw.closed for c in opened)


def test_a_thread_that_ended_leaves_its_connection_to_the_next_thread(postgres_url: str) -> None:
    """A server's worker threads come and go: a new thread takes the idle connection of one
    that ended instead of opening its own (a team tour: each new thread opened one, every
    ended one kept its own, and after three bursts PostgreSQL refused everyone). Threads alive
    at once each have their own; one left inside a transaction is closed, not handed on."""
    store = PgStore(postgres_url)

    def backend(out: list[int], hold: threading.Barrier | None = None) -> None:
        out.append(store.conn().raw.info.backend_pid)  # type: ignore[attr-defined]
        if hold is not None:
            hold.wait()

    def run(n: int, together: bool) -> list[int]:
        out: list[int] = []
        hold = threading.Barrier(n) if together else None
        threads = [threading.Thread(target=backend, args=(out, hold)) for _ in range(n)]
        for t in threads:
            t.start()
            if not together:
                t.join()
        for t in threads:
            t.join()
        return out

    try:
        one_by_one = run(6, together=False)
        assert len(set(one_by_one)) == 1, one_by_one  # each thread after the last: one session
        at_once = run(4, together=True)
        assert len(set(at_once)) == 4 and one_by_one[0] in at_once
        assert set(run(4, together=True)) == set(at_once)  # the same four again, none new

        def left_in_a_transaction(out: list[int]) -> None:
            db = store.conn()
            db.execute("BEGIN")
            out.append(db.raw.info.backend_pid)  # type: ignore[attr-defined]

        left: list[int] = []
        t = threading.Thread(target=left_in_a_transaction, args=(left,))
        t.start()
        t.join()
        later = run(5, together=True)
        assert left[0] not in later and len(set(later)) == 5
        # what the store keeps open: those five and the main thread's (it opened the index)
        assert len(store._all) == 6
    finally:
        store.close_all()


def test_a_connection_closed_with_its_store_is_not_connected_again(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread still at work when the store closes (a server's background load) gets an
    error on its next statement, not a new session nobody would close (the suite saw one
    garbage-collected open: a ResourceWarning in whichever test ran then). The race is made
    certain: the statement found its connection idle, then the store closed it."""
    from docmentor.errors import IndexUnavailable
    from docmentor.store.pg import PgConnection

    store = PgStore(postgres_url)
    db: Any = store.conn()
    store.close_all()
    monkeypatch.setattr(PgConnection, "in_transaction", property(lambda _self: False))
    with pytest.raises(IndexUnavailable):
        db.execute("SELECT 1")
    assert db.raw.closed
