"""The documentation agent's loop (repodocs/agent.py, reads.py, verify.py, prompts.py), driven
through the real LLMClient against the scripted OpenAI-compatible server on 127.0.0.1, on
the fixture repository tests/fixtures/repodocs/sample, with RepoMemory in a real index."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from docmentor.assemble.tokens import count_tokens
from docmentor.engine import Docmentor
from docmentor.errors import UsageError
from docmentor.llm import LLMClient
from docmentor.llm.config import LLMConfig
from docmentor.repodocs import build_graph, read_repository, traversal
from docmentor.repodocs.agent import AgentConfig, run_agent
from docmentor.repodocs.agent_actions import fit, parse_action
from docmentor.repodocs.budget import count_request, pages
from docmentor.repodocs.code_facts import CodeFacts, read_facts
from docmentor.repodocs.model_format import model_sections
from docmentor.repodocs.units import Component, Module, Unit
from docmentor.repodocs.verify import (
    SymbolTable,
    check_links,
    check_parameters,
    check_raises,
    check_sections,
    check_symbols,
    code_names,
    documented_parameters,
    documented_raises,
    locations,
    read_scores,
)
from docmentor.store import repomem, repomem_trace
from httpserver import Reply
from openai_server import ChatRequest, OpenAIServer, completion, rate_limited
from openai_server import openai_server as openai_server  # the fixture

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
REPO = read_repository(SAMPLE)
GRAPH = build_graph(REPO)
ORDER = traversal(GRAPH)
UNITS = REPO.units()
FACTS = read_facts(SAMPLE, REPO)
ENC = "o200k_base"


# -- a scripted model ------------------------------------------------------------------------


def good_document(unit: Unit, facts: CodeFacts | None = None, units: dict[str, Unit] | None = None) -> str:
    """A document that passes every deterministic check of VERIFY (``facts`` and ``units``: the
    code facts and units of the unit's repository, the sample's by default)."""
    facts = FACTS if facts is None else facts
    units = UNITS if units is None else units
    wanted = dict(model_sections(unit, facts, units))
    if isinstance(unit, Component) and unit.kind in ("function", "method"):
        params = list(unit.parameters)
        if unit.kind == "method" and unit.method_kind != "static":
            params = params[1:]
        parts = [f"## Summary\nWhat `{unit.qualname}` is for.", "## Description\nIt does its job."]
        if params:
            parts.append(
                "## Args\n" + "\n".join(f"{p.name} ({p.annotation or 'Any'}): the {p.name}." for p in params)
            )
        if wanted["returns"]:
            parts.append("## Returns\nThe result.")
        if unit.raises:
            parts.append("## Raises\n" + "\n".join(f"{r}: when the input is bad." for r in unit.raises))
        parts.append("## Examples\nCall it with real input.")
        return "\n\n".join(parts)
    if isinstance(unit, Component):
        parts = [f"## Summary\nThe class `{unit.name}`.", "## Description\nIt keeps state."]
        if wanted["args"]:
            parts.append("## Args\n" + "\n".join(f"{p.name}: the {p.name}." for p in unit.parameters))
        if wanted["attributes"]:
            parts.append("## Attributes\n" + "\n".join(f"{a}: kept." for a in unit.attributes))
        if wanted["methods"]:
            parts.append("## Methods\n- its methods")
        parts.append("## Examples\nMake one and use it.")
        return "\n\n".join(parts)
    if isinstance(unit, Module):
        comps = "\n".join(f"- `{c.split('.')[-1]}`: a part." for c in unit.components) or "- (none)"
        parts = [f"## Role\nThe module `{unit.id}`.", f"## Components\n{comps}"]
        if wanted["public api"]:
            parts.append("## Public API\nWhat the components above offer.")
        if wanted["dependencies"]:
            parts.append("## Dependencies\nWhat it imports.")
        if wanted["diagram"]:
            parts.append("## Diagram\n```mermaid\nflowchart LR\n  a --> b\n```")
        return "\n\n".join(parts)
    return "## Purpose\nWhat it holds.\n\n## Overview\nIts parts."


def unit_of(req: ChatRequest) -> str:
    first_user = next(m for m in req.messages if m["role"] == "user")
    line = next(x for x in str(first_user["content"]).splitlines() if x.startswith("Unit: "))
    return line.removeprefix("Unit: ")


def is_judge(req: ChatRequest) -> bool:
    return str(req.messages[0]["content"]).startswith("You check a draft document")


class Model:
    """Decides each reply from the conversation: READ memory, WRITE, VERIFY, FINISH; per-unit
    behaviours override it. Every reply carries ``usage`` (prompt 10 + 7 x turn, completion
    3 + turn), summed per unit as served."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.served: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.first: dict[str, list[str]] = {}  # unit → replies given first, in order
        self.scores: dict[str, Callable[[int], Any]] = {}  # unit → VERIFY number → scores
        self.documents: dict[str, Callable[[int], str]] = {}  # unit → WRITE number → document
        self.delay: dict[str, float] = {}
        self.judgements: dict[str, Callable[[int], Any]] = {}  # unit → check number → answer
        self.judged: dict[str, int] = defaultdict(int)
        self.turns: dict[str, int] = defaultdict(int)

    def __call__(self, req: ChatRequest) -> Reply:
        unit = unit_of(req)
        msgs = req.messages
        turn = sum(1 for m in msgs if m["role"] == "assistant")
        with self.lock:
            queued = self.first.get(unit)
            if is_judge(req):
                answer = self.judgements.get(unit, lambda n: {"claims": ["one", "two"], "conflicts": []})
                value = answer(self.judged[unit])
                self.judged[unit] += 1
                content = value if isinstance(value, str) else json.dumps(value)
            else:
                content = queued.pop(0) if queued else self.decide(unit, msgs)
            usage = (10 + 7 * turn, 3 + turn)
            self.served[unit].append(usage)
        body = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": req.model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
        }
        delay = self.delay.get(unit, 0.0) if turn == 0 else 0.0
        return Reply(body=json.dumps(body), content_type="application/json", delay=delay)

    def decide(self, unit: str, msgs: list[dict[str, Any]]) -> str:
        last = str(msgs[-1]["content"]) if msgs[-1]["role"] == "user" else ""
        writes = sum(1 for m in msgs if m["role"] == "assistant" and '"WRITE"' in str(m["content"]))
        verifies = sum(1 for m in msgs if m["role"] == "assistant" and '"VERIFY"' in str(m["content"]))
        if last.startswith("Unit: ") or last.startswith("That action could not be used"):
            return json.dumps({"action": "READ", "target": "memory"})
        if last.startswith("READ") or last.startswith("REVISE"):
            make = self.documents.get(unit, lambda n: good_document(UNITS[unit]))
            return json.dumps({"action": "WRITE", "document": make(writes), "claims": [f"{unit} exists."]})
        if last.startswith("Draft kept"):
            scores = self.scores.get(
                unit, lambda n: {"consistency": 0.95, "completeness": 0.92, "helpfulness": 0.91}
            )
            value = scores(verifies)
            return json.dumps(
                {"action": "VERIFY"} if value is None else {"action": "VERIFY", "scores": value}
            )
        if last.startswith("PASS"):
            return json.dumps({"action": "FINISH"})
        return "I am confused."  # never reached by the tests' conversations

    def tokens(self, unit: str) -> tuple[int, int]:
        pairs = self.served[unit]
        return sum(p for p, _ in pairs), sum(c for _, c in pairs)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Docmentor]:
    eng = Docmentor(tmp_path / "db")
    yield eng
    eng.close()


