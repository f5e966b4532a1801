"""Incremental update (repodocs/update.py and run_agent's ``update``): which units an edit makes
stale, worked out by hand from the code of tests/fixtures/repodocs/sample, and a real run
against the scripted OpenAI-compatible server that sends exactly those units to the model."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docmentor.engine import Docmentor
from docmentor.errors import UsageError
from docmentor.llm import LLMClient
from docmentor.llm.config import LLMConfig
from docmentor.repodocs import build_graph, read_repository
from docmentor.repodocs.agent import run_agent
from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.update import plan_update
from docmentor.store import repomem
from httpserver import Reply
from openai_server import ChatRequest, OpenAIServer
from openai_server import openai_server as openai_server  # the fixture
from test_repodocs_agent import good_document, unit_of

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
GRAPH = build_graph(read_repository(SAMPLE))
ALL = set(GRAPH.units)

# -- by hand, from the fixture's code --------------------------------------------------------

# Editing the body of Base.name_of changes the hash of the method, of the class and module
# around it (their source holds it), and of the package and the repository (their hashes cover
# their children's).
NAME_OF_CHANGED = {
    "shop.models.Base.name_of",
    "shop.models.Base",
    "shop.models",
    "shop",
    ".",
}
# Their direct dependents: Base.describe calls name_of; Item inherits from Base; shop.__init__
# and shop.pricing import shop.models. Nothing uses the package or the repository. Their
# ancestors (Base, shop.models, shop, .) are changed already.
NAME_OF_DIRECT = NAME_OF_CHANGED | {
    "shop.models.Base.describe",
    "shop.models.Item",
    "shop.__init__",
    "shop.pricing",
}
# Further on: Item.describe calls Base.describe; Item.make and pricing.make_item call Item
# (the constructor), and so does scripts/checkout.py's top-level code, which also imports
# shop (its __init__) and shop.pricing. Nothing uses those. New ancestors: the folder
# scripts/ (checkout's); Item, shop.pricing and the rest are in already.
NAME_OF_TRANSITIVE = NAME_OF_DIRECT | {
    "shop.models.Item.describe",
    "shop.models.Item.make",
    "shop.pricing.make_item",
    "checkout",
    "scripts/",
}


def precision_recall(got: set[str], expected: set[str]) -> tuple[float, float]:
    hit = len(got & expected)
    return (hit / len(got) if got else 1.0), (hit / len(expected) if expected else 1.0)


def edit(root: Path, relative: str, old: str, new: str) -> None:
    path = root / relative
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def changed_hashes(before: Path, after: Path) -> tuple[set[str], set[str], set[str]]:
    old = {u: x.content_hash for u, x in read_repository(before).units().items()}
    new = {u: x.content_hash for u, x in read_repository(after).units().items()}
    return {u for u in new if u in old and old[u] != new[u]}, set(new) - set(old), set(old) - set(new)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SAMPLE, tmp_path / "repo"))


# -- the plan, on the graph --------------------------------------------------------------------


def test_editing_one_method_changes_the_hashes_worked_out_by_hand(repo: Path) -> None:
    edit(repo, "shop/models.py", "        return self.kind\n", "        return self.kind.upper()\n")
    changed, added, removed = changed_hashes(SAMPLE, repo)
    assert (changed, added, removed) == (NAME_OF_CHANGED, set(), set())


def test_dependents_are_transitive_by_default_and_direct_on_request() -> None:
    full = plan_update(GRAPH, NAME_OF_CHANGED)
    assert set(full.redo) == NAME_OF_TRANSITIVE
    assert precision_recall(set(full.redo), NAME_OF_TRANSITIVE) == (1.0, 1.0)
    assert set(full.changed) == NAME_OF_CHANGED and not full.added and not full.removed
    assert set(full.ancestors) == {"scripts/"}
    direct = plan_update(GRAPH, NAME_OF_CHANGED, transitive=False)
    assert set(direct.redo) == NAME_OF_DIRECT
    assert set(direct.dependents) == NAME_OF_DIRECT - NAME_OF_CHANGED and not direct.ancestors


def test_dependencies_of_a_changed_unit_are_not_redone_only_what_uses_it() -> None:
    # Base.describe calls name_of; Item.describe calls Base.describe and Item.label
    plan = plan_update(GRAPH, ["shop.models.Base.describe"])
    assert set(plan.redo) == {
        "shop.models.Base.describe",
        "shop.models.Item.describe",  # its caller
        "shop.models.Base",  # ancestors
        "shop.models.Item",
        "shop.models",
        "shop",
        ".",
    }
    assert {"shop.models.Base.name_of", "shop.models.Item.label"}.isdisjoint(plan.redo)
    # a unit that only gains ancestors brings no dependents of theirs: shop.models is
    # redone as an ancestor, its importers (shop.pricing, shop.__init__) are not
    assert {"shop.pricing", "shop.__init__", "checkout"}.isdisjoint(plan.redo)


def test_a_leaf_change_goes_up_the_call_chain_only_when_transitive() -> None:
    # total calls round2; checkout's top-level code calls total
    base = {"shop.util.round2", "shop.util", "shop.pricing.total", "shop.pricing", "shop", "."}
    assert set(plan_update(GRAPH, ["shop.util.round2"], transitive=False).redo) == base
    assert set(plan_update(GRAPH, ["shop.util.round2"]).redo) == base | {"checkout", "scripts/"}


def test_a_cycle_of_calls_ends_and_dropped_edges_still_count() -> None:
    # is_even and is_odd call each other (the order drops one of the edges)
    plan = plan_update(GRAPH, ["shop.sub.odd.is_odd"])
    assert set(plan.redo) == {
        "shop.sub.odd.is_odd",
        "shop.sub.even.is_even",
        "shop.sub.odd",
        "shop.sub.even",
        "shop.sub",
        "shop",
        ".",
    }
    assert set(plan_update(GRAPH, ["shop.sub.even.is_even"]).redo) == set(plan.redo)


def test_removed_units_bring_in_the_units_whose_documents_cited_them() -> None:
    plan = plan_update(
        GRAPH,
        [],
        removed=["shop.util.gone", "shop.util.clamp"],  # clamp is still there: not removed
        previous_dependencies={
            "shop.pricing.outer": ["shop.util.gone"],
            "shop.pricing.total": ["shop.util.clamp"],
            "vanished.unit": ["shop.util.gone"],  # not in the graph any more
        },
    )
    assert plan.removed == ("shop.util.gone",)
    assert plan.cite_removed == ("shop.pricing.outer",)
    assert set(plan.redo) == {"shop.pricing.outer", "shop.pricing", "shop", "."}


def test_a_unit_whose_code_is_the_same_but_uses_other_units_is_rewired() -> None:
    now = {"shop.pricing.total": ["shop.util.round2"], "shop.pricing.outer": ["shop.util.clamp"]}
    plan = plan_update(
        GRAPH,
        ["shop.pricing"],
        previous_dependencies={
            "shop.pricing.total": ["shop.util.clamp", "shop.util.round2"],
            "shop.pricing.outer": ["shop.util.clamp"],  # the same: not rewired
            "shop.pricing.make_item": ["shop.models.Item"],  # no current set given: not compared
        },
        current_dependencies=now,
    )
    assert plan.rewired == ("shop.pricing.total",)
    assert set(plan.redo) == {"shop.pricing", "shop.pricing.total", "checkout", "scripts/", "shop", "."}


def test_added_units_and_ids_outside_the_graph() -> None:
    plan = plan_update(GRAPH, ["no.such.unit"], added=["latin.greet"])
    assert plan.changed == () and plan.added == ("latin.greet",)
    assert set(plan.redo) == {"latin.greet", "latin", "."}
    assert plan_update(GRAPH, []).redo == ()


# -- a real run against the scripted server ----------------------------------------------------


class Model:
    """READ memory, WRITE a good document of the repository as it is on disk now, VERIFY with
    good scores, FINISH; the cross-document check finds no conflict."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self.units = read_repository(root).units()

    def reread(self) -> None:
        self.units = read_repository(self.root).units()

    def __call__(self, req: ChatRequest) -> Reply:
        unit = unit_of(req)
        msgs = req.messages
        last = str(msgs[-1]["content"]) if msgs[-1]["role"] == "user" else ""
        action: dict[str, Any]
        if str(msgs[0]["content"]).startswith("You check a draft document"):
            action = {"claims": ["one", "two"], "conflicts": []}
        elif last.startswith("READ") or last.startswith("REVISE"):
            with self.lock:
                repo = read_repository(self.root)
                document = good_document(self.units[unit], read_facts(self.root, repo), repo.units())
            action = {"action": "WRITE", "document": document, "claims": [f"{unit} exists."]}
        elif last.startswith("Draft kept"):
            action = {
                "action": "VERIFY",
                "scores": {"consistency": 0.95, "completeness": 0.92, "helpfulness": 0.9},
            }
        elif last.startswith("PASS"):
            action = {"action": "FINISH"}
        else:
            action = {"action": "READ", "target": "memory"}
        body = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": req.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": json.dumps(action)},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        }
        return Reply(body=json.dumps(body), content_type="application/json")


