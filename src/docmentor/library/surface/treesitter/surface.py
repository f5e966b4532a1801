"""Reading a source folder: every file through its language's reader, then the links
across files (re-export aliases, bases, return classes), wrapped in :class:`SourceApiSurface`."""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import cast

from docmentor.errors import SourceUnavailableError
from docmentor.library.models import ApiEntry
from docmentor.library.surface.treesitter.core import (
    Collector,
    SourceFile,
    SourceLanguage,
    core_type,
    detect_language,
    grammar_parser,
    module_of,
    normalize_source_language,
    source_files,
)
from docmentor.library.surface.treesitter.go import collect_go_file
from docmentor.library.surface.treesitter.rust import collect_rust_items, drop_unreachable
from docmentor.library.surface.treesitter.typescript import JsCollector

logger = logging.getLogger(__name__)

_MAX_BYTES = 1_000_000  # larger files are bundles or generated code


# -- after all files: aliases, bases, return classes --------------------------------------------


def _finish(c: Collector, language: SourceLanguage) -> list[ApiEntry]:
    """The collected entries, linked across files: public paths through re-exports, Rust
    ``impl`` members under their type, bases and return classes resolved, aliases added."""
    _follow_reexports(c, language)
    classes = _ClassFinder(c)
    _move_impl_members(c, classes)
    _resolve_types(c, classes)
    if language in ("typescript", "javascript"):
        _callable_consts(c, classes)
    _add_aliases(c)
    if language in ("typescript", "javascript"):
        _underscored_helpers(c)
    if language == "rust":
        drop_unreachable(c)
    return list(c.entries.values())


def _underscored_helpers(c: Collector) -> None:
    """A module-level name that starts with ``_`` under every path it is exported by (zod's
    ``_optional``, ``_parseAsync``) is a helper by the language's convention, as a Python
    module's ``_name`` is: the library's own building block, not what its users call. Class
    members so named are not collected at all."""
    for e in c.entries.values():
        underscored = e.name.startswith("_") and all(a.rsplit(".", 1)[-1].startswith("_") for a in e.aliases)
        if underscored and e.parent is None and e.internal is None:
            e.internal = "helper"


# `const stringType = ZodString.create`, `export const produce = immer.produce(.bind(immer))`
_METHOD_ALIAS = re.compile(
    r"(?:const|let|var)\s+[\w$]+\s*=\s*([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)(?:\.bind\(\s*[\w$]+\s*\))?"
)
_NEW_INSTANCE = re.compile(r"(?:const|let|var)\s+[\w$]+\s*=\s*new\s+([A-Za-z_$][\w$]*)")
# `const ky = createInstance()`: what a module function returns
_MADE_BY_CALL = re.compile(r"(?:const|let|var)\s+[\w$]+\s*=\s*([A-Za-z_$][\w$]*)\(\)")


def _callable_consts(c: Collector, classes: _ClassFinder) -> None:
    """An exported constant that names a class's static method (zod's ``string =
    ZodString.create``) or a method of a module-level instance (immer's ``produce =
    immer.produce``) is a function users call: that method's signature, parameters and text."""
    entries = c.entries
    exported_instances: dict[str, dict[str, str]] = {}
    for e in entries.values():
        new = _NEW_INSTANCE.fullmatch(e.signature) if e.kind == "attribute" and not e.parent else None
        if new:
            exported_instances.setdefault(c.module.get(e.api_id, ""), {})[e.name] = new.group(1)
    for e in entries.values():
        # ky's `const ky = createInstance()`: an instance of what the function returns
        call = _MADE_BY_CALL.fullmatch(e.signature) if e.kind == "attribute" and not e.parent else None
        if call is not None and (e.returns is None or not e.returns.type):
            maker = entries.get(c.qualify(c.module.get(e.api_id, ""), call.group(1)))
            if (
                maker is not None
                and maker.kind == "function"
                and maker.returns is not None
                and maker.returns.class_id
            ):
                e.returns = maker.returns.model_copy()
        alias = _METHOD_ALIAS.fullmatch(e.signature) if e.kind == "attribute" and not e.parent else None
        if alias is None:
            continue
        holder, member = alias.groups()
        module = c.module.get(e.api_id, "")
        owner = classes.find(holder, module)
        if owner is None:  # an instance's method
            made = c.instances.get(module, {}).get(holder) or exported_instances.get(module, {}).get(holder)
            owner = classes.find(made, module) if made else None
        method = entries.get(f"{owner}.{member}") if owner is not None else None
        if method is None or method.kind not in ("method", "function"):
            continue
        at = method.signature.find(method.name)
        tail = method.signature[at + len(method.name) :] if at >= 0 else ""
        if tail.lstrip().startswith("="):  # a class field holding an arrow: `static create = (…): T =>`
            tail = tail.lstrip()[1:].strip().removesuffix("=>").rstrip()
        if not tail.startswith(("(", "<")):
            continue
        e.kind = "function"
        e.signature = e.name + tail
        e.parameters = [p.model_copy() for p in method.parameters]
        e.returns = method.returns.model_copy() if method.returns is not None else None
        if not e.description:
            e.description, e.docstring = method.description, e.docstring or method.docstring


