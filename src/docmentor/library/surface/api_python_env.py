"""Another Python environment, asked through its interpreter.

``load_api(python=…)`` reads that environment's ``sys.path`` and the package's version
from a subprocess (:func:`interpreter_info`). Compiled modules that static analysis cannot
read are imported there by a small stdlib dumper (``_DUMPER``), whose JSON is rebuilt into
griffe objects and attached to the loader's modules. :func:`dist_info` is stdlib only:
it also runs in the other interpreter.
"""

from __future__ import annotations

import inspect
import json
import logging
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import griffe

from docmentor.errors import UsageError

logger = logging.getLogger(__name__)

_SUBPROCESS_TIMEOUT = 60


def dist_info(package: str, paths: list[str]) -> dict[str, Any]:
    """The distribution that provides ``package`` in ``paths`` — or is named so (``PyYAML``,
    ``beautifulsoup4``): its ``version``, its one-line ``summary`` and the top-level
    ``packages`` it installs (``attrs`` installs ``attr`` and ``attrs``; ``PyYAML`` ``_yaml``
    and ``yaml``). Empty when none is found. Stdlib only: it also runs in the other interpreter."""
    import importlib.metadata as md
    import re

    def norm(text: str) -> str:
        return re.sub(r"[-_.]+", "-", text).lower()

    def tops(dist: Any) -> list[str]:
        names = (dist.read_text("top_level.txt") or "").split()
        if not names:
            for f in dist.files or ():
                first = f.parts[0] if f.parts else ""
                if first in ("..", "__pycache__") or first.endswith((".dist-info", ".data", ".egg-info")):
                    continue
                if len(f.parts) > 1 and f.parts[-1].endswith((".py", ".pyi", ".so", ".pyd")):
                    names.append(first)
                elif len(f.parts) == 1 and first.endswith((".py", ".so", ".pyd")):
                    names.append(first.split(".")[0])
        return sorted({n for n in names if n.isidentifier()})

    def found(dist: Any) -> dict[str, Any]:
        # a missing field: None, a warning or KeyError as Python versions go; "in" works everywhere
        summary = (dist.metadata["Summary"] or "") if "Summary" in dist.metadata else ""
        return {
            "name": dist.metadata["Name"] or "",
            "version": dist.version,
            "packages": tops(dist),
            "summary": "" if summary.strip().upper() == "UNKNOWN" else summary,  # old setuptools
        }

    top = package.split(".")[0]
    dists = list(md.distributions(path=list(paths)))
    if "." in package:  # a sub-package (nsp.alpha): the distribution that has its files,
        # or is named so (an editable install lists no files); never its namespace's first
        parts = tuple(package.split("."))
        module = (*parts[:-1], parts[-1] + ".py")
        for dist in dists:
            if any(tuple(f.parts[: len(parts)]) in (parts, module) for f in dist.files or ()):
                return found(dist)
        for dist in dists:
            if norm(dist.metadata["Name"] or "") == norm(package):
                return found(dist)
        return {}
    for dist in dists:
        if norm(dist.metadata["Name"] or "") == norm(top):
            return found(dist)
    for dist in dists:
        names = (dist.read_text("top_level.txt") or "").split()
        if top in names or any(f.parts and f.parts[0].split(".")[0] == top for f in dist.files or ()):
            return found(dist)
    return {}


# The opening and closing of a probe script run by the library's interpreter (stdlib only):
# the answer goes to a copy of stdout taken before any import (a module that replaces or
# closes sys.stdout on import cannot take it), as JSON on its own last line, ``out``.
PROBE_OPEN = r"""
import importlib, json, os, sys
answer = os.dup(1)
sys.path[:0] = json.loads(sys.argv[1])
out = {}
"""
PROBE_CLOSE = r"""
try:
    sys.stdout.flush()
except BaseException:
    pass
with os.fdopen(answer, "w") as channel:
    channel.write("\n" + json.dumps(out) + "\n")
os._exit(0)
"""


