"""Read a local folder of documentation into ``RawDocument``s.

Walks the folder in a deterministic order, honours ``.gitignore`` files (root and
nested) and a root ``.docmentorignore``, skips hidden and tool folders, binary and
oversized files, and expands includes confined to the folder (see ``includes``).
Symlinked folders are not followed; symlinked files are read when they point inside
the folder.

Binary files: a NUL byte in the first 8 KB makes a file binary: it is skipped, with the
reason. NUL bytes further on (a text file with a stray binary byte or a NUL-padded tail) are
removed, with a warning that counts them; the text around them is kept.

Includes: what the includes of one folder add to its pages is capped in total (the size cap
of one page does not stop one large snippet included by many pages): at most
``max_included_bytes`` (default: four times the size of the folder's documents, and at least
10 MB). Includes past it are left as written in their pages and reported once for the
folder, with counts.

Encoding policy: files are read as UTF-8 (a BOM is dropped); a file that starts with a UTF-16
or UTF-32 byte-order mark is read in that encoding, with a warning. A file that is not valid
UTF-8 is decoded with replacement characters and kept with a warning, unless more than
1% of its characters had to be replaced: then it is most likely in another encoding. If its
non-ASCII characters read as Windows-1252 are mostly letters, it is a Western page saved as
Windows-1252 / Latin-1 and read as such (with a warning); otherwise it is skipped, with the
reason.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pathspec import GitIgnoreSpec

from docmentor._yaml import load_yaml
from docmentor.errors import SourceUnavailableError
from docmentor.models import RawDocument
from docmentor.parse.common import without_terminal_codes
from docmentor.parse.markdown import MARKDOWN_SUFFIXES
from docmentor.parse.toc import table_of_contents
from docmentor.sources.encodings import byte_order_marked, western_text
from docmentor.sources.include_targets import IncludeBudget, IncludeCache, split_lines
from docmentor.sources.includes import DEFAULT_MAX_BYTES, resolve_includes
from docmentor.sources.sizes import human_size

logger = logging.getLogger(__name__)

DOC_SUFFIXES = (*MARKDOWN_SUFFIXES, ".rst", ".txt")
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "_build"})
IGNORE_FILE = ".docmentorignore"
_BINARY_PROBE = 8192
# What the includes of one folder may add to its pages, all pages together: this many times
# the size of its documents, and at least INCLUDE_BUDGET_MIN characters.
INCLUDE_BUDGET_FACTOR = 4
INCLUDE_BUDGET_MIN = 10_000_000
_MAX_REPLACED = 0.01  # a page with up to this share of undecodable characters keeps them as U+FFFD
# ... and a short one up to this many, when they are at most _SHORT_REPLACED of it: a stub
# page's stray byte or a pasted Windows quote (\x93) is 1-3 % of 80 characters, where another
# encoding's page (Shift-JIS, UTF-16) is undecodable almost throughout
_FEW_REPLACED = 8
_SHORT_REPLACED = 0.05


def _few_replaced(bad: int, length: int) -> bool:
    """Whether ``bad`` undecodable characters of ``length`` are a few stray bytes of a UTF-8 page."""
    return bad <= _MAX_REPLACED * max(length, 1) or (bad <= _FEW_REPLACED and bad <= _SHORT_REPLACED * length)


_MKDOCS_FILES = ("mkdocs.yml", "mkdocs.yaml", "docs/mkdocs.yml", "docs/mkdocs.yaml")
_BASE_PATH_EXTENSIONS = ("pymdownx.snippets", "markdown_include.include")

_Rules = tuple[tuple[str, GitIgnoreSpec], ...]


@dataclass
class LocalScan:
    """What a folder scan produced.

    ``skipped`` holds ``(relative path, reason)``; ``warnings`` every include warning
    and skip, one line each.
    """

    documents: list[RawDocument] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Files (and folder prefixes ending in "/", "" for the root) that could not be read this
    # time: what the index has of them is kept, marked stale, not removed.
    unreadable: dict[str, str] = field(default_factory=dict)

    def skip(self, rel: str, reason: str) -> None:
        self.skipped.append((rel, reason))
        self.warnings.append(f"{rel}: skipped: {reason}")


# locales sites translate their docs into, as folder names (`zh/`, `pt-BR/`, `zh-hans/`): a
# folder so named is a translation only when it mirrors the pages beside it (translated_trees)
_LOCALES = frozenset(
    {"ar", "bg", "bn", "ca", "cs", "da", "de", "el", "es", "et", "fa", "fi", "fr", "he", "hi", "hr", "hu",
     "id", "it", "ja", "ko", "lt", "lv", "ms", "nb", "nl", "no", "pl", "pt", "ro", "ru", "sk", "sl", "sr",
     "sv", "th", "tr", "uk", "ur", "vi", "zh"}
)  # fmt: skip
_REGION = re.compile(r"[A-Za-z]{2,4}")
# a translated tree mirrors at least this many pages, and a quarter of its own (a translation
# lags: Pinia's zh/ has 22 of its 47 pages where the English ones are)
MIN_MIRRORED = 3
MIRRORED_SHARE = 0.25


def _locale(name: str) -> bool:
    language, _, region = name.replace("_", "-").partition("-")
    return language.lower() in _LOCALES and (not region or _REGION.fullmatch(region) is not None)


def translated_trees(files: Sequence[str]) -> dict[str, int]:
    """The folders that translate the docs beside them (VitePress's and MkDocs i18n's `zh/`,
    `ja/`): named by a locale, with at least :data:`MIN_MIRRORED` of their pages, and a quarter
    of them, at the same place under their parent folder (`zh/guide/x.md` beside `guide/x.md`).
    A folder named so that mirrors nothing (`id/`, a page tree of its own) is none. Each → how
    many pages it holds."""
    present = set(files)
    held: dict[str, int] = {}
    mirrored: dict[str, int] = {}
    for rel in files:
        parts = rel.split("/")
        for depth in range(len(parts) - 1):
            if not _locale(parts[depth]):
                continue
            folder = "/".join(parts[: depth + 1])
            held[folder] = held.get(folder, 0) + 1
            if "/".join(parts[:depth] + parts[depth + 1 :]) in present:
                mirrored[folder] = mirrored.get(folder, 0) + 1
    return {
        folder: n
        for folder, n in held.items()
        if mirrored.get(folder, 0) >= max(MIN_MIRRORED, MIRRORED_SHARE * n)
    }


def scan_folder(
    root: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    base_dirs: Sequence[Path] = (),
    use_gitignore: bool = True,
    suffixes: Sequence[str] = DOC_SUFFIXES,
    max_included_bytes: int | None = None,
    translations: bool = False,
) -> LocalScan:
    """Read every document of a folder, with includes expanded.

    Args:
        root: The folder. Documents' ``path`` is relative to it; no file outside it
            (or ``base_dirs``) is read.
        max_bytes: Files (and include targets) larger than this are skipped.
        base_dirs: Extra folders for snippet paths; MkDocs ``base_path`` settings found
            in ``mkdocs.yml`` are added when they lie inside ``root``. When ``root`` is the
            ``docs_dir`` of an ``mkdocs.yml`` one or two folders up (:func:`mkdocs_project`),
            that project's folder is a base too, as MkDocs reads includes from it.
        use_gitignore: Honour ``.gitignore`` files (``.docmentorignore`` always is).
        suffixes: File name endings that are documents (case-insensitive).
        max_included_bytes: What includes may add to all documents together (characters);
            None: ``INCLUDE_BUDGET_FACTOR`` times the documents' size, at least
            ``INCLUDE_BUDGET_MIN``. Includes past it are left as written, with one warning.
        translations: Read the folders that translate the docs (:func:`translated_trees`)
            too; by default they are left out, with one warning each: a search in one
            language would otherwise meet every answer again in the others.

    Raises:
        SourceUnavailableError: ``root`` is not a readable folder.
    """
    if not root.is_dir():
        raise SourceUnavailableError(
            f"not a folder: {root}", hint="pass the path of a folder of documentation"
        )
    real_root = root.resolve()
    project = mkdocs_project(real_root)
    project_bases = [project, *mkdocs_base_dirs(project)] if project is not None else []
    bases = list(
        dict.fromkeys([*(b.resolve() for b in base_dirs), *mkdocs_base_dirs(real_root), *project_bases])
    )
    scan = LocalScan()
    files = _walk(real_root, scan, use_gitignore=use_gitignore, suffixes=suffixes)
    if not translations:
        files = _without_translations(files, scan)
    cache = IncludeCache()
    if max_included_bytes is None:
        max_included_bytes = max(
            INCLUDE_BUDGET_MIN, INCLUDE_BUDGET_FACTOR * _total_size(real_root, files, max_bytes)
        )
    budget = IncludeBudget(max(int(max_included_bytes), 0))
    for rel in files:
        doc = _read_document(
            real_root, rel, scan, max_bytes=max_bytes, bases=bases, cache=cache, budget=budget
        )
        if doc is not None:
            scan.documents.append(doc)
    if budget.refused:
        names = list(budget.documents)
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        scan.warnings.append(
            f"{budget.refused} include(s) in {len(budget.documents)} document(s) ({shown}) left as written: the "
            f"folder's includes may add {human_size(budget.limit)} to its pages in total, and had added "
            f"{human_size(budget.used)} (first left out: {budget.first}); raise the source option "
            "max_included_bytes to expand them"
        )
    # a page's include problem is met again where another page includes that page: said once
    scan.warnings = list(dict.fromkeys(scan.warnings))
    return scan


def _without_translations(files: list[str], scan: LocalScan) -> list[str]:
    """The files outside the translated trees; one warning per tree left out."""
    trees = translated_trees(files)
    if not trees:
        return files
    outer = [t for t in trees if not any(t != o and t.startswith(o + "/") for o in trees)]
    for tree in sorted(outer):
        held = sum(1 for rel in files if rel.startswith(tree + "/"))
        scan.warnings.append(
            f"{tree}/: {held} page(s) that translate the docs beside them not indexed "
            "(add --translations, or translations = true in docmentor.toml, to index them)"
        )
    return [rel for rel in files if not any(rel.startswith(t + "/") for t in outer)]


def read_file(
    file: Path, *, root: Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[RawDocument, list[str]]:
    """One document read as a folder scan reads it (binary and oversized files refused, a
    page saved as Windows-1252 decoded so, includes expanded within ``root``, the file's
    folder by default), with the warnings the scan would give.

    Raises:
        SourceUnavailableError: the scan would skip the file; the message says why.
    """
    real_root = (root or file.absolute().parent).resolve()
    rel = file.name
    if root is not None:  # the file as named under the root as named, or both resolved
        for inside, under in ((file.absolute(), root.absolute()), (file.resolve(), real_root)):
            if inside.is_relative_to(under):
                rel = inside.relative_to(under).as_posix()
                break
        else:
            raise SourceUnavailableError(f"{file} is not inside {root}")
    scan = LocalScan()
    doc = _read_document(
        real_root, rel, scan, max_bytes=max_bytes, bases=mkdocs_base_dirs(real_root), cache=IncludeCache()
    )
    if doc is None:
        reason = scan.skipped[0][1] if scan.skipped else "cannot read it"
        raise SourceUnavailableError(f"{file}: {reason}", hint="pass a text documentation file")
    return doc, scan.warnings


def _total_size(root: Path, files: Sequence[str], max_bytes: int) -> int:
    """The bytes of the documents a scan will read (those under the size cap)."""
    total = 0
    for rel in files:
        try:
            size = (root / rel).stat().st_size
        except OSError:
            continue
        if size <= max_bytes:
            total += size
    return total


def document_files(
    root: Path, *, use_gitignore: bool = True, suffixes: Sequence[str] = DOC_SUFFIXES
) -> list[str]:
    """The files :func:`scan_folder` would read in ``root`` (paths relative to it): the same
    walk, hidden, tool and ignored folders left out, without reading them."""
    return _walk(root.resolve(), LocalScan(), use_gitignore=use_gitignore, suffixes=suffixes)


def has_documents(root: Path, *, use_gitignore: bool = True, suffixes: Sequence[str] = DOC_SUFFIXES) -> bool:
    """Whether :func:`scan_folder` would find a document to read in ``root``."""
    return bool(document_files(root, use_gitignore=use_gitignore, suffixes=suffixes))


def _fmt(rel: str) -> Literal["markdown", "rst", "text"]:
    suffix = os.path.splitext(rel)[1].lower()
    return "rst" if suffix == ".rst" else "text" if suffix == ".txt" else "markdown"


# a .txt file of one line is read whatever its shape; from two, one word each is a list (a
# tour's three-line requirements.txt was indexed and answered a search for `pydantic`)
_LIST_MIN_LINES = 2
_LIST_SHARE = 0.8  # of its lines (comments aside) one word each: a list, not prose


def _word_list(text: str) -> bool:
    """A plain-text file whose lines, ``#`` comments aside, are mostly one word each: a
    spelling word list, pinned requirements (``alabaster==0.7.16``) — no documentation."""
    entries = _entries(text)
    if len(entries) < _LIST_MIN_LINES:
        return False
    single = sum(1 for ln in entries if len(ln.split()) == 1)
    return single >= _LIST_SHARE * len(entries)


# `User-agent: *`, `Contact: mailto:security@example.org`: a field, then one value without blanks
_FIELD_RECORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*+:[ \t]*+[^ \t]*+")


def _field_records(text: str) -> bool:
    """A plain-text file whose lines, ``#`` comments aside, are all ``Field: value`` records
    with one word of value: a site's robots.txt or security.txt (VitePress' `public/`), not
    documentation. A line of prose (`Note: see the guide`) keeps the file."""
    entries = _entries(text)
    return bool(entries) and all(_FIELD_RECORD.fullmatch(ln) for ln in entries)


def _entries(text: str) -> list[str]:
    """A plain-text file's lines, stripped, without blank ones and ``#`` comments."""
    return [ln for ln in (line.strip() for line in text.splitlines()) if ln and not ln.startswith("#")]


