"""What the team benchmarks start: a PostgreSQL 16 + pgvector server (the pgserver wheel,
the test extra) in a temporary folder, offline, and ``docmentor serve --transport http``
replicas on 127.0.0.1, ready when their ``/readyz`` says so."""

from __future__ import annotations

import socket
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import httpx


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


def serve_replica(
    bin_: Path, db: str, env: dict[str, str], log: Path, *, timeout: float = 60
) -> tuple[subprocess.Popen[bytes], str]:
    """(the process, its URL): ``docmentor --db DB serve --transport http`` on a free
    loopback port, its output in ``log``, once its ``/readyz`` answers 200."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(bin_), "--db", db, "serve", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"a replica exited ({proc.returncode}): see {log}")
        try:
            if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.terminate()
    raise SystemExit(f"{url} did not become ready within {timeout:g} s: see {log}")
