"""reStructuredText → sections, with the same guarantees as Markdown.

A title is a line of text at column 0 underlined (and optionally overlined) by a
repeated punctuation character at least as long as the text. Levels follow the order
in which adornment styles first appear, as docutils does. Indented lines (literal
blocks, directive bodies) are never titles.
"""

from __future__ import annotations

import re
import textwrap

from docmentor.models import CodeBlock, Link, ParsedDocument
from docmentor.parse.common import REST_LABEL, build_sections, labelled_start, map_line, normalize_newlines

# a section title's underline or overline (or a transition): one punctuation character
# repeated, at the margin (a title is never indented); snippets read it too
ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")
_FIELD = re.compile(r"^:(\w[\w-]*):\s*(.*)$")
# directives whose body is code: ``code-block:: lang``; Sphinx's doctest and Jupyter ones
# (Python); a documentation extension's example (``click:example``: its language is told by
# whether it parses, as for a literal block)
_CODE_DIRECTIVE = re.compile(
    r"^(\s*)\.\.\s+(code-block|code|sourcecode|testcode|testsetup|testcleanup|doctest|jupyter-execute|ipython"
    r"|(?:[\w-]+:)?example) ?::\s*(\S*)"
)
_PYTHON_DIRECTIVES = frozenset({"testcode", "doctest", "jupyter-execute", "ipython"})
# sphinx.ext.doctest's set-up and clean-up code: run around the doctests, never shown to readers
_HIDDEN_DIRECTIVES = frozenset({"testsetup", "testcleanup"})
_LANGUAGE_ARGUMENT = frozenset({"code-block", "code", "sourcecode"})
# Patterns on document text run in linear time on any line: a match scans no further than
# the next backtick (``[^>]+`` ran to the line's end from every backtick: quadratic on "`<`<…").
_LINK = re.compile(r"`[^`<]*+<([^>`]++)>`_")
# Sphinx's :doc:`threads`, :doc:`the guide </guide/threads>`: a document, relative to this one
# unless rooted (at the docs folder), named without its suffix
_DOC_ROLE = re.compile(r":doc:`(?:[^`<]*+<([^>`]++)>|([^`<]++))`")


def parse_rst(text: str, *, line_map: list[int] | None = None, fallback_title: str = "") -> ParsedDocument:
    text = normalize_newlines(text)
    lines = text.split("\n")
    styles: list[tuple[str, bool]] = []
    heads: list[tuple[int, int, str]] = []
    meta: dict[str, object] = {}
    n = len(lines)
    i = 0
    # docinfo-style field list at the very top (":title: …") is metadata
    while i < n and _FIELD.match(lines[i]):
        m = _FIELD.match(lines[i])
        assert m is not None
        meta[m.group(1)] = m.group(2)
        i += 1
    skip = i
    while i < n:
        line = lines[i]
        over = ADORNMENT.match(line)
        if over and i + 2 < n and lines[i + 1].strip() and ADORNMENT.match(lines[i + 2]):
            title = lines[i + 1].strip()
            if lines[i + 2].strip()[0] == line.strip()[0] and len(line.rstrip()) >= len(title):
                level = _level(styles, (line.strip()[0], True))
                heads.append((i, level, _plain(title)))
                i += 3
                continue
        if (
            line.strip()
            and not line[0].isspace()
            and i + 1 < n
            and ADORNMENT.match(lines[i + 1])
            and len(lines[i + 1].rstrip()) >= len(line.rstrip())
            and not ADORNMENT.match(line)
        ):
            level = _level(styles, (lines[i + 1].strip()[0], False))
            heads.append((i, level, _plain(line.strip())))
            i += 2
            continue
        i += 1

    title = str(meta.get("title") or "") or (heads[0][2] if heads else "") or fallback_title
    heads = [(labelled_start(lines, start, skip, REST_LABEL), level, text) for start, level, text in heads]
    body = [""] * skip + lines[skip:]
    # cut with served line numbers, so code lines can be mapped like the section bounds
    sections = build_sections(body, heads, line_map=None, title=title)
    for sec in sections:
        sec.code_blocks.extend(_code_blocks(sec.text, sec.line_start, line_map))
        sec.line_start = map_line(line_map, sec.line_start)
        sec.line_end = map_line(line_map, sec.line_end)
    links = [
        Link(
            target=m.group(1).partition("#")[0],
            anchor=m.group(1).partition("#")[2] or None,
            text="",
            line=map_line(line_map, no + 1),
        )
        for no, ln in enumerate(lines)
        for m in _LINK.finditer(ln)
    ]
    links += [
        Link(target=(m.group(1) or m.group(2)).strip(), anchor=None, text="", line=map_line(line_map, no + 1))
        for no, ln in enumerate(lines)
        if ":doc:`" in ln
        for m in _DOC_ROLE.finditer(ln)
        if (m.group(1) or m.group(2)).strip()
    ]
    links.sort(key=lambda link: link.line)
    return ParsedDocument(title=title, meta=meta, sections=sections, links=links)


