"""Expand include directives in documentation files, confined to the docs root.

Supported forms:

* MkDocs ``pymdownx.snippets``: ``--8<-- "path"``, ``"path:section"``, ``"path:3:10"``,
  single quotes, any number of dashes, the block form, ``;`` escapes.
* ``{!…!}``, read as MkDocs ``markdown-include`` (``{!path!}``, ``{!path!lines=1 3-5}``) and
  as ``mdx_include``: ``{! path !}`` (spaces optional), ``{!> path !}`` (the text before the
  directive is repeated on every included line, not only the first: an include indented in
  a tab or a list stays inside it), ``{!+ … !}`` / ``{!- … !}`` (nested includes on / off),
  ``{! path [ln:1-4,7] !}`` row slices (rcslice: ``2-``, ``e``, reversed ``6-2``; slices are
  joined by two blank lines), ``{! path | encoding !}`` (the encoding is ignored: UTF-8),
  and ``\\{!…!}`` (escaped: left as text).
* ``markdown-include-variants`` (FastAPI, SQLModel, Typer): a line ``{* path ln[3:10,12] hl[5] *}``
  becomes a fenced code block of the file, its language guessed from the extension. ``ln``
  picks 1-based inclusive lines (``a:b`` or ``a``, comma-separated, sorted); between and
  around the picked ranges stand the plugin's ``# Code above omitted 👆``, ``# Code here
  omitted 👈`` and ``# Code below omitted 👇`` lines; ``ln[0]`` means the whole file. ``hl``
  (highlighting) and ``title`` are ignored. The included code is not searched for includes.
* mkdocs-include-markdown-plugin: ``{% include-markdown "path" start="…" end="…" %}`` and
  ``{% include "path" %}``, on one line or several (a ``%}`` in a quoted argument does not
  close the tag here, where the plugin honours that in the path only; other tags before it on
  the line are skipped, and tags after it read): ``./``/``../`` paths from the
  including file's folder, others from ``docs_dir``; the text ``start``/``end`` pick as the
  plugin's ``filter_inclusions`` does (:func:`~docmentor.sources.mkdocs_includes.between`; a
  delimiter not found is a warning), its includes (``recursive``), then ``dedent``,
  ``heading-offset`` (include-markdown) and ``preserve-includer-indent``. Tags in code
  blocks are read when the ``mkdocs.yml`` enables the plugin, as the plugin reads them;
  without that evidence (Jinja and mkdocs-macros write ``{% include %}`` too) only outside
  code. Globs and URLs are not expanded (a warning); ``comments`` and
  ``rewrite-relative-urls`` only change the rendered page.
* VitePress code snippet imports: ``<<< path#region{1,2 lang} [title]`` becomes a fenced code
  block of the file or of its ``#region`` (marker comment lines left out, dedented); ``@/`` is
  the docs root, any other path the page's folder's. Only outside code blocks.
* VitePress Markdown file inclusion, as VitePress reads it: a line ``<!--@include: path-->``
  (spaces around ``@include:`` allowed) gets the file's text, its own includes read;
  ``#name`` picks a VS Code region (marker lines left out), else the section under the
  heading of that anchor; ``{3,}`` / ``{,10}`` / ``{2,8}`` (or VuePress' ``{2-8}``) a
  1-based inclusive line range of that (out of bounds: a warning). A Markdown file's front
  matter is left out first, unless a range alone picks lines (they count it). ``@/`` and
  ``@`` are the docs root, any other path the page's folder's. In code blocks too (VitePress
  expands it before the page is parsed); not in the middle of a line.
* MDX partials (Docusaurus): a page that imports a Markdown file as a component
  (``import Setup from './_setup.mdx';``) and renders it on a line of its own
  (``<Setup />``) gets the file's text there, its front matter left out and its own
  partials read; not in code blocks.
* mdBook's ``{{#include path}}`` (``:3``, ``:3:10``, ``::10``, ``:3:``, ``:anchor``),
  ``{{#rustdoc_include …}}``, ``{{#playground path attrs}}``, ``{{#title …}}`` and the escaped
  ``\\{{#…}}``, anywhere on a line (what precedes the expression on its line is repeated on
  every included line, as mdBook does, within the page's size cap): paths from the including
  file's folder, the included text's own expressions (and no other form) read from its
  folder. In code blocks too (where books use them) when a ``book.toml`` is at or above the
  page (or up to two folders above the root); elsewhere only outside fenced code blocks and
  code spans. Their syntax and line picking live in ``docmentor.sources.mdbook_includes``.
* Sphinx ``.. literalinclude::`` and ``.. include::`` (reST files, ``{eval-rst}`` fences)
  and their MyST fence forms (```` ```{literalinclude} path ````). Their option parsing,
  filters and code-block rendering live in ``docmentor.sources.sphinx_includes``.

Where a target is, and whether it may be opened, is ``docmentor.sources.include_targets``; the
MkDocs forms' patterns and line slices are ``docmentor.sources.mkdocs_includes``.

Paths of ``{!…!}`` and ``{*…*}`` are resolved where MkDocs, run from the folder of
``mkdocs.yml``, resolves them: against the folder of the nearest ``mkdocs.yml`` at or above
the document inside the root (for ``{!…!}``, the ``base_path`` of its ``mdx_include`` or
``markdown_include.include`` first); then, failing that or without one, against the
document's folder, the base folders and the root. An absolute path (or ``~``) is refused.

Deviations from the tools, chosen for indexing: section markers (``--8<-- [start:x]``)
are dropped from every included text (``{*…*}`` code excepted), not only from extracted
sections, and (as pymdownx.snippets does) from a Markdown page's own lines; a target that cannot be read leaves the directive line in place and adds a
warning. markdown-include-variants' tab around the block, its "Full file preview" (the
same file again) and its "Other versions" tabs (the ``_py310`` / ``_an`` sibling files) are
not reproduced. An mdx_include slice's columns (``1.2-3.4``) are ignored: whole rows are
taken. No path is ever opened unless it resolves (symlinks included) inside the root or a
base folder.

What the includes of one source add is capped in total as well as per page: a scan passes
one :class:`IncludeBudget` to every document; once it is spent, further includes are left as
written and counted for one warning (``docmentor.sources.local`` sets the limit).
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from docmentor.parse.common import ATTR_LIST, attr_list_id, slugify
from docmentor.parse.fences import Fence, closes, code_spans, fence_open
from docmentor.parse.markdown import MARKDOWN_SUFFIXES, split_front_matter
from docmentor.parse.shown_code import comment_text
from docmentor.sources.include_targets import (
    SECTION_MARKER,
    At,
    IncludeBudget,
    IncludeCache,
    IncludeReader,
    section,
    split_lines,
    strip_markers,
)
from docmentor.sources.mdbook_includes import OPEN, Link, find_links, shown
from docmentor.sources.mkdocs_includes import (
    ABOVE,
    BELOW,
    HERE,
    MD_INCLUDE,
    PLUGIN_TAG_LINES,
    SNIPPET_BLOCK,
    SNIPPET_FILE,
    SNIPPET_INLINE,
    VARIANT_LN,
    PluginTag,
    between,
    heading_offset,
    parse_ln,
    parse_row_slice,
    plugin_tag,
    row_slice,
    tag_end,
    unescape,
    variants_line,
)
from docmentor.sources.sizes import human_size
from docmentor.sources.sphinx_includes import (
    OptionError,
    code_language,
    dedent_text,
    filter_lines,
    indent_text,
    markdown_code,
    myst_options,
    rst_code,
    rst_options,
)

logger = logging.getLogger(__name__)

Fmt = Literal["markdown", "rst"]
DEFAULT_MAX_BYTES = 5_000_000
_QUICK = (
    "8<",
    "{!",
    "{*",
    "{%",
    "include::",
    "include ::",  # docutils allows one space before a directive's colons
    "{literalinclude}",
    "{include}",
    "{eval-rst}",
    "<<<",
    "@include:",
    OPEN,  # mdBook's {{#include …}}
)
# an MDX page's partial (Docusaurus): `import Setup from './_setup.mdx';`, then `<Setup />`
_PARTIAL_IMPORT = re.compile(
    r"import[ \t]++([A-Z][\w$]*+)[ \t]++from[ \t]++(['\"])(\.\.?/[^'\"\n]++)\2[ \t]*+(?:;[ \t]*+)?"
)
_COMPONENT_LINE = re.compile(r"(?P<indent>[ \t]*+)<(?P<name>[A-Z][\w$]*+)[ \t]*/>[ \t]*")
# VitePress' code snippet import: `<<< @/snippets/a.js#region{1,2 ts:line-numbers} [title]`
# (`@/` the docs root, any other path the page's folder's); possessive parts: linear
_VITEPRESS = re.compile(
    r"(?P<indent>[ \t]*+)<<<[ \t]++(?P<path>[^\s#{\[]++)(?:#(?P<region>[\w-]++))?"
    r"(?:[ \t]*+\{(?P<opts>[^{}\n]*+)\})?(?:[ \t]*+\[[^\[\]\n]*+\])?[ \t]*+"
)
# VitePress' Markdown file inclusion: `<!--@include: ./parts/basics.md#usage{3,}-->` (a `-` in the
# path or region unless it starts the closing `-->`); possessive, disjoint alternatives: linear
_VITEPRESS_MD = re.compile(
    r"(?P<indent>[ \t]*+)<!--[ \t]*+@include:[ \t]*+(?P<path>(?:[^\s#{}<>-]++|-(?!->))++)"
    r"(?:#(?P<region>(?:[^\s#{}<>-]++|-(?!->))++))?"
    r"(?:\{[ \t]*+(?P<first>\d*+)[ \t]*+[,-][ \t]*+(?P<last>\d*+)[ \t]*+\})?[ \t]*+-->[ \t]*+"
)
# The argument is the rest of the line, stripped by :func:`_arg` (a lazy ``(.*?)[ \t]*$``
# was cubic on a line of spaces).
_RST_DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*+)\.\.[ \t]++(?P<name>literalinclude|include) ?::(?P<arg>.*)$"
)
_MYST_OPEN = re.compile(
    r"^(?P<indent>[ \t]*+)(?P<fence>`{3,}+|~{3,}+|:{3,}+)\{(?P<name>literalinclude|include|eval-rst)\}(?P<arg>.*)$"
)


def _arg(m: re.Match[str]) -> str:
    """A directive's argument: the rest of its line, without the spaces and tabs around it."""
    return m["arg"].strip(" \t")


