"""Versioned sources (issue 23, part 5): two versions of one library's docs side by side,
the version read from the docs or the installed package, the version filter of search,
assembly and get, the project's pinned version chosen by default — through real indexes of
tests/fixtures/versions (tinyhttp 1.0.0 and 2.0.0), the CLI and the MCP server."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

import httpserver
from clitool import Cli
from docmentor import assemble_context
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError, UsageError
from docmentor.server import build_server
from httpserver import HttpServer
from mcptool import structured

http_server = httpserver.http_server

FIXTURES = Path(__file__).parent / "fixtures" / "versions"
V1 = FIXTURES / "tinyhttp-1.0" / "docs"
V2 = FIXTURES / "tinyhttp-2.0" / "docs"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The user's project: no requirements until a test writes some."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def both(index_location: str, project: Path) -> Iterator[Docmentor]:
    """tinyhttp 1.0.0 and 2.0.0 added with --version, the project pinning nothing; on each
    backend (the embedded index, PostgreSQL)."""
    engine = Docmentor(index_location)
    engine.project = project
    engine.add(V1, name="tinyhttp", version="1.0.0")
    engine.add(V2, name="tinyhttp", version="2.0.0")
    yield engine
    engine.close()


def by_name(engine: Docmentor) -> dict[str, Any]:
    return {s["name"]: s for s in engine.sources()}


# -- adding versions ---------------------------------------------------------------------------


def test_two_versions_sit_side_by_side_named_by_version(both: Docmentor) -> None:
    rows = by_name(both)
    assert sorted(rows) == ["tinyhttp@1.0.0", "tinyhttp@2.0.0"]
    for version in ("1.0.0", "2.0.0"):
        row = rows[f"tinyhttp@{version}"]
        assert (row["version"], row["version_origin"], row["library"]) == (version, "given", "tinyhttp")
        assert row["options"] == {"version": version}  # kept: a refresh keeps the version
    assert rows["tinyhttp@2.0.0"]["documents"] == 3 and rows["tinyhttp@1.0.0"]["documents"] == 2
    both.refresh()
    assert {r["name"]: r["version"] for r in both.sources()} == {
        "tinyhttp@1.0.0": "1.0.0",
        "tinyhttp@2.0.0": "2.0.0",
    }


def test_version_is_read_from_the_docs_package_metadata(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "index")
    first = engine.add(V1, name="tinyhttp")
    assert (first.source, first.version, first.version_origin) == ("tinyhttp", "1.0.0", "pyproject.toml")
    assert first.to_dict()["version_origin"] == "pyproject.toml"
    # the same name for the docs of another version: beside it, not an error
    second = engine.add(V2, name="tinyhttp")
    assert (second.source, second.version) == ("tinyhttp@2.0.0", "2.0.0")
    assert {r["name"]: r["version"] for r in engine.sources()} == {
        "tinyhttp": "1.0.0",
        "tinyhttp@2.0.0": "2.0.0",
    }
    # adding it again is a refresh of that source, not a third one
    assert engine.add(V2, name="tinyhttp").source == "tinyhttp@2.0.0"
    assert len(engine.sources()) == 2
    engine.close()


@pytest.mark.parametrize(
    ("name", "text", "version"),
    [
        ("package.json", '{"name": "tinyhttp", "version": "4.2.0-beta.1"}', "4.2.0-beta.1"),
        ("setup.cfg", "[metadata]\nname = tinyhttp\nversion = 0.9.1\n", "0.9.1"),
        ("pyproject.toml", '[tool.poetry]\nname = "tinyhttp"\nversion = "0.5.0"\n', "0.5.0"),
        ("PKG-INFO", "Metadata-Version: 2.1\nName: tinyhttp\nVersion: 24.2.0\n\nVersion: 9.9\n", "24.2.0"),
    ],
)
def test_other_package_metadata(tmp_path: Path, name: str, text: str, version: str) -> None:
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\nSome text about requests.\n", encoding="utf-8")
    (root / name).write_text(text, encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    report = engine.add(root / "docs", name="tinyhttp")
    assert (report.version, report.version_origin) == (version, name)
    engine.close()


def test_dynamic_or_placeholder_versions_say_nothing(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    (root / "pyproject.toml").write_text('[project]\nname = "x"\ndynamic = ["version"]\n', encoding="utf-8")
    (root / "package.json").write_text('{"version": "0.0.0"}', encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    report = engine.add(root / "docs", name="not-an-installed-package-xyz")
    assert (report.version, report.version_origin) == (None, None)
    assert "version" not in report.to_dict()  # the report's JSON as before
    engine.close()


def test_an_unpacked_sdists_pkg_info_gives_the_version_its_pyproject_leaves_dynamic(tmp_path: Path) -> None:
    """attrs-24.2.0/: pyproject.toml's version is dynamic, PKG-INFO says 24.2.0; the package of
    that name installed beside docmentor (another version) is no answer then."""
    root = tmp_path / "attrs-24.2.0"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "attrs"\ndynamic = ["version"]\n', encoding="utf-8"
    )
    (root / "PKG-INFO").write_text("Metadata-Version: 2.3\nName: attrs\nVersion: 24.2.0\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    report = engine.add(root / "docs", name="pytest")  # a package installed here, another version
    assert (report.version, report.version_origin) == ("24.2.0", "PKG-INFO")
    engine.close()


def test_a_folder_inside_the_docs_folder_reads_the_projects_version(tmp_path: Path) -> None:
    """pytest's sdist keeps its pages in ``doc/en``, trio's in ``docs/source``: the PKG-INFO two
    folders up gives the version (pytest's was read from the pytest installed beside docmentor)
    and the project names the source; a folder two levels below something else reads no further."""
    root = tmp_path / "pytest-8.3.4"
    (root / "doc" / "en").mkdir(parents=True)
    (root / "doc" / "en" / "a.rst").write_text("A\n=\n\ntext\n", encoding="utf-8")
    (root / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: pytest\nVersion: 8.3.4\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    report = engine.add(root / "doc" / "en")
    assert (report.source, report.version, report.version_origin) == ("pytest", "8.3.4", "PKG-INFO")
    engine.close()
    other = tmp_path / "tinylib-1.0" / "guides" / "en"
    other.mkdir(parents=True)
    (tmp_path / "tinylib-1.0" / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: t\nVersion: 1.0\n", encoding="utf-8"
    )
    from docmentor.config import auto_name
    from docmentor.sources.versions import folder_version

    assert folder_version(other) is None and auto_name(str(other)) == "en"
    assert auto_name(str(tmp_path / "trio-0.27.0" / "docs" / "source")) == "trio"


def test_version_of_the_installed_package_of_the_same_name(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Fixtures\n\nHow fixtures work.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    report = engine.add(docs, name="pytest")  # installed here (the dev extra), not for docmentor
    assert (report.version, report.version_origin) == (metadata.version("pytest"), "installed")
    engine.close()


def test_a_package_docmentor_itself_requires_gives_no_version(tmp_path: Path) -> None:
    """Starlette's docs added beside docmentor: the starlette installed here is the one mcp
    needs (docmentor's environment), not the version the docs describe (the Starlette tour saw
    its 0.47.3 docs labelled 1.10.0). Direct and indirect requirements alike."""
    from docmentor.sources.versions import own_requirements

    assert {"httpx", "pydantic", "starlette", "anyio", "click"} <= own_requirements()
    assert "pytest" not in own_requirements()  # an extra's requirement is not docmentor's
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Routing\n\nRoutes.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    for name in ("starlette", "httpx", "packaging"):
        metadata.version(name)  # installed
        report = engine.add(docs, name=name)
        assert (report.version, report.version_origin) == (None, None), name
    engine.close()


def test_llms_txt_that_states_its_version(tmp_path: Path, http_server: HttpServer) -> None:
    http_server.add(
        "/docs/llms.txt",
        "# tinyhttp\n\n> HTTP for tiny programs. Version: 3.1.0\n\n## Docs\n\n- [Timeouts](timeouts.md)\n",
    )
    http_server.add("/docs/timeouts.md", "# Timeouts\n\nPass `timeout=Timeout(5)`.\n")
    engine = Docmentor(tmp_path / "index")
    report = engine.add(http_server.url("/docs/llms.txt"), name="tinyhttp")
    assert (report.version, report.version_origin) == ("3.1.0", "llms.txt")
    # refreshed unchanged (not read again): the version stays
    engine.refresh("tinyhttp")
    assert by_name(engine)["tinyhttp"]["version"] == "3.1.0"
    assert by_name(engine)["tinyhttp"]["version_origin"] == "llms.txt"
    # the llms.txt no longer states one: the source describes no version now
    http_server.add(
        "/docs/llms.txt", "# tinyhttp\n\n> HTTP for tiny programs.\n\n## Docs\n\n- [Timeouts](timeouts.md)\n"
    )
    (report,) = engine.refresh("tinyhttp")
    assert (report.version, report.version_origin) == (None, None)
    assert by_name(engine)["tinyhttp"]["version"] is None
    engine.close()


def test_a_bad_version_is_refused_and_nothing_is_made(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "index")
    for bad in ("1.0 beta", "../x", "a@b", ""):
        with pytest.raises(UsageError) as caught:
            engine.add(V1, name="tinyhttp", version=bad)
        assert "version" in str(caught.value)
    with pytest.raises(UsageError, match="two versions"):
        engine.add(V1, name="tinyhttp", version="1.0", options={"version": "2.0"})
    assert engine.sources() == []
    engine.close()


# -- search: the version that answers --------------------------------------------------------------


def test_search_without_a_pin_answers_from_the_newest(both: Docmentor) -> None:
    hits = both.search("timeout seconds")
    assert hits and {h.source for h in hits} == {"tinyhttp@2.0.0"}
    assert {(h.source_version, h.version_reason) for h in hits} == {("2.0.0", "newest")}
    assert hits[0].to_dict()["version_reason"] == "newest"


def test_a_range_or_an_asked_series_prefers_a_release_too() -> None:
    """As pip installs: a range (`>=1.0`) or an asked series (`2`) answers from the newest
    release in it, a pre-release only when no release fits (a review: 3.0.0rc1 answered a
    `>=1.0` pin beside 2.0.0)."""
    from docmentor.sources.project_files import ProjectRequirement
    from docmentor.sources.versions import choose_version

    def chosen(versions: list[str], **how: Any) -> str | None:
        choice = choose_version("tinyhttp", versions, **how)
        return choice.version if choice is not None else None

    assert chosen(["2.0.0", "3.0.0rc1"], requirement=ProjectRequirement("tinyhttp", ">=1.0")) == "2.0.0"
    only = ProjectRequirement("tinyhttp", ">=3.0.0rc1")  # only the pre-release fits
    assert chosen(["1.0.0", "3.0.0rc1"], requirement=only) == "3.0.0rc1"
    assert chosen(["2.0.0", "2.1.0rc1"], asked="2") == "2.0.0"


def test_a_version_added_from_the_folder_of_another_is_warned_of(both: Docmentor) -> None:
    """Docs added as 3.0.0 from the folder 2.0.0 was added from hold the same docs, and each
    refresh reads what the folder holds then: said (a versions tour)."""
    report = both.add(V2, name="tinyhttp", version="3.0.0")
    (said,) = [w for w in report.warnings if "reads the same folder" in w]
    assert said.startswith(f"tinyhttp@2.0.0 reads the same folder ({V2})")
    assert not [w for w in both.add(V1, name="other", version="1.0").warnings if "same folder" in w]


def test_a_librarys_name_refreshes_and_queues_every_version(both: Docmentor) -> None:
    """`refresh tinyhttp` (and a queued refresh of it) with only tinyhttp@1.0.0 and @2.0.0
    indexed refreshes both, as `--source tinyhttp` searches both (a team tour: "unknown
    source 'httpx'" after the walkthrough's `add --name httpx --version 0.28.1`)."""
    from docmentor import queue_job

    reports = both.refresh("tinyhttp")
    assert [r.source for r in reports] == ["tinyhttp@1.0.0", "tinyhttp@2.0.0"]
    assert all(r.error is None and r.unchanged for r in reports)
    job, new = queue_job(both, "refresh", {"source": "tinyhttp"})
    assert new and job.args == {"source": "tinyhttp"}
    with pytest.raises(NotFoundError, match=r"did you mean 'tinyhttp@1\.0\.0' or 'tinyhttp@2\.0\.0'"):
        both.refresh("tinyhtt")
    assert both.sources_named("tinyhttp@2.0.0") == ["tinyhttp@2.0.0"]


def test_a_pre_release_answers_only_when_no_release_is_indexed(both: Docmentor) -> None:
    """Docs of 3.0.0rc1 beside 2.0.0: with no pin the release answers, as pip installs it
    (a versions tour: the release candidate won as "newest"); asked for, the candidate."""
    both.add(V2, name="tinyhttp", version="3.0.0rc1")
    assert {h.source for h in both.search("timeout seconds")} == {"tinyhttp@2.0.0"}
    assert {h.source for h in both.search("timeout seconds", version="3.0.0rc1")} == {"tinyhttp@3.0.0rc1"}
    both.remove("tinyhttp@2.0.0")
    both.remove("tinyhttp@1.0.0")
    assert {h.version_reason for h in both.search("timeout seconds")} == {None}  # the only version


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("requirements.txt", "tinyhttp==1.0.0\n"),
        ("pyproject.toml", '[project]\nname = "app"\ndependencies = ["tinyhttp>=1,<2"]\n'),
        ("uv.lock", 'version = 1\n[[package]]\nname = "tinyhttp"\nversion = "1.0.0"\n'),
        ("poetry.lock", '[[package]]\nname = "tinyhttp"\nversion = "1.0.0"\n'),
        ("pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.11"\ntinyhttp = "^1.0"\n'),
        ("package.json", '{"dependencies": {"tinyhttp": "~1.0.0"}}'),
    ],
)
def test_the_projects_pin_chooses_the_version(both: Docmentor, project: Path, name: str, text: str) -> None:
    (project / name).write_text(text, encoding="utf-8")
    hits = both.search("timeout seconds")
    assert hits and {(h.source, h.version_reason) for h in hits} == {("tinyhttp@1.0.0", "pinned")}
    assert 'tinyhttp.get("https://example.org", timeout=5)' in hits[0].text


def test_the_pin_is_read_from_the_project_above_a_subfolder(both: Docmentor, project: Path) -> None:
    """A server started in ``project/src`` reads ``project``'s pin, as uv and npm look upward
    (a versions tour: the pin was not found and the newest answered); not past a repository's
    root: a checkout inside another project reads only its own."""
    (project / "requirements.txt").write_text("tinyhttp==1.0.0\n", encoding="utf-8")
    both.project = project / "src" / "app"
    both.project.mkdir(parents=True)
    assert {(h.source, h.version_reason) for h in both.search("timeout seconds")} == {
        ("tinyhttp@1.0.0", "pinned")
    }
    (project / "src" / ".git").mkdir()  # src is a repository of its own, with no pin
    assert {h.version_reason for h in both.search("timeout seconds")} == {"newest"}


def test_a_pin_nobody_indexed_falls_back_to_the_newest_with_a_note(both: Docmentor, project: Path) -> None:
    (project / "requirements.txt").write_text("tinyhttp==1.5.0\n", encoding="utf-8")
    assert {h.version_reason for h in both.search("timeout")} == {"newest"}
    (note,) = both.version_scope().notes
    assert "tinyhttp==1.5.0" in note and "1.0.0, 2.0.0" in note


def test_asked_version_and_source_forms(both: Docmentor, project: Path) -> None:
    (project / "requirements.txt").write_text("tinyhttp==2.0.0\n", encoding="utf-8")
    asked = both.search("timeout", version="1.0")  # 1.0 names 1.0.0
    assert {(h.source, h.version_reason) for h in asked} == {("tinyhttp@1.0.0", "asked")}
    assert {h.source for h in both.search("timeout", source="tinyhttp")} == {"tinyhttp@2.0.0"}
    named = both.search("timeout", source="tinyhttp@1.0.0")  # one version by its own name
    assert {(h.source, h.version_reason) for h in named} == {("tinyhttp@1.0.0", None)}
    assert {h.source for h in both.search("timeout", source="tinyhttp", version="1.0.0")} == {
        "tinyhttp@1.0.0"
    }


def test_a_version_nobody_indexed_says_which_are(both: Docmentor) -> None:
    with pytest.raises(NotFoundError) as caught:
        both.search("timeout", source="tinyhttp", version="3.0")
    assert "no indexed version 3.0 of tinyhttp" in str(caught.value)
    assert caught.value.hint == "indexed versions: tinyhttp 1.0.0, 2.0.0"
    with pytest.raises(NotFoundError, match="no source has version 9"):
        both.search("timeout", version="9")
    with pytest.raises(NotFoundError, match=r"is version 2\.0\.0, not 1\.0"):
        both.search("timeout", source="tinyhttp@2.0.0", version="1.0")
    with pytest.raises(NotFoundError, match="unknown source 'nope'"):
        both.search("timeout", source="nope")


def test_other_libraries_are_searched_as_before(both: Docmentor, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "team.md").write_text(
        "# Team timeouts\n\nWe set every timeout to 30 seconds.\n", encoding="utf-8"
    )
    both.add(notes, name="notes")
    hits = both.search("timeout", limit=20)
    assert {h.source for h in hits} == {"notes", "tinyhttp@2.0.0"}
    assert {h.version_reason for h in hits if h.source == "notes"} == {None}
    # a version asked for without a source: only the sources of that version, and a note
    # naming what it left out (an agent tour: the other library's answers vanished unsaid)
    assert {h.source for h in both.search("timeout", version="1.0.0")} == {"tinyhttp@1.0.0"}
    (note,) = both.version_scope(version="1.0.0").notes
    assert note.startswith("version 1.0.0 left out notes, which has no such version indexed")


def test_one_version_indexed_searches_exactly_as_before(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "index")
    engine.add(V2, name="tinyhttp", version="2.0.0")
    scope = engine.version_scope()
    assert (scope.sources, dict(scope.reasons)) == (None, {})  # no filter: ranking unchanged
    assert engine.version_scope("tinyhttp").sources == "tinyhttp@2.0.0"
    hits = engine.search("timeout")
    assert hits and all(h.version_reason is None and h.source_version == "2.0.0" for h in hits)
    assert "version_reason" not in hits[0].to_dict()
    engine.close()


def test_get_and_assemble_follow_the_version(both: Docmentor, project: Path) -> None:
    page = both.get("timeouts.md", source="tinyhttp")  # the library: its newest version's page
    assert (page.source, page.to_dict()["source_version"]) == ("tinyhttp@2.0.0", "2.0.0")
    assert "Timeout` object" in page.content
    (project / "requirements.txt").write_text("tinyhttp==1.0.0\n", encoding="utf-8")
    assert both.get("timeouts.md", source="tinyhttp").source == "tinyhttp@1.0.0"

    digest = assemble_context(both, "how do I set a timeout", max_tokens=2000)
    assert {d.source for d in digest.documents} == {"tinyhttp@1.0.0"}
    assert digest.stats["versions"] == {"tinyhttp@1.0.0": "1.0.0"}
    assert digest.stats["version_reasons"] == {"tinyhttp@1.0.0": "pinned"}
    asked = assemble_context(both, "how do I set a timeout", max_tokens=2000, version="2.0.0")
    assert {d.source for d in asked.documents} == {"tinyhttp@2.0.0"}
    assert asked.stats["version_reasons"] == {"tinyhttp@2.0.0": "asked"}
    assert all(c.source == "tinyhttp@2.0.0" for c in both.candidates("timeout", version="2"))
    # a bare path, as a digest cites it (`**Source:** timeouts.md:3-9`), is the pinned
    # version's page, not "in several sources" (an agent tour with two versions indexed)
    assert both.get("timeouts.md").source == "tinyhttp@1.0.0"
    assert both.get("timeouts.md:1-3").source == "tinyhttp@1.0.0"
    (project / "requirements.txt").unlink()
    assert both.get("timeouts.md").source == "tinyhttp@2.0.0"  # no pin: the newest
    # a page only the other version has, read as the library's: said where it is
    (project / "requirements.txt").write_text("tinyhttp==1.0.0\n", encoding="utf-8")
    with pytest.raises(NotFoundError, match=r"'retries\.md' is not in tinyhttp@1\.0\.0") as caught:
        both.get("tinyhttp:retries.md")
    assert caught.value.hint == "another version has it: tinyhttp@2.0.0:retries.md"
    # the same with a citation's lines or an anchor (a review: they fell back to "no document")
    for ref in ("tinyhttp:retries.md:3", "tinyhttp:retries.md#retries"):
        with pytest.raises(NotFoundError, match=r"is not in tinyhttp@1\.0\.0"):
            both.get(ref)
    # a page another library (or an unversioned source) has is no other version
    notes_dir = project.parent / "notes"
    notes_dir.mkdir()
    (notes_dir / "retries.md").write_text("# Our retries\n\nNone.\n", encoding="utf-8")
    (notes_dir / "only-notes.md").write_text("# Notes\n\nText.\n", encoding="utf-8")
    both.add(notes_dir, name="notes")
    with pytest.raises(NotFoundError) as caught:
        both.get("tinyhttp:only-notes.md")
    assert "another version" not in str(caught.value)
    with pytest.raises(NotFoundError) as caught:
        both.get("notes:timeouts.md")
    assert "another version" not in str(caught.value)
    # a URL naming a version's own file: no note when the pinned version has the page too
    url = both.get("tinyhttp@2.0.0:timeouts.md").url
    assert both.get(url).note is None
    both.remove("notes")
    # a page only the other version has, by its bare path: served, and said whose it is
    other = both.get("retries.md")
    assert other.source == "tinyhttp@2.0.0"
    assert (
        other.note
        == "read from tinyhttp@2.0.0: the page is not in tinyhttp@1.0.0, the version of tinyhttp searches answer from"
    )
    assert other.to_dict()["note"] == other.note
    assert both.get("tinyhttp@2.0.0:retries.md").note is None  # the version named: nothing to say
    assert both.get("timeouts.md").note is None and "note" not in both.get("timeouts.md").to_dict()
    found = both.excerpt("tinyhttp:timeouts.md", "timeout")  # which version's words, as get says
    assert (found["source"], found.get("source_version")) == ("tinyhttp@1.0.0", "1.0.0")


def test_a_library_read_by_name_follows_the_version_as_a_search_does(
    index_location: str, project: Path
) -> None:
    """A tour: with the first version added under the library's bare name (its version read
    from the docs) and the next as NAME@VERSION, `get --source LIB` always served the bare
    one, whatever the pin; and `LIB:PATH` named no page once every version had an @."""
    engine = Docmentor(index_location)
    engine.project = project
    engine.add(V1, name="tinyhttp")  # its version read from the docs' project: the name kept
    engine.add(V2, name="tinyhttp")  # named tinyhttp@2.0.0 beside it
    try:
        assert sorted(by_name(engine)) == ["tinyhttp", "tinyhttp@2.0.0"]
        assert engine.get("timeouts.md", source="tinyhttp").source == "tinyhttp@2.0.0"  # the newest
        assert engine.get("tinyhttp:timeouts.md").source == "tinyhttp@2.0.0"
        (project / "requirements.txt").write_text("tinyhttp==1.0.0\n", encoding="utf-8")
        assert engine.get("timeouts.md", source="tinyhttp").to_dict()["source_version"] == "1.0.0"
        assert engine.get("tinyhttp:timeouts.md").to_dict()["source_version"] == "1.0.0"
    finally:
        engine.close()


def test_a_pin_no_version_fits_is_said_in_json_and_over_mcp_too(
    both: Docmentor, project: Path, capsys: pytest.CaptureFixture[str], index_location: str
) -> None:
    """A tour: the note reached the terminal only; search --json and search_docs said
    "newest" and nothing of the pin."""
    (project / "requirements.txt").write_text("tinyhttp==1.5.0\n", encoding="utf-8")
    data = structured(call(both, "search_docs", {"query": "timeout"}))
    (note,) = data["notes"]
    assert "tinyhttp==1.5.0" in note and "1.0.0, 2.0.0" in note
    (project / "requirements.txt").write_text("tinyhttp==1.0.0\n", encoding="utf-8")
    assert "notes" not in structured(call(both, "search_docs", {"query": "timeout"}))


def test_candidates_carry_the_version(both: Docmentor) -> None:
    hits = both.candidates("timeout")
    assert hits and {(h.source_version, h.version_reason) for h in hits} == {("2.0.0", "newest")}


# -- the configuration file and old indexes -------------------------------------------------------


def test_docmentor_toml_versions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docmentor import load_config

    monkeypatch.chdir(tmp_path)
    (tmp_path / "docmentor.toml").write_text(
        f'[[sources]]\nname = "tinyhttp"\npath = "{V1}"\nversion = "1.0.0"\n\n'
        f'[[sources]]\nname = "tinyhttp"\npath = "{V2}"\nversion = "2.0.0"\n',
        encoding="utf-8",
    )
    engine = Docmentor(tmp_path / "index")
    configured = load_config().sources
    engine.refresh_with_config(configured)
    assert sorted(by_name(engine)) == ["tinyhttp@1.0.0", "tinyhttp@2.0.0"]
    again = engine.refresh_with_config(configured)  # indexed: refreshed, not added again
    assert sorted(r.source for r in again) == ["tinyhttp@1.0.0", "tinyhttp@2.0.0"]
    engine.close()
    (tmp_path / "docmentor.toml").write_text(f'[[sources]]\npath = "{V1}"\nversion = 1.1\n', encoding="utf-8")
    with pytest.raises(UsageError, match="version in quotes"):
        load_config()


def test_a_server_indexes_configured_versions_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docmentor import RefreshScheduler

    docs = tmp_path / "docs"
    shutil.copytree(V1, docs)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docmentor.toml").write_text(
        f'[[sources]]\nname = "tinyhttp"\npath = "{docs}"\nversion = "1.0.0"\n', encoding="utf-8"
    )
    engine = Docmentor(tmp_path / "index")
    scheduler = RefreshScheduler(engine, configured=True, interval_hours=0)
    scheduler.index_configured()
    (row,) = engine.sources()
    assert (row["name"], row["version"], row["documents"]) == ("tinyhttp@1.0.0", "1.0.0", 2)
    (docs / "new.md").write_text("# New\n\nA page added later.\n", encoding="utf-8")
    scheduler.index_configured()  # indexed already under its versioned name: not read again
    assert engine.sources()[0]["documents"] == 2
    engine.close()


