"""Exact, offline token counts for the digest budget.

Two counters, the same numbers:

- **toktok** (``toktok-rs``; its BPE tables are compiled in). Fast per text, but building the
  o200k_base tables on first use takes ~0.3–0.4 s and holds the GIL — most of a CLI call.
- **bpe.py**, plain Python over a vocabulary file derived once from toktok's own tables and
  kept in the cache folder (``DOCMENTOR_CACHE``, else ``DOCMENTOR_HOME/cache/``). Nothing to build at start-up:
  a CLI ``assemble`` spends ~15 ms counting (the file read included) against toktok's ~410 ms,
  and takes 250 ms instead of 681 ms (benchmarks/bench_fast_paths.py; bpe.py's docstring has the
  figures and where the equivalence tests are).

A batch goes to bpe.py while this process has not loaded toktok, the batch is under a million
characters and bpe.py has counted less than three million afresh (lines it has seen are
free); otherwise, or when bpe.py declines a text (see its docstring), toktok counts. The
first call without the cache file loads toktok, derives the file, checks it against toktok
and writes it atomically; a damaged or stale file is rebuilt the same way.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from docmentor.assemble import bpe
from docmentor.errors import UsageError

DEFAULT_ENCODING = "o200k_base"
# The exact encodings toktok bundles (its 'jev' is an estimate, so it is not offered).
ENCODINGS: tuple[str, ...] = ("o200k_base", "cl100k_base", "o200k_harmony", "qwen3.5")

# Worker threads cost more than they save on the small texts a digest is made of.
_PARALLEL_CHARS = 1_000_000
# Characters bpe.py may count afresh per process (lines seen before are free); past that,
# loading toktok (~0.3 s) has paid for itself.
_LIGHT_CHARS = 3_000_000

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_counters: dict[str, bpe.Counter | None] = {}  # None: count this encoding with toktok
_files: dict[str, Path] = {}  # the cache file each counter reads
_toktok_loaded: set[str] = set()

# Checked against toktok before a vocabulary file is written: every class of character.
_PROBE = (
    "Hello, WORLD! It's DON'T 'S 'll we've \"quoted\" — café naïve Ünïcödé ǅemo Ǆ ß ﬁ\n"
    "  indented\tcode();  x = a_b/c // comment\r\n\r\n|---|:--:|\n* item\n1. 12345 ½ ² ٣ Ⅻ\n"
    "中文字符 한국어 ひらがな カタカナ Ελληνικά русский עברית العربية हिन्दी ไทย e\u0301 n\u0303\n"
    "🧠🚀 👍🏽 ✅ →←\u00a0nbsp\u2003em\u3000ideo x\u2028y\u2029z \x85nel \x1c\x1d\x7f\n"
    "base64: iVBORw0KGgoAAAANSUhEUgAA== https://example.com/a/b?c=d&e=f#g   \n\n\n   "
)


def check_encoding(encoding: str) -> str:
    """Return ``encoding`` if toktok can count it exactly.

    Raises:
        UsageError: for an unknown encoding, listing the valid ones.
    """
    if encoding not in ENCODINGS:
        raise UsageError(
            f"unknown token encoding {encoding!r}",
            hint=f"use one of: {', '.join(ENCODINGS)}",
        )
    return encoding


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Exact number of tokens of ``text`` in ``encoding`` (special-token strings count as text)."""
    return count_many([text], encoding)[0]