@dataclass
class IncludeResult:
    """A document with its includes expanded.

    ``line_map[i]`` is the 1-based line of the original file that output line ``i + 1``
    came from; lines produced by an include map to the directive's line.
    """

    text: str
    line_map: list[int]
    warnings: list[str] = field(default_factory=list)
    included_files: list[Path] = field(default_factory=list)


@dataclass(slots=True)
class _Expander(IncludeReader):
    """Expands the include directives of one document (and, nested, of what it includes)."""

    def nested(self, lines: list[str], nums: list[int], target: Path, fmt: Fmt, at: At) -> list[str]:
        return self.expand(lines, nums, At(target, 0, at.depth + 1, (*at.stack, target)), fmt)[0]

    # -- the directive forms ----------------------------------------------------------

    def snippet(self, spec: str, at: At) -> list[str] | None:
        if self._remote(spec, at):
            return None
        m = SNIPPET_FILE.match(spec)
        if not m or not m["path"].strip():
            self.warn(at, f"include has no path: {spec}")
            return None
        opened = self.open(m["path"].strip(), at, "snippet")
        if opened is None:
            return None
        target, loaded = opened
        start = int(m["start"][1:]) if m["start"] and len(m["start"]) > 1 else None
        end = int(m["end"][1:]) if m["end"] and len(m["end"]) > 1 else None
        total = len(loaded.lines)
        if m["section"]:
            got = section(loaded, m["section"][1:])
            if got is None:
                self.warn(at, f"include section not found: {spec}")
                return None
            lines, nums = got
        else:
            lo = max(0, (start or 1) - 1)
            lines, nums = strip_markers(loaded, range(lo, total if end is None else min(end, total)))
        if self.dedent and (m["section"] or start is not None or end is not None):
            lines = dedent_text(lines)
        return self.nested(lines, nums, target, "markdown", at)

    def _remote(self, path: str, at: At) -> bool:
        """Whether ``path`` is a URL: never fetched, a warning says so."""
        if not path.lower().startswith(("http://", "https://")):
            return False
        self.warn(at, f"remote include not fetched: {path}")
        return True

    def md_include(self, m: re.Match[str], at: At) -> list[str] | None:
        """``{!…!}``: markdown-include's and mdx_include's forms (see the module doc)."""
        path, _, _encoding = m["body"].partition("|")  # an mdx_include path holds no "|"
        path = path.strip()
        spec: str | None = None
        if path.endswith("]") and (k := path.rfind("[ln:")) != -1:
            path, spec = path[:k].rstrip(), path[k + 4 : -1]
        if self._remote(path, at):
            return None
        parts = None if spec is None else parse_row_slice(spec)
        if spec is not None and parts is None:
            self.warn(at, f"include line slice not understood: [ln:{spec}]: {path}")
            return None
        opened = self.open(path, at, "mdx")
        if opened is None:
            return None
        target, loaded = opened
        if parts is not None:
            lines, nums = strip_markers(loaded, row_slice(len(loaded.lines), parts))
        else:
            lines, nums = strip_markers(loaded, range(len(loaded.lines)))
        if m["lines"]:
            picked: list[int] = []
            for part in m["lines"].split():
                first, _, last = part.partition("-")
                lo = int(first or 1)
                hi = int(last) if last else (len(lines) if part.endswith("-") else lo)
                picked.extend(range(max(lo, 1) - 1, min(hi, len(lines))))
            lines, nums = [lines[k] for k in picked], [nums[k] for k in picked]
        if m["recurse"] == "-":
            return lines
        return self.nested(lines, nums, target, "markdown", at)

    def variants(self, path: str, options: str, indent: str, at: At) -> list[str] | None:
        """``{* path ln[…] hl[…] *}``: the file as a code block, ``ln`` ranges joined by the
        plugin's omission lines (``hl`` and ``title`` only style the block)."""
        ranges: list[tuple[int, int]] = []
        for m in VARIANT_LN.finditer(options):
            got = parse_ln(m["value"])
            if got is None:
                self.warn(at, f"include line range not understood: ln[{m['value'][:80]}]: {path}")
                return None
            ranges.extend(got)
        ranges.sort()
        opened = self.open(path, at, "variants", check_cycle=False)
        if opened is None:
            return None
        target, loaded = opened
        code = list(loaded.lines)
        if ranges and ranges != [(0, 0)]:  # ln[0]: the plugin shows only the whole file
            picked: list[str] = []
            for k, (first, last) in enumerate(ranges):
                if k == 0 and first > 1:
                    picked += [ABOVE, ""]
                if k:
                    picked += ["", HERE, ""]
                picked += code[max(first, 1) - 1 : last]
            if ranges[-1][1] < len(code):
                picked += ["", BELOW]
            code = picked
        return markdown_code(code, code_language({}, target), indent)

    def partial(self, path: str, at: At) -> list[str] | None:
        """An MDX partial a page imports and renders (``<Setup />``): its text, front matter
        left out, its own includes read (a cycle refused)."""
        opened = self.open(path, at, "plugin")  # ./ and ../: the page's folder only
        if opened is None:
            return None
        target, loaded = opened
        lines, nums = strip_markers(loaded, range(len(loaded.lines)))
        _, skip = split_front_matter(lines)
        return self.nested(lines[skip:], nums[skip:], target, "markdown", at)

    def vitepress(self, m: re.Match[str], at: At) -> list[str] | None:
        """``<<< path#region{… lang} [title]``: the file, or its region, as a code block."""
        path = m["path"]
        if self._remote(path, at):
            return None
        # `@/` is the docs root; a plain path is the page's folder's, as VitePress reads it
        raw = (
            "/" + path[2:]
            if path.startswith("@/")
            else path
            if path.startswith(("./", "../"))
            else "./" + path
        )
        opened = self.open(raw, at, "snippet", check_cycle=False)
        if opened is None:
            return None
        target, loaded = opened
        code = list(loaded.lines)
        if m["region"]:
            got = _region(code, m["region"])
            if got is None:
                self.warn(at, f"include region not found: #{m['region']}: {path}")
                return None
            code = dedent_text(got)
        words = [w for w in (m["opts"] or "").split() if not w[0].isdigit()]
        lang = words[0].split(":")[0] if words else ""
        return markdown_code(code, lang or code_language({}, target), m["indent"])

    def vitepress_page(self, m: re.Match[str], at: At) -> list[str] | None:
        """``<!--@include: path#region{a,b}-->``, as VitePress reads it: the file's text, or
        its ``#region`` (else the section under the heading of that anchor), then lines
        ``{a,b}`` of that (1-based, inclusive); a Markdown file's front matter is left out
        first unless a range alone picks lines (they count it); its own includes read (a
        cycle refused)."""
        path = m["path"]
        if self._remote(path, at):
            return None
        # `@/x` and `@x` are the docs root's; any other path is the page's folder's
        raw = (
            "/" + path[1:].lstrip("/\\")
            if path.startswith("@")
            else path
            if path.startswith(("./", "../"))
            else "./" + path
        )
        opened = self.open(raw, at, "snippet")
        if opened is None:
            return None
        target, loaded = opened
        lines, nums = strip_markers(loaded, range(len(loaded.lines)))
        ranged = bool(m["first"] or m["last"])
        if target.suffix.lower() in MARKDOWN_SUFFIXES and (m["region"] or not ranged):
            _, skip = split_front_matter(lines)
            lines, nums = lines[skip:], nums[skip:]
        if m["region"]:
            picked = _region_at(lines, m["region"])
            if picked is None:
                picked = _heading_section(lines, m["region"])
            if picked is None:
                self.warn(at, f"include region or heading not found: #{m['region']}: {path}")
                return None
            lines, nums = [lines[k] for k in picked], [nums[k] for k in picked]
        if ranged:
            first = int(m["first"]) if m["first"] else 1
            last = int(m["last"]) if m["last"] else len(lines)
            if first < 1 or last < first or last > len(lines):
                self.warn(
                    at,
                    f"include range {{{m['first']},{m['last']}}} is out of bounds ({len(lines)} lines): {path}",
                )
                return None
            lines, nums = lines[first - 1 : last], nums[first - 1 : last]
        return indent_text(self.nested(list(lines), list(nums), target, "markdown", at), m["indent"])

    def mdbook(self, link: Link, text: str, at: At) -> list[str] | None:
        """One mdBook expression (``text``): the lines it shows, nested expressions read from
        the included file's folder; None leaves it as written (a warning says why)."""
        if link.kind == "escaped":
            return [text[1:]]
        if link.kind == "title":
            return []  # the browser's title: nothing on the page
        if self._remote(link.path if link.spec is None else f"{link.path}:{link.spec}", at):
            return None
        opened = self.open(link.path, at, "mdbook")
        if opened is None:
            return None
        target, loaded = opened
        picked = shown(loaded.lines, link.spec, every=link.kind == "rustdoc_include")
        if picked is None:
            self.warn(at, f"include anchor not found: {link.spec}: {link.path}")
            return []  # mdBook shows nothing
        lines = [loaded.lines[k] for k in picked]
        got = self._book_nested(lines, [k + 1 for k in picked], target, at)
        if link.kind == "playground":
            return markdown_code(got, ",".join(("rust", *link.attrs)), "")
        return got

    def directive(
        self, name: str, arg: str, opts: dict[str, str], indent: str, fmt: Fmt, at: At
    ) -> list[str] | None:
        """Sphinx/MyST ``literalinclude`` or ``include``, rendered in ``fmt``."""
        literal = name == "literalinclude" or "literal" in opts or "code" in opts
        opened = self.open(arg, at, "sphinx", check_cycle=not literal)
        if opened is None:
            return None
        target, loaded = opened
        # Literal text is shown as is; an included document loses its section markers.
        if literal:
            kept, nums = list(loaded.lines), list(range(1, len(loaded.lines) + 1))
        else:
            kept, nums = strip_markers(loaded, range(len(loaded.lines)))
        try:
            lines = filter_lines(kept, opts)
        except OptionError as exc:
            self.warn(at, f"{name} {arg}: {exc}")
            return None
        if literal:
            if fmt == "rst":
                return rst_code(lines, code_language(opts, target), indent, opts.get("caption"))
            return markdown_code(lines, code_language(opts, target), indent)
        if lines != kept:  # filtered: number nested warnings by position in the kept text
            nums = list(range(1, len(lines) + 1))
        return indent_text(self.nested(lines, nums, target, fmt, at), indent)

    def plugin(self, tag: PluginTag, indent: str, at: At) -> list[str] | None:
        """``{% include-markdown … %}`` / ``{% include … %}`` (mkdocs-include-markdown-plugin):
        the file (``./``/``../`` paths from the including file's folder, others from
        ``docs_dir``), the text its ``start`` and ``end`` delimiters pick (:func:`between`), its
        own includes (``recursive``), then ``dedent`` and ``heading-offset``
        (include-markdown), and ``preserve-includer-indent``, as the plugin does them."""
        path = tag.path
        if self._remote(path, at):
            return None
        if any(c in path for c in "*?["):
            self.warn(at, f"include of several files (a glob) not expanded: {path}")
            return None
        opened = self.open(path, at, "plugin")
        if opened is None:
            return None
        target, loaded = opened
        lines, nums = strip_markers(loaded, range(len(loaded.lines)))
        start, end = (unescape(tag.args[k]) if tag.args.get(k) else None for k in ("start", "end"))
        text = "\n".join(lines)
        spans, missing = between(text, start, end)
        for what in missing:
            self.warn(at, f"{tag.name} {path}: {what} not found")
        kept, kept_nums = _picked(text, lines, nums, spans)
        if tag.args.get("recursive", "true").lower() != "false":
            kept = self.nested(kept, kept_nums, target, "markdown", at)
        if tag.args.get("dedent", "false").lower() == "true":
            kept = dedent_text(kept)
        offset = tag.args.get("heading-offset", "0")
        if tag.name == "include-markdown" and offset.lstrip("-").isdigit():
            kept = heading_offset(kept, int(offset))
        if tag.args.get("preserve-includer-indent", "true").lower() == "false":
            return kept
        return [(indent + line) if line.strip() else line for line in kept]

    # -- the line loop ----------------------------------------------------------------

    def expand(
        self, lines: Sequence[str], nums: Sequence[int], doc: At, fmt: Fmt
    ) -> tuple[list[str], list[int]]:
        """Expand ``lines`` of ``doc.file`` (numbered ``nums``); also return each output line's source."""
        out: list[str] = []
        src: list[int] = []
        eval_rst: Fence | None = None  # an open {eval-rst} fence
        # Jinja-style tags are read outside code blocks only (a template shown in a fence is
        # an example, not a directive): fences are followed where a page has such a tag
        tags = fmt == "markdown" and any("{%" in x for x in lines)
        snippets = fmt == "markdown" and any("<<<" in x for x in lines)  # VitePress' imports
        partials = _partials(lines) if fmt == "markdown" else {}
        # with the plugin enabled in mkdocs.yml, a tag is read in code blocks too (as the plugin
        # reads it: a fenced ```yaml block that includes a file); without, only outside them
        everywhere = tags and self.include_markdown_plugin(doc.file)
        # a pasted SVG file is an image outside code (a diagram), its source inside a fence:
        # code blocks are followed on pages that paste files
        pastes = fmt == "markdown" and any("8<" in x or "{!" in x for x in lines)
        # mdBook's expressions: in code blocks too where a book.toml says the page is a book's
        books = fmt == "markdown" and any(OPEN in x for x in lines)
        book = books and self.in_book(doc.file)
        code: Fence | None = None
        i, n = 0, len(lines)
        while i < n:
            line = lines[i]
            if eval_rst is not None and closes(line, eval_rst, any_indent=True):
                eval_rst = None
            if tags or snippets or partials or pastes or books:
                code = _fence_after(line, code)
            if not any(q in line for q in _QUICK) and not (partials and "/>" in line):
                out.append(line)
                src.append(nums[i])
                i += 1
                continue
            at = doc._replace(num=nums[i])
            got: list[str] | None = None
            consumed = 1
            if fmt == "markdown" and eval_rst is None and "8<" in line:
                if m := SNIPPET_INLINE.match(line):
                    if m["escape"]:
                        got = [line.replace(";", "", 1)]
                    elif (inc := self.snippet(m["target"][1:-1].strip(), at)) is not None:
                        got = _unless_picture(indent_text(inc, m["space"]), code)
                elif SNIPPET_BLOCK.match(line):
                    got, consumed = self._block(lines, nums, i, doc)
                    got = _unless_picture(got, code)
                elif (mark := SECTION_MARKER.search(line)) is not None and _marker_line(line, mark):
                    # a line that is only a section marker (in a comment or not) is dropped from
                    # the page too, as pymdownx.snippets renders it; an escaped one loses its ``;``
                    cut = mark.start("escape")
                    got = [line[:cut] + line[cut + 1 :]] if mark["escape"] else []
            elif (fmt == "rst" or eval_rst) and (m := _RST_DIRECTIVE.match(line)):
                got, consumed = self._rst(lines, i, m, fmt if eval_rst is None else "rst", at)
            elif fmt == "markdown" and (m := _MYST_OPEN.match(line)):
                if m["name"] == "eval-rst":
                    eval_rst = Fence(m["fence"][0], len(m["fence"]), m["indent"], "{eval-rst}")
                else:
                    got, consumed = self._myst(lines, i, m, at)
            elif fmt == "markdown" and eval_rst is None and "{*" in line and (v := variants_line(line)):
                got = self.variants(*v, at)
            elif (
                fmt == "markdown"
                and eval_rst is None
                and ("{!" in line or "@include:" in line or (books and OPEN in line))
            ):
                got = self._line_include(line, at, code, book)
            if got is None and consumed == 1 and code is None and eval_rst is None and (snippets or partials):
                got = self._site_line(line, at, partials)  # after the line forms: `{{ x }}` is no include
            if got is None and tags and (code is None or everywhere) and eval_rst is None and "{%" in line:
                got, consumed = self._tag(lines, i, at)
            if got is None:
                out.extend(lines[i : i + consumed])
                src.extend(nums[i : i + consumed])
            else:
                out.extend(got)
                src.extend([nums[i]] * len(got))
                if self.budget is not None and doc.depth == 0:  # what the document grew by
                    grown = sum(len(x) + 1 for x in got) - sum(len(x) + 1 for x in lines[i : i + consumed])
                    self.budget.used += max(grown, 0)
            i += consumed
        return out, src

    def _line_include(self, line: str, at: At, code: Fence | None, book: bool) -> list[str] | None:
        """A line that is VitePress' ``<!--@include: …-->`` (read in code blocks too, as
        VitePress expands it before parsing), or holds ``{!…!}`` includes, or mdBook
        expressions (anywhere in a ``book``; elsewhere outside code blocks and code spans)."""
        if "@include:" in line and (m := _VITEPRESS_MD.fullmatch(line)):
            return self.vitepress_page(m, at)
        if "{!" in line and (got := _unless_picture(self._md_line(line, at), code)) is not None:
            return got
        if OPEN in line and (book or code is None) and (links := find_links(line)):
            if not book and "`" in line:
                links = _outside_code_spans(line, links)
            return self._book_line(line, links, at) if links else None
        return None

    def _book_line(self, line: str, links: Sequence[Link], at: At) -> list[str] | None:
        """A line with mdBook expressions, each replaced by what it shows; as mdBook does, the
        text before an expression on its line starts every line it adds (that repeated text
        counts toward the page's size cap: an expression after a long line is left as
        written). None: none read. Pieces are joined once per line: linear in what is made."""
        done: list[str] = []
        cur: list[str] = []  # the pieces of the line being built
        pos = 0
        changed = False
        for link in links:
            before = line[pos : link.start]
            text = line[link.start : link.end]
            got = self.mdbook(link, text, at)
            if got is not None and len(got) > 1:
                prefix = "".join([*cur, before])
                repeated = len(prefix) * (len(got) - 1)
                if repeated and self.pulled + repeated > self.max_bytes:
                    self.warn(
                        at,
                        "include refused: the page would grow over the size cap of "
                        f"{human_size(self.max_bytes)}: {text}",
                    )
                    got = None
                else:
                    self.pulled += repeated
                    done += ["".join([prefix, got[0]]), *(prefix + x for x in got[1:-1])]
                    cur = [prefix + got[-1]]
            elif got is not None:
                cur += [before, *got]
            if got is None:
                cur += [before, text]
            changed = changed or got is not None
            pos = link.end
        cur.append(line[pos:])
        return [*done, "".join(cur)] if changed else None

    def _book_nested(self, lines: list[str], nums: list[int], target: Path, at: At) -> list[str]:
        """Included text with its own mdBook expressions read (from its folder), and no other
        form: mdBook runs only its links preprocessor on what it includes."""
        doc = At(target, 0, at.depth + 1, (*at.stack, target))
        out: list[str] = []
        for line, num in zip(lines, nums, strict=True):
            links = find_links(line) if OPEN in line else []
            got = self._book_line(line, links, doc._replace(num=num)) if links else None
            out.extend([line] if got is None else got)
        return out

    def _site_line(self, line: str, at: At, partials: dict[str, str]) -> list[str] | None:
        """A line a site generator expands, outside code: VitePress' ``<<< path``, or an MDX
        partial the page imports rendered as ``<Name />``."""
        if "<<<" in line and (m := _VITEPRESS.fullmatch(line)):
            return self.vitepress(m, at)
        if partials and (c := _COMPONENT_LINE.fullmatch(line)) and c["name"] in partials:
            inc = self.partial(partials[c["name"]], at)
            return None if inc is None else indent_text(inc, c["indent"])
        return None

    def _tag(self, lines: Sequence[str], i: int, at: At) -> tuple[list[str] | None, int]:
        """A ``{% … %}`` tag that opens on line ``i`` and closes (outside quotes) within
        :data:`PLUGIN_TAG_LINES` lines: its include, the text before and after it kept (a
        further tag after it on that line expanded too), and the lines it took."""
        line = lines[i]
        open_at = line.find("{%")
        while True:  # the first tag on the line that is an include (`{% if x %}{% include … %}`)
            j = i
            close, quote = tag_end(line, open_at + 2)
            while close < 0:
                j += 1
                if j >= len(lines) or j - i >= PLUGIN_TAG_LINES:
                    return None, 1
                close, quote = tag_end(lines[j], 0, quote)
            if j == i:
                inner = line[open_at + 2 : close]
            else:
                inner = "\n".join([line[open_at + 2 :], *lines[i + 1 : j], lines[j][:close]])
            tag = plugin_tag(inner)
            if tag is not None:
                break
            if j > i or (open_at := line.find("{%", close + 2)) < 0:
                return None, 1
        before, after = line[:open_at], lines[j][close + 2 :]
        indent = before[: len(before) - len(before.lstrip())]
        got = self.plugin(tag, indent, at)
        if got is None:
            return None, j - i + 1
        got = got or [""]
        got[0] = before + (got[0][len(indent) :] if got[0].startswith(indent) else got[0])
        if "{%" in after and (more := self._tag([after], 0, at)[0]) is not None:
            got[-1] += more[0]
            got.extend(more[1:])
        else:
            got[-1] += after
        return got, j - i + 1

    def _block(
        self, lines: Sequence[str], nums: Sequence[int], i: int, doc: At
    ) -> tuple[list[str] | None, int]:
        if lines[i].lstrip().startswith(";"):
            return [lines[i].replace(";", "", 1)], 1
        close = None
        for j in range(i + 1, len(lines)):
            if "8<" in lines[j] and (c := SNIPPET_BLOCK.match(lines[j])) and not c["escape"]:
                close = j
                break
        if close is None:  # an unclosed marker is text, not a block eating the document
            return None, 1
        got: list[str] = []
        for j in range(i + 1, close):
            spec = lines[j].strip()
            if not spec:
                got.append("")
                continue
            if spec.startswith(";"):
                continue
            if spec[0] in "\"'" and spec[-1] == spec[0] and len(spec) > 1:
                spec = spec[1:-1]
            inc = self.snippet(spec, doc._replace(num=nums[j]))
            space = lines[j][: len(lines[j]) - len(lines[j].lstrip())]
            got.extend(indent_text(inc, space) if inc is not None else [lines[j]])
        return got, close - i + 1

    def _md_line(self, line: str, at: At) -> list[str] | None:
        matches = [m for m in MD_INCLUDE.finditer(line) if not m["escape"] and m["body"].strip()]
        if not matches:
            return None
        first = matches[0]
        if len(matches) == 1 and not line[: first.start()].strip() and not line[first.end() :].strip():
            inc = self.md_include(first, at)
            return None if inc is None else indent_text(inc, line[: first.start()])
        done: list[str] = []  # the lines finished, then the pieces of the line being built
        cur: list[str] = []  # (pieces joined once: a line of many includes stays linear)
        pos = 0
        changed = False
        for m in matches:
            before = line[pos : m.start()]
            inc = self.md_include(m, at)
            if inc is None:
                cur += [before, m[0]]
            elif m["apply"] and m is first and inc:  # {!> …!}: what precedes it, on every line
                lines = indent_text(inc, before) if not before.strip() else [before + x for x in inc]
                done, cur = lines[:-1], [lines[-1]]
            else:
                cur += [before, inc[0] if inc else ""]
                if len(inc) > 1:
                    done += ["".join(cur), *inc[1:-1]]
                    cur = [inc[-1]]
            changed = changed or inc is not None
            pos = m.end()
        cur.append(line[pos:])
        out = [*done, "".join(cur)]
        return out if changed else None

    def _rst(
        self, lines: Sequence[str], i: int, m: re.Match[str], fmt: Fmt, at: At
    ) -> tuple[list[str] | None, int]:
        indent = m["indent"]
        opts, j = rst_options(lines, i + 1, indent)
        arg = _arg(m)
        if not arg or arg.startswith("<"):  # docutils' standard includes: nothing to read
            return None, j - i
        return self.directive(m["name"], arg, opts, indent, fmt, at), j - i

    def _myst(self, lines: Sequence[str], i: int, m: re.Match[str], at: At) -> tuple[list[str] | None, int]:
        fence = Fence(m["fence"][0], len(m["fence"]), m["indent"], m["name"])
        close = next((j for j in range(i + 1, len(lines)) if closes(lines[j], fence, any_indent=True)), None)
        if close is None or not _arg(m):
            return None, 1
        opts = myst_options(lines[i + 1 : close])
        return self.directive(m["name"], _arg(m), opts, m["indent"], "markdown", at), close - i + 1


