"""The Python API surface read by structure on throwaway packages (issue 22): a package's
function bound over its same-named submodule, CLI command objects, internals marked,
docstrings rendered as a reader sees them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import griffe

from docmentor.engine import Docmentor
from docmentor.library.examples.drift import drift_report
from docmentor.library.examples.matcher import match_examples
from docmentor.library.knowledge.purpose import doc_sections
from docmentor.library.models import Example
from docmentor.library.surface.api_python import ApiSurface, load_api
from docmentor.library.surface.api_python_shadow import MODULE_SUFFIX, local_object, shadowed_submodules
from docmentor.library.surface.docstrings import display, ended, readable_summary
from docmentor.library.surface.ref_titles import label_titles, titled_entries


def installed(root: Path, files: dict[str, str], package: str = "pkg") -> ApiSurface:
    """The surface of a package written under ``root`` (``{"pkg/__init__.py": source}``)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return load_api(package, search_paths=[root])


def example(code: str, example_id: str = "ex") -> Example:
    return Example(
        example_id=example_id,
        title=example_id,
        code=textwrap.dedent(code).lstrip(),
        language="python",
        source="docs",
        path="guide.md",
        line=10,
        complete=True,
    )


# -- a package's function bound over its same-named submodule ----------------------------------

RETRY_MODULE = """
    '''Retry strategies.'''

    class Retrying:
        '''Retry controller.'''
        def __init__(self, stop=None):
            self.retry = stop
        def call(self, fn):
            '''Call fn with retries.'''

    def retry_if_result(predicate):
        '''Retry when the predicate holds.'''
"""


