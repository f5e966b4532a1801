"""Examples of a source and their links to APIs (library.examples.examples / library.examples.matcher).

Pages are real files indexed by the real engine; the API surface is a small fake built
from our own ``ApiEntry`` records (the introspection has its own tests).
"""

from __future__ import annotations

import textwrap
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

from docmentor.clarity.checks.python import untagged_language
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError
from docmentor.library.examples.classify import complexity_of, is_complete, prerequisites
from docmentor.library.examples.examples import detect_languages, extract_examples, normalize_language
from docmentor.library.examples.matcher import match_examples
from docmentor.library.models import ApiEntry, ApiReturn, Example

ApiKind = Literal["function", "class", "method", "property", "attribute", "module"]  # ApiEntry.kind

# -- a fake surface ---------------------------------------------------------------------


@dataclass
class FakeSurface:
    entries: list[ApiEntry]
    _by_name: dict[str, ApiEntry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for e in self.entries:
            for name in (e.api_id, *e.aliases):
                self._by_name.setdefault(name, e)

    def resolve(self, name: str) -> ApiEntry | None:
        return self._by_name.get(name)

    def return_class(self, api_id: str) -> str | None:
        e = self._by_name.get(api_id)
        return e.returns.type if e is not None and e.returns is not None else None


def api(
    api_id: str,
    kind: ApiKind = "method",
    returns: str | None = None,
    *,
    aliases: tuple[str, ...] = (),
    bases: tuple[str, ...] = (),
    language: str = "python",
) -> ApiEntry:
    parent = api_id.rpartition(".")[0] if kind in ("method", "property") else None
    return ApiEntry(
        api_id=api_id,
        aliases=list(aliases),
        kind=kind,
        name=api_id.rpartition(".")[2],
        parent=parent,
        returns=ApiReturn(type=returns) if returns else None,
        bases=list(bases),
        language=language,
    )


def lancedb_surface() -> FakeSurface:
    """The shape of lancedb's API: module functions, connection and table classes, builders."""
    q = "lancedb.query"
    return FakeSurface(
        [
            api("lancedb", "module"),
            api("lancedb.connect", "function", "lancedb.db.DBConnection"),
            api("lancedb.connect_async", "function", "lancedb.db.AsyncConnection"),
            api("lancedb.db.DBConnection", "class", aliases=("lancedb.DBConnection",)),
            api(
                "lancedb.db.DBConnection.create_table",
                returns="lancedb.table.Table",
                # the surface lists inherited members under the subclass too
                aliases=("lancedb.DBConnection.create_table", "lancedb.db.LanceDBConnection.create_table"),
            ),
            api("lancedb.db.DBConnection.open_table", returns="lancedb.table.Table"),
            api("lancedb.db.DBConnection.table_names"),
            # a subclass whose inherited open_table the surface does NOT alias: found via bases
            api("lancedb.db.LanceDBConnection", "class", bases=("DBConnection",)),
            api("lancedb.db.AsyncConnection", "class"),
            api("lancedb.db.AsyncConnection.create_table", returns="lancedb.table.AsyncTable"),
            api("lancedb.db.AsyncConnection.open_table", returns="lancedb.table.AsyncTable"),
            api("lancedb.table.Table", "class", aliases=("lancedb.Table",)),
            api("lancedb.table.Table.search", returns=f"{q}.LanceQueryBuilder"),
            api("lancedb.table.Table.add"),
            api("lancedb.table.Table.create_index"),
            api("lancedb.table.Table.schema", "property", "pyarrow.Schema"),
            api("lancedb.table.Table.embeddings", "property", "lancedb.embeddings.Registry"),
            api("lancedb.embeddings.Registry", "class"),
            api("lancedb.embeddings.Registry.get", returns="lancedb.embeddings.Registry"),
            api("lancedb.table.AsyncTable", "class"),
            api("lancedb.table.AsyncTable.query", returns=f"{q}.AsyncQuery"),
            api("lancedb.table.AsyncTable.add"),
            api(f"{q}.LanceQueryBuilder", "class"),
            api(f"{q}.LanceQueryBuilder.limit", returns="Self"),
            api(f"{q}.LanceQueryBuilder.where", returns="Self"),
            api(f"{q}.LanceQueryBuilder.to_pandas", returns="pandas.DataFrame"),
            api(f"{q}.LanceVectorQueryBuilder", "class", bases=("LanceQueryBuilder",)),
            api(f"{q}.LanceVectorQueryBuilder.nprobes", returns="Self"),
            api("lancedb.table.Table.vector_search", returns=f"{q}.LanceVectorQueryBuilder"),
            api(f"{q}.AsyncQuery", "class"),
            api(f"{q}.AsyncQuery.limit", returns="Self"),
            api(f"{q}.AsyncQuery.to_list"),
            api("lancedb.pydantic.LanceModel", "class", aliases=("lancedb.LanceModel",)),
            api("lancedb.pydantic.Vector", "function"),
        ]
    )


def lancedb_ts_surface() -> FakeSurface:
    """TypeScript names: module-level exports under the library, methods under their class."""
    return FakeSurface(
        [
            api("lancedb.connect", "function", "Connection", language="typescript"),
            api("lancedb.Index", "class", language="typescript"),
            api("Connection", "class", language="typescript"),
            api("Connection.createTable", returns="Promise<Table>", language="typescript"),
            api("Connection.openTable", returns="Table", language="typescript"),
            api("Connection.tableNames", language="typescript"),
            api("Table", "class", language="typescript"),
            api("Table.search", returns="VectorQuery", language="typescript"),
            api("Table.add", language="typescript"),
            api("Table.createIndex", language="typescript"),
            api("VectorQuery", "class", language="typescript"),
            api("VectorQuery.limit", returns="VectorQuery", language="typescript"),
            api("VectorQuery.toArray", language="typescript"),
        ]
    )


def httpx_surface() -> FakeSurface:
    return FakeSurface(
        [
            api("httpx._client.Client", "class", aliases=("httpx.Client",)),
            api("httpx._client.Client.get", returns="httpx._models.Response", aliases=("httpx.Client.get",)),
            api("httpx._client.AsyncClient", "class", aliases=("httpx.AsyncClient",)),
            api("httpx._client.AsyncClient.get", returns="httpx._models.Response"),
            api("httpx._models.Response", "class", aliases=("httpx.Response",)),
            api("httpx._models.Response.json", aliases=("httpx.Response.json",)),
            api("httpx._models.Response.raise_for_status"),
            api("httpx._api.get", "function", "httpx._models.Response", aliases=("httpx.get",)),
        ]
    )


def ex(
    code: str, language: str = "python", n: int = 1, *, tabs: tuple[str, ...] = (), path: str = "p.md"
) -> Example:
    return Example(
        example_id=f"p-{n}",
        title="t",
        code=textwrap.dedent(code),
        language=language,
        source="lib",
        path=path,
        line=n * 10,
        tabs=list(tabs),
    )


def used(
    *examples: Example, surface: FakeSurface | None = None, js_packages: Iterable[str] = ()
) -> list[list[str]]:
    if surface is None:
        surface = lancedb_surface() if examples[0].language == "python" else lancedb_ts_surface()
    match_examples(list(examples), surface, library="lancedb", js_packages=js_packages)
    return [e.apis_used for e in examples]


# -- Python matching ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import lancedb\ndb = lancedb.connect('x')",
        "import lancedb as ldb\ndb = ldb.connect('x')",
        "from lancedb import connect\ndb = connect('x')",
        "from lancedb import connect as c\ndb = c('x')",
        "from lancedb import *\ndb = connect('x')",
        "import lancedb.db\ndb = lancedb.connect('x')",
    ],
)
def test_python_import_forms(code: str) -> None:
    assert used(ex(code)) == [["lancedb.connect"]]


