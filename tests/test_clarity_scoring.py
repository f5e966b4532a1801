"""The clarity scoring core: rubric, formula, dimensions, roadmap, explanation.

Expected values are worked out by hand from the formula in docs/clarity.md. Where a score
passed in disagrees with the formula (5.5 for 3 critical issues and 5 or 9 warnings), the
formula wins and the test says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from docmentor.clarity.explain import explain_calculation, explain_score
from docmentor.clarity.models import DIMENSIONS, Issue, Severity
from docmentor.clarity.roadmap import effort_band, get_improvement_roadmap
from docmentor.clarity.rubric import (
    SCORING_RUBRIC,
    SCORING_VERSION,
    WEIGHTS,
    Rubric,
    default_rubric,
    load_rubric,
)
from docmentor.clarity.scoring import (
    calculate_clarity_score,
    calculate_dimension_score,
    count_by_dimension,
    dashboard_metrics,
    dimension_scores,
    issue_counts,
    quality_rating,
)
from docmentor.errors import UsageError


def counts(c: int, w: int, i: int, **extra: Any) -> dict[str, Any]:
    return {"critical_issues": c, "warning_issues": w, "info_issues": i, **extra}


# -- score tables ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "score", "grade", "tier"),
    [
        # issue counts only (no code metrics given → no content penalty)
        (counts(0, 0, 0), 10.0, "A+", "10.0"),
        (counts(0, 3, 2), 8.3, "A", "8.0-9.9"),
        (counts(1, 5, 1), 5.4, "C", "4.0-5.9"),
        (counts(4, 8, 0), 0.0, "F", "0.0-1.9"),
        # unit tests
        (counts(0, 0, 0, total_code_blocks=10, executable_examples=10), 10.0, "A+", "10.0"),
        (counts(2, 3, 1, total_code_blocks=8, executable_examples=5), 4.4, "C", "4.0-5.9"),
        # validation test: tier criteria match the formula
        (counts(0, 3, 0, total_code_blocks=10, executable_examples=10), 8.5, "A", "8.0-9.9"),
    ],
)
def test_design_test_tables(inputs: dict[str, Any], score: float, grade: str, tier: str) -> None:
    result = calculate_clarity_score(inputs).to_dict()
    assert (result["overall_score"], result["grade"], result["rubric_tier"]) == (score, grade, tier)
    assert result["rubric_description"] == SCORING_RUBRIC[tier]["description"]
    assert result["scoring_version"] == SCORING_VERSION
    assert result["rubric_hash"] == default_rubric().hash


def test_tier_criteria_match_formula() -> None:
    result = calculate_clarity_score(counts(0, 3, 0, total_code_blocks=10, executable_examples=10)).to_dict()
    assert result["rubric_tier"] == "8.0-9.9"
    assert result["meets_criteria"] is True
    assert result["calculation"] == "10.0 - (0 × 2.0) - (3 × 0.5) = 8.5"


def test_example_calculation_follows_the_formula_not_the_old_agent() -> None:
    """3 critical issues and 9 warnings: the formula gives 0.0, not 5.5."""
    inputs = counts(
        3,
        9,
        0,
        total_code_blocks=1,
        successful_examples=1,
        failed_examples=0,
        total_api_signatures=0,
        valid_api_signatures=0,
        invalid_api_signatures=0,
        missing_api_signatures=0,
        broken_links=0,
        missing_alt_text=0,
    )
    result = calculate_clarity_score(inputs).to_dict()
    assert result["overall_score"] == 0.0
    assert result["grade"] == "F"
    assert result["calculation"] == "10.0 - (3 × 2.0) - (9 × 0.5) = -0.5 → 0.0"
    assert result["calculation_breakdown"]["total_penalty"] == 10.5
    assert [p["type"] for p in result["calculation_breakdown"]["penalties"]] == [
        "critical_issues",
        "warning_issues",
    ]


def test_mcp_api_example_input_follows_the_formula() -> None:
    """A full calculate_clarity_score input: the score follows the weights (not a quoted 5.5)."""
    inputs = {
        "critical_issues": 3,
        "warning_issues": 5,
        "info_issues": 1,
        "total_code_blocks": 12,
        "successful_examples": 8,
        "failed_examples": 2,
        "skipped_examples": 2,
        "total_api_signatures": 15,
        "valid_api_signatures": 12,
        "invalid_api_signatures": 2,
        "missing_api_signatures": 1,
        "api_accuracy_score": 0.8,
        "broken_links": 2,
        "missing_alt_text": 0,
    }
    result = calculate_clarity_score(inputs).to_dict()
    breakdown = result["calculation_breakdown"]
    assert result["overall_score"] == 0.0
    assert breakdown["starting_score"] == 10.0
    assert breakdown["total_penalty"] == 14.0
    assert [(p["type"], p["count"], p["penalty"]) for p in breakdown["penalties"]] == [
        ("critical_issues", 3, 6.0),
        ("warning_issues", 5, 2.5),
        ("info_issues", 1, 0.1),
        ("failed_examples", 2, 2.0),
        ("invalid_api_signatures", 2, 1.6),
        ("missing_api_signatures", 1, 1.2),
        ("broken_links", 2, 0.6),
    ]
    assert breakdown["penalties"][0]["explanation"] == "3 critical issues × 2.0 points each"
    assert breakdown["penalties"][1]["explanation"] == "5 warnings × 0.5 points each"
    assert breakdown["penalties"][-1]["explanation"] == "2 broken links × 0.3 points each"
    assert result["quality_rating"] == "unusable"


def test_data_flow_example() -> None:
    """The "Data Flow" request: 3/5/1, 12 blocks, 8 executable, 2 broken links → 0.8 (not 5.5)."""
    inputs = counts(3, 5, 1, total_code_blocks=12, executable_examples=8, broken_links=2, missing_alt_text=0)
    result = calculate_clarity_score(inputs).to_dict()
    assert result["overall_score"] == 0.8
    assert result["calculation"] == "10.0 - (3 × 2.0) - (5 × 0.5) - (1 × 0.1) - (2 × 0.3) = 0.8"


@pytest.mark.parametrize(
    ("dim", "c", "w", "i", "score", "calculation"),
    [
        ("logical_flow", 1, 2, 0, 7.0, "10.0 - (1 × 2.0) - (2 × 0.5) - (0 × 0.1) = 7.0"),
        ("logical_flow", 2, 3, 0, 4.5, "10.0 - (2 × 2.0) - (3 × 0.5) - (0 × 0.1) = 4.5"),
        ("consistency", 0, 0, 3, 9.7, "10.0 - (0 × 2.0) - (0 × 0.5) - (3 × 0.1) = 9.7"),
        ("completeness", 6, 1, 0, 0.0, "10.0 - (6 × 2.0) - (1 × 0.5) - (0 × 0.1) = -2.5 → 0.0"),
    ],
)
def test_dimension_score(dim: str, c: int, w: int, i: int, score: float, calculation: str) -> None:
    result = calculate_dimension_score(dim, c, w, i).to_dict()
    assert result["dimension"] == dim
    assert result["score"] == score
    assert result["calculation"] == calculation


def test_dimension_score_rejects_unknown_dimension() -> None:
    with pytest.raises(UsageError, match="unknown dimension"):
        calculate_dimension_score("vibes", 0, 0, 0)


# -- the rubric ----------------------------------------------------------------------------


def test_default_rubric_is_the_design() -> None:
    rubric = default_rubric()
    assert dict(rubric.weights) == {
        "critical_issue": 2.0,
        "warning_issue": 0.5,
        "info_issue": 0.1,
        "failed_example": 1.0,
        "no_code_blocks_penalty": 2.0,
        "no_successful_examples": 1.5,
        "invalid_api_signature": 0.8,
        "missing_api": 1.2,
        "low_api_accuracy_penalty": 2.0,
        "broken_link": 0.3,
        "missing_alt_text": 0.1,
    }
    assert rubric.api_accuracy_threshold == 0.7
    expected = {k: {**v, "range": list(v["range"])} for k, v in SCORING_RUBRIC.items()}
    assert rubric.tiers_dict() == expected
    assert [t.grade for t in rubric.tiers] == ["A+", "A", "B", "C", "D", "F"]
    assert len(rubric.hash) == 12
    int(rubric.hash, 16)
    assert json.loads(json.dumps(rubric.to_dict()))["rubric_hash"] == rubric.hash


def test_rubric_tiers_non_overlapping() -> None:
    ranges = [tier["range"] for tier in SCORING_RUBRIC.values()]
    for i, (min1, max1) in enumerate(ranges):
        for j, (min2, max2) in enumerate(ranges):
            if i != j:
                assert not (min1 <= max2 and min2 <= max1)


def test_tiers_cover_every_score_exactly_once() -> None:
    rubric = default_rubric()
    for tenths in range(101):
        score = tenths / 10
        assert sum(t.contains(score) for t in rubric.tiers) == 1, score


def test_formula_produces_valid_scores() -> None:
    rubric = default_rubric()
    for critical in range(10):
        for warnings in range(15):
            for info in range(5):
                result = calculate_clarity_score(
                    counts(critical, warnings, info, total_code_blocks=10, executable_examples=5)
                ).to_dict()
                score = result["overall_score"]
                assert 0.0 <= score <= 10.0
                expected = max(
                    Decimal(0), 10 - 2 * critical - Decimal("0.5") * warnings - Decimal("0.1") * info
                )
                assert Decimal(str(score)) == expected
                assert result["grade"] == rubric.tier_for(score).grade
                assert rubric.tier_for(score).contains(score)


def test_scoring_is_deterministic() -> None:
    inputs = counts(3, 5, 1, total_code_blocks=10, executable_examples=8, broken_links=1)
    outputs = {
        json.dumps(calculate_clarity_score(inputs).to_dict(), sort_keys=True, ensure_ascii=False)
        for _ in range(5)
    }
    assert len(outputs) == 1


def test_scoring_is_identical_across_processes() -> None:
    code = (
        "import json; from docmentor.clarity.scoring import calculate_clarity_score as f;"
        "print(json.dumps(f({'critical_issues': 1, 'warning_issues': 5, 'info_issues': 1,"
        " 'broken_links': 3}).to_dict(), sort_keys=True))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(runs) == 1
    in_process = calculate_clarity_score(counts(1, 5, 1, broken_links=3)).to_dict()
    assert json.loads(runs.pop()) == in_process


# -- content, API and accessibility penalties ---------------------------------------------


def penalty_types(inputs: dict[str, Any]) -> list[tuple[str, float]]:
    result = calculate_clarity_score(inputs).to_dict()
    return [(p["type"], p["penalty"]) for p in result["calculation_breakdown"]["penalties"]]


def test_absent_code_metrics_cost_nothing() -> None:
    assert penalty_types(counts(0, 0, 0)) == []
    assert penalty_types(counts(0, 0, 0, executable_examples=0)) == []
    # code blocks but no example counts: unknown, not zero
    assert penalty_types(counts(0, 0, 0, total_code_blocks=4)) == []


def test_content_penalties() -> None:
    assert penalty_types(counts(0, 0, 0, total_code_blocks=0)) == [("no_code_blocks", 2.0)]
    assert penalty_types(counts(0, 0, 0, total_code_blocks=0, executable_examples=0)) == [
        ("no_code_blocks", 2.0)
    ]
    assert penalty_types(counts(0, 0, 0, total_code_blocks=3, executable_examples=0)) == [
        ("no_executable_examples", 1.5)
    ]
    assert penalty_types(counts(0, 0, 0, total_code_blocks=3, successful_examples=0)) == [
        ("no_executable_examples", 1.5)
    ]
    # both names: successful_examples wins
    assert (
        penalty_types(counts(0, 0, 0, total_code_blocks=3, successful_examples=1, executable_examples=0))
        == []
    )
    assert penalty_types(counts(0, 0, 0, total_code_blocks=3, successful_examples=1, failed_examples=2)) == [
        ("failed_examples", 2.0)
    ]
    result = calculate_clarity_score(counts(0, 0, 0, total_code_blocks=3, executable_examples=0)).to_dict()
    assert result["overall_score"] == 8.5
    assert result["calculation"] == "10.0 - (0 × 2.0) - (0 × 0.5) - 1.5 = 8.5"
    assert (
        result["calculation_breakdown"]["penalties"][0]["explanation"]
        == "No complete executable examples found"
    )


def test_api_penalties() -> None:
    assert penalty_types({"invalid_api_signatures": 2, "missing_api_signatures": 1}) == [
        ("invalid_api_signatures", 1.6),
        ("missing_api_signatures", 1.2),
    ]
    assert penalty_types({"total_api_signatures": 10, "api_accuracy_score": 0.6}) == [
        ("low_api_accuracy", 2.0)
    ]
    assert penalty_types({"total_api_signatures": 10, "api_accuracy_score": 0.7}) == []
    # accuracy derived from valid / total when not given
    assert penalty_types({"total_api_signatures": 10, "valid_api_signatures": 6}) == [
        ("low_api_accuracy", 2.0)
    ]
    assert penalty_types({"total_api_signatures": 10, "valid_api_signatures": 7}) == []
    # no API signatures: accuracy is never penalised
    assert penalty_types({"total_api_signatures": 0, "api_accuracy_score": 0.0}) == []
    assert penalty_types({"api_accuracy_score": 0.1}) == []


def test_accessibility_penalties() -> None:
    assert penalty_types({"broken_links": 3, "missing_alt_text": 4}) == [
        ("broken_links", 0.9),
        ("missing_alt_text", 0.4),
    ]
    result = calculate_clarity_score({"broken_links": 1, "missing_alt_text": 1}).to_dict()
    assert result["overall_score"] == 9.6
    explanations = [p["explanation"] for p in result["calculation_breakdown"]["penalties"]]
    assert explanations == ["1 broken link × 0.3 points each", "1 image without alt text × 0.1 points each"]


@pytest.mark.parametrize(
    ("inputs", "match"),
    [
        ({"critical": 1}, "unknown scoring input"),
        ({"critical_issues": -1}, "must not be negative"),
        ({"critical_issues": True}, "non-negative integer"),
        ({"warning_issues": 1.5}, "whole number"),
        ({"info_issues": "2"}, "non-negative integer"),
        ({"api_accuracy_score": 1.5}, "within 0..1"),
    ],
)
def test_bad_inputs(inputs: dict[str, Any], match: str) -> None:
    with pytest.raises(UsageError, match=match):
        calculate_clarity_score(inputs)


def test_integral_floats_are_counts() -> None:
    assert calculate_clarity_score({"critical_issues": 1.0}).to_dict()["overall_score"] == 8.0


def test_quality_rating_and_criteria() -> None:
    assert [quality_rating(s) for s in (10.0, 8.0, 7.9, 6.0, 5.9, 4.0, 3.9, 2.0, 1.9, 0.0)] == [
        "excellent",
        "excellent",
        "good",
        "good",
        "needs_improvement",
        "needs_improvement",
        "poor",
        "poor",
        "unusable",
        "unusable",
    ]
    # one critical alone scores 8.0 (tier A) but tier A demands no critical issue
    result = calculate_clarity_score(counts(1, 0, 0)).to_dict()
    assert (result["overall_score"], result["grade"], result["meets_criteria"]) == (8.0, "A", False)
    assert calculate_clarity_score(counts(0, 0, 2)).to_dict()["meets_criteria"] is True
    assert (
        calculate_clarity_score(counts(1, 5, 1)).to_dict()["meets_criteria"] is True
    )  # C: ≤ 3 critical, ≥ 5 warnings
    assert (
        calculate_clarity_score(counts(2, 3, 1)).to_dict()["meets_criteria"] is False
    )  # C wants ≥ 5 warnings


# -- rubric files -----------------------------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rubric.toml"
    path.write_text(text, encoding="utf-8")
    return path


TWO_TIERS = """
[tiers."5.0-10.0"]
range = [5.0, 10.0]
grade = "PASS"
description = "Good enough"
criteria = { max_critical_issues = 1 }
characteristics = ["Can be followed"]

