"""A documented call's arguments against the installed signature, for the drift report
(:mod:`docmentor.library.examples.drift`): keywords the signature does not accept (no
``**kwargs``, not a parameter name, or a positional-only one) and more positional arguments
than it takes (no ``*args``); for a callable whose own signature takes anything, its
``@overload`` signatures, of which one must take the call. Which signature a call reaches (a function, a method, a class's
``__init__``, an instance's ``__call__``) and whether the receiver is passed explicitly is the
caller's to say."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

from docmentor.library.models import ApiEntry

__all__ = ["ArgumentProblem", "argument_problems", "closest", "overload_problems", "signature_known"]

_POSITIONAL = ("positional-only", "positional or keyword")
_KEYWORD = ("positional or keyword", "keyword-only")


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One argument of a call the signature does not take."""

    node: ast.AST  # the keyword, or the whole call for a positional count
    message: str
    suggestion: str


def signature_known(entry: ApiEntry) -> bool:
    """Whether the entry's parameters are the whole truth: a function, method or class read
    from source or stubs (compiled code inspected at run time may show no parameters), and
    for a class, an ``__init__`` the library defines."""
    if entry.kind not in ("function", "method", "class"):
        return False
    if entry.kind == "class" and entry.signature.endswith("(...)"):
        return False  # __init__ inherited from outside the library, or not introspectable
    return entry.source_file is not None and entry.source_file.endswith((".py", ".pyi"))


def closest(name: str, candidates: list[str]) -> str | None:
    """The public candidate spelled most like ``name``, when one is close; else one that is
    ``name`` with a word dropped from or added to its end (``scan_prefix`` → ``scan``,
    ``get`` → ``get_many``: an API renamed the common way), the nearest such."""
    public = [c for c in candidates if not c.startswith("_")]
    matches = difflib.get_close_matches(name, public, n=1, cutoff=0.6)
    if matches:
        return matches[0]
    words = [c for c in public if name.startswith(c + "_") or c.startswith(name + "_")]
    return min(words, key=lambda c: (abs(len(c) - len(name)), c)) if words else None


def argument_problems(
    entry: ApiEntry, node: ast.Call, *, written: str, shown: str, count_positional: bool
) -> list[ArgumentProblem]:
    """What is wrong with ``node``'s arguments for ``entry``'s parameters.

    Args:
        entry: the API called (its ``parameters`` exclude the receiver).
        node: the call as written.
        written: how the example names the callee (``db.create_table``), for the messages.
        shown: the signature to show in the messages.
        count_positional: False when the receiver may be among the positional arguments
            (``Cls.method(obj, ...)``): their count is then not checked.
    """
    params = entry.parameters
    kinds = {p.kind for p in params}
    accepted = [p.name for p in params if p.kind in _KEYWORD]
    out: list[ArgumentProblem] = []
    if "var-keyword" not in kinds:
        for kw in node.keywords:
            if kw.arg is None or kw.arg in accepted:
                continue
            positional_only = any(p.name == kw.arg and p.kind == "positional-only" for p in params)
            problem = (
                f"{kw.arg!r} is positional-only" if positional_only else f"no parameter named {kw.arg!r}"
            )
            near = None if positional_only else closest(kw.arg, accepted)
            hint = (
                f"accepted keywords: {', '.join(accepted)}" if accepted else "it takes no keyword arguments"
            )
            out.append(
                ArgumentProblem(
                    kw,
                    f"{written}(..., {kw.arg}=...): {problem} in {shown}",
                    f"did you mean {near}=? {hint}" if near else hint,
                )
            )
    if "var-positional" not in kinds and count_positional:
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        takes = [p.name for p in params if p.kind in _POSITIONAL]
        placeholder = any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in positional)
        if len(positional) > len(takes) and not placeholder:
            out.append(
                ArgumentProblem(
                    node,
                    f"{written}(...) is given {len(positional)} positional arguments "
                    f"but takes {len(takes)}: {shown}",
                    f"positional parameters: {', '.join(takes)}; pass the rest by keyword"
                    if takes
                    else "pass the arguments by keyword",
                )
            )
    return out


def overload_problems(
    overloads: tuple[ApiEntry, ...], node: ast.Call, *, written: str, prefix: str, count_positional: bool
) -> list[ArgumentProblem]:
    """The call of a callable that takes anything (``def retry(*dargs, **dkw)``) against the
    signatures its overloads declare: nothing when one of them takes it, else the problems
    with the one it comes closest to (fewest problems, then most parameters).

    Args:
        overloads: the overloads' entries (their ``parameters`` exclude the receiver).
        prefix: put before an overload's signature in the messages (``Pipeline.`` for a
            ``__call__`` or ``__init__``), or "".
    """
    best: tuple[tuple[int, int], list[ArgumentProblem]] | None = None
    for variant in overloads:
        shown = f"{prefix}{variant.signature} (one of {len(overloads)} overloads)"
        found = argument_problems(
            variant, node, written=written, shown=shown, count_positional=count_positional
        )
        if not found:
            return []
        key = (len(found), -len(variant.parameters))
        if best is None or key < best[0]:
            best = (key, found)
    return best[1] if best is not None else []
