"""The real API surface of an installed Python package.

Static analysis with griffe: signatures, annotations as written, docstrings parsed
(Google, then NumPy, then Sphinx). Public API = what users can import: a module's
``__all__`` when it has one, else its non-underscore names; re-exports are followed
to the object's definition. Every object is named where it is DEFINED
(``api_id``: defining module + ``__qualname__``), every public import path is an alias:
``httpx.Client`` is ``httpx._client.Client``; the inherited ``httpx.Client.build_request``
is ``httpx._client.BaseClient.build_request``.

``python=`` reads another environment: its ``sys.path`` and the package's version come
from a subprocess of that interpreter, griffe (static, nothing imported) reads its
site-packages from here. Compiled modules without stubs are inspected at run time:
by griffe in this process for the current environment, by a small stdlib dumper run
with the other interpreter otherwise (:mod:`docmentor.library.surface.api_python_env`).
"""

from __future__ import annotations

import ast
import logging
import re
import sys
import textwrap
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple

import griffe

from docmentor.errors import NotFoundError, SourceUnavailableError
from docmentor.library.models import ApiEntry, ApiParameter, ApiReturn
from docmentor.library.surface import deprecation
from docmentor.library.surface.api_python_env import (
    dist_info,
    foreign_root,
    inspect_foreign_compiled,
    interpreter_info,
)
from docmentor.library.surface.docstrings import PARAGRAPHS, is_name_list
from docmentor.library.surface.docstrings import summary as _summary

logger = logging.getLogger(__name__)

__all__ = ["ApiSurface", "load_api"]

_KINDS = {
    "positional-only": "positional-only",
    "positional or keyword": "positional or keyword",
    "variadic positional": "var-positional",
    "keyword-only": "keyword-only",
    "variadic keyword": "var-keyword",
}
_WRAPPERS = {"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"}
# return types that give instances of their first argument to `with … as` or `for`
_CONTAINERS = {
    "Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator",
    "ContextManager", "AbstractContextManager", "AsyncContextManager", "AbstractAsyncContextManager",
    "Sequence", "MutableSequence", "Collection", "list", "List", "set", "Set", "frozenset", "FrozenSet",
}  # fmt: skip
_SELF_RE = re.compile(r"(?<![\w.])(?:typing(?:_extensions)?\.)?Self\b")
_TEST_MODULES = {"conftest", "tests", "test"}  # shipped by some wheels, never meant to be imported
# ... except a plain module named `test` (werkzeug.test: the test client, EnvironBuilder)


@dataclass
class ApiSurface:
    """The public API of one library, as installed in one environment."""

    library: str
    version: str | None
    entries: list[ApiEntry]
    by_id: dict[str, ApiEntry] = field(init=False, repr=False)
    by_alias: dict[str, ApiEntry] = field(init=False, repr=False)
    #: the distribution's one-line summary (its metadata's ``Summary``), when it has one
    summary: str = ""
    #: the distribution's name (``attrs`` for ``attr``, ``PyYAML`` for ``yaml``), when known
    distribution: str = ""
    #: every ``module.name`` the walked modules define or import, public API or not (a
    #: module-level value without a docstring, another package's class): what exists
    present: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.by_id = {entry.api_id: entry for entry in self.entries}
        self.by_alias = {}
        for entry in self.entries:
            for alias in entry.aliases:
                self.by_alias.setdefault(alias, entry)

    def resolve(self, name: str) -> ApiEntry | None:
        """The entry for an api_id or a public alias (``httpx.Client.get``), or None.

        A member reached through its class's definition path also resolves
        (``httpx._client.Client.build_request`` → ``httpx._client.BaseClient.build_request``).
        """
        entry = self.by_id.get(name) or self.by_alias.get(name)
        if entry is None and "." in name:
            owner, member = name.rsplit(".", 1)
            entry = self.member(owner, member)
        return entry

    def member(self, owner: str, name: str) -> ApiEntry | None:
        """Member ``name`` of the class ``owner`` (api_id or alias), inherited members included."""
        cls = self.by_id.get(owner) or self.by_alias.get(owner)
        if cls is None or cls.kind != "class":
            return None
        for path in (cls.api_id, *cls.aliases):
            found = self.by_id.get(f"{path}.{name}") or self.by_alias.get(f"{path}.{name}")
            if found is not None:
                return found
        return None

    def return_class(self, name: str) -> str | None:
        """api_id of the public class that calling (or reading) ``name`` gives, when known.

        A class gives an instance of itself; a function, method or property gives the class
        of its return annotation (``Optional[X]``, ``X | None`` and string annotations
        unwrapped). ``Self`` is the class the member was reached through:
        ``return_class("pkg.Sub.clone")`` is ``Sub`` even when ``clone`` is defined on ``Base``.
        """
        entry = self.resolve(name)
        if entry is None:
            return None
        if entry.kind == "class":
            return entry.api_id
        if entry.returns is None or entry.returns.class_id is None:
            return None
        if entry.returns.type and _SELF_RE.search(entry.returns.type) and "." in name:
            owner = self.resolve(name.rsplit(".", 1)[0])
            if owner is not None and owner.kind == "class":
                return owner.api_id
        return entry.returns.class_id


