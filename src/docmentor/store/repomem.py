"""RepoMemory in the index: the persistent memory of a repository-documentation run.

The tables of migration ``m010_repo_memory``: a run of one repository root (``repo_runs``),
its units with their documents (``repo_units``), the search cache of its READ actions
(``repo_search_cache``) and the trace of every action (``repo_trace``). Every write is one
SQLite transaction, so a run killed at any moment loses at most the unit in progress: a
committed unit is either wholly there (document, claims, scores, tokens) or still pending,
and a resumed run (:func:`start_run` finds the latest unfinished run of the root) lists
only what is left (:func:`unit_ids` with ``status="pending"``).

The store keeps plain data: unit ids are opaque strings, JSON columns go in as Python lists
and dicts and come out as tuples and dicts in frozen rows. What a unit is, the traversal
order and the agent loop belong to the product (:mod:`docmentor.repodocs`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError, UsageError
from docmentor.store.db import now_iso

if TYPE_CHECKING:
    import sqlite3

    from docmentor.store.db import Store

__all__ = [
    "GRANULARITIES",
    "RUN_STATUSES",
    "UNIT_STATUSES",
    "CacheEntry",
    "NewUnit",
    "Registration",
    "RunProgress",
    "RunRow",
    "TraceRow",
    "UnitChanges",
    "UnitRow",
    "append_trace",
    "cache_get",
    "cache_put",
    "changed_units",
    "commit_unit",
    "committed_documents",
    "fail_unit",
    "finish_run",
    "get_run",
    "get_unit",
    "list_runs",
    "progress",
    "register_units",
    "remove_units",
    "reopen_run",
    "reset_units",
    "start_run",
    "trace",
    "unit_ids",
    "units",
]

GRANULARITIES: tuple[str, ...] = ("component", "module", "package", "repository")
UNIT_STATUSES: tuple[str, ...] = ("pending", "committed", "failed")
#: a run is ``running`` until finished; ``abandoned`` when a new run of its root was started
#: instead of resuming it
RUN_STATUSES: tuple[str, ...] = ("running", "finished", "failed", "abandoned")
_ENDED = ("finished", "failed")  # what finish_run may set

_ACTION = re.compile(r"[A-Z][A-Z_]{0,31}")  # READ, WRITE, VERIFY, FINISH, …: checked with fullmatch
_CHUNK = 500  # ids per IN (…) query


@dataclass(frozen=True, slots=True)
class RunRow:
    """One documentation run of one repository root."""

    id: int
    root: str  # the repository root, absolute
    started_at: str
    finished_at: str | None
    model: str | None  # None: a run without a model (--no-llm)
    settings: dict[str, Any]
    status: str  # one of RUN_STATUSES
    resumed: bool = False  # start_run returned a run that was already there


@dataclass(frozen=True, slots=True)
class NewUnit:
    """A unit to register: its id, granularity, parent and the hash of its code."""

    unit_id: str
    granularity: str  # one of GRANULARITIES
    content_hash: str
    parent_id: str | None = None


@dataclass(frozen=True, slots=True)
class Registration:
    """What registering units did: new units, units whose code hash changed (reset to
    pending, their document dropped) and how many were kept as they were."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    kept: int


@dataclass(frozen=True, slots=True)
class UnitRow:
    """One unit of a run as stored; ``document`` is None until it is committed."""

    run_id: int
    unit_id: str
    ord: int  # position in the registration (traversal) order
    granularity: str
    parent_id: str | None
    content_hash: str
    document: str | None
    claims: tuple[str, ...]
    depends_on: tuple[str, ...]
    children: tuple[str, ...]
    scores: dict[str, Any]
    status: str  # one of UNIT_STATUSES
    error: str | None
    model: str | None
    prompt_tokens: int
    completion_tokens: int
    committed_at: str | None


