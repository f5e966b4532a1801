"""A PostgreSQL restart under a running replica or worker (a team tour: every replica thread's
next request failed once with AdminShutdown, a bare HTTP 500; a request while the database was
down got a 500 with a traceback, or a 401 asking for a token nobody had; an idle worker
exited). The server going down and coming back is a TCP relay to the tests' real PostgreSQL
(``tcp_relay.Relay``) that is stopped and started again; a dropped connection is the server's
own ``pg_terminate_backend``."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from docmentor import (
    Authenticator,
    Docmentor,
    IndexUnavailable,
    JobRow,
    create_token,
    queue_job,
    run_worker,
)
from docmentor.auth.principal import TokenRejected
from docmentor.store.pg_store import PgStore
from tcp_relay import Relay, relayed_url, socket_path


@pytest.fixture
def relay(postgres_server: str) -> Iterator[Relay]:
    relay = Relay(socket_path(postgres_server)).start()
    yield relay
    relay.stop()


def _indexed(url: str, tmp_path: Path, text: str = "Text.") -> Docmentor:
    """An engine on ``url`` with one source ``d`` of one page."""
    engine = Docmentor(url, embeddings=False)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(f"# A\n\n{text}\n", encoding="utf-8")
    engine.add(str(docs), name="d")
    return engine


def _terminate(server: str, pid: int) -> None:
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


def test_a_connection_the_server_dropped_is_opened_again_outside_a_transaction(
    postgres_server: str, postgres_url: str
) -> None:
    store = PgStore(postgres_url)
    try:
        db = store.conn()
        first = db.execute("SELECT pg_backend_pid()").fetchone()[0]
        _terminate(postgres_server, first)
        # the next statement finds the connection closed, connects again and runs
        assert db.execute("SELECT 41 + 1").fetchone()[0] == 42
        assert store.conn().execute("SELECT pg_backend_pid()").fetchone()[0] != first
        # inside a transaction the statement is not run again: its transaction is gone
        db = store.conn()
        db.execute("BEGIN")
        _terminate(postgres_server, db.execute("SELECT pg_backend_pid()").fetchone()[0])
        with pytest.raises(IndexUnavailable, match="connection to the PostgreSQL index was lost"):
            db.execute("SELECT 1")
        assert store.conn().execute("SELECT 1").fetchone()[0] == 1  # the next use connects again
    finally:
        store.close_all()


def test_tokens_while_the_database_is_down_are_unavailable_not_refused(
    relay: Relay, postgres_url: str, tmp_path: Path
) -> None:
    url = relayed_url(postgres_url, relay)
    engine = _indexed(url, tmp_path)
    no_tokens = Authenticator(engine)
    assert no_tokens.requirement() is False
    relay.stop()
    try:
        # nothing says whether tokens are needed: neither open nor "needs a token"
        assert no_tokens.requirement() is None and no_tokens.required()
    finally:
        relay.start()
    token = create_token(engine, scope="read", name="t").token
    auth = Authenticator(engine)
    assert auth.verify(token).name == "t"
    relay.stop()
    try:
        with pytest.raises(TokenRejected) as refused:
            auth.verify(token)
        assert refused.value.reason == "unavailable"
        assert auth.requirement() is True  # latched: a token was needed before
    finally:
        relay.start()
    assert auth.verify(token).name == "t"  # back: the same token works, no error in between
    auth.close()
    no_tokens.close()
    engine.close()


def test_a_worker_waits_for_a_database_that_went_away(
    relay: Relay, postgres_url: str, tmp_path: Path
) -> None:
    url = relayed_url(postgres_url, relay)
    engine = _indexed(url, tmp_path)
    stop = threading.Event()
    done: list[JobRow] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            run_worker(engine, "w", poll=0.05, stop=stop, on_job=done.append)
        except BaseException as exc:
            failed.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    try:
        time.sleep(0.3)  # polling an empty queue
        relay.stop()
        time.sleep(0.5)  # it finds the database gone, and waits
        assert worker.is_alive() and not failed
        relay.start()
        queued, _ = queue_job(engine, "refresh", {"source": "d"})
        deadline = time.monotonic() + 30
        while not done and time.monotonic() < deadline and not failed:
            time.sleep(0.05)
        assert not failed, failed
        assert [job.id for job in done] == [queued.id] and done[0].status == "done"
    finally:
        stop.set()
        worker.join(30)
        engine.close()


def test_a_worker_that_never_reached_the_database_says_so(relay: Relay, postgres_url: str) -> None:
    url = relayed_url(postgres_url, relay)
    engine = Docmentor(url, embeddings=False)
    relay.stop()
    try:
        with pytest.raises(IndexUnavailable, match="cannot connect"):
            run_worker(engine, "w", poll=0.05, once=True)
    finally:
        relay.start()
        engine.close()


def test_a_replica_answers_503_while_the_database_is_down_and_serves_again_after(
    relay: Relay, postgres_url: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    import httpx

    from test_auth_http import LIST, Served, _env, _free_port

    url = relayed_url(postgres_url, relay)
    engine = _indexed(url, tmp_path, "The frobnicator frobs.")
    port, log = _free_port(), tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "docmentor", "--db", url, "--no-embeddings", "serve",
             "--transport", "http", "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT, env=_env(tmp_path), cwd=tmp_path,
        )  # fmt: skip
    try:
        served = Served(proc, port, log).wait_ready()
        search = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "search_docs", "arguments": {"query": "frobnicator"}}}  # fmt: skip
        assert served.post(LIST).status_code == 200  # loopback, no token stored: open
        relay.stop()
        try:
            down = served.post(LIST)
            # not 401 "needs a Bearer token": nobody has one; not a bare 500
            assert down.status_code == 503, down.text
            assert down.headers["retry-after"] == "30" and down.json()["error"] == "temporarily_unavailable"
            assert httpx.get(served.url + "/readyz", timeout=10).status_code == 503
        finally:
            relay.start()
        # every request after the restart answers: the threads' dropped connections reopen
        for _ in range(8):
            answer = served.post(search)
            assert answer.status_code == 200 and "frobnicator" in answer.text, answer.text
        token = create_token(engine, scope="read", name="t").token
        assert served.post(LIST, token).status_code == 200
        relay.stop()
        try:
            down = served.post(LIST, token)
            assert down.status_code == 503 and down.headers["retry-after"] == "30", down.text
            assert served.post(LIST).status_code == 401  # no token at all: still refused as such
        finally:
            relay.start()
        assert served.post(LIST, token).status_code == 200
        assert "Traceback" not in log.read_text()
    finally:
        proc.terminate()
        proc.wait(30)
        engine.close()


def test_a_jobs_end_is_recorded_once_the_database_is_back(
    relay: Relay, postgres_url: str, tmp_path: Path
) -> None:
    """A review: a job that ended while the database was away lost its result (and was run
    again once stale). Its end is recorded when the database returns, within half the stale time."""
    from docmentor import get_job
    from docmentor.store import jobs as job_table
    from docmentor.worker import _finish

    url = relayed_url(postgres_url, relay)
    engine = _indexed(url, tmp_path)
    queued, _ = queue_job(engine, "refresh", {"source": "d"})
    claimed = job_table.claim_job(engine.store, "w", kinds=(), stale_after=120)
    assert claimed is not None and claimed.id == queued.id
    relay.stop()
    threading.Timer(1.5, relay.start).start()  # the database comes back while _finish waits
    try:
        _finish(engine, queued.id, "w", 120.0, result={"ok": True})
        assert get_job(engine, queued.id).status == "done"
    finally:
        time.sleep(0.1)
        engine.close()


def test_a_running_jobs_heartbeat_outlives_the_database_going_away(
    relay: Relay, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: the heartbeat thread ended at the first beat the database missed, so a job
    that outlived a restart went stale and was taken again. A refresh of an llms.txt site (a
    local server that answers slowly) runs while the database is away, then beats again."""
    import httpserver
    from docmentor.store import jobs as job_table
    from docmentor.worker import run_one_job

    beats: list[tuple[float, bool]] = []
    real = job_table.heartbeat

    def counted(*args: object, **kwargs: object) -> bool:
        try:
            done = real(*args, **kwargs)  # type: ignore[arg-type]
        except Exception:
            beats.append((time.monotonic(), False))
            raise
        beats.append((time.monotonic(), True))
        return done

    monkeypatch.setattr(job_table, "heartbeat", counted)
    with httpserver.HttpServer() as site:
        site.add("/llms.txt", "# Site\n\n## Docs\n\n- [A](a.md)\n")
        site.add("/a.md", "# A\n\nText.\n")
        engine = Docmentor(relayed_url(postgres_url, relay), embeddings=False)
        try:
            engine.add(site.url("/llms.txt"), name="site")
            site.add("/llms.txt", "# Site\n\n## Docs\n\n- [A](a.md)\n", delay=3.0)  # the refresh waits
            queue_job(engine, "refresh", {"source": "site"})
            ran: list[Any] = []
            job = threading.Thread(target=lambda: ran.append(run_one_job(engine, "w", beat_every=0.1)))
            job.start()
            time.sleep(0.5)
            relay.stop()
            time.sleep(0.8)
            back = time.monotonic()
            relay.start()
            job.join(60)
            assert ran and ran[0] is not None and ran[0].status == "done", ran
            assert any(not ok for _, ok in beats)  # beats were missed while the database was away
            assert any(ok and at > back for at, ok in beats)  # and it beat again afterwards
        finally:
            engine.close()
