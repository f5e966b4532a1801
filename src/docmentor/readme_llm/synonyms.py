"""A task's verbs in the library's own words, for ``find_api``'s lexical ranking.

APIs are named with short verbs (``get``, ``send``, ``add``) and tasks are written with
others ("fetch a page", "dispatch a request", "append rows"). A word of the task that no
API name contains is looked up in WordNet 3.0's verbs: the other words of its first, most
frequent sense (``data/verb-synonyms.tsv``, built by ``scripts/build_verb_synonyms.py``).
Those synonyms that API names do contain join the query at a word's weight ("fetch" →
``get``). Words the library uses itself are never expanded, so a library that says
"fetch" keeps it, and a synonym no API name holds adds nothing.

Only a word as written is looked up, not its inflections: in a task the wanted action is
the imperative's base form ("dispatch a Request"), while participles describe the things
involved ("a request I constructed", "without dispatching it"). Measured on the three API
sets (BENCHMARKS.md), expanding inflected forms too cost the first place it had won.
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence
from functools import cache, lru_cache
from importlib import resources

from docmentor.search.analyzer import QUESTION_NOISE, analyze

__all__ = ["SYNONYM_WEIGHT", "synonym_terms", "verb_synonyms"]

SYNONYM_WEIGHT = 1.0  # a synonym stands for the word the library does not use: a word's weight
_WORD = re.compile(r"[A-Za-z]+")


@cache
def verb_synonyms() -> dict[str, tuple[str, ...]]:
    """verb → the other words of its first WordNet sense (5,545 verbs, loaded once)."""
    text = (resources.files("docmentor") / "data" / "verb-synonyms.tsv").read_text(encoding="utf-8")
    table: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            verb, _, words = line.partition("\t")
            table[verb] = tuple(words.split())
    return table


@lru_cache(maxsize=4096)
def _candidates(word: str) -> tuple[tuple[str, ...], ...]:
    """The analysed terms of each synonym of a (lower-case) word, in the table's order."""
    return tuple(tuple(analyze(s)) for s in verb_synonyms().get(word, ()))


def synonym_terms(
    query: str, names: Container[str], present: Sequence[tuple[str, float]] = ()
) -> dict[str, list[str]]:
    """For each word of ``query`` that no API name holds, its synonyms that one does.

    Args:
        query: the task, as written.
        names: the analysed terms of the library's API names.
        present: the query's own terms; a synonym among them adds nothing.

    Returns:
        word → the analysed terms of its synonyms (in the table's order), for the words
        that have any.
    """
    own = {t for t, _ in present}
    out: dict[str, list[str]] = {}
    for word in dict.fromkeys(w.lower() for w in _WORD.findall(query)):
        if word in QUESTION_NOISE:
            continue
        terms = analyze(word)
        if not terms or any(t in names for t in terms):
            continue  # a function word, or a word the library uses itself
        found = [
            t
            for synonym in _candidates(word)
            if synonym and all(t in names for t in synonym)
            for t in synonym
            if t not in own
        ]
        if found:
            out[word] = list(dict.fromkeys(found))
            own.update(found)
    return out
