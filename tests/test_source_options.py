"""Source options: parsed and checked once where they enter (docmentor.toml, `docmentor add`,
``Docmentor.add``, the index's stored JSON), then passed typed (SourceOptions) to the readers."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.errors import UsageError
from docmentor.models import SourceOptions


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI on an embedded index, for the checks made before anything is stored."""
    return Cli(tmp_path / "index", capsys)


@pytest.fixture
def any_cli(index_location: str, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI on a new index of each backend: the options are stored there and read back."""
    return Cli(index_location, capsys)


def store_options(cli: Cli, name: str, options: object) -> None:
    """Writes a source's stored options as another version of docmentor might have: the JSON
    text in the ``sources`` row, straight into the SQLite file or the PostgreSQL schema."""
    text = json.dumps(options)
    if cli.location.startswith("postgresql"):
        import psycopg

        with psycopg.connect(cli.location) as pg:
            pg.execute("UPDATE sources SET options = %s WHERE name = %s", (text, name))
        return
    with closing(sqlite3.connect(cli.db / "index.sqlite3")) as con, con:
        con.execute("UPDATE sources SET options = ? WHERE name = ?", (text, name))


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "small.md").write_text("# Small\n\nThe kestrel hovers.\n", encoding="utf-8")
    (docs / "big.md").write_text(
        "# Big\n\nThe osprey dives.\n" + "filler words here\n" * 200, encoding="utf-8"
    )
    return docs


def _toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source_lines: str) -> None:
    (tmp_path / "docmentor.toml").write_text(
        f'[[sources]]\nname = "handbook"\npath = "docs"\n{source_lines}\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            "max_byte = 100",
            "unknown source option 'max_byte' (did you mean 'max_bytes'? the source options are allowed_hosts, base_paths",
        ),
        ('max_bytes = "lots"', "max_bytes must be a whole number of at least 1, not 'lots'"),
        ("max_bytes = 0", "max_bytes must be a whole number of at least 1, not 0"),
        ('include_optional = "false"', "include_optional must be true or false, not 'false'"),
        ('base_paths = "."', "base_paths must be a list of strings, not '.'"),
        ("timeout = -1", "timeout must be a positive number of seconds, not -1"),
        ("retries = 1.5", "retries must be a whole number of at least 0, not 1.5"),
    ],
)
def test_a_bad_option_in_docmentor_toml_is_one_clear_error(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, says: str
) -> None:
    _docs(tmp_path)
    _toml(tmp_path, monkeypatch, line)
    err = cli.misused("refresh")
    assert err.startswith(f"error: {tmp_path / 'docmentor.toml'}: source 'handbook': "), err
    assert says in err
    assert not cli.db.exists()  # nothing was made


def test_options_from_docmentor_toml_reach_the_folder_reader(
    any_cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _docs(tmp_path)
    _toml(tmp_path, monkeypatch, 'max_bytes = "1000"')  # a number written as a string, as before
    (report,) = any_cli.json("refresh")["sources"]
    assert [s["path"] for s in report["skipped"]] == ["big.md"]
    (row,) = any_cli.state()["sources"]
    assert row["options"] == {"max_bytes": 1000}
    assert [r["path"] for r in any_cli.json("search", "kestrel")["results"]] == ["small.md"]


def test_cli_add_stores_the_options_as_given_and_refresh_reads_them_back(
    any_cli: Cli, tmp_path: Path
) -> None:
    docs = _docs(tmp_path)
    rc, _, err = any_cli("add", str(docs), "--name", "k", "--max-bytes", "1000", "--base-path", str(tmp_path))
    assert rc == 0 and "big.md: skipped: over the size cap" in err
    (row,) = any_cli.state()["sources"]
    assert row["options"] == {"max_bytes": 1000, "base_paths": [str(tmp_path.resolve())]}
    (report,) = any_cli.json("refresh", "k")["sources"]
    assert [s["path"] for s in report["skipped"]] == ["big.md"]  # the stored option, read back


def test_adding_again_with_other_options_stores_them_when_no_document_changed(
    any_cli: Cli, tmp_path: Path
) -> None:
    """`add` again with other options stores them even when every document is unchanged (no
    write of documents), over those it was added with, and the next refresh reads them."""
    docs = _docs(tmp_path)
    any_cli.ok("add", str(docs), "--name", "k", "--max-bytes", "100000")
    rc, out, _ = any_cli("add", str(docs), "--name", "k", "--max-bytes", "99999", "--no-optional")
    assert rc == 0 and "2 unchanged" in out
    (row,) = any_cli.state()["sources"]
    assert row["options"] == {"max_bytes": 99999, "include_optional": False}
    # no options given: those it was added with are kept (a tour: `add` again dropped them)
    any_cli.ok("add", str(docs), "--name", "k")
    (row,) = any_cli.state()["sources"]
    assert row["options"] == {"max_bytes": 99999, "include_optional": False}
    assert any_cli("add", str(docs), "--name", "k", "--max-bytes", "1000")[0] == 0  # big.md goes
    assert any_cli.state()["sources"][0]["options"] == {"max_bytes": 1000, "include_optional": False}
    (report,) = any_cli.json("refresh", "k")["sources"]
    assert [s["path"] for s in report["skipped"]] == ["big.md"]
    any_cli.ok("remove", "k")  # how an option is dropped: added anew
    any_cli("add", str(docs), "--name", "k")
    assert any_cli.state()["sources"][0]["options"] == {}


def test_an_old_stored_row_still_loads(any_cli: Cli, tmp_path: Path) -> None:
    """Rows written before options were typed: any JSON of the known keys (ints for seconds,
    numbers as strings, keys of another version) refreshes as it did."""
    docs = _docs(tmp_path)
    any_cli.ok("add", str(docs), "--name", "k")
    old = {"max_bytes": "1000", "timeout": 5, "use_gitignore": True, "from_a_newer_version": [1]}
    store_options(any_cli, "k", old)
    assert any_cli.state()["sources"][0]["options"] == old  # shown as stored
    (report,) = any_cli.json("refresh", "k")["sources"]
    assert report["error"] is None
    assert [s["path"] for s in report["skipped"]] == ["big.md"]
    # written back in the same format: the known options, as they were given
    assert any_cli.state()["sources"][0]["options"] == {
        "max_bytes": 1000,
        "timeout": 5,
        "use_gitignore": True,
    }


def test_a_bad_stored_option_fails_that_source_only(any_cli: Cli, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("# A\n\nThe heron waits.\n", encoding="utf-8")
    any_cli.ok("add", str(docs), "--name", "k")
    any_cli.ok("add", str(other), "--name", "o")
    store_options(any_cli, "k", {"max_bytes": "lots"})
    rc, out, err = any_cli("refresh", "--json")
    assert rc == 1 and "1 of 2 sources could not be refreshed: k" in err
    by_name = {r["source"]: r for r in json.loads(out)["sources"]}
    assert "max_bytes must be a whole number of at least 1, not 'lots'" in by_name["k"]["error"]
    assert by_name["o"]["error"] is None
    assert [r["path"] for r in any_cli.json("search", "kestrel")["results"]] == ["small.md"]  # k kept


def test_python_options_are_checked_and_may_be_typed(index_location: str, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    engine = Docmentor(index_location)
    try:
        with pytest.raises(UsageError, match="source options: unknown source option 'max_byte'"):
            engine.add(docs, name="k", options={"max_byte": 10})
        assert engine.sources() == []
        report = engine.add(docs, name="k", options=SourceOptions(max_bytes=1000), embed=False)
        assert [p for p, _ in report.skipped] == ["big.md"]
        with pytest.raises(UsageError, match=r"base_paths .*sub is not a folder"):
            Docmentor.make_spec(docs, options={"base_paths": ["sub"]})
        (docs / "sub").mkdir()
        spec = Docmentor.make_spec(
            docs, options={"base_paths": ["..", Path("sub")], "include_optional": False}
        )
        assert spec.options == SourceOptions(
            base_paths=(str(tmp_path.resolve()), str((docs / "sub").resolve())), include_optional=False
        )
        assert spec.options.as_dict() == {
            "base_paths": list(spec.options.base_paths or ()),
            "include_optional": False,
        }
    finally:
        engine.close()


def test_parse_and_the_stored_form_round_trip() -> None:
    given = {"allowed_hosts": ["cdn.example"], "concurrency": 3, "deadline": 30.5, "max_included_bytes": 0}
    opts = SourceOptions.parse(given)
    assert opts.allowed_hosts == ("cdn.example",) and opts.concurrency == 3 and opts.max_included_bytes == 0
    assert opts.as_dict() == given
    assert SourceOptions.from_stored(opts.as_dict()) == opts
    assert SourceOptions().as_dict() == {}
    assert SourceOptions.parse({"timeout": None}) == SourceOptions()  # None: not given


def test_documents_a_lower_size_cap_leaves_out_are_removed_not_kept_as_gone(
    any_cli: Cli, tmp_path: Path
) -> None:
    """The removal guard keeps documents that vanished from most of a source (a broken
    listing, an unmounted disk); documents the reader skips as asked (over a new size cap)
    are there, and go without that suspicion or its "are gone" warning."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(1, 7):
        (docs / f"p{i}.md").write_text(f"# Page {i}\n\n" + "words " * (i * 500), encoding="utf-8")
    any_cli.ok("add", str(docs), "--name", "cap")
    rc, out, err = any_cli("add", str(docs), "--name", "cap", "--max-bytes", "4000")
    assert rc == 0 and "-5 removed" in out, out
    assert err.count("skipped: over the size cap of 4.0 KB") == 5 and "gone" not in err, err
    (row,) = any_cli.state()["sources"]
    assert (row["documents"], row["stale_documents"]) == (1, 0)


def test_a_bad_size_option_is_told_a_sensible_size() -> None:
    """`max_bytes = 0` was told "for example max_bytes = 10", a cap that skips every page."""
    with pytest.raises(UsageError) as caught:
        SourceOptions.parse({"max_bytes": 0}, where="docmentor.toml")
    assert caught.value.hint == "for example max_bytes = 5000000"


def test_adding_again_keeps_the_options_of_a_source_renamed_beside_another_version(
    any_cli: Cli, tmp_path: Path
) -> None:
    """`add` of docs whose version is read (2.0) beside the library's other version is stored
    as lib@2.0; adding them again keeps its options (a review: they were looked up as `lib`
    before the rename, found nothing and were dropped)."""
    v1 = tmp_path / "v1"
    v1.mkdir()
    (v1 / "a.md").write_text("# A\n\nOne.\n", encoding="utf-8")
    project = tmp_path / "proj2"
    (project / "docs").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "lib"\nversion = "2.0"\n', encoding="utf-8")
    (project / "docs" / "a.md").write_text("# A\n\nTwo.\n", encoding="utf-8")
    any_cli("add", str(v1), "--name", "lib")
    any_cli("add", str(project / "docs"), "--name", "lib", "--max-bytes", "5000")
    any_cli("add", str(project / "docs"), "--name", "lib")
    rows = {r["name"]: r for r in any_cli.state()["sources"]}
    assert rows["lib@2.0"]["options"] == {"max_bytes": 5000}, rows
