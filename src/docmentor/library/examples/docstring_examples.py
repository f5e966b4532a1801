"""Code examples written in the API's own docstrings.

Sphinx's autodoc and mkdocstrings render docstrings into the documentation: a library whose
pages are ``.. autofunction::`` directives only shows its users the doctests and code
blocks of its docstrings, and the docs folder we index holds none of them. Each such block
is an :class:`~docmentor.library.models.Example` of the API whose docstring it is
(``origin="docstring"``):

- a doctest run (``>>> chunked([1, 2, 3], 2)`` and its output, to the next blank line);
- a reST literal block after a paragraph ending in ``::`` ("Example usage::");
- a ``.. code-block:: python`` / ``.. code::`` / ``.. sourcecode::`` / ``.. testcode::`` /
  ``.. doctest::`` directive's body;
- a fenced Markdown block (```` ```python ````).

Only Python that does something is kept (:func:`untagged_python`): a template, a shell
line or a bare list of names is no example. The matcher links the other APIs the code
uses (names the docstring's module defines are bound as if imported from it); the API the
docstring belongs to is always linked.

These examples are shown (README.LLM, ``get_examples``) but not counted where the docs'
examples stand for what users call: an API's importance, find_api's examples score and the
API's description vector read the documentation's examples only.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from docmentor.library.examples.classify import complexity_of, is_complete
from docmentor.library.examples.code_analysis import leading_comments_blanked, python_reading, untagged_python
from docmentor.library.examples.examples import normalize_language
from docmentor.library.find.import_paths import import_path
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.api_python_shadow import MODULE_SUFFIX
from docmentor.library.surface.docstrings import prose_paragraphs
from docmentor.parse.fences import closes, fence_open

__all__ = [
    "DOCSTRING_SOURCE",
    "DocstringCode",
    "docstring_code",
    "docstring_examples",
    "doctest_sessions",
    "doctest_setup",
    "module_setup",
]

DOCSTRING_SOURCE = "docstrings"  # Example.source of a docstring's example
MAX_EXAMPLES = 3  # per API: the first ones (a docstring is no tutorial)
MAX_LINES = 60  # a longer block is cut (a whole module in a docstring is rare and no example)
CONTEXT_CHARS = 400  # the docstring's prose kept as the example's context

_CODE_DIRECTIVES = ("code-block", "code", "sourcecode", "testcode", "doctest")


@dataclass(frozen=True, slots=True)
class DocstringCode:
    """A code block of a docstring: its first line (0-based, in the docstring) and code."""

    line: int
    code: str
    language: str  # as tagged ("python", "pycon", "") — "" for doctests and literal blocks


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _directive(stripped: str) -> tuple[str, str] | None:
    """(name, argument) of a reST directive line ``.. name:: argument``, else None."""
    if not stripped.startswith(".. "):
        return None
    name, sep, rest = stripped[3:].partition("::")
    if not sep or not name or " " in name.strip():
        return None
    return name.strip(), rest.strip()


def _body(lines: Sequence[str], start: int, indent: int) -> tuple[int, list[str], int]:
    """The block indented more than ``indent`` from ``start`` on (blank lines inside kept,
    option lines ``:name: value`` right at its start skipped): its first line, its lines,
    and where it ends."""
    k = start
    while k < len(lines) and not lines[k].strip():
        k += 1
    while k < len(lines) and lines[k].strip().startswith(":") and _indent(lines[k]) > indent:
        k += 1  # a directive's options
    while k < len(lines) and not lines[k].strip():
        k += 1
    first = k
    body: list[str] = []
    while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > indent):
        body.append(lines[k])
        k += 1
    while body and not body[-1].strip():
        body.pop()
    return first, body, k


def docstring_code(docstring: str) -> Iterator[DocstringCode]:
    """The code blocks of a docstring, in order (one pass over its lines)."""
    lines = docstring.split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        stripped = line.strip()
        if stripped.startswith(">>>"):
            start, indent = k, _indent(line)
            # to the next blank line, or a line indented less than the prompt ("Returns:")
            while k < len(lines) and lines[k].strip() and _indent(lines[k]) >= indent:
                k += 1
            yield DocstringCode(start, textwrap.dedent("\n".join(lines[start:k])), "")
            continue
        fence = fence_open(line, any_indent=True)
        if fence is not None:
            start = k + 1
            k = start
            while k < len(lines) and not closes(lines[k], fence, any_indent=True):
                k += 1
            yield DocstringCode(start, textwrap.dedent("\n".join(lines[start:k])), fence.info.split(" ")[0])
            k += 1
            continue
        directive = _directive(stripped)
        if directive is not None and directive[0] in _CODE_DIRECTIVES:
            first, body, end = _body(lines, k + 1, _indent(line))
            if body:
                # doctest's and testcode's argument is a group name, not a language
                tag = {"doctest": "pycon", "testcode": "python"}.get(directive[0], directive[1])
                yield DocstringCode(first, textwrap.dedent("\n".join(body)), tag)
            k = max(end, k + 1)
            continue
        if stripped.endswith("::") and directive is None:
            first, body, end = _body(lines, k + 1, _indent(line))
            if body:
                yield DocstringCode(first, textwrap.dedent("\n".join(body)), "")
            k = max(end, k + 1)
            continue
        k += 1


def _sets_up(block: DocstringCode) -> bool:
    """Whether a block is a ``>>>`` session of Python that calls nothing (it defines a class or
    a function, binds names): the set-up of the sessions after it, no example of its own."""
    return (
        not block.language
        and block.code.lstrip().startswith(">>>")
        and python_reading(block.code)[0] is not None
    )


def _python(block: DocstringCode) -> bool:
    if block.language and normalize_language(block.language) != "python":
        return False
    return untagged_python(block.code) == "python"


def docstring_examples(entries: Iterable[ApiEntry]) -> list[Example]:
    """The Python examples of each entry's docstring, and of a class's ``__init__`` docstring
    after it (its first :data:`MAX_EXAMPLES`), linked to it. A docstring several entries share (a class showing its same-named base's text, another
    name for a function) gives its examples once: to the entry whose source holds it."""
    out: list[Example] = []
    seen: set[str] = set()
    # those whose docstring's line is known (their own text) first
    for entry in sorted(entries, key=lambda e: e.docstring_line is None):
        if not entry.docstring or entry.language != "python" or entry.docstring in seen:
            continue
        seen.add(entry.docstring)
        # the path users import it by (its own name before an alias another module re-exports:
        # boltons' OrderedMultiDict, not `boltons.urlutils.OMD`)
        name = import_path(entry.api_id, entry.aliases, entry.bound_names)
        context = " ".join(prose_paragraphs(entry.docstring))[:CONTEXT_CHARS] or entry.description
        n = 0
        # a class's own docstring, then its __init__'s (shown together, as mkdocstrings merges them)
        texts = [(entry.docstring, entry.docstring_line)]
        if entry.init_docstring:
            texts.append((entry.init_docstring, entry.init_docstring_line))
        setup: list[tuple[int | None, DocstringCode]] = []  # sessions that only set up, in order
        for first_line, block in ((f, b) for t, f in texts for b in docstring_code(t)):
            if n >= MAX_EXAMPLES:
                break
            if not _python(block):
                # boltons' `format_exp_repr`: `>>> class Flag(object): …`, prose, then the
                # sessions that use Flag: shown (and run) with them
                setup = [*setup, (first_line, block)] if _sets_up(block) else []
                continue
            if setup and block.code.lstrip().startswith(">>>"):
                joined = "\n".join([*(b.code for _, b in setup), block.code])
                first_line, block = setup[0][0], DocstringCode(setup[0][1].line, joined, "")
            setup = []
            code = "\n".join(block.code.split("\n")[:MAX_LINES])
            n += 1
            out.append(
                Example(
                    example_id=f"docstring-{entry.api_id}-{n}",
                    title=name,
                    code=code,
                    language="python",
                    source=DOCSTRING_SOURCE,
                    path=entry.source_file or entry.api_id,
                    # where the block's first line is (the definition's line when the
                    # docstring's is not known)
                    line=(first_line + block.line) if first_line else (entry.line or 1),
                    apis_used=[entry.api_id],
                    complete=is_complete(code, "python"),
                    use_case=entry.description or name,
                    complexity=complexity_of(code, "python"),
                    context=context,
                    origin="docstring",
                )
            )
    return out


def doctest_setup(entries: Iterable[ApiEntry]) -> dict[str, str]:
    """Per source file, the code that runs a doctest of its docstrings as doctest does: in the
    module's namespace (its globals, private helpers and imports too), for ``--validate``."""
    modules: dict[str, str] = {}
    for e in entries:
        if not e.source_file or e.language != "python" or e.parent:
            continue
        module = e.api_id.removesuffix(MODULE_SUFFIX) if e.kind == "module" else e.api_id.rpartition(".")[0]
        if module:
            modules.setdefault(e.source_file, module)
    return {
        path: (
            "import importlib as _docmentor_importlib\n"
            f"globals().update({{k: v for k, v in vars(_docmentor_importlib.import_module({module!r})).items() "
            "if not k.startswith('__')})"
        )
        for path, module in sorted(modules.items())
    }


