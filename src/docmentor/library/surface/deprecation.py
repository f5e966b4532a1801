"""Which Python APIs their library marks deprecated, and why (``ApiEntry.deprecated``).

An API is deprecated, with the library's own words as the reason, when:

- a decorator says so: ``@deprecated("...")`` (``warnings``, ``typing_extensions``),
  ``@deprecated.deprecated(reason=...)``, ``@deprecation.deprecated(details=...)``;
- its docstring has a ``.. deprecated:: version`` directive (with its body), a
  ``!!! warning "Deprecated"`` admonition or a Google ``Deprecated:`` section, at the left
  margin — unless the text is about one of its parameters (``*hash* is deprecated``) or one
  way of using it ("Calling this function with a second schema argument", "Subclassing …");
- its docstring's first paragraph says it *is* deprecated (not "whether X is deprecated");
- its first statement, after the docstring, is ``warnings.warn(..., DeprecationWarning)``
  (a warning under an ``if`` is about a parameter, not the function).

:func:`inherit` marks a base-class method whose implementations are all deprecated, when
the base only declares it (abstract, ``...``, ``raise NotImplementedError``).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from docmentor.library.models import ApiEntry
from docmentor.library.surface.docstrings import PARAGRAPHS
from docmentor.library.surface.hierarchy import ClassTree

__all__ = ["inherit", "is_stub", "reason"]

REASON_CHARS = 200
_REASON_KEYWORDS = ("details", "reason", "message", "msg")
_DOC_MARK = re.compile(
    r"^(?:\.\.\s+deprecated::[ \t]*(?P<rst>[^\n]*)|!!!\s+\w+\s+['\"]?[Dd]eprecated\b[^\n]*|Deprecated:[ \t]*(?P<google>[^\n]*))$",
    re.M,
)
# a name in markup (*p*, `p`, ``p``), or next to the word parameter/argument
_NAMED = re.compile(
    r"[*`]{1,2}([A-Za-z_]\w*)[*`]{1,2}|\b([A-Za-z_]\w*)\s+(?:parameter|argument)\b|\b(?:parameter|argument)\s+([A-Za-z_]\w*)",
    re.I,
)
_CALLED_ARGUMENT = re.compile(
    r"\b(?:argument|parameter|kwarg)s?\s+[*`]{1,2}[A-Za-z_]\w*[*`]{1,2}|[*`]{1,2}[A-Za-z_]\w*[*`]{1,2}\s+(?:argument|parameter|kwarg)s?\b",
    re.I,
)
_ADVICE = re.compile(r"^\s*(?:(?:since\s+)?v?[\d.]+:?\s+)?(?:use|call|see|prefer|instead)\b", re.I)
_VERSION = re.compile(r"v?\d+(?:\.\d+)*(?:[-.]?\w+)?")
# "… is deprecated …": looked for in each run of text between periods and line ends (one
# pattern spanning the run would be quadratic on a long run: a review timed 57 s)
_PROSE = re.compile(r"\b(?:is|are|now|was|has been|have been) deprecated\b", re.I)
_RUN = re.compile(r"[^.\n]+")
# a deprecation of one way of using it, not of the API: "Calling this function with a second
# schema argument is deprecated", "Subclassing validator classes now warns" (jsonschema)
_USAGE = re.compile(
    r"^\W*(?:since\s+\S+\s+)?(?:(?:passing|providing|supplying|specifying|subclassing|overriding)\b"
    r"|calling\b(?:(?!deprecat)[^.;\n]){0,80}?\b(?:with|without|positionally|passing)\b)",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# a sentence that says so first: "Deprecated in favor of X", "DEPRECATED: use X", "Deprecated
# since 2.0" (not "Deprecated options are listed here")
_OPENS_DEPRECATED = re.compile(
    r"\s*deprecated\b[ \t]*(?:[:;.!—–-]|$|(?:in favou?r of|since|as of|alias|use|please|in v?\d)\b)", re.I
)
_NOT_A_CLAIM = re.compile(r"^\s*(?:whether|true if|if|returns?|check|flag)\b", re.I)


def reason(
    obj: Any, docstring: str, parameters: Iterable[str] = (), *, takes_kwargs: bool = False
) -> str | None:
    """Why ``obj`` (a griffe object) is deprecated, or ``None``; see the module doc.
    ``takes_kwargs``: it has ``**kwargs``, so an argument a deprecation names need not be
    among ``parameters``."""
    for decorator in getattr(obj, "decorators", None) or ():
        said = _decorator_reason(str(decorator.value))
        if said is not None:
            return said[:REASON_CHARS]
    said = _docstring_reason(docstring, set(parameters), takes_kwargs)
    if said is not None:
        return said[:REASON_CHARS]
    if getattr(obj, "is_function", False):
        source = _function_source(obj)
        tree = _tree(source) if source is not None and "eprecat" in source else None
        if tree is not None:
            said = _warns_first(tree)
            if said is not None:
                return said[:REASON_CHARS]
    return None


def _decorator_reason(text: str) -> str | None:
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    call = node if isinstance(node, ast.Call) else None
    target = call.func if call is not None else node
    name = (
        target.attr
        if isinstance(target, ast.Attribute)
        else target.id
        if isinstance(target, ast.Name)
        else ""
    )
    if name != "deprecated":
        return None
    if call is None:
        return "deprecated"
    for keyword in call.keywords:
        if keyword.arg in _REASON_KEYWORDS and _text(keyword.value):
            return _text(keyword.value)
    for arg in call.args:
        if _text(arg):
            return _text(arg)
    return "deprecated"


def _text(node: ast.AST) -> str:
    """A string literal's value (adjacent literals are one node), else ``""``."""
    return (
        " ".join(node.value.split()) if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
    )


