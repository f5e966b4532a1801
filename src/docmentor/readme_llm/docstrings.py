"""Reading a docstring as prose: its paragraphs, which of them are markup, its summary.

Shared by the API surface (an API's description), deprecation detection (the first
paragraph) and find_api's embedded passages (markup is not a passage).
"""

from __future__ import annotations

import re

__all__ = ["MARKUP", "PARAGRAPHS", "SUMMARY_CHARS", "summary"]

SUMMARY_CHARS = 400


# a paragraph that is markup, not prose: an admonition (``!!! note``, ``??? tip``), a reST
# directive (``.. note::``), an HTML comment, an image or badge
MARKUP = re.compile(r"^(?:!!!|\?\?\?|\.\.\s|<!--|!\[|\[!\[)")
PARAGRAPHS = re.compile(r"\n[ \t]*\n")


def summary(docstring: str) -> str:
    """The docstring's first prose paragraph, at most ~400 characters (cut at a sentence when
    it can). Leading markup paragraphs are skipped with their indented bodies: ``!!! abstract
    "Usage Documentation"`` over a link is not what an API does. Only markup: the first one."""
    paragraphs = [p for p in PARAGRAPHS.split(docstring.strip()) if p.strip()]
    chosen = paragraphs[0] if paragraphs else ""
    in_block = False
    for para in paragraphs:
        if MARKUP.match(para.lstrip()):
            in_block = True
            continue
        if in_block and para[:1] in (" ", "\t"):  # the block's indented body
            continue
        chosen = para
        break
    text = " ".join(chosen.split())
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[:SUMMARY_CHARS]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > SUMMARY_CHARS // 3 else cut.rstrip() + "…"
