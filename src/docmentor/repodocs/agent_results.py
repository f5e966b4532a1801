"""The documentation agent's settings and results: ``AgentConfig`` (every limit of the loop,
one typed place), ``UnitOutcome`` and ``RunReport`` (what a unit's loop and a run did), and the
cross-document check's answer (``Judgement``) as the model must give it."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel

from docmentor.assemble.tokens import DEFAULT_ENCODING, check_encoding
from docmentor.errors import UsageError

__all__ = ["AgentConfig", "Conflict", "Judgement", "RunReport", "UnitOutcome"]


@dataclass(frozen=True)
class AgentConfig:
    """Every limit of the loop, with the paper's values where it gives them (10 steps, 2
    revisions, threshold 0.9). Budgets are tokens, counted exactly offline in ``encoding``
    (``budget.py``): every request's counted prompt plus ``reply_tokens`` fits the context
    window; the page, READ and facts sizes shrink to fit a small window."""

    max_steps: int = 10  # model calls per unit, malformed ones included
    max_revisions: int = 2  # failed VERIFYs after the first that a unit may have
    max_tokens: int = 60_000  # prompt + completion tokens per unit, as the server reports them
    threshold: float = 0.9  # the self-evaluation mean a document needs
    reply_tokens: int | None = 2_048  # max_tokens of one reply (None: the server's default)
    # the model's context window in tokens (None: the client's, LLMConfig.context_window, which
    # DOCMENTOR_LLM_CONTEXT sets; 32k by default); older messages are left out beyond it
    context_tokens: int | None = None
    source_tokens: int = 3_000  # a page of code: the unit's own in its task, any unit's in a READ
    read_tokens: int = 4_000  # one READ's answer (a page of code with its header too)
    workers: int = 1  # units of one level documented at the same time
    retry_failed: bool = True  # a resumed run tries its failed units again
    stop_after_llm_errors: int = 3  # units in a row failed on the endpoint stop the run
    # units in a row failed for any reason (answers never usable, claims never verified) stop
    # the run too: a model that cannot do the work would spend every unit's steps in vain
    stop_after_failures: int = 10
    search_limit: int = 3  # sections a READ search returns
    facts_tokens: int = 1_000  # the deterministic document given with the task (0: none)
    encoding: str = DEFAULT_ENCODING  # the tokenizer budgets are counted in (assemble.tokens.ENCODINGS)
    cross_check: bool = True  # VERIFY asks the model whether the draft contradicts its parts' documents
    # your provider's prices per million tokens, to report a run's cost from its counted tokens
    # (None: no cost is reported; nothing is ever estimated without counted tokens)
    prompt_price: float | None = None
    completion_price: float | None = None

    def __post_init__(self) -> None:
        check_encoding(self.encoding)
        if self.context_tokens is not None and self.context_tokens < 1:
            raise UsageError(f"AgentConfig.context_tokens must be 1 or more, not {self.context_tokens!r}")
        for name in ("max_steps", "max_tokens", "source_tokens", "read_tokens"):
            if getattr(self, name) < 1:
                raise UsageError(f"AgentConfig.{name} must be 1 or more, not {getattr(self, name)!r}")
        for name in ("prompt_price", "completion_price"):
            price = getattr(self, name)
            if price is not None and not (math.isfinite(price) and price >= 0):
                raise UsageError(f"AgentConfig.{name} must be a price ≥ 0 per million tokens, not {price!r}")
        if (self.prompt_price is None) != (self.completion_price is None):
            raise UsageError("give AgentConfig both prompt_price and completion_price, or neither")
        if self.facts_tokens < 0:
            raise UsageError(f"AgentConfig.facts_tokens must be 0 or more, not {self.facts_tokens!r}")
        for name in ("workers", "stop_after_llm_errors", "search_limit"):
            if getattr(self, name) < 1:
                raise UsageError(f"AgentConfig.{name} must be 1 or more, not {getattr(self, name)!r}")
        if self.max_revisions < 0:
            raise UsageError(f"AgentConfig.max_revisions must be 0 or more, not {self.max_revisions!r}")
        if not (math.isfinite(self.threshold) and 0.0 < self.threshold <= 1.0):
            raise UsageError(f"AgentConfig.threshold must be in (0, 1], not {self.threshold!r}")
        if self.reply_tokens is not None and self.reply_tokens < 1:
            raise UsageError(f"AgentConfig.reply_tokens must be 1 or more, not {self.reply_tokens!r}")


@dataclass(frozen=True)
class UnitOutcome:
    """What one unit's loop did: ``status`` is ``committed`` or ``failed`` (with ``reason``)."""

    unit_id: str
    status: str
    reason: str | None
    steps: int  # the loop's model calls (its actions)
    model_calls: int  # all its model calls: the steps and the cross-document checks
    invalid_actions: int
    reads: int
    repeated_reads: int
    verifications: int
    revisions: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    model_seconds: float = 0.0  # of ``seconds``, waiting for the model; the rest is the loop's overhead
    llm_error: bool = False
    largest_request: int = 0  # the most prompt tokens counted in one of its requests (budget.py)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RunReport:
    """One call of ``run_agent``: the run, the units it worked on (in the order
    they ended), those already committed before it (skipped) and the tokens it used."""

    run_id: int
    total_units: int
    skipped: tuple[str, ...]
    outcomes: tuple[UnitOutcome, ...]
    finished: bool
    stopped: str | None = None
    problems: tuple[str, ...] = ()
    outcome_by_id: dict[str, UnitOutcome] = field(default_factory=dict, repr=False)
    prices: tuple[float, float] | None = None  # per million prompt and completion tokens

    def cost_of(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What these tokens cost at ``prices`` (None without prices)."""
        if self.prices is None:
            return None
        return (prompt_tokens * self.prices[0] + completion_tokens * self.prices[1]) / 1_000_000

    @property
    def cost(self) -> float | None:
        """The run's cost at ``prices``: its units' counted tokens (None without prices)."""
        return self.cost_of(self.prompt_tokens, self.completion_tokens)

    @property
    def committed(self) -> list[str]:
        return [o.unit_id for o in self.outcomes if o.status == "committed"]

    @property
    def failed(self) -> list[str]:
        return [o.unit_id for o in self.outcomes if o.status == "failed"]

    @property
    def prompt_tokens(self) -> int:
        return sum(o.prompt_tokens for o in self.outcomes)

    @property
    def completion_tokens(self) -> int:
        return sum(o.completion_tokens for o in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "total_units": self.total_units,
            "skipped": list(self.skipped),
            "committed": self.committed,
            "failed": self.failed,
            "finished": self.finished,
            "stopped": self.stopped,
            "problems": list(self.problems),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": self.cost,
            "units": [
                {**o.to_dict(), "cost": self.cost_of(o.prompt_tokens, o.completion_tokens)}
                for o in self.outcomes
            ],
        }


class Conflict(BaseModel):
    """One claim of a draft that a committed document contradicts."""

    claim: str
    unit: str
    reason: str = ""


class Judgement(BaseModel):
    """The cross-document check's answer: the draft's claims and the contradicted ones
    (``conflicts`` must be there, empty when there are none: a missing answer is no pass)."""

    claims: list[str] = []
    conflicts: list[Conflict]