@pytest.fixture
def engine(index_location: str) -> Iterator[Docmentor]:
    """A new index on each backend: the runs and units an update reads are in the store."""
    eng = Docmentor(index_location)
    yield eng
    eng.close()


@pytest.fixture
def lite_engine(tmp_path: Path) -> Iterator[Docmentor]:
    """An embedded index only, for a planner option that reads the store as the others do."""
    eng = Docmentor(tmp_path / "db")
    yield eng
    eng.close()


@pytest.fixture
def client(openai_server: OpenAIServer) -> Iterator[LLMClient]:
    with LLMClient(LLMConfig(base_url=openai_server.base_url, model="scripted", timeout=10)) as c:
        yield c


def sent_since(server: OpenAIServer, seen: int) -> set[str]:
    return {unit_of(r) for r in server.requests[seen:]}


def test_update_after_editing_one_function_sends_exactly_the_stale_units(
    repo: Path, openai_server: OpenAIServer, engine: Docmentor, client: LLMClient
) -> None:
    model = Model(repo)
    openai_server.script(model)
    first = run_agent(repo, engine.store, client)
    assert first.finished and not first.failed
    assert sent_since(openai_server, 0) == ALL
    documents = {r.unit_id: r.document for r in repomem.units(engine.store, first.run_id)}

    edit(repo, "shop/models.py", "        return self.kind\n", "        return self.kind.upper()\n")
    model.reread()
    seen = len(openai_server.requests)
    report = run_agent(repo, engine.store, client, update=True)
    sent = sent_since(openai_server, seen)
    assert precision_recall(sent, NAME_OF_TRANSITIVE) == (1.0, 1.0)
    assert report.run_id == first.run_id and report.finished and not report.failed
    assert set(report.committed) == NAME_OF_TRANSITIVE
    assert set(report.skipped) == ALL - NAME_OF_TRANSITIVE
    rows = {r.unit_id: r for r in repomem.units(engine.store, report.run_id)}
    assert all(r.status == "committed" for r in rows.values()) and set(rows) == ALL
    kept = ALL - NAME_OF_TRANSITIVE
    assert {u: rows[u].document for u in kept} == {u: documents[u] for u in kept}
    assert repomem.get_run(engine.store, report.run_id).status == "finished"

    # nothing changed since: nothing is sent, the run stays finished
    seen = len(openai_server.requests)
    again = run_agent(repo, engine.store, client, update=True)
    assert again.finished and again.outcomes == () and len(openai_server.requests) == seen


