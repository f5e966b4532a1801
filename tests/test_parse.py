"""Parsing: sections with exact line ranges, titles, code blocks, MDX, reST, line maps."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docmentor.clarity import score_paths
from docmentor.engine import Docmentor
from docmentor.models import DocFormat, ParsedDocument, RawDocument, Section
from docmentor.parse import parse_document
from docmentor.parse.common import normalize_newlines
from docmentor.parse.markdown import parse_markdown
from docmentor.parse.rst import parse_rst
from docmentor.sources.local import scan_folder

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
HTTPX = Path(__file__).parent / "fixtures" / "httpx"  # a slice of the httpx docs (NOTICE)


def outline(doc: ParsedDocument) -> list[tuple[int, int, int, list[str]]]:
    """(level, line_start, line_end, heading_path) of every section."""
    return [(s.level, s.line_start, s.line_end, s.heading_path) for s in doc.sections]


def section(doc: ParsedDocument, heading: str) -> Section:
    return next(s for s in doc.sections if s.heading == heading)


def fixture(rel: str) -> tuple[RawDocument, list[str]]:
    text = (CORPUS / rel).read_text(encoding="utf-8")
    fmt: DocFormat = "rst" if rel.endswith(".rst") else "markdown"
    return RawDocument(path=rel, url=f"file:///{rel}", content=text, fmt=fmt), text.split("\n")


# -- Markdown sections -----------------------------------------------------------------


def test_atx_sections_have_exact_inclusive_ranges_and_paths() -> None:
    text = "# Guide\n\nIntro.\n\n## Install\n\npip install x\n\n\n### From source\n\nBuild it.\n\n## Use\n\nCall it.\n"
    doc = parse_markdown(text)
    assert outline(doc) == [
        (1, 1, 3, ["Guide"]),
        (2, 5, 7, ["Guide", "Install"]),  # trailing blank lines are not part of a section
        (3, 10, 12, ["Guide", "Install", "From source"]),
        (2, 14, 16, ["Guide", "Use"]),
    ]
    assert section(doc, "Install").text == "## Install\n\npip install x"
    assert doc.title == "Guide"


def test_setext_sections_and_closing_hashes() -> None:
    text = "Timeouts\n========\n\nIntro.\n\nSetting one\n-----------\n\nText.\n\n## Closed ##\n\nEnd.\n"
    doc = parse_markdown(text)
    assert outline(doc) == [
        (1, 1, 4, ["Timeouts"]),
        (2, 6, 9, ["Timeouts", "Setting one"]),
        (2, 11, 13, ["Timeouts", "Closed"]),
    ]
    assert doc.title == "Timeouts"


def test_text_before_the_first_heading_is_a_preamble_section() -> None:
    doc = parse_markdown("\n\nSome words.\nMore.\n\n# Title\n\nBody\n")
    assert outline(doc) == [(0, 3, 4, []), (1, 6, 8, ["Title"])]
    assert doc.sections[0].heading == ""


def test_deeper_heading_after_shallower_pops_the_path() -> None:
    doc = parse_markdown("## A\n\n#### A.1\n\n### A.2\n\n# B\n\n### B.1\n")
    assert [s.heading_path for s in doc.sections] == [
        ["A"],
        ["A", "A.1"],
        ["A", "A.2"],
        ["B"],
        ["B", "B.1"],
    ]


@pytest.mark.parametrize(
    ("text", "headings"),
    [
        ("# Real\n\n```python\n# comment\n## also code\n```\n", ["Real"]),
        ("# Real\n\n~~~\n# comment\n~~~\n", ["Real"]),
        ("# Real\n\n````md\n```\n# inner\n```\n# still code\n````\n", ["Real"]),
        ("# Real\n\n    # indented code\n", ["Real"]),
        ("---\nauthor: T\n# yaml comment\n---\n\n# Real\n", ["Real"]),
        ("<!--\n# commented out\n-->\n\n# Real\n", ["Real"]),
        ("# Real\n\n```\n# unclosed fence runs to the end\n\n## not a heading\n", ["Real"]),
        ("# Real\n\nParagraph\n\n---\n\nAfter a rule.\n", ["Real"]),
    ],
    ids=["backtick", "tilde", "nested-fence", "indented", "front-matter", "html-comment", "unclosed", "hr"],
)
def test_heading_shaped_lines_that_are_not_headings(text: str, headings: list[str]) -> None:
    doc = parse_markdown(text)
    assert [s.heading for s in doc.sections if s.heading] == headings
    assert doc.title == "Real"


def test_fenced_code_stays_whole_in_its_section_with_language_and_line() -> None:
    doc, lines = fixture("guide/connection-pool.md")
    parsed = parse_document(doc)
    limits = section(parsed, "Pool limits")
    fence_start = lines.index("```python") + 1
    assert (limits.line_start, limits.line_end) == (5, 17)
    assert [(c.language, c.line) for c in limits.code_blocks] == [("python", fence_start)]
    code = limits.code_blocks[0].code
    assert code.startswith("import acme\n\n# Allow at most 20 open connections")
    assert code.endswith("client = acme.Client(limits=limits)\n")
    # the whole fence, opening and closing lines included, is in the section's text
    fence_end = lines.index("```", fence_start)
    assert "\n".join(lines[fence_start - 1 : fence_end + 1]) in limits.text
    assert all(not s.code_blocks for s in parsed.sections if s.heading != "Pool limits")


def test_fence_info_string_gives_the_language() -> None:
    text = '# A\n\n```{.python}\nx\n```\n\n```ts title="a.ts"\ny\n```\n\n```\nz\n```\n'
    # VitePress line marks and options right after the language (a Pinia tour: `ts{3,15-17}`)
    text += "\n```ts{3,15-17}\nw\n```\n\n```vue:line-numbers {1}\nv\n```\n"
    blocks = parse_markdown(text).sections[0].code_blocks
    assert [(b.language, b.line, b.code) for b in blocks] == [
        ("python", 3, "x\n"),
        ("ts", 7, "y\n"),
        ("", 11, "z\n"),
        ("ts", 15, "w\n"),
        ("vue", 19, "v\n"),
    ]


def test_a_heading_reads_its_emphasis_and_escapes_as_a_reader_sees_them() -> None:
    """A Pinia tour: TypeDoc and hand-written headings kept their inline Markdown (`When should
    I **not** use a Store`, `Why _Pinia_`, `DefineStoreOptions\\<Id, S\\>`), and an escaped
    identifier (`\\_ExtractState\\_Keys`) was split at its backslashes. Emphasis markers go,
    escapes are read, code spans stay as written; the anchor is the rendered heading's."""
    text = (
        "# When should I **not** use a Store\n\ntext\n\n## Why _Pinia_\n\ntext\n\n"
        "## Type Alias: \\_ExtractState\\_Keys\\<SS\\>\n\ntext\n\n"
        "## The `__init__` and `a*b` of snake_case_name\n\ntext\n"
    )
    parsed = parse_markdown(text)
    assert [s.heading for s in parsed.sections] == [
        "When should I not use a Store",
        "Why Pinia",
        "Type Alias: _ExtractState_Keys<SS>",
        "The `__init__` and `a*b` of snake_case_name",
    ]
    assert parsed.sections[0].anchor == "when-should-i-not-use-a-store"


