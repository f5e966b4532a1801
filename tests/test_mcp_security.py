"""What the MCP server refuses: score_document outside the indexed documents and the allowed
folders (one answer, whether a file exists or not); HTTP off loopback without a token; wrong
or missing tokens; Host and Origin headers of other names (DNS rebinding), on every bind."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from docmentor.engine import Docmentor
from docmentor.server import build_server
from mcptool import structured

GUIDE = "# Guide\n\nTODO: explain the frobnicator.\n\n```python\nprint('hi')\n```\n"
TOKEN = "s3cret-token-for-the-tests-0123456789"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["DOCMENTOR_HOME"] = str(tmp_path / "home")
    env.pop("DOCMENTOR_DB", None)
    env.pop("DOCMENTOR_SOURCES", None)
    return env


def _text(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """An indexed folder (with a file the index skips), a folder the user allows, a secret
    folder, and a working folder with a document in it."""
    paths = {name: tmp_path / name for name in ("docs", "allowed", "secret", "work")}
    for folder in paths.values():
        folder.mkdir()
    (paths["docs"] / "guide.md").write_text(GUIDE, encoding="utf-8")
    (paths["docs"] / ".hidden.md").write_text("# Hidden\n\nTODO HIDDEN-WORDS\n", encoding="utf-8")
    (paths["allowed"] / "draft.md").write_text(GUIDE.replace("Guide", "Draft"), encoding="utf-8")
    (paths["secret"] / "keys.md").write_text("# Keys\n\nAWS_SECRET=abc\n", encoding="utf-8")
    (paths["work"] / "notes.md").write_text("# Notes\n\nWORK-NOTES TODO\n", encoding="utf-8")
    os.symlink(paths["secret"] / "keys.md", paths["allowed"] / "link.md")  # leads outside
    return paths


@pytest.fixture
def engine(tmp_path: Path, layout: dict[str, Path]) -> Iterator[Docmentor]:
    eng = Docmentor(tmp_path / "index")
    eng.add(str(layout["docs"]), name="d")
    yield eng
    eng.close()


def _score(engine: Docmentor, refs: list[str], allow: list[Path]) -> list[CallToolResult]:
    async def go() -> list[CallToolResult]:
        async with Client(build_server(engine, allow_paths=allow)) as client:
            return [await client.call_tool("score_document", {"path_or_url": r}) for r in refs]

    return anyio.run(go)


def test_score_document_reads_indexed_documents_and_allowed_folders_only(
    engine: Docmentor, layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(layout["work"])  # a client may start the server anywhere: the cwd is not allowed
    assert engine.sources()[0]["documents"] == 1  # .hidden.md is in the folder, not in the index
    refused_refs = [
        str(layout["secret"] / "keys.md"),  # exists, outside
        str(layout["secret"] / "nothing-here.md"),  # does not exist, outside
        str(layout["work"] / "notes.md"),  # the working folder
        "notes.md",  # relative to it
        str(layout["docs"] / ".hidden.md"),  # in the indexed folder, but not indexed
        str(layout["allowed"] / "link.md"),  # in the allowed folder, but a link out of it
        "/etc/passwd",
        "/nonexistent/x.md",
        "file://" + str(layout["secret"] / "keys.md"),
    ]
    allowed_refs = ["d:guide.md", str(layout["docs"] / "guide.md"), str(layout["allowed"] / "draft.md")]
    results = _score(engine, refused_refs + allowed_refs, [layout["allowed"]])
    refused, allowed = results[: len(refused_refs)], results[len(refused_refs) :]
    answers = set()
    for ref, result in zip(refused_refs, refused, strict=True):
        assert result.is_error, ref
        text = _text(result)
        for leak in ("AWS_SECRET", "HIDDEN-WORDS", "WORK-NOTES", "root:"):
            assert leak not in text
        answers.add(text.replace(repr(ref), "REF"))
    # one answer for every refused reference, whether a file is there or not
    assert answers == {
        "REF is not an indexed document, nor a file in a folder this server may read. Try: score an "
        "indexed document: SOURCE:PATH or a URL as search_docs and list_sources show them (the user can "
        "allow a folder with `docmentor serve --allow-path DIR`)."
    }, answers
    for ref, result in zip(allowed_refs, allowed, strict=True):
        data = structured(result)
        assert data["clarity_score"]["overall_score"] <= 10, ref
    # without --allow-path, the allowed folder's files are refused like the rest
    (outside,) = _score(engine, [str(layout["allowed"] / "draft.md")], [])
    assert _text(outside).startswith(f"{str(layout['allowed'] / 'draft.md')!r} is not an indexed document")


def test_an_indexed_reference_is_read_from_a_working_folder_inside_an_allowed_one(
    engine: Docmentor, layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --allow-path .` from the project: SOURCE:PATH is no file there, and is read from
    the index; what is neither gets one answer naming both."""
    monkeypatch.chdir(layout["allowed"])
    indexed, neither, blank = _score(engine, ["d:guide.md", "d:nowhere.md", " "], [layout["allowed"]])
    assert structured(indexed)["clarity_score"]["overall_score"] <= 10
    assert _text(neither).startswith("no file d:nowhere.md in the allowed folders, and no indexed document")
    assert blank.is_error and _text(blank).startswith("empty document reference")


