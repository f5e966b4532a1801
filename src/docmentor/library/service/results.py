"""The library-knowledge answers as frozen, typed results.

What ``LibraryKnowledge`` answers: each one's ``to_dict()`` is the JSON ``docmentor api …
--json`` prints and the MCP tools return (keys in that order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docmentor.library.find.hits import ApiHit


@dataclass(frozen=True, slots=True)
class ApiMatch:
    """One API find_api found: what it is (names, signature, parameters, returns), how it
    ranked (``relevance`` in [0, 1] for this query, ``score`` the ranking key, ``signals``
    its rank in each ranking) and the ids of up to three examples using it."""

    rank: int
    api_id: str  # where it is defined
    library: str
    signature: str
    description: str
    relevance: float
    importance: float
    score: float
    signals: Mapping[str, int | None]
    aliases: tuple[str, ...]
    import_path: str  # the path users import it by
    variants: tuple[str, ...]  # its sync/async editions
    kind: str
    parameters: tuple[Mapping[str, Any], ...]
    returns: Mapping[str, Any] | None
    examples: tuple[str, ...]
    deprecated: str | None  # the library's reason, often the replacement
    #: an exception: where the library's code raises it, with what message (in the JSON only then)
    raised: tuple[str, ...] = ()

    @classmethod
    def of(cls, hit: ApiHit, rank: int) -> ApiMatch:
        """The answer for ``hit`` at ``rank`` (what :meth:`ApiHit.to_dict` shows of it)."""
        shown = hit.to_dict(rank)
        return cls(
            rank=rank,
            api_id=shown["api_id"],
            library=shown["library"],
            signature=shown["signature"],
            description=shown["description"],
            relevance=shown["relevance"],
            importance=shown["importance"],
            score=shown["score"],
            signals=shown["signals"],
            aliases=tuple(shown["aliases"]),
            import_path=shown["import_path"],
            variants=tuple(shown["variants"]),
            kind=shown["kind"],
            parameters=tuple(shown["parameters"]),
            returns=shown["returns"],
            examples=tuple(shown["examples"]),
            deprecated=shown["deprecated"],
            raised=tuple(shown.get("raised", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "api_id": self.api_id,
            "library": self.library,
            "signature": self.signature,
            "description": self.description,
            "relevance": self.relevance,
            "importance": self.importance,
            "score": self.score,
            "signals": dict(self.signals),
            "aliases": list(self.aliases),
            "import_path": self.import_path,
            "variants": list(self.variants),
            "kind": self.kind,
            "parameters": [dict(p) for p in self.parameters],
            "returns": dict(self.returns) if self.returns is not None else None,
            "examples": list(self.examples),
            "deprecated": self.deprecated,
            **({"raised": list(self.raised)} if self.raised else {}),
        }


@dataclass(frozen=True, slots=True)
class FoundApis:
    """find_api's answer: the APIs that do ``query``, best first; the library versions they
    describe (library → version, None when unknown) and warnings (the project pins another
    version; no API is close to the task)."""

    query: str
    results: tuple[ApiMatch, ...]
    versions: Mapping[str, str | None]
    warnings: tuple[str, ...]
    #: library → why that version's knowledge base answered ("asked", "pinned", "newest"),
    #: where several versions are registered or one was asked for (in the JSON only then)
    version_reasons: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "results": [r.to_dict() for r in self.results],
            "versions": dict(self.versions),
            "warnings": list(self.warnings),
            **({"version_reasons": dict(self.version_reasons)} if self.version_reasons else {}),
        }


@dataclass(frozen=True, slots=True)
class ExampleMatch:
    """One code example get_examples found: its code and what it uses; ``deprecated_apis``
    the deprecated APIs it calls (api_id → the library's reason), ``drift`` what the installed
    version does not support in it, ``source`` where it is (``path:line``)."""

    example_id: str
    library: str
    title: str
    code: str
    language: str
    apis_used: tuple[str, ...]
    complexity: str
    prerequisites: tuple[str, ...]
    validated: bool | None  # None: not run
    deprecated_apis: Mapping[str, str]
    drift: tuple[str, ...]
    source: str
    relevance: float
    origin: str = "docs"  # "docstring": from the API's own docstring (``source`` is its module)

    def to_dict(self) -> dict[str, Any]:
        return {
            "example_id": self.example_id,
            "library": self.library,
            "title": self.title,
            "code": self.code,
            "language": self.language,
            "apis_used": list(self.apis_used),
            "complexity": self.complexity,
            "prerequisites": list(self.prerequisites),
            "validated": self.validated,
            "deprecated_apis": dict(self.deprecated_apis),
            "drift": list(self.drift),
            "source": self.source,
            "relevance": self.relevance,
            "origin": self.origin,
        }


@dataclass(frozen=True, slots=True)
class FoundExamples:
    """get_examples's answer: the examples for ``task``, best first; the library versions they
    describe and warnings (the project pins another version; APIs named that do not exist)."""

    task: str
    examples: tuple[ExampleMatch, ...]
    versions: Mapping[str, str | None]
    warnings: tuple[str, ...]
    version_reasons: Mapping[str, str] = field(default_factory=dict)  # as FoundApis's

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "examples": [e.to_dict() for e in self.examples],
            "versions": dict(self.versions),
            "warnings": list(self.warnings),
            **({"version_reasons": dict(self.version_reasons)} if self.version_reasons else {}),
        }


@dataclass(frozen=True, slots=True)
class LibraryOverview:
    """The overview of ``library`` from its knowledge base: ``overview`` the text of the
    ``aspect`` asked for (every aspect, each under its own heading, for "all"), the library's
    description; the version it describes and warnings (the project pins another version)."""

    library: str
    aspect: str
    overview: str
    description: str | None
    versions: Mapping[str, str | None]
    warnings: tuple[str, ...]
    version_reasons: Mapping[str, str] = field(default_factory=dict)  # as FoundApis's

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "aspect": self.aspect,
            "overview": self.overview,
            "description": self.description,
            "versions": dict(self.versions),
            "warnings": list(self.warnings),
            **({"version_reasons": dict(self.version_reasons)} if self.version_reasons else {}),
        }


# -- feedback ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of a server process (its string arguments cut short), as a report's
    session context keeps it; ``at`` is its UTC time (ISO 8601, seconds)."""

    tool: str
    arguments: Mapping[str, Any]
    at: str

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "arguments": dict(self.arguments), "at": self.at}