@dataclass(frozen=True, slots=True)
class UnitChanges:
    """Stored hashes against new ones: units whose hash differs, units not stored yet, and
    stored units the new hashes no longer name (each sorted)."""

    changed: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """A cached search answer and how many times it has been served (this read counted)."""

    kind: str
    query: str
    result: Any
    hits: int


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One action of a run, in the order the run took them (``seq`` from 1)."""

    run_id: int
    seq: int
    unit_id: str | None
    action: str
    inputs: dict[str, Any]
    tokens: int
    seconds: float
    at: str


@dataclass(frozen=True, slots=True)
class RunProgress:
    """How far a run is: units by status, the tokens of its units (committed and failed) and of
    its trace, the cache's hits, and the unit being worked on (the latest traced unit that is
    still pending; None when there is none)."""

    total: int
    committed: int
    pending: int
    failed: int
    prompt_tokens: int
    completion_tokens: int
    trace_tokens: int
    actions: int
    cache_hits: int
    current_unit: str | None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# -- runs --------------------------------------------------------------------------


def start_run(
    store: Store,
    root: str | Path,
    *,
    model: str | None,
    settings: Mapping[str, Any] | None = None,
    resume: bool = True,
) -> RunRow:
    """The run to work on for the repository at ``root``: with ``resume``, the latest
    unfinished run of that root as it was stored (its model and settings, ``resumed`` set);
    otherwise, or when there is none, a new run. A new run started while unfinished runs of the
    root exist marks them ``abandoned``, so only one run of a root is ever resumable."""
    key = _root(root)
    settings_json = _json_object(settings or {}, "settings")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise UsageError(f"model must be a non-empty string or None, not {model!r}")
    with store.transaction() as db:
        if resume:
            row = db.execute(
                "SELECT * FROM repo_runs WHERE root = ? AND status = 'running' ORDER BY id DESC LIMIT 1",
                (key,),
            ).fetchone()
            if row is not None:
                return _run(row, resumed=True)
        db.execute("UPDATE repo_runs SET status = 'abandoned' WHERE root = ? AND status = 'running'", (key,))
        cur = db.execute(
            "INSERT INTO repo_runs (root, started_at, model, settings, status) VALUES (?, ?, ?, ?, 'running')",
            (key, now_iso(), model, settings_json),
        )
        row = db.execute("SELECT * FROM repo_runs WHERE id = ?", (cur.lastrowid,)).fetchone()
    return _run(row)


def get_run(store: Store, run_id: int) -> RunRow:
    """The run ``run_id``; NotFoundError when there is none."""
    row = store.conn().execute("SELECT * FROM repo_runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no repository-documentation run {run_id}")
    return _run(row)


def list_runs(store: Store, root: str | Path | None = None) -> list[RunRow]:
    """The runs (of ``root``, or all), newest first."""
    if root is None:
        rows = store.conn().execute("SELECT * FROM repo_runs ORDER BY id DESC")
    else:
        rows = store.conn().execute("SELECT * FROM repo_runs WHERE root = ? ORDER BY id DESC", (_root(root),))
    return [_run(r) for r in rows]


def finish_run(store: Store, run_id: int, *, status: str = "finished") -> RunRow:
    """End a running run as ``finished`` or ``failed``, with its finishing time."""
    if status not in _ENDED:
        raise UsageError(f"a run ends as one of {', '.join(_ENDED)}, not {status!r}")
    with store.transaction() as db:
        _require_running(db, run_id)
        db.execute(
            "UPDATE repo_runs SET status = ?, finished_at = ? WHERE id = ?", (status, now_iso(), run_id)
        )
    return get_run(store, run_id)


def reopen_run(store: Store, run_id: int) -> RunRow:
    """Make an ended run of a root running again (an incremental update works on the units of
    the last run); other unfinished runs of that root are marked ``abandoned``."""
    with store.transaction() as db:
        row = db.execute("SELECT root, status FROM repo_runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no repository-documentation run {run_id}")
        if row["status"] != "running":
            db.execute(
                "UPDATE repo_runs SET status = 'abandoned' WHERE root = ? AND status = 'running'",
                (row["root"],),
            )
            db.execute("UPDATE repo_runs SET status = 'running', finished_at = NULL WHERE id = ?", (run_id,))
    return get_run(store, run_id)


# -- units -------------------------------------------------------------------------


def register_units(store: Store, run_id: int, new_units: Iterable[NewUnit]) -> Registration:
    """Register a run's units, in traversal order, in one transaction. A unit not stored yet
    is added as pending; a stored unit with the same code hash keeps its state (a resumed run
    does not redo it); a stored unit whose hash changed goes back to pending without its
    document. Units stored before and not named here are left as they are
    (:func:`remove_units` drops them)."""
    items = [_checked_unit(u) for u in new_units]
    seen: set[str] = set()
    for u in items:
        if u.unit_id in seen:
            raise UsageError(f"unit {u.unit_id!r} is registered twice")
        seen.add(u.unit_id)
    added: list[str] = []
    changed: list[str] = []
    with store.transaction() as db:
        _require_running(db, run_id)
        stored = {
            str(r[0]): str(r[1])
            for r in db.execute("SELECT unit_id, content_hash FROM repo_units WHERE run_id = ?", (run_id,))
        }
        base = int(
            db.execute(
                "SELECT coalesce(max(ord), -1) + 1 FROM repo_units WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
        )
        for i, u in enumerate(items):
            old = stored.get(u.unit_id)
            if old is None:
                added.append(u.unit_id)
            elif old != u.content_hash:
                changed.append(u.unit_id)
            db.execute(
                """INSERT INTO repo_units (run_id, unit_id, ord, granularity, parent_id, content_hash)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT(run_id, unit_id) DO UPDATE SET ord = excluded.ord,
                       granularity = excluded.granularity, parent_id = excluded.parent_id,
                       content_hash = excluded.content_hash""",
                (run_id, u.unit_id, base + i, u.granularity, u.parent_id, u.content_hash),
            )
        _clear(db, run_id, changed)
    return Registration(
        added=tuple(added), changed=tuple(changed), kept=len(items) - len(added) - len(changed)
    )


def commit_unit(
    store: Store,
    run_id: int,
    unit_id: str,
    *,
    document: str,
    claims: Sequence[str] = (),
    depends_on: Sequence[str] = (),
    children: Sequence[str] = (),
    scores: Mapping[str, Any] | None = None,
    model: str | None = None,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
) -> UnitRow:
    """Commit a unit's document with its claims, dependencies, children, verification scores,
    model and tokens, in one transaction: the unit is committed whole or stays as it was. A
    committed unit is not committed again (:func:`reset_units` first)."""
    if not isinstance(document, str):
        raise UsageError(f"a unit's document is text, not {type(document).__name__}")
    values = (
        document,
        _json_strings(claims, "claims"),
        _json_strings(depends_on, "depends_on"),
        _json_strings(children, "children"),
        _json_object(scores or {}, "scores"),
        model,
        _count(prompt_tokens, "prompt_tokens"),
        _count(completion_tokens, "completion_tokens"),
        now_iso(),
    )
    with store.transaction() as db:
        _require_running(db, run_id)
        status = _unit_status(db, run_id, unit_id)
        if status == "committed":
            raise UsageError(
                f"unit {unit_id!r} of run {run_id} is already committed", hint="reset it to pending first"
            )
        db.execute(
            """UPDATE repo_units SET document = ?, claims = ?, depends_on = ?, children = ?, scores = ?,
                   model = ?, prompt_tokens = ?, completion_tokens = ?, committed_at = ?,
                   status = 'committed', error = NULL
               WHERE run_id = ? AND unit_id = ?""",
            (*values, run_id, unit_id),
        )
    return get_unit(store, run_id, unit_id)


def fail_unit(
    store: Store,
    run_id: int,
    unit_id: str,
    *,
    error: str,
    model: str | None = None,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
) -> UnitRow:
    """Mark a pending unit failed with why and what it cost (a committed unit cannot fail)."""
    if not isinstance(error, str) or not error.strip():
        raise UsageError("a failed unit needs a non-empty error")
    tokens = (_count(prompt_tokens, "prompt_tokens"), _count(completion_tokens, "completion_tokens"))
    with store.transaction() as db:
        _require_running(db, run_id)
        if _unit_status(db, run_id, unit_id) == "committed":
            raise UsageError(f"unit {unit_id!r} of run {run_id} is committed; it cannot fail")
        db.execute(
            """UPDATE repo_units SET status = 'failed', error = ?, model = ?, prompt_tokens = ?,
                   completion_tokens = ? WHERE run_id = ? AND unit_id = ?""",
            (error, model, *tokens, run_id, unit_id),
        )
    return get_unit(store, run_id, unit_id)


def reset_units(store: Store, run_id: int, ids: Iterable[str]) -> int:
    """Put these units back to pending, without their document, claims, scores, error and
    tokens (their trace stays); how many there were. An unknown unit is a NotFoundError and
    nothing is reset."""
    wanted = sorted(set(_unit_id_list(ids)))
    with store.transaction() as db:
        _require_running(db, run_id)
        _require_units(db, run_id, wanted)
        _clear(db, run_id, wanted)
    return len(wanted)


def remove_units(store: Store, run_id: int, ids: Iterable[str]) -> int:
    """Drop these units from the run (their code is gone); how many were stored."""
    wanted = sorted(set(_unit_id_list(ids)))
    removed = 0
    with store.transaction() as db:
        _require_running(db, run_id)
        for chunk in _chunks(wanted):
            cur = db.execute(
                f"DELETE FROM repo_units WHERE run_id = ? AND unit_id IN ({_marks(chunk)})", (run_id, *chunk)
            )
            removed += cur.rowcount
    return removed


def get_unit(store: Store, run_id: int, unit_id: str) -> UnitRow:
    """One unit of a run, in whatever state; NotFoundError when the run has no such unit."""
    row = (
        store.conn()
        .execute("SELECT * FROM repo_units WHERE run_id = ? AND unit_id = ?", (run_id, unit_id))
        .fetchone()
    )
    if row is None:
        raise NotFoundError(f"run {run_id} has no unit {unit_id!r}")
    return _unit(row)


def units(store: Store, run_id: int, *, status: str | None = None) -> list[UnitRow]:
    """The run's units (with ``status`` only, when given), in registration order."""
    sql, args = _units_query("*", run_id, status)
    return [_unit(r) for r in store.conn().execute(sql, args)]


