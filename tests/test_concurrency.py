"""Readers and writers in separate processes on one index; a writer killed mid-refresh.

The folder source is switched between two versions by the refresher itself, before
each refresh, so every refresh reads a consistent folder; what is tested is that
readers in other processes see the index before or after a refresh, never half of it.
(A symlink swapped under the target would not do: ``add`` resolves symlinks, so the
source would keep pointing at the first version.)
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import signal
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from docmentor.engine import Docmentor

N_SMALL = 20
N_BIG = 1500
WORDS = {"a": "alpha", "b": "bravo"}

WRITE_VERSION = """
import pathlib

def write_version(root, ver, n, parts):
    root = pathlib.Path(root)
    root.mkdir(exist_ok=True)
    other = "b" if ver == "a" else "a"
    for f in root.glob(other + "*.md"):
        f.unlink()
    word = {"a": "alpha", "b": "bravo"}[ver]
    for i in range(n):
        body = "".join(
            f"\\n## Part {j}\\n\\n{word} paragraph {i} {j} " + "lorem ipsum dolor sit amet " * 20 + "\\n"
            for j in range(parts)
        )
        (root / f"{ver}{i:04d}.md").write_text(f"# {word.title()} {i}\\n\\n{word} document {i}\\n{body}")
"""

READER = """
import json, sys, time
from docmentor.engine import Docmentor

db, deadline = sys.argv[1], float(sys.argv[2])
eng = Docmentor(db, create=False)
while time.time() < deadline:
    try:
        hits = eng.search("alpha bravo", limit=100)
        (src,) = eng.sources()
        out = {
            "versions": sorted({h.path[0] for h in hits}),
            "words": sorted({h.title.split()[0] for h in hits}),
            "hits": len(hits),
            "docs": src["documents"],
            "sections": src["sections"],
            "store": sorted({p[0] for p in eng.store.documents("v")}),
        }
    except Exception as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(out), flush=True)
"""

REFRESHER = (
    WRITE_VERSION
    + """
import json, sys, time
from docmentor.engine import Docmentor

db, docs, deadline, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
eng = Docmentor(db)
done, ver, bad = 0, "b", []
while time.time() < deadline:
    write_version(docs, ver, n, 0)
    (r,) = eng.refresh("v")
    if (r.added, r.removed, r.updated, r.documents) != (n, n, 0, n):
        bad.append(r.to_dict())
    done += 1
    ver = "a" if ver == "b" else "b"
print(json.dumps({"refreshes": done, "bad": bad}), flush=True)
"""
)

KILLED_REFRESHER = """
import sys
from docmentor.engine import Docmentor

