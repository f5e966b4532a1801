"""Deterministic documentation clarity scoring.

Issues are found by the checks in ``checks/`` (and, when asked, by an LLM that only finds
issues, never scores); the score, dimensions, explanation and roadmap are pure functions of
those issues and the page's content metrics (``scoring.py``, ``explain.py``,
``roadmap.py``), so the same page gives the same result every time.

Formula (docs/clarity.md; a reported score is always what it gives, never a figure from an example):
``10.0 − 2.0·critical − 0.5·warning − 0.1·info − content penalties − 0.3·broken links −
0.1·missing alt text``, floored at 0 and capped at 10.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.clarity.models import DIMENSIONS, CheckResult, Issue
from docmentor.clarity.results import ClarityReport, ClaritySummary, DimensionEvaluation, DocumentClarity
from docmentor.errors import NotFoundError, UsageError
from docmentor.models import RawDocument

if TYPE_CHECKING:
    from docmentor.clarity.rubric import Rubric
    from docmentor.engine import Docmentor
    from docmentor.llm import LLMClient

log = logging.getLogger(__name__)
__all__ = ["score_paths", "score_raw", "score_source", "score_text", "scored_commit"]

DOC_SUFFIXES = (".md", ".mdx", ".markdown", ".rst", ".txt")


def score_text(
    text: str,
    *,
    path: str,
    root: Path | None = None,
    url: str | None = None,
    rubric: Rubric | None = None,
    target: float = 8.0,
    llm: LLMClient | None = None,
) -> DocumentClarity:
    """Check and score one document's text (includes resolved against ``root`` when given)."""
    from docmentor.clarity.checks import check_document

    result = check_document(text, path=path, root=root)
    return _finish(
        result, text=text, line_map=None, path=path, url=url, rubric=rubric, target=target, llm=llm
    )


def score_raw(
    raw: RawDocument,
    *,
    root: Path | None,
    files: Any = None,
    rubric: Rubric | None = None,
    target: float = 8.0,
    llm: LLMClient | None = None,
    api_counts: dict[str, int] | None = None,
) -> DocumentClarity:
    """Check and score a document as a source produced it (includes resolved, line map kept).

    ``api_counts`` adds the drift report's ``missing_api_signatures`` /
    ``invalid_api_signatures`` of this page to the formula.
    """
    from docmentor.clarity.checks import checked_document, run_checks

    result = run_checks(checked_document(raw, root=root, files=files))
    return _finish(
        result,
        text=raw.content,
        line_map=raw.line_map,
        path=raw.path,
        url=raw.url,
        rubric=rubric,
        target=target,
        llm=llm,
        api_counts=api_counts,
    )


def _finish(
    result: CheckResult,
    *,
    text: str,
    line_map: list[int] | None,
    path: str,
    url: str | None,
    rubric: Rubric | None,
    target: float,
    llm: LLMClient | None,
    api_counts: dict[str, int] | None = None,
) -> DocumentClarity:
    if llm is not None:
        from docmentor.clarity.llm_detector import detect_issues

        # a part whose reply stays unusable is left to the checks (detect_issues warns)
        found = detect_issues(llm, path=path, text=text, existing=result.issues)
        if line_map:  # the model saw the text with includes expanded: report original lines
            found = [
                dataclasses.replace(issue, line=line_map[issue.line - 1])
                if 1 <= issue.line <= len(line_map)
                else issue
                for issue in found
            ]
        result.issues.extend(found)
        result.issues.sort(key=lambda i: (i.line, i.type, i.message))
    return document_result(result, path=path, url=url, rubric=rubric, target=target, api_counts=api_counts)