def load_api(
    package: str,
    *,
    python: str | None = None,
    search_paths: list[Path] | None = None,
    documented: Sequence[str] = (),
) -> ApiSurface:
    """Introspect ``package`` and return its public API surface.

    Args:
        package: The import name (``httpx``, ``lancedb``).
        python: Interpreter of the environment to read (a venv's ``bin/python``);
            the current environment when None.
        search_paths: Where to look for the package instead of (or, with ``python``,
            before) the environment's ``sys.path``.
        documented: Dotted paths the docs document (``.. autofunction::
            structlog.dev.set_exc_info``): public too when they name an object of the
            package by a path without private parts, even one its module's ``__all__``
            leaves out.

    Raises:
        NotFoundError: The package is not installed there.
        UsageError: ``python`` is not a working interpreter.
    """
    extra = [str(p) for p in search_paths or []]
    paths = list(extra)
    if python is not None:
        info = interpreter_info(python, package)
        paths += [p for p in info["sys_path"] if p not in paths]
    else:
        info = dist_info(package, paths or [p for p in sys.path if p])
    where = f"the environment of {python}" if python else "the current environment"
    installed = [p for p in info.get("packages") or [] if p not in _TEST_MODULES]
    name = _import_name(package, installed)
    # the distribution's other packages (attrs re-exports attr's classes): loaded alongside,
    # so that what the package re-exports from them resolves and counts as its own
    siblings = [p for p in installed if p != name.split(".")[0] and not p.startswith("_")]
    try:
        loader, root = _load(name, siblings, paths, python)
    except ImportError as error:  # ModuleNotFoundError, or griffe's failed dynamic import
        loader = _loader(paths, python)
        root = foreign_root(python, name, loader, extra) if python else None
        if root is None:
            public = [p for p in installed if not p.startswith("_")]
            raise NotFoundError(
                f"Python package {package!r} is not installed in {where}",
                hint=(
                    f"its distribution installs {', '.join(public)}: pass one of them as the library"
                    if len(public) > 1 and name == package
                    else "pip install it, or pass --python with the interpreter of the environment that has it"
                ),
            ) from error
    except griffe.LoadingError as error:
        raise SourceUnavailableError(f"could not analyse {package!r}: {error}") from error
    if python is not None:
        inspect_foreign_compiled(python, root, loader, extra)
    version: str | None = info.get("version")
    if version is None:
        version = _static_version(root)
    builder = _Builder(root, loader.modules_collection, siblings)
    try:
        builder.build()
        builder.add_documented(documented)
        builder.note_present(loader.modules_collection, siblings)
        entries = builder.finish()
        deprecation.inherit(
            entries, lambda api_id: api_id in builder.methods and deprecation.is_stub(builder.methods[api_id])
        )
    finally:
        deprecation.clear_cache()
    summary = " ".join(str(info.get("summary") or "").split())
    return ApiSurface(
        library=name,
        version=version,
        entries=entries,
        present=frozenset(builder.present),
        summary=summary,
        distribution=str(info.get("name") or ""),
    )


MAX_ALIAS_RETRIES = 5  # packages loaded to resolve what a stub or re-export points at


def _import_name(package: str, installed: list[str]) -> str:
    """The name to import: ``package`` itself, or for a distribution name (``PyYAML``,
    ``beautifulsoup4``) the one public package it installs (``yaml``, ``bs4``)."""
    if not installed or package.split(".")[0] in installed:
        return package
    public = [p for p in installed if not p.startswith("_")]
    return public[0] if len(public) == 1 else package


def _loader(paths: list[str], python: str | None) -> griffe.GriffeLoader:
    return griffe.GriffeLoader(
        search_paths=paths or None,
        docstring_parser=None,
        store_source=False,
        allow_inspection=python is None,  # in-process import only of our own environment
    )


def _load(
    name: str, siblings: list[str], paths: list[str], python: str | None
) -> tuple[griffe.GriffeLoader, Any]:
    """A loader with ``siblings`` loaded (when they load), then ``name``.

    griffe resolves some re-exports while it loads, merging a package's ``.pyi`` stubs with
    its overloads: one that points into a package not loaded yet fails the whole load. That
    package is then loaded first and ``name`` again, with a new loader (up to
    MAX_ALIAS_RETRIES packages).

    Raises:
        ImportError: ``name`` is not found.
        SourceUnavailableError: a re-export still cannot be resolved.
    """
    first = list(siblings)
    while True:
        loader = _loader(paths, python)
        for other in first:
            try:
                loader.load(other)
            except (
                ImportError,
                griffe.LoadingError,
                griffe.AliasResolutionError,
                griffe.CyclicAliasError,
            ) as error:
                logger.debug("could not load %s beside %s: %s", other, name, error)
        try:
            root = loader.load(name)
        except (griffe.AliasResolutionError, griffe.CyclicAliasError) as error:
            alias = getattr(error, "alias", None)
            top = str(getattr(alias, "target_path", "")).split(".")[0]
            if (
                not top
                or top in first
                or top == name.split(".")[0]
                or len(first) >= len(siblings) + MAX_ALIAS_RETRIES
            ):
                raise SourceUnavailableError(f"could not analyse {name!r}: {error}") from error
            first.append(top)
            continue
        _load_folders_without_init(root, loader)
        return loader, root


def _modules(mod: Any) -> Iterator[Any]:
    """``mod`` and every module below it (not through aliases)."""
    yield mod
    for member in list(mod.members.values()):
        if not member.is_alias and member.is_module:
            yield from _modules(member)


def _load_folders_without_init(root: Any, loader: griffe.GriffeLoader) -> None:
    """Read the folders without ``__init__.py`` inside the package that its modules import
    from (``flask/sansio``: ``from .sansio.app import App``, the base of ``Flask``).

    griffe leaves such folders out (they are often scripts), so the classes there were
    unknown: a subclass's inherited members (``Flask.route``, ``Flask.errorhandler``) went
    missing. Python imports them as implicit namespace packages; only those the package's
    own imports name are read, each module statically, as griffe reads the others.
    """
    targets = {
        m.target_path for mod in _modules(root) for m in mod.members.values() if m.is_alias and m.target_path
    }
    for mod in list(_modules(root)):
        try:
            path = mod.filepath
        except griffe.BuiltinModuleError:  # compiled, inspected at run time: no folder to read
            continue
        if not isinstance(path, Path) or path.name not in ("__init__.py", "__init__.pyi"):
            continue
        folder = path.parent
        for sub in sorted(folder.iterdir()):
            name = sub.name
            if (
                not sub.is_dir()
                or not name.isidentifier()
                or name in mod.members
                or (sub / "__init__.py").exists()
            ):
                continue
            if not any(t.startswith(f"{mod.path}.{name}.") for t in targets):
                continue
            package = griffe.Module(
                name,
                filepath=[sub],
                parent=mod,
                lines_collection=loader.lines_collection,
                modules_collection=loader.modules_collection,
            )
            mod.set_member(name, package)
            for file in sorted(sub.glob("*.py")):
                if not file.stem.isidentifier():
                    continue
                try:
                    code = file.read_text(encoding="utf-8-sig")
                    module = griffe.visit(
                        file.stem,
                        file,
                        code,
                        parent=package,
                        lines_collection=loader.lines_collection,
                        modules_collection=loader.modules_collection,
                    )
                except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as error:
                    logger.debug("could not read %s: %s", file, error)
                    continue
                package.set_member(file.stem, module)


