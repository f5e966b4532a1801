"""The Python API surface: throwaway packages (as griffe's own tests build them), another venv, real httpx."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from docmentor.errors import NotFoundError, UsageError
from docmentor.library.find.import_paths import import_path
from docmentor.library.models import ApiEntry
from docmentor.library.surface import api_python_env
from docmentor.library.surface.api_python import ApiSurface, load_api

HTTPX_API = Path(__file__).parent / "fixtures" / "eval" / "httpx_api.jsonl"  # API-retrieval tasks (NOTICE)


def make_package(root: Path, files: dict[str, str], *, version: str | None = None) -> Path:
    """Write a package (``{"pkg/__init__.py": source}``) under ``root``, optionally with dist metadata."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    if version is not None:
        name = next(iter(files)).split("/")[0]
        info = root / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return root


def surface(tmp_path: Path, files: dict[str, str], package: str = "pkg") -> ApiSurface:
    make_package(tmp_path, files)
    return load_api(package, search_paths=[tmp_path])


def test_all_decides_what_a_module_exports(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["listed", "Listed"]
                def listed(): ...
                def unlisted(): ...
                class Listed: ...
                def _private(): ...
            """,
        },
    )
    assert api.resolve("pkg.listed") is not None
    assert api.resolve("pkg.Listed") is not None
    assert api.resolve("pkg.unlisted") is None
    assert api.resolve("pkg._private") is None
    assert [e.api_id for e in api.entries] == ["pkg", "pkg.listed", "pkg.Listed"]


def test_without_all_underscore_names_and_foreign_imports_are_left_out(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from os import path
                from typing import Any
                from ._impl import Thing
                def public(x: Any) -> None: ...
                def _hidden(): ...
                class _Secret:
                    def method(self): ...
            """,
            "pkg/_impl.py": """
                class Thing:
                    def run(self) -> None: ...
                    def _internal(self): ...
                    def __repr__(self): ...
            """,
            "pkg/util.py": """
                from pkg._impl import Thing
                LIMIT = 10
                logger = object()
                documented = 3
                '''A documented module attribute.'''
                def helper(): ...
            """,
            "pkg/conftest.py": "def fixture(): ...\n",
        },
    )
    ids = {e.api_id for e in api.entries}
    assert ids == {
        "pkg",
        "pkg.public",
        "pkg._impl.Thing",
        "pkg._impl.Thing.run",
        "pkg.util",
        "pkg.util.LIMIT",
        "pkg.util.documented",
        "pkg.util.helper",
    }
    # An imported name in a plain module (no __all__) is not a public path to it.
    assert api.by_id["pkg._impl.Thing"].aliases == ["pkg.Thing"]
    assert api.resolve("pkg.util.Thing") is None
    assert api.by_id["pkg.util"].kind == "module"
    assert api.by_id["pkg.util.LIMIT"].signature == "LIMIT = 10"


def test_reexports_are_named_where_defined_with_public_aliases(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from ._impl import Conn
                from .sub import helper
                from . import sub
                __all__ = ["Conn", "helper", "sub"]
            """,
            "pkg/_impl.py": "class Conn:\n    def close(self) -> None: ...\n",
            "pkg/sub/__init__.py": 'from ._core import helper\n__all__ = ["helper"]\n',
            "pkg/sub/_core.py": "def helper(n: int) -> int:\n    return n\n",
        },
    )
    conn = api.resolve("pkg.Conn")
    assert conn is not None and conn.api_id == "pkg._impl.Conn" and conn.aliases == ["pkg.Conn"]
    assert conn.kind == "class" and conn.source_file == "pkg/_impl.py" and conn.line == 1
    helper = api.resolve("pkg.helper")
    assert helper is not None and helper.api_id == "pkg.sub._core.helper"
    assert helper.aliases == ["pkg.helper", "pkg.sub.helper"]
    assert api.resolve("pkg.sub._core.helper") is helper  # the api_id resolves too
    assert api.by_alias["pkg.Conn.close"].api_id == "pkg._impl.Conn.close"
    for entry in api.entries:
        for alias in entry.aliases:
            assert not any(part.startswith("_") for part in alias.split(".")), alias


def test_inherited_methods_are_named_on_the_defining_class(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from ._clients import Sync, Async\n",
            "pkg/_clients.py": """
                class Base:
                    def build(self, url: str) -> str:
                        '''Build a request.'''
                    def send(self) -> None: ...
                    def _merge(self): ...
                    @property
                    def hooks(self) -> dict: ...
                class Sync(Base):
                    def send(self) -> None: ...
                class Async(Base):
                    async def send(self) -> None: ...
            """,
        },
    )
    build = api.by_id["pkg._clients.Base.build"]
    assert build.kind == "method" and build.parent == "pkg._clients.Base"
    assert build.aliases == ["pkg.Sync.build", "pkg.Async.build"]
    assert api.resolve("pkg.Async.build") is build
    assert api.resolve("pkg._clients.Sync.build") is build  # through the class's definition path
    assert api.member("pkg._clients.Async", "build") is build
    assert api.by_id["pkg._clients.Base.hooks"].kind == "property"
    # Overrides are their own APIs; the private base class itself is not public.
    assert api.by_alias["pkg.Sync.send"].api_id == "pkg._clients.Sync.send"
    assert api.by_alias["pkg.Async.send"].api_id == "pkg._clients.Async.send"
    assert "pkg._clients.Base.send" not in api.by_id
    assert "pkg._clients.Base" not in api.by_id
    assert api.resolve("pkg.Sync._merge") is None


def test_a_class_attribute_set_again_without_words_is_its_bases_api(tmp_path: Path) -> None:
    # Pygments' 600 lexers each set `name`, `aliases`, `filenames` over `Lexer`'s: 4,000
    # undocumented "APIs" that crowded the functions users call out of every ranking
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from ._base import Lexer\nfrom .lexers import PythonLexer, RubyLexer\n",
            "pkg/_base.py": """
                class Lexer:
                    name = None
                    '''The lexer's full name.'''
                    aliases = []
                    def __init__(self):
                        self.options = {}
            """,
            "pkg/lexers.py": """
                from ._base import Lexer
                class PythonLexer(Lexer):
                    name = "Python"
                    aliases = ["python", "py"]
                    tabsize = 4
                    flags = 0
                    '''How the patterns are compiled: its own words, its own API.'''
                    def __init__(self):
                        self.options = {"stripnl": True}
                class RubyLexer(Lexer):
                    name = "Ruby"
                    @property
                    def aliases(self):
                        return ["rb"]
            """,
        },
    )
    name = api.by_id["pkg._base.Lexer.name"]
    assert api.resolve("pkg.PythonLexer.name") is name
    assert api.resolve("pkg.RubyLexer.name") is name
    assert {"pkg.PythonLexer.name", "pkg.RubyLexer.name"} <= set(name.aliases)
    assert "pkg.lexers.PythonLexer.name" not in api.by_id
    assert api.resolve("pkg.PythonLexer.aliases") is api.by_id["pkg._base.Lexer.aliases"]
    # new here, documented here, or no longer an attribute: the subclass's own API
    assert "pkg.lexers.PythonLexer.tabsize" in api.by_id
    assert "pkg.lexers.PythonLexer.flags" in api.by_id
    assert api.by_id["pkg.lexers.RubyLexer.aliases"].kind == "property"


def test_a_class_attribute_with_anything_of_its_own_stays_its_own_api(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from .m import Base, Mid, Leaf, Sub, Color, Client, JSONClient\n",
            "pkg/m.py": """
                import enum
                class Response: ...
                class JSONResponse(Response): ...
                class Base:
                    url = None
                    timeout = 10
                    display = None
                    def msg(self, event): ...
                    info = msg
                class Mid(Base):
                    url = "https://mid.example"
                class Leaf(Mid):
                    url = "https://leaf.example"
                class Sub(Base):
                    #: Sub waits much longer: a minute.
                    timeout = 60
                    def _get_display(self):
                        '''The name shown.'''
                    display = property(_get_display)
                    def msg(self, event, *, extra=None): ...
                    info = msg
                class Labelled:
                    label = None
                class Color(Labelled, enum.Enum):
                    label = "L"
                    RED = 1
                class Client:
                    last: Response = None
                class JSONClient(Client):
                    last: JSONResponse = None
            """,
        },
    )
    url = api.by_id["pkg.m.Base.url"]
    # a chain of classes that each set it again: the one API, by every path
    assert api.resolve("pkg.Mid.url") is url and api.resolve("pkg.Leaf.url") is url
    assert "pkg.m.Mid.url" not in api.by_id and "pkg.m.Leaf.url" not in api.by_id

    def found(surface: ApiSurface, path: str) -> ApiEntry:
        entry = surface.resolve(path)
        assert entry is not None, path
        return entry

    assert found(api, "pkg.Sub.timeout").api_id == "pkg.m.Sub.timeout"  # its `#:` words
    assert found(api, "pkg.Sub.display").kind == "property"  # property(getter)
    assert found(api, "pkg.Sub.info").api_id != "pkg.m.Base.info"  # another name for its own msg
    assert found(api, "pkg.Color.label").api_id == "pkg.m.Color.label"  # an enumeration's member
    assert found(api, "pkg.JSONClient.last").api_id == "pkg.m.JSONClient.last"  # a narrower type
    documented = load_api("pkg", search_paths=[tmp_path], documented=["pkg.Leaf.url"])
    assert found(documented, "pkg.Leaf.url").api_id == "pkg.m.Leaf.url"  # the docs' words are its own


def test_coroutine_functions_say_async_as_their_definition_does(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from typing import AsyncIterator
                async def fetch(url: str) -> bytes: ...
                async def lines(url: str) -> AsyncIterator[str]:
                    yield url
                def plain(url: str) -> bytes: ...
                class Client:
                    async def get(self, url: str) -> bytes: ...
                    def close(self) -> None: ...
            """,
        },
    )
    assert api.by_id["pkg.fetch"].signature == "async fetch(url: str) -> bytes"
    assert api.by_id["pkg.lines"].signature == "async lines(url: str) -> AsyncIterator[str]"
    assert api.by_id["pkg.plain"].signature == "plain(url: str) -> bytes"
    assert api.by_id["pkg.Client.get"].signature == "async get(self, url: str) -> bytes"
    assert api.by_id["pkg.Client.close"].signature == "close(self) -> None"


def test_signatures_keep_every_parameter_kind(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from typing import Any
                def f(a, b: int, /, c: str = "x", *args: int, d: bool, e=None, **kw: Any) -> dict[str, int]: ...
                def g(a, *, b: "list[int] | None" = None): ...
                class K:
                    def __init__(self, size: int, *, name: str = "k") -> None: ...
                    def m(self, x: int) -> None: ...
                    @staticmethod
                    def s(x: int) -> int: ...
                    @classmethod
                    def c(cls, y: int) -> "K": ...
            """,
        },
    )
    f = api.by_id["pkg.f"]
    assert f.signature == (
        "f(a, b: int, /, c: str = 'x', *args: int, d: bool, e=None, **kw: Any) -> dict[str, int]"
    )
    got = [(p.name, p.kind, p.type, p.default, p.required) for p in f.parameters]
    assert got == [
        ("a", "positional-only", None, None, True),
        ("b", "positional-only", "int", None, True),
        ("c", "positional or keyword", "str", "'x'", False),
        ("args", "var-positional", "int", None, False),
        ("d", "keyword-only", "bool", None, True),
        ("e", "keyword-only", None, "None", False),
        ("kw", "var-keyword", "Any", None, False),
    ]
    assert f.returns is not None and f.returns.type == "dict[str, int]"
    assert api.by_id["pkg.g"].signature == "g(a, *, b: list[int] | None = None)"
    k = api.by_id["pkg.K"]
    assert k.signature == "K(size: int, *, name: str = 'k')"
    assert [p.name for p in k.parameters] == ["size", "name"]
    assert api.by_id["pkg.K.m"].signature == "m(self, x: int) -> None"
    assert [p.name for p in api.by_id["pkg.K.m"].parameters] == ["x"]  # self is bound
    assert [p.name for p in api.by_id["pkg.K.s"].parameters] == ["x"]
    assert [p.name for p in api.by_id["pkg.K.c"].parameters] == ["y"]


DOCSTRINGS = {
    "pkg/__init__.py": '''
        def google(uri: str, limit: int = 10) -> list[str]:
            """Search the index.

            More words here.

            Args:
                uri: Where the index lives.
                limit: How many hits,
                    at most.

            Returns:
                The matching ids.
            """

        def numpy(uri, limit=10):
            """Search the index.

            Parameters
            ----------
            uri : str
                Where the index lives.
            limit : int
                How many hits.

            Returns
            -------
            list of str
                The matching ids.
            """

        def sphinx(uri, limit=10):
            """Search the index.

            :param uri: Where the index lives.
            :param limit: How many hits.
            :returns: The matching ids.
            """

        def sphinx_args(uri, limit=10):
            """Search the index.

            :arg uri: Where the index lives.
            :keyword limit: How many hits.
            """

        def plain(uri, limit=10):
            """Search the index: one line, no sections."""

        class Conn:
            """A connection.

            Args:
                uri: Where the database lives.
            """

            def __init__(self, uri: str, timeout: float = 1.0) -> None:
                """Open it.

                Args:
                    timeout: Seconds to wait.
                """
    ''',
}


@pytest.mark.parametrize("style", ["google", "numpy", "sphinx"])
def test_docstring_styles_fill_parameter_and_return_descriptions(tmp_path: Path, style: str) -> None:
    entry = surface(tmp_path, DOCSTRINGS).by_id[f"pkg.{style}"]
    assert entry.description == "Search the index."
    assert entry.docstring.startswith("Search the index.")
    descriptions = {p.name: p.description for p in entry.parameters}
    limit = "How many hits, at most." if style == "google" else "How many hits."
    assert descriptions == {"uri": "Where the index lives.", "limit": limit}
    assert entry.returns is not None and entry.returns.description == "The matching ids."


def test_sphinx_field_aliases_describe_parameters(tmp_path: Path) -> None:
    """(a bleach tour) ``:arg tags:`` / ``:keyword strip:`` with no ``:param`` nor
    ``:returns:`` beside them: Sphinx reads them as parameters, so do we."""
    entry = surface(tmp_path, DOCSTRINGS).by_id["pkg.sphinx_args"]
    assert {p.name: p.description for p in entry.parameters} == {
        "uri": "Where the index lives.",
        "limit": "How many hits.",
    }


def test_plain_docstrings_and_class_docstrings(tmp_path: Path) -> None:
    api = surface(tmp_path, DOCSTRINGS)
    plain = api.by_id["pkg.plain"]
    assert plain.description == "Search the index: one line, no sections."
    assert [p.description for p in plain.parameters] == ["", ""]
    conn = api.by_id["pkg.Conn"]
    assert conn.description == "A connection."
    assert {p.name: p.description for p in conn.parameters} == {
        "uri": "Where the database lives.",
        "timeout": "Seconds to wait.",
    }


def test_a_class_without_a_docstring_reads_its_same_named_base_s_a_method_keeps_its_own(
    tmp_path: Path,
) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from ._b import Blueprint, Plain, Sub, Made, Other\n"
            "__all__ = ['Blueprint', 'Plain', 'Sub', 'Made', 'Other']\n",
            "pkg/_sansio.py": """
                class Blueprint:
                    '''Represents a blueprint, a collection of routes.

                    :param name: The name of the blueprint.
                    '''

                    def __init__(self, name: str) -> None: ...

                    def register(self, app: object) -> None:
                        '''Register the blueprint on an app.'''
            """,
            "pkg/_b.py": """
                from . import _sansio

                class Blueprint(_sansio.Blueprint):  # no docstring: the base's is what it is
                    def register(self, app: object) -> None:  # an override without one
                        pass

                class Plain:
                    pass

                class Sub(Plain):
                    pass

                class Made(_sansio.Blueprint):
                    def __init__(self, name: str) -> None:
                        '''Make one from a name.'''

                class Other(_sansio.Blueprint):  # another name: the base's text is the base's
                    pass
            """,
        },
    )
    blueprint = api.by_id["pkg._b.Blueprint"]
    assert blueprint.description == "Represents a blueprint, a collection of routes."
    assert [(p.name, p.description) for p in blueprint.parameters] == [("name", "The name of the blueprint.")]
    assert api.by_id["pkg._b.Blueprint.register"].description == ""  # methods keep their own
    assert api.by_id["pkg._b.Sub"].description == ""  # no base has one
    assert api.by_id["pkg._b.Made"].description == "Make one from a name."  # its __init__'s first
    assert api.by_id["pkg._b.Other"].description == ""


def test_parameters_described_in_a_markdown_list_of_bold_names(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                def request(method: str, url: str, *, verify: bool = True) -> None:
                    """Sends an HTTP request.

                    **Parameters:**

                    * **method** - HTTP method for the new `Request` object: `GET`,
                    `POST`.
                    * **url** - URL for the new `Request` object.
                    * **verify** - *(optional)* Either `True` to use an SSL context with
                    the default CA bundle, or `False`.
                    * **Note** - not a parameter.
                    """
            ''',
        },
    )
    from docmentor.library.surface.api_python_docs import _markdown_parameters

    # a sub-list belongs to its item; an indented list is read too
    assert _markdown_parameters(
        "* **mode** - one of:\n    * `r` read\n    * `w` write\n* **x** - the x."
    ) == {
        "mode": "one of: * `r` read * `w` write",
        "x": "the x.",
    }
    assert _markdown_parameters("Args:\n\n    * **a** - first\n    * **b** - second\n") == {
        "a": "first",
        "b": "second",
    }
    # code names with a dash or a colon after them (httpx's transports: "* `app` - The ASGI
    # application."), continued on indented lines; a bullet that only starts with code is none
    assert _markdown_parameters(
        "Arguments:\n\n* `app` - The ASGI application.\n* `raise_app_exceptions` - Boolean indicating\n"
        "   if exceptions should be raised.\n* `root_path`: The root path.\n* `x` is not described like that\n"
    ) == {
        "app": "The ASGI application.",
        "raise_app_exceptions": "Boolean indicating if exceptions should be raised.",
        "root_path": "The root path.",
    }
    # a fence line ends the last item (httpx's ASGITransport ends its docstring with a stray one)
    assert _markdown_parameters("Arguments:\n\n* `client` - A two-tuple.\n```\n") == {
        "client": "A two-tuple."
    }
    assert {p.name: p.description for p in api.by_id["pkg.request"].parameters} == {
        "method": "HTTP method for the new `Request` object: `GET`, `POST`.",
        "url": "URL for the new `Request` object.",
        "verify": "Either `True` to use an SSL context with the default CA bundle, or `False`.",
    }


def test_parameters_described_where_the_docstring_sends_the_reader(tmp_path: Path) -> None:
    from docmentor.library.knowledge.enrich import parameters_by_reference
    from docmentor.library.knowledge.mentions import MentionResolver

    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg._api import get, head, request, stream
                from pkg._client import Client, Other
                __all__ = ["Client", "Other", "get", "head", "request", "stream"]
            """,
            "pkg/_api.py": '''
                def request(method: str, url: str, *, params: dict | None = None) -> None:
                    """Sends a request.

                    Args:
                        method: The HTTP method.
                        url: Where to send it.
                        params: Query parameters.
                    """

                def get(url: str, *, params: dict | None = None, timeout: float = 5.0) -> None:
                    """Sends a GET request.

                    **Parameters**: See `pkg.request`.
                    """

                def head(url: str) -> None:
                    """Sends a HEAD request.

                    Args: same as :func:`get`.
                    """

                def stream(url: str) -> None:
                    """Streams a response.

                    Parameters: see `close`.
                    """
            ''',
            "pkg/_client.py": '''
                class Client:
                    def get(self, url: str, *, params: dict | None = None) -> None:
                        """Send a GET request.

                        **Parameters**: See `request`.
                        """

                    def request(self, method: str, url: str) -> None:
                        """Send a request.

                        Args:
                            method: Its method.
                            url: Its URL.
                        """

                    def close(self, url: str) -> None:
                        """Close it.

                        Args:
                            url: Another description of url.
                        """

                class Other:
                    def close(self, url: str) -> None:
                        """Close that.

                        Args:
                            url: Yet another description of url.
                        """
            ''',
        },
    )
    entries = list(api.entries)
    filled = parameters_by_reference(entries, MentionResolver(entries))

    def described(api_id: str) -> dict[str, str]:
        return {p.name: p.description for p in api.by_id[api_id].parameters}

    # a full path: the same-named parameters; one it does not have stays undescribed
    assert described("pkg._api.get") == {
        "url": "Where to send it.",
        "params": "Query parameters.",
        "timeout": "",
    }
    # a chain (head → get → request) is followed
    assert described("pkg._api.head") == {"url": "Where to send it."}
    # a bare name that may denote several: the one describing the most wanted parameters
    assert described("pkg._client.Client.get") == {"url": "Where to send it.", "params": "Query parameters."}
    # two that describe as many, differently: neither is guessed
    assert described("pkg._api.stream") == {"url": ""}
    assert filled == 5


