"""MCP over stdin/stdout, read and written by the event loop itself.

The SDK's stdio transport reads and writes through ``anyio.wrap_file``: every line read and
every reply written is handed to a worker thread and back. On this kind of machine a thread
that has slept for the length of a tool call takes long to wake, and a round trip wakes
four of them; served by the event loop, a request wakes only the loop. ``find_api`` round
trips, with find_api run in the loop too: 0.88–0.97× the previous code's in the same runs
(BENCHMARKS.md).

Measured against the SDK's transport over the same pipes (``.venv/bin/python
benchmarks/bench_stdio.py --rounds 300 --repeats 5``; one client, one request at a time; a
2-CPU machine shared with other work, load ~2.5; mcp 2.3.0), round trip median (90th
percentile): ``ping`` 0.57 ms (0.99) here against 0.89 ms (1.30) through the SDK's
transport; ``search_docs`` 4.3 ms (8.0) against 4.8 ms (7.0). That is 0.3–0.5 ms a call:
measurable, but small next to a model's turn. Same replies as the SDK's transport for one
scripted session (search, pages larger than a pipe's buffer, errors, resources):
``tests/test_stdio_pipes.py::test_the_event_loop_path_answers_as_the_sdks_transport_does``.

What is served this way: stdin and stdout that are each a pipe or a regular file (what MCP
clients and ``serve < requests.jsonl`` give). Pipes are re-opened through
``/proc/self/fd`` into descriptions of our own, so making them non-blocking never reaches
the client, a wrapper shell or a ``2>&1`` stderr — not even when the server is killed.
Terminals, sockets (one socket for both ends would look closed to asyncio's pipe
transport) and systems without ``/proc`` keep the SDK's transport.

Like the SDK's: fd 0 reads the null device and fd 1 writes to stderr while serving, so a
stray ``print`` or a child process cannot corrupt the protocol (restored on exit); lines
end at ``\\n``, ``\\r\\n`` or ``\\r`` and have no length limit; bytes that are not UTF-8 are
replaced. Unlike the SDK's: a line that is not JSON gets a JSON-RPC parse error (-32700),
and a batch (a JSON array) or JSON that is not a JSON-RPC message an invalid-request error
(-32600), and the session goes on (the SDK drops such lines without a word); at end of input, the requests already read are answered
before the session ends (within :data:`EOF_GRACE` seconds), and every reply is written out
in full before the server exits — unless, after the input ended, the client takes nothing
for :data:`FLUSH_TIMEOUT` seconds (it is gone then; the rest is dropped with a warning).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import os
import re
import stat
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any

__all__ = ["EOF_GRACE", "AnswerMalformed", "claimed_stdio", "classify", "kind", "pipe_streams", "servable"]

EOF_GRACE = 30.0  # seconds the requests read before end of input may take to be answered
FLUSH_TIMEOUT = 60.0  # after the input ended: seconds without a byte taken before the client counts as gone
CHUNK = 1 << 16
_log = logging.getLogger(__name__)
_ENDS = re.compile(rb"\r\n|\r|\n")
# the SDK writes {"jsonrpc":"2.0","id":ID,"result"|"error":...}: the id of a response, cheaply
_RESPONSE = re.compile(r'\{"jsonrpc":"2\.0","id":(-?\d+|"(?:[^"\\]|\\.)*"),"(?:result|error)"')


def kind(fd: int) -> str | None:
    """``"pipe"``, ``"file"`` or None (a terminal, a socket, closed, anything else)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode):
        return "pipe"
    if stat.S_ISREG(mode):
        return "file"
    return None


def servable() -> bool:
    """Whether stdin and stdout can be served by the loop (else: the SDK's transport)."""
    return (
        sys.platform == "linux"
        and kind(0) is not None
        and kind(1) is not None
        and os.path.isdir("/proc/self/fd")
    )


