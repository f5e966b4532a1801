"""The clarity formula: overall score, dimension scores, dashboard metrics. Pure functions.

Overall score (weights from the rubric, defaults shown)::

    10.0 - critical × 2.0 - warnings × 0.5 - info × 0.1
         - content penalties          (see below)
         - invalid API signatures × 0.8 - missing APIs × 1.2
         - 2.0 if API accuracy < 0.7 (only when there are API signatures)
         - broken links × 0.3 - images without alt text × 0.1
    clamped to [0.0, 10.0], rounded half-up to one decimal (exact decimal arithmetic).

Content penalties:

- ``total_code_blocks`` absent (None): the caller measured no code metrics, so no content
  penalty at all: 0 critical, 3 warnings and 2 info issues with no code metrics give 8.3
  (``tests/test_clarity_scoring.py``).
- ``total_code_blocks == 0``: ``no_code_blocks`` (2.0).
- code blocks but ``successful_examples`` (or its alias ``executable_examples``; the first
  wins when both are given) equal to 0: ``no_executable_examples`` (1.5); absent: none.
- ``failed_examples`` × 1.0 whenever given.

API accuracy is ``api_accuracy_score`` when given, else ``valid_api_signatures /
total_api_signatures`` when both are given; with no API signatures it is never penalised.

The tier is looked up from the rounded score; ``meets_criteria`` says whether the issue
counts also satisfy that tier's criteria (they need not: 1 critical alone scores 8.0, tier
A, whose criteria demand 0 critical). ``quality_rating``: ≥ 8 ``excellent``, ≥ 6 ``good``,
≥ 4 ``needs_improvement``, ≥ 2 ``poor``, else ``unusable``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from docmentor.clarity.models import DIMENSIONS, SEVERITIES, Issue
from docmentor.clarity.rubric import (
    MAX_SCORE,
    MIN_SCORE,
    SCORING_VERSION,
    STARTING_SCORE,
    Rubric,
    dec,
    default_rubric,
    fmt,
    round1,
)
from docmentor.errors import UsageError

COUNT_KEYS: tuple[str, ...] = (
    "critical_issues",
    "warning_issues",
    "info_issues",
    "total_code_blocks",
    "successful_examples",
    "executable_examples",
    "failed_examples",
    "skipped_examples",
    "total_api_signatures",
    "valid_api_signatures",
    "invalid_api_signatures",
    "missing_api_signatures",
    "broken_links",
    "missing_alt_text",
)
INPUT_KEYS: frozenset[str] = frozenset((*COUNT_KEYS, "api_accuracy_score"))
ISSUE_PENALTY_TYPES: frozenset[str] = frozenset({"critical_issues", "warning_issues", "info_issues"})
_ISSUE_COUNT_KEYS = ("critical_issues", "warning_issues", "info_issues")


@dataclass(frozen=True, slots=True)
class Penalty:
    """One line of the calculation breakdown."""

    type: str
    count: int
    amount: Decimal
    explanation: str
    weight: Decimal | None = None  # per-item weight; None for a flat penalty
    counted: str | None = None  # what a per-item penalty counts: "3 broken links"; None for a flat one

    @property
    def label(self) -> str:
        """What the penalty is for, without its per-item weight: "3 broken links" (a per-item
        penalty), else the whole explanation ("No code blocks in the document")."""
        return self.counted if self.counted is not None else self.explanation

    @property
    def term(self) -> str:
        """How it appears in the calculation text: ``(3 × 2.0)`` or ``1.5``."""
        return f"({self.count} × {fmt(self.weight)})" if self.weight is not None else fmt(self.amount)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "count": self.count,
            "penalty": float(self.amount),
            "explanation": self.explanation,
        }


@dataclass(frozen=True, slots=True)
class ClarityScore:
    """What :func:`calculate_clarity_score` gives: the overall score of one document, its
    tier, and the penalties that cost points; ``to_dict`` is the MCP tool's JSON."""

    overall_score: float
    grade: str
    rubric_tier: str  # the tier's label, e.g. "8.0-9.9"
    rubric_description: str
    total_penalty: Decimal
    penalties: tuple[Penalty, ...]  # the ones that cost points, in the formula's order
    calculation: str  # "10.0 - (3 × 2.0) - (5 × 0.5) = 1.5"
    quality_rating: str
    meets_criteria: bool
    scoring_version: str
    rubric_hash: str

    def breakdown_dict(self) -> dict[str, Any]:
        """The ``calculation_breakdown``: starting score, total penalty, each penalty."""
        return {
            "starting_score": STARTING_SCORE,
            "total_penalty": float(self.total_penalty),
            "penalties": [p.to_dict() for p in self.penalties],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall_score": self.overall_score,
            "grade": self.grade,
            "rubric_tier": self.rubric_tier,
            "rubric_description": self.rubric_description,
            "calculation_breakdown": self.breakdown_dict(),
            "calculation": self.calculation,
            "quality_rating": self.quality_rating,
            "meets_criteria": self.meets_criteria,
            "scoring_version": self.scoring_version,
            "rubric_hash": self.rubric_hash,
        }


