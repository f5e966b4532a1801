"""Reciprocal rank fusion of find_api's rankings, and a ranking's best entries
(:mod:`docmentor.library.find.retrieval`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from docmentor.library.find.config import DEFAULT, ApiRankingConfig

if TYPE_CHECKING:
    import numpy as np


Ranking = list[tuple[int, float]]  # (entry position, score in [0, 1] relative to the best), best first


def fuse(rankings: Mapping[str, Ranking], config: ApiRankingConfig = DEFAULT) -> dict[int, float]:
    """Each entry's ``Σ weight · score / (rrf_k + rank)`` over the rankings' best ``depth``
    (rank 1-based; ``weight``: the config's for that ranking, 1.0 for any other)."""
    k, depth = config.rrf_k, config.depth
    weights = {
        "lexical": config.lexical_fusion_weight,
        "sections": config.sections_fusion_weight,
        "semantic": config.semantic_fusion_weight,
    }
    fused: dict[int, float] = {}
    for name, ranking in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, (i, score) in enumerate(ranking[:depth]):
            fused[i] = fused.get(i, 0.0) + weight * score / (k + rank + 1)
    return fused


def ranked(
    positions: np.ndarray, scores: np.ndarray, tiebreak: np.ndarray, limit: int, *, relative: bool = True
) -> Ranking:
    """The best ``limit`` entries, best first, scores divided by the best (``relative``; else
    as given, already in [0, 1]); ties go to the more important API, then by id
    (``tiebreak``: each entry's place among all in that order)."""
    import numpy

    if not positions.size:
        return []
    order = numpy.lexsort((tiebreak[positions], -scores))[:limit]
    top = (float(scores[order[0]]) or 1.0) if relative else 1.0
    return list(zip(positions[order].tolist(), (scores[order] / top).tolist(), strict=True))