[tiers."0.0-4.9"]
range = [0.0, 4.9]
grade = "FAIL"
description = "Not good enough"
"""


def test_rubric_file_overrides_weights(tmp_path: Path) -> None:
    rubric = load_rubric(write(tmp_path, "[weights]\ncritical_issue = 3\nwarning_issue = 1.0\n"))
    assert rubric.weights["critical_issue"] == 3.0
    assert rubric.weights["info_issue"] == 0.1
    assert rubric.hash != default_rubric().hash
    assert rubric.tiers == default_rubric().tiers
    result = calculate_clarity_score(counts(1, 2, 0), rubric).to_dict()
    assert result["overall_score"] == 5.0
    assert result["rubric_hash"] == rubric.hash
    assert result["calculation"] == "10.0 - (1 × 3.0) - (2 × 1.0) = 5.0"
    assert calculate_dimension_score("consistency", 1, 2, 0, rubric=rubric).to_dict()["score"] == 5.0
    explained = explain_score(critical_issues=1, warning_issues=2, rubric=rubric).to_dict()
    assert (
        explained["formula"]
        == "10.0 - (critical × 3.0) - (warnings × 1.0) - (info × 0.1) - content_penalties"
    )
    assert explained["final_score"] == 5.0


def test_rubric_file_overrides_tiers(tmp_path: Path) -> None:
    rubric = load_rubric(write(tmp_path, TWO_TIERS))
    assert [t.label for t in rubric.tiers] == ["5.0-10.0", "0.0-4.9"]
    assert rubric.hash != default_rubric().hash
    result = calculate_clarity_score(counts(2, 3, 1), rubric).to_dict()  # 4.4
    assert (result["grade"], result["rubric_tier"], result["rubric_description"]) == (
        "FAIL",
        "0.0-4.9",
        "Not good enough",
    )
    result = calculate_clarity_score(counts(1, 5, 1), rubric).to_dict()  # 5.4
    assert (result["grade"], result["meets_criteria"]) == ("PASS", True)


def test_rubric_hash_ignores_where_it_came_from(tmp_path: Path) -> None:
    same = load_rubric(write(tmp_path, "[weights]\ncritical_issue = 2.0\n"))
    assert same.hash == default_rubric().hash
    assert same == default_rubric()
    assert same.source == str(tmp_path / "rubric.toml")
    again = load_rubric(write(tmp_path, "api_accuracy_threshold = 0.8\n"))
    assert again.hash != default_rubric().hash
    assert penalty_types({"total_api_signatures": 10, "api_accuracy_score": 0.75}) == []
    result = calculate_clarity_score(
        {"total_api_signatures": 10, "api_accuracy_score": 0.75}, again
    ).to_dict()
    assert result["overall_score"] == 8.0


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[weight]\ncritical_issue = 1\n", "unknown key 'weight'"),
        ("[weights]\ncritical = 1\n", "unknown weight 'weights.critical'"),
        ('[weights]\ncritical_issue = "high"\n', "'weights.critical_issue' must be a number"),
        ("[weights]\ncritical_issue = true\n", "'weights.critical_issue' must be a number"),
        ("[weights]\nwarning_issue = -0.5\n", "'weights.warning_issue' must not be negative"),
        ("api_accuracy_threshold = 2\n", "api_accuracy_threshold"),
        ("[weights\n", "not valid TOML"),
        ('weights = "x"\n', "'weights' must be a table"),
        (TWO_TIERS.replace("range = [0.0, 4.9]", "range = [0.0, 5.0]"), "does not match its range"),
        (
            TWO_TIERS.replace('"0.0-4.9"', '"0.0-5.0"').replace("range = [0.0, 4.9]", "range = [0.0, 5.0]"),
            "overlap: '0.0-5.0' and '5.0-10.0'",
        ),
        (
            TWO_TIERS.replace('"0.0-4.9"', '"0.0-4.8"').replace("range = [0.0, 4.9]", "range = [0.0, 4.8]"),
            "gap between '0.0-4.8' and '5.0-10.0'",
        ),
        (
            TWO_TIERS.replace('"0.0-4.9"', '"1.0-4.9"').replace("range = [0.0, 4.9]", "range = [1.0, 4.9]"),
            "no tier starts at 0.0",
        ),
        (
            TWO_TIERS.replace('"5.0-10.0"', '"5.0-9.0"').replace("range = [5.0, 10.0]", "range = [5.0, 9.0]"),
            "no tier ends at 10.0",
        ),
        (
            TWO_TIERS.replace("max_critical_issues", "max_bugs"),
            "unknown key 'tiers.5.0-10.0.criteria.max_bugs'",
        ),
        (
            TWO_TIERS.replace('grade = "FAIL"', 'grade = "FAIL"\ncolour = "red"'),
            "unknown key 'tiers.0.0-4.9.colour'",
        ),
        (TWO_TIERS.replace('description = "Not good enough"', ""), "'tiers.0.0-4.9' needs 'description'"),
        (TWO_TIERS.replace("range = [0.0, 4.9]", "range = [0.0, 4.95]"), "one decimal"),
        (TWO_TIERS.replace("range = [5.0, 10.0]", "range = [5.0, 11.0]"), "high <= 10.0"),
    ],
)
def test_bad_rubric_files(tmp_path: Path, text: str, match: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(UsageError, match=match) as info:
        load_rubric(path)
    assert str(path) in str(info.value)


def test_missing_rubric_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read rubric file"):
        load_rubric(tmp_path / "nope.toml")


def test_rubric_is_immutable() -> None:
    rubric = default_rubric()
    with pytest.raises(TypeError):
        rubric.weights["critical_issue"] = 0.0  # type: ignore[index]
    assert isinstance(rubric, Rubric)
    assert {rubric: 1}[default_rubric()] == 1  # usable as a cache key


# -- issues, dimensions, dashboard -------------------------------------------------------------


def issue(severity: Severity, dims: list[str], **kw: Any) -> Issue:
    fields: dict[str, Any] = {"type": "x", "line": 1, "section": "S", "message": "m"}
    fields.update(kw)
    return Issue(severity=severity, dimensions=dims, **fields)


def test_dimension_scores_from_issues() -> None:
    issues: list[Any] = [
        issue("critical", ["logical_flow", "completeness"]),
        issue("warning", ["logical_flow"]),
        {"type": "y", "severity": "warning", "dimensions": ["logical_flow"], "line": 3},
        {"type": "z", "severity": "info", "dimensions": ["consistency"]},
        issue("warning", ["completeness"], counts_as="broken_links"),  # counted as a link, not an issue
    ]
    assert dimension_scores(issues) == {
        "instruction_clarity": 10.0,
        "logical_flow": 7.0,
        "completeness": 8.0,
        "consistency": 9.9,
        "prerequisite_coverage": 10.0,
    }
    assert list(dimension_scores([])) == list(DIMENSIONS)
    assert count_by_dimension(issues, "logical_flow") == {"critical": 1, "warning": 2, "info": 0}
    assert issue_counts(issues) == {
        "critical_issues": 1,
        "warning_issues": 2,
        "info_issues": 1,
        "broken_links": 1,
        "missing_alt_text": 0,
    }
    with pytest.raises(UsageError, match="issue #1 has severity 'blocker'"):
        issue_counts([{"severity": "blocker"}])


def test_dashboard_metrics() -> None:
    # 8 code examples, 6 runnable, 2 critical issues
    inputs = counts(2, 3, 1, total_code_blocks=8, executable_examples=6)
    assert dashboard_metrics(inputs) == {
        "score_grade": "C",
        "completeness_percent": 75.0,
        "blocker_count": 2,
        "health_status": "needs_attention",
    }
    assert dashboard_metrics(counts(0, 1, 0, total_code_blocks=3, executable_examples=3)) == {
        "score_grade": "A",
        "completeness_percent": 100.0,
        "blocker_count": 0,
        "health_status": "healthy",
    }
    bad = dashboard_metrics(counts(1, 9, 0, total_code_blocks=2, executable_examples=1, failed_examples=1))
    assert (bad["blocker_count"], bad["health_status"], bad["completeness_percent"]) == (2, "critical", 50.0)
    assert dashboard_metrics(counts(0, 0, 0))["completeness_percent"] is None
    assert dashboard_metrics(counts(0, 0, 0, total_code_blocks=0))["completeness_percent"] == 0.0
    # 8.0 with a blocker is not healthy
    assert dashboard_metrics(counts(1, 0, 0))["health_status"] == "needs_attention"
    result = calculate_clarity_score(inputs)
    assert dashboard_metrics(inputs, result=result) == dashboard_metrics(inputs)


# -- roadmap ---------------------------------------------------------------------------------


def test_roadmap_design_unit_test() -> None:
    issues = [
        {"type": "syntax_error", "severity": "critical", "line": 14, "section": "Intro"},
        {"type": "unclear", "severity": "warning", "line": 23, "section": "Setup"},
        {"type": "missing_prereq", "severity": "critical", "line": 1, "section": "Top"},
    ]
    result = get_improvement_roadmap(5.0, 8.0, issues).to_dict()
    assert [f["severity"] for f in result["priority_fixes"]] == ["critical", "critical"]
    assert result["estimated_new_score"] >= 8.0
    # syntax_error is low effort, missing_prereq (unknown type) medium: low first despite the later line
    assert [f["issue_type"] for f in result["priority_fixes"]] == ["syntax_error", "missing_prereq"]
    assert result["priority_fixes"][0] == {
        "rank": 1,
        "issue_type": "syntax_error",
        "severity": "critical",
        "location": "Intro (line 14)",
        "line": 14,
        "impact": "+2.0 points",
        "estimated_effort": "low",
        "message": "",
    }
    assert result["estimated_new_score"] == 9.0
    assert result["total_fixes_needed"] == 2
    assert result["estimated_total_minutes"] == 90
    assert result["estimated_total_effort"] == "low (< 2 hours)"
    assert result["quick_wins"] == ["Fix syntax error in Intro (line 14) - 30 min, +2.0 impact"]
    assert result["target_reachable"] is True
    assert result["rubric_hash"] == default_rubric().hash


def test_roadmap_mcp_example_orders_by_effort() -> None:
    """A medium-effort fix given first is listed after the low-effort one (roadmap.py's order)."""
    issues = [
        {
            "type": "logical_gap",
            "severity": "critical",
            "line": 45,
            "section": "Configuration",
            "message": "Step 3 references config.yaml not created earlier",
            "estimated_effort": "medium",
        },
        {
            "type": "missing_examples",
            "severity": "critical",
            "line": 11,
            "section": "Connection",
            "message": "No concrete example of connecting to LanceDB Cloud",
            "estimated_effort": "low",
        },
        {"type": "missing_prerequisites", "severity": "warning", "line": 0, "section": "", "message": "m"},
    ]
    result = get_improvement_roadmap(5.5, 8.0, issues).to_dict()
    assert [(f["rank"], f["issue_type"], f["location"]) for f in result["priority_fixes"]] == [
        (1, "missing_examples", "Connection (line 11)"),
        (2, "logical_gap", "Configuration (line 45)"),
    ]
    assert result["estimated_new_score"] == 9.5
    assert result["estimated_total_effort"] == "low (< 2 hours)"
    assert result["quick_wins"] == [
        "Fix missing examples in Connection (line 11) - 30 min, +2.0 impact",
        "Fix missing prerequisites - 30 min, +0.5 impact",
    ]


def test_roadmap_stop_rule_and_order() -> None:
    issues: list[Any] = [
        issue("info", [], type="heading_structure", line=1, effort="low"),
        issue("warning", [], type="a", line=30, effort="high"),
        issue("warning", [], type="b", line=20, effort="low"),
        issue("warning", [], type="c", line=10, effort="low"),
        issue("critical", [], type="d", line=50, effort="high"),
        issue("warning", [], type="e", line=5, effort="medium"),
    ]
    # 6.0 + 2.0 (d) = 8.0 reaches 8.0 exactly: stop
    result = get_improvement_roadmap(6.0, 8.0, issues).to_dict()
    assert [f["issue_type"] for f in result["priority_fixes"]] == ["d"]
    assert result["estimated_new_score"] == 8.0
    assert result["estimated_total_effort"] == "medium (2-6 hours)"
    # 6.0 → 9.0: d, then warnings low (by line: c, b), medium (e)
    result = get_improvement_roadmap(6.0, 9.0, issues).to_dict()
    assert [f["issue_type"] for f in result["priority_fixes"]] == ["d", "c", "b"]
    assert result["estimated_new_score"] == 9.0
    # 6.0 + 2.0 + 4 × 0.5 = 10.0: the info issue is not needed
    result = get_improvement_roadmap(6.0, 10.0, issues).to_dict()
    assert [f["issue_type"] for f in result["priority_fixes"]] == ["d", "c", "b", "e", "a"]
    assert result["estimated_new_score"] == 10.0
    # capped at 10
    result = get_improvement_roadmap(9.5, 10.0, issues).to_dict()
    assert [f["issue_type"] for f in result["priority_fixes"]] == ["d"]
    assert result["estimated_new_score"] == 10.0
    # unreachable: everything
    result = get_improvement_roadmap(2.0, 9.0, issues).to_dict()
    assert [f["issue_type"] for f in result["priority_fixes"]] == [
        "d",
        "c",
        "b",
        "e",
        "a",
        "heading_structure",
    ]
    assert result["estimated_new_score"] == 6.1
    assert result["target_reachable"] is False
    assert result["total_fixes_needed"] == 6
    assert result["estimated_total_minutes"] == 240 + 30 + 30 + 60 + 240 + 30
    assert result["estimated_total_effort"] == "high (> 6 hours)"
    # already there: nothing to do
    result = get_improvement_roadmap(8.5, 8.0, issues).to_dict()
    assert result["priority_fixes"] == []
    assert result["estimated_new_score"] == 8.5
    assert result["total_fixes_needed"] == 0
    # quick wins: low effort, impact ≥ a warning's, highest impact first
    assert get_improvement_roadmap(6.0, 8.0, issues).to_dict()["quick_wins"] == [
        "Fix c in S (line 10) - 30 min, +0.5 impact",
        "Fix b in S (line 20) - 30 min, +0.5 impact",
    ]


def test_roadmap_link_and_alt_text_impacts() -> None:
    issues: list[Any] = [
        issue("warning", [], type="broken_anchor", counts_as="broken_links", line=3),
        {"type": "missing_alt_text", "severity": "info", "line": 9, "section": "Pics"},
    ]
    result = get_improvement_roadmap(9.0, 10.0, issues).to_dict()
    assert [f["impact"] for f in result["priority_fixes"]] == ["+0.3 points", "+0.1 points"]
    assert result["estimated_new_score"] == 9.4
    assert result["priority_fixes"][1]["estimated_effort"] == "low"


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((11, 8.0, []), "'current_score' must be a number within 0..10"),
        ((5.0, "8", []), "'target_score'"),
        ((5.0, 8.0, [{"severity": "bad"}]), "issue #1 has severity"),
        (
            (5.0, 8.0, [{"severity": "info", "estimated_effort": "huge"}]),
            "issue #1 has estimated_effort 'huge'",
        ),
        ((5.0, 8.0, ["text"]), "issue #1 must be an object"),
        (
            (5.0, 8.0, [{"severity": "info", "line": 3}, {"severity": "info", "line": "twelve"}]),
            "issue #2 has line",
        ),
        ((5.0, 8.0, [{"severity": "info", "line": -1}]), "issue #1 has line -1"),
        ((5.0, 8.0, [{"severity": "info", "line": True}]), "issue #1 has line True"),
        ((5.0, 8.0, [{"severity": "info", "line": 12.5}]), "issue #1 has line 12.5"),
    ],
)
def test_roadmap_bad_input(args: tuple[Any, ...], match: str) -> None:
    with pytest.raises(UsageError, match=match):
        get_improvement_roadmap(*args)


