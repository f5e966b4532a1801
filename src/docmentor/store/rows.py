"""The store's plain rows: a stored document, a source, a parsed document ready to be
written, and the converters from SQLite rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from docmentor.models import ParsedDocument, RawDocument, SourceOptions, SourceSpec
from docmentor.store.dbapi import Row


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class StoredDoc:
    id: int
    source: str
    path: str
    url: str
    title: str
    fmt: str
    content_hash: str
    etag: str | None
    last_modified: str | None
    fetched_at: str
    indexed_at: str
    stale: bool
    error: str | None
    served: str | None = None  # 'html' or 'text' for an llms.txt document (how its copy was served)


@dataclass(slots=True)
class DocChange:
    """A new or changed document, parsed, ready to be written."""

    raw: RawDocument
    parsed: ParsedDocument
    content_hash: str


@dataclass(frozen=True, slots=True)
class SourceRow:
    name: str
    kind: str
    target: str
    options: dict[str, Any]
    version: str | None
    title: str | None
    created_at: str
    refreshed_at: str | None
    status: str
    error: str | None
    generation: int
    lexical_generation: int
    documents: int
    sections: int
    stale: int
    version_origin: str | None = None  # where ``version`` was read (migration m012)

    @property
    def spec(self) -> SourceSpec:
        return SourceSpec(
            name=self.name,
            kind=self.kind,  # type: ignore[arg-type]
            target=self.target,
            options=SourceOptions.from_stored(self.options),
        )


def source_row(r: Row) -> SourceRow:
    return SourceRow(
        name=r["name"],
        kind=r["kind"],
        target=r["target"],
        options=json.loads(r["options"] or "{}"),
        version=r["version"],
        title=r["title"],
        created_at=r["created_at"],
        refreshed_at=r["refreshed_at"],
        status=r["status"],
        error=r["error"],
        generation=r["generation"],
        lexical_generation=r["lexical_generation"],
        documents=r["documents"],
        sections=r["sections"],
        stale=r["stale"],
        version_origin=r["version_origin"] if "version_origin" in r.keys() else None,  # noqa: SIM118
    )


def stored_doc(r: Row) -> StoredDoc:
    return StoredDoc(
        id=r["id"],
        source=r["source"],
        path=r["path"],
        url=r["url"],
        title=r["title"],
        fmt=r["fmt"],
        content_hash=r["content_hash"],
        etag=r["etag"],
        last_modified=r["last_modified"],
        fetched_at=r["fetched_at"],
        indexed_at=r["indexed_at"],
        stale=bool(r["stale"]),
        error=r["error"],
        served=r["served"],
    )
