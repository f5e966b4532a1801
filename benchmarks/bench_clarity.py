#!/usr/bin/env python3
"""Clarity scoring speed and findings on the three corpora in ../shared/corpora.

Each corpus is scored as one folder (includes resolved, links checked on disk), the way
``docmentor clarity score FOLDER`` does it:

1. Speed: the in-process ``score_paths`` time (best and median of --repeat runs) and the
   wall time of the whole CLI (``docmentor clarity score FOLDER --json``, start-up included).
   Target: all files of the lancedb corpus in under 5 s on this 2-core machine; the script
   exits 1 when the CLI time for lancedb misses it.
2. Findings: documents, average score, the grade distribution, and the issue counts by type
   (and by severity) per corpus — what to look at for false positives.

Usage: .venv/bin/python benchmarks/bench_clarity.py [--repeat 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
sys.path.insert(0, str(ROOT / "src"))

from docmentor.clarity import score_paths  # noqa: E402

TARGET_SECONDS = {"lancedb": 5.0}
GRADES = ("A+", "A", "B", "C", "D", "F")


def cli_seconds(folder: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "docmentor", "clarity", "score", str(folder), "--json"],
        capture_output=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"clarity score {folder} failed: {proc.stderr.decode(errors='replace')[-2000:]}")
    return seconds


def measure(folder: Path, repeat: int) -> dict[str, Any]:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = score_paths([folder])
        times.append(time.perf_counter() - t)
    assert result is not None
    issues = [i for d in result.documents for i in d.issues]
    summary = result.summary
    return {
        "files": sum(1 for p in folder.rglob("*") if p.is_file()),
        "documents": len(result.documents),
        "inproc_best_s": round(min(times), 3),
        "inproc_median_s": round(statistics.median(times), 3),
        "cli_s": round(cli_seconds(folder), 3),
        "average_score": summary.average_score,
        "average_grade": summary.average_grade,
        "grade_distribution": {g: summary.grade_distribution.get(g, 0) for g in GRADES},
        "issues_by_severity": dict(sorted(Counter(i.severity for i in issues).items())),
        "issues_by_type": dict(Counter(i.type for i in issues).most_common()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", type=Path, default=CORPORA)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    folders = sorted(p for p in args.corpora.iterdir() if p.is_dir())
    out: dict[str, Any] = {"cpus": os.cpu_count(), "corpora": {}}
    missed = []
    for folder in folders:
        row = measure(folder, max(1, args.repeat))
        out["corpora"][folder.name] = row
        target = TARGET_SECONDS.get(folder.name)
        verdict = ""
        if target is not None:
            ok = row["cli_s"] < target
            verdict = f"  target < {target:.0f} s: {'ok' if ok else 'MISSED'}"
            if not ok:
                missed.append(folder.name)
        print(
            f"{folder.name}: {row['documents']} documents ({row['files']} files) in "
            f"{row['inproc_best_s']:.2f} s in-process (median {row['inproc_median_s']:.2f} s), "
            f"{row['cli_s']:.2f} s through the CLI{verdict}"
        )
        dist = ", ".join(f"{g} {n}" for g, n in row["grade_distribution"].items())
        print(f"  average {row['average_score']:.1f} ({row['average_grade']}); grades: {dist}")
        sev = ", ".join(f"{k} {v}" for k, v in row["issues_by_severity"].items())
        print(f"  issues: {sev}")
        print("  by type: " + ", ".join(f"{k} {v}" for k, v in row["issues_by_type"].items()))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    if missed:
        raise SystemExit(f"speed target missed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
