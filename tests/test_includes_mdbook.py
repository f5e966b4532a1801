"""mdBook's ``{{#include}}`` family, and a book's ``SUMMARY.md`` kept out of search.

Each book is built in the test (a ``book.toml``, chapters under ``src/``, listings beside it,
as the Rust book lays them out); what each form shows follows mdBook's links preprocessor.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.parse.toc import table_of_contents
from docmentor.sources.includes import IncludeResult, resolve_includes
from docmentor.sources.mdbook_includes import find_links, shown

MAIN_RS = textwrap.dedent(
    """\
    // ANCHOR: all
    use std::io;
    // ANCHOR: read
    fn main() {
        let mut guess = String::new();
        io::stdin().read_line(&mut guess).expect("Failed to read line");
    // ANCHOR_END: read
        println!("You guessed: {guess}");
    }
    // ANCHOR_END: all
    """
)


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def book(tmp_path: Path) -> Path:
    write(tmp_path, "book.toml", '[book]\ntitle = "Guessing"\n')
    write(tmp_path, "listings/ch02/src/main.rs", MAIN_RS)
    write(tmp_path, "listings/ch02/output.txt", "$ cargo run\n   Compiling guessing v0.1.0\nYou guessed: 5\n")
    return tmp_path


def expand(root: Path, rel: str, text: str, *, base: Path | None = None) -> IncludeResult:
    path = write(root, rel, text)
    return resolve_includes(text, path=path, root=root, base_dirs=[base] if base else [])


def lines(result: IncludeResult) -> list[str]:
    return result.text.splitlines()


# -- what each form shows ------------------------------------------------------------------


def test_include_in_a_code_block_shows_the_file_without_its_anchor_lines(book: Path) -> None:
    doc = "# Guess\n\n```rust\n{{#include ../listings/ch02/src/main.rs}}\n```\n"
    result = expand(book, "src/ch02.md", doc)
    assert result.warnings == []
    assert lines(result) == [
        "# Guess",
        "",
        "```rust",
        "use std::io;",
        "fn main() {",
        "    let mut guess = String::new();",
        '    io::stdin().read_line(&mut guess).expect("Failed to read line");',
        '    println!("You guessed: {guess}");',
        "}",
        "```",
    ]
    assert result.line_map[3:9] == [4] * 6  # included lines map to the directive's line
    assert result.included_files == [(book / "listings/ch02/src/main.rs").resolve()]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (":2", ["   Compiling guessing v0.1.0"]),  # one line
        (":2:3", ["   Compiling guessing v0.1.0", "You guessed: 5"]),  # 1-based, inclusive
        ("::2", ["$ cargo run", "   Compiling guessing v0.1.0"]),
        (":2:", ["   Compiling guessing v0.1.0", "You guessed: 5"]),
        (":0", ["$ cargo run"]),  # mdBook reads line 0 as line 1
        (":9", []),  # past the end: nothing
    ],
)
def test_line_ranges(book: Path, spec: str, expected: list[str]) -> None:
    doc = f"```console\n{{{{#include ../listings/ch02/output.txt{spec}}}}}\n```\n"
    assert lines(expand(book, "src/ch02.md", doc)) == ["```console", *(expected or [""]), "```"]


def test_an_anchor_shows_its_lines_and_a_rustdoc_include_hides_the_rest(book: Path) -> None:
    read = [
        "fn main() {",
        "    let mut guess = String::new();",
        '    io::stdin().read_line(&mut guess).expect("Failed to read line");',
    ]
    for form in ("include", "rustdoc_include"):
        doc = f"```rust\n{{{{#{form} ../listings/ch02/src/main.rs:read}}}}\n```\n"
        result = expand(book, "src/ch02.md", doc)
        assert lines(result) == ["```rust", *read, "```"], form
    # the whole `all` anchor, the nested anchor's marker lines left out
    doc = "```rust\n{{#rustdoc_include ../listings/ch02/src/main.rs:all}}\n```\n"
    assert "ANCHOR" not in expand(book, "src/ch02.md", doc).text


def test_a_rustdoc_include_shows_every_span_of_its_anchor_an_include_the_first() -> None:
    code = ["a", "// ANCHOR: x", "b", "// ANCHOR_END: x", "c", "// ANCHOR: x", "d", "// ANCHOR_END: x"]
    assert [code[k] for k in shown(code, "x") or []] == ["b"]
    assert [code[k] for k in shown(code, "x", every=True) or []] == ["b", "d"]
    assert shown(code, "missing") is None


def test_playground_title_and_escape(book: Path) -> None:
    write(book, "src/hello.rs", 'fn main() { println!("hi"); }\n')
    doc = (
        "{{#title Hello, Rust}}\n"
        "# Hello\n"
        "{{#playground hello.rs editable}}\n"
        "Write `\\{{#include file.rs}}` to include a file.\n"
    )
    assert lines(expand(book, "src/hello.md", doc)) == [
        "",  # the title is the browser's, not the page's
        "# Hello",
        "```rust,editable",
        'fn main() { println!("hi"); }',
        "```",
        "Write `{{#include file.rs}}` to include a file.",  # escaped: shown, not read
    ]


def test_the_text_before_an_expression_starts_every_line_it_adds(book: Path) -> None:
    """As mdBook does: an include in a list item keeps its lines in the item."""
    write(book, "src/steps.txt", "one\ntwo\n")
    doc = "- Steps: {{#include steps.txt}} (done)\n"
    assert lines(expand(book, "src/a.md", doc)) == ["- Steps: one", "- Steps: two (done)"]


def test_an_included_page_reads_its_own_includes_from_its_folder(book: Path) -> None:
    write(book, "src/shared/part.md", "Shared part\n\n{{#include note.txt}}\n")
    write(book, "src/shared/note.txt", "A note beside the part.\n")
    result = expand(book, "src/ch01.md", "# One\n\n{{#include shared/part.md}}\n")
    assert result.warnings == []
    assert lines(result) == ["# One", "", "Shared part", "", "A note beside the part."]


# -- bad input: a clear warning, the directive kept, nothing outside the root opened ------


def test_missing_file_escaping_and_absolute_paths_are_warned_and_left_as_written(book: Path) -> None:
    (book.parent / "secret.txt").write_text("TOP SECRET\n")
    doc = (
        "{{#include nowhere.rs}}\n"
        "{{#include ../../secret.txt}}\n"
        f"{{{{#include {book.parent / 'secret.txt'}}}}}\n"
        "{{#include https://example.com/a.rs}}\n"
    )
    result = expand(book, "src/a.md", doc)
    assert lines(result) == doc.splitlines()  # every directive stays as written
    assert "TOP SECRET" not in result.text
    said = "\n".join(result.warnings)
    assert "src/a.md:1: include not found: nowhere.rs" in said
    assert "src/a.md:2: include refused: path escapes the docs root: ../../secret.txt" in said
    assert "src/a.md:3: include refused: absolute path" in said
    assert "src/a.md:4: remote include not fetched" in said


def test_a_missing_anchor_shows_nothing_and_says_so(book: Path) -> None:
    result = expand(book, "src/a.md", "```rust\n{{#include ../listings/ch02/src/main.rs:nope}}\n```\n")
    assert lines(result) == ["```rust", "", "```"]
    assert result.warnings == ["src/a.md:2: include anchor not found: nope: ../listings/ch02/src/main.rs"]


def test_an_include_cycle_is_refused(book: Path) -> None:
    write(book, "src/b.md", "B\n{{#include a.md}}\n")
    result = expand(book, "src/a.md", "A\n{{#include b.md}}\n")
    assert lines(result) == ["A", "B", "{{#include a.md}}"]
    assert any("include cycle" in w for w in result.warnings)


def test_a_book_src_folder_added_alone_reads_listings_through_a_base_path(book: Path) -> None:
    """`add book/src --base-path book`: the root is src/, the listings are read from the base."""
    doc = "```rust\n{{#include ../listings/ch02/src/main.rs:read}}\n```\n"
    path = write(book, "src/ch02.md", doc)
    alone = resolve_includes(doc, path=path, root=book / "src")
    assert "{{#include" in alone.text and "escapes the docs root" in alone.warnings[0]
    based = resolve_includes(doc, path=path, root=book / "src", base_dirs=[book])
    assert "read_line" in based.text and based.warnings == []


def test_without_a_book_toml_code_blocks_are_left_alone(tmp_path: Path) -> None:
    """A page that shows mdBook's syntax in an example is not a book's: its code blocks keep
    the expression; outside code it is still read."""
    write(tmp_path, "docs/a.txt", "included\n")
    doc = "```md\n{{#include a.txt}}\n```\n\n{{#include a.txt}}\n"
    assert lines(expand(tmp_path, "docs/page.md", doc)) == [
        "```md",
        "{{#include a.txt}}",
        "```",
        "",
        "included",
    ]
    # a book.toml up to two folders above the folder added says it is a book's
    write(tmp_path, "book.toml", "[book]\n")
    assert "{{#include" not in expand(tmp_path / "docs", "page.md", doc).text


def test_vue_interpolation_does_not_stop_vitepress_snippets(tmp_path: Path) -> None:
    """``{{ x }}`` on a page is no mdBook expression, and the page's other forms still read."""
    write(tmp_path, "snippets/a.js", "export const a = 1\n")
    doc = "Count: {{ count }}\n\n<<< @/snippets/a.js\n"
    result = expand(tmp_path, "guide.md", doc)
    assert "export const a = 1" in result.text and "Count: {{ count }}" in result.text


