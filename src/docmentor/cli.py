"""The command line: parse → call the library → format. Nothing else lives here."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

from docmentor import __version__
from docmentor.errors import DocmentorError, SourceUnavailableError, UsageError

if TYPE_CHECKING:
    from docmentor.engine import Docmentor, RefreshReport

app = typer.Typer(
    name="docmentor",
    help="Index documentation, search it by section, and serve it to AI coding agents over MCP.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class State:
    db: Path | None = None
    debug: bool = False


STATE = State()


def _version(value: bool) -> None:
    if value:
        print(f"docmentor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", help="Index folder (env DOCMENTOR_DB; default ~/.docmentor).", show_default=False
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks and debug logs.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    STATE.db = db
    STATE.debug = debug
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )


def _db_path() -> Path | None:
    if STATE.db is not None:
        return STATE.db
    from docmentor.config import load_config

    with contextlib.suppress(DocmentorError):
        cfg = load_config()
        if cfg.db is not None:
            return cfg.db
    return None


def _open(*, create: bool) -> Docmentor:
    from docmentor.engine import Docmentor

    return Docmentor(_db_path(), create=create)


@contextlib.contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on a terminal; a no-op callback otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(done: int, total: int, label: str) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(f"fetching {label}", total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield update


def _emit(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def _report_line(r: RefreshReport) -> str:
    parts = [f"{r.source}: {r.documents} documents, {r.sections} sections"]
    parts.append(f"(+{r.added} new, {r.updated} updated, {r.unchanged} unchanged, -{r.removed} removed")
    if r.failed:
        parts[-1] += f", {len(r.failed)} failed"
    parts[-1] += f") in {r.seconds:.2f}s"
    return " ".join(parts)


def _warn(report: RefreshReport) -> None:
    for w in report.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for path, err in report.failed:
        if not any(path in w for w in report.warnings):
            print(f"warning: {path}: {err}", file=sys.stderr)


@app.command()
def add(
    target: Annotated[
        str, typer.Argument(help="A docs folder, an llms.txt / llms-full.txt URL, or a local llms.txt.")
    ],
    name: Annotated[
        str | None, typer.Option("--name", "-n", help="Source name (default: from the folder or host).")
    ] = None,
    base_path: Annotated[
        list[Path] | None,
        typer.Option("--base-path", help="Extra folder includes may read from (repeatable)."),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host", help="Another host (or URL prefix) an llms.txt may link to (repeatable)."
        ),
    ] = None,
    max_bytes: Annotated[
        int | None, typer.Option("--max-bytes", help="Skip files / responses larger than this.")
    ] = None,
    no_optional: Annotated[
        bool, typer.Option("--no-optional", help="Skip the llms.txt '## Optional' links.")
    ] = False,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", help="llms.txt: documents fetched at once (default 8).")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="llms.txt: seconds per request (default 20).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Register a documentation source and index it now (adding an existing name re-indexes it)."""
    from docmentor.config import split_named

    if name is None:
        name, target = split_named(target)
    options: dict[str, Any] = {}
    if base_path:
        options["base_paths"] = [str(p.expanduser().resolve()) for p in base_path]
    if allow_host:
        options["allowed_hosts"] = list(allow_host)
    if max_bytes is not None:
        if max_bytes < 1:
            raise UsageError("--max-bytes must be positive")
        options["max_bytes"] = max_bytes
    if no_optional:
        options["include_optional"] = False
    if concurrency is not None:
        if not 1 <= concurrency <= 64:
            raise UsageError("--concurrency must be between 1 and 64")
        options["concurrency"] = concurrency
    if timeout is not None:
        if timeout <= 0:
            raise UsageError("--timeout must be positive")
        options["timeout"] = timeout
    engine = _open(create=True)
    with _progress(not as_json) as cb:
        report = engine.add(target, name=name, options=options, progress=cb)
    if as_json:
        _emit(report.to_dict())
    else:
        _warn(report)
        print(_report_line(report))


