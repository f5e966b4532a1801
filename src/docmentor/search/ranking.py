"""From raw BM25 hits to results: de-duplication, per-document caps, snippets."""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from docmentor.models import SearchHit
from docmentor.parse.common import ATTR_LIST, COMMENT_LINE, LABEL_LINE, LINK_DEFINITION, comment_span
from docmentor.parse.fences import Fence, closes, fence_open, line_as_shown, outside_fences
from docmentor.parse.rst import ADORNMENT, roles_as_code
from docmentor.parse.shown_code import code_as_shown, may_hide_code
from docmentor.search.analyzer import analyze
from docmentor.search.config import DEFAULT, RankingConfig
from docmentor.search.lexical import LexicalHit

SNIPPET_CHARS = 320


def rank_hits(
    hits: Sequence[LexicalHit],
    terms: Sequence[tuple[str, float]],
    *,
    limit: int,
    per_document: int,
    versions: Mapping[str, str | None],
    snippets: bool = True,
    config: RankingConfig = DEFAULT,
    collapse: bool = True,
    fused: bool = False,
    reasons: Mapping[str, str] | None = None,
) -> list[SearchHit]:
    """Best first; identical section texts once (with ``collapse``, listing the other places, as
    near-identical ones are); at most ``per_document`` sections of a document in each
    ``per_document_window`` of results while other documents match (its further sections lead
    the next window; when none is left to fill the list, they come after). ``snippets=False`` leaves ``snippet`` empty
    (callers that only need the sections: a third of the time). ``fused``: the hits are
    already scored and ordered (:func:`docmentor.search.hybrid.blend`). ``versions``: each
    source's library version; ``reasons``: why a source's version was chosen among its
    library's (each hit's ``version_reason``)."""
    reasons = reasons or {}
    hits = list(hits) if fused else fuse(hits, doc_weight=config.doc_weight)
    if config.history_weight != 1.0:
        changes = [history_page(str(h.fields.get("s_path", ""))) for h in hits]
        if any(changes):
            hits = sorted(
                (
                    LexicalHit(h.score * config.history_weight, h.fields) if c else h
                    for h, c in zip(hits, changes, strict=True)
                ),
                key=lambda h: -h.score,
            )
    window = max(config.per_document_window, 1)
    seen_text: dict[str, LexicalHit] = {}  # each text's first hit: a copy is listed under it
    picked: list[LexicalHit] = []
    overflow: list[LexicalHit] = []
    per_doc: dict[int, int] = {}
    words: dict[int, frozenset[str]] = {}
    also: dict[int, list[dict[str, Any]]] = {}
    for hit in hits:
        f = hit.fields
        text = str(f.get("s_text", "")).strip()
        digest = hashlib.sha1(text.encode()).hexdigest()
        if len(picked) >= limit:
            # the list is full: the rest is not shown, but a copy of a shown section is still
            # listed under it (its ``also`` must not depend on ``limit``)
            if collapse:
                _list_copy(
                    hit,
                    seen_text.get(digest) or _near_duplicate(text, picked, words, config.duplicate_jaccard),
                    picked,
                    also,
                )
            continue
        doc = int(f["document_id"])
        first = seen_text.get(digest)
        if first is not None:
            if not collapse:
                continue
            waiting = next((k for k, o in enumerate(overflow) if o is first), None)
            if waiting is not None and per_doc.get(doc, 0) < per_document:
                # the first place waits behind its document's cap: this copy answers now, and
                # lists the first (and whatever was listed under it)
                overflow.pop(waiting)
                also[id(hit)] = [_place(first.fields), *also.pop(id(first), [])]
                seen_text[digest] = hit
            else:  # the same text in another place (a copied page, another source)
                also.setdefault(id(first), []).append(_place(f))
                continue
        else:
            seen_text[digest] = hit
            if collapse and len(picked) < limit:
                twin = _near_duplicate(text, picked, words, config.duplicate_jaccard)
                if twin is not None:
                    also.setdefault(id(twin), []).append(_place(f))
                    seen_text[digest] = twin  # an exact copy of this place is listed there too
                    continue
        if per_doc.get(doc, 0) >= per_document:
            overflow.append(hit)
            continue
        per_doc[doc] = per_doc.get(doc, 0) + 1
        picked.append(hit)
        if len(picked) % window == 0:
            per_doc = _next_window(picked, overflow, per_document, window, limit)
    ordered = (picked + overflow)[:limit]
    term_set = {t for t, _ in terms}
    out: list[SearchHit] = []
    for rank, hit in enumerate(ordered, 1):
        f = hit.fields
        source = str(f.get("source", ""))
        out.append(
            SearchHit(
                rank=rank,
                source=source,
                path=str(f.get("s_path", "")),
                url=str(f.get("s_url", "")),
                title=str(f.get("s_title", "")),
                heading=str(f.get("s_heading", "")),
                heading_path=list(json.loads(str(f.get("s_heading_path", "[]")))),
                line_start=int(f.get("line_start", 1)),
                line_end=int(f.get("line_end", 1)),
                score=hit.score,
                snippet=snippet(str(f.get("s_text", "")), term_set, rest=is_rest(str(f.get("s_path", ""))))
                if snippets
                else "",
                indexed_at=str(f.get("s_indexed_at", "")),
                source_version=versions.get(source),
                version_reason=reasons.get(source),
                document_id=int(f.get("document_id", 0)),
                section_id=int(f.get("section_id", 0)),
                text=str(f.get("s_text", "")),
                also=also.get(id(hit), []),
            )
        )
    return out


