#!/usr/bin/env python3
"""The hand-written fast paths beside standard ones, each timed against the standard path.

a. ``bpe``: ``docmentor assemble`` as a fresh process (an index of tests/fixtures/httpx, no
   embeddings), its tokens counted by bpe.py (the vocabulary cache file present) or by toktok
   (bpe.py's counter switched off in the process): wall time of the process, and the time
   spent in ``tokens.count_many`` inside it.
b. ``parse``: ``parse.batch.parse_many`` (with the lexical analyzer, as a refresh calls it) over
   tests/fixtures/* copied until there are about 2,000 documents: the forked second core
   against the plain loop in this process (``DOCMENTOR_PARALLEL=0``).
c. ``exit``: ``docmentor refresh`` (nothing changed) as a process, ending through
   ``os._exit`` (``cli.app._end_process``) or through the interpreter's normal teardown, on
   the small fixture corpus and on the ~2,000-document folder of b.
d. ``http``: GETs of local pages (5 KB of Markdown, a server in another process on
   127.0.0.1, HTTP/1.1 keep-alive) with ``sources.client.H11Client`` and with
   ``HttpxClient`` (httpx.AsyncClient), 8 at a time as an llms.txt load: wall time and
   this process's CPU time; then ``docmentor add`` of an llms.txt listing 300 of them,
   through each client (a proxy in the environment, bypassed by ``NO_PROXY``, makes
   docmentor use httpx).

Runs are interleaved (ABAB…) and medians reported, so a busy machine moves both sides.
Each part takes well under a minute.

Usage: .venv/bin/python benchmarks/bench_fast_paths.py [bpe] [parse] [exit] [http]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
PYTHON = sys.executable

# A `docmentor` process with a switch: "toktok" turns bpe.py off (tokens are counted by toktok),
# "teardown" ends through the interpreter's teardown instead of os._exit. Prints the seconds spent
# counting tokens on stderr's last line.
_WRAPPER = r"""
import sys, time
mode = sys.argv.pop(1)
from docmentor.assemble import distill, tokens
import docmentor.cli.app
app = sys.modules["docmentor.cli.app"]  # docmentor.cli's `app` attribute is the typer app
if mode == "toktok":
    tokens._counters["o200k_base"] = None
real_end = app._end_process
def end(rc):  # the moment the command is done: what follows is the end of the process
    print(f"ending {time.time():.6f}", file=sys.stderr, flush=True)
    if mode != "teardown":
        real_end(rc)
app._end_process = end
spent = [0.0]
real = tokens.count_many
def timed(*args, **kwargs):
    start = time.perf_counter()
    try:
        return real(*args, **kwargs)
    finally:
        spent[0] += time.perf_counter() - start
