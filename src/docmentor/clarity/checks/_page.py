"""One page as the checks see it: what each line is, where the fences sit, whose section a line is in.

The text the checks get is the *served* text (includes expanded); ``line_map`` maps
its lines to the original file, and every issue carries an original line. The line
classification runs markdown-it (block level only) over the same structure view the
parser uses, so MkDocs tabs and admonitions are dedented and their fences are fences.
"""

from __future__ import annotations

import bisect
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from markdown_it import MarkdownIt

from docmentor.clarity.models import CheckedDocument, Issue, Severity
from docmentor.models import CodeBlock
from docmentor.parse.common import code_start_line, map_line, normalize_newlines
from docmentor.parse.markdown import (
    MYST_TEXT_DIRECTIVES,
    myst_directive,
    myst_is_code,
    split_front_matter,
    structure_view,
)

Kind = Literal["blank", "prose", "heading", "code", "comment", "html", "front"]

# reST explicit markup (linear: fixed prefixes, one run of name characters)
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:\|[^|\n]+\|\s+)?([\w:.+-]+?) ?::(?:\s|$)")
_RST_EXPLICIT = re.compile(r"^\s*\.\.(?:\s|$)")
_RST_TARGET = re.compile(r"^\s*\.\.\s+(?:_[^\n]*:|\[[^\]\n]+\])(?:\s|$)")  # `.. _label:`, `.. [1]`
_RST_OPTION = re.compile(r"^\s+:[\w.+ -]+:(?:\s|$)")
_MYST_OPTION_LINE = re.compile(r"^\s*:[\w.+-]+:(?:\s|$)")  # `:class: tip` opening a MyST directive
# directives whose body is code (or machine text), not prose
_RST_CODE_DIRECTIVES = frozenset(
    {
        "code-block", "code", "sourcecode", "literalinclude", "doctest", "testcode", "testoutput",
        "testsetup", "testcleanup", "ipython", "jupyter-execute", "jupyter-kernel", "math",
        "graphviz", "raw", "highlight", "parsed-literal", "example", "run", "program-output",
        "command-output", "prompt",
    }
)  # fmt: skip


def _rst_body_end(lines: list[str], start: int, indent: int) -> int:
    """The line after the indented body that starts at ``start`` (lines blank or indented
    deeper than ``indent``), trailing blank lines left out."""
    j = start
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
        j += 1
    while j > start and not lines[j - 1].strip():
        j -= 1
    return j


def _markup_directive(name: str) -> bool:
    """A MyST directive the checks read as markup, not as one code block: any that holds no
    code, and ``{eval-rst}`` (reST: autodoc directives more often than code)."""
    return name == "eval-rst" or not myst_is_code(name)


Effort = Literal["low", "medium", "high"]

