"""MkDocs projects: the folders a docs folder's snippets are resolved from."""

from __future__ import annotations

from pathlib import Path

__all__ = ["mkdocs_bases"]


def mkdocs_bases(docs_path: Path, *, levels: int = 4) -> list[Path]:
    """Snippet base folders for docs inside a MkDocs project (``mkdocs.yml`` above ``docs_path``).

    The project root is the folder of the nearest ``mkdocs.yml`` (its parent when that
    folder is ``docs/``); its configured ``base_path`` settings are resolved from there,
    and the root itself is the base when none is configured.
    """
    from docmentor.sources.local import mkdocs_base_dirs

    start = docs_path.resolve()
    for folder in [start, *start.parents][: levels + 1]:
        if any((folder / n).is_file() for n in ("mkdocs.yml", "mkdocs.yaml")):
            root = folder.parent if folder.name == "docs" else folder
            return mkdocs_base_dirs(root) or [root]
    return []
