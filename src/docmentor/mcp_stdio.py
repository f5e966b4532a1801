"""MCP over stdio: the SDK's transport (``mcp.stdio_server``), with what it leaves out.

The SDK's transport serves stdin and stdout, whatever they are (pipes, files, a terminal,
one socket for both ends): while serving, fd 0 reads the null device and fd 1 writes to
stderr, so a stray ``print`` or a child process cannot corrupt the protocol; lines end at
``\\n``, ``\\r\\n`` or ``\\r``, have no length limit, and bytes that are not UTF-8 are
replaced; each reply is written whole, and the replies sent are written out before it
returns (a client that stops reading but keeps its end open holds the server until it goes:
the SDK's writes block). Two things it does not do are done here, around the streams it
gives the server (:class:`AnswerMalformed` and its :attr:`~AnswerMalformed.replies`):

- A line that is not one JSON-RPC message, which the SDK drops without a word, gets the
  JSON-RPC error, and the session goes on: -32700 for what is not JSON (or nests too deeply
  to read), -32600 for a batch, for JSON that is not a JSON-RPC message and for a message
  nested more than :data:`MAX_DEPTH` levels (with its id, when it has one). :func:`classify`
  decides, for HTTP bodies too (:mod:`docmentor.mcp_http`). Blank lines are skipped.
- At end of input the SDK's server cancels the requests still running; here the end reaches
  it only once every request read is answered (or cancelled by the client), within
  :data:`EOF_GRACE` seconds, so ``serve < requests.jsonl`` and a client that writes, closes
  stdin and then reads get every reply.

Until issue 20 pipes and files were served by the event loop itself (descriptors re-opened
through ``/proc/self/fd``): 0.3–0.5 ms a call faster, not something a user notices, so the
SDK's transport serves everything now (BENCHMARKS.md, "Hand-written fast paths").
"""

from __future__ import annotations

import contextvars
import json
from collections import Counter
from contextlib import suppress
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from pydantic import ValidationError

from docmentor.mcp_sdk import sender_context

__all__ = ["EOF_GRACE", "MAX_DEPTH", "AnswerMalformed", "classify"]

EOF_GRACE = 30.0  # seconds the requests read before end of input may take to be answered
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# Deeper messages are refused here: the SDK's parser (pydantic-core) stops at ~200 levels with
# the error it gives for what is not JSON, which would lose the request's id. No real MCP
# message comes close.
MAX_DEPTH = 128


def _error_reply(request_id: int | str | None, code: int, message: str) -> str:
    error = {"code": code, "message": message}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}, separators=(",", ":"))


def _is_id(value: object) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _invalid(message: Any, reason: str) -> str:
    """The -32600 reply to ``message``, with its id when it has one."""
    request_id = message.get("id") if isinstance(message, dict) and _is_id(message.get("id")) else None
    return _error_reply(request_id, INVALID_REQUEST, f"Invalid Request: {reason}")


