"""An include's target: which file a directive opens, and whether it may.

Paths are resolved where the tool that reads them would (the nearest ``mkdocs.yml``, Sphinx's
``conf.py``, the document's folder, the base folders, the root) and confined to the root or a
base folder before any file is touched; a target is read once per scan (``IncludeCache``),
with its section markers; the cycle, depth, size and source-budget checks come before it is
opened. ``docmentor.sources.includes`` expands the directives over this.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from docmentor._yaml import load_yaml
from docmentor.parse.common import without_terminal_codes
from docmentor.sources.sizes import human_size

logger = logging.getLogger(__name__)

_MKDOCS_NAMES = ("mkdocs.yml", "mkdocs.yaml")
_INCLUDE_EXTENSIONS = ("mdx_include", "markdown_include.include")
# Every pattern here reads the user's (or a repository's) text, so each runs in linear time on
# any line. Searched (not matched from ^ with a lazy prefix, which is quadratic on long lines
# of dashes): the dashes before 8< are bounded so a backtrack cannot run away, and a match
# starts only where a run of ``;`` starts (from inside the run it was quadratic on ``;;;…``).
SECTION_MARKER = re.compile(
    r"(?<!;)(?P<escape>;*+)-{1,32}8<-+[ \t]+\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*"
    r"(?P<name>[a-z][-_0-9a-z]*)[ \t]*\]",
    re.IGNORECASE,
)


_ABOVE_ROOT = 2  # how far above the root a base folder's mkdocs.yml is looked for

#: the problem of an include whose file is not found (``locate``), as its warnings say it
NOT_FOUND = "include not found"
#: the problem of an include whose path leads out of the folders a source may read
ESCAPES = "include refused: path escapes the docs root"
# a warning "FILE:LINE: include not found: RAW", "FILE:LINE: include not found (REASON): RAW"
# or "FILE:LINE: include refused: path escapes the docs root: RAW"
_NOT_FOUND_WARNING = re.compile(rf": (?:{NOT_FOUND}(?: \([^()\n]*\))?|{ESCAPES}): ")


def is_missing_include(warning: str) -> bool:
    """Whether a scan's warning is about an include whose file was not read: not found (either
    form), or outside the folders the source may read (``--base-path`` adds one)."""
    return _NOT_FOUND_WARNING.search(warning) is not None


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
    """The folder of an ``mkdocs.yml``, the folders its ``{!…!}`` paths start from, its
    ``docs_dir`` and whether it enables mkdocs-include-markdown-plugin."""

    folder: Path
    include_bases: tuple[Path, ...]
    docs_dir: Path | None = None
    include_markdown: bool = False


class IncludeCache:
    """Include targets read (and paths resolved) once, shared by all documents of a scan."""

    def __init__(self) -> None:
        self._files: dict[tuple[Path, int], _Loaded | str] = {}
        self.paths: dict[tuple[str, str, Path], Path | str] = {}
        self.conf_dirs: dict[Path, Path | None] = {}
        self.mkdocs: dict[Path, _MkDocs | None] = {}
        self.books: dict[Path, bool] = {}

    def load(self, path: Path, max_bytes: int) -> _Loaded | str:
        """The decoded lines of ``path``, or the reason it cannot be included."""
        key = (path, max_bytes)
        if key not in self._files:
            self._files[key] = _load(path, max_bytes)
        return self._files[key]


def _load(path: Path, max_bytes: int) -> _Loaded | str:
    try:
        if path.stat().st_size > max_bytes:
            return f"over the size cap of {human_size(max_bytes)}"
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
    lines, _ = split_lines(without_terminal_codes(text.removeprefix("\ufeff")))
    markers: dict[int, tuple[str, str, bool]] = {}
    for idx, line in enumerate(lines):
        if "8<" in line and (m := SECTION_MARKER.search(line)):
            markers[idx] = (m["type"].lower(), m["name"], bool(m["escape"]))
    return _Loaded(tuple(lines), markers, replaced)


def _mkdocs_settings(config_file: Path, folder: Path, max_bytes: int) -> _MkDocs:
    """What an ``mkdocs.yml`` says of includes: the ``base_path`` folders of ``mdx_include`` /
    ``markdown_include.include`` (relative to its folder, where MkDocs runs; default ``.``),
    then its folder; its ``docs_dir`` (default ``docs``); whether its ``plugins`` hold
    ``include-markdown``."""
    from docmentor.sources.local import markdown_extensions  # local imports this module

    found: dict[Path, None] = {}
    docs = "docs"
    plugin = False
    try:
        if config_file.stat().st_size <= max_bytes:
            config = load_yaml(config_file.read_text(encoding="utf-8", errors="replace"))
            for name, conf in markdown_extensions(config):
                if name in _INCLUDE_EXTENSIONS:
                    raw = conf.get("base_path", ".")
                    for base in raw if isinstance(raw, list) else [raw]:
                        if isinstance(base, str) and base.strip():
                            found.setdefault(folder / base.strip(), None)
            if isinstance(config, dict):
                if isinstance(config.get("docs_dir"), str) and config["docs_dir"].strip():
                    docs = config["docs_dir"].strip()
                plugins = config.get("plugins")
                names = (
                    list(plugins)
                    if isinstance(plugins, dict)
                    else plugins
                    if isinstance(plugins, list)
                    else []
                )
                for entry in names:
                    keys = (
                        [entry] if isinstance(entry, str) else list(entry) if isinstance(entry, dict) else []
                    )
                    plugin = plugin or any(str(k) == "include-markdown" for k in keys)
    except OSError as exc:
        logger.info("cannot read %s: %s", config_file, exc)
    found.setdefault(folder, None)
    return _MkDocs(folder, tuple(found), folder / docs, plugin)


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


class At(NamedTuple):
    """Where a directive is: its file and line, the include depth, the files above it."""

    file: Path
    num: int
    depth: int
    stack: tuple[Path, ...]


# snippet: pymdownx.snippets; sphinx: literalinclude / include; mdx: ``{!…!}``;
# variants: ``{*…*}`` (markdown-include-variants); plugin: mkdocs-include-markdown-plugin;
# mdbook: ``{{#include …}}`` (the including file's folder only)
_Kind = Literal["snippet", "sphinx", "mdx", "variants", "plugin", "mdbook"]
_Opened = tuple[Path, "_Loaded"]


def strip_markers(loaded: _Loaded, indices: Iterable[int]) -> tuple[list[str], list[int]]:
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


def section(loaded: _Loaded, name: str) -> tuple[list[str], list[int]] | None:
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
    return strip_markers(loaded, range(start + 1, stop))


@dataclass(slots=True)
class IncludeReader:
    """Locates and opens include targets for one document, and collects its warnings."""

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
    # The document's size so far, its own text and what its includes pulled in: a few small
    # files including each other many times must not grow one page without bound (10 files ×
    # 10 includes each, 8 deep …), nor a large page past the size cap.
    pulled: int = 0
    budget: IncludeBudget | None = None  # the source's, shared by its documents

    def name(self, path: Path) -> str:
        for base in (self.shown_root, self.root, *self.base_dirs):
            if path.is_relative_to(base):
                return path.relative_to(base).as_posix()
        return path.as_posix()

    def warn(self, at: At, message: str) -> None:
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

    def include_markdown_plugin(self, file: Path) -> bool:
        """Whether the ``mkdocs.yml`` of ``file`` enables mkdocs-include-markdown-plugin."""
        mk = self._mkdocs(file.parent)
        return mk is not None and mk.include_markdown

    def _mkdocs(self, folder: Path) -> _MkDocs | None:
        """The nearest ``mkdocs.yml`` at or above ``folder``, inside the root, or in a base
        folder above it (the MkDocs project whose ``docs_dir`` the root is: FastAPI's
        ``docs/en/mkdocs.yml`` over ``docs/en/docs``)."""
        if folder not in self.cache.mkdocs:
            found: _MkDocs | None = None
            for candidate in (folder, *folder.parents):
                inside = candidate.is_relative_to(self.shown_root) or candidate.is_relative_to(self.root)
                if not inside and candidate not in self.base_dirs:
                    if len(candidate.parts) < len(self.root.parts) - _ABOVE_ROOT:
                        break
                    continue
                config = next((candidate / n for n in _MKDOCS_NAMES if (candidate / n).is_file()), None)
                if config is not None:
                    if any(config.resolve().is_relative_to(a) for a in self.allowed):
                        found = _mkdocs_settings(config, candidate, self.max_bytes)
                    else:  # a symlink to a config outside: its folder still is where MkDocs runs
                        found = _MkDocs(candidate, (candidate,))
                    break
            self.cache.mkdocs[folder] = found
        return self.cache.mkdocs[folder]

    def in_book(self, file: Path) -> bool:
        """Whether an mdBook ``book.toml`` is in the folder of ``file`` or above it: inside the
        root, in a base folder, or up to two folders above the root (the book whose ``src`` is
        the root). Only whether the file is there is checked: it is never read."""
        folder = file.parent
        if folder not in self.cache.books:
            found = False
            for candidate in (folder, *folder.parents):
                inside = candidate.is_relative_to(self.shown_root) or candidate.is_relative_to(self.root)
                near = len(candidate.parts) >= len(self.root.parts) - _ABOVE_ROOT
                if not (inside or near or candidate in self.base_dirs):
                    break
                if (candidate / "book.toml").is_file():
                    found = True
                    break
            self.cache.books[folder] = found
        return self.cache.books[folder]

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
        elif kind == "mdbook":  # mdBook joins the path to the including file's folder
            if rel.startswith("~") or Path(rel).is_absolute():
                return "include refused: absolute path"
            bases = [here]
        elif kind == "plugin":
            # mkdocs-include-markdown-plugin: ./ and ../ from the including file's folder, any
            # other path from docs_dir (the mkdocs.yml's, else the docs folder indexed)
            if rel.startswith("~") or Path(rel).is_absolute():
                return "include refused: absolute path"
            if rel.startswith(("./", "../")):
                bases = [here]
            else:
                mk = self._mkdocs(here)
                bases = [mk.docs_dir if mk is not None and mk.docs_dir is not None else self.shown_root]
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
        escaped = False  # a telling base's path leads outside the folders it may read
        inside = False  # a telling base's path stays inside them: a file that is not there
        unusable = ""
        for base in dict.fromkeys(bases):
            try:
                target = (base / rel).resolve()
                tells = telling is None or base in telling
                # Check confinement before touching the file at all.
                if not any(target.is_relative_to(a) for a in self.allowed):
                    escaped = escaped or tells
                    continue
                if target.is_file():
                    return target
                inside = inside or tells
            except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop: not this base
                unusable = unusable or str(getattr(exc, "strerror", None) or exc)
        if escaped and not (inside and telling is not None):
            return ESCAPES
        return f"{NOT_FOUND} ({unusable})" if unusable else NOT_FOUND

    def open(self, raw: str, at: At, kind: _Kind, *, check_cycle: bool = True) -> _Opened | None:
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
                    f"include refused: the page would grow over the size cap of {human_size(self.max_bytes)}"
                )
            else:
                self.pulled += size
                if loaded.replaced:
                    self.warn(at, f"include is not valid UTF-8, decoded with replacements: {raw}")
                self.included.setdefault(target, None)
                return target, loaded
        self.warn(at, f"{problem}: {raw}")
        return None
