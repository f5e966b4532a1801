"""`assemble` chooses sections once, whatever the output format (issue 19, section 4).

The budget counts the printed text in both formats: ``--format json`` carries the Markdown
digest's sections, less the last ones taken when its keys leave no room for them
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
def test_json_sections_are_the_markdowns_within_the_same_budget(
    db: Path, capsys: pytest.CaptureFixture[str], question: str
) -> None:
    cli = Cli(db, capsys)
    sizes = []
    for budget in BUDGETS:
        rc, md, md_err = cli("assemble", question, "--max-tokens", str(budget))
        assert rc == 0, md_err
        rc, out, err = cli("assemble", question, "--max-tokens", str(budget), "--format", "json")
        assert rc == 0
        data = json.loads(out)
        chosen = [(s["path"], s["line_start"], s["line_end"]) for s in data["sections"]]
        in_markdown = _markdown_selection(md)
        # the Markdown's sections, in its order, less some it took last; trimmed ones only where
        # the Markdown trimmed them too, or as the single section left
        whole = [(p, a) for p, a, _ in chosen]
        assert whole == [(p, a) for p, a, _ in in_markdown if (p, a) in whole], (question, budget)
        if not chosen and in_markdown:  # only where the JSON's own keys fill a tiny budget
            assert budget < 500 and "none fit within" in err, (question, budget)
        else:
            assert err == md_err
        if budget >= 2000:  # where the JSON's fixed keys are a small part of the budget
            assert len(chosen) >= 0.6 * len(in_markdown), (question, budget)
        # the budget counts what is printed, in each format
        assert count_tokens(out, "o200k_base") <= budget
        assert [s["trimmed"] for s in data["sections"]] == [
            "(trimmed)" in s["text"] for s in data["sections"]
        ]
        actual = int(ACTUAL.findall(md)[0])
        assert actual == count_tokens(md, "o200k_base") <= budget
        assert (data["actual_tokens_of"], data["token_budget"]) == ("markdown", budget)
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
    assert data["sections"], "JSON empty where Markdown has content"
    in_markdown = [(p, a) for p, a, _ in _markdown_selection(md)]
    assert all((s["path"], s["line_start"]) in in_markdown for s in data["sections"])
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
