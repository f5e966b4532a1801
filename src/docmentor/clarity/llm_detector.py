"""Optional clarity issues found by a language model (``--llm``).

The model only finds issues; it never scores. It gets an issue-detection prompt
(``SYSTEM_PROMPT``: read as a new user, tag each issue with dimensions and a
severity, suggest a fix) and the document with every line prefixed by its number, so it
can cite lines. Long documents go in several requests: whole sections are packed into
parts of at most ``chunk_chars`` characters (a section longer than that is cut at line
boundaries). The findings of the deterministic checks on each part are listed in the
prompt as already reported.

What the model returns is checked, not trusted. An issue is dropped when:

- its severity is not critical/warning/info, or none of its dimensions is one of
  ``DIMENSIONS`` (unknown dimension names are removed, the rest kept);
- its line is outside the part the model was shown (0, "the whole page", is allowed);
  lines are not clamped, because a line the model invented points the reader nowhere;
- its message is empty, or it is about links or image alt text (counted separately);
- it duplicates a finding of the checks (``existing``) or an earlier model finding: a
  line within ±1 (both 0, or both not 0) and the same type or a very similar message
  (the sets of their words overlap by ≥ 0.6, Jaccard). Findings are indexed by line, so
  each new one is compared with a bounded number of others (``_COMPARED`` per line): de-
  duplication stays linear however many issues a reply holds.

A reply that is unusable for one part — no JSON object after the corrective retry, JSON
nested too deeply, an answer over the client's size cap — skips that part with a warning;
the other parts are still read by the model.

When the ``context_quote`` is not on the cited line (±1) but occurs exactly once in the
part, the line is moved to it: models miscount lines more often than they misquote.
The section is always recomputed from the line with the document's own headings.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from docmentor.clarity.models import DIMENSIONS, SEVERITIES, Issue, Severity
from docmentor.llm import LLMClient
from docmentor.llm.config import LLMReplyError
from docmentor.models import RawDocument
from docmentor.parse import parse_document

__all__ = ["CHUNK_CHARS", "SYSTEM_PROMPT", "LLMIssueList", "LLMIssueReply", "detect_issues"]

logger = logging.getLogger(__name__)

CHUNK_CHARS = 24_000  # characters of numbered document text per request
SIMILAR = 0.6  # word-set overlap (Jaccard) above which two issues on nearby lines are the same
_COMPARED = 32  # latest findings per line a new one is compared with (keeps de-duplication linear)
_MESSAGE_WORDS = 200  # words of a message that count for similarity
_MAX_LISTED = 40  # deterministic findings listed per part as "already reported"
_SKIPPED_TYPES = frozenset({"broken_link", "broken_links", "broken_anchor", "missing_alt_text", "alt_text"})
Effort = Literal["low", "medium", "high"]
_EFFORTS: tuple[Effort, ...] = ("low", "medium", "high")

SYSTEM_PROMPT = """\
You are an expert documentation quality analyst specializing in evaluating instructional clarity and structure.

Your role is to identify clarity issues in documentation from the perspective of a new user. \
You do NOT assign scores - a separate scoring system calculates them deterministically from the issues you report.

**Your Tasks:**
1. Read through the documentation as a new user trying to follow it
2. Identify clarity issues with specific locations
3. Tag each issue with applicable dimension(s)
4. Provide actionable suggested fixes

**Issue Dimensions:**
Tag each issue with one or more of:
- `instruction_clarity`: Unclear commands, incomplete examples, missing outcome explanations
- `logical_flow`: Steps don't build properly, gaps in reasoning, forward references
- `completeness`: Missing prerequisites, missing details, missing edge cases
- `consistency`: Inconsistent terminology, code style, or explanations
- `prerequisite_coverage`: Prerequisites not stated upfront, missing version requirements

**Severity Levels:**
- `critical`: Issue blocks user progress entirely
- `warning`: Issue causes confusion but is workaroundable
- `info`: Nice-to-have improvement

**Issue types** (snake_case; use these when they fit): logical_gap, unclear_instruction, \
missing_explanation, missing_outcome, missing_prerequisites, forward_reference, undefined_term, \
incomplete_example, inconsistent_terminology, ambiguous_reference.

**Line numbers:** every line of the document is shown as `<number>| <text>`. Put that number in \
`line` (use 0 only for an issue about the page as a whole). Copy the offending text, without the \
number prefix, into `context_quote` (at most one line).