def probe_names(
    python: str, script: str, paths: list[str], asked: Iterable[tuple[Any, str]], what: str
) -> dict[str, Any]:
    """What ``script`` (a probe run by ``python`` with ``paths`` first on ``sys.path``) says of
    each (module, name) asked, by ``"module.path:name"``; ``{}`` when the probe fails or
    answers something else (logged as not being able to look at ``what``)."""
    try:
        found = run_json(python, script, json.dumps(paths), *(f"{m.path}:{n}" for m, n in asked))
    except (UsageError, ValueError) as error:
        logger.info("could not look at %s at run time: %s", what, error)
        return {}
    return found if isinstance(found, dict) else {}


def run_json(python: str, script: str, *args: str, timeout: float = _SUBPROCESS_TIMEOUT) -> Any:
    """Run ``python -c script args`` and return the JSON its last output line holds."""
    if not Path(python).exists() and shutil.which(python) is None:
        raise UsageError(f"no Python interpreter at {python}", hint="pass the path of a venv's bin/python")
    python = str(Path(python).absolute()) if "/" in python else shutil.which(python) or python
    try:
        # In an empty folder: `python -c` puts the cwd first on sys.path, and a json.py (or
        # any module) lying in the user's folder must not run in place of the real one.
        with tempfile.TemporaryDirectory(prefix="docmentor-introspect-") as empty:
            proc = subprocess.run(
                [python, "-c", script, *args],
                stdin=subprocess.DEVNULL,  # a module reading stdin on import must not take a server's
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                cwd=empty,
            )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(
            f"cannot run {python}: {error}", hint="pass the path of a venv's bin/python"
        ) from error
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UsageError(f"{python} is not a working Python interpreter: {detail}")
    try:
        return json.loads(lines[-1])
    except ValueError as error:
        raise UsageError(f"{python} printed something unexpected: {lines[-1][:200]}") from error


def interpreter_info(python: str, package: str) -> dict[str, Any]:
    script = (
        "from __future__ import annotations\nimport json, sys\n"
        + "from typing import Any\n"
        + inspect.getsource(dist_info)
        + "\npaths = [p for p in sys.path if p]\n"
        "print(json.dumps({'sys_path': paths, **dist_info(sys.argv[1], paths)}))\n"
    )
    info = run_json(python, script, package)
    info["sys_path"] = [p for p in info.get("sys_path", []) if Path(p).is_dir()]
    return dict(info)


