"""One griffe object as an API entry: its kind, signature, parameters with their defaults
and descriptions, return type, and what an alias or a partially applied function
stands for (:mod:`docmentor.library.surface.api_python`)."""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any, Literal, NamedTuple

import griffe

from docmentor.library.models import ApiEntry, ApiParameter, ApiReturn
from docmentor.library.surface import deprecation
from docmentor.library.surface.api_python_attrs import attrs_parameters
from docmentor.library.surface.api_python_class_decorators import building_decorators
from docmentor.library.surface.api_python_docs import parse_docstring
from docmentor.library.surface.api_python_namedtuple import namedtuple_parameters
from docmentor.library.surface.docstrings import summary as _summary

_KINDS = {
    "positional-only": "positional-only",
    "positional or keyword": "positional or keyword",
    "variadic positional": "var-positional",
    "keyword-only": "keyword-only",
    "variadic keyword": "var-keyword",
}


def class_members(cls: Any) -> dict[str, Any]:
    """A class's members with the inherited ones; its own when the bases cannot be ordered
    (c3 fails, cycles)."""
    try:
        members = dict(cls.all_members)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError, ValueError):
        return dict(cls.members)
    init = members.get("__init__")
    if init is not None and getattr(init, "lineno", None) == 0 and _dataclass_without_init(cls):
        # griffe writes an `__init__` for every @dataclass, `init=False` ones too: the call is
        # then the nearest base's (h11's `Response`: `_ResponseBase.__init__(*, headers, …)`)
        inherited = _base_init(cls)
        if inherited is None:
            del members["__init__"]
        else:
            members["__init__"] = inherited
    return members


_INIT_FALSE = re.compile(r"\binit\s*=\s*False\b")


def _dataclass_without_init(cls: Any) -> bool:
    """Whether a class is decorated ``@dataclass(init=False, …)``."""
    for decorator in getattr(cls, "decorators", None) or ():
        text = str(decorator.value)
        head = text.split("(", 1)[0].rsplit(".", 1)[-1]
        if head == "dataclass" and _INIT_FALSE.search(text):
            return True
    return False


def _base_init(cls: Any) -> Any | None:
    """The ``__init__`` the nearest base that has one defines (the method resolution order)."""
    try:
        bases = list(cls.mro())
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError, ValueError):
        return None
    for base in bases:
        init = base.members.get("__init__")
        if init is not None and getattr(init, "lineno", None) != 0:
            return init
    return None


_PLAIN_METACLASSES = frozenset({"type", "ABCMeta"})  # they construct as any class does


def _plain_keywords(cls: Any) -> bool:
    """Whether a class statement's keywords leave its construction plain: none, or a metaclass
    that constructs as any class does (``abc.ABCMeta``); another metaclass's ``__call__``, or
    ``__init_subclass__`` keywords, may take arguments."""
    keywords = dict(getattr(cls, "keywords", None) or {})
    meta = keywords.pop("metaclass", None)
    return not keywords and (meta is None or str(meta).rsplit(".", 1)[-1] in _PLAIN_METACLASSES)


def constructor(cls: Any, members: dict[str, Any]) -> Any | None:
    """What takes a class's call (``members``: :func:`class_members`): its ``__init__`` (its
    own or a package base's, aliases followed); without one, its ``__new__`` (anyio's
    ``CapacityLimiter``, ``create_memory_object_stream``), unless a decorator or a metaclass
    may build the class or ``__new__`` passes anything on (``*args, **kwargs``)."""
    init = members.get("__init__")
    if init is not None:
        return alias_target(init)
    if building_decorators(cls) or not _constructed_plainly(cls):
        return None
    new = members.get("__new__")
    new = alias_target(new) if new is not None else None
    if new is None or not new.is_function:
        return None
    kinds = [p.kind for p in list(new.parameters)[1:]]
    if griffe.ParameterKind.var_positional in kinds and griffe.ParameterKind.var_keyword in kinds:
        return None
    return new


# classes whose metaclass takes the call (an enumeration's ``Status(200)`` looks a member up;
# ``Status(…, …)`` is EnumMeta's functional API), by their name as written in ``bases``
_METACLASSED_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})


def _constructed_plainly(cls: Any, depth: int = 0) -> bool:
    """Whether calling a class runs its ``__new__`` / ``__init__`` as written: no metaclass of
    its own nor of a base (an enumeration's, any base with ``metaclass=``) takes the call."""
    if depth > 20 or not _plain_keywords(cls):
        return False
    if any(str(b).split("[", 1)[0].rsplit(".", 1)[-1] in _METACLASSED_BASES for b in cls.bases):
        return False
    try:
        bases = list(cls.resolved_bases)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError, ValueError):
        return True  # bases griffe cannot find are from outside: `tuple`, `object`
    for base in bases:
        base = alias_target(base) if getattr(base, "is_alias", False) else base
        if (
            base is not None
            and getattr(base, "is_class", False)
            and not _constructed_plainly(base, depth + 1)
        ):
            return False
    return True


#: bases from outside that add no members a call could use (typing's markers, ``object``)
_MARKER_BASES = frozenset({"object", "ABC", "Generic", "Protocol", "NamedTuple", "TypedDict"})


def _resolved_bases(cls: Any) -> list[Any] | None:
    """The class's bases griffe found (not those from outside the package); None when they
    cannot be resolved."""
    try:
        return list(cls.resolved_bases)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, RecursionError, ValueError, AttributeError):
        return None  # AttributeError: not a class (a base bound to a module attribute)


def _outside_ancestor(cls: Any, depth: int = 0) -> bool:
    """Whether a class derives, through any base, from a class griffe cannot read (from
    outside the package: ``dict``, ``MutableMapping``), other than a marker base. Drift
    takes a private base's members as merged into its public subclass; this says when that
    list is incomplete (tomlkit's ``TOMLDocument`` has ``pop`` from its private base's
    ``dict``)."""
    bases = _resolved_bases(cls) if depth <= 20 else None
    if bases is None:
        return True
    named = [str(b).split("[", 1)[0].rsplit(".", 1)[-1] for b in cls.bases]
    if len(bases) < len([n for n in named if n not in _MARKER_BASES]):
        return True
    for base in bases:
        base = alias_target(base) if getattr(base, "is_alias", False) else base
        if base is None or not getattr(base, "is_class", False) or _outside_ancestor(base, depth + 1):
            return True
    return False