def test_a_function_defined_in_init_over_a_same_named_submodule_is_the_api(tmp_path: Path) -> None:
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Retrying.'''
                from pkg.retry import Retrying, retry_if_result

                def retry(*dargs, backoff: float = 1.0, **dkw) -> Retrying:
                    '''Wrap a function with retrying.

                    :param backoff: the backoff factor.
                    '''
            """,
            "pkg/retry.py": RETRY_MODULE,
        },
    )
    entry = surface.resolve("pkg.retry")
    assert entry is not None
    assert (entry.api_id, entry.kind) == ("pkg.retry", "function")
    assert entry.signature == "retry(*dargs, backoff: float = 1.0, **dkw) -> Retrying"
    assert entry.description == "Wrap a function with retrying."
    assert [(p.name, p.description) for p in entry.parameters][1] == ("backoff", "the backoff factor.")
    assert surface.return_class("pkg.retry") == "pkg.retry.Retrying"
    module = surface.by_id["pkg.retry" + MODULE_SUFFIX]
    assert (module.kind, module.name, module.aliases) == ("module", "retry", [])
    assert module.description == "Retry strategies."
    # what a user is shown, and imports: the module's path, never its id's suffix
    from docmentor.library.find.import_paths import import_path
    from docmentor.library.knowledge.overview import _key_modules

    assert import_path(module.api_id, module.aliases) == "pkg.retry"
    assert "pkg.retry" in [m.name for m in _key_modules("pkg", list(surface.by_id.values()))]
    # the module's own members keep their paths
    assert surface.resolve("pkg.retry.retry_if_result") is surface.by_id["pkg.retry.retry_if_result"]
    assert "pkg.retry.retry_if_result" in surface.by_alias or "pkg.retry_if_result" in surface.by_alias


def test_a_function_imported_over_its_module_is_the_api_by_the_package_path(tmp_path: Path) -> None:
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.retry import Retrying, retry
                __all__ = ["Retrying", "retry"]
            """,
            "pkg/retry.py": RETRY_MODULE
            + """
    def retry(*, attempts: int = 3):
        '''Retry the decorated function.'''
""",
        },
    )
    entry = surface.resolve("pkg.retry")
    assert entry is not None
    assert (entry.api_id, entry.kind, entry.aliases) == ("pkg.retry.retry", "function", ["pkg.retry"])
    assert "pkg.retry" not in surface.by_id  # no module answers by that path
    assert surface.by_id["pkg.retry" + MODULE_SUFFIX].kind == "module"


def test_a_submodule_imported_after_the_binding_stays_the_module(tmp_path: Path) -> None:
    """Python sets the attribute when it first imports the submodule: a later import wins."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                def retry():
                    '''Overwritten below.'''

                import pkg.retry
            """,
            "pkg/retry.py": RETRY_MODULE,
        },
    )
    entry = surface.resolve("pkg.retry")
    assert entry is not None and entry.kind == "module" and entry.api_id == "pkg.retry"
    assert "pkg.retry" + MODULE_SUFFIX not in surface.by_id


def test_a_star_import_binds_the_submodule_s_same_named_function_over_it(tmp_path: Path) -> None:
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.retry import *\n",
            "pkg/retry.py": RETRY_MODULE
            + """
    __all__ = ["Retrying", "retry"]

    def retry(*, attempts: int = 3):
        '''Retry the decorated function.'''
""",
        },
    )
    entry = surface.resolve("pkg.retry")
    assert entry is not None and (entry.api_id, entry.kind) == ("pkg.retry.retry", "function")
    assert surface.by_id["pkg.retry" + MODULE_SUFFIX].kind == "module"


def test_examples_and_drift_reach_the_function_not_the_module(tmp_path: Path) -> None:
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                from .retry import Retrying

                def retry(fn=None, *, backoff: float = 1.0):
                    '''Wrap a function with retrying.'''
            """,
            "pkg/retry.py": RETRY_MODULE,
        },
    )
    examples = [
        example(
            """
            import pkg

            @pkg.retry(backoff=2)
            def fetch():
                pass
            """,
            "decorator",
        ),
        example("from pkg import retry\nretry(fetch, backof=2)\n", "misspelled"),
    ]
    match_examples(examples, surface, library="pkg")
    assert examples[0].apis_used == ["pkg.retry"]
    assert examples[1].apis_used == ["pkg.retry"]
    report = drift_report(examples, surface, library="pkg", version="1.0")
    found = [(f.kind, f.api_id, f.example_id) for f in report.findings]
    assert found == [("invalid_api_signature", "pkg.retry", "misspelled")], report.to_text()


def test_an_init_that_no_longer_parses_is_skipped_not_a_crash(tmp_path: Path) -> None:
    """The ``__init__`` is read again for its bindings: one that does not parse (changed
    since griffe read it) or cannot be decoded leaves griffe's reading, logged, no error."""
    init = tmp_path / "pkg" / "__init__.py"
    init.parent.mkdir()
    init.write_text('def retry():\n    """R."""\n', encoding="utf-8")
    (tmp_path / "pkg" / "retry.py").write_text('def x():\n    """X."""\n', encoding="utf-8")
    loader = griffe.GriffeLoader(search_paths=[tmp_path])
    root = loader.load("pkg")
    assert set(shadowed_submodules(root)) == {"retry"}
    assert local_object(root, "retry").is_function
    init.write_text("def retry(:\n", encoding="utf-8")
    assert shadowed_submodules(root) == {}
    init.write_bytes(b"\xff\xfe\x00bad")
    assert shadowed_submodules(root) == {}
    assert local_object(root, "retry") is None


# -- internals marked; CLI command objects ---------------------------------------------------

ROLES = {
    "pkg/__init__.py": """
        '''A tool.'''
        from pkg.core import (BaseAction, Color, DoAttempt, DoSleep, Length, Limits, PkgError, RetryAction,
                              connect, unlisted)
        __all__ = ["BaseAction", "Color", "DoAttempt", "DoSleep", "Length", "Limits", "PkgError", "RetryAction",
                   "connect"]
    """,
    "pkg/core.py": """
        import enum

        class DoAttempt:
            pass

        class DoSleep(float):
            pass

        class BaseAction:
            def __repr__(self):
                return type(self).__name__

        class RetryAction(BaseAction):
            NAME = "retry"
            def __init__(self, sleep):
                self.sleep = float(sleep)

        class Limits:
            '''Connection limits.'''
            def __init__(self, *, max_connections=None):
                self.max_connections = max_connections

        class PkgError(Exception):
            pass

        class Color(enum.Enum):
            RED = 1

        class Validator:
            error = None

        class Length(Validator):
            def __init__(self, min=None):
                self.min = min
            def __call__(self, value):
                return value

        def connect(uri: str) -> Limits:
            '''Connect.'''

        def unlisted():
            '''Imported, but not in __all__.'''
    """,
    "pkg/cli.py": """
        '''The command line.'''
        import functools

        CONTEXT_SETTINGS = dict(help_option_names=["-h"])

        class Command:
            def __init__(self, fn):
                self.fn = fn
                self.__doc__ = fn.__doc__
            def main(self, args=None):
                return self.fn()

        class Group(Command):
            def command(self):
                return Command

        def group(fn):
            return Group(fn)

        def verify_is_dict(value):
            return value

        @group
        def cli():
            '''The tool's commands.'''

        @cli.command()
        def insert(path, table, *, pk=None):
            '''Insert rows into a table.'''

        def cached(fn):
            @functools.wraps(fn)
            def inner(*a):
                return fn(*a)
            return inner

        @cached
        def lookup(key):
            '''Look a key up.'''
    """,
}


ROLES["pkg/tcli.py"] = """
    '''Commands registered on an application object that keeps them functions.'''

    class App:
        def __init__(self):
            self.commands = []
        def command(self):
            def register(fn):
                self.commands.append(fn)
                return fn
            return register
        def __call__(self):
            return self.commands

    class Registry:
        def add(self, fn):
            return fn

    app = App()
    hooks = Registry()

    @app.command()
    def serve(port: int = 8000):
        '''Serve the site.'''

    @hooks.add
    def on_start():
        '''A hook.'''