def doctest_sessions(examples: Iterable[Example]) -> dict[str, str]:
    """Per docstring example that is a doctest session (``>>>``), the sessions of the same
    docstring before it, in order: doctest runs a docstring's examples in one namespace, so
    a later block uses what an earlier one bound (``delta`` of the first, in the third), for
    ``--validate``; a docs page's sessions likewise (sphinx.ext.doctest runs a page's blocks
    in one namespace). Examples without an earlier session are left out, and so is a session
    marked ``+SKIP`` from what later ones follow (doctest does not run it)."""
    out: dict[str, str] = {}
    earlier: dict[str, list[str]] = {}
    numbered: list[tuple[str, int, Example]] = []
    for ex in examples:
        if ex.language != "python":
            continue
        if ex.origin == "docs":  # a docs page's: sphinx.ext.doctest runs them in one namespace
            numbered.append((f"{ex.source}\n{ex.path}", ex.line, ex))
            continue
        docstring, _, n = ex.example_id.rpartition("-")
        if docstring and n.isdigit():
            numbered.append((docstring, int(n), ex))
    for docstring, _, ex in sorted(numbered, key=lambda t: (t[0], t[1])):
        if not leading_comments_blanked(ex.code).lstrip().startswith(">>>"):
            continue
        before = earlier.setdefault(docstring, [])
        if before:
            out[ex.example_id] = "\n".join(before)
        if "+SKIP" not in ex.code:  # doctest does not run it: it binds nothing for the others
            before.append(ex.code.rstrip("\n"))
    return out


