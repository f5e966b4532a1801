"""docmentor.toml as docs/configuration.md describes it, followed literally (a new-user tour):
its defaults reach `add`, `base_paths` is read from its folder, an edited entry reaches
`refresh`, a wrong value names the file and the key, a configured source answers to its name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import httpserver
from clitool import Cli
from docmentor.engine import Docmentor
from httpserver import HttpServer

http_server = httpserver.http_server


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """The CLI on an index in ``tmp_path``, run from ``tmp_path`` (where docmentor.toml is)."""
    monkeypatch.chdir(tmp_path)
    return Cli(tmp_path / "index", capsys)


def docs_folder(tmp_path: Path, name: str = "docs") -> Path:
    docs = tmp_path / name
    docs.mkdir()
    (docs / "small.md").write_text("# Small\n\nThe kestrel hovers.\n", encoding="utf-8")
    (docs / "big.md").write_text(
        "# Big\n\nThe osprey dives.\n" + "filler words here\n" * 200, encoding="utf-8"
    )
    return docs


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "docmentor.toml"
    path.write_text(text, encoding="utf-8")
    return path


def site(http_server: HttpServer) -> str:
    http_server.add("/docs/a.md", "# A\n\nThe avocet.\n", content_type="text/markdown")
    http_server.add("/docs/llms.txt", "# S\n\n## Docs\n\n- [A](a.md)\n")
    return http_server.url("/docs/llms.txt")


# -- 1. the file-wide defaults reach `add` --------------------------------------------------


def test_add_takes_the_fetch_defaults_and_max_bytes_of_docmentor_toml(
    cli: Cli, tmp_path: Path, http_server: HttpServer
) -> None:
    toml = write_toml(tmp_path, "max_bytes = 1000\n\n[fetch]\nconcurrency = 3\ntimeout = 5\nretries = 1\n")
    url = site(http_server)
    rc, _, err = cli("add", url, "--name", "site", "--concurrency", "2")
    assert rc == 0, err
    assert f"note: options from {toml}: timeout = 5, retries = 1, max_bytes = 1000" in err
    (row,) = cli.state()["sources"]  # stored with the source: its refreshes read them back
    assert row["options"] == {"concurrency": 2, "timeout": 5, "retries": 1, "max_bytes": 1000}
    rc, _, err = cli("add", str(docs_folder(tmp_path)), "--name", "k")
    assert rc == 0 and "big.md: skipped: over the size cap" in err, err
    assert "timeout" not in err  # [fetch] is for llms.txt sources only
    assert cli.state()["sources"][0]["options"] == {"max_bytes": 1000}
    (report,) = cli.json("refresh", "k")["sources"]
    assert [s["path"] for s in report["skipped"]] == ["big.md"]


def test_an_explicit_flag_wins_over_docmentor_toml(cli: Cli, tmp_path: Path) -> None:
    write_toml(tmp_path, "max_bytes = 1000\n")
    docs = docs_folder(tmp_path)
    rc, _, err = cli("add", str(docs), "--name", "k", "--max-bytes", "100000")
    assert (rc, err) == (0, ""), err  # nothing taken from the file: nothing said
    assert cli.state()["sources"][0]["options"] == {"max_bytes": 100000}


def test_the_library_add_takes_the_defaults_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_toml(tmp_path, "max_bytes = 1000\n")
    engine = Docmentor(tmp_path / "index")
    try:
        report = engine.add(docs_folder(tmp_path), name="k", embed=False)
        assert [p for p, _ in report.skipped] == ["big.md"]
        assert engine.sources()[0]["options"] == {"max_bytes": 1000}
    finally:
        engine.close()


# -- 2. base_paths is read from docmentor.toml's folder, as path is -----------------------


def test_base_paths_are_read_from_the_config_files_folder(cli: Cli, tmp_path: Path) -> None:
    """configuration.md: `path = "docs"  # relative to this file's folder`, then
    `base_paths = ["."]`: the file's folder, not the docs folder."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text('# A\n\nThe avocet.\n\n--8<-- "shared/note.md"\n', encoding="utf-8")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "note.md").write_text("The wandering albatross glides.\n", encoding="utf-8")
    write_toml(tmp_path, '[[sources]]\nname = "handbook"\npath = "docs"\nbase_paths = ["."]\n')
    rc, _, err = cli("refresh")
    assert (rc, err) == (0, ""), err
    (row,) = cli.state()["sources"]
    assert row["options"] == {"base_paths": [str(tmp_path.resolve())]}
    assert [r["path"] for r in cli.json("search", "albatross")["results"]] == ["a.md"]


