"""The language-neutral core of the example matcher (:mod:`docmentor.library.examples.matcher`):
the surface seen by one language family (:class:`Resolver`), the values names hold
(:class:`Value`), and the analysis both languages build on (:class:`Analysis`: names, values,
member lookup and the page's earlier blocks). The Python analysis is in ``matcher``, the
TypeScript/JavaScript one in :mod:`docmentor.library.examples.matcher_js`; both import this module
and nothing imports them back.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from docmentor.library.models import ApiEntry, Example

__all__ = ["Analysis", "ApiSurfaceLike", "Resolver", "Value"]


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
class Value:
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
    # "instance": the other classes it may be one of (a union return, ``db[name]`` through
    # ``__getitem__ -> Table | View``): a member is that of the one class that has it
    alternatives: tuple[str, ...] = ()

    @property
    def classes(self) -> tuple[str, ...]:
        """Every class it may be an instance of: ``name``, then ``alternatives``."""
        return (self.name, *self.alternatives)


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


class Resolver:
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
        # (not the package another distribution's re-exported objects are defined in: typer's
        # `typer.echo` is click's, and `click.group` is no name typer should have)
        self.roots = (
            {
                name.split(".")[0]
                for e in self.entries
                for name in (*e.aliases, *(() if e.foreign else (e.api_id,)))
            }
            if "python" in languages
            else {library}
        )
        self._entry: dict[str, ApiEntry | None] = {}
        self._member: dict[tuple[str, str], ApiEntry | None] = {}
        self._conventional: dict[str, str] | None = None
        # what a class's instances give indexed or called, and union returns (the Python
        # surface's ``products``; none from other surfaces)
        self.products: dict[str, tuple[str, ...]] = dict(getattr(surface, "products", None) or {})
        self.stubs: frozenset[str] = frozenset(getattr(surface, "stubs", None) or ())
        self._spelled: dict[str, str] = {}
        self._unique: dict[str, ApiEntry] | None = None
        self._subclasses: dict[str, list[str]] | None = None

    def conventional(self, name: str) -> Value | None:
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
            return Value("api", self._spelled[name], guessed=True)
        cls = self._conventional.get(name)
        return Value("instance", cls, guessed=True) if cls is not None else None

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

    def _descendants(self, cls: str) -> set[str]:
        """The public subclasses of class ``cls`` (an api_id), direct or further down."""
        if self._subclasses is None:
            self._subclasses = {}
            classes = [e for e in self.entries if e.kind == "class"]
            named: dict[str, set[str]] = {}
            for e in classes:
                named.setdefault(e.name, set()).add(e.api_id)
            for e in classes:
                if e.name.startswith("_"):
                    continue
                module = e.api_id.rpartition(".")[0]
                for base in e.bases:
                    b = self.entry(base) or self.entry(f"{module}.{base}")
                    # a base as written (``App``, imported from elsewhere): the one class so named
                    short = named.get(base.rpartition(".")[2], set())
                    b_id = b.api_id if b is not None and b.kind == "class" else None
                    b_id = b_id or (next(iter(short)) if len(short) == 1 else None)
                    if b_id is not None and b_id != e.api_id:
                        self._subclasses.setdefault(b_id, []).append(e.api_id)
        seen: set[str] = set()
        todo = list(self._subclasses.get(cls, []))
        while todo and len(seen) < 64:
            sub = todo.pop()
            if sub not in seen:
                seen.add(sub)
                todo.extend(self._subclasses.get(sub, []))
        return seen

    def subclass_member(self, cls: str, attr: str) -> tuple[str, ApiEntry] | None:
        """The member ``attr`` of the one public subclass of ``cls`` (direct or further down)
        that has it, with that subclass's api_id, when ``cls`` itself lacks it: ``app`` guessed
        an ``App`` reaches ``Flask.test_client``. None when no subclass, or several, have it."""
        owner = self.entry(cls)
        if owner is None or self.member(owner.api_id, attr) is not None:
            return None
        seen = self._descendants(owner.api_id)
        found = {m.api_id: (sub, m) for sub in sorted(seen) if (m := self.member(sub, attr)) is not None}
        if len(found) != 1:  # defined by several subclasses (or none): which one is unknown
            return None
        sub, m = next(iter(found.values()))
        # the subclass defining it, when it is one of them (its own subclasses inherit it)
        return (m.parent if m.parent is not None and m.parent in seen else sub), m

    def implementation(self, cls: str, stub: ApiEntry) -> tuple[str, ApiEntry] | None:
        """Where a value typed as ``cls`` runs ``stub`` (a member that only declares: ``raise
        NotImplementedError``): the one public subclass of ``cls`` that defines it, or of
        several, the one the package exports at its top level. urllib3's ``request()`` is
        typed ``-> BaseHTTPResponse``, whose ``stream`` raises; ``HTTPResponse.stream`` is
        what runs and what the docs describe. None when that cannot be told."""
        owner = self.entry(cls)
        if owner is None:
            return None
        seen = self._descendants(owner.api_id)
        found: dict[str, tuple[str, ApiEntry]] = {}
        for sub in sorted(seen):
            m = self.member(sub, stub.name)
            if m is not None and m.api_id != stub.api_id and m.api_id not in self.stubs and m.parent in seen:
                found.setdefault(m.api_id, (m.parent, m))
        if len(found) > 1:  # several implement it: the one the package exports at its top
            top = {
                k: v
                for k, v in found.items()
                if (e := self.entry(v[0])) is not None
                and any(a.count(".") == 1 for a in (e.api_id, *e.aliases))
            }
            found = top
        return next(iter(found.values())) if len(found) == 1 else None

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

    def returns(self, entry: ApiEntry, receiver: str | None) -> Value | None:
        """What calling (or reading, for a property) ``entry`` gives: an instance of a
        class, else ``items`` of one (``Iterator[Response]``, ``list[Table]``)."""
        # Asked as reached (`Sub.clone`, not `Base.clone`): the surface can then answer
        # `Self` with the receiver's class.
        rc = self.surface.return_class(f"{receiver}.{entry.name}") if receiver else None
        cls = self._class(rc or self.surface.return_class(entry.api_id), entry, receiver)
        if cls is not None:
            return Value("instance", cls)
        union = self.products.get(entry.api_id)
        if union:  # `-> Table | View`: one of them (Self: the class it was reached through)
            first, *rest = (receiver or c if c == entry.parent else c for c in union)
            return Value("instance", first, alternatives=tuple(rest))
        items = entry.returns.item_class_id if entry.returns is not None else None
        cls = self._class(items, entry, receiver)
        return Value("items", cls) if cls is not None else None

    def produced(self, cls: str, method: str) -> Value | None:
        """What an instance of ``cls`` gives through ``method`` (``__getitem__``: ``obj[key]``,
        ``__call__``: ``obj(...)``), when the surface knows: an instance of one of its classes."""
        owner = self.entry(cls)
        found = self.products.get(f"{owner.api_id if owner is not None else cls}.{method}")
        if not found:
            return None
        first, *rest = found
        return Value("instance", first, alternatives=tuple(rest))

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
    env: dict[str, Value | None] = field(default_factory=dict)


def guessed_as(value: Value | None, guessed: bool) -> Value | None:
    """``value``, marked guessed when what it came from was."""
    return replace(value, guessed=True) if guessed and value is not None else value


def _compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    # One tab path within the other (`Sync API` within `Python › Sync API`); sibling tabs
    # (`Sync API` / `Async API`, `Python` / `TypeScript`) never are.
    return set(a) <= set(b) or set(b) <= set(a)


class Analysis:
    """Shared by both languages: names, values, member lookup, and the page's earlier blocks."""

    def __init__(self, resolver: Resolver) -> None:
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

    def lookup(self, name: str) -> Value | None:
        if name in self.block.env:
            return self.block.env[name]
        visible = [b for b in reversed(self.page) if _compatible(b.tabs, self.block.tabs) and name in b.env]
        for b in visible:
            if b.is_async == self.block.is_async:
                return b.env[name]
        if visible:
            return visible[0].env[name]
        if name in self.r.roots:
            return Value("module", name)
        return self.r.conventional(name) if self.conventions and name not in _BUILTINS else None

    def bind(self, name: str, value: Value | None) -> None:
        self.block.env[name] = value

    def use(self, entry: ApiEntry, *, guessed: bool = False) -> None:
        if entry.kind != "module":
            self.used.setdefault(entry.api_id, None)
            if not guessed:
                self.certain.setdefault(entry.api_id, None)

    def load(self, name: str) -> Value | None:
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

    def attr(self, value: Value | None, name: str, *, record: bool = True) -> Value | None:
        if value is None:
            return None
        if value.kind == "module":
            q = f"{value.name}.{name}"
            e = self.r.entry(q)
            if e is None:
                return Value("module", q) if q in self.r.prefixes else None
            if e.kind == "module":
                return Value("module", q)
            return self._reached(e, None, record=record)
        e = self.r.entry(value.name) if value.kind == "api" else None
        if value.kind == "api" and e is not None and e.kind == "class":
            m = self.r.member(e.api_id, name)
            return None if m is None else self._reached(m, None, record=record, guessed=value.guessed)
        if value.kind in ("instance", "subclass", "derived", "caught"):
            if name in value.own:
                return None  # the example's own method or attribute, not the library's
            # of a union, the one class that has it: the member says which the value is
            # (``db[name].insert_all``: a Table, not a View); when several have it, which
            # one runs is unknown and nothing is typed past it (crediting the first class
            # of lancedb's `AsyncTable.search -> AsyncHybridQuery | AsyncFTSQuery | …` and
            # what its `-> Self` chains give: lancedb MRR 0.7375 → 0.7267)
            found = [(cls, m) for cls in value.classes if (m := self.r.member(cls, name)) is not None]
            if not found and value.guessed and value.kind == "instance" and not value.alternatives:
                # a guessed class lacking the member: the one public subclass defining it
                # (``app`` guessed an ``App``, ``app.test_client()`` only ``Flask`` has)
                sub = self.r.subclass_member(value.name, name)
                found = [sub] if sub is not None else []
            found = self._one_definition(found)
            if len(found) != 1:
                return None
            cls, m = found[0]
            if m.api_id in self.r.stubs and (real := self.r.implementation(cls, m)) is not None:
                cls, m = real  # an abstract return type's member: the subclass that runs it
            return self._reached(m, cls, record=record, guessed=value.guessed, own=value.own)
        if value.kind == "unknown":  # a library value of no known class: a member only it has
            m = self.r.unique_member(name)
            return None if m is None else self._reached(m, None, record=record, guessed=True)
        return None

    def _one_definition(self, found: list[tuple[str, ApiEntry]]) -> list[tuple[str, ApiEntry]]:
        """Of a union's classes having a member, those whose member can run: one inherited
        definition all share is that one (``Queryable.rows_where`` of a Table and a View,
        reached as the first class's, so nothing is typed past a guessed receiver), and a
        member that only declares (``raise NotImplementedError``) loses to one that does
        something (a View's ``enable_fts`` against a Table's)."""
        if len(found) < 2:
            return found
        if len({m.api_id for _, m in found}) == 1:
            return [(found[0][1].parent or found[0][0], found[0][1])]
        real = [(cls, m) for cls, m in found if m.api_id not in self.r.stubs]
        return real or found

    def _reached(
        self,
        e: ApiEntry,
        receiver: str | None,
        *,
        record: bool,
        guessed: bool = False,
        own: frozenset[str] = frozenset(),
    ) -> Value | None:
        if record:
            self.use(e, guessed=guessed)
        if e.kind in ("property", "attribute"):
            return guessed_as(self.r.returns(e, receiver), guessed) or self._unknown(e, guessed)
        return Value("api", e.api_id, receiver, own=own, guessed=guessed)

    def subscript(self, value: Value | None, *, sliced: bool = False) -> Value | None:
        """What ``value[key]`` gives: what its class's ``__getitem__`` returns (``db["t"]`` →
        ``Table``), an element of a sequence of instances (``tables[0]``; ``tables[1:]`` is
        still the sequence), else nothing known."""
        if value is None:
            return None
        if value.kind == "items":
            return value if sliced else Value("instance", value.name, guessed=value.guessed)
        if value.kind in ("instance", "subclass"):
            out = self.r.produced(value.name, "__getitem__")
            return guessed_as(out, value.guessed)
        return None

    def decorate(self, value: Value | None) -> None:
        """``value`` decorates a function: an instance's documented ``__call__`` is used
        (``@hookimpl``, ``@hookimpl(tryfirst=True)`` with ``hookimpl = Marker(…)``)."""
        if value is not None and value.kind in ("instance", "subclass"):
            called = self.r.member(value.name, "__call__")
            if called is not None:
                self.use(called, guessed=value.guessed)

    def call(self, value: Value | None) -> Value | None:
        if value is not None and value.kind == "derived":  # User(…): an instance of the subclass
            return Value("subclass", value.name, own=value.own, guessed=value.guessed)
        if value is not None and value.kind in ("instance", "subclass"):  # a callable object
            return guessed_as(self.r.produced(value.name, "__call__"), value.guessed)
        if value is None or value.kind != "api":
            return None
        e = self.r.entry(value.name)
        if e is None:
            return None
        if e.kind == "class":
            return Value("instance", e.api_id, guessed=value.guessed)
        out = guessed_as(self.r.returns(e, value.receiver), value.guessed)
        if out is not None and value.own and out.kind == "instance" and out.name == value.receiver:
            # Self through the example's own subclass (``User.model_validate(…)``): still its
            # instance, whose own fields (``user.id``) are not the library's
            return Value("subclass", out.name, own=value.own, guessed=out.guessed)
        return out or self._unknown(e, value.guessed)

    def _unknown(self, e: ApiEntry, guessed: bool) -> Value | None:
        """A library value of no known class, whose members are guessed by their name
        (``app.config.from_envvar``: only ``Config`` has ``from_envvar``). Not when the API
        says what it gives, and that is no class of the library (``Any``, ``_T``,
        ``dict[str, Any]``): attrs' ``x = field()`` then ``@x.validator`` is no
        ``Attribute.validator``."""
        if e.returns is not None and (e.returns.type or "").strip():
            return None
        return Value("unknown", e.api_id, guessed=guessed) if self.unknowns else None

    def known_root(self, module: str) -> bool:
        return module.split(".")[0] in self.r.prefixes or self.r.entry(module) is not None