def test_python_from_submodule_and_dotted_paths() -> None:
    code = """
        from lancedb.table import Table
        import lancedb.pydantic
        Table.search
        lancedb.pydantic.Vector(3)
        """
    assert used(ex(code)) == [
        ["lancedb.table.Table", "lancedb.table.Table.search", "lancedb.pydantic.Vector"]
    ]


def test_python_return_type_propagation_across_statements() -> None:
    code = """
        import lancedb
        db = lancedb.connect("data")
        tbl = db.create_table("t", data=[{"vector": [1.0]}])
        res = tbl.search([1.0]).limit(5).to_pandas()
        """
    assert used(ex(code)) == [
        [
            "lancedb.connect",
            "lancedb.db.DBConnection.create_table",
            "lancedb.table.Table.search",
            "lancedb.query.LanceQueryBuilder.limit",  # returns Self: the chain goes on
            "lancedb.query.LanceQueryBuilder.to_pandas",
        ]
    ]


def test_python_self_keeps_the_receivers_class_through_inherited_methods() -> None:
    code = (
        "tbl = lancedb.connect('x').open_table('t')\ntbl.vector_search([1]).limit(3).nprobes(8).to_pandas()"
    )
    assert used(ex(code))[0][-4:] == [
        "lancedb.table.Table.vector_search",
        "lancedb.query.LanceQueryBuilder.limit",  # inherited, returns Self: still the subclass
        "lancedb.query.LanceVectorQueryBuilder.nprobes",
        "lancedb.query.LanceQueryBuilder.to_pandas",
    ]


def test_python_iterators_and_context_managers_give_their_items_class() -> None:
    conn, row = "pkg.Conn", "pkg.Row"
    items = FakeSurface(
        [
            api("pkg", "module"),
            api("pkg.session", "function"),  # @contextmanager -> Iterator[Conn]
            api("pkg.rows", "function"),  # -> Generator[Row, None, None]
            api("pkg.connect", "function", conn),  # a Conn, whose __enter__ gives itself
            api(conn, "class"),
            api(f"{conn}.query", returns=None),
            api(f"{conn}.rows"),
            api(row, "class"),
            api(f"{row}.values"),
        ]
    )
    for name, cls in (("pkg.session", conn), ("pkg.rows", row), (f"{conn}.rows", row)):
        entry = items.resolve(name)
        assert entry is not None
        entry.returns = ApiReturn(type=f"Iterator[{cls}]", item_class_id=cls)
    code = """
        import pkg
        with pkg.session() as c:
            c.query()
        for r in pkg.rows():
            r.values()
        with pkg.connect() as c2:
            firsts = [r2.values() for r2 in c2.rows()]
        for wrong in pkg.connect():
            wrong.query()
        """
    assert used(ex(code), surface=items) == [
        [
            "pkg.session", f"{conn}.query", "pkg.rows", f"{row}.values", "pkg.connect", f"{conn}.rows",
        ]  # iterating a Conn itself gives nothing known: `wrong.query()` is not linked
    ]  # fmt: skip


def test_python_propagation_across_blocks_of_a_page() -> None:
    a = ex("import lancedb\ndb = lancedb.connect('x')", n=1)
    b = ex("tbl = db.open_table('t')", n=2)
    c = ex("tbl.add([{'a': 1}])\ntbl.schema", n=3)
    other_page = ex("tbl.add([])", n=4, path="other.md")
    assert used(a, b, c, other_page) == [
        ["lancedb.connect"],
        ["lancedb.db.DBConnection.open_table"],
        ["lancedb.table.Table.add", "lancedb.table.Table.schema"],
        [],  # another page does not see this page's names
    ]


