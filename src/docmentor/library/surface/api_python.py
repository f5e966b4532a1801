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

This module loads the package and answers questions about the surface (:class:`ApiSurface`);
the walk that decides what is public is :mod:`.api_python_walk`, one object as an entry
:mod:`.api_python_entry`, its docstring's parameters and returns :mod:`.api_python_docs`.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import griffe

from docmentor.errors import NotFoundError, SourceUnavailableError
from docmentor.library.models import ApiEntry
from docmentor.library.surface import deprecation
from docmentor.library.surface.api_python_assigned_docs import add_assigned_docstrings
from docmentor.library.surface.api_python_env import (
    dist_info,
    foreign_root,
    inspect_foreign_compiled,
    inspect_made_classes,
    interpreter_info,
)
from docmentor.library.surface.api_python_exports import computed_exports
from docmentor.library.surface.api_python_platform import bind_as_run
from docmentor.library.surface.api_python_roles import command_objects, make_command
from docmentor.library.surface.api_python_type_aliases import resolve_alias_bases
from docmentor.library.surface.api_python_unpacked import add_unpacked
from docmentor.library.surface.api_python_walk import (
    SELF_RE,
    TEST_MODULES,
    Builder,
    all_modules,
    drop_deleted,
    static_version,
)
from docmentor.library.surface.call_forms import CallForms, call_forms
from docmentor.library.surface.docstrings import word_references, written_for_sphinx
from docmentor.library.surface.products import products
from docmentor.library.surface.raise_sites import describe_raises, raised_names, read_sources

logger = logging.getLogger(__name__)

__all__ = ["ApiSurface", "load_api"]


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
    #: what objects give that ``returns.class_id`` cannot say (:func:`.products.products`):
    #: ``"<class>.__getitem__"`` / ``".__call__"`` and union returns → the library classes
    products: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: what calling an instance takes (``__call__``), the methods that bind their class or
    #: nothing, the overloads of what takes anything (:func:`.call_forms.call_forms`)
    call_forms: CallForms = field(default_factory=CallForms)
    #: the methods that only declare (abstract, ``...``, ``raise NotImplementedError``): of a
    #: union's classes, the one whose member does something is the one a call reaches
    stubs: frozenset[str] = frozenset()

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
        if entry.returns.type and SELF_RE.search(entry.returns.type) and "." in name:
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
    imported: Sequence[str] = (),
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
        imported: Dotted paths the docs' examples import (``from tablib.formats import
            registry``): public as ``documented`` ones are, not counted as documented.

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
    installed = [p for p in info.get("packages") or [] if p not in TEST_MODULES]
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
    add_unpacked(all_modules(root))
    add_assigned_docstrings(all_modules(root))
    drop_deleted(all_modules(root))  # after: a deleted name's assigned docstring is no reason to keep it
    computed_exports(
        python or sys.executable, list(all_modules(root)), paths, loader.modules_collection.__getitem__
    )
    if python is not None:
        inspect_foreign_compiled(python, root, loader, extra)
    inspect_made_classes(python or sys.executable, all_modules(root), paths)
    bind_as_run(python or sys.executable, list(all_modules(root)), paths)
    resolve_alias_bases(all_modules(root), loader.modules_collection)
    version: str | None = info.get("version")
    if version is None:
        version = static_version(root)
    explicit = explicit_reexports(root, {name.split(".")[0], *siblings})
    _load_reexported(loader, {module.split(".")[0] for module, _ in explicit.values()})
    builder = Builder(root, loader.modules_collection, siblings, frozenset(explicit))
    facts = read_sources(all_modules(root))  # one module parsed at a time
    try:
        builder.docs_paths = frozenset(documented)
        builder.build()
        builder.add_documented(documented)
        builder.add_imported(imported)
        builder.add_raised(raised_names(facts, builder.entries))
        builder.note_present(loader.modules_collection, siblings)
        entries = builder.finish()
        _mark_commands(builder, python, paths)
        stubs = frozenset(api_id for api_id, obj in builder.methods.items() if deprecation.is_stub(obj))
        deprecation.inherit(entries, lambda api_id: api_id in stubs)
        # reads sources too: before the clear
        forms = call_forms(entries, loader.modules_collection, builder.bound_over)
        describe_raises(entries, facts, lambda path: _path_of(builder.lookup(path)))
        _sphinx_word_references(entries)
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
        products=products(entries, loader.modules_collection, builder.class_paths),
        call_forms=forms,
        stubs=stubs,
    )


