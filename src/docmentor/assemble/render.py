"""Distillation: choose and trim sections so the whole digest fits the token budget; render it.

Everything here is pure: no I/O, and the same inputs give the same digest (the generation
time is passed in). Token counts are exact (``tokens.py``) and cover the whole output —
header, document list, sections, metadata and usage note.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from docmentor.assemble.models import Candidate, Digest, DistilledSection, DocumentScore
from docmentor.assemble.tokens import check_encoding, count_many, count_tokens
from docmentor.errors import UsageError
from docmentor.parse.fences import Fence, closes, fence_open

TRIM_MARKER = "… (trimmed)"
MIN_TRIM_ROOM = 80  # trim a section that does not fit only when at least this much room is left
STOP_ROOM = 40  # stop looking for more sections below this much room
_JOIN_SLACK = 1  # tokens allowed per joined part: BPE counts of a concatenation differ slightly
_JSON_SLACK = 4  # tokens kept free in the JSON for the timing written after it is fitted
_MAX_ROUNDS = 4  # re-renders to make the printed "Actual Tokens" equal the real count

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RST_ADORN = re.compile(r"^([=\-~^\"'`#*+:._<>])\1+[ \t]*$")
_NOT_HEADING_TEXT = re.compile(r"^\s*(?:[-*+>|]|\d+[.)])(?:\s|$)")
_LIST_LINE = re.compile(r"[ \t]*(?:[-*+>|]|\d+[.)])\s")
_SENTENCE_END = re.compile(r"[.!?…][\"'’”)\]*_]*(?=\s)")

_DOCS_HEADING = "## Top Relevant Documents\n\n"
CANONICALITY_LEGEND = (
    "**Canonicality Scores:**\n"
    "- 0.90+: Authoritative source, prefer over other docs\n"
    "- 0.70-0.89: Reliable, current documentation\n"
    "- 0.50-0.69: Secondary or supporting documentation\n"
    "- <0.50: Potentially stale, use with caution\n"
)


# --------------------------------------------------------------------------- section text


@dataclass(slots=True)
class _Block:
    """A unit of a section's body: a fenced code block (atomic), a heading, or a paragraph."""

    kind: Literal["code", "heading", "para"]
    text: str
    first: int  # 0-based index of its first line in the candidate's text
    last: int  # … and of its last line
    cuttable: bool = False  # prose that may be cut at sentence boundaries


@dataclass(slots=True)
class _Prepared:
    candidate: Candidate
    blocks: list[_Block]
    body: str  # the whole body as printed when untrimmed ("" when the section has no text)
    canonical: float | None


def _find_close(lines: list[str], start: int, fence: Fence) -> int | None:
    for j in range(start, len(lines)):
        if closes(lines[j], fence, any_indent=True):
            return j
    return None


def _own_heading(lines: list[str], heading: str) -> tuple[int, int | None]:
    """Index of the first body line after the section's own heading, and that heading's level."""
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines):
        return i, None
    first = lines[i]
    m = _ATX.match(first)
    if m:
        return i + 1, len(m.group(1))
    title = heading.strip()
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    # reST over- and underlined title: ====\nTitle\n====
    if (
        title
        and _RST_ADORN.match(first)
        and i + 2 < len(lines)
        and lines[i + 1].strip() == title
        and lines[i + 2].strip() == first.strip()
    ):
        return i + 3, 1
    if title and first.strip() == title and (_SETEXT.match(nxt) or _RST_ADORN.match(nxt)):
        return i + 2, 1 if nxt.strip()[0] == "=" else 2
    return i, None


def _demoted(text: str, level: int, offset: int) -> str:
    return f"{'#' * min(6, max(4, level + offset))} {text.strip()}"