# A role starts where its run of name characters does (``pre``: the part of the run before its
# first ``:``), so a run is scanned once (``:a:a:a…`` was quadratic); the text is stripped by
# :func:`_text` (a lazy ``([^`<]+?)\s*`` was quadratic on spaces). :ref:`text <t>` → `text`
_TITLE_ROLE = re.compile(r"(?<![\w:.+-])(?P<pre>[\w.+-]*+):[\w:.+-]+:`([^`<]++)(?:<[^>`]*+>)?`")
_TITLE_LINK = re.compile(r"`([^`<]++)(?:<[^>`]*+>)?`__?(?!\w)")  # `text <url>`_ → text
_TITLE_LITERAL = re.compile(r"``([^`]+)``")  # ``code`` → `code`
# *em*, **strong**: reST's rules: not inside a word, no space just inside the asterisks
# (no ``*`` inside: from every ``*`` a ``.+?`` ran to the line's end, quadratic on " *a *a…")
_TITLE_EMPHASIS = re.compile(r"(?<![\w*])(\*\*?)(?=\S)([^*]+?)(?<=\S)\1(?![\w*])")
_SPAN = re.compile(r"`[^`]*`")


def _role_text(m: re.Match[str]) -> str:
    """A role in a title as Sphinx shows it: its text as code; a ``:doc:`` without a title
    by the document's name (``:doc:`python:library/pdb``` → ```pdb```), as its title is not
    known here."""
    raw = _text(m.group(2))
    text = raw.lstrip("~!")
    if raw.startswith("~"):  # `~pkg.mod.run` shows `run`
        text = text.rsplit(".", 1)[-1] or text
    if m.group(0).startswith(f"{m['pre']}:doc:`") and "<" not in m.group(0):
        text = text.rsplit("/", 1)[-1].rsplit(":", 1)[-1] or text
    return f"{m['pre']}`{text}`"


def roles_as_code(text: str) -> str:
    """Sphinx roles in a line of prose as Sphinx shows them, as code: ``:class:`~pkg.Cache```
    → ```Cache```, ``:ref:`the guide <guide>``` → ```the guide```. Linear (see
    :data:`_TITLE_ROLE`)."""
    return _TITLE_ROLE.sub(_role_text, text) if ":`" in text else text


def _text(raw: str) -> str:
    """A role's or link's text without the spaces before its ``<target>`` (at least one character)."""
    return raw.rstrip() or raw[:1]


def _plain(title: str) -> str:
    """A title as read, not as marked up: reST inline markup is kept only as Markdown's
    code spans (``Sub *Section*`` → ``Sub Section``; ````connect()```` → ```connect()```)."""
    title = _TITLE_ROLE.sub(_role_text, title)
    title = _TITLE_LITERAL.sub(r"`\1`", title)
    title = _TITLE_LINK.sub(lambda m: _text(m.group(1)), title)
    # emphasis outside code spans only
    spans: list[str] = []

    def keep(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    title = _TITLE_EMPHASIS.sub(r"\2", _SPAN.sub(keep, title))
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], title)


def _level(styles: list[tuple[str, bool]], style: tuple[str, bool]) -> int:
    if style not in styles:
        styles.append(style)
    return min(styles.index(style) + 1, 6)


