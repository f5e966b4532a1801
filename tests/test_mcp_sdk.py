"""The MCP SDK behaviour docmentor relies on beyond its public API (docmentor.mcp_sdk),
pinned against the installed SDK, and no SDK private access anywhere but that shim.

A failure here after an SDK upgrade names the behaviour that changed: adapt the shim's
function (and its docstring's version), not the callers."""

from __future__ import annotations

import ast
import contextvars
import inspect
import json
from collections.abc import AsyncIterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, stdio_server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.message import SessionMessage
from mcp_types import CallToolResult
from pydantic import ValidationError

from docmentor import mcp_sdk
from docmentor.mcp_stdio import AnswerMalformed

SRC = Path(__file__).resolve().parents[1] / "src" / "docmentor"
SDK = f"mcp {version('mcp')} (the shim was checked against {mcp_sdk.CHECKED_VERSION})"
# SDK internals without a leading underscore that only the shim may name
SDK_INTERNAL_NAMES = frozenset({"fn_metadata", "arg_model", "last_context"})


def _server() -> MCPServer:
    server: MCPServer = MCPServer(name="pin", version="0", instructions="first", log_level="WARNING")

    def add(a: int, b: int = 1) -> int:
        """Add."""
        return a + b

    server.add_tool(add)
    return server


def test_registered_tools_are_the_sdks_own_records() -> None:
    server = _server()
    tools = mcp_sdk.registered_tools(server)
    assert [t.name for t in tools] == ["add"], f"{SDK}: MCPServer._tool_manager.list_tools() changed"
    (add,) = tools
    assert hasattr(add.fn_metadata, "arg_model") and isinstance(add.parameters, dict), (
        f"{SDK}: a registered Tool no longer has fn_metadata.arg_model and parameters"
    )


def test_forbidding_extra_arguments_reaches_the_call_and_the_advertised_schema() -> None:
    server = _server()
    mcp_sdk.forbid_extra_arguments(server)

    async def check() -> None:
        (listed,) = await server.list_tools()
        assert listed.input_schema.get("additionalProperties") is False, (
            f"{SDK}: list_tools no longer advertises Tool.parameters"
        )
        result = await server.call_tool("add", {"a": 2})
        assert (
            isinstance(result, CallToolResult)
            and not result.is_error
            and result.structured_content == {"result": 3}
        ), result
        with pytest.raises(ToolError) as caught:
            await server.call_tool("add", {"a": 2, "c": 5})
        text = str(caught.value)
        assert text.startswith("Error executing tool add: ") and "c" in text and "xtra" in text, (
            f"{SDK}: a replaced fn_metadata.arg_model no longer validates the call ({text!r})"
        )

    anyio.run(check)


def test_new_instructions_reach_new_sessions() -> None:
    server = _server()
    mcp_sdk.set_instructions(server, "second")

    async def check() -> str | None:
        async with Client(server) as client:
            return client.instructions

    assert server.instructions == "second"
    assert anyio.run(check) == "second", f"{SDK}: Server.instructions is no longer read per session"


class _Lines:
    """stdin for stdio_server: the given lines, then end of input once ``done`` is set."""

    def __init__(self, lines: list[str], done: anyio.Event) -> None:
        self.lines, self.done = lines, done

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        for line in self.lines:
            yield line + "\n"
        await self.done.wait()


class _Replies:
    """stdout for stdio_server: nothing is written in these tests."""

    async def write(self, text: str) -> None:
        raise AssertionError(f"nothing to write: {text}")

    async def flush(self) -> None:
        pass


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


