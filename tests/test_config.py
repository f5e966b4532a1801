"""Configuration: docmentor.toml, llmdoc.json, DOCMENTOR_SOURCES, source names."""

from __future__ import annotations

from pathlib import Path

import pytest

from docmentor.config import auto_name, load_config, split_named
from docmentor.errors import UsageError


def test_named_and_unnamed_targets() -> None:
    assert split_named("fast_mcp:https://gofastmcp.com/llms.txt") == (
        "fast_mcp",
        "https://gofastmcp.com/llms.txt",
    )
    assert split_named("https://gofastmcp.com/llms.txt") == (None, "https://gofastmcp.com/llms.txt")
    assert split_named("docs:./docs") == ("docs", "./docs")
    assert split_named("./docs") == (None, "./docs")
    with pytest.raises(UsageError, match="invalid source name ''"):  # the name left empty
        split_named(":https://gofastmcp.com/llms.txt")
    assert auto_name("https://www.example.com/llms.txt") == "example.com"
    assert auto_name("http://127.0.0.1:8000/llms.txt") == "127.0.0.1_8000"


def test_an_unpacked_releases_folder_is_named_by_its_project(tmp_path: Path) -> None:
    for folder, name in (
        ("anyio-4.6.2.post1", "anyio"),
        ("cattrs-24.1.2", "cattrs"),
        ("more-itertools-11.2.1", "more-itertools"),
        ("httpx-0.28.1rc1", "httpx"),
        ("project-v2", "project"),
        ("python-slugify", "python-slugify"),
        ("web2py", "web2py"),
        ("docs-2", "docs"),
    ):
        (tmp_path / folder / "docs").mkdir(parents=True)
        assert auto_name(str(tmp_path / folder / "docs")) == name, folder
        assert auto_name(str(tmp_path / folder)) == name, folder


def test_toml_sources_and_fetch_defaults(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docmentor.toml").write_text(
        """
db = ".idx"
max_bytes = 1000

[fetch]
concurrency = 3
timeout = 5

[[sources]]
name = "httpx"
url = "https://www.python-httpx.org/llms.txt"

[[sources]]
name = "handbook"
path = "docs"

[[sources]]
name = "vendor"
url = "https://docs.vendor.example/llms.txt"
concurrency = 12
""",
        encoding="utf-8",
    )
    cfg = load_config(tmp_path)
    by_name = {s.name: s for s in cfg.sources}
    assert cfg.db == (tmp_path / ".idx").resolve()
    assert by_name["httpx"].options == {"concurrency": 3, "timeout": 5, "max_bytes": 1000}
    assert by_name["vendor"].options["concurrency"] == 12  # its own option wins
    assert by_name["handbook"].target == str((tmp_path / "docs").resolve())
    assert by_name["handbook"].options == {"max_bytes": 1000}  # fetch settings are for llms.txt only


def test_toml_plain_list_of_sources(tmp_path: Path) -> None:
    (tmp_path / "docmentor.toml").write_text(
        'sources = ["httpx:https://www.python-httpx.org/llms.txt", "docs"]'
    )
    cfg = load_config(tmp_path)
    assert [(s.name, s.target) for s in cfg.sources] == [
        ("httpx", "https://www.python-httpx.org/llms.txt"),
        (tmp_path.name, str((tmp_path / "docs").resolve())),
    ]


def test_llmdoc_json_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "llmdoc.json").write_text(
        '{"sources": ["a:https://a.example/llms.txt", {"name": "b", "url": "https://b.example/llms.txt"}],'
        ' "max_concurrent_fetches": 4}',
        encoding="utf-8",
    )
    monkeypatch.setenv("DOCMENTOR_SOURCES", "c:https://c.example/llms.txt, https://d.example/llms.txt")
    cfg = load_config(tmp_path)
    assert [s.name for s in cfg.sources] == ["a", "b", "c", "d.example"]
    assert cfg.sources[0].options["concurrency"] == 4


@pytest.mark.parametrize(
    ("name", "text"),
    [("docmentor.toml", "sources = [1, 2"), ("llmdoc.json", "{not json"), ("llmdoc.json", "[]")],
)
def test_broken_config_files_are_clear_errors(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=name):
        load_config(tmp_path)


def test_an_empty_source_name_in_config_is_an_error_as_on_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "docmentor.toml").write_text('sources = [{name = "", url = "https://x.example/llms.txt"}]')
    with pytest.raises(UsageError, match="invalid source name ''"):
        load_config(tmp_path)


def test_bad_source_name_in_config(tmp_path: Path) -> None:
    (tmp_path / "docmentor.toml").write_text(
        'sources = [{name = "bad name!", url = "https://x.example/llms.txt"}]'
    )
    with pytest.raises(UsageError, match="invalid source name"):
        load_config(tmp_path)