eng = Docmentor(sys.argv[1])
print("go", flush=True)
eng.refresh("v")
print("done", flush=True)
"""

namespace: dict[str, Any] = {}
exec(WRITE_VERSION, namespace)
write_version = namespace["write_version"]


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["DOCMENTOR_HOME"] = str(tmp_path / "home")
    env.pop("DOCMENTOR_DB", None)
    env.pop("DOCMENTOR_SOURCES", None)
    return env


def _python(code: str, *args: str, tmp_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        cwd=tmp_path,
    )


def test_readers_never_see_half_a_refresh(tmp_path: Path) -> None:
    docs, db = tmp_path / "docs", tmp_path / "index"
    write_version(docs, "a", N_SMALL, 0)
    with closing(Docmentor(db)) as eng:
        assert eng.add(str(docs), name="v").documents == N_SMALL
    deadline = time.time() + 6.0
    readers = [_python(READER, str(db), str(deadline), tmp_path=tmp_path) for _ in range(2)]
    refresher = _python(REFRESHER, str(db), str(docs), str(deadline - 0.5), str(N_SMALL), tmp_path=tmp_path)
    outputs = [p.communicate(timeout=60) for p in [refresher, *readers]]
    for proc, (_, err) in zip([refresher, *readers], outputs, strict=True):
        assert proc.returncode == 0, err
        assert "Traceback" not in err, err
    summary = json.loads(outputs[0][0])
    assert summary["bad"] == []
    assert summary["refreshes"] >= 10, summary
    seen: dict[str, int] = {}
    lines = [json.loads(line) for out, _ in outputs[1:] for line in out.splitlines()]
    assert len(lines) > 50
    errors = [line["error"] for line in lines if "error" in line]
    assert errors == []
    for line in lines:
        assert line["versions"] in (["a"], ["b"]), line
        assert line["words"] == [{"a": "Alpha", "b": "Bravo"}[line["versions"][0]]], line
        assert line["hits"] == N_SMALL, line
        assert (line["docs"], line["sections"]) == (N_SMALL, N_SMALL), line
        assert line["store"] in (["a"], ["b"]), line
        seen[line["versions"][0]] = seen.get(line["versions"][0], 0) + 1
    assert set(seen) == {"a", "b"}, seen  # the readers did see the refreshes


def _writer_lock_held(db: Path) -> bool:
    with open(db / "write.lock", "a+") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        return False


def _state(db: Path) -> dict[str, Any]:
    """What a fresh reader sees (a reader repairs what a killed writer left, if the write lock is free)."""
    with closing(Docmentor(db, create=False)) as eng:
        (src,) = eng.sources()
        row = eng.store.source("v")
        found = {ver: {h.path[0] for h in eng.search(word, limit=100)} for ver, word in WORDS.items()}
        return {
            "docs": src["documents"],
            "sections": src["sections"],
            "store": sorted({p[0] for p in eng.store.documents("v")}),
            "lexical": sorted(ver for ver, paths in found.items() if paths),
            "found": found,
            "entries": eng.lexical.num_docs(),
            "lag": row.generation != row.lexical_generation,
        }


@pytest.mark.timeout(90)
def test_killed_refresh_leaves_a_usable_index(tmp_path: Path) -> None:
    docs, db = tmp_path / "docs", tmp_path / "index"
    parts = 4
    sections = N_BIG * (parts + 1)
    entries = sections + N_BIG  # one lexical entry per section, one per document
    write_version(docs, "a", N_BIG, parts)
    with closing(Docmentor(db)) as eng:
        assert eng.add(str(docs), name="v").documents == N_BIG
    rng = random.Random(20240601)
    stored = "a"  # what the store holds: each attempt switches the folder to the other version
    killed_while_writing = 0
    outcomes = []
    for attempt in range(5):
        ver = "b" if stored == "a" else "a"
        write_version(docs, ver, N_BIG, parts)
        proc = _python(KILLED_REFRESHER, str(db), tmp_path=tmp_path)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "go\n"
        if attempt < 3:
            # wait until it holds the write lock (it is writing), then kill it somewhere inside
            t0 = time.monotonic()
            while not _writer_lock_held(db) and proc.poll() is None and time.monotonic() - t0 < 20:
                time.sleep(0.002)
            # within the write: a refresh of this folder takes 0.3–1 s here, less in a fast
            # minute (0.6 s let one finish first, and a kill after its end counts for nothing)
            time.sleep(rng.uniform(0.0, 0.2))
        else:
            time.sleep(rng.uniform(0.0, 1.2))
        if proc.poll() is None:
            if _writer_lock_held(db):
                killed_while_writing += 1
            proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
        assert "Traceback" not in err, err
        state = _state(db)
        outcomes.append((proc.returncode, state["store"], state["lexical"], state["lag"]))
        # the store and the lexical index are each wholly one version, never a mix
        assert (state["docs"], state["sections"]) == (N_BIG, sections), state
        assert state["store"] in (["a"], ["b"]), state
        assert state["lexical"] in (["a"], ["b"]), state
        assert state["entries"] == entries, state
        for paths in state["found"].values():
            assert paths in (set(), {"a"}, {"b"}), state
        if not state["lag"]:
            assert state["lexical"] == state["store"], state
        stored = state["store"][0]
    assert killed_while_writing >= 2, outcomes
    with closing(Docmentor(db)) as eng:
        (report,) = eng.refresh("v")
        assert report.documents == N_BIG and report.failed == []
    state = _state(db)
    assert (state["store"], state["lexical"], state["lag"]) == ([ver], [ver], False), (state, outcomes)
    assert state["entries"] == entries
    with closing(Docmentor(db, create=False)) as eng:
        hit = eng.search(WORDS[ver], limit=1)[0]
        assert eng.get(hit.path, source="v").content.startswith(f"# {WORDS[ver].title()} ")


# A writer that dies at one exact point: right when it starts writing the lexical index,
# after the store's transaction (if any) has committed.
CRASH_AT_LEXICAL = """
import os, signal, sys
from docmentor.engine import Docmentor
from docmentor.search.lexical import LexicalIndex