@pytest.mark.parametrize(
    "line",
    [
        "\\{{#" * 12_000,
        "{{#include " * 4_400,
        "{{#include a" * 4_000 + "}",
        "{{" * 24_000,
        "{{ " + " " * 48_000,
        "{{#" + "a" * 48_000,
        "{{#include a} " * 3_400 + "}}",
    ],
)
def test_adversarial_lines_take_linear_time(tmp_path: Path, line: str) -> None:
    write(tmp_path, "book.toml", "")
    start = time.perf_counter()
    find_links(line)
    expand(tmp_path, "a.md", line + "\n")
    assert time.perf_counter() - start < 1.0


def test_a_line_of_many_expressions_takes_linear_time(book: Path) -> None:
    """(review) Each expression once copied the line built so far: 1.6 MB took 5.9 s."""
    write(book, "src/two.txt", "a\nb\n")
    start = time.perf_counter()
    result = expand(book, "src/a.md", ("y" * 20 + "{{#title a}}") * 50_000 + "\n")
    assert time.perf_counter() - start < 1.0
    assert result.text == "y" * 1_000_000 + "\n"
    # each two-line include repeats the line so far: the later ones would pass the size cap
    start = time.perf_counter()
    result = expand(book, "src/a.md", ("y" * 20 + "{{#include two.txt}}") * 2_000 + "\n")
    assert time.perf_counter() - start < 1.0
    assert "would grow over the size cap" in result.warnings[-1]


