"""Examples whose objects the matcher could not type (issue 22): a pytest test's parameters
are the page's fixtures (typed by what the fixture returns or yields), and a guessed class
lacking a member reaches the one public subclass that defines it (``app`` guessed an
``App``; ``app.test_client()`` only its subclass has). On a throwaway package and its docs,
through the real ``generate``."""

from __future__ import annotations

from pathlib import Path

import pytest

from libtool import generated_kb

FILES = {
    "tinyweb/__init__.py": '''
        """A tiny web framework."""
        from tinyweb.app import Cli, Web
        from tinyweb.core import App
        from tinyweb.testing import TestClient

        __all__ = ["App", "Cli", "TestClient", "Web"]
    ''',
    "tinyweb/core.py": '''
        """What every application is."""


        class App:
            """The base application."""

            def route(self, rule: str) -> object:
                """Register a view for ``rule``."""
                return rule
    ''',
    "tinyweb/app.py": '''
        """Applications (their base written as imported from another module)."""
        from __future__ import annotations

        from tinyweb import core
        from tinyweb.testing import TestClient


        class Web(core.App):
            """The application users make."""

            def test_client(self) -> TestClient:
                """A client that sends requests without a server."""
                return TestClient(self)

            def serve(self, port: int) -> None:
                """Serve over HTTP."""


        class Cli(core.App):
            """An application run from the command line."""

            def serve(self, port: int) -> None:
                """Serve on a terminal."""
    ''',
    "tinyweb/testing.py": '''
        """Testing helpers."""


        class TestClient:
            """Sends requests to an application."""

            def __init__(self, app: object) -> None:
                self.app = app

            def fetch(self, path: str) -> str:
                """Fetch ``path`` and return the body."""
                return path

            def submit(self, path: str, data: dict) -> str:
                """Post ``data`` to ``path``."""
                return path
    ''',
    "docs/testing.md": """
        # Testing

        Make the application and a client for it in fixtures:

        ```python
        import pytest
        from tinyweb import Web

        @pytest.fixture
        def app():
            app = Web()
            yield app

        @pytest.fixture()
        def client(app):
            return app.test_client()
        ```

        Then ask for the client in a test:

        ```python
        def test_index(client):
            assert client.fetch("/") == "/"
        ```

        A fixture can be named apart from its function:

        ```python
        @pytest.fixture(name="poster")
        def make_poster(app):
            return app.test_client()

        def test_post(poster):
            poster.submit("/", {"a": 1})
        ```

        A helper that is no test nor fixture takes whatever it is given, and a test's
        parameter no fixture of the page provides is unknown:

        ```python
        def helper(client):
            return client.submit("/x", {})
        ```

        ```python
        def test_other(runner):
            runner.fetch("/")
        ```

        ```python
        def test_bad(:
        ```
    """,
    "docs/guessing.md": """
        # Without imports

        ```python
        tester = app.test_client()
        tester.fetch("/")
        ```

        Both kinds of application serve:

        ```python
        app.serve(8000)
        ```

        ```python
        app.route("/")
        ```
    """,
}

WEB_TEST_CLIENT = "tinyweb.app.Web.test_client"
FETCH = "tinyweb.testing.TestClient.fetch"
SUBMIT = "tinyweb.testing.TestClient.submit"
ROUTE = "tinyweb.core.App.route"


@pytest.fixture(scope="module")
def used(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, list[str]]]:
    """Each Python example's code and the APIs it credits, in page order."""
    root = tmp_path_factory.mktemp("tinyweb")
    kb = generated_kb(root, "tinyweb", FILES)
    return [(ex.code, ex.apis_used) for ex in sorted(kb.examples, key=lambda x: (x.path, x.line))]


def _credits(used: list[tuple[str, list[str]]], snippet: str) -> list[str]:
    found = [apis for code, apis in used if snippet in code]
    assert len(found) == 1, (snippet, used)
    return found[0]


def test_a_fixture_parameter_is_what_the_page_fixture_of_its_name_gives(
    used: list[tuple[str, list[str]]],
) -> None:
    # `app` is what the app fixture yields (a Web), so `app.test_client()` is Web's
    assert WEB_TEST_CLIENT in _credits(used, "def client(app)")
    # `client` is what the client fixture returns: Web.test_client's TestClient
    assert _credits(used, 'client.fetch("/")') == [FETCH]


def test_a_fixture_named_apart_from_its_function(used: list[tuple[str, list[str]]]) -> None:
    assert _credits(used, "poster.submit") == [WEB_TEST_CLIENT, SUBMIT]


def test_a_plain_function_or_unknown_fixture_parameter_is_nothing_known(
    used: list[tuple[str, list[str]]],
) -> None:
    assert _credits(used, "def helper(client)") == []
    assert _credits(used, "def test_other(runner)") == []


