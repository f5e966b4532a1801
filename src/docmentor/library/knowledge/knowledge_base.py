"""The ``knowledge_base/`` folder: the structured output the library-knowledge MCP tools read.

::

    knowledge_base/
    ├── index.json             library, version, counts, the file map
    ├── library_overview.json  description, key modules/classes, quickstart, concepts, and
    │                          the text get_library_overview(aspect) answers with
    ├── api_catalog/<group>.json   a list of ApiEntry: one file per class (the class and its
    │                              members) or module (its functions and attributes)
    ├── examples_db/<page>.json    a list of Example: one file per documentation page
    ├── drift.json             (when given) the drift report
    └── metadata.json          stats, generation settings, generated_at, scoring, versions

Every file is validated with pydantic when written and when loaded. A knowledge base is
written into a temporary sibling folder and renamed over the old one only when complete,
so a failed generation leaves the previous knowledge base as it was.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from docmentor.embeddings import LibraryVectors
from docmentor.errors import NotFoundError, StoreError
from docmentor.library.knowledge.importance import SCORING, WEIGHTS, prose_text, public_path
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.docstrings import plain, readable_summary
from docmentor.parse.fences import Fence, closes, fence_open

log = logging.getLogger(__name__)

__all__ = [
    "ASPECTS",
    "Concept",
    "DocSection",
    "KbIndex",
    "KbMetadata",
    "KnowledgeBase",
    "LibraryOverview",
    "build_overview",
    "first_sentences",
    "load_kb",
    "write_kb",
]

Aspect = Literal["architecture", "quickstart", "concepts"]
ASPECTS: tuple[Aspect, ...] = ("architecture", "quickstart", "concepts")
# bumped when a catalog field is added: an older docmentor then says the knowledge base is
# newer than it, instead of failing its schema (2: open_members, item_class_id, writable);
# this one reads every format up to its own (new fields have defaults)
KB_FORMAT = 2
_QUICKSTART = re.compile(
    r"quick\s*-?\s*start|getting[\s_-]*started|get[\s_-]*started|install|tutorial|basic|intro", re.I
)
INDEX_PAGES = ("index.md", "readme.md", "index.rst", "readme.rst", "index.mdx")  # a docs home page


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KbFiles(_Model):
    overview: str = "library_overview.json"
    metadata: str = "metadata.json"
    api_catalog: dict[str, str] = Field(default_factory=dict)  # group -> relative path
    examples_db: dict[str, str] = Field(default_factory=dict)  # group -> relative path
    drift: str | None = None
    embeddings: str | None = None  # embeddings/api_embeddings.json (model, ids) beside its .npy


class KbEmbeddings(_Model):
    model: str
    dimensions: int
    api_ids: list[str]  # the API each row belongs to
    primary: int | None = None  # the first rows are one per API; after them, docstring passages
    matrix: str = "api_embeddings.npy"  # relative to this file's folder


class KbIndex(_Model):
    format: int = KB_FORMAT
    library: str
    version: str | None
    generated_at: str
    counts: dict[str, int]
    files: KbFiles


class NamedText(_Model):
    name: str
    description: str = ""


class Concept(_Model):
    name: str  # a heading
    description: str = ""  # the first sentences under it
    page: str = ""  # the title of its page
    source: str = ""  # document path#anchor


class LibraryOverview(_Model):
    library: str
    version: str | None
    description: str = ""
    key_modules: list[NamedText] = Field(default_factory=list)
    key_classes: list[NamedText] = Field(default_factory=list)
    install: list[str] = Field(default_factory=list)
    quickstart_examples: list[str] = Field(default_factory=list)  # example_ids
    concepts: list[Concept] = Field(default_factory=list)
    aspects: dict[Aspect, str] = Field(default_factory=dict)  # what get_library_overview(aspect) returns


class KbMetadata(_Model):
    library: str
    version: str | None
    generated_at: str
    stats: dict[str, Any]
    settings: dict[str, Any]
    scoring: dict[str, Any]
    versions: dict[str, str | None]


@dataclass(frozen=True)
class KnowledgeBase:
    """A knowledge base as loaded (every file validated)."""

    path: Path
    index: KbIndex
    overview: LibraryOverview
    entries: list[ApiEntry]
    examples: list[Example]
    metadata: KbMetadata
    drift: Any = None
    vectors: LibraryVectors | None = None  # the APIs' embeddings, when generated with them

    @property
    def library(self) -> str:
        return self.index.library

    @property
    def version(self) -> str | None:
        return self.index.version


@dataclass(frozen=True)
class DocSection:
    """One stored section of the docs, for the overview's concepts and prose mentions."""

    path: str
    title: str
    heading: str
    level: int
    anchor: str
    text: str


