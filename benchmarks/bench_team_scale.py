"""Search at scale through MCP over HTTP: the same large corpus in PostgreSQL and embedded.

    python benchmarks/bench_team_scale.py --copies 83      # ~300k sections: every shared corpus x 83
    python benchmarks/bench_team_scale.py --copies 2       # a quick check

The five shared corpora (../shared/corpora) are copied ``--copies`` times into one folder
(hard links) and added as one source to an index in PostgreSQL (the pgserver wheel: the test
extra) and to an embedded index. Each is served by ``docmentor serve --transport http`` and
asked the dev sets' questions (``../shared/eval``) one at a time, twice, with hybrid search
(the model loaded first); printed: sections, add time, p50 / p99 of ``search_docs``.

The copies' sections are the same texts, so their vectors are shared (vectors are kept by
content hash): the index holds one vector per distinct text (~3.6k), not per section — the
nearest-neighbour part of a search is that of a ~3.6k-vector index; the lexical part is
that of the whole index.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
CORPORA = ("httpx", "pydantic", "tanstack-query", "lancedb", "backstage")
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _corpus(shared: Path, copies: int, into: Path) -> None:
    for i in range(copies):
        for name in CORPORA:
            shutil.copytree(shared / "corpora" / name, into / f"copy{i:03d}" / name, copy_function=os.link)


def _search(client: httpx.Client, url: str, query: str) -> dict[str, Any]:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": query, "limit": 10}},
    }
    response = client.post(url + "/mcp", json=message, headers=ACCEPT, timeout=60)
    body = response.json()
    if response.status_code != 200 or "error" in body or body["result"].get("isError"):
        raise SystemExit(f"search failed: {str(body)[:300]}")
    return dict(body["result"]["structuredContent"])


def _measure(db: str, questions: list[str], env: dict[str, str], logs: Path, label: str) -> dict[str, Any]:
    proc, url = serve_replica(BIN, db, env, logs / f"{label}.log", timeout=120)
    try:
        # one client, its connection kept open, as an MCP client's session does (a new client
        # per call adds ~28 ms of its own set-up to every call, which is not the server's time)
        client = httpx.Client()
        for q in questions[:10]:  # loads the model in the background; searches stay lexical until then
            _search(client, url, q)
        time.sleep(8)
        lat = []
        for _ in range(2):
            for q in questions:
                t0 = time.perf_counter()
                _search(client, url, q)
                lat.append((time.perf_counter() - t0) * 1000)
        client.close()
        lat.sort()
        return {
            "p50": statistics.median(lat),
            "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))],
            "n": len(lat),
        }
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--copies", type=int, default=83)
    ap.add_argument("--only", choices=("postgres", "embedded"), help="one backend only")
    args = ap.parse_args()
    questions = [
        json.loads(line)["query"]
        for name in ("httpx", "pydantic", "tanstack-query")
        for line in (args.shared / "eval" / f"{name}.jsonl").open()
    ]
    tmp = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    tmp.chmod(0o755)
    env = {**os.environ, "DOCMENTOR_HOME": str(tmp / "home")}
    server = None
    try:
        docs = tmp / "docs"
        t0 = time.perf_counter()
        _corpus(args.shared, args.copies, docs)
        print(f"{args.copies} copies of {', '.join(CORPORA)} linked in {time.perf_counter() - t0:.0f} s")
        logs = tmp / "logs"
        logs.mkdir()
        targets: dict[str, str] = {}
        if args.only != "embedded":
            server, targets["postgres"] = start_postgres(tmp)
        if args.only != "postgres":
            targets["embedded"] = str(tmp / "index")
        for label, db in targets.items():
            t0 = time.perf_counter()
            added = subprocess.run(
                [str(BIN), "--db", db, "add", str(docs), "--name", "scale", "--json"],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if added.returncode != 0:
                raise SystemExit(f"{label}: add failed: {added.stderr[-1000:]}")
            add_s = time.perf_counter() - t0
            listed = json.loads(
                subprocess.run(
                    [str(BIN), "--db", db, "sources", "--json"],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            source = listed["sources"][0] if isinstance(listed, dict) else listed[0]
            got = _measure(db, questions, env, logs, label)
            print(
                f"{label}: {source['sections']} sections, {source.get('units')} units, "
                f"{source.get('embedded')} embedded; add {add_s:.0f} s; search_docs over MCP HTTP "
                f"p50 {got['p50']:.1f} ms, p99 {got['p99']:.1f} ms ({got['n']} searches)"
            )
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
