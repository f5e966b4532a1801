"""A small, real HTTP/1.1 server for tests (stdlib ``http.server`` in a thread).

It listens on 127.0.0.1 on an ephemeral port, so the real client code (httpx,
sockets, keep-alive) runs. Routes are scripted per path::

    server.add("/docs/a.md", "# A", content_type="text/markdown")
    server.add("/flaky", Reply(status=503), Reply(body="ok"))  # 503 once, then 200s
    server.add("/slow", delay=2.0)                               # before the status line
    server.add("/drip", body=b"x" * 100, chunk_size=10, chunk_delay=0.1)
    server.add("/big", body=b"x" * 10**6, chunked=True)          # no Content-Length
    server.add("/etag", body="v1", etag='"v1"')                  # 304 on If-None-Match
    server.redirect("/old", "/new")                               # 302 by default
    server.add("/echo", lambda req: Reply(body=req.headers.get("user-agent", "")))

and inspected afterwards: ``hits(path)``, ``requests_for(path)`` (headers with
lower-case names), ``max_in_flight``, ``connections`` (TCP connections accepted)
and ``errors`` (exceptions raised while serving; should stay empty).

Use the ``http_server`` fixture, or ``http_server_factory`` for more servers
(e.g. ``http_server_factory(url_host="localhost")`` is another origin). Test
modules import them: ``from httpserver import http_server  # noqa: F401``.
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = ["HttpServer", "Reply", "Request", "http_server", "http_server_factory"]

logger = logging.getLogger(__name__)


@dataclass
class Reply:
    """One scripted response."""

    status: int = 200
    body: bytes | str = b""
    content_type: str | None = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line is sent
    chunk_size: int = 64 * 1024  # the body is written in pieces of this size ...
    chunk_delay: float = 0.0  # ... with this pause between them
    chunked: bool = False  # Transfer-Encoding: chunked instead of Content-Length
    etag: str | None = None  # sent as ETag; a matching If-None-Match gets a 304
    last_modified: str | None = None  # sent as Last-Modified; If-Modified-Since ≥ it gets a 304

    @property
    def data(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


@dataclass(frozen=True)
class Request:
    """A request as the server saw it."""

    method: str
    path: str  # with the query string
    headers: dict[str, str]  # lower-case names
    body: bytes
    connection: int  # which TCP connection (1, 2, ...) carried it


Handler = Callable[[Request], Reply]


class _Route:
    def __init__(self, replies: list[Reply | Handler]) -> None:
        self._replies = replies
        self._next = 0
        self._lock = threading.Lock()

    def reply(self, request: Request) -> Reply:
        with self._lock:
            item = self._replies[min(self._next, len(self._replies) - 1)]
            self._next += 1
        return item if isinstance(item, Reply) else item(request)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, owner: HttpServer, host: str) -> None:
        self.owner = owner
        super().__init__((host, 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        self.owner._record_error()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # an idle keep-alive connection is closed after this long
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection_id = self.server.owner._opened(self.connection)

    def finish(self) -> None:
        self.server.owner._closed(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            pass  # the client went away (e.g. it gave up on a slow reply)

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s " + format, self.server.owner.base_url, *args)

    def do_GET(self) -> None:
        self._serve()

    do_HEAD = do_GET
    do_POST = do_GET
    do_PUT = do_GET
    do_DELETE = do_GET

    def _serve(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        request = Request(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self.rfile.read(length) if length else b"",
            connection=self.connection_id,
        )
        owner._begin(request)
        try:
            reply = owner._reply_for(request)
            if reply.delay and owner._stopping.wait(reply.delay):
                self.close_connection = True
                return
            self._write(reply, request)
        finally:
            owner._end()

    def _write(self, reply: Reply, request: Request) -> None:
        data = reply.data
        if reply.status == 200 and _not_modified(reply, request):
            self.send_response(304)
            for name, value in (("ETag", reply.etag), ("Last-Modified", reply.last_modified)):
                if value is not None:
                    self.send_header(name, value)
            self.end_headers()
            return
        self.send_response(reply.status)
        if reply.content_type is not None and (data or reply.status == 200):
            self.send_header("Content-Type", reply.content_type)
        for name, value in (("ETag", reply.etag), ("Last-Modified", reply.last_modified)):
            if value is not None:
                self.send_header(name, value)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command == "HEAD":
            return
        stopping = self.server.owner._stopping
        size = max(reply.chunk_size, 1)
        for start in range(0, len(data), size):
            if start and reply.chunk_delay and stopping.wait(reply.chunk_delay):
                self.close_connection = True
                return
            piece = data[start : start + size]
            if reply.chunked:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            else:
                self.wfile.write(piece)
            self.wfile.flush()
        if reply.chunked:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()


def _not_modified(reply: Reply, request: Request) -> bool:
    inm = request.headers.get("if-none-match")
    if reply.etag is not None and inm is not None:
        tags = {t.strip() for t in inm.split(",")}
        return "*" in tags or reply.etag in tags or reply.etag.removeprefix("W/") in tags
    ims = request.headers.get("if-modified-since")
    if reply.last_modified is not None and ims is not None:
        try:
            return parsedate_to_datetime(ims) >= parsedate_to_datetime(reply.last_modified)
        except (TypeError, ValueError):
            return False
    return False


class HttpServer:
    """A scriptable HTTP/1.1 test server; start with ``start()`` or use as a context manager."""

    def __init__(self, host: str = "127.0.0.1", *, url_host: str | None = None) -> None:
        self._routes: dict[str, _Route] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._sockets: set[socket.socket] = set()
        self._server = _Server(self, host)
        self.host = url_host or host
        self.port: int = self._server.server_address[1]
        self.base_url = f"http://{self.host}:{self.port}"
        self.requests: list[Request] = []
        self.errors: list[BaseException] = []
        self.connections = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # -- scripting -------------------------------------------------------------------

    def url(self, path: str = "/") -> str:
        """The absolute URL of ``path`` on this server."""
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def add(self, path: str, *replies: Reply | Handler | bytes | str, **reply: Any) -> None:
        """Script ``path``: replies are served in turn, the last one repeats.

        ``add(path, "body", status=..., ...)`` is short for ``add(path, Reply(body="body", ...))``.
        A callable receives the ``Request`` and returns a ``Reply``.
        """
        items: list[Reply | Handler] = [
            Reply(body=item, **reply) if isinstance(item, bytes | str) else item for item in replies
        ]
        self._routes[path] = _Route(items or [Reply(**reply)])

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        """Answer ``path`` with a redirect to ``location`` (relative or absolute)."""
        self.add(path, Reply(status=status, headers={"Location": location}, content_type=None))

    # -- inspection ------------------------------------------------------------------

    def requests_for(self, path: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path == path or r.path.split("?")[0] == path]

    def hits(self, path: str) -> int:
        return len(self.requests_for(path))

    def reset_stats(self) -> None:
        with self._lock:
            self.requests.clear()
            self.connections = self.max_in_flight = 0

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> HttpServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:  # wake handler threads waiting on idle keep-alive connections
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> HttpServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- called from handler threads -------------------------------------------------

    def _reply_for(self, request: Request) -> Reply:
        route = self._routes.get(request.path) or self._routes.get(request.path.split("?")[0])
        if route is None:
            return Reply(status=404, body=f"no route for {request.path}")
        return route.reply(request)

    def _opened(self, sock: socket.socket) -> int:
        with self._lock:
            self._sockets.add(sock)
            self.connections += 1
            return self.connections

    def _closed(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.discard(sock)

    def _begin(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _record_error(self) -> None:
        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, ConnectionError | TimeoutError):
            logger.error("test server error", exc_info=error)
            with self._lock:
                self.errors.append(error)


@pytest.fixture
def http_server() -> Iterator[HttpServer]:
    """A started ``HttpServer`` on 127.0.0.1, stopped after the test."""
    with HttpServer() as server:
        yield server


@pytest.fixture
def http_server_factory() -> Iterator[Callable[..., HttpServer]]:
    """Make more started servers (``factory(url_host="localhost")``); all stopped after the test."""
    servers: list[HttpServer] = []

    def make(host: str = "127.0.0.1", *, url_host: str | None = None) -> HttpServer:
        server = HttpServer(host, url_host=url_host).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