def _private_base_opens(cls: Any) -> bool:
    """Whether a private base of the class derives from a class outside the package."""
    for base in _resolved_bases(cls) or ():
        base = alias_target(base) if getattr(base, "is_alias", False) else base
        if base is None or not str(getattr(base, "name", "")).startswith("_"):
            continue
        # a private base bound to a value griffe cannot read as a class (setuptools'
        # `_Command = monkey.get_unpatched(distutils.core.Command)`) is from outside too
        if not getattr(base, "is_class", False) or _outside_ancestor(base):
            return True
    return False


def _plain_bases(cls: Any, depth: int = 0) -> bool:
    """Whether every base of a class with no ``__init__`` is a class of the package, itself
    undecorated, without ``__init__``, ``__new__`` or a metaclass, and with plain bases: then
    nothing gives it parameters (``NoneAlgorithm()``).
    A base from outside (``Exception``) or one that cannot be resolved may take some."""
    bases = _resolved_bases(cls) if depth <= 20 else None
    if bases is None:
        return False
    if len(bases) != len(cls.bases):
        return False  # a base griffe could not find: from outside the package
    for base in bases:
        base = alias_target(base) if getattr(base, "is_alias", False) else base
        if (
            base is None
            or not getattr(base, "is_class", False)
            or building_decorators(base)
            or not _plain_keywords(base)
        ):
            return False
        if "__init__" in base.members or "__new__" in base.members or not _plain_bases(base, depth + 1):
            return False
    return True


def alias_target(member: Any) -> Any:
    """The object an alias finally points at; None when it cannot be resolved (external)."""
    if not member.is_alias:
        return member
    try:
        return member.final_target
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def object_at(collection: Any, path: str) -> Any:
    """The object ``path`` names in griffe's ``collection``, through aliases; None when it
    names nothing griffe can follow (a KeyError, an alias it cannot resolve)."""
    try:
        return alias_target(collection[path])
    except Exception:  # KeyError, or griffe failing on a path it cannot follow
        return None


# --- one entry --------------------------------------------------------------------------------


def api_entry(obj: Any) -> ApiEntry:
    if obj.is_function and "property" not in obj.labels and property_like(obj):
        obj.labels.add("property")  # read as griffe reads `@property` and `@functools.cached_property`
    getter = property_call(obj)
    entry = _callable_value(obj) or _plain_entry(obj, getter)
    entry.deprecated = deprecation.reason(
        obj,
        obj.docstring.value if obj.docstring else "",  # its own: an inherited note is its base's
        (p.name for p in entry.parameters),
        takes_kwargs=any(p.kind == "var-keyword" for p in entry.parameters),
    )
    return entry


def property_like(function: Any) -> bool:
    """Whether a method is made a property by a decorator of its own kind: werkzeug's
    ``@cached_property`` (a subclass of ``property``), a ``@lazy_property``: its name ends in
    ``property`` (``@x.setter`` is the setter of one)."""
    for d in function.decorators:
        try:
            path = d.callable_path
        except Exception:  # griffe: an expression it cannot name
            continue
        if path.rsplit(".", 1)[-1].lower().endswith("property"):
            return True
    return False


def property_call(obj: Any) -> Any | None:
    """The getter of a class attribute made by calling ``property`` (``display_name =
    property(get_display_name)``, ``property(fget=…, doc="…")``): the attribute is then
    labelled a property (writable when a setter is given), and takes the call's ``doc`` text,
    else the getter's docstring, when it has none of its own. None for anything else."""
    value = getattr(obj, "value", None)
    if not obj.is_attribute or obj.parent is None or not obj.parent.is_class:
        return None
    if not isinstance(value, griffe.ExprCall) or str(value.function) not in ("property", "builtins.property"):
        return None
    getter: Any = None
    doc: Any = None
    setter = False
    for k, argument in enumerate(value.arguments):
        if isinstance(argument, griffe.ExprKeyword):
            getter = argument.value if argument.name == "fget" else getter
            doc = argument.value if argument.name == "doc" else doc
            setter = setter or (argument.name == "fset" and str(argument.value) != "None")
        elif k == 0:
            getter = argument
        elif k == 1:  # property(fget, fset, fdel, doc)
            setter = str(argument) != "None"
        elif k == 3:
            doc = argument
    function = obj.parent.members.get(str(getter)) if getter is not None else None
    if function is None or function.is_alias or not function.is_function:
        return None
    obj.labels.add("property")
    if setter:
        obj.labels.add("writable")
    if not obj.docstring:
        text = _string_literal(str(doc)) if doc is not None else None
        docstring = text or (function.docstring.value if function.docstring else "")
        if docstring:
            obj.docstring = griffe.Docstring(docstring, parent=obj)
    return function


def _string_literal(text: str) -> str | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def _made(cls: Any, init: Any) -> ApiReturn | None:
    """What calling a class gives when its ``__new__`` returns something else than an
    instance of it (anyio's ``create_memory_object_stream(…) -> tuple[Send, Receive]``);
    None for an instance of the class, the usual."""
    if init is None or not init.is_function or init.name != "__new__" or init.returns is None:
        return None
    text = str(init.returns)
    head = text.strip("'\"").split("[", 1)[0].rsplit(".", 1)[-1]
    owner = getattr(init.parent, "name", cls.name)  # the class defining __new__ (a base's: an instance)
    if not head or head in (cls.name, owner, "Self", "cls") or _type_variable(init, head):
        return None
    said = parse_docstring(init.docstring).returns or parse_docstring(cls.docstring).returns
    return ApiReturn(type=text, description=said)


def _type_variable(obj: Any, name: str) -> bool:
    """Whether ``name`` is a type variable of ``obj``'s module (``_T = TypeVar("_T")``)."""
    module = obj
    while module is not None and not getattr(module, "is_module", False):
        module = getattr(module, "parent", None)
    bound = getattr(module, "members", {}).get(name) if module is not None else None
    value = str(getattr(bound, "value", "") or "") if bound is not None and not bound.is_alias else ""
    return value.split("(", 1)[0].rsplit(".", 1)[-1] in ("TypeVar", "ParamSpec", "TypeVarTuple")


