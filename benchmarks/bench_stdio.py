"""Round trips over stdio through ``docmentor serve`` (the SDK's stdio transport), over pipes
(as MCP clients start servers) and over one socket for both ends (as Node's child processes
get them). One client, one request at a time, as an agent calls.

    .venv/bin/python benchmarks/bench_stdio.py [--rounds 300] [--repeats 3]

Prints, per path and request kind, the median and 90th percentile of a round trip in ms.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "0"},
    },
}


def _index(root: Path) -> Path:
    from docmentor.engine import Docmentor

    docs = root / "docs"
    docs.mkdir()
    for i in range(20):
        (docs / f"page{i}.md").write_text(f"# Page {i}\n\nThe frobnicator {i} turns widgets into gadgets.\n")
    engine = Docmentor(root / "db", create=True, embeddings=False)
    engine.add(str(docs), name="guide")
    return root / "db"


PATHS = (("pipes", True), ("socket", False))


def _session(db: Path, *, pipes: bool, rounds: int) -> dict[str, list[float]]:
    command = [sys.executable, "-m", "docmentor", "--db", str(db), "serve"]
    env = {**os.environ, "DOCMENTOR_HOME": str(db.parent / "home")}
    ours: socket.socket | None = None
    if pipes:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        out: IO[bytes] | io.BufferedRWPair = proc.stdin
        inp: IO[bytes] | io.BufferedRWPair = proc.stdout
    else:
        ours, theirs = socket.socketpair()
        proc = subprocess.Popen(command, stdin=theirs.fileno(), stdout=theirs.fileno(), env=env)
        theirs.close()
        out = inp = ours.makefile("rwb")

    def ask(message: dict[str, Any]) -> float:
        start = time.perf_counter()
        out.write((json.dumps(message) + "\n").encode())
        out.flush()
        if "id" not in message:
            return 0.0
        reply = json.loads(inp.readline())
        assert reply.get("id") == message["id"] and "result" in reply, reply
        return (time.perf_counter() - start) * 1000

    times: dict[str, list[float]] = {"ping": [], "search_docs": []}
    try:
        ask(INITIALIZE)
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for i in range(1, rounds + 1):
            times["ping"].append(ask({"jsonrpc": "2.0", "id": 2 * i, "method": "ping"}))
            call = {"name": "search_docs", "arguments": {"query": f"frobnicator {i % 20}", "limit": 3}}
            times["search_docs"].append(
                ask({"jsonrpc": "2.0", "id": 2 * i + 1, "method": "tools/call", "params": call})
            )
    finally:
        if ours is not None:
            ours.shutdown(socket.SHUT_WR)
        else:
            out.close()
        proc.wait(timeout=60)
        inp.close()
        if ours is not None:
            ours.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = _index(Path(tmp))
        results: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeats):  # alternated, so both paths see the same machine
            for name, pipes in PATHS:
                for kind, values in _session(db, pipes=pipes, rounds=args.rounds).items():
                    results.setdefault((name, kind), []).extend(values)
    for (name, kind), values in results.items():
        values.sort()
        p90 = values[int(0.9 * (len(values) - 1))]
        print(
            f"{name:8} {kind:12} median {statistics.median(values):6.3f} ms  p90 {p90:6.3f} ms  (n={len(values)})"
        )


if __name__ == "__main__":
    main()