def unit_ids(store: Store, run_id: int, *, status: str | None = None) -> list[str]:
    """The ids of the run's units (with ``status`` only, when given), in registration order:
    ``status="pending"`` is what a resumed run has left to do."""
    sql, args = _units_query("unit_id", run_id, status)
    return [str(r[0]) for r in store.conn().execute(sql, args)]


def committed_documents(store: Store, run_id: int, ids: Iterable[str]) -> dict[str, UnitRow]:
    """The committed units among ``ids`` (a READ of dependencies and children); units not
    committed, or not in the run, are absent."""
    wanted = sorted(set(_unit_id_list(ids)))
    out: dict[str, UnitRow] = {}
    with store.snapshot():
        db = store.conn()
        for chunk in _chunks(wanted):
            rows = db.execute(
                f"""SELECT * FROM repo_units WHERE run_id = ? AND status = 'committed'
                    AND unit_id IN ({_marks(chunk)})""",
                (run_id, *chunk),
            )
            out.update((str(r["unit_id"]), _unit(r)) for r in rows)
    return out


def changed_units(store: Store, run_id: int, hashes: Mapping[str, str]) -> UnitChanges:
    """Compare the run's stored code hashes with ``hashes`` (unit id → new hash)."""
    stored = {
        str(r[0]): str(r[1])
        for r in store.conn().execute(
            "SELECT unit_id, content_hash FROM repo_units WHERE run_id = ?", (run_id,)
        )
    }
    if not stored:
        get_run(store, run_id)  # an unknown run is an error, not "everything added"
    return UnitChanges(
        changed=tuple(sorted(u for u, h in hashes.items() if u in stored and stored[u] != h)),
        added=tuple(sorted(u for u in hashes if u not in stored)),
        removed=tuple(sorted(u for u in stored if u not in hashes)),
    )


