"""The walk of a package's modules with griffe: which objects are its public API, each
named where it is defined with its public paths as aliases (the API surface of
:mod:`docmentor.library.surface.api_python`)."""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import griffe

from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python_entry import (
    alias_target,
    aliased_function,
    api_entry,
    bound_method,
    class_members,
    constructor,
    doc_comment,
    enum_aliases,
    is_enum,
    is_exception,
    object_at,
    property_call,
)
from docmentor.library.surface.api_python_platform import OTHER_PLATFORM, not_taken
from docmentor.library.surface.api_python_roles import (
    is_instance_attribute,
    is_marker_class,
    is_sentinel_class,
    probed_decorators,
    registry_name,
    value_role,
)
from docmentor.library.surface.api_python_shadow import (
    MODULE_SUFFIX,
    Shadow,
    local_object,
    shadowed_submodules,
)
from docmentor.library.surface.api_python_type_aliases import class_through_alias
from docmentor.library.surface.declared_returns import declared_return
from docmentor.library.surface.docstrings import summary
from docmentor.sources.autodoc import DOCSTRING, documented_in

_WRAPPERS = {"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"}
# return types that give instances of their first argument to `with … as` or `for`
_CONTAINERS = {
    "Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator",
    "ContextManager", "AbstractContextManager", "AsyncContextManager", "AbstractAsyncContextManager",
    "Sequence", "MutableSequence", "Collection", "list", "List", "set", "Set", "frozenset", "FrozenSet",
}  # fmt: skip
SELF_RE = re.compile(r"(?<![\w.])(?:typing(?:_extensions)?\.)?Self\b")
# shipped by some wheels, never meant to be imported: test suites, benchmark scripts
TEST_MODULES = {"conftest", "tests", "test", "benchmarks"}
# ... except a plain module named `test` (werkzeug.test: the test client, EnvironBuilder)


def _has_docstring(obj: Any) -> bool:
    try:
        target = alias_target(obj)
    except Exception:  # griffe failing on a path it cannot follow
        return False
    return target is not None and bool(getattr(target, "docstring", None))


def _plain_attribute(obj: Any) -> bool:
    """An attribute that is a value: not a property (``@property``, which griffe keeps as
    an attribute, nor ``x = property(getter)``), nor another name for a function (``info =
    msg``)."""
    return (
        bool(obj.is_attribute)
        and not {"property", "writable", "cached"} & set(getattr(obj, "labels", ()))
        and property_call(obj) is None
        and aliased_function(obj) is None
    )


def _retyped(target: Any, base: Any) -> bool:
    """Whether ``target`` declares another type than the base attribute it sets again (a
    narrower ``last: JSONResponse`` over ``last: Response``): an API of its own."""
    annotation = getattr(target, "annotation", None)
    return annotation is not None and str(annotation) != str(getattr(base, "annotation", None))


def _meta_private(obj: Any) -> bool:
    """Whether a docstring marks its object private for autodoc (a ``:meta private:`` field):
    a member of the docs' ``:members:`` no more."""
    try:
        target = alias_target(obj)
    except Exception:  # griffe failing on a path it cannot follow
        return False
    doc = getattr(target, "docstring", None) if target is not None else None
    text = str(getattr(doc, "value", "") or "")
    return ":meta private:" in text and any(line.strip() == ":meta private:" for line in text.splitlines())


def _documented_call(name: str, member: Any) -> bool:
    """A class's own ``__call__`` with a docstring: what calling its instances does (pluggy's
    ``HookimplMarker.__call__`` and its options, autodoc's ``:special-members: __call__``)."""
    return name == "__call__" and not member.is_alias and _has_docstring(member)


def all_modules(mod: Any) -> Iterator[Any]:
    """``mod`` and every module below it (not through aliases)."""
    yield mod
    for member in list(mod.members.values()):
        if not member.is_alias and member.is_module:
            yield from all_modules(member)


# --- the walk -------------------------------------------------------------------------------


