"""Include resolution: snippets, markdown-include, Sphinx/MyST includes, confinement."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypedDict, Unpack

import pytest

from docmentor.sources import include_targets
from docmentor.sources.include_targets import IncludeCache
from docmentor.sources.includes import IncludeResult, resolve_includes

CODE = textwrap.dedent(
    """\
    import os

    def f():
        # --8<-- [start:body]
        x = 1
        # --8<-- [start:inner]
        y = 2
        # --8<-- [end:inner]
        return x + y
        # --8<-- [end:body]
    """
)

TS = textwrap.dedent(
    """\
    // --8<-- [start:import]
    import * as lancedb from "@lancedb/lancedb";
    // --8<-- [end:import]
    async function main() {
      // --8<--  [start:connect]
      const db = await lancedb.connect("data");
      // --8<-- [end:connect]
    }
    """
)


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class Options(TypedDict, total=False):
    """resolve_includes' keywords that a test sets."""

    base_dirs: Sequence[Path]
    fmt: Literal["markdown", "rst"]
    max_depth: int
    max_bytes: int
    cache: IncludeCache
    dedent_subsections: bool


def run(root: Path, rel: str, text: str, **kwargs: Unpack[Options]) -> IncludeResult:
    path = write(root, rel, text)
    return resolve_includes(text, path=path, root=root, **kwargs)


def rows(result: IncludeResult) -> list[tuple[int, str]]:
    lines = result.text.split("\n")
    if result.text.endswith("\n"):
        lines.pop()
    assert len(lines) == len(result.line_map)
    return list(zip(result.line_map, lines, strict=True))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write(tmp_path, "src/ex.py", CODE)
    write(tmp_path, "src/ex.ts", TS)
    return tmp_path


# -- pymdownx.snippets -----------------------------------------------------------------


def test_whole_file_include_maps_lines_to_the_directive(root: Path) -> None:
    write(root, "docs/part.md", "Part one\n\nPart two\n")
    result = run(root, "docs/a.md", 'Intro\n--8<-- "docs/part.md"\nOutro\n')
    assert rows(result) == [(1, "Intro"), (2, "Part one"), (2, ""), (2, "Part two"), (3, "Outro")]
    assert result.text.endswith("Outro\n")
    assert result.warnings == []
    assert result.included_files == [(root / "docs/part.md").resolve()]


def test_section_inside_tabs_and_fence_is_dedented_then_indented(root: Path) -> None:
    doc = '=== "Python"\n\n    ```python\n    --8<-- "src/ex.py:body"\n    ```\nEnd\n'
    result = run(root, "docs/a.md", doc)
    assert rows(result) == [
        (1, '=== "Python"'),
        (2, ""),
        (3, "    ```python"),
        (4, "    x = 1"),  # markers of the nested section are stripped
        (4, "    y = 2"),
        (4, "    return x + y"),
        (5, "    ```"),
        (6, "End"),
    ]


def test_section_markers_with_slash_comments_and_extra_spaces(root: Path) -> None:
    result = run(root, "a.md", '```ts\n--8<-- "src/ex.ts:import"\n--8<-- "src/ex.ts:connect"\n```\n')
    assert result.text == (
        '```ts\nimport * as lancedb from "@lancedb/lancedb";\n'
        'const db = await lancedb.connect("data");\n```\n'
    )


def test_dedent_can_be_turned_off(root: Path) -> None:
    result = run(root, "a.md", '--8<-- "src/ex.py:inner"\n', dedent_subsections=False)
    assert result.text == "    y = 2\n"


@pytest.mark.parametrize(
    "directive",
    [
        '--8<-- "src/ex.py:inner"',
        '--8<--- "src/ex.py:inner"',
        '--8<---- "src/ex.py:inner"',
        "--8<-- 'src/ex.py:inner'",
        '-8<- "src/ex.py:inner"',
        '--8<-- "src/ex.py:inner"   ',
    ],
)
def test_marker_variants(root: Path, directive: str) -> None:
    assert run(root, "a.md", directive + "\n").text == "y = 2\n"


def test_line_ranges_follow_pymdownx(root: Path) -> None:
    write(root, "n.txt", "".join(f"line {k}\n" for k in range(1, 13)))
    assert run(root, "a.md", '--8<-- "n.txt:3:5"\n').text == "line 3\nline 4\nline 5\n"
    assert run(root, "b.md", '--8<-- "n.txt:11"\n').text == "line 11\nline 12\n"
    assert run(root, "c.md", '--8<-- "n.txt::2"\n').text == "line 1\nline 2\n"


def test_line_range_is_dedented(root: Path) -> None:
    assert run(root, "a.md", '  --8<-- "src/ex.py:5:5"\n').text == "  x = 1\n"


def test_escaped_directive_is_text(root: Path) -> None:
    result = run(root, "a.md", ';--8<-- "src/ex.py:inner"\n')
    assert result.text == '--8<-- "src/ex.py:inner"\n'
    assert result.included_files == []


def test_block_form(root: Path) -> None:
    write(root, "docs/b.md", "B\n")
    doc = 'x\n--8<--\nsrc/ex.py:inner\n;src/ignored.py\n\n  "docs/b.md"\n--8<--\ny\n'
    result = run(root, "a.md", doc)
    assert rows(result) == [(1, "x"), (2, "y = 2"), (2, ""), (2, "  B"), (8, "y")]


def test_unclosed_block_marker_is_plain_text(root: Path) -> None:
    doc = "text\n--8<--\nsrc/ex.py\nmore\n"
    assert run(root, "a.md", doc).text == doc


def test_missing_file_and_section_warn_and_keep_the_line(root: Path) -> None:
    doc = 'a\n--8<-- "src/missing.py"\n  --8<-- "src/ex.py:nope"\n'
    result = run(root, "docs/a.md", doc)
    assert result.text == doc
    assert result.warnings == [
        "docs/a.md:2: include not found: src/missing.py",
        "docs/a.md:3: include section not found: src/ex.py:nope",
    ]


def test_end_marker_before_start_means_no_section(root: Path) -> None:
    write(root, "w.py", "# --8<-- [end:s]\nx\n# --8<-- [start:s]\ny\n")
    result = run(root, "a.md", '--8<-- "w.py:s"\n')
    assert result.warnings == ["a.md:1: include section not found: w.py:s"]


def test_remote_snippets_are_not_fetched(root: Path) -> None:
    result = run(root, "a.md", '--8<-- "https://example.com/x.md"\n')
    assert result.warnings == ["a.md:1: remote include not fetched: https://example.com/x.md"]


def test_relative_paths_base_dirs_and_root(root: Path) -> None:
    write(root, "docs/sub/near.md", "near\n")
    write(root, "snips/x.md", "from base\n")
    write(root, "x.md", "from root\n")
    doc = '--8<-- "./near.md"\n--8<-- "../sub/near.md"\n--8<-- "x.md"\n'
    result = run(root, "docs/sub/a.md", doc, base_dirs=[root / "snips"])
    assert result.text == "near\nnear\nfrom base\n"
    assert run(root, "docs/sub/b.md", '--8<-- "x.md"\n').text == "from root\n"


def test_nested_includes_and_warnings_name_the_nested_file(root: Path) -> None:
    write(root, "one.md", 'one\n  --8<-- "two.md"\n--8<-- "gone.md"\n')
    write(root, "two.md", "two\n")
    result = run(root, "a.md", 'top\n--8<-- "one.md"\n')
    assert rows(result) == [(1, "top"), (2, "one"), (2, "  two"), (2, '--8<-- "gone.md"')]
    assert result.warnings == ["one.md:3: include not found: gone.md"]
    assert [p.name for p in result.included_files] == ["one.md", "two.md"]


def test_cycles_are_detected(root: Path) -> None:
    write(root, "b.md", 'b\n--8<-- "a.md"\n')
    result = run(root, "a.md", 'a\n--8<-- "b.md"\n')
    assert result.text == 'a\nb\n--8<-- "a.md"\n'
    assert result.warnings == ["b.md:2: include cycle: a.md"]


def test_self_include_is_a_cycle(root: Path) -> None:
    result = run(root, "a.md", 'x\n--8<-- "a.md"\n')
    assert result.warnings == ["a.md:2: include cycle: a.md"]


def test_max_depth(root: Path) -> None:
    for k in range(5):
        write(root, f"d{k}.md", f'd{k}\n--8<-- "d{k + 1}.md"\n')
    write(root, "d5.md", "d5\n")
    assert run(root, "a.md", '--8<-- "d0.md"\n').text == "d0\nd1\nd2\nd3\nd4\nd5\n"
    result = run(root, "b.md", '--8<-- "d0.md"\n', max_depth=2)
    assert result.text == 'd0\nd1\n--8<-- "d2.md"\n'
    assert result.warnings == ["d1.md:2: include depth limit of 2 reached: d2.md"]