# A pure-stdlib dumper of compiled modules, run by the other interpreter: it imports each
# module there and prints what ``inspect`` sees, in a shape _griffe_object() rebuilds.
_DUMPER = r"""
import importlib, inspect, json, os, re, sys
KINDS = ["positional-only", "positional or keyword", "variadic positional", "keyword-only", "variadic keyword"]
def ann(a):
    if a is inspect.Parameter.empty:
        return None
    if isinstance(a, type):
        return a.__qualname__ if a.__module__ == "builtins" else a.__module__ + "." + a.__qualname__
    return a if isinstance(a, str) else str(a)
def doc(o):
    d = getattr(o, "__doc__", None)
    return inspect.cleandoc(d) if isinstance(d, str) and d.strip() else None
def shown(v):
    # a default as the signature shows it, the same on every run: an object's repr without its
    # address (`<Unset object at 0x7f…>` → `<Unset object>`)
    r = repr(v)
    return re.sub(r" at 0x[0-9a-fA-F]+", "", r) if " at 0x" in r else r
def sig(o):
    try:
        s = inspect.signature(o)
    except (TypeError, ValueError):
        return None
    return {"params": [{"name": p.name, "kind": KINDS[int(p.kind)], "annotation": ann(p.annotation),
                        "default": None if p.default is p.empty else shown(p.default)} for p in s.parameters.values()],
            "returns": ann(s.return_annotation)}
def elsewhere(o, home, mod):
    # Defined in another module that really holds it (pyo3 classes often claim "builtins").
    if not isinstance(home, str) or home == mod or home not in sys.modules:
        return False
    target = sys.modules[home]
    for part in getattr(o, "__qualname__", "?").split("."):
        target = getattr(target, part, None)
    return target is o
def dump(name, o, mod, method):
    home = getattr(o, "__module__", None)
    if not method and elsewhere(o, home, mod):
        return {"kind": "alias", "name": name, "target": "%s.%s" % (home, o.__qualname__)}
    if inspect.isclass(o):
        members = {}
        for n, v in vars(o).items():
            if not n.startswith("_"):
                members[n] = dump(n, v, mod, True)
        init = sig(o)
        if init is not None:
            init["params"].insert(0, {"name": "self", "kind": "positional or keyword", "annotation": None, "default": None})
        else:
            init = {"params": [], "returns": None}
        return {"kind": "class", "name": name, "doc": doc(o), "init": init, "members": members,
                "bases": [b.__qualname__ for b in o.__bases__ if b is not object]}
    if isinstance(o, property) or inspect.isgetsetdescriptor(o) or inspect.ismemberdescriptor(o):
        return {"kind": "property", "name": name, "doc": doc(o)}
    labels = []
    if isinstance(o, (staticmethod, classmethod)):
        labels, o = [type(o).__name__], o.__func__
    if callable(o):
        if inspect.iscoroutinefunction(o) or inspect.isasyncgenfunction(o):
            labels.append("async")
        return {"kind": "function", "name": name, "doc": doc(o), "sig": sig(o), "labels": labels,
                "qualname": "%s:%s" % (getattr(o, "__module__", ""), getattr(o, "__qualname__", ""))}
    try:
        r = repr(o)
    except Exception:
        r = ""
    # a value as written; not an object's repr (`<function f at 0x7f…>`, a long dict of them)
    return {"kind": "attribute", "name": name, "value": r if r and len(r) <= 80 and " at 0x" not in r else None}
def called(o, mod):
    cls = type(o)
    if inspect.isclass(o) or inspect.isroutine(o) or not isinstance(getattr(cls, "__module__", None), str):
        return False
    own = cls.__module__.split(".")[0] == mod.split(".")[0]
    # a private or factory-made class: its instance is how users get at it (a public class's
    # instance, structlog's `format_exc_info = ExceptionRenderer()`, is a value users pass)
    hidden = cls.__name__.startswith("_") or "<locals>" in cls.__qualname__
    return own and hidden and any("__call__" in vars(k) for k in cls.__mro__ if k is not object and k.__module__ == cls.__module__)
sys.path[:0] = json.loads(sys.argv[1])
out = {}
for modname in sys.argv[2:]:
    if ":" in modname:  # "module:name": that name, when it is a class its package made
        mod, _, attr = modname.partition(":")
        try:
            o = getattr(importlib.import_module(mod), attr)
            home = getattr(o, "__module__", None)
            # made by the package (a factory there, namedtuple, Enum(...)); not `type("")`,
            # `type(re.compile(""))`: another's class under a new name
            if inspect.isclass(o) and isinstance(home, str) and home.split(".")[0] == mod.split(".")[0]:
                out[modname] = dump(attr, o, home, False)
            elif called(o, mod):
                # an instance of the package's private class with `__call__` (`rrulestr =
                # _rrulestr()`): called as a function, with its call's signature and docstring
                cls = type(o)
                out[modname] = {"kind": "function", "name": attr, "doc": doc(cls) or doc(cls.__call__),
                                "sig": sig(o), "labels": [], "qualname": "%s:%s" % (cls.__module__, cls.__qualname__)}
            else:
                out[modname] = {"kind": "other"}
        except BaseException as e:  # the import, or a member's repr: this name tells nothing
            out[modname] = {"error": "%s: %s" % (type(e).__name__, e)}
        continue
    try:
        m = importlib.import_module(modname)
    except Exception as e:
        out[modname] = {"error": "%s: %s" % (type(e).__name__, e)}
        continue
    names = getattr(m, "__all__", None) or [n for n in vars(m) if not n.startswith("_")]
    members = {n: dump(n, getattr(m, n), modname, False) for n in names if hasattr(m, n)}
    out[modname] = {"kind": "module", "name": modname.rsplit(".", 1)[-1], "doc": doc(m), "members": members,
                    "exports": list(names) if hasattr(m, "__all__") else None}
# on a line of its own (an imported module may have written without a newline), and no
# atexit handler of theirs writes after it
sys.stdout.write("\n" + json.dumps(out) + "\n")
sys.stdout.flush()
os._exit(0)
"""


