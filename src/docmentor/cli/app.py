"""The shared typer app: global options, the index helpers every command uses, and `main()`."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

from docmentor import DocmentorError, UsageError, __version__
from docmentor.cli.lazy import LazyGroup, click_group

if TYPE_CHECKING:
    from docmentor import Docmentor


app = typer.Typer(
    name="docmentor",
    help="Index documentation, search it by section, and serve it to AI coding agents over MCP.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=LazyGroup,  # `main` builds only the command it runs (docmentor.cli.lazy)
    suggest_commands=False,  # click suggests close names itself: typer's said them twice
)


class State:
    db: str | None = None  # as given: a URL must reach the library's check unchanged
    debug: bool = False
    embeddings: bool | None = None  # --no-embeddings: False; None: the environment or config decides
    # Set by a command whose work is committed and whose index is closed: the `docmentor`
    # process may then end without the interpreter's teardown (see `main`).
    finished: bool = False
    # Every engine a command opened: closed when the command ends, however it ends (an index
    # in PostgreSQL holds connections until then).
    engines: list[Docmentor]

    def __init__(self) -> None:
        self.engines = []


STATE = State()

# The --version of reads that pick one version of a library (search, assemble; api find /
# examples / overview): one spelling for every command.
DocsVersion = Annotated[
    str | None,
    typer.Option(
        "--version",
        help="Only this version of the library (default: the one your project pins, else the newest).",
    ),
]
KbVersion = Annotated[
    str | None,
    typer.Option(
        "--version",
        help="That version's knowledge base (default: the one your project pins, else the newest).",
    ),
]


def _version(value: bool) -> None:
    if value:
        print(f"docmentor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="Index folder (env DOCMENTOR_DB, or `db` in docmentor.toml; default DOCMENTOR_HOME, "
            "else ~/.docmentor).",
            show_default=False,
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks and debug logs.")] = False,
    no_embeddings: Annotated[
        bool,
        typer.Option(
            "--no-embeddings",
            help="Search by words only, and embed nothing (env DOCMENTOR_EMBEDDINGS=0; "
            "`embeddings = false` in docmentor.toml).",
        ),
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    if db is not None and not db.strip():  # a script's unset variable: not the default index
        raise UsageError(
            "--db is empty", hint="give the index folder or a postgresql:// URL, or leave --db out"
        )
    STATE.db = db
    STATE.debug = debug
    STATE.embeddings = False if no_embeddings else None
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    for chatty in ("markdown_it", "httpcore", "asyncio"):  # a debug line per token or byte: not ours
        logging.getLogger(chatty).setLevel(logging.INFO if debug else logging.WARNING)
    # griffe reports what it cannot analyse in the package being read (an annotation naming
    # a Windows-only private module): nothing the user can act on, and generation goes on
    logging.getLogger("griffe").setLevel(logging.DEBUG if debug else logging.CRITICAL)


def open_engine(*, create: bool) -> Docmentor:
    from docmentor import Docmentor

    engine = Docmentor(STATE.db, create=create, embeddings=STATE.embeddings)
    STATE.engines.append(engine)
    return engine


def progress_bar() -> Any:
    """The CLI's rich progress bar on stderr (description, bar, done of total, time), gone
    when it ends; use it as a context manager."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )


#: off a terminal (a CI log, a pipe), a long task says how far it is this often, in seconds
PLAIN_PROGRESS_EVERY = 10.0


def plain_progress(
    describe: Callable[[str], str], every: float = PLAIN_PROGRESS_EVERY
) -> Callable[[int, int, str], None]:
    """A progress callback for a stderr that is not a terminal: one line ``embedding sections:
    1200 of 47506`` when ``every`` seconds have passed since the task began or last said
    so; a task that ends sooner says nothing."""
    clock = time.monotonic
    said: dict[str, float] = {}

    def update(done: int, total: int, label: str) -> None:
        now = clock()
        last = said.setdefault(label, now)
        if now - last >= every and done < total:
            said[label] = now
            print(f"{describe(label)}: {done} of {total}", file=sys.stderr, flush=True)

    return update


