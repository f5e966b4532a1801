"""An API the docs' autodoc directives document is one the docs lead users to (issue 22):
the surface marks it ``documented`` (kept in the knowledge base) and find_api does not weigh
it as off the user's path, though the root package does not export it. On a throwaway
package read by the real surface (griffe) with the docs' directives read from a folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmentor.library.find.priors import unreached
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.knowledge.kb_schema import KB_FORMAT
from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python import ApiSurface, load_api
from docmentor.sources.autodoc import documented_paths
from libtool import write_files

PACKAGE = {
    "tpl/__init__.py": """
        '''Templates.'''
        from tpl.env import Page
        __all__ = ["Page"]
    """,
    "tpl/env.py": """
        '''Pages.'''

        class Page:
            '''A page: render the variables a template expects.'''
            def render(self, **variables):
                '''Render the page with the variables it expects.'''
    """,
    "tpl/meta.py": """
        '''What a template needs.'''
        __all__ = ["find_variables", "find_includes"]

        def find_variables(source):
            '''The variables a template expects its caller to provide, without rendering it.'''

        def find_includes(source):
            '''The templates a template includes.'''
    """,
    "tpl/internals.py": """
        '''Internals.'''
        __all__ = ["expect_variables"]

        def expect_variables(source):
            '''The variables a template expects, for the compiler.'''
    """,
}

DOCS = """
Meta
====

.. autofunction:: tpl.meta.find_variables
"""

FOUND = "tpl.meta.find_variables"
UNDOCUMENTED = "tpl.meta.find_includes"
INTERNAL = "tpl.internals.expect_variables"


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    root = tmp_path_factory.mktemp("pkg")
    write_files(root, PACKAGE)
    docs = root / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(DOCS.lstrip(), encoding="utf-8")
    (docs / "broken.rst").write_bytes(b"\xff\xfe .. autofunction:: \x00\x00")  # unreadable: skipped
    return load_api("tpl", search_paths=[root], documented=documented_paths(docs))


def _entries(surface: ApiSurface) -> list[ApiEntry]:
    return [e.model_copy(deep=True) for e in surface.entries]


def test_the_surface_marks_what_the_docs_document(surface: ApiSurface) -> None:
    marked = {e.api_id for e in surface.entries if e.documented}
    assert marked == {FOUND}
    # kept in the knowledge base: the field round-trips, and the format says it has it
    entry = surface.by_id[FOUND]
    assert ApiEntry.model_validate_json(entry.model_dump_json()).documented is True
    assert KB_FORMAT >= 4


def test_a_documented_api_is_on_the_users_path(surface: ApiSurface) -> None:
    off = {e.api_id for e in unreached(_entries(surface), "tpl")}
    assert FOUND not in off
    assert {UNDOCUMENTED, INTERNAL} <= off  # neither exported, documented nor shown


def test_find_api_ranks_the_documented_api_over_an_undocumented_twin(surface: ApiSurface) -> None:
    hits = ApiIndex({"tpl": (_entries(surface), [])}).find(
        "which variables a template expects without rendering it", limit=5
    )
    ranks = {h.entry.api_id: r for r, h in enumerate(hits, 1)}
    assert ranks[FOUND] < ranks[INTERNAL], ranks
    # unmarked, it weighs as off the path like the internal one (the test can fail)
    flat = _entries(surface)
    for e in flat:
        e.documented = False
    assert FOUND in {e.api_id for e in unreached(flat, "tpl")}


def test_no_docs_marks_nothing(tmp_path: Path) -> None:
    assert documented_paths(tmp_path / "missing") == []


def test_a_bare_members_option_documents_what_autodoc_shows(tmp_path: Path) -> None:
    """cattrs' `.. automodule:: cattrs.preconf.json` `:members:` documents its
    `make_converter` (no `__all__`, not re-exported: a "helper" before); sqlite-utils'
    `.. autoclass:: Table` `:members:` documents the class's methods. What the module only
    imports is not documented there."""
    write_files(
        tmp_path,
        {
            "conv/__init__.py": "'''Converters.'''\n",
            "conv/preconf/__init__.py": "'''Preconfigured converters.'''\n",
            "conv/preconf/json.py": """
                '''JSON.'''
                from os.path import join

                def make_converter(strict=False):
                    '''A converter for JSON.'''

                def _private():
                    pass

                def undocumented_helper():
                    pass

                LIMIT = 3

                class JsonConverter:
                    '''Converts to JSON.'''
                    def dumps(self, obj):
                        '''The JSON text of obj.'''
            """,
            "conv/table.py": """
                '''Tables.'''
                class Table:
                    '''A table.'''
                    import json  # werkzeug's EnvironBuilder: a name imported in the body, then deleted
                    dumps = staticmethod(json.dumps)
                    del json

                    def enable_fts(self, columns):
                        '''Enable full-text search.'''
            """,
        },
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(
        "API\n===\n\n.. automodule:: conv.preconf.json\n   :members:\n\n"
        ".. autoclass:: conv.table.Table\n   :members:\n",
        encoding="utf-8",
    )
    paths = documented_paths(docs)
    assert "conv.preconf.json.*" in paths and "conv.table.Table.*" in paths
    # docutils allows one space before a directive's colons (portalocker's `.. include ::`)
    (docs / "spaced.rst").write_text(
        "Spaced\n======\n\n.. autofunction :: conv.helpers.join\n", encoding="utf-8"
    )
    assert "conv.helpers.join" in documented_paths(docs)
    (docs / "spaced.rst").unlink()
    surface = load_api("conv", search_paths=[tmp_path], documented=paths)
    by_id = {e.api_id: e for e in surface.entries}
    made = by_id["conv.preconf.json.make_converter"]
    assert made.documented and made.internal is None
    assert by_id["conv.preconf.json.JsonConverter"].documented
    assert by_id["conv.table.Table.enable_fts"].documented
    assert not any(e.api_id.endswith("join") for e in surface.entries if e.documented)
    # autodoc leaves out what has no docstring: still a helper, a constant
    assert by_id["conv.preconf.json.undocumented_helper"].internal == "helper"
    assert by_id["conv.preconf.json.LIMIT"].internal == "constant"
    # unless :undoc-members: asks for them too (a python-dateutil tour: `EASTER_ORTHODOX`,
    # in `__all__` and on its `automodule` page, was taken for off the path)
    (docs / "api.rst").write_text(
        "API\n===\n\n.. automodule:: conv.preconf.json\n   :members:\n   :undoc-members:\n",
        encoding="utf-8",
    )
    paths = documented_paths(docs)
    assert "conv.preconf.json.**" in paths
    by_id = {e.api_id: e for e in load_api("conv", search_paths=[tmp_path], documented=paths).entries}
    assert by_id["conv.preconf.json.LIMIT"].documented and by_id["conv.preconf.json.LIMIT"].internal is None
    assert by_id["conv.preconf.json.undocumented_helper"].documented
    assert not any(e.documented for e in by_id.values() if e.name == "_private")  # private: never


def test_listed_members_and_nested_member_directives_are_documented(tmp_path: Path) -> None:
    """A cachetools tour: `:members: popitem, timer, ttl` (one line or several) and a
    `.. method:: expire` inside `.. autoclass:: TTLCache` document those members, and a
    `.. module::` its module; a member directive after the class's body is not the class's."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.rst").write_text(
        ".. module:: cache\n\n"
        ".. autoclass:: TTLCache(maxsize, ttl)\n"
        "   :exclude-members: a,\n"
        "                     b\n"
        "   :members: popitem, timer,\n"
        "             ttl\n"
        "   :show-inheritance:\n\n"
        "   Words.\n\n"
        "   .. method:: expire(self, time=None)\n\n"
        "      Expire items.\n\n"
        ".. autofunction:: cached\n\n"
        "   .. method:: cache_info()\n",
        encoding="utf-8",
    )
    found = documented_paths(docs)
    assert found == [
        "cache",
        "cache.TTLCache",
        "cache.TTLCache.popitem",
        "cache.TTLCache.timer",
        "cache.TTLCache.ttl",
        "cache.TTLCache.expire",
        "cache.cached",
    ]


