"""Finding APIs and examples for a task, in memory, with the engine's analyzer.

An API is indexed with BM25 over four fields: its names (short name, aliases and id,
split into parts by the code-aware analyzer), its signature, its docstring, and the text
of the documentation examples that use it (their titles, headings and code). Field
scores are added with weights, normalised per query, and re-ranked with the API's
importance: ``0.85 · relevance + 0.15 · importance``. The index is small (a few thousand
APIs), so it is rebuilt per process from the knowledge base and cached by generation.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docmentor.readme_llm.models import ApiEntry, Example
from docmentor.search.analyzer import analyze, analyze_query

FIELD_WEIGHTS = {"name": 2.0, "signature": 0.5, "doc": 1.5, "examples": 1.5}
IMPORTANCE_SHARE = 0.15
K1, B = 1.2, 0.75
_WORDS = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])")


@dataclass(slots=True)
class _Field:
    postings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)

    def add(self, terms: list[str]) -> None:
        i = len(self.lengths)
        for term, tf in Counter(terms).items():
            self.postings.setdefault(term, []).append((i, tf))
        self.lengths.append(len(terms))

    def scores(self, terms: Sequence[tuple[str, float]], n: int) -> dict[int, float]:
        avg = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        out: dict[int, float] = {}
        for term, weight in terms:
            posting = self.postings.get(term)
            if not posting:
                continue
            df = len(posting)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i, tf in posting:
                norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[i] / max(avg, 1e-9)))
                out[i] = out.get(i, 0.0) + weight * idf * norm
        return out


@dataclass(slots=True)
class ApiHit:
    entry: ApiEntry
    library: str
    relevance: float  # in [0, 1], normalised per query
    score: float  # after importance re-ranking

    def to_dict(self, rank: int) -> dict[str, Any]:
        e = self.entry
        return {
            "rank": rank,
            "api_id": e.api_id,
            "library": self.library,
            "signature": e.signature,
            "description": e.description,
            "relevance": round(self.relevance, 4),
            "importance": round(e.importance_score, 4),
            "score": round(self.score, 4),
            "aliases": list(e.aliases),
            "kind": e.kind,
            "parameters": [p.model_dump() for p in e.parameters],
            "returns": e.returns.model_dump() if e.returns else None,
            "examples": list(e.examples[:3]),
        }


def _name_terms(e: ApiEntry) -> list[str]:
    names = [e.name, e.api_id, *e.aliases]
    words = " ".join(" ".join(_WORDS.findall(n)) for n in names)
    return analyze(" ".join(names) + " " + words)


class ApiIndex:
    """BM25 over a library's APIs (several libraries may be indexed together)."""

    def __init__(self, libraries: dict[str, tuple[list[ApiEntry], list[Example]]]) -> None:
        self.entries: list[tuple[str, ApiEntry]] = []
        self.examples: dict[str, tuple[str, Example]] = {}
        self.fields = {name: _Field() for name in FIELD_WEIGHTS}
        for library, (entries, examples) in sorted(libraries.items()):
            by_id = {ex.example_id: ex for ex in examples}
            for ex in examples:
                self.examples[f"{library}:{ex.example_id}"] = (library, ex)
            for e in entries:
                linked = [by_id[x] for x in e.examples if x in by_id][:10]
                self.entries.append((library, e))
                self.fields["name"].add(_name_terms(e))
                self.fields["signature"].add(analyze(e.signature))
                self.fields["doc"].add(analyze(e.docstring or e.description))
                self.fields["examples"].add(
                    analyze(
                        " ".join(
                            f"{x.title} {' '.join(x.heading_path)} {x.context} {x.code[:2000]}"
                            for x in linked
                        )
                    )
                )

    def find(self, query: str, *, limit: int = 5, library: str | None = None) -> list[ApiHit]:
        """The APIs that best match a task description, best first."""
        terms = analyze_query(query)
        if not terms or not self.entries:
            return []
        n = len(self.entries)
        total: dict[int, float] = {}
        for name, weight in FIELD_WEIGHTS.items():
            for i, s in self.fields[name].scores(terms, n).items():
                total[i] = total.get(i, 0.0) + weight * s
        if library is not None:
            total = {i: s for i, s in total.items() if self.entries[i][0] == library}
        if not total:
            return []
        top = max(total.values()) or 1.0
        hits = []
        for i, s in total.items():
            lib, e = self.entries[i]
            rel = s / top
            hits.append(
                ApiHit(e, lib, rel, (1 - IMPORTANCE_SHARE) * rel + IMPORTANCE_SHARE * e.importance_score)
            )
        hits.sort(key=lambda h: (-h.score, h.entry.api_id))
        return hits[: max(1, min(limit, 50))]

    def examples_for(
        self,
        task: str,
        *,
        apis: Iterable[str] = (),
        complexity: str = "any",
        library: str | None = None,
        limit: int = 3,
    ) -> list[tuple[str, Example, float]]:
        """Examples for a task: those using the named APIs first, then by text match."""
        wanted = {a for a in apis if a}
        task_terms = {t for t, _ in analyze_query(task)}
        scored: list[tuple[float, str, Example]] = []
        for lib, ex in self.examples.values():
            if library is not None and lib != library:
                continue
            if complexity != "any" and ex.complexity != complexity:
                continue
            text_terms = set(analyze(f"{ex.title} {' '.join(ex.heading_path)} {ex.code}"))
            overlap = len(task_terms & text_terms) / max(len(task_terms), 1)
            uses = len(wanted & set(ex.apis_used)) + sum(
                1 for w in wanted for a in ex.apis_used if a.endswith("." + w.rsplit(".", 1)[-1])
            )
            # an example that failed validation is a last resort: it says how NOT to do it
            bonus = (0.3 if ex.validated else -2.5 if ex.validated is False else 0.0) + (
                0.1 if ex.complete else 0.0
            )
            score = 2.0 * min(uses, 3) + overlap + bonus
            if score > 0.15:
                scored.append((score, lib, ex))
        scored.sort(key=lambda t: (-t[0], len(t[2].code), t[2].example_id))
        return [(lib, ex, s) for s, lib, ex in scored[: max(1, min(limit, 20))]]