def _is_message(message: dict[str, Any]) -> bool:
    """Whether a JSON object has the shape of a JSON-RPC 2.0 request, notification or response."""
    if message.get("jsonrpc") != "2.0":
        return False
    if "method" in message:
        return (
            isinstance(message["method"], str)
            and isinstance(message.get("params", {}), dict)
            and ("id" not in message or _is_id(message["id"]))
        )
    return "id" in message and ("result" in message) != ("error" in message)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether parsed JSON nests lists/objects more than ``limit`` levels (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def classify(line: str) -> tuple[Any, str | None]:
    """A line of input: the JSON-RPC message it holds, or (None, the error reply it gets)."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        return None, _error_reply(None, PARSE_ERROR, f"Parse error: the message is not JSON ({exc})")
    except RecursionError:
        reason = "the message nests arrays or objects too deeply to read"
        return None, _error_reply(None, PARSE_ERROR, f"Parse error: {reason}")
    if isinstance(message, list):
        return None, _invalid(None, "batches are not supported: send one JSON-RPC message at a time")
    if _deeper_than(message, MAX_DEPTH):
        reason = f"the message nests arrays or objects more than {MAX_DEPTH} levels deep"
        return None, _invalid(message, reason)
    if not isinstance(message, dict) or not _is_message(message):
        reason = 'not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a "method")'
        return None, _invalid(message, reason)
    return message, None


def _unread(exc: Exception) -> str | None:
    """The line behind the SDK's error for a line it could not read, or its JSON value
    re-encoded (the SDK passes a pydantic ``ValidationError``: its ``json_invalid`` error
    carries the line, the others the value parsed, whole at the union's level); None when
    the error says neither."""
    if not isinstance(exc, ValidationError):
        return None
    for error in exc.errors():
        value, loc = error.get("input"), error["loc"]
        if error["type"] == "json_invalid" and isinstance(value, str):
            return value
        if len(loc) <= 1 or (error["type"] == "missing" and len(loc) == 2):
            return json.dumps(value)
    return None


def _answer_to(exc: Exception) -> str | None:
    """The JSON-RPC error for what the SDK could not read, or None for a blank line."""
    text = _unread(exc)
    if text is not None and not text.strip():
        return None
    message, error = classify(text) if text is not None else (None, None)
    return error or _invalid(message, "not one JSON-RPC 2.0 message (batches are not supported)")


def _request_key(value: object) -> int | str | None:
    """A JSON-RPC id as the SDK correlates it ("7" and 7 are one id), or None for what is
    not an id."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    if isinstance(value, str):
        with suppress(ValueError):
            return int(value)
    return value


class _Pending:
    """Requests passed to the server and not answered yet, by id (counted: a file of
    requests may reuse one)."""

    def __init__(self) -> None:
        self.ids: Counter[int | str] = Counter()
        self._changed = anyio.Event()

    def read(self, message: object) -> None:
        if isinstance(message, JSONRPCRequest):
            if (key := _request_key(message.id)) is not None:
                self.ids[key] += 1
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            self.answered((message.params or {}).get("requestId"))  # no reply will come

    def answered(self, request_id: object) -> None:
        key = _request_key(request_id)
        if key is None or key not in self.ids:
            return
        self.ids[key] -= 1
        if self.ids[key] <= 0:
            del self.ids[key]
        self._changed.set()

    async def settled(self) -> None:
        """Return once every request is answered, or after :data:`EOF_GRACE` seconds."""
        with anyio.move_on_after(EOF_GRACE):
            while self.ids:
                self._changed = anyio.Event()
                await self._changed.wait()


class Replies:
    """The write stream the server gets: the SDK's, noting each request answered."""

    def __init__(self, write: Any, pending: _Pending) -> None:
        self._write = write
        self._pending = pending

    async def send(self, item: SessionMessage) -> None:
        await self._write.send(item)
        if isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self._pending.answered(item.message.id)

    async def aclose(self) -> None:
        await self._write.aclose()

    async def __aenter__(self) -> Replies:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class AnswerMalformed:
    """The read stream of the SDK's stdio transport, where a line the SDK could not read (an
    exception in the stream, which its server skips without a word) is answered with the
    JSON-RPC error instead (:func:`classify`), and the end of input is passed on once the
    requests read are answered. Give the server :attr:`replies` as its write stream."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write
        self._pending = _Pending()
        self.replies = Replies(write, self._pending)

    @property
    def last_context(self) -> contextvars.Context | None:  # passed on: see mcp_sdk.sender_context
        return sender_context(self._read)

    async def receive(self) -> Any:
        while True:
            try:
                item = await self._read.receive()
            except anyio.EndOfStream:
                await self._pending.settled()  # the server cancels what still runs at the end
                raise
            if not isinstance(item, Exception):
                self._pending.read(item.message)
                return item
            if (error := _answer_to(item)) is not None:
                await self._write.send(SessionMessage(JSONRPCError.model_validate_json(error)))

    async def aclose(self) -> None:
        await self._read.aclose()

    def __aiter__(self) -> AnswerMalformed:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnswerMalformed:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
