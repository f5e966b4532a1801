"""LLM-judged truthfulness and helpfulness of repository documents: a model, through the
project's one client (``docmentor.llm.LLMClient``), scores a sample of documents against
their units' code. Only with a configured endpoint; nothing here estimates or guesses.

The sample is deterministic: the documented units in traversal order, taken in turn from each
granularity (a component, a module, a package, the repository, a component, …) up to the
limit, so a small limit still sees every level. Each unit is one request: the prompt below
(``JUDGE_PROMPT``), the unit's code (a component's or module's source; a package's or the
repository's structure: its modules with their first docstring lines) and its document, each
cut at a cap and said to be cut.

The reply must be one JSON object with ``truthfulness`` and ``helpfulness`` each a number in
[0, 1] (a numeric string is accepted). A reply without it — no JSON, a score missing, not a
number or out of range — leaves the unit **unjudged**, with why; so does a failed request
(after the client's retries of 429 and 5xx). After ``MAX_FAILED_IN_A_ROW`` failed requests
in a row the endpoint is taken to be down and the remaining units are unjudged, not asked.
Means are over judged units only, and the result says how many were judged and unjudged; the
tokens are those the server reported (``usage``), summed, with the count of answers that
reported none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from docmentor.llm.config import LLMError
from docmentor.llm.replies import extract_json
from docmentor.repodocs.markdown import first_paragraph
from docmentor.repodocs.units import Component, Module, Package, RepoUnits, Unit
from docmentor.repodocs.verify import score_number

if TYPE_CHECKING:
    from docmentor.llm import LLMClient

__all__ = [
    "DEFAULT_JUDGE_LIMIT",
    "JUDGE_PROMPT",
    "MAX_FAILED_IN_A_ROW",
    "JudgeResult",
    "JudgedUnit",
    "judge_documents",
    "judge_sample",
]

DEFAULT_JUDGE_LIMIT = 40  # units judged by default: a request each
MAX_FAILED_IN_A_ROW = 3  # failed requests in a row before the endpoint is taken to be down
MAX_CODE_CHARS = 24_000  # of a unit's code sent (about 6k tokens)
MAX_DOCUMENT_CHARS = 12_000  # of a document sent
MAX_UNSUPPORTED = 10  # claims kept per unit
_GRANULARITIES = ("component", "module", "package", "repository")

JUDGE_PROMPT = """\
You judge the documentation of one unit of a software repository against the unit's code, \
which is the only reference. Score two things, each from 0.00 to 1.00:
- truthfulness: every factual claim of the document (names, parameters, types, defaults, \
return values, raised exceptions, behaviour, relations to other units) is supported by the \
code. Deduct for every claim the code contradicts or does not support; an invented name or \
behaviour is a major flaw. 1.00 only when every claim is supported.
- helpfulness: a developer who has not read the code learns from the document what the unit \
is for and how to use it correctly (what to pass, what comes back, what can fail). Restating \
the name, boilerplate and hedges ("may", "typically") do not help.
List the claims the code does not support (at most 10, each short).
Answer with exactly one JSON object and nothing else:
{"truthfulness": 0.00, "helpfulness": 0.00, "unsupported": ["..."]}
"""


class _JudgeReply(BaseModel):
    """The reply's shape, for the JSON instruction the client adds (read strictly here)."""

    truthfulness: float = Field(ge=0.0, le=1.0)
    helpfulness: float = Field(ge=0.0, le=1.0)
    unsupported: list[str] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class JudgedUnit:
    """One unit of the sample: its scores, or why it has none (``problem``)."""

    unit: str
    granularity: str
    truthfulness: float | None = None
    helpfulness: float | None = None
    unsupported: tuple[str, ...] = ()
    problem: str | None = None

    @property
    def judged(self) -> bool:
        return self.problem is None and self.truthfulness is not None and self.helpfulness is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "granularity": self.granularity,
            "truthfulness": self.truthfulness,
            "helpfulness": self.helpfulness,
            "unsupported": list(self.unsupported),
            "problem": self.problem,
        }


@dataclass(frozen=True, slots=True)
class JudgeResult:
    """The judged sample: each unit's scores or problem, the means over judged units (None
    when none was judged), and the tokens the server reported."""

    model: str
    units: tuple[JudgedUnit, ...]
    requests: int
    prompt_tokens: int
    completion_tokens: int
    unreported: int  # answers that reported no token usage

    @property
    def judged(self) -> int:
        return sum(u.judged for u in self.units)

    @property
    def unjudged(self) -> tuple[JudgedUnit, ...]:
        return tuple(u for u in self.units if not u.judged)

    def mean(self, score: str, granularity: str | None = None) -> float | None:
        """The mean ``truthfulness`` or ``helpfulness`` of the judged units (of one
        granularity)."""
        values = [
            getattr(u, score)
            for u in self.units
            if u.judged and (granularity is None or u.granularity == granularity)
        ]
        return sum(values) / len(values) if values else None

    def to_dict(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 6)

        kinds = [g for g in _GRANULARITIES if any(u.granularity == g and u.judged for u in self.units)]
        return {
            "model": self.model,
            "sample": len(self.units),
            "judged": self.judged,
            "unjudged": len(self.unjudged),
            "truthfulness": rounded(self.mean("truthfulness")),
            "helpfulness": rounded(self.mean("helpfulness")),
            "by_granularity": {
                g: {
                    "judged": sum(u.judged for u in self.units if u.granularity == g),
                    "truthfulness": rounded(self.mean("truthfulness", g)),
                    "helpfulness": rounded(self.mean("helpfulness", g)),
                }
                for g in kinds
            },
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "unreported_usage": self.unreported,
            "units": [u.to_dict() for u in self.units],
        }


