"""``get`` follows a link as the docs write it (``concepts/cache.md#clearing-the-cache``): the
section the anchor names, with its subsections (a uv docs tour: the anchor was "no indexed
document"). Through the CLI and MCP's get_doc alike: both call ``Docmentor.get``."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError, UsageError

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

## server.fs.allow

Folders served.

## 431 Request Header Fields Too Large

Too many cookies.

## `hot.on(event, cb)`

Listen.

## Example code

The first.

## Example code

The second.
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


def test_a_link_as_vitepress_writes_it(dm: Docmentor) -> None:
    """A Vite tour: VitePress' slugger turns every run of punctuation into a dash
    (`#server-fs-allow`, where GitHub and MkDocs write `#serverfsallow`) and puts `_` before
    a leading digit (`#_431-request-header-fields-too-large`); 54 of the docs' 147 links to
    a section failed."""
    assert dm.get("concepts/cache.md#server-fs-allow").content.startswith("## server.fs.allow")
    assert dm.get("concepts/cache.md#serverfsallow").content.startswith("## server.fs.allow")
    assert dm.get("concepts/cache#_431-request-header-fields-too-large").content.startswith("## 431 Request")
    assert dm.get("concepts/cache.md#hot-on-event-cb").content.startswith("## `hot.on(event, cb)`")
    with pytest.raises(NotFoundError):
        dm.get("concepts/cache.md#server-fs")  # a part of a heading names no section


def test_a_repeated_headings_anchor_as_github_and_docusaurus_number_it(dm: Docmentor) -> None:
    """A tRPC tour: the second "Example code" is `#example-code-1` for GitHub and
    Docusaurus (`#example-code_1` for MkDocs, as stored); the docs' link failed."""
    assert dm.get("concepts/cache.md#example-code-1").content.endswith("The second.")
    assert dm.get("concepts/cache.md#example-code_1").content.endswith("The second.")
    assert dm.get("concepts/cache.md#example-code").content.endswith("The first.")


def test_a_site_absolute_link_reads_as_its_page(dm: Docmentor) -> None:
    """A tRPC tour: 110 of the docs' 260 links are site routes (`/docs/server/context`),
    which `get` could not read: the docs folder has no `docs/` base. The route's end that
    names a page is that page."""
    assert dm.get("/docs/concepts/cache").path == "concepts/cache.md"
    assert dm.get("docs:/docs/concepts/cache#clearing-the-cache").content.startswith("## Clearing the cache")
    assert dm.get("/concepts/cache").path == "concepts/cache.md"
    with pytest.raises(NotFoundError):
        dm.get("/docs/concepts/nothing")
    # (review) a route is a page's path, not the end of one in another folder
    with pytest.raises(NotFoundError):
        dm.get("docs:/docs/server/cache")


