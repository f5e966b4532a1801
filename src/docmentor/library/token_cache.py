"""README.LLM's token count without toktok's tables in ``generate``'s process.

The count is exact (:mod:`docmentor.assemble.tokens`): bpe.py over a vocabulary file in the
cache folder, derived once from toktok. Deriving it loads toktok's tables, which stay for the
life of the process (~60 MB for o200k_base, ~1.2 s), and builds the file. In a first
``generate`` (an empty cache folder) that came on top of the embedding model: click 8.5.1
(529 APIs) peaked at 277 MB, against 192 MB once the file existed.

:class:`TokenCacheAhead` derives the file in a child process started with the generation;
``generate`` waits for it before the embedding model loads (the child peaks near 90 MB, beside
a parent still under 80 MB), so its own process then counts with bpe.py and never loads toktok.
When the file is there already, or the encoding is not one bpe.py counts, nothing is started;
when the child fails, the count is made in this process as before (slower and larger, same
number).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["TokenCacheAhead"]

log = logging.getLogger(__name__)

WAIT_SECONDS = 120.0  # a child that takes longer is stopped; this process counts itself
STOP_SECONDS = 5.0  # for a stopped child to remove its temporary file before it is killed
# SIGTERM raises SystemExit in the child, so the writer's `finally` removes its temporary file
_CHILD = "\n".join(
    [
        "import signal, sys",
        "signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))",
        "from docmentor.assemble.tokens import prepare",
        "sys.exit(0 if prepare(sys.argv[1]) else 3)",
    ]
)


class TokenCacheAhead:
    """A child process writing ``encoding``'s vocabulary file, or nothing to wait for."""

    def __init__(self, encoding: str, child: subprocess.Popen[bytes] | None = None) -> None:
        self.encoding = encoding
        self._child = child
        self._started = time.perf_counter()
        self.seconds: float | None = None  # how long the child ran (None: none was started)

    @classmethod
    def start(cls, encoding: str) -> TokenCacheAhead:
        """Start deriving ``encoding``'s file when this process would otherwise load toktok for it."""
        from docmentor.assemble import bpe, tokens

        if encoding not in bpe.ENCODINGS:
            return cls(encoding)  # toktok counts it in any case (no file format for it)
        try:
            if tokens.cache_path(encoding).is_file():
                return cls(encoding)  # a stale or damaged one is rebuilt in-process, as before
        except OSError:
            return cls(encoding)
        package_root = str(Path(__file__).resolve().parents[2])  # the docmentor this process runs
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": package_root + (os.pathsep + path if path else "")}
        try:
            child = subprocess.Popen(
                [sys.executable, "-c", _CHILD, encoding],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as exc:
            log.info("cannot start the token cache process: %s", exc)
            return cls(encoding)
        return cls(encoding, child)

    @property
    def running(self) -> bool:
        """Whether a child was started and has not been waited for."""
        return self._child is not None

    def finish(self, timeout: float = WAIT_SECONDS) -> bool | None:
        """Wait for the child; whether it wrote the file (None: no child was started)."""
        child, self._child = self._child, None
        if child is None:
            return None
        try:
            _, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(child)
            log.info("the token cache process took over %.0f s; counting in this process", timeout)
            return False
        finally:
            self.seconds = time.perf_counter() - self._started
        if child.returncode != 0:
            tail = err.decode("utf-8", "replace").strip()[-300:]
            log.info("the token cache process failed (exit %s): %s", child.returncode, tail)
            return False
        return True

    def cancel(self) -> None:
        """Stop a child still running (the generation failed); the file is written atomically,
        so it is there whole or not at all."""
        child, self._child = self._child, None
        if child is not None:
            _stop(child)


def _stop(child: subprocess.Popen[bytes]) -> None:
    """End ``child``: asked first (its temporary file is removed), killed if it lingers."""
    child.terminate()
    try:
        child.communicate(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
