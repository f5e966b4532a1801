"""The repo-docs sub-app: document a repository's code (generate), score what was written
(evaluate), see how far the latest run is (status) and print one unit's document (show)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from docmentor import NotFoundError, UsageError
from docmentor.cli.app import (
    GateFailed,
    app,
    count,
    embed_sources,
    emit,
    index_exists,
    open_engine,
    plain_progress,
    progress_bar,
)

if TYPE_CHECKING:
    from docmentor import AgentTreeResult, RepoDocsGeneration, RepoDocsResult, RepoDocsSource, RunReport

repodocs_app = typer.Typer(
    help="Document a repository's code unit by unit, dependencies first (Python, TypeScript/JavaScript, Go, Rust).",
    short_help="Document a repository's code: generate, status, show, evaluate.",
    no_args_is_help=True,
)
app.add_typer(repodocs_app, name="repo-docs")


@repodocs_app.command("generate", short_help="Write a document for every unit of a repository.")
def repodocs_generate(
    path: Annotated[Path, typer.Argument(help="The repository's folder.")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Output folder of the Markdown tree (default PATH/.docmentor-docs).",
            show_default=False,
        ),
    ] = None,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Write from the code alone, even with an endpoint configured.")
    ] = False,
    update: Annotated[
        bool,
        typer.Option(
            "--update",
            help="With a model: document again only what the code changed since the last run "
            "(changed units, what depends on them, their module, package and the repository).",
        ),
    ] = False,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh",
            help="With a model: a new run that documents every unit again (run again, generate "
            "goes on with the last run: only what is not done, or what changed).",
        ),
    ] = False,
    no_register: Annotated[
        bool,
        typer.Option("--no-register", help="Do not index the written tree as a docs source (repo-NAME)."),
    ] = False,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", min=1, max=32, help="With a model: units of one dependency level documented at once."
        ),
    ] = 1,
    prices: Annotated[
        tuple[float, float] | None,
        typer.Option(
            "--prices",
            help="With a model: your provider's prices per million prompt and completion tokens, "
            "to report the run's cost from its counted tokens.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Document the repository at PATH. Without a model (--no-llm, or no DOCMENTOR_LLM_BASE_URL
    and DOCMENTOR_LLM_MODEL): a Markdown tree and documentation.json under --out, from the code
    alone, then indexed as the folder source repo-NAME (refreshed by the next run), so that
    search, get and assemble serve it (--no-register: not indexed). With a model: the agent
    writes each unit's document into the index (--db), a run that stopped goes on where it
    stopped; then the same tree is written from the run's documents (a unit the model did not
    document gets the code's, marked in documentation.json) and indexed the same way."""
    from docmentor import LLMConfig

    root = _folder(path)
    config = None if no_llm else LLMConfig.from_env()
    if config is None:
        idle = [flag for flag, given in (("--update", update), ("--fresh", fresh), ("--workers", workers != 1),
                                          ("--prices", prices is not None)) if given]  # fmt: skip
        if idle:
            print(
                f"warning: {', '.join(idle)}: only with a model; this run writes the tree from the code alone",
                file=sys.stderr,
            )
    if out is not None and out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file", hint="give a new or empty folder, or an earlier output")
    if config is None and no_register:  # the code's tree alone: no index is needed
        from docmentor import generate_repo_docs

        tree = generate_repo_docs(None, root, out=out, register=False).tree
        _warn_if_no_code(tree, root)
        if as_json:
            emit({**tree.to_dict(), "source": None})
        else:
            _warn_problems(_problem_lines(tree.problems), None)
            print(_tree_summary(tree, None))
        return
    agent = _agent_config(workers, prices)
    generation = _generate(
        root,
        config,
        out,
        agent,
        update=update,
        fresh=fresh,
        register=not no_register,
        show_progress=not as_json,
    )
    _warn_if_no_code(generation.tree, root)
    if as_json:
        emit(generation.to_dict())
    elif generation.run is not None and generation.written is not None:
        _warn_problems(generation.run.problems, generation.source)
        print(_agent_summary(root, generation.run, generation.written, generation.source))
    else:
        _warn_problems(_problem_lines(generation.tree.problems), generation.source)
        print(_tree_summary(generation.tree, generation.source))
    run = generation.run
    # the report is printed; a script sees the run fail when it stopped early or the model
    # documented no unit at all (a few failed units among committed ones: exit 0)
    if run is not None and (run.stopped or (run.failed and not run.committed and not run.skipped)):
        why = run.stopped or f"every unit failed ({len(run.failed)})"
        raise GateFailed(
            f"the model did not document every unit: {why}",
            hint="run it again (without --fresh) to go on where it stopped: committed units are kept",
        )


