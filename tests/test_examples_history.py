"""Examples on pages that record changes come after the others (a Python-Markdown tour: the
2.6 release notes' `markdown.markdown(text, safe_mode=True)`, which 3.7 ignores, was the
second answer for escaping raw HTML, and README.LLM showed the notes' "previously you might
have called it like this" as `markdown.markdown`'s example)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from docmentor.library.examples.matcher import match_examples
from docmentor.library.find.config import DEFAULT
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.knowledge.importance import score_importance
from docmentor.library.knowledge.readme import best_example
from docmentor.library.models import Example
from docmentor.library.surface.api_python import load_api


def _example(example_id: str, path: str, code: str) -> Example:
    return Example(
        example_id=example_id, title="Convert", code=textwrap.dedent(code).lstrip(), language="python",
        source="docs", path=path, line=1, complete=True,
    )  # fmt: skip


def test_release_notes_examples_come_last(tmp_path: Path) -> None:
    (tmp_path / "md").mkdir()
    (tmp_path / "md" / "__init__.py").write_text(
        '"""Markdown."""\n__all__ = ["markdown"]\n\ndef markdown(text, **kwargs):\n    """Convert text."""\n'
    )
    surface = load_api("md", search_paths=[tmp_path])
    old = _example("notes", "change_log/release-2.6.md", "import md\nmd.markdown(text, safe_mode=True)\n")
    new = _example("guide", "reference.md", "import md\nhtml = md.markdown(your_text_string)\n")
    examples = [old, new]  # the notes first, as pages sort
    match_examples(examples, surface, library="md")
    entry = next(e for e in surface.entries if e.name == "markdown")
    assert entry.examples == ["guide", "notes"]
    assert best_example(entry, examples, validated=False) is new
    score_importance(surface.entries, examples, {})
    index = ApiIndex({"md": (surface.entries, examples)}, config=DEFAULT.replace(implied_weight=0.0))
    assert [ex.example_id for _, ex, _ in index.examples_for("convert", limit=2)] == ["guide", "notes"]
