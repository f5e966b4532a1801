"""Checks on code blocks: do they parse, do they say their language, are they explained."""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from collections.abc import Iterator

import yaml

from docmentor._yaml import TolerantLoader
from docmentor.clarity.checks._page import SNIPPET_LINE, clean_prose, page_of
from docmentor.clarity.checks._registry import check
from docmentor.clarity.checks.python import analyse
from docmentor.clarity.models import CheckedDocument, Issue

_ELLIPSIS = re.compile(r"\.\.\.|…")
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|<%.*?%>", re.S)
_TOML_AT = re.compile(r"\(at line (\d+), column \d+\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_WORD = re.compile(r"[^\W\d_]{2,}")
# Headings that say what the code under them is, in API references: "Example", "Signature".
_SELF_EXPLAINED = re.compile(
    r"^\W*(examples?|usage( examples?)?|signature|output|results?|returns?|response|sample)\W*$",
    re.IGNORECASE,
)
_SYNTAX_FIX = "Fix the example so that it parses; readers copy it as it is."


def _quote_at(lines: list[str], offset: int) -> str:
    """The line at ``offset``, or the nearest non-blank line above it."""
    for k in range(min(offset, len(lines) - 1), -1, -1):
        if lines[k].strip():
            return lines[k]
    return ""


def _data_error(language: str, code: str) -> tuple[str, int] | None:
    """(message, 1-based line in the block) when a JSON / YAML / TOML block does not parse."""
    lines = ["" if SNIPPET_LINE.match(s) else s for s in code.split("\n")]
    code = "\n".join(lines)
    if not code.strip() or _ELLIPSIS.search(code) or _TEMPLATE.search(code):
        return None  # empty, elided ("..."), or a template: not meant to parse as is
    if language == "json":
        try:
            json.loads(code)
        except json.JSONDecodeError as exc:
            if _json_lines(code) or _json_member(code):
                return None
            plain = _without_comments(code)  # JSON with comments (tsconfig, VS Code settings)
            if plain != code and (_parses(plain) or _json_member(plain)):
                # valid once its comments and trailing commas go: say so, and how to mark it
                return (
                    "JSON does not parse: comments and trailing commas are not JSON (a block of "
                    "JSON with comments is `jsonc`)",
                    exc.lineno,
                )
            return f"JSON does not parse: {exc.msg}", exc.lineno
        except (ValueError, RecursionError):
            return None
        return None
    if language in ("yaml", "yml"):
        try:
            for _ in yaml.load_all(code, Loader=TolerantLoader):
                pass
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = exc.problem or exc.context or "invalid YAML"
            return f"YAML does not parse: {problem}", (mark.line + 1 if mark else 1)
        except (yaml.YAMLError, ValueError, TypeError, RecursionError):
            return "YAML does not parse", 1
        return None
    if language == "toml":
        try:
            tomllib.loads(code)
        except tomllib.TOMLDecodeError as exc:
            m = _TOML_AT.search(str(exc))
            msg = _TOML_AT.sub("", str(exc)).strip()
            return f"TOML does not parse: {msg}", int(m.group(1)) if m else 1
        except (ValueError, RecursionError):
            return None
    return None


def _parses(code: str) -> bool:
    try:
        json.loads(code)
    except (ValueError, RecursionError):
        return False
    return True


def _without_comments(code: str) -> str:
    """``code`` without ``//`` and ``/* */`` comments outside strings, and without the commas
    before a closing bracket they leave (JSONC, as tsconfig.json and docs excerpts write it).
    One pass over the text."""
    out: list[str] = []
    i, n, in_string = 0, len(code), False
    while i < n:
        c = code[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(code[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif code.startswith("//", i):
            end = code.find("\n", i)
            i = n if end < 0 else end
            continue
        elif code.startswith("/*", i):
            end = code.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(c)
        i += 1
    return _TRAILING_COMMA.sub(r"\1", "".join(out))


# a comma before a closing bracket (whitespace between): linear, one character class each
_TRAILING_COMMA = re.compile(r",[ \t\r\n]*+([\]}])")


def _json_member(code: str) -> bool:
    """A fragment of an object (``"key": value``, as shown from a bigger file) parses inside ``{}``."""
    if not code.lstrip().startswith('"'):
        return False
    try:
        json.loads("{" + code.rstrip().rstrip(",") + "}")
    except (ValueError, RecursionError):
        return False
    return True


def _json_lines(code: str) -> bool:
    """JSON Lines (one document per line) parse line by line."""
    rows = [s for s in code.split("\n") if s.strip()]
    if len(rows) < 2:
        return False
    try:
        for row in rows:
            json.loads(row)
    except ValueError:
        return False
    return True


@check("syntax")
def syntax_errors(doc: CheckedDocument) -> Iterator[Issue]:
    """Code blocks that do not parse: Python (``ast``), JSON, YAML and TOML.

    Python is tolerant of ``>>>`` sessions (prompts stripped, output skipped), ``...``
    placeholders, IPython magics and top-level ``await``; blocks that are templates,
    shell sessions or marked ``# doctest: +SKIP`` are skipped. JSON/YAML/TOML blocks with
    ``...`` elisions or ``{{ }}`` templating are skipped. Unresolved snippet-include lines
    are ignored everywhere.
    """
    page = page_of(doc)
    for ex in analyse(page):
        if ex.error is None:
            continue
        err = ex.error
        offset = ex.content_offset(err.lineno or 1)
        quote = _quote_at(page.code_blocks[ex.index].code.split("\n"), offset)
        yield page.issue(
            type="syntax_error",
            severity="critical",
            dimensions=["instruction_clarity"],
            line=page.code_line(ex.index, offset),
            message=(
                f"Python example does not parse: {err.msg} (line {offset + 1} of the block); its names "
                "are checked once it parses"
            ),
            suggested_fix=_SYNTAX_FIX,
            quote=quote,
            effort="low",
        )
    for i, block in enumerate(page.code_blocks):
        lang = block.language.lower()
        if lang not in ("json", "yaml", "yml", "toml"):
            continue
        found = _data_error(lang, block.code)
        if found is None:
            continue
        message, lineno = found
        code_lines = block.code.split("\n")
        offset = min(max(lineno - 1, 0), max(len(code_lines) - 1, 0))
        yield page.issue(
            type="syntax_error",
            severity="critical",
            dimensions=["instruction_clarity"],
            line=page.code_line(i, offset),
            message=f"{message} (line {offset + 1} of the block)",
            suggested_fix=_SYNTAX_FIX,
            quote=_quote_at(code_lines, offset),
            effort="low",
        )


@check("code-language")
def missing_code_language(doc: CheckedDocument) -> Iterator[Issue]:
    """Fenced code blocks that do not name their language (no highlighting, no hint what to run).

    Tagged ``consistency``: the page mixes tagged and untagged code, and readers cannot
    tell a shell command from Python or from output.
    """
    page = page_of(doc)
    if not page.markdown:
        return
    for fence in page.fences:
        if fence.info.strip():
            continue
        first = next((s for s in fence.code.split("\n") if s.strip()), "")
        yield page.issue(
            type="missing_code_language",
            severity="info",
            dimensions=["consistency"],
            line=fence.line,
            message="Code block has no language (```python, ```bash, ```text for output …)",
            suggested_fix="Name the language after the opening fence.",
            quote=first,
            effort="low",
        )


@check("code-explanation")
def missing_explanation(doc: CheckedDocument) -> Iterator[Issue]:
    """Sections that hold code blocks but no explanatory prose (only the heading and code).

    Prose is any text outside code, HTML comments, tab markers, snippet/mkdocstrings
    lines and images; one issue per section, at its first code block. Not reported: a
    section with subsections (an API signature explained by its Parameters/Returns
    subsections), and a section whose heading names what the code is ("Example",
    "Usage", "Signature", "Output").
    """
    page = page_of(doc)
    if not page.markdown or not page.fences:
        return
    heads = page.headings
    bounds = [0, *(h[0] for h in heads), len(page.lines)]
    fences = sorted(page.fences, key=lambda f: f.start)
    k = 0
    for n_section, (a, b) in enumerate(itertools.pairwise(bounds)):
        inside = []
        while k < len(fences) and fences[k].start < b:
            if fences[k].start >= a:
                inside.append(fences[k])
            k += 1
        if not inside:
            continue
        if n_section > 0:  # a heading's section (0 is the text before the first heading)
            _, level, title = heads[n_section - 1]
            has_children = n_section < len(heads) and heads[n_section][1] > level
            if has_children or _SELF_EXPLAINED.match(title):
                continue  # explained by its subsections (API signatures), or an "Example" heading
        if any(
            page.kinds[i] == "prose" and _WORD.search(_IMAGE.sub(" ", clean_prose(page.lines[i])))
            for i in range(a, b)
        ):
            continue
        first = inside[0]
        n = len(inside)
        yield page.issue(
            type="missing_explanation",
            severity="warning",
            dimensions=["instruction_clarity"],
            line=first.line,
            message=(
                f"{'Code block has' if n == 1 else f'{n} code blocks have'} no explanation: "
                "the section holds code but no text saying what it does or when to use it"
            ),
            suggested_fix="Add a sentence before the code: what it does, and what the reader should see.",
            quote=next((s for s in first.code.split("\n") if s.strip()), ""),
            effort="medium",
        )
