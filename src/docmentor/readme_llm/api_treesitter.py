"""The exported API of a TypeScript/JavaScript, Go or Rust source folder, read with tree-sitter.

Grammars come from the individual wheels (``tree-sitter-typescript``, ``-javascript``,
``-go``, ``-rust``): nothing is downloaded at run time. What counts as exported:

* **TypeScript/JavaScript**: ``export`` declarations (functions, ``export const f = (…) =>``,
  ``export default``, classes, interfaces, type aliases, enums, constants), ``export { a as b }``,
  and CommonJS ``module.exports = {…}`` / ``exports.f = …``. Class and interface members
  are public unless ``private``/``protected``, ``#private``, ``_underscored`` or tagged
  ``@internal``/``@private``/``@hidden``/``@ignore``. JSDoc (``/** … */`` right before the
  declaration) gives the description, and for JavaScript the ``@param``/``@returns`` types.
* **Go**: capitalised functions, types (struct, interface and other defined types) and
  methods on capitalised types; exported struct fields; ``//`` doc comments directly above.
  ``package main``, ``internal/`` and ``_test.go`` files are not importable and are skipped.
* **Rust**: ``pub`` (not ``pub(crate)``) functions, structs, enums, unions, traits, type
  aliases, constants, inline ``pub mod``s, ``pub`` methods of inherent ``impl`` blocks and
  every method of a ``pub trait``; ``impl Trait for Type`` adds the trait to ``Type``'s
  bases so inherited methods resolve; ``///`` and ``/** */`` doc comments.

Kinds: classes, interfaces, structs, enums, traits and Go defined types are ``class``
(they have members); type aliases and constants are ``attribute``; getters, fields and
interface properties are ``property``. A TypeScript class's ``parameters`` are its
constructor's.

Naming: ``api_id`` = ``<library>.<module>.<Name>``, members ``<library>.<module>.<Class>.<member>``.
The module comes from the file's path relative to ``source_path`` without extension,
``/`` → ``.``, a leading ``src`` dropped, and ``index`` (TS/JS), ``lib``/``main``/``mod``
(Rust) dropped; Go names the package by its directory (files do not matter). Re-exports
(``export { X } from "./x"``, ``export * from``, Rust ``pub use``) add the public paths as
aliases: ``lancedb.Connection`` for ``lancedb.connection.Connection``. TS/JS sources without
a root ``index`` get ``<library>.<Name>`` aliases for names exported once.

``returns.type`` keeps the return type as written; ``returns.class_id`` is the api_id of
the class it names, with ``Promise<>``, ``Result<>``, ``Option<>``, pointers, ``| undefined``
and ``Self`` unwrapped — what :meth:`SourceApiSurface.return_class` answers.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal, cast

from docmentor.errors import SourceUnavailableError, UsageError
from docmentor.readme_llm.models import ApiEntry, ApiParameter, ApiReturn

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

logger = logging.getLogger(__name__)

__all__ = ["SourceApiSurface", "detect_source_language", "load_source_api", "load_source_surface"]

SourceLanguage = Literal["typescript", "javascript", "go", "rust"]
LANGUAGES: tuple[SourceLanguage, ...] = ("typescript", "javascript", "go", "rust")
_NAMES: dict[str, SourceLanguage] = {
    "typescript": "typescript", "ts": "typescript", "tsx": "typescript",
    "javascript": "javascript", "js": "javascript", "jsx": "javascript", "node": "javascript",
    "go": "go", "golang": "go", "rust": "rust", "rs": "rust",
}  # fmt: skip
_EXTENSIONS: dict[str, SourceLanguage] = {
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".go": "go", ".rs": "rust",
}  # fmt: skip
_SKIP_DIRS = frozenset({"node_modules", "dist", "build", "target", "vendor", "coverage", "__pycache__"})
_TEST_FILE = re.compile(r"\.(?:test|spec|stories)\.[cm]?[jt]sx?$|_test\.go$")
_TEST_DIRS = frozenset({"tests", "test", "__tests__", "testdata", "examples", "benches"})
_MAX_BYTES = 1_000_000  # larger files are bundles or generated code
_HIDDEN_TAGS = frozenset({"internal", "private", "hidden", "ignore"})
_UNWRAP = frozenset({"Promise", "PromiseLike", "Awaitable", "Readonly", "Result", "Option", "Box", "Arc"})
_UNWRAP |= {"Rc", "Pin", "Cow"}
_NOTHING = frozenset({"undefined", "null", "void", "never", "error", "()"})
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")


# -- language detection and files ---------------------------------------------------------------


def _language_of(name: str, tests: bool) -> SourceLanguage | None:
    if name.endswith(".min.js") or (not tests and _TEST_FILE.search(name)):
        return None
    return _EXTENSIONS.get(os.path.splitext(name)[1])


def _files(
    root: Path, language: SourceLanguage | None = None, *, tests: bool = False
) -> Iterator[tuple[Path, SourceLanguage]]:
    skip = _SKIP_DIRS if tests else _SKIP_DIRS | _TEST_DIRS
    if root.is_file():
        lang = _EXTENSIONS.get(root.suffix)
        if lang is not None and language in (None, lang):
            yield root, lang
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in skip)
        for name in sorted(filenames):
            lang = _language_of(name, tests)
            if lang is not None and language in (None, lang):
                yield Path(dirpath, name), lang


def detect_source_language(source_path: Path) -> SourceLanguage | None:
    """The language most source files under ``source_path`` are written in, or None.

    Counts ``.ts/.tsx/.mts/.cts`` (TypeScript), ``.js/.jsx/.mjs/.cjs`` (JavaScript), ``.go``
    and ``.rs`` files, skipping ``node_modules``, ``dist``, ``target``, ``vendor``, tests and
    examples; a tie goes to TypeScript, then JavaScript, Go, Rust.
    """
    return _detect(Path(source_path), False)


def _detect(source_path: Path, tests: bool) -> SourceLanguage | None:
    counts: Counter[SourceLanguage] = Counter()
    for n, (_, lang) in enumerate(_files(source_path, tests=tests)):
        counts[lang] += 1
        if n >= 20_000:
            break
    if not counts:
        return None
    return max(LANGUAGES, key=lambda lang: (counts[lang], -LANGUAGES.index(lang)))


def _normalize_language(language: str) -> SourceLanguage:
    lang = _NAMES.get(language.strip().lower())
    if lang is None:
        raise UsageError(
            f"unknown source language {language!r}", hint="use typescript, javascript, go or rust"
        )
    return lang


@cache
def _parser(grammar: str) -> Parser:
    from tree_sitter import Language, Parser

    if grammar in ("typescript", "tsx"):
        import tree_sitter_typescript as ts

        capsule = ts.language_tsx() if grammar == "tsx" else ts.language_typescript()
    elif grammar == "javascript":
        import tree_sitter_javascript as js

        capsule = js.language()
    elif grammar == "go":
        import tree_sitter_go as go

        capsule = go.language()
    else:
        import tree_sitter_rust as rs

        capsule = rs.language()
    return Parser(Language(capsule))


def _module_of(rel: PurePosixPath, language: SourceLanguage) -> str:
    parts = list(rel.parts)
    if language == "go":
        return ".".join(parts[:-1])
    stem = parts[-1].split(".")[0]  # `client.d.ts` → `client`
    parts[-1] = stem
    if language == "rust" and "src" in parts:
        parts = parts[parts.index("src") + 1 :]
    elif parts and parts[0] == "src":
        parts = parts[1:]
    drop = ("lib", "main", "mod") if language == "rust" else ("index",)
    if parts and parts[-1] in drop:
        parts = parts[:-1]
    return ".".join(parts)


# -- small helpers ------------------------------------------------------------------------------


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _squash(text: str) -> str:
    text = " ".join(text.split())
    text = re.sub(r"([(<\[]) ", r"\1", text)
    return re.sub(r",? ([)>\]])", r"\1", text)


def _header(node: Node, stop: Node | None, source: bytes) -> str:
    """The declaration's source text up to its body, on one line."""
    end = stop.start_byte if stop is not None else node.end_byte
    text = source[node.start_byte : end].decode("utf-8", "replace").strip()
    for tail in ("{", ";"):
        text = text.removesuffix(tail).rstrip()
    return _squash(text)