def test_python_with_as_await_and_chained_calls() -> None:
    code = """
        import lancedb

        async def main():
            db = await lancedb.connect_async("x")
            tbl = await db.open_table("t")
            rows = await tbl.query().limit(3).to_list()

        with lancedb.connect("y") as db2:
            db2.table_names()
        """
    assert used(ex(code)) == [
        [
            "lancedb.connect_async",
            "lancedb.db.AsyncConnection.open_table",
            "lancedb.table.AsyncTable.query",
            "lancedb.query.AsyncQuery.limit",
            "lancedb.query.AsyncQuery.to_list",
            "lancedb.connect",
            "lancedb.db.DBConnection.table_names",
        ]
    ]


def test_python_inherited_methods_via_alias_and_via_bases() -> None:
    code = """
        from lancedb.db import LanceDBConnection
        conn = LanceDBConnection("x")
        conn.create_table("a")
        conn.open_table("b").add([])
        """
    assert used(ex(code)) == [
        [
            "lancedb.db.LanceDBConnection",
            "lancedb.db.DBConnection.create_table",  # the surface's alias
            "lancedb.db.DBConnection.open_table",  # our walk of `bases`
            "lancedb.table.Table.add",
        ]
    ]


def test_python_instantiation_types_the_instance() -> None:
    code = """
        import httpx
        client = httpx.Client()
        r = client.get("https://example.org")
        r.raise_for_status()
        data = httpx.get("https://example.org").json()
        async def f():
            async with httpx.AsyncClient() as ac:
                (await ac.get("/")).json()
        """
    assert used(ex(code), surface=httpx_surface()) == [
        [
            "httpx._client.Client",
            "httpx._client.Client.get",
            "httpx._models.Response.raise_for_status",
            "httpx._api.get",
            "httpx._models.Response.json",
            "httpx._client.AsyncClient",
            "httpx._client.AsyncClient.get",
        ]
    ]


def test_python_annotations_classes_and_properties() -> None:
    code = """
        import lancedb
        from lancedb.pydantic import LanceModel, Vector

        class Item(LanceModel):
            vector: Vector(2)

        def top(tbl: lancedb.table.Table):
            return tbl.search([1, 2])

        t: lancedb.Table = make()
        t.embeddings.get("openai")
        """
    assert used(ex(code)) == [
        [
            "lancedb.pydantic.LanceModel",
            "lancedb.pydantic.Vector",
            "lancedb.table.Table",
            "lancedb.table.Table.search",
            "lancedb.table.Table.embeddings",  # a property: its type carries the chain
            "lancedb.embeddings.Registry.get",
        ]
    ]


def test_python_names_in_strings_comments_and_unknown_receivers_match_nothing() -> None:
    code = '''
        # db = lancedb.connect("x"); tbl.search(q)
        print("lancedb.connect and create_table")
        """tbl.search(q).limit(5)"""
        db = get_db()
        db.create_table("t")
        connect("x")
        '''
    assert used(ex(code)) == [[]]


def test_the_library_namespace_needs_no_import_unless_rebound() -> None:
    assert used(ex("db = lancedb.connect('x')\ndb.table_names()")) == [
        ["lancedb.connect", "lancedb.db.DBConnection.table_names"]
    ]
    assert used(ex("lancedb = make()\nlancedb.connect('x')")) == [[]]
    assert used(ex('const db = await lancedb.connect("x");', "typescript")) == [["lancedb.connect"]]
    assert used(ex('const lancedb = require("vectordb");\nlancedb.connect("x");', "typescript")) == [[]]
    # only the library's own namespace: TS class names are not free-standing globals
    assert used(ex('Table.search("x");', "typescript")) == [[]]


def test_python_rebinding_forgets_the_type_and_other_libraries_are_ignored() -> None:
    code = """
        import lancedb
        import pandas as pd
        db = lancedb.connect("x")
        db = pd.DataFrame()
        db.create_table("t")
        lancedb.not_an_api()
        """
    assert used(ex(code)) == [["lancedb.connect"]]


def test_an_else_branch_and_a_function_body_do_not_see_an_import_they_shadow() -> None:
    """A typeguard tour: a page's fallback (`if …: from typeguard import typechecked` / `else:
    def typechecked(target): return … typechecked`) was credited to `typechecked` through its
    own body: the `else` saw the `if`'s import, and the function's name in its body was the
    import, not the function. Each branch starts from the names bound before; after the `if`,
    a name one branch imports from the library is the library's."""
    fallback = """
        import sys
        if "pytest" in sys.modules:
            from lancedb import connect
        else:
            def connect(uri):
                return connect
        """
    assert used(ex(fallback)) == [[]]
    after = fallback.rstrip(" ") + "        connect('x')\n"
    assert used(ex(after)) == [["lancedb.connect"]]
    recursive = """
        from lancedb import connect
        def connect(uri):
            return connect(uri)
        """
    assert used(ex(recursive)) == [[]]
    guarded = """
        try:
            from lancedb import connect
        except ImportError:
            connect = None
        db = connect('x')
        db.table_names()
        """
    assert used(ex(guarded)) == [["lancedb.connect", "lancedb.db.DBConnection.table_names"]]


