"""`docmentor repo-docs` (generate, status, show, evaluate) through the CLI, on a copy of the sample
repository, with the model behind the scripted OpenAI-compatible server; and the library
functions it reads the index with (``repodocs/runs.py``, ``repomem.latest_run``)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError
from docmentor.repodocs.runs import repo_run_status, repo_unit_document
from docmentor.store import repomem
from docmentor.store.repomem_rows import NewUnit
from openai_server import OpenAIServer
from openai_server import openai_server as openai_server  # the fixture
from test_repodocs_agent import UNITS, Model, good_document

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    target = tmp_path / "sample"
    shutil.copytree(SAMPLE, target)
    return target


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """The CLI on an embedded index, for what is about the files written, not the index."""
    for name in ("DOCMENTOR_LLM_BASE_URL", "DOCMENTOR_LLM_MODEL", "DOCMENTOR_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return Cli(tmp_path / "db", capsys)


@pytest.fixture
def any_cli(index_location: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """The CLI on a new index of each backend: a folder, or a PostgreSQL schema's URL."""
    for name in ("DOCMENTOR_LLM_BASE_URL", "DOCMENTOR_LLM_MODEL", "DOCMENTOR_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return Cli(index_location, capsys)


def generated(cli: Cli, *args: str) -> str:
    """``cli.ok`` for ``repo-docs generate``: the sample repository's problem files (broken.py,
    blob.py, latin.py) are named on stderr as warnings, nothing else."""
    rc, out, err = cli(*args)
    assert rc == 0 and all(line.startswith("warning: ") for line in err.splitlines()), err
    return out


def has_index(location: str) -> bool:
    """Whether an index was made there: the folder exists, or the schema holds tables."""
    if not location.startswith("postgresql"):
        return Path(location).exists()
    import psycopg

    with psycopg.connect(location) as conn:
        row = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchone()
    return row is not None and row[0] > 0


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_help_lists_repo_docs(cli: Cli) -> None:
    rc, out, _ = cli.raw("--help")
    assert rc == 0 and "repo-docs" in out
    rc, out, _ = cli.raw("repo-docs", "--help")
    assert rc == 0 and all(c in out for c in ("generate", "status", "show", "evaluate"))


# -- without a model -------------------------------------------------------------------------------


def test_generate_without_a_model_writes_the_tree_and_again_byte_identical(cli: Cli, repo: Path) -> None:
    rc, out, err = cli("repo-docs", "generate", str(repo), "--no-register")
    target = repo / ".docmentor-docs"
    assert rc == 0 and (target / "index.md").is_file() and (target / "documentation.json").is_file()
    assert out.count("\n") == 1 and "without a model" in out and str(target) in out
    assert "3 file(s) could not be read (named above)" in out  # broken.py, blob.py, latin.py
    # each named, with why (a tour: the text output only counted them)
    warned = sorted(line.split(":")[1].strip() for line in err.splitlines() if line.startswith("warning: "))
    assert warned == ["blob.py", "broken.py", "latin.py"], err
    first = tree(target)
    data = cli.json("repo-docs", "generate", str(repo), "--no-register")
    assert set(data) == {"root", "out", "documents", "files", "problems", "source"} and data["source"] is None
    assert data["root"] == str(repo.resolve()) and data["out"] == str(target)
    assert data["documents"]["repository"] == 1 and data["documents"]["function"] > 0
    assert data["files"] == len(first)
    assert any(p["path"] == "broken.py" for p in data["problems"])
    assert tree(target) == first  # a second run: byte-identical
    assert not (cli.db).exists()  # no model: no index touched


def test_a_page_of_the_tree_the_index_leaves_out_is_said(
    cli: Cli, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generated page over the size cap (a module of thousands of functions, against the
    5 MB default; here a cap of 3,000 bytes from docmentor.toml) is named on stderr and in
    the JSON, not left out of the index without a word (a tour)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "docmentor.toml").write_text("max_bytes = 3000\n", encoding="utf-8")
    monkeypatch.chdir(work)
    rc, _, err = cli("repo-docs", "generate", str(repo))
    left = [line for line in err.splitlines() if ": not indexed: " in line]
    assert rc == 0 and left, err
    assert left[0].startswith("warning: repo-sample:") and "over the size cap" in left[0]
    data = cli.json("repo-docs", "generate", str(repo))
    assert data["source"]["skipped"] and "over the size cap" in data["source"]["skipped"][0]["reason"]


def test_options_for_a_model_and_a_folder_without_code_are_warned_of(cli: Cli, tmp_path: Path) -> None:
    """Without a model, --update / --fresh / --workers change nothing, and an empty folder is
    documented as a repository page alone: each is said on stderr; the tree is still written."""
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, out, err = cli("repo-docs", "generate", str(empty), "--no-register", "--update", "--workers", "2")
    assert rc == 0 and "documented 1 unit (1 repository)" in out
    assert err.splitlines() == [
        "warning: --update, --workers: only with a model; this run writes the tree from the code alone",
        f"warning: no source file to document in {empty.resolve()}: the tree holds the repository's page only",
    ]


def test_no_llm_wins_over_a_configured_endpoint_and_out_is_honoured(
    cli: Cli, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "none")
    out = tmp_path / "docs"
    data = cli.json("repo-docs", "generate", str(repo), "--out", str(out), "--no-llm", "--no-register")
    assert data["out"] == str(out) and (out / "index.md").is_file()
    assert not (repo / ".docmentor-docs").exists()


def test_bad_paths_and_outputs_are_one_line_errors_and_nothing_is_lost(
    cli: Cli, repo: Path, tmp_path: Path
) -> None:
    err = cli.misused("repo-docs", "generate", str(tmp_path / "missing"))
    assert "does not exist" in err
    err = cli.misused("repo-docs", "generate", str(repo / "shop" / "util.py"))
    assert "is not a folder" in err
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine\n")
    err = cli.misused("repo-docs", "generate", str(repo), "--out", str(a_file))
    assert "is a file" in err and a_file.read_text() == "mine\n"
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "keep.md").write_text("keep me\n")
    err = cli.misused("repo-docs", "generate", str(repo), "--out", str(foreign))
    assert "not replaced" in err and "--out" in err
    assert tree(foreign) == {"keep.md": b"keep me\n"}
    rc, out, err = cli("repo-docs", "generate")  # no PATH: a usage error
    assert rc == 2 and out == "" and "PATH" in err


