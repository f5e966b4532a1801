"""Hybrid ranking: the lexical score and the embeddings' cosine, blended per query.

Both are scaled by the query's best candidate, then mixed: the cosine's share is
``semantic_weight``, moved by ``semantic_flatness`` with how flat the lexical scores are
(:func:`semantic_share`). The unit nearest by meaning is kept in sight when the words of many
others outweigh it (:func:`_rescued`). A blend of scores keeps how far apart two candidates are;
reciprocal-rank fusion throws that away, and measured worse on the dev suite. A candidate without a vector (its
source is still being embedded) keeps its lexical score alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from docmentor.search.config import RankingConfig
from docmentor.search.lexical import LexicalHit
from docmentor.search.ranking import closeness_scale, fuse


def blend(
    lexical: Sequence[LexicalHit],
    semantic_only: Sequence[LexicalHit],
    cosine: Callable[[int], float | None],
    config: RankingConfig,
) -> list[LexicalHit]:
    """Every candidate (lexical hits, and units found only by meaning), best first."""
    candidates = fuse([*lexical, *semantic_only], doc_weight=config.doc_weight)
    if not candidates:
        return []
    top_lexical = max(h.score for h in candidates) or 1.0
    cosines = [cosine(int(h.fields.get("section_id", 0))) for h in candidates]
    known = [c for c in cosines if c is not None]
    if not known or config.semantic_weight <= 0:
        return candidates
    alpha = semantic_share([h.score / top_lexical for h in candidates], config)
    scale = closeness_scale(max(known), config)
    only_meaning = {int(h.fields.get("section_id", 0)) for h in semantic_only}
    out: list[tuple[LexicalHit, float | None]] = []  # each kept candidate, with its cosine
    for hit, cos in zip(candidates, cosines, strict=True):
        lex = hit.score / top_lexical
        closeness = None if cos is None else scale(cos)
        weak = closeness is None or closeness < config.semantic_only_min
        if int(hit.fields.get("section_id", 0)) in only_meaning and (
            weak or cos is None or cos < config.semantic_only_cosine
        ):
            continue
        score = lex if closeness is None else (1.0 - alpha) * lex + alpha * closeness
        out.append((LexicalHit(score=score, fields=hit.fields), cos))
    out.sort(key=lambda pair: -pair[0].score)
    return _rescued(out, config)


def _rescued(scored: list[tuple[LexicalHit, float | None]], config: RankingConfig) -> list[LexicalHit]:
    """The hits of ``scored`` (best first, each with its raw cosine), the unit nearest by
    meaning moved up to ``rescue_place`` when the blend put it past ``rescue_after`` and its
    raw cosine is at least ``semantic_only_cosine`` (a linear blend can bury the one page the
    model ranks first under sections that share the question's words). It takes the score of the unit it displaces, so a later stable sort
    keeps the order; that score is also the relevance a digest (``assemble``) reads."""
    ranked = [hit for hit, _ in scored]
    place = config.rescue_place
    known = [(cos, i) for i, (_, cos) in enumerate(scored) if cos is not None]
    if place <= 0 or len(ranked) <= max(place, config.rescue_after) or not known:
        return ranked
    best, at = max(known, key=lambda pair: (pair[0], -pair[1]))
    if at < max(config.rescue_after, place) or best < config.semantic_only_cosine:
        return ranked  # in sight already (never moved down), or near nothing
    hit = ranked.pop(at)
    ranked.insert(place - 1, LexicalHit(score=ranked[place - 1].score, fields=hit.fields))
    return ranked


def semantic_share(lexical: Sequence[float], config: RankingConfig) -> float:
    """The cosine's share in one query's blend, from its candidates' lexical scores (each
    relative to the best, any order).

    Flatness is the mean score of the candidates ranked 2nd to ``flatness_depth``th by words:
    near 1 when many sections match the question's words about as well as the best (the words
    do not tell them apart: meaning decides more), near 0 when one is far ahead (a rare word
    matched: the words keep their lead). A single candidate has nothing to tell apart.
    """
    ranked = sorted(lexical, reverse=True)[1 : max(config.flatness_depth, 2)]
    flatness = sum(ranked) / len(ranked) if ranked else 0.0
    share = config.semantic_weight + config.semantic_flatness * (flatness - 0.5)
    return min(max(share, 0.0), 1.0)
