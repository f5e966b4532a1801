"""The rows and checks RepoMemory's store modules share (``repomem.py`` runs and units,
``repomem_trace.py`` the search cache, trace and progress): the frozen row types, the
statuses and granularities, argument checks and JSON encoding, and the checks that a run is
running and a unit exists.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from docmentor.store.dbapi import Connection

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
    "count",
    "json_object",
    "json_strings",
    "require_running",
    "text",
    "to_json",
    "unit_status",
]

GRANULARITIES: tuple[str, ...] = ("component", "module", "package", "repository")
UNIT_STATUSES: tuple[str, ...] = ("pending", "committed", "failed")
#: a run is ``running`` until finished; ``abandoned`` when a new run of its root was started
#: instead of resuming it
RUN_STATUSES: tuple[str, ...] = ("running", "finished", "failed", "abandoned")


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


# -- checks ----------------------------------------------------------------------


def require_running(db: Connection, run_id: int) -> None:
    row = db.execute("SELECT status FROM repo_runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no repository-documentation run {run_id}")
    if row[0] != "running":
        raise UsageError(
            f"run {run_id} is {row[0]}; only a running run is written to",
            hint="start or reopen a run first",
        )


def unit_status(db: Connection, run_id: int, unit_id: str) -> str:
    row = db.execute(
        "SELECT status FROM repo_units WHERE run_id = ? AND unit_id = ?", (run_id, unit_id)
    ).fetchone()
    if row is None:
        raise NotFoundError(f"run {run_id} has no unit {unit_id!r}", hint="register it first")
    return str(row[0])


def text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{what} must be a non-empty string, not {value!r}")
    return value


def count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"{what} must be a whole number ≥ 0, not {value!r}")
    return value


def to_json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{what} is not JSON: {exc}") from exc


def json_object(value: Mapping[str, Any], what: str) -> str:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise UsageError(f"{what} must be a mapping with string keys, not {type(value).__name__}")
    return to_json(dict(value), what)


def json_strings(value: Sequence[str], what: str) -> str:
    if (
        isinstance(value, str)
        or not isinstance(value, Sequence)
        or not all(isinstance(v, str) for v in value)
    ):
        raise UsageError(f"{what} must be a list of strings")
    return to_json(list(value), what)
