"""Explain a clarity score: the formula, the numbers in it, and what the tier means. Pure.

``final_score`` is always what the formula gives. When the caller passes a ``score`` that
differs (3 critical + 5 warnings "= 5.5", where the formula gives 1.5), ``rubric_match``
is false and ``note`` says so; docmentor never reports a score the formula does not give.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from docmentor.clarity.rubric import SCORING_VERSION, STARTING_SCORE, Rubric, dec, default_rubric, fmt
from docmentor.clarity.scoring import (
    ISSUE_PENALTY_TYPES,
    calculate_clarity_score,
    calculation_text,
    finish,
    normalize_inputs,
    quality_rating,
)
from docmentor.errors import UsageError

CONTENT_PENALTY_EXPLANATIONS: dict[str, str] = {
    "no_code_blocks": "No code blocks in the document",
    "no_executable_examples": "No complete executable examples found",
    "failed_examples": "Code examples that fail when run",
    "invalid_api_signatures": "Documented API signatures that do not match the library",
    "missing_api_signatures": "Documented APIs missing from the library",
    "low_api_accuracy": "API accuracy below the threshold",
    "broken_links": "Links that lead nowhere",
    "missing_alt_text": "Images without alt text",
}


@dataclass(frozen=True, slots=True)
class ContentPenalty:
    """A penalty other than the issue counts' (no code blocks, failed examples, broken links …)."""

    type: str
    penalty: float  # points
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "penalty": self.penalty, "explanation": self.explanation}


@dataclass(frozen=True, slots=True)
class ScoreExplanation:
    """What :func:`explain_score` gives: the formula with the numbers, the breakdown, a
    human explanation and the tier; ``to_dict`` is the MCP tool's JSON."""

    final_score: float  # always what the formula gives
    grade: str
    rubric_tier: str
    tier_description: str
    formula: str
    calculation: str
    critical_penalty: Decimal
    warning_penalty: Decimal
    info_penalty: Decimal
    content_penalties: tuple[ContentPenalty, ...]
    human_explanation: str
    rubric_match: bool  # false: the given score is not what the formula gives
    meets_criteria: bool
    characteristics_of_tier: tuple[str, ...]
    scoring_version: str
    rubric_hash: str
    given_score: float | None = None  # the score the caller asked about, when given
    note: str | None = None  # why the given score does not match

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "final_score": self.final_score,
            "grade": self.grade,
            "rubric_tier": self.rubric_tier,
            "tier_description": self.tier_description,
            "formula": self.formula,
            "calculation": self.calculation,
            "breakdown": {
                "starting_score": STARTING_SCORE,
                "critical_penalty": float(self.critical_penalty),
                "warning_penalty": float(self.warning_penalty),
                "info_penalty": float(self.info_penalty),
                "content_penalties": [p.to_dict() for p in self.content_penalties],
            },
            "human_explanation": self.human_explanation,
            "rubric_match": self.rubric_match,
            "meets_criteria": self.meets_criteria,
            "characteristics_of_tier": list(self.characteristics_of_tier),
            "scoring_version": self.scoring_version,
            "rubric_hash": self.rubric_hash,
        }
        if self.given_score is not None:
            out["given_score"] = self.given_score
        if self.note is not None:
            out["note"] = self.note
        return out


def _counts_phrase(critical: int, warning: int, info: int) -> str:
    parts = [
        f"{n} {label}" for n, label in ((critical, "critical"), (warning, "warning"), (info, "info")) if n
    ]
    if not parts:
        return "no issues"
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{joined} {'issue' if critical + warning + info == 1 else 'issues'}"


_LABELS = {"excellent": "Excellent", "good": "Good", "needs_improvement": "Acceptable", "poor": "Poor"}


def _human(score: float, critical: int, warning: int, info: int, content: list[ContentPenalty]) -> str:
    phrase = _counts_phrase(critical, warning, info)
    rating = quality_rating(score)
    if score >= 10.0:
        text = f"Production-ready documentation: {phrase}."
    elif not critical + warning + info and content:  # the score is the content penalties' alone
        label = _LABELS.get(rating, "Unusable")
        # "no issues" read as a contradiction beside a list of broken links (a tour): those are
        # content penalties, not counted issues
        text = (
            f"{label} documentation with no critical, warning or info issues: what it loses is "
            "its content penalties."
        )
    elif rating == "excellent":
        text = f"Excellent documentation with only minor polish needed: {phrase}."
    elif rating == "good":
        text = f"Good documentation but has {phrase} that should be addressed for better user experience."
    elif rating == "needs_improvement":
        if critical:
            lead = f"{critical} critical {'issue blocks' if critical == 1 else 'issues block'} user progress"
        elif warning:
            lead = f"{warning} {'warning causes' if warning == 1 else 'warnings cause'} confusion"
        else:
            lead = phrase
        text = f"Acceptable documentation with notable gaps: {lead}. Requires substantial improvements."
    elif rating == "poor":
        text = f"Poor documentation that blocks understanding: {phrase}. Needs a major rewrite."
    else:
        text = f"Unusable documentation that cannot be followed: {phrase}. A complete rewrite is required."
    if content:
        total = sum((dec(p.penalty) for p in content), Decimal(0))
        kinds = ", ".join(p.type.replace("_", " ") for p in content)
        text += f" Content penalties cost {fmt(total)} points ({kinds})."
    return text


