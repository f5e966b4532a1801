"""Reading a docstring as prose: its paragraphs, which of them are markup, its summary.

Shared by the API surface (an API's description), deprecation detection (the first
paragraph) and find_api's embedded passages (markup is not a passage).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from typing import Any

from docmentor.parse.fences import Fence, closes, fence_open

__all__ = [
    "MARKUP",
    "PARAGRAPHS",
    "SUMMARY_CHARS",
    "display",
    "field_text",
    "is_code",
    "is_title",
    "plain",
    "prose",
    "prose_paragraphs",
    "summary",
    "without_lead_in",
]

SUMMARY_CHARS = 400
MAX_CODE_CHARS = 2000  # longer paragraphs are not parsed to tell code from prose


# a paragraph that is markup, not prose: an admonition (``!!! note``, ``??? tip``), a reST
# directive (``.. note::``), an HTML comment, an image or badge
MARKUP = re.compile(r"^(?:!!!|\?\?\?|\.\.\s|<!--|!\[|\[!\[)")
PARAGRAPHS = re.compile(r"\n(?:[ \t]*\n)+")  # blank lines, one or more: a paragraph break


_STATEMENTS = (
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Assert, ast.Import, ast.ImportFrom, ast.With,
    ast.AsyncWith, ast.For, ast.AsyncFor, ast.While, ast.If, ast.FunctionDef, ast.AsyncFunctionDef,
    ast.ClassDef, ast.Return, ast.Raise, ast.Try,
)  # fmt: skip


def is_code(paragraph: str) -> bool:
    """Whether a docstring paragraph is a code example (``url = httpx.URL(...)``, a doctest),
    not prose: it parses as Python and does something (assigns, asserts, imports, calls)."""
    text = textwrap.dedent(paragraph).strip()
    if text.startswith(">>>"):
        return True
    if len(text) > MAX_CODE_CHARS:
        return False  # not parsed: a summary is looked for in the first paragraphs only
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # deeply nested text too
        return False
    return any(
        isinstance(node, _STATEMENTS) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))
        for node in tree.body
    )


# a code span, after a Sphinx role (``:meth:`x` ``, ``:external+py:ref:`x` ``; the
# lookbehind keeps it linear on ":a:a:a…") or a MyST one (``{meth}`x` ``), if any. Read left
# to right, a code span is consumed whole: "{id}" in ```/users/{id}``` is no role
_ROLE_OR_CODE = re.compile(
    r"(?P<role>(?<![\w:.+-]):(?:[\w.+-]+:)+|(?<![\w{$])\{[\w.:+-]+\})?(?P<ticks>``?)(?P<body>[^`]+)(?P=ticks)"
)


def _roles(text: str, change: Callable[[str, str], str]) -> str:
    """``text`` with each role replaced by ``change(role prefix, its text)``; code spans and
    everything else as written."""

    def one(m: re.Match[str]) -> str:
        role = m.group("role")
        if not role or m.group("ticks") != "`":
            return m.group(0)
        return change(role, m.group("body"))

    return _ROLE_OR_CODE.sub(one, text)


def _titled(inner: str) -> tuple[str, str] | None:
    """(title, target) of a role's text ``title <target>`` (the title may be empty), else
    None. Read from the right, once: a regex for it backtracked on long runs of spaces."""
    if not inner.endswith(">"):
        return None
    start = inner.rfind("<")
    target = inner[start + 1 : -1]
    if start < 0 or not target or ">" in target:
        return None
    return inner[:start].strip(), target


def _role_text(inner: str, role: str = "") -> str:
    inner = inner.strip()
    titled = _titled(inner)
    if titled and titled[0]:
        return titled[0]  # :doc:`the testing guide </testing>`
    target = (titled[1] if titled else inner).lstrip("!")
    if target.startswith("~"):  # :exc:`~werkzeug.exceptions.HTTPException`: its last part
        return target[1:].rsplit(".", 1)[-1]
    if target.startswith(".") and role not in ("doc", "ref", "numref"):
        target = target.lstrip(".")  # :class:`.Serializer`: Sphinx finds it by its last part
    if role == "sub-ref":  # MyST's substitution reference: the reST form, |release|
        return f"|{target}|"
    if role in ("ref", "numref"):  # a label the docs did not title: its words
        return " ".join(target.replace("_", " ").replace("-", " ").split()) or target
    if role == "doc":  # a page by its path: its name (Sphinx would show its title)
        parts = [p for p in target.split("/") if p and p != "index"]
        return parts[-1].rsplit(".", 1)[0].replace("-", " ").replace("_", " ") if parts else target
    return target.strip("/")


def plain(text: str) -> str:
    """Text with Sphinx and MyST roles read as their words: ``:exc:`~pkg.errors.HTTPError```
    → ``HTTPError``, ``{doc}`/testing``` → ``testing``, ``:ref:`the guide <guide>``` →
    ``the guide``. What a role names matters to a reader; its markup does not. reST
    hyperlinks and footnote marks too (:func:`references`)."""
    text = references(text)
    if "`][" in text:
        text = _CODE_AUTOREF.sub(r"\1", text)
    if ":" not in text and "}`" not in text:
        return text
    return _roles(text, lambda prefix, inner: _role_text(inner, role_name(prefix)))


# reST hyperlink references: `orjson <https://…>`_ and `the docs`_ (`__: anonymous); not a
# role's `…` (a colon or } before it). (A bare word's Rich_ is left alone: Python names end
# in _ too, `type_`, `from_`, and Markdown's _two words_ is emphasis.) The title's last
# character is no space: no backtracking over a run of them
_REST_LINK = re.compile(r"(?<![`:}\w])`([^`<\n]*[^`<\s])\s*(?:<[^`>\n]*>)?`__?(?![\w`])")
# a MyST footnote mark on a word ("logged[^stdlib]"), not its definition, nor a regex's
# character class after a space ("[^abc] excludes")
_FOOTNOTE_MARK = re.compile(r"(?<=[\w.,;:!?)*`])\[\^[\w-]+\](?!:)")


# a reST footnote reference: "by the instance's ids [#]_", "[1]_", "[#note]_", "[*]_"
_REST_FOOTNOTE = re.compile(r"[ \t]?\[(?:#[\w-]*|\d+|\*)\]_(?!\w)")


def references(text: str) -> str:
    """reST hyperlinks as their words (```orjson <https://…>`_`` → ``orjson``), MyST
    footnote marks left out (``logged[^win]`` → ``logged``), and reST's escaped space after
    code (```configure`\\ 's`` → ```configure`'s``)."""
    if "`\\" in text:
        text = _ESCAPED_SPACE.sub("", text)
    if "`_" in text:
        text = _REST_LINK.sub(r"\1", text)
    if "]_" in text:
        text = outside_code(text, lambda part: _REST_FOOTNOTE.sub("", part))
    if "[^" in text:  # outside code spans: `[^abc]` is code
        text = outside_code(text, lambda part: _FOOTNOTE_MARK.sub("", part))
    return text


# roles that name a page, a label or a term, not code: their words are shown as prose
PROSE_ROLES = frozenset(
    {"doc", "ref", "term", "abbr", "download", "numref", "keyword", "option", "envvar", "pep", "rfc"}
    | {"math", "kbd", "guilabel", "menuselection", "file", "samp", "command", "program", "dfn", "cite"}
)


def role_name(markup: str) -> str:
    """``ref`` of ``:ref:``, ``:py:ref:``, ``{ref}`` or ``{external+py:ref}``: the role a
    prefix spells."""
    return markup.split("`", 1)[0].strip(":{}").rsplit(":", 1)[-1]


def _display_role(prefix: str, inner: str) -> str:
    if not inner or inner[0].isspace():  # no role's text: as written
        return f"{prefix}`{inner}`"
    role = role_name(prefix)
    text = _role_text(inner, role)
    titled = _titled(inner.strip())
    if role in _NUMBERED and not (titled and titled[0]):  # :pep:`8` → PEP 8, as Sphinx shows it
        return f"{_NUMBERED[role]} {text.split('#', 1)[0]}"
    if role in PROSE_ROLES or (titled and titled[0]):
        return text
    return f"`{text}`"


_NUMBERED = {"pep": "PEP", "rfc": "RFC"}


def display(text: str) -> str:
    """Text for a reader, with Sphinx and MyST roles shown as Sphinx shows them: code as inline code
    (``:exc:`~pkg.errors.HTTPError``` → ```HTTPError```, ``:meth:`Flask.route``` →
    ```Flask.route```), references by their words (``:doc:`/testing``` → ``testing``,
    ``:ref:`the guide <guide>``` → ``the guide``); reST inline literals as inline code, a
    literal block's ``::`` as the colon it renders, mkdocstrings cross-references
    (``[Table.add][lancedb.table.Table.add]``) as their title. Code spans stay as written."""
    if ":" in text or "}`" in text:
        text = _roles(text, _display_role)
    # `option`\s: reST's escaped space joins a role to its plural; and reST hyperlinks
    text = references(text)
    if "`][" in text:
        text = _CODE_AUTOREF.sub(r"\1", text)
    if "`~" in text or ">`" in text:  # Sphinx's default role: `~pkg.Class.attr`, `title <pkg.target>`
        text = _DEFAULT_ROLE_TARGET.sub(r"`\1`", _DEFAULT_ROLE_SHORT.sub(r"`\1`", text))
    text = outside_code(text, _prose_markup)
    return _LITERAL.sub(r"`\1`", text) if "``" in text else text


def _prose_markup(text: str) -> str:
    if "::" in text:
        text = _LITERAL_INTRO.sub(":", text)
    return _AUTOREF.sub(_autoref, text) if "][" in text else text


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """``change`` applied to the text between code spans (```…```, ````…````)."""
    if "`" not in text:
        return change(text)
    parts = _CODE_SPAN.split(text)  # odd positions: the spans
    return "".join(p if k % 2 else change(p) for k, p in enumerate(parts))


# reST's named and anonymous references by a word: "a mutable_ mapping_", "see here__"; the
# word starts at a word boundary and the marks end it (a space, punctuation or the end after)
_WORD_REFERENCE = re.compile(r"\b([A-Za-z][A-Za-z0-9-]*)__?(?=[\s.,;:!?)\]'\"]|$)")


def word_references(text: str) -> str:
    """reST's word references read as their words (``mutable_`` → ``mutable``), outside code
    spans: for text known to be reST, where a Python name with a trailing ``_`` is written as
    a literal. (Docstrings are not known to be reST: :func:`references` leaves ``Rich_``.)"""
    return outside_code(text, lambda part: _WORD_REFERENCE.sub(r"\1", part))


# what only a docstring written for Sphinx holds: a field (`:param x:`, `:returns:`), a role
# (`:func:`), a directive (`.. versionadded::`); each a literal start, linear
_SPHINX_MARK = re.compile(
    r":(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|ivar|cvar|var)\b"
    r"|:[a-z]+:`|^[ \t]*\.\.[ \t]+[a-z][\w:-]*::",
    re.M,
)


def written_for_sphinx(docstring: str) -> bool:
    """Whether a docstring is reST for Sphinx (a field list, a role, a directive), so that a
    word with a trailing ``_`` in its prose is a reference (:func:`word_references`)."""
    return ":" in docstring and _SPHINX_MARK.search(docstring) is not None


_CODE_SPAN = re.compile(r"(``[^`\n]+``|`[^`\n]+`)")
_LITERAL = re.compile(r"(?<!`)``([^`\n]+)``(?!`)")  # reST inline literal → inline code
_ESCAPED_SPACE = re.compile(r"(?<=[^\s`]`)\\ ?(?=\S)")  # only after a closing backtick
_LITERAL_INTRO = re.compile(r"(?<=[A-Za-z])::(?=\s|$)")  # "as stored::" before a literal block
# [title][target], [title][]; not a subscript (table[row][col])
_AUTOREF = re.compile(r"(?<![\w\])])\[([^\[\]\n]+)\]\[([\w.]*)\]")
# a cross-reference whose title is code (mkdocstrings: [`IsNumeric`][dirty_equals.IsNumeric]):
# read whole, before the text is split at its code spans
_CODE_AUTOREF = re.compile(r"(?<![\w\])])\[(`[^`\[\]\n]+`)\]\[[\w.]*\]")
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*(?:\(\))?$")
# A docstring written for Sphinx's default role (trio sets `default_role = "obj"`): a single
# backtick span that is `~dotted.name` shows its last part, one that is `title <dotted.name>`
# its title, as Sphinx renders them; no Markdown code span is written so
_DEFAULT_ROLE_SHORT = re.compile(r"(?<!`)`~(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*(?:\(\))?)`(?!`)")
_DEFAULT_ROLE_TARGET = re.compile(r"(?<!`)`([^`<>\n]*[^`<>\s]) <[A-Za-z_][\w.]*>`(?!`)")


def _autoref(m: re.Match[str]) -> str:
    """``[Table.add][lancedb.table.Table.add]`` → ```Table.add```; a Markdown reference
    link (``[Streaming Responses][0]``, ``[the guide][]``) → its words."""
    title, target = m.group(1).strip().strip("`"), m.group(2)
    named = any(c in target for c in "._") or (not target and any(c in title for c in "._("))
    return f"`{title}`" if named and _IDENTIFIER.match(title) else title


# where a docstring's prose ends: a Google / NumPy section heading, a reST field list, a
# bold section title, a JSDoc tag, a Markdown heading (Rust's "# Examples")
_SECTION = re.compile(
    r"^[ \t]*(?:(?:Args|Arguments|Keyword Args|Keyword Arguments|Parameters|Params|Returns?|Yields?"
    r"|Raises|Examples?|Notes?|Attributes|See Also|Warns?|Other Parameters)[ \t]*:?[ \t]*$"
    r"|:(?:param|parameter|arg|argument|key|keyword|type|raises?|except|exception|returns?|rtype"
    r"|yields?|ytype|var|ivar|cvar|vartype)\b[^:\n]*:"
    r"|\*\*[A-Z][\w ]*:\*\*[ \t]*$|\*\*[A-Z][\w ]*\*\*:[ \t]*$"
    r"|\*\*(?:Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Attributes)\*\*[ \t]*:"
    # a bold heading alone on its line (deepdiff's "**Parameters**" over "obj : …" lines)
    r"|\*\*(?:Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Attributes|Examples?|Notes?)\*\*[ \t]*$)"
    # unindented only: a decorator or a comment in an indented example is no section
    r"|^(?:@(?:param|returns?|throws|example|see|since|typeParam|template|remarks|deprecated)\b"
    r"|#{1,3}[ \t]+\S)",
    re.M,
)


# a reST field's first line: `:param headers:`, `:raises KeyError:`
_FIELD_START = re.compile(r":[A-Za-z][^:\n]*:(?:\s|$)")  # one class before the colon: linear


def after_fields(docstring: str) -> str:
    """What follows a reST field list a docstring opens with: the paragraphs at the margin
    after it (a field's body is indented under it, so a paragraph at the margin after a blank
    line ends the list). urllib3's ``HTTPHeaderDict`` opens with ``:param headers:`` and
    ``:param kwargs:``, then says "A ``dict`` like container for storing HTTP Headers." ""
    for a docstring that does not open with fields, or says nothing after them."""
    lines = textwrap.dedent(docstring.strip("\n")).split("\n")
    first = next((line for line in lines if line.strip()), "")
    if not _FIELD_START.match(first):
        return ""
    for k in range(1, len(lines)):
        line = lines[k]
        if line[:1] not in ("", " ", "\t") and not lines[k - 1].strip() and not _FIELD_START.match(line):
            return "\n".join(lines[k:]).strip()
    return ""


def prose(docstring: str, *, skip_summary: bool = True) -> str:
    """The docstring's prose as one paragraph of :func:`display` text (see
    :func:`prose_paragraphs`)."""
    return " ".join(prose_paragraphs(docstring, skip_summary=skip_summary))


# A paragraph that opens by pointing back at what came before it: right after code that is
# left out, it speaks of that code ("Instead, the minimum_unit can be changed", "The above
# prints …") and reads as a non sequitur without it
_BACK_REFERENCE = re.compile(
    r"(?i)(?:instead|alternatively|otherwise|similarly|likewise|as shown|as above|the above|above,"
    r"|in (?:this|that|the) (?:case|example)|this example|the example|which (?:prints|gives|returns))\b"
)


def prose_paragraphs(docstring: str, *, skip_summary: bool = True) -> list[str]:
    """The docstring's prose paragraphs as :func:`display` text, each on one line, up to its
    first section (``Args:``, a NumPy heading, a reST field list such as ``:param x:``, a
    bold ``**Parameters:**``, a JSDoc ``@param``, a Markdown heading): without its summary
    (the paragraph :func:`summary` reads) unless asked, and without what a reader of prose
    does not read as such — directives with their bodies (``.. versionchanged::``,
    ``.. code-block::``), admonitions, code examples, Markdown fences, ``::`` literal
    blocks and text laid out in columns, nor the short lead-in that announced them
    ("Usage:", "For example::"), nor a paragraph right after such code that opens by pointing
    back at it ("Instead, …") or goes on with the sentence the code interrupted (a lowercase
    word: "except that …"). Parameters, returns and examples have their own places."""
    text = _LINK_DEFINITION.sub("", _without_fences(docstring.strip()))
    end = _SECTION.search(text)
    if end is not None and end.start() == 0 and (rest := after_fields(text)):
        return prose_paragraphs(rest, skip_summary=skip_summary)  # fields first, then prose
    if end is not None:
        text = text[: end.start()]
    kept: list[list[Any]] = []  # [text, whether it is the summary]
    seen_summary = False
    in_block = False  # inside a directive's, an admonition's or a literal block's body
    after_code = False  # the paragraph before was code left out
    for para in PARAGRAPHS.split(text):
        if not para.strip():
            continue
        indented = para[:1] in (" ", "\t")
        if in_block and indented:
            continue
        in_block = False
        stripped = para.strip()
        if is_title(para):
            continue
        if is_name_list(para):
            if kept:  # "… containing these fields:" announced the list
                kept[-1][0] = without_lead_in(kept[-1][0])
                if not kept[-1][0]:
                    kept.pop()
            break  # "verify_ssl - Set to True to check …": the parameters, listed without a heading
        code = stripped == _CODE or is_code(para) or _preformatted(para)
        if code or MARKUP.match(stripped):
            in_block = stripped != _CODE
            after_code = after_code or code
            if kept:  # "Usage:" announced what is left out
                kept[-1][0] = without_lead_in(kept[-1][0])
                if not kept[-1][0]:
                    kept.pop()
            continue
        literal = stripped.endswith("::")  # a literal block follows: the code is left out
        line = " ".join(stripped.split())
        if after_code and _BACK_REFERENCE.match(line):
            continue  # "Instead, …", "The above …": it speaks of the code left out
        if after_code and line[:1].islower():  # the sentence the code interrupted goes on:
            # "Calling:: run(f) is the equivalent of:: await f() except that run …" (trio)
            in_block = after_code = literal
            continue
        after_code = literal
        if literal:
            in_block = True
            line = without_lead_in(line[:-1])
        if not seen_summary:  # summary() reads this paragraph, lead-in or not
            seen_summary = True
            kept.append([line, True])
        elif line:
            kept.append([line, False])
        if kept and not kept[-1][0]:
            kept.pop()
    return [display(t) for t, is_summary in kept if t and not (skip_summary and is_summary)]


# "verify_ssl - Set to True to check ssl certifications.": a name, a dash, what it is; a
# plain name is written as Python names are, in lower case ("Note - the connections …" is prose)
_NAME_ITEM = re.compile(
    r"^[ \t]*[*-]?[ \t]*(?:\*\*`?\w+`?\*\*|`{1,2}\*{0,2}\w+`{1,2}|[a-z_][a-z0-9_]*)[ \t]+[-–—][ \t]+\S"
)


def is_name_list(paragraph: str) -> bool:
    """Whether a paragraph lists names, each with a dash and what it is, one a line (at
    its own indentation; deeper lines continue an item): a field list written plainly, as
    older docstrings list their parameters under the summary."""
    lines = [line for line in paragraph.split("\n") if line.strip()]
    if len(lines) < 2:
        return False
    base = min(len(line) - len(line.lstrip()) for line in lines)
    items = [line for line in lines if len(line) - len(line.lstrip()) == base]
    return len(items) >= 2 and all(_NAME_ITEM.match(line) for line in items)


# a paragraph that is one bold phrase and nothing else: a title written in bold
_BOLD_TITLE = re.compile(r"\*\*[^*\n]{1,80}\*\*")
_BOLD_TITLE_LINE = re.compile(r"\A[ \t]*\*\*[^*\n]{1,80}\*\*[ \t]*\n(?=[ \t]*\S)")


def is_title(paragraph: str) -> bool:
    """A reST title: a line of text under (and maybe over) a run of one punctuation
    character at least as long (``requests.sessions`` over ``~~~~~~~~~~~~~~~~~``); or a
    bold line alone (deepdiff's docstrings open with ``**DeepSearch**``)."""
    if _BOLD_TITLE.fullmatch(paragraph.strip()):
        return True
    lines = [ln.strip() for ln in paragraph.strip().split("\n")]
    if len(lines) == 3 and lines[0] == lines[2]:
        lines = lines[1:]
    if len(lines) != 2 or not lines[0]:
        return False
    rule = lines[1]
    return (
        len(rule) >= max(3, len(lines[0]))
        and len(set(rule)) == 1
        and not rule[0].isalnum()
        and not rule[0].isspace()
    )


def _preformatted(paragraph: str) -> bool:
    """Laid out rather than written: indented as a Markdown code block, or aligned in
    columns (a diagram, a table: three spaces or more between words)."""
    return paragraph.startswith("    ") or _ALIGNED.search(paragraph) is not None


_ALIGNED = re.compile(r"\S {3,}\S")
_CODE = "\x00code\x00"  # where a Markdown fence was
_LINK_DEFINITION = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]+\S+[ \t]*$", re.M)  # "[0]: /quickstart#…"


