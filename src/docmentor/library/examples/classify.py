"""What an example is: a whole program or a snippet, its complexity, its use-case tags, the
install commands of its page, and the language of a code block that names none.

:mod:`docmentor.library.examples.examples` applies these to every extracted example; the
matcher refines the complexity with the real API count.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from docmentor.library.examples.code_analysis import (
    JS_KEYWORDS,
    JS_LANGUAGES,
    js_free_names,
    js_tokens,
    python_free_names,
    python_is_async,
    python_parse,
    python_placeholders,
    python_tree,
    wordset,
)


def is_complete(code: str, language: str) -> bool:
    """A whole program: it parses, defines or imports every name it uses, and leaves no
    ``...`` for the reader to fill in (``httpx.get(...)``; a stub's ``...`` body is fine)."""
    if language == "python":
        tree, as_written = python_parse(code)
        return (
            tree is not None
            and as_written
            and bool(tree.body)
            and not python_free_names(tree)
            and not python_placeholders(tree)
        )
    if language in JS_LANGUAGES:
        tokens = js_tokens(code)
        acts = any(t.text in ("(", "import", "require") for t in tokens)  # not a bare declaration
        return acts and not js_free_names(tokens)
    return False


def names_only(code: str, language: str) -> bool:
    """A Python block that only lists names: imports, bare names and dotted paths
    (``retry``, ``pkg.stop_after_attempt``, a tuple of them), constants and ``pass``, and
    calls, assigns or defines nothing (a list of what a page documents, a doctest
    ``testcode`` of names). It is the example of no API: it shows none in use."""
    if language != "python":
        return False
    tree = python_tree(code)
    if tree is None or not tree.body:
        return False
    return all(_lists_names(stmt) for stmt in tree.body)


def _lists_names(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Pass):
        return True
    return isinstance(stmt, ast.Expr) and _names_expr(stmt.value)


def _names_expr(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Tuple | ast.List):
        return all(_names_expr(e) for e in node.elts)
    return isinstance(node, ast.Name | ast.Constant)


@dataclass(frozen=True, slots=True)
class CodeFacts:
    lines: int  # non-blank lines
    calls: int  # distinct called names (a proxy for the API count before matching)
    control: int  # loops, try, with, function and class definitions
    classes: int
    is_async: bool


def code_facts(code: str, language: str) -> CodeFacts:
    lines = sum(1 for s in code.split("\n") if s.strip())
    if language == "python":
        tree = python_tree(code)
        if tree is None:
            return CodeFacts(lines, 0, 0, 0, False)
        calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        control = sum(
            isinstance(
                n,
                ast.For
                | ast.AsyncFor
                | ast.While
                | ast.Try
                | ast.With
                | ast.AsyncWith
                | ast.FunctionDef
                | ast.AsyncFunctionDef
                | ast.ClassDef,
            )
            for n in ast.walk(tree)
        )
        classes = sum(isinstance(n, ast.ClassDef) for n in ast.walk(tree))
        return CodeFacts(lines, len(calls), control, classes, python_is_async(tree))
    if language in JS_LANGUAGES:
        tokens = js_tokens(code)
        texts = [t.text for t in tokens]
        js_calls = {
            t.text for k, t in enumerate(tokens[:-1]) if t.kind == "name" and tokens[k + 1].text == "("
        } - JS_KEYWORDS
        control = sum(texts.count(w) for w in ("for", "while", "try", "class", "function", "=>"))
        return CodeFacts(
            lines, len(js_calls), control, texts.count("class"), "await" in texts or "async" in texts
        )
    return CodeFacts(lines, 0, 0, 0, False)


def complexity_of(
    code: str, language: str, *, api_count: int | None = None
) -> Literal["beginner", "intermediate", "advanced"]:
    """beginner / intermediate / advanced from size, APIs used, control flow and async.

    Points: size (≤10 non-blank lines 0, ≤30 1, else 2), APIs (≤3 0, ≤7 1, else 2; the
    distinct called names when ``api_count`` is not known yet), control flow (loops, try,
    with, def, class: 1–2 → 1, more → 2), +1 for a class, +1 for async. 0–1 points is
    beginner, 2–3 intermediate, 4+ advanced.
    """
    facts = code_facts(code, language)
    apis = facts.calls if api_count is None else api_count
    score = 0 if facts.lines <= 10 else 1 if facts.lines <= 30 else 2
    score += 0 if apis <= 3 else 1 if apis <= 7 else 2
    score += 0 if facts.control == 0 else 1 if facts.control <= 2 else 2
    score += (facts.classes > 0) + facts.is_async
    return "beginner" if score <= 1 else "intermediate" if score <= 3 else "advanced"


_INSTALL = re.compile(
    r"^(?:python3? -m )?pip3? install\s|^uv (?:pip install|add)\s|^npm (?:install|i|add)\s"
    r"|^yarn add\s|^pnpm (?:add|install)\s"
)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_PROMPT = re.compile(r"^\s*(?:[$>%!]\s*|PS>\s*)?")
_PY_INSTALL = ("pip", "python", "uv")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+]*")
_STOPWORDS = wordset(
    "the and for with from into your you this that these those using use how what when why which are "
    "was were can will not all any its our via per new get set about api apis guide example examples "
    "overview introduction section page docs documentation reference"
)


def prerequisites(content: str) -> list[str]:
    """Install commands on a page (``pip install …``, ``uv add …``, ``npm install …``), in order.

    A command counts in inline code or as a line of its own (after a ``$``/``%``/``!``
    prompt), not in running prose.
    """
    found: dict[str, None] = {}
    for line in content.split("\n"):
        candidates = [_PROMPT.sub("", line, count=1), *_INLINE_CODE.findall(line)]
        for text in candidates:
            text = _PROMPT.sub("", text, count=1)
            if not _INSTALL.match(text):
                continue
            cmd = " ".join(re.split(r"\s(?:#|&&|\|\||;|\|)", text)[0].split()).rstrip(".,:;)`")
            for quote in "\"'":
                if cmd.count(quote) % 2:
                    cmd = cmd.rstrip(quote)
            if len(cmd) < 200 and len(cmd.split()) > 2:
                found.setdefault(cmd, None)
    return list(found)


def for_language(commands: list[str], language: str) -> list[str]:
    if language == "python":
        return [c for c in commands if c.startswith(_PY_INSTALL)]
    if language in JS_LANGUAGES:
        return [c for c in commands if not c.startswith(_PY_INSTALL)]
    return commands


def tags_of(words: Iterable[str], *, is_async: bool = False, limit: int = 10) -> list[str]:
    """Use-case tags: the distinct meaningful words of headings and titles, in order."""
    tags: dict[str, None] = {}
    for text in words:
        for w in _WORD.findall(text):
            w = w.lower()
            if len(w) >= 3 and w not in _STOPWORDS:
                tags.setdefault(w, None)
    if is_async:
        tags.setdefault("async", None)
    return list(tags)[:limit]