def test_effort_bands() -> None:
    assert effort_band(0) == "low (< 2 hours)"
    assert effort_band(119) == "low (< 2 hours)"
    assert effort_band(120) == "medium (2-6 hours)"
    assert effort_band(360) == "medium (2-6 hours)"
    assert effort_band(361) == "high (> 6 hours)"


# -- explanation ---------------------------------------------------------------------------------


def test_explain_numbers_in_the_formula() -> None:
    result = explain_score(critical_issues=3, warning_issues=5).to_dict()
    assert result["calculation"] == "10.0 - (3 × 2.0) - (5 × 0.5) = 1.5"
    assert result["final_score"] == 1.5
    assert result["grade"] == "F"
    assert result["tier_description"] == "Unusable - Cannot Be Followed"
    assert result["human_explanation"] == (
        "Unusable documentation that cannot be followed: 3 critical and 5 warning issues. "
        "A complete rewrite is required."
    )
    assert result["rubric_match"] is True
    assert "note" not in result
    assert "given_score" not in result


def test_explain_design_example() -> None:
    """An explain_score call with a score of 5.5 that the formula does not give."""
    result = explain_score(
        5.5,
        critical_issues=3,
        warning_issues=5,
        info_issues=1,
        penalties_applied=[{"type": "no_executable_examples", "penalty": 1.5}],
    ).to_dict()
    assert (
        result["formula"] == "10.0 - (critical × 2.0) - (warnings × 0.5) - (info × 0.1) - content_penalties"
    )
    assert result["breakdown"] == {
        "starting_score": 10.0,
        "critical_penalty": 6.0,
        "warning_penalty": 2.5,
        "info_penalty": 0.1,
        "content_penalties": [
            {
                "type": "no_executable_examples",
                "penalty": 1.5,
                "explanation": "No complete executable examples found",
            }
        ],
    }
    assert result["calculation"] == "10.0 - (3 × 2.0) - (5 × 0.5) - (1 × 0.1) - 1.5 = -0.1 → 0.0"
    assert result["final_score"] == 0.0
    assert result["given_score"] == 5.5
    assert result["rubric_match"] is False
    assert result["note"] == (
        "The given score 5.5 does not follow from the formula, which gives 0.0; docmentor reports the formula's result."
    )
    assert result["characteristics_of_tier"] == SCORING_RUBRIC["0.0-1.9"]["characteristics"]