def _griffe_object(data: dict[str, Any], collection: Any = None) -> Any:
    kind, name = data["kind"], data["name"]
    docstring = griffe.Docstring(data["doc"]) if data.get("doc") else None
    if kind == "alias":
        return griffe.Alias(name, data["target"])
    if kind in ("module", "class"):
        obj: Any = (
            griffe.Module(name, docstring=docstring, modules_collection=collection)
            if kind == "module"
            else griffe.Class(name, docstring=docstring, bases=data.get("bases", []))
        )
        members = dict(data["members"])
        if kind == "class" and data.get("init"):
            members["__init__"] = {"kind": "function", "name": "__init__", "sig": data["init"]}
        for member_name, member in members.items():
            obj.set_member(member_name, _griffe_object(member))
        if kind == "module":
            obj.exports = data.get("exports")
        return obj
    if kind == "function":
        sig = data.get("sig") or {"params": [], "returns": None}
        params = [
            griffe.Parameter(
                p["name"],
                annotation=p["annotation"],
                kind=griffe.ParameterKind(p["kind"]),
                default=p["default"],
            )
            for p in sig["params"]
        ]
        func = griffe.Function(
            name, parameters=griffe.Parameters(*params), returns=sig["returns"], docstring=docstring
        )
        func.labels.update(data.get("labels", []))
        return func
    attribute = griffe.Attribute(name, value=data.get("value"), docstring=docstring)
    if kind == "property":
        attribute.labels.add("property")
    return attribute


def _compiled_modules(root: Any, collection: Any) -> list[str]:
    """Compiled submodules of ``root``'s package that static analysis could not read."""
    try:
        filepath = root.filepath
    except griffe.BuiltinModuleError:
        return []
    if not isinstance(filepath, Path) or filepath.name not in ("__init__.py", "__init__.pyi"):
        return []
    found = []
    for path in sorted(filepath.parent.rglob("*")):
        if path.suffix not in (".so", ".pyd"):
            continue
        parts = [*path.relative_to(filepath.parent).parent.parts, path.name.split(".")[0]]
        name = ".".join([root.path, *parts])
        if name not in collection and not path.with_name(parts[-1] + ".pyi").exists():
            found.append(name)
    return found


def _attach(dumped: dict[str, Any], collection: Any) -> None:
    for modname, data in dumped.items():
        if "error" in data:
            logger.info("could not inspect %s: %s", modname, data["error"])
            continue
        parent_path, _, name = modname.rpartition(".")
        if parent_path and parent_path in collection:
            collection[parent_path].set_member(name, _griffe_object(data))
        else:
            collection.set_member(modname, _griffe_object(data, collection))


MAX_MADE_CLASSES = 200  # module-level calls asked about at run time, at most


# calls that make no class: not worth importing the package to ask about
_NOT_CLASS_MAKERS = frozenset(
    {"getLogger", "get_logger", "TypeVar", "ParamSpec", "TypeVarTuple", "NewType", "object", "compile",
     "field", "attrib", "ib", "Field", "dict", "list", "set", "frozenset", "tuple", "str", "int", "float",
     "frozendict", "partial", "ContextVar", "Lock", "RLock", "local", "getenv", "get"}
)  # fmt: skip


