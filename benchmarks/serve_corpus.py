#!/usr/bin/env python3
"""Serve a documentation folder on loopback with a generated ``/llms.txt``.

The generated ``/llms.txt`` links every Markdown file of the folder, grouped in
H2 sections by top-level folder (files at the root go under ``## Overview``)::

    # <name>

    > Documentation of <name>, served from a local folder for benchmarking.

    ## docs

    - [Title](http://127.0.0.1:PORT/docs/src/search.md)

The title is the file's first H1 (outside front matter and code fences), or its
file name. Every other file of the folder is served as-is (Markdown as
``text/markdown``), so documents that include snippet files by path still work.

As a module::

    from serve_corpus import serve_corpus
    with serve_corpus("/path/to/docs") as base_url:
        ...  # f"{base_url}/llms.txt"

As a script::

    python benchmarks/serve_corpus.py /path/to/docs [--port 8000] [--name NAME]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote, unquote, urlsplit

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
ROOT_SECTION = "Overview"
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files(root: Path) -> list[Path]:
    """Every Markdown file under ``root`` (hidden folders skipped), sorted by relative path."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        found.extend(
            Path(dirpath, fn).relative_to(root) for fn in filenames if fn.lower().endswith(MARKDOWN_SUFFIXES)
        )
    return sorted(found, key=lambda p: p.as_posix())


def markdown_title(path: Path) -> str:
    """First H1 of the file, else its file name."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return path.name
    lines = text.splitlines()
    i = 0
    if lines and lines[0].strip() == "---":  # YAML front matter
        for j in range(1, len(lines)):
            if lines[j].strip() in ("---", "..."):
                i = j + 1
                break
    in_fence = False
    for line in lines[i:]:
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            m = _H1.match(line)
            if m and m.group(1).strip():
                return m.group(1).strip()
    return path.name


def _link_text(title: str) -> str:
    # Keep the Markdown link parseable by simple regex-based llms.txt readers.
    return re.sub(r"\s+", " ", title.replace("[", "(").replace("]", ")")).strip() or "untitled"


def build_llms_txt(root: Path, base_url: str, name: str | None = None) -> str:
    root = Path(root)
    name = name or root.resolve().name
    sections: dict[str, list[str]] = {}
    for rel in markdown_files(root):
        section = rel.parts[0] if len(rel.parts) > 1 else ROOT_SECTION
        url = f"{base_url}/{quote(rel.as_posix())}"
        sections.setdefault(section, []).append(f"- [{_link_text(markdown_title(root / rel))}]({url})")
    out = [f"# {name}", "", f"> Documentation of {name}, served from a local folder for benchmarking.", ""]
    order = ([ROOT_SECTION] if ROOT_SECTION in sections else []) + sorted(
        s for s in sections if s != ROOT_SECTION
    )
    for section in order:
        out += [f"## {section}", "", *sections[section], ""]
    return "\n".join(out)


class _Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real doc hosts do
    # Headers and body go out in separate writes; with Nagle on, a keep-alive client waits
    # for the peer's delayed ACK (~40 ms) on every request. Real servers set TCP_NODELAY.
    disable_nagle_algorithm = True
    llms_txt: bytes = b""
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".md": "text/markdown; charset=utf-8",
        ".markdown": "text/markdown; charset=utf-8",
        ".mdx": "text/markdown; charset=utf-8",
        ".txt": "text/plain; charset=utf-8",
        ".rst": "text/plain; charset=utf-8",
        ".py": "text/plain; charset=utf-8",
        ".ts": "text/plain; charset=utf-8",
        ".rs": "text/plain; charset=utf-8",
        ".yml": "text/plain; charset=utf-8",
        ".yaml": "text/plain; charset=utf-8",
    }

    def _send_llms(self, body: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(self.llms_txt)))
        self.end_headers()
        if body:
            self.wfile.write(self.llms_txt)

    def do_GET(self) -> None:
        if unquote(urlsplit(self.path).path) == "/llms.txt":
            return self._send_llms(True)
        return super().do_GET()

    def do_HEAD(self) -> None:
        if unquote(urlsplit(self.path).path) == "/llms.txt":
            return self._send_llms(False)
        return super().do_HEAD()

    def list_directory(self, path):  # no directory listings
        self.send_error(404, "Not found")
        return None

    def log_message(self, format: str, *args) -> None:  # quiet
        pass


class CorpusServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def make_server(root: str | os.PathLike, host: str = "127.0.0.1", port: int = 0, name: str | None = None):
    """Bind a server (not yet serving); returns (server, base_url)."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise NotADirectoryError(str(root))
    handler = type("CorpusHandler", (_Handler,), {})
    server = CorpusServer((host, port), functools.partial(handler, directory=str(root)))
    base_url = f"http://{host}:{server.server_address[1]}"
    handler.llms_txt = build_llms_txt(root, base_url, name).encode("utf-8")
    return server, base_url


@contextlib.contextmanager
def serve_corpus(
    root: str | os.PathLike, host: str = "127.0.0.1", port: int = 0, name: str | None = None
) -> Iterator[str]:
    """Serve ``root`` in a background thread; yields the base URL (no trailing slash)."""
    server, base_url = make_server(root, host, port, name)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="documentation folder to serve")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 = ephemeral (default)")
    ap.add_argument("--name", default=None, help="name in the llms.txt H1 (default: folder name)")
    ap.add_argument("--print-llms", action="store_true", help="print the generated llms.txt and exit")
    args = ap.parse_args(argv)
    server, base_url = make_server(args.folder, args.host, args.port, args.name)
    if args.print_llms:
        sys.stdout.write(server.RequestHandlerClass.func.llms_txt.decode())  # type: ignore[attr-defined]
        server.server_close()
        return 0
    print(f"{base_url}/llms.txt", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
