"""`docmentor clarity` end to end: the CLI in-process and in separate processes, gates, history,
the HTML report in a real headless browser, --source, --llm against a real local
OpenAI-compatible server, and the clarity MCP tools through the official client."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent

from clitool import Cli
from docmentor.clarity.models import DIMENSIONS
from docmentor.engine import Docmentor
from docmentor.server import build_server
from mcptool import CLARITY_TOOLS, structured
from openai_server import OpenAIServer, completion, fenced
from openai_server import openai_server as openai_server  # the fixture

FIXTURES = Path(__file__).parent / "fixtures" / "clarity_cli"
DOCS = FIXTURES / "docs"
PAGES = ["broken.md", "guide.md", "howto.md"]
# (path, score, grade) for the fixture pages, and every issue as (line, type, severity)
EXPECTED = {
    "broken.md": (7.6, "B"),
    "guide.md": (10.0, "A+"),
    "howto.md": (7.3, "B"),
}
EXPECTED_ISSUES = {
    "broken.md": [
        (10, "syntax_error", "critical"),
        (13, "broken_link", "warning"),
        (13, "missing_alt_text", "info"),
    ],
    "guide.md": [],
    "howto.md": [
        (3, "inconsistent_terminology", "info"),
        (7, "placeholder_text", "warning"),
        (10, "undefined_name", "warning"),
        (18, "missing_code_language", "info"),
    ],
}
SCORE_DOCS_JSON = ("clarity", "score", str(DOCS), "--json")
STAMP = re.compile(r'"generated_at": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"')


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(tmp_path / "index", capsys)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A private copy of the fixture pages (history, git and indexing write next to them)."""
    root = tmp_path / "docs"
    shutil.copytree(DOCS, root)
    return root


def one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0]


def without_stamp(text: str) -> str:
    assert len(STAMP.findall(text)) == 1, text[:300]
    return STAMP.sub('"generated_at": ""', text)


def by_path(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["path"]: d for d in result["documents"]}


# ------------------------------------------------------------------------ 1. score: output and shape


def test_human_output_table_and_summary(cli: Cli) -> None:
    out = cli.ok("clarity", "score", str(DOCS))
    lines = out.splitlines()
    assert "Documentation clarity" in lines[0]
    header = next(line for line in lines if "document" in line and "score" in line)
    for col in (
        "document",
        "score",
        "grade",
        "critical",
        "warning",
        "info",
        "broken links",
        "other penalties",
    ):
        assert col in header
    rows = {}
    for line in lines:
        cells = [c.strip() for c in re.split(r"[│|┃]", line) if c.strip()]
        if cells and cells[0] in PAGES:
            rows[cells[0]] = cells[1:]
    assert rows == {
        "broken.md": ["7.6", "B", "1", "0", "0", "1", "1 image without alt text −0.1"],
        "guide.md": ["10.0", "A+", "0", "0", "0", "0"],
        "howto.md": ["7.3", "B", "0", "2", "2", "0", "No complete executable examples found −1.5"],
    }
    assert "3 documents, average 8.3 (A); grades: A+ 1, B 2" in out
    assert "issues: 1 critical, 2 warning, 2 info; 2 below the target 8.0; scoring clarity-1, rubric " in out
    # then, for those below the target, worst first: why, and the first fixes of the roadmap
    tail = out.split("rubric ", 1)[1].splitlines()[1:]
    assert tail[1].startswith("howto.md: Good documentation but has 2 warning and 2 info issues")
    assert tail[2] == "  - Deploying the service > Build (line 7): Leftover placeholder “TODO” (+0.5 points)"
    broken = tail.index(next(t for t in tail if t.startswith("broken.md: ")))
    assert tail[broken + 1].startswith("  - Configuration > Settings file (line 10): JSON does not parse")
    assert len(tail) == broken + 2  # the quick win that repeats that fix is not shown twice
    assert "guide.md:" not in out  # at the target: nothing to explain


def test_every_penalty_shows_in_the_table(cli: Cli, tmp_path: Path) -> None:
    """8.5 with no issue: the 1.5 points the page lost are named in the table, not only in --json."""
    page = tmp_path / "widgets" / "w.md"
    page.parent.mkdir()
    page.write_text(
        "# Widgets\n\nThis page explains how widgets are configured for the service.\n\n"
        '## Configure\n\nSet the colour in the settings file:\n\n```toml\ncolour = "blue"\n```\n\n'
        "The service reads the file when it starts.\n",
        encoding="utf-8",
    )
    data = cli.json("clarity", "score", str(page.parent))["documents"][0]
    assert data["clarity_score"]["overall_score"] == 8.5 and data["summary"]["total_clarity_issues"] == 0
    lost = {p["type"]: p["penalty"] for p in data["clarity_score"]["calculation_breakdown"]["penalties"]}
    assert lost == {"no_executable_examples": 1.5}
    out = cli.ok("clarity", "score", str(page.parent))
    row = next(line for line in out.splitlines() if "w.md" in line)
    cells = [c.strip() for c in re.split(r"[│|┃]", row) if c.strip()]
    assert cells == ["w.md", "8.5", "A", "0", "0", "0", "0", "No complete executable examples found −1.5"]


def opening_fences(lines: list[str]) -> set[int]:
    """1-based numbers of the lines that open a fenced code block."""
    opened, fence = set(), ""
    for n, line in enumerate(lines, 1):
        m = re.match(r"\s*(`{3,}|~{3,})", line)
        if not m:
            continue
        if not fence:
            opened.add(n)
            fence = m.group(1)
        elif m.group(1).startswith(fence) and not line.strip()[len(m.group(1)) :].strip():
            fence = ""
    return opened


def issue_on_its_line(issue: dict[str, Any], lines: list[str]) -> bool:
    """The quoted text is on the issue's line; a code-block issue may point at its opening fence."""
    quote, n = issue["context_quote"], issue["line"]
    if not quote or not 1 <= n <= len(lines):
        return False
    if quote in lines[n - 1]:
        return True
    return n in opening_fences(lines) and n < len(lines) and quote in lines[n]