def inspect_made_classes(python: str, modules: Iterable[Any], paths: list[str]) -> int:
    """The classes a package makes by a call at module level (``Draft202012Validator =
    create(...)``, ``Point = namedtuple(...)``), which static reading takes for attributes:
    each such name of ``modules`` (the package's, walked) is looked up in ``python`` after
    import, and a class its package made replaces the attribute, with its constructor and
    the members it has there. A ``__main__`` module is not imported; a module that fails to
    import, or a probe that fails, changes nothing (logged). Returns how many were replaced."""
    asked = _module_calls(modules)[:MAX_MADE_CLASSES]
    if not asked:
        return 0
    dumped = probe_names(python, _DUMPER, paths, asked, "the module-level calls")
    made: list[tuple[Any, str, dict[str, Any], frozenset[str]]] = []
    called: list[tuple[Any, str, dict[str, Any]]] = []
    for mod, name in asked:
        data = dumped.get(f"{mod.path}:{name}") or {}
        if data.get("kind") == "function":
            if not _decorates(mod, name):  # `app = App()`, `@app.command()`: an application object
                called.append((mod, name, data))
        elif data.get("kind") == "class":
            made_in = frozenset(  # its methods' definitions made in a factory (`create.<locals>.…`)
                str(m.get("qualname"))
                for m in data.get("members", {}).values()
                if "<locals>" in str(m.get("qualname", ""))
            )
            made.append((mod, name, data, made_in))
    # of the classes one factory made, the first one its module exports (else the first):
    # the others' methods and properties are its own under other names, not copies
    canonical: dict[frozenset[str], tuple[str, dict[str, Any]]] = {}
    for mod, name, data, made_in in sorted(made, key=lambda m: not _exported(m[0], m[1])):
        if made_in:
            canonical.setdefault(made_in, (f"{mod.path}.{name}", data))
    for mod, name, data, made_in in made:
        cls = _griffe_object({**data, "name": name})
        first, first_data = canonical.get(made_in, ("", {}))
        if made_in and first != f"{mod.path}.{name}":
            theirs = first_data.get("members", {})
            for member, about in data.get("members", {}).items():
                same = theirs.get(member)
                if same is None or same.get("kind") != about.get("kind"):
                    continue
                # a method of one definition, or a property documented alike; its data (a
                # META_SCHEMA) its own
                one = str(about.get("qualname", "")) in made_in and about.get("qualname") == same.get(
                    "qualname"
                )
                alike = about.get("kind") == "property" and about.get("doc") == same.get("doc")
                if one or alike:
                    cls.set_member(member, griffe.Alias(member, f"{first}.{member}"))
        old = mod.members[name]
        cls.lineno, cls.endlineno = old.lineno, old.endlineno
        mod.set_member(name, cls)
    for mod, name, data in called:
        function = _griffe_object(data)
        old = mod.members[name]
        function.lineno, function.endlineno = old.lineno, old.endlineno
        mod.set_member(name, function)
    return len(made) + len(called)


def _module_calls(modules: Iterable[Any]) -> list[tuple[Any, str]]:
    """The public names ``modules`` bind to a call's result (``Validator = create(...)``)."""
    asked: list[tuple[Any, str]] = []
    for mod in modules:
        try:
            filepath = mod.filepath
        except griffe.BuiltinModuleError:  # compiled, inspected already (or not at all)
            continue
        if not isinstance(filepath, Path) or filepath.suffix != ".py" or mod.name == "__main__":
            continue
        for name, member in mod.members.items():
            if name.startswith("_") or member.is_alias or not member.is_attribute:
                continue
            value = member.value
            if (
                isinstance(value, griffe.ExprCall)
                and str(value.function).rpartition(".")[2] not in _NOT_CLASS_MAKERS
            ):
                asked.append((mod, name))
    return asked


def _decorates(mod: Any, name: str) -> bool:
    """Whether a function or class of ``mod`` is decorated through ``name`` (``@app.command()``,
    ``@app``): ``name`` holds an object that registers them, not a function users call."""
    for member in mod.members.values():
        if member.is_alias or not (member.is_function or member.is_class):
            continue
        for decorator in getattr(member, "decorators", None) or ():
            written = str(decorator.value)
            if written == name or written.startswith((f"{name}.", f"{name}(")):
                return True
    return False


def _exported(mod: Any, name: str) -> bool:
    """Whether ``mod`` or a package above it lists ``name`` in its ``__all__``."""
    while mod is not None:
        if name in {str(e) for e in getattr(mod, "exports", None) or ()}:
            return True
        mod = getattr(mod, "parent", None)
    return False


def inspect_foreign_compiled(python: str, root: Any, loader: griffe.GriffeLoader, paths: list[str]) -> None:
    names = _compiled_modules(root, loader.modules_collection)
    if names:
        _attach(run_json(python, _DUMPER, json.dumps(paths), *names), loader.modules_collection)


def foreign_root(python: str, package: str, loader: griffe.GriffeLoader, paths: list[str]) -> Any:
    """A compiled top-level module of another environment, inspected there; None when absent."""
    dumped = run_json(python, _DUMPER, json.dumps(paths), package)
    if "error" in dumped.get(package, {"error": ""}):
        return None
    _attach(dumped, loader.modules_collection)
    return loader.modules_collection[package]
