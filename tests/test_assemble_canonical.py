"""Canonicality, factor by factor: each one moves the score by what the module documents,
the sum is clamped to [0, 1], and the fixture corpus (a real index) ranks as a reader would."""

from __future__ import annotations

import json
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from docmentor.assemble.canonical import FACTOR_KEYS, CanonicalScore, canonicality, front_matter_status
from docmentor.assemble.links import LinkGraph
from docmentor.engine import Docmentor

FIXTURE = Path(__file__).parent / "fixtures" / "assemble"
NOW = datetime(2025, 11, 29, 15, 23, tzinfo=UTC)


def score(
    path: str = "notes/misc.md",
    *,
    meta: dict[str, Any] | None = None,
    updated_at: str | None = None,
    authority: float = 0.0,
    now: datetime = NOW,
) -> CanonicalScore:
    return canonicality(
        path=path, title="", meta=meta or {}, updated_at=updated_at, authority=authority, now=now
    )


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).isoformat().replace("+00:00", "Z")


def test_baseline_alone() -> None:
    s = score()
    assert s.score == 0.5
    assert s.status == "secondary"
    assert s.factors == {
        "baseline": 0.5,
        "path": 0.0,
        "filename": 0.0,
        "recency": 0.0,
        "status": 0.0,
        "links": 0.0,
    }
    assert tuple(s.factors) == FACTOR_KEYS


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("docs/adr/ADR-use-postgres.md", 0.2),
        ("adr/choose-db.md", 0.2),
        ("docs/architecture/overview.md", 0.2),
        ("docs/architecture-decisions/x.md", 0.2),
        ("docs/decisions/x.md", 0.2),
        ("docs/index/services.md", 0.15),  # a folder named index
        ("index.md", 0.15),  # the landing page of the source ...
        ("docs/index.md", 0.15),
        ("docs/src/README.md", 0.15),  # ... also under MkDocs' docs_dir
        ("docs/guides/index.md", 0.05),  # a section's index is not the landing page
        ("docs/runbooks/restart.md", 0.1),
        ("ops/playbooks/restart.md", 0.1),
        ("docs/guides/deploy.md", 0.05),
        ("docs/tutorials/first.md", 0.05),
        ("docs/scratch/notes.md", -0.3),
        ("archive/2019/plan-b.md", -0.3),
        ("docs/old/setup.md", -0.3),
        ("docs/notes/old-notes.md", -0.3),  # a word of the file name
        ("docs/deprecated/x.md", -0.3),
        ("drafts/x.md", -0.3),
        ("docs/scratch/old/draft.md", -0.3),  # counted once
        ("docs/architecture/archive/x.md", -0.1),  # the two add up
        ("docs/folder/golden.md", 0.0),  # "old" inside a word is not "old"
        ("docs/reference/api.md", 0.0),
    ],
)
def test_path_factor(path: str, value: float) -> None:
    s = score(path)
    assert s.factors["path"] == pytest.approx(value)
    assert s.score == pytest.approx(0.5 + value + s.factors["filename"])


@pytest.mark.parametrize(
    ("name", "matches"),
    [
        ("README.md", True),
        ("readme.rst", True),
        ("INDEX.md", True),
        ("NEW_SERVICE_GUIDE.md", True),
        ("user-guide.md", True),
        ("RUNBOOK.md", True),
        ("runbooks.md", True),
        ("PLAN.md", True),
        ("migration-plan.md", True),
        ("ADR-0013-service-onboarding.md", True),
        ("adr001-add-adr-log.md", True),
        ("guidelines.md", False),
        ("planet.md", False),
        ("reindexing.md", False),
        ("notes.md", False),
    ],
)
def test_filename_factor(name: str, matches: bool) -> None:
    s = score(f"x/{name}")
    assert s.factors["filename"] == (0.1 if matches else 0.0)
    assert s.score == pytest.approx(0.5 + s.factors["filename"])


@pytest.mark.parametrize(
    ("updated_at", "value"),
    [
        (ago(1), 0.1),
        (ago(89), 0.1),
        (ago(91), 0.0),
        (ago(364), 0.0),
        (ago(366), -0.1),
        (ago(3000), -0.1),
        (ago(-5), 0.1),  # a clock ahead of ours: recent
        ("2025-11-20T10:00:00", 0.1),  # no zone: UTC
        ("2025-11-20T10:00:00+02:00", 0.1),
        (None, 0.0),
        ("", 0.0),
        ("last tuesday", 0.0),
    ],
)
def test_recency_factor(updated_at: str | None, value: float) -> None:
    s = score(updated_at=updated_at)
    assert s.factors["recency"] == value
    assert s.score == pytest.approx(0.5 + value)


