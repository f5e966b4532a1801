"""The command line, run in-process through ``main(argv)`` with exact-output asserts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import httpserver
from clitool import Cli
from httpserver import HttpServer, Reply

http_server = httpserver.http_server

GUIDE = """\
# Widget Guide

Widgets are small reusable parts.

## Install

Run `pip install widget` to get the frobnicator.

## Configure

Set `WIDGET_COLOR` before starting.
"""

FAQ = """\
# FAQ

## Why widgets?

Because gadgets were taken.
"""

SEARCH_KEYS = [
    "rank",
    "source",
    "path",
    "url",
    "title",
    "heading",
    "heading_path",
    "line_start",
    "line_end",
    "score",
    "snippet",
    "indexed_at",
    "source_version",
    "also",
]
REPORT = re.compile(
    r"^(?P<name>\S+): (?P<docs>\d+) documents?, (?P<secs>\d+) sections? \(\+(?P<added>\d+) new, "
    r"(?P<updated>\d+) updated, (?P<unchanged>\d+) unchanged, -(?P<removed>\d+) removed\) in \d+\.\d\ds$"
)


def reported(line: str) -> re.Match[str]:
    """The REPORT match of a refresh line (failing the test when the line is no report)."""
    m = REPORT.match(line)
    assert m is not None, line
    return m


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "widgets"
    (root / "sub").mkdir(parents=True)
    (root / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "sub" / "faq.md").write_text(FAQ, encoding="utf-8")
    return root


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "index", capsys)


@pytest.fixture
def indexed(cli: Cli, docs: Path) -> Cli:
    cli.ok("add", str(docs), "--name", "w")
    return cli


def one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0]


# ----------------------------------------------------------------------------- sources


def test_add_prints_one_report_line(cli: Cli, docs: Path) -> None:
    out = cli.ok("add", str(docs), "--name", "w")
    m = REPORT.match(out.rstrip("\n"))
    assert m, out
    assert out.count("\n") == 1
    assert m.groupdict() == {
        "name": "w",
        "docs": "2",
        "secs": "5",
        "added": "2",
        "updated": "0",
        "unchanged": "0",
        "removed": "0",
    }


def test_add_without_name_uses_the_folder_name(cli: Cli, docs: Path) -> None:
    out = cli.ok("add", str(docs))
    assert out.startswith("widgets: 2 documents, 5 sections")
    assert [s["name"] for s in cli.state()["sources"]] == ["widgets"]


def test_add_json_report(cli: Cli, docs: Path) -> None:
    report = cli.json("add", str(docs), "--name", "w")
    assert {k: v for k, v in report.items() if k != "seconds"} == {
        "source": "w",
        "error": None,
        "kind": "folder",
        "added": 2,
        "updated": 0,
        "unchanged": 0,
        "removed": 0,
        "failed": [],
        "nothing_read": False,
        "skipped": [],
        "warnings": [],
        "documents": 2,
        "sections": 5,
        "embedding": None,  # embeddings are off in the tests (conftest)
    }


def test_sources_text_and_json(indexed: Cli, docs: Path) -> None:
    out = indexed.ok("sources")
    assert re.fullmatch(
        rf"w\tfolder\t2 documents, 5 sections\t{re.escape(str(docs))}\trefreshed \d{{4}}-\d\d-\d\dT[\d:]+Z\n",
        out,
    ), out
    data = indexed.json("sources")
    assert list(data) == ["sources"]
    (src,) = data["sources"]
    assert list(src) == [
        "name",
        "kind",
        "target",
        "title",
        "version",
        "version_origin",  # where the version was read (None: no version known)
        "library",  # the name without @VERSION: the versions of one library share it
        "documents",
        "sections",
        "stale_documents",
        "status",
        "error",
        "created_at",
        "refreshed_at",
        "options",
        "units",  # search units (sections, tiny reference stubs with their parent)
        "embedded",  # units with a vector (0 here: embeddings are off in the tests)
    ]
    assert (src["name"], src["kind"], src["target"], src["documents"], src["sections"]) == (
        "w",
        "folder",
        str(docs),
        2,
        5,
    )
    assert (src["stale_documents"], src["status"], src["error"]) == (0, "ok", None)


def test_sources_without_an_index(cli: Cli) -> None:
    assert cli.ok("sources") == "no sources: add one with `docmentor add PATH_OR_URL`\n"
    assert cli.json("sources") == {"sources": []}
    assert not cli.db.exists()


def test_remove_and_reindex(indexed: Cli, docs: Path) -> None:
    assert (
        indexed.ok("reindex") == "reindexed 4 search units\n"
    )  # 5 sections: one a bare title opening the next
    assert indexed.json("search", "frobnicator")["results"][0]["path"] == "guide.md"
    assert indexed.ok("remove", "w") == "removed w\n"
    assert indexed.json("sources") == {"sources": []}
    assert indexed.json("search", "frobnicator")["results"] == []


def test_refresh_reports_changes(indexed: Cli, docs: Path) -> None:
    out = indexed.ok("refresh")
    m = REPORT.match(out.rstrip("\n"))
    assert m and m["unchanged"] == "2" and m["added"] == m["updated"] == m["removed"] == "0", out
    (docs / "guide.md").write_text(GUIDE.replace("frobnicator", "quuxinator"), encoding="utf-8")
    (docs / "sub" / "faq.md").unlink()
    (docs / "new.md").write_text("# New\n\nfresh page\n", encoding="utf-8")
    out = indexed.ok("refresh", "w")
    m = REPORT.match(out.rstrip("\n"))
    assert m, out
    assert (m["docs"], m["added"], m["updated"], m["unchanged"], m["removed"]) == ("2", "1", "1", "0", "1")
    assert indexed.json("search", "frobnicator")["results"] == []
    hits = indexed.json("search", "quuxinator")["results"]
    assert [(h["path"], h["heading"]) for h in hits] == [("guide.md", "Install")]
    assert indexed.json("search", "gadgets")["results"] == []


def test_refresh_all_with_a_vanished_folder_warns_and_keeps_it(indexed: Cli, docs: Path) -> None:
    before = indexed.state()["sources"][0]
    docs.rename(docs.with_name("moved"))
    rc, out, err = indexed("refresh")
    # the other sources are refreshed; the failure is reported and the exit code says so
    assert rc == 1
    assert err == (
        f"warning: the folder {docs} is gone; the source's documents are kept as they were (put the folder back, or remove the source: docmentor remove w)\n"
        "error: 1 of 1 sources could not be refreshed: w"
        " (they keep their previous content; see the warnings above)\n"
    )
    m = REPORT.match(out.rstrip("\n").replace(", 1 failed)", ")"))
    assert m and (m["docs"], m["secs"], m["removed"]) == ("2", "5", "0"), out
    assert ", 1 failed) in " in out
    after = indexed.state()["sources"][0]
    assert (after["documents"], after["sections"], after["status"]) == (2, 5, "error")
    assert {k: v for k, v in after.items() if k not in ("status", "error")} == {
        k: v for k, v in before.items() if k not in ("status", "error")
    }
    rc, out, err = indexed("refresh", "w")
    assert (rc, out) == (1, "")
    assert (
        one_error(err)
        == f"error: the folder {docs} is gone; the source's documents are kept as they were (put the folder back, or remove the source: docmentor remove w)"
    )
    # --json: that source's report, as refreshing all of them gives it, and the exit code says so
    rc, out, err = indexed("refresh", "--json", "w")
    (report,) = json.loads(out)["sources"]
    assert rc == 1 and (report["source"], report["error"]) == (
        "w",
        f"the folder {docs} is gone; the source's documents are kept as they were (put the folder back, or remove the source: docmentor remove w)",
    )
    assert (report["documents"], report["sections"]) == (2, 5)
    assert err.endswith("(they keep their previous content; see each source's error in the JSON)\n")


def test_add_and_get_an_llms_txt_site(cli: Cli, http_server: HttpServer, tmp_path: Path) -> None:
    # another host's link is refused by policy: warned about, not a failing document
    http_server.add(
        "/docs/llms.txt", "# Site\n\n- [A](a.md)\n- [B](b.md)\n- [GitHub](https://github.com/x/y)\n"
    )
    http_server.add("/docs/a.md", "# A\n\nThe okapi.\n", content_type="text/markdown")
    http_server.add("/docs/b.md", Reply(status=404))
    rc, out, err = cli("add", http_server.url("/docs/llms.txt"), "--name", "site")
    assert rc == 0
    assert sorted(err.splitlines()) == sorted(
        [
            f"warning: {http_server.url('/docs/b.md')}: HTTP 404",
            "warning: https://github.com/x/y: link to another host refused",
        ]
    )
    assert (
        out.startswith("site: 2 documents, ")
        and out.rstrip().endswith("s")
        and ", 1 failed, 1 refused) in " in out
    )
    hit = cli.json("search", "okapi")["results"][0]
    assert (hit["path"], hit["url"]) == ("/docs/a.md", http_server.url("/docs/a.md"))
    assert cli.ok("get", http_server.url("/docs/a.md")) == "# A\n\nThe okapi.\n"
    assert cli.ok("get", "site:/docs/a.md") == "# A\n\nThe okapi.\n"
    # the URL path without its leading slash, as one would type it
    assert (
        cli.ok("get", "site:docs/a.md")
        == cli.ok("get", "docs/a.md", "--source", "site")
        == "# A\n\nThe okapi.\n"
    )
    assert cli.ok("get", "docs/a.md") == "# A\n\nThe okapi.\n"
    (src,) = cli.json("sources")["sources"]
    assert (src["kind"], src["title"], src["documents"]) == ("llms_txt", "Site", 2)
    # the link that failed is not forgotten once the command is over
    assert src["status"] == "ok"
    assert src["error"] == f"1 document(s) could not be read, first {http_server.url('/docs/b.md')}: HTTP 404"
    assert "[error: 1 document(s) could not be read" in cli.ok("sources")
    # a local folder with docs/a.md too: the bare reference is ambiguous, and says so
    local = tmp_path / "local"
    (local / "docs").mkdir(parents=True)
    (local / "docs" / "a.md").write_text("# Local A\n", encoding="utf-8")
    assert cli("add", str(local), "--name", "loc")[0] == 0
    err = cli.misused("get", "docs/a.md")
    assert err.startswith(
        "error: 'docs/a.md' is in several sources (name one: loc:docs/a.md, site:/docs/a.md"
    )
    assert cli.ok("get", "loc:docs/a.md") == "# Local A\n"
    # the page's name alone, as the llms.txt lists it: the one path of the source ending so
    assert cli.ok("get", "site:a.md") == cli.ok("get", "a.md", "--source", "site") == "# A\n\nThe okapi.\n"
    (local / "docs" / "sub").mkdir()
    (local / "docs" / "sub" / "a.md").write_text("# Sub A\n", encoding="utf-8")
    cli("refresh", "loc")
    assert cli.misused("get", "loc:a.md").startswith(
        "error: 'a.md' is the end of several paths in loc (name one: loc:docs/a.md, loc:docs/sub/a.md"
    )
    assert cli.fails("get", "site:b.md").startswith("error: no indexed document 'site:b.md'")


# ------------------------------------------------------------------------------ search


def test_search_json_shape(indexed: Cli, docs: Path) -> None:
    data = indexed.json("search", "frobnicator install")
    assert list(data) == ["query", "results"]
    assert data["query"] == "frobnicator install"
    first = data["results"][0]
    assert list(first) == SEARCH_KEYS
    assert {k: first[k] for k in SEARCH_KEYS if k not in ("score", "indexed_at")} == {
        "rank": 1,
        "source": "w",
        "path": "guide.md",
        "url": (docs / "guide.md").as_uri(),
        "title": "Widget Guide",
        "heading": "Install",
        "heading_path": ["Widget Guide", "Install"],
        "line_start": 5,
        "line_end": 7,
        "snippet": "## Install\n\nRun `pip install widget` to get the frobnicator.",
        "source_version": None,
        "also": [],
    }
    assert isinstance(first["score"], float) and first["score"] > 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", first["indexed_at"])
    assert [r["rank"] for r in data["results"]] == list(range(1, len(data["results"]) + 1))
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)


def test_search_limit_source_and_text(indexed: Cli, docs: Path) -> None:
    other = docs.parent / "other"
    other.mkdir()
    (other / "w.md").write_text("# Widgets elsewhere\n\nwidget widget widget\n", encoding="utf-8")
    indexed.ok("add", str(other), "--name", "o")
    assert {r["source"] for r in indexed.json("search", "widget")["results"]} == {"w", "o"}
    assert {r["source"] for r in indexed.json("search", "widget", "--source", "o")["results"]} == {"o"}
    assert len(indexed.json("search", "widget", "--limit", "1")["results"]) == 1
    out = indexed.ok("search", "frobnicator", "--source", "w")
    assert out.splitlines()[0].startswith("1. Widget Guide › Install  [w] guide.md:5-7  (score ")
    assert "   Run `pip install widget` to get the frobnicator." in out.splitlines()
    assert indexed.ok("search", "zzzyzzx") == "no results for 'zzzyzzx'\n"
    # a limit over the most a search gives says so (the DRF tour: silently 100)
    rc, out, err = indexed("search", "widget", "--limit", "500")
    assert rc == 0 and out and err == "note: --limit is at most 100: the best 100 are shown\n"


# --------------------------------------------------------------------------------- get


def test_get_by_every_kind_of_reference(indexed: Cli, docs: Path) -> None:
    abs_path = docs / "sub" / "faq.md"
    for ref in (
        ["w:sub/faq.md"],
        ["sub/faq.md", "--source", "w"],
        ["./sub/faq.md", "--source", "w"],
        [str(abs_path)],
        [abs_path.as_uri()],
        ["sub/faq.md"],
        ["w", "sub/faq.md"],  # a source, then the path (the Starlette and Vitest tours' first try)
    ):
        assert indexed.ok("get", *ref) == FAQ, ref
    err = indexed.misused("get", "w", "sub/faq.md", "--source", "w")
    assert err.startswith("error: give the source once: 'w' and --source 'w'") and "get w:sub/faq.md" in err
    assert "unknown source" in indexed.fails("get", "nosuch", "sub/faq.md")
    err = indexed.misused("get", "w:sub/faq.md", "extra")
    assert err.startswith("error: unexpected extra argument 'extra': 'w:sub/faq.md' is a whole reference")


def test_get_lines_past_the_end_says_how_many_there_are(indexed: Cli) -> None:
    n = len(FAQ.splitlines())
    err = indexed.misused("get", "w:sub/faq.md", "--lines", f"{n + 1}-{n + 50}")
    assert err == f"error: lines {n + 1}-{n + 50}: sub/faq.md has {n} lines (ask for lines up to {n})\n"


def test_a_long_query_with_no_results_is_not_echoed_whole(indexed: Cli) -> None:
    out = indexed.ok("search", "zzqx " * 2000)
    assert out.startswith("no results for 'zzqx zzqx") and len(out) < 100


def test_get_paginates(indexed: Cli) -> None:
    page = indexed.json("get", "w:guide.md", "--limit", "10")
    assert {k: v for k, v in page.items() if k != "indexed_at"} == {
        "source": "w",
        "path": "guide.md",
        "url": page["url"],
        "title": "Widget Guide",
        "content": GUIDE[:10],
        "offset": 0,
        "length": 10,
        "total_length": len(GUIDE),
        "has_more": True,
        "stale": False,
        "error": None,
        "source_version": None,  # the library version of the source (none found for "w")
    }
    text = ""
    offset = 0
    while True:
        page = indexed.json("get", "w:guide.md", "--offset", str(offset), "--limit", "37")
        text += page["content"]
        offset = page["offset"] + page["length"]
        if not page["has_more"]:
            break
    assert text == GUIDE
    assert offset == len(GUIDE)
    rc, out, err = indexed("get", "w:guide.md", "--limit", "10")
    assert (rc, out) == (0, GUIDE[:10] + "\n")
    assert err == f"\n… {len(GUIDE) - 10} more characters: --offset 10\n"


# ------------------------------------------------------------------------------ errors


def _failures(docs: Path, tmp_path: Path) -> list[tuple[list[str], str, int]]:
    """(argv, the error's start, the exit code): 1 for what is not there, 2 for a usage error
    (a bad value, name or path given)."""
    a_file = tmp_path / "plain.md"
    a_file.write_text("# x\n", encoding="utf-8")
    return [
        (["search", "widget", "--source", "nope"], "error: unknown source 'nope'", 1),
        (["get", "guide.md", "--source", "nope"], "error: unknown source 'nope'", 1),
        (["remove", "nope"], "error: unknown source 'nope'", 1),
        (["refresh", "nope"], "error: unknown source 'nope'", 1),
        (["get", "w:missing.md"], "error: no indexed document 'w:missing.md'", 1),
        (["get", "missing.md", "--source", "w"], "error: no indexed document 'missing.md' in source 'w'", 1),
        (["add", str(tmp_path / "missing")], "error: no such file or folder:", 1),
        (["add", str(a_file)], f"error: {a_file} is a file; add its folder, or an llms.txt file", 2),
        (["search", "widget", "--limit", "0"], "error: --limit must be at least 1", 2),
        (["get", "w:guide.md", "--limit", "0"], "error: --limit must be at least 1, got 0", 2),
        (["get", "w:guide.md", "--offset", "-1"], "error: --offset must be at least 0, got -1", 2),
        (
            ["get", "w:guide.md", "--offset", "999999"],
            "error: --offset 999999 is past the end: guide.md has",
            2,
        ),
        (
            ["get", "w:guide.md", "--lines", "1-2", "--offset", "999"],
            "error: --offset 999 is past the end: those",
            2,
        ),
        (
            ["add", "ftp://example.com/llms.txt"],
            "error: unsupported URL scheme in 'ftp://example.com/llms.txt'",
            2,
        ),
        (["add", str(docs), "--name", "bad name"], "error: invalid source name 'bad name'", 2),
        (["add", str(docs), "--name", "-x"], "error: invalid source name '-x'", 2),
        (["add", str(docs), "--name", ""], "error: invalid source name ''", 2),
        (["add", str(tmp_path), "--name", "w"], "error: source 'w' already points at", 2),
        (["add", str(docs), "--max-bytes", "0"], "error: --max-bytes must be positive", 2),
    ]  # serve's bad --transport is a usage error (exit 2): tests/test_mcp.py


def test_each_error_is_one_line_exit_1_or_2_and_changes_nothing(
    indexed: Cli, docs: Path, tmp_path: Path
) -> None:
    before = indexed.state()
    hits_before = indexed.json("search", "widget")
    for argv, prefix, code in _failures(docs, tmp_path):
        rc, out, err = indexed(*argv)
        assert rc == code, (argv, err)
        assert out == "", argv
        assert one_error(err).startswith(prefix), (argv, err)
        assert "Traceback" not in err
        assert indexed.state() == before, argv
    assert indexed.json("search", "widget") == hits_before


@pytest.mark.parametrize(
    ("argv", "prefix"),
    [
        # click's wording varies a little between releases: match the substance
        (["bogus"], r"error: No such command '?bogus'?\."),
        (["search"], r"error: Missing argument '(query|QUERY)'\."),
        (["search", "x", "--limit", "many"], r"error: Invalid value for '--limit'"),
        (["search", "x", "--frobnicate"], r"error: No such option:? '?--frobnicate'?"),
        (["get"], r"error: Missing argument '(ref|REF)'\."),
        (["--db"], r"error: Option '--db' requires an argument\."),
    ],
)
def test_usage_errors_exit_2(indexed: Cli, argv: list[str], prefix: str) -> None:
    before = indexed.state()
    rc, out, err = indexed(*argv) if argv != ["--db"] else indexed.raw(*argv)
    assert (rc, out) == (2, "")
    assert re.match(prefix, one_error(err)), err
    assert indexed.state() == before


def test_no_arguments_prints_help_exit_2(cli: Cli) -> None:
    rc, out, err = cli.raw()
    assert (rc, out) == (2, "")
    assert err.startswith("Usage: docmentor [OPTIONS] COMMAND [ARGS]...")


@pytest.mark.parametrize(
    "argv",
    [["search", "widget"], ["get", "w:guide.md"], ["remove", "w"], ["reindex"]],
)
def test_no_index_yet(cli: Cli, argv: list[str]) -> None:
    rc, out, err = cli(*argv)
    assert (rc, out) == (1, "")
    assert one_error(err).startswith("error: no index"), err
    assert not cli.db.exists()


def test_blank_names_and_malformed_input_files_are_usage_errors(
    indexed: Cli, docs: Path, tmp_path: Path
) -> None:
    """An empty name (a script's unset variable) is refused, not taken for "every source";
    a question file of the wrong shape or not text names the line, not a Python exception."""
    before = indexed.state()
    assert indexed.misused("refresh", "").startswith("error: empty source name (name one of: w)")
    assert indexed.state() == before  # nothing re-read (refreshed_at as it was)
    for argv in (["remove", ""], ["search", "widget", "-s", ""], ["assemble", "widget", "-s", ""]):
        assert indexed.misused(*argv).startswith("error: empty source name"), argv
    assert indexed.misused("search", "widget", "--version", " ").startswith("error: empty version")
    assert indexed.misused("get", "").startswith("error: empty document reference")
    assert indexed.misused("clarity", "score", "-s", "").startswith("error: --source is empty")
    rc, out, err = indexed.raw("--db", " ", "sources")
    assert (rc, out, one_error(err)) == (2, "", "error: --db is empty (give the index folder or a "
                                         "postgresql:// URL, or leave --db out)")  # fmt: skip
    missing = tmp_path / "nowhere"
    assert indexed.misused("add", str(docs), "--name", "w", "--base-path", str(missing)).startswith(
        f"error: --base-path {missing} is not a folder"
    )
    assert indexed.misused("add", str(docs), "--name", "w", "--allow-host", " ") == (
        "error: --allow-host has an empty entry\n"
    )
    assert indexed.state() == before
    shapes: list[tuple[dict[str, object], str]] = [
        (
            {"relevant": [{"path": "guide.md", "grade": "high"}]},
            """a label's "grade" is 0, 1 or 2, not 'high'""",
        ),
        ({"relevant": "guide.md"}, '"relevant" must be a list of labels'),
        ({"relevant": [{"heading": "Install"}]}, 'each "relevant" label needs a "path" string'),
        ({"expected_contains": "widget"}, '"expected_contains" must be a list of strings'),
        ({"expected_contains": [1, 2]}, '"expected_contains" must be a list of strings'),
        ({"expected_api": 7}, '"expected_api" must be an API id or a list of them'),
    ]
    for labels, says in shapes:
        questions = tmp_path / "q.jsonl"
        questions.write_text(json.dumps({"query": "widget", **labels}) + "\n", encoding="utf-8")
        for harness in ("search", "assemble"):
            err = indexed.misused("eval", harness, str(questions))
            assert err.startswith(f"error: {questions}:1: {says} (for example "), (labels, err)
    questions.write_text(json.dumps({"query": "widget", "relevant": [{"path": "guide.md"}]}) + "\n")
    assert indexed.misused("eval", "search", str(questions), "--root", str(missing)).startswith(
        f"error: --root {missing} is not a folder"
    )
    questions.write_text('["widget", "guide.md"]\n', encoding="utf-8")
    assert indexed.misused("eval", "search", str(questions)).startswith(
        f"error: {questions}:1: each line is one JSON object, not list"
    )
    binary = tmp_path / "q.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    for harness in ("search", "assemble", "api"):
        assert indexed.misused("eval", harness, str(binary)) == (
            f"error: {binary} is not UTF-8 text (give a JSONL file: one JSON object a line)\n"
        )
    err = indexed.misused("clarity", "score", str(docs / "guide.md"), "--history", str(binary))
    assert err.startswith(f"error: {binary} is not a score history (not UTF-8 text)")
    assert binary.read_bytes() == bytes(range(256)) * 4  # not appended to


