"""The library-knowledge answers as frozen, typed results.

What ``LibraryKnowledge`` answers: each one's ``to_dict()`` is the JSON ``docmentor api …
--json`` prints and the MCP tools return (keys in that order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "results": [r.to_dict() for r in self.results],
            "versions": dict(self.versions),
            "warnings": list(self.warnings),
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
        }


@dataclass(frozen=True, slots=True)
class FoundExamples:
    """get_examples's answer: the examples for ``task``, best first; the library versions they
    describe and warnings (the project pins another version; APIs named that do not exist)."""

    task: str
    examples: tuple[ExampleMatch, ...]
    versions: Mapping[str, str | None]
    warnings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "examples": [e.to_dict() for e in self.examples],
            "versions": dict(self.versions),
            "warnings": list(self.warnings),
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "aspect": self.aspect,
            "overview": self.overview,
            "description": self.description,
            "versions": dict(self.versions),
            "warnings": list(self.warnings),
        }