def _without_fences(text: str) -> str:
    """The text with each Markdown fence (three or more backticks or tildes, closed by as
    many or more of the same, or by the end of the text, as CommonMark reads it) replaced
    by a paragraph of its own that says code was there. One pass over the lines."""
    if "```" not in text and "~~~" not in text:
        return text
    out: list[str] = []
    fence: Fence | None = None
    for line in text.split("\n"):
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
            continue
        fence = fence_open(line, any_indent=True)  # not inline code ("```x``` is …")
        # nor a reST title's underline (a bare run right under a line of text:
        # "requests.sessions" over "~~~~~~~~~~~~~~~~~")
        if fence is not None and not fence.info and out and out[-1].strip():
            fence = None
        if fence is not None:
            out += ["", _CODE, ""]
            continue
        out.append(line)
    return "\n".join(out)


_SENTENCE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)\.\s+")


# how a lead-in ends when it only points at what follows ("broken down like this:")
_POINTS_AHEAD = re.compile(
    r"\b(?:like (?:this|so)|as follows|the following|(?:is |are )?(?:shown )?below|here|these)\W*$", re.I
)
_LABEL_WORDS = 3  # "Usage:", "For example:", "Example usage:": a label, not a sentence


def says_nothing(lead_in: str) -> bool:
    """Whether a lead-in ending in a colon says nothing once what it announced is left out:
    a label ("Usage:", "For example:") or a sentence that only points ahead ("The
    components of a URL are broken down like this:"), not one that says what something is
    ("The query that defines a view, as stored:", "Send a request with the following
    options:")."""
    return is_label(lead_in) or bool(_POINTS_AHEAD.search(lead_in.strip().rstrip(":").strip()))


