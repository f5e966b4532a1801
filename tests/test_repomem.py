"""RepoMemory in the index (store/repomem*.py, migration m010_repo_memory): runs, units,
the search cache and the trace through a real index, resume, and a run killed mid-commit."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError, UsageError
from docmentor.store import repomem, repomem_rows, repomem_trace
from docmentor.store.db import Store
from docmentor.store.migrations import MIGRATIONS
from docmentor.store.repomem_rows import NewUnit

UNITS = [
    NewUnit("pkg.util.helper", "component", "h1", parent_id="pkg.util"),
    NewUnit("pkg.util.Box.open", "component", "h2", parent_id="pkg.util"),
    NewUnit("pkg.util", "module", "h3", parent_id="pkg"),
    NewUnit("pkg", "package", "h4", parent_id="repo"),
    NewUnit("repo", "repository", "h5"),
]


@pytest.fixture
def store(backend_store: Store) -> Store:
    """The repository memory on each backend: the embedded index, and PostgreSQL."""
    return backend_store


def _commit(store: Store, run_id: int, unit_id: str, **extra: object) -> repomem_rows.UnitRow:
    args: dict[str, object] = {
        "document": f"# {unit_id}\n\nWhat {unit_id} does.",
        "claims": [f"{unit_id} exists", f"{unit_id} is documented"],
        "depends_on": ["pkg.util.helper"] if unit_id != "pkg.util.helper" else [],
        "children": [],
        "scores": {"consistency": 0.95, "completeness": 1.0},
        "model": "m1",
        "prompt_tokens": 120,
        "completion_tokens": 30,
    }
    args.update(extra)
    return repomem.commit_unit(store, run_id, unit_id, **args)  # type: ignore[arg-type]


def test_a_run_registers_commits_and_reads_its_units(store: Store, tmp_path: Path) -> None:
    run = repomem.start_run(store, tmp_path / "repo", model="m1", settings={"max_steps": 8})
    assert (run.resumed, run.status, run.model, run.settings) == (False, "running", "m1", {"max_steps": 8})
    assert run.root == str((tmp_path / "repo").resolve())
    reg = repomem.register_units(store, run.id, UNITS)
    assert reg == repomem_rows.Registration(added=tuple(u.unit_id for u in UNITS), changed=(), kept=0)
    assert repomem.unit_ids(store, run.id, status="pending") == [u.unit_id for u in UNITS]
    pending = repomem.get_unit(store, run.id, "pkg.util")
    assert (pending.status, pending.document, pending.parent_id, pending.granularity) == (
        "pending",
        None,
        "pkg",
        "module",
    )

    row = _commit(store, run.id, "pkg.util.helper")
    assert row.status == "committed" and row.document == "# pkg.util.helper\n\nWhat pkg.util.helper does."
    assert row.claims == ("pkg.util.helper exists", "pkg.util.helper is documented")
    assert row.scores == {"completeness": 1.0, "consistency": 0.95}
    assert (row.model, row.prompt_tokens, row.completion_tokens) == ("m1", 120, 30)
    assert row.committed_at is not None
    _commit(store, run.id, "pkg.util.Box.open", children=["pkg.util.Box"])

    assert repomem.unit_ids(store, run.id, status="committed") == ["pkg.util.helper", "pkg.util.Box.open"]
    assert [u.unit_id for u in repomem.units(store, run.id, status="pending")] == ["pkg.util", "pkg", "repo"]
    docs = repomem.committed_documents(store, run.id, ["pkg.util.helper", "pkg.util", "nope"])
    assert list(docs) == ["pkg.util.helper"]  # pending and unknown units are absent
    assert docs["pkg.util.helper"].document == row.document
    assert repomem.get_unit(store, run.id, "pkg.util.Box.open").depends_on == ("pkg.util.helper",)

    # a second commit of a committed unit is refused: nothing is redone by mistake
    with pytest.raises(UsageError, match="already committed"):
        _commit(store, run.id, "pkg.util.helper", document="other")
    assert repomem.get_unit(store, run.id, "pkg.util.helper").document == row.document


def test_a_failed_unit_keeps_why_and_its_cost(store: Store, tmp_path: Path) -> None:
    run = repomem.start_run(store, tmp_path, model="m1")
    repomem.register_units(store, run.id, UNITS)
    failed = repomem.fail_unit(
        store, run.id, "pkg", error="VERIFY never passed", model="m1", prompt_tokens=900, completion_tokens=40
    )
    assert (failed.status, failed.error, failed.document, failed.prompt_tokens) == (
        "failed",
        "VERIFY never passed",
        None,
        900,
    )
    assert repomem.unit_ids(store, run.id, status="failed") == ["pkg"]
    _commit(store, run.id, "pkg")  # a failed unit may be committed on a later try
    assert repomem.get_unit(store, run.id, "pkg").error is None
    with pytest.raises(UsageError, match="cannot fail"):
        repomem.fail_unit(store, run.id, "pkg", error="late")


def test_resume_picks_the_unfinished_run_and_lists_what_is_left(store: Store, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    done = repomem.start_run(store, root, model=None)
    repomem.finish_run(store, done.id)
    run = repomem.start_run(store, root, model="m1")
    assert run.id != done.id and not run.resumed  # a finished run is never resumed
    repomem.register_units(store, run.id, UNITS)
    for uid in ("pkg.util.helper", "pkg.util.Box.open"):
        _commit(store, run.id, uid)
    other = repomem.start_run(store, tmp_path / "elsewhere", model="m1")  # another root: its own run

    again = repomem.start_run(store, str(root) + "/.", model="m2", settings={"ignored": True})
    assert (again.id, again.resumed, again.model, again.settings) == (run.id, True, "m1", {})
    # the resumed run registers the same units: committed ones stay committed
    reg = repomem.register_units(store, again.id, UNITS)
    assert (reg.added, reg.changed, reg.kept) == ((), (), 5)
    assert repomem.unit_ids(store, again.id, status="pending") == ["pkg.util", "pkg", "repo"]
    assert repomem.get_unit(store, again.id, "pkg.util.helper").document is not None

    fresh = repomem.start_run(store, root, model="m1", resume=False)
    assert fresh.id not in (run.id, other.id)
    assert repomem.get_run(store, run.id).status == "abandoned"
    assert repomem.start_run(store, root, model="m1").id == fresh.id
    assert [r.id for r in repomem.list_runs(store, root)] == [fresh.id, run.id, done.id]
    assert repomem.get_run(store, other.id).status == "running"


def test_a_finished_run_is_not_written_until_reopened(store: Store, tmp_path: Path) -> None:
    run = repomem.start_run(store, tmp_path, model=None)
    repomem.register_units(store, run.id, UNITS[:1])
    ended = repomem.finish_run(store, run.id)
    assert ended.status == "finished" and ended.finished_at is not None
    with pytest.raises(UsageError, match="is finished"):
        _commit(store, run.id, "pkg.util.helper")
    with pytest.raises(UsageError, match="is finished"):
        repomem.finish_run(store, run.id)
    assert repomem.reopen_run(store, run.id).status == "running"
    assert repomem.get_run(store, run.id).finished_at is None
    _commit(store, run.id, "pkg.util.helper")
    assert repomem.finish_run(store, run.id, status="failed").status == "failed"


def test_incremental_update_finds_changed_units_and_resets_them(store: Store, tmp_path: Path) -> None:
    run = repomem.start_run(store, tmp_path, model="m1")
    repomem.register_units(store, run.id, UNITS)
    for u in UNITS:
        _commit(store, run.id, u.unit_id)
    repomem.finish_run(store, run.id)

    new_hashes = {u.unit_id: u.content_hash for u in UNITS}
    new_hashes["pkg.util.helper"] = "h1-edited"
    new_hashes["pkg.util.fresh"] = "h9"
    del new_hashes["pkg.util.Box.open"]
    changes = repomem.changed_units(store, run.id, new_hashes)
    assert changes == repomem_rows.UnitChanges(
        changed=("pkg.util.helper",), added=("pkg.util.fresh",), removed=("pkg.util.Box.open",)
    )
    assert repomem.changed_units(store, run.id, {u.unit_id: u.content_hash for u in UNITS}) == (
        repomem_rows.UnitChanges((), (), ())
    )

    repomem.reopen_run(store, run.id)
    # the changed unit's dependents and ancestors (the product decides which) go back too
    assert repomem.reset_units(store, run.id, ["pkg.util", "repo", "pkg.util"]) == 2
    reset = repomem.get_unit(store, run.id, "repo")
    assert (reset.status, reset.document, reset.claims, reset.scores, reset.prompt_tokens) == (
        "pending",
        None,
        (),
        {},
        0,
    )
    with pytest.raises(NotFoundError, match="no unit 'ghost'"):
        repomem.reset_units(store, run.id, ["pkg", "ghost"])
    assert repomem.get_unit(store, run.id, "pkg").status == "committed"  # nothing reset by the failed call

    # registering the new code: the changed hash goes back to pending, the new unit is added
    reg = repomem.register_units(
        store,
        run.id,
        [
            NewUnit("pkg.util.helper", "component", "h1-edited", parent_id="pkg.util"),
            NewUnit("pkg.util.fresh", "component", "h9", parent_id="pkg.util"),
            *UNITS[2:],
        ],
    )
    assert (reg.added, reg.changed, reg.kept) == (("pkg.util.fresh",), ("pkg.util.helper",), 3)
    assert repomem.get_unit(store, run.id, "pkg.util.helper").document is None
    assert repomem.remove_units(store, run.id, ["pkg.util.Box.open", "never.there"]) == 1
    assert repomem.unit_ids(store, run.id, status="pending") == [
        "pkg.util.helper",
        "pkg.util.fresh",
        "pkg.util",
        "repo",
    ]
    assert repomem.unit_ids(store, run.id, status="committed") == ["pkg"]


def test_the_search_cache_counts_hits(store: Store, tmp_path: Path) -> None:
    run = repomem.start_run(store, tmp_path, model="m1")
    assert repomem_trace.cache_get(store, run.id, "external", "httpx timeout") is None
    repomem_trace.cache_put(store, run.id, "external", "httpx timeout", [{"path": "a.md", "score": 1.5}])
    repomem_trace.cache_put(store, run.id, "code", "httpx timeout", "callers: none")  # another kind
    first = repomem_trace.cache_get(store, run.id, "external", "httpx timeout")
    assert first == repomem_rows.CacheEntry("external", "httpx timeout", [{"path": "a.md", "score": 1.5}], 1)
    again = repomem_trace.cache_get(store, run.id, "external", "httpx timeout")
    assert again is not None and again.hits == 2
    repomem_trace.cache_put(store, run.id, "external", "httpx timeout", [])  # a new answer keeps the count
    third = repomem_trace.cache_get(store, run.id, "external", "httpx timeout")
    assert third is not None and (third.result, third.hits) == ([], 3)
    code = repomem_trace.cache_get(store, run.id, "code", "httpx timeout")
    assert code is not None and (code.result, code.hits) == ("callers: none", 1)
    other = repomem.start_run(store, tmp_path / "other", model="m1")
    assert repomem_trace.cache_get(store, other.id, "external", "httpx timeout") is None  # per run
    assert repomem_trace.progress(store, run.id).cache_hits == 4
    with pytest.raises(UsageError, match="not JSON"):
        repomem_trace.cache_put(store, run.id, "external", "q", {"x": object()})


def test_the_trace_keeps_the_order_of_actions_and_progress_sums_it(store: Store, tmp_path: Path) -> None:
    run = repomem.start_run(store, tmp_path, model="m1")
    repomem.register_units(store, run.id, UNITS)
    steps: list[tuple[str | None, str, dict[str, object], int, float]] = [
        ("pkg.util.helper", "READ", {"ids": ["pkg.util"]}, 0, 0.01),
        ("pkg.util.helper", "WRITE", {}, 300, 1.5),
        ("pkg.util.helper", "VERIFY", {"round": 1}, 80, 0.4),
        ("pkg.util.helper", "FINISH", {}, 0, 0.0),
        ("pkg.util.Box.open", "READ", {"query": "x"}, 0, 0.02),
        (None, "CHECKPOINT", {}, 0, 0.0),
    ]
    seqs = [
        repomem_trace.append_trace(store, run.id, unit_id=u, action=a, inputs=i, tokens=t, seconds=s)
        for u, a, i, t, s in steps
    ]
    assert seqs == [1, 2, 3, 4, 5, 6]
    rows = repomem_trace.trace(store, run.id)
    assert [(r.seq, r.unit_id, r.action, r.inputs, r.tokens) for r in rows] == [
        (i + 1, u, a, inp, t) for i, (u, a, inp, t, _) in enumerate(steps)
    ]
    assert rows[1].seconds == 1.5
    assert [r.action for r in repomem_trace.trace(store, run.id, unit_id="pkg.util.helper")] == [
        "READ",
        "WRITE",
        "VERIFY",
        "FINISH",
    ]
    _commit(store, run.id, "pkg.util.helper", prompt_tokens=300, completion_tokens=80)
    progress = repomem_trace.progress(store, run.id)
    assert (progress.total, progress.committed, progress.pending, progress.failed) == (5, 1, 4, 0)
    assert (progress.tokens, progress.trace_tokens, progress.actions) == (380, 380, 6)
    assert progress.current_unit == "pkg.util.Box.open"  # the latest traced unit still pending
    _commit(store, run.id, "pkg.util.Box.open")
    assert repomem_trace.progress(store, run.id).current_unit is None


def test_units_of_one_level_commit_and_trace_from_several_threads(store: Store, tmp_path: Path) -> None:
    """Independent units of a traversal level run concurrently: every commit lands and the
    trace numbers each action once, without gaps."""
    run = repomem.start_run(store, tmp_path, model="m1")
    ids = [f"pkg.m.f{i:02d}" for i in range(40)]
    repomem.register_units(store, run.id, [NewUnit(u, "component", "h") for u in ids])

    def work(part: list[str]) -> None:
        for uid in part:
            repomem_trace.append_trace(store, run.id, unit_id=uid, action="WRITE", tokens=10)
            repomem_trace.cache_put(store, run.id, "code", "shared question", {"by": uid})
            repomem_trace.cache_get(store, run.id, "code", "shared question")
            _commit(store, run.id, uid, prompt_tokens=7, completion_tokens=3)
        store.close()  # this thread's connection

    threads = [threading.Thread(target=work, args=(ids[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(repomem.unit_ids(store, run.id, status="committed")) == ids
    rows = repomem_trace.trace(store, run.id)
    assert [r.seq for r in rows] == list(range(1, 41)) and sorted(r.unit_id or "" for r in rows) == ids
    progress = repomem_trace.progress(store, run.id)
    assert (progress.committed, progress.tokens, progress.trace_tokens, progress.cache_hits) == (
        40,
        400,
        400,
        40,
    )


def test_bad_input_is_a_clear_error(store: Store, tmp_path: Path) -> None:
    run = repomem.start_run(store, tmp_path, model="m1")
    with pytest.raises(UsageError, match="granularity 'function'; one of component, module, package"):
        repomem.register_units(store, run.id, [NewUnit("a.f", "function", "h")])
    with pytest.raises(UsageError, match="registered twice"):
        repomem.register_units(store, run.id, [UNITS[0], UNITS[0]])
    with pytest.raises(UsageError, match="unit id must be a non-empty string"):
        repomem.register_units(store, run.id, [NewUnit("", "module", "h")])
    with pytest.raises(UsageError, match="code hash"):
        repomem.register_units(store, run.id, [NewUnit("a", "module", "")])
    assert repomem.units(store, run.id) == []  # nothing half-registered
    with pytest.raises(UsageError, match="status is one of pending, committed, failed, not 'done'"):
        repomem.unit_ids(store, run.id, status="done")
    with pytest.raises(UsageError, match="ends as one of finished, failed, not 'abandoned'"):
        repomem.finish_run(store, run.id, status="abandoned")
    repomem.register_units(store, run.id, UNITS)
    with pytest.raises(UsageError, match="claims must be a list of strings"):
        _commit(store, run.id, "pkg", claims="one claim")
    with pytest.raises(UsageError, match="claims must be a list of strings"):
        _commit(store, run.id, "pkg", claims=[1, 2])
    with pytest.raises(UsageError, match="scores is not JSON"):
        _commit(store, run.id, "pkg", scores={"consistency": float("nan")})
    with pytest.raises(UsageError, match="prompt_tokens must be a whole number"):
        _commit(store, run.id, "pkg", prompt_tokens=-1)
    with pytest.raises(UsageError, match="document is text"):
        _commit(store, run.id, "pkg", document=None)
    assert repomem.get_unit(store, run.id, "pkg").status == "pending"
    with pytest.raises(NotFoundError, match="no unit 'nope'"):
        _commit(store, run.id, "nope")
    with pytest.raises(NotFoundError, match="no repository-documentation run 999"):
        repomem.commit_unit(store, 999, "pkg", document="x")
    with pytest.raises(NotFoundError, match="run 999"):
        repomem_trace.progress(store, 999)
    with pytest.raises(NotFoundError, match="run 999"):
        repomem.changed_units(store, 999, {"a": "h"})
    with pytest.raises(UsageError, match="an action is an upper-case name"):
        repomem_trace.append_trace(store, run.id, unit_id="pkg", action="read")
    with pytest.raises(UsageError, match="seconds must be a finite number"):
        repomem_trace.append_trace(store, run.id, unit_id="pkg", action="READ", seconds=-1.0)
    with pytest.raises(UsageError, match="model must be a non-empty string"):
        repomem.start_run(store, tmp_path, model="")
    with pytest.raises(UsageError, match="settings must be a mapping"):
        repomem.start_run(store, tmp_path, model=None, settings=["x"])  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="as a list, not one string"):
        repomem.reset_units(store, run.id, "pkg")
    assert repomem_trace.trace(store, run.id) == []


def test_the_migration_applies_to_an_index_of_the_previous_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [name for name, _ in MIGRATIONS]
    previous = MIGRATIONS[: names.index("m010_repo_memory")]
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nHow to use the thing.\n", encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr("docmentor.store.db.MIGRATIONS", previous)
        old = Docmentor(tmp_path / "db")
        old.add(str(docs), name="docs", embed=False)
        old.close()
    conn = sqlite3.connect(tmp_path / "db" / "index.sqlite3")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert "sources" in tables and not tables & {"repo_runs", "repo_units", "repo_search_cache", "repo_trace"}

    engine = Docmentor(tmp_path / "db")  # this code: the new migration is applied on opening
    applied = [r[0] for r in engine.store.conn().execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert applied == names
    run = repomem.start_run(engine.store, tmp_path / "repo", model=None)
    repomem.register_units(engine.store, run.id, UNITS[:1])
    _commit(engine.store, run.id, "pkg.util.helper")
    assert repomem_trace.progress(engine.store, run.id).committed == 1
    assert [s.name for s in engine.store.sources()] == ["docs"]  # the indexed source is untouched
    assert engine.store.sources()[0].documents == 1


# -- a run killed in the middle of its commits ---------------------------------------------

N_UNITS = 400

CHILD = textwrap.dedent(
    """
    import os
    import signal
    import sys
    from pathlib import Path

    from docmentor.store import repomem, repomem_rows
    from docmentor.store.db import Store

    def document(uid):  # ~60 KB: a commit takes a while, so the kill lands inside one
        return "# " + uid + "\\n" + ("lorem ipsum dolor " * 3500) + "\\nend of " + uid + "\\n"

    store = Store(Path(sys.argv[1]))
    run = repomem.start_run(store, sys.argv[2], model="m1", settings={"n": int(sys.argv[3])})
    kill_at, statements = int(sys.argv[4]), 0

    def count(sql):  # SIGKILL itself as the kill_at-th SQL statement of the commits starts
        global statements
        statements += 1
        if statements == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    units = [
        repomem_rows.NewUnit(f"pkg.mod{i // 10}.f{i:04d}", "component", f"hash{i}", parent_id=f"pkg.mod{i // 10}")
        for i in range(int(sys.argv[3]))
    ]
    reg = repomem.register_units(store, run.id, units)
    todo = repomem.unit_ids(store, run.id, status="pending")
    print("ready", run.id, int(run.resumed), len(todo), reg.kept, flush=True)
    if kill_at:
        store.conn().set_trace_callback(count)
    for uid in todo:
        repomem.commit_unit(
            store, run.id, uid, document=document(uid), claims=[f"{uid} claim {j}" for j in range(40)],
            depends_on=[uid + ".dep"], scores={"consistency": 1.0}, model="m1",
            prompt_tokens=1000, completion_tokens=100,
        )
        print(uid, flush=True)
    repomem.finish_run(store, run.id)
    print("finished", flush=True)
    """
)


def _document(uid: str) -> str:
    return "# " + uid + "\n" + ("lorem ipsum dolor " * 3500) + "\nend of " + uid + "\n"


def _run_child(
    index: Path, root: Path, kill_after: int | None, *, kill_at_statement: int = 0
) -> tuple[list[str], list[str]]:
    """Run CHILD; with ``kill_after``, SIGKILL it once it has reported that many commits; with
    ``kill_at_statement`` it kills itself as that SQL statement of its commits starts.
    Returns its 'ready' line's fields and the units it reported committed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(index), str(root), str(N_UNITS), str(kill_at_statement)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        ready = proc.stdout.readline().split()
        assert ready and ready[0] == "ready", ready
        reported: list[str] = []
        for line in proc.stdout:
            if line.strip() == "finished":
                break
            reported.append(line.strip())
            if kill_after is not None and len(reported) >= kill_after:
                os.kill(proc.pid, signal.SIGKILL)
                break
    finally:
        proc.stdout.close()
        code = proc.wait(timeout=60)
    if kill_after is not None or kill_at_statement:
        assert code == -signal.SIGKILL
    else:
        assert code == 0
    return ready, reported