def _summary(doc: str) -> str:
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and depth:
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [part.strip() for part in out]


def _core_type(type_text: str | None) -> str | None:
    """The class name a return type stands for: ``Promise<Table | undefined>`` → ``Table``."""
    t = (type_text or "").strip()
    for _ in range(8):
        t = t.removeprefix(":").strip()
        t = re.sub(r"^(?:&(?:'\w+\s+)?(?:mut\s+)?|\*+|dyn\s+|impl\s+)", "", t).strip()
        if t.startswith("(") and t.endswith(")") and t != "()":  # Go results, Rust tuples
            parts = [p.split()[-1] if p.split() else p for p in _split_top(t[1:-1], ",")]
            t = next((p for p in parts if p not in _NOTHING), "")
            continue
        parts = [p for p in _split_top(t, "|") if p not in _NOTHING]
        if len(parts) != 1:
            return None
        t = parts[0]
        m = re.fullmatch(r"([\w$.:]+)\s*<(.*)>", t, re.S)
        if m and re.split(r"\.|::", m.group(1))[-1] in _UNWRAP:
            t = _split_top(m.group(2), ",")[0]
            continue
        if m:  # `Table<T>` names the class Table
            t = m.group(1)
        m = re.fullmatch(r"Future<Output\s*=\s*(.*)>", t)
        if m:
            t = m.group(1)
            continue
        break
    return re.split(r"\.|::", t)[-1] if _IDENT.fullmatch(t) else None


@dataclass
class _Doc:
    text: str = ""
    params: dict[str, tuple[str | None, str, bool, str | None]] = field(default_factory=dict)
    returns: tuple[str | None, str] = (None, "")
    tags: set[str] = field(default_factory=set)


_TAG = re.compile(r"^@(\w+)\s*(?:\{(?P<type>[^}]*)\})?\s*(?P<rest>.*)$", re.S)