def die(self, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

eng = Docmentor(sys.argv[1])
LexicalIndex.replace = die
getattr(eng, sys.argv[2])(*sys.argv[3:])
print("survived", flush=True)
"""


def _crash(tmp_path: Path, db: Path, *call: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CRASH_AT_LEXICAL, str(db), *call],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stdout) == (-signal.SIGKILL, ""), proc.stderr


def _two_sources(tmp_path: Path) -> tuple[Path, Path]:
    db = tmp_path / "index"
    for name, word in (("keep", "kestrel"), ("gone", "gannet")):
        folder = tmp_path / name
        folder.mkdir()
        for i in range(3):
            (folder / f"{name}{i}.md").write_text(f"# {name} {i}\n\nThe {word} {i}.\n", encoding="utf-8")
    with closing(Docmentor(db)) as eng:
        eng.add(str(tmp_path / "keep"), name="keep")
        eng.add(str(tmp_path / "gone"), name="gone")
    return db, tmp_path / "gone"


def _view(db: Path) -> tuple[list[str], set[str]]:
    """(source names, sources that search results come from) as a fresh reader sees them."""
    with closing(Docmentor(db, create=False)) as eng:
        names = [s["name"] for s in eng.sources()]
        hits = {h.source for word in ("kestrel", "gannet") for h in eng.search(word, limit=50)}
        return names, hits


def test_crash_between_store_and_lexical_on_refresh_is_repaired(tmp_path: Path) -> None:
    db, folder = _two_sources(tmp_path)
    (folder / "gone0.md").write_text("# gone 0\n\nThe heron.\n", encoding="utf-8")
    _crash(tmp_path, db, "refresh", "gone")
    with closing(Docmentor(db, create=False)) as eng:
        # the store has the new copy, the search index the old one: the first reader repairs it
        assert "heron" in eng.get("gone:gone0.md").content
        assert [h.path for h in eng.search("heron")] == ["gone0.md"]
        assert {h.path for h in eng.search("gannet")} == {"gone1.md", "gone2.md"}
    with closing(Docmentor(db)) as eng:
        (report,) = eng.refresh("keep")
        assert report.unchanged == 3
        assert [h.path for h in eng.search("heron")] == ["gone0.md"]
        assert {h.path for h in eng.search("gannet")} == {"gone1.md", "gone2.md"}
        assert eng.lexical.num_docs() == 2 * 6


def test_crash_in_remove_never_leaves_orphan_search_results(tmp_path: Path) -> None:
    db, _ = _two_sources(tmp_path)
    _crash(tmp_path, db, "remove", "gone")
    names, hit_sources = _view(db)
    assert hit_sources <= set(names), (names, hit_sources)  # no results from a source that is gone
    with closing(Docmentor(db)) as eng:
        eng.refresh("keep")  # any later write repairs what the crash left
    names, hit_sources = _view(db)
    assert hit_sources == set(names), (names, hit_sources)
    with closing(Docmentor(db)) as eng:
        if "gone" in names:
            eng.remove("gone")
        assert [s["name"] for s in eng.sources()] == ["keep"]
        assert {h.source for h in eng.search("gannet kestrel", limit=50)} == {"keep"}
        assert eng.lexical.num_docs() == 6


def test_crash_in_reindex_keeps_search_working(tmp_path: Path) -> None:
    db, _ = _two_sources(tmp_path)
    _crash(tmp_path, db, "reindex")
    assert _view(db) == (["gone", "keep"], {"gone", "keep"})
    with closing(Docmentor(db)) as eng:
        eng.refresh("keep")
        assert eng.lexical.num_docs() == 12
    assert _view(db) == (["gone", "keep"], {"gone", "keep"})


def test_a_lost_lexical_index_is_rebuilt_from_the_store(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An index folder copied without ``lexical/`` (or with it removed) found nothing, with no
    word said; the first reader now rebuilds it from the store, as ``docmentor reindex`` does."""
    import shutil

    docs = tmp_path / "docs"
    write_version(docs, "a", 3, 2)
    with closing(Docmentor(tmp_path / "index")) as eng:
        eng.add(str(docs), name="v")
        expected = [(h.path, h.heading) for h in eng.search(WORDS["a"], limit=3)]
    assert expected
    shutil.rmtree(tmp_path / "index" / "lexical")
    with closing(Docmentor(tmp_path / "index", create=False)) as eng:
        assert [(h.path, h.heading) for h in eng.search(WORDS["a"], limit=3)] == expected
    assert "search index of" in caplog.text and "rebuilding it from the store" in caplog.text
    assert (tmp_path / "index" / "lexical" / "meta.json").exists()
    caplog.clear()
    with closing(Docmentor(tmp_path / "index", create=False)) as eng:  # once: the next reader finds it
        assert [(h.path, h.heading) for h in eng.search(WORDS["a"], limit=3)] == expected
    assert "rebuilding" not in caplog.text
    # a writer before any reader (serve's refresh at start): it rebuilds the whole index, not
    # a new one holding only the document it writes
    shutil.rmtree(tmp_path / "index" / "lexical")
    changed = sorted(docs.glob("*.md"))[-1]
    changed.write_text(changed.read_text() + "\nAn added heron.\n")
    with closing(Docmentor(tmp_path / "index")) as eng:
        eng.refresh("v")
    with closing(Docmentor(tmp_path / "index", create=False)) as eng:
        assert [(h.path, h.heading) for h in eng.search(WORDS["a"], limit=3)] == expected
        assert eng.search("heron", limit=1)[0].path == changed.name


def _overtaken_by(monkeypatch: pytest.MonkeyPatch, before_write: Any) -> dict[str, int]:
    """Run ``before_write`` (another engine's refresh) once, after the refresh under test has
    read and compared its documents and before it takes the write lock."""
    import docmentor.engine.refresh as refresh_module

    real = refresh_module.parse_many
    calls = {"n": 0}

    def parse_then_overtake(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        out = real(*args, **kwargs)
        if calls["n"] == 1:
            before_write()
        return out

    monkeypatch.setattr(refresh_module, "parse_many", parse_then_overtake)
    return calls


def test_a_second_add_overtaken_by_the_first_counts_what_it_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    write_version(docs, "a", 6, 2)
    db = tmp_path / "idx"
    with closing(Docmentor(db)) as first, closing(Docmentor(db)) as second:
        _overtaken_by(monkeypatch, lambda: first.add(docs, name="v"))
        report = second.add(docs, name="v")
        # the first add wrote every document while the second was reading: nothing new is left
        assert (report.added, report.updated, report.unchanged) == (0, 0, 6)
        assert report.documents == 6
        assert len({h.path for h in second.search("alpha", limit=50)}) == 6


def test_an_overtaken_refresh_never_writes_back_what_it_read_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    write_version(docs, "a", 3, 0)
    db = tmp_path / "idx"
    with closing(Docmentor(db)) as first, closing(Docmentor(db)) as second:
        first.add(docs, name="v")
        (docs / "a0000.md").write_text("# Alpha 0\n\nalpha first edit\n")

        def edit_and_refresh() -> None:  # a later edit, refreshed by the other engine first
            (docs / "a0000.md").write_text("# Alpha 0\n\nalpha second edit\n")
            first.refresh("v")

        _overtaken_by(monkeypatch, edit_and_refresh)
        (report,) = second.refresh("v")
        assert (report.added, report.updated, report.unchanged) == (0, 0, 3)
        text = second.get("v:a0000.md").content
        assert "second edit" in text and "first edit" not in text
