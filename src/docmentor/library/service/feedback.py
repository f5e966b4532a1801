"""The feedback loop: agents report where they got stuck; owners see what to fix.

``report_issue`` stores a structured report in the index (SQLite, so several server
processes can write at once without losing one); an identical report — same library,
query, type, APIs tried and error — is counted rather than stored twice. The report
carries the last few tool calls of the reporting server process as session context.
``analyze`` turns the reports into a feedback report: summary, top failing queries,
missing examples, unclear APIs, search-quality issues and recommendations.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, deque
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from docmentor.errors import NotFoundError, UsageError
from docmentor.library.service.results import (
    FailingQuery,
    FeedbackAnalysis,
    FeedbackSummary,
    LoggedIssue,
    SearchQuality,
    ToolCall,
    UnclearApi,
)
from docmentor.store.db import Store
from docmentor.store.feedback import feedback_rows, record_feedback
from docmentor.store.kb import list_kbs

IssueType = Literal["error", "unclear_docs", "missing_example", "wrong_signature"]
ISSUE_TYPES: tuple[str, ...] = ("error", "unclear_docs", "missing_example", "wrong_signature")
MAX_TEXT = 20_000


class SessionLog:
    """The last tool calls of this process, attached to reports as session context."""

    def __init__(self, size: int = 8) -> None:
        self._calls: deque[ToolCall] = deque(maxlen=size)

    def record(self, tool: str, arguments: dict[str, Any]) -> None:
        args = {k: (v[:300] if isinstance(v, str) else v) for k, v in arguments.items()}
        self._calls.append(ToolCall(tool=tool, arguments=args, at=_now()))

    def recent(self) -> tuple[ToolCall, ...]:
        return tuple(self._calls)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _inferred_library(store: Store, apis: list[str], context: Sequence[ToolCall]) -> str | None:
    """The library a report without one is about: the only one registered, else the one its
    APIs (``httpx.Client.send``) or this session's latest call named; None when unclear."""
    from docmentor.store.kb import list_kbs

    known = [row.library for row in list_kbs(store)]
    if len(known) == 1:
        return known[0]
    named = {lib for lib in known for a in apis if a == lib or a.startswith(lib + ".")}
    if len(named) == 1:
        return named.pop()
    for call in reversed(context):
        lib = call.arguments.get("library")
        if lib in known:
            return str(lib)
    return None


def report_issue(
    store: Store,
    *,
    query: str,
    issue_type: str,
    library: str | None = None,
    apis_tried: list[str] | None = None,
    error_message: str | None = None,
    code_attempted: str | None = None,
    session_context: Sequence[ToolCall] = (),
) -> LoggedIssue:
    """Store one report (or count a repeat) and answer with suggestions; ``session_context``
    the reporting session's last tool calls (:meth:`SessionLog.recent`)."""
    if not query.strip():
        raise UsageError(
            "report_issue needs the query: what you were trying to do",
            hint="pass query, e.g. 'stream a large download to a file'",
            arguments=("query",),
        )
    if issue_type not in ISSUE_TYPES:
        raise UsageError(f"unknown issue_type {issue_type!r}", hint=f"use one of {', '.join(ISSUE_TYPES)}")
    apis = sorted({a.strip() for a in apis_tried or [] if a and a.strip()})
    if library is None:
        library = _inferred_library(store, apis, session_context)
    error = (error_message or "")[:MAX_TEXT] or None
    code = (code_attempted or "")[:MAX_TEXT] or None
    key = hashlib.sha256(
        json.dumps(
            [library, " ".join(query.split()).lower(), issue_type, apis, error], sort_keys=True
        ).encode()
    ).hexdigest()
    stamp = _now()
    count = record_feedback(
        store,
        key=key,
        library=library,
        query=query[:MAX_TEXT],
        issue_type=issue_type,
        apis_tried=apis,
        error_message=error,
        code_attempted=code,
        session_context=[call.to_dict() for call in session_context],
        at=stamp,
    )
    return LoggedIssue(
        status="logged",
        issue_type=issue_type,
        query=query,
        library=library,
        times_reported=count,
        suggestions=tuple(
            suggestions(
                issue_type,
                query=query,
                apis=apis,
                error=error,
                library=library,
                knowledge=_knows(store, library),
            )
        ),
    )