# -- confinement ---------------------------------------------------------------------


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every path the include code reads."""
    calls: list[Path] = []
    real = include_targets._load

    def spy(path: Path, max_bytes: int) -> object:
        calls.append(path)
        return real(path, max_bytes)

    monkeypatch.setattr(include_targets, "_load", spy)
    return calls


def test_paths_escaping_the_root_are_refused_unopened(tmp_path: Path, opened: list[Path]) -> None:
    root = tmp_path / "root"
    write(tmp_path, "secret.txt", "secret\n")
    doc = '--8<-- "../../etc/passwd"\n--8<-- "../secret.txt"\n{!../secret.txt!}\n--8<-- "/../secret.txt"\n'
    result = run(root, "docs/a.md", doc)
    assert result.text == doc
    assert all("include refused: path escapes the docs root" in w for w in result.warnings)
    assert result.warnings[0] == (
        "docs/a.md:1: include refused: path escapes the docs root: ../../etc/passwd"
    )
    assert len(result.warnings) == 4
    assert opened == []


def test_rst_literalinclude_escape_is_refused(tmp_path: Path, opened: list[Path]) -> None:
    root = tmp_path / "root"
    write(tmp_path, "secret.py", "x = 1\n")
    result = run(root, "a.rst", ".. literalinclude:: ../secret.py\n", fmt="rst")
    assert result.warnings == ["a.rst:1: include refused: path escapes the docs root: ../secret.py"]
    assert opened == []


def test_symlink_pointing_outside_is_refused(tmp_path: Path, opened: list[Path]) -> None:
    root = tmp_path / "root"
    outside = write(tmp_path, "outside/secret.md", "secret\n")
    root.mkdir()
    (root / "link.md").symlink_to(outside)
    (root / "linkdir").symlink_to(outside.parent, target_is_directory=True)
    result = run(root, "a.md", '--8<-- "link.md"\n--8<-- "linkdir/secret.md"\n')
    assert "secret" not in result.text.replace('secret.md"', "")
    assert len(result.warnings) == 2
    assert all("path escapes the docs root" in w for w in result.warnings)
    assert opened == []


def test_symlink_inside_the_root_is_followed(root: Path) -> None:
    (root / "alias.py").symlink_to(root / "src/ex.py")
    assert run(root, "a.md", '--8<-- "alias.py:inner"\n').text == "y = 2\n"


def test_base_dir_outside_root_is_allowed_when_given(tmp_path: Path) -> None:
    write(tmp_path, "shared/s.md", "shared\n")
    result = run(tmp_path / "root", "a.md", '--8<-- "s.md"\n', base_dirs=[tmp_path / "shared"])
    assert result.text == "shared\n"


# -- awkward targets -------------------------------------------------------------------


def test_binary_oversized_and_non_utf8_targets(root: Path) -> None:
    (root / "bin.dat").write_bytes(b"abc\0def")
    (root / "big.md").write_text("x" * 200)
    (root / "latin.md").write_bytes("caf\xe9\n".encode("latin-1"))
    doc = '--8<-- "bin.dat"\n--8<-- "big.md"\n--8<-- "latin.md"\n'
    result = run(root, "a.md", doc, max_bytes=100)
    assert result.text == '--8<-- "bin.dat"\n--8<-- "big.md"\ncaf\ufffd\n'
    assert result.warnings == [
        "a.md:1: include refused: binary file: bin.dat",
        "a.md:2: include refused: over the size cap of 100 bytes: big.md",
        "a.md:3: include is not valid UTF-8, decoded with replacements: latin.md",
    ]


def test_the_page_own_text_counts_toward_its_size_cap(root: Path) -> None:
    """A SQLAlchemy tour: changelog_14.rst (2.4 MB of its own) stored at 7.4 MB under the
    5 MB cap, which counted only what its includes pulled in."""
    (root / "part.md").write_text("p" * 39 + "\n")
    page = "x" * 50 + '\n--8<-- "part.md"\n'
    assert "p" * 39 in run(root, "a.md", page, max_bytes=200).text
    result = run(root, "a.md", page, max_bytes=100)  # 50 + 16 of its own, + 40 included > 100
    assert "p" * 39 not in result.text
    assert result.warnings == [
        "a.md:2: include refused: the page would grow over the size cap of 100 bytes: part.md"
    ]


def test_cache_reads_each_target_once(root: Path, opened: list[Path]) -> None:
    cache = IncludeCache()
    doc = '--8<-- "src/ex.py:inner"\n' * 50
    for name in ("a.md", "b.md"):
        result = run(root, name, doc, cache=cache)
        assert result.text == "y = 2\n" * 50
    assert opened == [(root / "src/ex.py").resolve()]


def test_crlf_and_no_trailing_newline(root: Path) -> None:
    result = run(root, "a.md", 'a\r\n--8<-- "src/ex.py:inner"\r\nb')
    assert result.text == "a\ny = 2\nb"
    assert result.line_map == [1, 2, 3]


def test_text_without_directives_is_untouched(root: Path) -> None:
    result = run(root, "a.md", "# Hi\n\ntext\n")
    assert result.text == "# Hi\n\ntext\n"
    assert result.line_map == [1, 2, 3]


# -- markdown-include ----------------------------------------------------------------


def test_markdown_include_alone_indented_and_inline(root: Path) -> None:
    write(root, "docs/b.md", "B1\nB2\n")
    doc = "- item\n\n    {!docs/b.md!}\n\nBefore {!docs/b.md!} after\n{!docs/b.md!lines=2}\n"
    result = run(root, "a.md", doc)
    assert rows(result) == [
        (1, "- item"),
        (2, ""),
        (3, "    B1"),
        (3, "    B2"),
        (4, ""),
        (5, "Before B1"),
        (5, "B2 after"),
        (6, "B2"),
    ]


def test_markdown_include_missing_keeps_text(root: Path) -> None:
    result = run(root, "a.md", "see {!nope.md!} here\n")
    assert result.text == "see {!nope.md!} here\n"
    assert result.warnings == ["a.md:1: include not found: nope.md"]


# -- Sphinx and MyST -------------------------------------------------------------------


def test_rst_literalinclude_renders_a_code_block(root: Path) -> None:
    doc = "Intro\n\n.. literalinclude:: src/ex.py\n   :lines: 1,3-4\n   :emphasize-lines: 2\n\nAfter\n"
    result = run(root, "a.rst", doc, fmt="rst")
    assert rows(result) == [
        (1, "Intro"),
        (2, ""),
        (3, ".. code-block:: python"),
        (3, ""),
        (3, "   import os"),
        (3, "   def f():"),
        (3, "       # --8<-- [start:body]"),
        (6, ""),
        (7, "After"),
    ]


def test_rst_literalinclude_options(root: Path) -> None:
    doc = (
        "  .. literalinclude:: ../src/ex.py\n"
        "     :language: py3\n"
        "     :start-after: [start:body]\n"
        "     :end-before: return\n"
        "     :dedent:\n"
        "     :caption: Body\n"
    )
    result = run(root, "docs/a.rst", doc, fmt="rst")
    assert result.text.split("\n") == [
        "  .. code-block:: py3",
        "     :caption: Body",
        "",
        "     x = 1",
        "     # --8<-- [start:inner]",
        "     y = 2",
        "     # --8<-- [end:inner]",
        "",
    ]


def test_rst_literalinclude_lines_open_ended_and_absolute_path(root: Path) -> None:
    write(root, "docs/conf.py", "")
    write(root, "docs/code/n.txt", "".join(f"n{k}\n" for k in range(1, 7)))
    doc = ".. literalinclude:: /code/n.txt\n   :lines: -2,5-\n"
    result = run(root, "docs/guide/a.rst", doc, fmt="rst")
    assert result.text == ".. code-block:: text\n\n   n1\n   n2\n   n5\n   n6\n"


def test_rst_literalinclude_pyobject(root: Path) -> None:
    write(root, "m.py", "x = 1\n\nclass A:\n    @property\n    def g(self):\n        return 1\n")
    result = run(root, "a.rst", ".. literalinclude:: m.py\n   :pyobject: A.g\n", fmt="rst")
    assert result.text == (
        ".. code-block:: python\n\n       @property\n       def g(self):\n           return 1\n"
    )


def test_rst_literalinclude_bad_options_warn(root: Path) -> None:
    doc = ".. literalinclude:: src/ex.py\n   :start-after: NOPE\n"
    result = run(root, "a.rst", doc, fmt="rst")
    assert result.text == doc
    assert result.warnings == ["a.rst:1: literalinclude src/ex.py: start-after pattern not found: 'NOPE'"]


def test_rst_include_of_a_document(root: Path) -> None:
    write(root, "docs/part.rst", "Part\n----\n\n.. literalinclude:: ../src/ex.py\n   :lines: 1\n")
    result = run(root, "docs/index.rst", "Top\n\n.. include:: part.rst\n", fmt="rst")
    assert result.text == "Top\n\nPart\n----\n\n.. code-block:: python\n\n   import os\n"
    assert result.line_map == [1, 2, 3, 3, 3, 3, 3, 3]


def test_rst_directive_with_a_space_before_its_colons(root: Path) -> None:
    # docutils allows one space between a directive's name and "::" (portalocker's index.rst:
    # `.. include :: ../README.rst`, which Sphinx renders, was left as text)
    write(root, "docs/part.rst", "Part\n----\n\n.. literalinclude :: ../src/ex.py\n   :lines: 1\n")
    result = run(root, "docs/index.rst", "Top\n\n.. include :: part.rst\n", fmt="rst")
    assert result.text == "Top\n\nPart\n----\n\n.. code-block:: python\n\n   import os\n"


def test_rst_standard_include_is_left_alone(root: Path) -> None:
    doc = ".. include:: <isonum.txt>\n"
    result = run(root, "a.rst", doc, fmt="rst")
    assert (result.text, result.warnings) == (doc, [])


def test_rst_directives_are_ignored_in_plain_markdown(root: Path) -> None:
    doc = ".. literalinclude:: src/ex.py\n"
    assert run(root, "a.md", doc).text == doc


def test_myst_literalinclude_fence(root: Path) -> None:
    write(root, "docs/tick.md", "````\ncode\n````\n")
    doc = "```{literalinclude} ../src/ex.ts\n:lines: 2\n```\n- item\n\n  ```{literalinclude} tick.md\n  ```\n"
    result = run(root, "docs/a.md", doc)
    assert rows(result) == [
        (1, "```typescript"),
        (1, 'import * as lancedb from "@lancedb/lancedb";'),
        (1, "```"),
        (4, "- item"),
        (5, ""),
        (6, "  `````markdown"),
        (6, "  ````"),
        (6, "  code"),
        (6, "  ````"),
        (6, "  `````"),
    ]


def test_myst_option_values_are_read_as_yaml_strings(root: Path) -> None:
    """attrs: ``:start-after: 'teaser-begin -->'``: MyST reads the value as YAML, quotes
    and all; a reST directive keeps its quotes, as Sphinx does."""
    write(root, "docs/readme.md", "Title\n<!-- teaser-begin -->\nThe teaser.\n<!-- teaser-end -->\nMore.\n")
    doc = "```{include} readme.md\n:start-after: '<!-- teaser-begin -->'\n:end-before: \"<!-- teaser-end -->\"\n```\n"
    result = run(root, "docs/a.md", doc)
    assert rows(result) == [(1, "The teaser.")] and result.warnings == []


def test_myst_include_and_eval_rst(root: Path) -> None:
    write(root, "docs/part.md", "Part\n")
    doc = (
        "```{include} part.md\n```\n"
        "```{eval-rst}\n.. literalinclude:: ../src/ex.py\n   :lines: 1\n```\n"
        ".. literalinclude:: ../src/ex.py\n"
    )
    result = run(root, "docs/a.md", doc)
    assert rows(result) == [
        (1, "Part"),
        (3, "```{eval-rst}"),
        (4, ".. code-block:: python"),
        (4, ""),
        (4, "   import os"),
        (6, "```"),
        (7, ".. literalinclude:: ../src/ex.py"),
    ]


# -- markdown-include-variants and mdx_include (FastAPI, SQLModel, Typer) ----------------

APP = "".join(f"line{k} = {k}\n" for k in range(1, 11))  # ten lines of Python


@pytest.fixture
def fastapi(tmp_path: Path) -> Path:
    """FastAPI's layout: mkdocs.yml in docs/en, pages in docs/en/docs, code in docs_src."""
    write(
        tmp_path, "docs/en/mkdocs.yml", "markdown_extensions:\n  mdx_include:\n  markdown_include_variants:\n"
    )
    write(tmp_path, "docs_src/first_steps/tutorial001.py", APP)
    return tmp_path


