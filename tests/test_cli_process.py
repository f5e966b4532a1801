"""The `docmentor` program as a real process: an indexing command ends without the
interpreter's teardown, and everything it wrote is there, committed and checkpointed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpserver
from httpserver import HttpServer

http_server = httpserver.http_server


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DOCMENTOR_DB"}
    return subprocess.run(
        [sys.executable, "-m", "docmentor", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_add_as_a_process_leaves_a_complete_index(tmp_path: Path, http_server: HttpServer) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(30):
        (docs / f"page{i}.md").write_text(f"# Page {i}\n\nThe wombat{i} burrows.\n\n## More\n\nText {i}.\n")
    for i in range(5):
        http_server.add(
            f"/site/p{i}.md", f"# Remote {i}\n\nThe quokka{i} smiles.\n", content_type="text/markdown"
        )
    http_server.add(
        "/site/llms.txt", "# Site\n\n## Docs\n\n" + "".join(f"- [P{i}](p{i}.md)\n" for i in range(5))
    )
    db = tmp_path / "index"

    local = run("--db", str(db), "add", str(docs), "--name", "docs")
    assert local.returncode == 0, local.stderr
    assert local.stdout.startswith("docs: 30 documents, 60 sections")
    remote = run("--db", str(db), "add", http_server.url("/site/llms.txt"), "--name", "site", "--json")
    assert remote.returncode == 0, remote.stderr
    assert json.loads(remote.stdout)["documents"] == 6

    # committed and checkpointed: the WAL is empty (or gone), another connection sees it all
    wal = db / "index.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    with sqlite3.connect(db / "index.sqlite3") as con:
        assert con.execute("SELECT count(*) FROM documents").fetchone()[0] == 36
    found = run("--db", str(db), "search", "wombat7", "--json")
    assert [r["path"] for r in json.loads(found.stdout)["results"]][:1] == ["page7.md"]
    found = run("--db", str(db), "search", "quokka3", "--json")
    assert [r["path"] for r in json.loads(found.stdout)["results"]][:1] == ["/site/p3.md"]

    refreshed = run("--db", str(db), "refresh", "--json")
    assert refreshed.returncode == 0, refreshed.stderr
    assert sorted(r["unchanged"] for r in json.loads(refreshed.stdout)["sources"]) == [6, 30]


def _blas_setting(env: dict[str, str]) -> list[str]:
    """The program's BLAS variables after `docmentor --version` ran as the program itself,
    and whether numpy was loaded before it set them."""
    code = (
        "import os, sys\n"
        "sys.argv = ['docmentor', '--version']\n"
        "from docmentor.cli import main\n"
        "loaded = 'numpy' in sys.modules\n"
        "main()\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), os.environ.get('MKL_NUM_THREADS'), loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[-3:]


def test_the_program_runs_numpys_blas_on_one_thread_unless_the_user_says_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    assert _blas_setting(env) == ["1", "1", "False"]  # set before numpy loads: it takes effect
    assert _blas_setting({**env, "OPENBLAS_NUM_THREADS": "4"}) == ["4", "1", "False"]
