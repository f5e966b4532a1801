"""``generate``'s stages (:mod:`~docmentor.library.pipeline` runs them in order): read the API,
index the docs, match the examples, rank, embed, validate, mark drift, and write README.LLM
and the knowledge base. Each stage calls into the sub-packages of :mod:`docmentor.library`.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.engine.report_warnings import include_hint
from docmentor.errors import UsageError
from docmentor.library.knowledge.purpose import doc_sections, purpose_of
from docmentor.sources.include_targets import ESCAPES
from docmentor.sources.versions import docs_source_name

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.library.knowledge.kb_schema import DocSection
    from docmentor.library.models import ApiEntry, Example

__all__ = [
    "OUTPUT_FORMATS",
    "Api",
    "Found",
    "Readme",
    "Request",
    "Run",
    "check_arguments",
    "docs_source_for",
    "docs_source_name",
    "embed_apis",
    "given_docs_folder",
    "index_docs_stage",
    "library_purpose",
    "mark_drift",
    "match_stage",
    "rank",
    "read_api",
    "validate_stage",
    "write_knowledge_base",
    "write_readme",
]

log = logging.getLogger(__name__)

OUTPUT_FORMATS: tuple[str, ...] = ("monolithic", "knowledge_base", "both")
SHOWN_DOC_WARNINGS = 5  # of the docs' indexing warnings, in generation's own warning


def _write_text(path: Path, text: str) -> None:
    from docmentor.library.knowledge.kb_files import as_created

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


@dataclass(frozen=True)
class Request:
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
class Run:
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
class Api:
    """The library's API as read: its entries, the surfaces they come from, the detected
    version, and the import name (PyYAML's is ``yaml``) that "exported at top level" and a
    missing module mean."""

    entries: list[ApiEntry]
    surfaces: list[Any]
    version: str | None
    package: str


@dataclass(frozen=True)
class Found:
    """The docs' examples (matched to the API), the example languages detected, the docs' sections."""

    examples: list[Example]
    languages: list[str]
    sections: list[DocSection]
    # code the pages bind names with, never shown (hidden set-up code, current modules)
    context: list[Example] = field(default_factory=list)


@dataclass(frozen=True)
class Readme:
    """README.LLM as written: where, its tokens and its context sections (none when not written)."""

    path: Path | None = None
    tokens: int | None = None
    sections: int = 0


def check_arguments(
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


def given_docs_folder(docs_path: Path | str | None) -> Path | None:
    """``docs_path`` as a folder (user expanded), said missing before the API is read."""
    if docs_path is None:
        return None
    folder = Path(docs_path).expanduser()
    if not folder.is_dir():
        from docmentor.errors import SourceUnavailableError

        if folder.exists():  # a usage error (exit 2), as --out naming a file is
            raise UsageError(
                f"{folder} is a file, not a documentation folder", hint="pass the folder the pages are in"
            )
        raise SourceUnavailableError(f"no documentation folder at {folder}")
    return folder


def read_api(engine: Docmentor, req: Request, run: Run) -> Api:
    """Stage 1: the installed (or ``source``) API, with the paths the docs document."""
    from docmentor.sources.autodoc import docs_paths

    run.step("reading the API")
    documented, imported = docs_paths(
        _docs_folder(engine, req.docs_path, _own_docs_source(engine, req.library))
    )
    entries, surfaces, version = _load_surfaces(
        req.library,
        python=req.python,
        source=req.source,
        wanted=req.languages,
        search_paths=req.search_paths,
        warnings=run.warnings,
        documented=documented,
        imported=imported,
    )
    package = (surfaces[0].library if surfaces else req.library).split(".")[0]
    run.step("reading the API", 1)
    return Api(entries, surfaces, version, package)


def docs_source_for(engine: Docmentor, library: str, version: str | None) -> str:
    """The docs source of ``library`` at ``version``: named after the name its knowledge base
    is registered under (``httpx-docs``; ``httpx-0.28-docs`` for ``httpx@0.28`` beside a
    registered 0.27), so that generating one version never re-points another's docs."""
    from docmentor.library.knowledge.kb_index import registered_name

    return docs_source_name(registered_name(engine.store, library, version))


def index_docs_stage(
    engine: Docmentor, req: Request, run: Run, name: str | None = None
) -> tuple[str | None, list[str]]:
    """Stage 2: index ``docs_path`` as the library's docs source ``name`` (by default
    :func:`docs_source_name`; or use the one indexed); the source's name (None without docs)
    and every indexing warning."""
    name = name or docs_source_name(req.library)
    if req.docs_path is not None:
        run.step("indexing the docs")
        docs_warnings = _index_docs(engine, req.docs_path, name, run.warnings, req.base_paths)
        run.step("indexing the docs", 1)
        return name, docs_warnings
    if not engine.store.has_source(name):
        default = docs_source_name(req.library)
        if default != name and engine.store.has_source(default):
            run.warnings.append(
                f"no documentation of this version indexed (no source {name!r}): the docs of "
                f"source {default!r} are read; pass --docs-path for this version's own"
            )
            return default, []
        if _own_docs_source(engine, req.library) == req.library:
            # docs added by hand under the library's own name (`add DOCS --name httpx`, as
            # the team guide does): theirs, said so (a tour's job read no docs at all)
            run.warnings.append(
                f"no source {name!r}: the docs of source {req.library!r} are read "
                "(--docs-path, a job's docs_path, names the folder instead)"
            )
            return req.library, []
        run.warnings.append(
            f"no documentation: no source {name!r} nor {req.library!r} is indexed; give the docs "
            "folder (--docs-path, a job's docs_path)"
        )
        return None, []
    return name, []


# Docs whose code examples almost never call the library's API are likely another library's
# (--docs-path pointing at the wrong folder): said, not refused. Over the 60 libraries of the
# API task sets the lowest share of examples matched is glom's 0.16 (6 of 38), lancedb's 0.27;
# pydantic's docs given for httpx: 0.003 (2 of 575).
FOREIGN_DOCS_SHARE = 0.05
FOREIGN_DOCS_MIN = 20  # examples: fewer say too little either way


def match_stage(engine: Docmentor, req: Request, api: Api, docs_source: str | None, run: Run) -> Found:
    """Stage 3: the docs' examples, matched to the API, and the docs' sections."""
    from docmentor.library.examples.examples import (
        SUPPORTED_LANGUAGES,
        detect_languages,
        extract_examples,
        module_examples,
        setup_examples,
        sphinx_setup_examples,
    )
    from docmentor.library.examples.matcher import match_examples
    from docmentor.sources.sphinx_doctest import global_setup

    run.step("matching examples")
    languages = req.languages or SUPPORTED_LANGUAGES
    examples = extract_examples(engine, docs_source, languages=languages) if docs_source else []
    # set-up code hidden in HTML comments, and the names of a page's current module (reST's
    # ``.. module::``): what they bind types the page's examples
    setup = setup_examples(engine, docs_source, languages=languages) if docs_source else []
    if docs_source:
        setup += module_examples(engine, docs_source, module_names(api.entries))
        # what sphinx.ext.doctest runs before a page's doctests: conf.py's global set-up and
        # the page's testsetup blocks (they bind the names its examples use; --validate too)
        conf = global_setup(_docs_folder(engine, req.docs_path, docs_source))
        setup += sphinx_setup_examples(engine, docs_source, conf)
    for surface in api.surfaces:
        match_examples(examples, surface, library=req.library, context=setup)
    used = sum(1 for ex in examples if ex.apis_used)
    if len(examples) >= FOREIGN_DOCS_MIN and used < FOREIGN_DOCS_SHARE * len(examples):
        run.warnings.append(
            f"only {used} of the {len(examples)} code examples in the docs use {req.library}'s API: "
            f"are they {req.library}'s documentation? (--docs-path)"
        )
    detected = detect_languages(examples)
    sections = doc_sections(engine, docs_source) if docs_source else []
    run.step("matching examples", 1)
    return Found(examples, detected, sections, setup)


def module_names(entries: Iterable[ApiEntry]) -> dict[str, set[str]]:
    """Module → the public names it defines or re-exports (module-level entries, by their
    paths and aliases: ``jinja2`` → ``Environment``, ``jinja2.environment`` → ``Environment``)."""
    out: dict[str, set[str]] = {}
    for e in entries:
        if e.parent or e.kind == "module":
            continue
        for path in (e.api_id, *e.aliases):
            module, _, name = path.rpartition(".")
            if module:
                out.setdefault(module, set()).add(name)
    return out


def docstring_stage(req: Request, api: Api, found: Found, run: Run) -> int:
    """Stage 4c: the examples of the APIs' own docstrings (doctests, ``::`` literal blocks,
    code directives, fences), matched to the APIs they use and linked to the API whose
    docstring holds them, after the docs' examples: added to ``found.examples``; how many.
    Run after importance and the embeddings, which read the docs' examples only."""
    from docmentor.library.examples.docstring_examples import docstring_examples, module_setup
    from docmentor.library.examples.matcher import match_examples

    run.step("docstring examples")
    examples = docstring_examples(api.entries)
    if examples:
        owners = {ex.example_id: ex.apis_used[0] for ex in examples}  # whose docstring
        setup = module_setup(api.entries)
        for surface in api.surfaces:
            match_examples(examples, surface, library=req.library, context=setup)
        for ex in examples:  # the API whose docstring it is, first
            owner = owners[ex.example_id]
            ex.apis_used = [owner, *(a for a in ex.apis_used if a != owner)]
        # linked by ``apis_used`` only: an entry's ``examples`` are the docs' (what its
        # importance, find_api's examples score and the namespace priors count)
        ids = set(owners)
        for e in api.entries:
            if ids.intersection(e.examples):
                e.examples = [x for x in e.examples if x not in ids]
        found.examples.extend(examples)
    run.step("docstring examples", 1)
    return len(examples)


def rank(api: Api, found: Found) -> None:
    """Stage 4: describe the entries from the docs where they have no docstring, score their
    importance, and enrich them (related_apis, tags, search_keywords)."""
    from docmentor.library.examples.drift import historical_page
    from docmentor.library.knowledge.enrich import (
        describe_by_returns,
        describe_from_docs,
        enrich_entries,
        parameters_by_reference,
    )
    from docmentor.library.knowledge.importance import count_mentions, prose_text, score_importance
    from docmentor.library.knowledge.mentions import MentionResolver
    from docmentor.library.surface.ref_titles import label_titles, titled_entries

    entries, sections = api.entries, found.sections
    # ":ref:`label`" in docstrings written with the title the docs give the label
    titled_entries(entries, label_titles(sections))
    # "Parameters: see `request`": those parameters are described as they are there
    resolver = MentionResolver(entries)
    parameters_by_reference(entries, resolver)
    # an API with no docstring is described by the docs that document it, when they do
    if sections:
        describe_from_docs(entries, sections, resolver, package=api.package)
    # nor docstring nor docs say more of a call than what it returns: that says what it is for
    describe_by_returns(entries)
    # the docs' prose; without docs, the library's own docstrings are its prose
    # (click's ":func:`command`" and "`group`" cross-references: its entry points)
    # (a changelog's or an upgrade guide's lists name what changed, not what users call: pydash's
    # "new in v3" lists put five rarely used functions in README.LLM; not counted)
    prose = (
        (prose_text(s.text) for s in sections if not historical_page(s.path))
        if sections
        else (e.docstring or "" for e in entries)
    )
    mentions = count_mentions(prose, entries)
    products = getattr(api.surfaces[0], "products", None) if api.surfaces else None
    score_importance(entries, found.examples, mentions, package=api.package, products=products)
    enrich_entries(entries, found.examples)


def validate_stage(
    req: Request,
    api: Api,
    examples: list[Example],
    version: str | None,
    run: Run,
    context: Sequence[Example] = (),
) -> dict[str, Any]:
    """Stage 5: run the complete Python examples; the report's counts (failures are warned about)."""
    from docmentor.library.examples.docstring_examples import doctest_sessions, doctest_setup
    from docmentor.library.examples.drift import historical_page
    from docmentor.library.examples.validate import validate_examples

    report = validate_examples(
        examples,
        python=req.python,
        version=version,
        library=api.package,
        timeout=req.validate_timeout,
        progress=lambda done, total: run.step("validating examples", done, total),
        setup=_docstring_setup(doctest_setup(api.entries), examples, context),
        sessions=doctest_sessions(examples),  # after the doctests of their docstring before them
        page_setup=_page_setup(context),  # a docs page's doctests after its Sphinx set-up
    )
    validation = {k: v for k, v in report.to_dict().items() if k != "results"}
    paths = {ex.example_id: (ex.path, ex.line) for ex in examples}
    where = {
        r.example_id: f"{paths[r.example_id][0]}:{r.line or paths[r.example_id][1]}"
        for r in report.results
        if r.example_id in paths
    }
    failed = [r for r in report.results if r.status == "failed"]
    not_here = [r for r in report.results if r.status == "skipped" and r.error]
    validation["not_run_here"] = len(not_here)
    # an upgrade guide's or a changelog's old code fails on purpose: counted, not listed
    on_purpose = [r for r in failed if historical_page(paths.get(r.example_id, ("", 0))[0])]
    listed = [r for r in failed if r not in on_purpose]
    if failed:
        run.warnings.append(
            f"{len(failed)} example(s) failed validation; README.LLM leaves them out"
            + (
                f" ({len(on_purpose)} on upgrade guides and changelogs, whose old code is shown on purpose)"
                if on_purpose
                else ""
            )
            + (": " if listed else "")
            + "; ".join(f"{where.get(r.example_id, r.example_id)}: {r.error}" for r in listed[:5])
            + ("; … (all in knowledge_base/examples_db, execution_context.error)" if len(listed) > 5 else "")
        )
    if not_here:
        run.warnings.append(
            f"{len(not_here)} example(s) not run here (they need the network or modules this "
            "environment lacks); README.LLM leaves them out too"
        )
    unproven = _apis_left_without_example(examples)
    if unproven:
        run.warnings.append(
            f"{unproven} API(s) have examples but none that passed (only whole Python programs "
            "and doctest sessions run): README.LLM shows validated examples only, so none for "
            "them; without --validate it shows their examples"
        )
    return validation


def _apis_left_without_example(examples: Sequence[Example]) -> int:
    """How many APIs that examples use have none that passed validation, though one of them
    was not failed (a snippet, not run): what ``--validate`` takes out of README.LLM."""
    passed: set[str] = set()
    unrun: set[str] = set()
    for ex in examples:
        if ex.validated is True:
            passed.update(ex.apis_used)
        elif ex.validated is None and ex.code.strip() and not ex.execution_context.error:
            unrun.update(ex.apis_used)  # not "not run here": those have their own warning
    return len(unrun - passed)


def mark_drift(
    examples: list[Example],
    surfaces: list[Any],
    *,
    library: str,
    version: str | None,
    context: Sequence[Example] = (),
) -> dict[str, Any] | None:
    """Stage 5b: the drift report of the examples against the main surface (None without one).

    An example the installed version cannot run as written is marked, and neither README.LLM
    nor the overview shows it (deprecated uses are only marked at serving). So is one a
    comment of which says the code does not work (``# Will not work``, ``# Whoops, we forgot
    the await!``): the docs show it as what not to do."""
    from docmentor.library.examples.drift import drift_report

    for ex in examples:
        said = counterexample(ex.code, ex.language)
        ex.drift = [f"the docs say this code does not work ({said})"] if said else []
    if not surfaces:
        return None
    drifted = drift_report(examples, surfaces[0], library=library, version=version, context=context)
    by_id: dict[str, list[Example]] = {}
    for ex in examples:
        by_id.setdefault(ex.example_id, []).append(ex)
    for f in (*drifted.findings, *drifted.historical):  # an upgrade guide's old code too
        if f.kind in ("missing_api", "invalid_api_signature"):
            for ex in by_id.get(f.example_id, []):
                ex.drift.append(f.message)
    return drifted.to_dict()


# what a comment opens with when the code beside it does not work, with no condition after it
# ("won't work on Windows" is a caveat, not a counterexample): what the docs show not to do
_DOES_NOT_WORK = re.compile(
    r"(?:#|//)[ \t]*(?:(?:this|that|it|which)[ \t]+)?(?:will not|won't|does not|doesn't|did not|didn't)"
    r"[ \t]+work\b(?![ \t]+(?:on|in|with|without|if|until|unless|for|under|when|before|after)\b)"
    r"|(?:#|//)[ \t]*(?:don't|do not) do this\b"
    r"|(?:#|//)[ \t]*(?:wrong|incorrect|bad|broken|whoops|oops)\b[ \t]*(?:[:!.,(-]|$)",
    re.IGNORECASE,
)


def counterexample(code: str, language: str = "python") -> str | None:
    """The comment that says ``code`` does not work, if one does: each line's comment read
    from its first ``#`` (Python, shell) or ``//`` (JavaScript and the like); linear in the code."""
    mark = "#" if language in ("python", "bash", "sh", "shell", "console", "") else "//"
    if mark not in code:
        return None
    for line in code.split("\n"):
        at = line.find(mark)
        if at >= 0 and _DOES_NOT_WORK.match(line, at):
            return line[at:].strip()
    return None


def _page_setup(context: Sequence[Example]) -> dict[str, str]:
    """Docs page → the code sphinx.ext.doctest runs before its doctests, in order (the
    ``sphinx_setup_examples`` among the page context)."""
    out: dict[str, list[str]] = {}
    for ex in sorted(context, key=lambda x: (x.path, x.line)):
        if ex.example_id.startswith(("global-setup-", "testsetup-")):
            out.setdefault(ex.path, []).append(ex.code.rstrip("\n"))
    return {path: "\n".join(codes) + "\n" for path, codes in out.items()}


def _docstring_setup(
    modules: Mapping[str, str], examples: Sequence[Example], context: Sequence[Example]
) -> dict[str, str]:
    """What a docstring's doctests run after, by source file: conf.py's
    ``doctest_global_setup`` (sphinx.ext.doctest runs it before the docstrings autodoc puts
    on a page: jsonschema's write ``jsonschema.validate(…)`` unimported), then the names of
    their own module."""
    glob = next((ex.code.rstrip("\n") for ex in context if ex.example_id.startswith("global-setup-")), "")
    if not glob:
        return dict(modules)
    files = set(modules) | {ex.path for ex in examples if ex.origin == "docstring"}
    return {f: f"{glob}\n{modules.get(f, '')}" for f in files}


def library_purpose(library: str, api: Api, sections: list[DocSection]) -> str:
    """What the library is for, read from the library's own module (``nsp.alpha``, not the
    namespace ``nsp``), its docs, or its distribution's summary."""
    summary = getattr(api.surfaces[0], "summary", "") if api.surfaces else ""
    return purpose_of(api.surfaces[0].library if api.surfaces else library, api.entries, sections, summary)


def write_readme(
    req: Request,
    api: Api,
    shown: list[Example],
    version: str | None,
    purpose: str,
    sections: Sequence[DocSection] = (),
) -> Readme:
    """Stage 6: render and write ``out/README.LLM``; ``sections``: the docs' sections, whose
    labels a docstring's ``:ref:`` roles are shown by the titles of."""
    from docmentor.assemble.tokens import count_tokens
    from docmentor.library.knowledge.readme import render_readme
    from docmentor.library.surface.ref_titles import label_titles

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
        titles=label_titles(sections),
    )
    path = req.out / "README.LLM"
    _write_text(path, text)
    return Readme(
        path, count_tokens(text, req.encoding), len(re.findall(r"^<context_\d+>$", text, flags=re.M))
    )


