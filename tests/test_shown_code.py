"""Code as the rendered page shows it (a Vite tour: `import 'vite/client'` above twoslash's
`// ---cut---` was in 28 sections' words and snippets; a Redux Toolkit tour: Docusaurus'
`// highlight-start` in digests)."""

from __future__ import annotations

import time
from pathlib import Path

from docmentor import assemble_context
from docmentor.assemble.render import render_markdown
from docmentor.engine import Docmentor
from docmentor.parse.shown_code import code_as_shown


def test_twoslash_setup_flags_and_queries_are_not_shown() -> None:
    lines = ["import 'vite/client'", "// @noErrors", "// ---cut---", "import imgUrl from './img.png'",
             "// @errors: 2322", "const x: number = imgUrl", "//    ^?", "// ---cut-after---", "export {}"]  # fmt: skip
    assert code_as_shown("js twoslash [vite.config.js]", lines) == [
        "import imgUrl from './img.png'",
        "const x: number = imgUrl",
    ]
    # (review) `// @ts-expect-error` is a comment the page shows; twoslash's flags are a word
    shown = code_as_shown("ts twoslash", ["// @ts-expect-error", "const x: number = 'a'", "  // @errors: 1"])
    assert shown == ["// @ts-expect-error", "const x: number = 'a'", "  // @errors: 1"]
    # without twoslash in the info string, the same lines are code as written
    assert code_as_shown("js", lines) == lines


def test_magic_comments_and_notation_are_not_shown() -> None:
    lines = ["// highlight-next-line", "const a = 1", "  # highlight-start", "b = 2", "{/* highlight-end */}",
             "old() // [!code --]", "new() // [!code ++]", "<p>x</p> <!-- [!code focus] -->",
             "const s = '[!code ++]' + x"]  # fmt: skip
    assert code_as_shown("tsx", lines) == [
        "const a = 1", "b = 2", "old()", "new()", "<p>x</p>", "const s = '[!code ++]' + x"
    ]  # fmt: skip
    assert code_as_shown("py", ["# highlight this line", "x = 1"]) == ["# highlight this line", "x = 1"]


def test_material_code_annotation_markers_are_not_shown() -> None:
    """Material for MkDocs opens an annotation (listed under the block) from a marker at a
    line's end: `# (1)!`, `// (2)`; the site shows a bubble, not the comment (a tour: they stayed
    in snippets and digests). Only in the comments of the block's language (a review: Python's
    `size // (2)` is code); code that only looks alike stays."""
    python = ["app = FastAPI()  # (1)!", "half = size // (2)", "y = (3)", "print('(1)')", "z = g(2)  # (12)",
              "  # (5)", "n = 1  # (1234)", "x = 5 --(1)"]  # fmt: skip
    assert code_as_shown("python", python) == [
        "app = FastAPI()", "half = size // (2)", "y = (3)", "print('(1)')", "z = g(2)", "", "n = 1  # (1234)",
        "x = 5 --(1)",
    ]  # fmt: skip
    assert code_as_shown("ts", ["x = f(1) // (2)", "w = 1 /* (3) */", "c # (4)"]) == [
        "x = f(1)",
        "w = 1",
        "c # (4)",
    ]
    assert code_as_shown("html", ["<b>x</b> <!-- (4) -->"]) == ["<b>x</b>"]
    assert code_as_shown("sql", ["SELECT 1 -- (1)"]) == ["SELECT 1"]
    assert code_as_shown("{.yaml .annotate}", ["site_name: x  # (1)!"]) == ["site_name: x"]
    assert code_as_shown("brainfuck", ["+  # (1)"]) == ["+  # (1)"]  # a language not known: as written


def test_rustdoc_hidden_lines_are_not_shown() -> None:
    """mdBook and rustdoc hide a Rust block's `# ` lines (an mdBook tour: the guide's
    `#     println!("I am hidden! …")` was in its words and snippets)."""
    lines = ["# fn main() {", "let x = 5;", "#", "    # let hidden = 1;", "#[derive(Debug)]",
             "#![allow(unused)]", '##[doc = "x"]', "    ## not hidden", "# }"]  # fmt: skip
    shown = ["let x = 5;", "#[derive(Debug)]", "#![allow(unused)]", '#[doc = "x"]', "    # not hidden"]
    assert code_as_shown("rust", lines) == shown
    assert code_as_shown("rust,ignore", lines) == shown
    assert code_as_shown("Rust editable", lines) == shown
    # other languages' `# ` lines are comments the page shows
    assert code_as_shown("python", lines) == lines
    assert code_as_shown("rustc-output", lines) == lines


def test_long_lines_take_linear_time() -> None:
    from docmentor.parse.shown_code import may_hide_code

    t = time.perf_counter()
    may_hide_code(")" + " " * 200_000 + "x")  # the quick test for a marker at a line's end
    assert time.perf_counter() - t < 1.0
    hostile = ["// " + "[!code " * 50_000, "#" + " " * 200_000 + "x", "// ---cut---" * 20_000,
               "x" + " " * 100_000 + "(1) y)", "# " + "(" * 100_000 + "1)", "(" + " \t" * 50_000 + ")"]  # fmt: skip
    t = time.perf_counter()
    code_as_shown("ts twoslash", hostile * 5)
    assert time.perf_counter() - t < 1.0


def test_search_snippets_digests_and_words_read_code_as_shown(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "assets.md").write_text(
        "# Assets\n\n## Importing an asset as a URL\n\nImport the image to get its public URL:\n\n"
        "```js twoslash\nimport 'vite/zebraclient'\n// ---cut---\nimport imgUrl from './img.png'\n"
        "// highlight-next-line\ndocument.getElementById('hero').src = imgUrl\n```\n"
    )
    (docs / "client.md").write_text("# Client types\n\nAdd `vite/zebraclient` to your types.\n")
    engine = Docmentor(tmp_path / "db", create=True, embeddings=False)
    engine.add(str(docs), name="docs")
    assert [h.path for h in engine.search("zebraclient")] == ["client.md"]  # hidden setup: no words
    (hit,) = [h for h in engine.search("image public URL imgUrl") if h.path == "assets.md"]
    assert "import imgUrl" in hit.snippet and "zebraclient" not in hit.snippet
    assert "highlight-next-line" not in hit.snippet and "---cut---" not in hit.snippet
    text = render_markdown(assemble_context(engine, "import an image as a URL", max_tokens=2000))
    assert "import imgUrl from './img.png'" in text and "zebraclient" not in text
    assert "highlight-next-line" not in text
    assert "// ---cut---" in engine.get("assets.md").content  # `get` gives the page as written