"""


def test_markers_instance_attributes_helpers_and_constants_are_marked(tmp_path: Path) -> None:
    for rel, text in ROLES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    surface = load_api("pkg", search_paths=[tmp_path], documented=["pkg.cli.verify_is_dict"])

    def internal(name: str) -> str | None:
        entry = surface.resolve(name)
        assert entry is not None, name
        return entry.internal

    # classes users construct, catch or read stay API; members- and parameter-less classes
    # and action classes over such a base are markers
    markers = ("DoAttempt", "DoSleep", "BaseAction", "RetryAction")
    assert [internal(f"pkg.{n}") for n in markers] == ["marker"] * 4
    users_call = ("Limits", "PkgError", "Color", "Length", "connect")  # Length: called (a validator)
    assert [internal(f"pkg.{n}") for n in users_call] == [None] * 5
    # module-level functions and values nothing publishes; what __init__, __all__ or the docs name is API
    assert internal("pkg.cli.CONTEXT_SETTINGS") == "constant"
    assert internal("pkg.cli.group") == "helper"
    assert internal("pkg.cli.verify_is_dict") is None  # the docs document it
    assert internal("pkg.core.unlisted") == "helper"  # imported by __init__, left out of its __all__
    # instance attributes (assigned on self in __init__), not class constants
    max_connections = surface.resolve("pkg.Limits.max_connections")
    name = surface.resolve("pkg.RetryAction.NAME")
    assert max_connections is not None and max_connections.instance_attribute
    assert name is not None and not name.instance_attribute


def test_a_class_its_new_takes_arguments_for_is_no_marker(tmp_path: Path) -> None:
    """anyio's ``create_memory_object_stream(tuple)``: no public member, no ``__init__``, but
    ``__new__(cls, max_buffer_size=0)`` takes the call: users call it. A ``__new__`` that takes
    nothing leaves a marker one."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                __all__ = ["create_stream", "Marker", "Action", "Markdown", "BaseRequest", "Placeholder"]

                class create_stream(tuple):
                    def __new__(cls, max_buffer_size: float = 0):
                        return tuple.__new__(cls, (1, 2))

                class Marker:
                    def __new__(cls):
                        return object.__new__(cls)

                class _Base:
                    def __new__(cls, delay: float):
                        return object.__new__(cls)

                class Action(_Base):
                    pass

                class JupyterMixin:
                    pass

                class BaseRequest:
                    '''Represents the non-IO parts of a request. This is not meant for general use.'''

                    def __init__(self, method: str) -> None:
                        self.method = method

                class Placeholder:
                    '''You shouldn't use this class directly. It's used internally.'''

                    def __init__(self, value: object) -> None:
                        self.value = value

                class Markdown(JupyterMixin):
                    '''A Markdown renderable.

                    Args:
                        markup: the Markdown to render.
                        code_theme: the theme of code blocks.
                    '''

                    def __init__(self, markup: str, code_theme: str = "monokai") -> None:
                        self.markup = markup
                        self.code_theme = code_theme
            """
        },
    )
    assert surface.by_id["pkg.create_stream"].internal is None
    assert surface.by_id["pkg.Marker"].internal == "marker"
    assert surface.by_id["pkg.Action"].internal is None  # its base's __new__ takes a delay
    # rich's Markdown: data members only, over a member-less mixin, but its docs describe the
    # arguments users build it with (tenacity's RetryAction(sleep), undocumented, stays a marker)
    assert surface.by_id["pkg.Markdown"].internal is None
    # what a class's own docstring says is not for users (werkzeug's sansio Request, typer's
    # DefaultPlaceholder) is internal, constructed with arguments or not
    assert surface.by_id["pkg.BaseRequest"].internal == "said internal"
    assert surface.by_id["pkg.Placeholder"].internal == "said internal"


def test_sentinel_values_and_type_variables_are_marked(tmp_path: Path) -> None:
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                import typing

                __all__ = ["NO_RESULT", "NEVER", "WrappedFn", "DEFAULT", "LIMIT", "Retrying"]

                class _Never:
                    pass

                class Retrying:
                    '''Retry controller.'''
                    def call(self, fn): ...

                NO_RESULT = object()
                NEVER = _Never()
                WrappedFn = typing.TypeVar("WrappedFn")
                DEFAULT = Retrying()
                LIMIT = 10
            """
        },
    )
    roles = {
        n: surface.by_id[f"pkg.{n}"].internal for n in ("NO_RESULT", "NEVER", "WrappedFn", "DEFAULT", "LIMIT")
    }
    assert roles == {
        "NO_RESULT": "sentinel",
        "NEVER": "sentinel",
        "WrappedFn": "type variable",
        "DEFAULT": None,  # an instance of a class users call: a value to use
        "LIMIT": None,
    }


def test_cli_command_objects_are_commands_not_functions(tmp_path: Path) -> None:
    surface = installed(tmp_path, ROLES)
    insert = surface.resolve("pkg.cli.insert")
    assert insert is not None
    assert (insert.kind, insert.command, insert.signature) == (
        "attribute",
        "pkg.cli.Command",
        "insert: Command",
    )
    assert insert.parameters == [] and insert.description == "Insert rows into a table."
    cli = surface.resolve("pkg.cli.cli")
    assert cli is not None and cli.command == "pkg.cli.Group"
    # registered on an application object that runs its commands: still a function
    serve = surface.resolve("pkg.tcli.serve")
    assert serve is not None
    assert (serve.kind, serve.command, [p.name for p in serve.parameters]) == (
        "function",
        "pkg.tcli.App",
        ["port"],
    )
    hook = surface.resolve("pkg.tcli.on_start")  # on an object that neither runs nor is a CLI
    assert hook is not None and (hook.kind, hook.command) == ("function", None)
    # a wrapper (functools.wraps) is still the function it wraps
    lookup = surface.resolve("pkg.cli.lookup")
    assert lookup is not None and (lookup.kind, lookup.command) == ("function", None)
    assert [p.name for p in lookup.parameters] == ["key"]


