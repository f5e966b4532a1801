"""MCP over stdio through a real ``docmentor serve`` (the SDK's transport and
docmentor.mcp_stdio around it): pipes, files and sockets; stray output kept off the wire;
requests read before the end of input answered, and their replies written whole."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from docmentor.engine import Docmentor
from mcptool import converse, tool_call

INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["DOCMENTOR_HOME"] = str(tmp_path / "home")
    env.pop("DOCMENTOR_DB", None)
    return env


def _engine(tmp_path: Path, *, big: bool = False) -> Docmentor:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe frobnicator turns widgets.\n")
    if big:  # a page whose get_doc reply is larger than a pipe's buffer (64 KiB)
        body = "".join(f"Paragraph {i} about widgets and frobnicators.\n\n" for i in range(2500))
        (docs / "big.md").write_text(f"# Big\n\n{body}last line of the big page\n")
    engine = Docmentor(tmp_path / "db", create=True)
    engine.add(str(docs), name="guide")
    return engine


def _converse(command: list[str], messages: list[dict[str, Any]], tmp_path: Path) -> dict[int, Any]:
    """The replies to requests, by id (see :func:`mcptool.converse`)."""
    replies, _ = converse(command, messages, env=_env(tmp_path), cwd=tmp_path)
    return {r["id"]: r for r in replies if r.get("id") is not None}


def _spawn(command: list[str], tmp_path: Path, **pipes: Any) -> subprocess.Popen[bytes]:
    """The server (or a wrapper) with pipes for stdin, stdout and stderr unless given."""
    streams = {name: pipes.get(name, subprocess.PIPE) for name in ("stdin", "stdout", "stderr")}
    return subprocess.Popen(command, env=_env(tmp_path), cwd=tmp_path, **streams)


STRAY = """
import os, subprocess, sys
from docmentor.cli import main
from docmentor.engine import Docmentor

search = Docmentor.search

def noisy(self, *args, **kwargs):
    print("stray print", flush=True)
    os.write(1, b"stray write\\n")
    subprocess.run([sys.executable, "-c", "print('child print')"], check=True)
    sys.stderr.write(f"stdin reads {os.read(0, 10)!r}\\n")
    print("unflushed print")
    return search(self, *args, **kwargs)

Docmentor.search = noisy
sys.exit(main())
"""


def test_stray_output_while_serving_goes_to_stderr_and_every_line_end_is_read(tmp_path: Path) -> None:
    """A handler's print, a write to fd 1 and a child's output reach stderr, not the wire, and
    fd 0 reads nothing meanwhile; lines end at \\n, \\r\\n, \\r or the end of input, a blank one
    is skipped, one far above a pipe's buffer is read whole."""
    engine = _engine(tmp_path)
    long_query = "frobnicator " + "widget " * 40_000  # ~280 KB: far above asyncio's 64 KiB line limit
    lines = [
        json.dumps(INITIALIZE) + "\r\n",
        json.dumps(INITIALIZED) + "\r",
        json.dumps(tool_call(2, "search_docs", {"query": long_query})) + "\n",
        "   \n",
        json.dumps(tool_call(3, "search_docs", {"query": "frobnicator"})),  # no line end
    ]
    done = subprocess.run(
        [sys.executable, "-c", STRAY, "--db", str(engine.root), "serve"],
        input="".join(lines).encode(),
        capture_output=True,
        env={k: v for k, v in _env(tmp_path).items() if k != "PYTHONUNBUFFERED"},  # print() buffers
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]  # JSON only
    assert [r.get("id") for r in replies] == [1, 2, 3] and all("result" in r for r in replies), replies
    assert replies[2]["result"]["structuredContent"]["results"][0]["path"] == "guide.md"
    stderr = done.stderr.decode()
    for stray in ("stray print", "stray write", "child print", "stdin reads b''", "unflushed print"):
        assert stderr.count(stray) == 2, stderr


def test_a_server_reading_a_file_answers_every_request_before_it_ends(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    requests = tmp_path / "requests.jsonl"
    messages = [
        INITIALIZE,
        INITIALIZED,
        tool_call(2, "search_docs", {"query": "frobnicator"}),
    ]
    requests.write_text("".join(json.dumps(m) + "\n" for m in messages))
    with requests.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "docmentor", "--db", str(engine.root), "serve"],
            stdin=stdin,
            capture_output=True,
            env=_env(tmp_path),
            cwd=tmp_path,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr.decode()
    replies = {r["id"]: r for r in map(json.loads, done.stdout.decode().splitlines()) if "id" in r}
    assert set(replies) == {1, 2}
    assert replies[2]["result"]["structuredContent"]["results"][0]["path"] == "guide.md"


