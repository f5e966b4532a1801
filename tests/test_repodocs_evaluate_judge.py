"""The model's judgement of repository documents (repodocs/evaluate_judge.py) through the real
LLMClient against the scripted OpenAI-compatible server on 127.0.0.1: good scores and their
means and tokens, a malformed reply, a 429 retried and a 429 storm, a model that gives no
usable score (each unjudged, never a pass), the deterministic sample, and the CLI's
--llm/--no-llm/--judge-limit."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clitool import Cli
from docmentor.errors import UsageError
from docmentor.llm.config import LLMConfig
from docmentor.repodocs import build_graph, document_repository, read_repository, traversal
from docmentor.repodocs.evaluate import evaluate_docs
from docmentor.repodocs.evaluate_judge import MAX_FAILED_IN_A_ROW, judge_sample, read_verdict
from httpserver import Reply
from openai_server import ChatRequest, OpenAIServer, rate_limited
from openai_server import openai_server as openai_server  # the fixture

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE, root)
    document_repository(root, root / ".docmentor-docs")
    return root


def config(server: OpenAIServer, **extra: Any) -> LLMConfig:
    return LLMConfig(base_url=server.base_url, model="judge", timeout=10, backoff=0.01, **extra)


def unit_of(req: ChatRequest) -> str:
    match = re.search(r"^Unit: (.+)$", str(req.messages[-1]["content"]), re.MULTILINE)
    assert match is not None
    return match.group(1)


def answers(
    decide: Callable[[str], str], usage: tuple[int, int] | None = (100, 20)
) -> Callable[[ChatRequest], Reply]:
    """A reply computed from the judged unit, with ``usage`` (none when None)."""

    def reply(req: ChatRequest) -> Reply:
        body: dict[str, Any] = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": req.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": decide(unit_of(req))}}],
        }
        if usage is not None:
            body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
        return Reply(body=json.dumps(body), content_type="application/json")

    return reply


def scores(t: object, h: object, **more: object) -> str:
    return json.dumps({"truthfulness": t, "helpfulness": h, **more})


def test_good_scores_give_means_by_granularity_and_the_reported_tokens(
    openai_server: OpenAIServer, repo: Path
) -> None:
    table = {"shop.pricing.total": (1.0, 0.5), "latin.greet": (0.8, 0.7)}
    openai_server.script(
        answers(lambda u: scores(*table.get(u, (0.9, 0.6)), unsupported=["it caches prices"]))
    )
    ev = evaluate_docs(repo, repo / ".docmentor-docs", llm=config(openai_server), judge_limit=100)
    judge = ev.judge
    assert judge is not None and judge.model == "judge"
    units = read_repository(repo).units()
    assert len(judge.units) == len(units) == judge.requests == judge.judged  # the cap is above the count
    assert judge.unjudged == () and judge.unreported == 0
    assert (judge.prompt_tokens, judge.completion_tokens) == (100 * len(units), 20 * len(units))
    n = len(units)
    expected_t = (1.0 + 0.8 + 0.9 * (n - 2)) / n
    assert judge.mean("truthfulness") == pytest.approx(expected_t)
    assert judge.mean("helpfulness") == pytest.approx((0.5 + 0.7 + 0.6 * (n - 2)) / n)
    assert judge.mean("truthfulness", "repository") == pytest.approx(0.9)
    data = ev.to_dict()["judge"]
    assert data["judged"] == n and data["unjudged"] == 0
    assert set(data["by_granularity"]) == {"component", "module", "package", "repository"}
    assert data["units"][0]["unsupported"] == ["it caches prices"]
    # each request holds the judge's instructions, the unit's code and its document
    req = next(r for r in openai_server.requests if unit_of(r) == "shop.pricing.total")
    assert req.model == "judge" and "truthfulness" in str(req.messages[0]["content"])
    user = str(req.messages[-1]["content"])
    assert "def total(items: list[m.Item], *, discount: float = 0.0) -> float:" in user
    assert "<DOCUMENT>\n## Summary" in user and "`discount`" in user
    package = next(r for r in openai_server.requests if unit_of(r) == "shop")
    assert "- module shop.pricing (shop/pricing.py): Prices of items." in str(package.messages[-1]["content"])


def test_a_malformed_reply_or_no_usable_score_is_unjudged_not_a_pass(
    openai_server: OpenAIServer, repo: Path
) -> None:
    replies = {
        "shop.pricing.total": "I think it is quite good!",  # no JSON
        "shop.util": json.dumps({"helpfulness": 0.8}),  # no truthfulness
        "shop": scores("high", 0.9),  # not a number
        ".": scores(1.5, 0.9),  # out of range
        "shop.models.Item": scores(True, 0.9),  # a boolean is no score
    }
    openai_server.script(answers(lambda u: replies.get(u, scores(0.9, 0.9))))
    ev = evaluate_docs(repo, repo / ".docmentor-docs", llm=config(openai_server), judge_limit=100)
    judge = ev.judge
    assert judge is not None
    problems = {u.unit: u.problem for u in judge.unjudged}
    assert set(problems) == set(replies)
    assert "holds no valid JSON" in str(problems["shop.pricing.total"])
    assert problems["shop.util"] == "unusable reply: no truthfulness score"
    assert "truthfulness is not a number in [0, 1]: 'high'" in str(problems["shop"])
    assert "1.5" in str(problems["."])
    assert judge.judged == len(judge.units) - len(replies)
    assert judge.mean("truthfulness") == pytest.approx(0.9)  # the unjudged are not in the mean
    assert judge.mean("truthfulness", "repository") is None
    assert ev.to_dict()["judge"]["unjudged"] == len(replies)


def test_a_429_is_retried_and_a_storm_leaves_the_rest_unasked(
    openai_server: OpenAIServer, repo: Path
) -> None:
    good = answers(lambda u: scores(0.9, 0.8))
    openai_server.script(rate_limited("0"), good)
    ev = evaluate_docs(repo, repo / ".docmentor-docs", llm=config(openai_server), judge_limit=3)
    assert ev.judge is not None and ev.judge.judged == 3 and ev.judge.requests == 3
    assert len(openai_server.requests) == 4  # one retried
    storm = OpenAIServer()
    with storm:
        storm.script(good, rate_limited("0"))  # the first answer, then 429s only
        ev = evaluate_docs(repo, repo / ".docmentor-docs", llm=config(storm, max_attempts=2), judge_limit=8)
        assert len(storm.requests) == 1 + 2 * MAX_FAILED_IN_A_ROW
    judge = ev.judge
    assert judge is not None and judge.judged == 1 and judge.requests == 1 + MAX_FAILED_IN_A_ROW
    problems = [u.problem or "" for u in judge.units[1:]]
    assert all("the request failed" in p and "HTTP 429" in p for p in problems[:MAX_FAILED_IN_A_ROW])
    assert (
        problems[MAX_FAILED_IN_A_ROW:] == [f"not asked: {MAX_FAILED_IN_A_ROW} requests in a row failed"] * 4
    )
    assert (judge.prompt_tokens, judge.completion_tokens) == (100, 20)  # failed requests report none


def test_tokens_are_never_estimated(openai_server: OpenAIServer, repo: Path) -> None:
    openai_server.script(answers(lambda u: scores(0.9, 0.8), usage=None))
    ev = evaluate_docs(repo, repo / ".docmentor-docs", llm=config(openai_server), judge_limit=2)
    assert ev.judge is not None
    assert (ev.judge.prompt_tokens, ev.judge.completion_tokens, ev.judge.unreported) == (0, 0, 2)


def test_no_endpoint_no_judgement_and_the_sample_is_deterministic(repo: Path) -> None:
    ev = evaluate_docs(repo, repo / ".docmentor-docs")
    assert ev.judge is None and ev.to_dict()["judge"] is None
    with pytest.raises(UsageError):
        evaluate_docs(repo, repo / ".docmentor-docs", judge_limit=-1)
    units = read_repository(repo)
    order = traversal(build_graph(units)).order
    everything = units.units()
    picked = judge_sample(order, everything, 6)
    assert picked == judge_sample(order, everything, 6)
    kinds = [type(everything[u]).__name__ for u in picked]
    assert kinds == ["Component", "Module", "Package", "Repository", "Component", "Module"]
    assert judge_sample(order, everything, 0) == []
    assert len(judge_sample(order, everything, 1000)) == len(everything)


def test_read_verdict_is_strict() -> None:
    assert read_verdict("u", "component", scores(0.9, "0.5")).judged  # a numeric string
    assert read_verdict("u", "component", "```json\n" + scores(1, 0) + "\n```").judged
    for bad in ("", "{}", scores(None, 0.5), scores(0.5, float("nan")), scores(-0.1, 0.5), "[0.9, 0.9]"):
        verdict = read_verdict("u", "component", bad)
        assert not verdict.judged and verdict.problem, bad


def test_the_cli_judges_when_an_endpoint_is_configured(
    openai_server: OpenAIServer,
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("DOCMENTOR_LLM_BASE_URL", "DOCMENTOR_LLM_MODEL", "DOCMENTOR_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    cli = Cli(tmp_path / "db", capsys)
    assert cli.json("repo-docs", "evaluate", str(repo))["judge"] is None
    assert "--llm needs a model endpoint" in cli.misused("repo-docs", "evaluate", str(repo), "--llm")
    openai_server.script(answers(lambda u: "no score" if u == "." else scores(0.75, 0.5)))
    monkeypatch.setenv("DOCMENTOR_LLM_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("DOCMENTOR_LLM_MODEL", "judge")
    data = cli.json("repo-docs", "evaluate", str(repo), "--judge-limit", "4")
    judge = data["judge"]
    assert (judge["sample"], judge["judged"], judge["unjudged"]) == (4, 3, 1)
    assert judge["truthfulness"] == 0.75 and judge["prompt_tokens"] == 400
    text = cli.ok("repo-docs", "evaluate", str(repo), "--judge-limit", "4")
    assert "judged by judge: 3 of 4 documents, truthfulness 0.750, helpfulness 0.500" in text
    assert "unjudged: 1\n  .: unusable reply" in text and "parameters: 1.000" in text
    requests = len(openai_server.requests)
    assert cli.json("repo-docs", "evaluate", str(repo), "--no-llm")["judge"] is None
    assert len(openai_server.requests) == requests  # --no-llm asks nothing
