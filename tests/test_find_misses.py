"""find_api's ``sections`` ranking credits the method a docs section is about (issue 22's
misses on the dev sets): a section whose own heading *is* a method's name, word for word
("Context Processors" above ``@app.context_processor``), documents that method, as a
directive would; a heading that only contains the name, or a method the section does not
use, credits nothing more. On a throwaway package and its docs, read by the real pipeline
(griffe, the index, the matcher, the engine's section search)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from docmentor.engine import Docmentor
from docmentor.library import generate
from docmentor.library.find.config import DEFAULT
from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.models import ApiEntry
from docmentor.library.service.service import LibraryKnowledge
from libtool import write_files

DOCUMENTS, USES = DEFAULT.documents_weight, DEFAULT.uses_weight

FILES = {
    "tmpl/__init__.py": """
        '''Pages from templates.'''
        from tmpl.app import App, render
        __all__ = ["App", "render"]
    """,
    "tmpl/app.py": """
        '''The application.'''

        class App:
            '''A web application.'''

            def context_processor(self, f):
                '''Register a function whose returned dict is merged into each page's variables.'''
                return f

            def add_template_filter(self, f, name=None):
                '''Register a filter usable in templates.'''
                return f

            def url_defaults(self, f):
                '''Register a function that fills in default URL values.'''
                return f

        def render(name, **context):
            '''Render a template by name with the given variables.'''
    """,
    "docs/templates.md": """
        # Templates

        ## Rendering

        Render a page from its template with variables.

        ```python
        import tmpl
        tmpl.render("index.html", user="ann")
        ```

        ## Context Processors

        To inject new variables automatically into every template, register a function
        that returns them; it runs before each page is rendered.

        ```python
        import tmpl
        app = tmpl.App()

        @app.context_processor
        def inject_user():
            return {"user": "ann"}
        ```

        ## Using context processors with filters

        Variables injected into every template work with filters too.

        ```python
        import tmpl
        app = tmpl.App()
        app.add_template_filter(str.upper, "shout")

        @app.context_processor
        def inject_title():
            return {"title": "home"}
        ```

        ## URL Defaults

        Every template's links can get default values too; see the rendering section.

        ```python
        import tmpl
        tmpl.render("links.html")
        ```
    """,
}

APP = "tmpl.app.App"
PROCESSOR = "tmpl.app.App.context_processor"
FILTER = "tmpl.app.App.add_template_filter"
DEFAULTS = "tmpl.app.App.url_defaults"


@pytest.fixture(scope="module")
def knowledge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LibraryKnowledge]:
    root = tmp_path_factory.mktemp("tmpl")
    write_files(root / "lib", FILES)
    engine = Docmentor(root / "index")
    try:
        generate(
            engine,
            library="tmpl",
            docs_path=root / "lib" / "docs",
            out=root / "out",
            search_paths=[root / "lib"],
            embeddings=False,
        )
        yield LibraryKnowledge(engine, cwd=root)
    finally:
        engine.close()


def _credit(knowledge: LibraryKnowledge, query: str) -> dict[str, dict[str, float]]:
    """Each found section's last heading → the APIs it credits (the real search and resolver)."""
    index = knowledge.index()
    assert index.section_search is not None
    out: dict[str, dict[str, float]] = {}
    for lib, source in index.docs_sources.items():
        for hit in index.section_search(query, source):
            out[hit.heading_path[-1]] = index._resolvers[lib].section_apis(hit)
    return out


def test_a_section_headed_by_a_method_it_uses_documents_it(knowledge: LibraryKnowledge) -> None:
    credit = _credit(knowledge, "inject variables into every template")
    assert credit["Context Processors"] == {PROCESSOR: DOCUMENTS, APP: USES}


def test_a_heading_that_only_contains_the_name_credits_a_use(knowledge: LibraryKnowledge) -> None:
    credit = _credit(knowledge, "inject variables into every template with filters")
    assert credit["Using context processors with filters"] == {PROCESSOR: USES, FILTER: USES, APP: USES}


def test_a_heading_spelling_a_method_the_section_does_not_use_credits_nothing(
    knowledge: LibraryKnowledge,
) -> None:
    credit = _credit(knowledge, "default values of every template's links")
    assert DEFAULTS not in credit["URL Defaults"]  # the section shows `render` only
    assert credit["URL Defaults"] == {"tmpl.app.render": USES}


def test_the_section_puts_the_method_first(knowledge: LibraryKnowledge) -> None:
    index = knowledge.index()
    ranking = index._sections("inject new variables automatically into every template", "tmpl")
    assert index.entries[ranking[0][0]][1].api_id == PROCESSOR and ranking[0][1] == 1.0


def _method(api_id: str) -> ApiEntry:
    parent, _, name = api_id.rpartition(".")
    return ApiEntry(api_id=api_id, kind="method", name=name, parent=parent)


def test_titled_is_the_whole_heading_word_for_word() -> None:
    resolver = MentionResolver(
        [_method(PROCESSOR), _method("pkg.Table.create_index"), _method("pkg.Table.get")]
    )
    assert resolver.titled("Context Processors") == {PROCESSOR}  # a plural for the last word
    assert resolver.titled("context processor") == {PROCESSOR}
    assert resolver.titled("Create an index") == set()  # not word for word
    assert resolver.titled("Processors, context") == set()  # not in the name's order
    assert resolver.titled("Get") == set()  # one word: too common a heading
    assert resolver.titled("Search with context processors") == set()  # about more than it
    long = "context processor " * 5_000  # a long heading: no work, no match
    assert resolver.titled(long) == set()
