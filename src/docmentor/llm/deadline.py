"""The overall deadline of one chat request's attempt (connecting, sending, waiting, reading)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Mapping
from typing import Any


class Expired(Exception):
    """An attempt's overall deadline passed."""


class Watchdog:
    """The overall deadline of one attempt.

    httpx's timeouts bound each read, so a server sending a byte every few seconds is
    never cut off by them. A timer fires at the deadline and shuts the connection's socket
    down (the socket is handed over by httpcore's ``trace`` extension as it connects),
    which ends whatever read or write is blocked; ``check`` ends an attempt between reads.
    """

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.fired = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                with self._lock:
                    self._socket = sock
                    fired = self.fired
                if fired:
                    self._shutdown(sock)

    def check(self) -> None:
        if self.fired or time.monotonic() >= self.deadline:
            self.fired = True
            raise Expired

    def cancel(self) -> None:
        self._timer.cancel()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sock = self._socket
        if sock is not None:
            self._shutdown(sock)

    @staticmethod
    def _shutdown(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed
