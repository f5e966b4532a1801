"""The local-folder source: walking, ignore rules, skips, MkDocs settings, a real corpus."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from docmentor.errors import SourceUnavailableError
from docmentor.models import RawDocument
from docmentor.sources.local import DOC_SUFFIXES, IGNORE_FILE, LocalScan, mkdocs_base_dirs, scan_folder

LANCEDB = Path(__file__).parent / "fixtures" / "lancedb"  # a slice of the LanceDB docs (NOTICE)
SNIPPET = re.compile(r"""^\s*-+8<-+\s+["'](?P<target>[^"']+)["']\s*$""")


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def paths(scan: LocalScan) -> list[str]:
    return [doc.path for doc in scan.documents]


def by_path(scan: LocalScan, rel: str) -> RawDocument:
    return next(doc for doc in scan.documents if doc.path == rel)


def test_walk_is_sorted_and_fills_the_fields(tmp_path: Path) -> None:
    for rel in ("b.md", "a/z.rst", "a/y.txt", "A.markdown", "c.mdx", "notes.py", "img.png"):
        write(tmp_path, rel, "# T\n")
    write(tmp_path, "UP.MD", "# Up\r\nline\r\n")
    scan = scan_folder(tmp_path)
    assert paths(scan) == ["A.markdown", "UP.MD", "a/y.txt", "a/z.rst", "b.md", "c.mdx"]
    assert [d.fmt for d in scan.documents] == ["markdown", "markdown", "text", "rst", "markdown", "markdown"]
    doc = by_path(scan, "a/z.rst")
    assert doc.url == (tmp_path.resolve() / "a/z.rst").as_uri()
    assert doc.url.startswith("file:///")
    assert (doc.content, doc.line_map, doc.warnings) == ("# T\n", None, [])
    assert by_path(scan, "UP.MD").content == "# Up\nline\n"
    assert (scan.skipped, scan.warnings) == ([], [])


def test_custom_suffixes(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "x")
    write(tmp_path, "b.adoc", "x")
    assert paths(scan_folder(tmp_path, suffixes=[".adoc"])) == ["b.adoc"]
    assert ".md" in DOC_SUFFIXES


def test_hidden_and_tool_folders_are_skipped(tmp_path: Path) -> None:
    for rel in (
        ".git/x.md", ".venv/x.md", ".hidden.md", "node_modules/p/README.md",
        "__pycache__/x.md", "lib/site-packages/p/x.md", "docs/_build/x.txt",
        "env/pyvenv.cfg", "env/lib/x.md", "docs/ok.md",
    ):  # fmt: skip
        write(tmp_path, rel, "x\n")
    assert paths(scan_folder(tmp_path)) == ["docs/ok.md"]


def test_gitignore_root_and_nested_with_relative_semantics(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "build/\n*.txt\n!keep.txt\n/top.md\n")
    write(tmp_path, "docs/.gitignore", "drafts/\nlocal.md\n!notes.txt\n")
    for rel in (
        "build/x.md", "docs/build/x.md", "a.txt", "keep.txt", "top.md", "docs/top.md",
        "docs/drafts/d.md", "drafts/d.md", "docs/local.md", "local.md", "docs/notes.txt",
        "docs/sub/local.md", "docs/ok.md",
    ):  # fmt: skip
        write(tmp_path, rel, "x\n")
    assert paths(scan_folder(tmp_path)) == [
        "docs/notes.txt",  # the nested file re-includes what the root file ignores
        "docs/ok.md",
        "docs/top.md",  # "/top.md" is anchored to the root
        "drafts/d.md",  # "drafts/" in docs/.gitignore applies below docs/ only
        "keep.txt",
        "local.md",
    ]
    everything = paths(scan_folder(tmp_path, use_gitignore=False))
    assert len(everything) == 13


def test_docmentorignore_applies_even_without_gitignore(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "!api/\n")
    write(tmp_path, ".docmentorignore", "api/\nchangelog.md\n")
    for rel in ("api/x.md", "changelog.md", "docs/changelog.md", "index.md"):
        write(tmp_path, rel, "x\n")
    assert paths(scan_folder(tmp_path)) == ["index.md"]
    assert paths(scan_folder(tmp_path, use_gitignore=False)) == ["index.md"]


def test_binary_oversized_and_undecodable_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "bin.md", b"# x\0\x01\x02")
    write(tmp_path, "big.md", "x" * 2_000)
    write(tmp_path, "mostly-latin1.md", "caf\xe9 na\xefve \xe0 la cr\xe8me\n".encode("latin-1"))
    write(tmp_path, "one-bad-byte.md", b"# Title\n" + b"ok text " * 40 + b"\xff\n")
    write(tmp_path, "shift-jis.md", "あいうえお\n".encode("shift_jis"))  # another encoding: skipped
    # a short UTF-8 page with a stray byte and pasted Windows quotes: 1-3 % of it, kept (a tour:
    # skipped, where the same bytes in a longer page were kept)
    write(
        tmp_path, "short-stray.md", b"# C\n\n" + "caf\u00e9 text. ".encode() * 5 + b"\nbad byte \xff here.\n"
    )
    write(
        tmp_path,
        "short-quotes.md",
        "# Q\n\nPlain text pasted from Windows, with a \x93quote\x94 in it, caf\u00e9.\n".encode("utf-8")
        .replace(b"\xc2\x93", b"\x93")
        .replace(b"\xc2\x94", b"\x94"),
    )
    write(tmp_path, "bom.md", "\ufeff# Bom\n".encode())
    read: list[str] = []
    real = Path.read_bytes

    def spy(self: Path) -> bytes:
        read.append(self.name)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", spy)
    scan = scan_folder(tmp_path, max_bytes=1_000)
    assert "big.md" not in read  # the size is checked before reading
    assert paths(scan) == [
        "bom.md",
        "mostly-latin1.md",
        "one-bad-byte.md",
        "short-quotes.md",
        "short-stray.md",
    ]
    assert "bad byte \ufffd here" in by_path(scan, "short-stray.md").content
    assert "a \ufffdquote\ufffd in it, café" in by_path(scan, "short-quotes.md").content
    assert by_path(scan, "bom.md").content == "# Bom\n"
    kept = by_path(scan, "one-bad-byte.md")
    assert kept.content.endswith("\ufffd\n")
    assert kept.warnings == ["one-bad-byte.md: not valid UTF-8, decoded with 1 replacement character(s)"]
    # a Western page saved as Latin-1 is read as such, not lost
    assert by_path(scan, "mostly-latin1.md").content == "café naïve à la crème\n"
    assert scan.skipped == [
        ("big.md", "over the size cap of 1.0 KB"),
        ("bin.md", "binary file"),
        ("shift-jis.md", "not valid UTF-8 (10 undecodable characters, first at byte 0)"),
    ]
    assert scan.warnings == [
        "big.md: skipped: over the size cap of 1.0 KB",
        "bin.md: skipped: binary file",
        "mostly-latin1.md: not valid UTF-8, read as Windows-1252 (Latin-1)",
        "one-bad-byte.md: not valid UTF-8, decoded with 1 replacement character(s)",
        "shift-jis.md: skipped: not valid UTF-8 (10 undecodable characters, first at byte 0)",
        "short-quotes.md: not valid UTF-8, decoded with 2 replacement character(s)",
        "short-stray.md: not valid UTF-8, decoded with 1 replacement character(s)",
    ]


def test_size_cap_message_in_megabytes(tmp_path: Path) -> None:
    write(tmp_path, "big.md", "x" * 6_000_001)
    assert scan_folder(tmp_path).skipped == [("big.md", "over the size cap of 5.0 MB")]


def test_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = write(tmp_path, "outside/secret.md", "secret\n")
    write(root, "docs/a.md", "a\n")
    (root / "out.md").symlink_to(outside)
    (root / "outdir").symlink_to(outside.parent, target_is_directory=True)
    (root / "alias.md").symlink_to(root / "docs/a.md")
    (root / "docs/loop").symlink_to(root / "docs", target_is_directory=True)
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    write(root, "drafts/b.md", "b\n")  # left out by the ignore file: its link is the way in
    write(root, IGNORE_FILE, "drafts/\n")
    (root / "b.md").symlink_to(root / "drafts/b.md")
    scan = scan_folder(root)
    assert paths(scan) == ["b.md", "docs/a.md"]  # alias.md is docs/a.md, read once by its own path
    assert sorted(scan.skipped) == [
        ("out.md", "symlink points outside the root"),
        ("outdir", "symlinked folder points outside the root"),
    ]


def test_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(SourceUnavailableError, match="not a folder"):
        scan_folder(tmp_path / "missing")


def test_includes_line_map_and_warnings(tmp_path: Path) -> None:
    write(tmp_path, "src/ex.py", "# --8<-- [start:s]\nprint(1)\nprint(2)\n# --8<-- [end:s]\n")
    write(tmp_path, "docs/a.md", '# A\n\n```py\n--8<-- "src/ex.py:s"\n```\n--8<-- "src/none.py"\n')
    write(tmp_path, "docs/b.rst", "B\n=\n\n.. literalinclude:: ../src/ex.py\n   :lines: 2\n")
    write(tmp_path, "docs/c.txt", '--8<-- "src/ex.py:s"\n')
    scan = scan_folder(tmp_path)
    a = by_path(scan, "docs/a.md")
    assert a.content == '# A\n\n```py\nprint(1)\nprint(2)\n```\n--8<-- "src/none.py"\n'
    assert a.line_map == [1, 2, 3, 4, 4, 5, 6]
    assert a.warnings == ["docs/a.md:6: include not found: src/none.py"]
    b = by_path(scan, "docs/b.rst")
    assert b.content == "B\n=\n\n.. code-block:: python\n\n   print(1)\n"
    assert b.line_map == [1, 2, 3, 4, 4, 4]
    c = by_path(scan, "docs/c.txt")
    assert (c.content, c.line_map) == ('--8<-- "src/ex.py:s"\n', None)
    assert scan.warnings == ["docs/a.md:6: include not found: src/none.py"]


MKDOCS = """\
site_name: x
theme:
  name: material
  icon: !!python/name:material.icons.x