**Do not report:** broken links or missing image alt text (checked separately), anything in the \
"already reported" list, or matters of taste. Report only real problems; an empty list is a fine answer.

**Output Format:**
Return one JSON object with this structure:
{"issues": [{"type": "logical_gap", "severity": "critical", "dimensions": ["logical_flow", "completeness"], \
"line": 45, "section": "Configuration", "message": "...", "suggested_fix": "...", "context_quote": "..."}]}

DO NOT include score fields - the scoring system will calculate those based on your issues.
"""


# ----------------------------------------------------------------- reply models


class LLMIssueReply(BaseModel):
    """One issue as the model reports it (lenient: checked again by ``detect_issues``)."""

    model_config = ConfigDict(extra="ignore")

    type: str = Field(default="clarity_issue", description="snake_case issue type, e.g. logical_gap")
    severity: str = Field(description="one of: critical, warning, info")
    dimensions: list[str] = Field(description="one or more of: " + ", ".join(DIMENSIONS))
    line: int = Field(description="the line number shown before '|' (0: the whole page)")
    section: str = Field(default="", description="the heading of the section the line is in")
    message: str = Field(description="what is wrong, for the documentation's author")
    suggested_fix: str = Field(default="", description="a concrete change that fixes it")
    context_quote: str = Field(default="", description="the offending text, copied without the line number")
    estimated_effort: str = Field(default="medium", description="effort to fix: low, medium or high")

    @field_validator(
        "type",
        "severity",
        "section",
        "message",
        "suggested_fix",
        "context_quote",
        "estimated_effort",
        mode="before",
    )
    @classmethod
    def _text(cls, value: Any) -> Any:
        return "" if value is None else str(value) if isinstance(value, int | float) else value

    @field_validator("dimensions", mode="before")
    @classmethod
    def _dimensions(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v for v in re.split(r"[,\s]+", value) if v]
        if isinstance(value, list):
            return [v for v in value if isinstance(v, str)]
        return [] if value is None else value

    @field_validator("line", mode="before")
    @classmethod
    def _line(cls, value: Any) -> Any:
        # "line 45", "45-47", 45.0 → 45; anything else → -1, dropped later
        if isinstance(value, bool) or value is None:
            return -1
        if isinstance(value, float):
            return int(value) if value.is_integer() else -1
        if isinstance(value, str):
            match = re.search(r"\d+", value)
            return int(match.group()) if match else -1
        return value


class LLMIssueList(BaseModel):
    """The model's whole reply: ``{"issues": [...]}``."""

    model_config = ConfigDict(extra="ignore")

    issues: list[LLMIssueReply] = Field(description="the clarity issues found; empty when there are none")

    @model_validator(mode="before")
    @classmethod
    def _shape(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        keys = ("issues", "clarity_issues", "structural_issues")  # a model may echo the result's key names
        if not any(k in data for k in keys):
            raise ValueError('expected an object with an "issues" list')
        items: list[Any] = []
        for key in keys:
            value = data.get(key)
            if isinstance(value, list):
                items.extend(value)
        # Entries that are not objects or lack a required field are dropped, unless all
        # of them are: then the reply fails validation and the model gets to correct it.
        required = ("severity", "dimensions", "line", "message")
        good = [i for i in items if isinstance(i, dict) and all(k in i for k in required)]
        return {"issues": good if good or not items else items}


# ------------------------------------------------------------------------ detect


def detect_issues(
    client: LLMClient,
    *,
    path: str,
    text: str,
    existing: Sequence[Issue],
    chunk_chars: int = CHUNK_CHARS,
) -> list[Issue]:
    """Ask the model for clarity issues in one document.

    Args:
        client: the chat client.
        path: the document's path as shown to the user (also tells the model what it reads).
        text: the document's text; lines are numbered from 1.
        existing: issues the deterministic checks found; their duplicates are dropped.
        chunk_chars: the most numbered text sent in one request.

    Returns:
        The model's new issues only (``check="llm"``), by line; add them to ``existing``.

    A part whose reply stays unusable after the corrective retry is skipped with a warning
    (the issues found in the other parts are kept).

    Raises:
        LLMError: a request failed (the endpoint cannot be reached, refuses, times out).
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not text.strip():
        return []
    width = len(str(len(lines)))
    numbered = [f"{n:>{width}}| {line}" for n, line in enumerate(lines, start=1)]
    heads = _headings(path, text)
    parts = _parts(numbered, [start for start, _ in heads], max(chunk_chars, 1))
    found: list[Issue] = []
    known = list(existing)
    seen = _Seen(known)
    flat = [" ".join(line.split()).lower() for line in lines]  # for finding quotes, once
    for index, (lo, hi) in enumerate(parts, start=1):
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {
                "role": "user",
                "content": _user_prompt(path, numbered, heads, known, lo, hi, index, len(parts)),
            },
        ]
        try:
            reply = client.chat_json(messages, LLMIssueList)
        except LLMReplyError as exc:  # this part goes unread by the model; the others still count
            # (no JSON after the correction, JSON nested too deeply, an answer over the size cap)
            logger.warning("%s lines %d-%d: %s; checked by the rules alone", path, lo, hi, exc.message)
            continue
        kept = 0
        for raw in reply.issues:
            issue = _to_issue(raw, lines=flat, heads=heads, lo=lo, hi=hi)
            if issue is None or seen.duplicate(issue):
                continue
            found.append(issue)
            known.append(issue)
            seen.add(issue)
            kept += 1
        logger.debug(
            "%s lines %d-%d: %d issues from the model, %d kept", path, lo, hi, len(reply.issues), kept
        )
    found.sort(key=lambda i: i.line)
    return found


def _headings(path: str, text: str) -> list[tuple[int, str]]:
    """(first line, heading path) of each section with a heading, in order."""
    fmt: Literal["markdown", "rst"] = "rst" if path.lower().endswith((".rst", ".rest")) else "markdown"
    parsed = parse_document(RawDocument(path=path, url="", content=text, fmt=fmt))
    return [(s.line_start, " > ".join(s.heading_path)) for s in parsed.sections if s.level > 0]


def _section_of(line: int, heads: list[tuple[int, str]]) -> str:
    current = ""
    for start, name in heads:
        if start > line:
            break
        current = name
    return current


def _parts(numbered: list[str], starts: list[int], budget: int) -> list[tuple[int, int]]:
    """1-based inclusive line ranges: whole sections packed up to ``budget`` characters."""
    total = len(numbered)
    bounds = sorted({1, *(s for s in starts if 1 <= s <= total)})
    units = [(a, b - 1) for a, b in zip(bounds, [*bounds[1:], total + 1], strict=True)]
    cost = [len(line) + 1 for line in numbered]

    def size(lo: int, hi: int) -> int:
        return sum(cost[lo - 1 : hi])

    pieces: list[tuple[int, int]] = []
    for lo, hi in units:  # cut sections that are too long on their own at line boundaries
        if size(lo, hi) <= budget:
            pieces.append((lo, hi))
            continue
        start, used = lo, 0
        for n in range(lo, hi + 1):
            if used and used + cost[n - 1] > budget:
                pieces.append((start, n - 1))
                start, used = n, 0
            used += cost[n - 1]
        pieces.append((start, hi))
    parts: list[tuple[int, int]] = []
    for lo, hi in pieces:
        if parts and size(parts[-1][0], hi) <= budget:
            parts[-1] = (parts[-1][0], hi)
        else:
            parts.append((lo, hi))
    return parts


def _user_prompt(
    path: str,
    numbered: list[str],
    heads: list[tuple[int, str]],
    known: list[Issue],
    lo: int,
    hi: int,
    index: int,
    count: int,
) -> str:
    out = [f"Document: {path}"]
    if count > 1:
        out.append(f"This is part {index} of {count}: lines {lo}-{hi} of {len(numbered)}.")
        section = _section_of(lo, heads)
        if section and not any(start == lo for start, _ in heads):
            out.append(f"It starts inside the section: {section}")
    listed = [i for i in known if i.line == 0 or lo <= i.line <= hi][:_MAX_LISTED]
    if listed:
        out.append("\nAlready reported by automatic checks (do not repeat these):")
        out += [f"- line {i.line} [{i.type}, {i.severity}] {_clip(i.message, 160)}" for i in listed]
    out.append("\nFind the clarity issues in this documentation:\n<document>")
    out += numbered[lo - 1 : hi]
    out.append("</document>")
    return "\n".join(out)


# ------------------------------------------------------------------ validation


_PREFIX = re.compile(r"^\s*\d+\|\s?")


def _to_issue(
    raw: LLMIssueReply, *, lines: list[str], heads: list[tuple[int, str]], lo: int, hi: int
) -> Issue | None:
    severity = raw.severity.strip().lower()
    if severity not in SEVERITIES:
        return None
    dims: list[str] = []
    for d in raw.dimensions:
        name = re.sub(r"[^a-z]+", "_", d.strip().lower()).strip("_")
        if name in DIMENSIONS and name not in dims:
            dims.append(name)
    message = " ".join(raw.message.split())
    kind = re.sub(r"[^a-z0-9]+", "_", raw.type.strip().lower()).strip("_") or "clarity_issue"
    if not dims or not message or kind in _SKIPPED_TYPES:
        return None
    line = raw.line
    if line != 0 and not lo <= line <= hi:
        return None
    quote = _PREFIX.sub("", raw.context_quote.strip().split("\n")[0]).strip()
    if line and quote:
        line = _relocate(quote, line, lines, lo, hi)
    return Issue(
        type=kind,
        severity=_severity(severity),
        dimensions=dims,
        line=line,
        section=_section_of(line, heads) if line else "",
        message=_clip(message, 1000),
        suggested_fix=_clip(" ".join(raw.suggested_fix.split()), 1000),
        context_quote=_clip(quote, 300),
        check="llm",
        effort=_effort(raw),
    )


def _severity(value: str) -> Severity:
    return next(s for s in SEVERITIES if s == value)


def _effort(raw: LLMIssueReply) -> Effort:
    value = raw.estimated_effort.strip().lower()
    return next((e for e in _EFFORTS if e == value), "medium")


def _relocate(quote: str, line: int, lines: list[str], lo: int, hi: int) -> int:
    """The line holding ``quote``: ``line`` or its neighbour when one holds it, else its only occurrence.

    ``lines`` are the document's lines with their whitespace squeezed, lower-cased.
    """
    needle = " ".join(quote.split()).lower()
    if len(needle) < 8:
        return line

    def holds(n: int) -> bool:
        return needle in lines[n - 1]

    if holds(line) if lo <= line <= hi else False:
        return line
    for n in (line - 1, line + 1):  # models are often one line off: point at the quoted line
        if lo <= n <= hi and holds(n):
            return n
    hits = [n for n in range(lo, hi + 1) if holds(n)]
    return hits[0] if len(hits) == 1 else line


class _Seen:
    """The issues reported so far, by line, for the duplicate test in constant time per line.

    Two issues are the same when their lines are within ±1 (line 0, the whole page, only
    matches line 0) and they have the same type — a set lookup — or similar messages: the
    sets of their words overlap by ``SIMILAR`` (Jaccard). Messages are compared with the
    latest ``_COMPARED`` issues of each nearby line only, and an exact repeat of a word set
    is a set lookup too, so a reply of thousands of issues on one line costs thousands of
    bounded steps, not millions.
    """

    def __init__(self, issues: Sequence[Issue]) -> None:
        self._types: dict[int, set[str]] = {}
        self._words: dict[int, list[frozenset[str]]] = {}
        self._exact: dict[int, set[frozenset[str]]] = {}
        for issue in issues:
            self.add(issue)

    def add(self, issue: Issue) -> None:
        self._types.setdefault(issue.line, set()).add(issue.type)
        words = _words(issue.message)
        if words:
            latest = self._words.setdefault(issue.line, [])
            latest.append(words)
            if len(latest) > 2 * _COMPARED:  # keep the window; the exact set keeps them all
                del latest[:-_COMPARED]
            self._exact.setdefault(issue.line, set()).add(words)

    def duplicate(self, issue: Issue) -> bool:
        words = _words(issue.message)
        nearby = (
            (0,) if issue.line == 0 else (n for n in (issue.line - 1, issue.line, issue.line + 1) if n > 0)
        )
        for n in nearby:
            if issue.type in self._types.get(n, ()):
                return True
            if not words:
                continue
            if words in self._exact.get(n, ()):
                return True
            for other in self._words.get(n, ())[-_COMPARED:]:
                if len(words & other) >= SIMILAR * len(words | other):
                    return True
        return False


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9_]+", text.lower())[:_MESSAGE_WORDS])


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
