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
* Sphinx ``.. literalinclude::`` and ``.. include::`` (reST files, ``{eval-rst}`` fences)
  and their MyST fence forms (```` ```{literalinclude} path ````). Their option parsing,
  filters and code-block rendering live in ``docmentor.sources.sphinx_includes``.

Paths of ``{!…!}`` and ``{*…*}`` are resolved where MkDocs, run from the folder of
``mkdocs.yml``, resolves them: against the folder of the nearest ``mkdocs.yml`` at or above
the document inside the root (for ``{!…!}``, the ``base_path`` of its ``mdx_include`` or
``markdown_include.include`` first); then, failing that or without one, against the
document's folder, the base folders and the root. An absolute path (or ``~``) is refused.

Deviations from the tools, chosen for indexing: section markers (``--8<-- [start:x]``)
are dropped from every included text (``{*…*}`` code excepted), not only from extracted
sections; a target that cannot be read leaves the directive line in place and adds a
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

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from docmentor._yaml import load_yaml
from docmentor.parse.fences import Fence, closes
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
_QUICK = ("8<", "{!", "{*", "include::", "{literalinclude}", "{include}", "{eval-rst}")
_MKDOCS_NAMES = ("mkdocs.yml", "mkdocs.yaml")
_INCLUDE_EXTENSIONS = ("mdx_include", "markdown_include.include")

_SNIPPET_INLINE = re.compile(
    r"""^(?P<space>[ \t]*)(?P<escape>;*)-+8<-+[ \t]+"""
    r"""(?P<target>"(?:\\"|[^"])+?"|'(?:\\'|[^'])+?')[ \t]*$"""
)
_SNIPPET_BLOCK = re.compile(r"^[ \t]*(?P<escape>;*)-+8<-+[ \t]*$")
# Every pattern here reads the user's (or a repository's) text, so each runs in linear time on
# any line. Searched (not matched from ^ with a lazy prefix, which is quadratic on long lines
# of dashes): the dashes before 8< are bounded so a backtrack cannot run away, and a match
# starts only where a run of ``;`` starts (from inside the run it was quadratic on ``;;;…``).
_SECTION_MARKER = re.compile(
    r"(?<!;)(?P<escape>;*+)-{1,32}8<-+[ \t]+\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*"
    r"(?P<name>[a-z][-_0-9a-z]*)[ \t]*\]",
    re.IGNORECASE,
)
_SNIPPET_FILE = re.compile(
    r"^(?P<path>.*?)(?:(?P<start>:[0-9]*)?(?P<end>:[0-9]*)?|(?P<section>:[a-z][-_0-9a-z]*)?)$",
    re.IGNORECASE,
)
# markdown-include and mdx_include. Linear on any line: the body stops at the first ``!``,
# ``{`` or ``}``, so the text scanned from one ``{!`` never holds another one.
_MD_INCLUDE = re.compile(
    r"(?P<escape>\\?)\{!(?P<recurse>[+-]?)(?P<apply>>?)(?P<body>[^!{}\n]*)"
    r"!(?:lines=(?P<lines>[0-9 -]+))?\}"
)
# markdown-include-variants' ``ln[…]`` option; the value stops at the next bracket.
_VARIANT_LN = re.compile(r"\bln\[(?P<value>[^\[\]]*)\]")
_ABOVE, _HERE, _BELOW = "# Code above omitted 👆", "# Code here omitted 👈", "# Code below omitted 👇"
# The argument is the rest of the line, stripped by :func:`_arg` (a lazy ``(.*?)[ \t]*$``
# was cubic on a line of spaces).
_RST_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*+)\.\.[ \t]++(?P<name>literalinclude|include)::(?P<arg>.*)$")
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


@dataclass
class IncludeBudget:
    """What the includes of one source may add to its documents, all documents together.

    The size cap of one page does not stop one large snippet included by many pages (a
    2 MB file included by 60 pages stored 122 MB). Once ``limit`` characters have been
    added, further includes are left as written (the directive line stays in the page)
    and counted here, for one warning per source.
    """

    limit: int
    used: int = 0  # characters the includes added so far
    refused: int = 0  # includes left as written because the budget was spent
    documents: dict[str, None] = field(default_factory=dict)  # documents with such an include
    first: str | None = None  # where the first one is ("path:line: target")

    def spent(self) -> bool:
        return self.used >= self.limit

    def refuse(self, document: str, where: str) -> None:
        self.refused += 1
        self.documents.setdefault(document, None)
        if self.first is None:
            self.first = where


@dataclass(frozen=True, slots=True)
class _Loaded:
    lines: tuple[str, ...]
    markers: dict[int, tuple[str, str, bool]]  # line index -> (start|end, name, escaped)
    replaced: bool  # decoded with replacement characters


@dataclass(frozen=True, slots=True)
class _MkDocs:
    """The folder of an ``mkdocs.yml`` and the folders its ``{!…!}`` paths start from."""

    folder: Path
    include_bases: tuple[Path, ...]


class IncludeCache:
    """Include targets read (and paths resolved) once, shared by all documents of a scan."""

    def __init__(self) -> None:
        self._files: dict[tuple[Path, int], _Loaded | str] = {}
        self.paths: dict[tuple[str, str, Path], Path | str] = {}
        self.conf_dirs: dict[Path, Path | None] = {}
        self.mkdocs: dict[Path, _MkDocs | None] = {}

    def load(self, path: Path, max_bytes: int) -> _Loaded | str:
        """The decoded lines of ``path``, or the reason it cannot be included."""
        key = (path, max_bytes)
        if key not in self._files:
            self._files[key] = _load(path, max_bytes)
        return self._files[key]


def _load(path: Path, max_bytes: int) -> _Loaded | str:
    try:
        if path.stat().st_size > max_bytes:
            return f"over the size cap of {max_bytes / 1e6:.1f} MB"
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read ({exc.strerror or exc})"
    if b"\0" in data:
        return "binary file"
    replaced = False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text, replaced = data.decode("utf-8", errors="replace"), True
    lines, _ = split_lines(text.removeprefix("\ufeff"))
    markers: dict[int, tuple[str, str, bool]] = {}
    for idx, line in enumerate(lines):
        if "8<" in line and (m := _SECTION_MARKER.search(line)):
            markers[idx] = (m["type"].lower(), m["name"], bool(m["escape"]))
    return _Loaded(tuple(lines), markers, replaced)


def _mkdocs_include_bases(config_file: Path, folder: Path, max_bytes: int) -> tuple[Path, ...]:
    """The ``base_path`` folders of ``mdx_include`` / ``markdown_include.include`` in an
    ``mkdocs.yml`` (relative to its folder, where MkDocs runs; default ``.``), then its folder."""
    from docmentor.sources.local import markdown_extensions  # local imports this module

    found: dict[Path, None] = {}
    try:
        if config_file.stat().st_size <= max_bytes:
            config = load_yaml(config_file.read_text(encoding="utf-8", errors="replace"))
            for name, conf in markdown_extensions(config):
                if name in _INCLUDE_EXTENSIONS:
                    raw = conf.get("base_path", ".")
                    for base in raw if isinstance(raw, list) else [raw]:
                        if isinstance(base, str) and base.strip():
                            found.setdefault(folder / base.strip(), None)
    except OSError as exc:
        logger.info("cannot read %s: %s", config_file, exc)
    found.setdefault(folder, None)
    return tuple(found)


def _parse_row_slice(spec: str) -> list[tuple[int | None, int | None]] | None:
    """An mdx_include ``[ln:…]`` slice as (first, last) rows: ``None`` is unspecified, ``0``
    the last row (``e``). Columns (``.c``) are dropped. ``None`` when it does not parse."""
    parts: list[tuple[int | None, int | None]] = []
    for part in spec.replace(".e", ".").split(","):
        if not part:
            continue
        ends = part.split("-")
        if len(ends) > 2:
            return None
        rows: list[int | None] = []
        for end in ends:
            row = end.partition(".")[0].strip()
            if row == "e":
                rows.append(0)
            elif not row:
                rows.append(None)
            elif row.isdigit() and int(row) > 0:
                rows.append(int(row))
            else:
                return None
        parts.append((rows[0], rows[-1]))
    return parts


def _row_slice(total: int, parts: list[tuple[int | None, int | None]]) -> list[int]:
    """The line indices an rcslice row slice picks, ``-1`` for the two blank lines mdx_include
    puts between slices. A slice whose first row is after its last (or unspecified, with the
    last given: ``-3``) runs backwards, as rcslice's do."""
    picked: list[int] = []
    for k, (first, last) in enumerate(parts):
        a = total if first == 0 else first
        b = total if last == 0 else last
        if k:
            picked += [-1, -1]
        if b is None or (a is not None and a <= b):
            picked.extend(range((a or 1) - 1, total if b is None else min(b, total)))
        else:
            picked.extend(range(min(a or total, total) - 1, b - 2, -1))
    return picked


def _parse_ln(value: str) -> list[tuple[int, int]] | None:
    """markdown-include-variants' ``ln[1:3,8]``: 1-based inclusive (first, last) ranges."""
    ranges: list[tuple[int, int]] = []
    for part in value.split(","):
        first, colon, last = part.strip().partition(":")
        first, last = first.strip(), last.strip() if colon else first.strip()
        if not (first.isdigit() and last.isdigit()):
            return None
        ranges.append((int(first), int(last)))
    return sorted(ranges)


def split_lines(text: str) -> tuple[list[str], bool]:
    """Split on any newline convention; also report whether ``text`` ended with one."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text:
        return [], False
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


class _At(NamedTuple):
    """Where a directive is: its file and line, the include depth, the files above it."""

    file: Path
    num: int
    depth: int
    stack: tuple[Path, ...]


# snippet: pymdownx.snippets; sphinx: literalinclude / include; mdx: ``{!…!}``;
# variants: ``{*…*}`` (markdown-include-variants)
_Kind = Literal["snippet", "sphinx", "mdx", "variants"]
_Opened = tuple[Path, "_Loaded"]


def _strip_markers(loaded: _Loaded, indices: Iterable[int]) -> tuple[list[str], list[int]]:
    """Lines ``indices`` without section markers (escaped markers lose one ``;``); an index
    of ``-1`` is a blank line (numbered as the line before it)."""
    lines: list[str] = []
    nums: list[int] = []
    for idx in indices:
        if idx < 0:
            lines.append("")
            nums.append(nums[-1] if nums else 1)
            continue
        line = loaded.lines[idx]
        marker = loaded.markers.get(idx)
        if marker is not None:
            if not marker[2]:
                continue
            line = line.replace(";", "", 1)
        lines.append(line)
        nums.append(idx + 1)
    return lines, nums


def _section(loaded: _Loaded, name: str) -> tuple[list[str], list[int]] | None:
    start: int | None = None
    stop = len(loaded.lines)
    for idx, (kind, marker_name, escaped) in loaded.markers.items():
        if escaped or marker_name != name:
            continue
        if start is None:
            if kind == "end":
                return None
            start = idx
        elif kind == "end":
            stop = idx
            break
    if start is None:
        return None
    return _strip_markers(loaded, range(start + 1, stop))


@dataclass(slots=True)
class _Expander:
    root: Path
    shown_root: Path
    allowed: tuple[Path, ...]
    base_dirs: tuple[Path, ...]
    max_depth: int
    max_bytes: int
    dedent: bool
    cache: IncludeCache
    warnings: list[str] = field(default_factory=list)
    included: dict[Path, None] = field(default_factory=dict)
    # Text pulled in so far for this document: a few small files including each other many
    # times must not grow one page without bound (10 files × 10 includes each, 8 deep …).
    pulled: int = 0
    budget: IncludeBudget | None = None  # the source's, shared by its documents

    def name(self, path: Path) -> str:
        for base in (self.shown_root, self.root, *self.base_dirs):
            if path.is_relative_to(base):
                return path.relative_to(base).as_posix()
        return path.as_posix()

    def warn(self, at: _At, message: str) -> None:
        self.warnings.append(f"{self.name(at.file)}:{at.num}: {message}")

    # -- locating and opening -------------------------------------------------------

    def _conf_dir(self, folder: Path) -> Path | None:
        """The nearest folder at or above ``folder`` (inside the root) holding Sphinx's conf.py."""
        if folder not in self.cache.conf_dirs:
            found: Path | None = None
            for candidate in (folder, *folder.parents):
                if not candidate.is_relative_to(self.shown_root):
                    break
                if (candidate / "conf.py").is_file():
                    found = candidate
                    break
            self.cache.conf_dirs[folder] = found
        return self.cache.conf_dirs[folder]

    def _mkdocs(self, folder: Path) -> _MkDocs | None:
        """The nearest ``mkdocs.yml`` at or above ``folder``, inside the root."""
        if folder not in self.cache.mkdocs:
            found: _MkDocs | None = None
            for candidate in (folder, *folder.parents):
                if not (candidate.is_relative_to(self.shown_root) or candidate.is_relative_to(self.root)):
                    break
                config = next((candidate / n for n in _MKDOCS_NAMES if (candidate / n).is_file()), None)
                if config is not None:
                    if any(config.resolve().is_relative_to(a) for a in self.allowed):
                        bases = _mkdocs_include_bases(config, candidate, self.max_bytes)
                    else:  # a symlink to a config outside: its folder still is where MkDocs runs
                        bases = (candidate,)
                    found = _MkDocs(candidate, bases)
                    break
            self.cache.mkdocs[folder] = found
        return self.cache.mkdocs[folder]

    def locate(self, raw: str, file: Path, kind: _Kind) -> Path | str:
        key = (kind, raw, file.parent)
        if key not in self.cache.paths:
            self.cache.paths[key] = self._locate(raw, file, kind)
        return self.cache.paths[key]

    def _locate(self, raw: str, file: Path, kind: _Kind) -> Path | str:
        rel = raw.strip()
        here = file.parent
        bases: list[Path]
        # Bases whose escape makes the include "refused" rather than "not found": every base,
        # but the mkdocs.yml ones when there is one (the others are only fallbacks there).
        telling: set[Path] | None = None
        if kind in ("mdx", "variants"):  # mdx_include / variants: from the mkdocs.yml folder first
            if rel.startswith("~") or Path(rel).is_absolute():
                return "include refused: absolute path"
            mk = self._mkdocs(here)
            first = [] if mk is None else [mk.folder] if kind == "variants" else list(mk.include_bases)
            if kind == "variants" or rel.startswith(("./", "../")):
                rest = [here, *self.base_dirs, self.shown_root]
            else:
                rest = [*self.base_dirs, self.shown_root, here]
            bases = [*first, *rest]
            telling = set(first) or None
        elif rel.startswith("/"):
            rel = rel.lstrip("/")
            conf = self._conf_dir(here) if kind == "sphinx" else None
            bases = [*([conf] if conf else []), self.shown_root, *self.base_dirs]
        elif kind == "sphinx":
            bases = [here]
        elif rel.startswith(("./", "../")):
            bases = [here, *self.base_dirs, self.shown_root]
        else:
            bases = [*self.base_dirs, self.shown_root, here]
        escaped = False
        unusable = ""
        for base in dict.fromkeys(bases):
            try:
                target = (base / rel).resolve()
                # Check confinement before touching the file at all.
                if not any(target.is_relative_to(a) for a in self.allowed):
                    escaped = escaped or telling is None or base in telling
                    continue
                if target.is_file():
                    return target
            except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop: not this base
                unusable = unusable or str(getattr(exc, "strerror", None) or exc)
        if escaped:
            return "include refused: path escapes the docs root"
        return f"include not found ({unusable})" if unusable else "include not found"

    def open(self, raw: str, at: _At, kind: _Kind, *, check_cycle: bool = True) -> _Opened | None:
        target = self.locate(raw, at.file, kind)
        problem: str | None = None
        if isinstance(target, str):
            problem = target
        elif check_cycle and target in at.stack:
            problem = "include cycle"
        elif at.depth >= self.max_depth:
            problem = f"include depth limit of {self.max_depth} reached"
        elif self.budget is not None and self.budget.spent():  # one warning for the source, later
            self.budget.refuse(self.name(at.stack[0]), f"{self.name(at.file)}:{at.num}: {raw}")
            return None
        else:
            loaded = self.cache.load(target, self.max_bytes)
            if isinstance(loaded, str):
                problem = f"include refused: {loaded}"
            elif self.pulled + (size := sum(len(x) + 1 for x in loaded.lines)) > self.max_bytes:
                problem = (
                    f"include refused: the page would grow over the size cap of {self.max_bytes / 1e6:.1f} MB"
                )
            else:
                self.pulled += size
                if loaded.replaced:
                    self.warn(at, f"include is not valid UTF-8, decoded with replacements: {raw}")
                self.included.setdefault(target, None)
                return target, loaded
        self.warn(at, f"{problem}: {raw}")
        return None

    def nested(self, lines: list[str], nums: list[int], target: Path, fmt: Fmt, at: _At) -> list[str]:
        return self.expand(lines, nums, _At(target, 0, at.depth + 1, (*at.stack, target)), fmt)[0]

    # -- the directive forms ----------------------------------------------------------

    def snippet(self, spec: str, at: _At) -> list[str] | None:
        if spec.lower().startswith(("http://", "https://")):
            self.warn(at, f"remote include not fetched: {spec}")
            return None
        m = _SNIPPET_FILE.match(spec)
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
            got = _section(loaded, m["section"][1:])
            if got is None:
                self.warn(at, f"include section not found: {spec}")
                return None
            lines, nums = got
        else:
            lo = max(0, (start or 1) - 1)
            lines, nums = _strip_markers(loaded, range(lo, total if end is None else min(end, total)))
        if self.dedent and (m["section"] or start is not None or end is not None):
            lines = dedent_text(lines)
        return self.nested(lines, nums, target, "markdown", at)

    def md_include(self, m: re.Match[str], at: _At) -> list[str] | None:
        """``{!…!}``: markdown-include's and mdx_include's forms (see the module doc)."""
        path, _, _encoding = m["body"].partition("|")  # an mdx_include path holds no "|"
        path = path.strip()
        spec: str | None = None
        if path.endswith("]") and (k := path.rfind("[ln:")) != -1:
            path, spec = path[:k].rstrip(), path[k + 4 : -1]
        if path.lower().startswith(("http://", "https://")):
            self.warn(at, f"remote include not fetched: {path}")
            return None
        parts = None if spec is None else _parse_row_slice(spec)
        if spec is not None and parts is None:
            self.warn(at, f"include line slice not understood: [ln:{spec}]: {path}")
            return None
        opened = self.open(path, at, "mdx")
        if opened is None:
            return None
        target, loaded = opened
        if parts is not None:
            lines, nums = _strip_markers(loaded, _row_slice(len(loaded.lines), parts))
        else:
            lines, nums = _strip_markers(loaded, range(len(loaded.lines)))
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

    def variants(self, path: str, options: str, indent: str, at: _At) -> list[str] | None:
        """``{* path ln[…] hl[…] *}``: the file as a code block, ``ln`` ranges joined by the
        plugin's omission lines (``hl`` and ``title`` only style the block)."""
        ranges: list[tuple[int, int]] = []
        for m in _VARIANT_LN.finditer(options):
            got = _parse_ln(m["value"])
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
                    picked += [_ABOVE, ""]
                if k:
                    picked += ["", _HERE, ""]
                picked += code[max(first, 1) - 1 : last]
            if ranges[-1][1] < len(code):
                picked += ["", _BELOW]
            code = picked
        return markdown_code(code, code_language({}, target), indent)

    def directive(
        self, name: str, arg: str, opts: dict[str, str], indent: str, fmt: Fmt, at: _At
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
            kept, nums = _strip_markers(loaded, range(len(loaded.lines)))
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

    # -- the line loop ----------------------------------------------------------------

    def expand(
        self, lines: Sequence[str], nums: Sequence[int], doc: _At, fmt: Fmt
    ) -> tuple[list[str], list[int]]:
        """Expand ``lines`` of ``doc.file`` (numbered ``nums``); also return each output line's source."""
        out: list[str] = []
        src: list[int] = []
        eval_rst: Fence | None = None  # an open {eval-rst} fence
        i, n = 0, len(lines)
        while i < n:
            line = lines[i]
            if eval_rst is not None and closes(line, eval_rst, any_indent=True):
                eval_rst = None
            if not any(q in line for q in _QUICK):
                out.append(line)
                src.append(nums[i])
                i += 1
                continue
            at = doc._replace(num=nums[i])
            got: list[str] | None = None
            consumed = 1
            if fmt == "markdown" and eval_rst is None and "8<" in line:
                if m := _SNIPPET_INLINE.match(line):
                    if m["escape"]:
                        got = [line.replace(";", "", 1)]
                    elif (inc := self.snippet(m["target"][1:-1].strip(), at)) is not None:
                        got = indent_text(inc, m["space"])
                elif _SNIPPET_BLOCK.match(line):
                    got, consumed = self._block(lines, nums, i, doc)
            elif (fmt == "rst" or eval_rst) and (m := _RST_DIRECTIVE.match(line)):
                got, consumed = self._rst(lines, i, m, fmt if eval_rst is None else "rst", at)
            elif fmt == "markdown" and (m := _MYST_OPEN.match(line)):
                if m["name"] == "eval-rst":
                    eval_rst = Fence(m["fence"][0], len(m["fence"]), m["indent"], "{eval-rst}")
                else:
                    got, consumed = self._myst(lines, i, m, at)
            elif fmt == "markdown" and eval_rst is None and "{*" in line and (v := _variants_line(line)):
                got = self.variants(*v, at)
            elif fmt == "markdown" and eval_rst is None and "{!" in line:
                got = self._md_line(line, at)
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

    def _block(
        self, lines: Sequence[str], nums: Sequence[int], i: int, doc: _At
    ) -> tuple[list[str] | None, int]:
        if lines[i].lstrip().startswith(";"):
            return [lines[i].replace(";", "", 1)], 1
        close = None
        for j in range(i + 1, len(lines)):
            if "8<" in lines[j] and (c := _SNIPPET_BLOCK.match(lines[j])) and not c["escape"]:
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

    def _md_line(self, line: str, at: _At) -> list[str] | None:
        matches = [m for m in _MD_INCLUDE.finditer(line) if not m["escape"] and m["body"].strip()]
        if not matches:
            return None
        first = matches[0]
        if len(matches) == 1 and not line[: first.start()].strip() and not line[first.end() :].strip():
            inc = self.md_include(first, at)
            return None if inc is None else indent_text(inc, line[: first.start()])
        out = [""]
        pos = 0
        changed = False
        for m in matches:
            before = line[pos : m.start()]
            inc = self.md_include(m, at)
            if inc is None:
                out[-1] += before + m[0]
            elif m["apply"] and m is first and inc:  # {!> …!}: what precedes it, on every line
                out = indent_text(inc, before) if not before.strip() else [before + x for x in inc]
            else:
                out[-1] += before + (inc[0] if inc else "")
                out.extend(inc[1:])
            changed = changed or inc is not None
            pos = m.end()
        out[-1] += line[pos:]
        return out if changed else None

    def _rst(
        self, lines: Sequence[str], i: int, m: re.Match[str], fmt: Fmt, at: _At
    ) -> tuple[list[str] | None, int]:
        indent = m["indent"]
        opts, j = rst_options(lines, i + 1, indent)
        arg = _arg(m)
        if not arg or arg.startswith("<"):  # docutils' standard includes: nothing to read
            return None, j - i
        return self.directive(m["name"], arg, opts, indent, fmt, at), j - i

    def _myst(self, lines: Sequence[str], i: int, m: re.Match[str], at: _At) -> tuple[list[str] | None, int]:
        fence = Fence(m["fence"][0], len(m["fence"]), m["indent"], m["name"])
        close = next((j for j in range(i + 1, len(lines)) if closes(lines[j], fence, any_indent=True)), None)
        if close is None or not _arg(m):
            return None, 1
        opts = myst_options(lines[i + 1 : close])
        return self.directive(m["name"], _arg(m), opts, m["indent"], "markdown", at), close - i + 1


def _variants_line(line: str) -> tuple[str, str, str] | None:
    """A markdown-include-variants line, ``{* path options *}`` alone on its line: its
    path, options and indent (the plugin takes it unindented only; indented, it is kept
    in the list item or tab it sits in)."""
    stripped = line.strip()
    if len(stripped) < 5 or not stripped.startswith("{*") or not stripped.endswith("*}"):
        return None
    words = stripped[2:-2].split(None, 1)
    if not words:
        return None
    return words[0], words[1] if len(words) > 1 else "", line[: len(line) - len(line.lstrip())]


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
    if not any(q in text for q in _QUICK):
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
    )
    out, line_map = expander.expand(lines, identity, _At(file, 0, 0, (file.resolve(),)), fmt)
    for warning in expander.warnings:
        logger.debug("%s", warning)
    return IncludeResult(
        text="\n".join(out) + ("\n" if trailing and out else ""),
        line_map=line_map,
        warnings=expander.warnings,
        included_files=list(expander.included),
    )
