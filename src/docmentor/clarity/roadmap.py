"""The improvement roadmap: which issues to fix first to reach a target score. Pure functions.

Rules:

- Order: severity (critical > warning > info), then effort (low > medium > high), then
  line, then the order the issues were given in.
- Impact of fixing an issue = the weight of its severity; an issue counted as a broken link
  or a missing alt text (``counts_as``, or ``type`` ``broken_link``/``missing_alt_text``)
  has that weight instead.
- Fixes are taken in order until ``current_score + sum(impacts) >= target_score``;
  ``estimated_new_score`` is capped at 10.0. Nothing is needed when the current score already
  reaches the target; when all fixes together fall short, all are listed and
  ``target_reachable`` is false.
- Effort: ``Issue.effort``, or a dict's ``estimated_effort``/``effort``, else
  ``EFFORT_BY_TYPE`` by issue type, else ``medium``. Minutes per fix: ``EFFORT_MINUTES``
  (low 30, medium 60, high 240); total < 120 min → ``low (< 2 hours)``, ≤ 360 →
  ``medium (2-6 hours)``, more → ``high (> 6 hours)``.
- Quick wins: low-effort issues (among all, not only the selected fixes) whose impact is at
  least a warning's weight, highest impact first, at most ``MAX_QUICK_WINS``.

A roadmap lists only the fixes this stop rule needs (two fixes worth 6.5 and 2.0 points
already reach 8.0, so a third is not listed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from docmentor.clarity.models import Issue
from docmentor.clarity.rubric import MAX_SCORE, SCORING_VERSION, Rubric, dec, default_rubric, fmt, round1
from docmentor.clarity.scoring import issue_fields
from docmentor.errors import UsageError

Effort = Literal["low", "medium", "high"]
EFFORT_MINUTES: dict[str, int] = {"low": 30, "medium": 60, "high": 240}
MAX_QUICK_WINS = 5
_SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}
_EFFORT_RANK = {"low": 0, "medium": 1, "high": 2}

EFFORT_BY_TYPE: dict[str, Effort] = {
    # a one-line edit
    "syntax_error": "low",
    "broken_link": "low",
    "broken_anchor": "low",
    "missing_alt_text": "low",
    "missing_code_language": "low",
    "leftover_marker": "low",
    "todo_marker": "low",
    "terminology_drift": "low",
    "inconsistent_terminology": "low",
    "heading_structure": "low",
    "multiple_h1": "low",
    "skipped_heading_level": "low",
    "undefined_name": "low",
    "missing_import": "low",
    "missing_prerequisites": "low",
    "missing_install_instructions": "low",
    # a paragraph or a reordering
    "empty_section": "medium",
    "forward_reference": "medium",
    "missing_explanation": "medium",
    "code_without_explanation": "medium",
    "unclear_explanation": "medium",
    "logical_gap": "medium",
    "missing_examples": "medium",
    "incomplete_example": "medium",
    "failed_example": "medium",
    # a new section or a restructuring
    "missing_section": "high",
    "empty_document": "high",
    "restructure": "high",
}


def effort_band(minutes: int) -> str:
    """``low (< 2 hours)``, ``medium (2-6 hours)`` or ``high (> 6 hours)``."""
    if minutes < 120:
        return "low (< 2 hours)"
    if minutes <= 360:
        return "medium (2-6 hours)"
    return "high (> 6 hours)"


def _duration(minutes: int) -> str:
    if minutes < 60:
        return f"{minutes} min"
    hours = minutes / 60
    return f"{hours:g} hour" if hours == 1 else f"{hours:g} hours"


def _effort(data: Mapping[str, Any], index: int) -> Effort:
    for key in ("estimated_effort", "effort"):
        value = data.get(key)
        if value is None:
            continue
        if value not in _EFFORT_RANK:
            raise UsageError(
                f"issue #{index + 1} has {key} {value!r}", hint="effort is one of low, medium, high"
            )
        return value
    return EFFORT_BY_TYPE.get(str(data.get("type", "")), "medium")


def _impact(data: Mapping[str, Any], rubric: Rubric) -> Decimal:
    kind = data.get("counts_as") or data.get("type")
    if kind in ("broken_links", "broken_link"):
        return rubric.weight("broken_link")
    if kind == "missing_alt_text":
        return rubric.weight("missing_alt_text")
    return rubric.weight(f"{data['severity']}_issue")


def _line(data: Mapping[str, Any]) -> int:
    line = data.get("line")
    return line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else 0


def _location(data: Mapping[str, Any]) -> str:
    section = str(data.get("section") or "") or "Document beginning"
    line = _line(data)
    return f"{section} (line {line})" if line else f"{section} (whole page)"


def _score(value: Any, name: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= MAX_SCORE:
        raise UsageError(f"'{name}' must be a number within 0..10, got {value!r}")
    return dec(value)


@dataclass(frozen=True, slots=True)
class PlannedFix:
    """One fix of a roadmap, in the order to make them."""

    rank: int
    issue_type: str
    severity: str
    location: str  # "Section (line 12)" or "Section (whole page)"
    line: int  # 0: the whole page
    impact: Decimal  # points the score gains
    effort: Effort
    message: str

    @property
    def impact_text(self) -> str:
        return f"+{fmt(self.impact)} points"

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "issue_type": self.issue_type,
            "severity": self.severity,
            "location": self.location,
            "line": self.line,
            "impact": self.impact_text,
            "estimated_effort": self.effort,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class QuickWin:
    """A low-effort fix worth at least a warning's weight."""

    issue_type: str
    section: str
    line: int  # 0: no line
    minutes: int
    impact: Decimal

    @property
    def text(self) -> str:
        """``Fix syntax error in Setup (line 10) - 30 min, +2.0 impact``."""
        what = (self.issue_type or "issue").replace("_", " ")
        where = f" in {self.section}" if self.section else ""
        where += f" (line {self.line})" if self.line else ""
        return f"Fix {what}{where} - {_duration(self.minutes)}, +{fmt(self.impact)} impact"

    def repeats(self, fix: PlannedFix) -> bool:
        """The same kind of issue on the same line as ``fix`` (a quick win without a line
        repeats none: nothing ties it to one fix)."""
        return bool(self.line) and (self.issue_type, self.line) == (fix.issue_type, fix.line)