def test_a_size_cap_under_a_megabyte_is_said_in_its_unit(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "small.md").write_text("# Small\n\nShort.\n", encoding="utf-8")
    (folder / "big.md").write_text("# Big\n\n" + "words " * 1000, encoding="utf-8")
    rc, _, err = cli("add", str(folder), "--name", "d", "--max-bytes", "2000")
    assert rc == 0 and "big.md: skipped: over the size cap of 2.0 KB" in err, err


@pytest.mark.parametrize(
    "argv",
    [["sources"], ["search", "widget"], ["add", "."], ["get", "x"], ["refresh"], ["reindex"]],
)
def test_db_pointing_at_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    db = tmp_path / "not-a-folder"
    db.write_text("precious", encoding="utf-8")
    rc, out, err = Cli(db, capsys)(*argv)
    assert (rc, out) == (2, "")
    assert one_error(err) == f"error: --db {db} is a file; it must be a folder docmentor owns"
    assert db.read_text(encoding="utf-8") == "precious"


def test_env_db_is_used(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCMENTOR_DB", str(tmp_path / "envdb"))
    cli = Cli(tmp_path / "unused", capsys)
    assert cli.raw("add", str(docs), "--name", "w")[0] == 0
    assert (tmp_path / "envdb" / "index.sqlite3").is_file()
    assert not (tmp_path / "unused").exists()


# ----------------------------------------------------------------------- config sources


def _configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: Callable[[Path, Path], object]
) -> Path:
    work = tmp_path / "project"
    docs = work / "manual"
    docs.mkdir(parents=True)
    (docs / "intro.md").write_text("# Intro\n\nThe zeppelin manual.\n", encoding="utf-8")
    write(work, docs)
    monkeypatch.chdir(work)
    return work