def test_a_component_tag_over_several_lines_in_markdown_is_no_text() -> None:
    """A Pinia tour: VitePress pages write Vue components in Markdown over several lines
    (`<CourseLink` / `  title="Learn everything about …"` / `/>`), and their attributes were
    indexed: three pages matched "SSR best practices" only through a `title=`. Such a tag is
    dropped from the text, as in MDX; an HTML tag over several lines (`<img` / `alt=…`) is
    read as before."""
    text = (
        '# Actions\n\n<CourseLink\n  href="https://x"\n  title="Learn everything about zorblax"\n/>\n\n'
        "Actions are methods.\n"
    )
    section = parse_markdown(text).sections[0]
    assert "zorblax" not in section.text and "Actions are methods." in section.text
    img = parse_markdown('# A\n\n<img\n  src="a.png"\n  alt="a diagram"\n>\n').sections[0]
    assert "a diagram" in img.text


def test_mkdocs_tabs_and_admonitions_expose_indented_headings_and_fences() -> None:
    doc, lines = fixture("tutorials/tabs.md")
    parsed = parse_document(doc)
    assert outline(parsed) == [
        (1, 1, 5, ["Configuring the client"]),
        (3, 7, 14, ["Configuring the client", "Configure the client in code"]),
        (3, 16, 24, ["Configuring the client", "Configure the client from the shell"]),
        (2, 26, 28, ["Configuring the client", "Next steps"]),
    ]
    for sec in parsed.sections[1:]:
        assert lines[sec.line_start - 1].strip() == f"### {sec.heading}" or sec.level == 2
    code = section(parsed, "Configure the client in code").code_blocks
    assert [(c.language, c.line) for c in code] == [("python", 9)]
    assert code[0].code.startswith("# Not a heading: this comment is code\n")
    shell = section(parsed, "Configure the client from the shell")
    assert [(c.language, c.line) for c in shell.code_blocks] == [("shell", 18)]
    assert "HTTPS_PROXY" in shell.text  # the admonition body belongs to the section above it


def test_heading_links_read_as_their_text() -> None:
    doc = parse_markdown(
        "# Guide\n\n## [AsyncIO](https://docs.python.org/3/library/asyncio.html)\n\n## `Client.send()` ![icon](i.png)\n"
    )
    assert [s.heading for s in doc.sections] == ["Guide", "AsyncIO", "`Client.send()` icon"]
    assert doc.sections[1].anchor == "asyncio"
    # a destination in angle brackets may hold parentheses (a Vite tour: a text-fragment URL)
    odd = parse_markdown(
        "# CSP\n\n### [`data:`](<https://developer.mozilla.org/x#:~:text=data%3A-,(not%20recommended).-,data>)\n"
        '\nText.\n\n## [a](<b c> "title") and [d](<e>)\n'
    )
    assert [s.heading for s in odd.sections] == ["CSP", "`data:`", "a and d"]
    assert odd.sections[1].anchor == "data"


# -- titles and front matter ---------------------------------------------------------------


def test_title_rules() -> None:
    fm = parse_markdown("---\ntitle: From Front Matter\n---\n# Heading One\n")
    assert fm.title == "From Front Matter"
    assert fm.meta == {"title": "From Front Matter"}
    h1 = parse_markdown("## Second\n\n```py\n# comment\n```\n\n# First Real\n", fallback_title="f.md")
    assert h1.title == "First Real"
    none = parse_markdown("## Only a level two\n\n```sh\n# looks like a title\n```\n", fallback_title="f.md")
    assert none.title == "f.md"
    empty_fm = parse_markdown("---\ntitle: ''\n---\n# H\n")
    assert empty_fm.title == "H"


def test_fixture_titles() -> None:
    titles = {}
    for raw in scan_folder(CORPUS).documents:
        titles[raw.path] = parse_document(raw).title
    assert titles == {
        "changelog.md": "changelog.md",  # no H1: the file name
        "faq.md": "Frequently asked questions",
        "guide/async.md": "Async support",
        "guide/connection-pool.md": "Connection pooling",
        "guide/timeouts.md": "Timeouts",  # setext
        "i18n/demarrage.md": "Démarrage rapide",
        "i18n/zh.md": "连接池",
        "index.md": "Acme HTTP Client",  # front matter wins over the H1
        "reference/javascript.mdx": "JavaScript SDK",
        "reference/search-index.rst": "Search index",
        "tutorials/tabs.md": "Configuring the client",
    }


_ATX_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def first_h1(text: str) -> str | None:
    """The first ATX level-1 heading outside fences, indented code and HTML comments."""
    fence = None
    comment = False
    for line in text.split("\n"):
        if fence:
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
            continue
        if comment:
            comment = "-->" not in line
            continue
        if line.lstrip().startswith("<!--") and "-->" not in line:
            comment = True
            continue
        m = _FENCE_OPEN.match(line)
        if m:
            fence = m.group(1)
            continue
        h = _ATX_H1.match(line)
        if h and h.group(1):
            return h.group(1)
    return None


