"""Plain data passed between the pipeline stages (sources → parse → store → search)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

DocFormat = Literal["markdown", "rst", "text"]  # what parse reads a document as

SourceKind = Literal["folder", "llms_txt", "llms_full"]


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A registered source: a name and what it points at."""

    name: str
    kind: SourceKind
    target: str  # absolute folder path, URL, or absolute path of a local llms.txt
    options: dict[str, object] = field(default_factory=dict)


@dataclass(slots=True)
class RawDocument:
    """A document as a source produced it, before parsing.

    ``content`` is the text we serve: Markdown (or reST) with includes resolved.
    ``line_map[i]`` is the 1-based line in the original file that line ``i + 1`` of
    ``content`` came from (included lines map to their directive's line). ``None``
    means the identity map.
    """

    path: str  # relative to the folder added, or the URL's path
    url: str  # file:// URL or http(s) URL
    content: str
    fmt: DocFormat = "markdown"
    line_map: list[int] | None = None
    etag: str | None = None
    last_modified: str | None = None
    title_hint: str | None = None  # e.g. the link title from llms.txt
    warnings: list[str] = field(default_factory=list)
    searchable: bool = True  # False: kept for `get`, left out of search (an llms.txt's table of contents)
    updated_at: str | None = None  # ISO time of the last change: git commit, mtime or Last-Modified


@dataclass(frozen=True, slots=True)
class CodeBlock:
    language: str
    code: str
    line: int  # 1-based line of the opening fence in the original file


@dataclass(frozen=True, slots=True)
class Link:
    target: str
    anchor: str | None
    text: str
    line: int


@dataclass(slots=True)
class Section:
    heading: str  # "" for the text before the first heading
    heading_path: list[str]
    level: int  # 0 for the preamble
    line_start: int  # 1-based, inclusive, in the original file
    line_end: int
    text: str  # the section's own text (heading line included, subsections excluded)
    code_blocks: list[CodeBlock] = field(default_factory=list)
    anchor: str = ""


@dataclass(slots=True)
class ParsedDocument:
    title: str
    meta: dict[str, object]
    sections: list[Section]
    links: list[Link]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked section. Field names are those of ``docmentor search --json``'s results."""

    rank: int
    source: str
    path: str
    url: str
    title: str
    heading: str
    heading_path: list[str]
    line_start: int
    line_end: int
    score: float
    snippet: str
    indexed_at: str = ""
    source_version: str | None = None
    document_id: int = 0  # internal handles for the library (not in ``search --json``)
    section_id: int = 0
    text: str = ""  # the whole section text as the index stored it (not in ``search --json``)
    #: near-identical sections elsewhere (source, path, heading, line_start, line_end), collapsed here
    also: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "source": self.source,
            "path": self.path,
            "url": self.url,
            "title": self.title,
            "heading": self.heading,
            "heading_path": list(self.heading_path),
            "line_start": self.line_start,
            "line_end": self.line_end,
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "indexed_at": self.indexed_at,
            "source_version": self.source_version,
            "also": list(self.also),
        }