def is_label(lead_in: str) -> bool:
    """Whether a lead-in is a label ("Usage:", "For example:"), not a sentence."""
    return len(lead_in.strip().rstrip(":").split()) <= _LABEL_WORDS


# words a sentence cannot end on: it ends on what they announce (a preposition, an article,
# a conjunction, a copula)
_NEEDS_OBJECT = frozenset(
    {"to", "as", "of", "with", "by", "for", "from", "like", "than", "into", "in", "on", "at"}
    | {"is", "are", "be", "was", "were", "the", "a", "an", "and", "or", "either"}
)


def ended(lead_in: str) -> str:
    """A lead-in ended where it stands: its colon a full stop ("… as stored:" → "… as
    stored."), none added after one that closes an abbreviation ("e.g.:" → "e.g."); the
    colon kept when the sentence cannot end there ("This is equivalent to:", whose literal
    block was left out, never "… equivalent to.")."""
    text = lead_in.rstrip().rstrip(":").rstrip()
    if text.endswith((".", "!", "?", "…")):
        return text
    last = text.rsplit(None, 1)[-1].lower() if text else ""
    # "… is equivalent to:" says nothing ended with a full stop: what it announced is missing
    return text + (":" if last in _NEEDS_OBJECT else ".")


def readable_summary(summary: str) -> str:
    """A summary as a reader sees it (:func:`display`), without a last sentence that only
    announced code (:func:`without_lead_in`). One that is all lead-in is nothing when it
    says nothing without the code ("Usage:", "… broken down like this:"), else it ends
    there ("The query that defines a view, as stored.")."""
    text = display(summary.strip())
    if not text.endswith(":"):
        return text
    return without_lead_in(text) or ("" if says_nothing(text) else ended(text))