def _abstract(members: dict[str, Any]) -> bool:
    """Whether a class's members (its own and inherited, the nearest first) leave a method
    abstract (``@abstractmethod``): ``Cls()`` raises TypeError."""
    for member in members.values():
        try:
            target = alias_target(member)
        except Exception:  # griffe failing on a name it cannot follow
            continue
        decorators = getattr(target, "decorators", None) or ()
        if any(str(d.value).rsplit(".", 1)[-1] == "abstractmethod" for d in decorators):
            return True
    return False


def _with_ancestors(obj: Any) -> list[Any]:
    """A class and the package's classes it derives from, in method resolution order."""
    try:
        return [obj, *obj.mro()]
    except Exception:  # bases griffe cannot order or resolve
        return [obj]


def is_exception(obj: Any) -> bool:
    """Whether a class derives from a built-in exception or one of the standard library's
    (``socket.timeout``, ``concurrent.futures.TimeoutError``), through the package's classes."""
    for cls in _with_ancestors(obj):
        for base in getattr(cls, "bases", None) or ():
            found = getattr(builtins, str(base).rsplit(".", 1)[-1], None)
            if not (isinstance(found, type) and issubclass(found, BaseException)):
                found = standard_class(str(getattr(base, "canonical_path", None) or base))
            if isinstance(found, type) and issubclass(found, BaseException):
                return not issubclass(found, Warning)  # a warning is issued, not raised
    return False


# standard modules whose import does something besides defining names (opens a browser,
# prints, starts a GUI): never imported to look a class up
_UNIMPORTED = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "__main__"})


@functools.lru_cache(maxsize=512)
def standard_class(path: str) -> type | None:
    """The standard library's class a dotted path names (``socket.timeout``), imported in
    this process; None for any other path, or one that does not import here. The path comes
    from the library read: never a ``__main__`` module (``unittest.__main__`` runs tests on
    import), a private one, or one of :data:`_UNIMPORTED`."""
    module, _, name = path.split("[", 1)[0].rpartition(".")
    parts = module.split(".")
    if (
        not module
        or parts[0] not in sys.stdlib_module_names
        or parts[0] in _UNIMPORTED
        or any(p.startswith("_") or not p.isidentifier() for p in parts)
        or not name.isidentifier()
    ):
        return None
    try:
        found = getattr(importlib.import_module(module), name, None)
    except (Exception, SystemExit):  # a platform's module (`winreg`), a failing import: not known
        return None
    return found if isinstance(found, type) else None


def is_enum(obj: Any) -> bool:
    """Whether a class is an enumeration: one of its classes (through the package's) has a
    base from the standard library's ``enum`` (``enum.Flag``, ``from enum import IntEnum``),
    not a class of the package that is merely named so."""
    for cls in _with_ancestors(obj):
        for base in getattr(cls, "bases", None) or ():
            path = str(getattr(base, "canonical_path", None) or base).split("[", 1)[0]
            if path.startswith("enum.") and path.rsplit(".", 1)[-1] in _METACLASSED_BASES:
                return True
    return False


EXTRA = "docmentor"  # our key in griffe's per-object ``extra`` data


def enum_aliases(cls: Any) -> dict[str, Any]:
    """An enumeration's aliases, name → the member they are another name of, as Python makes
    them: a later name for a value an earlier member has (``{}`` for a class that is no
    enumeration). Read statically, a value is known equal when both names are targets of
    one assignment (``IGNORECASE = IC = 1 << 6``) or both are the same literal (``INT = 0``
    after ``DEFAULT = 0``); an enumeration whose values its own ``__new__`` makes (Python's
    "AutoNumber" recipe: ``RED = ()``, ``GREEN = ()``) has none known. Only the class's own
    class-level names count, not what ``__init__`` sets on each member. Computed once a class."""
    cached = cls.extra[EXTRA].get("enum_aliases")
    if cached is None:
        cached = cls.extra[EXTRA]["enum_aliases"] = _enum_aliases(cls) if is_enum(cls) else {}
    return dict(cached)


def _enum_aliases(cls: Any) -> dict[str, Any]:
    if any("__new__" in getattr(c, "members", {}) for c in _with_ancestors(cls)):
        return {}
    chained = {name: group[0] for group in _chained_names(cls) for name in group[1:]}
    first: dict[tuple[Any, ...], Any] = {}
    own: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for name, member in list(cls.members.items()):
        if (
            name.startswith("_")
            or getattr(member, "is_alias", False)
            or not getattr(member, "is_attribute", False)
            or "class-attribute" not in member.labels  # set by __init__ on each member
        ):
            continue
        own[name] = member
        if name in chained and chained[name] in own:
            out[name] = out.get(chained[name], own[chained[name]])
            continue
        literal = _literal_value(str(member.value)) if member.value is not None else _NO_VALUE
        if literal is _NO_VALUE:
            continue
        key = (type(literal), literal)
        if key in first:
            out[name] = first[key]
        else:
            first[key] = member
    return out


def _chained_names(cls: Any) -> list[list[str]]:
    """The names of each assignment of the class body with several targets (``A = B = …``),
    in order; none when its source cannot be read."""
    try:
        lines = _source_lines(str(cls.filepath))[cls.lineno - 1 : cls.endlineno]
        tree = ast.parse(textwrap.dedent("\n".join(lines)))
    except (
        OSError,
        ValueError,
        TypeError,
        SyntaxError,
        RecursionError,
        MemoryError,
        griffe.BuiltinModuleError,
    ):
        return []  # no source file (compiled, inspected), or none ast reads
    body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef)), [])
    return [
        [t.id for t in node.targets if isinstance(t, ast.Name)]
        for node in body
        if isinstance(node, ast.Assign) and len(node.targets) > 1
    ]


def _said_as_parameter(member: Any) -> str:
    """What the class's docstring (or its constructor's) says of the constructor parameter a
    wordless property is named after: lark's ``Tree(data, children, meta)`` documents ``meta:
    Line & Column numbers…`` under Parameters, and its ``meta`` property, which returns it,
    has no docstring. "" when the constructor takes no such parameter.

    Only properties: given to plain attributes too (``self.label = label``), the words made
    data rival the methods a task asks for (2026-11-30, every find_api set: 5 up, 6 down,
    click 0.8467 → 0.8133, watchdog 0.5106 → 0.4814); properties alone moved no set."""
    cls = member.parent
    said = cls.extra[EXTRA].get("parameter_words")
    if said is None:  # once a class: parsing its docstrings is what costs
        said = cls.extra[EXTRA]["parameter_words"] = _parameter_words(cls)
    return str(said.get(member.name, ""))


