"""Markdown and reST heuristics: the opening sentences of a docs section, as plain prose.

:func:`first_sentences` skips code fences, reST comments, directive options and titles,
images, HTML tags and link targets, for the overview's concepts and a library's description.
"""

from __future__ import annotations

import html
import re

from docmentor.library.knowledge.importance import prose_text
from docmentor.library.surface.docstrings import outside_code, plain, word_references
from docmentor.parse.fences import Fence, closes, fence_open

__all__ = [
    "first_sentences",
    "without_substitution_marks",
    "without_substitutions",
]

_HTML_TAG = re.compile(r"<[^<>\n]{1,400}>")
# reST's default role with a title: `versioned validators <versioned-validators>` (not a
# `title <url>`_ hyperlink); a start only at a backtick, a run to the next one at most
_TITLED_REFERENCE = re.compile(r"`([^`<>\n]++)<[^<>`\n]++>`(?!_)")  # possessive: linear
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)")


_TILDES = re.compile(r"^~{3,}\s*$")


def _fence_open(line: str, previous: str) -> Fence | None:
    """The code fence a line opens: not a reST title's ``~~~~`` underline (a run of tildes
    right under a text line at least as long as it)."""
    fence = fence_open(line, any_indent=True)
    if fence is None or (
        _TILDES.match(line) and previous.strip() and len(line.strip()) >= len(previous.strip())
    ):
        return None
    return fence


_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\s]*\)")  # [text](url) → text
_LEAD_IN = (":", "...", "…")
# "Install it with pip:", "Sending a request..." introduce what follows
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*_\[(])")


def _paragraphs(text: str, *, rest: bool = False) -> list[tuple[str, bool]]:
    """A section's paragraphs outside code fences, each with whether a code block follows it.
    ``rest``: reStructuredText, where a paragraph ending in ``::`` announces a literal block,
    the lines indented under it (code, not a paragraph)."""
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    fence: Fence | None = None
    previous = ""
    literal: int | None = None  # the indentation of the paragraph whose literal block this is
    for line in text.split("\n"):
        if literal is not None:
            if not line.strip():
                continue
            if len(line) - len(line.lstrip()) > literal:
                if blocks[-1][0] != "code":
                    blocks.append(("code", ""))
                continue
            literal = None
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
        elif (fence := _fence_open(line, previous)) is not None:
            if current:
                blocks.append(("p", "\n".join(current)))
                current = []
            blocks.append(("code", ""))
        elif line.strip():
            current.append(line)
        elif current:
            blocks.append(("p", "\n".join(current)))
            if rest and current[-1].rstrip().endswith("::"):
                literal = len(current[0]) - len(current[0].lstrip())
            current = []
        previous = line
    if current and fence is None:
        blocks.append(("p", "\n".join(current)))
    return [
        (body, k + 1 < len(blocks) and blocks[k + 1][0] == "code")
        for k, (kind, body) in enumerate(blocks)
        if kind == "p"
    ]


_DIRECTIVE_OPTION = re.compile(r"^\s*:[\w-]+:(?:\s|$)")
_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")


def _underlines(title: str, line: str) -> bool:
    """``line`` underlines ``title``: Markdown's ``===`` / ``---``, or a reST adornment at
    least as long as the title (``***`` under a short line is a thematic break)."""
    m = _ADORNMENT.match(line)
    if m is None:
        return False
    return m.group(1) in "=-" or len(line.rstrip()) >= len(title.rstrip())


