"""Names a module binds in several branches of an ``if``, read as the library's interpreter binds them.

pySerial's ``serial/__init__.py`` imports ``Serial`` from ``serialcli``, ``serialwin32``,
``serialposix`` or ``serialjava`` by ``sys.platform`` and ``os.name``; ``serial.tools.list_ports``
picks its ``comports`` the same way. Read statically, the last branch wins: the catalog
described ``serial.Serial`` as the Java class and its methods, which no user on Linux, macOS or
Windows ever calls. Each such name (a module-level name bound by an import, a ``def``, a
``class`` or an assignment in two branches or more of one ``if``/``elif``/``else`` chain) is
looked up in the library's interpreter after import; when it is a class or function defined
elsewhere, the name becomes an alias of that definition (one of another package, ``json.loads``
where the last branch imports the package's own fallback, is then no API of this one). A module that fails to
import there, a name it lacks, or a probe that fails changes nothing (logged). A taken
definition without a docstring (a compiled function's stub) takes the words of another branch's
definition of the name (the pure-Python fallback documenting the same API).
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterable
from typing import Any

import griffe

from docmentor.library.surface.api_python_entry import EXTRA
from docmentor.library.surface.api_python_env import PROBE_CLOSE, PROBE_OPEN, probe_names
from docmentor.library.surface.module_source import module_text

__all__ = ["OTHER_PLATFORM", "bind_as_run", "not_taken"]

logger = logging.getLogger(__name__)

MAX_ASKED = 200  # names asked about at run time, at most

# run by the library's interpreter (stdlib only): where each "module:name" is defined there
_PROBE = (
    PROBE_OPEN
    + r"""
for asked in sys.argv[2:]:
    mod, _, name = asked.partition(":")
    try:
        o = getattr(importlib.import_module(mod), name)
        home, qualname = getattr(o, "__module__", None), getattr(o, "__qualname__", None)
        if isinstance(home, str) and isinstance(qualname, str) and "<" not in qualname:
            out[asked] = home + "." + qualname
    except BaseException as e:  # the import, or the name: this one tells nothing
        out[asked] = None
"""
    + PROBE_CLOSE
)


def bind_as_run(python: str, modules: Iterable[Any], paths: list[str]) -> int:
    """Rebind each name of ``modules`` bound in several branches of one ``if`` to the
    definition the library's interpreter (``python``) gives it, when that is another of the
    package's objects than the one static reading chose; returns how many were rebound."""
    mods = [m for m in modules if not getattr(m, "is_alias", False)]
    bindings = {mod.path: _branch_bindings(mod) for mod in mods}
    asked = [(mod, name) for mod in mods for name in sorted(bindings[mod.path])][:MAX_ASKED]
    if not asked:
        return 0
    found = probe_names(python, _PROBE, paths, asked, "platform-dependent names")
    top = mods[0].path.split(".")[0] if mods else ""
    taken = {t for t in found.values() if isinstance(t, str)}  # bound at run time, by some name
    rebound: list[str] = []
    for mod, name in asked:
        target = found.get(f"{mod.path}:{name}")
        if not isinstance(target, str):
            continue
        _mark_not_taken(mod, bindings[mod.path][name] - taken, target)
        _lend_docstring(mod, target, bindings[mod.path][name] - {target})
        if target == f"{mod.path}.{name}":
            continue
        member = mod.members.get(name)
        now = member.target_path if member is not None and member.is_alias else None
        if now == target:
            continue  # read so already
        if target.split(".")[0] == top:
            # a definition static reading has there: not a name that only re-exports one (trio
            # sets its objects' `__module__` to "trio", where they are imports of `trio._channel`'s)
            found_there = _lookup(mod, target)
            if found_there is None or found_there.is_alias:
                continue
        elif now is None or now.split(".")[0] != top:
            continue  # another package's (`json.loads`) only in place of an import of the package's own
        # an alias's own line (its `lineno` is its target's: resolving it may fail)
        line = None if member is None else member.alias_lineno if member.is_alias else member.lineno
        if _replace(mod, name, griffe.Alias(name, target, lineno=line, parent=mod), member):
            rebound.append(f"{mod.path}.{name}")
    if rebound:
        _renew_aliases(mods, set(rebound))
    return len(rebound)


def _renew_aliases(modules: list[Any], changed: set[str]) -> None:
    """Replace every module-level alias that leads to a rebound name by a new one: griffe
    keeps what an alias resolved to (an ``__all__`` listing a re-export is resolved while
    the package loads), so ``pkg.comports`` would still lead to the last branch's function
    that ``pkg.ports.comports`` no longer names."""
    aliases = [
        (mod, name, member)
        for mod in modules
        for name, member in list(mod.members.items())
        if member.is_alias
    ]
    while changed:
        renewed: set[str] = set()
        for mod, name, member in aliases:
            if member.target_path in changed and mod.members.get(name) is member:
                fresh = griffe.Alias(name, member.target_path, lineno=member.alias_lineno, parent=mod)
                if _replace(mod, name, fresh, member):
                    renewed.add(f"{mod.path}.{name}")
        changed = renewed - changed


def _replace(mod: Any, name: str, new: Any, old: Any) -> bool:
    """Bind ``name`` of ``mod`` to ``new``; False, with ``old`` kept, when griffe refuses.
    The old member goes out first: griffe's ``set_member`` looks at what it replaces, and an
    alias of another package's object (trio's ``from typing import final`` under
    ``TYPE_CHECKING``) cannot resolve."""
    try:
        mod.members.pop(name, None)
        mod.set_member(name, new)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, KeyError, ValueError) as error:
        logger.info("%s.%s is left as read: %s", mod.path, name, error)
        if old is not None:
            mod.members[name] = old
        return False
    return True