def test_an_object_the_page_made_stays_typed_when_the_reader_imports_it_from_their_own_module() -> None:
    """rich's console page: ``console = Console()``, then ``from my_project.console import
    console`` ("import it from where you made it"), then ``console.print``: the name keeps the
    instance the page made. An import from another module of a name the page never made,
    or of a class, still binds nothing."""
    a = ex("import lancedb\ndb = lancedb.connect('x')", n=1)
    b = ex("from my_project.setup import db\ndb.open_table('t')", n=2)
    c = ex("from other.lib import connect\nconnect('x')", n=3)
    assert used(a, b, c) == [["lancedb.connect"], ["lancedb.db.DBConnection.open_table"], []]


def test_python_sync_and_async_tabs_do_not_mix() -> None:
    sync1 = ex("import lancedb\ndb = lancedb.connect('x')", n=1, tabs=("Python", "Sync API"))
    async1 = ex("import lancedb\ndb = await lancedb.connect_async('x')", n=2, tabs=("Python", "Async API"))
    sync2 = ex("tbl = db.create_table('t')", n=3, tabs=("Python", "Sync API"))
    async2 = ex("tbl = await db.create_table('t')", n=4, tabs=("Python", "Async API"))
    # no tabs: an async block prefers names bound by async blocks, a sync one the others
    untabbed = ex("tbl = db.create_table('t')", n=5)
    assert used(sync1, async1, sync2, async2, untabbed) == [
        ["lancedb.connect"],
        ["lancedb.connect_async"],
        ["lancedb.db.DBConnection.create_table"],
        ["lancedb.db.AsyncConnection.create_table"],
        ["lancedb.db.DBConnection.create_table"],
    ]


def test_python_doctest_sessions_and_placeholders() -> None:
    code = """
        >>> import lancedb
        >>> db = lancedb.connect("x")
        >>> db.table_names()
        ['t']
        >>> db.open_table(...).search(...)
        """
    assert used(ex(code, language="python")) == [
        [
            "lancedb.connect",
            "lancedb.db.DBConnection.table_names",
            "lancedb.db.DBConnection.open_table",
            "lancedb.table.Table.search",
        ]
    ]
    # `# doctest: +SKIP` says "do not run this here", not "this calls nothing": every line
    # keeps its links, the marked one too
    skipped = """
        >>> db = lancedb.connect("x")
        >>> db.table_names()  # doctest: +SKIP
        """
    assert used(ex(skipped, language="python")) == [
        ["lancedb.connect", "lancedb.db.DBConnection.table_names"]
    ]


def test_a_member_is_guessed_on_an_untyped_value_not_on_one_the_api_types_otherwise() -> None:
    """`app.config.from_envvar`: only Config has from_envvar, and `App.config` says nothing
    of its type; attrs' `x = field()` says it gives `Any`: `@x.validator` is no
    `Attribute.validator`, the one class with such a member."""
    surface = FakeSurface(
        [
            api("lancedb.App", "class"),
            api("lancedb.App.config", "property"),  # no type
            api("lancedb.Config", "class"),
            api("lancedb.Config.from_envvar"),
            api("lancedb.field", "function", "Any | _T"),
            api("lancedb.Attribute", "class"),
            api("lancedb.Attribute.validator"),
        ]
    )
    untyped = ex("import lancedb\napp = lancedb.App()\napp.config.from_envvar('X')\n")
    typed = ex("import lancedb\nx = lancedb.field()\n@x.validator\ndef check(self, a, v): ...\n", n=2)
    assert used(untyped, typed, surface=surface) == [
        ["lancedb.App", "lancedb.App.config", "lancedb.Config.from_envvar"], ["lancedb.field"]
    ]  # fmt: skip


def test_a_library_attribute_imported_by_name_is_credited_where_it_is_used() -> None:
    """`from pkg.proc import format_exc` then `format_exc(…)` or `[format_exc]`: the example
    uses the attribute (structlog's processors), as `pkg.proc.format_exc(…)` does."""
    surface = FakeSurface(
        [api("lancedb.proc.format_exc", "attribute"), api("lancedb.proc.level", "attribute", "int")]
    )
    called = ex("from lancedb.proc import format_exc\nformat_exc(None, '', {})\n")
    listed = ex("from lancedb.proc import format_exc as fe\nprocessors = [fe]\n", n=2)
    unused = ex("from lancedb.proc import format_exc, level\nprint(level + 1)\n", n=3)
    assert used(called, listed, unused, surface=surface) == [
        ["lancedb.proc.format_exc"], ["lancedb.proc.format_exc"], ["lancedb.proc.level"]
    ]  # fmt: skip


# -- TypeScript / JavaScript matching ---------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        'import * as lancedb from "@lancedb/lancedb";\nconst db = await lancedb.connect("x");',
        'import lancedb from "@lancedb/lancedb";\nconst db = await lancedb.connect("x");',
        'import { connect } from "@lancedb/lancedb";\nconst db = await connect("x");',
        'import { connect as open } from "@lancedb/lancedb";\nconst db = await open("x");',
        'const lancedb = require("@lancedb/lancedb");\nconst db = await lancedb.connect("x");',
        'const { connect } = require("lancedb");\nconst db = await connect("x");',
        'import lancedb = require("@lancedb/lancedb");\nconst db = await lancedb.connect("x");',
    ],
)
def test_ts_import_forms(code: str) -> None:
    assert used(ex(code, "typescript")) == [["lancedb.connect"]]


def test_ts_member_calls_with_propagation_and_chains() -> None:
    code = """
        import * as lancedb from "@lancedb/lancedb";
        // db.tableNames() in a comment, and "Table.search" in a string
        const db: lancedb.Connection = await lancedb.connect(`${dir}/data`);
        const tbl = await db.createTable("t", [{ vector: [1, 2] }], { mode: "overwrite" });
        await tbl.add([{ vector: [3, 4] }]);
        const rows = await (await db.openTable("t")).search([1, 2]).limit(5).toArray();
        await tbl.createIndex("vector", { config: new lancedb.Index() });
        """
    assert used(ex(code, "typescript")) == [
        [
            "lancedb.connect",
            "Connection.createTable",  # returns Promise<Table>: awaited, tbl is a Table
            "Table.add",
            "Connection.openTable",
            "Table.search",
            "VectorQuery.limit",
            "VectorQuery.toArray",
            "Table.createIndex",
            "lancedb.Index",
        ]
    ]


