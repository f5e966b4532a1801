"""How authoritative a document is: a canonicality score in [0, 1] and the reasons for it.

Path, file name and recency heuristics, with front matter status and link authority. Contributions
(each one is reported under its key in ``factors``):

``baseline``  0.5 for every document.
``path``      +0.2 under an ADR or architecture folder (``adr/``, ``adrs/``, ``decisions/``,
              ``architecture/``, ``architecture-decisions/`` …); +0.15 for an index:
              a folder named ``index`` (``docs/index/``) or the landing page of the source,
              i.e. ``index``/``README`` at the root or directly under ``docs/``, ``doc/``,
              ``documentation/`` (also ``docs/src/``, MkDocs' ``docs_dir``); +0.1 under
              ``runbooks/`` or ``playbooks/``, +0.05 under ``guides/``, ``how-to/``,
              ``tutorials/``; −0.3 once when a folder or file-name word is ``scratch``,
              ``archive(d)``, ``old``, ``deprecated``, ``draft(s)``, ``obsolete``, ``outdated``,
              ``tmp`` or ``wip``. These add up.
``filename``  +0.1 when the file name has the word README, INDEX, GUIDE, RUNBOOK or PLAN
              (a trailing ``s`` allowed), or an ADR number (``ADR-0013``, ``adr001``),
              case-insensitive, words split at ``-``, ``_``, ``.``, spaces and case changes
              do not count (``NEW_SERVICE_GUIDE`` matches, ``guidelines`` does not).
``recency``   +0.1 when changed less than 90 days before ``now``, −0.1 when more than
              365 days, 0 in between or when unknown.
``status``    front matter ``status:`` canonical +0.2, deprecated −0.3, superseded −0.3,
              draft −0.2, anything else 0. ``deprecated: true``, ``draft: true`` and a
              ``superseded_by:`` key count as those statuses when ``status`` does not say.
``links``     +0.15 × link authority (see :mod:`docmentor.assemble.links`).

The score is the clamped sum. The reported status is the front matter's (its first
word, lower-cased: ``accepted``, ``deprecated`` …) when it has one, else ``canonical`` for
a score ≥ 0.7 and ``secondary`` below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = ["CANONICAL_AT", "FACTOR_KEYS", "CanonicalScore", "canonicality", "front_matter_status"]

CANONICAL_AT = 0.7  # default status "canonical" from this score on, "secondary" below
FACTOR_KEYS = ("baseline", "path", "filename", "recency", "status", "links")

BASELINE = 0.5
AUTHORITATIVE_DIR = 0.2
INDEX = 0.15
RUNBOOK_DIR = 0.1
GUIDE_DIR = 0.05
STALE_PATH = -0.3
NAME = 0.1
RECENT, RECENT_DAYS = 0.1, 90
OLD, OLD_DAYS = -0.1, 365
LINK_WEIGHT = 0.15
STATUS_WEIGHTS = {"canonical": 0.2, "deprecated": -0.3, "superseded": -0.3, "draft": -0.2}

_AUTHORITATIVE = frozenset(
    {
        "adr",
        "adrs",
        "decisions",
        "decision-records",
        "architecture",
        "architecture-decisions",
        "architecture-decision-records",
    }
)
_RUNBOOKS = frozenset({"runbook", "runbooks", "playbook", "playbooks"})
_GUIDES = frozenset({"guide", "guides", "how-to", "howto", "how-tos", "tutorial", "tutorials"})
_STALE = frozenset(
    {
        "scratch",
        "archive",
        "archived",
        "old",
        "deprecated",
        "draft",
        "drafts",
        "obsolete",
        "outdated",
        "tmp",
        "wip",
    }
)
_DOCS_ROOTS = ("docs", "doc", "documentation", "src")  # what may come before a landing page
_WORD = re.compile(r"[^a-z0-9]+")
_NAME = re.compile(
    r"(?<![a-z0-9])(?:(?:readme|index|guide|runbook|plan)s?|adr[-_ ]?\d+)(?![a-z0-9])", re.IGNORECASE
)
_DOC_SUFFIX = re.compile(r"\.(md|mdx|markdown|rst|txt|html?)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class CanonicalScore:
    """A document's canonicality, its status and each factor's contribution."""

    score: float
    status: str
    factors: dict[str, float] = field(default_factory=dict)


def canonicality(
    *,
    path: str,
    title: str,
    meta: dict[str, Any],
    updated_at: str | None,
    authority: float,
    now: datetime,
) -> CanonicalScore:
    """Score how authoritative a document is, in [0, 1], from its path, name, age, front matter and in-links.

    Args:
        path: the document's path in its source (a URL path for llms.txt sources).
        title: its title (not scored today; kept so callers need not change when it is).
        meta: its front matter.
        updated_at: ISO time of its last change, or ``None`` when unknown.
        authority: link authority in [0, 1] (:meth:`LinkGraph.authority`).
        now: the reference time for recency.
    """
    del title
    folders, name = _split(path)
    declared = front_matter_status(meta)
    factors = {
        "baseline": BASELINE,
        "path": _path_factor(folders, name),
        "filename": NAME if _NAME.search(name) else 0.0,
        "recency": _recency(updated_at, now),
        "status": STATUS_WEIGHTS.get(declared or "", 0.0),
        "links": LINK_WEIGHT * min(max(authority, 0.0), 1.0),
    }
    factors = {k: round(v, 6) for k, v in factors.items()}
    score = round(min(max(sum(factors.values()), 0.0), 1.0), 6)
    status = declared or ("canonical" if score >= CANONICAL_AT else "secondary")
    return CanonicalScore(score=score, status=status, factors=factors)


def front_matter_status(meta: dict[str, Any]) -> str | None:
    """The status a document declares: ``status:`` (first word, lower-case), else the flags."""
    raw = meta.get("status")
    if isinstance(raw, str | int | float) and not isinstance(raw, bool) and str(raw).strip():
        word = _WORD.split(str(raw).strip().lower(), maxsplit=1)
        first = word[0] or (word[1] if len(word) > 1 else "")
        if first:
            return first[:32]
    if _truthy(meta.get("deprecated")):
        return "deprecated"
    if meta.get("superseded_by") or meta.get("superseded-by") or meta.get("supersededBy"):
        return "superseded"
    if _truthy(meta.get("draft")):
        return "draft"
    return None


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "on")
    return value is True or (isinstance(value, int) and value == 1)


def _split(path: str) -> tuple[list[str], str]:
    """Lower-cased folders and file name (without a doc suffix) of a path or URL path."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if not parts:
        return [], ""
    return [p.lower() for p in parts[:-1]], _DOC_SUFFIX.sub("", parts[-1])


def _path_factor(folders: list[str], name: str) -> float:
    value = 0.0
    if any(f in _AUTHORITATIVE or f.startswith("architecture") for f in folders):
        value += AUTHORITATIVE_DIR
    lname = name.lower()
    rest = list(folders)
    while rest and rest[0] in _DOCS_ROOTS:
        rest.pop(0)
    if "index" in folders or (lname in ("index", "readme") and not rest):
        value += INDEX
    if any(f in _RUNBOOKS for f in folders):
        value += RUNBOOK_DIR
    elif any(f in _GUIDES for f in folders):
        value += GUIDE_DIR
    words = {w for f in folders for w in _WORD.split(f)} | set(_WORD.split(lname))
    if words & _STALE:
        value += STALE_PATH
    return value


def _recency(updated_at: str | None, now: datetime) -> float:
    if not updated_at:
        return 0.0
    try:
        when = datetime.fromisoformat(updated_at.strip().replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    days = (now - when).total_seconds() / 86400
    if days < RECENT_DAYS:
        return RECENT
    if days > OLD_DAYS:
        return OLD
    return 0.0
