"""The catalog fields the plan's schema asks for besides the API itself.

``related_apis``
    "Other APIs often used together": the APIs that share the most examples with this one
    (ties: the more important), at most five.
``tags``
    The use-case tags of its examples (from their headings and page titles), most common
    first, at most five; an API without examples gets none (a guess would mislead).
``search_keywords``
    The words of its name (``iter_lines`` → ``iter``, ``lines``) and the content words of
    its docstring summary, in order, at most ten.

All three are deterministic and computed from what generation already knows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from docmentor.readme_llm.models import ApiEntry, Example

__all__ = ["enrich_entries"]

MAX_RELATED = 5
MAX_TAGS = 5
MAX_KEYWORDS = 10
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")
_STOP = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "for", "from", "has", "have", "if", "in",
        "into", "is", "it", "its", "of", "on", "or", "that", "the", "their", "then", "this", "to", "was",
        "were", "when", "which", "will", "with", "without", "you", "your", "return", "returns", "given",
        "new", "object", "instance", "value", "values", "default", "optional", "none", "true", "false",
        "use", "used", "using"
    ]
)


def _words(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text):
        w = w.lower()
        if len(w) >= 3 and w not in _STOP and w not in out:
            out.append(w)
    return out


def enrich_entries(entries: Sequence[ApiEntry], examples: Sequence[Example]) -> None:
    """Fill ``related_apis``, ``tags`` and ``search_keywords`` of every entry, in place."""
    by_id = {e.api_id: e for e in entries}
    together: dict[str, Counter[str]] = {}
    tags: dict[str, Counter[str]] = {}
    for ex in examples:
        used = [a for a in dict.fromkeys(ex.apis_used) if a in by_id]
        for a in used:
            together.setdefault(a, Counter()).update(b for b in used if b != a)
            tags.setdefault(a, Counter()).update(ex.tags)
    for e in entries:
        pals = together.get(e.api_id, Counter())
        e.related_apis = sorted(pals, key=lambda b: (-pals[b], -by_id[b].importance_score, b))[:MAX_RELATED]
        counts = tags.get(e.api_id, Counter())
        e.tags = sorted(counts, key=lambda t: (-counts[t], t))[:MAX_TAGS]
        e.search_keywords = _words(f"{e.name} {e.description}")[:MAX_KEYWORDS]