def test_httpx_titles_are_the_first_real_h1_or_the_file_name() -> None:
    docs = scan_folder(HTTPX).documents
    assert len(docs) == 15
    mismatches = {}
    for raw in docs:
        expected = first_h1(raw.content) or Path(raw.path).name
        got = parse_document(raw).title
        if got != expected:
            mismatches[raw.path] = (got, expected)
    assert mismatches == {}
    # pages whose only '# ' lines are Python comments in code are titled by their file name
    by_path = {d.path: parse_document(d).title for d in docs}
    assert by_path["docs/advanced/ssl.md"] == "ssl.md"
    assert by_path["docs/advanced/timeouts.md"] == "timeouts.md"
    assert by_path["docs/quickstart.md"] == "QuickStart"


def test_front_matter_is_metadata_not_text() -> None:
    doc, _ = fixture("index.md")
    parsed = parse_document(doc)
    assert parsed.meta["description"] == "A friendly HTTP client for Python."
    every_text = "\n".join(s.text for s in parsed.sections)
    assert "description:" not in every_text
    assert "title: Acme" not in every_text
    assert "Not a heading" not in every_text
    assert [s.heading for s in parsed.sections] == ["", "Welcome to Acme", "Installation", "Features"]
    # the preamble opens with the page's description, on its own line (the summary Nuxt Content
    # shows as the lead paragraph), then the HTML comment before the H1, whose '# TODO' is no heading
    assert outline(parsed)[0] == (0, 3, 9, [])
    assert parsed.sections[0].text.startswith("A friendly HTTP client for Python.")
    folded = parse_markdown("---\ndescription: >\n  Two\n  lines\n---\n# T\n\nText.\n")
    assert [(s.heading, s.text.split("\n")[0]) for s in folded.sections] == [("", "Two lines"), ("T", "# T")]


def test_broken_front_matter_never_raises() -> None:
    doc = parse_markdown("---\ntitle: [unclosed\n: : :\n---\n# H\n")
    assert (doc.title, doc.meta) == ("H", {})
    unclosed = parse_markdown("---\ntitle: x\n# H\n")  # no closing '---': not front matter
    assert unclosed.title == "H"


# -- MDX -----------------------------------------------------------------------------------


def test_mdx_drops_esm_and_jsx_but_keeps_their_text() -> None:
    doc, lines = fixture("reference/javascript.mdx")
    parsed = parse_document(doc)
    assert parsed.title == "JavaScript SDK"
    assert [s.heading for s in parsed.sections] == ["JavaScript client", "Request hooks"]
    text = "\n".join(s.text for s in parsed.sections)
    for gone in ("import Tabs", "import TabItem", "ApiTable", "} from '../components'", "export const", "draft:", "owner:",
                 "<Tabs", "</Tabs>", "<TabItem", "</TabItem>", 'value="deno"', 'label="Deno"',
                 "<Badge", "<Note>", "</Note>", "{/*"):  # fmt: skip
        assert gone not in text, gone
    for kept in ("The JavaScript SDK mirrors", "Configure the pool with the `maxConnections` option",
                 "Deno uses the same `createClient()` call.", "Hooks run before every request is sent."):  # fmt: skip
        assert kept in text, kept
    js = section(parsed, "JavaScript client")
    assert js.line_start == lines.index("# JavaScript client") + 1
    # the ESM import inside a code fence is code, kept whole
    assert [(c.language, c.line) for c in js.code_blocks] == [("ts", lines.index("```ts") + 1)]
    assert "import { createClient } from '@acme/sdk';" in js.code_blocks[0].code
    assert "import { createClient }" in js.text


def test_mdx_multiline_export_block_is_dropped_whole() -> None:
    text = (
        "import A from './a'\n"
        "# Title\n\n"
        "Body.\n\n"
        "export default function Layout({ children }) {\n"
        "  return <div>{children}</div>;\n"
        "}\n"
    )
    doc = parse_markdown(text, mdx=True)
    assert outline(doc) == [(1, 2, 4, ["Title"])]
    assert doc.sections[0].text == "# Title\n\nBody."


def test_mdx_is_chosen_by_extension_only() -> None:
    text = "import x from 'y'\n\n# T\n"
    mdx = parse_document(RawDocument(path="a.mdx", url="u", content=text))
    md = parse_document(RawDocument(path="a.md", url="u", content=text))
    assert "import" not in "\n".join(s.text for s in mdx.sections)
    assert md.sections[0].text == "import x from 'y'"


# -- reStructuredText ------------------------------------------------------------------------


def test_rst_fixture_sections_levels_and_code() -> None:
    doc, lines = fixture("reference/search-index.rst")
    parsed = parse_document(doc)
    assert parsed.title == "Search index"
    assert outline(parsed) == [
        # overline + underline, and the '.. _search-index:' label above that names it (its
        # section starts there: the label is the section's, as Sphinx reads it)
        (1, 1, 7, ["Search index"]),
        (2, 9, 18, ["Search index", "Creating an index"]),
        (3, 20, 27, ["Search index", "Creating an index", "Tokenizers"]),
        (2, 29, 32, ["Search index", "Rebuilding the index"]),
    ]
    creating = section(parsed, "Creating an index")
    assert [(c.language, c.line) for c in creating.code_blocks] == [
        ("python", lines.index(".. code-block:: python") + 1)
    ]
    assert creating.code_blocks[0].code == 'table = db.open_table("pages")\ntable.create_fts_index("text")\n'
    tok = section(parsed, "Tokenizers")
    # the underlined line inside the literal block is not a title
    assert [(c.language, c.line) for c in tok.code_blocks] == [
        ("", next(i for i, ln in enumerate(lines, 1) if ln.endswith("not a title::")))
    ]
    assert tok.code_blocks[0].code == 'Not a title\n===========\ntokenizer = "simple"\n'


