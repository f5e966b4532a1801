"""One Python module's ``ast`` → its ``Module`` unit and its components (functions, classes,
methods) with their parameters, signatures, calls, raises, imports and attributes.

Definitions are read where they are at module or class level, also under ``if``/``try``/
``with`` (``if TYPE_CHECKING:``, ``try: … except ImportError:``). See ``units.py`` for the ids.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from docmentor.repodocs.python_names import ImportNames
from docmentor.repodocs.units import (
    REPOSITORY_ID,
    CallSite,
    Component,
    ImportRef,
    MethodKind,
    Module,
    Parameter,
    ParameterKind,
    sha256_text,
)

_BLOCKS = (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class _Source:
    """A module's lines (split where Python splits them: at LF, CR LF and CR) and the text
    of a node as written."""

    def __init__(self, text: str) -> None:
        self.lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if len(self.lines) > 1 and self.lines[-1] == "":
            self.lines.pop()
        self._encoded: dict[int, bytes] = {}

    def _line(self, lineno: int) -> bytes:
        # ast's column offsets count UTF-8 bytes
        found = self._encoded.get(lineno)
        if found is None:
            found = self._encoded[lineno] = self.lines[lineno - 1].encode("utf-8", errors="surrogatepass")
        return found

    def segment(self, node: ast.expr | ast.keyword) -> str:
        """The node's source text; over several lines, joined by one space (unparsed instead
        when a comment is inside it)."""
        end = node.end_lineno or node.lineno
        end_col = node.end_col_offset if node.end_col_offset is not None else len(self._line(end))
        if end == node.lineno:
            return self._line(end)[node.col_offset : end_col].decode("utf-8", errors="replace")
        parts = [self._line(node.lineno)[node.col_offset :]]
        parts += [self._line(n) for n in range(node.lineno + 1, end)]
        parts.append(self._line(end)[:end_col])
        text = [p.decode("utf-8", errors="replace").strip() for p in parts]
        if any("#" in t for t in text):
            return ast.unparse(node)
        out = ""
        for t in filter(None, text):
            glue = "" if not out or out.endswith(("(", "[", "{")) or t.startswith((")", "]", "}")) else " "
            out += glue + t
        return out


@dataclass
class _Scope:
    """The class a definition is in (None at module level) and its qualname prefix."""

    qualname: str = ""
    class_id: str | None = None


class ModuleReader:
    def __init__(self, rel: str, text: str, tree: ast.Module, names: ImportNames) -> None:
        self.rel = rel
        self.source = _Source(text)
        self.lines = self.source.lines
        self.tree = tree
        self.id, self.dotted = names.module_id(rel)
        # the package relative imports start from (``pkg`` for ``pkg.mod`` and ``pkg.__init__``)
        self.package = self.dotted.rpartition(".")[0]
        self.text = text
        self.components: list[Component] = []
        self.seen: dict[str, int] = {}
        self.exported = _literal_all(tree.body)  # the module's `__all__`, when it is a literal
        self._exported = frozenset(self.exported or ())

    def read(self) -> tuple[Module, list[Component]]:
        top = self._body(self.tree.body, _Scope())
        module = Module(
            id=self.id,
            name=self.dotted,
            path=self.rel,
            package=REPOSITORY_ID,  # set when the packages are known
            line_start=1,
            line_end=max(len(self.lines), 1),
            docstring=ast.get_docstring(self.tree),
            content_hash=sha256_text(self.text),
            imports=tuple(self._imports(ast.walk(self.tree))),
            aliases=tuple(_aliases(self.tree.body)),
            calls=tuple(_calls(_outside_defs(self.tree.body), None)),
            components=tuple(top),
            exports=tuple(self.exported or ()),
        )
        return module, self.components

    def _public(self, name: str, scope: _Scope) -> bool | None:
        """A module-level definition is public when the module's literal ``__all__`` lists
        it (humanize's ``time.Unit`` is left out of it); None: the name's rule."""
        if self.exported is None or scope.class_id is not None:
            return None
        return name in self._exported

    def _unique(self, unit_id: str) -> str:
        count = self.seen.get(unit_id, 0) + 1
        self.seen[unit_id] = count
        return unit_id if count == 1 else f"{unit_id}#{count}"

    def _body(self, body: list[ast.stmt], scope: _Scope) -> list[str]:
        """The ids of the definitions in a module or class body (in its blocks too). The
        ``@overload`` stubs of a function implemented after them are its ``overloads``, not
        units (a tour: each stub was a unit, the implementation ``#6``, the class's
        constructor the first stub's)."""
        ids: list[str] = []
        defs = list(_definitions(body))
        implemented = {n.name for n in defs if not isinstance(n, ast.ClassDef) and not self._is_overload(n)}
        stubs: dict[str, list[str]] = {}
        since: dict[str, int] = {}  # the first stub's first line: the unit's span starts there
        for node in defs:
            if isinstance(node, ast.ClassDef):
                ids.append(self._class(node, scope))
            elif node.name in implemented and self._is_overload(node):
                stubs.setdefault(node.name, []).append(self._signature(node)[0])
                since.setdefault(node.name, self._span(node)[0])
            else:
                overloads = tuple(stubs.pop(node.name, ()))
                ids.append(self._function(node, scope, overloads, since.pop(node.name, None)))
        return ids

    def _is_overload(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether ``node`` is a ``typing.overload`` stub (``@overload``, ``@typing.overload``,
        ``@t.overload``)."""
        return any(self.source.segment(d).rpartition(".")[2] == "overload" for d in node.decorator_list)

    def _signature(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> tuple[str, tuple[Parameter, ...], str | None]:
        """``def name(params) -> return`` (``async def``), its parameters and its return."""
        params = _parameters(node.args, self.source)
        returns = self.source.segment(node.returns) if node.returns else None
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        text = f"{prefix} {node.name}({format_parameters(params)})" + (f" -> {returns}" if returns else "")
        return text, params, returns

    def _span(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[int, int, str]:
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        return start, end, sha256_text("\n".join(self.lines[start - 1 : end]))

    def _function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        scope: _Scope,
        overloads: tuple[str, ...] = (),
        since: int | None = None,
    ) -> str:
        """A function's unit; ``overloads`` and ``since``: its ``@overload`` stubs' signatures
        and the first line of the first (a stub edited is the function changed)."""
        qualname = f"{scope.qualname}{node.name}"
        unit_id = self._unique(f"{self.id}.{qualname}")
        start, end, digest = self._span(node)
        if since is not None and since < start:
            start, digest = since, sha256_text("\n".join(self.lines[since - 1 : end]))
        decorators = tuple(self.source.segment(d) for d in node.decorator_list)
        signature, params, returns = self._signature(node)
        in_class = scope.class_id is not None
        method_kind = _method_kind(decorators) if in_class else None
        receiver = params[0].name if in_class and method_kind != "static" and params else None
        inside = [*node.body, *node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        self.components.append(
            Component(
                id=unit_id,
                kind="method" if in_class else "function",
                name=node.name,
                qualname=qualname,
                module=self.id,
                parent=scope.class_id or self.id,
                path=self.rel,
                line_start=start,
                line_end=end,
                signature=signature,
                docstring=ast.get_docstring(node),
                content_hash=digest,
                decorators=decorators,
                parameters=params,
                returns=returns,
                is_async=isinstance(node, ast.AsyncFunctionDef),
                raises=tuple(dict.fromkeys(_raises(node.body))),
                calls=tuple(_calls(_walk_all(inside), receiver)),
                imports=tuple(self._imports(_walk_all(node.body))),
                method_kind=method_kind,
                public=self._public(node.name, scope),
                overloads=overloads,
                local_types=_local_types(_walk_all(node.body), receiver, self.source),
            )
        )
        return unit_id

    def _class(self, node: ast.ClassDef, scope: _Scope) -> str:
        qualname = f"{scope.qualname}{node.name}"
        unit_id = self._unique(f"{self.id}.{qualname}")
        start, end, digest = self._span(node)
        inner = _Scope(f"{qualname}.", unit_id)
        members = self._body(node.body, inner)
        bases = tuple(self.source.segment(b) for b in node.bases)
        bases += tuple(self.source.segment(k) for k in node.keywords)
        decorators = tuple(self.source.segment(d) for d in node.decorator_list)
        inits = [
            d
            for d in _definitions(node.body)
            if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == "__init__"
        ]
        # the implementation's, not an @overload stub's before it
        init = next((d for d in inits if not self._is_overload(d)), inits[0] if inits else None)
        params: tuple[Parameter, ...] = ()
        init_signature: str | None = None
        if init is not None:
            params = _parameters(init.args, self.source)[1:]
            init_signature = f"({format_parameters(params)})"
        elif any(d.split("(")[0].split(".")[-1] == "dataclass" for d in decorators):
            params = _dataclass_fields(node.body, self.source)
            init_signature = f"({format_parameters(params)})"
        self.components.append(
            Component(
                id=unit_id,
                kind="class",
                name=node.name,
                qualname=qualname,
                module=self.id,
                parent=scope.class_id or self.id,
                path=self.rel,
                line_start=start,
                line_end=end,
                signature=f"class {node.name}" + (f"({', '.join(bases)})" if bases else ""),
                docstring=ast.get_docstring(node),
                content_hash=digest,
                decorators=decorators,
                parameters=params,
                calls=tuple(_calls(_outside_defs(node.body), None)),
                imports=tuple(self._imports(_outside_defs(node.body))),
                bases=bases,
                init_signature=init_signature,
                members=tuple(members),
                attributes=tuple(_attributes(node)),
                public=self._public(node.name, scope),
            )
        )
        return unit_id

    def _imports(self, nodes: Iterable[ast.AST]) -> Iterator[ImportRef]:
        for node in nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    yield ImportRef(a.name, None, a.asname, 0, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                target = self._absolute(node.module, node.level)
                for a in node.names:
                    yield ImportRef(target, a.name, a.asname, node.level, node.lineno)

    def _absolute(self, module: str | None, level: int) -> str:
        if not level:
            return module or ""
        parts = self.package.split(".") if self.package else []
        if level - 1 > len(parts):
            return "." * level + (module or "")
        base = parts[: len(parts) - (level - 1)]
        return ".".join(base + ([module] if module else []))


def _definitions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """The definitions in a module or class body, in source order, also inside if/try/with."""
    for node in body:
        if isinstance(node, _DEFS):
            yield node
        elif isinstance(node, _BLOCKS):
            for part in ("body", "orelse", "finalbody"):
                yield from _definitions(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                yield from _definitions(handler.body)


def _outside_defs(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a body that is not inside one of its definitions (their decorators and
    bases are evaluated here, so they count; a function's default values count as the
    function's own)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack += reversed(node.decorator_list)
            continue
        if isinstance(node, ast.ClassDef):
            stack += reversed([*node.decorator_list, *node.bases, *(k.value for k in node.keywords)])
            continue
        yield node
        stack += reversed(list(ast.iter_child_nodes(node)))


def _walk_all(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for node in nodes:
        yield from ast.walk(node)


def _dotted(expr: ast.expr) -> str | None:
    """``a.b.c`` for a name or an attribute chain on a name; ``super().m``; else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super" and parts:
        parts.append("super()")
    else:
        return None
    return ".".join(reversed(parts))


def _local_types(
    nodes: Iterable[ast.AST], receiver: str | None, source: _Source
) -> tuple[tuple[str, str], ...]:
    """The local names whose type the code states (``Component.local_types``), by name."""
    found: dict[str, str | None] = {}

    def bind(target: ast.expr | None, how: str | None) -> None:
        """``how`` the name is bound; bound another way (or a way that says no type, None):
        unknown."""
        if isinstance(target, ast.Name):
            found[target.id] = how if how is not None and found.get(target.id, how) == how else None
        elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
            for name in ast.walk(target):  # unpacking: each name's type is unknown
                if isinstance(name, ast.Name):
                    found[name.id] = None

    def called(value: ast.expr | None) -> str | None:
        if not isinstance(value, ast.Call) or (name := _dotted(value.func)) is None:
            return None
        head, _, rest = name.partition(".")
        return "call:" + (
            "self" + (f".{rest}" if rest else "") if receiver is not None and head == receiver else name
        )

    for node in nodes:
        if isinstance(node, ast.AnnAssign):
            bind(node.target, source.segment(node.annotation))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, called(node.value) if len(node.targets) == 1 else None)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                bind(item.optional_vars, called(item.context_expr))
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension | ast.AugAssign | ast.NamedExpr):
            bind(node.target, None)  # bound by a loop or an operator: its type is not stated
    return tuple((n, how) for n, how in found.items() if how is not None and n != receiver)


def _calls(nodes: Iterable[ast.AST], receiver: str | None) -> Iterator[CallSite]:
    """The calls among ``nodes`` as dotted names; ``receiver`` (a method's first parameter)
    is written ``self``."""
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        if name is None:
            continue
        if receiver is not None:
            head, _, rest = name.partition(".")
            if head == receiver:
                name = "self" + (f".{rest}" if rest else "")
        yield CallSite(name, node.lineno)


def _raises(body: list[ast.stmt]) -> Iterator[str]:
    for node in _walk_all(body):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = _dotted(exc)
            if name is not None:
                yield name
        elif (  # a bare `raise` in `except OverflowError:` raises what it caught
            isinstance(node, ast.ExceptHandler)
            and node.type is not None
            and any(isinstance(n, ast.Raise) and n.exc is None for n in _own_statements(node.body))
        ):
            caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            # a clean-up's `except BaseException: …; raise` says nothing of what is raised
            yield from (
                name
                for c in caught
                if (name := _dotted(c)) is not None and name not in ("Exception", "BaseException")
            )


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a handler's body, not of the handlers nested in it (their bare ``raise``
    re-raises what they caught) nor of the functions defined in it."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.ExceptHandler | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))