@pytest.mark.parametrize(
    ("meta", "value", "status"),
    [
        ({"status": "canonical"}, 0.2, "canonical"),
        ({"status": "Canonical"}, 0.2, "canonical"),
        ({"status": "deprecated"}, -0.3, "deprecated"),
        ({"status": "superseded"}, -0.3, "superseded"),
        ({"status": "Superseded by ADR-0003"}, -0.3, "superseded"),
        ({"status": "draft"}, -0.2, "draft"),
        ({"status": "accepted"}, 0.0, "accepted"),
        ({"status": "proposed"}, 0.0, "proposed"),
        ({"deprecated": True}, -0.3, "deprecated"),
        ({"deprecated": "yes"}, -0.3, "deprecated"),
        ({"deprecated": False}, 0.0, "secondary"),
        ({"draft": True}, -0.2, "draft"),
        ({"superseded_by": "ADR-0003"}, -0.3, "superseded"),
        ({"status": "accepted", "deprecated": True}, 0.0, "accepted"),  # status: says it
        ({"status": ""}, 0.0, "secondary"),
        ({"status": None}, 0.0, "secondary"),
        ({"status": ["draft"]}, 0.0, "secondary"),
        ({"title": "x"}, 0.0, "secondary"),
    ],
)
def test_status_factor(meta: dict[str, Any], value: float, status: str) -> None:
    s = score(meta=meta)
    assert s.factors["status"] == value
    assert s.status == status
    assert s.score == pytest.approx(0.5 + value)
    assert front_matter_status(meta) == (None if status == "secondary" else status)


@pytest.mark.parametrize(
    ("authority", "value"), [(0.0, 0.0), (0.5, 0.075), (1.0, 0.15), (7.0, 0.15), (-1.0, 0.0)]
)
def test_links_factor(authority: float, value: float) -> None:
    s = score(authority=authority)
    assert s.factors["links"] == pytest.approx(value)
    assert s.score == pytest.approx(0.5 + value)


def test_clamped_to_one_and_zero() -> None:
    best = score(
        "docs/adr/ADR-0001-use-postgres.md", meta={"status": "canonical"}, updated_at=ago(3), authority=1
    )
    assert sum(best.factors.values()) == pytest.approx(1.25)
    assert best.score == 1.0
    worst = score("docs/scratch/old-notes.md", meta={"status": "deprecated"}, updated_at=ago(800))
    assert sum(worst.factors.values()) == pytest.approx(-0.2)
    assert worst.score == 0.0
    assert worst.status == "deprecated"


def test_default_status_follows_the_score() -> None:
    assert score("docs/architecture/x.md").status == "canonical"  # 0.7
    assert score("docs/guides/x.md", updated_at=ago(10)).status == "secondary"  # 0.65
    assert score("docs/guides/x.md", updated_at=ago(10), authority=0.4).status == "canonical"  # 0.71


def test_the_fixture_corpus_ranks_as_a_reader_would(index_location: str) -> None:
    """On each backend: the facts and links the scores read come from the store."""
    with closing(Docmentor(index_location)) as engine:
        ranks_as_a_reader_would(engine)


def ranks_as_a_reader_would(engine: Docmentor) -> None:
    engine.add(str(FIXTURE), name="fx")
    graph = LinkGraph.build(engine.store, ["fx"])
    when = datetime.now(UTC)  # the fixture's times are its git commit (or file) times
    scores = {
        r["path"]: canonicality(
            path=r["path"],
            title=r["title"],
            meta=json.loads(r["meta"]),
            updated_at=r["updated_at"],
            authority=graph.authority(r["id"]),
            now=when,
        )
        for r in engine.store.document_facts(["fx"])
    }
    assert len(scores) == 11
    status = {p: s.status for p, s in scores.items()}
    assert status["docs/architecture/overview.md"] == "canonical"
    assert status["docs/adr/ADR-0001-use-postgres.md"] == "accepted"
    assert status["docs/adr/ADR-0002-retry-policy.md"] == "superseded"
    assert status["docs/guides/configuration.md"] == "draft"
    assert status["docs/guides/legacy-deploy.md"] == "deprecated"
    assert status["docs/scratch/old-notes.md"] == "secondary"

    def canon(p: str) -> float:
        return scores[p].score

    assert canon("docs/adr/ADR-0001-use-postgres.md") > canon("docs/adr/ADR-0002-retry-policy.md")
    assert canon("docs/guides/deploy.md") > canon("docs/guides/legacy-deploy.md")
    assert canon("docs/guides/deploy.md") > canon("docs/guides/configuration.md")
    assert canon("docs/runbooks/RUNBOOK.md") > canon("docs/guides/deploy.md")
    assert min(scores.values(), key=lambda s: s.score) in (
        scores["docs/scratch/old-notes.md"],
        scores["docs/guides/legacy-deploy.md"],
    )
    assert scores["docs/adr/ADR-0001-use-postgres.md"].factors["links"] == pytest.approx(0.15)  # most linked
    assert scores["docs/index.md"].factors["path"] == pytest.approx(0.15)
    assert scores["docs/index.md"].factors["links"] == 0.0  # nothing links to it