def client_for(server: OpenAIServer, **extra: Any) -> LLMClient:
    return LLMClient(LLMConfig(base_url=server.base_url, model="scripted", timeout=10, **extra))


def finish_order(engine: Docmentor, run_id: int) -> list[str]:
    return [t.unit_id or "" for t in repomem_trace.trace(engine.store, run_id) if t.action == "FINISH"]


def assert_order_respects_edges(order: list[str]) -> None:
    pos = {u: i for i, u in enumerate(order)}
    dropped = set(ORDER.dropped)
    checked = 0
    for e in GRAPH.edges:
        if e in dropped or e.source == e.target or e.source not in pos or e.target not in pos:
            continue
        assert pos[e.target] < pos[e.source], (
            f"{e.source} committed before its dependency {e.target} ({e.kind})"
        )
        checked += 1
    assert checked > 30


# -- the loop, end to end ----------------------------------------------------------------------


def test_a_well_formed_run_commits_every_unit_in_dependency_order(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client)
    assert report.finished and not report.failed and report.stopped is None
    assert report.cost is None  # no prices given: no cost
    assert report.committed == list(ORDER.order)
    order = finish_order(engine, report.run_id)
    assert order == list(ORDER.order)
    assert_order_respects_edges(order)
    assert any("broken.py" in p for p in report.problems)
    rows = {r.unit_id: r for r in repomem.units(engine.store, report.run_id)}
    item = rows["shop.models.Item.label"]
    assert item.status == "committed" and item.model == "scripted"
    assert item.document == good_document(UNITS["shop.models.Item.label"])
    assert item.claims == ("shop.models.Item.label exists.",)
    assert item.scores["mean"] == pytest.approx((0.95 + 0.92 + 0.91) / 3)
    assert set(rows["shop.models.Item"].children) >= {"shop.models.Item.label", "shop.models.Item.describe"}
    assert "shop.util.clamp" in rows["shop.pricing.discounted"].depends_on
    assert repomem.get_run(engine.store, report.run_id).status == "finished"
    # every unit: READ memory, WRITE, VERIFY, FINISH; the module's READ shows its children's documents
    outcome = report.outcome_by_id["shop.util"]
    assert (outcome.steps, outcome.reads, outcome.invalid_actions, outcome.revisions) == (4, 1, 0, 0)
    module_request = next(
        r for r in openai_server.requests if unit_of(r) == "shop.util" and len(r.messages) == 4
    )
    assert "### shop.util.clamp (contains)" in module_request.messages[-1]["content"]
    assert "## Args\nx (float): the x." in module_request.messages[-1]["content"]
    # the system prompt carries the threshold and the revision limit; the task the format
    first = openai_server.requests[0]
    assert "at least 0.90" in first.messages[0]["content"] and "up to 2 times" in first.messages[0]["content"]
    assert "## Summary" in first.messages[1]["content"] and "<SOURCE>" in first.messages[1]["content"]
    # the deterministic document (no model) comes with the task as what the code determines
    task = next(r for r in openai_server.requests if unit_of(r) == "shop.models.Item.label").messages[1][
        "content"
    ]
    assert "What the code determines (written without a model):" in task
    assert "ValueError" in task.split("What the code determines", 1)[1]


