"""Refreshing sources through the engine: llms.txt sites on a real local HTTP server, and folders."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import httpserver
from docmentor.engine import Docmentor, SourceInfo
from docmentor.errors import NotFoundError, SourceUnavailableError
from httpserver import HttpServer, Reply

http_server = httpserver.http_server
http_server_factory = httpserver.http_server_factory

MD = "text/markdown; charset=utf-8"
FAST: dict[str, Any] = {"retries": 0, "timeout": 5.0}
PAGES = {
    "intro.md": "# Intro\n\nThe aardvark digs.\n",
    "install.md": "# Install\n\n## Pip\n\nThe bandicoot installs with pip.\n",
    "api.md": "# API\n\nThe capybara function returns widgets.\n",
}
WORDS = {"intro.md": "aardvark", "install.md": "bandicoot", "api.md": "capybara"}


def set_index(server: HttpServer, names: list[str], **reply: Any) -> str:
    body = "# Widget Docs\n\n> Widgets, documented.\n\n## Docs\n\n" + "".join(
        f"- [{n.removesuffix('.md').title()}]({n}): about {n}\n" for n in names
    )
    server.add("/docs/llms.txt", body, content_type="text/plain; charset=utf-8", **reply)
    return server.url("/docs/llms.txt")


def serve_site(server: HttpServer, pages: dict[str, str] = PAGES, **reply: Any) -> str:
    for name, text in pages.items():
        server.add(f"/docs/{name}", text, content_type=MD, **reply)
    return set_index(server, list(pages))


@pytest.fixture
def engine(index_location: str) -> Iterator[Docmentor]:
    """An empty index on each backend (the embedded index, a PostgreSQL schema)."""
    with closing(Docmentor(index_location)) as eng:
        yield eng


def snapshot(eng: Docmentor, source: str) -> dict[str, tuple[str, str, bool]]:
    """path → (content hash, content, stale) for every stored document of a source."""
    return {
        path: (doc.content_hash, eng.store.content(doc.id), doc.stale)
        for path, doc in eng.store.documents(source).items()
    }


def found(eng: Docmentor, word: str) -> list[str]:
    return [h.path for h in eng.search(word, limit=10)]


def the_source(eng: Docmentor) -> SourceInfo:
    (src,) = eng.sources()
    return src


# ---------------------------------------------------------------------------- llms.txt


def test_first_add_indexes_every_linked_doc(engine: Docmentor, http_server: HttpServer) -> None:
    url = serve_site(http_server)
    report = engine.add(url, name="site", options=FAST)
    assert (report.kind, report.added, report.failed, report.documents) == ("llms_txt", 4, [], 4)
    src = the_source(engine)
    assert (src["name"], src["kind"], src["target"], src["title"], src["status"]) == (
        "site",
        "llms_txt",
        url,
        "Widget Docs",
        "ok",
    )
    assert sorted(snapshot(engine, "site")) == [
        "/docs/api.md",
        "/docs/install.md",
        "/docs/intro.md",
        "/docs/llms.txt",
    ]
    for name, word in WORDS.items():
        hits = engine.search(word)
        assert [(h.path, h.url) for h in hits] == [(f"/docs/{name}", http_server.url(f"/docs/{name}"))], word
        page = engine.get(http_server.url(f"/docs/{name}"))
        assert (page.content, page.stale, page.error) == (PAGES[name], False, None)
        assert engine.get(f"site:/docs/{name}").content == PAGES[name]
    assert engine.search("bandicoot")[0].heading_path == ["Install", "Pip"]
    assert http_server.errors == []


def test_unchanged_refresh_writes_nothing(engine: Docmentor, http_server: HttpServer) -> None:
    engine.add(serve_site(http_server), name="site", options=FAST)
    before = snapshot(engine, "site")
    (report,) = engine.refresh("site")
    assert (report.added, report.updated, report.unchanged, report.removed, report.failed) == (0, 0, 4, 0, [])
    assert snapshot(engine, "site") == before


def test_a_failing_doc_keeps_its_last_good_copy(engine: Docmentor, http_server: HttpServer) -> None:
    engine.add(serve_site(http_server), name="site", options=FAST)
    http_server.add("/docs/install.md", Reply(status=500, body="boom"))
    http_server.add("/docs/api.md", PAGES["api.md"].replace("capybara", "dugong"), content_type=MD)
    (report,) = engine.refresh("site")
    assert report.failed == [(http_server.url("/docs/install.md"), "HTTP 500 after 1 attempt")]
    assert (report.updated, report.unchanged, report.removed, report.documents) == (1, 2, 0, 4)
    page = engine.get("site:/docs/install.md")
    assert (page.content, page.stale, page.error) == (PAGES["install.md"], True, "HTTP 500 after 1 attempt")
    assert found(engine, "bandicoot") == ["/docs/install.md"]
    assert found(engine, "dugong") == ["/docs/api.md"]
    assert found(engine, "capybara") == []
    src = the_source(engine)
    assert (src["documents"], src["stale_documents"], src["status"]) == (4, 1, "ok")

    http_server.add("/docs/install.md", PAGES["install.md"], content_type=MD)
    (report,) = engine.refresh("site")
    assert (report.failed, report.unchanged) == ([], 4)
    page = engine.get("site:/docs/install.md")
    assert (page.stale, page.error) == (False, None)
    assert the_source(engine)["stale_documents"] == 0


def test_a_doc_failing_on_first_add_is_reported_not_stored(
    engine: Docmentor, http_server: HttpServer
) -> None:
    url = serve_site(http_server)
    http_server.add("/docs/api.md", Reply(status=404))
    report = engine.add(url, name="site", options=FAST)
    assert report.failed == [(http_server.url("/docs/api.md"), "HTTP 404")]
    assert (report.added, report.documents) == (3, 3)
    with pytest.raises(NotFoundError):
        engine.get("site:/docs/api.md")


def test_llms_txt_unavailable_leaves_the_source_untouched(engine: Docmentor, http_server: HttpServer) -> None:
    engine.add(serve_site(http_server), name="site", options=FAST)
    before = snapshot(engine, "site")
    set_index(http_server, ["intro.md"], status=503)  # would drop two documents, if it were served
    http_server.add("/docs/intro.md", "# Intro\n\nchanged\n", content_type=MD)
    with pytest.raises(SourceUnavailableError, match="HTTP 503"):
        engine.refresh("site")
    assert snapshot(engine, "site") == before
    src = the_source(engine)
    assert (src["documents"], src["status"]) == (4, "error")
    assert src["error"] is not None and "HTTP 503" in src["error"]
    assert found(engine, "aardvark") == ["/docs/intro.md"]
    assert http_server.hits("/docs/intro.md") == 1  # nothing was fetched without a listing

    # refreshing every source reports the failure instead of raising
    (report,) = engine.refresh()
    assert report.source == "site" and "HTTP 503" in report.failed[0][1]
    assert snapshot(engine, "site") == before


def test_server_gone_is_source_unavailable(engine: Docmentor, tmp_path: Path) -> None:
    with HttpServer() as server:
        url = serve_site(server)
        engine.add(url, name="site", options=FAST)
    before = snapshot(engine, "site")
    with pytest.raises(SourceUnavailableError, match="connection failed"):
        engine.refresh("site")
    assert snapshot(engine, "site") == before


def test_a_doc_dropped_from_the_listing_is_removed(engine: Docmentor, http_server: HttpServer) -> None:
    engine.add(serve_site(http_server), name="site", options=FAST)
    set_index(http_server, ["intro.md", "install.md"])
    (report,) = engine.refresh("site")
    assert (report.removed, report.updated, report.unchanged, report.documents) == (1, 1, 2, 3)
    assert found(engine, "capybara") == []
    with pytest.raises(NotFoundError):
        engine.get("site:/docs/api.md")
    assert sorted(snapshot(engine, "site")) == ["/docs/install.md", "/docs/intro.md", "/docs/llms.txt"]


def test_etag_304_counts_as_unchanged(engine: Docmentor, http_server: HttpServer) -> None:
    url = serve_site(http_server, etag='"v1"')
    engine.add(url, name="site", options=FAST)
    # a new body behind the same ETag: only a conditional request gets the old copy kept
    http_server.add("/docs/api.md", "# API\n\nsomething else\n", content_type=MD, etag='"v1"')
    (report,) = engine.refresh("site")
    assert (report.added, report.updated, report.unchanged, report.failed) == (0, 0, 4, [])
    assert [r.headers.get("if-none-match") for r in http_server.requests_for("/docs/api.md")] == [
        None,
        '"v1"',
    ]
    assert engine.get("site:/docs/api.md").content == PAGES["api.md"]
    http_server.add("/docs/api.md", "# API\n\nThe dugong.\n", content_type=MD, etag='"v2"')
    (report,) = engine.refresh("site")
    assert (report.updated, report.unchanged) == (1, 3)
    assert found(engine, "dugong") == ["/docs/api.md"]
    (report,) = engine.refresh("site")
    assert http_server.requests_for("/docs/api.md")[-1].headers.get("if-none-match") == '"v2"'
    assert report.unchanged == 4


def test_last_modified_304(engine: Docmentor, http_server: HttpServer) -> None:
    stamp = "Wed, 21 Oct 2015 07:28:00 GMT"
    engine.add(serve_site(http_server, last_modified=stamp), name="site", options=FAST)
    (report,) = engine.refresh("site")
    assert report.unchanged == 4
    assert http_server.requests_for("/docs/intro.md")[-1].headers.get("if-modified-since") == stamp


def test_a_redirect_to_another_host_is_refused(
    engine: Docmentor, http_server: HttpServer, http_server_factory: Callable[..., HttpServer]
) -> None:
    other = http_server_factory(url_host="localhost")
    other.add("/docs/install.md", "# Install\n\nThe evil eel.\n", content_type=MD)
    engine.add(serve_site(http_server), name="site", options=FAST)
    http_server.redirect("/docs/install.md", other.url("/docs/install.md"))
    (report,) = engine.refresh("site")
    ((failed_url, error),) = report.failed
    assert failed_url == http_server.url("/docs/install.md")
    assert "refused" in error and other.url("/docs/install.md") in error
    assert other.hits("/docs/install.md") == 0
    page = engine.get("site:/docs/install.md")
    assert (page.content, page.stale) == (PAGES["install.md"], True)
    assert found(engine, "eel") == []


def test_a_redirect_on_the_same_host_is_followed(engine: Docmentor, http_server: HttpServer) -> None:
    url = serve_site(http_server)
    http_server.redirect("/docs/api.md", "/docs/v2/api.md")
    http_server.add("/docs/v2/api.md", PAGES["api.md"], content_type=MD, etag='"r1"')
    engine.add(url, name="site", options=FAST)
    assert found(engine, "capybara") == ["/docs/api.md"]
    # the page is read by the URL the llms.txt lists, as by the one it redirected to
    listed = http_server.url("/docs/api.md")
    assert engine.get(listed).content == engine.get(http_server.url("/docs/v2/api.md")).content
    assert engine.get(listed, source="site").content == PAGES["api.md"]
    (report,) = engine.refresh("site")
    assert (report.unchanged, report.removed) == (4, 0)
    assert http_server.requests_for("/docs/api.md")[-1].headers.get("if-none-match") == '"r1"'
    # the redirect target now fails: the document must be kept (stale), not dropped
    http_server.add("/docs/v2/api.md", Reply(status=500))
    (report,) = engine.refresh("site")
    assert len(report.failed) == 1 and report.removed == 0
    page = engine.get("site:/docs/api.md")
    assert (page.content, page.stale) == (PAGES["api.md"], True)
    assert found(engine, "capybara") == ["/docs/api.md"]


def test_an_oversize_doc_fails_and_keeps_the_previous_copy(
    engine: Docmentor, http_server: HttpServer
) -> None:
    engine.add(serve_site(http_server), name="site", options={**FAST, "max_bytes": 2000})
    http_server.add("/docs/intro.md", "# Intro\n\n" + "aardvark " * 500, content_type=MD)
    http_server.add("/docs/api.md", "# API\n\n" + "capybara " * 500, content_type=MD, chunked=True)
    (report,) = engine.refresh("site")
    errors = dict(report.failed)
    assert set(errors) == {http_server.url("/docs/intro.md"), http_server.url("/docs/api.md")}
    assert all("over the size cap" in e for e in errors.values()), errors
    for name in ("intro.md", "api.md"):
        page = engine.get(f"site:/docs/{name}")
        assert (page.content, page.stale) == (PAGES[name], True)
    assert the_source(engine)["documents"] == 4


# ------------------------------------------------------------------------------ folders


def test_a_vanished_folder_is_an_error_and_nothing_is_removed(engine: Docmentor, tmp_path: Path) -> None:
    folder = tmp_path / "manual"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe axolotl.\n", encoding="utf-8")
    (folder / "b.md").write_text("# B\n\nThe bison.\n", encoding="utf-8")
    engine.add(str(folder), name="manual")
    before = snapshot(engine, "manual")
    moved = tmp_path / "elsewhere"
    shutil.move(folder, moved)
    with pytest.raises(SourceUnavailableError, match="is gone"):
        engine.refresh("manual")
    assert snapshot(engine, "manual") == before
    src = the_source(engine)
    assert (src["documents"], src["status"]) == (2, "error")
    assert found(engine, "axolotl") == ["a.md"]
    (report,) = engine.refresh()
    assert report.failed and report.removed == 0
    assert snapshot(engine, "manual") == before

    shutil.move(moved, folder)
    (report,) = engine.refresh("manual")
    assert (report.unchanged, report.removed, report.failed) == (2, 0, [])
    src = the_source(engine)
    assert (src["status"], src["error"]) == ("ok", None)


def test_an_emptied_folder_removes_its_documents(engine: Docmentor, tmp_path: Path) -> None:
    folder = tmp_path / "manual"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe axolotl.\n", encoding="utf-8")
    engine.add(str(folder), name="manual")
    (folder / "a.md").unlink()
    (report,) = engine.refresh("manual")
    assert (report.removed, report.documents) == (1, 0)
    assert found(engine, "axolotl") == []


def test_a_symlinked_folder_is_followed_anew_at_each_refresh(index_location: str, tmp_path: Path) -> None:
    for version, word in (("v1", "alphaword"), ("v2", "bravoword")):
        (tmp_path / version).mkdir()
        (tmp_path / version / "page.md").write_text(f"# Page\n\nAbout {word}.\n", encoding="utf-8")
    current = tmp_path / "current"
    current.symlink_to(tmp_path / "v1", target_is_directory=True)
    dm = Docmentor(index_location)
    dm.add(str(current), name="site")
    assert [h.path for h in dm.search("alphaword")] == ["page.md"]
    tmp = tmp_path / "next"
    tmp.symlink_to(tmp_path / "v2", target_is_directory=True)
    tmp.replace(current)
    report = dm.refresh("site")[0]
    assert report.updated == 1
    assert dm.search("alphaword") == []
    assert [h.path for h in dm.search("bravoword")] == ["page.md"]
    assert dm.sources()[0]["target"] == str(current)
    dm.store.conn().execute("UPDATE sources SET refreshed_at = '2000-01-01T00:00:00Z'")
    report = dm.refresh("site")[0]  # unchanged: still a refresh
    assert report.unchanged == 1
    refreshed_at = dm.sources()[0]["refreshed_at"]
    assert refreshed_at is not None and refreshed_at > "2000-01-01T00:00:00Z"
    dm.close()


# ---------------------------------------------------------------------------- details


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("Wed, 21 Oct 2015 07:28:00 GMT", "2015-10-21T07:28:00Z"),
        ("Sunday, 06-Nov-94 08:49:37 GMT", "1994-11-06T08:49:37Z"),  # RFC 850, via email.utils
        ("Wed, 21 Oct 2015 07:28:00 +0200", "2015-10-21T05:28:00Z"),
        ("Mon, 31 Feb 2015 07:28:00 GMT", None),
        ("yesterday", None),
    ],
)
def test_last_modified_dates(value: str, iso: str | None) -> None:
    from docmentor.engine.read_source import http_date_iso

    assert http_date_iso(value) == iso


def test_a_lexical_index_left_without_its_store_is_cleared(tmp_path: Path) -> None:
    # Embedded only: deletes the index folder's SQLite files under its tantivy index.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe aardvark digs.\n")
    with closing(Docmentor(tmp_path / "index")) as eng:
        eng.add(str(docs), name="docs")
        assert found(eng, "aardvark") == ["a.md"]
    for f in (tmp_path / "index").glob("index.sqlite3*"):
        f.unlink()
    with closing(Docmentor(tmp_path / "index")) as eng:  # a new store over the old lexical index
        assert eng.sources() == [] and found(eng, "aardvark") == []
    fresh = tmp_path / "fresh"
    with closing(Docmentor(fresh)) as eng:
        assert found(eng, "aardvark") == []
        assert not (fresh / "lexical").exists()  # made by the first writer, never by a search
        eng.add(str(docs), name="docs")
        assert found(eng, "aardvark") == ["a.md"]
    with closing(Docmentor(fresh, create=False)) as reader:
        assert found(reader, "aardvark") == ["a.md"]


def test_a_document_kept_stale_is_marked_where_it_is_served(index_location: str, tmp_path: Path) -> None:
    """A refresh that would drop most of a folder keeps the documents, marked stale; search
    (its JSON and the hit) and the digest say so beside the citation: the text may be gone."""
    from docmentor import assemble_context

    docs = tmp_path / "docs"
    docs.mkdir()
    topics = ["kettle descaling", "lantern wicks", "anchor chains", "saddle leather", "loom shuttles"]
    for i, topic in enumerate(topics):
        (docs / f"page{i}.md").write_text(f"# Page {i}\n\n## {topic.title()}\n\nAll about {topic}.\n")
    with closing(Docmentor(index_location)) as eng:
        eng.add(docs, name="fx")
        for i in range(1, 5):  # four of five gone: over the prune guard, so kept and marked
            (docs / f"page{i}.md").unlink()
        eng.refresh("fx")
        (gone,) = eng.search("lantern wicks", limit=1)
        (kept,) = eng.search("kettle descaling", limit=1)
        assert (gone.path, gone.stale, gone.to_dict()["stale"]) == ("page1.md", True, True)
        assert (kept.path, kept.stale, "stale" in kept.to_dict()) == ("page0.md", False, False)
        digest = assemble_context(eng, "lantern wicks", source="fx", fmt="json")
        (section,) = [s for s in digest.sections if s.candidate.path == "page1.md"]
        assert section.to_dict()["stale"] is True
        text = assemble_context(eng, "lantern wicks", source="fx").markdown
        (line,) = [x for x in text.splitlines() if x.startswith("**Source:** page1.md:3-5 ")]
        assert line.endswith("(stale: the last good copy; the last refresh could not update it)"), line


def test_a_folder_with_no_documentation_files_says_so(tmp_path: Path) -> None:
    """A mistyped path or a folder of code alone read as "0 documents" and nothing else."""
    folder = tmp_path / "code"
    folder.mkdir()
    (folder / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "README.md").write_text("# Not ours\n", encoding="utf-8")
    with closing(Docmentor(tmp_path / "index", embeddings=False)) as eng:
        report = eng.add(folder, name="code")
        assert report.documents == 0
        (warning,) = report.warnings
        assert warning.startswith(f"no documentation files in {folder} (files ending .md, ")
        (folder / "guide.md").write_text("# Guide\n\nWords.\n", encoding="utf-8")
        (again,) = eng.refresh("code")
        assert (again.documents, again.warnings) == (1, [])


def test_the_llms_txt_itself_is_asked_for_conditionally(engine: Docmentor, http_server: HttpServer) -> None:
    """A refresh asks for an unchanged llms.txt (or llms-full.txt) with its validators and,
    on a 304, reads the links of the stored copy (a tour: the index was downloaded in full on
    every refresh though each page it links was asked for conditionally)."""
    serve_site(http_server, etag='"p1"')
    url = set_index(http_server, list(PAGES), etag='"i1"')
    engine.add(url, name="site", options=FAST)
    http_server.reset_stats()
    (report,) = engine.refresh("site")
    (asked,) = http_server.requests_for("/docs/llms.txt")
    assert asked.headers.get("if-none-match") == '"i1"'
    assert (report.unchanged, report.failed, report.removed, report.documents) == (4, [], 0, 4)
    assert found(engine, "capybara") == ["/docs/api.md"]
    # the llms.txt changes: read in full, its new link fetched, its new validator kept
    http_server.add("/docs/new.md", "# New\n\nThe echidna.\n", content_type=MD)
    set_index(http_server, [*PAGES, "new.md"], etag='"i2"')
    (report,) = engine.refresh("site")
    assert (report.added, report.updated) == (1, 1) and found(engine, "echidna") == ["/docs/new.md"]
    http_server.reset_stats()
    engine.refresh("site")
    assert http_server.requests_for("/docs/llms.txt")[0].headers.get("if-none-match") == '"i2"'


def test_how_a_fetched_pages_bytes_were_read_is_in_the_report(
    engine: Docmentor, http_server: HttpServer
) -> None:
    """A page whose charset was guessed (Windows-1252 bytes said to be UTF-8) or read by its
    byte-order mark is named in the refresh's warnings, as a local file is (a review: the
    warnings were made and dropped)."""
    page = "# Café\n\nThe café opens at nine.\n"
    http_server.add("/docs/a.md", page.encode("cp1252"), content_type=MD)
    http_server.add("/docs/b.md", page.encode("utf-16"), content_type=MD)
    report = engine.add(set_index(http_server, ["a.md", "b.md"]), name="site", options=FAST)
    said = "\n".join(report.warnings)
    assert f"{http_server.url('/docs/a.md')}: " in said and "read as Windows-1252" in said, said
    assert f"{http_server.url('/docs/b.md')}: read as UTF-16 (its byte-order mark says so)" in said, said
    assert engine.get("site:/docs/b.md").content == page
