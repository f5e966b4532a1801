"""Which APIs each example uses: real analysis of the code, not substrings.

Python is read with ``ast`` (here); TypeScript/JavaScript with the tokenizer of
:mod:`docmentor.readme_llm.examples` (:mod:`docmentor.readme_llm.matcher_js`). Both follow
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
  ``except … as`` names end with their scope.
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
* **Nothing is invented.** A name with no known type matches nothing; words in strings
  and comments are never looked at.

``match_examples`` fills ``Example.apis_used`` and the reverse ``ApiEntry.examples``, and
refines each matched example's complexity with its API count.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from docmentor.readme_llm.examples import (
    JS_LANGUAGES,
    complexity_of,
    python_is_async,
    python_tree,
)
from docmentor.readme_llm.models import ApiEntry, Example

__all__ = ["ApiSurfaceLike", "match_examples"]


class ApiSurfaceLike(Protocol):
    """What the matcher needs of an API surface."""

    @property
    def entries(self) -> Sequence[ApiEntry]: ...

    def resolve(self, name: str) -> ApiEntry | None:
        """The entry for an ``api_id`` or any of its aliases (inherited members included)."""
        ...

    def return_class(self, api_id: str) -> str | None:
        """The class a function or method returns (a property: its type), or None."""
        ...


@dataclass(frozen=True, slots=True)
class _Value:
    # "items": an iterator, generator, context manager or sequence of instances of ``name``;
    # "subclass": ``self`` in a method of the example's own subclass of library class ``name``,
    # or an instance of that subclass; "derived": that subclass itself (``class User(BaseModel)``
    # makes ``User``: ``User.model_validate`` is ``BaseModel.model_validate``);
    # "caught": ``e`` in ``except name as e`` (its builtin members are not the surface's);
    # "unknown": what a library attribute holds or a library call gives, of no known class
    # (``app.config`` when ``Flask.config`` has no type): ``name`` is the API it came from
    kind: Literal["module", "api", "instance", "items", "subclass", "derived", "caught", "unknown"]
    name: str  # module path / api_id / class name
    receiver: str | None = None  # for a method reached through an instance: the instance's class
    # "subclass", "derived": the names its class body defines itself; "api" reached through
    # one of those: the same, for what a call to it returns as ``Self``
    own: frozenset[str] = frozenset()
    # reached through a name the example never binds, typed by convention (`app` → App):
    # good enough to link an example to an API, not certain enough for drift
    guessed: bool = False
    # a library attribute imported by name (`from structlog.processors import format_exc_info`):
    # its api_id, so that each use of the name credits it, as `processors.format_exc_info` does
    imported: str | None = None


_SELF = frozenset({"Self", "typing.Self", "typing_extensions.Self"})
_BUILTINS = frozenset(dir(builtins))
# members of the builtin types: a value of unknown class may well be one of these
_BUILTIN_MEMBERS = frozenset(
    name for t in (dict, list, str, bytes, set, tuple, int, float, object, type) for name in dir(t)
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _snake(name: str) -> str:
    """``QueryParams`` → ``query_params``, ``HTTPTransport`` → ``http_transport``."""
    return _CAMEL.sub("_", name).lower()


_WRAPPER = re.compile(r"^(?:Promise|Awaitable|typing\.Awaitable|Optional|typing\.Optional)\s*[<\[](.*)[>\]]$")
_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")


class _Resolver:
    """The surface seen by one language family, with caches."""

    def __init__(self, surface: ApiSurfaceLike, languages: frozenset[str], *, library: str) -> None:
        self.surface = surface
        self.languages = languages
        self.entries = [e for e in surface.entries if e.language in languages]
        self.prefixes: set[str] = set()  # every dotted prefix of a known name: modules, namespaces
        self.by_module: dict[str, list[tuple[str, str]]] = {}  # module → (name, api_id), for `import *`
        for e in self.entries:
            for name in (e.api_id, *e.aliases):
                parts = name.split(".")
                self.prefixes.update(".".join(parts[:i]) for i in range(1, len(parts)))
                self.by_module.setdefault(".".join(parts[:-1]), []).append((parts[-1], e.api_id))
        # the library's top-level names, known on a page even when it never imports them:
        # Python's top-level packages, the JS namespace
        self.roots = (
            {name.split(".")[0] for e in self.entries for name in (e.api_id, *e.aliases)}
            if "python" in languages
            else {library}
        )
        self._entry: dict[str, ApiEntry | None] = {}
        self._member: dict[tuple[str, str], ApiEntry | None] = {}
        self._conventional: dict[str, str] | None = None
        self._spelled: dict[str, str] = {}
        self._unique: dict[str, ApiEntry] | None = None

    def conventional(self, name: str) -> _Value | None:
        """What a never-bound name stands for by convention, as a guess:

        - the one public class spelled so (``Flask``, ``Config``): docs write ``app =
          Flask(__name__)`` and leave the import to the page before;
        - an instance of the one public class it is named after (``app`` → ``App``,
          ``response`` → ``Response``, ``query_params`` → ``QueryParams``): docs write
          ``@app.route(...)`` or ``response.json()`` and leave the object's making to the
          page's prose.

        Builtins (``list``, ``type``) are never taken for one."""
        if self._conventional is None:
            found: dict[str, set[str]] = {}
            spelled: dict[str, set[str]] = {}
            for e in self.entries:
                if e.kind == "class" and e.language == "python" and not e.name.startswith("_"):
                    spelled.setdefault(e.name, set()).add(e.api_id)
                    for key in {e.name.lower(), _snake(e.name)}:
                        found.setdefault(key, set()).add(e.api_id)
            self._conventional = {
                k: next(iter(v)) for k, v in found.items() if len(v) == 1 and k not in _BUILTINS
            }
            self._spelled = {
                k: next(iter(v)) for k, v in spelled.items() if len(v) == 1 and k not in _BUILTINS
            }
        if name in self._spelled:
            return _Value("api", self._spelled[name], guessed=True)
        cls = self._conventional.get(name)
        return _Value("instance", cls, guessed=True) if cls is not None else None

    def unique_member(self, name: str) -> ApiEntry | None:
        """The one class member the library has of this name, when no other API (of any
        kind) and no builtin type's member is named so: ``from_envvar`` on a value of
        unknown class can only be ``Config.from_envvar``; ``get`` or ``items`` could be
        anyone's."""
        if self._unique is None:
            named: dict[str, set[str]] = {}
            for e in self.entries:
                named.setdefault(e.name, set()).add(e.api_id)
            self._unique = {
                e.name: e
                for e in self.entries
                if e.parent is not None
                and e.kind in ("method", "property", "attribute")
                and len(named[e.name]) == 1
                and e.name not in _BUILTIN_MEMBERS
                and not e.name.startswith("_")
            }
        return self._unique.get(name)

    def entry(self, name: str) -> ApiEntry | None:
        if name not in self._entry:
            e = self.surface.resolve(name)
            self._entry[name] = e if e is not None and e.language in self.languages else None
        return self._entry[name]

    def member(self, cls: str, attr: str, _depth: int = 0) -> ApiEntry | None:
        key = (cls, attr)
        if key in self._member:
            return self._member[key]
        self._member[key] = None  # guards against inheritance cycles
        owner = self.entry(cls)
        names = [cls] if owner is None else list(dict.fromkeys([cls, owner.api_id, *owner.aliases]))
        found = next((e for n in names if (e := self.entry(f"{n}.{attr}")) is not None), None)
        if found is None and owner is not None and _depth < 8:
            module = owner.api_id.rpartition(".")[0]
            for base in owner.bases:
                base_entry = self.entry(base) or self.entry(f"{module}.{base}")
                if base_entry is not None and base_entry.kind == "class":
                    found = self.member(base_entry.api_id, attr, _depth + 1)
                    if found is not None:
                        break
        self._member[key] = found
        return found

    def returns(self, entry: ApiEntry, receiver: str | None) -> _Value | None:
        """What calling (or reading, for a property) ``entry`` gives: an instance of a
        class, else ``items`` of one (``Iterator[Response]``, ``list[Table]``)."""
        # Asked as reached (`Sub.clone`, not `Base.clone`): the surface can then answer
        # `Self` with the receiver's class.
        rc = self.surface.return_class(f"{receiver}.{entry.name}") if receiver else None
        cls = self._class(rc or self.surface.return_class(entry.api_id), entry, receiver)
        if cls is not None:
            return _Value("instance", cls)
        items = entry.returns.item_class_id if entry.returns is not None else None
        cls = self._class(items, entry, receiver)
        return _Value("items", cls) if cls is not None else None

    def _class(self, rc: str | None, entry: ApiEntry, receiver: str | None) -> str | None:
        while rc:
            m = _WRAPPER.match(rc.strip())
            if m is None:
                break
            rc = m.group(1)
        if not rc:
            return None
        rc = rc.strip().split("|")[0].strip()
        if rc in _SELF:
            return receiver or entry.parent
        if not _DOTTED.match(rc):
            return None
        cls = self.entry(rc)
        return cls.api_id if cls is not None and cls.kind == "class" else rc


