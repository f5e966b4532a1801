"""The clarity trend: each document's scores over earlier runs (the ``--history`` file that
``report.append_history`` writes), and how a run moved against the one before."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from docmentor.clarity.report import append_history, read_history

MOST_CHANGED = 3  # documents named in a trend summary


@dataclass(frozen=True, slots=True)
class ScoreChange:
    path: str
    before: float
    after: float


@dataclass(frozen=True, slots=True)
class TrendSummary:
    """The documents scored in an earlier run too: their average score then and now, and
    the ones whose score moved most (largest change first; unchanged ones left out)."""

    compared: int
    before: float
    after: float
    most_changed: tuple[ScoreChange, ...]

    @property
    def change(self) -> float:
        return self.after - self.before


def trend(earlier: Iterable[Mapping[str, Any]], *, date: str, score: float) -> list[dict[str, Any]]:
    """A document's trend: its earlier runs (``date``, ``score``, ``commit``), oldest first,
    then this run's point (``date``, ``score``). An earlier line without a numeric score
    (hand-edited, another tool's) is not a point of the trend."""
    past = [
        {"date": e.get("date"), "score": e.get("score"), "commit": e.get("commit")}
        for e in earlier
        if isinstance(e.get("score"), int | float) and not isinstance(e.get("score"), bool)
    ]
    return [*past, {"date": date, "score": score}]


def record_history(result: dict[str, Any], path: Path, *, commit: str | None) -> None:
    """Give every document of a clarity ``result`` its ``trend`` from the history file at
    ``path`` (missing: no earlier runs), then append this run's lines to it."""
    earlier = read_history(path)
    by_url: dict[str, list[dict[str, Any]]] = {}
    for entries in earlier.values():
        for entry in entries:
            if isinstance(entry.get("url"), str):
                by_url.setdefault(entry["url"], []).append(entry)
    for entries in by_url.values():  # one file scored from a folder and alone: in date order
        entries.sort(key=lambda e: str(e.get("date") or ""))
    for doc in result["documents"]:
        # the document itself (its file or URL), not the path shown: `api.rst` of two scored
        # folders is two documents, and a page scored alone or in its folder is one
        url = doc.get("url")
        past = by_url.get(url, []) if isinstance(url, str) and url else []
        if not past:  # lines written before the history recorded URLs: by the path shown
            past = [e for e in earlier.get(doc["path"], []) if not e.get("url")]
        doc["trend"] = trend(past, date=result["generated_at"], score=doc["clarity_score"]["overall_score"])
    # the lines' date is the report's (a second stamped apart from it could differ under load)
    generated = str(result.get("generated_at") or "")
    try:
        now = datetime.fromisoformat(generated.replace("Z", "+00:00")) if generated else None
    except ValueError:
        now = None
    append_history(path, result["documents"], commit=commit, now=now)


def trend_summary(
    documents: Sequence[Mapping[str, Any]], *, most_changed: int = MOST_CHANGED
) -> TrendSummary | None:
    """How this run moved against each document's previous one (documents with a ``trend``
    of two points or more); None when no document was scored before."""
    compared = [d for d in documents if len(d.get("trend") or []) >= 2]
    if not compared:
        return None
    pairs = [
        (str(d["path"]), float(d["trend"][-2]["score"]), float(d["trend"][-1]["score"])) for d in compared
    ]
    moved = sorted(pairs, key=lambda p: -abs(p[2] - p[1]))
    return TrendSummary(
        compared=len(pairs),
        before=sum(p[1] for p in pairs) / len(pairs),
        after=sum(p[2] for p in pairs) / len(pairs),
        most_changed=tuple(ScoreChange(path, b, a) for path, b, a in moved[:most_changed] if a != b),
    )
