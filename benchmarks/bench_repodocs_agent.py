"""The documentation agent's targets (issue 21), measured with a scripted model over real HTTP.

    pip download --no-deps --no-binary :all: pysnooper python-slugify -d /tmp/sd
    (cd /tmp/sd && tar xzf pysnooper-1.2.3.tar.gz && tar xzf python_slugify-9.2.0.tar.gz)
    .venv/bin/python benchmarks/bench_repodocs_agent.py /tmp/sd/pysnooper-1.2.3 \\
        /tmp/sd/python_slugify-9.2.0 src --latency 0.05 --latency-on pysnooper-1.2.3 python_slugify-9.2.0

Each repository is copied to a temporary folder and documented by ``run_agent`` through the real
``LLMClient`` against the tests' scripted OpenAI-compatible server on 127.0.0.1
(``tests/openai_server.py``). The scripted model follows a fixed, plausible policy: READ memory,
then callees and the owning class when the task offers them, then every further page of the
unit's code; WRITE a document built from the unit (sections, every parameter, every raised
exception); VERIFY with passing scores; FINISH. Every fourth function or method with parameters
is first written without its last parameter, so VERIFY sends it back; the model then READs memory
again (a repeated read, as a model re-checking its sources does) and writes it whole. The
cross-document check always answers "no conflicts". The figures:

- **redundant reads**: READ actions that repeat one the same unit made before, as a share of all
  READs (the loop's counts, from each unit's outcome); also READs served from the run's cache.
- **own time**: the run's wall time outside model calls (the client's time waiting for the
  server, retries included, is the model's), as a share of the run: with the instant server,
  and with a fixed ``--latency`` per call standing for a model.
- **resume**: a child process runs the agent and is killed (SIGKILL) once half the units are
  committed; a resumed run must send none of the committed units to the model again.
- **update**: the function or method outside tests with the most callers gets a statement added
  to its body; ``update=True`` must send exactly the units whose code hash changed, their
  dependents (transitively, through calls, imports and inheritance) and the ancestors of both:
  precision and recall of the units sent, against that set worked out here from the two
  readings of the code and the graph (not from ``update.py``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from docmentor.engine import Docmentor  # noqa: E402
from docmentor.llm import LLMClient  # noqa: E402
from docmentor.llm.config import LLMConfig  # noqa: E402
from docmentor.repodocs import build_graph, read_repository  # noqa: E402
from docmentor.repodocs.agent import AgentConfig, RunReport, run_agent  # noqa: E402
from docmentor.repodocs.units import Component, Module, Unit  # noqa: E402
from docmentor.repodocs.verify import signature_parameters  # noqa: E402
from docmentor.store import repomem  # noqa: E402
from httpserver import Reply  # noqa: E402
from openai_server import ChatRequest, OpenAIServer  # noqa: E402

CHILD = """
import sys
from pathlib import Path
from docmentor.engine import Docmentor
from docmentor.llm import LLMClient
from docmentor.llm.config import LLMConfig
from docmentor.repodocs.agent import run_agent

engine = Docmentor(Path(sys.argv[1]))
with LLMClient(LLMConfig(base_url=sys.argv[2], model="scripted", timeout=60)) as client:
    run_agent(Path(sys.argv[3]), engine.store, client)
