"""`docmentor serve`: run the MCP server over stdio or streamable HTTP."""

from __future__ import annotations

from typing import Annotated

import typer

from docmentor.cli.app import STATE, _db_path
from docmentor.errors import UsageError


# Registered on `app` in `docmentor.cli.__init__`, after `assemble`, to keep the --help order.
def serve(
    transport: Annotated[
        str, typer.Option("--transport", "-t", help="stdio or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[str, typer.Option("--host", help="HTTP host.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port.")] = 8765,
    tools: Annotated[
        str, typer.Option("--tools", help="Tool groups to expose (docs, api, assemble, clarity, feedback).")
    ] = "docs,api,assemble,clarity,feedback",
    refresh_interval: Annotated[
        float,
        typer.Option(
            "--refresh-interval", help="Refresh all sources every N hours in the background (0 = off)."
        ),
    ] = 0.0,
) -> None:
    """Run the MCP server over stdio or streamable HTTP. Stdio suits Claude Code / Cursor; HTTP is stateless."""
    from docmentor.server import run_server

    if transport not in ("stdio", "http"):
        raise UsageError(f"unknown transport {transport!r}", hint="use stdio or http")
    groups = [t.strip() for t in tools.split(",") if t.strip()]
    run_server(
        db=_db_path(),
        transport=transport,
        host=host,
        port=port,
        tools=groups,
        refresh_interval_hours=refresh_interval,
        embeddings=STATE.embeddings,
    )