# --- the walk -------------------------------------------------------------------------------


class _Builder:
    def __init__(self, root: Any, collection: Any, siblings: Sequence[str] = ()) -> None:
        self.root = root
        self.top = root.path.split(".")[0]
        self.tops = {self.top, *siblings}  # the distribution's packages: APIs defined there count
        self.collection = collection
        self.entries: dict[str, ApiEntry] = {}
        self.aliases: dict[str, set[str]] = {}
        self.annotations: dict[str, tuple[Any, Any]] = {}  # api_id -> (return annotation, scope)
        self.class_paths: dict[str, str] = {}  # any path seen for a public class -> its api_id
        self.seen: set[tuple[str, str]] = set()
        self.methods: dict[str, Any] = {}  # api_id → griffe object, for deprecation.inherit
        self.walked: set[str] = set()  # modules whose members were walked
        self.module_paths: dict[str, list[str]] = {}  # module → its public paths, walked one first
        self.todo: deque[tuple[Any, str]] = deque()  # (module, public path) to walk
        self.open_classes: set[str] = set()  # classes being walked (nested classes, cycles)
        self.present: set[str] = set()  # module.name for every name a walked module has

    def build(self) -> None:
        """Walk the modules breadth first: each one once, by its shortest public path.

        A module re-exported by another (``from pkg import sub``) is one more path to the
        module, not another walk of its members: packages whose modules import each other
        (SQLAlchemy) would otherwise give every member one alias per path, without end.
        """
        self.todo.append((self.root, self.root.path))
        while self.todo:
            self.module(*self.todo.popleft())

    def add_documented(self, paths: Sequence[str]) -> None:
        """The objects the docs document by these paths that the walk did not find public
        (a name its module's ``__all__`` leaves out): added under that path, a class with
        its members, a module walked. A private part (``pkg._impl.x``) or an object outside
        the package is no API."""
        known = {p for paths_ in self.aliases.values() for p in paths_} | set(self.entries)
        for path in dict.fromkeys(paths):
            parts = path.split(".")
            if path in known or parts[0] != self.top or any(p.startswith("_") for p in parts):
                continue
            try:
                target = _target(self.collection[path])
            except Exception:  # KeyError, or griffe failing on a path it cannot follow
                continue
            if target is None or not self._inside(target) or target.path in self.entries:
                continue
            if target.is_module:
                self.todo.append((target, path))
            elif target.is_class:
                self.cls(target, path)
            elif target.is_function or target.is_attribute:
                self._add(target, path)
                self._note_returns(target)
        while self.todo:
            self.module(*self.todo.popleft())

    def note_present(self, collection: Any, packages: Sequence[str]) -> None:
        """Every name the distribution's other packages' modules have (``attr.s``, ``attr.ib``
        when reading ``attrs``): they exist, API of this package or not."""
        for top in packages:
            try:
                root = collection[top]
            except (KeyError, ValueError):
                continue
            if root.is_alias or not root.is_module:
                continue
            for mod in _modules(root):
                self.present.add(mod.path)
                self.present.update(f"{mod.path}.{n}" for n in mod.members)

    def _other_paths(self) -> None:
        """A module's second paths, given to what was found under its first: with
        ``pkg.api.mod`` re-exporting ``pkg.mod``, ``pkg.mod.func`` is also
        ``pkg.api.mod.func`` (in aliases and in ``present``). One step: the new paths are
        not rewritten again, so modules importing each other stay finite."""
        redirect = {paths[0]: paths[1:] for paths in self.module_paths.values() if len(paths) > 1}
        if not redirect:
            return

        def others(path: str) -> list[str]:
            parts = path.split(".")
            out = []
            for k in range(1, len(parts)):
                for other in redirect.get(".".join(parts[:k]), ()):
                    out.append(".".join([other, *parts[k:]]))
            return out

        for api_id, paths in self.aliases.items():
            if self.entries[api_id].kind != "module":  # a module has each of its own paths already
                paths.update([o for p in list(paths) for o in others(p)])
        self.present.update([o for p in list(self.present) for o in others(p)])

    def finish(self) -> list[ApiEntry]:
        self._other_paths()
        for api_id, entry in self.entries.items():
            entry.aliases = sorted(self.aliases[api_id] - {api_id}, key=lambda a: (a.count("."), len(a), a))
        for api_id, (annotation, scope) in self.annotations.items():
            entry = self.entries[api_id]
            if entry.returns is not None:
                entry.returns.class_id = self._class_of(annotation, scope, entry.parent)
                if entry.returns.class_id is None:
                    entry.returns.item_class_id = self._item_class_of(annotation, scope, entry.parent)
        return list(self.entries.values())

    def _inside(self, obj: Any) -> bool:
        return bool(obj.path.split(".")[0] in self.tops)

    def _add(self, obj: Any, public: str) -> bool:
        """Record ``public`` as a path to ``obj``; True the first time this pair is seen."""
        key = (obj.path, public)
        if key in self.seen:
            return False
        self.seen.add(key)
        if obj.path not in self.entries:
            self.entries[obj.path] = _entry(obj)
            self.aliases[obj.path] = set()
            if obj.is_function and obj.parent is not None and obj.parent.is_class:
                self.methods[obj.path] = obj
        self.aliases[obj.path].add(public)
        return True

    def module(self, mod: Any, public: str) -> None:
        if not self._add(mod, public):
            return
        if mod.path in self.walked:  # one more path to a module walked by a shorter one
            self.module_paths[mod.path].append(public)
            return
        self.walked.add(mod.path)
        self.module_paths[mod.path] = [public]
        self.present.update(f"{public}.{n}" for n in mod.members)
        exports = _exports(mod)
        names = list(exports) if exports is not None else [n for n in mod.members if not n.startswith("_")]
        # Submodules are importable whatever __all__ says.
        names += [n for n, m in mod.members.items() if not m.is_alias and m.is_module and n not in names]
        for name in names:
            member = mod.members.get(name)
            if member is None or name.startswith("_") or (name.startswith("test_") and _holds_tests(member)):
                continue
            if name in _TEST_MODULES and not (name == "test" and _plain_module(member)):
                continue
            # Without __all__, imported names are part of the API only in __init__ modules,
            # or where a star import brings them (`attrs/validators.py` is `from
            # attr.validators import *`: a module made to re-export)
            wildcard = getattr(member, "wildcard_imported", False)
            if member.is_alias and exports is None and not _is_init(mod) and not wildcard:
                continue
            target = _target(member)
            if target is None or not self._inside(target):
                continue
            path = f"{public}.{name}"
            if target.is_module:
                self.todo.append((target, path))
            elif target.is_class:
                self.cls(target, path)
            # a value is public when __all__ lists it, it is a constant or documented, or a
            # package's __init__ imports it (`from .globals import request as request`)
            elif (
                target.is_function
                or exports is not None
                or name.isupper()
                or target.docstring
                or member.is_alias
            ):
                self._add(target, path)
                self._note_returns(target)

    def cls(self, cls: Any, public: str) -> None:
        self.class_paths[cls.path] = self.class_paths[public] = cls.path
        if not self._add(cls, public) or cls.path in self.open_classes:
            return  # seen by this path, or a class inside itself (Outer.Inner.Outer…)
        members = _class_members(cls)
        self.open_classes.add(cls.path)
        try:
            for name, member in members.items():
                if name.startswith("_"):
                    continue
                target = _target(member)
                if target is None or not self._inside(target):
                    continue
                if target.is_class:
                    self.cls(target, f"{public}.{name}")
                elif target.is_function or target.is_attribute:
                    self._add(target, f"{public}.{name}")
                    self._note_returns(target)
        finally:
            self.open_classes.discard(cls.path)

    def _note_returns(self, obj: Any) -> None:
        entry = self.entries[obj.path]
        if entry.returns is not None and obj.path not in self.annotations:
            # another name for a function (`getLogger = get_logger`) returns what it returns
            source = (
                _aliased_function(obj) if obj.is_attribute and entry.kind in ("function", "method") else obj
            )
            source = obj if source is None else source
            returned = source.returns if source.is_function else source.annotation
            self.annotations[obj.path] = (returned, source.parent)

    def _class_of(self, annotation: Any, scope: Any, parent: str | None) -> str | None:
        """api_id of the public class an annotation names, unwrapping Optional/Union/None."""
        annotation = _core(annotation)
        if annotation is None:
            return None
        if isinstance(annotation, str):
            text = annotation.strip().strip("'\"")
            if _SELF_RE.fullmatch(text):
                return parent
            candidates = [text, f"{scope.path}.{text}" if scope is not None else text]
            if scope is not None and scope.is_class and scope.parent is not None:
                candidates.append(f"{scope.parent.path}.{text}")
            return next((c for c in map(self._class_id, candidates) if c), None)
        if isinstance(annotation, griffe.ExprName | griffe.ExprAttribute):
            path = annotation.canonical_path
            if _SELF_RE.fullmatch(path) or (isinstance(annotation, griffe.ExprName) and path == "Self"):
                return parent
            return self._class_id(path)
        return None

    def _item_class_of(self, annotation: Any, scope: Any, parent: str | None) -> str | None:
        """api_id of the public class whose instances an annotation's iterator, generator,
        context manager or sequence gives (``Iterator[Response]`` → ``Response``), unwrapping
        Optional/Union/None around it."""
        annotation = _core(annotation)
        if isinstance(annotation, griffe.ExprSubscript):
            head, elements = _subscript(annotation)
            if head in _CONTAINERS:
                return self._class_of(elements[0], scope, parent)
        return None

    def _class_id(self, path: str) -> str | None:
        if path in self.class_paths:
            return self.class_paths[path]
        try:
            obj = self.collection[path]
            target = obj.final_target if obj.is_alias else obj
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        return self.class_paths.get(target.path)