def _language(m: re.Match[str] | None) -> str:
    """A code directive's language: its argument (``code-block:: python``), Python for the
    doctest and Jupyter directives, else none (a literal block, an extension's example)."""
    if m is None:
        return ""
    if m.group(2) in _PYTHON_DIRECTIVES:
        return "python"
    return m.group(3) if m.group(2) in _LANGUAGE_ARGUMENT else ""


def code_blocks(text: str) -> list[CodeBlock]:
    """The code blocks of a piece of reStructuredText (a MyST ``{eval-rst}`` fence's), each
    ``line`` its directive's 1-based line in ``text``."""
    return _code_blocks(normalize_newlines(text), 1, None)


def setup_blocks(text: str) -> list[CodeBlock]:
    """The ``.. testsetup::`` bodies of a reStructuredText page (sphinx.ext.doctest runs them
    before the page's doctests; no reader sees them), each ``line`` its directive's 1-based
    line in ``text``."""
    return _code_blocks(normalize_newlines(text), 1, None, setup=True)


def _is_comment(line: str) -> bool:
    """Whether a line opens a reST comment: ``..`` and text that is no directive (``::``), no
    link target (``.. _x:``), no substitution (``.. |x|``) and no footnote (``.. [1]``)."""
    body = line.lstrip()
    if not body.startswith(".."):
        return False
    rest = body[2:]
    if rest and not rest[0].isspace():
        return False  # "...", "..x": text
    rest = rest.strip()
    return "::" not in rest and not rest.startswith(("_", "|", "["))


# a bullet or enumerated list item's marker: the lines under it at its text's indent go on
# with the item's paragraph
_LIST_MARKER = re.compile(r"[-*+•]\s|(?:\d+|[A-Za-z#])[.)]\s|\(\w+\)\s")


def _opens_block(before: str, line: str) -> bool:
    """Whether ``line`` (a ``>>>`` prompt) opens a paragraph of its own after ``before``: after
    a blank line, or indented under a line that is no list item (a definition list's term:
    deepdiff's "Search in list for string" over an indented doctest session, which docutils
    reads as the definition's doctest block)."""
    if not before.strip():
        return True
    indent = len(line) - len(line.lstrip())
    return len(before) - len(before.lstrip()) < indent and not _LIST_MARKER.match(before.lstrip())


def _code_blocks(
    text: str, first_line: int, line_map: list[int] | None, *, setup: bool = False
) -> list[CodeBlock]:
    """``.. code-block:: lang`` bodies, ``::`` literal blocks and doctest blocks (a
    paragraph that opens with ``>>>``) of one section; with ``setup``, only the
    ``.. testsetup::`` bodies.

    ``first_line`` is the section's first line in the served text.
    """
    out: list[CodeBlock] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _CODE_DIRECTIVE.match(lines[i])
        literal = lines[i].rstrip().endswith("::") and not m and not lines[i].lstrip().startswith("..")
        if m or literal:
            base = len(lines[i]) - len(lines[i].lstrip())
            j = i + 1
            while j < len(lines) and (lines[j].lstrip().startswith(":") and m):
                j += 1
            body: list[str] = []
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base):
                body.append(lines[j])
                j += 1
            code = "\n".join(body).strip("\n")
            hidden = bool(m and m.group(2) in _HIDDEN_DIRECTIVES)
            wanted = (m is not None and m.group(2) == "testsetup") if setup else not hidden
            if code.strip() and wanted:
                out.append(
                    CodeBlock(
                        language=_language(m),
                        code=textwrap.dedent(code) + "\n",
                        line=map_line(line_map, first_line + i),
                    )
                )
            i = j
            continue
        if _is_comment(lines[i]):  # a comment's indented body is no page content
            base = len(lines[i]) - len(lines[i].lstrip())
            i += 1
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > base):
                i += 1
            continue
        if lines[i].lstrip().startswith(">>>") and (i == 0 or _opens_block(lines[i - 1], lines[i])):
            # a doctest block: a paragraph that opens with the prompt is code in reST, to
            # the next blank line; its line is the (blank) one before the prompt, as a
            # fence's line is the one before its code
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            if not setup:
                out.append(
                    CodeBlock(
                        language="python",
                        code=textwrap.dedent("\n".join(lines[i:j])) + "\n",
                        line=map_line(line_map, max(first_line + i - 1, 1)),
                    )
                )
            i = j
            continue
        i += 1
    return out