def test_a_property_says_whether_it_has_a_setter(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                class Client:
                    timeout: float = 5.0

                    @property
                    def hooks(self) -> dict:
                        ...

                    @hooks.setter
                    def hooks(self, value: dict) -> None:
                        ...

                    @property
                    def closed(self) -> bool:
                        ...
            """,
        },
    )
    writable = {e.name: e.writable for e in api.entries if e.parent == "pkg.Client"}
    assert writable == {"hooks": True, "closed": False, "timeout": None}
    # a compiled module is inspected at run time, where griffe sees no setter: unknown
    compiled = load_api("Stemmer")
    assert {e.writable for e in compiled.entries if e.kind == "property"} == {None}


RETURNS = {
    "pkg/__init__.py": """
        from ._db import Base, Conn, Pool, connect, maybe, either, quoted, many, number
        __all__ = ["Base", "Conn", "Pool", "connect", "maybe", "either", "quoted", "many", "number"]
    """,
    "pkg/_db.py": """
        from __future__ import annotations
        from typing import Optional, Union
        from typing_extensions import Self

        class Base:
            def clone(self) -> Self: ...
            @property
            def pool(self) -> Pool: ...

        class Conn(Base):
            def table(self, name: str) -> "Conn": ...

        class Pool(Base):
            def get(self) -> Union[Conn, None]: ...

        def connect(uri: str) -> Conn: ...
        def maybe() -> Optional[Conn]: ...
        def either() -> Conn | None: ...
        def quoted() -> "Pool": ...
        def many() -> list[Conn]: ...
        def number() -> int: ...
    """,
}


def test_return_class_resolves_annotations_to_public_classes(tmp_path: Path) -> None:
    api = surface(tmp_path, RETURNS)
    conn, pool = "pkg._db.Conn", "pkg._db.Pool"
    assert api.return_class("pkg.connect") == conn
    assert api.return_class("pkg._db.connect") == conn
    assert api.return_class("pkg.maybe") == conn
    assert api.return_class("pkg.either") == conn
    assert api.return_class("pkg.quoted") == pool
    assert api.return_class("pkg.Pool.get") == conn
    assert api.return_class("pkg.Conn.table") == conn
    assert api.return_class("pkg.Conn.pool") == pool  # a property, inherited from Base
    assert api.return_class("pkg.Conn") == conn  # calling a class gives an instance of it
    assert api.return_class("pkg.many") is None
    assert api.return_class("pkg.number") is None
    assert api.return_class("pkg.nothing") is None
    # Self is the class the method is reached through.
    assert api.return_class("pkg.Conn.clone") == conn
    assert api.return_class("pkg.Pool.clone") == pool
    assert api.return_class("pkg._db.Base.clone") == "pkg._db.Base"
    entry = api.by_alias["pkg.connect"]
    assert entry.returns is not None and entry.returns.type == "Conn" and entry.returns.class_id == conn


ITEMS = {
    "pkg/__init__.py": """
        from ._db import Conn, Row, session, asession, rows, tables, maybe, pairs, number
        __all__ = ["Conn", "Row", "session", "asession", "rows", "tables", "maybe", "pairs", "number"]
    """,
    "pkg/_db.py": """
        from __future__ import annotations
        import contextlib
        import typing
        from collections.abc import AsyncIterator, Generator, Iterator
        from typing import Optional

        class Conn: ...
        class Row: ...

        @contextlib.contextmanager
        def session() -> Iterator[Conn]: ...
        @contextlib.asynccontextmanager
        async def asession() -> AsyncIterator[Conn]: ...
        def rows() -> Generator[Row, None, None]: ...
        def tables() -> typing.List[Conn]: ...
        def maybe() -> Optional[Iterator[Row]]: ...
        def pairs() -> dict[str, Conn]: ...
        def number() -> Iterator[int]: ...
    """,
}


def test_iterators_context_managers_and_sequences_name_their_items_class(tmp_path: Path) -> None:
    api = surface(tmp_path, ITEMS)
    conn, row = "pkg._db.Conn", "pkg._db.Row"

    def items(name: str) -> str | None:
        returns = api.by_alias[name].returns
        assert returns is not None and returns.class_id is None  # not an instance of the class itself
        return returns.item_class_id

    assert items("pkg.session") == conn  # `with pkg.session() as c` gives a Conn
    assert items("pkg.asession") == conn
    assert items("pkg.rows") == row  # Generator's first argument: what it yields
    assert items("pkg.tables") == conn
    assert items("pkg.maybe") == row
    assert items("pkg.pairs") is None  # a mapping's iteration gives its keys
    assert items("pkg.number") is None  # not a class of the library


def test_version_comes_from_the_package_metadata(tmp_path: Path) -> None:
    make_package(tmp_path, {"verpkg/__init__.py": "def f(): ...\n"}, version="1.4.2")
    assert load_api("verpkg", search_paths=[tmp_path]).version == "1.4.2"
    # No metadata: a literal __version__ in the package; otherwise unknown.
    other = tmp_path / "other"
    make_package(other, {"litpkg/__init__.py": '__version__ = "0.3"\n', "nopkg/__init__.py": ""})
    assert load_api("litpkg", search_paths=[other]).version == "0.3"
    assert load_api("nopkg", search_paths=[other]).version is None
    # the distribution's one-line summary comes along (the README's purpose when the docs
    # have none); none without metadata
    summed = tmp_path / "summed"
    make_package(summed, {"sumpkg/__init__.py": "def f(): ...\n"}, version="2.0")
    metadata = summed / "sumpkg-2.0.dist-info" / "METADATA"
    metadata.write_text(metadata.read_text() + "Summary: Classes   Without Boilerplate\n")
    assert load_api("sumpkg", search_paths=[summed]).summary == "Classes Without Boilerplate"
    assert load_api("nopkg", search_paths=[other]).summary == ""


def test_modules_that_import_each_other_are_walked_once_each(tmp_path: Path) -> None:
    # SQLAlchemy's modules re-export each other: pkg.a.b.a.b… must not be walked without end
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg import a, b\n__all__ = ['a', 'b']\n",
            "pkg/a.py": "from pkg import b\n__all__ = ['b', 'run']\ndef run() -> None: ...\n",
            "pkg/b.py": "from pkg import a\n__all__ = ['a', 'stop']\ndef stop() -> None: ...\n",
            "pkg/m.py": """
                __all__ = ["Outer"]
                class Outer:
                    class Inner:
                        from pkg.m import Outer
                        def go(self) -> None: ...
            """,
        },
    )
    # a module's second path names what is under it too, one step deep (not pkg.a.b.a.run)
    assert api.by_id["pkg.a"].aliases == ["pkg.b.a"] and api.by_id["pkg.b"].aliases == ["pkg.a.b"]
    assert api.by_id["pkg.a.run"].aliases == ["pkg.b.a.run"]
    assert api.by_id["pkg.b.stop"].aliases == ["pkg.a.b.stop"]
    assert "pkg.b.a.run" in api.present and "pkg.a.b.a.run" not in api.present
    # a class inside itself is one more path to it, not another walk
    assert api.by_id["pkg.m.Outer"].aliases == ["pkg.m.Outer.Inner.Outer"]
    assert api.by_id["pkg.m.Outer.Inner.go"].aliases == []


def test_a_packages_init_imports_of_values_are_its_api_and_other_names_still_exist(tmp_path: Path) -> None:
    # flask: `from .globals import request as request`, where request is a proxy with no docstring
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from .globals import request as request\nfrom .wrappers import Request\n",
            "pkg/globals.py": "from .wrappers import Request\nrequest: Request = object()  # a proxy\nhidden = 1\n",
            "pkg/wrappers.py": "class Request:\n    args: dict\n",
            "pkg/logs.py": "import logging\ndefault_handler = logging.StreamHandler()\n",
        },
    )
    request = api.by_alias["pkg.request"]
    assert (request.api_id, request.kind) == ("pkg.globals.request", "attribute")
    assert api.return_class("pkg.request") == "pkg.wrappers.Request"
    # a value a module defines without a docstring is no API, but it exists
    assert api.resolve("pkg.logs.default_handler") is None and api.resolve("pkg.globals.hidden") is None
    assert {"pkg.logs.default_handler", "pkg.logs.logging", "pkg.globals.hidden"} <= api.present
    assert "pkg.logs.nothing" not in api.present


def test_a_folder_without_init_that_the_package_imports_from_is_read(tmp_path: Path) -> None:
    # flask/sansio has no __init__.py; Flask's base class App lives there
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from .app import Flask\n__all__ = ['Flask']\n",
            "pkg/app.py": "from .sansio.app import App\n\nclass Flask(App):\n    def run(self) -> None: ...\n",
            "pkg/sansio/app.py": '''
                class App:
                    def route(self, rule: str) -> None:
                        """Register a view for a URL rule."""
            ''',
            "pkg/scripts/manage.py": "def main() -> None: ...\n",  # imported by nothing: not read
        },
    )
    route = api.resolve("pkg.Flask.route")
    assert route is not None and route.api_id == "pkg.sansio.app.App.route"
    assert route.description == "Register a view for a URL rule."
    assert not any("scripts" in e.api_id for e in api.entries)


def test_a_module_named_test_is_api_a_package_of_tests_is_not(tmp_path: Path) -> None:
    # werkzeug.test holds the test client and EnvironBuilder; pkg/tests is a test suite
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/test.py": "class EnvironBuilder:\n    def get_environ(self) -> dict: ...\n",
            "pkg/tests/__init__.py": "",
            "pkg/tests/test_core.py": "def test_it() -> None: ...\n",
            # jsonschema ships its pyperf scripts as a `benchmarks` package: no API either
            "pkg/benchmarks/__init__.py": "",
            "pkg/benchmarks/subcomponents.py": "def registry_add() -> None: ...\n",
        },
    )
    assert api.resolve("pkg.test.EnvironBuilder.get_environ") is not None
    assert not any(".tests" in e.api_id or ".benchmarks" in e.api_id for e in api.entries)


def test_a_class_a_decorator_makes_has_its_fields_or_an_unknown_signature(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                import dataclasses
                import attr
                __all__ = ["Timeout", "Point", "Plain"]

                @attr.s(auto_attribs=True, frozen=True)
                class Timeout:
                    total: float | None = None

                @dataclasses.dataclass
                class Point:
                    x: int
                    y: int = 0

                class Plain:
                    pass
            """,
        },
    )
    # attrs makes __init__ from the fields (api_python_attrs.py)
    assert api.by_id["pkg.Timeout"].signature == "Timeout(total: float | None = None)"
    assert api.by_id["pkg.Point"].signature == "Point(x: int, y: int = 0)"  # griffe reads dataclasses
    assert api.by_id["pkg.Plain"].signature == "Plain()"


def test_a_class_built_by_new_has_its_parameters(tmp_path: Path) -> None:
    """A class with no ``__init__`` whose ``__new__`` takes the call (anyio's ``Lock``,
    ``CapacityLimiter``, a ``tuple`` subclass) is documented with ``__new__``'s parameters."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["Limiter", "Event", "make_pair", "Anything", "Counted", "Both"]

                class Limiter:
                    def __new__(cls, total_tokens: float) -> "Limiter":
                        \"\"\"A limiter.

                        Args:
                            total_tokens: how many tasks may hold it at once.
                        \"\"\"
                        return object.__new__(cls)

                class Event:
                    def __new__(cls) -> "Event":
                        return object.__new__(cls)

                class make_pair(tuple):
                    def __new__(cls, max_buffer_size: float = 0, item_type: object = None):
                        return tuple.__new__(cls, (1, 2))

                class Anything:
                    def __new__(cls, *args, **kwargs):
                        return object.__new__(cls)

                class Counted(Limiter):
                    pass

                class Both:
                    def __new__(cls, *args, **kwargs):
                        return object.__new__(cls)
                    def __init__(self, name: str) -> None:
                        self.name = name
            """,
        },
    )
    limiter = api.by_id["pkg.Limiter"]
    assert limiter.signature == "Limiter(total_tokens: float)"
    assert [(p.name, p.description) for p in limiter.parameters] == [
        ("total_tokens", "how many tasks may hold it at once.")
    ]
    assert api.by_id["pkg.Event"].signature == "Event()"
    assert (
        api.by_id["pkg.make_pair"].signature
        == "make_pair(max_buffer_size: float = 0, item_type: object = None)"
    )
    assert api.by_id["pkg.Anything"].signature == "Anything(...)"  # passes anything on: unknown
    assert api.by_id["pkg.Counted"].signature == "Counted(total_tokens: float)"  # a package base's
    assert api.by_id["pkg.Both"].signature == "Both(name: str)"  # __init__ says it


def test_a_class_decorator_that_returns_the_class_keeps_its_constructor(tmp_path: Path) -> None:
    """yarl's ``@rewrite_module`` sets ``__module__`` and returns the class: its ``URL`` is
    built by its own ``__new__`` (it read ``URL(...)``). A package decorator that returns its
    first parameter on every path and only names, tags or registers it, or the standard
    library's ``@final`` (by its full path), keeps the class as written; one that returns
    something else, may fall off the end, rebinds its parameter, sets a special method,
    hands the class to a call that may change it, is called with arguments or is async may
    build another: unknown."""
    api = surface(
        tmp_path,
        {
            "pkg/helpers.py": """
                import functools

                def final(cls):
                    return functools.partial(cls, 1)
            """,
            "pkg/__init__.py": """
                from typing import final
                from pkg import helpers
                __all__ = ["URL", "Sealed", "Wrapped", "Rebound", "Registered", "Tagged", "Listed",
                           "AutoInit", "Called", "Fall", "Handed", "Local", "Awaited"]
                REGISTRY = {}
                LISTED = []

                def rewrite_module(obj: object) -> object:
                    obj.__module__ = "pkg"
                    setattr(obj, "__qualname__", "URL")
                    return obj

                def tag(cls):
                    if cls is None:
                        return cls
                    def inner(x):
                        return x + 1
                    cls.tag = inner
                    return cls

                def listed(cls):
                    if not isinstance(cls, type):
                        raise TypeError(cls)
                    LISTED.append(cls)
                    REGISTRY[cls.__name__] = cls
                    return cls

                def wrap(cls):
                    return type(cls.__name__, (cls,), {})

                def rebind(cls):
                    cls = wrap(cls)
                    return cls

                def register(name):
                    def deco(cls):
                        REGISTRY[name] = cls
                        return cls
                    return deco

                def auto_init(cls):
                    def __init__(self, *args):
                        pass
                    cls.__init__ = __init__
                    return cls

                def callable_instances(cls):
                    setattr(cls, "__call__", lambda self: None)
                    return cls

                def fall(cls):
                    if cls.__name__:
                        return cls

                def install(cls):
                    return cls

                def handed(cls):
                    install(cls)
                    return cls

                async def awaited(cls):
                    return cls

                @rewrite_module
                class URL:
                    def __new__(cls, val: str = "", *, encoded: bool = False):
                        return object.__new__(cls)

                @final
                class Sealed:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @tag
                class Tagged:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @listed
                class Listed:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @wrap
                class Wrapped:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @rebind
                class Rebound:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @register("r")
                class Registered:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @auto_init
                class AutoInit:
                    pass

                @callable_instances
                class Called:
                    pass

                @fall
                class Fall:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @handed
                class Handed:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @helpers.final
                class Local:
                    def __new__(cls, size: int):
                        return object.__new__(cls)

                @awaited
                class Awaited:
                    def __new__(cls, size: int):
                        return object.__new__(cls)
            """,
        },
    )
    assert api.by_id["pkg.URL"].signature == "URL(val: str = '', *, encoded: bool = False)"
    assert api.by_id["pkg.Sealed"].signature == "Sealed(size: int)"
    assert api.by_id["pkg.Tagged"].signature == "Tagged(size: int)"  # a nested function's return is its own
    assert api.by_id["pkg.Listed"].signature == "Listed(size: int)"  # checked and registered
    for name in ("Wrapped", "Rebound", "Registered", "Fall", "Handed", "Local", "Awaited"):
        assert api.by_id[f"pkg.{name}"].signature == f"{name}(...)", name
    # a decorator that writes the class's __init__ or __call__: its call is unknown, and
    # one users call is no marker class
    assert api.by_id["pkg.AutoInit"].signature == "AutoInit(...)"
    assert api.by_id["pkg.Called"].signature == "Called(...)"
    assert api.by_id["pkg.Called"].internal is None


