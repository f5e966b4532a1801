"""A module's ``__all__`` built at run time, read as the library's interpreter builds it.

funcy's ``funcy/py3.py`` star-imports thirteen modules and sets ``__all__ =
lcat(sys.modules['funcy.' + m].__all__ for m in modules)``, then ``__all__ += ['lzip']``;
``funcy/__init__.py`` star-imports ``py3`` and imports its ``__all__``. Read statically,
``__all__`` is ``['lzip']``: the package published one function of its 199, every other API
had no public path, and README.LLM opened with ``lzip``. A module whose ``__all__`` is no
literal list of strings (a call, a comprehension, a sum with another module's ``__all__``) or
is imported from another module is asked for its ``__all__`` after import; the names it lists
that static reading does not bind in the module become aliases of the same names of the
modules it star-imports, the one whose object is the one bound (a module star-imported in
each branch of an ``if``, ``py2`` or ``py3``, gives the branch taken). A module that fails to
import there, or a probe that fails, changes nothing (logged).
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterable
from typing import Any

import griffe

from docmentor.errors import UsageError
from docmentor.library.surface.api_python_env import PROBE_CLOSE, PROBE_OPEN, run_json
from docmentor.library.surface.module_source import module_text

__all__ = ["computed_exports"]

logger = logging.getLogger(__name__)

MAX_NAMES = 5000  # names of one module's run-time __all__ taken, at most

# run by the library's interpreter (stdlib only): each "module:source1,source2" asked → that
# module's __all__ after import, and for each name the first source module (one its import
# imported) binding the same object
_PROBE = (
    PROBE_OPEN
    + r"""
for asked in sys.argv[2:]:
    mod, _, sources = asked.partition(":")
    try:
        m = importlib.import_module(mod)
        names = [n for n in getattr(m, "__all__") if isinstance(n, str)][:MAX_NAMES]
    except BaseException:  # the import, or no __all__: this module tells nothing
        out[mod] = None
        continue
    # only what importing the module imported: the branch its `if` took (not py2 on Python 3)
    found = [(s, sys.modules[s]) for s in filter(None, sources.split(",")) if s in sys.modules]
    homes = {}
    for n in names:
        o = getattr(m, n, None)
        for source, s in found:
            if o is not None and getattr(s, n, None) is o:
                homes[n] = source
                break
    out[mod] = {"names": names, "from": homes}
""".replace("MAX_NAMES", str(MAX_NAMES))
    + PROBE_CLOSE
)


def computed_exports(python: str, modules: Iterable[Any], paths: list[str], lookup: Any) -> int:
    """Give each of ``modules`` whose ``__all__`` is computed (:func:`_computed`) the
    ``__all__`` the library's interpreter (``python``) gives it, and bind the names it lists
    that it lacks (aliases of its star-imported modules' names); ``lookup`` finds a module by
    its dotted path. Returns how many names were bound."""
    # the deepest first: a package's names are bound through its modules' (funcy: py3's first)
    ordered = sorted((m for m in modules if not m.is_alias), key=lambda m: -m.path.count("."))
    asked = [(mod, _star_sources(mod)) for mod in ordered if _computed(mod)]
    if not asked:
        return 0
    import json

    try:
        found = run_json(python, _PROBE, json.dumps(paths), *(f"{m.path}:{','.join(s)}" for m, s in asked))
    except (UsageError, ValueError) as error:
        logger.info("could not read computed __all__ at run time: %s", error)
        return 0
    if not isinstance(found, dict):
        return 0
    bound = 0
    for mod, _ in asked:
        answer = found.get(mod.path)
        if not isinstance(answer, dict) or not isinstance(answer.get("names"), list):
            continue
        homes = answer.get("from") or {}
        for name in answer["names"]:
            source = homes.get(name)
            if name in mod.members or not isinstance(source, str) or _member(lookup, source, name) is None:
                continue
            mod.set_member(name, griffe.Alias(name, f"{source}.{name}", parent=mod))
            bound += 1
        mod.exports = [str(n) for n in answer["names"]]
    return bound


def _computed(mod: Any) -> bool:
    """Whether a module's ``__all__`` is imported or no literal list or tuple of strings."""
    member = mod.members.get("__all__")
    if member is None:
        return False
    if member.is_alias:
        return True
    value = getattr(member, "value", None)
    if isinstance(value, griffe.ExprList | griffe.ExprTuple):
        return not all(isinstance(e, str) for e in value.elements)
    return value is not None


def _star_sources(mod: Any) -> list[str]:
    """The modules a module star-imports (``from .py3 import *``), at its top level or in an
    ``if`` or ``try`` there, as dotted paths."""
    text = module_text(mod, stubs=False)
    if text is None:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    package = mod.path if mod.is_init_module else mod.path.rpartition(".")[0]
    sources: list[str] = []
    for node in _top_level(tree.body):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            base = package if node.level else ""
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            target = ".".join(p for p in (base, node.module or "") if p)
            if target and target not in sources:
                sources.append(target)
    return sources


def _top_level(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try):
            for branch in (node.body, node.orelse, getattr(node, "finalbody", [])):
                yield from _top_level(branch)
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def _member(lookup: Any, module: str, name: str) -> Any:
    try:
        return lookup(f"{module}.{name}")
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