def _picked(
    text: str, lines: Sequence[str], nums: Sequence[int], spans: Sequence[tuple[int, int]]
) -> tuple[list[str], list[int]]:
    """The text of ``spans`` of ``text`` (``"\\n".join(lines)``), joined, as lines, each
    numbered by the line its first character comes from (a bisection per line: linear)."""
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    pieces = [(a, b) for a, b in spans if b > a]
    if not pieces:
        return [""], [nums[0] if nums else 1]
    joined = "".join(text[a:b] for a, b in pieces)
    begins: list[int] = []  # where each piece begins in the joined text
    at = 0
    for a, b in pieces:
        begins.append(at)
        at += b - a
    out = joined.split("\n")
    out_nums: list[int] = []
    at = 0
    for line in out:
        k = bisect.bisect_right(begins, at) - 1
        source = pieces[k][0] + (at - begins[k])
        row = bisect.bisect_right(starts, source) - 1
        out_nums.append(nums[min(max(row, 0), len(nums) - 1)] if nums else 1)
        at += len(line) + 1
    return out, out_nums


def _outside_code_spans(line: str, links: Sequence[Link]) -> list[Link]:
    """The ``links`` of ``line`` that no code span holds (a page showing `` `{{#include a}}` ``)."""
    spans: list[tuple[int, int]] = []
    at = 0
    for piece, code in code_spans(line):
        if code:
            spans.append((at, at + len(piece)))
        at += len(piece)
    k = 0
    kept: list[Link] = []
    for link in links:  # both in order: one pass
        while k < len(spans) and spans[k][1] <= link.start:
            k += 1
        if k == len(spans) or link.end <= spans[k][0]:
            kept.append(link)
    return kept


