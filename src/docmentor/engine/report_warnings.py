"""A refresh report's warnings grouped for a reader: the includes not found summed up after
a few (with what to do about them), and the failed documents no warning names yet."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docmentor.engine.reports import RefreshReport
from docmentor.sources.include_targets import ESCAPES, NOT_FOUND, is_missing_include
from docmentor.sources.mkdocs import mkdocs_bases


@dataclass(frozen=True, slots=True)
class ReportWarnings:
    """What to tell a reader about one refresh report, in this order: ``warnings``; then,
    when ``more_missing_includes``, that many more includes not read (not found, or refused:
    outside); ``include_hint`` (what to pass) whenever an include was not read;
    then ``failed`` (path, error); then, when ``more_failed``, that many more documents that
    could not be read."""

    warnings: tuple[str, ...]
    more_missing_includes: int
    include_hint: str
    failed: tuple[tuple[str, str], ...]
    more_failed: int


def group_warnings(
    report: RefreshReport, target: str | None, *, shown_missing_includes: int, shown_failed: int
) -> ReportWarnings:
    """``report``'s warnings with at most ``shown_missing_includes`` of its includes not found
    (either form of the warning), and at most ``shown_failed`` of its failed documents that no
    warning names. ``target``: the source's folder or URL (for :func:`include_hint`)."""
    unsaid = [(path, err) for path, err in report.failed if not any(path in w for w in report.warnings)]
    said_with_path = {err for _, err in unsaid[:shown_failed]}  # shown below, with the path
    missing = 0
    shown: list[str] = []
    for warning in report.warnings:
        if warning in said_with_path:
            continue
        if is_missing_include(warning):
            missing += 1
            if missing > shown_missing_includes:
                continue
        shown.append(warning)
    more_missing = max(0, missing - shown_missing_includes)
    return ReportWarnings(
        warnings=tuple(shown),
        more_missing_includes=more_missing,
        include_hint=(
            include_hint(target, report.warnings)
            if more_missing
            else include_hint(target, report.warnings, general=False)
            if missing
            else ""
        ),
        failed=tuple(unsaid[:shown_failed]),
        more_failed=max(0, len(unsaid) - shown_failed),
    )


def include_hint(
    target: str | None,
    warnings: Iterable[str] = (),
    *,
    again: str = "add the source again",
    general: bool = True,
) -> str:
    """What to pass when a source's includes are not found, as a clause to follow a warning:
    the folder that holds the docs folder and the files its refused includes lead to, when
    they are there (FastAPI's pages include ``../../docs_src/…`` from their ``mkdocs.yml``'s
    folder: the repository's root); else the MkDocs project's base folder when the docs
    folder is inside one; else the folder above it that the includes not found are found
    from; else ``--base-path`` in general (with ``general=False``, only a folder the files
    are found in is named: nothing else)."""
    folder = Path(target) if target else None
    if folder is None or not folder.is_dir():
        return " (includes are read from the docs folder and the --base-path folders)" if general else ""
    warnings = list(warnings)
    holding = _holding_folder(folder.resolve(), warnings)
    if holding is not None:
        return f"; they lead to files in {holding}: {again} with --base-path {holding}"
    bases = [b for b in mkdocs_bases(folder) if b != folder.resolve()] if general else []
    if bases:
        return f"; this folder is inside a MkDocs project: {again} with --base-path {bases[0]}"
    start = _resolving_start(folder.resolve(), warnings)
    if start is not None:
        return f"; they are found from {start}: {again} with --base-path {start}"
    return f"; if they are relative to another folder, {again} with --base-path FOLDER" if general else ""


# "FILE:LINE: include not found: RAW" or "FILE:LINE: include not found (REASON): RAW"
_NOT_FOUND = re.compile(
    rf"^(?P<file>[^\n]+?):\d+: {re.escape(NOT_FOUND)}(?: \([^()\n]*\))?: (?P<raw>[^\n]+)$"
)


def _resolving_start(root: Path, warnings: Iterable[str]) -> Path | None:
    """The folder above the docs folder that the includes not found are paths from, when one
    is (Textual's `--8<-- "docs/examples/app.py"` starts at the repository, beside its
    `mkdocs-common.yml`): the one most of the first of them resolve from, at most
    :data:`_ABOVE` folders up — not the disk's root nor the home folder."""
    above = [f for f in root.parents[:_ABOVE] if not _too_wide(f)]
    found: dict[Path, int] = {}
    read = 0
    for warning in warnings:
        m = _NOT_FOUND.match(warning)
        if m is None or m["raw"].strip().startswith(("/", "~")):
            continue
        read += 1
        for start in above:
            try:
                if (start / m["raw"].strip()).resolve().is_file():
                    found[start] = found.get(start, 0) + 1
                    break
            except (OSError, RuntimeError, ValueError):
                continue
        if read >= _SHOWN_TARGETS:
            break
    return max(found, key=lambda f: found[f]) if found else None


def _too_wide(folder: Path) -> bool:
    """The disk's root or the home folder: no docs project's folder."""
    try:
        home: Path | None = Path.home().resolve()
    except (RuntimeError, OSError):  # no home folder known
        home = None
    return folder in (Path(folder.anchor), home)


# "FILE:LINE: include refused: path escapes the docs root: RAW" (FILE from the docs folder)
_REFUSED = re.compile(rf"^(?P<file>[^\n]+?):\d+: {re.escape(ESCAPES)}: (?P<raw>[^\n]+)$")
_ABOVE = 4  # how far above the docs folder an mkdocs.yml (a base the includes start from) is looked for
_SHOWN_TARGETS = 50  # the refused includes read to find the folder


def _holding_folder(root: Path, warnings: Iterable[str]) -> Path | None:
    """The nearest folder holding ``root`` and the files the refused includes of
    ``warnings`` lead to — from their page's folder or an ``mkdocs.yml``'s folder above it,
    where the include tools start — when one of them is there; None otherwise. Only the
    user's own command reads this: it looks at files outside the docs folder, which the
    scan never does."""
    targets: list[Path] = []
    for warning in warnings:
        m = _REFUSED.match(warning)
        if m is None:
            continue
        page = (root / m["file"]).parent
        if not page.is_relative_to(root):  # a warning naming a page another way: not read
            continue
        starts = [
            f
            for f in [page, *page.parents][: len(page.relative_to(root).parts) + _ABOVE + 1]
            if any((f / n).is_file() for n in ("mkdocs.yml", "mkdocs.yaml"))
        ]
        for start in [*starts, page]:
            try:
                found = (start / m["raw"].strip()).resolve()
                if found.is_file() and not found.is_relative_to(root):
                    targets.append(found)
                    break
            except (OSError, RuntimeError, ValueError):
                continue
        if len(targets) >= _SHOWN_TARGETS:
            break
    if not targets:
        return None
    holding = Path(os.path.commonpath([root, *targets]))
    # a folder the docs' project could be in: not the disk's root, the home folder, nor one
    # far above (one include reaching `../../../../etc/hostname` makes no base folder)
    if len(root.parts) - len(holding.parts) > _ABOVE or _too_wide(holding):
        return None
    return holding