def test_json_follows_the_designs_after_shape(cli: Cli) -> None:
    result = cli.json("clarity", "score", str(DOCS))
    assert set(result) == {"generated_at", "documents", "summary"}
    assert STAMP.fullmatch(f'"generated_at": "{result["generated_at"]}"')
    summary = result["summary"]
    assert summary["documents"] == 3
    assert summary["average_score"] == 8.3 and summary["average_grade"] == "A"
    assert (summary["min_score"], summary["max_score"]) == (7.3, 10.0)
    assert summary["grade_distribution"] == {"A+": 1, "A": 0, "B": 2, "C": 0, "D": 0, "F": 0}
    assert (summary["critical_issues"], summary["warning_issues"], summary["info_issues"]) == (1, 2, 2)
    assert summary["below_target"] == 2 and summary["broken_links"] == 1
    assert summary["scoring_version"] == "clarity-1"
    assert re.fullmatch(r"[0-9a-f]{12}", summary["rubric_hash"])

    docs = by_path(result)
    assert sorted(docs) == PAGES
    for path, doc in docs.items():
        cs = doc["clarity_score"]
        assert (cs["overall_score"], cs["grade"]) == EXPECTED[path], path
        for key in ("overall_score", "grade", "rubric_tier", "rubric_description", *DIMENSIONS):
            assert key in cs, key
        assert cs["rubric_tier"] in {"10.0", "8.0-9.9", "6.0-7.9", "4.0-5.9", "2.0-3.9", "0.0-1.9"}
        for dim in DIMENSIONS:
            assert 0.0 <= cs[dim] <= 10.0
            assert cs["evaluation_criteria"][dim]["score"] == cs[dim] == doc["dimension_scores"][dim]
            assert isinstance(cs["evaluation_criteria"][dim]["measured_by"], list)
        assert cs["scoring_rationale"] == f"Score calculated: {doc['score_explanation']['calculation']}"
        assert (cs["scoring_version"], cs["rubric_hash"]) == ("clarity-1", summary["rubric_hash"])

        ex = doc["score_explanation"]
        assert (
            ex["formula"] == "10.0 - (critical × 2.0) - (warnings × 0.5) - (info × 0.1) - content_penalties"
        )
        assert ex["calculation"].endswith(f"= {cs['overall_score']}")
        assert ex["final_score"] == cs["overall_score"] and ex["grade"] == cs["grade"]
        assert {"starting_score", "critical_penalty", "warning_penalty", "info_penalty"} <= set(
            ex["breakdown"]
        )
        assert ex["human_explanation"]

        rm = doc["improvement_roadmap"]
        assert (rm["current_score"], rm["target_score"]) == (cs["overall_score"], 8.0)
        for key in ("estimated_new_score", "total_fixes_needed", "estimated_total_effort", "quick_wins"):
            assert key in rm
        dm = doc["dashboard_metrics"]
        assert dm["score_grade"] == cs["grade"]
        assert {"completeness_percent", "blocker_count", "health_status"} <= set(dm)

        lines = (DOCS / path).read_text(encoding="utf-8").splitlines()
        got = [(i["line"], i["type"], i["severity"]) for i in doc["issues"]]
        assert got == EXPECTED_ISSUES[path], path
        for issue in doc["issues"]:
            for key in ("type", "severity", "dimensions", "line", "section", "message", "suggested_fix"):
                assert issue[key] not in (None, ""), (path, key)
            assert set(issue["dimensions"]) <= set(DIMENSIONS)
            assert issue_on_its_line(issue, lines), (path, issue)

        sm = doc["summary"]
        counted = [i for i in doc["issues"] if i["counts_as"] is None]
        assert sm["total_clarity_issues"] == len(counted) == len(doc["clarity_issues"])
        for sev in ("critical", "warning", "info"):
            assert sm[f"{sev}_clarity_issues"] == sum(i["severity"] == sev for i in counted)
        assert sm["overall_quality_rating"] == cs["quality_rating"]

    broken = docs["broken.md"]
    assert broken["score_explanation"]["calculation"] == (
        "10.0 - (1 × 2.0) - (0 × 0.5) - (1 × 0.3) - (1 × 0.1) = 7.6"
    )
    assert broken["dashboard_metrics"]["blocker_count"] == 1
    fix = broken["improvement_roadmap"]["priority_fixes"][0]
    assert (fix["issue_type"], fix["severity"], fix["line"]) == ("syntax_error", "critical", 10)
    assert broken["clarity_score"]["evaluation_criteria"]["instruction_clarity"]["key_issues"][0].startswith(
        "Line 10: "
    )


def test_issue_line_check_can_fail() -> None:
    lines = ["# T", "", "```python", "x = 1", "```", "Some text."]
    assert issue_on_its_line({"context_quote": "Some text", "line": 6}, lines)
    assert issue_on_its_line({"context_quote": "x = 1", "line": 3}, lines)
    assert not issue_on_its_line({"context_quote": "Some text", "line": 5}, lines)
    assert not issue_on_its_line({"context_quote": "x = 1", "line": 2}, lines)
    assert not issue_on_its_line({"context_quote": "x", "line": 99}, lines)


# ------------------------------------------------------------------------------- 2. determinism


