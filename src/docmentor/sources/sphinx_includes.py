"""Sphinx and MyST include directives: option blocks, option filters and code rendering.

``.. literalinclude::`` / ``.. include::`` (and their MyST fences) are located, opened
and expanded by ``docmentor.sources.includes``; this module holds the parts that are
pure text work: reading a directive's options (reST option lists, MyST ``---`` YAML
blocks), applying Sphinx's filters (``:pyobject:``, ``:lines:``, ``:start-after:`` …)
in Sphinx's order, and rendering literal text as a reST ``code-block`` or a Markdown
fence. Also the line indent helpers both modules use.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path

_TAB_WIDTH = 4
# ``:key: value``; the value is the rest of the line, stripped by :func:`_option` (a lazy
# ``(.*?)[ \t]*$`` was cubic on a line of spaces: options are read from the user's files).
_OPTION = re.compile(r"^[ \t]*+:(?P<key>[A-Za-z0-9_-]++):(?P<value>(?:[ \t].*)?)$")
_BACKTICKS = re.compile(r"^[ \t]*(`{3,})")

_LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".jsx": "jsx", ".ts": "typescript", ".tsx": "tsx", ".rs": "rust", ".go": "go",
    ".java": "java", ".kt": "kotlin", ".scala": "scala", ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".rb": "ruby",
    ".php": "php", ".swift": "swift", ".sh": "bash", ".bash": "bash", ".zsh": "bash",
    ".ps1": "powershell", ".sql": "sql", ".yaml": "yaml", ".yml": "yaml", ".json": "json",
    ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".xml": "xml", ".html": "html",
    ".css": "css", ".md": "markdown", ".rst": "rst", ".r": "r", ".lua": "lua",
    ".proto": "protobuf", ".dockerfile": "docker",
}  # fmt: skip


class OptionError(ValueError):
    pass


def indent_text(lines: Sequence[str], space: str) -> list[str]:
    space = space.expandtabs(_TAB_WIDTH)
    return [space + line if line.strip() else "" for line in lines]


def dedent_text(lines: list[str]) -> list[str]:
    return textwrap.dedent("\n".join(lines)).split("\n") if lines else []


def _option(line: str) -> tuple[str, str] | None:
    """A ``:key: value`` option line as (key, value), else None."""
    m = _OPTION.match(line)
    return None if m is None else (m["key"], m["value"].strip(" \t"))


def rst_options(lines: Sequence[str], start: int, indent: str) -> tuple[dict[str, str], int]:
    """A reST directive's ``:key: value`` options from line ``start``; also the first line after them."""
    opts: dict[str, str] = {}
    j = start
    while j < len(lines):
        o = _option(lines[j])
        if o is None or len(lines[j]) - len(lines[j].lstrip()) <= len(indent):
            break
        opts[o[0]] = o[1]
        j += 1
    return opts, j


def myst_options(inner: Sequence[str]) -> dict[str, str]:
    """The options of a MyST directive fence, from the lines between its fences."""
    opts: dict[str, str] = {}
    body = [line.strip() for line in inner]
    if body and body[0] == "---":  # MyST's YAML option block
        end = body.index("---", 1) if "---" in body[1:] else len(body)
        for entry in body[1:end]:
            key, _, value = entry.partition(":")
            opts[key.strip()] = value.strip().strip("\"'")
    else:
        for entry in body:
            if o := _option(entry):
                opts[o[0]] = _unquoted(o[1])
    return opts


def _unquoted(value: str) -> str:
    """A MyST option value as its YAML reading gives it: ``'teaser-begin -->'`` (attrs'
    includes) is ``teaser-begin -->``; reST options keep their quotes, as Sphinx does."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _parse_linenos(spec: str, total: int) -> list[int]:
    """0-based indexes for a Sphinx ``:lines:`` spec such as ``1,3,5-10,20-``."""
    picked: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        try:
            if "-" in part:
                first, last = part.split("-", 1)
                begin, end = int(first or 1), int(last or total)
            else:
                begin = end = int(part)
        except ValueError:
            raise OptionError(f"invalid :lines: value {spec!r}") from None
        if begin < 1 or end < begin:
            raise OptionError(f"invalid :lines: value {spec!r}")
        picked.extend(k - 1 for k in range(begin, min(end, total) + 1))
    if not picked:
        raise OptionError(f":lines: {spec!r} selects no line")
    return picked


def _pyobject(lines: list[str], dotted: str) -> list[str]:
    try:
        body: list[ast.stmt] = ast.parse("\n".join(lines)).body
    except SyntaxError:
        raise OptionError(f"pyobject {dotted!r}: the file is not valid Python") from None
    node: ast.stmt | None = None
    for part in dotted.split("."):
        defs = (n for n in body if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef))
        node = next((n for n in defs if n.name == part), None)
        if node is None:
            raise OptionError(f"pyobject {dotted!r} not found")
        body = getattr(node, "body", [])
    assert node is not None
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    return lines[first - 1 : node.end_lineno or node.lineno]


def filter_lines(lines: list[str], opts: dict[str, str]) -> list[str]:
    """Sphinx/docutils option filters, in Sphinx's order."""
    if "pyobject" in opts:
        lines = _pyobject(lines, opts["pyobject"])
    if "start-line" in opts or "end-line" in opts:
        try:
            lo = int(opts.get("start-line") or 0)
            hi = int(opts["end-line"]) if opts.get("end-line") else None
        except ValueError:
            raise OptionError("invalid :start-line:/:end-line:") from None
        lines = lines[lo:hi]
    for key, skip in (("start-at", 0), ("start-after", 1)):
        if key in opts:
            hit = next((k for k, line in enumerate(lines) if opts[key] in line), None)
            if hit is None:
                raise OptionError(f"{key} pattern not found: {opts[key]!r}")
            lines = lines[hit + skip :]
    for key, keep in (("end-at", 1), ("end-before", 0)):
        if key in opts:
            hit = next((k for k, line in enumerate(lines) if opts[key] in line), None)
            if hit is None:
                raise OptionError(f"{key} pattern not found: {opts[key]!r}")
            lines = lines[: hit + keep]
    if "lines" in opts:
        lines = [lines[k] for k in _parse_linenos(opts["lines"], len(lines))]
    if "dedent" in opts:
        if not opts["dedent"]:
            lines = dedent_text(lines)
        else:
            try:
                width = int(opts["dedent"])
            except ValueError:
                raise OptionError(f"invalid :dedent: {opts['dedent']!r}") from None
            lines = [line[width:] if not line[:width].strip() else line.lstrip() for line in lines]
    if opts.get("prepend"):
        lines = [opts["prepend"], *lines]
    if opts.get("append"):
        lines = [*lines, opts["append"]]
    return lines


def rst_code(lines: Sequence[str], lang: str, indent: str, caption: str | None) -> list[str]:
    out = [f"{indent}.. code-block:: {lang}"]
    if caption:
        out.append(f"{indent}   :caption: {caption}")
    out.append("")
    out.extend(indent_text(lines, indent + "   "))
    return out


def markdown_code(lines: Sequence[str], lang: str, indent: str) -> list[str]:
    longest = max((len(m[1]) for line in lines if (m := _BACKTICKS.match(line))), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{indent}{fence}{lang}", *indent_text(lines, indent), f"{indent}{fence}"]


def code_language(opts: dict[str, str], target: Path) -> str:
    return opts.get("language") or opts.get("code") or _LANGUAGES.get(target.suffix.lower(), "text")