@pytest.mark.parametrize(
    ("kind", "write"),
    [
        (
            "toml",
            lambda work, docs: (work / "docmentor.toml").write_text(
                '[[sources]]\nname = "cfg"\npath = "manual"\n', encoding="utf-8"
            ),
        ),
        (
            "toml-string",
            lambda work, docs: (work / "docmentor.toml").write_text(
                'sources = ["cfg:manual"]\n', encoding="utf-8"
            ),
        ),
        (
            "llmdoc",
            lambda work, docs: (work / "llmdoc.json").write_text(
                json.dumps({"sources": ["cfg:manual"]}), encoding="utf-8"
            ),
        ),
    ],
)
def test_refresh_picks_up_configured_sources(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    write: Callable[[Path, Path], None],
) -> None:
    work = _configured(tmp_path, monkeypatch, write)
    cli = Cli(tmp_path / "index", capsys)
    out = cli.ok("refresh")
    assert len(out.splitlines()) == 1, out  # added once, not added and then refreshed again
    m = REPORT.match(out.rstrip("\n"))
    assert m and (m["name"], m["docs"], m["added"]) == ("cfg", "1", "1"), out
    (src,) = cli.json("sources")["sources"]
    assert src["target"] == str((work / "manual").resolve())
    assert cli.json("search", "zeppelin")["results"][0]["path"] == "intro.md"
    out = cli.ok("refresh")
    m = REPORT.match(out.rstrip("\n"))
    assert m and (m["name"], m["added"], m["unchanged"]) == ("cfg", "0", "1"), out