@dataclass
class _Block:
    tabs: tuple[str, ...]
    is_async: bool
    env: dict[str, _Value | None] = field(default_factory=dict)


def _guess(value: _Value | None, guessed: bool) -> _Value | None:
    """``value``, marked guessed when what it came from was."""
    return replace(value, guessed=True) if guessed and value is not None else value


def _compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    # One tab path within the other (`Sync API` within `Python › Sync API`); sibling tabs
    # (`Sync API` / `Async API`, `Python` / `TypeScript`) never are.
    return set(a) <= set(b) or set(b) <= set(a)


class _Analysis:
    """Shared by both languages: names, values, member lookup, and the page's earlier blocks."""

    def __init__(self, resolver: _Resolver) -> None:
        self.r = resolver
        self.page: list[_Block] = []
        self.block = _Block((), False)
        self.used: dict[str, None] = {}
        self.certain: dict[str, None] = {}  # of those, the ones not reached through a guess
        self.conventions = False  # type never-bound names after the library's classes
        # what a library call or attribute of no known class gives is a value still (Python:
        # builtin members are known to leave out; a JS value's could be anything's)
        self.unknowns = False

    def run(self, example: Example) -> list[str]:
        """The api_ids the example uses, in order of first use; its names stay for the next block."""
        raise NotImplementedError

    def start(self, example: Example, is_async: bool) -> None:
        self.block = _Block(tuple(example.tabs), is_async)
        self.used = {}
        self.certain = {}

    def finish(self) -> list[str]:
        self.page.append(self.block)
        return list(self.used)

    def lookup(self, name: str) -> _Value | None:
        if name in self.block.env:
            return self.block.env[name]
        visible = [b for b in reversed(self.page) if _compatible(b.tabs, self.block.tabs) and name in b.env]
        for b in visible:
            if b.is_async == self.block.is_async:
                return b.env[name]
        if visible:
            return visible[0].env[name]
        if name in self.r.roots:
            return _Value("module", name)
        return self.r.conventional(name) if self.conventions and name not in _BUILTINS else None

    def bind(self, name: str, value: _Value | None) -> None:
        self.block.env[name] = value

    def use(self, entry: ApiEntry, *, guessed: bool = False) -> None:
        if entry.kind != "module":
            self.used.setdefault(entry.api_id, None)
            if not guessed:
                self.certain.setdefault(entry.api_id, None)

    def load(self, name: str) -> _Value | None:
        value = self.lookup(name)
        # a guess is credited where it was made (``app.route``: when reached), and a class
        # named but never imported (``Flask(__name__)``) not at all: what the block shows is
        # the member it then calls (``app.config.from_envvar``); crediting the class too made
        # it a hub, ahead of the members (find_api MRR on Flask 0.700 credited, 0.708 not;
        # httpx 0.786 against 0.802)
        if value is not None and value.kind == "api" and not value.guessed:
            e = self.r.entry(value.name)
            if e is not None:
                self.use(e)
        elif value is not None and value.imported is not None:
            e = self.r.entry(value.imported)
            if e is not None:
                self.use(e)
        return value

    def attr(self, value: _Value | None, name: str, *, record: bool = True) -> _Value | None:
        if value is None:
            return None
        if value.kind == "module":
            q = f"{value.name}.{name}"
            e = self.r.entry(q)
            if e is None:
                return _Value("module", q) if q in self.r.prefixes else None
            if e.kind == "module":
                return _Value("module", q)
            return self._reached(e, None, record=record)
        e = self.r.entry(value.name) if value.kind == "api" else None
        if value.kind == "api" and e is not None and e.kind == "class":
            m = self.r.member(e.api_id, name)
            return None if m is None else self._reached(m, None, record=record, guessed=value.guessed)
        if value.kind in ("instance", "subclass", "derived", "caught"):
            if name in value.own:
                return None  # the example's own method or attribute, not the library's
            m = self.r.member(value.name, name)
            if m is None:
                return None
            return self._reached(m, value.name, record=record, guessed=value.guessed, own=value.own)
        if value.kind == "unknown":  # a library value of no known class: a member only it has
            m = self.r.unique_member(name)
            return None if m is None else self._reached(m, None, record=record, guessed=True)
        return None

    def _reached(
        self,
        e: ApiEntry,
        receiver: str | None,
        *,
        record: bool,
        guessed: bool = False,
        own: frozenset[str] = frozenset(),
    ) -> _Value | None:
        if record:
            self.use(e, guessed=guessed)
        if e.kind in ("property", "attribute"):
            return _guess(self.r.returns(e, receiver), guessed) or self._unknown(e, guessed)
        return _Value("api", e.api_id, receiver, own=own, guessed=guessed)

    def call(self, value: _Value | None) -> _Value | None:
        if value is not None and value.kind == "derived":  # User(…): an instance of the subclass
            return _Value("subclass", value.name, own=value.own, guessed=value.guessed)
        if value is None or value.kind != "api":
            return None
        e = self.r.entry(value.name)
        if e is None:
            return None
        if e.kind == "class":
            return _Value("instance", e.api_id, guessed=value.guessed)
        out = _guess(self.r.returns(e, value.receiver), value.guessed)
        if out is not None and value.own and out.kind == "instance" and out.name == value.receiver:
            # Self through the example's own subclass (``User.model_validate(…)``): still its
            # instance, whose own fields (``user.id``) are not the library's
            return _Value("subclass", out.name, own=value.own, guessed=out.guessed)
        return out or self._unknown(e, value.guessed)

    def _unknown(self, e: ApiEntry, guessed: bool) -> _Value | None:
        """A library value of no known class, whose members are guessed by their name
        (``app.config.from_envvar``: only ``Config`` has ``from_envvar``). Not when the API
        says what it gives, and that is no class of the library (``Any``, ``_T``,
        ``dict[str, Any]``): attrs' ``x = field()`` then ``@x.validator`` is no
        ``Attribute.validator``."""
        if e.returns is not None and (e.returns.type or "").strip():
            return None
        return _Value("unknown", e.api_id, guessed=guessed) if self.unknowns else None

    def known_root(self, module: str) -> bool:
        return module.split(".")[0] in self.r.prefixes or self.r.entry(module) is not None


