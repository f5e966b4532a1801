"""The clarity rubric: score tiers, penalty weights, and rubric files that override them.

The defaults are ``SCORING_RUBRIC`` and ``WEIGHTS`` below. A rubric file (TOML)
may replace weights and/or the whole tier table::

    api_accuracy_threshold = 0.7      # optional; API accuracy below this costs low_api_accuracy_penalty

    [weights]                         # any subset of WEIGHTS' keys
    critical_issue = 3.0
    warning_issue = 1.0

    [tiers."10.0"]                    # when present, [tiers] replaces the whole table
    range = [10.0, 10.0]
    grade = "A+"
    description = "Perfect"
    criteria = { critical_issues = 0, warning_issues = 0, max_info_issues = 2 }
    characteristics = ["..."]
    # ... more tiers: together they must cover 0.0-10.0 in steps of 0.1, without overlap

Scores from different rubrics are not comparable, so every result carries
``scoring_version`` and ``rubric_hash`` (the first 12 hex digits of the SHA-256 of the
canonical JSON of the weights, the tiers and the API accuracy threshold).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from docmentor.errors import UsageError

SCORING_VERSION = "clarity-1"
"""Changes whenever the formula (not the rubric) changes."""

STARTING_SCORE = 10.0
MIN_SCORE = 0.0
MAX_SCORE = 10.0
DEFAULT_API_ACCURACY_THRESHOLD = 0.7

SCORING_RUBRIC: dict[str, dict[str, Any]] = {
    "10.0": {
        "range": (10.0, 10.0),
        "grade": "A+",
        "description": "Perfect - Production Ready",
        "criteria": {"critical_issues": 0, "warning_issues": 0, "max_info_issues": 2},
        "characteristics": [
            "Complete working examples for all features",
            "Prerequisites clearly stated upfront",
            "Logical flow with no gaps",
            "Consistent terminology throughout",
            "All links and images validated",
        ],
    },
    "8.0-9.9": {
        "range": (8.0, 9.9),
        "grade": "A",
        "description": "Excellent - Minor Polish Needed",
        "criteria": {"critical_issues": 0, "max_warning_issues": 3},
        "characteristics": [
            "Core workflows clearly explained",
            "Examples are complete and executable",
            "Minor improvements needed (better navigation, edge cases)",
            "No blocking issues for users",
        ],
    },
    "6.0-7.9": {
        "range": (6.0, 7.9),
        "grade": "B",
        "description": "Good - Clear Improvements Needed",
        "criteria": {"max_critical_issues": 1, "max_warning_issues": 7},
        "characteristics": [
            "Basic workflows explained but gaps exist",
            "Some examples incomplete or unclear",
            "Users can follow with effort",
            "Noticeable room for improvement",
        ],
    },
    "4.0-5.9": {
        "range": (4.0, 5.9),
        "grade": "C",
        "description": "Acceptable - Multiple Issues",
        "criteria": {"max_critical_issues": 3, "min_warning_issues": 5},
        "characteristics": [
            "Significant gaps in flow or prerequisites",
            "Missing critical examples or context",
            "Users struggle without external help",
            "Requires substantial revision",
        ],
    },
    "2.0-3.9": {
        "range": (2.0, 3.9),
        "grade": "D",
        "description": "Poor - Blocks Understanding",
        "criteria": {"min_critical_issues": 4, "min_warning_issues": 8},
        "characteristics": [
            "Major workflow gaps or broken examples",
            "Missing prerequisites block progress",
            "Users cannot complete tasks",
            "Needs major rewrite",
        ],
    },
    "0.0-1.9": {
        "range": (0.0, 1.9),
        "grade": "F",
        "description": "Unusable - Cannot Be Followed",
        "criteria": {"min_critical_issues": 10},
        "characteristics": [
            "Entirely broken or stub content",
            "No working examples",
            "Unusable even for experts",
            "Complete rewrite required",
        ],
    },
}

WEIGHTS: dict[str, float] = {
    # Issue penalties
    "critical_issue": 2.0,
    "warning_issue": 0.5,
    "info_issue": 0.1,
    # Code quality penalties
    "failed_example": 1.0,
    "no_code_blocks_penalty": 2.0,
    "no_successful_examples": 1.5,
    # API accuracy penalties
    "invalid_api_signature": 0.8,
    "missing_api": 1.2,
    "low_api_accuracy_penalty": 2.0,  # when api_accuracy_score < api_accuracy_threshold
    # Technical accessibility penalties
    "broken_link": 0.3,
    "missing_alt_text": 0.1,
}

_COUNTED = ("critical_issues", "warning_issues", "info_issues")
CRITERIA_KEYS: frozenset[str] = frozenset(p + k for p in ("", "max_", "min_") for k in _COUNTED)
_TIER_FIELDS = frozenset({"range", "grade", "description", "criteria", "characteristics"})
_TOP_KEYS = ("weights", "tiers", "api_accuracy_threshold")
_TENTH = Decimal("0.1")


# -- exact decimal arithmetic, shared by scoring, roadmap and explain ---------------------


def dec(value: float | int | Decimal) -> Decimal:
    """The decimal a human reads for ``value`` (``0.1`` is exactly one tenth)."""
    return value if isinstance(value, Decimal) else Decimal(str(value))


def round1(value: Decimal) -> float:
    """Round half up to one decimal, as a float (no ``-0.0``)."""
    out = float(value.quantize(_TENTH, rounding=ROUND_HALF_UP))
    return out + 0.0 if out else 0.0


def fmt(value: float | int | Decimal) -> str:
    """A number as shown in formulas: at least one decimal, no float noise (``2.0``, ``0.25``)."""
    d = dec(value)
    if d == d.to_integral_value():
        return f"{d:.1f}"
    return format(d.normalize(), "f")


def tier_label(lo: float, hi: float) -> str:
    """``"10.0"`` for a one-point tier, ``"8.0-9.9"`` otherwise."""
    return f"{lo:.1f}" if lo == hi else f"{lo:.1f}-{hi:.1f}"


# -- the rubric ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tier:
    """One score band of the rubric."""

    label: str  # "8.0-9.9"
    range: tuple[float, float]
    grade: str
    description: str
    criteria: Mapping[str, int]
    characteristics: tuple[str, ...]

    def contains(self, score: float) -> bool:
        return dec(self.range[0]) <= dec(score) <= dec(self.range[1])

    def meets_criteria(self, counts: Mapping[str, int]) -> bool:
        """Whether issue counts (``critical_issues`` ...) satisfy this tier's criteria.

        ``max_X``: count ≤ value; ``min_X``: count ≥ value; a bare ``X``: count == value.
        """
        for key, value in self.criteria.items():
            if key.startswith("max_"):
                ok = counts.get(key[4:], 0) <= value
            elif key.startswith("min_"):
                ok = counts.get(key[4:], 0) >= value
            else:
                ok = counts.get(key, 0) == value
            if not ok:
                return False
        return True

    def to_dict(self) -> dict[str, Any]:
        return {
            "range": [self.range[0], self.range[1]],
            "grade": self.grade,
            "description": self.description,
            "criteria": dict(self.criteria),
            "characteristics": list(self.characteristics),
        }


@dataclass(frozen=True, slots=True)
class Rubric:
    """Weights and tiers; immutable. ``hash`` identifies it (12 hex digits of SHA-256)."""

    weights: Mapping[str, float]
    tiers: tuple[Tier, ...]  # highest first
    api_accuracy_threshold: float = DEFAULT_API_ACCURACY_THRESHOLD
    source: str = field(default="default", compare=False)  # "default" or the file it came from
    hash: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "weights", MappingProxyType(dict(self.weights)))
        canonical = json.dumps(
            {
                "weights": dict(self.weights),
                "tiers": {t.label: t.to_dict() for t in self.tiers},
                "api_accuracy_threshold": float(self.api_accuracy_threshold),
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        object.__setattr__(self, "hash", hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12])

    def __hash__(self) -> int:
        return hash(self.hash)

    def weight(self, name: str) -> Decimal:
        return dec(self.weights[name])

    def tier_for(self, score: float) -> Tier:
        """The tier a (one-decimal) score falls in."""
        for tier in self.tiers:
            if tier.contains(score):
                return tier
        raise UsageError(f"score {score} is outside every tier of the rubric ({self.source})")

    def tiers_dict(self) -> dict[str, dict[str, Any]]:
        """The tier table as the ``get_rubric`` tool returns it, keyed by tier label."""
        return {t.label: t.to_dict() for t in self.tiers}

    def to_dict(self) -> dict[str, Any]:
        """Everything: version, hash, weights, threshold and tiers."""
        return {
            "scoring_version": SCORING_VERSION,
            "rubric_hash": self.hash,
            "source": self.source,
            "weights": dict(self.weights),
            "api_accuracy_threshold": self.api_accuracy_threshold,
            "tiers": self.tiers_dict(),
        }


@lru_cache(maxsize=1)
def default_rubric() -> Rubric:
    """The built-in rubric: ``SCORING_RUBRIC``'s tiers and ``WEIGHTS``."""
    return _build({"tiers": SCORING_RUBRIC}, source="default")