def _follow_reexports(c: Collector, language: SourceLanguage) -> None:
    """Public paths: the re-exports of every module's name table, followed until nothing
    changes; for TypeScript/JavaScript without a root table, the names unique across modules."""
    names = c.names
    for _ in range(10):
        changed = False
        for r in c.reexports:
            source = next((names[t] for t in r.targets if t in names), None)
            if source is None:
                continue
            table = names.setdefault(r.module, {})
            if r.name == "*":
                pairs = [(n, a) for n, a in source.items() if n != "default" and n not in table]
                target = next(t for t in r.targets if t in names)
                for ns, path in list(c.namespaces.get(target, {}).items()):  # `export *` passes `z` on
                    here = ".".join(p for p in (r.module, ns) if p)
                    if c.namespaces.setdefault(r.module, {}).get(ns) != here:
                        c.namespaces[r.module][ns] = here
                        changed = True
                    sub = names.setdefault(here, {})
                    for n, a in names.get(path, {}).items():
                        if sub.get(n) != a:
                            sub[n], changed = a, True
            else:
                pairs = [(r.local, source[r.name])] if r.name in source else []
            for local, api_id in pairs:
                if table.get(local) != api_id:
                    table[local], changed = api_id, True
        if not changed:
            break
    if language in ("typescript", "javascript") and not names.get(""):
        counts = Counter(name for table in names.values() for name in table)
        names[""] = {n: a for _, t in sorted(names.items()) for n, a in t.items() if counts[n] == 1}


class _ClassFinder:
    """The class a type name means in a module, among the classes collected (by name)."""

    def __init__(self, c: Collector) -> None:
        self.c = c
        self.by_name: dict[str, list[str]] = {}
        for e in c.entries.values():
            if e.kind == "class":
                self.by_name.setdefault(e.name, []).append(e.api_id)

    def find(self, name: str | None, module: str) -> str | None:
        """The class ``name`` means in ``module``: its own, an imported one, the root's, the only one."""
        if not name or name not in self.by_name:
            return None
        candidates = self.by_name[name]
        own = self.c.qualify(module, name)
        if own in candidates:
            return own
        targets, imported = self.c.imports.get(module, {}).get(name, ([], name))
        for target in [*targets, ""]:
            api_id = self.c.names.get(target, {}).get(imported)
            if api_id in candidates:
                return api_id
        return candidates[0] if len(candidates) == 1 else None


def _move_impl_members(c: Collector, classes: _ClassFinder) -> None:
    """Rust ``impl`` blocks may live in another module than their type: their members move
    under the type found (and are dropped when there is none)."""
    entries = c.entries
    for e in list(entries.values()):
        if e.parent and e.parent not in entries:
            del entries[e.api_id]
            owner = classes.find(e.parent.rsplit(".", 1)[-1], c.module[e.api_id])
            if owner is not None:
                c.module[f"{owner}.{e.name}"] = c.module[e.api_id]
                e.parent, e.api_id = owner, f"{owner}.{e.name}"
                entries.setdefault(e.api_id, e)


def _resolve_types(c: Collector, classes: _ClassFinder) -> None:
    """Bases (written and from trait ``impl``s) and return types, as the classes' api_ids
    where the names are the library's."""
    entries = c.entries
    for module, type_name, base in c.impls:
        owner = classes.find(type_name, module)
        if owner is not None and base and base not in entries[owner].bases:
            entries[owner].bases.append(base)
    for e in entries.values():
        module = c.module.get(e.api_id, "")
        e.bases = [classes.find(b.split("<")[0].split(".")[-1], module) or b for b in e.bases]
        if e.returns is not None and e.returns.type:
            core = core_type(e.returns.type)
            e.returns.class_id = e.parent if core in ("Self", "this") else classes.find(core, module)


def _add_aliases(c: Collector) -> None:
    """Every other public path of an entry (and of its members), shallowest module first."""
    entries = c.entries
    members: dict[str, list[ApiEntry]] = {}
    for e in entries.values():
        if e.parent:
            members.setdefault(e.parent, []).append(e)
    for module, table in sorted(c.names.items(), key=lambda item: (item[0].count("."), item[0])):
        for name, api_id in table.items():
            alias = c.qualify(module, name)
            if alias != api_id and api_id in entries and alias not in entries[api_id].aliases:
                entries[api_id].aliases.append(alias)
                for m in members.get(api_id, []):
                    m.aliases.append(f"{alias}.{m.name}")


