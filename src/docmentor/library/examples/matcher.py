"""Which APIs each example uses: real analysis of the code, not substrings.

Python is read with ``ast`` (here); TypeScript/JavaScript with the tokenizer of
:mod:`docmentor.library.examples.code_analysis` (:mod:`docmentor.library.examples.matcher_js`). Both follow
the same rules:

* **Imports bind names.** ``import lib as l`` / ``from lib.mod import f as g`` /
  ``import * as l from "lib"`` / ``const { f } = require("lib")``. Only the library's
  own modules (JS: its npm package) bind anything; every other name is unknown.
* **Values carry a type.** A call returns an instance of the class the surface says it
  returns (``surface.return_class``); calling a class makes an instance of it; ``Self``
  is the receiver's class. An attribute of an instance is the class's member
  (``surface.resolve(f"{cls}.{name}")``, with the class's bases walked when the surface
  does not list an inherited member), a property gives its type.
* **Types propagate** through assignments, ``with … as``, ``await``, chained calls, and
  across the blocks of a page in order. A call typed as an iterator, generator, context
  manager or sequence of a class (``Iterator[Response]``: a ``@contextmanager`` function,
  ``Generator[Row, None, None]``, ``list[Table]``; ``ApiReturn.item_class_id``, Python)
  gives that class's instances to ``with … as`` and to the target of ``for`` and
  comprehensions (``with httpx.stream(…) as r: r.iter_lines()`` → ``Response.iter_lines``).
  Blocks in sibling content tabs (``=== "Sync API"`` / ``=== "Async API"``) do not see
  each other's names; among the earlier blocks an async block prefers names bound by async
  blocks, a sync one those bound by sync blocks. Parameters, comprehension targets and
  ``except … as`` names end with their scope. Set-up code a page hides in an HTML comment
  (``context``) is read in its place for what it binds, and credits nothing.
* **Subclasses and handlers.** A method defined in a subclass of library classes only
  uses the member it overrides (``class T(httpx.BaseTransport): def handle_request(self,
  …)`` shows ``BaseTransport.handle_request``), and its ``self`` reaches the base's members
  except those the class body defines itself. So does the class itself and what it makes:
  ``class User(BaseModel)`` then ``User.model_validate(…)`` is ``BaseModel.model_validate``,
  and its ``Self`` a ``User`` whose fields (``user.id``) are its own, not the library's
  (nor drift); a subclass of that subclass keeps both bodies' names. With a class of the
  example's own not derived from the library among its bases, nothing is assumed.
  ``except httpx.HTTPStatusError as exc`` makes ``exc`` an
  instance of that class (``except*``: a group, unknown).
* **Conventions and fixtures.** A name the page never binds is typed by convention (``app``
  an instance of the library's one ``App``), as a guess; when that class lacks a member and
  exactly one public subclass defines it (``app.test_client()``: ``Flask``'s), that one. A
  pytest test's or fixture's parameters are fixtures: what the page's fixture of that name
  returns or yields (``def client(): return lib.Client()`` then ``def test_x(client)``); a
  parameter no fixture of the page types, or a plain function's, is nothing known (typing
  such a parameter by the name's convention credited flask's testing page more, and cost
  find_api: flask MRR 0.7833 → 0.7750, test_request_context 2nd → 3rd).
* **Products.** ``obj[key]`` and ``obj(...)`` give what the class's ``__getitem__`` /
  ``__call__`` return (the surface's ``products``); a union (``Table | View``) is one of its
  classes, and a member names which when only one has it: ``db["t"].insert_all(...)`` is
  ``Table.insert_all``; ``tables[0]`` is one of ``list[Table]``.
* **Nothing is invented.** A name with no known type matches nothing; words in strings
  and comments are never looked at. A block that only lists names (imports, bare names,
  :func:`~docmentor.library.examples.classify.names_only`) uses no API: it shows none.

``match_examples`` fills ``Example.apis_used`` and the reverse ``ApiEntry.examples``, and
refines each matched example's complexity with its API count.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TypeGuard

from docmentor.library.examples.classify import complexity_of, names_only
from docmentor.library.examples.code_analysis import JS_LANGUAGES, python_is_async, python_tree
from docmentor.library.examples.matcher_core import Analysis, ApiSurfaceLike, Resolver, Value, guessed_as
from docmentor.library.examples.matcher_js import JsAnalysis
from docmentor.library.examples.matcher_native import NATIVE_LANGUAGES, NativeMatcher
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.products import OPERATORS
from docmentor.search.ranking import history_page

__all__ = ["ApiSurfaceLike", "PythonAnalysis", "match_examples"]


# -- Python --------------------------------------------------------------------------------


class PythonAnalysis(Analysis):
    def __init__(self, resolver: Resolver) -> None:
        super().__init__(resolver)
        self.conventions = True
        self.unknowns = True
        # for each class being read: ``self`` in its methods, when it derives from a library
        # class (None: it does not, or a nested scope that is not one of its methods)
        self.bases: list[Value | None] = []
        # pytest fixtures defined on the page so far: name → what the fixture function
        # returns or yields (None: not known); a test's or fixture's parameter named so is that
        self.fixtures: dict[str, Value | None] = {}
        # for each function being read: the values its ``return`` / ``yield`` give
        self.returned: list[list[Value | None]] = []

    @contextmanager
    def in_class(self, this: Value | None) -> Iterator[None]:
        """Read a class body (``this``: its methods' ``self``), or a scope that is no class."""
        self.bases.append(this)
        try:
            yield
        finally:
            self.bases.pop()

    @contextmanager
    def scoped(self, names: Iterable[str]) -> Iterator[None]:
        """Names bound inside are unbound after (parameters, comprehension targets, ``except
        … as``): what they were before comes back, or earlier blocks' again."""
        env = self.block.env
        names = list(names)
        saved = {n: env[n] for n in names if n in env}
        fresh = [n for n in names if n not in env]
        try:
            yield
        finally:
            for n in fresh:
                env.pop(n, None)
            env.update(saved)

    def run(self, example: Example) -> list[str]:
        tree = python_tree(example.code)
        self.start(example, tree is not None and python_is_async(tree))
        if tree is not None:
            for stmt in tree.body:
                self.stmt(stmt)
        return self.finish()

    def stmt(self, node: ast.stmt) -> None:
        """Read one statement: what it binds, and the library uses in it."""
        if isinstance(node, ast.Import):
            self.import_(node)
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node)
        elif isinstance(node, ast.Assign):
            value = self.ev(node.value)
            for target in node.targets:
                self.target(target, value)
        elif isinstance(node, ast.AnnAssign):
            value = self.ev(node.value) if node.value is not None else None
            self.target(node.target, value or self.annotation(node.annotation))
        elif isinstance(node, ast.With | ast.AsyncWith):
            self.with_(node)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.target(node.target, _item(self.ev(node.iter)))
            self.body(node.body)
            self.body(node.orelse)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function_def(node)
        elif isinstance(node, ast.If):
            self.ev(node.test)
            self.branches([node.body, node.orelse])
        elif isinstance(node, ast.Try | ast.TryStar):
            self.branches(
                [[*node.body, *node.orelse], *([h] for h in node.handlers)],
                group=isinstance(node, ast.TryStar),
            )
            self.body(node.finalbody)
        elif isinstance(node, ast.ClassDef):
            self.class_def(node)
        elif isinstance(node, ast.Return):
            self.returns(self.ev(node.value) if node.value is not None else None)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            # `expr <<= a | b`: what its __ilshift__ (else __lshift__) gives, when known
            before = self.lookup(node.target.id)
            right = self.ev(node.value)
            name = OPERATORS.get(type(node.op))
            after = self.operator(before, None, f"i{name}", reflected=False) if name else None
            after = after or (self.operator(before, right, name) if name else None)
            if after is not None:
                self.bind(node.target.id, after)
        else:
            self.generic(node)

    def operator(
        self, left: Value | None, right: Value | None, name: str | None, *, reflected: bool = True
    ) -> Value | None:
        """What ``left <op> right`` gives: the left's ``__<op>__``, else the right's
        ``__r<op>__``, when the surface knows the class it returns (``name``: ``add``, ``or``…)."""
        if name is None:
            return None
        if _instance(left):
            got = self.r.produced(left.name, f"__{name}__")
            if got is not None:
                return guessed_as(got, left.guessed)
        if reflected and _instance(right):
            got = self.r.produced(right.name, f"__r{name}__")
            if got is not None:
                return guessed_as(got, right.guessed)
        return None

    def import_(self, node: ast.Import) -> None:
        """``import a.b`` binds ``a``; ``import a.b as c`` binds ``c`` to ``a.b`` (library modules only)."""
        for alias in node.names:
            if alias.asname:
                self.bind(alias.asname, self.module(alias.name))
            else:
                root = alias.name.split(".")[0]
                self.bind(root, self.module(root))

    def with_(self, node: ast.With | ast.AsyncWith) -> None:
        """A ``with`` block: its ``as`` targets, then its body."""
        for item in node.items:
            value = self.ev(item.context_expr)
            if item.optional_vars is not None:
                # a client's `__enter__` gives itself; a context manager its item
                self.target(
                    item.optional_vars,
                    value if value and value.kind in ("instance", "subclass") else _item(value),
                )
        self.body(node.body)

    def function_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A function: its decorators, defaults and return annotation now; its body with its
        parameters bound (``self`` of a subclass of a library class: the base's members)."""
        for deco in node.decorator_list:
            value = self.ev(deco)
            if not isinstance(deco, ast.Call):
                self.decorate(value)  # `@hookimpl`: the instance called with the function
            else:
                if isinstance(deco.func, ast.Name):
                    self.decorate(self.lookup(deco.func.id))  # `@hookimpl(tryfirst=True)`
                self.decorate(value)  # `@Marker("p")`: the instance made, called with the function
        args = node.args
        for default in (*args.defaults, *args.kw_defaults):
            if default is not None:
                self.ev(default)
        if node.returns is not None:
            self.ev(node.returns)
        params = [a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a]
        this = self.bases[-1] if self.bases else None
        fixture = _fixture_name(node)
        # a pytest test's or fixture's parameters are fixtures: the page's of that name
        pytest_params = this is None and (fixture is not None or node.name.startswith("test_"))
        self.returned.append([])
        # its name is the function itself in its body (a call there runs after the def bound it:
        # `def typechecked(f): return … typechecked` is no use of an import of that name)
        self.bind(node.name, None)
        with self.scoped(a.arg for a in params), self.in_class(None):  # its own functions are no methods
            for a in params:
                if a.annotation:
                    self.bind(a.arg, self.annotation(a.annotation))
                elif pytest_params and a is not args.vararg and a is not args.kwarg:
                    self.bind(a.arg, self.fixtures.get(a.arg))
                else:
                    self.bind(a.arg, None)
            if this is not None:  # a method of a subclass of a library class
                overridden = self.r.member(this.name, node.name)
                if overridden is not None:  # the example shows how to implement it
                    self.use(overridden, guessed=this.guessed)
                positional = (*args.posonlyargs, *args.args)
                if positional and positional[0].annotation is None and not _is_static(node):
                    self.bind(positional[0].arg, this)  # self: the base's members, not its own
            self.body(node.body)
        given = self.returned.pop()
        if fixture is not None:  # what every return or yield of it gives, when they agree
            kinds = set(given)
            self.fixtures[fixture] = kinds.pop() if len(kinds) == 1 else None
        self.bind(node.name, None)

    def returns(self, value: Value | None) -> None:
        """A ``return`` or ``yield`` of the function being read gives ``value``."""
        if self.returned:
            self.returned[-1].append(value)

    def class_def(self, node: ast.ClassDef) -> None:
        """A class: its decorators and keywords, its body (methods see a library base), and
        its name bound to what it derives from the library, if anything."""
        for expr in (*node.decorator_list, *(k.value for k in node.keywords)):
            self.ev(expr)
        # a subclass of library classes only (the first comes first in its MRO); with a
        # class of the example's own among its bases, its members could be anyone's
        bases = [None if _is_object(b) else self.annotation(b) for b in node.bases]
        known = [b for b in bases if b is not None]
        own = len(known) == len([b for b in node.bases if not _is_object(b)]) and bool(known)
        this = (
            # a base of the example's own (derived from the library's) keeps its names
            Value(
                "subclass",
                known[0].name,
                own=_defined(node).union(*(b.own for b in known)),
                guessed=known[0].guessed,
            )
            if own
            else None
        )
        with self.in_class(this):
            for stmt in node.body:  # its methods see the base; other statements do not
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.stmt(stmt)
                else:
                    with self.in_class(None):
                        self.stmt(stmt)
        # the class itself: its own names are its own, the rest the library base's
        self.bind(node.name, None if this is None else replace(this, kind="derived"))

    def body(self, stmts: Iterable[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def branches(
        self, branches: Sequence[Sequence[ast.stmt | ast.ExceptHandler]], *, group: bool = False
    ) -> None:
        """Alternative blocks (an ``if``'s and its ``else``'s; a ``try``'s and its handlers'): each
        read from the names bound before it, as only one of them runs (an ``else`` that defines
        a fallback ``typechecked`` does not see the ``if``'s import of it); afterwards a name is
        what some branch bound it to, the library's where one branch binds it so and another
        to something of the page's own. ``group``: the handlers are ``except*``'s."""
        env = self.block.env
        before = dict(env)
        after: dict[str, Value | None] = {}
        for branch in branches:
            env.clear()
            env.update(before)
            for node in branch:
                if isinstance(node, ast.ExceptHandler):
                    self.handler(node, group=group)
                else:
                    self.stmt(node)
            for name, value in env.items():
                if name in before and before[name] is value:
                    continue  # not bound by this branch
                if name not in after or (after[name] is None and value is not None):
                    after[name] = value
        env.clear()
        env.update(before)
        env.update(after)

    def handler(self, node: ast.ExceptHandler, *, group: bool = False) -> None:
        """An ``except`` clause: ``as`` binds an instance of what it catches, only inside."""
        caught = self.annotation(node.type) if node.type is not None else None
        with self.scoped([node.name] if node.name else []):  # unbound after the handler
            if node.name:  # `except httpx.HTTPStatusError as exc`: an instance of it
                self.bind(
                    node.name,
                    Value("caught", caught.name, guessed=caught.guessed) if caught and not group else None,
                )
            self.body(node.body)

    def generic(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.stmt(child)
            elif isinstance(child, ast.expr):
                self.ev(child)
            elif isinstance(child, ast.ExceptHandler):
                self.handler(child, group=isinstance(node, ast.TryStar))  # `except*`: an ExceptionGroup
            else:
                self.generic(child)

    def module(self, name: str) -> Value | None:
        return Value("module", name) if self.known_root(name) else None

    def import_from(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        known = node.level == 0 and bool(mod) and self.known_root(mod)
        for alias in node.names:
            if alias.name == "*":
                for name, api_id in self.r.by_module.get(mod, []) if known else []:
                    self.bind(name, Value("api", api_id))
                continue
            local = alias.asname or alias.name
            if not known and (prior := self.lookup(local)) is not None and prior.kind == "instance":
                # `from my_project.console import console` after the page's `console =
                # Console()` (rich): the reader's own module holds the object the page made
                self.bind(local, prior)
                continue
            value = self.attr(Value("module", mod), alias.name, record=False) if known else None
            e = self.r.entry(f"{mod}.{alias.name}") if known else None
            if e is not None and e.kind in ("attribute", "property"):
                value = replace(value or Value("unknown", e.api_id), imported=e.api_id)
            self.bind(local, value)

    def annotation(self, node: ast.expr) -> Value | None:
        if isinstance(node, ast.Subscript):  # `MemoryObjectSendStream[str]`: that class's instance
            head = self.annotation(node.value)
            if head is not None:
                return head
        value = self.ev(node)
        if value is not None and value.kind == "derived":  # `u: User`: an instance of the subclass
            return replace(value, kind="subclass")
        if value is not None and value.kind == "api":
            e = self.r.entry(value.name)
            if e is not None and e.kind == "class":
                return Value("instance", e.api_id, guessed=value.guessed)
        return None

    def target(self, node: ast.expr, value: Value | None) -> None:
        if isinstance(node, ast.Name):
            self.bind(node.id, value)
        elif isinstance(node, ast.Tuple | ast.List):
            for elt in node.elts:
                self.target(elt, None)
        elif isinstance(node, ast.Starred):
            self.target(node.value, None)
        else:  # obj.attr = … / obj[k] = …: nothing bound, but the receiver is a use
            self.generic(node)

    def ev(self, node: ast.expr | None) -> Value | None:
        if node is None:
            return None
        if isinstance(node, ast.Name):
            return self.load(node.id) if isinstance(node.ctx, ast.Load) else None
        if isinstance(node, ast.Attribute):
            return self.attr(self.ev(node.value), node.attr)
        if isinstance(node, ast.Call):
            func = self.ev(node.func)
            for arg in node.args:
                self.ev(arg)
            for kw in node.keywords:
                self.ev(kw.value)
            return self.call(func)
        if isinstance(node, ast.Await):
            return self.ev(node.value)
        if isinstance(node, ast.BinOp):  # `a + b`: what the left's __add__ (or the right's __radd__) gives
            return self.operator(self.ev(node.left), self.ev(node.right), OPERATORS.get(type(node.op)))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            value = self.ev(node.operand)
            return (
                guessed_as(self.r.produced(value.name, "__invert__"), value.guessed)
                if _instance(value)
                else None
            )
        if isinstance(node, ast.Yield):
            self.returns(self.ev(node.value))
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            base = self.ev(node.value)
            self.ev(node.slice)
            return self.subscript(base, sliced=isinstance(node.slice, ast.Slice))
        if isinstance(node, ast.NamedExpr):
            value = self.ev(node.value)
            self.bind(node.target.id, value)
            return value
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            targets = [n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)]
            with self.scoped(targets):  # a comprehension's names are its own
                for gen in node.generators:
                    self.target(gen.target, _item(self.ev(gen.iter)))
                    for cond in gen.ifs:
                        self.ev(cond)
                self.generic(node)
            return None
        if isinstance(node, ast.Lambda):
            args = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
            with self.scoped(args):
                for name in args:
                    self.bind(name, None)
                self.generic(node)
            return None
        self.generic(node)
        return None


def _instance(value: Value | None) -> TypeGuard[Value]:
    return value is not None and value.kind in ("instance", "subclass")


def _defined(node: ast.ClassDef) -> frozenset[str]:
    """The methods and class attributes a class body defines (also under ``if``/``try``)."""
    names: set[str] = set()
    todo: list[ast.AST] = list(node.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)  # not inside: its body is its own scope
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(stmt, ast.stmt):
            todo.extend(c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.stmt | ast.ExceptHandler))
        elif isinstance(stmt, ast.ExceptHandler):
            todo.extend(stmt.body)
    return frozenset(names)


def _fixture_name(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The fixture a function decorated ``@pytest.fixture`` / ``@fixture`` (called or not)
    provides: its ``name=`` when given as a string, else the function's name; None for
    any other function."""
    for deco in node.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        target = call.func if call is not None else deco
        if not (
            (isinstance(target, ast.Name) and target.id == "fixture")
            or (isinstance(target, ast.Attribute) and target.attr == "fixture")
        ):
            continue
        for kw in call.keywords if call is not None else []:
            if kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                return kw.value.value
        return node.name
    return None


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@staticmethod`` (or ``@builtins.staticmethod``): no ``self``."""
    return any(
        (isinstance(d, ast.Name) and d.id == "staticmethod")
        or (isinstance(d, ast.Attribute) and d.attr == "staticmethod")
        for d in node.decorator_list
    )


def _is_object(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "object"


def _item(value: Value | None) -> Value | None:
    """What ``for`` (or a context manager's ``with … as``) takes from a value: an instance,
    when the value is ``items`` of a class."""
    if value is None or value.kind != "items":
        return None
    return Value("instance", value.name, guessed=value.guessed)


# -- the entry point ----------------------------------------------------------------------


def _history_last(examples: Sequence[Example], entries: Iterable[ApiEntry]) -> None:
    """An API's examples from pages that record changes (release notes: "previously you called
    it like this") after its others: the first ones are what it is shown and embedded by."""
    history = {ex.example_id for ex in examples if history_page(ex.path)}
    if history:
        for entry in entries:
            if history.intersection(entry.examples):
                entry.examples.sort(key=lambda x: x in history)


def match_examples(
    examples: Sequence[Example],
    surface: ApiSurfaceLike,
    *,
    library: str,
    js_packages: Iterable[str] = (),
    context: Sequence[Example] = (),
) -> None:
    """Link examples and APIs both ways, in place.

    Fills ``Example.apis_used`` (api_ids, in order of first use) and appends the example's
    id to ``ApiEntry.examples`` of each API used. Only examples in the surface's languages
    are analysed (a Python surface: Python examples; a TS/JS surface: TypeScript and
    JavaScript ones). Matching again replaces the earlier links of these examples.

    Args:
        examples: as :func:`~docmentor.library.examples.examples.extract_examples` returns them;
            the blocks of one page are read in order, so propagation crosses blocks.
        surface: the library's API surface.
        library: the library name: for JS/TS, the namespace of module-level names
            (``lancedb.connect``) and the npm package matched in imports
            (``lancedb``, ``@lancedb/lancedb``).
        js_packages: further npm package names that are this library (``vectordb``).
        context: code read in its page's order only for what it binds, never linked (the
            set-up code a page hides in HTML comments:
            :func:`~docmentor.library.examples.examples.setup_examples`).
    """
    by_id: dict[str, ApiEntry] = {}
    for e in surface.entries:
        by_id.setdefault(e.api_id, e)
    ids = {ex.example_id for ex in examples}
    for e in by_id.values():
        if ids.intersection(e.examples):
            e.examples = [x for x in e.examples if x not in ids]
    families = {e.language for e in by_id.values()}
    resolvers: dict[str, Resolver] = {}

    def analysis(family: str) -> Analysis:
        if family not in resolvers:
            languages = frozenset({"python"}) if family == "python" else JS_LANGUAGES
            resolvers[family] = Resolver(surface, languages, library=library)
        if family == "python":
            return PythonAnalysis(resolvers[family])
        return JsAnalysis(resolvers[family], library, js_packages)

    analyses: dict[str, Analysis] = {}  # fresh per page and family
    native: NativeMatcher | None = None  # Go and Rust (matcher_native): by the names written
    page: tuple[str, str] | None = None
    hidden = {id(ex) for ex in context}
    for ex in sorted([*examples, *context], key=lambda x: (x.source, x.path, x.line)):
        if (ex.source, ex.path) != page:
            page, analyses = (ex.source, ex.path), {}
        if ex.language == "python" and "python" in families:
            family = "python"
        elif ex.language in JS_LANGUAGES and families & JS_LANGUAGES:
            family = "js"
        elif ex.language in NATIVE_LANGUAGES and ex.language in families:
            if id(ex) not in hidden:
                native = native or NativeMatcher(surface, library)
                _link(ex, native.uses(ex.code, ex.language), by_id)
            continue
        else:
            continue
        if family not in analyses:
            analyses[family] = analysis(family)
        try:
            used = analyses[family].run(ex)
        except RecursionError:  # a pathological expression (hundreds of chained operators): skip it
            used = []
            if id(ex) in hidden:
                continue
            ex.apis_used = []
            continue
        if id(ex) in hidden:  # page context: its names bind, it credits nothing
            continue
        # a block of names only: its imports still bind names for the next blocks, it credits none
        _link(ex, [] if names_only(ex.code, ex.language) else used, by_id)
    _history_last(examples, by_id.values())


def _link(ex: Example, used: list[str], by_id: dict[str, ApiEntry]) -> None:
    """``ex`` uses ``used``: its ``apis_used``, its complexity, and each API's examples."""
    ex.apis_used = used
    if used:
        ex.complexity = complexity_of(ex.code, ex.language, api_count=len(used))
    for api_id in used:
        entry = by_id.get(api_id)
        if entry is not None and ex.example_id not in entry.examples:
            entry.examples.append(ex.example_id)