def test_a_missing_base_path_is_a_warning_naming_the_source_and_the_folder(cli: Cli, tmp_path: Path) -> None:
    docs_folder(tmp_path)
    write_toml(tmp_path, '[[sources]]\nname = "handbook"\npath = "docs"\nbase_paths = ["nope"]\n')
    rc, out, err = cli("refresh")
    assert rc == 1 and out == ""
    missing = tmp_path.resolve() / "nope"
    assert f"warning: handbook: not indexed: base_paths {missing} is not a folder" in err, err


# -- 3. an edited [[sources]] entry reaches refresh -----------------------------------------


def test_edited_options_of_an_indexed_configured_source_are_applied(
    cli: Cli, tmp_path: Path, http_server: HttpServer
) -> None:
    docs_folder(tmp_path)
    url = site(http_server)
    entries = f'[[sources]]\nname = "handbook"\npath = "docs"\n\n[[sources]]\nname = "site"\nurl = "{url}"\n'
    write_toml(tmp_path, entries)
    cli.ok("refresh")
    assert {r["name"]: r["options"] for r in cli.state()["sources"]} == {"handbook": {}, "site": {}}
    write_toml(tmp_path, "max_bytes = 1000\n\n[fetch]\ntimeout = 5\n\n" + entries)
    rc, out, err = cli("refresh")
    assert rc == 0 and "big.md: skipped: over the size cap" in err, err
    assert "handbook: 1 document" in out, out
    options = {r["name"]: r["options"] for r in cli.state()["sources"]}
    assert options == {"handbook": {"max_bytes": 1000}, "site": {"timeout": 5, "max_bytes": 1000}}
    write_toml(tmp_path, entries)  # and back: the defaults again
    cli("refresh")
    assert {r["name"]: r["options"] for r in cli.state()["sources"]} == {"handbook": {}, "site": {}}
    assert [r["path"] for r in cli.json("search", "osprey")["results"]] == ["big.md"]


def test_an_entry_pointing_elsewhere_is_a_warning_saying_how_to_move_it(cli: Cli, tmp_path: Path) -> None:
    """The name may hold a source added by hand: a refresh does not replace it on its own."""
    docs_folder(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "h.md").write_text("# H\n\nThe heron waits.\n", encoding="utf-8")
    write_toml(tmp_path, '[[sources]]\nname = "handbook"\npath = "docs"\n')
    cli.ok("refresh")
    write_toml(tmp_path, '[[sources]]\nname = "handbook"\npath = "other"\n')
    rc, out, err = cli("refresh")
    assert rc == 0 and "handbook: 2 documents" in out, (out, err)
    docs, moved = tmp_path.resolve() / "docs", other.resolve()
    assert err == (
        f"warning: handbook is configured as {moved} but indexed from {docs}: refreshed from {docs}; "
        f"to index {moved} instead: docmentor remove handbook, then docmentor refresh\n"
    )
    cli.ok("remove", "handbook")
    cli.ok("refresh")
    assert cli.state()["sources"][0]["target"] == str(moved)
    assert [r["path"] for r in cli.json("search", "heron")["results"]] == ["h.md"]


# -- 4. a wrong value in docmentor.toml is an error naming the file and the key -------------