# -- the overview ------------------------------------------------------------------------


_HTML_TAG = re.compile(r"<[^<>\n]{1,400}>")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)")


_TILDES = re.compile(r"^~{3,}\s*$")


def _fence_open(line: str, previous: str) -> Fence | None:
    """The code fence a line opens: not a reST title's ``~~~~`` underline (a run of tildes
    right under a text line at least as long as it)."""
    fence = fence_open(line, any_indent=True)
    if fence is None or (
        _TILDES.match(line) and previous.strip() and len(line.strip()) >= len(previous.strip())
    ):
        return None
    return fence


_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\s]*\)")  # [text](url) → text
_LEAD_IN = (":", "...", "…")
# "Install it with pip:", "Sending a request..." introduce what follows
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*_\[(])")


def _paragraphs(text: str) -> list[tuple[str, bool]]:
    """A section's paragraphs outside code fences, each with whether a code block follows it."""
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    fence: Fence | None = None
    previous = ""
    for line in text.split("\n"):
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
        elif (fence := _fence_open(line, previous)) is not None:
            if current:
                blocks.append(("p", "\n".join(current)))
                current = []
            blocks.append(("code", ""))
        elif line.strip():
            current.append(line)
        elif current:
            blocks.append(("p", "\n".join(current)))
            current = []
        previous = line
    if current and fence is None:
        blocks.append(("p", "\n".join(current)))
    return [
        (body, k + 1 < len(blocks) and blocks[k + 1][0] == "code")
        for k, (kind, body) in enumerate(blocks)
        if kind == "p"
    ]


_DIRECTIVE_OPTION = re.compile(r"^\s*:[\w-]+:(?:\s|$)")
_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")


def _underlines(title: str, line: str) -> bool:
    """``line`` underlines ``title``: Markdown's ``===`` / ``---``, or a reST adornment at
    least as long as the title (``***`` under a short line is a thematic break)."""
    m = _ADORNMENT.match(line)
    if m is None:
        return False
    return m.group(1) in "=-" or len(line.rstrip()) >= len(title.rstrip())


def _without_comments(text: str) -> str:
    """The text without what is written for the docs' build, not its reader, outside code
    fences: HTML comments (``<!-- [[[cog … ]]] -->``: one that is not closed on its line
    only when it opens the line — ``Write `<!--` to open one`` is prose) and reST explicit
    markup blocks — a ``..`` line (a comment: "created by sphinx-quickstart on …", a
    directive such as ``.. toctree::``, a target) with the lines indented under it, blank
    lines between them included (an empty ``..`` comment is one line)."""
    out: list[str] = []
    fence: Fence | None = None
    comment = False
    under = -1  # the indentation of the ".." line whose block we are in
    previous = ""
    for line in text.split("\n"):
        if under >= 0 and not comment and fence is None:
            if not line.strip() or len(line) - len(line.lstrip()) > under:
                continue  # inside the block (a code-block's "<!--" or "```" too)
            under = -1
            out.append("")  # the block ended a paragraph
        code = fence is not None  # a line in a fence, or its closing line
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
        elif not comment:
            fence = _fence_open(line, previous)
        previous = line
        if code or fence is not None:
            out.append(line)
            continue
        kept, comment = _uncommented(line, comment)
        if kept.lstrip().startswith(".. "):
            under = len(kept) - len(kept.lstrip())
            continue
        if kept.strip() == "..":
            continue
        out.append(kept)
    return "\n".join(out)


