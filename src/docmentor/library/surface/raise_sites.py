"""Where a library raises its own exceptions, and with what message: an exception class is
often documented by one line ("Base class for client errors") or not at all, while the code
that raises it says when it happens (``raise PyJWKClientConnectionError(f'Fail to fetch data
from the url, err: "{e}"')`` in ``PyJWKClient.fetch_data``). A task asks "what is raised when
the key-set URL cannot be reached": that is what the raise sites answer.

Read from the package's module sources with :mod:`ast` (:func:`read_sources`; no regular
expression on source text), matched to the catalog once the walk is done
(:func:`raise_sites`): every ``raise Name(...)`` / ``raise module.Name(...)`` whose name,
resolved as Python does in the raising module (imports, star imports; griffe's aliases), is
one exception class of the library, the function or method it is raised in, and the literal
text of its first argument that has some (an f-string's literal parts, a ``"…" % x`` or
``"…".format(x)`` template's text, a message wrapped for translation). The exception's own
``__init__`` may build its message (``message = f'Key "{key}" does not exist.'``,
``super().__init__("…")``): that text counts as its message too. A test suite's modules
are not read. What the public functions and
methods raise also makes a class public (:func:`raised_names`, ``Builder.add_raised``).

Each module is parsed once and only what these need is kept (:class:`SourceFacts`: its raises
and its classes' ``__init__`` literals, a few strings each): a large package's syntax trees
would weigh hundreds of megabytes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python_platform import OTHER_PLATFORM

__all__ = [
    "MAX_MESSAGE_CHARS",
    "MAX_SITES",
    "SHOWN_SITES",
    "Raise",
    "RaiseSite",
    "SourceFacts",
    "describe_raises",
    "init_message",
    "raise_sites",
    "raise_text",
    "raised_names",
    "read_sources",
]

MAX_SITES = 6  # raise sites described per exception (the first in module order)
SHOWN_SITES = 3  # of them, what README.LLM and a find_api answer show
MAX_MESSAGE_CHARS = 160  # of one site's message
MAX_SOURCE_BYTES = 2_000_000  # a module larger than this is generated code: not read
# a printf-style conversion ("%s", "%-5.2f", "%(name)r") and a str.format field ("{}",
# "{key!r}"): shown as "…" as an f-string's values are; no nesting, linear time
_PERCENT = re.compile(r"%(?:\([^()]*\))?[-#0 +]*+\d*+(?:\.\d++)?[a-zA-Z%]")
_FIELD = re.compile(r"\{[^{}]*\}")


_CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__"})


@dataclass(frozen=True, slots=True)
class RaiseSite:
    """One ``raise`` of a library exception: in which function (api_id-style path) and
    the literal text of its message ("" when it has none)."""

    raiser: str
    message: str


@dataclass(frozen=True, slots=True)
class Raise:
    """One ``raise`` in a function or method of the package."""

    module: str  # the raising module's path
    raiser: str  # the path of the enclosing function (api_id-style: module + qualified name)
    written: str  # the raised class as written: ``FeatureNotFound``, ``errors.FetchFailed``
    bound: bool  # the module defines or imports the written name's first part
    message: str  # the literal text of its first argument ("" when none)


@dataclass(slots=True)
class SourceFacts:
    """What the package's sources say about raising: every raise, and the literal text each
    class's own ``__init__`` holds (class path → text; the classes that have some)."""

    raises: list[Raise]
    init_messages: dict[str, str]


def read_sources(modules: Iterable[Any]) -> SourceFacts:
    """The :class:`SourceFacts` of griffe modules (``path``, ``filepath``), one module parsed
    at a time; a module that cannot be read or parsed (a builtin, a compiled one, a syntax
    error, binary bytes, over :data:`MAX_SOURCE_BYTES`, nested deeper than the interpreter's
    stack allows) is skipped, and so is a test suite's."""
    facts = SourceFacts(raises=[], init_messages={})
    for module in modules:
        try:
            filepath = module.filepath
        except Exception:  # griffe raises for a builtin or compiled module (BuiltinModuleError)
            continue
        path = str(module.path)
        if _is_test(path):
            continue  # a test suite's raises are no place users meet the exception
        try:
            _read(_parse(filepath), path, facts)
        except (RecursionError, MemoryError):  # nesting deeper than the interpreter's stack
            continue
    return facts


def _read(tree: ast.Module | None, path: str, facts: SourceFacts) -> None:
    """Add one module's raises and ``__init__`` messages to ``facts`` (all or none of them)."""
    if tree is None:
        return
    local = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}  # and, below, imports
    raises = [
        Raise(path, raiser, written, written.split(".")[0] in local, _message(node.exc))
        for raiser, node in list(_raises(tree, path, local))
        if (written := _written(node.exc)) is not None
    ]
    inits = {f"{path}.{q}": _cut(" ".join(_init_texts(init))) for q, init in _inits(tree)}
    facts.raises.extend(raises)
    facts.init_messages.update((k, v) for k, v in inits.items() if v)


