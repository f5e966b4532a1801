"""Classes reached through a factory, ``__getitem__`` or ``__call__`` (issue 22, defect 2): the
surface records what they give, the matcher and drift type calls through them, importance
and README.LLM treat their methods as what users call. On a throwaway package."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.library import generate
from docmentor.library.examples.drift import drift_report
from docmentor.library.examples.matcher import match_examples
from docmentor.library.knowledge.importance import reached_products, score_importance
from docmentor.library.knowledge.kb_files import load_kb
from docmentor.library.models import Example
from docmentor.library.surface.api_python import ApiSurface, load_api

FILES = {
    "__init__.py": '''
        """A tiny database package."""
        from shelfdb.db import Database, Default, Maker

        __all__ = ["Database", "Default", "Maker", "connect"]


        def connect(path: str) -> Database:
            """Open the database at ``path``."""
            return Database(path)
        ''',
    "db.py": '''
        """The database."""
        from __future__ import annotations

        from typing import Union

        from shelfdb.tables import Table, View


        class Database:
            """A database file."""

            def __init__(self, path: str) -> None:
                self.path = path

            def table(self, name: str) -> Table:
                """The table called ``name``."""
                return Table(name)

            def __getitem__(self, name: str) -> Union[Table, View]:
                return Table(name)

            def either(self, name: str) -> "Table | View":
                """A table or a view."""
                return Table(name)

            def journal_mode(self) -> str:
                """The journal mode."""
                return "wal"

            def close(self) -> None:
                """Close it."""


        class Default:
            """Marks a parameter left to its default."""


        class Maker:
            """Makes tables when called."""

            def __call__(self, name: str) -> Table:
                return Table(name)
        ''',
    "tables.py": '''
        """Tables and views (not re-exported at top level: users reach them through Database)."""


        class Table:
            """A table."""

            def __init__(self, name: str) -> None:
                self.name = name

            def insert_all(self, rows: list, *, batch_size: int = 100) -> "Table":
                """Insert rows."""
                return self

            def upsert(self, row: dict, pk: str = "id") -> "Table":
                """Insert or update a row."""
                return self


        class View:
            """A view."""

            def rows_where(self, where: str = "") -> list:
                """The rows matching ``where``."""
                return []
        ''',
}


DOCS = """
# Quickstart

Open a database with `connect`:

```python
import shelfdb

db = shelfdb.connect("data.db")
db["dogs"].insert_all([{"id": 1}])
db.table("cats").upsert({"id": 2}, pk="id")
```
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    (root / "shelfdb").mkdir()
    for name, text in FILES.items():
        (root / "shelfdb" / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def surface(site: Path) -> ApiSurface:
    return load_api("shelfdb", search_paths=[site])


def example(code: str, example_id: str = "ex", line: int = 1) -> Example:
    return Example(
        example_id=example_id,
        title=example_id,
        code=textwrap.dedent(code).lstrip(),
        language="python",
        source="docs",
        path="guide.md",
        line=line,
    )


def by_name(surface: ApiSurface, dotted: str) -> str:
    """api_id of ``Class.member`` (short class name) in the surface."""
    cls, _, member = dotted.partition(".")
    found = [
        e.api_id for e in surface.entries if e.api_id.endswith(f".{cls}.{member}" if member else f".{cls}")
    ]
    assert len(found) == 1, (dotted, found)
    return found[0]


def test_the_surface_records_what_getitem_call_and_union_returns_give(surface: ApiSurface) -> None:
    table, view = by_name(surface, "Table"), by_name(surface, "View")
    db, maker = by_name(surface, "Database"), by_name(surface, "Maker")
    assert surface.products[f"{db}.__getitem__"] == (table, view)
    assert surface.products[f"{maker}.__call__"] == (table,)
    assert surface.products[by_name(surface, "Database.either")] == (table, view)
    # a single class stays in returns.class_id: no product entry for it
    assert by_name(surface, "Database.table") not in surface.products


def test_calls_through_a_factory_getitem_call_and_unions_are_credited(surface: ApiSurface) -> None:
    examples = [
        example(
            """
            import shelfdb
            db = shelfdb.connect("data.db")
            db["dogs"].insert_all([{"id": 1}], batch_size=10)
            db.table("cats").upsert({"id": 2}, pk="id")
            """,
            "factory",
        ),
        example(
            """
            from shelfdb import Maker
            make = Maker()
            make("birds").insert_all([])
            """,
            "call",
        ),
        example(
            """
            for row in db.either("v").rows_where("age > 1"):
                print(row)
            db["v"].rows_where()
            """,
            "union",
            line=20,
        ),
        example("x = {}\nx['a'].insert_all([])\n", "untyped", line=40),
    ]
    match_examples(examples, surface, library="shelfdb")
    used = {ex.example_id: set(ex.apis_used) for ex in examples}
    assert {by_name(surface, "Table.insert_all"), by_name(surface, "Table.upsert")} <= used["factory"]
    assert by_name(surface, "Database.table") in used["factory"]
    assert by_name(surface, "Table.insert_all") in used["call"]
    # the block after sees `db` of the first block; the union's member is the view's
    assert by_name(surface, "View.rows_where") in used["union"]
    assert used["untyped"] == set()  # a dict's item is nobody's table


def test_drift_catches_misspelled_and_wrong_keyword_calls_through_every_form(surface: ApiSurface) -> None:
    good = example(
        """
        import shelfdb
        db = shelfdb.connect("data.db")
        db["dogs"].insert_all([], batch_size=5)
        db.table("cats").upsert({}, pk="id")
        db["v"].rows_where("x")
        shelfdb.Maker()("t").insert_all([])
        """,
        "good",
    )
    bad = example(
        """
        import shelfdb
        db = shelfdb.connect("data.db")
        db["dogs"].insert_al([])
        db.table("cats").upsert({}, key="id")
        shelfdb.Maker()("t").insert_all([], batch=5)
        db.either("v").rows_wher()
        """,
        "bad",
        line=50,
    )
    assert drift_report([good], surface, library="shelfdb").findings == ()
    report = drift_report([bad], surface, library="shelfdb")
    found = {(f.kind, f.api, f.line) for f in report.findings}
    assert ("missing_api", 'db["dogs"].insert_al', 50 + 1 + 2) in {
        (k, a.replace("'", '"'), n) for k, a, n in found
    }
    assert any(f.kind == "invalid_api_signature" and "key" in f.message for f in report.findings)
    assert any(f.kind == "invalid_api_signature" and "batch" in f.message for f in report.findings)
    union = [f for f in report.findings if "rows_wher" in f.api]
    assert len(union) == 1 and union[0].suggestion and "rows_where" in union[0].suggestion
    misspelled = next(f for f in report.findings if "insert_al" in f.api)
    assert misspelled.suggestion is not None and "insert_all" in misspelled.suggestion


def test_the_classes_users_get_from_factories_are_products(surface: ApiSurface) -> None:
    reached = reached_products(surface.entries, surface.products, "shelfdb")
    table, view = by_name(surface, "Table"), by_name(surface, "View")
    assert set(reached) == {table, view}  # Database, Maker: exported themselves
    assert reached[table] in {
        by_name(surface, "Database.table"),
        by_name(surface, "Database"),
        by_name(surface, "Maker"),
    }
    # without the surface's products only the typed factory reaches Table
    assert set(reached_products(surface.entries, {}, "shelfdb")) == {table}


def test_a_products_methods_count_as_exported_members(surface: ApiSurface) -> None:
    def scored(products: dict[str, tuple[str, ...]]) -> dict[str, dict[str, float]]:
        entries = [e.model_copy(deep=True) for e in surface.entries]
        score_importance(entries, [], {}, package="shelfdb", products=products)
        return {e.api_id: e.importance_factors for e in entries}

    upsert, rows_where = by_name(surface, "Table.upsert"), by_name(surface, "View.rows_where")
    journal = by_name(surface, "Database.journal_mode")
    factors = scored(surface.products)
    assert (
        factors[upsert]["exported"] == factors[rows_where]["exported"] == factors[journal]["exported"] == 0.6
    )
    # View is reached only through db[name] / the union return: without them, an internal
    without = scored({})
    assert without[upsert]["exported"] == 0.6 and without[rows_where]["exported"] == 0.0
    # the product itself counts as its members do: a member never outranks its class there
    # (werkzeug's Headers had 0.0 while Headers.clear had 0.6)
    table = by_name(surface, "Table")
    assert factors[table]["exported"] == 0.6 and without[table]["exported"] == 0.6


def test_readme_contexts_are_what_users_call(site: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(textwrap.dedent(DOCS).lstrip(), encoding="utf-8")
    engine = Docmentor(tmp_path / "db")
    result = generate(
        engine, library="shelfdb", docs_path=docs, out=tmp_path / "out", search_paths=[site], embeddings=False
    )
    assert result.readme_path is not None and result.kb_path is not None
    readme = result.readme_path.read_text(encoding="utf-8")
    heads = [
        line.split("\n")[0].split("(")[0]
        for block in readme.split("<context_")
        if "_function>\n" in block
        for line in [block.split("_function>\n", 1)[1]]
    ]
    assert heads, readme
    order = {head: i for i, head in enumerate(heads)}
    table = by_name(load_api("shelfdb", search_paths=[site]), "Table")
    for method in ("insert_all", "upsert"):
        assert f"{table}.{method}" in order
        assert order[f"{table}.{method}"] < order["shelfdb.Database.journal_mode"]
    # instance attributes and marker classes come after every API users call; a class
    # whose instances are called (Maker) is one users call
    aside = ("shelfdb.Database.path", f"{table}.name", "shelfdb.Default")
    last_call = max(i for h, i in order.items() if h not in aside)
    assert all(order[h] > last_call for h in aside)
    assert order["shelfdb.Maker"] < last_call
    kb = load_kb(result.kb_path)
    factors = {e.api_id: e.importance_factors for e in kb.entries}
    assert factors[f"{table}.upsert"]["exported"] == 0.6


SHARED = {
    "__init__.py": '''
        """A database package whose tables and views share a base."""
        from qdb.db import Database

        __all__ = ["Database"]
        ''',
    "db.py": '''
        """The database."""
        from __future__ import annotations

        from typing import Union


        class Queryable:
            """What tables and views share."""

            def rows_where(self, where: str = "", *, limit: int | None = None) -> list:
                """The rows matching ``where``."""
                return []


        class Table(Queryable):
            """A table."""

            def enable_fts(self, columns: list, *, fts_version: str = "FTS5") -> None:
                """Enable full-text search on ``columns``."""
                self.fts = (columns, fts_version)


        class View(Queryable):
            """A view."""

            def enable_fts(self, *args, **kwargs):
                "Not supported on views."
                raise NotImplementedError("enable_fts() is supported on tables but not on views")


        class Database:
            """A database file."""

            def __getitem__(self, name: str) -> Union[Table, View]:
                return Table()
        ''',
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    root = tmp_path_factory.mktemp("shared")
    (root / "qdb").mkdir()
    for name, text in SHARED.items():
        (root / "qdb" / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return load_api("qdb", search_paths=[root])


def test_a_union_member_one_base_defines_or_only_one_class_implements_is_credited(shared: ApiSurface) -> None:
    code = """
        from qdb import Database
        db = Database()
        for row in db["dogs"].rows_where("age > 1", limit=5):
            print(row)
        db["dogs"].enable_fts(["name"], fts_version="FTS4")
        """
    ex = example(code)
    match_examples([ex], shared, library="qdb")
    assert {"qdb.db.Queryable.rows_where", "qdb.db.Table.enable_fts"} <= set(ex.apis_used)
    assert "qdb.db.View.enable_fts" not in ex.apis_used
    assert "qdb.db.View.enable_fts" in shared.stubs
    # so drift checks those calls too
    bad = example(code.replace("limit=5", "limt=5").replace("fts_version=", "fts_versoin="), "bad")
    found = {f.api for f in drift_report([bad], shared, library="qdb").findings}
    assert any("rows_where" in api for api in found) and any("enable_fts" in api for api in found)
    assert drift_report([example(code, "good")], shared, library="qdb").findings == ()


ABSTRACT = {
    "__init__.py": '''
        """An HTTP package whose request function is typed by an abstract response."""
        from hq.api import request
        from hq.response import BaseResponse, Response

        __all__ = ["BaseResponse", "Response", "request"]
        ''',
    "response.py": '''
        class BaseResponse:
            """What every response offers."""

            def stream(self, amount: int = 1024):
                raise NotImplementedError()

            def release(self) -> None:
                raise NotImplementedError()


        class Response(BaseResponse):
            """The response of a connection pool."""

            def stream(self, amount: int = 1024, *, decode: bool = True):
                """Yield the body ``amount`` bytes at a time."""
                yield b""

            def release(self) -> None:
                """Give the connection back to its pool."""
                self.pool = None
        ''',
    "other.py": '''
        from hq.response import BaseResponse


        class OtherResponse(BaseResponse):
            """Another back end's response (not exported at the top)."""

            def stream(self, amount: int = 1024):
                """Stream it."""
                yield b""
        ''',
    "api.py": '''
        from hq.response import BaseResponse


        def request(method: str, url: str) -> BaseResponse:
            """Make a request."""
        ''',
}


def test_a_member_an_abstract_return_type_only_declares_is_the_exported_subclass_s(
    tmp_path: Path,
) -> None:
    """A urllib3 tour: `urllib3.request()` is typed `-> BaseHTTPResponse`, whose `stream` and
    `release_conn` only raise NotImplementedError; the docs' `resp.stream(32)` was credited to
    that stub, which ranked above `HTTPResponse.stream`. The one public subclass that defines
    it, or of several the one the package exports at its top, is what runs."""
    (tmp_path / "hq").mkdir()
    for name, text in ABSTRACT.items():
        (tmp_path / "hq" / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    surface = load_api("hq", search_paths=[tmp_path])
    assert {"hq.response.BaseResponse.stream", "hq.response.BaseResponse.release"} <= surface.stubs
    code = """
        import hq
        resp = hq.request("GET", "https://example.com")
        for chunk in resp.stream(32):
            print(chunk)
        resp.release()
        """
    ex = example(code)
    match_examples([ex], surface, library="hq")
    assert {"hq.response.Response.stream", "hq.response.Response.release"} <= set(ex.apis_used)
    assert not {"hq.response.BaseResponse.stream", "hq.response.BaseResponse.release"} & set(ex.apis_used)
    # drift checks the call against the method that runs (its keyword `decode`)
    good = example(code.replace("stream(32)", "stream(32, decode=False)"), "good")
    assert drift_report([good], surface, library="hq").findings == ()
    bad = example(code.replace("stream(32)", "stream(32, decod=False)"), "bad")
    assert [f.api_id for f in drift_report([bad], surface, library="hq").findings] == [
        "hq.response.Response.stream"
    ]


def test_what_an_upgrade_guide_or_changelog_names_is_no_prose_mention(tmp_path: Path) -> None:
    """A pydash tour: an upgrading page's "new in v3" lists made five rarely used functions
    important enough for README.LLM (prose mentions), over those only the API page shows.
    A changelog's or an upgrade guide's mentions name what changed: not counted; a guide's
    are, as before."""
    site = tmp_path / "site"
    (site / "toolz").mkdir(parents=True)
    (site / "toolz" / "__init__.py").write_text(
        textwrap.dedent(
            '''
            """Tools."""
            __all__ = ["merge_maps", "rare_tool", "pick"]

            def merge_maps(a, b):
                """Merge b into a."""
                return a

            def rare_tool(x):
                """Do an obscure thing."""
                return x

            def pick(obj, *keys):
                """Pick keys."""
                return obj
            '''
        ).lstrip(),
        encoding="utf-8",
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "upgrading.rst").write_text(
        "Upgrading\n=========\n\nNew in v3: ``rare_tool`` joins. ``rare_tool`` is faster.\n"
        "Renamed ``rare_tool`` from ``odd_tool``.\n",
        encoding="utf-8",
    )
    (docs / "guide.rst").write_text(
        "Guide\n=====\n\nUse ``pick`` to pick the keys you need.\n", encoding="utf-8"
    )
    result = generate(
        Docmentor(tmp_path / "db"), library="toolz", docs_path=docs, out=tmp_path / "out",
        search_paths=[site], embeddings=False,
    )  # fmt: skip
    assert result.kb_path is not None
    factors = {e.api_id: e.importance_factors for e in load_kb(result.kb_path).entries}
    assert factors["toolz.rare_tool"]["prose"] == 0.0, factors["toolz.rare_tool"]
    assert factors["toolz.pick"]["prose"] > 0.0
