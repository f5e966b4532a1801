"""The library-knowledge answers behind `docmentor api …` and the `api` MCP tools.

Knowledge bases registered in the index (by `readme-llm generate`) are loaded once per
process and cached by their generation, so a regeneration is seen at the next call.
Every answer states the library version it describes, and warns when the user's project
(pyproject.toml, uv.lock, requirements*.txt in the working folder) pins another one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docmentor.embeddings import MODEL_ID, embedder_loaded, get_embedder
from docmentor.errors import DocmentorError, NotFoundError, UsageError
from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.service.results import (
    ApiMatch,
    ExampleMatch,
    FoundApis,
    FoundExamples,
    LibraryOverview,
)
from docmentor.library.surface.docstrings import display
from docmentor.sources.project_files import pinned_version, requirement, requirement_cached

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.library.models import Example
    from docmentor.store.kb import KbRow

log = logging.getLogger(__name__)

ASPECTS = ("architecture", "quickstart", "concepts", "all")
COMPLEXITIES = ("beginner", "intermediate", "advanced", "any")


class LibraryKnowledge:
    """find_api / get_examples / get_library_overview over the registered knowledge bases.

    Where several versions of a library's knowledge base are registered (``httpx`` and
    ``httpx@0.28``), one answers: the ``version`` asked for, else the one the project in
    ``cwd`` pins, else the newest; each answer says which (``versions``) and why
    (``version_reasons``)."""

    def __init__(
        self, engine: Docmentor, *, cwd: Path | None = None, ranking: ApiRankingConfig = DEFAULT
    ) -> None:
        """``ranking``: find_api's and get_examples' constants (:mod:`docmentor.library.find.config`),
        as ``Docmentor(ranking=...)`` takes search's."""
        self.engine = engine
        self.cwd = cwd or Path.cwd()
        self.ranking = ranking
        self._lock = threading.Lock()
        self._key: tuple[tuple[str, int], ...] = ()  # every registered knowledge base's generation
        self._index: ApiIndex | None = None  # the default selection's (no version asked)
        self._built: dict[tuple[tuple[str, str, int], ...], _Built] = {}  # by selection
        self._versions: dict[str, str | None] = {}  # library → the version that answers by default
        self._distributions: dict[str, str] = {}

    # -- loading ------------------------------------------------------------------------
    def index(self, library: str | None = None, version: str | None = None) -> ApiIndex:
        """The API index over one knowledge base per library: ``version`` of ``library`` (of
        every library that has it, without ``library``), else the pinned or newest version.

        Raises:
            NotFoundError: no knowledge base of ``library`` describes ``version`` (the hint
                lists the versions registered).
        """
        return self._answering(library, version).index

    def _answering(self, library: str | None, version: str | None) -> _Answering:
        from docmentor.store.kb import list_kbs

        with self._lock:
            with self.engine.store.snapshot():  # registry, entries and examples of one generation
                rows = list_kbs(self.engine.store)
                chosen, reasons, notes = self._select(rows, library, version)
                key = tuple(sorted((lib, r.library, r.generation) for lib, r in chosen.items()))
                built = self._built.get(key)
                if built is None:
                    built = self._build(chosen)
                    if len(self._built) >= MAX_SELECTIONS:
                        self._built.pop(next(iter(self._built)))
                    self._built[key] = built
            answering = _Answering(
                index=built.index,
                versions={lib: r.version for lib, r in chosen.items()},
                distributions=built.distributions,
                stored=built.stored,
                reasons=reasons,
                notes=tuple(notes),
            )
            if version is None:  # what ready() and warm() look at
                self._index = built.index
                self._key = tuple(sorted((r.library, r.generation) for r in rows))
                self._versions = dict(answering.versions)
                self._distributions = dict(built.distributions)
            return answering

    def registered_name(self, library: str, version: str | None = None) -> str:
        """The knowledge base that answers for ``library`` (``attrs@24.2.0``): ``version``,
        else the project's pin, else the newest, as find_api chooses it; ``library`` as given
        when no registered knowledge base is of it (the caller's lookup says so)."""
        from docmentor.library.service.registry import name_key
        from docmentor.sources.versions import library_of
        from docmentor.store.kb import list_kbs

        rows = list_kbs(self.engine.store)
        if "@" not in library and not any(library_of(r.library) == library_of(library) for r in rows):
            # spelt as package indexes compare names (`dirty-equals` for `dirty_equals`): that one
            spelt = {
                library_of(r.library) for r in rows if name_key(library_of(r.library)) == name_key(library)
            }
            library = spelt.pop() if len(spelt) == 1 else library
        if "@" in library or not any(library_of(r.library) == library_of(library) for r in rows):
            return library
        chosen, _reasons, _notes = self._select(rows, library, version)
        row = chosen.get(library_of(library))
        return row.library if row is not None else library

    def _select(
        self, rows: list[KbRow], library: str | None, version: str | None
    ) -> tuple[dict[str, KbRow], dict[str, str], list[str]]:
        """One knowledge base per library (library → its row), why each was chosen among
        several versions, and notes on what the choice passed over."""
        from docmentor.sources.versions import choose_version, library_of

        groups: dict[str, list[KbRow]] = {}
        for r in rows:
            groups.setdefault(library_of(r.library), []).append(r)
        chosen: dict[str, KbRow] = {}
        reasons: dict[str, str] = {}
        notes: list[str] = []
        for lib, members in groups.items():
            asked = version if library is None or library_of(library) == lib else None
            if asked is None and len(members) == 1:
                chosen[lib] = members[0]
                continue
            pin = None
            if asked is None:
                names = [lib, *self._distribution_names(members)]
                pin = requirement(self.cwd, names)
            choice = choose_version(lib, [m.version for m in members], asked=asked, requirement=pin)
            if choice is None:
                continue  # no knowledge base of this library describes the version asked
            chosen[lib] = next(m for m in members if m.version == choice.version)
            reasons[lib] = choice.reason
            if choice.note:
                notes.append(choice.note)
        if version is not None and not any(lib in reasons for lib in groups):
            wanted = [lib for lib in groups if library is None or library_of(library) == lib]
            listed = "; ".join(
                f"{lib} {', '.join(sorted(str(m.version) for m in groups[lib] if m.version)) or '(version unknown)'}"
                for lib in sorted(wanted)
            )
            raise NotFoundError(
                f"no knowledge base of {library or 'any library'} describes version {version}",
                hint=f"registered versions: {listed or 'none'}; ask for one of them, or have that "
                f"version's knowledge base made (readme-llm generate)",
            )
        return chosen, reasons, notes

    def _distribution_names(self, members: list[KbRow]) -> list[str]:
        from docmentor.store.kb import load_metadata

        names = []
        for m in members:
            dist = load_metadata(self.engine.store, m.library).get("settings", {}).get("distribution")
            if dist:
                names.append(str(dist))
        return names

    def _build(self, chosen: dict[str, KbRow]) -> _Built:
        from docmentor.library.knowledge.kb_index import load_entries, load_examples
        from docmentor.store.kb import load_metadata, load_vectors

        store = self.engine.store
        libs = {
            lib: (load_entries(store, r.library), load_examples(store, r.library))
            for lib, r in chosen.items()
        }
        # --no-embeddings, DOCMENTOR_EMBEDDINGS=0: by words only, the stored vectors not read
        vectors = (
            {lib: load_vectors(store, r.library) for lib, r in chosen.items()}
            if self.engine.embeddings
            else {}
        )
        settings = {lib: load_metadata(store, r.library).get("settings", {}) for lib, r in chosen.items()}
        docs = {lib: s.get("docs_source") for lib, s in settings.items()}
        index = ApiIndex(
            libs,
            vectors={lib: v for lib, v in vectors.items() if v is not None and v.model == MODEL_ID},
            docs_sources={lib: src for lib, src in docs.items() if src and store.has_source(src)},
            section_search=self._section_search,
            embedder=get_embedder,  # a query runs on one thread, the rankings beside it
            config=self.ranking,
        )
        return _Built(
            index=index,
            distributions={lib: str(s.get("distribution") or "") for lib, s in settings.items()},
            stored={lib: r.library for lib, r in chosen.items()},
        )

    def ready(self) -> bool:
        """Whether find_api would answer in milliseconds: the index is built and current, and
        the query model loaded (a server runs such calls in its event loop; else in a thread)."""
        from docmentor.store.kb import list_kbs

        index = self._index
        if index is None or self._lock.locked() or (index.semantic and not embedder_loaded()):
            return False
        try:
            rows = list_kbs(self.engine.store)
        except DocmentorError:
            return False
        if tuple(sorted((r.library, r.generation) for r in rows)) != self._key:
            return False
        # the project's pins are read again after its files change (a large uv.lock: ~0.2 s)
        return all(requirement_cached(self.cwd, self._pin_names(lib)) for lib in self._versions)

    def warm(self) -> None:
        """Load what the first find_api needs (the index, the query model), so it does not wait:
        for a server, in the background at start. Nothing when no knowledge base is registered."""
        try:
            answering = self._answering(None, None)
            if answering.index.entries:
                answering.index.find("warm up", limit=1)
                self._version_info(sorted(answering.versions), answering)  # reads the project's pins
        except Exception as exc:  # the first real call reports it the usual way
            log.debug("warming the library knowledge failed: %s", exc)

    def _section_search(self, query: str, source: str) -> list[Any]:
        """The engine's search over one docs source (nothing when the source went away), by
        words: find_api ranks by meaning on its own (the API descriptions' vectors)."""
        try:
            return list(
                self.engine.search(
                    query,
                    source=source,
                    limit=self.ranking.sections,
                    per_document=self.ranking.section_per_document,
                    snippets=False,
                    pool=self.ranking.sections,
                    semantic=False,
                    ranking=self.engine.ranking.for_api_sections(),
                )
            )
        except NotFoundError:
            return []

    def _library(self, library: str | None, answering: _Answering) -> str | None:
        """The library as the index names it ("HTTPX", " httpx" and "httpx@0.28" name httpx;
        "sqlite-utils" and "sqlite_utils" name each other, as package indexes compare names)."""
        from docmentor.library.service.registry import name_key, named_keys

        if library is None:
            return None
        if library not in answering.versions:
            wanted = named_keys(library)
            same = [name for name in answering.versions if name_key(name) in wanted]
            if len(same) == 1:
                return same[0]
            known = ", ".join(sorted(answering.versions)) or "none"
            docs = self._docs_of(library)
            search = f"its docs are indexed: search them (source {docs!r}); " if docs else ""
            raise NotFoundError(
                f"no knowledge base for {library!r}",
                hint=f"{search}libraries with one: {known}; readme-llm generate makes one for another",
            )
        return library

    def _docs_of(self, library: str) -> str | None:
        """The indexed docs source of a library without a knowledge base (named after it, or
        ``LIB-docs``), which the docs tools can still answer from; None when there is none."""
        from docmentor.library.service.registry import name_key

        wanted = {name_key(library), name_key(f"{library}-docs")}
        try:
            names = [row.name for row in self.engine.store.sources()]
        except Exception:  # the hint is a courtesy: an unreadable list gives none
            return None
        return next((n for n in names if name_key(n.partition("@")[0]) in wanted), None)

    def _require_any(self, answering: _Answering) -> None:
        if not answering.versions:
            raise NotFoundError(
                "no library knowledge base is registered",
                hint="generate one: docmentor readme-llm generate --library NAME --docs-path DOCS",
            )

    # -- answers ------------------------------------------------------------------------
    def find_api(
        self, query: str, *, max_results: int = 5, library: str | None = None, version: str | None = None
    ) -> FoundApis:
        """``version``: the knowledge base of that version of ``library`` (of every library
        registered in it, without ``library``); default: the project's pinned, else the newest."""
        if not query.strip():
            raise UsageError(
                "empty query", hint="describe the task, e.g. 'send a POST request with a JSON body'"
            )
        library, version = _named_version(library, version)
        answering = self._answering(library, version)
        index = answering.index
        lib = self._library(library, answering)
        self._require_any(answering)
        report: dict[str, Any] = {}
        hits = index.find(query, limit=max_results, library=lib, report=report)
        libs = sorted({h.library for h in hits})
        shown = libs or ([lib] if lib else sorted(answering.versions))
        versions, warnings = self._version_info(shown, answering)
        closeness = report.get("closeness") or {}
        if unembedded := report.get("unembedded"):
            warnings.append(
                f"no usable embeddings in the knowledge base of {', '.join(unembedded)} (generated "
                "with --no-embeddings, or by another model): matched by words only beside the other "
                "libraries; name the library, or generate it again"
            )
        if hits and hits[0].library in closeness and closeness[hits[0].library] < self.ranking.weak_match:
            warnings.append(
                f"no API of {hits[0].library} is close to this task (best similarity "
                f"{closeness[hits[0].library]:.2f}): it may not do this; these are the nearest it has"
            )
        return FoundApis(
            query=query,
            results=tuple(ApiMatch.of(h, rank) for rank, h in enumerate(hits, 1)),
            versions=versions,
            warnings=tuple(warnings),
            version_reasons=answering.reasons_of(shown),
        )

    def get_examples(
        self,
        task_description: str,
        *,
        apis_involved: list[str] | None = None,
        complexity: str = "any",
        library: str | None = None,
        limit: int = 3,
        version: str | None = None,
    ) -> FoundExamples:
        """``version`` as for :meth:`find_api`."""
        if complexity not in COMPLEXITIES:
            raise UsageError(
                f"unknown complexity {complexity!r}", hint=f"use one of {', '.join(COMPLEXITIES)}"
            )
        if not task_description.strip() and not any(a.strip() for a in apis_involved or []):
            raise UsageError("empty task", hint="describe the task, or name the APIs it involves")
        library, version = _named_version(library, version)
        answering = self._answering(library, version)
        index = answering.index
        lib = self._library(library, answering)
        self._require_any(answering)
        found = index.examples_for(
            task_description, apis=apis_involved or [], complexity=complexity, library=lib, limit=limit
        )
        examples = tuple(
            ExampleMatch(
                example_id=ex.example_id,
                library=name,
                title=ex.title,
                code=_as_shown(index, name, ex),
                language=ex.language,
                apis_used=tuple(ex.apis_used),
                complexity=ex.complexity,
                prerequisites=tuple(ex.prerequisites),
                validated=ex.validated,
                deprecated_apis={a: display(r) for a, r in index.deprecated_in(name, ex).items()},
                drift=tuple(ex.drift),
                source=f"{ex.path}:{ex.line}",
                relevance=round(score, 4),
                origin=ex.origin,
            )
            for name, ex, score in found
        )
        libs = sorted({e.library for e in examples}) or sorted(answering.versions)
        versions, warnings = self._version_info(libs, answering)
        unknown = index.unknown_apis(apis_involved or [], lib)
        if unknown:
            close = [c for a in unknown for c in index.close_names(a, lib)[:1]]
            warnings.append(
                f"no API named {', '.join(repr(a) for a in unknown)} in the knowledge base"
                f"{f' of {lib}' if lib else ''}"
                + (f" (did you mean {', '.join(close)}?)" if close else "")
                + ": "
                + (
                    "the examples are chosen by the task alone"
                    if task_description.strip()
                    else "and no task was given to choose examples by"
                )
            )
        unshown = [
            a
            for a in dict.fromkeys(a for a in apis_involved or [] if a.strip())
            if examples
            and a not in unknown
            and not index.is_example_id(a, lib)  # an example asked for by its id: shown first
            and not any(index.named(a, lib) & set(e.apis_used) for e in examples)
        ]
        if unshown:
            warnings.append(
                f"none of these examples uses {', '.join(repr(a) for a in unshown)}"
                " (the docs show no call of it that was matched): they were chosen by the task"
            )
        return FoundExamples(
            task=task_description,
            examples=examples,
            versions=versions,
            warnings=tuple(warnings),
            version_reasons=answering.reasons_of(libs),
        )

    def overview(
        self, library: str | None = None, *, aspect: str = "all", version: str | None = None
    ) -> LibraryOverview:
        """``version`` as for :meth:`find_api`."""
        from docmentor.store.kb import load_overview

        if aspect not in ASPECTS:
            raise UsageError(f"unknown aspect {aspect!r}", hint=f"use one of {', '.join(ASPECTS)}")
        library, version = _named_version(library, version)
        answering = self._answering(library, version)
        self._require_any(answering)
        if library is None:
            if len(answering.versions) > 1:
                raise UsageError(
                    "several libraries are registered",
                    hint=f"name one: {', '.join(sorted(answering.versions))}",
                )
            library = next(iter(answering.versions))
        lib = self._library(library, answering)
        assert lib is not None
        data = load_overview(self.engine.store, answering.stored.get(lib, lib))
        aspects = data.get("aspects", {})
        # each aspect starts with its own heading
        text = "\n\n".join(v for v in aspects.values() if v) if aspect == "all" else aspects.get(aspect, "")
        versions, warnings = self._version_info([lib], answering)
        return LibraryOverview(
            library=lib,
            aspect=aspect,
            overview=text,
            description=data.get("description", ""),
            versions=versions,
            warnings=tuple(warnings),
            version_reasons=answering.reasons_of([lib]),
        )

    # -- versions -----------------------------------------------------------------------
    def _version_info(
        self, libraries: list[str], answering: _Answering
    ) -> tuple[dict[str, str | None], list[str]]:
        """The versions of ``libraries`` the knowledge bases describe, and a warning for each
        the user's project pins to another version (unless that version was asked for), and
        for each whose pinned version has no knowledge base."""
        versions = {lib: answering.versions.get(lib) for lib in libraries}
        warnings = list(answering.notes)
        for lib, version in versions.items():
            if answering.reasons.get(lib) == "asked":
                continue
            found = requirement(self.cwd, _pin_names(lib, answering.distributions))
            if found is None or not version or not found.excludes(version):
                continue
            name, spec = found
            exact = pinned_version(self.cwd, name)
            wants = f"pins {name} {exact}" if exact else f"requires {name}{spec}"
            warnings.append(
                f"this describes {lib} {version}, but your project {wants}: check the differences"
            )
        return versions, warnings

    def _pin_names(self, library: str) -> list[str]:
        """The names a project's requirements may give the library: its own and its distribution's."""
        return _pin_names(library, self._distributions)


