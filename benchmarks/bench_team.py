"""A team set-up under load, on one machine: PostgreSQL, two `serve` replicas, one worker.

    python benchmarks/bench_team.py                      # 60 s, 32 clients, the pydantic dev corpus
    python benchmarks/bench_team.py --seconds 20 --clients 8 --corpus httpx

What it does (everything on 127.0.0.1, bounded in count and time):

1. starts PostgreSQL 16 + pgvector from the pgserver wheel (the test extra) in a temporary
   folder and indexes ``../shared/corpora/CORPUS`` into it (``docmentor --db URL add``);
2. starts one ``docmentor worker`` and two ``docmentor serve --transport http`` replicas on
   that database;
3. runs ``--clients`` concurrent clients for ``--seconds``: each sends ``search_docs`` with
   the dev set's questions (and every 20th call a ``report_issue``, a write) to a replica,
   and fails over to the other when its replica does not answer;
4. a third of the way in, edits a document and queues a refresh job (the worker does it
   while the searches go on); half-way, kills one replica with SIGKILL;
5. prints throughput, p50 / p99 latency, errors, fail-overs, the refresh job's outcome, and
   whether every acknowledged write is in the database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from pg_server import serve_replica, start_postgres  # noqa: E402

BIN = ROOT / ".venv" / "bin" / "docmentor"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Load:
    def __init__(self, replicas: list[str], questions: list[str], seconds: float) -> None:
        self.replicas = replicas
        self.questions = questions
        self.seconds = seconds
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.failovers = 0
        self.acknowledged: list[str] = []
        self.calls = 0

    async def _call(
        self, client: httpx.AsyncClient, first: int, name: str, arguments: dict[str, Any]
    ) -> None:
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        order = [first, 1 - first]
        for attempt, i in enumerate(order):
            try:
                response = await client.post(
                    self.replicas[i] + "/mcp", json=message, headers=ACCEPT, timeout=10
                )
            except httpx.HTTPError:
                if attempt == 0:
                    self.failovers += 1
                    continue
                raise
            body = response.json()
            if response.status_code != 200 or "error" in body or body["result"].get("isError"):
                raise RuntimeError(f"{name}: {response.status_code} {str(body)[:200]}")
            return
        raise AssertionError("unreachable")

    async def client(self, k: int) -> None:
        rng = random.Random(k)
        first = k % 2
        async with httpx.AsyncClient() as client:
            end = time.monotonic() + self.seconds
            n = 0
            while time.monotonic() < end:
                n += 1
                t0 = time.perf_counter()
                try:
                    if n % 20 == 0:
                        key = f"bench-{k}-{n}"
                        await self._call(
                            client,
                            first,
                            "report_issue",
                            {"query": key, "issue_type": "unclear_docs", "error_message": key},
                        )
                        self.acknowledged.append(key)
                    else:
                        await self._call(
                            client, first, "search_docs", {"query": rng.choice(self.questions), "limit": 5}
                        )
                        self.latencies.append(time.perf_counter() - t0)
                    self.calls += 1
                except Exception as exc:  # counted: the figure is "0 errors"
                    self.errors.append(f"{type(exc).__name__}: {exc}"[:200])

    async def run(self, clients: int) -> None:
        await asyncio.gather(*(self.client(k) for k in range(clients)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--corpus", default="pydantic")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--clients", type=int, default=32)
    args = ap.parse_args()
    corpus = args.shared / "corpora" / args.corpus
    questions = [json.loads(line)["query"] for line in (args.shared / "eval" / f"{args.corpus}.jsonl").open()]
    tmp = Path(tempfile.mkdtemp(prefix="bench-team-"))
    server, url = start_postgres(tmp)
    procs: list[subprocess.Popen[bytes]] = []
    env = {**os.environ, "DOCMENTOR_HOME": str(tmp / "home"), "DOCMENTOR_EMBEDDINGS": "0"}
    try:
        docs = tmp / "docs"
        shutil.copytree(corpus, docs)
        t0 = time.perf_counter()
        subprocess.run(
            [str(BIN), "--db", url, "add", str(docs), "--name", args.corpus],
            check=True,
            env=env,
            capture_output=True,
        )
        print(f"indexed {args.corpus} into PostgreSQL in {time.perf_counter() - t0:.1f} s")
        logs = tmp / "logs"
        logs.mkdir()
        procs.append(
            subprocess.Popen(
                [str(BIN), "--db", url, "worker", "--poll", "0.5"],
                env=env,
                stdout=(logs / "worker.log").open("wb"),
                stderr=subprocess.STDOUT,
            )
        )
        replicas = []
        for i in range(2):
            proc, replica = serve_replica(BIN, url, env, logs / f"replica{i}.log")
            procs.append(proc)
            replicas.append(replica)
        load = Load(replicas, questions, args.seconds)

        async def events() -> dict[str, Any]:
            out: dict[str, Any] = {}
            await asyncio.sleep(args.seconds / 3)
            page = next(p for p in sorted(docs.rglob("*.md")))
            page.write_text(
                page.read_text(encoding="utf-8") + "\n\n## Added under load\n\nA new section.\n",
                encoding="utf-8",
            )
            queued = subprocess.run(
                [str(BIN), "--db", url, "jobs", "add", "refresh", "--arg", f"source={args.corpus}", "--json"],
                check=True, env=env, capture_output=True, text=True,
            )  # fmt: skip
            out["job"] = json.loads(queued.stdout)["id"]
            out["queued_at"] = time.monotonic()
            await asyncio.sleep(args.seconds / 2 - args.seconds / 3)
            procs[1].send_signal(signal.SIGKILL)  # replica 0
            out["killed_at"] = time.monotonic()
            return out

        async def both() -> dict[str, Any]:
            started = time.monotonic()
            happened, _ = await asyncio.gather(events(), load.run(args.clients))
            happened["elapsed"] = time.monotonic() - started
            return happened

        happened = asyncio.run(both())
        shown = subprocess.run(
            [str(BIN), "--db", url, "jobs", "show", str(happened["job"])],
            check=True,
            env=env,
            capture_output=True,
            text=True,
        )
        job = json.loads(shown.stdout)
        stored = _feedback_keys(url)
        lost = sorted(set(load.acknowledged) - stored)
        lat = sorted(load.latencies)
        print(
            f"clients {args.clients}, {happened['elapsed']:.0f} s, replicas 2 (one killed half-way), worker 1"
        )
        print(f"calls {load.calls}  throughput {load.calls / happened['elapsed']:.0f}/s")
        print(
            f"search p50 {statistics.median(lat) * 1000:.1f} ms  p99 {lat[int(len(lat) * 0.99)] * 1000:.1f} ms  "
            f"errors {len(load.errors)}  fail-overs {load.failovers}"
        )
        print(f"refresh job {job['id']}: {job['status']} by {job['worker']} (attempts {job['attempts']})")
        print(f"acknowledged writes {len(load.acknowledged)}, lost {len(lost)}")
        for error in load.errors[:5]:
            print("  error:", error)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        server.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


def _feedback_keys(url: str) -> set[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {str(r[0]) for r in conn.execute("SELECT query FROM feedback")}


if __name__ == "__main__":
    sys.exit(main())
