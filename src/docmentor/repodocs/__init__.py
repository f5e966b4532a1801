"""Repository documentation (issue 21): the code's units, the graph between them and the order
they are documented in. ``read_repository`` (``python_units.py``) reads a Python repository,
``build_graph`` (``graph.py``) links its units, ``traversal`` (``order.py``) orders them."""

from docmentor.repodocs.graph import Edge, Graph, build_graph
from docmentor.repodocs.order import Traversal, traversal
from docmentor.repodocs.python_units import read_repository
from docmentor.repodocs.units import Component, Module, Package, Problem, Repository, RepoUnits

__all__ = [
    "Component",
    "Edge",
    "Graph",
    "Module",
    "Package",
    "Problem",
    "RepoUnits",
    "Repository",
    "Traversal",
    "build_graph",
    "read_repository",
    "traversal",
]