@app.command()
def refresh(
    name: Annotated[str | None, typer.Argument(help="Source to refresh (default: all).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the reports as JSON.")] = False,
) -> None:
    """Re-read sources: unchanged documents are skipped, vanished ones removed, failures keep the old copy."""
    from docmentor.config import load_config

    configured = load_config().sources
    if not _index_exists() and (name is not None or not configured):
        _require_index()  # nothing to refresh: say so without creating an index
    engine = _open(create=True)
    reports: list[RefreshReport] = []
    with _progress(not as_json) as cb:
        added: set[str] = set()
        if name is None:
            known = {s["name"] for s in engine.sources()}
            for src in configured:
                if src.name not in known | added:
                    reports.append(engine.add(src.target, name=src.name, options=src.options, progress=cb))
                    added.add(src.name)
        reports.extend(engine.refresh(name, progress=cb, exclude=added))
    if as_json:
        _emit({"sources": [r.to_dict() for r in reports]})
    else:
        for r in reports:
            _warn(r)
            print(_report_line(r))
        if not reports:
            print("no sources: add one with `docmentor add PATH_OR_URL`")
    failed = [r.source for r in reports if r.error]
    if failed:  # the others were refreshed; these were left as they were
        raise SourceUnavailableError(
            f"{len(failed)} of {len(reports)} sources could not be refreshed: {', '.join(failed)}",
            hint="they keep their previous content; see the warnings above",
        )