def test_explain_texts_per_tier() -> None:
    c_tier = explain_score(5.4, critical_issues=1, warning_issues=5, info_issues=1).to_dict()
    assert c_tier["rubric_match"] is True
    assert (c_tier["grade"], c_tier["tier_description"]) == ("C", "Acceptable - Multiple Issues")
    assert c_tier["human_explanation"] == (
        "Acceptable documentation with notable gaps: 1 critical issue blocks user progress. "
        "Requires substantial improvements."
    )
    assert c_tier["characteristics_of_tier"] == SCORING_RUBRIC["4.0-5.9"]["characteristics"]

    b_tier = explain_score(
        critical_issues=0,
        warning_issues=3,
        info_issues=1,
        penalties_applied=[{"type": "no_executable_examples", "penalty": 1.5}],
    ).to_dict()
    assert b_tier["calculation"] == "10.0 - (0 × 2.0) - (3 × 0.5) - (1 × 0.1) - 1.5 = 6.9"
    assert b_tier["human_explanation"] == (
        "Good documentation but has 3 warning and 1 info issues that should be addressed for better "
        "user experience. Content penalties cost 1.5 points (no executable examples)."
    )
    perfect = explain_score(10.0).to_dict()
    assert perfect["calculation"] == "10.0 - (0 × 2.0) - (0 × 0.5) = 10.0"
    assert perfect["human_explanation"] == "Production-ready documentation: no issues."
    assert (perfect["grade"], perfect["rubric_match"], perfect["meets_criteria"]) == ("A+", True, True)
    a_tier = explain_score(critical_issues=0, warning_issues=1, info_issues=0).to_dict()
    assert (
        a_tier["human_explanation"]
        == "Excellent documentation with only minor polish needed: 1 warning issue."
    )
    d_tier = explain_score(critical_issues=2, warning_issues=5).to_dict()
    assert d_tier["human_explanation"] == (
        "Poor documentation that blocks understanding: 2 critical and 5 warning issues. Needs a major rewrite."
    )


