"""What a serving process tells a load balancer: alive (it answers), ready (its index answers).

:func:`index_ready` opens a connection to the index in a thread of its own (so a new
connection, as a new process would: an index folder gone or a database server down shows),
runs one trivial query and closes it, within a time limit.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docmentor.engine import Docmentor

__all__ = ["Readiness", "index_ready"]

log = logging.getLogger(__name__)
READY_TIMEOUT = 5.0


@dataclass(frozen=True)
class Readiness:
    """Whether the index answers; ``reason`` says why not (no paths or secrets in it)."""

    ready: bool
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.ready:
            return {"status": "ready"}
        return {"status": "unavailable", "reason": self.reason}


def index_ready(engine: Docmentor, *, timeout: float = READY_TIMEOUT) -> Readiness:
    """Open the index anew, run one trivial query, close it: :class:`Readiness`."""
    outcome: list[BaseException | None] = []
    store = engine.store
    missing: list[bool] = []

    def probe() -> None:
        try:
            if store.dialect == "sqlite" and not store.path.exists():
                missing.append(True)  # opening it would create an empty index file in its place
                return
            store.get_setting("docmentor.ready")  # one row looked up by key
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)
        finally:
            try:
                store.close()  # this thread's connection only
            except Exception as exc:
                log.debug("readiness probe: closing: %s", exc)

    thread = threading.Thread(target=probe, name="readyz", daemon=True)
    thread.start()
    thread.join(timeout)
    if missing:
        return Readiness(False, "the index file is missing")
    if not outcome:
        return Readiness(False, f"the index did not answer within {timeout:g} s")
    error = outcome[0]
    if error is None:
        return Readiness(True)
    log.warning("readiness: the index does not answer: %s", error)
    return Readiness(False, f"the index does not answer ({type(error).__name__})")