@contextlib.contextmanager
def progress(enabled: bool, describe: Callable[[str], str] = "fetching {}".format) -> Iterator[Any]:
    """A rich progress bar on a terminal (one row per label, named by ``describe``); elsewhere
    a line every :data:`PLAIN_PROGRESS_EVERY` seconds of a long task; with ``enabled`` false,
    no callback."""
    if not enabled:
        yield None
        return
    if not sys.stderr.isatty():
        yield plain_progress(describe)
        return
    with progress_bar() as bar:
        tasks: dict[str, Any] = {}

        def update(done: int, total: int, label: str) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(describe(label), total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield update


def embed_sources(engine: Docmentor, enabled: bool, sources: list[str] | None = None) -> Any:
    """The embedding run after an add or a refresh (of ``sources``' units, default all), with
    its own progress bar. Ctrl-C stops it with the index searchable by words; the next refresh
    embeds the rest."""
    if not engine.embeddings:
        return None
    try:
        with progress(enabled, describe=lambda _label: "embedding sections") as cb:
            return engine.embed(progress=cb, sources=sources)
    except KeyboardInterrupt:
        engine.close()
        raise _InterruptedEmbedding(
            "interrupted while embedding: the sources are searchable by words, and embedded sections are kept",
            hint="`docmentor refresh` (or `docmentor serve`) embeds the rest",
        ) from None


class _InterruptedEmbedding(DocmentorError):
    """Ctrl-C during the embedding after an add or a refresh: said as an error, ended with
    Ctrl-C's exit code (130) as an interrupted write is."""


def count(n: int, noun: str) -> str:
    """``1 document``, ``2 documents``: a count and its noun (a regular plural)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def emit(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def require_index(hint: str = "add a source first: docmentor add PATH_OR_URL") -> None:
    if not index_exists():
        from docmentor import NotFoundError, index_root

        root = index_root(STATE.db)
        where = f"at {root}" if isinstance(root, Path) else "in that PostgreSQL database"
        raise NotFoundError(f"no index {where}", hint=hint)


def index_exists() -> bool:
    from docmentor import index_exists as exists

    return exists(STATE.db)


def open_knowledge() -> Any:
    from docmentor import LibraryKnowledge

    require_index("generate a library's knowledge base first: docmentor readme-llm generate --library NAME")
    return LibraryKnowledge(open_engine(create=False))


class GateFailed(DocmentorError):
    """A CI gate (clarity --min-score, --fail-on-critical; readme-llm drift --check) failed; the
    report was still printed."""


# a library argument whose option is not its name with dashes
_FLAGS = {"base_paths": "--base-path", "allowed_hosts": "--allow-host"}


def flag(argument: str) -> str:
    """The option that sets a library argument: ``max_tokens`` → ``--max-tokens``."""
    return _FLAGS.get(argument, "--" + argument.replace("_", "-"))


def phrase(exc: DocmentorError) -> str:
    """An error as the command line says it: the arguments it names as their options."""
    text = str(exc)
    for argument in exc.arguments:
        # a whole word, not part of a path or a longer name ("/tmp/out" stays)
        text = re.sub(rf"(?<![\w/.-]){re.escape(argument)}(?![\w/.-])", flag(argument), text)
    return text


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (1 for errors, 2 for usage errors).

    Without ``argv`` this is the ``docmentor`` program itself: after a command that has
    committed and closed its index (``add``, ``refresh``), the process ends at once, output
    flushed, without the interpreter's teardown (module cleanup and a last garbage
    collection over every object, with nothing left for it to do; see :func:`_end_process`).
    """
    if argv is None:
        _one_blas_thread()
    STATE.finished = False
    try:
        rc = _run(argv)
    finally:
        engines, STATE.engines = STATE.engines, []
        for engine in engines:
            engine.close()
    if argv is None and STATE.finished and rc == 0:
        _end_process(rc)
    return rc


# numpy's BLAS threads, for a program whose matrix products are a query's cosines (a few
# thousand rows by 384: a fraction of a millisecond on one core). Woken per product and left
# spinning, OpenBLAS's threads fought onnxruntime's (the query's embedding) and the server's
# for the two cores: find_api's p50 over MCP was 20–32 ms with them and 10.7–11.6 ms without,
# in the same minutes (flask's knowledge base, a busy hour, 2026-11-29; BENCHMARKS.md).
_BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _one_blas_thread() -> None:
    """The ``docmentor`` program's numpy runs its BLAS on one thread (:data:`_BLAS_THREADS`),
    unless the user set these variables; numpy is not loaded yet, so they take effect. Only
    the program itself: a program that imports docmentor keeps its own settings."""
    for name, value in _BLAS_THREADS.items():
        os.environ.setdefault(name, value)


def _end_process(rc: int) -> None:
    """End the ``docmentor`` process now: logs and output flushed, then ``os._exit(rc)``.

    Only after ``add`` / ``refresh`` succeeded as the program itself (their index committed,
    checkpointed and closed); every other command, and every error, ends the usual way. What
    it skips is the interpreter's teardown: module cleanup, a last garbage collection over
    every object, atexit handlers (docmentor registers none; logging's runs here).

    Measured with ``.venv/bin/python benchmarks/bench_fast_paths.py exit`` (2 CPUs shared
    with other work, Python 3.11, 2026-11-28), from the end of the command to the end of the
    process over two runs: 3–18 ms against 25–113 ms (``add`` and ``refresh`` of the fixture
    corpus and of ~2,000 documents); a whole ``refresh`` with nothing to do took 235–247 ms
    against 253–294 ms. Small for a person at a terminal, but ~9% of BENCHMARKS.md's
    indexing figure (0.52–0.57 s), which the project keeps.

    tests/test_fast_paths.py (``test_an_indexing_command_ends_at_once_with_all_its_output``)
    checks that this path is taken, that stdout to a block-buffered pipe arrives whole and
    that exit codes are the command's; tests/test_cli_process.py that the index is complete.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(rc)


_INTERRUPTED = 130  # the exit code of a command stopped by Ctrl-C (128 + SIGINT)
_INTERRUPTED_MESSAGE = "interrupted (what was already stored is kept)"


# the options of `docmentor` itself, written after a command by mistake: their value's name
_GLOBAL_OPTIONS = {"--db": " PATH", "--no-embeddings": "", "--debug": ""}


def _global_option_hint(exc: click.UsageError) -> str:
    """Where a global option goes, when it was given after a command (`add … --no-embeddings`)."""
    option = getattr(exc, "option_name", None)
    if not isinstance(exc, click.NoSuchOption) or option not in _GLOBAL_OPTIONS or exc.ctx is None:
        return ""
    command = exc.ctx.command_path.removeprefix("docmentor").strip()
    return f" ({option} is an option of docmentor itself: docmentor {option}{_GLOBAL_OPTIONS[option]} {command} …)"


def _run(argv: list[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("DOCMENTOR_DEBUG") == "1"
    try:
        rc = click_group(app)(args=args, prog_name="docmentor", standalone_mode=False)
    except (click.exceptions.Exit, typer.Exit) as exc:
        return int(exc.exit_code or 0)
    except (click.exceptions.Abort, typer.Abort):
        print("error: aborted", file=sys.stderr)
        return 1
    except click.exceptions.NoArgsIsHelpError as exc:
        print(exc.format_message(), file=sys.stderr)
        return 2
    except click.UsageError as exc:
        where = f" (see: {exc.ctx.command_path} --help)" if exc.ctx is not None else ""
        message = " ".join(exc.format_message().split())  # one line ("Choose from:\n\tread,\n\twrite")
        print(f"error: {message}{_global_option_hint(exc) or where}", file=sys.stderr)
        return 2
    except DocmentorError as exc:
        if debug:
            raise
        print(f"error: {phrase(exc)}", file=sys.stderr)
        if isinstance(exc, _InterruptedEmbedding):
            return _INTERRUPTED
        return 2 if isinstance(exc, UsageError) else 1
    except KeyboardInterrupt:
        print(f"error: {_INTERRUPTED_MESSAGE}", file=sys.stderr)
        return _INTERRUPTED
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if debug:
            raise
        print(
            f"error: unexpected {type(exc).__name__}: {exc} (run with --debug for the traceback)",
            file=sys.stderr,
        )
        return 1
    if rc == _INTERRUPTED:  # Ctrl-C: typer ends the command with exit code 130, silently
        print(f"error: {_INTERRUPTED_MESSAGE}", file=sys.stderr)
    return rc if isinstance(rc, int) else 0