def test_same_input_same_bytes_in_process_and_across_processes(cli: Cli, tmp_path: Path) -> None:
    first = cli.ok("clarity", "score", str(DOCS), "--json")
    second = cli.ok("clarity", "score", str(DOCS), "--json")
    assert without_stamp(first) == without_stamp(second)

    outputs = []
    for seed in ("1", "4242"):  # different hash seeds: no set/dict order may leak into the output
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONIOENCODING": "utf-8"}
        proc = subprocess.run(
            [sys.executable, "-m", "docmentor", "--db", str(tmp_path / "index"), *SCORE_DOCS_JSON],
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr
        outputs.append(without_stamp(proc.stdout.decode("utf-8")))
    assert outputs[0] == outputs[1] == without_stamp(first)


# -------------------------------------------------------------------------------------- 3. rubric

RUBRIC = """\
[weights]
warning_issue = 1.0
critical_issue = 3.0
"""


def test_rubric_file_changes_weights_score_and_hash(cli: Cli, tmp_path: Path) -> None:
    default = cli.json("clarity", "score", str(DOCS))
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    custom = cli.json("clarity", "score", str(DOCS), "--rubric", str(rubric))
    assert custom["summary"]["rubric_hash"] != default["summary"]["rubric_hash"]
    d, c = by_path(default), by_path(custom)
    # howto.md: 2 warnings now cost 1.0 each; broken.md: its critical issue costs 3.0
    assert c["howto.md"]["clarity_score"]["overall_score"] == 6.3
    assert c["howto.md"]["score_explanation"]["calculation"] == (
        "10.0 - (0 × 3.0) - (2 × 1.0) - (2 × 0.1) - 1.5 = 6.3"
    )
    assert c["broken.md"]["clarity_score"]["overall_score"] == 6.6
    assert c["guide.md"]["clarity_score"]["overall_score"] == d["guide.md"]["clarity_score"]["overall_score"]
    for doc in c.values():
        assert doc["clarity_score"]["rubric_hash"] == custom["summary"]["rubric_hash"]
        assert doc["improvement_roadmap"]["rubric_hash"] == custom["summary"]["rubric_hash"]

    rubric_json = cli.json("clarity", "rubric", "--rubric", str(rubric))
    assert rubric_json["rubric_hash"] == custom["summary"]["rubric_hash"]
    assert rubric_json["weights"]["warning_issue"] == 1.0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[weights]\nwarning_issue = ", "not valid TOML"),
        ("[weights]\nwarnings = 1.0\n", "unknown weight 'weights.warnings'"),
        ("[weights]\nwarning_issue = -1\n", "must not be negative"),
        ('[tiers."0.0-5.0"]\nrange = [0.0, 5.0]\ngrade = "F"\ndescription = "x"\n', "leave a gap"),
        (None, "cannot read rubric file"),
    ],
)
def test_bad_rubric_file_is_an_error(cli: Cli, tmp_path: Path, content: str | None, message: str) -> None:
    rubric = tmp_path / "rubric.toml"
    if content is not None:
        rubric.write_text(content, encoding="utf-8")
    for argv in (
        ("clarity", "score", str(DOCS), "--rubric", str(rubric)),
        ("clarity", "rubric", "--rubric", str(rubric)),
    ):
        rc, out, err = cli(*argv)
        assert (rc, out) == (2, ""), argv
        assert message in one_error(err)


# --------------------------------------------------------------------------------------- 4. gates


def test_min_score_gate_fails_with_one_line_and_still_reports(cli: Cli, tmp_path: Path) -> None:
    howto = str(DOCS / "howto.md")
    report = tmp_path / "report.html"
    rc, out, err = cli("clarity", "score", howto, "--min-score", "9.5", "--json", "--html", str(report))
    assert rc == 1
    wrote, err = err.split("\n", 1)
    assert wrote == f"wrote {report} (1 document)"
    assert one_error(err) == f"error: 1 document(s) below --min-score 9.5: {howto} (7.3)"
    assert json.loads(out)["documents"][0]["clarity_score"]["overall_score"] == 7.3
    assert 'id="clarity-data"' in report.read_text(encoding="utf-8")

    rc, out, err = cli("clarity", "score", str(DOCS), "--min-score", "9.5")
    assert rc == 1
    line = one_error(err)
    assert "2 document(s) below --min-score 9.5" in line
    assert "broken.md (7.6)" in line and "howto.md (7.3)" in line and "guide.md" not in line
    assert "Documentation clarity" in out and "3 documents, average 8.3" in out  # the table is still printed


def test_fail_on_critical_gate(cli: Cli, tmp_path: Path) -> None:
    broken = str(DOCS / "broken.md")
    report = tmp_path / "report.html"
    rc, out, err = cli("clarity", "score", broken, "--fail-on-critical", "--html", str(report))
    assert rc == 1
    assert err.startswith(f"wrote {report} (1 document)\n")
    line = one_error(err.split("\n", 1)[1])
    assert line.startswith(f"error: 1 critical issue(s), first {broken}:10 syntax_error: ")
    assert "broken.md" in out and "7.6" in out
    assert report.is_file()
    # both gates failing: both said, in one line
    rc, _, err = cli("clarity", "score", broken, "--fail-on-critical", "--min-score", "9")
    line = one_error(err)
    assert rc == 1 and line.startswith(
        f"error: 1 document(s) below --min-score 9: {broken} (7.6); 1 critical issue(s), first "
    )


def test_gates_pass(cli: Cli) -> None:
    guide = str(DOCS / "guide.md")
    out = cli.ok("clarity", "score", guide, "--min-score", "9.5", "--fail-on-critical")
    assert "10.0" in out and "1 document, average 10.0" in out
    cli.ok("clarity", "score", str(DOCS / "howto.md"), "--fail-on-critical")  # warnings only
    cli.ok("clarity", "score", str(DOCS), "--min-score", "7.3")  # the lowest score is not below 7.3
    rc, _, err = cli("clarity", "score", str(DOCS), "--min-score", "11")
    assert rc == 2 and "--min-score must be between 0 and 10" in one_error(err)


# ------------------------------------------------------------------------------------- 5. history

HISTORY_KEYS = {"date", "commit", "path", "score", "grade"}
GIT_CONFIG = ("-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false")


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *GIT_CONFIG, "-C", str(repo), *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return proc.stdout.strip()


