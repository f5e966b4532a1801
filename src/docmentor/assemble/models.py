"""What context assembly passes between its steps: candidates, and its results — document
scores, distilled sections, the digest — as frozen values (built once, trimmed copies by
``dataclasses.replace``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(slots=True)
class Candidate:
    """A section considered for the digest."""

    section_id: int
    document_id: int
    source: str
    path: str
    url: str
    title: str
    heading: str
    heading_path: list[str]
    anchor: str
    line_start: int  # 1-based, inclusive, in the original file
    line_end: int
    text: str  # the section's stored text (its heading line first, when it has one)
    relevance: float  # in [0, 1], normalised per query (1.0 = the best search hit)
    origin: Literal["search", "crossref"] = "search"
    referenced_by: list[str] = field(default_factory=list)  # "path:line" of the links that led here
    depth: int = 0  # 0 for search hits, 1 or 2 for cross-references
    stale: bool = False  # the last refresh could not update its document (its last good copy)

    @property
    def key(self) -> tuple[int, int, int]:
        """Identity for de-duplication: (document, line range)."""
        return (self.document_id, self.line_start, self.line_end)


@dataclass(frozen=True, slots=True)
class DocumentScore:
    """Why a document ranks where it does: relevance, canonicality and its factors."""

    document_id: int
    source: str
    path: str
    url: str
    title: str
    relevance: float  # best candidate relevance of the document, in [0, 1]
    canonicality: float  # in [0, 1]
    combined: float  # 0.7 * relevance + 0.3 * canonicality
    status: str  # canonical | secondary | deprecated | draft | superseded | …
    updated_at: str | None  # ISO time of the last change, when known
    factors: dict[str, float] = field(default_factory=dict)  # each factor's contribution
    inlinks: int = 0
    sections_included: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "source": self.source,
            "url": self.url,
            "title": self.title,
            "score": round(self.combined, 4),
            "relevance": round(self.relevance, 4),
            "canonicality": round(self.canonicality, 4),
            "status": self.status,
            "updated_at": self.updated_at,
            "inlinks": self.inlinks,
            "factors": {k: round(v, 4) for k, v in self.factors.items()},
            "sections_included": self.sections_included,
        }


@dataclass(frozen=True, slots=True)
class DistilledSection:
    """A candidate as printed: maybe trimmed, with the lines actually included."""

    candidate: Candidate
    text: str
    line_start: int
    line_end: int
    trimmed: bool
    tokens: int  # tokens of the text as printed (its block in the digest, header lines included)

    def to_dict(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "path": c.path,
            "source": c.source,
            "heading": c.heading,
            "heading_path": list(c.heading_path),
            "line_start": self.line_start,
            "line_end": self.line_end,
            "section_line_start": c.line_start,
            "section_line_end": c.line_end,
            "relevance": round(c.relevance, 4),
            "origin": c.origin,
            "referenced_by": list(c.referenced_by),
            "trimmed": self.trimmed,
            **({"stale": True} if c.stale else {}),
            "tokens": self.tokens,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Digest:
    """The assembled context for one question."""

    query: str
    generated_at: str
    max_tokens: int
    encoding: str
    actual_tokens: int
    primary_areas: list[str]
    documents_scanned: int
    documents: list[DocumentScore]  # the top documents, best first (only those with sections included)
    sections: list[DistilledSection]
    stats: dict[str, Any]  # candidates, threshold, selected, expansions, tokens per section …
    markdown: str = ""  # the rendered markdown digest (what --format markdown prints)
    json_text: str = ""  # the JSON rendering of the same digest, when asked for (fmt="json")
    layout: Literal["full", "compact"] = "full"  # "compact" leaves out metadata and usage note (tiny budgets)

    @property
    def empty_reason(self) -> Literal["nothing_fit", "nothing_matched"] | None:
        """Why the digest holds no section: sections matched but none fit within the budget
        (``"nothing_fit"``), or nothing matched the question (``"nothing_matched"``); None
        when it holds sections."""
        if self.sections:
            return None
        return "nothing_fit" if self.stats.get("candidate_sections") else "nothing_matched"

    def to_dict(self) -> dict[str, Any]:
        """The digest as structured data: documents, sections, metadata (``render.render_json``).

        For a digest assembled with ``fmt="json"`` this is ``json_text`` parsed.
        """
        from docmentor.assemble.render import render_json

        return render_json(self)
