"""Shared fixtures. Every test gets its own DOCMENTOR_HOME so nothing touches ~."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The fixtures hold vendored documentation slices whose include targets are upstream test files
# (tests/fixtures/lancedb/python/python/tests/docs/test_*.py): documents, not tests of ours.
collect_ignore = ["fixtures"]

# Search by words unless a test turns embeddings on (tests/test_hybrid.py): set for the whole
# run, so module-scoped fixtures (made before the autouse one below) rank the same way.
os.environ["DOCMENTOR_EMBEDDINGS"] = "0"


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the run: derived files (token vocabularies) are built once,
    not per test. Tests of the cache itself use their own."""
    return tmp_path_factory.mktemp("docmentor-cache")


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, shared_cache: Path
) -> Path:
    home = tmp_path_factory.mktemp("docmentor-home")
    monkeypatch.setenv("DOCMENTOR_HOME", str(home))
    monkeypatch.setenv("DOCMENTOR_CACHE", str(shared_cache))
    monkeypatch.delenv("DOCMENTOR_DB", raising=False)
    monkeypatch.delenv("DOCMENTOR_SOURCES", raising=False)
    # Search by words in every test unless it turns embeddings on (tests/test_hybrid.py and
    # the few that check the default): each test then stays fast and its rankings exact.
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "0")
    return home
