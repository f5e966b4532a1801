"""Finding APIs and examples for a task, in memory.

``find_api`` fuses up to three rankings of the library's APIs by reciprocal rank fusion,
(hybrid retrieval), each contribution weighted by its score relative to the best
of its ranking (``Σ score / (rrf_k + rank)``, each ranking cut at its best ``depth``), so a
weak match far down one ranking adds little. Every constant named here is a field of
:class:`~docmentor.library.find.config.ApiRankingConfig`, with its reason (``docs/ranking.md``).

``lexical``
    BM25F with the engine's analyzer over each API's names (short name, aliases and id,
    split into parts), its signature and its docstring as three weighted fields of one
    document (a word counts once however many of them hold it: :class:`.bm25f.BM25Field`), plus the
    best-matching of the documentation examples that use it (each example one BM25
    document: its title, headings, prose and code). An API matches a task when one of its
    examples does; a single document of all its examples would let an API used in ten
    places lose on length to one used once. The two scores are added with weights,
    normalised per query and re-ranked with the API's importance (``(1 − importance_share)
    · relevance + importance_share · importance``). A
    task's word that no API name holds also asks for its WordNet synonyms that API names
    do hold (:mod:`docmentor.library.find.synonyms`: "fetch" → ``get``); the section search
    below is asked them too.
``sections``
    The engine's own section search over the library's indexed docs; every found section
    credits the APIs it names (:mod:`docmentor.library.knowledge.mentions`): best ``section
    score × weight`` per API, the score relative to the best section found (not re-scaled
    by the best credited API: a task whose best sections name no API gives this ranking
    little to say). A task phrased like the docs' prose ("stream the response
    line by line") finds the section that explains it, and so its API.
``semantic``
    Cosine similarity between the task and each API's embedding (all-MiniLM-L6-v2,
    :mod:`docmentor.embeddings`) of its public path, name words, kind, summary and the
    headings and prose of its first examples. Only when the knowledge base carries vectors
    of the same model (``readme-llm generate`` writes them unless ``--no-embeddings``).

After fusion some APIs weigh less, so that on a near-tie the one a user calls comes
first: data (attributes, read-only properties) and modules (``attribute_weight``), what the
surface marks as no API users call and CLI command objects (:mod:`.roles`), deprecated APIs
(after what replaces them), second copies and APIs off the user's path (:mod:`.priors`),
and the second edition of a sync/async pair already listed (:mod:`.twins`).

The fused score, normalised by the best, is the reported ``relevance``; each result
shows its rank in every ranking (``signals``). The index is small (a few thousand APIs),
so it is rebuilt per process from the knowledge base and cached by generation.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from docmentor.embeddings import EmbeddingUnavailable
from docmentor.library.find.api_text import api_doc, api_name_terms
from docmentor.library.find.bm25f import ShardedBM25
from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.find.example_ranking import examples_for
from docmentor.library.find.extension import OWN_INTENT, extension_points
from docmentor.library.find.fusion import Ranking, fuse, ranked
from docmentor.library.find.hits import ApiHit, api_details
from docmentor.library.find.import_paths import import_path
from docmentor.library.find.priors import secondary
from docmentor.library.find.replacements import replacements
from docmentor.library.find.roles import ERROR_INTENT, asks_for_command, asks_for_error, is_data, role_weights
from docmentor.library.find.semantic import semantic_ranking, worker
from docmentor.library.find.synonyms import synonyms, verb_synonyms
from docmentor.library.find.twins import editions
from docmentor.library.knowledge.mentions import MentionResolver, SectionRef
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.docstrings import plain
from docmentor.search.analyzer import analyze, analyze_query
from docmentor.search.stopwords import STOPWORDS

if TYPE_CHECKING:
    import numpy as np

    from docmentor.embeddings import Embedder, LibraryVectors

# the texts of an API that are indexed and embedded, re-exported: the pipeline embeds them
__all__ = ["ApiHit", "ApiIndex", "SectionSearch"]

#: (query, docs source) → the engine's ranked sections of that source
SectionSearch = Callable[[str, str], Sequence[SectionRef]]

# a task that is only a name: `enable_fts`, `Table.enable_fts`, `table.enable_fts()`, in backticks
_EXACT = re.compile(r"`?(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(\))?`?")


# what an error task's intent leaves after ERROR_INTENT's first match: "which error | is
# raised when", "which exception | do I catch"; fixed words, one pass
_INTENT_REST = re.compile(
    r"\b(?:is|are|gets|get|be|being)\s+(?:raised|thrown)\b|\b(?:do|should|can|would)\s+(?:i|we|you)\s+catch\b",
    re.IGNORECASE,
)


class ApiIndex:
    """Hybrid retrieval over one or more libraries' APIs (see the module docstring)."""

    def __init__(
        self,
        libraries: dict[str, tuple[list[ApiEntry], list[Example]]],
        *,
        vectors: Mapping[str, LibraryVectors] | None = None,
        docs_sources: Mapping[str, str] | None = None,
        section_search: SectionSearch | None = None,
        embedder: Callable[[], Embedder] | None = None,
        config: ApiRankingConfig = DEFAULT,
    ) -> None:
        """
        Args:
            libraries: library → (API entries, examples).
            vectors: library → its API embeddings (libraries without them rank without).
            docs_sources: library → the indexed source of its docs, for ``section_search``.
            section_search: the engine's section search (None: no ``sections`` ranking).
            embedder: gives the query embedder (None: no ``semantic`` ranking).
            config: the ranking constants (:mod:`docmentor.library.find.config`).
        """
        self.config = config
        k1, b = config.bm25_k1, config.bm25_b
        self.entries: list[tuple[str, ApiEntry]] = []
        self.examples: dict[str, tuple[str, Example]] = {}
        self._by_example_id: dict[str, list[tuple[str, tuple[str, Example]]]] | None = None
        # an API's name, signature and docstring: one BM25F document
        several = len(libraries) > 1
        self.text = ShardedBM25(config.field_weights(), pooled=several, k1=k1, b=b)
        # one BM25 document per example; an API's "examples" score is its best example's
        self.example_field = ShardedBM25(pooled=several, k1=k1, b=b)
        self.example_heads = ShardedBM25(k1=k1, b=b)  # an example's title and headings alone (get_examples)
        self.example_apis: list[list[int]] = []  # example position → the entries it is linked to
        self.example_position: dict[str, int] = {}  # "library:example_id" → its position
        self._position: dict[tuple[str, str], int] = {}
        self._resolvers: dict[str, MentionResolver] = {}
        self._names: dict[str, frozenset[str]] = {}
        from_docstrings: list[tuple[str, Example]] = []
        for library, (entries, examples) in sorted(libraries.items()):
            example_at: dict[str, int] = {}
            self.example_field.start(library, len(self.example_apis))
            self.example_heads.start(library, len(self.example_apis))
            self.text.start(library, len(self.entries))
            for ex in examples:
                if ex.origin != "docs":  # a docstring's: in fields of its own, below
                    from_docstrings.append((library, ex))
                    continue
                example_at[ex.example_id] = len(self.example_apis)
                self._add_example(library, ex, self.example_field, self.example_heads)
            names: set[str] = set()
            for e in entries:
                i = len(self.entries)
                self._position[(library, e.api_id)] = i
                self.entries.append((library, e))
                name_terms = api_name_terms(e)
                names.update(name_terms)
                self.text.add(
                    {
                        "name": name_terms,
                        "signature": analyze(e.signature),
                        "doc": analyze(plain(api_doc(e))),
                    }
                )
                for x in dict.fromkeys(e.examples[: config.linked_examples]):
                    if x in example_at:
                        self.example_apis[example_at[x]].append(i)
            self._resolvers[library] = MentionResolver(entries, examples, config=config)
            self._names[library] = frozenset(names)  # what its API names say (synonyms)
        # the docstrings' examples after every library's docs examples, in fields of their
        # own: get_examples reads them, find_api's examples score (the docs' examples, whose
        # statistics they would change) does not
        self.docstring_field = ShardedBM25(k1=k1, b=b)
        self.docstring_heads = ShardedBM25(k1=k1, b=b)
        started: set[str] = set()
        for library, ex in from_docstrings:
            if library not in started:
                started.add(library)
                self.docstring_field.start(library, len(self.example_apis))
                self.docstring_heads.start(library, len(self.example_apis))
            self._add_example(library, ex, self.docstring_field, self.docstring_heads)
        import numpy

        self._all_names = frozenset().union(*self._names.values())
        for f in (
            self.text,
            self.example_field,
            self.example_heads,
            self.docstring_field,
            self.docstring_heads,
        ):
            f.freeze()
        # the language of each library's API (the examples in it come first in get_examples)
        self.api_language = {
            lib: Counter(e.language for lb, e in self.entries if lb == lib).most_common(1)[0][0]
            for lib in {lb for lb, _ in self.entries}
        }
        pairs = [(i, x) for x, apis in enumerate(self.example_apis) for i in apis]
        self._link_api = numpy.fromiter((i for i, _ in pairs), dtype=numpy.intp, count=len(pairs))
        self._link_example = numpy.fromiter((x for _, x in pairs), dtype=numpy.intp, count=len(pairs))
        self._importance = numpy.fromiter(
            (e.importance_score for _, e in self.entries), dtype=numpy.float64, count=len(self.entries)
        )
        # each entry's place among all when scores tie: the more important, then by id
        ties = sorted(
            range(len(self.entries)),
            key=lambda i: (-self.entries[i][1].importance_score, self.entries[i][1].api_id),
        )
        self._tiebreak = numpy.empty(len(self.entries), dtype=numpy.intp)
        self._tiebreak[numpy.asarray(ties, dtype=numpy.intp)] = numpy.arange(len(ties), dtype=numpy.intp)
        self._library_number = {lib: k for k, lib in enumerate(sorted(libraries))}
        self._library_of = numpy.fromiter(
            (self._library_number[lib] for lib, _ in self.entries), dtype=numpy.intp, count=len(self.entries)
        )
        # deprecated API → the APIs its reason names (its replacements), by position
        self._replaced_by: dict[int, list[int]] = {}
        for i, (library, e) in enumerate(self.entries):
            if e.deprecated:
                found = replacements(self._resolvers[library], self._position, self.entries, library, e)
                if found:
                    self._replaced_by[i] = found
        self._details: dict[int, dict[str, Any]] = {}  # entry position → api_details(entry), on first use
        # library → each name of its APIs (id, public paths, short names) → their api_ids
        self._api_names: dict[str | None, dict[str, frozenset[str]]] = {}
        # the top-level packages of each library's APIs (every library's under None), with the names
        self._packages: dict[str | None, frozenset[str]] = {}
        self._paths: dict[str, tuple[str, ...]] = {}  # api_id → its public paths (named)
        self.docs_sources = dict(docs_sources or {})
        self.section_search = section_search
        self.embedder = embedder
        self.semantic_error: str | None = None
        self.vectors: dict[str, tuple[LibraryVectors, np.ndarray]] = {}  # row → entry position (-1: none)
        verb_synonyms()  # loaded with the index, not by the first query (~5 ms)
        second = {lib: secondary(entries, lib, config) for lib, (entries, _) in libraries.items()}
        self._secondary = {
            i for i, (lib, e) in enumerate(self.entries) if e.language == "python" and e.api_id in second[lib]
        }
        self._attributes = {i for i, (_, e) in enumerate(self.entries) if is_data(e)}
        self._exceptions = {i for i, (_, e) in enumerate(self.entries) if e.exception}
        # what the surface marks as no API users call, and CLI command objects (find/roles.py)
        self._roles, self._commands = role_weights([e for _, e in self.entries], config)
        # extension points: classes the library subclasses itself (``min_subclasses`` times
        # or more), and their members a subclass overrides (``extension_weight``)
        self._extension = extension_points(self.entries, self._secondary, config.min_subclasses)
        # entry position → the positions of its other editions (sync/async twins)
        self._twins: dict[int, tuple[int, ...]] = {}
        for lib, (entries, _) in libraries.items():
            for group in editions(entries):
                at = tuple(self._position[(lib, a)] for a in group)
                for i in at:
                    self._twins[i] = tuple(j for j in at if j != i)
        for library, lv in (vectors or {}).items():
            rows = [self._position.get((library, a), -1) for a in lv.api_ids]
            if library in self._resolvers and len(rows) == len(lv.matrix):
                self.vectors[library] = (lv, numpy.asarray(rows, dtype=numpy.intp))

    def entry(self, library: str, api_id: str) -> ApiEntry | None:
        """The API ``api_id`` of ``library``, or None."""
        at = self._position.get((library, api_id))
        return self.entries[at][1] if at is not None else None

    def deprecated_in(self, library: str, ex: Example) -> dict[str, str]:
        """The deprecated APIs an example uses: api_id → the library's reason."""
        out = {}
        for api in ex.apis_used:
            i = self._position.get((library, api))
            reason = self.entries[i][1].deprecated if i is not None else None
            if reason:
                out[api] = reason
        return out

    def users_call(self, library: str, api: str) -> bool:
        """Whether ``api`` (an api_id) is an API of ``library`` that users call: not one the
        surface marks internal or an instance attribute (:mod:`.roles`)."""
        i = self._position.get((library, api))
        if i is None:
            return False
        e = self.entries[i][1]
        return not (e.internal or e.instance_attribute)

    def _add_example(self, library: str, ex: Example, field: ShardedBM25, heads: ShardedBM25) -> None:
        """Number an example and index its text (title, headings, prose, code) and its title
        and headings alone."""
        config = self.config
        self.examples[f"{library}:{ex.example_id}"] = (library, ex)
        self.example_position[f"{library}:{ex.example_id}"] = len(self.example_apis)
        self.example_apis.append([])
        field.add(
            analyze(
                f"{ex.title} {' '.join(ex.heading_path)} {ex.context} {ex.code[: config.example_code_chars]}"
            )
        )
        heads.add(analyze(f"{ex.title} {' '.join(ex.heading_path)}"))

    @property
    def semantic(self) -> bool:
        """Whether queries are embedded (some library has vectors and an embedder is set)."""
        return bool(self.vectors) and self.embedder is not None

    # -- the three rankings -------------------------------------------------------------
    def _word_scores(
        self, terms: Sequence[tuple[str, float]], library: str | None, *, pooled: bool = False
    ) -> np.ndarray:
        """Per API: its text's BM25F plus ``examples_weight`` × its best example's BM25 (each library's
        own fields, or with ``pooled`` the fields over all libraries)."""
        import numpy

        total = numpy.zeros(len(self.entries))
        self.text.add_scores(terms, total, 1.0, library, pooled=pooled)
        if self._link_api.size:
            per_example = numpy.zeros(len(self.example_apis))
            self.example_field.add_scores(terms, per_example, 1.0, library, pooled=pooled)
            best = numpy.zeros(len(self.entries))
            numpy.maximum.at(best, self._link_api, per_example[self._link_example])
            total += self.config.examples_weight * best
        return total

    def _lexical(self, terms: Sequence[tuple[str, float]], library: str | None) -> Ranking:
        import numpy

        total = self._word_scores(terms, library)
        if library is not None:
            total[self._library_of != self._library_number.get(library, -1)] = 0.0
        matched = numpy.flatnonzero(total > 0)
        if not matched.size:
            return []
        highest = float(total[matched].max())
        relevance = total[matched] / highest
        share = self.config.importance_share
        scored = (1 - share) * relevance + share * self._importance[matched]
        # the fusion reads the best ``depth``: keep those (and any tied with the last)
        keep = 2 * self.config.depth
        if matched.size > keep:
            cut = numpy.partition(scored, -keep)[-keep]
            chosen = scored >= cut
            matched, scored = matched[chosen], scored[chosen]
        return ranked(matched, scored, self._tiebreak, len(matched))

    def _sections(self, query: str, library: str | None) -> Ranking:
        if self.section_search is None:
            return []
        credit: dict[int, float] = {}
        for lib, source in sorted(self.docs_sources.items()):
            if (library is not None and lib != library) or lib not in self._resolvers:
                continue
            hits = list(self.section_search(query, source))
            if not hits:
                continue
            top = max(float(getattr(h, "score", 1.0)) for h in hits) or 1.0
            scores = [float(getattr(h, "score", 1.0)) / top for h in hits]
            for api, value in self._resolvers[lib].rank(hits, scores).items():
                i = self._position.get((lib, api))
                if i is not None and value > credit.get(i, 0.0):
                    credit[i] = value
        import numpy

        positions = numpy.fromiter(credit, dtype=numpy.intp, count=len(credit))
        values = numpy.fromiter(credit.values(), dtype=numpy.float64, count=len(credit))
        # relative to the best *section*, not to the best credited API: when the sections that
        # match the task best name no API, a weaker one's credit stays weak (watchdog's
        # quickstart, naming `FileSystemEventHandler`, at 0.39 of the best section's score,
        # took full credit for every task its words touched)
        return ranked(positions, values, self._tiebreak, len(credit), relative=False)

    def _query_vector(self, query: str) -> Any:
        assert self.embedder is not None
        return self.embedder().embed_one(query)

    def _semantic_of(
        self, vector: Any, library: str | None, floor: float | None = None
    ) -> tuple[Ranking, float, float]:
        """:func:`.semantic.semantic_ranking` over this index's vectors (``floor``: the
        config's ``semantic_floor`` when None)."""
        return semantic_ranking(
            self.vectors,
            vector,
            library,
            self.config.semantic_floor if floor is None else floor,
            config=self.config,
            entries=len(self.entries),
            several=len(self._library_number) > 1,
            tiebreak=self._tiebreak,
        )

    def query_terms(self, query: str, library: str | None = None) -> list[tuple[str, float]]:
        """The query's terms for the lexical ranking, with the WordNet synonyms of its words
        that no API name (of ``library``, else of any) holds but whose synonym one does
        (:mod:`.synonyms`)."""
        return self._expanded(query, library)[0]

    def _expanded(self, query: str, library: str | None) -> tuple[list[tuple[str, float]], str]:
        """:meth:`query_terms`, and the query the section search is asked: the task with
        those synonyms after it, as written ("append rows to a table add" finds "Add data")."""
        terms = analyze_query(query)
        names = self._all_names if library is None else self._names.get(library, frozenset())
        found = synonyms(query, names, terms)
        if not found:
            return terms, query
        terms += [(t, self.config.synonym_weight) for s in found for t in s.terms]
        return terms, f"{query} {' '.join(s.synonym for s in found)}"

    def find(
        self, query: str, *, limit: int = 5, library: str | None = None, report: dict[str, Any] | None = None
    ) -> list[ApiHit]:
        """The APIs that best match a task description, best first.

        With vectors, the two word rankings run in a worker thread while this one embeds the
        query: onnxruntime releases the GIL while the model runs, so the worker's Python
        work goes on beside it, and it is done before the model (1.5 against ~2 ms): this
        thread then never waits for a wake-up or for the GIL.

        Several libraries and no ``library``: each is ranked as if the query named it, then
        the lists are merged, each library's scores (relative to its best) weighted by how
        well its best API matches the task against the best library's (``library_weight``).
        One ranking of all their APIs together would favour a library with documentation
        (one more ranking to score in) whatever the task.

        ``report``, when given, receives ``closeness``: per library with vectors, the cosine
        of its API closest to the task (the service warns when it is below ``weak_match``).
        """
        if not self.entries or not query.strip():
            return []
        libraries = [library] if library is not None else sorted(self._library_number)
        error_task = asks_for_error(query)  # "which exception is raised when …"
        # its intent words ("which error … is raised when") say what kind of answer
        # (exception_weight lifts those), not what it is about: the words rank by the rest
        worded = _INTENT_REST.sub(" ", ERROR_INTENT.sub(" ", query)) if error_task else query
        if not analyze_query(worded):
            worded = query  # nothing but intent ("which exception?"): the words are all there is
        queries = {lib: self._expanded(worded, lib) for lib in libraries}
        semantic: dict[str, tuple[Ranking, float, float]] = {}
        vector: Any = None
        if self.semantic:
            words = worker().submit(self._all_word_rankings, queries)
            try:
                vector = self._query_vector(query)
                semantic = {lib: self._semantic_of(vector, lib) for lib in libraries}
            except EmbeddingUnavailable as exc:  # rank without vectors rather than fail
                self.semantic_error = str(exc)
                self.embedder = None
            per_library = words.result()
            if report is not None:
                self._report(report, semantic, libraries)
        else:
            per_library = self._all_word_rankings(queries)
        scored: dict[str, tuple[dict[int, float], dict[str, Ranking]]] = {}
        own = OWN_INTENT.search(query) is not None  # "write my own class that …"
        command_task = asks_for_command(query)  # "… from the command line"
        for lib in libraries:
            rankings, _ = per_library[lib]
            rankings["semantic"] = semantic.get(lib, ([], 0.0))[0]
            wordless = rankings["semantic"] and not rankings["lexical"] and not rankings["sections"]
            if wordless and not self._known_words(query):
                # no word of the task is in the library, nor in the model's vocabulary: letters
                # that resemble a name ("asdf" came within 0.35 of `ASGITransport`) are no
                # likeness; a paraphrase in English words ("terminate when finished") is
                rankings["semantic"] = self._semantic_of(vector, lib, self.config.wordless_floor)[0]
            lib_fused = self._adjusted(fuse(rankings, self.config), command_task)
            if error_task:
                for i in self._exceptions.intersection(lib_fused):
                    lib_fused[i] *= self.config.exception_weight
            if own and self._extension:
                for i in self._extension.intersection(lib_fused):
                    lib_fused[i] *= self.config.extension_weight
            if lib_fused:
                scored[lib] = (lib_fused, rankings)
        if not scored:
            return []
        # each API's rank in each of its library's rankings (1-based, the best ``depth``)
        depth = self.config.depth
        positions: dict[str, dict[int, int]] = {}
        for _, lib_rankings in scored.values():
            for name, ranking in lib_rankings.items():
                positions.setdefault(name, {}).update((i, r) for r, (i, _) in enumerate(ranking[:depth], 1))
        fused: dict[int, float] = {}
        if len(scored) == 1:
            fused = next(iter(scored.values()))[0]
        else:
            strength = self._strength(scored, per_library, semantic)
            best_strength = max(strength.values()) or 1.0
            for lib, (lib_fused, _) in scored.items():
                weight = (strength[lib] / best_strength) ** self.config.library_weight
                lib_top = max(lib_fused.values())
                if weight > 0:  # no strength at all: nothing of it is an answer
                    fused.update((i, weight * v / lib_top) for i, v in lib_fused.items())
            if not fused:
                return []
        self._exact_first(query, fused, libraries)
        return self._hits(fused, positions, limit)

    def _report(
        self,
        report: dict[str, Any],
        semantic: Mapping[str, tuple[Ranking, float, float]],
        libraries: list[str],
    ) -> None:
        """``closeness``: how close each library's closest API came; ``unembedded``: the
        libraries matched by words alone beside others matched by meaning too."""
        report["closeness"] = {lib: found[2] for lib, found in semantic.items() if lib in self.vectors}
        if len(libraries) > 1 and semantic:
            report["unembedded"] = [lib for lib in libraries if lib not in self.vectors]

    def _strength(
        self,
        scored: Mapping[str, Any],
        per_library: Mapping[str, tuple[dict[str, Ranking], float]],
        semantic: Mapping[str, tuple[Ranking, float, float]],
    ) -> dict[str, float]:
        """Several libraries, a task naming none: how well each matches the task. The mean
        cosine of its 5 closest texts (one model: comparable across libraries) and its best
        word score (one index, one idf), each relative to the best library's, added."""
        words_best = max(per_library[lib][1] for lib in scored) or 1.0
        by_words = {lib: per_library[lib][1] / words_best for lib in scored}
        close = {lib: semantic[lib][1] for lib in scored if lib in semantic and lib in self.vectors}
        if not close:  # no vectors at all (embeddings off): the words alone
            strength = by_words
        else:
            # a library without vectors (generated with --no-embeddings) has no closeness:
            # it is taken as just plausible (weak_match), not as close as the best library
            # scaled by its words (word scores alone route poorly: httpx's docstrings
            # out-word click's on 9 of click's 15 tasks). Mixed httpx and click knowledge
            # bases, unscoped (2026-12-01): the unembedded click's tasks routed to click
            # 7 → 8 of 15, with the embedded one's 30 of 30 kept; the other way round
            # click's 7 → 14 of 15, httpx's 30 → 29 of 30
            missing = self.config.weak_match
            close_best = max(*close.values(), missing if len(close) < len(scored) else 0.0) or 1.0
            strength = {lib: by_words[lib] + close.get(lib, missing) / close_best for lib in scored}
        return strength

    def _exact_first(self, query: str, fused: dict[int, float], libraries: Sequence[str]) -> None:
        """A task that is only an API's name (``enable_fts``, ``State.seconds_since_start``,
        ``table.enable_fts()``) lists the APIs of that name first, in their fused order: the
        user asked for that one, however well its neighbours match the name's words (an
        undocumented member has no section to vote for it). The name is read as
        :meth:`named` reads it (a qualified one keeps those whose path ends so, when any
        does). In place."""
        name = _EXACT.fullmatch(query.strip())
        if name is None:
            return
        found = [
            i
            for lib in libraries
            for api_id in sorted(self.named(name["name"], lib))
            if (i := self._position.get((lib, api_id))) is not None
        ]
        if not found:
            return
        top = max(fused.values(), default=1.0) or 1.0
        for i in found:  # above every other, in the order they had
            fused[i] = top * (1.0 + 0.01 * fused.get(i, 0.0) / top)

    def _known_words(self, query: str) -> bool:
        """Whether a word of the query (not a stopword) is a whole word of the query model's
        vocabulary ("terminate", "finished"; not "asdf", "zxcv", "lorem")."""
        get = self.embedder
        if get is None:  # another thread found the model unusable: no likeness to judge
            return True
        embedder = get()
        return any(embedder.knows(w) for w in re.findall(r"[A-Za-z]+", query.lower()) if w not in STOPWORDS)

    def _all_word_rankings(
        self, queries: Mapping[str, tuple[list[tuple[str, float]], str]]
    ) -> dict[str, tuple[dict[str, Ranking], float]]:
        """Per library: its word rankings, and (several libraries) its best word score over
        all libraries' APIs pooled (one idf: comparable between libraries)."""
        out = {}
        for lib, (terms, expanded) in queries.items():
            rankings = {
                "lexical": self._lexical(terms, lib) if terms else [],
                "sections": self._sections(expanded, lib) if terms else [],
            }
            # its own terms: a synonym another library's names call for is not its word
            strength = self._word_strength(terms).get(lib, 0.0) if len(queries) > 1 and terms else 0.0
            out[lib] = (rankings, strength)
        return out

    def _word_strength(self, terms: Sequence[tuple[str, float]]) -> dict[str, float]:
        """Each library's best API by the words (text and best example, as the lexical
        ranking scores them) over the pooled fields."""
        import numpy

        total = self._word_scores(terms, None, pooled=True)
        strongest = numpy.zeros(len(self._library_number))
        numpy.maximum.at(strongest, self._library_of, total)
        return {lib: float(strongest[k]) for lib, k in self._library_number.items()}

    def _adjusted(self, fused: dict[int, float], command_task: bool = False) -> dict[int, float]:
        """The fused scores after the rules that weigh some APIs less (module docstring);
        ``command_task``: the task is worded as a command line (CLI command objects are its
        answers' kind: not weighed)."""
        if not fused:
            return fused
        # before the replacements of deprecated APIs are lifted: one that is an attribute
        # (`Mode.OVERWRITE`) keeps the place it is lifted to
        for i in self._attributes.intersection(fused):
            fused[i] *= self.config.attribute_weight
        # what the surface marks as no API users call (internal, instance attributes), and
        # CLI command objects for a task worded as code (find/roles.py)
        for i in fused.keys() & self._roles.keys():
            fused[i] *= self._roles[i]
        if not command_task:
            for i in self._commands.intersection(fused):
                fused[i] *= self.config.command_weight
        # A deprecated API is still found, but after what replaces it: of the replacements
        # its reason names, the best-ranked one, takes its place if it ranked lower, and the
        # deprecated one comes right after it.
        for i in sorted((i for i in fused if self.entries[i][1].deprecated), key=lambda i: -fused[i]):
            replacements = self._replaced_by.get(i)
            if replacements:
                # every replacement it names ("Use create_index() with config=FTS()": both),
                # best-ranked first, takes a place at least as high; then the deprecated one
                most = self.config.max_replacements
                ordered = sorted(replacements, key=lambda j: -fused.get(j, 0.0))[:most]
                step = fused[i] * 0.001
                for k, j in enumerate(ordered):
                    fused[j] = max(fused.get(j, 0.0), fused[i] - k * step)
                fused[i] = min(fused[i], min(fused[j] for j in ordered) - step)
            else:
                fused[i] *= self.config.deprecated_weight
        # after the replacements are lifted: a replacement keeps its place even when what
        # it replaces is a second copy or off the path (and is judged by its own standing)
        for i in self._secondary.intersection(fused):
            fused[i] *= self.config.secondary_weight
        return fused

    def _hits(
        self, fused: dict[int, float], positions: Mapping[str, Mapping[int, int]], limit: int
    ) -> list[ApiHit]:
        top = max(fused.values()) or 1.0
        active = ["lexical"]
        if self.section_search is not None and self.docs_sources:
            active.append("sections")
        if self.semantic:
            active.append("semantic")
        best = self._distinct(fused, max(1, min(limit, 50)))
        hits = []
        for i, score in best:
            lib, e = self.entries[i]
            if i not in self._details:
                self._details[i] = api_details(e)
            signals = {name: positions.get(name, {}).get(i) for name in active}
            # by the path users import them by, as the result's own import_path (a tour read
            # `also as: httpx._client.AsyncClient.get` beside `httpx.Client.get`)
            variants = [
                import_path(t.api_id, t.aliases, t.bound_names)
                for t in (self.entries[j][1] for j in self._twins.get(i, ()))
            ]
            hits.append(ApiHit(e, lib, fused[i] / top, score / top, signals, self._details[i], variants))
        return hits

    def _distinct(self, fused: dict[int, float], limit: int) -> list[tuple[int, float]]:
        """The best ``limit`` positions by fused score, where an API whose twin is already
        listed counts at ``twin_weight`` of its score (once per listed twin): the next
        distinct answer comes before a second edition of the first (:mod:`.twins`).
        (position, the score it is listed with), best first."""

        def key(i: int, score: float) -> tuple[float, float, str]:
            return (-score, -self.entries[i][1].importance_score, self.entries[i][1].api_id)

        heap = [(*key(i, s), 0, i) for i, s in fused.items()]
        heapq.heapify(heap)
        listed: dict[int, int] = {}  # position → how many of its twins are listed
        out: list[tuple[int, float]] = []
        while heap and len(out) < limit:
            score, *_, seen, i = heapq.heappop(heap)
            now = listed.get(i, 0)
            if now != seen:  # a twin got listed since: its score went down
                heapq.heappush(heap, (*key(i, fused[i] * self.config.twin_weight**now), now, i))
                continue
            out.append((i, -score))
            for j in self._twins.get(i, ()):
                listed[j] = listed.get(j, 0) + 1
        return out

    def named(self, name: str, library: str | None = None) -> frozenset[str]:
        """The api_ids of ``library``'s APIs (any library's when None) that ``name`` names:
        an id, a public path, or a short name — the API's own or an alias's
        (``wait_full_jitter`` for ``wait.wait_random_exponential`` exported under both); a
        qualified name no API has, by the paths it ends (``MsgpackConverter.dumps``), else by
        its last part (``table.upsert``: a receiver); not a path from the library's own package
        no API has (``httpx.Clinet.get``: a typo, not a receiver)."""
        if library not in self._api_names:
            names: dict[str, set[str]] = {}
            for lib, e in self.entries:
                if library is None or lib == library:
                    for n in (e.api_id, *e.aliases, e.name, *(a.rpartition(".")[2] for a in e.aliases)):
                        names.setdefault(n, set()).add(e.api_id)
            self._api_names[library] = {n: frozenset(ids) for n, ids in names.items()}
            self._packages[library] = frozenset(
                e.api_id.partition(".")[0] for lib, e in self.entries if library is None or lib == library
            )
            self._paths.update((e.api_id, tuple(e.aliases)) for _, e in self.entries)
        names_of = self._api_names[library]
        found = names_of.get(name)
        if found:
            return found
        short = names_of.get(name.rpartition(".")[2], frozenset())
        if "." in name and short:
            tail = "." + name
            ends = frozenset(
                api_id
                for api_id in short
                if any(p.endswith(tail) for p in (api_id, *self._paths.get(api_id, ())))
            )
            if not ends and name.partition(".")[0] in self._packages[library]:
                return frozenset()  # a path of the package nothing has: no stand-in by its last part
            return ends or short
        return short

    def close_names(self, name: str, library: str | None = None) -> list[str]:
        """Public paths of ``library`` spelled like ``name`` (a typo's "did you mean"), best first."""
        import difflib

        self.named(name, library)  # builds the names
        paths = [
            n
            for n in self._api_names[library]
            if "." in n and not any(p.startswith("_") for p in n.split("."))
        ]
        return difflib.get_close_matches(name, paths, n=2, cutoff=0.85)

    def unknown_apis(self, apis: Iterable[str], library: str | None = None) -> list[str]:
        """Those of ``apis`` (ids, public paths or short names) that name no API of ``library``
        (of any library when None), nor an example by its id."""
        return [
            a for a in apis if a.strip() and not self.named(a, library) and not self.is_example_id(a, library)
        ]

    def examples_named(self, ids: Iterable[str], library: str | None = None) -> list[tuple[str, Example]]:
        """The examples of ``library`` (any when None) ``ids`` name by their example id (as
        find_api lists them, or ``library:id``), in the order given."""
        out: list[tuple[str, Example]] = []
        for wanted in ids:
            for _key, (lib, ex) in self._examples_by_id().get(wanted.strip(), ()):
                if (library is None or lib == library) and (lib, ex) not in out:
                    out.append((lib, ex))
        return out

    def is_example_id(self, name: str, library: str | None = None) -> bool:
        """Whether ``name`` is an example's id (of ``library``, or of any when None)."""
        return any(
            library is None or lib == library
            for _, (lib, _ex) in self._examples_by_id().get(name.strip(), ())
        )

    def _examples_by_id(self) -> dict[str, list[tuple[str, tuple[str, Example]]]]:
        """Each example under its id and under ``library:id``, built once."""
        if self._by_example_id is None:
            by: dict[str, list[tuple[str, tuple[str, Example]]]] = {}
            for key, (lib, ex) in self.examples.items():
                by.setdefault(ex.example_id, []).append((key, (lib, ex)))
                by.setdefault(key, []).append((key, (lib, ex)))
            self._by_example_id = by
        return self._by_example_id

    def examples_for(
        self,
        task: str,
        *,
        apis: Iterable[str] = (),
        complexity: str = "any",
        library: str | None = None,
        limit: int = 3,
    ) -> list[tuple[str, Example, float]]:
        """Examples for a task (:func:`.example_ranking.examples_for`)."""
        return examples_for(self, task, apis=apis, complexity=complexity, library=library, limit=limit)