"""


# -- the scripted model --------------------------------------------------------------------------


def document(unit: Unit, *, drop_last: bool = False) -> str:
    """A document of ``unit`` with the sections, parameters and exceptions its code determines
    (``drop_last``: without its last parameter, which VERIFY finds)."""
    if isinstance(unit, Component) and unit.kind in ("function", "method"):
        names, _ = signature_parameters(unit)
        names = names[:-1] if drop_last else names
        parts = [f"## Summary\nWhat {unit.qualname} is for.", "## Description\nIt does its job."]
        if names:
            parts.append("## Args\n" + "\n".join(f"{n} (Any): the {n}." for n in names))
        parts.append("## Returns\nThe result.")
        if unit.raises:
            parts.append("## Raises\n" + "\n".join(f"{r}: when it fails." for r in unit.raises))
        return "\n\n".join(parts)
    if isinstance(unit, Component):
        return f"## Summary\nThe class {unit.name}.\n\n## Description\nIt keeps state."
    if isinstance(unit, Module):
        return f"## Role\nThe module {unit.name}.\n\n## Components\nIts functions and classes."
    return "## Purpose\nWhat it holds.\n\n## Overview\nIts parts."


def unit_of(req: ChatRequest) -> str:
    first_user = next(m for m in req.messages if m["role"] == "user")
    line = next(x for x in str(first_user["content"]).splitlines() if x.startswith("Unit: "))
    return line.removeprefix("Unit: ")


class ScriptedModel:
    """The policy in the module docstring; ``latency`` seconds before every answer."""

    def __init__(self, units: dict[str, Unit], latency: float = 0.0) -> None:
        self.units = units
        self.latency = latency
        self.lock = threading.Lock()
        self.plans: dict[str, list[dict[str, Any]]] = {}
        self.asked: list[str] = []  # the unit of every request, in order
        self.flawed = 0

    def __call__(self, req: ChatRequest) -> Reply:
        unit = unit_of(req)
        with self.lock:
            self.asked.append(unit)
            if str(req.messages[0]["content"]).startswith("You check a draft document"):
                action: dict[str, Any] = {"claims": [f"{unit} exists."], "conflicts": []}
            else:
                action = self.next_action(unit, req.messages)
        body = {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": req.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": json.dumps(action)},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }
        return Reply(body=json.dumps(body), content_type="application/json", delay=self.latency)

    def next_action(self, unit: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
        last = str(messages[-1]["content"])
        if unit not in self.plans or last.startswith("Unit: "):
            self.plans[unit] = self.plan(unit, str(messages[1]["content"]))
        plan = self.plans[unit]
        if last.startswith("REVISE"):
            whole = document(self.units[unit])
            plan[:0] = [{"action": "READ", "target": "memory"}, {"action": "WRITE", "document": whole}]
        elif last.startswith("Draft kept"):
            scores = {"consistency": 0.95, "completeness": 0.93, "helpfulness": 0.92}
            return {"action": "VERIFY", "scores": scores}
        elif last.startswith("PASS"):
            return {"action": "FINISH"}
        return plan.pop(0) if plan else {"action": "FINISH"}

    def plan(self, unit: str, task: str) -> list[dict[str, Any]]:
        reads: list[dict[str, Any]] = [{"action": "READ", "target": "memory"}]
        offered = next((x for x in task.splitlines() if x.startswith("Available READ targets: ")), "")
        for target in ("callees", "owner"):
            if f" {target}," in offered:
                reads.append({"action": "READ", "target": target})
        # the note after the first page (the code itself may hold such text: the last one is it)
        notes = re.findall(
            r"\[page 1 of (\d+): READ \{\"target\": \"" + re.escape(unit) + r"\", \"page\": 2\}", task
        )
        if notes:
            reads += [{"action": "READ", "target": unit, "page": p} for p in range(2, int(notes[-1]) + 1)]
        node = self.units[unit]
        flaw = False
        if isinstance(node, Component) and node.kind != "class" and signature_parameters(node)[0]:
            self.flawed += 1
            flaw = self.flawed % 4 == 0
        return [*reads, {"action": "WRITE", "document": document(node, drop_last=flaw)}]


# -- the measurements ----------------------------------------------------------------------------


def copy_repo(source: Path, into: Path) -> Path:
    target = into / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".git"))
    return target


def agent_run(root: Path, db: Path, server: OpenAIServer, **kwargs: Any) -> tuple[RunReport, float]:
    engine = Docmentor(db)
    try:
        with LLMClient(LLMConfig(base_url=server.base_url, model="scripted", timeout=60)) as client:
            started = time.monotonic()
            report = run_agent(root, engine.store, client, config=AgentConfig(), **kwargs)
            return report, time.monotonic() - started
    finally:
        engine.close()


def timing(report: RunReport, wall: float) -> dict[str, Any]:
    model = sum(o.model_seconds for o in report.outcomes)
    in_units = sum(o.seconds for o in report.outcomes)
    calls = sum(o.model_calls for o in report.outcomes)
    return {
        "wall_s": round(wall, 2),
        "model_s": round(model, 2),
        "setup_s": round(wall - in_units, 2),  # reading the code, the graph, the facts, registering
        "loop_s": round(in_units - model, 2),  # the units' loops outside model calls
        "own_share": round((wall - model) / wall, 4) if wall else 0.0,
        "own_ms_per_unit": round(1000 * (wall - model) / max(len(report.outcomes), 1), 2),
        "model_calls": calls,
    }


def measure_run(root: Path, work: Path, latency: float | None) -> dict[str, Any]:
    """A full run: redundant reads, own time (instant; and with ``latency`` when given)."""
    units = read_repository(root).units()
    out: dict[str, Any] = {}
    with OpenAIServer() as server:
        model = ScriptedModel(units)
        server.script(model)
        report, wall = agent_run(root, work / "db-instant", server)
    reads = sum(o.reads for o in report.outcomes)
    repeats = sum(o.repeated_reads for o in report.outcomes)
    out["units"] = report.total_units
    out["committed"] = len(report.committed)
    out["failed"] = len(report.failed)
    out["reads"] = reads
    out["repeated_reads"] = repeats
    out["redundant_share"] = round(repeats / reads, 4) if reads else 0.0
    out["revisions"] = sum(o.revisions for o in report.outcomes)
    out["largest_request_tokens"] = max((o.largest_request for o in report.outcomes), default=0)
    out["instant"] = timing(report, wall)
    if latency:
        with OpenAIServer() as server:
            server.script(ScriptedModel(units, latency))
            report, wall = agent_run(root, work / "db-latency", server)
        out["latency"] = {"per_call_s": latency, **timing(report, wall)}
    return out


def measure_resume(root: Path, work: Path) -> dict[str, Any]:
    """Kill a child run once half the units are committed; resume; count committed units redone."""
    db = work / "db-resume"
    Docmentor(db).close()
    units = read_repository(root).units()
    with OpenAIServer() as server:
        model = ScriptedModel(units)
        server.script(model)
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(db), server.base_url, str(root)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        engine = Docmentor(db)
        try:
            half = len(units) // 2
            while child.poll() is None:
                runs = repomem.list_runs(engine.store)
                if runs and len(repomem.unit_ids(engine.store, runs[0].id, status="committed")) >= half:
                    os.kill(child.pid, signal.SIGKILL)
                    break
                time.sleep(0.02)
            child.wait(30)
            run = repomem.list_runs(engine.store)[0]
            before = {
                r.unit_id: r.committed_at for r in repomem.units(engine.store, run.id, status="committed")
            }
        finally:
            engine.close()
        seen = len(model.asked)
        report, _ = agent_run(root, db, server)
        asked_again = set(model.asked[seen:]) & set(before)
        engine = Docmentor(db)
        try:
            after = {
                r.unit_id: r.committed_at for r in repomem.units(engine.store, run.id, status="committed")
            }
        finally:
            engine.close()
        recommitted = {u for u in before if after.get(u) != before[u]}
        update = measure_update(root, db, server, model)
    return {
        "killed_after": len(before),
        "of": len(units),
        "resumed_run_same": report.run_id == run.id,
        "finished": report.finished,
        "redone": len(asked_again | recommitted),
        "update": update,
    }


def pick_function(root: Path) -> Component:
    """The function or method outside tests with the most callers in the repository (ties: by id)."""
    graph = build_graph(read_repository(root))
    callers: dict[str, int] = defaultdict(int)
    for e in graph.edges:
        if e.kind == "calls" and e.source != e.target:
            callers[e.target] += 1
    candidates = [
        u
        for u in graph.units.values()
        if isinstance(u, Component) and u.kind in ("function", "method") and "test" not in u.path
    ]
    return max(candidates, key=lambda u: (callers.get(u.id, 0), u.id))


def edit_function(root: Path, unit: Component) -> None:
    """Add one statement at the start of the function's body (after its docstring)."""
    path = root / unit.path
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    node = next(
        n
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.lineno <= unit.line_start <= n.body[0].lineno
        and n.name == unit.name
    )
    body = node.body
    first = body[1] if len(body) > 1 and ast.get_docstring(node) is not None else body[0]
    if first is body[0] and ast.get_docstring(node) is not None:  # only a docstring: after it
        at = (body[0].end_lineno or body[0].lineno) + 1
        indent = body[0].col_offset
    else:
        at, indent = first.lineno, first.col_offset
    lines.insert(at - 1, " " * indent + "_docmentor_bench_edit = 1\n")
    path.write_text("".join(lines), encoding="utf-8")