def without_lead_in(text: str) -> str:
    """A paragraph without its last sentence when that announced code left out ("… issuing
    a request. For example:", "it can be opened with::"): without what it announces it
    says nothing. Sentences end at a full stop that closes no abbreviation (``e.g.``)."""
    if not text.endswith(":"):
        return text
    body = text.rstrip(":")
    ends = [m.start() for m in _SENTENCE.finditer(body)]
    return f"{body[: ends[-1]]}." if ends else ""


# where a field's text ends for a reader: a directive the field list lets trail into its last
# field, or a doctest session after it (semver's "Returns: new object … >>> ver = …"), with the
# label that announced it ("Example:")
_DIRECTIVE_IN_FIELD = re.compile(
    r"(?:^|\s)(?:(?:for )?examples?:\s+)?(?:\.\.\s+[\w:-]+::|>>>(?:\s|$))", re.IGNORECASE
)


_TYPE_PREFIX = re.compile(
    r"^(?:~[A-Za-z_][\w.]*(?:\[[^\]\n]{0,80}\])?|\([\w.\[\]~|]{1,60}(?:, ?[\w.\[\]~|]{1,60}){0,4}\)):\s+(?=\S)"
)


def field_text(text: str) -> str:
    """A parameter's or a return's description for a reader: on one line, as
    :func:`display` shows it, without the directives a reST field list lets trail into its
    last field (``:param x: … .. versionchanged:: 2.0 …``) nor a doctest session after it."""
    cut = _DIRECTIVE_IN_FIELD.search(text)
    text = " ".join((text[: cut.start()] if cut else text).split())
    # a type the docstring's style left in the text: rich's "Returns: ~ScreenContext: …" and
    # "speed_estimate_period: (float, optional): …" (the type has its own place)
    return display(_TYPE_PREFIX.sub("", text, count=1))


