"""Commands on sources and the index: add, refresh, sources, remove, reindex, search, get."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from docmentor import DEFAULT_REFRESH_DEADLINE, MAX_RESULTS, SourceUnavailableError, UsageError
from docmentor.cli.app import (
    STATE,
    DocsVersion,
    app,
    count,
    embed_sources,
    emit,
    index_exists,
    open_engine,
    progress,
    require_index,
)

if TYPE_CHECKING:
    from docmentor import EmbedReport, RefreshReport, SourceSpec


def _report_line(r: RefreshReport) -> str:
    parts = [f"{r.source}: {count(r.documents, 'document')}, {count(r.sections, 'section')}"]
    parts.append(f"(+{r.added} new, {r.updated} updated, {r.unchanged} unchanged, -{r.removed} removed")
    refused = sum(1 for path, _ in r.failed if path in r.refused)  # links the policy refuses
    if len(r.failed) > refused:
        parts[-1] += f", {len(r.failed) - refused} failed"
    if refused:
        parts[-1] += f", {refused} refused"
    parts[-1] += f") in {r.seconds:.2f}s"
    return " ".join(parts)


def _embedding_line(e: EmbedReport | None, source: str | None = None) -> str | None:
    """What an embedding run after ``add`` (of ``source``) or ``refresh`` did, if anything."""
    if e is None or not (e.embedded or e.pending):
        return None
    line = f"{source + ': ' if source else ''}{e.embedded} search units embedded in {e.seconds:.2f}s"
    others = [s for s in e.sources if s != source]
    if source and e.embedded and others:  # a text two sources share is one vector for both
        line += f" ({'with ' if source in e.sources else ''}those of {', '.join(others)})"
    if e.pending:
        line += f"; {e.pending} search units not embedded yet"
    return line


SHOWN_ALSO = 3  # other places of a collapsed search result, then their count
SHOWN_MISSING_INCLUDES = 5  # then one line with the count and what to do
SHOWN_FAILED = 10  # documents that could not be read, then one line with the count


def _warn(report: RefreshReport, target: str | None = None) -> None:
    from docmentor import group_warnings

    said = group_warnings(
        report, target, shown_missing_includes=SHOWN_MISSING_INCLUDES, shown_failed=SHOWN_FAILED
    )
    for w in said.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if said.more_missing_includes:
        more = said.more_missing_includes
        print(
            f"warning: … and {more} more includes not read (not found, or outside the folders it may read){said.include_hint}",
            file=sys.stderr,
        )
    elif said.include_hint:  # a few, each shown above: what to do about them all the same
        print(f"hint: includes not read{said.include_hint}", file=sys.stderr)
    for path, err in said.failed:
        print(f"warning: {path}: {err}", file=sys.stderr)
    if said.more_failed:  # a 429 storm on a big site: not a thousand lines
        print(
            f"warning: … and {said.more_failed} more documents could not be read (--json lists them all)",
            file=sys.stderr,
        )


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
    translations: Annotated[
        bool,
        typer.Option(
            "--translations",
            help="Folders: also index the trees that translate the docs (zh/, ja/ … beside the "
            "pages they translate; left out by default).",
        ),
    ] = False,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", help="llms.txt: documents fetched at once (default 8).")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="llms.txt: seconds per request (default 20).")
    ] = None,
    version: Annotated[
        str | None,
        typer.Option(
            "--version",
            help="The library version the docs describe: the source is named NAME@VERSION, beside "
            "the library's other versions (default: read from the docs' package metadata, the "
            "llms.txt or the installed package).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Register a documentation source and index it now. Adding an existing name re-indexes it."""
    from docmentor import Docmentor, SourceOptions, index_removed_on_failure, split_named

    if name is None and not _is_path(target):  # a folder named "we:ird" is a folder, not NAME:TARGET
        name, target = split_named(target)
    options = SourceOptions(  # it checks the values: an error names them as the flags
        base_paths=tuple(str(p.expanduser().resolve()) for p in base_path) if base_path else None,
        allowed_hosts=tuple(allow_host) if allow_host else None,
        max_bytes=max_bytes,
        include_optional=False if no_optional else None,
        translations=True if translations else None,
        concurrency=concurrency,
        timeout=timeout,
        version=version.strip() if version is not None else None,
    )
    # a bad target, or a bad default in docmentor.toml, fails before an index is made
    defaults = _config_defaults(Docmentor.make_spec(target, name=name, options=options))
    with index_removed_on_failure(STATE.db):  # a failed command changes nothing: not even an empty index
        engine = open_engine(create=True)
        try:
            with progress(not as_json) as cb:
                report = engine.add(target, name=name, options=options, progress=cb, embed=False)
        except BaseException:
            engine.close()
            raise
    if not as_json:  # said before the embedding run: the source is searchable by words already
        _warn(report, target)
        print(_report_line(report), flush=True)
        if defaults is not None:  # what the flags did not say came from there: say so
            print(f"note: {defaults}", file=sys.stderr)
        if report.version:  # where it was read: a wrong guess is fixed with --version
            origin = _ORIGINS.get(str(report.version_origin), report.version_origin)
            print(f"{report.source}: version {report.version} ({origin})", file=sys.stderr)
    report = replace(report, embedding=embed_sources(engine, not as_json, [report.source]))
    engine.close()
    if as_json:
        emit(report.to_dict())
    elif (line := _embedding_line(report.embedding, report.source)) is not None:
        print(line)
    STATE.finished = True
    if report.nothing_read:  # a script must not read it as done
        where = "the failed documents in the JSON" if as_json else "the warnings above"
        if report.documents > 1:  # added before: its pages keep their last good copies
            raise SourceUnavailableError(
                f"not one linked document of {report.source} could be read",
                hint=f"what was read before stays, marked with the error; see {where}",
            )
        raise SourceUnavailableError(
            f"not one linked document of {report.source} could be read; the source is added "
            "with its llms.txt alone",
            hint=f"see {where}; `docmentor refresh {report.source}` tries again, "
            f"`docmentor remove {report.source}` drops it",
        )