def test_history_appends_and_the_report_shows_the_trend_with_the_commit(
    cli: Cli, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    git(docs, "init", "-q")
    git(docs, "add", ".")
    git(docs, "commit", "-q", "-m", "docs")
    head = git(docs, "rev-parse", "--short=12", "HEAD")
    history = tmp_path / "out" / "clarity-history.jsonl"

    first = cli.json("clarity", "score", str(docs), "--history", str(history))
    lines = history.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    (docs / "howto.md").write_text(
        (docs / "howto.md").read_text(encoding="utf-8").replace("TODO: document the build flags.", ""),
        encoding="utf-8",
    )
    second = cli.json("clarity", "score", str(docs), "--history", str(history))
    lines = history.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6
    entries = [json.loads(line) for line in lines]
    for entry in entries:
        assert set(entry) >= HISTORY_KEYS
        assert entry["commit"] == head
    assert [e["path"] for e in entries] == PAGES * 2
    assert {(e["path"], e["score"], e["grade"]) for e in entries[3:]} == {
        ("broken.md", 7.6, "B"),
        ("guide.md", 10.0, "A+"),
        ("howto.md", 7.8, "B"),
    }
    assert all(e["date"] == first["generated_at"] for e in entries[:3])
    assert all(e["date"] == second["generated_at"] for e in entries[3:])

    for path, doc in by_path(second).items():
        trend = doc["trend"]
        assert len(trend) == 2
        before = by_path(first)[path]["clarity_score"]["overall_score"]
        assert [t["score"] for t in trend] == [before, doc["clarity_score"]["overall_score"]]
        assert trend[0]["commit"] == head
    assert [t["score"] for t in by_path(second)["howto.md"]["trend"]] == [7.3, 7.8]
    # on a terminal, one line says how the scores moved since the previous run
    out = cli.ok("clarity", "score", str(docs), "--history", str(history))
    assert "trend: 3 documents scored before, average 8.5 → 8.5 (+0.0); no score changed" in out
    (docs / "howto.md").write_text(
        (docs / "howto.md").read_text(encoding="utf-8") + "\nTODO: more.\n", encoding="utf-8"
    )
    out = cli.ok("clarity", "score", str(docs), "--history", str(history))
    assert (
        "trend: 3 documents scored before, average 8.5 → 8.3 (-0.2); most changed: howto.md 7.8 → 7.3" in out
    )


def test_history_outside_git_records_no_commit(
    cli: Cli, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    history = tmp_path / "h.jsonl"
    history.write_text("not json\n", encoding="utf-8")  # unreadable lines are skipped
    cli.ok("clarity", "score", str(docs / "guide.md"), "--history", str(history))
    entry = json.loads(history.read_text(encoding="utf-8").splitlines()[-1])
    assert (entry["commit"], entry["path"], entry["score"], entry["grade"]) == (
        None,
        str(docs / "guide.md"),
        10.0,
        "A+",
    )


def test_history_follows_the_document_not_the_path_shown(cli: Cli, docs: Path, tmp_path: Path) -> None:
    """A tour: two folders' `api.rst` scored into one history were one trend ("most changed:
    api.rst 10.0 → 7.0" compared two libraries), and a page scored alone started a new trend."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "guide.md").write_text("# Guide\n\nTODO: write it.\n", encoding="utf-8")
    history = tmp_path / "h.jsonl"
    cli.ok("clarity", "score", str(docs), "--history", str(history))
    out = cli.ok("clarity", "score", str(other), "--history", str(history))
    assert "trend:" not in out  # the other folder's guide.md was never scored before
    alone = cli.json("clarity", "score", str(docs / "guide.md"), "--history", str(history))
    (doc,) = alone["documents"]
    assert [t["score"] for t in doc["trend"]] == [10.0, 10.0]  # the folder's run, then this one
    entries = [json.loads(line) for line in history.read_text(encoding="utf-8").splitlines()]
    assert all(e["url"].startswith("file://") for e in entries)


def test_a_folder_scored_by_path_is_read_as_its_indexed_source_reads_it(cli: Cli, tmp_path: Path) -> None:
    """A tour: a page including ../README.md scored by path refused the include ("path escapes
    the docs root"), while the same folder added with --base-path read it: two scores for one
    page. Scored by path, an indexed folder is read with its source's base paths."""
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "README.md").write_text("Install it with pip.\n\n![](logo.png)\n", encoding="utf-8")
    (project / "docs" / "index.md").write_text(
        "# Project\n\nIntro.\n\n```{include} ../README.md\n```\n", encoding="utf-8"
    )
    rc, _out, err = cli("clarity", "score", str(project / "docs"))
    assert rc == 0 and "include refused" in err, err
    cli.ok("add", str(project / "docs"), "--name", "proj", "--base-path", str(project))
    rc, out, err = cli("clarity", "score", str(project / "docs"), "--json")
    assert rc == 0 and "include refused" not in err, err
    (doc,) = json.loads(out)["documents"]
    assert any(i["type"] == "missing_alt_text" for i in doc["issues"])  # the README's image, included
    by_source = cli.json("clarity", "score", "--source", "proj")["documents"][0]
    assert by_source["clarity_score"]["overall_score"] == doc["clarity_score"]["overall_score"]


# ------------------------------------------------------------------------- 6. HTML in a browser

CHROMIUM = "/usr/bin/chromium"


def chromium() -> str:
    found = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).is_file() else None)
    if found is None:
        reason = "chromium is not installed (run `make browser`: apt-get install chromium)"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"{reason}; CI must run the browser test")
        pytest.skip(reason)
    return found


def render_in_browser(page: Path, tmp_path: Path) -> tuple[str, str]:
    """(dumped DOM, stderr) of ``page`` loaded in headless chromium."""
    profile = tmp_path / f"chromium-profile-{page.stem}"
    proc = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, proc.stderr


def test_missing_chromium_fails_in_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the browser test"):
        chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        chromium()


class Cells(HTMLParser):
    """The text of elements carrying data-score / data-k / data-dim / data-trend, in document order."""

    WATCH = ("data-score", "data-k", "data-dim", "data-trend")

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str, str]] = []
        self.body: dict[str, str | None] = {}
        self.srcs: list[str] = []
        self.hrefs: list[str] = []
        self.links: list[dict[str, str | None]] = []
        self._open: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "link":
            self.links.append(a)
        if a.get("src"):
            self.srcs.append(a["src"] or "")
        if a.get("href"):
            self.hrefs.append(a["href"] or "")
        for key in self.WATCH:
            if key in a:
                self._open.append([key, a[key] or "", ""])
                return
        if self._open:
            self._open.append(["", "", ""])

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            key, value, text = self._open.pop()
            if key:
                self.cells.append((key, value, text.strip()))
            elif self._open:
                self._open[-1][2] += text

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2] += data


def browser_problems(dom: str, stderr: str) -> list[str]:
    """What is wrong with a rendered page: the script did not run, or the console saw errors."""
    problems = [line for line in stderr.splitlines() if ":CONSOLE" in line]
    parsed = Cells()
    parsed.feed(dom)
    if parsed.body.get("data-rendered") != "yes":
        problems.append('<body> has no data-rendered="yes": the inline script did not finish')
    return problems


def self_contained(html_text: str) -> None:
    parsed = Cells()
    parsed.feed(html_text)
    assert parsed.links == [], parsed.links
    assert parsed.srcs == [], parsed.srcs
    assert not re.search(r"<link\b", html_text, re.I)
    assert not re.search(r"<(script|img|iframe|link|source)\b[^>]*\bsrc\s*=", html_text, re.I)
    assert not re.search(r"(src|href)\s*=\s*[\"']?https?://", html_text, re.I)
    assert not re.search(r"@import|url\(\s*['\"]?https?:", html_text, re.I)
    for href in parsed.hrefs:
        assert href.startswith(("#", "file://")), href


EDGE = """\
# Edge cases

TODO: a quoted line with an HTML comment <!--<script> and a closing </script> tag.

Some text & more <b>text</b>.
"""