def _class_members(cls: Any) -> dict[str, Any]:
    """A class's members with the inherited ones; its own when the bases cannot be ordered
    (c3 fails, cycles)."""
    try:
        return dict(cls.all_members)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError, ValueError):
        return dict(cls.members)


def _holds_tests(member: Any) -> bool:
    """A ``test_*`` name that is a test file (``test_*`` functions, or classes with ``test_*``
    methods), or no module at all; ``aiohttp.test_utils`` (TestClient, TestServer) is API."""
    if member.is_alias or not member.is_module:
        return True
    for name, obj in member.members.items():
        if obj.is_alias:
            continue
        if name.startswith("test") and obj.is_function:
            return True
        if obj.is_class and any(n.startswith("test") for n in obj.members):
            return True
    return False


def _plain_module(member: Any) -> bool:
    """A module that is one file, not a package (of tests)."""
    if member.is_alias or not member.is_module:
        return False
    try:
        return not member.is_package
    except griffe.BuiltinModuleError:
        return True


def _is_init(mod: Any) -> bool:
    try:
        return bool(mod.is_init_module)
    except griffe.BuiltinModuleError:  # inspected at run time: no file
        return False


def _subscript(expr: Any) -> tuple[str, list[Any]]:
    """``typing.Optional[X]`` → ``("Optional", [X])``; ``dict[str, int]`` → ``("dict", [str, int])``."""
    inner = expr.slice
    elements = list(inner.elements) if isinstance(inner, griffe.ExprTuple) else [inner]
    return str(expr.left).rsplit(".", 1)[-1], elements


def _core(annotation: Any) -> Any:
    """The annotation inside Optional/Annotated/Final/… and a union with None (``X | None``,
    ``Union[X, None]``); None for a union of several types."""
    while True:
        if isinstance(annotation, griffe.ExprBinOp) and annotation.operator == "|":
            rest = [e for e in _union_members(annotation) if str(e) != "None"]
        elif isinstance(annotation, griffe.ExprSubscript):
            head, elements = _subscript(annotation)
            if head in _WRAPPERS:
                annotation = elements[0]
                continue
            if head != "Union":
                return annotation
            rest = [e for e in elements if str(e) != "None"]
        else:
            return annotation
        if len(rest) != 1:
            return None
        annotation = rest[0]


