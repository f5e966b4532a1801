"""Throwaway libraries for the library-knowledge tests: files written from dedented text, and
a library with docs generated into a knowledge base (the real ``generate``, no embeddings)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docmentor.engine import Docmentor
from docmentor.library import GenerationResult, generate
from docmentor.library.examples.drift import DriftReport, drift_report
from docmentor.library.knowledge.kb_files import load_kb
from docmentor.library.knowledge.kb_schema import KnowledgeBase
from docmentor.library.models import Example


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
    result = generated(root, library)
    assert result.kb_path is not None
    return load_kb(Path(result.kb_path))


def generated(root: Path, library: str, **options: Any) -> GenerationResult:
    """The real ``generate`` of the package and docs under ``root/lib`` into ``root/index``
    (no embeddings; ``options``: more of ``generate``'s arguments)."""
    engine = Docmentor(root / "index")
    try:
        return generate(
            engine,
            library=library,
            docs_path=root / "lib" / "docs",
            out=root / "out",
            search_paths=[root / "lib"],
            embeddings=False,
            **options,
        )
    finally:
        engine.close()


def page_drift(api: Any, code: str, library: str = "pk") -> DriftReport:
    """Drift of one complete example, the code as it is, on a page ``g.md`` at line 1."""
    example = Example(
        example_id="ex",
        title="ex",
        code=code,
        language="python",
        source="docs",
        path="g.md",
        line=1,
        complete=True,
    )
    return drift_report([example], api, library=library)