def test_an_index_from_before_versions_opens_and_upgrades(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "index")
    engine.add(V1, name="tinyhttp")
    engine.close()
    db = sqlite3.connect(tmp_path / "index" / "index.sqlite3")
    db.execute("ALTER TABLE sources DROP COLUMN version_origin")
    db.execute("UPDATE sources SET version = NULL")
    db.execute("DELETE FROM _migrations WHERE name = 'm012_source_version_origin'")
    db.commit()
    db.close()
    reader = Docmentor(tmp_path / "index", create=False)  # read-only: not migrated
    (row,) = reader.sources()
    assert (row["version"], row["version_origin"]) == (None, None)
    assert reader.search("timeout")[0].source_version is None
    reader.close()
    writer = Docmentor(tmp_path / "index")  # migrated; the next refresh reads the version
    writer.refresh("tinyhttp")
    (row,) = writer.sources()
    assert (row["version"], row["version_origin"]) == ("1.0.0", "pyproject.toml")
    writer.close()


# -- the CLI --------------------------------------------------------------------------------------


@pytest.fixture
def cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> Cli:
    monkeypatch.chdir(project)  # the project the CLI reads pins from: the working folder
    return Cli(tmp_path / "cli-index", capsys)


def test_cli_add_search_sources_and_assemble(cli: Cli, project: Path) -> None:
    rc, out, err = cli("add", str(V1), "--name", "tinyhttp", "--version", "1.0.0")
    assert rc == 0 and out.startswith("tinyhttp@1.0.0: 2 documents")
    assert err == "tinyhttp@1.0.0: version 1.0.0 (given)\n"
    report = cli.json("add", str(V2), "--name", "tinyhttp")
    assert (report["source"], report["version"], report["version_origin"]) == (
        "tinyhttp@2.0.0",
        "2.0.0",
        "pyproject.toml",
    )
    rows = {s["name"]: s for s in cli.json("sources")["sources"]}
    assert {n: (r["version"], r["version_origin"]) for n, r in rows.items()} == {
        "tinyhttp@1.0.0": ("1.0.0", "given"),
        "tinyhttp@2.0.0": ("2.0.0", "pyproject.toml"),
    }
    assert "version 2.0.0 (pyproject.toml)" in cli.ok("sources")

    found = cli.json("search", "timeout", "--source", "tinyhttp")
    assert {(r["source_version"], r["version_reason"]) for r in found["results"]} == {("2.0.0", "newest")}
    found = cli.json("search", "timeout", "--version", "1.0")
    assert {(r["source"], r["version_reason"]) for r in found["results"]} == {("tinyhttp@1.0.0", "asked")}
    (project / "requirements.txt").write_text("tinyhttp==1.0.0\n", encoding="utf-8")
    text = cli.ok("search", "timeout")
    assert "[tinyhttp@1.0.0 1.0.0, pinned]" in text and "tinyhttp@2.0.0" not in text

    digest = json.loads(cli.ok("assemble", "set a timeout", "--version", "2.0.0", "--format", "json"))
    assert {d["source"] for d in digest["documents"]} == {"tinyhttp@2.0.0"}
    assert digest["metadata"]["version_reasons"] == {"tinyhttp@2.0.0": "asked"}
    assert cli.json("get", "timeouts.md", "--source", "tinyhttp")["source_version"] == "1.0.0"
    (project / "requirements.txt").write_text("tinyhttp==1.5.0\n", encoding="utf-8")
    rc, out, err = cli("search", "timeout")
    assert rc == 0 and "[tinyhttp@2.0.0 2.0.0, newest]" in out
    assert err.startswith("note: your project requires tinyhttp==1.5.0, which no indexed version")