def test_the_repeated_text_before_an_expression_counts_toward_the_size_cap(book: Path) -> None:
    write(book, "src/many.txt", "x\n" * 1_000)
    doc = "p" * 20_000 + " {{#include many.txt}}\n"
    path = write(book, "src/a.md", doc)
    result = resolve_includes(doc, path=path, root=book, max_bytes=1_000_000)
    assert result.text == doc  # 20 MB of repeated text refused: the expression stays
    assert "would grow over the size cap" in result.warnings[0]


def test_included_text_reads_only_mdbook_expressions(book: Path) -> None:
    """(review) mdBook runs only its links preprocessor on what it includes: a template's
    `{% include %}` or a `{!…!}` in an included file is shown as written."""
    write(book, "src/nav.html", "<nav>NAV</nav>\n")
    write(book, "src/page.html", '<body>\n{% include "nav.html" %}\n{!nav.html!}\n</body>\n')
    result = expand(book, "src/a.md", "```html\n{{#include page.html}}\n```\n")
    assert lines(result)[1:5] == ["<body>", '{% include "nav.html" %}', "{!nav.html!}", "</body>"]


def test_without_a_book_toml_code_spans_are_left_alone(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.txt", "included\n")
    doc = "Write `{{#include a.txt}}` or ``{{#include file.rs}}``; {{#include a.txt}} here.\n"
    result = expand(tmp_path, "docs/page.md", doc)
    assert lines(result) == ["Write `{{#include a.txt}}` or ``{{#include file.rs}}``; included here."]
    assert result.warnings == []


def test_a_playground_path_takes_no_range_and_a_plus_sign_is_a_number(book: Path) -> None:
    write(book, "src/a.rs", "fn one() {}\nfn two() {}\n")
    result = expand(book, "src/a.md", "{{#playground a.rs:2}}\n{{#include a.rs:+2}}\n")
    assert lines(result) == ["{{#playground a.rs:2}}", "fn two() {}"]  # as mdBook: no file `a.rs:2`
    assert "include not found: a.rs:2" in result.warnings[0]


# -- SUMMARY.md: a table of contents --------------------------------------------------------

SUMMARY = textwrap.dedent(
    """\
    # Summary

    [Introduction](intro.md)

    - [Getting Started](ch01.md)
      - [Installation](ch01-01.md)
    - [Guessing Game](ch02.md)

    ---

    - [Appendix](appendix.md)
    - [Draft chapter]()
    """
)


def test_table_of_contents_is_a_page_of_links_and_nothing_else() -> None:
    assert table_of_contents(SUMMARY)
    assert table_of_contents("---\ntitle: API\n---\n\n## Classes\n\n" + "- [A](a.md)\n" * 5)
    assert table_of_contents("+++\ntitle = 'API'\n+++\n" + "- [A](a.md)\n" * 5)  # TOML front matter
    assert not table_of_contents("---\ntitle: x\n" + "- [A](a.md)\n" * 5 + "prose\n")  # never closed
    assert not table_of_contents(SUMMARY + "\nSome prose about the book.\n")
    assert not table_of_contents("- [A](a.md)\n- [B](b.md)\n")  # a short "see also" list
    assert not table_of_contents("- [A](a.md): what A does\n" * 6)  # links with words of their own
    # (review) a FAQ whose questions are headings, each answered by a link, says something
    assert not table_of_contents("## How do I retry?\n\n[Retries](retry.md)\n\n" * 6)
    start = time.perf_counter()
    table_of_contents("- [" + "[" * 48_000 + "\n" + "1" * 48_000 + "\n" + "- " * 24_000)
    assert time.perf_counter() - start < 1.0


def test_a_book_is_searched_with_its_listings_and_without_its_summary(book: Path) -> None:
    write(book, "src/SUMMARY.md", SUMMARY)
    write(
        book,
        "src/ch02.md",
        "# Guessing Game\n\n## Reading input\n\nThe program asks for a guess.\n\n"
        "```rust\n{{#rustdoc_include ../listings/ch02/src/main.rs:read}}\n```\n",
    )
    write(book, "src/intro.md", "# Introduction\n\nThis book teaches the guessing game.\n")
    engine = Docmentor(book / ".db", embeddings=False)
    try:
        engine.add(book / "src", name="book", options={"base_paths": [str(book)]})
        hits = engine.search("read_line stdin guess", source="book", limit=5)
        assert hits and hits[0].to_dict()["path"] == "ch02.md"
        assert all(h.to_dict()["path"] != "SUMMARY.md" for h in engine.search("Guessing Game", source="book"))
        page = engine.get("book:ch02.md")
        assert "io::stdin().read_line" in page.content
        assert "[Installation](ch01-01.md)" in engine.get("book:SUMMARY.md").content  # kept for `get`
    finally:
        engine.close()
