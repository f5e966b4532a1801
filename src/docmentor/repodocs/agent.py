"""The documentation agent's run over a repository (issue 21, item 3): ``run_agent`` registers
the units in traversal order with their code hashes (a resumed run keeps what was committed
and redoes none of it; with ``update``, the last finished run is reopened; in both, when the
code changed since, ``update.py``'s set of stale units goes back to pending), then runs each pending unit's loop (``agent_unit.py``), one after
another or, with ``workers`` > 1, the units of one traversal level at a time in a thread pool
(a level's units do not depend on each other). A unit that fails is marked failed and the run
goes on with the next; it stops (resumable) after ``stop_after_llm_errors`` units in a row
failed on the endpoint. Every request fits the model's context window in counted tokens
(``budget.py``: the window, ``AgentConfig.context_tokens`` or the client's
``DOCMENTOR_LLM_CONTEXT``, is split once per run). Its settings and results are
``agent_results.py``'s; what READ
answers ``agent_answers.py``'s (over ``reads.py``); the checks ``verify.py``'s; every text sent
to the model ``prompts.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import UsageError
from docmentor.llm import LLMClient
from docmentor.repodocs import prompts
from docmentor.repodocs.agent_answers import Shared
from docmentor.repodocs.agent_results import AgentConfig, RunReport, UnitOutcome
from docmentor.repodocs.agent_unit import UnitAgent
from docmentor.repodocs.budget import Budget
from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.deterministic import Documenter, Layout
from docmentor.repodocs.graph import build_graph
from docmentor.repodocs.order import traversal
from docmentor.repodocs.python_units import read_repository
from docmentor.repodocs.reads import RepoView
from docmentor.repodocs.update import UpdatePlan, plan_update
from docmentor.repodocs.verify import SymbolTable
from docmentor.store import repomem
from docmentor.store.repomem_rows import NewUnit, RunRow

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.store.db import Store

__all__ = ["AgentConfig", "RunReport", "UnitOutcome", "run_agent"]


def run_agent(
    root: Path,
    store: Store,
    client: LLMClient,
    *,
    config: AgentConfig | None = None,
    docs: Docmentor | None = None,
    resume: bool = True,
    update: bool = False,
    transitive: bool = True,
    on_unit: Callable[[UnitOutcome], None] | None = None,
) -> RunReport:
    """Document the repository at ``root`` with the model behind ``client``, persisting every
    step in RepoMemory (``store``). With ``resume``, the latest unfinished run of ``root`` is
    continued: committed units are skipped (and, with ``retry_failed``, failed ones redone).
    ``docs``: the index READ's ``search`` asks (None: no search). ``on_unit`` is called with
    each unit's outcome as it ends (a progress bar), in the calling thread. The run is marked finished
    when every unit is committed.

    With ``update``, the latest run of ``root`` is worked on even when it finished (an
    incremental update; none: a new run). Whenever the run worked on was stored before (resumed
    or updated) and the code changed since, exactly ``update.plan_update``'s set goes back to
    pending (the changed and added units, their dependents — all of them, or with
    ``transitive=False`` the direct ones — and their ancestors) and the removed units are
    dropped from memory; every other committed unit is kept and never sent to the model."""
    cfg = config or AgentConfig()
    root = Path(root).resolve()
    repo = read_repository(root)
    graph = build_graph(repo)
    order = traversal(graph)
    view = RepoView(root, repo, graph, order, cfg.encoding)
    system = prompts.system_prompt(cfg.threshold, cfg.max_revisions)
    budget = Budget.of(  # before anything is stored: a window too small is refused at once
        window=cfg.context_tokens or client.config.context_window,
        reply_tokens=cfg.reply_tokens,
        system=system,
        read_tokens=cfg.read_tokens,
        source_tokens=cfg.source_tokens,
        facts_tokens=cfg.facts_tokens,
        encoding=cfg.encoding,
    )
    run, stored_before = _open_run(
        store, root, client.config.model, asdict(cfg), resume=resume, update=update
    )
    hashes = {uid: _hash(view, uid) for uid in order.order}
    plan = _plan(store, run.id, view, hashes, transitive=transitive) if stored_before else None
    repomem.register_units(
        store,
        run.id,
        [NewUnit(uid, view.granularity(uid), hashes[uid], view.parent(uid)) for uid in order.order],
    )
    if plan is not None:
        repomem.remove_units(store, run.id, plan.removed)
        repomem.reset_units(store, run.id, plan.redo)
    if cfg.retry_failed:
        failed = repomem.unit_ids(store, run.id, status="failed")
        if failed:
            repomem.reset_units(store, run.id, failed)
    pending = set(repomem.unit_ids(store, run.id, status="pending"))
    skipped = tuple(u for u in order.order if u not in pending)
    code_facts = read_facts(root, repo)
    facts = (
        {uid: doc.text(3) for uid, doc in Documenter(repo, graph, code_facts, root).documents().items()}
        if cfg.facts_tokens
        else {}
    )
    shared = Shared(
        store=store,
        run_id=run.id,
        client=client,
        config=cfg,
        view=view,
        symbols=SymbolTable(repo, graph),
        docs=docs,
        system=system,
        facts=facts,
        code_facts=code_facts,
        version=repo.repository.content_hash[:12],
        pages=frozenset(Layout(repo).pages.values()),
        file_lines={m.path: m.line_end for m in repo.modules},
        budget=budget,
    )
    batches = order.levels if cfg.workers > 1 else tuple((u,) for u in order.order)
    outcomes, stopped = _work(shared, batches, pending, on_unit)
    left = repomem.unit_ids(store, run.id, status="pending") + repomem.unit_ids(
        store, run.id, status="failed"
    )
    finished = not left and stopped is None
    if finished:
        repomem.finish_run(store, run.id)
    return RunReport(
        run_id=run.id,
        total_units=len(order.order),
        skipped=skipped,
        outcomes=tuple(outcomes),
        finished=finished,
        stopped=stopped,
        problems=tuple(f"{p.path}: {p.error}" for p in repo.problems),
        outcome_by_id={o.unit_id: o for o in outcomes},
        prices=None
        if cfg.prompt_price is None or cfg.completion_price is None
        else (cfg.prompt_price, cfg.completion_price),
    )


def _open_run(
    store: Store, root: Path, model: str | None, settings: dict[str, Any], *, resume: bool, update: bool
) -> tuple[RunRow, bool]:
    """The run to work on and whether it was stored before: with ``update``, the latest
    unfinished or finished run of ``root`` (a finished one reopened); with ``resume`` alone,
    the same when the latest run finished with this ``model`` (running again costs only what
    changed since, never a second full run of the same model); otherwise ``start_run``'s."""
    if update and not resume:
        raise UsageError("an update works on the last run of the repository; it cannot start afresh")
    if resume:
        last = next((r for r in repomem.list_runs(store, root) if r.status in ("running", "finished")), None)
        if last is not None and last.status == "finished" and (update or last.model == model):
            return repomem.reopen_run(store, last.id), True
    run = repomem.start_run(store, root, model=model, settings=settings, resume=resume)
    return run, run.resumed


