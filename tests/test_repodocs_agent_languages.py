"""The agent on a repository of Python and TypeScript (repodocs/agent.py with the tree-sitter
readers): the loop commits every unit, and VERIFY's symbol check reads each unit in its own
language — in the same repository, a TypeScript function's document may name `Promise`, a
Python function's may not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.repodocs.agent import run_agent
from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.python_units import read_repository
from openai_server import OpenAIServer
from openai_server import openai_server as openai_server  # the fixture
from test_repodocs_agent import Model, client_for, good_document

TS_REPO = Path(__file__).parent / "fixtures" / "repodocs_langs" / "ts_repo"
PY_REPO = Path(__file__).parent / "fixtures" / "repodocs" / "sample"


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(PY_REPO, repo)
    shutil.copytree(TS_REPO / "src", repo / "web")
    return repo


@pytest.mark.parametrize(("suffix", "passes"), [(".ts", True), (".py", False)])
def test_the_symbol_check_reads_each_unit_in_its_language(
    openai_server: OpenAIServer, tmp_path: Path, mixed: Path, suffix: str, passes: bool
) -> None:
    units = read_repository(mixed)
    facts, by_id = read_facts(mixed, units), units.units()
    model = Model()
    for unit_id, unit in by_id.items():
        model.documents[unit_id] = lambda n, u=unit: good_document(u, facts, by_id)  # type: ignore[misc]
    target = next(c for c in units.components if c.kind == "function" and c.path.endswith(suffix))
    model.documents[target.id] = lambda n: (
        good_document(target, facts, by_id) + "\n\nIt gives a `Promise` of the value."
    )
    openai_server.script(model)
    engine = Docmentor(tmp_path / "db")
    try:
        with client_for(openai_server) as client:
            report = run_agent(mixed, engine.store, client)
    finally:
        engine.close()
    if passes:  # every unit committed, the TypeScript function naming Promise too
        assert report.failed == [] and report.finished and target.id in report.committed
    else:  # Python has no Promise: VERIFY sends the draft back until the unit fails
        assert report.failed == [target.id]
