"""What the Python surface knows is no API users call, read from structure: marker classes
(no public members nor parameters: sentinels and action markers), instance attributes,
module-level helpers and constants nothing publishes, and module-level functions a
decorator made into CLI command objects (asked of the environment's interpreter, which
imports their modules). The facts go on the entries (``ApiEntry.internal``,
``instance_attribute``, ``command``); ranking and README.LLM decide what they weigh
(:mod:`docmentor.library.surface.api_python_walk`)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import griffe

from docmentor.errors import UsageError
from docmentor.library.models import ApiEntry, ApiReturn
from docmentor.library.surface.api_python_class_decorators import building_decorators
from docmentor.library.surface.api_python_env import run_json

logger = logging.getLogger(__name__)

__all__ = [
    "PROBE_TIMEOUT",
    "Probed",
    "command_objects",
    "is_instance_attribute",
    "is_marker_class",
    "is_sentinel_class",
    "make_command",
    "probed_decorators",
    "registry_name",
    "value_role",
]

PROBE_TIMEOUT = 30.0  # seconds for importing the modules of decorated functions

# exception classes are caught by name in `except` clauses, enumerations' members read by
# name: never markers, whatever members they list
_EXCEPTION_ENDINGS = ("Error", "Exception", "Warning", "Exit", "Abort", "Interrupt", "Enum", "Flag")


def is_instance_attribute(obj: Any) -> bool:
    """An attribute assigned on ``self`` in its class's ``__init__`` (not declared on the class)."""
    return bool(
        obj.is_attribute
        and "instance-attribute" in obj.labels
        and "class-attribute" not in obj.labels
        and "property" not in obj.labels
    )


def is_sentinel_class(cls: Any) -> bool:
    """A class that is its own value: its metaclass is one of its bases (h11's ``class
    CLIENT(Sentinel, metaclass=Sentinel)``, whose metaclass makes the class its own type).
    Users compare with it (``conn.our_role is h11.CLIENT``); they never call it."""
    keywords = dict(getattr(cls, "keywords", None) or {})
    meta = keywords.get("metaclass")
    if meta is None:
        return False
    name = str(meta).rsplit(".", 1)[-1]
    return any(str(b).split("[", 1)[0].rsplit(".", 1)[-1] == name for b in cls.bases)


def is_marker_class(cls: Any, members: dict[str, Any], takes_parameters: bool) -> bool:
    """A class users never construct nor call members of: no ``__init__`` parameters, and no
    public member of its own or inherited from the package; or, with no public method nor
    property, a subclass of the package's classes that are such markers themselves (an
    action class over a marker base, tenacity's ``RetryAction(sleep)``). A class whose
    docstring (or ``__init__``'s) describes its parameters is none: users construct it (rich's
    ``Markdown(markup)`` over a mixin with no members). An exception or enumeration class is never one (users
    catch it, read its members),
    nor a class a decorator builds (its fields are its parameters) or that answers any
    attribute (``__getattr__``), nor one users call, enter, iterate or index (``__call__``,
    ``__enter__``, ``__iter__``, ``__getitem__`` …: a validator, a context manager)."""
    if building_decorators(cls) or "__getattr__" in members or _caught_or_enumerated(cls):
        return False
    if _USED_THROUGH.intersection(members):
        return False  # called, entered, iterated or indexed: a validator, a context manager
    public = {n: m for n, m in members.items() if not n.startswith("_")}
    if not public and not takes_parameters:
        return True
    if takes_parameters and _documents_parameters(cls, members):
        return False  # its docs tell users what to construct it with: rich's Markdown(markup)
    if any(_is_callable_member(m) for m in public.values()):
        return False
    bases = _package_bases(cls)
    return bool(bases) and all(_plain_marker(base) for base in bases)


def _documents_parameters(cls: Any, members: dict[str, Any]) -> bool:
    """Whether the class's docstring or its ``__init__``'s describes parameters."""
    from docmentor.library.surface.api_python_docs import parse_docstring

    init = members.get("__init__")
    docstrings = [
        cls.docstring,
        getattr(init, "docstring", None) if init is not None and not init.is_alias else None,
    ]
    return any(d is not None and parse_docstring(d).params for d in docstrings)


