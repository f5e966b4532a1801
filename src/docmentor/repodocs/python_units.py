"""Read a Python repository's folder into its units (``units.py``): which files, and each
file's text.

What is read: every ``*.py`` file under the root, in sorted order, except in hidden folders
(``.git``, ``.venv``, …), ``venv``, ``node_modules``, ``build``, ``dist``, ``__pycache__``
and ``site-packages``; symlinked folders are not followed, symlinked files only when they
point inside the root. A file is not read, and is reported in ``RepoUnits.problems`` with its
path and the reason, when it is larger than ``max_bytes``, holds a NUL byte (binary), or does
not parse (the syntax error and its line). A file that is not valid text in its declared
encoding (UTF-8 unless a PEP 263 ``coding:`` line says otherwise) is read with replacement
characters and reported too (``skipped=False``). Nothing here raises on a file's content;
only a root that is not a folder raises ``NotADirectoryError``.

Each file's import name and the package units are ``python_names.py``'s; what one module
defines (components, parameters, calls, raises, attributes) is ``python_reader.py``'s.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
from collections.abc import Sequence
from pathlib import Path

from docmentor.repodocs.python_names import ImportNames, package_units
from docmentor.repodocs.python_reader import ModuleReader, format_parameters
from docmentor.repodocs.units import (
    REPOSITORY_ID,
    Component,
    Module,
    Problem,
    Repository,
    RepoUnits,
    children_hash,
)

__all__ = ["DEFAULT_MAX_BYTES", "SKIP_DIRS", "discover", "format_parameters", "read_repository"]

SKIP_DIRS = frozenset({"venv", "node_modules", "build", "dist", "__pycache__", "site-packages"})
DEFAULT_MAX_BYTES = 1_000_000


def discover(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[list[str], list[Problem]]:
    """The ``.py`` files to read (paths relative to ``root``, "/"-separated, sorted) and the
    files passed over for their size."""
    root = root.resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"not a folder: {root}")
    found: list[str] = []
    problems: list[Problem] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        base = Path(folder)
        for name in sorted(files):
            if not name.endswith(".py") or name.startswith("."):
                continue
            path = base / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(root) or not target.is_file():
                    problems.append(Problem(rel, "a symlink to outside the repository"))
                    continue
            size = path.stat().st_size
            if size > max_bytes:
                problems.append(Problem(rel, f"larger than the size cap ({size} > {max_bytes} bytes)"))
                continue
            found.append(rel)
    return found, problems


def read_repository(
    root: Path, *, files: Sequence[str] | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> RepoUnits:
    """Every unit of the repository at ``root``. ``files``: the relative paths to read
    (default: ``discover``'s); their order does not matter."""
    root = root.resolve()
    problems: list[Problem] = []
    if files is None:
        files, problems = discover(root, max_bytes=max_bytes)
    readable: list[str] = []
    for rel in sorted(set(files)):
        why = _refused(root, rel, max_bytes)
        if why is None:
            readable.append(rel)
        else:
            problems.append(Problem(rel, why))
    names = ImportNames(root, readable)
    modules: list[Module] = []
    components: list[Component] = []
    for rel in readable:
        text, problem = _read_text(root / rel)
        if problem is not None:
            problems.append(Problem(rel, problem.error, problem.skipped))
        if text is None:
            continue
        try:
            tree = ast.parse(text, filename=rel)
        except (SyntaxError, ValueError) as exc:
            where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
            problems.append(Problem(rel, f"does not parse: {exc.__class__.__name__}: {_message(exc)}{where}"))
            continue
        module, found = ModuleReader(rel, text, tree, names).read()
        modules.append(module)
        components += found
    packages, modules = package_units(names, modules)
    top = sorted(
        [p.id for p in packages if p.parent == REPOSITORY_ID]
        + [m.id for m in modules if m.package == REPOSITORY_ID]
    )
    hashes = {p.id: p.content_hash for p in packages} | {m.id: m.content_hash for m in modules}
    package_name = root.name if (root / "__init__.py").is_file() and root.name.isidentifier() else None
    repository = Repository(root.name, children_hash([(c, hashes[c]) for c in top]), tuple(top), package_name)
    return RepoUnits(
        repository,
        tuple(sorted(packages, key=lambda p: p.id)),
        tuple(sorted(modules, key=lambda m: m.id)),
        tuple(sorted(components, key=lambda c: c.id)),
        tuple(sorted(problems, key=lambda p: (p.path, p.error))),
    )


def _refused(root: Path, rel: str, max_bytes: int) -> str | None:
    """Why a given file is not read: outside the root, missing, too large, or a module a
    package of the same name hides."""
    path = root / rel
    if Path(rel).is_absolute() or ".." in Path(rel).parts or not rel.endswith(".py"):
        return "not a .py file inside the repository"
    if not path.is_file():
        return "no such file"
    size = path.stat().st_size
    if size > max_bytes:
        return f"larger than the size cap ({size} > {max_bytes} bytes)"
    if (path.parent / path.stem / "__init__.py").is_file():
        return f"hidden by the package {Path(rel).with_suffix('').as_posix()}/ (Python imports the package)"
    return None


def _message(exc: Exception) -> str:
    return exc.msg if isinstance(exc, SyntaxError) else str(exc)


def _read_text(path: Path) -> tuple[str | None, Problem | None]:
    """The file's text, and a problem when it is binary or unreadable (no text) or had to be
    decoded with replacement characters (the text, and the problem with ``skipped=False``)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, Problem("", f"cannot be read: {exc.strerror or exc}")
    if b"\0" in data:
        return None, Problem("", "binary file (it holds a NUL byte)")
    note: str | None = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown coding, or no coding line and not UTF-8
        encoding = "utf-8"
        note = f"{exc.msg}; read as UTF-8" if "unknown encoding" in (exc.msg or "") else None
    if encoding == "utf-8-sig":
        encoding = "utf-8"
        data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        why = f"not valid {encoding} (byte {exc.start}); read with replacement characters"
        return data.decode(encoding, errors="replace"), Problem("", why, skipped=False)
    return text, None if note is None else Problem("", note, skipped=False)