def test_js_propagation_across_blocks_and_other_packages() -> None:
    a = ex(
        'const lancedb = require("@lancedb/lancedb");\nconst db = await lancedb.connect("x");',
        "javascript",
        1,
    )
    b = ex('const names = await db.tableNames();\nconsole.log("db.openTable");', "javascript", 2)
    legacy = ex('const vdb = require("vectordb");\nconst c = await vdb.connect("x");', "javascript", 3)
    assert used(a, b, legacy) == [["lancedb.connect"], ["Connection.tableNames"], []]
    # the caller can say another package is this library
    again = ex('const vdb = require("vectordb");\nconst c = await vdb.connect("x");', "javascript", 3)
    assert used(again, js_packages=["vectordb"]) == [["lancedb.connect"]]


def test_surfaces_only_match_their_own_languages() -> None:
    ts = ex('import * as lancedb from "@lancedb/lancedb";\nlancedb.connect("x");', "typescript")
    py = ex("import lancedb\nlancedb.connect('x')")
    assert used(ts, py, surface=lancedb_surface()) == [[], ["lancedb.connect"]]
    ts2, py2 = ts.model_copy(update={"apis_used": []}), py.model_copy(update={"apis_used": []})
    assert used(ts2, py2, surface=lancedb_ts_surface()) == [["lancedb.connect"], []]


def test_links_are_bidirectional_and_rematching_replaces_them() -> None:
    surface = lancedb_surface()
    a = ex("import lancedb\ndb = lancedb.connect('x')", n=1)
    b = ex("db.open_table('t')", n=2)
    match_examples([a, b], surface, library="lancedb")
    assert surface.resolve("lancedb.connect") is not None
    connect = next(e for e in surface.entries if e.api_id == "lancedb.connect" and e.language == "python")
    open_table = surface.resolve("lancedb.db.DBConnection.open_table")
    assert connect.examples == ["p-1"] and open_table is not None and open_table.examples == ["p-2"]
    b.code = "db.table_names()"
    match_examples([a, b], surface, library="lancedb")
    assert open_table.examples == [] and connect.examples == ["p-1"]
    assert b.apis_used == ["lancedb.db.DBConnection.table_names"]


# -- extraction through the real engine ---------------------------------------------------------


PAGE = """\
# Quick start

Install it with `pip install lancedb` (or `uv add lancedb`); for Node: `npm install @lancedb/lancedb`.

## Connect to a database

```py
import lancedb
db = lancedb.connect("data")
```

```pycon
>>> tbl = db.open_table("t")
```

```shell
pip install pandas
```

=== "Sync API"

    ```python
    tbl = db.create_table("t", data=[])
    ```

=== "Async API"

    ```python
    tbl = await db.create_table("t", data=[])
    ```

## Search the table

```ts
import * as lancedb from "@lancedb/lancedb";
const db = await lancedb.connect("data");
```

```jsx
const rows = await tbl.search([1, 2]).limit(5).toArray();
```

```mjs
console.log("hello")
```
"""

ADVANCED = '''\
# Building a search service

## Ingest in batches

```python
import asyncio
import lancedb


class Ingestor:
    """Loads documents in batches."""

    def __init__(self, uri: str) -> None:
        self.uri = uri

    async def run(self, batches):
        db = await lancedb.connect_async(self.uri)
        tbl = await db.open_table("docs")
        for batch in batches:
            try:
                await tbl.add(batch)
            except ValueError as exc:
                print("skipped", exc)
        return await tbl.query().limit(10).to_list()


async def main():
    ingestor = Ingestor("data")
    rows = await ingestor.run([[{"a": 1}], [{"a": 2}]])
    for row in rows:
        print(row)
    with open("out.txt", "w") as fh:
        fh.write(str(rows))


asyncio.run(main())
```
'''


def index(tmp_path: Path, files: dict[str, str]) -> Docmentor:
    docs = tmp_path / "docs"
    for name, text in files.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text)
    engine = Docmentor(tmp_path / "db")
    engine.add(str(docs), name="lib")
    return engine


def test_extract_examples_from_an_indexed_page(tmp_path: Path) -> None:
    engine = index(tmp_path, {"guide/quick-start.md": PAGE})
    examples = extract_examples(engine, "lib")
    assert [(e.example_id, e.language, e.line) for e in examples] == [
        ("guide-quick-start-1", "python", 7),
        ("guide-quick-start-2", "python", 12),
        # 3 is the shell block
        ("guide-quick-start-4", "python", 22),
        ("guide-quick-start-5", "python", 28),
        ("guide-quick-start-6", "typescript", 34),
        ("guide-quick-start-7", "javascript", 39),
        ("guide-quick-start-8", "javascript", 43),
    ]
    first, _session, sync, async_, ts, jsx, _hello = examples
    assert first.title == "Connect to a database" and first.heading_path == [
        "Quick start",
        "Connect to a database",
    ]
    assert first.path == "guide/quick-start.md" and first.source == "lib"
    assert sync.tabs == ["Sync API"] and sync.title == "Connect to a database (Sync API)"
    assert async_.tabs == ["Async API"] and first.tabs == []
    assert [e.complete for e in examples] == [True, False, False, False, True, False, True]
    assert first.prerequisites == ["pip install lancedb", "uv add lancedb", "pip install pandas"]
    assert ts.prerequisites == ["npm install @lancedb/lancedb"]
    assert first.tags == ["quick", "start", "connect", "database"]
    assert "async" in async_.tags and "search" in jsx.tags
    assert all(e.complexity == "beginner" for e in examples)

    assert [e.example_id for e in extract_examples(engine, "lib", languages=["ts"])] == [
        "guide-quick-start-6"
    ]
    everything = extract_examples(engine, "lib", languages=None)
    assert [e.language for e in everything].count("shell") == 1

    match_examples(examples, lancedb_surface(), library="lancedb")
    match_examples(examples, lancedb_ts_surface(), library="lancedb")
    assert [e.apis_used for e in examples] == [
        ["lancedb.connect"],
        ["lancedb.db.DBConnection.open_table"],
        ["lancedb.db.DBConnection.create_table"],
        ["lancedb.db.DBConnection.create_table"],  # the page's only `db`, awaited or not
        ["lancedb.connect"],
        [],  # `tbl` is never bound by a TS/JS block: nothing is guessed
        [],
    ]