def test_an_undocumented_class_alone_in_its_module_takes_the_module_docstring(tmp_path: Path) -> None:
    """pexpect's ``popen_spawn`` module says "Provides an interface like pexpect.spawn
    interface using subprocess.Popen"; its one class ``PopenSpawn`` says nothing: the
    module's text is the class's description (not its docstring: the module keeps its
    examples, and a module's "internal" note does not mark the class). Not when the module
    defines other public classes, functions or values, lists others in ``__all__``, is a
    package's ``__init__``, nor over a class's own text."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                \"\"\"pkg: a library for talking to servers.\"\"\"
                from pkg.piped import Piped
                from pkg.several import First, Second
                from pkg.own import Own
                from pkg.compat import Null
                from pkg.listing import Listed
                from pkg._session import Session
                __all__ = ["Piped", "First", "Second", "Own", "Null", "Listed", "Session", "Warn"]

                class Warn(UserWarning):
                    pass
            """,
            "pkg/piped.py": """
                \"\"\"Drive a child process through pipes instead of a terminal.\"\"\"
                import os
                from os import path as _path

                class Piped:
                    def __init__(self, cmd: str) -> None:
                        self.cmd = cmd

                def _helper():
                    pass
            """,
            "pkg/several.py": """
                \"\"\"Two things.\"\"\"

                class First:
                    pass

                class Second:
                    pass
            """,
            "pkg/own.py": """
                \"\"\"The module's words.\"\"\"

                class Own:
                    \"\"\"The class's own words.\"\"\"
            """,
            "pkg/compat.py": """
                \"\"\"Python 2/3 compatibility shims.\"\"\"
                PY3 = True

                class Null:
                    pass
            """,
            "pkg/listing.py": """
                \"\"\"Listings and their helpers.\"\"\"
                from pkg.several import First
                __all__ = ["Listed", "First"]

                class Listed:
                    pass
            """,
            "pkg/_session.py": """
                \"\"\"Implementation details for internal use only; import from pkg instead.

                >>> Session()
                \"\"\"

                class Session:
                    def __init__(self, url: str) -> None:
                        self.url = url
            """,
        },
    )
    piped = api.by_id["pkg.piped.Piped"]
    assert piped.description == "Drive a child process through pipes instead of a terminal."
    assert piped.docstring == "" and piped.docstring_line is None  # the module keeps its text
    assert api.by_id["pkg.several.First"].description == ""
    assert api.by_id["pkg.own.Own"].description == "The class's own words."
    assert api.by_id["pkg.compat.Null"].description == ""  # the module defines a value too
    assert api.by_id["pkg.listing.Listed"].description == ""  # its __all__ lists another
    assert api.by_id["pkg.Warn"].description == ""  # a package's text is the package's
    session = api.by_id["pkg._session.Session"]
    assert session.description.startswith("Implementation details")
    assert session.internal is None  # the module's note is not the class's


def test_a_method_of_a_module_level_instance_is_that_method_called_as_a_function(tmp_path: Path) -> None:
    """cattrs' ``structure = global_converter.structure`` (``global_converter: Final =
    Converter()``), PyJWT's ``encode = _jwt_global_obj.encode``: the API is the method, where
    ``pkg.structure`` is defined (its ``__qualname__`` is ``Converter.structure``), every name
    bound to it one of its paths (the PyJWT tour: two entries, the method's without the
    docs' text and examples, so a task set naming it missed 7 of 20); users call it as a
    function, with the method's parameters without ``self``. A private class's method keeps
    the attribute as its own function; a method of another package's instance stays data."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                import json
                from typing import Callable, Final
                from pkg.conv import Converter, _Hidden

                __all__ = ["structure", "unstructure", "encode", "global_converter", "Converter", "load", "handler",
                           "build", "number", "hidden"]

                global_converter: Final = Converter()
                structure = global_converter.structure
                unstructure = global_converter.unstructure
                encode = json.JSONEncoder().encode
                load: Final = global_converter.structure  # `Final` says it is not rebound
                handler: Callable = global_converter.structure  # a typed setting: data
                build: "_Structure" = global_converter.structure  # the method, typed by its call
                number: int = global_converter.count  # not a method: data
                _hidden = _Hidden()
                hidden = _hidden.run
            """,
            "pkg/conv.py": """
                class Base:
                    def unstructure(self, obj: object, unstructure_as: object = None) -> object:
                        'Convert to plain data.'

                class Converter(Base):
                    count = 0

                    def structure(self, obj: object, cl: type) -> object:
                        '''Convert unstructured data to a structured class.

                        Args:
                            obj: the data.
                            cl: the class to build.
                        '''

                class _Hidden:
                    def run(self, n: int) -> int:
                        'Run it.'
            """,
        },
    )
    structure = api.by_id["pkg.conv.Converter.structure"]
    assert "pkg.structure" not in api.by_id
    assert {"pkg.structure", "pkg.load", "pkg.build", "pkg.Converter.structure"} <= set(structure.aliases)
    assert "pkg.handler" not in structure.aliases
    # the names that call it on the instance, without self: what users import it by
    assert sorted(structure.bound_names) == ["pkg.build", "pkg.load", "pkg.structure"]
    assert import_path(structure.api_id, structure.aliases, structure.bound_names) == "pkg.structure"
    assert import_path(
        structure.api_id, ["pkg.Converter.structure", "pkg.conv.structure"], ["pkg.conv.structure"]
    ) == (
        "pkg.conv.structure"  # not through the class, which would take the first argument for self
    )
    assert api.resolve("pkg.structure") is structure
    assert (structure.kind, structure.parent, structure.signature) == (
        "method",
        "pkg.conv.Converter",
        "structure(obj: object, cl: type) -> object",  # called through the instance: no self
    )
    assert [(p.name, p.description) for p in structure.parameters] == [
        ("obj", "the data."),
        ("cl", "the class to build."),
    ]
    assert structure.description == "Convert unstructured data to a structured class."
    assert structure.internal is None  # published by `pkg.structure`
    from docmentor.library.knowledge.readme import _description

    assert _description(structure, {e.api_id: e for e in api.entries}).startswith(
        "pkg.structure is the structure method of a module-level pkg.Converter instance, called as a function."
    )
    unstructure = api.resolve("pkg.unstructure")  # inherited by the instance's class
    assert unstructure is not None
    assert (unstructure.api_id, unstructure.signature) == (
        "pkg.conv.Base.unstructure",
        "unstructure(obj: object, unstructure_as: object = None) -> object",
    )
    hidden = api.by_id["pkg.hidden"]
    assert (hidden.kind, hidden.signature) == ("function", "hidden(n: int) -> int")
    assert api.by_id["pkg.encode"].kind == "attribute"  # json's, not this package's
    assert api.by_id["pkg.handler"].kind == "attribute"
    assert api.by_id["pkg.global_converter"].kind == "attribute"
    assert api.by_id["pkg.number"].kind == "attribute"


def test_a_module_level_instance_method_documented_overloaded_and_re_exported(tmp_path: Path) -> None:
    """(review) the method a bound name is keeps what the docs say of that name (an
    ``.. autofunction::`` of a module whose ``__all__`` leaves it out), its overloads are
    shown as called (without self), and a module re-exported under a second path adds no
    path through the class to ``bound_names``."""
    from docmentor.sources.autodoc import documented_paths

    make_package(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg import api
                from pkg.api import Codec
                from pkg import compat
                __all__ = ["Codec", "api", "compat"]
            """,
            "pkg/compat.py": "from pkg import api\n",
            "pkg/api.py": """
                from typing import overload
                __all__ = ["Codec"]

                class Codec:
                    '''A codec.'''
                    @overload
                    def encode(self, x: int) -> str: ...
                    @overload
                    def encode(self, x: str) -> str: ...
                    def encode(self, x):
                        '''Encode x.'''

                _codec = Codec()
                encode = _codec.encode
            """,
        },
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(".. autofunction:: pkg.api.encode\n", encoding="utf-8")
    api = load_api("pkg", search_paths=[tmp_path], documented=documented_paths(docs))
    entry = api.by_id["pkg.api.Codec.encode"]
    assert entry.documented and entry.internal is None
    assert "pkg.api.encode" in entry.aliases
    assert [o.split("(")[1].split(")")[0] for o in entry.overloads] == ["x: int", "x: str"]
    assert all(not p.rpartition(".")[0].endswith("Codec") for p in entry.bound_names), entry.bound_names
    assert "pkg.api.encode" in entry.bound_names


def test_a_return_typed_by_a_bound_type_variable_is_its_bound_class(tmp_path: Path) -> None:
    """(a semver tour) ``T = TypeVar("T", bound="Version")`` and ``def parse(cls: Type[T], …)
    -> T``: what ``Version.parse(...)`` gives is a ``Version`` (its ``.bump_major()`` calls in
    the docs were credited to nothing); an unbound type variable names no class."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from typing import Type, TypeVar
                __all__ = ["Version", "first"]

                T = TypeVar("T", bound="Version")
                U = TypeVar("U")
                S = TypeVar("S", bound=str)

                class Version:
                    '''A version.'''
                    @classmethod
                    def parse(cls: Type[T], text: str) -> T:
                        '''Parse a version.'''
                    def bump(self: T) -> T:
                        '''The next version.'''
                    def label(self, text: S) -> S:
                        '''Its label.'''

                def first(items: list[U]) -> U:
                    '''The first item.'''
            """,
        },
    )
    returned = {
        n: api.by_id[f"pkg.{n}"].returns for n in ("Version.parse", "Version.bump", "Version.label", "first")
    }
    assert {n: r.class_id if r is not None else "-" for n, r in returned.items()} == {
        "Version.parse": "pkg.Version",
        "Version.bump": "pkg.Version",
        "Version.label": None,  # bound to another package's class
        "first": None,
    }


def test_a_context_manager_function_shows_what_with_gives(tmp_path: Path) -> None:
    """anyio's ``@contextmanager def fail_after(...) -> Generator[CancelScope, None, None]`` is
    called in a ``with``: it gives a ``ContextManager[CancelScope]``, and an
    ``@asynccontextmanager async def`` is no coroutine to await."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from collections.abc import AsyncIterator, Generator
                from contextlib import asynccontextmanager, contextmanager

                __all__ = ["fail_after", "open_stream", "plain"]

                class CancelScope: ...
                class Stream: ...

                @contextmanager
                def fail_after(delay: float) -> Generator[CancelScope, None, None]:
                    yield CancelScope()

                @asynccontextmanager
                async def open_stream(name: str) -> AsyncIterator[Stream]:
                    yield Stream()

                def plain() -> Generator[int, None, None]:
                    yield 1
            """,
        },
    )
    assert api.by_id["pkg.fail_after"].signature == "fail_after(delay: float) -> ContextManager[CancelScope]"
    assert api.by_id["pkg.open_stream"].signature == "open_stream(name: str) -> AsyncContextManager[Stream]"
    returns = api.by_id["pkg.fail_after"].returns
    assert returns is not None and returns.type == "ContextManager[CancelScope]"
    assert api.by_id["pkg.plain"].signature == "plain() -> Generator[int, None, None]"  # iterated


def test_a_class_whose_metaclass_takes_the_call_keeps_an_unknown_signature(tmp_path: Path) -> None:
    """An enumeration's ``__new__(cls, value, phrase)`` builds its members: ``Status(200)``
    looks one up (EnumMeta takes the call), so no ``__new__`` signature is shown; nor for a
    class whose package base has a metaclass."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                import enum

                __all__ = ["Status", "Model", "Plain"]

                class Status(enum.IntEnum):
                    def __new__(cls, value: int, phrase: str):
                        obj = int.__new__(cls, value)
                        obj._value_ = value
                        return obj
                    OK = (200, "ok")

                class _Meta(type):
                    def __call__(cls, *args, **kwargs): ...

                class _Base(metaclass=_Meta):
                    pass

                class Model(_Base):
                    def __new__(cls, name: str):
                        return object.__new__(cls)

                class Plain(tuple):
                    def __new__(cls, size: int):
                        return tuple.__new__(cls, (size,))
            """,
        },
    )
    assert api.by_id["pkg.Status"].signature == "Status(...)"
    assert api.by_id["pkg.Model"].signature == "Model(...)"
    assert api.by_id["pkg.Plain"].signature == "Plain(size: int)"


def test_an_unannotated_function_shows_its_typed_overloads(tmp_path: Path) -> None:
    """cattrs' ``register_structure_hook_factory(self, predicate, factory=None)`` is typed only
    by its ``@overload`` declarations: the catalog keeps them and README.LLM shows them under
    the public path; an annotated function's overloads are not repeated."""
    from docmentor.library.knowledge.readme import _function

    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from typing import Callable, overload

                __all__ = ["register", "typed"]

                @overload
                def register(predicate: Callable[[type], bool]) -> Callable[[int], int]: ...
                @overload
                def register(predicate: Callable[[type], bool], factory: int) -> int: ...
                def register(predicate, factory=None):
                    '''Register a factory.'''

                @overload
                def typed(x: int) -> int: ...
                @overload
                def typed(x: str) -> str: ...
                def typed(x: int | str) -> int | str:
                    return x
            """,
        },
    )
    register = api.by_id["pkg.register"]
    assert register.overloads == [
        "register(predicate: Callable[[type], bool]) -> Callable[[int], int]",
        "register(predicate: Callable[[type], bool], factory: int) -> int",
    ]
    assert api.by_id["pkg.typed"].overloads == []
    shown = _function(register)
    assert "Overloads:\n- pkg.register(predicate: Callable[[type], bool]) -> Callable[[int], int]\n" in shown


def test_a_test_named_module_is_api_unless_it_holds_tests(tmp_path: Path) -> None:
    # aiohttp.test_utils holds TestClient and TestServer; test_core.py holds tests
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/test_utils.py": "class TestClient:\n    def get(self, path: str) -> None: ...\n",
            "pkg/test_core.py": "def test_it() -> None: ...\n",
            "pkg/test_more.py": "class TestThing:\n    def test_one(self) -> None: ...\n",
        },
    )
    assert api.resolve("pkg.test_utils.TestClient.get") is not None
    assert not any("test_core" in e.api_id or "test_more" in e.api_id for e in api.entries)


def test_a_private_module_reexported_twice_is_found_under_both_paths(tmp_path: Path) -> None:
    from docmentor.library.examples.drift import drift_report
    from docmentor.library.models import Example

    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from ._impl import mod\nfrom . import api\n",
            "pkg/api/__init__.py": "from .._impl import mod\n",
            "pkg/_impl/__init__.py": "",
            "pkg/_impl/mod.py": "def func():\n    '''Do it.'''\n",
        },
    )
    assert api.by_id["pkg._impl.mod.func"].aliases == ["pkg.mod.func", "pkg.api.mod.func"]
    ex = Example(example_id="e", title="e", code="from pkg.api.mod import func\nfunc()\n", language="python",
                 source="docs", path="a.md", line=1, complete=True)  # fmt: skip
    assert drift_report([ex], api, library="pkg").findings == ()


def _distribution(root: Path, name: str, version: str, files: dict[str, str]) -> None:
    """Install ``files`` under ``root`` as the distribution ``name`` (its RECORD lists them)."""
    make_package(root, files)
    info = root / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text("".join(f"{rel},,\n" for rel in files) + f"{info.name}/METADATA,,\n")


OLD_MAKE = '''
def field(x):
    """Define a field."""

class Thing:
    def go(self) -> None: ...
'''
# re-exports from a second package, with stubs whose overloads griffe merges while loading
NEW_INIT = "from oldattr import field, Thing\n__all__ = ['field', 'Thing']\n"
NEW_STUB = """
from typing import overload
from oldattr import Thing
@overload
def field(x: int) -> int: ...
@overload
def field(x: str) -> str: ...
"""
ATTR_FILES = {
    "newattr/__init__.py": NEW_INIT,
    "newattr/__init__.pyi": NEW_STUB,
    "oldattr/__init__.py": "from oldattr._make import field, Thing\n",
    "oldattr/_make.py": OLD_MAKE,
}


def test_what_a_package_reexports_from_its_distributions_other_package_is_its_api(tmp_path: Path) -> None:
    # attrs installs attr and attrs; attrs re-exports attr's functions and stubs them
    _distribution(tmp_path, "newattr", "3.0", ATTR_FILES)
    api = load_api("newattr", search_paths=[tmp_path])
    assert api.version == "3.0"
    assert api.by_alias["newattr.field"].api_id == "oldattr._make.field"
    assert api.by_alias["newattr.Thing.go"].api_id == "oldattr._make.Thing.go"
    assert api.by_alias["newattr.field"].description == "Define a field."
    # what the other package has exists for drift, API of newattr or not (attr.s, attr.ib)
    assert {"oldattr.field", "oldattr._make", "oldattr._make.Thing"} <= api.present


def test_a_reexport_into_a_package_not_loaded_yet_is_loaded_not_a_crash(tmp_path: Path) -> None:
    # the same packages without distribution metadata: griffe's stub merge meets the alias
    # first; the package it points into is loaded and the load tried again
    make_package(tmp_path, ATTR_FILES)
    api = load_api("newattr", search_paths=[tmp_path])
    # another distribution's objects are this library's API only as far as its __init__
    # publishes them explicitly (its __all__ lists field and Thing): named where defined
    assert [e.api_id for e in api.entries] == [
        "newattr", "oldattr._make.field", "oldattr._make.Thing", "oldattr._make.Thing.go",
    ]  # fmt: skip
    assert (
        all(e.foreign for e in api.entries[1:])
        and api.by_alias["newattr.field"].api_id == "oldattr._make.field"
    )


def test_a_distribution_name_reads_the_package_it_installs(tmp_path: Path) -> None:
    # PyYAML installs yaml (and _yaml), beautifulsoup4 bs4
    files = {
        "thing/__init__.py": "def load(text: str) -> dict:\n    '''Parse a document.'''\n",
        "_thing.py": "",
    }
    _distribution(tmp_path, "PyThing", "6.0.1", files)
    api = load_api("PyThing", search_paths=[tmp_path])
    assert (api.library, api.version) == ("thing", "6.0.1")
    assert api.resolve("thing.load") is not None
    # two packages: which one is meant is the user's to say
    other = tmp_path / "other"
    _distribution(other, "twopack", "1.0", {"alpha/__init__.py": "", "beta/__init__.py": ""})
    with pytest.raises(NotFoundError) as error:
        load_api("twopack", search_paths=[other])
    assert "its distribution installs alpha, beta" in str(error.value.hint)


def test_unknown_package_and_bad_interpreter(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError) as error:
        load_api("no_such_package_here", search_paths=[tmp_path])
    assert "pip install" in str(error.value) and "--python" in str(error.value)
    with pytest.raises(UsageError):
        load_api("httpx", python=str(tmp_path / "missing" / "python"))
    not_python = tmp_path / "not-python"
    not_python.write_text("#!/bin/sh\necho nope >&2\nexit 3\n")
    not_python.chmod(0o755)
    with pytest.raises(UsageError, match="not a working Python interpreter"):
        load_api("httpx", python=str(not_python))


def test_python_option_reads_another_environment(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    src = make_package(
        tmp_path / "src",
        {"elsewhere/__init__.py": "from ._core import Db, open_db\n", "elsewhere/_core.py": RETURN_DB},
        version="2.5.0",
    )
    (Path(purelib) / "elsewhere.pth").write_text(f"{src}\n")

    api = load_api("elsewhere", python=str(python))
    assert api.version == "2.5.0"
    assert api.by_alias["elsewhere.open_db"].api_id == "elsewhere._core.open_db"
    assert api.return_class("elsewhere.open_db") == "elsewhere._core.Db"
    with pytest.raises(NotFoundError):  # not installed here, only there
        load_api("elsewhere")


RETURN_DB = """
class Db:
    def close(self) -> None: ...

def open_db(path: str) -> "Db":
    '''Open a database.'''
"""


def test_compiled_module_without_stubs_is_inspected_at_run_time() -> None:
    # PyStemmer is a compiled extension without stubs: griffe inspects it here, and with
    # --python a stdlib dumper inspects it inside that interpreter.
    for python in (None, sys.executable):
        api = load_api("Stemmer", python=python)
        stem = api.by_id["Stemmer.Stemmer.stemWord"]
        assert stem.kind == "method" and [p.name for p in stem.parameters] == ["word"]
        assert api.by_id["Stemmer.algorithms"].kind == "function"
        assert api.by_id["Stemmer.Stemmer"].signature == "Stemmer(...)"
        assert api.version is not None


def test_compiled_submodule_of_another_environment_is_inspected_there() -> None:
    # toktok re-exports names from its compiled `_toktok` (no stubs). With --python, griffe reads
    # the Python files without importing anything; the dumper fills in `_toktok` from the child.
    import griffe

    loader = griffe.GriffeLoader(allow_inspection=False, store_source=False)
    root = loader.load("toktok")
    assert api_python_env._compiled_modules(root, loader.modules_collection) == ["toktok._toktok"]
    api_python_env.inspect_foreign_compiled(sys.executable, root, loader, [])
    tokenizer = root["_Tokenizer"].final_target
    assert tokenizer.path == "toktok._toktok.Tokenizer" and tokenizer.is_class
    assert "count" in tokenizer.members


def test_httpx_surface_matches_the_eval_ids() -> None:
    started = time.perf_counter()
    api = load_api("httpx")
    elapsed = time.perf_counter() - started
    assert api.library == "httpx" and api.version == "0.28.1"
    assert api.by_alias["httpx.Client"].api_id == "httpx._client.Client"
    build = api.by_id["httpx._client.BaseClient.build_request"]
    assert {"httpx.Client.build_request", "httpx.AsyncClient.build_request"} <= set(build.aliases)
    assert "httpx.Timeout" in api.by_id["httpx._config.Timeout"].aliases
    assert api.by_id["httpx._api.get"].aliases == ["httpx.get"]
    assert api.return_class("httpx.get") == "httpx._models.Response"
    assert api.return_class("httpx.Client.build_request") == "httpx._models.Request"
    for entry in api.entries:
        assert not any(p.startswith("_") for a in entry.aliases for p in a.split(".")), entry.aliases

    tasks = [json.loads(line) for line in HTTPX_API.read_text().splitlines() if line.strip()]
    defining = [task["expected_api"][0] for task in tasks]
    covered = [api_id for api_id in defining if api_id in api.by_id]
    print(f"httpx_api.jsonl coverage: {len(covered)}/{len(defining)} defining ids, {elapsed:.2f} s")
    assert covered == defining
    for task in tasks:  # every listed name (ids and public paths) resolves, public paths to the id
        for name in task["expected_api"]:
            found = api.resolve(name)
            assert found is not None, name
            assert name == found.api_id or name in found.aliases, name
    assert elapsed < 5  # ~0.3 s here; generous for a loaded CI machine


@pytest.mark.parametrize(
    ("docstring", "summary"),
    [
        ("Send a request.\n\nArgs:\n    request: the request.", "Send a request."),
        # mkdocs-material admonitions and their indented bodies are markup, not what it does
        (
            '!!! abstract "Usage Documentation"\n    [Models](../concepts/models.md)\n\n'
            "A base class for creating models.\n\nMore.",
            "A base class for creating models.",
        ),
        ("??? tip\n    Collapsed.\n\n    Still the tip.\n\nWhat it does.", "What it does."),
        (".. deprecated:: 2.0\n   Use ``other``.\n\nOpen a table.", "Open a table."),
        ("![badge](b.svg)\n\nThe client.", "The client."),
        ("!!! warning\n    Only a warning.", "!!! warning Only a warning."),  # nothing else: keep it
        # a code example first (httpx.URL's docstring) is not what it is
        ('url = URL("https://h/p")\nassert url.host == "h"\n\nA parsed URL.', "A parsed URL."),
        (">>> client.get(url)\n<Response [200]>\n\nThe client.", "The client."),
        ("foo(bar)", "foo(bar)"),  # nothing else: keep it
        # a directive a reader never sees says nothing (packaging's module docstrings: the
        # overview listed `packaging.version` as "..")
        (".. testsetup::\n\n    from packaging.version import parse\n", ""),
        (".. currentmodule:: pkg\n\nThe module.", "The module."),
        ("Note that x = 1 here.\n\nMore.", "Note that x = 1 here."),
        ("", ""),
    ],
)
def test_the_summary_is_the_first_prose_paragraph(docstring: str, summary: str) -> None:
    from docmentor.library.surface.docstrings import summary as _summary

    assert _summary(docstring) == summary


def test_deprecated_apis_are_marked_with_the_reason(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                import warnings
                from typing_extensions import deprecated

                __all__ = ["Store", "old_open", "open_store", "legacy", "sunset", "fine", "Config"]

                @deprecated("use open_store instead")
                def old_open(path): ...

                def open_store(path, *, cache=None):
                    """Open a store.

                    Args:
                        path: where.
                        cache: deprecated: ignored since 2.0.
                    """
                    if cache is not None:  # a deprecated parameter, not a deprecated function
                        warnings.warn("cache is deprecated", DeprecationWarning)

                def legacy():
                    """Do the old thing.

                    .. deprecated:: 2.0
                       Use :func:`open_store`.
                    """

                def sunset():
                    """Close everything."""
                    warnings.warn("sunset() is deprecated; use Store.close", DeprecationWarning, stacklevel=2)

                def fine():
                    """Nothing deprecated about it, though it mentions the deprecated API."""

                class Config:
                    """Settings.

                    !!! warning "Deprecated"
                        Pass keyword arguments to open_store.
                    """

                class Store:
                    def close(self):
                        """The store is closed. This method is now deprecated."""
            ''',
        },
    )
    marked = {e.api_id: e.deprecated for e in api.entries if e.deprecated}
    assert marked == {
        "pkg.old_open": "use open_store instead",
        "pkg.legacy": "since 2.0: Use :func:`open_store`.",  # the version and the directive's body
        "pkg.sunset": "sunset() is deprecated; use Store.close",
        "pkg.Config": "Pass keyword arguments to open_store.",  # the admonition's body
        "pkg.Store.close": "This method is now deprecated.",
    }


def test_the_reason_comes_from_the_decorator_packages_arguments(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                import deprecation
                import deprecated as dep

                __all__ = ["a", "b", "c", "deprecated_stuff"]

                @deprecation.deprecated(deprecated_in="0.25.0", current_version="1.0", details="Use create_index() instead.")
                def a(): ...

                @dep.deprecated(version="1.2", reason="Use b2.")
                def b(): ...

                @dep.deprecated
                def c(): ...

                def deprecated_stuff(): ...
            """,
        },
    )
    assert {e.api_id: e.deprecated for e in api.entries if e.kind == "function"} == {
        "pkg.a": "Use create_index() instead.",
        "pkg.b": "Use b2.",
        "pkg.c": "deprecated",
        "pkg.deprecated_stuff": None,  # a name, not a mark
    }