def _is_test(path: str) -> bool:
    return any(p in ("tests", "_tests", "test", "testing") or p.startswith("test_") for p in path.split("."))


def raise_sites(
    entries: Sequence[ApiEntry], facts: SourceFacts, resolve: Callable[[str], str | None]
) -> dict[str, list[RaiseSite]]:
    """Exception api_id → where the library raises it: at most :data:`MAX_SITES`, each with
    something to show (its raiser is an API, or it has a message), none twice. ``resolve``
    gives the path of the object a module's name denotes (``pkg.mod.errors.Failed`` →
    ``pkg.errors.Failed``; griffe follows imports and star imports), None when it cannot
    tell: such a raise counts for nobody (another library's ``ssl.SSLError`` is not the
    library's ``SSLError``)."""
    exceptions = {e.api_id for e in entries if e.exception and e.kind == "class" and e.language == "python"}
    callables = {e.api_id: e for e in entries}
    names = {i.rsplit(".", 1)[-1] for i in exceptions}
    found: dict[str, list[RaiseSite]] = {}
    seen: set[tuple[str, str, str]] = set()
    resolved: dict[str, str | None] = {}

    def elsewhere(r: Raise) -> bool:  # raised by what another platform's branch binds
        shown = _raiser(r.raiser, callables)
        return shown is not None and shown.internal == OTHER_PLATFORM

    for r in sorted(facts.raises, key=elsewhere):  # this platform's first; stable otherwise
        if r.written.rsplit(".", 1)[-1] not in names:
            continue  # not a name of the library's exceptions
        written = f"{r.module}.{r.written}"
        if written not in resolved:
            resolved[written] = resolve(written)
        api = resolved[written]
        if api not in exceptions:
            continue
        shown = _raiser(r.raiser, callables)
        if shown is None and not r.message:
            continue  # a private helper's bare raise: nothing to show
        key = (api, shown.api_id if shown is not None else r.raiser, r.message)
        sites = found.setdefault(api, [])
        if key in seen or len(sites) >= MAX_SITES:
            continue
        seen.add(key)
        sites.append(RaiseSite(raiser=r.raiser, message=r.message))
    return found


def _raiser(raiser: str, entries: Mapping[str, ApiEntry]) -> ApiEntry | None:
    """The API a raise is shown under: the function or method it is in, or the class whose
    constructor it is (``BeautifulSoup(…)`` raises what its ``__init__`` raises)."""
    owner, _, method = raiser.rpartition(".")
    return entries.get(raiser) or (entries.get(owner) if method in _CONSTRUCTORS else None)


def raise_text(sites: Sequence[RaiseSite], entries: Mapping[str, ApiEntry], own: str = "") -> str:
    """What the code says of an exception, one line each: its own message first (``own``:
    the message its ``__init__`` builds), then where it is raised — "Raised by
    ``jwt.PyJWKClient.fetch_data``: Fail to fetch data from the url, err: …" (the raiser by
    its public path when it is an API, its message when it has one)."""
    lines = [f"Its message: {own}"] if own else []
    for site in sites:
        raiser = _raiser(site.raiser, entries)
        shown = (raiser.aliases[0] if raiser.aliases else raiser.api_id) if raiser is not None else None
        if shown is not None and site.message:
            lines.append(f"Raised by {shown}: {site.message}")
        elif shown is not None:
            lines.append(f"Raised by {shown}.")
        elif site.message:
            lines.append(f"Raised with: {site.message}")
    return "\n".join(dict.fromkeys(lines))


def init_message(entry: ApiEntry, facts: SourceFacts) -> str:
    """The literal text an exception class's own ``__init__`` builds its message from
    (``message = f'Key "{key}" does not exist.'``), "" when it has none."""
    return facts.init_messages.get(entry.api_id, "")


def raised_names(facts: SourceFacts, public: Mapping[str, ApiEntry]) -> list[tuple[str, str, bool]]:
    """What the public functions and methods raise, in module order: (module path, the
    raised name as written — ``FeatureNotFound``, ``errors.FetchFailed`` —, whether the
    module defines or imports it). A raiser is public when it is in ``public``, or is a
    method of a class there whose name is not private (its ``__init__`` too); the caller
    resolves the names (any may be a builtin)."""
    out: list[tuple[str, str, bool]] = []
    for r in facts.raises:
        owner, _, name = r.raiser.rpartition(".")
        cls = public.get(owner)
        method = cls is not None and cls.kind == "class" and (_dunder(name) or not name.startswith("_"))
        if r.raiser in public or method:
            out.append((r.module, r.written, r.bound))
    return list(dict.fromkeys(out))


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


# -- reading -------------------------------------------------------------------------------