# -- the search cache -------------------------------------------------------------


def cache_get(store: Store, run_id: int, kind: str, query: str) -> CacheEntry | None:
    """The cached answer to ``query`` of ``kind``, its hit counter raised by one; None (and
    nothing counted) when it is not cached."""
    _text(kind, "cache kind")
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
    _text(kind, "cache kind")
    if not isinstance(query, str):
        raise UsageError(f"a cache query is text, not {type(query).__name__}")
    data = _json(result, "cache result")
    with store.transaction() as db:
        _require_running(db, run_id)
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
        _text(unit_id, "unit id")
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or seconds < 0
    ):
        raise UsageError(f"seconds must be a finite number ≥ 0, not {seconds!r}")
    values = (unit_id, action, _json_object(inputs or {}, "inputs"), _count(tokens, "tokens"), float(seconds))
    with store.transaction() as db:
        _require_running(db, run_id)
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
        current_status = None if current is None else _unit_status(db, run_id, str(current[0]))
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


# -- helpers -----------------------------------------------------------------------


def _root(root: str | Path) -> str:
    if not isinstance(root, str | Path) or not str(root).strip():
        raise UsageError(f"a repository root is a path, not {root!r}")
    return str(Path(root).expanduser().resolve())


def _run(row: sqlite3.Row, *, resumed: bool = False) -> RunRow:
    return RunRow(
        id=int(row["id"]),
        root=str(row["root"]),
        started_at=str(row["started_at"]),
        finished_at=row["finished_at"],
        model=row["model"],
        settings=json.loads(row["settings"]),
        status=str(row["status"]),
        resumed=resumed,
    )


