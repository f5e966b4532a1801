"""Workers: take the index's queued jobs and do them, each job once (``docmentor worker``).

Any process that shares the index queues work (:func:`queue_job`: the CLI, an MCP server, a
replica's schedule); any number of workers take it (:func:`run_worker`), on one machine or
many when the index is in PostgreSQL. A worker beats a heartbeat while a job runs; a job
whose worker died is taken again by another (:mod:`docmentor.store.jobs`).

Kinds and their arguments:

- ``refresh`` — ``source`` (one source; default every source), ``prune`` (bool).
- ``readme-llm`` — ``library``, ``out`` (required), ``docs_path``, ``version``.
- ``repo-docs`` — ``root`` (required), ``out``, ``update`` (bool), ``llm`` (bool: use the model
  configured by the environment, as ``repo-docs generate`` does; default false).

Paths (``root``, ``out``, ``docs_path``) are stored absolute: a relative one is read from the
folder of the process that queues the job, not from wherever a worker runs.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import IndexUnavailable, NotFoundError, UsageError
from docmentor.store import jobs as job_table
from docmentor.store.jobs import JobRow

if TYPE_CHECKING:
    from docmentor.engine import Docmentor

__all__ = [
    "JOB_KINDS",
    "get_job",
    "list_jobs",
    "queue_job",
    "run_one_job",
    "run_worker",
    "wait_for_job",
    "worker_name",
]

log = logging.getLogger(__name__)
MAX_UNAVAILABLE_WAIT = 60.0  # seconds between looks at an index that went away, at most

#: kind → (required arguments, optional arguments)
JOB_KINDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "refresh": (frozenset(), frozenset({"source", "prune"})),
    "readme-llm": (frozenset({"library", "out"}), frozenset({"docs_path", "version"})),
    "repo-docs": (frozenset({"root"}), frozenset({"out", "update", "llm"})),
}


def worker_name() -> str:
    """This process's name in the job table: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _check(kind: str, args: Mapping[str, Any]) -> None:
    if kind not in JOB_KINDS:
        raise UsageError(f"unknown job kind {kind!r}", hint=f"one of: {', '.join(JOB_KINDS)}")
    required, optional = JOB_KINDS[kind]
    missing = sorted(required - set(args))
    unknown = sorted(set(args) - required - optional)
    if missing:
        raise UsageError(f"a {kind} job needs {', '.join(missing)}")
    if unknown:
        raise UsageError(
            f"a {kind} job takes no {', '.join(unknown)}",
            hint=f"it takes: {', '.join(sorted(required | optional))}",
        )
    for key in _FLAGS & set(args):
        if not isinstance(args[key], bool):  # "no" is a non-empty string: it read as yes
            raise UsageError(
                f"a {kind} job's {key} is true or false, not {args[key]!r}", hint=f"{key}=true or {key}=false"
            )


_FLAGS = frozenset({"prune", "update", "llm"})  # job arguments that are true or false
_PATHS = frozenset({"root", "out", "docs_path"})  # job arguments that are paths


def _absolute_paths(args: dict[str, Any]) -> None:
    """A relative path argument as the queuing process means it (its working folder)."""
    for key in _PATHS & set(args):
        if isinstance(args[key], str) and args[key].strip():
            args[key] = str(Path(args[key]).expanduser().absolute())


def queue_job(
    engine: Docmentor,
    kind: str,
    args: Mapping[str, Any] | None = None,
    *,
    dedupe: str | None = None,
    min_interval: float = 0.0,
) -> tuple[JobRow, bool]:
    """Queue a job in ``engine``'s index for a worker; (the job, whether it is new — False
    when the same ``dedupe`` key is queued, running or finished within ``min_interval`` s).

    A refresh names a source the index or the working folder's ``docmentor.toml`` knows; a
    relative path argument is made absolute from this process's working folder.

    Raises:
        UsageError: an unknown kind, or arguments it does not take.
        NotFoundError: a refresh of a source nobody knows (the error lists the known ones).
    """
    data = dict(args or {})
    _check(kind, data)
    _absolute_paths(data)
    if kind == "refresh":
        source = data.get("source")
        if source is not None:
            _known_source(engine, str(source))
    return job_table.enqueue_job(engine.store, kind, data, dedupe=dedupe, min_interval=min_interval)


def _known_source(engine: Docmentor, name: str) -> None:
    from docmentor.config import load_config

    try:
        engine.sources_named(name)  # a source, or a library's versions
    except NotFoundError:
        if name not in {c.name for c in load_config().sources}:  # configured, not added yet: fine
            raise


def get_job(engine: Docmentor, job_id: int) -> JobRow:
    return job_table.get_job(engine.store, job_id)


def list_jobs(engine: Docmentor, *, status: str | None = None, limit: int = 50) -> list[JobRow]:
    return job_table.list_jobs(engine.store, status=status, limit=limit)