def granularity(unit: Unit) -> str:
    if isinstance(unit, Component):
        return "component"
    if isinstance(unit, Module):
        return "module"
    return "package" if isinstance(unit, Package) else "repository"


def judge_sample(order: Sequence[str], units: Mapping[str, Unit], limit: int) -> list[str]:
    """Up to ``limit`` of the ``order``'s ids that are in ``units``: in turn from each
    granularity, each in ``order``."""
    queues: dict[str, list[str]] = {g: [] for g in _GRANULARITIES}
    for unit_id in order:
        if unit_id in units:
            queues[granularity(units[unit_id])].append(unit_id)
    picked: list[str] = []
    depth = 0
    while len(picked) < limit and any(depth < len(q) for q in queues.values()):
        for g in _GRANULARITIES:
            if depth < len(queues[g]) and len(picked) < limit:
                picked.append(queues[g][depth])
        depth += 1
    return picked


def judge_documents(
    client: LLMClient,
    repo: RepoUnits,
    sources: Mapping[str, str],
    documents: Mapping[str, str],
    sample: Sequence[str],
) -> JudgeResult:
    """Ask the model to judge each unit of ``sample`` (ids of ``repo``) by its document
    (``documents``) and code (``sources``: the source text of components and modules)."""
    units = repo.units()
    judged: list[JudgedUnit] = []
    requests = prompt = completion = unreported = 0
    failed_in_a_row = 0
    for unit_id in sample:
        unit = units[unit_id]
        kind = granularity(unit)
        if failed_in_a_row >= MAX_FAILED_IN_A_ROW:
            why = f"not asked: {MAX_FAILED_IN_A_ROW} requests in a row failed"
            judged.append(JudgedUnit(unit_id, kind, problem=why))
            continue
        messages = [
            {"role": "system", "content": JUDGE_PROMPT},
            {"role": "user", "content": _message(unit, _code(unit, repo, sources), documents[unit_id])},
        ]
        requests += 1
        try:
            reply = client.complete(messages, json_schema=_JudgeReply)
        except LLMError as exc:
            failed_in_a_row += 1
            judged.append(JudgedUnit(unit_id, kind, problem=f"the request failed: {exc}"))
            continue
        failed_in_a_row = 0
        prompt += reply.prompt_tokens
        completion += reply.completion_tokens
        unreported += not reply.usage_reported
        judged.append(read_verdict(unit_id, kind, reply.text))
    return JudgeResult(client.config.model, tuple(judged), requests, prompt, completion, unreported)


def read_verdict(unit_id: str, kind: str, text: str) -> JudgedUnit:
    """A reply read strictly: both scores numbers in [0, 1], or the unit is unjudged."""
    try:
        data = extract_json(text)
    except ValueError as exc:
        return JudgedUnit(unit_id, kind, problem=f"unusable reply: {exc}")
    lowered = {str(k).lower(): v for k, v in data.items()}
    scores: dict[str, float] = {}
    problems: list[str] = []
    for name in ("truthfulness", "helpfulness"):
        if name not in lowered or lowered[name] is None:
            problems.append(f"no {name} score")
            continue
        number = score_number(lowered[name])
        if number is None or not 0.0 <= number <= 1.0:
            problems.append(f"{name} is not a number in [0, 1]: {lowered[name]!r}"[:200])
        else:
            scores[name] = number
    if problems:
        return JudgedUnit(unit_id, kind, problem="unusable reply: " + "; ".join(problems))
    raw = lowered.get("unsupported")
    claims = (
        tuple(str(c)[:300] for c in raw if isinstance(c, str))[:MAX_UNSUPPORTED]
        if isinstance(raw, list)
        else ()
    )
    return JudgedUnit(unit_id, kind, scores["truthfulness"], scores["helpfulness"], claims)


def _message(unit: Unit, code: str, document: str) -> str:
    kind = unit.kind if isinstance(unit, Component) else granularity(unit)
    return "\n\n".join(
        [
            f"Unit: {unit.id}",
            f"Kind: {kind}",
            f"<CODE>\n{_cut(code, MAX_CODE_CHARS, 'code')}\n</CODE>",
            f"<DOCUMENT>\n{_cut(document, MAX_DOCUMENT_CHARS, 'document')}\n</DOCUMENT>",
            "Answer with the JSON object.",
        ]
    )


def _cut(text: str, cap: int, what: str) -> str:
    if len(text) <= cap:
        return text
    return text[:cap] + f"\n[… the {what} is cut here: {len(text) - cap:,} more characters not shown]"


def _code(unit: Unit, repo: RepoUnits, sources: Mapping[str, str]) -> str:
    """A component's or module's source; a package's or the repository's structure."""
    if isinstance(unit, Component | Module):
        return sources.get(unit.id, "") or "(the source could not be read)"
    modules = {m.id: m for m in repo.modules}
    if isinstance(unit, Package):
        children = list(unit.children)
        head = f"Package {unit.id} (folder {unit.path}) holds:"
    else:
        children = [p.id for p in repo.packages if p.parent == unit.id]
        children += [m.id for m in repo.modules if m.package == unit.id]
        head = f"Repository {unit.name} holds, at its top level:"
    lines = [head]
    for child in children:
        module = modules.get(child)
        if module is None:
            lines.append(f"- package {child}")
        else:
            doc = first_paragraph(module.docstring)
            lines.append(f"- module {child} ({module.path})" + (f": {doc}" if doc else ""))
    if not isinstance(unit, Package):
        lines.append("Every module:")
        for m in repo.modules:
            doc = first_paragraph(m.docstring)
            lines.append(f"- {m.id} ({m.path})" + (f": {doc}" if doc else ""))
    return "\n".join(lines)