def test_a_guessed_class_reaches_the_one_subclass_defining_the_member(
    used: list[tuple[str, list[str]]],
) -> None:
    # `app` (never bound) is guessed an App by its name; App has no test_client, its one
    # subclass defining it (Web, whose base is written `core.App`) has; what it returns types on
    assert _credits(used, "tester = app.test_client()") == [WEB_TEST_CLIENT, FETCH]
    # the class's own member comes first
    assert _credits(used, 'app.route("/")') == [ROUTE]


def test_a_member_several_subclasses_define_credits_nothing(used: list[tuple[str, list[str]]]) -> None:
    # Web.serve and Cli.serve: which one `app.serve` is is unknown
    assert _credits(used, "app.serve(8000)") == []


def test_a_block_that_does_not_parse_credits_nothing(used: list[tuple[str, list[str]]]) -> None:
    assert _credits(used, "def test_bad(:") == []


MARKERS = {
    "hk/__init__.py": """
        '''Hooks.'''
        __all__ = ["Marker", "Response"]


        class Marker:
            '''Marks hook implementations.'''

            def __init__(self, project: str) -> None:
                self.project = project

            def __call__(self, function=None, tryfirst: bool = False):
                '''Mark ``function``; with ``tryfirst`` it runs before the others.'''
                return function


        class Response:
            '''A response.'''

            def __call__(self, environ, start_response):
                '''Answer a WSGI call.'''
    """,
    "docs/index.rst": """
        Hooks
        =====

        .. code-block:: python

            from hk import Marker, Response

            hookimpl = Marker("myproject")
            response = Response()

        First
        -----

        .. code-block:: python

            @hookimpl(tryfirst=True)
            def setup_project(config):
                return config

        Plain
        -----

        .. code-block:: python

            @hookimpl
            def plain(config):
                return config

        Inline
        ------

        .. code-block:: python

            @Marker("other")
            def inline(config):
                return config

        Served
        ------

        .. code-block:: python

            response(environ, start_response)
    """,
}


def test_an_instance_used_as_a_decorator_credits_its_call(tmp_path: Path) -> None:
    """A pluggy tour: `hookimpl = HookimplMarker("p")` in one block, `@hookimpl(tryfirst=True)`
    and `@hookimpl` in the next: 15 of 29 examples credited nothing. Decorating with an
    instance calls it: its documented `__call__` is what the block shows. (A plain call of
    an instance credits nothing more: measured, it cost werkzeug's set 0.0025 MRR.)"""
    kb = generated_kb(tmp_path, "hk", MARKERS)
    used = {ex.code.split("\n")[0]: ex.apis_used for ex in kb.examples}
    assert used["@hookimpl(tryfirst=True)"] == ["hk.Marker.__call__"]
    assert used["@hookimpl"] == ["hk.Marker.__call__"]
    assert used['@Marker("other")'] == ["hk.Marker", "hk.Marker.__call__"]  # made, then called
    assert used["response(environ, start_response)"] == []


GRAMMAR = {
    "gr/__init__.py": """
        '''Grammars.'''
        from __future__ import annotations
        __all__ = ["Element", "Literal", "Forward"]


        class Element:
            '''A grammar element.'''

            def parse(self, text: str) -> list:
                '''Parse ``text``.'''

            def __add__(self, other: Element) -> Element:
                return self

            def __radd__(self, other: str) -> Element:
                return self

            def __or__(self, other: Element) -> Element:
                return self

            def __invert__(self) -> Element:
                return self


        class Literal(Element):
            '''A literal string.'''

            def __init__(self, text: str) -> None:
                self.text = text


        class Forward(Element):
            '''An element defined later.'''

            def __ilshift__(self, other: Element) -> Forward:
                return self
    """,
    "docs/index.rst": """
        Grammars
        ========

        .. code-block:: python

            from gr import Literal, Forward

            greeting = Literal("hello") + Literal("world")
            greeting.parse("hello world")

        .. code-block:: python

            either = (Literal("a") | Literal("b"))
            either.parse("a")

        .. code-block:: python

            word = "say" + Literal("x")
            word.parse("say x")

        .. code-block:: python

            expr = Forward()
            expr <<= Literal("a") + Literal("b")
            expr.parse("ab")

        .. code-block:: python

            (~Literal("c")).parse("d")
    """,
}


def test_an_operator_on_library_objects_gives_what_its_special_method_returns(tmp_path: Path) -> None:
    """A pyparsing tour: grammars are built with `+`, `|`, `~` and `<<=`, and the method then
    called on the result (`parse_string`) was credited nowhere: it had no example and was
    left out of README.LLM. An operator's result is what the class's `__add__` (the right
    operand's `__radd__`, `__ilshift__` for `<<=`) returns."""
    kb = generated_kb(tmp_path, "gr", GRAMMAR)
    parse = "gr.Element.parse"
    credited = {ex.code.strip().split("\n")[-1]: ex.apis_used for ex in kb.examples}
    assert parse in credited['greeting.parse("hello world")']
    assert parse in credited['either.parse("a")']
    assert parse in credited['word.parse("say x")']
    assert parse in credited['expr.parse("ab")']
    assert parse in credited['(~Literal("c")).parse("d")']
