"""Which names a package binds over its same-named submodules: at run time ``pkg.retry`` is
whatever ``pkg/__init__.py`` bound last, and importing ``pkg.retry`` for the first time sets
the attribute to the module. griffe keeps the submodule under that name (and drops a ``def``
of the same name); this module reads the ``__init__`` source to tell which one Python leaves
there, and recovers the object it is (:mod:`docmentor.library.surface.api_python_walk`).

The rule, statement by statement through the module's top level (``if``/``try``/``with``
bodies in order): the submodule counts from the first statement that imports it
(``import pkg.retry``, ``from .retry import x``, ``from . import retry``); a later binding
of the name (``def``, ``class``, an assignment, ``from .retry import retry``) replaces it,
and later imports of the already imported submodule do not set it again. A submodule first
imported through another module is not followed.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import griffe

logger = logging.getLogger(__name__)

__all__ = ["MODULE_SUFFIX", "Shadow", "local_object", "shadowed_submodules"]

MODULE_SUFFIX = "~module"  # a shadowed submodule's api_id: its path + this (the name is the object's)


@dataclass(frozen=True)
class Shadow:
    """A submodule hidden behind a binding of its name in its package's ``__init__``."""

    name: str
    #: where the binding's object is defined, for ``from X import Y [as name]``: ``X.Y``;
    #: None when the ``__init__`` itself defines or assigns it (``def retry``)
    target: str | None


def shadowed_submodules(mod: Any) -> dict[str, Shadow]:
    """The submodules of package ``mod`` whose name the package binds to something else
    at run time, by name. Empty for a module that is no package ``__init__``, one without
    such submodules, or an ``__init__`` that cannot be read or parsed (logged)."""
    subs = {n for n, m in mod.members.items() if not m.is_alias and m.is_module}
    if not subs:
        return {}
    path = _init_path(mod)
    if path is None:
        return {}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8-sig"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError) as error:
        logger.debug("could not read %s for its bindings: %s", path, error)
        return {}

    def star(source: str) -> set[str]:
        return _star_names(mod, source)

    state: dict[str, str] = {}  # name -> what the attribute holds so far
    imported: set[str] = set()
    for stmt in _statements(tree.body):
        for name, _at, target in sorted(_events(stmt, mod.path, subs, star), key=lambda e: e[1]):
            if target == _MODULE:  # imported: the attribute is set the first time only
                if name not in imported:
                    imported.add(name)
                    state[name] = _MODULE
            elif target == _MODULE_BOUND:  # `import pkg.retry as retry`: the module, bound
                imported.add(name)
                state[name] = _MODULE
            else:
                state[name] = target
    return {
        name: Shadow(name, None if target == _LOCAL else target)
        for name, target in state.items()
        if target != _MODULE
    }


def local_object(mod: Any, name: str) -> Any:
    """The object ``mod``'s ``__init__`` itself binds to ``name`` (a function, class or
    attribute griffe dropped for the submodule of that name), read again from the source
    and placed in ``mod``; None when it cannot be read."""
    path = _init_path(mod)
    if path is None:
        return None
    try:
        code = path.read_text(encoding="utf-8-sig")
        again = griffe.visit(
            mod.name,
            path,
            code,
            parent=mod.parent,
            lines_collection=mod.lines_collection,
            modules_collection=griffe.ModulesCollection(),  # not the loader's: nothing replaced
        )
    except Exception as error:  # griffe failing on source Python itself accepted
        logger.debug("could not read %s again for %s: %s", path, name, error)
        return None
    obj = again.members.get(name)
    if obj is None or obj.is_alias or obj.is_module:
        return None
    obj.parent = mod  # its path, and the names its annotations use, are the package's
    return obj


_MODULE = "\x00module"  # the event: the submodule is imported (the attribute set to it)
_MODULE_BOUND = "\x00bound"  # the event: the name bound to the submodule itself
_LOCAL = "\x00local"  # the event: the name bound by the __init__ itself


_Star = Callable[[str], set[str]]  # a module's path → the names `from it import *` binds


