"""Shared fixtures. Every test gets its own DOCMENTOR_HOME so nothing touches ~."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docmentor.store.db import Store
from docmentor.store.pg_store import PgStore

# The fixtures hold vendored documentation slices whose include targets are upstream test files
# (tests/fixtures/lancedb/python/python/tests/docs/test_*.py): documents, not tests of ours.
collect_ignore = ["fixtures"]

# Search by words unless a test turns embeddings on (tests/test_hybrid.py): set for the whole
# run, so module-scoped fixtures (made before the autouse one below) rank the same way.
os.environ["DOCMENTOR_EMBEDDINGS"] = "0"


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the run: derived files (token vocabularies) are built once,
    not per test. Tests of the cache itself use their own."""
    return tmp_path_factory.mktemp("docmentor-cache")


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, shared_cache: Path
) -> Path:
    home = tmp_path_factory.mktemp("docmentor-home")
    monkeypatch.setenv("DOCMENTOR_HOME", str(home))
    monkeypatch.setenv("DOCMENTOR_CACHE", str(shared_cache))
    monkeypatch.delenv("DOCMENTOR_DB", raising=False)
    monkeypatch.delenv("DOCMENTOR_SOURCES", raising=False)
    # Search by words in every test unless it turns embeddings on (tests/test_hybrid.py and
    # the few that check the default): each test then stays fast and its rankings exact.
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "0")
    return home


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A real PostgreSQL 16 with pgvector (the pgserver wheel, a test dependency), started
    once for the run, offline; its URL. A missing or broken server fails the tests that
    need it: never a skip. Its data folder is outside pytest's temporary folders (another
    pytest run may prune those) and readable by the user pgserver runs the server as when
    the tests run as root."""
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver

    data = Path(tempfile.mkdtemp(prefix="docmentor-pg-"))
    data.chmod(0o755)
    server = pgserver.get_server(data, cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(data, ignore_errors=True)


@contextlib.contextmanager
def _schema(server: str) -> Iterator[str]:
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in server else "?"
    yield f"{server}{sep}options=-csearch_path%3D{schema}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """The URL of an empty schema of its own in the tests' PostgreSQL (dropped afterwards)."""
    with _schema(postgres_server) as url:
        yield url


@pytest.fixture(scope="module")
def module_postgres_url(postgres_server: str) -> Iterator[str]:
    """As ``postgres_url``, shared by one test module's tests (for a module-scoped index)."""
    with _schema(postgres_server) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def backend_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A new, empty store on each backend: the embedded index's SQLite file, and a schema
    of its own in the tests' PostgreSQL."""
    if request.param == "postgres":
        pg = PgStore(request.getfixturevalue("postgres_url"))
        yield pg
        pg.close_all()
        return
    lite = Store(tmp_path / "db" / "index.sqlite3")
    yield lite
    lite.close()


@pytest.fixture(params=["sqlite", "postgres"])
def index_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's index lives, on each backend: a folder, or a PostgreSQL schema's URL."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return str(tmp_path / "db")


@pytest.fixture(scope="module")
def module_postgres_schemas(postgres_server: str) -> Iterator[Callable[[], str]]:
    """Makes as many ``module_postgres_url``s as a module needs (one per index it builds):
    each call the URL of a new empty schema; all dropped after the module's tests."""
    with contextlib.ExitStack() as stack:
        yield lambda: stack.enter_context(_schema(postgres_server))
