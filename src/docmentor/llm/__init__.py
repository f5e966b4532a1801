"""One client for OpenAI-compatible chat endpoints (OpenAI, Anthropic, Ollama, vLLM, llama.cpp).

Configured from the environment::

    DOCMENTOR_LLM_BASE_URL   e.g. http://127.0.0.1:11434/v1 (Ollama), https://api.openai.com/v1
    DOCMENTOR_LLM_MODEL      the model name the server expects
    DOCMENTOR_LLM_API_KEY    optional; sent as ``Authorization: Bearer …``
    DOCMENTOR_LLM_TIMEOUT    optional; seconds one attempt may take in all (default 60)
    DOCMENTOR_LLM_MAX_ATTEMPTS  optional; attempts per request (default 3)

``LLMClient.chat`` POSTs to ``{base_url}/chat/completions`` through one ``httpx.Client``
and returns the reply text. Rate limits (429, ``Retry-After`` honoured up to a cap),
5xx answers, time-outs and connection errors are retried with exponential backoff; other
4xx answers are not. ``chat_json`` asks for a JSON object (``response_format`` json_object,
dropped for servers that reject it), finds the object even inside ```` ```json ```` fences
or prose, validates it with pydantic, and asks once more with the validation error when
the reply does not fit. Every failure is an ``LLMError``; the API key never appears in
messages or logs.

Limits, because the other end is not trusted: one attempt has an overall deadline
(``timeout``: connecting, sending, waiting and reading together — a server that drips
its answer a byte at a time is cut off at the deadline, not only one that goes silent);
the answer is read as a stream and abandoned past ``max_response_bytes`` (an
``LLMReplyError``, not retried); ``<think>`` reasoning is removed by plain string search
(an unclosed ``<think>`` drops everything after it: the reasoning never ended, so what
follows is not the answer); JSON nested deeper than Python's parser allows is an
unusable reply (``LLMReplyError`` after the corrective retry), never a ``RecursionError``.
Each of these ends one request; callers that ask about one part of a page at a time
(``clarity.llm_detector``) skip that part with a warning and go on.

The package: this module is the client (requests, retries, answers read within the limits);
``config`` its configuration and errors, ``deadline`` an attempt's overall deadline,
``replies`` the JSON instruction and what is made of a reply.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from docmentor.llm.config import LLMConfig, LLMError, LLMReplyError
from docmentor.llm.deadline import Expired, Watchdog
from docmentor.llm.replies import describe, extract_json, schema_instruction, with_instruction

__all__ = ["ChatMessage", "ChatReply", "LLMClient"]

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
ChatMessage = Mapping[str, Any]  # {"role": "system" | "user" | "assistant", "content": "..."}


@dataclass(frozen=True, slots=True)
class ChatReply:
    """A reply's text and the tokens the server says it used (its ``usage``; 0 and
    ``usage_reported`` False when the answer has none: nothing is estimated)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_reported: bool = False


_EXCERPT = 300  # characters of an error body kept in LLMError
_ERROR_BODY_CAP = 64 * 1024  # bytes of an error answer read (enough for its message)
# Parameters some servers refuse (e.g. response_format on older llama.cpp/vLLM builds,
# temperature on reasoning models); dropped and remembered when a 400/422 names them.
_DROPPABLE = ("response_format", "temperature")