def document_result(
    result: CheckResult,
    *,
    path: str,
    url: str | None,
    rubric: Rubric | None,
    target: float,
    api_counts: dict[str, int] | None = None,
) -> DocumentClarity:
    """One document's full result: its score, dimensions, explanation, roadmap, dashboard
    metrics and issues, plus its path and content metrics."""
    from docmentor.clarity.explain import explain_calculation
    from docmentor.clarity.roadmap import get_improvement_roadmap
    from docmentor.clarity.scoring import (
        calculate_clarity_score,
        dashboard_metrics,
        dimension_scores,
        issue_counts,
    )

    issues = result.issues
    inputs: dict[str, Any] = {**issue_counts(issues), **result.metrics.to_dict()}
    inputs["executable_examples"] = result.metrics.executable_examples
    inputs["broken_links"] = max(inputs.get("broken_links", 0), result.metrics.broken_links)
    inputs["missing_alt_text"] = max(inputs.get("missing_alt_text", 0), result.metrics.missing_alt_text)
    if api_counts and any(api_counts.values()):  # from `readme-llm generate`'s drift report
        inputs["missing_api_signatures"] = int(api_counts.get("missing_api_signatures", 0))
        inputs["invalid_api_signatures"] = int(api_counts.get("invalid_api_signatures", 0))
        failed = int(api_counts.get("failed_examples", 0))  # and its --validate run
        if failed:
            inputs["failed_examples"] = failed
            result.metrics = dataclasses.replace(result.metrics, failed_examples=failed)
    score = calculate_clarity_score(inputs, rubric)
    dims = dimension_scores(issues, rubric=rubric)
    explanation = explain_calculation(inputs, rubric=rubric)
    roadmap = get_improvement_roadmap(score.overall_score, target, issues, rubric=rubric)
    return DocumentClarity(
        path=path,
        url=url,
        score=score,
        dimension_scores=dims,
        evaluation=_criteria(issues, dims, result),
        explanation=explanation,
        roadmap=roadmap,
        dashboard_metrics=dashboard_metrics(inputs, result=score, rubric=rubric),
        metrics=result.metrics,
        issues=tuple(issues),
        broken_links=inputs["broken_links"],
        missing_alt_text=inputs["missing_alt_text"],
    )


def _criteria(
    issues: Sequence[Issue], dims: dict[str, float], result: CheckResult
) -> dict[str, DimensionEvaluation]:
    """Per dimension: its score, what was measured, and the key issues (first three)."""
    m = result.metrics
    out: dict[str, DimensionEvaluation] = {}
    for dim in DIMENSIONS:
        tagged = [i for i in issues if dim in i.dimensions and i.counts_as is None]
        c = Counter(i.severity for i in tagged)
        measured = [
            f"{c.get('critical', 0)} critical, {c.get('warning', 0)} warning, {c.get('info', 0)} info issues"
        ]
        if dim == "instruction_clarity":
            measured.append(
                f"Found {m.total_code_blocks} code examples, {m.executable_examples} complete and runnable"
            )
        out[dim] = DimensionEvaluation(
            score=dims[dim],
            measured_by=tuple(measured),
            key_issues=tuple(f"Line {i.line}: {i.message}" for i in tagged[:3]),
        )
    return out


def score_paths(
    paths: Sequence[Path],
    *,
    rubric: Rubric | None = None,
    target: float = 8.0,
    llm: LLMClient | None = None,
    now: datetime | None = None,
    engine: Docmentor | None = None,
    warn: Callable[[str], None] | None = None,
) -> ClarityReport:
    """Score every document under the given files and folders (includes resolved first).

    Files are read as ``add`` reads them: a folder's binary or oversized files are left out,
    and ``warn`` is told (with the scan's other warnings); a file named alone that ``add``
    would skip is an error. With ``engine``, a file inside the folder of an indexed source is
    scored with the drift findings of the knowledge base generated from that source, as
    ``score_source`` scores it: the same page gets the same score however it is named.

    Raises:
        SourceUnavailableError: a file named alone cannot be read as a document."""
    from docmentor.clarity.checks import SiteFiles, checked_document, run_checks
    from docmentor.config import load_config
    from docmentor.sources.local import read_file, scan_folder

    drift_of = file_drift(engine) if engine is not None else (lambda _file: None)
    say = warn or (lambda _message: None)
    docs: list[DocumentClarity] = []
    skipped = 0  # documentation files not read (too large, binary, …): said in the warnings
    # the size cap `add` takes from the working folder's docmentor.toml, for what no indexed
    # source's own options read (a tour: a 6 MB page could not be scored whatever it said)
    cap = load_config().max_bytes
    capped: dict[str, Any] = {"max_bytes": cap} if cap else {}
    for p in paths:
        if p.is_dir():
            files = SiteFiles(p)
            scan = scan_folder(p, **((_read_as_indexed(engine, p) if engine is not None else {}) or capped))
            skipped += len(scan.skipped)
            for message in scan.warnings:
                say(message)
            for raw in scan.documents:
                counts = drift_of(p / raw.path)
                docs.append(
                    score_raw(
                        raw, root=p, files=files, rubric=rubric, target=target, llm=llm, api_counts=counts
                    )
                )
        elif p.is_file():
            if p.suffix.lower() not in DOC_SUFFIXES:
                raise UsageError(
                    f"{p} is not a documentation file", hint=f"expected one of {', '.join(DOC_SUFFIXES)}"
                )
            own = _cap_of_source_holding(engine, p) if engine is not None else None
            raw, warnings = read_file(p, **({"max_bytes": own} if own else capped))
            for message in warnings:
                say(message)
            folder = p.absolute().parent.resolve()  # as check_document reads a file: read once here
            page = dataclasses.replace(raw, path=str(p))
            result = run_checks(checked_document(page, root=folder, files=SiteFiles(folder), file=p))
            docs.append(
                _finish(
                    result,
                    text=raw.content,
                    line_map=raw.line_map,
                    path=str(p),
                    url=p.resolve().as_uri(),
                    rubric=rubric,
                    target=target,
                    llm=llm,
                    api_counts=drift_of(p),
                )
            )
        else:
            raise NotFoundError(f"no such file or folder: {p}")
    if not docs and skipped:
        raise NotFoundError(
            f"no documentation files to score: {skipped} skipped",
            hint="the warnings above say why each was not read: `add` skips the same files",
        )
    return results(docs, rubric=rubric, target=target, now=now)


