"""VERIFY's checks of a drafted document: the model's self-evaluation scores read strictly
(a missing or unusable score fails), and deterministic checks that need no model.

The deterministic checks:

- **sections**: the document has the sections its granularity requires (``prompts.FORMATS``,
  as ``repodocs evaluate`` reads them, ``model_format.py``: a function's Args only when it has
  parameters, Returns only when it returns a value or yields, Raises only when its code
  raises; a module's Diagram holds a Mermaid block), and none of Args, Returns and Raises
  the code does not call for.
- **parameters** (functions and methods): every parameter of the signature (without the
  ``self``/``cls`` of a method) is documented under Args, and every name documented there is
  a parameter (extra names are allowed only beside ``**kwargs``).
- **symbols**: every name that looks like code — in a backtick span or written ``name(`` in
  prose, outside fenced blocks — resolves: to a unit of the repository (by id or a dotted
  suffix of one, ``Item.describe``), a class attribute, a parameter, a name in the unit's own
  source, a library the repository imports, or a name the unit's language knows
  (``known_names.py``: Python's builtins and standard library, JavaScript's and TypeScript's
  globals, Go's predeclared identifiers, Rust's prelude; a package, the repository, or a
  caller that names no language: any of the repository's languages). "Looks like code" is a
  dotted name or a Rust path (``a::b``, read as ``a.b``), a call ``name()``, a name with
  ``_``, or a capitalised or camelCase name; plain words in backticks (``price``, ``EUR``)
  are not checked. A TypeScript/JavaScript ``this.x`` is read as ``x``, as ``self.x`` is.
- **raises** (functions and methods): every exception class the code raises is under Raises,
  and every one Raises names is raised by it or by a unit it calls (a re-raised variable,
  ``raise exc``, names no class and is not asked for).
- **links and locations**: a link to a ``.md`` page names a unit (``<id>.md``) or a page of
  the Markdown tree; another relative link a file of the repository; every ``path.py:line``
  (or ``:first-last``) is a module of the repository and within its lines.

Every scan is line by line and linear in the document.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from docmentor.repodocs.code_facts import CodeFacts
from docmentor.repodocs.graph import Graph
from docmentor.repodocs.known_names import KNOWN, known_names
from docmentor.repodocs.model_format import (
    ARGS_NAMES,
    CONDITIONAL,
    has_mermaid,
    model_section,
    model_sections,
    title,
)
from docmentor.repodocs.treesitter_units import language_of
from docmentor.repodocs.units import Component, ImportRef, Module, RepoUnits, Unit

SCORE_NAMES: tuple[str, ...] = ("consistency", "completeness", "helpfulness")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
# a dotted name or a Rust path (a::b::c); the separators share no character with the names: linear
_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")
_CALL_HEAD = re.compile(r"([A-Za-z_](?:[A-Za-z0-9_.]|::)*)\s*\(")  # anchored with match(): linear
_CAMEL = re.compile(r"[a-z0-9][A-Z]|^[A-Z][a-z]")
_MAX_SPAN = 200  # a longer backtick span is prose, not a name
_RECEIVERS: dict[str | None, tuple[str, ...]] = {"typescript": ("this.",), "javascript": ("this.",)}


@dataclass(frozen=True, slots=True)
class Scores:
    """The self-evaluation: the three scores and their mean, or why they are unusable."""

    values: dict[str, float]
    mean: float | None
    problem: str | None = None


def read_scores(raw: object) -> Scores:
    """The model's VERIFY scores, strictly: a mapping with each of ``SCORE_NAMES`` a number in
    [0, 1] (a numeric string is accepted). Anything missing or out of range is a problem and no
    mean: an unusable score never passes."""
    if not isinstance(raw, Mapping):
        return Scores(
            {}, None, "no scores were given (expected an object with " + ", ".join(SCORE_NAMES) + ")"
        )
    values: dict[str, float] = {}
    missing: list[str] = []
    bad: list[str] = []
    lowered = {str(k).lower(): v for k, v in raw.items()}
    for name in SCORE_NAMES:
        value = lowered.get(name)
        if value is None:
            missing.append(name)
            continue
        number = score_number(value)
        if number is None or not 0.0 <= number <= 1.0:
            bad.append(f"{name}={value!r}")
            continue
        values[name] = number
    if missing or bad:
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"not a number in [0, 1]: {', '.join(bad)}"] if bad else []
        )
        return Scores(values, None, "unusable scores: " + "; ".join(parts))
    return Scores(values, sum(values.values()) / len(values))


def score_number(value: object) -> float | None:
    """A model's score as a finite number (a number, or a string of one), else None: ``true``
    is no score."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


