#!/usr/bin/env python3
"""Benchmark docmentor against the baseline ``llmdoc`` (PyPI) in one run.

Both tools index the same corpus through an ``llms.txt`` served on loopback
(benchmarks/serve_corpus.py), then each MCP server is spawned over stdio with
the official MCP Python client and asked the same ``search_docs`` queries.

Measured, per tool:
  * indexing via llms.txt: llmdoc indexes inside its server at start-up; we time
    spawn -> its ``Startup refresh completed`` log line (llmdoc's only completion
    signal; the document count seen through ``list_sources`` is recorded too).
    docmentor: wall time of ``docmentor --db TMP add URL --name NAME``.
  * docmentor only: ``docmentor --db TMP2 add CORPUS --name NAME`` (local folder, cold).
  * server ready: spawn -> first ``search_docs`` answer with >= 1 result
    (llmdoc with LLMDOC_SKIP_STARTUP_REFRESH=true on the index built above).
  * ``search_docs`` round-trip p50/p95 over QUERIES x --repeat, after --warmup calls.
  * server RSS (process + descendants, /proc VmRSS) after the queries; peak (VmHWM).
  * ``--help`` wall time, best of 5.

Indexing alone can be repeated: ``--index-runs N`` indexes N times per tool, alternating
llmdoc and docmentor, each time into a new, empty index (llmdoc also gets a new HOME),
against the same server; the table gives each tool's median (min–max) and the ratio of
the medians. ``--index-only`` skips the search, local-folder and server phases.

Bytecode: llmdoc runs from a pip-installed venv (its ``.pyc`` files were written at install)
and without ``PYTHONDONTWRITEBYTECODE``. docmentor usually runs from a source checkout, where
that variable (if set in the shell) would leave stale ``.pyc`` files to be recompiled at every
start. So docmentor also runs without the variable, and its package is byte-compiled once
before anything is timed, as ``pip install`` would have done.

Run with the project venv (it has the ``mcp`` client)::

    bash benchmarks/setup_llmdoc.sh            # once: llmdoc venv + offline DuckDB FTS
    .venv/bin/python benchmarks/bench_vs_llmdoc.py [--json out.json]
    .venv/bin/python benchmarks/bench_vs_llmdoc.py --index-only --index-runs 7

Only the project's CLI is used for docmentor (``--docmentor-cmd``), never its modules.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from serve_corpus import markdown_files, serve_corpus  # noqa: E402

DEFAULT_CORPUS = Path("/work/shared/corpora/lancedb")
DEFAULT_DOCMENTOR = str(REPO / ".venv" / "bin" / "docmentor")
DEFAULT_LLMDOC_VENV = Path(os.environ.get("LLMDOC_VENV", REPO / ".bench" / "llmdoc-venv"))
DEFAULT_LLMDOC_HOME = Path(os.environ.get("LLMDOC_HOME", REPO / ".bench" / "llmdoc-home"))

# Realistic questions a developer (or an agent) asks the LanceDB docs.
QUERIES = [
    "create an IVF_PQ index",
    "full text search tantivy",
    "hybrid search reranker",
    "merge_insert upsert",
    "connect to LanceDB Cloud",
    "create a table from a pandas DataFrame",
    "add data to an existing table",
    "delete rows with a filter",
    "update rows where condition",
    "vector search with a metadata prefilter",
    "distance metric cosine vs l2",
    "nprobes and refine_factor tuning",
    "HNSW index parameters",
    "scalar index BTREE bitmap",
    "embedding function registry openai",
    "sentence-transformers embeddings",
    "pydantic LanceModel schema Vector",
    "store data on S3 object storage credentials",
    "table versioning checkout restore",
    "compact files and cleanup old versions",
    "multivector search ColBERT",
    "binary vector hamming distance",
    "reciprocal rank fusion RRF reranker",
    "cross encoder reranking",
    "LangChain vector store integration",
    "LlamaIndex integration",
    "query with SQL DuckDB",
    "async API connect_async",
    "TypeScript search query limit",
    "schema evolution add columns alter",
]

LLMDOC_DONE = re.compile(r"Startup refresh (completed|failed|skipped)")
LLMDOC_REBUILT = re.compile(r"Index rebuilt with (\d+) documents, (\d+) chunks")
LOOPBACK_NO_PROXY = "127.0.0.1,localhost,::1"


# --------------------------------------------------------------------------- processes

_SPAWNED_PGIDS: set[int] = set()


def _kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _cleanup_all() -> None:
    for pgid in list(_SPAWNED_PGIDS):
        _kill_group(pgid)
        _SPAWNED_PGIDS.discard(pgid)


atexit.register(_cleanup_all)


def _on_signal(signum, _frame):
    _cleanup_all()
    raise KeyboardInterrupt(f"signal {signum}")


def _proc_status(pid: int) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k] = v.strip()
    except OSError:
        pass
    return out


def _all_ppids() -> dict[int, int]:
    res: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    stat = f.read()
                res[int(d)] = int(stat[stat.rindex(")") + 2 :].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    return res


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    ppids = _all_ppids()
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in ppids.items() if pp == p]
        out += kids
        todo += kids
    return out


def find_server_pid(command: str) -> int | None:
    """Our direct child whose command line names ``command`` (the stdio server we just spawned)."""
    me = os.getpid()
    base = os.path.basename(command)
    kids = sorted((c for c, pp in _all_ppids().items() if pp == me), reverse=True)
    for c in kids:
        if any(os.path.basename(a) == base for a in _cmdline(c)[:3]):
            return c
    return kids[0] if kids else None


def rss_info(pid: int | None) -> dict[str, Any]:
    """VmRSS of the process + descendants, and VmHWM (peak) of the process, in MiB."""
    if not pid:
        return {"rss_mib": None, "peak_rss_mib": None, "pids": []}

    def kib(pid_: int, key: str) -> int:
        v = _proc_status(pid_).get(key, "0 kB").split()
        return int(v[0]) if v else 0

    pids = [pid, *descendants(pid)]
    total = sum(kib(p, "VmRSS") for p in pids)
    return {
        "rss_mib": round(total / 1024, 1),
        "peak_rss_mib": round(kib(pid, "VmHWM") / 1024, 1),
        "pids": pids,
    }


@dataclass
class CmdResult:
    argv: list[str]
    rc: int | None
    wall_s: float
    stdout: str
    stderr: str
    timed_out: bool = False

    def failure(self) -> str | None:
        if self.rc == 0 and not self.timed_out:
            return None
        why = f"timed out after {self.wall_s:.0f}s" if self.timed_out else f"exit code {self.rc}"
        tail = "\n".join((self.stderr or self.stdout).strip().splitlines()[-15:])
        return f"`{shlex.join(self.argv)}` failed: {why}\n{tail}"


def run_cmd(argv: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None) -> CmdResult:
    """Run a command in its own process group; kill the whole group on timeout or leftovers."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as e:
            return CmdResult(argv, 127, 0.0, "", f"cannot spawn: {e}")
        _SPAWNED_PGIDS.add(p.pid)
        timed_out = False
        try:
            rc: int | None = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out, rc = True, None
            _kill_group(p.pid)
            p.wait()
        wall = time.perf_counter() - t0
        _kill_group(p.pid)  # stray grandchildren
        _SPAWNED_PGIDS.discard(p.pid)
        out.seek(0)
        err.seek(0)
        return CmdResult(argv, rc, wall, out.read(), err.read(), timed_out)