def test_a_malformed_or_unknown_action_is_corrected_and_retried(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    target = "shop.util.clamp"
    model.first[target] = [
        "Let me think about this.",
        json.dumps({"action": "DANCE"}),
        json.dumps({"action": "READ"}),
        json.dumps({"action": "FINISH"}),  # out of order: nothing verified yet
        json.dumps({"action": "READ", "target": "nowhere.at.all"}),
    ]
    model.first["shop.util"] = [json.dumps({"action": "WRITE", "document": "## Role\nr\n\n## Components\nc"})]
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client, config=AgentConfig(max_steps=12))
    module = report.outcome_by_id["shop.util"]
    assert module.status == "committed" and module.invalid_actions == 1
    first_action = repomem_trace.trace(engine.store, report.run_id, unit_id="shop.util")[0]
    assert first_action.action == "INVALID" and first_action.inputs == {
        "problem": 'a module is written from memory: READ "memory" first'
    }
    out = report.outcome_by_id[target]
    assert out.status == "committed" and out.invalid_actions == 5 and out.steps == 9
    invalid = [
        t for t in repomem_trace.trace(engine.store, report.run_id, unit_id=target) if t.action == "INVALID"
    ]
    assert [t.inputs["problem"].split(" (")[0] for t in invalid][:2] == [
        "no JSON object in the reply",
        "unknown action 'DANCE'",
    ]
    assert 'READ needs a "target"' in invalid[2].inputs["problem"]
    assert "FINISH comes after a passing VERIFY" in invalid[3].inputs["problem"]
    assert "unknown READ target 'nowhere.at.all'" in invalid[4].inputs["problem"]
    second = next(r for r in openai_server.requests if unit_of(r) == target and len(r.messages) == 4)
    assert second.messages[-1]["content"].startswith("That action could not be used: no JSON object")
    assert report.finished


def test_a_model_that_never_passes_verify_fails_its_unit_and_the_run_goes_on(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    target = "shop.util.clamp"
    model.scores[target] = lambda n: {"consistency": 0.6, "completeness": 0.5, "helpfulness": 0.5}
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client)
    out = report.outcome_by_id[target]
    assert out.status == "failed" and out.verifications == 3 and out.revisions == 2
    assert out.reason is not None and out.reason.startswith("did not pass VERIFY after 2 revision(s)")
    assert "below the threshold 0.90" in out.reason
    row = repomem.get_unit(engine.store, report.run_id, target)
    assert row.status == "failed" and row.document is None and row.error == out.reason
    assert row.prompt_tokens == model.tokens(target)[0]
    assert report.failed == [target] and len(report.committed) == len(ORDER.order) - 1
    assert not report.finished and repomem.get_run(engine.store, report.run_id).status == "running"
    # its dependent was still documented, told the dependency has no document
    caller = next(
        r for r in openai_server.requests if unit_of(r) == "shop.pricing.discounted" and len(r.messages) == 4
    )
    assert "### shop.util.clamp (depends on)\n(not documented: it failed)" in caller.messages[-1]["content"]
    # a resumed run retries the failed unit only
    model.scores.pop(target)
    before = len(openai_server.requests)
    with client_for(openai_server) as client:
        again = run_agent(SAMPLE, engine.store, client)
    assert again.run_id == report.run_id and again.committed == [target] and again.finished
    assert {unit_of(r) for r in openai_server.requests[before:]} == {target}


def test_a_missing_or_unusable_score_is_a_failure_not_a_pass(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    once, always = "shop.util.round2", "shop.util.clamp"
    good = {"consistency": 0.95, "completeness": 0.95, "helpfulness": 0.95}
    model.scores[once] = lambda n: None if n == 0 else good
    model.scores[always] = lambda n: [None, {"consistency": 0.99}, {**good, "helpfulness": "high"}][min(n, 2)]
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client)
    first = report.outcome_by_id[once]
    assert first.status == "committed" and first.verifications == 2 and first.revisions == 1
    revise = next(r for r in openai_server.requests if unit_of(r) == once and len(r.messages) == 8)
    assert revise.messages[-1]["content"].startswith("REVISE (no usable score)")
    assert "no scores were given" in revise.messages[-1]["content"]
    second = report.outcome_by_id[always]
    assert second.status == "failed" and second.verifications == 3
    verifies = [
        t for t in repomem_trace.trace(engine.store, report.run_id, unit_id=always) if t.action == "VERIFY"
    ]
    assert [v.inputs["passed"] for v in verifies] == [False, False, False]
    assert "missing completeness, helpfulness" in verifies[1].inputs["findings"][0]
    assert "not a number in [0, 1]: helpfulness='high'" in verifies[2].inputs["findings"][0]


def test_deterministic_checks_send_a_draft_back_with_their_findings(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    target = "shop.pricing.total"
    good = good_document(UNITS[target])
    bad = good.replace("discount (float): the discount.", "rate (float): an invented rate.") + (
        "\n\nIt calls `misc.helper()` and then shop_utils_round(x); see [its page](shop.nothing.md) and"
        " `shop/pricing.py:99`.\n\n## Raises\nKeyError: never."
    )
    model.documents[target] = lambda n: bad if n == 0 else good
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client)
    out = report.outcome_by_id[target]
    assert out.status == "committed" and out.revisions == 1
    verify = next(
        t for t in repomem_trace.trace(engine.store, report.run_id, unit_id=target) if t.action == "VERIFY"
    )
    assert verify.inputs["passed"] is False and verify.inputs["mean"] == pytest.approx(0.9266, abs=1e-3)
    assert verify.inputs["findings"] == [
        "section the code does not call for: Raises (leave it out)",
        "parameter not documented under Args: discount",
        "documented parameter not in the signature "
        "'def total(items: list[m.Item], *, discount: float = 0.0) -> float': rate",
        "names something that is not in the repository, its imports or Python: `misc.helper`",
        "names something that is not in the repository, its imports or Python: `shop_utils_round`",
        "documented under Raises but raised neither by it nor by what it calls: KeyError",
        "link to a document of no unit: shop.nothing.md",
        "code location past the end of shop/pricing.py (36 lines): shop/pricing.py:99",
    ]
    assert repomem.get_unit(engine.store, report.run_id, target).document == good