def _knows(store: Store, library: str | None) -> bool:
    """Whether find_api, get_examples and get_library_overview can answer about ``library``
    (any library when None): a knowledge base is registered for it."""
    from docmentor.library.service.registry import name_key, named_keys
    from docmentor.store.kb import list_kbs

    known = {name_key(row.library) for row in list_kbs(store)}  # named as find_api takes them
    return bool(known) if library is None else bool(named_keys(library) & known)


def suggestions(
    issue_type: str,
    *,
    query: str,
    apis: list[str],
    error: str | None,
    library: str | None,
    knowledge: bool = True,
) -> list[str]:
    """What the agent could try at once about one report (by issue type): the library tools
    when a knowledge base answers for the library (``knowledge``), else the docs tools."""
    if not knowledge:
        return _docs_suggestions(issue_type, query=query, apis=apis, error=error, library=library)
    lib = library or "<library>"
    out: list[str] = []
    if issue_type == "error" and error:
        if "ModuleNotFoundError" in error or "No module named" in error:
            out.append(f"Ensure the library is installed: `pip install {lib}`")
        elif "AttributeError" in error or "TypeError" in error:
            out.append("Use find_api to check the API's real name and signature in the installed version")
        else:
            out.append(
                "Check that the installed library version matches the documentation (get_library_overview)"
            )
    elif issue_type == "missing_example":
        out.append(f"Try find_api with: {query}")
        out.append("Look at related APIs that have examples (get_examples with apis_involved)")
    elif issue_type == "unclear_docs" and apis:
        out.append(f"Try get_examples for these APIs: {', '.join(apis)}")
    elif issue_type == "wrong_signature":
        out.append(
            "find_api shows the signature introspected from the installed package; trust it over the prose"
        )
    out.append("Use get_library_overview to understand the library's architecture")
    return out


def _docs_suggestions(
    issue_type: str, *, query: str, apis: list[str], error: str | None, library: str | None
) -> list[str]:
    """The suggestions where no knowledge base answers: the indexed docs' tools."""
    out: list[str] = []
    if issue_type == "error" and error and ("ModuleNotFoundError" in error or "No module named" in error):
        out.append(f"Ensure the library is installed: `pip install {library or '<library>'}`")
    elif issue_type in ("error", "wrong_signature"):
        out.append(f"Search the docs for the API's real name and signature: search_docs with: {query}")
        out.append("Check the indexed docs' version against the installed one (list_sources)")
    elif issue_type == "unclear_docs" and apis:
        out.append(f"Try search_docs for these APIs: {', '.join(apis)}")
    else:
        out.append(f"Try search_docs with: {query}")
    out.append("Read a page's passages on it (get_doc_excerpt), or a digest of the docs (assemble_context)")
    if library:  # what would answer it from the code: said once, for the user
        out.append(
            f"A knowledge base adds find_api and get_examples: docmentor readme-llm generate --library {library}"
        )
    return out


def _recommendation(kind: str, query: str, apis: set[str]) -> str:
    """What to fix for a query mostly reported as ``kind``."""
    if kind == "missing_example":
        return f"Add an example for: {query}"
    if kind == "unclear_docs":
        return f"Improve the description of: {', '.join(sorted(apis)) or query}"
    if kind in ("error", "wrong_signature"):
        return f"Validate the documentation for: {query}"
    return "Investigate further"


