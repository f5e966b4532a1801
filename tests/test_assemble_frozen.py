"""The assembly's results are values: a digest, its documents and its sections cannot be
changed after they are built, and ``Digest.to_dict`` is the JSON digest as a dict."""

from __future__ import annotations

import dataclasses
import json

import pytest

from docmentor.assemble.distill import distill
from docmentor.assemble.models import Candidate, Digest, DocumentScore

TEXT = "## Timeouts\n\nSet a timeout with `timeout=5`.\n\n" + "A sentence about waiting. " * 60


def digest(max_tokens: int) -> Digest:
    doc = DocumentScore(
        document_id=1,
        source="docs",
        path="docs/timeouts.md",
        url="",
        title="Timeouts",
        relevance=1.0,
        canonicality=0.8,
        combined=0.94,
        status="canonical",
        updated_at=None,
    )
    cand = Candidate(
        section_id=1,
        document_id=1,
        source="docs",
        path="docs/timeouts.md",
        url="",
        title="Timeouts",
        heading="Timeouts",
        heading_path=["Timeouts"],
        anchor="timeouts",
        line_start=1,
        line_end=1 + TEXT.count("\n"),
        text=TEXT,
        relevance=1.0,
    )
    return distill(
        query="how do I set a timeout?",
        documents=[doc],
        candidates=[cand],
        max_tokens=max_tokens,
        encoding="o200k_base",
        documents_scanned=1,
        stats={"candidate_sections": 1, "relevance_threshold": 0.15, "cross_references": 0},
        generated_at="2026-01-01T00:00:00Z",
        primary_areas=["timeouts"],
        fmt="json",
    )


def test_a_digest_and_its_parts_cannot_be_changed() -> None:
    d = digest(400)
    assert d.sections and d.sections[0].trimmed and d.documents
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.markdown = ""  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.sections[0].text = ""  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.documents[0].combined = 0.0  # type: ignore[misc]


def test_to_dict_is_the_json_digest() -> None:
    for budget in (400, 2000):
        d = digest(budget)
        assert d.to_dict() == json.loads(d.json_text)
        assert d.to_dict()["actual_tokens"] == d.actual_tokens
