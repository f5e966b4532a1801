"""What a server's background refresh says in its log (a tour: during a site's 500s and
time-outs the log stayed at its start line; only list_sources told)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.scheduler import RefreshScheduler


def test_a_periodic_pass_logs_the_documents_it_could_not_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.md").write_text("# A\n\nThe albatross.\n", encoding="utf-8")
    (site / "b.md").write_text("# B\n\nThe bittern.\n", encoding="utf-8")
    (site / "llms.txt").write_text("# Site\n\n## Docs\n\n- [A](a.md)\n- [B](b.md)\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index", create=True, embeddings=False)
    engine.add(str(site / "llms.txt"), name="site")
    (site / "b.md").unlink()  # the page the site still lists is gone
    with caplog.at_level(logging.WARNING, logger="docmentor.scheduler"):
        RefreshScheduler(engine, configured=False, interval_hours=0).refresh()
    said = [r.getMessage() for r in caplog.records if r.name == "docmentor.scheduler"]
    assert len(said) == 1 and said[0].startswith("source site: ") and "b.md" in said[0], said
    engine.close()


def test_a_periodic_pass_says_which_server_made_it_and_what_it_did(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Of replicas sharing an index, one makes each period's pass: its log says so with the
    counts, the others' say nothing (a team tour: no replica's log told of any refresh)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe albatross.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index", create=True, embeddings=False)
    engine.add(str(docs), name="docs")
    (docs / "b.md").write_text("# B\n\nThe bittern.\n", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="docmentor.scheduler"):
        assert RefreshScheduler(engine, configured=False, interval_hours=1).refresh()
        assert not RefreshScheduler(engine, configured=False, interval_hours=1).refresh()  # done this period
    said = [r.getMessage() for r in caplog.records if r.name == "docmentor.scheduler"]
    assert len(said) == 1, said
    assert said[0].startswith("periodic refresh by this server: 1 source(s) in ")
    assert said[0].endswith("1 added, 0 updated, 1 unchanged, 0 removed document(s)"), said
    engine.close()
