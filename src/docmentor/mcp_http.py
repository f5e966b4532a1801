"""Serving MCP over streamable HTTP: who may connect, and under which names.

- A bind to an address other than loopback is refused unless authentication is configured
  (tokens stored in the index, ``serve --token-file``, or ``--oauth-issuer``) or the user
  says ``--insecure``: the index may hold private documentation, and the tools can re-read
  sources.
- With authentication, every HTTP request but the health checks must carry
  ``Authorization: Bearer TOKEN``, and a read-scope token reaches only the read-only tools
  (:mod:`docmentor.mcp_auth`).
- Every bind checks the Host and Origin headers (DNS-rebinding protection): allowed are the
  bound host and port, the loopback names for a loopback or wildcard bind, the machine's
  name for a wildcard bind, and the names given with ``--allow-host``.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor import DocmentorError, UsageError

if TYPE_CHECKING:
    from docmentor import Authenticator

log = logging.getLogger(__name__)

MIN_TOKEN_CHARS = 16
_WILDCARDS = ("", "0.0.0.0", "::")
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_MAKE_TOKEN = "python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE"
# (ASGI scope, the JSON-RPC message, send) → whether a response was sent instead
Refusal = Callable[[dict[str, Any], Any, Any], Awaitable[bool]]


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address (127.0.0.0/8, ::1)."""
    host = host.strip("[]")
    if host in _WILDCARDS:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    addresses = {info[4][0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses)


def read_token(path: Path) -> str:
    """The bearer token in ``path`` (surrounding whitespace dropped)."""
    try:
        token = path.expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read the token file {path}: {exc}", hint=f"create one with: {_MAKE_TOKEN}"
        ) from None
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise UsageError(
            f"the token in {path} must be one word of at least {MIN_TOKEN_CHARS} characters",
            hint=f"create one with: {_MAKE_TOKEN}",
        )
    return token


def check_bind(host: str, *, authenticated: bool, insecure: bool) -> None:
    """Refuse to serve on an address other machines reach without authentication (stored
    tokens, a token file, an OAuth issuer) or ``--insecure``."""
    if authenticated or insecure or is_loopback(host):
        return
    shown = host or "all addresses"
    raise UsageError(
        f"refusing to serve on {shown} without authentication: other machines can reach it",
        hint="create a token (docmentor token create --scope read), or pass --token-file FILE "
        "or --oauth-issuer URL --oauth-audience AUD, so that clients must send a bearer token; "
        "or --insecure to serve anyone who can connect; or --host 127.0.0.1",
    )


def _with_port(name: str, port: int) -> str:
    name = name.strip()
    if name.startswith("["):  # [v6] or [v6]:port
        return name if "]:" in name else f"{name}:{port}"
    if name.count(":") > 1:  # a bare IPv6 address
        return f"[{name}]:{port}"
    return name if ":" in name else f"{name}:{port}"


def _has_port(name: str) -> bool:
    return "]:" in name if name.startswith("[") else name.count(":") == 1


def allowed_hosts(host: str, port: int, extra: list[str]) -> list[str]:
    """The Host header values this server answers to. A ``--allow-host`` NAME without a port
    is also answered bare: behind a reverse proxy on 443 (or 80) clients send ``Host: NAME``."""
    bare = host.strip("[]")
    names = [_with_port(bare, port)] if bare not in _WILDCARDS else []
    if bare in _WILDCARDS or is_loopback(bare):
        names += [f"{n}:{port}" for n in _LOOPBACK_NAMES]
    if bare in _WILDCARDS:
        names += [f"{socket.gethostname()}:{port}", f"{socket.getfqdn()}:{port}"]
    for name in (n.strip() for n in extra if n.strip()):
        names.append(_with_port(name, port))
        if not _has_port(name):
            names.append(f"[{name}]" if name.count(":") > 1 else name)
    return list(dict.fromkeys(names))