def test_a_route_a_page_gives_itself_in_front_matter_reads_as_that_page(tmp_path: Path) -> None:
    """A tRPC tour: six of the docs' links named `/docs/client/nextjs/app-router-setup`, the
    `slug:` of `client/nextjs/app-router/setup.mdx`; a relative slug is under the page's folder."""
    docs = tmp_path / "docs"
    (docs / "client" / "nextjs" / "app-router").mkdir(parents=True)
    (docs / "client" / "nextjs" / "app-router" / "setup.mdx").write_text(
        "---\nid: setup\nslug: '/client/nextjs/app-router-setup'\n---\n\n# Set up\n\nWords.\n"
    )
    (docs / "tutorials").mkdir()
    (docs / "tutorials" / "intro.md").write_text("---\nslug: overview\n---\n\n# Intro\n\nStart here.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="docs")
    assert engine.get("/docs/client/nextjs/app-router-setup").path == "client/nextjs/app-router/setup.mdx"
    assert engine.get("docs:/docs/tutorials/overview").path == "tutorials/intro.md"
    with pytest.raises(NotFoundError):
        engine.get("/docs/overview")  # a relative slug is under its folder


def test_a_route_of_a_site_built_from_a_folder_of_the_source_reads_as_its_page(tmp_path: Path) -> None:
    """A tour added lancedb's docs folder, whose `mkdocs.yml` builds the site from `src/`
    (`docs_dir: src`): the site's `/search/` is `src/search.md`; `get /search/` found nothing.
    Two pages the route could be are neither."""
    docs = tmp_path / "docs"
    (docs / "src" / "guides").mkdir(parents=True)
    (docs / "mkdocs.yml").write_text("site_name: x\ndocs_dir: src\n")
    (docs / "src" / "search.md").write_text("# Search\n\nVector search.\n")
    (docs / "src" / "guides" / "tables.md").write_text("# Tables\n\nCreate one.\n")
    (docs / "src" / "faq.md").write_text("# FAQ\n\nAnswers.\n")
    (docs / "other").mkdir()
    (docs / "other" / "faq.md").write_text("# Other FAQ\n\nMore answers.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="lancedb")
    assert engine.get("/search/").path == "src/search.md"
    assert engine.get("lancedb:/guides/tables").path == "src/guides/tables.md"
    assert engine.get("/src/search").path == "src/search.md"
    with pytest.raises(NotFoundError):
        engine.get("/faq/")  # src/faq.md or other/faq.md: not a guess


def test_a_route_without_number_prefixes_reads_as_the_numbered_page(tmp_path: Path) -> None:
    """A SvelteKit tour: `20-core-concepts/10-routing.md` is `/docs/kit/routing` on the site
    (Docusaurus drops number prefixes too), and the docs link `routing`; `get` read neither.
    A page without number prefixes is still no route's end in another folder."""
    docs = tmp_path / "docs"
    (docs / "20-core-concepts").mkdir(parents=True)
    (docs / "20-core-concepts" / "10-routing.md").write_text(
        "---\ntitle: Routing\n---\n\n## +page\n\nPages.\n"
    )
    (docs / "20-core-concepts" / "20-load.md").write_text("---\ntitle: Loading data\n---\n\nLoad.\n")
    (docs / "guide").mkdir()
    (docs / "guide" / "cache.md").write_text("# Cache\n\nCaching.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="kit")
    assert engine.get("/docs/kit/routing").path == "20-core-concepts/10-routing.md"
    assert engine.get("kit:routing").path == "20-core-concepts/10-routing.md"
    assert engine.get("kit:core-concepts/load.md").path == "20-core-concepts/20-load.md"
    assert engine.get("/docs/kit/routing#page").content.startswith("## +page")
    with pytest.raises(NotFoundError):
        engine.get("/docs/kit/server/cache")


def test_number_prefixes_are_not_versions_or_dates_and_a_numbered_ask_is_exact(tmp_path: Path) -> None:
    """(review) `changelog/1.2.md` and `2024-01-01-post.md` carry no number prefix; asking for
    a numbered page that is not there finds no unnumbered one."""
    from docmentor.engine.lookup import _unnumbered

    assert _unnumbered("changelog/1.2.md") == "changelog/1.2.md"
    assert _unnumbered("2024-01-01-post.md") == "2024-01-01-post.md"
    assert _unnumbered("20-core-concepts/10-routing.md") == "core-concepts/routing.md"
    assert _unnumbered("1.getting-started/10.data-fetching.md") == "getting-started/data-fetching.md"
    assert _unnumbered("changelog/2.0-release.md") == "changelog/2.0-release.md"
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "routing.md").write_text("# Routing\n\nRoutes.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="d")
    with pytest.raises(NotFoundError):
        engine.get("d:10-routing.md")


def test_a_rest_label_names_the_section_below_it(tmp_path: Path) -> None:
    """A SQLAlchemy tour: its docs link `pooling.html#pool-disconnects-pessimistic`, the label
    `.. _pool_disconnects_pessimistic:` above the heading "Disconnect Handling - Pessimistic"."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pooling.rst").write_text(
        "Pooling\n=======\n\nIntro.\n\n.. _pool_disconnects_pessimistic:\n\n"
        "Disconnect Handling - Pessimistic\n---------------------------------\n\nPing first.\n\n"
        "Other\n-----\n\nElse.\n"
    )
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="docs")
    for anchor in ("pool_disconnects_pessimistic", "pool-disconnects-pessimistic"):
        page = engine.get(f"pooling.rst#{anchor}")
        # the section as the page has it: its label, its heading, its text
        assert page.content.startswith(".. _pool_disconnects_pessimistic:\n\nDisconnect Handling"), (
            page.content
        )
        assert "Ping first." in page.content and "Else." not in page.content
    with pytest.raises(NotFoundError):
        engine.get("pooling.rst#pool_nothing")


def test_a_file_named_from_the_current_folder_or_a_citation_with_its_lines(
    dm: Docmentor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tour: `get ../repo/docs/index.md` (the folder added relative to another) was "no
    indexed document" while the absolute path worked; get_examples cites `path:LINE`, which
    get_doc refused."""
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert dm.get("../docs/concepts/cache.md").path == "concepts/cache.md"
    assert dm.get("docs:concepts/cache.md:5").path == "concepts/cache.md"
    assert dm.get("concepts/cache.md:5-9").path == "concepts/cache.md"
    with pytest.raises(NotFoundError):
        dm.get("../docs/concepts/missing.md")
    with pytest.raises(NotFoundError):
        dm.get("concepts/cache.md:five")


def test_a_citation_reads_its_lines_or_the_section_of_its_line(dm: Docmentor) -> None:
    """`path:12-30` reads those lines, `path:LINE` (get_examples' citation of an example's
    first line) the innermost section holding it; a line past the end is an error, not the
    whole page (a review: the lines of a citation were dropped)."""
    assert dm.get("concepts/cache.md:5-7").content.splitlines() == [
        "## Clearing the cache",
        "",
        "Use `uv cache clean`.",
    ]
    assert dm.get("docs:concepts/cache.md:11").content.startswith("### Pruning\n\nUse `uv cache prune`.")
    assert "Intro words." not in dm.get("concepts/cache.md:11").content
    with pytest.raises(UsageError, match="lines 999-999"):
        dm.get("concepts/cache.md:999")
    # as grep -n writes it (a tour: "no indexed document")
    assert dm.get("concepts/cache.md:5-7:").content == dm.get("concepts/cache.md:5-7").content
    assert dm.get("concepts/cache.md:11:").content == dm.get("concepts/cache.md:11").content
    for odd in ("concepts/cache.md:²", "concepts/cache.md:1-²"):  # digits to str.isdigit, not line numbers
        with pytest.raises(NotFoundError):
            dm.get(odd)


def test_an_excerpt_looks_in_the_part_an_anchor_or_a_citation_names(dm: Docmentor) -> None:
    """get_doc_excerpt takes the references get_doc takes: `#anchor` (it was "no indexed
    document") and a citation's lines (they were ignored), and looks only there (an agent
    tour)."""
    found = dm.excerpt("concepts/cache.md#pruning", "uv cache")
    assert found["excerpts"] and all(
        e["line_start"] >= 9 and e["line_end"] <= 12 for e in found["excerpts"]
    ), found
    cited = dm.excerpt("concepts/cache.md:5-7", "uv cache")
    assert cited["excerpts"] and all(
        e["line_start"] >= 5 and e["line_start"] <= 8 for e in cited["excerpts"]
    ), cited
    whole = dm.excerpt("concepts/cache.md", "uv cache")
    assert {e["line_start"] for e in whole["excerpts"]} - {e["line_start"] for e in cited["excerpts"]}


def test_a_backwards_citation_is_an_error_in_an_excerpt_as_in_get(dm: Docmentor) -> None:
    """`page.md:30-12` (a review: the excerpt looked through the whole page instead)."""
    for read in (
        lambda: dm.get("concepts/cache.md:7-5"),
        lambda: dm.excerpt("concepts/cache.md:7-5", "uv cache"),
    ):
        with pytest.raises(UsageError, match="bad line range 7-5"):
            read()
    with pytest.raises(UsageError, match="bad line range 0-3"):
        dm.excerpt("concepts/cache.md:0-3", "uv cache")