# -- Python --------------------------------------------------------------------------------


class _Python(_Analysis):
    def __init__(self, resolver: _Resolver) -> None:
        super().__init__(resolver)
        self.conventions = True
        self.unknowns = True
        # for each class being read: ``self`` in its methods, when it derives from a library
        # class (None: it does not, or a nested scope that is not one of its methods)
        self.bases: list[_Value | None] = []

    @contextmanager
    def in_class(self, this: _Value | None) -> Iterator[None]:
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
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bind(alias.asname, self.module(alias.name))
                else:
                    root = alias.name.split(".")[0]
                    self.bind(root, self.module(root))
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
            for item in node.items:
                value = self.ev(item.context_expr)
                if item.optional_vars is not None:
                    # a client's `__enter__` gives itself; a context manager its item
                    self.target(
                        item.optional_vars,
                        value if value and value.kind in ("instance", "subclass") else _item(value),
                    )
            self.body(node.body)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.target(node.target, _item(self.ev(node.iter)))
            self.body(node.body)
            self.body(node.orelse)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                self.ev(deco)
            args = node.args
            for default in (*args.defaults, *args.kw_defaults):
                if default is not None:
                    self.ev(default)
            if node.returns is not None:
                self.ev(node.returns)
            params = [
                a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a
            ]
            this = self.bases[-1] if self.bases else None
            with self.scoped(a.arg for a in params), self.in_class(None):  # its own functions are no methods
                for a in params:
                    self.bind(a.arg, self.annotation(a.annotation) if a.annotation else None)
                if this is not None:  # a method of a subclass of a library class
                    overridden = self.r.member(this.name, node.name)
                    if overridden is not None:  # the example shows how to implement it
                        self.use(overridden, guessed=this.guessed)
                    positional = (*args.posonlyargs, *args.args)
                    if positional and positional[0].annotation is None and not _is_static(node):
                        self.bind(positional[0].arg, this)  # self: the base's members, not its own
                self.body(node.body)
            self.bind(node.name, None)
        elif isinstance(node, ast.ClassDef):
            for expr in (*node.decorator_list, *(k.value for k in node.keywords)):
                self.ev(expr)
            # a subclass of library classes only (the first comes first in its MRO); with a
            # class of the example's own among its bases, its members could be anyone's
            bases = [None if _is_object(b) else self.annotation(b) for b in node.bases]
            known = [b for b in bases if b is not None]
            own = len(known) == len([b for b in node.bases if not _is_object(b)]) and bool(known)
            this = (
                # a base of the example's own (derived from the library's) keeps its names
                _Value(
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
        else:
            self.generic(node)

    def body(self, stmts: Iterable[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def generic(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.stmt(child)
            elif isinstance(child, ast.expr):
                self.ev(child)
            elif isinstance(child, ast.ExceptHandler):
                caught = self.annotation(child.type) if child.type is not None else None
                with self.scoped([child.name] if child.name else []):  # unbound after the handler
                    if child.name:  # `except httpx.HTTPStatusError as exc`: an instance of it
                        group = isinstance(node, ast.TryStar)  # `except*`: an ExceptionGroup
                        self.bind(
                            child.name,
                            _Value("caught", caught.name, guessed=caught.guessed)
                            if caught and not group
                            else None,
                        )
                    self.body(child.body)
            else:
                self.generic(child)

    def module(self, name: str) -> _Value | None:
        return _Value("module", name) if self.known_root(name) else None

    def import_from(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        known = node.level == 0 and bool(mod) and self.known_root(mod)
        for alias in node.names:
            if alias.name == "*":
                for name, api_id in self.r.by_module.get(mod, []) if known else []:
                    self.bind(name, _Value("api", api_id))
                continue
            local = alias.asname or alias.name
            value = self.attr(_Value("module", mod), alias.name, record=False) if known else None
            e = self.r.entry(f"{mod}.{alias.name}") if known else None
            if e is not None and e.kind in ("attribute", "property"):
                value = replace(value or _Value("unknown", e.api_id), imported=e.api_id)
            self.bind(local, value)

    def annotation(self, node: ast.expr) -> _Value | None:
        value = self.ev(node)
        if value is not None and value.kind == "derived":  # `u: User`: an instance of the subclass
            return replace(value, kind="subclass")
        if value is not None and value.kind == "api":
            e = self.r.entry(value.name)
            if e is not None and e.kind == "class":
                return _Value("instance", e.api_id, guessed=value.guessed)
        return None

    def target(self, node: ast.expr, value: _Value | None) -> None:
        if isinstance(node, ast.Name):
            self.bind(node.id, value)
        elif isinstance(node, ast.Tuple | ast.List):
            for elt in node.elts:
                self.target(elt, None)
        elif isinstance(node, ast.Starred):
            self.target(node.value, None)
        else:  # obj.attr = … / obj[k] = …: nothing bound, but the receiver is a use
            self.generic(node)

    def ev(self, node: ast.expr | None) -> _Value | None:
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


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@staticmethod`` (or ``@builtins.staticmethod``): no ``self``."""
    return any(
        (isinstance(d, ast.Name) and d.id == "staticmethod")
        or (isinstance(d, ast.Attribute) and d.attr == "staticmethod")
        for d in node.decorator_list
    )


def _is_object(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "object"


def _item(value: _Value | None) -> _Value | None:
    """What ``for`` (or a context manager's ``with … as``) takes from a value: an instance,
    when the value is ``items`` of a class."""
    if value is None or value.kind != "items":
        return None
    return _Value("instance", value.name, guessed=value.guessed)


# -- the entry point ----------------------------------------------------------------------


def match_examples(
    examples: Sequence[Example],
    surface: ApiSurfaceLike,
    *,
    library: str,
    js_packages: Iterable[str] = (),
) -> None:
    """Link examples and APIs both ways, in place.

    Fills ``Example.apis_used`` (api_ids, in order of first use) and appends the example's
    id to ``ApiEntry.examples`` of each API used. Only examples in the surface's languages
    are analysed (a Python surface: Python examples; a TS/JS surface: TypeScript and
    JavaScript ones). Matching again replaces the earlier links of these examples.

    Args:
        examples: as :func:`~docmentor.readme_llm.examples.extract_examples` returns them;
            the blocks of one page are read in order, so propagation crosses blocks.
        surface: the library's API surface.
        library: the library name: for JS/TS, the namespace of module-level names
            (``lancedb.connect``) and the npm package matched in imports
            (``lancedb``, ``@lancedb/lancedb``).
        js_packages: further npm package names that are this library (``vectordb``).
    """
    by_id: dict[str, ApiEntry] = {}
    for e in surface.entries:
        by_id.setdefault(e.api_id, e)
    ids = {ex.example_id for ex in examples}
    for e in by_id.values():
        if ids.intersection(e.examples):
            e.examples = [x for x in e.examples if x not in ids]
    families = {e.language for e in by_id.values()}
    resolvers: dict[str, _Resolver] = {}

    def analysis(family: str) -> _Analysis:
        if family not in resolvers:
            languages = frozenset({"python"}) if family == "python" else JS_LANGUAGES
            resolvers[family] = _Resolver(surface, languages, library=library)
        if family == "python":
            return _Python(resolvers[family])
        from docmentor.readme_llm.matcher_js import _Js  # it builds on this module's _Analysis

        return _Js(resolvers[family], library, js_packages)

    analyses: dict[str, _Analysis] = {}  # fresh per page and family
    page: tuple[str, str] | None = None
    for ex in sorted(examples, key=lambda x: (x.source, x.path, x.line)):
        if (ex.source, ex.path) != page:
            page, analyses = (ex.source, ex.path), {}
        if ex.language == "python" and "python" in families:
            family = "python"
        elif ex.language in JS_LANGUAGES and families & JS_LANGUAGES:
            family = "js"
        else:
            continue
        if family not in analyses:
            analyses[family] = analysis(family)
        try:
            ex.apis_used = analyses[family].run(ex)
        except RecursionError:  # a pathological expression (hundreds of chained operators): skip it
            ex.apis_used = []
            continue
        if ex.apis_used:
            ex.complexity = complexity_of(ex.code, ex.language, api_count=len(ex.apis_used))
        for api_id in ex.apis_used:
            entry = by_id.get(api_id)
            if entry is not None and ex.example_id not in entry.examples:
                entry.examples.append(ex.example_id)