def _do(engine: Docmentor, job: JobRow) -> Any:
    """Run one job; its JSON result."""
    args = job.args
    if job.kind == "refresh":
        from docmentor.scheduler import refresh_pass

        reports = refresh_pass(engine, args.get("source"), prune=bool(args.get("prune", False)), embed=True)
        return [r.to_dict() for r in reports]
    if job.kind == "readme-llm":
        from docmentor.library import generate

        result = generate(
            engine,
            library=str(args["library"]),
            docs_path=args.get("docs_path"),
            version=args.get("version"),
            out=Path(str(args["out"])),
        )
        return result.to_dict()
    from docmentor.llm import LLMConfig
    from docmentor.repodocs.generation import generate_repo_docs

    out = args.get("out")
    run = generate_repo_docs(
        engine,
        Path(str(args["root"])),
        llm=LLMConfig.from_env() if args.get("llm") else None,
        out=None if out is None else Path(str(out)),
        update=bool(args.get("update", False)),
    )
    return run.to_dict()


def run_one_job(
    engine: Docmentor,
    name: str | None = None,
    *,
    kinds: tuple[str, ...] = (),
    stale_after: float = 120.0,
    beat_every: float = 10.0,
) -> JobRow | None:
    """Take one queued job and do it; the finished job, or None when none waited.

    A job that raises is recorded as failed with its error (the worker goes on)."""
    name = name or worker_name()
    job = job_table.claim_job(engine.store, name, kinds=kinds, stale_after=stale_after)
    if job is None:
        return None
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(beat_every):
            try:
                if not job_table.heartbeat(engine.store, job.id, name):
                    return
            except IndexUnavailable as exc:  # the database is away: beat again once it is back
                log.warning("job %s: heartbeat not recorded (%s)", job.id, exc)

    beater = threading.Thread(target=beat, name=f"job-{job.id}-heartbeat", daemon=True)
    beater.start()
    try:
        _check(job.kind, job.args)
        result = _do(engine, job)
    except Exception as exc:  # a job's failure is its record, not the worker's end
        log.warning("job %s (%s) failed: %s", job.id, job.kind, exc)
        stop.set()
        _finish(engine, job.id, name, stale_after, error=f"{type(exc).__name__}: {exc}")
    else:
        stop.set()
        _finish(engine, job.id, name, stale_after, result=result)
    finally:
        stop.set()
        beater.join()
    return job_table.get_job(engine.store, job.id)


def _finish(engine: Docmentor, job_id: int, name: str, stale_after: float, **outcome: Any) -> None:
    """Record a job's end; while the database is away, try again for up to half the time after
    which another worker would take the job again (its result is not lost to a restart)."""
    deadline = time.monotonic() + stale_after / 2
    wait = 1.0
    while True:
        try:
            job_table.finish_job(engine.store, job_id, name, **outcome)
            return
        except IndexUnavailable as exc:
            if time.monotonic() + wait > deadline:
                raise
            log.warning("job %s: its end not recorded yet (%s); trying again in %.0f s", job_id, exc, wait)
            time.sleep(wait)
            wait = min(wait * 2, 15.0)


def run_worker(
    engine: Docmentor,
    name: str | None = None,
    *,
    once: bool = False,
    poll: float = 2.0,
    max_jobs: int | None = None,
    kinds: tuple[str, ...] = (),
    stop: threading.Event | None = None,
    on_job: Callable[[JobRow], None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> int:
    """Do queued jobs until ``stop`` is set (or, with ``once``, until none waits, or after
    ``max_jobs``); waits ``poll`` seconds between looks at an empty queue; ``on_start`` is
    called once the arguments are checked. An index that went away after the worker reached
    it (a database restart) is waited for, looking again after ``poll`` seconds, doubling up
    to :data:`MAX_UNAVAILABLE_WAIT`. Returns the number of jobs done (failed ones included)."""
    if poll <= 0:
        raise UsageError("the poll interval must be positive")
    unknown = sorted(set(kinds) - set(JOB_KINDS))
    if unknown:
        raise UsageError(f"unknown job kind {unknown[0]!r}", hint=f"one of: {', '.join(JOB_KINDS)}")
    if on_start is not None:  # the arguments are good: the worker starts
        on_start()
    stop = stop or threading.Event()
    done = 0
    reached, wait = False, poll
    while not stop.is_set() and (max_jobs is None or done < max_jobs):
        try:
            job = run_one_job(engine, name, kinds=kinds)
        except IndexUnavailable as exc:
            if once or not reached:  # never reached: the URL or the server is wrong, say so
                raise
            # the database went away after the worker reached it (a restart): wait for it,
            # as the replicas do, instead of leaving the queue without a worker
            log.warning("the index cannot be reached (%s); trying again in %.1f s", exc, wait)
            stop.wait(wait)
            wait = min(wait * 2, MAX_UNAVAILABLE_WAIT)
            continue
        reached, wait = True, poll
        if job is None:
            if once:
                break
            stop.wait(poll)
            continue
        done += 1
        if on_job is not None:
            on_job(job)
    return done


def wait_for_job(engine: Docmentor, job_id: int, *, timeout: float, poll: float = 0.2) -> JobRow:
    """The job once it is done or failed; TimeoutError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        job = get_job(engine, job_id)
        if job.status in ("done", "failed"):
            return job
        if time.monotonic() > deadline:
            raise TimeoutError(f"job {job_id} is still {job.status}")
        time.sleep(poll)
