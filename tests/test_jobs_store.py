"""The job table on both backends: queued once, taken once, a dead worker's job taken again."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from docmentor.errors import NotFoundError, UsageError
from docmentor.store import jobs
from docmentor.store.db import Store
from docmentor.store.pg_store import PgStore


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


def test_a_job_is_queued_taken_once_and_finished(store: Store) -> None:
    job, new = jobs.enqueue_job(store, "refresh", {"source": "docs"})
    assert new and job.status == "queued" and job.args == {"source": "docs"}
    taken = jobs.claim_job(store, "w1")
    assert taken is not None and taken.id == job.id and taken.status == "running" and taken.worker == "w1"
    assert jobs.claim_job(store, "w2") is None  # nothing else waits
    assert jobs.heartbeat(store, job.id, "w1") and not jobs.heartbeat(store, job.id, "w2")
    assert not jobs.finish_job(store, job.id, "w2", result={"x": 1})  # not w2's job
    assert jobs.finish_job(store, job.id, "w1", result={"documents": 3})
    done = jobs.get_job(store, job.id)
    assert (done.status, done.result, done.attempts, done.error) == ("done", {"documents": 3}, 1, None)
    assert [j.id for j in jobs.list_jobs(store, status="done")] == [job.id]


def test_a_failed_job_keeps_its_error(store: Store) -> None:
    job, _ = jobs.enqueue_job(store, "readme-llm", {"library": "x"})
    assert jobs.claim_job(store, "w", kinds=("refresh",)) is None  # another kind only
    assert jobs.claim_job(store, "w", kinds=("readme-llm",)) is not None
    jobs.finish_job(store, job.id, "w", error="no docs found")
    assert (jobs.get_job(store, job.id).status, jobs.get_job(store, job.id).error) == (
        "failed",
        "no docs found",
    )


def test_the_same_dedupe_key_queues_one_job_per_interval(store: Store) -> None:
    first, new = jobs.enqueue_job(store, "refresh", dedupe="refresh:all", min_interval=3600)
    again, new_again = jobs.enqueue_job(store, "refresh", dedupe="refresh:all", min_interval=3600)
    assert new and not new_again and again.id == first.id
    jobs.claim_job(store, "w")
    jobs.finish_job(store, first.id, "w", result={})
    _, after_done = jobs.enqueue_job(store, "refresh", dedupe="refresh:all", min_interval=3600)
    assert not after_done  # finished within the hour: not queued again
    _, later = jobs.enqueue_job(store, "refresh", dedupe="refresh:all", min_interval=0)
    assert later


def test_a_dead_workers_job_is_taken_again_then_failed(store: Store) -> None:
    job, _ = jobs.enqueue_job(store, "refresh")
    assert jobs.claim_job(store, "dead-1") is not None
    time.sleep(0.7)
    again = jobs.claim_job(store, "w2", stale_after=0.5, max_attempts=2)
    assert again is not None and again.id == job.id and again.attempts == 2 and again.worker == "w2"
    assert not jobs.finish_job(store, job.id, "dead-1", result={})  # the first worker lost it
    time.sleep(0.7)
    assert jobs.claim_job(store, "w3", stale_after=0.5, max_attempts=2) is None
    failed = jobs.get_job(store, job.id)
    assert failed.status == "failed" and "stopped answering 2 times" in (failed.error or "")


def test_bad_input_is_a_clear_error(store: Store) -> None:
    with pytest.raises(UsageError):
        jobs.enqueue_job(store, " ")
    with pytest.raises(UsageError, match="JSON"):
        jobs.enqueue_job(store, "refresh", {"when": object()})
    with pytest.raises(UsageError, match="unknown job status"):
        jobs.list_jobs(store, status="sleeping")
    with pytest.raises(NotFoundError):
        jobs.get_job(store, 999)


_CLAIMER = """
import sys, time
from docmentor.store import jobs
from docmentor.store.pg_store import PgStore
store = PgStore(sys.argv[1])
taken = []
while True:
    job = jobs.claim_job(store, sys.argv[2])
    if job is None:
        break
    time.sleep(0.01)
    jobs.finish_job(store, job.id, sys.argv[2], result={"by": sys.argv[2]})
    taken.append(job.id)
print(",".join(map(str, taken)))
"""


def test_workers_in_several_processes_take_each_job_exactly_once(postgres_url: str) -> None:
    store = PgStore(postgres_url)
    ids = [jobs.enqueue_job(store, "refresh", {"n": i})[0].id for i in range(60)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CLAIMER, postgres_url, f"w{i}"], stdout=subprocess.PIPE, text=True
        )
        for i in range(4)
    ]
    outputs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    taken = [int(x) for out in outputs for x in out.split(",") if x]
    assert sorted(taken) == ids  # each exactly once
    assert sum(1 for out in outputs if out) >= 2  # the work was shared
    assert {j.status for j in jobs.list_jobs(store, limit=100)} == {"done"}
    store.close_all()