def _next_window(
    picked: list[LexicalHit], overflow: list[LexicalHit], per_document: int, window: int, limit: int
) -> dict[int, int]:
    """A window of results is full: the sections that waited for their document's turn lead
    the next (best first, ``per_document`` of a document in each window). Returns the counts
    of the window being filled."""
    while True:
        counts: dict[int, int] = {}
        waiting: list[LexicalHit] = []
        full_at: int | None = None
        for k, hit in enumerate(overflow):
            doc = int(hit.fields["document_id"])
            if len(picked) >= limit or counts.get(doc, 0) >= per_document:
                waiting.append(hit)
                continue
            counts[doc] = counts.get(doc, 0) + 1
            picked.append(hit)
            if len(picked) % window == 0:
                full_at = k
                break
        if full_at is None:
            overflow[:] = waiting
            return counts
        overflow[:] = waiting + overflow[full_at + 1 :]  # and another window begins


def _list_copy(
    hit: LexicalHit,
    shown: LexicalHit | None,
    picked: Sequence[LexicalHit],
    also: dict[int, list[dict[str, Any]]],
) -> None:
    """List ``hit`` under ``shown`` when that is one of the picked hits."""
    if shown is not None and any(p is shown for p in picked):
        also.setdefault(id(shown), []).append(_place(hit.fields))


def _place(f: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "source": str(f.get("source", "")),
        "path": str(f.get("s_path", "")),
        "heading": str(f.get("s_heading", "")),
        "line_start": int(f.get("line_start", 1)),
        "line_end": int(f.get("line_end", 1)),
    }


_MIN_WORDS = 8  # a heading and a line: too little to call two places one answer


def _words(text: str) -> frozenset[str]:
    return frozenset(text.lower().split())


def _prose_words(text: str) -> frozenset[str] | None:
    """The words of a section's prose, outside code fences; None when it has no fence."""
    if "```" not in text and "~~~" not in text:
        return None
    return frozenset(outside_fences(text).lower().split())


def _jaccard_at_least(a: frozenset[str], b: frozenset[str], threshold: float) -> bool:
    small, large = sorted((len(a), len(b)))
    if small < threshold * large:  # Jaccard ≤ small / large
        return False
    shared = len(a & b)
    return shared >= threshold * (len(a) + len(b) - shared)


def _near_duplicate(
    text: str, picked: Sequence[LexicalHit], cache: dict[int, frozenset[str]], threshold: float
) -> LexicalHit | None:
    """The picked hit whose words this text shares at Jaccard ≥ ``threshold``, if any — and,
    when both hold code and some prose, whose prose it shares so too: two sections that
    include one file (FastAPI's `{* app.py hl[…] *}` pastes the whole file under each of a
    page's steps) are not one answer when their prose differs."""
    if threshold > 1.0 or not picked:
        return None
    mine: frozenset[str] | None = None
    for other in picked:
        other_text = str(other.fields.get("s_text", ""))
        # Jaccard ≥ t needs lengths within a factor t of each other (a cheap first test)
        if min(len(text), len(other_text)) < threshold * max(len(text), len(other_text)) * 0.8:
            continue
        if mine is None:
            mine = _words(text)
            if len(mine) < _MIN_WORDS:
                return None
        theirs = cache.get(id(other))
        if theirs is None:
            theirs = cache[id(other)] = _words(other_text)
        if not _jaccard_at_least(mine, theirs, threshold):
            continue
        prose, other_prose = _prose_words(text), _prose_words(other_text)
        if prose and other_prose and not _jaccard_at_least(prose, other_prose, threshold):
            continue  # one code, different words around it
        return other
    return None