def _union_members(expr: Any) -> list[Any]:
    if isinstance(expr, griffe.ExprBinOp) and expr.operator == "|":
        return _union_members(expr.left) + _union_members(expr.right)
    return [expr]


def _exports(mod: Any) -> list[str] | None:
    exports = mod.exports
    if exports is None:
        return None
    return [e if isinstance(e, str) else getattr(e, "name", str(e)) for e in exports]


def _target(member: Any) -> Any:
    """The object an alias finally points at; None when it cannot be resolved (external)."""
    if not member.is_alias:
        return member
    try:
        return member.final_target
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _static_version(root: Any) -> str | None:
    """``__version__ = "1.2.3"`` in the package (or its ``__version__`` module), when literal."""
    attr = _target(root.members["__version__"]) if "__version__" in root.members else None
    if attr is not None and attr.is_module:
        attr = attr.members.get("__version__")
    value = getattr(attr, "value", None) if attr is not None and attr.is_attribute else None
    if isinstance(value, str) and len(value) > 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return None


# --- one entry --------------------------------------------------------------------------------


def _entry(obj: Any) -> ApiEntry:
    entry = _callable_value(obj) or _plain_entry(obj)
    entry.deprecated = deprecation.reason(
        obj,
        obj.docstring.value if obj.docstring else "",  # its own: an inherited note is its base's
        (p.name for p in entry.parameters),
        takes_kwargs=any(p.kind == "var-keyword" for p in entry.parameters),
    )
    return entry


def _inherited_docstring(obj: Any) -> Any:
    """A class's docstring when neither it nor its ``__init__`` has one: that of its nearest
    base of the same name in the package, the same thing at another layer (Flask's
    ``flask.Blueprint`` subclasses ``flask.sansio.blueprints.Blueprint``, where the text and
    the parameter descriptions are). A base of another name describes the base (httpx's
    ``DigestAuth`` would read "Base class for all authentication schemes"); so would an
    override's base method (lancedb's query builders: each override counted the one text
    again, find_api MRR 0.788 → 0.738). None when there is no such base."""
    try:
        return next((b.docstring for b in obj.mro() if b.name == obj.name and b.docstring), None)
    except Exception:  # bases griffe cannot order or resolve (outside the package, cyclic)
        return None


_BOUND_KINDS = ("positional-only", "positional or keyword")


def _aliased_function(obj: Any) -> Any:
    """The package's function (or, in a class body, the same class's method) an unannotated
    attribute is another name for; None for anything else (see :func:`_callable_value`)."""
    found = _aliased(obj)
    return None if found is None else found[0]


def _aliased(obj: Any) -> tuple[Any, dict[str, str]] | None:
    """:func:`_aliased_function`, and the keyword defaults a ``functools.partial`` binds:
    ``frozen = partial(define, frozen=True, on_setattr=None)`` is ``define`` with
    ``frozen`` and ``on_setattr`` defaulting so (attrs)."""
    if not obj.is_attribute or obj.parent is None or "property" in obj.labels:
        return None
    if getattr(obj, "annotation", None) is not None:
        return None  # `handler: Callable = get_logger`: a typed setting that holds a function
    value = getattr(obj, "value", None)
    bound: dict[str, str] = {}
    if isinstance(value, griffe.ExprCall) and _named(value.function) in ("partial", "functools.partial"):
        if obj.parent.is_class:
            return None  # a partial in a class body does not bind self: no method (partialmethod)
        args = list(value.arguments)
        if not args or not isinstance(args[0], griffe.ExprName | griffe.ExprAttribute):
            return None
        for extra in args[1:]:
            if not isinstance(extra, griffe.ExprKeyword):
                return None  # a bound positional argument: the signature is not simply the function's
            bound[extra.name] = str(extra.value)
        value = args[0]
    if not isinstance(value, griffe.ExprName | griffe.ExprAttribute):
        return None
    function = _resolved(obj, value)
    if function is None or function.path.split(".")[0] != obj.path.split(".")[0]:
        return None  # only the package's own: `dumps = json.dumps` is no API of it
    if not function.is_function or "property" in function.labels:
        return None
    takes = {p.name for p in function.parameters if p.kind is None or p.kind.value not in _VARIADIC}
    if any(name not in takes for name in bound):
        return None  # a keyword the function does not name (it has **kwargs): not shown
    owner = function.parent if function.parent is not None and function.parent.is_class else None
    if obj.parent.is_class:
        # `info = msg` in a class body: a method under another name (structlog's loggers);
        # `handler = some_function` there is a function stored on the class: left as data
        return (function, bound) if owner is not None and owner.path == obj.parent.path else None
    return (function, bound) if owner is None else None


_VARIADIC = ("variadic positional", "variadic keyword")


def _partially_applied(params: list[Any], bound: dict[str, str]) -> list[Any]:
    """The parameters of ``partial(f, **bound)``, as ``inspect.signature`` gives them: a
    bound one takes its new default and becomes keyword-only, and so does every positional
    one after it (``partial(f, b=2)`` of ``f(a, b, c)`` is ``(a, *, b=2, c)``)."""
    keyword_only = griffe.ParameterKind.keyword_only
    out: list[Any] = []
    after = False
    for p in params:
        kind = p.kind
        if p.name in bound or (after and kind is not None and kind.value == "positional or keyword"):
            after = True
            kind = keyword_only
        default = bound.get(p.name, p.default)
        out.append(griffe.Parameter(p.name, annotation=p.annotation, kind=kind, default=default))
    # keyword-only ones go after *args (Python's order), before **kwargs
    rank = {"positional-only": 0, "positional or keyword": 1, "variadic positional": 2, "keyword-only": 3}
    return sorted(out, key=lambda p: rank.get(getattr(p.kind, "value", ""), 4))


def _named(expr: Any) -> str:
    """The name an expression is written with (``partial``, ``functools.partial``)."""
    return str(expr) if isinstance(expr, griffe.ExprName | griffe.ExprAttribute) else ""