@dataclass(frozen=True, slots=True)
class DimensionScore:
    """What :func:`calculate_dimension_score` gives: one dimension's score and its calculation."""

    dimension: str
    score: float
    calculation: str  # "10.0 - (2 × 2.0) - (3 × 0.5) - (0 × 0.1) = 4.5"
    scoring_version: str
    rubric_hash: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "score": self.score,
            "calculation": self.calculation,
            "scoring_version": self.scoring_version,
            "rubric_hash": self.rubric_hash,
        }


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _per_item(kind: str, count: int, weight: Decimal, noun: str, nouns: str | None = None) -> Penalty:
    counted = _plural(count, noun, nouns)
    return Penalty(
        type=kind,
        count=count,
        amount=count * weight,
        weight=weight,
        explanation=f"{counted} × {fmt(weight)} points each",
        counted=counted,
    )


def calculation_text(terms: Iterable[str], raw: Decimal, final: float) -> str:
    """``10.0 - (3 × 2.0) - (5 × 0.5) = 1.5``; ``= -0.5 → 0.0`` when clamped or rounded."""
    text = fmt(STARTING_SCORE) + "".join(f" - {t}" for t in terms) + f" = {fmt(raw)}"
    if dec(final) != raw:
        text += f" → {fmt(final)}"
    return text


def finish(raw: Decimal) -> float:
    """Clamp to [0, 10] and round to one decimal."""
    return round1(min(max(raw, dec(MIN_SCORE)), dec(MAX_SCORE)))


def quality_rating(score: float) -> str:
    """``excellent`` (≥ 8), ``good`` (≥ 6), ``needs_improvement`` (≥ 4), ``poor`` (≥ 2), ``unusable``."""
    for floor, rating in ((8.0, "excellent"), (6.0, "good"), (4.0, "needs_improvement"), (2.0, "poor")):
        if score >= floor:
            return rating
    return "unusable"


def _count(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"'{key}' must be a non-negative integer, got {value!r}")
    if isinstance(value, float) and not value.is_integer():
        raise UsageError(f"'{key}' must be a whole number, got {value!r}")
    if value < 0:
        raise UsageError(f"'{key}' must not be negative, got {value!r}")
    return int(value)