def _sphinx_word_references(entries: Sequence[ApiEntry]) -> None:
    """The descriptions of an API whose docstring is written for Sphinx read as Sphinx shows
    them: a named reference by a word (``from XTVERSION_, ENQ_``) is its word; in a docstring
    of another style a trailing ``_`` may be part of a name, and it is kept."""
    for entry in entries:
        if not (written_for_sphinx(entry.docstring) or written_for_sphinx(entry.init_docstring)):
            continue
        entry.description = word_references(entry.description)
        for parameter in entry.parameters:
            parameter.description = word_references(parameter.description)
        if entry.returns is not None:
            entry.returns.description = word_references(entry.returns.description)


def _path_of(obj: Any) -> str | None:
    return None if obj is None else str(obj.path)


def _mark_commands(builder: Builder, python: str | None, paths: list[str]) -> None:
    """The decorated module-level functions that are CLI command objects after import made
    commands (:func:`~docmentor.library.surface.api_python_roles.make_command`); those a
    decorator registers on a module-level application object (``@app.command()``: it has
    ``main``/``invoke`` or runs what it holds) keep their signature and say that object's class."""
    names = {module: sorted(set(found)) for module, found in builder.decorated.items()}
    probed = command_objects(python, paths, names)
    for api_id, entry in builder.entries.items():
        if entry.kind != "function" or entry.parent is not None:
            continue
        what = probed.get(api_id)
        if what is not None and what.cli:
            make_command(entry, what.cls)
            continue
        registry = probed.get(builder.registered.get(api_id, ""))
        if registry is not None and (registry.cli or registry.runs):
            entry.command = registry.cls


MAX_ALIAS_RETRIES = 5  # packages loaded to resolve what a stub or re-export points at


def explicit_reexports(root: Any, own: set[str]) -> dict[tuple[str, str], tuple[str, str]]:
    """What the package's ``__init__`` re-exports explicitly from another distribution:
    ``from click.termui import echo as echo`` (the redundant alias that says "re-exported", as
    type checkers read it) or a name its ``__all__`` lists, imported absolutely from a package
    not in ``own``. (package path, name) → (the module imported from, the name there). typer
    users call ``typer.echo``, ``typer.Exit``, ``typer.confirm``: click's, published by typer."""
    import ast

    try:
        path = root.filepath
    except griffe.BuiltinModuleError:
        return {}
    if not isinstance(path, Path) or path.name not in ("__init__.py", "__init__.pyi"):
        return {}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return {}
    listed = set(root.exports or ())
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for node in tree.body:  # module level only: not what a function or `if` imports
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        if node.module.split(".")[0] in own:
            continue
        for alias in node.names:
            public = alias.asname or alias.name
            if alias.name != "*" and (alias.asname == alias.name or public in listed):
                found[(root.path, public)] = (node.module, alias.name)
    return found


def _load_reexported(loader: griffe.GriffeLoader, packages: set[str]) -> None:
    """Load the packages the library re-exports objects from, so that those resolve."""
    for package in sorted(packages):
        if package in loader.modules_collection.members:
            continue
        _try_load(loader, package, "which the library re-exports from")


def _try_load(loader: griffe.GriffeLoader, package: str, why: str) -> None:
    """Load ``package`` into ``loader`` if it loads; a package that does not is only logged."""
    try:
        loader.load(package)
    except (ImportError, griffe.LoadingError, griffe.AliasResolutionError, griffe.CyclicAliasError) as error:
        logger.debug("could not load %s, %s: %s", package, why, error)


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
            _try_load(loader, other, f"beside {name}")
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


def _load_folders_without_init(root: Any, loader: griffe.GriffeLoader) -> None:
    """Read the folders without ``__init__.py`` inside the package that its modules import
    from (``flask/sansio``: ``from .sansio.app import App``, the base of ``Flask``).

    griffe leaves such folders out (they are often scripts), so the classes there were
    unknown: a subclass's inherited members (``Flask.route``, ``Flask.errorhandler``) went
    missing. Python imports them as implicit namespace packages; only those the package's
    own imports name are read, each module statically, as griffe reads the others.
    """
    targets = {
        m.target_path
        for mod in all_modules(root)
        for m in mod.members.values()
        if m.is_alias and m.target_path
    }
    for mod in list(all_modules(root)):
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