def _content_penalties(penalties_applied: Iterable[Mapping[str, Any]]) -> list[ContentPenalty]:
    out = []
    for i, p in enumerate(penalties_applied):
        if not isinstance(p, Mapping) or not isinstance(p.get("type"), str):
            raise UsageError(
                f"penalties_applied[{i}] must be an object with a 'type' string",
                hint='e.g. {"type": "no_code_blocks", "penalty": 2.0}',
            )
        kind = p["type"]
        if kind in ISSUE_PENALTY_TYPES:
            raise UsageError(
                f"penalties_applied[{i}] is {kind!r}",
                hint="pass issue counts as critical_issues/warning_issues/info_issues; "
                "penalties_applied is for content penalties only",
            )
        amount = p.get("penalty")
        # past a million points no report gives it; NaN and infinities fail the comparison
        if isinstance(amount, bool) or not isinstance(amount, int | float) or not 0 <= amount <= 1e6:
            raise UsageError(
                f"penalties_applied[{i}].penalty must be a number from 0 to 1,000,000, got {amount!r}",
                hint="the points the penalty takes off the score, as the score's breakdown lists them",
            )
        explanation = p.get("explanation") or CONTENT_PENALTY_EXPLANATIONS.get(kind) or kind.replace("_", " ")
        out.append(ContentPenalty(type=kind, penalty=float(dec(amount)), explanation=str(explanation)))
    return out


def explain_score(
    score: float | None = None,
    *,
    critical_issues: int = 0,
    warning_issues: int = 0,
    info_issues: int = 0,
    penalties_applied: Iterable[Mapping[str, Any]] = (),
    rubric: Rubric | None = None,
) -> ScoreExplanation:
    """How a score follows from issue counts and content penalties.

    Args:
        score: the score to explain; optional. When it differs from the formula's result,
            ``rubric_match`` is false and ``note`` says so.
        critical_issues: number of critical issues.
        warning_issues: number of warnings.
        info_issues: number of info issues.
        penalties_applied: content penalties, ``[{"type", "penalty", "explanation"?}]``.
        rubric: weights and tiers (the default rubric when omitted).

    Returns:
        A :class:`ScoreExplanation`; its ``to_dict()`` is the explanation (``final_score``, ``grade``, ``tier_description``,
        ``formula``, ``breakdown``, ``human_explanation``, ``rubric_match``,
        ``characteristics_of_tier``) plus ``calculation`` (the formula with the numbers),
        ``rubric_tier``, ``meets_criteria``, ``scoring_version``, ``rubric_hash`` and, when
        ``score`` was given, ``given_score`` (and ``note`` when it does not match).
    """
    rubric = rubric or default_rubric()
    counts = normalize_inputs(
        {"critical_issues": critical_issues, "warning_issues": warning_issues, "info_issues": info_issues}
    )
    c, w, i = counts["critical_issues"], counts["warning_issues"], counts["info_issues"]
    content = _content_penalties(penalties_applied)
    wc, ww, wi = rubric.weight("critical_issue"), rubric.weight("warning_issue"), rubric.weight("info_issue")
    content_total = sum((dec(p.penalty) for p in content), Decimal(0))
    raw = dec(STARTING_SCORE) - c * wc - w * ww - i * wi - content_total
    final = finish(raw)
    tier = rubric.tier_for(final)

    terms = [f"({c} × {fmt(wc)})", f"({w} × {fmt(ww)})"]
    if i:
        terms.append(f"({i} × {fmt(wi)})")
    terms += [fmt(p.penalty) for p in content if p.penalty > 0]

    given: float | None = None
    note: str | None = None
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise UsageError(f"'score' must be a number, got {score!r}")
        given = float(score)
        if dec(score) != dec(final):
            note = (
                f"The given score {fmt(score)} does not follow from the formula, which gives "
                f"{fmt(final)}; docmentor reports the formula's result."
            )
    return ScoreExplanation(
        final_score=final,
        grade=tier.grade,
        rubric_tier=tier.label,
        tier_description=tier.description,
        formula=(
            f"{fmt(STARTING_SCORE)} - (critical × {fmt(wc)}) - (warnings × {fmt(ww)}) "
            f"- (info × {fmt(wi)}) - content_penalties"
        ),
        calculation=calculation_text(terms, raw, final),
        critical_penalty=c * wc,
        warning_penalty=w * ww,
        info_penalty=i * wi,
        content_penalties=tuple(content),
        human_explanation=_human(final, c, w, i, content),
        rubric_match=note is None,
        meets_criteria=tier.meets_criteria(counts),
        characteristics_of_tier=tuple(tier.characteristics),
        scoring_version=SCORING_VERSION,
        rubric_hash=rubric.hash,
        given_score=given,
        note=note,
    )


def explain_calculation(inputs: Mapping[str, Any], *, rubric: Rubric | None = None) -> ScoreExplanation:
    """``explain_score`` for ``calculate_clarity_score`` inputs (every non-issue penalty is a
    content penalty), so the explanation always matches the computed score."""
    result = calculate_clarity_score(inputs, rubric)
    values = normalize_inputs(inputs)
    content = [
        {"type": p.type, "penalty": float(p.amount), "explanation": p.explanation}
        for p in result.penalties
        if p.type not in ISSUE_PENALTY_TYPES
    ]
    out = explain_score(
        critical_issues=values["critical_issues"],
        warning_issues=values["warning_issues"],
        info_issues=values["info_issues"],
        penalties_applied=content,
        rubric=rubric,
    )
    # per-item terms: "(2 × 0.3)" rather than "0.6"
    return dataclasses.replace(out, calculation=result.calculation)