def test_html_report_renders_in_a_real_browser(cli: Cli, docs: Path, tmp_path: Path) -> None:
    chromium()
    (docs / "edge.md").write_text(EDGE, encoding="utf-8")
    history, report = tmp_path / "h.jsonl", tmp_path / "report.html"
    cli.ok("clarity", "score", str(docs), "--history", str(history))
    rc, out, err = cli(
        "clarity", "score", str(docs), "--history", str(history), "--html", str(report), "--json",
        "--min-score", "9.5",
    )  # fmt: skip
    assert rc == 1 and one_error(err.split("\n", 1)[1]).startswith(
        "error: 3 document(s) below --min-score 9.5"
    )
    result = json.loads(out)
    html_text = report.read_text(encoding="utf-8")
    self_contained(html_text)
    embedded = re.search(r'<script type="application/json" id="clarity-data">(.*?)</script>', html_text, re.S)
    assert embedded is not None and json.loads(embedded.group(1)) == result

    dom, stderr = render_in_browser(report, tmp_path)
    assert browser_problems(dom, stderr) == []
    self_contained(dom)
    parsed = Cells()
    parsed.feed(dom)
    docs_ = result["documents"]
    assert [p for p, _ in [(d["path"], 0) for d in docs_]] == ["broken.md", "edge.md", "guide.md", "howto.md"]
    scores = [(v, t) for k, v, t in parsed.cells if k == "data-score"]
    assert scores == [(str(i), f"{d['clarity_score']['overall_score']:.1f}") for i, d in enumerate(docs_)]
    keys = {v: t for k, v, t in parsed.cells if k == "data-k"}
    s = result["summary"]
    assert keys == {
        "documents": str(s["documents"]),
        "average_score": f"{s['average_score']:.1f}",
        "critical": str(s["critical_issues"]),
        "warning": str(s["warning_issues"]),
        "info": str(s["info_issues"]),
    }
    dims = [(v, t) for k, v, t in parsed.cells if k == "data-dim"]
    assert dims == [
        (name, f"{value:.1f}") for d in docs_ for name, value in sorted(d["dimension_scores"].items())
    ]
    assert any(t != "10.0" for _, t in dims)
    trends = [t for k, _, t in parsed.cells if k == "data-trend"]
    assert trends == [" → ".join(f"{e['score']:.1f}" for e in d["trend"]) for d in docs_]
    assert "7.3 → 7.3" in trends
    assert "edge.md" in [d["path"] for d in docs_]  # its quote holds <!--<script> and </script>
    # the roadmap's scores read as scores (a tour: "Roadmap to 8 (estimated 8, …)"), and an
    # issue's link opens its file (a file: URL has no #L line anchor)
    assert re.search(r"Roadmap to 8\.0 \(estimated \d+\.\d, ", dom), dom[:2000]
    assert "#L" not in "".join(re.findall(r'href="file:[^"]*"', dom))


@pytest.mark.parametrize(
    ("where", "inject"),
    [
        ("before", '<script>console.error("deliberate failure");</script>'),  # renders, but logs an error
        ("inside", "null.boom();"),  # the renderer throws before it finishes
    ],
)
def test_browser_check_catches_a_javascript_error(cli: Cli, tmp_path: Path, where: str, inject: str) -> None:
    chromium()
    report = tmp_path / "report.html"
    rc, _, err = cli("clarity", "score", str(DOCS / "guide.md"), "--html", str(report))
    assert (rc, err) == (0, f"wrote {report} (1 document)\n")
    page = report.read_text(encoding="utf-8")
    marker = "<script>\n(function () {"
    assert page.count(marker) == 1
    if where == "before":
        broken = page.replace(marker, inject + marker)
    else:
        broken = page.replace(marker, marker + "\n" + inject)
    copy = tmp_path / f"broken-{where}.html"
    copy.write_text(broken, encoding="utf-8")
    dom, stderr = render_in_browser(copy, tmp_path)
    problems = browser_problems(dom, stderr)
    assert any(":CONSOLE" in p for p in problems), stderr[-2000:]
    if where == "inside":
        assert any("Cannot read properties of null" in p for p in problems)
        assert any("data-rendered" in p for p in problems)
    else:
        assert any("deliberate failure" in p for p in problems)
        assert 'data-rendered="yes"' in dom  # the page itself rendered: only the console check fails


# ----------------------------------------------------------------- 7. --source, errors, rubric