def _uncommented(line: str, comment: bool) -> tuple[str, bool]:
    """The line without its HTML comments, and whether one is still open at its end
    (``comment``: one was open at its start). Linear: positions, no re-slicing."""
    parts: list[str] = []
    at = 0
    while at <= len(line):
        if comment:
            end = line.find("-->", at)
            if end < 0:
                return "".join(parts), True
            at, comment = end + 3, False
            continue
        start = line.find("<!--", at)
        if start < 0:
            parts.append(line[at:])
            break
        closed = line.find("-->", start + 4)
        if closed < 0 and line[:start].strip():
            parts.append(line[at:])  # "<!--" in running text, never closed here: prose
            break
        parts.append(line[at:start])
        at, comment = (closed + 3, False) if closed >= 0 else (len(line) + 1, True)
    return "".join(parts), comment


def first_sentences(text: str, limit: int = 240) -> str:
    """The first sentences of a section's prose: headings, admonitions, code, HTML banners and
    badges left out, and so are the lines that only lead in to what follows (a paragraph
    before a code block, or ending in ``:`` or ``...``) and one- or two-word banner lines —
    unless the section has nothing else: then its first lead-in."""
    kept: list[str] = []
    lead_ins: list[str] = []  # the fall-back when the section has nothing else to say
    for body, before_code in _paragraphs(_without_comments(text)):
        raw = prose_text(body).split("\n")
        # a title is the line over its adornment (reST ====, ~~~~ at least as long; a
        # Markdown setext === or ---); both go
        titled = {k for k in range(len(raw) - 1) if raw[k].strip() and _underlines(raw[k], raw[k + 1])}
        lines = [
            ln
            for k, ln in enumerate(raw)
            if k not in titled and not (k > 0 and k - 1 in titled)
            if ln.strip()
            # .. reST directives, MyST colon fences (`:::{note}`, `:::{glossary}` and their ends)
            and not ln.lstrip().startswith(("#", "!!!", "===", "???", ".. ", ":::"))
            and not (_DIRECTIVE_OPTION.match(ln) and ln[:1].isspace())  # and their options
            and ln.strip() not in ("---", "***")
        ]
        flat = " ".join(plain(_LINK.sub(r"\1", _HTML_TAG.sub(" ", _IMAGE.sub(" ", " ".join(lines))))).split())
        if len(flat.split()) < 3:
            continue
        if before_code or flat.endswith(_LEAD_IN):
            # its last sentence leads in ("For example:"); the ones before it may not
            head = " ".join(_SENTENCE_END.split(flat)[:-1])
            if len(head.split()) < 3:
                lead_ins.append(flat)
                if before_code:
                    continue  # prose may go on after the example
                break  # what follows is what it leads in to: a list, a table
            kept.append(head)
            break  # what follows is what it leads in to: a list, an example
        kept.append(flat)
        if sum(map(len, kept)) > limit:
            break
    flat = " ".join(kept or lead_ins[:1])
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > limit // 3 else cut.rstrip() + "…"


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
    library: str, examples: Sequence[Example], limit: int = 5, *, language: str | None = None
) -> list[str]:
    """How to install the library, from the docs' install commands: those that install only
    the library itself first (plain before extras), then others seen on its quickstart and
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

    seen = list(dict.fromkeys(p for ex in examples for p in ex.prerequisites))
    mine = sorted((p for p in seen if only_the_library(p)), key=lambda p: ("[" in p, seen.index(p)))
    near = [
        p
        for ex in examples
        if _QUICKSTART.search(" ".join([ex.path, ex.title, *ex.heading_path]))
        and (language is None or ex.language == language)  # npm for a Python library's page: no
        for p in ex.prerequisites
        if p not in mine
    ]
    found = list(dict.fromkeys(mine + near))
    mentioning = [p for p in seen if re.search(rf"\b{name}\b", p.replace("_", "-").lower())]
    return (found or mentioning or seen)[:limit]


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
    install = install_commands(library, examples, language=language)
    quick = _quickstart_examples(library, examples)
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
            "quickstart": _quickstart_text(install, quick, version),
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
        mod = next((m.api_id for m in modules if e.api_id.startswith(m.api_id + ".")), None)
        if mod is not None:
            best[mod] = max(best.get(mod, 0.0), e.importance_score)
    modules.sort(key=lambda m: (-best.get(m.api_id, 0.0), m.api_id))
    return [NamedText(name=m.api_id, description=shown(m.description)) for m in modules[:limit]]


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


def _quickstart_examples(library: str, examples: Sequence[Example], limit: int = 3) -> list[Example]:
    """The quick start's examples: matched, not failed, one per heading; a first example
    shows the library from the start (import, or library.call()), whole; then the docs' own
    order (a quickstart's first examples are its canonical ones)."""
    mentions_library = re.compile(rf"\b(?:import|from)\s+{re.escape(library)}\b|\b{re.escape(library)}\.")

    def quick_rank(ex: Example) -> tuple[int, bool, bool, bool, str, int]:
        return (
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
    first sentences."""
    concepts: list[Concept] = []
    seen: set[tuple[str, str]] = set()
    for s in sections:
        if s.level < 1 or s.level > 2 or not s.heading.strip():
            continue
        key = (s.path, s.heading.strip().lower())
        if key in seen:
            continue
        seen.add(key)
        concepts.append(
            Concept(
                name=s.heading.strip(),
                description=first_sentences(s.text),
                page=s.title or s.path,
                source=f"{s.path}#{s.anchor}" if s.anchor else s.path,
            )
        )
        if len(concepts) >= limit:
            break
    return concepts


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
    top = [e for e in sorted(entries, key=lambda e: -e.importance_score) if e.kind in ("function", "method")][
        :8
    ]
    if top:
        arch += ["", "### Most used functions and methods:"]
        said = [(public_path(e), shown(e.description)) for e in top]
        arch += [f"- `{path}`" + (f": {text}" if text else "") for path, text in said]
    return "\n".join(arch)


def _quickstart_text(install: Sequence[str], quick: Sequence[Example], version: str | None) -> str:
    """The overview's quickstart aspect: the install commands and the quick start's examples."""
    qs = ["## Quick Start"]
    if install:
        qs += ["", "Install:"] + [f"- `{cmd}`" for cmd in install]
    for ex in quick:
        qs += ["", f"### {ex.title}", f"```{ex.language}", ex.code.strip("\n"), "```"]
        if ex.validated:
            qs.append(f"✓ Validated on version {version}")
    if len(qs) == 1:
        qs += ["", "The documentation has no example of this library's API."]
    return "\n".join(qs)


def _concepts_text(concepts: Sequence[Concept]) -> str:
    """The overview's concepts aspect: the concepts under their pages' titles."""
    cs = ["## Core Concepts"]
    page: str | None = None
    for c in concepts:
        if c.page != page:
            page = c.page
            cs += ["", f"### {page}"]
        if c.name == page:
            if c.description:
                cs.append(c.description)
            continue
        cs.append(f"- **{c.name}**" + (f": {c.description}" if c.description else "") + f" ({c.source})")
    if len(cs) == 1:
        cs += ["", "The documentation has no headings to take concepts from."]
    return "\n".join(cs)


# -- grouping ----------------------------------------------------------------------------------


def api_group(entry: ApiEntry, by_id: Mapping[str, ApiEntry]) -> str:
    """The catalog file an API goes in: its class (a class and its members) or its module."""
    owner = entry
    while owner.parent is not None and owner.parent in by_id:
        owner = by_id[owner.parent]
    path = public_path(owner)
    if owner.kind in ("class", "module"):
        return path
    return path.rsplit(".", 1)[0] if "." in path else path


def example_group(example: Example) -> str:
    """The examples_db file an example goes in: its documentation page."""
    stem = re.sub(r"\.(md|mdx|markdown|rst|txt|ipynb)$", "", example.path, flags=re.I)
    return stem or "examples"


def _file_names(groups: Sequence[str], folder: str) -> dict[str, str]:
    """group -> ``folder/<safe name>.json``, unique even on case-insensitive file systems."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for g in sorted(groups):
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", g).strip("._") or "group"
        if len(safe) > 100 or safe.lower() in taken:
            safe = f"{safe[:80]}-{hashlib.sha1(g.encode()).hexdigest()[:8]}"
        taken.add(safe.lower())
        out[g] = f"{folder}/{safe}.json"
    return out


# -- writing -------------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # allow_nan=False: NaN is not JSON; a value json cannot write fails here (TypeError/ValueError)
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")


def write_kb(
    directory: Path,
    *,
    library: str,
    version: str | None,
    overview: LibraryOverview,
    entries: Sequence[ApiEntry],
    examples: Sequence[Example],
    settings: Mapping[str, Any],
    stats: Mapping[str, Any],
    drift: Any = None,
    vectors: LibraryVectors | None = None,
) -> KnowledgeBase:
    """Write ``directory`` (a ``knowledge_base`` folder), replacing what was there atomically.

    Args:
        directory: the knowledge base folder; its parent is created when missing.
        library, version: what it describes.
        overview: from :func:`build_overview`.
        entries: the API catalog (importance scored, examples linked).
        examples: the examples database.
        settings: the generation settings (recorded in metadata.json).
        stats: generation statistics (recorded in metadata.json).
        drift: a JSON-able drift report, written as drift.json when given.
        vectors: the APIs' embeddings, written to embeddings/ when given.

    Returns:
        The knowledge base as written (validated).

    Raises:
        StoreError: a record does not validate or cannot be written; the old folder is intact.
    """
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    stamp = _now()
    try:
        # validate on write: re-build every record from its data (in-place edits skip pydantic)
        checked_entries = [ApiEntry.model_validate(e.model_dump(warnings=False)) for e in entries]
        checked_examples = [Example.model_validate(x.model_dump(warnings=False)) for x in examples]
        checked_overview = LibraryOverview.model_validate(overview.model_dump(warnings=False))
    except ValidationError as exc:
        raise StoreError(f"invalid knowledge base record: {exc}") from exc
    checked_entries.sort(key=lambda e: (-e.importance_score, e.api_id))
    by_id = {e.api_id: e for e in checked_entries}
    api_groups: dict[str, list[ApiEntry]] = {}
    for e in checked_entries:
        api_groups.setdefault(api_group(e, by_id), []).append(e)
    ex_groups: dict[str, list[Example]] = {}
    for x in checked_examples:
        ex_groups.setdefault(example_group(x), []).append(x)
    files = KbFiles(
        api_catalog=_file_names(list(api_groups), "api_catalog"),
        examples_db=_file_names(list(ex_groups), "examples_db"),
        drift="drift.json" if drift is not None else None,
        embeddings=_EMBEDDINGS if vectors is not None else None,
    )
    index = KbIndex(
        library=library,
        version=version,
        generated_at=stamp,
        counts={
            "apis": len(checked_entries),
            "examples": len(checked_examples),
            "api_files": len(api_groups),
            "example_files": len(ex_groups),
        },
        files=files,
    )
    try:
        from docmentor import __version__ as docmentor_version

        metadata = KbMetadata(
            library=library,
            version=version,
            generated_at=stamp,
            stats=dict(stats),
            settings=dict(settings),
            scoring={"name": SCORING, "weights": dict(WEIGHTS), "range": [0.0, 1.0]},
            versions={
                "library": version,
                "docmentor": docmentor_version,
                "python": ".".join(map(str, sys.version_info[:3])),
                "kb_format": str(KB_FORMAT),
            },
        )
    except ValidationError as exc:
        raise StoreError(f"invalid knowledge base metadata: {exc}") from exc

    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}-new-", dir=directory.parent))
    as_created(tmp)
    try:
        for group, rel in files.api_catalog.items():
            _dump(tmp / rel, [e.model_dump(mode="json") for e in api_groups[group]])
        for group, rel in files.examples_db.items():
            _dump(tmp / rel, [x.model_dump(mode="json") for x in ex_groups[group]])
        _dump(tmp / files.overview, checked_overview.model_dump(mode="json"))
        if drift is not None:
            _dump(tmp / "drift.json", drift)
        if vectors is not None:
            _dump_vectors(tmp, vectors)
        _dump(tmp / files.metadata, metadata.model_dump(mode="json"))
        _dump(tmp / "index.json", index.model_dump(mode="json"))  # last: its presence marks a whole KB
        written = load_kb(tmp)  # validate on write: what readers will load
        _swap(tmp, directory)
    except (TypeError, ValueError, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise StoreError(
            f"could not write the knowledge base {directory}: {exc}",
            hint="the previous knowledge base (if any) was left as it was",
        ) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return KnowledgeBase(
        path=directory,
        index=written.index,
        overview=written.overview,
        entries=written.entries,
        examples=written.examples,
        metadata=written.metadata,
        drift=written.drift,
        vectors=written.vectors,
    )


_EMBEDDINGS = "embeddings/api_embeddings.json"


def _dump_vectors(folder: Path, vectors: LibraryVectors) -> None:
    import numpy as np

    if vectors.matrix.ndim != 2 or vectors.matrix.shape[0] != len(vectors.api_ids):
        raise ValueError(f"embeddings: {vectors.matrix.shape} does not fit {len(vectors.api_ids)} APIs")
    meta = KbEmbeddings(
        model=vectors.model,
        dimensions=int(vectors.matrix.shape[1]),
        api_ids=vectors.api_ids,
        primary=vectors.primary,
    )
    target = folder / _EMBEDDINGS
    target.parent.mkdir(parents=True, exist_ok=True)
    np.save(target.parent / meta.matrix, np.ascontiguousarray(vectors.matrix, dtype=np.float32))
    _dump(target, meta.model_dump(mode="json"))


def _load_vectors(directory: Path, rel: str) -> LibraryVectors:
    import numpy as np

    path = directory / rel
    meta: KbEmbeddings = _valid(KbEmbeddings, _read(path, directory), path)
    matrix_path = path.parent / meta.matrix
    if Path(meta.matrix).name != meta.matrix:
        raise StoreError(f"knowledge base {directory}: embeddings file {meta.matrix!r} points elsewhere")
    try:
        matrix = np.load(matrix_path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise StoreError(
            f"knowledge base file {matrix_path} is not a readable embeddings matrix: {exc}",
            hint="regenerate it: docmentor readme-llm generate",
        ) from exc
    if matrix.dtype != np.float32 or matrix.shape != (len(meta.api_ids), meta.dimensions):
        raise StoreError(
            f"knowledge base file {matrix_path} holds {matrix.dtype} {matrix.shape},"
            f" not float32 ({len(meta.api_ids)}, {meta.dimensions})",
            hint="regenerate it: docmentor readme-llm generate",
        )
    primary = meta.primary if meta.primary is not None else len(meta.api_ids)
    return LibraryVectors(model=meta.model, api_ids=list(meta.api_ids), matrix=matrix, primary=primary)


def _umask() -> int:
    try:  # Linux says it without changing it (another thread may be creating files)
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere reading it means setting it: set back at once
    os.umask(mask)
    return mask


def as_created(path: Path) -> None:
    """Give a file or folder made by ``tempfile`` (private: 0600 / 0700) the mode an ordinary
    ``open`` or ``mkdir`` would have (0644 / 0755 under umask 022): outputs are for others to
    read too (a CI job, a container, another user)."""
    mode = 0o777 if path.is_dir() else 0o666
    os.chmod(path, mode & ~_umask())


def _swap(new: Path, target: Path) -> None:
    """Put the complete folder ``new`` at ``target``; the old one goes only once ``new`` is in place."""
    if not target.exists() and not target.is_symlink():
        os.rename(new, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
    os.rmdir(old)
    os.rename(target, old)
    try:
        os.rename(new, target)
    except OSError:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


# -- loading ----------------------------------------------------------------------------------------


def _read(path: Path, kb: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(
            f"knowledge base {kb} is incomplete: {path.relative_to(kb)} is missing",
            hint="regenerate it: docmentor readme-llm generate",
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(
            f"knowledge base file {path} is not readable JSON: {exc}",
            hint="regenerate it: docmentor readme-llm generate",
        ) from exc


def _valid(model: Any, data: Any, path: Path) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise StoreError(
            f"knowledge base file {path} does not match its schema"
            f" ({exc.error_count()} error(s); first at {where or 'top level'}: {first.get('msg')})",
            hint="regenerate it: docmentor readme-llm generate",
        ) from exc


def load_kb(directory: Path) -> KnowledgeBase:
    """Load and validate a knowledge base folder.

    Raises:
        NotFoundError: there is no knowledge base there.
        StoreError: a file is missing, is not JSON or does not match its schema.
    """
    directory = Path(directory)
    if not (directory / "index.json").is_file():
        raise NotFoundError(
            f"no knowledge base at {directory}", hint="generate one: docmentor readme-llm generate"
        )
    index: KbIndex = _valid(KbIndex, _read(directory / "index.json", directory), directory / "index.json")
    if index.format > KB_FORMAT:
        raise StoreError(
            f"knowledge base {directory} has format {index.format}, newer than this docmentor's {KB_FORMAT}",
            hint="upgrade docmentor or regenerate it",
        )
    files = index.files
    named = [files.overview, files.metadata, *files.api_catalog.values(), *files.examples_db.values()]
    for rel in [*named, *([files.embeddings] if files.embeddings else [])]:
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise StoreError(f"knowledge base {directory}: file map entry {rel!r} points outside it")
    overview = _valid(
        LibraryOverview, _read(directory / files.overview, directory), directory / files.overview
    )
    metadata = _valid(KbMetadata, _read(directory / files.metadata, directory), directory / files.metadata)
    entries: list[ApiEntry] = []
    for rel in files.api_catalog.values():
        data = _read(directory / rel, directory)
        if not isinstance(data, list):
            raise StoreError(f"knowledge base file {directory / rel} must hold a list of APIs")
        entries += [_valid(ApiEntry, item, directory / rel) for item in data]
    examples: list[Example] = []
    for rel in files.examples_db.values():
        data = _read(directory / rel, directory)
        if not isinstance(data, list):
            raise StoreError(f"knowledge base file {directory / rel} must hold a list of examples")
        examples += [_valid(Example, item, directory / rel) for item in data]
    drift = _read(directory / files.drift, directory) if files.drift else None
    vectors = _load_vectors(directory, files.embeddings) if files.embeddings else None
    if len(entries) != index.counts.get("apis", len(entries)) or len(examples) != index.counts.get(
        "examples", len(examples)
    ):
        raise StoreError(
            f"knowledge base {directory} is inconsistent: index.json counts differ from its files",
            hint="regenerate it: docmentor readme-llm generate",
        )
    entries.sort(key=lambda e: (-e.importance_score, e.api_id))
    return KnowledgeBase(
        path=directory,
        index=index,
        overview=overview,
        entries=entries,
        examples=examples,
        metadata=metadata,
        drift=drift,
        vectors=vectors,
    )
