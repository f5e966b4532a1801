"""`readme-llm generate --validate` runs documentation code: what that code can reach.

The example below tries three things a documentation example must not do: write a file
outside its temporary folder, connect to a port on 127.0.0.1 that the test opened, and
leave a child that called ``setsid`` sleeping after it ends. Where this machine allows the
sandbox (Linux with unprivileged user namespaces) none of them works; elsewhere the write
and the connection do, a warning says so, and the child is still killed.
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.library.examples import validate
from docmentor.library.examples.validate import Isolation, isolation, validate_examples
from docmentor.library.models import Example

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def hostile_example(outside: Path, port: int, tag: str) -> str:
    return textwrap.dedent(
        f"""
        import socket, subprocess, sys
        import evilpkg

        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(120)", {tag!r}], start_new_session=True
        )
        try:
            open({str(outside)!r}, "w").write("escaped")
            wrote = True
        except OSError:
            wrote = False
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"hello")
            connected = True
        except OSError:
            connected = False
        evilpkg.ping()
        sys.exit(f"wrote={{wrote}} connected={{connected}} child={{child.pid > 0}}")
        """
    ).lstrip()


class Listener:
    """A port on 127.0.0.1 that records whether anything connected."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]

    def connected(self) -> bool:
        try:
            conn, _ = self.sock.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True


@pytest.fixture
def listener() -> Iterator[Listener]:
    opened = Listener()
    yield opened
    opened.sock.close()


