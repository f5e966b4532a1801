"""Evaluate a repository's generated documentation: the code (``read_repository``,
``build_graph``, ``traversal``) against the output folder (``documentation.json`` and the
Markdown tree that ``document_repository`` or ``write_agent_tree`` writes), when a RepoMemory
run is given its commit order and trace, and when a model is given (``llm``) its judgement of
a sample of documents. This module reads the documents and puts the metrics together; the
per-document checks are ``evaluate_checks.py`` (what parameters state: ``evaluate_params.py``),
the link check ``evaluate_links.py``, a run's order and reads ``evaluate_run.py``, the model's
judgement ``evaluate_judge.py``, the result records ``evaluate_metrics.py``.

A document's origin is ``documentation.json``'s ``source`` of its unit: ``model`` where the
model wrote it (``write_agent_tree``), else the code (``deterministic.py``'s format; a tree
of ``document_repository`` has no ``source``). The deterministic metrics (each a fraction in
[0, 1] of the checks that pass, with every failing check listed as unit id + what, so it can
be fixed):

- **sections**, the code's format: the sections ``deterministic.py`` requires of the unit's
  granularity, conditional on the code: Args exactly when the function has parameters
  (without a method's ``self``/``cls``), Returns exactly when it returns a value, Yields when it
  yields, Raises exactly when it raises; a class's Bases, Constructor, Attributes and Methods
  when it has them; a module's Public API when it has public definitions; a package's Modules
  and Subpackages; the repository's Architecture, Packages, Modules and Problems.
  The model's format (``prompts.FORMATS``): function/method Summary, Description, Args
  exactly with parameters, Returns exactly with a return value or ``yield`` (Yields accepted
  for it), Raises exactly with a ``raise``, Examples; class Summary, Description, Args (its
  ``__init__``'s) exactly with parameters, Attributes and Methods when it has them, Examples;
  module Role, Components, Public API with public definitions, Dependencies with imports,
  Diagram (holding a Mermaid block) with components; package and repository Purpose and
  Overview.
- **coverage**: the code's entities named in their section — a function's parameters (Args)
  and raised exception classes (Raises), a class's ``__init__`` parameters (Constructor; the
  model's Args), public methods (Methods) and attributes (Attributes), a module's public
  definitions (Public API; the model's Components or Public API), the repository's top-level
  packages and modules (Packages / Modules; the model's Overview), a package's modules and
  sub-packages (the model's Overview). Public is the language's rule (``units.is_public``: a
  leading ``_`` in Python, a capital in Go, ``pub`` in Rust, exported in TypeScript/JavaScript),
  as the writer's. A section that is missing is counted once, under sections, not again here.
- **signatures** (the code's format): the Signature section's code block equals the code's
  decorators and signature.
- **parameters**: what Args (the code's Constructor) states of each parameter agrees with the
  signature: a listed name is a parameter (unless ``**kwargs``), a stated type is the
  annotation, a stated default is the default (``evaluate_params.py`` says how they are read
  and compared).
- **symbols**: every name in a code span (outside fenced blocks; prose is not read) resolves
  (``verify.code_names`` / ``SymbolTable``, with the unit's own source as its local names and
  the names its language knows, ``known_names.py``), or is the path of a file of the repository.
- **links**: every relative link in the Markdown tree (outside code blocks and spans, its
  ``]`` not escaped) leads to a file of the tree and, with an
  anchor, to an ``<a id>`` or a heading of that file (web and ``mailto:`` links are not checked).
- **order** (a run given): for every dependency edge the traversal kept (not dropped to break a
  cycle) between two committed units, the dependency was committed first. The commit order is
  the run's trace (each unit's last ``FINISH``) when every committed unit has one, else the
  ``committed_at`` times (units committed in the same second are not ordered, not counted).
- **reads** (a run given): the share of READ actions that repeat one the same unit made before
  (same kind and query, else same target), the share answered from the cache, and the cache's
  hit count.
- **judge** (a model given): the mean truthfulness and helpfulness the model gives a
  deterministic sample of documents against their code, with the judged and unjudged counts
  and the tokens the server reported (``evaluate_judge.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import NotFoundError, UsageError
from docmentor.llm import LLMClient
from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.evaluate_checks import CodeView, DocumentChecks, Origin
from docmentor.repodocs.evaluate_judge import DEFAULT_JUDGE_LIMIT, JudgeResult, judge_documents, judge_sample
from docmentor.repodocs.evaluate_links import link_metric
from docmentor.repodocs.evaluate_metrics import Failure, Metric, ReadStats
from docmentor.repodocs.evaluate_run import order_metric, read_stats
from docmentor.repodocs.graph import build_graph
from docmentor.repodocs.order import traversal
from docmentor.repodocs.output import JSON_NAME
from docmentor.repodocs.python_units import DEFAULT_MAX_BYTES, read_repository
from docmentor.store import repomem

if TYPE_CHECKING:
    from docmentor.llm.config import LLMConfig
    from docmentor.repodocs.units import RepoUnits
    from docmentor.store.db import Store

__all__ = ["EvaluationError", "Failure", "Metric", "ReadStats", "RepoDocsEvaluation", "evaluate_docs"]


class EvaluationError(NotFoundError):
    """The output folder cannot be evaluated (no ``documentation.json`` of this format)."""


@dataclass(frozen=True, slots=True)
class RepoDocsEvaluation:
    """The metrics of one output folder (``order`` and ``reads`` only when a run was given,
    ``judge`` only when a model was); ``missing``: units of the code with no document,
    ``unknown``: documents of no unit."""

    root: str
    out: str
    units: int
    sections: Metric
    coverage: Metric
    signatures: Metric
    parameters: Metric
    symbols: Metric
    links: Metric
    missing: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    order: Metric | None = None
    reads: ReadStats | None = None
    judge: JudgeResult | None = None
    metrics: tuple[Metric, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        found = [self.sections, self.coverage, self.signatures, self.parameters, self.symbols, self.links]
        object.__setattr__(self, "metrics", tuple([*found, *([self.order] if self.order else [])]))

    @property
    def order_violations(self) -> int:
        return len(self.order.failures) if self.order else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "out": self.out,
            "units": self.units,
            "missing": list(self.missing),
            "unknown": list(self.unknown),
            "metrics": {m.name: m.to_dict() for m in self.metrics},
            "order_violations": self.order_violations if self.order else None,
            "reads": self.reads.to_dict() if self.reads else None,
            "judge": self.judge.to_dict() if self.judge else None,
        }


def evaluate_docs(
    root: Path,
    out: Path,
    *,
    store: Store | None = None,
    run_id: int | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    llm: LLMConfig | None = None,
    judge_limit: int = DEFAULT_JUDGE_LIMIT,
) -> RepoDocsEvaluation:
    """Evaluate the documentation under ``out`` of the repository at ``root`` (see the module
    docstring); with ``store``, the order and reads of RepoMemory run ``run_id`` too (by default
    the run ``documentation.json`` says the tree was written from, when ``store`` holds it for
    this ``root``); with ``llm``, the model's judgement of up to ``judge_limit`` documents
    (``evaluate_judge.py``).
    Raises ``EvaluationError`` when ``out`` holds no readable ``documentation.json``,
    ``NotADirectoryError`` when ``root`` is no folder and ``UsageError`` for a negative
    ``judge_limit``."""
    if judge_limit < 0:
        raise UsageError(f"judge_limit must be 0 or more, not {judge_limit}")
    root = root.resolve()
    out = out.resolve()
    tree = _documents(out)
    texts = tree.texts
    units = read_repository(root, max_bytes=max_bytes)
    graph = build_graph(units)
    code = CodeView(root, units, graph, read_facts(root, units))
    all_units = units.units()
    checks = DocumentChecks()
    for unit_id in sorted(set(all_units) & set(texts)):
        checks.unit(code, all_units[unit_id], texts[unit_id], tree.origins[unit_id])
    links = link_metric(out, tree.places)
    order = reads = None
    if store is not None and run_id is None:
        run_id = _run_of(store, root, tree)
    if store is not None and run_id is not None:
        order = order_metric(store, run_id, graph)
        reads = read_stats(store, run_id)
    judge = None
    if llm is not None:
        judge = _judge(llm, code, units, texts, traversal(graph).order, judge_limit)
    return RepoDocsEvaluation(
        root=str(root),
        out=str(out),
        units=len(all_units),
        sections=checks.metric("sections"),
        coverage=checks.metric("coverage"),
        signatures=checks.metric("signatures"),
        parameters=checks.metric("parameters"),
        symbols=checks.metric("symbols"),
        links=links,
        missing=tuple(sorted(set(all_units) - set(texts))),
        unknown=tuple(sorted(set(texts) - set(all_units))),
        order=order,
        reads=reads,
        judge=judge,
    )


def _judge(
    llm: LLMConfig,
    code: CodeView,
    units: RepoUnits,
    texts: dict[str, str],
    order: tuple[str, ...],
    limit: int,
) -> JudgeResult:
    everything = units.units()
    sample = judge_sample(order, {u: everything[u] for u in order if u in texts}, limit)
    sources = {u: code.source(everything[u]) for u in sample}
    with LLMClient(llm) as client:
        return judge_documents(client, units, sources, texts, sample)


# -- the documents and the code -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tree:
    """What ``documentation.json`` holds: each unit's document text and origin (``source``:
    ``model`` where the model wrote it, else the code) by id, each unit's id by its (page,
    anchor), and the agent run it was written from (``run.id``), if any."""

    texts: dict[str, str]
    origins: dict[str, Origin]
    places: dict[tuple[str, str | None], str]
    run_id: int | None


def _documents(out: Path) -> _Tree:
    try:
        data = json.loads((out / JSON_NAME).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise EvaluationError(
            f"no documentation in {out} ({JSON_NAME} is missing)",
            hint="generate it first: docmentor repo-docs generate PATH (or --out the folder it wrote)",
        ) from exc
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise EvaluationError(f"{out / JSON_NAME} cannot be read: {why}") from exc
    entries = data.get("units") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise EvaluationError(f"{out / JSON_NAME} has no list of units")
    texts: dict[str, str] = {}
    origins: dict[str, Origin] = {}
    places: dict[tuple[str, str | None], str] = {}
    for e in entries:
        if isinstance(e, dict) and isinstance(e.get("id"), str):
            texts[e["id"]] = str(e.get("text") or "")
            origins[e["id"]] = "model" if e.get("source") == "model" else "code"
            if isinstance(e.get("page"), str):
                anchor = e.get("anchor")
                places[(e["page"], anchor if isinstance(anchor, str) else None)] = e["id"]
    run = data.get("run")
    run_id = run.get("id") if isinstance(run, dict) else None
    ok = isinstance(run_id, int) and not isinstance(run_id, bool)
    return _Tree(texts, origins, places, run_id if ok else None)


def _run_of(store: Store, root: Path, tree: _Tree) -> int | None:
    """The run the tree says it was written from, when ``store`` holds it for ``root``."""
    if tree.run_id is None:
        return None
    try:
        run = repomem.get_run(store, tree.run_id)
    except NotFoundError:
        return None
    return tree.run_id if Path(run.root) == root else None
