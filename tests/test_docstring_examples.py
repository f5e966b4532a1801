"""Examples written in the APIs' own docstrings (doctests, ``::`` literal blocks, code
directives, fences): a library whose docs are autodoc directives only shows its users those
(issue 22). Each is an example of the API whose docstring holds it, linked to what else it
uses; shown by README.LLM and get_examples, never counted where the docs' examples stand for
what users call. On a throwaway package read by the real surface and ``generate``."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.library import generate
from docmentor.library.examples.docstring_examples import DOCSTRING_SOURCE, docstring_code, docstring_examples
from docmentor.library.knowledge.kb_files import load_kb
from docmentor.library.knowledge.kb_schema import KnowledgeBase
from docmentor.library.models import ApiEntry
from docmentor.library.service.service import LibraryKnowledge
from libtool import write_files

DOCSTRING = """Split items into lists of n.

>>> chunk([1, 2, 3], 2)
[[1, 2], [3]]

Shell, not Python::

    $ pip install itr

A template is no Python either::

    {% for x in items %}{{ x }}{% endfor %}

Usage::

    parts = chunk(range(10), 3)
    print(list(parts))

.. code-block:: python
    :caption: with a window

    windows = chunk(data, 4)

.. versionchanged:: 2.0
   Accepts iterators.