def _partials(lines: Sequence[str]) -> dict[str, str]:
    """The Markdown files a page imports as components, outside its code blocks: name → path
    (``import Setup from './_setup.mdx';``)."""
    found: dict[str, str] = {}
    fence: Fence | None = None
    for line in lines:
        fence = _fence_after(line, fence)
        m = _PARTIAL_IMPORT.fullmatch(line) if fence is None and line.startswith("import") else None
        if m is not None and m[3].endswith((".md", ".mdx")):
            found[m[1]] = m[3]
    return found


def _region_at(lines: Sequence[str], name: str) -> list[int] | None:
    """The indices of the lines :func:`_region` picks (None when the region is not there)."""
    start = next((k for k, line in enumerate(lines) if _marker(line) == ("region", name)), None)
    if start is None:
        return None
    depth, out = 0, []
    for k in range(start + 1, len(lines)):
        mark = _marker(lines[k])
        if mark is None:
            out.append(k)
        elif mark[0] == "region":
            depth += 1
        elif mark[1] == name or (not mark[1] and depth == 0):
            break
        else:
            depth = max(depth - 1, 0)
    return out


def _heading_section(lines: Sequence[str], anchor: str) -> list[int] | None:
    """The indices of the lines under the heading whose anchor is ``anchor`` (its ``{#id}``,
    else its slug), to the next heading of its level or above, outside code blocks: where
    VitePress looks when no region has the name. None when no heading has it."""
    fence: Fence | None = None
    heads: list[tuple[int, int, str]] = []  # (index, level, anchor)
    for k, line in enumerate(lines):
        fence = _fence_after(line, fence)
        if fence is not None or not line.startswith("#"):
            continue
        level = len(line) - len(line.lstrip("#"))
        if level > 6 or (len(line) > level and line[level] not in " \t"):
            continue
        text = line[level:].strip()
        attrs = ATTR_LIST.search(text)
        given = attr_list_id(attrs.group(0)) if attrs is not None else None
        heads.append((k, level, given or slugify(ATTR_LIST.sub("", text))))
    for n, (k, level, name) in enumerate(heads):
        if name == anchor:
            end = next((j for j, lv, _ in heads[n + 1 :] if lv <= level), len(lines))
            return list(range(k + 1, end))
    return None


