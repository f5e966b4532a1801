"""The llms.txt HTTP client (docmentor.sources.client) against real servers on 127.0.0.1:
content codings, the size cap on decoded bytes, keep-alive reuse, a keep-alive connection
the server dropped, URL encoding, TLS, and the httpx fallback for proxies."""

from __future__ import annotations

import asyncio
import datetime
import gzip
import socket
import ssl
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import httpserver
from docmentor.sources import client
from docmentor.sources.client import BodyTooLarge, H11Client, HttpxClient, Response, make_client
from docmentor.sources.llmstxt import FetchSettings, load_llms_source
from httpserver import HttpServer, Reply

http_server = httpserver.http_server

HEADERS = {"User-Agent": "docmentor", "Accept": "text/markdown"}


def fetch_all(urls: list[str], cap: int = 1_000_000, concurrency: int = 4) -> list[Response | Exception]:
    async def run() -> list[Response | Exception]:
        c = H11Client(headers=HEADERS, max_connections=concurrency)
        sem = asyncio.Semaphore(concurrency)

        async def one(url: str) -> Response | Exception:
            async with sem:
                try:
                    return await c.get(url, {}, cap)
                except Exception as exc:
                    return exc

        try:
            return list(await asyncio.gather(*(one(u) for u in urls)))
        finally:
            await c.aclose()

    return asyncio.run(run())


def ok(result: Response | Exception) -> Response:
    assert isinstance(result, Response), result
    return result


def test_plain_gzip_deflate_and_chunked_bodies(http_server: HttpServer) -> None:
    text = ("# Title\n\n" + "words and more words\n" * 500).encode()
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    http_server.add("/plain.md", text)
    http_server.add("/gzip.md", gzip.compress(text), headers={"Content-Encoding": "gzip"})
    http_server.add("/zlib.md", zlib.compress(text), headers={"Content-Encoding": "deflate"})
    http_server.add(
        "/raw.md",
        raw_deflate.compress(text) + raw_deflate.flush(),
        headers={"Content-Encoding": "deflate"},
    )
    http_server.add(
        "/chunked-gzip.md",
        gzip.compress(text),
        headers={"Content-Encoding": "gzip"},
        chunked=True,
        chunk_size=100,
    )
    http_server.add("/unknown.md", b"as served", headers={"Content-Encoding": "br-not-really"})
    paths = ["/plain.md", "/gzip.md", "/zlib.md", "/raw.md", "/chunked-gzip.md"]
    results = fetch_all([http_server.url(p) for p in [*paths, "/unknown.md"]])
    for path, result in zip(paths, results, strict=False):
        assert ok(result).content == text, path
        assert ok(result).status == 200
    assert ok(results[-1]).content == b"as served"  # an unknown coding is kept as it is, as httpx does
    accept = http_server.requests_for("/gzip.md")[0].headers
    assert accept["accept-encoding"] == "gzip, deflate"
    assert accept["user-agent"] == "docmentor" and accept["accept"] == "text/markdown"
    assert http_server.errors == []


def test_the_cap_counts_decoded_bytes(http_server: HttpServer) -> None:
    bomb = gzip.compress(b"a" * 2_000_000)  # ~2 KB on the wire
    http_server.add("/bomb.md", bomb, headers={"Content-Encoding": "gzip"})
    http_server.add("/declared.md", b"x" * 9000)
    http_server.add("/exact.md", b"y" * 5000)
    bomb_r, declared, exact = fetch_all(
        [http_server.url("/bomb.md"), http_server.url("/declared.md"), http_server.url("/exact.md")],
        cap=5000,
    )
    assert len(bomb) < 5000
    assert isinstance(bomb_r, BodyTooLarge) and bomb_r.declared is None
    assert isinstance(declared, BodyTooLarge) and declared.declared == 9000
    assert ok(exact).content == b"y" * 5000


def test_keep_alive_connections_are_reused(http_server: HttpServer) -> None:
    for i in range(20):
        http_server.add(f"/d{i}.md", f"# {i}")
    http_server.add("/missing-small.md", status=404, body="nope")
    urls = [http_server.url(f"/d{i}.md") for i in range(20)]
    results = fetch_all([*urls, http_server.url("/missing-small.md"), *urls], concurrency=2)
    assert [ok(r).status for r in results] == [200] * 20 + [404] + [200] * 20
    assert ok(results[3]).content == b"# 3"
    assert ok(results[20]).content == b""  # only 2xx bodies are read
    assert http_server.connections <= 2
    assert ok(results[0]).headers["content-type"] == "text/plain; charset=utf-8"