def _split_blocks(lines: list[str], start: int, own_level: int | None) -> list[_Block]:
    """Cut the body into blocks; headings inside it are demoted below the digest's ``###``."""
    offset = 3 - (own_level if own_level is not None else 0)
    blocks: list[_Block] = []
    para: list[tuple[int, str]] = []

    def flush() -> None:
        if para:
            texts = [t for _, t in para]
            code_like = all(t.startswith(("    ", "\t")) for t in texts) or texts[0].lstrip().startswith("|")
            blocks.append(_Block("para", "\n".join(texts), para[0][0], para[-1][0], cuttable=not code_like))
            para.clear()

    i, n = start, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
            continue
        fence = fence_open(line, any_indent=True)
        if fence is not None:
            close = _find_close(lines, i + 1, fence)
            heading_text = para[-1][1] if para else ""
            if (
                close is None
                and heading_text
                and not _NOT_HEADING_TEXT.match(heading_text)
                and _RST_ADORN.match(line)
            ):
                # a reST underline made of fence characters (``~~~~``), not a code fence
                idx, _ = para.pop()
                flush()
                blocks.append(_Block("heading", _demoted(heading_text, 3, offset), idx, i))
                i += 1
                continue
            flush()
            end = close if close is not None else n - 1
            body = lines[i : end + 1]
            if close is None:  # never let an unclosed fence swallow the rest of the digest
                body = [*body, f"{fence.indent}{fence.char * fence.length}"]
            blocks.append(_Block("code", "\n".join(body), i, end))
            i = end + 1
            continue
        m = _ATX.match(line)
        if m:
            flush()
            if m.group(2):
                blocks.append(_Block("heading", _demoted(m.group(2), len(m.group(1)), offset), i, i))
            i += 1
            continue
        if para and _SETEXT.match(line) and not _NOT_HEADING_TEXT.match(para[-1][1]):
            idx, heading_text = para.pop()
            flush()
            level = 1 if line.strip()[0] == "=" else 2
            blocks.append(_Block("heading", _demoted(heading_text, level, offset), idx, i))
            i += 1
            continue
        para.append((i, line))
        i += 1
    flush()
    return blocks


def _prepare(c: Candidate, canonical: float | None) -> _Prepared:
    lines = c.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start, level = _own_heading(lines, c.heading)
    blocks = _split_blocks(lines, start, level)
    while blocks and blocks[-1].kind == "heading":
        blocks.pop()  # a trailing heading introduces nothing
    return _Prepared(c, blocks, "\n\n".join(b.text for b in blocks), canonical)


def _sentence_cuts(text: str) -> list[int]:
    """Offsets where a paragraph may be cut: after a sentence, or before a list/table/quote line."""
    cuts = {m.end() for m in _SENTENCE_END.finditer(text)}
    cuts.update(m.start() for m in re.finditer("\n", text) if _LIST_LINE.match(text, m.end()))
    # never cut inside an inline code span
    return sorted(p for p in cuts if 0 < p < len(text.rstrip()) and text.count("`", 0, p) % 2 == 0)


# --------------------------------------------------------------------------- rendering


def _one_line(text: str) -> str:
    return " ".join(text.split())


QUERY_SHOWN_CHARS = 300


def _clip_query(query: str) -> str:
    """A question pasted whole (a log, a file) must not eat the budget twice in the header."""
    return query if len(query) <= QUERY_SHOWN_CHARS else query[: QUERY_SHOWN_CHARS - 1].rstrip() + "…"


def _section_title(c: Candidate) -> str:
    return _one_line(c.heading) or _one_line(c.title) or c.path


def _section_block(c: Candidate, canonical: float | None, body: str, line_start: int, line_end: int) -> str:
    title = _section_title(c)
    head = (
        f"### Cross-Reference: {title} (from {c.path})"
        if c.origin == "crossref"
        else f"### {title} (from {c.path})"
    )
    source = f"**Source:** {c.path}:{line_start}-{line_end}"
    if canonical is not None:
        source += f" (canonical: {canonical:.2f})"
    out = [head, "", source]
    if c.origin == "crossref" and c.referenced_by:
        out.append(f"**Referenced by:** {', '.join(c.referenced_by)}")
    out += ["", body, "", "---", "", ""]
    return "\n".join(out)


def _doc_entry(rank: int, d: DocumentScore) -> str:
    updated = d.updated_at[:10] if d.updated_at else "unknown"
    return (
        f"{rank}. **{d.path}** (score: {d.combined:.2f}, canonical: {d.canonicality:.2f})\n"
        f"   - Last updated: {updated}\n"
        f"   - Status: {d.status}\n"
        f"   - Sections included: {d.sections_included}\n\n"
    )


def _fmt_threshold(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.2f}"
    return "none" if value is None else str(value)


