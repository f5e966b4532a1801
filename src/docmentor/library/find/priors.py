"""Which of a library's Python APIs are second copies or off the path a user takes.

``find_api`` weighs these as it weighs a deprecated API (:mod:`.retrieval`), so that when
a task matches both, the user-facing API comes first:

``mirrored``
    APIs of a mirror namespace: a subpackage (not a class) that repeats at least half
    (``mirror_share``) of its ten or more (``mirror_min_names``) public names from the root package — a compatibility copy such as
    ``pydantic.v1`` (62 of its 93 names are pydantic's own again). The subpackages of
    lancedb and httpx share at most 13 %. An async edition (``redis.asyncio``: mostly
    ``async def`` where the root's are not) is no copy.
``unreached``
    APIs neither ``import root`` nor the docs lead to. Leading to are the root package's
    exports, the exports of every module the docs' examples use an API of
    (``hypothesis.strategies`` when the examples call ``st.integers()``) and what the docs'
    autodoc / mkdocstrings directives document (``.. autofunction:: pkg.meta.find``; not
    every export of an ``automodule``: that cost marshmallow a task), then the members
    of the classes reached (by any of a class's paths, so inherited members count) and the
    classes reached APIs return or yield (``lancedb.connect`` → ``DBConnection`` →
    ``open_table`` → ``Table``). What is left is imported from a submodule the docs do not
    show: extension points and internals such as ``pydantic.json_schema`` or
    ``pydantic.mypy``. When the root package exports nothing (a namespace package read
    under another name), nothing is taken for unreached.

Only Python surfaces: their public paths come from ``__all__`` and re-exports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.models import ApiEntry

__all__ = ["mirrored", "secondary", "unreached"]


def secondary(entries: Sequence[ApiEntry], library: str, config: ApiRankingConfig = DEFAULT) -> set[str]:
    """The api_ids of the library's Python APIs that are mirrored or unreached."""
    python = [e for e in entries if e.language == "python"]
    return mirrored(python, library, config) | {e.api_id for e in unreached(python, library)}


def _paths(e: ApiEntry) -> tuple[str, ...]:
    return (e.api_id, *e.aliases)


def _shortest(e: ApiEntry) -> str:
    """The API's shortest path (an alias may be longer than the api_id: ``numpy.char`` is
    also ``numpy.matlib.char``)."""
    return min(_paths(e), key=lambda p: (p.count("."), len(p), p))


def root_package(entries: Sequence[ApiEntry], library: str) -> str:
    """The package the APIs live in: the library's name when paths start with it (also a
    dotted one, ``azure.storage.blob``), else the first part most paths share (a
    distribution named ``Pillow`` imports as ``PIL``)."""
    if any(p == library or p.startswith(library + ".") for e in entries for p in _paths(e)):
        return library
    firsts = Counter(_shortest(e).split(".", 1)[0] for e in entries)
    return firsts.most_common(1)[0][0] if firsts else library


def mirrored(entries: Sequence[ApiEntry], library: str, config: ApiRankingConfig = DEFAULT) -> set[str]:
    """The api_ids under a mirror namespace (see the module docstring), by shortest path."""
    python = [e for e in entries if e.language == "python"]
    root = root_package(python, library)
    children: dict[str, set[str]] = {}
    shortest: dict[str, str] = {}
    classes: set[str] = set()
    for e in python:
        path = shortest[e.api_id] = _shortest(e)
        parent, _, name = path.rpartition(".")
        children.setdefault(parent, set()).add(name)
        if e.kind == "class":
            classes.update(_paths(e))
    at_root = children.get(root, set())
    mirrors = [
        ns
        for ns, names in children.items()
        if ns.startswith(root + ".")
        and ns not in classes
        and len(names) >= config.mirror_min_names
        and len(names & at_root) >= config.mirror_share * len(names)
        and not _async_twin(python, shortest, ns)
    ]
    return {api for api, path in shortest.items() if any(path.startswith(ns + ".") for ns in mirrors)}


def _async_twin(entries: Sequence[ApiEntry], shortest: dict[str, str], ns: str) -> bool:
    """Whether a namespace repeats the root's names as coroutines (``redis.asyncio``): an
    async edition, not a compatibility copy — most of its functions and methods are
    ``async def``, most of the root's are not."""

    def share(inside: Callable[[str], bool]) -> float:
        calls = [e for e in entries if e.kind in ("function", "method") and inside(shortest[e.api_id])]
        return sum(e.signature.startswith("async ") for e in calls) / len(calls) if calls else 0.0

    return share(lambda p: p.startswith(ns + ".")) >= 0.5 > share(lambda p: not p.startswith(ns + "."))


def _namespaces(e: ApiEntry) -> Iterable[str]:
    """The modules an API is imported from: a function's or class's parent path, a
    member's class's parent path."""
    for path in _paths(e):
        yield path.rsplit(".", 2)[0] if e.parent else path.rpartition(".")[0]


def unreached(entries: Sequence[ApiEntry], library: str) -> list[ApiEntry]:
    """The Python APIs neither the root package nor the docs lead to (module docstring)."""
    python = [e for e in entries if e.language == "python"]
    root = root_package(python, library)
    by_id = {e.api_id: e for e in python}
    under: dict[str, list[ApiEntry]] = {}  # a path → the entries directly under it
    for e in python:
        for path in _paths(e):
            under.setdefault(path.rpartition(".")[0], []).append(e)
    if not under.get(root):
        return []  # the root exports nothing known: no way to tell
    shown = {ns for e in python if e.examples for ns in _namespaces(e)}  # modules the docs import from
    todo = [e for ns in (root, *sorted(shown)) for e in under.get(ns, [])]
    todo += [e for e in python if e.documented]  # what the docs' directives document
    seen: set[str] = set()
    while todo:
        e = todo.pop()
        if e.api_id in seen:
            continue
        seen.add(e.api_id)
        if e.kind == "class":
            for path in _paths(e):
                todo.extend(under.get(path, []))
        if e.returns is not None:
            todo.extend(by_id[c] for c in (e.returns.class_id, e.returns.item_class_id) if c in by_id)
    return [e for e in python if e.api_id not in seen and e.kind != "module"]
