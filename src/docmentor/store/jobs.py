"""The job table: work queued once and done once, by whichever worker takes it first.

A job is a kind (``refresh``, ``readme-llm``, …), JSON arguments and a state: ``queued`` →
``running`` (claimed by one worker, which beats a heartbeat) → ``done`` or ``failed``. On
PostgreSQL a claim locks the oldest queued row with ``FOR UPDATE SKIP LOCKED``, so any number
of workers on any number of machines take different jobs without waiting for each other; on
SQLite the claim runs inside the one-writer transaction, which gives the same guarantee.

A job may carry a ``dedupe`` key: while a job with that key is queued or running, queueing
another returns it instead, and ``min_interval`` also returns the last one finished that
recently — so N replicas that each schedule "refresh every hour" queue one refresh an hour.
A running job whose heartbeat is older than ``stale_after`` seconds (its worker died) is
queued again, at most ``max_attempts`` times in all, then failed with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from docmentor.store.db import Store
    from docmentor.store.dbapi import Connection, Row

__all__ = [
    "JOB_STATES",
    "JobRow",
    "claim_job",
    "enqueue_job",
    "finish_job",
    "get_job",
    "heartbeat",
    "list_jobs",
]

JOB_STATES = ("queued", "running", "done", "failed")
_COLUMNS = (
    "id, kind, args, status, dedupe, created_at, started_at, finished_at, heartbeat_at, worker, attempts, "
    "result, error"
)


@dataclass(frozen=True, slots=True)
class JobRow:
    id: int
    kind: str
    args: dict[str, Any]
    status: str
    dedupe: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    heartbeat_at: str | None
    worker: str | None
    attempts: int
    result: Any  # the job's JSON result (None until done)
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "args": self.args,
            "status": self.status,
            "dedupe": self.dedupe,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "heartbeat_at": self.heartbeat_at,
            "worker": self.worker,
            "attempts": self.attempts,
            "result": self.result,
            "error": self.error,
        }


def _row(r: Row) -> JobRow:
    return JobRow(
        id=int(r["id"]),
        kind=str(r["kind"]),
        args=json.loads(r["args"]),
        status=str(r["status"]),
        dedupe=r["dedupe"],
        created_at=str(r["created_at"]),
        started_at=r["started_at"],
        finished_at=r["finished_at"],
        heartbeat_at=r["heartbeat_at"],
        worker=r["worker"],
        attempts=int(r["attempts"]),
        result=None if r["result"] is None else json.loads(r["result"]),
        error=r["error"],
    )


def _stamp(at: datetime) -> str:
    """UTC with milliseconds, one width for every stamp of the table (they compare as text)."""
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _now() -> str:
    return _stamp(datetime.now(UTC))


def _ago(seconds: float) -> str:
    return _stamp(datetime.now(UTC) - timedelta(seconds=seconds))


def enqueue_job(
    store: Store,
    kind: str,
    args: dict[str, Any] | None = None,
    *,
    dedupe: str | None = None,
    min_interval: float = 0.0,
) -> tuple[JobRow, bool]:
    """Queue a job; (the job, True), or (the job already queued, running, or finished within
    ``min_interval`` seconds under the same ``dedupe`` key, False)."""
    if not kind.strip():
        raise UsageError("a job needs a kind")
    try:
        data = json.dumps(args or {}, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"job arguments must be JSON: {exc}") from None
    with store.transaction() as db:
        if dedupe is not None:
            # min_interval 0: a finished job never counts (its time is never after "now")
            since = _ago(min_interval) if min_interval > 0 else "9999"
            row = db.execute(
                f"""SELECT {_COLUMNS} FROM jobs WHERE dedupe = ?
                    AND (status IN ('queued', 'running') OR (status = 'done' AND finished_at >= ?))
                    ORDER BY id DESC LIMIT 1""",
                (dedupe, since),
            ).fetchone()
            if row is not None:
                return _row(row), False
        row = db.execute(
            f"""INSERT INTO jobs (kind, args, status, dedupe, created_at, attempts)
                VALUES (?, ?, 'queued', ?, ?, 0) RETURNING {_COLUMNS}""",
            (kind, data, dedupe, _now()),
        ).fetchone()
    return _row(row), True


def _requeue_stale(db: Connection, stale_after: float, max_attempts: int) -> None:
    cutoff = _ago(stale_after)
    db.execute(
        """UPDATE jobs SET status = 'failed', finished_at = ?,
               error = 'its worker stopped answering ' || CAST(attempts AS TEXT) || ' times'
           WHERE status = 'running' AND heartbeat_at < ? AND attempts >= ?""",
        (_now(), cutoff, max_attempts),
    )
    db.execute(
        "UPDATE jobs SET status = 'queued', worker = NULL WHERE status = 'running' AND heartbeat_at < ?",
        (cutoff,),
    )


def claim_job(
    store: Store,
    worker: str,
    *,
    kinds: tuple[str, ...] = (),
    stale_after: float = 120.0,
    max_attempts: int = 3,
) -> JobRow | None:
    """Take the oldest queued job (of ``kinds``, or any) for ``worker``; None when none waits."""
    where = "status = 'queued'"
    params: list[Any] = []
    if kinds:
        where += f" AND kind IN ({','.join('?' * len(kinds))})"
        params.extend(kinds)
    lock = " FOR UPDATE SKIP LOCKED" if store.dialect == "postgresql" else ""
    stamp = _now()
    with store.row_transaction() as db:
        _requeue_stale(db, stale_after, max_attempts)
        row = db.execute(
            f"""UPDATE jobs SET status = 'running', worker = ?, started_at = ?, heartbeat_at = ?,
                       attempts = attempts + 1
                WHERE id = (SELECT id FROM jobs WHERE {where} ORDER BY id LIMIT 1{lock})
                RETURNING {_COLUMNS}""",
            (worker, stamp, stamp, *params),
        ).fetchone()
    return None if row is None else _row(row)


def heartbeat(store: Store, job_id: int, worker: str) -> bool:
    """Say the job still runs; False when it is no longer this worker's (requeued, finished)."""
    with store.transaction() as db:
        cur = db.execute(
            "UPDATE jobs SET heartbeat_at = ? WHERE id = ? AND worker = ? AND status = 'running'",
            (_now(), job_id, worker),
        )
        return cur.rowcount == 1


