"""Reading a docstring as prose: its paragraphs, which of them are markup, its summary.

Shared by the API surface (an API's description), deprecation detection (the first
paragraph) and find_api's embedded passages (markup is not a passage).
"""

from __future__ import annotations

import ast
import re
import textwrap

__all__ = ["MARKUP", "PARAGRAPHS", "SUMMARY_CHARS", "is_code", "plain", "summary"]

SUMMARY_CHARS = 400
MAX_CODE_CHARS = 2000  # longer paragraphs are not parsed to tell code from prose


# a paragraph that is markup, not prose: an admonition (``!!! note``, ``??? tip``), a reST
# directive (``.. note::``), an HTML comment, an image or badge
MARKUP = re.compile(r"^(?:!!!|\?\?\?|\.\.\s|<!--|!\[|\[!\[)")
PARAGRAPHS = re.compile(r"\n[ \t]*\n")


_STATEMENTS = (
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Assert, ast.Import, ast.ImportFrom, ast.With,
    ast.AsyncWith, ast.For, ast.AsyncFor, ast.While, ast.If, ast.FunctionDef, ast.AsyncFunctionDef,
    ast.ClassDef, ast.Return, ast.Raise, ast.Try,
)  # fmt: skip


def is_code(paragraph: str) -> bool:
    """Whether a docstring paragraph is a code example (``url = httpx.URL(...)``, a doctest),
    not prose: it parses as Python and does something (assigns, asserts, imports, calls)."""
    text = textwrap.dedent(paragraph).strip()
    if text.startswith(">>>"):
        return True
    if len(text) > MAX_CODE_CHARS:
        return False  # not parsed: a summary is looked for in the first paragraphs only
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # deeply nested text too
        return False
    return any(
        isinstance(node, _STATEMENTS) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call))
        for node in tree.body
    )


_ROLE = re.compile(r"(?<![\w:-]):(?:[\w-]+:)+`([^`]+)`")  # the lookbehind: linear on ":a:a:a…"
_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$")


def _role_text(m: re.Match[str]) -> str:
    inner = m.group(1).strip()
    titled = _TITLED.match(inner)
    if titled and titled.group(1):
        return titled.group(1)  # :doc:`the testing guide </testing>`
    target = (titled.group(2) if titled else inner).lstrip("!")
    if target.startswith("~"):  # :exc:`~werkzeug.exceptions.HTTPException`: its last part
        return target[1:].rsplit(".", 1)[-1]
    return target.strip("/")


def plain(text: str) -> str:
    """Text with Sphinx roles read as their words: ``:exc:`~pkg.errors.HTTPError``` →
    ``HTTPError``, ``:doc:`/testing``` → ``testing``, ``:ref:`the guide <guide>``` → ``the
    guide``. What a role names matters to a reader; its markup does not."""
    return _ROLE.sub(_role_text, text) if ":" in text else text


def summary(docstring: str) -> str:
    """The docstring's first prose paragraph, at most ~400 characters (cut at a sentence when
    it can). Leading markup paragraphs are skipped with their indented bodies: ``!!! abstract
    "Usage Documentation"`` over a link is not what an API does; so are leading code
    examples. Only markup and code: the first paragraph."""
    paragraphs = [p for p in PARAGRAPHS.split(docstring.strip()) if p.strip()]
    chosen = paragraphs[0] if paragraphs else ""
    in_block = False
    for para in paragraphs:
        if MARKUP.match(para.lstrip()):
            in_block = True
            continue
        if in_block and para[:1] in (" ", "\t"):  # the block's indented body
            continue
        if is_code(para):
            continue
        chosen = para
        break
    text = " ".join(chosen.split())
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[:SUMMARY_CHARS]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > SUMMARY_CHARS // 3 else cut.rstrip() + "…"