def test_a_method_every_override_of_which_is_deprecated_is_deprecated(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.base import Table
                from pkg.impl import LocalTable, RemoteTable
                __all__ = ["Table", "LocalTable", "RemoteTable"]
            """,
            "pkg/base.py": """
                class Table:
                    def create_fts_index(self, column): '''Index a column for keywords.'''
                    def create_index(self, column, config=None): '''Index a column.'''
                    def search(self, query): '''Search.'''
            """,
            "pkg/impl.py": """
                import deprecation
                from pkg.base import Table

                class LocalTable(Table):
                    @deprecation.deprecated(deprecated_in="0.25", details="Use create_index(config=FTS()).")
                    def create_fts_index(self, column): ...
                    @deprecation.deprecated(details="gone")
                    def create_index(self, column, config=None): ...
                    def search(self, query): ...

                class RemoteTable(Table):
                    @deprecation.deprecated(details="Use create_index(config=FTS()).")
                    def create_fts_index(self, column): ...
                    def create_index(self, column, config=None): ...  # still fine here
            """,
        },
    )
    marked = {e.api_id: e.deprecated for e in api.entries if e.deprecated}
    assert marked["pkg.base.Table.create_fts_index"] == "Use create_index(config=FTS())."
    assert "pkg.base.Table.create_index" not in marked  # one implementation is not deprecated
    assert "pkg.base.Table.search" not in marked


def test_deprecation_of_a_parameter_or_a_flag_is_not_the_apis(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                import warnings
                __all__ = [
                    "define", "flags", "is_deprecated", "spaced", "joined", "warned", "Base", "Impl", "evolve", "fetch",
                    "Validator", "old",
                ]

                def evolve(*args, **changes):
                    """Copy an instance with changes.

                    .. deprecated:: 23.1.0
                       It is now deprecated to pass the instance using the keyword argument *inst*.
                    """

                def fetch(url, **options):
                    """Fetch a URL.

                    .. deprecated:: 2.0
                        Use ``define`` with the ``stream`` argument instead.
                    """

                def define(maybe_cls=None, *, hash=None, unsafe_hash=None):
                    """Define a class.

                    .. deprecated:: 24.1.0
                       *hash* is deprecated in favor of *unsafe_hash*.
                    """

                def flags(deprecated=False):
                    """Options.

                    Parameters
                    ----------
                    deprecated : bool
                        Mark the thing.
                    """

                def is_deprecated():
                    """Whether this object is deprecated."""

                def spaced():
                    """Spaced out.

                    .. deprecated:: v4.0.0

                       Use ``define`` instead.
                    """

                @warnings.deprecated("Use define, "
                                     "which does more.")
                def joined(): ...

                def warned():
                    warnings.warn(
                        "warned() is going away; "
                        "call define()",
                        DeprecationWarning,
                    )

                class Base:
                    def run(self):
                        return 1  # concrete: its subclasses' deprecations are theirs

                class Impl(Base):
                    @warnings.deprecated("no")
                    def run(self): ...

                    def iter_errors(self, instance):
                        """Lazily yield each of the validation errors.

                        .. deprecated:: v4.0.0

                            Calling this function with a second schema argument is deprecated.
                            Use `Validator.evolve` instead.
                        """

                def old():
                    """Calling `old()` is deprecated; call `define()` with the same arguments."""

                class Validator:
                    """The protocol.

                    .. deprecated:: v4.12.0

                        Subclassing validator classes now explicitly warns this is not part of
                        their public API.
                    """
            ''',
        },
    )
    marked = {e.api_id: e.deprecated for e in api.entries if e.deprecated}
    assert marked == {
        "pkg.spaced": "since v4.0.0: Use ``define`` instead.",  # the body after a blank line
        "pkg.joined": "Use define, which does more.",  # adjacent literals are one string
        "pkg.warned": "warned() is going away; call define()",
        "pkg.Impl.run": "no",
        # advice naming an argument of another API: the whole API is deprecated
        "pkg.fetch": "since 2.0: Use ``define`` with the ``stream`` argument instead.",
        # "with" after the claim is advice, not a way of calling it
        "pkg.old": "Calling `old()` is deprecated; call `define()` with the same arguments.",
    }


def test_pathological_docstrings_do_not_break_the_summary() -> None:
    from docmentor.library.surface.docstrings import is_code, summary

    deep = "a" + ".a" * 100_000
    assert is_code(deep) is False  # too long to parse: prose as far as the summary goes
    assert summary("-" * 5000 + "x\n\nThe real text.") != ""
    assert is_code("(" * 300 + ")" * 300) in (True, False)  # parses or not, never raises


def test_review_of_the_late_session_parameter_references_and_lists() -> None:
    import time

    from docmentor.library.knowledge.enrich import _SEE_PARAMETERS, parameters_by_reference
    from docmentor.library.knowledge.mentions import MentionResolver
    from docmentor.library.models import ApiEntry, ApiParameter
    from docmentor.library.surface.api_python_docs import _markdown_parameters

    forms = {
        "**Parameters**: See `pkg.g`.": "pkg.g",
        "Args:\n    See `pkg.g`.": "pkg.g",  # Google layout: on the next line
        "Args:\n    Same as :func:`pkg.g`.": "pkg.g",
        "Parameters: see :py:func:`pkg.g`.": "pkg.g",
        "**Parameters**: See [`pkg.g`][pkg.g].": "pkg.g",  # mkdocstrings
        "Parameters: same as for `pkg.g`": "pkg.g",
    }
    for text, name in forms.items():
        found = _SEE_PARAMETERS.search(text)
        assert found is not None and found.group(1) == name, text
    assert _SEE_PARAMETERS.search("Args:\n    x: see `y` for details") is None
    # one run of blanks however long: no retrying its splits (was cubic: 57 s at 2,000)
    started = time.perf_counter()
    for text in ("Args" + " " * 200_000 + "x", "Args**" + " " * 100_000 + ":" + " " * 100_000 + "x"):
        assert _SEE_PARAMETERS.search(text) is None
    assert time.perf_counter() - started < 5

    def entry(api_id: str, params: dict[str, str], docstring: str = "") -> ApiEntry:
        name = api_id.rsplit(".", 1)[1]
        parameters = [ApiParameter(name=n, description=d) for n, d in params.items()]
        return ApiEntry(api_id=api_id, kind="function", name=name, parameters=parameters, docstring=docstring)

    # two candidates that agree on the wanted parameters are no tie, whatever else they describe
    target_a = entry("h.get", {"url": "The URL.", "params": "Query.", "verify": "Check TLS."})
    target_b = entry("h.aio.get", {"url": "The URL.", "params": "Query.", "extensions": "More."})
    asking = entry("h.client.fetch", {"url": "", "params": ""}, "Fetch it.\n\nArgs: same as :func:`get`.")
    entries = [target_a, target_b, asking]
    assert parameters_by_reference(entries, MentionResolver(entries)) == 2
    assert [p.description for p in asking.parameters] == ["The URL.", "Query."]
    # a chain of any length is followed (f0 → f1 → … → f5), whatever the order of the entries
    chain = [entry(f"c.f{i}", {"x": ""}, f"F{i}.\n\nArgs: see `c.f{i + 1}`.") for i in range(5)]
    chain.append(entry("c.f5", {"x": "The x."}))
    assert parameters_by_reference(chain, MentionResolver(chain)) == 5
    assert all(e.parameters[0].description == "The x." for e in chain)

    # a list of code names outside the parameters (a returned dict's keys) describes none
    returned = "Fetch a page.\n\nReturns a dict with:\n\n* `url` - the final URL.\n* `status` - the code.\n"
    assert _markdown_parameters(returned) == {}
    args = "Fetch.\n\nArguments:\n\n* `url` - where.\n\nReturns:\n\n* `url` - the final URL.\n"
    assert _markdown_parameters(args) == {"url": "where."}
    # ``double`` backticks, `**kwargs` and a type in parentheses
    more = "Arguments:\n\n* ``app`` - The app.\n* `**kwargs` - Passed on.\n* `timeout` (float) - Seconds.\n"
    assert _markdown_parameters(more) == {"app": "The app.", "kwargs": "Passed on.", "timeout": "Seconds."}


def test_a_literal_block_with_two_blank_lines_in_it_stays_out_of_the_prose() -> None:
    """A pyparsing tour: `Each`'s description ended with its example's printed output, which
    followed two blank lines inside a `prints::` literal block."""
    from docmentor.library.surface.docstrings import prose_paragraphs

    output = "\n\n\n    hello world\n    more text"
    doc = "Summary.\n\nprints::\n\n    first" + output * 2 + "\n\nAfter the output.\n"
    assert prose_paragraphs(doc) == ["After the output."]


def test_parameters_listed_plainly_under_the_summary(tmp_path: Path) -> None:
    from docmentor.library.knowledge.readme import render_readme
    from docmentor.library.surface.docstrings import prose_paragraphs

    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                class Connector:
                    """TCP connector.

                    verify_ssl - Set to True to check ssl certifications.
                    fingerprint - Pass the binary sha256
                        digest of the expected certificate.
                    note - not a parameter, dropped.

                    limit - (optional) The total number of connections.
                    """

                    def __init__(self, verify_ssl: bool = True, fingerprint: bytes | None = None, limit: int = 100) -> None:
                        ...
            ''',
        },
    )
    connector = api.by_id["pkg.Connector"]
    assert {p.name: p.description for p in connector.parameters} == {
        "verify_ssl": "Set to True to check ssl certifications.",
        "fingerprint": "Pass the binary sha256 digest of the expected certificate.",
        "limit": "The total number of connections.",
    }
    # such a list is no prose: the description stops at it
    assert prose_paragraphs(connector.docstring, skip_summary=False) == ["TCP connector."]
    readme = render_readme(
        "pkg", "1", [connector.model_copy(update={"importance_score": 1.0})], [], validated=False
    )
    assert "pkg.Connector is a class. TCP connector.\n" in readme
    # prose with a dash, or one such line, is no list
    assert prose_paragraphs("Sum.\n\nIt is fast - very fast.\n\na - b\nand more words here.") == [
        "It is fast - very fast.",
        "a - b and more words here.",
    ]


def test_review_two_summary_of_the_right_distribution_and_plain_lists(tmp_path: Path) -> None:
    from docmentor.library.surface.api_python_docs import _listed_parameters
    from docmentor.library.surface.docstrings import is_name_list, prose_paragraphs

    # two distributions share the namespace nsp: each sub-package reads its own's summary
    for name, version, summary in (("nsp-alpha", "1.0", "Alpha things."), ("nsp-beta", "2.0", "UNKNOWN")):
        sub = name.split("-")[1]
        make_package(tmp_path, {f"nsp/{sub}/__init__.py": f'"""The {sub} part."""\ndef f(): ...\n'})
        info = tmp_path / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
        )
        (info / "RECORD").write_text(f"nsp/{sub}/__init__.py,,\n{info.name}/METADATA,,\n")
        (info / "top_level.txt").write_text("nsp\n")
    alpha, beta = (
        load_api("nsp.alpha", search_paths=[tmp_path]),
        load_api("nsp.beta", search_paths=[tmp_path]),
    )
    assert (alpha.version, alpha.summary) == ("1.0", "Alpha things.")
    assert (beta.version, beta.summary) == ("2.0", "")  # old setuptools' "UNKNOWN" says nothing

    # a plain list after a lead-in that says what it lists is no parameter list
    assert (
        _listed_parameters(
            "Fetch.\n\nReturns a dict with:\n\n    url - the final URL\n    status - the code\n"
        )
        == {}
    )
    assert _listed_parameters("Fetch.\n\nParameters:\n\n    url - the URL\n    status - the code\n") == {
        "url": "the URL",
        "status": "the code",
    }
    # code names too (pyparsing: "- ``match_string`` - string to be matched"), and a colon
    # lead-in that speaks of them; one that speaks of something else announces no parameters
    assert _listed_parameters("Match.\n\n- ``match_string`` - the string\n- ``limit`` - how many\n") == {
        "match_string": "the string",
        "limit": "how many",
    }
    accepted = "Make.\n\nThe following arguments are accepted:\n\nverify_ssl - Set it.\nlimit - The limit.\n"
    assert _listed_parameters(accepted) == {"verify_ssl": "Set it.", "limit": "The limit."}
    assert (
        _listed_parameters(
            "Rows.\n\nEach row has these fields:\n\n    url - the URL\n    status - the code\n"
        )
        == {}
    )
    # a wrapped line of prose starting with "returns" is no announcement
    wrapped = "Keep it\nalive and\nreturns it to the pool.\n\nverify_ssl - Set.\nlimit - The limit.\n"
    assert _listed_parameters(wrapped) == {"verify_ssl": "Set.", "limit": "The limit."}
    # prose with dashes is no list; a list ends the prose, its lead-in with it
    assert not is_name_list("Note - the connections are not closed\nimmediately - call wait() for that.")
    doc = "Return a list.\n\nEach member is a dict. It has these fields:\n\n    name - the name\n    schema - the schema\n"
    assert prose_paragraphs(doc) == ["Each member is a dict."]


def test_review_three_a_sub_package_never_takes_its_namespace_s_first_distribution(tmp_path: Path) -> None:
    # nsp-alpha installed editable (its RECORD lists only a .pth): found by its name; a
    # module nsp/gamma.py by its file; never nsp-beta, the first to list "nsp"
    make_package(tmp_path, {"nsp/alpha/__init__.py": "def f(): ...\n", "nsp/gamma.py": "def g(): ...\n"})
    for name, version, record in (
        ("nsp-beta", "2.0", "nsp/beta/__init__.py,,\n"),
        ("nsp-alpha", "1.0", "__editable__.nsp_alpha-1.0.pth,,\n"),
        ("nsp-gamma", "3.0", "nsp/gamma.py,,\n"),
    ):
        info = tmp_path / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {name}\n"
        )
        (info / "RECORD").write_text(record + f"{info.name}/METADATA,,\n")
        (info / "top_level.txt").write_text("nsp\n")
    paths = [str(tmp_path)]
    assert api_python_env.dist_info("nsp.alpha", paths)["version"] == "1.0"
    assert api_python_env.dist_info("nsp.gamma", paths)["version"] == "3.0"
    assert api_python_env.dist_info("nsp.delta", paths) == {}


def test_docstring_types_fill_parameters_the_signature_does_not_annotate(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                class Widget:
                    """A widget."""

                def paint(widget, times=2, colour: str = "red"):
                    """Paint a widget.

                    Args:
                        widget (Widget): what to paint.
                        times (int): how many coats.
                        colour (bytes): the annotation wins over this.

                    Returns:
                        Widget: the painted widget.
                    """

                def cached(widget):
                    """Cache a widget.

                    Returns:
                        Note: the value is cached, not copied.
                    """

                def scale(widget, factor):
                    """Scale a widget.

                    :param widget: what to scale.
                    :type widget: Widget
                    :param factor: by how much.
                    :returns: the new size.
                    :rtype: float
                    """
            ''',
        },
    )
    paint = api.resolve("pkg.paint")
    assert paint is not None and paint.returns is not None
    assert [(p.name, p.type) for p in paint.parameters] == [
        ("widget", "Widget"),
        ("times", "int"),
        ("colour", "str"),
    ]
    assert paint.returns.type == "Widget"
    assert paint.signature == "paint(widget, times=2, colour: str = 'red')"  # as written: no docstring types
    cached = api.resolve("pkg.cached")
    assert cached is not None and cached.returns is not None and cached.returns.type is None  # prose, no type
    scale = api.resolve("pkg.scale")
    assert scale is not None and scale.returns is not None
    assert [(p.name, p.type) for p in scale.parameters] == [("widget", "Widget"), ("factor", None)]
    assert scale.returns.type == "float"


def test_an_instance_attribute_shows_no_value_a_constant_does(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                LIMIT = 10
                """How many."""

                class Response:
                    """A response."""

                    kind = "http"
                    """What it is."""

                    def __init__(self, status_code: int) -> None:
                        self.status_code = status_code
                        """The status."""
                        self.retries = 3
                        """How often it retries."""
                        self.name: str = parsed.name
                        self.extras = set(parsed.extras or [])
            ''',
        },
    )
    shown = {e.api_id: e.signature for e in api.entries if e.kind == "attribute"}
    assert shown == {
        "pkg.LIMIT": "LIMIT = 10",
        "pkg.Response.kind": "kind = 'http'",
        "pkg.Response.status_code": "status_code",  # not "status_code = status_code"
        "pkg.Response.retries": "retries = 3",  # a constant set in __init__ keeps it
        "pkg.Response.name": "name: str",  # not "name: str = parsed.name" (a packaging tour)
        "pkg.Response.extras": "extras",
    }


def test_a_module_attribute_naming_a_function_of_the_package_is_that_function(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.procs import Renderer, format_exc, get_logger, getLogger, LEVEL, log, dumps, Out, hook
                from pkg.procs import frozen_logger, odd
                __all__ = ["Renderer", "format_exc", "get_logger", "getLogger", "LEVEL", "log", "dumps", "Out",
                           "hook", "frozen_logger", "odd"]
            """,
            "pkg/procs.py": """
                import json
                import logging

                class Renderer:
                    \"\"\"Replace exc_info with a formatted traceback.\"\"\"
                    def __call__(self, logger: object, name: str, event: dict) -> dict:
                        return event

                format_exc = Renderer()

                def get_logger(*args: str, frozen: bool = False, **values: object) -> "Renderer":
                    \"\"\"Get a logger.\"\"\"

                getLogger = get_logger
                LEVEL = 10
                from functools import partial
                frozen_logger = partial(get_logger, frozen=True)  # attrs: frozen = partial(define, …)
                odd = partial(get_logger, 1)  # a bound positional argument: data

                class Out:
                    def msg(self, message: str) -> None:
                        \"\"\"Print a message.\"\"\"
                    info = msg
                    handler = get_logger  # a function stored on the class: data

                hook: object = get_logger  # a typed setting that holds a function: data
                log = logging.getLogger(__name__)
                dumps = json.dumps
            """,
        },
    )
    by_id = {e.api_id: e for e in api.entries}
    alias = by_id["pkg.procs.getLogger"]
    assert (alias.kind, alias.signature) == (
        "function", "getLogger(*args: str, frozen: bool = False, **values: object) -> Renderer"
    )  # fmt: skip
    assert alias.description == "Get a logger." and alias.aliases == ["pkg.getLogger"]
    assert [p.name for p in alias.parameters] == ["args", "frozen", "values"]
    # a partial of it: the function with the keyword defaults it binds
    frozen = by_id["pkg.procs.frozen_logger"]
    assert frozen.signature == "frozen_logger(*args: str, frozen: bool = True, **values: object) -> Renderer"
    assert by_id["pkg.procs.odd"].kind == "attribute"
    # it returns what the function returns: `log = pkg.getLogger(); log.…` is typed
    assert alias.returns is not None and alias.returns.class_id == "pkg.procs.Renderer"
    assert by_id["pkg.procs.hook"].kind == "attribute"
    # data stays data: a number, an instance it may call (users pass it: `processors=[…]`),
    # another package's object or function
    for name in ("LEVEL", "format_exc", "log", "dumps"):
        assert by_id[f"pkg.procs.{name}"].kind == "attribute", name
    # a class attribute naming one of its methods is that method under another name
    info = by_id["pkg.procs.Out.info"]
    assert (info.kind, info.parent, info.signature) == (
        "method",
        "pkg.procs.Out",
        "info(self, message: str) -> None",
    )
    assert [p.name for p in info.parameters] == ["message"] and info.description == "Print a message."
    assert by_id["pkg.procs.Out.handler"].kind == "attribute"


