"""Markdown (and MDX) → sections, code blocks and links, with exact line ranges.

markdown-it-py finds the structure (its tokens carry line maps), so a heading-shaped
line inside a fenced block, an HTML comment or front matter is never a heading. Before
parsing, a *structure view* of the text is made that keeps every line in place:
front matter and MDX ``import``/``export`` lines are blanked, and the bodies of MkDocs
containers (``=== "Tab"``, ``!!! note``, ``??? tip``) are dedented so that headings and
fences inside them are seen as such. Section text is always cut from the real text.
"""

from __future__ import annotations

import bisect
import html
import logging
import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt

from docmentor.models import CodeBlock, Link, ParsedDocument, Section
from docmentor.parse import hugo, mdc
from docmentor.parse.common import (
    ATTR_LIST,
    MYST_LABEL,
    attr_list_id,
    build_sections,
    labelled_start,
    map_line,
    normalize_newlines,
)
from docmentor.parse.fences import Fence, closes, code_spans, fence_open, tag_label, without_badges

log = logging.getLogger(__name__)

_CONTAINER = re.compile(r"^(\s*)(===|!!!|\?\?\?\+?)\s")
MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown")  # the file names of Markdown pages
_MDX_IMPORT = re.compile(r"^(import|export)\s")
# A site's tab region (TanStack's `<!-- ::start:framework -->` … `<!-- ::end:framework -->`,
# `::start:tabs variant="files"`): each `# React` heading in it names a tab, not a part of the page
# (linear: the name's parts are possessive, and only a blank or `-->` may follow it)
_TAB_START = re.compile(r"[ \t]*<!--[ \t]*::start:(\w++(?:-\w++)*+)(?:[ \t][^>]*)?-->[ \t]*")
_TAB_END = re.compile(r"[ \t]*<!--[ \t]*::end:(\w++(?:-\w++)*+)[ \t]*-->[ \t]*")
_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
# Patterns on document text run in linear time on any line: link text holds no bracket (the
# innermost ``[…]`` is the link, as in CommonMark), and a destination or title stops at the
# next ``](`` (or ``<``): from every ``[`` or ``](`` they ran to the line's end, quadratic
# on ``[[[…`` and ``[a]([a](…``.
_LINK = re.compile(
    r"(?<!!)\[([^\[\]\n]*+)\]\(\s*+(?:<([^<>\n]++)>|((?:[^)\s\]]|\](?!\())++))"
    r"(?:\s++[\"'(](?:[^)\]]|\](?!\())*+)?\)"
)
_REF_USE = re.compile(r"(?<![!\]])\[([^\[\]\n]++)\](?:\[([^\[\]\n]*+)\])?(?![(:\[])")


def _ref_label(label: str) -> str:
    """A reference label as markdown-it keys it: case-folded, whitespace collapsed."""
    return " ".join(label.split()).upper()


_JSX_TAG = re.compile(r"</?[A-Z][\w.]*+(\s[^<>]*+)?/?>|\{/\*(?:[^*{]|\*(?!/\})|\{(?!/\*))*+\*/\}")
_JSX_OPEN = re.compile(r"^\s*<[A-Z][\w.]*(\s[^<>]*)?$")  # a tag left open at the line's end
_TAG_END = re.compile(r"(?<!=)>")
# ``[text](url)``, ``![alt](src)`` and ``[text][ref]`` in a heading read as their text
# (a destination in angle brackets may hold parentheses: `(<https://…(not%20recommended)…>)`)
_HEADING_LINK = re.compile(
    r"!?\[([^\[\]\n]*+)\](?:\(<[^<>\n]*+>[^()\n]*+\)|\((?:[^)\n\]]|\](?!\())*+\)|\[[^\[\]\n]*+\])"
)


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    # Block structure only: inline parsing is half the cost and links are found by regex.
    return MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")


