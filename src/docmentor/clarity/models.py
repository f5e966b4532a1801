"""Data shared by the clarity checks, the scoring core and the reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from docmentor.models import ParsedDocument

Severity = Literal["critical", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "warning", "info")
DIMENSIONS: tuple[str, ...] = (
    "instruction_clarity",
    "logical_flow",
    "completeness",
    "consistency",
    "prerequisite_coverage",
)


@dataclass(frozen=True, slots=True)
class Issue:
    """One clarity problem found in a document (by a check or by the LLM detector)."""

    type: str  # e.g. "syntax_error", "broken_link", "undefined_name"
    severity: Severity
    dimensions: list[str]  # a subset of DIMENSIONS
    line: int  # 1-based line in the document (0 when it is about the whole page)
    section: str  # heading path joined with " > ", "" before the first heading
    message: str
    suggested_fix: str = ""
    context_quote: str = ""  # a short quote of the offending text
    check: str = ""  # the check that found it ("llm" for the model)
    counts_as: str | None = None  # "broken_links" | "missing_alt_text": counted there, not as an issue
    effort: Literal["low", "medium", "high"] = "medium"

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "severity": self.severity,
            "dimensions": list(self.dimensions),
            "line": self.line,
            "section": self.section,
            "message": self.message,
            "suggested_fix": self.suggested_fix,
            "context_quote": self.context_quote,
            "check": self.check,
            "counts_as": self.counts_as,
            "estimated_effort": self.effort,
        }


@dataclass(slots=True)
class CheckedDocument:
    """What the checks look at: the text, its parse, and where it lives."""

    path: str  # as shown to the user (relative to the scored folder, or the file path)
    text: str
    parsed: ParsedDocument
    file: Path | None = None  # the file on disk, when there is one
    root: Path | None = None  # the docs folder links are resolved in (None: no link checks on disk)
    known_files: frozenset[str] = frozenset()  # POSIX paths (relative to root) of files that exist
    anchors_of: Any = None  # callable(relative_path) -> set[str] of heading anchors in that file
    labels: Any = None  # callable() -> frozenset[str]: the cross-reference labels of every page, lowercased
    sphinx: bool = False  # the docs are a Sphinx project (a conf.py): links may name Python objects
    # served line i+1 of ``text`` comes from original line line_map[i] (includes expanded); None: identity
    line_map: list[int] | None = None


@dataclass(frozen=True, slots=True)
class ContentMetrics:
    """The formula's content inputs, measured on the document."""

    total_code_blocks: int = 0
    executable_examples: int = 0  # complete Python programs that parse and import what they use
    failed_examples: int = 0
    broken_links: int = 0
    missing_alt_text: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "total_code_blocks": self.total_code_blocks,
            "executable_examples": self.executable_examples,
            "failed_examples": self.failed_examples,
            "broken_links": self.broken_links,
            "missing_alt_text": self.missing_alt_text,
        }


@dataclass(slots=True)
class CheckResult:
    issues: list[Issue] = field(default_factory=list)
    metrics: ContentMetrics = field(default_factory=ContentMetrics)
