"""The store of record: migrations, and opening an index while another process writes."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError, StoreError
from docmentor.store.db import Store
from docmentor.store.migrations import MIGRATIONS


def test_migrations_are_recorded_in_order(tmp_path: Path) -> None:
    store = Store(tmp_path / "index.sqlite3")
    names = [r[0] for r in store.conn().execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert names == [name for name, _ in MIGRATIONS]
    assert names[0] == "m001_initial"
    mode = store.conn().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_every_cascading_reference_is_indexed(tmp_path: Path) -> None:
    """A delete that cascades through an unindexed column scans the whole child table for
    each parent row (a refresh of 1,500 changed files took 13 s instead of 3)."""
    conn = Store(tmp_path / "index.sqlite3").conn()
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        indexed = {
            tuple(col[2] for col in conn.execute(f"PRAGMA index_info('{ix[1]}')"))
            for ix in conn.execute(f"PRAGMA index_list('{table}')")
        }
        for fk in conn.execute(f"PRAGMA foreign_key_list('{table}')"):
            column = fk[3]
            assert any(cols and cols[0] == column for cols in indexed), f"{table}.{column} has no index"


def test_an_index_from_a_newer_docmentor_is_refused(tmp_path: Path) -> None:
    Store(tmp_path / "index.sqlite3").close()
    db = sqlite3.connect(tmp_path / "index.sqlite3")
    db.execute("INSERT INTO _migrations VALUES ('m999_future', 'x')")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer docmentor"):
        Store(tmp_path / "index.sqlite3")


def test_a_reader_never_creates_an_index(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no index"):
        Docmentor(tmp_path / "nothing", create=False)
    assert not (tmp_path / "nothing" / "index.sqlite3").exists()


def test_opening_an_up_to_date_index_does_not_wait_for_a_writer(tmp_path: Path) -> None:
    Docmentor(tmp_path / "db").close()
    writer = Store(tmp_path / "db" / "index.sqlite3")
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with writer.write_lock():
            holding.set()
            release.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert holding.wait(5)
        start = time.monotonic()
        Docmentor(tmp_path / "db").close()  # a new MCP server while a long refresh runs
        assert time.monotonic() - start < 5  # without the fast path it waits for the lock
    finally:
        release.set()
        thread.join()


def test_processes_opening_a_new_index_together_all_succeed(tmp_path: Path) -> None:
    """Switching a new file to WAL answers BUSY without waiting: the store must retry."""
    import subprocess
    import sys

    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from docmentor.store.db import Store\n"
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\n"
        "Store(Path(sys.argv[1])).conn().execute('SELECT 1')\n"
    )
    for round_ in range(4):
        path = tmp_path / f"r{round_}" / "index.sqlite3"
        start = time.time() + 1.0
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", script, str(path), str(start)], stderr=subprocess.PIPE, text=True
            )
            for _ in range(6)
        ]
        results = [(p.communicate(timeout=60)[1], p.returncode) for p in procs]
        errors = [err for err, code in results if code != 0]
        assert errors == [], errors[0]


def test_rows_read_when_the_store_closed_are_dropped_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C inside a write leaves the lexical rows' generator half read; the CLI then closes
    the store. Collecting the generator afterwards must not print a traceback ("Exception
    ignored in: <generator object Store.lexical_rows>"): it closed the cursor on a closed
    connection."""
    import gc
    import sys

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"p{i}.md").write_text(f"# Page {i}\n\nText {i}.\n\n## More\n\nMore {i}.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "idx")
    engine.add(docs, name="d")
    ids = [int(r["id"]) for r in engine.store.conn().execute("SELECT id FROM documents")]
    rows = engine.store.lexical_rows(ids)
    next(rows)
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    engine.close()
    del rows
    gc.collect()
    assert unraisable == []