def _jsdoc(comment: str) -> _Doc:
    body = comment.removeprefix("/**").removesuffix("*/")
    lines = [re.sub(r"^\s*\* ?", "", line).rstrip() for line in body.splitlines()]
    text = re.sub(r"\{@link(?:code|plain)?\s+([^}|\s]+)[^}]*\}", r"\1", "\n".join(lines)).strip()
    doc = _Doc(text=text)
    for block in re.split(r"\n(?=@)", "\n" + text)[1:]:
        m = _TAG.match(block.strip())
        if m is None:
            continue
        tag, type_, rest = m.group(1), m.group("type"), " ".join(m.group("rest").split())
        doc.tags.add(tag)
        if tag in ("param", "arg", "argument"):
            name, _, desc = rest.partition(" ")
            optional, default = name.startswith("["), None
            name = name.strip("[]")
            if "=" in name:
                name, default = name.split("=", 1)
            doc.params[name] = (type_, desc.removeprefix("- ").strip(), optional, default)
        elif tag in ("returns", "return"):
            doc.returns = (type_, rest.removeprefix("- ").strip())
    return doc


def _main_text(doc: _Doc) -> str:
    return re.split(r"\n@\w", "\n" + doc.text, maxsplit=1)[0].strip()


# -- collection ---------------------------------------------------------------------------------


@dataclass
class _Reexport:
    module: str  # where the names become public
    targets: list[str]  # candidate modules the names come from, most likely first
    name: str  # "*" for all
    local: str


@dataclass
class _File:
    rel: PurePosixPath
    module: str
    language: SourceLanguage
    source: bytes


class _Collector:
    def __init__(self, library: str) -> None:
        self.library = library
        self.entries: dict[str, ApiEntry] = {}
        self.module: dict[str, str] = {}  # api_id → module
        self.names: dict[str, dict[str, str]] = {}  # module → public top-level name → api_id
        self.reexports: list[_Reexport] = []
        self.impls: list[tuple[str, str, str]] = []  # (module, type name, trait/embedded name)
        self.imports: dict[str, dict[str, tuple[list[str], str]]] = {}  # module → local → (modules, name)

    def qualify(self, *parts: str) -> str:
        return ".".join(p for p in (self.library, *parts) if p)

    def add(self, f: _File, node: Node, *, name: str, parent: str | None = None, **fields: object) -> str:
        api_id = f"{parent}.{name}" if parent else self.qualify(f.module, name)
        if api_id not in self.entries:
            doc = str(fields.pop("docstring", "") or "")
            summary = str(fields.pop("summary", doc))  # JSDoc: the text before the tags
            self.entries[api_id] = ApiEntry.model_validate(
                {
                    "api_id": api_id,
                    "name": name,
                    "parent": parent,
                    "language": f.language,
                    "source_file": f.rel.as_posix(),
                    "line": node.start_point[0] + 1,
                    "docstring": doc,
                    "description": _summary(summary),
                    **fields,
                }
            )
            self.module[api_id] = f.module
            if parent is None:
                self.names.setdefault(f.module, {}).setdefault(name, api_id)
        return api_id


def _returns(type_text: str | None, description: str = "") -> ApiReturn:
    return ApiReturn(type=type_text or None, description=description)


# -- TypeScript / JavaScript --------------------------------------------------------------------

_JS_FUNCTIONS = ("function_declaration", "generator_function_declaration", "function_signature")
_JS_VALUES_FN = ("arrow_function", "function_expression", "function", "generator_function")
_JS_CLASSES = ("class_declaration", "abstract_class_declaration", "class", "interface_declaration")


def _js_comment(node: Node) -> _Doc | None:
    prev = node.prev_named_sibling
    while prev is not None and prev.type == "decorator":
        prev = prev.prev_named_sibling
    if prev is not None and prev.type == "comment" and _text(prev).startswith("/**"):
        return _jsdoc(_text(prev))
    return None


