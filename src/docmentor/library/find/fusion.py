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
    """Each entry's ``Σ score / (rrf_k + rank)`` over the rankings' best ``depth`` (rank 1-based)."""
    k, depth = config.rrf_k, config.depth
    fused: dict[int, float] = {}
    for ranking in rankings.values():
        for rank, (i, score) in enumerate(ranking[:depth]):
            fused[i] = fused.get(i, 0.0) + score / (k + rank + 1)
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
