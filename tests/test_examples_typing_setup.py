"""Set-up code a page hides in an HTML comment (issue 22): the matcher reads it as the page's
context, so the examples after it are typed by what it binds, and it is never an example
itself. The scanner on small texts; the whole path on a throwaway package and its docs,
through the real ``generate``."""

from __future__ import annotations

import textwrap

import pytest

from docmentor.library.examples.setup_code import HiddenBlock, hidden_blocks
from libtool import generated_kb


def test_hidden_blocks_are_the_fences_inside_comments() -> None:
    text = textwrap.dedent(
        """
        # Title
        <!-- Setup Code
        ```python
        db = store.connect("x")
        ```
        -->
        ```python
        shown = 1  # <!-- inside code opens no comment
        ```
        <!-- a one-line comment --> text
        ```python
        also_shown = 2
        ```
        <!--
          ~~~js
          const t = 1
          ~~~
        -->
        """
    )
    assert hidden_blocks(text) == [
        HiddenBlock(4, "python", 'db = store.connect("x")\n'),
        HiddenBlock(16, "js", "const t = 1\n"),
    ]


def test_an_unclosed_comment_or_fence_gives_nothing_more() -> None:
    assert hidden_blocks("<!--\n```python\nx = 1\n") == []
    assert hidden_blocks("<!-- never closed\ntext\n") == []
    assert hidden_blocks("no comment\n```python\nx = 1\n```\n") == []


FILES = {
    "kvstore/__init__.py": '''
        """A tiny key-value store."""
        from kvstore.db import Bucket, Store, connect

        __all__ = ["Bucket", "Store", "connect"]
    ''',
    "kvstore/db.py": '''
        """Stores and buckets."""
        from __future__ import annotations


        class Bucket:
            """A named bucket of keys."""

            def put(self, key: str, value: bytes) -> None:
                """Store ``value`` under ``key``."""

            def scan(self, prefix: str) -> list[str]:
                """The keys starting with ``prefix``."""
                return []


        class Store:
            """An open store."""

            def bucket(self, name: str) -> Bucket:
                """The bucket called ``name``."""
                return Bucket()


        def connect(path: str) -> Store:
            """Open the store at ``path``."""
            return Store()
    ''',
    "docs/scan.md": """
        # Scanning

        <!-- Setup Code
        ```python
        import kvstore
        store = kvstore.connect("data")
        bkt = store.bucket("users")
        ```
        -->

        List the keys under a prefix:

        ```python
        bkt.scan("user:")
        ```
    """,
    "docs/other.md": """
        # Another page

        Names from another page's set-up code are not bound here:

        ```python
        bkt.put("k", b"v")
        ```
    """,
}


@pytest.fixture(scope="module")
def kb_examples(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, list[str]]]:
    """Each Python example's page, code and the APIs it credits."""
    root = tmp_path_factory.mktemp("kvstore")
    kb = generated_kb(root, "kvstore", FILES)
    return [(ex.path, ex.code, ex.apis_used) for ex in kb.examples]


def test_an_example_is_typed_by_the_set_up_code_hidden_before_it(
    kb_examples: list[tuple[str, str, list[str]]],
) -> None:
    assert [apis for path, _, apis in kb_examples if path == "scan.md"] == [["kvstore.db.Bucket.scan"]]


def test_the_set_up_code_is_no_example(kb_examples: list[tuple[str, str, list[str]]]) -> None:
    assert not any("kvstore.connect" in code for _, code, _ in kb_examples)


def test_set_up_code_types_only_its_own_page(kb_examples: list[tuple[str, str, list[str]]]) -> None:
    assert [apis for path, _, apis in kb_examples if path == "other.md"] == [[]]