SITE = 'url = "https://docs.example/llms.txt"'


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("db = 5", "db must be a folder path, not 5"),
        (f'[[sources]]\nname = "both"\n{SITE}\npath = "docs"', "source 'both': both url and path are given"),
        (
            f'[[sources]]\nname = "a"\n{SITE}\n\n[[sources]]\nname = "a"\npath = "docs"',
            "two sources are named 'a'",
        ),
        ('max_bytes = "big"', "max_bytes must be a whole number of at least 1, not 'big'"),
        (f'[[sources]]\nname = "has space"\n{SITE}', "invalid source name 'has space'"),
        ('sources = "handbook"', "sources must be a list, not 'handbook'"),
        (f"[[sources]]\nname = 5\n{SITE}", "a source's name must be text, not 5"),
        ('[[sources]]\nname = "n"\nurl = 5', "source 'n': url must be a URL or a path, not 5"),
        ("embedings = false", "unknown key 'embedings' (did you mean 'embeddings'? the keys are db, "),
        ("max_byte = 5", "unknown key 'max_byte' (did you mean 'max_bytes'?"),
        ("[fetch]\nconcurency = 3", "[fetch]: unknown key 'concurency' (did you mean 'concurrency'?"),
        ('[fetch]\ntimeout = "soon"', "[fetch]: timeout must be a positive number of seconds, not 'soon'"),
        ('embeddings = "no"', "embeddings must be true or false, not 'no'"),
        (
            "refresh_interval_hours = 24",
            "unknown key 'refresh_interval_hours' (a server's background refresh is ",
        ),
    ],
)
def test_a_wrong_value_in_docmentor_toml_names_the_file_and_the_key(
    cli: Cli, tmp_path: Path, text: str, says: str
) -> None:
    docs_folder(tmp_path)
    toml = write_toml(tmp_path, text + "\n")
    for args in (("sources",), ("refresh",)):  # no --db: the file's db is not passed over either
        rc, out, err = cli.raw(*args)
        assert (rc, out) == (2, ""), (args, rc, out, err)
        assert err.startswith(f"error: {toml}: ") and err.count("\n") == 1, err
        assert says in err, err
    assert not (tmp_path / "5").exists() and not cli.db.exists()


def test_llmdoc_json_sources_are_checked_as_the_tomls_are(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "llmdoc.json"
    path.write_text('{"refresh_interval_hours": -1}', encoding="utf-8")
    assert "refresh_interval_hours must be a number of hours (0: off), not -1" in cli.misused("sources")
    path.write_text('{"sources": "handbook"}', encoding="utf-8")
    assert cli.misused("sources").startswith(f"error: {path}: sources must be a list, not 'handbook'")
    path.write_text('{"sources": ["a:https://a.example/llms.txt", "a:docs"]}', encoding="utf-8")
    assert "two sources are named 'a'" in cli.misused("sources")


# -- 5. a configured source not indexed yet answers to its name ------------------------------


def two_configured(tmp_path: Path) -> Path:
    docs_folder(tmp_path, "conc")
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "s.md").write_text("# S\n\nThe sloth hangs.\n", encoding="utf-8")
    return write_toml(
        tmp_path,
        '[[sources]]\nname = "conc"\npath = "conc"\n\n[[sources]]\nname = "slow"\npath = "slow"\n',
    )


def test_refresh_name_indexes_a_configured_source_not_indexed_yet(cli: Cli, tmp_path: Path) -> None:
    toml = two_configured(tmp_path)
    out = cli.ok("refresh", "slow")  # before any index exists
    assert out.startswith("slow: 1 document"), out
    assert [s["name"] for s in cli.state()["sources"]] == ["slow", "conc"]  # conc: configured
    err = cli.fails("remove", "conc")
    assert err == (
        f"error: 'conc' is configured in {toml} but not indexed yet (`docmentor refresh conc` indexes it)\n"
    )
    err = cli.fails("remove", "nope")
    assert "known sources: slow; configured, not indexed yet: conc" in err, err
    cli.ok("refresh", "conc")
    cli.ok("remove", "conc")
    assert [r["path"] for r in cli.json("search", "sloth")["results"]] == ["s.md"]


def test_refresh_name_of_a_configured_source_that_fails_says_why(cli: Cli, tmp_path: Path) -> None:
    write_toml(tmp_path, '[[sources]]\nname = "gone"\nurl = "http://127.0.0.1:9/llms.txt"\n')
    err = cli.fails("refresh", "gone")
    assert "127.0.0.1:9" in err and "unknown source" not in err, err
    rc, out, err = cli("refresh", "gone", "--json")
    (report,) = json.loads(out)["sources"]
    assert rc == 1 and (report["source"], report["kind"]) == ("gone", "configured"), report
    assert "127.0.0.1:9" in report["error"]