def test_serve_allow_path_over_stdio(engine: Docmentor, layout: dict[str, Path], tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docmentor", "--db", str(engine.root), "serve", "--allow-path", str(layout["allowed"])],
        env=_env(tmp_path),
        cwd=layout["work"],
    )

    async def go() -> list[CallToolResult]:
        async with Client(params) as client:
            return [
                await client.call_tool(
                    "score_document", {"path_or_url": str(layout["allowed"] / "draft.md")}
                ),
                await client.call_tool("score_document", {"path_or_url": str(layout["work"] / "notes.md")}),
            ]

    draft, notes = anyio.run(go)
    assert structured(draft)["path"] == str(layout["allowed"] / "draft.md")
    assert notes.is_error and "is not an indexed document" in _text(notes)


# ------------------------------------------------------------------------------------ HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the server did not start")


@pytest.fixture
def serve(tmp_path: Path, engine: Docmentor) -> Iterator[Any]:
    started: list[Served] = []

    def start(*options: str, port: int | None = None) -> Served:
        port = port or _free_port()
        log = tmp_path / f"serve-{port}.log"
        with log.open("w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "docmentor", "--db", str(engine.root), "serve", "--transport", "http",
                 "--port", str(port), *options],
                stdout=out, stderr=subprocess.STDOUT, env=_env(tmp_path), cwd=tmp_path,
            )  # fmt: skip
        served = Served(proc, port, log)
        started.append(served)
        return served

    yield start
    for served in started:
        if served.proc.poll() is None:
            served.proc.terminate()
            try:
                served.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                served.proc.kill()
                served.proc.wait()


