"""Python examples of a page: preparing them for ``ast``, and what they define and use.

Preparation keeps every line in place (so errors point at the right line) and makes
the tolerances explicit:

* ``>>>`` / ``...`` doctest sessions and IPython ``In [1]:`` prompts are stripped and
  their output lines dropped;
* IPython magics (``%pip``, ``!ls``) and unresolved snippet includes (``--8<--``,
  ``{!file!}``) become blank lines; a line holding only ``…`` becomes ``...``;
* blocks that are templates (``{{ }}``, ``{% %}``), marked ``# doctest: +SKIP``, or
  clearly a shell session (``$ pip install …``) are not checked at all.

The name analysis uses :mod:`symtable` (Python's own scoping rules) per block and walks
the page's blocks in order: a name is fine when a block defines or imports it, an
earlier block did, or it is a builtin.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
import sys
import textwrap
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

from docmentor.clarity.checks._page import SNIPPET_LINE, Page
from docmentor.parse.fences import Fence, closes, fence_open
from docmentor.sources.sphinx_doctest import global_setup, page_setup_blocks

PY_LANGS = frozenset(
    {"python", "py", "python3", "py3", "pycon", "ipython", "ipython3", "python-repl", "pyi", "sage"}
)
SESSION_LANGS = frozenset({"pycon", "python-repl"})
# Names a reader never has to define: builtins, REPL/notebook helpers, method fragments.
KNOWN_NAMES = frozenset(
    {*dir(builtins), "display", "get_ipython", "In", "Out", "self", "cls", "_", "__file__", "__name__"}
)
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}

SESSION_PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)")
_IPY_IN = re.compile(r"^In \[\d*\]: ?")
_IPY_CONT = re.compile(r"^\s+\.\.\.: ?")
_SHELL_START = re.compile(
    r"^(\$ |> \S|(pip3?|pipx|uv|conda|mamba|poetry|pdm|hatch)\s+(install|add|run|pip|sync)\b"
    r"|python3?\s+(-m\s|-c\s|\S+\.py\b)|cd\s|export\s|curl\s|git\s(clone|checkout)\b)"
)
# A first line that is a shell command (checked only when the block does not parse).
_SHELL_LIKE = re.compile(
    r"^(\$|>|PS>)\s|^\$Env:|^(sudo|pip3?|pipx|uv|conda|mamba|poetry|pdm|hatch|npm|npx|yarn|pnpm|brew|apt|"
    r"apt-get|docker|git|curl|wget|mkdir|cd|ls|rm|cp|mv|cat|echo|source|export|set|chmod|touch|python3?|"
    r"node|cargo|make|kubectl|helm|deactivate|activate|modal|ollama|streamlit|uvicorn|pytest)\b\s*[^\s=(\[.,:]"
)
_ARG_ELLIPSIS = re.compile(r"(?<=[(,\[])(\s*)(?:\.\.\.|…)(?=\s*[,)\]])")
_SPREAD_ELLIPSIS = re.compile(r"(?:\.\.\.|…)(?=[A-Za-z_])")
_HARVEST = (
    re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)", re.M),
    re.compile(r"^\s*class\s+([A-Za-z_]\w*)", re.M),
    re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)", re.M),
    re.compile(r"^\s*for\s+([A-Za-z_]\w*)\s+in\b", re.M),
    re.compile(r"\bas\s+([A-Za-z_]\w*)"),
)
_IMPORT_LINE = re.compile(r"^\s*import\s+([\w., ]+)|^\s*from\s+([\w.]+)\s+import\s+\(?([\w, *]+)", re.M)
_ASSIGN_TUPLE = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*=(?!=)", re.M)


@dataclass(slots=True)
class PyExample:
    """One Python code block of a page, prepared and analysed."""

    index: int  # position in ``Page.code_blocks``
    source: str  # what was handed to ``ast`` ("" when skipped)
    offsets: list[int]  # source line i+1 comes from content line offsets[i] (0-based)
    session: bool  # a ``>>>`` session
    skipped: str = ""  # why the block is not checked ("" when it is)
    tree: ast.Module | None = None
    error: SyntaxError | None = None
    defines: set[str] = field(default_factory=set)  # module-level names it binds
    uses: dict[str, int] = field(default_factory=dict)  # free name → source line of first use
    imports: dict[str, int] = field(default_factory=dict)  # top-level module → source line
    wildcard: bool = False  # ``from x import *``, or an unresolved snippet include: anything may be defined
    opaque: bool = False  # holds an unresolved snippet include: its own names are not checked
    has_call: bool = False

    def content_offset(self, source_line: int) -> int:
        """0-based line in the block's content of 1-based ``source_line``."""
        if not self.offsets:
            return 0
        return self.offsets[min(max(source_line, 1), len(self.offsets)) - 1]