def path_size_mib(p: Path) -> float | None:
    if not p.exists():
        return None
    if p.is_file():
        return round(p.stat().st_size / 2**20, 2)
    return round(sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) / 2**20, 2)


# --------------------------------------------------------------------------- MCP helpers


def _items_from(obj: Any) -> list | None:
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict):
        for key in ("results", "result", "items"):
            if isinstance(obj.get(key), list):
                return obj[key]
    return None


def search_items(res: Any) -> tuple[list | None, str | None]:
    """(result items, error text) of a ``search_docs`` CallToolResult, whatever its shape."""
    texts = [getattr(c, "text", "") for c in (res.content or []) if getattr(c, "type", "") == "text"]
    if res.is_error:
        return None, " ".join(texts)[:500] or "is_error"
    items = _items_from(res.structured_content)
    if items is not None:
        return items, None
    parsed = []
    for t in texts:
        try:
            parsed.append(json.loads(t))
        except ValueError:
            return None, f"non-JSON text content: {t[:200]!r}"
    if len(parsed) == 1:
        items = _items_from(parsed[0])
        if items is not None:
            return items, None
        if isinstance(parsed[0], dict):
            return [parsed[0]], None
    return parsed, None


def _top(items: list | None) -> str | None:
    if not items or not isinstance(items[0], dict):
        return None
    it = items[0]
    return it.get("url") or it.get("path") or it.get("title")


def signature(items: list | None) -> list:
    """What identifies an answer: each result's place, section and score (4 decimals)."""
    out = []
    for it in items or []:
        if isinstance(it, dict):
            score = it.get("score")
            out.append(
                [
                    it.get("url") or it.get("path"),
                    it.get("heading"),
                    it.get("line_start"),
                    round(score, 4) if isinstance(score, int | float) else score,
                ]
            )
    return out


def onnxruntime_mapped(pid: int | None) -> bool | None:
    """Whether the process (or a descendant) has onnxruntime's shared library mapped."""
    if not pid:
        return None
    for p in [pid, *descendants(pid)]:
        with contextlib.suppress(OSError):
            if "onnxruntime" in Path(f"/proc/{p}/maps").read_text(errors="replace"):
                return True
    return False


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    k = max(0, math.ceil(p / 100 * len(s)) - 1)  # nearest rank
    return s[k]


@dataclass
class ServerRun:
    """Config for one stdio server spawn."""

    label: str
    command: str
    args: list[str]
    env: dict[str, str]
    cwd: Path
    errlog: Path


async def _open(
    run: ServerRun, stack: contextlib.AsyncExitStack, init_timeout: float = 120
) -> tuple[ClientSession, int | None, float]:
    """Spawn the server and initialize an MCP session; everything is closed by ``stack``.

    Timeouts must not wrap the stack's entries (anyio cancel scopes must nest with
    the transport's task group), so only ``initialize`` gets its own deadline.
    """
    run.cwd.mkdir(parents=True, exist_ok=True)
    errf = stack.enter_context(run.errlog.open("w"))
    params = StdioServerParameters(command=run.command, args=run.args, env=run.env, cwd=str(run.cwd))
    read, write = await stack.enter_async_context(stdio_client(params, errlog=errf))
    pid = find_server_pid(run.command)
    if pid:
        _SPAWNED_PGIDS.add(pid)  # start_new_session=True in the SDK: pgid == pid
    session = await stack.enter_async_context(ClientSession(read, write))
    t = time.perf_counter()
    with anyio.fail_after(init_timeout):
        await session.initialize()
    return session, pid, time.perf_counter() - t


