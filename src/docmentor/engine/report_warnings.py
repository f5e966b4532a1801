"""A refresh report's warnings grouped for a reader: the includes not found summed up after
a few (with what to do about them), and the failed documents no warning names yet."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docmentor.engine.reports import RefreshReport
from docmentor.sources.include_targets import is_missing_include
from docmentor.sources.mkdocs import mkdocs_bases


@dataclass(frozen=True, slots=True)
class ReportWarnings:
    """What to tell a reader about one refresh report, in this order: ``warnings``; then,
    when ``more_missing_includes``, that many more includes not read (not found, or refused: outside) and ``include_hint``;
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
        include_hint=include_hint(target) if more_missing else "",
        failed=tuple(unsaid[:shown_failed]),
        more_failed=max(0, len(unsaid) - shown_failed),
    )


def include_hint(target: str | None) -> str:
    """What to pass when a source's includes are not found, as a clause to follow a warning:
    the MkDocs project's base folder when the docs folder is inside one, else ``--base-path``
    in general."""
    folder = Path(target) if target else None
    if folder is None or not folder.is_dir():
        return " (includes are read from the docs folder and the --base-path folders)"
    bases = [b for b in mkdocs_bases(folder) if b != folder.resolve()]
    if bases:
        return f"; this folder is inside a MkDocs project: add it with --base-path {bases[0]}"
    return "; if they are relative to another folder, add the source again with --base-path FOLDER"
