"""The documentation agent's loop for one unit (issue 21, item 3): a state machine whose
transitions the model chooses among READ, WRITE, VERIFY and FINISH (``UnitAgent.run``). Every
step is one model call answered by one JSON action (``prompts.py`` has the protocol):

- **READ** answers from memory (the committed documents of the unit's dependencies and
  children), the code through the graph (callees, callers, the owning class, any unit by id)
  or, when a ``Docmentor`` is given, docmentor's own index (``search``); ``agent_answers.py``
  has the answers. Every answer goes through the run's search cache in RepoMemory; a second
  read of the same target in one unit is served from it and counted as a repeat. Every read is
  in the trace.
- **WRITE** keeps the model's document (and its claims) as the draft; verification is void.
  A module, package or repository is written only after a READ of memory (the paper's rule:
  its parts' documents are its primary source).
- **VERIFY** reads the model's scores strictly (``verify.read_scores``: missing or unusable
  is a failure) and runs the deterministic checks (``verify.py``); a draft that passes both
  goes to the cross-document check (``cross_check``): the model, as a judge in a separate
  request, extracts the draft's claims and names those the committed documents of the unit's
  dependencies and children contradict (each is a finding; an unusable answer is one too).
  It passes when the mean is at least ``threshold`` and nothing was found; otherwise the
  findings go back to the model, and after ``max_revisions`` failed revisions the unit fails.
- **FINISH**, only after a passing VERIFY of the latest draft, commits the document with its
  claims, dependencies, children, scores, tokens and model to RepoMemory in one transaction.

A malformed reply, an unknown action or one out of order (VERIFY before WRITE, FINISH before
a pass) is counted, answered with a corrective message (``agent_actions.py`` reads the
action) and uses a step; it never ends the run. A unit that runs out of steps, revisions or
tokens, or whose model call fails after the client's retries, is marked failed with the
reason: nothing unverified is committed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from docmentor.llm.config import LLMError
from docmentor.llm.replies import describe, extract_json, schema_instruction
from docmentor.repodocs import prompts
from docmentor.repodocs.agent_actions import fit, parse_action
from docmentor.repodocs.agent_answers import GRAPH_TARGETS, Shared, memory_ids, memory_version, read_answer
from docmentor.repodocs.agent_results import Judgement, UnitOutcome
from docmentor.repodocs.budget import (
    MESSAGE_OVERHEAD,
    REQUEST_OVERHEAD,
    count,
    count_request,
    fit_parts,
    trim,
)
from docmentor.repodocs.verify import (
    check_links,
    check_parameters,
    check_raises,
    check_sections,
    check_symbols,
    read_scores,
    unit_file,
    unit_language,
)
from docmentor.store import repomem, repomem_trace

__all__ = ["UnitAgent"]

_SYNTHESES = ("module", "package", "repository")  # documents written from their parts' documents


@lru_cache(maxsize=1)
def _judge_instruction() -> str:
    """The JSON instruction the client adds to the judge's system prompt (built once)."""
    return schema_instruction(Judgement)


