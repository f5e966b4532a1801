"""A Sphinx docs section credits the APIs its autodoc directives document (issue 22): the
members under a class's directive (nested ``.. automethod::``, the ``:members:`` option)
are that class's, whatever other class has a member of the same name; and a short name two
classes share (in a directive or a role) is the one the library's root package exports. On
a throwaway package read by the real surface (griffe) and its reST docs indexed by a real
Docmentor."""

from __future__ import annotations

import time

import pytest

from docmentor.engine import Docmentor
from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.surface.api_python import ApiSurface, load_api
from libtool import write_files

PACKAGE = {
    "tpl/__init__.py": """
        '''Templates.'''
        from tpl.env import Page, Renderer
        __all__ = ["Page", "Renderer"]
    """,
    "tpl/env.py": """
        '''Pages.'''

        class Renderer:
            '''Renders pages.'''
            def from_text(self, text):
                '''A page from a text.'''
            def pick(self, names):
                '''The first page of several names that exists.'''
            def generate(self):
                '''Rendering output.'''

        class Page:
            '''A page.'''
            def generate(self):
                '''The page piece by piece.'''
            def stream(self):
                '''The page as a stream.'''
    """,
    "tpl/nodes.py": """
        '''The syntax tree.'''

        class Page:
            '''The root node.'''
            def generate(self):
                '''Code for the node.'''
    """,
}

DOCS = """
API
===

High level
----------

Everything starts with a renderer that turns long pieces of text into pages.

.. autoclass:: Renderer
    :members: from_text,
              pick

.. autoclass:: Page

    .. automethod:: generate

    .. automethod:: stream

Pages are yielded piece by piece while they are produced: see :class:`Page`.
"""


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    root = tmp_path_factory.mktemp("pkg")
    write_files(root, PACKAGE)
    return load_api("tpl", search_paths=[root])


@pytest.fixture(scope="module")
def section(tmp_path_factory: pytest.TempPathFactory) -> object:
    root = tmp_path_factory.mktemp("docs")
    (root / "docs").mkdir()
    (root / "docs" / "api.rst").write_text(DOCS.lstrip(), encoding="utf-8")
    engine = Docmentor(root / "index")
    try:
        engine.add(str(root / "docs"), name="tpl-docs")
        hits = list(
            engine.search("pages piece by piece produced renderer", source="tpl-docs", snippets=False)
        )
    finally:
        engine.close()
    found = [h for h in hits if h.heading_path and h.heading_path[-1] == "High level"]
    assert found, [h.heading_path for h in hits]
    return found[0]


class _Section:
    """A section as the resolver reads one (prose alone)."""

    def __init__(self, text: str) -> None:
        self.source, self.path, self.heading_path = "tpl-docs", "notes.rst", ["Notes"]
        self.line_start, self.line_end, self.text = 1, 1, text


def test_the_fixture_has_the_shared_names(surface: ApiSurface) -> None:
    ids = {e.api_id for e in surface.entries}
    assert {"tpl.env.Page.generate", "tpl.nodes.Page.generate", "tpl.env.Renderer.generate"} <= ids
    assert {"tpl.env.Renderer.from_text", "tpl.env.Renderer.pick", "tpl.env.Page.stream"} <= ids


def test_a_section_credits_the_members_its_class_directives_document(
    surface: ApiSurface, section: object
) -> None:
    resolver = MentionResolver(surface.entries)
    credit = resolver.section_apis(section)  # type: ignore[arg-type]
    config = resolver.config
    # the root package's Page, not the syntax tree's: Sphinx reads the name in the package
    assert credit.get("tpl.env.Page") == config.documents_weight
    assert "tpl.nodes.Page" not in credit
    assert credit.get("tpl.env.Renderer") == config.documents_weight
    # a nested directive documents the member of the class it is under
    assert credit.get("tpl.env.Page.generate") == config.documents_weight
    assert credit.get("tpl.env.Page.stream") == config.documents_weight
    assert "tpl.nodes.Page.generate" not in credit and "tpl.env.Renderer.generate" not in credit
    # a role's shared short name too: the root package's Page is the one the prose names
    prose = MentionResolver(surface.entries).section_apis(_Section("See :class:`Page` and `Page`."))
    assert prose == {"tpl.env.Page": config.uses_weight}
    # the :members: option, continuation line included: documented there, credited as a use
    assert credit.get("tpl.env.Renderer.from_text") == config.uses_weight
    assert credit.get("tpl.env.Renderer.pick") == config.uses_weight


def test_a_class_block_ends_where_its_indentation_does(surface: ApiSurface) -> None:
    resolver = MentionResolver(surface.entries)
    text = ".. autoclass:: Renderer\n\nProse after it.\n\n    .. automethod:: generate\n"
    named, members = resolver.directive_apis(text)
    assert named == {"tpl.env.Renderer"} and members == set()  # `generate` is ambiguous there
    nested = ".. autoclass:: Renderer\n\n    .. automethod:: generate\n"
    assert resolver.directive_apis(nested)[0] == {"tpl.env.Renderer", "tpl.env.Renderer.generate"}


def test_directive_reading_runs_in_linear_time(surface: ApiSurface) -> None:
    resolver = MentionResolver(surface.entries)
    hostile = ".. autoclass:: Renderer\n    :members: " + "a, " * 50000 + "\n" + "    :x:\n" * 20000
    t = time.perf_counter()
    resolver.directive_apis(hostile + ":" * 100000)
    assert time.perf_counter() - t < 2.0


def test_an_unreadable_directive_credits_nothing(surface: ApiSurface) -> None:
    resolver = MentionResolver(surface.entries)
    assert resolver.directive_apis(".. autoclass:: NoSuchClass\n    :members: a, b\n") == (set(), set())
    assert resolver.directive_apis(".. autoclass::\n    :members:\n") == (set(), set())
