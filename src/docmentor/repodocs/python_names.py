"""The import names of a Python repository's files and folders, and its package units
(folders with modules of their own, and Python packages' folders above them); see
``units.py`` for the ids.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from docmentor.repodocs.units import REPOSITORY_ID, Module, Package, children_hash


class ImportNames:
    """Each file's and folder's import name, and the root qualifier when two import roots
    provide the same top-level name (see ``units.py``)."""

    def __init__(self, root: Path, files: Sequence[str]) -> None:
        folders = {str(Path(f).parent.as_posix()) for f in files}
        self.modules = {f.removesuffix(".py") for f in files}
        ancestors = {a for f in folders for a in _ancestors(f)}
        self.initialised = {
            a for a in ancestors | folders if a != "." and (root / a / "__init__.py").is_file()
        }
        self._in_package: dict[str, bool] = {}
        roots: dict[str, set[str]] = defaultdict(set)
        for f in files:
            import_root, dotted = self.split(f)
            roots[dotted.split(".")[0]].add(import_root)
        self.ambiguous = {top for top, where in roots.items() if len(where) > 1}

    def in_package(self, folder: str) -> bool:
        """A folder with ``__init__.py``, or inside one (a namespace sub-package, unless a
        module of its name beside it hides it)."""
        if folder == ".":
            return False
        known = self._in_package.get(folder)
        if known is None:
            parent = Path(folder).parent.as_posix()
            known = folder in self.initialised or (folder not in self.modules and self.in_package(parent))
            self._in_package[folder] = known
        return known

    def split(self, rel: str) -> tuple[str, str]:
        """(import root folder, dotted import name) of a file or a package folder."""
        path = Path(rel)
        parts = [path.stem if path.suffix == ".py" else path.name]
        folder = path.parent.as_posix()
        while self.in_package(folder):
            parts.insert(0, Path(folder).name)
            folder = Path(folder).parent.as_posix()
        return folder, ".".join(parts)

    def module_id(self, rel: str) -> tuple[str, str]:
        """(id, import name) of the module in file ``rel``."""
        import_root, dotted = self.split(rel)
        return self.qualify(import_root, dotted), dotted

    def qualify(self, import_root: str, dotted: str) -> str:
        return f"{import_root}:{dotted}" if dotted.split(".")[0] in self.ambiguous else dotted

    def package_id(self, folder: str) -> tuple[str, bool]:
        """(id, python_package) of a folder."""
        if self.in_package(folder):
            import_root, dotted = self.split(folder)
            return self.qualify(import_root, dotted), True
        return folder + "/", False


def _ancestors(folder: str) -> Iterator[str]:
    path = Path(folder)
    while path.as_posix() != ".":
        yield path.as_posix()
        path = path.parent


def package_units(names: ImportNames, modules: list[Module]) -> tuple[list[Package], list[Module]]:
    """The package units (folders with modules of their own, and Python packages' folders
    above them), and the modules with their package set."""
    by_folder: dict[str, list[Module]] = defaultdict(list)
    for m in modules:
        by_folder[Path(m.path).parent.as_posix()].append(m)
    unit_folders = {f for f in by_folder if f != "."}
    for f in list(unit_folders):  # a Python package's enclosing packages are units too
        unit_folders |= {a for a in _ancestors(f) if names.in_package(a)}

    def owner(folder: str) -> str:
        for a in _ancestors(folder):
            if a in unit_folders:
                return names.package_id(a)[0]
        return REPOSITORY_ID

    modules = [replace(m, package=owner(Path(m.path).parent.as_posix())) for m in modules]
    children: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for m in modules:
        children[m.package].append((m.id, m.content_hash))
    packages: list[Package] = []
    # deepest first, so a package's sub-packages have their hashes before it
    for folder in sorted(unit_folders, key=lambda f: (-f.count("/"), f)):
        pid, python = names.package_id(folder)
        parent = owner(Path(folder).parent.as_posix())
        kids = children[pid]
        package = Package(
            pid,
            Path(folder).name,
            folder,
            parent,
            python,
            children_hash(kids),
            tuple(sorted(k for k, _ in kids)),
        )
        packages.append(package)
        children[parent].append((pid, package.content_hash))
    return packages, modules