def analyze(store: Store, library: str | None = None) -> FeedbackAnalysis:
    """The feedback report: summary, top failing queries, gaps, search quality, recommendations.

    Raises:
        NotFoundError: ``library`` has neither reports nor a knowledge base (a misspelt name
            would read as "no issues"); the hint lists the knowledge bases.
    """
    reports = feedback_rows(store, library)
    total = sum(r.count for r in reports)
    if library is not None and not total:
        known = sorted({k.library for k in list_kbs(store)})
        if library not in known:
            raise NotFoundError(
                f"no knowledge base and no reports for {library!r}",
                hint=f"known: {', '.join(known) or 'none'}",
            )
    by_query: Counter[str] = Counter()
    types_of: dict[str, Counter[str]] = {}
    apis_of: dict[str, set[str]] = {}
    for r in reports:
        q = " ".join(r.query.split())
        by_query[q] += r.count
        types_of.setdefault(q, Counter())[r.issue_type] += r.count
        apis_of.setdefault(q, set()).update(r.apis_tried)
    top = tuple(
        FailingQuery(
            query=q,
            count=n,
            issue_types=dict(types_of[q]),
            recommendation=_recommendation(types_of[q].most_common(1)[0][0], q, apis_of[q]),
        )
        for q, n in sorted(by_query.items(), key=lambda t: (-t[1], t[0]))[:10]
    )
    missing = sorted({" ".join(r.query.split()) for r in reports if r.issue_type == "missing_example"})
    unclear: Counter[str] = Counter()
    for r in reports:
        if r.issue_type in ("unclear_docs", "wrong_signature"):
            for api in r.apis_tried:
                unclear[api] += r.count
    # A report whose session ran find_api (or get_examples) and still ended stuck points at search.
    searched = [
        r
        for r in reports
        if any(c.get("tool") in ("find_api", "get_examples", "search_docs") for c in r.session_context)
    ]
    search_quality = SearchQuality(
        reports_after_a_search=sum(r.count for r in searched),
        queries=tuple(sorted({" ".join(r.query.split()) for r in searched})[:20]),
    )
    # ties by name, so the report does not depend on which writer came first
    unclear_ranked = sorted(unclear.items(), key=lambda t: (-t[1], t[0]))
    recs = []
    if missing:
        recs.append(f"Add {len(missing)} missing example(s) to the documentation")
    # a wrong signature asks for the signature to be checked (below), not for better prose
    said_unclear = {a for r in reports if r.issue_type == "unclear_docs" for a in r.apis_tried}
    described = [a for a, _ in unclear_ranked if a in said_unclear]
    if described:
        recs.append(f"Improve the descriptions of {len(described)} API(s): {', '.join(described[:5])}")
    wrong = sum(r.count for r in reports if r.issue_type == "wrong_signature")
    if wrong:
        recs.append(
            f"Re-validate signatures: {wrong} report(s) of a wrong signature (docmentor readme-llm drift)"
        )
    if search_quality.reports_after_a_search:
        recs.append(
            "Review find_api results for the queries that failed after a search (importance weights, examples)"
        )
    # the library asked about, else the one every report is about (None: several, or none)
    about = {r.library for r in reports}
    if library is None and len(about) == 1:
        library = next(iter(about))
    return FeedbackAnalysis(
        summary=FeedbackSummary(
            total_issues=total,
            distinct_reports=len(reports),
            unique_queries=len(by_query),
            by_type={t: sum(r.count for r in reports if r.issue_type == t) for t in ISSUE_TYPES},
            time_period=(min(r.first_seen for r in reports), max(r.last_seen for r in reports))
            if reports
            else None,
            library=library,
        ),
        top_failing_queries=top,
        missing_examples=tuple(missing),
        unclear_apis=tuple(UnclearApi(api=a, count=n) for a, n in unclear_ranked[:20]),
        search_quality=search_quality,
        recommendations=tuple(recs),
    )


def report_text(analysis: FeedbackAnalysis) -> str:
    """The feedback report as text: summary, then one block per finding, then recommendations."""
    s = analysis.summary
    lines = ["Feedback Analysis Report", "========================", "", "Summary:"]
    lines.append(f"- Total issues: {s.total_issues}")
    lines.append(f"- Unique queries: {s.unique_queries}")
    if s.time_period:
        lines.append(f"- Time period: {s.time_period[0]} to {s.time_period[1]}")
    lines += ["", "Top Failing Queries:"]
    for i, q in enumerate(analysis.top_failing_queries, 1):
        lines.append(f'{i}. "{q.query}" ({q.count} failure{"s" if q.count != 1 else ""})')
        lines.append(f"   → Recommendation: {q.recommendation}")
    lines += ["", f"Missing Examples ({len(analysis.missing_examples)} gaps identified):"]
    lines += [f"- {m}" for m in analysis.missing_examples]
    lines += ["", "Unclear APIs:"] + [f"- {u.api} ({u.count})" for u in analysis.unclear_apis]
    sq = analysis.search_quality
    lines += ["", "Search Quality Issues:", f"- {sq.reports_after_a_search} report(s) came after a search"]
    lines += ["", "Recommendations:"] + [f"✓ {r}" for r in analysis.recommendations]
    return "\n".join(lines) + "\n"
