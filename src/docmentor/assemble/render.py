"""The digest rendered: Markdown (header, document list, sections, metadata, usage note) and JSON.

Pure: the same digest gives the same text. ``docmentor.assemble.distill`` chooses and trims
the sections so that what is rendered here fits the token budget.
"""

from __future__ import annotations

import json
from typing import Any

from docmentor.assemble.models import Candidate, Digest, DocumentScore

DOCS_HEADING = "## Top Relevant Documents\n\n"
CANONICALITY_LEGEND = (
    "**Canonicality Scores:**\n"
    "- 0.90+: Authoritative source, prefer over other docs\n"
    "- 0.70-0.89: Reliable, current documentation\n"
    "- 0.50-0.69: Secondary or supporting documentation\n"
    "- <0.50: Potentially stale, use with caution\n"
)


def _one_line(text: str) -> str:
    return " ".join(text.split())


QUERY_SHOWN_CHARS = 300


def _clip_query(query: str) -> str:
    """A question pasted whole (a log, a file) must not eat the budget twice in the header."""
    return query if len(query) <= QUERY_SHOWN_CHARS else query[: QUERY_SHOWN_CHARS - 1].rstrip() + "…"


def _section_title(c: Candidate) -> str:
    """The section's heading, after its parent heading when it has one below the page's title
    (a changelog's "17.4.0 › Changes", not one of many "Changes")."""
    heading = _one_line(c.heading)
    if not heading:
        return _one_line(c.title) or c.path
    path = [_one_line(h) for h in c.heading_path]
    parent = path[-2] if len(path) >= 2 and path[-1] == heading else ""
    if parent and parent != _one_line(c.title):
        return f"{parent} › {heading}"
    return heading


def section_block(c: Candidate, canonical: float | None, body: str, line_start: int, line_end: int) -> str:
    title = _section_title(c)
    # the source named with the path (`httpx:docs/index.md`), as get_doc takes it: two sources
    # may hold the same path, and the digest may draw on both
    where = f"{c.source}:{c.path}" if c.source else c.path
    head = (
        f"### Cross-Reference: {title} (from {where})"
        if c.origin == "crossref"
        else f"### {title} (from {where})"
    )
    source = f"**Source:** {c.path}:{line_start}-{line_end}"
    if canonical is not None:
        source += f" (canonical: {canonical:.2f})"
    if c.stale:
        source += " (stale: the last good copy; the last refresh could not update it)"
    out = [head, "", source]
    if c.origin == "crossref" and c.referenced_by:
        out.append(f"**Referenced by:** {', '.join(c.referenced_by)}")
    out += ["", body, "", "---", "", ""]
    return "\n".join(out)


def doc_entry(rank: int, d: DocumentScore, *, named: bool = False) -> str:
    """One line of the top documents; ``named``: with its source (``httpx:docs/api.md``), as a
    digest over several sources lists them (an agent tour: pydantic's pages sat among httpx's
    unnamed)."""
    updated = d.updated_at[:10] if d.updated_at else "unknown"
    where = f"{d.source}:{d.path}" if named and d.source else d.path
    return (
        f"{rank}. **{where}** (score: {d.combined:.2f}, canonical: {d.canonicality:.2f})\n"
        f"   - Last updated: {updated}\n"
        f"   - Status: {d.status}\n"
        f"   - Sections included: {d.sections_included}\n\n"
    )


def _fmt_threshold(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.2f}"
    return "none" if value is None else str(value)


