"""README.LLM's token count in a first ``generate`` (library/token_cache.py) and the vocabulary
file built bucket by bucket (assemble/bpe.py ``build``).

The vocabulary file is derived in a child process, so ``generate``'s own process counts with
bpe.py and never loads toktok's tables beside the embedding model. Everything runs for real:
a child Python, the cache folder on disk, toktok's own counts to compare with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import toktok

from docmentor.assemble import bpe, tokens
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError
from docmentor.library.pipeline import generate
from docmentor.library.token_cache import TokenCacheAhead

FIXTURES = Path(__file__).parent / "fixtures" / "readme_lib"
ENCODING = "cl100k_base"  # the smaller table: the quicker child


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("DOCMENTOR_CACHE", str(folder))
    return folder


def test_build_one_bucket_at_a_time_loads_back_every_rank() -> None:
    # every byte, then tokens that share buckets and one repeated (the later rank wins, as in a dict)
    vocabulary = [bytes([b]) for b in range(256)] + [b"ab", b"abc", "é".encode(), b" the", b"ab"]
    rank = bpe.load(bpe.build("o200k_base", vocabulary, "test"), "o200k_base", "test")
    expected = {token: r for r, token in enumerate(vocabulary)}
    assert all(rank(token) == r for token, r in expected.items())
    assert rank(b"not a token") is None and rank(b"abcd") is None
    with pytest.raises(bpe.CacheError):
        bpe.load(bpe.build("o200k_base", vocabulary, "test"), "o200k_base", "another source")


def test_the_child_writes_the_file_this_process_then_reads(empty_cache: Path) -> None:
    path = tokens.cache_path(ENCODING)
    ahead = TokenCacheAhead.start(ENCODING)
    assert ahead.running
    assert ahead.finish() is True and not ahead.running
    assert path.is_file() and ahead.seconds is not None
    assert [p.name for p in empty_cache.iterdir()] == [path.name]  # no temporary file left
    written = path.stat()
    assert tokens.prepare(ENCODING)  # accepted as it is: bpe.py loads it
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    text = "Exact counts: naïve café, 日本語, `client.get(url)` 🙂\n"
    assert tokens.count_tokens(text, ENCODING) == toktok.batch_count([text], ENCODING)[0]


def test_nothing_starts_when_the_file_is_there_or_the_encoding_has_none(empty_cache: Path) -> None:
    assert tokens.prepare(ENCODING)
    for encoding in (ENCODING, "qwen3.5"):  # written already; no file format for it
        ahead = TokenCacheAhead.start(encoding)
        assert not ahead.running and ahead.finish() is None and ahead.seconds is None
    assert not tokens.cache_path("qwen3.5").exists()


def test_a_cancelled_child_leaves_no_file_behind(empty_cache: Path) -> None:
    ahead = TokenCacheAhead.start(ENCODING)
    assert ahead.running
    ahead.cancel()
    assert not ahead.running and ahead.finish() is None
    path = tokens.cache_path(ENCODING)
    # stopped before it wrote (no file) or after (the whole file); never a temporary one
    left = [p.name for p in empty_cache.iterdir()] if empty_cache.exists() else []
    assert left in ([], [path.name])
    if left:
        assert tokens.prepare(ENCODING)


def test_a_child_that_fails_is_reported_and_the_count_is_made_here(
    empty_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = sys.executable
    monkeypatch.setattr(sys, "executable", "false")  # a child that exits 1 and writes nothing
    ahead = TokenCacheAhead.start(ENCODING)
    assert ahead.running and ahead.finish() is False
    monkeypatch.setattr(sys, "executable", python)
    assert not tokens.cache_path(ENCODING).exists()
    assert tokens.count_tokens("hello world", ENCODING) == 2  # counted here, as before


def test_a_first_generate_counts_readme_tokens_without_toktok_in_its_process(tmp_path: Path) -> None:
    # a fresh interpreter: generate into an empty cache folder, then report whether toktok
    # was asked for its tables or a count here, and README.LLM's count against toktok's
    script = f"""
import json, sys
from pathlib import Path
import toktok
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError
from docmentor.library.pipeline import generate
loaded = []
real, count = toktok._encoding, toktok.batch_count
toktok._encoding = lambda name: loaded.append(name) or real(name)
toktok.batch_count = lambda texts, name, **kw: loaded.append(name) or count(texts, name, **kw)
engine = Docmentor({str(tmp_path / "db")!r})
result = generate(engine, library="minidb", docs_path={str(FIXTURES / "docs")!r},
                  out={str(tmp_path / "out")!r}, search_paths=[Path({str(FIXTURES)!r})],
                  embeddings=False, encoding={ENCODING!r})
engine.close()
toktok._encoding, toktok.batch_count = real, count
text = Path(result.readme_path).read_text(encoding="utf-8")
print(json.dumps({{"loaded": loaded, "tokens": result.readme_tokens,
                  "toktok": toktok.batch_count([text], {ENCODING!r})[0],
                  "waited": "token_cache" in result.timings}}))
"""
    env = {**os.environ, "DOCMENTOR_CACHE": str(tmp_path / "cache"), "DOCMENTOR_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["loaded"] == []  # the child derived the file; this process counted with bpe.py
    assert report["tokens"] == report["toktok"] > 0 and report["waited"]
    assert tokens.cache_path(ENCODING).name in os.listdir(tmp_path / "cache")


def test_generate_stops_the_child_when_a_stage_fails(empty_cache: Path, tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "db")
    try:
        with pytest.raises(NotFoundError, match="not installed"):
            generate(
                engine,
                library="no_such_lib_xyz",
                docs_path=FIXTURES / "docs",
                out=tmp_path / "out",
                search_paths=[FIXTURES],
                embeddings=False,
                encoding=ENCODING,
            )
    finally:
        engine.close()
    assert not (tmp_path / "out").exists()
    # stopped or finished: either way no temporary file is left in the cache folder
    left = [p.name for p in empty_cache.iterdir()] if empty_cache.exists() else []
    assert all(not name.startswith(".") for name in left)