def test_score_an_indexed_source(index_location: str, docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On each backend: the pages scored from the index are the pages on disk."""
    cli = Cli(index_location, capsys)
    cli.ok("add", str(docs), "--name", "site")
    indexed = cli.json("clarity", "score", "--source", "site")
    direct = cli.json("clarity", "score", str(docs))
    assert without_stamp(json.dumps(indexed)) == without_stamp(json.dumps(direct))
    assert sorted(by_path(indexed)) == PAGES


def test_score_errors(cli: Cli, docs: Path, tmp_path: Path) -> None:
    cli.ok("add", str(docs), "--name", "site")
    rc, out, err = cli("clarity", "score", "--source", "nope")
    assert (rc, out) == (1, "") and "nope" in one_error(err)
    rc, out, err = cli("clarity", "score", str(docs), "--source", "site")
    assert (rc, out) == (2, "")
    assert one_error(err) == "error: give documentation paths or --source NAME (one of them)"
    rc, out, err = cli("clarity", "score")
    assert (rc, out) == (2, "") and "--source" in one_error(err)
    missing = tmp_path / "no-such-dir"
    rc, out, err = cli("clarity", "score", str(missing))
    assert (rc, out) == (1, "") and one_error(err) == f"error: no such file or folder: {missing}"
    (tmp_path / "notes.py").write_text("x = 1\n", encoding="utf-8")
    rc, out, err = cli("clarity", "score", str(tmp_path / "notes.py"))
    assert (rc, out) == (2, "") and "is not a documentation file" in one_error(err)
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, out, err = cli("clarity", "score", str(empty))
    assert (rc, out) == (1, "") and "no documentation files to score" in one_error(err)


def test_rubric_command(cli: Cli) -> None:
    out = cli.ok("clarity", "rubric")
    tiers = re.findall(r"^(\S+)  (A\+|A|B|C|D|F)  (.+)$", out, re.M)
    assert tiers == [
        ("10.0", "A+", "Perfect - Production Ready"),
        ("8.0-9.9", "A", "Excellent - Minor Polish Needed"),
        ("6.0-7.9", "B", "Good - Clear Improvements Needed"),
        ("4.0-5.9", "C", "Acceptable - Multiple Issues"),
        ("2.0-3.9", "D", "Poor - Blocks Understanding"),
        ("0.0-1.9", "F", "Unusable - Cannot Be Followed"),
    ]
    weights = out.split("\nweights:\n", 1)[1]
    for line in ("critical_issue: 2.0", "warning_issue: 0.5", "info_issue: 0.1", "broken_link: 0.3"):
        assert f"  {line}\n" in weights
    data = cli.json("clarity", "rubric")
    assert set(data) == {"scoring_version", "rubric_hash", "tiers", "weights"}
    assert list(data["tiers"]) == [t[0] for t in tiers]
    assert data["tiers"]["4.0-5.9"]["range"] == [4.0, 5.9]
    assert data["weights"]["critical_issue"] == 2.0 and data["weights"]["missing_alt_text"] == 0.1
    assert (
        data["rubric_hash"] == cli.json("clarity", "score", str(DOCS / "guide.md"))["summary"]["rubric_hash"]
    )


# ------------------------------------------------------------------------------------------ 8. --llm

LLM_ISSUE = {
    "type": "ambiguous_reference",
    "severity": "warning",
    "dimensions": ["logical_flow"],
    "line": 22,
    "section": "Push",
    "message": "It is not said where the digest is printed or what to do with it.",
    "suggested_fix": "Show the output and say which command uses the digest next.",
    "context_quote": "The WidgetCtl command prints the digest when it is done.",
}


def test_llm_adds_issues_from_a_real_openai_compatible_server(
    cli: Cli, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    openai_server.script(completion(fenced({"issues": [LLM_ISSUE]})))
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "test-model")
    monkeypatch.delenv("DOCMENTOR_LLM_API_KEY", raising=False)
    howto = str(DOCS / "howto.md")
    plain = cli.json("clarity", "score", howto)["documents"][0]
    assert openai_server.requests == []
    doc = cli.json("clarity", "score", howto, "--llm")["documents"][0]
    llm = [i for i in doc["issues"] if i["check"] == "llm"]
    assert len(llm) == 1
    assert {k: llm[0][k] for k in ("type", "severity", "dimensions", "line", "section")} == {
        "type": "ambiguous_reference",
        "severity": "warning",
        "dimensions": ["logical_flow"],
        "line": 22,
        "section": "Deploying the service > Push",
    }
    lines = (DOCS / "howto.md").read_text(encoding="utf-8").splitlines()
    assert issue_on_its_line(llm[0], lines)
    assert [i for i in doc["issues"] if i["check"] != "llm"] == plain["issues"]
    assert doc["clarity_score"]["overall_score"] == plain["clarity_score"]["overall_score"] - 0.5
    assert doc["clarity_score"]["logical_flow"] == 9.5
    (req,) = openai_server.requests
    assert req.model == "test-model"
    assert "The WidgetCtl command prints the digest" in req.prompt
    assert openai_server.errors == []


def test_a_page_the_model_answers_badly_is_scored_by_the_checks_alone(
    cli: Cli, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.script(completion("I looked and it seems fine to me."))  # twice: no JSON
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "test-model")
    monkeypatch.delenv("DOCMENTOR_LLM_API_KEY", raising=False)
    howto = str(DOCS / "howto.md")
    plain = cli.json("clarity", "score", howto)["documents"][0]
    with caplog.at_level("WARNING"):
        rc, out, _ = cli("clarity", "score", howto, "--llm", "--json")
    assert rc == 0
    assert json.loads(out)["documents"][0]["clarity_score"] == plain["clarity_score"]
    (record,) = [r for r in caplog.records if r.name.startswith("docmentor.clarity")]
    message = record.getMessage()
    assert message.startswith(f"{howto} lines 1-")
    assert "the model's reply was not the JSON asked for, twice" in message
    assert message.endswith("; checked by the rules alone")
    assert len(openai_server.requests) == 2


def test_llm_without_configuration_is_an_error(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BASE_URL", "MODEL", "API_KEY"):
        monkeypatch.delenv(f"DOCMENTOR_LLM_{name}", raising=False)
    rc, out, err = cli("clarity", "score", str(DOCS / "guide.md"), "--llm")
    assert (rc, out) == (2, "")
    line = one_error(err)
    assert "DOCMENTOR_LLM_BASE_URL" in line and "DOCMENTOR_LLM_MODEL" in line


# -------------------------------------------------------------------------------------------- 9. MCP


@pytest.fixture
def engine(index_location: str, docs: Path) -> Any:
    """The fixture pages indexed as ``site`` on each backend."""
    eng = Docmentor(index_location)
    eng.add(str(docs), name="site")
    yield eng
    eng.close()


def mcp_calls(engine: Docmentor, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[CallToolResult]]:
    async def go() -> tuple[Any, list[CallToolResult]]:
        async with Client(build_server(engine, tools=["clarity"])) as client:
            tools = await client.list_tools()
            return tools, [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


DESIGN_ISSUES = [
    {
        "type": "logical_gap",
        "severity": "critical",
        "line": 45,
        "section": "Configuration",
        "message": "Step 3 references config.yaml not created earlier",
    },
    {
        "type": "missing_examples",
        "severity": "critical",
        "line": 11,
        "section": "Connection",
        "message": "No concrete example of connecting to LanceDB Cloud",
    },
]


def test_mcp_clarity_tools(engine: Docmentor, index_location: str, docs: Path, cli: Cli) -> None:
    tools, results = mcp_calls(
        engine,
        [
            ("get_rubric", {}),
            ("calculate_clarity_score", {"critical_issues": 1, "warning_issues": 5, "info_issues": 1}),
            (
                "calculate_dimension_score",
                {
                    "dimension": "logical_flow",
                    "critical_issues_for_dimension": 2,
                    "warning_issues_for_dimension": 3,
                    "info_issues_for_dimension": 0,
                },
            ),
            ("get_improvement_roadmap", {"current_score": 5.5, "target_score": 8.0, "issues": DESIGN_ISSUES}),
            ("explain_score", {"critical_issues": 3, "warning_issues": 5, "info_issues": 0}),
            (
                "explain_score",
                {
                    "score": 5.5,
                    "critical_issues": 3,
                    "warning_issues": 5,
                    "info_issues": 1,
                    "penalties_applied": [{"type": "no_executable_examples", "penalty": 1.5}],
                },
            ),
            ("score_document", {"path_or_url": str(docs / "howto.md")}),
            ("score_document", {"path_or_url": "site:broken.md"}),
            ("score_document", {"path_or_url": str(docs / "missing.md")}),
            ("calculate_dimension_score", {"dimension": "readability"}),
        ],
    )
    by_name = {t.name: t for t in tools.tools}
    assert sorted(by_name) == sorted(CLARITY_TOOLS)
    for name in CLARITY_TOOLS:
        ann = by_name[name].annotations
        assert ann is not None and ann.read_only_hint is True and ann.destructive_hint is False, name
    assert by_name["calculate_dimension_score"].input_schema["required"] == ["dimension"]
    assert set(by_name["get_improvement_roadmap"].input_schema["required"]) == {
        "current_score",
        "target_score",
        "issues",
    }
    rubric, score, dim, roadmap, explain, design_explain, local, indexed, missing, bad_dim = results

    tiers = structured(rubric)
    assert list(tiers) == ["10.0", "8.0-9.9", "6.0-7.9", "4.0-5.9", "2.0-3.9", "0.0-1.9"]
    assert tiers["10.0"]["criteria"] == {"critical_issues": 0, "warning_issues": 0, "max_info_issues": 2}

    s = structured(score)
    assert (s["overall_score"], s["grade"], s["rubric_tier"]) == (5.4, "C", "4.0-5.9")
    assert s["calculation"] == "10.0 - (1 × 2.0) - (5 × 0.5) - (1 × 0.1) = 5.4"

    d = structured(dim)
    assert (d["dimension"], d["score"]) == ("logical_flow", 4.5)
    assert d["calculation"] == "10.0 - (2 × 2.0) - (3 × 0.5) - (0 × 0.1) = 4.5"

    r = structured(roadmap)
    assert (r["current_score"], r["target_score"], r["estimated_new_score"], r["total_fixes_needed"]) == (
        5.5,
        8.0,
        9.5,
        2,
    )
    assert [(f["rank"], f["severity"], f["impact"]) for f in r["priority_fixes"]] == [
        (1, "critical", "+2.0 points"),
        (2, "critical", "+2.0 points"),
    ]
    assert {f["location"] for f in r["priority_fixes"]} == {"Configuration (line 45)", "Connection (line 11)"}

    e = structured(explain)
    assert e["calculation"] == "10.0 - (3 × 2.0) - (5 × 0.5) = 1.5"  # 3 critical, 5 warnings
    assert (e["final_score"], e["grade"]) == (1.5, "F")
    assert e["breakdown"]["critical_penalty"] == 6.0 and e["breakdown"]["warning_penalty"] == 2.5
    assert e["human_explanation"] and e["characteristics_of_tier"]

    # an explain_score call with a score of 5.5 that the formula does not give
    de = structured(design_explain)
    assert de["calculation"] == "10.0 - (3 × 2.0) - (5 × 0.5) - (1 × 0.1) - 1.5 = -0.1 → 0.0"
    assert (de["final_score"], de["grade"], de["given_score"]) == (0.0, "F", 5.5)
    assert de["breakdown"]["content_penalties"][0]["type"] == "no_executable_examples"

    cli_local = cli.json("clarity", "score", str(docs / "howto.md"))["documents"][0]
    assert structured(local) == cli_local
    indexed_by_cli = Cli(index_location, cli.capsys).json("clarity", "score", "--source", "site")
    assert structured(indexed) == by_path(indexed_by_cli)["broken.md"]
    assert structured(indexed)["clarity_score"]["overall_score"] == 7.6

    assert missing.is_error
    (text,) = missing.content
    assert isinstance(text, TextContent)
    assert "missing.md" in text.text and "Try:" in text.text, text.text
    assert bad_dim.is_error


def test_terminal_output_prints_paths_and_headings_as_they_are(cli: Cli, tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "[slug].md").write_text(
        "# Options [deprecated]\n\nTODO write [/path] this.\n\n```python\nprint(x)\n```\n", encoding="utf-8"
    )
    out = cli.ok("clarity", "score", str(pages))
    assert "│ [slug].md │" in out  # not read as rich markup (which would drop it, or fail on [/path])
    assert "\n[slug].md: " in out
    assert "  - Options [deprecated] (line 6): `x` is used but never defined" in out


def test_a_history_line_without_a_score_is_no_point_of_the_trend(cli: Cli, tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    guide = str(DOCS / "guide.md")
    history.write_text(json.dumps({"path": guide, "date": "2026-01-01"}) + "\n", encoding="utf-8")
    doc = cli.json("clarity", "score", guide, "--history", str(history))["documents"][0]
    assert [t["score"] for t in doc["trend"]] == [10.0]
    out = cli.ok("clarity", "score", guide, "--history", str(history))
    assert "trend: 1 document scored before, average 10.0 → 10.0 (+0.0); no score changed" in out


def test_files_are_scored_without_an_index_that_cannot_be_read(capsys: pytest.CaptureFixture[str]) -> None:
    """A file's score reads the index only for the drift of its library: an unreachable
    database is no reason to fail (nor is no index at all)."""
    from clitool import Cli

    unreachable = Cli("postgresql://127.0.0.1:1/nope", capsys)
    out = unreachable.ok("clarity", "score", str(DOCS / "guide.md"))
    assert "1 document, average 10.0" in out


def test_a_page_s_failed_examples_are_counted_once_and_not_beside_their_drift(tmp_path: Path) -> None:
    from docmentor.clarity import _failed_examples

    db = tmp_path / "knowledge_base" / "examples_db"
    db.mkdir(parents=True)
    examples = [
        {"example_id": "a-1", "path": "a.md", "validated": False, "origin": "docs"},
        {"example_id": "a-2", "path": "a.md", "validated": False, "drift": ["x: no parameter named 'y'"]},
        {"example_id": "a-3", "path": "a.md", "validated": True},
        {"example_id": "d-1", "path": "pkg/m.py", "validated": False, "origin": "docstring"},
        {"example_id": "b-1", "path": "b.md", "validated": False},  # a knowledge base before origin
    ]
    (db / "a.json").write_text(json.dumps(examples), encoding="utf-8")
    (db / "broken.json").write_text("{not json", encoding="utf-8")
    assert _failed_examples(tmp_path / "knowledge_base") == {("a.md", "a-1"), ("b.md", "b-1")}


def test_files_are_read_as_add_reads_them(cli: Cli, tmp_path: Path) -> None:
    """A binary file named alone is refused; in a folder it is left out with a warning; a
    Windows-1252 page reads the same alone and in its folder; an include keeps the lines of
    the page's own reST code blocks."""
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "blob.md").write_bytes(b"\x00\x01\x02binary" * 100)
    (folder / "cafe.md").write_bytes("# Café\n\nTODO: café crème.\n".encode("cp1252"))
    (folder / "ex.py").write_text("print(\n", encoding="utf-8")
    (folder / "x.rst").write_text(
        "Guide\n=====\n\nRun this:\n\n.. code-block:: python\n\n   def f(:\n       pass\n\n"
        "Next\n----\n\nAnd the file:\n\n.. literalinclude:: ex.py\n   :language: python\n",
        encoding="utf-8",
    )
    err = cli.fails("clarity", "score", str(folder / "blob.md"))
    assert "binary file" in err
    rc, out, err = cli("clarity", "score", str(folder), "--json")
    assert rc == 0 and "blob.md: skipped: binary file" in err and "read as Windows-1252" in err, err
    paths = {d["path"]: d for d in json.loads(out)["documents"]}
    assert set(paths) == {"cafe.md", "x.rst"}

    def quotes(doc: dict[str, Any]) -> list[str]:
        return [i["context_quote"] for i in doc["issues"]]

    alone = json.loads(cli("clarity", "score", str(folder / "cafe.md"), "--json")[1])["documents"][0]
    assert quotes(alone) == quotes(paths["cafe.md"]) == ["TODO: café crème."]
    lines = sorted(i["line"] for i in paths["x.rst"]["issues"] if i["type"] == "syntax_error")
    assert lines == [8, 16], paths["x.rst"]["issues"]  # `def f(:`, and the literalinclude's line