markdown_extensions:
  - admonition
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
  - pymdownx.snippets:
      base_path: [.., snippets, ../../outside, missing]
      dedent_subsections: true
extra:
  key: !ENV [HOME, x]
"""


def test_mkdocs_base_paths(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "docs/mkdocs.yml", MKDOCS)
    write(root, "docs/snippets/s.md", "from snippets\n")
    write(root, "code/x.py", "# --8<-- [start:a]\nx = 1\n# --8<-- [end:a]\n")
    write(root, "docs/index.md", '--8<-- "code/x.py:a"\n--8<-- "s.md"\n')
    assert mkdocs_base_dirs(root) == [root.resolve(), (root / "docs/snippets").resolve()]
    assert mkdocs_base_dirs(root / "docs") == [(root / "docs/snippets").resolve()]
    assert by_path(scan_folder(root), "docs/index.md").content == "x = 1\nfrom snippets\n"


def test_mkdocs_variants_and_broken_files(tmp_path: Path) -> None:
    write(tmp_path, "mkdocs.yml", "markdown_extensions:\n  - pymdownx.snippets\n")
    assert mkdocs_base_dirs(tmp_path) == [tmp_path.resolve()]
    write(tmp_path, "mkdocs.yml", "markdown_extensions:\n  pymdownx.snippets:\n    base_path: inc\n")
    (tmp_path / "inc").mkdir()
    assert mkdocs_base_dirs(tmp_path) == [(tmp_path / "inc").resolve()]
    write(tmp_path, "mkdocs.yml", "markdown_extensions: [\n")
    assert mkdocs_base_dirs(tmp_path) == []
    write(tmp_path, "mkdocs.yml", "- just a list\n")
    assert mkdocs_base_dirs(tmp_path) == []


def test_thousand_files_scan_quickly(tmp_path: Path) -> None:
    for k in range(1_000):
        write(tmp_path, f"d{k % 10}/page{k:04}.md", f"# Page {k}\n\n" + "Some text here.\n" * 30)
    started = time.perf_counter()
    scan = scan_folder(tmp_path)
    elapsed = time.perf_counter() - started
    assert len(scan.documents) == 1_000
    assert elapsed < 2.0, elapsed  # ~0.1 s on the dev machine; generous for CI


def test_lancedb_corpus() -> None:
    started = time.perf_counter()
    scan = scan_folder(LANCEDB)
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, elapsed  # ~0.01 s on the dev machine
    assert sorted(d.path for d in scan.documents) == [
        "docs/src/basic.md",
        "docs/src/embeddings/embedding_functions.md",
        "docs/src/hybrid_search/hybrid_search.md",
        "docs/src/javascript/interfaces/WriteOptions.md",
        "docs/src/reranking/custom_reranker.md",
        "docs/src/search.md",
    ]
    assert scan.skipped == []
    assert scan.warnings == [
        f"docs/src/hybrid_search/hybrid_search.md:{line}: include section not found: "
        f"python/python/tests/docs/test_search.py:{section}"
        for line, section in (
            (15, "import-pydantic"),
            (17, "import-openai-embeddings"),
            (28, "import-pydantic"),
            (30, "import-openai-embeddings"),
        )
    ]
    leftover = [
        (doc.path, m["target"])
        for doc in scan.documents
        for line in doc.content.split("\n")
        if (m := SNIPPET.match(line))
    ]
    assert sorted(set(leftover)) == [
        ("docs/src/hybrid_search/hybrid_search.md", "python/python/tests/docs/test_search.py:" + s)
        for s in ("import-openai-embeddings", "import-pydantic")
    ]
    assert len(leftover) == 4

    basic = by_path(scan, "docs/src/basic.md")
    original = (LANCEDB / "docs/src/basic.md").read_text(encoding="utf-8").split("\n")
    lines = basic.content.split("\n")
    assert basic.line_map is not None
    assert len(basic.line_map) == len(lines) - 1  # the text ends with a newline
    assert "--8<--" not in basic.content
    # `--8<-- ".../test_basic.py:imports"` inside a tab and a fence, 8 spaces deep.
    k = lines.index("        import lancedb")
    directive = basic.line_map[k]
    assert original[directive - 1] == '        --8<-- "python/python/tests/docs/test_basic.py:imports"'
    assert lines[k : k + 3] == [
        "        import lancedb",
        "        import pandas as pd",
        "        import pyarrow as pa",
    ]
    assert basic.line_map[k : k + 3] == [directive] * 3
    # Lines that are not from an include map back to an identical original line.
    counts = {n: basic.line_map.count(n) for n in basic.line_map}
    for text, n in zip(lines, basic.line_map, strict=False):
        if counts[n] == 1 and "--8<--" not in original[n - 1]:
            assert text == original[n - 1]
    # Rust section from a `//` comment marker, kept inside the fence's indentation.
    assert "        let db = connect(uri).execute().await?;" in lines


def test_a_cyrillic_page_in_a_single_byte_encoding_is_skipped_not_read_as_latin1(tmp_path: Path) -> None:
    write(tmp_path, "ru.md", "# Установка\n\nУстановите пакет и запустите его.\n".encode("cp1251"))
    write(tmp_path, "de.md", "# Größe\n\nDie Größe der Datei ist über dem Limit.\n".encode("cp1252"))
    scan = scan_folder(tmp_path)
    assert paths(scan) == ["de.md"]
    assert by_path(scan, "de.md").content.startswith("# Größe")
    assert [p for p, _ in scan.skipped] == ["ru.md"]


def test_a_page_with_a_utf16_or_utf32_byte_order_mark_is_read_in_that_encoding(tmp_path: Path) -> None:
    """Windows editors save UTF-16 with a byte-order mark: it was skipped as a binary file."""
    page = "# Größe\n\nDie Größe der Datei — 日本語 too.\n"
    write(tmp_path, "le.md", page.encode("utf-16"))  # Python writes the mark, little-endian here
    write(tmp_path, "be.md", b"\xfe\xff" + page.encode("utf-16-be"))
    write(tmp_path, "u32.md", page.encode("utf-32"))
    write(tmp_path, "odd.md", b"\xff\xfe" + "# Odd\n".encode("utf-16-le") + b"\x00")  # an odd byte out
    write(tmp_path, "blob.md", b"\x00\x01binary" * 50)
    scan = scan_folder(tmp_path)
    assert paths(scan) == ["be.md", "le.md", "u32.md"]
    assert all(by_path(scan, p).content == page for p in ("be.md", "le.md", "u32.md"))
    assert sorted(w for w in scan.warnings if "byte-order mark says so" in w) == [
        "be.md: read as UTF-16 (its byte-order mark says so)",
        "le.md: read as UTF-16 (its byte-order mark says so)",
        "u32.md: read as UTF-32 (its byte-order mark says so)",
    ]
    skipped = dict(scan.skipped)
    assert skipped["blob.md"] == "binary file"
    assert skipped["odd.md"].startswith("starts with a UTF-16 byte-order mark but is not UTF-16")


def test_an_include_problem_met_again_through_another_page_is_said_once(tmp_path: Path) -> None:
    """A SQLAlchemy tour: changelog pages including each other printed each refusal twice."""
    write(tmp_path, "a.rst", b"T\n=\n\n.. include:: ../../../etc/passwd\n")
    write(tmp_path, "b.rst", b"Big\n===\n\n.. include:: a.rst\n")
    scan = scan_folder(tmp_path)
    assert scan.warnings == ["a.rst:4: include refused: path escapes the docs root: ../../../etc/passwd"]


def test_a_translation_of_the_docs_is_left_out_unless_asked_for(tmp_path: Path) -> None:
    """A Pinia tour: its `zh/` tree was indexed beside the English pages, so 35 of 200 hits and
    a fifth of the digests' tokens were Chinese copies of pages already shown. A folder named by
    a locale that mirrors the pages beside it (a translation lags: a quarter of its pages is
    enough) is left out with one warning, unless the source asks for translations; a folder so
    named that mirrors nothing (`id/`: a page tree of its own), or too little, is read."""
    from docmentor import Docmentor, SourceOptions

    for rel in ("index.md", "guide/a.md", "guide/b.md", "guide/c.md", "guide/d.md"):
        write(tmp_path / "docs", rel, f"# {rel}\n\nEnglish text about {rel}.\n")
    for rel in ("zh/index.md", "zh/guide/a.md", "zh/guide/b.md", "zh/guide/old.md", "zh/guide/older.md",
                "pt-BR/guide/a.md", "pt-BR/guide/c.md", "pt-BR/guide/d.md",
                "id/users.md", "id/groups.md", "id/guide/z.md", "ja/guide/a.md", "ja/x.md"):  # fmt: skip
        write(tmp_path / "docs", rel, f"# {rel}\n\n翻訳 {rel}.\n")
    scan = scan_folder(tmp_path / "docs")
    assert [p for p in paths(scan) if "/" in p and p.split("/")[0] in ("zh", "pt-BR")] == []
    assert {"id/users.md", "id/groups.md", "ja/guide/a.md"} <= set(paths(scan))  # mirrors nothing, or 1 page
    assert [w for w in scan.warnings if "translate" in w] == [
        "pt-BR/: 3 page(s) that translate the docs beside them not indexed "
        "(add --translations, or translations = true in docmentor.toml, to index them)",
        "zh/: 5 page(s) that translate the docs beside them not indexed "
        "(add --translations, or translations = true in docmentor.toml, to index them)",
    ]
    assert "zh/guide/old.md" in paths(scan_folder(tmp_path / "docs", translations=True))
    # as a source option, kept for every refresh
    engine = Docmentor(tmp_path / "db")
    report = engine.add(str(tmp_path / "docs"), name="d", options=SourceOptions(translations=True))
    assert report.documents == 18, report
    assert SourceOptions.parse({"translations": True}, where="docmentor.toml").translations is True
