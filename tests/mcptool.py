"""Shared helpers for the tests that call docmentor's MCP tools through the official client
or over raw pipes."""

from __future__ import annotations

import json
import select
import subprocess
import time
from pathlib import Path
from typing import Any

from mcp_types import CallToolResult, TextContent

CLARITY_TOOLS = (
    "get_rubric",
    "calculate_clarity_score",
    "calculate_dimension_score",
    "get_improvement_roadmap",
    "explain_score",
    "score_document",
)


def structured(result: CallToolResult) -> Any:
    """The structured content, after checking the text mirror says the same."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    (text,) = result.content
    assert isinstance(text, TextContent)
    assert json.loads(text.text) == result.structured_content
    return result.structured_content


def tool_call(request_id: int, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """A raw JSON-RPC ``tools/call`` request."""
    params = {"name": name, "arguments": arguments or {}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def converse(
    command: list[str], messages: list[dict[str, Any]], *, env: dict[str, str], cwd: Path
) -> tuple[list[dict[str, Any]], str]:
    """Raw pipes: write every message to the server's stdin, read replies until each request
    has one, then close stdin (EOF ends the session: requests still running would be
    cancelled). Every line the server wrote, parsed (anything but JSON raises), and its
    stderr; the server must exit 0."""
    proc = subprocess.Popen(  # unbuffered: select() sees every line readline() has not taken yet
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        bufsize=0,
    )
    assert proc.stdin is not None and proc.stdout is not None
    pending = {m["id"] for m in messages if "id" in m}
    lines: list[str] = []
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while pending and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                line = proc.stdout.readline().decode()
                assert line, "the server closed stdout early"
                lines.append(line)
                pending.discard(json.loads(line).get("id"))
        rest, stderr = proc.communicate(timeout=30)  # closes stdin: the server exits
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert proc.returncode == 0, stderr.decode()
    lines += rest.decode().splitlines()
    return [json.loads(line) for line in lines], stderr.decode()