def test_unreadable_lines_come_as_exceptions_and_messages_with_their_senders_context() -> None:
    """What mcp_stdio.AnswerMalformed relies on: stdio_server passes a line it cannot
    parse on as the exception (ValidationError json_invalid carrying the line for what is
    not JSON, the parsed value for the rest), and its read stream carries the sender's
    context (passed on by the wrapper)."""

    async def read_all() -> list[Any]:
        done = anyio.Event()
        got: list[Any] = []
        lines = ["not json", json.dumps([INITIALIZE]), json.dumps(INITIALIZE)]
        with anyio.fail_after(30):
            async with stdio_server(_Lines(lines, done), _Replies()) as (read, write):  # type: ignore[arg-type]
                for _ in lines:
                    got.append(await read.receive())
                got.append(mcp_sdk.sender_context(read))
                got.append(AnswerMalformed(read, write).last_context)
                done.set()
                await write.aclose()  # the transport ends once both sides are done
            await read.aclose()
        return got

    not_json, batch, message, context, passed_on = anyio.run(read_all)
    assert isinstance(not_json, ValidationError) and any(
        e["type"] == "json_invalid" for e in not_json.errors()
    ), f"{SDK}: a line that is not JSON no longer comes as a json_invalid ValidationError ({not_json!r})"
    assert not_json.errors()[0]["input"] == "not json\n", f"{SDK}: json_invalid no longer carries the line"
    assert isinstance(batch, Exception), f"{SDK}: a batch line no longer comes as an exception ({batch!r})"
    assert isinstance(batch, ValidationError) and any(
        len(e["loc"]) <= 1 and e["input"] == [INITIALIZE] for e in batch.errors()
    ), f"{SDK}: a batch's error no longer carries the parsed value at the union's level ({batch!r})"
    assert isinstance(message, SessionMessage), message
    assert isinstance(context, contextvars.Context), f"{SDK}: the read stream no longer carries last_context"
    assert passed_on is context


def test_the_sdks_dispatcher_reads_the_senders_context_from_the_read_stream() -> None:
    """Why AnswerMalformed passes ``last_context`` on: the dispatcher looks it up duck-typed."""
    from mcp.shared import jsonrpc_dispatcher

    assert '"last_context"' in inspect.getsource(jsonrpc_dispatcher), (
        f"{SDK}: the dispatcher no longer reads last_context from the read stream"
    )


def _sdk_modules(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        if any(n.split(".")[0] in ("mcp", "mcp_types") for n in names):
            return True
    return False


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def sdk_private_access(path: Path) -> list[str]:
    """In a module that uses the SDK: private SDK modules or names imported, ``x._name`` on
    anything but ``self``/``cls`` (an SDK object's private attribute, or one injected into
    it), ``getattr``/``setattr``/``hasattr`` of a private name, and the SDK internals named
    in SDK_INTERNAL_NAMES."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not _sdk_modules(tree):
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("mcp", "mcp_types"):
            module = node.module or ""
            if any(_private(part) for part in module.split(".")):
                found.append(f"{where} imports the private module {module}")
            found += [f"{where} imports {module}.{a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Import):
            found += [
                f"{where} imports {a.name}"
                for a in node.names
                if a.name.split(".")[0] in ("mcp", "mcp_types")
                and any(_private(p) for p in a.name.split("."))
            ]
        elif isinstance(node, ast.Attribute):
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if (_private(node.attr) and not own) or node.attr in SDK_INTERNAL_NAMES:
                found.append(f"{where} uses .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and (_private(node.args[1].value) or node.args[1].value in SDK_INTERNAL_NAMES)
        ):
            found.append(f"{where} {node.func.id}(…, {node.args[1].value!r})")
    return found


def test_only_the_shim_touches_sdk_internals() -> None:
    modules = [p for p in sorted(SRC.rglob("*.py")) if p != SRC / "mcp_sdk.py"]
    found = [hit for p in modules for hit in sdk_private_access(p)]
    assert found == [], "SDK internals outside docmentor/mcp_sdk.py (move them there):\n" + "\n".join(found)


def test_the_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "from mcp.shared._context_streams import ContextReceiveStream\n"
        "def f(server: MCPServer, stream: object) -> None:\n"
        "    server._lowlevel_server.instructions = 'x'\n"
        "    server._state = 1\n"
        "    getattr(stream, 'last_context', None)\n"
        "    for t in server._tool_manager.list_tools():\n"
        "        t.fn_metadata.arg_model = None\n"
    )
    found = "\n".join(sdk_private_access(bad))
    for expected in (
        "private module mcp.shared._context_streams",
        "._lowlevel_server",
        "._state",
        "'last_context'",
        "._tool_manager",
        ".fn_metadata",
        ".arg_model",
    ):
        assert expected in found, (expected, found)
    assert sdk_private_access(SRC / "mcp_sdk.py"), "the shim is where they are"
