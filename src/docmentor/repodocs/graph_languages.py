"""What a name means in a TypeScript/JavaScript, Go or Rust module, for ``graph.py``'s edges.

A dotted name (a call as written, a base class) is resolved in the module of the file it is
written in, in this order: the definitions in scope (the module's top-level ones; for Go, the
whole package's: every ``.go`` file of its folder), the module's ``export default`` alias,
its imports (an in-repository target: the imported module's own definitions, aliases and
imports in turn — re-exports, ``export * from`` — or, for a Go package, its definitions; a
namespace import, ``require`` or Rust module ``use`` binds the module itself), then its
``export * from`` / ``use x::*`` modules. Rust paths from ``crate`` and ``super`` are
resolved against the crate's files. What an import from outside the repository binds is
external (``react.useState``, ``fmt.Println``, ``std.fmt.Display``); anything else (locals,
parameters, globals such as ``console``, builtins such as ``len``) is nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import PurePosixPath

from docmentor.repodocs.rust_units import rust_module_path
from docmentor.repodocs.treesitter_units import language_of
from docmentor.repodocs.units import ImportRef, Module, RepoUnits

# (in-repository unit id, external dotted name): one of the two is set
Resolved = tuple[str | None, str | None]
MAX_HOPS = 12  # re-exports followed at most this deep (a cycle of them ends)


def is_foreign(path: str) -> bool:
    """A file read through tree-sitter (not Python)."""
    lang = language_of(path)
    return lang is not None and lang != "python"


def base_name(text: str) -> str:
    """A base as written made a dotted name: ``fmt::Display`` → ``fmt.Display``, ``Base<T>``
    → ``Base``, ``*pkg.Base`` → ``pkg.Base``."""
    head = text.split("<", 1)[0].split("(", 1)[0].strip().lstrip("*&").strip()
    return head.replace("::", ".")


class ForeignNames:
    """Name resolution in the repository's non-Python modules."""

    def __init__(
        self,
        repo: RepoUnits,
        members: dict[str, dict[str, str]],
        lookup: Callable[[str, str], str | None],
    ) -> None:
        self.members = members
        self.lookup = lookup
        self.modules: dict[str, Module] = {m.id: m for m in repo.modules if is_foreign(m.path)}
        self.by_path = {m.path: m.id for m in self.modules.values()}
        self.packages: dict[str, list[str]] = defaultdict(list)  # Go package id → its modules
        folders = {p.path: p.id for p in repo.packages}
        scope: dict[str, list[str]] = defaultdict(list)
        self.crates: dict[tuple[str, tuple[str, ...]], str] = {}
        for m in sorted(self.modules.values(), key=lambda m: m.id):
            if m.path.endswith(".go"):
                folder = PurePosixPath(m.path).parent.as_posix()
                scope[folder].append(m.id)
                if folder in folders:
                    self.packages[folders[folder]].append(m.id)
            elif m.path.endswith(".rs"):
                self.crates.setdefault(rust_module_path(m.path), m.id)
        self.scope: dict[str, list[str]] = {}
        for m in self.modules.values():
            folder = PurePosixPath(m.path).parent.as_posix()
            self.scope[m.id] = scope[folder] if m.path.endswith(".go") else [m.id]
        self.bindings: dict[str, dict[str, ImportRef]] = {}
        self.stars: dict[str, list[str]] = {}
        self.aliases: dict[str, dict[str, str]] = {}
        for m in self.modules.values():
            self.bindings[m.id] = {i.bound: i for i in m.imports if i.name != "*" and (i.name or i.alias)}
            self.stars[m.id] = [i.target for i in m.imports if i.name == "*"]
            self.aliases[m.id] = dict(m.aliases)

    def file_module(self, path: str) -> str | None:
        """The module of the file ``path`` (a Go method's type may be in another file)."""
        return self.by_path.get(path)

    def import_target(self, ref: ImportRef) -> tuple[str | None, str | None]:
        """(the module or package unit an import names, else its external dotted name)."""
        if ref.target in self.modules or ref.target in self.packages:
            return ref.target, None
        if ref.level or ref.target.startswith("."):
            return None, None  # a relative import of a file that is not read
        name = ref.name if ref.name not in (None, "*", "default") else None
        return None, ref.target + (f".{name}" if name else "")

    def resolve(self, module: str, name: str, hops: int = 0) -> Resolved | None:
        """What the dotted ``name`` means in ``module`` (see the module docstring)."""
        if not name or hops > MAX_HOPS or module not in self.modules:
            return None
        head, _, rest = name.partition(".")
        if head in ("crate", "super") and self.modules[module].path.endswith(".rs"):
            return self._rust_path(module, head, rest, hops)
        for scope in self.scope[module]:
            found = self.members.get(scope, {}).get(head)
            if found is not None:
                return self._within(found, rest)
        alias = self.aliases[module].get(head)
        if alias is not None and alias != head:
            return self.resolve(module, alias + (f".{rest}" if rest else ""), hops + 1)
        ref = self.bindings[module].get(head)
        if ref is not None:
            return self._imported(ref, rest, hops)
        for star in self.stars[module]:
            if star in self.modules:
                found_star = self.resolve(star, name, hops + 1)
                if found_star is not None and found_star[0] is not None:
                    return found_star
        return None

    def _imported(self, ref: ImportRef, rest: str, hops: int) -> Resolved | None:
        target, external = self.import_target(ref)
        if external is not None:
            return None, external + (f".{rest}" if rest else "")
        if target is None:
            return None
        if target in self.packages:  # Go: pkg.Name
            head, _, inner = rest.partition(".")
            for module in self.packages[target]:
                found = self.members.get(module, {}).get(head)
                if found is not None:
                    return self._within(found, inner)
            return None
        dotted = ".".join(p for p in (ref.name, rest) if p)
        if not dotted:
            return target, None  # the module itself
        return self.resolve(target, dotted, hops + 1)

    def _within(self, unit_id: str, rest: str) -> Resolved | None:
        for part in rest.split(".") if rest else []:
            found = self.members.get(unit_id, {}).get(part) or self.lookup(unit_id, part)
            if found is None:
                return None
            unit_id = found
        return unit_id, None

    def _rust_path(self, module: str, head: str, rest: str, hops: int) -> Resolved | None:
        crate, parts = rust_module_path(self.modules[module].path)
        base = () if head == "crate" else parts[:-1]
        names = tuple(p for p in rest.split(".") if p)
        full = (*base, *names)
        for k in range(len(full), len(base) - 1, -1):
            found = self.crates.get((crate, full[:k]))
            if found is not None:
                inner = ".".join(full[k:])
                return (found, None) if not inner else self.resolve(found, inner, hops + 1)
        return None