_HEADING_LINK = re.compile(r"!?\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_RST_LITERAL = re.compile(r"``[^`\n]++(?:`[^`\n]++)*+``")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_URL = re.compile(r"\b(?:https?|ftp|file)://\S+|\bwww\.\S+|<[^<>\s]+@[^<>\s]+>|\S+@\S+\.\w+")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S")
_ATTR_LIST = re.compile(r"\{[:#.][^{}]*\}|\{![^{}]*!\}|\[\^[^\]]+\]")
# Lines that are MkDocs machinery, not text: snippet includes, mkdocstrings / mkautodoc
# directives and their options, ``{!file!}`` includes, tab markers.
_MACHINERY = re.compile(
    r"^\s*(?:;*-+8<-+|:::\s|:[a-z_]+:|\{!.*!\}\s*$|\[TOC\]\s*$|===\s+\"|\?\?\?\+?\s|!!!\s)"
)
_ADMONITION_TITLE = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*\s*(?:\"([^\"]*)\")?")
SNIPPET_LINE = re.compile(r"^\s*;*-+8<-+|\{!.*?!\}")


@dataclass(frozen=True, slots=True)
class Fence:
    """A fenced block as markdown-it saw it in the served text."""

    start: int  # 0-based served line of the opening fence
    end: int  # 0-based served line after the closing fence (exclusive)
    info: str
    language: str
    code: str
    line: int  # original 1-based line of the opening fence (as ``CodeBlock.line``)


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")


def fence_language(info: str) -> str:
    """The language of a fence's info string, as the parser computes it."""
    info = info.strip()
    return info.split(maxsplit=1)[0].strip("{}.") if info else ""


def strip_inline_code(line: str) -> str:
    """The line with backtick code spans blanked (same length)."""
    if "`" not in line:
        return line
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def strip_rst_literals(line: str) -> str:
    """A reST line with its ````inline literals```` blanked (same length); single backticks
    are links and roles there (`` `Other <other.rst>`_ ``, ``:doc:`page```), not code."""
    if "``" not in line:
        return line
    return _RST_LITERAL.sub(lambda m: " " * len(m.group(0)), line)


def clean_prose(line: str) -> str:
    """A prose line without code spans, URLs, link targets, HTML, attribute lists."""
    if _MACHINERY.match(line):
        m = _ADMONITION_TITLE.match(line)
        return m.group(1) or "" if m else ""
    if _REF_DEF.match(line):
        return ""
    line = strip_inline_code(line)
    if "<" in line:
        line = _HTML_COMMENT.sub(" ", line)
        line = _HTML_TAG.sub(" ", line)
    if "](" in line:
        line = _LINK_TARGET.sub("] ", line)
    if "{" in line or "[^" in line:
        line = _ATTR_LIST.sub(" ", line)
    if "/" in line or "@" in line or "www." in line:
        line = _URL.sub(" ", line)
    return line


def shorten(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Page:
    """Everything the checks need to know about one document, computed once."""

    def __init__(self, doc: CheckedDocument) -> None:
        self.doc = doc
        self.source = doc.text
        self.text = normalize_newlines(doc.text)
        self.lines = self.text.split("\n")
        self.line_map: list[int] | None = getattr(doc, "line_map", None)
        suffix = doc.path.lower().rsplit(".", 1)[-1] if "." in doc.path else "md"
        self.markdown = suffix not in ("rst", "txt")
        self.kinds: list[Kind] = ["blank" if not s.strip() else "prose" for s in self.lines]
        self.fences: list[Fence] = []
        self.headings: list[tuple[int, int, str]] = []  # (served 0-based line, level, text)
        self.comments: list[str] = []  # HTML comment blocks' text
        self.cache: dict[str, Any] = {}
        if self.markdown:
            self._classify()
        elif suffix == "rst":
            self._classify_rst()
        self._sections = sorted(
            ((s.line_start, " > ".join(s.heading_path)) for s in doc.parsed.sections if s.level > 0),
            key=lambda t: t[0],
        )
        self._section_lines = [start for start, _ in self._sections]
        self.code_blocks: list[CodeBlock] = [b for s in doc.parsed.sections for b in s.code_blocks]
        self._block_fences = self._pair_fences()

    # -- classification -----------------------------------------------------------------

    def _classify(self) -> None:
        lines = self.lines
        _, skip = split_front_matter(lines)
        view, _ = structure_view(lines, skip=skip, mdx=self.doc.path.lower().endswith(".mdx"))
        tokens = _md().parse("\n".join(view))
        n = len(lines)
        for i in range(min(skip, n)):
            self.kinds[i] = "front"
        for idx, tok in enumerate(tokens):
            if not tok.map:
                continue
            a, b = tok.map[0], min(tok.map[1], n)
            if tok.type == "fence" and (name := myst_directive(tok.info)) and _markup_directive(name):
                self._classify_directive(name, a, b, tok.content)
            elif tok.type in ("fence", "code_block"):
                for i in range(a, b):
                    self.kinds[i] = "code"
                if tok.type == "fence":
                    self.fences.append(
                        Fence(a, b, tok.info, fence_language(tok.info), tok.content, self.orig(a))
                    )
            elif tok.type == "html_block":
                comment = tok.content.lstrip().startswith("<!--")
                for i in range(a, b):
                    if self.kinds[i] != "blank":
                        self.kinds[i] = "comment" if comment else "html"
                if comment:
                    self.comments.append(tok.content)
            elif tok.type == "heading_open":
                text = " ".join(_HEADING_LINK.sub(r"\1", tokens[idx + 1].content).split())
                for i in range(a, b):
                    self.kinds[i] = "heading"
                if text:
                    self.headings.append((a, int(tok.tag[1]), text))

    def _classify_directive(self, name: str, a: int, b: int, content: str) -> None:
        """A MyST directive fence that holds no code (lines ``a`` to ``b``): its fence lines
        and options are markup; an admonition's (a tab's, a card's) body is prose with its own
        fences as code; any other directive's body ({toctree}'s pages, {include}'s path) markup."""
        n = len(self.lines)
        for i in range(a, min(b, n)):
            if self.kinds[i] != "blank":
                self.kinds[i] = "html"
        if name not in MYST_TEXT_DIRECTIVES:
            return
        first = a + 1
        while first < min(b, n) and _MYST_OPTION_LINE.match(self.lines[first]):
            first += 1
        for i in range(first, min(b - 1, n)):
            if self.kinds[i] != "blank":
                self.kinds[i] = "prose"
        for tok in _md().parse(content):
            if tok.type != "fence" or not tok.map:
                continue
            c, d = a + 1 + tok.map[0], min(a + 1 + tok.map[1], n)
            if (inner := myst_directive(tok.info)) and _markup_directive(inner):
                self._classify_directive(inner, c, d, tok.content)
                continue
            for i in range(c, d):
                self.kinds[i] = "code"
            self.fences.append(Fence(c, d, tok.info, fence_language(tok.info), tok.content, self.orig(c)))

    def _classify_rst(self) -> None:
        """reStructuredText's lines: code directives (``code-block``, ``testcode``, …), ``::``
        literal blocks and doctest blocks are code; comments (``..`` then text that is no
        directive, target or footnote, with their indented body) are comments; other
        directives' and targets' own lines (and a directive's options) are markup; their
        bodies (an admonition's text) stay prose."""
        lines, kinds = self.lines, self.kinds
        n = len(lines)
        i = 0
        literal_indent: int | None = None  # the paragraph before ended with "::" (its indent)
        previous_blank = True
        while i < n:
            line = lines[i]
            if not line.strip():
                previous_blank = True
                i += 1
                continue
            indent = len(line) - len(line.lstrip())
            if literal_indent is not None and previous_blank and indent > literal_indent:
                end = _rst_body_end(lines, i, literal_indent)
                for j in range(i, end):
                    if kinds[j] != "blank":
                        kinds[j] = "code"
                literal_indent, previous_blank, i = None, False, end
                continue
            literal_indent = None
            directive = _RST_DIRECTIVE.match(line)
            if directive is not None:
                name = directive.group(1).lower().rsplit(":", 1)[-1]  # py:function, click:example
                end = _rst_body_end(lines, i + 1, indent)
                if name in _RST_CODE_DIRECTIVES:
                    for j in range(i, end):
                        if kinds[j] != "blank":
                            kinds[j] = "code"
                else:
                    kinds[i] = "html"
                    j = i + 1
                    while j < end and _RST_OPTION.match(lines[j]):  # the directive's options
                        kinds[j] = "html"
                        j += 1
                previous_blank, i = False, (end if name in _RST_CODE_DIRECTIVES else i + 1)
                continue
            if _RST_EXPLICIT.match(line):
                end = _rst_body_end(lines, i + 1, indent)
                markup = _RST_TARGET.match(line) is not None
                for j in range(i, end if not markup else i + 1):
                    if kinds[j] != "blank":
                        kinds[j] = "html" if markup else "comment"
                previous_blank, i = False, (i + 1 if markup else end)
                continue
            if previous_blank and line.lstrip().startswith(">>>"):  # a doctest block
                j = i
                while j < n and lines[j].strip():
                    kinds[j] = "code"
                    j += 1
                previous_blank, i = False, j
                continue
            if line.rstrip().endswith("::"):
                literal_indent = indent
            previous_blank = False
            i += 1

    def _pair_fences(self) -> dict[int, Fence]:
        """Index of each code block (in ``code_blocks``) → its fence in the served text."""
        pairs: dict[int, Fence] = {}
        pool: dict[int, list[Fence]] = {}
        for f in self.fences:
            pool.setdefault(f.line, []).append(f)
        for i, block in enumerate(self.code_blocks):
            candidates = pool.get(block.line)
            if not candidates:
                continue
            pick = next((f for f in candidates if f.code == block.code), candidates[0])
            candidates.remove(pick)
            pairs[i] = pick
        return pairs

    # -- positions ----------------------------------------------------------------------

    def orig(self, idx0: int) -> int:
        """Original 1-based line of the served 0-based line ``idx0``."""
        return map_line(self.line_map, idx0 + 1)

    def code_line(self, index: int, offset: int) -> int:
        """Original line of line ``offset`` (0-based) of code block ``index``'s content."""
        block = self.code_blocks[index]
        fence = self._block_fences.get(index)
        if fence is None:  # a reST directive or an indented block: its code may start later
            if not self.line_map:
                return (code_start_line(self.lines, block.line, block.code) or block.line + 1) + offset
            # with includes expanded, look in the served text from the block's served line,
            # and map the code's line back (an included file's lines are its directive's)
            opening = self._served(block.line)
            if opening is None:
                return block.line + 1 + offset
            start = code_start_line(self.lines, opening + 1, block.code) or opening + 2
            return self.orig(start - 1 + offset)
        served = min(fence.start + 1 + max(offset, 0), max(fence.end - 2, fence.start + 1))
        return self.orig(served)

    def _served(self, line: int) -> int | None:
        """The first served 0-based line that is original line ``line``."""
        first = self.cache.get("served")
        if first is None:
            first = {}
            for i, orig in enumerate(self.line_map or ()):
                first.setdefault(orig, i)
            self.cache["served"] = first
        found: int | None = first.get(line)
        return found

    def without_code_spans(self, line: str) -> str:
        """``line`` with its inline code blanked, as the page's format writes it."""
        return strip_inline_code(line) if self.markdown else strip_rst_literals(line)

    def section_at(self, line: int) -> str:
        """Heading path (``A > B``) of the section holding original line ``line``."""
        k = bisect.bisect_right(self._section_lines, line) - 1
        return self._sections[k][1] if k >= 0 else ""

    def prose_lines(self) -> list[tuple[int, str]]:
        """(served 0-based line, cleaned text) of every prose and heading line."""
        cached = self.cache.get("prose")
        if cached is None:
            cached = [
                (i, clean_prose(line))
                for i, line in enumerate(self.lines)
                if self.kinds[i] in ("prose", "heading")
            ]
            self.cache["prose"] = cached
        return cached

    def issue(
        self,
        *,
        type: str,
        severity: Severity,
        dimensions: list[str],
        line: int,
        message: str,
        suggested_fix: str = "",
        quote: str = "",
        effort: Effort = "medium",
        counts_as: str | None = None,
        section: str | None = None,
    ) -> Issue:
        return Issue(
            type=type,
            severity=severity,
            dimensions=dimensions,
            line=line,
            section=self.section_at(line) if section is None else section,
            message=message,
            suggested_fix=suggested_fix,
            context_quote=shorten(quote),
            counts_as=counts_as,
            effort=effort,
        )


_LAST = threading.local()


def page_of(doc: CheckedDocument) -> Page:
    """The page view of ``doc``, shared by all checks of one run (one entry per thread)."""
    page: Page | None = getattr(_LAST, "page", None)
    if page is not None and page.doc is doc and page.source is doc.text:
        return page
    page = Page(doc)
    _LAST.page = page
    return page
