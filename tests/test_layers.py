"""The layer order of ``src/docmentor`` and no cross-module private imports, read from the code.

Layers, lowest first (``LAYERS``). A module may import from its own layer or a lower one:

0. **base** — ``models``, ``errors``, ``config``, ``_yaml``: small shared leaves (data types,
   error types, index and cache locations, the YAML loader) that import nothing above them.
1. **inputs** — ``sources``, ``parse``, ``embeddings``, ``llm``: reading and parsing
   documents, the embedding model and the chat-model client.
2. **store** — the record (SQLite).
3. **search** — the lexical and semantic indexes over the store.
4. **engine** — the ``Docmentor`` facade, and ``scheduler`` (background refresh and embedding).
5. **products** — ``assemble``, ``clarity``, ``library`` (library knowledge), ``evaluation``,
   ``access`` (what score_document may read).
6. **adapters** — ``cli``, ``server``, ``mcp_*``, ``__main__``, and the
   package root ``docmentor/__init__.py`` (the public namespace re-exports from any layer).

What counts as an import: every ``import docmentor…`` and ``from docmentor… import …`` in a
module, wherever it is — at the top, inside a function (a lazy import), under
``if TYPE_CHECKING:`` — with relative imports resolved; ``from package import name`` where
``name`` is a submodule imports that submodule. The package root's ``__version__`` is a
constant any module may read. Every module must belong to a layer: a new top-level module
is placed in ``LAYERS`` when it is added.

Private names: ``from module import _name`` (one leading underscore) and ``module._name``
on an imported docmentor module are allowed only inside the module that defines the name;
a private submodule (``clarity/checks/_page.py``) may be imported only from its own package.
Share a name by making it public (or moving it to a small shared module).

SQL: the store owns every query on its schema. No module outside ``docmentor.store`` imports
``sqlite3``, calls ``.execute``/``.executemany``/``.executescript``, takes the store's raw
connection (``.conn()``, ``.transaction()``) or binds one from ``with store.snapshot() as db``
(a bare ``with store.snapshot():`` only groups the store's own reads); a product asks the
store for a typed function instead (``store/docs.py``, ``store/feedback.py``, ``store/kb.py``,
``store/vectors.py``).

What is not fixed yet is listed below with its reason; an entry that no longer occurs fails
the test, so the lists only shrink.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "docmentor"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("docmentor.models", "docmentor.errors", "docmentor.config", "docmentor._yaml")),
    ("inputs", ("docmentor.sources", "docmentor.parse", "docmentor.embeddings", "docmentor.llm")),
    ("store", ("docmentor.store",)),
    ("search", ("docmentor.search",)),
    ("engine", ("docmentor.engine", "docmentor.scheduler")),
    (
        "products",
        (
            "docmentor.assemble",
            "docmentor.clarity",
            "docmentor.library",
            "docmentor.evaluation",
            "docmentor.access",
            "docmentor.repodocs",
            "docmentor.auth",
            "docmentor.worker",
        ),
    ),
    (
        "adapters",
        (
            "docmentor.cli",
            "docmentor.server",
            "docmentor.mcp_*",
            "docmentor.__main__",
            "docmentor",  # the root only: its submodules are placed above
        ),
    ),
)
ROOT_CONSTANTS = frozenset({"__version__"})

# (importer, imported module): reason. Upward imports not fixed yet.
LAYER_EXCEPTIONS: dict[tuple[str, str], str] = {}

# (importer, defining module, name): reason. Private names used across modules, not fixed yet.
PRIVATE_EXCEPTIONS: dict[tuple[str, str, str], str] = {}

# (module, what): reason. SQL outside the store, not moved yet (what: as ``raw_sql`` names it).
SQL_EXCEPTIONS: dict[tuple[str, str], str] = {}
SQL_CALLS = frozenset({"execute", "executemany", "executescript", "conn", "transaction"})


@dataclass(frozen=True)
class Imported:
    importer: str  # the importing module
    module: str  # the module imported from (a submodule named in `from package import sub`: it)
    name: str | None  # the name taken from it (`from module import name`), None for `import module`
    line: int


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(src: Path = SRC) -> dict[str, Path]:
    return {module_name(p, src): p for p in sorted((src / PACKAGE).rglob("*.py"))}


def imports(name: str, path: Path, known: dict[str, Path]) -> list[Imported]:
    """Every docmentor import in the module, anywhere in it (functions, TYPE_CHECKING too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Imported] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Imported(name, a.name, None, node.lineno) for a in node.names if _ours(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not _ours(target):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in known:
                    found.append(Imported(name, sub, None, node.lineno))
                else:
                    found.append(Imported(name, target, a.name, node.lineno))
    return found


def private_attributes(name: str, path: Path, known: dict[str, Path]) -> list[Imported]:
    """``mod._name`` where ``mod`` is bound to a docmentor module by an import in this module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _ours(a.name):
                    bound[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _ours(node.module or ""):
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                if sub in known:
                    bound[a.asname or a.name] = sub
    return [
        Imported(name, bound[node.value.id], node.attr, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in bound
        and _private(node.attr)
    ]


def _ours(module: str) -> bool:
    return module == PACKAGE or module.startswith(PACKAGE + ".")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def layer_of(module: str) -> int | None:
    """The layer of a module: its longest matching entry in LAYERS (``x.*``: x's siblings by prefix)."""
    best: tuple[int, int] | None = None  # (length of the match, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if prefix.endswith("*"):
                hit = module.startswith(prefix[:-1])
            elif prefix == PACKAGE:
                hit = module == PACKAGE
            else:
                hit = module == prefix or module.startswith(prefix + ".")
            if hit and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def layer_violations(src: Path = SRC) -> list[tuple[str, str, str]]:
    """(importer, imported module, "file:line: what") for each import that points up a layer."""
    known = modules(src)
    out: list[tuple[str, str, str]] = []
    for name, path in known.items():
        here = layer_of(name)
        for imp in imports(name, path, known):
            if imp.module == PACKAGE and imp.name in ROOT_CONSTANTS:
                continue
            there = layer_of(imp.module)
            if here is not None and there is not None and there > here:
                what = f"{LAYERS[here][0]} module {name} imports {imp.module} ({LAYERS[there][0]})"
                out.append((name, imp.module, f"{path.relative_to(src)}:{imp.line}: {what}"))
    return list(dict.fromkeys(out))  # one per line and module, however many names it takes


def private_imports(src: Path = SRC) -> list[tuple[str, str, str, str]]:
    """(importer, defining module, name, "file:line") for each private name used across modules."""
    known = modules(src)
    out: list[tuple[str, str, str, str]] = []
    for name, path in known.items():
        for imp in [*imports(name, path, known), *private_attributes(name, path, known)]:
            where = f"{path.relative_to(src)}:{imp.line}"
            if imp.name is not None and _private(imp.name) and imp.module != name:
                out.append((name, imp.module, imp.name, where))
            # a private submodule, imported from outside its own package
            parts = imp.module.split(".")
            for k, part in enumerate(parts):
                owner = ".".join(parts[:k])
                if _private(part) and not (name == owner or name.startswith(owner + ".")):
                    out.append((name, owner, part, where))
    return out


def raw_sql(path: Path) -> list[tuple[str, int]]:
    """(what, line) for each use of SQL or of a raw connection in the module: ``import
    sqlite3``, ``x.execute(…)`` (and ``executemany``, ``executescript``), ``x.conn()``,
    ``x.transaction()``, ``with x.snapshot() as db``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [
                ("import sqlite3", node.lineno) for a in node.names if a.name.split(".")[0] == "sqlite3"
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite3":
            found.append(("import sqlite3", node.lineno))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_CALLS
        ):
            found.append((f".{node.func.attr}()", node.lineno))
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                call = item.context_expr
                if (
                    item.optional_vars is not None
                    and isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "snapshot"
                ):
                    found.append(("with .snapshot() as", node.lineno))
    return found


def sql_outside_the_store(src: Path = SRC) -> list[tuple[str, str, str]]:
    """(module, what, "file:line") for each raw SQL use outside ``docmentor.store``."""
    out: list[tuple[str, str, str]] = []
    for name, path in modules(src).items():
        if name == f"{PACKAGE}.store" or name.startswith(f"{PACKAGE}.store."):
            continue
        out += [(name, what, f"{path.relative_to(src)}:{line}") for what, line in raw_sql(path)]
    return out


# -- the project ----------------------------------------------------------------------------


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(m for m in modules() if layer_of(m) is None)
    assert not unplaced, f"place these modules in LAYERS (tests/test_layers.py): {unplaced}"


def test_imports_follow_the_layer_order() -> None:
    found = layer_violations()
    new = [what for importer, module, what in found if (importer, module) not in LAYER_EXCEPTIONS]
    assert not new, "imports that point up a layer (see the layers in tests/test_layers.py):\n" + "\n".join(
        new
    )
    stale = sorted(set(LAYER_EXCEPTIONS) - {(i, m) for i, m, _ in found})
    assert not stale, f"fixed: remove these from LAYER_EXCEPTIONS in tests/test_layers.py: {stale}"


def test_no_private_names_are_imported_across_modules() -> None:
    found = private_imports()
    new = [
        f"{where}: {name} from {module}"
        for i, module, name, where in found
        if (i, module, name) not in PRIVATE_EXCEPTIONS
    ]
    assert not new, "private names used outside their module (make them public or move them):\n" + "\n".join(
        new
    )
    stale = sorted(set(PRIVATE_EXCEPTIONS) - {(i, m, n) for i, m, n, _ in found})
    assert not stale, f"fixed: remove these from PRIVATE_EXCEPTIONS in tests/test_layers.py: {stale}"


def test_the_store_imports_no_product() -> None:
    known = modules()
    products = [i for i, (layer, _) in enumerate(LAYERS) if layer == "products"]
    for name, path in known.items():
        if name.startswith("docmentor.store"):
            above = [i.module for i in imports(name, path, known) if (layer_of(i.module) or 0) >= products[0]]
            assert not above, f"{name} imports {above}"


def test_only_the_store_runs_sql() -> None:
    found = sql_outside_the_store()
    new = [f"{where}: {what} in {name}" for name, what, where in found if (name, what) not in SQL_EXCEPTIONS]
    assert not new, (
        "SQL outside the store: give the store a typed function for it (store/docs.py, "
        "store/feedback.py, store/kb.py, store/vectors.py) and call that:\n" + "\n".join(new)
    )
    stale = sorted(set(SQL_EXCEPTIONS) - {(n, w) for n, w, _ in found})
    assert not stale, f"fixed: remove these from SQL_EXCEPTIONS in tests/test_layers.py: {stale}"


# -- the checker itself, on a small package ---------------------------------------------------


def _package(tmp: Path, files: dict[str, str]) -> Path:
    for rel, text in {"__init__.py": "__version__ = '1'\n", **files}.items():
        path = tmp / PACKAGE / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text, encoding="utf-8")
    return tmp


def test_the_checker_sees_lazy_type_checking_and_relative_imports(tmp_path: Path) -> None:
    src = _package(
        tmp_path,
        {
            "store/kb.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from docmentor.library.models import ApiEntry\n"
                "def load():\n    from ..engine import Docmentor\n    from docmentor import __version__\n"
            ),
            "library/models.py": "from docmentor.store import kb\nfrom .. import errors\n",
            "engine.py": "",
            "errors.py": "",
        },
    )
    found = sorted(what for _, _, what in layer_violations(src))
    assert found == [
        "docmentor/store/kb.py:3: store module docmentor.store.kb imports docmentor.library.models (products)",
        "docmentor/store/kb.py:5: store module docmentor.store.kb imports docmentor.engine (engine)",
    ]


def test_the_checker_sees_private_names_across_modules(tmp_path: Path) -> None:
    src = _package(
        tmp_path,
        {
            "library/examples/matcher.py": "class _Value: ...\ndef f():\n    return _Value()\n",
            "library/examples/drift.py": (
                "from docmentor.library.examples.matcher import _Value\n"
                "from docmentor.library.examples import matcher\nx = matcher._Value\n"
                "from docmentor.clarity.checks._page import Page\n"
            ),
            "clarity/checks/_page.py": "class Page: ...\n",
            "clarity/checks/code.py": "from docmentor.clarity.checks._page import Page\nfrom docmentor import _yaml\n",
            "_yaml.py": "",
        },
    )
    assert sorted((i, m, n) for i, m, n, _ in private_imports(src)) == [
        ("docmentor.library.examples.drift", "docmentor.clarity.checks", "_page"),
        ("docmentor.library.examples.drift", "docmentor.library.examples.matcher", "_Value"),
        ("docmentor.library.examples.drift", "docmentor.library.examples.matcher", "_Value"),
    ]


def test_the_checker_sees_sql_outside_the_store(tmp_path: Path) -> None:
    src = _package(
        tmp_path,
        {
            "store/db.py": "import sqlite3\ndef conn():\n    return sqlite3.connect(':memory:')\n",
            "library/examples/examples.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from sqlite3 import Row\n"
                "def f(engine):\n    db = engine.store.conn()\n    db.execute('SELECT 1')\n"
                "    with engine.store.transaction() as tx:\n        tx.executemany('x', [])\n"
                "    with engine.store.snapshot():\n        engine.store.content(1)\n"
                "    with engine.store.snapshot() as db:\n        pass\n"
            ),
            "clarity/report.py": "def execute_plan(x):\n    return x.run()\n",
        },
    )
    assert sorted((n, w, where) for n, w, where in sql_outside_the_store(src)) == [
        ("docmentor.library.examples.examples", ".conn()", "docmentor/library/examples/examples.py:5"),
        ("docmentor.library.examples.examples", ".execute()", "docmentor/library/examples/examples.py:6"),
        ("docmentor.library.examples.examples", ".executemany()", "docmentor/library/examples/examples.py:8"),
        ("docmentor.library.examples.examples", ".transaction()", "docmentor/library/examples/examples.py:7"),
        ("docmentor.library.examples.examples", "import sqlite3", "docmentor/library/examples/examples.py:3"),
        (
            "docmentor.library.examples.examples",
            "with .snapshot() as",
            "docmentor/library/examples/examples.py:11",
        ),
    ]


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("docmentor", "adapters"),
        ("docmentor.mcp_api", "adapters"),
        ("docmentor.models", "base"),
        ("docmentor.library.surface.treesitter.core", "products"),
        ("docmentor.store.kb", "store"),
    ],
)
def test_layer_of(module: str, layer: str) -> None:
    index = layer_of(module)
    assert index is not None and LAYERS[index][0] == layer