def _resolved(obj: Any, value: Any) -> Any:
    """What a name in ``obj``'s value denotes: by its canonical path, else (a value griffe
    read from a stub, where the path stays bare: attrs' ``mutable = define``) by the name
    in ``obj``'s own module or class."""
    try:
        return _target(obj.modules_collection[value.canonical_path])
    except Exception:  # a name griffe cannot resolve, or one outside what it loaded
        pass
    if isinstance(value, griffe.ExprName):
        member = obj.parent.members.get(value.name)
        if member is not None and member is not obj:
            try:
                return _target(member)
            except Exception:
                return None
    return None


def _callable_value(obj: Any) -> ApiEntry | None:
    """A module attribute that is another name for one of the package's functions
    (structlog's ``getLogger = get_logger``), or a class attribute that is another name for
    one of its methods (``info = msg``): a function or method named as the attribute, with
    that one's signature, and the attribute's docstring or else the function's. None for
    anything else.

    An instance of a class with ``__call__`` stays data: users pass it far more often than
    they call it (click's ``type=click.INT``, structlog's ``processors=[format_exc_info]``);
    as functions, click's six param types cost its task set a first place."""
    found = _aliased(obj)
    if found is None:
        return None
    function, bound = found
    owner = function.parent if function.parent is not None and function.parent.is_class else None
    params = _partially_applied(list(function.parameters), bound) if bound else list(function.parameters)
    own = obj.docstring.value if obj.docstring else ""
    doc = obj.docstring or function.docstring
    descriptions, returns_doc, types, returns_type = _parse_docstring(function.docstring or doc)
    returns = str(function.returns) if function.returns is not None else None
    try:
        source_file: str | None = str(obj.relative_package_filepath)
    except (ValueError, griffe.BuiltinModuleError, AttributeError):
        source_file = None
    docstring = own or (doc.value if doc else "")
    prefix = "async " if "async" in function.labels else ""
    # a method's signature as written (with self), its parameters without it, as for methods
    is_method = owner is not None and "staticmethod" not in function.labels
    first_kind = getattr(params[0].kind, "value", None) if params else None
    shown = params[1:] if is_method and first_kind in _BOUND_KINDS else params
    return ApiEntry(
        api_id=obj.path,
        name=obj.name,
        kind="method" if owner is not None else "function",
        parent=owner.path if owner is not None else None,
        signature=prefix + _signature(obj.name, params, returns),
        parameters=_parameters(shown, descriptions, types),
        returns=ApiReturn(type=returns or returns_type, description=returns_doc),
        description=_summary(docstring),
        docstring=docstring,
        source_file=source_file,
        line=obj.lineno,
    )


def _plain_entry(obj: Any) -> ApiEntry:
    docstring = obj.docstring.value if obj.docstring else ""
    descriptions, returns_doc, types, returns_type = _parse_docstring(obj.docstring)
    try:
        source_file: str | None = str(obj.relative_package_filepath)
    except (ValueError, griffe.BuiltinModuleError, AttributeError):
        source_file = None
    common: dict[str, Any] = {
        "api_id": obj.path,
        "name": obj.name,
        "docstring": docstring,
        "source_file": source_file,
        "line": obj.lineno,
    }
    parent = obj.parent.path if obj.parent is not None and obj.parent.is_class else None
    if obj.is_module:
        return ApiEntry(kind="module", description=_summary(docstring), **common)
    if obj.is_class:
        members = _class_members(obj)
        init = members.get("__init__")
        init = _target(init) if init is not None else None
        if init is not None and init.is_function and len(init.parameters):
            params = list(init.parameters)[1:]
            from_init = _parse_docstring(init.docstring)
            descriptions = {**from_init.params, **descriptions}
            types = {**from_init.types, **types}
            docstring = docstring or (init.docstring.value if init.docstring else "")
            signature = _signature(obj.name, params, None)
        else:  # unknown when inherited from outside the package, compiled without a signature,
            # or made by a class decorator (@attr.s, @dataclass: the fields are its parameters)
            params = []
            plain = init is None and not obj.bases and not obj.decorators
            signature = f"{obj.name}()" if plain else f"{obj.name}(...)"
        if not docstring:  # nor its __init__: its same-named base's
            inherited = _inherited_docstring(obj)
            if inherited is not None:
                docstring = inherited.value
                descriptions = {**_parse_docstring(inherited).params, **descriptions}
        common["docstring"] = docstring
        bases = [str(base) for base in obj.bases]
        dynamic = "__getattr__" in members or "__getattribute__" in members
        protocol = any(b.split("[", 1)[0].rsplit(".", 1)[-1] == "Protocol" for b in bases)
        return ApiEntry(
            kind="class",
            parent=parent,
            signature=signature,
            parameters=_parameters(params, descriptions, types),
            description=_summary(docstring),
            bases=bases,
            open_members=dynamic or protocol,
            **common,
        )
    if obj.is_function and "property" not in obj.labels:
        params = list(obj.parameters)
        returns = str(obj.returns) if obj.returns is not None else None
        bound = parent is not None and "staticmethod" not in obj.labels
        if bound and params and params[0].kind.value in ("positional-only", "positional or keyword"):
            shown = params[1:]
        else:
            shown = params
        # `async def` says so, as the definition does: a coroutine is awaited, an async
        # generator iterated with `async for`
        prefix = "async " if "async" in obj.labels else ""
        return ApiEntry(
            kind="method" if parent else "function",
            parent=parent,
            signature=prefix + _signature(obj.name, params, returns),  # as written: no docstring types
            parameters=_parameters(shown, descriptions, types),
            returns=ApiReturn(type=returns or returns_type, description=returns_doc),
            description=_summary(docstring),
            **common,
        )
    # Properties (griffe: attributes, or functions in older versions, labelled "property"),
    # attributes and type aliases.
    annotation = obj.returns if obj.is_function else getattr(obj, "annotation", None)
    type_text = str(annotation) if annotation is not None else None
    kind: Literal["property", "attribute"] = "property" if "property" in obj.labels else "attribute"
    signature = f"{obj.name}: {type_text}" if type_text else obj.name
    value = getattr(obj, "value", None)
    # a module or class constant shows its value; an instance attribute's "value" is what
    # __init__ assigns (`self.status_code = status_code`), no value at all
    # `self.status_code = status_code` in __init__: the parameter's name is no value
    from_parameter = (
        "instance-attribute" in obj.labels
        and "class-attribute" not in obj.labels
        and str(value).isidentifier()
    )
    if kind == "attribute" and value is not None and len(str(value)) <= 80 and not from_parameter:
        signature += f" = {value}"
    return ApiEntry(
        kind=kind,
        parent=parent,
        signature=signature,
        returns=ApiReturn(type=type_text, description=returns_doc),
        description=_summary(docstring),
        # griffe labels a setter only when it reads the source: inspected (compiled) ones unknown
        writable=("writable" in obj.labels) if kind == "property" and _static(obj) else None,
        **common,
    )


