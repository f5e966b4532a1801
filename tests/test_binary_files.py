"""NUL bytes after the binary probe are not indexed as text (issue 19, section 6, item 11).

A NUL in the first 8 KB makes a file binary (skipped, with the reason). NULs further on
(a text file with stray binary bytes) used to be indexed as text; now they are removed,
with a warning that counts them, and the text around them is kept: nothing readable is
lost. The same holds for a fetched llms.txt document.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import httpserver
from clitool import Cli
from httpserver import HttpServer

http_server = httpserver.http_server
HEAD = "# Stray bytes\n\nheadword " + "filler text " * 1000 + "\n"  # > 8 KB before the NULs


def test_cli_add_folder_removes_late_nuls_and_skips_binary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    assert len(HEAD.encode()) > 8192
    (docs / "late.md").write_bytes(HEAD.encode() + b"\n\ntail\x00\x00\x00word tailword after\n")
    (docs / "binary.md").write_bytes(b"# Early\x00\x00 earlyword\n")
    (docs / "plain.md").write_text("# Plain\n\nplainword\n")
    cli = Cli(tmp_path / "index", capsys)
    rc, out, err = cli("add", str(docs), "--name", "docs")
    assert rc == 0, err
    assert out.startswith("docs: 2 documents"), out
    assert "late.md: 3 NUL byte(s) removed (first at character" in err
    assert "binary.md: skipped: binary file" in err
    content = cli.json("get", "docs:late.md", "--limit", "100000")["content"]
    assert "\x00" not in content and "tailword after" in content and "tailword" in content
    assert cli.json("search", "tailword")["results"][0]["path"] == "late.md"
    assert cli.json("search", "earlyword")["results"] == []


def test_cli_add_llms_txt_removes_late_nuls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], http_server: HttpServer
) -> None:
    http_server.add(
        "/docs/llms.txt",
        "# Site\n\n## Pages\n\n- [Late](late.md)\n- [Page](page.html)\n",
        content_type="text/markdown",
    )
    body = HEAD.encode() + b"\n\nremote\x00word remotetail\n"
    http_server.add("/docs/late.md", body, content_type="text/markdown; charset=utf-8")
    page = (
        b"<html><body><main><h1>Page</h1><p>"
        + b"filler " * 2000
        + b"html\x00word htmltail</p></main></body></html>"
    )
    http_server.add("/docs/page.html", page, content_type="text/html; charset=utf-8")
    cli = Cli(tmp_path / "index", capsys)
    rc, _, err = cli("add", http_server.url("/docs/llms.txt"), "--name", "site")
    assert rc == 0, err
    (hit,) = [h for h in cli.json("search", "remotetail")["results"] if h["path"].endswith("late.md")]
    content = cli.json("get", f"site:{hit['path']}", "--limit", "100000")["content"]
    assert "\x00" not in content and "remoteword remotetail" in content
    (hit,) = [h for h in cli.json("search", "htmltail")["results"] if h["path"].endswith("page.html")]
    content = cli.json("get", f"site:{hit['path']}", "--limit", "100000")["content"]
    assert "\x00" not in content and "htmlword htmltail" in content