class _Js:
    def __init__(self, c: _Collector, f: _File) -> None:
        self.c, self.f = c, f
        self.locals: dict[str, tuple[Node, Node]] = {}  # name → (declaration, doc anchor)
        self.imports: dict[str, tuple[list[str], str]] = {}  # local → (modules, imported name)

    def run(self, root: Node) -> None:
        exports: list[tuple[str, str]] = []  # (local, exported) from `export { a as b }`
        for child in root.named_children:
            if child.type == "export_statement":
                self.export(child, exports)
            elif child.type == "import_statement":
                self.record_import(child)
            elif child.type == "expression_statement":
                self.commonjs(child, exports)
            else:
                for name, decl in self.declared(child):
                    self.locals.setdefault(name, (decl, child))
        for local, exported in exports:
            if local in self.locals:
                decl, anchor = self.locals[local]
                self.declaration(decl, anchor, name=exported, only=local)
            elif local in self.imports:
                targets, imported = self.imports[local]
                self.reexport(targets, imported, exported)

    def declared(self, node: Node) -> list[tuple[str, Node]]:
        if node.type == "ambient_declaration":
            return [x for child in node.named_children for x in self.declared(child)]
        if node.type in ("lexical_declaration", "variable_declaration"):
            return [
                (_text(d.child_by_field_name("name")), node)
                for d in node.named_children
                if d.type == "variable_declarator"
            ]
        name = node.child_by_field_name("name")
        return [(_text(name), node)] if name is not None else []

    def record_import(self, node: Node) -> None:
        targets = self.targets(_text(node.child_by_field_name("source")).strip("\"'`"))
        for spec_node in _descendants(node, "import_specifier"):
            imported = _text(spec_node.child_by_field_name("name"))
            local = _text(spec_node.child_by_field_name("alias")) or imported
            self.imports[local] = (targets, imported)
            self.c.imports.setdefault(self.f.module, {})[local] = (targets, imported)

    def targets(self, spec: str) -> list[str]:
        """The modules a relative import specifier may name (``./x`` → ``x``, ``x/index``)."""
        if not spec.startswith("."):
            return []
        base = posixpath.normpath(posixpath.join(self.f.rel.parent.as_posix(), spec))
        base = re.sub(r"\.(?:[cm]?[jt]sx?)$", "", base)
        lang = self.f.language
        return [
            _module_of(PurePosixPath(base + ".ts"), lang),
            _module_of(PurePosixPath(base, "index.ts"), lang),
        ]

    def reexport(self, targets: list[str], name: str, local: str) -> None:
        if targets:
            self.c.reexports.append(_Reexport(self.f.module, targets, name, local))

    def export(self, node: Node, exports: list[tuple[str, str]]) -> None:
        source = node.child_by_field_name("source")
        default = any(child.type == "default" for child in node.children)
        decl = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        if source is not None:
            spec = self.targets(_text(source).strip("\"'`"))
            clause = next((ch for ch in node.named_children if ch.type == "export_clause"), None)
            if clause is None and not any(ch.type == "namespace_export" for ch in node.named_children):
                self.reexport(spec, "*", "*")
            for s in _descendants(clause, "export_specifier") if clause is not None else []:
                name = _text(s.child_by_field_name("name"))
                self.reexport(spec, name, _text(s.child_by_field_name("alias")) or name)
        elif decl is not None:
            self.declaration(decl, node, name="default" if default and decl.type in _JS_VALUES_FN else None)
        elif value is not None:
            if value.type == "identifier":
                exports.append((_text(value), _text(value)))
            else:
                self.value(value, node, _text(value.child_by_field_name("name")) or "default", "")
        else:
            for s in _descendants(node, "export_specifier"):
                name = _text(s.child_by_field_name("name"))
                exports.append((name, _text(s.child_by_field_name("alias")) or name))

    def commonjs(self, stmt: Node, exports: list[tuple[str, str]]) -> None:
        expr = stmt.named_children[0] if stmt.named_children else None
        if expr is None or expr.type != "assignment_expression":
            return
        left, right = _text(expr.child_by_field_name("left")), expr.child_by_field_name("right")
        if right is None:
            return
        if left == "module.exports":
            if right.type == "object":
                for prop in right.named_children:
                    if prop.type == "shorthand_property_identifier":
                        exports.append((_text(prop), _text(prop)))
                    elif prop.type == "pair":
                        key, val = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                        if val is not None and val.type == "identifier":
                            exports.append((_text(val), _text(key)))
                        elif val is not None:
                            self.value(val, stmt, _text(key), f"{_text(key)}: ")
            elif right.type == "identifier":
                exports.append((_text(right), _text(right)))
            else:
                self.value(right, stmt, _text(right.child_by_field_name("name")) or "default", "")
        elif m := re.fullmatch(r"(?:module\.)?exports\.([\w$]+)", left):
            if right.type == "identifier":
                exports.append((_text(right), m.group(1)))
            else:
                self.value(right, stmt, m.group(1), f"{left} = ")

    def declaration(self, decl: Node, anchor: Node, *, name: str | None = None, only: str = "") -> None:
        t = decl.type
        if t == "ambient_declaration":
            for child in decl.named_children:
                self.declaration(child, anchor, name=name, only=only)
            return
        doc = _js_comment(anchor) or _js_comment(decl) or _Doc()
        if doc.tags & _HIDDEN_TAGS:
            return
        own = _text(decl.child_by_field_name("name"))
        if t in _JS_FUNCTIONS or t in _JS_VALUES_FN:
            self.function(
                decl,
                name or own or "default",
                doc,
                header=_header(decl, decl.child_by_field_name("body"), self.f.source),
            )
        elif t in _JS_CLASSES:
            self.klass(decl, name or own or "default", doc)
        elif t in ("type_alias_declaration", "enum_declaration"):
            kind = "attribute" if t == "type_alias_declaration" else "class"
            value = decl.child_by_field_name("value")
            self.c.add(
                self.f,
                decl,
                name=name or own,
                kind=kind,
                docstring=doc.text,
                summary=_main_text(doc),
                signature=_squash(_text(decl)).removesuffix(";")[:300],
                returns=_returns(_text(value)) if value is not None else None,
            )
        elif t in ("lexical_declaration", "variable_declaration"):
            keyword = _text(decl.child_by_field_name("kind")) or _text(decl.children[0])
            for d in decl.named_children:
                own = _text(d.child_by_field_name("name"))
                if d.type != "variable_declarator" or (only and own != only):
                    continue
                value = d.child_by_field_name("value")
                if value is not None and value.type in (*_JS_VALUES_FN, "class"):
                    self.value(value, anchor, name or own, f"{keyword} ", start=d)
                    continue
                type_node = d.child_by_field_name("type")
                type_text = _text(type_node).removeprefix(":").strip() or None
                sig = f"{keyword} {own}" + (f": {type_text}" if type_text else "")
                if type_text is None and value is not None and len(_text(value)) <= 80:
                    sig += f" = {_squash(_text(value))}"
                self.c.add(
                    self.f,
                    d,
                    name=name or own,
                    kind="attribute",
                    docstring=doc.text,
                    summary=_main_text(doc),
                    signature=sig,
                    returns=_returns(type_text),
                )

    def value(self, value: Node, anchor: Node, name: str, prefix: str, start: Node | None = None) -> None:
        doc = _js_comment(anchor) or _Doc()
        if doc.tags & _HIDDEN_TAGS:
            return
        if value.type == "class":
            self.klass(value, name, doc)
        elif value.type in _JS_VALUES_FN:
            body = value.child_by_field_name("body")
            header = prefix + _header(start or value, body, self.f.source)
            self.function(value, name, doc, header=header)

    def params(self, node: Node | None, doc: _Doc) -> list[ApiParameter]:
        if node is None:
            return []
        items = [node] if node.type == "identifier" else node.named_children
        out = []
        for p in items:
            pattern, type_node, value, optional = p, None, None, p.type == "optional_parameter"
            if p.type in ("required_parameter", "optional_parameter"):
                pattern = p.child_by_field_name("pattern") or p
                type_node, value = p.child_by_field_name("type"), p.child_by_field_name("value")
            elif p.type == "assignment_pattern":
                pattern, value = p.child_by_field_name("left") or p, p.child_by_field_name("right")
            elif p.type not in ("identifier", "rest_pattern", "object_pattern", "array_pattern"):
                continue
            if pattern.type == "this":
                continue
            rest = pattern.type == "rest_pattern"
            name = _squash(_text(pattern)).removeprefix("...")
            type_text = _text(type_node).removeprefix(":").strip() or None
            doc_type, desc, doc_optional, doc_default = doc.params.get(name, (None, "", False, None))
            default = _squash(_text(value)) if value is not None else doc_default
            out.append(
                ApiParameter(
                    name=name,
                    type=type_text or doc_type,
                    default=default,
                    required=not (optional or doc_optional or rest or default is not None),
                    kind="var-positional" if rest else "positional or keyword",
                    description=desc,
                )
            )
        return out

    def function(
        self,
        node: Node,
        name: str,
        doc: _Doc,
        *,
        header: str,
        parent: str | None = None,
        kind: Literal["function", "method", "property"] = "function",
    ) -> None:
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        ret = _text(node.child_by_field_name("return_type")).removeprefix(":").strip() or doc.returns[0]
        self.c.add(
            self.f,
            node,
            name=name,
            parent=parent,
            kind=kind,
            signature=header,
            parameters=[] if kind == "property" else self.params(params, doc),
            returns=_returns(ret, doc.returns[1]),
            docstring=doc.text,
            summary=_main_text(doc),
        )

    def klass(self, node: Node, name: str, doc: _Doc) -> None:
        body = node.child_by_field_name("body")
        bases = []
        for heritage in node.named_children:
            if heritage.type not in ("class_heritage", "extends_type_clause"):
                continue
            for clause in [heritage, *heritage.named_children]:
                bases += [
                    _text(x.child_by_field_name("name") or x)
                    for x in clause.named_children
                    if x.type in ("identifier", "type_identifier", "member_expression", "generic_type")
                ]
        api_id = self.c.add(
            self.f,
            node,
            name=name,
            kind="class",
            signature=_header(node, body, self.f.source),
            docstring=doc.text,
            summary=_main_text(doc),
            bases=bases,
        )
        ctor: Node | None = None
        for m in body.named_children if body is not None else []:
            name_node = m.child_by_field_name("name") or m.child_by_field_name("property")
            member = _text(name_node)
            words = {child.type for child in m.children} | {
                _text(child) for child in m.children if child.type == "accessibility_modifier"
            }
            if (
                name_node is None
                or name_node.type not in ("property_identifier", "identifier")
                or (member.startswith(("_", "#")) or words & {"private", "protected", "set"})
            ):
                continue
            mdoc = _js_comment(m) or _Doc()
            if mdoc.tags & _HIDDEN_TAGS:
                continue
            if member == "constructor":
                ctor = ctor or m
            elif m.type in ("method_definition", "method_signature", "abstract_method_signature"):
                kind: Literal["method", "property"] = "property" if "get" in words else "method"
                header = _header(m, m.child_by_field_name("body"), self.f.source)
                self.function(m, member, mdoc, header=header, parent=api_id, kind=kind)
            elif m.type in ("public_field_definition", "property_signature", "field_definition"):
                value = m.child_by_field_name("value")
                if value is not None and value.type in _JS_VALUES_FN:
                    self.function(
                        value,
                        member,
                        mdoc,
                        header=_header(m, value.child_by_field_name("body"), self.f.source),
                        parent=api_id,
                        kind="method",
                    )
                    continue
                type_text = _text(m.child_by_field_name("type")).removeprefix(":").strip() or None
                self.c.add(
                    self.f,
                    m,
                    name=member,
                    parent=api_id,
                    kind="property",
                    signature=_squash(_text(m)).removesuffix(";").removesuffix(","),
                    returns=_returns(type_text),
                    docstring=mdoc.text,
                    summary=_main_text(mdoc),
                )
        if ctor is not None:
            entry = self.c.entries[api_id]
            cdoc = _js_comment(ctor) or _Doc()
            entry.parameters = self.params(ctor.child_by_field_name("parameters"), cdoc)
            if not entry.docstring and cdoc.text:
                entry.docstring, entry.description = cdoc.text, _summary(_main_text(cdoc))


