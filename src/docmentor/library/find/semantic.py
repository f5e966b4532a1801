"""find_api's semantic ranking: the cosine of a task's embedding with each API's
description and docstring passages, and the worker thread the word rankings run in while
the query is embedded (:mod:`docmentor.library.find.retrieval`)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.find.fusion import Ranking, ranked

if TYPE_CHECKING:
    import numpy as np

    from docmentor.embeddings import LibraryVectors


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def worker() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="docmentor-embed")
        return _pool


def semantic_ranking(
    vectors: Mapping[str, tuple[LibraryVectors, np.ndarray]],
    vector: Any,
    library: str | None,
    floor: float | None = None,
    *,
    entries: int,
    several: bool,
    tiebreak: np.ndarray,
    config: ApiRankingConfig = DEFAULT,
) -> tuple[Ranking, float, float]:
    """Per API: the best of its description's cosine and ``passage_weight`` × its best
    passage's (of the best 2·depth descriptions and 4·depth passages at or above ``floor``,
    by default the config's ``semantic_floor``); the mean cosine of the ``closest`` texts
    nearest the task (how well the library matches it, whichever its APIs); and the cosine
    of the API description closest to it (-1: none)."""
    import numpy

    if floor is None:
        floor = config.semantic_floor
    depth, closest_n = config.depth, config.closest

    best = numpy.full(entries, -1.0)
    closest: list[float] = []
    closest_one = -1.0
    for lib, (lv, rows) in vectors.items():
        if library is not None and lib != library:
            continue
        values = lv.matrix @ vector
        if lv.primary:
            closest_one = max(closest_one, float(values[: lv.primary].max()))
        if values.size and several:  # only merging libraries asks
            k = min(closest_n, values.size)
            closest = sorted(
                [*closest, *numpy.partition(values, values.size - k)[values.size - k :].tolist()]
            )[-closest_n:]
        for part, weight, cut in (
            (slice(0, lv.primary), 1.0, 2 * depth),
            (slice(lv.primary, len(rows)), config.passage_weight, 4 * depth),
        ):
            sims = values[part] * weight if weight != 1.0 else values[part]
            owner = rows[part]
            if sims.size > cut:
                top = numpy.argpartition(sims, sims.size - cut)[sims.size - cut :]
                sims, owner = sims[top], owner[top]
            keep = (owner >= 0) & (sims >= floor)
            numpy.maximum.at(best, owner[keep], sims[keep])
    found = numpy.flatnonzero(best >= floor)
    nearness = float(numpy.mean(closest)) if closest else 0.0
    return ranked(found, best[found], tiebreak, depth), nearness, closest_one