def test_a_package_attribute_rebinding_a_function_by_its_name_is_that_function(tmp_path: Path) -> None:
    # portalocker's __init__: `unlock = portalocker.unlock` binds the same function again,
    # as `from .portalocker import unlock` would: one API with two paths, not a wordless
    # function beside an unpublished "helper"
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg import compat, locking

                __all__ = ["lock", "unlock", "release", "unlocked", "AlreadyLocked", "LockedError"]
                __all__ += ["compat", "release_all"]

                #: Deprecated alias of AlreadyLocked
                LockedError = locking.AlreadyLocked
                #: Raised when another process holds the file
                AlreadyLocked = locking.AlreadyLocked
                release_all = locking.release_all

                #: Unlock a file
                unlock = locking.unlock
                lock = locking.lock
                release = locking.unlock  # another name: an API of its own
                unlocked: object = locking.unlock  # a typed setting that holds it: data
            """,
            "pkg/locking.py": """
                def unlock(file_: object) -> None:
                    pass

                def lock(file_: object, flags: int) -> None:
                    \"\"\"Lock a file.\"\"\"

                class AlreadyLocked(Exception):
                    pass

                def release_all() -> None:
                    pass
            """,
            "pkg/compat.py": """
                from pkg import locking

                __all__ = ["release_all"]

                #: Release every lock this process holds
                release_all = locking.release_all
            """,
        },
    )
    by_id = {e.api_id: e for e in api.entries}
    assert "pkg.unlock" not in by_id and "pkg.lock" not in by_id
    unlock, lock = by_id["pkg.locking.unlock"], by_id["pkg.locking.lock"]
    assert unlock.aliases == ["pkg.unlock"] and unlock.internal is None
    assert unlock.description == "Unlock a file"  # the rebinding's doc comment, the function has none
    assert lock.aliases == ["pkg.lock"] and lock.description == "Lock a file."  # its own words
    assert by_id["pkg.release"].kind == "function" and by_id["pkg.unlocked"].kind == "attribute"
    assert api.resolve("pkg.unlock") is unlock
    # a class the package binds again by its name takes that binding's words too; another
    # name's words are of that name ("Deprecated alias of …" is no class's description)
    locked = by_id["pkg.locking.AlreadyLocked"]
    assert locked.aliases == ["pkg.AlreadyLocked", "pkg.LockedError"]
    assert locked.description == "Raised when another process holds the file"
    # the first binding by its name that has words gives them (review: the first walked had none)
    assert by_id["pkg.locking.release_all"].description == "Release every lock this process holds"


def test_a_wordless_member_named_after_a_constructor_parameter_takes_its_words(tmp_path: Path) -> None:
    # lark's Tree documents `meta` under its Parameters; the `meta` property has no docstring
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["Tree", "Node"]

                class Tree:
                    \"\"\"A parse tree.

                    Parameters:
                        data: The name of the rule.
                        meta: Line and column numbers of the match.
                    \"\"\"

                    data: str

                    def __init__(self, data: str, meta: object = None) -> None:
                        self.data = data
                        self._meta = meta

                    @property
                    def meta(self) -> object:
                        return self._meta

                class Node:
                    \"\"\"A node.\"\"\"

                    def __init__(self, label: str, kind: str, size: int = 0) -> None:
                        \"\"\"Make a node.

                        :param label: What the node shows.
                        :param kind: What kind of node it is.
                        \"\"\"
                        self.label = label
                        self._kind = kind

                    @property
                    def kind(self) -> str:
                        return self._kind

                    @property
                    def size(self) -> int:
                        return 0
            """,
        },
    )
    by_id = {e.api_id: e for e in api.entries}
    assert by_id["pkg.Tree.meta"].description == "Line and column numbers of the match."
    assert by_id["pkg.Node.kind"].description == "What kind of node it is."  # the constructor's docstring
    assert by_id["pkg.Node.size"].description == ""  # a parameter the docstrings do not describe
    # plain attributes stay without: measured, their words made data rival methods
    assert by_id["pkg.Tree.data"].description == "" and by_id["pkg.Node.label"].description == ""


def test_a_wordless_value_made_by_a_private_class_takes_the_class_words(tmp_path: Path) -> None:
    # lark's `Discard = _DiscardType()`: the class's docstring says what the value does
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["Discard", "Keep", "Default", "Shown"]

                class _DiscardType:
                    \"\"\"Return this from a callback to drop the node.\"\"\"

                    def __repr__(self) -> str:
                        return "Discard"

                class _Plain:
                    pass

                class Public:
                    \"\"\"A public class says what it is, not what its instances are for.\"\"\"

                Discard = _DiscardType()
                Keep = _Plain()
                Default = Public()
                Shown = _DiscardType()
                \"\"\"Its own words.\"\"\"
            """,
        },
    )
    by_id = {e.api_id: e for e in api.entries}
    assert by_id["pkg.Discard"].description == "Return this from a callback to drop the node."
    assert by_id["pkg.Keep"].description == "" and by_id["pkg.Default"].description == ""
    assert by_id["pkg.Shown"].description == "Its own words."


def test_a_default_naming_a_private_constant_shows_its_literal(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                _WIDTH = 30
                _OFF = -1
                _STYLE = "dim"
                _IS_WINDOWS = False
                _has_colors = not _IS_WINDOWS
                WIDTH = 10
                def render(pad: int = _WIDTH, style: str = _STYLE, colors: bool = _has_colors, w: int = WIDTH,
                           off: int = _OFF):
                    \"\"\"Render.\"\"\"
                __all__ = ["render", "WIDTH"]
            """,
        },
    )
    entry = next(e for e in api.entries if e.api_id == "pkg.render")
    # a private constant's literal; a computed private value and a public name as written
    assert entry.signature == (
        "render(pad: int = 30, style: str = 'dim', colors: bool = _has_colors, w: int = WIDTH, off: int = -1)"
    )
    assert [p.default for p in entry.parameters] == ["30", "'dim'", "_has_colors", "WIDTH", "-1"]


def test_what_the_docs_document_is_public_though_all_leaves_it_out(tmp_path: Path) -> None:
    from docmentor.sources.autodoc import documented_paths

    make_package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.dev import Renderer\n__all__ = ['Renderer']\n",
            "pkg/dev.py": """
                __all__ = ["Renderer"]
                class Renderer:
                    \"\"\"Render.\"\"\"
                class Column:
                    \"\"\"A column.\"\"\"
                    def width(self) -> int: ...
                def set_exc_info(logger, name, event):
                    \"\"\"Set exc_info.\"\"\"
                def undocumented(): ...
            """,
            "pkg/_impl.py": "def hidden(): ...\n",
        },
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(
        ".. module:: pkg\n\n.. autoclass:: Renderer\n\n.. automodule:: pkg.dev\n\n"
        ".. autoclass:: Column(object)\n   :members:\n\n.. autofunction:: set_exc_info\n\n"
        ".. autofunction:: pkg._impl.hidden\n\n.. autofunction:: nosuch\n",
        encoding="utf-8",
    )
    (docs / "more.md").write_text(
        "# More\n\n::: pkg.dev.Column.width\n\n```{autofunction} os.path.join\n```\n"
    )
    # a member inside a class directive (its class's: one the package has not), and a reset module
    (docs / "z.rst").write_text(
        ".. module:: pkg.dev\n\n.. class:: Thing\n\n   .. method:: undocumented\n\n"
        ".. currentmodule:: None\n\n.. autofunction:: pkg.dev.set_exc_info\n",
        encoding="utf-8",
    )
    paths = documented_paths(docs)
    assert paths == [
        "pkg", "pkg.Renderer", "pkg.dev", "pkg.dev.__doc__", "pkg.dev.Column", "pkg.dev.Column.*",
        "pkg.dev.set_exc_info",
        "pkg._impl.hidden", "pkg.dev.nosuch", "pkg.dev.Column.width", "os.path.join", "pkg.dev",
        "pkg.dev.Thing", "pkg.dev.Thing.undocumented", "pkg.dev.set_exc_info",
    ]  # fmt: skip
    plain = {e.api_id for e in load_api("pkg", search_paths=[tmp_path]).entries}
    api = load_api("pkg", search_paths=[tmp_path], documented=paths)
    added = {e.api_id for e in api.entries} - plain
    # the documented ones, a class with its members; not a private path, another package,
    # a name that is not there, nor what the docs leave out
    assert added == {"pkg.dev.Column", "pkg.dev.Column.width", "pkg.dev.set_exc_info"}
    assert next(e for e in api.entries if e.api_id == "pkg.dev.set_exc_info").signature == (
        "set_exc_info(logger, name, event)"
    )


