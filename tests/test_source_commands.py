"""The source commands' details (issue 19, section 5): a failed add leaves no index, a folder
whose name has a colon, get --lines and total_length, and what --help says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import httpserver
from clitool import Cli
from httpserver import HttpServer

http_server = httpserver.http_server

TEXT = "".join(f"line {i} of the kestrel page\n" for i in range(1, 21))


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "index", capsys)


def index_files(db: Path) -> list[str]:
    return sorted(p.name for p in db.iterdir()) if db.exists() else []


def test_a_failed_add_of_a_missing_folder_creates_no_index(cli: Cli, tmp_path: Path) -> None:
    err = cli.fails("add", str(tmp_path / "nonexistent"))
    assert "no such file or folder" in err
    assert not cli.db.exists()
    err = cli.fails("search", "anything")
    assert err.startswith("error: no index")  # not "no results": nothing was made


def test_a_failed_add_of_a_site_leaves_no_index_but_keeps_the_folder(
    cli: Cli, tmp_path: Path, http_server: HttpServer
) -> None:
    cli.db.mkdir()
    (cli.db / "docmentor.toml").write_text("# the user's own file\n", encoding="utf-8")
    err = cli.fails("add", http_server.url("/docs/llms.txt"))  # 404
    assert "HTTP 404" in err
    assert index_files(cli.db) == ["docmentor.toml"]  # the folder and the user's file stay
    assert cli.fails("search", "anything").startswith("error: no index")
    (cli.db / "docmentor.toml").unlink()
    cli.db.rmdir()
    cli.fails("add", http_server.url("/docs/llms.txt"))
    assert not cli.db.exists()  # made by this add, and removed with what it made


def test_a_failed_add_to_an_existing_index_changes_nothing(cli: Cli, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "k.md").write_text("# K\n\n" + TEXT, encoding="utf-8")
    cli.ok("add", str(docs), "--name", "k")
    before = cli.state()
    cli.fails("add", str(tmp_path / "nonexistent"))
    assert cli.state() == before
    assert [r["path"] for r in cli.json("search", "kestrel")["results"]] == ["k.md"]


def test_a_folder_whose_name_has_a_colon_is_a_folder(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    weird = tmp_path / "we:ird"
    weird.mkdir()
    (weird / "a.md").write_text("# A\n\nThe avocet.\n", encoding="utf-8")
    report = cli.json("add", "we:ird")
    assert (report["source"], report["documents"]) == ("we_ird", 1)
    (src,) = cli.state()["sources"]
    assert src["target"] == str(weird)
    # NAME:TARGET still works when no such path exists
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.md").write_text("# B\n\nThe bittern.\n", encoding="utf-8")
    report = cli.json("add", "mine:sub")
    assert report["source"] == "mine"
    assert {s["name"]: s["target"] for s in cli.state()["sources"]}["mine"] == str(tmp_path / "sub")


def test_get_lines_json_reports_the_documents_total_length(cli: Cli, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    doc = "# K\n\n" + TEXT
    (docs / "k.md").write_text(doc, encoding="utf-8")
    cli.ok("add", str(docs), "--name", "k")
    page = cli.json("get", "k:k.md", "--lines", "7-9")
    lines = doc.splitlines()[6:9]
    assert page["content"] == "\n".join(lines)
    assert (page["length"], page["total_length"], page["has_more"]) == (len(page["content"]), len(doc), False)
    # paging inside the lines: offsets count in the lines' text
    page = cli.json("get", "k:k.md", "--lines", "7-9", "--limit", "10")
    assert (page["content"], page["total_length"], page["has_more"]) == (lines[0][:10], len(doc), True)
    rc, _, err = cli("get", "k:k.md", "--lines", "7-9", "--limit", "10")
    left = len("\n".join(lines)) - 10
    assert rc == 0 and err.strip() == f"… {left} more characters: --offset 10"


def test_refresh_help_and_a_bad_deadline(cli: Cli) -> None:
    rc, out, _ = cli("refresh", "--help")
    assert rc == 0
    flat = " ".join(out.split())
    assert "--prune" in flat and "keeps them, marked stale" in flat
    assert "--deadline" in flat
    rc, out, err = cli("refresh", "--deadline", "0")
    assert rc == 2 and "--deadline" in err


def test_db_help_names_docmentor_home(cli: Cli) -> None:
    rc, out, _ = cli.raw("--help")
    assert rc == 0
    flat = " ".join(out.split())
    assert re.search(r"--db .*DOCMENTOR_DB.*DOCMENTOR_HOME", flat), flat


def test_encoding_help_and_error_list_the_same_encodings(cli: Cli) -> None:
    from docmentor.assemble.tokens import ENCODINGS

    _, out, _ = cli("assemble", "--help")
    flat = " ".join(out.split())
    for name in ENCODINGS:
        assert name in flat, name
    rc, _, err = cli("assemble", "q", "--encoding", "bogus")
    assert rc == 2
    for name in ENCODINGS:
        assert name in err, (name, err)


def test_add_json_of_a_new_site_still_works(cli: Cli, http_server: HttpServer) -> None:
    http_server.add("/docs/a.md", "# A\n\nThe avocet.\n", content_type="text/markdown")
    http_server.add("/docs/llms.txt", "# S\n\n## Docs\n\n- [A](a.md)\n")
    report = json.loads(cli.ok("add", http_server.url("/docs/llms.txt"), "--json"))
    assert (report["added"], report["documents"]) == (2, 2)
