"""A TCP relay to a server's address: a test stops it to stand for that server going down
(connections cut, new ones refused) and starts it again on the same port for its return."""

from __future__ import annotations

import socket
import threading
from typing import Any


class Relay:
    """127.0.0.1:``port`` → ``target`` (a Unix socket path, or a (host, port) pair)."""

    def __init__(self, target: str | tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> Relay:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def stop(self) -> None:
        """Refuse new connections and cut the open ones (the server went down)."""
        if self._listener is not None:
            try:  # wakes the thread blocked in accept(): close alone leaves the port listening
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        with self._lock:
            for s in self._open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            family = socket.AF_UNIX if isinstance(self.target, str) else socket.AF_INET
            upstream = socket.socket(family)
            try:
                upstream.connect(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def relayed_url(url: str, relay: Relay) -> str:
    """``url`` (a pgserver URL with ``host=/socket/dir``) through ``relay``."""
    base, _, query = url.partition("?")
    params = [p for p in query.split("&") if p and not p.startswith(("host=", "port="))]
    return f"{base}?{'&'.join(['host=127.0.0.1', f'port={relay.port}', *params])}"


def socket_path(url: str) -> str:
    """The Unix socket of a pgserver URL (``?host=DIR``, port 5432 unless given)."""
    query = dict(p.split("=", 1) for p in url.partition("?")[2].split("&") if "=" in p)
    return f"{query['host']}/.s.PGSQL.{query.get('port', '5432')}"


__all__: list[Any] = ["Relay", "relayed_url", "socket_path"]