def _read_document(
    root: Path,
    rel: str,
    scan: LocalScan,
    *,
    max_bytes: int,
    bases: Sequence[Path],
    cache: IncludeCache,
    budget: IncludeBudget | None = None,
) -> RawDocument | None:
    path = root / rel
    try:
        size = path.stat().st_size
        if size > max_bytes:
            scan.skip(rel, f"over the size cap of {human_size(max_bytes)}")
            return None
        data = path.read_bytes()
    except OSError as exc:
        scan.skip(rel, f"cannot read ({exc.strerror or exc})")
        scan.unreadable[rel] = f"cannot read ({exc.strerror or exc})"
        return None
    warnings: list[str] = []
    unicode = byte_order_marked(data)  # UTF-16/32 with a byte-order mark: text, NULs and all
    if unicode is not None:
        encoding, text_or_error = unicode
        if encoding is None:
            scan.skip(rel, text_or_error)
            return None
        data = text_or_error.encode("utf-8")
        warnings.append(f"{rel}: read as {encoding} (its byte-order mark says so)")
    if b"\0" in data[:_BINARY_PROBE]:
        scan.skip(rel, "binary file")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        bad = text.count("\ufffd")
        western = western_text(data) if bad > _MAX_REPLACED * max(len(text), 1) else None
        if western is not None:
            text = western  # a page saved as Windows-1252 / Latin-1 ("caf\xe9")
            warnings.append(f"{rel}: not valid UTF-8, read as Windows-1252 (Latin-1)")
        elif _few_replaced(bad, len(text)):
            warnings.append(f"{rel}: not valid UTF-8, decoded with {bad} replacement character(s)")
        else:
            scan.skip(rel, f"not valid UTF-8 ({bad} undecodable characters, first at byte {exc.start})")
            return None
    text = without_terminal_codes(text.removeprefix("\ufeff"))
    if "\0" in text:  # past the binary probe: a stray byte in a text file, not text to index
        warnings.append(
            f"{rel}: {text.count(chr(0))} NUL byte(s) removed (first at character {text.index(chr(0))})"
        )
        text = text.replace("\0", "")
    fmt = _fmt(rel)
    line_map: list[int] | None = None
    if fmt == "text" and _word_list(text):
        scan.skip(rel, "a list of single words or pins (a word list, a requirements file), not prose")
        return None
    if fmt == "text" and _field_records(text):
        scan.skip(rel, "a list of `Field: value` records (robots.txt, security.txt), not prose")
        return None
    if fmt == "text":
        lines, trailing = split_lines(text)
        text = "\n".join(lines) + ("\n" if trailing else "")
    else:
        result = resolve_includes(
            text,
            path=path,
            root=root,
            base_dirs=bases,
            fmt=fmt,
            max_bytes=max_bytes,
            cache=cache,
            budget=budget,
        )
        text = result.text
        warnings.extend(result.warnings)
        if result.line_map != list(range(1, len(result.line_map) + 1)):
            line_map = result.line_map
    scan.warnings.extend(warnings)
    return RawDocument(
        path=rel,
        url=path.as_uri(),
        content=text,
        fmt=fmt,
        line_map=line_map,
        warnings=warnings,
        # a table of contents (SUMMARY.md): `get` serves it, search skips it
        searchable=fmt != "markdown" or not table_of_contents(text),
    )