def test_status_and_show_without_any_documentation(any_cli: Cli, repo: Path) -> None:
    err = any_cli.fails("repo-docs", "status", str(repo))
    assert f"no documentation of {repo.resolve()} yet" in err and "repo-docs generate" in err
    assert err.count("(") == 1  # one plain hint, not a hint in a hint's parentheses
    err = any_cli.fails("repo-docs", "evaluate", str(repo))
    assert "no documentation in" in err and "documentation.json is missing" in err, err
    assert "Errno" not in err and "repo-docs generate PATH" in err
    err = any_cli.fails("repo-docs", "show", "shop.util", "--path", str(repo))
    assert "no documentation of" in err
    Docmentor(any_cli.location).close()  # an index, but no run of this repository and no tree
    err = any_cli.fails("repo-docs", "status", str(repo))
    assert f"no documentation of {repo.resolve()} yet" in err


def test_status_and_show_read_a_tree_written_without_a_model_with_or_without_an_index(
    any_cli: Cli, repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "docs"
    generated(any_cli, "repo-docs", "generate", str(repo), "--no-register", "--out", str(out))
    assert not has_index(any_cli.location)
    err = any_cli.fails("repo-docs", "status", str(repo))  # the tree is not where status looks
    assert "no documentation of" in err and "a tree written elsewhere is read with the same --out" in err
    status = any_cli.json("repo-docs", "status", str(repo), "--out", str(out))
    units = json.loads((out / "documentation.json").read_text(encoding="utf-8"))["units"]
    assert status["mode"] == "no_model" and status["finished"] and status["out"] == str(out)
    assert status["units"] == {"total": len(units), "done": len(units), "failed": 0, "pending": 0}
    text = any_cli.ok("repo-docs", "status", str(repo), "--out", str(out))
    assert f"{len(units)} units documented without a model in {out}" in text
    assert "code: unchanged since it was documented" in text
    assert status["code"] == {"current": True, "changed": [], "added": [], "removed": []}
    shown = any_cli.ok("repo-docs", "show", "shop.util.clamp", "--path", str(repo), "--out", str(out))
    assert "## Signature" in shown and "clamp(" in shown
    row = any_cli.json("repo-docs", "show", "shop.util.clamp", "--path", str(repo), "--out", str(out))
    assert row["mode"] == "no_model" and row["kind"] == "function" and row["document"].startswith(shown)
    generated(any_cli, "repo-docs", "generate", str(repo))  # the default folder, indexed: an index now
    assert any_cli.json("repo-docs", "status", str(repo))["mode"] == "no_model"
    err = any_cli.fails("repo-docs", "show", "shop.util.clam", "--path", str(repo))
    assert "no unit 'shop.util.clam'" in err and "did you mean shop.util.clamp" in err  # as with a model


# -- with a model ----------------------------------------------------------------------------------


@pytest.fixture
def model_run(
    any_cli: Cli, repo: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> tuple[Cli, str]:
    """The sample documented by the scripted model into an index of each backend."""
    return any_cli, generate_with_the_model(any_cli, repo, openai_server, monkeypatch)


@pytest.fixture
def lite_model_run(
    cli: Cli, repo: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> tuple[Cli, str]:
    """As ``model_run``, into an embedded index only (for what does not depend on the backend)."""
    return cli, generate_with_the_model(cli, repo, openai_server, monkeypatch)


def generate_with_the_model(
    cli: Cli, repo: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> str:
    openai_server.script(Model())
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "scripted")
    return generated(cli, "repo-docs", "generate", str(repo))


def test_generate_with_a_model_then_status_and_show(model_run: tuple[Cli, str], repo: Path) -> None:
    cli, out = model_run
    total = len(UNITS)
    assert f"{total} units committed, 0 failed, 0 already done, of {total}" in out
    assert "\nfinished\n" in out and "from the index" in out and "repo-docs show UNIT" in out
    assert f"{total} documents by the model, 0 from the code alone" in out
    assert "no Markdown tree" not in out and (repo / ".docmentor-docs" / "index.md").is_file()
    status = cli.json("repo-docs", "status", str(repo))
    assert status["mode"] == "model" and status["status"] == "finished" and status["model"] == "scripted"
    assert status["finished"]
    assert status["units"] == {"total": total, "committed": total, "pending": 0, "failed": 0}
    assert status["tokens"] == status["prompt_tokens"] + status["completion_tokens"] > 0
    assert status["current_unit"] is None
    text = cli.ok("repo-docs", "status", str(repo))
    assert f"{total} committed, 0 pending, 0 failed, of {total}" in text and ": finished" in text
    doc = cli.ok("repo-docs", "show", "shop.util.clamp", "--path", str(repo))
    assert doc == good_document(UNITS["shop.util.clamp"]) + "\n"
    row = cli.json("repo-docs", "show", "shop.util.clamp", "--path", str(repo))
    assert row["unit_id"] == "shop.util.clamp" and row["status"] == "committed" and row["mode"] == "model"
    assert row["claims"] == ["shop.util.clamp exists."] and row["model"] == "scripted"
    err = cli.fails("repo-docs", "show", "shop.util.clam", "--path", str(repo))
    assert "no unit 'shop.util.clam'" in err and "did you mean shop.util.clamp" in err
    assert status["code"]["current"] and "code: unchanged" in text


@pytest.mark.parametrize("mode", ["model", "no_model"])
def test_status_says_which_units_changed_since_they_were_documented(
    mode: str, cli: Cli, repo: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Code edited after the documentation was written: status names the units changed, added
    and removed (what the next generate documents again), by the tree's or the run's hashes."""
    if mode == "model":
        generate_with_the_model(cli, repo, openai_server, monkeypatch)
    else:
        generated(cli, "repo-docs", "generate", str(repo), "--no-register")
    util = repo / "shop" / "util.py"
    text = util.read_text(encoding="utf-8")
    text = text.replace("return round(x, 2)", "return round(x, 3)")
    text = text.replace(
        "def logged(fn):", "def twice(x: float) -> float:\n    return 2 * x\n\n\ndef logged(fn):"
    )
    util.write_text(text, encoding="utf-8")
    (repo / "shop" / "pricing.py").unlink()
    status = cli.json("repo-docs", "status", str(repo))
    assert status["mode"] == mode
    code = status["code"]
    assert not code["current"]
    assert "shop.util.round2" in code["changed"] and "shop.util.clamp" not in code["changed"]
    assert "shop.util" in code["changed"]  # a module's hash is its whole text
    assert code["added"] == ["shop.util.twice"]
    assert "shop.pricing" in code["removed"]
    shown = cli.ok("repo-docs", "status", str(repo))
    assert "code changed since it was documented:" in shown and "added: shop.util.twice" in shown
    how = "generate --update" if mode == "model" else "generate writes the tree again"
    assert how in shown


def test_show_defaults_to_the_current_folder(
    lite_model_run: tuple[Cli, str], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli, _ = lite_model_run
    monkeypatch.chdir(repo)
    assert cli.ok("repo-docs", "show", "shop.util") == good_document(UNITS["shop.util"]) + "\n"
    monkeypatch.chdir(repo / "shop")  # a folder with no run of its own
    err = cli.fails("repo-docs", "show", "shop.util")
    assert f"no documentation of {repo / 'shop'} yet" in err


def test_generate_with_workers_and_prices_reports_the_cost_of_the_counted_tokens(
    any_cli: Cli, repo: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.script(Model())
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "scripted")
    err = any_cli.misused("repo-docs", "generate", str(repo), "--prices", "-1", "2")
    assert "--prices" in err and openai_server.requests == []
    data = any_cli.json("repo-docs", "generate", str(repo), "--workers", "2", "--prices", "1.5", "6")
    assert data["finished"] and data["prompt_tokens"] > 0 and data["completion_tokens"] > 0
    expected = (data["prompt_tokens"] * 1.5 + data["completion_tokens"] * 6) / 1_000_000
    assert data["cost"] == pytest.approx(expected)
    # nothing changed
    text = generated(any_cli, "repo-docs", "generate", str(repo), "--update", "--prices", "1.5", "6")
    assert "0 units committed" in text and "0 tokens (0 prompt, 0 completion), cost 0.0000" in text


def test_generate_update_sends_the_model_only_what_the_edit_made_stale(
    model_run: tuple[Cli, str], repo: Path, openai_server: OpenAIServer
) -> None:
    cli, _ = model_run
    asked = len(openai_server.requests)
    out = generated(cli, "repo-docs", "generate", str(repo), "--update")  # nothing changed: nothing to do
    assert f"0 units committed, 0 failed, {len(UNITS)} already done" in out
    assert len(openai_server.requests) == asked
    clamp = repo / "shop" / "util.py"
    clamp.write_text(
        clamp.read_text(encoding="utf-8") + "\n\ndef spare() -> int:\n    return 1\n", encoding="utf-8"
    )
    out = generated(cli, "repo-docs", "generate", str(repo), "--update")
    done = int(out.split(" units committed")[0].split(": ")[-1])
    assert 0 < done < len(UNITS)  # the new function, its module, package and the repository
    assert len(openai_server.requests) > asked


def test_evaluate_scores_the_tree_and_names_what_fails(cli: Cli, repo: Path) -> None:
    generated(cli, "repo-docs", "generate", str(repo), "--no-llm")
    data = cli.json("repo-docs", "evaluate", str(repo))
    assert {m: data["metrics"][m]["value"] for m in data["metrics"]} == {
        "sections": 1.0,
        "coverage": 1.0,
        "signatures": 1.0,
        "parameters": 1.0,
        "symbols": 1.0,
        "links": 1.0,
    }
    page = next((repo / ".docmentor-docs").rglob("shop.pricing.md"))
    page.write_text(page.read_text(encoding="utf-8").replace("](", "](missing-", 1), encoding="utf-8")
    text = cli.ok("repo-docs", "evaluate", str(repo))
    assert "links: " in text and "links: 1.000" not in text
    err = cli.fails("repo-docs", "evaluate", str(repo), "--out", str(repo / "nowhere"))
    assert "documentation.json" in err


# -- the library functions behind status and show ----------------------------------------------------


def test_latest_run_run_status_and_unit_document_on_a_real_store(index_location: str, repo: Path) -> None:
    engine = Docmentor(index_location)
    try:
        store = engine.store
        assert repomem.latest_run(store, repo) is None
        with pytest.raises(NotFoundError, match="no documentation run"):
            repo_run_status(store, repo)
        first = repomem.start_run(store, repo, model="m")
        repomem.finish_run(store, first.id)
        run = repomem.start_run(store, repo, model="m")
        assert run.id != first.id
        latest = repomem.latest_run(store, str(repo / "shop" / ".."))  # the same root, spelled otherwise
        assert latest is not None and latest.id == run.id
        repomem.register_units(
            store,
            run.id,
            [NewUnit("pkg.a", "component", "h1", "pkg"), NewUnit("pkg.b", "component", "h2", "pkg")],
        )
        repomem.commit_unit(
            store,
            run.id,
            "pkg.a",
            document="A.",
            claims=["a"],
            model="m",
            prompt_tokens=5,
            completion_tokens=2,
        )
        repomem.fail_unit(store, run.id, "pkg.b", error="out of steps", prompt_tokens=1, completion_tokens=1)
        status = repo_run_status(store, repo)
        assert not status.finished and status.run.id == run.id
        data = status.to_dict()
        assert data["units"] == {"total": 2, "committed": 1, "pending": 0, "failed": 1}
        assert (data["prompt_tokens"], data["completion_tokens"], data["tokens"]) == (6, 3, 9)
        assert repo_unit_document(store, repo, "pkg.a").document == "A."
        with pytest.raises(NotFoundError, match="it failed: out of steps"):
            repo_unit_document(store, repo, "pkg.b")
        with pytest.raises(NotFoundError, match=r"did you mean pkg\.a"):
            repo_unit_document(store, repo, "a")
        with pytest.raises(NotFoundError) as caught:
            repo_unit_document(store, repo, "zzz")
        assert caught.value.hint == "unit ids are dotted names such as 'pkg.a'; the repository's page is '.'"
    finally:
        engine.close()


def test_a_terminal_gets_a_progress_bar_of_units_and_tokens_on_stderr(
    cli: Cli, repo: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.script(Model())
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "scripted")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    rc, out, err = cli("repo-docs", "generate", str(repo))
    total = len(UNITS)
    assert rc == 0 and f"{total} units committed" in out
    assert "documenting units" in err and "tokens" in err and f"/{total}" in err
    # --json prints only the JSON, no bar
    rc, out, err = cli("repo-docs", "generate", str(repo), "--json")
    assert rc == 0 and "documenting" not in err


# -- the tree without a model served as a docs source ------------------------------------------------


def test_generate_registers_the_tree_as_a_source_and_refreshes_it(any_cli: Cli, repo: Path) -> None:
    out = generated(any_cli, "repo-docs", "generate", str(repo))
    assert "indexed as the docs source repo-sample" in out and out.count("\n") == 1
    (src,) = any_cli.json("sources")["sources"]
    assert src["name"] == "repo-sample" and src["target"] == str(repo / ".docmentor-docs")
    hits = any_cli.json("search", "discounted")["results"]
    assert hits and hits[0]["source"] == "repo-sample" and hits[0]["path"] == "modules/shop.pricing.md"
    assert any("`discounted` (function)" in h for h in hits[0]["heading_path"])
    # the code changes; a second run refreshes the same source, no duplicate
    (repo / "shop" / "pricing.py").write_text(
        (repo / "shop" / "pricing.py").read_text() + "\n\ndef frobnicate_totals(x):\n    return x\n"
    )
    data = any_cli.json("repo-docs", "generate", str(repo))
    assert data["source"]["name"] == "repo-sample" and data["source"]["refreshed"] is True
    assert [s["name"] for s in any_cli.json("sources")["sources"]] == ["repo-sample"]
    hits = any_cli.json("search", "frobnicate_totals")["results"]
    assert hits and hits[0]["path"] == "modules/shop.pricing.md"


def test_generate_takes_a_free_name_when_repo_name_serves_another_folder(
    any_cli: Cli, repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "a.md").write_text("# A\n\ntext\n")
    any_cli.ok("add", str(other), "--name", "repo-sample")
    data = any_cli.json("repo-docs", "generate", str(repo), "--out", str(tmp_path / "tree"))
    assert data["source"] == {
        "name": "repo-sample-2",
        "out": str(tmp_path / "tree"),
        "refreshed": False,
        "documents": data["files"] - 1,  # every page but documentation.json
        "skipped": [],
    }


def test_a_run_that_stops_on_a_failing_endpoint_exits_1_after_its_report(
    cli: Cli, repo: Path, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI script sees a run the model endpoint stopped fail (exit 1), after the report."""
    from openai_server import error

    openai_server.script(*[error(500, "boom")] * 200)
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "scripted")
    monkeypatch.setenv("DOCMENTOR_LLM_MAX_ATTEMPTS", "1")
    rc, out, err = cli("repo-docs", "generate", str(repo), "--no-register")
    assert rc == 1 and "0 units committed" in out and "stopped after" in out, (out, err)
    said = [line for line in err.splitlines() if not line.startswith("warning: ")]  # its problem files, named
    assert said[0].startswith("error: the model did not document every unit: stopped after"), err
    # no process works on it now: status says it is not finished and how to go on, not "running"
    text = cli.ok("repo-docs", "status", str(repo))
    assert ": not finished (repo-docs generate goes on where it stopped)" in text, text
    assert "running" not in text


def test_evaluate_says_when_a_metric_had_nothing_to_check(cli: Cli, tmp_path: Path) -> None:
    """A package with no function has no signature to check: not a perfect 1.000 (0/0)."""
    (tmp_path / "tiny" / "pkg").mkdir(parents=True)
    (tmp_path / "tiny" / "pkg" / "__init__.py").write_text('"""A tiny package."""\n', encoding="utf-8")
    generated(cli, "repo-docs", "generate", str(tmp_path / "tiny"), "--no-llm", "--no-register")
    text = cli.ok("repo-docs", "evaluate", str(tmp_path / "tiny"))
    assert "signatures: nothing to check" in text and "(0/0)" not in text, text


def test_generate_again_goes_on_with_the_finished_run_and_fresh_starts_anew(
    model_run: tuple[Cli, str], repo: Path, openai_server: OpenAIServer
) -> None:
    cli, _ = model_run
    asked = len(openai_server.requests)
    first = cli.json("repo-docs", "generate", str(repo))
    assert first["committed"] == [] and len(openai_server.requests) == asked  # nothing changed: nothing sent
    fresh = cli.json("repo-docs", "generate", str(repo), "--fresh")
    assert fresh["run_id"] != first["run_id"] and len(openai_server.requests) > asked
    err = cli.misused("repo-docs", "generate", str(repo), "--fresh", "--update")
    assert "choose one" in err