def render_digest(d: Digest, actual: int) -> str:
    query = _clip_query(_one_line(d.query))
    nothing_matched = d.stats.get("candidate_sections") == 0
    parts = [
        f'# Context Digest for: "{query}"\n\n'
        f"**Generated:** {d.generated_at}\n"
        f"**Token Budget:** {d.max_tokens}\n"
        f"**Actual Tokens:** {actual}\n"
        f"**Encoding:** {d.encoding}\n"
        f"**Primary Areas:** {', '.join(d.primary_areas) if d.primary_areas else 'none'}\n"
        f"**Documents Scanned:** {d.documents_scanned}\n"
        f"**Sections Selected:** {len(d.sections)}\n\n"
        "---\n\n"
    ]
    if d.documents:
        parts.append(DOCS_HEADING)
        several = len({doc.source for doc in d.documents}) > 1
        parts += [doc_entry(i, doc, named=several) for i, doc in enumerate(d.documents, 1)]
        parts.append("---\n\n")
    elif d.layout == "full":
        none = "matched the question" if nothing_matched else "fit within the token budget"
        parts.append(f"{DOCS_HEADING}_No document {none}._\n\n---\n\n")
    parts.append("## Distilled Content\n\n")
    canon = {doc.document_id: doc.canonicality for doc in d.documents}
    if d.sections:
        parts += [
            section_block(s.candidate, canon.get(s.candidate.document_id), s.text, s.line_start, s.line_end)
            for s in d.sections
        ]
    elif nothing_matched:
        parts.append("_Nothing in the index matched this question._\n\n---\n\n")
    else:
        parts.append("_No section fit within the token budget._\n\n---\n\n")
    if d.layout == "full":
        parts.append(_metadata(d))
        parts.append(
            "---\n\n"
            "## Usage with LLM\n\n"
            "Paste this digest into your LLM conversation, then ask:\n\n"
            f'> Using only the information in the context above, answer: "{query}"\n'
            "> Be explicit when something is not documented in the context.\n\n"
            "This ensures the LLM:\n"
            "- Uses only vetted, canonical information\n"
            "- Doesn't hallucinate paths or commands\n"
            "- Acknowledges gaps in documentation\n"
        )
    return "".join(parts).rstrip("\n") + "\n"


def _metadata(d: Digest) -> str:
    s = d.stats
    followed = s.get("cross_references", 0)
    included = sum(x.candidate.origin == "crossref" for x in d.sections)
    lines = [
        "## Metadata\n",
        CANONICALITY_LEGEND,
        "**Section Selection:**",
        f"- Total candidate sections: {s.get('candidate_sections', 0)}",
        f"- Relevance threshold: {_fmt_threshold(s.get('relevance_threshold'))}",
        f"- Selected after filtering: {len(d.sections)}",
        f"- Token allocation per section: ~{s.get('tokens_per_section_avg', 0)} tokens avg",
        f"- Cross-references followed: {followed}"
        + (f" ({included} fit the budget)" if included != followed else ""),
    ]
    if s.get("sections_trimmed"):
        lines.append(f"- Trimmed to fit the budget: {s['sections_trimmed']}")
    return "\n".join(lines) + "\n\n"


def render_markdown(d: Digest) -> str:
    """The digest as Markdown (the layout docs/assemble.md shows), ``d.actual_tokens`` as the printed count."""
    return render_digest(d, d.actual_tokens)


def render_json(d: Digest) -> dict[str, Any]:
    """The same content as the Markdown digest, structured.

    ``actual_tokens`` counts the digest as Markdown (``actual_tokens_of`` says so); the JSON
    text that ``--format json`` prints (:func:`render_json_text`) is fitted to ``token_budget``
    itself when the digest is distilled with ``fmt="json"``.
    """
    return {
        "query": d.query,
        "generated_at": d.generated_at,
        "token_budget": d.max_tokens,
        "actual_tokens": d.actual_tokens,
        "actual_tokens_of": "markdown",
        "encoding": d.encoding,
        "primary_areas": list(d.primary_areas),
        "documents_scanned": d.documents_scanned,
        "sections_selected": len(d.sections),
        "documents": [doc.to_dict() for doc in d.documents],
        "sections": [s.to_dict() for s in d.sections],
        "metadata": dict(d.stats),
    }


def render_json_text(d: Digest) -> str:
    """The JSON digest as printed: compact (no indentation), so its tokens go to documentation."""
    return json.dumps(render_json(d), ensure_ascii=False, separators=(",", ":"))
