"""A PostgreSQL 16 + pgvector server for the benchmarks: the pgserver wheel (the test extra),
started in a temporary folder, offline."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any


def start_postgres(tmp: Path) -> tuple[Any, str]:
    """(the server, its URL), data in ``tmp/pg``; ``server.cleanup()`` stops it."""
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver

    data = tmp / "pg"
    data.mkdir()
    tmp.chmod(0o755)  # run as root, pgserver runs the server as its own user
    data.chmod(0o755)
    server = pgserver.get_server(data, cleanup_mode="stop")
    return server, str(server.get_uri())


def schema_url(base: str, name: str) -> str:
    """A new schema ``name`` in the server of ``base``, and the URL that keeps an index in it."""
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{name}"