def test_a_message_larger_than_a_pipe_buffer_crosses_both_ways(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    long_query = "frobnicator " + "widget " * 40_000  # ~280 KB request
    messages = [
        INITIALIZE,
        INITIALIZED,
        tool_call(2, "search_docs", {"query": long_query}),
        tool_call(3, "get_doc", {"url_or_path": "guide:guide.md"}),
    ]
    replies = _converse(
        [sys.executable, "-m", "docmentor", "--db", str(engine.root), "serve"], messages, tmp_path
    )
    assert set(replies) == {1, 2, 3}
    assert "result" in replies[2]  # answered (a result or a tool error), the session went on
    assert "frobnicator" in json.dumps(replies[3]["result"]), replies[3]


def test_a_client_that_stops_reading_ends_the_server_quietly(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    proc = _spawn(_serve_command(engine), tmp_path)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        proc.stdout.close()  # the client goes away without closing stdin
        call = tool_call(2, "list_sources")
        try:
            for _ in range(20):
                proc.stdin.write((json.dumps(call) + "\n").encode())
                proc.stdin.flush()
                if proc.poll() is not None:
                    break
                time.sleep(0.2)
        except BrokenPipeError:
            pass  # the server is gone
        assert proc.wait(timeout=30) == 0
        assert proc.stderr.read().decode() == ""  # no "error:" line, no traceback
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stderr):
            with contextlib.suppress(BrokenPipeError):
                stream.close()


def _serve_command(engine: Docmentor) -> list[str]:
    return [sys.executable, "-m", "docmentor", "--db", str(engine.root), "serve"]


def test_replies_to_requests_sent_before_the_input_ends_arrive_whole(tmp_path: Path) -> None:
    """`printf ... | docmentor serve`: the client writes, closes stdin, and only then reads.
    Every request read is answered, and a reply larger than the pipe leaves in full."""
    engine = _engine(tmp_path, big=True)
    messages = [
        INITIALIZE,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        tool_call(3, "get_doc", {"url_or_path": "guide:big.md"}),
        tool_call(4, "list_sources"),
    ]
    proc = _spawn(_serve_command(engine), tmp_path)
    assert proc.stdin is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
    proc.stdin.close()  # end of input before reading anything
    proc.stdin = None
    time.sleep(1.0)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    replies = {r["id"]: r for r in map(json.loads, out.decode().splitlines()) if "id" in r}
    assert set(replies) == {1, 2, 3, 4}
    assert "result" in replies[2] and "result" in replies[4]
    text = json.dumps(replies[3]["result"])  # parsed whole above: the line was not cut short
    assert len(text) > 100_000 and "Paragraph 999 about widgets" in text


def test_one_socket_for_both_ends_is_served_by_the_sdk_transport(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    ours, theirs = socket.socketpair()
    proc = _spawn(_serve_command(engine), tmp_path, stdin=theirs.fileno(), stdout=theirs.fileno())
    theirs.close()
    wire = ours.makefile("rwb")
    ours.settimeout(30)
    try:
        got = []
        for message in (
            INITIALIZE,
            INITIALIZED,
            *[{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in (2, 3)],
        ):
            wire.write((json.dumps(message) + "\n").encode())
            wire.flush()
            if "id" in message:
                got.append(json.loads(wire.readline())["id"])
        assert got == [1, 2, 3]
        ours.shutdown(socket.SHUT_WR)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        wire.close()
        ours.close()
        assert proc.stderr is not None
        proc.stderr.close()


def test_a_killed_server_leaves_the_pipes_it_shared_blocking(tmp_path: Path) -> None:
    """A wrapper shell that keeps the same stdin and stdout (as clients often start servers)
    finds them as they were after the server is terminated."""
    engine = _engine(tmp_path)
    check = "import os, sys; print('blocking', os.get_blocking(0), os.get_blocking(1), file=sys.stderr)"
    script = " ".join(_serve_command(engine)) + f'; {sys.executable} -c "{check}"'
    proc = _spawn(["sh", "-c", script], tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        os.kill(int(children[0]), signal.SIGTERM)
        proc.stdin.close()
        proc.stdin = None
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "blocking True True" in err.decode()


def test_end_of_input_waits_only_for_requests_the_sdk_answers(tmp_path: Path) -> None:
    """Reused ids are each answered; ids the SDK rejects (a float, null) are not waited for
    (EOF_GRACE is 30 s); a request cancelled by its string id is not either."""
    engine = _engine(tmp_path)
    lines = [
        json.dumps(INITIALIZE),
        json.dumps(INITIALIZED),
        *[json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})] * 3,  # a hand-written file may reuse ids
        '{"jsonrpc": "2.0", "id": 3.5, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": null, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": 5}',
    ]
    started = time.monotonic()
    done = subprocess.run(
        _serve_command(engine),
        input="\n".join(lines).encode(),
        capture_output=True,
        env=_env(tmp_path),
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    ids = [json.loads(line).get("id") for line in done.stdout.decode().splitlines()]
    assert ids.count(2) == 3 and 1 in ids
    assert time.monotonic() - started < 20  # not the 30 s grace