class Builder:
    def __init__(
        self,
        root: Any,
        collection: Any,
        siblings: Sequence[str] = (),
        explicit: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self.root = root
        self.top = root.path.split(".")[0]
        self.tops = {self.top, *siblings}  # the distribution's packages: APIs defined there count
        # (module, name) the package re-exports explicitly from another distribution (typer's
        # `from click.termui import echo as echo`): those objects (and their members) count
        self.explicit = explicit
        self.adopted: set[str] = set()  # the paths of such objects, once found
        # the paths the docs document, as they write them (set before build): a class
        # attribute they name keeps its own API, for the docs' words on it
        self.docs_paths: frozenset[str] = frozenset()
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
        # package path -> its submodules it binds another object's name over (`def retry`
        # beside `retry.py`): the object is the API by that path, the module's api_id is
        # its path + MODULE_SUFFIX and that path no alias of it
        self.shadows: dict[str, dict[str, Shadow]] = {}
        self.shadowed: set[str] = set()  # those modules' paths
        # api_id → the object bound over a shadowed submodule, which the collection's path
        # gives as the module (griffe keeps the module there)
        self.bound_over: dict[str, Any] = {}
        # objects some public path publishes: an __all__ lists it, a package's __init__ or a
        # star import re-exports it, the docs document it; a module-level function or value
        # without one is a helper or constant of its module (ApiEntry.internal)
        self.published: set[str] = set()
        self.documented: set[str] = set()  # the objects the docs' directives document
        self.decorated: dict[str, list[str]] = {}  # module → its decorated functions' names
        self.registered: dict[str, str] = {}  # function → the module object it is registered on
        self.instances: dict[str, str] = {}  # module value → the class it is a bare instance of
        # a method a module attribute names on a module-level instance → that attribute
        # (`encode = _jwt_global_obj.encode`): the attribute's paths are the method's
        self.bound_aliases: dict[str, Any] = {}
        # the package's class or function → the words of a module attribute of its name that
        # binds it again (``AlreadyLocked = exceptions.AlreadyLocked``, ``unlock =
        # portalocker.unlock``, `#: Unlock a file` above it), the first with words: they
        # describe an object without any
        self.rebound: dict[str, str] = {}

    def build(self) -> None:
        """Walk the modules breadth first: each one once, by its shortest public path.

        A module re-exported by another (``from pkg import sub``) is one more path to the
        module, not another walk of its members: packages whose modules import each other
        (SQLAlchemy) would otherwise give every member one alias per path, without end.
        """
        for mod in all_modules(self.root):
            shadows = shadowed_submodules(mod)
            if shadows:
                self.shadows[mod.path] = shadows
                self.shadowed.update(f"{mod.path}.{name}" for name in shadows)
        self.todo.append((self.root, self.root.path))
        while self.todo:
            self.module(*self.todo.popleft())

    def lookup(self, path: str) -> Any:
        """The object ``path`` names in the collection, through aliases; None when it names
        nothing griffe can follow (a KeyError, an alias it cannot resolve)."""
        return object_at(self.collection, path)

    def add_raised(self, raised: Sequence[tuple[str, str, bool]]) -> int:
        """The package's exception classes its public functions and methods raise that the
        walk did not find public (a name its module's ``__all__`` leaves out: bs4's
        ``FeatureNotFound``, which ``BeautifulSoup()`` raises): users catch them, so they are
        added under their own path when it has no private part, else under the raising
        module's when that module defines or imports the name (``raised``: (module, name as
        written, whether the module binds it): :func:`~.raise_sites.raised_names`). A name
        that is no exception class of the package (a builtin's) adds nothing. How many."""
        added = 0
        for module, written, bound in raised:
            if not bound:  # a builtin (`ValueError`), or a name the module never binds
                continue
            target = self.lookup(f"{module}.{written}")
            if target is None or not target.is_class or not self._inside(target) or not is_exception(target):
                continue
            if target.path in self.entries:
                continue
            public = next(
                (
                    p
                    for p in (target.path, f"{module}.{written}")
                    if not any(x.startswith("_") for x in p.split("."))
                ),
                None,
            )
            if public is None or public.split(".")[0] != self.top:
                continue
            self.published.add(target.path)
            self.cls(target, public)
            added += target.path in self.entries
        return added

    def add_documented(self, paths: Sequence[str]) -> None:
        """The objects the docs document by these paths that the walk did not find public
        (a name its module's ``__all__`` leaves out): added under that path, a class with
        its members, a module walked. A private part (``pkg._impl.x``) or an object outside
        the package is no API. ``pkg.mod.*`` (a bare ``:members:``): what autodoc documents
        there, the public names the module (or class) defines itself, ``__all__``'s when it
        has one."""
        paths = [*(self._in_package(p) for p in paths), *self._in_docstrings(paths)]
        self._publish(dict.fromkeys(p for given in paths for p in self._members_of(given)), documented=True)

    def _in_package(self, path: str) -> str:
        """A name a page documents without ever setting a module (peewee's API page writes
        ``.. py:class:: ModelSelect`` and no ``.. module::``): Sphinx shows it bare, and the
        docs' descriptions are read in the package (:func:`~docmentor.library.knowledge.enrich.describe_from_docs`);
        so is the name, when the package's top module has it. Anything else as it is."""
        if path.split(".")[0] in self.tops:
            return path
        qualified = f"{self.top}.{path}"
        return qualified if self.lookup(qualified) is not None else path

    def add_imported(self, paths: Sequence[str]) -> None:
        """The objects the docs' examples import by these paths (``from tablib.formats import
        registry``): public, as :meth:`add_documented` makes them, without counting as
        documented (an import is no page about the object)."""
        self._publish(dict.fromkeys(paths), documented=False)

    def _publish(self, paths: Iterable[str], *, documented: bool) -> None:
        known = {p: api_id for api_id, paths_ in self.aliases.items() for p in paths_}
        for path in paths:
            parts = path.split(".")
            if path in known or path in self.entries:
                self.published.add(known.get(path, path))  # found already, and documented
                if documented:
                    self.documented.add(known.get(path, path))
                continue
            if parts[0] != self.top or any(p.startswith("_") for p in parts):
                continue
            if not documented and any(p in TEST_MODULES for p in parts):
                continue  # a contributing page's `from pkg.tests.helpers import …` (review)
            target = self.lookup(path)
            if target is None or not self._inside(target):
                continue
            named = self._named(target)  # the class or method an attribute names: its path
            self.published.add(named.path)
            if documented:
                self.documented.add(named.path)
            if named.path in self.entries:
                # the docs' name for it is one of its paths: an attribute naming it, or an
                # import of it the module does not export (`serial.tools.list_ports.comports`)
                if path != named.path:
                    self.aliases[named.path].add(path)
                continue
            target = named
            if target.is_module:
                self.todo.append((target, path))
            elif target.is_class:
                self.cls(target, path)
            elif target.is_function or target.is_attribute:
                self._add(target, path)
                self._note_returns(target)
        while self.todo:
            self.module(*self.todo.popleft())

    def _in_docstrings(self, paths: Sequence[str]) -> list[str]:
        """What the directives in the docstrings of the package's modules an
        ``.. automodule::`` shows (``pkg.mod.__doc__``) document, read in that module:
        watchdog's ``events.py`` docstring lists its ``.. autoclass::`` directives."""
        out: list[str] = []
        for path in dict.fromkeys(p for p in paths if p.endswith(f".{DOCSTRING}")):
            module = path.removesuffix(f".{DOCSTRING}")
            if module.split(".")[0] != self.top:
                continue
            obj = self.lookup(module)
            if obj is not None and obj.is_module and obj.docstring is not None:
                found = documented_in(obj.docstring.value, module=obj.path)
                out += [p for p in found if not p.endswith(f".{DOCSTRING}")]  # one level
        return out

    def _members_of(self, path: str) -> list[str]:
        """``path`` itself; for ``owner.*``, the paths of what autodoc's bare ``:members:``
        documents of ``owner``: its own public objects (``__all__``'s) that have a docstring
        (all of them for ``owner.**``: ``:undoc-members:``; nothing when it is not the package's)."""
        if not path.endswith((".*", ".**")):
            return [path]
        every = path.endswith(".**")  # :undoc-members: too
        owner = path[:-3] if every else path[:-2]
        if owner.split(".")[0] != self.top:
            return []
        obj = self.lookup(owner)
        if obj is None or not (obj.is_module or obj.is_class):
            return []
        listed = getattr(obj, "exports", None) if obj.is_module else None
        if listed:
            names = [str(n) for n in listed]
        else:
            names = [  # its own objects: not what it imports, nor its submodules
                n
                for n, m in obj.members.items()
                if not n.startswith("_") and not m.is_alias and not m.is_module
            ]
        # autodoc leaves out what has no docstring, unless :undoc-members: (`owner.**`)
        return [
            f"{owner}.{n}"
            for n in names
            if not n.startswith("_")
            and (m := obj.members.get(n)) is not None
            and (every or _has_docstring(m))
        ]

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
            for mod in all_modules(root):
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
        for api_id in self.documented.intersection(self.entries):
            self.entries[api_id].documented = True
        for api_id, of in self.instances.items():  # `NEVER = _Never()`: an instance of a marker
            if self._is_marker(of):
                self.entries[api_id].internal = "sentinel"
            self._said_by_private_class(self.entries[api_id], of)
        for api_id, entry in self.entries.items():
            if (
                entry.parent is None
                and entry.kind in ("function", "attribute")
                and entry.internal is None
                and api_id not in self.published
            ):
                entry.internal = "helper" if entry.kind == "function" else "constant"
        for api_id, entry in self.entries.items():
            # shortest first; of as short ones, those by the object's own name (a short alias,
            # `wait_full_jitter = wait_random_exponential`, is noted, not the heading)
            entry.aliases = sorted(self.aliases[api_id] - {api_id}, key=_alias_order(entry.name))
        self._said_internal_modules()
        class_paths = {p for e in self.entries.values() if e.kind == "class" for p in (e.api_id, *e.aliases)}
        for api_id, attribute in self.bound_aliases.items():
            if api_id in self.entries:  # called through the instance: a signature without self
                entry, bound = self.entries[api_id], api_entry(attribute)
                entry.signature = _renamed(bound.signature, attribute.name, entry.name)
                entry.overloads = [without_self(o) for o in entry.overloads]
                if not entry.docstring and bound.docstring:  # the attribute's own docstring
                    entry.docstring, entry.description = bound.docstring, bound.description
                # its paths through no class (`jwt.encode`, not `jwt.PyJWT.encode`)
                entry.bound_names = [p for p in entry.aliases if p.rpartition(".")[0] not in class_paths]
        for api_id, said in self.rebound.items():
            rebound = self.entries.get(api_id)
            if rebound is not None and not rebound.docstring:
                rebound.docstring, rebound.description = said, summary(said)
        for api_id, (annotation, scope) in self.annotations.items():
            entry = self.entries[api_id]
            if entry.returns is None:
                continue
            if annotation is None:  # what the docstring says it returns, if a class of the package
                declared = declared_return(entry.returns.type, entry.returns.description)
                found = None if declared is None else self._class_of(declared.name, scope, entry.parent)
                if declared is not None and declared.items:
                    entry.returns.item_class_id = found
                else:
                    entry.returns.class_id = found
                continue
            entry.returns.class_id = self._class_of(annotation, scope, entry.parent)
            if entry.returns.class_id is None:
                entry.returns.item_class_id = self._item_class_of(annotation, scope, entry.parent)
        for api_id, entry in self.entries.items():
            if api_id.split(".")[0] not in self.tops:  # adopted: re-exported from another distribution
                entry.foreign = True
        return list(self.entries.values())

    def _said_internal_modules(self) -> None:
        """A module whose docstring says it is not for users (pydash's ``helpers``: "Generic
        utility methods not part of main API."): it and what it defines are internal, unless
        a path outside it publishes them (a re-export at the top level)."""
        said = [
            api_id.removesuffix(MODULE_SUFFIX)
            for api_id, e in self.entries.items()
            if e.kind == "module" and says_internal(e.docstring)
        ]
        for module in said:
            inside = (module, module + MODULE_SUFFIX)
            for api_id, entry in self.entries.items():
                if entry.internal is not None or not (api_id in inside or api_id.startswith(module + ".")):
                    continue
                if any(not (p in inside or p.startswith(module + ".")) for p in entry.aliases):
                    continue  # published elsewhere too
                entry.internal = "said internal"

    def _said_by_private_class(self, entry: ApiEntry, of: str) -> None:
        """A wordless module value made by calling a private class of the package without
        arguments takes that class's words: the value is what users meet, the class only
        makes it (lark's ``Discard = _DiscardType()``, whose docstring says what returning
        ``Discard`` from a callback does)."""
        if entry.docstring or not of.rsplit(".", 1)[-1].startswith("_"):
            return
        cls = self.lookup(of)
        if cls is None or not cls.is_class or not self._inside(cls) or cls.docstring is None:
            return
        entry.docstring, entry.description = cls.docstring.value, summary(cls.docstring.value)

    def _is_marker(self, path: str) -> bool:
        """Whether ``path`` names a marker class of the package, public or not."""
        cls = self.lookup(path)
        if cls is None or not cls.is_class or not self._inside(cls):
            return False
        members = class_members(cls)
        init = constructor(cls, members)
        takes = init is not None and init.is_function and len(init.parameters) > 1
        return is_marker_class(cls, members, takes)

    def _inside(self, obj: Any) -> bool:
        path = obj.path
        if path.split(".")[0] in self.tops:
            return True
        if not self.adopted:
            return False
        # an object re-exported explicitly from another distribution, or one of its members
        parts = path.split(".")
        return any(".".join(parts[:k]) in self.adopted for k in range(2, len(parts) + 1))

    def _add(self, obj: Any, public: str) -> bool:
        """Record ``public`` as a path to ``obj``; True the first time this pair is seen."""
        api_id = obj.path
        if obj.is_module and obj.path in self.shadowed:
            api_id += MODULE_SUFFIX
        key = (api_id, public)
        if key in self.seen:
            return False
        self.seen.add(key)
        if api_id not in self.entries:
            entry = api_entry(obj)
            entry.api_id = api_id
            self._facts(obj, entry)
            self.entries[api_id] = entry
            self.aliases[api_id] = set()
            if obj.is_function and obj.parent is not None and obj.parent.is_class:
                self.methods[obj.path] = obj
        if api_id != obj.path and public == obj.path:
            return True  # the name is the object bound over the module, no path to the module
        self.aliases[api_id].add(public)
        return True

    def _facts(self, obj: Any, entry: ApiEntry) -> None:
        """What the object's structure says it is beyond its kind (api_python_roles)."""
        if obj.is_attribute:
            entry.instance_attribute = entry.parent is not None and is_instance_attribute(obj)
            if entry.parent is None and obj.parent is not None and obj.parent.is_module:
                entry.internal, instance_of = value_role(obj)
                if instance_of is not None:
                    self.instances[entry.api_id] = instance_of
        elif obj.is_class:
            members = class_members(obj)
            entry.internal = "marker" if is_marker_class(obj, members, bool(entry.parameters)) else None
            if is_sentinel_class(obj):
                entry.internal = "sentinel"
            if entry.internal is None and says_internal(entry.docstring):
                entry.internal = "said internal"
        elif probed_decorators(obj):
            names = self.decorated.setdefault(obj.parent.path, [])
            names.append(obj.name)
            registry = registry_name(obj)
            if registry is not None:  # `@app.command()`: what `app` is tells what this is
                self.registered[entry.api_id] = f"{obj.parent.path}.{registry}"
                names.append(registry)
        if entry.internal is None and not_taken(obj) is not None:
            # what another branch of a platform `if` binds (pySerial's `serialwin32.Serial` on Linux)
            entry.internal = OTHER_PLATFORM

    def module(self, mod: Any, public: str) -> None:
        if not self._add(mod, public):
            return
        if mod.path in self.walked:  # one more path to a module walked by a shorter one
            self.module_paths[mod.path].append(public)
            return
        self.walked.add(mod.path)
        self.module_paths[mod.path] = [public]
        # a name imported only for type checkers (`if TYPE_CHECKING:`) is not there at run time
        self.present.update(f"{public}.{n}" for n, m in mod.members.items() if getattr(m, "runtime", True))
        exports = _exports(mod)
        names = _listed_names(mod, exports)
        body = _top_level(mod)
        demo = _main_guard_lines(body)
        fallbacks = _import_fallbacks(body, self.tops)
        for name in names:
            member = mod.members.get(name)
            if member is None or _not_api(name, member):
                continue
            if demo and not member.is_alias and any(a <= (member.lineno or 0) <= b for a, b in demo):
                continue  # defined by the module's `if __name__ == "__main__":` demo, not its API
            if not member.is_alias and (name, member.lineno) in fallbacks:
                continue  # a stand-in for another package's object, defined only when its import fails
            # Without __all__, imported names are part of the API only in __init__ modules,
            # or where a star import brings them (`attrs/validators.py` is `from
            # attr.validators import *`: a module made to re-export)
            wildcard = getattr(member, "wildcard_imported", False)
            if member.is_alias and exports is None and not _is_init(mod) and not wildcard:
                continue
            target = alias_target(member)
            if target is not None and (mod.path, name) in self.explicit and not target.is_module:
                self.adopted.add(target.path)
            if target is None or not self._inside(target):
                continue
            if target.is_module and mod.path.startswith(target.path + "."):
                continue  # `import pyparsing` in `pyparsing.diagram`: its own package, no path to it
            path = f"{public}.{name}"
            if exports is not None or wildcard or _is_init(mod):
                self.published.add(target.path)
            target = self._named(target)
            if target.is_module:
                self.todo.append((target, path))
                shadow = self.shadows.get(mod.path, {}).get(name)
                if shadow is not None and target.path == f"{mod.path}.{name}":
                    self._bound_over(mod, shadow, path)
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

    def _named(self, target: Any) -> Any:
        """What a module attribute is another name for: the package's class (``length =
        Length``), its function of the same name (``unlock = portalocker.unlock``) or a
        module-level instance's method (``encode = _jwt_global_obj.encode``,
        whose path is where ``jwt.encode`` is defined), published; else ``target``."""
        if not target.is_attribute:
            return target
        named = self._class_named(target) or self._function_rebound(target)
        if named is not None and named.name == target.name and named.path not in self.rebound:
            # the same name bound again: its words describe an object without any (the first
            # such binding that has words; another name's words are of that name: "Deprecated
            # alias of LockError" above `LockException = LockError`)
            said = _said_of(target)
            if said:
                self.rebound[named.path] = said
        elif named is None:
            named = bound_method(target)
            if named is None or any(part.startswith("_") for part in named.path.split(".")):
                return target  # a private class's method: the attribute stays its own API
            self.bound_aliases.setdefault(named.path, target)
        self.published.add(named.path)
        return named

    def _class_named(self, attribute: Any) -> Any | None:
        """The package's class a module attribute is only another name for (``length =
        Length``: no annotation, the value a name of the class); None for anything else."""
        value = getattr(attribute, "value", None)
        name = attribute.name
        if getattr(attribute, "annotation", None) is not None or (name.isupper() and "_" in name):
            # a typed setting, or a constant's (`DEFAULT_RENDERER = HtmlRenderer`); an
            # acronym is another name for the class (`OMD = OrderedMultiDict`, `URL = Url`)
            return None
        if not isinstance(value, griffe.ExprName | griffe.ExprAttribute):
            return None
        found = self.lookup(value.canonical_path)
        if found is not None and found.is_attribute:  # `Quantity = UnitRegistry.Quantity`, a type alias
            found = class_through_alias(found, self.lookup)
        return found if found is not None and found.is_class and self._inside(found) else None

    def _function_rebound(self, attribute: Any) -> Any | None:
        """The package's module-level function a module attribute of the same name binds
        again (portalocker's ``unlock = portalocker.unlock`` in its ``__init__``): the same
        object by one more path, as ``from .portalocker import unlock`` would bind it; None
        for anything else. Another name for a function (``getLogger = get_logger``) stays
        an API of its own (:func:`.api_python_entry.aliased_function`)."""
        value = getattr(attribute, "value", None)
        if getattr(attribute, "annotation", None) is not None or not isinstance(value, griffe.ExprAttribute):
            return None
        found = self.lookup(value.canonical_path)
        if (
            found is None
            or not found.is_function
            or found.name != attribute.name
            or found.path == attribute.path
        ):
            return None
        if found.parent is None or not found.parent.is_module or not self._inside(found):
            return None
        return found

    def _bound_over(self, package: Any, shadow: Shadow, public: str) -> None:
        """The object ``package`` binds over its submodule ``shadow.name``: the API by ``public``."""
        obj = local_object(package, shadow.name) if shadow.target is None else self.lookup(shadow.target)
        if obj is None or obj.is_module or not self._inside(obj):
            return
        self.published.add(obj.path)
        self.bound_over[obj.path] = obj
        if obj.is_class:
            self.cls(obj, public)
        else:
            self._add(obj, public)
            self._note_returns(obj)

    def cls(self, cls: Any, public: str) -> None:
        self.class_paths[cls.path] = self.class_paths[public] = cls.path
        if not self._add(cls, public) or cls.path in self.open_classes:
            return  # seen by this path, or a class inside itself (Outer.Inner.Outer…)
        members = class_members(cls)
        # `IGNORECASE = IC = …` in an enumeration: IC is IGNORECASE, one API with two paths
        same = enum_aliases(cls)
        self.open_classes.add(cls.path)
        try:
            for name, member in members.items():
                if (name.startswith("_") and not _documented_call(name, member)) or _meta_private(member):
                    continue
                target = alias_target(member)
                if target is None or not self._inside(target):
                    continue
                if target.is_class:
                    self.cls(target, f"{public}.{name}")
                elif name in same and self._inside(same[name]):
                    self._add(same[name], f"{public}.{name}")
                elif target.is_function or target.is_attribute:
                    if f"{public}.{name}" not in self.docs_paths:
                        target = self._set_again(target) or target
                    self._add(target, f"{public}.{name}")
                    self._note_returns(target)
        finally:
            self.open_classes.discard(cls.path)

    def _set_again(self, target: Any) -> Any | None:
        """The package's base-class attribute that ``target``, a class attribute without
        words of its own, only sets again (``name = "Python"`` in each of Pygments' 600
        lexers, over ``Lexer.name``; through a chain of such classes to the first that
        declares it): one API, the base's, which the subclass's path names too, rather than
        an undocumented API per subclass. None when ``target`` is no such attribute: a
        method, a property, another name for a method, an instance attribute, one with a
        docstring or a ``#:`` comment or a type of its own, one the docs name, an enumeration's
        member, or one no base of the distribution declares (another distribution's base
        describes its own class, not ours)."""
        owner = getattr(target, "parent", None)
        if (
            owner is None
            or not getattr(owner, "is_class", False)
            or is_enum(owner)  # a name in an enumeration's body is a member, whatever a mixin says
            or not _plain_attribute(target)
            or _has_docstring(target)
            or doc_comment(target) is not None
            or is_instance_attribute(target)
            or target.path in self.docs_paths
        ):
            return None
        try:
            bases = owner.mro()
        except Exception:  # griffe failing on bases it cannot resolve or order
            return None
        for base in bases:
            member = base.members.get(target.name)
            if member is None:
                continue
            found = alias_target(member)
            if (
                found is None
                or not _plain_attribute(found)
                or is_instance_attribute(found)
                or found.path.split(".")[0] not in self.tops
                or _meta_private(found)
                or _retyped(target, found)
            ):
                return None
            return self._set_again(found) or found
        return None

    def _note_returns(self, obj: Any) -> None:
        entry = self.entries[obj.path]
        if entry.returns is not None and obj.path not in self.annotations:
            # another name for a function (`getLogger = get_logger`) returns what it returns
            source = (
                aliased_function(obj) if obj.is_attribute and entry.kind in ("function", "method") else obj
            )
            source = obj if source is None else source
            returned = source.returns if source.is_function else source.annotation
            getter = property_call(obj) if returned is None else None
            if getter is not None:  # `x = property(get_x)`: what the getter returns
                returned = getter.returns
            self.annotations[obj.path] = (returned, source.parent)

    def _class_of(self, annotation: Any, scope: Any, parent: str | None) -> str | None:
        """api_id of the public class an annotation names, unwrapping Optional/Union/None."""
        annotation = _core(annotation)
        if annotation is None:
            return None
        if isinstance(annotation, str):
            text = annotation.strip().strip("'\"")
            if SELF_RE.fullmatch(text):
                return parent
            candidates = [text, f"{scope.path}.{text}" if scope is not None else text]
            if scope is not None and scope.is_class and scope.parent is not None:
                candidates.append(f"{scope.parent.path}.{text}")
            return next((c for c in map(self._class_id, candidates) if c), None)
        if isinstance(annotation, griffe.ExprName | griffe.ExprAttribute):
            path = annotation.canonical_path
            if SELF_RE.fullmatch(path) or (isinstance(annotation, griffe.ExprName) and path == "Self"):
                return parent
            return self._class_id(path)
        if isinstance(annotation, griffe.ExprSubscript) and _subscript(annotation)[0] not in _CONTAINERS:
            # a generic class of the package (`AsyncFile[Any]`, `MultiListener[SocketStream]`)
            return self._class_of(annotation.left, scope, parent)
        return None

    def _item_class_of(self, annotation: Any, scope: Any, parent: str | None) -> str | None:
        """api_id of the public class whose instances an annotation's iterator, generator,
        context manager or sequence gives (``Iterator[Response]`` → ``Response``), unwrapping
        Optional/Union/None around it."""
        annotation = _core(annotation)
        if isinstance(annotation, griffe.ExprSubscript):
            head, elements = _subscript(annotation)
            # a tuple of any length of one type (`tuple[Statement, ...]`); a fixed tuple's
            # elements are different things, none of them "the" item
            homogeneous = head in ("tuple", "Tuple") and len(elements) == 2 and str(elements[1]) == "..."
            if head in _CONTAINERS or homogeneous:
                return self._class_of(elements[0], scope, parent)
        return None

    def _class_id(self, path: str, *, bound: bool = True) -> str | None:
        """api_id of the public class ``path`` names; a type variable bound to one
        (``T = TypeVar("T", bound="Version")``: ``Version.parse(cls: Type[T]) -> T``) names it."""
        if path in self.class_paths:
            return self.class_paths[path]
        try:
            obj = self.collection[path]
            target = obj.final_target if obj.is_alias else obj
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        found = self.class_paths.get(target.path)
        if found is None and bound and target.is_attribute and target.parent is not None:
            name = _type_variable_bound(target)
            if name is not None:
                candidates = (name, f"{target.parent.path}.{name}")
                return next((c for c in (self._class_id(p, bound=False) for p in candidates) if c), None)
        return found


def _alias_order(own: str) -> Callable[[str], tuple[int, bool, int, str]]:
    """Paths by length in parts; of as long ones, those ending in the object's own name first.
    (The declaring class's paths before a subclass's, as a further tie-break, moved the first
    alias that texts embed for many inherited members: pyparsing, filelock, pySerial, invoke
    and trio lost 0.003–0.026 MRR, no set gained; 2026-11-30.)"""

    def key(path: str) -> tuple[int, bool, int, str]:
        return (path.count("."), path.rsplit(".", 1)[-1] != own, len(path), path)

    return key


# what a class's docstring says when users are not to use it (werkzeug's sansio Request: "not
# meant for general use"; typer's DefaultPlaceholder: "You shouldn't use this class directly")
_NOT_FOR_USERS = re.compile(
    r"\b(?:not meant for (?:general|public) use|(?:shouldn't|should not|must not|do not|don't) use this"
    r" (?:class|object) directly|for internal use(?: only)?\b|internal use only|not part of (?:the )?(?:main|public) api)",
    re.IGNORECASE,
)


def _said_of(attribute: Any) -> str:
    """What a module attribute's docstring or ``#:`` doc comment says, or ""."""
    if attribute.docstring is not None and attribute.docstring.value.strip():
        return str(attribute.docstring.value)
    comment = doc_comment(attribute)
    return comment[0] if comment is not None else ""


def says_internal(docstring: str) -> bool:
    """Whether a class's docstring says it is not for users (its first 2,000 characters)."""
    return bool(docstring) and _NOT_FOR_USERS.search(docstring[:2000]) is not None


def _top_level(mod: Any) -> list[ast.stmt]:
    """The top-level statements of a module's source file, read once for the checks below;
    none when it has no file, or none of what they look for (``__main__``, ``try:``, ``del``)."""
    try:
        path = mod.filepath
    except griffe.BuiltinModuleError:
        return []
    if not hasattr(path, "read_text") or path.suffix != ".py":
        return []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    if "__main__" not in text and "try:" not in text and "del " not in text and "del(" not in text:
        return []
    try:
        return ast.parse(text).body
    except (SyntaxError, ValueError):
        return []


def drop_deleted(modules: Iterable[Any]) -> int:
    """Take out of each module the names its top level deletes after binding them (boltons'
    statsutils: `func = …` in a loop, then `del func`): at run time the module has no such
    name, whatever reaches it (``__all__``, an automodule's ``:members:``). Returns how many."""
    dropped = 0
    for mod in modules:
        if getattr(mod, "is_alias", False):
            continue
        deleted = _deleted_names(_top_level(mod))
        for name, at in deleted.items():
            member = mod.members.get(name)
            if member is None or _names_module(member):
                continue  # `from . import utils` … `del utils`: `pkg.utils` is still imported so
            line = (member.alias_lineno if member.is_alias else member.lineno) or 0
            if line < at:  # (one bound again after its del stays)
                mod.members.pop(name, None)
                dropped += 1
    return dropped


def _names_module(member: Any) -> bool:
    """Whether a module member is a module, or an alias of one (resolving it where it can:
    trio's ``from typing import TYPE_CHECKING`` cannot be)."""
    if not member.is_alias:
        return bool(member.is_module)
    try:
        return bool(member.final_target.is_module)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return False


def _deleted_names(body: list[ast.stmt]) -> dict[str, int]:
    """The names a module's top level deletes (``del attr, func`` after the loop that used
    them), each with the line of its last ``del`` (``body``: :func:`_top_level`)."""
    found: dict[str, int] = {}
    for node in body:
        if isinstance(node, ast.Delete):
            for target in node.targets:
                for name in target.elts if isinstance(target, ast.Tuple | ast.List) else [target]:
                    if isinstance(name, ast.Name):
                        found[name.id] = node.lineno
    return found


def _main_guard_lines(body: list[ast.stmt]) -> list[tuple[int, int]]:
    """The line ranges of a module's top-level ``if __name__ == "__main__":`` blocks (``body``:
    :func:`_top_level`): what runs when the file is a script (rich's demos define ``Foo``,
    ``bar``, ``divide`` there)."""
    found = []
    for node in body:
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and len(node.test.comparators) == 1
        ):
            sides = [node.test.left, node.test.comparators[0]]
            names = [x.id for x in sides if isinstance(x, ast.Name)]
            values = [x.value for x in sides if isinstance(x, ast.Constant)]
            if names == ["__name__"] and values == ["__main__"] and isinstance(node.test.ops[0], ast.Eq):
                found.append((node.lineno, node.end_lineno or node.lineno))
    return found