def _warn_if_no_code(tree: RepoDocsResult, root: Path) -> None:
    if set(tree.documents) <= {"repository"}:
        print(
            f"warning: no source file to document in {root}: the tree holds the repository's page only",
            file=sys.stderr,
        )


#: problems named one by one on stderr before a count (--json lists them all)
_SHOWN_PROBLEMS = 10


def _problem_lines(problems: Sequence[Any]) -> list[str]:
    return [f"{p.path}: {p.error}" + ("" if p.skipped else " (the rest of it was read)") for p in problems]


def _warn_problems(problems: Sequence[str], source: RepoDocsSource | None) -> None:
    """The files that could not be read (``path: why``), and the tree's pages the index left
    out, named on stderr (a tour: the text output only counted them)."""
    said = list(problems)
    if source is not None:
        said += [f"{source.name}:{path}: not indexed: {reason}" for path, reason in source.skipped]
    for line in said[:_SHOWN_PROBLEMS]:
        print(f"warning: {line}", file=sys.stderr)
    if len(said) > _SHOWN_PROBLEMS:
        print(f"warning: … and {len(said) - _SHOWN_PROBLEMS} more (--json lists them all)", file=sys.stderr)


def _folder(path: Path) -> Path:
    if not path.exists():
        raise UsageError(f"{path} does not exist", hint="give the repository's folder")
    if not path.is_dir():
        raise UsageError(f"{path} is not a folder", hint="give the repository's folder, not a file in it")
    return path.resolve()


def _agent_config(workers: int, prices: tuple[float, float] | None) -> Any:
    from docmentor import AgentConfig

    if prices is not None and (min(prices) < 0 or not all(p < float("inf") for p in prices)):
        raise UsageError(f"--prices {prices[0]} {prices[1]}: prices are numbers of 0 or more")
    prompt, completion = prices if prices is not None else (None, None)
    return AgentConfig(workers=workers, prompt_price=prompt, completion_price=completion)


def _generate(
    root: Path,
    config: Any,
    out: Path | None,
    agent: Any,
    *,
    update: bool,
    fresh: bool,
    register: bool,
    show_progress: bool,
) -> RepoDocsGeneration:
    """generate_repo_docs with the CLI's progress: the agent's units, then the embedding."""
    from docmentor import generate_repo_docs

    engine = open_engine(create=True)
    try:
        with _agent_progress(show_progress and config is not None, engine, root) as on_unit:
            generation = generate_repo_docs(
                engine,
                root,
                llm=config,
                out=out,
                update=update,
                register=register,
                embed=False,
                agent=agent,
                on_unit=on_unit,
                fresh=fresh,
            )
        if generation.source is not None:
            embed_sources(engine, show_progress)
        return generation
    finally:
        engine.close()


def _tree_summary(result: RepoDocsResult, source: RepoDocsSource | None) -> str:
    units = sum(result.documents.values())
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.documents.items()))
    problems = len(result.problems)
    unread = f"; {problems} file(s) could not be read (named above)" if problems else ""
    return (
        f"documented {count(units, 'unit')} ({kinds}) without a model in {result.out} "
        f"({count(result.files, 'file')})"
        f"{_served(source)}{unread}"
    )


def _served(source: RepoDocsSource | None) -> str:
    if source is None:
        return ""
    how = "refreshed" if source.refreshed else "indexed"
    return f"; {how} as the docs source {source.name} ({count(source.documents, 'document')})"


@contextlib.contextmanager
def _agent_progress(enabled: bool, engine: Any, root: Path) -> Iterator[Callable[[Any], None] | None]:
    """On a terminal, a bar on stderr: units done of the run's total, and the tokens used;
    elsewhere (a CI log) a line now and then (:func:`docmentor.cli.app.plain_progress`)."""
    if not enabled:
        yield None
        return
    from docmentor import repo_run_status

    if not sys.stderr.isatty():
        say = plain_progress(lambda _label: "documenting units")

        def on_unit_plain(_outcome: Any) -> None:
            p = repo_run_status(engine.store, root).progress
            say(p.committed + p.failed, p.total, "units")

        yield on_unit_plain
        return

    with progress_bar() as bar:
        task = bar.add_task("documenting units", total=None)

        def on_unit(_outcome: Any) -> None:
            p = repo_run_status(engine.store, root).progress
            bar.update(
                task,
                completed=p.committed + p.failed,
                total=p.total,
                description=f"documenting units, {p.tokens:,} tokens",
            )

        yield on_unit