# -- the document's structure ------------------------------------------------------------


def sections(document: str) -> dict[str, list[str]]:
    """The document's sections by lower-case name (``## Args``, ``Args:``), each with its lines;
    text before the first heading is under ``""``."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    fenced = False
    for line in document.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced:
            name = _heading(stripped)
            if name is not None:
                current = name
                out.setdefault(current, [])
                continue
        out[current].append(line)
    return out


def _heading(stripped: str) -> str | None:
    if stripped.startswith("#"):
        name = stripped.lstrip("#").strip().rstrip(":").strip()
        return name.lower() or None
    if stripped.endswith(":") and stripped[:-1].strip().lower() in _KNOWN_SECTIONS:
        return stripped[:-1].strip().lower()
    return None


_KNOWN_SECTIONS = frozenset(
    {"summary", "description", "args", "arguments", "parameters", "returns", "raises", "examples"}
    | {"attributes", "methods", "role", "components", "public api", "dependencies", "diagram"}
    | {"purpose", "overview"}
)


def documented_parameters(document: str) -> list[str]:
    """The names documented under Args (``name (type): …``, ``- `name`: …``, ``**name** — …``):
    the entries at the section's outermost indentation."""
    found = sections(document)
    lines = next((found[n] for n in ARGS_NAMES if n in found), [])
    entries = [line for line in lines if line.strip()]
    if not entries:
        return []
    indent = min(len(line) - len(line.lstrip()) for line in entries)
    names: list[str] = []
    for line in entries:
        if len(line) - len(line.lstrip()) != indent:
            continue
        text = line.strip().lstrip("-*+").strip().lstrip("`*").lstrip("*")
        m = _NAME.match(text)
        if m is None:
            continue
        rest = text[m.end() :].lstrip("`*").lstrip()
        if m.group(0) in ("None", "none") or not rest.startswith(("(", ":", "-", "—", "–")):
            continue
        names.append(m.group(0))
    return names


def signature_parameters(component: Component) -> tuple[list[str], bool]:
    """A function's or method's parameter names as documented (no ``self``/``cls`` of a method),
    and whether it takes ``**kwargs``."""
    params = list(component.parameters)
    if component.kind == "method" and component.method_kind != "static" and params:
        params = params[1:]
    return [p.name for p in params], any(p.kind == "var_keyword" for p in params)


# -- the checks -------------------------------------------------------------------------


def check_sections(unit: Unit, document: str, facts: CodeFacts, units: Mapping[str, Unit]) -> list[str]:
    """The sections the model's format requires that the document lacks (a module's Diagram
    without a Mermaid block counts as lacking), and the conditional ones it has that the code
    does not call for (Returns of a function that returns nothing): the rules ``repodocs
    evaluate`` applies (``model_format.py``). ``units``: the repository's units by id."""
    found = sections(document)
    findings: list[str] = []
    for name, wanted in model_sections(unit, facts, units):
        lines = model_section(found, name)
        if wanted and lines is None:
            findings.append(f"missing section: {title(name)}")
        elif wanted and lines is not None and name == "diagram" and not has_mermaid(lines):
            findings.append(f"no ```mermaid block under {title(name)}")
        elif not wanted and lines is not None and name in CONDITIONAL:
            findings.append(f"section the code does not call for: {title(name)} (leave it out)")
    return findings