# -- walking ----------------------------------------------------------------------------


def _load_spec(path: Path) -> GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        logger.warning("cannot read %s: %s", path, exc)
        return None
    return GitIgnoreSpec.from_lines(lines)


def _ignored(rel: str, rules: _Rules) -> bool:
    """Git's precedence: the deepest ignore file with a matching pattern decides."""
    for prefix, spec in reversed(rules):
        verdict = spec.check_file(rel[len(prefix) :]).include
        if verdict is not None:
            return verdict
    return False


def _walk(root: Path, scan: LocalScan, *, use_gitignore: bool, suffixes: Sequence[str]) -> list[str]:
    wanted = tuple(s.lower() for s in suffixes)
    found: list[str] = []
    links: dict[str, str] = {}  # a symlinked document inside the root → its target, relative
    base_rules: _Rules = ()
    own = root / IGNORE_FILE
    own_spec = _load_spec(own) if own.is_file() else None
    pending: list[tuple[Path, str, _Rules]] = [(root, "", base_rules)]
    while pending:
        folder, prefix, rules = pending.pop()
        if use_gitignore and (folder / ".gitignore").is_file():
            spec = _load_spec(folder / ".gitignore")
            if spec is not None:
                rules = (*rules, (prefix, spec))
        # .docmentorignore (root-relative) outranks every .gitignore.
        active = (*rules, ("", own_spec)) if own_spec is not None else rules
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            scan.skip(prefix or ".", f"cannot list folder ({exc.strerror or exc})")
            scan.unreadable[prefix] = f"cannot list folder ({exc.strerror or exc})"
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            try:
                is_dir = entry.is_dir()
                is_link = entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                if name in SKIP_DIRS or _ignored(rel + "/", active):
                    continue
                if os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                    continue  # a virtual environment
                if is_link:
                    # Never followed: inside the root its files are read by their real path
                    # (no duplicates, no loops); outside, they are not ours to read.
                    if not Path(entry.path).resolve().is_relative_to(root):
                        scan.skip(rel, "symlinked folder points outside the root")
                    continue
                pending.append((Path(entry.path), rel + "/", rules))
            elif name.lower().endswith(wanted) and not _ignored(rel, active):
                target = Path(entry.path).resolve() if is_link else None
                if target is not None and not target.is_relative_to(root):
                    scan.skip(rel, "symlink points outside the root")
                    continue
                try:
                    regular = entry.is_file()  # never a FIFO, socket or device: reading one would hang
                except OSError:
                    regular = False
                if regular:
                    found.append(rel)
                    if target is not None:
                        links[rel] = target.relative_to(root).as_posix()
    # a link to a document read by its own path is the same page twice: read it once, as a
    # symlinked folder inside the root is (a link to a file left out stays: it is the only way in)
    direct = set(found) - set(links)
    found = [rel for rel in found if links.get(rel) not in direct]
    found.sort()
    return found


