"""The one place docmentor reaches past the MCP SDK's public API.

Everything here relies on SDK internals (private attributes, objects the SDK keeps for
itself, duck-typed conventions between its own parts). No other module may touch them:
``tests/test_mcp_sdk.py`` checks that from the code, and pins each behaviour relied on
below directly against the installed SDK, so an upgrade that changes one fails there with
a message naming it. Checked against ``mcp`` :data:`CHECKED_VERSION` (and ``mcp_types``
of the same version).

What the public API covers is used through it elsewhere: ``MCPServer.add_tool``,
``server.middleware``, ``list_tools``, ``mcp.stdio_server()``, ``streamable_http_app``,
``TransportSecuritySettings``.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools.base import Tool

__all__ = [
    "CHECKED_VERSION",
    "forbid_extra_arguments",
    "registered_tools",
    "sender_context",
    "serve",
    "set_instructions",
]

CHECKED_VERSION = "2.3.0"


def registered_tools(server: MCPServer) -> list[Tool]:
    """The SDK's own records of the server's tools (``mcp.server.mcpserver.tools.base.Tool``),
    through ``MCPServer._tool_manager.list_tools()``. The public ``MCPServer.list_tools()``
    returns wire copies (``mcp_types.Tool``) that the SDK never reads back, so changing them
    changes nothing. Checked against mcp 2.3.0."""
    return server._tool_manager.list_tools()


def forbid_extra_arguments(server: MCPServer) -> None:
    """Make every registered tool reject an argument it does not take, in the call and in
    the advertised input schema (``additionalProperties: false``).

    Relies on (mcp 2.3.0): ``Tool.run`` validating each call's arguments with
    ``Tool.fn_metadata.arg_model.model_validate`` read at call time (so a replaced model
    applies), a validation failure becoming a tool error ``Error executing tool NAME: …``
    that names the extra field; and ``MCPServer.list_tools`` advertising ``Tool.parameters``
    as the input schema."""
    from pydantic import ConfigDict

    for registered in registered_tools(server):
        model = registered.fn_metadata.arg_model
        registered.fn_metadata.arg_model = type(
            model.__name__,
            (model,),
            {"model_config": ConfigDict(extra="forbid"), "__module__": model.__module__},
        )
        registered.parameters = {**registered.parameters, "additionalProperties": False}


def set_instructions(server: MCPServer, text: str) -> None:
    """Replace the instructions a new session receives. ``MCPServer.instructions`` is
    read-only; it reads the low-level ``Server.instructions`` (``MCPServer._lowlevel_server``),
    a plain attribute that ``create_initialization_options`` and the ``initialize`` answer read
    afresh for every session. Checked against mcp 2.3.0."""
    server._lowlevel_server.instructions = text


async def serve(server: MCPServer, read: Any, write: Any) -> None:
    """Serve one session over the given streams until the read side ends: what
    ``MCPServer.run_stdio_async`` does with ``stdio_server()``'s streams, but with streams
    of our choosing (``run_stdio_async`` takes none). Relies on ``MCPServer._lowlevel_server``
    and its public ``run(read, write, create_initialization_options())``. Checked against
    mcp 2.3.0."""
    low = server._lowlevel_server
    await low.run(read, write, low.create_initialization_options())


def sender_context(stream: Any) -> contextvars.Context | None:
    """The context the sender of the last received message ran in, as the SDK's read
    streams carry it (``last_context``, set by each ``receive``; the SDK's dispatcher reads
    it duck-typed with ``getattr`` to run the handler in it). A stream that wraps the SDK's
    must pass it on. Checked against mcp 2.3.0."""
    context = getattr(stream, "last_context", None)
    return context if isinstance(context, contextvars.Context) else None
