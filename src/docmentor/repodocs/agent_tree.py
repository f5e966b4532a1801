"""The documents of an agent's run written as the Markdown tree and ``documentation.json``
of ``output.py``: each unit's committed document where the run has one for the code as it is
now, else the unit's document written from the code (marked as such).

Pages, anchors and the atomic write are ``output.py``'s and ``deterministic.Layout``'s. A
model's document has its links made to work from its page (``relink.py``) and is split into
sections at its top-level headings (deeper headings become bold lines, so the page's outline
stays the tree's); the repository's and packages' pages keep the code's lists of packages and
modules, so every page stays reachable from ``index.md``.
``documentation.json`` gets, per unit, ``source`` (``model`` or ``code``) and ``status``
(``committed``, or why the code's document is there: ``failed``, ``pending``, ``stale`` (the
code changed after the commit), ``missing`` (not in the run)), and the run's id and model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import UsageError
from docmentor.repodocs.deterministic import Section, UnitDocument
from docmentor.repodocs.generate import DEFAULT_OUT, RepoDocsResult, build_documents
from docmentor.repodocs.markdown import plain
from docmentor.repodocs.output import JSON_NAME, render_tree, write_tree
from docmentor.repodocs.python_units import DEFAULT_MAX_BYTES
from docmentor.repodocs.relink import Links, relink
from docmentor.store import repomem

if TYPE_CHECKING:
    from docmentor.store.db import Store
    from docmentor.store.repomem_rows import UnitRow

__all__ = ["AgentTreeResult", "model_sections", "write_agent_tree"]

_NAVIGATION = ("Packages", "Modules", "Subpackages")  # kept from the code's document
_FENCES = ("```", "~~~")


@dataclass(frozen=True)
class AgentTreeResult:
    """What ``write_agent_tree`` wrote: the tree (``tree``, as ``document_repository``
    reports it), the run, and the ids whose document is the model's or the code's."""

    tree: RepoDocsResult
    run_id: int
    model: str | None
    from_model: tuple[str, ...]
    from_code: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.tree.to_dict(),
            "run_id": self.run_id,
            "model": self.model,
            "from_model": len(self.from_model),
            "from_code": list(self.from_code),
        }


def _heading(line: str) -> tuple[int, str] | None:
    """A Markdown ATX heading's level and text, or None (no regex: linear on any line)."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    rest = stripped[level:]
    if rest and rest[0] not in " \t":
        return None
    title = rest.strip().rstrip("#").strip()
    return (level, title) if title else None


def model_sections(document: str) -> tuple[Section, ...]:
    """A model's Markdown document as sections: split at its top-level headings (the lowest
    level outside code fences); text before the first heading is a ``Summary``; deeper
    headings become bold lines."""
    lines = document.replace("\r\n", "\n").split("\n")
    fenced = False
    found: list[tuple[int, int, str]] = []  # line number, level, title
    for i, line in enumerate(lines):
        if line.lstrip().startswith(_FENCES):
            fenced = not fenced
            continue
        head = None if fenced else _heading(line)
        if head is not None:
            found.append((i, *head))
    top = min((level for _, level, _ in found), default=0)
    starts = [(i, title) for i, level, title in found if level == top]
    deeper = {i: title for i, level, title in found if level != top}
    bounds = [(0, "Summary"), *starts] if not starts or starts[0][0] > 0 else starts
    sections: list[Section] = []
    for n, (start, name) in enumerate(bounds):
        end = bounds[n + 1][0] if n + 1 < len(bounds) else len(lines)
        first = start if name == "Summary" and (not starts or start < starts[0][0]) else start + 1
        body = [f"**{deeper[j]}**" if j in deeper else lines[j] for j in range(first, end)]
        text = "\n".join(body).strip()
        if text:
            sections.append(Section(name, text))
    return tuple(sections) or (Section("Summary", "(The model's document is empty.)"),)


def _from_model(code_doc: UnitDocument, row: UnitRow, links: Links) -> UnitDocument:
    sections = list(model_sections(relink(row.document or "", code_doc.page, links)))
    if code_doc.kind in ("repository", "package"):
        names = {s.name for s in sections}
        for s in code_doc.sections:
            if s.name in _NAVIGATION:
                name = s.name if s.name not in names else f"{s.name} (from the code)"
                sections.append(Section(name, s.body))
    return replace(code_doc, sections=tuple(sections))


def _from_code(code_doc: UnitDocument, status: str, row: UnitRow | None) -> UnitDocument:
    why = {
        "failed": "the model's document for this unit failed"
        + (f" ({plain(row.error)})" if row is not None and row.error else ""),
        "pending": "the model has not documented this unit yet",
        "stale": "the code changed after the model documented this unit",
        "missing": "the model's run does not hold this unit",
    }[status]
    note = Section("Note", f"*Written from the code alone: {why}.*")
    return replace(code_doc, sections=(note, *code_doc.sections))


def write_agent_tree(
    store: Store,
    root: Path,
    run_id: int,
    out: Path | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> AgentTreeResult:
    """Write run ``run_id``'s documents of the repository at ``root`` under ``out`` (default
    ``root/.docmentor-docs``), atomically, byte-identical for the same run and code. A unit
    without a committed document for its current code gets the code's document, marked.
    Raises NotFoundError for an unknown run, UsageError when the run is of another root and
    ``output.OutputError`` when ``out`` holds files that are not an earlier output."""
    root = root.resolve()
    run = repomem.get_run(store, run_id)
    if Path(run.root) != root:
        raise UsageError(f"run {run_id} documents {run.root}, not {root}")
    target = out if out is not None else root / DEFAULT_OUT
    docs = build_documents(root, max_bytes=max_bytes)
    rows = {r.unit_id: r for r in repomem.units(store, run_id)}
    links = Links(
        {u: d.page for u, d in docs.documents.items()},
        {u: d.anchor for u, d in docs.documents.items() if d.anchor},
        frozenset(m.path for m in docs.units.modules),
    )
    documents: dict[str, UnitDocument] = {}
    status: dict[str, str] = {}
    for unit_id, code_doc in docs.documents.items():
        row = rows.get(unit_id)
        if row is None:
            state = "missing"
        elif row.status == "committed":
            state = "committed" if row.content_hash == code_doc.content_hash else "stale"
        else:
            state = row.status if row.status in ("failed", "pending") else "pending"
        status[unit_id] = state
        documents[unit_id] = (
            _from_model(code_doc, row, links)
            if state == "committed" and row is not None
            else _from_code(code_doc, state, row)
        )
    files = render_tree(docs.units, documents, docs.order.order)
    files[JSON_NAME] = _marked(files[JSON_NAME], status, run_id, run.model)
    write_tree(target, files)
    counts: dict[str, int] = {}
    for doc in documents.values():
        counts[doc.kind] = counts.get(doc.kind, 0) + 1
    tree = RepoDocsResult(str(root), str(target.absolute()), counts, len(files), docs.units.problems)
    return AgentTreeResult(
        tree,
        run_id,
        run.model,
        tuple(sorted(u for u, s in status.items() if s == "committed")),
        tuple(sorted(u for u, s in status.items() if s != "committed")),
    )


def _marked(data: bytes, status: dict[str, str], run_id: int, model: str | None) -> bytes:
    """``documentation.json`` with each unit's source and status, and the run."""
    tree = json.loads(data)
    for entry in tree["units"]:
        state = status[entry["id"]]
        entry["source"] = "model" if state == "committed" else "code"
        entry["status"] = state
    tree["run"] = {"id": run_id, "model": model}
    return (json.dumps(tree, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
