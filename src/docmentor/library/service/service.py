"""The library-knowledge answers behind `docmentor api …` and the `api` MCP tools.

Knowledge bases registered in the index (by `readme-llm generate`) are loaded once per
process and cached by their generation, so a regeneration is seen at the next call.
Every answer states the library version it describes, and warns when the user's project
(pyproject.toml, uv.lock, requirements*.txt in the working folder) pins another one.
"""

from __future__ import annotations

import logging
import threading
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

log = logging.getLogger(__name__)

ASPECTS = ("architecture", "quickstart", "concepts", "all")
COMPLEXITIES = ("beginner", "intermediate", "advanced", "any")


class LibraryKnowledge:
    """find_api / get_examples / get_library_overview over the registered knowledge bases."""

    def __init__(
        self, engine: Docmentor, *, cwd: Path | None = None, ranking: ApiRankingConfig = DEFAULT
    ) -> None:
        """``ranking``: find_api's and get_examples' constants (:mod:`docmentor.library.find.config`),
        as ``Docmentor(ranking=...)`` takes search's."""
        self.engine = engine
        self.cwd = cwd or Path.cwd()
        self.ranking = ranking
        self._lock = threading.Lock()
        self._key: tuple[tuple[str, int], ...] = ()
        self._index: ApiIndex | None = None
        self._versions: dict[str, str | None] = {}
        self._distributions: dict[str, str] = {}

    # -- loading ------------------------------------------------------------------------
    def index(self) -> ApiIndex:
        from docmentor.library.knowledge.kb_index import load_entries, load_examples
        from docmentor.store.kb import list_kbs, load_metadata, load_vectors

        rows = list_kbs(self.engine.store)
        key = tuple(sorted((r.library, r.generation) for r in rows))
        with self._lock:
            if self._index is None or key != self._key:
                with self.engine.store.snapshot():  # registry, entries and examples of one generation
                    rows = list_kbs(self.engine.store)
                    key = tuple(sorted((r.library, r.generation) for r in rows))
                    libs = {
                        r.library: (
                            load_entries(self.engine.store, r.library),
                            load_examples(self.engine.store, r.library),
                        )
                        for r in rows
                    }
                    vectors = {r.library: load_vectors(self.engine.store, r.library) for r in rows}
                    settings = {
                        r.library: load_metadata(self.engine.store, r.library).get("settings", {})
                        for r in rows
                    }
                    docs = {lib: s.get("docs_source") for lib, s in settings.items()}
                self._index = ApiIndex(
                    libs,
                    vectors={lib: v for lib, v in vectors.items() if v is not None and v.model == MODEL_ID},
                    docs_sources={
                        lib: src for lib, src in docs.items() if src and self.engine.store.has_source(src)
                    },
                    section_search=self._section_search,
                    embedder=get_embedder,  # a query runs on one thread, the rankings beside it
                    config=self.ranking,
                )
                self._versions = {r.library: r.version for r in rows}
                self._distributions = {lib: str(s.get("distribution") or "") for lib, s in settings.items()}
                self._key = key
            return self._index

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
            index = self.index()
            if index.entries:
                index.find("warm up", limit=1)
                self._version_info(sorted(self._versions))  # reads the project's pins
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

    def _library(self, library: str | None) -> str | None:
        self.index()
        if library is None:
            return None
        if library not in self._versions:
            # as the library is written elsewhere: "HTTPX", " httpx"
            same = [name for name in self._versions if name.lower() == library.strip().lower()]
            if len(same) == 1:
                return same[0]
            known = ", ".join(sorted(self._versions)) or "none"
            raise NotFoundError(
                f"no knowledge base for {library!r}",
                hint=f"known: {known}; generate one with: docmentor readme-llm generate --library {library}",
            )
        return library

    def _require_any(self) -> None:
        if not self._versions:
            raise NotFoundError(
                "no library knowledge base is registered",
                hint="generate one: docmentor readme-llm generate --library NAME --docs-path DOCS",
            )

    # -- answers ------------------------------------------------------------------------
    def find_api(self, query: str, *, max_results: int = 5, library: str | None = None) -> FoundApis:
        if not query.strip():
            raise UsageError(
                "empty query", hint="describe the task, e.g. 'send a POST request with a JSON body'"
            )
        index = self.index()
        lib = self._library(library)
        self._require_any()
        report: dict[str, Any] = {}
        hits = index.find(query, limit=max_results, library=lib, report=report)
        libs = sorted({h.library for h in hits})
        versions, warnings = self._version_info(libs or ([lib] if lib else sorted(self._versions)))
        closeness = report.get("closeness") or {}
        if hits and hits[0].library in closeness and closeness[hits[0].library] < self.ranking.weak_match:
            warnings.append(
                f"no API of {hits[0].library} is close to this task (best similarity "
                f"{closeness[hits[0].library]:.2f}): it may not do this; these are the nearest by words"
            )
        return FoundApis(
            query=query,
            results=tuple(ApiMatch.of(h, rank) for rank, h in enumerate(hits, 1)),
            versions=versions,
            warnings=tuple(warnings),
        )

    def get_examples(
        self,
        task_description: str,
        *,
        apis_involved: list[str] | None = None,
        complexity: str = "any",
        library: str | None = None,
        limit: int = 3,
    ) -> FoundExamples:
        if complexity not in COMPLEXITIES:
            raise UsageError(
                f"unknown complexity {complexity!r}", hint=f"use one of {', '.join(COMPLEXITIES)}"
            )
        if not task_description.strip() and not any(a.strip() for a in apis_involved or []):
            raise UsageError("empty task", hint="describe the task, or name the APIs it involves")
        index = self.index()
        lib = self._library(library)
        self._require_any()
        found = index.examples_for(
            task_description, apis=apis_involved or [], complexity=complexity, library=lib, limit=limit
        )
        examples = tuple(
            ExampleMatch(
                example_id=ex.example_id,
                library=name,
                title=ex.title,
                code=ex.code,
                language=ex.language,
                apis_used=tuple(ex.apis_used),
                complexity=ex.complexity,
                prerequisites=tuple(ex.prerequisites),
                validated=ex.validated,
                deprecated_apis={a: display(r) for a, r in index.deprecated_in(name, ex).items()},
                drift=tuple(ex.drift),
                source=f"{ex.path}:{ex.line}",
                relevance=round(score, 4),
            )
            for name, ex, score in found
        )
        libs = sorted({e.library for e in examples})
        versions, warnings = self._version_info(libs or sorted(self._versions))
        unknown = index.unknown_apis(apis_involved or [], lib)
        if unknown:
            warnings.append(
                f"no API named {', '.join(repr(a) for a in unknown)} in the knowledge base"
                f"{f' of {lib}' if lib else ''}: examples chosen by the task alone for those"
            )
        return FoundExamples(
            task=task_description, examples=examples, versions=versions, warnings=tuple(warnings)
        )

    def overview(self, library: str | None = None, *, aspect: str = "all") -> LibraryOverview:
        from docmentor.store.kb import load_overview

        if aspect not in ASPECTS:
            raise UsageError(f"unknown aspect {aspect!r}", hint=f"use one of {', '.join(ASPECTS)}")
        self.index()
        self._require_any()
        if library is None:
            if len(self._versions) > 1:
                raise UsageError(
                    "several libraries are registered", hint=f"name one: {', '.join(sorted(self._versions))}"
                )
            library = next(iter(self._versions))
        lib = self._library(library)
        assert lib is not None
        data = load_overview(self.engine.store, lib)
        aspects = data.get("aspects", {})
        # each aspect starts with its own heading
        text = "\n\n".join(v for v in aspects.values() if v) if aspect == "all" else aspects.get(aspect, "")
        versions, warnings = self._version_info([lib])
        return LibraryOverview(
            library=lib,
            aspect=aspect,
            overview=text,
            description=data.get("description", ""),
            versions=versions,
            warnings=tuple(warnings),
        )

    # -- versions -----------------------------------------------------------------------
    def _version_info(self, libraries: list[str]) -> tuple[dict[str, str | None], list[str]]:
        """The versions of ``libraries`` the knowledge bases describe, and a warning for each
        the user's project pins to another version."""
        versions = {lib: self._versions.get(lib) for lib in libraries}
        warnings = []
        for lib, version in versions.items():
            found = requirement(self.cwd, self._pin_names(lib))
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
        return [library, *([d] if (d := self._distributions.get(library)) else [])]