def _is_template(code: str) -> bool:
    """Whether ``{{ … }}`` or ``{% … %}`` is in the code (one forward scan each)."""
    for opening, closing in (("{{", "}}"), ("{%", "%}")):
        at = code.find(opening)
        if at >= 0 and code.find(closing, at + 2) >= 0:
            return True
    return False


def prepare(code: str, language: str, *, skip_marked: bool = True) -> tuple[str, list[int], bool, str]:
    """(source for ``ast``, line offsets, is a session, skip reason) of a code block.

    ``skip_marked``: a block with ``# doctest: +SKIP`` is skipped (it is not meant to run
    here); False for readers of what it calls (the directive is a comment to ``ast``).
    """
    if skip_marked and "doctest: +SKIP" in code:
        return "", [], False, "marked # doctest: +SKIP"
    lines = code.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [("" if SNIPPET_LINE.match(s) else s) for s in lines]
    # what a block is (a session, a shell session, code) is its first line of code, not a
    # `# Numbers with decimal places` comment above it
    first = next((s.strip() for s in lines if s.strip() and not s.lstrip().startswith("#")), "") or next(
        (s.strip() for s in lines if s.strip()), ""
    )
    # a Jinja/Django template; not a doctest session, whose strings may hold one
    # (``>>> env.from_string('{{ x + y }}')``)
    if not first.startswith(">>>") and _is_template(code):
        return "", [], False, "template"
    if not first:
        return "", [], False, "empty"  # also: nothing but unresolved snippet includes
    session = language in SESSION_LANGS or first.startswith(">>>") or bool(_IPY_IN.match(first))
    if session:
        src, offsets = _strip_session(lines)
        if not any(s.strip() for s in src):
            return "", [], True, "empty"
        return "\n".join(src) + "\n", offsets, True, ""
    if _SHELL_START.match(first):
        return "", [], False, "shell session"
    body = textwrap.dedent("\n".join(lines)).split("\n")
    out = []
    for s in body:
        t = s.strip()
        if t.startswith(("%", "!")) and not t.startswith("!="):
            out.append("")
        elif t == "…":
            out.append(s.replace("…", "..."))
        else:
            out.append(s)
    return "\n".join(out) + "\n", list(range(len(out))), False, ""


def _strip_session(lines: list[str]) -> tuple[list[str], list[int]]:
    src: list[str] = []
    offsets: list[int] = []
    in_statement = False
    for k, raw in enumerate(lines):
        s = raw.strip(" \t")
        m = SESSION_PROMPT.match(s)
        ipy = _IPY_IN.match(s)
        if s.startswith(">>>") and m:
            src.append(s[4:])
            in_statement = True
        elif ipy:
            src.append(s[ipy.end() :])
            in_statement = True
        elif in_statement and (m or _IPY_CONT.match(raw)):
            cont = _IPY_CONT.match(raw)
            src.append(raw[cont.end() :] if cont else s[4:])
        else:  # output, or the blank line that ends it
            in_statement = False
            continue
        offsets.append(k)
    return src, offsets


def parse_python(source: str) -> tuple[ast.Module | None, SyntaxError | None]:
    """The tree, or the syntax error; top-level ``await`` is allowed (notebooks, asyncio REPL)."""
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = compile(source, "<example>", "exec", flags=flags, dont_inherit=True)
        except SyntaxError as exc:
            return None, exc
        except (ValueError, RecursionError, MemoryError, OverflowError):
            return None, None
    return tree, None


def analyse(page: Page) -> list[PyExample]:
    """The page's Python examples, prepared, parsed and analysed (cached on the page)."""
    cached = page.cache.get("python")
    if cached is not None:
        return cached
    examples: list[PyExample] = []
    for i, block in enumerate(page.code_blocks):
        # a reST block naming no language (a `::` literal block) is Python when it parses and
        # does something, as Sphinx highlights it; an untagged Markdown fence stays unknown
        # (JavaScript's `fetch('/x').then(show)` parses as Python too)
        lang = block.language.lower() or ("" if page.markdown else untagged_language(block.code))
        if lang not in PY_LANGS:
            continue
        source, offsets, session, skipped = prepare(block.code, lang)
        ex = PyExample(index=i, source=source, offsets=offsets, session=session, skipped=skipped)
        if any(SNIPPET_LINE.match(s) for s in block.code.split("\n")):
            ex.wildcard = ex.opaque = True
        if not skipped:
            ex.tree, ex.error = parse_python(source)
            if ex.tree is None and ex.error is not None:
                ex.tree, ex.skipped = _tolerate(ex, source)
            if ex.tree is not None:
                _names(ex, ex.tree)
                if _command_like(ex.tree):
                    ex.skipped, ex.uses = "a shell command", {}
            else:
                if ex.error is None and not ex.skipped:
                    ex.skipped = "too deeply nested"
                ex.defines = harvest(source)
        examples.append(ex)
    page.cache["python"] = examples
    return examples


