#!/usr/bin/env python3
"""Scale benchmark: a ~10x corpus, lexical-ready time, and search while it is being embedded.

Steps:
  1. Scale corpus: the shared corpora (httpx, pydantic, tanstack-query, lancedb, backstage)
     copied ``--copies`` times into one temp folder (copy ``i`` under ``copy{i}/``).
     A unit's vector is keyed by the hash of what the model reads (title, heading path,
     text), not by its path, so verbatim copies would share vectors and only one copy's
     worth would be embedded. By default every Markdown heading of copy ``i > 0`` gets a
     `` (copy i)`` suffix so each copy's units are distinct and all of them are embedded;
     ``--verbatim`` copies the files unchanged (then the embedding phase measures the
     de-duplicated work only). The number of distinct unit hashes is printed either way.
  2. Lexical-ready time: ``Docmentor.add(folder, embed=False)`` on one fresh index.
  3. Embedding in a background thread (a second ``Docmentor`` on the same index calling
     ``.embed(stop=event)``, in this process) while the main thread searches without a
     pause (queries: the ``query`` fields of ../shared/eval/*.jsonl, cycled) with
     ``wait_for_model = False``, as the server does. Each search's latency and any
     exception are recorded; hybrid ranking applies to units as their vectors commit
     (the search instance's vector cache picks up new rows on every search).
     ``--limit-seconds`` caps this phase: the stop event ends the embedding after the
     batch in hand, so the script always ends.
  4. After the embedding: search latency with every vector (or with what was embedded,
     when capped), and this process's RSS (/proc/self/status VmRSS, VmHWM) with the model
     loaded.

Run with the project venv::

    .venv/bin/python benchmarks/bench_scale.py [--copies 10] [--limit-seconds 600] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))

from docmentor.engine import Docmentor  # noqa: E402

CORPORA = ["httpx", "pydantic", "tanstack-query", "lancedb", "backstage"]
DEFAULT_CORPORA_ROOT = REPO.parent / "shared" / "corpora"
DEFAULT_EVAL_ROOT = REPO.parent / "shared" / "eval"
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6}\s+\S.*?)\s*#*\s*$")


# -- helpers -----------------------------------------------------------------------------
def proc_status() -> dict[str, int]:
    """VmRSS / VmHWM of this process, in KiB."""
    out: dict[str, int] = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


def mib(kib: int) -> float:
    return round(kib / 1024, 1)


def pct(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


def latency_stats(ms: list[float]) -> dict[str, Any]:
    return {
        "n": len(ms),
        "p50_ms": _r(pct(ms, 50)),
        "p95_ms": _r(pct(ms, 95)),
        "p99_ms": _r(pct(ms, 99)),
        "max_ms": _r(max(ms) if ms else None),
        "mean_ms": _r(statistics.fmean(ms) if ms else None),
    }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def fmt_stats(s: dict[str, Any]) -> str:
    return (
        f"n={s['n']}  p50={s['p50_ms']} ms  p95={s['p95_ms']} ms  p99={s['p99_ms']} ms  "
        f"max={s['max_ms']} ms  mean={s['mean_ms']} ms"
    )


def load_queries(eval_root: Path) -> list[str]:
    queries: list[str] = []
    for path in sorted(eval_root.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line:
                continue
            q = json.loads(line).get("query")
            if isinstance(q, str) and q.strip():
                queries.append(q)
    if not queries:
        raise SystemExit(f"no queries found in {eval_root}/*.jsonl")
    return queries


def suffix_headings(text: str, tag: str) -> str:
    """Every ATX heading outside fenced code gets ``tag`` appended."""
    out = []
    in_fence = False
    for line in text.splitlines(keepends=True):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            m = HEADING.match(line.rstrip("\n"))
            if m:
                end = "\n" if line.endswith("\n") else ""
                line = f"{m.group(1)} {tag}{end}"
        out.append(line)
    return "".join(out)


def build_corpus(root: Path, dest: Path, copies: int, *, distinct: bool) -> dict[str, Any]:
    files = 0
    md_files = 0
    size = 0
    for i in range(copies):
        for name in CORPORA:
            src = root / name
            if not src.is_dir():
                raise SystemExit(f"corpus not found: {src}")
            target = dest / f"copy{i}" / name
            shutil.copytree(src, target)
            if distinct and i > 0:
                for p in target.rglob("*"):
                    if p.is_file() and p.suffix.lower() in (".md", ".markdown", ".mdx"):
                        p.write_text(suffix_headings(p.read_text(errors="replace"), f"(copy {i})"))
    for p in dest.rglob("*"):
        if p.is_file():
            files += 1
            size += p.stat().st_size
            if p.suffix.lower() in (".md", ".markdown", ".mdx"):
                md_files += 1
    return {"files": files, "markdown_files": md_files, "bytes": size}


def unit_counts(d: Docmentor) -> dict[str, int]:
    db = d.store.conn()
    units, distinct = db.execute("SELECT COUNT(*), COUNT(DISTINCT hash) FROM search_units").fetchone()
    return {"units": int(units), "distinct_unit_hashes": int(distinct)}


def section_count(d: Docmentor) -> int | None:
    db = d.store.conn()
    try:
        return int(db.execute("SELECT COUNT(*) FROM sections").fetchone()[0])
    except Exception:  # schema detail; the units count is what matters
        return None


# -- phases ------------------------------------------------------------------------------
def search_loop(
    d: Docmentor,
    queries: list[str],
    *,
    until: threading.Event | None = None,
    count: int | None = None,
    start_at: int = 0,
    progress: dict[str, int] | None = None,
    pace: float = 0.0,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Search continuously (until ``until`` is set) or ``count`` times, ``pace`` seconds
    apart (0: back to back); one record per search."""
    samples: list[dict[str, Any]] = []
    errors: list[str] = []
    i = start_at
    while True:
        if until is not None and until.is_set():
            break
        if count is not None and len(samples) + len(errors) >= count:
            break
        q = queries[i % len(queries)]
        i += 1
        if pace > 0:  # an agent's pace: the embedding gets the cores between searches
            if until is None:
                time.sleep(pace)
            elif until.wait(pace):
                break
        t0 = time.perf_counter()
        try:
            hits = d.search(q, limit=5)
        except Exception as exc:  # we record every failure
            errors.append(f"{type(exc).__name__}: {exc}")
            if len(errors) <= 3:
                traceback.print_exc()
            continue
        ms = (time.perf_counter() - t0) * 1000
        vc = d._vector_cache()
        samples.append(
            {
                "ms": ms,
                "hits": len(hits),
                "embedded": (progress or {}).get("done", 0),
                "vectors_seen": len(vc) if vc is not None else 0,
            }
        )
    return samples, errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--corpora-root", type=Path, default=DEFAULT_CORPORA_ROOT)
    ap.add_argument("--eval-root", type=Path, default=DEFAULT_EVAL_ROOT)
    ap.add_argument(
        "--limit-seconds", type=float, default=900.0, help="cap on the embedding phase (default 900)"
    )
    ap.add_argument("--after-searches", type=int, default=300, help="searches timed after the embedding")
    ap.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="seconds between searches during the embedding (0: back to back)",
    )
    ap.add_argument("--verbatim", action="store_true", help="copies unchanged (shared vectors)")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    args = ap.parse_args()

    result: dict[str, Any] = {
        "argv": sys.argv,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "copies": args.copies,
        "distinct_copies": not args.verbatim,
        "embedding_mode": "in-process: a second Docmentor on the same index, .embed(stop=event) in a thread",
    }
    queries = load_queries(args.eval_root)
    result["queries"] = len(queries)
    tmp = Path(tempfile.mkdtemp(prefix="docmentor-scale-"))
    corpus = tmp / "corpus"
    db_path = tmp / "db"
    try:
        # 1. corpus
        t0 = time.perf_counter()
        result["corpus"] = build_corpus(args.corpora_root, corpus, args.copies, distinct=not args.verbatim)
        result["corpus"]["build_seconds"] = round(time.perf_counter() - t0, 2)
        c = result["corpus"]
        print(
            f"corpus: {c['files']} files ({c['markdown_files']} Markdown), {c['bytes'] / 1e6:.1f} MB, "
            f"{args.copies} copies, {'distinct headings' if not args.verbatim else 'verbatim'}",
            flush=True,
        )
        result["rss_start"] = proc_status()

        # 2. lexical-ready
        d = Docmentor(db_path, embeddings=True)
        t0 = time.perf_counter()
        report = d.add(corpus, name="scale", embed=False)
        lexical_s = time.perf_counter() - t0
        result["lexical_ready_seconds"] = round(lexical_s, 2)
        add_report = report.to_dict()
        warnings = add_report.pop("warnings", None) or []
        add_report["warnings_count"] = len(warnings)
        add_report["warnings_first"] = warnings[:5]
        result["add_report"] = add_report
        uc = unit_counts(d)
        result["index"] = {**uc, "sections": section_count(d), "sources": d.sources()}
        docs = result["index"]["sources"][0].get("documents") if result["index"]["sources"] else None
        print(
            f"lexical-ready (add, embed=False): {lexical_s:.2f} s; documents={docs} "
            f"sections={result['index']['sections']} units={uc['units']} "
            f"distinct unit hashes (to embed)={uc['distinct_unit_hashes']}",
            flush=True,
        )
        result["rss_after_add"] = proc_status()

        # lexical-only baseline, before any model is loaded
        d.wait_for_model = False
        lex_samples, lex_errors = search_loop(d, queries, count=min(100, args.after_searches))
        result["search_lexical_only"] = {
            **latency_stats([s["ms"] for s in lex_samples]),
            "errors": len(lex_errors),
        }
        print("search, lexical only (no vectors):", fmt_stats(result["search_lexical_only"]), flush=True)

        # 3. embedding in the background, searches in the foreground
        embedder_db = Docmentor(db_path, embeddings=True)
        stop = threading.Event()
        done = threading.Event()
        progress: dict[str, int] = {"done": 0, "total": 0}
        embed_out: dict[str, Any] = {}
        timeline: list[tuple[float, int]] = []
        t_embed0 = time.perf_counter()

        def on_progress(n: int, total: int, _stage: str) -> None:
            progress["done"], progress["total"] = n, total
            timeline.append((time.perf_counter() - t_embed0, n))

        def run_embed() -> None:
            try:
                embed_out["report"] = embedder_db.embed(progress=on_progress, stop=stop)
            except BaseException as exc:
                embed_out["error"] = f"{type(exc).__name__}: {exc}"
                traceback.print_exc()
            finally:
                done.set()

        def watchdog() -> None:
            if not done.wait(args.limit_seconds):
                print(f"  --limit-seconds {args.limit_seconds:g} reached: stopping the embedding", flush=True)
                stop.set()

        def reporter() -> None:
            while not done.wait(30):
                el = time.perf_counter() - t_embed0
                n, tot = progress["done"], progress["total"]
                rate = n / el if el else 0
                print(f"  [{el:6.0f} s] embedded {n}/{tot} ({rate:.0f} units/s)", flush=True)

        th = threading.Thread(target=run_embed, name="bench-embed")
        th.start()
        threading.Thread(target=watchdog, daemon=True).start()
        threading.Thread(target=reporter, daemon=True).start()
        during, during_errors = search_loop(
            d, queries, until=done, start_at=0, progress=progress, pace=args.pace
        )
        th.join()
        wall = time.perf_counter() - t_embed0
        rep = embed_out.get("report")
        capped = stop.is_set()
        completed = rep is not None and rep.pending == 0 and not rep.skipped and not capped
        emb: dict[str, Any] = {
            "wall_seconds": round(wall, 2),
            "report": rep.to_dict() if rep is not None else None,
            "error": embed_out.get("error"),
            "capped_by_limit_seconds": capped,
            "completed": completed,
            "total_to_embed": progress["total"],
        }
        if rep is not None and rep.seconds:
            emb["units_per_second"] = round(rep.embedded / rep.seconds, 1)
            # the first progress call comes after the model load and the pending-unit scan
            first = timeline[0][0] if timeline else 0.0
            last = timeline[-1][0] if timeline else rep.seconds
            if last > first:
                emb["units_per_second_batches_only"] = round(rep.embedded / (last - first), 1)
                emb["setup_seconds_before_first_batch"] = round(first, 2)
            if rep.pending and emb.get("units_per_second"):
                emb["extrapolated_total_seconds"] = round(
                    rep.seconds + rep.pending / emb["units_per_second"], 0
                )
        result["embedding"] = emb
        ms = [s["ms"] for s in during]
        result["search_during_embedding"] = {
            **latency_stats(ms),
            "errors": len(during_errors),
            "error_samples": sorted(set(during_errors))[:5],
            "with_vectors_seen": sum(1 for s in during if s["vectors_seen"] > 0),
            "empty_results": sum(1 for s in during if s["hits"] == 0),
        }
        # latency by quarter of the embedding's progress
        total = progress["total"] or 1
        quarters = {}
        for qi in range(4):
            lo, hi = qi * total / 4, (qi + 1) * total / 4
            part = [s["ms"] for s in during if lo <= s["embedded"] < hi or (qi == 3 and s["embedded"] >= hi)]
            quarters[f"q{qi + 1}"] = latency_stats(part)
        result["search_during_embedding"]["by_progress_quarter"] = quarters

        print(
            f"embedding: {'COMPLETED' if completed else 'NOT COMPLETED'}"
            f"{' (capped by --limit-seconds)' if capped else ''}; report={emb['report']}; "
            f"{emb.get('units_per_second')} units/s overall "
            f"({emb.get('units_per_second_batches_only')} units/s over the batches); wall {wall:.1f} s",
            flush=True,
        )
        if emb.get("extrapolated_total_seconds"):
            print(f"  extrapolated full embedding: ~{emb['extrapolated_total_seconds']:.0f} s", flush=True)
        sd = result["search_during_embedding"]
        print(
            f"search during embedding: {fmt_stats(sd)}  errors={sd['errors']}  "
            f"(with vectors seen: {sd['with_vectors_seen']})",
            flush=True,
        )
        for k, v in quarters.items():
            print(f"  {k} of progress: {fmt_stats(v)}", flush=True)

        # 4. after embedding
        search_loop(d, queries, count=20)  # warm-up
        after, after_errors = search_loop(d, queries, count=args.after_searches, start_at=20)
        vc = d._vector_cache()
        result["search_after_embedding"] = {
            **latency_stats([s["ms"] for s in after]),
            "errors": len(after_errors),
            "vectors_in_cache": len(vc) if vc is not None else 0,
        }
        result["index_after"] = {"sources": d.sources()}
        result["rss_after_embedding"] = proc_status()
        sa = result["search_after_embedding"]
        print(
            f"search after embedding ({sa['vectors_in_cache']} units with vectors): {fmt_stats(sa)} "
            f"errors={sa['errors']}",
            flush=True,
        )
        for key in ("rss_start", "rss_after_add", "rss_after_embedding"):
            s = result[key]
            print(f"{key}: VmRSS {mib(s['VmRSS'])} MiB, VmHWM {mib(s['VmHWM'])} MiB", flush=True)
        embedder_db.close()
        d.close()
    finally:
        if args.json:
            args.json.write_text(json.dumps(result, indent=2, default=str))
            print(f"results written to {args.json}")
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