def test_an_empty_page_is_a_critical_issue(cli: Cli, tmp_path: Path) -> None:
    pages = {"empty.md": "", "front.md": "---\ntitle: x\n---\n", "heads.md": "# Only\n\n## Headings\n"}
    for name, text in pages.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = cli.json("clarity", "score", *(str(tmp_path / n) for n in pages))
    for doc in report["documents"]:
        assert [(i["type"], i["severity"]) for i in doc["issues"]] == [("empty_document", "critical")], doc
        assert doc["clarity_score"]["overall_score"] < 8.0
    (tmp_path / "ok.md").write_text("# Title\n\nSome words.\n", encoding="utf-8")
    assert not any(
        i["type"] == "empty_document"
        for i in cli.json("clarity", "score", str(tmp_path / "ok.md"))["documents"][0]["issues"]
    )


def test_a_page_whose_penalties_pass_ten_points_is_scored(cli: Cli, tmp_path: Path) -> None:
    """40 broken links cost 12 points: the score floors, the report is still made."""
    (tmp_path / "bl").mkdir()
    links = " ".join(f"[x](missing{i}.md)" for i in range(40))
    (tmp_path / "bl" / "page.md").write_text(f"# Page\n\nSee {links}.\n", encoding="utf-8")
    (doc,) = cli.json("clarity", "score", str(tmp_path / "bl"))["documents"]
    assert doc["clarity_score"]["overall_score"] == 0.0


