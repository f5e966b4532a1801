"""docmentor.parse.fences: the one code-fence reader, checked against CommonMark's rules."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from docmentor.parse.fences import Fence, as_read_text, closes, fence_open


@pytest.mark.parametrize(
    ("line", "char", "length", "indent", "info"),
    [
        ("```", "`", 3, "", ""),
        ("```python", "`", 3, "", "python"),
        ("````  py title='a.py' ", "`", 4, "", "py title='a.py'"),
        ("~~~", "~", 3, "", ""),
        ("~~~~~ text `with` backticks", "~", 5, "", "text `with` backticks"),
        ("   ```js", "`", 3, "   ", "js"),
        ("```{code-block} python", "`", 3, "", "{code-block} python"),
    ],
)
def test_opening_fences(line: str, char: str, length: int, indent: str, info: str) -> None:
    assert fence_open(line) == Fence(char, length, indent, info)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "``",
        "~~",
        "text ```",
        "```x``` is inline code",  # a backtick in a backtick fence's info string
        "``` a ` b",
        "    ```",  # four spaces: an indented code block
        "\t```",
        "- ```",
        '=== "Tab"',
    ],
)
def test_not_opening_fences(line: str) -> None:
    assert fence_open(line) is None


def test_any_indent_accepts_nested_fences() -> None:
    fence = fence_open("    ```python", any_indent=True)
    assert fence == Fence("`", 3, "    ", "python")
    assert fence_open("\t~~~", any_indent=True) == Fence("~", 3, "\t", "")
    assert closes("        ```", fence, any_indent=True)
    assert not closes("        ```", fence)
    assert fence_open("    ```x`", any_indent=True) is None


@pytest.mark.parametrize(
    ("opener", "line", "closed"),
    [
        ("```", "```", True),
        ("```", "`````", True),  # longer closes
        ("````", "```", False),  # shorter does not
        ("```", "~~~", False),  # the other character does not
        ("~~~", "~~~~  ", True),  # spaces after
        ("```", "```python", False),  # an info string: not a closing fence
        ("```", "   ```", True),
        ("```", "    ```", False),
        ("```", "``` `", False),
        ("```", "", False),
    ],
)
def test_closing(opener: str, line: str, closed: bool) -> None:
    fence = fence_open(opener)
    assert fence is not None
    assert closes(line, fence) is closed


def test_colon_fence_closes_by_its_character() -> None:
    assert closes(":::", Fence(":", 3, "", "{note}"))
    assert not closes("::", Fence(":", 3, "", "{note}"))


def _fenced_lines(text: str) -> list[int]:
    """0-based lines inside or on a fence, read with fence_open / closes."""
    out: list[int] = []
    fence: Fence | None = None
    for i, line in enumerate(text.split("\n")):
        if fence is not None:
            out.append(i)
            if closes(line, fence):
                fence = None
        elif (fence := fence_open(line)) is not None:
            out.append(i)
    return out


def test_agrees_with_markdown_it() -> None:
    text = "\n".join(
        [
            "# Title",  # 0
            "````markdown",  # 1
            "```python",  # 2
            "x = 1",  # 3
            "```",  # 4
            "````",  # 5
            "```x``` inline",  # 6
            "~~~",  # 7
            "```",  # 8
            "~~~~",  # 9
            "text",  # 10
            "   ```",  # 11
            "a",  # 12
            "```  ",  # 13
            "end",  # 14
            "```",  # 15
            "never closed",  # 16
        ]
    )
    expected: list[int] = []
    for tok in MarkdownIt("commonmark").parse(text):
        if tok.type == "fence" and tok.map:
            expected += range(tok.map[0], tok.map[1])
    assert _fenced_lines(text) == expected


def test_linear_on_adversarial_lines() -> None:
    fence = Fence("`", 3, "", "")
    lines = [
        " " * 200_000 + "x",
        "`" * 200_000 + "x",
        "~" * 200_000 + " " * 200_000 + "x",
        "\t" * 200_000,
        "```" + "`" * 100_000 + " " * 100_000,
    ]
    start = time.perf_counter()
    # a quadratic scan of one 200,000-character line alone takes minutes; five rounds of the
    # linear ones take ~0.15 s, so the bound holds on a slow machine under the suite's load
    for _ in range(5):
        for line in lines:
            fence_open(line)
            fence_open(line, any_indent=True)
            closes(line, fence)
            closes(line, fence, any_indent=True)
    assert time.perf_counter() - start < 1.0


# -- the readers that use it ----------------------------------------------------------------


def test_llms_txt_fence_closes_only_by_a_run_as_long() -> None:
    from docmentor.sources.llmstxt_parse import parse_llms_txt

    text = "# Site\n\n## Docs\n\n````md\n```\n- [Shown](in-code.md)\n```python\n````\n\n- [Real](real.md)\n"
    parsed = parse_llms_txt(text, "https://example.org/")
    assert [link.title for link in parsed.links] == ["Real"]


def test_prose_text_keeps_inline_code_at_a_line_start() -> None:
    from docmentor.library.knowledge.importance import prose_text

    text = "```Client``` is the entry point.\n\n```python\nhidden = 1\n```\nafter"
    assert prose_text(text) == "```Client``` is the entry point.\n\nafter"


def test_hidden_setup_code_is_read_in_linear_time() -> None:
    from docmentor.clarity.checks import check_document

    setup = "<!-- Setup\n" + "\n" * 20_000 + "x\n```python\ndb = connect()\n```\n-->\n"
    page = f"# T\n\n{setup}\nUse it:\n\n```python\ndb.open()\n```\n"
    start = time.perf_counter()
    issues = check_document(page, path="page.md").issues
    assert time.perf_counter() - start < 1.0  # the old regex took ~6 s on these blank lines
    assert [i for i in issues if i.type == "undefined_name"] == []


def test_example_context_drops_fences_in_linear_time() -> None:
    """The prose around an example (find_api's task words) leaves code out, on any fence run."""
    from docmentor.library.examples.examples import _fence_lines, _prose

    assert _prose("Send it.\n\n```python\nclient.get(url)\n```\n\nThen close.") == "Send it. Then close."
    started = time.perf_counter()
    _prose("~~~x\n" * 8000)
    assert time.perf_counter() - started < 1.0
    # a shorter run or an info string does not close; ```x``` is inline code, not a fence
    lines = ["````py", "```", "x", "````", "```x```", "~~~", "y", "~~~"]
    assert _fence_lines(lines, None) == {1: 0, 6: 5}


def test_html_comments_of_prose_are_left_out_and_code_keeps_its_own() -> None:
    from docmentor.parse.fences import without_html_comments

    text = (
        "Intro <!-- hidden one --> words.\n"
        "<!-- markdownlint-disable-next-line no-empty-links -->\n"
        "Kept line.\n"
        "<!-- a comment\n"
        "over lines -->After it.\n"
        "```vue\n"
        "<!-- MyComponent.vue -->\n"
        "<template/>\n"
        "```\n"
        "End.\n"
        "<!-- never closed\n"
        "hidden till the end\n"
    )
    assert without_html_comments(text) == (
        "Intro  words.\nKept line.\nAfter it.\n```vue\n<!-- MyComponent.vue -->\n<template/>\n```\nEnd."
    )
    # inline code is code, and a comment opened inside a line that does not close there is
    # text, as CommonMark reads it (review)
    assert without_html_comments("Cut a post at `<!--truncate-->`.") == "Cut a post at `<!--truncate-->`."
    tip = "HTML comments start with `<!--`.\n\n## Caching\n\nUse the cache <!-- or not."
    assert without_html_comments(tip) == tip
    assert without_html_comments("no comment\n") == "no comment\n"
    # linear on a line of many openings, and on many lines of an unclosed comment
    assert without_html_comments("<!--" * 100_000) == ""
    assert without_html_comments("<!--x\n" * 100_000 + "-->y") == "y"


def test_words_only_an_html_comment_holds_find_nothing(tmp_path: Path) -> None:
    from docmentor.engine import Docmentor

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "build.md").write_text(
        "# Build failures\n\nA module is missing.\n\n<!-- docker run ghcr.io/astral-sh/uv:trixieslim -->\n"
    )
    (docs / "docker.md").write_text("# Docker\n\nUse the `trixieslim` image.\n")
    (docs / "install.md").write_text(
        '# Install\n\n<Tabs>\n<TabItem value="yarnberry">\n\nRun it.\n\n</TabItem>\n</Tabs>\n'
    )
    (docs / "yarn.md").write_text("# Yarn\n\nWith yarnberry, run it.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="docs")
    assert [h.path for h in engine.search("trixieslim")] == ["docker.md"]
    assert [h.path for h in engine.search("yarnberry")] == ["yarn.md"]  # a tag's attribute: markup


def test_tags_around_prose_are_markup_and_code_keeps_its_angle_brackets() -> None:
    """A Redux Toolkit tour: `<Tabs>` / `<TabItem value="npm">` made a page about installing
    match "browser tab"; httpx's `<img src=…Open_proxy…svg>` put a file name's words in a
    page. Tags go, their text stays; inline code (`Promise<T>`) and fenced code are code."""
    from docmentor.parse.fences import as_read_text

    text = (
        '<Tabs>\n  <TabItem value="npm" label="npm" default>\n\nRun the installer.\n\n  </TabItem>\n</Tabs>\n'
        "<figcaption><em>How a proxy works</em></figcaption> <!-- hidden -->\n"
        "Returns a `Promise<Todo[]>` and `<Response [200 OK]>`.\n"
        "```tsx\n<Provider store={store}>\n```\n"
    )
    got = as_read_text(text)
    assert "TabItem" not in got and "value" not in got and "Tabs" not in got and "hidden" not in got
    assert "Run the installer." in got and "How a proxy works" in got
    assert "`Promise<Todo[]>`" in got and "`<Response [200 OK]>`" in got
    assert "<Provider store={store}>" in got
    assert as_read_text("a < b and c > d, x<y") == "a < b and c > d, x<y"  # no tag: as written
    # a tab's label is what a reader sees (a tRPC tour: the Zod / Yup / Valibot variants)
    tabs = as_read_text('<Tabs>\n<TabItem value="zod" label="Zod">\n\nWith zod.\n\n</TabItem>\n</Tabs>\n')
    assert "Zod" in tabs and "value" not in tabs and 'zod"' not in tabs, tabs
    assert len(as_read_text("<a " + "x" * 200_000 + "\n" + "<b" * 50_000)) > 0  # linear


def test_script_and_style_blocks_are_not_read(tmp_path: Path) -> None:
    """A Vite tour: VitePress pages hold `<script setup>` blocks (a 13-line redirect script in
    a troubleshooting section, a page's component imports) and their words were indexed:
    searching the script's words found it, and `blog.md`'s preamble of only a script block
    was a result. As CommonMark reads them, a `<script>` or `<style>` block runs to its
    closing tag: nobody reads it on the page. Fenced code showing one is code."""
    from docmentor.engine import Docmentor
    from docmentor.parse.fences import as_read_text

    text = (
        'Intro.\n\n<script setup lang="ts">\nconst hashForOldVersion = {}\n</script>\n\n'
        "<style>.red { color: red }</style>\nAfter.\n"
        "```html\n<script>\nconst shown = 1\n</script>\n```\n"
        "<scripts are not a tag of this kind>\n"
    )
    got = as_read_text(text)
    assert "hashForOldVersion" not in got and "color" not in got
    assert "Intro." in got and "After." in got and "const shown = 1" in got
    assert len(as_read_text("<script>\n" + "x\n" * 100_000)) < 10  # to the end when never closed
    # (review) in a comment, `<script>` is the comment's text
    assert as_read_text("<!--\n<script>\n-->\nVisible text.\n\n## Next\n") == "Visible text.\n\n## Next\n"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "blog.md").write_text(
        "<script setup>\nimport BlogIndex from './BlogIndex.vue'\nconst redirectlegacy = 1\n</script>\n\n"
        "# Latest posts\n\n<BlogIndex/>\n\nThe blog's posts.\n"
    )
    (docs / "redirects.md").write_text("# Redirects\n\nHow redirectlegacy links work.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="docs")
    assert [h.path for h in engine.search("redirectlegacy")] == ["redirects.md"]
    assert [h.heading for h in engine.search("blog posts")] == ["Latest posts"]  # no preamble unit


def test_link_reference_definitions_are_no_words_of_the_page() -> None:
    """A Django REST framework tour: `[cite]: https://…` lines (a page's link targets, never
    shown) were indexed as its last section's words and filled its snippets. A footnote is
    shown, and code is code."""
    text = (
        "Throttling limits requests [see the docs][cite].\n\n"
        "[cite]: https://example.org/throttling\n"
        '  [ref-2]: <https://example.org/x> "Title"\n'
        "[^1]: A footnote the page shows.\n\n"
        "```ini\n[section]: value\n```\n"
    )
    assert as_read_text(text) == (
        "Throttling limits requests [see the docs][cite].\n\n"
        "[^1]: A footnote the page shows.\n\n"
        "```ini\n[section]: value\n```\n"
    )
