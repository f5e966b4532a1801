"""Library knowledge: README.LLM and the knowledge base, generated from docs and the real API.

:func:`generate` (:mod:`~docmentor.library.pipeline`) runs the stages, each a sub-package:

- :mod:`~docmentor.library.surface` — the real API surface (griffe for Python, tree-sitter
  for TS/JS/Go/Rust), docstrings, deprecations, the class tree;
- :mod:`~docmentor.library.examples` — the docs' code examples, matched to APIs, run
  (``validate``) and checked for drift;
- :mod:`~docmentor.library.knowledge` — importance, enrichment from the docs, the README.LLM
  writer and the knowledge base files (and their records in the index);
- :mod:`~docmentor.library.find` — find_api retrieval (synonyms, priors, sync/async twins,
  import paths);
- :mod:`~docmentor.library.service` — serving a knowledge base (find_api, get_examples,
  overview) and feedback (report_issue).

:mod:`~docmentor.library.models` holds the records every stage shares.
"""

from __future__ import annotations

from docmentor.library.pipeline import OUTPUT_FORMATS, GenerationResult, generate

__all__ = ["OUTPUT_FORMATS", "GenerationResult", "generate"]
