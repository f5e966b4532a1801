"""What the TypeScript/JavaScript, Go and Rust readers of repository documentation share:
which suffix is which language, parsing a file with its tree-sitter grammar (the library's
``languages`` extra, loaded as ``library/surface/treesitter`` loads it), a file's lines and
the text of a node, doc comments, component records, and methods declared apart from their
type (Go methods, Rust ``impl`` blocks) attached to it.

A file that does not parse (tree-sitter's tree has an error node) is a ``Problem`` with the
line of its first error; a missing grammar is one too, never a crash.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from docmentor.library.surface.treesitter.core import GrammarsUnavailable, grammar_parser, squash_space
from docmentor.repodocs.units import CallSite, Component, Module, Parameter, sha256_text

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

Language = Literal["python", "typescript", "javascript", "go", "rust"]

GRAMMARS: dict[str, str] = {
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".go": "go", ".rs": "rust",
}  # fmt: skip
SUFFIXES: tuple[str, ...] = (".py", *GRAMMARS)
_FENCES: dict[str, str] = {".py": "python", ".tsx": "tsx", ".jsx": "jsx", ".go": "go", ".rs": "rust"}
# return types that say "no value": Returns is written only for the others
NO_VALUE = frozenset({"void", "never", "undefined", "null", "Promise<void>", "PromiseLike<void>", "()", "!"})


def suffix_of(path: str) -> str:
    """The file's suffix, lower case (``.ts``)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def language_of(path: str) -> Language | None:
    """The language a file is read as, by its suffix (None: not read)."""
    suffix = suffix_of(path)
    if suffix == ".py":
        return "python"
    grammar = GRAMMARS.get(suffix)
    if grammar is None:
        return None
    lang = {"tsx": "typescript"}.get(grammar, grammar)
    return lang  # type: ignore[return-value]


def fence_language(path: str) -> str:
    """The info string of a code fence holding this file's code."""
    suffix = suffix_of(path)
    return _FENCES.get(suffix) or language_of(path) or ""


def returns_value(returns: str | None) -> bool:
    """A written return type other than one that says "no value" (``void``, ``()``, …)."""
    return returns is not None and squash_space(returns) not in NO_VALUE


class Source:
    """A file's bytes and lines (split at LF, CR LF and CR, as the Python reader does)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        text = data.decode("utf-8", errors="replace")
        self.text = text
        self.lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if len(self.lines) > 1 and self.lines[-1] == "":
            self.lines.pop()

    def of(self, node: Node | None) -> str:
        """The node's text as written."""
        if node is None:
            return ""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def between(self, start: int, end: int) -> str:
        """The text between two byte offsets, on one line."""
        return squash_space(self.data[start:end].decode("utf-8", errors="replace"))

    def hash(self, start: int, end: int) -> str:
        """The sha256 of lines ``start`` … ``end`` (1-based, inclusive)."""
        return sha256_text("\n".join(self.lines[start - 1 : end]))


def line(node: Node) -> int:
    """The node's first line, 1-based."""
    return int(node.start_point[0]) + 1


def end_line(node: Node) -> int:
    """The node's last line, 1-based (a node ending at a line's column 0 ends on the line before)."""
    row, column = int(node.end_point[0]), int(node.end_point[1])
    if column == 0 and row > int(node.start_point[0]):
        return row
    return row + 1


def parse(path: str, data: bytes) -> tuple[Tree | None, str | None]:
    """The file's syntax tree, and what to tell about it: None and why there is none (a
    missing grammar), or the tree and the line of its first syntax error, when it has one —
    what parsed around the error is read (a grammar older than the code: TypeScript's ``in`` /
    ``out`` variance, overloads in an interface), what the error swallowed is left out (a
    declaration, or only a member of a class around it)."""
    grammar = GRAMMARS[suffix_of(path)]
    try:
        parser = grammar_parser(grammar)
    except GrammarsUnavailable as exc:
        return None, f"not read: {exc}"
    tree = parser.parse(data)
    root = tree.root_node
    if root.has_error:
        where = first_error(root)
        if not any(_whole_declaration(c) for c in root.children):  # nothing to read around it
            return None, "does not parse: syntax error" + (f" (line {where})" if where else "")
        told = "partly read: a syntax error" + (f" at line {where}" if where else "")
        return tree, told + "; what the error swallowed is left out"
    return tree, None


_DECLARATION_ENDINGS = ("_declaration", "_statement", "_item", "_clause", "_definition")


def _whole_declaration(node: Node) -> bool:
    """A top-level declaration that parsed whole (an import, a function, a type …)."""
    return (
        node.type != "expression_statement"
        and node.type.endswith(_DECLARATION_ENDINGS)
        and not node.has_error
    )


def first_error(root: Node) -> int | None:
    """The line of the first error or missing node that holds no other (iterative, in source
    order): a file tree-sitter wraps whole in an error is reported where the code goes
    wrong, not at its first line."""
    stack = [root]
    while stack:
        node = stack.pop()
        inner = [c for c in node.children if c.has_error or c.type == "ERROR" or c.is_missing]
        if (node.type == "ERROR" or node.is_missing) and not inner:
            return line(node)
        stack += reversed(inner)
    return None