def _unit(row: sqlite3.Row) -> UnitRow:
    return UnitRow(
        run_id=int(row["run_id"]),
        unit_id=str(row["unit_id"]),
        ord=int(row["ord"]),
        granularity=str(row["granularity"]),
        parent_id=row["parent_id"],
        content_hash=str(row["content_hash"]),
        document=row["document"],
        claims=tuple(json.loads(row["claims"])),
        depends_on=tuple(json.loads(row["depends_on"])),
        children=tuple(json.loads(row["children"])),
        scores=json.loads(row["scores"]),
        status=str(row["status"]),
        error=row["error"],
        model=row["model"],
        prompt_tokens=int(row["prompt_tokens"]),
        completion_tokens=int(row["completion_tokens"]),
        committed_at=row["committed_at"],
    )


def _require_running(db: sqlite3.Connection, run_id: int) -> None:
    row = db.execute("SELECT status FROM repo_runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no repository-documentation run {run_id}")
    if row[0] != "running":
        raise UsageError(
            f"run {run_id} is {row[0]}; only a running run is written to",
            hint="start or reopen a run first",
        )


def _unit_status(db: sqlite3.Connection, run_id: int, unit_id: str) -> str:
    row = db.execute(
        "SELECT status FROM repo_units WHERE run_id = ? AND unit_id = ?", (run_id, unit_id)
    ).fetchone()
    if row is None:
        raise NotFoundError(f"run {run_id} has no unit {unit_id!r}", hint="register it first")
    return str(row[0])


def _require_units(db: sqlite3.Connection, run_id: int, ids: list[str]) -> None:
    found: set[str] = set()
    for chunk in _chunks(ids):
        found.update(
            str(r[0])
            for r in db.execute(
                f"SELECT unit_id FROM repo_units WHERE run_id = ? AND unit_id IN ({_marks(chunk)})",
                (run_id, *chunk),
            )
        )
    missing = [u for u in ids if u not in found]
    if missing:
        raise NotFoundError(
            f"run {run_id} has no unit {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
        )


def _clear(db: sqlite3.Connection, run_id: int, ids: list[str]) -> None:
    for chunk in _chunks(ids):
        db.execute(
            f"""UPDATE repo_units SET status = 'pending', document = NULL, claims = '[]', depends_on = '[]',
                   children = '[]', scores = '{{}}', error = NULL, model = NULL, prompt_tokens = 0,
                   completion_tokens = 0, committed_at = NULL
                WHERE run_id = ? AND unit_id IN ({_marks(chunk)})""",
            (run_id, *chunk),
        )


def _units_query(columns: str, run_id: int, status: str | None) -> tuple[str, tuple[Any, ...]]:
    if status is None:
        return f"SELECT {columns} FROM repo_units WHERE run_id = ? ORDER BY ord", (run_id,)
    if status not in UNIT_STATUSES:
        raise UsageError(f"a unit's status is one of {', '.join(UNIT_STATUSES)}, not {status!r}")
    return f"SELECT {columns} FROM repo_units WHERE run_id = ? AND status = ? ORDER BY ord", (run_id, status)


def _checked_unit(unit: NewUnit) -> NewUnit:
    if not isinstance(unit, NewUnit):
        raise UsageError(f"units are registered as NewUnit, not {type(unit).__name__}")
    _text(unit.unit_id, "unit id")
    _text(unit.content_hash, f"code hash of {unit.unit_id!r}")
    if unit.granularity not in GRANULARITIES:
        raise UsageError(
            f"unit {unit.unit_id!r} has granularity {unit.granularity!r}; one of {', '.join(GRANULARITIES)}"
        )
    if unit.parent_id is not None:
        _text(unit.parent_id, f"parent of {unit.unit_id!r}")
    return unit


def _unit_id_list(ids: Iterable[str]) -> list[str]:
    if isinstance(ids, str):
        raise UsageError("give unit ids as a list, not one string")
    out = list(ids)
    for u in out:
        _text(u, "unit id")
    return out


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{what} must be a non-empty string, not {value!r}")
    return value


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"{what} must be a whole number ≥ 0, not {value!r}")
    return value


def _json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{what} is not JSON: {exc}") from exc


def _json_object(value: Mapping[str, Any], what: str) -> str:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise UsageError(f"{what} must be a mapping with string keys, not {type(value).__name__}")
    return _json(dict(value), what)


def _json_strings(value: Sequence[str], what: str) -> str:
    if (
        isinstance(value, str)
        or not isinstance(value, Sequence)
        or not all(isinstance(v, str) for v in value)
    ):
        raise UsageError(f"{what} must be a list of strings")
    return _json(list(value), what)


def _chunks(ids: list[str]) -> Iterable[list[str]]:
    for i in range(0, len(ids), _CHUNK):
        yield ids[i : i + _CHUNK]


def _marks(chunk: Sequence[str]) -> str:
    return ",".join("?" * len(chunk))
