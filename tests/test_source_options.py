"""Source options: parsed and checked once where they enter (docmentor.toml, `docmentor add`,
``Docmentor.add``, the index's stored JSON), then passed typed (SourceOptions) to the readers."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.errors import UsageError
from docmentor.models import SourceOptions


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "index", capsys)


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
            "unknown source option 'max_byte' (the source options are allowed_hosts, base_paths",
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
    err = cli.fails("refresh")
    assert err.startswith(f"error: {tmp_path / 'docmentor.toml'}: source 'handbook': "), err
    assert says in err
    assert not cli.db.exists()  # nothing was made


def test_options_from_docmentor_toml_reach_the_folder_reader(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _docs(tmp_path)
    _toml(tmp_path, monkeypatch, 'max_bytes = "1000"')  # a number written as a string, as before
    (report,) = cli.json("refresh")["sources"]
    assert [s["path"] for s in report["skipped"]] == ["big.md"]
    (row,) = cli.state()["sources"]
    assert row["options"] == {"max_bytes": 1000}
    assert [r["path"] for r in cli.json("search", "kestrel")["results"]] == ["small.md"]


def test_cli_add_stores_the_options_as_given_and_refresh_reads_them_back(cli: Cli, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    rc, _, err = cli("add", str(docs), "--name", "k", "--max-bytes", "1000", "--base-path", str(tmp_path))
    assert rc == 0 and "big.md: skipped: over the size cap" in err
    (row,) = cli.state()["sources"]
    assert row["options"] == {"max_bytes": 1000, "base_paths": [str(tmp_path.resolve())]}
    (report,) = cli.json("refresh", "k")["sources"]
    assert [s["path"] for s in report["skipped"]] == ["big.md"]  # the stored option, read back


def test_an_old_stored_row_still_loads(cli: Cli, tmp_path: Path) -> None:
    """Rows written before options were typed: any JSON of the known keys (ints for seconds,
    numbers as strings, keys of another version) refreshes as it did."""
    docs = _docs(tmp_path)
    cli.ok("add", str(docs), "--name", "k")
    old = {"max_bytes": "1000", "timeout": 5, "use_gitignore": True, "from_a_newer_version": [1]}
    with sqlite3.connect(cli.db / "index.sqlite3") as con:
        con.execute("UPDATE sources SET options = ? WHERE name = 'k'", (json.dumps(old),))
    con.close()
    assert cli.state()["sources"][0]["options"] == old  # shown as stored
    (report,) = cli.json("refresh", "k")["sources"]
    assert report["error"] is None
    assert [s["path"] for s in report["skipped"]] == ["big.md"]
    # written back in the same format: the known options, as they were given
    assert cli.state()["sources"][0]["options"] == {"max_bytes": 1000, "timeout": 5, "use_gitignore": True}


def test_a_bad_stored_option_fails_that_source_only(cli: Cli, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("# A\n\nThe heron waits.\n", encoding="utf-8")
    cli.ok("add", str(docs), "--name", "k")
    cli.ok("add", str(other), "--name", "o")
    with sqlite3.connect(cli.db / "index.sqlite3") as con:
        con.execute("UPDATE sources SET options = ? WHERE name = 'k'", (json.dumps({"max_bytes": "lots"}),))
    con.close()
    rc, out, err = cli("refresh", "--json")
    assert rc == 1 and "1 of 2 sources could not be refreshed: k" in err
    by_name = {r["source"]: r for r in json.loads(out)["sources"]}
    assert "max_bytes must be a whole number of at least 1, not 'lots'" in by_name["k"]["error"]
    assert by_name["o"]["error"] is None
    assert [r["path"] for r in cli.json("search", "kestrel")["results"]] == ["small.md"]  # k kept


def test_python_options_are_checked_and_may_be_typed(tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    engine = Docmentor(tmp_path / "idx")
    try:
        with pytest.raises(UsageError, match="source options: unknown source option 'max_byte'"):
            engine.add(docs, name="k", options={"max_byte": 10})
        assert engine.sources() == []
        report = engine.add(docs, name="k", options=SourceOptions(max_bytes=1000), embed=False)
        assert [p for p, _ in report.skipped] == ["big.md"]
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
