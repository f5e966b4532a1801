"""Refreshes under faults (issue 19, section 6): a source that raises, a listing that drops
most of a source, a 200 that is not the document, a writer killed between its two
commits, a site that answers only HTTP 429, a refresh with no end. Sites are real HTTP
servers on 127.0.0.1; the CLI runs in-process (``clitool.Cli``); killed writers are real
processes."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import docmentor.engine.core as engine_core
import httpserver
from clitool import Cli
from docmentor.engine import Docmentor
from httpserver import HttpServer, Reply

http_server = httpserver.http_server
MD = "text/markdown; charset=utf-8"


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI on an embedded index, for what a site or folder does (not the store)."""
    return Cli(tmp_path / "index", capsys)


@pytest.fixture
def any_cli(index_location: str, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI on a new index of each backend (a folder, a PostgreSQL schema's URL), for what
    a failed, aborted or killed writer leaves in the index."""
    return Cli(index_location, capsys)


def report_of(out: str, source: str) -> dict[str, Any]:
    (r,) = [r for r in json.loads(out)["sources"] if r["source"] == source]
    return r


def source_row(cli: Cli, name: str) -> dict[str, Any]:
    (row,) = [s for s in cli.state()["sources"] if s["name"] == name]
    return row


def page(cli: Cli, ref: str) -> dict[str, Any]:
    return cli.json("get", ref)


def paths_found(cli: Cli, word: str) -> list[str]:
    return [r["path"] for r in cli.json("search", word, "--limit", "50")["results"]]


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


# --------------------------------------------------------------- one bad source (item 3)


def test_one_source_that_raises_does_not_stop_the_others(
    any_cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    a = write(tmp_path / "a", {"one.md": "# One\n\nThe albatross.\n"})
    b = write(tmp_path / "b", {"two.md": "# Two\n\nThe bittern.\n"})
    any_cli.ok("add", str(a), "--name", "a")
    any_cli.ok("add", str(b), "--name", "b")
    write(a, {"three.md": "# Three\n\nThe avocet.\n"})
    write(b, {"four.md": "# Four\n\nThe bunting.\n"})

    import docmentor.sources.local as local

    real_scan = local.scan_folder

    def scan(root: Path, **kwargs: Any) -> Any:  # what Path.is_file() raised on a too-long include
        if Path(root).name == "a":
            raise OSError(36, "File name too long")
        return real_scan(root, **kwargs)

    monkeypatch.setattr(local, "scan_folder", scan)
    caplog.set_level(logging.DEBUG, logger="docmentor.engine")
    rc, out, err = any_cli("refresh", "--json")
    assert rc == 1
    assert err.startswith("error: 1 of 2 sources could not be refreshed: a"), err
    failed, done = report_of(out, "a"), report_of(out, "b")
    assert "OSError" in failed["error"] and "File name too long" in failed["error"]
    assert (done["error"], done["added"], done["documents"]) == (None, 1, 2)
    assert paths_found(any_cli, "bunting") == ["four.md"]  # b was refreshed after a failed
    assert paths_found(any_cli, "albatross") == ["one.md"]  # a was left as it was
    assert paths_found(any_cli, "avocet") == []
    row = source_row(any_cli, "a")
    assert row["status"] == "error" and "File name too long" in row["error"]
    # the traceback is in the debug log, not in the user's face
    assert any(r.exc_info and "refreshing source a failed" in r.getMessage() for r in caplog.records)
    assert "Traceback" not in err

    # one source by name: one error line, exit 1
    err = any_cli.fails("refresh", "a")
    assert "cannot refresh a: unexpected OSError" in err and "File name too long" in err

    monkeypatch.setattr(local, "scan_folder", real_scan)
    rc, out, err = any_cli("refresh", "--json")
    assert (rc, report_of(out, "a")["added"]) == (0, 1)
    assert source_row(any_cli, "a")["status"] == "ok"


def test_an_include_path_too_long_for_the_system_fails_only_its_source(cli: Cli, tmp_path: Path) -> None:
    a = write(tmp_path / "a", {"one.md": "# One\n\nThe albatross.\n"})
    b = write(tmp_path / "b", {"two.md": "# Two\n\nThe bittern.\n"})
    cli.ok("add", str(a), "--name", "a")
    cli.ok("add", str(b), "--name", "b")
    write(a, {"long.md": '# Long\n\n--8<-- "' + "x" * 5000 + '.md"\n'})
    write(b, {"four.md": "# Four\n\nThe bunting.\n"})
    rc, out, err = cli("refresh", "--json")
    # the include code may resolve it (a warning) or fail (the source's error): b is refreshed either way
    assert rc in (0, 1), err
    assert "Traceback" not in err
    assert report_of(out, "b")["added"] == 1
    assert paths_found(cli, "bunting") == ["four.md"]


# --------------------------------------------------- a listing that drops most (item 4)


def serve_listing(server: HttpServer, names: list[str]) -> str:
    body = "# Site\n\n## Docs\n\n" + "".join(f"- [{n}]({n}.md)\n" for n in names)
    server.add("/docs/llms.txt", body, content_type="text/plain; charset=utf-8")
    return server.url("/docs/llms.txt")


def serve_pages(server: HttpServer, names: list[str]) -> None:
    for n in names:
        server.add(f"/docs/{n}.md", f"# {n.title()}\n\nThe {n} page.\n", content_type=MD)


NAMES = [f"p{c}{c}{c}" for c in "abcdefghijklmnopqrstuvw"]  # one search word each


def test_a_partial_llms_txt_keeps_the_documents_it_dropped_until_prune(
    any_cli: Cli, http_server: HttpServer
) -> None:
    serve_pages(http_server, NAMES)
    url = serve_listing(http_server, NAMES)
    any_cli.ok("add", url, "--name", "site")
    assert source_row(any_cli, "site")["documents"] == 24

    serve_listing(http_server, NAMES[:2])  # 2 of 23 links: a broken or partial page
    rc, out, err = any_cli("refresh", "--json")
    assert rc == 0, err
    r = report_of(out, "site")
    assert (r["removed"], r["documents"]) == (0, 24)
    (warning,) = [w for w in r["warnings"] if "refresh --prune site" in w]
    assert "21 of the 23 documents of site are gone" in warning
    row = source_row(any_cli, "site")
    assert (row["documents"], row["stale_documents"]) == (24, 21)
    assert paths_found(any_cli, "pwww") == ["/docs/pwww.md"]  # still searchable
    kept = page(any_cli, "site:/docs/pwww.md")
    assert kept["stale"] and "no longer lists it" in kept["error"]

    rc, out, err = any_cli("refresh", "site")  # the text report warns on stderr
    assert rc == 0 and "warning: 21 of the 23 documents of site are gone" in err

    rc, out, err = any_cli("refresh", "--prune", "--json")
    assert rc == 0, err
    r = report_of(out, "site")
    assert (r["removed"], r["documents"]) == (21, 3)
    assert paths_found(any_cli, "pwww") == []
    assert source_row(any_cli, "site")["stale_documents"] == 0


def test_prune_is_a_parameter_of_the_library_api(index_location: str, http_server: HttpServer) -> None:
    serve_pages(http_server, NAMES[:12])
    url = serve_listing(http_server, NAMES[:12])
    with closing(Docmentor(index_location)) as eng:
        eng.add(url, name="site")
        serve_listing(http_server, NAMES[:3])
        (report,) = eng.refresh("site")
        assert (report.removed, report.documents) == (0, 13)
        (report,) = eng.refresh("site", prune=True)
        assert (report.removed, report.documents) == (9, 4)


def test_a_listing_of_nine_that_drops_to_one_keeps_them_until_prune(
    cli: Cli, http_server: HttpServer
) -> None:
    serve_pages(http_server, NAMES)
    cli.ok("add", serve_listing(http_server, NAMES[:9]), "--name", "nine")
    serve_listing(http_server, NAMES[:1])
    r = report_of(cli("refresh", "--json")[1], "nine")
    assert (r["removed"], r["documents"]) == (0, 10)
    assert any("--prune" in w for w in r["warnings"])
    r = report_of(cli("refresh", "nine", "--prune", "--json")[1], "nine")
    assert (r["removed"], r["documents"]) == (8, 2)


def test_small_sources_and_renamed_pages_are_refreshed_as_usual(cli: Cli, http_server: HttpServer) -> None:
    # below the threshold (4 documents: the listing and two pages) a shrinking listing
    # removes what it dropped
    serve_pages(http_server, NAMES)
    cli.ok("add", serve_listing(http_server, NAMES[:2]), "--name", "small")
    serve_listing(http_server, NAMES[:1])
    r = report_of(cli("refresh", "--json")[1], "small")
    assert (r["removed"], r["documents"], r["warnings"]) == (1, 2, [])

    # a site that renamed its pages lists as many as before: no guard
    serve_listing(http_server, NAMES[:12])
    cli("refresh", "--json")
    serve_listing(http_server, NAMES[11:23])
    r = report_of(cli("refresh", "--json")[1], "small")
    assert (r["removed"], r["added"], r["documents"], r["warnings"]) == (11, 11, 13, [])


def test_a_folder_that_lost_most_files_keeps_them_until_prune(any_cli: Cli, tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {f"mnt/p{i}.md": f"# P{i}\n\nThe p{i} page.\n" for i in range(10)})
    write(docs, {"index.md": "# Index\n\nThe start.\n", "guide.md": "# Guide\n\nThe guide.\n"})
    any_cli.ok("add", str(docs), "--name", "d")
    (docs / "mnt").rename(tmp_path / "unmounted")  # a disk that was not mounted this time
    rc, out, err = any_cli("refresh", "--json")
    assert rc == 0, err
    r = report_of(out, "d")
    assert (r["removed"], r["documents"]) == (0, 12)
    assert any("10 of the 12 documents of d are gone" in w for w in r["warnings"])
    assert page(any_cli, "d:mnt/p3.md")["error"].startswith("no longer in the folder")
    (tmp_path / "unmounted").rename(docs / "mnt")  # mounted again: fresh again
    r = report_of(any_cli("refresh", "--json")[1], "d")
    assert (r["removed"], source_row(any_cli, "d")["stale_documents"]) == (0, 0)
    (docs / "mnt").rename(tmp_path / "unmounted")
    r = report_of(any_cli("refresh", "d", "--prune", "--json")[1], "d")
    assert (r["removed"], r["documents"]) == (10, 2)


# --------------------------------------------- a 200 that is not the document (item 5)


@dataclass
class Route:
    body: bytes
    content_type: str = MD
    framing: str = "length"  # "length"; "close": no Content-Length, ends at close; "short": fewer bytes


class RawSite:
    """A docs site on 127.0.0.1 that can end a body by closing the connection, with or
    without a Content-Length (``http.server``; ``httpserver.HttpServer`` always frames)."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                route = site.routes.get(self.path)
                if route is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", route.content_type)
                if route.framing == "close":
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(route.body)
                elif route.framing == "short":
                    self.send_header("Content-Length", str(len(route.body) * 2))
                    self.end_headers()
                    self.wfile.write(route.body)
                else:
                    self.send_header("Content-Length", str(len(route.body)))
                    self.end_headers()
                    self.wfile.write(route.body)
                if route.framing != "length":
                    self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def set(self, path: str, body: str | bytes, **kwargs: Any) -> None:
        self.routes[path] = Route(body.encode() if isinstance(body, str) else body, **kwargs)


@pytest.fixture
def raw_site() -> Iterator[RawSite]:
    site = RawSite()
    site.thread.start()
    yield site
    site.server.shutdown()
    site.server.server_close()


LONG = "# Guide\n\n" + "".join(
    f"## Part {i}\n\nThe guide says thing {i} about the heron.\n\n" for i in range(40)
)
DOCS = {
    "/docs/empty.md": "# Empty\n\nThe egret lives here.\n",
    "/docs/html.md": "# Html\n\nThe hoopoe lives here.\n",
    "/docs/cut.md": LONG,
    "/docs/short.md": "# Short\n\nThe shrike lives here.\n" * 20,
    "/docs/whole.md": "# Whole\n\nThe wren lives here.\n",
}


def test_a_200_that_is_not_the_document_keeps_the_last_good_copy(cli: Cli, raw_site: RawSite) -> None:
    links = "".join(f"- [{p}]({p.rsplit('/', 1)[1]})\n" for p in DOCS)
    raw_site.set("/docs/llms.txt", "# Site\n\n## Docs\n\n" + links, content_type="text/plain")
    for path, text in DOCS.items():
        raw_site.set(path, text)
    cli.ok("add", raw_site.base + "/docs/llms.txt", "--name", "site")
    before = {p: page(cli, f"site:{p}")["content"] for p in DOCS}

    raw_site.set("/docs/empty.md", b"")
    raw_site.set(
        "/docs/html.md",
        "<!doctype html><html><body><h1>Sign in</h1><p>Session expired.</p></body></html>",
        content_type="text/html; charset=utf-8",
    )
    raw_site.set("/docs/cut.md", LONG[: len(LONG) // 2], framing="close")  # connection closed mid-body
    raw_site.set("/docs/short.md", DOCS["/docs/short.md"], framing="short")  # fewer bytes than promised
    whole = DOCS["/docs/whole.md"].replace("wren", "wagtail")
    raw_site.set("/docs/whole.md", whole, framing="close")  # ends at close, and is whole: accepted
    rc, out, err = cli("refresh", "--json")
    assert rc == 0, err
    r = report_of(out, "site")
    failed = {f["path"].rsplit("/", 1)[1]: f["error"] for f in r["failed"]}
    assert set(failed) == {"empty.md", "html.md", "cut.md", "short.md"}, failed
    assert "empty body" in failed["empty.md"]
    assert "HTML page where Markdown or text was served before" in failed["html.md"]
    assert failed["cut.md"].startswith("body cut short")
    assert "connection" in failed["short.md"]
    assert (r["updated"], r["removed"]) == (1, 0)
    for name in ("empty", "html", "cut", "short"):
        kept = page(cli, f"site:/docs/{name}.md")
        assert (kept["content"], kept["stale"]) == (before[f"/docs/{name}.md"], True), name
        assert kept["error"] == failed[f"{name}.md"]
    assert page(cli, "site:/docs/whole.md")["content"] == whole
    assert source_row(cli, "site")["stale_documents"] == 4
    assert paths_found(cli, "heron")[0] == "/docs/cut.md"
    assert paths_found(cli, "hoopoe") == ["/docs/html.md"]

    # served properly again: fresh again
    for path, text in DOCS.items():
        raw_site.set(path, text)
    rc, out, err = cli("refresh", "--json")
    assert (rc, report_of(out, "site")["failed"]) == (0, [])
    assert source_row(cli, "site")["stale_documents"] == 0


def test_an_html_page_labelled_markdown_keeps_the_last_good_copy(cli: Cli, raw_site: RawSite) -> None:
    raw_site.set("/docs/llms.txt", "# Site\n\n## Docs\n\n- [Page](page.md)\n", content_type="text/plain")
    raw_site.set("/docs/page.md", "# Page\n\nThe kestrel.\n", content_type="text/markdown")
    cli.ok("add", raw_site.base + "/docs/llms.txt", "--name", "site")
    lie = "<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1></body></html>"
    raw_site.set("/docs/page.md", lie, content_type="text/markdown; charset=utf-8")
    rc, out, err = cli("refresh", "--json")
    assert rc == 1, err  # its one page not read: an error a script sees
    failed = report_of(out, "site")["failed"]
    assert [f["error"] for f in failed] == [
        "an HTML page where Markdown or text was served before (an error or login page?)"
    ]
    kept = page(cli, "site:/docs/page.md")
    assert ("kestrel" in kept["content"], kept["stale"]) == (True, True)
    # every read says so (a tour: get's text and get_doc_excerpt did not)
    rc, out, err = cli("get", "site:/docs/page.md")
    assert (
        rc == 0 and "kestrel" in out and err.startswith("note: stale: the last refresh could not update it")
    )
    from docmentor.engine import Docmentor

    with closing(Docmentor(cli.location, create=False)) as engine:
        excerpts = engine.excerpt("site:/docs/page.md", "kestrel")
    assert excerpts["stale"] is True and "HTML page" in (excerpts["error"] or "")


def test_a_site_that_serves_html_may_change_its_html(cli: Cli, raw_site: RawSite) -> None:
    raw_site.set("/docs/llms.txt", "# Site\n\n## Docs\n\n- [Page](page.html)\n", content_type="text/plain")
    html = "<!doctype html><html><body><main><h1>Page</h1><p>The {}.</p></main></body></html>"
    raw_site.set("/docs/page.html", html.format("pelican"), content_type="text/html")
    cli.ok("add", raw_site.base + "/docs/llms.txt", "--name", "site")
    raw_site.set("/docs/page.html", html.format("puffin"), content_type="text/html")
    r = report_of(cli("refresh", "--json")[1], "site")
    assert (r["updated"], r["failed"]) == (1, [])
    assert paths_found(cli, "puffin") == ["/docs/page.html"]


def test_an_empty_or_cut_short_llms_full_txt_leaves_the_source_as_it_was(cli: Cli, raw_site: RawSite) -> None:
    raw_site.set("/llms-full.txt", LONG, content_type="text/plain")
    cli.ok("add", raw_site.base + "/llms-full.txt", "--name", "full")
    for body, framing in ((b"", "length"), (LONG[:300].encode(), "close")):
        raw_site.set("/llms-full.txt", body, framing=framing)
        err = cli.fails("refresh", "full")
        assert "empty body" in err or "cut short" in err
        assert page(cli, "full:/llms-full.txt")["content"] == LONG


# ------------------------------------------------ a writer killed between commits (item 6)

# A writer that dies at one exact point: after the store's transaction has committed, when
# it starts writing the lexical index (a real process, killed with SIGKILL). On either
# backend: tantivy's folder, or PostgreSQL's lexical tables (their own transaction).
KILLED_BETWEEN_COMMITS = """
import os, signal, sys
from docmentor.engine import Docmentor
from docmentor.search.lexical import LexicalIndex
from docmentor.search.lexical_pg import PgLexicalIndex

def die(self, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

eng = Docmentor(sys.argv[1])
LexicalIndex.replace = die
PgLexicalIndex.replace = die
if sys.argv[2] == "add":
    eng.add(sys.argv[3], name=sys.argv[4])
else:
    eng.refresh(sys.argv[3])
print("survived", flush=True)
"""


# A writer that dies inside the store's transaction, after it wrote its first document's rows
# and before it commits: the database (SQLite's journal, PostgreSQL's server) drops them all.
KILLED_IN_THE_TRANSACTION = """
import os, signal, sys
from docmentor.engine import Docmentor
from docmentor.store.db import Store

written = Store._write_doc

def die_on_the_second(self, *args, **kwargs):
    if getattr(Store, "wrote", False):
        os.kill(os.getpid(), signal.SIGKILL)
    Store.wrote = True
    return written(self, *args, **kwargs)

eng = Docmentor(sys.argv[1])
Store._write_doc = die_on_the_second
eng.refresh(sys.argv[3])
print("survived", flush=True)
"""


def kill_between_commits(
    tmp_path: Path, db: Path | str, *call: str, script: str = KILLED_BETWEEN_COMMITS
) -> None:
    env = {**os.environ, "DOCMENTOR_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(db), *call],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stdout) == (-signal.SIGKILL, ""), proc.stderr


def every_hit_can_be_read(cli: Cli, word: str) -> list[str]:
    hits = cli.json("search", word, "--limit", "50")["results"]
    for h in hits:
        assert page(cli, f"{h['source']}:{h['path']}")["content"]  # never NotFoundError
    return [h["path"] for h in hits]


def test_a_refresh_killed_between_its_commits_is_repaired_by_the_next_reader(
    any_cli: Cli, tmp_path: Path
) -> None:
    docs = write(tmp_path / "docs", {f"d{i}.md": f"# D{i}\n\nThe dipper {i}.\n" for i in range(4)})
    any_cli.ok("add", str(docs), "--name", "d")
    (docs / "d0.md").unlink()
    write(docs, {"d1.md": "# D1\n\nThe diver.\n"})
    kill_between_commits(tmp_path, any_cli.location, "refresh", "d")
    # a reader (the CLI's search) finds the lexical index behind the store, and no writer at work
    assert sorted(every_hit_can_be_read(any_cli, "dipper")) == ["d2.md", "d3.md"]
    assert every_hit_can_be_read(any_cli, "diver") == ["d1.md"]
    with closing(Docmentor(any_cli.location, create=False)) as eng:
        assert [(n, g == lg) for n, g, lg in eng.store.generations()] == [("d", True)]


def test_a_refresh_killed_inside_the_store_transaction_loses_nothing(any_cli: Cli, tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {f"d{i}.md": f"# D{i}\n\nThe dipper {i}.\n" for i in range(4)})
    any_cli.ok("add", str(docs), "--name", "d")
    before = any_cli.state()
    write(docs, {f"d{i}.md": f"# D{i}\n\nThe diver {i}.\n" for i in range(5)})  # four changed, one new
    kill_between_commits(tmp_path, any_cli.location, "refresh", "d", script=KILLED_IN_THE_TRANSACTION)
    assert any_cli.state() == before  # not one row of the killed refresh
    assert sorted(every_hit_can_be_read(any_cli, "dipper")) == [f"d{i}.md" for i in range(4)]
    assert every_hit_can_be_read(any_cli, "diver") == []
    r = report_of(any_cli("refresh", "--json")[1], "d")  # the next writer is not blocked
    assert (r["error"], r["updated"], r["added"]) == (None, 4, 1)
    assert sorted(every_hit_can_be_read(any_cli, "diver")) == [f"d{i}.md" for i in range(5)]


def test_an_add_killed_between_its_commits_is_searchable_at_once(any_cli: Cli, tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {"a.md": "# A\n\nThe avocet.\n", "b.md": "# B\n\nThe bittern.\n"})
    kill_between_commits(tmp_path, any_cli.location, "add", str(docs), "k")
    assert [s["name"] for s in any_cli.state()["sources"]] == ["k"]
    assert every_hit_can_be_read(any_cli, "avocet") == ["a.md"]
    assert every_hit_can_be_read(any_cli, "bittern") == ["b.md"]


def test_while_a_writer_holds_the_lock_hits_are_checked_against_the_store(
    any_cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write(tmp_path / "docs", {f"d{i}.md": f"# D{i}\n\nThe dipper {i}.\n" for i in range(4)})
    any_cli.ok("add", str(docs), "--name", "d")
    (docs / "d0.md").unlink()
    (docs / "d1.md").unlink()
    kill_between_commits(tmp_path, any_cli.location, "refresh", "d")
    monkeypatch.setattr(engine_core, "SETTLE_WAIT", 0.2)
    with closing(Docmentor(any_cli.location)) as writer, writer.store.write_lock():  # another writer at work
        t0 = time.monotonic()
        assert sorted(every_hit_can_be_read(any_cli, "dipper")) == ["d2.md", "d3.md"]
        assert time.monotonic() - t0 < 10
        with closing(Docmentor(any_cli.location, create=False)) as eng:  # not repaired: the lock was taken
            assert [(n, g == lg) for n, g, lg in eng.store.generations()] == [("d", False)]
    assert sorted(every_hit_can_be_read(any_cli, "dipper")) == ["d2.md", "d3.md"]
    with closing(Docmentor(any_cli.location, create=False)) as eng:  # lock free: the reader repaired it
        assert [(n, g == lg) for n, g, lg in eng.store.generations()] == [("d", True)]
        assert eng.lexical.num_docs() == 4  # two sections, two document entries


# ------------------------------------------------- 429 storms and a deadline (item 11)


def site_of(server: HttpServer, n: int) -> str:
    names = [f"doc{i}" for i in range(n)]
    serve_pages(server, names)
    return serve_listing(server, names)


def test_a_site_answering_only_429_is_given_up_quickly(cli: Cli, http_server: HttpServer) -> None:
    url = site_of(http_server, 20)
    cli.ok("add", url, "--name", "site")
    for i in range(20):
        http_server.add(f"/docs/doc{i}.md", Reply(status=429, headers={"Retry-After": "1"}))
    http_server.reset_stats()
    t0 = time.monotonic()
    rc, out, err = cli("refresh", "--json")
    elapsed = time.monotonic() - t0
    assert rc == 1, err  # not one page read: a failure a script sees, the pages kept
    assert elapsed < 15, elapsed  # was 20 documents × up to 60 s of waiting
    r = report_of(out, "site")
    assert len(r["failed"]) == 20 and r["removed"] == 0 and r["nothing_read"]
    assert any("HTTP 429" in w and "gave up" in w for w in r["warnings"]), r["warnings"]
    asked = sum(http_server.hits(f"/docs/doc{i}.md") for i in range(20))
    assert asked <= 16 + 8, asked  # 16 in a row (twice the concurrency), plus requests under way
    row = source_row(cli, "site")
    assert (row["documents"], row["stale_documents"]) == (21, 20)
    assert page(cli, "site:/docs/doc7.md")["content"] == "# Doc7\n\nThe doc7 page.\n"
    rc, _, err = cli("refresh", "site")  # the text report: ten documents named, then a count
    lines = err.splitlines()
    assert rc == 1 and len(lines) == 13, err
    assert lines[0].startswith("warning: the site answered HTTP 429")
    assert lines[-2] == "warning: … and 10 more documents could not be read (--json lists them all)"
    assert lines[-1].startswith("error: not one linked document of site could be read")


def test_a_site_whose_every_page_fails_is_an_error_and_keeps_its_pages(
    cli: Cli, http_server: HttpServer
) -> None:
    """refresh and add exit 1 when an llms.txt was read and not one page it links was (a
    tour: a cron refresh of a site answering 404 everywhere exited 0); the pages read
    before stay searchable, and one page read is enough for success."""
    url = site_of(http_server, 2)
    cli.ok("add", url, "--name", "site")
    for i in range(2):
        http_server.add(f"/docs/doc{i}.md", Reply(status=404))
    rc, out, err = cli("refresh", "site")
    assert rc == 1 and "error: not one linked document of site could be read" in err, err
    rc, out, _ = cli("search", "doc1 page")
    assert rc == 0 and "doc1" in out, out
    serve_pages(http_server, ["doc0"])  # one page back: a partial failure, not an error
    rc, _, err = cli("refresh", "site")
    assert rc == 0 and "doc1.md: HTTP 404" in err, err
    http_server.add("/docs/doc0.md", Reply(status=404))
    rc, out, err = cli("add", url, "--name", "other", "--json")
    assert rc == 1 and json.loads(out)["nothing_read"], (out, err)
    assert "`docmentor remove other` drops it" in err
    http_server.add("/docs/doc1.md", Reply(status=404))
    rc, _, err = cli("add", url, "--name", "site")  # added before: its pages stay, no "remove"
    assert rc == 1 and "what was read before stays" in err and "remove" not in err, err


def test_a_site_that_throttles_for_a_moment_is_fetched_whole(cli: Cli, http_server: HttpServer) -> None:
    url = site_of(http_server, 20)
    cli.ok("add", url, "--name", "site")
    for i in range(20):  # every document: one 429, then the new page
        new = Reply(body=f"# Doc{i}\n\nThe new doc{i}.\n", content_type=MD)
        http_server.add(f"/docs/doc{i}.md", Reply(status=429, headers={"Retry-After": "1"}), new)
    rc, out, err = cli("refresh", "--json")
    assert rc == 0, err
    r = report_of(out, "site")
    assert (r["failed"], r["updated"], r["warnings"]) == ([], 20, [])


def test_a_retry_after_over_the_cap_is_not_waited_for(cli: Cli, http_server: HttpServer) -> None:
    url = site_of(http_server, 3)
    cli.ok("add", url, "--name", "site")
    http_server.add("/docs/doc1.md", Reply(status=429, headers={"Retry-After": "3600"}))
    t0 = time.monotonic()
    r = report_of(cli("refresh", "--json")[1], "site")
    assert time.monotonic() - t0 < 5
    assert [f["error"] for f in r["failed"]] == [
        "HTTP 429, Retry-After 3600 s (over the 10 s docmentor waits)"
    ]
    assert page(cli, "site:/docs/doc1.md")["stale"] is True


def test_a_refresh_ends_at_its_deadline_and_keeps_what_it_did_not_fetch(
    cli: Cli, http_server: HttpServer
) -> None:
    url = site_of(http_server, 6)
    cli.ok("add", url, "--name", "site")
    for i in range(6):
        http_server.add(f"/docs/doc{i}.md", f"# Doc{i}\n\nThe new doc{i}.\n", content_type=MD, delay=30)
    t0 = time.monotonic()
    rc, out, err = cli("refresh", "--deadline", "1", "--json")
    assert time.monotonic() - t0 < 10
    assert rc == 1, err  # not one page fetched in time: an error, the pages kept
    r = report_of(out, "site")
    assert [f["error"] for f in r["failed"]] == ["not fetched: the time limit of this refresh passed"] * 6
    assert any("time limit of this refresh passed: 6 documents" in w for w in r["warnings"])
    assert source_row(cli, "site")["stale_documents"] == 6
    assert page(cli, "site:/docs/doc0.md")["content"] == "# Doc0\n\nThe doc0 page.\n"


def test_sources_not_reached_before_the_deadline_are_left_as_they_were(
    index_location: str, tmp_path: Path, http_server: HttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with closing(Docmentor(index_location)) as eng:
        eng.add(site_of(http_server, 2), name="a_site")
        eng.add(str(write(tmp_path / "docs", {"x.md": "# X\n\nThe xenops.\n"})), name="b_folder")
        for i in range(2):
            http_server.add(f"/docs/doc{i}.md", "# slow", content_type=MD, delay=30)
        t0 = time.monotonic()
        reports = {r.source: r for r in eng.refresh(deadline=1.0)}
        assert time.monotonic() - t0 < 10
        assert len(reports["a_site"].failed) == 2 and reports["a_site"].error is None
        assert reports["b_folder"].error is not None and "time limit" in reports["b_folder"].error
        assert [h.path for h in eng.search("xenops")] == ["x.md"]


def test_a_reader_that_cannot_repair_filters_its_hits_and_does_not_retry(
    any_cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    docs = write(tmp_path / "docs", {f"d{i}.md": f"# D{i}\n\nThe dipper {i}.\n" for i in range(4)})
    any_cli.ok("add", str(docs), "--name", "d")
    (docs / "d3.md").unlink()
    kill_between_commits(tmp_path, any_cli.location, "refresh", "d")
    calls = []

    def cannot(self: Docmentor) -> None:  # what a read-only index folder does to a repair
        calls.append(1)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Docmentor, "_repair", cannot)
    with closing(Docmentor(any_cli.location, create=False)) as eng:
        t0 = time.monotonic()
        for _ in range(3):
            assert sorted(h.path for h in eng.search("dipper")) == ["d0.md", "d1.md", "d2.md"]
        assert time.monotonic() - t0 < engine_core.SETTLE_WAIT  # never waited for a writer
    assert calls == [1]
    assert [r.getMessage() for r in caplog.records if "cannot repair" in r.getMessage()] == [
        "cannot repair the search index: [Errno 13] Permission denied; results are checked against the store"
    ]


def test_documents_indexed_before_served_was_recorded_learn_it_on_the_next_refresh(
    index_location: str, raw_site: RawSite
) -> None:
    raw_site.set("/docs/llms.txt", "# Site\n\n## Docs\n\n- [A](a.md)\n", content_type="text/plain")
    raw_site.set("/docs/a.md", "# A\n\nThe avocet.\n")
    with closing(Docmentor(index_location)) as eng:
        eng.add(raw_site.base + "/docs/llms.txt", name="site")
        eng.store.conn().execute("UPDATE documents SET served = NULL")  # as an older docmentor left it
        (report,) = eng.refresh("site")
        assert (report.unchanged, report.failed) == (2, [])
        assert {d.served for d in eng.store.documents("site").values()} == {"text"}
        raw_site.set("/docs/a.md", "<html><body><p>Not found</p></body></html>", content_type="text/html")
        (report,) = eng.refresh("site")
        assert [e for _, e in report.failed] == [
            "an HTML page where Markdown or text was served before (an error or login page?)"
        ]
        assert eng.get("site:/docs/a.md").content == "# A\n\nThe avocet.\n"


def test_a_reader_that_cannot_take_the_write_lock_does_not_wait(cli: Cli, tmp_path: Path) -> None:
    """The embedded index only: its write lock is a file in the index folder."""
    docs = write(tmp_path / "docs", {f"d{i}.md": f"# D{i}\n\nThe dipper {i}.\n" for i in range(3)})
    cli.ok("add", str(docs), "--name", "d")
    (docs / "d2.md").unlink()
    kill_between_commits(tmp_path, cli.db, "refresh", "d")
    (cli.db / "write.lock").unlink()
    (cli.db / "write.lock").mkdir()  # cannot be opened: as in a folder this user may only read
    t0 = time.monotonic()
    assert sorted(every_hit_can_be_read(cli, "dipper")) == ["d0.md", "d1.md"]
    assert time.monotonic() - t0 < engine_core.SETTLE_WAIT


def test_a_search_disturbed_on_every_attempt_reads_holding_the_write_lock(
    any_cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write(tmp_path / "docs", {f"d{i}.md": f"# D{i}\n\nThe dipper {i}.\n" for i in range(3)})
    any_cli.ok("add", str(docs), "--name", "d")
    (docs / "d2.md").unlink()
    write(docs, {"d1.md": "# D1\n\nThe diver.\n"})
    kill_between_commits(tmp_path, any_cli.location, "refresh", "d")
    monkeypatch.setattr(engine_core, "READ_ATTEMPTS", 0)  # as if writers committed during each
    assert every_hit_can_be_read(any_cli, "dipper") == ["d0.md"]
    assert every_hit_can_be_read(any_cli, "diver") == ["d1.md"]  # repaired under the lock, not filtered
    monkeypatch.setattr(engine_core, "SETTLE_WAIT", 0.2)
    with (
        closing(Docmentor(any_cli.location)) as writer,
        writer.store.write_lock(),
    ):  # a writer at work for long
        t0 = time.monotonic()
        assert every_hit_can_be_read(any_cli, "dipper") == ["d0.md"]  # the lexical view, checked
        assert time.monotonic() - t0 < 5  # gave up on the lock after SETTLE_WAIT


def test_a_failed_source_reports_the_time_it_took_and_is_said_once(cli: Cli, http_server: HttpServer) -> None:
    """A source that could not be refreshed (its llms.txt answers 500 on every try) reports
    the seconds its tries took, not 0, and its error is printed once, with the source's URL."""
    url = site_of(http_server, 2)
    cli.ok("add", url, "--name", "site")
    http_server.add("/docs/llms.txt", Reply(status=500))
    rc, out, err = cli("refresh", "--json")
    (r,) = json.loads(out)["sources"]
    assert rc == 1 and r["error"] and r["seconds"] > 0.1, r
    rc, _, err = cli("refresh")
    said = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert rc == 1 and len(said) == 1 and url in said[0], err