def _without_comments(text: str) -> str:
    """The text without what is written for the docs' build, not its reader, outside code
    fences: HTML comments (``<!-- [[[cog … ]]] -->``: one that is not closed on its line
    only when it opens the line — ``Write `<!--` to open one`` is prose) and reST explicit
    markup blocks — a ``..`` line (a comment: "created by sphinx-quickstart on …", a
    directive such as ``.. toctree::``, a target) with the lines indented under it, blank
    lines between them included (an empty ``..`` comment is one line)."""
    out: list[str] = []
    fence: Fence | None = None
    comment = False
    under = -1  # the indentation of the ".." line whose block we are in
    previous = ""
    for line in text.split("\n"):
        if under >= 0 and not comment and fence is None:
            if not line.strip() or len(line) - len(line.lstrip()) > under:
                continue  # inside the block (a code-block's "<!--" or "```" too)
            under = -1
            out.append("")  # the block ended a paragraph
        code = fence is not None  # a line in a fence, or its closing line
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
        elif not comment:
            fence = _fence_open(line, previous)
        previous = line
        if code or fence is not None:
            out.append(line)
            continue
        kept, comment = _uncommented(line, comment)
        if kept.lstrip().startswith(".. "):
            under = len(kept) - len(kept.lstrip())
            continue
        if kept.strip() == "..":
            continue
        out.append(kept)
    return "\n".join(out)


def _uncommented(line: str, comment: bool) -> tuple[str, bool]:
    """The line without its HTML comments, and whether one is still open at its end
    (``comment``: one was open at its start). Linear: positions, no re-slicing."""
    parts: list[str] = []
    at = 0
    while at <= len(line):
        if comment:
            end = line.find("-->", at)
            if end < 0:
                return "".join(parts), True
            at, comment = end + 3, False
            continue
        start = line.find("<!--", at)
        if start < 0:
            parts.append(line[at:])
            break
        closed = line.find("-->", start + 4)
        if closed < 0 and line[:start].strip():
            parts.append(line[at:])  # "<!--" in running text, never closed here: prose
            break
        parts.append(line[at:start])
        at, comment = (closed + 3, False) if closed >= 0 else (len(line) + 1, True)
    return "".join(parts), comment


# a Jinja expression or tag, as MkDocs macros and hooks leave them in a page: {{ version }}
_TEMPLATE = re.compile(r"\{\{[^{}\n]*\}\}|\{%[^{}\n]*%\}")


def first_sentences(text: str, limit: int = 240, *, rest: bool = False) -> str:
    """The first sentences of a section's prose: headings, admonitions, code, HTML banners and
    badges left out, and so are the lines that only lead in to what follows (a paragraph
    before a code block, or ending in ``:`` or ``...``) and one- or two-word banner lines —
    unless the section has nothing else: then its first lead-in. ``rest``: the text is
    reStructuredText, where a word's trailing ``_`` marks a reference (``mutable_ mapping_``
    reads "mutable mapping")."""
    kept: list[str] = []
    lead_ins: list[str] = []  # the fall-back when the section has nothing else to say
    for body, before_code in _paragraphs(_without_comments(text), rest=rest):
        raw = prose_text(body).split("\n")
        # a title is the line over its adornment (reST ====, ~~~~ at least as long; a
        # Markdown setext === or ---); both go
        titled = {k for k in range(len(raw) - 1) if raw[k].strip() and _underlines(raw[k], raw[k + 1])}
        lines: list[str] = []
        under: int | None = None  # the indent of a mkdocstrings `::: pkg.mod` line, its options below
        for k, ln in enumerate(raw):
            indent = len(ln) - len(ln.lstrip())
            if under is not None and ln.strip() and indent > under:
                continue  # `    options:` / `      members: false` of the `:::` line above
            under = indent if ln.lstrip().startswith(":::") else None
            if k in titled or (k > 0 and k - 1 in titled) or not ln.strip():
                continue
            if (
                # a Markdown heading (not reST's `#.` list item), .. reST directives, MyST colon
                # fences (`:::{note}`, `:::{glossary}` and their ends)
                (ln.lstrip().startswith("#") and not ln.lstrip().startswith("#."))
                or ln.lstrip().startswith(("!!!", "===", "???", ".. ", ":::"))
                or (_DIRECTIVE_OPTION.match(ln) and ln[:1].isspace())  # and their options
                or ln.strip() in ("---", "***")
            ):
                continue
            # a reST auto-numbered item reads as its sentence (`#. Fork the repository …`)
            lines.append(ln.replace("#. ", "", 1) if ln.lstrip().startswith("#. ") else ln)
        joined = " ".join(lines)
        if "{{" in joined or "{%" in joined:  # a template's expressions and tags (MkDocs macros): not
            joined = outside_code(joined, lambda part: _TEMPLATE.sub(" ", part))  # read; in code, shown
        if rest and "<" in joined:  # `validate <pkg.validate>`: the title, not a tag after it
            joined = _TITLED_REFERENCE.sub(lambda m: f"`{m.group(1).strip()}`", joined)
        # tags and entities are the page's markup, in prose only: `Result<T, anyhow::Error>` in
        # code is a type (a tour read "Use `Result `"), `&mdash;` outside it a dash
        joined = outside_code(_IMAGE.sub(" ", joined), _without_markup)
        flat = " ".join(plain(_LINK.sub(r"\1", joined)).split())
        if rest and "_" in flat:
            flat = word_references(flat)
        if len(flat.split()) < 3:
            if kept and flat.endswith(_LEAD_IN) and flat.rstrip(":").strip():  # not reST's bare "::"
                break  # "Essays:": what follows is what it leads in to (a list of links), not more of this
            continue
        if before_code or flat.endswith(_LEAD_IN):
            # its last sentence leads in ("For example:"); the ones before it may not
            head = " ".join(_SENTENCE_END.split(flat)[:-1])
            if len(head.split()) < 3:
                lead_ins.append(flat)
                if before_code:
                    continue  # prose may go on after the example
                break  # what follows is what it leads in to: a list, a table
            kept.append(head)
            break  # what follows is what it leads in to: a list, an example
        kept.append(flat)
        if sum(map(len, kept)) > limit:
            break
    flat = " ".join(kept or lead_ins[:1])
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > limit // 3 else cut.rstrip() + "…"