def _region(lines: list[str], name: str) -> list[str] | None:
    """The lines between ``#region name`` and ``#endregion name`` marker comments (``//``,
    ``#``, ``/* … */``, ``<!-- … -->``), as VitePress picks a snippet's region: a bare
    ``#endregion`` closes it too, and nested regions' marker lines are left out; None when
    the region is not there."""
    picked = _region_at(lines, name)
    return None if picked is None else [lines[k] for k in picked]


def _marker(line: str) -> tuple[str, str] | None:
    """``("region", name)`` or ``("endregion", name)`` for a region marker comment line."""
    text = comment_text(line)
    if text is None:
        return None
    word, _, name = text.lstrip("#").partition(" ")
    return (word, name.strip()) if word in ("region", "endregion") else None


def _fence_after(line: str, fence: Fence | None) -> Fence | None:
    """The code fence open after ``line`` (``fence``: the one open before it)."""
    if fence is None:
        return fence_open(line, any_indent=True)
    return None if closes(line, fence, any_indent=True) else fence


# what may stand around a section marker on a line of its own: comment delimiters
_MARKER_FRAME = frozenset("#/*<!->;{}% \t")


def _marker_line(line: str, mark: re.Match[str]) -> bool:
    """Whether ``line`` holds nothing but the marker and comment delimiters (``# --8<--
    [start:x]``, ``<!-- --8<-- [end:x] -->``): prose that mentions a marker stays."""
    return set(line[: mark.start()]) <= _MARKER_FRAME and set(line[mark.end() :]) <= _MARKER_FRAME