def check_port(host: str, port: int) -> None:
    """A clear error when the address cannot be served (in use, not this machine's), before
    the HTTP server would print its own and exit."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise UsageError(f"cannot serve on {host}: {exc}", hint="pass --host 127.0.0.1") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            in_use = exc.errno == errno.EADDRINUSE
            shown = f"[{host}]" if ":" in host else host
            # a port in use is the moment's state (exit 1); a host of another machine, a usage error
            error = DocmentorError if in_use else UsageError
            raise error(
                f"cannot serve on {shown}:{port}: {exc.strerror or exc}",
                hint="pass another --port" if in_use else "pass a --host of this machine, e.g. 127.0.0.1",
            ) from None


MAX_LOCAL_ADDRESSES = 64  # a wildcard bind's own IP addresses learnt from Host headers


def is_local_address(text: str) -> bool:
    """Whether ``text`` is an IP address of this machine (one a socket can bind to; not the
    unspecified ``0.0.0.0`` / ``::`` nor a multicast group)."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:0.0.0.0 is 0.0.0.0
    if mapped is not None:
        address = mapped
    if address.is_unspecified or address.is_multicast:
        return False
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


class HostCheck:
    """ASGI middleware, outermost for ``/mcp``: a request whose Host header names no name the
    server answers to gets a 421 that says how to make it answer (``--allow-host``).

    On a wildcard bind (``0.0.0.0``, ``::``) a Host that is one of this machine's own network
    addresses (not loopback), written canonically, with the server's port, is answered too
    (clients on the network use them; a DNS-rebinding page cannot send one: its Host is its
    own name). Such an address joins ``security.allowed_hosts`` (the list the SDK checks), so
    its Origin stays refused."""

    def __init__(self, app: Any, security: Any, *, port: int, wildcard: bool) -> None:
        self.app = app
        self.security = security
        self.port = port
        self.wildcard = wildcard
        self.learnt = 0  # own addresses added to the allowed hosts (only those: never a refusal)

    def _answers(self, host: str) -> bool:
        allowed = self.security.allowed_hosts
        if host in allowed or any(
            a.endswith(":*") and host.startswith(a[:-1]) for a in allowed
        ):  # NAME:* answers NAME on any port, as the SDK's check does
            return True
        if not self.wildcard or self.learnt >= MAX_LOCAL_ADDRESSES or not self._own_address(host):
            return False  # not remembered: a stranger's requests cannot fill anything up
        allowed.append(host)
        self.learnt += 1
        return True

    def _own_address(self, host: str) -> bool:
        """Whether ``host`` is one of this machine's network addresses with the server's port,
        written the one canonical way (``192.0.2.2:8765``, ``[fd00::2]:8765``): the few a
        stranger cannot multiply. Loopback addresses answer only as the names listed."""
        name, sep, port = host.rpartition(":")
        if not sep or port != str(self.port):
            return False
        bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
        try:
            address = ipaddress.ip_address(bare)
        except ValueError:
            return False
        canonical = f"[{address}]" if address.version == 6 else str(address)
        return name == canonical and not address.is_loopback and is_local_address(bare)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("path") != "/mcp":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), "")
        if self._answers(host):
            await self.app(scope, receive, send)
            return
        bare = host.rpartition(":")[0] if host.rpartition(":")[2].isdigit() else host
        said = (
            f"Invalid Host header: this server does not answer to {host!r}; start it with "
            f"--allow-host {bare or 'NAME'} to let clients reach it by that name\n"
        ).encode()
        log.warning(
            "refused a request for Host %r: not a name this server answers to (see --allow-host)", host
        )
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(said)).encode()),
        ]
        await send({"type": "http.response.start", "status": 421, "headers": headers})
        await send({"type": "http.response.body", "body": said})