def _cap_of_source_holding(engine: Docmentor, file: Path) -> int | None:
    """The size cap of the indexed folder source holding ``file`` (the innermost), if it
    has one of its own: a page scores under the cap its source was read with."""
    real = file.resolve()
    best: tuple[int, int | None] | None = None
    for row in engine.store.sources():
        if row.kind != "folder":
            continue
        root = Path(row.target).resolve()
        if real.is_relative_to(root) and (best is None or len(root.parts) > best[0]):
            best = (len(root.parts), row.spec.options.max_bytes)
    return best[1] if best is not None else None


def _read_as_indexed(engine: Docmentor, folder: Path) -> dict[str, Any]:
    """How ``add`` reads ``folder`` when it is an indexed folder source (its base paths for
    includes outside it, its size caps, .gitignore): ``scan_folder``'s arguments; {} when it
    is not one. The same pages then score the same by path and by ``--source``."""
    real = folder.resolve()
    for row in engine.store.sources():
        if row.kind == "folder" and Path(row.target).resolve() == real:
            opts = row.spec.options
            found: dict[str, Any] = {
                "base_dirs": [Path(b) for b in opts.base_paths or ()],
                "use_gitignore": opts.use_gitignore is not False,
                "max_included_bytes": opts.max_included_bytes,
                "translations": opts.translations is True,
            }
            if opts.max_bytes:
                found["max_bytes"] = opts.max_bytes
            return found
    return {}


def score_source(
    engine: Docmentor,
    name: str,
    *,
    rubric: Rubric | None = None,
    target: float = 8.0,
    llm: LLMClient | None = None,
    now: datetime | None = None,
) -> ClarityReport:
    """Score the stored documents of an indexed source (links checked on disk for folders)."""
    from docmentor.clarity.checks import SiteFiles

    row = engine.store.source(name)
    root = Path(row.target) if row.kind == "folder" and Path(row.target).is_dir() else None
    files = SiteFiles(root) if root is not None else None
    raws: list[RawDocument] = []
    with engine.store.snapshot():  # every document from one committed state of the source
        for path, stored in sorted(engine.store.documents(name).items()):
            raws.append(
                RawDocument(
                    path=path,
                    url=stored.url,
                    content=engine.store.content(stored.id),
                    fmt=stored.fmt,  # type: ignore[arg-type]
                    line_map=engine.store.line_map(stored.id),
                )
            )
    drift = drift_counts(engine, name)
    docs: list[DocumentClarity] = []
    for raw in raws:
        docs.append(
            score_raw(
                raw,
                root=root,
                files=files,
                rubric=rubric,
                target=target,
                llm=llm,
                api_counts=drift.get(raw.path),
            )
        )
    return results(docs, rubric=rubric, target=target, now=now)


def scored_commit(
    paths: Sequence[Path], *, engine: Docmentor | None = None, source: str | None = None
) -> str | None:
    """The commit of the work tree the scored documents are in, for the history record: the
    folder ``source`` was added from (with ``engine``), else the first of ``paths``, else the
    current folder (a file's folder when it is not one)."""
    from docmentor.clarity.report import git_commit

    target = engine.store.source(source).target if engine is not None and source else None
    folder = Path(target or (list(paths) or [Path.cwd()])[0])
    return git_commit(folder if folder.is_dir() else folder.parent)


