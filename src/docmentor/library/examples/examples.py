"""Code examples of an indexed source: extraction, and what each example *is*.

Every code block the engine stored (snippet includes already resolved) becomes an
:class:`Example` with its language normalised, its place (document, line, heading path,
content tabs), whether it is a whole program or a snippet, a complexity level, use-case
tags and the install commands found on its page. Which APIs an example uses is the
matcher's job (:mod:`docmentor.library.examples.matcher`), which also refines the complexity
with the real API count.

What an example is (complete, complexity, tags, install commands) is decided by
:mod:`docmentor.library.examples.classify`; the small code analyses it shares with the
matcher are :mod:`docmentor.library.examples.code_analysis`.
"""

from __future__ import annotations

import builtins
import hashlib
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from docmentor.clarity.checks.python import prepare
from docmentor.errors import NotFoundError
from docmentor.library.examples.classify import (
    code_facts,
    complexity_of,
    for_language,
    is_complete,
    prerequisites,
    tags_of,
)
from docmentor.library.examples.code_analysis import untagged_python
from docmentor.library.examples.setup_code import hidden_blocks
from docmentor.library.knowledge.importance import prose_text
from docmentor.library.models import Example
from docmentor.parse.common import code_start_line, map_line
from docmentor.parse.fences import Fence, closes, fence_open
from docmentor.sources.sphinx_doctest import page_setup_blocks
from docmentor.store.docs import (
    CodeBlockRow,
    OutlineRow,
    code_blocks,
    documents_by_path,
    outline,
    section_text,
)

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.store.db import Store

__all__ = [
    "DEFAULT_LANGUAGES",
    "SUPPORTED_LANGUAGES",
    "detect_languages",
    "extract_examples",
    "normalize_language",
    "setup_examples",
]


DEFAULT_LANGUAGES = ("python", "typescript", "javascript")
SUPPORTED_LANGUAGES = ("python", "typescript", "javascript", "go", "rust")

_ALIASES = {
    "py": "python",
    "python3": "python",
    "py3": "python",
    "pycon": "python",
    "python-repl": "python",
    "ipython": "python",
    "ipython3": "python",
    "ts": "typescript",
    "tsx": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "js": "javascript",
    "jsx": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "node": "javascript",
    "golang": "go",
    "rs": "rust",
}


def normalize_language(tag: str) -> str:
    """The canonical language of a fence's info string (``py`` → ``python``, ``tsx`` → ``typescript``)."""
    lang = tag.strip().lower().split()[0] if tag.strip() else ""
    lang = lang.strip("{}.")
    return _ALIASES.get(lang, lang)


_TAB = re.compile(r"^(\s*)===[+!]?\s+\"([^\"]*)\"")


def _tabs(lines: list[str], k: int) -> list[str]:
    """Labels of the content tabs (``=== "Sync API"``) enclosing the fence at line ``k``."""
    threshold = len(lines[k]) - len(lines[k].lstrip())
    labels: list[str] = []
    for j in range(k - 1, -1, -1):
        if threshold == 0:
            break
        line = lines[j]
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent >= threshold:
            continue
        m = _TAB.match(line)
        if m is None:
            break  # the container (admonition, list item …) ends here
        labels.append(m.group(2).strip())
        threshold = indent
    return labels[::-1]


# a sphinx.ext.doctest block's directive (reST, or a MyST fence) and its group argument
_DOCTEST_DIRECTIVE = re.compile(
    r"[ \t]*(?:\.\.[ \t]+(?:testcode|doctest)::|(?:`{3,}|~{3,}|:{3,})\{(?:testcode|doctest)\})[ \t]*([^\s`]*)"
)


def _doctest_group(lines: Sequence[str], stored_at: Mapping[int, int] | None, line: int) -> str | None:
    """The group of the ``testcode``/``doctest`` directive at page line ``line`` ("default"
    when it names none); None when the block there is no such directive. ``stored_at``: page
    line → its 0-based line in the stored text, when includes moved them (None: the same)."""
    k = line - 1 if stored_at is None else stored_at.get(line, -1)
    if not 0 <= k < len(lines):
        return None
    m = _DOCTEST_DIRECTIVE.match(lines[k])
    if m is None:
        return None
    group = m.group(1).split(",")[0].strip()
    return group or "default"


_SETUP_HEADING = re.compile(
    r"\b(?:install(?:ation|ing)?|set[ -]?up|getting started|requirements?|prerequisites?|dependencies)\b",
    re.IGNORECASE,
)