# special methods through which users use instances (`Length(min=1)(value)`, `with X():`)
_USED_THROUGH = frozenset(
    {"__call__", "__enter__", "__aenter__", "__iter__", "__aiter__", "__next__", "__anext__"}
    | {"__getitem__", "__contains__", "__get__", "__set__", "__await__"}
)


def _is_callable_member(member: Any) -> bool:
    target = member
    if member.is_alias:
        try:
            target = member.final_target
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            return True  # unknown: counted as a method, no marker
    return bool(target.is_function or target.is_class or "property" in target.labels)


def _plain_marker(base: Any) -> bool:
    """A package class with no public method or property and no ``__init__`` (or ``__new__``)
    parameters."""
    try:
        members = dict(base.all_members)
    except Exception:  # bases griffe cannot order or resolve
        return False
    if any(_is_callable_member(m) for n, m in members.items() if not n.startswith("_")):
        return False
    if _USED_THROUGH.intersection(members):
        return False
    # what takes the call: `__init__`, or `__new__(cls, value)` when no `__init__` does
    init = members.get("__init__") or members.get("__new__")
    if init is not None and init.is_alias:
        return False
    return init is None or not init.is_function or len(init.parameters) <= 1


def _package_bases(cls: Any) -> list[Any]:
    top = cls.path.split(".")[0]
    try:
        return [b for b in cls.resolved_bases if b.path.split(".")[0] == top]
    except Exception:  # a base griffe cannot resolve
        return []


def _caught_or_enumerated(cls: Any) -> bool:
    names = [str(b).rsplit(".", 1)[-1] for b in cls.bases]
    try:
        names += [b.name for b in cls.mro()]
        names += [str(b).rsplit(".", 1)[-1] for m in cls.mro() for b in m.bases]
    except Exception:  # bases griffe cannot order or resolve: those written are all there is
        pass
    if any(n.endswith(_EXCEPTION_ENDINGS) or n == "BaseException" for n in names):
        return True
    from docmentor.library.surface.api_python_entry import is_exception

    return is_exception(cls)  # a standard library's by another name: `socket.error`, `socket.timeout`


_TYPE_VARIABLES = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple"})


def value_role(obj: Any) -> tuple[str | None, str | None]:
    """What a module-level value is made of, when that makes it no API: ``("sentinel",
    None)`` for ``NO_RESULT = object()``, ``("type variable", None)`` for a ``TypeVar``
    (``WrappedFn = TypeVar("WrappedFn")``); ``(None, path)`` for an instance of a class
    called without arguments (a sentinel when that class is a marker: the caller decides);
    ``(None, None)`` otherwise."""
    value = getattr(obj, "value", None)
    if not isinstance(value, griffe.ExprCall):
        return None, None
    callee = str(value.function).rsplit(".", 1)[-1]
    if callee in _TYPE_VARIABLES:
        return "type variable", None
    if list(value.arguments):
        return None, None
    if callee == "object":
        return "sentinel", None
    path = getattr(value.function, "canonical_path", None)
    return None, path if isinstance(path, str) else None


# -- CLI command objects --------------------------------------------------------------------

# decorators of the language and its standard library that leave a function a function (or
# a wrapper of one): no import is needed to know (a probe costs ~0.5 s)
_PLAIN_DECORATORS = frozenset(
    {"overload", "staticmethod", "classmethod", "property", "abstractmethod", "final", "override"}
    | {"contextmanager", "asynccontextmanager", "wraps", "lru_cache", "cache", "singledispatch"}
    | {"no_type_check", "deprecated", "coroutine"}
)


def probed_decorators(obj: Any) -> bool:
    """Whether a module-level function has a decorator that may make it something else."""
    if not obj.is_function or obj.parent is None or not obj.parent.is_module:
        return False
    return any(
        str(d.value).split("(", 1)[0].rsplit(".", 1)[-1] not in _PLAIN_DECORATORS for d in obj.decorators
    )


