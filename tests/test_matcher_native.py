"""Go and Rust examples linked to the APIs they name (a tour: cobra's 74 and anyhow's 6 examples
matched none, so README.LLM had no examples and left out `Command.Execute` and `AddCommand`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmentor.library.examples.matcher import match_examples
from docmentor.library.models import Example
from docmentor.library.surface.treesitter.surface import load_source_surface

GO_CODE = {
    "cli/command.go": """package cli

// Command is a command.
type Command struct {
	// Use is its one-line usage.
	Use string
}

// AddCommand adds sub-commands.
func (c *Command) AddCommand(cmds ...*Command) {}

// Execute runs it.
func (c *Command) Execute() error { return nil }

// NewCommand makes one.
func NewCommand(use string) *Command { return &Command{Use: use} }
""",
    "cli/doc/gen.go": """package doc

import "example.com/cli"

// GenMarkdown writes a command's page.
func GenMarkdown(cmd *cli.Command) error { return nil }
""",
}

RUST_CODE = {
    "src/lib.rs": """mod error;
pub use crate::error::Error;
/// A result.
pub type Result<T, E = Error> = core::result::Result<T, E>;
/// Add context.
pub trait Context<T> {
    /// With context.
    fn with_context(self) -> Result<T>;
}
/// Return early with an error.
#[macro_export]
macro_rules! bail {
    ($msg:literal) => {};
}
""",
    "src/error.rs": """/// The error.
