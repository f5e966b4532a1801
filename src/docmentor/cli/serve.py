"""`docmentor serve`: run the MCP server over stdio or streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import click
import typer

from docmentor.cli.app import STATE

TRANSPORTS = ("stdio", "http")


# Registered on `app` in `docmentor.cli.__init__`, after `assemble`, to keep the --help order.
def serve(
    transport: Annotated[
        str,
        typer.Option(
            "--transport",
            "-t",
            help="stdio, or http (streamable HTTP at /mcp).",
            click_type=click.Choice(TRANSPORTS),
        ),
    ] = "stdio",
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="HTTP host. Other than loopback only with authentication (stored tokens, --token-file, "
            "--oauth-issuer) or --insecure.",
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port.", min=1, max=65535)] = 8765,
    tools: Annotated[
        str,
        typer.Option(
            "--tools",
            help="Tool groups to expose (docs, api, assemble, clarity, feedback; opt-in: repodocs, "
            "with --allow-path, and jobs: queue_refresh, list_jobs for workers).",
        ),
    ] = "docs,api,assemble,clarity,feedback",
    refresh_interval: Annotated[
        float,
        typer.Option(
            "--refresh-interval",
            help="Refresh all sources every N hours in the background (0 = off).",
            min=0,
        ),
    ] = 0.0,
    allow_path: Annotated[
        list[Path] | None,
        typer.Option(
            "--allow-path",
            help="A folder whose files score_document may read besides the indexed documents (repeatable).",
            exists=True,
            file_okay=False,
            dir_okay=True,
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            help="HTTP: a file holding a bearer token with write scope (Authorization: Bearer TOKEN); "
            "tokens made by `docmentor token create` are accepted too.",
        ),
    ] = None,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure", help="HTTP: serve an address other machines reach without authentication."
        ),
    ] = False,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            help="HTTP: another Host header name clients use, NAME or NAME:PORT (repeatable); a NAME "
            "without a port is answered bare too, as a reverse proxy on 443 sends it.",
        ),
    ] = None,
    oauth_issuer: Annotated[
        str | None,
        typer.Option(
            "--oauth-issuer",
            help="HTTP: accept JWT access tokens from this OAuth issuer (its iss, e.g. "
            "https://idp.example.com/realms/docs); needs --oauth-audience.",
        ),
    ] = None,
    oauth_audience: Annotated[
        str | None,
        typer.Option("--oauth-audience", help="HTTP: the audience (aud) the issuer's tokens must name."),
    ] = None,
    oauth_jwks_url: Annotated[
        str | None,
        typer.Option(
            "--oauth-jwks-url",
            help="HTTP: the issuer's JWKS (default: jwks_uri of ISSUER/.well-known/openid-configuration, "
            "else ISSUER/.well-known/jwks.json).",
        ),
    ] = None,
    oauth_resource: Annotated[
        str | None,
        typer.Option(
            "--oauth-resource",
            help="HTTP: the URL clients reach /mcp at, for the protected-resource metadata "
            "(default: the URL of each request; set it behind a reverse proxy).",
        ),
    ] = None,
) -> None:
    """Run the MCP server over stdio or HTTP.

    stdio for clients that start it (Claude Code, Cursor, VS Code); stateless streamable HTTP
    at /mcp otherwise, with /healthz and /readyz for load balancers. Over HTTP, requests need
    a bearer token once the index holds one (`docmentor token create`), or with --token-file or
    --oauth-issuer; an address other machines reach needs one of them (or --insecure).
    """
    from docmentor.server import run_server

    groups = [t.strip() for t in tools.split(",") if t.strip()]
    if not groups:
        from docmentor import UsageError

        raise UsageError(
            "--tools names no tool group",
            hint="e.g. --tools docs,api (default: docs,api,assemble,clarity,feedback)",
        )
    oauth = None
    if oauth_issuer is not None or oauth_audience is not None:
        from docmentor import OAuthConfig, UsageError

        if oauth_issuer is None or oauth_audience is None:
            missing = "--oauth-audience" if oauth_issuer is not None else "--oauth-issuer"
            raise UsageError(
                f"{missing} is missing", hint="pass both --oauth-issuer URL and --oauth-audience AUD"
            )
        oauth = OAuthConfig(oauth_issuer, oauth_audience, jwks_url=oauth_jwks_url, resource=oauth_resource)
    elif oauth_jwks_url is not None or oauth_resource is not None:
        from docmentor import UsageError

        raise UsageError(
            "--oauth-jwks-url and --oauth-resource need --oauth-issuer",
            hint="pass --oauth-issuer URL --oauth-audience AUD",
        )
    run_server(
        db=STATE.db,
        transport=transport,
        host=host,
        port=port,
        tools=groups,
        refresh_interval_hours=refresh_interval,
        embeddings=STATE.embeddings,
        allow_paths=list(allow_path or []),
        token_file=token_file,
        insecure=insecure,
        allow_hosts=list(allow_host or []),
        oauth=oauth,
    )