def test_variants_whole_file_is_a_fence_mapped_to_the_directive(fastapi: Path) -> None:
    doc = "Intro\n\n{* ../../docs_src/first_steps/tutorial001.py hl[3] *}\n\nOutro\n"
    result = run(fastapi, "docs/en/docs/tutorial/first-steps.md", doc)
    code = [(3, f"line{k} = {k}") for k in range(1, 11)]
    assert rows(result) == [(1, "Intro"), (2, ""), (3, "```python"), *code, (3, "```"), (4, ""), (5, "Outro")]
    assert result.warnings == []
    assert result.included_files == [(fastapi / "docs_src/first_steps/tutorial001.py").resolve()]


def test_variants_ln_ranges_follow_the_plugin(fastapi: Path) -> None:
    """Ranges are sorted, 1-based and inclusive; omitted code is marked as the plugin does."""
    page = "docs/en/docs/a.md"
    result = run(fastapi, page, "{* ../../docs_src/first_steps/tutorial001.py ln[7,3:4] hl[3] *}\n")
    assert result.text.split("\n") == [
        "```python",
        "# Code above omitted 👆",
        "",
        "line3 = 3",
        "line4 = 4",
        "",
        "# Code here omitted 👈",
        "",
        "line7 = 7",
        "",
        "# Code below omitted 👇",
        "```",
        "",
    ]
    assert result.line_map == [1] * 12
    first = run(fastapi, page, "{* ../../docs_src/first_steps/tutorial001.py ln[1:2] *}\n")
    assert first.text == "```python\nline1 = 1\nline2 = 2\n\n# Code below omitted 👇\n```\n"
    last = run(fastapi, page, "{* ../../docs_src/first_steps/tutorial001.py ln[9:10] *}\n")
    assert last.text == "```python\n# Code above omitted 👆\n\nline9 = 9\nline10 = 10\n```\n"
    whole = run(fastapi, page, "{* ../../docs_src/first_steps/tutorial001.py ln[0] *}\n")
    assert whole.text == "```python\n" + APP + "```\n"


@pytest.mark.parametrize(
    ("name", "language"),
    [
        ("app.py", "python"),
        ("app.ts", "typescript"),
        ("app.tsx", "tsx"),
        ("app.js", "javascript"),
        ("conf.json", "json"),
        ("pyproject.toml", "toml"),
        ("compose.yaml", "yaml"),
        ("run.sh", "bash"),
        ("part.md", "markdown"),
        ("notes.unknown", "text"),
    ],
)
def test_variants_language_from_the_extension(tmp_path: Path, name: str, language: str) -> None:
    write(tmp_path, f"docs_src/{name}", "x\n")
    result = run(tmp_path, "docs/a.md", "{* ../docs_src/" + name + " *}\n")
    assert result.text == f"```{language}\nx\n```\n"


def test_variants_highlight_title_spacing_and_indent(fastapi: Path) -> None:
    """``hl`` (any content) and ``title`` only style the block; spaces are optional; an
    indented directive stays in its list item or tab."""
    doc = (
        '{*../../docs_src/first_steps/tutorial001.py   hl[1:3, 9, oops] title["app.py"] ln[2]*}\n'
        "- item\n"
        "\n"
        "    {* ../../docs_src/first_steps/tutorial001.py ln[10] *}\n"
    )
    result = run(fastapi, "docs/en/docs/a.md", doc)
    assert rows(result) == [
        (1, "```python"),
        (1, "# Code above omitted 👆"),
        (1, ""),
        (1, "line2 = 2"),
        (1, ""),
        (1, "# Code below omitted 👇"),
        (1, "```"),
        (2, "- item"),
        (3, ""),
        (4, "    ```python"),
        (4, "    # Code above omitted 👆"),
        (4, ""),
        (4, "    line10 = 10"),
        (4, "    ```"),
    ]
    assert result.warnings == []


def test_variants_resolve_against_the_mkdocs_folder_first(tmp_path: Path) -> None:
    """Typer's layout: mkdocs.yml at the top, ``{* docs_src/… *}`` from pages anywhere below."""
    write(tmp_path, "mkdocs.yml", "site_name: T\n")
    write(tmp_path, "docs_src/app.py", "top = 1\n")
    write(tmp_path, "docs/tutorial/docs_src/app.py", "beside = 1\n")  # next to the page: not it
    result = run(tmp_path, "docs/tutorial/a.md", "{* docs_src/app.py *}\n")
    assert result.text == "```python\ntop = 1\n```\n"
    # Without an mkdocs.yml at or above the page, the page's folder is where paths start.
    write(tmp_path, "other/docs_src/app.py", "beside = 2\n")
    (tmp_path / "mkdocs.yml").unlink()
    result = run(tmp_path, "other/a.md", "{* docs_src/app.py *}\n")
    assert result.text == "```python\nbeside = 2\n```\n"


def test_variants_and_mdx_paths_escaping_the_root_are_refused_unopened(
    tmp_path: Path, opened: list[Path]
) -> None:
    root = tmp_path / "root"
    write(tmp_path, "docs_src/app.py", "secret = 1\n")
    write(root, "mkdocs.yml", "site_name: x\n")
    doc = (
        "{* ../docs_src/app.py *}\n"
        "{!> ../docs_src/app.py !}\n"
        f"{{* {tmp_path}/docs_src/app.py *}}\n"
        f"{{!{tmp_path}/docs_src/app.py!}}\n"
        "{* ~/app.py *}\n"
    )
    result = run(root, "docs/a.md", doc)
    assert result.text == doc
    assert result.warnings == [
        "docs/a.md:1: include refused: path escapes the docs root: ../docs_src/app.py",
        "docs/a.md:2: include refused: path escapes the docs root: ../docs_src/app.py",
        f"docs/a.md:3: include refused: absolute path: {tmp_path}/docs_src/app.py",
        f"docs/a.md:4: include refused: absolute path: {tmp_path}/docs_src/app.py",
        "docs/a.md:5: include refused: absolute path: ~/app.py",
    ]
    assert opened == []


def test_variants_missing_binary_oversized_and_bad_ranges_warn(fastapi: Path) -> None:
    (fastapi / "docs_src/bin.py").write_bytes(b"x\0y")
    (fastapi / "docs_src/big.py").write_text("x" * 200)
    doc = (
        "{* ../../docs_src/missing.py ln[1:2] *}\n"
        "{* ../../docs_src/bin.py *}\n"
        "{* ../../docs_src/big.py *}\n"
        "{* ../../docs_src/first_steps/tutorial001.py ln[1:x] *}\n"
    )
    result = run(fastapi, "docs/en/docs/a.md", doc, max_bytes=100)
    assert result.text == doc
    assert result.warnings == [
        "docs/en/docs/a.md:1: include not found: ../../docs_src/missing.py",
        "docs/en/docs/a.md:2: include refused: binary file: ../../docs_src/bin.py",
        "docs/en/docs/a.md:3: include refused: over the size cap of 100 bytes: ../../docs_src/big.py",
        "docs/en/docs/a.md:4: include line range not understood: ln[1:x]: ../../docs_src/first_steps/tutorial001.py",
    ]


def test_variants_code_is_not_searched_for_includes(fastapi: Path) -> None:
    write(fastapi, "docs_src/snip.py", '# --8<-- "first_steps/tutorial001.py"\n# {!x.md!}\n')
    result = run(fastapi, "docs/en/docs/a.md", "{* ../../docs_src/snip.py *}\n")
    assert result.text == '```python\n# --8<-- "first_steps/tutorial001.py"\n# {!x.md!}\n```\n'
    assert result.warnings == []