def test_update_with_direct_dependents_only(
    repo: Path, openai_server: OpenAIServer, lite_engine: Docmentor, client: LLMClient
) -> None:
    model = Model(repo)
    openai_server.script(model)
    assert run_agent(repo, lite_engine.store, client).finished
    edit(repo, "shop/models.py", "        return self.kind\n", "        return self.kind.upper()\n")
    model.reread()
    seen = len(openai_server.requests)
    report = run_agent(repo, lite_engine.store, client, update=True, transitive=False)
    assert precision_recall(sent_since(openai_server, seen), NAME_OF_DIRECT) == (1.0, 1.0)
    assert report.finished


def test_update_after_removing_a_function_drops_it_and_redoes_its_citers(
    repo: Path, openai_server: OpenAIServer, engine: Docmentor, client: LLMClient
) -> None:
    model = Model(repo)
    openai_server.script(model)
    first = run_agent(repo, engine.store, client)
    assert "shop.util.round2" in repomem.get_unit(engine.store, first.run_id, "shop.pricing.total").depends_on
    edit(repo, "shop/util.py", "def round2(x: float) -> float:\n    return round(x, 2)\n\n\n", "")
    model.reread()
    changed, added, removed = changed_hashes(SAMPLE, repo)
    assert (changed, added, removed) == ({"shop.util", "shop", "."}, set(), {"shop.util.round2"})
    # total's code is the same, but its document cited round2: it is redone, and (transitively)
    # checkout, which calls total and imports shop.pricing; shop.pricing imports shop.util
    expected = {"shop.util", "shop", ".", "shop.pricing.total", "shop.pricing", "checkout", "scripts/"}
    seen = len(openai_server.requests)
    report = run_agent(repo, engine.store, client, update=True)
    assert precision_recall(sent_since(openai_server, seen), expected) == (1.0, 1.0)
    assert report.finished
    assert set(repomem.unit_ids(engine.store, report.run_id)) == ALL - {"shop.util.round2"}


