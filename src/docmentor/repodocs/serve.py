"""Serving a repository's documentation: a written tree registered as a folder source of the
index (``register_repo_docs``), so that search, get_doc and assemble serve it; and what the
latest documentation of a repository is, whichever way it was written (``repo_docs_progress``,
``repo_docs_unit``): the agent's run in RepoMemory, or the tree's ``documentation.json``,
the more recent of the two."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.config import auto_name
from docmentor.errors import DocmentorError, NotFoundError, UsageError
from docmentor.repodocs.generate import DEFAULT_OUT, RepoDocsResult
from docmentor.repodocs.output import JSON_NAME
from docmentor.repodocs.runs import close_unit_ids, repo_run_status, repo_unit_document, unit_ids_hint
from docmentor.store import repomem

if TYPE_CHECKING:
    from docmentor.engine import Docmentor

__all__ = [
    "CodeChanges",
    "RepoDocsProgress",
    "RepoDocsSource",
    "RepoDocsUnit",
    "code_changes",
    "register_repo_docs",
    "repo_docs_progress",
    "repo_docs_source_name",
    "repo_docs_unit",
]

SOURCE_PREFIX = "repo-"  # a source name holds no ':' (config.validate_name)
MAX_NAME_TRIES = 100


@dataclass(frozen=True)
class RepoDocsSource:
    """The folder source that serves a written tree: its name, the folder, whether it was
    there already (refreshed) or added now, and its number of documents."""

    name: str
    out: str
    refreshed: bool
    documents: int
    #: pages of the tree the index left out, and why (one over the size cap: a huge module's)
    skipped: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "out": self.out,
            "refreshed": self.refreshed,
            "documents": self.documents,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
        }


def repo_docs_source_name(engine: Docmentor, out: Path, root: Path) -> tuple[str, bool]:
    """The name of the source serving ``out`` and whether it exists: the source already
    pointing at ``out`` if there is one, else ``repo-<repository folder name>`` (with ``-2``,
    ``-3``… when that name serves another folder)."""
    target = os.path.abspath(out)
    rows = engine.store.sources()
    for row in rows:
        if row.kind == "folder" and row.target == target:
            return row.name, True
    taken = {r.name for r in rows}
    base = (SOURCE_PREFIX + auto_name(str(root)))[:60]
    for n in range(1, MAX_NAME_TRIES + 1):
        name = base if n == 1 else f"{base}-{n}"
        if name not in taken:
            return name, False
    raise UsageError(
        f"{MAX_NAME_TRIES} sources are named {base}…: no free name for {target}",
        hint="remove some of them (docmentor remove NAME)",
    )


def register_repo_docs(engine: Docmentor, result: RepoDocsResult, *, embed: bool = True) -> RepoDocsSource:
    """Index the tree ``document_repository`` wrote (``result.out``) as a folder source, or
    refresh the source that serves it already: its pages are searchable at once."""
    out = Path(result.out)
    name, existed = repo_docs_source_name(engine, out, Path(result.root))
    report = engine.add(out, name=name, embed=embed)
    if report.error:
        raise DocmentorError(f"the documentation in {out} could not be indexed: {report.error}")
    return RepoDocsSource(
        name, os.path.abspath(out), existed, len(engine.store.documents(name)), tuple(report.skipped)
    )


# -- the latest documentation of a repository ---------------------------------------------------


@dataclass(frozen=True)
class RepoDocsProgress:
    """How far the latest documentation of a repository is. ``mode``: ``model`` (the agent's
    run, ``run_id``) or ``no_model`` (the tree in ``out``, finished when written)."""

    root: str
    mode: str
    run_id: int | None
    status: str
    finished: bool
    total: int
    done: int
    failed: int
    pending: int
    tokens: int
    current_unit: str | None
    out: str | None
    # the code as it is now against the code documented (None: not compared)
    code: CodeChanges | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "mode": self.mode,
            "run_id": self.run_id,
            "status": self.status,
            "finished": self.finished,
            "units": {"total": self.total, "done": self.done, "failed": self.failed, "pending": self.pending},
            "tokens": self.tokens,
            "current_unit": self.current_unit,
            "out": self.out,
            "code": None if self.code is None else self.code.to_dict(),
        }


@dataclass(frozen=True)
class CodeChanges:
    """The units whose code changed since it was documented, the units added since and the
    units documented that are gone: what ``repo-docs generate`` would document again."""

    changed: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def current(self) -> bool:
        return not (self.changed or self.added or self.removed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "current": self.current,
            "changed": list(self.changed),
            "added": list(self.added),
            "removed": list(self.removed),
        }


def code_changes(root: Path, documented: dict[str, str]) -> CodeChanges:
    """The repository's units now (read as generate reads them) against ``documented`` (unit
    id → the content hash of the code its document was written from)."""
    from docmentor.repodocs.python_units import read_repository

    now = {unit_id: unit.content_hash for unit_id, unit in read_repository(root).units().items()}
    return CodeChanges(
        tuple(sorted(u for u, h in now.items() if u in documented and documented[u] != h)),
        tuple(sorted(now.keys() - documented.keys())),
        tuple(sorted(documented.keys() - now.keys())),
    )


@dataclass(frozen=True)
class RepoDocsUnit:
    """One unit's document from the latest documentation of a repository."""

    root: str
    unit: str
    mode: str
    kind: str
    document: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "unit": self.unit,
            "mode": self.mode,
            "kind": self.kind,
            "document": self.document,
        }


