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
        typer.Option("--host", help="HTTP host. Other than loopback only with --token-file or --insecure."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port.", min=1, max=65535)] = 8765,
    tools: Annotated[
        str,
        typer.Option(
            "--tools",
            help="Tool groups to expose (docs, api, assemble, clarity, feedback; repodocs: opt-in, "
            "with --allow-path).",
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
            help="HTTP: a file holding a bearer token every request must carry (Authorization: Bearer TOKEN).",
        ),
    ] = None,
    insecure: Annotated[
        bool,
        typer.Option("--insecure", help="HTTP: serve an address other machines reach without a token."),
    ] = False,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            help="HTTP: another Host header name clients use, NAME or NAME:PORT (repeatable).",
        ),
    ] = None,
) -> None:
    """Run the MCP server over stdio or HTTP.

    stdio for clients that start it (Claude Code, Cursor, VS Code); stateless streamable HTTP
    at /mcp otherwise. Over HTTP, an address other machines reach needs --token-file (or
    --insecure).
    """
    from docmentor.server import run_server

    groups = [t.strip() for t in tools.split(",") if t.strip()]
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
    )
