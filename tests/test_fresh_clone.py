"""A fresh clone has only the repository: nothing in src/ or tests/ may name the design
folder beside it, the install instructions name commands that work without a release, and the
documented evaluation example runs as written (docs/evaluation.md)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from clitool import Cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLE = DOCS / "examples" / "questions.jsonl"

_SHARED = "sha" + "red"  # spelled apart so that this file does not match its own patterns
# The forms a path to that folder takes (examples: test_the_check_sees_every_form_of_the_path):
# relative from the repository, its absolute place on the development machines, built from
# Path(__file__).parents[N], and joined from "..".
OUTSIDE = re.compile(
    r"\.\./" + _SHARED + r"(?=[/\"'`\s)]|$)"
    r"|/work/" + _SHARED + r"\b"
    r"|parents\[\d+\]\s*/\s*[\"']" + _SHARED + r"[\"']"
    r"|[\"']\.\.[\"']\s*/\s*[\"']" + _SHARED + r"[\"']",
    re.MULTILINE,
)


def _repository_files() -> list[Path]:
    return sorted(
        p
        for top in (ROOT / "src", ROOT / "tests")
        for p in top.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.stat().st_size < 2_000_000
    )


def _references(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
        for m in OUTSIDE.finditer(text)
    ]


def test_nothing_in_src_or_tests_names_the_folder_beside_the_repository() -> None:
    files = _repository_files()
    assert len(files) > 100
    found = [ref for path in files for ref in _references(path)]
    assert found == [], "tests and code may use only what the repository holds:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'CORPORA = Path(__file__).resolve().parents[2] / "' + _SHARED + '" / "corpora"',
        "see ../" + _SHARED + "/eval/httpx.jsonl",
        "python ../" + _SHARED + "/eval/evaluate.py",
        "/work/" + _SHARED + "/corpora/httpx",
        'ROOT / ".." / "' + _SHARED + '"',
    ],
)
def test_the_check_sees_every_form_of_the_path(tmp_path: Path, line: str) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(f"x = 1\n{line}\n", encoding="utf-8")
    text = probe.read_text(encoding="utf-8")
    assert [text.count("\n", 0, m.start()) + 1 for m in OUTSIDE.finditer(text)] == [2]


@pytest.mark.parametrize(
    "line",
    [
        "[outside the root](../" + _SHARED + ".md)",  # a document of that name, not the folder
        'write(tmp_path, "' + _SHARED + '/s.md", "x")',  # a folder the test makes itself
        "the " + _SHARED + " cache folder",
    ],
)
def test_the_check_leaves_other_uses_of_the_word(line: str) -> None:
    assert not OUTSIDE.search(line)


def test_the_check_is_linear_on_adversarial_lines() -> None:
    line = ("../" + _SHARED) * 20_000 + "x" + "parents[1] / " * 20_000 + "/" * 50_000
    start = time.perf_counter()
    OUTSIDE.findall(line)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("name", ["httpx", "lancedb", "backstage_adrs"])
def test_every_vendored_slice_carries_its_licence_and_origin(name: str) -> None:
    folder = ROOT / "tests" / "fixtures" / name
    assert (folder / "LICENSE").stat().st_size > 1000
    notice = (folder / "NOTICE").read_text(encoding="utf-8")
    assert re.search(r"\bcommit\s+[0-9a-f]{40}\b", notice) and "LICENSE" in notice
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 300_000, size  # slices, not corpora


# -- install instructions -------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_install_instructions_work_without_a_release(page: str) -> None:
    """No distribution named docmentor is published yet: install from a clone."""
    text = (ROOT / page).read_text(encoding="utf-8")
    bare = re.compile(r"\b(?:pip|pipx|uv tool|uv pip) install\s+docmentor\b(?![\w.-]*\s*@)")
    assert not bare.search(text), bare.search(text)
    assert "pip install -e ." in text
    assert "clone" in text


# -- the evaluation example -----------------------------------------------------------------------


def _example() -> list[dict[str, object]]:
    return [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_documented_example_file_has_the_documented_fields() -> None:
    questions = _example()
    assert len(questions) >= 3
    for q in questions:
        assert isinstance(q["query"], str) and q["query"].strip()
        assert isinstance(q["id"], str)
        labels = q["relevant"]
        assert isinstance(labels, list) and labels
        for label in labels:
            assert set(label) <= {"path", "heading", "grade"}
            assert (DOCS / label["path"]).is_file(), label  # relative to the folder added
            assert label.get("grade", 1) in (1, 2)
        expected = q["expected_contains"]
        assert isinstance(expected, list) and all(isinstance(e, str) and e for e in expected)


def test_the_documented_example_runs_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`docmentor add docs && docmentor eval assemble docs/examples/questions.jsonl` (and search)."""
    cli = Cli(tmp_path / "index", capsys)
    rc, _, err = cli("add", str(DOCS))
    assert rc == 0, err
    n = len(_example())

    lines = cli.ok("eval", "assemble", str(EXAMPLE)).splitlines()
    assert len(lines) == n + 1
    assert lines[-1] == f"passed {n}/{n} (100%), mean coverage 1.00", lines
    for line, q in zip(lines, _example(), strict=False):
        assert re.fullmatch(rf"{re.escape(str(q['id']))}\t1\.00\tpass\t\d+ tokens", line), line

    data = cli.json("eval", "search", str(EXAMPLE))
    assert data["summary"]["questions"] == n
    assert data["summary"]["document"]["r@5"] == 1.0, data["questions"]
    assert [q["id"] for q in data["questions"]] == [q["id"] for q in _example()]
