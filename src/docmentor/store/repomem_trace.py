"""What a RepoMemory run did: the search cache of its READ actions (``repo_search_cache``),
the trace of every action (``repo_trace``) and the run's progress read from both and its
units. Every write is one SQLite transaction, on a running run only.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError, UsageError
from docmentor.store.repomem_rows import (
    CacheEntry,
    RunProgress,
    TraceRow,
    count,
    json_object,
    require_running,
    text,
    to_json,
    unit_status,
)
from docmentor.store.rows import now_iso

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["append_trace", "cache_get", "cache_put", "progress", "trace"]

_ACTION = re.compile(r"[A-Z][A-Z_]{0,31}")  # READ, WRITE, VERIFY, FINISH, …: checked with fullmatch


# -- the search cache -------------------------------------------------------------


def cache_get(store: Store, run_id: int, kind: str, query: str) -> CacheEntry | None:
    """The cached answer to ``query`` of ``kind``, its hit counter raised by one; None (and
    nothing counted) when it is not cached."""
    text(kind, "cache kind")
    with store.transaction() as db:
        row = db.execute(
            """UPDATE repo_search_cache SET hits = hits + 1 WHERE run_id = ? AND kind = ? AND query = ?
               RETURNING result, hits""",
            (run_id, kind, query),
        ).fetchone()
    if row is None:
        return None
    return CacheEntry(kind=kind, query=query, result=json.loads(row[0]), hits=int(row[1]))


def cache_put(store: Store, run_id: int, kind: str, query: str, result: Any) -> None:
    """Cache ``result`` (any JSON value) as the answer to ``query`` of ``kind``; a second put
    replaces the answer and keeps the hit count."""
    text(kind, "cache kind")
    if not isinstance(query, str):
        raise UsageError(f"a cache query is text, not {type(query).__name__}")
    data = to_json(result, "cache result")
    with store.transaction() as db:
        require_running(db, run_id)
        db.execute(
            """INSERT INTO repo_search_cache (run_id, kind, query, result, hits, stored_at)
               VALUES (?, ?, ?, ?, 0, ?)
               ON CONFLICT(run_id, kind, query) DO UPDATE SET result = excluded.result,
                   stored_at = excluded.stored_at""",
            (run_id, kind, query, data, now_iso()),
        )


# -- the trace ---------------------------------------------------------------------


def append_trace(
    store: Store,
    run_id: int,
    *,
    unit_id: str | None,
    action: str,
    inputs: Mapping[str, Any] | None = None,
    tokens: int = 0,
    seconds: float = 0.0,
) -> int:
    """Record one action (an upper-case name: READ, WRITE, VERIFY, FINISH, …) of the run, on
    ``unit_id`` (None: the run as a whole); its sequence number, from 1."""
    if not isinstance(action, str) or not _ACTION.fullmatch(action):
        raise UsageError(
            f"an action is an upper-case name of at most 32 letters (READ, WRITE…), not {action!r}"
        )
    if unit_id is not None:
        text(unit_id, "unit id")
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or seconds < 0
    ):
        raise UsageError(f"seconds must be a finite number ≥ 0, not {seconds!r}")
    values = (unit_id, action, json_object(inputs or {}, "inputs"), count(tokens, "tokens"), float(seconds))
    with store.transaction() as db:
        require_running(db, run_id)
        seq = int(
            db.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM repo_trace WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
        )
        db.execute(
            """INSERT INTO repo_trace (run_id, seq, unit_id, action, inputs, tokens, seconds, at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
            (run_id, seq, *values, now_iso()),
        )
    return seq


def trace(store: Store, run_id: int, *, unit_id: str | None = None) -> list[TraceRow]:
    """The run's actions (on ``unit_id`` only, when given) in the order they were taken."""
    if unit_id is None:
        rows = store.conn().execute("SELECT * FROM repo_trace WHERE run_id = ? ORDER BY seq", (run_id,))
    else:
        rows = store.conn().execute(
            "SELECT * FROM repo_trace WHERE run_id = ? AND unit_id = ? ORDER BY seq", (run_id, unit_id)
        )
    return [
        TraceRow(
            run_id=int(r["run_id"]),
            seq=int(r["seq"]),
            unit_id=r["unit_id"],
            action=str(r["action"]),
            inputs=json.loads(r["inputs"]),
            tokens=int(r["tokens"]),
            seconds=float(r["seconds"]),
            at=str(r["at"]),
        )
        for r in rows
    ]


def progress(store: Store, run_id: int) -> RunProgress:
    """How far the run is, read from one committed state."""
    with store.snapshot():
        db = store.conn()
        if db.execute("SELECT 1 FROM repo_runs WHERE id = ?", (run_id,)).fetchone() is None:
            raise NotFoundError(f"no repository-documentation run {run_id}")
        counts = {
            str(r[0]): (int(r[1]), int(r[2]), int(r[3]))
            for r in db.execute(
                """SELECT status, count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0)
                   FROM repo_units WHERE run_id = ? GROUP BY status""",
                (run_id,),
            )
        }
        actions, trace_tokens = db.execute(
            "SELECT count(*), coalesce(sum(tokens), 0) FROM repo_trace WHERE run_id = ?", (run_id,)
        ).fetchone()
        hits = db.execute(
            "SELECT coalesce(sum(hits), 0) FROM repo_search_cache WHERE run_id = ?", (run_id,)
        ).fetchone()[0]
        current = db.execute(
            """SELECT t.unit_id FROM repo_trace t JOIN repo_units u ON u.run_id = t.run_id AND u.unit_id = t.unit_id
               WHERE t.run_id = ? ORDER BY t.seq DESC LIMIT 1""",
            (run_id,),
        ).fetchone()
        current_status = None if current is None else unit_status(db, run_id, str(current[0]))
    none = (0, 0, 0)
    return RunProgress(
        total=sum(c[0] for c in counts.values()),
        committed=counts.get("committed", none)[0],
        pending=counts.get("pending", none)[0],
        failed=counts.get("failed", none)[0],
        prompt_tokens=sum(c[1] for c in counts.values()),
        completion_tokens=sum(c[2] for c in counts.values()),
        trace_tokens=int(trace_tokens),
        actions=int(actions),
        cache_hits=int(hits),
        current_unit=str(current[0]) if current is not None and current_status == "pending" else None,
    )