def _agent_summary(
    root: Path, report: RunReport, written: AgentTreeResult, source: RepoDocsSource | None
) -> str:
    tokens = report.prompt_tokens + report.completion_tokens
    cost = f", cost {report.cost:.4f}" if report.cost is not None else ""
    lines = [
        f"run {report.run_id}: {len(report.committed)} units committed, {len(report.failed)} failed, "
        f"{len(report.skipped)} already done, of {report.total_units}; {tokens:,} tokens "
        f"({report.prompt_tokens:,} prompt, {report.completion_tokens:,} completion){cost}",
        "finished"
        if report.finished
        else (report.stopped or "not finished: run it again to go on where it stopped"),
        f"wrote {written.tree.out} ({written.tree.files} files): {len(written.from_model)} documents "
        f"by the model, {len(written.from_code)} from the code alone (not documented by the model)"
        + _served(source),
        f"docmentor repo-docs show UNIT --path {root} prints one unit's document from the index",
    ]
    if report.problems:
        lines.append(f"{len(report.problems)} file(s) could not be read (named above)")
    return "\n".join(lines)


_OUT_OPTION = typer.Option(
    "--out", help="The documentation folder (default PATH/.docmentor-docs).", show_default=False
)


@contextlib.contextmanager
def _latest_engine() -> Iterator[Any]:
    """The index, if there is one (None: only a tree written without a model can be read)."""
    if not index_exists():
        yield None
        return
    engine = open_engine(create=False)
    try:
        yield engine
    finally:
        engine.close()