def write_knowledge_base(
    engine: Docmentor,
    req: Request,
    *,
    api: Api,
    found: Found,
    shown: list[Example],
    version: str | None,
    purpose: str,
    docs_source: str | None,
    validation: dict[str, Any] | None,
    drift: dict[str, Any] | None,
    readme: Readme,
    vectors: Any,
    timings: dict[str, float],
) -> tuple[Path, int]:
    """Stage 6b: write ``out/knowledge_base/`` with its settings and stats, and register it in
    the index; its folder and registration generation."""
    from docmentor.library.knowledge.kb_files import write_kb
    from docmentor.library.knowledge.kb_index import register_kb
    from docmentor.library.knowledge.overview import build_overview

    entries, examples = api.entries, found.examples
    overview = build_overview(
        library=req.library,
        version=version,
        purpose=purpose,
        entries=entries,
        examples=[ex for ex in shown if ex.origin == "docs"],  # a quick start is the docs'
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
    docs = [ex for ex in examples if ex.origin == "docs"]
    stats: dict[str, Any] = {
        "apis": len(entries),
        "apis_by_kind": dict(sorted(Counter(e.kind for e in entries).items())),
        "apis_with_examples": sum(1 for e in entries if e.examples),
        # the docs' examples; those of the APIs' docstrings apart
        "examples": len(docs),
        "examples_from_docstrings": len(examples) - len(docs),
        "examples_by_language": dict(Counter(ex.language for ex in docs).most_common()),
        "examples_matched": sum(1 for ex in docs if ex.apis_used),
        "examples_complete": sum(1 for ex in docs if ex.complete),
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


def embed_apis(
    entries: Sequence[ApiEntry],
    examples: Sequence[Any],
    warnings: list[str],
    step: Callable[[str, int, int], None],
) -> Any:
    """The APIs' embeddings (:class:`~docmentor.embeddings.LibraryVectors`), or None with a warning.

    A model this call loaded is released when it is done (the rest of ``generate`` does not
    need it): its ~35 MB are not held while the knowledge base is written."""
    from docmentor.embeddings import (
        EmbeddingUnavailable,
        LibraryVectors,
        embedder_loaded,
        get_embedder,
        release_embedder,
    )
    from docmentor.library.find.api_text import embedding_text, passage_texts

    by_id = {ex.example_id: ex for ex in examples}
    texts = [embedding_text(e, by_id) for e in entries]  # one per API first
    owners = [e.api_id for e in entries]
    for e in entries:  # then the docstring passages
        for passage in passage_texts(e):
            texts.append(passage)
            owners.append(e.api_id)
    loaded_here = not embedder_loaded()
    try:
        step("embedding APIs", 0, len(texts))
        embedder = get_embedder()
        model = embedder.model_id
        matrix = embedder.embed(texts, progress=lambda done: step("embedding APIs", done, len(texts)))
    except EmbeddingUnavailable as exc:
        warnings.append(f"no embeddings ({exc}); find_api ranks without them")
        return None
    finally:
        if loaded_here:
            release_embedder()
    return LibraryVectors(model=model, api_ids=owners, matrix=matrix, primary=len(entries))


def _load_surfaces(
    library: str,
    *,
    python: str | None,
    source: Path | str | None,
    wanted: list[str] | None,
    search_paths: Sequence[Path] | None,
    warnings: list[str],
    documented: Sequence[str] = (),
    imported: Sequence[str] = (),
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
                hint="pip install 'docmentor[languages]'",
            ) from exc
        language = next((x for x in wanted or () if x != "python"), None)
        surface: Any = treesitter.load_source_surface(Path(source), language=language, library=library)
        if not surface.entries:
            readable = treesitter.detect_source_language(Path(source)) is not None
            raise NotFoundError(
                f"no exported API found in {source}"
                if readable
                else f"no TypeScript, JavaScript, Go or Rust source file in {source}",
                hint=None
                if readable
                else "a Python library is read where it is installed: --python INTERPRETER",
                arguments=("source_path",),
            )
        surfaces.append(surface)
        entries += list(surface.entries)
        version = getattr(surface, "version", None)
        if version is None:  # the package.json (or pyproject.toml …) of the sources' project
            from docmentor.sources.versions import folder_version

            found = folder_version(Path(source))
            version = found.version if found is not None else None
    if source is None or (wanted is not None and "python" in wanted):
        from docmentor.library.surface.api_python import load_api

        surface = load_api(
            library,
            python=python,
            search_paths=list(search_paths or []) or None,
            documented=documented,
            imported=imported,
        )
        surfaces.insert(0, surface)
        entries = list(surface.entries) + entries
        version = surface.version or version
    if version is None:
        warnings.append(f"the version of {library} is unknown; pass --version to name it")
    return entries, surfaces, version


def _own_docs_source(engine: Docmentor, library: str) -> str:
    """The source holding ``library``'s docs: ``LIB-docs``, else one named ``library``
    itself when only that is indexed (as :func:`index_docs_stage` reads them)."""
    name = docs_source_name(library)
    if not engine.store.has_source(name) and engine.store.has_source(library):
        return library
    return name


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
            kept = [b for b in options.get("base_paths", []) if Path(b).is_dir()]
            for gone in [b for b in options.get("base_paths", []) if b not in kept]:
                warnings.append(f"base path {gone} is gone: the docs' includes no longer read from it")
            if "base_paths" in options:
                options["base_paths"] = kept
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
            + (
                include_hint(str(docs_path), report.warnings, again="run generate again")
                if any(ESCAPES in w for w in report.warnings)
                else ""
            )
        )
    return list(report.warnings)
