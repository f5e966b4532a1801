"""Repository documentation (issue 21, being built): a repository's code documented unit by
unit, dependencies first.

- the code: ``read_repository`` (``python_units.py``) reads a repository's Python files (with
  ``ast``) and TypeScript/JavaScript, Go and Rust files (with tree-sitter,
  ``treesitter_repo.py``) into units, ``build_graph`` (``graph.py``) links them, ``traversal``
  (``order.py``) orders them;
- without a model: ``document_repository`` (``generate.py``) writes a document for every unit
  from the code alone, as a Markdown tree and ``documentation.json``;
- with a model: ``run_agent`` (``agent.py``) runs the READ / WRITE / VERIFY / FINISH loop over
  an OpenAI-compatible endpoint, its memory kept in the index (``store/repomem*.py``).

The CLI's ``docmentor repo-docs`` and the ``repodocs`` MCP tool group call these; the names
here may still change.
"""

from docmentor.repodocs.agent import run_agent
from docmentor.repodocs.agent_results import AgentConfig, RunReport, UnitOutcome
from docmentor.repodocs.generate import RepoDocsResult, document_repository
from docmentor.repodocs.graph import Edge, Graph, build_graph
from docmentor.repodocs.order import Traversal, traversal
from docmentor.repodocs.python_units import read_repository
from docmentor.repodocs.units import Component, Module, Package, Problem, Repository, RepoUnits

__all__ = [
    "AgentConfig",
    "Component",
    "Edge",
    "Graph",
    "Module",
    "Package",
    "Problem",
    "RepoDocsResult",
    "RepoUnits",
    "Repository",
    "RunReport",
    "Traversal",
    "UnitOutcome",
    "build_graph",
    "document_repository",
    "read_repository",
    "run_agent",
    "traversal",
]
