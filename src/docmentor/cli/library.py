"""Library knowledge sub-apps: readme-llm (generate, drift), api (find, examples, overview), feedback."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import click
import typer

from docmentor import UsageError, cannot_write
from docmentor.cli.app import (
    STATE,
    GateFailed,
    KbVersion,
    app,
    emit,
    index_exists,
    open_engine,
    open_knowledge,
    progress,
    require_index,
)

if TYPE_CHECKING:
    from docmentor import Docmentor

readme_app = typer.Typer(
    help="Generate README.LLM and a library knowledge base from docs and the real API.",
    short_help="README.LLM and a knowledge base from docs and the real API.",
    no_args_is_help=True,
)
app.add_typer(readme_app, name="readme-llm")

api_app = typer.Typer(
    help="Ask a generated library knowledge base: APIs, examples, overview.",
    short_help="Ask a library knowledge base: APIs, examples, overview.",
    no_args_is_help=True,
)
app.add_typer(api_app, name="api")
feedback_app = typer.Typer(
    help="What agents reported through report_issue, and what to fix.", no_args_is_help=True
)

app.add_typer(feedback_app, name="feedback")

# fixed values as choices: a wrong one is a usage error (exit 2) that lists them, and --help
# shows them; spelled here so `docmentor --help` imports no library code (a test checks
# they equal the library's OUTPUT_FORMATS and the service's COMPLEXITIES / ASPECTS)
OUTPUT_FORMAT_CHOICES = ("monolithic", "knowledge_base", "both")
COMPLEXITY_CHOICES = ("beginner", "intermediate", "advanced", "any")
ASPECT_CHOICES = ("architecture", "quickstart", "concepts", "all")


@readme_app.command("generate", short_help="Generate README.LLM and the knowledge base.")
def readme_generate(
    name: Annotated[
        str | None, typer.Argument(metavar="[LIBRARY]", help="The library (as --library), named first.")
    ] = None,
    library: Annotated[
        str | None, typer.Option("--library", "-l", help="The library (its Python import name).")
    ] = None,
    docs_path: Annotated[
        Path | None,
        typer.Option(
            "--docs-path",
            help=(
                "The library's documentation folder, indexed as source LIBRARY-docs. Needed the first "
                "time; later runs without it reuse that source. With neither, README.LLM is built from "
                "the API alone (a warning says so)."
            ),
        ),
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
        str,
        typer.Option(
            "--output-format", help="What to write.", click_type=click.Choice(OUTPUT_FORMAT_CHOICES)
        ),
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
    embeddings: Annotated[
        bool,
        typer.Option(
            "--embeddings/--no-embeddings",
            help="Embed every API (offline MiniLM) for find_api's semantic ranking.",
        ),
    ] = True,
    base_path: Annotated[
        list[Path] | None,
        typer.Option(
            "--base-path",
            help="Extra folder the docs' includes may read from, e.g. ../README.md's (repeatable).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Generate README.LLM and the knowledge base, and register it in the index."""
    from docmentor import generate

    if name and library and name != library:
        raise UsageError(f"two libraries named: {name!r} and --library {library!r}", hint="name one")
    library = library or name
    if not library:
        raise UsageError(
            "name the library", hint="docmentor readme-llm generate LIBRARY (or --library LIBRARY)"
        )
    engine = open_engine(create=True)
    with progress(not as_json, describe=str) as update:
        result = generate(
            engine,
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
            embeddings=embeddings and STATE.embeddings is not False,  # `docmentor --no-embeddings` too
            progress=update,
            base_paths=base_path or (),
        )
    if as_json:
        emit(result.to_dict())
        return
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(
        f"{result.library} {result.version or '(version unknown)'}: {result.api_count} APIs, "
        f"{result.example_count} examples ({result.matched_examples} matched to APIs)"
        + (f", {result.docstring_examples} from docstrings" if result.docstring_examples else "")
    )
    if result.readme_path:
        print(
            f"README.LLM: {result.readme_path} ({result.readme_sections} sections, {result.readme_tokens} tokens)"
        )
    if result.kb_path:
        print(f"knowledge base: {result.kb_path} (registered, generation {result.generation})")
    if result.docs_source:
        _say_docs_search(engine, result.docs_source, library)
    if result.drift and not result.drift.get("examples_checked") and result.drift.get("examples_not_checked"):
        # no Python example to check: "0 missing APIs" would read as a clean bill (a tour)
        print(
            f"drift: not checked ({result.drift['examples_not_checked']} examples in other languages; "
            "drift reads Python examples only)"
        )
    elif result.drift:
        print(
            f"drift: {result.drift.get('missing_api', 0)} missing APIs, "
            f"{result.drift.get('invalid_api_signature', 0)} invalid signatures, "
            f"{result.drift.get('deprecated_api', 0)} uses of deprecated APIs (docmentor readme-llm drift)"
        )
    if result.validation:
        v = result.validation
        print(
            f"validation: {v.get('passed', 0)} passed, {v.get('failed', 0)} failed, {v.get('skipped', 0)} skipped"
        )


