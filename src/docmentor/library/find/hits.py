"""A find_api result: the API found, its score and rank in each ranking, and what an
answer shows of it (:mod:`docmentor.library.find.retrieval`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docmentor.library.find.import_paths import import_path
from docmentor.library.models import ApiEntry
from docmentor.library.surface.docstrings import display, field_text, readable_summary
from docmentor.library.surface.raise_sites import SHOWN_SITES


@dataclass(slots=True)
class ApiHit:
    entry: ApiEntry
    library: str
    relevance: float  # in [0, 1], normalised per query
    score: float  # the ranking key
    signals: dict[str, int | None] = field(default_factory=dict)  # rank in each ranking (1-based)
    details: dict[str, Any] | None = None  # the entry's parameters and returns, dumped once per index
    variants: list[str] = field(default_factory=list)  # its sync/async editions (:mod:`.twins`)

    def to_dict(self, rank: int) -> dict[str, Any]:
        e = self.entry
        details = self.details if self.details is not None else api_details(e)
        path = import_path(e.api_id, e.aliases, e.bound_names)
        return {
            "rank": rank,
            "api_id": e.api_id,
            "library": self.library,
            "signature": called_signature(e, path),
            "description": details["description"],
            "relevance": round(self.relevance, 4),
            "importance": round(e.importance_score, 4),
            "score": round(self.score, 4),
            "signals": dict(self.signals),
            "aliases": list(e.aliases),
            "import_path": path,
            "variants": list(self.variants),
            "kind": e.kind,
            "parameters": [dict(p) for p in details["parameters"]],
            "returns": dict(details["returns"]) if details["returns"] else None,
            "examples": list(e.examples[:3]),
            "deprecated": details["deprecated"],
            # an exception: where the library's code raises it, with what message
            **({"raised": e.raised.splitlines()[:SHOWN_SITES]} if e.raised else {}),
        }


def called_signature(e: ApiEntry, path: str) -> str:
    """The signature under the name users call it by: a function defined as
    ``to_thread_run_sync`` and exported only as ``trio.to_thread.run_sync`` shows
    ``run_sync(…)``, so that an agent never calls the private name. A signature that does not
    start with the defined name (another language's declaration) is left as it is."""
    called = path.rsplit(".", 1)[-1]
    if called == e.name or not called.isidentifier():
        return e.signature
    prefix = "async " if e.signature.startswith("async ") else ""
    rest = e.signature[len(prefix) :]
    if rest.startswith((e.name + "(", e.name + "[")):
        return prefix + called + rest[len(e.name) :]
    return e.signature


def api_details(e: ApiEntry) -> dict[str, Any]:
    """What an answer shows of an API beyond its names, the texts as a reader sees them
    (worked out once per API: an index keeps them)."""
    returns = e.returns.model_dump() if e.returns else None
    if returns is not None:
        returns["description"] = field_text(returns["description"])
    return {
        "description": readable_summary(e.description),
        "deprecated": display(e.deprecated) if e.deprecated else None,
        "parameters": [{**p.model_dump(), "description": field_text(p.description)} for p in e.parameters],
        "returns": returns,
    }