def test_an_example_a_page_includes_is_one_example_of_the_page_it_is_on(tmp_path: Path) -> None:
    """A pydash tour: `index.rst` includes `quickstart.rst`, and each of its examples was
    extracted twice, once cited at the include's line: its APIs counted one example as two.
    The page that shows the code as its own keeps it; an include of a file no page holds
    (a snippet) keeps its example; two pages that show one block each still show it."""
    quick = "Quickstart\n==========\n\n.. code-block:: python\n\n    import lancedb\n    db = lancedb.connect('x')\n"
    engine = index(
        tmp_path,
        {
            "index.rst": "Welcome\n=======\n\n.. include:: quickstart.rst\n\n.. include:: snippet.inc\n",
            "quickstart.rst": quick,
            "other.rst": quick.replace("Quickstart", "Again     "),
            "snippet.inc": ".. code-block:: python\n\n    import lancedb\n    lancedb.connect('y')\n",
        },
    )
    examples = extract_examples(engine, "lib")
    assert sorted((e.path, e.line) for e in examples) == [
        ("index.rst", 6),
        ("other.rst", 4),
        ("quickstart.rst", 4),
    ], [(e.path, e.line, e.code) for e in examples]


def test_complexity_levels_from_a_page(tmp_path: Path) -> None:
    engine = index(tmp_path, {"service.md": ADVANCED})
    (example,) = extract_examples(engine, "lib")
    assert example.complete and example.complexity == "advanced"
    assert example.tags[:3] == ["building", "search", "service"] and "async" in example.tags
    assert complexity_of("import lancedb\ndb = lancedb.connect('x')", "python") == "beginner"
    medium = "\n".join(
        ["import lancedb", "db = lancedb.connect('x')"] + [f"x{i} = db.f{i}()" for i in range(12)]
    )
    assert complexity_of(medium, "python") == "intermediate"
    assert complexity_of("for x in y:\n    z(x)", "python", api_count=12) == "intermediate"


def test_complete_versus_snippet() -> None:
    assert is_complete("import lancedb\ndb = lancedb.connect('x')\nprint(db)", "python")
    assert not is_complete("db.open_table('t')", "python")
    assert not is_complete("def broken(:\n", "python")
    assert not is_complete("import lancedb\nx = 1 +\nlancedb.connect('x')", "python")  # repaired: a snippet
    assert is_complete(
        'import { connect } from "@lancedb/lancedb";\nconst db = await connect("x");', "typescript"
    )
    assert not is_complete('const tbl = await db.openTable("t");', "typescript")
    assert is_complete("const f = (a, b) => a.concat(b);\nf([1], [2]);", "javascript")
    assert not is_complete("optional poolIdleTimeout: number;", "typescript")


def test_prerequisites_are_commands_not_prose() -> None:
    page = """Install with `pip install lancedb` (or `uv add lancedb`).
Then run pip install pandas to get it.
$ pip install -U "lancedb[embeddings]"  # with extras
%pip install tantivy
    npm install @lancedb/lancedb && npm test
"""
    assert prerequisites(page) == [
        "pip install lancedb",
        "uv add lancedb",
        'pip install -U "lancedb[embeddings]"',
        "pip install tantivy",
        "npm install @lancedb/lancedb",
    ]


def test_language_names_and_detection() -> None:
    assert [
        normalize_language(x) for x in ("py", "Python3", "pycon", "ts", "tsx", "js", "jsx", "mjs", "go")
    ] == [
        "python",
        "python",
        "python",
        "typescript",
        "typescript",
        "javascript",
        "javascript",
        "javascript",
        "go",
    ]
    examples = [ex("x", "python", i) for i in range(7)] + [ex("x", "typescript", i) for i in range(5)]
    examples += [ex("x", "shell", i) for i in range(9)]
    assert detect_languages(examples) == ["python"]
    assert detect_languages(examples, min_examples=4) == ["python", "typescript"]
    assert detect_languages(examples, supported=None) == ["shell", "python"]


def test_unknown_source(tmp_path: Path) -> None:
    engine = index(tmp_path, {"a.md": "# A\n"})
    with pytest.raises(NotFoundError):
        extract_examples(engine, "nope")


# -- real documentation ---------------------------------------------------------------------------
# (the whole LanceDB corpus, with its hundreds of examples: benchmarks/corpus_checks.py, `make eval`)


LANCEDB = Path(__file__).parent / "fixtures" / "lancedb"  # a slice of the LanceDB docs (NOTICE)


