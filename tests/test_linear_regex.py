"""Patterns applied to someone else's text run in linear time (issue 19, section 6, item 1).

Every regex in ``docmentor.sources`` and ``docmentor.parse`` reads text docmentor did not
write: an llms.txt and what it links, a folder's files and the files they include. Each
family gets a long adversarial line (runs of spaces, ``#``, ``{!``, ``{*``, ``--8<--``,
``..``, backticks, brackets, comment openers) through the code that reads it, with a time
bound far above what linear work takes (a few milliseconds) and far below what the old
patterns took (a 4,000-space heading: 147 s; a 48 KB line of ``{!``: 24.5 s; a run of
``<!---->``: exponential). The end-to-end tests put such lines in front of the CLI.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import httpserver
from clitool import Cli
from docmentor.models import RawDocument
from docmentor.parse import parse_document
from docmentor.sources.html import looks_like_html
from docmentor.sources.includes import Fmt, resolve_includes
from docmentor.sources.llmstxt_parse import _heading, parse_llms_txt
from httpserver import HttpServer

http_server = httpserver.http_server

N = 48_000  # characters on the adversarial line
BOUND = 1.0  # seconds; linear work on N characters takes milliseconds


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


# -- llms.txt ------------------------------------------------------------------------

LLMS_LINES = {
    "h1 spaces": "# a" + " " * N + "x",
    "h2 tabs": "## a" + "\t" * N + "`",
    "h1 hashes": "# a" + "#" * N + "x",
    "h1 spaces and hashes": "# " + " #" * (N // 2) + "x",
    "link spaces": "- [a]( " + " " * N + "}",
    "link title spaces": '- [a](u "' + " " * N,
    "link text brackets": "- [" + "[a]" * (N // 3) + "](x",
    "link text open brackets": "- [" + "[" * N,
    "link URL parentheses": "- [a](" + "(b)" * (N // 3),
    "link URL open parentheses": "- [a](" + "(" * N,
    "link text escapes": "- [" + "\\[" * (N // 2),
    "link text open bracket then plain": "- [" + "[" + "a" * N + "](",
    "indent": " " * N + "x",
    "list marks": "1" * N + "x",
}


@pytest.mark.parametrize("name", LLMS_LINES)
def test_llms_txt_lines(name: str) -> None:
    text = "# Docs\n\n## Guides\n\n- [A](a.md)\n" + LLMS_LINES[name] + "\n"
    assert timed(lambda: parse_llms_txt(text, "https://example.com/llms.txt")) < BOUND


def test_heading_reads_as_the_old_pattern_did() -> None:
    """``_heading`` is ``^#{level}\\s+(.+?)\\s*#*\\s*$`` (then stripped), every short line."""
    old = {1: re.compile(r"^#\s+(.+?)\s*#*\s*$"), 2: re.compile(r"^##\s+(.+?)\s*#*\s*$")}
    for size in range(8):
        for chars in itertools.product(" #a\t", repeat=size):
            line = "".join(chars)
            for level in (1, 2):
                m = old[level].match(line)
                assert _heading(line, level) == (None if m is None else m.group(1).strip()), (line, level)


def test_heading_titles() -> None:
    assert _heading("# Title ##", 1) == "Title"
    assert _heading("## Optional", 2) == "Optional"
    assert _heading("## Optional", 1) is None
    assert _heading("#Title", 1) is None


# -- includes ------------------------------------------------------------------------