_STATEMENTS = (ast.Call, ast.Import, ast.ImportFrom, ast.With, ast.AsyncWith)


def untagged_definitions(page: Page) -> dict[int, set[str]]:
    """What the page's untagged Markdown fences that read as Python define, by their index
    in ``Page.code_blocks`` (cached). Such a fence is not checked itself (JavaScript parses as
    Python too), but a reader runs its ``import structlog`` before the tagged blocks after it."""
    cached = page.cache.get("untagged")
    if cached is not None:
        return cached
    found: dict[int, set[str]] = {}
    if page.markdown:
        for i, block in enumerate(page.code_blocks):
            if block.language or untagged_language(block.code) != "python":
                continue
            source, offsets, session, _ = prepare(block.code, "python", skip_marked=False)
            ex = PyExample(index=i, source=source, offsets=offsets, session=session)
            ex.tree, _ = parse_python(source)
            if ex.tree is not None:
                _names(ex, ex.tree)
                found[i] = ex.defines
    page.cache["untagged"] = found
    return found


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


def placeholders_filled(source: str) -> str:
    """``...`` used as an argument or parameter (``f(a, ...)``, ``def f(x, ..., y=1)``,
    ``...params``, a line of its own inside brackets) made valid: ``*_``."""
    source = _SPREAD_ELLIPSIS.sub("", source)
    source = _ARG_ELLIPSIS.sub(r"\1*_", source)
    lines = source.split("\n")
    for k, line in enumerate(lines):
        if line.strip() in ("...", "…") and k > 0:
            prev = next((p.rstrip() for p in reversed(lines[:k]) if p.strip()), "")
            if prev.endswith(("(", ",", "[")):
                nxt = next((n.strip() for n in lines[k + 1 :] if n.strip()), "")
                indent = line[: len(line) - len(line.lstrip())]
                lines[k] = indent + ("*_" if nxt.startswith((")", "]")) else "*_,")
    return "\n".join(lines)


def _tolerate(ex: PyExample, source: str) -> tuple[ast.Module | None, str]:
    """A second chance for a block that does not parse: placeholders, shell commands.

    Returns the tree (the error is then cleared) or the skip reason.
    """
    filled = placeholders_filled(source)
    if filled != source:
        tree, _ = parse_python(filled)
        if tree is not None:
            ex.error, ex.source = None, filled
            return tree, ""
    first = next((s.strip() for s in source.split("\n") if s.strip()), "")
    if _SHELL_LIKE.match(first):
        ex.error = None
        return None, "a shell session"
    if sys.version_info < (3, 12) and ex.error is not None and ex.error.lineno:
        # syntax newer than this Python's (PEP 695: `type X = …`, `class Box[T]:`), which the
        # reader's Python parses: not judged here
        lines = source.split("\n")
        at = lines[ex.error.lineno - 1] if 0 < ex.error.lineno <= len(lines) else ""
        if _NEWER_SYNTAX.match(at):
            ex.error = None
            return None, "syntax newer than this Python's"
    return None, ""


# PEP 695 (Python 3.12): a type statement, a generic class or function (linear: one name, then
# a fixed token)
_NEWER_SYNTAX = re.compile(
    r"\s*(?:type\s+[A-Za-z_]\w*\s*[\[=]|(?:async\s+)?(?:def|class)\s+[A-Za-z_]\w*\s*\[)"
)


def _command_like(tree: ast.Module) -> bool:
    """Only bare names or ``a/b/c`` paths: a shell command in a Python fence (``deactivate``)."""

    def pathish(node: ast.expr) -> bool:
        if isinstance(node, ast.Name | ast.Attribute):
            return True
        return (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and pathish(node.left)
            and pathish(node.right)
        )

    return bool(tree.body) and all(isinstance(st, ast.Expr) and pathish(st.value) for st in tree.body)