def test_a_429_storm_is_retried_by_the_client_and_the_run_completes(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    counter = iter(range(10**6))
    limited = rate_limited("0")

    def storm(req: ChatRequest) -> Reply:
        return limited(req) if next(counter) % 3 != 2 else model(req)  # two 429s before each answer

    openai_server.script(storm)
    with client_for(openai_server, max_attempts=3, backoff=0.001, max_backoff=0.002) as client:
        report = run_agent(SAMPLE, engine.store, client)
    assert report.finished and report.committed == list(ORDER.order)
    calls = sum(o.model_calls for o in report.outcomes)
    assert calls > sum(o.steps for o in report.outcomes)  # the cross-document checks are calls too
    assert len(openai_server.requests) == 3 * calls
    # only the answers count: 429s carry no usage
    assert report.prompt_tokens == sum(model.tokens(u)[0] for u in ORDER.order)


def test_an_endpoint_that_keeps_failing_fails_units_then_stops_the_run(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    openai_server.script(rate_limited("0"))
    with client_for(openai_server, max_attempts=2, backoff=0.001, max_backoff=0.002) as client:
        report = run_agent(SAMPLE, engine.store, client, config=AgentConfig(stop_after_llm_errors=2))
    assert [o.status for o in report.outcomes] == ["failed", "failed"]
    assert all(o.llm_error and "HTTP 429" in (o.reason or "") for o in report.outcomes)
    assert report.stopped is not None and report.stopped.startswith("stopped after 2 units in a row")
    assert not report.finished
    assert repomem_trace.progress(engine.store, report.run_id).pending == len(ORDER.order) - 2


def test_with_workers_a_failing_endpoint_stops_the_run_within_a_few_units(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    """The first level holds 11 units; with 4 workers and the endpoint down the run stops once
    2 in a row failed, with at most the units already started: not the whole level."""
    openai_server.script(rate_limited("0"))
    config = AgentConfig(stop_after_llm_errors=2, workers=4)
    with client_for(openai_server, max_attempts=1) as client:
        report = run_agent(SAMPLE, engine.store, client, config=config)
    assert report.stopped is not None and report.stopped.startswith("stopped after 2 units in a row")
    assert 2 <= len(report.outcomes) <= 2 + 3, len(report.outcomes)
    assert repomem_trace.progress(engine.store, report.run_id).pending == len(ORDER.order) - len(
        report.outcomes
    )


def test_a_model_whose_answers_are_never_usable_stops_the_run(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    """A model that answers, but never with an action the loop can use, fails unit after unit
    with no endpoint error: the run stops after ``stop_after_failures`` of them (resumable)."""
    openai_server.script(completion("I would rather not."))
    config = AgentConfig(stop_after_failures=3, max_steps=2)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client, config=config)
    assert [o.status for o in report.outcomes] == ["failed"] * 3
    assert not any(o.llm_error for o in report.outcomes)
    assert report.stopped is not None and report.stopped.startswith("stopped after 3 units in a row failed")
    assert repomem_trace.progress(engine.store, report.run_id).pending == len(ORDER.order) - 3


def test_running_again_after_a_finished_run_redoes_nothing_unless_the_model_changed(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    """A second run with the same model works on the finished run (nothing changed: nothing
    is sent); another model starts a run of its own."""
    openai_server.script(Model())
    with client_for(openai_server) as client:
        first = run_agent(SAMPLE, engine.store, client)
    asked = len(openai_server.requests)
    with client_for(openai_server) as client:
        again = run_agent(SAMPLE, engine.store, client)
    assert again.run_id == first.run_id and again.finished and not again.outcomes
    assert len(openai_server.requests) == asked  # nothing sent to the model
    with LLMClient(LLMConfig(base_url=openai_server.base_url, model="another", timeout=10)) as client:
        other = run_agent(SAMPLE, engine.store, client, config=AgentConfig(stop_after_failures=1000))
    assert other.run_id != first.run_id and len(openai_server.requests) > asked


def test_token_accounting_per_unit_and_per_run(openai_server: OpenAIServer, engine: Docmentor) -> None:
    model = Model()
    model.first["shop.util.round2"] = ["not json"]  # a wasted call still costs its tokens
    openai_server.script(model)
    seen: list[str] = []
    config = AgentConfig(prompt_price=2.0, completion_price=8.0)
    with client_for(openai_server) as client:
        report = run_agent(
            SAMPLE, engine.store, client, config=config, on_unit=lambda o: seen.append(o.unit_id)
        )
    assert seen == list(ORDER.order)
    rows = {r.unit_id: r for r in repomem.units(engine.store, report.run_id)}
    for uid in ORDER.order:
        prompt, completion = model.tokens(uid)
        assert (report.outcome_by_id[uid].prompt_tokens, report.outcome_by_id[uid].completion_tokens) == (
            prompt,
            completion,
        )
        assert (rows[uid].prompt_tokens, rows[uid].completion_tokens) == (prompt, completion)
        traced = sum(t.tokens for t in repomem_trace.trace(engine.store, report.run_id, unit_id=uid))
        assert traced == prompt + completion
    # READ, WRITE, VERIFY, FINISH: prompts 10+17+24+31 = 82, completions 3+4+5+6 = 18
    assert model.tokens("shop.util.clamp") == (82, 18)
    assert model.tokens("shop.util.round2") == (82 + 38, 18 + 7)
    # a module: READ, WRITE, VERIFY, the cross-document check (a new conversation), FINISH
    assert model.tokens("shop.util") == (82 + 10, 18 + 3)
    assert report.outcome_by_id["shop.util"].model_calls == 5
    total_prompt = sum(model.tokens(u)[0] for u in ORDER.order)
    total_completion = sum(model.tokens(u)[1] for u in ORDER.order)
    progress = repomem_trace.progress(engine.store, report.run_id)
    assert (report.prompt_tokens, report.completion_tokens) == (total_prompt, total_completion)
    assert (progress.prompt_tokens, progress.completion_tokens) == (total_prompt, total_completion)
    assert progress.trace_tokens == total_prompt + total_completion
    # cost only from the counted tokens and the prices given
    assert report.cost == pytest.approx((total_prompt * 2.0 + total_completion * 8.0) / 1e6)
    clamp = next(u for u in report.to_dict()["units"] if u["unit_id"] == "shop.util.clamp")
    assert clamp["cost"] == pytest.approx((82 * 2.0 + 18 * 8.0) / 1e6)
    assert json.loads(json.dumps(report.to_dict()))["cost"] == pytest.approx(report.cost)


def test_limits_on_steps_and_tokens_fail_the_unit_with_the_reason(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    model.first["shop.util.clamp"] = [json.dumps({"action": "READ", "target": "callers"})] * 20
    model.first["shop.util.round2"] = [json.dumps({"action": "READ", "target": "memory"})] * 2
    openai_server.script(model)
    config = AgentConfig(max_steps=4, max_tokens=60, stop_after_failures=1000)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client, config=config)
    clamp, round2 = report.outcome_by_id["shop.util.clamp"], report.outcome_by_id["shop.util.round2"]
    # clamp's prompts 10, 17, 24 and completions 3, 4, 5 pass 60 tokens on its third call
    assert clamp.status == "failed" and clamp.reason == "token limit: 63 tokens used (limit 60)"
    assert clamp.repeated_reads == 2 and clamp.reads == 3
    config = AgentConfig(max_steps=2, stop_after_failures=1000)  # every unit fails: do them all
    with client_for(openai_server) as client:
        again = run_agent(SAMPLE, engine.store, client, config=config)
    assert again.outcome_by_id["shop.util.clamp"].reason == "step limit: 2 steps without a verified FINISH"
    assert round2.status == "failed" or again.outcome_by_id["shop.util.round2"].status == "failed"


def test_reads_are_cached_repeats_counted_and_search_asks_the_index(
    openai_server: OpenAIServer, engine: Docmentor, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "asyncio.md").write_text(
        "# asyncio\n\n## Sleeping\n\n`asyncio.sleep(delay)` suspends the current task for delay seconds.\n",
        encoding="utf-8",
    )
    engine.add(str(docs), name="pydocs", embed=False)
    model = Model()
    search = json.dumps({"action": "READ", "target": "search", "query": "asyncio sleep  suspends"})
    callees = json.dumps({"action": "READ", "target": "callees"})
    model.first["shop.pricing.fetch_prices"] = [
        search,
        search,
        callees,
        json.dumps({"action": "READ", "target": "shop.util.clamp"}),
    ]
    model.first["shop.pricing.discounted"] = [callees, callees]
    model.first["shop.pricing.outer"] = [search]
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client, config=AgentConfig(max_steps=12), docs=engine)
    fetch = report.outcome_by_id["shop.pricing.fetch_prices"]
    assert fetch.status == "committed" and fetch.reads == 4 and fetch.repeated_reads == 1
    reads = [
        t.inputs
        for t in repomem_trace.trace(engine.store, report.run_id, unit_id="shop.pricing.fetch_prices")
        if t.action == "READ"
    ]
    assert [(r["kind"], r["cached"], r["repeat"]) for r in reads] == [
        ("search", False, False),
        ("search", True, True),
        ("callees", False, False),
        ("code", False, False),
    ]
    assert reads[0]["query"] == "asyncio sleep suspends"
    assert reads[2]["query"] == f"shop.pricing.fetch_prices@{REPO.repository.content_hash[:12]}"
    assert reads[3]["query"] == f"shop.util.clamp@{REPO.repository.content_hash[:12]}"
    answered = next(
        r
        for r in openai_server.requests
        if unit_of(r) == "shop.pricing.fetch_prices" and len(r.messages) == 4
    )
    assert "suspends the current task" in answered.messages[-1]["content"]
    # another unit's same question is a cache hit but no repeat of its own
    outer = [
        t.inputs
        for t in repomem_trace.trace(engine.store, report.run_id, unit_id="shop.pricing.outer")
        if t.action == "READ"
    ]
    assert (outer[0]["cached"], outer[0]["repeat"]) == (True, False)
    discounted = next(
        r for r in openai_server.requests if unit_of(r) == "shop.pricing.discounted" and len(r.messages) == 4
    )
    assert "### shop.util.clamp (function, shop/util.py:" in discounted.messages[-1]["content"]
    assert "### shop.util.logged" in discounted.messages[-1]["content"]
    assert report.outcome_by_id["shop.pricing.discounted"].repeated_reads == 1
    # hits: fetch_prices' repeated search, outer's search, discounted's repeated callees
    assert repomem_trace.progress(engine.store, report.run_id).cache_hits == 3


def test_time_waiting_for_the_model_is_told_apart_from_the_loops_own(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    model.delay["shop.util.clamp"] = 0.4
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client)
    clamp = report.outcome_by_id["shop.util.clamp"]
    assert clamp.model_seconds >= 0.4 and clamp.seconds >= clamp.model_seconds
    assert all(0 < o.model_seconds <= o.seconds for o in report.outcomes)


def test_units_of_one_level_run_at_the_same_time_with_workers(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client, config=AgentConfig(workers=4))
    assert report.finished and sorted(report.committed) == sorted(ORDER.order)
    assert_order_respects_edges(finish_order(engine, report.run_id))


# -- kill and resume -------------------------------------------------------------------------

_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from docmentor.engine import Docmentor
    from docmentor.llm import LLMClient
    from docmentor.llm.config import LLMConfig
    from docmentor.repodocs.agent import run_agent

    engine = Docmentor(Path(sys.argv[1]))
    with LLMClient(LLMConfig(base_url=sys.argv[2], model="scripted", timeout=60)) as client:
        run_agent(Path(sys.argv[3]), engine.store, client)
    """
)


def test_a_run_killed_mid_way_resumes_without_redoing_committed_units(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    model = Model()
    slow = "shop.pricing.total"
    model.delay[slow] = 30.0
    openai_server.script(model)
    db = tmp_path / "db"
    Docmentor(db).close()  # the index exists before the child opens it
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(db), openai_server.base_url, str(SAMPLE)],
        env=env,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not any(unit_of(r) == slow for r in openai_server.requests):
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            assert time.monotonic() < deadline, "the child never reached the slow unit"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        if child.stderr is not None:
            child.stderr.close()
    engine = Docmentor(db)
    try:
        run = repomem.list_runs(engine.store)[0]
        before = {r.unit_id: r for r in repomem.units(engine.store, run.id, status="committed")}
        position = ORDER.order.index(slow)
        assert set(before) == set(ORDER.order[:position])  # everything before the slow unit, nothing after
        assert repomem.get_unit(engine.store, run.id, slow).status == "pending"
        model.delay.clear()
        seen = len(openai_server.requests)
        with client_for(openai_server) as client:
            report = run_agent(SAMPLE, engine.store, client)
        assert report.run_id == run.id and report.finished
        assert set(report.skipped) == set(before)
        assert report.committed == list(ORDER.order[position:])
        asked = {unit_of(r) for r in openai_server.requests[seen:]}
        assert asked.isdisjoint(before) and slow in asked
        after = {r.unit_id: r for r in repomem.units(engine.store, run.id, status="committed")}
        assert all(after[u].committed_at == before[u].committed_at for u in before)
        assert_order_respects_edges(finish_order(engine, run.id))
    finally:
        engine.close()


# -- the pieces ------------------------------------------------------------------------------


def test_parse_action_reads_json_anywhere_and_rejects_the_rest() -> None:
    assert parse_action('Thought: easy.\n```json\n{"action": "read", "target": "memory"}\n```')[0] == {
        "action": "READ",
        "target": "memory",
    }
    assert parse_action('{"action": "FINISH"}') == ({"action": "FINISH"}, None)
    assert parse_action("") == (None, "no JSON object in the reply (the reply was empty)")
    assert parse_action('{"action": 3}')[1] == "unknown action 3"
    assert (
        parse_action('{"action": "WRITE", "document": "  "}')[1]
        == 'WRITE needs a non-empty "document" string'
    )
    assert parse_action('{"action": "READ", "target": ""}')[1] == 'READ needs a "target" string'


def test_fit_drops_older_messages_first_and_keeps_the_task_and_the_latest() -> None:
    msgs = [{"role": "system", "content": "S" * 10}, {"role": "user", "content": "T" * 10}]
    msgs += [{"role": "assistant" if i % 2 else "user", "content": f"word{i} " * 60} for i in range(6)]
    whole = count_request(msgs, ENC)
    out = fit(msgs, whole - 200, ENC)
    assert [m["content"][:1] for m in out[:2]] == ["S", "T"]
    assert [m["content"] == "[earlier message left out to fit the context budget]" for m in out[2:]] == [
        True, True, False, False, False, False,
    ]  # fmt: skip
    assert count_request(out, ENC) <= whole - 200
    tight = fit(msgs, 200, ENC)  # every older message goes, then the latest are cut, the last first
    assert [m["content"] == out[2]["content"] for m in tight[2:6]] == [True] * 4
    assert count_request(tight, ENC) <= 200 and tight[-1]["content"] != msgs[-1]["content"]
    assert "more lines left out to fit the context budget" in tight[-1]["content"] or not tight[-1]["content"]
    assert msgs[2]["content"] == "word0 " * 60  # the history itself is kept
    assert fit(msgs, 10**6, ENC) == msgs
    # the client's JSON instruction counts too
    assert count_request(fit(msgs, whole, ENC, extra=100), ENC) <= whole - 100


def test_agent_config_rejects_limits_that_cannot_work() -> None:
    for bad in (
        {"max_steps": 0},
        {"threshold": 1.5},
        {"threshold": float("nan")},
        {"max_revisions": -1},
        {"workers": 0},
        {"prompt_price": 1.0},
        {"prompt_price": -1.0, "completion_price": 1.0},
    ):
        with pytest.raises(UsageError):
            AgentConfig(**bad)


def test_read_scores_is_strict() -> None:
    ok = read_scores({"Consistency": 1, "completeness": "0.9", "helpfulness": 0.8})
    assert ok.problem is None and ok.mean == pytest.approx(0.9)
    assert read_scores(None).mean is None
    assert (
        read_scores({"consistency": 0.9, "completeness": 0.9}).problem
        == "unusable scores: missing helpfulness"
    )
    for value in (True, float("inf"), 1.01, -0.1, "n/a", [0.9]):
        scores = read_scores({"consistency": value, "completeness": 0.9, "helpfulness": 0.9})
        assert scores.mean is None and scores.problem is not None and "consistency=" in scores.problem


def test_parameter_and_section_checks_on_real_units() -> None:
    total = UNITS["shop.pricing.total"]
    label = UNITS["shop.models.Item.label"]
    make = UNITS["shop.models.Item.make"]
    assert isinstance(total, Component) and isinstance(label, Component) and isinstance(make, Component)
    doc = "## Summary\nx\n## Description\ny\n## Args\n- `items` (list): a.\n  continued: not a name\n- **discount** — b.\n"
    assert documented_parameters(doc) == ["items", "discount"]
    assert check_parameters(total, doc) == []
    assert documented_parameters("Args:\n    items (list): a.\n    None\n") == ["items"]
    assert check_parameters(make, "## Args\nname (str): n.") == []  # cls is not documented
    assert check_parameters(label, "## Summary\ns") == []  # self only
    # the sections `repodocs evaluate` requires of a model's document, no more and no fewer
    found = check_sections(label, "## Summary\ns\n## Description\nd", FACTS, UNITS)
    assert found == ["missing section: Returns", "missing section: Raises", "missing section: Examples"]
    doc = "## Summary\ns\n## Description\nd\n## Parameters\nitems: x\n## Yields\nr\n## Examples\ne"
    assert check_sections(total, doc, FACTS, UNITS) == []  # Parameters for Args, Yields for Returns
    init = UNITS["shop.models.Item.__init__"]
    doc = "## Summary\ns\n## Description\nd\n## Args\nname: n\n## Returns\nNone.\n## Examples\ne"
    assert check_sections(init, doc, FACTS, UNITS) == [
        "section the code does not call for: Returns (leave it out)"
    ]
    module = UNITS["shop.util"]
    doc = "```\n## Role\n```\n## Components\nc\n## Public API\np\n## Diagram\nflowchart LR"
    assert check_sections(module, doc, FACTS, UNITS) == [
        "missing section: Role",
        "missing section: Dependencies",
        "no ```mermaid block under Diagram",
    ]


def test_symbol_check_resolves_repository_library_and_python_names() -> None:
    table = SymbolTable(REPO, GRAPH)
    doc = textwrap.dedent(
        """\
        Uses `Item.describe`, `shop.util.clamp`, `util.round2()`, `self.price`, `Money`, `ValueError`,
        `asyncio.sleep(0)`, `functools.wraps`, `dataclasses.dataclass`, `os.path.join`, `is_even`,
        plain words `price` and `EUR`, a call total(items) and `round(x, 2)`.
        ```mermaid
        flowchart LR
          not_checked_here --> `Nothing`
        ```
        Invented: `misc.helper`, `Item.nothing_here`, `make_widget()`, `FancyThing` and build_cache(x); unclosed `tick
        """
    )
    names = code_names(doc)
    assert "not_checked_here" not in names and "price" not in names and "EUR" not in names
    assert check_symbols(doc, table, ()) == [
        f"names something that is not in the repository, its imports or Python: `{n}`"
        for n in ("misc.helper", "Item.nothing_here", "make_widget", "FancyThing", "build_cache")
    ]
    assert check_symbols("`new_total` is kept", table, {"new_total"}) == []
    # a library's or Python's name is not checked further; one under the repository's own is
    assert check_symbols("`dataclasses.field` and `types.MappingProxyType`", table, ()) == []
    assert check_symbols("`shop.util.nothing` and `m.Item`", table, ()) == [
        "names something that is not in the repository, its imports or Python: `shop.util.nothing`",
        "names something that is not in the repository, its imports or Python: `m.Item`",
    ]
    assert check_symbols("`m.Item`", table, {"m", "Item"}) == []  # names in the unit's file


def test_symbol_scan_is_linear_on_hostile_text() -> None:
    table = SymbolTable(REPO, GRAPH)
    for doc in ("a" * 200_000 + "(", "`" * 100_001, ("x." * 100_000) + "(", "`a" * 100_000):
        started = time.monotonic()
        check_symbols(doc, table, ())
        documented_parameters("## Args\n" + doc)
        assert time.monotonic() - started < 2.0


def test_raises_links_and_locations_are_checked_against_the_code() -> None:
    label, total = UNITS["shop.models.Item.label"], UNITS["shop.pricing.total"]
    assert check_raises(label, "## Raises\n- `ValueError`: if the price is negative.", []) == []
    assert check_raises(label, "## Summary\ns", []) == ["raised but not documented under Raises: ValueError"]
    assert check_raises(total, "## Raises\nLookupError: when a callee does.", ["LookupError"]) == []
    assert check_raises(total, "## Raises\nerrors.UsageError: bad.", []) == [
        "documented under Raises but raised neither by it nor by what it calls: UsageError"
    ]
    assert documented_raises("## Raises\nNone.\n  ValueError if x\nraises nothing here") == ["ValueError"]
    pages = {"index.md", "modules/shop.util.md"}
    lines = {"shop/util.py": 22}
    doc = (
        "[a](shop.util.md) [b](../modules/shop.util.md#c-clamp) [c](index.md) [d](https://x.org/y.md) "
        "[e](#anchor) [f](shop/util.py) [g](nothing.md) [h](../packages/nope.md) [i](docs/missing.txt) "
        "`shop/util.py:7` at ./shop/util.py:3-9, shop/util.py:30 and `other/mod.py:1`, x.py:y"
    )
    assert check_links(doc, UNITS, pages, lines) == [
        "link to a document of no unit: nothing.md",
        "link to a document of no unit: ../packages/nope.md",
        "link to a file not in the repository: docs/missing.txt",
        "code location past the end of shop/util.py (22 lines): shop/util.py:30",
        "code location in no file of the repository: other/mod.py:1",
    ]
    assert locations("a/b.py:3-4 b.py:7") == [("a/b.py", 3, 4), ("b.py", 7, None)]
    started = time.monotonic()
    for hostile in ("a" * 200_000 + ".py:1", ".py:" * 50_000, "](" * 100_000, "[x](" + "a" * 200_000):
        check_links(hostile, UNITS, pages, lines)
        documented_raises("## Raises\n" + hostile)
    assert time.monotonic() - started < 3.0


def test_cross_document_conflicts_send_the_draft_back_and_an_unusable_check_fails(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    conflicted, unusable = "shop.pricing.discounted", "shop.pricing.total"
    conflict = {
        "claim": "clamp never limits the rate",
        "unit": "shop.util.clamp",
        "reason": "it clamps to [lo, hi]",
    }
    model.judgements[conflicted] = lambda n: {"claims": ["a", "b"], "conflicts": [conflict] if n == 0 else []}
    model.judgements[unusable] = lambda n: "I see no problems." if n < 2 else {"claims": ["a"]}
    model.documents[conflicted] = lambda n: good_document(UNITS[conflicted])
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client)
    out = report.outcome_by_id[conflicted]
    assert out.status == "committed" and out.revisions == 1 and out.model_calls == out.steps + 2
    checks = [
        t
        for t in repomem_trace.trace(engine.store, report.run_id, unit_id=conflicted)
        if t.action == "CONFLICT"
    ]
    assert checks[0].inputs["conflicts"] == [conflict] and checks[0].inputs["references"] == [
        "shop.util.clamp",
        "shop.util.logged",
    ]
    judge = next(r for r in openai_server.requests if unit_of(r) == conflicted and is_judge(r))
    assert '<REFERENCE unit="shop.util.clamp">' in judge.messages[1]["content"]
    assert judge.body["response_format"] == {"type": "json_object"}
    revise = next(r for r in openai_server.requests if unit_of(r) == conflicted and len(r.messages) == 8)
    assert (
        "contradicts the document of shop.util.clamp: clamp never limits the rate (it clamps to [lo, hi])"
        in revise.messages[-1]["content"]
    )
    row = repomem.get_unit(engine.store, report.run_id, conflicted)
    assert row.scores["conflict_free"] == 1.0
    failed = report.outcome_by_id[unusable]
    assert failed.status == "failed" and "the cross-document check gave no usable answer" in (
        failed.reason or ""
    )
    # three verifications; the third check's answer lacks "conflicts": unusable too, never a pass
    assert failed.verifications == 3 and model.judged[unusable] == 3


def test_claims_come_from_the_writer_else_from_the_check(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    model = Model()
    silent = "shop.util"
    model.first[silent] = [
        json.dumps({"action": "READ", "target": "memory"}),
        json.dumps({"action": "WRITE", "document": good_document(UNITS[silent])}),
    ]
    model.judgements[silent] = lambda n: {"claims": ["clamp bounds x", " ", "round2 rounds"], "conflicts": []}
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client, config=AgentConfig(cross_check=True))
    rows = {r.unit_id: r for r in repomem.units(engine.store, report.run_id)}
    assert rows[silent].claims == ("clamp bounds x", "round2 rounds")
    assert rows["shop.pricing"].claims == ("shop.pricing exists.",)
    with client_for(openai_server) as client:
        seen = len(openai_server.requests)
        off = run_agent(SAMPLE, engine.store, client, config=AgentConfig(cross_check=False), resume=False)
    assert off.finished and not any(is_judge(r) for r in openai_server.requests[seen:])


def test_a_unit_larger_than_a_page_is_read_in_pages(openai_server: OpenAIServer, engine: Docmentor) -> None:
    model = Model()
    target = "shop.pricing.total"
    model.first[target] = [
        json.dumps({"action": "READ", "target": target, "page": 2}),
        json.dumps({"action": "READ", "target": target, "page": 3}),
        json.dumps({"action": "READ", "target": target, "page": 99}),
        json.dumps({"action": "READ", "target": target, "page": "two"}),
    ]
    openai_server.script(model)
    with client_for(openai_server) as client:
        report = run_agent(SAMPLE, engine.store, client, config=AgentConfig(source_tokens=22, max_steps=12))
    out = report.outcome_by_id[target]
    assert out.status == "committed" and out.invalid_actions == 1 and out.reads == 4  # then memory
    requests = [r for r in openai_server.requests if unit_of(r) == target and not is_judge(r)]
    task = requests[0].messages[1]["content"]
    first = task.split("<SOURCE>\n", 1)[1].split("\n[page 1 of 3: ", 1)[0]
    assert '[page 1 of 3: READ {"target": "shop.pricing.total", "page": 2} and on for the rest]' in task
    answers = [requests[i].messages[-1]["content"] for i in (1, 2, 3)]
    assert answers[0].startswith(
        "READ shop.pricing.total:\n### shop.pricing.total (function, shop/pricing.py:9-11) page 2 of 3\n"
    )
    assert answers[0].endswith('[page 2 of 3: READ {"target": "shop.pricing.total", "page": 3} for the next]')
    second = answers[0].split("page 2 of 3\n", 1)[1].split("\n[page 2 of 3", 1)[0]
    third = answers[1].split("page 3 of 3\n", 1)[1]
    source = "\n".join(SAMPLE.joinpath("shop/pricing.py").read_text().splitlines()[8:11])
    assert "\n".join([first, second, third]) == source
    assert all(count_tokens(p) <= 22 for p in (first, second, third))
    assert answers[2].endswith("It has 3 page(s) of code; there is no page 99.")
    assert requests[4].messages[-1]["content"].startswith('That action could not be used: "page" is a number')


def test_pages_cut_at_line_ends_and_split_long_lines() -> None:
    assert pages("", 10, ENC) == [""]
    assert pages("abc\ndef\ngh", 4, ENC) == ["abc\ndef", "gh"]
    long = "".join(f"{i} λόγος 中文 " for i in range(300))  # one line of some 2,000 tokens
    cut = pages(long + "\ny", 100, ENC)
    assert "".join(cut[:-1]) == long and cut[-1] == "y"  # the pieces of the line are the line
    assert all(count_tokens(p) <= 100 for p in cut) and len(cut) >= 15
    text = "\n".join(f"línea {i}: ünïcödé 字 {i * 7}" for i in range(1000))
    cut = pages(text, 100, ENC)
    assert "\n".join(cut) == text and all(count_tokens(p) <= 100 for p in cut)
    assert all(
        count_tokens(a + "\n" + b.split("\n")[0]) > 100 for a, b in itertools.pairwise(cut)
    )  # full pages
