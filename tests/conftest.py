"""Shared fixtures. Every test gets its own DOCMENTOR_HOME so nothing touches ~."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("docmentor-home")
    monkeypatch.setenv("DOCMENTOR_HOME", str(home))
    monkeypatch.delenv("DOCMENTOR_DB", raising=False)
    monkeypatch.delenv("DOCMENTOR_SOURCES", raising=False)
    return home