def _said_of_field(member: Any) -> str:
    """What the class's docstring says of a field of a named tuple or an attrs class, whose
    generated constructor takes it as the parameter the docstring documents (wcwidth's
    ``HyperlinkParams``: ``:param url: The hyperlink URL.`` over ``url: str``). Only such
    fields: a plain attribute named as a parameter may hold anything (see
    :func:`_said_as_parameter`)."""
    cls = member.parent
    said = cls.extra[EXTRA].get("field_words")
    if said is None:  # once a class
        said = cls.extra[EXTRA]["field_words"] = _field_words(cls)
    return str(said.get(member.name, ""))


def _field_words(cls: Any) -> dict[str, str]:
    """A named tuple's or attrs class's fields → the summary of what its docstring says of
    each as a parameter (only those it describes)."""
    if cls.docstring is None or "__init__" in cls.members:
        return {}
    try:
        fields = attrs_parameters(cls) or namedtuple_parameters(cls)
    except Exception:  # griffe failing on a base or an alias it cannot follow
        return {}
    names = {p.name for p in fields or ()}
    if not names:
        return {}
    return {n: _summary(t) for n, t in parse_docstring(cls.docstring).params.items() if n in names and t}


def _parameter_words(cls: Any) -> dict[str, str]:
    """The class's constructor parameters → the summary of what the class's docstring, else
    its constructor's, says of each (only those one of them describes)."""
    try:
        init = constructor(cls, class_members(cls))
    except Exception:  # griffe failing on a base or an alias it cannot follow
        return {}
    if init is None or not init.is_function:
        return {}
    names = {p.name for p in init.parameters}
    out: dict[str, str] = {}
    for doc in (init.docstring, cls.docstring):  # the class's words win
        if doc is not None:
            out.update({n: _summary(t) for n, t in parse_docstring(doc).params.items() if n in names and t})
    return out


def _said_of_other_names(member: Any) -> str:
    """What an enumeration says of a member under its other names: its ``Attributes``
    section (natsort's `DEFAULT = 0` is documented as `INT, I`), or an alias's own docstring."""
    cls = member.parent
    others = [n for n, m in enum_aliases(cls).items() if m.path == member.path]
    documented = parse_docstring(cls.docstring).attributes if others and cls.docstring else {}
    for name in others:
        own = getattr(cls.members.get(name), "docstring", None)
        said = documented.get(name) or (_summary(own.value) if own is not None else "")
        if said:
            return said
    return ""


_NO_VALUE = object()