def _own_network_address() -> str:
    """An IPv4 address of this machine that is not loopback (the one its default route uses;
    no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))
        return str(probe.getsockname()[0])


def test_the_addresses_a_wildcard_bind_learns() -> None:
    """Only this machine's non-loopback addresses, in their canonical spelling, with the port:
    a stranger cannot multiply them (loopback aliases, other spellings, mapped forms)."""
    from docmentor.mcp_http import HostCheck, is_local_address

    security = type("S", (), {"allowed_hosts": ["127.0.0.1:8765"]})()
    check = HostCheck(None, security, port=8765, wildcard=True)
    own = _own_network_address()
    assert check._answers(f"{own}:8765") and f"{own}:8765" in security.allowed_hosts
    for host in ("127.0.0.2:8765", "[::1]:8765", "[0::1]:8765", f"{own}:8766", "192.0.2.77:8765", "x:8765"):
        assert not check._answers(host), host
    assert not is_local_address("::ffff:0.0.0.0") and not is_local_address("::ffff:224.0.0.1")
    assert not is_local_address("0.0.0.0") and is_local_address("127.0.0.1")


def _post(port: int, *, host: str | None = None, token: str | None = None, origin: str | None = None) -> Any:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if host is not None:
        headers["Host"] = host
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if origin is not None:
        headers["Origin"] = origin
    return httpx.post(f"http://127.0.0.1:{port}/mcp", json=INIT, headers=headers, timeout=10)


def test_a_non_loopback_bind_needs_a_token_or_insecure(tmp_path: Path, engine: Docmentor) -> None:
    for host in ("0.0.0.0", "::"):
        proc = subprocess.run(
            [sys.executable, "-m", "docmentor", "--db", str(engine.root), "serve", "--transport", "http",
             "--host", host, "--port", str(_free_port())],
            capture_output=True, text=True, env=_env(tmp_path), cwd=tmp_path, timeout=60,
        )  # fmt: skip
        assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
        assert proc.stderr.startswith(f"error: refusing to serve on {host} without authentication"), (
            proc.stderr
        )
        assert "--token-file FILE" in proc.stderr and "--insecure" in proc.stderr
    short = tmp_path / "short-token"
    short.write_text("abc\n")
    proc = subprocess.run(
        [sys.executable, "-m", "docmentor", "--db", str(engine.root), "serve", "--transport", "http",
         "--host", "0.0.0.0", "--token-file", str(short)],
        capture_output=True, text=True, env=_env(tmp_path), cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and "must be one word of at least 16 characters" in proc.stderr


def test_a_token_is_required_on_every_request(tmp_path: Path, serve: Any) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    served = serve("--host", "0.0.0.0", "--token-file", str(token_file))
    served.wait_ready()
    for token in (None, "wrong-token-wrong-token-wrong", TOKEN + "x", TOKEN[:-1]):
        refused = _post(served.port, token=token)
        assert refused.status_code == 401, (token, refused.text)
        assert refused.headers["www-authenticate"].startswith("Bearer"), refused.headers
        assert "serverInfo" not in refused.text
    other_path = httpx.get(f"http://127.0.0.1:{served.port}/anything", timeout=10)
    assert other_path.status_code == 401  # every request, not only /mcp
    assert _post(served.port, token=TOKEN).status_code == 200
    # a name the server was not told about: refused even with the token (DNS rebinding)
    assert _post(served.port, token=TOKEN, host=f"evil.example:{served.port}").status_code == 421
    assert _post(served.port, token=TOKEN, origin="http://evil.example").status_code == 403

    async def go() -> Any:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
        async with (
            client,
            Client(streamable_http_client(f"http://127.0.0.1:{served.port}/mcp", http_client=client)) as mcp,
        ):
            return await mcp.call_tool("search_docs", {"query": "frobnicator"})

    assert structured(anyio.run(go))["results"][0]["path"] == "guide.md"
    assert "bearer token required" in served.log.read_text()


def test_host_and_origin_are_checked_on_every_bind(tmp_path: Path, serve: Any) -> None:
    insecure = serve("--host", "0.0.0.0", "--insecure", "--allow-host", "docs.internal")
    loopback_two = serve("--host", "127.0.0.2")
    insecure.wait_ready()
    deadline = time.monotonic() + 30
    while True:  # 127.0.0.2: connect there
        try:
            with socket.create_connection(("127.0.0.2", loopback_two.port), timeout=0.2):
                break
        except OSError:
            assert time.monotonic() < deadline and loopback_two.proc.poll() is None, (
                loopback_two.log.read_text()
            )
            time.sleep(0.05)
    port = insecure.port
    assert _post(port).status_code == 200  # 127.0.0.1:PORT, a loopback name of a wildcard bind
    assert _post(port, host=f"docs.internal:{port}").status_code == 200  # --allow-host
    assert _post(port, host="docs.internal").status_code == 200  # bare: a reverse proxy on 443 sends it
    assert _post(port, host="docs.internal:9999").status_code == 421  # but no other port
    assert _post(port, host="127.0.0.1").status_code == 421  # only names given with --allow-host go bare
    assert _post(port, host=f"docs.internal:{port}", origin=f"http://docs.internal:{port}").status_code == 200
    refused = _post(port, host=f"evil.example:{port}")
    assert refused.status_code == 421 and "--allow-host evil.example" in refused.text, refused.text
    assert _post(port, origin="http://evil.example").status_code == 403
    assert "no authentication: --insecure" in insecure.log.read_text()
    # a wildcard bind answers to this machine's own network addresses (clients on the network
    # use them), not to another machine's, nor to loopback aliases beyond the names listed
    own = _own_network_address()
    assert _post(port, host=f"127.0.0.3:{port}").status_code == 421
    assert _post(port, host=f"198.51.100.7:{port}").status_code == 421  # TEST-NET-2: no one's here
    assert _post(port, host=f"0.0.0.0:{port}").status_code == 421  # no address of anyone's
    for i in range(70):  # strangers' Hosts are not remembered: they cannot crowd out this machine's
        assert _post(port, host=f"127.0.{i // 200}.{i % 200 + 2}:{port}").status_code == 421
    assert _post(port, host=f"{own}:{port}").status_code == 200, own
    assert _post(port, host=f"{own}:{port + 1}").status_code == 421
    assert _post(port, host=f"{own}:{port}", origin="http://evil.example").status_code == 403

    def post_two(host: str) -> int:
        response = httpx.post(
            f"http://127.0.0.2:{loopback_two.port}/mcp",
            json=INIT,
            headers={"Accept": "application/json, text/event-stream", "Host": host},
            timeout=10,
        )
        return response.status_code

    assert post_two(f"127.0.0.2:{loopback_two.port}") == 200  # no token needed on loopback
    assert post_two(f"rebound.example:{loopback_two.port}") == 421  # but the Host is checked
    assert post_two(f"127.0.0.3:{loopback_two.port}") == 421  # only a wildcard bind answers its addresses