def _describe(e: BaseException) -> str:
    """Leaf exceptions of (nested) exception groups, e.g. 'McpError: Connection closed'."""
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(_describe(x) for x in e.exceptions)
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _stderr_tail(path: Path, n: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").strip().splitlines()[-n:])
    except OSError:
        return ""


async def llmdoc_index_phase(run: ServerRun, timeout: float) -> dict[str, Any]:
    """Spawn llmdoc on an empty DB; time until its startup refresh is complete."""
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    pid = None
    try:
        with anyio.fail_after(timeout):
            async with contextlib.AsyncExitStack() as stack:
                session, pid, _ = await _open(run, stack)
                out["initialize_s"] = round(time.perf_counter() - t0, 3)
                tools = {t.name for t in (await session.list_tools()).tools}
                out["tools"] = sorted(tools)
                first_docs_s = None
                next_poll = 0.0
                done = None
                while done is None:
                    log = run.errlog.read_text(errors="replace")
                    m = LLMDOC_DONE.search(log)
                    if m:
                        done = m.group(1)
                        out["index_s"] = round(time.perf_counter() - t0, 3)
                        break
                    now = time.perf_counter()
                    if now >= next_poll:
                        next_poll = now + 0.25
                        res = await session.call_tool("list_sources", {})
                        items, _ = search_items(res)
                        n = sum(int(s.get("doc_count") or 0) for s in items or [] if isinstance(s, dict))
                        if n and first_docs_s is None:
                            first_docs_s = round(time.perf_counter() - t0, 3)
                    await anyio.sleep(0.02)
                out["refresh_outcome"] = done
                res = await session.call_tool("list_sources", {})
                items, _ = search_items(res)
                out["sources"] = items
                out["documents"] = sum(
                    int(s.get("doc_count") or 0) for s in items or [] if isinstance(s, dict)
                )
                if first_docs_s is None and out["documents"]:
                    first_docs_s = round(time.perf_counter() - t0, 3)
                out["docs_visible_s"] = first_docs_s
                m = LLMDOC_REBUILT.search(run.errlog.read_text(errors="replace"))
                if m:
                    out["chunks"] = int(m.group(2))
                out.update({k: v for k, v in rss_info(pid).items() if k != "pids"})
                if done != "completed":
                    out["error"] = f"llmdoc startup refresh {done}:\n{_stderr_tail(run.errlog)}"
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        out["error"] = f"{_describe(e)}\n{_stderr_tail(run.errlog)}"
    finally:
        if pid:
            _kill_group(pid)
            _SPAWNED_PGIDS.discard(pid)
    return out


async def search_phase(
    run: ServerRun,
    queries: list[str],
    warmup: int,
    repeat: int,
    limit: int,
    ready_timeout: float,
    timeout: float,
    settle: float = 0.0,
    prepare: Any = None,
    lexical_ref: dict[str, list] | None = None,
) -> dict[str, Any]:
    """Spawn a server; time spawn -> first search hit, then round-trips of search_docs
    (after ``settle`` seconds: a server's background work, docmentor's model load, is done).

    ``prepare(session, pid, out)``, if given, is awaited before the warm-up (docmentor hybrid:
    waits until the model is loaded and answers are hybrid). ``lexical_ref`` (query -> result
    signature by words only, same index): each timed query's first answer is compared with it."""
    out: dict[str, Any] = {}
    pid = None
    t0 = time.perf_counter()
    try:
        with anyio.fail_after(timeout):
            async with contextlib.AsyncExitStack() as stack:
                session, pid, _ = await _open(run, stack, ready_timeout)
                out["initialize_s"] = round(time.perf_counter() - t0, 3)
                last_err = None
                while True:
                    left = ready_timeout - (time.perf_counter() - t0)
                    if left <= 0:
                        raise TimeoutError(
                            f"no search_docs answer with results within {ready_timeout}s: {last_err}"
                        )
                    with anyio.fail_after(left):
                        res = await session.call_tool("search_docs", {"query": queries[0], "limit": limit})
                    items, err = search_items(res)
                    if items:
                        break
                    last_err = err or "no results"
                    await anyio.sleep(0.05)
                out["ready_s"] = round(time.perf_counter() - t0, 3)
                if last_err:
                    out["ready_note"] = f"empty/failed answers before ready: {last_err}"
                if settle > 0:
                    await anyio.sleep(settle)
                tools = {t.name for t in (await session.list_tools()).tools}
                out["tools"] = sorted(tools)
                if prepare is not None:
                    await prepare(session, pid, out)
                for i in range(warmup):
                    await session.call_tool(
                        "search_docs", {"query": queries[i % len(queries)], "limit": limit}
                    )
                lat: list[float] = []
                per_query: dict[str, dict[str, Any]] = {}
                errors = 0
                for rep in range(repeat):
                    for q in queries:
                        t = time.perf_counter()
                        res = await session.call_tool("search_docs", {"query": q, "limit": limit})
                        dt = time.perf_counter() - t
                        lat.append(dt)
                        items, err = search_items(res)
                        if err:
                            errors += 1
                        if rep == 0:
                            per_query[q] = {"hits": len(items or []), "top": _top(items), "error": err}
                            if lexical_ref is not None and q in lexical_ref:
                                per_query[q]["same_as_lexical"] = signature(items) == lexical_ref[q]
                out["latencies_ms"] = [round(x * 1000, 3) for x in lat]
                ms = [x * 1000 for x in lat]
                out["p50_ms"] = round(percentile(ms, 50), 2)
                out["p95_ms"] = round(percentile(ms, 95), 2)
                out["mean_ms"] = round(statistics.fmean(ms), 2)
                out["max_ms"] = round(max(ms), 2)
                out["calls"] = len(ms)
                out["errors"] = errors
                out["queries_with_hits"] = sum(1 for v in per_query.values() if v["hits"])
                if lexical_ref is not None:
                    out["queries_differing_from_lexical"] = sum(
                        1 for v in per_query.values() if v.get("same_as_lexical") is False
                    )
                out["per_query"] = per_query
                out.update(rss_info(pid))
                out["onnxruntime_mapped"] = onnxruntime_mapped(pid)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        msg = _describe(e)
        out["error"] = (
            f"{run.label} serve: `{shlex.join([run.command, *run.args])}`: {msg}\n{_stderr_tail(run.errlog)}"
        )
    finally:
        if pid:
            _kill_group(pid)
            _SPAWNED_PGIDS.discard(pid)
    return out


# --------------------------------------------------------------------------- the two tools


def _base_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"NO_PROXY": LOOPBACK_NO_PROXY, "no_proxy": LOOPBACK_NO_PROXY, "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def best_wall(argv: list[str], env: dict[str, str], n: int, timeout: float, cwd: Path) -> dict[str, Any]:
    runs = [run_cmd(argv, env, timeout, cwd) for _ in range(n)]
    bad = next((r for r in runs if r.failure()), None)
    out = {
        "best_ms": round(min(r.wall_s for r in runs) * 1000, 1),
        "runs_ms": [round(r.wall_s * 1000, 1) for r in runs],
    }
    if bad:
        out["error"] = bad.failure()
    return out


def bench_llmdoc(a: argparse.Namespace, llms_url: str, tmp: Path) -> dict[str, Any]:
    venv = a.llmdoc_venv
    exe = venv / "bin" / "llmdoc"
    res: dict[str, Any] = {}
    tmp.mkdir(parents=True, exist_ok=True)
    if not exe.exists():
        return {"error": f"{exe} not found: run benchmarks/setup_llmdoc.sh"}
    if not (a.llmdoc_home / ".duckdb").is_dir():
        return {
            "error": f"{a.llmdoc_home}/.duckdb missing (FTS extension not pre-installed): run setup_llmdoc.sh"
        }
    env, _, db = llmdoc_fresh(a, llms_url, tmp)
    v = run_cmd(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m;"
            "print(m.version('llmdoc'),m.version('duckdb'),m.version('fastmcp'))",
        ],
        _base_env(),
        60,
    )
    if v.rc == 0 and v.stdout.split():
        res["version"], res["duckdb"], res["fastmcp"] = [*v.stdout.split(), "?", "?"][:3]

    # llmdoc has no --help: it ignores argv, starts the MCP server, and exits on stdin EOF.
    h = best_wall(
        [str(exe), "--help"],
        _base_env(**{**env, "LLMDOC_SOURCES": "", "LLMDOC_DB_PATH": str(tmp / "llmdoc-help" / "index.db")}),
        a.help_runs,
        60,
        tmp,
    )
    res["help"] = {**h, "note": "no --help flag: starts the server, exits at stdin EOF"}

    print(f"[llmdoc] indexing {llms_url} at server start ...", file=sys.stderr, flush=True)
    res["index"] = llmdoc_index_once(a, tmp, env, db)
    if "error" in res["index"] and not res["index"].get("documents"):
        res["error"] = res["index"]["error"]
        return res
    if a.index_only:
        return res

    print(f"[llmdoc] search: {len(a.queries)} queries x {a.repeat} ...", file=sys.stderr, flush=True)
    run = ServerRun(
        "llmdoc",
        str(exe),
        [],
        {**env, "LLMDOC_SKIP_STARTUP_REFRESH": "true"},
        tmp,
        tmp / "llmdoc-serve.stderr.log",
    )
    res["search"] = anyio.run(
        search_phase, run, a.queries, a.warmup, a.repeat, a.limit, a.ready_timeout, a.search_timeout, a.settle
    )
    return res


def llmdoc_index_once(a: argparse.Namespace, tmp: Path, env: dict[str, str], db: Path) -> dict[str, Any]:
    """One llmdoc start on an empty DB (``db`` and the HOME in ``env`` from :func:`llmdoc_fresh`)."""
    run = ServerRun(
        "llmdoc", str(a.llmdoc_venv / "bin" / "llmdoc"), [], env, tmp, tmp / "llmdoc-index.stderr.log"
    )
    out = anyio.run(llmdoc_index_phase, run, a.index_timeout)
    out["db_mib"] = path_size_mib(db)
    return out


