"""The small code analyses of examples, shared by their classification and the matcher.

Python goes through ``ast`` (after the clarity checks' preparation of doctest sessions,
magics and ``...`` placeholders); TypeScript/JavaScript through a tokenizer that drops
comments and strings.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from docmentor.clarity.checks.python import (
    harvest,
    parse_python,
    placeholders_filled,
    prepare,
    untagged_language,
)


def wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


JS_LANGUAGES = frozenset({"typescript", "javascript"})


# -- Python -------------------------------------------------------------------------

_BUILTINS = frozenset({*dir(builtins), "__file__", "__name__", "display", "get_ipython"})


# what starts a statement of a session: a ``>>>`` prompt or IPython's ``In [1]:``
_STATEMENT_PROMPT = re.compile(r">>>(?: |$)|In \[\d*\]:")


def leading_comments_blanked(code: str) -> str:
    """The code with the comment and blank lines before its first other line made blank (the
    lines stay, so line numbers do not move): what a block is — a ``>>>`` session, a shell
    session, plain code — is decided by its first line of code, not by a ``# Numbers with
    decimal places`` above it. A block of nothing but comments is left as it is."""
    lines = code.split("\n")
    for k, line in enumerate(lines):
        s = line.strip()
        if s and not s.startswith("#"):
            if k == 0 or not any(x.strip() for x in lines[:k]):
                return code
            return "\n" * k + "\n".join(lines[k:])
    return code


_DOES = (ast.Call, ast.Import, ast.ImportFrom, ast.With, ast.AsyncWith)


def untagged_python(code: str) -> str:
    """The language of a code block that names none (the clarity checks'
    ``untagged_language``: ``"python"`` when it parses and does something, else ``""``),
    its kind decided by its first line of code; a ``>>>`` session is read a statement at a
    time (:func:`python_reading`): one that does not parse does not make the others prose."""
    found = untagged_language(code)
    if found or not prepare(code, "python", skip_marked=False)[2]:
        return found
    tree, how = python_reading(code)
    if how == "statements dropped" and tree is not None and any(isinstance(n, _DOES) for n in ast.walk(tree)):
        return "python"
    return ""


def python_tree(code: str) -> ast.Module | None:
    """The parsed example, or None (a shell session, a template, hopelessly broken).

    Tolerant: ``>>>`` sessions, magics and ``...`` placeholders are handled as the
    clarity checks do, a session's statements that do not parse are dropped, and a few
    lines that still do not parse are blanked.
    """
    return python_reading(code)[0]


def python_parse(code: str) -> tuple[ast.Module | None, bool]:
    """(tree, parsed as written): the flag is False when placeholders, dropped statements or
    blanked lines were needed."""
    tree, how = python_reading(code)
    return tree, how == "as written"


Reading = Literal["as written", "placeholders filled", "statements dropped", "lines blanked", "skipped"]


@lru_cache(maxsize=4096)
def python_reading(code: str) -> tuple[ast.Module | None, Reading]:
    """(tree, how it was read): as written; with ``...`` placeholders filled; a ``>>>``
    session without the statements that do not parse on their own (``>>> print name``:
    each prompt is a statement of its own, as doctest runs them); or with up to five
    offending lines blanked (what follows them is then read out of context). Line numbers
    are those of the clarity checks' prepared source (``prepare``) in every case."""
    # a `# doctest: +SKIP` block is not run, but what it calls is documented all the same
    source, offsets, session, skipped = prepare(code, "python", skip_marked=False)
    if skipped:
        return None, "skipped"
    tree, error = parse_python(source)
    if tree is not None:
        return tree, "as written"
    source = placeholders_filled(source)
    tree, error = parse_python(source)
    if tree is not None:
        return tree, "placeholders filled"
    if session:
        kept = _parsing_statements(code, source, offsets)
        if kept is not None:
            tree, _ = parse_python(kept)
            if tree is not None:
                return tree, "statements dropped"
    lines = source.split("\n")
    for _ in range(5):  # blank the offending line: the rest of the example still counts
        if tree is not None or error is None or not error.lineno or error.lineno > len(lines):
            break
        lines[error.lineno - 1] = ""
        tree, error = parse_python("\n".join(lines))
    return tree, "lines blanked"


