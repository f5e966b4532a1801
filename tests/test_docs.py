"""The README and docs/ cannot go stale: their config examples load, their commands exist."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docmentor.clarity.rubric import default_rubric, load_rubric
from docmentor.cli import main
from docmentor.config import load_config

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(lang: str) -> list[tuple[Path, str]]:
    pattern = re.compile(rf"^```{lang}\n(.*?)^```", re.S | re.M)
    return [(p, m.group(1)) for p in PAGES for m in pattern.finditer(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize(("page", "text"), blocks("toml"))
def test_toml_examples_load(page: Path, text: str, tmp_path: Path) -> None:
    if "[weights]" in text or "[tiers]" in text:  # a clarity rubric file, not docmentor.toml
        (tmp_path / "rubric.toml").write_text(text, encoding="utf-8")
        assert load_rubric(tmp_path / "rubric.toml").hash != default_rubric().hash
        return
    (tmp_path / "docs").mkdir()
    (tmp_path / "docmentor.toml").write_text(text, encoding="utf-8")
    cfg = load_config(tmp_path)
    assert cfg.sources, f"{page.name}: example configures no source"


def _client_config(text: str) -> bool:
    """A JSON block that configures MCP servers (a top-level mcpServers or servers key)."""
    return re.search(r'^\s*\{\s*"(mcpServers|servers)"\s*:', text) is not None


@pytest.mark.parametrize(("page", "text"), [b for b in blocks("json") if _client_config(b[1])])
def test_mcp_client_configs_are_json_and_run_serve(page: Path, text: str) -> None:
    data = json.loads(text)
    servers = data.get("mcpServers") or data.get("servers")
    entry = servers["docmentor"]
    assert entry["command"] == "docmentor" and entry["args"][0] == "serve"


def test_every_documented_command_exists(capsys: pytest.CaptureFixture[str]) -> None:
    documented = {
        m.group(1)
        for _, text in blocks("bash")
        for m in re.finditer(r"^docmentor (?:--db \S+ )?([a-z-]+)", text, re.M)
    }
    assert documented >= {"add", "search", "get", "refresh", "sources", "serve"}
    for command in sorted(documented):
        assert main([command, "--help"]) == 0, command
    capsys.readouterr()


def test_the_readme_library_example_runs(tmp_path: Path) -> None:
    """The README's Python example of the library API runs as written (on a copy of docs/)."""
    (example,) = [text for page, text in blocks("python") if page.name == "README.md" and "Docmentor" in text]
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    env = {**os.environ, "DOCMENTOR_DB": str(tmp_path / "db"), "DOCMENTOR_EMBEDDINGS": "0"}
    done = subprocess.run(
        [sys.executable, "-c", example], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and re.fullmatch(r"\d+(\.\d+)? [A-F][+]?", lines[-1]), lines[-1:]
    assert "# " in done.stdout  # the digest's Markdown
