"""What the deterministic documents need from the code beyond the units (``units.py``):
which functions return a value (``return <value>``) or yield, and the names each module
assigns at its top level (constants, type variables: what a default or an annotation may
name besides units and imports). One ``ast`` pass over each Python module's file, one
tree-sitter pass (``treesitter_repo.file_facts``) over each TypeScript/JavaScript, Go and Rust
one — there a function returns a value when it has a ``return <value>`` (TypeScript and
JavaScript: also an arrow function's expression body) or a result type (Go, Rust; ``()`` is
none), yields in a generator (``function*``), and binds its parameters, its ``let``/``const``/
``var``/``:=`` names and its ``catch`` names. A file that no longer reads or parses
contributes nothing (its units keep what ``read_repository`` found)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from docmentor.repodocs.treesitter_repo import file_facts
from docmentor.repodocs.treesitter_units import suffix_of
from docmentor.repodocs.units import Component, Module, RepoUnits

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_BLOCKS = (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.For, ast.While)


@dataclass(frozen=True)
class CodeFacts:
    """``returns_value``/``yields``: the ids of functions and methods with a ``return
    <value>`` / a ``yield`` in their own body (not in nested definitions). ``module_names``:
    each module's top-level assigned names (not its definitions or imports). ``local_names``:
    the names each function binds (assignments, ``except … as``, loop targets, parameters;
    in its nested functions too): ``raise error`` re-raises such a variable, not a class."""

    returns_value: frozenset[str]
    yields: frozenset[str]
    module_names: dict[str, frozenset[str]]
    local_names: dict[str, frozenset[str]]


def read_facts(root: Path, units: RepoUnits) -> CodeFacts:
    """The facts of every module of ``units`` read from ``root`` (sorted, deterministic)."""
    by_module: dict[str, list[Component]] = {}
    for c in units.components:
        if c.kind != "class":
            by_module.setdefault(c.module, []).append(c)
    returns: set[str] = set()
    yields: set[str] = set()
    names: dict[str, frozenset[str]] = {}
    local: dict[str, frozenset[str]] = {}
    foreign = [m for m in units.modules if suffix_of(m.path) != ".py"]
    if foreign:
        _foreign_facts(root, units, foreign, (returns, yields, names, local))
    for module in units.modules:
        if suffix_of(module.path) != ".py":
            continue
        tree = _parse(root / module.path)
        if tree is None:
            names[module.id] = frozenset()
            continue
        names[module.id] = frozenset(_assigned(tree.body))
        spans = {(c.line_start, c.line_end): c.id for c in by_module.get(module.id, [])}
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            unit_id = spans.get((start, node.end_lineno or node.lineno))
            if unit_id is None:
                continue  # a nested function: part of its enclosing one
            for inner in _own_nodes(node.body):
                if isinstance(inner, ast.Return) and inner.value is not None:
                    returns.add(unit_id)
                elif isinstance(inner, ast.Yield | ast.YieldFrom):
                    yields.add(unit_id)
            local[unit_id] = frozenset(_bound(node))
    return CodeFacts(frozenset(returns), frozenset(yields), names, local)


_Into = tuple[set[str], set[str], dict[str, frozenset[str]], dict[str, frozenset[str]]]


def _foreign_facts(root: Path, units: RepoUnits, modules: list[Module], into: _Into) -> None:
    """The facts of TypeScript/JavaScript, Go and Rust modules: by each function's file and
    span (a Go method may sit in another file than its type's module)."""
    returns, yields, names, local = into
    spans: dict[tuple[str, int, int], str] = {
        (c.path, c.line_start, c.line_end): c.id for c in units.components if c.kind != "class"
    }
    for module in modules:
        try:
            data = (root / module.path).read_bytes()
        except OSError:
            data = None
        facts = file_facts(module.path, data) if data is not None and b"\0" not in data else None
        if facts is None:
            names[module.id] = frozenset()
            continue
        names[module.id] = frozenset(facts.module_names)
        for (start, end), bound in facts.local.items():
            unit_id = spans.get((module.path, start, end))
            if unit_id is None:
                continue
            local[unit_id] = bound
            if (start, end) in facts.returns:
                returns.add(unit_id)
            if (start, end) in facts.yields:
                yields.add(unit_id)


def _parse(path: Path) -> ast.Module | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError):
        pass
    try:  # not valid in its declared encoding: read as python_units does, with replacements
        return ast.parse(data.decode("utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return None


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a function body outside its nested definitions and lambdas."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        stack += [n for n in ast.iter_child_nodes(node) if not isinstance(n, _SCOPES)]


def _bound(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[str]:
    """The names a function binds, in nested functions too (their code counts as its own,
    ``units.py``): parameters, assignment and loop targets, ``except … as`` names."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.arg):
            yield inner.arg
        elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
            yield inner.id
        elif isinstance(inner, ast.ExceptHandler) and inner.name:
            yield inner.name


def _assigned(body: list[ast.stmt]) -> Iterator[str]:
    """Top-level assignment targets, also inside if/try/with/for blocks."""
    for node in body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _names(target)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            yield from _names(node.target)
        elif isinstance(node, _BLOCKS):
            for part in ("body", "orelse", "finalbody"):
                yield from _assigned(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                yield from _assigned(handler.body)


def _names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _names(element)
    elif isinstance(target, ast.Starred):
        yield from _names(target.value)