@dataclass(frozen=True, slots=True)
class LoggedIssue:
    """report_issue's answer: the report as logged (``library`` the one it is about, inferred
    when not given; None when unclear), how many times it has been reported, and what to try now."""

    status: str  # "logged"
    issue_type: str
    query: str
    library: str | None
    times_reported: int
    suggestions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "issue_type": self.issue_type,
            "query": self.query,
            "library": self.library,
            "times_reported": self.times_reported,
            "suggestions": list(self.suggestions),
        }


@dataclass(frozen=True, slots=True)
class FeedbackSummary:
    """How many issues were reported (repeats counted), as how many distinct reports and
    queries, by issue type; the first and last report's times; the library they are about
    (None: several, or none)."""

    total_issues: int
    distinct_reports: int
    unique_queries: int
    by_type: Mapping[str, int]
    time_period: tuple[str, str] | None
    library: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_issues": self.total_issues,
            "distinct_reports": self.distinct_reports,
            "unique_queries": self.unique_queries,
            "by_type": dict(self.by_type),
            "time_period": list(self.time_period) if self.time_period is not None else None,
            "library": self.library,
        }


@dataclass(frozen=True, slots=True)
class FailingQuery:
    """A query agents got stuck on: how often, as which issue types, and what to fix."""

    query: str
    count: int
    issue_types: Mapping[str, int]
    recommendation: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "count": self.count,
            "issue_types": dict(self.issue_types),
            "recommendation": self.recommendation,
        }


@dataclass(frozen=True, slots=True)
class UnclearApi:
    """An API reported unclear or with a wrong signature, and how often."""

    api: str
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"api": self.api, "count": self.count}


@dataclass(frozen=True, slots=True)
class SearchQuality:
    """Reports whose session searched (find_api, get_examples, search_docs) and still ended
    stuck: how many, and their queries (up to 20)."""

    reports_after_a_search: int
    queries: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"reports_after_a_search": self.reports_after_a_search, "queries": list(self.queries)}


@dataclass(frozen=True, slots=True)
class FeedbackAnalysis:
    """The feedback report: summary, top failing queries (up to 10), missing examples,
    unclear APIs (up to 20), search quality and recommendations."""

    summary: FeedbackSummary
    top_failing_queries: tuple[FailingQuery, ...]
    missing_examples: tuple[str, ...]
    unclear_apis: tuple[UnclearApi, ...]
    search_quality: SearchQuality
    recommendations: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary.to_dict(),
            "top_failing_queries": [q.to_dict() for q in self.top_failing_queries],
            "missing_examples": list(self.missing_examples),
            "unclear_apis": [u.to_dict() for u in self.unclear_apis],
            "search_quality": self.search_quality.to_dict(),
            "recommendations": list(self.recommendations),
        }
