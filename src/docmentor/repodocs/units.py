"""The code units repository documentation is written for, as frozen records.

Four granularities (the MemDocAgent paper's): **components** (functions, methods, classes),
**modules** (one ``.py``, ``.ts``/``.js``…, ``.go`` or ``.rs`` file), **packages** (a folder
with modules) and the **repository**.

Ids are strings that depend only on the repository's files (never on the machine, the folder
the repository was cloned into, or the order files are read):

- repository: ``.``
- a Python package (a folder with ``__init__.py``, or a folder inside one): its import name,
  ``pkg``, ``pkg.sub``. A plain folder that holds modules but is not importable as a package
  (``tests/`` without ``__init__.py``, ``scripts/``): its path with a trailing slash,
  ``tests/``, ``tools/gen/``. A folder without modules of its own (``src/``) is no unit; what
  it holds belongs to the nearest unit above it.
- module: its import name, the dotted path from the nearest folder above it that is not part
  of a package (``src/pkg/mod.py`` → ``pkg.mod``, ``tests/test_x.py`` → ``test_x``); a
  package's ``__init__.py`` is the module ``pkg.__init__`` (the package itself is ``pkg``).
  As Python imports them: ``pkg/mod.py`` beside ``pkg/mod/__init__.py`` is hidden by the
  package (not read, reported), and a folder without ``__init__.py`` beside a module of its
  name is no namespace package. A root that is itself a package keeps ids relative to it
  (see ``Repository``).
- component: its module's id, then the names of the classes it is in and its own:
  ``pkg.mod.Class.method``, ``pkg.mod.function``, ``pkg.__init__.function``. A function or
  class nested in a function is part of that function (no unit of its own: its code, calls
  and raises count as the enclosing function's); a class nested in a class is a component.
- The same top-level import name provided by two import roots (``tests/conftest.py`` and
  ``benchmarks/conftest.py``): every id under that name is prefixed by its import root's path
  and a colon, ``tests:conftest``, ``benchmarks:conftest.fixture`` (the root ``.`` for the
  repository's own folder). A name defined twice in one scope (a property's getter and
  setter, ``def`` in both branches of an ``if``) keeps its id the first time and gets ``#2``,
  ``#3`` … after it, in source order.

TypeScript/JavaScript, Go and Rust files (read through tree-sitter, ``treesitter_repo.py``):

- module: the file's path without its suffix, ``/`` → ``.``, other dots in a name → ``-``
  (``src/geo/shapes.ts`` → ``src.geo.shapes``, ``store/store.go`` → ``store.store``,
  ``src/shapes/mod.rs`` → ``src.shapes.mod``, ``x.d.ts`` → ``x-d``); two files that would
  share an id (``a.ts`` and ``a.js``, or a Python module's id) each get ``~`` and their suffix
  (``src.a~ts``). ``Module.name`` is the id (Go, TypeScript) or the crate path (Rust,
  ``crate::shapes::circle``).
- package: the folder, as a plain folder of Python modules (``src/geo/``); a Go package is its
  folder, and a Go import of it names that unit.
- component: its module's id, then its type's name and its own (``src.geo.shapes.Circle.area``).
  A Go method (``func (s *Store) Add``) and a Rust ``impl`` block's function are members of
  their type wherever the type is declared in the package / crate: ids, ``module`` and
  ``parent`` are the type's (``store.store.Store.Add``), ``path`` and the span the method's own
  file's. A method whose type is found nowhere stays in its file's module
  (``store.methods.Store.Add``). Functions and classes inside functions are part of them.
- A method's receiver is its first parameter, as Python's ``self``: TypeScript/JavaScript's
  implicit ``this`` (not for ``static`` methods), Go's receiver, Rust's ``self``; its calls on
  the receiver are written ``self.m`` (see each reader's docstring for calls and raises:
  ``throw new X`` in TypeScript/JavaScript; none in Go and Rust).

What is public (``is_public``): ``Component.public`` as the language reader recorded it, or,
when it is None, the name's convention — public unless it starts with ``_``. Python: a
module-level definition its module's literal ``__all__`` lists, or leaves out; else (no
``__all__``, members of classes) the name's convention. Go: a
name that starts with an upper-case letter is exported. Rust: an item declared ``pub`` (not
``pub(crate)``, ``pub(super)``, ``pub(in …)``); a trait's methods are public with their trait,
an ``impl Trait for Type`` block's with the trait implementation (they take no ``pub``).
TypeScript/JavaScript: a top-level definition the file exports (``export``, ``export default``,
``export { a as b }``, CommonJS ``module.exports = …``, ``module.exports.x`` / ``exports.x``);
a class's or an interface's member unless it is ``private``, ``protected`` or ``#private``.
A module's Public API and the evaluator's coverage count public components.

Spans are 1-based and inclusive and start at a definition's first decorator (TypeScript,
JavaScript, Go and Rust: at its doc comment or first attribute/decorator above it). A unit's
``content_hash`` is the sha256 of its source lines (a module: its whole text); a package's
and the repository's hash is the sha256 of their children's ids and hashes, so it changes
when any code under them changes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

ComponentKind = Literal["function", "method", "class"]
UnitKind = Literal["function", "method", "class", "module", "package", "repository"]
MethodKind = Literal["instance", "static", "class", "property"]
ParameterKind = Literal[
    "positional_only", "positional_or_keyword", "var_positional", "keyword_only", "var_keyword"
]

REPOSITORY_ID = "."


def sha256_text(text: str) -> str:
    """The hex sha256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def children_hash(children: list[tuple[str, str]]) -> str:
    """A package's or the repository's hash: of its children's (id, hash), sorted by id."""
    return sha256_text("\n".join(f"{unit_id}\t{digest}" for unit_id, digest in sorted(children)))


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter as written: ``annotation`` and ``default`` are source text (or None)."""

    name: str
    kind: ParameterKind
    annotation: str | None = None
    default: str | None = None


@dataclass(frozen=True, slots=True)
class ImportRef:
    """One import statement's name: ``import a.b as c`` is ``target="a.b", name=None,
    alias="c"``; ``from ..x import y as z`` in ``pkg.sub.mod`` is ``target="pkg.x",
    name="y", alias="z", level=2``. ``target`` is absolute (relative imports resolved against
    the module's import name; one that climbs above it keeps its dots, ``..x``)."""

    target: str
    name: str | None
    alias: str | None
    level: int
    line: int

    @property
    def bound(self) -> str:
        """The name the import binds in its scope (``import a.b`` binds ``a``)."""
        if self.alias:
            return self.alias
        if self.name is not None:
            return self.name
        return self.target.split(".")[0]


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call as written, as a dotted name: ``helper``, ``mod.func``, ``Foo``; a method's
    calls on its first parameter are written ``self.name`` (``cls.name``'s too), calls through
    ``super()`` ``super().name``. Calls on other expressions are not recorded."""

    name: str
    line: int


@dataclass(frozen=True, slots=True)
class Component:
    """A function, a method (a function defined directly in a class body) or a class.

    Functions and methods: ``signature`` is ``def name(params) -> return`` (``async def`` for
    coroutines), ``parameters`` and ``returns`` its parts, ``raises`` the exception names its
    ``raise`` statements name (as written, ``ValueError``, ``errors.UsageError``; a bare
    re-raise names none). Classes: ``signature`` is ``class Name(bases)``, ``parameters`` and
    ``init_signature`` those of its own ``__init__`` without ``self`` (for a ``@dataclass``,
    the fields), ``members`` the ids of its methods and nested classes, ``attributes`` the names
    assigned in its body or on ``self`` in its methods, in order of first appearance.
    """

    id: str
    kind: ComponentKind
    name: str
    qualname: str  # within its module: Class.method
    module: str  # the id of its module
    parent: str  # the id of its module or class
    path: str  # relative to the repository root, with "/"
    line_start: int
    line_end: int
    signature: str
    docstring: str | None
    content_hash: str
    decorators: tuple[str, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    returns: str | None = None
    is_async: bool = False
    raises: tuple[str, ...] = ()
    calls: tuple[CallSite, ...] = ()
    imports: tuple[ImportRef, ...] = ()  # imports inside its body (lazy imports)
    bases: tuple[str, ...] = ()
    init_signature: str | None = None
    members: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    method_kind: MethodKind | None = None
    public: bool | None = None  # the language's rule, set by its reader; None: the name's
    #: a Python function's ``@overload`` stubs before it, their signatures: the stubs are no
    #: units of their own (an implementation's callers and its documentation are one unit's)
    overloads: tuple[str, ...] = ()
    #: a function's local names whose type its code states, name → what says it: an
    #: annotation's text (``x: Client``), or ``call:`` and the callee whose result it holds
    #: (``x = Client()``, ``with Client() as x``, ``x = self._transport_for(url)``); a name bound
    #: two different ways is left out. The graph follows the calls made on them.
    local_types: tuple[tuple[str, str], ...] = ()


def is_public(component: Component) -> bool:
    """Whether the component is public API: ``public`` as its reader recorded it, else (None,
    Python) its name does not start with ``_``."""
    if component.public is not None:
        return component.public
    return not component.name.startswith("_")


@dataclass(frozen=True, slots=True)
class Module:
    """One ``.py`` file. ``imports`` are every import in it (in functions too, in source
    order); ``aliases`` the module-level ``Name = other.name`` assignments; ``calls`` the
    calls its module-level code makes (outside any definition); ``components`` the ids of its
    top-level functions and classes."""

    id: str
    name: str  # the import name, without a root qualifier
    path: str
    package: str  # the id of its package, or of the repository
    line_start: int
    line_end: int
    docstring: str | None
    content_hash: str
    imports: tuple[ImportRef, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    calls: tuple[CallSite, ...] = ()
    components: tuple[str, ...] = ()
    kind: Literal["module"] = "module"
    #: the names its literal ``__all__`` lists (Python), its own and those it re-exports
    exports: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Package:
    """A folder with modules. ``python_package``: importable by its dotted id (else its id is
    its path, ``tests/``). ``children``: the ids of its modules and sub-packages."""

    id: str
    name: str
    path: str
    parent: str
    python_package: bool
    content_hash: str
    children: tuple[str, ...] = ()
    kind: Literal["package"] = "package"


@dataclass(frozen=True, slots=True)
class Repository:
    """The repository: ``name`` is its folder's name (for display; the id is always ``.``).
    ``package_name``: the folder's name when the root is itself a package (it has
    ``__init__.py``: ``site-packages/httpx``); ids stay relative to the root (``_api``, not
    ``httpx._api``), and absolute imports through the name (``from httpx._api import …``)
    resolve inside the repository."""

    name: str
    content_hash: str
    children: tuple[str, ...] = ()
    package_name: str | None = None
    id: str = REPOSITORY_ID
    kind: Literal["repository"] = "repository"
    path: str = "."


@dataclass(frozen=True, slots=True)
class Problem:
    """A file that could not be read as it is: ``skipped`` when nothing of it was used."""

    path: str
    error: str
    skipped: bool = True


Unit = Component | Module | Package | Repository


@dataclass(frozen=True, slots=True)
class RepoUnits:
    """Everything read from one repository; each tuple sorted by id."""

    repository: Repository
    packages: tuple[Package, ...]
    modules: tuple[Module, ...]
    components: tuple[Component, ...]
    problems: tuple[Problem, ...]

    def units(self) -> dict[str, Unit]:
        """Every unit by id."""
        out: dict[str, Unit] = {self.repository.id: self.repository}
        for group in (self.packages, self.modules, self.components):
            out.update((u.id, u) for u in group)
        return out
