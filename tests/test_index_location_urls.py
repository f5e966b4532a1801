"""Where the index lives: a folder, or a PostgreSQL database given by URL (``--db``,
``Docmentor(db)``, ``DOCMENTOR_DB``). Any other URL is an error that names only the URL's
scheme (a URL may hold a password) and creates nothing, and so is a database URL in a config
file (``db`` in docmentor.toml, ``db_path`` in llmdoc.json take folders): such values used to
create a local folder named ``postgresql:`` (issue 23)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from docmentor.cli import main
from docmentor.config import load_config, local_folder
from docmentor.engine import Docmentor
from docmentor.errors import StoreError, UsageError

URL = "postgresql://docs:s3cret@db.example:5432/docmentor"


def test_the_library_refuses_other_urls_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as raised:
        Docmentor(URL.replace("postgresql", "mysql"))
    assert "mysql:// URL" in str(raised.value) and "s3cret" not in str(raised.value)
    monkeypatch.setenv("DOCMENTOR_DB", "https://example.com/x")
    with pytest.raises(UsageError, match="DOCMENTOR_DB is a https:// URL"):
        Docmentor()
    assert os.listdir(tmp_path) == []


def test_an_unreachable_database_is_a_clear_error_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for given in (URL, None):
        if given is None:
            monkeypatch.setenv("DOCMENTOR_DB", URL)
        with pytest.raises(StoreError) as raised:
            Docmentor(given)
        assert "cannot connect to the PostgreSQL index" in str(raised.value)
        assert "s3cret" not in str(raised.value) and "docs:***@db.example" in str(raised.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "text", "key"),
    [
        ("docmentor.toml", f'db = "{URL}"\n', "db in"),
        ("llmdoc.json", json.dumps({"db_path": URL}), "db_path in"),
    ],
)
def test_config_files_refuse_a_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str, key: str
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DOCMENTOR_DB", raising=False)
    with pytest.raises(UsageError, match=key) as raised:
        load_config()
    assert "s3cret" not in str(raised.value)
    assert sorted(os.listdir(tmp_path)) == [name]


def test_the_cli_says_so_in_one_line_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for url in ("mysql://docs:s3cret@db/x", "https://example.com/index", "sqlite:///tmp/x.db"):
        capsys.readouterr()
        rc = main(["--db", url, "sources"])
        out, err = capsys.readouterr()
        scheme = url.split("://")[0]
        assert rc == 2 and out == "" and err.startswith(f"error: --db is a {scheme}:// URL"), err
        assert err.count("\n") == 1 and "s3cret" not in err
    assert os.listdir(tmp_path) == []


def test_folders_that_look_like_urls_only_in_part_are_folders(tmp_path: Path) -> None:
    for name in ("index", "c:/x", "postgresql:", "a//b", "my://"[:-3] + "-x"):
        assert local_folder(name, "db") == Path(name).expanduser()
    assert local_folder("~/idx", "db") == Path.home() / "idx"
