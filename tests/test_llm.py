"""The LLM client and the LLM issue detector, against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import re
import socket
import time
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest
from pydantic import BaseModel

from docmentor.clarity.llm_detector import SYSTEM_PROMPT, _parts, detect_issues
from docmentor.clarity.models import Issue
from docmentor.errors import UsageError
from docmentor.llm import LLMClient, _retry_after
from docmentor.llm.config import LLMConfig, LLMError, LLMReplyError
from docmentor.llm.replies import extract_json
from openai_server import (
    ChatRequest,
    OpenAIServer,
    completion,
    error,
    fenced,
    rate_limited,
    reject,
)

KEY = "sk-test-SECRET-0123456789"


class Answer(BaseModel):
    answer: str
    confidence: float


def make_client(server: OpenAIServer, **overrides: Any) -> LLMClient:
    settings: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "test-model",
        "api_key": KEY,
        "timeout": 2.0,
        "max_attempts": 3,
        "backoff": 0.01,
        "max_backoff": 0.05,
        "max_retry_after": 0.3,
    }
    settings.update(overrides)
    return LLMClient(LLMConfig(**settings))


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as started:
        yield started


GOOD: dict[str, Any] = {"answer": "42", "confidence": 0.9}
ASK = [{"role": "user", "content": "What is the answer?"}]


# ------------------------------------------------------------------------ client


def test_chat_sends_model_temperature_messages_and_bearer(server: OpenAIServer) -> None:
    server.script(completion("Hello there"))
    with make_client(server) as client:
        assert (
            client.chat([{"role": "user", "content": "Hi"}], temperature=0.2, max_tokens=50) == "Hello there"
        )
    (req,) = server.requests
    assert req.raw.method == "POST"
    assert req.raw.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.headers["content-type"] == "application/json"
    assert req.model == "test-model"
    assert req.body["temperature"] == 0.2
    assert req.body["max_tokens"] == 50
    assert req.messages == [{"role": "user", "content": "Hi"}]
    assert "response_format" not in req.body


def test_no_authorization_header_without_key(server: OpenAIServer) -> None:
    with make_client(server, api_key=None) as client:
        assert client.chat(ASK) == "ok"
    assert "authorization" not in server.requests[0].headers


def test_chat_json_valid(server: OpenAIServer) -> None:
    server.script(completion(json.dumps(GOOD)))
    with make_client(server) as client:
        result = client.chat_json([{"role": "system", "content": "Be brief."}, *ASK], Answer)
    assert result == Answer(answer="42", confidence=0.9)
    (req,) = server.requests
    assert req.body["response_format"] == {"type": "json_object"}
    assert req.body["temperature"] == 0.0
    system = req.messages[0]
    assert system["role"] == "system"
    assert system["content"].startswith("Be brief.")  # the schema joins the leading system message
    assert '"confidence"' in system["content"] and "JSON Schema" in system["content"]
    assert req.messages[1:] == ASK


@pytest.mark.parametrize("prose", [True, False])
def test_chat_json_fenced(server: OpenAIServer, prose: bool) -> None:
    server.script(completion(fenced(GOOD, prose=prose)))
    with make_client(server) as client:
        assert client.chat_json(ASK, Answer).answer == "42"
    assert len(server.requests) == 1
    assert server.requests[0].messages[0]["role"] == "system"  # schema instruction added


def test_malformed_json_gets_a_corrective_retry(server: OpenAIServer) -> None:
    server.script(completion('{"answer": "42", "confidence": '), completion(json.dumps(GOOD)))
    with make_client(server) as client:
        assert client.chat_json(ASK, Answer) == Answer(**GOOD)
    first, second = server.requests
    assert second.messages[: len(first.messages)] == first.messages
    assistant, correction = second.messages[len(first.messages) :]
    assert assistant == {"role": "assistant", "content": '{"answer": "42", "confidence": '}
    assert correction["role"] == "user"
    assert "no valid JSON object" in correction["content"]


def test_invalid_shape_correction_names_the_field(server: OpenAIServer) -> None:
    server.script(completion('{"answer": "42"}'), completion(json.dumps(GOOD)))
    with make_client(server) as client:
        assert client.chat_json(ASK, Answer).confidence == 0.9
    assert "confidence: Field required" in server.requests[1].messages[-1]["content"]


def test_malformed_json_twice_raises(server: OpenAIServer) -> None:
    server.script(completion("I think the answer is 42."))
    with make_client(server) as client, pytest.raises(LLMError) as info:
        client.chat_json(ASK, Answer)
    assert len(server.requests) == 2
    err = info.value
    assert "not the JSON asked for, twice" in str(err) and isinstance(err, LLMReplyError)
    assert err.status is None
    assert "the answer is 42" in err.body


def test_429_honours_retry_after_up_to_the_cap(server: OpenAIServer) -> None:
    server.script(rate_limited(retry_after="5"), completion("fine"))
    with make_client(server, max_retry_after=0.4) as client:
        start = time.monotonic()
        assert client.chat(ASK) == "fine"
        elapsed = time.monotonic() - start
    assert len(server.requests) == 2
    assert 0.35 <= elapsed < 2.0  # waited the capped Retry-After (0.4 s), not 5 s nor the 0.01 s backoff


def test_429_without_retry_after_uses_backoff(server: OpenAIServer) -> None:
    server.script(rate_limited(retry_after=None), rate_limited(retry_after=None), completion("fine"))
    with make_client(server) as client:
        assert client.chat(ASK) == "fine"
    assert len(server.requests) == 3


def test_retry_after_parsing() -> None:
    assert _retry_after("3") == 3.0
    assert _retry_after("0.5") == 0.5
    assert _retry_after(None) is None
    assert _retry_after("soon") is None
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: no wait


def test_500_until_max_attempts_raises(server: OpenAIServer) -> None:
    server.script(error(500, "The server had an error processing your request."))
    with make_client(server, max_attempts=4) as client, pytest.raises(LLMError) as info:
        client.chat(ASK)
    assert len(server.requests) == 4
    err = info.value
    assert err.status == 500
    assert "after 4 attempts" in str(err)
    assert err.body == "The server had an error processing your request."


def test_500_then_success(server: OpenAIServer) -> None:
    server.script(error(502, "bad gateway"), error(503, "busy"), completion("ok now"))
    with make_client(server) as client:
        assert client.chat(ASK) == "ok now"
    assert len(server.requests) == 3


def test_other_4xx_are_not_retried_and_never_show_the_key(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server.script(error(401, f"Incorrect API key provided: {KEY}."))
    with make_client(server) as client, pytest.raises(LLMError) as info:
        client.chat(ASK)
    assert len(server.requests) == 1
    err = info.value
    assert err.status == 401
    assert "HTTP 401" in str(err) and "DOCMENTOR_LLM_API_KEY" in str(err)
    assert "Incorrect API key provided: ***" in err.body
    assert KEY not in str(err) and KEY not in err.body
    assert KEY not in caplog.text


def test_api_key_never_logged_during_retries(server: OpenAIServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server.script(error(500, f"upstream rejected {KEY}"), completion("not json"))
    with make_client(server) as client, pytest.raises(LLMError) as info:
        client.chat_json(ASK, Answer)
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in caplog.text
    assert KEY not in str(info.value)
    assert KEY not in repr(client.config)
    assert "retry 1/2" in caplog.text  # the retries are logged, without the key


def test_response_format_rejected_falls_back_and_is_remembered(server: OpenAIServer) -> None:
    server.script(reject("response_format"), completion(json.dumps(GOOD)))
    with make_client(server) as client:
        assert client.chat_json(ASK, Answer).answer == "42"
        assert client.chat_json(ASK, Answer).answer == "42"
    first, second, third = server.requests
    assert first.body["response_format"] == {"type": "json_object"}
    assert "response_format" not in second.body
    assert "response_format" not in third.body  # not asked again
    assert "JSON Schema" in second.messages[0]["content"]  # still told to answer in JSON


def test_400_about_something_else_is_raised(server: OpenAIServer) -> None:
    server.script(error(400, "This model's maximum context length is 8192 tokens."))
    with make_client(server) as client, pytest.raises(LLMError) as info:
        client.chat_json(ASK, Answer)
    assert len(server.requests) == 1
    assert info.value.status == 400
    assert "maximum context length" in str(info.value)


def test_timeout_retried_then_success(server: OpenAIServer) -> None:
    server.script(completion("late", delay=1.5), completion("on time"))
    with make_client(server, timeout=0.3) as client:
        assert client.chat(ASK) == "on time"
    assert len(server.requests) == 2


def test_timeout_every_time_raises(server: OpenAIServer) -> None:
    server.script(completion("late", delay=3.0))
    with make_client(server, timeout=0.25) as client, pytest.raises(LLMError) as info:
        start = time.monotonic()
        client.chat(ASK)
    assert time.monotonic() - start < 2.5
    assert len(server.requests) == 3
    assert info.value.status is None
    assert "timed out after 0.25 s" in str(info.value)
    assert "DOCMENTOR_LLM_TIMEOUT" in str(info.value)


def test_connection_refused_raises_after_retries() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", backoff=0.01, max_attempts=2)
    with LLMClient(config) as client, pytest.raises(LLMError) as info:
        client.chat(ASK)
    assert "failed after 2 attempts: connection failed" in str(info.value)
    assert "is the server running" in str(info.value)


def test_not_a_chat_completion(server: OpenAIServer) -> None:
    server.http.add("/v1/chat/completions", "<html>hello</html>", content_type="text/html")
    with make_client(server) as client, pytest.raises(LLMError) as info:
        client.chat(ASK)
    assert "did not answer with a chat completion" in str(info.value)
    assert info.value.body == "<html>hello</html>"


def test_null_content_is_empty_text(server: OpenAIServer) -> None:
    server.script(completion(None, finish_reason="length"))
    with make_client(server) as client:
        assert client.chat(ASK) == ""


# ------------------------------------------------------------------------ config


def test_from_env_unset_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BASE_URL", "MODEL", "API_KEY", "TIMEOUT", "MAX_ATTEMPTS"):
        monkeypatch.delenv(f"DOCMENTOR_LLM_{name}", raising=False)
    assert LLMConfig.from_env() is None
    assert LLMConfig.from_env({}) is None


def test_from_env_reads_everything() -> None:
    config = LLMConfig.from_env(
        {
            "DOCMENTOR_LLM_BASE_URL": "http://127.0.0.1:11434/v1/chat/completions/",
            "DOCMENTOR_LLM_MODEL": "llama3.2",
            "DOCMENTOR_LLM_API_KEY": KEY,
            "DOCMENTOR_LLM_TIMEOUT": "12.5",
        }
    )
    assert config is not None
    assert config.base_url == "http://127.0.0.1:11434/v1"
    assert config.endpoint == "http://127.0.0.1:11434/v1/chat/completions"
    assert (config.model, config.api_key, config.timeout, config.max_attempts) == ("llama3.2", KEY, 12.5, 3)
    assert KEY not in repr(config)
    default = LLMConfig.from_env({"DOCMENTOR_LLM_BASE_URL": "http://h/v1", "DOCMENTOR_LLM_MODEL": "m"})
    assert default is not None and default.timeout == 60.0 and default.api_key is None


@pytest.mark.parametrize(
    "env",
    [
        {"DOCMENTOR_LLM_BASE_URL": "http://h/v1"},
        {"DOCMENTOR_LLM_MODEL": "m"},
        {"DOCMENTOR_LLM_BASE_URL": "h:11434/v1", "DOCMENTOR_LLM_MODEL": "m"},
        {
            "DOCMENTOR_LLM_BASE_URL": "http://h/v1",
            "DOCMENTOR_LLM_MODEL": "m",
            "DOCMENTOR_LLM_TIMEOUT": "soon",
        },
        {"DOCMENTOR_LLM_BASE_URL": "http://h/v1", "DOCMENTOR_LLM_MODEL": "m", "DOCMENTOR_LLM_TIMEOUT": "-1"},
    ],
)
def test_from_env_half_or_bad_config_is_a_usage_error(env: dict[str, str]) -> None:
    with pytest.raises(UsageError):
        LLMConfig.from_env(env)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Here you go: {"a": 1} -- hope it helps {"b": 2}',
        '<think>maybe {"wrong": true</think>\n{"a": 1}',
        'Sure!\n```JSON\n{"a": 1}\n```\nDone.',
    ],
)
def test_extract_json(text: str) -> None:
    assert extract_json(text) == {"a": 1}


@pytest.mark.parametrize("text", ["", "no json here", "[1, 2]", '{"a": '])
def test_extract_json_without_object(text: str) -> None:
    with pytest.raises(ValueError):
        extract_json(text)


# ---------------------------------------------------------------------- detector

DOC = """\
# Getting started