def test_one_configured_source_that_fails_does_not_stop_the_others(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    http_server: HttpServer,
) -> None:
    http_server.add("/gone/llms.txt", Reply(status=404))
    url = http_server.url("/gone/llms.txt")
    _configured(
        tmp_path,
        monkeypatch,
        lambda work, docs: (work / "docmentor.toml").write_text(
            f'sources = ["bad:{url}", "cfg:manual"]\n', encoding="utf-8"
        ),
    )
    cli = Cli(tmp_path / "index", capsys)
    rc, out, err = cli("refresh")
    assert rc == 1
    (line,) = out.splitlines()  # nothing counted for the source that was never read
    assert REPORT.match(line) and line.startswith("cfg: 1 document,")
    lines = err.splitlines()
    assert lines == [
        f"warning: bad: not indexed: cannot fetch {url}: HTTP 404",  # the source named
        "error: 1 of 2 sources could not be refreshed: bad (they keep their previous content; see the warnings above)",
    ]
    assert cli.json("search", "zeppelin")["results"][0]["source"] == "cfg"


def test_refresh_picks_up_env_sources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, docs: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "o.md").write_text("# O\n\nocelot\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCMENTOR_SOURCES", f"envw:{docs},envo:{other}")
    cli = Cli(tmp_path / "index", capsys)
    out = cli.ok("refresh")
    assert [reported(line)["name"] for line in out.splitlines()] == ["envw", "envo"]
    assert [s["name"] for s in cli.json("sources")["sources"]] == ["envo", "envw"]
    assert cli.json("search", "ocelot", "--source", "envo")["results"][0]["path"] == "o.md"