def stale_set(before: dict[str, Unit], root: Path) -> set[str]:
    """What an update must redo by the issue's rule, worked out from the two readings of the
    code: the units whose hash changed (or that are new), every unit that depends on one of
    them — transitively, through the graph's calls, imports and inheritance edges — and the
    containment ancestors of all of these."""
    graph = build_graph(read_repository(root))
    changed = {
        u for u, unit in graph.units.items() if u not in before or before[u].content_hash != unit.content_hash
    }
    dependents: dict[str, set[str]] = defaultdict(set)
    parent: dict[str, str] = {}
    for e in graph.edges:
        if e.source == e.target:
            continue
        if e.kind == "contains":
            parent[e.target] = e.source
        else:
            dependents[e.target].add(e.source)
    stale = set(changed)
    todo = list(stale)
    while todo:
        for nxt in dependents.get(todo.pop(), ()):
            if nxt not in stale:
                stale.add(nxt)
                todo.append(nxt)
    for uid in list(stale):
        while uid in parent:
            uid = parent[uid]
            stale.add(uid)
    return stale


def measure_update(root: Path, db: Path, server: OpenAIServer, model: ScriptedModel) -> dict[str, Any]:
    before = read_repository(root).units()
    target = pick_function(root)
    edit_function(root, target)
    model.units = read_repository(root).units()
    expected = stale_set(before, root)
    seen = len(model.asked)
    report, _ = agent_run(root, db, server, update=True)
    sent = set(model.asked[seen:])
    hit = len(sent & expected)
    return {
        "edited": target.id,
        "expected": len(expected),
        "sent": len(sent),
        "precision": round(hit / len(sent), 4) if sent else 1.0,
        "recall": round(hit / len(expected), 4) if expected else 1.0,
        "finished": report.finished,
        "extra": sorted(sent - expected)[:10],
        "missed": sorted(expected - sent)[:10],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument(
        "--latency", type=float, default=0.05, help="seconds per model call in the latency run"
    )
    parser.add_argument(
        "--latency-on", nargs="*", default=None, help="folder names to run with latency (default: all)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    for repo in args.repos:
        source = repo.resolve()
        name = source.name if source.name != "src" else f"{source.parent.name}/src"
        with tempfile.TemporaryDirectory(prefix="bench-repodocs-") as tmp:
            work = Path(tmp)
            root = copy_repo(source, work / "code")
            latency = args.latency if args.latency_on is None or source.name in args.latency_on else None
            entry = measure_run(root, work, latency)
            entry["resume"] = measure_resume(copy_repo(source, work / "code2"), work)
        results[name] = entry
        if not args.json:
            print_entry(name, entry)
    if args.json:
        print(json.dumps(results, indent=2))


def print_entry(name: str, e: dict[str, Any]) -> None:
    r, u = e["resume"], e["resume"]["update"]
    print(f"== {name}: {e['units']} units, {e['committed']} committed, {e['failed']} failed")
    print(
        f"  reads {e['reads']}, repeated {e['repeated_reads']} ({100 * e['redundant_share']:.1f}%), "
        f"revisions {e['revisions']}, largest request {e['largest_request_tokens']} tokens"
    )
    i = e["instant"]
    print(
        f"  instant server: wall {i['wall_s']} s, model {i['model_s']} s, own {100 * i['own_share']:.1f}% "
        f"({i['own_ms_per_unit']} ms a unit: setup {i['setup_s']} s, loops {i['loop_s']} s; "
        f"{i['model_calls']} calls)"
    )
    if "latency" in e:
        lat = e["latency"]
        print(
            f"  {1000 * lat['per_call_s']:.0f} ms a call: wall {lat['wall_s']} s, model {lat['model_s']} s, "
            f"own {100 * lat['own_share']:.1f}% ({lat['own_ms_per_unit']} ms a unit: setup {lat['setup_s']} s, "
            f"loops {lat['loop_s']} s)"
        )
    print(
        f"  resume: killed after {r['killed_after']} of {r['of']} committed; same run {r['resumed_run_same']}, "
        f"finished {r['finished']}, committed units redone {r['redone']}"
    )
    print(
        f"  update after editing {u['edited']}: sent {u['sent']}, expected {u['expected']}, "
        f"precision {u['precision']}, recall {u['recall']}"
        + (f", extra {u['extra']}" if u["extra"] else "")
        + (f", missed {u['missed']}" if u["missed"] else "")
    )


if __name__ == "__main__":
    main()