def check_parameters(unit: Unit, document: str) -> list[str]:
    """Parameters of the signature left undocumented, and documented names that are none."""
    if not isinstance(unit, Component) or unit.kind == "class":
        return []
    names, has_kwargs = signature_parameters(unit)
    documented = documented_parameters(document)
    findings = [f"parameter not documented under Args: {n}" for n in names if n not in documented]
    if not has_kwargs:
        findings += [
            f"documented parameter not in the signature {unit.signature!r}: {n}"
            for n in dict.fromkeys(documented)
            if n not in names
        ]
    return findings


class SymbolTable:
    """What a document may name: the repository's units and attributes, parameters, imported
    libraries, and the names known in the unit's language (``known_names.py``: Python's
    builtins and standard library, JavaScript's and TypeScript's globals, Go's predeclared
    identifiers, Rust's prelude).

    A library's names (``fmt.Println``, ``serde::Serialize``, ``lodash.get``) resolve by the
    name an import binds or the library's first name: for a TypeScript/JavaScript, Go or Rust
    unit whose file is given, only its own file's imports (and the outside names its code
    calls) count, as in those languages an import is the file's; for Python, or when no file
    is given, any import in the repository."""

    def __init__(self, repo: RepoUnits, graph: Graph) -> None:
        names: set[str] = set()
        inside = {m.name.split(".")[0] for m in repo.modules} | {p.name.split(".")[0] for p in repo.packages}
        if repo.repository.package_name:
            inside.add(repo.repository.package_name)
        files: dict[str, set[str]] = {}  # each file's library heads
        units = repo.units()
        for unit_id, unit in units.items():
            plain = unit_id.split(":", 1)[-1].rstrip("/")
            for dotted in {plain, plain.removesuffix(".__init__") if isinstance(unit, Module) else plain}:
                parts = dotted.split(".")
                names.update(".".join(parts[i:]) for i in range(len(parts)))
            names.add(unit_id)
            if isinstance(unit, Component):
                names.update(p.name for p in unit.parameters)
                names.update(unit.attributes)
                names.update(f"{unit.name}.{a}" for a in unit.attributes)
            if isinstance(unit, Module):
                names.add(unit.name)
                names.update(alias for alias, _ in unit.aliases)
            if isinstance(unit, Component | Module):
                files.setdefault(unit.path, set()).update(_library_heads(unit.imports, inside))
        for unit_id, refs in graph.external.items():
            path = units[unit_id].path if unit_id in units else ""
            files.setdefault(path, set()).update(r.split(".")[0] for r in refs)
        self.names = frozenset(names)
        self.heads = frozenset(h for heads in files.values() for h in heads)  # in any file
        self._files = {path: frozenset(heads) for path, heads in files.items()}
        found = {language_of(m.path) for m in repo.modules}
        # a unit of no one file's language (a package, the repository; a caller that names no
        # language): the repository's languages, Python's when it has none
        self.languages = tuple(sorted(lang for lang in found if lang is not None)) or ("python",)
        self._known: dict[str | None, frozenset[str]] = {lang: KNOWN[lang] for lang in KNOWN}
        self._known[None] = known_names(self.languages)
        receivers = (p for lang in self.languages for p in _RECEIVERS.get(lang, ()))
        self._receivers: dict[str | None, tuple[str, ...]] = {
            **_RECEIVERS,
            None: tuple(dict.fromkeys(receivers)),
        }

    def resolves(
        self, name: str, local: frozenset[str], language: str | None = None, path: str | None = None
    ) -> bool:
        """Whether the dotted ``name`` is something the repository, its imports or the language
        has (``language``: the unit's, ``unit_language``, None: any of the repository's;
        ``path``: the unit's file, whose imports count for a language other than Python)."""
        for prefix in ("self.", "cls.", *self._receivers.get(language, ())):
            if name.startswith(prefix):
                name = name[len(prefix) :]
        if name in self.names or name in local:
            return True
        parts = name.split(".")
        heads = self.heads if path is None or language in (None, "python") else self._files.get(path)
        if parts[0] in (heads or ()) or parts[0] in self._known.get(language, frozenset()):
            return True  # a library's or the language's name: not checked further
        if all(p in local for p in parts):
            return True
        return len(parts) > 1 and ".".join(parts[1:]) in self.names and parts[0] in local