OTHER_PLATFORM = "other platform"  # ApiEntry.internal of what another branch would bind


def _mark_not_taken(mod: Any, paths: set[str], taken: str) -> None:
    """Mark the package's definitions the other branches bind (pySerial's
    ``serialwin32.Serial`` and ``serialjava.Serial`` where ``serialposix.Serial`` is taken)
    as what another platform or version would use (:func:`not_taken`)."""
    for path in paths:
        found = _lookup(mod, path)
        if found is not None and not found.is_alias and found.path != taken:
            found.extra[EXTRA]["not_taken"] = taken


def _lend_docstring(mod: Any, taken: str, others: set[str]) -> None:
    """Describe the taken definition, when it says nothing, by the words another branch's
    definition of the name has: a compiled function's stub (wcwidth's ``_wcwidth_c.width``,
    bound when the C extension loads) has no docstring where the pure-Python fallback of the
    other branch documents the same API in full."""
    found = _lookup(mod, taken)
    if found is None or found.is_alias or (found.docstring is not None and found.docstring.value.strip()):
        return
    for path in sorted(others):
        other = _lookup(mod, path)
        if other is not None and other.is_alias:
            try:
                other = other.final_target
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
        if other is None or other.kind is not found.kind or other.path == found.path:
            continue
        if other.docstring is not None and other.docstring.value.strip():
            found.docstring = griffe.Docstring(other.docstring.value, parent=found)
            return


def not_taken(obj: Any) -> str | None:
    """The path taken in place of ``obj``, or of the class or module it is in, where the
    library picks one of several by platform or version (:func:`bind_as_run`); else None."""
    while obj is not None:
        if not getattr(obj, "is_alias", False):
            taken = obj.extra.get(EXTRA, {}).get("not_taken")
            if taken is not None:
                return str(taken)
        obj = getattr(obj, "parent", None)
    return None


def _lookup(mod: Any, path: str) -> Any:
    """The object ``path`` names in the loaded package, or None."""
    collection = mod.modules_collection
    try:
        return collection[path]
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError, ValueError):
        return None


def _branch_bindings(mod: Any) -> dict[str, set[str]]:
    """The public names the module's top level binds in two branches or more of one ``if``
    chain (an ``elif`` is a branch of the chain it continues), each with the paths those
    branches bind it to by an import or a ``def``/``class`` (an assignment's value is none)."""
    text = module_text(mod, stubs=False) if mod.name != "__main__" else None
    if text is None or not (text.startswith("if ") or "\nif " in text):
        return {}  # no `if` at the top level: not parsed (most modules)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    package = bool(getattr(mod, "is_init_module", False))
    out: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If):
            seen: dict[str, int] = {}
            paths: dict[str, set[str]] = {}
            for branch in _branches(node):
                for name, targets in _bound(branch, mod.path, package).items():
                    seen[name] = seen.get(name, 0) + 1
                    paths.setdefault(name, set()).update(targets)
            for name, count in seen.items():
                if count >= 2 and not name.startswith("_"):
                    out.setdefault(name, set()).update(paths[name])
    return out


def _branches(node: ast.If) -> list[list[ast.stmt]]:
    """The statement lists of an ``if``/``elif``/``else`` chain, nested ``if``s of a branch
    (``else: import os; if os.name == "nt": …``) read as branches of their own."""
    out: list[list[ast.stmt]] = []
    todo: list[list[ast.stmt]] = [node.body, node.orelse]
    while todo:
        body = todo.pop()
        plain = [s for s in body if not isinstance(s, ast.If)]
        if plain:
            out.append(plain)
        for s in body:
            if isinstance(s, ast.If):
                todo += [s.body, s.orelse]
    return out


def _bound(body: list[ast.stmt], module: str, package: bool) -> dict[str, set[str]]:
    """The names a list of statements binds at its level (imports, defs, classes,
    assignments to a name; ``try`` blocks included), each with the paths an import or a
    definition binds it to."""
    names: dict[str, set[str]] = {}
    for s in body:
        if isinstance(s, ast.ImportFrom):
            source = _absolute(s.module, s.level, module, package)
            for a in s.names:
                if a.name != "*":
                    found = {f"{source}.{a.name}"} if source else set()
                    names.setdefault(a.asname or a.name, set()).update(found)
        elif isinstance(s, ast.Import):
            for a in s.names:
                names.setdefault((a.asname or a.name).split(".")[0], set())
        elif isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.setdefault(s.name, set()).add(f"{module}.{s.name}")
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    names.setdefault(t.id, set())
        elif isinstance(s, ast.Try):
            for part in (s.body, s.orelse, *(h.body for h in s.handlers)):
                for name, paths in _bound(part, module, package).items():
                    names.setdefault(name, set()).update(paths)
    return names


def _absolute(source: str | None, level: int, module: str, package: bool) -> str | None:
    """The module an ``from … import`` reads, as a dotted path (``from .posix import x`` in
    ``pkg/__init__.py``: ``pkg.posix``); None when it climbs past the top."""
    if level == 0:
        return source
    parts = module.split(".") if package else module.split(".")[:-1]
    if level - 1 >= len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, source] if source else base)