def repo_docs_progress(
    engine: Docmentor | None, root: Path, out: Path | None = None, *, check_code: bool = False
) -> RepoDocsProgress:
    """The latest documentation of the repository at ``root`` (the tree under ``out``,
    default ``root/.docmentor-docs``, or the agent's latest run in the index of ``engine``;
    None: no index, the tree alone): NotFoundError when there is none. ``check_code``: also
    compare the code as it is now with the code documented (``code``: it reads the whole
    repository, a second or a few for a large one)."""
    root = root.resolve()
    tree, status = _latest(engine, root, out)
    if status is not None:
        assert engine is not None
        p = status.progress
        code = None
        if check_code:
            rows = repomem.units(engine.store, status.run.id)
            code = code_changes(root, {r.unit_id: r.content_hash for r in rows})
        return RepoDocsProgress(
            str(root), "model", status.run.id, status.run.status, status.finished,
            p.total, p.committed, p.failed, p.pending, p.tokens, p.current_unit, None, code,
        )  # fmt: skip
    assert tree is not None
    units = _tree_units(tree)
    n = len(units)
    code = None
    if check_code:
        documented = {str(u.get("id")): str(u.get("hash")) for u in units if u.get("id") is not None}
        code = code_changes(root, documented)
    return RepoDocsProgress(
        str(root), "no_model", None, "finished", True, n, n, 0, 0, 0, None, str(tree.parent), code
    )


def repo_docs_unit(engine: Docmentor | None, root: Path, unit: str, out: Path | None = None) -> RepoDocsUnit:
    """The document of ``unit`` (a dotted id) in the latest documentation of ``root`` (a unit
    the agent's run failed or left pending: the document written from the code that the tree
    of that run holds in its place, when the tree was written); NotFoundError (with the
    closest ids) when it has no such unit."""
    root = root.resolve()
    tree, status = _latest(engine, root, out)
    if status is not None and engine is not None:
        try:
            row = repo_unit_document(engine.store, root, unit)
        except NotFoundError:
            # failed or pending in the run: the tree written from the run has the document
            # written from the code in its place (it says so in its first line)
            written = (out if out is not None else root / DEFAULT_OUT) / JSON_NAME
            if not written.is_file() or _tree_run(written) != status.run.id:
                raise
            entry = next((e for e in _tree_units(written) if e.get("id") == unit), None)
            if entry is None:
                raise
            return RepoDocsUnit(
                str(root), unit, "model", str(entry.get("kind", "")), str(entry.get("text", ""))
            )
        return RepoDocsUnit(str(root), unit, "model", row.granularity, row.document or "")
    assert tree is not None
    units = _tree_units(tree)
    for entry in units:
        if entry.get("id") == unit:
            return RepoDocsUnit(
                str(root), unit, "no_model", str(entry.get("kind", "")), str(entry.get("text", ""))
            )
    ids = [str(e.get("id")) for e in units]
    close = close_unit_ids(unit, ids)
    hint = (
        "did you mean " + ", ".join(close) + "?"
        if close
        else unit_ids_hint(ids)
        if ids
        else "it has no units"
    )
    raise NotFoundError(f"the documentation of {root} has no unit {unit!r}", hint=hint)


def _latest(engine: Docmentor | None, root: Path, out: Path | None) -> tuple[Path | None, Any]:
    """The tree's documentation.json (if written) and the agent's latest run (if any): only
    the more recent of the two is returned, the other None."""
    json_path = (out if out is not None else root / DEFAULT_OUT) / JSON_NAME
    tree = json_path if json_path.is_file() else None
    try:
        status = repo_run_status(engine.store, root) if engine is not None else None
    except NotFoundError:
        status = None
    if status is None and tree is None:
        where = f" in {json_path.parent}" if out is not None else ""
        raise NotFoundError(
            f"no documentation of {root}{where} yet",
            hint="generate it first: docmentor repo-docs generate PATH, or the MCP tool repo_docs_generate"
            + ("" if out is not None else "; a tree written elsewhere is read with the same --out"),
        )
    if status is not None and tree is not None:
        if _when(status.run.started_at) >= tree.stat().st_mtime or _tree_run(tree) == status.run.id:
            return None, status  # a tree written from that run: the run says what failed
        return tree, None
    return tree, status


def _tree_run(json_path: Path) -> int | None:
    """The id of the agent run a tree was written from (``write_agent_tree``), if any."""
    try:
        run = json.loads(json_path.read_text(encoding="utf-8")).get("run")
    except (OSError, ValueError, AttributeError):
        return None
    return run.get("id") if isinstance(run, dict) and isinstance(run.get("id"), int) else None


def _when(iso: str) -> float:
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _tree_units(json_path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(json_path.read_text(encoding="utf-8"))
        units = data["units"]
        if not isinstance(units, list):
            raise TypeError("units is not a list")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise NotFoundError(
            f"{json_path} cannot be read ({exc})", hint="generate the documentation again"
        ) from None
    return [u for u in units if isinstance(u, dict)]
