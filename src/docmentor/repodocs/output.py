"""The repository documentation on disk: a Markdown tree and ``documentation.json``,
byte-identical for the same code, written atomically.

The tree: ``index.md`` (the repository), ``packages/<name>.md``, ``modules/<name>.md`` (the
module's document, then each of its components as a heading with an ``<a id>`` anchor, in
source order, methods under their class); names and anchors as ``deterministic.Layout``
gives them. ``documentation.json`` holds every unit sorted by id: id, kind, title, path,
span, hash, page, anchor, sections, depends_on, children and its document's text (sections
under ``##`` headings, links relative to its page), plus the documentation order.

Writing: every file goes to a new folder beside ``out`` first; then the previous output is
moved aside, the new folder renamed to ``out``, and the previous output deleted. If the
rename fails the previous output is put back; if the process dies between the two renames,
the next write puts it back before it starts. A folder that is not empty and holds no
``documentation.json`` of this format is never replaced (it is not ours).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from docmentor.repodocs.deterministic import UnitDocument
from docmentor.repodocs.units import REPOSITORY_ID, RepoUnits

FORMAT = "docmentor-repo-docs/1"
JSON_NAME = "documentation.json"


class OutputError(Exception):
    """The output folder cannot be written (it holds something that is not ours)."""


def render_tree(
    units: RepoUnits, documents: dict[str, UnitDocument], order: tuple[str, ...]
) -> dict[str, bytes]:
    """Every output file by its path under the output folder."""
    files: dict[str, str] = {"index.md": _repository_page(documents[REPOSITORY_ID])}
    for p in units.packages:
        doc = documents[p.id]
        parent = "../index.md" if p.parent == REPOSITORY_ID else "../" + documents[p.parent].page
        nav = f"[Repository overview](../index.md) · [Parent]({parent})"
        files[doc.page] = f"# {doc.title}\n\n{nav}\n\n{doc.text(2)}"
    for m in units.modules:
        files[documents[m.id].page] = _module_page(units, m.id, m.package, documents)
    files[JSON_NAME] = _json(units, documents, order)
    return {path: text.encode("utf-8") for path, text in sorted(files.items())}


def _repository_page(doc: UnitDocument) -> str:
    return f"# {doc.title}\n\n{doc.text(2)}"


def _module_page(units: RepoUnits, module_id: str, package: str, documents: dict[str, UnitDocument]) -> str:
    doc = documents[module_id]
    parent = "../index.md" if package == REPOSITORY_ID else "../" + documents[package].page
    parts = [f"# {doc.title}\n\n[Repository overview](../index.md) · [Package]({parent})\n\n{doc.text(2)}"]
    members = {c.id: c.members for c in units.components}
    module = next(m for m in units.modules if m.id == module_id)
    if module.components:
        # a model's module document has a Components section of its own (one line each):
        # the components' documents then come under a heading of their own
        own = any(name.lower() == "components" for name in doc.section_names())
        parts.append("## Component documents\n" if own else "## Components\n")
    stack = [(c, 3) for c in reversed(module.components)]
    while stack:
        unit_id, level = stack.pop()
        component = documents[unit_id]
        marks = "#" * min(level, 6)
        parts.append(
            f'<a id="{component.anchor}"></a>\n\n{marks} {component.title}\n\n{component.text(level + 1)}'
        )
        stack += [(child, level + 1) for child in reversed(members.get(unit_id, ()))]
    return "\n".join(parts)


def _json(units: RepoUnits, documents: dict[str, UnitDocument], order: tuple[str, ...]) -> str:
    entries = []
    for unit_id in sorted(documents):
        doc = documents[unit_id]
        entries.append(
            {
                "id": doc.id,
                "kind": doc.kind,
                "title": doc.title,
                "path": doc.path,
                "span": None if doc.line_start is None else [doc.line_start, doc.line_end],
                "hash": doc.content_hash,
                "page": doc.page,
                "anchor": doc.anchor,
                "sections": list(doc.section_names()),
                "depends_on": list(doc.depends_on),
                "children": list(doc.children),
                "text": doc.text(2),
            }
        )
    data = {
        "format": FORMAT,
        "repository": units.repository.name,
        "order": list(order),
        "problems": [
            {"path": p.path, "error": p.error, "skipped": p.skipped}
            for p in sorted(units.problems, key=lambda p: (p.path, p.error))
        ],
        "units": entries,
    }
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def write_tree(out: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` as the whole content of ``out``, atomically (see the module's
    docstring). Raises ``OutputError`` when ``out`` holds something that is not ours."""
    out = out.absolute()
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    backup = parent / f".{out.name}.previous"
    if not out.exists() and backup.is_dir():  # a run died between the two renames
        os.rename(backup, out)
    if out.exists() and not _ours(out):
        raise OutputError(f"{out} is not empty and holds no {JSON_NAME} of {FORMAT}: not replaced")
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=parent))
    try:
        for rel, data in files.items():
            target = fresh / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if backup.exists():
            shutil.rmtree(backup)
        moved = False
        if out.exists():
            os.rename(out, backup)
            moved = True
        try:
            os.rename(fresh, out)
        except OSError:
            if moved:
                os.rename(backup, out)
            raise
        if moved:
            shutil.rmtree(backup, ignore_errors=True)
    finally:
        if fresh.exists():
            shutil.rmtree(fresh, ignore_errors=True)


def _ours(folder: Path) -> bool:
    if not folder.is_dir():
        return False
    if not any(folder.iterdir()):
        return True
    try:
        data = json.loads((folder / JSON_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT
