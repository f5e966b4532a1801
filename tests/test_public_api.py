"""The public API: the ``docmentor`` namespace is the library (griffe's model).

- every name in ``__all__`` resolves, to an object defined where the table says (a constant:
  that module's value), and no object has two public names;
- ``import docmentor`` stays light: no engine, tantivy or embedding runtime is loaded until
  a name is used;
- the adapters (``cli/``, ``server.py``, ``mcp_*.py``) reach the library
  through the top-level namespace; what they still import from deeper is listed in
  ``DEEP_IMPORTS`` with its reason, and an entry that no longer occurs fails, so the list
  only shrinks;
- result types are frozen dataclasses, except those listed in ``NOT_FROZEN`` with why.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import docmentor
from docmentor import assemble_context

SRC = Path(__file__).resolve().parents[1] / "src"
ADAPTERS = (
    "docmentor.cli",
    "docmentor.server",
    "docmentor.mcp_",
    "docmentor.__main__",
)
# (adapter module, library module it imports from): reason. An entry is a deep import not
# moved yet.
DEEP_IMPORTS: dict[tuple[str, str], str] = {}

# public dataclasses that are not frozen yet: reason
NOT_FROZEN: dict[str, str] = {}


def test_every_public_name_resolves_to_where_the_table_says() -> None:
    table = docmentor._EXPORTS
    assert sorted(docmentor.__all__) == sorted([*table, "__version__"])
    assert len(set(docmentor.__all__)) == len(docmentor.__all__)
    for name, module in table.items():
        obj = getattr(docmentor, name)
        own = docmentor._RENAMED.get(name, name)
        if not (inspect.isclass(obj) or inspect.isroutine(obj)):  # a constant: that module's value
            assert name.isupper(), f"docmentor.{name} is a constant: name it in capitals"
            assert getattr(importlib.import_module(module), own) is obj, f"docmentor.{name} is not {module}'s"
            continue
        assert obj.__module__ == module, f"docmentor.{name} is defined in {obj.__module__}, not {module}"
        assert obj.__name__ == own, f"docmentor.{name} is {obj.__name__}"
        assert not own.startswith("_"), f"docmentor.{name} exports a private name"
    assert isinstance(docmentor.__version__, str)


def test_every_public_object_is_exported_once() -> None:
    seen: dict[int, str] = {}
    for name in docmentor._EXPORTS:
        obj = getattr(docmentor, name)
        assert id(obj) not in seen, f"{seen[id(obj)]} and {name} are one object"
        seen[id(obj)] = name


def test_unknown_names_are_attribute_errors_and_dir_lists_the_api() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        docmentor.no_such_name  # noqa: B018
    assert not hasattr(docmentor, "_private")
    listed = dir(docmentor)
    assert set(docmentor.__all__) <= set(listed)
    assert listed == sorted(listed)


def test_errors_are_one_family() -> None:
    for name in ("UsageError", "NotFoundError", "SourceUnavailableError", "StoreError"):
        assert issubclass(getattr(docmentor, name), docmentor.DocmentorError)


def test_result_types_are_frozen_dataclasses() -> None:
    for name in docmentor._EXPORTS:
        obj = getattr(docmentor, name)
        if not (inspect.isclass(obj) and dataclasses.is_dataclass(obj)):
            continue
        frozen = obj.__dataclass_params__.frozen  # type: ignore[attr-defined]
        if name in NOT_FROZEN:
            assert not frozen, f"{name} is frozen now: remove it from NOT_FROZEN"
        else:
            assert frozen, f"docmentor.{name} is a mutable dataclass"
    assert set(NOT_FROZEN) <= set(docmentor._EXPORTS)


def test_assembly_is_a_function_of_the_engine() -> None:
    """Assembly is a product over the engine: ``assemble_context(engine, question, …)``,
    typed; the engine itself has no assembly method (it would import a layer above it)."""
    from docmentor.assemble import assemble

    assert docmentor.assemble_context is assemble
    assert not hasattr(docmentor.Docmentor, "assemble")
    params = inspect.signature(docmentor.assemble_context).parameters
    assert list(params)[:2] == ["engine", "query"]
    assert inspect.signature(assemble).return_annotation in ("Digest", docmentor.Digest)


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: list[str] = json.loads(out.stdout)
    return loaded


@pytest.mark.parametrize(
    "code",
    [
        "import docmentor",
        "from docmentor import DocmentorError, UsageError, __version__; dir(__import__('docmentor'))",
    ],
)
def test_import_docmentor_is_light(code: str) -> None:
    loaded = _loaded_after(code)
    heavy = [
        m
        for m in loaded
        if m in ("docmentor.engine", "tantivy", "onnxruntime", "numpy", "httpx", "sqlite3")
        or m.startswith(("docmentor.search", "docmentor.store", "docmentor.library"))
    ]
    assert heavy == [], f"{code!r} loaded {heavy}"


def test_a_name_loads_its_module_on_first_use() -> None:
    loaded = _loaded_after("import docmentor\ndocmentor.Digest")
    assert "docmentor.assemble.models" in loaded
    assert "docmentor.engine" not in loaded


def _adapter(module: str) -> bool:
    return module.startswith(ADAPTERS)


def deep_imports() -> dict[tuple[str, str], list[str]]:
    """(adapter, library module) → "file:line name" for each import an adapter takes from
    below the top-level namespace (its own adapter modules and ``docmentor`` itself are fine)."""
    found: dict[tuple[str, str], list[str]] = {}
    files = {}
    for path in sorted((SRC / "docmentor").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for name, path in files.items():
        if not _adapter(name):
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [(a.name, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [(base, a.name) for a in node.names]
            else:
                continue
            for module, what in targets:
                if f"{module}.{what}" in files:  # `from package import submodule`
                    module = f"{module}.{what}"
                if module == "docmentor" and (what == "__version__" or _adapter(f"docmentor.{what}")):
                    continue
                if not module.startswith("docmentor.") or _adapter(module):
                    continue
                where = f"{path.relative_to(SRC)}:{node.lineno} {what}"
                found.setdefault((name, module), []).append(where)
    return found


def test_adapters_reach_the_library_through_the_top_level_api() -> None:
    found = deep_imports()
    new = {k: v for k, v in found.items() if k not in DEEP_IMPORTS}
    assert not new, (
        "adapters import library objects from below the top-level API; import them from "
        f"`docmentor` (export them in docmentor/__init__.py if needed): {new}"
    )
    gone = sorted(k for k in DEEP_IMPORTS if k not in found)
    assert not gone, f"no longer imported: remove from DEEP_IMPORTS: {gone}"


def test_the_deep_import_check_sees_a_deep_import(tmp_path: Path) -> None:
    """The checker reads every import form (a lazy one inside a function, relative ones)."""
    global SRC
    pkg = tmp_path / "docmentor"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "cli" / "__init__.py").write_text("from docmentor import Docmentor\n")
    (pkg / "clarity").mkdir()
    (pkg / "clarity" / "__init__.py").write_text("")
    (pkg / "clarity" / "scoring.py").write_text("")
    (pkg / "cli" / "x.py").write_text(
        "def f():\n    from ..engine import Docmentor\n    import docmentor.store.db\n"
        "    from docmentor.clarity import scoring\n"
    )
    saved, SRC = SRC, tmp_path
    try:
        found = deep_imports()
    finally:
        SRC = saved
    assert set(found) == {
        ("docmentor.cli.x", "docmentor.engine"),
        ("docmentor.cli.x", "docmentor.store.db"),
        ("docmentor.cli.x", "docmentor.clarity.scoring"),
    }


def test_typed_results_have_the_keys_their_types_name(tmp_path: Path) -> None:
    """``Docmentor.sources`` and ``Docmentor.excerpt`` return the keys of ``SourceInfo`` and
    ``DocExcerpts``, in the order ``sources --json`` and the MCP tools have always shown."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "timeouts.md").write_text("# Timeouts\n\nSet a timeout with `timeout=5` on every request.\n")
    engine = docmentor.Docmentor(tmp_path / "db", embeddings=False)
    try:
        engine.add(docs, name="acme")
        (row,) = engine.sources()
        assert list(row) == list(docmentor.SourceInfo.__annotations__)
        assert list(row)[:3] == ["name", "kind", "target"] and list(row)[-2:] == ["units", "embedded"]
        assert (row["name"], row["kind"], row["documents"]) == ("acme", "folder", 1)
        found = engine.excerpt("acme:timeouts.md", "timeout")
        keys = list(docmentor.DocExcerpts.__annotations__)
        assert list(found) == keys[: keys.index("stale")]  # stale and error: only of a stale document
        assert found["path"] == "timeouts.md" and "timeout=5" in found["excerpts"][0]["text"]
        digest = assemble_context(engine, "timeout", max_tokens=500)
        assert isinstance(digest, docmentor.Digest) and "timeout=5" in digest.markdown
    finally:
        engine.close()


def test_a_server_loads_what_checks_jwts_only_when_it_checks_them() -> None:
    """``docmentor serve`` over stdio (every MCP client's start) or with bearer tokens does not
    load httpx and jwt (~0.1–0.2 s of each start); ``--oauth-issuer`` does, when it is given."""
    loaded = _loaded_after("import docmentor.server, docmentor.cli, docmentor.mcp_auth")
    assert [m for m in loaded if m.split(".")[0] in ("httpx", "jwt")] == []
    assert "docmentor.auth.guard" in loaded


def test_a_search_by_words_loads_only_what_it_reads(tmp_path: Path) -> None:
    """``docmentor search --no-embeddings`` over an SQLite index (a new process per call for a
    CLI user) loads neither numpy (the PostgreSQL index's tables), markdown-it (a page's front
    matter for ``get``) nor the model's runtime."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Wombats\n\nWombats dig burrows.\n", encoding="utf-8")
    engine = docmentor.Docmentor(tmp_path / "index", embeddings=False)
    try:
        engine.add(str(tmp_path / "docs"), name="docs")
    finally:
        engine.close()
    search = f"--db {tmp_path / 'index'} --no-embeddings search burrows --json".split()
    code = (
        "import io, contextlib\n"
        "from docmentor.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    assert main({search!r}) == 0\n"
        "assert 'page.md' in out.getvalue(), out.getvalue()"
    )
    loaded = _loaded_after(code)
    assert "docmentor.engine.lookup" in loaded
    heavy = [m for m in loaded if m.split(".")[0] in ("numpy", "markdown_it", "onnxruntime")]
    assert heavy + [m for m in loaded if "lexical_pg" in m] == []


def test_the_package_is_typed_for_its_users(tmp_path: Path) -> None:
    """py.typed ships in the package (PEP 561), so a user's mypy reads docmentor's types
    instead of "missing library stubs or py.typed marker" and Any everywhere (a tour)."""
    import importlib.resources
    import subprocess
    import sys

    assert importlib.resources.files("docmentor").joinpath("py.typed").is_file()
    program = tmp_path / "use.py"
    program.write_text(
        "from docmentor import Docmentor\n\n"
        "def first(engine: Docmentor) -> str:\n"
        "    return engine.search('timeout', limit=1)[0].path\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "MYPYPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(program)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_close_closes_every_threads_connection_and_the_engine_is_a_context_manager(
    index_location: str, tmp_path: Path
) -> None:
    """Searches from a thread pool, then close(): no connection of any thread stays open, and
    using the engine afterwards is an error, not a silent reopening (a library tour: ten
    handles on index.sqlite3 stayed open); `with Docmentor(...)` closes it."""
    from concurrent.futures import ThreadPoolExecutor

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Timeouts\n\nSet a timeout.\n", encoding="utf-8")
    with docmentor.Docmentor(index_location, embeddings=False) as engine:
        engine.add(docs, name="d")
        with ThreadPoolExecutor(4) as pool:
            assert all(pool.map(lambda q: engine.search(q), ["timeout"] * 16))
        store = engine.store
        opened = list(getattr(store, "_conns", None) or getattr(store, "_all", []))
        assert opened
    for entry in opened:
        db = entry[0] if isinstance(entry, tuple) else entry.raw
        if isinstance(db, sqlite3.Connection):
            with pytest.raises(sqlite3.ProgrammingError):
                db.execute("SELECT 1")
        else:
            assert db.closed
    with pytest.raises(docmentor.StoreError, match="was closed"):
        engine.search("timeout")


def test_a_new_thread_takes_the_idle_connection_an_ended_thread_left(tmp_path: Path) -> None:
    """The embedded index's threads come and go in a server: a thread that ended leaves its
    connection to the next one instead of keeping it open until close()."""
    import threading

    from docmentor.store.db import Store

    store = Store(tmp_path / "db" / "index.sqlite3")
    seen: list[int] = []

    def use() -> None:
        seen.append(id(store.conn()))

    for _ in range(5):
        t = threading.Thread(target=use)
        t.start()
        t.join()
    assert len(set(seen)) == 1 and len(store._conns) == 2  # the main thread's (it migrated) and one
    store.close_all()


_READ_ONLY_PROGRAM = """
import sys
from docmentor import Docmentor, StoreError
with Docmentor(sys.argv[1], create=False, embeddings=False) as engine:
    hits = engine.search("timeout")
    print(hits[0].path, engine.get("d:a.md").content.splitlines()[0])
    for write in (lambda: engine.refresh(), lambda: engine.add(sys.argv[2], name="e")):
        try:
            write()
        except StoreError as exc:
            print("refused:", str(exc).split(":")[0])