# Run by the environment's interpreter: import each module, and for each name say what it
# is after import: nothing when a routine or a wrapper (functools.wraps sets __wrapped__),
# else its class and whether that class has a CLI entry (main/invoke).
_PROBE = r"""
import importlib, inspect, json, sys
sys.path[:0] = json.loads(sys.argv[1])
wanted = json.loads(sys.argv[2])
out = {}
for modname, names in wanted.items():
    try:
        m = importlib.import_module(modname)
    except BaseException as e:
        out[modname] = {"error": "%s: %s" % (type(e).__name__, e)}
        continue
    found = {}
    for name in names:
        o = getattr(m, name, None)
        if o is None or inspect.isroutine(o) or inspect.isclass(o) or hasattr(o, "__wrapped__"):
            continue
        t = type(o)
        cli = any(callable(getattr(t, a, None)) for a in ("main", "invoke"))
        found[name] = {"class": t.__module__ + "." + t.__qualname__, "cli": cli, "runs": callable(o)}
    out[modname] = {"names": found}
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Probed:
    """What a module-level name is after import, when it is no function nor class."""

    cls: str  # its class, `module.qualname`
    cli: bool  # the class has `main` or `invoke`: a command line's entry
    runs: bool  # it is callable (`__call__`): an application object that runs what it holds


def command_objects(
    python: str | None, paths: Iterable[str], names: dict[str, list[str]]
) -> dict[str, Probed]:
    """``module.name`` → what it is after import (:class:`Probed`), for the module-level
    names asked (``{module: [names]}``: decorated functions, the objects decorators
    register functions on) that are objects, not functions, classes or wrappers. The
    modules are imported by ``python`` (this interpreter when None) in a subprocess; a
    module that fails to import, or a probe that fails or takes over PROBE_TIMEOUT seconds,
    tells nothing (logged)."""
    if not names:
        return {}
    try:
        found = run_json(
            python or sys.executable,
            _PROBE,
            json.dumps(list(paths)),
            json.dumps(names),
            timeout=PROBE_TIMEOUT,
        )
    except UsageError as error:
        logger.info("could not import the package to see its decorated functions: %s", error)
        return {}
    out: dict[str, Probed] = {}
    for module, data in found.items() if isinstance(found, dict) else ():
        if not isinstance(data, dict) or "error" in data:
            logger.info("could not import %s: %s", module, (data or {}).get("error"))
            continue
        for name, what in (data.get("names") or {}).items():
            if isinstance(what, dict) and isinstance(what.get("class"), str):
                out[f"{module}.{name}"] = Probed(what["class"], bool(what.get("cli")), bool(what.get("runs")))
    return out


def registry_name(obj: Any) -> str | None:
    """The module-level object a decorator registers this module-level function on
    (``@app.command()`` with ``app = typer.Typer()`` in the module): its name; None when no
    decorator is a member of an object the module assigns (a function, a class or an
    imported module is no registry)."""
    if not obj.is_function or obj.parent is None or not obj.parent.is_module:
        return None
    for decorator in obj.decorators:
        value = decorator.value
        callee = value.function if isinstance(value, griffe.ExprCall) else value
        if not isinstance(callee, griffe.ExprAttribute):
            continue
        first = callee.first
        name = first.name if isinstance(first, griffe.ExprName) else None
        member = obj.parent.members.get(name) if name else None
        if member is not None and not member.is_alias and member.is_attribute:
            return str(name)
    return None


def make_command(entry: ApiEntry, cls: str) -> None:
    """Make a function's entry the command object it is: an attribute of that class, no
    parameters (they are the command line's, not a call's)."""
    entry.command = cls
    entry.kind = "attribute"
    entry.signature = f"{entry.name}: {cls.rsplit('.', 1)[-1]}"
    entry.parameters = []
    entry.returns = ApiReturn(type=cls)