def _as_shown(index: ApiIndex, library: str, example: Example) -> str:
    """An example's code as README.LLM shows it: a docstring's doctest as the program its
    prompts spell, with the imports of the library's names it calls bare (a tour: get_examples
    gave `>>> chunked(range(10), 3)` where README.LLM gave a program that runs); the docs'
    examples as their page shows them."""
    if example.origin != "docstring":  # as written, as its page shows it (no annotation markers)
        from docmentor.parse.shown_code import code_as_shown

        return "\n".join(code_as_shown(example.language, example.code.split("\n")))
    from docmentor.library.knowledge.readme import example_code, with_imports

    by_id = {a: e for a in example.apis_used if (e := index.entry(library, a)) is not None}
    return with_imports(example, example_code(example), by_id)


def _pin_names(library: str, distributions: Mapping[str, str]) -> list[str]:
    return [library, *([d] if (d := distributions.get(library)) else [])]


def _named_version(library: str | None, version: str | None) -> tuple[str | None, str | None]:
    """``httpx@0.28`` (a registered knowledge base's name) as library httpx, version 0.28."""
    from docmentor.sources.versions import library_of

    if library is None or version is not None:
        return library, version
    name = library_of(library.strip())
    if name != library.strip():
        return name, library.strip()[len(name) + 1 :]
    return library, version


#: selections of knowledge bases (one version per library) whose indexes are kept
MAX_SELECTIONS = 4


@dataclass(frozen=True, slots=True)
class _Built:
    """The API index over one selection of knowledge bases, and what it was built from."""

    index: ApiIndex
    distributions: dict[str, str]  # library → its distribution's name (pins may use it)
    stored: dict[str, str]  # library → the name its knowledge base is registered under


@dataclass(frozen=True, slots=True)
class _Answering:
    """The knowledge bases that answer one call: one per library, with why where a version
    was chosen among several (or asked for) and notes on what the choice passed over."""

    index: ApiIndex
    versions: dict[str, str | None]
    distributions: dict[str, str]
    stored: dict[str, str]
    reasons: dict[str, str]
    notes: tuple[str, ...]

    def reasons_of(self, libraries: list[str]) -> dict[str, str]:
        return {lib: self.reasons[lib] for lib in libraries if lib in self.reasons}
