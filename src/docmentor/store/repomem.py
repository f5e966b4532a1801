"""RepoMemory in the index, its runs and units: the persistent memory of a
repository-documentation run.

The tables of migration ``m010_repo_memory``: a run of one repository root (``repo_runs``),
its units with their documents (``repo_units``), the search cache of its READ actions
(``repo_search_cache``) and the trace of every action (``repo_trace``). Every write is one
SQLite transaction, so a run killed at any moment loses at most the unit in progress: a
committed unit is either wholly there (document, claims, scores, tokens) or still pending,
and a resumed run (:func:`start_run` finds the latest unfinished run of the root) lists
only what is left (:func:`unit_ids` with ``status="pending"``).

The store keeps plain data: unit ids are opaque strings, JSON columns go in as Python lists
and dicts and come out as tuples and dicts in frozen rows. What a unit is, the traversal
order and the agent loop belong to the product (:mod:`docmentor.repodocs`). The row types
and checks are ``repomem_rows.py``'s; the search cache, trace and progress ``repomem_trace.py``'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError, UsageError
from docmentor.store.repomem_rows import (
    GRANULARITIES,
    UNIT_STATUSES,
    NewUnit,
    Registration,
    RunRow,
    UnitChanges,
    UnitRow,
    count,
    json_object,
    json_strings,
    require_running,
    text,
    unit_status,
)
from docmentor.store.rows import now_iso

if TYPE_CHECKING:
    from docmentor.store.db import Store
    from docmentor.store.dbapi import Connection, Row

__all__ = [
    "changed_units",
    "commit_unit",
    "committed_documents",
    "fail_unit",
    "finish_run",
    "get_run",
    "get_unit",
    "latest_run",
    "list_runs",
    "register_units",
    "remove_units",
    "reopen_run",
    "reset_units",
    "start_run",
    "unit_ids",
    "units",
]

_ENDED = ("finished", "failed")  # what finish_run may set
_CHUNK = 500  # ids per IN (…) query


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
    settings_json = json_object(settings or {}, "settings")
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
            "INSERT INTO repo_runs (root, started_at, model, settings, status) VALUES (?, ?, ?, ?, 'running')"
            " RETURNING id",
            (key, now_iso(), model, settings_json),
        )
        row = db.execute("SELECT * FROM repo_runs WHERE id = ?", (cur.fetchone()[0],)).fetchone()
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


def latest_run(store: Store, root: str | Path) -> RunRow | None:
    """The newest run of the repository at ``root``, in whatever state; None when it has none."""
    row = (
        store.conn()
        .execute("SELECT * FROM repo_runs WHERE root = ? ORDER BY id DESC LIMIT 1", (_root(root),))
        .fetchone()
    )
    return None if row is None else _run(row)


def finish_run(store: Store, run_id: int, *, status: str = "finished") -> RunRow:
    """End a running run as ``finished`` or ``failed``, with its finishing time."""
    if status not in _ENDED:
        raise UsageError(f"a run ends as one of {', '.join(_ENDED)}, not {status!r}")
    with store.transaction() as db:
        require_running(db, run_id)
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
        require_running(db, run_id)
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
        json_strings(claims, "claims"),
        json_strings(depends_on, "depends_on"),
        json_strings(children, "children"),
        json_object(scores or {}, "scores"),
        model,
        count(prompt_tokens, "prompt_tokens"),
        count(completion_tokens, "completion_tokens"),
        now_iso(),
    )
    with store.transaction() as db:
        require_running(db, run_id)
        status = unit_status(db, run_id, unit_id)
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
    tokens = (count(prompt_tokens, "prompt_tokens"), count(completion_tokens, "completion_tokens"))
    with store.transaction() as db:
        require_running(db, run_id)
        if unit_status(db, run_id, unit_id) == "committed":
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
        require_running(db, run_id)
        _require_units(db, run_id, wanted)
        _clear(db, run_id, wanted)
    return len(wanted)


def remove_units(store: Store, run_id: int, ids: Iterable[str]) -> int:
    """Drop these units from the run (their code is gone); how many were stored."""
    wanted = sorted(set(_unit_id_list(ids)))
    removed = 0
    with store.transaction() as db:
        require_running(db, run_id)
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


# -- helpers -----------------------------------------------------------------------


def _root(root: str | Path) -> str:
    if not isinstance(root, str | Path) or not str(root).strip():
        raise UsageError(f"a repository root is a path, not {root!r}")
    return str(Path(root).expanduser().resolve())


def _run(row: Row, *, resumed: bool = False) -> RunRow:
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


def _unit(row: Row) -> UnitRow:
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


def _require_units(db: Connection, run_id: int, ids: list[str]) -> None:
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


def _clear(db: Connection, run_id: int, ids: list[str]) -> None:
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
    text(unit.unit_id, "unit id")
    text(unit.content_hash, f"code hash of {unit.unit_id!r}")
    if unit.granularity not in GRANULARITIES:
        raise UsageError(
            f"unit {unit.unit_id!r} has granularity {unit.granularity!r}; one of {', '.join(GRANULARITIES)}"
        )
    if unit.parent_id is not None:
        text(unit.parent_id, f"parent of {unit.unit_id!r}")
    return unit


def _unit_id_list(ids: Iterable[str]) -> list[str]:
    if isinstance(ids, str):
        raise UsageError("give unit ids as a list, not one string")
    out = list(ids)
    for u in out:
        text(u, "unit id")
    return out


def _chunks(ids: list[str]) -> Iterable[list[str]]:
    for i in range(0, len(ids), _CHUNK):
        yield ids[i : i + _CHUNK]


def _marks(chunk: Sequence[str]) -> str:
    return ",".join("?" * len(chunk))