def _private(fd: int, flags: int) -> int:
    """A descriptor of our own for fd: a pipe re-opened (its own file description, made
    non-blocking without touching anyone else's), a regular file duplicated."""
    if kind(fd) == "pipe":
        return os.open(f"/proc/self/fd/{fd}", flags | os.O_NONBLOCK | os.O_CLOEXEC)
    return os.dup(fd)


@contextmanager
def claimed_stdio() -> Iterator[tuple[int, int]]:
    """Descriptors of our own for the protocol's input and output; meanwhile fd 0 reads the
    null device and fd 1 writes to stderr (Python's stdout flushed first); both restored.

    Raises:
        OSError: the descriptors cannot be re-opened (nothing is changed then).
    """
    opened: list[int] = []
    try:
        opened.append(_private(0, os.O_RDONLY))
        opened.append(_private(1, os.O_WRONLY))
        opened.append(os.dup(0))  # to restore fd 0 and 1 from
        opened.append(os.dup(1))
    except OSError:
        for fd in opened:
            os.close(fd)
        raise
    wire_in, wire_out, saved_in, saved_out = opened
    try:
        with suppress(Exception):
            sys.stdout.flush()
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
            os.dup2(2, 1)
        finally:
            os.close(null)
        yield wire_in, wire_out
    finally:
        with suppress(Exception):  # what a handler printed goes to stderr, not to the wire
            sys.stdout.flush()
        for saved, fd in ((saved_in, 0), (saved_out, 1)):
            with suppress(OSError):
                os.dup2(saved, fd)
            os.close(saved)
        for wire in (wire_in, wire_out):
            with suppress(OSError):
                os.close(wire)