def test_an_update_cannot_start_afresh_and_without_a_run_documents_everything(
    repo: Path, openai_server: OpenAIServer, engine: Docmentor, client: LLMClient
) -> None:
    with pytest.raises(UsageError, match="update"):
        run_agent(repo, engine.store, client, update=True, resume=False)
    openai_server.script(Model(repo))
    report = run_agent(repo, engine.store, client, update=True)
    assert report.finished and sent_since(openai_server, 0) == ALL


def test_update_after_changing_an_import_redoes_the_functions_that_now_call_another_unit(
    repo: Path, openai_server: OpenAIServer, engine: Docmentor, client: LLMClient
) -> None:
    model = Model(repo)
    openai_server.script(model)
    assert run_agent(repo, engine.store, client).finished
    edit(repo, "shop/pricing.py", "from .util import clamp as cl", "from .util import round2 as cl")
    model.reread()
    changed, added, removed = changed_hashes(SAMPLE, repo)
    assert (changed, added, removed) == ({"shop.pricing", "shop", "."}, set(), set())
    # total and discounted call cl: their code is the same, but cl is round2 now, not clamp;
    # checkout imports shop.pricing and calls total; outer calls util.clamp, as before
    expected = {
        "shop.pricing",
        "shop",
        ".",
        "shop.pricing.total",
        "shop.pricing.discounted",
        "checkout",
        "scripts/",
    }
    seen = len(openai_server.requests)
    report = run_agent(repo, engine.store, client, update=True)
    assert precision_recall(sent_since(openai_server, seen), expected) == (1.0, 1.0)
    assert report.finished
    row = repomem.get_unit(engine.store, report.run_id, "shop.pricing.discounted")
    assert "shop.util.round2" in row.depends_on and "shop.util.clamp" not in row.depends_on


def test_a_resumed_run_whose_code_changed_redoes_the_same_set(
    repo: Path, openai_server: OpenAIServer, engine: Docmentor, client: LLMClient
) -> None:
    model = Model(repo)
    openai_server.script(model)
    first = run_agent(repo, engine.store, client)
    repomem.reopen_run(engine.store, first.run_id)  # as if it had stopped before finishing
    edit(repo, "shop/models.py", "        return self.kind\n", "        return self.kind.upper()\n")
    model.reread()
    seen = len(openai_server.requests)
    report = run_agent(repo, engine.store, client)  # resume, not update
    assert report.run_id == first.run_id and report.finished
    assert precision_recall(sent_since(openai_server, seen), NAME_OF_TRANSITIVE) == (1.0, 1.0)