def _descendants(node: Node | None, *types: str, depth: int = 6) -> Iterator[Node]:
    if node is None or depth < 0:
        return
    for child in node.named_children:
        if child.type in types:
            yield child
        else:
            yield from _descendants(child, *types, depth=depth - 1)


# -- Go -----------------------------------------------------------------------------------------


def _exported(name: str) -> bool:
    return name[:1].isupper()


def _go_doc(node: Node) -> str:
    lines: list[str] = []
    row, prev = node.start_point[0], node.prev_named_sibling
    while prev is not None and prev.type == "comment" and prev.end_point[0] == row - 1:
        text = _text(prev)
        if not text.startswith("//"):
            break
        lines.append(text[2:].removeprefix(" "))
        row, prev = prev.start_point[0], prev.prev_named_sibling
    return "\n".join(reversed(lines)).strip()


def _go_params(node: Node | None) -> list[ApiParameter]:
    out = []
    for p in node.named_children if node is not None else []:
        if p.type not in ("parameter_declaration", "variadic_parameter_declaration"):
            continue
        type_text = _squash(_text(p.child_by_field_name("type")))
        variadic = p.type == "variadic_parameter_declaration"
        names = [_text(n) for n in p.children_by_field_name("name")] or ["_"]
        out += [
            ApiParameter(
                name=name,
                type=f"...{type_text}" if variadic else type_text,
                required=not variadic,
                kind="var-positional" if variadic else "positional or keyword",
            )
            for name in names
        ]
    return out