def test_lancedb_slice_smoke(tmp_path: Path) -> None:
    t0 = time.perf_counter()
    engine = Docmentor(tmp_path / "db")
    engine.add(str(LANCEDB / "docs" / "src"), name="lancedb", options={"base_paths": [str(LANCEDB)]})
    examples = extract_examples(engine, "lancedb", languages=None)
    counts = Counter(e.language for e in examples)
    assert {"python", "typescript"} <= set(detect_languages(examples))
    assert counts["python"] >= 10 and counts["typescript"] >= 30  # snippet includes resolved
    assert len({e.example_id for e in examples}) == len(examples)

    wanted = [e for e in examples if e.language in ("python", "typescript", "javascript")]
    surface, ts_surface = lancedb_surface(), lancedb_ts_surface()
    match_examples(wanted, surface, library="lancedb")
    match_examples(wanted, ts_surface, library="lancedb")
    used = [e.apis_used for e in wanted if e.apis_used]
    assert ["lancedb.connect", "lancedb.db.DBConnection.create_table", "lancedb.table.Table.add"] in used
    assert ["lancedb.connect", "Connection.createTable"] in used  # the TypeScript edition
    # return types followed: Table.search → LanceQueryBuilder → its methods
    chain = ["lancedb.table.Table.search", "lancedb.query.LanceQueryBuilder.limit"]
    assert [*chain, "lancedb.query.LanceQueryBuilder.to_pandas"] in used
    connect = surface.resolve("lancedb.db.DBConnection.create_table")
    assert connect is not None and connect.examples
    # every link points both ways
    by_id = {e.example_id: e for e in wanted}
    for entry in (*surface.entries, *ts_surface.entries):
        for example_id in entry.examples:
            assert entry.api_id in by_id[example_id].apis_used
    assert time.perf_counter() - t0 < 10


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("value = store.get('a')\n", "python"),  # a call
        ("tbl.create_index(\n    num_partitions=256,\n)\n", "python"),  # a call
        (">>> import lancedb\n>>> lancedb.connect('data')\n", "python"),  # a doctest session
        ("with open(p) as f:\n    pass\n", "python"),
        ("pip install lancedb\n", ""),  # a shell command
        ("$ docmentor add docs\n", ""),
        ("{'id': 1, 'vector': [0.1, 0.2]}\n", ""),  # printed output: a bare literal
        ("result\n", ""),  # a bare name
        ("machine example.org\nlogin someone\n", ""),  # a .netrc file
        ("ssl.SSLCertVerificationError: [SSL] certificate verify failed\n", ""),  # a traceback line
        ("key: value\nother: 2\n", ""),  # YAML
        ('[tool.poetry]\nname = "x"\n', ""),  # TOML
        ("API_KEY=sk-abc\n", ""),  # .env
        ("x = 1\n", ""),  # an assignment alone does nothing worth showing
        ("", ""),
    ],
)
def test_untagged_blocks_are_python_when_they_parse_and_do_something(code: str, language: str) -> None:
    assert untagged_language(code) == language


def test_rst_literal_blocks_and_untagged_fences_become_python_examples(tmp_path: Path) -> None:
    rst = textwrap.dedent(
        """\
        Reading
        =======

        Read a value back::

           value = store.get("a")

        The output looks like this::

           {'a': 1}
        """
    )
    md = "# Wipe\n\n```\nstore.purge()\n```\n\n```\nmachine example.org\n```\n"
    engine = index(tmp_path, {"reading.rst": rst, "wipe.md": md})
    examples = extract_examples(engine, "lib")
    assert [(e.path, e.language, e.code.strip()) for e in examples] == [
        ("reading.rst", "python", 'value = store.get("a")'),
        ("wipe.md", "python", "store.purge()"),
    ]
    assert [e.example_id for e in examples] == ["reading-1", "wipe-1"]  # ids count every block


def test_python_subclass_methods_and_caught_exceptions() -> None:
    items = FakeSurface(
        [
            api("pkg", "module"),
            api("pkg.get", "function", "pkg.Response"),
            api("pkg.Transport", "class"),
            api("pkg.Transport.handle_request", returns="pkg.Response"),
            api("pkg.Transport.close"),
            api("pkg.Transport.shutdown"),
            api("pkg.Response", "class"),
            api("pkg.Response.status_code", "property"),
            api("pkg.StatusError", "class"),
            api("pkg.StatusError.response", "property", "pkg.Response"),
        ]
    )
    code = """
        import pkg

        class Logging(pkg.Transport):
            def handle_request(self, request):
                def shutdown():  # a function inside a method is not a method
                    ...
                self.close()
                return request

        try:
            pkg.get("/")
        except pkg.StatusError as exc:
            exc.response.status_code
        """
    assert used(ex(code), surface=items) == [
        [
            "pkg.Transport",
            "pkg.Transport.handle_request",  # the override shows how to implement it
            "pkg.Transport.close",  # self: the base's members
            "pkg.get",
            "pkg.StatusError",
            "pkg.StatusError.response",
            "pkg.Response.status_code",
        ]
    ]


