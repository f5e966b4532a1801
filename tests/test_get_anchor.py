"""``get`` follows a link as the docs write it (``concepts/cache.md#clearing-the-cache``): the
section the anchor names, with its subsections (a uv docs tour: the anchor was "no indexed
document"). Through the CLI and MCP's get_doc alike: both call ``Docmentor.get``."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError

PAGE = """\
# Caching

Intro words.

## Clearing the cache

Use `uv cache clean`.

### Pruning

Use `uv cache prune`.

## Cache directory { #where-it-lives }

Under the home folder.

## Lifetime & subscription example

Four components.
"""


@pytest.fixture
def dm(tmp_path: Path) -> Docmentor:
    docs = tmp_path / "docs"
    (docs / "concepts").mkdir(parents=True)
    (docs / "concepts" / "cache.md").write_text(PAGE)
    (docs / "odd#name.md").write_text("# Odd\n\nA file name with a hash.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="docs")
    return engine


def test_an_anchor_narrows_the_page_to_its_section_and_subsections(dm: Docmentor) -> None:
    page = dm.get("concepts/cache.md#clearing-the-cache")
    assert page.content.splitlines() == [
        "## Clearing the cache",
        "",
        "Use `uv cache clean`.",
        "",
        "### Pruning",
        "",
        "Use `uv cache prune`.",
    ]
    # a heading's own id, the source named, and a heading written out as the anchor
    assert dm.get("docs:concepts/cache.md#where-it-lives").content.startswith("## Cache directory")
    assert dm.get("concepts/cache.md#Clearing the cache").content.startswith("## Clearing the cache")
    # lines asked for win over the anchor
    assert dm.get("concepts/cache.md#clearing-the-cache", lines=(1, 1)).content == "# Caching"
    # a path that holds # is read as the path first
    assert "A file name with a hash." in dm.get("odd#name.md").content


def test_an_anchor_the_page_has_not_says_which_it_has(dm: Docmentor) -> None:
    with pytest.raises(NotFoundError) as caught:
        dm.get("concepts/cache.md#no-such-part")
    assert "no section #no-such-part in docs:concepts/cache.md" in str(caught.value.message)
    assert "#clearing-the-cache" in (caught.value.hint or "")
    # no page: the error is about the page
    with pytest.raises(NotFoundError, match="no indexed document"):
        dm.get("concepts/nothing.md#clearing-the-cache")


def test_a_link_as_docusaurus_writes_it(dm: Docmentor) -> None:
    """A redux-toolkit tour: Docusaurus links pages without their extension
    (`rtk-query/api/createApi#refetchonfocus`) and its slugger keeps a dash per space
    (`lifetime--subscription-example`, where MkDocs writes one)."""
    assert dm.get("concepts/cache").path == "concepts/cache.md"
    assert dm.get("docs:concepts/cache#clearing-the-cache").content.startswith("## Clearing the cache")
    assert dm.get("concepts/cache.md#lifetime--subscription-example").content.startswith(
        "## Lifetime & subscription example"
    )
    with pytest.raises(NotFoundError, match="no indexed document"):
        dm.get("concepts/nothing")