def _parsing_statements(code: str, source: str, offsets: Sequence[int]) -> str | None:
    """A session's prepared ``source`` without the statements that do not parse on their own:
    each is blanked, its first line unbinding the names it appears to bind (``x = None``), so
    that what later statements read of them is unknown, not an earlier binding's. The lines
    stay in place. None when every statement parses (the session fails as a whole)."""
    written = code.split("\n")
    src = source.split("\n")
    starts = [
        i
        for i, k in enumerate(offsets)
        if i == 0 or (0 <= k < len(written) and _STATEMENT_PROMPT.match(written[k].strip(" \t")))
    ]
    dropped = False
    for a, b in zip(starts, [*starts[1:], len(offsets)], strict=True):
        text = "\n".join(src[a:b])
        if parse_python(text + "\n")[0] is not None:
            continue
        dropped = True
        names = sorted(n for n in harvest(text) if n.isidentifier() and not keyword.iskeyword(n))
        src[a:b] = [" = ".join([*names, "None"]) if names else ""] + [""] * (b - a - 1)
    return "\n".join(src) if dropped else None


def python_placeholders(tree: ast.Module) -> bool:
    """Whether ``...`` stands in for something the reader must fill in: a call's argument or
    keyword value (``httpx.get(...)``, ``Client(api_key=...)``), an assigned value
    (``config = ...``) or a container's item (``[...]``). Not a block's ``...`` statement, a
    default, a subscript (``tuple[int, ...]``), nor the leading "required" marker of
    ``Field(..., description=…)``-style calls."""
    exempt = {
        id(n) for node in ast.walk(tree) if isinstance(node, ast.Subscript) for n in ast.walk(node.slice)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) + len(node.keywords) > 1:
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and first.value is Ellipsis:
                exempt.add(id(first))  # Field(..., description="…"): "required", not a blank
    for node in ast.walk(tree):
        values: list[ast.expr] = []
        if isinstance(node, ast.Call):
            values = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value is not None:
            values = [node.value]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            values = list(node.elts)
        elif isinstance(node, ast.Dict):
            values = [v for v in node.values if v is not None]
        for v in values:
            if isinstance(v, ast.Constant) and v.value is Ellipsis and id(v) not in exempt:
                return True
    return False


def python_free_names(tree: ast.Module) -> set[str]:
    """Names read but never bound in the example (one flat scope: good enough for docs)."""
    bound: set[str] = set()
    loaded: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
    return loaded - bound - _BUILTINS


def python_is_async(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.Await | ast.AsyncWith | ast.AsyncFor | ast.AsyncFunctionDef) for n in ast.walk(tree)
    )


# -- TypeScript / JavaScript -----------------------------------------------------------

