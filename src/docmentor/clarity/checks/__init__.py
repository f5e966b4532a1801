"""Deterministic issue finders: every check in one registry, run over one document.

A check is a function ``(CheckedDocument) -> Iterable[Issue]`` registered with
``@check("name")``; its docstring says what it catches. :func:`run_checks` runs them
all, sorts the issues deterministically and measures the content metrics;
:func:`check_document` does the parsing for one file or text.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path
from typing import Literal

from docmentor.clarity.checks import code, examples, links, prerequisites, structure
from docmentor.clarity.checks._page import page_of
from docmentor.clarity.checks._registry import CHECKS, Check, CheckFunction, check
from docmentor.clarity.models import CheckedDocument, CheckResult, ContentMetrics, Issue
from docmentor.errors import NotFoundError
from docmentor.models import RawDocument
from docmentor.parse import parse_document
from docmentor.parse.common import LABEL_LINE
from docmentor.parse.markdown import parse_markdown
from docmentor.sources.includes import resolve_includes
from docmentor.sources.local import SKIP_DIRS, mkdocs_base_dirs, read_file

__all__ = [
    "CHECKS",
    "Check",
    "CheckFunction",
    "SiteFiles",
    "check",
    "check_document",
    "checked_document",
    "run_checks",
]

log = logging.getLogger(__name__)
_MAX_FILES = 200_000
_ = (code, examples, links, prerequisites, structure)  # imported for their @check registrations


def run_checks(doc: CheckedDocument) -> CheckResult:
    """Run every registered check on ``doc``.

    A check that raises is a bug: it is logged and adds no issue. Issues are sorted by
    (line, type, message); the metrics count code blocks, executable Python examples,
    and the issues counted as broken links / missing alt text.
    """
    issues: list[Issue] = []
    for c in CHECKS:
        try:
            found = list(c.func(doc))
        except Exception:
            log.exception("clarity check %r failed on %s", c.name, doc.path)
            continue
        issues.extend(issue if issue.check else dataclasses.replace(issue, check=c.name) for issue in found)
    issues.sort(key=lambda i: (i.line, i.type, i.message, i.context_quote, i.check))
    total_code_blocks = executable_examples = 0
    try:
        page = page_of(doc)
        total_code_blocks = len(page.code_blocks)
        executable_examples = examples.executable_examples(page)
    except Exception:
        log.exception("clarity metrics failed on %s", doc.path)
    metrics = ContentMetrics(
        total_code_blocks=total_code_blocks,
        executable_examples=executable_examples,
        broken_links=sum(1 for i in issues if i.counts_as == "broken_links"),
        missing_alt_text=sum(1 for i in issues if i.counts_as == "missing_alt_text"),
    )
    return CheckResult(issues=issues, metrics=metrics)


class SiteFiles:
    """The files under a docs root (for link checks) and its pages' anchors (parsed once).

    Share one instance between the documents of a folder.
    """

    def __init__(self, root: Path, *, max_files: int = _MAX_FILES) -> None:
        self.root = root
        self.known_files = _walk_files(root, max_files)
        self._anchors: dict[str, set[str] | None] = {}
        self._labels: frozenset[str] | None = None
        # a Sphinx project: its conf.py in the docs folder, a folder below it, or the one above
        self.sphinx = (
            any(f == "conf.py" or (f.endswith("/conf.py") and f.count("/") == 1) for f in self.known_files)
            or (root.parent / "conf.py").is_file()
        )

    def labels(self) -> frozenset[str]:
        """Every cross-reference label the site's pages define (MyST ``(name)=``, reST
        ``.. _name:``), lowercased as Sphinx compares them; read once, when first asked."""
        if self._labels is None:
            found: set[str] = set()
            for rel in sorted(self.known_files):
                if not rel.lower().endswith((".md", ".mdx", ".markdown", ".rst", ".txt")):
                    continue
                try:
                    text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if ")=" not in text and ".. _" not in text:
                    continue
                for line in text.splitlines():
                    m = LABEL_LINE.fullmatch(line)
                    if m is not None:
                        found.add(" ".join((m.group(1) or m.group(2)).split()).lower())
            self._labels = frozenset(found)
        return self._labels

    def anchors_of(self, rel: str) -> set[str] | None:
        """Anchors of the Markdown page ``rel`` (root-relative), ``None`` when unknown."""
        if rel not in self._anchors:
            self._anchors[rel] = self._read_anchors(rel)
        return self._anchors[rel]

    def _read_anchors(self, rel: str) -> set[str] | None:
        try:
            text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        parsed = parse_markdown(text, fallback_title=rel, mdx=rel.lower().endswith(".mdx"))
        return links.document_anchors(parsed, text)


def _walk_files(root: Path, max_files: int) -> frozenset[str]:
    """Every file under ``root`` (POSIX, relative), hidden and tool folders skipped.

    Empty when there are more than ``max_files``: the link check then asks the disk.
    """
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS]
        rel = Path(folder).relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
        found.extend(prefix + f for f in files)
        if len(found) > max_files:
            log.info("more than %d files under %s: links are checked on disk", max_files, root)
            return frozenset()
    return frozenset(found)


def checked_document(
    raw: RawDocument, *, root: Path | None = None, files: SiteFiles | None = None, file: Path | None = None
) -> CheckedDocument:
    """A :class:`CheckedDocument` for a raw document (e.g. from ``scan_folder``).

    Args:
        raw: The document; its ``path`` is relative to ``root`` when there is one.
        root: The docs folder links are resolved in (``None``: no file link checks).
        files: The root's files, shared between documents (made here when missing).
        file: The document's file (default ``root / raw.path``).
    """
    if root is not None and files is None:
        files = SiteFiles(root)
    if file is None and root is not None:
        file = root / raw.path
    return CheckedDocument(
        path=raw.path,
        text=raw.content,
        parsed=parse_document(raw),
        file=file,
        root=root,
        known_files=files.known_files if files is not None else frozenset(),
        anchors_of=files.anchors_of if files is not None else None,
        labels=files.labels if files is not None else None,
        sphinx=files.sphinx if files is not None else False,
        line_map=raw.line_map,
    )


def check_document(path_or_text: str | Path, *, path: str, root: Path | None = None) -> CheckResult:
    """Parse and check one document.

    Args:
        path_or_text: A :class:`~pathlib.Path` to read, or the document's text.
        path: The path shown in issues, relative to ``root`` when there is one.
        root: The docs folder for link checks and snippet includes. For a file it
            defaults to the file's folder; for a text without it, no link is checked
            against the disk.

    Raises:
        NotFoundError: ``path_or_text`` is a path that does not exist.
        SourceUnavailableError: The file cannot be read, or a folder scan would skip it
            (binary, over the size cap, not text in any encoding it tries).
    """
    if isinstance(path_or_text, Path):
        file: Path | None = path_or_text
        assert file is not None
        if not file.is_file():
            raise NotFoundError(f"no such file: {file}", hint="pass the path of a Markdown file")
        # read as a folder scan reads it: a binary file refused, a Windows-1252 page decoded so
        read, _warnings = read_file(file, root=root)
        folder = root if root is not None else file.absolute().parent.resolve()
        return run_checks(
            checked_document(
                dataclasses.replace(read, path=path), root=folder, files=SiteFiles(folder), file=file
            )
        )
    text = path_or_text
    file = root / path if root is not None else None
    suffix = os.path.splitext(path)[1].lower()
    fmt: Literal["markdown", "rst", "text"] = (
        "rst" if suffix == ".rst" else "text" if suffix == ".txt" else "markdown"
    )
    line_map: list[int] | None = None
    if root is not None and file is not None and fmt != "text":
        result = resolve_includes(
            text,
            path=file,
            root=root,
            base_dirs=mkdocs_base_dirs(root),
            fmt="rst" if fmt == "rst" else "markdown",
        )
        text = result.text
        if result.line_map != list(range(1, len(result.line_map) + 1)):
            line_map = result.line_map
    raw = RawDocument(
        path=path,
        url=file.as_uri() if file is not None and file.is_absolute() else "",
        content=text,
        fmt=fmt,
        line_map=line_map,
    )
    files = SiteFiles(root) if root is not None else None
    return run_checks(checked_document(raw, root=root, files=files, file=file))