def module_setup(entries: Iterable[ApiEntry]) -> list[Example]:
    """Per source file, code that binds what the docstrings there write unqualified: the
    module's own names, as if imported from it, then the package's top-level names the module
    has none of (never linked, only read for its bindings)."""
    names: dict[str, dict[str, str]] = {}
    top: dict[str, str] = {}  # what the package exports at its top level: name → the package
    for e in entries:
        if e.parent or e.kind == "module" or not e.source_file or e.language != "python":
            continue
        module = e.api_id.rpartition(".")[0]
        if module:
            names.setdefault(e.source_file, {}).setdefault(e.name, module)
        for path in (e.api_id, *e.aliases):
            package, _, name = path.partition(".")
            if name and "." not in name:
                top.setdefault(name, package)
    # then, where the module has no name of its own so, the package's top-level names: a
    # docstring shows the package's API as users call it (tomlkit's `Array.add_line` doctest
    # calls `array()`, defined in `tomlkit.api`, exported as `tomlkit.array`)
    for bound in names.values():
        for name, package in top.items():
            bound.setdefault(name, package)
    out = []
    for path, bound in sorted(names.items()):
        by_module: dict[str, list[str]] = {}
        for name, module in sorted(bound.items()):
            by_module.setdefault(module, []).append(name)
        code = "\n".join(
            f"from {module} import {', '.join(found)}" for module, found in sorted(by_module.items())
        )
        out.append(
            Example(
                example_id=f"docstring-setup-{path}",
                title="",
                code=code,
                language="python",
                source=DOCSTRING_SOURCE,
                path=path,
                line=0,
            )
        )
    return out
