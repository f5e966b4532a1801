"""Read a repository's folder into its units (``units.py``): which files, and each file's text;
Python modules here, TypeScript/JavaScript, Go and Rust ones through ``treesitter_repo``.

What is read: every ``*.py``, ``.ts .tsx .mts .cts .js .jsx .mjs .cjs``, ``.go`` and ``.rs``
file under the root, in sorted order, except in hidden folders (``.git``, ``.venv``, …),
``venv``, ``node_modules``, ``vendor``, ``target``, ``build``, ``dist``, ``__pycache__`` and
``site-packages``, and what a ``.gitignore`` (the root's and each folder's, git's precedence)
ignores; symlinked folders are not followed, symlinked files only when they point inside the
root. A file is not read, and is reported in ``RepoUnits.problems`` with its path and the
reason, when it is larger than ``max_bytes``, holds a NUL byte (binary), or does not parse
(the syntax error and its line; for the other languages, also when tree-sitter's grammars
are not installed). A file that is not valid text in its declared encoding (UTF-8 unless a
PEP 263 ``coding:`` line says otherwise; UTF-8 for the other languages) is read with
replacement characters and reported too (``skipped=False``). Nothing here raises on a file's
content; only a root that is not a folder raises ``NotADirectoryError``.

Each Python file's import name and the package units are ``python_names.py``'s; what one
module defines (components, parameters, calls, raises, attributes) is ``python_reader.py``'s.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
from collections.abc import Sequence
from pathlib import Path

from pathspec import GitIgnoreSpec

from docmentor.repodocs.python_names import ImportNames, package_units
from docmentor.repodocs.python_reader import ModuleReader, format_parameters
from docmentor.repodocs.treesitter_repo import read_foreign
from docmentor.repodocs.treesitter_units import SUFFIXES
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

SKIP_DIRS = frozenset(
    {"venv", "node_modules", "vendor", "target", "build", "dist", "__pycache__", "site-packages"}
)
DEFAULT_MAX_BYTES = 1_000_000


def discover(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[list[str], list[Problem]]:
    """The source files to read (paths relative to ``root``, "/"-separated, sorted) and the
    files passed over for their size."""
    root = root.resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"not a folder: {root}")
    found: list[str] = []
    problems: list[Problem] = []
    rules: dict[str, tuple[tuple[str, GitIgnoreSpec], ...]] = {}
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        prefix = "" if base == root else base.relative_to(root).as_posix() + "/"
        active = rules.get(prefix, ())
        if ".gitignore" in files:
            spec = _gitignore(base / ".gitignore")
            if spec is not None:
                active = (*active, (prefix, spec))
        kept = [
            d
            for d in dirs
            if not d.startswith(".") and d not in SKIP_DIRS and not _ignored(f"{prefix}{d}/", active)
        ]
        dirs[:] = sorted(kept)
        for d in dirs:
            rules[f"{prefix}{d}/"] = active
        for name in sorted(files):
            if not name.endswith(SUFFIXES) or name.startswith(".") or _ignored(prefix + name, active):
                continue
            path = base / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                try:
                    target = path.resolve()
                except (OSError, RuntimeError):  # a loop of links (RuntimeError before 3.13)
                    problems.append(Problem(rel, "a symlink that never reaches a file (a loop)"))
                    continue
                if not target.is_relative_to(root) or not target.is_file():
                    problems.append(Problem(rel, "a symlink to outside the repository"))
                    continue
            try:
                size = path.stat().st_size
            except OSError as exc:  # gone since the walk listed it, or unreadable
                problems.append(Problem(rel, f"cannot be read: {exc.strerror or exc}"))
                continue
            if size > max_bytes:
                problems.append(Problem(rel, f"larger than the size cap ({size} > {max_bytes} bytes)"))
                continue
            found.append(rel)
    return found, problems


def _gitignore(path: Path) -> GitIgnoreSpec | None:
    try:
        return GitIgnoreSpec.from_lines(path.read_text(encoding="utf-8", errors="replace").splitlines())
    except OSError:
        return None


def _ignored(rel: str, rules: tuple[tuple[str, GitIgnoreSpec], ...]) -> bool:
    """Git's precedence: the deepest ``.gitignore`` with a matching pattern decides."""
    for prefix, spec in reversed(rules):
        verdict = spec.check_file(rel[len(prefix) :]).include
        if verdict is not None:
            return verdict
    return False


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
    python = [rel for rel in readable if rel.endswith(".py")]
    names = ImportNames(root, python)
    modules: list[Module] = []
    components: list[Component] = []
    for rel in python:
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
    foreign: dict[str, bytes] = {}
    for rel in readable:
        if not rel.endswith(".py"):
            data, problem = _read_bytes(root / rel)
            if problem is not None:
                problems.append(Problem(rel, problem.error, problem.skipped))
            if data is not None:
                foreign[rel] = data
    if foreign:
        read = read_foreign(
            root, foreign, {m.id for m in modules}, lambda folder: names.package_id(folder)[0]
        )
        modules += read.modules
        components += read.components
        problems += read.problems
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
    if Path(rel).is_absolute() or ".." in Path(rel).parts or not rel.endswith(SUFFIXES):
        # the words the Python-only reader used; a .ts/.js/.go/.rs file is read as well
        return "not a .py file inside the repository"
    if not path.is_file():
        return "no such file"
    size = path.stat().st_size
    if size > max_bytes:
        return f"larger than the size cap ({size} > {max_bytes} bytes)"
    if rel.endswith(".py") and (path.parent / path.stem / "__init__.py").is_file():
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


def _read_bytes(path: Path) -> tuple[bytes | None, Problem | None]:
    """A non-Python file's bytes (read as UTF-8 later), and a problem when it is binary or
    unreadable (no bytes) or not valid UTF-8 (the bytes, and ``skipped=False``)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, Problem("", f"cannot be read: {exc.strerror or exc}")
    if b"\0" in data:
        return None, Problem("", "binary file (it holds a NUL byte)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data, Problem(
            "", f"not valid utf-8 (byte {exc.start}); read with replacement characters", skipped=False
        )
    return data, None