def test_rst_levels_follow_order_of_appearance() -> None:
    text = "Top\n---\n\nA\n~~~\n\nB\n~~~\n\nDeeper\n******\n\nSecond\n------\n\nOther\n~~~~~\n"
    doc = parse_rst(text)
    assert [(s.level, s.heading, s.line_start, s.line_end) for s in doc.sections] == [
        (1, "Top", 1, 2),
        (2, "A", 4, 5),
        (2, "B", 7, 8),
        (3, "Deeper", 10, 11),
        (1, "Second", 13, 14),
        (2, "Other", 16, 17),
    ]
    assert doc.sections[3].heading_path == ["Top", "B", "Deeper"]


def test_rst_overline_style_differs_from_underline_only() -> None:
    doc = parse_rst("=====\nTitle\n=====\n\nSub\n===\n\nx\n")
    assert [(s.level, s.heading) for s in doc.sections] == [(1, "Title"), (2, "Sub")]


def test_rst_indented_text_and_short_underlines_are_not_titles() -> None:
    text = (
        "Title\n=====\n\n"
        ".. note::\n\n   Inside\n   ------\n\n"
        "Too long a line\n===\n\n"
        "::\n\n    Literal\n    =======\n"
    )
    doc = parse_rst(text, fallback_title="f.rst")
    assert [s.heading for s in doc.sections] == ["Title"]
    assert [c.code for c in doc.sections[0].code_blocks] == ["Literal\n=======\n"]


def test_rst_field_list_is_metadata() -> None:
    doc = parse_rst(":title: Field Title\n:orphan:\n\nHello\n=====\n\nx\n", fallback_title="f.rst")
    assert doc.title == "Field Title"
    assert doc.meta == {"title": "Field Title", "orphan": ""}
    assert outline(doc) == [(1, 4, 7, ["Hello"])]


# -- line maps -----------------------------------------------------------------------------------


def test_line_map_maps_sections_and_code_back_to_original_lines() -> None:
    # served lines 3-5 came from one include directive on original line 3
    served = "# Title\n\n## Included\n\nincluded text\n\n## After\n\n```py\nx\n```\n"
    line_map = [1, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9, 10]
    doc = parse_document(RawDocument(path="a.md", url="u", content=served, line_map=line_map))
    assert outline(doc) == [
        (1, 1, 1, ["Title"]),
        (2, 3, 3, ["Title", "Included"]),
        (2, 5, 9, ["Title", "After"]),
    ]
    assert [(c.language, c.line) for c in doc.sections[2].code_blocks] == [("py", 7)]


def test_line_map_for_rst_code_blocks() -> None:
    served = "Title\n=====\n\n.. code-block:: python\n\n   a = 1\n\nMore\n----\n\nText::\n\n   b = 2\n"
    # two extra served lines (an include on original line 3) shift everything after it
    line_map = [1, 2, 3, 3, 3, *range(4, 12)]
    raw = RawDocument(path="a.rst", url="u", content=served, fmt="rst", line_map=line_map)
    doc = parse_document(raw)
    assert outline(doc) == [(1, 1, 4, ["Title"]), (2, 6, 11, ["Title", "More"])]
    assert [(c.language, c.line) for c in doc.sections[0].code_blocks] == [("python", 3)]
    assert [(c.language, c.line) for c in doc.sections[1].code_blocks] == [("", 9)]


def test_line_ranges_match_the_original_files_of_the_corpus() -> None:
    for raw in scan_folder(CORPUS).documents:
        lines = (CORPUS / raw.path).read_text(encoding="utf-8").split("\n")
        for sec in parse_document(raw).sections:
            assert 1 <= sec.line_start <= sec.line_end <= len(lines), (raw.path, sec.heading)
            if sec.heading:
                # a reST section starts at the labels above its heading (`.. _name:`)
                top = sec.line_start - 1
                while top < sec.line_end and (
                    not lines[top].strip() or lines[top].lstrip().startswith(".. _")
                ):
                    top += 1
                window = " ".join(lines[top : top + 2])
                assert sec.heading.split(" <")[0] in window, (raw.path, sec.heading)
            # every non-blank line of the section's text is the original line at its position
            original = lines[sec.line_start - 1 : sec.line_end]
            for got, want in zip(sec.text.split("\n"), original, strict=True):
                assert got in ("", want) or want.startswith(got.rstrip()) or got.strip() in want


# -- never raises ------------------------------------------------------------------------------------

_PIECES = [
    "# h", "## h2 ##", "Title", "=====", "-----", "~~~~", "```", "```python", "~~~", "    code",
    "---", "title: x", "<!--", "-->", "import A from 'a'", "export const x = {", "}", "<Tabs>",
    "<TabItem", "  value='x'", ">", "</TabItem>", '=== "Tab"', '    ## inner', "!!! note", "::",
    ".. code-block:: py", "   :caption: c", ":field: v", "> # quote", "- ## item", "", " ", "\t# t",
    "{/* c */}", "<Badge />", "[link](a.md#x)", "é", "连接池", "🚀", "\r", "\x00", "\u2028",
]  # fmt: skip

documents = st.one_of(
    st.text(max_size=400),
    st.lists(st.sampled_from(_PIECES) | st.text(max_size=12), max_size=40).map("\n".join),
)


def check_invariants(doc: ParsedDocument, text: str, line_map: list[int] | None = None) -> None:
    n = len(normalize_newlines(text).split("\n"))  # CR and CRLF end lines too
    top = max(line_map) if line_map else n
    assert isinstance(doc.title, str)
    previous = 0
    for sec in doc.sections:
        assert 1 <= sec.line_start <= sec.line_end <= top, (sec.line_start, sec.line_end, top)
        assert sec.line_start >= previous
        previous = sec.line_start
        assert sec.level == 0 or sec.heading
        for block in sec.code_blocks:
            assert 1 <= block.line <= top


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=documents, mdx=st.booleans())
def test_parse_markdown_never_raises(text: str, mdx: bool) -> None:
    check_invariants(parse_markdown(text, mdx=mdx, fallback_title="f.md"), text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=documents)