def _check_whole(store: Store, run_id: int, order: list[str]) -> list[str]:
    """Every committed unit is whole, every other one untouched; the committed ones are a
    prefix of the commit order. Returns them."""
    committed = repomem.unit_ids(store, run_id, status="committed")
    assert committed == order[: len(committed)]
    rows = {u.unit_id: u for u in repomem.units(store, run_id)}
    for uid in committed:
        row = rows[uid]
        assert row.document == _document(uid)
        assert row.claims == tuple(f"{uid} claim {j}" for j in range(40))
        assert (row.depends_on, row.scores, row.prompt_tokens, row.completion_tokens) == (
            (uid + ".dep",),
            {"consistency": 1.0},
            1000,
            100,
        )
    for uid in order[len(committed) :]:
        row = rows[uid]
        assert (row.status, row.document, row.claims, row.prompt_tokens, row.committed_at) == (
            "pending",
            None,
            (),
            0,
            None,
        )
    return committed


def test_a_killed_run_keeps_every_committed_unit_and_resumes_without_redoing_one(tmp_path: Path) -> None:
    index = tmp_path / "db" / "index.sqlite3"
    root = tmp_path / "repo"
    order = [f"pkg.mod{i // 10}.f{i:04d}" for i in range(N_UNITS)]
    committed: list[str] = []
    run_id = -1
    for kill_after in (1, 23, 61):
        ready, reported = _run_child(index, root, kill_after)
        if run_id == -1:
            run_id = int(ready[1])
            assert ready[2:] == ["0", str(N_UNITS), "0"]  # a new run, everything to do
        else:  # the same run, resumed: only what was left is done
            assert ready[1:] == [str(run_id), "1", str(N_UNITS - len(committed)), str(N_UNITS)]
            assert reported[0] == order[len(committed)]  # no committed unit is done again
        store = Store(index)
        assert store.conn().execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        now = _check_whole(store, run_id, order)
        assert set(reported) <= set(now)  # every commit reported before the kill survived
        assert len(now) < N_UNITS  # killed in the middle of the loop
        assert repomem.get_run(store, run_id).status == "running"
        store.close()
        committed = now
    ready, reported = _run_child(index, root, None)
    assert ready[1:3] == [str(run_id), "1"]
    assert reported == order[len(committed) :]
    store = Store(index)
    assert _check_whole(store, run_id, order) == order
    progress = repomem_trace.progress(store, run_id)
    assert (progress.committed, progress.pending, progress.tokens) == (N_UNITS, 0, N_UNITS * 1100)
    assert repomem.get_run(store, run_id).status == "finished"


def test_a_run_killed_at_every_statement_of_a_commit_loses_at_most_that_unit(tmp_path: Path) -> None:
    """The child kills itself as the k-th SQL statement of its commit loop starts, for each k
    through a whole commit and into the next: wherever it dies, the units before are whole
    and the one in progress is untouched."""
    index = tmp_path / "db" / "index.sqlite3"
    root = tmp_path / "repo"
    order = [f"pkg.mod{i // 10}.f{i:04d}" for i in range(N_UNITS)]
    committed: list[str] = []
    done_per_round: list[int] = []
    for k in range(1, 14):
        ready, reported = _run_child(index, root, None, kill_at_statement=k)
        store = Store(index)
        now = _check_whole(store, int(ready[1]), order)
        assert set(reported) <= set(now) and now[: len(committed)] == committed
        done_per_round.append(len(now) - len(committed))
        committed = now
        store.close()
    # the sweep crossed commits: early kills committed nothing, later ones one unit, then two
    assert done_per_round[0] == 0 and done_per_round[-1] == 2
    assert done_per_round == sorted(done_per_round)
