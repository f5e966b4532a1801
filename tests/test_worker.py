"""Jobs queued in the index and done once by workers (docmentor/worker.py, `docmentor jobs`,
`docmentor worker`), on a real index and real sources."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError, UsageError
from docmentor.server import build_server
from docmentor.worker import get_job, queue_job, run_one_job, run_worker, wait_for_job


def _docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text("# Guide\n\nHow to configure retries.\n", encoding="utf-8")
    return docs


def test_a_queued_refresh_is_done_by_a_worker(tmp_path: Path, index_location: str) -> None:
    docs = _docs(tmp_path)
    engine = Docmentor(index_location)
    engine.add(docs, name="guide")
    (docs / "more.md").write_text("# Timeouts\n\nSet a timeout on every call.\n", encoding="utf-8")
    job, new = queue_job(engine, "refresh", {"source": "guide"}, dedupe="refresh:guide")
    assert new and job.status == "queued"
    assert not queue_job(engine, "refresh", {"source": "guide"}, dedupe="refresh:guide")[1]
    assert run_worker(engine, "w1", once=True) == 1
    done = get_job(engine, job.id)
    assert done.status == "done" and done.worker == "w1"
    assert done.result[0]["source"] == "guide" and done.result[0]["added"] == 1
    assert engine.search("timeout on every call", limit=1)[0].path == "more.md"
    engine.close()


def test_a_failing_job_is_recorded_and_the_worker_goes_on(tmp_path: Path, index_location: str) -> None:
    engine = Docmentor(index_location)
    engine.add(_docs(tmp_path), name="guide")
    engine.add(_docs(tmp_path / "other"), name="gone")
    bad, _ = queue_job(engine, "refresh", {"source": "gone"})
    good, _ = queue_job(engine, "refresh", {})
    engine.remove("gone")  # after it was queued: the worker finds no such source
    assert run_worker(engine, "w", once=True) == 2
    failed = get_job(engine, bad.id)
    assert failed.status == "failed" and "gone" in (failed.error or "")
    assert get_job(engine, good.id).status == "done"
    assert run_one_job(engine, "w") is None  # nothing left
    engine.close()


def test_a_job_is_checked_when_queued(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "index")
    with pytest.raises(UsageError, match="unknown job kind"):
        queue_job(engine, "reboot", {})
    with pytest.raises(UsageError, match="needs library, out"):
        queue_job(engine, "readme-llm", {})
    with pytest.raises(UsageError, match="takes no colour"):
        queue_job(engine, "refresh", {"colour": "red"})
    with pytest.raises(NotFoundError, match="unknown source 'nope'"):
        queue_job(engine, "refresh", {"source": "nope"})
    with pytest.raises(UsageError, match="llm is true or false, not 'no'"):  # "no" read as yes
        queue_job(engine, "repo-docs", {"root": "/repo", "llm": "no"})
    engine.close()


def test_a_relative_path_is_where_the_job_was_queued_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker runs in a folder of its own: ``root=proj`` means the queuing folder's proj/."""
    (tmp_path / "here" / "proj").mkdir(parents=True)
    (tmp_path / "here" / "proj" / "m.py").write_text('"""A module."""\n', encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    engine = Docmentor(tmp_path / "index", embeddings=False)
    monkeypatch.chdir(tmp_path / "here")
    job, _ = queue_job(engine, "repo-docs", {"root": "proj", "out": "out/docs"})
    assert job.args == {
        "root": str(tmp_path / "here" / "proj"),
        "out": str(tmp_path / "here" / "out" / "docs"),
    }
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert run_worker(engine, "w", once=True) == 1
    done = get_job(engine, job.id)
    assert done.status == "done", done.error
    assert (tmp_path / "here" / "out" / "docs" / "index.md").is_file()
    engine.close()


def test_jobs_and_worker_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = Cli(tmp_path / "index", capsys)
    cli.ok("add", str(_docs(tmp_path)), "--name", "guide")
    queued = cli.json("jobs", "add", "refresh", "--arg", "source=guide", "--arg", "prune=false")
    assert queued["queued"] and queued["args"] == {"source": "guide", "prune": False}
    keyed = cli.ok("jobs", "add", "refresh", "--arg", "source=guide", "--dedupe", "refresh:guide")
    again = cli.ok("jobs", "add", "refresh", "--arg", "source=guide", "--dedupe", "refresh:guide")
    assert again == keyed.replace("queued:", "already queued:"), (keyed, again)
    assert cli.fails("jobs", "add", "refresh", "--arg", "source=nope").startswith(
        "error: unknown source 'nope'"
    )  # said now, not by the worker later
    assert cli.json("jobs", "list", "--status", "queued")["jobs"][-1]["id"] == queued["id"]
    rc, out, err = cli("worker", "--once")
    assert rc == 0 and f"{queued['id']}\trefresh\tdone" in out and "2 jobs taken: 2 done, 0 failed" in err
    shown = cli.json("jobs", "list")["jobs"][0]
    assert shown["status"] == "done" and shown["result"][0]["source"] == "guide"
    assert "error: unknown job kind" in cli.misused("jobs", "add", "reboot")
    assert "KEY=VALUE" in cli.misused("jobs", "add", "refresh", "--arg", "source")
    assert "--arg source is given twice" in cli.misused(
        "jobs", "add", "refresh", "--arg", "source=a", "--arg", "source=b"
    )
    assert "no job 99" in cli.fails("jobs", "show", "99")
    assert "unknown job kind 'nope'" in cli.misused("worker", "--once", "--kind", "nope")
    assert "unknown job status" in cli.misused("jobs", "list", "--status", "sleeping")


_WORKER = """
import sys
from docmentor.engine import Docmentor
from docmentor.worker import run_worker
engine = Docmentor(sys.argv[1])
print(run_worker(engine, sys.argv[2], once=True))
"""


def test_workers_in_two_processes_share_the_queue_and_do_each_job_once(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "index")
    engine.add(_docs(tmp_path), name="guide")
    ids = [queue_job(engine, "refresh", {"source": "guide"})[0].id for _ in range(6)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(tmp_path / "index"), f"p{i}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    counts = [int(p.communicate(timeout=120)[0].strip()) for p in procs]
    assert sum(counts) == len(ids)
    assert {wait_for_job(engine, i, timeout=5).status for i in ids} == {"done"}
    engine.close()


def test_the_jobs_tools_over_mcp(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "index")
    engine.add(_docs(tmp_path), name="guide")
    server = build_server(engine, tools=["jobs"])

    async def go() -> tuple[set[str], Any, Any, Any, Any]:
        async with Client(server) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            first = await client.call_tool("queue_refresh", {"source": "guide"})
            again = await client.call_tool("queue_refresh", {"source": "guide"})
            unknown = await client.call_tool("queue_refresh", {"source": "nope"})
            run_worker(engine, "w", once=True)
            listed = await client.call_tool("list_jobs", {"status": "done"})
            return tools, first, again, unknown, listed

    tools, first, again, unknown, listed = anyio.run(go)
    assert tools == {"list_jobs", "queue_refresh"}
    assert first.structured_content["queued"] and not again.structured_content["queued"]
    assert again.structured_content["job"]["id"] == first.structured_content["job"]["id"]
    assert unknown.is_error
    said = unknown.content[0].text
    assert said.startswith("unknown source 'nope'") and "guide" in said and "unexpectedly" not in said, said
    (job,) = listed.structured_content["jobs"]
    assert job["status"] == "done" and job["worker"] == "w" and job["result"][0]["source"] == "guide"
    engine.close()


def test_a_worker_once_with_no_index_says_so_and_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(tmp_path / "none", capsys)
    assert cli.fails("worker", "--once").startswith(f"error: no index at {tmp_path / 'none'}")
    assert not (tmp_path / "none").exists()