def test_a_meta_private_field_keeps_a_member_out(tmp_path: Path) -> None:
    """A pluggy tour: `Result.from_call`, `Result.exception` carry autodoc's `:meta private:`
    and were listed as APIs with empty descriptions."""
    write_files(
        tmp_path,
        {
            "hooks/__init__.py": """
                '''Hooks.'''
                from hooks.result import Result, build
                __all__ = ["Result", "build"]
            """,
            "hooks/result.py": """
                '''Results.'''

                def build(value):
                    '''Build a result.

                    :meta private:
                    '''

                class Result:
                    '''A hook call's result.'''

                    def get_result(self):
                        '''The result, or raise its exception.'''

                    @classmethod
                    def from_call(cls, func):
                        '''Call ``func`` and keep what it gave.

                        :meta private:
                        '''
            """,
        },
    )
    ids = {e.api_id for e in load_api("hooks", search_paths=[tmp_path]).entries}
    assert "hooks.result.Result.get_result" in ids
    assert "hooks.result.Result.from_call" not in ids and "hooks.result.build" not in ids


def test_what_the_docs_examples_import_is_public_but_not_documented(tmp_path: Path) -> None:
    """(a tablib tour) ``from tablib.formats import registry`` in a page's example, where
    ``registry = Registry()`` is no API by the module's own rules (no ``__all__``, no
    docstring): the docs tell users to import it, so it is one, and ``registry.register``
    in the example is typed as ``Registry.register``. An import is no page about the
    object: not marked documented. Private paths, other packages, star and relative
    imports name nothing."""
    from docmentor.sources.autodoc import imported_in, imported_paths

    write_files(
        tmp_path,
        {
            "fmt/__init__.py": """
                '''Formats.'''
                class Registry:
                    '''The formats known.'''
                    def register(self, key, format):
                        '''Add a format under a key.'''

                registry = Registry()
                _hidden = Registry()
            """,
            "fmt/tests/__init__.py": "",
            "fmt/tests/helpers.py": """
                def make_fixture():
                    pass
            """,
        },
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "dev.rst").write_text(
        "Register your class::\n\n    from fmt import registry\n    registry.register('xxx', X())\n\n"
        ".. code-block:: pycon\n\n    >>> from fmt import (_hidden, Registry as R)  # private: no\n"
        "    >>> from os.path import join\n    >>> from . import sibling\n    >>> from fmt import *\n",
        encoding="utf-8",
    )
    paths = imported_paths(docs)
    assert paths == ["fmt.registry", "fmt._hidden", "fmt.Registry", "os.path.join"]
    assert imported_in("from a import b, c as d\n") == ["a.b", "a.c"]
    assert imported_paths(tmp_path / "missing") == []
    plain = load_api("fmt", search_paths=[tmp_path])
    assert plain.resolve("fmt.registry") is None
    surface = load_api("fmt", search_paths=[tmp_path], imported=paths)
    registry = surface.resolve("fmt.registry")
    assert registry is not None and registry.kind == "attribute" and not registry.documented
    assert surface.resolve("fmt._hidden") is None and not surface.by_id["fmt.Registry"].documented
    # (review) a contributing page's import of the test suite's helpers publishes nothing
    tested = load_api("fmt", search_paths=[tmp_path], imported=["fmt.tests.helpers.make_fixture"])
    assert tested.resolve("fmt.tests.helpers.make_fixture") is None
    # a parenthesised list over several lines, a doctest's prompts, a `;` after the names
    many = "from fmt import (\n    registry,\n    Registry,\n)\n>>> from a import (b,\n...     c)\nfrom d import e; x = 1\n"
    assert imported_in(many) == ["fmt.registry", "fmt.Registry", "a.b", "a.c", "d.e"]
    from docmentor.library.examples.matcher import match_examples
    from docmentor.library.models import Example

    code = "from fmt import registry\nregistry.register('xxx', X())\n"
    used = Example(
        example_id="e", title="e", code=code, language="python", source="docs", path="dev.rst", line=3
    )
    match_examples([used], surface, library="fmt")
    assert used.apis_used == ["fmt.registry", "fmt.Registry.register"]


