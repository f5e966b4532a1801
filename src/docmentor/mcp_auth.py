"""Who may use the HTTP MCP server, and which tools: bearer tokens, scopes, OAuth metadata,
and the health endpoints a load balancer polls.

- ``GET /healthz`` (200 ``{"status": "ok"}`` while the process answers) and ``GET /readyz``
  (200 when the index opens and answers a trivial query, else 503 with a reason) need no
  token and are not Host-checked: a load balancer sends its own Host (a pod or machine
  address) and no credentials; they disclose nothing but the state.
- With OAuth configured, ``GET /.well-known/oauth-protected-resource`` (and the RFC 9728
  §3.1 path under it, ``…/mcp``) is the protected-resource metadata: the resource, its
  issuer, the scopes, the bearer method.
- Any other request, when :meth:`docmentor.Authenticator.required`, carries
  ``Authorization: Bearer TOKEN``: none gets 401 ``WWW-Authenticate: Bearer realm=…`` (with
  ``resource_metadata`` under OAuth), a refused token 401 with ``error="invalid_token"``
  (503 while the issuer's keys cannot be fetched), a token without the read scope 403
  ``insufficient_scope``. While the index's database cannot be read (a PostgreSQL restart),
  a request whose token it would check — or any, when only it can say whether tokens are
  needed — gets 503 ``temporarily_unavailable`` with ``Retry-After``.
- Scopes (RFC 6750): a caller without the write scope sees only the tools annotated
  read-only in tools/list, and its tools/call of another tool gets HTTP 403 with
  ``WWW-Authenticate: Bearer error="insufficient_scope", scope="write"`` before the server
  runs anything. Which tools write is read from the tools' annotations, not a list of names.

The caller reaches the MCP server as the SDK's authenticated user (``scope["user"]``, and
``mcp.server.auth.middleware.auth_context.get_access_token()`` in a handler).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import MCPServer
from mcp_types import INVALID_PARAMS

from docmentor import TOKEN_SCOPES, Authenticator, Principal, TokenRejected, index_ready

log = logging.getLogger(__name__)

HEALTH_PATHS = ("/healthz", "/readyz")
METADATA_PATH = "/.well-known/oauth-protected-resource"
REALM = "docmentor"
Send = Any
Receive = Any


async def write_tools(server: MCPServer) -> frozenset[str]:
    """The tools not annotated read-only: what needs the write scope."""
    tools = await server.list_tools()
    return frozenset(t.name for t in tools if not (t.annotations and t.annotations.read_only_hint))


def caller_scopes() -> frozenset[str] | None:
    """The scopes of the request being handled; None when it carries no checked token
    (stdio, or HTTP without authentication)."""
    token = get_access_token()
    return None if token is None else frozenset(token.scopes)


class ScopedTools:
    """Server middleware: a caller without the write scope lists only the read-only tools,
    and calling another is an error (over HTTP the request gets 403 before this)."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server
        self._writes: frozenset[str] | None = None

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        scopes = caller_scopes()
        if scopes is None or "write" in scopes or ctx.method not in ("tools/list", "tools/call"):
            return await call_next(ctx)
        if self._writes is None:  # the tools are fixed once the server is built
            self._writes = await write_tools(self._server)
        if ctx.method == "tools/call":
            name = ctx.params.get("name") if isinstance(ctx.params, Mapping) else None
            if name in self._writes:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"{name} needs the write scope; this token has only read",
                    data=name,
                )
            return await call_next(ctx)
        result = await call_next(ctx)
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            result["tools"] = [
                t for t in result["tools"] if not (isinstance(t, dict) and t.get("name") in self._writes)
            ]
        return result


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def send_json(send: Send, status: int, data: Any, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    body = json.dumps(data).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _quoted(text: str) -> str:
    """A quoted-string of RFC 7230 (error_description): printable ASCII, no quote or backslash."""
    return "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "?" for c in text)


class AuthGate:
    """ASGI middleware: the health endpoints, the OAuth metadata, and the bearer-token check."""

    def __init__(self, app: Any, auth: Authenticator, *, host: str, port: int) -> None:
        self.app = app
        self.auth = auth
        self._fallback_host = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    # -- the resource --------------------------------------------------------------------
    def resource(self, scope: Mapping[str, Any]) -> str:
        """This server's /mcp URL as clients reach it: configured, else the request's."""
        oauth = self.auth.oauth
        if oauth is not None and oauth.config.resource:
            return oauth.config.resource
        host = _header(scope, b"host") or self._fallback_host
        return f"{scope.get('scheme', 'http')}://{host}/mcp"

    def metadata_url(self, scope: Mapping[str, Any]) -> str:
        """RFC 9728 §3.1: the well-known path inserted before the resource's path."""
        from mcp.server.auth.routes import build_resource_metadata_url
        from pydantic import AnyHttpUrl

        return str(build_resource_metadata_url(AnyHttpUrl(self.resource(scope))))

    def metadata(self, scope: Mapping[str, Any]) -> dict[str, Any]:
        from mcp.shared.auth import ProtectedResourceMetadata

        assert self.auth.oauth is not None
        document = ProtectedResourceMetadata.model_validate(
            {
                "resource": self.resource(scope),
                "authorization_servers": [self.auth.oauth.config.issuer],
                "scopes_supported": list(TOKEN_SCOPES),
                "bearer_methods_supported": ["header"],
                "resource_name": "docmentor",
            }
        )
        return document.model_dump(mode="json", exclude_none=True)

    def challenge(
        self,
        scope: Mapping[str, Any],
        error: str | None = None,
        description: str = "",
        extra: Mapping[str, str] | None = None,
    ) -> bytes:
        parts = [f'realm="{REALM}"']
        if error:
            parts.append(f'error="{error}"')
            if description:
                parts.append(f'error_description="{_quoted(description)}"')
        parts += [f'{k}="{v}"' for k, v in (extra or {}).items()]
        if self.auth.oauth is not None:
            parts.append(f'resource_metadata="{self.metadata_url(scope)}"')
        return ("Bearer " + ", ".join(parts)).encode()

    async def refuse(
        self,
        scope: Mapping[str, Any],
        send: Send,
        status: int,
        error: str | None,
        description: str,
        extra: Mapping[str, str] | None = None,
    ) -> None:
        headers = [(b"www-authenticate", self.challenge(scope, error, description, extra))]
        if status == 503:
            headers.append((b"retry-after", b"30"))
        body = {"error": error or "unauthorized", "error_description": description}
        await send_json(send, status, body, headers)

    # -- a request -----------------------------------------------------------------------
    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope.get("path", ""), scope.get("method", "GET")
        if path in HEALTH_PATHS and method in ("GET", "HEAD"):
            await self._health(path, send)
            return
        if (
            self.auth.oauth is not None
            and path in (METADATA_PATH, METADATA_PATH + "/mcp")
            and method == "GET"
        ):
            await send_json(send, 200, self.metadata(scope))
            return
        requirement = await anyio.to_thread.run_sync(self.auth.requirement)
        if requirement is None:
            await self.refuse(
                scope,
                send,
                503,
                "temporarily_unavailable",
                "the index cannot be read now, so tokens cannot be checked: try again later",
            )
            return
        if not requirement:
            await self.app(scope, receive, send)
            return
        given = _header(scope, b"authorization")
        if not given:
            await self.refuse(scope, send, 401, None, "this server needs Authorization: Bearer TOKEN")
            return
        kind, _, token = given.partition(" ")
        if kind.lower() != "bearer" or not token.strip():
            await self.refuse(
                scope, send, 401, "invalid_request", "send the token as Authorization: Bearer TOKEN"
            )
            return
        try:
            principal = await anyio.to_thread.run_sync(self.auth.verify, token.strip())
        except TokenRejected as exc:
            status = 503 if exc.reason == "unavailable" else 401
            await self.refuse(
                scope,
                send,
                status,
                "invalid_token" if status == 401 else "temporarily_unavailable",
                exc.message,
            )
            return
        if not principal.allows("read"):
            await self.refuse(
                scope,
                send,
                403,
                "insufficient_scope",
                "the token grants neither read nor write",
                extra={"scope": "read"},
            )
            return
        scope["user"] = AuthenticatedUser(_access_token(principal, token.strip()))
        from starlette.authentication import AuthCredentials

        scope["auth"] = AuthCredentials(sorted(principal.scopes))
        await self.app(scope, receive, send)

    async def _health(self, path: str, send: Send) -> None:
        if path == "/healthz":
            await send_json(send, 200, {"status": "ok"})
            return
        ready = await anyio.to_thread.run_sync(lambda: index_ready(self.auth.engine))
        await send_json(send, 200 if ready.ready else 503, ready.to_dict())

    async def write_refusal(
        self, scope: dict[str, Any], message: Mapping[str, Any], writes: frozenset[str], send: Send
    ) -> bool:
        """For :class:`docmentor.mcp_http.JsonRpcShape`: refuse (403) a tools/call of a
        write tool by a caller without the write scope; whether it was refused."""
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser) or "write" in user.scopes:
            return False
        params = message.get("params")
        name = params.get("name") if isinstance(params, Mapping) else None
        if message.get("method") != "tools/call" or name not in writes:
            return False
        await self.refuse(
            scope, send, 403, "insufficient_scope", f"{name} needs the write scope", extra={"scope": "write"}
        )
        return True


def _access_token(principal: Principal, token: str) -> AccessToken:
    return AccessToken(
        token=token,
        client_id=principal.name,
        scopes=sorted(principal.scopes),
        expires_at=principal.expires_at,
        subject=principal.name if principal.kind == "oauth" else None,
    )