def test_python_the_examples_own_subclass_reaches_the_library_bases_members() -> None:
    items = FakeSurface(
        [
            api("pkg", "module"),
            api("pkg.Model", "class"),
            api("pkg.Model.validate", "method", "Self"),
            api("pkg.Model.dump_json", "method", "str"),
            api("pkg.Model.copy", "method", "Self"),
            api("pkg.Model.fields", "property"),
            api("pkg.Model.title", "method"),
        ]
    )
    code = """
        from pkg import Model

        class User(Model):
            id: int
            def title(self):  # an override: it shows how to implement Model.title
                return "x"

        class Admin(User):
            level: int

        user = User.validate({"id": 1})
        print(user.dump_json(), user.id, user.title())
        admin = Admin(id=1, level=2)
        admin.copy().fields
        admin.level

        def show(u: User) -> None:
            u.dump_json()
        """
    assert used(ex(code), surface=items) == [
        [
            "pkg.Model",
            "pkg.Model.title",
            "pkg.Model.validate",  # a classmethod through the example's own class
            "pkg.Model.dump_json",  # Self: still a User, whose `id` and `title` are its own
            "pkg.Model.copy",  # a subclass of the subclass: the library's base still
            "pkg.Model.fields",
        ]
    ]
    # the classes' own names are no drift, and neither is a library member they reach
    from docmentor.library.examples.drift import drift_report

    assert drift_report([ex(code)], items, library="pkg").findings == ()


def test_python_names_bound_in_a_scope_end_with_it() -> None:
    items = FakeSurface(
        [
            api("pkg", "module"),
            api("pkg.connect", "function", "pkg.Conn"),
            api("pkg.tables", "function"),
            api("pkg.Conn", "class"),
            api("pkg.Conn.query"),
            api("pkg.Conn.close"),
            api("pkg.Table", "class"),
            api("pkg.Table.search"),
            api("pkg.Error", "class"),
            api("pkg.Error.detail", "property"),
        ]
    )
    tables = items.resolve("pkg.tables")
    assert tables is not None
    tables.returns = ApiReturn(type="list[Table]", item_class_id="pkg.Table")
    first = """
        import pkg
        db = pkg.connect("x")
        found = [db.search("q") for db in pkg.tables()]  # this db is a Table, here only
        db.query()

        class Mixin:
            def close(self): ...

        class Both(Mixin, pkg.Conn):  # its own class first: close may be Mixin's
            def query(self):
                self.close()

        try:
            db.query()
        except pkg.Error as e:
            e.detail
        """
    later = """
        self.close()  # a method body shown alone: this self is nobody's
        e.detail
        """
    assert used(ex(first, n=1), ex(later, n=2), surface=items) == [
        # pkg.Conn as a base is a use; neither Both.query nor self.close() is taken for Conn's
        [
            "pkg.connect",
            "pkg.tables",
            "pkg.Table.search",
            "pkg.Conn.query",
            "pkg.Conn",
            "pkg.Error",
            "pkg.Error.detail",
        ],
        [],
    ]


def test_ts_values_of_no_known_class_reach_no_member_by_its_name_alone() -> None:
    # Python's "a member only one class has" rule is not for JS: an array's forEach or map
    # is the language's, though the library has a class with such methods
    surface = lancedb_ts_surface()
    surface = FakeSurface(
        [
            *surface.entries,
            api("RecordStream", "class", language="typescript"),
            api("RecordStream.forEach", language="typescript"),
            api("RecordStream.map", language="typescript"),
        ]
    )
    code = """
        import * as lancedb from "@lancedb/lancedb";
        const db = await lancedb.connect("data");
        const names = await db.tableNames();
        names.forEach((n) => console.log(n));
        const upper = names.map((n) => n.toUpperCase());
        """
    assert used(ex(code, "typescript"), surface=surface) == [["lancedb.connect", "Connection.tableNames"]]


def test_python_values_of_no_known_class_reach_only_a_member_one_class_has() -> None:
    surface = FakeSurface(
        [
            *lancedb_surface().entries,
            api("lancedb.table.Table.stats"),  # no return type: what it gives is unknown
            api("lancedb.table.TableStatistics", "class"),
            api("lancedb.table.TableStatistics.fragment_sizes"),  # a name only it has
            api("lancedb.table.TableStatistics.get"),  # a dict's name too
        ]
    )
    code = (
        "import lancedb\ns = lancedb.connect('x').open_table('t').stats()\ns.fragment_sizes()\ns.get('n')\n"
    )
    assert used(ex(code), surface=surface) == [
        [
            "lancedb.connect",
            "lancedb.db.DBConnection.open_table",
            "lancedb.table.Table.stats",
            "lancedb.table.TableStatistics.fragment_sizes",
        ]
    ]


def test_an_install_command_holds_for_its_sections_examples_not_the_whole_page(tmp_path: Path) -> None:
    """sqlite-utils' python-api.rst: one `pip install sqlite-dump` deep in the page was given
    to all its 168 examples. The page's top and the sections above an example still count."""
    page = (
        "# API\n\nInstall it: `pip install minidb`.\n\n"
        "## Tables\n\n```python\ndb.table('t').insert({})\n```\n\n"
        "## Dumping\n\nFirst `pip install minidb-dump`.\n\n"
        "### To a file\n\n```python\ndb.dump('out.sql')\n```\n\n"
        "## Views\n\n```python\ndb.view('v')\n```\n\n"
        "### Installing the Redis backend\n\n`pip install minidb[redis]`\n\n```python\ndb.redis()\n```\n"
    )
    readme = (
        "## Installation\n\n```bash\npip install minidb\n```\n\n## Usage\n\n```python\nminidb.open()\n```\n"
    )
    engine = index(tmp_path, {"api.md": page, "readme.md": readme})
    by_line = {e.code.strip(): e.prerequisites for e in extract_examples(engine, "lib")}
    assert by_line == {
        "minidb.open()": ["pip install minidb"],  # a page's Installation section holds for its examples
        "db.table('t').insert({})": ["pip install minidb"],
        "db.dump('out.sql')": ["pip install minidb", "pip install minidb-dump"],
        "db.view('v')": ["pip install minidb"],  # a deeper "Installing …" section is its own
        "db.redis()": ["pip install minidb", "pip install minidb[redis]"],
    }