def closeness_scale(best: float, config: RankingConfig) -> Callable[[float], float]:
    """Cosine → closeness in [0, 1]: ``semantic_floor`` (unrelated texts) is 0, the query's
    best candidate ``best`` is 1."""
    floor = config.semantic_floor
    span = max(best - floor, 1e-6)
    return lambda cos: min(max((cos - floor) / span, 0.0), 1.0)


def fuse(hits: Sequence[LexicalHit], *, doc_weight: float = DEFAULT.doc_weight) -> list[LexicalHit]:
    """Section score, normalised per query, plus its document's normalised score.

    The document half lets a section of the page that is about the question outrank a
    lucky short section elsewhere.
    """
    if not hits:
        return []
    top_s = max(h.score for h in hits) or 1.0
    top_d = max(float(h.fields.get("doc_score", 0.0)) for h in hits) or 1.0
    fused = [
        LexicalHit(
            score=h.score / top_s + doc_weight * float(h.fields.get("doc_score", 0.0)) / top_d,
            fields=h.fields,
        )
        for h in hits
    ]
    fused.sort(key=lambda h: -h.score)
    return fused


@lru_cache(maxsize=50_000)
def _line_terms(line: str) -> frozenset[str]:
    return frozenset(analyze(line))


@lru_cache(maxsize=256)
def _probe(prefixes: frozenset[str]) -> re.Pattern[str] | None:
    """One pattern for a query's term prefixes, each letter optionally followed by an
    underscore (``maxc`` finds ``max_connections``): an alternation of literals, linear time."""
    if not prefixes:
        return None
    return re.compile("|".join("_?".join(re.escape(c) for c in p) for p in sorted(prefixes)))


# a page that records changes: a changelog, release notes, a release announcement (file name
# words, digits aside; a migration or upgrade guide is none: it teaches the new way)
_HISTORY_WORDS = frozenset(
    {
        "changelog",
        "changes",
        "change",
        "log",
        "history",
        "release",
        "releases",
        "notes",
        "news",
        "whatsnew",
        "whats",
        "new",
        "version",
    }
)
_HISTORY_KEYS = frozenset({"changelog", "changes", "history", "releases", "news", "whatsnew", "whats"})
_HISTORY_FOLDERS = frozenset(
    {"changelog", "changelogs", "changes", "history", "releases", "release-notes", "announce"}
)
_NAME_WORDS = re.compile(r"[a-z]{2,}")  # a version's `v` is no word


@lru_cache(maxsize=8192)
def history_page(path: str) -> bool:
    """Whether a page records changes (see :data:`_HISTORY_WORDS`): ``release`` only with a
    version or ``notes`` (``release.md`` may be how to release)."""
    *folders, name = path.lower().split("/")
    stem = name.rsplit(".", 1)[0] if "." in name else name
    words = set(glued_words(_NAME_WORDS.findall(stem), _HISTORY_WORDS))
    numbered = any(c.isdigit() for c in stem)
    key = bool(words & _HISTORY_KEYS) or ("release" in words and (numbered or "notes" in words))
    if words and words <= _HISTORY_WORDS and key:
        return True
    return any(f in _HISTORY_FOLDERS for f in folders) and (key or not words or numbered)


def glued_words(words: Iterable[str], vocabulary: frozenset[str]) -> list[str]:
    """The words, each one written as two of ``vocabulary`` run together split in two
    (``versionhistory`` → ``version``, ``history``; ``releasenotes``), the others as they are."""
    out: list[str] = []
    for word in words:
        if word not in vocabulary:
            split = next(
                (k for k in range(2, len(word) - 1) if word[:k] in vocabulary and word[k:] in vocabulary),
                None,
            )
            if split is not None:
                out += [word[:split], word[split:]]
                continue
        out.append(word)
    return out


_HEADING_LINE = re.compile(r"^[ \t]*#", re.MULTILINE)
MAX_SNIPPET_LINES = 400
MAX_SNIPPET_CHARS = 8_000  # the window is looked for this far into a section


def snippet(text: str, terms: set[str], *, size: int = SNIPPET_CHARS, rest: bool = False) -> str:
    """The window of a section's text with the most query terms, on line boundaries; its
    headings as a reader sees them (not their attr_list: `## Docker Cache { #docker-cache }`).
    ``rest``: the text is reStructuredText (:func:`is_rest`), where ``~~~`` and backtick
    lines underline headings and fence no code."""
    return _as_read(_window(text, terms, size, rest=rest), rest=rest)


