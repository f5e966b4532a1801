"""The hand-written fast paths give what the standard paths give.

- ``sources.client.H11Client`` answers as ``HttpxClient`` (httpx) does, response by response,
  against a real server on 127.0.0.1.
- ``cli.app._end_process`` (``os._exit`` after ``add`` / ``refresh``): the process skips the
  interpreter's teardown, yet its output is all there and its exit code is the command's.

The other two have their equivalence tests beside them: bpe.py against toktok in
tests/test_assemble_tokens.py, the forked parser against the plain loop in
tests/test_parse_batch.py. benchmarks/bench_fast_paths.py measures all four.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import httpserver
from docmentor.sources.client import BodyTooLarge, Client, H11Client, HttpxClient
from httpserver import HttpServer

http_server = httpserver.http_server

HEADERS = {"User-Agent": "docmentor", "Accept": "text/markdown"}
COMPARED = ("content-type", "content-encoding", "etag", "last-modified", "location")

# ------------------------------------------------------------------ the HTTP client


# A response (url, status, compared headers, body), or ("too large", the declared length).
Answer = tuple[str, int, dict[str, str], bytes] | tuple[str, int | None]


def answers(
    make: type[H11Client] | type[HttpxClient], requests: list[tuple[str, dict[str, str], int]]
) -> list[Answer]:
    """What one client answers to each (url, headers, cap), as comparable plain values."""

    async def run() -> list[Answer]:
        client: Client = make(headers=HEADERS, max_connections=4)
        out: list[Answer] = []
        try:
            for url, headers, cap in requests:
                try:
                    r = await client.get(url, headers, cap)
                except BodyTooLarge as exc:
                    out.append(("too large", exc.declared))
                    continue
                seen = {k: v for k, v in r.headers.items() if k in COMPARED}
                out.append((r.url, r.status, seen, r.content))
        finally:
            await client.aclose()
        return out

    return asyncio.run(run())


def test_h11_client_answers_as_httpx(http_server: HttpServer) -> None:
    text = ("# Title\n\nwords and more words, café — 中文\n" * 400).encode()
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    http_server.add("/plain.md", text, content_type="text/markdown; charset=utf-8")
    http_server.add("/gzip.md", gzip.compress(text), headers={"Content-Encoding": "gzip"})
    http_server.add("/zlib.md", zlib.compress(text), headers={"Content-Encoding": "deflate"})
    http_server.add("/raw.md", raw.compress(text) + raw.flush(), headers={"Content-Encoding": "deflate"})
    http_server.add(
        "/chunked.md", gzip.compress(text), headers={"Content-Encoding": "gzip"}, chunked=True, chunk_size=100
    )
    http_server.add("/tagged.md", text, etag='"v1"', last_modified="Wed, 21 Oct 2026 07:28:00 GMT")
    http_server.add("/gone.md", "not here", status=404)
    http_server.add("/declared.md", b"x" * 9000)
    http_server.add("/bomb.md", gzip.compress(b"a" * 2_000_000), headers={"Content-Encoding": "gzip"})
    http_server.redirect("/moved.md", "/plain.md", status=301)
    url = http_server.url
    requests = [
        (url("/plain.md"), {}, 1_000_000),
        (url("/gzip.md"), {}, 1_000_000),
        (url("/zlib.md"), {}, 1_000_000),
        (url("/raw.md"), {}, 1_000_000),
        (url("/chunked.md"), {}, 1_000_000),
        (url("/tagged.md"), {}, 1_000_000),
        (url("/tagged.md"), {"If-None-Match": '"v1"'}, 1_000_000),  # 304, no body
        (url("/tagged.md"), {"If-Modified-Since": "Wed, 21 Oct 2026 07:28:00 GMT"}, 1_000_000),
        (url("/gone.md"), {}, 1_000_000),
        (url("/moved.md"), {}, 1_000_000),  # redirects are the caller's: not followed
        (url("/declared.md"), {}, 5000),
        (url("/bomb.md"), {}, 5000),
        (url("/plain.md"), {}, len(text)),  # exactly the cap
    ]
    fast = answers(H11Client, requests)
    standard = answers(HttpxClient, requests)
    for request, mine, theirs in zip(requests, fast, standard, strict=True):
        assert mine == theirs, request
    statuses = [a[1] if len(a) == 4 else a[0] for a in fast]
    assert statuses == [200] * 6 + [304, 304, 404, 301, "too large", "too large", 200]
    assert [a[3] for a in fast if len(a) == 4 and a[1] == 200] == [text] * 7
    assert http_server.errors == []


# ------------------------------------------------------------------ os._exit at the end of add / refresh

# The `docmentor` program with an atexit handler: it runs only if the process goes through the
# interpreter's teardown, so its line on stderr tells which way the process ended.
_PROGRAM = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('teardown ran', file=sys.stderr))\n"
    "from docmentor.cli.app import main\n"
    "sys.exit(main())\n"
)


def docmentor(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    # Without PYTHONUNBUFFERED, stdout to a pipe is block-buffered, as for a user's `| jq`.
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCMENTOR_") and k != "PYTHONUNBUFFERED"}
    env.update(DOCMENTOR_HOME=str(home), DOCMENTOR_EMBEDDINGS="0")
    return subprocess.run(
        [sys.executable, "-c", _PROGRAM, *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_an_indexing_command_ends_at_once_with_all_its_output(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(120):  # --json lists nothing per document, so make the text output long too
        (docs / f"page{i:03d}.md").write_text(f"# Page {i}\n\nThe numbat{i} digs.\n")
    home = tmp_path / "home"

    added = docmentor("add", str(docs), "--name", "docs", "--json", home=home)
    assert added.returncode == 0, added.stderr
    assert "teardown ran" not in added.stderr  # the fast path was taken ...
    assert json.loads(added.stdout)["documents"] == 120  # ... and stdout (a pipe) was flushed whole

    refreshed = docmentor("refresh", "--json", home=home)
    assert refreshed.returncode == 0, refreshed.stderr
    assert "teardown ran" not in refreshed.stderr
    assert [s["unchanged"] for s in json.loads(refreshed.stdout)["sources"]] == [120]

    # Errors and read-only commands end the usual way, with their own exit codes.
    missing = docmentor("refresh", "nosuchsource", home=home)
    assert missing.returncode == 1 and missing.stderr.startswith("error: ")
    assert "teardown ran" in missing.stderr
    found = docmentor("search", "numbat7", "--json", home=home)
    assert found.returncode == 0 and "teardown ran" in found.stderr
    assert json.loads(found.stdout)["results"][0]["path"] == "page007.md"
