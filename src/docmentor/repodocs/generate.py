"""Document a repository (Python, TypeScript/JavaScript, Go, Rust) without a model: read its
units, link and order them, write every unit's deterministic document (``deterministic.py``)
as a Markdown tree and ``documentation.json`` under the output folder (``output.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.deterministic import Documenter, UnitDocument
from docmentor.repodocs.graph import Graph, build_graph
from docmentor.repodocs.order import Traversal, traversal
from docmentor.repodocs.output import render_tree, write_tree
from docmentor.repodocs.python_units import DEFAULT_MAX_BYTES, read_repository
from docmentor.repodocs.units import Problem, RepoUnits

DEFAULT_OUT = ".docmentor-docs"  # under the repository; the reader skips hidden folders


@dataclass(frozen=True)
class RepoDocs:
    """A repository's units, graph, order and every unit's document, in memory."""

    units: RepoUnits
    graph: Graph
    order: Traversal
    documents: dict[str, UnitDocument]


@dataclass(frozen=True)
class RepoDocsResult:
    """What ``document_repository`` wrote: the output folder, the number of documents by
    kind, the files written and the files it could not read."""

    root: str
    out: str
    documents: dict[str, int]
    files: int
    problems: tuple[Problem, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "out": self.out,
            "documents": dict(sorted(self.documents.items())),
            "files": self.files,
            "problems": [{"path": p.path, "error": p.error, "skipped": p.skipped} for p in self.problems],
        }


def build_documents(root: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> RepoDocs:
    """Every unit's deterministic document for the repository at ``root``."""
    root = root.resolve()
    units = read_repository(root, max_bytes=max_bytes)
    graph = build_graph(units)
    order = traversal(graph)
    documents = Documenter(units, graph, read_facts(root, units), root).documents()
    return RepoDocs(units, graph, order, documents)


def document_repository(
    root: Path, out: Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> RepoDocsResult:
    """Write the deterministic documentation of the repository at ``root`` under ``out``
    (default ``root/.docmentor-docs``), replacing what an earlier run wrote there,
    atomically. Raises ``NotADirectoryError`` when ``root`` is no folder and
    ``output.OutputError`` when ``out`` holds files that are not an earlier output."""
    root = root.resolve()
    target = out if out is not None else root / DEFAULT_OUT
    docs = build_documents(root, max_bytes=max_bytes)
    files = render_tree(docs.units, docs.documents, docs.order.order)
    write_tree(target, files)
    counts: dict[str, int] = {}
    for doc in docs.documents.values():
        counts[doc.kind] = counts.get(doc.kind, 0) + 1
    return RepoDocsResult(str(root), str(target.absolute()), counts, len(files), docs.units.problems)