def is_rest(path: str) -> bool:
    """Whether a document's path names reStructuredText (as a folder source reads it)."""
    return path.lower().endswith(".rst")


def _as_read(window: str, *, rest: bool = False) -> str:
    """The window as a reader sees the page: a heading without its attr_list, no line that
    is only an HTML comment (`<!-- ::start:framework -->`: a site's markers) or a link
    definition, a reST role as Sphinx shows it, as code (`:class:`~cachetools.TTLCache`` →
    `` `TTLCache` ``), a MkDocs tab's or admonition's opening line as its label or title
    (`=== "pip"` → `pip`, `!!! warning "Pin it"` → `Pin it`), and prose without its HTML or
    JSX tags (a line of only tags left out) and a heading without its components' badges
    (:func:`~docmentor.parse.fences.line_as_shown`). A tab's or admonition's body is
    dedented under its label, as the page shows it in the box. ``rest``: reStructuredText, whose
    section titles lose their underlines and which has no fences."""
    if rest:
        return _rest_as_read(window)
    if (
        "{" not in window
        and "<!--" not in window
        and ".. _" not in window
        and ")=" not in window
        and ":`" not in window
        and "]:" not in window
        and "===" not in window
        and "!!!" not in window
        and "???" not in window
        and "<" not in window
        and not may_hide_code(window)
    ):
        return window
    lines: list[str] = []
    fence = None
    code: list[str] = []  # the open block's lines so far
    bodies: list[int] = []  # the indentation of each tab's or admonition's body the line is in
    all_lines = window.split("\n")
    hidden_until = 0  # the lines of a comment over several lines: not on the page
    for k, line in enumerate(all_lines):
        if k < hidden_until:
            continue
        indent = len(line) - len(line.lstrip(" "))
        if bodies and line.strip():
            while bodies and indent < bodies[-1]:
                bodies.pop()  # the box ended
            line = line[4 * len(bodies) :]
        if fence is not None:  # code as the page shows it (a `# comment` stays; parse.shown_code)
            if closes(line, fence, any_indent=True):
                lines += [*code_as_shown(fence.info, code), line]
                fence, code = None, []
            else:
                code.append(line)
            continue
        fence = fence_open(line, any_indent=True)
        if fence is None and "<!--" in line and (span := comment_span(all_lines, k)):
            hidden_until = k + span
            continue
        if fence is None and (
            COMMENT_LINE.fullmatch(line)
            or ("]:" in line and LINK_DEFINITION.fullmatch(line))
            or (("_" in line or ")=" in line) and LABEL_LINE.fullmatch(line))
        ):
            continue  # a site's marker, a link's destination, a reST label: not on the page
        if fence is None and ":`" in line:
            line = roles_as_code(line)
        if fence is None and ("===" in line or "!!!" in line or "???" in line):
            titled = _block_title(line)
            if titled != line:  # a box opens: its body, indented under it, is shown under its label
                bodies.append(indent + 4)
            line = titled
        if fence is None and "<" in line and len(line) - len(line.lstrip()) < 4:
            # (a line indented four or more is code as often as not: indented code, a reST
            # literal block; it is shown as written)
            shown = line_as_shown(line)
            if not shown.strip() and line.strip():
                continue  # only markup (`<p align="center">`, `</div>`): nothing on the page
            line = shown
        if lines and not line.strip() and not lines[-1].strip():
            continue  # one blank line where a tag-only line stood between two
        lines.append(ATTR_LIST.sub("", line) if fence is None and line.lstrip().startswith("#") else line)
    if fence is not None:
        lines += code_as_shown(fence.info, code)
    return "\n".join(lines).strip("\n").rstrip()  # a first line's indentation is what it is


def _rest_as_read(window: str) -> str:
    """A reStructuredText window as a reader sees it: no title underlines or overlines, no
    reST label lines, roles as code."""
    lines: list[str] = []
    for line in window.split("\n"):
        if ADORNMENT.match(line) or (("_" in line or ")=" in line) and LABEL_LINE.fullmatch(line)):
            continue
        if lines and not line.strip() and not lines[-1].strip():
            continue
        lines.append(roles_as_code(line) if ":`" in line else line)
    return "\n".join(lines).strip("\n")


# MkDocs' content tab (`=== "npm"`) and admonition (`!!! note "Title"`, `??? tip`) lines:
# a reader sees the tab's label, the box's title (else its kind); linear, anchored
_TAB_TITLE = re.compile(r'([ \t]*)===\+?[ \t]+"([^"\n]*)"[ \t]*')
_ADMONITION_OPEN = re.compile(r"([ \t]*)(?:!!!|\?\?\?\+?)[ \t]+([\w-]+)")


