"""A repository's TypeScript/JavaScript, Go and Rust files read into modules and components:
their module ids, the import resolution each language needs (relative specifiers, ``go.mod``,
Rust crates), the readers (``ts_units``, ``go_units``, ``rust_units``), methods attached to
their types across files, and each file's facts for ``code_facts``.

Module ids (``units.py``): the file's path without its suffix, ``/`` → ``.`` and other dots
in a name → ``-`` (``src/geo/shapes.ts`` → ``src.geo.shapes``, ``lib/x.d.ts`` → ``lib.x-d``);
when two files would share an id (``a.ts`` and ``a.js``, or a Python module of that id), and
for a file beside a folder of its name (``src/geo.ts`` beside ``src/geo/``: its components'
ids could be the folder's modules'), the file's id gets its suffix after a ``~``
(``src.a~ts``, ``src.geo~ts``). Their folders are packages by
path (``src/geo/``) as Python's plain folders are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from docmentor.repodocs.go_units import read_go
from docmentor.repodocs.rust_units import read_rust, rust_module_path
from docmentor.repodocs.treesitter_units import (
    GRAMMARS,
    FileFacts,
    MethodGroup,
    attach_methods,
    language_of,
    parse,
    suffix_of,
)
from docmentor.repodocs.ts_units import read_ts
from docmentor.repodocs.units import Component, Module, Problem

_TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_GO_MODULE_LINE = "module "


@dataclass
class ForeignRead:
    """What the non-Python files gave: modules, components, problems."""

    modules: list[Module] = field(default_factory=list)
    components: list[Component] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def module_ids(files: Sequence[str], taken: set[str]) -> dict[str, str]:
    """Each non-Python file's module id (see the module docstring); ``taken``: the Python ids."""
    plain: dict[str, str] = {}
    for rel in files:
        path = PurePosixPath(rel)
        parts = [p.replace(".", "-") for p in path.parent.parts]
        stem = path.name[: len(path.name) - len(suffix_of(rel))]
        plain[rel] = ".".join([*parts, stem.replace(".", "-")])
    count: dict[str, int] = defaultdict(int)
    for unit_id in plain.values():
        count[unit_id] += 1
    # a file beside a folder of its name (src/geo.ts, src/geo/): its components' ids would be
    # the folder's modules' ids (src.geo.util)
    folders = {
        ".".join(p.replace(".", "-") for p in PurePosixPath(r).parent.parts[: k + 1])
        for r in files
        for k in range(len(PurePosixPath(r).parent.parts))
    }
    folders |= {".".join(t.split(".")[:k]) for t in taken for k in range(1, t.count(".") + 1)}
    return {
        rel: f"{unit_id}~{suffix_of(rel)[1:]}"
        if count[unit_id] > 1 or unit_id in taken or unit_id in folders or _under(unit_id, taken)
        else unit_id
        for rel, unit_id in plain.items()
    }


def _under(unit_id: str, taken: set[str]) -> bool:
    """An id inside a Python module's (``x.f`` beside ``x.py``: ``x.f`` names its function)."""
    parts = unit_id.split(".")
    return any(".".join(parts[:k]) in taken for k in range(1, len(parts)))


def read_foreign(
    root: Path, texts: dict[str, bytes], taken: set[str], package_id: Callable[[str], str]
) -> ForeignRead:
    """The modules and components of the non-Python files ``texts`` (path → bytes);
    ``taken``: the Python modules' ids; ``package_id``: a folder's package unit id."""
    ids = module_ids(sorted(texts), taken)
    out = ForeignRead()
    groups: list[MethodGroup] = []
    parsed: dict[str, str] = {}  # path → module id, of the files that parse
    trees = {}
    for rel in sorted(texts):
        tree, error = parse(rel, texts[rel])
        if error:  # not read, or read around a syntax error (then not skipped)
            out.problems.append(Problem(rel, error, skipped=tree is None))
        if tree is None:
            continue
        trees[rel] = tree
        parsed[rel] = ids[rel]
    go_folders = {PurePosixPath(r).parent.as_posix() for r in parsed if r.endswith(".go")}
    go_modules = _go_modules(root, go_folders)
    crates: dict[tuple[str, tuple[str, ...]], str] = {}
    for rel, unit_id in parsed.items():
        if rel.endswith(".rs"):
            crates.setdefault(rust_module_path(rel), unit_id)
    for rel, tree in trees.items():
        lang = language_of(rel)
        unit_id = parsed[rel]
        if lang in ("typescript", "javascript"):
            ts = read_ts(rel, texts[rel], tree, unit_id, _ts_resolver(rel, parsed))
            out.modules.append(ts.module)
            out.components += ts.components
        elif lang == "go":
            go = read_go(rel, texts[rel], tree, unit_id, _go_resolver(go_modules, go_folders, package_id))
            out.modules.append(go.module)
            out.components += go.components
            groups += go.groups
        elif lang == "rust":
            rust = read_rust(rel, texts[rel], tree, unit_id, _rust_resolver(rel, crates))
            out.modules.append(rust.module)
            out.components += rust.components
            groups += rust.groups
    if groups:
        out.components, top = attach_methods(out.components, groups, _scopes(out.modules))
        out.modules = [
            replace(m, components=m.components + tuple(top[m.id])) if m.id in top else m for m in out.modules
        ]
    return out


