"""The documentation agent's context budget in tokens (repodocs/budget.py and its use in the loop):
a repository whose text is mostly not English, with one unit larger than the model's window, is
documented through the real LLMClient against the scripted OpenAI-compatible server on
127.0.0.1 while the server counts every request it receives (the project's exact offline
counter) and checks it fits the window with the reply's max_tokens; and the pieces: pages,
cuts, shares, the window's setting and its refusal."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docmentor.assemble.tokens import count_tokens
from docmentor.engine import Docmentor
from docmentor.errors import UsageError
from docmentor.llm import LLMClient
from docmentor.llm.config import DEFAULT_CONTEXT_WINDOW, LLMConfig
from docmentor.repodocs import read_repository
from docmentor.repodocs.agent import AgentConfig, run_agent
from docmentor.repodocs.budget import Budget, count_request, fit_parts, pages, share, trim
from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.units import Component
from docmentor.store import repomem
from httpserver import Reply
from openai_server import ChatRequest, OpenAIServer
from openai_server import openai_server as openai_server  # the fixture
from test_repodocs_agent import good_document, unit_of

LEXICON = Path(__file__).parent / "fixtures" / "repodocs_budget"
_REPO = read_repository(LEXICON)
UNITS = _REPO.units()
FACTS = read_facts(LEXICON, _REPO)
ENC = "o200k_base"
WINDOW = 3_500
REPLY = 512
# some 450 tokens of Greek, Russian and Chinese prose: the documents memory must cut
PROSE = " ".join(
    f"Η λειτουργία επιστρέφει το αποτέλεσμα {i}· функция возвращает результат {i}; 函数返回结果{i}。"
    for i in range(14)
)
_PAGES = re.compile(r"\[page 1 of (\d+): ")


def is_judge(req: ChatRequest) -> bool:
    return str(req.messages[0]["content"]).startswith("You check a draft document")


class CountingModel:
    """Plans each unit's actions at its first request (every page of its code, memory, WRITE,
    VERIFY, FINISH) and counts every request as it arrives: ``sizes`` holds each request's
    counted prompt tokens and its max_tokens."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.plans: dict[str, list[dict[str, Any]]] = {}
        self.sizes: list[tuple[str, int, int]] = []

    def __call__(self, req: ChatRequest) -> Reply:
        unit = unit_of(req)
        with self.lock:
            self.sizes.append((unit, count_request(req.messages, ENC), int(req.body.get("max_tokens") or 0)))
            if is_judge(req):
                action: Any = {"claims": ["one"], "conflicts": []}
            else:
                if unit not in self.plans:
                    self.plans[unit] = self.plan(unit, str(req.messages[1]["content"]))
                action = self.plans[unit].pop(0)
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
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return Reply(body=json.dumps(body), content_type="application/json")

    @staticmethod
    def plan(unit: str, task: str) -> list[dict[str, Any]]:
        found = _PAGES.search(task)
        reads = (
            [{"action": "READ", "target": unit, "page": p} for p in range(2, int(found[1]) + 1)]
            if found
            else []
        )
        document = good_document(UNITS[unit], FACTS, UNITS)
        if isinstance(UNITS[unit], Component):
            document = document.replace("It does its job.", f"It does its job. {PROSE}").replace(
                "It keeps state.", f"It keeps state. {PROSE}"
            )
        return [
            *reads,
            {"action": "READ", "target": "memory"},
            {"action": "WRITE", "document": document, "claims": [f"{unit} exists."]},
            {"action": "VERIFY", "scores": {"consistency": 0.95, "completeness": 0.95, "helpfulness": 0.95}},
            {"action": "FINISH"},
        ]


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Docmentor]:
    eng = Docmentor(tmp_path / "db")
    yield eng
    eng.close()