@app.command()
def sources(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the indexed sources."""
    rows = _open(create=False).sources() if _index_exists() else []
    if as_json:
        _emit({"sources": rows})
        return
    if not rows:
        print("no sources: add one with `docmentor add PATH_OR_URL`")
    for s in rows:
        stale = f", {s['stale_documents']} stale" if s["stale_documents"] else ""
        err = f"  [error: {s['error']}]" if s["error"] else ""
        print(
            f"{s['name']}\t{s['kind']}\t{s['documents']} documents, {s['sections']} sections{stale}\t"
            f"{s['target']}\trefreshed {s['refreshed_at']}{err}"
        )


def _require_index() -> None:
    if not _index_exists():
        from docmentor.errors import NotFoundError

        raise NotFoundError("no index here yet", hint="add a source first: docmentor add PATH_OR_URL")


def _index_exists() -> bool:
    from docmentor.config import default_db

    db = (_db_path() or default_db()).expanduser()
    if db.exists() and not db.is_dir():
        raise UsageError(f"--db {db} is a file; it must be a folder docmentor owns")
    return (db / "index.sqlite3").exists()


@app.command()
def remove(name: Annotated[str, typer.Argument(help="Source to remove.")]) -> None:
    """Remove a source and everything indexed from it."""
    _require_index()
    _open(create=True).remove(name)
    print(f"removed {name}")


@app.command()
def reindex() -> None:
    """Rebuild the search index from the stored documents."""
    _require_index()
    n = _open(create=True).reindex()
    print(f"reindexed {n} sections")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for: words, identifiers or a whole question.")],
    source: Annotated[str | None, typer.Option("--source", "-s", help="Only this source.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-l", help="How many sections.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the contract's JSON.")] = False,
) -> None:
    """Search the indexed documentation; results are sections, best first."""
    hits = _open(create=False).search(query, source=source, limit=limit)
    if as_json:
        _emit({"query": query, "results": [h.to_dict() for h in hits]})
        return
    if not hits:
        print(f"no results for {query!r}")
    for h in hits:
        where = " › ".join(h.heading_path) or h.title
        print(f"{h.rank}. {where}  [{h.source}] {h.path}:{h.line_start}-{h.line_end}  (score {h.score:.2f})")
        for line in h.snippet.splitlines()[:6]:
            print(f"   {line}")
        print()


@app.command()
def get(
    ref: Annotated[
        str, typer.Argument(help="A document URL, SOURCE:PATH, a path with --source, or an indexed file.")
    ],
    source: Annotated[
        str | None, typer.Option("--source", "-s", help="Source the path is relative to.")
    ] = None,
    offset: Annotated[int, typer.Option("--offset", help="First character.")] = 0,
    limit: Annotated[int, typer.Option("--limit", help="How many characters.")] = 50_000,
    lines: Annotated[
        str | None,
        typer.Option("--lines", help="Only lines START-END of the original file (as in search results)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON with pagination fields.")] = False,
) -> None:
    """Print a stored document (Markdown after includes are resolved)."""
    span: tuple[int, int] | None = None
    if lines is not None:
        a, sep, b = lines.partition("-")
        if not (a.strip().isdigit() and (not sep or b.strip().isdigit())):
            raise UsageError(f"--lines {lines!r}: expected START-END, e.g. 12-40")
        span = (int(a), int(b) if sep else int(a))
    page = _open(create=False).get(ref, source=source, offset=offset, limit=limit, lines=span)
    if as_json:
        _emit(page.to_dict())
        return
    sys.stdout.write(page.content)
    if not page.content.endswith("\n"):
        sys.stdout.write("\n")
    if page.has_more:
        print(
            f"\n… {page.total_length - page.offset - page.length} more characters: --offset {page.offset + page.length}",
            file=sys.stderr,
        )


@app.command()
def assemble(
    query: Annotated[str, typer.Argument(help="The question or task to assemble documentation for.")],
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Token budget of the whole digest.")] = 8000,
    fmt: Annotated[str, typer.Option("--format", "-f", help="markdown or json.")] = "markdown",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    depth: Annotated[int, typer.Option("--depth", help="Cross-reference depth: 0, 1 or 2.")] = 1,
    sections: Annotated[
        int, typer.Option("--sections", help="At most this many sections (before cross-references).")
    ] = 20,
    source: Annotated[str | None, typer.Option("--source", "-s", help="Only this source.")] = None,
    encoding: Annotated[
        str, typer.Option("--encoding", help="Tokenizer: o200k_base or cl100k_base.")
    ] = "o200k_base",
    allow_empty: Annotated[
        bool, typer.Option("--allow-empty", help="Exit 0 with an empty digest when nothing matches.")
    ] = False,
) -> None:
    """Assemble the best documentation for one question into a digest that fits a token budget."""
    if fmt not in ("markdown", "json"):
        raise UsageError(f"unknown --format {fmt!r}", hint="use markdown or json")
    _require_index()
    digest = _open(create=False).assemble(
        query,
        fmt=fmt,
        max_tokens=max_tokens,
        depth=depth,
        sections=sections,
        source=source,
        encoding=encoding,
        allow_empty=allow_empty,
    )
    text = digest.markdown if fmt == "markdown" else digest.json_text
    if output is not None:
        try:
            output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
        print(
            f"wrote {output} ({digest.actual_tokens} tokens, {len(digest.sections)} sections)",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


eval_app = typer.Typer(
    help="Measure search and assembly on your own labelled questions (JSONL).", no_args_is_help=True
)
app.add_typer(eval_app, name="eval")


@eval_app.command("search")
def eval_search(
    questions: Annotated[
        Path, typer.Argument(help='JSONL: {"query", "relevant": [{"path", "heading", "grade"}]} per line.')
    ],
    source: Annotated[str | None, typer.Option("--source", "-s", help="Only this source.")] = None,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root", help="The corpus folder (to check line ranges); default: the source's folder."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Per-question results and the summary as JSON.")
    ] = False,
) -> None:
    """Search quality: document- and section-level MRR@10, Recall@k and nDCG@10."""
    from docmentor.evaluation import SearchEval, load_questions, score_search

    qs = [q for q in load_questions(questions) if q.get("relevant")]
    if not qs:
        raise UsageError(f'{questions}: no question has "relevant" labels')
    _require_index()
    engine = _open(create=False)
    folder = root or _source_folder(engine, source)
    cache: dict[str, list[str]] = {}

    def read_lines(path: str) -> list[str]:
        if path not in cache:
            try:
                cache[path] = (
                    (folder / path).read_text(encoding="utf-8", errors="replace").splitlines()
                    if folder
                    else []
                )
            except OSError:
                cache[path] = []
        return cache[path]

    ev = SearchEval()
    for q in qs:
        hits = [h.to_dict() for h in engine.search(q["query"], source=source, limit=10)]
        ev.rows.append(score_search(q, hits, read_lines))
    summary = ev.summary()
    if as_json:
        _emit({"summary": summary, "questions": ev.rows})
        return
    for r in ev.rows:
        print(
            f"{r['id']}\tdoc MRR {r['doc']['mrr']:.2f}\tsection MRR {r['section']['mrr']:.2f}\t{r['query'][:70]}"
        )
    d, s_ = summary["document"], summary["section"]
    print(f"questions={summary['questions']}")
    print("document " + " ".join(f"{k}={v:.3f}" for k, v in d.items()))
    print("section  " + " ".join(f"{k}={v:.3f}" for k, v in s_.items()))


@eval_app.command("assemble")
def eval_assemble(
    questions: Annotated[Path, typer.Argument(help='JSONL: {"query", "expected_contains": [...]} per line.')],
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Token budget per digest.")] = 8000,
    source: Annotated[str | None, typer.Option("--source", "-s", help="Only this source.")] = None,
    depth: Annotated[int, typer.Option("--depth", help="Cross-reference depth.")] = 1,
    as_json: Annotated[
        bool, typer.Option("--json", help="Per-question results and the summary as JSON.")
    ] = False,
) -> None:
    """Assembly quality: share of expected strings in each digest; a question passes at ≥ 0.8."""
    from docmentor.evaluation import PASS_COVERAGE, coverage, load_questions

    qs = [q for q in load_questions(questions) if q.get("expected_contains")]
    if not qs:
        raise UsageError(f'{questions}: no question has "expected_contains"')
    _require_index()
    engine = _open(create=False)
    rows: list[dict[str, Any]] = []
    for q in qs:
        digest = engine.assemble(
            q["query"], max_tokens=max_tokens, source=source, depth=depth, allow_empty=True
        )
        cov, missing = coverage(digest.markdown, list(q["expected_contains"]))
        rows.append(
            {
                "id": q["id"],
                "query": q["query"],
                "coverage": round(cov, 4),
                "passed": cov >= PASS_COVERAGE,
                "missing": missing,
                "tokens": digest.actual_tokens,
            }
        )
    passed = sum(r["passed"] for r in rows)
    summary = {
        "questions": len(rows),
        "passed": passed,
        "pass_rate": round(passed / len(rows), 4),
        "mean_coverage": round(sum(r["coverage"] for r in rows) / len(rows), 4),
        "max_tokens": max_tokens,
    }
    if as_json:
        _emit({"summary": summary, "questions": rows})
        return
    for r in rows:
        miss = f"\tmissing: {', '.join(r['missing'])}" if r["missing"] else ""
        print(
            f"{r['id']}\t{r['coverage']:.2f}\t{'pass' if r['passed'] else 'FAIL'}\t{r['tokens']} tokens{miss}"
        )
    print(
        f"passed {passed}/{len(rows)} ({summary['pass_rate']:.0%}), mean coverage {summary['mean_coverage']:.2f}"
    )


def _source_folder(engine: Docmentor, source: str | None) -> Path | None:
    rows = [r for r in engine.sources() if source is None or r["name"] == source]
    folders = [Path(r["target"]) for r in rows if r["kind"] == "folder"]
    return folders[0] if len(folders) == 1 else None


clarity_app = typer.Typer(
    help="Deterministic documentation clarity scores, explanations and roadmaps.", no_args_is_help=True
)
app.add_typer(clarity_app, name="clarity")


@clarity_app.command("score")
def clarity_score(
    paths: Annotated[list[Path] | None, typer.Argument(help="Documentation files or folders.")] = None,
    source: Annotated[
        str | None, typer.Option("--source", "-s", help="Score an indexed source instead of paths.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full results as JSON.")] = False,
    html_out: Annotated[
        Path | None, typer.Option("--html", help="Write a self-contained HTML report here.")
    ] = None,
    rubric_file: Annotated[
        Path | None, typer.Option("--rubric", help="A TOML file overriding weights and tiers.")
    ] = None,
    target: Annotated[float, typer.Option("--target", help="Score the roadmap aims at.")] = 8.0,
    min_score: Annotated[
        float | None, typer.Option("--min-score", help="Exit 1 when a document scores below this.")
    ] = None,
    fail_on_critical: Annotated[
        bool, typer.Option("--fail-on-critical", help="Exit 1 when any critical issue is found.")
    ] = False,
    history: Annotated[
        Path | None,
        typer.Option("--history", help="Append one JSON line per document here; the report shows the trend."),
    ] = None,
    use_llm: Annotated[
        bool, typer.Option("--llm", help="Also ask the configured LLM (DOCMENTOR_LLM_*) to find issues.")
    ] = False,
) -> None:
    """Score documentation clarity: the same pages always get the same score, with the why and what to fix."""
    from docmentor.clarity import score_paths, score_source
    from docmentor.clarity.report import append_history, git_commit, read_history, write_html
    from docmentor.clarity.rubric import default_rubric, load_rubric

    if not 0.0 <= target <= 10.0:
        raise UsageError("--target must be between 0 and 10")
    if min_score is not None and not 0.0 <= min_score <= 10.0:
        raise UsageError("--min-score must be between 0 and 10")
    if bool(paths) == bool(source):
        raise UsageError("give documentation paths or --source NAME (one of them)")
    rubric = load_rubric(rubric_file) if rubric_file else default_rubric()
    llm = _llm_client() if use_llm else None
    try:
        if source:
            _require_index()
            result = score_source(_open(create=False), source, rubric=rubric, target=target, llm=llm)
        else:
            result = score_paths(list(paths or []), rubric=rubric, target=target, llm=llm)
    finally:
        if llm is not None:
            llm.close()
    if history is not None:
        earlier = read_history(history)
        for doc in result["documents"]:
            past = [
                {"date": e.get("date"), "score": e.get("score"), "commit": e.get("commit")}
                for e in earlier.get(doc["path"], [])
            ]
            doc["trend"] = [
                *past,
                {"date": result["generated_at"], "score": doc["clarity_score"]["overall_score"]},
            ]
        folder = Path(
            (source and _open(create=False).store.source(source).target) or (paths or [Path.cwd()])[0]
        )
        append_history(
            history, result["documents"], commit=git_commit(folder if folder.is_dir() else folder.parent)
        )
    if html_out is not None:
        write_html(result, html_out)
    if as_json:
        _emit(result)
    else:
        _print_clarity(result)
    _clarity_gates(result, min_score=min_score, fail_on_critical=fail_on_critical)


def _llm_client() -> Any:
    from docmentor.llm import LLMClient, LLMConfig

    config = LLMConfig.from_env()
    if config is None:
        raise UsageError(
            "--llm needs an OpenAI-compatible endpoint",
            hint="set DOCMENTOR_LLM_BASE_URL and DOCMENTOR_LLM_MODEL (and DOCMENTOR_LLM_API_KEY if needed)",
        )
    return LLMClient(config)


def _print_clarity(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(soft_wrap=True, highlight=False, width=None if sys.stdout.isatty() else 160)
    table = Table(title="Documentation clarity", show_lines=False)
    for col in ("document", "score", "grade", "critical", "warning", "info", "broken links"):
        table.add_column(col, justify="left" if col == "document" else "right")
    for d in result["documents"]:
        cs, sm = d["clarity_score"], d["summary"]
        table.add_row(
            d["path"],
            f"{cs['overall_score']:.1f}",
            cs["grade"],
            str(sm["critical_clarity_issues"]),
            str(sm["warning_clarity_issues"]),
            str(sm["info_clarity_issues"]),
            str(sm["broken_links"]),
        )
    console.print(table)
    s = result["summary"]
    dist = ", ".join(f"{g} {n}" for g, n in s["grade_distribution"].items() if n)
    console.print(
        f"{s['documents']} documents, average {s['average_score']:.1f} ({s['average_grade']}); grades: {dist}"
    )
    console.print(
        f"issues: {s['critical_issues']} critical, {s['warning_issues']} warning, {s['info_issues']} info; "
        f"{s['below_target']} below the target {s['target_score']}; scoring {s['scoring_version']}, rubric {s['rubric_hash']}"
    )


def _clarity_gates(result: dict[str, Any], *, min_score: float | None, fail_on_critical: bool) -> None:
    docs = result["documents"]
    if min_score is not None:
        low = [d for d in docs if d["clarity_score"]["overall_score"] < min_score]
        if low:
            names = ", ".join(f"{d['path']} ({d['clarity_score']['overall_score']:.1f})" for d in low[:5])
            more = f" and {len(low) - 5} more" if len(low) > 5 else ""
            raise GateFailed(f"{len(low)} document(s) below --min-score {min_score:g}: {names}{more}")
    if fail_on_critical:
        crit = [
            (d["path"], i)
            for d in docs
            for i in d["issues"]
            if i["severity"] == "critical" and not i["counts_as"]
        ]
        if crit:
            path, first = crit[0]
            raise GateFailed(
                f"{len(crit)} critical issue(s), first {path}:{first['line']} {first['type']}: {first['message']}"
            )


@clarity_app.command("rubric")
def clarity_rubric(
    rubric_file: Annotated[
        Path | None, typer.Option("--rubric", help="A TOML file overriding weights and tiers.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print the scoring rubric: tiers, grades, criteria, characteristics and weights."""
    from docmentor.clarity.rubric import SCORING_VERSION, default_rubric, load_rubric

    rubric = load_rubric(rubric_file) if rubric_file else default_rubric()
    if as_json:
        _emit(
            {
                "scoring_version": SCORING_VERSION,
                "rubric_hash": rubric.hash,
                "tiers": rubric.tiers_dict(),
                "weights": dict(rubric.to_dict().get("weights", {})),
            }
        )
        return
    print(f"scoring {SCORING_VERSION}, rubric {rubric.hash}")
    for key, tier in rubric.tiers_dict().items():
        print(f"\n{key}  {tier['grade']}  {tier['description']}")
        crit = ", ".join(f"{k} {v}" for k, v in tier["criteria"].items())
        print(f"  criteria: {crit}")
        for c in tier["characteristics"]:
            print(f"  - {c}")
    print("\nweights:")
    for k, v in rubric.to_dict().get("weights", {}).items():
        print(f"  {k}: {v}")


readme_app = typer.Typer(
    help="Generate README.LLM and a library knowledge base from docs and the real API.", no_args_is_help=True
)
app.add_typer(readme_app, name="readme-llm")
api_app = typer.Typer(
    help="Ask a generated library knowledge base: APIs, examples, overview.", no_args_is_help=True
)
app.add_typer(api_app, name="api")
feedback_app = typer.Typer(
    help="What agents reported through report_issue, and what to fix.", no_args_is_help=True
)
app.add_typer(feedback_app, name="feedback")


@readme_app.command("generate")
def readme_generate(
    library: Annotated[str, typer.Option("--library", "-l", help="The library (its Python import name).")],
    docs_path: Annotated[
        Path | None, typer.Option("--docs-path", help="The library's documentation folder.")
    ] = None,
    source_path: Annotated[
        Path | None,
        typer.Option("--source-path", help="A TS/JS, Go or Rust source folder to read the API from."),
    ] = None,
    python: Annotated[
        str | None,
        typer.Option("--python", help="Interpreter of the environment the library is installed in."),
    ] = None,
    version: Annotated[
        str | None, typer.Option("--version", help="Override the detected library version.")
    ] = None,
    languages: Annotated[
        list[str] | None, typer.Option("--languages", help="Example languages to use (repeatable).")
    ] = None,
    output_format: Annotated[
        str, typer.Option("--output-format", help="monolithic, knowledge_base or both.")
    ] = "both",
    out: Annotated[Path, typer.Option("--out", help="Output folder (README.LLM, knowledge_base/).")] = Path(
        "readme_llm"
    ),
    max_apis: Annotated[int, typer.Option("--max-apis", help="README.LLM sections at most.")] = 50,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="README.LLM token budget (exact count).")
    ] = None,
    validate: Annotated[
        bool, typer.Option("--validate", help="Run the complete Python examples; keep only those that pass.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Generate README.LLM (the paper's layout) and the knowledge base, and register it in the index."""
    from docmentor.readme_llm import generate

    with _progress(False):
        result = generate(
            _open(create=True),
            library=library,
            docs_path=docs_path,
            source=source_path,
            python=python,
            version=version,
            languages=languages,
            output_format=output_format,
            out=out,
            max_apis=max_apis,
            max_tokens=max_tokens,
            validate=validate,
        )
    if as_json:
        _emit(result.to_dict())
        return
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(
        f"{result.library} {result.version or '(version unknown)'}: {result.api_count} APIs, "
        f"{result.example_count} examples ({result.matched_examples} matched to APIs)"
    )
    if result.readme_path:
        print(
            f"README.LLM: {result.readme_path} ({result.readme_sections} sections, {result.readme_tokens} tokens)"
        )
    if result.kb_path:
        print(f"knowledge base: {result.kb_path} (registered, generation {result.generation})")
    if result.drift:
        print(
            f"drift: {result.drift.get('missing_api', 0)} missing APIs, "
            f"{result.drift.get('invalid_api_signature', 0)} invalid signatures (docmentor readme-llm drift)"
        )
    if result.validation:
        v = result.validation
        print(
            f"validation: {v.get('passed', 0)} passed, {v.get('failed', 0)} failed, {v.get('skipped', 0)} skipped"
        )


@readme_app.command("drift")
def readme_drift(
    library: Annotated[
        str, typer.Option("--library", "-l", help="A library with a generated knowledge base.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Documented calls that the installed version does not have or accept (from the last generation)."""
    from docmentor.store.kb import list_kbs

    _require_index()
    rows = {r.library: r for r in list_kbs(_open(create=False).store)}
    if library not in rows:
        raise UsageError(
            f"no knowledge base for {library!r}",
            hint=f"run: docmentor readme-llm generate --library {library}",
        )
    path = Path(rows[library].path) / "drift.json"
    if not path.is_file():
        raise UsageError(
            f"no drift report for {library!r}",
            hint="regenerate with Python examples and the package installed",
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    if as_json:
        _emit(data)
        return
    counts = data.get("counts", {})
    print(
        f"Drift report for {data.get('library')} {data.get('version') or ''}: {data.get('examples_checked', 0)} examples "
        f"checked, {counts.get('missing_api', 0)} missing APIs, {counts.get('invalid_api_signature', 0)} invalid signatures"
    )
    for f in data.get("findings", []):
        hint = f" (did you mean {f['suggestion']}?)" if f.get("suggestion") else ""
        print(f"{f['path']}:{f['line']}: {f['kind']}: {f['message']}{hint}")


def _knowledge() -> Any:
    from docmentor.readme_llm.service import LibraryKnowledge

    _require_index()
    return LibraryKnowledge(_open(create=False))


@api_app.command("find")
def api_find(
    query: Annotated[str, typer.Argument(help="The task, in words.")],
    library: Annotated[str | None, typer.Option("--library", "-l", help="Only this library.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="How many APIs.")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Find the APIs that do a task, with their real signatures."""
    if not 1 <= limit <= 50:
        raise UsageError("--limit must be between 1 and 50")
    data = _knowledge().find_api(query, max_results=limit, library=library)
    if as_json:
        _emit(data)
        return
    for w in data["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    if not data["results"]:
        print(f"no API matches {query!r}")
    for r in data["results"]:
        print(
            f"{r['rank']}. {r['api_id']}  [{r['library']}]  relevance {r['relevance']:.2f}, importance {r['importance']:.2f}"
        )
        print(f"   {r['signature']}")
        if r["description"]:
            print(f"   {r['description']}")


@api_app.command("examples")
def api_examples(
    task: Annotated[str, typer.Argument(help="The task, in words.")],
    api: Annotated[
        list[str] | None, typer.Option("--api", help="An API the example should use (repeatable).")
    ] = None,
    complexity: Annotated[
        str, typer.Option("--complexity", help="beginner, intermediate, advanced or any.")
    ] = "any",
    library: Annotated[str | None, typer.Option("--library", "-l", help="Only this library.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Code examples from the documentation for a task."""
    data = _knowledge().get_examples(task, apis_involved=api, complexity=complexity, library=library)
    if as_json:
        _emit(data)
        return
    for w in data["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    if not data["examples"]:
        print(f"no example matches {task!r}")
    for ex in data["examples"]:
        print(f"### {ex['title']}  ({ex['source']}, {ex['complexity']})")
        print(f"```{ex['language']}\n{ex['code'].rstrip()}\n```\n")


@api_app.command("overview")
def api_overview(
    library: Annotated[str, typer.Argument(help="The library.")],
    aspect: Annotated[
        str, typer.Option("--aspect", help="architecture, quickstart, concepts or all.")
    ] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The library's overview from its knowledge base."""
    data = _knowledge().overview(library, aspect=aspect)
    if as_json:
        _emit(data)
        return
    print(f"# {data['library']} {data['versions'].get(data['library']) or ''}".rstrip())
    print(data["overview"])


@feedback_app.command("analyze")
def feedback_analyze(
    library: Annotated[
        str | None, typer.Option("--library", "-l", help="Only this library's reports.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    output_report: Annotated[
        Path | None, typer.Option("--output-report", help="Also write the report (JSON) here.")
    ] = None,
) -> None:
    """Summary, top failing queries, missing examples, unclear APIs and recommendations."""
    from docmentor.readme_llm.feedback import analyze, report_text

    _require_index()
    data = analyze(_open(create=True).store, library)
    if output_report is not None:
        try:
            output_report.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {output_report}: {exc.strerror or exc}") from None
    if as_json:
        _emit(data)
    else:
        sys.stdout.write(report_text(data))


@eval_app.command("api")
def eval_api(
    questions: Annotated[Path, typer.Argument(help='JSONL: {"query", "expected_api": [...]} per line.')],
    library: Annotated[str | None, typer.Option("--library", "-l", help="Only this library.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Per-question results and the summary as JSON.")
    ] = False,
) -> None:
    """API lookup quality: top-1, top-3 and MRR of find_api (a hit equals any expected id or alias)."""
    from docmentor.evaluation import load_questions

    qs = [q for q in load_questions(questions) if q.get("expected_api")]
    if not qs:
        raise UsageError(f'{questions}: no question has "expected_api"')
    knowledge = _knowledge()
    rows = []
    for q in qs:
        data = knowledge.find_api(q["query"], max_results=10, library=library)
        want = set(q["expected_api"])
        rank = next((r["rank"] for r in data["results"] if want & {r["api_id"], *r["aliases"]}), None)
        rows.append(
            {
                "id": q["id"],
                "query": q["query"],
                "rank": rank,
                "top": [r["api_id"] for r in data["results"][:3]],
            }
        )
    n = len(rows)
    summary = {
        "questions": n,
        "top1": round(sum(1 for r in rows if r["rank"] == 1) / n, 4),
        "top3": round(sum(1 for r in rows if r["rank"] and r["rank"] <= 3) / n, 4),
        "mrr": round(sum(1 / r["rank"] for r in rows if r["rank"]) / n, 4),
    }
    if as_json:
        _emit({"summary": summary, "questions": rows})
        return
    for r in rows:
        print(f"{r['id']}\t{r['rank'] or '-'}\t{r['query'][:70]}")
    print(f"questions={n} top1={summary['top1']:.3f} top3={summary['top3']:.3f} mrr={summary['mrr']:.3f}")


@app.command()
def serve(
    transport: Annotated[
        str, typer.Option("--transport", "-t", help="stdio or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[str, typer.Option("--host", help="HTTP host.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port.")] = 8765,
    tools: Annotated[
        str, typer.Option("--tools", help="Tool groups to expose (docs, api, assemble, clarity, feedback).")
    ] = "docs,api,assemble,clarity,feedback",
    refresh_interval: Annotated[
        float,
        typer.Option(
            "--refresh-interval", help="Refresh all sources every N hours in the background (0 = off)."
        ),
    ] = 0.0,
) -> None:
    """Run the MCP server (stdio for Claude Code / Cursor, or stateless streamable HTTP)."""
    from docmentor.server import run_server

    if transport not in ("stdio", "http"):
        raise UsageError(f"unknown transport {transport!r}", hint="use stdio or http")
    groups = [t.strip() for t in tools.split(",") if t.strip()]
    run_server(
        db=_db_path(),
        transport=transport,
        host=host,
        port=port,
        tools=groups,
        refresh_interval_hours=refresh_interval,
    )


class GateFailed(DocmentorError):
    """A clarity gate (--min-score, --fail-on-critical) failed; the report was still printed."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (1 for errors, 2 for usage errors)."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("DOCMENTOR_DEBUG") == "1"
    try:
        rc = app(args=args, prog_name="docmentor", standalone_mode=False)
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
        print(f"error: {exc.format_message()}{where}", file=sys.stderr)
        return 2
    except DocmentorError as exc:
        if debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
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
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
