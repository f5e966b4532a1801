"""The chat endpoint's configuration (``DOCMENTOR_LLM_*``: base URL, model, key, timeout,
attempts, the model's context window) and the errors of a chat request."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from docmentor.errors import DocmentorError, UsageError

MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # a chat completion is kilobytes; 8 MiB is ~2M tokens of text
DEFAULT_CONTEXT_WINDOW = 32_768


class LLMError(DocmentorError):
    """A chat request failed, or the model's reply was unusable.

    ``status`` is the last HTTP status (``None`` for time-outs, connection errors and
    unusable replies); ``body`` a short excerpt of the server's answer or the reply.
    """

    def __init__(
        self, message: str, *, status: int | None = None, body: str = "", hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.body = body


class LLMReplyError(LLMError):
    """The service answered, but not with what was asked (no usable JSON after a correction)."""


@dataclass(frozen=True)
class LLMConfig:
    """Where the chat endpoint is and how patiently to talk to it."""

    base_url: str  # ends in /v1 for most servers; a trailing /chat/completions is accepted
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0  # seconds one attempt may take in all (connect, write, wait, every read)
    max_attempts: int = 3  # attempts per request, the first included
    backoff: float = 1.0  # seconds before the first retry, doubled per retry ...
    max_backoff: float = 20.0  # ... up to this
    max_retry_after: float = 30.0  # a server's Retry-After is honoured up to this many seconds
    user_agent: str = "docmentor"
    max_response_bytes: int = MAX_RESPONSE_BYTES  # a longer answer is abandoned unread
    # the model's context window in tokens, prompt and reply: what a caller fits its requests
    # to (the documentation agent does); a conservative 32k when DOCMENTOR_LLM_CONTEXT is unset
    context_window: int = DEFAULT_CONTEXT_WINDOW

    def __post_init__(self) -> None:
        url = self.base_url.strip().rstrip("/")
        url = url.removesuffix("/chat/completions")
        if not url.startswith(("http://", "https://")):
            raise UsageError(
                f"invalid LLM base URL {self.base_url!r}",
                hint="set DOCMENTOR_LLM_BASE_URL to an http(s) URL such as http://127.0.0.1:11434/v1",
            )
        object.__setattr__(self, "base_url", url)
        if not self.model.strip():
            raise UsageError("empty LLM model name", hint="set DOCMENTOR_LLM_MODEL")
        if not (self.timeout > 0 and math.isfinite(self.timeout)):
            raise UsageError(f"invalid LLM timeout {self.timeout!r}", hint="use a positive number of seconds")
        if self.max_attempts < 1:
            raise UsageError(f"invalid LLM max_attempts {self.max_attempts!r}", hint="use 1 or more")
        if self.context_window < 1:
            raise UsageError(
                f"invalid LLM context window {self.context_window!r}",
                hint="set DOCMENTOR_LLM_CONTEXT to the model's context length in tokens",
            )
        if self.max_response_bytes < 1:
            raise UsageError(
                f"invalid LLM max_response_bytes {self.max_response_bytes!r}", hint="use 1 or more"
            )

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMConfig | None:
        """The configuration in ``DOCMENTOR_LLM_*`` variables, or ``None`` when none is set.

        Raises:
            UsageError: only one of the base URL and the model is set, or a number is malformed.
        """
        env = os.environ if env is None else env
        base_url = env.get("DOCMENTOR_LLM_BASE_URL", "").strip()
        model = env.get("DOCMENTOR_LLM_MODEL", "").strip()
        if not base_url and not model:
            return None
        if not base_url or not model:
            missing = "DOCMENTOR_LLM_MODEL" if base_url else "DOCMENTOR_LLM_BASE_URL"
            raise UsageError(
                f"{missing} is not set", hint="set both DOCMENTOR_LLM_BASE_URL and DOCMENTOR_LLM_MODEL"
            )
        return cls(
            base_url=base_url,
            model=model,
            api_key=env.get("DOCMENTOR_LLM_API_KEY", "").strip() or None,
            timeout=_env_number(env, "DOCMENTOR_LLM_TIMEOUT", 60.0),
            max_attempts=int(_env_number(env, "DOCMENTOR_LLM_MAX_ATTEMPTS", 3)),
            context_window=int(_env_number(env, "DOCMENTOR_LLM_CONTEXT", DEFAULT_CONTEXT_WINDOW)),
        )


def _env_number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise UsageError(f"invalid {name}={raw!r}", hint="use a positive number")
    return value