def _literal_all(body: list[ast.stmt]) -> tuple[str, ...] | None:
    """The names of a module's ``__all__ = [...]`` (or a tuple), when it is a literal of
    strings, in its order (each once)."""
    names: dict[str, None] | None = None
    for node in body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):  # `__all__: list[str] = …`, `+= […]`
            targets = [node.target]
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        value = node.value
        if not (
            isinstance(value, ast.List | ast.Tuple)
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)
        ):
            return None  # built some other way: the names' rule
        found = dict.fromkeys(str(e.value) for e in value.elts if isinstance(e, ast.Constant))
        names = {**(names or {}), **found} if isinstance(node, ast.AugAssign) else found
    return tuple(names) if names is not None else None


def _aliases(body: list[ast.stmt]) -> Iterator[tuple[str, str]]:
    """Module-level ``Name = other.name`` assignments (also in if/try blocks)."""
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _dotted(node.value) if isinstance(node.value, ast.Name | ast.Attribute) else None
            if value is not None and "super()" not in value:
                yield node.targets[0].id, value
        elif isinstance(node, _BLOCKS):
            for part in ("body", "orelse", "finalbody"):
                yield from _aliases(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                yield from _aliases(handler.body)


def _parameters(args: ast.arguments, source: _Source) -> tuple[Parameter, ...]:
    def text(node: ast.expr | None) -> str | None:
        return None if node is None else source.segment(node)

    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out: list[Parameter] = []
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind: ParameterKind = "positional_only" if i < len(args.posonlyargs) else "positional_or_keyword"
        out.append(Parameter(arg.arg, kind, text(arg.annotation), text(default)))
    if args.vararg is not None:
        out.append(Parameter(args.vararg.arg, "var_positional", text(args.vararg.annotation)))
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        out.append(Parameter(arg.arg, "keyword_only", text(arg.annotation), text(kw_default)))
    if args.kwarg is not None:
        out.append(Parameter(args.kwarg.arg, "var_keyword", text(args.kwarg.annotation)))
    return tuple(out)


def format_parameters(params: Sequence[Parameter]) -> str:
    """Parameters as a signature writes them, with ``/`` and ``*`` where they belong."""
    parts: list[str] = []
    star = any(p.kind == "var_positional" for p in params)
    for i, p in enumerate(params):
        if p.kind == "keyword_only" and not star:
            parts.append("*")
            star = True
        text = p.name
        if p.kind == "var_positional":
            text = "*" + text
        elif p.kind == "var_keyword":
            text = "**" + text
        if p.annotation is not None:
            text += f": {p.annotation}"
        if p.default is not None:
            text += f" = {p.default}" if p.annotation is not None else f"={p.default}"
        parts.append(text)
        if p.kind == "positional_only" and (i + 1 == len(params) or params[i + 1].kind != "positional_only"):
            parts.append("/")
    return ", ".join(parts)


def _method_kind(decorators: Sequence[str]) -> MethodKind:
    for d in decorators:
        last = d.split("(")[0].split(".")[-1]
        if last == "staticmethod":
            return "static"
        if last == "classmethod":
            return "class"
        if last in {"property", "cached_property", "setter", "getter", "deleter"}:
            return "property"
    return "instance"


def _dataclass_fields(body: list[ast.stmt], source: _Source) -> tuple[Parameter, ...]:
    """A dataclass's ``__init__`` parameters: its annotated fields, not ``ClassVar``s;
    after ``_: KW_ONLY`` keyword-only."""
    out: list[Parameter] = []
    keyword_only = False
    for node in body:
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        annotation = source.segment(node.annotation)
        if "ClassVar" in annotation:
            continue
        if annotation.split(".")[-1] == "KW_ONLY":
            keyword_only = True
            continue
        default = source.segment(node.value) if node.value is not None else None
        kind: ParameterKind = "keyword_only" if keyword_only else "positional_or_keyword"
        out.append(Parameter(node.target.id, kind, annotation, default))
    return tuple(out)


def _attributes(node: ast.ClassDef) -> Iterator[str]:
    """Names assigned in the class body and on a method's first parameter, first seen first."""
    seen: set[str] = set()

    def new(name: str) -> bool:
        if name in seen:
            return False
        seen.add(name)
        return True

    for stmt in _outside_defs(node.body):
        for target in _targets(stmt):
            if isinstance(target, ast.Name) and new(target.id):
                yield target.id
    for method in _definitions(node.body):
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = [*method.args.posonlyargs, *method.args.args]
        if not args:
            continue
        receiver = args[0].arg
        for stmt in _walk_all(method.body):
            for target in _targets(stmt):
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == receiver
                    and new(target.attr)
                ):
                    yield target.attr


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        out: list[ast.expr] = []
        for t in node.targets:
            out += t.elts if isinstance(t, ast.Tuple | ast.List) else [t]
        return out
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return [node.target]
    return []
