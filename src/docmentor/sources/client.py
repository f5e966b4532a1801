"""The HTTP/1.1 client that fetches llms.txt documents: asyncio streams and ``h11``.

One :class:`H11Client` per load keeps idle keep-alive connections per origin and
reuses them; it GETs one URL at a time per connection and hands back the whole body,
decoded (``gzip`` / ``deflate``) and capped. It is small on purpose: on a docs site
most of the cost of a fetch is the client's own bookkeeping, and httpx's layers
(httpx → httpcore pool → anyio) spend about 1 ms of CPU per request where this one
spends about 0.1 ms, with the same protocol engine (``h11``, which httpcore uses too).

What it does not do is left to httpx (:class:`HttpxClient`): when a proxy is set in
the environment (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, any case) or when a
caller passes an httpx transport (tests), requests go through an ``httpx.AsyncClient``.

Names are resolved once per client (one load) and every connection to a name goes to
the addresses that first answer gave, checked (see :func:`_usable_addresses`): a name
that answers 127.0.0.1 and then 127.0.0.2 (DNS rebinding) cannot move a load onto another
machine after its same-host checks passed. The TLS name and the ``Host`` header stay the
name. (Through a proxy, the proxy resolves: that is httpx's and the proxy's business.)

Time limits are the caller's (``asyncio.timeout`` around :meth:`get`); a connection
interrupted mid-request is closed, never reused. A reused keep-alive connection that
the server had closed is retried once at once on a new connection (GET is idempotent).
TLS uses ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set, else certifi's bundle, as httpx.

Why a second HTTP client beside httpx (commit 3cc23c8 brought it, for indexing speed; 8cad1fb
added the resolve-once connect). Measured with ``.venv/bin/python benchmarks/bench_fast_paths.py
http`` (2 CPUs shared with other work, Python 3.11, 2026-11-28; a Python server on 127.0.0.1):
500 GETs of 5 KB pages, 8 at a time, cost 0.20–0.24 ms of client CPU per GET here against
0.94–1.19 ms through :class:`HttpxClient`; ``docmentor add`` of an llms.txt listing 300 such
pages (no embeddings) took 0.65–0.71 s against 1.1–1.55 s with httpx (its import alone is
~130 ms). On a slow remote site the network hides most of the CPU, but BENCHMARKS.md's
indexing figure (246 fetches) rests on it. Both clients take the size cap (on decoded bytes);
everything else a load needs is the caller's and shared by both: redirects followed by hand
with a scope check per hop, retries and the time limit in ``sources/fetch.py``, conditional
requests (``If-None-Match`` / ``If-Modified-Since``) and what a 304 means in
``sources/llmstxt.py``. What this client does that plain httpx does not: each name resolved
once per load, answers checked (:func:`_usable_addresses`), every connection made to those
addresses while the TLS name and ``Host`` stay the name.

That it answers as httpx does (content codings, chunked bodies, the cap on decoded bytes,
304s, redirects left to the caller, error statuses) is tested in
tests/test_fast_paths.py (``test_h11_client_answers_as_httpx``), its own behaviours in
tests/test_fetch_client.py and tests/test_dns_rebinding.py.

Switching to httpx alone would need: (1) the resolve-once guard as an httpcore network
backend (``httpcore.AsyncConnectionPool(network_backend=...)`` whose ``connect_tcp`` maps the
name to the checked addresses of one lookup per load, tries them in turn, and leaves TLS to
httpcore with the name as ``server_hostname``), wrapped in an ``httpx.AsyncBaseTransport``
since ``httpx.AsyncHTTPTransport`` takes no backend; through a proxy the proxy resolves, as
today; (2) accepting ~0.8 ms more CPU per request and the httpx import on every remote load
(BENCHMARKS.md's indexing figures would move); (3) the tests above, run against it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote, urlsplit

import h11

if TYPE_CHECKING:
    import ssl

    import httpx

__all__ = [
    "BodyTooLarge",
    "Client",
    "H11Client",
    "HttpxClient",
    "RequestFailure",
    "Response",
    "TransportFailure",
    "make_client",
]

_PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy")
# What httpx sends by default, less what this client cannot decode (br, zstd).
_DEFAULTS = (("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate"), ("Connection", "keep-alive"))
_READ = 256 * 1024
_DRAIN = 64 * 1024  # an error / redirect body up to this size is read to keep the connection
_STAGGER = 0.25  # seconds before the next address of a name is tried (happy eyeballs)


class TransportFailure(Exception):
    """The connection failed or the server broke the protocol; worth retrying."""


class RequestFailure(Exception):
    """The request cannot be made (a malformed URL, an unsupported scheme); not retried."""


class UndecodableBody(RequestFailure):
    """The body does not decode as its Content-Encoding says (corrupt gzip): the server's
    answer, not a failure of the moment, so not retried."""


class BodyTooLarge(Exception):
    """The (decoded) body is over the cap; ``declared`` is the Content-Length when that told."""

    def __init__(self, declared: int | None) -> None:
        super().__init__(declared)
        self.declared = declared


@dataclass(slots=True)
class Response:
    url: str
    status: int
    headers: Mapping[str, str]  # lower-case names; repeated headers joined with ", "
    content: bytes = b""


class Client(Protocol):
    async def get(self, url: str, headers: Mapping[str, str], max_bytes: int) -> Response:
        """GET ``url``; the body is read only for 2xx answers, capped at ``max_bytes``."""
        ...

    async def aclose(self) -> None: ...


def make_client(
    *, headers: Mapping[str, str], max_connections: int, transport: httpx.AsyncBaseTransport | None = None
) -> Client:
    """The client for one load: httpx for an injected transport or a proxy, else :class:`H11Client`."""
    if transport is not None or any(os.environ.get(v) or os.environ.get(v.upper()) for v in _PROXY_VARS):
        return HttpxClient(headers=headers, max_connections=max_connections, transport=transport)
    return H11Client(headers=headers, max_connections=max_connections)


# --------------------------------------------------------------------------- h11


@dataclass(eq=False)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    h11: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))

    def usable(self) -> bool:
        """Idle and still open: the server has not closed it, nor sent anything unasked."""
        return not (self.writer.transport.is_closing() or self.reader.at_eof())

    def close(self) -> None:
        self.writer.transport.abort()


@dataclass(frozen=True, slots=True)
class _Target:
    origin: tuple[str, str, int]  # scheme, host (IDNA), port
    host_header: str
    target: str  # path and query, percent-encoded


def _target(url: str) -> _Target:
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        host = parts.hostname or ""
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError as exc:
        raise RequestFailure(f"invalid URL {url!r}: {exc}") from None
    if scheme not in ("http", "https"):
        raise RequestFailure(f"unsupported scheme in {url!r}")
    if not host:
        raise RequestFailure(f"no host in {url!r}")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise RequestFailure(f"invalid host in {url!r}: {exc}") from None
    shown = f"[{host}]" if ":" in host else host
    if port != (443 if scheme == "https" else 80):
        shown += f":{port}"
    target = quote(parts.path or "/", safe="/%!$&'()*+,;=:@-._~")
    if parts.query:
        target += "?" + quote(parts.query, safe="/?%!$&'()*+,;=:@-._~")
    return _Target((scheme, host, port), shown, target)


class _Decoder:
    """Content-Encoding (gzip, deflate; unknown codings kept as they are, as httpx does), with
    the size cap applied to the decoded bytes as they come (a small gzip bomb stays small)."""

    def __init__(self, encoding: str, cap: int) -> None:
        self.cap = cap
        self.total = 0
        self.chunks: list[bytes] = []
        # codings are listed in the order applied: undo them last first
        codings = [c.strip().lower() for c in encoding.split(",")]
        self._stages = [_Stage(c) for c in reversed(codings) if c in ("gzip", "x-gzip", "deflate")]

    def feed(self, data: bytes) -> None:
        for stage in self._stages:
            data = stage.decode(data, self.cap - self.total)
        self._add(data)

    def finish(self) -> bytes:
        data = b""
        for stage in self._stages:
            data = stage.decode(data, self.cap - self.total) + stage.flush()
        self._add(data)
        return b"".join(self.chunks)

    def _add(self, data: bytes) -> None:
        if data:
            self.total += len(data)
            if self.total > self.cap:
                raise BodyTooLarge(None)
            self.chunks.append(data)


class _Stage:
    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._first = True
        self._z = zlib.decompressobj(zlib.MAX_WBITS | 16 if coding != "deflate" else zlib.MAX_WBITS)

    def decode(self, data: bytes, room: int) -> bytes:
        """Decode ``data``; more than ``room`` bytes out is over the cap."""
        first, self._first = self._first, False
        out: list[bytes] = []
        size = 0
        try:
            piece = self._z.decompress(data, room + 1)
        except zlib.error as exc:
            if first and self.coding == "deflate":  # raw deflate, without the zlib header
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.decode(data, room)
            raise UndecodableBody(f"{self.coding} data does not decode: {exc}") from None
        while True:
            out.append(piece)
            size += len(piece)
            if size > room:
                raise BodyTooLarge(None)
            if not self._z.unconsumed_tail:
                return b"".join(out)
            try:
                piece = self._z.decompress(self._z.unconsumed_tail, room + 1 - size)
            except zlib.error as exc:
                raise UndecodableBody(f"{self.coding} data does not decode: {exc}") from None

    def flush(self) -> bytes:
        try:
            return bytes(self._z.flush())
        except zlib.error as exc:
            raise UndecodableBody(f"{self.coding} data does not decode: {exc}") from None


class H11Client:
    """Plain HTTP/1.1 over asyncio streams; idle connections are kept per origin."""

    def __init__(self, *, headers: Mapping[str, str], max_connections: int) -> None:
        names = {k.lower() for k in headers}
        self._headers = [(k, v) for k, v in headers.items()]
        self._headers += [(k, v) for k, v in _DEFAULTS if k.lower() not in names]
        self._max_idle = max(max_connections, 1)
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._ssl: ssl.SSLContext | None = None
        # (host, port) -> the checked addresses of its first answer, shared by every connection
        self._resolved: dict[tuple[str, int], asyncio.Future[list[str]]] = {}

    async def get(self, url: str, headers: Mapping[str, str], max_bytes: int) -> Response:
        t = _target(url)
        conn = self._take(t.origin)
        if conn is not None:
            try:
                return await self._exchange(conn, t, url, headers, max_bytes, reused=True)
            except _StaleConnection:
                pass  # the server closed it while idle: once more on a new connection
        conn = await self._connect(t.origin)
        return await self._exchange(conn, t, url, headers, max_bytes, reused=False)

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for conn in conns:
                conn.close()
        self._idle.clear()
        for pending in self._resolved.values():
            pending.cancel()  # a lookup nobody waits for any more (done ones are unaffected)
        self._resolved.clear()

    # -- connections -------------------------------------------------------------------
    def _take(self, origin: tuple[str, str, int]) -> _Connection | None:
        conns = self._idle.get(origin)
        while conns:
            conn = conns.pop()
            if conn.usable():
                return conn
            conn.close()
        return None

    def _put(self, origin: tuple[str, str, int], conn: _Connection) -> None:
        if sum(len(c) for c in self._idle.values()) >= self._max_idle:
            conn.close()
            return
        self._idle.setdefault(origin, []).append(conn)

    async def _connect(self, origin: tuple[str, str, int]) -> _Connection:
        scheme, host, port = origin
        tls = self._ssl_context() if scheme == "https" else None
        addresses = await self._addresses(host, port)
        try:
            reader, writer = await _open_any(addresses, port, tls, host)
        except OSError as exc:  # refused, unreachable, TLS (ssl.SSLError is an OSError)
            raise TransportFailure(f"ConnectError: {exc}") from None
        return _Connection(reader, writer)  # asyncio sets TCP_NODELAY

    async def _addresses(self, host: str, port: int) -> list[str]:
        """The checked addresses of ``host``: resolved once, the same for every connection."""
        key = (host, port)
        pending = self._resolved.get(key)
        if pending is None:
            pending = self._resolved[key] = asyncio.ensure_future(_resolve(host, port))
        try:
            return await asyncio.shield(pending)
        except OSError as exc:  # no answer pinned: a retry asks again
            if self._resolved.get(key) is pending:
                del self._resolved[key]
            raise TransportFailure(f"ConnectError: {exc}") from None

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            import ssl

            if os.environ.get("SSL_CERT_FILE"):
                ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
            elif os.environ.get("SSL_CERT_DIR"):
                ctx = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
            else:
                import certifi

                ctx = ssl.create_default_context(cafile=certifi.where())
            ctx.set_alpn_protocols(["http/1.1"])
            self._ssl = ctx
        return self._ssl

    # -- one request -------------------------------------------------------------------
    async def _exchange(
        self,
        conn: _Connection,
        t: _Target,
        url: str,
        headers: Mapping[str, str],
        cap: int,
        *,
        reused: bool,
    ) -> Response:
        done = False
        got_bytes = False
        try:
            asked = {k.lower() for k in headers}
            request = [("Host", t.host_header)]
            request += [(k, v) for k, v in self._headers if k.lower() not in asked]
            request += list(headers.items())
            try:
                data = conn.h11.send(h11.Request(method="GET", target=t.target, headers=request))
                data += conn.h11.send(h11.EndOfMessage()) or b""
            except h11.LocalProtocolError as exc:
                raise RequestFailure(f"invalid request for {url!r}: {exc}") from None
            conn.writer.write(data or b"")
            response: h11.Response | None = None
            while response is None:
                event = conn.h11.next_event()
                if event is h11.NEED_DATA:
                    chunk = await conn.reader.read(_READ)
                    got_bytes = got_bytes or bool(chunk)
                    conn.h11.receive_data(chunk)
                elif isinstance(event, h11.Response):
                    response = event
                elif isinstance(event, h11.InformationalResponse):
                    continue
                else:  # ConnectionClosed before any answer
                    raise h11.RemoteProtocolError("server closed the connection without answering")
            found = _headers(response.headers)
            status = response.status_code
            if 200 <= status < 300:
                length = found.get("content-length", "")
                if length.isdigit() and int(length) > cap:
                    raise BodyTooLarge(int(length))
                decoder = _Decoder(found.get("content-encoding", ""), cap)
                await self._body(conn, decoder.feed)
                content = decoder.finish()
            else:
                length = found.get("content-length", "")
                if status in (204, 304) or (length.isdigit() and int(length) <= _DRAIN):
                    await self._body(conn, lambda _data: None)
                else:  # an unread body: this connection cannot be reused
                    return Response(url, status, found)
                content = b""
            if conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE:
                conn.h11.start_next_cycle()
                done = True
            return Response(url, status, found, content)
        except h11.RemoteProtocolError as exc:
            if reused and not got_bytes:
                raise _StaleConnection() from exc
            raise TransportFailure(f"RemoteProtocolError: {exc}") from None
        except (ConnectionError, OSError) as exc:
            if reused and not got_bytes:
                raise _StaleConnection() from exc
            raise TransportFailure(f"ReadError: {exc}" if str(exc) else "ReadError") from None
        finally:
            if done:
                self._put(t.origin, conn)
            else:
                conn.close()

    @staticmethod
    async def _body(conn: _Connection, sink: Any) -> None:
        while True:
            event = conn.h11.next_event()
            if event is h11.NEED_DATA:
                conn.h11.receive_data(await conn.reader.read(_READ))
            elif isinstance(event, h11.Data):
                sink(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                return
            else:
                raise h11.RemoteProtocolError("server closed the connection mid-body")


async def _resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` may be reached at, from one answer (see :func:`_usable_addresses`)."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except socket.gaierror as exc:
        raise OSError(f"cannot resolve {host}: {exc.strerror or exc}") from None
    answered = list(dict.fromkeys(str(info[4][0]) for info in infos))
    usable = _usable_addresses(answered)
    if not usable:
        raise OSError(
            f"{host} resolves to no address docmentor connects to ({', '.join(answered) or 'none'})"
        )
    return usable


def _usable_addresses(answered: list[str]) -> list[str]:
    """The addresses of one answer that may be connected to, in the answer's order.

    Never an unspecified (``0.0.0.0``, ``::``, which reach this machine) or multicast
    address. When an answer mixes public addresses with loopback, private or link-local
    ones (a rebinding trick: the public one fails, the client falls over to the internal
    one), only the public ones are kept.
    """
    found: list[tuple[str, bool]] = []
    for text in answered:
        try:
            ip = ipaddress.ip_address(text.partition("%")[0])
        except ValueError:
            continue
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if ip.is_unspecified or ip.is_multicast:
            continue
        found.append((text, ip.is_global))
    if any(public for _, public in found):
        return [text for text, public in found if public]
    return [text for text, _ in found]


async def _open_one(
    address: str, port: int, tls: ssl.SSLContext | None, host: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection(
        address, port, ssl=tls, server_hostname=host if tls else None, limit=_READ
    )


async def _open_any(
    addresses: list[str], port: int, tls: ssl.SSLContext | None, host: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to the first of ``addresses`` that answers; the next one is tried when one
    fails or after ``_STAGGER`` seconds without an answer (happy eyeballs, RFC 8305)."""
    waiting = iter(addresses)
    pending: set[asyncio.Task[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = set()
    errors: list[BaseException] = []
    try:
        while True:
            address = next(waiting, None)
            if address is not None:
                pending.add(asyncio.ensure_future(_open_one(address, port, tls, host)))
            if not pending:
                break
            done, pending = await asyncio.wait(
                pending,
                timeout=_STAGGER if address is not None else None,
                return_when=asyncio.FIRST_COMPLETED,
            )
            won: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
            for task in done:
                if task.exception() is not None:
                    errors.append(task.exception())  # type: ignore[arg-type]
                elif won is None:
                    won = task.result()
                else:  # a second connection in the same instant: not needed
                    task.result()[1].transport.abort()
            if won is not None:
                return won
    finally:
        for task in pending:
            task.cancel()
    error = errors[-1] if errors else None
    if isinstance(error, OSError):
        raise error
    raise OSError(f"cannot connect to {host}: {error or 'no address'}")


class _StaleConnection(Exception):
    """A reused idle connection failed before the server sent a byte."""


def _headers(raw: list[tuple[bytes, bytes]] | Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("ascii", "replace").lower()
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            text = value.decode("latin-1")
        out[key] = f"{out[key]}, {text}" if key in out else text
    return out


# --------------------------------------------------------------------------- httpx


class HttpxClient:
    """The same interface over ``httpx.AsyncClient``: proxies from the environment, custom transports."""

    def __init__(
        self,
        *,
        headers: Mapping[str, str],
        max_connections: int,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        import httpx

        self._httpx = httpx
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self.client = httpx.AsyncClient(
            transport=transport, limits=limits, headers=dict(headers), follow_redirects=False, timeout=None
        )

    async def get(self, url: str, headers: Mapping[str, str], max_bytes: int) -> Response:
        httpx = self._httpx
        try:
            async with self.client.stream("GET", url, headers=dict(headers)) as response:
                found = {k.lower(): v for k, v in response.headers.items()}
                result = Response(url, response.status_code, found)
                if not 200 <= response.status_code < 300:
                    return result
                length = found.get("content-length", "")
                if length.isdigit() and int(length) > max_bytes:
                    raise BodyTooLarge(int(length))
                chunks: list[bytes] = []
                total = 0
                async for chunk in response.aiter_bytes():
                    total += len(chunk)
                    if total > max_bytes:
                        raise BodyTooLarge(None)
                    chunks.append(chunk)
                result.content = b"".join(chunks)
                return result
        except httpx.TimeoutException:
            raise TimeoutError() from None
        except httpx.TransportError as exc:
            raise TransportFailure(
                f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            ) from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise RequestFailure(f"{type(exc).__name__}: {exc}") from None

    async def aclose(self) -> None:
        await self.client.aclose()