def llmdoc_fresh(a: argparse.Namespace, llms_url: str, tmp: Path) -> tuple[dict[str, str], Path, Path]:
    """A new HOME (with the offline FTS extension) and an empty DB path for one llmdoc run."""
    home = tmp / "llmdoc-home"
    shutil.copytree(a.llmdoc_home / ".duckdb", home / ".duckdb")  # fresh HOME with the offline FTS extension
    db = tmp / "llmdoc" / "index.db"
    db.parent.mkdir(parents=True)
    env = {
        "HOME": str(home),
        "LLMDOC_SOURCES": f"{a.name}:{llms_url}",
        "LLMDOC_DB_PATH": str(db),
        # No PyPI "update available" check or banner from FastMCP at start (no network here).
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        "NO_PROXY": LOOPBACK_NO_PROXY,
        "no_proxy": LOOPBACK_NO_PROXY,
    }
    return env, home, db


def docmentor_env(tmp: Path) -> dict[str, str]:
    env = _base_env(DOCMENTOR_HOME=str(tmp / "docmentor-home"))
    env.pop("DOCMENTOR_DB", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as llmdoc, which gets a clean environment
    return env


def docmentor_python(cmd: list[str]) -> str | None:
    """The interpreter behind ``--docmentor-cmd`` (a python, or a script with a python shebang)."""
    exe = shutil.which(cmd[0]) or cmd[0]
    if os.path.basename(exe).startswith("python"):
        return exe
    with contextlib.suppress(OSError):
        with open(exe, "rb") as f:
            first = f.readline().decode(errors="replace").strip()
        if first.startswith("#!") and "python" in first:
            return first[2:].strip().split()[0]
    return None


def precompile_docmentor(cmd: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Byte-compile docmentor's package, as pip does at install (nothing of it is imported)."""
    py = docmentor_python(cmd)
    if py is None:
        return {"skipped": "cannot tell the interpreter of --docmentor-cmd"}
    code = (
        "import compileall, importlib.util, os, sys;"
        "spec = importlib.util.find_spec('docmentor');"
        "sys.exit(0 if compileall.compile_dir(os.path.dirname(spec.origin), quiet=1) else 1)"
    )
    r = run_cmd([py, "-c", code], env, 300)
    return {"python": py, "seconds": round(r.wall_s, 2), **({"error": r.failure()} if r.failure() else {})}


def docmentor_index_once(
    a: argparse.Namespace, llms_url: str, tmp: Path, db: Path, flags: list[str] | None = None
) -> dict[str, Any]:
    """One ``docmentor [flags] add URL`` into ``db`` (which must not exist yet), as a new process."""
    cmd = shlex.split(a.docmentor_cmd)
    tmp.mkdir(parents=True, exist_ok=True)
    r = run_cmd(
        [*cmd, *(flags or []), "--db", str(db), "add", llms_url, "--name", a.name],
        docmentor_env(tmp),
        a.index_timeout,
        tmp,
    )
    out: dict[str, Any] = {"index_s": round(r.wall_s, 3), "db_mib": path_size_mib(db)}
    if r.failure():
        out["error"] = r.failure()
    return out


def index_rounds(a: argparse.Namespace, llms_url: str, tmp: Path, report: dict[str, Any]) -> dict[str, Any]:
    """Rounds 2..N of the indexing: llmdoc then docmentor, each into a new empty index."""
    times: dict[str, list[float]] = {"llmdoc": [], "docmentor": []}
    for tool in times:
        first = _get(report[tool], "index", "index_s")
        if isinstance(first, int | float) and "error" not in report[tool].get("index", {}):
            times[tool].append(first)
    errors: list[str] = []
    for i in range(2, a.index_runs + 1):
        t = tmp / f"round-{i}"
        if a.only in ("both", "llmdoc"):
            print(f"[round {i}/{a.index_runs}] llmdoc index ...", file=sys.stderr, flush=True)
            env, _, db = llmdoc_fresh(a, llms_url, t / "llmdoc")
            r = llmdoc_index_once(a, t / "llmdoc", env, db)
            if r.get("error") or r.get("index_s") is None:
                errors.append(f"llmdoc round {i}: {r.get('error')}")
            else:
                times["llmdoc"].append(r["index_s"])
        if a.only in ("both", "docmentor"):
            print(f"[round {i}/{a.index_runs}] docmentor add ...", file=sys.stderr, flush=True)
            r = docmentor_index_once(
                a, llms_url, t / "docmentor", t / "docmentor" / "docmentor-llms", _flags(_modes(a)[0])
            )
            if r.get("error"):
                errors.append(f"docmentor round {i}: {r['error']}")
            else:
                times["docmentor"].append(r["index_s"])
        shutil.rmtree(t, ignore_errors=True)
    out: dict[str, Any] = {"runs": a.index_runs}
    out.update({tool: _spread(ts) for tool, ts in times.items() if ts})
    if out.get("llmdoc") and out.get("docmentor"):
        out["ratio_of_medians"] = round(out["llmdoc"]["median_s"] / out["docmentor"]["median_s"], 2)
    if errors:
        out["error"] = "\n".join(errors)
    return out


def _spread(ts: list[float]) -> dict[str, Any]:
    """Repeated timings: all of them, their median, min and max (s)."""
    return {"runs_s": ts, "median_s": round(statistics.median(ts), 3), "min_s": min(ts), "max_s": max(ts)}


def _modes(a: argparse.Namespace) -> list[str]:
    """docmentor's search modes to run: "off" (--no-embeddings) and/or "on" (hybrid)."""
    return {"off": ["off"], "on": ["on"], "both": ["off", "on"]}[a.docmentor_embeddings]


def _flags(mode: str) -> list[str]:
    return ["--no-embeddings"] if mode == "off" else []


def docmentor_sources(cmd: list[str], db: Path, env: dict[str, str], tmp: Path) -> Any:
    s = run_cmd([*cmd, "--db", str(db), "sources", "--json"], env, 60, tmp)
    if s.rc == 0:
        with contextlib.suppress(ValueError):
            return json.loads(s.stdout)
    return None


def _source_list(src: Any) -> list[dict]:
    if isinstance(src, dict):
        src = src.get("sources", src.get("results"))
    return [s for s in src or [] if isinstance(s, dict)]


def embedded_counts(src: Any) -> tuple[int, int] | None:
    """(embedded, units) summed over `docmentor sources --json`; None without those fields."""
    rows = _source_list(src)
    if not rows or "units" not in rows[0]:
        return None
    return sum(int(r.get("embedded") or 0) for r in rows), sum(int(r.get("units") or 0) for r in rows)


def lexical_reference(
    a: argparse.Namespace, cmd: list[str], db: Path, env: dict[str, str], tmp: Path
) -> tuple[dict[str, list], list[str]]:
    """Each query's answer by words only on ``db`` (``--no-embeddings search --json``)."""
    ref: dict[str, list] = {}
    errors: list[str] = []
    for q in a.queries:
        r = run_cmd(
            [*cmd, "--no-embeddings", "--db", str(db), "search", q, "--json", "--limit", str(a.limit)],
            env,
            120,
            tmp,
        )
        if r.failure():
            errors.append(r.failure() or "")
            continue
        try:
            items = _items_from(json.loads(r.stdout))
        except ValueError:
            errors.append(f"search --json: not JSON: {r.stdout[:200]!r}")
            continue
        ref[q] = signature(items)
    return ref, errors


def hybrid_prepare(
    a: argparse.Namespace, cmd: list[str], db: Path, env: dict[str, str], tmp: Path, ref: dict[str, list]
) -> Any:
    """Before the timed searches: every section embedded (``sources --json``), onnxruntime
    mapped in the server, and search answers differing from the words-only answers."""

    async def prepare(session: ClientSession, pid: int | None, out: dict[str, Any]) -> None:
        t0 = time.perf_counter()
        deadline = t0 + a.hybrid_timeout
        while True:
            src = await anyio.to_thread.run_sync(docmentor_sources, cmd, db, env, tmp)
            counts = embedded_counts(src)
            out["embedded_units"] = list(counts) if counts else None
            if counts is None or counts[0] >= counts[1]:
                break
            if time.perf_counter() > deadline:
                raise TimeoutError(f"sections still not all embedded after {a.hybrid_timeout}s: {counts}")
            await anyio.sleep(1.0)
        out["embedded_wait_s"] = round(time.perf_counter() - t0, 3)
        probes = 0
        i = 0
        while True:
            q = a.queries[i % len(a.queries)]
            i += 1
            res = await session.call_tool("search_docs", {"query": q, "limit": a.limit})
            probes += 1
            items, _ = search_items(res)
            differs = q in ref and signature(items) != ref[q]
            if differs and onnxruntime_mapped(pid):
                break
            if time.perf_counter() > deadline:
                raise TimeoutError(
                    f"answers still by words only after {a.hybrid_timeout}s "
                    f"({probes} probe searches; onnxruntime mapped: {onnxruntime_mapped(pid)})"
                )
            await anyio.sleep(0.2)
        out["hybrid_wait_s"] = round(time.perf_counter() - t0, 3)
        out["hybrid_probe_searches"] = probes

    return prepare


def bench_docmentor(a: argparse.Namespace, llms_url: str, tmp: Path) -> dict[str, Any]:
    cmd = shlex.split(a.docmentor_cmd)
    res: dict[str, Any] = {"command": a.docmentor_cmd, "modes": _modes(a)}
    tmp.mkdir(parents=True, exist_ok=True)
    env = docmentor_env(tmp)
    res["precompile"] = precompile_docmentor(cmd, env)

    h = best_wall([*cmd, "--help"], env, a.help_runs, 60, tmp)
    res["help"] = h
    if "error" in h:
        res["error"] = h["error"]
        return res
    v = run_cmd([*cmd, "--version"], env, 30, tmp)
    if v.rc == 0:
        text = (v.stdout.strip() or v.stderr.strip()).splitlines()
        res["version"] = re.sub(r"^docmentor\s+", "", text[-1]) if text else None
    sh = run_cmd([*cmd, "serve", "--help"], env, 60, tmp)
    if sh.failure():
        res["error"] = "`serve` unavailable: " + sh.failure()
        return res

    # "index"/"index_local": the first mode (off when both: the lexical index llmdoc is compared with);
    # "index_embedded"/"index_local_embedded": the same with embeddings when both modes run.
    dbs: dict[str, dict[str, Path]] = {}
    for n, mode in enumerate(_modes(a)):
        suffix = "" if n == 0 else "_embedded"
        tag = "" if mode == "off" else "-emb"
        db_llms, db_local = tmp / f"docmentor-llms{tag}", tmp / f"docmentor-local{tag}"
        dbs[mode] = {"llms": db_llms, "local": db_local}
        flags = _flags(mode)
        print(f"[docmentor] {shlex.join(flags)} add {llms_url} ...", file=sys.stderr, flush=True)
        res["index" + suffix] = docmentor_index_once(a, llms_url, tmp, db_llms, flags)
        res["index" + suffix]["embeddings"] = mode
        res["index" + suffix]["sources"] = docmentor_sources(cmd, db_llms, env, tmp)
        if a.index_only:
            continue
        print(
            f"[docmentor] {shlex.join(flags)} add {a.corpus} (local, cold) ...", file=sys.stderr, flush=True
        )
        r2 = run_cmd(
            [*cmd, *flags, "--db", str(db_local), "add", str(a.corpus), "--name", a.name],
            env,
            a.index_timeout,
            tmp,
        )
        loc = {"index_s": round(r2.wall_s, 3), "db_mib": path_size_mib(db_local), "embeddings": mode}
        if r2.failure():
            loc["error"] = r2.failure()
        loc["sources"] = docmentor_sources(cmd, db_local, env, tmp)
        res["index_local" + suffix] = loc
    if a.index_only:
        return res

    for n, mode in enumerate(_modes(a)):
        suffix = "" if n == 0 else "_embedded"
        serve_db = dbs[mode][a.serve_db]
        failed = res["index" + suffix] if a.serve_db == "llms" else res["index_local" + suffix]
        key = "search_off" if mode == "off" else "search_hybrid"
        if "error" in failed:
            res[key] = {"error": failed["error"]}
            continue
        prepare, ref = None, None
        if mode == "on":
            print("[docmentor] words-only reference answers (search --json) ...", file=sys.stderr, flush=True)
            ref, errs = lexical_reference(a, cmd, serve_db, env, tmp)
            prepare = hybrid_prepare(a, cmd, serve_db, env, tmp, ref)
            if errs:
                res["lexical_reference_errors"] = errs[:3]
        print(
            f"[docmentor] search ({'hybrid' if mode == 'on' else 'no embeddings'}): "
            f"{len(a.queries)} queries x {a.repeat} ...",
            file=sys.stderr,
            flush=True,
        )
        run = ServerRun(
            f"docmentor ({mode})",
            cmd[0],
            [*cmd[1:], *_flags(mode), "--db", str(serve_db), "serve"],
            {
                "DOCMENTOR_HOME": str(tmp / "docmentor-home"),
                "NO_PROXY": LOOPBACK_NO_PROXY,
                "no_proxy": LOOPBACK_NO_PROXY,
            },
            tmp,
            tmp / f"docmentor-serve-{mode}.stderr.log",
        )
        res[key] = anyio.run(
            search_phase,
            run,
            a.queries,
            a.warmup,
            a.repeat,
            a.limit,
            a.ready_timeout,
            a.search_timeout,
            a.settle,
            prepare,
            ref,
        )
        res[key]["db"] = a.serve_db
        res[key]["embeddings"] = mode
        res[key]["argv"] = [run.command, *run.args]
    res["search"] = res.get("search_off") or res.get("search_hybrid") or {}
    return res


def _python_m(src: Path) -> tuple[list[str], dict[str, str]]:
    """``python -m docmentor`` with ``src`` first on the path (the project venv's interpreter)."""
    py = docmentor_python(shlex.split(DEFAULT_DOCMENTOR)) or sys.executable
    return [py, "-m", "docmentor"], {"PYTHONPATH": str(src)}


def lexical_ready_rounds(a: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """`add CORPUS` (local folder, new empty index each time): this code with --no-embeddings
    vs the baseline checkout (``--baseline-src``), alternating, ``--lexical-runs`` times each;
    both as ``python -m docmentor`` with their ``src`` on PYTHONPATH."""
    new_src = Path(a.current_src).resolve()
    old_src = Path(a.baseline_src).resolve()
    out: dict[str, Any] = {"runs": a.lexical_runs, "current_src": str(new_src), "baseline_src": str(old_src)}
    errors: list[str] = []
    variants = {
        "baseline": (*_python_m(old_src), []),
        "current": (*_python_m(new_src), ["--no-embeddings"]),
    }
    for label, (cmd, extra_env, flags) in variants.items():
        env = {**docmentor_env(tmp), **extra_env}
        pc = precompile_docmentor([cmd[0]], env)
        out[f"{label}_precompile"] = pc
        out[f"{label}_argv"] = [*cmd, *flags, "--db", "DB", "add", str(a.corpus), "--name", a.name]
        out[f"{label}_env"] = extra_env
    times: dict[str, list[float]] = {"baseline": [], "current": []}
    for i in range(1, a.lexical_runs + 1):
        for label, (cmd, extra_env, flags) in variants.items():
            t = tmp / f"lexical-{label}-{i}"
            t.mkdir(parents=True, exist_ok=True)
            env = {**docmentor_env(t), **extra_env}
            print(f"[lexical-ready {i}/{a.lexical_runs}] {label} add ...", file=sys.stderr, flush=True)
            r = run_cmd(
                [*cmd, *flags, "--db", str(t / "db"), "add", str(a.corpus), "--name", a.name],
                env,
                a.index_timeout,
                t,
            )
            if r.failure():
                errors.append(f"{label} run {i}: {r.failure()}")
            else:
                times[label].append(round(r.wall_s, 3))
            shutil.rmtree(t, ignore_errors=True)
    out.update({label: _spread(ts) for label, ts in times.items() if ts})
    if out.get("baseline") and out.get("current"):
        out["ratio_median"] = round(out["current"]["median_s"] / out["baseline"]["median_s"], 3)
        out["ratio_best"] = round(out["current"]["min_s"] / out["baseline"]["min_s"], 3)
    if errors:
        out["error"] = "\n".join(errors)
    return out


# --------------------------------------------------------------------------- report


def machine_info() -> dict[str, Any]:
    model = None
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem = _proc_status_meminfo()
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_model": model or platform.processor(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "mem_total_gib": mem,
        "loadavg_at_start": os.getloadavg(),
    }


def _proc_status_meminfo() -> float | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    return None


def _get(d: dict, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def _fmt(v: Any, nd: int = 2) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def render(report: dict[str, Any]) -> str:
    L, D = report["llmdoc"], report["docmentor"]
    rows = [
        ("Index via llms.txt on loopback (s)", _get(L, "index", "index_s"), _get(D, "index", "index_s"), 2),
        ("Index local folder, cold (s)", None, _get(D, "index_local", "index_s"), 2),
        (
            "Documents indexed (llms.txt)",
            _get(L, "index", "documents"),
            _docmentor_count(D, "index", "documents"),
            0,
        ),
        (
            "Chunks (llmdoc) / sections (docmentor)",
            _get(L, "index", "chunks"),
            _docmentor_count(D, "index", "sections"),
            0,
        ),
        ("Documents indexed (local folder)", None, _docmentor_count(D, "index_local", "documents"), 0),
        ("Index size on disk (MiB)", _get(L, "index", "db_mib"), _get(D, "index", "db_mib"), 2),
        (
            "Server ready: spawn → first search hit (s)",
            _get(L, "search", "ready_s"),
            _get(D, "search", "ready_s"),
            3,
        ),
        ("search_docs p50 (ms)", _get(L, "search", "p50_ms"), _get(D, "search", "p50_ms"), 2),
        ("search_docs p95 (ms)", _get(L, "search", "p95_ms"), _get(D, "search", "p95_ms"), 2),
        ("search_docs mean (ms)", _get(L, "search", "mean_ms"), _get(D, "search", "mean_ms"), 2),
        (
            f"Queries with ≥1 hit (of {len(report['queries'])})",
            _get(L, "search", "queries_with_hits"),
            _get(D, "search", "queries_with_hits"),
            0,
        ),
        ("Server RSS after queries (MiB)", _get(L, "search", "rss_mib"), _get(D, "search", "rss_mib"), 1),
        (
            "Server peak RSS, VmHWM (MiB)",
            _get(L, "search", "peak_rss_mib"),
            _get(D, "search", "peak_rss_mib"),
            1,
        ),
        ("Indexing server RSS after index (MiB)", _get(L, "index", "rss_mib"), None, 1),
        (f"`--help` wall, best of {report['params']['help_runs']} (ms)", None, _get(D, "help", "best_ms"), 1),
        ("llmdoc start → exit on stdin EOF (ms)¹", _get(L, "help", "best_ms"), None, 1),
    ]
    m = report["machine"]
    out = [
        f"## docmentor vs llmdoc — corpus `{report['corpus']}` ({report['corpus_md_files']} Markdown files)",
        "",
        f"Machine: {m['nproc']} CPUs ({m['cpu_model']}), {m['mem_total_gib']} GiB RAM, "
        f"Python {m['python']}, {m['platform']}, load avg at start {m['loadavg_at_start'][0]:.2f}",
        f"llmdoc {_get(L, 'version') or '?'} "
        f"(duckdb {_get(L, 'duckdb') or '?'}, fastmcp {_get(L, 'fastmcp') or '?'}); "
        f"docmentor {_get(D, 'version') or '?'} (`{_get(D, 'command')}`)",
        f"Queries: {len(report['queries'])} × {report['params']['repeat']} "
        f"after {report['params']['warmup']} warm-up, limit={report['params']['limit']}, over MCP stdio",
        "",
        "docmentor column: "
        + {
            "both": "`--no-embeddings` index and server (hybrid figures in the table below)",
            "off": "`--no-embeddings` index and server",
            "on": "index with embeddings, hybrid server",
        }.get(report["params"].get("docmentor_embeddings", "off"), "?"),
        "",
        "| metric | llmdoc | docmentor | llmdoc / docmentor |",
        "|---|---:|---:|---:|",
    ]
    for label, lv, dv, nd in rows:
        ratio = "—"
        if isinstance(lv, (int, float)) and isinstance(dv, (int, float)) and dv:
            ratio = f"{lv / dv:.2f}×"
        out.append(f"| {label} | {_fmt(lv, nd)} | {_fmt(dv, nd)} | {ratio} |")
    out += render_modes(report)
    rounds = report.get("index_rounds")
    if rounds:
        lr, dr = rounds.get("llmdoc") or {}, rounds.get("docmentor") or {}

        def spread(r: dict[str, Any]) -> str:
            if not r:
                return "—"
            return f"{r['median_s']:.2f} ({r['min_s']:.2f}–{r['max_s']:.2f}, n={len(r['runs_s'])})"

        ratio = rounds.get("ratio_of_medians")
        out += [
            "",
            f"Indexing via llms.txt, {rounds['runs']} alternating runs, each into a new empty index "
            "(median, min–max, in seconds):",
            "",
            "| | llmdoc | docmentor | llmdoc / docmentor |",
            "|---|---:|---:|---:|",
            f"| Index via llms.txt (s) | {spread(lr)} | {spread(dr)} | {f'{ratio:.2f}×' if ratio else '—'} |",
            "",
            f"runs, llmdoc: {lr.get('runs_s', [])}; docmentor: {dr.get('runs_s', [])}",
        ]
    out += [
        "",
        "¹ llmdoc has no `--help`: it ignores its arguments, starts the MCP server "
        "and exits when stdin closes.",
    ]
    errs = [
        (k, e)
        for k in ("llmdoc", "docmentor", "index_rounds", "lexical_ready")
        for e in _errors(report.get(k, {}))
    ]
    if errs:
        out += ["", "### Failures", ""]
        for k, e in errs:
            out += [f"**{k}**:", "```", e.strip(), "```"]
    return "\n".join(out)


TARGETS = {
    "hybrid_p50_ratio": ("hybrid search_docs p50, llmdoc / docmentor", ">=", 6.0),
    "no_embeddings_p50_ratio": ("--no-embeddings search_docs p50, llmdoc / docmentor", ">=", 20.0),
    "lexical_ready_ratio": ("lexical-ready `add` (local folder), current / baseline, median", "<=", 1.2),
    "hybrid_rss_mib": ("server RSS after the hybrid searches, model loaded (MiB)", "<=", 300.0),
}


def targets(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target's measured value and whether it is met (None: not measured)."""
    L, D = report["llmdoc"], report["docmentor"]
    lp50 = _get(L, "search", "p50_ms")

    def ratio(x: Any) -> float | None:
        if isinstance(lp50, int | float) and isinstance(x, int | float) and x:
            return round(lp50 / x, 2)
        return None

    hyb = D.get("search_hybrid") or {}
    hybrid_ok = bool(hyb.get("onnxruntime_mapped")) and bool(hyb.get("queries_differing_from_lexical"))
    values = {
        "hybrid_p50_ratio": ratio(hyb.get("p50_ms")) if hybrid_ok else None,
        "no_embeddings_p50_ratio": ratio(_get(D, "search_off", "p50_ms")),
        "lexical_ready_ratio": _get(report, "lexical_ready", "ratio_median"),
        "hybrid_rss_mib": hyb.get("rss_mib") if hybrid_ok else None,
    }
    out = {}
    for key, (label, op, goal) in TARGETS.items():
        v = values[key]
        met = None if v is None else (v >= goal if op == ">=" else v <= goal)
        out[key] = {"label": label, "value": v, "target": f"{op} {goal:g}", "met": met}
    return out


def render_modes(report: dict[str, Any]) -> list[str]:
    """docmentor's per-mode search rows, the lexical-ready comparison and the targets."""
    L, D = report["llmdoc"], report["docmentor"]
    lp50, lp95 = _get(L, "search", "p50_ms"), _get(L, "search", "p95_ms")
    out: list[str] = []
    modes = [("search_off", "--no-embeddings"), ("search_hybrid", "hybrid (model loaded)")]
    if any(D.get(k) for k, _ in modes):
        out += [
            "",
            "docmentor `search_docs` by mode (llmdoc's figures from the same run):",
            "",
            "| docmentor mode | p50 (ms) | p95 (ms) | llmdoc p50 / p50 | llmdoc p95 / p95 | RSS after (MiB) "
            "| peak RSS (MiB) | ready (s) | answers ≠ words-only | onnxruntime loaded |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for key, label in modes:
            r = D.get(key)
            if not r:
                continue
            p50, p95 = r.get("p50_ms"), r.get("p95_ms")
            r50 = f"{lp50 / p50:.2f}×" if isinstance(lp50, int | float) and p50 else "—"
            r95 = f"{lp95 / p95:.2f}×" if isinstance(lp95, int | float) and p95 else "—"
            diff = r.get("queries_differing_from_lexical")
            diff_s = f"{diff}/{len(report['queries'])}" if diff is not None else "—"
            out.append(
                f"| {label} | {_fmt(p50)} | {_fmt(p95)} | {r50} | {r95} | {_fmt(r.get('rss_mib'), 1)} "
                f"| {_fmt(r.get('peak_rss_mib'), 1)} | {_fmt(r.get('ready_s'), 3)} | {diff_s} "
                f"| {_fmt(r.get('onnxruntime_mapped'))} |"
            )
        hyb = D.get("search_hybrid") or {}
        if hyb.get("hybrid_wait_s") is not None:
            out += [
                "",
                f"Hybrid server: embedded/units {hyb.get('embedded_units')}; answers hybrid "
                f"{hyb.get('hybrid_wait_s')} s after the first answer + settle "
                f"({hyb.get('hybrid_probe_searches')} probe searches), then {report['params']['warmup']} "
                "warm-up and the timed searches.",
            ]
        for key in ("index", "index_embedded"):
            ix = D.get(key)
            if ix and ix.get("embeddings"):
                cnt = embedded_counts(ix.get("sources"))
                loc = D.get(key.replace("index", "index_local", 1)) or {}
                out.append(
                    f"- `add` via llms.txt, embeddings {ix['embeddings']}: {_fmt(ix.get('index_s'))} s"
                    f" (embedded/units {list(cnt) if cnt else '—'}); local folder: "
                    f"{_fmt(loc.get('index_s'))} s"
                )
    lr = report.get("lexical_ready")
    if lr:

        def spread(r: dict[str, Any] | None) -> str:
            if not r:
                return "—"
            return f"{r['median_s']:.3f} (best {r['min_s']:.3f}, {r['min_s']:.3f}–{r['max_s']:.3f}, n={len(r['runs_s'])})"

        out += [
            "",
            f"Lexical-ready `add` of the local folder, {lr['runs']} alternating runs, new empty index each "
            "(median (best, min–max), s):",
            "",
            "| baseline (`"
            + lr["baseline_src"]
            + "`) | current, `--no-embeddings` | current / baseline (median) "
            "| (best) |",
            "|---:|---:|---:|---:|",
            f"| {spread(lr.get('baseline'))} | {spread(lr.get('current'))} | {_fmt(lr.get('ratio_median'), 3)} "
            f"| {_fmt(lr.get('ratio_best'), 3)} |",
            "",
            f"baseline: `{shlex.join(lr['baseline_argv'])}` with {lr['baseline_env']}; "
            f"current: `{shlex.join(lr['current_argv'])}` with {lr['current_env']}",
        ]
    t = report.get("targets") or {}
    if t:
        out += ["", "Targets:", "", "| target | measured | goal | met |", "|---|---:|---|---|"]
        for v in t.values():
            met = {True: "yes", False: "**no**", None: "not measured"}[v["met"]]
            out.append(f"| {v['label']} | {_fmt(v['value'])} | {v['target']} | {met} |")
    return out


def _docmentor_count(D: dict, phase: str, what: str) -> Any:
    """Sum a count over `docmentor sources --json` (shape-tolerant)."""
    src = _get(D, phase, "sources")
    if isinstance(src, dict):
        src = src.get("sources", src.get("results"))
    keys = ("documents", "doc_count", "docs", "document_count") if what == "documents" else (what, "chunks")
    if isinstance(src, list) and src and isinstance(src[0], dict):
        for key in keys:
            if key in src[0]:
                return sum(int(s.get(key) or 0) for s in src)
    return None


def _errors(d: Any, seen: set | None = None) -> list[str]:
    seen = set() if seen is None else seen
    out = []
    if isinstance(d, dict):
        for k, v in d.items():
            if k == "error" and isinstance(v, str) and v not in seen:
                seen.add(v)
                out.append(v)
            elif isinstance(v, dict):
                out += _errors(v, seen)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="docmentor vs llmdoc benchmark (one run, same machine).")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--name", default=None, help="source name (default: corpus folder name)")
    ap.add_argument("--docmentor-cmd", default=os.environ.get("DOCMENTOR_CMD", DEFAULT_DOCMENTOR))
    ap.add_argument("--llmdoc-venv", type=Path, default=DEFAULT_LLMDOC_VENV)
    ap.add_argument("--llmdoc-home", type=Path, default=DEFAULT_LLMDOC_HOME)
    ap.add_argument("--only", choices=["both", "llmdoc", "docmentor"], default="both")
    ap.add_argument(
        "--serve-db", choices=["llms", "local"], default="llms", help="which docmentor index `serve` uses"
    )
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument(
        "--settle",
        type=float,
        default=3.0,
        help="seconds between a server's first answer and the timed searches, for both tools "
        "(docmentor loads its embedding model in the background: searches before that are by words)",
    )
    ap.add_argument("--limit", type=int, default=5, help="search_docs limit (llmdoc's default is 5)")
    ap.add_argument("--help-runs", type=int, default=5)
    ap.add_argument("--index-timeout", type=float, default=900)
    ap.add_argument("--ready-timeout", type=float, default=120)
    ap.add_argument("--search-timeout", type=float, default=900)
    ap.add_argument(
        "--index-runs",
        type=int,
        default=1,
        help="index N times per tool (alternating, new empty index each time); report median (min–max)",
    )
    ap.add_argument(
        "--index-only",
        action="store_true",
        help="only the llms.txt indexing: no search, local or serve phases",
    )
    ap.add_argument(
        "--docmentor-embeddings",
        choices=["on", "off", "both"],
        default="both",
        help="docmentor modes: off = `--no-embeddings` index and server; on = embedded index, hybrid "
        "server (timed once its model is loaded and answers differ from words-only); both (default)",
    )
    ap.add_argument(
        "--hybrid-timeout",
        type=float,
        default=600,
        help="seconds to wait for a hybrid server's sections to be embedded and its answers hybrid",
    )
    ap.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="an older checkout's src (e.g. /tmp/old/src): compare its `add CORPUS` time with this "
        "code's `--no-embeddings add CORPUS` (lexical-ready time), --lexical-runs alternating runs",
    )
    ap.add_argument(
        "--current-src", type=Path, default=REPO / "src", help="this code's src for that comparison"
    )
    ap.add_argument("--lexical-runs", type=int, default=5)
    ap.add_argument("--json", type=Path, help="write raw numbers here")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the temporary indexes and logs")
    a = ap.parse_args(argv)
    a.corpus = a.corpus.resolve()
    a.name = a.name or a.corpus.name
    a.queries = QUERIES
    signal.signal(signal.SIGTERM, _on_signal)

    tmp = Path(tempfile.mkdtemp(prefix="bench-vs-llmdoc-"))
    report: dict[str, Any] = {
        "corpus": str(a.corpus),
        "corpus_md_files": len(markdown_files(a.corpus)),
        "name": a.name,
        "machine": machine_info(),
        "params": {
            "help_runs": a.help_runs,
            "repeat": a.repeat,
            "warmup": a.warmup,
            "limit": a.limit,
            "serve_db": a.serve_db,
            "index_runs": a.index_runs,
            "index_only": a.index_only,
            "docmentor_embeddings": a.docmentor_embeddings,
            "settle": a.settle,
            "baseline_src": str(a.baseline_src) if a.baseline_src else None,
            "lexical_runs": a.lexical_runs,
        },
        "queries": QUERIES,
        "llmdoc": {},
        "docmentor": {},
        "tmp": str(tmp),
    }
    try:
        with serve_corpus(a.corpus, name=a.name) as base:
            llms_url = f"{base}/llms.txt"
            report["llms_url"] = llms_url
            for tool, fn in (("llmdoc", bench_llmdoc), ("docmentor", bench_docmentor)):
                if a.only in ("both", tool):
                    try:
                        report[tool] = fn(a, llms_url, tmp / tool)
                    except KeyboardInterrupt:
                        raise
                    except Exception as e:
                        report[tool] = {
                            "error": f"harness error: {type(e).__name__}: {e}\n{traceback.format_exc()}"
                        }
                else:
                    report[tool] = {"skipped": True}
            if a.index_runs > 1:
                report["index_rounds"] = index_rounds(a, llms_url, tmp, report)
            if a.baseline_src and a.only in ("both", "docmentor"):
                try:
                    report["lexical_ready"] = lexical_ready_rounds(a, tmp / "lexical-ready")
                except Exception as e:
                    report["lexical_ready"] = {
                        "error": f"harness error: {type(e).__name__}: {e}\n{traceback.format_exc()}"
                    }
    finally:
        _cleanup_all()
        if not a.keep_tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    report["targets"] = targets(report)
    text = render(report)
    print(text)
    if a.json:
        a.json.write_text(json.dumps(report, indent=2, default=str))
        print(f"\nraw numbers: {a.json}", file=sys.stderr)
    bad = (
        _errors(report["llmdoc"])
        or _errors(report["docmentor"])
        or _errors(report.get("index_rounds", {}))
        or _errors(report.get("lexical_ready", {}))
    )
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
