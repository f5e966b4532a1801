"""The results of scoring documents: one document's (:class:`DocumentClarity`) and a run's
(:class:`ClarityReport`, with its :class:`ClaritySummary`, the documents below its target and
what fails a quality gate: :class:`ClarityGate`). Frozen values; each ``to_dict`` is the JSON
that ``docmentor clarity score --json`` prints and the ``score_document`` tool returns, key
order included."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docmentor.clarity.models import SEVERITIES, ContentMetrics, Issue, Severity

if TYPE_CHECKING:
    from docmentor.clarity.explain import ScoreExplanation
    from docmentor.clarity.roadmap import Roadmap
    from docmentor.clarity.scoring import ClarityScore


@dataclass(frozen=True, slots=True)
class DimensionEvaluation:
    """One dimension of a document: its score, what was measured, and its first key issues."""

    score: float
    measured_by: tuple[str, ...]
    key_issues: tuple[str, ...]  # "Line 12: …", at most three

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "measured_by": list(self.measured_by),
            "key_issues": list(self.key_issues),
        }


@dataclass(frozen=True, slots=True)
class DocumentClarity:
    """One scored document: its score, dimensions, explanation, roadmap and issues."""

    path: str
    url: str | None
    score: ClarityScore
    dimension_scores: Mapping[str, float]  # every dimension, in ``DIMENSIONS`` order
    evaluation: Mapping[str, DimensionEvaluation]  # the same keys
    explanation: ScoreExplanation
    roadmap: Roadmap
    dashboard_metrics: Mapping[str, Any]  # score_grade, completeness_percent, blocker_count, health_status
    metrics: ContentMetrics
    issues: tuple[Issue, ...]  # every issue, those counted as broken links / missing alt text too
    broken_links: int
    missing_alt_text: int

    @property
    def clarity_issues(self) -> tuple[Issue, ...]:
        """The issues the formula counts as critical, warning or info."""
        return tuple(i for i in self.issues if i.counts_as is None)

    @property
    def structural_issues(self) -> tuple[Issue, ...]:
        """The issues counted as broken links or missing alt text instead."""
        return tuple(i for i in self.issues if i.counts_as is not None)

    def issue_count(self, severity: Severity) -> int:
        """How many of the clarity issues have ``severity``."""
        return sum(1 for i in self.clarity_issues if i.severity == severity)

    def _clarity_score_dict(self) -> dict[str, Any]:
        s = self.score
        return {
            "overall_score": s.overall_score,
            "grade": s.grade,
            "rubric_tier": s.rubric_tier,
            "rubric_description": s.rubric_description,
            **self.dimension_scores,
            "evaluation_criteria": {dim: e.to_dict() for dim, e in self.evaluation.items()},
            "scoring_rationale": f"Score calculated: {s.calculation}",
            "quality_rating": s.quality_rating,
            "meets_criteria": s.meets_criteria,
            "calculation_breakdown": s.breakdown_dict(),
            "scoring_version": s.scoring_version,
            "rubric_hash": s.rubric_hash,
        }

    def to_dict(self) -> dict[str, Any]:
        counted = self.clarity_issues
        sev = Counter(i.severity for i in counted)
        return {
            "path": self.path,
            "url": self.url,
            "clarity_score": self._clarity_score_dict(),
            "score_explanation": self.explanation.to_dict(),
            "improvement_roadmap": self.roadmap.to_dict(),
            "dashboard_metrics": dict(self.dashboard_metrics),
            "dimension_scores": dict(self.dimension_scores),
            "metrics": self.metrics.to_dict(),
            "issues": [i.to_dict() for i in self.issues],
            "clarity_issues": [i.to_dict() for i in counted],
            "structural_issues": [i.to_dict() for i in self.structural_issues],
            "summary": {
                "total_clarity_issues": len(counted),
                **{f"{s}_clarity_issues": sev.get(s, 0) for s in SEVERITIES},
                "broken_links": self.broken_links,
                "missing_alt_text": self.missing_alt_text,
                "overall_quality_rating": self.score.quality_rating,
            },
        }


@dataclass(frozen=True, slots=True)
class ClaritySummary:
    """A run over several documents in figures."""

    documents: int
    average_score: float
    average_grade: str
    min_score: float
    max_score: float
    grade_distribution: Mapping[str, int]  # A+, A, B, C, D, F: documents with that grade
    critical_issues: int
    warning_issues: int
    info_issues: int
    broken_links: int
    target_score: float
    below_target: int  # documents scoring below target_score
    scoring_version: str
    rubric_hash: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "average_score": self.average_score,
            "average_grade": self.average_grade,
            "min_score": self.min_score,
            "max_score": self.max_score,
            "grade_distribution": dict(self.grade_distribution),
            "critical_issues": self.critical_issues,
            "warning_issues": self.warning_issues,
            "info_issues": self.info_issues,
            "broken_links": self.broken_links,
            "target_score": self.target_score,
            "below_target": self.below_target,
            "scoring_version": self.scoring_version,
            "rubric_hash": self.rubric_hash,
        }


@dataclass(frozen=True, slots=True)
class ClarityGate:
    """What fails a run's quality gate: the documents scoring below ``min_score`` (in the
    report's order; none when no minimum was asked), and the critical clarity issues, each
    with its document's path (none unless asked)."""

    min_score: float | None
    below_min: tuple[DocumentClarity, ...]
    critical: tuple[tuple[str, Issue], ...]

    @property
    def failed(self) -> bool:
        return bool(self.below_min or self.critical)


@dataclass(frozen=True, slots=True)
class ClarityReport:
    """What :func:`~docmentor.clarity.score_paths` and ``score_source`` give: every
    document's result and the summary, stamped with when it was made."""

    generated_at: str  # ISO 8601, UTC, whole seconds: "2026-01-01T00:00:00Z"
    documents: tuple[DocumentClarity, ...]
    summary: ClaritySummary

    def below_target(self) -> tuple[DocumentClarity, ...]:
        """The documents scoring below the summary's target, the worst first (then by path)."""
        target = self.summary.target_score
        below = [d for d in self.documents if d.score.overall_score < target]
        return tuple(sorted(below, key=lambda d: (d.score.overall_score, d.path)))

    def gate(self, *, min_score: float | None = None, fail_on_critical: bool = False) -> ClarityGate:
        """What fails the gate: documents below ``min_score`` (when given) and, with
        ``fail_on_critical``, every critical clarity issue (not those counted as broken links
        or missing alt text)."""
        low = (
            () if min_score is None else tuple(d for d in self.documents if d.score.overall_score < min_score)
        )
        critical = (
            tuple(
                (d.path, i)
                for d in self.documents
                for i in d.issues
                if i.severity == "critical" and not i.counts_as
            )
            if fail_on_critical
            else ()
        )
        return ClarityGate(min_score=min_score, below_min=low, critical=critical)

    def to_dict(self) -> dict[str, Any]:
        return {
            "generated_at": self.generated_at,
            "documents": [d.to_dict() for d in self.documents],
            "summary": self.summary.to_dict(),
        }
