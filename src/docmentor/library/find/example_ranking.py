"""get_examples' ranking: the examples that use the named APIs, then those of the APIs
find_api ranks for the task, then by how well their text matches it
(:mod:`docmentor.library.find.retrieval`); an example that shows only APIs users do not call
(internals, instance attributes: :mod:`docmentor.library.find.roles`) gets no
``own_api_bonus``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from docmentor.library.models import Example
from docmentor.search.analyzer import analyze_query
from docmentor.search.ranking import history_page

if TYPE_CHECKING:
    from docmentor.library.find.retrieval import ApiIndex


def examples_for(
    index: ApiIndex,
    task: str,
    *,
    apis: Iterable[str] = (),
    complexity: str = "any",
    library: str | None = None,
    limit: int = 3,
) -> list[tuple[str, Example, float]]:
    """Examples for a task: those using the named APIs first, then those of the APIs that
    find_api ranks for the task, then by how well their text matches it; every weight is
    ``index.config``'s (:class:`~docmentor.library.find.config.ApiRankingConfig`)."""
    import numpy

    c = index.config

    asked = list(dict.fromkeys(a.strip() for a in apis if a.strip()))
    # examples asked for by their id (find_api lists the ids of an API's examples): first, as asked
    pinned = index.examples_named(asked, library)
    # each API asked about → the api_ids it names (an alias's short name included)
    wanted = [index.named(a, library) or frozenset({a}) for a in asked if not index.is_example_id(a, library)]
    # the task's match with each example: BM25 over its title, headings, prose and code,
    # plus over its title and headings alone ("Add data to a table" says what it does),
    # relative to the best example's
    terms = analyze_query(task)
    match = numpy.zeros(len(index.example_apis))
    index.example_field.add_scores(terms, match, 1.0, library)
    index.example_heads.add_scores(terms, match, c.heading_weight, library)
    # the docstrings' examples: their own fields (each example is in one of the two)
    index.docstring_field.add_scores(terms, match, 1.0, library)
    index.docstring_heads.add_scores(terms, match, c.heading_weight, library)
    candidates = [
        (key, lib, ex)
        for key, (lib, ex) in index.examples.items()
        if (library is None or lib == library) and (complexity == "any" or ex.complexity == complexity)
    ]
    best = max((match[index.example_position[key]] for key, _, _ in candidates), default=0.0)
    # the APIs that do the task (find_api's best three): their examples are the answer
    implied = (
        {
            (h.library, h.entry.api_id): h.relevance
            for h in index.find(task, limit=c.implied_apis, library=library)
        }
        if task.strip()
        else {}
    )
    scored: list[tuple[float, str, Example]] = []
    for key, lib, ex in candidates:
        # relative to the best of the examples asked about (this library, this complexity)
        overlap = float(match[index.example_position[key]] / best) if best > 0 else 0.0
        used = set(ex.apis_used)
        uses = sum(1 for ids in wanted if ids & used)
        # an example that failed validation is a last resort: it says how NOT to do it;
        # one that uses a deprecated API comes after those that do the same without
        bonus = (
            c.validated_bonus if ex.validated else -c.failed_penalty if ex.validated is False else 0.0
        ) + (c.complete_bonus if ex.complete else 0.0)
        if index.deprecated_in(lib, ex):
            bonus -= c.deprecated_penalty
        if ex.drift:  # calls the installed version does not have or accept
            bonus -= c.drift_penalty
        if history_page(ex.path):  # release notes: how it was, or how it changed
            bonus -= c.history_penalty
        # one that shows the library's own API users call (not only its internals: a helper,
        # a constant, a marker, an instance attribute), in the language it was read from,
        # first (a TypeScript reference snippet is no answer for a Python library)
        if any(index.users_call(lib, a) for a in ex.apis_used):
            bonus += c.own_api_bonus
        if ex.language == index.api_language.get(lib, ex.language):
            bonus += c.language_bonus
        shows = max((implied.get((lib, a), 0.0) for a in ex.apis_used), default=0.0)
        if not (uses or shows or overlap):
            continue  # nothing ties it to the task: its bonuses alone do not make it an answer
        score = c.named_weight * min(uses, c.max_named) + c.implied_weight * shows + overlap + bonus
        if score > c.min_example_score:
            scored.append((score, lib, ex))
    scored.sort(key=lambda t: (-t[0], len(t[2].code), t[2].example_id))
    # one code block the docs show on two pages (python-dateutil's examples.rst repeats its
    # reference pages' blocks) is one answer: the best-placed copy
    shown: set[tuple[str, str]] = set()
    out: list[tuple[str, Example, float]] = []
    first = [(1.0 + max((sc for sc, _, _ in scored), default=0.0), lib, ex) for lib, ex in pinned]
    keys = {(lib, ex.example_id) for lib, ex in pinned}
    for s, lib, ex in [*first, *(t for t in scored if (t[1], t[2].example_id) not in keys)]:
        code = (lib, " ".join(ex.code.split()))
        if code in shown:
            continue
        shown.add(code)
        out.append((lib, ex, s))
        if len(out) >= max(1, min(limit, 20)):
            break
    return out