def test_bad_config_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docmentor.toml").write_text("sources = [", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc, out, err = Cli(tmp_path / "index", capsys)("refresh")
    assert (rc, out) == (2, "")  # a usage error: the configuration file is malformed
    assert one_error(err).startswith(f"error: {tmp_path / 'docmentor.toml'}: not valid TOML")
    # also for commands that only read the index: not a silent switch to the default index
    monkeypatch.setenv("DOCMENTOR_HOME", str(tmp_path / "home"))
    for args in (["sources"], ["search", "zeppelin"], ["get", "intro.md"]):
        rc, out, err = Cli(tmp_path / "index", capsys).raw(*args)
        assert (rc, out) == (2, ""), args
        assert one_error(err).startswith(f"error: {tmp_path / 'docmentor.toml'}: not valid TOML"), args
    # and where --db names an index: its other settings (embeddings = false) are not dropped
    broken = (tmp_path / "docmentor.toml").read_text(encoding="utf-8")
    (tmp_path / "docmentor.toml").unlink()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "intro.md").write_text("# Intro\n\nThe zeppelin.\n", encoding="utf-8")
    assert Cli(tmp_path / "named", capsys)("add", str(tmp_path / "docs"))[0] == 0
    (tmp_path / "docmentor.toml").write_text(broken, encoding="utf-8")
    monkeypatch.delenv("DOCMENTOR_EMBEDDINGS", raising=False)  # else it, not the file, decides
    for args in (["sources"], ["search", "zeppelin"], ["get", "intro.md"]):
        rc, out, err = Cli(tmp_path / "named", capsys)(*args)
        assert (rc, out) == (2, ""), args
        assert one_error(err).startswith(f"error: {tmp_path / 'docmentor.toml'}: not valid TOML"), args