def _go_type_name(node: Node | None) -> str:
    text = _text(node).lstrip("*").strip()
    return re.split(r"[\[\s]", text, maxsplit=1)[0]


def _go_file(c: _Collector, f: _File, root: Node) -> None:
    package = next((ch for ch in root.named_children if ch.type == "package_clause"), None)
    if package is None or _text(package).split()[-1] == "main" or "internal" in f.module.split("."):
        return
    for node in root.named_children:
        if node.type in ("function_declaration", "method_declaration"):
            name = _text(node.child_by_field_name("name"))
            receiver = node.child_by_field_name("receiver")
            owner = ""
            if receiver is not None:
                decl = next(iter(receiver.named_children), None)
                owner = _go_type_name(decl.child_by_field_name("type") if decl is not None else None)
            if not _exported(name) or (receiver is not None and not _exported(owner)):
                continue
            doc = _go_doc(node)
            c.add(
                f,
                node,
                name=name,
                parent=c.qualify(f.module, owner) if owner else None,
                kind="method" if owner else "function",
                signature=_header(node, node.child_by_field_name("body"), f.source),
                parameters=_go_params(node.child_by_field_name("parameters")),
                returns=_returns(_squash(_text(node.child_by_field_name("result")))),
                docstring=doc,
            )
        elif node.type == "type_declaration":
            for spec in node.named_children:
                if spec.type in ("type_spec", "type_alias"):
                    _go_type(c, f, spec, _go_doc(spec) or _go_doc(node))


def _go_type(c: _Collector, f: _File, spec: Node, doc: str) -> None:
    name = _text(spec.child_by_field_name("name"))
    if not _exported(name):
        return
    body = spec.child_by_field_name("type")
    shape = body.type if body is not None else ""
    word = {"struct_type": "struct", "interface_type": "interface"}.get(shape)
    type_params = _text(spec.child_by_field_name("type_parameters"))
    alias = spec.type == "type_alias"
    sig = f"type {name}{type_params}{' =' if alias else ''} {word or _squash(_text(body))[:200]}"
    api_id = c.add(
        f,
        spec,
        name=name,
        kind="attribute" if alias else "class",
        signature=sig,
        docstring=doc,
        returns=_returns(_squash(_text(body))) if alias else None,
    )
    members = body.named_children if body is not None else []
    if shape == "struct_type":
        members = next((m.named_children for m in members if m.type == "field_declaration_list"), [])
    for m in members:
        if m.type == "field_declaration":
            names = [_text(n) for n in m.children_by_field_name("name")]
            type_text = _squash(_text(m.child_by_field_name("type")))
            if not names:  # embedded: its fields and methods are promoted
                c.impls.append((f.module, name, _go_type_name(m.child_by_field_name("type"))))
            for field_name in filter(_exported, names):
                c.add(
                    f,
                    m,
                    name=field_name,
                    parent=api_id,
                    kind="property",
                    docstring=_go_doc(m),
                    signature=f"{field_name} {type_text}",
                    returns=_returns(type_text),
                )
        elif m.type == "method_elem" and _exported(member := _text(m.child_by_field_name("name"))):
            c.add(
                f,
                m,
                name=member,
                parent=api_id,
                kind="method",
                signature=_squash(_text(m)),
                parameters=_go_params(m.child_by_field_name("parameters")),
                docstring=_go_doc(m),
                returns=_returns(_squash(_text(m.child_by_field_name("result")))),
            )
        elif m.type == "type_elem":
            c.impls.append((f.module, name, _go_type_name(m)))


# -- Rust ---------------------------------------------------------------------------------------

_RUST_TYPES = {"struct_item": "struct", "enum_item": "enum", "union_item": "union", "trait_item": "trait"}


