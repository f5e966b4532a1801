"""The former home of the tree-sitter API reader, now :mod:`docmentor.readme_llm.treesitter`.

Kept so ``from docmentor.readme_llm.api_treesitter import load_source_surface`` still works.
"""

from __future__ import annotations

from docmentor.readme_llm.treesitter import (
    SourceApiSurface,
    SourceLanguage,
    detect_source_language,
    load_source_api,
    load_source_surface,
)

__all__ = [
    "SourceApiSurface",
    "SourceLanguage",
    "detect_source_language",
    "load_source_api",
    "load_source_surface",
]
