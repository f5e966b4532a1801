"""Repository documentation with a model in the background, as the MCP server runs it: one
thread per repository doing a whole ``generate_repo_docs`` (the agent's run, its tree
written under ``.docmentor-docs`` and indexed as ``repo-NAME``); the run's id is returned as
soon as it is registered, and a failure is kept for ``repo_docs_status``."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from docmentor.errors import UsageError
from docmentor.repodocs.generation import RepoDocsGeneration, generate_repo_docs
from docmentor.store import repomem

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.llm import LLMConfig

__all__ = ["RepoDocsJobs"]

log = logging.getLogger(__name__)
RUN_ID_WAIT = 10.0  # seconds RepoDocsJobs.start waits for the agent's run to be registered


class RepoDocsJobs:
    """The agent runs this server started, one background thread per repository."""

    def __init__(self, engine: Docmentor) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._threads: dict[Path, threading.Thread] = {}
        self.errors: dict[Path, str] = {}
        # how a run this server made ended: why it stopped (None: it did not stop early) and
        # where its tree was written
        self.ended: dict[Path, tuple[str | None, str]] = {}

    def running(self, root: Path) -> bool:
        with self._lock:
            thread = self._threads.get(root)
            return thread is not None and thread.is_alive()

    def start(self, root: Path, config: LLMConfig) -> int | None:
        """Start documenting ``root`` with the model of ``config`` (``generate_repo_docs``: the
        run, then its tree written and indexed); the run's id once it is registered (None if it
        was not within RUN_ID_WAIT seconds, or the run failed first)."""
        with self._lock:
            thread = self._threads.get(root)
            if thread is not None and thread.is_alive():
                raise UsageError(
                    f"the documentation of {root} is being generated already",
                    hint="follow it with repo_docs_status",
                )
            before = repomem.latest_run(self.engine.store, root)
            self.errors.pop(root, None)
            self.ended.pop(root, None)
            thread = threading.Thread(
                target=self._run, args=(root, config), name="docmentor-repodocs", daemon=True
            )
            self._threads[root] = thread
            thread.start()
        ends = time.monotonic() + RUN_ID_WAIT
        while time.monotonic() < ends:
            latest = repomem.latest_run(self.engine.store, root)
            if latest is not None and (
                before is None or latest.id != before.id or latest.status == "running"
            ):
                return latest.id
            if not thread.is_alive():  # ended at once: its run, unless it failed before one
                return latest.id if latest is not None and root not in self.errors else None
            time.sleep(0.05)
        return None

    def _run(self, root: Path, config: LLMConfig) -> RepoDocsGeneration | None:
        try:
            made = generate_repo_docs(self.engine, root, llm=config)
        except Exception as exc:  # the thread's end: kept for repo_docs_status
            log.warning("documentation of %s failed: %s", root, exc)
            self.errors[root] = str(exc)
            return None
        stopped = made.run.stopped if made.run is not None else None
        if stopped:
            log.warning("documentation of %s: %s", root, stopped)
        self.ended[root] = (stopped, made.tree.out)
        return made