def _static(obj: Any) -> bool:
    """Whether griffe read the object from source (not by inspecting it at run time)."""
    return getattr(obj, "analysis", None) == "static"


def _parameters(
    params: list[Any], descriptions: dict[str, str], types: dict[str, str] | None = None
) -> list[ApiParameter]:
    """The parameters; a parameter the signature does not annotate takes the type its
    docstring gives (``widget (Widget): …``, ``:type widget: Widget``, ``widget : Widget``)."""
    out = []
    for param in params:
        kind = _KINDS.get(param.kind.value, "positional or keyword")
        default = _default(param)
        out.append(
            ApiParameter(
                name=param.name,
                type=str(param.annotation) if param.annotation is not None else (types or {}).get(param.name),
                default=default,
                required=default is None and kind not in ("var-positional", "var-keyword"),
                kind=kind,  # type: ignore[arg-type]
                description=descriptions.get(param.name, ""),
            )
        )
    return out


def _default(param: Any) -> str | None:
    # griffe gives *args and **kwargs the defaults "()" and "{}"; Python source has none.
    if param.default is None or param.kind.value in ("variadic positional", "variadic keyword"):
        return None
    return _private_constant(param.default) or str(param.default)


def _private_constant(default: Any) -> str | None:
    """The literal a private module constant holds, when a default names one: a reader
    cannot import ``_EVENT_WIDTH``, but ``30`` says what the default is. None otherwise
    (a public name, a computed value such as ``_has_colors = not _IS_WINDOWS``)."""
    if not isinstance(default, griffe.ExprName) or not default.name.startswith("_"):
        return None
    try:
        scope: Any = default.parent  # the function (griffe types it loosely)
        target = _target(scope.modules_collection[default.canonical_path])
    except Exception:  # a name griffe cannot resolve
        return None
    value = getattr(target, "value", None) if target is not None and target.is_attribute else None
    value = None if value is None else str(value)  # "30", or an expression: `-1`, `(1, 2)`
    if value is None or len(value) > 40:
        return None
    try:
        ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value


def _signature(name: str, params: list[Any], returns: str | None) -> str:
    """``name(a, /, b: int = 1, *, c, **kw) -> T`` from griffe parameters."""
    parts: list[str] = []
    star = False
    for i, param in enumerate(params):
        kind = param.kind.value
        if kind == "keyword-only" and not star:
            parts.append("*")
        star = star or kind in ("keyword-only", "variadic positional")
        prefix = {"variadic positional": "*", "variadic keyword": "**"}.get(kind, "")
        text = prefix + param.name
        if param.annotation is not None:
            text += f": {param.annotation}"
        default = _default(param)
        if default is not None:
            text += f" = {default}" if param.annotation is not None else f"={default}"
        parts.append(text)
        if kind == "positional-only" and (i + 1 == len(params) or params[i + 1].kind.value != kind):
            parts.append("/")
    return f"{name}({', '.join(parts)})" + (f" -> {returns}" if returns else "")


_STRUCTURED = {"parameters", "other parameters", "returns", "yields", "raises", "receives"}
_PARSER_OPTIONS: dict[str, Any] = {"warnings": False, "warn_unknown_params": False}


def _sections(docstring: griffe.Docstring, parser: griffe.Parser) -> list[Any]:
    global _PARSER_OPTIONS
    try:
        try:
            return list(griffe.parse(docstring, parser, **_PARSER_OPTIONS))
        except TypeError:  # an older griffe without these options
            if not _PARSER_OPTIONS:
                raise
            _PARSER_OPTIONS = {}
            return list(griffe.parse(docstring, parser))
    except Exception as error:  # a parser choking on odd markup must not lose the whole API
        logger.debug("docstring parse failed (%s): %s", parser, error)
        return []


# a Markdown parameter list: "* **auth** - *(optional)* An authentication class …" (httpx)
# an item ends at the next item of the same indentation (a deeper one is a sub-list), a
# blank line or the end
_MD_PARAMETER = re.compile(
    r"^([ \t]*)[*-][ \t]+(?:\*\*`?(\w+)`?\*\*[ \t]*(?:[-–—:][ \t]*)?"
    r"|`{1,2}\*{0,2}(\w+)`{1,2}[ \t]*(?:\([^)\n]*\)[ \t]*)?[-–—:][ \t]*)"
    r"(.*?)(?=^\1[*-][ \t]|\n[ \t]*\n|\Z)",
    re.M | re.S,
)
_OPTIONAL_MARK = re.compile(r"^\*?\(optional\)\*?[ \t]*", re.I)
# a line that opens the parameters (``Arguments:``, ``**Parameters:**``) or another section
_PARAMETERS_HEAD = re.compile(
    r"^[ \t]*\**(?:Parameters|Params|Arguments|Args|Keyword [Aa]rguments|Other [Pp]arameters)\**[ \t]*:?\**[ \t]*$",
    re.M,
)
_OTHER_HEAD = re.compile(
    r"^[ \t]*\**(?:Returns?|Yields?|Raises|Attributes|Examples?|Notes?|Warnings?|See [Aa]lso|Usage)\**[ \t]*:?\**[ \t]*$",
    re.M,
)


def _markdown_parameters(text: str) -> dict[str, str]:
    """Parameter descriptions from a Markdown list of bold names (httpx: ``* **verify** -
    *(optional)* Either `True` to use …``), or of code names with a dash or colon after them
    under a parameters heading (``Arguments:`` then ``* `app` - The ASGI application.``; such
    a list elsewhere may describe a returned dict's keys), which none of griffe's parsers
    reads. Names that are no parameter are dropped by the caller."""
    if "**" not in text and "`" not in text:
        return {}
    head = _PARAMETERS_HEAD.search(text)
    begin = head.end() if head else len(text)
    other = _OTHER_HEAD.search(text, begin)
    end = other.start() if other else len(text)
    out: dict[str, str] = {}
    for m in _MD_PARAMETER.finditer(text):
        if m.group(2) is None and not begin <= m.start() < end:
            continue  # a code-name item outside the parameters
        out.setdefault(m.group(2) or m.group(3), _OPTIONAL_MARK.sub("", " ".join(m.group(4).split())))
    return out


