"""Distillation: choose and trim sections so the whole digest fits the token budget; render it.

Everything here is pure: no I/O, and the same inputs give the same digest (the generation
time is passed in). Token counts are exact (``tokens.py``) and cover the whole output —
header, document list, sections, metadata and usage note. A section's text is cut into
blocks by ``blocks.py``; the digest is rendered by ``render.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from docmentor.assemble.blocks import Prepared, prepare, sentence_cuts
from docmentor.assemble.models import Candidate, Digest, DistilledSection, DocumentScore
from docmentor.assemble.render import DOCS_HEADING, doc_entry, render_digest, render_json_text, section_block
from docmentor.assemble.tokens import check_encoding, count_many, count_tokens
from docmentor.errors import UsageError

TRIM_MARKER = "… (trimmed)"
MIN_TRIM_ROOM = 80  # trim a section that does not fit only when at least this much room is left
STOP_ROOM = 40  # stop looking for more sections below this much room
_JOIN_SLACK = 1  # tokens allowed per joined part: BPE counts of a concatenation differ slightly
_JSON_SLACK = 4  # tokens kept free in the JSON for the timing written after it is fitted
_MAX_ROUNDS = 4  # re-renders to make the printed "Actual Tokens" equal the real count


# --------------------------------------------------------------------------- selection


@dataclass(slots=True)
class _Pick:
    prepared: Prepared
    body: str
    line_start: int
    line_end: int
    trimmed: bool
    tokens: int


def _referred(c: Candidate, shown: list[_Pick]) -> bool:
    """Whether a link or mention that led to cross-reference ``c`` is in a shown section (its
    lines as shown, a trimmed one's included)."""
    for where in c.referenced_by:
        path, _, line = where.rpartition(":")
        if not line.isdigit():
            return True  # a reference without a line: cannot tell, keep it
        at = int(line)
        if any(pk.prepared.candidate.path == path and pk.line_start <= at <= pk.line_end for pk in shown):
            return True
    return False


@dataclass(slots=True)
class _Unit:
    """A piece of a trimmed body: a whole block, or a sentence run of the block that did not fit.
    A body does not end on a heading, and a trimmed body not on an ``intro`` (a lead-in
    ending in ``:``, a content tab's or an admonition's opening line): what they introduce is
    left out."""

    text: str
    sep: str  # what goes before it
    last: int  # index of the last line of the candidate's text it covers
    heading: bool = False
    partial: bool = False
    intro: bool = False


# the opening line of a MkDocs content tab (=== "Do") or admonition (!!! note, ??? tip)
_OPENER = re.compile(r"(?:===|\?\?\?\+?|!!!)[ \t]+\S.*")


def _introduces(text: str) -> bool:
    """Whether a block's last line only announces what follows it: "To install it, run:", a
    content tab's ``=== "✅ Do"``, an admonition's ``!!! note``."""
    last = text.rstrip().rsplit("\n", 1)[-1].strip()
    return last.endswith(":") or _OPENER.fullmatch(last) is not None


class _Distiller:
    def __init__(
        self,
        *,
        base: Digest,
        documents: list[DocumentScore],
        prepared: list[Prepared],
        encoding: str,
    ) -> None:
        self.base = base
        self.encoding = encoding
        self.prepared = prepared
        self.docs = {doc.document_id: doc for doc in documents}
        self.order = [doc.document_id for doc in documents]
        self._block_tokens: dict[int, list[int]] = {}
        full_blocks = [
            section_block(p.candidate, p.canonical, p.body, p.candidate.line_start, p.candidate.line_end)
            for p in prepared
        ]
        self.full_tokens = count_many(full_blocks, encoding)
        wide = max(len(prepared), 1)
        named = len({doc.source for doc in documents}) > 1  # as rendered (at most: an upper bound)
        entries = [
            doc_entry(len(documents), replace(doc, sections_included=wide), named=named) for doc in documents
        ]
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
        extra = self.count(f"{DOCS_HEADING}---\n\n") if layout == "compact" else 0
        return self.count(render_digest(d, max(n, 10 * n))) + extra

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
            if p.candidate.origin != "search" and not _referred(p.candidate, [pk for _, pk in chosen]):
                continue  # a cross-reference from a section this budget left out has no place
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

    def trim(self, p: Prepared, room: int) -> _Pick | None:
        """The longest start of the section (whole blocks, then whole sentences) that fits ``room``."""
        c = p.candidate
        header = self.count(section_block(c, p.canonical, TRIM_MARKER, c.line_end, c.line_end))
        if id(p) not in self._block_tokens:
            self._block_tokens[id(p)] = count_many([b.text for b in p.blocks], self.encoding)
        block_tokens = self._block_tokens[id(p)]
        units: list[_Unit] = []
        used = header
        k = 0
        for b, t in zip(p.blocks, block_tokens, strict=True):
            if used + t + _JOIN_SLACK > room:
                break
            units.append(
                _Unit(b.text, "\n\n", b.last, heading=b.kind == "heading", intro=_introduces(b.text))
            )
            used += t + _JOIN_SLACK
            k += 1
        if k < len(p.blocks) and p.blocks[k].cuttable:
            b = p.blocks[k]
            cuts = sentence_cuts(b.text)
            pieces = [b.text[a:z] for a, z in zip([0, *cuts], cuts, strict=False)]
            for j, t in enumerate(count_many(pieces, self.encoding)):
                if used + t + _JOIN_SLACK > room:
                    break
                used += t + _JOIN_SLACK
                line = b.first + b.text.count("\n", 0, cuts[j])
                units.append(
                    _Unit(
                        pieces[j],
                        "\n\n" if j == 0 else "",
                        line,
                        heading=_introduces(pieces[j]),
                        partial=True,
                    )
                )
        while units:
            while units and (
                units[-1].heading or (units[-1].intro and (len(units) < len(p.blocks) or units[-1].partial))
            ):
                units.pop()  # do not end on a heading, or a lead-in to what is cut, that introduces nothing
            if not units:
                break
            body = "".join(u.sep + u.text for u in units)[2:].rstrip()
            whole = len(units) == len(p.blocks) and not units[-1].partial
            if not whole:
                body += "\n\n" + TRIM_MARKER
            line_end = c.line_end if whole else min(c.line_end, c.line_start + units[-1].last)
            tokens = self.count(section_block(c, p.canonical, body, c.line_start, line_end))
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
            text = render_digest(d, guess)
            real = self.count(text)
            if real == guess:
                return replace(d, actual_tokens=real, markdown=text), real
            previous, guess = guess, real
        printed = max(previous, guess)  # no fixed point: print the larger of the last two counts
        text = render_digest(d, printed)
        return replace(d, actual_tokens=printed, markdown=text), max(printed, self.count(text))


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
    prepared = [prepare(c, canon.get(c.document_id)) for c in candidates]
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
    return replace(d, json_text=text)


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
