"""What ``generate`` holds on to: the embedding model it loaded is released once the APIs are
embedded (embeddings.release_embedder), one loaded before is kept; the vectors are the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docmentor import embeddings
from docmentor.engine import Docmentor
from docmentor.library.knowledge.kb_files import load_kb
from docmentor.library.pipeline import generate

LIB = Path(__file__).parent / "fixtures" / "readme_lib"


def run(tmp_path: Path, name: str) -> np.ndarray:
    engine = Docmentor(tmp_path / name / "db", embeddings=True)  # the APIs embedded (the env says 0)
    try:
        result = generate(
            engine,
            library="minidb",
            docs_path=LIB / "docs",
            out=tmp_path / name / "out",
            search_paths=[LIB],
            output_format="knowledge_base",
        )
    finally:
        engine.close()
    assert result.kb_path is not None
    vectors = load_kb(result.kb_path).vectors
    assert vectors is not None
    return vectors.matrix


def test_release_forgets_the_shared_embedder() -> None:
    first = embeddings.get_embedder(threads=3)
    assert embeddings.embedder_loaded(threads=3)
    embeddings.release_embedder(threads=3)
    assert not embeddings.embedder_loaded(threads=3)
    again = embeddings.get_embedder(threads=3)
    assert again is not first and again.embed_one("x").shape == (embeddings.DIMENSIONS,)
    embeddings.release_embedder(threads=3)
    embeddings.release_embedder(threads=3)  # nothing to release: no error


def test_generate_releases_the_model_it_loaded_and_keeps_one_loaded_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embeddings, "_shared", {})  # this process has not loaded the model
    released = run(tmp_path, "released")
    assert not embeddings.embedder_loaded()
    mine = embeddings.get_embedder()
    kept = run(tmp_path, "kept")
    assert embeddings.embedder_loaded() and embeddings.get_embedder() is mine
    assert released.shape[0] > 0 and np.array_equal(released, kept)