@readme_app.command("list", short_help="The libraries with a knowledge base.")
def readme_list(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """The libraries with a registered knowledge base (what find_api, the api commands and the
    MCP tools answer about): version, APIs, examples, generation and folder."""
    from docmentor import knowledge_bases

    rows = knowledge_bases(open_engine(create=False)) if index_exists() else []
    if as_json:
        emit({"knowledge_bases": [r.to_dict() for r in rows]})
        return
    if not rows:
        print("no knowledge bases: make one with `docmentor readme-llm generate --library NAME`")
        return
    for r in rows:
        print(
            f"{r.library}\t{r.version or '(version unknown)'}\t{r.api_count} APIs, {r.example_count} examples"
            f"\tgeneration {r.generation}, {r.generated_at}\t{r.path}"
        )


@readme_app.command("remove", short_help="Unregister a library's knowledge base.")
def readme_remove(
    library: Annotated[
        str, typer.Option("--library", "-l", help="A library with a generated knowledge base.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Unregister a library's knowledge base: find_api, the api commands and the MCP tools
    stop serving it. Its output folder and its docs source stay (docmentor remove NAME-docs)."""
    from docmentor import remove_knowledge_base

    require_index()
    removed = remove_knowledge_base(open_engine(create=False), library)
    if as_json:
        emit(removed.to_dict())
        return
    print(
        f"removed the knowledge base of {library} {removed.version or ''} (its folder stays: {removed.path})"
    )
    if removed.docs_source:
        docs = removed.docs_source
        print(f"its docs are still indexed as the source {docs} (docmentor remove {docs})")


@readme_app.command("drift", short_help="Documented calls the installed version lacks or rejects.")
def readme_drift(
    library: Annotated[
        str, typer.Option("--library", "-l", help="A library with a generated knowledge base.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    check: Annotated[
        bool,
        typer.Option("--check", help="Exit 1 when a documented call is missing or rejected (for CI)."),
    ] = False,
    version: KbVersion = None,
) -> None:
    """Documented calls that the installed version does not have or accept (from the last generation)."""
    from docmentor import LibraryKnowledge, drift_report

    require_index()
    engine = open_engine(create=False)
    # of several versions' knowledge bases: the one find_api answers from (asked, pinned, newest)
    report = drift_report(engine, LibraryKnowledge(engine).registered_name(library, version))
    if as_json:
        emit(report.to_dict())
    else:
        print(
            f"Drift report for {report.library} {report.version or ''}: {report.examples_checked} examples "
            f"checked, {report.missing} missing APIs, {report.invalid} invalid signatures, "
            f"{report.deprecated} uses of deprecated APIs"
            + (f" ({_not_checked(report.examples_not_checked)})" if report.examples_not_checked else "")
        )
        for f in report.findings:
            hint = f" ({f.suggestion})" if f.suggestion else ""  # a whole sentence already
            print(f"{f.path}:{f.line}: {f.kind}: {f.message}{hint}")
    if check and (report.missing or report.invalid):  # uses of deprecated APIs still run
        raise GateFailed(
            f"--check: {report.missing} missing APIs, {report.invalid} invalid signatures in the docs' examples"
        )


@api_app.command("find")
def api_find(
    query: Annotated[str, typer.Argument(help="The task, in words.")],
    library: Annotated[str | None, typer.Option("--library", "-l", help="Only this library.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="How many APIs (1-50).")] = 5,
    version: KbVersion = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Find the APIs that do a task, with their real signatures."""
    if not 1 <= limit <= 50:
        raise UsageError("--limit must be between 1 and 50")
    found = open_knowledge().find_api(query, max_results=limit, library=library, version=version)
    if as_json:
        emit(found.to_dict())
        return
    for w in found.warnings:
        print(f"warning: {w}", file=sys.stderr)
    _say_versions(found.versions, found.version_reasons)
    if not found.results:
        print(f"no API matches {query!r}")
    for r in found.results:
        shown = r.import_path  # `structlog.get_logger`, not `structlog._config…`
        print(f"{r.rank}. {shown}  [{r.library}]  relevance {r.relevance:.2f}, importance {r.importance:.2f}")
        print(f"   {r.signature}")
        if shown != r.api_id.partition("~")[0]:  # a shadowed submodule's id ends in `~module`
            print(f"   defined as {r.api_id}")
        if r.deprecated:
            print(f"   deprecated: {r.deprecated}")
        if r.description:
            print(f"   {r.description}")
        for line in r.raised:  # an exception: where the library raises it
            print(f"   {line}")
        if r.variants:  # another function (an async def beside a def): not an alias of this one
            print(
                f"   the {'async' if r.signature.startswith('async ') else 'sync'} edition of: {', '.join(r.variants)}"
            )


@api_app.command("examples")
def api_examples(
    task: Annotated[
        str | None, typer.Argument(help="The task, in words (optional with --api: the API's examples).")
    ] = None,
    api: Annotated[
        list[str] | None, typer.Option("--api", help="An API the example should use (repeatable).")
    ] = None,
    complexity: Annotated[
        str,
        typer.Option(
            "--complexity", help="How involved an example.", click_type=click.Choice(COMPLEXITY_CHOICES)
        ),
    ] = "any",
    library: Annotated[str | None, typer.Option("--library", "-l", help="Only this library.")] = None,
    version: KbVersion = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="How many examples (1-20).")] = 3,
) -> None:
    """Code examples from the documentation for a task."""
    if not 1 <= limit <= 20:
        raise UsageError("--limit must be between 1 and 20")
    # no task, with --api: that API's examples (a blank task alone is refused as such)
    found = open_knowledge().get_examples(
        task or "", apis_involved=api, complexity=complexity, library=library, version=version, limit=limit
    )
    if as_json:
        emit(found.to_dict())
        return
    for w in found.warnings:
        print(f"warning: {w}", file=sys.stderr)
    _say_versions(found.versions, found.version_reasons)
    if not found.examples:
        print(f"no example matches {task!r}" if task else f"no example uses {', '.join(api or [])}")
    for ex in found.examples:
        where = f"{ex.source}, its docstring" if ex.origin == "docstring" else ex.source
        print(f"### {ex.title}  [{ex.library}] ({where}, {ex.complexity})")
        for problem in ex.drift:  # the installed version refuses part of it: no model to copy
            print(f"warning: does not match the installed version: {problem}")
        print(f"```{ex.language}\n{ex.code.rstrip()}\n```\n")


@api_app.command("overview")
def api_overview(
    library: Annotated[str | None, typer.Argument(help="The library.")] = None,
    aspect: Annotated[
        str, typer.Option("--aspect", help="Which part.", click_type=click.Choice(ASPECT_CHOICES))
    ] = "all",
    version: KbVersion = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    library_option: Annotated[
        str | None,
        typer.Option("--library", "-l", help="The library (as `api find` and `api examples` take it)."),
    ] = None,
) -> None:
    """The library's overview from its knowledge base."""
    if library is not None and library_option is not None and library != library_option:
        raise UsageError(f"two libraries named: {library!r} and --library {library_option!r}")
    library = library or library_option
    overview = open_knowledge().overview(library, aspect=aspect, version=version)
    if as_json:
        emit(overview.to_dict())
        return
    _say_versions(overview.versions, overview.version_reasons)
    print(f"# {overview.library} {overview.versions.get(overview.library) or ''}".rstrip())
    print(overview.overview)


def _say_versions(versions: Mapping[str, str | None], reasons: Mapping[str, str]) -> None:
    """Which version of each library answered, where one was chosen among several."""
    for lib, why in sorted(reasons.items()):
        print(f"note: {lib} {versions.get(lib) or '(version unknown)'} answered ({why})", file=sys.stderr)


@feedback_app.command("analyze", short_help="What agents failed to find, and what to fix.")
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
    from docmentor import analyze_feedback, feedback_report

    require_index()
    engine = open_engine(create=True)
    analysis = analyze_feedback(engine.store, library)
    data = analysis.to_dict()
    if output_report is not None:
        try:
            output_report.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise cannot_write(output_report, exc) from None
    if as_json:
        emit(data)
    else:
        sys.stdout.write(feedback_report(analysis))


def _not_checked(n: int) -> str:
    """What drift says of the examples it did not read (as its report's text does)."""
    return f"{n} example{'s' if n != 1 else ''} in other languages not checked: drift reads Python only"


def _say_docs_search(engine: Docmentor, name: str, library: str) -> None:
    """Where the docs generate indexed are searched, and, when their sections are not all
    embedded yet, how they become searchable by meaning (a blinker tour: `sources` said
    0/18 embedded after generate, and nothing had said why)."""
    info = next((s for s in engine.sources() if s["name"] == name), None)
    if info is None:
        return
    units, embedded = int(info.get("units", 0)), int(info.get("embedded", 0))
    line = f"docs: source {name} ({units} search units; docmentor search -s {library} …)"
    if engine.embeddings and embedded < units:
        line += f"; by words until `docmentor refresh {name}` embeds them (serve does it in the background)"
    print(line)
