"""The clarity sub-app: clarity score and clarity rubric."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from docmentor import UsageError
from docmentor.cli.app import GateFailed, app, count, emit, index_exists, open_engine, require_index

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from docmentor import ClarityReport, ClarityScore

clarity_app = typer.Typer(
    help="Deterministic documentation clarity scores, explanations and roadmaps.",
    short_help="Documentation clarity: scores, explanations, roadmaps.",
    no_args_is_help=True,
)
app.add_typer(clarity_app, name="clarity")


@clarity_app.command("score", short_help="Score documentation clarity, with the why and what to fix.")
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
    from docmentor import (
        default_rubric,
        load_rubric,
        record_history,
        score_paths,
        score_source,
        scored_commit,
        write_html,
    )

    if not 0.0 <= target <= 10.0:
        raise UsageError("--target must be between 0 and 10")
    if min_score is not None and not 0.0 <= min_score <= 10.0:
        raise UsageError("--min-score must be between 0 and 10")
    if source is not None and not source.strip():
        raise UsageError("--source is empty", hint="name an indexed source, or give documentation paths")
    if bool(paths) == bool(source):
        raise UsageError("give documentation paths or --source NAME (one of them)")
    rubric = load_rubric(rubric_file) if rubric_file else default_rubric()
    llm = _llm_client() if use_llm else None
    try:
        if source:
            require_index()
            report = score_source(open_engine(create=False), source, rubric=rubric, target=target, llm=llm)
        else:
            index = _index_if_readable()  # a page of an indexed folder: its library's drift counts too
            said: list[str] = []  # a site whose includes read from outside the folder: 400 lines

            def warn(message: str) -> None:
                said.append(message)
                if len(said) <= SHOWN_WARNINGS:
                    print(f"warning: {message}", file=sys.stderr)

            try:
                report = score_paths(
                    list(paths or []),
                    rubric=rubric,
                    target=target,
                    llm=llm,
                    engine=index,
                    warn=warn,
                )
            finally:
                if index is not None:
                    index.close()
            if len(said) > SHOWN_WARNINGS:
                includes = sum("include" in m for m in said[SHOWN_WARNINGS:])
                hint = (
                    " (includes a folder outside the one scored reads: add the docs with "
                    "--base-path and score them with --source NAME)"
                    if includes
                    else ""
                )
                print(f"warning: … and {len(said) - SHOWN_WARNINGS} more{hint}", file=sys.stderr)
    finally:
        if llm is not None:
            llm.close()
    result = report.to_dict()
    if history is not None:
        engine = open_engine(create=False) if source else None
        record_history(result, history, commit=scored_commit(paths or [], engine=engine, source=source))
    if html_out is not None:
        write_html(result, html_out)
        n = len(result["documents"])
        print(f"wrote {html_out} ({n} document{'' if n == 1 else 's'})", file=sys.stderr)
    if as_json:
        emit(result)
    else:
        _print_clarity(report, result["documents"])
    _clarity_gates(report, min_score=min_score, fail_on_critical=fail_on_critical)


def _index_if_readable() -> Any:
    """The index, when there is one this docmentor can read; None otherwise (files are scored
    without it, as before there was one: an unreachable database is no reason to fail)."""
    from docmentor import DocmentorError

    try:
        return open_engine(create=False) if index_exists() else None
    except DocmentorError as exc:
        log.debug("scoring without the index: %s", exc)
        return None


def _llm_client() -> Any:
    from docmentor import LLMClient, LLMConfig

    config = LLMConfig.from_env()
    if config is None:
        raise UsageError(
            "--llm needs an OpenAI-compatible endpoint",
            hint="set DOCMENTOR_LLM_BASE_URL and DOCMENTOR_LLM_MODEL (and DOCMENTOR_LLM_API_KEY if needed)",
        )
    return LLMClient(config)


EXPLAINED_DOCUMENTS = 10  # documents below the target explained after the table
FIXES_SHOWN = 3  # of each one's roadmap


SHOWN_WARNINGS = 10  # reading warnings of `clarity score PATH`, then one line with the count
_COUNT_COLUMNS = ("score", "grade", "critical", "warning", "info", "broken links")
# penalties the table counts in its own columns; every other one is named in "other penalties"
_COUNTED_PENALTIES = ("critical_issues", "warning_issues", "info_issues", "broken_links")


def other_penalties(score: ClarityScore) -> str:
    """The score's penalties that no count column shows, e.g. "No complete executable examples
    found −1.5", so that every point lost is visible in the table ("" when there are none)."""
    return "; ".join(
        f"{p.label} −{float(p.amount):g}"
        for p in score.penalties
        if p.type not in _COUNTED_PENALTIES and p.amount
    )


