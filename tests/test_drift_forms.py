"""Drift through every form the docs call an API in (issue 22's target): a plain function, an
imported name, ``obj.method`` with ``obj`` made by a constructor, ``factory(...).method``,
``obj[key].method`` (a union ``__getitem__``), ``obj(...)`` (``__call__``), ``obj(...).method``,
decorators (plain, factories, an object's method), constructors, class- and static methods,
and a package function shadowing its same-named submodule. For each: a correct call is no
finding; a misspelt member is one (with a suggestion when close); so is a wrong keyword and,
where the signature tells, too many positional arguments; ``*args``/``**kwargs`` never are.
On a throwaway package; the last test reads Markdown and reST pages (doctest sessions too)
through the real ``generate``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docmentor.library.examples.drift import DriftReport, drift_report
from docmentor.library.models import Example
from docmentor.library.surface.api_python import ApiSurface, load_api
from libtool import generated_kb, page_drift, write_files

PACKAGE = {
    "mx/__init__.py": '''
        """The mx library."""
        from typing import Callable

        from mx.core import (
            App, Client, Database, Document, Flexible, Partial, Pipeline, Settings, Single, Table, Token, View, Checked, backoff, cached, connect,
            deco, english, load, tagged,
        )
        from mx.retry import Policy

        __all__ = ["App", "Client", "Database", "Document", "Flexible", "Partial", "Pipeline", "Policy", "Settings", "Single", "Table", "Token", "Checked",
                   "View", "backoff", "cached", "connect", "deco", "english", "load", "retry", "tagged"]


        def retry(fn: Callable | None = None, *, attempts: int = 3, backoff: float = 1.0) -> Callable:
            """Retry a function (binds ``mx.retry`` over the submodule imported above)."""
            return fn
        ''',
    "mx/lazy.py": '''
        def __getattr__(name: str) -> object:
            """Names moved elsewhere, still answered (with a warning)."""
            raise AttributeError(name)
        ''',
    "mx/retry.py": '''
        class Policy:
            """A retry policy."""
            def __init__(self, attempts: int = 3) -> None:
                self.attempts = attempts
        ''',
    "mx/core.py": '''
        import abc
        import functools
        import typing
        from typing import Any, Callable, Union


        class Document:
            """A document."""
            def words(self, *, lower: bool = False) -> list[str]:
                """Its words."""
                return []


        class Step:
            """Runs on a text when called."""
            def __call__(self, text: str, *, lower: bool = False) -> Document:
                """Run on a text."""
                return Document()


        class Pipeline(Step):
            """A pipeline: call it on a text (``__call__`` inherited from Step)."""
            def __init__(self, name: str, *, steps: int = 1) -> None:
                self.name = name

            def add(self, step: str) -> None:
                """Add a step."""


        class Flexible:
            """Takes anything when called."""
            def __call__(self, *args: Any, **kwargs: Any) -> Document:
                return Document()


        class Partial(functools.partial):
            """Its ``__call__`` is the standard library's: unknown here."""


        class Table:
            """A table."""
            def insert(self, row: dict, *, replace: bool = False) -> None:
                """Insert a row."""

            def search(self, q: str, limit: int = 10) -> "Table":
                """Search."""
                return self


        class View:
            """A view."""
            def select(self, where: str) -> list:
                """Select rows."""
                return []


        class Database:
            """A database."""
            def __init__(self, path: str, *, timeout: float = 5.0) -> None:
                self.path = path

            def table(self, name: str) -> Table:
                """A table."""
                return Table()

            def __getitem__(self, name: str) -> Union[Table, View]:
                return Table()

            @classmethod
            def memory(cls, *, strict: bool = False) -> "Database":
                """An in-memory database."""
                return cls(":memory:")

            @staticmethod
            def quote(value: str) -> str:
                """Quote a value."""
                return value

            def execute(self, sql: str, *params: object) -> None:
                """Run SQL."""

            def configure(self, **options: object) -> None:
                """Set options."""


        class App:
            """An application."""
            def route(self, rule: str, *, methods: list[str] | None = None) -> Callable:
                """Register a view."""
                return lambda f: f


        def connect(path: str, *, timeout: float = 5.0) -> Database:
            """Connect."""
            return Database(path)


        def deco(fn: Callable) -> Callable:
            """A plain decorator."""
            return fn


        def tagged(*, name: str, level: int = 0) -> Callable:
            """A decorator factory."""
            return lambda f: f


        def load(*args: object, **kwargs: object) -> None:
            """Anything goes."""


        class cached:
            """A decorator factory that is a class: ``@cached(maxsize=3)``."""
            def __init__(self, *, maxsize: int = 128) -> None:
                self.maxsize = maxsize

            def __call__(self, fn: Callable) -> Callable:
                return fn


        @typing.overload
        def backoff(func: Callable) -> Callable: ...
        @typing.overload
        def backoff(*, stop: int = 3, wait: float = 1.0) -> Callable: ...
        def backoff(*dargs: Any, **dkw: Any) -> Any:
            """Retry with backoff: a decorator, or a decorator factory (its keywords in its overloads)."""


        class Client:
            """Made from a URL, or a host and a port (its ``__init__`` takes anything)."""
            @typing.overload
            def __init__(self, url: str) -> None: ...
            @typing.overload
            def __init__(self, *, host: str, port: int = 80) -> None: ...
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                self.args = args


        class Token:
            """Constructed by ``__new__`` (no ``__init__``)."""
            def __new__(cls, value: str, *, strict: bool = False) -> "Token":
                return object.__new__(cls)


        class Meta(type):
            """Constructs its classes itself."""
            def __call__(cls, *args: Any, **kwargs: Any) -> Any:
                return super().__call__()


        class Single(metaclass=Meta):
            """Made by its metaclass, whatever the call."""


        class Checked(metaclass=abc.ABCMeta):
            """An ABCMeta class constructs as any class."""


        class _Store(dict):
            """A private base from outside the package's classes: `dict`'s members are its."""


        class _Local:
            def own(self) -> None:
                """All of this base is the package's."""


        class Settings(_Store, _Local):
            """Settings: a dict through a private base (tomlkit's TOMLDocument)."""
            def save(self) -> None:
                """Write them."""


        english: Pipeline = Pipeline("en")
        """The English pipeline, ready to call."""
        ''',
}


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    root = tmp_path_factory.mktemp("forms")
    write_files(root, PACKAGE)
    return load_api("mx", search_paths=[root])


def drift(surface: ApiSurface, code: str) -> DriftReport:
    example = Example(
        example_id="ex",
        title="ex",
        code="import mx\n" + textwrap.dedent(code).lstrip(),
        language="python",
        source="docs",
        path="guide.md",
        line=1,
        complete=True,
    )
    return drift_report([example], surface, library="mx")


MISSING, INVALID = "missing_api", "invalid_api_signature"
KEEP = "accepted keywords"  # a suggestion that only lists the keywords
COUNT = "by keyword"  # a positional count's suggestion

DB = "db = mx.Database('p')\n"
DBC = "db = mx.connect('p')\n"
NLP = "nlp = mx.Pipeline('en')\n"
APP = "app = mx.App()\n"
FN = "\ndef view():\n    pass\n"

# form → (code, expected findings: (kind, api as written, what the suggestion says)); the
# suggestion of a misspelt name is the fixed text, of a keyword its start, of a count its end
FORMS: dict[str, tuple[str, list[tuple[str, str, str | None]]]] = {
    # a function of the package
    "function ok": ("mx.connect('p', timeout=1)", []),
    "function misspelt": ("mx.conect('p')", [(MISSING, "mx.conect", "did you mean mx.connect?")]),
    "function far name": ("mx.frobnicate('p')", [(MISSING, "mx.frobnicate", None)]),
    "function keyword": ("mx.connect('p', timout=1)", [(INVALID, "mx.connect", "did you mean timeout=?")]),
    "function positional": ("mx.connect('p', 2)", [(INVALID, "mx.connect", COUNT)]),
    # imported by name
    "imported ok": ("from mx import connect\nconnect('p')", []),
    "imported misspelt": (
        "from mx import conect",
        [(MISSING, "from mx import conect", "did you mean from mx import connect?")],
    ),
    "imported keyword": (
        "from mx import connect\nconnect('p', timout=1)",
        [(INVALID, "connect", "did you mean timeout=?")],
    ),
    "imported positional": ("from mx import connect\nconnect('p', 1)", [(INVALID, "connect", COUNT)]),
    # obj.method, obj made by a constructor
    "method ok": (DB + "db.table('t')", []),
    "method misspelt": (DB + "db.tabel('t')", [(MISSING, "db.tabel", "did you mean db.table?")]),
    "method keyword": (DB + "db.table(nme='t')", [(INVALID, "db.table", "did you mean name=?")]),
    "method positional": (DB + "db.table('t', 'u')", [(INVALID, "db.table", COUNT)]),
    # the value reached through `with`, an annotation, `await`, `:=` and import aliases
    "through with": (
        "with mx.connect('p') as db:\n    db.tabel('t')",
        [(MISSING, "db.tabel", "did you mean db.table?")],
    ),
    "through an annotation": (
        "def f(db: mx.Database):\n    db.table(nme='t')",
        [(INVALID, "db.table", "did you mean name=?")],
    ),
    "through await": (
        "async def main():\n    db = await mx.connect('p')\n    db.tabel('t')",
        [(MISSING, "db.tabel", "did you mean db.table?")],
    ),
    "through an alias": (
        "import mx as m\nfrom mx import Database as DB\nm.conect()\nDB.memory(strct=1)",
        [(MISSING, "m.conect", "did you mean m.connect?"), (INVALID, "DB.memory", "did you mean strict=?")],
    ),
    # factory(...).method, through typed returns
    "factory ok": ("mx.connect('p').table('t').insert({}, replace=True)", []),
    "factory misspelt": (
        "mx.connect('p').table('t').insrt({})",
        [(MISSING, "mx.connect('p').table('t').insrt", "did you mean mx.connect('p').table('t').insert?")],
    ),
    "factory keyword": (
        "mx.connect('p').table('t').insert({}, replce=True)",
        [(INVALID, "mx.connect('p').table('t').insert", "did you mean replace=?")],
    ),
    "factory positional": (
        "mx.connect('p').table('t').insert({}, True)",
        [(INVALID, "mx.connect('p').table('t').insert", COUNT)],
    ),
    # obj[key].method: __getitem__ -> Table | View, the member says which
    "getitem ok": (
        DBC + "db['t'].insert({})\ndb['v'].select('x')\nt = db['t']\nt.search('q').insert({})",
        [],
    ),
    "getitem misspelt": (
        DBC + "db['t'].insrt({})",
        [(MISSING, "db['t'].insrt", "did you mean db['t'].insert?")],
    ),
    "getitem keyword": (
        DBC + "db['t'].insert({}, replce=True)",
        [(INVALID, "db['t'].insert", "did you mean replace=?")],
    ),
    "getitem positional": (DBC + "db['t'].insert({}, True)", [(INVALID, "db['t'].insert", COUNT)]),
    "getitem union member keyword": (
        DBC + "db['v'].select(wher='x')",
        [(INVALID, "db['v'].select", "did you mean where=?")],
    ),
    "getitem union member positional": (
        DBC + "db['v'].select('x', 'y')",
        [(INVALID, "db['v'].select", COUNT)],
    ),
    # obj(...): the class's __call__ (inherited within the library)
    "call ok": (NLP + "nlp('text', lower=True)", []),
    "call keyword": (NLP + "nlp('text', lowr=True)", [(INVALID, "nlp", "did you mean lower=?")]),
    "call positional": (NLP + "nlp('text', True)", [(INVALID, "nlp", COUNT)]),
    "call of a subclass instance": (
        "class Mine(mx.Pipeline):\n    pass\n\nmine = Mine('en')\nmine('t', lowr=True)",
        [(INVALID, "mine", "did you mean lower=?")],
    ),
    "call overridden by the example": (
        "class Mine(mx.Pipeline):\n    def __call__(self, a, b, c):\n        pass\n\nMine('en')(1, 2, 3, d=4)",
        [],
    ),
    # obj(...).method
    "call then method ok": (NLP + "nlp('text').words(lower=True)", []),
    "call then method misspelt": (
        NLP + "nlp('text').wrds()",
        [(MISSING, "nlp('text').wrds", "did you mean nlp('text').words?")],
    ),
    "call then method keyword": (
        NLP + "nlp('text').words(lowr=True)",
        [(INVALID, "nlp('text').words", "did you mean lower=?")],
    ),
    "call then method positional": (
        NLP + "nlp('text').words(True)",
        [(INVALID, "nlp('text').words", "pass the arguments by keyword")],
    ),
    # @pkg.deco
    "decorator ok": ("@mx.deco" + FN + "@mx.deco\nclass C:\n    pass", []),
    "decorator misspelt": ("@mx.dec" + FN, [(MISSING, "mx.dec", "did you mean mx.deco?")]),
    "decorator called with too many": ("@mx.deco(1, 2)" + FN, [(INVALID, "mx.deco", COUNT)]),
    # @pkg.deco(...): a decorator factory's keywords
    "decorator factory ok": ("@mx.tagged(name='x', level=2)" + FN, []),
    "decorator factory misspelt": (
        "@mx.taged(name='x')" + FN,
        [(MISSING, "mx.taged", "did you mean mx.tagged?")],
    ),
    "decorator factory keyword": (
        "@mx.tagged(nam='x')" + FN,
        [(INVALID, "mx.tagged", "did you mean name=?")],
    ),
    "decorator factory positional": (
        "@mx.tagged('x')" + FN,
        [(INVALID, "mx.tagged", "pass the arguments by keyword")],
    ),
    # a decorator factory that is a class: __init__'s keywords, then __call__ on the function
    "class decorator ok": ("@mx.cached(maxsize=3)" + FN + "mx.cached()(print)", []),
    "class decorator keyword": (
        "@mx.cached(maxsiz=3)" + FN,
        [(INVALID, "mx.cached", "did you mean maxsize=?")],
    ),
    "class decorator positional": (
        "@mx.cached(3)" + FN,
        [(INVALID, "mx.cached", "pass the arguments by keyword")],
    ),
    "class decorator's call": ("mx.cached()(print, 1)", [(INVALID, "mx.cached()", COUNT)]),
    # a signature that takes anything (*dargs, **dkw) with its keywords in @overloads
    "overloaded decorator ok": ("@mx.backoff" + FN + "@mx.backoff(stop=2, wait=0.5)" + FN, []),
    "overloaded decorator keyword": (
        "@mx.backoff(stp=2)" + FN,
        [(INVALID, "mx.backoff", "did you mean stop=?")],
    ),
    "overloaded decorator positional": ("mx.backoff(print, 2)", [(INVALID, "mx.backoff", COUNT)]),
    "overloaded constructor ok": ("mx.Client('http://x')\nmx.Client(host='x', port=1)", []),
    "overloaded constructor keyword": (
        "mx.Client(hots='x')",
        [(INVALID, "mx.Client", "did you mean host=?")],
    ),
    # an instance the package holds, typed by its annotation, called
    "module instance call ok": ("mx.english('text', lower=True).words()", []),
    "module instance call keyword": (
        "mx.english('text', lowr=True)",
        [(INVALID, "mx.english", "did you mean lower=?")],
    ),
    # @obj.method(...): an application's route decorator
    "route ok": (APP + "@app.route('/', methods=['GET'])" + FN + "@app.route" + FN, []),
    "route misspelt": (APP + "@app.rote('/')" + FN, [(MISSING, "app.rote", "did you mean app.route?")]),
    "route keyword": (
        APP + "@app.route('/', method=['GET'])" + FN,
        [(INVALID, "app.route", "did you mean methods=?")],
    ),
    "route positional": (APP + "@app.route('/', ['GET'])" + FN, [(INVALID, "app.route", COUNT)]),
    # Cls(...): __init__'s parameters
    "constructor ok": ("mx.Database('p', timeout=2)\nmx.Pipeline('en', steps=2)", []),
    "constructor misspelt": ("mx.Databse('p')", [(MISSING, "mx.Databse", "did you mean mx.Database?")]),
    "constructor keyword": (
        "mx.Database('p', timout=2)",
        [(INVALID, "mx.Database", "did you mean timeout=?")],
    ),
    "constructor positional": ("mx.Database('p', 2)", [(INVALID, "mx.Database", COUNT)]),
    # a private base deriving from a class outside the package (dict): its members are not all
    # known, so no member is reported missing (tomlkit's `doc.pop`); a wholly local one's are
    "member through a private base from outside": ("s = mx.Settings()\ns.pop('a')\ns.save()\ns.own()", []),
    "member misspelt, every base known": (
        "mx.Document().wrds()",
        [(MISSING, "mx.Document().wrds", "did you mean mx.Document().words?")],
    ),
    "constructed by __new__ ok": ("mx.Token('x', strict=True)", []),
    "constructed by __new__ keyword": (
        "mx.Token('x', strct=True)",
        [(INVALID, "mx.Token", "did you mean strict=?")],
    ),
    "constructed by __new__ positional": ("mx.Token('x', True)", [(INVALID, "mx.Token", COUNT)]),
    "constructed by a metaclass": ("mx.Single(1, 2, anything=3)", []),
    "constructed as any class": ("mx.Checked(1)", [(INVALID, "mx.Checked", "pass the arguments by keyword")]),
    # classmethod and staticmethod, through the class (no receiver passed) and an instance
    "classmethod ok": ("mx.Database.memory(strict=True)\n" + DB + "db.memory()", []),
    "classmethod misspelt": (
        "mx.Database.memry()",
        [(MISSING, "mx.Database.memry", "did you mean mx.Database.memory?")],
    ),
    "classmethod keyword": (
        "mx.Database.memory(strct=True)",
        [(INVALID, "mx.Database.memory", "did you mean strict=?")],
    ),
    "classmethod positional": (
        "mx.Database.memory(True)",
        [(INVALID, "mx.Database.memory", "pass the arguments by keyword")],
    ),
    "staticmethod ok": ("mx.Database.quote('x')\n" + DB + "db.quote(value='x')", []),
    "staticmethod keyword": (
        "mx.Database.quote(valu='x')",
        [(INVALID, "mx.Database.quote", "did you mean value=?")],
    ),
    "staticmethod positional": ("mx.Database.quote('x', 'y')", [(INVALID, "mx.Database.quote", COUNT)]),
    "staticmethod positional on an instance": (DB + "db.quote('x', 'y')", [(INVALID, "db.quote", COUNT)]),
    "method through its class takes the instance": (DB + "mx.Database.table(db, 't')", []),
    # a package function shadowing its same-named submodule (mx/retry.py)
    "shadowing function ok": (
        "@mx.retry(attempts=2, backoff=0.5)"
        + FN
        + "@mx.retry"
        + FN
        + "from mx import retry\n@retry(backoff=2)"
        + FN,
        [],
    ),
    "shadowing function misspelt": (
        "@mx.retri(attempts=2)" + FN,
        [(MISSING, "mx.retri", "did you mean mx.retry?")],
    ),
    "shadowing function keyword": (
        "@mx.retry(atempts=2)" + FN,
        [(INVALID, "mx.retry", "did you mean attempts=?")],
    ),
    "shadowing function positional": ("mx.retry(None, 2)", [(INVALID, "mx.retry", COUNT)]),
    "shadowed submodule still imports": (
        "from mx.retry import Policy\nPolicy(attempts=2)\nfrom mx.retry import Polcy",
        [(MISSING, "from mx.retry import Polcy", "did you mean from mx.retry import Policy?")],
    ),
    # a module with __getattr__ answers names it does not define
    "module with __getattr__": (
        "from mx.lazy import moved\nmx.lazy.other()\nfrom mx.retry import moved",
        [(MISSING, "from mx.retry import moved", None)],
    ),
    # *args / **kwargs, and a __call__ the library does not define: never reported
    "flexible signatures": (
        DB + "db.execute('s', 1, 2, 3)\ndb.configure(a=1, b=2)\nmx.load(1, 2, x=3)\n"
        "mx.Flexible()(1, 2, anything=3)\nmx.Partial(print)(1, 2, sep='')",
        [],
    ),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_each_form_is_checked(surface: ApiSurface, form: str) -> None:
    code, expected = FORMS[form]
    report = drift(surface, code)
    found = [(f.kind, f.api) for f in report.findings]
    assert found == [(kind, api) for kind, api, _ in expected], report.to_text()
    for f, (_, _, says) in zip(report.findings, expected, strict=True):
        if says is None or f.kind == MISSING:
            assert f.suggestion == says
        elif says in (COUNT, "pass the arguments by keyword"):
            assert f.suggestion is not None and f.suggestion.endswith(says), f.suggestion
        else:
            assert f.suggestion is not None and f.suggestion.startswith(says), f.suggestion
            assert KEEP in f.suggestion


def test_an_instance_call_names_the_class_and_its_call_signature(surface: ApiSurface) -> None:
    (keyword,) = drift(surface, NLP + "nlp('text', lowr=True)").findings
    assert keyword.api_id == "mx.core.Step.__call__" and keyword.owner == "mx.core.Step"
    assert keyword.message == (
        "nlp(..., lowr=...): no parameter named 'lowr' in "
        "Pipeline.__call__(self, text: str, *, lower: bool = False) -> Document"
    )
    assert keyword.suggestion == "did you mean lower=? accepted keywords: text, lower"
    # a documented __call__ is an API of the catalog too: what calling an instance does
    assert surface.by_id["mx.core.Step.__call__"].kind == "method"
    forms = surface.call_forms
    assert set(forms.calls) == {
        "mx.core.Step",
        "mx.core.Pipeline",
        "mx.core.Flexible",
        "mx.core.cached",
        "mx.core.Meta",
    }
    assert forms.made_by_metaclass == {"mx.core.Single"}
    assert set(forms.constructors) == {"mx.core.Token"}
    assert forms.bindings == {
        "mx.core.Database.memory": "classmethod",
        "mx.core.Database.quote": "staticmethod",
    }
    # overloads only where the signature itself takes anything (Flexible.__call__ has none)
    assert {k: len(v) for k, v in forms.overloads.items()} == {"mx.core.backoff": 2, "mx.core.Client": 2}


def test_a_name_imported_from_a_private_module_is_not_judged(surface: ApiSurface) -> None:
    """rich's docs import ``make_test_card`` from ``rich.__main__``: the surface leaves private
    modules out, so it cannot tell what they hold; a public module's missing name still counts."""
    assert not drift(surface, "from mx.__main__ import make_card\nfrom mx._impl import helper\n").findings
    (missing,) = drift(surface, "from mx.core import Databse\n").findings
    assert missing.kind == MISSING


def test_an_overloaded_call_is_told_against_the_overload_it_comes_closest_to(surface: ApiSurface) -> None:
    (keyword,) = drift(surface, "mx.Client(hots='x', port=1)").findings
    assert keyword.api_id == "mx.core.Client"
    assert keyword.message == (
        "mx.Client(..., hots=...): no parameter named 'hots' in "
        "Client.__init__(self, *, host: str, port: int = 80) -> None (one of 2 overloads)"
    )
    assert keyword.suggestion == "did you mean host=? accepted keywords: host, port"


DOCS = {
    "docs/guide.md": """
        # Guide

        ```python
        import mx

        db = mx.connect("data.db")
        db["t"].insrt({"a": 1})
        ```

        A session:

        ```pycon
        >>> import mx
        >>> nlp = mx.Pipeline("en")
        >>> nlp("text",
        ...     lowr=True)
        ```

        ```python
        @mx.retry(atempts=3)
        def fetch():
            pass
        ```
        """,
    "docs/myst.md": """
        # MyST

        ```{code-block} python
        import mx
        mx.conect("p")
        ```

        ```{eval-rst}
        .. code-block:: python

           import mx
           mx.Database.quote("x", "y")
        ```
        """,
    "docs/api.rst": """
        API
        ===

        .. code-block:: python

           import mx

           app = mx.App()

           @app.route("/", method=["GET"])
           def index():
               pass

        Sessions in reST::

           >>> import mx
           >>> mx.Database.memory(True)
           >>> mx.connect("p").table("t").insert({}, replce=True)
        """,
}


def test_markdown_and_rest_pages_through_generate(tmp_path: Path) -> None:
    kb = generated_kb(tmp_path, "mx", {**PACKAGE, **DOCS})
    assert kb.drift is not None
    found = [(f["path"], f["kind"], f["api"]) for f in kb.drift["findings"]]
    assert sorted(found) == sorted(
        [
            ("api.rst", INVALID, "app.route"),
            ("api.rst", INVALID, "mx.Database.memory"),
            ("api.rst", INVALID, "mx.connect('p').table('t').insert"),
            ("guide.md", MISSING, "db['t'].insrt"),
            ("guide.md", INVALID, "nlp"),
            ("guide.md", INVALID, "mx.retry"),
            ("myst.md", MISSING, "mx.conect"),
            ("myst.md", INVALID, "mx.Database.quote"),
        ]
    )
    # Markdown: the line of the page that has the mistake (a session's continuation line too)
    lines = {f["api"]: f["line"] for f in kb.drift["findings"] if f["path"] == "guide.md"}
    assert lines == {"db['t'].insrt": 7, "nlp": 16, "mx.retry": 20}
    assert [f["line"] for f in kb.drift["findings"] if f["api"] == "mx.conect"] == [5]  # a MyST directive
    # reST: the line of the page, past the directive's blank line and the literal block's
    rest = sorted(f["line"] for f in kb.drift["findings"] if f["path"] == "api.rst")
    assert rest == [10, 17, 18]
    # the examples the installed version cannot run as written are marked
    assert {ex.path for ex in kb.examples if ex.drift} == {"guide.md", "api.rst", "myst.md"}


def test_calling_a_property_is_a_finding(tmp_path: Path) -> None:
    """werkzeug's test docs write ``response.json()``, where ``json`` is a property (a dict):
    the call raises TypeError. A property whose type is callable, or unknown, is no finding;
    reading it, or calling a method, neither."""
    write_files(
        tmp_path,
        {
            "pk/__init__.py": '''
                from typing import Callable

                __all__ = ["Response", "get"]


                class Response:
                    """A response."""

                    @property
                    def json(self) -> dict:
                        """The body as JSON."""
                        return {}

                    @property
                    def handler(self) -> Callable[[int], int]:
                        """A callable."""
                        return abs

                    @property
                    def anything(self):
                        """Of no known type."""

                    def text(self) -> str:
                        """The body."""
                        return ""


                def get(url: str) -> Response:
                    """Get a URL."""
                    return Response()
                ''',
        },
    )
    api = load_api("pk", search_paths=[tmp_path])
    code = "import pk\nr = pk.get('u')\nobj = r.json()\nr.text()\nr.handler(1)\nr.anything()\nx = r.json\n"
    (finding,) = page_drift(api, code).findings
    assert (finding.kind, finding.api, finding.line) == (INVALID, "r.json()", 4)  # the page line: 1 + 3
    assert "Response.json is a property (dict), not a method" in finding.message
    assert finding.suggestion == "read it without the call: r.json"


def test_a_module_level_instance_method_called_by_its_module_names_is_checked(tmp_path: Path) -> None:
    """(review) PyJWT's ``encode = _jwt_global_obj.encode`` is the method ``PyJWT.encode``
    called without self: too many positional arguments through ``pk.encode``, an imported
    ``encode`` or another name for it are findings, as is a wrong keyword; through the class
    (``pk.Codec.encode(codec, 1)``) the receiver is explicit and the count is not judged."""
    write_files(
        tmp_path,
        {
            "pk/__init__.py": '''
                __all__ = ["Codec", "encode", "dumps"]


                class Codec:
                    """A codec."""

                    def encode(self, x: int, *, strict: bool = False) -> str:
                        """Encode x."""
                        return str(x)


                _codec = Codec()
                encode = _codec.encode
                dumps = _codec.encode
                ''',
        },
    )
    api = load_api("pk", search_paths=[tmp_path])
    entry = api.by_id["pk.Codec.encode"]
    assert entry.signature == "encode(x: int, *, strict: bool = False) -> str"  # not dumps(…)
    code = (
        "import pk\nfrom pk import encode\n"
        "pk.encode(1)\npk.encode(1, 2)\nencode(1, 2, 3)\npk.dumps(1, strict=True)\npk.dumps(1, strikt=True)\n"
        "codec = pk.Codec()\npk.Codec.encode(codec, 1)\n"
    )
    found = [(f.kind, f.line) for f in page_drift(api, code).findings]
    assert found == [(INVALID, 5), (INVALID, 6), (INVALID, 8)]  # page lines: code line + 1


def test_a_name_the_package_lacks_but_another_module_has_is_pointed_there(tmp_path: Path) -> None:
    """(a PyJWT tour) the docs call ``jwt.decode_complete``, which ``jwt`` does not export but
    ``jwt.api_jwt`` defines: the finding points there, not at the nearest spelling
    (``jwt.decode``); a name no module has keeps the nearest spelling."""
    write_files(
        tmp_path,
        {
            "pk/__init__.py": """
                from pk.api import decode
                __all__ = ["decode"]
                """,
            "pk/api.py": '''
                def decode(token: str) -> dict:
                    """Decode a token."""
                    return {}


                def decode_complete(token: str) -> dict:
                    """Decode a token, its header too."""
                    return {}
                ''',
        },
    )
    api = load_api("pk", search_paths=[tmp_path])
    code = "import pk\npk.decode_complete('t')\npk.decod('t')\n"
    found = [(f.kind, f.suggestion) for f in page_drift(api, code).findings]
    assert found == [(MISSING, "did you mean pk.api.decode_complete?"), (MISSING, "did you mean pk.decode?")]