def _request_key(value: object) -> int | str | None:
    """A JSON-RPC id as the SDK correlates it (an int, or a str; "7" and 7 are one id), or
    None for what the SDK would not take as an id (a float, a bool, null)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    if isinstance(value, str):
        with suppress(ValueError):
            return int(value)
    return value


PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _error_reply(request_id: int | str | None, code: int, message: str) -> str:
    error = {"code": code, "message": message}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}, separators=(",", ":"))


def _is_id(value: object) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


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


# Deeper messages are refused here: the SDK's parser (pydantic-core) stops at ~200 levels and
# its error would leave the request unanswered. No real MCP message comes close.
MAX_DEPTH = 128


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
        reason = "batches are not supported: send one JSON-RPC message at a time"
        return None, _error_reply(None, INVALID_REQUEST, f"Invalid Request: {reason}")
    if _deeper_than(message, MAX_DEPTH):
        request_id = message.get("id") if isinstance(message, dict) and _is_id(message.get("id")) else None
        reason = f"the message nests arrays or objects more than {MAX_DEPTH} levels deep"
        return None, _error_reply(request_id, INVALID_REQUEST, f"Invalid Request: {reason}")
    if not isinstance(message, dict) or not _is_message(message):
        request_id = message.get("id") if isinstance(message, dict) and _is_id(message.get("id")) else None
        reason = 'not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a "method")'
        return None, _error_reply(request_id, INVALID_REQUEST, f"Invalid Request: {reason}")
    return message, None


class AnswerMalformed:
    """The read stream of the SDK's stdio transport, where a line the SDK could not read (an
    exception in the stream, which its server skips without a word) is answered with the
    JSON-RPC error instead: -32700 for what is not JSON, -32600 for the rest (a batch, another
    shape). Used where the SDK reads stdin itself (a terminal, a socket: Node's child
    processes get socket pairs), and behind :class:`Lines` for what its check let through."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write

    @property
    def last_context(self) -> contextvars.Context | None:  # passed on: see mcp_sdk.sender_context
        from docmentor.mcp_sdk import sender_context

        return sender_context(self._read)

    async def receive(self) -> Any:
        from mcp.shared.message import SessionMessage
        from mcp_types import ErrorData, JSONRPCError
        from pydantic import ValidationError

        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            not_json = isinstance(item, ValidationError) and any(
                e["type"] == "json_invalid" for e in item.errors()
            )
            if not_json:
                error = ErrorData(code=PARSE_ERROR, message="Parse error: the message is not JSON")
            else:
                reason = "not one JSON-RPC 2.0 message (batches are not supported)"
                error = ErrorData(code=INVALID_REQUEST, message=f"Invalid Request: {reason}")
            await self._write.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error)))

    async def aclose(self) -> None:
        await self._read.aclose()

    def __aiter__(self) -> AnswerMalformed:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnswerMalformed:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _Pending:
    """Requests read and not answered yet (by JSON-RPC id, counted: a file of requests may
    reuse one), to answer them before the session ends. Only what the SDK accepts as a
    request counts: it never answers the rest."""

    def __init__(self) -> None:
        self.ids: Counter[int | str] = Counter()
        self.settled = asyncio.Event()
        self.settled.set()
        self.ended = asyncio.Event()  # the input ended and its requests are answered (or late)

    def read(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if not isinstance(method, str) or not isinstance(message.get("params", {}), dict | None):
            return
        if "id" in message:
            key = _request_key(message["id"])
            if key is not None:
                self.ids[key] += 1
                self.settled.clear()
        elif method == "notifications/cancelled":  # no reply will come
            params = message.get("params") or {}
            key = _request_key(params.get("requestId"))
            if key is not None:
                self._answered(key)

    def written(self, text: str) -> None:
        if not self.ids:
            return
        m = _RESPONSE.match(text)
        if m is not None:
            self._answered(_request_key(json.loads(m.group(1))))
            return
        with suppress(ValueError):  # another layout than the SDK's usual one
            message = json.loads(text)
            if isinstance(message, dict) and "method" not in message and "id" in message:
                self._answered(_request_key(message["id"]))

    def _answered(self, key: int | str | None) -> None:
        if key is None or key not in self.ids:
            return
        self.ids[key] -= 1
        if self.ids[key] <= 0:
            del self.ids[key]
        if not self.ids:
            self.settled.set()


class Lines:
    """The ``async for line in stdin`` side of the SDK's transport. A malformed line is
    answered here (through ``replies``) and not passed on."""

    def __init__(self, source: asyncio.StreamReader | int, pending: _Pending, replies: Replies) -> None:
        self._source = source  # a pipe's reader, or a regular file's descriptor
        self._pending = pending
        self._replies = replies

    async def _accept(self, raw: bytes) -> str | None:
        """The line for the SDK, or None once a malformed one is answered."""
        line = raw.decode("utf-8", errors="replace")
        message, error = classify(line)
        if error is not None:
            await self._replies.write(error + "\n")
            await self._replies.flush()
            return None
        self._pending.read(message)
        return line

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _chunk(self) -> bytes:
        if isinstance(self._source, int):
            await asyncio.sleep(0)  # a file never blocks; let the session run between chunks
            return os.read(self._source, CHUNK)
        return await self._source.read(CHUNK)

    async def _lines(self) -> AsyncIterator[str]:
        buffer = bytearray()
        scanned = 0  # where to look for the next line end (a long line is scanned once)
        while True:
            chunk = await self._chunk()
            buffer += chunk
            start, pos = 0, scanned
            while (m := _ENDS.search(buffer, pos)) is not None:
                if m.end() == len(buffer) and m.group() == b"\r" and chunk:
                    break  # maybe the first half of \r\n: look again with the next chunk
                line = bytes(buffer[start : m.start()])
                start = pos = m.end()
                if line.strip() and (text := await self._accept(line)) is not None:
                    yield text
            del buffer[:start]
            scanned = max(0, len(buffer) - 1)
            if not chunk:
                if buffer.strip() and (text := await self._accept(bytes(buffer))) is not None:
                    yield text  # a last line without its end
                with suppress(TimeoutError):  # answer what was asked before the input ended
                    await asyncio.wait_for(self._pending.settled.wait(), EOF_GRACE)
                self._pending.ended.set()
                return


class Replies:
    """The ``await stdout.write(...); await stdout.flush()`` side: ``flush`` returns once the
    whole reply is out (in the pipe, or in the file)."""

    def __init__(self, sink: asyncio.StreamWriter | int, pending: _Pending) -> None:
        self._sink = sink  # a pipe's writer, or a regular file's descriptor
        self._pending = pending

    async def write(self, text: str) -> None:
        data = text.encode("utf-8")
        if isinstance(self._sink, int):
            view = memoryview(data)
            while view:
                view = view[os.write(self._sink, view) :]
        else:
            self._check()
            self._sink.write(data)
        self._pending.written(text)

    def _check(self) -> None:
        """asyncio's pipe transport drops writes silently once the reader is gone: say so."""
        assert not isinstance(self._sink, int)
        if self._sink.transport.is_closing():
            raise BrokenPipeError("the client closed its end of the replies")

    async def flush(self) -> None:
        """Wait until the pipe took every byte. Once the input has ended, a client that
        takes nothing for FLUSH_TIMEOUT seconds is gone: the rest is dropped, with a warning
        (a slow reader still gets everything)."""
        if isinstance(self._sink, int):
            return
        self._check()
        transport = self._sink.transport
        if not transport.get_write_buffer_size():
            return  # all written at once (a reply smaller than the pipe's free space)
        drained = asyncio.ensure_future(self._sink.drain())
        ended = asyncio.ensure_future(self._pending.ended.wait())
        try:
            await asyncio.wait({drained, ended}, return_when=asyncio.FIRST_COMPLETED)
            left = transport.get_write_buffer_size()
            while not drained.done():
                await asyncio.wait({drained}, timeout=FLUSH_TIMEOUT)
                now = transport.get_write_buffer_size()
                if not drained.done() and now >= left:  # nothing taken meanwhile
                    _log.warning("the client reads no more: %d bytes of a reply dropped", now)
                    transport.abort()
                    raise BrokenPipeError("the client reads no more replies")
                left = now
            drained.result()
        finally:
            for task in (drained, ended):
                task.cancel()


@asynccontextmanager
async def pipe_streams(wire_in: int, wire_out: int) -> AsyncIterator[tuple[Lines, Replies]]:
    """Stream objects for the SDK's ``stdio_server(stdin=, stdout=)`` over the descriptors of
    :func:`claimed_stdio` (closed by it; the transports here use duplicates)."""
    loop = asyncio.get_running_loop()
    pending = _Pending()
    transports: list[asyncio.BaseTransport] = []
    try:
        source: asyncio.StreamReader | int = wire_in
        if kind(wire_in) == "pipe":
            source = asyncio.StreamReader(loop=loop)
            reader = source
            read_transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(os.dup(wire_in), "rb", 0)
            )
            transports.append(read_transport)
        sink: asyncio.StreamWriter | int = wire_out
        if kind(wire_out) == "pipe":
            write_transport: Any
            write_transport, protocol = await loop.connect_write_pipe(
                lambda: asyncio.streams.FlowControlMixin(loop=loop), os.fdopen(os.dup(wire_out), "wb", 0)
            )
            transports.append(write_transport)
            write_transport.set_write_buffer_limits(high=0)  # drain() waits for every byte
            sink = asyncio.StreamWriter(write_transport, protocol, None, loop)
        replies = Replies(sink, pending)
        yield Lines(source, pending, replies), replies
        if isinstance(sink, asyncio.StreamWriter):  # the last replies leave before we close
            with suppress(TimeoutError, ConnectionError):
                await asyncio.wait_for(sink.drain(), FLUSH_TIMEOUT)
    finally:
        for transport in transports:
            transport.close()
        await asyncio.sleep(0)  # let the transports release their descriptors
