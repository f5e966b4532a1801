"""The engine's result types: refresh reports, pages, excerpts and source listings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from docmentor.search.semantic import EmbedReport
from docmentor.store.rows import SourceRow

#: a progress callback: ``(done, total, what)``
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class RefreshReport:
    """What one refresh of one source did."""

    source: str
    kind: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    documents: int = 0
    sections: int = 0
    seconds: float = 0.0
    error: str | None = None  # the whole source could not be read; it was left as it was
    refused: set[str] = field(default_factory=set)  # of ``failed``, links refused by policy
    embedding: EmbedReport | None = None  # the embedding run that followed, if any
    version: str | None = None  # the library version the source describes, when known
    #: where ``version`` was read ("given", "pyproject.toml", "package.json", "setup.cfg", "Cargo.toml", "PKG-INFO",
    #: "llms.txt", "installed")
    version_origin: str | None = None
    #: documents were listed and not one could be read (an llms.txt whose every link failed):
    #: the source keeps its last good copies, and a command-line refresh says it failed
    nothing_read: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "error": self.error,
            "kind": self.kind,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "failed": [{"path": p, "error": e} for p, e in self.failed],
            "nothing_read": self.nothing_read,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "warnings": self.warnings,
            "documents": self.documents,
            "sections": self.sections,
            "seconds": round(self.seconds, 3),
            "embedding": self.embedding.to_dict() if self.embedding is not None else None,
            # when known: the version and where it was read (a wrong guess is fixed with --version)
            **({"version": self.version, "version_origin": self.version_origin} if self.version else {}),
        }


@dataclass(frozen=True)
class DocPage:
    source: str
    path: str
    url: str
    title: str
    content: str
    offset: int
    length: int
    total_length: int
    has_more: bool
    stale: bool
    error: str | None
    indexed_at: str
    #: characters of what was asked for (the lines' text with ``lines``, else the document);
    #: ``has_more`` and the next ``offset`` count in it (not in the JSON)
    span_length: int | None = None
    source_version: str | None = None  # the library version the document's source describes
    #: said when the page is read from another version of its library than the one searches
    #: answer from (a page only that version has, asked for by its bare path)
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "path": self.path,
            "url": self.url,
            "title": self.title,
            "content": self.content,
            "offset": self.offset,
            "length": self.length,
            "total_length": self.total_length,
            "has_more": self.has_more,
            "stale": self.stale,
            "error": self.error,
            "indexed_at": self.indexed_at,
            "source_version": self.source_version,
            **({"note": self.note} if self.note else {}),
        }


class SourceInfo(TypedDict):
    """One indexed source, as :meth:`Docmentor.sources` lists it (and ``sources --json`` prints it)."""

    name: str
    kind: str
    target: str
    title: str | None
    version: str | None
    #: where ``version`` was read: "given", "pyproject.toml", "package.json", "setup.cfg", "Cargo.toml", "PKG-INFO",
    #: "llms.txt", "installed"; None: no version known
    version_origin: str | None
    library: str  # the library the source documents: its name without "@VERSION"
    documents: int
    sections: int
    stale_documents: int
    status: str
    error: str | None
    created_at: str
    refreshed_at: str | None
    options: dict[str, Any]
    units: int  # search units
    embedded: int  # of them, with a vector


class DocExcerpts(TypedDict):
    """The passages of one document that best match a query (:meth:`Docmentor.excerpt`)."""

    source: str
    path: str
    url: str
    title: str
    query: str
    #: each: heading, heading_path, line_start, line_end, text, score
    excerpts: list[dict[str, Any]]
    #: only when true: the last refresh could not update the document (its last good copy), and why
    stale: NotRequired[bool]
    error: NotRequired[str | None]
    #: only when known: the library version the document's source describes (as get's)
    source_version: NotRequired[str]


def source_info(r: SourceRow, units: int, embedded: int) -> SourceInfo:
    return {
        "name": r.name,
        "kind": r.kind,
        "target": r.target,
        "title": r.title,
        "version": r.version,
        "version_origin": r.version_origin,
        "library": r.name.partition("@")[0],
        "documents": r.documents,
        "sections": r.sections,
        "stale_documents": r.stale,
        "status": r.status,
        "error": r.error,
        "created_at": r.created_at,
        "refreshed_at": r.refreshed_at,
        "options": r.options,
        "units": units,
        "embedded": embedded,
    }
