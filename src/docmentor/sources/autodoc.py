"""What a docs folder documents with autodoc and mkdocstrings directives (``documented_paths``),
and what its examples import (``imported_paths``)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = [
    "DOCSTRING",
    "MAX_SCANNED_BYTES",
    "docs_paths",
    "documented_in",
    "documented_paths",
    "imported_in",
    "imported_paths",
]

# what a page documents: reST / MyST autodoc (`.. autofunction:: name`, ```{autoclass} name```)
# and mkdocstrings (`::: pkg.name`, or as a heading: `## ::: pkg.name`), and what sets the
# module relative names are in
_DOCUMENTS = re.compile(
    r"^[ \t]*(?:(?:\#{1,6}[ \t]+)?(?P<mk>:::)|\.\.\s+(?:py:)?(?P<rd>[a-z]+) ?::|(?:```+|~~~+|:::+)\{(?:py:)?(?P<md>[a-z]+)\})"
    r"[ \t]*(?P<name>[A-Za-z_][\w.]*)",
    re.M,
)
_AUTODOC = frozenset(
    {"autoclass", "autofunction", "automethod", "autoattribute", "autoproperty", "autodata", "autoexception",
     "autodecorator", "automodule", "class", "function", "method", "attribute", "property", "data",
     "exception", "decorator"}
)  # fmt: skip
_MODULE_SETTERS = frozenset({"module", "currentmodule", "automodule"})
_MEMBER_DIRECTIVES = frozenset(
    {"automethod", "autoattribute", "autoproperty", "method", "attribute", "property", "classmethod",
     "staticmethod"}
)  # fmt: skip
MAX_SCANNED_BYTES = 2_000_000  # a page larger than this is not read for directives
DOCSTRING = "__doc__"  # `pkg.mod.__doc__`: an automodule shows pkg.mod's docstring


_OPTION = re.compile(r"[ \t]+:([\w-]+):[ \t]*(.*)")
_NAME = re.compile(r"[A-Za-z_]\w*")


def _listed_members(text: str, start: int) -> list[str] | None:
    """The names a directive's ``:members:`` option lists, read from its option lines (the
    indented ``:name: value`` lines right after the directive line that ends at ``start``);
    ``["*"]`` for a bare ``:members:`` (every public member with a docstring; ``["**"]``
    with ``:undoc-members:``: every public member), None without the option."""
    end = text.find("\n", start)
    names: list[str] | None = None
    pos = end + 1 if end >= 0 else len(text)
    option_indent = -1  # the indentation of the option line whose value may go on
    members = False  # that option is ``:members:``
    undocumented = False  # ``:undoc-members:``: a bare ``:members:`` shows those without docstrings too
    while pos < len(text):
        line_end = text.find("\n", pos)
        line = text[pos : line_end if line_end >= 0 else len(text)]
        option = _OPTION.fullmatch(line)
        indent = len(line) - len(line.lstrip())
        if option is None:
            if not (0 <= option_indent < indent and line.strip()):
                break
            value = line if members else ""  # ":members: get, pop,\n             clear": the list goes on
        else:
            option_indent, members = indent, option.group(1) == "members"
            undocumented = undocumented or option.group(1) == "undoc-members"
            value = option.group(2) if members else ""
        if members:
            listed = [n for n in (part.strip() for part in value.split(",")) if _NAME.fullmatch(n)]
            names = (names or []) + (listed or ([] if option is None else ["*"]))
        pos = line_end + 1 if line_end >= 0 else len(text)
    if names is not None and undocumented:
        names = ["**" if n == "*" else n for n in names]
    return names


# `from tablib.formats import registry` in a page's code (a doctest's `>>> ` or `... ` too)
_IMPORT = re.compile(
    r"^[ \t]*(?:(?:>>>|\.\.\.)[ \t]+)?from[ \t]+(?P<module>[A-Za-z_][\w.]*)[ \t]+import[ \t]+(?P<names>[^\n#]+)",
    re.M,
)


_MAX_IMPORT_CHARS = 2_000  # of a parenthesised import list's further lines read
_PROMPT = re.compile(r"\n[ \t]*(?:\.\.\.[ \t]*)?")  # a line break, and a doctest's `...` prompt after it


def imported_paths(docs: Path | None) -> list[str]:
    """The dotted paths the docs' pages import names by (``from tablib.formats import
    registry`` → ``tablib.formats.registry``), each once, in the order first seen: what the
    docs tell users to import. Unreadable and oversized pages are skipped."""
    return docs_paths(docs)[1]


# a line opening a further signature of a hand-written directive: a name, then a call or nothing
_SIGNATURE_START = re.compile(r"[ \t]+([A-Za-z_]\w*+)[ \t]*+(?:\(|$)")
MAX_SIGNATURES = 8  # further signatures read under one directive head
_SIGNATURES_WINDOW = 2_000  # characters read after a directive's head for them


def more_signatures(lines: Sequence[str], k: int, indent: int) -> list[str]:
    """The names of the further signatures of the hand-written directive whose head is line
    ``k`` (indented ``indent``): as Sphinx reads them, each line right below the head (no
    blank line between) indented past it that opens a new call is another signature of the
    same entry (funcy's ``.. function:: pluck(key, mappings)`` then ``lpluck(key, mappings)``);
    a line going on with a signature (after a ``\\`` or an unclosed parenthesis) or an option
    (``:noindex:``) opens none. An autodoc directive has none."""
    head = lines[k]
    if "auto" in head.split("::", 1)[0]:
        return []
    out: list[str] = []
    depth = head.count("(") - head.count(")")
    going_on = head.rstrip().endswith("\\")
    for line in lines[k + 1 : k + 1 + MAX_SIGNATURES]:
        stripped = line.strip()
        if not stripped or len(line) - len(line.lstrip()) <= indent or stripped.startswith(":"):
            break
        if depth <= 0 and not going_on and (m := _SIGNATURE_START.match(line)) is not None:
            out.append(m.group(1))
        depth = max(depth, 0) + line.count("(") - line.count(")")
        going_on = line.rstrip().endswith("\\")
    return out


def docs_paths(docs: Path | None) -> tuple[list[str], list[str]]:
    """:func:`documented_paths` and :func:`imported_paths` of one read of the pages."""
    documented: list[str] = []
    imported: dict[str, None] = {}
    for text in _pages(docs):
        documented += documented_in(text)
        imported.update(dict.fromkeys(imported_in(text)))
    return documented, list(imported)


def imported_in(text: str) -> list[str]:
    """The dotted paths one page's ``from … import …`` lines import (:func:`imported_paths`):
    names separated by commas, ``as`` renamings, a parenthesised list going on over the next
    lines (a doctest's ``...`` prompts too; read up to :data:`_MAX_IMPORT_CHARS`), up to a
    ``;``; a star import or a relative one names nothing."""
    found: list[str] = []
    if len(text) > MAX_SCANNED_BYTES:
        return found
    for m in _IMPORT.finditer(text):
        names = m["names"].split(";", 1)[0]
        if "(" in names and ")" not in names:  # `from pkg import (` … `)` over several lines
            rest = text[m.end() : m.end() + _MAX_IMPORT_CHARS]
            close = rest.find(")")
            if close >= 0:
                names += _PROMPT.sub(",", rest[:close])
        for part in names.replace("(", ",").replace(")", ",").split(","):
            name = part.split()[0] if part.split() else ""
            if _NAME.fullmatch(name):
                found.append(f"{m['module']}.{name}")
    return found


def _pages(docs: Path | None) -> Iterator[str]:
    """The text of each page of the docs folder that is small enough to scan."""
    from docmentor.sources.local import document_files

    if docs is None or not docs.is_dir():
        return
    for rel in document_files(docs):
        path = docs / rel
        try:
            if path.stat().st_size > MAX_SCANNED_BYTES:
                continue
            yield path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def documented_paths(docs: Path | None) -> list[str]:
    """The dotted paths the docs' pages document with autodoc or mkdocstrings directives,
    a relative name read in the module the page last set (``.. module::``,
    ``.. currentmodule::``, ``.. automodule::``); ``pkg.mod.__doc__`` for a module whose
    docstring an ``.. automodule::`` shows (its directives document too). Unreadable pages are skipped: the index
    reports them."""
    return docs_paths(docs)[0]


def documented_in(text: str, module: str = "") -> list[str]:
    """The dotted paths one page's directives document (:func:`documented_paths`), relative
    names read in ``module`` until the page sets another: a module docstring that
    ``.. automodule::`` renders is read in that module, as Sphinx does (watchdog's
    ``events.py`` docstring holds its ``.. autoclass::`` directives)."""
    found: list[str] = []
    if len(text) > MAX_SCANNED_BYTES:
        return found
    owner: tuple[int, str] | None = None  # the last class directive: its indentation, path
    for m in _DOCUMENTS.finditer(text):
        kind, target = m["rd"] or m["md"], m["name"]
        indent = len(m.group(0)) - len(m.group(0).lstrip())
        if owner is not None and indent <= owner[0]:
            owner = None  # the class's body is over
        if m["mk"]:
            found.append(target)
        elif kind in _MODULE_SETTERS:
            module = "" if target == "None" else target  # `.. currentmodule:: None` resets it
            if kind in ("automodule", "module") and module:
                found.append(target)
            if kind == "automodule" and module:
                # `:members: Traceback, install`: those it names; a bare `:members:`
                # documents every public member (`module.*`: the surface says which)
                found += [f"{module}.{name}" for name in _listed_members(text, m.end()) or ()]
                # it renders the module's docstring, whose directives document too (the
                # surface reads them: `module.__doc__`)
                found.append(f"{module}.{DOCSTRING}")
        elif kind in _MEMBER_DIRECTIVES and "." not in target and m.group(0)[:1] in " \t":
            # `.. method:: expire` inside `.. class:: TTLCache`: that class's member
            if owner is not None and indent > owner[0]:
                found.append(f"{owner[1]}.{target}")
        elif kind in _AUTODOC:
            # a name of the current module (`set_exc_info`, `Column.width`); a path
            # from the package down (`pkg._impl.hidden`) as it is
            relative = module and target.split(".")[0] != module.split(".")[0]
            full = f"{module}.{target}" if relative else target
            found.append(full)
            if m["rd"] and not kind.startswith("auto"):  # `lpluck(…)` below `.. function:: pluck(…)`
                window = text[m.start() : m.start() + _SIGNATURES_WINDOW].split("\n")
                found += [f"{module}.{n}" if relative else n for n in more_signatures(window, 0, indent)]
            if kind in ("autoclass", "autoexception", "class", "exception"):
                owner = (indent, full)
                # `:members:`: its members too, all (`Table.*`) or those it names
                listed = _listed_members(text, m.end()) or ()
                found += [f"{full}.{name}" for name in listed]
    return found