pub struct Error;
impl Error {
    /// A message error.
    pub fn msg(m: &str) -> Error { Error }
    /// Downcast it.
    pub fn downcast_ref(&self) {}
}
""",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _used(root: Path, library: str, language: str, blocks: list[str]) -> list[list[str]]:
    surface = load_source_surface(root, library=library, language=language)
    examples = [
        Example(example_id=f"e{i}", title="t", code=code, language=language, source="s", path="p.md", line=i)
        for i, code in enumerate(blocks, 1)
    ]
    match_examples(examples, surface, library=library)
    return [ex.apis_used for ex in examples]


def test_go_examples_name_their_packages_types_and_methods(tmp_path: Path) -> None:
    root = _write(tmp_path, {k.removeprefix("cli/"): v for k, v in GO_CODE.items()})
    used = _used(
        root,
        "cli",
        "go",
        [
            'import (\n\t"fmt"\n\tc "example.com/cli"\n)\n\nfunc main() {\n'
            '\troot := &c.Command{Use: "app"}\n\tsub := c.NewCommand("sub")\n'
            '\troot.AddCommand(sub)\n\t// root.Execute() in a comment is no use\n\tfmt.Println("x.Execute()")\n}\n',
            "func run(cmd *cli.Command) {\n\tcmd.Execute()\n}\n",  # no import: the library's name
            "out := new(bytes.Buffer)\nerr := doc.GenMarkdown(cmd)\n",  # its subpackage, no import
            'import "example.com/other"\n\nfunc main() { other.Execute() }\n',  # another library
            # a `/*` in a string is no comment (a review: the rest of the block was lost)
            'r.GET("/static/*filepath", h)\ncmd := &cli.Command{}\ncmd.Execute()\n',
        ],
    )
    assert used == [
        # the fields a composite literal sets are used too (cobra's `PersistentPreRun: func…`)
        ["cli.Command", "cli.NewCommand", "cli.Command.AddCommand", "cli.Command.Use"],
        ["cli.Command", "cli.Command.Execute"],
        ["cli.doc.GenMarkdown"],
        [],
        ["cli.Command", "cli.Command.Execute"],
    ]


def test_rust_examples_name_their_uses_paths_macros_and_methods(tmp_path: Path) -> None:
    root = _write(tmp_path, RUST_CODE)
    used = _used(
        root,
        "anyhow",
        "rust",
        [
            "use anyhow::{Context, Result};\n\nfn main() -> Result<()> {\n"
            '    let s = read().with_context(|| "reading")?;\n    Ok(())\n}\n',
            'fn f() -> anyhow::Result<()> {\n    Err(anyhow::Error::msg("no"))\n}\n',
            'bail!("Missing attribute: {}", missing);\n',  # a fragment: the documented crate's
            "match e.downcast_ref::<MyError>() {\n    _ => {}\n}\n",
            'use thiserror::Error;\n\n#[derive(Error, Debug)]\npub enum E { A }\nbail!("x");\n',  # another crate's
        ],
    )
    assert used == [
        ["anyhow.Result", "anyhow.Context.with_context"],
        ["anyhow.Result", "anyhow.error.Error.msg"],
        ["anyhow.bail"],
        ["anyhow.error.Error.downcast_ref"],
        [],
    ]


def test_adversarial_code_is_read_in_linear_time(tmp_path: Path) -> None:
    import time

    from docmentor.library.examples.matcher_native import NativeMatcher

    matchers = {
        "rust": NativeMatcher(
            load_source_surface(_write(tmp_path / "r", RUST_CODE), library="anyhow"), "anyhow"
        ),
        "go": NativeMatcher(
            load_source_surface(
                _write(tmp_path / "g", {k.removeprefix("cli/"): v for k, v in GO_CODE.items()}), library="cli"
            ),
            "cli",
        ),
    }
    n = 48_000
    codes = [
        "/*" * n,
        '"' + "\\" * n,
        "a." * n,
        "anyhow::" * n,
        "use anyhow::" + "a::" * n,
        "use anyhow::{" + "a, " * n,
        "x := &cli.Command{" + "{" * n,
        "cli.Command{" * (n // 12),
        'import "example.com/cli"\n' + "x := &cli.Command{A: " * (n // 20),
        "cli.Command{" + "A: 1, " * n,
        "bail!" * n,
        ".m::<" * n,
        "import(" * (n // 7),
        "import (\n\t" * (n // 10),
        '"/*' * n,
    ]
    for language in ("go", "rust"):
        for code in codes:
            start = time.perf_counter()
            matchers[language].uses(code, language)
            assert time.perf_counter() - start < 2.0, (language, code[:20])


def test_generate_on_go_links_its_examples_and_says_drift_did_not_read_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the CLI: the Go example credits its APIs, and generate's drift line says the
    examples were not checked instead of "0 missing APIs" (a tour read it as a clean bill)."""
    from clitool import Cli

    src = _write(tmp_path / "cli", {k.removeprefix("cli/"): v for k, v in GO_CODE.items()})
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(
        "# Guide\n\n## Sub-commands\n\nAdd one to the root:\n\n```go\n"
        'import "example.com/cli"\n\nroot := &cli.Command{Use: "app"}\nroot.AddCommand(cli.NewCommand("sub"))\n'
        "root.Execute()\n```\n",
        encoding="utf-8",
    )
    cli = Cli(tmp_path / "index", capsys)
    rc, out, err = cli(
        "--no-embeddings", "readme-llm", "generate", "-l", "cli", "--source-path", str(src),
        "--docs-path", str(docs), "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert rc == 0, err
    assert "1 examples (1 matched to APIs)" in out or "1 example (1 matched to APIs)" in out, out
    assert "drift: not checked (1 examples in other languages; drift reads Python examples only)" in out
    readme = (tmp_path / "out" / "README.LLM").read_text(encoding="utf-8")
    assert "root.AddCommand(cli.NewCommand" in readme


def test_a_source_folder_without_sources_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tour: a log line (WARNING docmentor.library.surface…) came before the error, and a
    Python package gave no word of --python."""
    from clitool import Cli

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n", encoding="utf-8")
    cli = Cli(tmp_path / "index", capsys)
    rc, out, err = cli(
        "--no-embeddings", "readme-llm", "generate", "-l", "pkg", "--source-path", str(tmp_path / "pkg")
    )
    assert (rc, out) == (1, "")
    assert err.splitlines() == [
        f"error: no TypeScript, JavaScript, Go or Rust source file in {tmp_path / 'pkg'} "
        "(a Python library is read where it is installed: --python INTERPRETER)"
    ]