@pytest.mark.parametrize(
    "directive",
    [
        "{!../../docs_src/first_steps/tutorial001.py!}",
        "{! ../../docs_src/first_steps/tutorial001.py !}",
        "{!>../../docs_src/first_steps/tutorial001.py!}",
        "{!> ../../docs_src/first_steps/tutorial001.py!}",
        "{!> ../../docs_src/first_steps/tutorial001.py !}",
        "{!+ ../../docs_src/first_steps/tutorial001.py !}",
        "{!-> ../../docs_src/first_steps/tutorial001.py !}",
        "{! ../../docs_src/first_steps/tutorial001.py | utf-8 !}",
    ],
)
def test_mdx_include_forms(fastapi: Path, directive: str) -> None:
    """``{!…!}`` in mdx_include's forms, resolved against the mkdocs.yml folder (docs/en)."""
    doc = f'```Python hl_lines="3"\n{directive}\n```\n'
    result = run(fastapi, "docs/en/docs/tutorial/a.md", doc)
    assert result.text == '```Python hl_lines="3"\n' + APP + "```\n"
    assert result.line_map == [1] + [2] * 10 + [3]
    assert result.warnings == []


def test_mdx_apply_indent_repeats_what_precedes_the_directive(root: Path) -> None:
    """mdx_include's ``>``: the text before ``{!>`` starts every included line; without it,
    only the first (an include alone on an indented line is indented as a whole, as before)."""
    write(root, "b.md", "B1\n\nB2\n")
    doc = '> {!> b.md !}\n> {! b.md !}\n=== "Tab"\n\n    {!> b.md !}\n'
    assert rows(run(root, "a.md", doc)) == [
        (1, "> B1"),
        (1, "> "),
        (1, "> B2"),
        (2, "> B1"),
        (2, ""),
        (2, "B2"),
        (3, '=== "Tab"'),
        (4, ""),
        (5, "    B1"),
        (5, ""),
        (5, "    B2"),
    ]


def test_mdx_include_uses_the_mkdocs_base_path(tmp_path: Path) -> None:
    """FastAPI's older setup: ``mdx_include: base_path: docs`` in docs/en/mkdocs.yml, pages
    writing ``{!../../../docs_src/…!}`` relative to docs/en/docs."""
    write(tmp_path, "docs/en/mkdocs.yml", "markdown_extensions:\n  - mdx_include:\n      base_path: docs\n")
    write(tmp_path, "docs_src/body/tutorial001.py", "body = 1\n")
    result = run(tmp_path, "docs/en/docs/tutorial/body.md", "{!../../../docs_src/body/tutorial001.py!}\n")
    assert (result.text, result.warnings) == ("body = 1\n", [])


def test_a_docs_folder_added_alone_reads_includes_from_its_mkdocs_project(tmp_path: Path) -> None:
    """Typer's layout, with ``docs/`` added rather than the project: its mkdocs.yml (one folder
    up, ``docs_dir`` the default ``docs``) makes the project folder a base, as MkDocs reads the
    includes from there. Nothing else above is read: not a folder the project's mkdocs.yml does
    not name as its docs, nor a file outside the project."""
    from docmentor.sources.local import mkdocs_project, scan_folder

    write(tmp_path, "typer/mkdocs.yml", "markdown_extensions:\n  - mdx_include:\n      base_path: docs\n")
    write(tmp_path, "typer/docs_src/app.py", "import typer\n")
    write(tmp_path, "typer/docs/options.md", "# Options\n\n{!../docs_src/app.py!}\n\n{!../../secret.txt!}\n")
    write(tmp_path, "secret.txt", "password\n")
    write(tmp_path, "typer/other/page.md", "# Page\n\n{!../docs_src/app.py!}\n")
    assert mkdocs_project(tmp_path / "typer" / "docs") == (tmp_path / "typer").resolve()
    assert mkdocs_project(tmp_path / "typer" / "other") is None
    scan = scan_folder(tmp_path / "typer" / "docs")
    (doc,) = scan.documents
    assert "import typer" in doc.content and "password" not in doc.content
    assert len(scan.warnings) == 1 and "secret.txt" in scan.warnings[0] and "escapes" in scan.warnings[0]
    other = scan_folder(tmp_path / "typer" / "other")
    assert "import typer" not in other.documents[0].content and "escapes" in other.warnings[0]
    write(tmp_path, "typer/mkdocs.yml", "docs_dir: site-docs\n")  # the project's docs are elsewhere
    assert mkdocs_project(tmp_path / "typer" / "docs") is None


def test_mdx_include_line_slices_follow_rcslice(root: Path) -> None:
    write(root, "n.txt", "".join(f"n{k}\n" for k in range(1, 7)))
    assert run(root, "a.md", "{! n.txt [ln:2-3] !}\n").text == "n2\nn3\n"
    assert run(root, "b.md", "{!n.txt[ln:5-]!}\n").text == "n5\nn6\n"
    assert run(root, "c.md", "{! n.txt [ln:e] !}\n").text == "n6\n"
    assert run(root, "d.md", "{! n.txt [ln:3-1] !}\n").text == "n3\nn2\nn1\n"
    assert run(root, "e.md", "{! n.txt [ln:1.2-1.4] !}\n").text == "n1\n"  # columns: whole rows
    sliced = run(root, "f.md", "x\n{! n.txt [ln:1,4-5] !}\n")
    assert rows(sliced) == [(1, "x"), (2, "n1"), (2, ""), (2, ""), (2, "n4"), (2, "n5")]
    bad = run(root, "g.md", "{! n.txt [ln:0-2] !}\n")
    assert bad.warnings == ["g.md:1: include line slice not understood: [ln:0-2]: n.txt"]


def test_mdx_escaped_remote_and_non_recursive_includes(root: Path) -> None:
    write(root, "inner.md", "inner\n")
    write(root, "outer.md", "{!inner.md!}\n")
    doc = "\\{! outer.md !}\n{!- outer.md !}\n{!+ outer.md !}\n{! https://example.com/x.md !}\n"
    result = run(root, "a.md", doc)
    assert result.text == "\\{! outer.md !}\n{!inner.md!}\ninner\n{! https://example.com/x.md !}\n"
    assert result.warnings == ["a.md:4: remote include not fetched: https://example.com/x.md"]


def test_mdx_and_variants_through_a_folder_scan(fastapi: Path) -> None:
    from docmentor.sources.local import scan_folder

    write(
        fastapi,
        "docs/en/docs/index.md",
        "# Hi\n\n{* ../../docs_src/first_steps/tutorial001.py ln[2] *}\nEnd\n",
    )
    scan = scan_folder(fastapi)
    (doc,) = [d for d in scan.documents if d.path == "docs/en/docs/index.md"]
    assert "line2 = 2" in doc.content and "line3 = 3" not in doc.content
    assert doc.line_map == [1, 2, 3, 3, 3, 3, 3, 3, 3, 4]
    assert scan.warnings == []