# |pypi|, |release|: a reST substitution, standing as a word (not int|str|None, x|y|z)
def _without_markup(prose: str) -> str:
    """Prose without its HTML tags (each a space) and with its character entities read."""
    if "<" in prose:
        prose = _HTML_TAG.sub(" ", prose)
    return html.unescape(prose) if "&" in prose else prose


_SUBSTITUTION = re.compile(r"(?<![^\s*_(])\|[\w-]+\|(?=[\s.,;:!?)*_]|$)")
_PARENTHESIZED = re.compile(r"\([^()]*\)")  # one level: linear
_NOTED_SUBSTITUTION = re.compile("(" + _SUBSTITUTION.pattern + r")[ \t]*+\([^()\n]*+\)")
_EMPTY_MARKUP = re.compile(r"(\*{1,2}|_)\s*\1|\(\s*\)")  # what a substitution stood in: "** **", "( )"


def without_substitutions(text: str) -> str:
    """The text without its reST substitutions; a sentence left with fewer than four words
    goes too ("Current version is |release|.")."""
    if not _SUBSTITUTION.search(text):
        return text
    # a note in parentheses right after a substitution goes with it ("|release| (`What's new?
    # <changelog>`)"): its own "?" would end a sentence inside it
    text = _NOTED_SUBSTITUTION.sub(r"\1", text)
    kept = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if _SUBSTITUTION.search(sentence):
            sentence = " ".join(_EMPTY_MARKUP.sub(" ", _SUBSTITUTION.sub(" ", sentence)).split())
            # its own words: not a link in parentheses ("Release v\ |release| (`What's new?
            # <changelog>`)." says nothing once the version is gone)
            own = _PARENTHESIZED.sub(" ", sentence.replace("\\ ", " "))
            if len(re.findall(r"\w{2,}", own)) < 4:
                continue
        kept.append(sentence)
    return " ".join(kept)


def without_substitution_marks(text: str) -> str:
    """``text`` (a title: "sqlite-utils |version|") without its reST substitutions."""
    return " ".join(_SUBSTITUTION.sub(" ", text).split()) if "|" in text else text