def _installs_by_section(sections: Sequence[OutlineRow]) -> Callable[[int], list[str]]:
    """The install commands that hold for a section's examples, by section id: those of the
    page's top (its preamble and level-1 section) and of its second-level sections about
    setting up ("## Installation", "## Requirements"), of the sections above it (its heading path's) and its
    own, in page order. A deep section's `pip install sqlite-dump` is for
    its own examples, not for the page's other 160."""
    found = {s.id: prerequisites(s.text) for s in sections}
    by_path = {s.heading_path: s.id for s in sections}
    # the page's top, and its sections about setting up ("## Installation"): for every example
    top = [
        s.id
        for s in sections
        if s.level <= 1 or (s.level <= 2 and s.heading_path and _SETUP_HEADING.search(s.heading_path[-1]))
    ]
    order = {s.id: k for k, s in enumerate(sections)}
    by_id = {s.id: s for s in sections}

    def of(section_id: int) -> list[str]:
        section = by_id.get(section_id)
        ids = set(top)
        if section is not None:
            path = section.heading_path
            ids.update(i for k in range(1, len(path) + 1) if (i := by_path.get(path[:k])) is not None)
            ids.add(section_id)
        return list(
            dict.fromkeys(c for i in sorted(ids, key=lambda i: order.get(i, 0)) for c in found.get(i, ()))
        )

    return of