def finish_job(
    store: Store, job_id: int, worker: str, *, result: Any = None, error: str | None = None
) -> bool:
    """Record the outcome (``error``: failed); False when the job was no longer this worker's."""
    status = "failed" if error is not None else "done"
    with store.transaction() as db:
        cur = db.execute(
            """UPDATE jobs SET status = ?, finished_at = ?, result = ?, error = ?
               WHERE id = ? AND worker = ? AND status = 'running'""",
            (
                status,
                _now(),
                None if result is None else json.dumps(result, default=str),
                error,
                job_id,
                worker,
            ),
        )
        return cur.rowcount == 1


def get_job(store: Store, job_id: int) -> JobRow:
    row = store.conn().execute(f"SELECT {_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no job {job_id}", hint="list the jobs to see their ids")
    return _row(row)


def list_jobs(store: Store, *, status: str | None = None, limit: int = 50) -> list[JobRow]:
    """The newest jobs first (of one ``status``, or all)."""
    if status is not None and status not in JOB_STATES:
        raise UsageError(f"unknown job status {status!r}", hint=f"one of: {', '.join(JOB_STATES)}")
    sql = f"SELECT {_COLUMNS} FROM jobs"
    params: list[Any] = []
    if status is not None:
        sql += " WHERE status = ?"
        params.append(status)
    sql += " ORDER BY id DESC LIMIT ?"
    params.append(int(limit))
    return [_row(r) for r in store.conn().execute(sql, params)]
