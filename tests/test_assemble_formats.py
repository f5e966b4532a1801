"""`assemble` chooses the same sections whatever the output format (issue 19, section 4).

The budget counts the digest as Markdown; ``--format json`` structures that same digest
(docs/assemble.md, "The budget and the format"). Runs the CLI in-process on the committed
fixture corpora.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.assemble.tokens import count_tokens

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SOURCE_LINE = re.compile(r"^\*\*Source:\*\* (\S+):(\d+)-(\d+)", re.M)
ACTUAL = re.compile(r"^\*\*Actual Tokens:\*\* (\d+)$", re.M)
QUESTIONS = ["how do we deploy a new service", "what is our retry policy", "configuration"]
BUDGETS = [200, 500, 800, 2000, 8000]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("formats") / "index"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DOCMENTOR_HOME", str(path.parent / "home"))
        mp.delenv("DOCMENTOR_DB", raising=False)
        mp.delenv("DOCMENTOR_SOURCES", raising=False)
        from docmentor.engine import Docmentor

        eng = Docmentor(path)
        eng.add(str(FIXTURES / "assemble"), name="fx")
        eng.add(str(FIXTURES / "corpus"), name="corpus")
        eng.close()
    return path


def _markdown_selection(out: str) -> list[tuple[str, int, int]]:
    return [(p, int(a), int(b)) for p, a, b in SOURCE_LINE.findall(out)]


@pytest.mark.parametrize("question", QUESTIONS)
def test_same_sections_in_markdown_and_json(
    db: Path, capsys: pytest.CaptureFixture[str], question: str
) -> None:
    cli = Cli(db, capsys)
    sizes = []
    for budget in BUDGETS:
        rc, md, md_err = cli("assemble", question, "--max-tokens", str(budget))
        assert rc == 0, md_err
        rc, out, err = cli("assemble", question, "--max-tokens", str(budget), "--format", "json")
        assert (rc, err) == (0, md_err)  # a warning (nothing fit) in one format is in the other
        data = json.loads(out)
        chosen = [(s["path"], s["line_start"], s["line_end"]) for s in data["sections"]]
        assert chosen == _markdown_selection(md), (question, budget)
        assert [s["trimmed"] for s in data["sections"]] == [
            "(trimmed)" in s["text"] for s in data["sections"]
        ]
        # the budget counts the digest as Markdown, in both formats
        actual = int(ACTUAL.findall(md)[0])
        assert actual == count_tokens(md, "o200k_base") <= budget
        assert (data["actual_tokens"], data["actual_tokens_of"], data["token_budget"]) == (
            actual,
            "markdown",
            budget,
        )
        assert data["sections_selected"] == len(chosen)
        sizes.append(len(chosen))
    assert sizes[-1] > sizes[0]  # the budgets do change the selection: the comparison means something


def test_small_json_budget_is_not_empty_where_markdown_has_content(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(db, capsys)
    q = "how do we deploy a new service"
    md = cli.ok("assemble", q, "--max-tokens", "500", "--source", "fx")
    data = json.loads(cli.ok("assemble", q, "--max-tokens", "500", "--source", "fx", "-f", "json"))
    assert len(_markdown_selection(md)) >= 2
    assert [(s["path"], s["line_start"], s["line_end"]) for s in data["sections"]] == _markdown_selection(md)
    assert all(s["text"].strip() for s in data["sections"])


def test_matches_that_fit_nowhere_are_reported_in_both_formats(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = Cli(db, capsys)
    q = "what is our retry policy"  # its sections are longer than what 200 tokens leave
    for extra in ([], ["--format", "json"]):
        rc, out, err = cli("assemble", q, "--max-tokens", "200", "--source", "fx", *extra)
        assert rc == 0
        assert err.startswith("warning: ") and "none fit within 200 tokens" in err and "--max-tokens" in err
        if extra:
            assert json.loads(out)["sections"] == []
        else:
            assert "_No section fit within the token budget._" in out
    # with room, no warning
    rc, _, err = cli("assemble", q, "--max-tokens", "2000", "--source", "fx", "-f", "json")
    assert (rc, err) == (0, "")
