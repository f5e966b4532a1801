"""MCP over stdin/stdout pipes, served by the event loop itself.

The SDK's stdio transport reads and writes through ``anyio.wrap_file``: every line read and
every reply written is handed to a worker thread and back. On this kind of machine a thread
that has slept for the length of a tool call takes long to wake, and a round trip wakes
four of them; served by the event loop (``connect_read_pipe`` / ``connect_write_pipe``), a
request wakes only the loop. ``find_api`` round trips: ~0.5 ms less (BENCHMARKS.md).

Only pipes and sockets are served this way (what MCP clients give a server). A terminal
or a regular file falls back to the SDK's transport: the loop would set a terminal
non-blocking for the shell too, and cannot poll a file.

The descriptors are claimed as the SDK does: while serving, fd 0 reads the null device and
fd 1 writes to stderr, so a stray ``print`` or a child process cannot corrupt the protocol;
both are restored on exit. The SDK's ``stdio_server`` then runs its own reader and writer
tasks over our two streams.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

MAX_LINE = 64 * 1024 * 1024  # one JSON-RPC message; the SDK's transport has no limit either


def pipes_usable(*fds: int) -> bool:
    """Whether every descriptor is a pipe or a socket (else: the SDK's transport)."""
    if sys.platform == "win32":
        return False
    try:
        return all(stat.S_ISFIFO(m) or stat.S_ISSOCK(m) for m in (os.fstat(fd).st_mode for fd in fds))
    except OSError:
        return False


@contextmanager
def claimed_stdio() -> Iterator[tuple[int, int]]:
    """Private duplicates of fd 0 and 1 for the protocol; fd 0 → /dev/null, fd 1 → stderr
    meanwhile (flushing Python's own stdout first), restored afterwards."""
    sys.stdout.flush()
    wire_in = os.dup(0)  # not inherited by children; above 2, as 0-2 are open
    wire_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        yield wire_in, wire_out
    finally:
        for wire, fd in ((wire_in, 0), (wire_out, 1)):
            os.set_blocking(wire, True)  # the loop made the shared file description non-blocking
            os.dup2(wire, fd)
            os.close(wire)


class PipeLines:
    """Text lines from a pipe, read by the event loop (the ``async for line in stdin`` side
    of the SDK's transport)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            line = await self._reader.readline()
            if not line:
                return
            yield line.decode("utf-8", errors="replace")


class PipeWriter:
    """Text written to a pipe by the event loop: ``write`` sends at once when the pipe has
    room (else the rest is buffered), ``flush`` waits until the pipe took it all."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


@asynccontextmanager
async def pipe_streams(wire_in: int, wire_out: int) -> AsyncIterator[tuple[PipeLines, PipeWriter]]:
    """Stream objects for the SDK's ``stdio_server(stdin=, stdout=)`` over duplicates of two
    descriptors (the duplicates are closed on exit, the descriptors stay open)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE, loop=loop)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(os.dup(wire_in), "rb", 0)
    )
    write_transport: Any
    try:
        write_transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.streams.FlowControlMixin(loop=loop), os.fdopen(os.dup(wire_out), "wb", 0)
        )
    except BaseException:
        read_transport.close()
        raise
    try:
        yield PipeLines(reader), PipeWriter(asyncio.StreamWriter(write_transport, protocol, None, loop))
    finally:
        read_transport.close()
        write_transport.close()