# -- MkDocs settings ---------------------------------------------------------------------


def markdown_extensions(config: object) -> list[tuple[str, dict[Any, Any]]]:
    found: list[tuple[str, dict[Any, Any]]] = []
    entries = config.get("markdown_extensions") if isinstance(config, dict) else None
    if isinstance(entries, dict):
        entries = [{k: v} for k, v in entries.items()]
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str):
            found.append((entry, {}))
        elif isinstance(entry, dict):
            found.extend((str(name), conf if isinstance(conf, dict) else {}) for name, conf in entry.items())
    return found


def mkdocs_project(docs: Path) -> Path | None:
    """The folder of the MkDocs project whose documentation folder ``docs`` is: an
    ``mkdocs.yml`` in its parent or grandparent whose ``docs_dir`` (default ``docs``) is
    ``docs``. Its includes (``{!../docs_src/app.py!}``) read files of the project outside
    ``docs``, as MkDocs does when it builds the site; no other folder above is read."""
    real = docs.resolve()
    for folder in list(real.parents)[:2]:
        config_file = next(
            (folder / n for n in ("mkdocs.yml", "mkdocs.yaml") if (folder / n).is_file()), None
        )
        if config_file is None:
            continue
        try:
            config = load_yaml(config_file.read_text(encoding="utf-8", errors="replace")[:1_000_000])
        except OSError:
            return None
        docs_dir = config.get("docs_dir") if isinstance(config, dict) else None
        name = docs_dir.strip() if isinstance(docs_dir, str) and docs_dir.strip() else "docs"
        try:
            return folder if (folder / name).resolve() == real else None
        except (OSError, ValueError):  # a docs_dir no path can be (a NUL in it)
            return None
    return None


def mkdocs_base_dirs(root: Path) -> list[Path]:
    """Snippet base folders configured in ``mkdocs.yml`` (root or ``docs/``), inside ``root``.

    Reads the ``base_path`` of ``pymdownx.snippets`` and ``markdown_include.include``
    (a string or a list, relative to the mkdocs.yml folder; default ``.``).
    """
    real_root = root.resolve()
    found: dict[Path, None] = {}
    for name in _MKDOCS_FILES:
        config_file = root / name
        if not config_file.is_file():
            continue
        try:
            config = load_yaml(config_file.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            logger.warning("cannot read %s: %s", config_file, exc)
            continue
        if config is None:
            logger.warning("cannot read %s: not valid YAML", config_file)
            continue
        for ext, conf in markdown_extensions(config):
            if ext not in _BASE_PATH_EXTENSIONS:
                continue
            raw = conf.get("base_path", ".")
            for base in raw if isinstance(raw, list) else [raw]:
                if not isinstance(base, str):
                    continue
                folder = (config_file.parent / base).resolve()
                if folder.is_relative_to(real_root) and folder.is_dir():
                    found.setdefault(folder, None)
                else:
                    logger.info("ignoring snippet base_path outside the root: %s", base)
    return list(found)