def file_facts(rel: str, data: bytes) -> FileFacts | None:
    """One non-Python file's facts (None when it does not parse)."""
    if suffix_of(rel) not in GRAMMARS:
        return None
    tree, _ = parse(rel, data)
    if tree is None:
        return None
    lang = language_of(rel)
    if lang in ("typescript", "javascript"):
        return read_ts(rel, data, tree, "m", lambda _: None).facts
    if lang == "go":
        return read_go(rel, data, tree, "m", lambda _: None).facts
    return read_rust(rel, data, tree, "m", lambda _: None).facts


def _scopes(modules: list[Module]) -> dict[str, list[str]]:
    """Where a method's type may be declared: a Go file's package (its folder's ``.go``
    files), a Rust file's crate."""
    by_scope: dict[tuple[str, str], list[str]] = defaultdict(list)
    key: dict[str, tuple[str, str]] = {}
    for m in sorted(modules, key=lambda m: m.id):
        if m.path.endswith(".go"):
            key[m.id] = ("go", PurePosixPath(m.path).parent.as_posix())
        elif m.path.endswith(".rs"):
            key[m.id] = ("rust", rust_module_path(m.path)[0])
        else:
            continue
        by_scope[key[m.id]].append(m.id)
    return {unit_id: by_scope[k] for unit_id, k in key.items()}


def _ts_resolver(rel: str, parsed: dict[str, str]) -> Callable[[str], str | None]:
    folder = PurePosixPath(rel).parent

    def resolve(spec: str) -> str | None:
        parts: list[str] = []
        for part in (*folder.parts, *PurePosixPath(spec).parts):
            if part == "..":
                if not parts:
                    return None
                parts.pop()
            elif part not in (".", ""):
                parts.append(part)
        base = "/".join(parts)
        stems = [base]
        for ext in (".js", ".jsx", ".mjs", ".cjs"):  # ESM TypeScript imports `./x.js` for x.ts
            if base.endswith(ext):
                stems.append(base[: -len(ext)])
        for stem in stems:
            for candidate in (
                stem,
                *(stem + s for s in _TS_SUFFIXES),
                *(f"{stem}/index{s}" for s in _TS_SUFFIXES),
            ):
                if candidate in parsed and language_of(candidate) in ("typescript", "javascript"):
                    return parsed[candidate]
        return None

    return resolve


def _go_modules(root: Path, folders: set[str]) -> list[tuple[str, str]]:
    """(folder, module path) of every ``go.mod`` at or above a folder with Go files, longest
    folder first."""
    found: dict[str, str] = {}
    candidates = {a for f in folders for a in [*(p.as_posix() for p in PurePosixPath(f).parents), f]}
    for folder in sorted(candidates):
        path = root / folder / "go.mod"
        try:
            text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        except OSError:
            continue
        for raw in text.splitlines():
            stripped = raw.strip()
            if stripped.startswith(_GO_MODULE_LINE):
                found[folder] = stripped[len(_GO_MODULE_LINE) :].strip().strip('"')
                break
    return sorted(found.items(), key=lambda item: (-len(item[0]), item[0]))


def _go_resolver(
    modules: list[tuple[str, str]], folders: set[str], package_id: Callable[[str], str]
) -> Callable[[str], str | None]:
    def resolve(import_path: str) -> str | None:
        for folder, module_path in modules:
            if import_path == module_path:
                rest = ""
            elif import_path.startswith(module_path + "/"):
                rest = import_path[len(module_path) + 1 :]
            else:
                continue
            target = "/".join(p for p in (folder, rest) if p and p != ".") or "."
            if target in folders and target != ".":
                return package_id(target)
            return None
        return None

    return resolve


def _rust_resolver(
    rel: str, crates: dict[tuple[str, tuple[str, ...]], str]
) -> Callable[[tuple[str, ...]], tuple[str, int] | None]:
    crate = rust_module_path(rel)[0]

    def resolve(parts: tuple[str, ...]) -> tuple[str, int] | None:
        for k in range(len(parts), -1, -1):
            found = crates.get((crate, parts[:k]))
            if found is not None:
                return found, k
        return None

    return resolve
