"""A source name no source has is refused with the known ones, and with the source it is the
start of; a library's name reads the docs ``readme-llm generate`` indexed for it as
``<library>-docs``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError


def test_an_unknown_source_names_the_one_it_starts(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Retrying\n\nRetry a call until it works.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "db", embeddings=False)
    try:
        engine.add(str(docs), name="tenacity-docs")
        # the library's name reads the docs `readme-llm generate` indexed for it (a blinker
        # tour: `search -s blinker` was "unknown source" though `-s` takes a library)
        assert [h.source for h in engine.search("retry", source="tenacity")] == ["tenacity-docs"]
        with pytest.raises(NotFoundError) as caught:
            engine.search("retry", source="tenac")
        assert caught.value.hint == "did you mean 'tenacity-docs'? known sources: tenacity-docs"
        with pytest.raises(NotFoundError) as other:
            engine.search("retry", source="httpx")
        assert other.value.hint == "known sources: tenacity-docs"
    finally:
        engine.close()


def test_a_library_named_with_a_dash_or_an_underscore_is_the_same_library() -> None:
    """`readme-llm generate -l sqlite-utils` registers "sqlite-utils"; `api find -l
    sqlite_utils` (the import name) names it too, as package indexes compare names."""
    from types import SimpleNamespace

    from docmentor.library.service.service import LibraryKnowledge

    answering: Any = SimpleNamespace(versions={"sqlite-utils": "3.37", "httpx": "0.28"})
    me: Any = SimpleNamespace(_docs_of=lambda _library: None)  # no docs source of it indexed
    pick = LibraryKnowledge._library
    assert pick(me, "sqlite_utils", answering) == "sqlite-utils"
    assert pick(me, "SQLite.Utils", answering) == "sqlite-utils"
    with pytest.raises(NotFoundError):
        pick(me, "sqliteutils", answering)


def test_a_librarys_name_reads_every_version_generate_indexed(tmp_path: Path) -> None:
    """Review: a second version's generated docs are `httpx-0.28-docs`; `-s httpx -v 0.28`
    reads them, and `-s httpx` one version, as for a library's `NAME@VERSION` sources."""
    from docmentor.engine.scope import generated_docs, version_scope

    versions = {
        "httpx-docs": "0.27",
        "httpx-0.28-docs": "0.28",
        "httpx-extras-docs": "1.0",
        "flask-docs": "3.1",
    }
    assert generated_docs("httpx", versions) == ["httpx-0.28-docs", "httpx-docs"]
    assert (
        version_scope(versions, source="httpx", version="0.28", project=tmp_path).sources == "httpx-0.28-docs"
    )
    assert version_scope(versions, source="httpx", version="0.27", project=tmp_path).sources == "httpx-docs"
    assert (
        version_scope(versions, source="httpx", project=tmp_path).sources == "httpx-0.28-docs"
    )  # the newest
    assert version_scope(versions, source="flask", project=tmp_path).sources == "flask-docs"


def test_a_misspelled_source_names_the_ones_close_in_spelling() -> None:
    """`-s htpx` (a tour) was told every source but not the one it misspells."""
    from docmentor.engine.scope import unknown_source

    known = ["httpx", "pydantic", "tanstack-query"]
    assert unknown_source("htpx", known).hint == (
        "did you mean 'httpx'? known sources: httpx, pydantic, tanstack-query"
    )
    assert str(unknown_source("Pydantik", known).hint).startswith("did you mean 'pydantic'?")
    assert unknown_source("flask", known).hint == "known sources: httpx, pydantic, tanstack-query"
    assert str(unknown_source("enk", ["enc"]).hint).startswith("did you mean 'enc'?")
    configured = str(unknown_source("handbok", known, {"handbook": "docmentor.toml"}).hint)
    assert configured.startswith("did you mean 'handbook'?") and "not indexed yet: handbook" in configured