def test_a_page_that_never_sets_a_module_documents_the_packages_names(tmp_path: Path) -> None:
    """A peewee tour: its API page writes `.. py:class:: ModelSelect` and its methods with no
    `.. module::` anywhere, and the module's `__all__` leaves the class out (users get it
    from `Model.select()`). Sphinx shows the names bare; the docs' descriptions were already
    read in the package, so the surface reads the names there too: the class and its
    documented method are APIs, described by the page. A bare name the package does not
    have (another library's class) adds nothing."""
    write_files(
        tmp_path,
        {
            "orm.py": """
                '''An ORM.'''
                __all__ = ["Model"]

                class Model:
                    @classmethod
                    def select(cls, *fields):
                        return ModelSelect(cls, fields)

                class ModelSelect:
                    def __init__(self, model, fields):
                        self.model = model

                    def switch(self, ctx=None):
                        return self

                    def _internal(self):
                        return self
            """
        },
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(
        "API\n===\n\n"
        ".. py:class:: Model()\n\n"
        "    .. py:classmethod:: select(*fields)\n\n"
        "        :returns: :py:class:`ModelSelect` query.\n\n"
        "        Create a SELECT query.\n\n"
        ".. py:class:: ModelSelect(model, fields_or_models)\n\n"
        "    Model-specific implementation of SELECT query.\n\n"
        "    .. py:method:: switch([ctx=None])\n\n"
        "        Switch the *join context*: where the next join starts from.\n\n"
        ".. py:class:: Session()\n\n"
        "    Another library's class, named here.\n",
        encoding="utf-8",
    )
    documented = documented_paths(docs)
    assert "ModelSelect.switch" in documented  # bare, as the page writes it
    surface = load_api("orm", search_paths=[tmp_path], documented=documented)
    ids = {e.api_id for e in surface.entries}
    assert {"orm.Model", "orm.Model.select", "orm.ModelSelect", "orm.ModelSelect.switch"} <= ids
    assert "orm.ModelSelect._internal" not in ids
    assert not any(i.endswith("Session") for i in ids)
    switch = next(e for e in surface.entries if e.api_id == "orm.ModelSelect.switch")
    assert switch.documented