def test_env_db_beats_the_config_files_db(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docmentor.toml").write_text('db = "fromfile"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCMENTOR_DB", str(tmp_path / "envdb"))
    cli = Cli(tmp_path / "unused", capsys)
    assert cli.raw("add", str(docs), "--name", "w")[0] == 0
    assert (tmp_path / "envdb" / "index.sqlite3").is_file()
    assert not (tmp_path / "fromfile").exists()
    monkeypatch.delenv("DOCMENTOR_DB")
    assert cli.raw("add", str(docs), "--name", "w")[0] == 0
    assert (tmp_path / "fromfile" / "index.sqlite3").is_file()


# ------------------------------------------------------------------------- entry points


def test_python_m_help() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "docmentor", "--help"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: docmentor [OPTIONS] COMMAND [ARGS]...")
    for command in ("add", "refresh", "sources", "remove", "reindex", "search", "get", "serve"):
        assert re.search(rf"^  {command}\s", proc.stdout, re.M), command
    assert proc.stderr == ""


def test_console_script(tmp_path: Path, docs: Path) -> None:
    script = Path(sys.executable).parent / "docmentor"
    assert script.is_file()
    db = str(tmp_path / "index")
    proc = subprocess.run(
        [str(script), "--db", db, "add", str(docs), "--name", "w"], capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert REPORT.match(proc.stdout.rstrip("\n"))
    proc = subprocess.run(
        [str(script), "--db", db, "search", "frobnicator", "--limit", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", "error: --limit must be at least 1\n")


def test_many_missing_includes_are_summed_up_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    (project / "docs" / "src").mkdir(parents=True)
    (project / "snippets").mkdir()
    (project / "snippets" / "a.py").write_text("print('a')\n", encoding="utf-8")
    (project / "mkdocs.yml").write_text("docs_dir: docs\n", encoding="utf-8")  # a part of the docs added
    lines = "".join(f'--8<-- "snippets/a.py"\n\ntext {i}\n\n' for i in range(8))
    (project / "docs" / "src" / "page.md").write_text("# Page\n\n" + lines, encoding="utf-8")
    cli = Cli(tmp_path / "index", capsys)
    rc, out, err = cli("add", str(project / "docs" / "src"), "--name", "p")
    assert rc == 0 and out.startswith("p: 1 document,")
    warnings = err.splitlines()
    assert len(warnings) == 6
    assert all(
        w.startswith("warning: page.md:") and w.endswith("include not found: snippets/a.py")
        for w in warnings[:5]
    )
    assert warnings[5] == (
        "warning: … and 3 more includes not read (not found, or outside the folders it may read); "
        "this folder is inside a MkDocs project: "
        f"add the source again with --base-path {project.resolve()}"
    )
    rc, out, err = cli("add", str(project / "docs" / "src"), "--name", "p", "--base-path", str(project))
    assert (rc, err) == (0, "")
    assert "print('a')" in cli.ok("get", "p:page.md")
    # the project's docs_dir itself: its includes are read from the project, nothing to pass
    rc, out, err = cli("add", str(project / "docs"), "--name", "whole")
    assert (rc, err) == (0, "")
    assert "print('a')" in cli.ok("get", "whole:src/page.md")


def test_includes_refused_as_outside_are_summed_up_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A docs folder whose includes all lead out of it (typer's 250 ``{!../docs_src/…!}`` when
    its project is not known): five warnings, then one line with the count and what to do."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (tmp_path / "docs_src").mkdir()
    lines = "".join(f"{{!../docs_src/app{i}.py!}}\n\ntext {i}\n\n" for i in range(8))
    (docs / "page.md").write_text("# Page\n\n" + lines, encoding="utf-8")
    rc, _, err = Cli(tmp_path / "index", capsys)("add", str(docs))
    assert rc == 0, err
    warned = err.splitlines()
    assert len(warned) == 6, warned
    assert all("include refused: path escapes the docs root" in w for w in warned[:5])
    assert warned[5].startswith("warning: … and 3 more includes not read") and "--base-path" in warned[5]


def test_a_few_refused_includes_get_the_hint_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Flask's shape (a tour): `changes.rst` includes `../CHANGES.rst`, `license.rst`
    `../LICENSE.txt`; two warnings and no word of what to do (the hint came only after five).
    An include of a file that is nowhere gets no hint: there is no folder to name."""
    project = tmp_path / "flask"
    docs = project / "docs"
    docs.mkdir(parents=True)
    (project / "CHANGES.rst").write_text("Version 3.1\n-----------\n\nFixed.\n", encoding="utf-8")
    (docs / "changes.rst").write_text("Changes\n=======\n\n.. include:: ../CHANGES.rst\n", encoding="utf-8")
    cli = Cli(tmp_path / "index", capsys)
    rc, _, err = cli("add", str(docs), "--name", "flask")
    assert rc == 0, err
    assert err.splitlines() == [
        "warning: changes.rst:4: include refused: path escapes the docs root: ../CHANGES.rst",
        f"hint: includes not read; they lead to files in {project.resolve()}: "
        f"add the source again with --base-path {project.resolve()}",
    ]
    (docs / "changes.rst").write_text("Changes\n=======\n\n.. include:: nowhere.rst\n", encoding="utf-8")
    rc, _, err = cli("refresh", "flask")
    assert rc == 0 and err.splitlines() == ["warning: changes.rst:4: include not found: nowhere.rst"], err


def test_the_hint_for_refused_includes_names_the_folder_that_holds_their_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """FastAPI's shape: `docs/en/mkdocs.yml`, pages in `docs/en/docs` including
    `{* ../../docs_src/… *}` from the mkdocs.yml's folder, the files in the repository's root.
    The MkDocs project's folder is not enough; the hint names the one that is, and with it
    every include is read. A file that is not there, inside it, is "not found"."""
    repo = tmp_path / "repo"
    (repo / "docs" / "en" / "docs").mkdir(parents=True)
    (repo / "docs" / "en" / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    (repo / "docs_src").mkdir()
    for i in range(7):
        (repo / "docs_src" / f"app{i}.py").write_text(f"def handler_{i}():\n    pass\n", encoding="utf-8")
    lines = "".join(f"{{* ../../docs_src/app{i}.py hl[1] *}}\n\ntext {i}\n\n" for i in range(8))
    docs = repo / "docs" / "en" / "docs"
    (docs / "page.md").write_text("# Page\n\n" + lines, encoding="utf-8")
    cli = Cli(tmp_path / "index", capsys)
    rc, _, err = cli("add", str(docs), "--name", "fa")
    assert rc == 0, err
    warned = err.splitlines()
    assert warned[-1] == (
        "warning: … and 3 more includes not read (not found, or outside the folders it may read); "
        f"they lead to files in {repo.resolve()}: add the source again with --base-path {repo.resolve()}"
    )
    rc, _, err = cli("add", str(docs), "--name", "fa", "--base-path", str(repo))
    assert rc == 0 and err.splitlines() == ["warning: page.md:31: include not found: ../../docs_src/app7.py"]
    assert "def handler_6" in cli.ok("get", "fa:page.md")


def test_the_hint_for_includes_not_found_names_the_folder_they_start_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Textual's shape: no `mkdocs.yml` (its config is `mkdocs-common.yml`), pages include
    `--8<-- "docs/examples/…"` from the repository's root. The hint names that folder."""
    repo = tmp_path / "textual"
    (repo / "docs" / "examples").mkdir(parents=True)
    (repo / "mkdocs-common.yml").write_text("site_name: x\n", encoding="utf-8")
    for i in range(8):
        (repo / "docs" / "examples" / f"app{i}.py").write_text(
            f"def app_{i}():\n    pass\n", encoding="utf-8"
        )
    lines = "".join(f'```python\n--8<-- "docs/examples/app{i}.py"\n```\n\ntext {i}\n\n' for i in range(8))
    docs = repo / "docs"
    (docs / "page.md").write_text("# Page\n\n" + lines, encoding="utf-8")
    cli = Cli(tmp_path / "index", capsys)
    rc, _, err = cli("add", str(docs), "--name", "t")
    assert rc == 0, err
    assert err.splitlines()[-1] == (
        "warning: … and 3 more includes not read (not found, or outside the folders it may read); "
        f"they are found from {repo.resolve()}: add the source again with --base-path {repo.resolve()}"
    )
    rc, _, err = cli("add", str(docs), "--name", "t", "--base-path", str(repo))
    assert (rc, err) == (0, "") and "def app_7" in cli.ok("get", "t:page.md")


def test_griffes_analysis_notes_stay_quiet_unless_debugging(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import logging

    cli = Cli(tmp_path / "db", capsys)
    cli("sources")
    assert (
        logging.getLogger("griffe").level == logging.CRITICAL
    )  # "Failed to get annotation …": not the user's
    cli("--debug", "sources")
    assert logging.getLogger("griffe").level == logging.DEBUG


def test_search_text_lists_where_else_a_result_is(cli: Cli, tmp_path: Path) -> None:
    """A result that collapsed copies names their places in the text output too (``--json``
    has them in ``also``)."""
    docs = tmp_path / "docs"
    for name in ("a", "b", "c", "d", "e"):
        (docs / name).mkdir(parents=True)
        (docs / name / "retries.md").write_text(
            "# Retries\n\nSet max_retries on the transport.\n", encoding="utf-8"
        )
    cli.ok("--no-embeddings", "add", str(docs), "--name", "d")
    out = cli.ok("--no-embeddings", "search", "max_retries")
    assert out.count("retries.md:1-3") == 4, out  # the result and three of its copies
    assert "also in: " in out and " and 1 more" in out, out
    assert len(cli.json("--no-embeddings", "search", "max_retries")["results"][0]["also"]) == 4


def test_sources_lists_the_configured_ones_not_indexed_yet(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source of docmentor.toml that was never indexed (or could not be) is listed after
    the indexed ones, as MCP list_sources lists it, until a refresh indexes it."""
    docs = tmp_path / "guide"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe aardvark.\n", encoding="utf-8")
    (tmp_path / "docmentor.toml").write_text(
        f'[[sources]]\nname = "guide"\ntarget = "{docs}"\n\n[[sources]]\nname = "gone"\ntarget = "http://127.0.0.1:1/llms.txt"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    rows = cli.json("sources")["sources"]
    assert [(r["name"], r["kind"], r["status"]) for r in rows] == [
        ("guide", "configured", "not indexed"),
        ("gone", "configured", "not indexed"),
    ]
    assert "gone\tconfigured\tnot indexed yet\thttp://127.0.0.1:1/llms.txt" in cli.ok("sources")
    cli("--no-embeddings", "refresh")  # indexes guide; gone cannot be read
    rows = cli.json("sources")["sources"]
    assert [(r["name"], r["kind"]) for r in rows] == [("guide", "folder"), ("gone", "configured")]


def test_ctrl_c_says_it_was_interrupted(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """typer turns Ctrl-C into a silent exit 130: the CLI still says what happened."""
    from docmentor.engine import Docmentor

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe aardvark.\n", encoding="utf-8")
    cli.ok("--no-embeddings", "add", str(docs), "--name", "d")

    def interrupted(self: Docmentor, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Docmentor, "search", interrupted)
    rc, out, err = cli("--no-embeddings", "search", "aardvark")
    assert (rc, out) == (130, "") and err.startswith("error: interrupted"), (rc, out, err)


def test_the_hint_for_refused_includes_names_no_folder_far_above() -> None:
    """One include reaching far up (`../../../../../../etc/hostname`) beside the project's own
    would make the hint "--base-path /": no folder is named then, only the general advice;
    a warning that names its page another way (absolute) is not read."""
    from docmentor.engine.report_warnings import _holding_folder

    root = Path("/").resolve()
    far = ["a.md:1: include refused: path escapes the docs root: " + "../" * 12 + "etc/hostname"]
    assert _holding_folder(root / "tmp", far) is None
    absolute = ["/elsewhere/a.md:1: include refused: path escapes the docs root: ../x.py"]
    assert _holding_folder(Path("/tmp"), absolute) is None


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["add", "docs", "--no-embeddings"], "docmentor --no-embeddings add …"),
        (["api", "find", "retry", "--db", "idx"], "docmentor --db PATH api find …"),
    ],
)
def test_a_global_option_after_the_command_says_where_it_goes(
    args: list[str], shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from docmentor.cli import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: No such option '{args[-1] if args[-1].startswith('-') else args[-2]}'.")
    assert err.rstrip().endswith(f"is an option of docmentor itself: {shown})"), err
    assert main(["search", "x", "--bogus"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("(see: docmentor search --help)")


def test_a_usage_error_is_one_line_even_when_click_writes_several(capsys: pytest.CaptureFixture[str]) -> None:
    from docmentor.cli import main

    assert main(["token", "create"]) == 2  # click: "Missing option '--scope'. Choose from:\n\tread,\n\twrite"
    err = capsys.readouterr().err
    assert (
        err
        == "error: Missing option '--scope'. Choose from: read, write (see: docmentor token create --help)\n"
    )