def _render(d: Digest, actual: int) -> str:
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
        parts.append(_DOCS_HEADING)
        parts += [_doc_entry(i, doc) for i, doc in enumerate(d.documents, 1)]
        parts.append("---\n\n")
    elif d.layout == "full":
        none = "matched the question" if nothing_matched else "fit within the token budget"
        parts.append(f"{_DOCS_HEADING}_No document {none}._\n\n---\n\n")
    parts.append("## Distilled Content\n\n")
    canon = {doc.document_id: doc.canonicality for doc in d.documents}
    if d.sections:
        parts += [
            _section_block(s.candidate, canon.get(s.candidate.document_id), s.text, s.line_start, s.line_end)
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
    return _render(d, d.actual_tokens)


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


# --------------------------------------------------------------------------- selection


@dataclass(slots=True)
class _Pick:
    prepared: _Prepared
    body: str
    line_start: int
    line_end: int
    trimmed: bool
    tokens: int


@dataclass(slots=True)
class _Unit:
    """A piece of a trimmed body: a whole block, or a sentence run of the block that did not fit."""

    text: str
    sep: str  # what goes before it
    last: int  # index of the last line of the candidate's text it covers
    heading: bool = False
    partial: bool = False


class _Distiller:
    def __init__(
        self,
        *,
        base: Digest,
        documents: list[DocumentScore],
        prepared: list[_Prepared],
        encoding: str,
    ) -> None:
        self.base = base
        self.encoding = encoding
        self.prepared = prepared
        self.docs = {doc.document_id: doc for doc in documents}
        self.order = [doc.document_id for doc in documents]
        self._block_tokens: dict[int, list[int]] = {}
        full_blocks = [
            _section_block(p.candidate, p.canonical, p.body, p.candidate.line_start, p.candidate.line_end)
            for p in prepared
        ]
        self.full_tokens = count_many(full_blocks, encoding)
        wide = max(len(prepared), 1)
        entries = [_doc_entry(len(documents), replace(doc, sections_included=wide)) for doc in documents]
        self.entry_tokens = dict(zip(self.order, count_many(entries, encoding), strict=True))
        # Which sections a budget takes first: search hits by their document's rank, then the
        # more relevant sections of a document before the less (they are shown in reading
        # order); cross-references after every search hit, in their order.
        first_of: dict[int, int] = {}
        for i, p in enumerate(prepared):
            first_of.setdefault(p.candidate.document_id, i)
        self.priority = sorted(
            range(len(prepared)),
            key=lambda i: (
                (0, first_of[prepared[i].candidate.document_id], -prepared[i].candidate.relevance, i)
                if prepared[i].candidate.origin == "search"
                else (1, i, 0.0, i)
            ),
        )

    def count(self, text: str) -> int:
        return count_tokens(text, self.encoding)

    def skeleton(self, layout: Literal["full", "compact"]) -> int:
        """Tokens of the digest with no section, numbers at their widest."""
        n = self.base.max_tokens
        stats = {**self.base.stats, "tokens_per_section_avg": n, "sections_trimmed": len(self.prepared)}
        d = replace(self.base, layout=layout, stats=stats, sections=[], documents=[])
        extra = self.count(f"{_DOCS_HEADING}---\n\n") if layout == "compact" else 0
        return self.count(_render(d, max(n, 10 * n))) + extra

    def select(self, budget: int) -> tuple[list[_Pick], int]:
        """Sections by priority while they fit ``budget``, returned in reading order; also the
        estimated tokens they use."""
        chosen: list[tuple[int, _Pick]] = []
        listed: set[int] = set()
        remaining = budget
        for i in self.priority:
            p = self.prepared[i]
            if remaining < STOP_ROOM:
                break
            if not p.blocks:
                continue
            doc_id = p.candidate.document_id
            doc_cost = (
                self.entry_tokens[doc_id] + _JOIN_SLACK if doc_id in self.docs and doc_id not in listed else 0
            )
            full = self.full_tokens[i] + _JOIN_SLACK
            c = p.candidate
            if full + doc_cost <= remaining:
                pick = _Pick(p, p.body, c.line_start, c.line_end, False, self.full_tokens[i])
            elif remaining - doc_cost - _JOIN_SLACK >= MIN_TRIM_ROOM:
                trimmed = self.trim(p, remaining - doc_cost - _JOIN_SLACK)
                if trimmed is None:
                    continue
                pick = trimmed
            else:
                continue
            chosen.append((i, pick))
            remaining -= pick.tokens + _JOIN_SLACK + doc_cost
            if doc_id in self.docs:
                listed.add(doc_id)
        return [pick for _, pick in sorted(chosen, key=lambda t: t[0])], budget - remaining

    def trim(self, p: _Prepared, room: int) -> _Pick | None:
        """The longest start of the section (whole blocks, then whole sentences) that fits ``room``."""
        c = p.candidate
        header = self.count(_section_block(c, p.canonical, TRIM_MARKER, c.line_end, c.line_end))
        if id(p) not in self._block_tokens:
            self._block_tokens[id(p)] = count_many([b.text for b in p.blocks], self.encoding)
        block_tokens = self._block_tokens[id(p)]
        units: list[_Unit] = []
        used = header
        k = 0
        for b, t in zip(p.blocks, block_tokens, strict=True):
            if used + t + _JOIN_SLACK > room:
                break
            units.append(_Unit(b.text, "\n\n", b.last, heading=b.kind == "heading"))
            used += t + _JOIN_SLACK
            k += 1
        if k < len(p.blocks) and p.blocks[k].cuttable:
            b = p.blocks[k]
            cuts = _sentence_cuts(b.text)
            pieces = [b.text[a:z] for a, z in zip([0, *cuts], cuts, strict=False)]
            for j, t in enumerate(count_many(pieces, self.encoding)):
                if used + t + _JOIN_SLACK > room:
                    break
                used += t + _JOIN_SLACK
                line = b.first + b.text.count("\n", 0, cuts[j])
                units.append(_Unit(pieces[j], "\n\n" if j == 0 else "", line, partial=True))
        while units:
            while units and units[-1].heading:
                units.pop()  # do not end on a heading that introduces nothing
            if not units:
                break
            body = "".join(u.sep + u.text for u in units)[2:].rstrip()
            whole = len(units) == len(p.blocks) and not units[-1].partial
            if not whole:
                body += "\n\n" + TRIM_MARKER
            line_end = c.line_end if whole else min(c.line_end, c.line_start + units[-1].last)
            tokens = self.count(_section_block(c, p.canonical, body, c.line_start, line_end))
            if tokens <= room:
                return _Pick(p, body, c.line_start, max(c.line_start, line_end), not whole, tokens)
            units.pop()
        return None

    def digest(self, picks: list[_Pick], layout: Literal["full", "compact"]) -> Digest:
        counts: dict[int, int] = {}
        for pk in picks:
            counts[pk.prepared.candidate.document_id] = counts.get(pk.prepared.candidate.document_id, 0) + 1
        documents = [replace(self.docs[i], sections_included=counts[i]) for i in self.order if i in counts]
        sections = [
            DistilledSection(
                pk.prepared.candidate, pk.body, pk.line_start, pk.line_end, pk.trimmed, pk.tokens
            )
            for pk in picks
        ]
        stats = dict(self.base.stats)
        stats.update(
            sections_included=len(sections),
            sections_trimmed=sum(s.trimmed for s in sections),
            tokens_per_section_avg=round(sum(s.tokens for s in sections) / len(sections)) if sections else 0,
            layout=layout,
        )
        return replace(self.base, documents=documents, sections=sections, stats=stats, layout=layout)

    def finish(self, d: Digest) -> tuple[Digest, int]:
        """Render until the printed ``Actual Tokens`` equals the count of the text that prints it.

        Returns the digest and the larger of the printed and the real count (equal when it converged).
        """
        guess, previous = d.max_tokens, d.max_tokens
        for _ in range(_MAX_ROUNDS):
            text = _render(d, guess)
            real = self.count(text)
            if real == guess:
                d.actual_tokens, d.markdown = real, text
                return d, real
            previous, guess = guess, real
        printed = max(previous, guess)  # no fixed point: print the larger of the last two counts
        d.actual_tokens, d.markdown = printed, _render(d, printed)
        return d, max(printed, self.count(d.markdown))


def distill(
    *,
    query: str,
    documents: list[DocumentScore],
    candidates: list[Candidate],
    max_tokens: int,
    encoding: str,
    documents_scanned: int,
    stats: dict[str, Any],
    generated_at: str,
    primary_areas: list[str],
    fmt: Literal["markdown", "json"] = "markdown",
) -> Digest:
    """Choose, trim and render the sections so that the whole Markdown digest fits ``max_tokens``.

    With ``fmt="json"`` the sections are chosen the same way, then the JSON text (``json_text``)
    must fit ``max_tokens`` too: while it does not, the section of lowest priority leaves the
    selection (the JSON's sections are the Markdown's, less the last ones taken). When not even
    the first fits as JSON, it is trimmed further rather than left out.

    Args:
        query: the question, printed in the header and the usage note.
        documents: document scores, best first; only those with an included section are listed.
        candidates: sections in the order they should appear (primary sections, then
            cross-references). Each is included whole when it fits, else trimmed at block or
            sentence boundaries, else skipped (a later, smaller one may still fit).
        max_tokens: the budget for the whole rendered Markdown, counted exactly.
        encoding: a token encoding from ``tokens.ENCODINGS``.
        documents_scanned: how many documents the search looked at.
        stats: selection statistics printed in the metadata; read here: ``candidate_sections``,
            ``relevance_threshold``, ``cross_references``. The digest's stats add
            ``sections_included``, ``sections_trimmed``, ``tokens_per_section_avg`` and ``layout``.
        generated_at: ISO time printed as "Generated".
        primary_areas: a few words for what the digest covers.
        fmt: "json" also renders and fits ``json_text``.

    Returns:
        The digest, with ``markdown`` rendered and ``actual_tokens`` its exact token count. When
        even the metadata and usage note leave no room for content, they are left out (``layout``
        "compact"); a budget too small for the header yields the header alone.

    Raises:
        UsageError: unknown encoding or a budget below 1.
    """
    check_encoding(encoding)
    if max_tokens < 1:
        raise UsageError(f"the token budget must be at least 1 (got {max_tokens})")
    base = Digest(
        query=query,
        generated_at=generated_at,
        max_tokens=max_tokens,
        encoding=encoding,
        actual_tokens=0,
        primary_areas=list(primary_areas),
        documents_scanned=documents_scanned,
        documents=[],
        sections=[],
        stats=dict(stats),
    )
    canon = {doc.document_id: doc.canonicality for doc in documents}
    prepared = [_prepare(c, canon.get(c.document_id)) for c in candidates]
    work = _Distiller(base=base, documents=documents, prepared=prepared, encoding=encoding)
    layout: Literal["full", "compact"] = "full"
    skeleton = work.skeleton("full")
    if skeleton > max_tokens // 2:
        layout = "compact"
        skeleton = work.skeleton("compact")
    best = _fit(work, layout, max_tokens - skeleton, max_tokens)
    # The estimates above are conservative: hand the tokens left over to a second selection.
    for _ in range(2):
        spare = max_tokens - best[0].actual_tokens
        if spare < 8:
            break
        better = _fit(work, layout, best[1] + spare, max_tokens)
        if best[0].actual_tokens < better[0].actual_tokens <= max_tokens:
            best = better
        else:
            break
    if fmt == "json":
        return _fit_json(work, layout, best, max_tokens)
    return best[0]


def _fit_json(
    work: _Distiller,
    layout: Literal["full", "compact"],
    best: tuple[Digest, int, list[_Pick]],
    max_tokens: int,
) -> Digest:
    """The Markdown digest's selection with its JSON text within ``max_tokens``."""
    d, used, picks = best
    text = render_json_text(d)
    index = {id(p): i for i, p in enumerate(work.prepared)}
    rank = {i: r for r, i in enumerate(work.priority)}
    had = bool(picks)
    limit = max_tokens - _JSON_SLACK
    while picks and work.count(text) > limit:
        worst = max(picks, key=lambda pk: rank[index[id(pk.prepared)]])
        picks = [pk for pk in picks if pk is not worst]
        d = work.finish(work.digest(picks, layout))[0]
        text = render_json_text(d)
    budget = used
    for _ in range(8):  # not even the first section fits as JSON: trim it harder
        if picks or not had or budget < MIN_TRIM_ROOM:
            break
        budget = budget * 2 // 3
        first, _used = work.select(budget)
        first = first[:1]
        trial = work.finish(work.digest(first, layout))[0]
        if first and work.count(render_json_text(trial)) <= limit:
            picks, d, text = first, trial, render_json_text(trial)
    d.json_text = text
    return d


def _fit(
    work: _Distiller, layout: Literal["full", "compact"], budget: int, max_tokens: int
) -> tuple[Digest, int, list[_Pick]]:
    """The digest for a selection budget, shrinking it until the real count fits ``max_tokens``.

    Also returns the estimated tokens the chosen sections use (what a larger budget builds on).
    """
    shrink, picks = 0, list[_Pick]()
    for _ in range(8):
        picks, used = work.select(budget) if budget > 0 else ([], 0)
        d, real = work.finish(work.digest(picks, layout))
        over = real - max_tokens
        if over <= 0 or not picks:
            return d, used, picks
        shrink = max(2 * shrink, over + 2)  # grows, so a stubborn overshoot cannot loop for long
        budget = used - shrink
    while picks:  # last resort, never reached in practice: drop sections from the end
        picks.pop()
        d, real = work.finish(work.digest(picks, layout))
        if real <= max_tokens:
            return d, 0, picks
    return work.finish(work.digest([], layout))[0], 0, []