def _literal_value(text: str) -> Any:
    """The value of a short literal (``0``, ``'utf-8'``, ``-1``); :data:`_NO_VALUE` for an
    expression (``auto()``, ``1 << next(counter)``) or an unhashable one."""
    if len(text) > 200:
        return _NO_VALUE
    try:
        value = ast.literal_eval(text)
        hash(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NO_VALUE
    return value


def _inherited_docstring(obj: Any) -> Any:
    """A class's docstring when neither it nor its ``__init__`` has one: that of its nearest
    base of the same name in the package, the same thing at another layer (Flask's
    ``flask.Blueprint`` subclasses ``flask.sansio.blueprints.Blueprint``, where the text and
    the parameter descriptions are). A base of another name describes the base (httpx's
    ``DigestAuth`` would read "Base class for all authentication schemes"); so would an
    override's base method (lancedb's query builders: each override counted the one text
    again, find_api MRR 0.788 → 0.738). None when there is no such base."""
    try:
        return next((b.docstring for b in obj.mro() if b.name == obj.name and b.docstring), None)
    except Exception:  # bases griffe cannot order or resolve (outside the package, cyclic)
        return None


def _sole_class_module_docstring(obj: Any) -> str:
    """The docstring of a class's module when the class is all that module defines for
    users: not a package's ``__init__``, no other public class, function or value of its own,
    nothing else in its ``__all__`` (pexpect's ``popen_spawn``: "Provides an interface like
    pexpect.spawn interface using subprocess.Popen" over an undocumented ``PopenSpawn``).
    Only the class's description reads it: its docstring stays empty, so the module keeps
    its examples and no "internal use" note of the module's marks the class. "" otherwise."""
    module = obj.parent
    if module is None or not module.is_module or getattr(module, "is_init_module", True):
        return ""
    text = module.docstring.value.strip() if module.docstring else ""
    if not text:
        return ""
    for name, member in module.members.items():
        if member is obj or name.startswith("_") or member.is_alias:
            continue
        return ""  # another class, function or value the module defines
    exports = getattr(module, "exports", None)
    if exports and any(str(getattr(e, "name", e)) != obj.name for e in exports):
        return ""
    return text


def _file_of(obj: Any) -> str | None:
    """The file, relative to its package, that defines ``obj`` where its line is: the ``.pyi``
    stub beside a module for a member only the stub declares (griffe merges a stub's members
    into the module's objects, each with its line in the stub: pydash's `AllFuncs.nest`, at a
    line of `all_funcs.pyi` past the end of `all_funcs.py`)."""
    try:
        relative = obj.relative_package_filepath
        path = obj.filepath
    except (ValueError, griffe.BuiltinModuleError, AttributeError):
        return None
    line = getattr(obj, "lineno", None)
    if (
        isinstance(path, Path)
        and path.suffix == ".py"
        and not obj.is_module
        and line
        and path.with_suffix(".pyi").is_file()
        and not _named_near(str(path), line, obj.name)
    ):
        return str(Path(relative).with_suffix(".pyi"))
    return str(relative)


def _named_near(path: str, line: int, name: str) -> bool:
    """Whether the source's line ``line``, or one of the few below it (under decorators), names
    ``name``."""
    try:
        lines = _source_lines(path)
    except OSError:
        return True
    return any(name in text for text in lines[line - 1 : line + 10])


def _source_lines(path: str) -> tuple[str, ...]:
    """A source file's lines (the loader keeps no source: entries are built module by module,
    so a few files are read again at most; a changed file is read anew)."""
    return _read_lines(path, os.stat(path).st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _read_lines(path: str, mtime: int) -> tuple[str, ...]:
    with open(path, encoding="utf-8", errors="replace") as f:
        return tuple(f.read().split("\n"))


def _docstring_line(doc: Any) -> int | None:
    """The source line of a docstring's first line as griffe gives its text: the line of its
    opening quotes, or the next line with text when those quotes stand alone (griffe drops
    the blank start, as ``inspect.cleandoc`` does). None when griffe knows no line."""
    line = getattr(doc, "lineno", None)
    if not line:
        return None
    try:
        lines = _source_lines(str(doc.parent.filepath))
    except Exception:  # inspected (no source), or no file: the quotes' line
        return int(line)
    if 0 < line <= len(lines):
        head = lines[line - 1].strip().lstrip("rRbBuU")
        for quote in ('"""', "'''", '"', "'"):
            if head.startswith(quote):
                head = head[len(quote) :]
                break
        if not head.strip():
            line += 1
            while line <= len(lines) and not lines[line - 1].strip():
                line += 1
    return int(line)


def _docstring_line_in(doc: Any, obj: Any) -> int | None:
    """:func:`_docstring_line` of ``doc`` when it is in ``obj``'s file, else None."""
    parent = getattr(doc, "parent", None)
    return _docstring_line(doc) if parent is not None and parent.filepath == obj.filepath else None


_BOUND_KINDS = ("positional-only", "positional or keyword")


def aliased_function(obj: Any) -> Any:
    """The package's function (or, in a class body, the same class's method; or the method of
    a module-level instance) an unannotated attribute is another name for; None for anything
    else (see :func:`_callable_value`)."""
    found = _aliased(obj)
    return None if found is None else found.function


class _Alias(NamedTuple):
    function: Any
    bound: dict[str, str]  # keyword defaults a functools.partial binds
    instance: bool = False  # a method bound to a module-level instance: called without self


_FINAL = re.compile(r"(?:typing(?:_extensions)?\.|t\.)?Final")


def _aliased(obj: Any) -> _Alias | None:
    """:func:`aliased_function`, and the keyword defaults a ``functools.partial`` binds:
    ``frozen = partial(define, frozen=True, on_setattr=None)`` is ``define`` with
    ``frozen`` and ``on_setattr`` defaulting so (attrs); and whether it is a method of a
    module-level instance of one of the package's classes (cattrs' ``structure =
    global_converter.structure``, ``global_converter = Converter()``)."""
    if not obj.is_attribute or obj.parent is None or "property" in obj.labels:
        return None
    annotation = getattr(obj, "annotation", None)
    value = getattr(obj, "value", None)
    if annotation is not None and not _FINAL.fullmatch(str(annotation)):
        # `handler: Callable = get_logger`: a typed setting that holds a function (a bare
        # `Final` says it is not rebound, not what it holds: cattrs' `get_structure_hook:
        # Final = global_converter.get_structure_hook` is that method). A module-level
        # instance's method typed as a protocol of its call is that method (blinker's
        # `signal: _PNamespaceSignal = default_namespace.signal`)
        if str(annotation).split("[", 1)[0].rsplit(".", 1)[-1] == "Callable" or obj.parent.is_class:
            return None
        method = _instance_method(obj, value) if isinstance(value, griffe.ExprAttribute) else None
        return None if method is None else _Alias(method, {}, instance=True)
    bound: dict[str, str] = {}
    if isinstance(value, griffe.ExprCall) and _named(value.function) in ("partial", "functools.partial"):
        if obj.parent.is_class:
            return None  # a partial in a class body does not bind self: no method (partialmethod)
        args = list(value.arguments)
        if not args or not isinstance(args[0], griffe.ExprName | griffe.ExprAttribute):
            return None
        for extra in args[1:]:
            if not isinstance(extra, griffe.ExprKeyword):
                return None  # a bound positional argument: the signature is not simply the function's
            bound[extra.name] = str(extra.value)
        value = args[0]
    if not isinstance(value, griffe.ExprName | griffe.ExprAttribute):
        return None
    function = _resolved(obj, value)
    if function is None and not bound and not obj.parent.is_class:
        method = _instance_method(obj, value)
        return None if method is None else _Alias(method, {}, instance=True)
    if function is None or function.path.split(".")[0] != obj.path.split(".")[0]:
        return None  # only the package's own: `dumps = json.dumps` is no API of it
    if not function.is_function or "property" in function.labels:
        return None
    takes = {p.name for p in function.parameters if p.kind is None or p.kind.value not in _VARIADIC}
    if any(name not in takes for name in bound):
        return None  # a keyword the function does not name (it has **kwargs): not shown
    owner = function.parent if function.parent is not None and function.parent.is_class else None
    if obj.parent.is_class:
        # `info = msg` in a class body: a method under another name (structlog's loggers);
        # `handler = some_function` there is a function stored on the class: left as data
        return _Alias(function, bound) if owner is not None and owner.path == obj.parent.path else None
    return _Alias(function, bound) if owner is None else None


def bound_method(obj: Any) -> Any:
    """The method a module attribute names on a module-level instance of one of the
    package's classes (PyJWT's ``encode = _jwt_global_obj.encode``): that method's griffe
    object, whose path is where ``jwt.encode`` is defined; None for anything else."""
    found = _aliased(obj) if obj.is_attribute and obj.parent is not None and obj.parent.is_module else None
    return found.function if found is not None and found.instance else None


def _instance_method(obj: Any, value: Any) -> Any:
    """The method ``value`` names on a module-level instance of one of the package's classes
    (``global_converter.structure``, ``global_converter = Converter()`` in ``obj``'s module);
    None for anything else."""
    if not isinstance(value, griffe.ExprAttribute) or len(value.values) != 2:
        return None
    holder, attribute = value.values
    if not isinstance(holder, griffe.ExprName) or not isinstance(attribute, griffe.ExprName):
        return None
    instance = obj.parent.members.get(holder.name)
    try:
        instance = alias_target(instance) if instance is not None else None
    except Exception:  # griffe failing on a name it cannot follow
        return None
    made = getattr(instance, "value", None) if instance is not None and instance.is_attribute else None
    if not isinstance(made, griffe.ExprCall) or not isinstance(
        made.function, griffe.ExprName | griffe.ExprAttribute
    ):
        return None
    cls = _resolved(instance, made.function)
    top = obj.path.split(".")[0]
    if cls is None or not cls.is_class or cls.path.split(".")[0] != top:
        return None  # an instance of another package's class: its methods are no API of this one
    method = class_members(cls).get(attribute.name)
    method = alias_target(method) if method is not None else None
    if method is None or not method.is_function or "property" in method.labels:
        return None
    return method if method.path.split(".")[0] == top else None


_VARIADIC = ("variadic positional", "variadic keyword")


def _partially_applied(params: list[Any], bound: dict[str, str]) -> list[Any]:
    """The parameters of ``partial(f, **bound)``, as ``inspect.signature`` gives them: a
    bound one takes its new default and becomes keyword-only, and so does every positional
    one after it (``partial(f, b=2)`` of ``f(a, b, c)`` is ``(a, *, b=2, c)``)."""
    keyword_only = griffe.ParameterKind.keyword_only
    out: list[Any] = []
    after = False
    for p in params:
        kind = p.kind
        if p.name in bound or (after and kind is not None and kind.value == "positional or keyword"):
            after = True
            kind = keyword_only
        default = bound.get(p.name, p.default)
        out.append(griffe.Parameter(p.name, annotation=p.annotation, kind=kind, default=default))
    # keyword-only ones go after *args (Python's order), before **kwargs
    rank = {"positional-only": 0, "positional or keyword": 1, "variadic positional": 2, "keyword-only": 3}
    return sorted(out, key=lambda p: rank.get(getattr(p.kind, "value", ""), 4))


def _named(expr: Any) -> str:
    """The name an expression is written with (``partial``, ``functools.partial``)."""
    return str(expr) if isinstance(expr, griffe.ExprName | griffe.ExprAttribute) else ""


def _resolved(obj: Any, value: Any) -> Any:
    """What a name in ``obj``'s value denotes: by its canonical path, else (a value griffe
    read from a stub, where the path stays bare: attrs' ``mutable = define``) by the name
    in ``obj``'s own module or class."""
    try:
        return alias_target(obj.modules_collection[value.canonical_path])
    except Exception:  # a name griffe cannot resolve, or one outside what it loaded
        pass
    if isinstance(value, griffe.ExprName):
        member = obj.parent.members.get(value.name)
        if member is not None and member is not obj:
            try:
                return alias_target(member)
            except Exception:
                return None
    return None


def _callable_value(obj: Any) -> ApiEntry | None:
    """A module attribute that is another name for one of the package's functions
    (structlog's ``getLogger = get_logger``), or a class attribute that is another name for
    one of its methods (``info = msg``): a function or method named as the attribute, with
    that one's signature, and the attribute's docstring or else the function's. None for
    anything else.

    An instance of a class with ``__call__`` stays data: users pass it far more often than
    they call it (click's ``type=click.INT``, structlog's ``processors=[format_exc_info]``);
    as functions, click's six param types cost its task set a first place."""
    found = _aliased(obj)
    if found is None:
        return None
    function, bound, instance = found
    # a method of a module-level instance is called as a function: without self
    owner = (
        function.parent if function.parent is not None and function.parent.is_class and not instance else None
    )
    params = _partially_applied(list(function.parameters), bound) if bound else list(function.parameters)
    own = obj.docstring.value if obj.docstring else ""
    doc = obj.docstring or function.docstring
    descriptions, returns_doc, types, returns_type, _ = parse_docstring(function.docstring or doc)
    returns = str(function.returns) if function.returns is not None else None
    source_file = _file_of(obj)
    docstring = own or (doc.value if doc else "")
    prefix = "async " if "async" in function.labels else ""
    # a method's signature as written (with self), its parameters without it, as for methods;
    # an instance's method is a function of its parameters without self
    is_method = (owner is not None or instance) and "staticmethod" not in function.labels
    first_kind = getattr(params[0].kind, "value", None) if params else None
    shown = params[1:] if is_method and first_kind in _BOUND_KINDS else params
    return ApiEntry(
        api_id=obj.path,
        name=obj.name,
        kind="method" if owner is not None else "function",
        parent=owner.path if owner is not None else None,
        signature=prefix + _signature(obj.name, shown if instance else params, returns),
        parameters=_parameters(shown, descriptions, types),
        returns=ApiReturn(type=returns or returns_type, description=returns_doc),
        description=_summary(docstring),
        docstring=docstring,
        # the function's text is in its own file, maybe not the attribute's
        docstring_line=_docstring_line(obj.docstring) if own else _docstring_line_in(doc, obj),
        source_file=source_file,
        line=obj.lineno,
    )


def _context_manager(function: Any) -> str | None:
    """``"sync"`` or ``"async"`` for a function ``contextlib``'s ``@contextmanager`` or
    ``@asynccontextmanager`` makes a context manager of; None for any other."""
    for decorator in function.decorators:
        name = str(decorator.value).split("(", 1)[0].rsplit(".", 1)[-1]
        if name == "contextmanager":
            return "sync"
        if name == "asynccontextmanager":
            return "async"
    return None


# the generator a @contextmanager function is written as: what it yields is its first argument
_GENERATOR_TYPE = re.compile(
    r"(?:typing\.|t\.|collections\.abc\.)?(?:Async)?(?:Generator|Iterator|Iterable)\["
)


def _managed_type(kind: str, returns: str | None) -> str:
    """What calling a ``@contextmanager`` function gives: ``ContextManager[X]`` for its
    ``Generator[X, None, None]`` (``AsyncContextManager[X]`` for an async one)."""
    text = returns or ""
    found = _GENERATOR_TYPE.match(text)
    held, depth = "", 0
    if found:
        for i in range(found.end(), len(text)):  # up to the first top-level comma or bracket
            c = text[i]
            if c == "[":
                depth += 1
            elif c in "],":
                if depth == 0:
                    held = text[found.end() : i].strip()
                    break
                if c == "]":
                    depth -= 1
    name = "AsyncContextManager" if kind == "async" else "ContextManager"
    return f"{name}[{held}]" if held else name


def doc_comment(obj: Any) -> tuple[str, int] | None:
    """The Sphinx doc comment of an attribute, and its first line: ``#:`` lines right above
    its assignment (``#: The name of this signal.``), or one after it on its line (``x = 1
    #: the default``); None without one. What autodoc shows as the attribute's docstring
    (Flask documents its app's settings so)."""
    try:
        lines = _source_lines(str(obj.filepath))
        k = obj.lineno - 1
    except Exception:  # no source (a builtin, a compiled module), or griffe cannot say
        return None
    if not 0 <= k < len(lines):
        return None
    after = _trailing_doc_comment(lines[k]) if "#:" in lines[k] else None
    if after is not None:
        return after, k + 1
    above: list[str] = []
    j = k - 1
    while j >= 0 and lines[j].lstrip().startswith("#:"):
        above.append(lines[j].lstrip()[2:].strip())
        j -= 1
    return ("\n".join(reversed(above)).strip(), j + 2) if above else None


def _trailing_doc_comment(line: str) -> str | None:
    """The text of a ``#:`` comment after code on ``line`` (``x = 1  #: the default``,
    ``name: str  #: The name.``), read as Python reads it: not a ``#:`` inside a string
    (``URL = "http://x/#:frag"``); None when there is none."""
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):  # a line of a longer statement
        return None
    for k, token in enumerate(tokens):
        if token.type == tokenize.COMMENT and token.string.startswith("#:") and k > 0:
            return token.string[2:].strip()
    return None


def _plain_entry(obj: Any, getter: Any = None) -> ApiEntry:
    docstring = obj.docstring.value if obj.docstring else ""
    commented = doc_comment(obj) if obj.is_attribute and not docstring else None
    descriptions, returns_doc, types, returns_type, attributes = parse_docstring(obj.docstring)
    source_file = _file_of(obj)
    common: dict[str, Any] = {
        "api_id": obj.path,
        "name": obj.name,
        "docstring": docstring,
        "docstring_line": _docstring_line(obj.docstring) if docstring else None,
        "source_file": source_file,
        "line": obj.lineno,
    }
    if commented is not None and commented[0]:
        docstring = common["docstring"] = commented[0]
        common["docstring_line"] = commented[1]
    parent = obj.parent.path if obj.parent is not None and obj.parent.is_class else None
    if obj.is_module:
        return ApiEntry(kind="module", description=_summary(docstring), **common)
    if obj.is_class:
        members = class_members(obj)
        init = constructor(obj, members)
        if init is not None and init.is_function and len(init.parameters):
            params = list(init.parameters)[1:]
            from_init = parse_docstring(init.docstring)
            descriptions = {**from_init.params, **descriptions}
            types = {**from_init.types, **types}
            if not docstring and init.docstring:  # the class's text is its __init__'s
                docstring = init.docstring.value
                common["docstring_line"] = _docstring_line(init.docstring)
            elif (  # both: the __init__'s examples too, when the class defines it (not each subclass)
                init.docstring
                and init.docstring.value.strip()
                and getattr(init.parent, "path", None) == obj.path
            ):
                common["init_docstring"] = init.docstring.value
                common["init_docstring_line"] = _docstring_line(init.docstring)
            signature = _signature(obj.name, params, None)
        elif init is None and (fields := attrs_parameters(obj)) is not None:
            # attrs writes the __init__ from the fields (trio's CancelScope, StapledStream)
            params = fields
            signature = _signature(obj.name, params, None)
        elif init is None and (fields := namedtuple_parameters(obj)) is not None:
            # a named tuple's fields (cachetools' CacheInfo, in its stub a NamedTuple)
            params = fields
            signature = _signature(obj.name, params, None)
        else:  # unknown when inherited from outside the package, compiled without a signature,
            # or made by a class decorator (@dataclass: the fields are its parameters)
            params = []
            plain = (
                init is None
                and not building_decorators(obj)
                and "__new__" not in obj.members
                and _plain_keywords(obj)  # metaclass=…: its __call__ may take some
                and _plain_bases(obj)
            )
            signature = f"{obj.name}()" if plain else f"{obj.name}(...)"
        if not docstring:  # nor its __init__: its same-named base's
            inherited = _inherited_docstring(obj)
            if inherited is not None:
                docstring = inherited.value
                common["docstring_line"] = None  # the base's text, in the base's file
                descriptions = {**parse_docstring(inherited).params, **descriptions}
        # a parameter its own docs leave out, the class's ``Attributes:`` may say (the fields
        # of a dataclass, an exception's ``status``)
        taken = set(descriptions)  # what the docs say the call takes (not its attributes)
        descriptions = {**attributes, **descriptions}
        common["docstring"] = docstring
        bases = [str(base) for base in obj.bases]
        dynamic = "__getattr__" in members or "__getattribute__" in members
        protocol = any(b.split("[", 1)[0].rsplit(".", 1)[-1] == "Protocol" for b in bases)
        return ApiEntry(
            kind="class",
            parent=parent,
            signature=signature,
            parameters=_parameters(params, descriptions, types, taken),
            # no text of its own: its module's, when it is all the module defines for users
            description=_summary(docstring or _sole_class_module_docstring(obj)),
            bases=bases,
            open_members=dynamic or protocol or _private_base_opens(obj),
            abstract=_abstract(members),
            exception=is_exception(obj),
            enum=is_enum(obj),
            returns=_made(obj, init),
            **common,
        )
    if obj.is_function and "property" not in obj.labels:
        params = list(obj.parameters)
        returns = str(obj.returns) if obj.returns is not None else None
        bound = parent is not None and "staticmethod" not in obj.labels
        if bound and params and params[0].kind.value in ("positional-only", "positional or keyword"):
            shown = params[1:]
        else:
            shown = params
        # `async def` says so, as the definition does: a coroutine is awaited, an async
        # generator iterated with `async for`
        prefix = "async " if "async" in obj.labels else ""
        managed = _context_manager(obj)
        if managed is not None:  # `with fail_after(1) as scope:`, never awaited nor iterated
            prefix = ""
            returns = _managed_type(managed, returns) if returns else None  # else the docstring's
        return ApiEntry(
            kind="method" if parent else "function",
            parent=parent,
            signature=prefix + _signature(obj.name, params, returns),  # as written: no docstring types
            overloads=_typed_overloads(obj, prefix),
            parameters=_parameters(shown, descriptions, types),
            returns=ApiReturn(type=returns or returns_type, description=returns_doc),
            description=_summary(docstring),
            **common,
        )
    # Properties (griffe: attributes, or functions in older versions, labelled "property"),
    # attributes and type aliases.
    annotation = obj.returns if obj.is_function else getattr(obj, "annotation", None)
    if annotation is None and getter is not None:  # `x = property(get_x)`: what the getter returns
        annotation = getter.returns
    type_text = str(annotation) if annotation is not None else None
    kind: Literal["property", "attribute"] = "property" if "property" in obj.labels else "attribute"
    signature = f"{obj.name}: {type_text}" if type_text else obj.name
    value = getattr(obj, "value", None)
    # a module or class constant shows its value; an instance attribute's "value" is what
    # __init__ assigns: a constant (`self.retries = 3`) is its starting value, anything else
    # (`self.status_code = status_code`, packaging's `self.name = parsed.name`) is no value
    computed = (
        "instance-attribute" in obj.labels
        and "class-attribute" not in obj.labels
        and not is_literal(str(value))
    )
    if kind == "attribute" and value is not None and len(str(value)) <= 80 and not computed:
        signature += f" = {value}"
    description = _summary(docstring)
    if not description and obj.parent is not None and obj.parent.is_class and obj.parent.docstring:
        # no docstring of its own: what its class's ``Attributes:`` section says of it
        description = parse_docstring(obj.parent.docstring).attributes.get(obj.name, "")
    if not description and obj.parent is not None and obj.parent.is_class:
        description = _said_of_other_names(obj) or (
            _said_as_parameter(obj) if kind == "property" else _said_of_field(obj)
        )
    return ApiEntry(
        kind=kind,
        parent=parent,
        signature=signature,
        returns=ApiReturn(type=type_text, description=returns_doc),
        description=description,
        # griffe labels a setter only when it reads the source: inspected (compiled) ones unknown
        writable=("writable" in obj.labels) if kind == "property" and _static(obj) else None,
        **common,
    )


def is_literal(text: str) -> bool:
    """Whether ``text`` is a Python literal (``3``, ``'x'``, ``(1, 2)``, ``None``)."""
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _static(obj: Any) -> bool:
    """Whether griffe read the object from source (not by inspecting it at run time)."""
    return getattr(obj, "analysis", None) == "static"


def _parameters(
    params: list[Any],
    descriptions: dict[str, str],
    types: dict[str, str] | None = None,
    taken: set[str] | None = None,
) -> list[ApiParameter]:
    """The parameters; a parameter the signature does not annotate takes the type its
    docstring gives (``widget (Widget): …``, ``:type widget: Widget``, ``widget : Widget``).
    With ``**kwargs``, the documented names it does not list are keyword-only parameters:
    of ``taken``'s names only, when given (a class's parameters, not its attributes)."""
    out = []
    for param in params:
        kind = _KINDS.get(param.kind.value, "positional or keyword")
        default = _default(param)
        out.append(
            ApiParameter(
                name=param.name,
                type=str(param.annotation) if param.annotation is not None else (types or {}).get(param.name),
                default=default,
                required=default is None and kind not in ("var-positional", "var-keyword"),
                kind=kind,  # type: ignore[arg-type]
                description=descriptions.get(param.name, ""),
            )
        )
    if out and out[-1].kind == "var-keyword":
        # what the docstring documents and the signature takes through **kwargs
        # (dateutil's `parse(timestr, parserinfo=None, **kwargs)`: `:param ignoretz:`)
        named = {p.name for p in out}
        extra = [
            ApiParameter(
                name=name,
                type=(types or {}).get(name),
                required=False,
                kind="keyword-only",
                description=text,
            )
            for name, text in descriptions.items()
            if name not in named and name.isidentifier() and text and (taken is None or name in taken)
        ]
        out[-1:-1] = extra
    return out


def _default(param: Any) -> str | None:
    # griffe gives *args and **kwargs the defaults "()" and "{}"; Python source has none.
    if param.default is None or param.kind.value in ("variadic positional", "variadic keyword"):
        return None
    return _private_constant(param.default) or str(param.default)


def _private_constant(default: Any) -> str | None:
    """The literal a private module constant holds, when a default names one: a reader
    cannot import ``_EVENT_WIDTH``, but ``30`` says what the default is. None otherwise
    (a public name, a computed value such as ``_has_colors = not _IS_WINDOWS``)."""
    if not isinstance(default, griffe.ExprName) or not default.name.startswith("_"):
        return None
    try:
        scope: Any = default.parent  # the function (griffe types it loosely)
        target = alias_target(scope.modules_collection[default.canonical_path])
    except Exception:  # a name griffe cannot resolve
        return None
    value = getattr(target, "value", None) if target is not None and target.is_attribute else None
    value = None if value is None else str(value)  # "30", or an expression: `-1`, `(1, 2)`
    if value is None or len(value) > 40:
        return None
    return value if is_literal(value) else None


def _typed_overloads(function: Any, prefix: str) -> list[str]:
    """The ``@typing.overload`` signatures of a function whose own parameters (``self`` and
    ``cls`` aside) say nothing: none annotated, or only ``*args``/``**kwargs`` (``*dargs:
    Any, **dkw: Any``). They say what it takes, typed; none otherwise."""
    declared = list(getattr(function, "overloads", None) or ())
    own = [p for p in function.parameters if p.name not in ("self", "cls")]
    variadic = ("variadic positional", "variadic keyword")
    if len(declared) < 2 or (
        any(p.annotation is not None for p in own) and not all(p.kind.value in variadic for p in own)
    ):
        return []
    out: list[str] = []
    for overload in declared:
        returns = str(overload.returns) if overload.returns is not None else None
        out.append(prefix + _signature(function.name, list(overload.parameters), returns))
    return list(dict.fromkeys(out))


def _signature(name: str, params: list[Any], returns: str | None) -> str:
    """``name(a, /, b: int = 1, *, c, **kw) -> T`` from griffe parameters."""
    parts: list[str] = []
    star = False
    for i, param in enumerate(params):
        kind = param.kind.value
        if kind == "keyword-only" and not star:
            parts.append("*")
        star = star or kind in ("keyword-only", "variadic positional")
        prefix = {"variadic positional": "*", "variadic keyword": "**"}.get(kind, "")
        text = prefix + param.name
        if param.annotation is not None:
            text += f": {param.annotation}"
        default = _default(param)
        if default is not None:
            text += f" = {default}" if param.annotation is not None else f"={default}"
        parts.append(text)
        if kind == "positional-only" and (i + 1 == len(params) or params[i + 1].kind.value != kind):
            parts.append("/")
    return f"{name}({', '.join(parts)})" + (f" -> {returns}" if returns else "")