INCLUDE_LINES: dict[str, tuple[str, str]] = {  # name: (file name, line)
    "{! run": ("a.md", "{!" * (N // 2)),
    "{! body": ("a.md", "{!" + "a" * N),
    "{* run": ("a.md", "{*" * (N // 2)),
    "snippet run": ("a.md", "--8<--" * (N // 6)),
    "snippet dashes": ("a.md", "-" * N + "8<"),
    "snippet quote": ("a.md", '--8<-- "' + "\\'" * (N // 2)),
    "myst spaces": ("a.md", "```{include} a" + " " * N + "x"),
    "myst colons": ("a.md", ":::{literalinclude}" + " \t" * (N // 2) + "y"),
    "rst include spaces": ("a.rst", ".. include:: a" + " " * N + "x"),
    "rst dots": ("a.rst", ".. " * (N // 3) + "include::"),
    "rst option spaces": ("a.rst", ".. literalinclude:: inc.py\n   :lines: 1" + " " * N + "x"),
    "myst option spaces": ("a.md", "```{literalinclude} inc.py\n:lines: 1" + " " * N + "x\n```"),
    "section marker run": ("a.md", '--8<-- "inc.md:sec"'),
    "{% run": ("a.md", "{%" * (N // 2)),
    "{% include quotes": ("a.md", '{% include-markdown "' + '\\"' * (N // 2)),
    "{% include args": ("a.md", '{% include "inc.md" ' + "a=" * (N // 2) + " %}"),
    "{% lines": ("a.md", "\n".join(["{% include-markdown"] * 5_000)),
    "vitepress include dashes": ("a.md", "<!--@include: a" + "-" * N + ">x"),
    "vitepress include region": ("a.md", "<!--@include: a.md#" + "a-" * (N // 2) + "{1,2}x"),
    "vitepress include spaces": ("a.md", "<!-- @include:" + " " * N + "a.md{" + " " * N + "1-"),
}


@pytest.mark.parametrize(
    "line",
    ["\x1b[" + "0" * N, "\x1b]" + "a" * N + "\x1b[", "\x1b[1" * (N // 3), "\x1b" * N, "\x1b[" + " " * N],
)
def test_terminal_escapes(line: str) -> None:
    from docmentor.parse.common import without_terminal_codes

    assert timed(lambda: without_terminal_codes(line)) < BOUND


@pytest.mark.parametrize("name", INCLUDE_LINES)
def test_include_lines(tmp_path: Path, name: str) -> None:
    file_name, line = INCLUDE_LINES[name]
    (tmp_path / "inc.py").write_text("x = 1\ny = 2\n")
    # an included file's section markers are searched on every line: a run of ";" before one
    (tmp_path / "inc.md").write_text(";" * N + "\n--8<-- [start:sec]\nin\n--8<-- [end:sec]\n")
    text = "# T\n\n" + line + "\n"
    fmt: Fmt = "rst" if file_name.endswith(".rst") else "markdown"
    path = tmp_path / file_name
    took = timed(lambda: resolve_includes(text, path=path, root=tmp_path, fmt=fmt))
    assert took < BOUND


def test_includes_still_expand(tmp_path: Path) -> None:
    (tmp_path / "inc.py").write_text("a = 1\nb = 2\nc = 3\n")
    (tmp_path / "part.md").write_text("included words\n")
    rst = ".. literalinclude:: inc.py  \n   :lines: 2  \n\nafter\n"
    out = resolve_includes(rst, path=tmp_path / "a.rst", root=tmp_path, fmt="rst").text
    assert "b = 2" in out and "a = 1" not in out
    md = "```{include} part.md   \n```\n"
    assert "included words" in resolve_includes(md, path=tmp_path / "a.md", root=tmp_path).text


# -- parsing -------------------------------------------------------------------------

PARSE_DOCS = {
    "md brackets": ("a.md", "# T\n\n" + "[" * N),
    "md links": ("a.md", "# T\n\n" + "[a](" * (N // 4)),
    "md link titles": ("a.md", "# T\n\n" + '[a](u "' * (N // 7)),
    "md angle links": ("a.md", "# T\n\n" + "[a](<" * (N // 5)),
    "md ref links": ("a.md", "[r]: http://x\n\n# T\n\n" + "[a[" * (N // 3)),
    "md heading links": ("a.md", "# " + "[a](" * (N // 4)),
    "md backticks": ("a.md", "# T\n\n" + "`" * N),
    "mdx comments": ("a.mdx", "# T\n\n" + "{/*" * (N // 3)),
    "mdx tags": ("a.mdx", "# T\n\n" + "<A " * (N // 3)),
    "rst links": ("a.rst", "T\n=\n\n" + "`<" * (N // 2)),
    "rst role title": ("a.rst", "x " + ":a" * (N // 2) + "\n" + "=" * (N + 2)),
    "rst role spaces": ("a.rst", "x :a:`b" + " " * N + "y\n" + "=" * (N + 10)),
    "rst link title": ("a.rst", "x `b" + " " * N + "<\n" + "=" * (N + 10)),
    "rst emphasis title": ("a.rst", "x" + " *a" * (N // 3) + "\n" + "=" * (N + 2)),
    "rst dots": ("a.rst", "T\n=\n\n" + ".. " * (N // 3)),
}


@pytest.mark.parametrize("name", PARSE_DOCS)
def test_parse_lines(name: str) -> None:
    path, text = PARSE_DOCS[name]
    doc = RawDocument(
        path=path,
        url=f"file:///{path}",
        content=text + "\n",
        fmt="rst" if path.endswith(".rst") else "markdown",
    )
    assert timed(lambda: parse_document(doc)) < BOUND


def test_parse_still_reads_markup() -> None:
    md = RawDocument(
        path="a.md",
        url="file:///a.md",
        content="# T\n\nSee [the guide](guide.md#x) and [a [b](c.md).\n",
        fmt="markdown",
    )
    links = {(link.target, link.text) for link in parse_document(md).links}
    assert ("guide.md", "the guide") in links and ("c.md", "b") in links
    rst = RawDocument(
        path="a.rst",
        url="file:///a.rst",
        content="Use :py:func:`connect  <c>` and `the docs <https://x/>`_ **now**\n" + "=" * 80 + "\n",
        fmt="rst",
    )
    assert parse_document(rst).title == "Use `connect` and the docs now"


# -- HTML sniffing -------------------------------------------------------------------


def test_html_sniffing() -> None:
    assert timed(lambda: looks_like_html(b"<!---->" * 300 + b"x")) < BOUND  # was exponential
    assert timed(lambda: looks_like_html(b"<!--" + b" " * N)) < BOUND
    assert looks_like_html(b" <!-- a -->\n<!-- b --><!DOCTYPE html><p>")
    assert not looks_like_html(b"<!-- a --> # Markdown")


# -- end to end ------------------------------------------------------------------------


def test_cli_add_folder_of_adversarial_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "inc.py").write_text("x = 1\n")
    (docs / "spaces.md").write_text("# Spaces page\n\n" + "# a" + " " * N + "x\n\nwordone\n")
    (docs / "includes.md").write_text("# Includes page\n\n" + "{!" * (N // 2) + "\n" + "{*" * (N // 2) + "\n")
    (docs / "links.md").write_text("# Links page\n\n" + "[a](" * (N // 4) + "\n")
    (docs / "myst.md").write_text("# Myst page\n\n```{include} inc.py" + " " * N + "x\n```\n")
    (docs / "page.rst").write_text(
        "Rst page\n========\n\n.. include:: inc.py" + " " * N + "x\n\n" + "`<" * (N // 2) + "\n"
    )
    cli = Cli(tmp_path / "index", capsys)
    start = time.perf_counter()
    rc, _, err = cli("add", str(docs), "--name", "adv")
    assert rc == 0, err
    assert time.perf_counter() - start < 10 * BOUND
    assert "include not found" in err  # the MyST include's argument is the whole long line
    titles = {r["title"] for r in cli.json("search", "page", "--limit", "20")["results"]}
    assert {"Spaces page", "Includes page", "Links page", "Myst page", "Rst page"} <= titles


def test_cli_add_llms_txt_with_adversarial_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], http_server: HttpServer
) -> None:
    index = "# Docs title\n\n" + "# a" + " " * N + "x\n" + "## Guides\n\n- [Guide](guide.md): the guide\n"
    index += "- [a]( " + " " * N + "}\n"
    http_server.add("/docs/llms.txt", index, content_type="text/markdown")
    http_server.add(
        "/docs/guide.md", b"<!---->" * 290 + b"\n# Guide\n\nguideword here\n", content_type="text/plain"
    )
    cli = Cli(tmp_path / "index", capsys)
    start = time.perf_counter()
    rc, _, err = cli("add", http_server.url("/docs/llms.txt"), "--name", "site")
    assert rc == 0, err
    assert time.perf_counter() - start < 10 * BOUND
    assert "malformed link skipped" in err
    hits = cli.json("search", "guideword")["results"]
    assert hits and hits[0]["path"].endswith("guide.md")


# -- search units --------------------------------------------------------------------------

INVISIBLE_LINES = {
    "label without colon": ".. _" + "a" * N,
    "dots and spaces": ".." + " " * N + "x",
    "comment colons": ".. " + ":" * N,
    "substitution bars": ".. |" + "a|" * (N // 2),
    "parens": "(" * N,
    "html comment": "<!--" * (N // 4),
    "link definition": "[" + "a" * N,
    "field colons": ":" * N,
    "import quotes": "import " + "'a" * (N // 2),
    "import blanks": 'import "' + " " * N + "x",
    "spacers": "&nbsp; " * (N // 7) + "x",
    "spacer blanks": "&nbsp;" + " " * N + "x",
    # thematic breaks and breadcrumb trails (a Pinia tour: TypeDoc's preambles)
    "break": "* " * (N // 2) + "x",
    "break blanks": "*" + " " * N + "*x",
    "crumbs": "[a](b) / " * (N // 9) + "x y z w",
    "open crumbs": "[a](b" * (N // 5),
    "brackets": "[" * N + "](x)",
}


@pytest.mark.parametrize("name", INVISIBLE_LINES)
def test_invisible_preamble_lines(name: str) -> None:
    from docmentor.search.units import renders_nothing

    text = INVISIBLE_LINES[name] + "\n.. _label:\n"
    assert timed(lambda: renders_nothing(text)) < BOUND


@pytest.mark.parametrize("line", ["a" * N + "_x", "a-" * (N // 2) + "_", "a_" * (N // 2), "a__b " * (N // 5)])
def test_rest_word_references(line: str) -> None:
    from docmentor.library.surface.docstrings import word_references

    assert timed(lambda: word_references(line)) < BOUND


def test_include_markdown_with_many_delimited_parts(tmp_path: Path) -> None:
    """A 5 MB include may hold ~800k start/end parts: each part's line is found by bisection,
    not by counting the file's lines again (100k parts took 70 s that way)."""
    (tmp_path / "inc.md").write_text("S x E\n" * 100_000)
    text = '# T\n\n{% include-markdown "./inc.md" start="S" end="E" %}\n'
    result = None

    def go() -> None:
        nonlocal result
        result = resolve_includes(text, path=tmp_path / "a.md", root=tmp_path)

    assert timed(go) < 5 * BOUND
    assert result is not None and result.text.count(" x ") == 100_000


@pytest.mark.parametrize(
    "line", ["{{" + "a" * N, "{%" + "%" * N, "{{ " * (N // 3), "{% a " + " }" * (N // 2)]
)
def test_template_expressions_in_doc_prose(line: str) -> None:
    from docmentor.library.knowledge.doc_text import first_sentences

    assert timed(lambda: first_sentences("# T\n\nSome words here. " + line + "\n")) < BOUND
