"""One generation of a repository's documentation, start to end, whichever way it is written:
without a model the code's documents; with a model the agent's run (``run_agent``), then its
documents written as the same tree (``write_agent_tree``). Either way the tree is then indexed
as the docs source ``repo-NAME`` (``register_repo_docs``), so search, get_doc and assemble
serve it. The CLI's ``repo-docs generate`` and the MCP tool ``repo_docs_generate`` both call
:func:`generate_repo_docs`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from docmentor.errors import UsageError
from docmentor.llm import LLMClient
from docmentor.repodocs.agent import run_agent
from docmentor.repodocs.agent_results import AgentConfig, RunReport, UnitOutcome
from docmentor.repodocs.agent_tree import AgentTreeResult, write_agent_tree
from docmentor.repodocs.generate import RepoDocsResult, document_repository
from docmentor.repodocs.output import OutputError
from docmentor.repodocs.serve import RepoDocsSource, register_repo_docs

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.llm import LLMConfig

__all__ = ["RepoDocsGeneration", "generate_repo_docs"]


def _out_refused(message: str, out: Path | None) -> UsageError:
    hint = (
        "give out a new or empty folder, or one an earlier run wrote"
        if out is not None
        else "rename or remove that folder, or write the documentation elsewhere (out)"
    )
    return UsageError(message, hint=hint, arguments=("out",))


@dataclass(frozen=True)
class RepoDocsGeneration:
    """What one generation did: ``mode`` ``no_model`` (``tree`` written from the code) or
    ``model`` (the agent's ``run``, then ``written``: its documents as the tree); ``source``
    is the docs source that serves the tree (None when it was not indexed)."""

    mode: Literal["model", "no_model"]
    tree: RepoDocsResult
    source: RepoDocsSource | None = None
    run: RunReport | None = None
    written: AgentTreeResult | None = None

    def to_dict(self) -> dict[str, Any]:
        """Without a model the tree's fields; with one the run's, the tree under ``tree``;
        and ``source`` either way."""
        source = self.source.to_dict() if self.source is not None else None
        if self.run is None or self.written is None:
            return {**self.tree.to_dict(), "source": source}
        return {**self.run.to_dict(), "tree": self.written.to_dict(), "source": source}


def _code_tree(root: Path, out: Path | None) -> RepoDocsResult:
    try:
        return document_repository(root, out)
    except OutputError as exc:
        raise _out_refused(f"{exc}; nothing was changed", out) from None


def generate_repo_docs(
    engine: Docmentor | None,
    root: Path,
    *,
    llm: LLMConfig | None = None,
    out: Path | None = None,
    update: bool = False,
    register: bool = True,
    embed: bool = True,
    agent: AgentConfig | None = None,
    on_unit: Callable[[UnitOutcome], None] | None = None,
    fresh: bool = False,
) -> RepoDocsGeneration:
    """Document the repository at ``root`` and write the Markdown tree and
    ``documentation.json`` under ``out`` (default ``root/.docmentor-docs``).

    Without ``llm``: every unit's document from the code. With ``llm``: the agent documents the
    units into the index's RepoMemory (a run that stopped goes on where it stopped, and one
    that finished with the same model is worked on again: only what changed; ``update``: that
    whatever the model; ``fresh``: a new run of every unit), then the tree is written from the run (a
    unit the model did not document gets the code's, marked in ``documentation.json``). With
    ``register`` the tree is indexed (``embed``: with vectors now) as the source ``repo-NAME``.
    ``engine`` (the index) may be None only without a model and without ``register``.
    Raises UsageError when ``out`` holds files that are not an earlier output (a model's run
    stays in the index)."""
    root = Path(root).resolve()
    if fresh and update:
        raise UsageError("a fresh run documents every unit again; an update only what changed: choose one")
    if engine is None and (llm is not None or register):
        raise UsageError("an index is needed to document with a model or to register the tree")
    if llm is None:
        tree = _code_tree(root, out)
        source = register_repo_docs(engine, tree, embed=embed) if engine is not None and register else None
        return RepoDocsGeneration("no_model", tree, source)
    assert engine is not None
    with LLMClient(llm) as client:
        report = run_agent(
            root,
            engine.store,
            client,
            config=agent or AgentConfig(),
            docs=engine,
            on_unit=on_unit,
            update=update,
            resume=not fresh,
        )
    try:
        written = write_agent_tree(engine.store, root, report.run_id, out)
    except OutputError as exc:
        raise _out_refused(f"{exc} (run {report.run_id}'s documents stay in the index)", out) from None
    source = register_repo_docs(engine, written.tree, embed=embed) if register else None
    return RepoDocsGeneration("model", written.tree, source, report, written)
