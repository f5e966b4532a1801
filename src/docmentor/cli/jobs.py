"""`docmentor jobs` (queue, list, show) and `docmentor worker`: work done once, by a worker."""

from __future__ import annotations

import json
import signal
import sys
import threading
from typing import Annotated, Any

import typer

from docmentor import UsageError
from docmentor.cli.app import app, emit, open_engine, require_index

jobs_app = typer.Typer(
    help="Jobs queued in the index (refreshes, README.LLM and repository documentation) and "
    "done once by `docmentor worker` processes.",
    short_help="Queue and inspect jobs for workers.",
    no_args_is_help=True,
)
app.add_typer(jobs_app, name="jobs")


def _arguments(pairs: list[str]) -> dict[str, Any]:
    """KEY=VALUE pairs; a value that reads as JSON (true, 3, "x") is taken as such."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--arg takes KEY=VALUE, not {pair!r}")
        if key in out:  # the last would silently win
            raise UsageError(f"--arg {key} is given twice", hint="give each KEY once")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _line(job: Any) -> str:
    what = f" {job.error}" if job.error else ""
    return f"{job.id}\t{job.kind}\t{job.status}\t{json.dumps(job.args, sort_keys=True)}\t{job.worker or '-'}{what}"


@jobs_app.command("add", short_help="Queue a job.")
def jobs_add(
    kind: Annotated[str, typer.Argument(help="refresh, readme-llm or repo-docs.")],
    arg: Annotated[
        list[str] | None,
        typer.Option(
            "--arg", help="KEY=VALUE (repeatable), e.g. source=httpx, library=httpx, out=kb, root=."
        ),
    ] = None,
    dedupe: Annotated[
        str | None,
        typer.Option(
            "--dedupe",
            help="Not queued again while a job with this key waits or runs (e.g. refresh:SOURCE).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Queue a job in the index; a `docmentor worker` takes it."""
    from docmentor import queue_job

    engine = open_engine(create=True)
    try:
        job, new = queue_job(engine, kind, _arguments(arg or []), dedupe=dedupe)
    finally:
        engine.close()
    if as_json:
        emit({**job.to_dict(), "queued": new})
        return
    print(f"{'queued' if new else 'already queued'}: job {job.id} ({job.kind}, {job.status})")


@jobs_app.command("list", short_help="The newest jobs.")
def jobs_list(
    status: Annotated[str | None, typer.Option("--status", help="queued, running, done or failed.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List jobs, newest first: id, kind, status, arguments, worker, error."""
    from docmentor import list_jobs

    require_index()
    engine = open_engine(create=True)  # an index from before jobs gets their table
    try:
        rows = list_jobs(engine, status=status, limit=limit)
    finally:
        engine.close()
    if as_json:
        emit({"jobs": [j.to_dict() for j in rows]})
        return
    if not rows:
        print("no jobs")
    for job in rows:
        print(_line(job))


@jobs_app.command("show", short_help="One job, with its result.")
def jobs_show(job_id: Annotated[int, typer.Argument(help="The job's id.")]) -> None:
    """Print one job as JSON: its state, times, worker, attempts, result or error."""
    from docmentor import get_job

    require_index()
    engine = open_engine(create=True)
    try:
        emit(get_job(engine, job_id).to_dict())
    finally:
        engine.close()


@app.command(short_help="Take queued jobs and do them.")
def worker(
    once: Annotated[bool, typer.Option("--once", help="Stop when no job waits.")] = False,
    poll: Annotated[
        float, typer.Option("--poll", help="Seconds between looks at an empty queue.", min=0.05)
    ] = 2.0,
    max_jobs: Annotated[
        int | None, typer.Option("--max-jobs", help="Stop after this many jobs.", min=1)
    ] = None,
    kind: Annotated[
        list[str] | None, typer.Option("--kind", help="Only jobs of this kind (repeatable).")
    ] = None,
) -> None:
    """Do the jobs queued in the index, each once however many workers run (on one machine,
    or on many when the index is in PostgreSQL). Ctrl-C / SIGTERM stop after the current job."""
    from docmentor import run_worker, worker_name

    if once:  # no index, no job: said, and nothing made (a worker that waits makes it)
        require_index()
    engine = open_engine(create=True)
    stop = threading.Event()

    def ask_stop(signum: int, frame: Any) -> None:
        print("stopping after the current job", file=sys.stderr)
        stop.set()

    previous = signal.signal(signal.SIGTERM, ask_stop)
    name = worker_name()
    failed = 0

    def finished(job: Any) -> None:
        nonlocal failed
        failed += job.status == "failed"
        print(_line(job), flush=True)

    try:
        done = run_worker(
            engine,
            name,
            once=once,
            poll=poll,
            max_jobs=max_jobs,
            kinds=tuple(kind or ()),
            stop=stop,
            on_job=finished,
            on_start=lambda: print(f"worker {name} taking jobs", file=sys.stderr),
        )
    except KeyboardInterrupt:
        done = -1
    finally:
        signal.signal(signal.SIGTERM, previous)
        engine.close()
    if done >= 0:
        print(
            f"{done} job{'s' if done != 1 else ''} taken: {done - failed} done, {failed} failed",
            file=sys.stderr,
        )
