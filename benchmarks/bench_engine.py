#!/usr/bin/env python3
"""Engine benchmarks that need no baseline: a 1,000-file folder and readers during refresh.

1. Build a 1,000-file corpus by combining the three corpora in ../shared/corpora with
   path prefixes (replicated as needed), then time, through the CLI and in-process:
   a cold ``add``, a re-``add`` of the unchanged folder, a refresh after one file
   changed, and a refresh after every file changed.
2. Reader latency while another process refreshes: a reader searches in a loop while a
   writer process alternates the folder's content and refreshes; report the reader's
   p50 / p99 / max latency and its error count (the store's promise: readers are never
   blocked for more than a few milliseconds).

Usage: .venv/bin/python benchmarks/bench_engine.py [--files 1000] [--seconds 8] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
CLI = [str(ROOT / ".venv" / "bin" / "docmentor")]


def build_corpus(dest: Path, n_files: int) -> int:
    """Copy Markdown files of every corpus under prefixes copy0/, copy1/ … until n_files."""
    files = sorted(p for p in CORPORA.rglob("*") if p.suffix in {".md", ".mdx", ".rst"} and p.is_file())
    count, copy = 0, 0
    while count < n_files:
        for src in files:
            if count >= n_files:
                break
            rel = src.relative_to(CORPORA)
            out = dest / f"copy{copy}" / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out)
            count += 1
        copy += 1
    return count


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return time.perf_counter() - t


READER = textwrap.dedent(
    """
    import json, sys, time
    from docmentor.engine import Docmentor
    db, seconds = sys.argv[1], float(sys.argv[2])
    e = Docmentor(db, create=False)
    queries = ["connection pool timeout", "create an index", "authentication provider", "software catalog",
               "streaming responses", "vector search filter", "plugin architecture", "hybrid search"]
    lat, errors, i = [], 0, 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        try:
            e.search(queries[i % len(queries)], limit=5)
        except Exception as exc:
            errors += 1
            print(repr(exc), file=sys.stderr)
        lat.append(time.perf_counter() - t)
        i += 1
    print(json.dumps({"n": len(lat), "errors": errors, "lat": lat}))
    """
)


def reader_during_refresh(db: Path, folder: Path, seconds: float) -> dict[str, float]:
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(db), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    refreshes = 0
    end = time.monotonic() + seconds
    target = folder / "copy0" / "httpx" / "docs" / "quickstart.md"
    original = target.read_text()
    while time.monotonic() < end:
        target.write_text(original + f"\n\nEdit number {refreshes}.\n")
        subprocess.run([*CLI, "--db", str(db), "refresh", "bench"], check=True, capture_output=True)
        refreshes += 1
    out, _ = reader.communicate(timeout=seconds + 30)
    data = json.loads(out)
    lat = sorted(data["lat"])
    return {
        "reader_queries": data["n"],
        "reader_errors": data["errors"],
        "reader_p50_ms": statistics.median(lat) * 1000,
        "reader_p99_ms": lat[int(len(lat) * 0.99) - 1] * 1000,
        "reader_max_ms": lat[-1] * 1000,
        "refreshes": refreshes,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder, db = Path(tmp) / "corpus", Path(tmp) / "index"
        results["files"] = build_corpus(folder, args.files)
        results["cli_cold_add_s"] = timed([*CLI, "--db", str(db), "add", str(folder), "--name", "bench"])
        results["cli_unchanged_readd_s"] = min(
            timed([*CLI, "--db", str(db), "add", str(folder), "--name", "bench"]) for _ in range(3)
        )
        sys.path.insert(0, str(ROOT / "src"))
        from docmentor.engine import Docmentor

        engine = Docmentor(db)
        t = time.perf_counter()
        report = engine.add(str(folder), name="bench")
        results["inproc_unchanged_readd_s"] = time.perf_counter() - t
        results["inproc_unchanged_count"] = report.unchanged
        one = folder / "copy0" / "httpx" / "docs" / "async.md"
        one.write_text(one.read_text() + "\n\nChanged.\n")
        t = time.perf_counter()
        report = engine.refresh("bench")[0]
        results["inproc_one_changed_refresh_s"] = time.perf_counter() - t
        results["inproc_one_changed_updated"] = report.updated
        engine.close()
        # every file changed: a refresh rewrites every document (each old section deleted,
        # cascading to its code blocks) — as slow as a cold add at most, through the CLI
        for page in folder.rglob("*.md"):
            page.write_text(page.read_text(encoding="utf-8") + "\n\nChanged again.\n", encoding="utf-8")
        results["cli_all_changed_refresh_s"] = timed([*CLI, "--db", str(db), "refresh", "bench"])
        results.update(reader_during_refresh(db, folder, args.seconds))
    print(f"Machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.platform()}")
    print("| measure | value |\n|---|---:|")
    for k, v in results.items():
        print(f"| {k} | {v:.3f} |" if isinstance(v, float) else f"| {k} | {v} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