def test_the_members_an_automodule_lists_are_documented(tmp_path: Path) -> None:
    """rich's ``.. automodule:: rich.traceback`` with ``:members: Traceback, install``: those
    two are documented (``install`` was a "helper" nothing publishes, left out of README.LLM's
    first contexts); a bare ``:members:`` adds ``module.*``."""
    from docmentor.sources.autodoc import documented_paths

    make_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/traceback.py": """
                class Traceback:
                    \"\"\"A traceback.\"\"\"
                def install(width: int = 100) -> None:
                    \"\"\"Install the handler.\"\"\"
                def other() -> None: ...
            """,
        },
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(
        ".. automodule:: pkg.traceback\n    :members: Traceback, install\n    :show-inheritance:\n\n"
        "Text.\n\n.. automodule:: pkg\n    :members:\n",
        encoding="utf-8",
    )
    paths = documented_paths(docs)
    # a bare `:members:` documents what autodoc shows there: `pkg.*` (the surface says which)
    assert paths == [
        "pkg.traceback",
        "pkg.traceback.Traceback",
        "pkg.traceback.install",
        "pkg.traceback.__doc__",  # the docstring it shows: the surface reads its directives
        "pkg",
        "pkg.*",
        "pkg.__doc__",
    ]
    api = load_api("pkg", search_paths=[tmp_path], documented=paths)
    install = api.by_id["pkg.traceback.install"]
    assert install.documented and install.internal is None
    assert api.by_id["pkg.traceback.other"].internal == "helper"


def test_the_directives_of_a_module_docstring_an_automodule_shows_document(tmp_path: Path) -> None:
    """(a watchdog tour) ``.. automodule:: pkg.events`` shows the module's docstring, and
    that docstring's ``.. autoclass:: Handler`` documents ``pkg.events.Handler`` (read in the
    module, as Sphinx does): watchdog's classes were "unreached" and ranked down. A ``..
    module::`` shows no docstring, and a docstring the docs never show documents nothing."""
    from docmentor.sources.autodoc import documented_paths

    make_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/events.py": '''
                """:module: pkg.events

                .. autoclass:: Handler
                   :members:

                .. autofunction:: pkg.events.dispatch
                """
                from pkg.util import Helper  # imported for its own use: no path to it

                class Handler:
                    """Handles events."""
                    def on_moved(self, event: object) -> None:
                        """Called when a file is moved."""
                def dispatch(event: object) -> None:
                    """Dispatch an event."""
            ''',
            "pkg/polling.py": '''
                """.. autoclass:: Poller"""
                class Poller:
                    """Polls."""
            ''',
            "pkg/shown.py": '''
                """.. autoclass:: Shown"""
                class Shown:
                    """Shown."""
            ''',
            "pkg/util.py": "class Helper: ...\n",
        },
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(
        ".. automodule:: pkg.events\n\n.. module:: pkg.polling\n\n.. currentmodule:: pkg.shown\n",
        encoding="utf-8",
    )
    paths = documented_paths(docs)
    assert paths == ["pkg.events", "pkg.events.__doc__", "pkg.polling"]
    api = load_api("pkg", search_paths=[tmp_path], documented=paths)
    assert api.by_id["pkg.events.Handler"].documented
    assert api.by_id["pkg.events.Handler.on_moved"].documented  # its `:members:`
    assert api.by_id["pkg.events.dispatch"].documented
    assert not api.by_id["pkg.polling.Poller"].documented  # `.. module::` shows no docstring
    assert not api.by_id["pkg.shown.Shown"].documented
    assert "pkg.events.__doc__" not in api.by_id


def test_a_module_that_star_imports_re_exports_what_it_brings(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg import validators, tools\n",
            "pkg/_impl.py": """
                __all__ = ["instance_of", "gt"]
                def instance_of(type):
                    \"\"\"Check the type.\"\"\"
                def gt(value):
                    \"\"\"Greater than.\"\"\"
                def hidden(): ...
            """,
            "pkg/_helpers.py": 'def helper():\n    """Help."""\n',
            "pkg/validators.py": "from pkg._impl import *\n",  # attrs.validators: `from attr.validators import *`
            "pkg/tools.py": 'from pkg._helpers import helper\n\ndef tool():\n    """A tool."""\n',
        },
    )
    assert (
        api.resolve("pkg.validators.instance_of") is not None and api.resolve("pkg.validators.gt") is not None
    )
    assert api.resolve("pkg.validators.hidden") is None  # not in what the star brings (__all__)
    assert api.resolve("pkg.tools.tool") is not None
    assert api.resolve("pkg.tools.helper") is None  # a plain import in a module without __all__: not its API


def test_a_partial_has_the_signature_inspect_gives_it(tmp_path: Path) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from functools import partial
                def f(a, b, c, *, d=0):
                    \"\"\"F.\"\"\"
                mid = partial(f, b=2)  # b and what follows it become keyword-only
                va = partial(f, args=1)  # no parameter of that name: data
                class C:
                    def m(self, a, b=1):
                        \"\"\"M.\"\"\"
                    pm = partial(m, b=2)  # no method: a partial in a class body does not bind self
                __all__ = ["f", "mid", "va", "C"]
            """,
        },
    )
    by_id = {e.api_id: e for e in api.entries}
    assert by_id["pkg.mid"].signature == "mid(a, *, b=2, c, d=0)"
    assert [(p.name, p.kind, p.default) for p in by_id["pkg.mid"].parameters] == [
        ("a", "positional or keyword", None), ("b", "keyword-only", "2"), ("c", "keyword-only", None),
        ("d", "keyword-only", "0"),
    ]  # fmt: skip
    assert by_id["pkg.va"].kind == by_id["pkg.C.pm"].kind == "attribute"


def test_a_classes_attributes_section_describes_its_fields_and_a_returns_sentence_stays_whole(
    tmp_path: Path,
) -> None:
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                import dataclasses

                @dataclasses.dataclass
                class Forecast:
                    """A forecast.

                    Attributes:
                        city: The city it is for.
                        days (int): How many days it covers.
                    """

                    city: str
                    days: int = 1

                class SkyError(Exception):
                    """The service refused.

                    Attributes:
                        status: The HTTP status it answered.
                    """

                    def __init__(self, message: str, status: int) -> None:
                        super().__init__(message)
                        self.status = status

                class Box:
                    """A box.

                    :param size: How big.

                    Attributes:
                        size: The size it has.
                    """

                    def __init__(self, size: int) -> None:
                        self.size = size

                class Estimator:
                    """A fitted model.

                    Parameters
                    ----------
                    alpha : float
                        How much to shrink.

                    Attributes
                    ----------
                    coef_ : list
                        The fitted coefficients.
                    """

                    def __init__(self, alpha: float = 1.0) -> None:
                        self.alpha = alpha
                        self.coef_: list[float] = []

                class Converter:
                    """A converter.

                    Attributes:
                        Converter.stash (dict): What it keeps aside.
                    """

                    def __init__(self) -> None:
                        self.stash = {}

                class Group:
                    """A task group.

                    :ivar cancel_scope: the cancel scope inherited by all child tasks
                    :vartype cancel_scope: CancelScope
                    """

                    cancel_scope: object

                import enum

                class Mode(enum.IntEnum):
                    """How to sort.

                    Attributes
                    ----------
                    FLOAT, F
                        Read numbers as floats.
                    INT, I (default)
                        Read numbers as integers.
                    level (int, default 0)
                        How loud.
                    """

                    FLOAT = F = 1
                    INT = I = 0
                    level = 3
                    default = 5

                def get(city: str) -> "Forecast":
                    """Get one.

                    Args:
                        city: Where.

                    Returns:
                        A :class:`Forecast`.
                    """
            ''',
        },
    )
    described = {e.api_id: e.description for e in api.entries}
    box = api.resolve("pkg.Box")
    assert box is not None and {p.name: p.description for p in box.parameters}["size"].startswith("How big.")
    assert described["pkg.Forecast.city"] == "The city it is for."
    assert described["pkg.Estimator.coef_"] == "The fitted coefficients."  # NumPy style
    assert described["pkg.Forecast.days"] == "How many days it covers."
    assert described["pkg.SkyError.status"] == "The HTTP status it answered."
    # Sphinx fields (an anyio tour: TaskGroup's `:ivar cancel_scope:` reached no attribute)
    assert described["pkg.Group.cancel_scope"] == "the cancel scope inherited by all child tasks"
    # an attribute named with its class (a Python-Markdown tour: `Markdown.htmlStash (…): …`)
    assert described["pkg.Converter.stash"] == "What it keeps aside."
    # a NumPy item naming several attributes, a remark after them (the natsort tour: `ns`'s
    # forty flags were described by nothing)
    assert described["pkg.Mode.FLOAT"] == "Read numbers as floats."  # F: its alias
    assert described["pkg.Mode.INT"] == "Read numbers as integers."
    assert described["pkg.Mode.level"] == "How loud." and described["pkg.Mode.default"] == ""
    error = api.resolve("pkg.SkyError")
    assert error is not None and {p.name: p.description for p in error.parameters}["status"] == (
        "The HTTP status it answered."
    )
    get = api.resolve("pkg.get")
    assert (
        get is not None
        and get.returns is not None
        and "class:`Forecast`" not in get.returns.description.replace(":class:", "")
    )
    assert get.returns.description.startswith("A ") and "Forecast" in get.returns.description


def test_an_enumerations_other_names_for_one_member_are_that_members_aliases(tmp_path: Path) -> None:
    # the natsort tour: `ns` defines IGNORECASE = IC = …, forty entries for twenty flags
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                import enum
                import itertools

                _counter = itertools.count(0)

                class Base(enum.IntFlag):
                    """Flags of the library."""

                class Mode(Base):
                    """How to sort.

                    Attributes
                    ----------
                    INT, I (default)
                        Read numbers as integers.
                    IGNORECASE, IC
                        Ignore case.
                    """

                    IGNORECASE = IC = 1 << next(_counter)
                    PATH = P = 1 << next(_counter)
                    DEFAULT = 0
                    INT = I = 0

                class Limits:
                    """Not an enumeration: two settings that start equal."""

                    READ = WRITE = 5

                class Flag:
                    """The package's own class of that name, no enumeration."""

                class Switch(Flag):
                    on = hidden = False

                class Level(enum.Enum):
                    """Members with attributes of their own."""

                    def __init__(self, value):
                        self.verbose = False
                        self.weight = 1

                    QUIET = False
                    LOW = 1
                    FIRST = enum.auto(); SECOND = enum.auto()  # noqa: E702
                    HIGH = 2
                    LOUD = 2
                    """The loudest level."""

                class Color(enum.Enum):
                    """Python's AutoNumber recipe: every member a value of its own."""

                    def __new__(cls):
                        obj = object.__new__(cls)
                        obj._value_ = len(cls.__members__) + 1
                        return obj

                    RED = ()
                    GREEN = ()
            ''',
        },
    )
    ids = {e.api_id for e in api.entries}
    ignore_case, default = api.resolve("pkg.Mode.IGNORECASE"), api.resolve("pkg.Mode.DEFAULT")
    assert ignore_case is not None and default is not None
    assert "pkg.Mode.IC" not in ids and "pkg.Mode.IC" in ignore_case.aliases
    assert "pkg.Mode.P" not in ids and "pkg.Mode.PATH" in ids
    assert {"pkg.Mode.INT", "pkg.Mode.I"} <= set(default.aliases)  # the same literal, another line
    assert ignore_case.description == "Ignore case."
    assert default.description == "Read numbers as integers."  # documented under its other names
    assert {"pkg.Limits.READ", "pkg.Limits.WRITE"} <= ids  # a plain class's names stay apart
    assert {"pkg.Switch.on", "pkg.Switch.hidden"} <= ids  # a base merely named Flag
    # members apart from what __init__ sets on each, and from each other unless Python merges them
    assert {"pkg.Level.QUIET", "pkg.Level.LOW", "pkg.Level.FIRST", "pkg.Level.SECOND"} <= ids
    high = api.resolve("pkg.Level.HIGH")
    assert high is not None and "pkg.Level.LOUD" in high.aliases
    assert high.description == "The loudest level."  # said under its other name
    assert {"pkg.Color.RED", "pkg.Color.GREEN"} <= ids  # values made by __new__


def test_a_docstring_the_module_assigns_to_an_objects_doc_describes_it(tmp_path: Path) -> None:
    # the natsort tour: `natsort_key = natsort_keygen()` then `natsort_key.__doc__ = """…"""`
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                import functools
                import sys
                from os.path import join

                def keygen(alg=0):
                    """Make a sort key."""
                    return functools.partial(sorted, key=alg)

                key = keygen()
                key.__doc__ = """key(val)
                The default natural sorting key.

                It is :func:`keygen` with default values.
                """

                if sys.platform == "win32":
                    def browse(path): ...
                else:
                    def browse(path): ...
                browse.__doc__ = """Sort as the file browser does."""

                def own():
                    """Its own words."""
                own.__doc__ = """Words assigned later."""

                join.__doc__ = """Not this module's to document."""
                LIMIT = 3
                LIMIT.__doc__ = f"computed {LIMIT}"
                SIZE = 5
                SIZE.__doc__ = "An int's cannot be set."

                def old(a): ...
                old.__doc__ = """First words, replaced."""
                old.__doc__ = """old(a) (deprecated)
                Use new instead.
                """
            ''',
            "pkg/bom.py": '\ufeffdef scan(): ...\n\n\nscan.__doc__ = "Read past a byte-order mark."\n',
        },
    )
    described = {e.api_id: e.description for e in api.entries}
    assert described["pkg.key"] == "The default natural sorting key."  # its signature line left out
    assert described["pkg.browse"] == "Sort as the file browser does."
    assert described["pkg.own"] == "Its own words."  # a docstring of its own wins
    assert described["pkg.LIMIT"] == ""  # no string literal: nothing read
    assert described["pkg.SIZE"] == ""  # a literal's __doc__ cannot be set: no words of it
    # the last assignment holds; a first line that is more than the signature is kept
    assert described["pkg.old"] == "old(a) (deprecated) Use new instead."
    assert described["pkg.bom.scan"] == "Read past a byte-order mark."


def test_a_name_bound_in_several_branches_of_an_if_is_what_the_interpreter_binds(tmp_path: Path) -> None:
    # the pyserial tour: `serial.Serial` is imported from serialposix, serialwin32 or serialjava
    # by platform, and static reading took the last branch's (Java) class
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                import sys
                from pkg.common import parse
                from pkg.channel import open_channel as open_channel

                if sys.platform != "no-such-platform":
                    from pkg.posix import Port
                else:
                    from pkg.java import Port

                if sys.platform == "no-such-platform":
                    from pkg.java import Device
                else:
                    from pkg.posix import Device

                if sys.platform == "no-such-platform":
                    from pkg.java import open_port
                elif sys.maxsize > 0:
                    from pkg.posix import open_port
                else:
                    def open_port(): ...

                if sys.version_info >= (3,):
                    from json import loads
                else:
                    from pkg.common import parse as loads

                if sys.platform == "no-such-platform":
                    from pkg.broken import Broken
                else:
                    from pkg.java import Port as Broken

                from typing import TYPE_CHECKING

                def _final_impl(cls):
                    return cls

                if TYPE_CHECKING:  # static reading's alias of typing's cannot be resolved here
                    from typing import final
                else:
                    final = _final_impl
            """,
            "pkg/common.py": """
                def parse(text):
                    \"\"\"Parse it.\"\"\"

                class PortError(Exception):
                    \"\"\"A port failed.\"\"\"
            """,
            "pkg/posix.py": """
                from pkg.common import PortError

                class Port:
                    \"\"\"A port on a POSIX system.\"\"\"

                    def read(self, size=1):
                        \"\"\"Read bytes.\"\"\"

                def open_port():
                    \"\"\"Open one.\"\"\"

                class Device:
                    \"\"\"A device on POSIX.\"\"\"

                    def open(self):
                        \"\"\"Open it.\"\"\"
                        raise PortError("posix open failed")
            """,
            "pkg/java.py": """
                from pkg.common import PortError

                class Port:
                    \"\"\"A port through Java.\"\"\"

                    def read(self, size=1):
                        \"\"\"Read bytes through Java.\"\"\"

                def open_port():
                    \"\"\"Open one through Java.\"\"\"

                class Device:
                    \"\"\"A device on Java.\"\"\"

                    def open(self):
                        \"\"\"Open it.\"\"\"
                        raise PortError("java open failed")
            """,
            "pkg/broken.py": "raise RuntimeError('not on this platform')\n",
            "pkg/channel.py": """
                import sys

                def _open(size):
                    \"\"\"Open a channel.\"\"\"

                class _Generic:
                    def __init__(self, fn):  # as trio's: the module and name it is shown under
                        self.fn, self.__module__, self.__qualname__ = fn, "pkg", "open_channel"

                if sys.platform == "no-such-platform":
                    def open_channel(size): ...
                else:
                    open_channel = _Generic(_open)
            """,
        },
    )
    # its `__module__` names where it is re-exported, not where it is defined: read as written
    assert api.resolve("pkg.channel.open_channel") is not None
    port, read, opener = api.resolve("pkg.Port"), api.resolve("pkg.Port.read"), api.resolve("pkg.open_port")
    assert port is not None and port.api_id == "pkg.posix.Port"
    assert read is not None and read.api_id == "pkg.posix.Port.read"
    assert opener is not None and opener.api_id == "pkg.posix.open_port"
    assert api.resolve("pkg.loads") is None  # the standard library's, not the package's
    broken = api.resolve("pkg.Broken")  # the module the other branch imports cannot be imported
    assert broken is not None and broken.api_id == "pkg.java.Port"
    # what the other branches bind, for another platform: no API users call here, its members
    # neither; what some name binds at run time (`Broken` is java's Port) stays
    internal = {e.api_id: e.internal for e in api.entries}
    assert internal["pkg.java.open_port"] == "other platform"
    assert internal["pkg.java.Device"] == internal["pkg.java.Device.open"] == "other platform"
    assert internal["pkg.posix.Device"] is None and internal["pkg.posix.Device.open"] is None
    error = api.resolve("pkg.common.PortError")  # this platform's raise shown first
    assert error is not None and error.raised.index("posix open failed") < error.raised.index(
        "java open failed"
    )
    assert internal["pkg.posix.Port"] is None and internal["pkg.posix.Port.read"] is None
    assert internal["pkg.java.Port"] is None and internal["pkg.java.Port.read"] is None
    final = api.resolve("pkg.final")  # read, not a crash on the alias static reading made
    assert final is not None and final.api_id == "pkg._final_impl"


def test_a_rebound_name_reaches_its_re_exports_and_odd_imports_change_nothing(tmp_path: Path) -> None:
    # a review of the pyserial fix: `pkg.comports`, listed in __all__, kept the last branch's
    # function; a module that takes stdout, or fails to import, must not cost the others
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.ports import comports
                from pkg import loud
                __all__ = ["comports"]
            """,
            "pkg/ports.py": """
                import os
                __all__ = ["comports"]
                if os.name == "posix":
                    from pkg._posix import comports
                else:
                    from pkg._java import comports
            """,
            "pkg/_posix.py": 'def comports():\n    """Ports of a POSIX system."""\n',
            "pkg/_java.py": 'def comports():\n    """Ports through Java."""\n',
            "pkg/loud.py": """
                import io
                import os
                import sys
                sys.stdout = io.StringIO()  # takes what the probe would print
                if os.name == "posix":
                    from pkg._posix import comports as scan
                else:
                    from pkg._java import comports as scan
            """,
            "pkg/fails.py": """
                import os
                __all__ = ["scan"]
                if os.name == "posix":
                    from pkg._posix import comports as scan
                    raise ImportError("no such driver here")
                else:
                    from pkg._java import comports as scan
            """,
        },
    )
    for path in ("pkg.comports", "pkg.ports.comports"):  # pkg's import of loud took stdout
        found = api.resolve(path)
        assert found is not None and found.api_id == "pkg._posix.comports", path
    fails = api.resolve("pkg.fails.scan")  # its module cannot be imported: read as written
    assert fails is not None and fails.api_id == "pkg._java.comports"


def test_a_paragraph_pointing_back_at_code_left_out_is_left_out_too() -> None:
    """humanize's precisedelta: the lead-in "A custom format can be specified:" goes with its
    doctest, and "Instead, the minimum_unit can be changed" after it would then follow the
    summary as a non sequitur. A paragraph after code that does not point back stays."""
    from docmentor.library.surface.docstrings import prose_paragraphs

    doc = (
        "Return a precise representation of a timedelta.\n\n"
        ">>> precisedelta(delta)\n'1 hour'\n\n"
        "A custom format can be specified to control the fraction:\n\n"
        ">>> precisedelta(delta, format='%0.4f')\n'1.0000 hours'\n\n"
        "Instead, the minimum unit can be changed to have a better resolution.\n\n"
        "The function accepts negative deltas as well."
    )
    assert prose_paragraphs(doc) == ["The function accepts negative deltas as well."]
    kept = "Sum.\n\nUsage::\n\n    f()\n\nIt does things, and instead of failing it returns None."
    assert prose_paragraphs(kept) == ["It does things, and instead of failing it returns None."]


def test_code_titled_cross_references_and_leading_dot_targets_read_as_sphinx_shows_them() -> None:
    """mkdocstrings' [`IsNumeric`][dirty_equals.IsNumeric] is its code title (the text was
    split at the code span before, and the brackets stayed); Sphinx's :class:`.Serializer`
    finds the class by its last part and shows no dot."""
    from docmentor.library.surface.docstrings import display, plain

    said = "Inherits from [`IsNumeric`][dirty_equals.IsNumeric]; works like :class:`.Serializer`."
    assert display(said) == "Inherits from `IsNumeric`; works like `Serializer`."
    assert plain(said) == "Inherits from `IsNumeric`; works like Serializer."
    assert display(":doc:`./usage`") == "usage"  # a page's path keeps its reading


def test_a_class_whose_bases_in_the_package_take_nothing_is_called_with_nothing(tmp_path: Path) -> None:
    """itsdangerous's NoneAlgorithm(SigningAlgorithm): no __init__ anywhere in its package
    bases, so `NoneAlgorithm()`; a base from outside (Exception) may take arguments: `(...)`."""
    s = surface(
        tmp_path,
        {
            "algo/__init__.py": """
                class SigningAlgorithm:
                    def get_signature(self, key, value): ...

                class NoneAlgorithm(SigningAlgorithm):
                    '''No signature.'''

                class Err(Exception):
                    '''An error.'''

                class _Meta(type):
                    def __call__(cls, *a, **k): ...

                class _Model(metaclass=_Meta):
                    pass

                class User(_Model):
                    '''Made by its base's metaclass, which may take anything.'''

                class Token(SigningAlgorithm):
                    '''Made by its own __new__.'''

                    def __new__(cls, value): ...
            """
        },
        "algo",
    )
    sigs = {e.name: e.signature for e in s.entries if e.kind == "class"}
    assert sigs["NoneAlgorithm"] == "NoneAlgorithm()" and sigs["Err"] == "Err(...)"
    assert sigs["User"] == "User(...)" and sigs["Token"] == "Token(value)"  # what its __new__ takes


def test_an_attrs_class_takes_its_fields_as_parameters(tmp_path: Path) -> None:
    """attrs writes the ``__init__`` of a decorated class from its fields, which static
    analysis never sees: trio's ``CancelScope`` showed ``CancelScope(...)``. The fields are
    read as attrs reads them: annotated ones under ``define`` (not a ``ClassVar``), every
    ``attr.ib`` / ``attrs.field``, ``init=False`` left out, a leading underscore dropped, an
    ``alias``, ``kw_only`` ones last, a factory's call as the default, a base's fields first."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from typing import ClassVar

                import attr
                import attrs
                from attrs import define, field

                __all__ = ["Scope", "Old", "Child", "Frozen", "NoInit", "Plain", "Lock"]

                @attrs.define(eq=False)
                class Scope:
                    \"\"\"A scope.\"\"\"

                    name: str
                    _deadline: float = attrs.field(default=1.0, kw_only=True)
                    items: list = attrs.field(factory=list)
                    count: int = attrs.field(default=0, init=False)
                    limit: ClassVar[int] = 3

                    def __attrs_post_init__(self) -> None:
                        self.extra = 1

                @attr.s
                class Old:
                    p = attr.ib()
                    q = attr.ib(default=1, alias="qq")
                    r: int = 5  # not a field: attr.s reads only attr.ib without auto_attribs

                @define
                class Child(Scope):
                    size: int = field(default=2)

                @attrs.frozen(kw_only=True)
                class Frozen:
                    a: int
                    b: str = "x"

                @attrs.define(init=False)
                class NoInit:
                    a: int

                class Plain:
                    a: int = 1

                class Lock(Frozen):  # not decorated: attrs' __init__ of its base
                    pass
            """,
        },
    )
    assert (
        api.by_id["pkg.Scope"].signature == "Scope(name: str, items: list = list(), *, deadline: float = 1.0)"
    )
    assert [(p.name, p.required) for p in api.by_id["pkg.Scope"].parameters] == [
        ("name", True),
        ("items", False),
        ("deadline", False),
    ]
    assert api.by_id["pkg.Old"].signature == "Old(p, qq=1)"
    assert api.by_id["pkg.Child"].signature == (
        "Child(name: str, items: list = list(), size: int = 2, *, deadline: float = 1.0)"
    )
    assert api.by_id["pkg.Frozen"].signature == "Frozen(*, a: int, b: str = 'x')"
    assert api.by_id["pkg.NoInit"].signature == "NoInit(...)"  # no __init__ of attrs': unknown
    assert api.by_id["pkg.Plain"].signature == "Plain()"
    assert api.by_id["pkg.Lock"].signature == "Lock(*, a: int, b: str = 'x')"


def test_what_a_package_reexports_explicitly_from_another_is_its_api(tmp_path: Path) -> None:
    """typer's ``__init__`` re-exports click's ``echo``, ``Exit``, ``confirm`` by the redundant
    alias (``from click.utils import echo as echo``), and typer's users call ``typer.echo``:
    those objects are typer's API, named where defined, with typer's path as alias, a class with
    its members. A plain import of another package's name (``from ext.utils import helper``),
    or one inside a function, is not a re-export."""
    api = surface(
        tmp_path,
        {
            "ext/__init__.py": "",
            "ext/utils.py": """
                def echo(message: str, err: bool = False) -> None:
                    \"\"\"Print a message.\"\"\"

                def helper() -> None:
                    \"\"\"A helper.\"\"\"

                class Exit(RuntimeError):
                    \"\"\"Leave the program.\"\"\"

                    def __init__(self, code: int = 0) -> None:
                        self.exit_code = code

                    def describe(self) -> str:
                        return "exit"
            """,
            "cli/__init__.py": """
                \"\"\"A CLI library.\"\"\"
                from ext.utils import echo as echo
                from ext.utils import Exit as Exit
                from ext.utils import helper

                from .main import run as run


                def later():
                    from ext.utils import helper as helper
            """,
            "cli/main.py": """
                def run(fn) -> None:
                    \"\"\"Run a function as a command.\"\"\"
            """,
        },
        package="cli",
    )
    echo = api.by_alias["cli.echo"]
    assert (echo.api_id, echo.kind, echo.signature) == (
        "ext.utils.echo",
        "function",
        "echo(message: str, err: bool = False) -> None",
    )
    assert api.by_alias["cli.Exit"].signature == "Exit(code: int = 0)"
    assert "ext.utils.Exit.describe" in api.by_id
    assert "ext.utils.helper" not in api.by_id and "cli.helper" not in api.by_alias
    assert "cli.main.run" in api.by_id
    assert echo.foreign and not api.by_id["cli.main.run"].foreign
    # drift checks calls through the library's path; the other distribution's own names are
    # not the library's to judge (typer's docs call `click.group`, which typer does not have)
    from libtool import page_drift

    code = "import cli\nimport ext\ncli.echo('hi', colour=True)\next.group()\next.utils.other(1)\ncli.ecko('x')\n"
    found = [(f.kind, f.api) for f in page_drift(api, code, library="cli").findings]
    assert ("invalid_api_signature", "cli.echo") in found
    assert ("missing_api", "cli.ecko") in found
    assert not [api_ for _, api_ in found if api_.startswith("ext")]


def test_what_a_modules_main_guard_defines_is_no_api(tmp_path: Path) -> None:
    """rich's modules end in ``if __name__ == "__main__":`` demos that define classes and
    functions (``rich.traceback.foo``, ``rich.pretty.Thing``): they exist only when the file
    runs as a script, and are no API."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/panel.py": """
                class Panel:
                    \"\"\"A panel.\"\"\"

                if __name__ == "__main__":
                    class Demo:
                        pass

                    def show() -> None:
                        print(Panel())

                if "__main__" == __name__:
                    def other() -> None:
                        pass
            """,
        },
    )
    assert "pkg.panel.Panel" in api.by_id
    assert not {"pkg.panel.Demo", "pkg.panel.show", "pkg.panel.other"} & set(api.by_id)