tokens.count_many = timed
distill.count_many = timed
rc = app.main()
print(f"count_many {spent[0]:.6f}", file=sys.stderr, flush=True)
sys.exit(rc)
"""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCMENTOR_") and k != "PYTHONUNBUFFERED"}
    env.update(DOCMENTOR_HOME=str(home), DOCMENTOR_EMBEDDINGS="0")
    return env


def _cli(mode: str, args: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """One `docmentor` process: its wall seconds, seconds in count_many, and seconds from the
    end of the command (add, refresh) to the end of the process."""
    start = time.perf_counter()
    done = subprocess.run(
        [PYTHON, "-c", _WRAPPER, mode, *args], env=env, capture_output=True, text=True, timeout=120
    )
    wall, ended = time.perf_counter() - start, time.time()
    if done.returncode != 0:
        raise SystemExit(f"{mode} {args}: exit {done.returncode}\n{done.stderr}")
    found = dict(
        line.split(" ", 1) for line in done.stderr.splitlines() if line.startswith(("count_many ", "ending "))
    )
    tail = ended - float(found["ending"]) if "ending" in found else 0.0
    return wall, float(found.get("count_many", 0.0)), tail


def _interleaved(
    runs: int, sides: dict[str, Callable[[], tuple[float, ...]]]
) -> dict[str, list[tuple[float, ...]]]:
    out: dict[str, list[tuple[float, ...]]] = {name: [] for name in sides}
    for _ in range(runs):
        for name, side in sides.items():
            out[name].append(side())
    return out


def _median(values: list[tuple[float, ...]], i: int = 0) -> float:
    return statistics.median(v[i] for v in values)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def bench_bpe(work: Path) -> None:
    home = work / "bpe-home"
    env = _env(home)
    db = home / "index"
    subprocess.run(
        [PYTHON, "-m", "docmentor", "--db", str(db), "add", str(FIXTURES / "httpx"), "--name", "httpx"],
        env=env,
        check=True,
        capture_output=True,
    )
    args = ["--db", str(db), "assemble", "how do I set a timeout on a client request", "--max-tokens", "4000"]
    _cli("bpe", args, env)  # the first assemble derives the vocabulary cache file
    runs = _interleaved(
        7, {"bpe": lambda: _cli("bpe", args, env), "toktok": lambda: _cli("toktok", args, env)}
    )
    print("a. docmentor assemble (fresh process, 7 runs, medians)")
    for name, values in runs.items():
        print(f"   {name:7s} process {_ms(_median(values))}   counting tokens {_ms(_median(values, 1))}")


def _corpus(work: Path, target: int = 2000) -> Path:
    """tests/fixtures/* copied until the folder holds about ``target`` documents."""
    from docmentor.sources.local import scan_folder

    folder = work / "corpus"
    if folder.exists():
        return folder
    folders = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    per_copy = sum(len(scan_folder(f, max_bytes=5_000_000).documents) for f in folders)
    for copy in range(max(1, round(target / per_copy))):
        for f in folders:
            shutil.copytree(f, folder / f"copy{copy:02d}" / f.name)
    return folder


def bench_parse(work: Path) -> None:
    from docmentor.parse import batch
    from docmentor.search.lexical import section_terms
    from docmentor.sources.local import scan_folder

    docs = scan_folder(_corpus(work), max_bytes=5_000_000).documents
    size = sum(len(d.content) for d in docs)

    def run(parallel: str) -> tuple[float, ...]:
        os.environ["DOCMENTOR_PARALLEL"] = parallel
        start = time.perf_counter()
        batch.parse_many(docs, analyze=section_terms)
        return (time.perf_counter() - start,)

    os.environ["DOCMENTOR_PARALLEL"] = "1"
    forks = batch._may_fork()
    runs = _interleaved(3, {"fork": lambda: run("1"), "loop": lambda: run("0")})
    os.environ.pop("DOCMENTOR_PARALLEL")
    print(f"b. parse_many: {len(docs)} documents, {size / 1e6:.1f} M characters (3 runs, medians)")
    if not forks:
        print("   (this process may not fork here: one core, or another thread; both sides are the loop)")
    for name, values in runs.items():
        print(f"   {name:7s} {_ms(_median(values))}")

    home = work / "parse-home"

    def add(parallel: str) -> tuple[float, ...]:
        shutil.rmtree(home, ignore_errors=True)
        env = _env(home) | {"DOCMENTOR_PARALLEL": parallel}
        start = time.perf_counter()
        subprocess.run(
            [PYTHON, "-m", "docmentor", "add", str(_corpus(work)), "--name", "docs"],
            env=env,
            check=True,
            capture_output=True,
        )
        return (time.perf_counter() - start,)

    added = _interleaved(2, {"fork": lambda: add("1"), "loop": lambda: add("0")})
    print("   docmentor add of that folder, no embeddings (a fresh index each time; 2 runs, medians)")
    for name, values in added.items():
        print(f"   {name:7s} {_ms(_median(values))}")


def bench_exit(work: Path) -> None:
    home = work / "exit-home"
    env = _env(home)
    for name, folder, runs in (
        ("the fixture corpus", FIXTURES / "corpus", 7),
        ("2,000 documents", _corpus(work), 2),
    ):
        db = home / "index"

        def add(mode: str, db: Path = db, folder: Path = folder) -> tuple[float, ...]:
            shutil.rmtree(db, ignore_errors=True)
            return _cli(mode, ["--db", str(db), "add", str(folder), "--name", "docs"], env)

        def refresh(mode: str, db: Path = db) -> tuple[float, ...]:
            return _cli(mode, ["--db", str(db), "refresh"], env)

        for command, call in (("add", add), ("refresh", refresh)):
            found = _interleaved(
                runs, {"os._exit": partial(call, "exit"), "teardown": partial(call, "teardown")}
            )
            print(f"c. docmentor {command} of {name}, as a process ({runs} runs, medians)")
            for side, values in found.items():
                print(
                    f"   {side:9s} process {_ms(_median(values))}   after the command {_ms(_median(values, 2))}"
                )


_SERVER = r"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
BODY = ("# Page\n\n" + "Some words about the client and its options. " * 110 + "\n").encode()
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else each keep-alive reply waits ~40 ms for a delayed ACK
    def do_GET(self):
        if self.path == "/llms.txt":
            body = ("# Site\n\n## Docs\n\n" + "".join(f"- [P{i}](p{i}.md)\n" for i in range(300))).encode()
        else:  # p<i>.md: a page with its own words, so that documents differ
            body = self.path.encode() + b"\n\n" + BODY
        self.send_response(200)
        self.send_header("Content-Type", "text/markdown; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


async def _fetch_all(kind: str, base: str, pages: int) -> tuple[float, float]:
    from docmentor.sources.client import H11Client, HttpxClient

    headers = {"User-Agent": "docmentor-bench"}
    client = (H11Client if kind == "h11" else HttpxClient)(headers=headers, max_connections=8)
    limit = asyncio.Semaphore(8)

    async def one(i: int) -> int:
        async with limit:
            response = await client.get(f"{base}/p{i}.md", {}, 10_000_000)
            return len(response.content)

    wall, cpu = time.perf_counter(), time.process_time()
    try:
        sizes = await asyncio.gather(*(one(i) for i in range(pages)))
    finally:
        await client.aclose()
    assert min(sizes) > 4000, sizes[:3]
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_http(work: Path) -> None:
    server = subprocess.Popen([PYTHON, "-c", _SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        pages = 500
        asyncio.run(_fetch_all("h11", base, 20))  # imports and a first connection on both sides
        asyncio.run(_fetch_all("httpx", base, 20))
        runs = _interleaved(
            5,
            {
                "h11": lambda: asyncio.run(_fetch_all("h11", base, pages)),
                "httpx": lambda: asyncio.run(_fetch_all("httpx", base, pages)),
            },
        )
        home = work / "http-home"

        def add(kind: str) -> tuple[float, ...]:
            shutil.rmtree(home, ignore_errors=True)
            env = _env(home)
            for var in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
                env.pop(var, None)
                env.pop(var.upper(), None)
            if kind == "httpx":  # a proxy in the environment makes docmentor use httpx; NO_PROXY skips it
                env.update(HTTP_PROXY="http://127.0.0.1:9", NO_PROXY="127.0.0.1")
            start = time.perf_counter()
            subprocess.run(
                [PYTHON, "-m", "docmentor", "add", f"{base}/llms.txt", "--name", "site"],
                env=env,
                check=True,
                capture_output=True,
            )
            return (time.perf_counter() - start,)

        added = _interleaved(3, {"h11": partial(add, "h11"), "httpx": partial(add, "httpx")})
    finally:
        server.terminate()
        server.wait()
    print(f"d. {pages} GETs of 5 KB pages from 127.0.0.1, 8 at a time (5 runs, medians)")
    for name, values in runs.items():
        wall, cpu = _median(values), _median(values, 1)
        print(f"   {name:6s} wall {_ms(wall)}   client CPU {_ms(cpu)} ({cpu / pages * 1000:.2f} ms per GET)")
    print("   docmentor add of an llms.txt listing 300 such pages, no embeddings (3 runs, medians)")
    for name, values in added.items():
        print(f"   {name:6s} {_ms(_median(values))}")


PARTS = {"bpe": bench_bpe, "parse": bench_parse, "exit": bench_exit, "http": bench_http}


def main() -> None:
    chosen = sys.argv[1:] or list(PARTS)
    unknown = [p for p in chosen if p not in PARTS]
    if unknown:
        raise SystemExit(f"unknown part(s) {unknown}; choose from {list(PARTS)}")
    print(
        f"python {sys.version.split()[0]}, {len(os.sched_getaffinity(0))} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-fast-paths-") as tmp:
        for part in chosen:
            PARTS[part](Path(tmp))


if __name__ == "__main__":
    main()
