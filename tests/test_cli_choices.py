"""CLI details of issue 19, section 5: fixed values are click choices (a wrong one exits 2 and
names them), command summaries are whole at 80 columns, and ``--docs-path`` says when it is needed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import typer.main

from clitool import Cli
from docmentor.cli.app import app
from docmentor.cli.assemble import ENCODING_CHOICES, FORMAT_CHOICES

# the source commands and serve are another part of the issue (their own modules)
OTHER_MODULES = {"docmentor.cli.sources", "docmentor.cli.serve"}


def _commands() -> Iterator[tuple[list[str], click.Command]]:
    def walk(cmd: click.Command, path: list[str]) -> Iterator[tuple[list[str], click.Command]]:
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield path, cmd

    yield from walk(typer.main.get_command(app), [])


def _format_options() -> list[tuple[list[str], click.Option]]:
    found = []
    for path, cmd in _commands():
        if getattr(cmd.callback, "__module__", None) in OTHER_MODULES:
            continue
        for p in cmd.params:
            if isinstance(p, click.Option) and {"--format", "-f", "--encoding"} & set(p.opts):
                found.append((path, p))
    return found


def test_every_format_option_is_a_choice() -> None:
    found = _format_options()
    assert [path for path, _ in found] == [["assemble"], ["assemble"]]  # --format, --encoding
    for path, opt in found:
        assert isinstance(opt.type, click.Choice), (path, opt.opts)


def test_encoding_choices_are_the_tokenizers() -> None:
    from docmentor.assemble.tokens import ENCODINGS

    assert ENCODING_CHOICES == ENCODINGS
    assert FORMAT_CHOICES == ("markdown", "json")


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--format", "yaml"], "'yaml' is not one of 'markdown', 'json'"),
        (["-f", "JSON "], "is not one of 'markdown', 'json'"),
        (["--encoding", "p50k_base"], "'p50k_base' is not one of 'o200k_base', 'cl100k_base'"),
    ],
)
def test_a_bad_choice_exits_2_and_names_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    rc, out, err = Cli(tmp_path / "index", capsys)("assemble", "deploy", *args)
    assert (rc, out) == (2, "")
    assert err.startswith("error: Invalid value for") and named in err and err.count("\n") == 1
    assert "(see: docmentor assemble --help)" in err
    assert not (tmp_path / "index").exists()  # checked before anything is opened


def test_help_shows_the_choices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = Cli(tmp_path / "index", capsys).raw("assemble", "--help")
    assert rc == 0 and "[markdown|json]" in out and "o200k_base|cl100k_base" in out


GROUPS = [[], ["eval"], ["clarity"], ["readme-llm"], ["api"], ["feedback"]]


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: " ".join(g) or "docmentor")
def test_command_summaries_are_whole_at_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, group: list[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    rc, out, _ = Cli(tmp_path / "index", capsys).raw(*group, "--help")
    assert rc == 0
    listing = out.split("Commands:\n", 1)[1]
    rows = re.findall(r"^  (\S+) +(\S.*)$", listing, re.M)
    assert len(rows) >= 1
    for name, summary in rows:
        assert not summary.endswith("..."), (name, summary)
        assert summary.endswith("."), (name, summary)  # a whole sentence, not a cut one
    assert all(len(line) <= 80 for line in out.splitlines())
    if not group:
        assert {name for name, _ in rows} >= {
            "add",
            "refresh",
            "search",
            "get",
            "assemble",
            "serve",
            "clarity",
        }


def test_docs_path_help_says_when_it_is_needed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    rc, out, _ = Cli(tmp_path / "index", capsys).raw("readme-llm", "generate", "--help")
    assert rc == 0
    text = " ".join(out.split())
    assert "--docs-path PATH The library's documentation folder, indexed as source LIBRARY-docs." in text
    assert "Needed the first time; later runs without it reuse that source." in text


def test_docs_path_is_needed_the_first_time_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    lib = tmp_path / "lib"
    shutil.copytree(Path(__file__).resolve().parent / "fixtures" / "readme_lib", lib)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(lib))
    cli = Cli(tmp_path / "index", capsys)
    base = ("--no-embeddings", "readme-llm", "generate", "-l", "minidb", "--output-format", "monolithic")
    # neither --docs-path nor an indexed minidb-docs: the API alone, and a warning says so
    rc, out, err = cli(*base, "--out", "o1")
    assert rc == 0 and "0 examples" in out
    assert "warning: no documentation: no source 'minidb-docs' nor 'minidb' is indexed" in err
    # with it, then without it: the indexed source is reused
    rc, out, err = cli(*base, "--out", "o2", "--docs-path", str(lib / "docs"))
    assert (rc, err) == (0, "") and " 8 examples" in out
    rc, out, err = cli(*base, "--out", "o3")
    assert (rc, err) == (0, "") and " 8 examples" in out
    # docs added by hand under the library's own name (the team guide's `add DOCS --name
    # httpx`; a tour's readme-llm job then read none): read, and said so
    other = Cli(tmp_path / "index2", capsys)
    assert other("--no-embeddings", "add", str(lib / "docs"), "--name", "minidb")[0] == 0
    rc, out, err = other(*base, "--out", "o4")
    assert rc == 0 and " 8 examples" in out, err
    assert "no source 'minidb-docs': the docs of source 'minidb' are read" in err
    assert [s["name"] for s in other.json("sources")["sources"]] == ["minidb"]  # no second copy