def test_a_unit_larger_than_the_window_is_documented_without_a_request_past_the_window(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    big = "lexicon.words.table"
    unit = UNITS[big]
    assert isinstance(unit, Component)
    source = "\n".join(
        LEXICON.joinpath(unit.path)
        .read_text(encoding="utf-8")
        .splitlines()[unit.line_start - 1 : unit.line_end]
    )
    assert (
        count_tokens(source) > WINDOW > len(source) / 4
    )  # larger than the window; "4 characters a token" says it fits
    model = CountingModel()
    openai_server.script(model)
    config = AgentConfig(reply_tokens=REPLY, max_steps=40, max_tokens=10**6)
    with LLMClient(
        LLMConfig(base_url=openai_server.base_url, model="scripted", timeout=10, context_window=WINDOW)
    ) as client:
        report = run_agent(LEXICON, engine.store, client, config=config)
    assert report.finished and not report.failed, [o.reason for o in report.outcomes if o.reason]
    assert set(report.committed) == set(UNITS)
    # every request the server received fits the window with its reply
    assert len(model.sizes) > 40 and all(m == REPLY for _, _, m in model.sizes)
    over = [(u, p) for u, p, m in model.sizes if p + m > WINDOW]
    assert over == []
    assert max(p for _, p, _ in model.sizes) > WINDOW // 2  # the budget was used, not avoided
    assert all(o.largest_request <= WINDOW - REPLY for o in report.outcomes)
    # the big unit's task carries its outline and first page; the pages read are its code
    requests = [r for r in openai_server.requests if unit_of(r) == big and not is_judge(r)]
    task = requests[0].messages[1]["content"]
    count = int(_PAGES.search(task)[1])  # type: ignore[index]
    assert count >= 5 and f"Outline (its code takes {count} pages):" in task
    assert "Docstring: Ο πίνακας όλων των λέξεων" in task and "Lines 6-99 (94 lines)" in task
    first = task.split("<SOURCE>\n", 1)[1].split("\n[page 1 of ", 1)[0]
    read = [first]
    for r in requests[1:count]:
        answer = r.messages[-1]["content"]
        read.append(answer.split(" pages)\n", 1)[-1].split(f" of {count}\n", 1)[1].split("\n[page ", 1)[0])
    assert "\n".join(read) == source
    # a module's parts' documents do not all fit one READ: the largest are cut, and it says so
    module = next(
        r
        for r in openai_server.requests
        if unit_of(r) == "lexicon.lookup"
        and not is_judge(r)
        and "READ memory" in str(r.messages[-1]["content"])
    )
    memory = module.messages[-1]["content"]
    assert "[to fit the context budget, cut: " in memory and "lexicon.lookup.first (cut from " in memory
    assert (
        count_tokens(memory)
        <= Budget.of(
            window=WINDOW,
            reply_tokens=REPLY,
            system="x",
            read_tokens=4_000,
            source_tokens=3_000,
            facts_tokens=1_000,
            encoding=ENC,
        ).read
    )
    # the cross-document check's references are cut to fit as well
    judge = next(r for r in openai_server.requests if unit_of(r) == "lexicon.lookup" and is_judge(r))
    assert "[to fit the context budget, " in judge.messages[1]["content"]
    rows = {r.unit_id: r for r in repomem.units(engine.store, report.run_id)}
    assert PROSE in (rows[big].document or "")


def test_a_window_too_small_is_refused_before_the_run_starts(
    openai_server: OpenAIServer, engine: Docmentor
) -> None:
    with LLMClient(
        LLMConfig(base_url=openai_server.base_url, model="scripted", context_window=2_000)
    ) as client:
        with pytest.raises(UsageError, match="context window of 2000 tokens is too small") as caught:
            run_agent(LEXICON, engine.store, client, config=AgentConfig(reply_tokens=REPLY))
        assert "DOCMENTOR_LLM_CONTEXT" in (caught.value.hint or "")
        assert repomem.list_runs(engine.store) == [] and openai_server.requests == []
        # the agent's own setting wins over the client's
        with pytest.raises(UsageError, match="context window of 1500 tokens"):
            run_agent(LEXICON, engine.store, client, config=AgentConfig(context_tokens=1_500))


def test_the_window_is_set_by_the_environment_with_a_conservative_default() -> None:
    env = {"DOCMENTOR_LLM_BASE_URL": "http://127.0.0.1:1/v1", "DOCMENTOR_LLM_MODEL": "m"}
    config = LLMConfig.from_env(env)
    assert config is not None and config.context_window == DEFAULT_CONTEXT_WINDOW == 32_768
    config = LLMConfig.from_env({**env, "DOCMENTOR_LLM_CONTEXT": "131072"})
    assert config is not None and config.context_window == 131_072
    for bad in ("0", "-5", "lots", "inf"):
        with pytest.raises(UsageError, match="DOCMENTOR_LLM_CONTEXT"):
            LLMConfig.from_env({**env, "DOCMENTOR_LLM_CONTEXT": bad})
    for bad_config in ({"context_tokens": 0}, {"read_tokens": 0}, {"facts_tokens": -1}, {"encoding": "gpt2"}):
        with pytest.raises(UsageError):
            AgentConfig(**bad_config)


def test_budget_splits_the_window_and_shrinks_to_a_small_one() -> None:
    big = Budget.of(
        window=32_768,
        reply_tokens=2_048,
        system="s " * 700,
        read_tokens=4_000,
        source_tokens=3_000,
        facts_tokens=1_000,
        encoding=ENC,
    )
    assert (big.prompt, big.read, big.source, big.facts) == (30_720, 4_000, 3_000, 1_000)
    small = Budget.of(
        window=6_200,
        reply_tokens=None,
        system="s " * 700,
        read_tokens=4_000,
        source_tokens=3_000,
        facts_tokens=1_000,
        encoding=ENC,
    )
    assert (small.reply, small.prompt) == (2_048, 4_152)  # None: the server's default, 2,048 kept for it
    assert small.read < 4_000 and small.source < small.read and small.facts < 1_000
    # what every request keeps (system, task, the latest reply and observation) fits its prompt
    assert 16 + small.system + small.task + small.read + small.reply + 24 <= small.prompt


def test_trim_cuts_at_a_line_end_within_the_budget_and_says_so() -> None:
    text = "\n".join(f"строка {i}: 行 {i} — γραμμή {i}" for i in range(200))
    cut = trim(text, 100, ENC)
    assert count_tokens(cut) <= 100 and cut.endswith("more lines left out to fit the context budget]")
    kept = cut.rsplit("\n[… ", 1)[0]
    assert text.startswith(kept + "\n") and f"[… {200 - kept.count(chr(10)) - 1} more lines" in cut
    assert trim(text, 10**6, ENC) == text
    assert count_tokens(trim(text, 5, ENC)) <= 5  # too small for the note: the first tokens
    assert trim("", 0, ENC) == ""


def test_share_cuts_the_largest_first_and_names_what_it_cut_or_left_out() -> None:
    small = ("### a (depends on)", "短い文書。")
    large = ("### b (contains)", "\n".join(f"Большой документ, строка {i}." for i in range(300)))
    medium = ("### c (contains)", "\n".join(f"Μεσαίο έγγραφο, γραμμή {i}." for i in range(10)))
    text = share([small, large, medium], 500, ENC)
    assert count_tokens(text) <= 500
    assert "短い文書。" in text and "Μεσαίο έγγραφο, γραμμή 9." in text  # the smaller ones whole
    assert "Большой документ, строка 0." in text and "строка 299" not in text
    assert text.endswith("[to fit the context budget, cut: b (cut from " + text.split("cut from ", 1)[1])
    # far too little room: the largest parts are left out whole, and the note names them
    kept, note = fit_parts([small, large, medium], 200, ENC)
    assert [i for i, _ in kept] == [0] and note is not None and "left out: b (" in note and "c (" in note
    assert share([small], 400, ENC) == f"{small[0]}\n{small[1]}" and share([], 10, ENC) == ""


def test_pages_of_a_line_of_any_length_keep_the_text() -> None:
    for text in ("🧠" * 3_000, "x" * 50_000, "a\n" * 10 + "中" * 4_000):
        cut = pages(text, 64, ENC)
        assert all(count_tokens(p) <= 64 for p in cut)
        assert "".join(cut).replace("\n", "") == text.replace("\n", "")