Install the package and configure it.

## Configure

Edit the file and set the options you need.

```python
x = load(
```

Then run the tool. It will do the thing.

## Run

Run it with the config from above.
"""


def issue(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "unclear_instruction",
        "severity": "warning",
        "dimensions": ["instruction_clarity"],
        "line": 3,
        "section": "whatever the model says",
        "message": "It is not said how to install the package.",
        "suggested_fix": "Add `pip install example`.",
        "context_quote": "",
    }
    base.update(fields)
    return base


def test_detect_issues_end_to_end(server: OpenAIServer) -> None:
    existing = [
        Issue(
            type="syntax_error",
            severity="critical",
            dimensions=["instruction_clarity"],
            line=9,
            section="Getting started > Configure",
            message="Python code block does not parse: '(' was never closed",
            check="code_syntax",
        )
    ]
    reply = {
        "issues": [
            issue(context_quote="Install the package"),  # kept
            issue(severity="major", line=7, message="Options are not listed."),  # bad severity
            issue(dimensions=["readability"], line=7, message="Too terse."),  # no valid dimension
            issue(line=999, message="Out of range."),  # line outside the document
            issue(
                type="syntax_error", severity="critical", line=10, message="The code is broken."
            ),  # dup by type
            issue(
                type="broken_code", line=9, message="Python code block does not parse, ( never closed"
            ),  # similar
            issue(
                type="broken_link", line=17, message="Link to config is broken."
            ),  # links are checked elsewhere
            issue(
                type="Ambiguous Reference",
                severity="CRITICAL",
                dimensions=["logical_flow", "bogus", "Logical Flow"],
                line="line 4",  # wrong line: the quote is on line 17
                message="'the config from above' does not say which file.",
                context_quote="17| Run it with the config from above.",
                estimated_effort="low",
            ),
            issue(
                type="missing_outcome",
                severity="info",
                dimensions="completeness",
                line=0,
                message="No summary.",
            ),
            "not an issue",
        ]
    }
    server.script(completion(fenced(reply)))
    with make_client(server) as client:
        found = detect_issues(client, path="docs/getting-started.md", text=DOC, existing=existing)

    assert [(i.line, i.type, i.severity, i.dimensions) for i in found] == [
        (0, "missing_outcome", "info", ["completeness"]),
        (3, "unclear_instruction", "warning", ["instruction_clarity"]),
        (17, "ambiguous_reference", "critical", ["logical_flow"]),
    ]
    assert all(i.check == "llm" for i in found)
    page, install, ambiguous = found
    assert page.section == ""
    assert install.section == "Getting started"
    assert install.suggested_fix == "Add `pip install example`."
    assert install.context_quote == "Install the package"
    assert ambiguous.section == "Getting started > Run"
    assert ambiguous.context_quote == "Run it with the config from above."
    assert ambiguous.effort == "low"
    assert existing[0].check == "code_syntax" and len(existing) == 1  # not modified

    (req,) = server.requests
    assert req.model == "test-model"
    assert req.body["temperature"] == 0.0
    system, user = req.messages
    assert system["content"].startswith(SYSTEM_PROMPT)
    assert "You do NOT assign scores" in system["content"]
    assert "Document: docs/getting-started.md" in user["content"]
    assert " 1| # Getting started\n" in user["content"]
    assert "17| Run it with the config from above." in user["content"]
    assert "- line 9 [syntax_error, critical] Python code block does not parse" in user["content"]
    assert server.errors == []


def test_detect_issues_accepts_the_designs_keys(server: OpenAIServer) -> None:
    reply = {"clarity_issues": [issue()], "structural_issues": [issue(line=15, type="thin_section")]}
    server.script(completion(json.dumps(reply)))
    with make_client(server) as client:
        found = detect_issues(client, path="a.md", text=DOC, existing=[])
    assert [(i.line, i.type) for i in found] == [(3, "unclear_instruction"), (15, "thin_section")]


def test_detect_issues_unusable_reply_is_corrected_once_then_fails(server: OpenAIServer) -> None:
    server.script(completion('{"problems": []}'), completion('{"issues": []}'))
    with make_client(server) as client:
        assert detect_issues(client, path="a.md", text=DOC, existing=[]) == []
    assert 'expected an object with an "issues" list' in server.requests[1].messages[-1]["content"]

    # unusable twice: that part is left to the rules, with a warning (no exception)
    server.script(completion('{"issues": [{"description": "x"}]}'))
    with make_client(server) as client:
        assert detect_issues(client, path="a.md", text=DOC, existing=[]) == []


def test_detect_issues_empty_document_sends_nothing(server: OpenAIServer) -> None:
    with make_client(server) as client:
        assert detect_issues(client, path="a.md", text="  \n\n", existing=[]) == []
    assert server.requests == []


_PART = re.compile(r"This is part (\d+) of (\d+): lines (\d+)-(\d+) of (\d+)\.")


def test_detect_issues_chunks_a_long_document_by_sections(server: OpenAIServer) -> None:
    sections = []
    for n in range(1, 9):
        body = "\n".join(f"Step {n}.{k}: do something sensible with the widget." for k in range(1, 9))
        sections.append(f"## Section {n}\n\n{body}\n")
    text = "# Long guide\n\nIntro.\n\n" + "\n".join(sections)
    lines = text.split("\n")

    def answer(req: ChatRequest) -> Any:
        match = _PART.search(req.prompt)
        assert match is not None
        lo, hi = int(match.group(3)), int(match.group(4))
        first = next(line for line in req.prompt.split("\n") if re.match(r"\s*\d+\| ", line))
        assert int(first.split("|")[0]) == lo  # the part starts at its first numbered line
        reply = {
            "issues": [
                issue(line=lo, message=f"Part starting at {lo} is unclear.", context_quote=""),
                issue(line=hi + 5, message="Cites a line outside the part.", context_quote=""),
            ]
        }
        return completion(json.dumps(reply))(req)

    server.script(answer)
    with make_client(server) as client:
        found = detect_issues(client, path="guide.md", text=text, existing=[], chunk_chars=1200)

    requests = server.requests
    assert len(requests) >= 3
    ranges = []
    for req in requests:
        match = _PART.search(req.prompt)
        assert match is not None
        assert int(match.group(2)) == len(requests) and int(match.group(5)) == len(lines)
        ranges.append((int(match.group(3)), int(match.group(4))))
        numbered = [line for line in req.prompt.split("\n") if re.match(r"\s*\d+\| ", line)]
        assert sum(len(line) + 1 for line in numbered) <= 1200
    assert ranges[0][0] == 1 and ranges[-1][1] == len(lines)
    assert all(b + 1 == c for (_, b), (c, _) in pairwise(ranges))  # contiguous
    heading_lines = {i for i, line in enumerate(lines, start=1) if line.startswith("## ")}
    assert all(lo in heading_lines for lo, _ in ranges[1:])  # cut at section starts
    # one issue per part; the ones citing lines outside their part were dropped
    assert [i.line for i in found] == [lo for lo, _ in ranges]
    assert found[1].section == f"Long guide > {lines[ranges[1][0] - 1][3:]}"


def test_parts_cut_an_oversized_section_at_lines() -> None:
    numbered = [f"{n:>3}| " + "x" * 40 for n in range(1, 101)]  # 46 characters a line with the newline
    parts = _parts(numbered, [1, 91], budget=500)
    assert parts == [*((n, n + 9) for n in range(1, 90, 10)), (91, 100)]  # the short last section stays whole
    assert all(sum(len(line) + 1 for line in numbered[lo - 1 : hi]) <= 500 for lo, hi in parts)


def test_a_part_the_model_answers_badly_keeps_the_issues_of_the_others(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    sections = "\n".join(
        f"## Section {n}\n\n" + "Step: do something with the widget.\n" * 30 for n in range(1, 5)
    )
    text = "# Guide\n\n" + sections
    good = {"issues": [{"type": "unclear_instruction", "severity": "warning", "line": 5, "dimensions": ["completeness"],
                        "message": "Which widget?", "context_quote": "Step: do something with the widget."}]}  # fmt: skip
    server.script(
        completion(json.dumps(good)),
        completion("no json"),
        completion("still none"),
        completion('{"issues": []}'),
    )
    with make_client(server) as client, caplog.at_level("WARNING"):
        found = detect_issues(client, path="g.md", text=text, existing=[], chunk_chars=1500)
    assert [i.line for i in found] == [5]
    assert any("checked by the rules alone" in r.getMessage() for r in caplog.records)
