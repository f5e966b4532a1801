"""Authenticated HTTP MCP through a real `docmentor serve --transport http` on 127.0.0.1 and a
real MCP client: stored tokens and their scopes, the token file, OAuth JWTs from a local
issuer (RFC 9728 metadata, RFC 6750 challenges), each refusal with its status, and the
health endpoints a load balancer polls."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from docmentor import Docmentor, create_token, list_tokens, revoke_token
from httpserver import HttpServer, Reply, http_server  # noqa: F401
from issuertool import AUDIENCE, Issuer
from mcptool import structured

WRITE_TOOLS = {"refresh_sources", "report_issue"}  # of the default groups: not annotated read-only
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["DOCMENTOR_HOME"] = str(tmp_path / "home")
    for name in ("DOCMENTOR_DB", "DOCMENTOR_SOURCES"):
        env.pop(name, None)
    return env


@pytest.fixture
def index(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe frobnicator frobs widgets.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index", embeddings=False)
    engine.add(str(docs), name="d")
    engine.close()
    return tmp_path / "index"


class Served:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log
        self.url = f"http://127.0.0.1:{port}"

    def wait_ready(self, timeout: float = 30.0) -> Served:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.05)
        raise AssertionError("the server did not start")

    def post(self, message: dict[str, Any], token: str | None = None, **headers: str) -> httpx.Response:
        sent = dict(ACCEPT, **headers)
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        return httpx.post(self.url + "/mcp", json=message, headers=sent, timeout=10)

    def call(self, name: str, token: str | None, arguments: dict[str, Any] | None = None) -> httpx.Response:
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}},
        }
        return self.post(message, token)

    def mcp(self, token: str, work: Any) -> Any:
        """``work(client)`` in a session of the real MCP client carrying ``token``."""

        async def go() -> Any:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
            async with http, Client(streamable_http_client(self.url + "/mcp", http_client=http)) as client:
                return await work(client)

        return anyio.run(go)

    def tool_names(self, token: str) -> set[str]:
        async def names(client: Any) -> set[str]:
            return {t.name for t in (await client.list_tools()).tools}

        return set(self.mcp(token, names))


@pytest.fixture
def serve(tmp_path: Path, index: Path) -> Iterator[Any]:
    started: list[Served] = []

    def start(*options: str) -> Served:
        port = _free_port()
        log = tmp_path / f"serve-{port}.log"
        with log.open("w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "docmentor", "--db", str(index), "--no-embeddings", "serve",
                 "--transport", "http", "--port", str(port), *options],
                stdout=out, stderr=subprocess.STDOUT, env=_env(tmp_path), cwd=tmp_path,
            )  # fmt: skip
        served = Served(proc, port, log)
        started.append(served)
        return served.wait_ready()

    yield start
    for served in started:
        if served.proc.poll() is None:
            served.proc.terminate()
            try:
                served.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                served.proc.kill()
                served.proc.wait()


def _challenge(response: httpx.Response) -> str:
    return response.headers.get("www-authenticate", "")


LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def test_stored_tokens_their_scopes_and_each_refusal(tmp_path: Path, index: Path, serve: Any) -> None:
    engine = Docmentor(index, embeddings=False)
    reader = create_token(engine, scope="read", name="reader").token
    writer = create_token(engine, scope="write", name="writer").token
    expired = create_token(
        engine, scope="write", name="old", expires_days=1, now=datetime.now(UTC) - timedelta(days=2)
    ).token
    doomed = create_token(engine, scope="read", name="doomed").token
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token-file-0123456789\n")
    # stored tokens are authentication: another machine's reach needs no --insecure
    served = serve("--host", "0.0.0.0", "--token-file", str(token_file))
    assert "(bearer token required)" in served.log.read_text()

    missing = served.post(LIST)
    assert missing.status_code == 401 and _challenge(missing) == 'Bearer realm="docmentor"'  # no error code
    for wrong, status in ((writer[:-1], 401), ("dmt_" + "x" * 43, 401), ("not a token", 401), (expired, 401)):
        refused = served.post(LIST, wrong)
        assert refused.status_code == status, (wrong, refused.text)
        assert _challenge(refused).startswith('Bearer realm="docmentor", error="invalid_token"'), _challenge(
            refused
        )
        assert "serverInfo" not in refused.text and "tools" not in refused.text
    assert "the token 'old' expired at" in served.post(LIST, expired).json()["error_description"]
    basic = httpx.post(
        served.url + "/mcp", json=LIST, headers={**ACCEPT, "Authorization": "Basic YTpi"}, timeout=10
    )
    assert basic.status_code == 401 and 'error="invalid_request"' in _challenge(basic)
    assert (
        httpx.get(served.url + "/anything", timeout=10).status_code == 401
    )  # every path but the health checks

    # revoked while the server runs: refused from the next request
    assert served.post(LIST, doomed).status_code == 200
    revoke_token(engine, "doomed")
    assert served.post(LIST, doomed).status_code == 401

    # read scope: the read-only tools only; a write tool is refused before anything runs
    everything = served.tool_names(writer)
    assert everything >= WRITE_TOOLS and "search_docs" in everything
    assert served.tool_names(reader) == everything - WRITE_TOOLS
    for name in sorted(WRITE_TOOLS):
        refused = served.call(name, reader)
        assert refused.status_code == 403, refused.text
        assert _challenge(refused) == (
            f'Bearer realm="docmentor", error="insufficient_scope", '
            f'error_description="{name} needs the write scope", scope="write"'
        )
    found = served.call("search_docs", reader, {"query": "frobnicator"})
    assert found.status_code == 200 and "guide.md" in found.text

    async def refresh(client: Any) -> Any:
        return structured(await client.call_tool("refresh_sources", {}))

    assert served.mcp(writer, refresh)["sources"][0]["source"] == "d"
    # the token file's token is a write token, beside the stored ones
    file_token = "s3cret-token-file-0123456789"
    assert served.tool_names(file_token) == everything
    assert served.call("refresh_sources", file_token).status_code == 200
    # health checks: no token, any Host (a load balancer's own)
    for path, body in (("/healthz", {"status": "ok"}), ("/readyz", {"status": "ready"})):
        answer = httpx.get(served.url + path, headers={"Host": "10.1.2.3:8765"}, timeout=10)
        assert (answer.status_code, answer.json()) == (200, body)
    # the last use is recorded (in the background, at most once a minute)
    deadline = time.monotonic() + 10
    while not all(t.last_used_at for t in list_tokens(engine) if t.name in ("reader", "writer")):
        assert time.monotonic() < deadline, list_tokens(engine)
        time.sleep(0.05)
    assert next(t for t in list_tokens(engine) if t.name == "old").last_used_at is None
    engine.close()


def test_readiness_without_the_index_file_makes_no_empty_one(index: Path, serve: Any) -> None:
    served = serve()
    assert httpx.get(served.url + "/readyz", timeout=10).status_code == 200
    for database in index.glob("*.sqlite3*"):
        database.unlink()  # the index file alone is gone (its folder stays)
    missing = httpx.get(served.url + "/readyz", timeout=10)
    assert missing.json() == {"status": "unavailable", "reason": "the index file is missing"}
    assert missing.status_code == 503 and not list(index.glob("*.sqlite3"))  # none made in its place


def test_readiness_follows_the_index_and_a_new_token_turns_authentication_on(
    tmp_path: Path, index: Path, serve: Any
) -> None:
    served = serve()  # loopback, no token: open, as before
    assert "bearer token required" not in served.log.read_text()
    assert served.post(LIST).status_code == 200
    assert httpx.get(served.url + "/readyz", timeout=10).json() == {"status": "ready"}
    moved = tmp_path / "index-away"
    index.rename(moved)  # the index's volume is gone
    try:
        gone = httpx.get(served.url + "/readyz", timeout=10)
        assert gone.status_code == 503, gone.text
        assert gone.json() == {"status": "unavailable", "reason": "the index file is missing"}
        assert str(tmp_path) not in gone.text  # no paths to an unauthenticated caller
        assert httpx.get(served.url + "/healthz", timeout=10).status_code == 200  # alive all the same
    finally:
        moved.rename(index)
    assert httpx.get(served.url + "/readyz", timeout=10).status_code == 200
    engine = Docmentor(index, embeddings=False)
    token = create_token(engine, scope="read", name="only").token
    engine.close()
    assert served.post(LIST).status_code == 401  # the index holds a token now
    assert served.post(LIST, token).status_code == 200
    engine = Docmentor(index, embeddings=False)
    revoke_token(engine, "only")
    engine.close()
    # the last token revoked: the server does not fall open, it refuses everyone
    assert served.post(LIST).status_code == 401
    assert served.post(LIST, token).status_code == 401


def test_oauth_tokens_from_the_issuer(http_server: HttpServer, index: Path, serve: Any) -> None:  # noqa: F811
    issuer = Issuer(http_server)
    issuer.add_key("ec1", "ec")
    served = serve("--oauth-issuer", issuer.url, "--oauth-audience", AUDIENCE)
    resource = f"{served.url}/mcp"
    metadata_url = f"{served.url}/.well-known/oauth-protected-resource/mcp"
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        metadata = httpx.get(served.url + path, timeout=10)
        assert metadata.status_code == 200
        assert metadata.json() == {
            "resource": resource,
            "authorization_servers": [issuer.url],
            "scopes_supported": ["read", "write"],
            "bearer_methods_supported": ["header"],
            "resource_name": "docmentor",
        }
    missing = served.post(LIST)
    assert missing.status_code == 401
    assert _challenge(missing) == f'Bearer realm="docmentor", resource_metadata="{metadata_url}"'
    now = int(time.time())
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # a key nobody publishes
    refusals = {
        "expired": issuer.token(exp=now - 120, scope="write"),
        "wrong audience": issuer.token(aud="another-api", scope="write"),
        "wrong issuer": issuer.token(iss="https://evil.example/realms/docs", scope="write"),
        "bad signature": issuer.token(key=stranger, scope="write"),
        "malformed": "abc.def.ghi",
    }
    for why, token in refusals.items():
        refused = served.post(LIST, token)
        assert refused.status_code == 401, (why, refused.text)
        challenge = _challenge(refused)
        assert challenge.startswith('Bearer realm="docmentor", error="invalid_token"'), (why, challenge)
        assert challenge.endswith(f'resource_metadata="{metadata_url}"'), (why, challenge)
    reader, writer = issuer.token(scope="read"), issuer.token("ec1", scope="openid write")
    everything = served.tool_names(writer)
    assert served.tool_names(reader) == everything - WRITE_TOOLS
    refused = served.call("refresh_sources", reader)
    assert refused.status_code == 403
    assert _challenge(refused) == (
        'Bearer realm="docmentor", error="insufficient_scope", error_description="refresh_sources needs the '
        f'write scope", scope="write", resource_metadata="{metadata_url}"'
    )
    assert served.call("refresh_sources", writer).status_code == 200
    no_scope = served.post(LIST, issuer.token(scope="openid profile"))
    assert no_scope.status_code == 403 and 'error="insufficient_scope"' in _challenge(no_scope)
    assert 'scope="read"' in _challenge(no_scope)
    # stored tokens are accepted beside the issuer's
    engine = Docmentor(index, embeddings=False)
    stored = create_token(engine, scope="read").token
    engine.close()
    assert served.post(LIST, stored).status_code == 200


def test_an_unreachable_issuer_at_start_up_warns_and_its_tokens_get_503(
    http_server: HttpServer,  # noqa: F811
    serve: Any,
) -> None:
    issuer = Issuer(http_server)
    http_server.add("/realms/docs/certs", Reply(status=503))
    public = "https://docs.example.com/mcp"  # behind a reverse proxy
    served = serve("--oauth-issuer", issuer.url, "--oauth-audience", AUDIENCE, "--oauth-resource", public)
    assert f"docmentor: warning: cannot fetch the signing keys of {issuer.url} now" in served.log.read_text()
    waiting = served.post(LIST, issuer.token())
    assert waiting.status_code == 503 and waiting.headers["retry-after"] == "30"
    assert "cannot be fetched now" in waiting.json()["error_description"]
    # the resource is the public URL, wherever the request came from
    metadata = httpx.get(served.url + "/.well-known/oauth-protected-resource", timeout=10).json()
    assert metadata["resource"] == public and metadata["authorization_servers"] == [issuer.url]
    challenge = _challenge(served.post(LIST))
    assert challenge.endswith(
        'resource_metadata="https://docs.example.com/.well-known/oauth-protected-resource/mcp"'
    )
    assert httpx.get(served.url + "/readyz", timeout=10).status_code == 200  # the index is fine


def test_serve_refuses_auth_options_that_cannot_work(
    tmp_path: Path, index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from clitool import Cli

    cli = Cli(index, capsys)
    port = str(_free_port())
    for argv, message in (
        (("--oauth-issuer", "ftp://idp.example"), "error: --oauth-audience is missing"),
        (("--oauth-issuer", "ftp://idp.example", "--oauth-audience", "a"), "error: --oauth-issuer 'ftp://idp.example' is not an http(s) URL"),
        (("--oauth-issuer", "http://idp.example", "--oauth-audience", "a"), "error: --oauth-issuer 'http://idp.example': tokens and keys must come over https"),
        (("--oauth-audience", "a"), "error: --oauth-issuer is missing"),
        (("--oauth-jwks-url", "https://idp.example/certs"), "error: --oauth-jwks-url and --oauth-resource need --oauth-issuer"),
        (("--host", "0.0.0.0"), "error: refusing to serve on 0.0.0.0 without authentication"),
    ):  # fmt: skip
        rc, out, err = cli("serve", "--transport", "http", "--port", port, *argv)
        assert (rc, out) == (2, ""), (argv, err)
        assert err.startswith(message), (argv, err)
        assert "Traceback" not in err
    rc, _, err = cli("serve", "--oauth-issuer", "https://idp.example", "--oauth-audience", "a")
    assert rc == 2 and err.startswith("error: --oauth-issuer: only for --transport http"), err
    rc, _, err = cli("serve", "--transport", "http", "--host", "0.0.0.0", "--port", port)
    assert "docmentor token create --scope read" in err
    assert json.loads(cli.ok("token", "list", "--json")) == {"tokens": []}


def test_the_server_keeps_write_tools_from_a_read_caller_whatever_the_transport(index: Path) -> None:
    """Behind the HTTP 403, the MCP server itself hides and refuses write tools for a caller
    the transport authenticated with the read scope only (mcp_auth.ScopedTools)."""
    from mcp import MCPError
    from mcp.server.auth.middleware.auth_context import auth_context_var
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from mcp.server.auth.provider import AccessToken

    from docmentor.server import build_server

    engine = Docmentor(index, embeddings=False)
    server = build_server(engine)

    async def as_caller(scopes: list[str] | None) -> tuple[set[str], str]:
        user = (
            None
            if scopes is None
            else AuthenticatedUser(AccessToken(token="t", client_id="c", scopes=scopes))
        )
        reset = auth_context_var.set(user)
        try:
            async with Client(server) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                try:
                    await client.call_tool("refresh_sources", {})
                    outcome = "ran"
                except MCPError as exc:
                    outcome = exc.error.message
                return names, outcome
        finally:
            auth_context_var.reset(reset)

    everything, ran = anyio.run(as_caller, None)  # stdio, or HTTP without authentication
    assert everything >= WRITE_TOOLS and ran == "ran"
    assert anyio.run(as_caller, ["read", "write"]) == (everything, "ran")
    names, refused = anyio.run(as_caller, ["read"])
    assert names == everything - WRITE_TOOLS
    assert refused == "refresh_sources needs the write scope; this token has only read"
    engine.close()
