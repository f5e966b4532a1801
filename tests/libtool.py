"""Throwaway libraries for the library-knowledge tests: files written from dedented text, and
a library with docs generated into a knowledge base (the real ``generate``, no embeddings)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

from docmentor.engine import Docmentor
from docmentor.library import generate
from docmentor.library.knowledge.kb_files import load_kb
from docmentor.library.knowledge.kb_schema import KnowledgeBase


def write_files(root: Path, files: Mapping[str, str]) -> None:
    """Each ``relative path → text`` under ``root``, dedented, folders made."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def generated_kb(root: Path, library: str, files: Mapping[str, str]) -> KnowledgeBase:
    """``files`` written under ``root/lib`` (the package and its ``docs/``), the library's
    knowledge base generated from them into ``root/index``, and loaded."""
    write_files(root / "lib", files)
    engine = Docmentor(root / "index")
    try:
        result = generate(
            engine,
            library=library,
            docs_path=root / "lib" / "docs",
            out=root / "out",
            search_paths=[root / "lib"],
            embeddings=False,
        )
    finally:
        engine.close()
    assert result.kb_path is not None
    return load_kb(Path(result.kb_path))
