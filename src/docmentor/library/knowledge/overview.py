"""The library overview: architecture, quickstart and concepts, built from the APIs, the
examples and the docs' sections (``library_overview.json`` and ``get_library_overview``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence

from docmentor.library.knowledge.doc_text import (
    first_sentences,
    without_substitution_marks,
    without_substitutions,
)
from docmentor.library.knowledge.importance import public_path
from docmentor.library.knowledge.kb_schema import (
    INDEX_PAGES,
    Concept,
    DocSection,
    LibraryOverview,
    NamedText,
)
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.api_python_shadow import MODULE_SUFFIX
from docmentor.library.surface.docstrings import display, readable_summary

__all__ = [
    "build_overview",
    "install_commands",
    "shown",
]

_QUICKSTART = re.compile(
    r"quick\s*-?\s*start|getting[\s_-]*started|get[\s_-]*started|install|tutorial|basic|intro", re.I
)


# how a command installs packages: what comes after it are packages and options
_INSTALLER = re.compile(
    r"^(?:\$\s*)?(?:(?:python3?|py)\s+-m\s+)?(?:pip3?\s+install|uv\s+pip\s+install|uv\s+add|poetry\s+add"
    r"|pipx\s+install|conda\s+install|mamba\s+install)\s+"
)
_OPTIONS_WITH_VALUE = frozenset(
    ["-c", "--constraint", "-r", "--requirement", "-i", "--index-url", "--extra-index-url", "-f",
     "--find-links", "-t", "--target", "--prefix", "--root", "--python", "-e", "--editable"]
)  # fmt: skip


def install_commands(
    library: str,
    examples: Sequence[Example],
    limit: int = 5,
    *,
    language: str | None = None,
    sections: Sequence[DocSection] = (),
) -> list[str]:
    """How to install the library, from the docs' install commands: those that install only
    the library itself first (plain before extras; when the docs only install it with an extra,
    the same command without it comes first), then others seen on its quickstart and
    install pages; commands for other tools elsewhere in the docs (``pip install mitmproxy``,
    ``pip install lancedb phidata openai …`` for one integration's page) are not."""
    name = re.escape(library.replace("_", "-").lower())
    own = re.compile(rf"{name}(?:\[[^\]]*\])?(?:[<>=!~;].*)?")

    def only_the_library(command: str) -> bool:
        rest = _INSTALLER.sub("", command.strip().replace("_", "-").lower(), count=1)
        if rest == command.strip().replace("_", "-").lower():
            return False  # not an install command we know
        words = [w.strip("'\"") for w in rest.split()]
        packages: list[str] = []
        skip = False
        for w in words:  # the packages: not options, nor an option's value (-c file, an index URL)
            if skip:
                skip = False
            elif w in _OPTIONS_WITH_VALUE:
                skip = True
            elif w and not w.startswith("-") and "/" not in w:
                packages.append(w)
        return bool(packages) and all(own.fullmatch(p) for p in packages)

    # and the commands of install and quick-start pages that hold no example of the library's
    # language (werkzeug's installation.rst: one `sh` block, `pip install Werkzeug`)
    from docmentor.library.examples.classify import for_language, prerequisites

    on_pages = [
        c
        for s in sections
        if _QUICKSTART.search(f"{s.path} {s.heading}")
        for c in for_language(prerequisites(s.text), language or "python")
    ]
    seen = list(dict.fromkeys([*(p for ex in examples for p in ex.prerequisites), *on_pages]))
    mine = sorted((p for p in seen if only_the_library(p)), key=lambda p: ("[" in p, seen.index(p)))
    if mine and "[" in mine[0]:  # only with extras (`pip install cattrs[ujson]`): the plain one first
        plain = re.sub(r"\[[^\]\n]*\]", "", mine[0])
        mine.insert(0, re.sub(r"(['\"])([\w.-]+)\1", r"\2", plain))  # no quotes a bare name needs not
    named = re.compile(rf"(?<![\w-]){name}(?![\w-])")

    def names_it(command: str) -> bool:
        return named.search(command.replace("_", "-").lower()) is not None

    near = [
        p
        for ex in examples
        if _QUICKSTART.search(" ".join([ex.path, ex.title, *ex.heading_path]))
        and (language is None or ex.language == language)  # npm for a Python library's page: no
        for p in ex.prerequisites
        # a tutorial's `pip install something` or `pip install ./dist/app.whl` installs no library
        if p not in mine and names_it(p)
    ]
    near += [p for p in on_pages if p not in mine and names_it(p)]
    found = _distinct(mine + near)
    mentioning = [p for p in seen if names_it(p)]
    return (found or _distinct(mentioning) or seen)[:limit]


def _distinct(commands: Sequence[str]) -> list[str]:
    """The commands once each, quoting aside (``pip install "typer[all]"`` is ``pip install
    typer[all]``): the first form written."""
    out: dict[str, str] = {}
    for command in commands:
        out.setdefault(" ".join(w.strip("'\"") for w in command.split()), command)
    return list(out.values())


def _layered(a: ApiEntry, b: ApiEntry) -> bool:
    """Whether one of two classes names the other among its bases (as written: ``App``,
    ``sansio.App``, ``App[T]``)."""

    def names(e: ApiEntry) -> set[str]:
        return {base.split("[", 1)[0].rsplit(".", 1)[-1] for base in e.bases}

    return a.name in names(b) or b.name in names(a)


def shown(description: str) -> str:
    """A summary for the overview (:func:`~.docstrings.readable_summary`)."""
    return readable_summary(description)


def build_overview(
    *,
    library: str,
    version: str | None,
    purpose: str,
    entries: Sequence[ApiEntry],
    examples: Sequence[Example],
    sections: Sequence[DocSection],
    max_concepts: int = 40,
) -> LibraryOverview:
    """The library overview: architecture (modules, classes), quickstart, concepts from headings."""
    key_modules = _key_modules(library, entries)
    key_classes = _key_classes(entries)
    language = Counter(e.language for e in entries).most_common(1)[0][0] if entries else None
    install = install_commands(library, examples, language=language, sections=sections)
    quick = _quickstart_examples(library, examples, deprecated={e.api_id for e in entries if e.deprecated})
    concepts = _concepts(sections, max_concepts)
    architecture = _architecture_text(library, version, purpose, key_modules, key_classes, entries)
    return LibraryOverview(
        library=library,
        version=version,
        description=purpose,
        key_modules=key_modules,
        key_classes=key_classes,
        install=install,
        quickstart_examples=[ex.example_id for ex in quick],
        concepts=concepts,
        aspects={
            "architecture": architecture,
            "quickstart": _quickstart_text(install, quick, version, examples),
            "concepts": _concepts_text(concepts),
        },
    )


def _key_modules(library: str, entries: Sequence[ApiEntry], limit: int = 12) -> list[NamedText]:
    """The library's submodules, the one with the most important member first."""
    modules = sorted(
        (e for e in entries if e.kind == "module" and e.api_id != library),
        key=lambda e: (-e.importance_score, e.api_id),
    )
    # a module's importance is that of its best member
    best: dict[str, float] = {}
    for e in entries:
        mod = next((m.api_id for m in modules if e.api_id.startswith(_path(m) + ".")), None)
        if mod is not None:
            best[mod] = max(best.get(mod, 0.0), e.importance_score)
    modules.sort(key=lambda m: (-best.get(m.api_id, 0.0), m.api_id))
    return [NamedText(name=_path(m), description=shown(m.description)) for m in modules[:limit]]


def _path(module: ApiEntry) -> str:
    """A module's dotted path (a submodule hidden by its package's same-named function has
    ``~module`` after it in its id, never in what a reader imports)."""
    return module.api_id.removesuffix(MODULE_SUFFIX)


def _key_classes(entries: Sequence[ApiEntry], limit: int = 12) -> list[NamedText]:
    """The most important classes, each listed once across the layers of a library.

    A class described word for word as a base or subclass of one listed before is that one
    at another layer (flask.sansio.app.App under flask.Flask): listed once. The same words
    alone are not enough (redis.Redis and redis.asyncio.Redis are two classes)."""
    classes = sorted((e for e in entries if e.kind == "class"), key=lambda e: (-e.importance_score, e.api_id))
    listed: dict[str, list[ApiEntry]] = {}
    key_classes: list[NamedText] = []
    for cls in classes:
        text = shown(cls.description)
        if len(key_classes) >= limit:
            break
        if text and any(_layered(cls, other) for other in listed.get(text, ())):
            continue
        key_classes.append(NamedText(name=public_path(cls), description=text))
        listed.setdefault(text, []).append(cls)
    return key_classes


def _quickstart_examples(
    library: str, examples: Sequence[Example], limit: int = 3, *, deprecated: Collection[str] = ()
) -> list[Example]:
    """The quick start's examples: matched, not failed, one per heading; an example that
    uses a ``deprecated`` API only after every one that does not (a quick start teaches the
    current way); a first example shows the library from the start (import, or
    library.call()), whole; then the docs' own order (a quickstart's first examples are its
    canonical ones)."""
    mentions_library = re.compile(rf"\b(?:import|from)\s+{re.escape(library)}\b|\b{re.escape(library)}\.")

    def quick_rank(ex: Example) -> tuple[bool, int, bool, bool, bool, str, int]:
        return (
            any(a in deprecated for a in ex.apis_used),
            _quickstart_place(ex),
            not mentions_library.search(ex.code),
            not ex.complete,
            ex.validated is False,
            ex.path,
            ex.line,
        )

    usable = [ex for ex in examples if ex.apis_used and ex.validated is not False]
    quick: list[Example] = []
    for ex in sorted(usable, key=quick_rank):
        if all(ex.title != q.title for q in quick):  # one example per heading
            quick.append(ex)
        if len(quick) == limit:
            break
    return quick


def _quickstart_place(ex: Example) -> int:
    """0: a quickstart, install or tutorial page, or the docs' home page; 1: a section so
    named; 2: elsewhere."""
    page = ex.path.rsplit("/", 1)[-1].lower()
    if _QUICKSTART.search(ex.path) or ("/" not in ex.path and page in INDEX_PAGES):
        return 0
    return 1 if _QUICKSTART.search(" ".join([ex.title, *ex.heading_path, *ex.tags])) else 2


def _concepts(sections: Sequence[DocSection], limit: int) -> list[Concept]:
    """The docs' concepts: their first- and second-level headings, once per page, with their
    first sentences. The budget is shared among the pages (each page's first heading, then
    each page's second, …), so one page of 23 subsections does not leave the others out; a
    project's own pages (changelog, contributing, code of conduct, license) and a heading over
    no sentence (Sphinx's "Indices and tables": ``* genindex * modindex``) are no concepts."""
    from docmentor.library.examples.drift import historical_page
    from docmentor.library.surface.ref_titles import label_titles, with_titles

    titles = label_titles(sections)  # `:ref:` labels read as the titles the docs give them
    by_page: dict[str, list[Concept]] = {}
    seen: set[tuple[str, str]] = set()
    for s in sections:
        if s.level < 1 or s.level > 2 or not s.heading.strip():
            continue
        if historical_page(s.path) or _PROJECT_PAGE.search(s.path.rsplit("/", 1)[-1]):
            continue
        key = (s.path, s.heading.strip().lower())
        if key in seen:
            continue
        seen.add(key)
        # as a reader sees it: ``literal`` as code, roles by their text, "manager::" as "manager:"
        # and without reST substitutions (`|version|`, badges: `|PyPI| |CI|`)
        first = first_sentences(with_titles(s.text, titles), rest=s.path.endswith(".rst"))
        description = display(without_substitutions(first))
        if description and not _SENTENCE.search(description):
            continue  # a list of bare words (a toctree's index entries): nothing said
        by_page.setdefault(s.path, []).append(
            Concept(
                name=without_substitution_marks(s.heading.strip()) or s.heading.strip(),
                description=description,
                page=without_substitution_marks(s.title) or s.path,
                source=f"{s.path}#{s.anchor}" if s.anchor else s.path,
            )
        )
    chosen: list[tuple[int, int, Concept]] = []  # (page's place, its rank there, concept)
    rank = 0
    pages = list(by_page.values())
    while len(chosen) < limit and any(rank < len(p) for p in pages):
        for place, concepts in enumerate(pages):
            if rank < len(concepts) and len(chosen) < limit:
                chosen.append((place, rank, concepts[rank]))
        rank += 1
    return [c for _, _, c in sorted(chosen, key=lambda t: (t[0], t[1]))]


# a project's pages about itself, not the library (file names, as projects write them)
_PROJECT_PAGE = re.compile(
    r"^(?:contributing|contribute|code[-_ ]of[-_ ]conduct|conduct|license|licence|authors|sponsors"
    r"|governance|security)(?:\.\w+)?$",
    re.IGNORECASE,
)
# a sentence: three words in a row (a list of index entries has none)
_SENTENCE = re.compile(r"[A-Za-z][a-z']*[,;]? [A-Za-z`(][\w'`)]*[,;]? [A-Za-z`(]")


def _architecture_text(
    library: str,
    version: str | None,
    purpose: str,
    key_modules: Sequence[NamedText],
    key_classes: Sequence[NamedText],
    entries: Sequence[ApiEntry],
) -> str:
    """The overview's architecture aspect: the purpose, key modules and classes, and the
    most important functions and methods."""
    arch = [f"## Library Architecture ({library} {version or ''})".replace(" )", ")")]
    if purpose:
        arch += ["", purpose]
    if key_modules:
        arch += ["", "### Key Modules:"]
        arch += [f"- **{m.name}**" + (f": {m.description}" if m.description else "") for m in key_modules]
    if key_classes:
        arch += ["", "### Key Classes:"]
        arch += [f"- **{c.name}**" + (f": {c.description}" if c.description else "") for c in key_classes]
    top: list[ApiEntry] = []
    named: set[str] = set()
    for e in sorted(entries, key=lambda e: -e.importance_score):
        # one per name: eight overrides of one abstract `equals` say one thing eight times
        if e.kind in ("function", "method") and e.name not in named and len(top) < 8:
            top.append(e)
            named.add(e.name)
    if top:
        arch += ["", "### Key functions and methods:"]  # by importance: not a count of uses
        said = [(public_path(e), shown(e.description)) for e in top]
        arch += [f"- `{path}`" + (f": {text}" if text else "") for path, text in said]
    return "\n".join(arch)


def _quickstart_text(
    install: Sequence[str], quick: Sequence[Example], version: str | None, examples: Sequence[Example] = ()
) -> str:
    """The overview's quickstart aspect: the install commands and the quick start's examples
    (each with the imports it needs from the page's earlier blocks)."""
    qs = ["## Quick Start"]
    if install:
        qs += ["", "Install:"] + [f"- `{cmd}`" for cmd in install]
    for ex in quick:
        code = with_page_imports(ex, examples)
        qs += ["", f"### {ex.title}", f"```{ex.language}", code.strip("\n"), "```"]
        if ex.validated:
            qs.append(f"✓ Validated on version {version}")
    if len(qs) == 1:
        qs += ["", "The documentation has no example of this library's API."]
    return "\n".join(qs)


def with_page_imports(ex: Example, examples: Sequence[Example]) -> str:
    """``ex``'s code, after the import lines of its page's earlier Python blocks that bind
    names it uses and does not bind itself: rich's quick start shows ``>>> print("[italic
    red]Hello[/italic red] World!")`` under a block that only says ``from rich import print``;
    copied alone, it would print the markup with the built-in ``print``."""
    import ast

    from docmentor.clarity.checks.python import prepare

    if ex.language != "python":
        return ex.code
    source, _, session, skipped = prepare(ex.code, "python", skip_marked=False)
    try:
        tree = ast.parse(source) if source and not skipped else None
    except (SyntaxError, ValueError):
        tree = None
    if tree is None:
        return ex.code
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    bound |= {
        n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    needed = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound
    if not needed:
        return ex.code
    lines: list[str] = []
    for earlier in sorted(examples, key=lambda e: e.line):
        if earlier.path != ex.path or earlier.line >= ex.line or earlier.language != "python":
            continue
        src, _, _, skip = prepare(earlier.code, "python", skip_marked=False)
        try:
            found = ast.parse(src).body if src and not skip else []
        except (SyntaxError, ValueError):
            continue
        for stmt in found:
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                names = {(a.asname or a.name).split(".")[0] for a in stmt.names}
                if names & needed:
                    text = ast.unparse(stmt)
                    if text not in lines:
                        lines.append(text)
                    needed -= names
    if not lines:
        return ex.code
    prefix = "".join(f">>> {line}\n" if session else f"{line}\n" for line in lines)
    return prefix + ex.code


def _concepts_text(concepts: Sequence[Concept]) -> str:
    """The overview's concepts aspect: the concepts under their pages' titles."""
    cs = ["## Core Concepts"]
    pages: dict[str, list[str]] = {}  # a page's lines under its title, pages in order
    for c in concepts:
        said = pages.setdefault(c.page, [])
        if c.name == c.page:
            if c.description:
                said.append(c.description)
            continue
        said.append(f"- **{c.name}**" + (f": {c.description}" if c.description else "") + f" ({c.source})")
    for page, said in pages.items():
        if said:  # a page with nothing to say (only `::: pkg.module`, generated) is no concept
            cs += ["", f"### {page}", *said]
    if len(cs) == 1:
        cs += ["", "The documentation has no headings to take concepts from."]
    return "\n".join(cs)