@pytest.mark.parametrize(
    "line",
    [
        "{* " * 33_334,
        "{* " * 33_334 + "*}",
        "{* x " + "ln[" * 33_333 + " *}",
        "{* x " + "ln[1:" * 20_000 + " *}",
        "{! " * 33_334,
        "{!" + "a" * 100_000,
        "{!a" * 33_334 + "!}",
        "{!x!lines=" + "1 " * 50_000,
        "\\{!" * 33_334,
    ],
)
def test_pathological_lines_take_linear_time(tmp_path: Path, line: str) -> None:
    import time

    start = time.perf_counter()
    result = run(tmp_path, "a.md", line + "\n")
    assert time.perf_counter() - start < 0.5
    assert len(result.line_map) >= 1


def test_a_pages_own_section_markers_are_dropped(root: Path) -> None:
    """A snippet file indexed as a page of its own keeps no ``--8<-- [start:x]`` line (as
    pymdownx.snippets renders it): no marker becomes a heading; an escaped one is text."""
    text = (
        "Intro.\n# --8<-- [start:part]\nThe part.\n<!-- --8<-- [end:part] -->\n;--8<-- [start:shown]\nEnd.\n"
    )
    result = run(root, "snippets/common.md", text)
    assert result.text == "Intro.\nThe part.\n--8<-- [start:shown]\nEnd.\n"
    assert result.line_map == [1, 3, 5, 6]  # what is left keeps its lines
    # prose that mentions a marker is prose: it stays, as written
    prose = "Mark it with `# --8<-- [start:name]` in the file.\nSee a; b ;--8<-- [start:x] here.\n"
    assert run(root, "guide.md", prose).text == prose


# -- mkdocs-include-markdown-plugin --------------------------------------------------------

README = """\
# humanize

<!-- index-start -->
Humanize numbers:

```python
>>> humanize.intcomma(12345)
'12,345'
```

## Usage

```jinja
Words {% include "nothing.md" %} in a fence stay.
```
<!-- index-end -->

## License
MIT
"""


def test_include_markdown_between_delimiters_on_several_lines(tmp_path: Path) -> None:
    """humanize's docs/index.md: the README's part between two HTML comments, the tag written
    over several lines; the text around a one-line tag stays, and heading-offset deepens."""
    write(tmp_path, "README.md", README)
    doc = (
        "Intro.\n"
        "{%\n"
        '   include-markdown "../README.md"\n'
        '   start="<!-- index-start -->"\n'
        '   end="<!-- index-end -->"\n'
        "   comments=false\n"
        "%}\n"
        "Outro.\n"
    )
    result = resolve_includes(
        doc, path=write(tmp_path, "docs/index.md", doc), root=tmp_path / "docs", base_dirs=[tmp_path]
    )
    assert result.warnings == []
    body = result.text.split("\n")
    assert body[0] == "Intro." and body[-2] == "Outro."
    assert "Humanize numbers:" in body and "## Usage" in body and "## License" not in result.text
    # the tag's own text is inside a fence of the included part: it is not read as a tag
    assert 'Words {% include "nothing.md" %} in a fence stay.' in body
    assert rows(result)[1][0] == 2  # the included lines map to the tag's first line

    one = 'Before {% include-markdown "../README.md" start="## Usage" end="<!-- index-end -->" heading-offset=1 %} after\n'
    result = resolve_includes(
        one, path=write(tmp_path, "docs/one.md", one), root=tmp_path / "docs", base_dirs=[tmp_path]
    )
    assert result.text.startswith("Before \n\n```jinja\nWords ") and result.text.endswith("```\n after\n")


def test_include_directive_offsets_dedent_and_a_tag_that_is_no_include(tmp_path: Path) -> None:
    """./ and ../ paths start at the page's folder, others at docs_dir; heading-offset and
    dedent apply after the included file's own includes; a second tag on a line is read, and
    a %} inside a quoted argument does not close the tag."""
    write(tmp_path, "docs/guide/parts/code.py", "    def f():\n        return 1\n")
    write(tmp_path, "docs/guide/parts/page.md", '# Part\n\n{% include-markdown "./deeper.md" %}\n')
    write(tmp_path, "docs/guide/parts/deeper.md", "# Deeper\n")
    write(tmp_path, "docs/includes/abbr.md", "*[HTML]: Hyper Text\n")
    write(tmp_path, "docs/includes/b.md", "B")
    doc = (
        "- item\n"
        '  {% include "./parts/code.py" dedent=true %}\n'
        '{% include-markdown "./parts/page.md" heading-offset=2 %}\n'
        '{% include-markdown "includes/abbr.md" %}\n'
        'A{% include "includes/b.md" %}-{% include "includes/b.md" start="%}" %}C\n'
        "{% if user %}Hello{% endif %}\n"
        '{% if a %}{% include "includes/b.md" %}{% endif %}\n'
        "```jinja\n"
        '{% include "./parts/page.md" %}\n'
        "```\n"
    )
    result = resolve_includes(doc, path=write(tmp_path, "docs/guide/a.md", doc), root=tmp_path / "docs")
    assert result.warnings == ['guide/a.md:5: include includes/b.md: start="%}" not found']
    lines = result.text.split("\n")
    assert lines[:7] == [
        "- item",
        "  def f():",
        "      return 1",
        "### Part",
        "",
        "### Deeper",
        "*[HTML]: Hyper Text",
    ]
    assert lines[7] == "AB-C"  # the second tag read too (its start is not found: nothing)
    # no mkdocs.yml enables the plugin: a tag in a code block is the block's text
    assert "{% if user %}Hello{% endif %}\n{% if a %}B{% endif %}\n```jinja\n" in result.text
    assert '```jinja\n{% include "./parts/page.md" %}\n```\n' in result.text


def test_with_the_plugin_enabled_a_tag_in_a_code_block_includes_the_file(tmp_path: Path) -> None:
    """The plugin's own example: a ```yaml block whose only line includes a file; its
    mkdocs.yml's docs_dir is where bare paths start."""
    write(
        tmp_path,
        "mkdocs.yml",
        "site_name: x\ndocs_dir: pages\nplugins:\n  - search\n  - include-markdown:\n      comments: false\n",
    )
    write(tmp_path, "examples/ci.yml", "on: push\n")
    write(tmp_path, "pages/snippets/x.md", "shared words\n")
    doc = '```yaml\n{% include "../examples/ci.yml" %}\n```\n\n{% include-markdown "snippets/x.md" %}\n'
    result = resolve_includes(doc, path=write(tmp_path, "pages/a.md", doc), root=tmp_path)
    assert result.warnings == []
    assert result.text == "```yaml\non: push\n```\n\nshared words\n"


