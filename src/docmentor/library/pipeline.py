"""``generate`` and its stages: README.LLM and the knowledge base, from docs and the real API.

:func:`generate` runs the whole pipeline — index the docs, introspect the installed API,
extract the docs' examples and match them to APIs, score importance, optionally run the
examples (``validate``) and report drift, then write ``README.LLM`` and/or
``knowledge_base/`` and register the knowledge base in the index, so the MCP server and
``docmentor api`` serve it at once. The stages' work lives in the sub-packages of
:mod:`docmentor.library`; this module runs them in order.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.errors import UsageError

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.library.knowledge.knowledge_base import DocSection
    from docmentor.library.models import ApiEntry, Example

__all__ = ["OUTPUT_FORMATS", "GenerationResult", "docs_source_name", "generate"]

log = logging.getLogger(__name__)

OUTPUT_FORMATS: tuple[str, ...] = ("monolithic", "knowledge_base", "both")
SHOWN_DOC_WARNINGS = 5  # of the docs' indexing warnings, in generation's own warning


@dataclass(frozen=True)
class GenerationResult:
    """What one generation wrote and found."""

    library: str
    version: str | None
    docs_source: str | None
    readme_path: Path | None
    kb_path: Path | None
    api_count: int
    example_count: int
    matched_examples: int
    readme_sections: int
    readme_tokens: int | None
    languages: list[str]
    generation: int | None  # the knowledge base's registration generation in the index
    validation: dict[str, Any] | None
    drift: dict[str, int] | None
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    docs_warnings: list[str] = field(default_factory=list)  # every one of the docs' indexing

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "version": self.version,
            "docs_source": self.docs_source,
            "readme_path": str(self.readme_path) if self.readme_path else None,
            "kb_path": str(self.kb_path) if self.kb_path else None,
            "api_count": self.api_count,
            "example_count": self.example_count,
            "matched_examples": self.matched_examples,
            "readme_sections": self.readme_sections,
            "readme_tokens": self.readme_tokens,
            "languages": self.languages,
            "generation": self.generation,
            "validation": self.validation,
            "drift": self.drift,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "warnings": self.warnings,
            "docs_warnings": self.docs_warnings,
        }


def docs_source_name(library: str) -> str:
    """The name of the docs source ``generate`` indexes for ``library`` (``httpx-docs``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", library).strip("-._") or "library"
    return f"{name[:58]}-docs"


def _doc_sections(engine: Docmentor, source: str) -> list[DocSection]:
    from docmentor.library.knowledge.knowledge_base import DocSection
    from docmentor.store.docs import sections_of_source

    return [
        DocSection(r.path, r.title, r.heading, r.level, r.anchor, r.text)
        for r in sections_of_source(engine.store, source)
    ]


def _purpose(
    package: str, entries: Sequence[ApiEntry], sections: Sequence[DocSection], summary: str = ""
) -> str:
    """What the library is for: the first prose paragraph of its package's docstring (not
    a title such as "Requests HTTP Library ~~~~"), of three words or more; else the opening
    of the docs' landing page when it reads as prose (a sentence of six words or more; not a
    toctree, nor "Release 26.1.0 (What's new?)") — what comes before its first heading and
    under a top-level one, not a later section ("## Installation", "… hosted on PyPI") — an
    ``index`` page at the docs' root or in its ``docs``/``src`` folders, or a ``README`` at
    the root, shallowest first (a folder's index page is about that part: the exercises;
    ``docs/README.md`` tells how to build the docs); else the distribution's one-line
    summary. reST substitutions (``|pypi|``) are left out, and so is a short sentence that
    is nothing without one ("Current version is |release|.")."""
    from docmentor.library.knowledge.knowledge_base import INDEX_PAGES, first_sentences
    from docmentor.library.surface.docstrings import prose_paragraphs

    module = next((e for e in entries if e.kind == "module" and e.api_id == package), None)
    if module is not None and module.docstring.strip():
        paragraphs = prose_paragraphs(_without_title(module.docstring), skip_summary=False)
        text = paragraphs[0] if paragraphs else ""
        if len(text.split()) >= 3:  # the package says it in its own words, however briefly
            return text
    pages: dict[str, list[DocSection]] = {}
    for s in sections:
        folders, _, name = s.path.rpartition("/")
        name = name.lower()
        in_docs = all(f.lower() in _DOCS_FOLDERS for f in folders.split("/") if f)
        if name in INDEX_PAGES and in_docs and (not folders or name.startswith("index")):
            pages.setdefault(s.path, []).append(s)
    order = sorted(
        pages, key=lambda p: (p.count("/"), not p.rsplit("/", 1)[-1].lower().startswith("index"), p)
    )
    for path in order:
        for s in pages[path]:  # in the page's order: the preamble, then its top-level title
            if s.level > 1:
                break
            text = _prose_from(_without_substitutions(first_sentences(s.text, limit=400)))
            if text:
                return text
            if s.level == 1:
                break
    return summary


_DOCS_FOLDERS = frozenset({"docs", "doc", "documentation", "src", "source", "en"})
# |pypi|, |release|: a reST substitution, standing as a word (not int|str|None, x|y|z)
_SUBSTITUTION = re.compile(r"(?<![^\s*_(])\|[\w-]+\|(?=[\s.,;:!?)*_]|$)")
_EMPTY_MARKUP = re.compile(r"(\*{1,2}|_)\s*\1|\(\s*\)")  # what a substitution stood in: "** **", "( )"
_ADORNED_TITLE = re.compile(r"^\s*(\S[^\n]*)\n\s*([=\-~^\"'`#*+.:_])\2{2,}\s*(?:\n|$)")


def _without_title(docstring: str) -> str:
    """A docstring without the reST title it opens with ("Foo\n---\nFoo parses things.")."""
    m = _ADORNED_TITLE.match(docstring.strip("\n"))
    return docstring.strip("\n")[m.end() :] if m else docstring


def _without_substitutions(text: str) -> str:
    """The text without its reST substitutions; a sentence left with fewer than four words
    goes too ("Current version is |release|.")."""
    if not _SUBSTITUTION.search(text):
        return text
    kept = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if _SUBSTITUTION.search(sentence):
            sentence = " ".join(_EMPTY_MARKUP.sub(" ", _SUBSTITUTION.sub(" ", sentence)).split())
            if len(re.findall(r"\w+", sentence)) < 4:
                continue
        kept.append(sentence)
    return " ".join(kept)


_SENTENCE_END = re.compile(r"[.!?][)\]\"'*_]*(?=\s|$)")  # "(What's new?)" ends one too
_WORD = re.compile(r"[^\W\d_][\w'’-]*")  # a word, not a number: "Release 26.1 (What's new?)" has 3


def _prose_from(text: str) -> str:
    """The text when it has a sentence of six words or more ended by a full stop (or ! ?),
    without a tagline or release line before it ("*Simple. Powerful. Fast. Pick three.*",
    "Release 26.1 (What's new?)"); "" when it has no such sentence."""
    while True:
        m = _TAGLINE.match(text) or _RELEASE_LINE.match(text)
        if m is None:
            break
        text = text[m.end() :]
    start = 0
    for end in _SENTENCE_END.finditer(text):
        if len(_WORD.findall(text[start : end.start()])) >= 6:
            return text.strip()
        start = end.end()
    return ""


# a whole emphasised sentence or more before the prose (not a bold name: "**Requests** is …")
_TAGLINE = re.compile(r"\s*(?:\*{1,2}[^*\n]*[.!?]\*{1,2}|_[^_\n]*[.!?]_)(?=\s|$)")
# "Release 26.1 (What's new?)": a release banner, with its link (a sentence that starts
# "Version 2 of …" has none)
_RELEASE_LINE = re.compile(r"\s*(?:Release|Version)\b(?:[^!?().\n]|\.(?=\S)){0,24}\([^()\n]*\)(?=\s)")


def _check_out(out: Path) -> None:
    """Refuse to overwrite what generation did not write (``--out`` pointed at the wrong place)."""
    if out.exists() and not out.is_dir():
        raise UsageError(
            f"out {out} is a file",
            hint="give a folder for README.LLM and knowledge_base/",
            arguments=("out",),
        )
    kb = out / "knowledge_base"
    if kb.is_dir() and any(kb.iterdir()) and not (kb / "index.json").is_file():
        raise UsageError(
            f"{kb} holds files that are not a docmentor knowledge base",
            hint="choose another out folder",
            arguments=("out",),
        )
    readme = out / "README.LLM"
    if readme.is_file():
        try:
            head = readme.read_text(encoding="utf-8", errors="replace")[:200].lstrip()
        except OSError:
            head = ""
        if not head.startswith("<ReadMe.LLM>"):
            raise UsageError(
                f"{readme} was not written by docmentor", hint="choose another out folder", arguments=("out",)
            )


def _write_text(path: Path, text: str) -> None:
    from docmentor.library.knowledge.knowledge_base import as_created

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        as_created(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def generate(
    engine: Docmentor,
    *,
    library: str,
    docs_path: Path | str | None = None,
    source: Path | str | None = None,
    python: str | None = None,
    version: str | None = None,
    languages: Sequence[str] | None = None,
    output_format: str = "both",
    out: Path | str,
    max_apis: int = 50,
    max_tokens: int | None = None,
    encoding: str = "o200k_base",
    validate: bool = False,
    validate_timeout: float = 20.0,
    search_paths: Sequence[Path] | None = None,
    embeddings: bool = True,
    progress: Callable[[int, int, str], None] | None = None,
    base_paths: Sequence[Path | str] = (),
) -> GenerationResult:
    """Generate README.LLM and/or the knowledge base of ``library`` and register it.

    Args:
        engine: the index; the docs are indexed into it as the source ``<library>-docs``.
        library: the Python import name (or the name of the ``source`` library).
        docs_path: the documentation folder; when None, the already indexed
            ``<library>-docs`` source is used (if any). Inside a MkDocs project, snippet
            includes resolve from the project's ``base_path`` settings.
        source: a TypeScript/JavaScript, Go or Rust source folder to read the API from.
        python: the interpreter of the environment the library is installed in.
        version: overrides the detected version.
        languages: the example languages to use; None: every supported language.
        output_format: ``monolithic`` (README.LLM), ``knowledge_base`` or ``both``.
        out: the output folder (``out/README.LLM``, ``out/knowledge_base/``).
        max_apis: README.LLM sections at most.
        max_tokens: README.LLM token budget (exact count in ``encoding``).
        encoding: tokenizer for ``max_tokens``.
        validate: run the complete Python examples; README.LLM then shows only passed ones.
        validate_timeout: seconds per example when validating.
        search_paths: extra folders to find the Python package in (before ``sys.path``).
        embeddings: embed every API (all-MiniLM-L6-v2, offline) for ``find_api``'s
            semantic ranking; without, ``find_api`` ranks lexically only.
        progress: called with (done, total, step) as the work goes: ``reading the API``,
            ``indexing the docs``, ``matching examples``, ``embedding APIs`` (per text),
            ``validating examples`` (per example), ``writing outputs``.
        base_paths: extra folders the docs' includes may read from (``{include}
            ../README.md``: the project's root), as ``docmentor add --base-path``.

    Raises:
        NotFoundError: the library is not installed (or ``source`` has no API).
        UsageError: a bad option.
    """
    wanted = _check_arguments(
        library,
        output_format=output_format,
        max_apis=max_apis,
        max_tokens=max_tokens,
        encoding=encoding,
        base_paths=base_paths,
        languages=languages,
    )
    out = Path(out)
    _check_out(out)
    req = _Request(
        library=library,
        docs_path=_given_docs_folder(docs_path),
        source=source,
        python=python,
        version=version,
        languages=wanted,
        output_format=output_format,
        out=out,
        max_apis=max_apis,
        max_tokens=max_tokens,
        encoding=encoding,
        validate=validate,
        validate_timeout=validate_timeout,
        search_paths=search_paths,
        base_paths=base_paths,
    )
    run = _Run(progress)
    with run.timed("api"):  # 1. what is really installed (fails early, before anything is written)
        api = _read_api(engine, req, run)
    version = version or api.version
    with run.timed("docs"):  # 2. the docs, indexed by the engine (includes resolved)
        docs_source, docs_warnings = _index_docs_stage(engine, req, run)
    with run.timed("examples"):  # 3. examples, matched to APIs
        found = _match_stage(engine, req, api, docs_source, run)
    with run.timed("importance"):  # 4. importance, descriptions, related APIs
        _rank(api, found)
    with run.timed("embeddings"):  # 4b. for find_api's semantic ranking
        vectors = (
            _embed_apis(api.entries, found.examples, run.warnings, run.step)
            if embeddings and api.entries
            else None
        )
    with run.timed("validation"):  # 5. validation and drift
        validation = _validate(req, api, found.examples, version, run) if validate else None
    with run.timed("drift"):
        drift = _mark_drift(found.examples, api.surfaces, library=library, version=version)
    shown = [ex for ex in found.examples if not ex.drift]
    with run.timed("readme"):  # 6. outputs
        run.step("writing outputs")
        purpose = _library_purpose(library, api, found.sections)
        readme = (
            _write_readme(req, api, shown, version, purpose)
            if output_format in ("monolithic", "both")
            else _Readme()
        )
    kb_path: Path | None = None
    generation: int | None = None
    if output_format in ("knowledge_base", "both"):
        with run.timed("knowledge_base"):
            kb_path, generation = _write_knowledge_base(
                engine,
                req,
                api=api,
                found=found,
                shown=shown,
                version=version,
                purpose=purpose,
                docs_source=docs_source,
                validation=validation,
                drift=drift,
                readme=readme,
                vectors=vectors,
                timings=run.timings,
            )
    run.step("writing outputs", 1)
    run.timings["total"] = time.perf_counter() - run.start
    return GenerationResult(
        library=library,
        version=version,
        docs_source=docs_source,
        readme_path=readme.path,
        kb_path=kb_path,
        api_count=len(api.entries),
        example_count=len(found.examples),
        matched_examples=sum(1 for ex in found.examples if ex.apis_used),
        readme_sections=readme.sections,
        readme_tokens=readme.tokens,
        languages=found.languages,
        generation=generation,
        validation=validation,
        drift=drift["counts"] if drift else None,
        timings=run.timings,
        warnings=run.warnings,
        docs_warnings=docs_warnings,
    )


# -- generate's stages ---------------------------------------------------------------


@dataclass(frozen=True)
class _Request:
    """``generate``'s arguments, checked (``languages``: canonical names, None for every one)."""

    library: str
    docs_path: Path | None
    source: Path | str | None
    python: str | None
    version: str | None
    languages: list[str] | None
    output_format: str
    out: Path
    max_apis: int
    max_tokens: int | None
    encoding: str
    validate: bool
    validate_timeout: float
    search_paths: Sequence[Path] | None
    base_paths: Sequence[Path | str]


@dataclass
class _Run:
    """One generation's progress callback, stage timings (seconds, in stage order) and warnings."""

    progress: Callable[[int, int, str], None] | None
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    start: float = field(default_factory=time.perf_counter)

    def step(self, label: str, done: int = 0, total: int = 1) -> None:
        """Report progress on ``label``: ``done`` of ``total``."""
        if self.progress is not None:
            self.progress(done, total, label)

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Time the block as ``stage`` (not recorded when it raises)."""
        t = time.perf_counter()
        yield
        self.timings[stage] = time.perf_counter() - t


@dataclass(frozen=True)
class _Api:
    """The library's API as read: its entries, the surfaces they come from, the detected
    version, and the import name (PyYAML's is ``yaml``) that "exported at top level" and a
    missing module mean."""

    entries: list[ApiEntry]
    surfaces: list[Any]
    version: str | None
    package: str


@dataclass(frozen=True)
class _Found:
    """The docs' examples (matched to the API), the example languages detected, the docs' sections."""

    examples: list[Example]
    languages: list[str]
    sections: list[DocSection]


@dataclass(frozen=True)
class _Readme:
    """README.LLM as written: where, its tokens and its context sections (none when not written)."""

    path: Path | None = None
    tokens: int | None = None
    sections: int = 0


def _check_arguments(
    library: str,
    *,
    output_format: str,
    max_apis: int,
    max_tokens: int | None,
    encoding: str,
    base_paths: Sequence[Path | str],
    languages: Sequence[str] | None,
) -> list[str] | None:
    """Refuse bad options (:class:`UsageError`); the canonical names of the languages asked for."""
    from docmentor.assemble.tokens import check_encoding
    from docmentor.library.examples.examples import SUPPORTED_LANGUAGES, normalize_language

    if output_format not in OUTPUT_FORMATS:
        raise UsageError(
            f"unknown output format {output_format!r}", hint=f"use one of: {', '.join(OUTPUT_FORMATS)}"
        )
    if not library or library != library.strip() or any(c.isspace() or not c.isprintable() for c in library):
        raise UsageError(
            f"invalid library name {library!r}",
            hint="give the import name, e.g. library httpx, or the package name with source_path",
            arguments=("library", "source_path"),
        )
    if max_apis < 0 or (max_tokens is not None and max_tokens < 1):
        raise UsageError("max_apis must be ≥ 0 and max_tokens ≥ 1", arguments=("max_apis", "max_tokens"))
    check_encoding(encoding)
    missing = [str(b) for b in base_paths if not Path(b).expanduser().is_dir()]
    if missing:
        raise UsageError(
            f"base_paths {missing[0]} is not a folder",
            hint="give the folder the includes read from",
            arguments=("base_paths",),
        )
    wanted = [normalize_language(x) for x in languages] if languages else None
    unknown = [x for x in wanted or [] if x not in SUPPORTED_LANGUAGES]
    if unknown:
        raise UsageError(
            f"unknown language {', '.join(map(repr, unknown))}",
            hint=f"use one or more of: {', '.join(SUPPORTED_LANGUAGES)}",
        )
    return wanted


def _given_docs_folder(docs_path: Path | str | None) -> Path | None:
    """``docs_path`` as a folder (user expanded), said missing before the API is read."""
    if docs_path is None:
        return None
    folder = Path(docs_path).expanduser()
    if not folder.is_dir():
        from docmentor.errors import SourceUnavailableError

        raise SourceUnavailableError(f"no documentation folder at {folder}")
    return folder


def _read_api(engine: Docmentor, req: _Request, run: _Run) -> _Api:
    """Stage 1: the installed (or ``source``) API, with the paths the docs document."""
    from docmentor.sources.autodoc import documented_paths

    run.step("reading the API")
    entries, surfaces, version = _load_surfaces(
        req.library,
        python=req.python,
        source=req.source,
        wanted=req.languages,
        search_paths=req.search_paths,
        warnings=run.warnings,
        documented=documented_paths(_docs_folder(engine, req.docs_path, docs_source_name(req.library))),
    )
    package = (surfaces[0].library if surfaces else req.library).split(".")[0]
    run.step("reading the API", 1)
    return _Api(entries, surfaces, version, package)


def _index_docs_stage(engine: Docmentor, req: _Request, run: _Run) -> tuple[str | None, list[str]]:
    """Stage 2: index ``docs_path`` as the library's docs source (or use the one indexed);
    the source's name (None without docs) and every indexing warning."""
    name = docs_source_name(req.library)
    if req.docs_path is not None:
        run.step("indexing the docs")
        docs_warnings = _index_docs(engine, req.docs_path, name, run.warnings, req.base_paths)
        run.step("indexing the docs", 1)
        return name, docs_warnings
    if not engine.store.has_source(name):
        run.warnings.append(f"no documentation: pass --docs-path (no source {name!r} is indexed)")
        return None, []
    return name, []


def _match_stage(engine: Docmentor, req: _Request, api: _Api, docs_source: str | None, run: _Run) -> _Found:
    """Stage 3: the docs' examples, matched to the API, and the docs' sections."""
    from docmentor.library.examples.examples import SUPPORTED_LANGUAGES, detect_languages, extract_examples
    from docmentor.library.examples.matcher import match_examples

    run.step("matching examples")
    examples = (
        extract_examples(engine, docs_source, languages=req.languages or SUPPORTED_LANGUAGES)
        if docs_source
        else []
    )
    for surface in api.surfaces:
        match_examples(examples, surface, library=req.library)
    detected = detect_languages(examples)
    sections = _doc_sections(engine, docs_source) if docs_source else []
    run.step("matching examples", 1)
    return _Found(examples, detected, sections)


def _rank(api: _Api, found: _Found) -> None:
    """Stage 4: describe the entries from the docs where they have no docstring, score their
    importance, and enrich them (related_apis, tags, search_keywords)."""
    from docmentor.library.knowledge.enrich import describe_from_docs, enrich_entries, parameters_by_reference
    from docmentor.library.knowledge.importance import count_mentions, prose_text, score_importance
    from docmentor.library.knowledge.mentions import MentionResolver

    entries, sections = api.entries, found.sections
    # "Parameters: see `request`": those parameters are described as they are there
    resolver = MentionResolver(entries)
    parameters_by_reference(entries, resolver)
    # an API with no docstring is described by the docs that document it, when they do
    if sections:
        describe_from_docs(entries, sections, resolver, package=api.package)
    # the docs' prose; without docs, the library's own docstrings are its prose
    # (click's ":func:`command`" and "`group`" cross-references: its entry points)
    prose = (prose_text(s.text) for s in sections) if sections else (e.docstring or "" for e in entries)
    mentions = count_mentions(prose, entries)
    score_importance(entries, found.examples, mentions, package=api.package)
    enrich_entries(entries, found.examples)


def _validate(
    req: _Request, api: _Api, examples: list[Example], version: str | None, run: _Run
) -> dict[str, Any]:
    """Stage 5: run the complete Python examples; the report's counts (failures are warned about)."""
    from docmentor.library.examples.validate import validate_examples

    report = validate_examples(
        examples,
        python=req.python,
        version=version,
        library=api.package,
        timeout=req.validate_timeout,
        progress=lambda done, total: run.step("validating examples", done, total),
    )
    validation = {k: v for k, v in report.to_dict().items() if k != "results"}
    where = {ex.example_id: f"{ex.path}:{ex.line}" for ex in examples}
    failed = [r for r in report.results if r.status == "failed"]
    not_here = [r for r in report.results if r.status == "skipped" and r.error]
    validation["not_run_here"] = len(not_here)
    if failed:
        run.warnings.append(
            f"{len(failed)} example(s) failed validation; README.LLM leaves them out: "
            + "; ".join(f"{where.get(r.example_id, r.example_id)}: {r.error}" for r in failed[:5])
            + ("; … (all in knowledge_base/examples_db, execution_context.error)" if len(failed) > 5 else "")
        )
    if not_here:
        run.warnings.append(
            f"{len(not_here)} example(s) not run here (they need the network or modules this "
            "environment lacks); README.LLM leaves them out too"
        )
    return validation


def _mark_drift(
    examples: list[Example], surfaces: list[Any], *, library: str, version: str | None
) -> dict[str, Any] | None:
    """Stage 5b: the drift report of the examples against the main surface (None without one).

    An example the installed version cannot run as written is marked, and neither README.LLM
    nor the overview shows it (deprecated uses are only marked at serving)."""
    from docmentor.library.examples.drift import drift_report

    if not surfaces:
        return None
    drifted = drift_report(examples, surfaces[0], library=library, version=version)
    broken: dict[str, list[str]] = {}
    for f in drifted.findings:
        if f.kind in ("missing_api", "invalid_api_signature"):
            broken.setdefault(f.example_id, []).append(f.message)
    for ex in examples:
        ex.drift = broken.get(ex.example_id, [])
    return drifted.to_dict()


def _library_purpose(library: str, api: _Api, sections: list[DocSection]) -> str:
    """What the library is for, read from the library's own module (``nsp.alpha``, not the
    namespace ``nsp``), its docs, or its distribution's summary."""
    summary = getattr(api.surfaces[0], "summary", "") if api.surfaces else ""
    return _purpose(api.surfaces[0].library if api.surfaces else library, api.entries, sections, summary)


def _write_readme(
    req: _Request, api: _Api, shown: list[Example], version: str | None, purpose: str
) -> _Readme:
    """Stage 6: render and write ``out/README.LLM``."""
    from docmentor.assemble.tokens import count_tokens
    from docmentor.library.knowledge.readme import render_readme

    text = render_readme(
        req.library,
        version,
        api.entries,
        shown,
        max_apis=req.max_apis,
        max_tokens=req.max_tokens,
        encoding=req.encoding,
        validated=req.validate,
        purpose=purpose,
    )
    path = req.out / "README.LLM"
    _write_text(path, text)
    return _Readme(
        path, count_tokens(text, req.encoding), len(re.findall(r"^<context_\d+>$", text, flags=re.M))
    )


def _write_knowledge_base(
    engine: Docmentor,
    req: _Request,
    *,
    api: _Api,
    found: _Found,
    shown: list[Example],
    version: str | None,
    purpose: str,
    docs_source: str | None,
    validation: dict[str, Any] | None,
    drift: dict[str, Any] | None,
    readme: _Readme,
    vectors: Any,
    timings: dict[str, float],
) -> tuple[Path, int]:
    """Stage 6b: write ``out/knowledge_base/`` with its settings and stats, and register it in
    the index; its folder and registration generation."""
    from docmentor.library.knowledge.kb_index import register_kb
    from docmentor.library.knowledge.knowledge_base import build_overview, write_kb

    entries, examples = api.entries, found.examples
    overview = build_overview(
        library=req.library,
        version=version,
        purpose=purpose,
        entries=entries,
        examples=shown,
        sections=found.sections,
    )
    settings = {
        "library": req.library,
        # the name a project's requirements use (pins are checked against it too)
        "distribution": next((d for d in (getattr(x, "distribution", "") for x in api.surfaces) if d), None),
        "docs_path": str(req.docs_path.resolve()) if req.docs_path is not None else None,
        "docs_source": docs_source,
        "source": str(Path(req.source).resolve()) if req.source is not None else None,
        "python": req.python,
        "version_override": version if version != api.version else None,
        "languages": req.languages,
        "output_format": req.output_format,
        "max_apis": req.max_apis,
        "max_tokens": req.max_tokens,
        "encoding": req.encoding,
        "validate": req.validate,
        "embeddings": vectors.model if vectors is not None else None,
    }
    stats: dict[str, Any] = {
        "apis": len(entries),
        "apis_by_kind": dict(sorted(Counter(e.kind for e in entries).items())),
        "apis_with_examples": sum(1 for e in entries if e.examples),
        "examples": len(examples),
        "examples_by_language": dict(Counter(ex.language for ex in examples).most_common()),
        "examples_matched": sum(1 for ex in examples if ex.apis_used),
        "examples_complete": sum(1 for ex in examples if ex.complete),
        "documents_sections": len(found.sections),
        "languages_detected": found.languages,
        "validation": validation,
        "drift": drift["counts"] if drift else None,
        "readme_sections": readme.sections,
        "readme_tokens": readme.tokens,
        "timings": {k: round(v, 3) for k, v in timings.items()},
    }
    kb = write_kb(
        req.out / "knowledge_base",
        library=req.library,
        version=version,
        overview=overview,
        entries=entries,
        examples=examples,
        settings=settings,
        stats=stats,
        drift=drift,
        vectors=vectors,
    )
    return kb.path, register_kb(engine.store, kb)


def _embed_apis(
    entries: Sequence[ApiEntry],
    examples: Sequence[Any],
    warnings: list[str],
    step: Callable[[str, int, int], None],
) -> Any:
    """The APIs' embeddings (:class:`~docmentor.embeddings.LibraryVectors`), or None with a warning."""
    from docmentor.embeddings import EmbeddingUnavailable, LibraryVectors, get_embedder
    from docmentor.library.find.retrieval import embedding_text, passage_texts

    by_id = {ex.example_id: ex for ex in examples}
    texts = [embedding_text(e, by_id) for e in entries]  # one per API first
    owners = [e.api_id for e in entries]
    for e in entries:  # then the docstring passages
        for passage in passage_texts(e):
            texts.append(passage)
            owners.append(e.api_id)
    try:
        step("embedding APIs", 0, len(texts))
        embedder = get_embedder()
        matrix = embedder.embed(texts, progress=lambda done: step("embedding APIs", done, len(texts)))
    except EmbeddingUnavailable as exc:
        warnings.append(f"no embeddings ({exc}); find_api ranks without them")
        return None
    return LibraryVectors(model=embedder.model_id, api_ids=owners, matrix=matrix, primary=len(entries))


def _load_surfaces(
    library: str,
    *,
    python: str | None,
    source: Path | str | None,
    wanted: list[str] | None,
    search_paths: Sequence[Path] | None,
    warnings: list[str],
    documented: Sequence[str] = (),
) -> tuple[list[ApiEntry], list[Any], str | None]:
    from docmentor.errors import NotFoundError

    entries: list[ApiEntry] = []
    surfaces: list[Any] = []
    version: str | None = None
    if source is not None:
        try:
            from docmentor.library.surface import treesitter
        except ImportError as exc:
            raise NotFoundError(
                "reading a source folder needs the tree-sitter grammars",
                hint="pip install 'docmentor[treesitter]'",
            ) from exc
        language = next((x for x in wanted or () if x != "python"), None)
        surface: Any = treesitter.load_source_surface(Path(source), language=language, library=library)
        if not surface.entries:
            raise NotFoundError(f"no exported API found in {source}")
        surfaces.append(surface)
        entries += list(surface.entries)
        version = getattr(surface, "version", None)
    if source is None or (wanted is not None and "python" in wanted):
        from docmentor.library.surface.api_python import load_api

        surface = load_api(
            library, python=python, search_paths=list(search_paths or []) or None, documented=documented
        )
        surfaces.insert(0, surface)
        entries = list(surface.entries) + entries
        version = surface.version or version
    if version is None:
        warnings.append(f"the version of {library} is unknown; pass --version to name it")
    return entries, surfaces, version


def _docs_folder(engine: Docmentor, docs_path: str | Path | None, name: str) -> Path | None:
    """The docs folder to read directives from: ``--docs-path``, else the folder the
    library's docs source already indexes (None for an llms.txt source or none at all)."""
    if docs_path is not None:
        return Path(docs_path)
    if engine.store.has_source(name):
        row = engine.store.source(name)
        if row.kind == "folder" and Path(row.target).is_dir():
            return Path(row.target)
    return None


def _index_docs(
    engine: Docmentor, docs_path: Path, name: str, warnings: list[str], base_paths: Sequence[Path | str] = ()
) -> list[str]:
    """Index (or re-index) the docs folder as source ``name``; a summary of its problems goes
    into ``warnings``, and every indexing warning is returned."""
    from docmentor.errors import SourceUnavailableError

    if not docs_path.is_dir():
        raise SourceUnavailableError(f"no documentation folder at {docs_path}")
    from docmentor.sources.local import DOC_SUFFIXES, has_documents
    from docmentor.sources.mkdocs import mkdocs_bases

    if not has_documents(docs_path):
        # before the docs source is re-pointed: a wrong folder must not empty a good index
        raise SourceUnavailableError(
            f"no documentation files in {docs_path}",
            hint=f"it holds no {', '.join(DOC_SUFFIXES)} file outside hidden, build and ignored folders; "
            "pass the folder that does, or leave --docs-path out",
        )
    options: dict[str, Any] = {}
    target = os.path.abspath(docs_path.expanduser())
    if engine.store.has_source(name):
        existing = engine.store.source(name)
        if existing.target != target:
            warnings.append(f"source {name!r} pointed at {existing.target}; re-indexed from {target}")
            engine.remove(name)
        else:  # the same folder: its options stay (`docmentor add … --base-path` for `../README.md`)
            options = dict(existing.spec.options.as_dict())
    given = [str(Path(b).expanduser().resolve()) for b in base_paths]
    bases = [*given, *(str(b) for b in mkdocs_bases(docs_path))]
    if bases:
        options["base_paths"] = list(dict.fromkeys([*options.get("base_paths", []), *bases]))
    # by words now; its sections are embedded by the next `docmentor refresh` or by `serve` in
    # the background (embedding lancedb's docs here made a 10 s generation 40 s)
    report = engine.add(str(docs_path), name=name, options=options, embed=False)
    if report.failed:
        warnings.append(
            f"{len(report.failed)} documentation file(s) could not be read: "
            + "; ".join(f"{path}: {error}" for path, error in report.failed[:3])
            + (" …" if len(report.failed) > 3 else "")
        )
    if report.warnings:
        shown = report.warnings[:SHOWN_DOC_WARNINGS]
        warnings.append(
            f"{len(report.warnings)} warning(s) while indexing the docs: "
            + "; ".join(shown)
            + ("; … (all of them: --json, under docs_warnings)" if len(report.warnings) > len(shown) else "")
        )
    return list(report.warnings)