def _block_title(line: str) -> str:
    """A tab's or an admonition's opening line as the page shows it: its label or title
    (`!!! warning "Careful"` → `Careful`, `!!! note` → `Note`); any other line as it is."""
    if (tab := _TAB_TITLE.fullmatch(line)) is not None:
        return tab.group(1) + tab.group(2)
    box = _ADMONITION_OPEN.match(line)
    if box is None:
        return line
    rest = line[box.end() :].strip()
    if rest.endswith('"') and rest.count('"') >= 2:  # a title given: `"Careful"`, `inline end "Details"`
        title = rest[rest.index('"') + 1 : -1]
    elif not rest or all(w.isidentifier() for w in rest.split()):  # modifiers only: the kind's name
        title = box.group(2).replace("-", " ").capitalize()
    else:
        return line
    return box.group(1) + title if title else ""


def _window(text: str, terms: set[str], size: int, *, mark: bool = False, rest: bool = False) -> str:
    """The best window (see :func:`snippet`); ``mark``: a ``…`` line inside the code where
    the window cuts a block (an excerpt's code must not pass for whole); ``rest``: the text
    is reStructuredText (no fences). Its lines keep their indentation relative to each other
    (a window inside an indented block is dedented as a whole, not its first line alone)."""
    if len(text) <= size:
        return text.strip()
    lines = text[:MAX_SNIPPET_CHARS].split("\n")[:MAX_SNIPPET_LINES]
    scanned = text[: sum(map(len, lines)) + len(lines)]
    # a line can hold a term only if it holds the term's first letters (terms are stems,
    # compact identifiers): only those lines, and headings, are analysed
    candidates: set[int] = {m.start() for m in _HEADING_LINE.finditer(scanned)}
    probe = _probe(frozenset(t[:4] for t in terms if t))
    if probe is not None:
        candidates.update(m.start() for m in probe.finditer(scanned.lower()))
    # the first line a reader reads: not a reST label (`.. _retry-policy:`) above the heading
    first = next((i for i, line in enumerate(lines) if line.strip() and not LABEL_LINE.fullmatch(line)), 0)
    rows = {first}
    at, row = 0, 0
    for c in sorted(candidates):  # offsets → line numbers in one pass
        row += scanned.count("\n", at, c)
        at = c
        rows.add(row)
    best, best_score = 0, -1.0
    seen: set[str] = set()
    for i in sorted(rows):
        line = lines[i]
        if not line.strip():
            continue
        found = _line_terms(line) & terms
        seen |= found
        score = float(len(found)) + (0.5 if line.lstrip().startswith("#") else 0.0)
        if score > best_score:
            best, best_score = i, score
    missing = terms - seen
    if missing and len(text) > len(scanned):
        # terms only past the scanned lines (a huge line before, a long changelog): their
        # window, when its place holds more of the query than the best scanned line
        later = _later_window(text, len(scanned), _probe(frozenset(t[:4] for t in missing if t)), terms, size)
        if later is not None and later[1] > best_score:
            if rest:
                return later[0]
            return _fenced(later[0], _fence_at(text[: later[2]].split("\n"), None), mark=mark)
    start = _paragraph_start(lines, best, size, rest=rest)
    opened = None if rest else _fence_at(lines, start)  # the code block the window starts in, if any
    out: list[str] = []
    length = 0
    for at, line in enumerate(lines[start:], start):
        if length + len(line) > size and out:
            if at <= best or not _holds_words(out, rest=rest):
                # the best line (under a short one), or the first line under a heading (a
                # paragraph written on one long line): shown, cut below
                out.append(line)
            break
        out.append(line)
        length += len(line) + 1
    while len(out) > 1 and (
        not out[-1].strip()
        or _opens_block(out[-1])
        or (not rest and fence_open(out[-1], any_indent=True))
        or (rest and ADORNMENT.match(out[-1]) is not None)
    ):
        out.pop()  # a block whose content the window cuts off (`:::note`, an opening fence): not shown
    # code keeps its first line's indentation; elsewhere the lines are dedented together, and in
    # Markdown a window that starts inside a box's body (a tab, an admonition) and runs past its
    # end has that part dedented as the page shows it under the box's label
    joined = "\n".join(out if rest or opened is not None else _box_prefix_dedented(out))
    lead = next((line for line in out if line.strip()), "")
    indented = opened is None and lead[:1] in (" ", "\t")  # else there is nothing to dedent
    result = (textwrap.dedent(joined) if indented else joined).lstrip("\n").rstrip()
    if len(result) > size:
        result = result[: size - 1].rstrip() + "…"
    if rest:
        return result
    # code shown as code: a window that starts or ends inside a block gets its fence lines
    result = _fenced(result, opened, mark=mark)
    return result