@lru_cache(maxsize=1)
def _inline_md() -> MarkdownIt:
    # emphasis, backslash escapes and code spans only: links, tags and entities are read before
    return MarkdownIt("commonmark").disable(["link", "image", "autolink", "html_inline", "entity"])


def emphasis_as_read(text: str) -> str:
    """Inline Markdown as a reader sees it: emphasis without its markers (`When should I
    **not** use a Store`, `Why _Pinia_`), backslash escapes read (`\\_Keys\\<T\\>` →
    `_Keys<T>`), code spans kept as written (`` `__init__` ``); CommonMark's rules, linear."""
    tokens = _inline_md().parseInline(text)
    out: list[str] = []
    for tok in tokens[0].children or () if tokens else ():
        if tok.type == "code_inline":
            out.append(f"{tok.markup}{tok.content}{tok.markup}")
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif tok.type in ("text", "text_special"):
            out.append(tok.content)
    return " ".join("".join(out).split())


def split_front_matter(lines: list[str]) -> tuple[dict[str, object], int]:
    """Front matter as a dict and the number of lines it takes (0 when absent)."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for i in range(1, min(len(lines), 500)):
        if lines[i].strip() in ("---", "..."):
            from docmentor._yaml import load_yaml  # PyYAML costs ~10 ms to import

            data = load_yaml("\n".join(lines[1:i]))
            if data is None:  # not YAML (`title: @sveltejs/kit/node`): read as the site's own reader does
                data = _plain_pairs(lines[1:i])
            return (data if isinstance(data, dict) else {}), i + 1
    return {}, 0


_PAIR = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?")


def _plain_pairs(lines: list[str]) -> dict[str, object]:
    """Front matter that YAML refuses (an unquoted ``@`` or `` ` `` opens a value): its
    ``key: value`` lines at the left margin, as simple front-matter readers take them, a
    value's surrounding quotes removed; not a value that opens a YAML structure (``[``,
    ``{``, a block scalar, an anchor, an alias or a tag) that is broken."""
    pairs: dict[str, object] = {}
    for line in lines:
        m = _PAIR.fullmatch(line.rstrip())
        if m and m.group(2) and m.group(2)[0] not in "[{|>&*!":  # not a broken YAML structure
            value = m.group(2).strip()
            if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            pairs.setdefault(m.group(1), value)
    return pairs


def structure_view(
    lines: list[str], *, skip: int, mdx: bool, links: list[tuple[int, str]] | None = None
) -> tuple[list[str], dict[int, str]]:
    """A copy of ``lines`` for structure detection only; line count is unchanged.

    Also returns the rewrites (line index → served text) that apply to the text too: MDX's
    (imports, JSX tags), MDC components' (:mod:`~docmentor.parse.mdc`: their markup lines,
    inline components) and a site's tab labels (``# React`` in a tab region reads ``React``).
    The targets MDC components link to are added to ``links`` (line index, target).
    """
    view = ["" if i < skip else line for i, line in enumerate(lines)]
    mdx_lines: dict[int, str] = {}
    n = len(view)
    regions = _tab_regions(view) if any("::start:" in line for line in view) else {}
    tabs_until = -1  # the line that closes the tab region the scan is in
    fence: Fence | None = None
    blocks = mdc.Blocks()
    i = 0
    while i < n:
        line = view[i]
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
            elif "/*" in line and (shown := hugo.examples_shown(line)) != line:
                view[i] = mdx_lines[i] = shown  # a Hugo shortcode shown as an example
            i += 1
            continue
        if blocks.open and (depth := blocks.indent()) and line[:depth].isspace():
            view[i] = line = line[depth:]  # a component's body, as its renderer reads it
        fence = fence_open(line, any_indent=True)
        if fence is not None:
            i += 1
            continue
        if _mdc_markup(view, i, blocks, mdx_lines, links):
            i += 1
            continue
        line = view[i]
        if hugo.has_shortcode(line) and (shown := hugo.shortcodes_out(line)) != line:
            view[i] = mdx_lines[i] = line = shown  # Hugo shortcodes: what they print, no markup
        if i in regions:
            tabs_until = max(tabs_until, regions[i])
        if i < tabs_until and _ATX.match(line):
            view[i] = mdx_lines[i] = _tab_label(line)  # read as the tab's name
            i += 1
            continue
        if mdx and _MDX_IMPORT.match(line):
            j = _esm_end(view, i)
            for k in range(i, j + 1):
                view[k] = ""
                mdx_lines[k] = ""
            i = j + 1
            continue
        if "<" in line and _JSX_OPEN.match(line):
            # a component tag whose attributes run over several lines, in MDX or in a VitePress
            # page's Markdown (`<CourseLink` / `  title="…"` / `/>`): dropped up to its ``>``
            j = i + 1
            while j < n and view[j].strip() and not _TAG_END.search(view[j]):
                j += 1
            if j < n and view[j].strip():
                head, rest = _TAG_END.split(view[j], maxsplit=1)
                for k in range(i, j):
                    # a tab's label: text, on its line
                    mdx_lines[k] = tag_label(view[k])
                    view[k] = ""
                view[j] = _jsx_out(rest) if mdx else rest
                mdx_lines[j] = " ".join(filter(None, [tag_label(head), view[j].strip()]))
                i = j + 1
                continue
        if mdx:
            stripped = _jsx_out(line)
            if stripped != line:
                view[i] = mdx_lines[i] = stripped
        _dedent_container(view, i)
        i += 1
    return view, mdx_lines


def _dedent_container(view: list[str], i: int) -> None:
    """The body of the MkDocs container line ``i`` opens (``=== "Tab"``, ``!!! note``), if
    any, dedented in the view: headings and fences inside are seen as such."""
    c = _CONTAINER.match(view[i])
    if c:
        indent = len(c.group(1))
        j = i + 1
        while j < len(view) and (not view[j].strip() or _indent(view[j]) >= indent + 4):
            j += 1
        for k in range(i + 1, j):
            if view[k].strip():
                view[k] = view[k][:indent] + view[k][indent + 4 :]


def _mdc_markup(
    view: list[str], i: int, blocks: mdc.Blocks, rewrites: dict[int, str], links: list[tuple[int, str]] | None
) -> bool:
    """Reads line ``i`` of the view for MDC components: a block component's markup line is
    rewritten to what shows of it (True: nothing more to read on it); a line's inline
    components are rewritten to their labels. Their link targets are added to ``links``."""
    line = view[i]
    if (":" in line or blocks.open) and (shown := blocks.markup(view, i)) is not None:
        if links is not None:
            links += [(i, target) for target in mdc.component_links(line)]
        view[i] = rewrites[i] = shown
        return True
    if ":" in line or "`{" in line:
        shown = mdc.inline_out(line, heading=_ATX.match(line) is not None)
        if shown != line:
            if links is not None:
                links += [(i, target) for target in mdc.inline_links(line)]
            view[i] = rewrites[i] = shown
    return False


def _tag_text(tag: re.Match[str]) -> str:
    shown = tag_label(tag.group(0)) if tag.group(0)[:2] != "</" else ""
    return f" {shown} " if shown else ""


def _jsx_out(line: str) -> str:
    """A line without its JSX tags and comments, outside its code spans (`` `<Tabs>` `` in prose
    or a heading, ``## `<Tabs>` Props``, is the component's name as the page shows it); a
    tag's ``label`` (:func:`~docmentor.parse.fences.tag_label`) stays as its text. A card's
    `title` and `description` do not: pages of link cards (community articles, plugin lists)
    then outranked the guides they point to (the Starlight tour set: doc MRR 0.873 -> 0.848)."""
    if "`" not in line:
        return _JSX_TAG.sub(_tag_text, line)
    return "".join(p if code else _JSX_TAG.sub(_tag_text, p) for p, code in code_spans(line))


def _tab_regions(view: list[str]) -> dict[int, int]:
    """Each tab region's opening line → its closing line (:data:`_TAB_START`,
    :data:`_TAB_END`), outside code blocks: a start is closed by the next end of its name
    unless another start of that name comes first (then it is no region)."""
    starts, ends = _tab_markers(view)
    regions: dict[int, int] = {}
    for name, opened in starts.items():
        closing = ends.get(name, [])
        for k, i in enumerate(opened):
            at = bisect.bisect_right(closing, i)
            following = opened[k + 1] if k + 1 < len(opened) else None
            if at < len(closing) and (following is None or closing[at] < following):
                regions[i] = closing[at]
    return regions


def _tab_markers(view: list[str]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Each tab region name's opening and closing lines, in order, outside code blocks."""
    starts: dict[str, list[int]] = {}
    ends: dict[str, list[int]] = {}
    fence: Fence | None = None
    for i, line in enumerate(view):
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
            continue
        fence = fence_open(line, any_indent=True)
        if fence is not None or "<!--" not in line:
            continue
        if "::start:" in line and (start := _TAB_START.fullmatch(line)) is not None:
            starts.setdefault(start.group(1), []).append(i)
        elif "::end:" in line and (end := _TAB_END.fullmatch(line)) is not None:
            ends.setdefault(end.group(1), []).append(i)
    return starts, ends


def _tab_label(line: str) -> str:
    """``# React`` → ``React`` (an ATX heading's text, without a closing ``#`` run)."""
    text = line.strip().lstrip("#").strip()
    bare = text.rstrip("#")
    return bare.rstrip() if bare != text and (not bare or bare[-1] in " \t") else text


def _esm_end(view: list[str], i: int) -> int:
    """Last line of the MDX ``import``/``export`` block starting at line ``i``.

    The block ends where its brackets are balanced and the statement is complete (a
    ``;``, a ``from`` clause, or a blank line / the end of the text next); unbalanced
    brackets (a brace in a string) fall back to the first blank line.
    """
    n = len(view)
    depth = 0
    for j in range(i, n):
        if j > i and not view[j].strip() and depth <= 0:
            return j - 1
        depth += sum(view[j].count(c) for c in "{([") - sum(view[j].count(c) for c in ")]}")
        done = view[j].rstrip().endswith(";") or " from " in view[j]
        if depth <= 0 and (done or j + 1 == n or not view[j + 1].strip()):
            return j
    return next((j - 1 for j in range(i + 1, n) if not view[j].strip()), n - 1)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def parse_markdown(
    text: str, *, line_map: list[int] | None = None, fallback_title: str = "", mdx: bool = False
) -> ParsedDocument:
    """Parse Markdown into sections. ``line_map`` maps served lines to original ones."""
    text = normalize_newlines(text)
    lines = text.split("\n")
    meta, skip = split_front_matter(lines)
    component_links: list[tuple[int, str]] = []
    view, mdx_lines = structure_view(lines, skip=skip, mdx=mdx, links=component_links)
    env: dict[str, Any] = {}
    tokens = _md().parse("\n".join(view), env)
    refs: dict[str, Any] = env.get("references") or {}

    heads: list[tuple[int, int, str]] = []
    ids: dict[int, str] = {}  # heading line → the id its attr_list gives
    fences: list[tuple[int, str, str]] = []
    links: list[Link] = []
    for idx, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map:
            inline = tokens[idx + 1]
            # `## GitHub {#ci-github}`: attr_list's id and classes are no words of the title;
            # the id is the section's anchor, as MkDocs makes it
            raw = _HEADING_LINK.sub(r"\1", inline.content)
            attrs = ATTR_LIST.search(raw)
            if attrs is not None and (given := attr_list_id(attrs.group(0))) is not None:
                ids[tok.map[0]] = given
            # inline HTML is markup too: `Data <dfn title="…">conversion</dfn>` reads "Data conversion"
            heading = " ".join(_entities(_without_tags(ATTR_LIST.sub("", raw))).split())
            if "\\" in heading or "*" in heading or "_" in heading:
                heading = emphasis_as_read(heading)
            if heading:
                heads.append((tok.map[0], int(tok.tag[1]), heading))
        elif tok.type == "fence" and tok.map:
            fences += _fence_blocks(tok.map[0], tok.info, tok.content)
        elif tok.type == "inline" and tok.map and ("](" in tok.content or (refs and "[" in tok.content)):
            for off, line in enumerate(tok.content.split("\n")):
                found = [(m.group(1), m.group(2) or m.group(3)) for m in _LINK.finditer(line)]
                if refs:  # reference-style: [text][label], [label][] and [label]
                    for m in _REF_USE.finditer(line):
                        label = _ref_label(m.group(2) or m.group(1))
                        ref = refs.get(label)
                        if ref and ref.get("href"):
                            found.append((m.group(1), str(ref["href"])))
                for text_, href in found:
                    target, _, anchor = href.partition("#")
                    links.append(
                        Link(
                            target=target,
                            anchor=anchor or None,
                            text=text_,
                            line=map_line(line_map, tok.map[0] + 1 + off),
                        )
                    )

    for i, href in component_links:
        target, _, anchor = href.partition("#")
        links.append(Link(target=target, anchor=anchor or None, text="", line=map_line(line_map, i + 1)))
    title = ""
    fm_title = meta.get("title")
    if isinstance(fm_title, str | int | float) and str(fm_title).strip():
        title = str(fm_title).strip()
    if not title:
        title = next((h for _, lvl, h in heads if lvl == 1), "")
    if not title:
        title = fallback_title

    for i, served in mdx_lines.items():
        lines[i] = served  # MDX import/export lines and JSX tags are not text
    if skip:
        lines = _front_matter_out(lines, skip, meta)
    labelled = [(labelled_start(lines, start, skip, MYST_LABEL), level, text) for start, level, text in heads]
    sections = build_sections(lines, labelled, line_map=line_map, title=title)
    _given_anchors(sections, heads, ids)
    if not sections and skip and meta.get("title"):
        # a page of nothing but front matter (a stub, a redirect): findable by what it says
        # of itself, pointing at its front matter's lines
        about = [str(meta.get(k)).strip() for k in ("title", "description", "summary") if meta.get(k)]
        sections = [
            Section(
                heading=title,
                heading_path=[title],
                level=1,
                line_start=map_line(line_map, 1),
                line_end=map_line(line_map, skip),
                text="\n\n".join(dict.fromkeys(about)),
            )
        ]
    _attach_code(sections, fences, line_map, [start for start, _, _ in labelled])
    return ParsedDocument(title=title, meta=meta, sections=sections, links=links)


def _front_matter_out(lines: list[str], skip: int, meta: dict[str, object]) -> list[str]:
    """The page's lines with its front matter blank but for its description (:func:`_description_line`)."""
    shown = _description_line(lines, skip, meta)
    out = [""] * skip + lines[skip:]
    if shown is not None:
        out[shown[0]] = shown[1]
    return out


def _description_line(lines: list[str], skip: int, meta: dict[str, object]) -> tuple[int, str] | None:
    """The front matter's ``description:`` when it reads as one line (its line, its value): a page's summary,
    which Nuxt Content and Docus show as the page's lead paragraph and other sites as its
    summary in search results; read as the page's opening text, on its own line. (A Nuxt
    tour: 260 of 262 pages have one, for some the only prose; doc MRR 0.660 → 0.668 there,
    the held-out backstage check 0.507 → 0.612, the dev suite unchanged.)"""
    value = meta.get("description")
    if not isinstance(value, str) or not value.strip() or "\n" in value.strip():
        return None
    if not any(line.strip() for line in lines[skip:]):
        return None  # a page of nothing but front matter: one section about itself
    for i in range(1, skip - 1):
        if lines[i].startswith("description:"):
            return i, " ".join(value.split())
    return None


# MyST directives (```{name} argument) whose content is code in the language the argument
# names; those whose content is Python; and {eval-rst}, whose content is reStructuredText
_MYST_CODE = frozenset({"code-block", "code", "sourcecode", "code-cell"})
_MYST_PYTHON = frozenset({"testcode", "doctest", "jupyter-execute", "ipython"})
# sphinx.ext.doctest's set-up and clean-up code: never shown to readers, no code of the page
_MYST_HIDDEN = frozenset({"testsetup", "testcleanup"})
_MYST_OPTION = re.compile(r"^[ \t]*:[\w-]+:")  # MyST strips the indent: `    :options: +SKIP`
# MyST directives whose body is Markdown text (admonitions, version notes, dropdowns, tabs,
# cards): their fences inside are code, the rest prose. Every other directive that is no code
# ({toctree}, {include}, {image}, {autofunction}, {towncrier-draft-entries} …) is markup.
MYST_TEXT_DIRECTIVES = frozenset(
    {
        "note", "warning", "tip", "important", "hint", "caution", "danger", "error", "attention",
        "seealso", "admonition", "versionadded", "versionchanged", "deprecated", "versionremoved",
        "dropdown", "tab-set", "tab-item", "tab", "card", "grid", "grid-item", "grid-item-card",
        "topic", "sidebar", "margin", "epigraph", "pull-quote", "highlights", "div", "container",
        "only", "todo", "rubric",
    }
)  # fmt: skip
# diagrams written as code: kept as code blocks, as a ```mermaid fence is
_MYST_DIAGRAMS = frozenset({"mermaid", "graphviz", "plantuml"})


def myst_directive(info: str) -> str | None:
    """The directive a MyST fence opens (```` ```{note} ```` → ``note``); None for a code
    fence (```` ```python ````, pandoc's ```` ```{.python} ````)."""
    first = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    if len(first) > 2 and first.startswith("{") and first.endswith("}") and not first.startswith("{."):
        return first[1:-1]
    return None


def myst_is_code(name: str) -> bool:
    """Whether a MyST directive's body is code (or reST holding code: ``{eval-rst}``)."""
    return name in _MYST_CODE or name in _MYST_PYTHON or name in _MYST_DIAGRAMS or name == "eval-rst"


def setup_blocks(text: str) -> list[CodeBlock]:
    """The MyST ```` ```{testsetup} ```` bodies of a Markdown page (sphinx.ext.doctest runs
    them before the page's doctests; no reader sees them), each ``line`` its fence's 1-based
    line in ``text``."""
    if "testsetup" not in text:
        return []
    text = normalize_newlines(text)
    out: list[CodeBlock] = []
    for tok in _md().parse(text, {}):
        words = tok.info.split() if tok.type == "fence" else []
        if tok.map and words and words[0] == "{testsetup}":
            body = tok.content.split("\n")
            while body and _MYST_OPTION.match(body[0]):
                body.pop(0)
            code = "\n".join(body).strip("\n")
            if code.strip():
                out.append(CodeBlock(language="python", code=code + "\n", line=tok.map[0] + 1))
    return out


def fence_language(word: str) -> str:
    """The language a fence's first info word names: pandoc's ``{.python}``, and VitePress's
    line marks and options after it (``ts{3,15-17}``, ``js:line-numbers``) left out."""
    language = word.strip("{}.")
    cut = min((k for k in (language.find("{"), language.find(":")) if k > 0), default=len(language))
    return language[:cut]


def _fence_blocks(line0: int, info: str, content: str) -> list[tuple[int, str, str]]:
    """(0-based line, language, code) of a fence: itself, or the code blocks inside a MyST
    ``{eval-rst}`` fence (``.. code-block:: python``, ``.. click:example::``)."""
    words = info.strip().split(maxsplit=1)
    first = words[0] if words else ""
    name = myst_directive(info)
    if name is None:  # a code fence ({.python}: pandoc's)
        return [(line0, fence_language(first), content)]
    if name in MYST_TEXT_DIRECTIVES:  # Markdown text: the code is its fences
        return [
            block
            for tok in _md().parse(content, {})
            if tok.type == "fence" and tok.map
            for block in _fence_blocks(line0 + 1 + tok.map[0], tok.info, tok.content)
        ]
    if not myst_is_code(name):  # {toctree}, {include}, {image} …: markup, no code
        return []
    argument = words[1].split()[0] if len(words) > 1 and words[1].split() else ""
    if name in _MYST_HIDDEN:
        return []
    if name == "eval-rst":
        from docmentor.parse.rst import code_blocks

        return [(line0 + b.line, b.language, b.code) for b in code_blocks(content)]
    if name in _MYST_CODE or name in _MYST_PYTHON:
        body = content.split("\n")
        if body and body[0].strip() == "---" and "---" in (b.strip() for b in body[1:]):
            body = body[[b.strip() for b in body].index("---", 1) + 1 :]  # a YAML options block
        while body and _MYST_OPTION.match(body[0]):  # :linenos:, :caption: …
            body.pop(0)
        lang = "python" if name in _MYST_PYTHON else argument
        return [(line0, lang, "\n".join(body))]
    return [(line0, name, content)]


def _attach_code(
    sections: list[Any], fences: list[tuple[int, str, str]], line_map: list[int] | None, starts: list[int]
) -> None:
    """Give each code block to the section it is in, told by the served text's lines
    (``starts``: each heading's 0-based line there): an included file's lines all map to its
    directive's line in the original file, so by those every included block went to the
    page's last section that starts there (humanize's README examples were "Localization")."""
    if not sections or not fences:
        return
    offset = len(sections) - len(starts)  # 1 with a preamble section before the first heading
    for line0, lang, code in fences:
        line = map_line(line_map, line0 + 1)
        if offset in (0, 1):
            k = bisect.bisect_right(starts, line0) - 1  # the last heading at or before the block
            owner = sections[k + offset] if k >= 0 else sections[0]
        else:  # sections not one a heading (a front-matter page): by the original lines
            owner = sections[0]
            for sec in sections:
                if sec.line_start <= line:
                    owner = sec
                else:
                    break
        owner.code_blocks.append(CodeBlock(language=lang, code=code, line=line))


# Python-Markdown's attr_list at a heading's end: `{#id}`, `{: #id .class }`, `{ .lg .middle }`
# an HTML tag in a heading (not `a < b`); linear: the attributes run to the first `<`, `>` or
# line end
_INLINE_TAG = re.compile(r"</?[a-z][a-z0-9-]*+(?:[ \t][^<>\n]*+)?/?>", re.IGNORECASE)


def _without_tags(heading: str) -> str:
    """A heading's text without its inline HTML tags, outside code spans (`useQuery<TData>` keeps
    its type parameter); a component ending it goes with its text, a badge
    (:func:`~docmentor.parse.fences.without_badges`: `mockThrow <Version>4.1.0</Version>` reads
    `mockThrow`), an HTML element's text stays (`Data <dfn>conversion</dfn>`)."""
    if "<" not in heading:
        return heading
    return "".join(p if code else _INLINE_TAG.sub("", p) for p, code in code_spans(without_badges(heading)))


def _entities(heading: str) -> str:
    """A heading's character references as the page shows them (`&lt;title&gt;` → `<title>`),
    outside code spans (where CommonMark shows them as written)."""
    if "&" not in heading:
        return heading
    return "".join(p if code else html.unescape(p) for p, code in code_spans(heading))


def _given_anchors(sections: list[Section], heads: list[tuple[int, int, str]], ids: dict[int, str]) -> None:
    """The ids headings' attr_lists give, as their sections' anchors (``build_sections`` makes
    one section a heading, in order, after the preamble)."""
    if not ids:
        return
    headed = [sec for sec in sections if sec.level > 0]
    for sec, (line, _, _) in zip(headed, heads, strict=False):
        if line in ids:
            sec.anchor = ids[line]
