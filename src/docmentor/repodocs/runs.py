"""What the index holds of a repository's documentation runs: the latest run of a root with
its progress (``repo_run_status``) and one unit's committed document (``repo_unit_document``), each a
clear ``NotFoundError`` (with what to try) when there is nothing to show."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError
from docmentor.store import repomem, repomem_trace
from docmentor.store.repomem_rows import RunProgress, RunRow, UnitRow

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["RepoRunStatus", "repo_run_status", "repo_unit_document"]

SUGGESTED = 3  # unit ids suggested for an unknown one


@dataclass(frozen=True)
class RepoRunStatus:
    """The latest run of a repository root and how far it is."""

    run: RunRow
    progress: RunProgress

    @property
    def finished(self) -> bool:
        return self.run.status == "finished"

    def to_dict(self) -> dict[str, Any]:
        p = self.progress
        return {
            "run_id": self.run.id,
            "root": self.run.root,
            "model": self.run.model,
            "status": self.run.status,
            "finished": self.finished,
            "started_at": self.run.started_at,
            "finished_at": self.run.finished_at,
            "units": {"total": p.total, "committed": p.committed, "pending": p.pending, "failed": p.failed},
            "prompt_tokens": p.prompt_tokens,
            "completion_tokens": p.completion_tokens,
            "tokens": p.tokens,
            "actions": p.actions,
            "cache_hits": p.cache_hits,
            "current_unit": p.current_unit,
        }


def repo_run_status(store: Store, root: str | Path) -> RepoRunStatus:
    """The latest run of the repository at ``root`` and its progress; NotFoundError when the
    index holds no run of it."""
    run = _latest(store, root)
    return RepoRunStatus(run, repomem_trace.progress(store, run.id))


def close_unit_ids(unit_id: str, ids: list[str]) -> list[str]:
    """The ids of ``ids`` a mistaken ``unit_id`` most likely meant, best first (at most
    :data:`SUGGESTED`): the same name as Python imports it (``pkg.add`` for
    ``pkg.__init__.add``), close spellings, then the ids it ends.

    """

    def importable(i: str) -> str:
        return i.replace(".__init__", "").removesuffix("__init__")

    wanted = importable(unit_id.strip())
    same = [i for i in ids if importable(i) == wanted]
    by_name = {importable(i): i for i in ids}
    spelled = [by_name[n] for n in difflib.get_close_matches(wanted, list(by_name), n=SUGGESTED, cutoff=0.6)]
    ending = [i for i in ids if importable(i).endswith("." + wanted) or i.endswith("." + unit_id)]
    return list(dict.fromkeys([*same, *spelled, *ending]))[:SUGGESTED]


def unit_ids_hint(ids: list[str]) -> str:
    """What a unit id looks like, from one of ``ids`` (not empty), and where the repository is."""
    example = next((i for i in ids if "." in i.strip(".")), ids[0])
    return f"unit ids are dotted names such as {example!r}; the repository's page is '.'"


def repo_unit_document(store: Store, root: str | Path, unit_id: str) -> UnitRow:
    """The unit ``unit_id`` of the latest run of ``root``, committed (its ``document`` set).
    NotFoundError when there is no run, no such unit (the closest ids suggested) or the unit
    has no committed document yet (pending, or failed with its reason)."""
    run = _latest(store, root)
    ids = repomem.unit_ids(store, run.id)
    if unit_id not in ids:
        close = close_unit_ids(unit_id, ids)
        hint = (
            "did you mean " + ", ".join(close) + "?"
            if close
            else unit_ids_hint(ids)
            if ids
            else "the run has no units"
        )
        raise NotFoundError(f"run {run.id} of {run.root} has no unit {unit_id!r}", hint=hint)
    unit = repomem.get_unit(store, run.id, unit_id)
    if unit.status != "committed" or unit.document is None:
        why = f"it failed: {unit.error}" if unit.status == "failed" and unit.error else f"it is {unit.status}"
        raise NotFoundError(
            f"unit {unit_id!r} of run {run.id} has no committed document ({why})",
            hint="run the documentation again: it goes on where it stopped",
        )
    return unit


def _latest(store: Store, root: str | Path) -> RunRow:
    run = repomem.latest_run(store, root)
    if run is None:
        raise NotFoundError(
            f"no documentation run of {Path(root).expanduser().resolve()} in this index",
            hint="document it with a model first (DOCMENTOR_LLM_BASE_URL and DOCMENTOR_LLM_MODEL set)",
        )
    return run