def _holds_words(lines: list[str], *, rest: bool) -> bool:
    """Whether the lines hold more than headings (a reST title: its line and adornments)."""
    for k, line in enumerate(lines):
        if not line.strip() or (not rest and line.lstrip().startswith("#")):
            continue
        if rest and (
            ADORNMENT.match(line) or (k + 1 < len(lines) and ADORNMENT.match(lines[k + 1]) is not None)
        ):
            continue
        return True
    return False


def _box_prefix_dedented(lines: list[str]) -> list[str]:
    """``lines`` with their first run indented deeper than a later line (a window that starts in
    an indented body and leaves it) dedented by that run's indentation."""
    first = next((line for line in lines if line.strip()), "")
    indent = len(first) - len(first.lstrip(" "))
    if not indent:
        return lines
    end = next(
        (k for k, line in enumerate(lines) if line.strip() and len(line) - len(line.lstrip(" ")) < indent),
        len(lines),
    )
    if end == len(lines):
        return lines  # all of it is indented: dedented together
    return [line[indent:] if line.strip() else line for line in lines[:end]] + lines[end:]


# a line that opens a block of what follows: an admonition (`:::note`, `!!! tip`, `??? info`),
# a content tab (`=== "npm"`), a reST paragraph announcing a literal block or directive (`::`)
_OPENS = re.compile(r"(?::{3,}[ \t]*\w|[!?]{3}\+?[ \t]+\w|===[ \t]+\S)")


def _opens_block(line: str) -> bool:
    """Whether a line only opens a block of what follows (:data:`_OPENS`): an admonition, a
    content tab, or a reST paragraph's ``::``. (Prefix tests: linear on any line; code such
    as ``HashMap::new()`` ends otherwise.)"""
    text = line.strip()
    return bool(_OPENS.match(text)) or text.endswith("::")


MAX_LEAD_LINES = 4  # lines a window reaches back to start at its paragraph's first


def _paragraph_start(lines: list[str], best: int, size: int, *, rest: bool = False) -> int:
    """Where a window around line ``best`` starts: the first line of its paragraph (a wrapped
    sentence read from its start, not from "also set the equivalent"), at most
    :data:`MAX_LEAD_LINES` lines and half the window back; a heading or an opening
    fence ends the walk. A line right under a heading gets the heading (a reST one with its
    underline)."""
    start = best
    budget = size // 2
    if rest and start > 0 and ADORNMENT.match(lines[start]) and lines[start - 1].strip():
        return start - 1  # the underline of a title: the title with it
    while start > 0 and best - start < MAX_LEAD_LINES:
        before = lines[start - 1]
        if rest and ADORNMENT.match(before):
            if start > 1 and lines[start - 2].strip() and start == best:
                start -= 2  # a title right above, as a reader meets the line
            break
        if (
            not before.strip()
            or (not rest and before.lstrip().startswith("#"))
            or (not rest and fence_open(before, any_indent=True))
        ):
            break
        budget -= len(before) + 1
        if budget < 0:
            break
        start -= 1
        if start < best and _ITEM.match(lines[start + 1]):
            start += 1  # a list item starts its own paragraph
            break
    if not rest and start == best and start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1  # the heading right above, as a reader meets the line
    return start


_ITEM = re.compile(r"[ \t]*(?:[*+-]|\d{1,9}[.)])[ \t]")


def _fenced(window: str, opened: Fence | None, *, mark: bool = False) -> str:
    """``window`` with the fence lines of a code block it starts or ends inside of (and,
    with ``mark``, a ``…`` line where it cuts the code)."""
    fence = _fence_after(window.split("\n"), opened)
    if opened is not None and window:
        cut = f"{opened.indent}…\n" if mark else ""
        window = f"{opened.indent}{opened.char * opened.length}{opened.info}\n{cut}{window}"
    if fence is not None and window:
        cut = f"\n{fence.indent}…" if mark else ""
        window = f"{window}{cut}\n{fence.indent}{fence.char * fence.length}"
    return window


def _fence_at(lines: list[str], k: int | None) -> Fence | None:
    """The fenced code block line ``k`` (None: after the last line) is inside of, if any (its
    opening fence)."""
    return _fence_after(lines[:k], None)