def file_drift(engine: Docmentor) -> Callable[[Path], dict[str, int] | None]:
    """A file's drift counts (see :func:`drift_counts`) when it is a document of an indexed
    folder source, else None; each source's report is read once."""
    roots = sorted(
        ((Path(r.target).resolve(), r.name) for r in engine.store.sources() if r.kind == "folder"),
        key=lambda t: (-len(t[0].parts), t[1]),  # a folder inside another's: the deeper first
    )
    read: dict[str, dict[str, dict[str, int]]] = {}

    def of(file: Path) -> dict[str, int] | None:
        real = file.resolve()
        for root, name in roots:  # every source the file is in: the first with a report on it
            if real.is_relative_to(root):
                if name not in read:
                    read[name] = drift_counts(engine, name)
                found = read[name].get(real.relative_to(root).as_posix())
                if found:
                    return found
        return None

    return of


def drift_counts(engine: Docmentor, source: str) -> dict[str, dict[str, int]]:
    """Per document of ``source``: the drift findings of the knowledge base generated from it,
    and its examples that failed validation (``failed_examples``)."""
    import json

    from docmentor.store.kb import list_kbs, load_metadata

    out: dict[str, dict[str, int]] = {}
    failed: set[tuple[str, str]] = set()  # (page, example): once, however many KBs read the source
    for row in list_kbs(engine.store):
        settings = load_metadata(engine.store, row.library).get("settings", {})
        if settings.get("docs_source") != source:
            continue
        failed |= _failed_examples(Path(row.path))
        path = Path(row.path) / "drift.json"
        try:
            findings = (
                json.loads(path.read_text(encoding="utf-8")).get("findings", []) if path.is_file() else []
            )
        except (OSError, ValueError):
            continue
        for f in findings:
            if f.get("kind") not in ("missing_api", "invalid_api_signature"):
                continue  # uses of deprecated APIs still run: not a clarity issue
            key = "missing_api_signatures" if f.get("kind") == "missing_api" else "invalid_api_signatures"
            counts = out.setdefault(str(f.get("path")), dict.fromkeys(_API_KEYS, 0))
            counts[key] += 1
    for page, _example in sorted(failed):
        out.setdefault(page, dict.fromkeys(_API_KEYS, 0))["failed_examples"] += 1
    return out


_API_KEYS = ("missing_api_signatures", "invalid_api_signatures", "failed_examples")


def _failed_examples(kb: Path) -> set[tuple[str, str]]:
    """(docs page, example id) of the examples that failed when ``generate --validate`` ran them
    (the knowledge base's ``examples_db``). Not a docstring's (the library's, not a page's), nor
    one with drift: its missing API or refused keyword is counted once, by the drift report."""
    import json

    out: set[tuple[str, str]] = set()
    for file in sorted((kb / "examples_db").glob("*.json")):
        try:
            examples = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for ex in examples if isinstance(examples, list) else []:
            if (
                isinstance(ex, dict)
                and ex.get("validated") is False
                and ex.get("origin", "docs") == "docs"
                and not ex.get("drift")
            ):
                out.add((str(ex.get("path")), str(ex.get("example_id"))))
    return out


def results(
    docs: list[DocumentClarity], *, rubric: Rubric | None, target: float, now: datetime | None
) -> ClarityReport:
    """The report of a set of scored documents: the documents, their summary, the time."""
    from docmentor.clarity.rubric import SCORING_VERSION, default_rubric

    rb = rubric or default_rubric()
    if not docs:
        raise NotFoundError(
            "no documentation files to score", hint="give .md, .mdx, .markdown, .rst or .txt files"
        )
    scores = [d.score.overall_score for d in docs]
    avg = round(sum(scores) / len(scores), 1)
    grades = Counter(d.score.grade for d in docs)
    summary = ClaritySummary(
        documents=len(docs),
        average_score=avg,
        average_grade=rb.tier_for(avg).grade,
        min_score=min(scores),
        max_score=max(scores),
        grade_distribution={g: grades.get(g, 0) for g in ("A+", "A", "B", "C", "D", "F")},
        critical_issues=sum(d.issue_count("critical") for d in docs),
        warning_issues=sum(d.issue_count("warning") for d in docs),
        info_issues=sum(d.issue_count("info") for d in docs),
        broken_links=sum(d.broken_links for d in docs),
        target_score=target,
        below_target=sum(1 for s in scores if s < target),
        scoring_version=SCORING_VERSION,
        rubric_hash=rb.hash,
    )
    stamp = (now or datetime.now(UTC)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return ClarityReport(generated_at=stamp, documents=tuple(docs), summary=summary)