def test_a_method_a_property_like_decorator_makes_is_a_property(tmp_path: Path) -> None:
    """werkzeug's ``Request.form`` is ``@cached_property`` (werkzeug's own, a subclass of
    ``property``): README.LLM said "a method", ``form(self)``, and agents wrote ``request.form()``."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.utils import cached_property

                __all__ = ["Request"]

                class Request:
                    \"\"\"A request.\"\"\"

                    @cached_property
                    def form(self) -> dict[str, str]:
                        \"\"\"The form parameters.\"\"\"
                        return {}

                    def get_data(self) -> bytes:
                        \"\"\"The body.\"\"\"
                        return b""
            """,
            "pkg/utils.py": """
                class cached_property(property):
                    \"\"\"A property evaluated once.\"\"\"
            """,
        },
    )
    form = api.by_id["pkg.Request.form"]
    assert (form.kind, form.signature) == ("property", "form: dict[str, str]")
    assert api.by_id["pkg.Request.get_data"].kind == "method"


def test_a_class_named_as_its_base_is_read_without_a_cycle(tmp_path: Path) -> None:
    """``from collections import OrderedDict`` then ``class OrderedDict(OrderedDict)``: griffe
    resolves the base to the class itself; reading attrs' fields must not walk that loop (a
    review found load_api raising RecursionError)."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from collections import OrderedDict

                __all__ = ["OrderedDict"]

                class OrderedDict(OrderedDict):
                    \"\"\"An ordered dict.\"\"\"
            """,
        },
    )
    assert api.by_id["pkg.OrderedDict"].kind == "class"


def test_keywords_a_function_takes_through_kwargs_keep_their_documentation(tmp_path: Path) -> None:
    """A python-dateutil tour: `parse(timestr, parserinfo=None, **kwargs)` documents
    `:param default:`, `:param ignoretz:`, … which it takes through `**kwargs`; they were
    dropped (README.LLM: `**kwargs (optional)`, no text). With `**kwargs` in the signature,
    a documented name the signature lacks is a keyword-only parameter, before `**kwargs`."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["parse", "strict"]

                def parse(timestr, parserinfo=None, **kwargs):
                    '''Parse a string.

                    :param timestr: The string.
                    :param default: The default datetime object.
                    :param ignoretz: Whether to ignore time zones.
                    :type ignoretz: bool
                    '''

                def strict(timestr):
                    '''Parse strictly.

                    :param timestr: The string.
                    :param stale: An old parameter, gone from the signature.
                    '''
            """,
        },
    )
    parse = api.by_id["pkg.parse"]
    assert [(p.name, p.kind) for p in parse.parameters] == [
        ("timestr", "positional or keyword"),
        ("parserinfo", "positional or keyword"),
        ("default", "keyword-only"),
        ("ignoretz", "keyword-only"),
        ("kwargs", "var-keyword"),
    ]
    ignoretz = parse.parameters[3]
    assert (ignoretz.description, ignoretz.type, ignoretz.required) == (
        "Whether to ignore time zones.",
        "bool",
        False,
    )
    assert parse.signature == "parse(timestr, parserinfo=None, **kwargs)"  # as written
    assert [p.name for p in api.by_id["pkg.strict"].parameters] == ["timestr"]  # no **kwargs: not taken


def test_a_fields_text_stops_at_the_doctest_after_it(tmp_path: Path) -> None:
    """A packaging tour: `SpecifierSet.contains`'s last field, `:param prereleases:`, held the
    six `>>> SpecifierSet(…)` lines after it (the Sphinx parser runs on over the blank line),
    served to agents as the parameter's text."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["contains"]

                def contains(item, prereleases=None):
                    '''Whether the item is contained.

                    :param item: The item to check for.
                    :param prereleases:
                        Whether or not to match prereleases.

                    >>> contains("1.2.3")
                    True
                    '''
            """,
        },
    )
    described = {p.name: p.description for p in api.by_id["pkg.contains"].parameters}
    assert described == {
        "item": "The item to check for.",
        "prereleases": "Whether or not to match prereleases.",
    }


def test_a_fields_text_stops_at_the_paragraph_after_the_field_list(tmp_path: Path) -> None:
    """A pluggy tour: `register`'s "Returns" held the paragraph after its field list ("If the
    plugin is already registered, raises …"); a field's own second paragraph stays."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["register", "configure"]

                def register(plugin, name=None):
                    '''Register a plugin and return its name.

                    :param name:
                        The name under which to register the plugin.

                    :returns:
                        The plugin name, or
                        ``None`` when it is blocked.

                    If the plugin is already registered, raises a :exc:`ValueError`.
                    '''

                def configure(level):
                    '''Configure it.

                    :param level: How loud.

                        Louder levels log more.
                    '''
            """,
        },
    )
    register = api.by_id["pkg.register"]
    assert (
        register.returns is not None
        and register.returns.description == "The plugin name, or ``None`` when it is blocked."
    )
    (level,) = api.by_id["pkg.configure"].parameters
    assert level.description == "How loud. Louder levels log more."


def test_a_docstring_that_opens_with_fields_is_described_by_the_prose_after_them(tmp_path: Path) -> None:
    """A urllib3 tour: `HTTPHeaderDict`'s docstring opens with `:param headers:` and `:param
    kwargs:`, then says what the class is at the margin. It showed as "a class" with no
    summary, and `**kwargs` held the class's prose; a field list alone still gives none."""
    from docmentor.library.surface.docstrings import prose

    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["Headers", "only_fields"]

                class Headers(dict):
                    '''
                    :param headers:
                        An iterable of field-value pairs.

                    :param kwargs:
                        Additional field-value pairs.

                    A ``dict`` like container for storing HTTP headers.

                    Field names are compared case-insensitively.
                    '''

                    def __init__(self, headers=None, **kwargs):
                        pass

                def only_fields(x):
                    '''
                    :param x: The value.

                        More about the value.
                    '''
            """,
        },
    )
    headers = api.by_id["pkg.Headers"]
    assert headers.description == "A ``dict`` like container for storing HTTP headers."
    assert {p.name: p.description for p in headers.parameters} == {
        "headers": "An iterable of field-value pairs.",
        "kwargs": "Additional field-value pairs.",
    }
    assert prose(headers.docstring or "") == "Field names are compared case-insensitively."
    only = api.by_id["pkg.only_fields"]
    assert only.description == ""
    assert only.parameters[0].description == "The value. More about the value."


def test_a_dataclass_with_init_false_is_called_as_its_base_s_init(tmp_path: Path) -> None:
    """An h11 tour: `@dataclass(init=False)` subclasses of a base with a hand-written
    `__init__(self, *, headers, status_code, …)` showed as `Response()` (griffe writes an
    `__init__` for every dataclass), so drift took `Response(headers=…)` for a wrong keyword.
    Their call is the base's; a dataclass that writes its `__init__` keeps its fields."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from dataclasses import dataclass

                __all__ = ["Response", "Point", "Bare"]


                @dataclass(init=False, frozen=True)
                class _Base:
                    headers: list
                    status_code: int

                    def __init__(self, *, headers: list, status_code: int, reason: bytes = b"") -> None:
                        object.__setattr__(self, "headers", headers)


                @dataclass(init=False, frozen=True)
                class Response(_Base):
                    '''A response.'''

                    def __post_init__(self) -> None:
                        pass


                @dataclass(frozen=True)
                class Point:
                    '''A point.'''

                    x: int
                    y: int = 0


                @dataclass(init=False)
                class Bare:
                    '''No __init__ anywhere: object's.'''

                    x: int = 0
            """,
        },
    )
    response = api.by_id["pkg.Response"]
    assert response.signature == "Response(*, headers: list, status_code: int, reason: bytes = b'')"
    assert [p.name for p in response.parameters] == ["headers", "status_code", "reason"]
    assert api.by_id["pkg.Point"].signature == "Point(x: int, y: int = 0)"
    assert [p.name for p in api.by_id["pkg.Bare"].parameters] == []


def test_a_class_that_is_its_own_value_is_shown_as_a_sentinel(tmp_path: Path) -> None:
    """An h11 tour: `class CLIENT(Sentinel, metaclass=Sentinel)` makes the class its own
    value (`conn.our_role is h11.CLIENT`); README.LLM showed `h11.CLIENT(...)` and "Returns:
    CLIENT - a new instance". A class whose metaclass is one of its bases is a sentinel."""
    from docmentor.library.knowledge.readme import _function

    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["Sentinel", "CLIENT", "Plain"]


                class Sentinel(type):
                    '''Makes a class its own type.'''

                    def __new__(cls, name, bases, namespace, **kwds):
                        v = super().__new__(cls, name, bases, namespace, **kwds)
                        v.__class__ = v
                        return v


                class CLIENT(Sentinel, metaclass=Sentinel):
                    '''The client role.'''


                class Plain:
                    '''An ordinary class.'''
            """,
        },
    )
    client = api.by_id["pkg.CLIENT"]
    assert client.internal == "sentinel"
    shown = _function(client)
    assert shown.startswith("pkg.CLIENT\n") and "is pkg.CLIENT" in shown and "a new instance" not in shown
    assert api.by_id["pkg.Plain"].internal != "sentinel" and "a new instance" in _function(
        api.by_id["pkg.Plain"]
    )
    assert api.by_id["pkg.Sentinel"].internal != "sentinel"


def test_bold_titles_and_bold_section_headings_in_a_docstring(tmp_path: Path) -> None:
    """A deepdiff tour: docstrings open with a bold title (`**DeepSearch**`) and head their
    NumPy-style parameters `**Parameters**` in bold, `name : what it is` with no type. The
    summary was "**DeepSearch**", the parameter list ran on as prose, and every parameter was
    undescribed."""
    from docmentor.library.surface.docstrings import prose

    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["Search", "load"]


                class Search:
                    '''
                    **Search**

                    Search inside objects to find the items matching your criteria.

                    **Parameters**

                    obj : The object to search within

                    verbose_level : int
                        How much to report.
                    '''

                    def __init__(self, obj, verbose_level=1):
                        pass


                def load(content):
                    '''
                    **load**
                    Load the pickled content.
                    '''
            """,
        },
    )
    search = api.by_id["pkg.Search"]
    assert search.description == "Search inside objects to find the items matching your criteria."
    assert prose(search.docstring or "") == ""  # the parameters are no prose
    described = {p.name: (p.description, p.type) for p in search.parameters}
    assert described == {
        "obj": ("The object to search within", None),
        "verbose_level": ("How much to report.", "int"),
    }
    assert api.by_id["pkg.load"].description == "Load the pickled content."


