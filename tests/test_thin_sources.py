"""The source commands are thin: option ranges, the index folder, "is there an index" and
"a failed first add leaves none" are the library's, and the CLI only parses and formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clitool import Cli
from docmentor import (
    Docmentor,
    SourceOptions,
    UnindexedSources,
    UsageError,
    index_exists,
    index_removed_on_failure,
    refresh_pass,
)


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe kestrel hovers.\n", encoding="utf-8")
    return docs


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--concurrency", "65"], "error: --concurrency must be between 1 and 64"),
        (["--concurrency", "0"], "error: --concurrency must be between 1 and 64"),
        (["--timeout", "0"], "error: --timeout must be positive"),
        (["--max-bytes", "-5"], "error: --max-bytes must be positive"),
    ],
)
def test_add_flags_are_checked_by_the_options_themselves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], says: str
) -> None:
    cli = Cli(tmp_path / "index", capsys)
    err = cli.misused("add", str(_docs(tmp_path)), *flags)
    assert err.splitlines()[0] == says
    assert not (tmp_path / "index").exists()


def test_options_made_directly_are_checked(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="max_bytes must be positive") as caught:
        SourceOptions(max_bytes=-5)
    assert caught.value.arguments == ("max_bytes",)
    with pytest.raises(UsageError, match="concurrency must be between 1 and 64"):
        SourceOptions(concurrency=500)
    with pytest.raises(UsageError, match="retries must be at least 0"):
        SourceOptions(retries=-1)
    assert SourceOptions(concurrency=64, timeout=0.5, retries=0).concurrency == 64


def test_docmentor_toml_concurrency_has_the_same_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _docs(tmp_path)
    (tmp_path / "docmentor.toml").write_text(
        '[[sources]]\nname = "handbook"\npath = "docs"\nconcurrency = 500\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    err = Cli(tmp_path / "index", capsys).misused("refresh")
    assert "concurrency must be a whole number between 1 and 64, not 500" in err


def test_the_cli_and_the_library_open_the_same_index(
    index_location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each backend, named where a user would: the folder as ``db`` in docmentor.toml (relative
    to the file), a PostgreSQL URL in DOCMENTOR_DB (the file takes folders only)."""
    docs = _docs(tmp_path)
    monkeypatch.chdir(tmp_path)
    folder = not index_location.startswith("postgresql")
    if folder:
        (tmp_path / "docmentor.toml").write_text('db = "idx"\n', encoding="utf-8")
    else:
        monkeypatch.setenv("DOCMENTOR_DB", index_location)
    assert not index_exists()  # nothing there yet (an empty schema holds no index)
    cli = Cli(tmp_path / "unused", capsys)
    rc, _, err = cli.raw("add", str(docs), "--name", "guide")
    assert rc == 0, err
    assert index_exists() and (tmp_path / "idx").is_dir() == folder
    engine = Docmentor(create=False)
    assert [s["name"] for s in engine.sources()] == ["guide"]
    engine.close()
    monkeypatch.setenv("DOCMENTOR_DB", str(tmp_path / "env-db"))  # the environment before the file
    assert not index_exists()
    rc, out, _ = cli.raw("sources")
    assert (rc, out) == (0, "no sources: add one with `docmentor add PATH_OR_URL`\n")


def test_a_failed_first_add_leaves_no_index(tmp_path: Path) -> None:
    """The index folder only: in a database the tables a failed first add made stay (by design,
    ``index_removed_on_failure``)."""
    db = tmp_path / "new"
    with pytest.raises(RuntimeError), index_removed_on_failure(db):
        Docmentor(db).close()
        assert index_exists(db)
        raise RuntimeError("the add failed")
    assert not db.exists()
    Docmentor(db).close()  # an index that was there before is left alone
    with pytest.raises(RuntimeError), index_removed_on_failure(db):
        raise RuntimeError("the add failed")
    assert index_exists(db)


def test_one_refresh_pass_for_the_cli_and_the_servers(
    index_location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(tmp_path)
    (tmp_path / "docmentor.toml").write_text(
        '[[sources]]\nname = "conf"\npath = "docs"\n\n[[sources]]\nname = "gone"\npath = "missing"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    cli = Cli(index_location, capsys)
    cli.ok("add", str(docs), "--name", "own")
    assert [r["source"] for r in cli.json("refresh", "own")["sources"]] == ["own"]  # that one alone
    rc, out, _ = cli("refresh", "--json")  # every source, and the configured ones not indexed yet
    assert rc == 1 and {r["source"] for r in json.loads(out)["sources"]} == {"conf", "gone", "own"}
    unindexed = UnindexedSources()
    engine = Docmentor(index_location)
    reports = refresh_pass(engine, unindexed=unindexed)  # the configured sources by default
    engine.close()
    assert {r.source for r in reports} == {"conf", "gone", "own"}
    assert [row["name"] for row in unindexed.sources([])] == ["gone"]


def test_includes_not_found_for_a_reason_are_capped_like_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    too_long = "x" * 300  # no such file, and the system says why: "File name too long"
    lines = ["# Page", ""]
    for i in range(4):
        lines += [f'--8<-- "missing{i}.md"', "", f'--8<-- "{too_long}{i}.md"', ""]
    (docs / "page.md").write_text("\n".join(lines), encoding="utf-8")
    rc, _, err = Cli(tmp_path / "index", capsys)("add", str(docs))
    assert rc == 0, err
    warned = err.splitlines()
    assert len(warned) == 6, warned
    assert sum("include not found (" in w for w in warned[:5]) == 2
    assert warned[5].startswith("warning: … and 3 more includes not read (not found, or outside the folders")
    assert "; if they are relative" in warned[5]
