"""A task's verbs in the library's own words, for ``find_api``'s word rankings.

APIs are named with short verbs (``get``, ``send``, ``add``) and tasks are written with
others ("fetch a page", "dispatch a request", "append rows"). A word of the task that no
API name contains is looked up in WordNet 3.0's verbs: the other words of its first, most
frequent sense (``data/verb-synonyms.tsv``, built by ``scripts/build_verb_synonyms.py``;
words WordNet knows better as nouns are not in it, nor verbs of several senses whose first
is less than half of their sense-tagged uses: "call an endpoint" is no "name"). Those
synonyms that API names do contain join the query at ``synonym_weight`` (:mod:`.config`:
a word's weight; "fetch" → ``get``). Words the library uses
itself are never expanded, so a library that says "fetch" keeps it, and a synonym no API
name holds adds nothing.

Only plain words as written are looked up: not identifiers (``open_table``, ``base64``),
and not inflections. In a task the wanted action is the imperative's base form ("dispatch
a Request"), while participles describe the things involved ("a request I constructed",
"without dispatching it"); measured on the httpx, lancedb and pydantic-probe API sets, expanding
inflected forms too cost the first place it had won (httpx 0.667 / 0.800 / 0.744 →
0.600 / 0.800 / 0.711 over 10 results).
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from docmentor.search.analyzer import MAX_QUERY_TERMS, analyze, query_words
from docmentor.search.stopwords import QUESTION_NOISE

__all__ = ["Synonym", "synonyms", "verb_synonyms"]


@dataclass(frozen=True, slots=True)
class Synonym:
    word: str  # the task's word, lower-case
    synonym: str  # as WordNet writes it ("send")
    terms: tuple[str, ...]  # its analysed terms the query did not have yet


@cache
def verb_synonyms() -> dict[str, tuple[str, ...]]:
    """verb → the other words of its first WordNet sense (3,440 verbs, loaded once)."""
    text = (resources.files("docmentor") / "data" / "verb-synonyms.tsv").read_text(encoding="utf-8")
    table: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            verb, _, words = line.partition("\t")
            table[verb] = tuple(words.split())
    return table


@lru_cache(maxsize=4096)
def _candidates(word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each synonym of a (lower-case) word with its analysed terms, in the table's order."""
    return tuple((s, tuple(analyze(s))) for s in verb_synonyms().get(word, ()))


def synonyms(query: str, names: Container[str], present: Sequence[tuple[str, float]] = ()) -> list[Synonym]:
    """For each plain word of ``query`` that no API name holds, its synonyms that one does.

    Args:
        query: the task, as written.
        names: the analysed terms of the library's API names.
        present: the query's own terms (:func:`~docmentor.search.analyzer.analyze_query`);
            a synonym among them adds nothing, and with them at most ``MAX_QUERY_TERMS``.

    Returns:
        The synonyms, in the order of the task's words, then the table's.
    """
    own = {t for t, _ in present}
    room = MAX_QUERY_TERMS - len(present)
    out: list[Synonym] = []
    for token in dict.fromkeys(query_words(query)):
        word = token.lower()
        if not (word.isascii() and word.isalpha()) or word in QUESTION_NOISE:
            continue  # an identifier, a number, an accented word, a function word
        terms = analyze(word)
        if not terms or any(t in names for t in terms):
            continue  # a stop word, or a word the library uses itself
        for synonym, syn_terms in _candidates(word):
            new = [t for t in syn_terms if t not in own]
            if not syn_terms or not new or not all(t in names for t in syn_terms) or len(new) > room:
                continue
            out.append(Synonym(word, synonym, tuple(new)))
            own.update(new)
            room -= len(new)
    return out