def test_explain_rejects_issue_penalties_as_content() -> None:
    with pytest.raises(UsageError, match="content penalties only"):
        explain_score(penalties_applied=[{"type": "critical_issues", "penalty": 2.0}])
    for amount in ("2", -5, float("inf"), float("nan"), 10**400):
        with pytest.raises(UsageError, match="a number from 0 to 1,000,000") as caught:
            explain_score(penalties_applied=[{"type": "no_code_blocks", "penalty": amount}])
        assert caught.value.hint  # the tool's error says what to pass
    # the computed penalties have no cap: 40 broken links cost 12 points, and that is explained
    assert explain_score(penalties_applied=[{"type": "broken_links", "penalty": 12.0}]).human_explanation


def test_explain_calculation_matches_calculate() -> None:
    for inputs in (
        counts(0, 0, 0),
        counts(1, 5, 1, total_code_blocks=4, executable_examples=0, broken_links=2),
        counts(0, 2, 3, total_code_blocks=0, missing_alt_text=5),
        counts(0, 0, 1, total_api_signatures=10, valid_api_signatures=5, invalid_api_signatures=5),
        counts(5, 0, 0),
    ):
        result = calculate_clarity_score(inputs).to_dict()
        explained = explain_calculation(inputs).to_dict()
        assert explained["final_score"] == result["overall_score"]
        assert explained["grade"] == result["grade"]
        assert explained["calculation"] == result["calculation"]
        assert explained["rubric_match"] is True
        assert explained["meets_criteria"] == result["meets_criteria"]


def test_weights_constant_is_the_default() -> None:
    assert dict(default_rubric().weights) == WEIGHTS


def test_explanation_of_a_score_lowered_only_by_content_penalties() -> None:
    text = explain_score(
        penalties_applied=[{"type": "invalid_api_signatures", "penalty": 2.4}]
    ).human_explanation
    assert text.startswith("Good documentation with no critical, warning or info issues: what it loses")
    assert "has no issues that should" not in text
    assert "Content penalties cost 2.4 points" in text


def test_a_whole_line_number_written_as_a_float_is_a_line() -> None:
    roadmap = get_improvement_roadmap(5.0, 9.0, [{"severity": "warning", "type": "x", "line": 12.0}])
    assert "(line 12)" in roadmap.to_dict()["priority_fixes"][0]["location"]
