#!/usr/bin/env python3
"""Start-up: what one `docmentor` call costs as a new process, and importing the MCP server.

Indexes ../shared/corpora/httpx (with embeddings) into a temporary folder, or uses ``--db``;
then runs each call below as ``python -m docmentor.cli …`` ``--runs`` times and reports the
median. With ``--baseline-src DIR`` (the ``src/`` of another checkout, e.g.
``git archive REV src | tar -x -C /tmp/old``) the two codes alternate run by run, so both see
the same machine; both ``src/`` trees are compiled to bytecode first.

Usage: .venv/bin/python benchmarks/bench_startup.py [--db DIR] [--baseline-src DIR] [--runs 9]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "httpx"
QUESTION = "How do I set a timeout on a client?"


def calls(db: str) -> dict[str, list[str]]:
    return {
        "--version": ["--version"],
        "search --no-embeddings": ["--db", db, "--no-embeddings", "search", QUESTION, "--limit", "3"],
        "search (hybrid)": ["--db", db, "search", QUESTION, "--limit", "3"],
        "assemble --max-tokens 2000": ["--db", db, "assemble", QUESTION, "--max-tokens", "2000"],
        "import the server and CLI": [],
    }


def run(src: Path, args: list[str], home: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src), "DOCMENTOR_HOME": str(home)}
    command = (
        [sys.executable, "-m", "docmentor.cli", *args]
        if args
        else [sys.executable, "-c", "import docmentor.server, docmentor.cli"]
    )
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", help="an index to search (default: httpx's corpus, indexed here)")
    ap.add_argument("--baseline-src", type=Path, help="src/ of another checkout, run alternately")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    codes = {"this": ROOT / "src"}
    if args.baseline_src:
        codes = {"baseline": args.baseline_src.resolve(), **codes}
    for src in codes.values():
        compileall.compile_dir(str(src), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        db = args.db
        if db is None:
            db = str(Path(tmp) / "index")
            print(f"indexing {CORPUS} …", flush=True)
            run(codes["this"], ["--db", db, "add", str(CORPUS / "docs"), "--name", "httpx"], home)
        print(f"{'call':28}" + "".join(f"{name:>12}" for name in codes))
        for label, call in calls(db).items():
            times: dict[str, list[float]] = {name: [] for name in codes}
            for _ in range(args.runs):
                for name, src in codes.items():
                    times[name].append(run(src, call, home))
            row = "".join(f"{statistics.median(t) * 1000:>9.0f} ms" for t in times.values())
            print(f"{label:28}{row}", flush=True)


if __name__ == "__main__":
    main()
