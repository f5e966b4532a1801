"""Code examples of an indexed source: extraction, and what each example *is*.

Every code block the engine stored (snippet includes already resolved) becomes an
:class:`Example` with its language normalised, its place (document, line, heading path,
content tabs), whether it is a whole program or a snippet, a complexity level, use-case
tags and the install commands found on its page. Which APIs an example uses is the
matcher's job (:mod:`docmentor.library.examples.matcher`), which also refines the complexity
with the real API count.

The small code analyses live here and are shared with the matcher: Python goes through
``ast`` (after the clarity checks' preparation of doctest sessions, magics and ``...``
placeholders); TypeScript/JavaScript through a tokenizer that drops comments and strings.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from docmentor.clarity.checks.python import parse_python, placeholders_filled, prepare
from docmentor.errors import NotFoundError
from docmentor.library.knowledge.importance import prose_text
from docmentor.library.models import Example
from docmentor.parse.common import map_line
from docmentor.parse.fences import Fence, closes, fence_open
from docmentor.store.docs import CodeBlockRow, code_blocks, documents_by_path, section_text

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.store.db import Store

__all__ = [
    "DEFAULT_LANGUAGES",
    "SUPPORTED_LANGUAGES",
    "complexity_of",
    "detect_languages",
    "extract_examples",
    "is_complete",
    "normalize_language",
]


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


DEFAULT_LANGUAGES = ("python", "typescript", "javascript")
SUPPORTED_LANGUAGES = ("python", "typescript", "javascript", "go", "rust")
JS_LANGUAGES = frozenset({"typescript", "javascript"})

_ALIASES = {
    "py": "python",
    "python3": "python",
    "py3": "python",
    "pycon": "python",
    "python-repl": "python",
    "ipython": "python",
    "ipython3": "python",
    "ts": "typescript",
    "tsx": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "js": "javascript",
    "jsx": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "node": "javascript",
    "golang": "go",
    "rs": "rust",
}


def normalize_language(tag: str) -> str:
    """The canonical language of a fence's info string (``py`` → ``python``, ``tsx`` → ``typescript``)."""
    lang = tag.strip().lower().split()[0] if tag.strip() else ""
    lang = lang.strip("{}.")
    return _ALIASES.get(lang, lang)


# -- Python -------------------------------------------------------------------------

_BUILTINS = frozenset({*dir(builtins), "__file__", "__name__", "display", "get_ipython"})


def python_tree(code: str) -> ast.Module | None:
    """The parsed example, or None (a shell session, a template, hopelessly broken).

    Tolerant: ``>>>`` sessions, magics and ``...`` placeholders are handled as the
    clarity checks do, and a few lines that still do not parse are blanked.
    """
    return _python_parse(code)[0]


@lru_cache(maxsize=4096)
def _python_parse(code: str) -> tuple[ast.Module | None, bool]:
    """(tree, parsed as written): the flag is False when placeholders or blanked lines were needed."""
    # a `# doctest: +SKIP` block is not run, but what it calls is documented all the same
    source, _offsets, _session, skipped = prepare(code, "python", skip_marked=False)
    if skipped:
        return None, False
    tree, error = parse_python(source)
    if tree is not None:
        return tree, True
    source = placeholders_filled(source)
    tree, error = parse_python(source)
    lines = source.split("\n")
    for _ in range(5):  # blank the offending line: the rest of the example still counts
        if tree is not None or error is None or not error.lineno or error.lineno > len(lines):
            break
        lines[error.lineno - 1] = ""
        tree, error = parse_python("\n".join(lines))
    return tree, False


def _python_placeholders(tree: ast.Module) -> bool:
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