def test_include_markdown_refusals_and_missing_delimiters_warn(tmp_path: Path, opened: list[Path]) -> None:
    root = tmp_path / "root"
    write(tmp_path, "secret.md", "secret\n")
    write(root, "docs/part.md", "alpha\nbeta E gamma\n")
    doc = (
        '{% include-markdown "../../secret.md" %}\n'
        f'{{% include "{tmp_path}/secret.md" %}}\n'
        '{% include-markdown "https://example.com/x.md" %}\n'
        '{% include-markdown "*.md" %}\n'
        '{% include-markdown "./missing.md" %}\n'
        '{% include-markdown "./part.md" start="<!-- no -->" %}\n'
        '{% include-markdown "./part.md" start="<!-- no -->" end="E" %}\n'
        '{% include-markdown "./part.md" start="alpha" end="<!-- no -->" %}\n'
        '{% include-markdown "./part.md"\n'
    )
    result = run(root, "docs/a.md", doc)
    assert result.warnings == [
        "docs/a.md:1: include refused: path escapes the docs root: ../../secret.md",
        f"docs/a.md:2: include refused: absolute path: {tmp_path}/secret.md",
        "docs/a.md:3: remote include not fetched: https://example.com/x.md",
        "docs/a.md:4: include of several files (a glob) not expanded: *.md",
        "docs/a.md:5: include not found: ./missing.md",
        'docs/a.md:6: include-markdown ./part.md: start="<!-- no -->" not found',
        'docs/a.md:7: include-markdown ./part.md: start="<!-- no -->" not found',
        'docs/a.md:8: include-markdown ./part.md: end="<!-- no -->" not found',
    ]
    lines = result.text.split("\n")
    assert lines[:5] == doc.split("\n")[:5]  # refused or missing: left as written
    assert lines[5] == ""  # a start alone not found includes nothing, as the plugin does
    assert lines[6:8] == ["alpha", "beta "]  # with an end, the text before it (the plugin's rule)
    assert lines[8:10] == ["", "beta E gamma"]  # after the start, to the end of the file
    assert lines[10] == '{% include-markdown "./part.md"'  # never closed: text
    assert all(p.name == "part.md" for p in opened)


def test_an_included_code_block_belongs_to_its_included_section(tmp_path: Path) -> None:
    """A humanize tour: every example of its README, pulled into docs/index.md, was titled
    "Localization" (the page's last heading starting at the include's line, to which all the
    included lines map). A code block belongs to the section it is in, in the served text."""
    from docmentor.engine import Docmentor
    from docmentor.store.docs import code_blocks, documents_by_path

    write(
        tmp_path,
        "README.md",
        "# Pkg\n\n<!-- s -->\n## Numbers\n\n```python\nintcomma(1)\n```\n\n## Dates\n\n```python\nnaturalday(d)\n```\n<!-- e -->\n",
    )
    write(
        tmp_path,
        "docs/index.md",
        '# Pkg\n\nIntro.\n\n{% include-markdown "../README.md" start="<!-- s -->" end="<!-- e -->" %}\n',
    )
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    try:
        engine.add(str(tmp_path / "docs"), name="d", options={"base_paths": [str(tmp_path)]})
        (doc,) = documents_by_path(engine.store, "d")
        blocks = {b.code.strip(): b.heading_path[-1] for b in code_blocks(engine.store, doc.id)}
    finally:
        engine.close()
    assert blocks == {"intcomma(1)": "Numbers", "naturalday(d)": "Dates"}


# -- VitePress `<<<` code snippets -------------------------------------------------------------


def test_vitepress_code_snippets_are_code_blocks_of_their_file(root: Path) -> None:
    """A Vite tour: `<<< ./static-deploy-github-pages.yaml#content [.github/workflows/deploy.yml]`
    (VitePress' code snippet import) was shown raw, and the workflow could not be found. The
    file, or its `#region` (VitePress' marker comments, which are left out), becomes a code
    block in its language (or the one `{…}` names), where the line was; `@/` is the docs
    root, any other path is the page's folder's. A `<<<` in a code block is code."""
    write(
        root,
        "docs/guide/deploy.yaml",
        "# header\n#region content\nname: Deploy\non:\n  push: {}\n#endregion content\n# footer\n",
    )
    write(
        root, "snippets/app.js", "// #region setup\nconst app = 1\n// #endregion setup\nexport default app\n"
    )
    page = (
        "# Deploy\n\n1. Add the workflow:\n\n   <<< ./deploy.yaml#content [.github/workflows/deploy.yml]\n\n"
        "<<< @/snippets/app.js{2 ts:line-numbers}\n\n"
        "```md\n<<< @/snippets/app.js\n```\n\n<<< ./missing.js\n\n<<< ../../../outside.js\n"
    )
    result = run(root, "docs/guide/deploy.md", page)
    text = result.text
    assert "   ```yaml\n   name: Deploy\n   on:\n     push: {}\n   ```\n" in text, text
    assert "# header" not in text and "#region content" not in text and "# footer" not in text
    assert "```ts\n// #region setup\nconst app = 1\n// #endregion setup\nexport default app\n```" in text, (
        text
    )
    assert "```md\n<<< @/snippets/app.js\n```" in text  # shown as code, not read
    assert "<<< ./missing.js" in text and "<<< ../../../outside.js" in text  # kept, with warnings
    assert any("missing.js" in w for w in result.warnings)
    assert any("outside.js" in w and "refused" in w for w in result.warnings)
    assert [n for n, line in rows(result) if line == "name: Deploy".rjust(15)] == [5]


def test_vitepress_markdown_file_inclusion(root: Path) -> None:
    """A Vitest tour: `<!--@include: ./cli-generated.md-->` (VitePress' Markdown file
    inclusion) was shown raw in `guide/cli.md`, its options only found in the partial. As
    VitePress reads it (src/node/markdown/plugins/include.ts): the file's text (front matter
    left out, its own includes read), or its `#region`, else the section under the heading of
    that anchor, then lines `{a,b}` of that (1-based, inclusive; a range alone counts the
    front matter); `@/` and `@` are the root; spaces around `@include:`; in a code block too;
    a missing file, region or heading, a range out of bounds, an escaping path or a cycle
    leave the line, with a warning."""
    write(root, "docs/guide/cli-generated.md", "---\ntitle: x\n---\n### --coverage\n\nEnable coverage.\n")
    write(
        root,
        "docs/parts/basics.md",
        "Intro line.\n<!-- #region usage -->\nLine 1\nLine 2\nLine 3\n<!-- #endregion usage -->\nOutro.\n"
        "<!--@include: ./nested.md-->\n\n## Setup {#set-up}\n\nSet up.\n\n### Deeper\n\nDeep.\n\n"
        "## Next Steps\n\nNext.\n",
    )
    write(root, "docs/parts/nested.md", "Nested text.\n")
    # an MDX page's front matter is left out too (a tour: its closing `---` made a heading)
    write(root, "docs/parts/setup.mdx", "---\ntitle: Installing\nsidebar_position: 1\n---\nInstall it.\n")
    write(root, "docs/parts/loop.md", "<!--@include: ./loop.md-->\n")
    write(
        root, "docs/snippets/example.js", "// #region a.b\nconst a = 1\n// #endregion a.b\nexport default a\n"
    )
    page = (
        "# CLI\n\n## Options\n\n<!--@include: ./cli-generated.md-->\n\n"
        "<!--@include: @/docs/parts/basics.md#usage{2,}-->\n\n"
        "  <!-- @include: ../parts/basics.md{,1} -->\n\n"
        "<!--@include: ../parts/basics.md{7-8}-->\n\n"
        "<!--@include: ./cli-generated.md{4,4}-->\n\n"
        "<!--@include: ../parts/basics.md#set-up-->\n\n<!--@include: ../parts/basics.md#next-steps-->\n\n"
        "```js\n<!--@include: @docs/snippets/example.js#a.b-->\n```\n\n"
        "<!--@include: ../parts/setup.mdx-->\n\n"
        "<!--@include: ./missing.md-->\n<!--@include: ../parts/basics.md#nope-->\n"
        "<!--@include: ../parts/basics.md{5,99}-->\n"
        "<!--@include: ../../../outside.md-->\n<!--@include: ../parts/loop.md-->\n"
    )
    result = run(root, "docs/guide/cli.md", page)
    text = result.text
    assert "## Options\n\n### --coverage\n\nEnable coverage.\n\nLine 2\nLine 3\n\n  Intro line.\n" in text, (
        text
    )
    assert "title: x" not in text and "#region" not in text
    assert "Install it.\n" in text and "sidebar_position" not in text and "title: Installing" not in text
    assert "\n\nOutro.\nNested text.\n" in text, text  # lines 7-8: its own include read
    assert "\n\n### --coverage\n\n" in text.split("Nested text.")[1]  # line 4 counts the front matter
    assert "\nSet up.\n\n### Deeper\n\nDeep.\n\n\n" in text and "Next.\n" in text, text  # heading sections
    assert "```js\nconst a = 1\n```" in text, text  # in a code block too, as VitePress does
    for kept in ("./missing.md-->", "#nope-->", "{5,99}-->", "outside.md-->"):
        assert kept in text
    assert any("missing.md" in w for w in result.warnings)
    assert any("region or heading not found: #nope" in w for w in result.warnings)
    assert any("{5,99} is out of bounds" in w for w in result.warnings)
    assert any("outside.md" in w and "refused" in w for w in result.warnings)
    assert any("cycle" in w for w in result.warnings)