def _plan(
    store: Store, run_id: int, view: RepoView, hashes: dict[str, str], *, transitive: bool
) -> UpdatePlan | None:
    """What to redo in a stored run, from its stored hashes and dependencies (None: nothing
    changed)."""
    changes = repomem.changed_units(store, run_id, hashes)
    if not (changes.changed or changes.added or changes.removed):
        return None
    previous = {row.unit_id: row.depends_on for row in repomem.units(store, run_id, status="committed")}
    return plan_update(
        view.graph,
        changes.changed,
        changes.added,
        changes.removed,
        previous_dependencies=previous,
        current_dependencies={uid: view.depends_on.get(uid, []) for uid in view.units},
        transitive=transitive,
    )


def _work(
    shared: Shared,
    batches: tuple[tuple[str, ...], ...],
    pending: set[str],
    on_unit: Callable[[UnitOutcome], None] | None,
) -> tuple[list[UnitOutcome], str | None]:
    """Each batch's pending units (a batch of several: ``workers`` at a time), in order; stops
    (no unit started after it) once ``stop_after_llm_errors`` units in a row failed on the
    endpoint, or ``stop_after_failures`` in a row failed at all. The units not started stay
    pending: the next run goes on with them."""
    outcomes: list[UnitOutcome] = []
    tally = _InARow(shared.config)
    workers = max(shared.config.workers, 1)

    def ended(outcome: UnitOutcome) -> None:
        outcomes.append(outcome)
        if on_unit is not None:
            on_unit(outcome)
        tally.see(outcome)

    if workers == 1:  # in the calling thread: Ctrl-C stops the unit under way at once
        for batch in batches:
            for uid in batch:
                if uid in pending and tally.stopped is None:
                    ended(UnitAgent(shared, uid).run())
            if tally.stopped is not None:
                return outcomes, tally.stopped
        return outcomes, None
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for batch in batches:
            todo = iter([u for u in batch if u in pending])
            running: set[Future[UnitOutcome]] = set()
            while True:
                while tally.stopped is None and len(running) < workers:
                    following = next(todo, None)
                    if following is None:
                        break
                    running.add(pool.submit(UnitAgent(shared, following).run))
                if not running:
                    break
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    ended(future.result())
            if tally.stopped is not None:
                return outcomes, tally.stopped
    return outcomes, None


class _InARow:
    """Units failed in a row, on the endpoint and at all; ``stopped`` says why the run stops."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        self.llm_errors = 0
        self.failures = 0
        self.stopped: str | None = None

    def see(self, outcome: UnitOutcome) -> None:
        self.llm_errors = self.llm_errors + 1 if outcome.llm_error else 0
        self.failures = self.failures + 1 if outcome.status == "failed" else 0
        if self.stopped is not None:
            return
        why = outcome.reason or ""
        if self.llm_errors >= self.config.stop_after_llm_errors:
            self.stopped = (
                f"stopped after {self.llm_errors} units in a row failed on the model endpoint: {why}"
            )
        elif self.failures >= self.config.stop_after_failures:
            self.stopped = (
                f"stopped after {self.failures} units in a row failed (the model's work could not be "
                f"committed; the last: {why})"
            )


def _hash(view: RepoView, unit_id: str) -> str:
    return view.units[unit_id].content_hash