def _rust_doc(node: Node) -> str:
    parts: list[str] = []
    prev = node.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type != "attribute_item":
            if prev.child_by_field_name("inner") is not None:
                break
            doc = prev.child_by_field_name("doc")
            if doc is not None and prev.child_by_field_name("outer") is not None:
                text = _text(doc)
                if prev.type == "block_comment":
                    text = "\n".join(re.sub(r"^\s*\* ?", "", line) for line in text.strip().splitlines())
                parts.append("\n".join(line.removeprefix(" ") for line in text.rstrip("\n").split("\n")))
        prev = prev.prev_named_sibling
    return "\n".join(reversed(parts)).strip()


def _pub(node: Node) -> bool:
    return any(ch.type == "visibility_modifier" and _text(ch) == "pub" for ch in node.children)


def _rust_params(node: Node | None) -> list[ApiParameter]:
    out = []
    for p in node.named_children if node is not None else []:
        if p.type == "parameter":
            name = _squash(_text(p.child_by_field_name("pattern"))).removeprefix("mut ")
            out.append(ApiParameter(name=name, type=_squash(_text(p.child_by_field_name("type")))))
        elif p.type == "variadic_parameter":
            out.append(ApiParameter(name="...", required=False, kind="var-positional"))
    return out


def _rust_fn(c: _Collector, f: _File, node: Node, module: str, parent: str | None) -> None:
    ret = _squash(_text(node.child_by_field_name("return_type"))) or None
    c.add(
        f,
        node,
        name=_text(node.child_by_field_name("name")),
        parent=parent,
        kind="method" if parent else "function",
        docstring=_rust_doc(node),
        signature=_header(node, node.child_by_field_name("body"), f.source),
        parameters=_rust_params(node.child_by_field_name("parameters")),
        returns=_returns(ret),
    )


def _rust_items(c: _Collector, f: _File, container: Node, module: str) -> None:
    mf = _File(f.rel, module, f.language, f.source)  # inline `pub mod` items live in a submodule
    for node in container.named_children:
        t = node.type
        if t == "impl_item":
            _rust_impl(c, mf, node, module)
        elif t == "use_declaration" and _pub(node):
            _rust_use(c, module, node.child_by_field_name("argument"), "", public=True)
        elif t == "use_declaration":
            _rust_use(c, module, node.child_by_field_name("argument"), "", public=False)
        elif not _pub(node):
            continue
        elif t in ("function_item", "function_signature_item"):
            _rust_fn(c, mf, node, module, None)
        elif t in _RUST_TYPES:
            body = node.child_by_field_name("body")
            api_id = c.add(
                mf,
                node,
                name=_text(node.child_by_field_name("name")),
                kind="class",
                signature=_header(node, body, f.source),
                docstring=_rust_doc(node),
                bases=[
                    _squash(_text(b))
                    for b in _descendants(
                        node.child_by_field_name("bounds"),
                        "type_identifier",
                        "scoped_type_identifier",
                        "generic_type",
                        depth=0,
                    )
                ],
            )
            for m in body.named_children if body is not None else []:
                if t == "trait_item" and m.type in ("function_item", "function_signature_item"):
                    _rust_fn(c, mf, m, module, api_id)
                elif m.type == "field_declaration" and _pub(m):
                    type_text = _squash(_text(m.child_by_field_name("type")))
                    member = _text(m.child_by_field_name("name"))
                    c.add(
                        mf,
                        m,
                        name=member,
                        parent=api_id,
                        kind="property",
                        docstring=_rust_doc(m),
                        signature=f"pub {member}: {type_text}",
                        returns=_returns(type_text),
                    )
        elif t in ("type_item", "const_item", "static_item"):
            type_node = node.child_by_field_name("type")
            c.add(
                mf,
                node,
                name=_text(node.child_by_field_name("name")),
                kind="attribute",
                signature=_squash(_text(node)).removesuffix(";")[:300],
                docstring=_rust_doc(node),
                returns=_returns(_squash(_text(type_node)) or None),
            )
        elif t == "mod_item" and node.child_by_field_name("body") is not None:
            sub = ".".join(p for p in (module, _text(node.child_by_field_name("name"))) if p)
            _rust_items(c, f, cast("Node", node.child_by_field_name("body")), sub)


def _rust_impl(c: _Collector, f: _File, node: Node, module: str) -> None:
    type_node = node.child_by_field_name("type")
    if type_node is not None and type_node.type == "generic_type":
        type_node = type_node.child_by_field_name("type")
    owner = _text(type_node).split("::")[-1]
    trait = node.child_by_field_name("trait")
    if trait is not None:  # the trait's methods are documented on the trait
        c.impls.append((module, owner, re.split(r"<", _text(trait))[0].split("::")[-1]))
        return
    body = node.child_by_field_name("body")
    for m in body.named_children if body is not None else []:
        if m.type == "function_item" and _pub(m):
            _rust_fn(c, f, m, module, c.qualify(module, owner))