def _star_names(mod: Any, source: str) -> set[str]:
    """The names ``from source import *`` binds: its ``__all__``, else its public names."""
    try:
        found = mod.modules_collection[source]
        target = found.final_target if found.is_alias else found
    except Exception:  # not loaded (another package), or griffe failing to follow it
        return set()
    if not target.is_module:
        return set()
    exports = target.exports
    if exports is not None:
        return {e if isinstance(e, str) else getattr(e, "name", str(e)) for e in exports}
    return {n for n in target.members if not n.startswith("_")}


def _init_path(mod: Any) -> Path | None:
    try:
        path = mod.filepath
    except griffe.BuiltinModuleError:
        return None
    if not isinstance(path, Path) or path.name != "__init__.py":
        return None  # a stub (.pyi) says what is there, not in which order
    return path


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run at import, in order: a block's (``if``, ``try``, ``with``) inlined."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out += _statements(stmt.body) + _statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            handlers = [s for h in stmt.handlers for s in h.body]
            out += _statements(stmt.body) + _statements(handlers)
            out += _statements(stmt.orelse) + _statements(stmt.finalbody)
        elif isinstance(stmt, ast.With):
            out += _statements(stmt.body)
        else:
            out.append(stmt)
    return out


def _events(stmt: ast.stmt, package: str, subs: set[str], star: _Star) -> list[tuple[str, float, str]]:
    """(name, order within the statement, what it binds: _MODULE, _LOCAL or an import's
    target path) for the submodule names a statement imports or binds."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [(stmt.name, 0.5, _LOCAL)] if stmt.name in subs else []
    if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        return [(n, 0.5, _LOCAL) for n in names if n in subs]
    if isinstance(stmt, ast.Import):
        out: list[tuple[str, float, str]] = []
        for alias in stmt.names:
            sub = _submodule(alias.name, package, subs)
            if sub is not None:
                out.append((sub, 0.0, _MODULE))
            bound = alias.asname or alias.name.split(".")[0]
            if alias.asname and bound in subs:
                out.append((bound, 0.5, _MODULE_BOUND if alias.name == f"{package}.{bound}" else alias.name))
        return out
    if isinstance(stmt, ast.ImportFrom):
        return _from_events(stmt, package, subs, star)
    return []


def _from_events(
    stmt: ast.ImportFrom, package: str, subs: set[str], star: _Star
) -> list[tuple[str, float, str]]:
    source = _absolute(stmt, package)
    if source is None:
        return []
    out: list[tuple[str, float, str]] = []
    sub = _submodule(source, package, subs)
    if sub is not None:
        out.append((sub, 0.0, _MODULE))  # `from .retry import x` imports pkg.retry first
    for alias in stmt.names:
        bound = alias.asname or alias.name
        if source == package and alias.name in subs:
            out.append((alias.name, 0.0, _MODULE))  # `from . import retry [as r]`: the module
            if bound == alias.name:
                continue
        if alias.name == "*":  # `from .retry import *`: the names that module makes public
            out += [(name, 0.5, f"{source}.{name}") for name in sorted(subs & star(source))]
        elif bound in subs:
            out.append((bound, 0.5, f"{source}.{alias.name}"))
    return out


def _absolute(stmt: ast.ImportFrom, package: str) -> str | None:
    """The module a ``from … import`` reads, absolute (``from .retry`` in ``pkg`` → ``pkg.retry``)."""
    if not stmt.level:
        return stmt.module
    parts = package.split(".")
    if stmt.level - 1 >= len(parts):
        return None
    base = parts[: len(parts) - (stmt.level - 1)]
    return ".".join(base + ([stmt.module] if stmt.module else []))


def _submodule(module: str | None, package: str, subs: set[str]) -> str | None:
    """The submodule of ``package`` importing ``module`` imports (``pkg.retry.x`` → ``retry``)."""
    if not module or not module.startswith(f"{package}."):
        return None
    first = module[len(package) + 1 :].split(".")[0]
    return first if first in subs else None