def load_rubric(path: str | Path) -> Rubric:
    """Read a TOML rubric file; its weights/tiers override the defaults.

    Raises:
        UsageError: unreadable file, invalid TOML, unknown keys, non-numeric or negative
            weights, malformed tiers, tiers that overlap or leave gaps in 0.0-10.0.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(
            f"cannot read rubric file {p}: {exc.strerror or exc}", hint="pass an existing .toml file"
        ) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{p}: not valid TOML: {exc}") from None
    return _build(data, source=str(p))


# -- validation ---------------------------------------------------------------------------


def _number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise UsageError(f"{where}: '{key}' must be a number, got {value!r}")
    return float(value)


def _build(data: Mapping[str, Any], *, source: str) -> Rubric:
    where = source
    for key in data:
        if key not in _TOP_KEYS:
            raise UsageError(
                f"{where}: unknown key '{key}'", hint=f"a rubric file may contain {', '.join(_TOP_KEYS)}"
            )
    weights = dict(WEIGHTS)
    given = data.get("weights", {})
    if not isinstance(given, Mapping):
        raise UsageError(f"{where}: 'weights' must be a table")
    for key, value in given.items():
        if key not in WEIGHTS:
            raise UsageError(
                f"{where}: unknown weight 'weights.{key}'", hint=f"known weights: {', '.join(WEIGHTS)}"
            )
        number = _number(value, where, f"weights.{key}")
        if number < 0:
            raise UsageError(f"{where}: 'weights.{key}' must not be negative, got {value!r}")
        weights[key] = number

    threshold = DEFAULT_API_ACCURACY_THRESHOLD
    if "api_accuracy_threshold" in data:
        threshold = _number(data["api_accuracy_threshold"], where, "api_accuracy_threshold")
        if not 0.0 <= threshold <= 1.0:
            raise UsageError(f"{where}: 'api_accuracy_threshold' must be within 0..1, got {threshold}")

    tiers_data = data.get("tiers", SCORING_RUBRIC)
    if not isinstance(tiers_data, Mapping) or not tiers_data:
        raise UsageError(f"{where}: 'tiers' must be a table of tier tables, e.g. [tiers.\"8.0-9.9\"]")
    tiers = [_tier(label, spec, where) for label, spec in tiers_data.items()]
    tiers.sort(key=lambda t: dec(t.range[0]))
    _check_coverage(tiers, where)
    return Rubric(
        weights=weights, tiers=tuple(reversed(tiers)), api_accuracy_threshold=threshold, source=source
    )


def _tier(label: str, spec: Any, where: str) -> Tier:
    key = f"tiers.{label}"
    if not isinstance(spec, Mapping):
        raise UsageError(f"{where}: '{key}' must be a table")
    for name in spec:
        if name not in _TIER_FIELDS:
            raise UsageError(
                f"{where}: unknown key '{key}.{name}'", hint=f"a tier has {', '.join(sorted(_TIER_FIELDS))}"
            )
    for name in ("range", "grade", "description"):
        if name not in spec:
            raise UsageError(f"{where}: '{key}' needs '{name}'")
    rng = spec["range"]
    if not isinstance(rng, list | tuple) or len(rng) != 2:
        raise UsageError(f"{where}: '{key}.range' must be [low, high]")
    lo, hi = (_number(v, where, f"{key}.range") for v in rng)
    if not MIN_SCORE <= lo <= hi <= MAX_SCORE:
        raise UsageError(f"{where}: '{key}.range' must satisfy 0.0 <= low <= high <= 10.0, got {[lo, hi]}")
    for v in (lo, hi):
        if dec(v) != dec(v).quantize(_TENTH):
            raise UsageError(
                f"{where}: '{key}.range' bounds must have one decimal (scores are rounded to 0.1)"
            )
    if label != tier_label(lo, hi):
        raise UsageError(
            f"{where}: tier key '{label}' does not match its range {[lo, hi]}",
            hint=f'name it [tiers."{tier_label(lo, hi)}"]',
        )
    grade, description = spec["grade"], spec["description"]
    if not isinstance(grade, str) or not isinstance(description, str):
        raise UsageError(f"{where}: '{key}.grade' and '{key}.description' must be strings")
    criteria = spec.get("criteria", {})
    if not isinstance(criteria, Mapping):
        raise UsageError(f"{where}: '{key}.criteria' must be a table")
    for ckey, cval in criteria.items():
        if ckey not in CRITERIA_KEYS:
            raise UsageError(
                f"{where}: unknown key '{key}.criteria.{ckey}'",
                hint="criteria are [max_|min_]critical_issues / warning_issues / info_issues",
            )
        if isinstance(cval, bool) or not isinstance(cval, int) or cval < 0:
            raise UsageError(f"{where}: '{key}.criteria.{ckey}' must be a non-negative integer, got {cval!r}")
    chars = spec.get("characteristics", [])
    if not isinstance(chars, list | tuple) or not all(isinstance(c, str) for c in chars):
        raise UsageError(f"{where}: '{key}.characteristics' must be a list of strings")
    return Tier(
        label=label,
        range=(lo, hi),
        grade=grade,
        description=description,
        criteria=MappingProxyType(dict(criteria)),
        characteristics=tuple(chars),
    )


def _check_coverage(tiers: list[Tier], where: str) -> None:
    """Tiers sorted by low bound must tile 0.0..10.0 at 0.1 resolution."""
    if dec(tiers[0].range[0]) != dec(MIN_SCORE):
        raise UsageError(
            f"{where}: 'tiers' leave a gap: no tier starts at 0.0 (lowest is '{tiers[0].label}')"
        )
    if dec(tiers[-1].range[1]) != dec(MAX_SCORE):
        raise UsageError(
            f"{where}: 'tiers' leave a gap: no tier ends at 10.0 (highest is '{tiers[-1].label}')"
        )
    for prev, nxt in itertools.pairwise(tiers):
        lo, prev_hi = dec(nxt.range[0]), dec(prev.range[1])
        if lo <= prev_hi:
            raise UsageError(f"{where}: 'tiers' overlap: '{prev.label}' and '{nxt.label}'")
        if lo != prev_hi + _TENTH:
            raise UsageError(
                f"{where}: 'tiers' leave a gap between '{prev.label}' and '{nxt.label}'",
                hint="the next tier must start 0.1 above the previous one's end",
            )