def test_cli_errors_name_the_indexed_versions(cli: Cli) -> None:
    assert cli("add", str(V1), "--name", "tinyhttp", "--version", "1.0.0")[0] == 0
    err = cli.fails("search", "timeout", "--source", "tinyhttp", "--version", "7")
    assert "no indexed version 7 of tinyhttp" in err and "indexed versions: tinyhttp 1.0.0" in err
    rc, out, err = cli("add", str(V2), "--name", "tinyhttp", "--version", "two point oh")
    assert (
        rc == 2
        and out == ""
        and err
        == "error: --version 'two point oh' is not a release number (for example 0.27, 2.1.0 or 1.0.0-beta.1)\n"
    )
    assert sorted(s["name"] for s in cli.state()["sources"]) == ["tinyhttp@1.0.0"]


# -- the MCP server --------------------------------------------------------------------------------


def call(engine: Docmentor, name: str, args: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(build_server(engine)) as client:
            return await client.call_tool(name, args)

    return anyio.run(go)


def test_mcp_search_get_sources_and_assemble(both: Docmentor) -> None:
    data = structured(call(both, "search_docs", {"query": "timeout", "version": "1.0.0"}))
    assert {(r["source"], r["source_version"], r["version_reason"]) for r in data["results"]} == {
        ("tinyhttp@1.0.0", "1.0.0", "asked")
    }
    data = structured(call(both, "search_docs", {"query": "timeout", "source": "tinyhttp"}))
    assert {(r["source_version"], r["version_reason"]) for r in data["results"]} == {("2.0.0", "newest")}
    listed = structured(call(both, "list_sources", {}))["sources"]
    assert {(s["name"], s["version"], s["version_origin"], s["library"]) for s in listed} == {
        ("tinyhttp@1.0.0", "1.0.0", "given", "tinyhttp"),
        ("tinyhttp@2.0.0", "2.0.0", "given", "tinyhttp"),
    }
    page = structured(call(both, "get_doc", {"url_or_path": "tinyhttp@1.0.0:timeouts.md"}))
    assert page["source_version"] == "1.0.0"
    result = call(both, "assemble_context", {"query": "set a timeout", "version": "1.0.0", "format": "json"})
    assert not result.is_error and result.structured_content is not None
    assert {d["source"] for d in result.structured_content["documents"]} == {"tinyhttp@1.0.0"}


def test_mcp_unknown_version_is_a_tool_error_naming_the_versions(both: Docmentor) -> None:
    result = call(both, "search_docs", {"query": "timeout", "source": "tinyhttp", "version": "5"})
    assert result.is_error
    text = result.content[0].text
    assert "no indexed version 5 of tinyhttp" in text and "1.0.0, 2.0.0" in text
    bad = call(both, "search_docs", {"query": "timeout", "version": "not a version"})
    assert bad.is_error


def test_removing_one_version_keeps_the_other(both: Docmentor) -> None:
    both.remove("tinyhttp@2.0.0")
    hits = both.search("timeout", source="tinyhttp")
    assert {(h.source, h.version_reason) for h in hits} == {("tinyhttp@1.0.0", None)}


def test_by_meaning_too_only_the_chosen_versions_answer(tmp_path: Path) -> None:
    """With embeddings on, the units found by meaning are filtered like the words' (several
    sources at once: the chosen version and the other libraries)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "waits.md").write_text("# Waiting\n\nHow long we wait for slow servers.\n", encoding="utf-8")
    engine = Docmentor(tmp_path / "index", embeddings=True)
    engine.project = tmp_path
    for docs, version in ((V1, "1.0.0"), (V2, "2.0.0")):
        engine.add(docs, name="tinyhttp", version=version)
    engine.add(notes, name="notes")
    assert all(s["embedded"] == s["units"] > 0 for s in engine.sources())
    assert engine.version_scope().sources == ("notes", "tinyhttp@2.0.0")
    hits = engine.search("how long to wait for a slow server", limit=20)
    assert {h.source for h in hits} == {"notes", "tinyhttp@2.0.0"}
    asked = engine.search("how long to wait for a slow server", version="1.0.0", limit=20)
    assert {h.source for h in asked} == {"tinyhttp@1.0.0"}
    engine.close()


def test_reading_versions_runs_in_linear_time() -> None:
    import time

    from docmentor.sources.versions import llms_version

    n = 48_000
    lines = [
        "version" + " " * n + "x",
        "version:" + "\t" * n,
        "Version 1" + ".1" * (n // 2) + "-" + "a" * n,
        "version " * (n // 8),
    ]
    for line in lines:
        text = "# Docs\n\n> " + line + "\n"
        start = time.perf_counter()
        llms_version(text)
        assert time.perf_counter() - start < 1.0
    assert llms_version("# Docs\n\n> The docs of version 2.1.0 of it.\n") == "2.1.0"
    assert llms_version("# Docs\n\n## Section\n\nversion 9.9\n") is None  # only the head


def test_several_sources_filter_without_changing_scores(both: Docmentor, tmp_path: Path) -> None:
    """The filter of several sources scores nothing: a section ranks against the others as
    it would unfiltered (a source's own weight would favour the smaller sources)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "team.md").write_text(
        "# Team timeouts\n\nWe set every timeout to 30 seconds.\n", encoding="utf-8"
    )
    both.add(notes, name="notes")
    terms = both.query_terms("timeout seconds")
    everything = {h.fields["section_id"]: h.score for h in both.lexical.search(terms, limit=50)}
    within = both.lexical.search(terms, source=("notes", "tinyhttp@2.0.0"), limit=50)
    assert {h.fields["source"] for h in within} == {"notes", "tinyhttp@2.0.0"}
    assert all(h.score == pytest.approx(everything[h.fields["section_id"]]) for h in within)


def test_a_rust_crates_version_is_its_cargo_toml(tmp_path: Path) -> None:
    """A tour generated anyhow's knowledge base from its sources: "version unknown", though its
    Cargo.toml says 1.0.104; a workspace-inherited version says nothing."""
    from docmentor.sources.versions import folder_version

    crate = tmp_path / "anyhow"
    crate.mkdir()
    (crate / "Cargo.toml").write_text('[package]\nname = "anyhow"\nversion = "1.0.104"\n', encoding="utf-8")
    found = folder_version(crate)
    assert found is not None and (found.version, found.origin) == ("1.0.104", "Cargo.toml")
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "anyhow"\nversion.workspace = true\n', encoding="utf-8"
    )
    assert folder_version(crate) is None


def test_a_page_of_the_version_that_kept_the_bare_name_is_suggested_by_its_url(
    index_location: str, project: Path
) -> None:
    """With the first version under the library's bare name, `LIB:PATH` reads the newest:
    a page only the bare-named one has is suggested by its URL, since `LIB:PATH` would
    read the newest again (a review)."""
    with Docmentor(index_location) as engine:
        engine.project = project
        engine.add(V2, name="tinyhttp")  # 2.0.0, read from its project: the bare name kept
        engine.add(V1, name="tinyhttp", version="0.9")  # an older one beside it
        with pytest.raises(NotFoundError) as caught:
            engine.get("tinyhttp@0.9:retries.md")
        with pytest.raises(NotFoundError) as caught:
            engine.version_scope("tinyhttp")
            engine.project = project
            (project / "requirements.txt").write_text("tinyhttp==0.9\n", encoding="utf-8")
            engine.get("tinyhttp:retries.md")
        hint = str(caught.value.hint)
        assert "another version has it: file://" in hint and "tinyhttp:retries.md" not in hint, hint