def test_attribute_directives_in_a_class_docstring_describe_its_fields(tmp_path: Path) -> None:
    """An h11 tour: its event classes describe their fields as `.. attribute:: method` blocks
    in the class docstring; `Request.method` was "an attribute of Request" and the
    constructor's `method` was undescribed. The directive's body (options left out)
    describes both; a parameter's own description stays."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["Request"]


                class Request:
                    '''The beginning of an HTTP request.

                    Fields:

                    .. attribute:: method

                       An HTTP method, e.g. ``b"GET"``.
                       Always a byte string.

                    .. attribute:: target
                       :type: bytes

                       The target of the request.

                    :param target: Where it goes.
                    '''

                    def __init__(self, *, method: bytes, target: bytes) -> None:
                        self.method = method
                        self.target = target
            """,
        },
    )
    described = {p.name: p.description for p in api.by_id["pkg.Request"].parameters}
    assert described == {
        "method": 'An HTTP method, e.g. ``b"GET"``. Always a byte string.',
        "target": "Where it goes.",
    }
    assert api.by_id["pkg.Request.method"].description.startswith("An HTTP method")
    assert api.by_id["pkg.Request"].description == "The beginning of an HTTP request."


def test_review_a_classes_attributes_are_no_keywords_and_new_gives_an_instance(tmp_path: Path) -> None:
    """(review) with `**kwargs`, a class's documented attributes became keyword parameters;
    a base's `__new__ -> Base`, or one typed by a type variable, read as "Returns: Base";
    a warning read as an exception to catch."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                from typing import Type, TypeVar
                __all__ = ["Client", "Base", "Sub", "Node", "OldWarning"]
                _T = TypeVar("_T")

                class Client:
                    """A client.

                    Attributes:
                        timeout: How long it waits.
                    """

                    def __init__(self, name, **kwargs):
                        """Make one.

                        :param name: Its name.
                        :param retries: How often it retries.
                        """

                class Base:
                    """A base."""

                    def __new__(cls, name) -> "Base":
                        return object.__new__(cls)

                class Sub(Base):
                    """A sub."""

                class Node:
                    """A node."""

                    def __new__(cls: Type[_T], name) -> _T:
                        return object.__new__(cls)

                class OldWarning(DeprecationWarning):
                    """Old."""
            ''',
        },
    )
    client = api.by_id["pkg.Client"]
    assert [p.name for p in client.parameters] == ["name", "retries", "kwargs"]
    for name in ("Sub", "Node"):
        assert api.by_id[f"pkg.{name}"].returns is None, name
    assert not api.by_id["pkg.OldWarning"].exception


def test_a_named_tuple_is_called_with_its_fields(tmp_path: Path) -> None:
    """A cachetools tour: `class CacheInfo(collections.namedtuple("CacheInfo", "hits misses
    maxsize currsize"))` (a `NamedTuple` with typed fields in its stub) showed
    `CacheInfo(...)`. A named tuple takes its fields, in order, typed where a stub or the
    class says so, with their defaults."""
    make_package(
        tmp_path,
        {
            "nt/__init__.py": """
                import collections
                from typing import ClassVar, NamedTuple
                __all__ = ["Info", "Point", "Pair", "Own", "Func"]

                class Info(NamedTuple):
                    '''Stats.'''
                    hits: int
                    kind: ClassVar[str] = "info"
                    misses: int = 0

                class Point(collections.namedtuple("Point", "x, y")):
                    '''A point.'''

                class Pair(collections.namedtuple("Pair", ["left", "right"], defaults=(None,))):
                    '''Two things.'''

                class Own(collections.namedtuple("Own", "a b")):
                    '''Its own constructor.'''
                    def __new__(cls, a): ...

                class Func(NamedTuple("Func", [("x", int)])):
                    '''The functional form: not read here.'''
            """,
            "nt/__init__.pyi": """
                import collections
                from typing import ClassVar, NamedTuple
                class Info(NamedTuple):
                    hits: int
                    kind: ClassVar[str]
                    misses: int = ...
                class Point(collections.namedtuple("Point", "x, y")):
                    x: float
                    y: float
                class Pair(collections.namedtuple("Pair", ["left", "right"], defaults=(None,))): ...
                class Own(collections.namedtuple("Own", "a b")):
                    def __new__(cls, a: int) -> Own: ...
            """,
        },
    )
    api = load_api("nt", search_paths=[tmp_path])
    signatures = {e.name: e.signature for e in api.entries if e.kind == "class"}
    assert signatures["Info"] == "Info(hits: int, misses: int = 0)"
    assert signatures["Point"] == "Point(x: float, y: float)"
    assert signatures["Pair"] == "Pair(left, right=None)"
    assert signatures["Own"] == "Own(a: int)"  # its own __new__, not the fields
    assert signatures["Func"] == "Func(...)"  # review: not a NamedTuple with no fields


def test_an_attributes_doc_comment_is_its_docstring(tmp_path: Path) -> None:
    """Sphinx's ``#:`` doc comments (Flask documents its app's settings so; blinker's
    ``#: The name of this signal.`` above ``self.name = name``): the attribute's docstring,
    as autodoc shows it. Lines above the assignment, or one after it on its line; a plain
    comment is no doc, nor a ``#:`` separated from the assignment by another line."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["App", "LIMIT", "OTHER", "PLAIN", "URL", "TYPED"]

                #: How many at most.
                #: Counted per call.
                LIMIT = 10

                OTHER = 5  #: A number on its own line.
                URL = "http://x/#:frag"  # a plain comment
                TYPED: int  #: Annotated, no value.

                # just a comment
                PLAIN = 1

                class App:
                    #: The testing flag.
                    testing = False

                    #: Not about the next line.

                    debug = False

                    def __init__(self, name: str) -> None:
                        #: The name of this app.
                        self.name = name
            """,
        },
    )
    described = {e.api_id: e.description for e in api.entries if e.kind == "attribute"}
    assert described["pkg.LIMIT"] == "How many at most. Counted per call."
    assert described["pkg.OTHER"] == "A number on its own line."
    assert described["pkg.PLAIN"] == ""
    assert described["pkg.URL"] == ""  # `#:` inside a string is no doc comment (review)
    assert described["pkg.TYPED"] == "Annotated, no value."
    assert described["pkg.App.testing"] == "The testing flag."
    assert described["pkg.App.debug"] == ""
    assert described["pkg.App.name"] == "The name of this app."
    assert api.by_id["pkg.LIMIT"].docstring_line == 3


def test_classes_named_through_type_aliases_are_those_classes(tmp_path: Path) -> None:
    """(a pint tour) ``class Quantity(facets.PlainRegistry.Quantity)``, where the registry's
    ``Quantity: TypeAlias = PlainQuantity[Any]``, and ``pint.Quantity = UnitRegistry.Quantity``,
    whose ``Quantity: TypeAlias = Quantity`` reads the module's class: Python binds each name
    to the class; griffe saw attributes, so the class had no base (a "marker", none of its
    inherited methods) and ``pkg.Quantity`` was a wordless attribute."""
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.registry import Settings, UnitRegistry, Sub
                from pkg import settings
                Quantity = UnitRegistry.Quantity
                Typed = Settings.Quantity
                renderer = settings.DEFAULT_RENDERER
                \"\"\"The renderer used unless another is given.\"\"\"
                __all__ = ["UnitRegistry", "Quantity", "Typed", "Sub", "renderer"]
            """,
            "pkg/settings.py": """
                from pkg.registry import Quantity as HtmlRenderer
                DEFAULT_RENDERER = HtmlRenderer
            """,
            "pkg/facets.py": """
                from typing import Any, Generic, TypeAlias, TypeVar
                T = TypeVar("T")

                class PlainQuantity(Generic[T]):
                    \"\"\"A number with units.\"\"\"
                    def to(self, unit: str) -> "PlainQuantity[T]":
                        \"\"\"Return the quantity in other units.\"\"\"

                class PlainRegistry:
                    Quantity: TypeAlias = PlainQuantity[Any]
            """,
            "pkg/registry.py": """
                from typing import TypeAlias
                from pkg import facets

                class Quantity(facets.PlainRegistry.Quantity):
                    pass

                class UnitRegistry:
                    \"\"\"The units known.\"\"\"
                    Quantity: TypeAlias = Quantity

                class Settings:
                    Quantity: type = Quantity  # a typed setting: no alias

                class Outer:
                    class Quantity:
                        pass
                    class Registry:
                        Quantity: TypeAlias = Quantity  # the module's: no enclosing class's names

                class Sub(Outer.Registry.Quantity):
                    pass
            """,
        },
    )
    quantity = api.resolve("pkg.Quantity")
    assert quantity is not None and (quantity.api_id, quantity.kind) == ("pkg.registry.Quantity", "class")
    assert quantity.internal is None  # its base resolved: no marker
    to = api.resolve("pkg.Quantity.to")
    assert to is not None and to.api_id == "pkg.facets.PlainQuantity.to"
    assert to.description == "Return the quantity in other units."
    typed = api.resolve("pkg.Typed")
    assert typed is not None and typed.kind == "attribute"
    # (review) a nested class's alias reads the module's class, as Python does
    sub_to = api.resolve("pkg.Sub.to")
    assert sub_to is not None and sub_to.api_id == "pkg.facets.PlainQuantity.to"
    # (review) a module's constant on the way stays a setting: its words are its own
    renderer = api.resolve("pkg.renderer")
    assert renderer is not None and renderer.kind == "attribute"
    assert renderer.description == "The renderer used unless another is given."


def test_a_taken_definition_without_words_is_described_by_the_other_branchs(tmp_path: Path) -> None:
    # the wcwidth tour: `width` is the C extension's when it loads (its stub has no
    # docstring), the pure-Python fallback's otherwise, and only the fallback says what it does
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": """
                try:
                    from pkg import _speedups
                except ImportError:
                    _speedups = None

                if _speedups is not None:
                    from pkg._speedups import width, height
                else:
                    from pkg._pure import width, height
            """,
            "pkg/_speedups.py": """
                def width(text): ...

                def height(text):
                    \"\"\"Rows, fast.\"\"\"
            """,
            "pkg/_pure.py": """
                def width(text):
                    \"\"\"Columns the text takes in a terminal.

                    :param text: what is printed.
                    \"\"\"

                def height(text):
                    \"\"\"Rows the text takes.\"\"\"
            """,
        },
    )
    width, height = api.resolve("pkg.width"), api.resolve("pkg.height")
    assert width is not None and width.api_id == "pkg._speedups.width"
    assert width.description == "Columns the text takes in a terminal."
    assert width.parameters[0].description == "what is printed."
    assert height is not None and height.description == "Rows, fast."  # its own words win


def test_a_word_reference_of_a_sphinx_docstring_reads_as_its_word(tmp_path: Path) -> None:
    # the wcwidth tour: "such as from XTVERSION_, ENQ_" is how Sphinx links words to targets
    # the docs define; a reader sees the words, not the underscores
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                def detect(term_program=True):
                    """Width as the terminal_ draws it, per Unicode__.

                    :param term_program: a terminal's name, such as from XTVERSION_, ENQ_, or
                        ``TERM_PROGRAM``; ``class_`` is code and stays.
                    :returns: columns, as XTVERSION_ says.
                    """

                def markdown(class_=None):
                    """Pick the class_ of an element.

                    Args:
                        class_: the class_ attribute, as written.
                    """
            ''',
        },
    )
    detect, markdown = api.resolve("pkg.detect"), api.resolve("pkg.markdown")
    assert detect is not None and markdown is not None
    assert detect.description == "Width as the terminal draws it, per Unicode."
    assert detect.parameters[0].description == (
        "a terminal's name, such as from XTVERSION, ENQ, or ``TERM_PROGRAM``; ``class_`` is code and stays."
    )
    assert detect.returns is not None and detect.returns.description == "columns, as XTVERSION says."
    # not written for Sphinx: a trailing underscore may be a Python name's
    assert markdown.description == "Pick the class_ of an element."
    assert markdown.parameters[0].description == "the class_ attribute, as written."


def test_a_field_of_a_generated_constructor_takes_its_class_docstrings_parameter_words(
    tmp_path: Path,
) -> None:
    # the wcwidth tour: HyperlinkParams documents its fields as `:param url:`, the named
    # tuple's generated constructor takes them, and each field was listed without words
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                import typing
                import attr

                class Params(typing.NamedTuple):
                    """Parsed parameters of a link.

                    :param url: The hyperlink URL.
                    :param params: Colon-separated metadata.
                    """

                    url: str
                    params: str = ""
                    terminator: str = "\\\\x07"

                @attr.s(auto_attribs=True)
                class Scope:
                    """A cancel scope.

                    Args:
                        deadline: When it is cancelled.
                    """

                    deadline: float = 0.0

                class Plain:
                    """A plain class.

                    :param label: What it is called.
                    """

                    def __init__(self, label):
                        self.label = label
            ''',
        },
    )
    described = {e.api_id: e.description for e in api.entries}
    assert described["pkg.Params.url"] == "The hyperlink URL."
    assert described["pkg.Params.params"] == "Colon-separated metadata."
    assert described["pkg.Params.terminator"] == ""  # not documented: no words
    assert described["pkg.Scope.deadline"] == "When it is cancelled."
    # a plain attribute may hold something else than the parameter it is named after
    assert described.get("pkg.Plain.label", "") == ""


def test_a_google_section_with_a_blank_line_under_its_heading_is_read(tmp_path: Path) -> None:
    # the boltons tour: "Args:", a blank line, then the items (napoleon reads them; griffe's
    # Google parser skipped the section, and every parameter lost its words and type)
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                def backoff(start, stop):
                    """Delays that grow.

                    Args:

                        start (float): Positive number for baseline.
                        stop (float): Positive number for maximum.

                    Returns:

                        list: the delays.
                    """
            ''',
        },
    )
    backoff = api.resolve("pkg.backoff")
    assert backoff is not None
    assert [(p.name, p.description, p.type) for p in backoff.parameters] == [
        ("start", "Positive number for baseline.", "float"),
        ("stop", "Positive number for maximum.", "float"),
    ]
    assert backoff.returns is not None and backoff.returns.description == "the delays."
    assert backoff.description == "Delays that grow."


def test_a_class_derived_from_a_standard_library_exception_is_an_exception(tmp_path: Path) -> None:
    # the boltons tour: socketutils' errors derive from socket.error and socket.timeout, which
    # are no builtins' names: they were listed as classes returning "a new instance"
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                import socket
                from concurrent.futures import TimeoutError as FutureTimeout

                class Error(socket.error):
                    """A socket failed."""

                class Timeout(socket.timeout, Error):
                    """Too slow."""

                class Late(FutureTimeout):
                    """A future was late."""

                class Thing(socket.socket):
                    """A socket, not an exception."""

                class Odd(antigravity.Fly):
                    """A base never imported to be looked at."""
            ''',
        },
    )
    exception = {e.api_id: e.exception for e in api.entries if e.kind == "class"}
    assert {e.api_id: e.internal for e in api.entries if e.exception} == dict.fromkeys(
        ("pkg.Error", "pkg.Timeout", "pkg.Late")
    )  # caught by users: no marker class
    assert exception == {
        "pkg.Error": True,
        "pkg.Timeout": True,
        "pkg.Late": True,
        "pkg.Thing": False,
        "pkg.Odd": False,
    }


def test_a_name_the_module_deletes_is_no_api(tmp_path: Path) -> None:
    # the boltons tour: statsutils makes its functions in a loop, then `del attr, func`; the
    # catalog listed `statsutils.func`, which the module no longer has
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                def _make(name):
                    def made(values):
                        return values
                    return made

                for attr in ("mean", "median"):
                    func = _make(attr)
                    func.__doc__ = "Made."
                    globals()[attr] = func
                del attr
                del func

                def kept():
                    """Stays."""

                LIMIT = 3
                del LIMIT
                LIMIT = 4
            ''',
        },
    )
    assert api.resolve("pkg.func") is None and api.resolve("pkg.attr") is None
    assert api.resolve("pkg.kept") is not None
    assert api.resolve("pkg.LIMIT") is not None  # bound again after its del
    # whatever would list it: the docs' `.. automodule:: pkg` with `:members:`
    documented = load_api("pkg", search_paths=[tmp_path], documented=["pkg.func", "pkg.kept"])
    assert documented.resolve("pkg.func") is None and documented.resolve("pkg.kept") is not None


def test_a_submodule_the_package_deletes_its_name_of_is_still_api(tmp_path: Path) -> None:
    # a review: `from . import utils` … `del utils` only unbinds the name; `pkg.utils` imports
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": "from . import utils\nfrom .utils import helper\n\ndel utils\n",
            "pkg/utils.py": 'def helper():\n    """Helps."""\n\ndef other():\n    """Other."""\n',
        },
    )
    assert api.resolve("pkg.utils.other") is not None and api.resolve("pkg.helper") is not None


def test_a_base_path_from_the_library_never_imports_a_main_module() -> None:
    # a review: `class Boom(unittest.__main__.X)` ran unittest's discovery in docmentor itself
    from docmentor.library.surface.api_python_entry import standard_class

    assert standard_class("unittest.__main__.TestProgram") is None
    assert standard_class("venv.__main__.X") is None and standard_class("email._policybase.Policy") is None
    assert standard_class("socket.timeout") is TimeoutError


def test_a_sentence_that_opens_with_deprecated_marks_the_api(tmp_path: Path) -> None:
    # the pyee tour: "An exception internal to pyee. Deprecated in favor of PyeeError." was
    # no deprecation (only "… is deprecated …" was read)
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": '''
                class PyeeException(Exception):
                    """An exception internal to pyee. Deprecated in favor of PyeeError."""

                class Loud:
                    """DEPRECATED: use Quiet."""

                def undeprecated():
                    """Deprecated things are listed by this function."""

                def members():
                    """Deprecated and private members are skipped. Deprecated, experimental and
                    internal names are hidden. Deprecated (and pending) warnings are shown once."""

                def old_name():
                    """Deprecated alias of new_name."""

                class Quiet:
                    """Says nothing about deprecation."""
            ''',
        },
    )
    said = {e.api_id: e.deprecated for e in api.entries}
    assert said["pkg.PyeeException"] == "Deprecated in favor of PyeeError."
    assert said["pkg.Loud"] == "DEPRECATED: use Quiet."
    assert said["pkg.Quiet"] is None and said["pkg.undeprecated"] is None
    assert said["pkg.members"] is None  # (a review: "Deprecated and …" describes others)
    assert said["pkg.old_name"] == "Deprecated alias of new_name."
    import time

    from docmentor.library.surface.deprecation import _docstring_reason

    started = time.perf_counter()
    _docstring_reason("a " * 50_000, set())  # a long run of words: linear (57 s for 20,000 before)
    assert time.perf_counter() - started < 1


def test_a_deleted_name_bound_to_what_cannot_be_resolved_is_read(tmp_path: Path) -> None:
    # the trio bench: `from typing import TYPE_CHECKING` … `del TYPE_CHECKING` (an alias griffe
    # cannot resolve) stopped generate with an AliasResolutionError
    api = surface(
        tmp_path,
        {
            "pkg/__init__.py": 'from typing import TYPE_CHECKING\n\ndef run():\n    """Runs."""\n\ndel TYPE_CHECKING\n'
        },
    )
    assert api.resolve("pkg.run") is not None and api.resolve("pkg.TYPE_CHECKING") is None