class JsonRpcShape:
    """ASGI middleware: a POST to /mcp whose body is not one JSON-RPC message is answered
    here, as over stdio (:func:`docmentor.mcp_stdio.classify`): -32700 for what is not
    JSON, -32600 for a batch or another shape, instead of the SDK's validation text.

    The SDK's Host/Origin/Content-Type checks (``security``) come first, so a request from a
    name the server does not answer to gets 421/403 whatever its body."""

    def __init__(self, app: Any, max_body: int, security: Any, refuse: Refusal | None = None) -> None:
        from mcp.server.transport_security import TransportSecurityMiddleware

        self.app = app
        self.max_body = max_body
        self.guard = TransportSecurityMiddleware(security)
        self.refuse = refuse  # a last say on a well-formed message (the write scope's 403)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") == "GET" and scope.get("path") == "/mcp":
            await _no_stream(send)
            return
        if scope.get("type") != "http" or scope.get("method") != "POST" or scope.get("path") != "/mcp":
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request

        refused = await self.guard.validate_request(Request(scope), is_post=True)
        if refused is not None:
            await refused(scope, receive, send)
            return
        received: list[dict[str, Any]] = []
        body = bytearray()
        while True:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > self.max_body or not message.get("more_body", False):
                break
        complete = (
            bool(received) and received[-1]["type"] == "http.request" and not received[-1].get("more_body")
        )

        async def replay() -> Any:
            return received.pop(0) if received else await receive()

        if complete and len(body) <= self.max_body:
            from docmentor.mcp_stdio import classify

            message, error = classify(body.decode("utf-8", errors="replace"))
            if error is None and self.refuse is not None and await self.refuse(scope, message, send):
                return
            if error is not None:
                reply = error.encode()
                headers = [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(reply)).encode()),
                ]
                await send({"type": "http.response.start", "status": 400, "headers": headers})
                await send({"type": "http.response.body", "body": reply})
                return
        await self.app(scope, replay, send)


async def _no_stream(send: Any) -> None:
    """405 to a GET of /mcp. A stateless server has no messages of its own to stream, and the
    SDK's answer, an event stream that never sends anything, held each such GET open for good;
    MCP lets a server say 405 instead (clients then only POST)."""
    reply = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Method Not Allowed: this server streams nothing; POST requests",
            },
        }
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"allow", b"POST"),
        (b"content-length", str(len(reply)).encode()),
    ]
    await send({"type": "http.response.start", "status": 405, "headers": headers})
    await send({"type": "http.response.body", "body": reply})


def serve_http(
    server: Any, *, host: str, port: int, auth: Authenticator, allow_hosts: list[str], insecure: bool
) -> None:
    """Serve ``server`` (an MCPServer) as stateless streamable HTTP at ``/mcp`` until stopped,
    with ``auth``'s tokens checked (:class:`docmentor.mcp_auth.AuthGate`) and the health
    endpoints answered."""
    import anyio
    import uvicorn
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings

    from docmentor.mcp_auth import AuthGate, write_tools

    hosts = allowed_hosts(host, port, allow_hosts)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")],
    )
    app: Any = server.streamable_http_app(
        stateless_http=True, json_response=True, transport_security=security, host=host
    )
    writes = anyio.run(write_tools, server)
    gate = AuthGate(app, auth, host=host, port=port)

    async def refuse(scope: dict[str, Any], message: Any, send: Any) -> bool:
        return await gate.write_refusal(scope, message, writes, send)

    gate.app = JsonRpcShape(AuthContextMiddleware(app), DEFAULT_MAX_REQUEST_BODY_SIZE, security, refuse)
    shown = f"[{host}]" if ":" in host else host
    if auth.required():
        note = " (bearer token required)"
    else:
        note = " (no authentication: --insecure)" if insecure else ""
    sys.stderr.write(f"docmentor: MCP over streamable HTTP at http://{shown}:{port}/mcp{note}\n")
    sys.stderr.flush()
    outer = HostCheck(gate, security, port=port, wildcard=host.strip("[]") in _WILDCARDS)
    config = uvicorn.Config(outer, host=host, port=port, log_level="warning")
    try:
        anyio.run(uvicorn.Server(config).serve)
    finally:
        auth.close()