def test_terminal_colours_are_left_out_of_pages_and_included_output(tmp_path: Path) -> None:
    """The Vitest tour: `<<< ./snippets/run.ansi` pasted a test run's colour codes, and
    snippets and `get` showed `\\x1b[32m✓\\x1b[39m`. A terminal's escape sequences (colours,
    links, charset switches) are no text of an included file or of a page."""
    from docmentor.engine import Docmentor

    esc = "\x1b"
    write(tmp_path, "docs/run.ansi", f" {esc}[32m✓{esc}[39m src/a.test.js {esc}[90m(3 tests){esc}[39m\n")
    write(
        tmp_path,
        "docs/guide.md",
        f"# Output\n\n<<< ./run.ansi\n\nPasted: {esc}[1mbold{esc}[22m {esc}]8;;https://x{esc}\\link{esc}]8;;{esc}\\ {esc}(Bend\n"
        f"\nA title {esc}]0;never closed\nPress {esc} then the rest.\n",
    )
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    try:
        engine.add(str(tmp_path / "docs"), name="d")
        page = engine.get("guide.md", source="d").content
        hits = engine.search("tests", limit=3)
    finally:
        engine.close()
    assert esc not in page, repr(page)
    assert "```text\n ✓ src/a.test.js (3 tests)\n```" in page, page
    assert "Pasted: bold link end" in page
    # an unclosed sequence ends with its line; a stray ESC takes nothing else with it
    assert "A title \nPress  then the rest.\n" in page, repr(page)
    assert hits and all(esc not in h.snippet and esc not in h.text for h in hits)


# -- MDX partials ----------------------------------------------------------------------------


def test_an_mdx_partial_a_page_imports_and_renders_is_included(root: Path) -> None:
    """A tRPC tour: three setup pages `import ImportAppRouter from
    '../../partials/_import-approuter.mdx'` and render `<ImportAppRouter />` (Docusaurus'
    way of sharing text); the step's section was empty. The partial's text (its front
    matter left out, its own partials read) stands where the component is rendered; a
    component in a code block, or one not imported from a Markdown file, is left alone."""
    write(root, "docs/partials/_router.mdx", "---\nid: x\n---\nImport your `AppRouter` type.\n\n<Inner />\n"
          "\nimport Inner from './_inner.md';\n")  # fmt: skip
    write(root, "docs/partials/_inner.md", "The inner text.\n")
    write(root, "docs/partials/_loop.mdx", "import Loop from './_loop.mdx';\n\n<Loop />\n")
    page = (
        "import ImportAppRouter from '../partials/_router.mdx';\nimport Tabs from '@theme/Tabs';\n"
        'import Loop from "../partials/_loop.mdx"\n\n# Setup\n\n## 2. Import your App Router\n\n'
        "<ImportAppRouter />\n\n```mdx\n<ImportAppRouter />\n```\n\n<Tabs />\n\n<Loop />\n"
    )
    result = run(root, "docs/client/setup.mdx", page)
    text = result.text
    assert "## 2. Import your App Router\n\nImport your `AppRouter` type.\n\nThe inner text.\n" in text, text
    assert "id: x" not in text
    assert "```mdx\n<ImportAppRouter />\n```" in text and "<Tabs />" in text
    assert any("cycle" in w for w in result.warnings), result.warnings
    assert [n for n, line in rows(result) if line == "The inner text."] == [9]


def test_review_partials_and_regions_as_the_site_reads_them(root: Path) -> None:
    """(review) a partial is resolved from the page's folder only, an import shown in a code
    block imports nothing, a long import line takes linear time; a region ends at a bare
    `#endregion` too, and nested regions' markers are left out."""
    import time

    write(root, "docs/_x.mdx", "Root partial, not the page's.\n")
    page = "import X from './_x.mdx';\n\n# Page\n\n<X />\n\n```mdx\nimport Y from './_y.mdx';\n```\n\n<Y />\n"
    write(root, "docs/sub/_y.mdx", "Never imported.\n")
    result = run(root, "docs/sub/page.mdx", page)
    assert "Root partial" not in result.text and "<X />" in result.text  # ./_x.mdx is not in docs/sub
    assert "Never imported" not in result.text and "<Y />" in result.text
    t = time.perf_counter()
    run(root, "docs/long.mdx", "import A from './a.md'" + " " * 100_000 + "x\n<br/>\n")
    assert time.perf_counter() - t < 1.0
    write(root, "snippets/a.ts", "// #region setup\nconst a = 1\n// #region inner\nconst b = 2\n// #endregion inner\n"
          "// #endregion\nconst secret = 3\n")  # fmt: skip
    text = run(root, "docs/r.md", "<<< @/snippets/a.ts#setup\n").text
    assert "const a = 1\nconst b = 2\n```" in text and "secret" not in text and "#endregion" not in text, text


def test_a_pasted_svg_is_a_picture_outside_code_and_source_inside(root: Path) -> None:
    svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">\n<text>Box</text>\n</svg>\n'
    write(root, "docs/images/diagram.excalidraw.svg", svg)
    page = (
        "Intro\n"
        '<div class="excalidraw">\n--8<-- "docs/images/diagram.excalidraw.svg"\n</div>\n'
        "{!docs/images/diagram.excalidraw.svg!}\n"
        '```xml\n--8<-- "docs/images/diagram.excalidraw.svg"\n```\n'
        "Outro\n"
    )
    result = run(root, "docs/a.md", page)
    assert rows(result) == [
        (1, "Intro"),
        (2, '<div class="excalidraw">'),
        (4, "</div>"),
        (6, "```xml"),
        (7, '<?xml version="1.0"?>'),
        (7, '<svg xmlns="http://www.w3.org/2000/svg">'),
        (7, "<text>Box</text>"),
        (7, "</svg>"),
        (8, "```"),
        (9, "Outro"),
    ]
    assert result.warnings == []  # a picture is no failure
