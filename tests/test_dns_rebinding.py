"""DNS rebinding cannot pass the same-host rule (issue 19, section 6, item 2).

The same-host rule compares names; a name that answers 127.0.0.1 for the llms.txt and
127.0.0.2 afterwards used to move the load onto another machine ("internal" documents
indexed). Now a name is resolved once per load and every connection goes to the checked
address of that first answer. The resolver is the outside world here: ``socket.getaddrinfo``
is replaced by one that answers differently on successive calls; both sites are real HTTP
servers, on 127.0.0.1 and 127.0.0.2 (Linux routes all of 127/8 to the loopback), on the
same port.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from clitool import Cli
from docmentor.sources.client import H11Client, TransportFailure, _usable_addresses
from httpserver import HttpServer

NAME = "rebind.test"
MD = "text/markdown; charset=utf-8"


class _Internal(BaseHTTPRequestHandler):
    """The machine the rebinding points at: every path is an "internal" document."""

    def do_GET(self) -> None:
        body = b"# Internal\n\ninternalsecret payroll\n"
        self.send_response(200)
        self.send_header("Content-Type", MD)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Counting(ThreadingHTTPServer):
    daemon_threads = True
    connections = 0

    def get_request(self) -> tuple[socket.socket, Any]:
        conn = super().get_request()
        self.connections += 1
        return conn


@pytest.fixture
def sites() -> Iterator[tuple[HttpServer, _Counting]]:
    public = HttpServer("127.0.0.1", url_host=NAME)
    internal = _Counting(("127.0.0.2", public.port), _Internal)
    thread = threading.Thread(target=internal.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    public.start()
    try:
        yield public, internal
    finally:
        public.stop()
        internal.shutdown()
        internal.server_close()


@pytest.fixture
def rebinding(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``rebind.test`` answers 127.0.0.1 once, then 127.0.0.2; other names resolve as usual."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def fake(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != NAME:
            return real(host, port, *args, **kwargs)
        asked.append(host)
        address = "127.0.0.1" if len(asked) == 1 else "127.0.0.2"
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    return asked


def test_a_rebinding_name_never_reaches_the_second_address(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sites: tuple[HttpServer, _Counting],
    rebinding: list[str],
) -> None:
    public, internal = sites
    names = [f"page{k}" for k in range(6)]
    index = "# Docs\n\n## Pages\n\n" + "".join(f"- [{n}]({n}.md)\n" for n in names)
    public.add("/docs/llms.txt", index, content_type=MD)
    for n in names:
        # each answer closes its connection, so every document needs a new one
        public.add(
            f"/docs/{n}.md", f"# {n}\n\npublicword {n}\n", content_type=MD, headers={"Connection": "close"}
        )
    cli = Cli(tmp_path / "index", capsys)
    out = cli.ok("add", public.url("/docs/llms.txt"), "--name", "site")
    assert "7 documents" in out  # the llms.txt and its six pages
    assert internal.connections == 0  # the second answer is never connected to
    assert rebinding == [NAME]  # one answer per load, pinned
    assert public.connections >= 6  # new connections, all to the first answer
    assert cli.json("search", "internalsecret")["results"] == []
    assert len(cli.json("search", "publicword", "--limit", "20")["results"]) == 6


def test_the_next_load_asks_again(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sites: tuple[HttpServer, _Counting],
    rebinding: list[str],
) -> None:
    """Pinned per load, not for ever: a refresh resolves the name anew (and is checked anew)."""
    public, internal = sites
    public.add("/docs/llms.txt", "# Docs\n\n## Pages\n\n- [a](a.md)\n", content_type=MD)
    public.add("/docs/a.md", "# A\n\npublicword\n", content_type=MD)
    cli = Cli(tmp_path / "index", capsys)
    cli.ok("add", public.url("/docs/llms.txt"), "--name", "site")
    assert rebinding == [NAME] and internal.connections == 0
    cli("refresh", "site")
    assert rebinding == [NAME, NAME]


def test_addresses_that_are_never_connected_to() -> None:
    assert _usable_addresses(["0.0.0.0", "::", "224.0.0.1", "127.0.0.1"]) == ["127.0.0.1"]
    # a public answer with an internal one in it: the internal one is dropped
    assert _usable_addresses(["93.184.216.34", "127.0.0.1", "10.0.0.5"]) == ["93.184.216.34"]
    assert _usable_addresses(["::ffff:127.0.0.1", "8.8.8.8"]) == ["8.8.8.8"]
    assert _usable_addresses(["10.0.0.5", "127.0.0.2"]) == ["10.0.0.5", "127.0.0.2"]


def test_a_name_answering_only_unusable_addresses_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("0.0.0.0", int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)

    async def run() -> str:
        client = H11Client(headers={}, max_connections=1)
        try:
            await client.get("http://nowhere.test:9/x", {}, 1000)
        except TransportFailure as exc:
            return str(exc)
        finally:
            await client.aclose()
        return ""

    message = asyncio.run(run())
    assert "nowhere.test resolves to no address docmentor connects to (0.0.0.0)" in message


def test_the_next_address_of_one_answer_is_tried(monkeypatch: pytest.MonkeyPatch, sites: Any) -> None:
    """Several addresses in one answer: a refused one is passed over for the next (nothing
    listens on 127.0.0.3), and the answer is still asked for once."""
    public, _ = sites
    public.add("/x", "hello", content_type="text/plain")
    asked: list[str] = []

    def fake(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(host)
        return [
            (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (a, int(port)))
            for a in ("127.0.0.3", "127.0.0.1")
        ]

    monkeypatch.setattr(socket, "getaddrinfo", fake)

    async def run() -> list[bytes]:
        client = H11Client(headers={}, max_connections=1)
        try:
            url = f"http://{NAME}:{public.port}/x"
            return [(await client.get(url, {"Connection": "close"}, 1000)).content for _ in range(2)]
        finally:
            await client.aclose()

    assert asyncio.run(run()) == [b"hello", b"hello"]
    assert asked == [NAME]
