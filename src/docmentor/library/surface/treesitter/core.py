"""What every language shares: files and language detection, parsers, module paths,
node-text helpers, return-type unwrapping and the collector that builds ``ApiEntry``s."""

from __future__ import annotations

import importlib
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from docmentor.errors import DocmentorError, UsageError
from docmentor.library.models import ApiEntry, ApiReturn

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

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
_UNWRAP = frozenset({"Promise", "PromiseLike", "Awaitable", "Readonly", "Result", "Option", "Box", "Arc"})
_UNWRAP |= {"Rc", "Pin", "Cow"}
_NOTHING = frozenset({"undefined", "null", "void", "never", "error", "()"})
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")


# -- language detection and files ---------------------------------------------------------------


def _language_of(name: str, tests: bool) -> SourceLanguage | None:
    if name.endswith(".min.js") or (not tests and _TEST_FILE.search(name)):
        return None
    return _EXTENSIONS.get(os.path.splitext(name)[1])


def source_files(
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
    return detect_language(Path(source_path), False)


_DECLARATION = re.compile(r"\.d\.[cm]?ts$")
_COMPILED_JS = re.compile(r"\.[cm]?js$")


def detect_language(source_path: Path, tests: bool) -> SourceLanguage | None:
    """The language most files are written in; a JavaScript file beside its own declaration
    file (``index.mjs`` and ``index.d.ts``: an npm package's build and its types) counts as
    the TypeScript the declaration is, not twice (a tour read zod's compiled ``lib/*.js``:
    untyped signatures, every API two to four times)."""
    counts: Counter[SourceLanguage] = Counter()
    declared: set[str] = set()  # folder/stem of each declaration file
    files = []
    for n, (path, lang) in enumerate(source_files(source_path, tests=tests)):
        files.append((path, lang))
        if _DECLARATION.search(path.name):
            declared.add(str(path.parent / _DECLARATION.sub("", path.name)))
        if n >= 20_000:
            break
    for path, lang in files:
        if lang == "javascript" and str(path.parent / _COMPILED_JS.sub("", path.name)) in declared:
            continue
        counts[lang] += 1
    if not counts:
        return None
    return max(LANGUAGES, key=lambda lang: (counts[lang], -LANGUAGES.index(lang)))


def normalize_source_language(language: str) -> SourceLanguage:
    lang = _NAMES.get(language.strip().lower())
    if lang is None:
        raise UsageError(
            f"unknown source language {language!r}", hint="use typescript, javascript, go or rust"
        )
    return lang


class GrammarsUnavailable(DocmentorError):
    """tree-sitter or a language's grammar is not installed (the ``languages`` extra)."""


_GRAMMAR_MODULES = {
    "typescript": "tree_sitter_typescript", "tsx": "tree_sitter_typescript",
    "javascript": "tree_sitter_javascript", "go": "tree_sitter_go", "rust": "tree_sitter_rust",
}  # fmt: skip
_LANGUAGE_NAMES = {"typescript": "TypeScript", "tsx": "TypeScript", "javascript": "JavaScript"}


def require_grammar(grammar: str) -> None:
    """Raise :class:`GrammarsUnavailable`, with the install command, unless tree-sitter and
    ``grammar``'s wheel import: they are an extra, off the default (Python) path."""
    for module in ("tree_sitter", _GRAMMAR_MODULES.get(grammar, "tree_sitter_rust")):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            name = _LANGUAGE_NAMES.get(grammar, grammar.title())
            raise GrammarsUnavailable(
                f"reading {name} sources needs tree-sitter and its grammars ({module} is not installed)",
                hint="install the languages extra: pip install 'docmentor[languages]'",
            ) from exc


@cache
def grammar_parser(grammar: str) -> Parser:
    require_grammar(grammar)
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


def module_of(rel: PurePosixPath, language: SourceLanguage) -> str:
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


def node_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def without_line_comments(text: str) -> str:
    """``text`` without its ``//`` line comments (outside string literals): a declaration
    written over several lines keeps its meaning once joined on one (TS, JS, Go and Rust). A
    ``'`` opens a string only when the line closes it (Rust's lifetime ``'a`` does not); a
    template literal (`` ` ``) may run over lines."""
    if "//" not in text:
        return text
    out: list[str] = []
    quote = ""
    for line in text.split("\n"):
        if quote != "`":
            quote = ""
        cut = len(line)
        i = 0
        while i < len(line):
            c = line[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = ""
            elif c in '"`' or (c == "'" and "'" in line[i + 1 :]):
                quote = c
            elif c == "/" and line.startswith("//", i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


# a TypeScript object type's member on a line of its own (`useStrictShallowCopy?: StrictMode`)
_MEMBER_LINE = re.compile(r"[ \t]*(?:readonly[ \t]+)?[A-Za-z_$][\w$]*\??[ \t]*:")
_MEMBER_ENDS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$])>'\"`?")


def _separated(lines: list[str]) -> list[str]:
    """Lines of an object type whose members are one per line without ``;``: each member ends
    with one, so that joined they stay apart (``{ a?: boolean; b?: string }``)."""
    out = list(lines)
    for i in range(len(out) - 1):
        here = out[i].rstrip()
        if here and here[-1] in _MEMBER_ENDS and _MEMBER_LINE.match(out[i + 1]) and _MEMBER_LINE.match(here):
            out[i] = here + ";"
    return out


def squash_space(text: str) -> str:
    """Code on one line: runs of blanks one space, none inside brackets' edges. A ``//`` line
    comment is left out, as joining would swallow what follows it; an object type's members
    written one per line keep a ``;`` between them."""
    text = " ".join("\n".join(_separated(without_line_comments(text).split("\n"))).split())
    text = re.sub(r"([(<\[]) ", r"\1", text)
    return re.sub(r",? ([)>\]])", r"\1", text)


def declaration_header(node: Node, stop: Node | None, source: bytes) -> str:
    """The declaration's source text up to its body, on one line."""
    end = stop.start_byte if stop is not None else node.end_byte
    text = source[node.start_byte : end].decode("utf-8", "replace").strip()
    for tail in ("{", ";"):
        text = text.removesuffix(tail).rstrip()
    return squash_space(text)


def summary_of(doc: str) -> str:
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


def core_type(type_text: str | None) -> str | None:
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


# -- collection ---------------------------------------------------------------------------------


@dataclass
class Reexport:
    module: str  # where the names become public
    targets: list[str]  # candidate modules the names come from, most likely first
    name: str  # "*" for all
    local: str


@dataclass
class SourceFile:
    rel: PurePosixPath
    module: str
    language: SourceLanguage
    source: bytes


class Collector:
    def __init__(self, library: str) -> None:
        self.library = library
        self.entries: dict[str, ApiEntry] = {}
        self.module: dict[str, str] = {}  # api_id → module
        self.names: dict[str, dict[str, str]] = {}  # module → public top-level name → api_id
        self.reexports: list[Reexport] = []
        self.impls: list[tuple[str, str, str]] = []  # (module, type name, trait/embedded name)
        self.imports: dict[str, dict[str, tuple[list[str], str]]] = {}  # module → local → (modules, name)
        # module → module-level variable → the class it is an instance of (`const immer = new Immer()`)
        self.instances: dict[str, dict[str, str]] = {}
        # Rust: modules users cannot name (`mod ptr;` without pub, `#[doc(hidden)] pub mod
        # __private`): what is defined there is API only through a `pub use` elsewhere
        self.hidden_modules: set[str] = set()
        # TypeScript: module → namespace it exports (`export { z }` of `import * as z`) → the
        # module path its names take (`lib.z`); an `export *` of that module passes it on
        self.namespaces: dict[str, dict[str, str]] = {}

    def qualify(self, *parts: str) -> str:
        return ".".join(p for p in (self.library, *parts) if p)

    def add(
        self, f: SourceFile, node: Node, *, name: str, parent: str | None = None, **fields: object
    ) -> str:
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
                    "description": summary_of(summary),
                    "deprecated": _deprecated(doc),
                    **fields,
                }
            )
            self.module[api_id] = f.module
            if parent is None:
                self.names.setdefault(f.module, {}).setdefault(name, api_id)
        elif node.type in _OVERLOAD_NODES and fields.get("kind") in ("function", "method"):
            # TypeScript overloads: each signature is a form the function is called in (the
            # implementation's own, after them, is not callable from outside and is left out)
            entry = self.entries[api_id]
            signature = str(fields.get("signature") or "")
            if entry.kind in ("function", "method") and signature and signature != entry.signature:
                if not entry.overloads:
                    entry.overloads.append(entry.signature)
                if signature not in entry.overloads:
                    entry.overloads.append(signature)
        return api_id


# a declaration without a body: one of an overloaded function's forms
_OVERLOAD_NODES = frozenset({"function_signature", "method_signature", "abstract_method_signature"})

# JSDoc/TSDoc `@deprecated reason`, Go's "Deprecated: reason" paragraph (Rust's #[deprecated]
# attribute is not read)
_DEPRECATED = re.compile(r"(?:^|\n)\s*(?:@deprecated\b|Deprecated:)[ \t]*([^\n]*)")


def _deprecated(doc: str) -> str | None:
    """Why the API is deprecated, when its doc comment says so (``@deprecated …``,
    ``Deprecated: …``); ``None`` otherwise."""
    m = _DEPRECATED.search(doc)
    if m is None:
        return None
    return (m.group(1).strip() or "deprecated")[:200]


def api_return(type_text: str | None, description: str = "") -> ApiReturn:
    return ApiReturn(type=type_text or None, description=description)


def descendants(node: Node | None, *types: str, depth: int = 6) -> Iterator[Node]:
    if node is None or depth < 0:
        return
    for child in node.named_children:
        if child.type in types:
            yield child
        else:
            yield from descendants(child, *types, depth=depth - 1)