def _library_heads(refs: Iterable[ImportRef], inside: set[str]) -> set[str]:
    """The names imports of libraries (not of the repository's own modules) make known: the
    bound name and the library's first name."""
    out: set[str] = set()
    for ref in refs:
        head = ref.target.split(".")[0]
        if head not in inside and not head.startswith("."):
            out.update((ref.bound, head))
    return out


def unit_language(unit: Unit) -> str | None:
    """The language of the file a unit is in (``python``, ``typescript``, ``javascript``,
    ``go``, ``rust``); None for a package or the repository."""
    if isinstance(unit, Component | Module):
        return language_of(unit.path)
    return None


def unit_file(unit: Unit) -> str | None:
    """The file a unit is in (a method declared apart from its type: the method's own file);
    None for a package or the repository."""
    return unit.path if isinstance(unit, Component | Module) else None


def code_names(document: str) -> list[str]:
    """The names the document writes as code: backtick spans and ``name(`` in prose, outside
    fenced blocks, that look like code (see the module docstring), in order, each once."""
    found: dict[str, None] = {}
    fenced = False
    for line in document.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        pieces = line.split("`")
        closed = len(pieces) - (1 if len(pieces) % 2 == 0 else 0)  # an unclosed last backtick
        for i, piece in enumerate(pieces):
            if i % 2 == 1 and i < closed:
                _span_name(piece, found)
            else:
                _prose_calls(piece, found)
    return list(found)


def _span_name(span: str, found: dict[str, None]) -> None:
    span = span.strip()
    if not span or len(span) > _MAX_SPAN:
        return
    call = _CALL_HEAD.match(span)
    if call is not None:
        found.setdefault(call.group(1).replace("::", ".").rstrip("."), None)
        return
    if _PATH.fullmatch(span):
        name = span.replace("::", ".")
        if _looks_like_code(name):
            found.setdefault(name, None)


def _prose_calls(text: str, found: dict[str, None]) -> None:
    for m in _PATH.finditer(text):
        name = m.group(0).replace("::", ".")
        if text[m.end() : m.end() + 1] == "(" and _looks_like_code(name):
            found.setdefault(name, None)


def _looks_like_code(name: str) -> bool:
    return "." in name or "_" in name.strip("_") or _CAMEL.search(name) is not None


def check_symbols(
    document: str,
    table: SymbolTable,
    local: Iterable[str],
    language: str | None = None,
    path: str | None = None,
) -> list[str]:
    """Names written as code that resolve nowhere (``local``: the names in the unit's own source;
    ``language``: the unit's, ``unit_language``, None: any of the repository's; ``path``: the
    unit's file, ``unit_file``, None: imports anywhere in the repository count)."""
    here = frozenset(local)
    python = language == "python" or (language is None and table.languages == ("python",))
    where = "Python" if python else "its language"
    return [
        f"names something that is not in the repository, its imports or {where}: `{name}`"
        for name in code_names(document)
        if not table.resolves(name, here, language, path)
    ]


def source_names(source: str) -> frozenset[str]:
    """Every identifier in a unit's source text (its locals, attributes and strings' words)."""
    return frozenset(m.group(0) for m in _NAME.finditer(source))


# -- raised exceptions, links and code locations ----------------------------------------


def _exception(name: str) -> str | None:
    """The class name of a raised name as written (``errors.UsageError`` → ``UsageError``);
    None for a re-raised variable (``raise exc``)."""
    last = name.rsplit(".", 1)[-1]
    return last if last[:1].isupper() else None