def _slug(path: str) -> str:
    stem = re.sub(r"\.(md|mdx|markdown|rst|txt|ipynb)$", "", path, flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "doc"


def extract_examples(
    engine: Docmentor, source: str, *, languages: Sequence[str] | None = DEFAULT_LANGUAGES
) -> list[Example]:
    """Every code example of an indexed source, in document (path) and line order.

    Args:
        engine: the index.
        source: the source name.
        languages: canonical languages to keep; None keeps every language.

    ``example_id`` is ``<document slug>-<n>``, n the block's 1-based position among all
    the document's code blocks, so ids do not move when ``languages`` changes.

    Raises:
        NotFoundError: no such source.
    """
    if not engine.store.has_source(source):
        raise NotFoundError(f"unknown source {source!r}", hint="index it first: docmentor add PATH")
    wanted = None if languages is None else {normalize_language(x) for x in languages}
    store = engine.store
    docs = documents_by_path(store, source)
    slugs: set[str] = set()
    examples: list[Example] = []
    included: set[int] = set()  # positions in examples of blocks a page's include pasted in
    for doc in docs:
        slug = _slug(doc.path)
        if slug in slugs:
            slug = f"{slug}-{hashlib.sha1(doc.path.encode()).hexdigest()[:6]}"
        slugs.add(slug)
        # the section's text once per section, not once per block (a long page with many
        # examples in one section repeated it per block: SQLAlchemy's docs, 20 s of 70)
        blocks = code_blocks(store, doc.id)
        picked: list[tuple[int, CodeBlockRow, str]] = []
        for n, b in enumerate(blocks, 1):
            lang = normalize_language(b.language) or untagged_python(b.code)
            if lang and (wanted is None or lang in wanted) and b.code.strip():
                picked.append((n, b, lang))
        if not picked:
            continue
        content = store.content(doc.id)
        lines = content.split("\n")
        line_map = store.line_map(doc.id)
        pasted = Counter(line_map or ())  # page line → the stored lines at it (an include: many)
        stored_at = None if line_map is None else {o: k for k, o in reversed(list(enumerate(line_map)))}
        fence_at = _fence_lines(lines, line_map)
        installs = _installs_by_section(outline(store, doc.id))
        prose_of: dict[int, str] = {}  # section id → its prose
        for n, block, lang in picked:
            if lang == "python" and prepare(block.code, "python")[3] in ("empty", "shell session"):
                continue
            heading_path = [h for h in block.heading_path if h]
            k = fence_at.get(block.line)
            tabs = _tabs(lines, k) if k is not None else []
            heading = heading_path[-1] if heading_path else (doc.title or doc.path)
            title = heading
            if tabs and normalize_language(re.sub(r"\[\^\w+\]", "", tabs[-1])) not in (lang, "python3"):
                title = f"{heading} ({tabs[-1]})"
            facts = code_facts(block.code, lang)
            code_line = code_start_line(lines, block.line, block.code) if line_map is None else None
            code_lines = (
                _page_lines(line_map, k, block.code) if line_map is not None and k is not None else None
            )
            if pasted[block.line] > 1:
                included.add(len(examples))  # many stored lines at its page line: an include's
            examples.append(
                Example(
                    example_id=f"{slug}-{n}",
                    title=title,
                    code=block.code,
                    language=lang,
                    source=source,
                    path=doc.path,
                    line=block.line,
                    code_line=code_line,
                    code_lines=code_lines,
                    heading_path=heading_path,
                    tabs=tabs,
                    complete=is_complete(block.code, lang),
                    use_case=heading,
                    complexity=complexity_of(block.code, lang),
                    tags=tags_of([doc.title, *heading_path], is_async=facts.is_async),
                    prerequisites=for_language(installs(block.section_id), lang),
                    doctest_group=_doctest_group(lines, stored_at, block.line),
                    context=_section_prose(store, block.section_id, prose_of),
                )
            )
    return _without_included_copies(examples, included)


def _without_included_copies(examples: list[Example], included: set[int]) -> list[Example]:
    """The examples without those a page's include pasted in (Sphinx's ``.. include::
    quickstart.rst`` in ``index.rst``) that another page shows as its own: one example in
    one place, not two that count twice (a pydash tour: each quickstart API had its one
    example twice, cited at the include's line)."""
    if not included:
        return examples
    own = {(ex.language, ex.code.strip()): ex.path for k, ex in enumerate(examples) if k not in included}
    return [
        ex
        for k, ex in enumerate(examples)
        if k not in included or own.get((ex.language, ex.code.strip()), ex.path) == ex.path
    ]


def setup_examples(
    engine: Docmentor, source: str, *, languages: Sequence[str] | None = DEFAULT_LANGUAGES
) -> list[Example]:
    """The set-up code each document of an indexed source hides in HTML comments
    (:func:`~docmentor.library.examples.setup_code.hidden_blocks`), as examples to give the
    matcher as page context (``match_examples(…, context=…)``): never examples shown. Their
    ``line`` is the original file's, so they come before the blocks that rely on them.

    Raises:
        NotFoundError: no such source.
    """
    wanted = None if languages is None else {normalize_language(x) for x in languages}
    out: list[Example] = []
    for doc, content, line_map in _pages_holding(engine, source, "<!--"):
        for n, block in enumerate(hidden_blocks(content), 1):
            lang = normalize_language(block.info.split()[0] if block.info.split() else "")
            lang = lang or untagged_python(block.code)
            if not lang or (wanted is not None and lang not in wanted) or not block.code.strip():
                continue
            out.append(
                Example(
                    example_id=f"setup-{doc.path}-{n}",
                    title="set-up code",
                    code=block.code,
                    language=lang,
                    source=source,
                    path=doc.path,
                    line=map_line(line_map, block.line),
                )
            )
    return out


def sphinx_setup_examples(engine: Docmentor, source: str, global_code: str = "") -> list[Example]:
    """The code sphinx.ext.doctest runs before each page's doctests
    (:mod:`~docmentor.sources.sphinx_doctest`): ``global_code`` (the docs' ``conf.py``
    ``doctest_global_setup``) on every page with a doctest session or a ``testcode`` block,
    then the page's own ``testsetup`` blocks, as examples to give the matcher as page context
    and ``--validate`` as the page's set-up: never examples shown.

    Raises:
        NotFoundError: no such source.
    """
    out: list[Example] = []
    markers = ("testsetup", ">>>", "testcode") if global_code.strip() else ("testsetup",)
    for doc, content, line_map in _pages_holding(engine, source, *markers):
        blocks = page_setup_blocks(doc.path, content)
        if global_code.strip() and any(m in content for m in (">>>", "testcode")):
            setup = Example(
                example_id=f"global-setup-{doc.path}", title="doctest set-up", code=global_code,
                language="python", source=source, path=doc.path, line=0,
            )  # fmt: skip
            out.append(setup)
        for n, block in enumerate(blocks, 1):
            own = Example(
                example_id=f"testsetup-{doc.path}-{n}", title="doctest set-up", code=block.code,
                language="python", source=source, path=doc.path, line=map_line(line_map, block.line),
            )  # fmt: skip
            out.append(own)
    return out


# Sphinx's ``.. module:: jinja2.nativetypes`` / ``.. currentmodule:: x``: the module a page's
# unqualified names are in (unindented: one shown in a code block or a directive's body is
# not the page's)
_CURRENT_MODULE = re.compile(r"^\.\.[ \t]+(?:py:)?(?:current)?module ?::[ \t]*([A-Za-z_][\w.]*)[ \t]*$", re.M)
# a page's current module does not shadow Python's builtins in its code: `open(...)` under
# `.. module:: fsspec` is still the builtin (Sphinx's current module is for cross-references)
_BUILTINS = frozenset(dir(builtins))


def module_examples(engine: Docmentor, source: str, names: Mapping[str, Collection[str]]) -> list[Example]:
    """Page context for the matcher (``match_examples(…, context=…)``, never shown): where a
    reST page sets its current module (``.. module::``, ``.. currentmodule::``), the names
    ``names[module]`` are bound from it from there on, as Sphinx reads the page — a doctest
    under ``.. module:: jinja2.nativetypes`` that writes ``NativeEnvironment()`` means that
    module's class; ``.. currentmodule:: None`` unbinds them. ``names``: module → the public
    names it defines or re-exports.

    Raises:
        NotFoundError: no such source.
    """
    out: list[Example] = []
    for doc, content, line_map in _pages_holding(engine, source, "module::"):
        previous: list[str] = []  # the names the page's last current module bound
        line, counted = 1, 0  # the line of ``content[counted]``, counted on as matches come
        for n, m in enumerate(_CURRENT_MODULE.finditer(content), 1):
            line += content.count("\n", counted, m.start())
            counted = m.start()
            bound = sorted(
                x
                for x in names.get(m.group(1), ())
                if x.isidentifier() and not x.startswith("_") and x not in _BUILTINS
            )
            if m.group(1) == "None":  # ``.. currentmodule:: None``: no module from here on
                code, previous = "".join(f"{x} = None\n" for x in previous), []
            elif bound:
                code, previous = f"from {m.group(1)} import {', '.join(bound)}\n", bound
            else:
                continue
            if not code:
                continue
            out.append(
                Example(
                    example_id=f"module-{doc.path}-{n}",
                    title="current module",
                    code=code,
                    language="python",
                    source=source,
                    path=doc.path,
                    line=map_line(line_map, line),
                )
            )
    return out


def _pages_holding(
    engine: Docmentor, source: str, *markers: str
) -> Iterator[tuple[Any, str, list[int] | None]]:
    """(document, its text, its line map) of each document of ``source`` whose text holds
    one of ``markers``, one at a time.

    Raises:
        NotFoundError: no such source (at once, before any document is read).
    """
    if not engine.store.has_source(source):
        raise NotFoundError(f"unknown source {source!r}", hint="index it first: docmentor add PATH")
    store = engine.store
    docs = documents_by_path(store, source)
    return (
        (d, c, store.line_map(d.id))
        for d, c in ((d, store.content(d.id)) for d in docs)
        if any(m in c for m in markers)
    )


CONTEXT_CHARS = 1500


def _section_prose(store: Store, section_id: int, cache: dict[int, str]) -> str:
    """:func:`_prose` of a stored section, read and computed once per section."""
    if section_id not in cache:
        cache[section_id] = _prose(section_text(store, section_id) or "")
    return cache[section_id]


def _prose(section_text: str) -> str:
    """The words around an example: its section without code blocks (for finding APIs by task)."""
    text = prose_text(section_text or "")  # one line scan: linear, whatever the fences
    return " ".join(text.split())[:CONTEXT_CHARS]


def _page_lines(line_map: list[int], fence: int, code: str) -> list[int] | None:
    """The page line of each line of a fenced block's code (its fence on stored line
    ``fence``, 0-based), when they do not simply follow each other; None when they do."""
    n = code.rstrip("\n").count("\n") + 1
    out = [map_line(line_map, fence + 2 + i) for i in range(n)]
    return None if out == list(range(out[0], out[0] + n)) else out


def _fence_lines(lines: list[str], line_map: list[int] | None) -> dict[int, int]:
    """Original-file line of each opening fence → its 0-based line in the stored text."""
    out: dict[int, int] = {}
    inside: Fence | None = None
    for k, line in enumerate(lines):
        if inside is None:
            inside = fence_open(line, any_indent=True)
            if inside is not None:
                out.setdefault(map_line(line_map, k + 1), k)
        elif closes(line, inside, any_indent=True):
            inside = None
    return out


def detect_languages(
    examples: Iterable[Example],
    min_examples: int = 5,
    *,
    supported: Collection[str] | None = SUPPORTED_LANGUAGES,
) -> list[str]:
    """Languages with more than ``min_examples`` examples, the most frequent first.

    Only ``supported`` languages count (None: any language, shell and JSON included).
    """
    counts = Counter(
        ex.language for ex in examples if ex.language and (supported is None or ex.language in supported)
    )
    return [lang for lang, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n > min_examples]