def _config_defaults(spec: SourceSpec) -> str | None:
    """Which options ``add`` takes from the working folder's docmentor.toml (those no flag
    gave), in words; None: none. Raises its error when a default there is malformed."""
    from docmentor import load_config, with_defaults

    cfg = load_config()
    _, taken = with_defaults(spec.options, cfg, llms=spec.kind != "folder")
    if not taken:
        return None
    given = ", ".join(f"{k} = {v!r}" for k, v in taken.items())
    return f"options from {cfg.origin}: {given} (a flag given to add wins)"


#: how ``sources`` and ``add`` say where a version was read
_ORIGINS = {
    "given": "given",
    "pyproject.toml": "from the project's pyproject.toml",
    "package.json": "from the project's package.json",
    "setup.cfg": "from the project's setup.cfg",
    "PKG-INFO": "from the sdist's PKG-INFO",
    "llms.txt": "stated in the llms.txt",
    "installed": "of the package installed beside docmentor",
}


def _is_path(target: str) -> bool:
    try:
        return Path(target).expanduser().exists()
    except (OSError, ValueError):  # a name too long for the system, a NUL byte
        return False


@app.command()
def refresh(
    name: Annotated[str | None, typer.Argument(help="Source to refresh (default: all).")] = None,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Remove the documents a source no longer has even when that is most of them "
            "(without it, a refresh that would leave a source of 4 or more documents fewer than "
            "half of them keeps them, marked stale, and warns).",
        ),
    ] = False,
    deadline: Annotated[
        float,
        typer.Option(
            "--deadline",
            min=1.0,
            help="Seconds the whole refresh may take; llms.txt documents not fetched by then keep "
            "their last good copy.",
        ),
    ] = DEFAULT_REFRESH_DEADLINE,
    as_json: Annotated[bool, typer.Option("--json", help="Print the reports as JSON.")] = False,
) -> None:
    """Re-read sources and index what changed. Unchanged documents are skipped, vanished ones removed, failures keep the old copy."""
    from docmentor import configured_named, load_config, refresh_pass

    configured = load_config().sources
    wanted = configured if name is None else [s for s in [configured_named(name, configured)] if s]
    if not index_exists() and not wanted:
        require_index()  # nothing to refresh: say so without creating an index
    engine = open_engine(create=True)
    targets = {str(s["name"]): str(s["target"]) for s in engine.sources()}
    targets.update({src.name: src.target for src in configured if src.name not in targets})
    with progress(not as_json) as cb:  # all: the configured sources not indexed yet too
        reports = refresh_pass(  # --json: one source's failure is in the JSON, as all sources' are
            engine,
            name,
            configured=configured,
            progress=cb,
            prune=prune,
            deadline=deadline,
            report_errors=as_json,
        )
    if not as_json:  # said before the embedding run: what changed is searchable by words already
        for r in reports:
            if r.error and r.kind == "configured":  # a configured source never read: nothing to count
                print(f"warning: {r.source}: not indexed: {r.error}", file=sys.stderr)
                continue
            _warn(r, targets.get(r.source))
            print(_report_line(r), flush=True)
        if not reports:
            print("no sources: add one with `docmentor add PATH_OR_URL`")
    # `refresh NAME` embeds NAME's sections, not those other sources were added without
    only = [r.source for r in reports] if name is not None else None
    embedded = embed_sources(engine, not as_json, only) if reports else None
    engine.close()
    if as_json:
        emit(
            {"sources": [r.to_dict() for r in reports], "embedding": embedded.to_dict() if embedded else None}
        )
    elif (line := _embedding_line(embedded)) is not None:
        print(line)
    STATE.finished = True
    failed = [r.source for r in reports if r.error]
    # and those whose every linked page failed: a cron job must not read that as success
    unread = [r.source for r in reports if r.nothing_read and not r.error]
    if failed or unread:  # the others were refreshed; these keep what they had
        said = []
        if failed:
            said.append(
                f"{len(failed)} of {len(reports)} sources could not be refreshed: {', '.join(failed)}"
            )
        if unread:
            said.append(f"not one linked document of {', '.join(unread)} could be read")
        where = "the warnings above"
        if as_json:
            where = "each source's error" + (" and failed documents" if unread else "") + " in the JSON"
        raise SourceUnavailableError("; ".join(said), hint=f"they keep their previous content; see {where}")