def _listed_names(mod: Any, exports: list[str] | None) -> list[str]:
    """The names of a module to walk: ``__all__``'s (or its public names without one), and
    its submodules, which are importable whatever ``__all__`` says."""
    names = list(exports) if exports is not None else [n for n in mod.members if not n.startswith("_")]
    if exports and all(_submodule(mod, n) for n in exports):
        # an `__all__` of submodules only (`__all__ = ["engine", "sql"]`) says what
        # `from pkg import *` loads, not that the module's own functions are private
        names += [
            n
            for n, m in mod.members.items()
            if not m.is_alias and (m.is_function or m.is_class) and n not in names
        ]
    return names + [n for n, m in mod.members.items() if not m.is_alias and m.is_module and n not in names]


def _not_api(name: str, member: Any) -> bool:
    """A module member that is no API whatever its module says: a private name, a test file,
    a name there only for type checkers, a ``:meta private:`` one, a test suite's module."""
    if name.startswith("_") or (name.startswith("test_") and _holds_tests(member)):
        return True
    if not getattr(member, "runtime", True):  # `if TYPE_CHECKING: from pkg import Markdown`
        return True
    if _meta_private(member):
        return True
    return name in TEST_MODULES and not (name == "test" and _plain_module(member))


def _import_fallbacks(body: list[ast.stmt], packages: set[str]) -> set[tuple[str, int]]:
    """(name, line) of the classes and functions a module defines at its top level only when
    an import of that name from another package fails (``try: from threading import RLock``
    ``except ImportError: class RLock: …``): at run time the name is the other package's object,
    so the stand-in is none of this package's API. A stand-in for the package's own module
    (``from ._speedups import escape``, else ``def escape``) is kept: that is its API."""
    found: set[tuple[str, int]] = set()
    for node in body:
        if not isinstance(node, ast.Try):
            continue
        imported: set[str] = set()
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
                if stmt.module.split(".")[0] not in packages:
                    imported.update((a.asname or a.name) for a in stmt.names)
            elif isinstance(stmt, ast.Import):
                imported.update(
                    (a.asname or a.name).split(".")[0]
                    for a in stmt.names
                    if a.name.split(".")[0] not in packages
                )
        for handler in node.handlers:
            for stmt in handler.body:
                if (
                    isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                    and stmt.name in imported
                ):
                    # griffe's line of a decorated definition is its first decorator's
                    found.add(
                        (stmt.name, stmt.decorator_list[0].lineno if stmt.decorator_list else stmt.lineno)
                    )
    return found


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