def _rust_use(c: _Collector, module: str, node: Node | None, prefix: str, *, public: bool) -> None:
    if node is None:
        return
    t = node.type
    if t in ("scoped_identifier", "identifier", "use_as_clause", "self"):
        path_node = node.child_by_field_name("path") if t == "use_as_clause" else node
        path = "::".join(p for p in (prefix, _text(path_node)) if p)
        target, _, name = path.rpartition("::")
        local = _text(node.child_by_field_name("alias")) if t == "use_as_clause" else name
        if name == "self":
            target, _, name = target.rpartition("::")
            local = name
        if public:
            c.reexports.append(_Reexport(module, _rust_targets(module, target), name, local))
        else:
            c.imports.setdefault(module, {})[local] = (_rust_targets(module, target), name)
    elif t in ("scoped_use_list", "use_list"):
        sub = "::".join(p for p in (prefix, _text(node.child_by_field_name("path"))) if p)
        items = node.child_by_field_name("list") if t == "scoped_use_list" else node
        for item in items.named_children if items is not None else []:
            _rust_use(c, module, item, sub, public=public)
    elif t == "use_wildcard":
        path = "::".join(p for p in (prefix, _text(node).removesuffix("::*")) if p)
        if public:
            c.reexports.append(_Reexport(module, _rust_targets(module, path), "*", "*"))


def _rust_targets(module: str, path: str) -> list[str]:
    parts = [p for p in path.split("::") if p]
    here = module.split(".") if module else []
    if parts[:1] == ["crate"]:
        return [".".join(parts[1:])]
    while parts[:1] in (["self"], ["super"]):
        if parts.pop(0) == "super":
            here = here[:-1]
    return list(dict.fromkeys([".".join(here + parts), ".".join(parts)]))


# -- after all files: aliases, bases, return classes --------------------------------------------


def _finish(c: _Collector, language: SourceLanguage) -> list[ApiEntry]:
    entries, names = c.entries, c.names
    # Public paths: re-exports, followed until nothing changes.
    for _ in range(10):
        changed = False
        for r in c.reexports:
            source = next((names[t] for t in r.targets if t in names), None)
            if source is None:
                continue
            table = names.setdefault(r.module, {})
            if r.name == "*":
                pairs = [(n, a) for n, a in source.items() if n != "default" and n not in table]
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

    by_name: dict[str, list[str]] = {}
    for e in entries.values():
        if e.kind == "class":
            by_name.setdefault(e.name, []).append(e.api_id)

    def find_class(name: str | None, module: str) -> str | None:
        """The class ``name`` means in ``module``: its own, an imported one, the root's, the only one."""
        if not name or name not in by_name:
            return None
        candidates = by_name[name]
        own = c.qualify(module, name)
        if own in candidates:
            return own
        targets, imported = c.imports.get(module, {}).get(name, ([], name))
        for target in [*targets, ""]:
            api_id = names.get(target, {}).get(imported)
            if api_id in candidates:
                return api_id
        return candidates[0] if len(candidates) == 1 else None

    # Rust `impl` blocks may live in another module than their type.
    for e in list(entries.values()):
        if e.parent and e.parent not in entries:
            del entries[e.api_id]
            owner = find_class(e.parent.rsplit(".", 1)[-1], c.module[e.api_id])
            if owner is not None:
                c.module[f"{owner}.{e.name}"] = c.module[e.api_id]
                e.parent, e.api_id = owner, f"{owner}.{e.name}"
                entries.setdefault(e.api_id, e)
    for module, type_name, base in c.impls:
        owner = find_class(type_name, module)
        if owner is not None and base and base not in entries[owner].bases:
            entries[owner].bases.append(base)
    for e in entries.values():
        module = c.module.get(e.api_id, "")
        e.bases = [find_class(b.split("<")[0].split(".")[-1], module) or b for b in e.bases]
        if e.returns is not None and e.returns.type:
            core = _core_type(e.returns.type)
            e.returns.class_id = e.parent if core in ("Self", "this") else find_class(core, module)

    members: dict[str, list[ApiEntry]] = {}
    for e in entries.values():
        if e.parent:
            members.setdefault(e.parent, []).append(e)
    for module, table in sorted(names.items(), key=lambda item: (item[0].count("."), item[0])):
        for name, api_id in table.items():
            alias = c.qualify(module, name)
            if alias != api_id and api_id in entries and alias not in entries[api_id].aliases:
                entries[api_id].aliases.append(alias)
                for m in members.get(api_id, []):
                    m.aliases.append(f"{alias}.{m.name}")
    return list(entries.values())


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
        raise SourceUnavailableError(f"source folder not found: {root}", hint="check --source-path")
    lang = _normalize_language(language) if language else _detect(root, include_tests)
    if lang is None:
        logger.warning("no TypeScript, JavaScript, Go or Rust sources under %s", root)
        return []
    c = _Collector(library)
    base = root.parent if root.is_file() else root
    for path, file_lang in _files(root, lang, tests=include_tests):
        try:
            source = path.read_bytes()
        except OSError as exc:
            logger.warning("skipping %s: %s", path, exc)
            continue
        if len(source) > _MAX_BYTES:
            continue
        rel = PurePosixPath(path.relative_to(base).as_posix())
        f = _File(rel, _module_of(rel, file_lang), file_lang, source)
        grammar = "tsx" if path.suffix == ".tsx" else file_lang
        tree = _parser(grammar).parse(source)
        if file_lang == "go":
            _go_file(c, f, tree.root_node)
        elif file_lang == "rust":
            _rust_items(c, f, tree.root_node, f.module)
        else:
            _Js(c, f).run(tree.root_node)
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
        lang = _normalize_language(language) if language else "typescript"
    return SourceApiSurface(library, lang, entries, version)