class LLMClient:
    """A synchronous client for one OpenAI-compatible chat endpoint.

    Use as a context manager (or call ``close()``) to release the connection pool.
    """

    def __init__(self, config: LLMConfig, *, transport: httpx.BaseTransport | None = None) -> None:
        self.config = config
        headers = {"User-Agent": config.user_agent, "Accept": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._http = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(config.timeout),
            follow_redirects=False,
            transport=transport,
            # a connection per request: the deadline watchdog may have to shut one down, and
            # chat requests are seconds apart and slow, so keeping them alive saves nothing
            limits=httpx.Limits(max_keepalive_connections=0),
        )
        self._dropped: set[str] = set()  # parameters this server refused; not sent again

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------- chat

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: type[BaseModel] | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> str:
        """Send ``messages`` and return the reply's text ("" when the model said nothing).

        With ``json_schema`` the model is told to answer with one JSON object matching
        the model class's JSON Schema, and JSON mode is requested.

        Raises:
            LLMError: the request failed after the retries, or the answer was not a chat completion.
        """
        return self.complete(
            messages, json_schema=json_schema, temperature=temperature, max_tokens=max_tokens
        ).text

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: type[BaseModel] | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatReply:
        """``chat``, returning the reply's text with the tokens the server reported for it.

        Raises:
            LLMError: as ``chat``.
        """
        msgs = [dict(m) for m in messages]
        if json_schema is not None:
            msgs = with_instruction(msgs, schema_instruction(json_schema))
        payload: dict[str, Any] = {"model": self.config.model, "messages": msgs, "temperature": temperature}
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        if json_schema is not None:
            payload["response_format"] = {"type": "json_object"}
        while True:
            for name in self._dropped:
                payload.pop(name, None)
            response = self._send(payload)
            if response.status_code < 300:
                return ChatReply(self._content(response), *_usage(response))
            refused = _refused_param(response, payload)
            if refused is None:
                raise self._status_error(response)
            logger.info("%s refused %r; retrying without it", self.config.endpoint, refused)
            self._dropped.add(refused)

    def chat_json(
        self,
        messages: Sequence[ChatMessage],
        model_cls: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> T:
        """Ask for a JSON object and return it validated as ``model_cls``.

        A reply that holds no JSON object or does not validate is answered once with
        the error and a request to fix it.

        Raises:
            LLMError: the request failed, or the second reply was unusable too.
        """
        msgs = [dict(m) for m in messages]
        problem = ""
        reply = ""
        for attempt in range(2):
            reply = self.chat(msgs, json_schema=model_cls, temperature=temperature, max_tokens=max_tokens)
            try:
                return model_cls.model_validate(extract_json(reply))
            except (ValueError, ValidationError) as exc:
                problem = describe(exc)
            logger.debug("unusable JSON reply (attempt %d): %s", attempt + 1, problem)
            msgs += [
                {"role": "assistant", "content": reply},
                {
                    "role": "user",
                    "content": (
                        f"That reply could not be used: {problem}\n"
                        "Answer again with only one JSON object that matches the schema: "
                        "no prose, no Markdown code fences, no comments."
                    ),
                },
            ]
        raise LLMReplyError(
            f"the model's reply was not the JSON asked for, twice: {problem}",
            body=self._redact(_squeeze(reply)[:_EXCERPT]),
            hint="try a larger or instruction-tuned model",
        )

    # ------------------------------------------------------------------- internals

    def _send(self, payload: dict[str, Any]) -> httpx.Response:
        """POST with retries; returns a 2xx answer or a 4xx answer that retrying cannot fix."""
        cfg = self.config
        problem = ""
        status: int | None = None
        body = ""
        for attempt in range(cfg.max_attempts):
            wait = min(cfg.backoff * (2**attempt), cfg.max_backoff)
            try:
                response = self._attempt(payload)
            except (httpx.TimeoutException, Expired):
                problem, status, body = f"timed out after {cfg.timeout:g} s", None, ""
            except httpx.TransportError as exc:
                problem, status, body = f"connection failed ({type(exc).__name__})", None, ""
            except httpx.HTTPError as exc:
                raise LLMError(f"LLM request to {cfg.endpoint} failed: {type(exc).__name__}") from None
            else:
                code = response.status_code
                if code != 429 and code < 500:
                    return response
                status, body = code, self._excerpt(response)
                problem = f"HTTP {code}" + (f": {body}" if body else "")
                retry_after = _retry_after(response.headers.get("retry-after"))
                if retry_after is not None:
                    wait = min(retry_after, cfg.max_retry_after)
            if attempt + 1 < cfg.max_attempts:
                logger.debug(
                    "%s: %s; retry %d/%d in %.2f s",
                    cfg.endpoint,
                    problem,
                    attempt + 1,
                    cfg.max_attempts - 1,
                    wait,
                )
                time.sleep(wait)
        n = cfg.max_attempts
        hint = None
        if status is None and problem.startswith("timed out"):
            hint = "raise DOCMENTOR_LLM_TIMEOUT or use a smaller model"
        elif status is None:
            hint = "is the server running? check DOCMENTOR_LLM_BASE_URL"
        raise LLMError(
            f"LLM request to {cfg.endpoint} failed after {n} attempt{'s' if n > 1 else ''}: {problem}",
            status=status,
            body=body,
            hint=hint,
        )

    def _attempt(self, payload: dict[str, Any]) -> httpx.Response:
        """One POST, read whole within the deadline and the size cap.

        Returns the answer with its body in memory (decoded; no content encoding left).

        Raises:
            Expired: the deadline passed (while connecting, sending, waiting or reading).
            LLMReplyError: a successful answer is larger than ``max_response_bytes``.
            httpx.HTTPError: the request failed.
        """
        cfg = self.config
        watchdog = Watchdog(cfg.timeout)
        try:
            with self._http.stream(
                "POST", cfg.endpoint, json=payload, extensions={"trace": watchdog.trace}
            ) as response:
                ok = response.status_code < 300
                cap = cfg.max_response_bytes if ok else _ERROR_BODY_CAP
                declared = response.headers.get("content-length", "")
                if ok and declared.isdigit() and int(declared) > cap:
                    raise self._too_large(int(declared))
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():  # decoded, so a compressed bomb counts in full
                    watchdog.check()
                    if size + len(chunk) > cap:
                        if ok:
                            raise self._too_large(None)
                        chunks.append(chunk[: cap - size])  # an error answer: its start is enough
                        break
                    size += len(chunk)
                    chunks.append(chunk)
                watchdog.check()
                headers = [
                    (k, v)
                    for k, v in response.headers.multi_items()
                    if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
                ]
                return httpx.Response(
                    response.status_code, headers=headers, content=b"".join(chunks), request=response.request
                )
        except httpx.TransportError:
            if watchdog.fired:  # the watchdog shut the socket: that is the deadline, not the network
                raise Expired from None
            raise
        finally:
            watchdog.cancel()

    def _too_large(self, declared: int | None) -> LLMReplyError:
        cap = self.config.max_response_bytes
        size = f"{declared:,} bytes" if declared is not None else f"more than {cap:,} bytes"
        return LLMReplyError(
            f"the answer from {self.config.endpoint} is too large ({size}; the limit is {cap:,}); "
            "it was not read",
            hint="ask for less (a smaller part of the page, max_tokens), or check the server",
        )

    def _content(self, response: httpx.Response) -> str:
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice.get("message") or {}
            content = message.get("content")
        except RecursionError:  # one odd answer: the caller may go on with its other requests
            raise LLMReplyError(
                f"the answer from {self.config.endpoint} is JSON nested too deeply to read",
                status=response.status_code,
                body=self._excerpt(response),
            ) from None
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            excerpt = self._excerpt(response)
            raise LLMError(
                f"{self.config.endpoint} did not answer with a chat completion",
                status=response.status_code,
                body=excerpt,
                hint="DOCMENTOR_LLM_BASE_URL should point at an OpenAI-compatible API (usually ending in /v1)",
            ) from None
        if choice.get("finish_reason") == "length":
            logger.warning("the model's reply was cut off at the token limit")
        if isinstance(content, list):  # content parts
            content = "".join(
                p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
        return content if isinstance(content, str) else ""

    def _status_error(self, response: httpx.Response) -> LLMError:
        code = response.status_code
        body = self._excerpt(response)
        hint = None
        if code in (401, 403):
            hint = "check DOCMENTOR_LLM_API_KEY"
        elif code == 404:
            hint = "check DOCMENTOR_LLM_BASE_URL (usually ending in /v1) and DOCMENTOR_LLM_MODEL"
        return LLMError(
            f"LLM request to {self.config.endpoint} failed: HTTP {code}" + (f": {body}" if body else ""),
            status=code,
            body=body,
            hint=hint,
        )

    def _excerpt(self, response: httpx.Response) -> str:
        """A short, single-line, key-free excerpt of an answer (the error message when JSON)."""
        try:
            text = response.text
        except (UnicodeDecodeError, httpx.HTTPError):
            return ""
        try:
            data = json.loads(text)
            err = data.get("error") if isinstance(data, dict) else None
            msg = err.get("message") if isinstance(err, dict) else err
            if isinstance(msg, str) and msg.strip():
                text = msg
        except (ValueError, RecursionError):
            pass
        text = _squeeze(self._redact(text))
        return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"

    def _redact(self, text: str) -> str:
        key = self.config.api_key
        return text.replace(key, "***") if key else text


# ---------------------------------------------------------------------- helpers


def _usage(response: httpx.Response) -> tuple[int, int, bool]:
    """(prompt tokens, completion tokens, reported) from a chat completion's ``usage``."""
    try:
        usage = response.json().get("usage")
    except (ValueError, RecursionError, AttributeError):
        return 0, 0, False
    if not isinstance(usage, dict):
        return 0, 0, False
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    ok = [isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (prompt, completion)]
    if not any(ok):
        return 0, 0, False
    return (prompt if ok[0] else 0), (completion if ok[1] else 0), True  # type: ignore[return-value]


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError):
            return None
    return max(seconds, 0.0) if math.isfinite(seconds) else None


def _refused_param(response: httpx.Response, payload: Mapping[str, Any]) -> str | None:
    """The optional parameter a 400/422 answer complains about, if any and if it was sent."""
    if response.status_code not in (400, 422):
        return None
    try:
        text = response.text.lower()
    except (UnicodeDecodeError, httpx.HTTPError):
        return None
    for name in _DROPPABLE:
        if name in payload and (name in text or name.replace("_", " ") in text):
            return name
    if "response_format" in payload and ("json_object" in text or "json mode" in text):
        return "response_format"
    return None