# a directive a reader never sees: its paragraph says nothing of the API
_RENDERS_NOTHING = re.compile(
    r"\.\.[ \t]+(?:testsetup|testcleanup|currentmodule|module|highlight|meta|index|default-role|rst-class)::"
)


def summary(docstring: str) -> str:
    """The docstring's first prose paragraph, at most ~400 characters (cut at a sentence when
    it can). Leading markup paragraphs are skipped with their indented bodies: ``!!! abstract
    "Usage Documentation"`` over a link is not what an API does; so are leading code
    examples. Only markup and code: the first paragraph. The summary ends where the fields
    start (``:param x:``, ``Args:``); a docstring that opens with them has none, unless prose
    follows the field list (:func:`after_fields`)."""
    text = _without_fences(docstring.strip())
    fields = _SECTION.search(text)
    if fields is not None and fields.start() == 0 and (rest := after_fields(text)):
        return summary(rest)
    if fields is not None and fields.start() == 0 and not text.startswith("#"):
        # fields only (`:param db: …`, as an `__init__` docstring a class takes may be): no
        # summary; the parameters have their place
        return ""
    paragraphs = [
        p
        for p in PARAGRAPHS.split(text[: fields.start()] if fields and fields.start() else text)
        if p.strip()
    ]
    chosen = next((p for p in paragraphs if p.strip() != _CODE), "")
    in_block = False
    for para in paragraphs:
        if para.strip() == _CODE or is_title(para):  # a Markdown fence, a reST title
            continue
        if MARKUP.match(para.lstrip()):
            in_block = True
            continue
        if in_block and para[:1] in (" ", "\t"):  # the block's indented body
            continue
        if is_code(para):
            continue
        chosen = para
        break
    chosen = _BOLD_TITLE_LINE.sub("", chosen, count=1)  # "**pickle_load**" over its text
    if _RENDERS_NOTHING.match(chosen.lstrip()):
        return ""  # a module docstring that only sets up doctests (`.. testsetup::`): nothing said
    text = " ".join(chosen.split())
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[:SUMMARY_CHARS]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > SUMMARY_CHARS // 3 else cut.rstrip() + "…"