def _fence_after(lines: list[str], fence: Fence | None) -> Fence | None:
    """The code block open after ``lines``, read from inside ``fence`` (None: from prose)."""
    for line in lines:
        if fence is None:
            fence = fence_open(line, any_indent=True)
        elif closes(line, fence, any_indent=True):
            fence = None
    return fence


MAX_LATER_PROBES = 64  # prefix matches checked past the scanned lines, at most


def _later_window(
    text: str, offset: int, probe: re.Pattern[str] | None, terms: set[str], size: int
) -> tuple[str, int, int] | None:
    """A ``size`` window of ``text`` from the line (or, in a long line, a third of a window
    before the place) where a term ``probe`` looks for first appears past ``offset``, how many
    of ``terms`` that place holds, and where the window starts; None if none does."""
    if probe is None:
        return None
    lowered = text.lower()
    for k, m in enumerate(probe.finditer(lowered, offset)):
        if k >= MAX_LATER_PROBES:
            break
        around = text[max(m.start() - 64, 0) : m.end() + 64]
        held = len(_line_terms(around) & terms)
        if not held:
            continue  # the first letters of a term, not the term
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
        if 0 < line_start - before < size // 3 and text[before:line_start].strip():
            line_start = before  # a short line before it (a heading, a lead-in) comes too
        start = max(line_start, m.start() - size // 3)
        window = text[start : start + size]
        cut = window.rfind("\n")
        if cut > size // 2:
            window = window[:cut]
        return ("…" if start > line_start else "") + window.strip(), held, start
    return None


def excerpts(
    sections: Sequence[Any],
    terms: Sequence[tuple[str, float]],
    *,
    max_chunks: int,
    context_chars: int,
    cosine: Callable[[int], float | None] | None = None,
    config: RankingConfig = DEFAULT,
    document_lines: Sequence[tuple[int, str]] = (),
    rest: bool = False,
) -> list[dict[str, Any]]:
    """The best passages of one document's sections for a query: term overlap (IDF-free),
    blended with the sections' cosine to the query as search blends them, when ``cosine``
    gives one (a short section ranked with its parent gets its parent's).

    ``document_lines``: the stored document's lines with the original line each comes from;
    with them, a passage of a section whose text is not line for line the file's (an
    admonition or an indented block rewritten) still gets the lines it was cut from.
    ``rest``: the document is reStructuredText (:func:`snippet`)."""
    term_set = {t for t, _ in terms}
    lexical: list[tuple[float, int, Any]] = []
    cosines: list[float | None] = []
    carried: float | None = None
    empty: set[int] = set()  # sections without a term: never an excerpt
    for i, sec in enumerate(sections):
        if cosine is not None:
            own = cosine(int(sec["id"]))
            carried = own if own is not None else carried
            cosines.append(carried)
        toks = analyze(str(sec["text"]))
        if not toks:
            empty.add(i)
            lexical.append((0.0, i, sec))
            continue
        hits = sum(1 for t in toks if t in term_set)
        distinct = len(term_set.intersection(toks))
        head = analyze(str(sec["heading"]))
        score = distinct * 2.0 + hits / (len(toks) ** 0.5) + 2.0 * len(term_set.intersection(head))
        lexical.append((score, i, sec))
    known = [c for c in cosines if c is not None]
    scored: list[tuple[float, int, Any]] = []
    if known and config.semantic_weight > 0:
        top = max((sc for sc, _, _ in lexical), default=0.0) or 1.0
        scale = closeness_scale(max(known), config)
        alpha = config.semantic_weight
        for (score, i, sec), cos in zip(lexical, cosines, strict=True):
            closeness = 0.0 if cos is None else scale(cos)
            # found by meaning alone: close for this page, and close at all (a made-up word's
            # nearest section is still the page's best by cosine)
            meant = closeness >= config.semantic_only_min and (cos or 0.0) >= config.excerpt_only_cosine
            if i not in empty and (score > 0 or meant):
                scored.append(((1 - alpha) * score / top + alpha * closeness, i, sec))
    else:
        scored = [(sc, i, sec) for sc, i, sec in lexical if i not in empty and (sc > 0 or not term_set)]
    scored.sort(key=lambda t: (-t[0], t[1]))
    out: list[dict[str, Any]] = []
    for score, _, sec in scored[:max_chunks]:
        text = str(sec["text"])
        start, end = int(sec["line_start"]), int(sec["line_end"])
        whole = (
            None
            if len(text) <= 2 * context_chars or rest
            else _whole_code_window(text, term_set, 2 * context_chars)
        )
        if whole is not None and text.count("\n") == end - start:
            shown, first, last = whole[0], start + whole[1], start + whole[2]
        else:
            # a window that cuts a block too long to grow marks the cut inside the code
            shown = (
                text
                if len(text) <= 2 * context_chars
                else _as_read(_window(text, term_set, 2 * context_chars, mark=True, rest=rest), rest=rest)
            )
            first, last = _lines_of(shown, text, start, end, document_lines)
        out.append(
            {
                "heading": sec["heading"],
                "heading_path": json.loads(sec["heading_path"]),
                "line_start": first,
                "line_end": last,
                "score": round(score, 3),
                "text": shown,
            }
        )
    return out


#: how much longer than the asked window an excerpt grows to hold a code block whole
EXCERPT_CODE_GROWTH = 3
_WINDOW_GAP = 8  # lines (blank, or not shown to a reader) between two of a window's lines, at most


def _whole_code_window(text: str, terms: set[str], size: int) -> tuple[str, int, int] | None:
    """An excerpt's window that neither starts nor ends inside a fenced code block: the best
    window (:func:`snippet`'s) grown to the blocks it cuts, as the page shows it, with its first
    and last line in ``text`` (0-based). None when the window cuts no block, or when the grown
    window would pass :data:`EXCERPT_CODE_GROWTH` times ``size`` (the snippet then marks the
    cut inside the code with a ``…`` line)."""
    window = _window(text, terms, size)
    lines = text.split("\n")
    core = [w for w in window.split("\n") if w.strip() and not fence_open(w, any_indent=True)]
    if not core:
        return None
    # the window is a run of the text's lines (its fences added, its ends trimmed): find it
    want = [w.removeprefix("…").removesuffix("…").strip() for w in core]
    i0 = i1 = None
    for k in (k for k, line in enumerate(lines) if want[0] in line):
        at = k  # the window's lines in order from here (blank lines between them)
        for w in want[1:]:
            at = next((j for j in range(at + 1, min(at + 1 + _WINDOW_GAP, len(lines))) if w in lines[j]), -1)
            if at < 0:
                break
        if at >= 0:
            i0, i1 = k, at
            break
    if i0 is None or i1 is None:
        return None
    opened = None  # the fence open at each line, read once from the top
    a, b = i0, i1
    for k, line in enumerate(lines):
        if k == i0 and opened is not None:
            a = opened[0]
        if opened is None:
            fence = fence_open(line, any_indent=True)
            opened = (k, fence) if fence is not None else None
        elif closes(line, opened[1], any_indent=True):
            opened = None
        if k == i1:
            if opened is None:
                break
            b = next(
                (j for j in range(k + 1, len(lines)) if closes(lines[j], opened[1], any_indent=True)),
                len(lines) - 1,
            )
            break
    if (a, b) == (i0, i1) or sum(len(line) + 1 for line in lines[a : b + 1]) > EXCERPT_CODE_GROWTH * size:
        return None
    return _as_read("\n".join(lines[a : b + 1])), a, b


def _lines_of(
    window: str, text: str, start: int, end: int, document_lines: Sequence[tuple[int, str]] = ()
) -> tuple[int, int]:
    """The original lines a window of a section's text spans. Where the section's text is not
    line for line the file's, its lines are found, in order, among ``document_lines`` of the
    section's span; the section's own span when they are not found."""
    core = window.removeprefix("…").removesuffix("…").strip()
    if text.count("\n") == end - start:
        at = text.find(core) if core else -1
        if at >= 0:
            first = start + text.count("\n", 0, at)
            return first, min(first + core.count("\n"), end)
    return _found_lines(core, start, end, document_lines) or (start, end)


_DISTINCT_LINE = 8  # characters a window's line needs to be looked for (not "```", "Note")


def _found_lines(
    core: str, start: int, end: int, document_lines: Sequence[tuple[int, str]]
) -> tuple[int, int] | None:
    """The first and last original lines of ``start``–``end`` that hold the window's
    distinctive lines, matched in order (each line is looked for after the last match)."""
    span = [(number, line) for number, line in document_lines if start <= number <= end]
    matched: list[int] = []
    at = 0
    for piece in core.split("\n"):
        piece = piece.strip().removeprefix("…").removesuffix("…").strip()
        if len(piece) < _DISTINCT_LINE or piece.startswith(("```", "~~~")):
            continue  # too common to place, or a fence the window opened itself
        for k in range(at, len(span)):
            if piece in span[k][1]:
                matched.append(span[k][0])
                at = k + 1
                break
    return (min(matched), max(matched)) if matched else None