def walk(node: Node, stop: frozenset[str] = frozenset()) -> Iterator[Node]:
    """Every node under ``node`` (itself first), not descending into node types in ``stop``
    (iterative, so a deep tree reaches no recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is node or current.type not in stop:
            stack += reversed(current.children)


def comments_above(
    siblings: list[Node], index: int, kinds: frozenset[str], skip: frozenset[str]
) -> list[Node]:
    """The comment nodes (types ``kinds``) directly above ``siblings[index]``: contiguous
    lines, no blank line between them and the definition; nodes of types ``skip``
    (attributes, decorators) may stand between."""
    found: list[Node] = []
    next_line = line(siblings[index])
    for node in reversed(siblings[:index]):
        if end_line(node) < next_line - 1:
            break
        if node.type in kinds:
            found.append(node)
        elif node.type not in skip:
            break
        next_line = line(node)
    found.reverse()
    return found


def clean_block_comment(text: str) -> str:
    """A ``/** … */`` comment's text: the markers and each line's leading ``*`` removed."""
    body = text.removeprefix("/**").removeprefix("/*!").removesuffix("*/")
    lines = [ln.strip() for ln in body.split("\n")]
    lines = [ln[1:].removeprefix(" ") if ln.startswith("*") else ln for ln in lines]
    return "\n".join(lines).strip()


def clean_line_comments(texts: Iterable[str], marker: str) -> str:
    """Line comments' text: ``marker`` (``//``, ``///``, ``//!``) and one space removed."""
    out = []
    for text in texts:
        body = text.strip().removeprefix(marker)
        out.append(body[1:] if body.startswith(" ") else body)
    return "\n".join(out).strip()


def unique_calls(calls: Iterable[CallSite]) -> tuple[CallSite, ...]:
    """Calls in source order (line, then name), each (name, line) once."""
    return tuple(sorted(set(calls), key=lambda c: (c.line, c.name)))


class Ids:
    """Component ids within one file: a name defined twice in one scope gets ``#2``, ``#3`` …"""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def unique(self, unit_id: str) -> str:
        count = self.seen.get(unit_id, 0) + 1
        self.seen[unit_id] = count
        return unit_id if count == 1 else f"{unit_id}#{count}"


@dataclass
class FileFacts:
    """What ``code_facts`` needs of one file, by a component's (first, last) line: functions
    that return a value, generators, the names each function binds; and the module's
    top-level names (constants, variables)."""

    returns: set[tuple[int, int]] = field(default_factory=set)
    yields: set[tuple[int, int]] = field(default_factory=set)
    local: dict[tuple[int, int], frozenset[str]] = field(default_factory=dict)
    module_names: set[str] = field(default_factory=set)


@dataclass
class ReadFile:
    """What a language reader read of one file: its module, its components, the methods it
    declares apart from their type (``groups``: Go methods, Rust ``impl`` blocks; none in
    TypeScript/JavaScript) and what ``code_facts`` needs of it."""

    module: Module
    components: list[Component]
    groups: list[MethodGroup] = field(default_factory=list)
    facts: FileFacts = field(default_factory=FileFacts)


@dataclass
class MethodGroup:
    """Methods declared apart from their type (a Go method, a Rust ``impl`` block): their
    type's name as written, the trait an ``impl Trait for Type`` implements, and the methods
    (their ids, qualnames and parents set when the type is found)."""

    type_name: str
    module: str  # the id of the file's module
    methods: list[Component]
    trait: str | None = None


def attach_methods(
    components: list[Component], groups: list[MethodGroup], scopes: dict[str, list[str]]
) -> tuple[list[Component], dict[str, list[str]]]:
    """Each group's methods made members of their type: the class of that name in the group's
    module, else in the modules of ``scopes[module]`` (its Go package, its Rust crate) when
    exactly one defines it; the trait added to the type's bases. A type found nowhere keeps
    its methods at its file's module level (``Module.Type.method``). Returns the components
    and, by module id, the ids to add to each module's top-level components."""
    classes: dict[tuple[str, str], Component] = {
        (c.module, c.name): c for c in components if c.kind == "class" and c.parent == c.module
    }
    by_id = {c.id: c for c in components}
    members: dict[str, list[str]] = {}
    bases: dict[str, list[str]] = {}
    top: dict[str, list[str]] = {}
    out: list[Component] = []
    ids: dict[str, Ids] = {}
    for group in groups:
        owner = classes.get((group.module, group.type_name))
        if owner is None:
            found = [
                classes[(m, group.type_name)]
                for m in scopes.get(group.module, [])
                if (m, group.type_name) in classes
            ]
            owner = found[0] if len(found) == 1 else None
        prefix = owner.id if owner is not None else f"{group.module}.{group.type_name}"
        counter = ids.setdefault(prefix, Ids())
        for method in group.methods:
            unit_id = counter.unique(f"{prefix}.{method.name}")
            qualname = f"{owner.qualname if owner else group.type_name}.{method.name}"
            parent = owner.id if owner else group.module
            module = owner.module if owner else group.module
            out.append(replace(method, id=unit_id, qualname=qualname, parent=parent, module=module))
            if owner is not None:
                members.setdefault(owner.id, []).append(unit_id)
            else:
                top.setdefault(group.module, []).append(unit_id)
        if owner is not None and group.trait and group.trait not in bases.get(owner.id, []):
            bases.setdefault(owner.id, []).append(group.trait)
    for unit_id in set(members) | set(bases):
        c = by_id[unit_id]
        by_id[unit_id] = replace(
            c,
            members=c.members + tuple(members.get(unit_id, [])),
            bases=c.bases + tuple(b for b in bases.get(unit_id, []) if b not in c.bases),
        )
    return [*by_id.values(), *out], top


def parameter(
    name: str, annotation: str | None = None, default: str | None = None, *, rest: bool = False
) -> Parameter:
    """A parameter of a function in one of these languages (positional; ``rest``: ``...xs``)."""
    kind: Literal["var_positional", "positional_or_keyword"] = (
        "var_positional" if rest else "positional_or_keyword"
    )
    return Parameter(" ".join(name.split()), kind, squash_space(annotation) if annotation else None, default)
