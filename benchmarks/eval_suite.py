"""Search quality on the whole dev suite at once: one table for httpx, pydantic and tanstack-query.

Every ranking change is judged here, on all three corpora together (issue 18).

    python benchmarks/eval_suite.py                 # through the CLI, with ../shared/eval/evaluate.py
    python benchmarks/eval_suite.py --via library   # in-process (fast; same metrics code as `docmentor eval`)
    python benchmarks/eval_suite.py --via library --set semantic_weight=0.3 --set title_boost=0.5
    python benchmarks/eval_suite.py --via library --sweep semantic_weight=0,0.3,0.4,0.5
    python benchmarks/eval_suite.py --assemble      # also `eval assemble` coverage at 8,000 tokens
    python benchmarks/eval_suite.py --via library --postgres   # the index in PostgreSQL (pgserver)

``--set`` / ``--sweep`` take fields of ``docmentor.search.config.RankingConfig`` (library mode).
``--no-embeddings`` measures lexical ranking only. The corpora and question sets are read from
``../shared`` (``--shared`` to point elsewhere); nothing here is needed by the package or its tests.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from pg_server import schema_url, start_postgres  # noqa: E402

CORPORA = ("httpx", "pydantic", "tanstack-query")
METRICS = (
    ("doc", "mrr"),
    ("doc", "r@1"),
    ("doc", "r@5"),
    ("doc", "ndcg"),
    ("section", "mrr"),
    ("section", "r@5"),
)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _config(overrides: dict[str, Any]) -> Any:
    from docmentor.search.config import RankingConfig

    names = {f.name for f in dataclasses.fields(RankingConfig)}
    bad = sorted(set(overrides) - names)
    if bad:
        sys.exit(f"error: unknown ranking constant(s) {', '.join(bad)}; known: {', '.join(sorted(names))}")
    return RankingConfig().replace(**overrides)


def _via_library(
    shared: Path,
    corpus: str,
    config: Any,
    dbs: dict[tuple[str, str], Path | str],
    tmp: Path,
    embeddings: bool,
    assemble: bool,
    postgres: str | None = None,
) -> dict[str, Any]:
    from docmentor import assemble_context
    from docmentor.engine import Docmentor
    from docmentor.evaluation import coverage, distilled_text, load_questions, score_search

    root = shared / "corpora" / corpus
    questions = load_questions(shared / "eval" / f"{corpus}.jsonl")
    key = (corpus, config.index_signature() + (f"+emb{config.embed_tokens}" if embeddings else ""))
    index_s = 0.0
    if key not in dbs:
        db: Path | str = tmp / f"{corpus}-{len(dbs)}"
        if postgres is not None:
            db = schema_url(postgres, f"{corpus.replace('-', '_')}_{len(dbs)}")
        t0 = time.perf_counter()
        engine = Docmentor(db, ranking=config, embeddings=embeddings)
        engine.add(root, name=corpus)
        index_s = time.perf_counter() - t0
        engine.close()
        dbs[key] = db
    engine = Docmentor(dbs[key], ranking=config, embeddings=embeddings)
    cache: dict[str, list[str]] = {}

    def read_lines(path: str) -> list[str]:
        if path not in cache:
            try:
                cache[path] = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                cache[path] = []
        return cache[path]

    engine.search("warm up", source=corpus, limit=10)
    rows, lat, covered = [], [], []
    for q in questions:
        t0 = time.perf_counter()
        hits = engine.search(q["query"], source=corpus, limit=10)
        lat.append(time.perf_counter() - t0)
        rows.append(score_search(q, [h.to_dict() for h in hits], read_lines))
        if assemble and q.get("expected_contains"):
            digest = assemble_context(engine, q["query"], max_tokens=8000, source=corpus)
            covered.append(coverage(distilled_text(digest), q["expected_contains"])[0])  # as eval assemble
    engine.close()
    out = _summary(rows)
    out.update(index_s=index_s, p50_ms=statistics.median(lat) * 1000, rows=rows)
    if covered:
        out["assemble"] = sum(c >= 0.8 for c in covered) / len(covered)
    return out


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {f"{lvl}.{k}": statistics.fmean(r[lvl][k] for r in rows) for lvl, k in METRICS}


_LINE = re.compile(r"(\w[\w@]*)=([0-9.]+)")


def _via_cli(shared: Path, corpus: str, cli: str, embeddings: bool) -> dict[str, Any]:
    cmd = cli + ("" if embeddings else " --no-embeddings")
    proc = subprocess.run(
        [
            sys.executable,
            str(shared / "eval" / "evaluate.py"),
            "--corpus",
            str(shared / "corpora" / corpus),
            "--queries",
            str(shared / "eval" / f"{corpus}.jsonl"),
            "--cmd",
            cmd,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        sys.exit(f"evaluate.py failed on {corpus}:\n{proc.stderr[-2000:]}")
    out: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        level = line.split(" ", 1)[0]
        for k, v in _LINE.findall(line):
            if level in ("doc", "section"):
                out[f"{level}.{k}"] = float(v)
            elif k == "index_s":
                out["index_s"] = float(v)
            elif k == "cli_search_p50_ms":
                out["p50_ms"] = float(v)
    return out


def _assemble_cli(shared: Path, corpus: str, cli: str, tmp: Path, embeddings: bool) -> float:
    db = tmp / f"asm-{corpus}"
    base = [*shlex.split(cli), "--db", str(db)]
    if not embeddings:
        base.append("--no-embeddings")
    subprocess.run(
        [*base, "add", str(shared / "corpora" / corpus), "--name", corpus], check=True, capture_output=True
    )
    proc = subprocess.run(
        [
            *base,
            "eval",
            "assemble",
            str(shared / "eval" / f"{corpus}.jsonl"),
            "--max-tokens",
            "8000",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(proc.stdout)
    return float(data["summary"]["pass_rate"])


def _print(results: dict[str, dict[str, Any]], label: str) -> None:
    head = ["corpus", "doc MRR", "R@1", "R@5", "nDCG", "sec MRR", "sec R@5", "p50 ms", "index s"]
    if any("assemble" in r for r in results.values()):
        head.append("assemble@8k")
    print(f"\n{label}")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for corpus, r in results.items():
        cells = [corpus, *(f"{r.get(f'{lvl}.{k}', float('nan')):.3f}" for lvl, k in METRICS)]
        cells += [f"{r.get('p50_ms', float('nan')):.1f}", f"{r.get('index_s', 0.0):.2f}"]
        if "assemble" in r:
            cells.append(f"{r['assemble']:.2f}")
        print("| " + " | ".join(cells) + " |")
    means = {f"{lvl}.{k}": statistics.fmean(r[f"{lvl}.{k}"] for r in results.values()) for lvl, k in METRICS}
    print("| **mean** | " + " | ".join(f"{means[f'{lvl}.{k}']:.3f}" for lvl, k in METRICS) + " | | |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--via", choices=("cli", "library"), default="cli")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--cmd", default=str(ROOT / ".venv" / "bin" / "docmentor"), help="how to call the CLI")
    ap.add_argument("--corpus", action="append", choices=CORPORA, help="only these corpora (default: all)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a ranking constant")
    ap.add_argument("--sweep", metavar="NAME=V1,V2,...", action="append", default=[], help="try each value")
    ap.add_argument("--no-embeddings", action="store_true", help="lexical ranking only")
    ap.add_argument("--assemble", action="store_true", help="also eval assemble coverage at 8,000 tokens")
    ap.add_argument("--json", type=Path, help="write every figure (and per-question rows) here")
    ap.add_argument("--postgres", action="store_true", help="the index in PostgreSQL (library mode)")
    args = ap.parse_args()
    if args.postgres and args.via != "library":
        sys.exit("error: --postgres needs --via library")
    if not (args.shared / "eval" / "evaluate.py").is_file():
        sys.exit(f"error: no dev suite at {args.shared} (pass --shared)")
    corpora = args.corpus or list(CORPORA)
    base = dict(item.split("=", 1) for item in args.set)
    base = {k: _value(v) for k, v in base.items()}
    sweeps = [(k, [_value(v) for v in vs.split(",")]) for k, vs in (s.split("=", 1) for s in args.sweep)]
    combos = [
        dict(zip([k for k, _ in sweeps], vals, strict=True))
        for vals in itertools.product(*[v for _, v in sweeps])
    ]
    embeddings = not args.no_embeddings
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ.setdefault("DOCMENTOR_HOME", str(tmp / "home"))
        dbs: dict[tuple[str, str], Path | str] = {}
        server, pg_url = start_postgres(tmp) if args.postgres else (None, None)
        for combo in combos or [{}]:
            overrides = {**base, **combo}
            label = f"via {args.via}, embeddings {'on' if embeddings else 'off'}" + (
                ", " + ", ".join(f"{k}={v}" for k, v in overrides.items()) if overrides else ""
            )
            results: dict[str, dict[str, Any]] = {}
            for corpus in corpora:
                if args.via == "library":
                    results[corpus] = _via_library(
                        args.shared, corpus, _config(overrides), dbs, tmp, embeddings, args.assemble, pg_url
                    )
                else:
                    if overrides:
                        sys.exit("error: --set/--sweep need --via library")
                    results[corpus] = _via_cli(args.shared, corpus, args.cmd, embeddings)
                    if args.assemble:
                        results[corpus]["assemble"] = _assemble_cli(
                            args.shared, corpus, args.cmd, tmp, embeddings
                        )
            _print(results, label + (", PostgreSQL" if pg_url else ""))
            report[label] = results
        if server is not None:
            server.cleanup()
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
