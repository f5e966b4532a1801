"""Hybrid ranking: the lexical score and the embeddings' cosine, blended per query.

Both are scaled by the query's best candidate, then mixed (``semantic_weight`` of the
cosine). A blend of scores keeps how far apart two candidates are; reciprocal-rank fusion
throws that away, and measured worse on the dev suite. A candidate without a vector (its
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
    alpha = config.semantic_weight
    if not known or alpha <= 0:
        return candidates
    scale = closeness_scale(max(known), config)
    only_meaning = {int(h.fields.get("section_id", 0)) for h in semantic_only}
    out: list[LexicalHit] = []
    for hit, cos in zip(candidates, cosines, strict=True):
        lex = hit.score / top_lexical
        closeness = None if cos is None else scale(cos)
        weak = closeness is None or closeness < config.semantic_only_min
        if int(hit.fields.get("section_id", 0)) in only_meaning and (
            weak or cos is None or cos < config.semantic_only_cosine
        ):
            continue
        score = lex if closeness is None else (1.0 - alpha) * lex + alpha * closeness
        out.append(LexicalHit(score=score, fields=hit.fields))
    out.sort(key=lambda h: -h.score)
    return out