# -- the surface --------------------------------------------------------------------------------


@dataclass
class SourceApiSurface:
    """The exported API of one source folder, with the lookups the example matcher needs."""

    library: str
    language: SourceLanguage
    entries: list[ApiEntry]
    version: str | None = None
    by_id: dict[str, ApiEntry] = field(init=False, repr=False)
    by_alias: dict[str, ApiEntry] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.by_id = {e.api_id: e for e in self.entries}
        self.by_alias = {}
        for e in self.entries:
            for alias in e.aliases:
                self.by_alias.setdefault(alias, e)

    def resolve(self, name: str) -> ApiEntry | None:
        """The entry for an api_id or alias (``lancedb.Connection.openTable``), inherited members too."""
        entry = self.by_id.get(name) or self.by_alias.get(name)
        if entry is None and "." in name:
            owner, member = name.rsplit(".", 1)
            entry = self.member(owner, member)
        return entry

    def member(self, owner: str, name: str, _depth: int = 0) -> ApiEntry | None:
        """Member ``name`` of the class ``owner`` (api_id or alias), walking its bases."""
        cls = self.by_id.get(owner) or self.by_alias.get(owner)
        if cls is None or cls.kind != "class" or _depth > 8:
            return None
        found = self.by_id.get(f"{cls.api_id}.{name}")
        for base in cls.bases if found is None else ():
            found = self.member(base, name, _depth + 1)
            if found is not None:
                break
        return found

    def return_class(self, api_id: str) -> str | None:
        """api_id of the class calling ``api_id`` gives (a class: itself; ``Promise<X>``: X), or None."""
        entry = self.resolve(api_id)
        if entry is None:
            return None
        if entry.kind == "class":
            return entry.api_id
        return entry.returns.class_id if entry.returns is not None else None


def load_source_api(
    source_path: Path, *, language: str | None = None, library: str, include_tests: bool = False
) -> list[ApiEntry]:
    """The exported API of a TypeScript/JavaScript, Go or Rust source folder.

    Args:
        source_path: the folder (or one file) to read; ``node_modules``, ``dist``, ``build``,
            ``target``, ``vendor``, tests and examples below it are skipped.
        language: ``typescript``, ``javascript``, ``go`` or ``rust`` (``ts``, ``js``, ``rs``
            too); None picks the language most files are written in.
        library: the first part of every ``api_id`` (``lancedb.connection.Connection``).
        include_tests: read test files (``*.test.ts``, ``_test.go``) and the test and
            example folders too.

    Raises:
        SourceUnavailableError: ``source_path`` does not exist.
        UsageError: an unknown ``language``.
    """
    root = Path(source_path)
    if not root.exists():
        raise SourceUnavailableError(
            f"source folder not found: {root}", hint="check source_path", arguments=("source_path",)
        )
    lang = normalize_source_language(language) if language else detect_language(root, include_tests)
    if lang is None:
        logger.debug("no TypeScript, JavaScript, Go or Rust sources under %s", root)  # the caller says so
        return []
    c = Collector(library)
    base = root.parent if root.is_file() else root
    for path, file_lang in source_files(root, lang, tests=include_tests):
        try:
            source = path.read_bytes()
        except OSError as exc:
            logger.warning("skipping %s: %s", path, exc)
            continue
        if len(source) > _MAX_BYTES:
            continue
        rel = PurePosixPath(path.relative_to(base).as_posix())
        f = SourceFile(rel, module_of(rel, file_lang), file_lang, source)
        grammar = "tsx" if path.suffix == ".tsx" else file_lang
        tree = grammar_parser(grammar).parse(source)
        if file_lang == "go":
            collect_go_file(c, f, tree.root_node)
        elif file_lang == "rust":
            collect_rust_items(c, f, tree.root_node, f.module)
        else:
            JsCollector(c, f).run(tree.root_node)
    return _finish(c, lang)


def load_source_surface(
    source_path: Path,
    *,
    language: str | None = None,
    library: str,
    version: str | None = None,
    include_tests: bool = False,
) -> SourceApiSurface:
    """:func:`load_source_api` wrapped for lookups (``resolve``, ``member``, ``return_class``)."""
    entries = load_source_api(source_path, language=language, library=library, include_tests=include_tests)
    if entries:
        lang = cast("SourceLanguage", entries[0].language)
    else:
        lang = normalize_source_language(language) if language else "typescript"
    return SourceApiSurface(library, lang, entries, version)