def test_parse_rst_never_raises(text: str) -> None:
    check_invariants(parse_rst(text, fallback_title="f.rst"), text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=documents, data=st.data())
def test_parse_with_a_line_map_stays_in_range(text: str, data: st.DataObject) -> None:
    n = len(text.split("\n"))
    steps = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    line_map, line = [], 1
    for step in steps:  # non-decreasing, as includes produce
        line += step
        line_map.append(line)
    for fmt in ("markdown", "rst"):
        raw = RawDocument(path="x", url="u", content=text, fmt=fmt, line_map=line_map)
        check_invariants(parse_document(raw), text, line_map)


def test_rst_titles_are_read_without_their_inline_markup() -> None:
    text = (
        "The ``Client`` *guide*\n======================\n\nText.\n\n"
        "Using :class:`~pkg.Table`\n-------------------------\n\nMore.\n\n"
        "See `the docs <https://x.org>`_\n-------------------------------\n\nEnd.\n"
    )
    doc = parse_rst(text)
    assert doc.title == "The `Client` guide"
    assert [s.heading for s in doc.sections] == ["The `Client` guide", "Using `Table`", "See the docs"]
    assert doc.sections[1].line_start == 6  # lines are those of the file, as before


def test_rst_links_keep_their_targets_and_literal_asterisks_stay() -> None:
    doc = parse_rst("T\n=\n\nSee `the guide <https://example.org/guide>`_ and `foo`_.\n")
    assert [link.target for link in doc.links] == ["https://example.org/guide"]
    for title in ("a*b*c", "x**2 + y**2", "f(*args, **kwargs)"):
        assert parse_rst(f"{title}\n{'=' * len(title)}\n\nText.\n").title == title


def test_a_page_of_nothing_but_front_matter_is_one_section_about_itself() -> None:
    doc = parse_markdown("---\ntitle: Only Front Matter\ndescription: Moved to the new guide.\n---\n")
    assert doc.title == "Only Front Matter"
    (section,) = doc.sections
    assert (section.heading, section.line_start, section.line_end) == ("Only Front Matter", 1, 4)
    assert section.text == "Only Front Matter\n\nMoved to the new guide."
    assert parse_markdown("---\nlayout: x\n---\n").sections == []  # nothing to say: nothing to find


MYST = """\
# Page

```{code-block} python
:caption: one
import click
```

```{eval-rst}
Some reST.

.. code-block:: python

    click.echo("two")

.. click:example::

    @click.command()
    def cli():
        click.echo("three")

.. click:run::

    invoke(cli)
```

```{jupyter-execute}
click.echo("four")
```

```{code-cell} ipython3
---
tags: [hide-input]
---
click.echo("five")
```

```{note}
Not code.
```

````{warning}
Text, then its own code:

```python
click.echo("six")
```
````

```{toctree}
getting-started
```
"""


def test_myst_directive_fences_and_eval_rst_give_their_code_blocks() -> None:
    blocks = parse_markdown(MYST).sections[0].code_blocks
    lines = MYST.split("\n")

    def at(line: str) -> int:  # 1-based
        return lines.index(line) + 1

    found = [(b.language, b.line, b.code.strip()) for b in blocks]
    assert found == [
        ("python", at("```{code-block} python"), "import click"),  # the option line is no code
        ("python", at(".. code-block:: python"), 'click.echo("two")'),  # the directive's own line
        (
            "",
            at(".. click:example::"),
            '@click.command()\ndef cli():\n    click.echo("three")',
        ),  # told by parsing
        ("python", at("```{jupyter-execute}"), 'click.echo("four")'),
        ("ipython3", at("```{code-cell} ipython3"), 'click.echo("five")'),  # its YAML options are no code
        # an admonition is text: its code is its own fences; a toctree holds none
        ("python", at("```python"), 'click.echo("six")'),
    ]


def test_myst_directive_options_written_indented_are_no_code() -> None:
    """MyST-Parser strips an option line's indent (cattrs writes ```` ```{doctest} ```` then
    ``    :options: +SKIP``): the line is an option, not the first line of the code."""
    text = "# T\n\n```{doctest}\n    :options: +SKIP\n\n>>> import json\n>>> json.dumps(1)\n'1'\n```\n"
    (block,) = parse_markdown(text).sections[0].code_blocks
    assert block.language == "python" and block.code.strip().startswith(">>> import json")


def test_rst_doctest_jupyter_and_extension_example_directives_are_code() -> None:
    text = """\
Title
=====

.. testcode::

    import pkg

.. doctest:: group

    >>> pkg.run()

.. pkg:example::

    pkg.go()

.. note::

    Prose, not code.
"""
    found = [(b.language, b.line, b.code.strip()) for b in parse_rst(text).sections[0].code_blocks]
    assert found == [("python", 4, "import pkg"), ("python", 8, ">>> pkg.run()"), ("", 12, "pkg.go()")]


def test_rst_code_directive_with_a_space_before_its_colons() -> None:
    # docutils allows one space between a directive's name and "::"
    text = "Title\n=====\n\n.. code-block :: python\n\n    import pkg\n"
    found = [(b.language, b.code.strip()) for b in parse_rst(text).sections[0].code_blocks]
    assert found == [("python", "import pkg")]


def test_rst_doctest_setup_and_cleanup_are_no_code_of_the_page() -> None:
    """sphinx.ext.doctest runs testsetup and testcleanup around the doctests and never shows
    them: a reader sees no such block, so it is no example (a mock set-up was one before)."""
    text = """\
Title
=====

.. testsetup:: *

    from unittest import mock
    urllib = mock.MagicMock()

.. testcleanup::

    urllib.reset_mock()

.. doctest::

    >>> pkg.run()
"""
    found = [(b.language, b.code.strip()) for b in parse_rst(text).sections[0].code_blocks]
    assert found == [("python", ">>> pkg.run()")]
    myst = "# Title\n\n```{testsetup} *\nurllib = mock.MagicMock()\n```\n\n```{testcleanup}\nx\n```\n\n```{doctest}\n>>> pkg.run()\n```\n"
    found = [(b.language, b.code.strip()) for b in parse_markdown(myst).sections[0].code_blocks]
    assert found == [("python", ">>> pkg.run()")]  # MyST's forms too