def _docstring_reason(docstring: str, parameters: set[str], takes_kwargs: bool = False) -> str | None:
    for m in _DOC_MARK.finditer(docstring):
        lines = docstring[m.end() :].split("\n")[1:]
        while lines and not lines[0].strip():  # reST puts a blank line before the body
            lines.pop(0)
        body = []
        for line in lines:
            if not line.strip() or not line[:1].isspace():
                break
            body.append(line.strip())
        head = (m.group("rst") or m.group("google") or "").strip()
        if _VERSION.fullmatch(head):  # ".. deprecated:: 0.2" then its body: "since 0.2: Use …"
            head = f"since {head}" + (":" if body else "")
        text = " ".join(p for p in (head, *body) if p)
        if _about_parameter(text, parameters, takes_kwargs) or _USAGE.match(text):
            continue
        return text or "deprecated"
    first = PARAGRAPHS.split(docstring.strip(), 1)[0]
    # "… is deprecated …", or a sentence that opens with the word: "Deprecated in favor of
    # PyeeError." (pyee's PyeeException), "DEPRECATED: use X."
    opening = [s for s in _SENTENCE_END.split(first) if _OPENS_DEPRECATED.match(s)]
    said = [
        run.group(0) + ("." if first[run.end() : run.end() + 1] == "." else "")
        for run in _RUN.finditer(first)
        if _PROSE.search(run.group(0))
    ]
    for claim in [" ".join(c.split()) for c in said] + [" ".join(s.split()) for s in opening]:
        if (
            not _NOT_A_CLAIM.match(claim)
            and not _USAGE.match(claim)
            and not _about_parameter(claim, parameters, takes_kwargs)
        ):
            return claim
    return None


def _about_parameter(text: str, parameters: set[str], takes_kwargs: bool = False) -> bool:
    """The text is about one of the API's parameters: it names one as ``*p*``, ``p``,
    `p`, "the p parameter" or "argument p" — or, for an API with ``**kwargs``, calls a name
    an argument or parameter outright ("… using the keyword argument *inst*" of
    ``evolve(*args, **changes)``), unless it is advice ("Use get with the ``stream``
    argument instead": the whole API is deprecated)."""
    named = {w for m in _NAMED.finditer(text) for w in m.groups() if w}
    if named & parameters:
        return True
    return takes_kwargs and not _ADVICE.match(text) and bool(_CALLED_ARGUMENT.search(text))


def _function_source(obj: Any) -> str | None:
    """The function's source, read from its ``.py`` file (the loader keeps no source)."""
    try:
        path = Path(obj.filepath)
        start, end = obj.lineno, obj.endlineno
    except Exception:  # compiled module, builtin, or no location: nothing to read
        return None
    if path.suffix != ".py" or not start or not end:
        return None
    try:
        return textwrap.dedent("".join(_lines(path)[start - 1 : end]))
    except (OSError, ValueError):
        return None


def _tree(source: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None)


_cache: dict[tuple[str, int], list[str]] = {}


def _lines(path: Path) -> list[str]:
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _cache:
        if len(_cache) >= 64:
            _cache.clear()
        _cache[key] = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    return _cache[key]


def clear_cache() -> None:
    """Forget the source files read (call after loading a package)."""
    _cache.clear()


def _body(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body


def _warns_first(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    body = _body(func)
    if not body or not isinstance(body[0], ast.Expr) or not isinstance(body[0].value, ast.Call):
        return None
    call = body[0].value
    target = call.func
    name = (
        target.attr
        if isinstance(target, ast.Attribute)
        else target.id
        if isinstance(target, ast.Name)
        else ""
    )
    if name != "warn":
        return None
    category = " ".join(ast.unparse(a) for a in [*call.args[1:], *(k.value for k in call.keywords)])
    message = _text(call.args[0]) if call.args else ""
    if "Deprecat" not in category and "deprecat" not in message.lower():
        return None
    return message or "deprecated"


def is_stub(obj: Any) -> bool:
    """A method that only declares: ``@abstractmethod``, or a body of ``...``, ``pass`` or
    ``raise NotImplementedError``."""
    if any("abstractmethod" in str(d.value) for d in getattr(obj, "decorators", None) or ()):
        return True
    source = _function_source(obj) if getattr(obj, "is_function", False) else None
    func = _tree(source) if source is not None else None
    if func is None:
        return False
    body = _body(func)
    if not body:
        return True
    if len(body) != 1:
        return False
    only = body[0]
    if isinstance(only, ast.Pass) or (isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant)):
        return True
    if isinstance(only, ast.Raise) and only.exc is not None:
        exc = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def inherit(entries: list[ApiEntry], stub: Callable[[str], bool]) -> None:
    """Mark a method deprecated when every override of it in the library's subclasses is
    and it only declares (``stub(api_id)``, asked of those alone); it takes the first
    override's reason. In place."""
    tree = ClassTree(entries)
    members = {(e.parent, e.name): e for e in entries if e.parent is not None and e.kind == "method"}
    for (parent, name), entry in members.items():
        if entry.deprecated or parent not in tree.children:
            continue
        overrides = [o for sub in tree.subclasses(parent) if (o := members.get((sub, name))) is not None]
        if overrides and all(o.deprecated for o in overrides) and stub(entry.api_id):
            entry.deprecated = overrides[0].deprecated
