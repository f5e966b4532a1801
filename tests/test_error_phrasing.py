"""Library errors name arguments; each adapter phrases them its own way (issue 20)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docmentor import Docmentor, UsageError, assemble_context
from docmentor.cli import main
from docmentor.cli.app import phrase


def test_the_library_names_its_arguments(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "db", create=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nAbout widgets.\n", encoding="utf-8")
    engine.add(str(tmp_path / "docs"), name="d")
    with pytest.raises(UsageError) as caught:
        assemble_context(engine, "widgets", max_tokens=5)
    assert caught.value.message.startswith("max_tokens must be between")
    assert caught.value.arguments == ("max_tokens",)
    assert "--" not in str(caught.value)


def test_the_command_line_says_its_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nAbout widgets.\n", encoding="utf-8")
    db = str(tmp_path / "db")
    assert main(["--db", db, "add", str(tmp_path / "docs")]) == 0
    capsys.readouterr()
    assert main(["--db", db, "assemble", "widgets", "--max-tokens", "5"]) == 2
    assert capsys.readouterr().err.startswith("error: --max-tokens must be between")


def test_only_whole_words_become_options() -> None:
    exc = UsageError("out /tmp/out/x is a file", hint="choose another out folder", arguments=("out",))
    assert phrase(exc) == "--out /tmp/out/x is a file (choose another --out folder)"
    paths = UsageError("base_paths docs/base_paths is not a folder", arguments=("base_paths",))
    assert phrase(paths) == "--base-path docs/base_paths is not a folder"


def test_an_output_that_cannot_be_written_is_the_paths_fault_unless_the_device_failed(tmp_path: Path) -> None:
    import errno

    from docmentor import DocmentorError, UsageError, cannot_write

    for code in (errno.EISDIR, errno.ENOENT, errno.EACCES, errno.EROFS):
        error = cannot_write(tmp_path / "out", OSError(code, os.strerror(code)))
        assert isinstance(error, UsageError), code  # exit 2: give another path
        assert str(error).startswith(f"cannot write {tmp_path / 'out'}: {os.strerror(code)}")
    for code in (errno.ENOSPC, errno.EIO):
        error = cannot_write(tmp_path / "out", OSError(code, os.strerror(code)))
        assert type(error) is DocmentorError, code  # exit 1: the same path may work later
    (tmp_path / "a.md").write_text("# A\n\nA page.\n", encoding="utf-8")
    page, folder = str(tmp_path / "a.md"), str(tmp_path)
    assert main(["--db", str(tmp_path / "db"), "clarity", "score", page, "--html", folder]) == 2