def test_a_package_that_fails_to_import_keeps_its_functions(tmp_path: Path) -> None:
    """The command probe imports the modules: one that raises leaves the static reading."""
    files = dict(ROLES)
    files["pkg/cli.py"] = ROLES["pkg/cli.py"] + "\n        raise RuntimeError('no import here')\n"
    surface = installed(tmp_path, files)
    insert = surface.resolve("pkg.cli.insert")
    assert insert is not None and (insert.kind, insert.command) == ("function", None)
    assert [p.name for p in insert.parameters] == ["path", "table", "pk"]


# -- docstrings as a reader sees them ----------------------------------------------------------


def test_docstrings_read_as_sphinx_renders_them(tmp_path: Path) -> None:
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.wait import wait_random_exponential
                from pkg.wait import wait_random_exponential as wait_full_jitter

                class Table:
                    def __init__(self, db, name, pk=None):
                        '''
                        :param db: the :class:`Database` the table lives in
                        :param name: the table's name
                        '''

                def rows(sql):
                    '''This is equivalent to::

                        db.execute(sql)
                    '''
            """,
            "pkg/wait.py": """
                class wait_random_exponential:
                    '''Wait a random time up to an exponentially growing limit.'''
                    def __init__(self, multiplier: float = 1.0) -> None: ...
            """,
        },
    )
    table = surface.resolve("pkg.Table")
    assert table is not None
    # a class whose docstring is its __init__'s field list: parameters, no raw summary
    assert table.description == ""
    assert [(p.name, p.description) for p in table.parameters][:2] == [
        ("db", "the :class:`Database` the table lives in"),
        ("name", "the table's name"),
    ]
    rows = surface.resolve("pkg.rows")
    assert rows is not None
    # "::" before a literal block left out: the sentence keeps its colon, no dangling full stop
    assert readable_summary(rows.description) == "This is equivalent to:"
    assert ended("The query that defines a view, as stored:") == "The query that defines a view, as stored."
    # a short alias is noted; the heading (first alias) is the object's own name
    wait = surface.resolve("pkg.wait_full_jitter")
    assert wait is not None and wait.name == "wait_random_exponential"
    assert wait.aliases[:2] == ["pkg.wait_random_exponential", "pkg.wait_full_jitter"]


def test_ref_labels_take_the_titles_of_the_sections_they_mark(tmp_path: Path) -> None:
    """Labels from the indexed docs (a real index through the store): ``:ref:`label```
    becomes the section's title; a label the docs lack reads as words, never raw."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "reference.rst").write_text(
        ".. _reference:\n\nReference\n=========\n\nIntro.\n\n"
        ".. _reference_db_table:\n\nTables\n------\n\nA table holds rows.\n\n"
        ".. _not_a_label: https://example.com\n\nViews\n-----\n\nText.\n",
        encoding="utf-8",
    )
    (docs / "guide.md").write_text("# Guide\n\n(myst-label)=\n## Upserts\n\nUpsert rows.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    try:
        engine.add(str(docs), name="pkg-docs")
        sections = doc_sections(engine, "pkg-docs")
    finally:
        engine.close()
    titles = label_titles(sections)
    assert titles == {"reference": "Reference", "reference_db_table": "Tables", "myst-label": "Upserts"}
    surface = installed(
        tmp_path / "site",
        {
            "pkg/__init__.py": """
                def insert(table, rows):
                    '''Insert rows. See :ref:`reference_db_table` and {ref}`myst-label`.

                    :param table: the table (:ref:`the reference <reference>`, :ref:`unknown_label`)
                    '''
            """
        },
    )
    titled_entries(surface.entries, titles)
    insert = surface.resolve("pkg.insert")
    assert insert is not None
    assert display(insert.description) == "Insert rows. See Tables and Upserts."
    assert display(insert.parameters[0].description) == "the table (the reference, unknown label)"
    # the docstring, find_api's text, keeps the labels: they read as words
    assert "See reference db table and myst label." in display(insert.docstring)
    # README.LLM's description shows the docstring's later paragraphs by the labels' titles
    from docmentor.library.knowledge.readme import _description

    upsert = insert.model_copy(
        update={
            "description": "Upsert rows.",
            "docstring": "Upsert rows.\n\nSee :ref:`reference_db_table` for full details.\n",
        }
    )
    assert _description(upsert, {}, titles).endswith("Upsert rows. See Tables for full details.")
    assert _description(upsert, {}).endswith("See reference db table for full details.")


def test_an_overloaded_decorator_bound_over_its_submodule_shows_and_checks_its_keywords(
    tmp_path: Path,
) -> None:
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Retrying.'''
                import typing as t
                from pkg.retry import Retrying, retry_if_result

                @t.overload
                def retry(func: t.Callable) -> t.Callable: ...

                @t.overload
                def retry(*, stop: int = 3, wait: float = 0.0) -> t.Callable: ...

                def retry(*dargs: t.Any, **dkw: t.Any) -> t.Any:
                    '''Wrap a function with retrying.'''
            """,
            "pkg/retry.py": RETRY_MODULE,
        },
    )
    entry = surface.resolve("pkg.retry")
    assert entry is not None and entry.kind == "function"
    # `*dargs: Any, **dkw: Any` says nothing: the overloads say what it takes
    assert entry.overloads == [
        "retry(func: t.Callable) -> t.Callable",
        "retry(*, stop: int = 3, wait: float = 0.0) -> t.Callable",
    ]
    assert len(surface.call_forms.overloads["pkg.retry"]) == 2
    fn = "def work():\n    pass\n\n"
    good = example("import pkg\n\n@pkg.retry\n" + fn + "@pkg.retry(stop=5, wait=1.0)\n" + fn, "good")
    bad = example("from pkg import retry\n\n@retry(stopp=5)\n" + fn, "bad")
    assert drift_report([good], surface, library="pkg").findings == ()
    findings = drift_report([bad], surface, library="pkg").findings
    assert [f.kind for f in findings] == ["invalid_api_signature"] and "stopp" in findings[0].message


def test_the_import_path_shown_keeps_the_apis_own_name_over_a_shorter_alias() -> None:
    from docmentor.library.find.import_paths import import_path

    # `from .wait import wait_random_exponential as wait_full_jitter`: both exported
    aliases = ["pkg.wait_random_exponential", "pkg.wait_full_jitter"]
    assert import_path("pkg.wait.wait_random_exponential", aliases) == "pkg.wait_random_exponential"
    assert (
        import_path("pkg.wait.wait_random_exponential", list(reversed(aliases)))
        == "pkg.wait_random_exponential"
    )
    # only the alias is short: fewer dots still win
    assert import_path("pkg.wait.wait_random_exponential", ["pkg.wait_full_jitter"]) == "pkg.wait_full_jitter"


def test_a_classes_documented_call_is_its_instances_api(tmp_path: Path) -> None:
    """A pluggy tour: `hookimpl = HookimplMarker("x")` is called as `@hookimpl(tryfirst=True)`;
    `HookimplMarker.__call__` and its options were not in the catalog (every `_` name was
    skipped), so "run my hook first" found nothing that takes `tryfirst`. A `__call__`
    without a docstring (autodoc leaves it out) stays out; the path shown is the public one."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg._hooks import Marker, Plain
                __all__ = ["Marker", "Plain"]
            """,
            "pkg/_hooks.py": """
                class Marker:
                    '''Marks hook implementations.'''

                    def __call__(self, function=None, tryfirst=False):
                        '''Mark ``function``; with ``tryfirst``, it runs before the others.'''

                class Plain:
                    '''Nothing to call.'''

                    def __call__(self):
                        pass
            """,
        },
    )
    from docmentor.library.find.import_paths import import_path

    call = surface.by_id["pkg._hooks.Marker.__call__"]
    assert call.kind == "method" and [p.name for p in call.parameters] == ["function", "tryfirst"]
    assert import_path(call.api_id, call.aliases) == "pkg.Marker.__call__"
    assert "pkg._hooks.Plain.__call__" not in surface.by_id
    assert import_path("pkg._core.Thing.__call__", ["pkg._core.Thing.__call__"]) == "pkg._core.Thing.__call__"


def test_a_subpackage_importing_its_package_makes_no_path_through_itself(tmp_path: Path) -> None:
    """A pyparsing tour: `pyparsing/diagram/__init__.py` does `import pyparsing`, and every
    API had a second path `pyparsing.diagram.pyparsing.…` (379 aliases of `parse_string`)."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                from pkg.core import Parser
                __all__ = ["Parser"]
            """,
            "pkg/core.py": """
                class Parser:
                    '''Parses.'''

                    def parse(self, text):
                        '''Parse ``text``.'''
            """,
            "pkg/diagram/__init__.py": """
                import pkg

                def draw(parser):
                    '''Draw a parser's railroad diagram.'''
            """,
        },
    )
    aliases = {a for e in surface.entries for a in e.aliases}
    assert not any(a.startswith("pkg.diagram.pkg") for a in aliases), sorted(aliases)
    assert "pkg.diagram.draw" in {e.api_id for e in surface.entries}


def test_a_callable_instance_made_at_module_level_is_a_function(tmp_path: Path) -> None:
    """A python-dateutil tour: `rrulestr = _rrulestr()` and `gettz = __get_gettz()` (an
    instance of a class with `__call__`, made in a factory) read statically as attributes
    with no description (`gettz = __get_gettz()`); users call them as functions. Looked up
    after import: a function with its call's signature and its class's docstring (or its
    `__call__`'s), when the class is private or made in a factory (an instance of a public
    class is a value users pass: structlog's processors). An instance that is not callable,
    or of another package's class, stays what it was."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Parsers.'''
                from pkg.parsing import parse, gettz, settings, plain, render
                __all__ = ["parse", "gettz", "settings", "plain", "render"]
            """,
            "pkg/parsing.py": """
                import functools

                class _Unset:
                    pass

                UNSET = _Unset()

                class _Parser:
                    '''Parse a rule string into a rule.'''
                    def __call__(self, s, *, cache=False, tz=UNSET):
                        return s

                def __make():
                    class Lookup:
                        def __init__(self):
                            self.seen = {}
                        def __call__(self, name=None):
                            '''Look a zone up by its name.'''
                            return name
                    return Lookup()

                class Settings:
                    '''Settings.'''

                class Renderer:
                    '''Render an event.'''
                    def __call__(self, event):
                        return event

                parse = _Parser()
                gettz = __make()
                render = Renderer()  # a public class's instance: a value
                settings = Settings()  # an instance, not callable: data
                plain = functools.partial(print)  # another package's callable class: not ours
            """,
        },
    )
    parse = surface.resolve("pkg.parse")
    assert parse is not None and parse.kind == "function", parse
    # a default object's repr without its address (a pydash tour: README.LLM changed every run)
    assert parse.signature == "parse(s, *, cache=False, tz=<pkg.parsing._Unset object>)", parse.signature
    assert parse.description == "Parse a rule string into a rule."
    gettz = surface.resolve("pkg.gettz")
    assert gettz is not None and gettz.kind == "function"
    assert gettz.signature == "gettz(name=None)" and gettz.description == "Look a zone up by its name."
    settings = surface.resolve("pkg.settings")
    assert settings is not None and settings.kind == "attribute"
    render = surface.resolve("pkg.render")
    assert render is not None and render.kind == "attribute"
    plain = surface.resolve("pkg.plain")
    assert plain is None or plain.kind == "attribute"


def test_names_bound_by_unpacking_are_attributes(tmp_path: Path) -> None:
    """A python-dateutil tour: `(YEARLY, MONTHLY, …) = list(range(7))` and `MO, TU, … =
    weekdays = tuple(…)` (in `__all__`, used by the docs) were missing from the catalog, and
    drift reported the docs' correct `rrule.YEARLY` as absent. Names bound by unpacking are
    attributes of their module, valued when the right side is written out item by item."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Rules.'''
                from pkg.rules import YEARLY, MONTHLY, MO, TU, RED, GREEN, rule
                __all__ = ["YEARLY", "MONTHLY", "MO", "TU", "RED", "GREEN", "rule"]
            """,
            "pkg/rules.py": """
                class weekday:
                    def __init__(self, n):
                        self.n = n

                (YEARLY,
                 MONTHLY) = list(range(2))
                MO, TU = weekdays = tuple(weekday(x) for x in range(2))
                [RED, GREEN] = "red", "green"

                def rule(freq):
                    '''A rule.'''
            """,
        },
    )
    for name in ("YEARLY", "MONTHLY", "MO", "TU", "RED", "GREEN"):
        entry = surface.resolve(f"pkg.{name}")
        assert entry is not None and entry.kind == "attribute", name
    red = surface.resolve("pkg.RED")
    assert red is not None
    assert "'red'" in red.signature, red.signature
    used = example("import pkg\npkg.rule(pkg.YEARLY)\nprint(pkg.MO, pkg.GREEN)\n")
    assert not drift_report([used], surface, library="pkg").findings


def test_a_generic_class_of_the_package_is_its_class_in_returns_and_annotations(tmp_path: Path) -> None:
    """An anyio tour: `open_file() -> AsyncFile[Any]`, `create_tcp_listener() ->
    MultiListener[SocketStream]` and a handler's `send_stream: MemoryObjectSendStream[str]`
    were typed as nothing, so `f.read()` and `send_stream.send_nowait(...)` in the docs were
    credited to no API. A subscripted class of the package is that class; a container of it
    (`Iterator[Conn]`) still gives its items."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Streams.'''
                from pkg._streams import AsyncFile, Stream, open_file, streams, Conn
                __all__ = ["AsyncFile", "Stream", "open_file", "streams", "Conn"]
            """,
            "pkg/_streams.py": """
                from __future__ import annotations
                from typing import Any, Generic, Iterator, TypeVar
                T = TypeVar("T")

                class Conn: ...

                class AsyncFile(Generic[T]):
                    '''A file.'''
                    async def read(self) -> T:
                        '''Read it all.'''

                class Stream(Generic[T]):
                    '''A stream.'''
                    def send_nowait(self, item: T) -> None:
                        '''Send without waiting.'''

                async def open_file(path: str) -> AsyncFile[Any]:
                    '''Open a file.'''

                def streams() -> Iterator[Conn]:
                    '''Each connection.'''
            """,
        },
    )
    assert surface.return_class("pkg.open_file") == "pkg._streams.AsyncFile"
    streams = surface.resolve("pkg.streams")
    assert streams is not None and streams.returns is not None
    assert (streams.returns.class_id, streams.returns.item_class_id) == (None, "pkg._streams.Conn")
    examples = [
        example(
            "import pkg\n\nasync def main():\n    f = await pkg.open_file('a')\n    await f.read()\n", "file"
        ),
        example(
            "import pkg\n\ndef handle(send_stream: pkg.Stream[str]):\n    send_stream.send_nowait('hi')\n",
            "s",
        ),
    ]
    match_examples(examples, surface, library="pkg")
    assert "pkg._streams.AsyncFile.read" in examples[0].apis_used, examples[0].apis_used
    assert "pkg._streams.Stream.send_nowait" in examples[1].apis_used, examples[1].apis_used


def test_a_name_imported_for_type_checkers_only_is_no_path_to_it(tmp_path: Path) -> None:
    """A Python-Markdown tour: `markdown/extensions/__init__.py` does `if TYPE_CHECKING: from
    markdown import Markdown`, and every `Markdown` member got an alias through
    `markdown.extensions.Markdown` (20 of them), which does not exist at run time."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Markdown.'''
                from pkg.core import Markdown
                __all__ = ["Markdown"]
            """,
            "pkg/core.py": """
                class Markdown:
                    '''The converter.'''
                    def convert(self, text):
                        '''Convert text.'''
            """,
            "pkg/extensions/__init__.py": """
                '''Extensions.'''
                from __future__ import annotations
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from pkg import Markdown

                class Extension:
                    '''An extension.'''
                    def extendMarkdown(self, md: Markdown) -> None:
                        '''Extend it.'''
            """,
        },
    )
    convert = surface.resolve("pkg.Markdown.convert")
    assert convert is not None
    assert not any("extensions" in a for a in convert.aliases), convert.aliases
    assert surface.resolve("pkg.extensions.Markdown") is None
    assert surface.resolve("pkg.extensions.Extension") is not None


def test_a_class_a_factory_call_makes_at_module_level_is_a_class(tmp_path: Path) -> None:
    """jsonschema's `Draft202012Validator = create(...)`: read statically, an attribute with
    no constructor nor members (README.LLM: "is an attribute"; drift blind to its calls). It
    is looked up after import: a class, with its constructor and the methods it has there."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Validators.'''
                from pkg.validators import Draft7Validator, Point, LIMITS, create, Cheap, Dear
                __all__ = ["Draft7Validator", "Point", "LIMITS", "create", "Cheap", "Dear"]
            """,
            "pkg/validators.py": """
                '''Validators made by a factory.'''
                from collections import namedtuple

                def create(name):
                    '''Make a validator class.'''
                    class Validator:
                        '''Validates instances against a schema.'''
                        def __init__(self, schema, format_checker=None):
                            self.schema = schema
                        def iter_errors(self, instance):
                            '''Each error of instance.'''
                            return iter(())
                    Validator.__name__ = Validator.__qualname__ = name
                    return Validator

                class _Loud:
                    def __repr__(self):
                        raise RuntimeError("no repr")

                def odd():
                    class Odd:
                        value = _Loud()  # a member whose repr fails: the others still count
                    return Odd

                def priced(rate):
                    class Order:
                        '''An order.'''
                        def cost(self):
                            '''What it costs.'''
                            return rate
                    if rate > 1:
                        Order.total = property(lambda self: rate, doc="The total.")
                    return Order

                Draft3Validator = create("Draft3Validator")  # not exported: not the one named
                Draft7Validator = create("Draft7Validator")
                Draft4Validator = create("Draft4Validator")
                Cheap = priced(1)
                Dear = priced(2)  # a property only it has: its own
                Point = namedtuple("Point", "x y")
                LIMITS = dict(low=1, high=2)
                text_type = type("")  # another's class under a new name: no class of pkg
                Odd = odd()
                print("imported", end="")  # output without a newline before the probe's
            """,
            "pkg/__main__.py": """
                import pathlib
                pathlib.Path(__file__).with_name("ran").write_text("x")

                def build():
                    return 1

                tool = build()
            """,
        },
    )
    assert not (tmp_path / "pkg" / "ran").exists()  # a __main__ module is never imported
    text_type = surface.resolve("pkg.validators.text_type")
    assert text_type is None or text_type.kind == "attribute"
    odd = surface.resolve("pkg.validators.Odd")
    assert odd is not None and odd.kind == "class"
    validator = surface.resolve("pkg.Draft7Validator")
    assert validator is not None and validator.kind == "class"
    assert validator.signature == "Draft7Validator(schema, format_checker=None)"
    assert validator.description == "Validates instances against a schema."
    method = surface.resolve("pkg.Draft7Validator.iter_errors")
    assert method is not None and method.description == "Each error of instance."
    # one factory's classes share their methods' definition: one API under both names
    assert surface.resolve("pkg.validators.Draft4Validator.iter_errors") is method
    assert "pkg.validators.Draft4Validator.iter_errors" in method.aliases
    # named by the class the module exports, not an unexported sibling before it
    assert method.api_id == "pkg.validators.Draft7Validator.iter_errors", method.api_id
    total = surface.resolve("pkg.Dear.total")
    assert total is not None and total.description == "The total."
    assert surface.resolve("pkg.Cheap.cost") is surface.resolve("pkg.Dear.cost")
    point = surface.resolve("pkg.Point")
    assert point is not None and point.kind == "class" and point.signature.startswith("Point(x, y")
    limits = surface.resolve("pkg.LIMITS")
    assert limits is not None and limits.kind == "attribute"  # a call that makes no class
    bad = example("import pkg\nv = pkg.Draft7Validator({}, format_checkers=None)\nv.iter_error(1)\n", "bad")
    found = {(f.kind, f.api) for f in drift_report([bad], surface, library="pkg").findings}
    assert any("format_checkers" in f.message for f in drift_report([bad], surface, library="pkg").findings)
    assert any(kind == "missing_api" and "iter_error" in api for kind, api in found), found


def test_a_path_the_docs_document_an_imported_function_by_is_one_of_its_aliases(tmp_path: Path) -> None:
    # the pyserial tour: `.. module:: serial.tools.list_ports` / `.. function:: comports()`
    # documents the function list_ports imports (no __all__) from list_ports_linux
    files = {
        "pkg/__init__.py": "",
        "pkg/linux.py": "def scan():\n    '''List the ports.'''\n",
        "pkg/ports.py": "from pkg.linux import scan\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    undocumented = load_api("pkg", search_paths=[tmp_path])
    surface = load_api("pkg", search_paths=[tmp_path], documented=["pkg.ports.scan"])
    before, scan = undocumented.resolve("pkg.linux.scan"), surface.resolve("pkg.linux.scan")
    assert before is not None and "pkg.ports.scan" not in before.aliases
    assert scan is not None and "pkg.ports.scan" in scan.aliases and scan.documented
    assert surface.resolve("pkg.ports.scan") is scan


def test_a_member_only_a_stub_declares_is_located_in_the_stub(tmp_path: Path) -> None:
    """A pydash tour: `AllFuncs.nest`, declared only in `all_funcs.pyi` beside `all_funcs.py`
    (the class forwards its calls with `__getattr__`), was located in the `.py` file at the
    stub's line, past the module's end. A member the module defines stays in the module, at
    its line."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Wrappers.'''
                from pkg.wrap import Wrapper
                __all__ = ["Wrapper"]
            """,
            "pkg/wrap.py": """
                '''Wrapper.'''

                class Wrapper:
                    '''Wraps a value and forwards every call.'''

                    def real(self):
                        '''A real method.'''
                        return self

                    def __getattr__(self, name):
                        return lambda *a: self
            """,
            "pkg/wrap.pyi": """
                from typing import Any
                #
                #
                #
                #
                #
                #
                #
                class Wrapper:
                    def __getattr__(self, name: str) -> Any: ...
                    def frobnicate(self, x: int) -> "Wrapper": ...
                    def real(self) -> "Wrapper": ...
            """,
        },
    )
    stub_only = surface.resolve("pkg.wrap.Wrapper.frobnicate")
    assert stub_only is not None
    assert (stub_only.source_file, stub_only.line) == ("pkg/wrap.pyi", 11), (
        stub_only.source_file,
        stub_only.line,
    )
    real = surface.resolve("pkg.wrap.Wrapper.real")
    assert real is not None
    assert (real.source_file, real.line) == ("pkg/wrap.py", 6)


def test_what_a_module_says_is_not_for_users_is_internal(tmp_path: Path) -> None:
    """A pydash tour: `pydash.helpers` ("Generic utility methods not part of main API.") and
    its classes were listed as key modules and classes, and `helpers.base_set` ranked for a
    task. A module whose docstring says so is internal with what it defines, but what the
    package publishes elsewhere (a re-export at its top) stays API."""
    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Tools.'''
                from pkg.helpers import merge_maps
                __all__ = ["merge_maps"]
            """,
            "pkg/helpers.py": """
                '''Generic utility methods not part of main API.'''
                __all__ = ["merge_maps", "base_set", "Unset"]

                class Unset:
                    '''Represents an unset value.'''
                    def reset(self):
                        '''Reset it.'''

                def merge_maps(a, b):
                    '''Merge b into a.'''
                    return a

                def base_set(obj, key, value):
                    '''Set a key on obj.'''
                    return obj
            """,
        },
    )
    for api_id in ("pkg.helpers", "pkg.helpers.base_set", "pkg.helpers.Unset", "pkg.helpers.Unset.reset"):
        entry = surface.resolve(api_id)
        assert entry is not None and entry.internal == "said internal", (api_id, entry and entry.internal)
    merge = surface.resolve("pkg.helpers.merge_maps")
    assert merge is not None and merge.internal is None


