"""The assemble command and the eval sub-app (eval search, eval assemble, eval api)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import click
import typer

from docmentor import UsageError, cannot_write
from docmentor.cli.app import DocsVersion, app, count, emit, open_engine, open_knowledge, require_index

# fixed values as click choices: a wrong one is a usage error (exit 2) that lists them, and
# --help shows them; spelled here so `docmentor --help` loads no tokenizer (a test checks
# ENCODING_CHOICES equals docmentor.assemble.tokens.ENCODINGS)
FORMAT_CHOICES = ("markdown", "json")
ENCODING_CHOICES = ("o200k_base", "cl100k_base", "o200k_harmony", "qwen3.5")


@app.command(short_help="Assemble the docs for one question within a token budget.")
def assemble(
    query: Annotated[str, typer.Argument(help="The question or task to assemble documentation for.")],
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", help="Token budget of the whole digest (200 to 200000).")
    ] = 8000,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="The digest as Markdown, or structured.",
            click_type=click.Choice(FORMAT_CHOICES),
        ),
    ] = "markdown",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
    depth: Annotated[int, typer.Option("--depth", help="Cross-reference depth: 0, 1 or 2.")] = 1,
    sections: Annotated[
        int, typer.Option("--sections", help="At most this many sections (before cross-references).")
    ] = 20,
    source: Annotated[
        str | None,
        typer.Option("--source", "-s", help="Only this source, or library (every version of it)."),
    ] = None,
    version: DocsVersion = None,
    encoding: Annotated[
        str,
        typer.Option(
            "--encoding",
            help="Tokenizer the budget is counted with.",
            click_type=click.Choice(ENCODING_CHOICES),
        ),
    ] = "o200k_base",
    allow_empty: Annotated[
        bool, typer.Option("--allow-empty", help="Exit 0 with an empty digest when nothing matches.")
    ] = False,
) -> None:
    """Assemble the best documentation for one question into a digest that fits a token budget."""
    from docmentor import assemble_context

    require_index()
    digest = assemble_context(
        open_engine(create=False),
        query,
        fmt=fmt,
        max_tokens=max_tokens,
        depth=depth,
        sections=sections,
        source=source,
        encoding=encoding,
        allow_empty=allow_empty,
        version=version,
    )
    text = digest.markdown if fmt == "markdown" else digest.json_text
    if digest.empty_reason == "nothing_fit":
        # sections matched but none fit: say so on stderr, whatever the format (an empty JSON
        # digest must not pass for "nothing matched")
        print(
            f"warning: {digest.stats['candidate_sections']} section(s) matched but none fit within "
            f"{max_tokens} tokens; raise --max-tokens",
            file=sys.stderr,
        )
    if output is not None:
        try:
            output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        except OSError as exc:
            raise cannot_write(output, exc) from None
        print(
            f"wrote {output} ({digest.actual_tokens} tokens, {count(len(digest.sections), 'section')})",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _minimum_option(names: str) -> Any:
    """``--min NAME=VALUE`` of an eval command, naming its figures."""
    return typer.Option(
        "--min", metavar="NAME=VALUE", help=f"Exit 1 when a figure is below VALUE (repeatable; {names})."
    )


eval_app = typer.Typer(
    help="Measure search and assembly on your own labelled questions (JSONL).",
    short_help="Measure search and assembly on labelled questions.",
    no_args_is_help=True,
)
app.add_typer(eval_app, name="eval")


@eval_app.command("search", short_help="Search quality: MRR@10, Recall@k, nDCG@10.")
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
    minimum: Annotated[list[str] | None, _minimum_option("mrr, r@5, section.mrr …")] = None,
) -> None:
    """Search quality: document- and section-level MRR@10, Recall@k and nDCG@10."""
    from docmentor import check_labels, evaluate_search, load_questions, parse_minimums

    minimums = parse_minimums(minimum or [], "search")
    qs = load_questions(questions, harness="search")
    require_index()
    engine = open_engine(create=False)
    labels = check_labels(engine, qs, source=source)
    unmatched = labels.unmatched
    if labels.none_indexed:
        raise UsageError(
            f"none of the {labels.labelled} labelled documents is indexed"
            + (f" in source {source!r}" if source else "")
            + f" (first: {unmatched[0]})",
            hint="label paths are relative to the folder that was added; add that folder, or pass --source",
        )
    if unmatched:
        print(
            f"warning: {len(unmatched)} labelled document(s) not indexed, scored as misses: "
            + ", ".join(unmatched[:3])
            + (" …" if len(unmatched) > 3 else ""),
            file=sys.stderr,
        )
    if labels.headings_missing:  # a renamed heading or a typo: those labels can only miss
        gone = labels.headings_missing
        print(
            f"warning: {len(gone)} labelled heading(s) not in their document, scored as misses: "
            + ", ".join(gone[:3])
            + (" …" if len(gone) > 3 else ""),
            file=sys.stderr,
        )
    run = evaluate_search(engine, labels, source=source, root=root)
    rows, summary = list(run.questions), run.summary()
    if as_json:
        emit({"summary": summary, "questions": rows})
    else:
        for r in rows:
            print(
                f"{r['id']}\tdoc MRR {r['doc']['mrr']:.2f}\tsection MRR {r['section']['mrr']:.2f}\t{r['query'][:70]}"
            )
        d, s_ = summary["document"], summary["section"]
        print(f"questions={summary['questions']}")
        print("document " + " ".join(f"{k}={v:.3f}" for k, v in d.items()))
        print("section  " + " ".join(f"{k}={v:.3f}" for k, v in s_.items()))
    _gate(summary, minimums)


@eval_app.command("assemble", short_help="Assembly quality: expected strings in each digest.")
def eval_assemble(
    questions: Annotated[Path, typer.Argument(help='JSONL: {"query", "expected_contains": [...]} per line.')],
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", help="Token budget per digest (200 to 200000).")
    ] = 8000,
    source: Annotated[str | None, typer.Option("--source", "-s", help="Only this source.")] = None,
    depth: Annotated[int, typer.Option("--depth", help="Cross-reference depth.")] = 1,
    as_json: Annotated[
        bool, typer.Option("--json", help="Per-question results and the summary as JSON.")
    ] = False,
    minimum: Annotated[list[str] | None, _minimum_option("pass_rate, mean_coverage")] = None,
) -> None:
    """Assembly quality: share of expected strings in each digest; a question passes at ≥ 0.8."""
    from docmentor import evaluate_assemble, load_questions, parse_minimums

    minimums = parse_minimums(minimum or [], "assemble")
    qs = load_questions(questions, harness="assemble")
    require_index()
    result = evaluate_assemble(
        open_engine(create=False), qs, max_tokens=max_tokens, source=source, depth=depth
    )
    rows, summary = [q.to_dict() for q in result.questions], result.summary()
    passed = result.passed
    if as_json:
        emit({"summary": summary, "questions": rows})
    else:
        for r in rows:
            miss = f"\tmissing: {', '.join(r['missing'])}" if r["missing"] else ""
            print(
                f"{r['id']}\t{r['coverage']:.2f}\t{'pass' if r['passed'] else 'FAIL'}\t{r['tokens']} tokens{miss}"
            )
        print(
            f"passed {passed}/{len(rows)} ({summary['pass_rate']:.0%}), mean coverage {summary['mean_coverage']:.2f}"
        )
    _gate(summary, minimums)


@eval_app.command("api", short_help="API lookup quality: top-1, top-3 and MRR of find_api.")
def eval_api(
    questions: Annotated[Path, typer.Argument(help='JSONL: {"query", "expected_api": [...]} per line.')],
    library: Annotated[str | None, typer.Option("--library", "-l", help="Only this library.")] = None,
    limit: Annotated[
        int, typer.Option("--limit", help="Results asked per question: a rank beyond counts as not found.")
    ] = 10,
    as_json: Annotated[
        bool, typer.Option("--json", help="Per-question results and the summary as JSON.")
    ] = False,
    minimum: Annotated[list[str] | None, _minimum_option("top1, top3, mrr")] = None,
) -> None:
    """API lookup quality: top-1, top-3 and MRR of find_api (a hit equals any expected id or alias)."""
    if not 1 <= limit <= 50:
        raise UsageError("--limit must be between 1 and 50")
    from docmentor import evaluate_api, load_questions, parse_minimums

    minimums = parse_minimums(minimum or [], "api")
    qs = load_questions(questions, harness="api")
    result = evaluate_api(open_knowledge(), qs, limit=limit, library=library)
    summary = result.summary()
    if as_json:
        emit({"summary": summary, "questions": [q.to_dict() for q in result.questions]})
    else:
        print(f"id\trank ('-': not in the first {limit})\tquery")
        for r in result.questions:
            print(f"{r.id}\t{r.rank or '-'}\t{r.query[:70]}")
        print(
            f"questions={summary['questions']} top1={summary['top1']:.3f} top3={summary['top3']:.3f} "
            f"mrr={summary['mrr']:.4f}"
        )
    _gate(summary, minimums)


def _gate(summary: dict[str, Any], minimums: dict[str, float]) -> None:
    """Exit 1, naming them, when figures are below their ``--min`` (after the results)."""
    from docmentor import below_minimums

    failed = below_minimums(summary, minimums)
    if failed:
        print(f"error: below the minimum: {'; '.join(failed)}", file=sys.stderr)
        raise typer.Exit(1)