"""


def test_an_index_on_a_read_only_file_system_is_searched_and_read_not_written(tmp_path: Path) -> None:
    """An index folder mounted read-only (a volume shared with replicas): search and get work
    (SQLite read as it is, the search index through a copy), a refresh or an add is one clear
    error (a library tour: 'attempt to write a readonly database', nothing could be opened).
    The file system is made read-only with a bind mount in a user and mount namespace
    (util-linux's unshare)."""
    import shutil
    import subprocess
    import sys

    assert shutil.which("unshare"), "util-linux's unshare is needed (Makefile system packages)"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Timeouts\n\nSet a timeout.\n", encoding="utf-8")
    db = tmp_path / "index"
    with docmentor.Docmentor(db, embeddings=False) as engine:
        engine.add(docs, name="d")
    program = tmp_path / "read.py"
    program.write_text(_READ_ONLY_PROGRAM, encoding="utf-8")
    script = (
        f'mount --bind "{db}" "{db}" && mount -o remount,bind,ro "{db}" && '
        f'"{sys.executable}" "{program}" "{db}" "{docs}"'
    )
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "a.md # Timeouts",
        f"refused: the index {db} cannot be written (Read-only file system)",
        f"refused: the index {db} cannot be written (Read-only file system)",
    ], done.stdout + done.stderr
    # commits left in the WAL (a writer killed, a volume copied): read as-is they would be
    # left out while the search index has them: refused, saying how to fold them in
    wal = db / "index.sqlite3-wal"
    wal.write_bytes(b"\0" * 4096)
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "with commits still in index.sqlite3-wal" in done.stderr, done.stderr


def test_a_result_count_is_checked_alike_by_search_and_candidates(tmp_path: Path) -> None:
    """`candidates(limit=0)` answered seven hits and `search(limit="3")` a TypeError (a
    library tour): both are UsageErrors naming the argument, as `search(limit=0)` was."""
    with docmentor.Docmentor(tmp_path / "db", embeddings=False) as engine:
        for call in (engine.search, engine.candidates):
            for bad in (0, -5, "3", 2.5, True):
                with pytest.raises(docmentor.UsageError) as caught:
                    call("timeout", limit=bad)  # type: ignore[arg-type]
                assert caught.value.arguments == ("limit",)