def _print_clarity(report: ClarityReport, documents: list[dict[str, Any]]) -> None:
    """The table, the summary, the trend (``documents`` as JSON, with their ``trend`` when
    ``--history`` gave one) and what to fix first in the documents below the target."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from docmentor import PlannedFix, trend_summary

    console = Console(soft_wrap=True, highlight=False, width=None if sys.stdout.isatty() else 160)
    table = Table(title="Documentation clarity", show_lines=False)
    for col in (
        "document",
        "score",
        "grade",
        "critical",
        "warning",
        "info",
        "broken links",
        "other penalties",
    ):
        table.add_column(col, justify="right" if col in _COUNT_COLUMNS else "left")
    for d in report.documents:
        table.add_row(
            escape(d.path),  # a path such as pages/[slug].md is not rich markup
            f"{d.score.overall_score:.1f}",
            d.score.grade,
            str(d.issue_count("critical")),
            str(d.issue_count("warning")),
            str(d.issue_count("info")),
            str(d.broken_links),
            escape(other_penalties(d.score)),
        )
    console.print(table)
    s = report.summary
    dist = ", ".join(f"{g} {n}" for g, n in s.grade_distribution.items() if n)
    console.print(
        f"{s.documents} document{'' if s.documents == 1 else 's'}, average {s.average_score:.1f} ({s.average_grade}); grades: {dist}"
    )
    console.print(
        f"issues: {s.critical_issues} critical, {s.warning_issues} warning, {s.info_issues} info; "
        f"{s.below_target} below the target {s.target_score}; scoring {s.scoring_version}, rubric {s.rubric_hash}"
    )
    # the trend, with --history: against each document's previous run
    moved = trend_summary(documents)
    if moved is not None:
        changes = ", ".join(f"{c.path} {c.before:.1f} → {c.after:.1f}" for c in moved.most_changed)
        console.print(
            f"trend: {count(moved.compared, 'document')} scored before, average {moved.before:.1f} → {moved.after:.1f} "
            f"({moved.change:+.1f})" + (f"; most changed: {changes}" if changes else "; no score changed"),
            markup=False,
        )
    # why, and what to fix first: for the documents below the target (the worst first)
    below = report.below_target()
    for d in below[:EXPLAINED_DOCUMENTS]:
        console.print(f"\n{d.path}: {d.explanation.human_explanation}".rstrip(), markup=False)
        fixes = [  # the document's roadmap aims at the same target, with the same rubric
            f"{step.location}: {step.message} ({step.impact_text})"
            if isinstance(step, PlannedFix)
            else step.text
            for step in d.roadmap.next_steps(FIXES_SHOWN)
        ]
        for fix in fixes:
            console.print(f"  - {fix}", markup=False)
    if len(below) > EXPLAINED_DOCUMENTS:
        console.print(
            f"\n… and {len(below) - EXPLAINED_DOCUMENTS} more below the target (--json or --html for all)",
            markup=False,
        )


def _clarity_gates(report: ClarityReport, *, min_score: float | None, fail_on_critical: bool) -> None:
    gate = report.gate(min_score=min_score, fail_on_critical=fail_on_critical)
    low, crit = gate.below_min, gate.critical
    failed: list[str] = []  # both gates, when both fail (a tour: only --min-score's was said)
    if low:
        names = ", ".join(f"{d.path} ({d.score.overall_score:.1f})" for d in low[:5])
        more = f" and {len(low) - 5} more" if len(low) > 5 else ""
        failed.append(f"{len(low)} document(s) below --min-score {min_score:g}: {names}{more}")
    if crit:
        path, first = crit[0]
        failed.append(
            f"{len(crit)} critical issue(s), first {path}:{first.line} {first.type}: {first.message}"
        )
    if failed:
        raise GateFailed("; ".join(failed))


@clarity_app.command("rubric", short_help="Print the scoring rubric: tiers, criteria and weights.")
def clarity_rubric(
    rubric_file: Annotated[
        Path | None, typer.Option("--rubric", help="A TOML file overriding weights and tiers.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print the scoring rubric: tiers, grades, criteria, characteristics and weights."""
    from docmentor import SCORING_VERSION, default_rubric, load_rubric

    rubric = load_rubric(rubric_file) if rubric_file else default_rubric()
    if as_json:
        emit(
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