@app.command(short_help="List the sources, indexed and configured.")
def sources(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the indexed sources, then the configured ones (docmentor.toml) not indexed yet."""
    from docmentor import load_config, not_indexed_yet

    configured = load_config().sources  # a broken docmentor.toml is an error here, not a log line
    engine = open_engine(create=False) if index_exists() else None
    indexed = engine.sources() if engine is not None else []
    rows: list[Mapping[str, Any]] = [*indexed, *not_indexed_yet(indexed, configured)]
    embedding = engine is not None and engine.embeddings
    if as_json:
        emit({"sources": rows})
        return
    if not rows:
        print("no sources: add one with `docmentor add PATH_OR_URL`")
    for s in rows:
        if s["status"] == "not indexed":  # configured in docmentor.toml, never indexed here
            print(
                f"{s['name']}\tconfigured\tnot indexed yet\t{s['target']}\t(`docmentor refresh` indexes it)"
            )
            continue
        stale = f", {s['stale_documents']} stale" if s["stale_documents"] else ""
        if embedding and s["units"] and s["embedded"] < s["units"]:
            stale += f", {s['embedded']}/{s['units']} embedded"
        err = f"  [error: {s['error']}]" if s["error"] else ""
        version = (
            f"\tversion {s['version']} ({s['version_origin'] or 'origin unknown'})" if s["version"] else ""
        )
        print(
            f"{s['name']}\t{s['kind']}\t{count(s['documents'], 'document')}, {count(s['sections'], 'section')}{stale}\t"
            f"{s['target']}\trefreshed {s['refreshed_at']}{err}{version}"
        )


@app.command()
def remove(name: Annotated[str, typer.Argument(help="Source to remove.")]) -> None:
    """Remove a source and everything indexed from it."""
    require_index()
    open_engine(create=True).remove(name)
    print(f"removed {name}")


@app.command()
def reindex() -> None:
    """Rebuild the search index from the stored documents."""
    require_index()
    n = open_engine(create=True).reindex()
    # units, not sections: tiny sections are searched as part of the one before them
    print(f"reindexed {n} search units")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for: words, identifiers or a whole question.")],
    source: Annotated[
        str | None,
        typer.Option("--source", "-s", help="Only this source, or library (every version of it)."),
    ] = None,
    version: DocsVersion = None,
    limit: Annotated[int, typer.Option("--limit", "-l", help="How many sections (at most 100).")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the contract's JSON.")] = False,
) -> None:
    """Search the indexed documentation. Results are sections, best first."""
    if not query.strip():
        raise UsageError("empty query", hint="search for words, an identifier or a question")
    engine = open_engine(create=False)
    hits = engine.search(query, source=source, version=version, limit=limit)
    notes = list(engine.version_scope(source, version).notes)  # a pin no indexed version fits
    if as_json:
        emit({"query": query, "results": [h.to_dict() for h in hits], **({"notes": notes} if notes else {})})
        return
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if limit > MAX_RESULTS:
        print(f"note: --limit is at most {MAX_RESULTS}: the best {MAX_RESULTS} are shown", file=sys.stderr)
    if not hits:
        shown = query if len(query) <= 80 else query[:77] + "…"
        print(f"no results for {shown!r}")
    for h in hits:
        where = " › ".join(h.heading_path) or h.title
        chosen = f", {h.version_reason}" if h.version_reason else ""
        tag = f"{h.source} {h.source_version}{chosen}" if h.version_reason else h.source
        gone = "  (stale: the last refresh could not update it; get --json says why)" if h.stale else ""
        print(f"{h.rank}. {where}  [{tag}] {h.path}:{h.line_start}-{h.line_end}  (score {h.score:.2f}){gone}")
        for line in h.snippet.splitlines()[:6]:
            print(f"   {line}")
        if h.also:  # the same or near-identical text elsewhere, collapsed into this result
            places = [
                f"{'' if a['source'] == h.source else a['source'] + ' '}{a['path']}:{a['line_start']}-{a['line_end']}"
                for a in h.also[:SHOWN_ALSO]
            ]
            more = f" and {len(h.also) - SHOWN_ALSO} more" if len(h.also) > SHOWN_ALSO else ""
            print(f"   also in: {', '.join(places)}{more}")
        print()


@app.command()
def get(
    ref: Annotated[
        str,
        typer.Argument(
            help="A document URL, SOURCE:PATH, a path with --source, an indexed file, or a source "
            "followed by PATH."
        ),
    ],
    path: Annotated[
        str | None,
        typer.Argument(help="With a source as the first argument: the path in it.", show_default=False),
    ] = None,
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
    """Print a stored document as written, includes resolved."""
    if path is not None:  # `get vitest guide/cli.md`, as two tours first wrote it
        if ":" in ref:  # a URL or SOURCE:PATH is the whole reference
            raise UsageError(
                f"unexpected extra argument {path!r}: {ref!r} is a whole reference",
                hint="docmentor get SOURCE:PATH, or docmentor get SOURCE PATH",
            )
        if source is not None:
            raise UsageError(
                f"give the source once: {ref!r} and --source {source!r}",
                hint=f"docmentor get {source}:{path}",
            )
        ref, source = path, ref
    span: tuple[int, int] | None = None
    if lines is not None:
        a, sep, b = lines.partition("-")
        if not (a.strip().isdigit() and (not sep or b.strip().isdigit())):
            raise UsageError(f"--lines {lines!r}: expected START-END, e.g. 12-40")
        span = (int(a), int(b) if sep else int(a))
    page = open_engine(create=False).get(ref, source=source, offset=offset, limit=limit, lines=span)
    if as_json:
        emit(page.to_dict())
        return
    sys.stdout.write(page.content)
    if not page.content.endswith("\n"):
        sys.stdout.write("\n")
    if page.stale:  # the last good copy: said where a reader sees it, not only in --json
        print(
            f"note: stale: the last refresh could not update it ({page.error or 'see get --json'})",
            file=sys.stderr,
        )
    if page.note:  # another version of the library than searches answer from
        print(f"note: {page.note}", file=sys.stderr)
    if page.has_more:
        left = (page.span_length or page.total_length) - page.offset - page.length
        print(f"\n… {left} more characters: --offset {page.offset + page.length}", file=sys.stderr)