def normalize_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``calculate_clarity_score`` inputs: issue counts default to 0, metrics to None."""
    if not isinstance(inputs, Mapping):
        raise UsageError(f"scoring inputs must be a mapping, got {type(inputs).__name__}")
    unknown = sorted(set(inputs) - INPUT_KEYS)
    if unknown:
        raise UsageError(
            f"unknown scoring input(s): {', '.join(map(str, unknown))}",
            hint=f"known inputs: {', '.join(sorted(INPUT_KEYS))}",
        )
    out: dict[str, Any] = {}
    for key in COUNT_KEYS:
        value = inputs.get(key)
        if value is None:
            out[key] = 0 if key in _ISSUE_COUNT_KEYS else None
        else:
            out[key] = _count(value, key)
    acc = inputs.get("api_accuracy_score")
    if acc is not None:
        if isinstance(acc, bool) or not isinstance(acc, int | float) or not 0.0 <= acc <= 1.0:
            raise UsageError(f"'api_accuracy_score' must be a number within 0..1, got {acc!r}")
        acc = float(acc)
    out["api_accuracy_score"] = acc
    return out


def _penalties(values: Mapping[str, Any], rubric: Rubric) -> list[Penalty]:
    w = rubric.weight
    out = [
        _per_item("critical_issues", values["critical_issues"], w("critical_issue"), "critical issue"),
        _per_item("warning_issues", values["warning_issues"], w("warning_issue"), "warning"),
        _per_item("info_issues", values["info_issues"], w("info_issue"), "info issue"),
    ]
    total_blocks = values["total_code_blocks"]
    successful = values["successful_examples"]
    if successful is None:
        successful = values["executable_examples"]
    if total_blocks == 0:
        out.append(
            Penalty("no_code_blocks", 1, w("no_code_blocks_penalty"), "No code blocks in the document")
        )
    elif total_blocks is not None and successful == 0:
        out.append(
            Penalty(
                "no_executable_examples",
                1,
                w("no_successful_examples"),
                "No complete executable examples found",
            )
        )
    if values["failed_examples"]:
        out.append(
            _per_item("failed_examples", values["failed_examples"], w("failed_example"), "failed example")
        )
    if values["invalid_api_signatures"]:
        out.append(
            _per_item(
                "invalid_api_signatures",
                values["invalid_api_signatures"],
                w("invalid_api_signature"),
                "invalid API signature",
            )
        )
    if values["missing_api_signatures"]:
        out.append(
            _per_item(
                "missing_api_signatures",
                values["missing_api_signatures"],
                w("missing_api"),
                "missing API",
            )
        )
    total_api = values["total_api_signatures"]
    accuracy = values["api_accuracy_score"]
    if accuracy is None and total_api and values["valid_api_signatures"] is not None:
        accuracy = values["valid_api_signatures"] / total_api
    threshold = rubric.api_accuracy_threshold
    if total_api and accuracy is not None and dec(round(accuracy, 6)) < dec(threshold):
        out.append(
            Penalty(
                "low_api_accuracy",
                1,
                w("low_api_accuracy_penalty"),
                f"API accuracy {round(accuracy, 2)} is below {threshold}",
            )
        )
    if values["broken_links"]:
        out.append(_per_item("broken_links", values["broken_links"], w("broken_link"), "broken link"))
    if values["missing_alt_text"]:
        out.append(
            _per_item(
                "missing_alt_text",
                values["missing_alt_text"],
                w("missing_alt_text"),
                "image without alt text",
                "images without alt text",
            )
        )
    return [p for p in out if p.amount > 0 or p.type in ISSUE_PENALTY_TYPES]


def _terms(penalties: Iterable[Penalty]) -> list[str]:
    """Critical and warning terms always appear, the others only when they cost something."""
    return [p.term for p in penalties if p.amount > 0 or p.type in ("critical_issues", "warning_issues")]


def calculate_clarity_score(inputs: Mapping[str, Any], rubric: Rubric | None = None) -> ClarityScore:
    """The overall clarity score of one document from its issue counts and content metrics.

    Args:
        inputs: the issue counts and content metrics (``critical_issues``,
            ``warning_issues``, ``info_issues``, ``total_code_blocks``,
            ``successful_examples``/``executable_examples``, ``failed_examples``,
            ``skipped_examples``, API signature counts, ``api_accuracy_score``,
            ``broken_links``, ``missing_alt_text``); absent metrics cost nothing.
        rubric: weights and tiers (the default rubric when omitted).

    Returns:
        A :class:`ClarityScore`; its ``to_dict()`` has ``overall_score``, ``grade``,
        ``rubric_tier``, ``rubric_description``, ``calculation_breakdown``,
        ``calculation``, ``quality_rating``, ``meets_criteria``, ``scoring_version`` and
        ``rubric_hash``.

    Raises:
        UsageError: unknown keys, negative or non-integer counts, accuracy outside 0..1.
    """
    rubric = rubric or default_rubric()
    values = normalize_inputs(inputs)
    penalties = _penalties(values, rubric)
    total = sum((p.amount for p in penalties), Decimal(0))
    raw = dec(STARTING_SCORE) - total
    score = finish(raw)
    tier = rubric.tier_for(score)
    return ClarityScore(
        overall_score=score,
        grade=tier.grade,
        rubric_tier=tier.label,
        rubric_description=tier.description,
        total_penalty=total,
        penalties=tuple(p for p in penalties if p.amount > 0),
        calculation=calculation_text(_terms(penalties), raw, score),
        quality_rating=quality_rating(score),
        meets_criteria=tier.meets_criteria(values),
        scoring_version=SCORING_VERSION,
        rubric_hash=rubric.hash,
    )


def calculate_dimension_score(
    dimension: str, critical: int, warning: int, info: int, *, rubric: Rubric | None = None
) -> DimensionScore:
    """Score one dimension from the issues tagged with it.

    Returns a :class:`DimensionScore` (``dimension``, ``score``, ``calculation``,
    ``scoring_version``, ``rubric_hash``); its calculation reads e.g.
    ``"10.0 - (2 × 2.0) - (3 × 0.5) - (0 × 0.1) = 4.5"``.
    """
    if dimension not in DIMENSIONS:
        raise UsageError(f"unknown dimension {dimension!r}", hint=f"use one of {', '.join(DIMENSIONS)}")
    rubric = rubric or default_rubric()
    counts = [
        (_count(critical, "critical"), rubric.weight("critical_issue")),
        (_count(warning, "warning"), rubric.weight("warning_issue")),
        (_count(info, "info"), rubric.weight("info_issue")),
    ]
    raw = dec(STARTING_SCORE) - sum((n * w for n, w in counts), Decimal(0))
    score = finish(raw)
    return DimensionScore(
        dimension=dimension,
        score=score,
        calculation=calculation_text([f"({n} × {fmt(w)})" for n, w in counts], raw, score),
        scoring_version=SCORING_VERSION,
        rubric_hash=rubric.hash,
    )


# -- issues -------------------------------------------------------------------------------


def issue_fields(issue: Issue | Mapping[str, Any], index: int = 0) -> dict[str, Any]:
    """An issue (``Issue`` or a dict as the MCP tools receive it) as a dict with a valid severity
    and line (a whole number, or none)."""
    if isinstance(issue, Issue):
        data = issue.to_dict()
    elif isinstance(issue, Mapping):
        data = dict(issue)
    else:
        raise UsageError(f"issue #{index + 1} must be an object, got {type(issue).__name__}")
    if data.get("severity") not in SEVERITIES:
        raise UsageError(
            f"issue #{index + 1} has severity {data.get('severity')!r}",
            hint="severity is one of critical, warning, info",
        )
    line = data.get("line")
    if isinstance(line, float) and line.is_integer():  # 12.0, as JSON may carry a whole number
        line = data["line"] = int(line)
    if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 0):
        raise UsageError(
            f"issue #{index + 1} has line {line!r}",
            hint="line is the page's line number (1 or more; 0 or absent for the whole page)",
        )
    return data


def issue_counts(issues: Iterable[Issue | Mapping[str, Any]]) -> dict[str, int]:
    """Severity counts for the formula, plus ``broken_links``/``missing_alt_text``.

    An issue whose ``counts_as`` is ``broken_links`` or ``missing_alt_text`` is counted
    there and not as a critical/warning/info issue.
    """
    out = dict.fromkeys((*_ISSUE_COUNT_KEYS, "broken_links", "missing_alt_text"), 0)
    for i, issue in enumerate(issues):
        data = issue_fields(issue, i)
        counts_as = data.get("counts_as")
        if counts_as in ("broken_links", "missing_alt_text"):
            out[counts_as] += 1
        else:
            out[f"{data['severity']}_issues"] += 1
    return out


def count_by_dimension(issues: Iterable[Issue | Mapping[str, Any]], dimension: str) -> dict[str, int]:
    """``{"critical", "warning", "info"}`` counts of the issues tagged with ``dimension``."""
    out: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
    for i, issue in enumerate(issues):
        data = issue_fields(issue, i)
        if data.get("counts_as") in ("broken_links", "missing_alt_text"):
            continue
        if dimension in (data.get("dimensions") or ()):
            out[data["severity"]] += 1
    return out


def dimension_scores(
    issues: Iterable[Issue | Mapping[str, Any]], *, rubric: Rubric | None = None
) -> dict[str, float]:
    """The score of each of the five dimensions, from the issues tagged with it."""
    items = list(issues)
    out: dict[str, float] = {}
    for dim in DIMENSIONS:
        c = count_by_dimension(items, dim)
        out[dim] = calculate_dimension_score(dim, c["critical"], c["warning"], c["info"], rubric=rubric).score
    return out


def dashboard_metrics(
    inputs: Mapping[str, Any], *, result: ClarityScore | None = None, rubric: Rubric | None = None
) -> dict[str, Any]:
    """The ``dashboard_metrics`` of one document.

    - ``score_grade``: the grade of the overall score.
    - ``completeness_percent``: successful (executable) examples / code blocks × 100, one
      decimal; 0.0 with no code blocks; None when the code metrics are absent.
    - ``blocker_count``: critical issues + failed examples.
    - ``health_status``: ``healthy`` (score ≥ 8 and no blockers), ``critical`` (score < 4),
      else ``needs_attention``.

    Args:
        inputs: the ``calculate_clarity_score`` inputs.
        result: their ``calculate_clarity_score`` result, when already computed.
        rubric: used when ``result`` is computed here.
    """
    values = normalize_inputs(inputs)
    if result is None:
        result = calculate_clarity_score(inputs, rubric)
    score = result.overall_score
    total = values["total_code_blocks"]
    successful = values["successful_examples"]
    if successful is None:
        successful = values["executable_examples"]
    completeness: float | None
    if total is None:
        completeness = None
    elif total == 0:
        completeness = 0.0
    elif successful is None:
        completeness = None
    else:
        completeness = round1(min(dec(100), dec(100) * successful / total))
    blockers = values["critical_issues"] + (values["failed_examples"] or 0)
    if score >= 8.0 and blockers == 0:
        health = "healthy"
    elif score < 4.0:
        health = "critical"
    else:
        health = "needs_attention"
    return {
        "score_grade": result.grade,
        "completeness_percent": completeness,
        "blocker_count": blockers,
        "health_status": health,
    }