@repodocs_app.command("status", short_help="How far the latest documentation of a repository is.")
def repodocs_status(
    path: Annotated[Path, typer.Argument(help="The repository's folder.")],
    out: Annotated[Path | None, _OUT_OPTION] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The latest documentation of the repository at PATH: the agent's latest run in the index
    (units done, pending and failed, tokens, the unit being worked on, finished or not), or the
    tree under --out when it was written later without a model; and whether the code changed
    since it was documented (units changed, added and removed)."""
    from docmentor import repo_docs_progress, repo_run_status

    root = _folder(path)
    with _latest_engine() as engine:
        progress = repo_docs_progress(engine, root, out, check_code=True)
        run = repo_run_status(engine.store, root) if engine is not None and progress.mode == "model" else None
    code = progress.code.to_dict() if progress.code is not None else None
    if run is None:
        if as_json:
            emit(progress.to_dict())
        else:
            print(f"{root}: {progress.total} units documented without a model in {progress.out}")
            _print_code_changes(code, "repo-docs generate writes the tree again")
        return
    data = {"mode": "model", **run.to_dict(), "code": code}
    if as_json:
        emit(data)
        return
    units = data["units"]
    # a run not finished may be at work in another process or stopped (failures, Ctrl-C, a
    # kill): the index cannot tell which, and generate goes on with it either way
    state = "finished" if run.finished else data["status"]
    if state == "running":
        state = "not finished (repo-docs generate goes on where it stopped)"
    print(f"run {data['run_id']} of {data['root']} ({data['model'] or 'no model'}): {state}")
    print(
        f"units: {units['committed']} committed, {units['pending']} pending, {units['failed']} failed, "
        f"of {units['total']}; {data['tokens']:,} tokens "
        f"({data['prompt_tokens']:,} prompt, {data['completion_tokens']:,} completion)"
    )
    if data["current_unit"] and not run.finished:
        print(f"last unit started: {data['current_unit']}")
    _print_code_changes(code, "repo-docs generate --update documents them again")


def _print_code_changes(code: dict[str, Any] | None, how: str) -> None:
    if code is None:
        return
    if code["current"]:
        print("code: unchanged since it was documented")
        return
    parts = [f"{len(code[k])} {k}" for k in ("changed", "added", "removed") if code[k]]
    print(f"code changed since it was documented: {', '.join(parts)} unit(s) ({how})")
    for kind in ("changed", "added", "removed"):
        ids = code[kind]
        if ids:
            more = f", … {len(ids) - 5} more (--json lists them)" if len(ids) > 5 else ""
            print(f"  {kind}: {', '.join(ids[:5])}{more}")


@repodocs_app.command("show", short_help="Print one unit's document from the latest documentation.")
def repodocs_show(
    unit: Annotated[str, typer.Argument(help="The unit's id, a dotted name such as pkg.module.func.")],
    path: Annotated[
        Path, typer.Option("--path", help="The repository's folder (default: the current folder).")
    ] = Path("."),
    out: Annotated[Path | None, _OUT_OPTION] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the unit as JSON.")] = False,
) -> None:
    """Print the document of UNIT from the latest documentation of the repository at --path:
    the model's committed document of the latest run, or the tree's when it was written later
    without a model."""
    from docmentor import repo_docs_unit, repo_unit_document

    root = _folder(path)
    with _latest_engine() as engine:
        found = repo_docs_unit(engine, root, unit, out)
        row = None
        if engine is not None and found.mode == "model":
            try:
                row = repo_unit_document(engine.store, root, unit)
            except NotFoundError:  # failed or pending: the tree's document from the code, found
                row = None
    if as_json:
        emit({"mode": "model", **asdict(row)} if row is not None else found.to_dict())
        return
    text = (row.document or "") if row is not None else found.document
    print(text.rstrip("\n"))


@repodocs_app.command("evaluate", short_help="Score a repository's written documentation against its code.")
def repodocs_evaluate(
    path: Annotated[Path, typer.Argument(help="The repository's folder.")],
    out: Annotated[Path | None, _OUT_OPTION] = None,
    llm: Annotated[
        bool | None,
        typer.Option(
            "--llm/--no-llm",
            help="Have the model judge truthfulness and helpfulness (default: when "
            "DOCMENTOR_LLM_BASE_URL and DOCMENTOR_LLM_MODEL are set).",
            show_default=False,
        ),
    ] = None,
    judge_limit: Annotated[
        int,
        typer.Option("--judge-limit", min=0, help="Documents the model judges at most (a request each)."),
    ] = 40,
    as_json: Annotated[bool, typer.Option("--json", help="Print every metric and failure as JSON.")] = False,
) -> None:
    """Score the Markdown tree and documentation.json that `repo-docs generate` wrote for the
    repository at PATH against its code: sections, coverage, signatures, parameters, symbols
    and links, each with the units that fail it (a document the model wrote is held to the
    model's format, one written from the code to the code's). With a model configured (or
    --llm), it also judges the truthfulness and helpfulness of up to --judge-limit documents;
    a document it gives no usable score is counted as unjudged, not as a pass. A tree written
    from an agent run in the index (--db) also gets the run's order violations and reads."""
    from docmentor import LLMConfig, evaluate_repo_docs

    root = _folder(path)
    config = None if llm is False else LLMConfig.from_env()
    if llm and config is None:
        raise UsageError(
            "--llm needs a model endpoint", hint="set DOCMENTOR_LLM_BASE_URL and DOCMENTOR_LLM_MODEL"
        )
    with _latest_engine() as engine:
        result = evaluate_repo_docs(
            root,
            out if out is not None else root / ".docmentor-docs",
            store=engine.store if engine is not None else None,
            llm=config,
            judge_limit=judge_limit,
        )
    data = result.to_dict()
    if as_json:
        emit(data)
        return
    for name, metric in data["metrics"].items():
        if not metric["checked"]:  # nothing to check is no score
            print(f"{name}: nothing to check")
            continue
        print(f"{name}: {metric['value']:.3f} ({metric['passed']}/{metric['checked']})")
        for failure in metric["failures"][:5]:
            print(f"  {failure['unit']}: {failure['what']}")
        if len(metric["failures"]) > 5:
            print(f"  … {len(metric['failures']) - 5} more (--json lists them)")
    if data["reads"] is not None:
        reads = data["reads"]
        print(
            f"order violations: {data['order_violations']}; reads: {reads['reads']}, "
            f"{reads['redundant_rate']:.1%} repeated, {reads['cached_rate']:.1%} from the cache "
            f"({reads['cache_hits']} cache hits)"
        )
    if data["judge"] is not None:
        print(_judge_summary(data["judge"]))


def _judge_summary(judge: dict[str, Any]) -> str:
    def mean(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    lines = [
        f"judged by {judge['model']}: {judge['judged']} of {judge['sample']} documents, "
        f"truthfulness {mean(judge['truthfulness'])}, helpfulness {mean(judge['helpfulness'])}; "
        f"{judge['prompt_tokens'] + judge['completion_tokens']:,} tokens in {judge['requests']} requests "
        f"({judge['prompt_tokens']:,} prompt, {judge['completion_tokens']:,} completion"
        + (f"; {judge['unreported_usage']} answers reported none" if judge["unreported_usage"] else "")
        + ")"
    ]
    unjudged = [u for u in judge["units"] if u["problem"] is not None]
    if unjudged:
        lines.append(f"unjudged: {len(unjudged)}")
        lines += [f"  {u['unit']}: {u['problem']}" for u in unjudged[:5]]
        if len(unjudged) > 5:
            lines.append(f"  … {len(unjudged) - 5} more (--json lists them)")
    return "\n".join(lines)
