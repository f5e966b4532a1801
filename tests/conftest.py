"""Shared fixtures. Every test gets its own DOCMENTOR_HOME so nothing touches ~."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the run: derived files (token vocabularies, the quantized
    embedding model) are built once, not per test. Tests of the cache itself use their own."""
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
    return home
