#!/usr/bin/env python3
"""Context assembly: quality on the httpx dev set, budget honesty, and speed on 1,000 files.

1. Quality: index ../shared/corpora/httpx, assemble every question of
   ../shared/eval/httpx.jsonl at --max-tokens 8000, and report the expected_contains pass
   rate (coverage >= 0.8 passes) — the same as `docmentor eval assemble`.
2. Budget honesty: for every dev question and budgets 1k, 4k, 8k, 16k, recount the digest's
   tokens independently (toktok, o200k_base) and report the worst ratio to the budget.
3. Speed: a 1,000-file corpus (the three corpora combined with path prefixes, replicated),
   assemble the dev questions in-process (p50, max) and through the CLI (a new process per
   call, with a fresh DOCMENTOR_HOME: the first call, which derives the token cache, then
   p50 and max of the next ten), reported as the ratio to the time budget (< 15 s for
   1,000 files).

Usage: .venv/bin/python benchmarks/bench_assemble.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import toktok  # noqa: E402
from bench_engine import build_corpus  # noqa: E402

from docmentor import assemble_context  # noqa: E402
from docmentor.engine import Docmentor  # noqa: E402
from docmentor.evaluation import PASS_COVERAGE, coverage, load_questions  # noqa: E402

CLI = str(ROOT / ".venv" / "bin" / "docmentor")
SPEC_SECONDS_1000 = 15.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    questions = load_questions(SHARED / "eval" / "httpx.jsonl")
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DOCMENTOR_HOME"] = str(Path(tmp) / "home")  # nothing under ~
        engine = Docmentor(Path(tmp) / "httpx")
        engine.add(str(SHARED / "corpora" / "httpx"), name="httpx")
        passed, covs, fails = 0, [], []
        worst = 0.0
        for q in questions:
            for budget in (1000, 4000, 8000, 16000):
                d = assemble_context(engine, q["query"], max_tokens=budget, allow_empty=True)
                recount = toktok.batch_count([d.markdown], "o200k_base")[0]
                worst = max(worst, recount / budget)
                if budget == 8000:
                    cov, missing = coverage(d.markdown, q["expected_contains"])
                    covs.append(cov)
                    if cov >= PASS_COVERAGE:
                        passed += 1
                    else:
                        fails.append((q["id"], round(cov, 2), missing))
        out["httpx_pass_rate_8k"] = passed / len(questions)
        out["httpx_mean_coverage_8k"] = statistics.fmean(covs)
        out["httpx_failures"] = fails
        out["budget_worst_ratio"] = worst

        folder, db = Path(tmp) / "corpus", Path(tmp) / "big"
        out["files"] = build_corpus(folder, 1000)
        big = Docmentor(db)
        big.add(str(folder), name="big")
        lat = []
        for q in questions:
            t = time.perf_counter()
            assemble_context(big, q["query"], max_tokens=8000, allow_empty=True)
            lat.append(time.perf_counter() - t)
        out["inproc_p50_s"] = statistics.median(lat)
        out["inproc_max_s"] = max(lat)
        # A fresh home: the first call derives the token cache (docs/assemble.md), the rest read it.
        env = {**os.environ, "DOCMENTOR_HOME": str(Path(tmp) / "cli-home")}

        def cli_call(query: str) -> float:
            t = time.perf_counter()
            subprocess.run(
                [CLI, "--db", str(db), "assemble", query, "--allow-empty"],
                check=True,
                capture_output=True,
                env=env,
            )
            return time.perf_counter() - t

        out["cli_first_call_s"] = cli_call(questions[0]["query"])
        cli = [cli_call(q["query"]) for q in questions[:10]]
        out["cli_p50_s"] = statistics.median(cli)
        out["cli_max_s"] = max(cli)
        out["ratio_to_spec_inproc"] = SPEC_SECONDS_1000 / out["inproc_p50_s"]  # type: ignore[operator]
        out["ratio_to_spec_cli"] = SPEC_SECONDS_1000 / out["cli_p50_s"]  # type: ignore[operator]
    for k, v in out.items():
        print(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