def test_url_paths_and_queries_are_percent_encoded(http_server: HttpServer) -> None:
    http_server.add("/docs/caf%C3%A9%20menu.md", "# Café")
    http_server.add("/docs/q.md", "# Q")
    cafe, query = fetch_all([http_server.url("/docs/café menu.md"), http_server.url("/docs/q.md?a=1 2&b=é")])
    assert ok(cafe).content == "# Café".encode()
    assert ok(query).status == 200
    assert http_server.requests_for("/docs/q.md")[0].path == "/docs/q.md?a=1%202&b=%C3%A9"


class _DroppingServer:
    """Answers the first request of each connection, then closes it on the next one unanswered
    (a keep-alive connection the server timed out just as the client reused it)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.requests = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            self.requests += 1
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")
            conn.recv(65536)  # the next request on this connection: dropped unanswered

    def close(self) -> None:
        self.sock.close()


def test_a_dropped_keep_alive_connection_is_retried_at_once() -> None:
    server = _DroppingServer()
    try:
        results = fetch_all([f"http://127.0.0.1:{server.port}/{i}.md" for i in range(5)], concurrency=1)
    finally:
        server.close()
    assert [ok(r).content for r in results] == [b"ok"] * 5
    assert server.requests == 5 and server.connections == 5


def test_connection_errors_are_transport_failures() -> None:
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    (refused,) = fetch_all([f"http://127.0.0.1:{port}/x.md"])
    assert isinstance(refused, client.TransportFailure)
    (bad,) = fetch_all(["ftp://127.0.0.1/x.md"])
    assert isinstance(bad, client.RequestFailure)


def test_a_body_cut_short_is_a_transport_failure() -> None:
    with socket.create_server(("127.0.0.1", 0)) as srv:
        port = srv.getsockname()[1]

        def serve() -> None:
            conn, _ = srv.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part")

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        (cut,) = fetch_all([f"http://127.0.0.1:{port}/x.md"])
        t.join(5)
    assert isinstance(cut, client.TransportFailure)


def test_proxies_in_the_environment_go_through_httpx(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    assert isinstance(make_client(headers={}, max_connections=2), H11Client)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    assert isinstance(make_client(headers={}, max_connections=2), HttpxClient)


def test_load_honours_a_proxy(monkeypatch: pytest.MonkeyPatch, http_server: HttpServer) -> None:
    """Through httpx, a proxy from the environment is used (here, the test server plays it)."""
    seen: list[str] = []

    def as_proxy(request: httpserver.Request) -> Reply:
        seen.append(request.path)
        body = "# Docs\n\n## Docs\n\n- [A](a.md)\n" if request.path.endswith("llms.txt") else "# A"
        return Reply(body=body)

    for path in ("http://docs.invalid/llms.txt", "http://docs.invalid/a.md"):
        http_server.add(path, as_proxy)
    monkeypatch.setenv("HTTP_PROXY", http_server.base_url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    listing = load_llms_source("http://docs.invalid/llms.txt", settings=FetchSettings(timeout=5))
    assert [o.status for o in listing.outcomes] == ["ok"]
    assert seen == ["http://docs.invalid/llms.txt", "http://docs.invalid/a.md"]


# --------------------------------------------------------------------------- TLS


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[HttpServer, Path]]:
    """The test server behind TLS with a throwaway CA; yields it and the CA file."""
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server = HttpServer(url_host="localhost")
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert_file, key_file)
    inner: Any = server._server
    inner.socket = ctx.wrap_socket(inner.socket, server_side=True)
    server.base_url = server.base_url.replace("http://", "https://")
    with server:
        yield server, cert_file


def test_https_with_the_ca_from_ssl_cert_file(
    tls_server: tuple[HttpServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, ca = tls_server
    server.add("/docs/a.md", "# Secure")
    server.add("/docs/b.md", "# Also")
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    a, b = fetch_all([server.url("/docs/a.md"), server.url("/docs/b.md")], concurrency=1)
    assert ok(a).content == b"# Secure" and ok(b).content == b"# Also"
    assert server.connections == 1  # kept alive

    monkeypatch.delenv("SSL_CERT_FILE")
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    (untrusted,) = fetch_all([server.url("/docs/a.md")])
    assert isinstance(untrusted, client.TransportFailure)
    assert "CERTIFICATE_VERIFY_FAILED" in str(untrusted)
