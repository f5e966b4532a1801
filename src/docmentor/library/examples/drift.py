"""Drift between the docs and the installed library: calls the real API does not accept.

The examples are read exactly as :mod:`~docmentor.library.examples.matcher` reads them
(imports, aliases, return-type propagation across the blocks of a page); on top of it
every attribute and call is checked against the surface:

* ``missing_api`` — a name looked up on a module or class of the library that the
  installed version does not have (``lancedb.connect_old``, ``db.create_tabel(...)`` with
  ``db`` a known ``DBConnection``, ``from lancedb import gone``). Only asked where the
  answer is certain: never for private names, nor on classes with a base from outside the
  library (their inherited members are unknown), nor when a subclass has the member (the
  value may well be that subclass), nor for a name the module has that is no public API
  (``from flask.logging import default_handler``: a value without a docstring), nor on a
  module with a ``__getattr__`` (it answers names it does not define), nor on a
  name the page never binds and the matcher typed by convention (``app`` → ``App``).
* ``invalid_api_signature`` — a call with a keyword the signature does not accept (no
  ``**kwargs``, not a parameter name, or a positional-only one), or with more positional
  arguments than it takes (no ``*args``) (:mod:`.drift_arguments`). The signature is the
  function's, the method's, the class's ``__init__``'s (else its ``__new__``'s), or for a
  call of an instance (``nlp(text, lower=True)``) its class's ``__call__``'s (the surface's
  ``call_forms``). A method reached through its class is given its receiver explicitly, so its positional
  count is only checked when it is a classmethod or staticmethod (``call_forms``). A
  signature that takes anything (``def retry(*dargs, **dkw)``) is checked against its
  ``@overload`` signatures when it has some: one of them must take the call.
  Signatures read from compiled code, classes whose ``__init__`` is unknown or that a
  metaclass may construct otherwise, and a ``__call__`` from outside the library are not
  checked.
* ``deprecated_api`` — an example uses (the matcher linked it to) an API the installed
  version marks deprecated (``ApiEntry.deprecated``); the message gives the library's
  reason, which usually names the replacement. The example still runs, so the clarity
  score does not count these.

Only Python examples are read. Those of upgrade guides and changelogs (``upgrading.rst``,
``migration.md``, ``CHANGES.rst``: :func:`historical_page`) show removed APIs on purpose
(marshmallow's ``upgrading.rst`` made 18 of its 20 findings): what they would be reported for
is kept apart (``DriftReport.historical``), never reported, and only keeps such an example
from being shown as one to follow (anyio's migration guide's ``maybe_async_cm(CancelScope())``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from docmentor.clarity.checks.python import prepare
from docmentor.library.examples.code_analysis import python_reading
from docmentor.library.examples.drift_arguments import (
    argument_problems,
    closest,
    overload_problems,
    signature_known,
)
from docmentor.library.examples.matcher import PythonAnalysis
from docmentor.library.examples.matcher_core import ApiSurfaceLike, Resolver, Value
from docmentor.library.find.import_paths import import_path
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.docstrings import display
from docmentor.library.surface.hierarchy import ClassTree
from docmentor.search.ranking import glued_words

__all__ = ["DriftFinding", "DriftReport", "clarity_counts", "drift_report"]

Kind = Literal["missing_api", "invalid_api_signature", "deprecated_api"]

# Bases that add no public members worth knowing: a class with only these is "closed".
_TRANSPARENT_BASES = frozenset(
    {
        "object",
        "ABC",
        "abc.ABC",
        "Generic",
        "typing.Generic",
        "Protocol",
        "typing.Protocol",
        "typing_extensions.Protocol",
    }
)
_TEST_MODULES = frozenset({"conftest", "tests", "test"})


@dataclass(frozen=True, slots=True)
class DriftFinding:
    """One documented use of the API that the installed version does not support."""

    kind: Kind
    api: str  # as written in the example: "db.create_tabel", "pkg.connect"
    api_id: str | None  # the resolved API (invalid signatures), None for a missing one
    owner: str | None  # api_id of the module or class the name was looked up on
    example_id: str
    source: str
    path: str
    line: int  # line in the original file
    message: str
    suggestion: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "api": self.api,
            "api_id": self.api_id,
            "owner": self.owner,
            "example_id": self.example_id,
            "source": self.source,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "suggestion": self.suggestion,
        }


@dataclass(frozen=True, slots=True)
class DriftReport:
    """Every drift finding of a library's examples."""

    library: str
    version: str | None
    examples_checked: int
    findings: tuple[DriftFinding, ...]
    #: what the examples of upgrade guides and changelogs would be reported for: never
    #: reported (they show the old API on purpose), but such an example is no example to use
    historical: tuple[DriftFinding, ...] = ()
    #: examples in another language than Python: drift reads Python only
    examples_not_checked: int = 0

    @property
    def missing(self) -> int:
        return sum(f.kind == "missing_api" for f in self.findings)

    @property
    def invalid(self) -> int:
        return sum(f.kind == "invalid_api_signature" for f in self.findings)

    @property
    def deprecated(self) -> int:
        return sum(f.kind == "deprecated_api" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "version": self.version,
            "examples_checked": self.examples_checked,
            "counts": {
                "missing_api": self.missing,
                "invalid_api_signature": self.invalid,
                "deprecated_api": self.deprecated,
            },
            "examples_not_checked": self.examples_not_checked,
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_text(self) -> str:
        name = f"{self.library} {self.version}" if self.version else self.library
        head = (
            f"Drift report for {name}: {self.examples_checked} Python examples checked, "
            f"{self.missing} missing API{'s' if self.missing != 1 else ''}, "
            f"{self.invalid} invalid signature{'s' if self.invalid != 1 else ''}, "
            f"{self.deprecated} use{'s' if self.deprecated != 1 else ''} of deprecated APIs"
        )
        if self.examples_not_checked:
            head += f" ({not_checked_note(self.examples_not_checked)})"
        if not self.findings:
            if not self.examples_checked:
                return head + "\n"
            return head + "\n\nNo drift: every documented call matches the installed API.\n"
        out = [head]
        page: tuple[str, str] | None = None
        for f in self.findings:
            if (f.source, f.path) != page:
                page = (f.source, f.path)
                out += ["", f"{f.path} ({f.source})" if f.source else f.path]
            out.append(f"  line {f.line}: {f.kind}: {f.message}")
            if f.suggestion:
                out.append(f"      → {f.suggestion}")
        return "\n".join(out) + "\n"


def clarity_counts(report: DriftReport) -> dict[str, dict[str, int]]:
    """Per document path, the clarity score's inputs: ``missing_api_signatures`` and ``invalid_api_signatures``."""
    counts: dict[str, dict[str, int]] = {}
    for f in report.findings:
        if f.kind == "deprecated_api":
            continue
        c = counts.setdefault(f.path, {"missing_api_signatures": 0, "invalid_api_signatures": 0})
        c["missing_api_signatures" if f.kind == "missing_api" else "invalid_api_signatures"] += 1
    return counts


# a page whose examples show the old API on purpose: an upgrade or migration guide, a
# changelog — its file name made of these words and versions ("upgrading.rst",
# "v2-migration.md", "release-notes.md", "whats_new.rst"), or a page in such a folder
# ("changelog/3.0.rst"); not "database-migrations.md" nor "history_tracking.md"
_HISTORICAL_WORDS = frozenset(
    {"upgrade", "upgrading", "migration", "migrating", "migrate", "porting", "changelog", "changes",
     "history", "whatsnew", "whats", "new", "news", "release", "releases", "notes", "guide", "to",
     "from", "v", "version"}
)  # fmt: skip
_HISTORICAL_KEYS = frozenset(
    {"upgrade", "upgrading", "migration", "migrating", "migrate", "porting", "changelog", "changes",
     "history", "whatsnew", "whats", "news", "release", "releases"}
)  # fmt: skip
_HISTORICAL_FOLDERS = frozenset(
    {"changelog", "changes", "whatsnew", "releases", "release-notes", "news", "history"}
)
_TOKEN = re.compile(r"[a-z]+|\d+")


# a property type whose values are never called: builtin data or a container of anything,
# or those or None (`dict`, `list[str]`, `str | None`, `Optional[dict[str, Any]]`)
_DATA = r"(?:dict|list|str|int|float|bool|bytes|tuple|set|frozenset|Dict|List|Tuple|Set|FrozenSet|Mapping|Sequence)"
_NEVER_CALLED = re.compile(
    rf"(?:Optional\[)?(?:typing\.|t\.)?{_DATA}(?:\[[^\n]*\])?\]?(?:[ \t]*\|[ \t]*None)?"
)


def historical_page(path: str) -> bool:
    """Whether a docs page shows the old API on purpose (see :data:`_HISTORICAL_WORDS`)."""
    *folders, name = path.lower().split("/")
    if any(f in _HISTORICAL_FOLDERS for f in folders):
        return True
    words = glued_words(
        (w for w in _TOKEN.findall(name.rsplit(".", 1)[0]) if not w.isdigit()), _HISTORICAL_WORDS
    )
    return bool(words) and set(words) <= _HISTORICAL_WORDS and bool(set(words) & _HISTORICAL_KEYS)


# a line's comment that says the line fails: what the docs show as a mistake
_FAILS = re.compile(
    r"\b(?:error|errors|fails?|raises?|invalid|wrong|not allowed|AttributeError|TypeError)\b", re.I
)


def drift_report(
    examples: Sequence[Example],
    surface: ApiSurfaceLike,
    *,
    library: str,
    version: str | None = None,
    context: Sequence[Example] = (),
) -> DriftReport:
    """Find the documented calls the installed API does not support.

    Args:
        examples: every example of the docs (only Python ones are read); the blocks of a
            page are read in order, so a name bound in one block is known in the next.
        surface: the library's API surface, as installed.
        library: the library name, for the report.
        version: the installed version; the surface's ``version`` when None.
        context: code read in its page's order only for what it binds, never checked (set-up
            code a page hides, the names of its current module: as the matcher reads them).
    """
    not_checked = sum(ex.language != "python" for ex in examples)
    resolver = Resolver(surface, frozenset({"python"}), library=library)
    checker = _Checker(resolver, library, getattr(surface, "present", frozenset()))
    findings: list[DriftFinding] = []
    historical: list[DriftFinding] = []
    checked = 0
    page: tuple[str, str] | None = None
    analysis: _DriftPython | None = None
    hidden = {id(ex) for ex in context}
    for ex in sorted([*examples, *context], key=lambda x: (x.source, x.path, x.line)):
        if ex.language != "python":
            continue
        if (ex.source, ex.path) != page or analysis is None:
            page, analysis = (ex.source, ex.path), _DriftPython(resolver, checker)
        try:
            analysis.check(ex)
        except RecursionError:  # too deeply nested to analyse: not checked rather than wrong
            continue
        if id(ex) in hidden:
            continue
        if historical_page(ex.path):
            historical += analysis.found
            continue
        findings += analysis.found
        findings += _deprecated_uses(ex, resolver, analysis.certain)
        checked += 1
    if version is None:
        version = getattr(surface, "version", None)
    return DriftReport(
        library=library,
        version=version,
        examples_checked=checked,
        findings=tuple(findings),
        historical=tuple(historical),
        examples_not_checked=not_checked,
    )


def not_checked_note(n: int) -> str:
    """What a drift report says of the examples it did not read."""
    return f"{n} example{'s' if n != 1 else ''} in other languages not checked: drift reads Python only"


def _deprecated_uses(ex: Example, resolver: Resolver, used: Iterable[str]) -> list[DriftFinding]:
    """The deprecated APIs the example certainly uses (not through a name typed by convention),
    each at the first line of the code that names it outside a comment (the code's lines are
    the page's, after the fence), else at the fence."""
    out = []
    lines = ex.code.split("\n")
    for api_id in dict.fromkeys(used):
        entry = resolver.entry(api_id)
        if entry is None or not entry.deprecated:
            continue
        public = import_path(entry.api_id, entry.aliases, entry.bound_names)
        named = re.compile(rf"(?<![\w]){re.escape(entry.name)}(?!\w)")
        at = next((i for i, text in enumerate(lines, 1) if named.search(text.split("#", 1)[0])), None)
        line = ex.page_line(at - 1) if at is not None else ex.line
        out.append(
            DriftFinding(
                kind="deprecated_api",
                api=public,
                api_id=entry.api_id,
                owner=entry.parent,
                example_id=ex.example_id,
                source=ex.source,
                path=ex.path,
                line=line,
                message=f"{public} is deprecated in the installed {public.split('.')[0]}: {display(entry.deprecated)}",
            )
        )
    return out


class _Checker:
    """Questions about the surface, asked many times: class closure, subclasses, member names."""

    def __init__(self, resolver: Resolver, library: str, present: frozenset[str] = frozenset()) -> None:
        self.r = resolver
        self.library = library
        self.present = present  # module.name paths that exist though not public API
        # what calling an instance takes, the methods that take no instance, the overloads
        # of what takes anything (:mod:`docmentor.library.surface.call_forms`; none on
        # other surfaces)
        forms = getattr(resolver.surface, "call_forms", None)
        self.calls: dict[str, ApiEntry] = dict(forms.calls) if forms is not None else {}
        self.bindings: frozenset[str] = frozenset(forms.bindings) if forms is not None else frozenset()
        self.overloads: dict[str, tuple[ApiEntry, ...]] = dict(forms.overloads) if forms is not None else {}
        self.constructors: dict[str, ApiEntry] = dict(forms.constructors) if forms is not None else {}
        self.made_by_metaclass: frozenset[str] = forms.made_by_metaclass if forms is not None else frozenset()
        self.tree = ClassTree(resolver.entries, resolver.entry)
        self.bases = self.tree.bases
        self._closed: dict[str, bool] = {}

    def base(self, cls: ApiEntry, text: str) -> str | None:
        """api_id of a base class as written in ``cls``'s definition, when it is in the surface."""
        return self.tree.base(cls, text)

    def closed(self, api_id: str, depth: int = 0) -> bool:
        """True when every base of the class is known, so its member list is complete."""
        if api_id in self._closed:
            return self._closed[api_id]
        self._closed[api_id] = False  # guards against cycles
        cls = self.r.entry(api_id)
        ok = cls is not None and depth < 10 and not cls.open_members
        for text in cls.bases if cls is not None and ok else []:
            plain = text.split("[", 1)[0].strip()
            last = plain.rpartition(".")[2]
            # typing's bases however the module is named (`t.Generic[T]`, `typ.Protocol`)
            if plain in _TRANSPARENT_BASES or last in _TRANSPARENT_BASES or last.startswith("_"):
                continue  # private bases are in the library: griffe merged their members
            b = self.base(cls, text) if cls is not None else None
            if b is None or not self.closed(b, depth + 1):
                ok = False
                break
        self._closed[api_id] = ok
        return ok

    def call_of(self, cls: str) -> ApiEntry | None:
        """The ``__call__`` an instance of ``cls`` (api_id or alias) runs, when the surface knows it."""
        entry = self.r.entry(cls)
        return self.calls.get(entry.api_id if entry is not None else cls)

    def in_subclass(self, api_id: str, name: str) -> bool:
        return any(self.r.member(sub, name) is not None for sub in self.tree.subclasses(api_id))

    def member_names(self, api_id: str) -> list[str]:
        names: list[str] = []
        todo, seen = [api_id], set()
        while todo:
            cls = todo.pop()
            if cls in seen:
                continue
            seen.add(cls)
            entry = self.r.entry(cls)
            for path in [cls, *(entry.aliases if entry else [])]:
                names += [n for n, _ in self.r.by_module.get(path, [])]
            todo += self.bases.get(cls, [])
        return list(dict.fromkeys(names))

    def module_names(self, module: str) -> list[str]:
        names = [n for n, _ in self.r.by_module.get(module, [])]
        prefix = module + "."
        names += [
            p[len(prefix) :] for p in self.r.prefixes if p.startswith(prefix) and "." not in p[len(prefix) :]
        ]
        return list(dict.fromkeys(names))


def _written(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:77] + "..."


class _DriftPython(PythonAnalysis):
    """The matcher's Python analysis, with every attribute and call checked on the way."""

    def __init__(self, resolver: Resolver, checker: _Checker) -> None:
        super().__init__(resolver)
        self.checker = checker
        self.example: Example | None = None
        self.offsets: list[int] = []
        self.found: list[DriftFinding] = []

    def check(self, example: Example) -> None:
        self.example = example
        self.offsets = prepare(example.code, "python", skip_marked=False)[1]
        # The matcher blanks lines that do not parse; what follows them is read out of
        # context (a name bound by a broken statement), so such an example only lends its
        # names to the next blocks and reports nothing. A session's statement that does not
        # parse is dropped whole, and the names it binds unbound: its others are checked.
        tree, how = python_reading(example.code)
        trusted = tree is not None and how in ("as written", "placeholders filled", "statements dropped")
        self.found = []
        self.run(example)
        if not trusted:
            self.found = []

    # -- reporting

    def _shown_as_error(self, node: ast.AST) -> bool:
        """Whether the line's own comment says the call fails (``logger.msg("hi")  # <- Mypy:
        error: …``, ``# raises TypeError``): the docs show the mistake on purpose."""
        assert self.example is not None
        offset = self._offset(node)
        lines = self.example.code.split("\n")
        if not 0 <= offset < len(lines) or "#" not in lines[offset]:
            return False
        return _FAILS.search(lines[offset].split("#", 1)[1]) is not None

    def _offset(self, node: ast.AST) -> int:
        """The 0-based line of the example's code that ``node`` (in the prepared source) is on."""
        lineno = getattr(node, "lineno", 1)
        return self.offsets[min(max(lineno, 1), len(self.offsets)) - 1] if self.offsets else lineno - 1

    def line(self, node: ast.AST) -> int:
        assert self.example is not None
        return self.example.page_line(self._offset(node))

    def report(
        self,
        kind: Kind,
        node: ast.AST,
        *,
        api: str,
        api_id: str | None,
        owner: str | None,
        message: str,
        suggestion: str | None,
    ) -> None:
        assert self.example is not None
        ex = self.example
        if self._shown_as_error(node):
            return
        self.found.append(
            DriftFinding(
                kind=kind,
                api=api,
                api_id=api_id,
                owner=owner,
                example_id=ex.example_id,
                source=ex.source,
                path=ex.path,
                line=self.line(node),
                message=message,
                suggestion=suggestion,
            )
        )

    # -- the hooks into the matcher's walk

    def ev(self, node: ast.expr | None) -> Value | None:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            base = self.ev(node.value)
            self.check_attribute(base, node)
            return self.attr(base, node.attr)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.ctx, ast.Load):
                base = self.ev(node.func.value)  # as ev reads an attribute, once
                self.check_attribute(base, node.func)
                self.check_property_call(base, node.func)
                func = self.attr(base, node.func.attr)
            else:
                func = self.ev(node.func)
            for arg in node.args:
                self.ev(arg)
            for kw in node.keywords:
                self.ev(kw.value)
            self.check_call(func, node)
            return self.call(func)
        return super().ev(node)

    def stmt(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not self.module_exists(alias.name):
                    self.missing_module(alias.name, node)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not self.module_exists(node.module):
                self.missing_module(node.module, node)
            elif self.known_root(node.module) and not any(p.startswith("_") for p in node.module.split(".")):
                # (a private module, `rich.__main__`, is not in the surface: its names are not known)
                module = Value("module", node.module)
                for alias in node.names:
                    if alias.name != "*":
                        self.check_name(
                            module, alias.name, node, written=f"from {node.module} import {alias.name}"
                        )
        super().stmt(node)

    # -- the checks

    def module_exists(self, name: str) -> bool:
        """False only for a module path inside the library that the surface does not know."""
        parts = name.split(".")
        if parts[0] not in self.r.roots or len(parts) == 1:
            return True
        if any(p.startswith("_") or p in _TEST_MODULES or p.startswith("test_") for p in parts):
            return True  # private and test modules are not in the surface
        return self.r.entry(name) is not None or name in self.r.prefixes or name in self.checker.present

    def missing_module(self, name: str, node: ast.stmt) -> None:
        parent, _, last = name.rpartition(".")
        while parent and not self.module_exists(parent):  # report the first part that is missing
            parent, _, last = parent.rpartition(".")
        full = f"{parent}.{last}"
        near = closest(last, self.checker.module_names(parent))
        self.report(
            "missing_api",
            node,
            api=name,
            api_id=None,
            owner=parent,
            message=f"module {full} does not exist in the installed {self.checker.library}",
            suggestion=f"did you mean {parent}.{near}?" if near else None,
        )

    def check_attribute(self, base: Value | None, node: ast.Attribute) -> None:
        written = _written(node)
        self.check_name(base, node.attr, node, written=written)

    def check_name(self, base: Value | None, name: str, node: ast.AST, *, written: str) -> None:
        if base is None or name.startswith("_") or base.guessed:
            return
        elsewhere: str | None = None  # another module of the library that has the name
        if base.kind == "module":
            q = f"{base.name}.{name}"
            if (
                base.name.split(".")[0] not in self.r.roots
                or self.r.entry(q) is not None
                or q in self.r.prefixes
                or q in self.checker.present
                # a module-level __getattr__ answers names it does not define (click's
                # `from click.parser import split_arg_string`, moved and deprecated)
                or f"{base.name}.__getattr__" in self.checker.present
            ):
                return
            owner, what, candidates = base.name, f"module {base.name}", self.checker.module_names(base.name)
            elsewhere = self._module_with(name)
            if elsewhere is not None:  # PyJWT's docs: `jwt.decode_complete` is jwt.api_jwt's
                candidates = []
        else:
            if base.kind not in ("api", "instance"):
                return  # an iterator of instances, or `self` in the example's own subclass
            # a union (`db[name]` → Table | View): missing when none of its classes has it
            classes = [self.r.entry(c) for c in base.classes]
            if any(e is None or e.kind != "class" for e in classes):
                return
            ids = [e.api_id for e in classes if e is not None]
            for cls in ids:
                if self.r.member(cls, name) is not None or not self.checker.closed(cls):
                    return
                if self.checker.in_subclass(cls, name):
                    return
            cls = ids[0]
            owner = cls
            what = f"class {cls}" if len(ids) == 1 else f"{' or '.join(ids)}"
            candidates = list(dict.fromkeys(n for c in ids for n in self.checker.member_names(c)))
        near = closest(name, candidates)
        suggestion = None
        if elsewhere is not None:
            suggestion = f"did you mean {elsewhere}.{name}?"
        elif near is not None:
            fixed = written[: len(written) - len(name)] + near if written.endswith(name) else near
            suggestion = f"did you mean {fixed}?"
        self.report(
            "missing_api",
            node,
            api=written,
            api_id=None,
            owner=owner,
            message=f"{written}: {what} has no {name!r} in the installed {self.checker.library}",
            suggestion=suggestion,
        )

    def _module_with(self, name: str) -> str | None:
        """The shortest public module of the library that has ``name`` (another module's
        function the docs call through the package), None when none has."""
        found = [
            module
            for module, names in self.r.by_module.items()
            if not any(p.startswith("_") for p in module.split("."))
            and any(n == name for n, _ in names)
            and ((entry := self.r.entry(module)) is None or entry.kind == "module")
        ]
        return min(found, key=lambda m: (m.count("."), m)) if found else None

    def check_property_call(self, base: Value | None, node: ast.Attribute) -> None:
        """``response.json()`` where ``json`` is a property whose type is no callable (werkzeug's
        test docs): the call raises TypeError; the property is read without ``()``."""
        if base is None or base.guessed or base.kind not in ("instance", "subclass") or node.attr in base.own:
            return
        found = [m for cls in base.classes if (m := self.r.member(cls, node.attr)) is not None]
        if len(found) != 1 or found[0].kind != "property":
            return
        prop = found[0]
        kind = (prop.returns.type if prop.returns is not None else None) or ""
        made = (
            self.r.entry(prop.returns.class_id)
            if prop.returns is not None and prop.returns.class_id
            else None
        )
        if made is not None:  # a class of the library: not callable unless it has __call__
            if made.kind != "class" or self.r.member(made.api_id, "__call__") is not None:
                return
        elif not _NEVER_CALLED.fullmatch(kind.strip()):
            return  # a type that may be callable, or not known to be data (an alias, a TypeVar)
        written = _written(node)
        owner = self.r.entry(prop.parent) if prop.parent else None
        shown = f"{owner.name}.{prop.name}" if owner is not None else prop.name
        self.report(
            "invalid_api_signature",
            node,
            api=f"{written}()",
            api_id=prop.api_id,
            owner=prop.parent,
            message=f"{written}(): {shown} is a property ({kind}), not a method: calling it raises TypeError",
            suggestion=f"read it without the call: {written}",
        )

    def check_call(self, func: Value | None, node: ast.Call) -> None:
        """The call's arguments against what it reaches: a function's, a method's or a
        class's ``__init__``'s parameters (:attr:`ApiEntry.parameters`; without one, its
        ``__new__``'s), or for an instance of a library class, its ``__call__``'s
        (``nlp(text, lower=True)``); when that signature takes anything, its overloads'."""
        if func is None or func.guessed:
            return
        reported: ApiEntry | None = None  # the API named in the finding, when not ``entry``
        if func.kind == "api":
            entry = self.r.entry(func.name)
            prefix = f"{entry.name}." if entry is not None and entry.kind == "class" else ""
            # A method reached through its class (``Cls.method(obj, ...)``) may take the
            # receiver explicitly: its positional count is not checked, unless it binds
            # the class or nothing (a classmethod, a staticmethod).
            count = entry is not None and (
                entry.kind != "method"
                or func.receiver is not None
                or entry.api_id in self.checker.bindings
                or _bound_call(entry, _written(node.func))
            )
            if entry is not None and entry.api_id in self.checker.made_by_metaclass:
                return  # its metaclass's __call__ decides what constructing it takes
            made = self.checker.constructors.get(entry.api_id) if entry is not None else None
            if made is not None:  # a class constructed by its __new__ (no __init__)
                reported, entry = entry, made
        elif func.kind in ("instance", "subclass") and not func.alternatives and "__call__" not in func.own:
            entry = self.checker.call_of(func.name)
            cls = self.r.entry(func.name)
            prefix = f"{cls.name if cls is not None else func.name}."
            count = True
        else:
            return
        if entry is None or not signature_known(entry):
            return
        written = _written(node.func)
        overloads = self.checker.overloads.get((reported or entry).api_id)
        if overloads:
            problems = overload_problems(
                overloads, node, written=written, prefix=prefix, count_positional=count
            )
        else:
            shown = entry.signature or entry.name
            shown = shown if entry.kind == "class" else prefix + shown
            problems = argument_problems(entry, node, written=written, shown=shown, count_positional=count)
        reported = reported or entry
        for problem in problems:
            self.report(
                "invalid_api_signature",
                problem.node,
                api=written,
                api_id=reported.api_id,
                owner=reported.parent,
                message=problem.message,
                suggestion=problem.suggestion,
            )


def _bound_call(entry: ApiEntry, written: str) -> bool:
    """Whether a call of a method reaches it by a module-level instance's name for it
    (``jwt.encode(…)``, ``from jwt import encode as enc``; :attr:`ApiEntry.bound_names`),
    not through its class (``PyJWT.encode(obj, …)``, which takes the receiver explicitly)."""
    owner = (entry.parent or "").rpartition(".")[2]
    return bool(entry.bound_names) and written.split(".")[-2:-1] != [owner]