def test_an_enumeration_is_shown_by_its_members_not_as_a_call(tmp_path: Path) -> None:
    """A typeguard tour: `ForwardRefPolicy` (an `Enum`) was shown as `typeguard.ForwardRefPolicy(...)`
    returning "a new instance", its members as `ForwardRefPolicy.WARN = auto()`. An
    enumeration is one (ApiEntry.enum): README.LLM lists its members and says a member is
    passed; a member says whose it is; a plain class is shown as before."""
    from docmentor.library.knowledge.readme import _description, _function

    surface = installed(
        tmp_path,
        {
            "pkg/__init__.py": """
                '''Checks.'''
                from enum import Enum, auto

                class Policy(Enum):
                    '''What to do when a reference cannot be resolved.'''
                    ERROR = auto()
                    WARN = "warn"

                class Checker:
                    '''Checks values.'''
                    def __init__(self, policy: Policy = Policy.WARN):
                        self.policy = policy
            """,
        },
    )
    by_id = {e.api_id: e for e in surface.entries}
    policy, checker = by_id["pkg.Policy"], by_id["pkg.Checker"]
    assert policy.enum and not checker.enum
    shown = _function(policy, by_id)
    assert shown.startswith("pkg.Policy\n") and "(" not in shown.splitlines()[0], shown
    assert "- pkg.Policy.ERROR\n- pkg.Policy.WARN = 'warn'" in shown, shown
    assert "an enumeration: pass a member (`pkg.Policy.ERROR`)" in shown and "a new instance\n" not in shown
    assert _description(policy, by_id).startswith("pkg.Policy is an enumeration.")
    member = _function(by_id["pkg.Policy.ERROR"], by_id)
    assert member == "pkg.Policy.ERROR\n\nUsed as:\nERROR - a member of the enumeration pkg.Policy", member
    assert "Checker - a new instance" in _function(checker, by_id)