def count_many(texts: Sequence[str], encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Exact token count of each text, in order."""
    check_encoding(encoding)
    if not texts:
        return []
    size = sum(map(len, texts))
    if encoding not in _toktok_loaded and size < _PARALLEL_CHARS:
        counter = _light_counter(encoding)
        if counter is not None and counter.work < _LIGHT_CHARS:
            try:
                counts = counter.count_many(texts)
            except bpe.CacheError as exc:
                _log.warning("token cache for %s is damaged (%s); counting with toktok", encoding, exc)
                _counters[encoding] = None
                _discard(_files.pop(encoding, None))
                counts = None
            if counts is not None:
                return counts
    return _toktok_count(texts, encoding, size)


def prepare(encoding: str = DEFAULT_ENCODING) -> bool:
    """Write ``encoding``'s vocabulary file now if it is missing or stale.

    For the end of a slow command (indexing), so that the first ``assemble`` is as quick as
    the rest. Returns whether bpe.py can count ``encoding`` from the file.
    """
    check_encoding(encoding)
    if encoding not in bpe.ENCODINGS:
        return False
    path = cache_path(encoding)
    try:
        bpe.load(path.read_bytes(), encoding, _source())
        return True
    except (OSError, bpe.CacheError):
        return _write_cache(encoding, path)


def cache_path(encoding: str) -> Path:
    """The vocabulary file bpe.py reads for ``encoding`` (one per toktok version)."""
    import toktok

    from docmentor.config import cache_dir

    return cache_dir() / f"{encoding}.toktok-{toktok.__version__}.bpe{bpe.FORMAT}"


def _toktok_count(texts: Sequence[str], encoding: str, size: int) -> list[int]:
    import toktok

    _toktok_loaded.add(encoding)
    threads = 0 if size >= _PARALLEL_CHARS else 1
    return list(toktok.batch_count(list(texts), encoding, threads=threads))


def _light_counter(encoding: str) -> bpe.Counter | None:
    if encoding not in _counters:
        with _lock:
            if encoding not in _counters:
                _counters[encoding] = _open_counter(encoding)
    return _counters[encoding]


def _source() -> str:
    import toktok

    return f"toktok-rs {toktok.__version__}"


def _open_counter(encoding: str) -> bpe.Counter | None:
    """bpe.py's counter over the cache file, or ``None`` after (re)building the file with toktok."""
    if encoding not in bpe.ENCODINGS:
        return None
    path = cache_path(encoding)
    try:
        counter = bpe.Counter(encoding, bpe.load(path.read_bytes(), encoding, _source()))
        _files[encoding] = path
        return counter
    except FileNotFoundError:
        pass
    except (OSError, bpe.CacheError) as exc:
        _log.info("rebuilding token cache %s: %s", path, exc)
    _write_cache(encoding, path)
    return None  # toktok is loaded now: it counts from here on


def _write_cache(encoding: str, path: Path) -> bool:
    """Derive ``encoding``'s vocabulary file from toktok and write it atomically to ``path``.

    Returns whether it was written; nothing is when the folder is not writable or the file
    would not count exactly what toktok counts.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        _log.info("cannot write token cache %s: %s", path, exc)
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            data = _derive(encoding)
            if data is None:
                return False
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return True
    except OSError as exc:
        _log.info("cannot write token cache %s: %s", path, exc)
        return False
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _discard(path: Path | None) -> None:
    """Remove a damaged cache file, so that the next process builds it again."""
    if path is not None:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            _log.info("cannot remove token cache %s: %s", path, exc)


def _derive(encoding: str) -> bytes | None:
    import toktok

    try:
        # toktok's documented-private full surface: the base vocabulary's bytes, by rank.
        tokens = list(toktok._encoding(encoding).token_byte_values())
        _toktok_loaded.add(encoding)
        if not all(isinstance(t, bytes) for t in tokens) or not {bytes([b]) for b in range(256)} <= set(
            tokens
        ):
            raise TypeError("unexpected vocabulary")
        data = bpe.build(encoding, tokens, _source())
        probe = bpe.Counter(encoding, bpe.load(data, encoding, _source())).count_many([_PROBE])
        expected = toktok.batch_count([_PROBE], encoding, threads=1)
    except (AttributeError, KeyError, TypeError, ValueError, bpe.CacheError) as exc:
        _log.warning("no token cache for %s: %s", encoding, exc)
        return None
    if probe != list(expected):
        _log.warning("no token cache for %s: counts differ from toktok's (%s, %s)", encoding, probe, expected)
        return None
    return data