def test_scoring_a_folder_says_its_first_reading_warnings_then_how_many_more(
    cli: Cli, tmp_path: Path
) -> None:
    """A site whose includes read from outside the folder scored (lancedb's docs: 400 include
    warnings) gets ten lines and a count with what to do, not a screen of them."""
    site = tmp_path / "site"
    site.mkdir()
    for i in range(14):
        (site / f"page{i}.md").write_text(
            f'# Page {i}\n\nUse it so:\n\n```python\n--8<-- "../examples/ex{i}.py"\n```\n', encoding="utf-8"
        )
    rc, _out, err = cli("clarity", "score", str(site))
    lines = err.splitlines()
    assert rc == 0 and len(lines) == 11, err
    assert all(line.startswith("warning: page") for line in lines[:10]), err
    assert lines[10].startswith("warning: … and 4 more (includes a folder outside the one scored reads"), err


def test_a_folder_whose_every_page_is_skipped_says_so(cli: Cli, tmp_path: Path) -> None:
    """A 6 MB page is skipped as `add` skips it; the error said "give .md … files" of an .md."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "huge.md").write_bytes(b"# Huge\n\n" + b"many words in a line\n" * 300_000)
    rc, out, err = cli("clarity", "score", str(site))
    assert rc == 1 and out == "", err
    assert err.splitlines() == [
        "warning: huge.md: skipped: over the size cap of 5.0 MB",
        "error: no documentation files to score: 1 skipped (the warnings above say why each was "
        "not read: `add` skips the same files)",
    ]


def test_a_page_over_the_default_size_cap_is_scored_under_docmentor_tomls(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`max_bytes` in the working folder's docmentor.toml is the size cap of `clarity score`
    too, as of `add` (a tour: a large page could not be scored whatever the file said)."""
    page = tmp_path / "big.md"
    page.write_text("# Big\n\n" + "A sentence of the page.\n" * 400, encoding="utf-8")  # ~9.6 KB
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (work / "docmentor.toml").write_text("max_bytes = 2000\n", encoding="utf-8")
    rc, _, err = cli("clarity", "score", str(page))
    assert rc == 1 and "over the size cap" in err, err
    (work / "docmentor.toml").write_text("max_bytes = 20000\n", encoding="utf-8")
    rc, out, err = cli("clarity", "score", str(page))
    assert rc == 0 and "1 document, average" in out, err
    # a page of an indexed folder source: the cap that source was read with (a review)
    (work / "docmentor.toml").unlink()
    rc, _, err = cli("add", str(tmp_path), "--name", "t", "--max-bytes", "2000")
    rc, _, err = cli("clarity", "score", str(page))
    assert rc == 1 and "over the size cap" in err, err


def test_a_history_line_is_dated_as_its_report(tmp_path: Path) -> None:
    """Under load the run's report and its history lines were stamped apart (a second boundary
    between them failed the test above once): the lines take the report's date."""
    from docmentor.clarity.history import record_history

    doc = {
        "path": "a.md",
        "url": "file:///a.md",
        "clarity_score": {"overall_score": 7.0, "grade": "B"},
        "summary": {"critical_clarity_issues": 0, "warning_clarity_issues": 1, "info_clarity_issues": 0},
    }
    result = {"generated_at": "2020-01-02T03:04:05Z", "documents": [doc]}
    history = tmp_path / "history.jsonl"
    record_history(result, history, commit=None)
    (line,) = history.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["date"] == "2020-01-02T03:04:05Z"