# "verify_ssl - Set to …", "- ``match_string`` - string to be matched", "**limit** - …"
_ITEM_HEAD = re.compile(
    r"^[*-]?[ \t]*(?:\*\*`?(\w+)`?\*\*|`{1,2}\*{0,2}(\w+)`{1,2}|([a-z_][a-z0-9_]*))[ \t]+[-–—][ \t]+(.*)$"
)
# what a list that follows says it lists, when not the parameters: "Returns a dict with:"
_RETURNS_LEAD = re.compile(r"^\W*(?:returns?|yields?|raises?)\b", re.I)
_PARAMETER_WORDS = re.compile(r"\b(?:param|arg|option|input|keyword|accept|take)", re.I)


def _announces_other(paragraph: str) -> bool:
    """Whether a paragraph announces a list of something other than parameters."""
    text = paragraph.strip()
    if _RETURNS_LEAD.match(text):
        return True
    return text.endswith(":") and not text.endswith("::") and not _PARAMETER_WORDS.search(text)


def _listed_parameters(text: str) -> dict[str, str]:
    """Parameter descriptions from the first paragraph after the summary that lists names,
    each with a dash and what it is, deeper lines continuing an item (aiohttp's
    ``TCPConnector``: ``verify_ssl - Set to True to check ssl certifications.``; see
    :func:`~docmentor.library.surface.docstrings.is_name_list`), and the one-item paragraphs that
    continue it — not a list the paragraph before it announces as something else ("Returns
    a dict with:", "Each row has these fields:"; "The following arguments are accepted:"
    is the parameters). Names that are no parameter are dropped by the caller."""
    paragraphs = [p for p in PARAGRAPHS.split(textwrap.dedent(text).strip()) if p.strip()]
    out: dict[str, str] = {}
    listing = False  # a paragraph of one item continues the list before it
    for k, para in enumerate(paragraphs):
        lines = [line for line in para.split("\n") if line.strip()]
        if not listing and is_name_list(para) and _ITEM_HEAD.match(lines[0].strip()):
            if k == 0 or (k > 1 and _announces_other(paragraphs[k - 1])):
                continue  # the summary itself, or the keys of what it returns
            listing = True
        elif not (listing and _ITEM_HEAD.match(lines[0].strip())):
            if out:
                break  # the list is over
            continue
        base = min(len(line) - len(line.lstrip()) for line in lines)
        name = ""
        words: list[str] = []
        for line in lines:
            head = _ITEM_HEAD.match(line.strip()) if len(line) - len(line.lstrip()) == base else None
            if head is not None:
                if name:
                    out.setdefault(name, " ".join(words))
                name, words = head.group(1) or head.group(2) or head.group(3), [head.group(4).strip()]
            elif name:
                words.append(line.strip())
        if name:
            out.setdefault(name, " ".join(words))
    return {k: _OPTIONAL_MARK.sub("", " ".join(v.split())) for k, v in out.items()}


_TYPE_WORDS = frozenset({"int", "str", "float", "bool", "bytes", "dict", "list", "tuple", "set", "None"})
# capitalised words a returns section starts with that are prose, not a type
_NOT_TYPES = frozenset(
    {"Note", "Notes", "Example", "Examples", "Warning", "True", "False", "See", "If", "The", "A"}
)
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]*(?:\[.*\])?")


def _returned_type(item: Any) -> str | None:
    """The type a returns item gives: its annotation, or a Google-style ``Widget: the widget``
    griffe reads as a name (by default it takes ``name: description``) when that name reads
    as a type (a capital, a dotted path, a subscript, a builtin type)."""
    if item.annotation:
        return " ".join(str(item.annotation).split())
    name = str(getattr(item, "name", "") or "")
    typed = name[:1].isupper() or "." in name or "[" in name or name in _TYPE_WORDS
    return name if typed and name not in _NOT_TYPES and _TYPE_NAME.fullmatch(name) else None


class _Parsed(NamedTuple):
    params: dict[str, str]  # parameter → its description
    returns: str  # what the returns section says
    types: dict[str, str]  # parameter → the type the docstring gives it (`widget (Widget): …`)
    returns_type: str | None  # the type the returns section gives (one only)


def _parse_docstring(docstring: griffe.Docstring | None) -> _Parsed:
    """Parameter descriptions and types, the returns description and type; Google, then
    NumPy, then Sphinx."""
    if docstring is None or "\n" not in docstring.value.strip():
        return _Parsed({}, "", {}, None)
    text = docstring.value
    parsers = [griffe.Parser.google]
    if "--" in text:
        parsers.append(griffe.Parser.numpy)
    if re.search(r":(param|returns?|rtype|type|raises)\b", text):
        parsers.append(griffe.Parser.sphinx)
    for parser in parsers:
        sections = _sections(docstring, parser)
        if any(str(getattr(s.kind, "value", s.kind)) in _STRUCTURED for s in sections):
            break
    else:
        return _Parsed({**_listed_parameters(text), **_markdown_parameters(text)}, "", {}, None)
    params: dict[str, str] = {}
    types: dict[str, str] = {}
    returns: list[str] = []
    returned: list[str] = []
    for section in sections:
        kind = str(getattr(section.kind, "value", section.kind))
        if kind in ("parameters", "other parameters"):
            for item in section.value:
                name = item.name.lstrip("*")
                params.setdefault(name, " ".join(item.description.split()))
                if item.annotation:
                    types.setdefault(name, " ".join(str(item.annotation).split()))
        elif kind == "returns":
            returns += [" ".join(item.description.split()) for item in section.value if item.description]
            returned += [t for item in section.value if (t := _returned_type(item))]
    return _Parsed(params, " ".join(returns), types, returned[0] if len(returned) == 1 else None)