class _Failed(Exception):
    def __init__(self, reason: str, *, llm_error: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.llm_error = llm_error


class UnitAgent:
    """The loop of one unit: states READ / WRITE / VERIFY / FINISH, chosen by the model."""

    def __init__(self, shared: Shared, unit_id: str) -> None:
        self.s = shared
        self.unit_id = unit_id
        self.kind = shared.view.kind(unit_id)
        self.messages: list[dict[str, Any]] = []
        self.draft: str | None = None
        self.claims: list[str] = []
        self.verified: dict[str, Any] | None = None  # the passing VERIFY of the latest draft
        self.steps = self.invalid = self.reads = self.repeats = 0
        self.verifications = self.failed_verifications = 0
        self.prompt_tokens = self.completion_tokens = 0
        self.seen: set[tuple[str, str]] = set()
        self.own_names: frozenset[str] = frozenset()
        self.judged_claims: list[str] = []  # the claims the cross-document check extracted
        self.judge_calls = 0
        self.model_seconds = 0.0  # waiting for the model (retries included): the rest is the loop's own
        self.largest_request = 0  # the most prompt tokens counted in one of its requests

    # -- the loop ---------------------------------------------------------------------

    def run(self) -> UnitOutcome:
        started = time.monotonic()
        try:
            self.messages = [
                {"role": "system", "content": self.s.system},
                {"role": "user", "content": self._task()},
            ]
            while True:
                if self.steps >= self.s.config.max_steps:
                    raise _Failed(f"step limit: {self.steps} steps without a verified FINISH")
                if self._step():
                    return self._outcome("committed", None, started)
                used = self.prompt_tokens + self.completion_tokens
                if used > self.s.config.max_tokens:
                    raise _Failed(f"token limit: {used} tokens used (limit {self.s.config.max_tokens})")
        except _Failed as failure:
            self._fail(failure.reason, time.monotonic() - started)
            return self._outcome("failed", failure.reason, started, llm_error=failure.llm_error)

    def _step(self) -> bool:
        """One model call and its action; True when the unit was committed."""
        self.steps += 1
        t0 = time.monotonic()
        budget = self.s.budget
        request = fit(self.messages, budget.prompt, budget.encoding)
        self.largest_request = max(self.largest_request, count_request(request, budget.encoding))
        called = time.monotonic()  # the model's time is the call's alone: fitting is the loop's
        try:
            reply = self.s.client.complete(request, max_tokens=self.s.config.reply_tokens)
        except LLMError as exc:
            raise _Failed(f"model request failed: {exc}", llm_error=True) from None
        finally:
            self.model_seconds += time.monotonic() - called
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        tokens = reply.prompt_tokens + reply.completion_tokens
        self.messages.append({"role": "assistant", "content": reply.text})
        action, problem = parse_action(reply.text)
        if action is None:
            return self._invalid(problem or "unusable reply", tokens, t0)
        name = action["action"]
        handler: Callable[[dict[str, Any], int, float], bool] = {
            "READ": self._read,
            "WRITE": self._write,
            "VERIFY": self._verify,
            "FINISH": self._finish,
        }[name]
        return handler(action, tokens, t0)

    def _observe(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def _trace(self, action: str, inputs: dict[str, Any], tokens: int, t0: float) -> None:
        repomem_trace.append_trace(
            self.s.store,
            self.s.run_id,
            unit_id=self.unit_id,
            action=action,
            inputs=inputs,
            tokens=tokens,
            seconds=time.monotonic() - t0,
        )

    def _invalid(self, problem: str, tokens: int, t0: float) -> bool:
        self.invalid += 1
        self._trace("INVALID", {"problem": problem[:300]}, tokens, t0)
        self._observe(prompts.corrective(problem))
        return False

    # -- READ -------------------------------------------------------------------------

    def _read(self, action: dict[str, Any], tokens: int, t0: float) -> bool:
        target = str(action["target"]).strip()
        view = self.s.view
        if target == "search":
            query = action.get("query")
            if not isinstance(query, str) or not query.strip():
                return self._invalid('READ "search" needs a "query" string', tokens, t0)
            key = ("search", " ".join(query.split()))
        elif target == "memory":
            key = ("memory", f"{self.unit_id}@{memory_version(self.s, self.unit_id)}")
        elif target in GRAPH_TARGETS:
            key = (target, f"{self.unit_id}@{self.s.version}")
        elif target in view.units:
            page = action.get("page", 1)
            if isinstance(page, bool) or not isinstance(page, int) or page < 1:
                return self._invalid(f'"page" is a number from 1, not {page!r}', tokens, t0)
            key = ("code", f"{target}@{self.s.version}" + (f"#{page}" if page > 1 else ""))
        else:
            known = ", ".join((*GRAPH_TARGETS, "search", "a unit id"))
            return self._invalid(f"unknown READ target {target!r} (one of {known})", tokens, t0)
        repeat = key in self.seen
        self.seen.add(key)
        self.reads += 1
        self.repeats += repeat
        entry = repomem_trace.cache_get(self.s.store, self.s.run_id, *key)
        if entry is not None and isinstance(entry.result, str):
            answer, cached = entry.result, True
        else:
            answer, cached = read_answer(self.s, self.unit_id, key), False
            repomem_trace.cache_put(self.s.store, self.s.run_id, key[0], key[1], answer)
        self._trace(
            "READ",
            {
                "target": target,
                "kind": key[0],
                "query": key[1],
                "cached": cached,
                "repeat": repeat,
                "chars": len(answer),
            },
            tokens,
            t0,
        )
        note = " (you read this already in this task)" if repeat else ""
        self._observe(f"READ {target}{note}:\n{answer}")
        return False

    # -- WRITE, VERIFY, FINISH --------------------------------------------------------

    def _write(self, action: dict[str, Any], tokens: int, t0: float) -> bool:
        if self.kind in _SYNTHESES and not any(kind == "memory" for kind, _ in self.seen):
            # the paper's rule: a module, package or repository is written from its parts' documents
            return self._invalid(f'a {self.kind} is written from memory: READ "memory" first', tokens, t0)
        document = action["document"].strip()
        claims = action.get("claims")
        self.claims = (
            [c.strip() for c in claims if isinstance(c, str) and c.strip()]
            if isinstance(claims, list)
            else []
        )
        self.draft = document
        self.verified = None
        self._trace("WRITE", {"chars": len(document), "claims": len(self.claims)}, tokens, t0)
        self._observe(f"Draft kept ({len(document)} characters). VERIFY it next.")
        return False

    def _verify(self, action: dict[str, Any], tokens: int, t0: float) -> bool:
        if self.draft is None:
            return self._invalid("there is no document to verify: WRITE one first", tokens, t0)
        self.verifications += 1
        cfg = self.s.config
        scores = read_scores(action.get("scores"))
        findings = self.checks(self.draft)
        if scores.problem:
            findings.insert(0, scores.problem)
        elif scores.mean is not None and scores.mean < cfg.threshold:
            findings.insert(
                0, f"self-evaluation mean {scores.mean:.2f} is below the threshold {cfg.threshold:.2f}"
            )
        cross: dict[str, Any] = {}
        if not findings and cfg.cross_check:  # the model is asked only about a draft that passed the rest
            cross = self._cross_check(self.draft)
            findings += cross.pop("findings")
        passed = not findings
        self._trace(
            "VERIFY",
            {
                "scores": scores.values,
                "mean": scores.mean,
                "passed": passed,
                "findings": findings[:20],
                **cross,
            },
            tokens,
            t0,
        )
        if passed:
            self.verified = {
                **scores.values,
                "mean": scores.mean,
                "verifications": self.verifications,
                **cross,
            }
            self._observe(prompts.verdict(True, scores.mean, [], 0))
            return False
        self.failed_verifications += 1
        revisions = self.failed_verifications - 1
        if revisions >= cfg.max_revisions:
            shown = "; ".join(findings[:3])
            raise _Failed(f"did not pass VERIFY after {revisions} revision(s): {shown}")
        self._observe(prompts.verdict(False, scores.mean, findings, cfg.max_revisions - revisions))
        return False

    def _cross_check(self, draft: str) -> dict[str, Any]:
        """The cross-document conflict check: the model, as a judge, lists the draft's claims
        and those the committed documents of the unit's dependencies and children contradict.
        Its findings (an unusable answer is one), and the contradiction-free rate."""
        cfg = self.s.config
        docs = repomem.committed_documents(self.s.store, self.s.run_id, memory_ids(self.s.view, self.unit_id))
        if not docs:
            return {"findings": []}
        messages = self._judge_request(draft, {uid: row.document or "" for uid, row in sorted(docs.items())})
        references = sorted(docs)
        t0 = time.monotonic()
        self.judge_calls += 1
        try:
            reply = self.s.client.complete(messages, json_schema=Judgement, max_tokens=cfg.reply_tokens)
        except LLMError as exc:
            raise _Failed(f"model request failed: {exc}", llm_error=True) from None
        finally:
            self.model_seconds += time.monotonic() - t0
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        tokens = reply.prompt_tokens + reply.completion_tokens
        try:
            judgement = Judgement.model_validate(extract_json(reply.text))
        except (ValueError, ValidationError) as exc:
            problem = f"the cross-document check gave no usable answer ({describe(exc)[:200]})"
            self._trace("CONFLICT", {"usable": False, "problem": problem}, tokens, t0)
            return {"findings": [problem]}
        conflicts = judgement.conflicts
        self.judged_claims = [c.strip() for c in judgement.claims if c.strip()]
        rate = 1.0 - min(len(conflicts) / max(len(self.judged_claims), 1), 1.0)
        self._trace(
            "CONFLICT",
            {
                "usable": True,
                "claims": len(self.judged_claims),
                "conflicts": [c.model_dump() for c in conflicts][:20],
                "references": references,
            },
            tokens,
            t0,
        )
        return {
            "findings": [f"contradicts the document of {c.unit}: {c.claim} ({c.reason})" for c in conflicts],
            "conflict_free": rate,
        }

    def _judge_request(self, draft: str, documents: dict[str, str]) -> list[dict[str, Any]]:
        """The cross-document check's messages within the prompt budget: the draft whole (cut
        only past the reply's size, which a server ignoring max_tokens could send) and the
        reference documents cut to what is left, the largest first, with a note of what was cut
        or left out (the client adds the JSON instruction to the system prompt: counted too)."""
        budget = self.s.budget
        enc = budget.encoding
        draft = trim(draft, budget.reply, enc)
        instruction = count(f"{prompts.JUDGE_PROMPT}\n\n{_judge_instruction()}", enc)
        base = count(prompts.judge_message(self.unit_id, draft, self.claims, {}), enc)
        room = budget.prompt - REQUEST_OVERHEAD - 2 * MESSAGE_OVERHEAD - instruction - base - 8
        parts = list(documents.items())
        kept, note = fit_parts(parts, room, enc, per_part=16)
        references = {parts[i][0]: body for i, body in kept}
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompts.JUDGE_PROMPT},
            {
                "role": "user",
                "content": prompts.judge_message(self.unit_id, draft, self.claims, references, note),
            },
        ]
        extra = instruction - count(prompts.JUDGE_PROMPT, enc)  # as the client sends the system prompt
        out = fit(messages, budget.prompt, enc, extra=extra)
        self.largest_request = max(self.largest_request, count_request(out, enc) + extra)
        return out

    def checks(self, document: str) -> list[str]:
        """The deterministic checks' findings on ``document``."""
        unit = self.s.view.units[self.unit_id]
        return [
            *check_sections(unit, document, self.s.code_facts, self.s.view.units),
            *check_parameters(unit, document),
            *check_symbols(document, self.s.symbols, self.own_names, unit_language(unit), unit_file(unit)),
            *check_raises(unit, document, self._callee_raises()),
            *check_links(document, self.s.view.units, self.s.pages, self.s.file_lines),
        ]

    def _callee_raises(self) -> list[str]:
        view = self.s.view
        return [r for c in view.callee_ids(self.unit_id) for r in getattr(view.units[c], "raises", ())]

    def _finish(self, action: dict[str, Any], tokens: int, t0: float) -> bool:
        if self.draft is None or self.verified is None:
            return self._invalid("FINISH comes after a passing VERIFY of the latest document", tokens, t0)
        view = self.s.view
        repomem.commit_unit(
            self.s.store,
            self.s.run_id,
            self.unit_id,
            document=self.draft,
            claims=self.claims or self.judged_claims,
            depends_on=view.depends_on.get(self.unit_id, []),
            children=view.children.get(self.unit_id, []),
            scores=self.verified,
            model=self.s.client.config.model,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
        )
        self._trace(
            "FINISH",
            {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "steps": self.steps,
                "reads": self.reads,
                "repeated_reads": self.repeats,
            },
            tokens,
            t0,
        )
        return True

    # -- the unit's task and its end --------------------------------------------------

    def _task(self) -> str:
        """The unit's task within the task budget: its code whole when it fits one page;
        otherwise its outline (members by signature) and the first page, the rest read in pages.
        What the task adds to its fixed part and the page (outline, imports, library names, the
        deterministic facts) shares what is left of the task budget."""
        view, budget = self.s.view, self.s.budget
        enc = budget.encoding
        unit = view.units[self.unit_id]
        first, count_pages = view.source_page(self.unit_id, 1, budget.source)
        self.own_names = view.module_names(self.unit_id)  # names the document may use: its file's
        if count_pages > 1:
            first += (
                f'\n[page 1 of {count_pages}: READ {{"target": "{self.unit_id}", "page": 2}} '
                "and on for the rest]"
            )
        reads = ["memory"]
        reads += ["callees"] if view.callee_ids(self.unit_id) else []
        reads += ["callers"] if view.caller_ids(self.unit_id) else []
        reads += ["owner"] if view.owner(self.unit_id) else []
        reads += ["search"] if self.s.docs is not None else []
        reads.append("<unit id>")

        def message(context: list[str]) -> str:
            return prompts.task_message(
                unit_id=self.unit_id,
                kind=self.kind,
                path=unit.path,
                span=view.span(self.unit_id),
                signature=view.signature(self.unit_id),
                source=first,
                context="\n\n".join(context),
                reads=reads,
            )

        left = max(budget.task - count(message([]), enc) - 48, 0)  # 48: the parts' headings
        context = []
        if count_pages > 1:
            outline = view.outline(self.unit_id)
            if outline:
                context.append(
                    f"Outline (its code takes {count_pages} pages):\n" + trim(outline, left // 4, enc)
                )
        imports = view.imports(self.unit_id)
        if imports:
            context.append("Imports in its file:\n" + trim("\n".join(imports), left // 5, enc))
        external = view.graph.external.get(self.unit_id)
        if external:
            context.append("Library names it uses: " + trim(", ".join(external), left // 10, enc))
        facts = self.s.facts.get(self.unit_id)
        if facts and budget.facts:
            context.append(
                "What the code determines (written without a model):\n"
                + trim(facts, min(budget.facts, left // 3), enc)
            )
        return trim(message(context), budget.task, enc)  # a guard: each part was cut to its share

    def _fail(self, reason: str, seconds: float) -> None:
        repomem.fail_unit(
            self.s.store,
            self.s.run_id,
            self.unit_id,
            error=reason,
            model=self.s.client.config.model,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
        )
        repomem_trace.append_trace(
            self.s.store,
            self.s.run_id,
            unit_id=self.unit_id,
            action="FAIL",
            inputs={"reason": reason[:500], "steps": self.steps},
            seconds=seconds,
        )

    def _outcome(
        self, status: str, reason: str | None, started: float, *, llm_error: bool = False
    ) -> UnitOutcome:
        return UnitOutcome(
            unit_id=self.unit_id,
            status=status,
            reason=reason,
            steps=self.steps,
            model_calls=self.steps + self.judge_calls,
            invalid_actions=self.invalid,
            reads=self.reads,
            repeated_reads=self.repeats,
            verifications=self.verifications,
            revisions=min(self.failed_verifications, self.s.config.max_revisions),
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            seconds=time.monotonic() - started,
            model_seconds=self.model_seconds,
            llm_error=llm_error,
            largest_request=self.largest_request,
        )