def documented_raises(document: str) -> list[str]:
    """The exception names documented under Raises (``ValueError: when …``, ``- `errors.X`: …``),
    as class names."""
    lines = sections(document).get("raises", [])
    out: list[str] = []
    for line in lines:
        text = line.strip().lstrip("-*+").strip().lstrip("`*")
        m = _DOTTED.match(text)
        if m is None:
            continue
        rest = text[m.end() :].lstrip("`*").lstrip()
        name = _exception(m.group(0))
        if name is not None and name != "None" and rest.startswith((":", "-", "—", "–", "(", "if", "when")):
            out.append(name)
    return list(dict.fromkeys(out))


def check_raises(unit: Unit, document: str, callee_raises: Iterable[str]) -> list[str]:
    """Exceptions the function raises that Raises leaves out, and exceptions Raises names that
    neither it nor what it calls raises (a function or method only)."""
    if not isinstance(unit, Component) or unit.kind == "class":
        return []
    own = [n for n in (_exception(r) for r in unit.raises) if n is not None]
    documented = documented_raises(document)
    near = set(own) | {n for n in (_exception(r) for r in callee_raises) if n is not None}
    findings = [
        f"raised but not documented under Raises: {n}" for n in dict.fromkeys(own) if n not in documented
    ]
    findings += [
        f"documented under Raises but raised neither by it nor by what it calls: {n}"
        for n in documented
        if n not in near
    ]
    return findings


_LINK_TARGET = re.compile(r"\]\(([^()\s]{1,300})\)")
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")


def check_links(
    document: str, unit_ids: Iterable[str], pages: Iterable[str], file_lines: Mapping[str, int]
) -> list[str]:
    """Links that lead nowhere and code locations (``path.py:line``) that are not in the
    repository. A link to a ``.md`` page must be ``<unit id>.md`` (the format the model is
    asked for) or a page of the Markdown tree (``pages``: ``modules/shop.util.md``, after any
    ``../``); any other relative link a file of the repository; web links and in-page anchors
    are not checked. ``file_lines``: each module's path and line count."""
    ids = set(unit_ids)
    tree = set(pages)
    findings: list[str] = []
    for m in _LINK_TARGET.finditer(document):
        target = m.group(1).split("#", 1)[0]
        if not target or "://" in target or target.startswith("mailto:"):
            continue
        bare = target
        while bare.startswith(("../", "./")):
            bare = bare[3:] if bare.startswith("../") else bare[2:]
        if bare.endswith(".md"):
            if bare[:-3] not in ids and bare not in tree:
                findings.append(f"link to a document of no unit: {target}")
        elif bare not in file_lines:
            findings.append(f"link to a file not in the repository: {target}")
    for path, first, last in dict.fromkeys(locations(document)):
        count = file_lines.get(path)
        span = f"{first}-{last}" if last is not None else str(first)
        if count is None:
            findings.append(f"code location in no file of the repository: {path}:{span}")
        elif not 1 <= first <= count or (last is not None and not first <= last <= count):
            findings.append(f"code location past the end of {path} ({count} lines): {path}:{span}")
    return findings


def locations(document: str) -> list[tuple[str, int, int | None]]:
    """The ``path.py:line`` and ``path.py:first-last`` locations the text names (found from each
    ``.py:`` by walking back over path characters and forward over digits: linear)."""
    out: list[tuple[str, int, int | None]] = []
    pos = document.find(".py:")
    while pos != -1:
        start = pos
        while start > 0 and document[start - 1] in _PATH_CHARS and pos - start < 250:
            start -= 1
        first, after = _digits(document, pos + 4)
        if first is not None and start < pos:
            last = None
            if after < len(document) and document[after] in "-–":
                last, _ = _digits(document, after + 1)
            path = document[start : pos + 3]
            while path.startswith("./"):
                path = path[2:]
            out.append((path, first, last))
        pos = document.find(".py:", pos + 4)
    return out


def _digits(text: str, at: int) -> tuple[int | None, int]:
    end = at
    while end < len(text) and end - at < 7 and text[end].isdigit():
        end += 1
    return (int(text[at:end]) if end > at else None), end