def hidden_definitions(page: Page) -> set[str]:
    """Names defined by Python fences hidden in HTML comments (``<!-- Setup Code … -->``),
    and by what sphinx.ext.doctest runs before the page's doctests: its ``testsetup`` blocks
    and the docs' ``conf.py`` ``doctest_global_setup`` (:mod:`docmentor.sources.sphinx_doctest`)."""
    found: set[str] = set()
    for comment in page.comments:
        for code in _python_fences(comment):
            found |= harvest(code)
    for block in page_setup_blocks(page.doc.path, page.text):
        found |= setup_names(block.code)
    if page.doc.root is not None and (">>>" in page.text or "testcode" in page.text):
        found |= setup_names(global_setup(page.doc.root))  # a few kilobytes, parsed, never run
    return found


WILDCARD = "*"  # among defined names: a ``from x import *`` made any name defined


def setup_names(code: str) -> set[str]:
    """The names set-up code binds at its top level (``import attr, cattrs; from typing
    import *``: ``*`` for a star import); by pattern when it does not parse."""
    tree, _ = parse_python(code) if code.strip() else (None, None)
    if tree is None:
        return harvest(code)
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


_PYTHON_INFO = re.compile(r"(?:python|py)\b")


def _python_fences(text: str) -> Iterator[str]:
    """The code of each closed fence in ``text`` whose info string starts ``python`` or ``py``."""
    lines = text.split("\n")
    fence: Fence | None = None
    start = 0
    for i, line in enumerate(lines):
        if fence is None:
            fence = fence_open(line, any_indent=True)
            start = i + 1
        elif closes(line, fence, any_indent=True):
            if _PYTHON_INFO.match(fence.info):
                yield "\n".join(lines[start:i]) + "\n"
            fence = None


def harvest(source: str) -> set[str]:
    """Names a (possibly unparsable) Python text appears to define, by pattern."""
    names: set[str] = set()
    for rx in _HARVEST:
        names.update(m.group(1) for m in rx.finditer(source))
    for m in _ASSIGN_TUPLE.finditer(source):
        names.update(n.strip() for n in m.group(1).split(","))
    for m in _IMPORT_LINE.finditer(source):
        if m.group(1):
            for part in m.group(1).split(","):
                bits = part.split()
                if bits:
                    names.add(bits[-1] if len(bits) == 3 and bits[1] == "as" else bits[0].split(".")[0])
        else:
            for part in m.group(3).split(","):
                bits = part.split()
                if bits:
                    names.add(bits[-1])
    return names


def _names(ex: PyExample, tree: ast.Module) -> None:
    """Fill defines / uses / imports of a parsed example."""
    _imports_and_calls(ex, tree)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = symtable.symtable(ex.source, "<example>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        ex.defines = harvest(ex.source)
        return
    defined, wanted = _module_names(table)
    ex.defines = defined
    wanted = {n for n in wanted - defined if n not in KNOWN_NAMES and not _dunder(n)}
    if not wanted:
        return
    first = _first_loads(tree, wanted)
    ex.uses = {name: pos[0] for name, pos in first.items()}
    for name in wanted - first.keys():  # used only via ``global`` or ``del``: rare, keep a line
        ex.uses[name] = 1


def _imports_and_calls(ex: PyExample, tree: ast.Module) -> None:
    """Record the example's imported top-level modules (first line each), a wildcard import, any call."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                ex.imports.setdefault(alias.name.split(".")[0], node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                ex.imports.setdefault(node.module.split(".")[0], node.lineno)
            if any(a.name == "*" for a in node.names):
                ex.wildcard = True
        elif isinstance(node, ast.Call):
            ex.has_call = True


def _module_names(table: symtable.SymbolTable) -> tuple[set[str], set[str]]:
    """The module-level names an example defines, and those it reads without defining them
    (from the module and from any scope reading a global)."""
    defined: set[str] = set()
    wanted: set[str] = set()
    stack = [table]
    while stack:
        t = stack.pop()
        module = t.get_type() == "module"
        for sym in t.get_symbols():
            name = sym.get_name()
            if module:
                if sym.is_local():
                    defined.add(name)
                elif sym.is_referenced():
                    wanted.add(name)
            elif sym.is_declared_global() and sym.is_assigned():
                defined.add(name)
            elif sym.is_global() and sym.is_referenced():
                wanted.add(name)
        stack.extend(t.get_children())
    return defined, wanted


def _first_loads(tree: ast.Module, wanted: set[str]) -> dict[str, tuple[int, int]]:
    """The first (line, column) where each of ``wanted`` is read."""
    first: dict[str, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in wanted and isinstance(node.ctx, ast.Load):
            pos = (node.lineno, node.col_offset)
            if node.id not in first or pos < first[node.id]:
                first[node.id] = pos
    return first


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def third_party(module: str) -> bool:
    return module not in STDLIB and not module.startswith("_")