def test_mcp_refresh_sources_indexes_a_configured_source_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The MCP tool goes through the same library call (scheduler.refresh_pass)."""
    import anyio
    from mcp import Client

    from docmentor.server import build_server
    from mcptool import structured

    two_configured(tmp_path)
    monkeypatch.chdir(tmp_path)
    engine = Docmentor(tmp_path / "index", create=True)

    async def go() -> Any:
        async with Client(build_server(engine, tools=["docs"])) as client:
            return structured(await client.call_tool("refresh_sources", {"source": "slow"}))

    try:
        (report,) = anyio.run(go)["sources"]
        assert (report["source"], report["documents"], report["error"]) == ("slow", 1, None)
    finally:
        engine.close()


# -- 6. a bad DOCMENTOR_* value is an error, a switch is read as DOCMENTOR_EMBEDDINGS is ----


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        (
            "DOCMENTOR_EMBED_THREADS",
            "abc",
            "DOCMENTOR_EMBED_THREADS='abc' is not a whole number of at least 1",
        ),
        ("DOCMENTOR_EMBED_THREADS", "0", "DOCMENTOR_EMBED_THREADS='0' is not a whole number of at least 1"),
        ("DOCMENTOR_EMBED_THREADS", "-3", "DOCMENTOR_EMBED_THREADS='-3' is not a whole number of at least 1"),
        ("DOCMENTOR_PARALLEL", "abc", "DOCMENTOR_PARALLEL='abc' is not a switch"),
    ],
)
def test_a_bad_environment_value_is_an_error_when_the_index_is_opened(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, says: str
) -> None:
    docs = docs_folder(tmp_path)
    monkeypatch.setenv(variable, value)
    assert says in cli.misused("add", str(docs))
    assert not cli.db.exists()  # nothing made


def test_embed_threads_takes_ascii_whole_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    from docmentor.embeddings import default_threads
    from docmentor.errors import UsageError

    monkeypatch.setenv("DOCMENTOR_EMBED_THREADS", " 3 ")
    assert default_threads() == 3
    monkeypatch.setenv("DOCMENTOR_EMBED_THREADS", "٣")  # a digit, not an ASCII one
    with pytest.raises(UsageError, match="not a whole number"):
        default_threads()


@pytest.mark.parametrize(
    ("value", "forks"),
    [("", True), ("1", True), ("on", True), ("0", False), ("false", False), ("OFF", False), ("no", False)],
)
def test_parallel_parsing_is_a_switch_like_embeddings(
    monkeypatch: pytest.MonkeyPatch, value: str, forks: bool
) -> None:
    from docmentor.parse import batch

    monkeypatch.setattr(batch.sys, "platform", "linux")
    monkeypatch.setattr(batch.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    monkeypatch.setattr(batch.os, "listdir", lambda _: ["1"])  # one thread: forking is safe
    monkeypatch.setenv("DOCMENTOR_PARALLEL", value)
    assert batch._may_fork() is forks


# -- 7. NAME:TARGET with a malformed name is the name's error, as --name gives ---------------


def test_a_malformed_name_before_the_colon_is_a_name_error(cli: Cli, tmp_path: Path) -> None:
    docs = docs_folder(tmp_path)
    by_flag = cli.misused("add", str(docs), "--name", "has space")
    by_colon = cli.misused("add", f"has space:{docs}")
    assert by_colon == by_flag and by_colon.startswith("error: invalid source name 'has space'"), by_colon
    assert not cli.db.exists()
    # the whole string an existing path: a folder with a colon and a space in its name
    odd = tmp_path / "odd name:v2"
    odd.mkdir()
    (odd / "o.md").write_text("# O\n\nThe owl.\n", encoding="utf-8")
    assert cli.json("add", str(odd))["documents"] == 1
    assert cli.json("add", "odd name:v2")["documents"] == 1  # relative, from the working folder


def test_split_named_tells_a_name_from_a_path_with_a_colon() -> None:
    from docmentor.config import split_named
    from docmentor.errors import UsageError

    assert split_named("./my docs:v2") == (None, "./my docs:v2")
    assert split_named("~/a b:c") == (None, "~/a b:c")
    assert split_named("C:\\docs") == (None, "C:\\docs")
    assert split_named("ok:docs") == ("ok", "docs")
    with pytest.raises(UsageError, match="invalid source name 'has space'"):
        split_named("has space:/docs")


def test_add_again_takes_the_files_values_of_the_day_and_keeps_earlier_flags(
    cli: Cli, tmp_path: Path, http_server: HttpServer
) -> None:
    """`add` of the same docs again: docmentor.toml's defaults as they are now, then what
    flags gave before (kept), then nothing (the reader's default)."""
    url = site(http_server)
    write_toml(tmp_path, "[fetch]\ntimeout = 5\n")
    cli("add", url, "--name", "site", "--concurrency", "2")
    write_toml(tmp_path, "[fetch]\ntimeout = 9\n")
    cli("add", url, "--name", "site")
    assert cli.state()["sources"][0]["options"] == {"concurrency": 2, "timeout": 9}
