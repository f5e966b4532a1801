"""The knowledge bases registered in the index: list them, unregister one, read one's drift report.

What ``docmentor readme-llm remove`` / ``drift``, ``docmentor feedback analyze`` and the MCP
server's instructions ask of the registry, as library calls over the store's records
(:mod:`docmentor.store.kb`). Light to import: no index or model is loaded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError
from docmentor.store.kb import KbRow, list_kbs, unregister_kb

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.library.examples.drift import DriftReport

__all__ = ["RemovedKnowledgeBase", "drift_report", "knowledge_bases", "remove_knowledge_base"]


def name_key(name: str) -> str:
    """A library's name as package indexes compare names: ``sqlite-utils`` and
    ``sqlite_utils`` are one, case aside."""
    return re.sub(r"[-_.]+", "-", name).lower()


def named_keys(library: str) -> set[str]:
    """The :func:`name_key` values a library name given by a user may mean ("HTTPX", " httpx"
    and "httpx@0.28" name httpx)."""
    from docmentor.sources.versions import library_of

    name = library.strip()
    return {name_key(name), name_key(library_of(name))}


def registered_name(known: list[str], library: str) -> str | None:
    """The registered library ``library`` names: that name, else the one name it is as package
    indexes compare names (``dirty-equals`` is ``dirty_equals``, case aside); None for none,
    or for several."""
    if library in known:
        return library
    same = [name for name in known if name_key(name) == name_key(library.strip())]
    return same[0] if len(same) == 1 else None


def knowledge_bases(engine: Docmentor) -> list[KbRow]:
    """Every knowledge base registered in ``engine``'s index, by library name."""
    return list_kbs(engine.store)


@dataclass(frozen=True, slots=True)
class RemovedKnowledgeBase:
    """A knowledge base just unregistered: what it was, and the docs source ``generate``
    indexed for it when that is still indexed (None otherwise)."""

    library: str
    version: str | None
    path: str  # its folder, left on disk
    docs_source: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "removed": self.library,
            "version": self.version,
            "path": self.path,
            "docs_source": self.docs_source,
        }


def remove_knowledge_base(engine: Docmentor, library: str) -> RemovedKnowledgeBase:
    """Unregister ``library``'s knowledge base: find_api, get_examples and the overview stop
    serving it. Its folder and its docs source stay.

    Raises:
        NotFoundError: no knowledge base is registered for ``library`` (the hint lists those that are).
    """
    from docmentor.library.stages import docs_source_name

    known = [r.library for r in list_kbs(engine.store)]
    named = registered_name(known, library)
    if named is None:
        raise NotFoundError(
            f"no knowledge base for {library!r}", hint=f"registered: {', '.join(known) or 'none'}"
        )
    library = named
    row = unregister_kb(engine.store, library)
    docs = docs_source_name(library)
    return RemovedKnowledgeBase(
        library=library,
        version=row.version,
        path=row.path,
        docs_source=docs if engine.store.has_source(docs) else None,
    )


def drift_report(engine: Docmentor, library: str) -> DriftReport:
    """The drift report of ``library``'s last generation (its knowledge base's ``drift.json``):
    the documented calls the installed version did not have or accept.

    Raises:
        NotFoundError: no knowledge base is registered for ``library``, its folder is gone, or
            it has no drift report (generated without Python examples or the package installed).
    """
    from docmentor.library.examples.drift import DriftFinding, DriftReport

    rows = {r.library: r for r in list_kbs(engine.store)}
    named = registered_name(list(rows), library)
    if named is None:
        raise NotFoundError(
            f"no knowledge base for {library!r}",
            hint=f"run: docmentor readme-llm generate --library {library}",
        )
    library = named
    folder = Path(rows[library].path)
    path = folder / "drift.json"
    if not folder.is_dir():
        raise NotFoundError(
            f"the knowledge base folder of {library!r} is gone: {folder}",
            hint=f"regenerate it: docmentor readme-llm generate --library {library} --out DIR",
        )
    if not path.is_file():
        raise NotFoundError(
            f"no drift report for {library!r}",
            hint="regenerate with Python examples and the package installed",
        )
    data = json.loads(path.read_text(encoding="utf-8"))  # written by DriftReport.to_dict
    return DriftReport(
        library=data["library"],
        version=data["version"],
        examples_checked=data["examples_checked"],
        findings=tuple(DriftFinding(**f) for f in data["findings"]),
        examples_not_checked=int(data.get("examples_not_checked", 0)),  # a report before it: 0
    )
