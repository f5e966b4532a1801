"""Run the complete Python examples of the docs and record which ones work.

Each example runs as its own program (``python example.py``) with the target
interpreter — the user's environment, where the library is installed — in a fresh
temporary folder that is also its ``HOME`` and ``TMPDIR``, with stdin closed, a minimal
environment and a timeout after which its whole process group is killed. The outcome
goes into ``Example.validated`` and ``Example.execution_context``; a failing, crashing
or hanging example is a result, never an exception.

Documentation code is not trusted. Where the machine allows it (Linux with unprivileged
user namespaces, probed once per process: ``isolation()``), each example runs in a sandbox
(``validate_sandbox.py``): no network (its own loopback only), the whole filesystem
read-only but its temporary folder, and its own PID namespace, so every process it starts
— children that called ``setsid`` too — dies with it. Elsewhere it runs with the user's
rights, and one warning per process says so. In both cases every run carries a unique
environment marker, and processes that carry it are killed when the example ends (a scan
of ``/proc`` on Linux), besides the example's process group.

A doctest session (``>>> import httpx``) runs as the program its prompts spell. An example
that fails only for want of what this machine lacks — the network, a module other than the
library's, a file the reader would have, a writable filesystem outside its folder — or that
still runs at the timeout while its code serves, listens or loops forever (a server, a
watcher) is not counted as broken: it is *not run
here*, with the reason (``skipped`` with an ``error``, ``validated`` left unset).
"""

from __future__ import annotations

import ast
import difflib
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from docmentor.clarity.checks.python import (
    SESSION_PROMPT,  # `>>> ` / `... `, as they read it
    parse_python,
    prepare,
)
from docmentor.errors import UsageError
from docmentor.library.examples.code_analysis import (
    leading_comments_blanked,
    python_free_names,
)
from docmentor.library.models import Example, ExecutionContext

logger = logging.getLogger(__name__)

__all__ = ["ExampleResult", "Isolation", "ValidationReport", "isolation", "validate_examples"]

Status = Literal["passed", "failed", "skipped"]

# Variables a program may need to start at all; everything else of ours stays out.
_KEPT_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT", "TZ")
_STDERR_TAIL = 64 * 1024
# also where a library wraps it (griffe: "ImportError: … accessing 'my_package' raises
# ModuleNotFoundError: No module named 'my_package'")
_MISSING_MODULE = re.compile(r"(?<![\w.])ModuleNotFoundError: No module named '([\w.]+)'")
# what a program's last line says when it could not reach another host: the exception's own
# class (``httpx.ConnectError: …``), not one that merely ends so (``LanceConnectionError``)
_NO_NETWORK = re.compile(
    r"^(?:[\w.]*\.)?(?:ConnectError|ConnectTimeout|ConnectionRefusedError|ConnectionError|gaierror"
    r"|NameResolutionError|NewConnectionError|MaxRetryError|URLError|APIConnectionError"
    r"|ClientConnectorError)(?::|\s|$)"
    r"|^OSError: \[Errno (?:101|113|-2|-3|-5)\]"  # network unreachable, no route, name lookup
)
# a file or folder the example expects on the reader's machine (`/some/path/somewhere`, a
# Unix socket no server made here)
_NO_FILE = re.compile(r"^(?:FileNotFoundError|NotADirectoryError)(?::|\s|$)")
# a write outside its folder (`/tmp/data`), which the sandbox keeps read-only
_READ_ONLY = re.compile(r"^(?:[\w.]*\.)?(?:OSError|PermissionError): \[Errno 30\]")
_TIMED_OUT = "timed out after "
# a command-line program run with no arguments: exit status 2 is a usage error (argparse,
# click, typer; an uncaught exception exits with 1), "Error: Missing command."
_USAGE_ERROR = re.compile(r"\(exit code 2\)$")
# a prompt that met the end of input (there is none here): click's "Aborted!", input()'s EOFError
_NO_INPUT = re.compile(r"(?:^EOFError\b.*|Aborted!) \(exit code 1\)$")
# code that runs until it is stopped: a server, a listener, a watcher, a signal handler, a loop
# forever (linear: each alternative is a word's run of characters from a word boundary)
_RUNS_UNTIL_STOPPED = re.compile(
    r"\b(?:serve\w*|\w*forever\w*|\w*until_stopped\w*|listen\w*|accept|wait_closed|run_app|mainloop"
    r"|uvicorn|hypercorn|open_signal_receiver|watch\w*|subscribe\w*|\w*_listener|\w*[Ss]erver\w*)\b"
    r"|\bapp\.run\(|\bwhile\s+(?:True|1)\s*:"
)
# a library saying an optional dependency is missing: "… is not available. Install it with: pip install anyio[trio]"
_OPTIONAL_PACKAGE = re.compile(r"[Ii]nstall it with:? *`?pip install|^ImportError: .*pip install \S+\[")
# every process of one run carries this variable (with the run's id) in its environment
_RUN_MARKER = "DOCMENTOR_VALIDATE_RUN"
_SANDBOX = Path(__file__).with_name("validate_sandbox.py")
_SANDBOX_FAILED = 125  # validate_sandbox.py's exit status when it could not set up