```python
flat = [x for part in chunk(data, 2) for x in part]
```
"""


def test_the_code_blocks_of_a_docstring() -> None:
    blocks = list(docstring_code(DOCSTRING))
    codes = [b.code for b in blocks]
    assert codes == [
        ">>> chunk([1, 2, 3], 2)\n[[1, 2], [3]]",
        "$ pip install itr",
        "{% for x in items %}{{ x }}{% endfor %}",
        "parts = chunk(range(10), 3)\nprint(list(parts))",
        "windows = chunk(data, 4)",  # the directive's option is not code
        "flat = [x for part in chunk(data, 2) for x in part]",
    ]
    assert [b.language for b in blocks] == ["", "", "", "", "python", "python"]
    lines = DOCSTRING.split("\n")
    assert lines[blocks[0].line].startswith(">>> chunk")


def test_a_doctest_group_is_no_language_and_a_run_ends_at_a_dedent() -> None:
    grouped = "Doc.\n\n.. doctest:: mygroup\n\n   >>> f(1)\n   2\n\n.. testcode:: setup\n\n   g(2)\n"
    assert [(b.code, b.language) for b in docstring_code(grouped)] == [
        (">>> f(1)\n2", "pycon"),
        ("g(2)", "python"),
    ]
    google = "Doc.\n\nExample:\n    >>> f(1)\n    2\nReturns:\n    int\n"
    assert [b.code for b in docstring_code(google)] == [">>> f(1)\n2"]


def test_only_python_that_does_something_becomes_an_example() -> None:
    entry = ApiEntry(api_id="itr.core.chunk", aliases=["itr.chunk"], kind="function", name="chunk",
                     docstring=DOCSTRING, description="Split items into lists of n.",
                     source_file="itr/core.py", line=10, docstring_line=11)  # fmt: skip
    examples = docstring_examples([entry])
    # three at most per API: the doctest, the "Usage::" block, the code-block (not the shell
    # line, not the template)
    assert [ex.code.split("\n")[0] for ex in examples] == [
        ">>> chunk([1, 2, 3], 2)",
        "parts = chunk(range(10), 3)",
        "windows = chunk(data, 4)",
    ]
    first = examples[0]
    assert first.origin == "docstring" and first.source == DOCSTRING_SOURCE
    assert first.title == "itr.chunk" and first.apis_used == ["itr.core.chunk"]
    assert (first.path, first.line) == ("itr/core.py", 13)  # the docstring's third line
    # the docstring's line unknown: the definition's
    unknown = docstring_examples([entry.model_copy(update={"docstring_line": None})])
    assert unknown[0].line == 10
    # a docstring two entries share (a subclass showing its base's text) gives its examples once,
    # to the entry whose source holds it
    borrowed = entry.model_copy(update={"api_id": "itr.sub.chunk", "docstring_line": None})
    assert {ex.apis_used[0] for ex in docstring_examples([borrowed, entry])} == {"itr.core.chunk"}
    assert "Split items" in first.use_case
    # titled by the path users import it by: its own name, not an alias another module re-exports
    aliased = entry.model_copy(
        update={"api_id": "itr.dicts.OrderedMultiDict", "aliases": ["itr.urls.OMD", "itr.dicts.OMD"]}
    )
    assert {ex.title for ex in docstring_examples([aliased])} == {"itr.dicts.OrderedMultiDict"}


def test_a_session_that_only_sets_up_is_shown_and_run_with_the_next(tmp_path: Path) -> None:
    """The boltons tour: `>>> class Flag(object): …` (it calls nothing), prose, then the sessions
    that use Flag. The first was no example, so the next was shown without its set-up and
    failed --validate on a NameError."""
    from docmentor.library.examples.validate import validate_examples

    docstring = (
        "Render a repr.\n\n>>> class Flag(object):\n...    def __init__(self, length):\n"
        "...        self.length = length\n...\n\nThat's our Flag object:\n\n>>> flag = Flag(5)\n"
        ">>> print(flag.length)\n5\n\nAnd a definition alone at the end:\n\n>>> def unused(): pass\n"
    )
    entry = ApiEntry(api_id="fu.shown", kind="function", name="shown", docstring=docstring,
                     source_file="fu.py", line=3, docstring_line=4)  # fmt: skip
    examples = docstring_examples([entry])
    assert [ex.code for ex in examples] == [
        ">>> class Flag(object):\n...    def __init__(self, length):\n...        self.length = length\n...\n"
        ">>> flag = Flag(5)\n>>> print(flag.length)\n5"
    ]
    assert examples[0].line == 6  # where the set-up starts
    # two set-up sessions before it: both (a review)
    twice = entry.model_copy(
        update={
            "docstring": "Doc.\n\n>>> class Base(object): pass\n\nThen:\n\n>>> class Flag(Base): a = 5\n\n>>> Flag().a\n5\n"
        }
    )
    assert [ex.code for ex in docstring_examples([twice])] == [
        ">>> class Base(object): pass\n>>> class Flag(Base): a = 5\n>>> Flag().a\n5"
    ]
    report = validate_examples(examples)
    assert [r.status for r in report.results] == ["passed"], report.results


def test_malformed_docstrings_give_no_examples_and_no_error() -> None:
    odd = [
        "::",  # a literal block with nothing under it
        ".. code-block:: python",  # a directive with no body
        "```python\nvalue = fence(1)",  # a fence never closed: its code runs to the end
        ">>>",  # a bare prompt
        "\x00\x01 binary \ufffd" * 50,
    ]
    for text in odd:
        list(docstring_code(text))
    entries = [
        ApiEntry(api_id=f"m.f{k}", kind="function", name=f"f{k}", docstring=t) for k, t in enumerate(odd)
    ]
    assert [ex.code for ex in docstring_examples(entries)] == ["value = fence(1)"]


def test_a_long_docstring_is_read_in_one_pass() -> None:
    # every line opens a literal block or a doctest: each line is read a bounded number of times
    text = "Example::\n\n    f(1)\n\n>>> g(2)\n3\n\n" * 20_000
    assert len(list(docstring_code(text))) == 40_000


PACKAGE = {
    "itr/__init__.py": """
        '''Iterator tools.'''
        from itr.core import chunk, flatten, window, Window
        __all__ = ["chunk", "flatten", "window", "Window"]
    """,
    "itr/core.py": '''
        """The tools."""

        def chunk(items, n):
            """Split items into lists of n.

            >>> chunk([1, 2, 3], 2)
            [[1, 2], [3]]
            """

        def flatten(parts):
            """Join lists into one.

            Usage::

                flat = flatten(chunk(range(10), 3))
            """

        def _deco(f):
            return f

        @_deco
        def window(
            items,
            size,
        ):
            """
            Slide over items.

            >>> window([1, 2, 3], size=2, step=1)
            """

        class Window:
            """A sliding window over an iterable."""

            def __init__(self, size=2):
                """Make a window (mkdocstrings shows this text under the class's).

                >>> Window(size=3)
                """

            def slide(self, step):
                """Move the window along.

                >>> w = Window()
                >>> w.slide(2)
                """

        class Wide(Window):
            """A wider window (its __init__ is Window's: no example of its own from it)."""
    ''',
    "docs/api.rst": """
        API
        ===

        .. autofunction:: itr.chunk

        .. autofunction:: itr.flatten

        .. autoclass:: itr.Window
           :members: slide
    """,
    "docs/guide.rst": """
        Guide
        =====

        Flatten what you split::

            import itr
            itr.flatten(itr.chunk([1, 2, 3], 2))
    """,
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[KnowledgeBase, Path, Path]:
    root = tmp_path_factory.mktemp("itr")
    write_files(root / "lib", PACKAGE)
    engine = Docmentor(root / "index")
    try:
        result = generate(engine, library="itr", docs_path=root / "lib" / "docs", out=root / "out",
                          search_paths=[root / "lib"], embeddings=False)  # fmt: skip
    finally:
        engine.close()
    assert result.kb_path is not None
    assert (result.example_count, result.docstring_examples) == (1, 5)  # the guide's; the docstrings'
    return load_kb(Path(result.kb_path)), root / "index", root / "out" / "README.LLM"


def test_generate_links_each_docstring_example_to_its_api_and_what_it_uses(
    built: tuple[KnowledgeBase, Path, Path],
) -> None:
    kb, _, _ = built
    from_docstrings = {ex.example_id: ex for ex in kb.examples if ex.origin == "docstring"}
    assert set(from_docstrings) == {
        "docstring-itr.core.chunk-1",
        "docstring-itr.core.flatten-1",
        "docstring-itr.core.window-1",
        "docstring-itr.core.Window.slide-1",
        "docstring-itr.core.Window-1",  # its __init__'s docstring's, the class having its own
    }  # and none for Wide, which inherits that __init__
    # each at the line of its code in the file: after a decorator, a signature on several
    # lines, a docstring whose text starts on the line after its quotes
    source = (built[1].parent / "lib" / "itr" / "core.py").read_text(encoding="utf-8").split("\n")
    for ex in from_docstrings.values():
        assert source[ex.line - 1].strip() == ex.code.split("\n")[0].strip(), ex.example_id
    # the API whose docstring it is, first; then what its code calls by the module's names
    assert from_docstrings["docstring-itr.core.flatten-1"].apis_used == ["itr.core.flatten", "itr.core.chunk"]
    assert from_docstrings["docstring-itr.core.Window.slide-1"].apis_used[0] == "itr.core.Window.slide"
    assert all(ex.path == "itr/core.py" for ex in from_docstrings.values())
    # counted nowhere: an entry's examples are the docs' (importance, find_api's examples score)
    by_id = {e.api_id: e for e in kb.entries}
    assert by_id["itr.core.chunk"].examples == by_id["itr.core.flatten"].examples == ["guide-1"]
    assert by_id["itr.core.Window.slide"].examples == []
    assert (kb.metadata.stats["examples"], kb.metadata.stats["examples_from_docstrings"]) == (1, 5)
    # a docstring's example is the installed version's own: drift reads the docs' examples
    # (window's passes a keyword it does not take, and is not reported)
    assert kb.drift is not None and kb.drift["findings"] == []
    # the overview's quick start is the docs' (here: none of its pages is one)
    assert not any(x.startswith("docstring-") for x in kb.overview.quickstart_examples)


def test_readme_and_get_examples_show_them(built: tuple[KnowledgeBase, Path, Path]) -> None:
    _, index, readme = built
    text = readme.read_text(encoding="utf-8")
    # the method the docs show no example of: its docstring's; the function the guide shows:
    # the guide's (the docs' example before the docstring's)
    assert "w.slide(2)" in text
    assert "itr.flatten(itr.chunk([1, 2, 3], 2))" in text
    assert "flatten(chunk(range(10), 3))" not in text and "chunk([1, 2, 3], 2)\n# [[1, 2], [3]]" not in text
    engine = Docmentor(index, create=False)
    try:
        found = LibraryKnowledge(engine).get_examples("move a sliding window along by a step")
    finally:
        engine.close()
    assert found.examples[0].example_id == "docstring-itr.core.Window.slide-1"
    assert found.examples[0].source.startswith("itr/core.py:")
    assert found.examples[0].to_dict()["origin"] == "docstring"
    # as README.LLM shows it: the program the prompts spell, the names it calls bare imported
    # (a boltons tour: `>>> chunk(…)` with no import, where README.LLM showed one that runs)
    engine = Docmentor(index, create=False)
    try:
        shown = LibraryKnowledge(engine).get_examples("", apis_involved=["itr.chunk"], limit=5).examples
    finally:
        engine.close()
    (chunked,) = [ex for ex in shown if ex.example_id == "docstring-itr.core.chunk-1"]
    assert [ex.code for ex in shown if ex.example_id == "guide-1"] == [
        "import itr\nitr.flatten(itr.chunk([1, 2, 3], 2))\n"
    ]  # the docs' as written
    assert chunked.code == "from itr import chunk\nchunk([1, 2, 3], 2)\n# [[1, 2], [3]]", chunked.code


def test_a_docstring_binds_the_packages_top_level_names_its_module_lacks() -> None:
    """A tomlkit tour: `Array.add_line`'s doctest in `items.py` calls `array()`, which
    `tomlkit.api` defines and the package exports as `tomlkit.array`; nothing bound it, so the
    example credited nothing and README.LLM showed it without its import. A docstring's bare
    name is its module's own first, then the package's top-level one."""
    from docmentor.library.examples.docstring_examples import module_setup
    from docmentor.library.models import ApiEntry

    def fn(api_id: str, source: str, *aliases: str) -> ApiEntry:
        return ApiEntry(api_id=api_id, name=api_id.rsplit(".", 1)[-1], kind="function", aliases=list(aliases),
                        source_file=source)  # fmt: skip

    entries = [
        fn("tk.api.array", "tk/api.py", "tk.array"),
        fn("tk.api.item", "tk/api.py", "tk.item"),
        fn("tk.items.item", "tk/items.py"),  # the module's own `item` comes first
        fn("tk.items._helper", "tk/items.py"),
    ]
    setup = {ex.path: ex.code.split("\n") for ex in module_setup(entries)}
    assert setup["tk/items.py"] == ["from tk import array", "from tk.items import _helper, item"]
    assert setup["tk/api.py"] == ["from tk.api import array, item"]
