"""The clarity functions return frozen, typed results whose ``to_dict`` is the JSON the CLI
prints and the MCP tools return (key order included)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import docmentor

PAGE = "# Install\n\nRun `pip install acme`.\n\n## Use\n\n```python\nimport acme\nacme.go(x)\n```\n\n[gone](nowhere.md)\n"


def test_a_scored_document_is_a_value_and_its_dict_is_the_json(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    report = docmentor.score_paths([page], target=9.0)
    assert isinstance(report, docmentor.ClarityReport)
    (doc,) = report.documents
    assert isinstance(doc, docmentor.DocumentClarity) and doc.path == str(page)
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.path = "other.md"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.issues[0].line = 1  # type: ignore[misc]
    data = report.to_dict()
    assert list(data) == ["generated_at", "documents", "summary"]
    (d,) = data["documents"]
    assert list(d) == [
        "path",
        "url",
        "clarity_score",
        "score_explanation",
        "improvement_roadmap",
        "dashboard_metrics",
        "dimension_scores",
        "metrics",
        "issues",
        "clarity_issues",
        "structural_issues",
        "summary",
    ]
    # the typed fields and the JSON tell one story
    assert d["clarity_score"]["overall_score"] == doc.score.overall_score
    assert d["improvement_roadmap"] == doc.roadmap.to_dict()
    assert d["score_explanation"] == doc.explanation.to_dict()
    assert [i["type"] for i in d["issues"]] == [i.type for i in doc.issues]
    assert d["summary"]["broken_links"] == doc.broken_links == 1
    assert data["summary"] == report.summary.to_dict()
    assert data["summary"]["critical_issues"] == doc.issue_count("critical")


def test_the_formula_functions_return_their_result_types() -> None:
    score = docmentor.calculate_clarity_score({"critical_issues": 1, "total_code_blocks": 0})
    assert isinstance(score, docmentor.ClarityScore) and score.overall_score == 6.0
    assert [p.type for p in score.penalties] == ["critical_issues", "no_code_blocks"]
    assert score.to_dict()["calculation_breakdown"]["penalties"][1]["penalty"] == 2.0
    dim = docmentor.calculate_dimension_score("consistency", 0, 1, 0)
    assert isinstance(dim, docmentor.DimensionScore) and dim.score == 9.5
    explained = docmentor.explain_score(5.5, critical_issues=2)
    assert isinstance(explained, docmentor.ScoreExplanation)
    assert (explained.final_score, explained.rubric_match, explained.given_score) == (6.0, False, 5.5)
    assert list(explained.to_dict())[-2:] == ["given_score", "note"]
    assert "given_score" not in docmentor.explain_score(critical_issues=2).to_dict()
    roadmap = docmentor.get_improvement_roadmap(6.0, 8.0, [{"type": "syntax_error", "severity": "critical"}])
    assert isinstance(roadmap, docmentor.Roadmap) and roadmap.reachable