def resolve_includes(
    text: str,
    *,
    path: Path,
    root: Path,
    base_dirs: Sequence[Path] = (),
    fmt: Fmt = "markdown",
    max_depth: int = 10,
    max_bytes: int = DEFAULT_MAX_BYTES,
    cache: IncludeCache | None = None,
    dedent_subsections: bool = True,
    budget: IncludeBudget | None = None,
) -> IncludeResult:
    """Expand the include directives of one document.

    Args:
        text: The document's text.
        path: The document's file (absolute, or relative to ``root``); relative include
            paths and warnings are based on it.
        root: The docs root. No file outside it (or ``base_dirs``) is ever opened.
        base_dirs: Extra folders snippet paths are resolved against (MkDocs ``base_path``),
            tried before ``root``.
        fmt: ``"markdown"`` (snippets, ``{!…!}``, ``{*…*}``, MyST fences, ``{eval-rst}``) or ``"rst"``.
        max_depth: How deep nested includes are followed.
        max_bytes: Include targets larger than this are refused.
        cache: Shares read files between documents of one scan.
        dedent_subsections: Dedent sections and line ranges before re-indenting
            (pymdownx ``dedent_subsections``).
        budget: What the includes of the whole source may still add (shared by the
            documents of one scan); includes past it are left as written, counted in it.

    Returns:
        The expanded text, its line map, the warnings and the files read.
    """
    lines, trailing = split_lines(text)
    identity = list(range(1, len(lines) + 1))
    if not any(q in text for q in _QUICK) and not (
        "import" in text and "/>" in text
    ):  # no MDX partial either
        return IncludeResult("\n".join(lines) + ("\n" if trailing else ""), identity)
    shown_root = root.absolute()
    real_root = root.resolve()
    bases = tuple(dict.fromkeys(b.resolve() for b in base_dirs))
    file = path if path.is_absolute() else shown_root / path
    expander = _Expander(
        root=real_root,
        shown_root=shown_root,
        allowed=(real_root, *bases),
        base_dirs=bases,
        max_depth=max_depth,
        max_bytes=max_bytes,
        dedent=dedent_subsections,
        cache=cache if cache is not None else IncludeCache(),
        budget=budget,
        pulled=len(text),  # the page's own text counts toward its cap (a tour: 7.4 MB stored under 5 MB)
    )
    out, line_map = expander.expand(lines, identity, At(file, 0, 0, (file.resolve(),)), fmt)
    for warning in expander.warnings:
        logger.debug("%s", warning)
    return IncludeResult(
        text="\n".join(out) + ("\n" if trailing and out else ""),
        line_map=line_map,
        warnings=expander.warnings,
        included_files=list(expander.included),
    )


def _unless_picture(got: list[str] | None, code: Fence | None) -> list[str] | None:
    """What an include pasted, or nothing when it is an SVG picture outside a code block: the
    page shows an image, its markup is no text of the page."""
    return [] if got and code is None and svg_image(got) else got


def svg_image(lines: Sequence[str]) -> bool:
    """Whether pasted lines are an SVG document (``<svg …>``, after an XML declaration, a
    doctype or comments): a diagram or screenshot the page shows as a picture. Excalidraw's
    embed their fonts: one of Textual's guide pages grew from 34 KB to 509 KB of markup."""
    for line in lines[:20]:
        text = line.lstrip()
        if not text:
            continue
        if text[:4].lower() == "<svg" and text[4:5] in ("", " ", "\t", ">", "\r"):
            return True
        if not text.startswith(("<?xml", "<!")):
            return False
    return False