def alive(tag: str) -> list[int]:
    """Processes (not zombies) whose command line holds ``tag``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (
                tag.encode() in (proc / "cmdline").read_bytes()
                and "\nState:\tZ" not in (proc / "status").read_text()
            ):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def none_alive(tag: str, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while alive(tag):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def library(tmp_path: Path, code: str) -> tuple[Path, Path]:
    """A package ``evilpkg``, its docs holding ``code``, and a ``python`` that imports it."""
    lib = tmp_path / "lib"
    (lib / "evilpkg").mkdir(parents=True)
    (lib / "evilpkg" / "__init__.py").write_text(
        '"""A package whose docs misbehave."""\n\n__version__ = "0.1"\n\n\n'
        'def ping() -> str:\n    """Answer pong."""\n    return "pong"\n',
        encoding="utf-8",
    )
    docs = lib / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        f"# evilpkg\n\nCall `evilpkg.ping` to check it works:\n\n```python\n{code}```\n", encoding="utf-8"
    )
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{lib}" exec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    return docs, python


def test_generate_validate_confines_the_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], listener: Listener, caplog: pytest.LogCaptureFixture
) -> None:
    outside = tmp_path / "outside.txt"
    tag = f"docmentor-isolation-{uuid.uuid4().hex}"
    docs, python = library(tmp_path, hostile_example(outside, listener.port, tag))
    cli = Cli(tmp_path / "index", capsys)
    with caplog.at_level(logging.WARNING):
        rc, out, err = cli(
            "readme-llm", "generate", "--library", "evilpkg", "--docs-path", str(docs), "--python", str(python),
            "--out", str(tmp_path / "out"), "--validate", "--no-embeddings", "--json",
        )  # fmt: skip
    assert rc == 0, err
    result = json.loads(out)
    found = isolation()
    assert result["validation"]["isolation"] == found.describe()
    said = " ".join(result["warnings"])
    warnings = [r.getMessage() for r in caplog.records if r.name == "docmentor.library.examples.validate"]
    # the example ran (it failed on purpose, saying what it could do) and its child was started
    assert "child=True" in said, said
    assert none_alive(tag), "the example's setsid child outlived generate"
    if found.sandboxed:
        assert "wrote=False connected=False child=True" in said
        assert not outside.exists()
        assert not listener.connected()
        assert warnings == []
    else:  # this machine cannot sandbox: it must say so
        assert any("examples run without isolation" in w for w in warnings), warnings


@pytest.fixture
def unsandboxed(monkeypatch: pytest.MonkeyPatch) -> Isolation:
    """A machine without user namespaces (as some containers are): the fallback."""
    none = Isolation(False, "simulated: user namespaces are not allowed here")
    monkeypatch.setattr(validate, "_isolation", none)
    monkeypatch.setattr(validate, "_warned", False)
    return none


def example(code: str, example_id: str = "ex") -> Example:
    return Example(
        example_id=example_id, title=example_id, code=code, language="python", source="docs", path="g.md",
        line=1, complete=True,
    )  # fmt: skip


def test_without_a_sandbox_one_warning_says_so_and_leftovers_still_die(
    tmp_path: Path, listener: Listener, unsandboxed: Isolation, caplog: pytest.LogCaptureFixture
) -> None:
    outside = tmp_path / "outside.txt"
    tag = f"docmentor-isolation-{uuid.uuid4().hex}"
    code = (
        hostile_example(outside, listener.port, tag)
        .replace("import evilpkg\n", "")
        .replace("evilpkg.ping()\n", "")
    )
    with caplog.at_level(logging.WARNING):
        first = validate_examples([example(code, "a"), example(code, "b")], jobs=2)
        second = validate_examples([example(code, "c")], jobs=1)
    warnings = [r.getMessage() for r in caplog.records if r.name == "docmentor.library.examples.validate"]
    assert len(warnings) == 1, warnings  # once per process
    assert "examples run without isolation (simulated: user namespaces are not allowed here)" in warnings[0]
    assert first.to_dict()["isolation"].startswith("none (simulated")
    # honest about it: the example could write and connect ...
    assert (
        first.results[0].error is not None
        and "wrote=True connected=True child=True" in first.results[0].error
    )
    assert outside.exists() and listener.connected()
    # ... but what it left running in its own session is killed by the run's marker
    assert second.results[0].status == "failed"
    assert none_alive(tag), "a setsid child outlived validation"


def test_the_sandbox_kills_a_double_forked_daemon_on_timeout(tmp_path: Path) -> None:
    """A grandchild that left the process group (setsid + double fork) dies with a timed-out example."""
    tag = f"docmentor-isolation-{uuid.uuid4().hex}"
    code = textwrap.dedent(
        f"""
        import os, subprocess, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", {tag!r}])
                time.sleep(120)
            os._exit(0)
        time.sleep(120)
        """
    )
    started = time.monotonic()
    report = validate_examples([example(code)], timeout=1.5, jobs=1)
    assert report.results[0].error == "timed out after 1.5s"
    assert time.monotonic() - started < 10
    assert none_alive(tag)


def test_the_sandbox_lets_an_example_use_its_folder_and_its_own_loopback(tmp_path: Path) -> None:
    if not isolation().sandboxed:
        pytest.skip(f"no sandbox here: {isolation().detail}")
    code = textwrap.dedent(
        """
        import os, socket, subprocess, sys, tempfile
        from pathlib import Path
        Path("notes.txt").write_text("kept")
        with tempfile.NamedTemporaryFile(dir=None) as f:
            f.write(b"x")
        server = socket.create_server(("127.0.0.1", 0))
        client = socket.create_connection(server.getsockname(), timeout=2)
        conn, _ = server.accept()
        client.sendall(b"ping")
        assert conn.recv(4) == b"ping"
        subprocess.run([sys.executable, "-c", "print('child ok')"], check=True)
        """
    )
    report = validate_examples([example(code)], jobs=1)
    assert report.passed == 1, report.results
    assert report.isolation.startswith("sandboxed")


def test_an_example_killed_by_a_signal_reads_the_same_sandboxed_or_not(tmp_path: Path) -> None:
    """The example is not the sandbox's first process, so a signal it sends itself ends it."""
    code = "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\nprint('survived')\n"
    report = validate_examples([example(code)], jobs=1)
    assert report.results[0].exit_code == -15 and report.results[0].error == "exit code -15", report.results