@dataclass(frozen=True, slots=True)
class Roadmap:
    """What :func:`get_improvement_roadmap` gives; ``to_dict`` is the MCP tool's JSON."""

    current_score: Decimal
    target_score: Decimal
    new_score: Decimal  # capped at 10
    minutes: int
    reachable: bool
    fixes: tuple[PlannedFix, ...]
    quick_wins: tuple[QuickWin, ...]
    rubric_hash: str

    def next_steps(self, limit: int) -> tuple[PlannedFix | QuickWin, ...]:
        """What to do first: the fixes, then the quick wins that are not one of them again,
        at most ``limit``."""
        steps: list[PlannedFix | QuickWin] = [*self.fixes]
        steps += [w for w in self.quick_wins if not any(w.repeats(f) for f in self.fixes)]
        return tuple(steps[:limit])

    def to_dict(self) -> dict[str, Any]:
        return {
            "current_score": float(self.current_score),
            "target_score": float(self.target_score),
            "estimated_new_score": round1(self.new_score),
            "total_fixes_needed": len(self.fixes),
            "estimated_total_effort": effort_band(self.minutes),
            "estimated_total_minutes": self.minutes,
            "target_reachable": self.reachable,
            "priority_fixes": [f.to_dict() for f in self.fixes],
            "quick_wins": [w.text for w in self.quick_wins],
            "scoring_version": SCORING_VERSION,
            "rubric_hash": self.rubric_hash,
        }


def get_improvement_roadmap(
    current_score: float,
    target_score: float,
    issues: Iterable[Issue | Mapping[str, Any]],
    *,
    rubric: Rubric | None = None,
) -> Roadmap:
    """The fixes to make, in order, to raise ``current_score`` to ``target_score``.

    Args:
        current_score: the document's score now (0-10).
        target_score: the score to reach (0-10).
        issues: ``Issue`` objects or dicts with ``type``, ``severity``, ``line``,
            ``section``, ``message`` (optionally ``estimated_effort``, ``counts_as``).
        rubric: weights used for the impacts (the default rubric when omitted).

    Returns:
        A :class:`Roadmap`; its ``to_dict()`` is the JSON roadmap (``current_score``,
        ``target_score``, ``estimated_new_score``, ``total_fixes_needed``,
        ``estimated_total_effort``, ``priority_fixes``, ``quick_wins``) plus
        ``estimated_total_minutes``, ``target_reachable``, ``scoring_version`` and
        ``rubric_hash``.
    """
    rubric = rubric or default_rubric()
    current = _score(current_score, "current_score")
    target = _score(target_score, "target_score")
    items = []
    for i, issue in enumerate(issues):
        data = issue_fields(issue, i)
        effort = _effort(data, i)
        items.append((data, effort, _impact(data, rubric), i))
    items.sort(key=lambda t: (_SEVERITY_RANK[t[0]["severity"]], _EFFORT_RANK[t[1]], _line(t[0]), t[3]))

    running = current
    selected = []
    if running < target:
        for item in items:
            selected.append(item)
            running += item[2]
            if running >= target:
                break
    fixes = tuple(
        PlannedFix(
            rank=rank,
            issue_type=str(data.get("type", "")),
            severity=data["severity"],
            location=_location(data),
            line=_line(data),
            impact=impact,
            effort=effort,
            message=str(data.get("message", "")),
        )
        for rank, (data, effort, impact, _) in enumerate(selected, start=1)
    )
    return Roadmap(
        current_score=current,
        target_score=target,
        new_score=min(running, dec(MAX_SCORE)),
        minutes=sum(EFFORT_MINUTES[effort] for _, effort, _, _ in selected),
        reachable=running >= target,
        fixes=fixes,
        quick_wins=_quick_wins(items, rubric),
        rubric_hash=rubric.hash,
    )


def _quick_wins(
    items: list[tuple[dict[str, Any], Effort, Decimal, int]], rubric: Rubric
) -> tuple[QuickWin, ...]:
    floor = rubric.weight("warning_issue")
    wins = [t for t in items if t[1] == "low" and t[2] > 0 and t[2] >= floor]
    wins.sort(key=lambda t: -t[2])  # stable: keeps the priority order among equal impacts
    return tuple(
        QuickWin(
            issue_type=str(data.get("type") or ""),
            section=str(data.get("section") or ""),
            line=_line(data),
            minutes=EFFORT_MINUTES[effort],
            impact=impact,
        )
        for data, effort, impact, _ in wins[:MAX_QUICK_WINS]
    )