def test_rst_doctest_blocks_are_code() -> None:
    # a paragraph that opens with the prompt is a doctest block in reST: code to the next
    # blank line, Python; its line is the one before the prompt (a fence's line is the one
    # before its code); a prompt inside a paragraph is prose
    text = (
        "Native\n======\n\nUse it like this.\n\n"
        ">>> env = NativeEnvironment()\n>>> env.from_string('{{ x + y }}').render(x=4, y=2)\n6\n\n"
        "Text that quotes >>> a prompt\n>>> mid-paragraph, not a block\n\n"
        "  >>> indented()\n  1\n\n"
        "Literal::\n\n    >>> inside_a_literal()\n"
    )
    blocks = parse_rst(text).sections[-1].code_blocks
    assert [(b.language, b.line, b.code.split("\n")[0]) for b in blocks] == [
        ("python", 5, ">>> env = NativeEnvironment()"),
        ("python", 12, ">>> indented()"),
        ("", 16, ">>> inside_a_literal()"),  # the literal block's, once
    ]
    assert blocks[0].code.endswith("6\n")
    # a comment's body is no content, however it goes on; a directive's is
    commented = "T\n=\n\n.. a note to self\n   more\n\n   >>> hidden()\n\n.. note::\n\n   >>> shown()\n"
    assert [b.code for b in parse_rst(commented).sections[-1].code_blocks] == [">>> shown()\n"]


def test_an_rst_doctest_block_under_a_definition_lists_term_is_code() -> None:
    """A deepdiff tour: its pages write a term, then the doctest session indented under it
    ("Search in list for string" / "    >>> ds = obj | grep(item)"): docutils reads the
    definition as a doctest block, which was dropped (86 sessions on ten pages). A list
    item's text going on at its indent is still one paragraph."""
    text = (
        "Search\n======\n\nSearch in list for string\n    >>> ds = grep(item)\n    >>> print(ds)\n"
        "    {'matched': 1}\n\n- an item\n  >>> not a block\n\n1. a step\n   >>> nor this\n"
    )
    blocks = parse_rst(text).sections[-1].code_blocks
    assert [(b.language, b.line, b.code) for b in blocks] == [
        ("python", 4, ">>> ds = grep(item)\n>>> print(ds)\n{'matched': 1}\n")
    ]


def test_sphinx_setup_blocks_of_rest_and_myst_pages() -> None:
    """``.. testsetup::`` bodies (any group, options skipped) and MyST ```` ```{testsetup} ````
    fences: what sphinx.ext.doctest runs first; ``testcleanup`` and the page's code are not."""
    from docmentor.parse.markdown import setup_blocks as md_setup
    from docmentor.parse.rst import setup_blocks as rst_setup

    rest = (
        "Title\n=====\n\n.. testsetup::\n\n    import json\n\n.. testsetup:: other\n   :skipif: False\n\n"
        "   import os\n\n.. testcleanup::\n\n   done()\n\n>>> json.dumps(1)\n'1'\n"
    )
    assert [(b.line, b.code) for b in rst_setup(rest)] == [(4, "import json\n"), (8, "import os\n")]
    myst = "# T\n\n```{testsetup}\n:hide:\nfrom pkg import x\n```\n\n```{doctest}\n>>> x\n1\n```\n"
    assert [(b.line, b.code) for b in md_setup(myst)] == [(3, "from pkg import x\n")]
    assert md_setup("# T\n\n```python\ntestsetup = 1\n```\n") == []


def test_a_rst_label_starts_the_section_it_names() -> None:
    """celery's ``.. _calling-connection-errors:`` line sits above the heading it names: it is
    that section's (its words search it, not the section before, whose snippet was the label
    alone), and a snippet starts at the text a reader reads, not at the label."""
    from docmentor.search.ranking import snippet

    text = (
        "Retry Policy\n============\n\nRetry text.\n\n.. _calling-connection-errors:\n\n"
        "Connection Error Handling\n=========================\n\n" + "Words about brokers. " * 30 + "\n"
    )
    doc = parse_rst(text)
    retry, errors = doc.sections
    assert "calling-connection-errors" not in retry.text and retry.line_end == 4
    assert errors.text.startswith(".. _calling-connection-errors:") and errors.line_start == 6
    assert snippet(errors.text, {"zzz"}, size=120).startswith("Connection Error Handling")


def test_roles_in_rest_titles_read_as_sphinx_shows_them() -> None:
    """pytest's "Dropping to :doc:`python:library/pdb` on failures" showed the role's target;
    Sphinx shows the document's title, here its name. ``~`` shows a path's last part."""
    from docmentor.parse.rst import _plain

    assert _plain("Dropping to :doc:`python:library/pdb` on failures") == "Dropping to `pdb` on failures"
    assert _plain("See :doc:`the guide <guide/intro>`") == "See `the guide`"
    assert _plain("Use :func:`~pkg.mod.run` or :func:`pkg.stop`") == "Use `run` or `pkg.stop`"


def test_a_myst_label_starts_the_section_it_names() -> None:
    """``(upserts)=`` above ``## Upserts`` names that section (MyST's target), as a reST label
    does: it is that section's text, not the end of the one before."""
    guide, upserts = parse_markdown(
        "# Guide\n\nIntro.\n\n(upserts)=\n\n## Upserts\n\nUpsert rows.\n"
    ).sections
    assert guide.text == "# Guide\n\nIntro." and guide.line_end == 3
    assert upserts.text.startswith("(upserts)=") and upserts.line_start == 5


def test_a_markdown_headings_attr_list_is_no_part_of_its_title() -> None:
    """griffe's and pydantic's docs write ``## GitHub {#ci-github}`` (Python-Markdown's
    attr_list): the id and classes are no words of the title; braces that are words stay."""
    doc = parse_markdown(
        "# GitHub {#ci-github}\n\nx\n\n## Parser options {: #numpydoc-options .x }\n\ny\n\n## Sets {x}\n\nz\n"
    )
    assert [s.heading for s in doc.sections] == ["GitHub", "Parser options", "Sets {x}"]
    assert [s.anchor for s in doc.sections] == [
        "ci-github",
        "numpydoc-options",
        "sets-x",
    ]  # the id, as MkDocs