def _parse(filepath: Any) -> ast.Module | None:
    if not isinstance(filepath, Path) or filepath.suffix != ".py":
        return None
    try:
        if filepath.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return ast.parse(filepath.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _raises(tree: ast.Module, module: str, imported: set[str]) -> Iterator[tuple[str, ast.Raise]]:
    """(path of the enclosing function, the raise) for each ``raise X(...)`` in a function
    or method (nested functions are read as their enclosing function's); the names every
    import statement of the module binds are added to ``imported`` on the way (one walk)."""

    def visit(
        node: ast.AST, scope: tuple[str, ...], in_function: str | None
    ) -> Iterator[tuple[str, ast.Raise]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and in_function is None:
                yield from visit(child, (*scope, child.name), None)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                here = in_function or ".".join((module, *scope, child.name))
                yield from visit(child, (*scope, child.name), here)
            elif isinstance(child, ast.Raise):
                if in_function is not None and child.exc is not None:
                    yield in_function, child
            elif isinstance(child, ast.Import | ast.ImportFrom):
                imported.update((a.asname or a.name).split(".")[0] for a in child.names)
            else:
                yield from visit(child, scope, in_function)

    yield from visit(tree, (), None)


def _written(exc: ast.expr | None) -> str | None:
    """A raised class as written (``X``, ``errors.X``), when it is a plain dotted name."""
    target = exc.func if isinstance(exc, ast.Call) else exc
    parts: list[str] = []
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    if not isinstance(target, ast.Name):
        return None
    return ".".join([target.id, *reversed(parts)])


def _one(candidates: list[str], module: str, name: str, *, bare: bool, bound: bool) -> str | None:
    """The exception a raised name denotes: the library's only class of that name (raised
    bare, the module must define or import it: a builtin ``TimeoutError`` is not the
    library's), else the one the raising module defines; None when unclear."""
    if len(candidates) == 1:
        return candidates[0] if not bare or bound else None
    here = [c for c in candidates if c == f"{module}.{name}"]
    return here[0] if len(here) == 1 else None


def _message(exc: ast.expr | None) -> str:
    """The literal text of a raise's first argument that has some (``BadOptionUsage(opt,
    _("No such option: {name}"))``)."""
    if not isinstance(exc, ast.Call):
        return ""
    return _cut(next((t for t in map(_literal, exc.args) if t.strip()), ""))


# a message wrapped for translation (`_("…")`, `ngettext("…", "…", n)`): its first argument
_TRANSLATORS = frozenset({"_", "gettext", "ngettext", "lazy_gettext", "gettext_lazy", "ugettext", "pgettext"})


def _literal(node: ast.AST) -> str:
    """The literal text of a message expression: a string, an f-string's literal parts
    (each value as "…"), a ``"…" % x`` or ``"…".format(x)`` template, ``"a" + "b"``."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else ""
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "…" for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _PERCENT.sub(lambda m: "%" if m.group() == "%%" else "…", _literal(node.left))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return f"{_literal(node.left)}{_literal(node.right)}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _FIELD.sub("…", _literal(node.func.value))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _TRANSLATORS:
        return _literal(node.args[-1] if node.func.id == "pgettext" else node.args[0]) if node.args else ""
    return ""


def _init_texts(init: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[str]:
    """The message an ``__init__`` builds: the literal text of what it passes to a base's
    ``__init__`` (``super().__init__(f"Key {key} does not exist.")``) and of what it assigns
    to a name or attribute that says message (``message = …``, ``self.msg = …``)."""
    for node in ast.walk(init):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "__init__"
        ):
            text = next((t for t in map(_literal, node.args) if t.strip()), "")
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [
                t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
                for t in targets
            ]
            text = _literal(node.value) if any(_MESSAGE_NAME.search(n) for n in names) else ""
        else:
            continue
        if text.strip():
            yield text


_MESSAGE_NAME = re.compile(r"(?i)^_*(?:msg|message|text|detail|description|reason)s?$")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1].rstrip() + "…"


def _inits(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name of the class, its ``__init__``) for the module's classes, nested ones
    too (not those inside functions)."""

    def visit(
        body: list[ast.stmt], scope: tuple[str, ...]
    ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for node in body:
            if isinstance(node, ast.ClassDef):
                here = (*scope, node.name)
                for member in node.body:
                    if (
                        isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
                        and member.name == "__init__"
                    ):
                        yield ".".join(here), member
                yield from visit(node.body, here)

    yield from visit(tree.body, ())


def describe_raises(
    entries: Sequence[ApiEntry], facts: SourceFacts, resolve: Callable[[str], str | None]
) -> int:
    """Give each exception class of ``entries`` what the code says of it (:func:`raise_text`;
    ``resolve``: as for :func:`raise_sites`) as its ``raised``: its own message only when its
    docstring does not already say it (an exception whose docstring is its message: httpx's
    ``ResponseNotRead``). How many got some."""
    if not any(e.exception for e in entries):
        return 0
    by_id = {e.api_id: e for e in entries}
    sites = raise_sites(entries, facts, resolve)
    described = 0
    for e in entries:
        if not (e.exception and e.kind == "class" and e.language == "python"):
            continue
        own = init_message(e, facts)
        if own and _words(own) <= _words(f"{e.docstring} {e.description}"):
            own = ""
        e.raised = raise_text(sites.get(e.api_id, []), by_id, own=own)
        described += bool(e.raised)
    return described


def _words(text: str) -> set[str]:
    return {w.strip(".,:;!?'\"`()…").lower() for w in text.split()} - {""}