def _python_free_names(tree: ast.Module) -> set[str]:
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
JS_KEYWORDS = _wordset(
    "abstract as async await break case catch class const continue debugger declare default delete do "
    "else enum export extends false finally for from function if implements import in instanceof "
    "interface let new null of private protected public readonly return satisfies static super switch "
    "this throw true try type typeof undefined var void while with yield"
)
JS_GLOBALS = _wordset(
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


def _js_free_names(tokens: Sequence[Token]) -> set[str]:
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


# -- what an example is -------------------------------------------------------------------


def is_complete(code: str, language: str) -> bool:
    """A whole program: it parses, defines or imports every name it uses, and leaves no
    ``...`` for the reader to fill in (``httpx.get(...)``; a stub's ``...`` body is fine)."""
    if language == "python":
        tree, as_written = _python_parse(code)
        return (
            tree is not None
            and as_written
            and bool(tree.body)
            and not _python_free_names(tree)
            and not _python_placeholders(tree)
        )
    if language in JS_LANGUAGES:
        tokens = js_tokens(code)
        acts = any(t.text in ("(", "import", "require") for t in tokens)  # not a bare declaration
        return acts and not _js_free_names(tokens)
    return False


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


# -- pages -------------------------------------------------------------------------------

_INSTALL = re.compile(
    r"^(?:python3? -m )?pip3? install\s|^uv (?:pip install|add)\s|^npm (?:install|i|add)\s"
    r"|^yarn add\s|^pnpm (?:add|install)\s"
)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_PROMPT = re.compile(r"^\s*(?:[$>%!]\s*|PS>\s*)?")
_PY_INSTALL = ("pip", "python", "uv")
_TAB = re.compile(r"^(\s*)===[+!]?\s+\"([^\"]*)\"")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+]*")
_STOPWORDS = _wordset(
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


def _for_language(commands: list[str], language: str) -> list[str]:
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


def _tabs(lines: list[str], k: int) -> list[str]:
    """Labels of the content tabs (``=== "Sync API"``) enclosing the fence at line ``k``."""
    threshold = len(lines[k]) - len(lines[k].lstrip())
    labels: list[str] = []
    for j in range(k - 1, -1, -1):
        if threshold == 0:
            break
        line = lines[j]
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent >= threshold:
            continue
        m = _TAB.match(line)
        if m is None:
            break  # the container (admonition, list item …) ends here
        labels.append(m.group(2).strip())
        threshold = indent
    return labels[::-1]


_STATEMENTS = (ast.Call, ast.Import, ast.ImportFrom, ast.With, ast.AsyncWith)


def untagged_language(code: str) -> str:
    """The language of a code block that names none: ``"python"`` when it parses as Python
    and does something (a call, an import, a ``with``), else ``""``.

    Sphinx highlights reST ``::`` literal blocks as Python when they parse (its default
    ``highlight_language``), and many Markdown docs leave Python fences untagged. Output,
    shell commands and prose do not parse, or parse to bare names and literals; config
    files (``key: value``, ``name = "x"``, ``API_KEY=sk-abc``) parse to assignments only.
    """
    source, _, _, skipped = prepare(code, "python", skip_marked=False)
    if skipped or not source.strip():
        return ""
    tree, _ = parse_python(source)
    if tree is None or not any(isinstance(node, _STATEMENTS) for node in ast.walk(tree)):
        return ""
    return "python"


def _slug(path: str) -> str:
    stem = re.sub(r"\.(md|mdx|markdown|rst|txt|ipynb)$", "", path, flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "doc"


def extract_examples(
    engine: Docmentor, source: str, *, languages: Sequence[str] | None = DEFAULT_LANGUAGES
) -> list[Example]:
    """Every code example of an indexed source, in document (path) and line order.

    Args:
        engine: the index.
        source: the source name.
        languages: canonical languages to keep; None keeps every language.

    ``example_id`` is ``<document slug>-<n>``, n the block's 1-based position among all
    the document's code blocks, so ids do not move when ``languages`` changes.

    Raises:
        NotFoundError: no such source.
    """
    if not engine.store.has_source(source):
        raise NotFoundError(f"unknown source {source!r}", hint="index it first: docmentor add PATH")
    wanted = None if languages is None else {normalize_language(x) for x in languages}
    store = engine.store
    docs = documents_by_path(store, source)
    slugs: set[str] = set()
    examples: list[Example] = []
    for doc in docs:
        slug = _slug(doc.path)
        if slug in slugs:
            slug = f"{slug}-{hashlib.sha1(doc.path.encode()).hexdigest()[:6]}"
        slugs.add(slug)
        # the section's text once per section, not once per block (a long page with many
        # examples in one section repeated it per block: SQLAlchemy's docs, 20 s of 70)
        blocks = code_blocks(store, doc.id)
        picked: list[tuple[int, CodeBlockRow, str]] = []
        for n, b in enumerate(blocks, 1):
            lang = normalize_language(b.language) or untagged_language(b.code)
            if lang and (wanted is None or lang in wanted) and b.code.strip():
                picked.append((n, b, lang))
        if not picked:
            continue
        content = store.content(doc.id)
        lines = content.split("\n")
        fence_at = _fence_lines(lines, store.line_map(doc.id))
        installs = prerequisites(content)
        prose_of: dict[int, str] = {}  # section id → its prose
        for n, block, lang in picked:
            if lang == "python" and prepare(block.code, "python")[3] in ("empty", "shell session"):
                continue
            heading_path = [h for h in block.heading_path if h]
            k = fence_at.get(block.line)
            tabs = _tabs(lines, k) if k is not None else []
            heading = heading_path[-1] if heading_path else (doc.title or doc.path)
            title = heading
            if tabs and normalize_language(re.sub(r"\[\^\w+\]", "", tabs[-1])) not in (lang, "python3"):
                title = f"{heading} ({tabs[-1]})"
            facts = code_facts(block.code, lang)
            examples.append(
                Example(
                    example_id=f"{slug}-{n}",
                    title=title,
                    code=block.code,
                    language=lang,
                    source=source,
                    path=doc.path,
                    line=block.line,
                    heading_path=heading_path,
                    tabs=tabs,
                    complete=is_complete(block.code, lang),
                    use_case=heading,
                    complexity=complexity_of(block.code, lang),
                    tags=tags_of([doc.title, *heading_path], is_async=facts.is_async),
                    prerequisites=_for_language(installs, lang),
                    context=_section_prose(store, block.section_id, prose_of),
                )
            )
    return examples


CONTEXT_CHARS = 1500


def _section_prose(store: Store, section_id: int, cache: dict[int, str]) -> str:
    """:func:`_prose` of a stored section, read and computed once per section."""
    if section_id not in cache:
        cache[section_id] = _prose(section_text(store, section_id) or "")
    return cache[section_id]


def _prose(section_text: str) -> str:
    """The words around an example: its section without code blocks (for finding APIs by task)."""
    text = prose_text(section_text or "")  # one line scan: linear, whatever the fences
    return " ".join(text.split())[:CONTEXT_CHARS]


def _fence_lines(lines: list[str], line_map: list[int] | None) -> dict[int, int]:
    """Original-file line of each opening fence → its 0-based line in the stored text."""
    out: dict[int, int] = {}
    inside: Fence | None = None
    for k, line in enumerate(lines):
        if inside is None:
            inside = fence_open(line, any_indent=True)
            if inside is not None:
                out.setdefault(map_line(line_map, k + 1), k)
        elif closes(line, inside, any_indent=True):
            inside = None
    return out


def detect_languages(
    examples: Iterable[Example],
    min_examples: int = 5,
    *,
    supported: Collection[str] | None = SUPPORTED_LANGUAGES,
) -> list[str]:
    """Languages with more than ``min_examples`` examples, the most frequent first.

    Only ``supported`` languages count (None: any language, shell and JSON included).
    """
    counts = Counter(
        ex.language for ex in examples if ex.language and (supported is None or ex.language in supported)
    )
    return [lang for lang, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n > min_examples]