def test_an_attr_list_of_keys_and_values_is_no_part_of_its_headings_title(tmp_path: Path) -> None:
    """A mkdocs-material tour: `{ id=navigation-path }`, `{ id="9.5.15" }`, `{ data-search-exclude }`
    and `{ data-toc-label="Version" #extension }` leaked into titles, and their ids were no
    anchors (634 changelog headings); a bare word in braces stays a title's words."""
    doc = parse_markdown(
        '# Navigation path { id=navigation-path }\n\nx\n\n## 9.5.15 { id="9.5.15" }\n\ny\n\n'
        "## Hidden { data-search-exclude }\n\nz\n\n"
        '## Version { data-toc-label="Version" #extension }\n\nw\n\n## Release {#9.5.16}\n\nv\n\n'
        "## Use {name}\n\nu\n\n## Glued {data-search-exclude}\n\nt\n\n## Last {#a id=b}\n\ns\n\n"
        '## Quoted { title="see #c" }\n\nr\n'
    )
    assert [(s.heading, s.anchor) for s in doc.sections] == [
        ("Navigation path", "navigation-path"),
        ("9.5.15", "9.5.15"),
        ("Hidden", "hidden"),
        ("Version", "extension"),
        ("Release", "9.5.16"),
        ("Use {name}", "use-name"),
        ("Glued", "glued"),  # (a review: no blank before the brace)
        ("Last", "b"),  # the last id, as Python-Markdown keeps it
        ("Quoted", "quoted"),  # a `#` inside another key's quoted value is no id
    ]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "setup.md").write_text(
        "# Setup\n\nIntro.\n\n## Navigation path { id=navigation-path }\n\nBreadcrumbs above the title.\n\n"
        "## Other\n\nSee [the path](#navigation-path), not [this](#nowhere).\n",
        encoding="utf-8",
    )
    with Docmentor(tmp_path / "db", create=True, embeddings=False) as eng:
        eng.add(str(docs), name="site")
        assert eng.get("setup.md#navigation-path").content.startswith("## Navigation path")
    report = json.dumps(score_paths([docs / "setup.md"]).to_dict())
    assert "#nowhere" in report and "#navigation-path" not in report  # the link to the id is no broken anchor


def test_a_markdown_headings_inline_html_is_no_part_of_its_title() -> None:
    """FastAPI's `## Data <dfn title="also known as: serialization">conversion</dfn>`: the
    tags are markup, their words the title's; a type parameter in a code span stays."""
    doc = parse_markdown(
        '# Data <dfn title="also known as: serialization, parsing">conversion</dfn>\n\nx\n\n'
        "## The `useQuery<TData>` hook<br/>\n\ny\n\n## When a < b and c > d\n\nz\n"
    )
    assert [s.heading for s in doc.sections] == [
        "Data conversion",
        "The `useQuery<TData>` hook",
        "When a < b and c > d",
    ]
    assert doc.sections[0].anchor == "data-conversion"


def test_a_components_badge_in_a_heading_is_no_part_of_its_title() -> None:
    """The Vitest tour: `## mockThrow <Version>4.1.0</Version>` read "mockThrow 4.1.0", and 122
    headings carried such badges (`Fixture Scopes <Version>3.2.0</Version>`, `<Badge
    type="info">advanced</Badge>`). A site component's text is its badge; an HTML element's is
    the title's (`<dfn>`), a component in a code span is code."""
    doc = parse_markdown(
        '# Trace View <Version>5.0.0</Version> <Badge type="info">advanced</Badge>\n\nx\n\n'
        '## coverage.instrumenter <Version type="experimental">4.1.5</Version> {#coverage-instrumenter}\n\ny\n\n'
        "## watch <CRoot /> and <b>bold</b>\n\nz\n\n## The `<Version>1</Version>` tag\n\nw\n\n"
        "## <Trans>Getting started</Trans>\n\nv\n\n## Use <Term>SSR</Term> mode\n\nu\n"
    )
    assert doc.title == "Trace View"
    # a component that is the whole title, or inside it (Docusaurus' <Trans>, <Term>), is its text
    assert [s.heading for s in doc.sections] == [
        "Trace View",
        "coverage.instrumenter",
        "watch and bold",
        "The `<Version>1</Version>` tag",
        "Getting started",
        "Use SSR mode",
    ]
    assert doc.sections[1].anchor == "coverage-instrumenter"
    import time

    started = time.perf_counter()
    parse_markdown(
        "# a " + "<A>" * 30_000 + "x" * 30_000 + "\n\n## b <A " + "a" * 50_000 + "\n\n## c" + " " * 60_000
        + "x</A>\n\n## d " + "<A>x</A>" * 10_000 + "\n\ntext\n"
    )  # fmt: skip
    assert time.perf_counter() - started < 2


def test_inline_html_in_headings_is_read_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    doc = parse_markdown("# a " + "<b " * 50_000 + "\n\ntext\n")
    assert doc.sections[0].heading.startswith("a") and time.perf_counter() - started < 2


def test_an_attr_list_is_looked_for_in_linear_time() -> None:
    """A heading ending in a long run of blanks before a word: the attr_list pattern starts once
    per run (a review measured 1.3 s for 40,000 blanks before)."""
    import time

    started = time.perf_counter()
    doc = parse_markdown("# a" + " " * 200_000 + "b\n\ntext\n")
    assert doc.sections[0].heading == "a b" and time.perf_counter() - started < 2