def _submodule(mod: Any, name: str) -> bool:
    """Whether ``name`` in ``mod`` is one of its submodules."""
    member = mod.members.get(name)
    if member is None:
        return False
    try:
        target = alias_target(member)
    except Exception:  # griffe failing on a path it cannot follow
        return False
    return target is not None and target.is_module and target.path == f"{mod.path}.{name}"


def _exports(mod: Any) -> list[str] | None:
    exports = mod.exports
    if exports is None:
        return None
    return [e if isinstance(e, str) else getattr(e, "name", str(e)) for e in exports]


def static_version(root: Any) -> str | None:
    """``__version__ = "1.2.3"`` in the package (or its ``__version__`` module), when literal."""
    attr = alias_target(root.members["__version__"]) if "__version__" in root.members else None
    if attr is not None and attr.is_module:
        attr = attr.members.get("__version__")
    value = getattr(attr, "value", None) if attr is not None and attr.is_attribute else None
    if isinstance(value, str) and len(value) > 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return None


_SELF = re.compile(r"\(self(?:, |(?=\)))")


def without_self(signature: str) -> str:
    """A method's signature as its instance's bound method is called: ``encode(self, x)`` →
    ``encode(x)``; one whose first parameter is no ``self`` as it is."""
    return _SELF.sub("(", signature, count=1)


def _renamed(signature: str, name: str, own: str) -> str:
    """A signature under the method's own name (``dumps = _a.encode``: ``encode(x)``, not
    ``dumps(x)``), ``async`` kept."""
    prefix = "async " if signature.startswith("async ") else ""
    rest = signature[len(prefix) :]
    return prefix + own + rest[len(name) :] if rest.startswith(f"{name}(") else signature


def _type_variable_bound(attribute: Any) -> str | None:
    """The class a module's type variable is bound to, as written (``T = TypeVar("T",
    bound="Version")``: ``Version``); None for anything else."""
    value = getattr(attribute, "value", None)
    if not isinstance(value, griffe.ExprCall) or str(value.function).rsplit(".", 1)[-1] != "TypeVar":
        return None
    for argument in value.arguments:
        if isinstance(argument, griffe.ExprKeyword) and argument.name == "bound":
            written = str(argument.value).strip().strip("'\"")
            return written if re.fullmatch(r"[A-Za-z_][\w.]*", written) else None
    return None