@dataclass(frozen=True, slots=True)
class Isolation:
    """How examples run on this machine: ``sandboxed`` or with the user's rights."""

    sandboxed: bool
    detail: str  # what there is, or why there is none

    def describe(self) -> str:
        if self.sandboxed:
            return "sandboxed: no network, read-only filesystem but the example's folder, own PID namespace"
        return f"none ({self.detail}): examples run with your rights"


_isolation: Isolation | None = None
_isolation_lock = threading.Lock()
_warned = False

# run inside the sandbox by the probe: the example folder writable, its parent not, no interface but lo
_PROBE = """
import os, socket, sys
open("inside", "w").write("x")
try:
    open(os.path.join("..", "outside"), "w").write("x")
except OSError:
    pass
else:
    sys.exit("the filesystem outside the example's folder is writable")
names = sorted(name for _, name in socket.if_nameindex())
if names != ["lo"]:
    sys.exit(f"network interfaces besides loopback: {names}")
"""


def isolation() -> Isolation:
    """The isolation examples get here, probed once per process (a sandboxed no-op program)."""
    global _isolation
    with _isolation_lock:
        if _isolation is None:
            _isolation = _probe()
        return _isolation


def _probe() -> Isolation:
    if not sys.platform.startswith("linux"):
        return Isolation(False, f"the sandbox needs Linux namespaces; this is {sys.platform}")
    with tempfile.TemporaryDirectory(prefix="docmentor-probe-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        command = [*_sandboxed(work), sys.executable, "-I", "-S", "-c", _PROBE]
        try:
            done = subprocess.run(
                command, cwd=work, env=_base_env(work), stdin=subprocess.DEVNULL,
                capture_output=True, timeout=30, check=False,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as error:
            return Isolation(False, f"the sandbox did not start: {error}")
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = lines[-1].removeprefix("docmentor-sandbox: ") if lines else f"exit code {done.returncode}"
        if done.returncode != 0:
            return Isolation(False, f"the sandbox could not be set up: {why}")
        if not (work / "inside").is_file() or (Path(tmp) / "outside").exists():
            return Isolation(False, "the sandbox did not confine writes")
    return Isolation(True, "Linux user, mount, network, PID and IPC namespaces")


def _sandboxed(work: Path) -> list[str]:
    """The command prefix that runs a program in the sandbox with ``work`` writable."""
    return [sys.executable, "-I", "-S", str(_SANDBOX), str(work)]


def _warn_once(found: Isolation) -> None:
    global _warned
    with _isolation_lock:
        if _warned or found.sandboxed:
            return
        _warned = True
    logger.warning(
        "examples run without isolation (%s): an example can write outside its temporary folder "
        "and reach the network with your rights; the processes it leaves are killed when it ends",
        found.detail,
    )


@dataclass(frozen=True, slots=True)
class ExampleResult:
    """What happened to one example."""

    example_id: str
    status: Status
    error: str | None = None  # "ValueError: boom (exit code 1)", "timed out after 20s"
    exit_code: int | None = None
    duration: float = 0.0  # seconds
    # where it failed: the page line of the statement the traceback ends in (a docs example's),
    # else None; ``script_line`` is that line in the program that ran
    line: int | None = None
    script_line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "example_id": self.example_id,
            "status": self.status,
            "error": self.error,
            "exit_code": self.exit_code,
            "duration": round(self.duration, 3),
            "line": self.line,
        }


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """Counts and per-example results of one validation run."""

    python: str
    version: str | None
    results: tuple[ExampleResult, ...]
    isolation: str = ""  # Isolation.describe() of the run

    @property
    def passed(self) -> int:
        return sum(r.status == "passed" for r in self.results)

    @property
    def failed(self) -> int:
        return sum(r.status == "failed" for r in self.results)

    @property
    def skipped(self) -> int:
        return sum(r.status == "skipped" for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "python": self.python,
            "version": self.version,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "isolation": self.isolation,
            "results": [r.to_dict() for r in self.results],
        }


def validate_examples(
    examples: Sequence[Example],
    *,
    python: str | None = None,
    version: str | None = None,
    library: str | None = None,
    timeout: float = 20.0,
    jobs: int = 2,
    progress: Callable[[int, int], None] | None = None,
    setup: Mapping[str, str] | None = None,
    sessions: Mapping[str, str] | None = None,
    page_setup: Mapping[str, str] | None = None,
) -> ValidationReport:
    """Run each complete Python example and record whether it works.

    Only examples with ``complete`` set and language ``python`` run; the others are
    reported as skipped and keep ``validated = None``. A doctest session of a docstring runs as
    doctest runs it, in its module's namespace: ``setup`` (source file → the code that puts
    the module's names in scope, :func:`~docmentor.library.examples.docstring_examples.doctest_setup`)
    goes first; one that fails on a NameError runs again after ``sessions``' text for it (by
    id: the doctest sessions of the same docstring before it, which doctest runs in the same
    namespace). A docs page's doctest session runs so too, after ``page_setup``'s code for its
    page (the docs' path → what sphinx.ext.doctest runs first there: ``conf.py``'s
    ``doctest_global_setup`` and the page's ``testsetup`` blocks,
    :mod:`~docmentor.sources.sphinx_doctest`), and on a NameError again after the
    page's sessions before it (``sessions``; sphinx.ext.doctest runs a page's blocks in one
    namespace). A page's ``testcode`` and ``doctest`` blocks (``Example.doctest_group``) run
    as Sphinx runs them: after the page's set-up and after the blocks of their group before
    them on the page, each of those guarded so that one that fails leaves the names it bound
    and does not fail the rest. A run passes when the program exits
    with status 0 within ``timeout``. Each run sets ``example.validated`` and
    ``example.execution_context`` (``works_on_version``, ``validated_at``, ``error``).

    Args:
        examples: the examples, updated in place.
        python: the interpreter of the environment where the library is installed
            (a venv's ``bin/python``); this interpreter when None.
        version: the library version being validated, recorded as ``works_on_version``.
        library: its import name: a missing module other than it is this machine's lack.
        timeout: seconds one example may run before its process group is killed.
        jobs: how many examples run at the same time.
        progress: called with (examples done, all examples) as each one ends.

    Raises:
        UsageError: ``python`` is not an interpreter that exists, or an option is out of range.
    """
    # absolute: each example runs with its own temporary folder as the working directory
    interpreter = python or sys.executable
    interpreter = (
        os.path.abspath(interpreter) if os.sep in interpreter else shutil.which(interpreter) or interpreter
    )
    if not Path(interpreter).is_file() and shutil.which(interpreter) is None:
        raise UsageError(
            f"no Python interpreter at {interpreter}", hint="pass the path of a venv's bin/python"
        )
    if timeout <= 0 or jobs < 1:
        raise UsageError("timeout must be positive and jobs at least 1")
    today = datetime.now(UTC).date().isoformat()
    found = isolation()
    _warn_once(found)

    grouped = _group_chains(examples)

    def one(example: Example) -> ExampleResult:
        # a docstring's doctest session runs in its module's namespace, as doctest runs it;
        # its other blocks (``::``, directives) are programs only when complete
        first = ""
        by_page = setup if example.origin == "docstring" else page_setup if example.origin == "docs" else None
        in_group = example.origin == "docs" and example.doctest_group is not None
        if example.language == "python" and by_page and (in_group or prepare(example.code, "python")[2]):
            first = by_page.get(example.path, "")
        if in_group and grouped.get(example.example_id):
            first = f"{first}\n{grouped[example.example_id]}" if first else grouped[example.example_id]
        if not (example.complete or first) or example.language != "python":
            return ExampleResult(example.example_id, "skipped")
        exact = example.origin == "docstring"  # doctest's rule; a page's is sphinx.ext.doctest's
        source = runnable_source(example.code, setup=first, exact_errors=exact)
        if source is None:
            return ExampleResult(example.example_id, "skipped")
        result = _run_one(example.example_id, source, interpreter, timeout, sandboxed=found.sandboxed)
        earlier = (sessions or {}).get(example.example_id, "") if first else ""
        if earlier and result.status == "failed" and (result.error or "").startswith("NameError"):
            # a name an earlier session of its docstring binds (doctest runs them in one
            # namespace): run again after those sessions, as doctest would
            again = runnable_source(f"{earlier}\n{example.code}", setup=first, exact_errors=exact)
            if again is not None:
                result = _run_one(example.example_id, again, interpreter, timeout, sandboxed=found.sandboxed)
        if result.script_line is not None and example.origin == "docs" and not first:
            result = replace(result, line=_page_line(example, result.script_line))
        if (
            result.status == "failed"
            and not first
            and _fails_on_purpose(example, result.script_line, result.error or "")
        ):
            # `assert now == IsNow()  # this will fail!`: the docs show that failure
            result = ExampleResult(example.example_id, "passed", duration=result.duration)
        # a hang of code that should end (a deadlock, an event never set) has failed; a
        # server still serving at the timeout, or a demo that sleeps, is not run here
        hung = (result.error or "").startswith(_TIMED_OUT) and not (
            _RUNS_UNTIL_STOPPED.search(example.code) or _sleeps_in_a_loop(example.code)
        )
        reason = None
        if result.status == "failed":
            reason = (None if first else _readers_name(example.code, result.error)) or (
                None if hung else not_run_here(result.error, library)
            )
        if reason:
            result = ExampleResult(
                example.example_id,
                "skipped",
                error=reason,
                exit_code=result.exit_code,
                duration=result.duration,
            )
            example.validated = None
        else:
            example.validated = result.status == "passed"
        example.execution_context = ExecutionContext(
            works_on_version=version, validated_at=today, error=result.error
        )
        return result

    done = [0]
    lock = threading.Lock()

    def counted(example: Example) -> ExampleResult:
        result = one(example)
        if progress is not None:
            with lock:
                done[0] += 1
                progress(done[0], len(examples))
        return result

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = tuple(pool.map(counted, examples))
    report = ValidationReport(
        python=interpreter, version=version, results=results, isolation=found.describe()
    )
    logger.info(
        "validated %d examples: %d passed, %d failed",
        report.passed + report.failed,
        report.passed,
        report.failed,
    )
    return report


def _group_chains(examples: Sequence[Example]) -> dict[str, str]:
    """Per docs ``testcode``/``doctest`` block, the program of the blocks of its group before
    it on its page that bind a name it uses (sphinx.ext.doctest runs a group in one
    namespace), with those they use in turn, in page order. Each runs by ``exec`` in a
    ``try`` that swallows whatever it raises (an exception, a ``SystemExit``, a syntax this
    Python does not read): a block that fails still binds what it bound before failing, and
    the next ones run. A block with ``from __future__`` lines, or awaiting at the top level
    (run in a namespace of its own), binds nothing for the others."""
    chains: dict[str, str] = {}
    # (source, path, group) → the earlier blocks: (names they bind, names they use, program)
    earlier: dict[tuple[str, str, str], list[tuple[frozenset[str], frozenset[str], str]]] = {}
    grouped = [
        ex
        for ex in examples
        if ex.origin == "docs" and ex.doctest_group is not None and ex.language == "python"
    ]
    for ex in sorted(grouped, key=lambda ex: (ex.source, ex.path, ex.line)):
        before = earlier.setdefault((ex.source, ex.path, ex.doctest_group or ""), [])
        source = runnable_source(ex.code, checked=False)  # the names it binds are read from it
        binds, needs = _names_of(source or "")
        if before and needs:
            wanted, chosen = set(needs), []
            for their_binds, their_needs, program in reversed(before):
                if their_binds & wanted or "*" in their_binds:  # a star import binds what it binds
                    chosen.append(program)
                    wanted |= their_needs
            if chosen:
                chains[ex.example_id] = "\n".join(reversed(chosen))
        if source is None or "from __future__" in source or _awaits_at_top_level(source) or not binds:
            continue
        program = f"try:\n    exec(compile({source!r}, '<an earlier block>', 'exec'))\nexcept BaseException:\n    pass"
        before.append((binds, needs, program))
    return chains


def _names_of(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names a program binds at its top level and those it uses unbound (none when it
    does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset(), frozenset()
    binds: set[str] = set()
    for node in tree.body:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
                binds.add(sub.id)
            elif isinstance(sub, ast.Import | ast.ImportFrom):
                binds.update((a.asname or a.name).split(".")[0] for a in sub.names)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            binds.add(node.name)
    return frozenset(binds), frozenset(python_free_names(tree))


def runnable_source(
    code: str, *, setup: str = "", checked: bool = True, exact_errors: bool = False
) -> str | None:
    """The program an example spells: a doctest session's statements without their prompts
    and output, other code dedented; code that awaits at the top level (as an asyncio REPL
    or a notebook allows) run inside ``asyncio.run``; None when there is nothing to run (a
    template, a ``# doctest: +SKIP``). ``setup``: code run first (a docstring's module names).
    A session that shows output is checked as doctest checks it (:func:`_checked_session`;
    ``exact_errors``: an error's message too), unless ``checked`` is false (the plain
    statements, whose names other blocks read)."""
    source, offsets, session, skipped = prepare(code, "python")
    if skipped or not source.strip():
        return None
    checked_source = (
        _checked_session(code, offsets, exact_errors=exact_errors)
        if session and checked and not _awaits_at_top_level(source)
        else None
    )
    if checked_source is not None:
        source = checked_source
    elif session and _TRACEBACK in code:
        source = _expected_errors_caught(code) or source
    elif not session:
        source += _uncalled_tests(source)
    if setup:  # after the session's own ``from __future__`` lines, which must come first
        lines = source.split("\n")
        future = [line for line in lines if line.startswith("from __future__ import")]
        rest = [line for line in lines if not line.startswith("from __future__ import")]
        source = "\n".join([*future, setup, *rest])
    if _awaits_at_top_level(source):
        # compiled as a module that may await (as the asyncio REPL does) and run to its end:
        # no re-indenting, so strings, `global` and `from __future__` stay what they were
        return (
            "import ast as _ast, asyncio as _asyncio\n"
            f"_code = compile({source!r}, 'example.py', 'exec', flags=_ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)\n"
            "_result = eval(_code, {'__name__': '__main__'})\n"
            "if _asyncio.iscoroutine(_result):\n"
            "    _asyncio.run(_result)\n"
        )
    return source


_TRACEBACK = "Traceback (most recent call last):"

# run first by a checked session (:func:`_checked_session`): each statement as doctest runs it
# (compiled "single", its value displayed), the output compared with what the docs show under
# it; its lines padded so that a traceback names the statement's line of the plain program
_CHECKER = """import doctest as _docmentor_doctest
import re as _docmentor_re
import sys as _docmentor_sys
from io import StringIO as _DocmentorOutput

_docmentor_address = _docmentor_re.compile(r"0x[0-9a-fA-F]+")
_docmentor_shown = _DocmentorOutput()  # one for the session, as doctest's: `csv.writer(sys.stdout)` keeps it


def _docmentor_fail(line, said):
    exec(compile("\\n" * (line - 1) + "raise AssertionError(said)", "example.py", "exec"), {"said": said})


def _docmentor_shows(source, line, want, error, flags, message=None):
    shown, was = _docmentor_shown, _docmentor_sys.stdout
    shown.seek(0)
    shown.truncate()
    _docmentor_sys.stdout = shown
    try:
        exec(compile("\\n" * (line - 1) + source, "example.py", "single"), globals())
    except BaseException as raised:
        if error is None or type(raised).__name__ != error:
            raise
        if message is not None:
            import traceback

            got = traceback.format_exception_only(type(raised), raised)[-1]
            if not _docmentor_doctest.OutputChecker().check_output(message, got, flags):
                _docmentor_fail(line, "the example shows %r under line %d; it raised %r" % (message.strip(), line, got.strip()))
        return
    finally:
        _docmentor_sys.stdout = was
    if error is not None:
        _docmentor_fail(line, "the example shows %s raised by line %d; nothing was" % (error, line))
    got = shown.getvalue()
    same = _docmentor_doctest.OutputChecker().check_output
    if want and not same(_docmentor_address.sub("0x", want), _docmentor_address.sub("0x", got), flags):
        _docmentor_fail(line, "the example shows %r under line %d; it printed %r" % (want.strip(), line, got.strip()))
"""


def _checked_session(code: str, offsets: Sequence[int], *, exact_errors: bool = False) -> str | None:
    """A plain ``>>>`` session that shows output or an error, as a program that checks each
    statement's output as doctest does (``ELLIPSIS`` and ``NORMALIZE_WHITESPACE`` on, the
    statement's ``# doctest:`` options applied, memory addresses equal): a value or print the
    docs show wrongly fails the example (packaging's ``InvalidLicenseExpression`` message,
    boltons' Python 2 reprs `[u'a']`). A statement without output shown is not checked; one
    showing a traceback may raise that exception, by its class name (as
    :func:`_expected_errors_caught`), with ``exact_errors`` by its message too (as doctest
    runs a docstring; sphinx.ext.doctest ignores the detail by default). None when the
    session is not one doctest reads as ``prepare`` does, or shows nothing to check.
    ``offsets``: ``prepare``'s."""
    import doctest

    try:
        examples = doctest.DocTestParser().get_examples(textwrap.dedent(leading_comments_blanked(code)))
    except ValueError:  # inconsistent indentation, a prompt without its space
        return None
    if not any(ex.want or ex.exc_msg for ex in examples):
        return None
    calls: list[str] = []
    for ex in examples:
        if ex.options.get(doctest.SKIP):
            continue  # `# doctest: +SKIP`: doctest neither runs nor checks it
        if ex.lineno not in offsets:
            return None  # read otherwise than prepare reads it: the plain program
        error = None
        if ex.exc_msg is not None:
            error = ex.exc_msg.split(":", 1)[0].strip().rsplit(".", 1)[-1]
            if not error.isidentifier():
                return None
        flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        for flag, on in ex.options.items():
            flags = flags | flag if on else flags & ~flag
        line = list(offsets).index(ex.lineno) + 1
        want = "" if ex.exc_msg is not None else ex.want
        exact = ex.exc_msg if exact_errors and not ex.options.get(doctest.IGNORE_EXCEPTION_DETAIL) else None
        calls.append(f"_docmentor_shows({ex.source!r}, {line}, {want!r}, {error!r}, {flags}, {exact!r})")
    program = _CHECKER + "\n" + "\n".join(calls) + "\n"
    return program if parse_python(program)[0] is not None else None


def _expected_errors_caught(code: str) -> str | None:
    """A ``>>>`` session's program where each statement whose expected output is a
    traceback may raise that exception, by its class name, as doctest checks it: the error
    is what the example shows (attrs' "FrozenInstanceError: can't set attribute"); another
    one still fails it. None when the session is not one of plain ``>>>`` prompts."""
    statements: list[tuple[list[str], list[str]]] = []  # (code lines, output lines)
    for raw in textwrap.dedent(leading_comments_blanked(code)).split("\n"):
        line = raw.rstrip()
        m = SESSION_PROMPT.match(line)
        if m and m.group(1) == ">>>":
            statements.append(([line[4:]], []))
        elif m and statements and not statements[-1][1]:
            statements[-1][0].append(line[4:])
        elif statements and line.strip():
            statements[-1][1].append(line.strip())
        elif not statements and line.strip():
            return None  # code before the first prompt: not a plain session
    if not statements:
        return None
    out: list[str] = []
    for lines, output in statements:
        if output and output[0].startswith(_TRACEBACK):
            # the exception the example shows, by its class name as doctest compares it with
            # IGNORE_EXCEPTION_DETAIL (`attrs.exceptions.FrozenInstanceError: …` → FrozenInstanceError)
            name = output[-1].split(":", 1)[0].strip().rsplit(".", 1)[-1]
            if not name.isidentifier():
                return None
            out += [
                "try:",
                *("    " + ln for ln in lines),
                "except BaseException as _shown:",
                f"    if type(_shown).__name__ != {name!r}:",
                "        raise",
            ]
        else:
            out += lines
    program = "\n".join(out) + "\n"
    return program if parse_python(program)[0] is not None else None


def _uncalled_tests(source: str) -> str:
    """The calls pytest would make of a program's test functions: an example that defines
    ``def test_partial_dict(): assert …`` and never calls it passed without running a line of
    it (a dirty-equals tour). Top-level undecorated ``test*`` functions that take no argument
    a caller must give (not a fixture's) and that the program does not call itself; "" for
    none."""
    tree = parse_python(source)[0]
    if tree is None:
        return ""
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    names = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test")
        and not node.decorator_list  # a fixture, a skip or xfail mark, a command: not pytest's plain call
        and node.name not in called
        and not node.args.posonlyargs
        and len(node.args.args) == len(node.args.defaults)
        and all(d is not None for d in node.args.kw_defaults)
    ]
    return "".join(f"{name}()\n" for name in names)


def _awaits_at_top_level(source: str) -> bool:
    """Whether the code only compiles with ``await`` allowed outside a function."""
    try:
        compile(source, "<example>", "exec", dont_inherit=True)
    except SyntaxError:
        try:
            compile(source, "<example>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
        return True
    except ValueError:  # a NUL byte and the like
        return False
    return False


def _sleeps_in_a_loop(code: str) -> bool:
    """Whether the code sleeps inside a loop: a demo of something slow (rich's ``for i in
    track(range(20)): time.sleep(1)  # Simulate work``), still showing it at the timeout, not
    stuck. One long ``sleep(100)`` is no such demo."""
    if "sleep" not in code:
        return False
    source, _, _, skipped = prepare(code, "python", skip_marked=False)
    try:
        tree = ast.parse(source) if source and not skipped else None
    except (SyntaxError, ValueError):
        return False
    for loop in ast.walk(tree) if tree is not None else ():
        if isinstance(loop, ast.For | ast.AsyncFor | ast.While):
            for node in ast.walk(loop):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                    if name == "sleep":
                        return True
    return False


_NAME_ERROR = re.compile(r"^NameError: name '(\w+)' is not defined")


def _readers_name(code: str, error: str | None) -> str | None:
    """For a NameError on a name the example takes from the reader's own program (werkzeug's
    ``app = ProxyFix(app, x_for=1)``: the app the reader has), the reason it is not run here;
    None for any other failure, and for a misspelling of a name the example binds
    (``reponse`` for ``response``: a mistake of the docs)."""
    m = _NAME_ERROR.match(error or "")
    if m is None:
        return None
    name = m.group(1)
    source, _, _, skipped = prepare(code, "python", skip_marked=False)
    try:
        tree = ast.parse(source) if source and not skipped else None
    except (SyntaxError, ValueError):
        return None
    if tree is None:
        return None
    defined: set[str] = set()
    stored = False  # the example binds the name somewhere itself
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            if node.id == name:
                stored = True
            else:
                defined.add(node.id)
    if name in defined or difflib.get_close_matches(name, sorted(defined), n=1, cutoff=0.8):
        return None
    if stored and not _wraps_itself(tree, name):
        return None  # used before the example binds it (`print(total)`, then `total = 5`): its bug
    return f"{_READERS_OWN}{name!r}, which the reader's own program has ({error})"


def _wraps_itself(tree: ast.Module, name: str) -> bool:
    """Whether the module binds ``name`` first by a value that reads it (``app = ProxyFix(app)``:
    the reader's ``app``, wrapped)."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                value = stmt.value
                return value is not None and any(
                    isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                    for n in ast.walk(value)
                )
    return False


_READERS_OWN = "not run here: uses "


def not_run_here(error: str | None, library: str | None) -> str | None:
    """Why a failure is this machine's, not the example's: a module other than the library's
    is not installed, another host could not be reached, a file the reader would have is not
    here, a write outside the example's folder met the sandbox's read-only filesystem, the
    example still ran at the timeout (a server runs until it is stopped; the caller decides
    whether the code is one), it is a command-line program that stopped with a usage error
    (exit status 2: it needs arguments it was not given) or a prompt met the end of input.
    None: the example failed."""
    if not error:
        return None
    if _GROUP_LINE.match(error):  # an exception group (an anyio task group's): by its one error
        one = error.find(_ONE_SUB_EXCEPTION)
        return not_run_here(error[one + len(_ONE_SUB_EXCEPTION) :], library) if one > 0 else None
    missing = _MISSING_MODULE.search(error)
    if missing:
        top = missing.group(1).split(".")[0]
        own = (library or "").split(".")[0]
        # the library itself, or a misspelling of it (``import lancdb``): the example is wrong;
        # a name one is the start of the other (``lance`` for ``lancedb``) is another package
        a, b = top.lower(), own.lower()
        misspelt = (
            abs(len(a) - len(b)) <= 2
            and not (a.startswith(b) or b.startswith(a))
            and difflib.SequenceMatcher(None, a, b).ratio() >= 0.8
        )
        if own and (a == b or misspelt):
            return None
        return f"not run here: needs the module {missing.group(1)!r}, not installed ({error})"
    if _NO_NETWORK.match(error):
        return f"not run here: needs the network ({error})"
    if _OPTIONAL_PACKAGE.search(error):
        return f"not run here: needs a package this environment lacks ({error})"
    if _NO_FILE.match(error):
        return f"not run here: needs a file or folder this machine lacks ({error})"
    if _READ_ONLY.match(error):
        return f"not run here: writes outside its own folder, which the sandbox keeps read-only ({error})"
    if error.startswith(_TIMED_OUT):  # a server or a watcher runs until it is stopped
        return f"not run here: still running when stopped, as a server runs until it is ({error})"
    if error.startswith("docmentor-sandbox: "):
        return f"not run here: the sandbox could not be set up ({error})"
    if _USAGE_ERROR.search(error):
        return f"not run here: a command-line program that needs arguments, run without them ({error})"
    if _NO_INPUT.search(error):
        return f"not run here: waits for what a user types at a prompt ({error})"
    return None


def _base_env(work: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in _KEPT_ENV if k in os.environ}
    env.update(
        HOME=str(work),
        USERPROFILE=str(work),
        TMPDIR=str(work),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONIOENCODING="utf-8",
        PYTHONUNBUFFERED="1",
    )
    return env


def _run_one(
    example_id: str, source: str, python: str, timeout: float, *, sandboxed: bool = False
) -> ExampleResult:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="docmentor-validate-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        script = work / "example.py"
        script.write_text(source, encoding="utf-8")
        env = _base_env(work)
        run_id = uuid.uuid4().hex
        env[_RUN_MARKER] = run_id
        command = [python, script.name]
        if sandboxed:
            command = [*_sandboxed(work), *command]
        stderr_path = Path(tmp) / "stderr.txt"
        with stderr_path.open("wb") as stderr:
            try:
                proc = subprocess.Popen(
                    command,
                    cwd=work,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=stderr,
                    start_new_session=True,  # its own process group, killed as a whole
                )
            except OSError as error:
                return ExampleResult(example_id, "failed", error=f"could not start {python}: {error}")
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                proc.wait()
                return ExampleResult(
                    example_id,
                    "failed",
                    error=f"{_TIMED_OUT}{timeout:g}s",
                    duration=time.monotonic() - started,
                )
            finally:
                _kill_group(proc)  # whatever it left running in the background ...
                _kill_marked(run_id)  # ... in its process group or not (setsid, double fork)
        duration = time.monotonic() - started
        if sandboxed and 128 < code < 128 + 65:  # the launcher reports a signal as 128 + its number
            code = -(code - 128)  # as subprocess does without the sandbox
        if code == 0:
            return ExampleResult(example_id, "passed", exit_code=0, duration=duration)
        tail = _tail(stderr_path)
        last = _last_line(tail)
        if sandboxed and code == _SANDBOX_FAILED and last.startswith("docmentor-sandbox: "):
            return ExampleResult(example_id, "failed", error=last, exit_code=code, duration=duration)
        message = f"{last} (exit code {code})" if last else f"exit code {code}"
        return ExampleResult(
            example_id,
            "failed",
            error=message,
            exit_code=code,
            duration=duration,
            script_line=_script_line(tail),
        )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    if os.name != "posix":
        proc.kill()
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_marked(run_id: str) -> None:
    """Kill every process whose environment carries this run's marker (Linux: reads /proc).

    Stopped first, then killed, round after round until none is left, so a process that
    forks while it is being killed is caught in the next round. A process that cleared its
    environment before exec escapes this; the sandbox's PID namespace does not let it.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        return
    needle = f"\0{_RUN_MARKER}={run_id}\0".encode()
    me = os.getpid()
    for _ in range(50):
        marked: list[int] = []
        for entry in proc.iterdir():
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if needle in b"\0" + environ:
                marked.append(int(entry.name))
        if not marked:
            return
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in marked:
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
        time.sleep(0.01)
    logger.warning("processes of example run %s kept starting others; some may be left", run_id)


_FRAME = re.compile(r'File "[^"\n]*example\.py", line (\d+)')  # linear: no nested repetition


def _script_line(tail: str) -> int | None:
    """The line of ``example.py`` the traceback in ``tail`` ends in (its last frame there, or a
    SyntaxError's), or None."""
    found = _FRAME.findall(tail)
    return int(found[-1]) if found else None


_WILL_FAIL = re.compile(r"(?i)\b(?:will|should|must|would)\s+(?:fail|raise|error)|\bfails\b|\braises?\b")


def _fails_on_purpose(example: Example, script_line: int | None, error: str) -> bool:
    """Whether a program failed on a statement whose comment says it fails, with the error it
    names: ``assert now == IsNow()  # this will fail!`` (an AssertionError), ``f(1)  # raises
    TypeError``. A comment that only mentions errors (``# never raises an error``) is no such
    statement, and another error than the one named is a failure."""
    if script_line is None:
        return False
    _, offsets, _, _ = prepare(example.code, "python")
    if not offsets or not 1 <= script_line <= len(offsets):
        return False
    lines = example.code.split("\n")
    at = offsets[script_line - 1]
    if not 0 <= at < len(lines) or "#" not in lines[at]:
        return False
    comment = lines[at].split("#", 1)[1]
    if re.search(r"(?i)\b(?:never|not|no|doesn't|does not|won't)\b", comment) or not _WILL_FAIL.search(
        comment
    ):
        return False
    found = re.match(r"[\w.]+", error.strip())  # "AssertionError (exit code 1)", "TypeError: …"
    raised = found.group(0).rsplit(".", 1)[-1] if found else ""
    named = set(re.findall(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b", comment))
    return raised in named if named else raised == "AssertionError"


def _page_line(example: Example, script_line: int) -> int | None:
    """The page line of line ``script_line`` of the program a docs example ran as: its
    statements map back through the session's prompts or the dedent (``prepare``'s offsets);
    None for a program docmentor rewrote (top-level await, expected tracebacks)."""
    source, offsets, session, _ = prepare(example.code, "python")
    if not offsets or (session and _TRACEBACK in example.code) or _awaits_at_top_level(source):
        return None
    if not 1 <= script_line <= len(offsets):
        return None
    return example.page_line(offsets[script_line - 1])


def _tail(path: Path) -> str:
    """The end of a run's stderr (its last ``_STDERR_TAIL`` bytes): where the error is."""
    with path.open("rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - _STDERR_TAIL))
        return f.read().decode("utf-8", "replace")


# an exception group's traceback draws boxes: `+-+---- 1 ----`, `+------`, and `| ` before
# each line of the group and its sub-exceptions (linear: one character class)
_BOX_LINE = re.compile(r"[+\-| \d.]*")
_GROUP_LINE = re.compile(r"[\w.]+: .*\(\d+ sub-exceptions?\)")
_MORE_LINE = re.compile(r"and \d+ more exceptions?")
_ONE_SUB_EXCEPTION = " (1 sub-exception) — "  # how an error names a group's only error
_TRACEBACK_HEADERS = (
    "Traceback (most recent call last):",
    "Exception Group Traceback (most recent call last):",
)


def _last_line(tail: str) -> str:
    """The error a traceback ends with; when the last traceback is an exception group's
    (cattrs' ClassValidationError, an anyio task group's) the group's line and its last
    sub-exception's, not the box drawn around them."""
    raw = tail.splitlines()
    # the last traceback of the program's own: not a sub-exception's inside a group's box (`| …`)
    start = max(
        (i for i, line in enumerate(raw) if line.strip().removeprefix("+ ").startswith(_TRACEBACK_HEADERS)),
        default=-1,
    )
    grouped = start >= 0 and "Exception Group Traceback" in raw[start]
    lines = []
    for text in raw[start:] if grouped else raw:
        line = text.strip()
        if grouped:
            while line.startswith("| ") or line == "|":
                line = line[2:].strip()
            if _BOX_LINE.fullmatch(line) or _MORE_LINE.fullmatch(line):
                continue
        if line:
            lines.append(line)
    if not lines:
        return ""
    last = lines[-1]
    group = next((line for line in lines if _GROUP_LINE.fullmatch(line)), None) if grouped else None
    return (f"{group} — {last}" if group is not None and group != last else last)[:500]
