"""A small, real OpenAI-compatible chat server for tests (built on ``httpserver.HttpServer``).

It serves ``POST /v1/chat/completions`` on 127.0.0.1 with scripted replies, in order
(the last one repeats)::

    server.script(
        completion('{"ok": true}'),                  # a normal chat completion
        completion(fenced({"ok": True})),            # JSON inside ```json fences
        rate_limited(retry_after="1"),               # 429 with Retry-After
        error(500, "boom"),                          # any status with an OpenAI error body
        reject("response_format"),                   # 400 naming a parameter
        completion("late", delay=2.0),               # slow: nothing sent for 2 s
        lambda req: completion(str(len(req.messages)))(req),   # computed from the request
    )

``server.base_url`` ends in ``/v1`` like a real server's. ``server.requests`` lists the
``ChatRequest``s received (headers with lower-case names, the parsed JSON body), so tests
can assert the ``Authorization`` header, the model, the temperature and the messages.
Use the ``openai_server`` fixture: ``from openai_server import openai_server  # noqa: F401``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from httpserver import HttpServer, Reply, Request

__all__ = [
    "ChatRequest",
    "OpenAIServer",
    "completion",
    "error",
    "fenced",
    "openai_server",
    "rate_limited",
    "reject",
]

PATH = "/v1/chat/completions"
Scripted = Callable[["ChatRequest"], Reply]


@dataclass(frozen=True)
class ChatRequest:
    """One chat request as the server received it."""

    raw: Request

    @property
    def headers(self) -> dict[str, str]:
        return self.raw.headers

    @property
    def body(self) -> dict[str, Any]:
        return json.loads(self.raw.body)

    @property
    def model(self) -> str:
        return self.body["model"]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body["messages"]

    @property
    def prompt(self) -> str:
        """All message contents joined, for substring asserts."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


def completion(content: str | None, *, delay: float = 0.0, finish_reason: str = "stop") -> Scripted:
    """A 200 chat completion whose message content is ``content`` (echoes the model name)."""

    def reply(req: ChatRequest) -> Reply:
        body = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": req.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return Reply(body=json.dumps(body), content_type="application/json", delay=delay)

    return reply


def fenced(obj: Any, *, prose: bool = True) -> str:
    """``obj`` as JSON in a ```json fence, with chatter around it when ``prose``."""
    block = "```json\n" + json.dumps(obj, indent=2) + "\n```"
    return (
        f"Sure! Here is the JSON you asked for:\n\n{block}\n\nLet me know if you need more."
        if prose
        else block
    )


def error(status: int, message: str = "error", *, headers: dict[str, str] | None = None) -> Scripted:
    """An OpenAI-style error answer."""
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error", "code": None}})

    def reply(req: ChatRequest) -> Reply:
        return Reply(status=status, body=body, content_type="application/json", headers=dict(headers or {}))

    return reply


def rate_limited(retry_after: str | None = "1") -> Scripted:
    """A 429 answer, with ``Retry-After`` when given."""
    return error(429, "Rate limit reached", headers={"Retry-After": retry_after} if retry_after else None)


def reject(param: str) -> Scripted:
    """A 400 answer refusing ``param`` when the request carries it; otherwise a plain 400."""
    return error(400, f"Invalid parameter: '{param}' is not supported with this model.")


class OpenAIServer:
    """A scriptable OpenAI-compatible chat endpoint on 127.0.0.1."""

    def __init__(self) -> None:
        self.http = HttpServer()
        self.base_url = self.http.base_url + "/v1"
        self.script(completion("ok"))

    def script(self, *replies: Scripted) -> None:
        """Serve ``replies`` in order to successive requests; the last one repeats."""
        self.http.add(PATH, *(self._wrap(r) for r in replies))

    @staticmethod
    def _wrap(scripted: Scripted) -> Callable[[Request], Reply]:
        return lambda raw: scripted(ChatRequest(raw))

    @property
    def requests(self) -> list[ChatRequest]:
        return [ChatRequest(r) for r in self.http.requests_for(PATH)]

    @property
    def errors(self) -> list[BaseException]:
        return self.http.errors

    def start(self) -> OpenAIServer:
        self.http.start()
        return self

    def stop(self) -> None:
        self.http.stop()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started ``OpenAIServer``, stopped after the test."""
    with OpenAIServer() as server:
        yield server