def test_headings_inside_a_marked_tab_region_are_tab_labels() -> None:
    # TanStack's sites: `<!-- ::start:framework -->` … `<!-- ::end:framework -->` shows one
    # `# React` / `# Solid` part as a tab; the labels open no section of the page
    text = "\n".join(
        [
            "---",
            "title: Navigation",
            "---",
            "",
            "## Links",
            "",
            "A static link:",
            "",
            "<!-- ::start:framework -->",
            "",
            "# React",
            "",
            "```tsx",
            "const link = <Link to='/about'>About</Link>",
            "```",
            "",
            "# Solid",
            "",
            "Solid's link is the same.",
            "",
            "<!-- ::end:framework -->",
            "",
            "### Dynamic Links",
            "",
            "Dynamic segments.",
            "",
            '<!-- ::start:tabs variant="bundler" -->',
            "# Vite",
            "Install the plugin.",
            "<!-- ::end:tabs -->",
            "",
            "# React",
            "",
            "Not in a region: a heading.",
        ]
    )
    doc = parse_markdown(text)
    assert [s.heading_path for s in doc.sections] == [
        ["Links"],
        ["Links", "Dynamic Links"],
        ["React"],
    ]
    links = section(doc, "Links")
    assert (links.line_start, links.line_end) == (5, 21)
    # a label reads as the tab's name, not as a heading line
    assert "\nReact\n" in links.text and "# React" not in links.text
    assert "Solid's link is the same." in links.text
    assert "\nVite\nInstall the plugin." in section(doc, "Dynamic Links").text


def test_an_unclosed_tab_region_leaves_headings_alone() -> None:
    doc = parse_markdown("## A\n\n<!-- ::start:framework -->\n\n# React\n\ntext\n")
    assert [s.heading_path for s in doc.sections] == [["A"], ["React"]]


def test_front_matter_yaml_refuses_is_read_as_plain_pairs() -> None:
    # `@` cannot start a plain YAML scalar: the site's own reader takes the line as it is
    doc = parse_markdown("---\ntitle: @sveltejs/kit/node\nslug: 'node'\n---\n\n## Usage\n\nText.\n")
    assert doc.title == "@sveltejs/kit/node" and doc.meta == {"title": "@sveltejs/kit/node", "slug": "node"}
    assert parse_markdown("---\ntitle: [unclosed\n---\n\n# Page\n").title == "Page"  # no pairs: the heading


def test_character_references_in_headings_read_as_shown() -> None:
    doc = parse_markdown("# Head\n\n## &lt;title&gt; and &lt;meta&gt; &amp; more\n\n## Code `&lt;T&gt;`\n")
    assert [s.heading for s in doc.sections[1:]] == ["<title> and <meta> & more", "Code `&lt;T&gt;`"]


def test_a_tab_region_ends_only_outside_code_and_before_its_next_start() -> None:
    """(review) an `::end:` shown in a code block closes nothing; a start whose name starts
    again before any end is no region (its headings stay headings)."""
    fenced = "## A\n\n<!-- ::start:framework -->\n\n## Install\n\n```md\n<!-- ::end:framework -->\n```\n"
    assert [s.heading for s in parse_markdown(fenced).sections] == ["A", "Install"]
    text = "\n".join(
        [
            "## A",
            "<!-- ::start:framework -->",
            "## Real section",
            "text",
            "<!-- ::start:framework -->",
            "# React",
            "tab",
            "<!-- ::end:framework -->",
        ]
    )
    assert [s.heading for s in parse_markdown(text).sections] == ["A", "Real section"]


def test_tab_markers_are_read_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    parse_markdown("<!-- ::start:" + "a-" * 40_000 + "\n\n<!-- ::end:x -->\n")
    assert time.perf_counter() - started < 1


def test_mdx_component_names_in_code_spans_stay() -> None:
    text = (
        "# Tabs\n\nimport { Tabs } from '@astrojs/starlight/components';\n\n"
        "Wrap `<TabItem>` components in `<Tabs>` to show them. <Tabs>hidden tag</Tabs>\n\n"
        "## `<Tabs>` Props\n\nThe `<Tabs>` component does not accept any props.\n"
    )
    doc = parse_markdown(text, mdx=True)
    props = next(s for s in doc.sections if s.heading_path[-1].endswith("Props"))
    assert props.heading_path[-1] == "`<Tabs>` Props"
    assert "The `<Tabs>` component does not accept any props." in props.text
    intro = next(s for s in doc.sections if s.heading_path == ["Tabs"])
    assert "Wrap `<TabItem>` components in `<Tabs>` to show them." in intro.text
    assert "hidden tag" in intro.text and "<Tabs>hidden" not in intro.text


def test_mdx_tab_labels_are_text_and_other_attributes_are_not() -> None:
    text = (
        "# Plugins\n\nimport { LinkCard } from 'x';\n\n## Community plugins\n\n<CardGrid>\n"
        '\t<LinkCard\n\t\thref="https://example.com/links"\n\t\ttitle="links-validator"\n'
        '\t\tdescription="Check for broken links in your pages."\n\t/>\n'
        '\t<LinkCard title="Don\'t panic" href="/x/" />\n</CardGrid>\n\n'
        '<Tabs><TabItem label="npm" value="n">\n\nnpm install\n\n</TabItem></Tabs>\n'
    )
    doc = parse_markdown(text, mdx=True)
    body = next(s for s in doc.sections if s.heading_path[-1] == "Community plugins").text
    assert " npm " in body and "npm install" in body  # a tab's label is its title
    assert "href" not in body and "LinkCard" not in body and "https://" not in body
    assert "links-validator" not in body  # a card's attributes are a link's, not the page's prose


def test_mdx_code_spans_pair_backtick_runs_as_commonmark_does() -> None:
    text = "# T\n\n## ``<Tabs>`` Props <Badge text='x'/>\n\nUse ``<Tabs>``, `` `<TabItem>` `` and ``x` `<Y>` <Z>.\n"
    doc = parse_markdown(text, mdx=True)
    props = doc.sections[-1]
    assert props.heading_path[-1] == "``<Tabs>`` Props"
    # `` opens a span closed by the next ``; a lone `` is text, then `x`'s single backtick pairs
    # with the next one (markdown-it: ``x<code> </code><Y>`), so <Y> is a tag, outside code
    assert "Use ``<Tabs>``, `` `<TabItem>` `` and ``x` `` ." in props.text