_JS_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
    |(?P<str>"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?)
    |(?P<tpl>`)
    |(?P<name>[A-Za-z_$][\w$]*)
    |(?P<num>\d[\w.]*)
    |(?P<op>\?\.|\.\.\.|=>|===|!==|==|!=|<=|>=|&&|\|\||\?\?|\+\+|--|[-+*/%=<>!&|^~?:;,.(){}\[\]@#])""",
    re.S | re.X,
)
JS_KEYWORDS = wordset(
    "abstract as async await break case catch class const continue debugger declare default delete do "
    "else enum export extends false finally for from function if implements import in instanceof "
    "interface let new null of private protected public readonly return satisfies static super switch "
    "this throw true try type typeof undefined var void while with yield"
)
JS_GLOBALS = wordset(
    "console JSON Math Object Array Promise process require module exports Date Number String Boolean "
    "Symbol Error TypeError Map Set WeakMap Buffer Float32Array Float64Array Int32Array Uint8Array "
    "BigInt RegExp Intl Reflect Proxy setTimeout clearTimeout setInterval fetch URL window document "
    "globalThis parseInt parseFloat isNaN Infinity NaN __dirname __filename describe it test expect "
    "beforeAll afterAll beforeEach afterEach jest"
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: Literal["name", "str", "num", "op"]
    text: str


@lru_cache(maxsize=4096)
def js_tokens(code: str) -> tuple[Token, ...]:
    """Tokens of a TS/JS example without comments; a template literal is one ``str`` token
    followed by the tokens of its ``${…}`` expressions."""
    out: list[Token] = []
    _tokenize_js(code, out)
    return tuple(out)


def _tokenize_js(code: str, out: list[Token]) -> None:
    i, n = 0, len(code)
    while i < n:
        m = _JS_TOKEN.match(code, i)
        if m is None:
            i += 1
            continue
        kind = m.lastgroup
        i = m.end()
        if kind in ("ws", "comment"):
            continue
        if kind == "tpl":
            i = _template(code, i, out)
        elif kind in ("name", "str", "num", "op"):
            out.append(Token(kind, m.group()))  # type: ignore[arg-type]


def _template(code: str, i: int, out: list[Token]) -> int:
    """Scan a template literal from just after its backtick; returns the index after it."""
    out.append(Token("str", "`"))
    inner: list[str] = []
    n = len(code)
    while i < n and code[i] != "`":
        if code[i] == "\\":
            i += 2
            continue
        if code.startswith("${", i):
            depth, j = 1, i + 2
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                j += 1
            inner.append(code[i + 2 : j - 1])
            i = j
            continue
        i += 1
    for expr in inner:
        _tokenize_js(expr, out)
    return i + 1


def js_declared(tokens: Sequence[Token]) -> set[str]:
    """Names a TS/JS example declares: imports, variables, functions, classes, parameters."""
    declared: set[str] = set()
    n = len(tokens)
    for k, tok in enumerate(tokens):
        if tok.kind != "name":
            continue
        prev = tokens[k - 1].text if k else ""
        nxt = tokens[k + 1].text if k + 1 < n else ""
        if (
            prev in ("const", "let", "var", "function", "class", "as", "catch", "interface", "type", "enum")
            or nxt == "=>"
            or (prev == "import" and nxt in ("from", "=", ","))
        ):
            declared.add(tok.text)
    # destructuring, import braces and parameter lists: every name inside the brackets
    for k, tok in enumerate(tokens):
        if tok.text in ("{", "[", "(") and k:
            before = tokens[k - 1].text
            close = _closing(tokens, k)
            after = tokens[close + 1].text if close + 1 < n else ""
            if (
                before in ("const", "let", "var", "import", "catch")
                or (tok.text == "(" and after in ("=>", "{", ":"))
                or (tok.text == "(" and k >= 2 and tokens[k - 2].text == "function")
            ):
                declared.update(t.text for t in tokens[k + 1 : close] if t.kind == "name")
    return declared


def _closing(tokens: Sequence[Token], k: int) -> int:
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = 0
    for j in range(k, len(tokens)):
        t = tokens[j].text
        if t in pairs:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def js_free_names(tokens: Sequence[Token]) -> set[str]:
    """Heads of member chains and calls that the example never declares."""
    declared = js_declared(tokens)
    free: set[str] = set()
    for k, tok in enumerate(tokens):
        if tok.kind != "name" or tok.text in JS_KEYWORDS or tok.text in JS_GLOBALS:
            continue
        prev = tokens[k - 1].text if k else ""
        nxt = tokens[k + 1].text if k + 1 < len(tokens) else ""
        if prev in (".", "?.", "function", "class") or tok.text in declared or nxt not in (".", "?.", "("):
            continue
        close = _closing(tokens, k + 1) if nxt == "(" else k
        if nxt == "(" and close + 1 < len(tokens) and tokens[close + 1].text == "{":
            continue  # a method definition: `name(args) {`
        free.add(tok.text)
    return free
