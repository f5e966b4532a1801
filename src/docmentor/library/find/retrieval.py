"""Finding APIs and examples for a task, in memory.

``find_api`` fuses up to three rankings of the library's APIs by reciprocal rank fusion,
as the plan's hybrid retrieval, each contribution weighted by its score relative to the best
of its ranking (``Σ score / (40 + rank)``, each ranking cut at its best 50), so a weak match
far down one ranking adds little.

``lexical``
    BM25F with the engine's analyzer over each API's names (short name, aliases and id,
    split into parts), its signature and its docstring as three weighted fields of one
    document (a word counts once however many of them hold it: :class:`_Field`), plus the
    best-matching of the documentation examples that use it (each example one BM25
    document: its title, headings, prose and code). An API matches a task when one of its
    examples does; a single document of all its examples would let an API used in ten
    places lose on length to one used once. The two scores are added with weights,
    normalised per query and re-ranked with the API's importance (``0.85 · relevance +
    0.15 · importance``). A
    task's word that no API name holds also asks for its WordNet synonyms that API names
    do hold (:mod:`docmentor.library.find.synonyms`: "fetch" → ``get``); the section search
    below is asked them too.
``sections``
    The engine's own section search over the library's indexed docs; every found section
    credits the APIs it names (:mod:`docmentor.library.knowledge.mentions`): best ``section
    score × weight`` per API. A task phrased like the docs' prose ("stream the response
    line by line") finds the section that explains it, and so its API.
``semantic``
    Cosine similarity between the task and each API's embedding (all-MiniLM-L6-v2,
    :mod:`docmentor.embeddings`) of its public path, name words, kind, summary and the
    headings and prose of its first examples. Only when the knowledge base carries vectors
    of the same model (``readme-llm generate`` writes them unless ``--no-embeddings``).

After fusion some APIs weigh less, so that on a near-tie the one a user calls comes
first: data (attributes, read-only properties) and modules (:data:`ATTRIBUTE_WEIGHT`), deprecated APIs
(after what replaces them), second copies and APIs off the user's path (:mod:`.priors`),
and the second edition of a sync/async pair already listed (:mod:`.twins`).

The fused score, normalised by the best, is the reported ``relevance``; each result
shows its rank in every ranking (``signals``). The index is small (a few thousand APIs),
so it is rebuilt per process from the knowledge base and cached by generation.
"""

from __future__ import annotations

import heapq
import re
import threading
from collections import ChainMap, Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from docmentor.embeddings import EmbeddingUnavailable
from docmentor.library.find.import_paths import import_path
from docmentor.library.find.priors import secondary
from docmentor.library.find.synonyms import SYNONYM_WEIGHT, synonyms, verb_synonyms
from docmentor.library.find.twins import TWIN_WEIGHT, editions
from docmentor.library.knowledge.mentions import MentionResolver, SectionRef
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.docstrings import MARKUP, display, field_text, plain, readable_summary
from docmentor.search.analyzer import STOPWORDS, analyze, analyze_query

if TYPE_CHECKING:
    import numpy as np

    from docmentor.embeddings import Embedder, LibraryVectors

# BM25F field weights of an API's text (they scale term frequencies before the one saturation),
# and the weight of its best example's BM25 score, added after: not on the fields' scale. Set
# when the text's three BM25 scores were added (together up to 4 × a field's); kept with BM25F
# as measured (examples at 1.0 or 0.75 cost lancedb 0.05 MRR and httpx up to 0.03)
FIELD_WEIGHTS = {"name": 2.0, "signature": 0.5, "doc": 1.5, "examples": 1.5}
MAX_LINKED_EXAMPLES = 10  # an API's examples that count for its "examples" score (its first ones)
HEADING_WEIGHT = 1.0  # get_examples: a match in an example's title or headings, on top of its text
IMPLIED_WEIGHT = 1.0  # get_examples: an example of an API find_api ranks for the task (× its relevance)
IMPORTANCE_SHARE = 0.15
K1, B = 1.2, 0.75
# 60 (the usual) until six task sets: 40 gained httpx and Flask a task each and jinja2 0.02
# MRR, lost none; 20 and 30 cost pydantic (BENCHMARKS.md, "The day session")
RRF_K = 40
DEPTH = 50  # each ranking contributes its best 50
SECTIONS = 20  # documentation sections asked of the engine per library
SEMANTIC_FLOOR = 0.25  # cosine below which an API is not similar at all (nonsense scores < 0.2)
# ... and when no word of the task is in the library nor an English word the model knows:
# such nonsense came within 0.35 ("asdf" of `ASGITransport` in httpx, 0.41 of a one-line
# `ASGITransport` alone)
WORDLESS_FLOOR = 0.50
# the cosine of a library's closest API description below which none is near the task
# (find_api then warns that the library may not do it): of 125 labelled tasks over six
# libraries, 2 came below it (marshmallow's); of the same tasks asked of the five other
# libraries, 296 of 625 — some of those rightly close (a jinja2 task of Flask's templates)
WEAK_MATCH = 0.30
PASSAGE_WEIGHT = 0.9  # a docstring passage is weaker evidence than the API's own description
MAX_PASSAGES = 8  # per API
DEPRECATED_WEIGHT = 0.8  # a deprecated API whose reason names no replacement we know
# an API of a mirror namespace (pydantic.v1), or one neither the root package nor the docs
# lead to (:mod:`.priors`), weighs as a deprecated one: once, whichever of these it is
SECONDARY_WEIGHT = DEPRECATED_WEIGHT
# data: an attribute (a class variable, an enum member, a module constant, a field) or a
# read-only property (`URL.password`): a task asks what to call or make far more often than
# which value to read, so on a near-tie the callable comes first. A property with a setter
# is a setting one changes to act (`Client.event_hooks`): not weighed. A module weighs the
# same: a place to import from, not what a task calls (`jinja2.environment`, whose docstring
# names templates and compiling, came 2nd for "persist compiled templates in a directory")
ATTRIBUTE_WEIGHT = 0.7
MAX_REPLACEMENTS = 3  # of those its reason names, lifted above a deprecated API
# several libraries, a query naming none: a library's scores × (its strength / the best
# library's) ** this; cosines of related texts differ by little (0.45 against 0.6)
LIBRARY_WEIGHT = 4.0
CLOSEST = 5  # texts whose mean cosine says how close a library comes to a task
# "write my own class that a client hands each request to", "define my own parameter type":
# a task to implement is answered by what the library's own implementations subclass
# (BaseTransport, ParamType, BaseLoader, Extension) and the members they override
# (handle_request, convert). "its own credentials", "their own templates" ask for no such
# thing. Of the six task sets' 115 tasks, five say "my own": each such an answer
EXTENSION_WEIGHT = 1.3
MIN_SUBCLASSES = 2
# "my own", "subclass it", "by subclassing"; not "is a subclass of" (a question about types)
_OWN_INTENT = re.compile(r"\bmy own\b|\bsubclass(?:ing|es)?\b(?! of\b)", re.I)
_FOREIGN_BASE_MODULES = frozenset(
    {"typing", "typing_extensions", "t", "abc", "enum", "collections", "builtins"}
)
_FOREIGN_BASE_NAMES = frozenset(
    {"object", "Protocol", "Generic", "TypedDict", "NamedTuple", "ABC", "Enum", "IntEnum", "StrEnum",
     "Flag", "IntFlag", "Exception", "BaseException"}
)  # fmt: skip
# names a deprecation reason may point at: "use name" first, then `code`, :role:`target`, call()
_USE_NAME = re.compile(r"\b(?:[Uu]se|[Cc]all|[Ss]ee)\s+(?::\w+:)?[`'\"]*~?([A-Za-z_][\w.]*)")
_REASON_NAMES = re.compile(r"`(?::\w+:`)?~?([A-Za-z_][\w.]*)|([A-Za-z_][\w.]*)\(")
_PASSAGE_SPLIT = re.compile(r"\n\s*\n|\n\s*[*-]\s+")
_BULLET = re.compile(r"^[*-]\s+")
_WORDS = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])")
_NAMED_ITEM = re.compile(r"^[*`]*(\w+)[*`]*\s*[-–—:]")  # "**auth** - …", "`auth`: …"
_LONE_LINK = re.compile(r"^\[[^\]]*\]\([^)]*\)\s*$")  # like markup, not a passage

#: (query, docs source) → the engine's ranked sections of that source
SectionSearch = Callable[[str, str], Sequence[SectionRef]]


def passage_texts(entry: ApiEntry) -> list[str]:
    """Docstring passages embedded besides the API's description: paragraphs and bullet
    items of 25 characters or more (the first six), then parameter descriptions; each
    prefixed with the API's public path. A task often matches one passage ("a custom HTTP
    verb" ~ "method: HTTP method for the new Request") better than the whole API."""
    if entry.kind == "module":
        return []
    public = entry.aliases[0] if entry.aliases else entry.api_id
    pieces = (_BULLET.sub("", c.strip()) for c in _PASSAGE_SPLIT.split(entry.docstring or ""))
    chunks = [c for c in pieces if len(c) >= 25 and not MARKUP.match(c) and not _LONE_LINK.match(c)][:6]
    # a parameter with a chunk of its own already (a Markdown list item "**auth** - …") once
    own = {m.group(1) for c in chunks if (m := _NAMED_ITEM.match(c))}
    chunks += [
        f"{p.name}: {p.description}" for p in entry.parameters if p.description.strip() and p.name not in own
    ]
    return [f"{public}: {' '.join(plain(c).split())}"[:500] for c in chunks[:MAX_PASSAGES]]


class _Field:
    """BM25F over one or more weighted fields of a fixed set of documents (APIs or examples).

    As Robertson, Zaragoza and Taylor's "Simple BM25 extension to multiple weighted fields"
    (CIKM 2004), with each field's own length normalisation as in Zaragoza et al.'s TREC 2004
    BM25F: a term's frequency in each field is normalised by that field's length, the
    fields' frequencies are added with their weights, and the sum is saturated once (``K1``)
    and multiplied by the term's idf over the documents. A word found in an API's name, its
    signature and its docstring therefore counts as one strong match, not three: summed
    per-field scores let an API whose name happens to hold two of a task's words
    (``Option.value_from_envvar`` for "restrict an option's value to …") outrank the one
    whose docstring speaks of the task (``Choice``: "a fixed set of supported values").
    One field of weight 1 is plain BM25.

    Built with :meth:`add`, then :meth:`freeze` turns each term's postings into two arrays:
    document numbers and their weights, so a query adds a few arrays instead of looping over
    postings in Python.
    """

    __slots__ = ("_docs", "_lengths", "_terms", "_tfs", "count", "postings", "vocabulary", "weights")

    def __init__(self, weights: Mapping[str, float] | None = None) -> None:
        self.weights = dict(weights or {"text": 1.0})
        self.vocabulary: dict[str, int] = {}
        self._terms: dict[str, list[int]] = {f: [] for f in self.weights}
        self._docs: dict[str, list[int]] = {f: [] for f in self.weights}
        self._tfs: dict[str, list[int]] = {f: [] for f in self.weights}
        self._lengths: dict[str, list[int]] = {f: [] for f in self.weights}
        self.count = 0  # documents added
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def add(self, fields: list[str] | Mapping[str, list[str]]) -> None:
        """One document: its terms (a field of one), or each field's terms (a field left out
        is empty)."""
        if self.postings or not self._lengths:
            raise RuntimeError("a frozen field takes no more documents")
        if isinstance(fields, list):
            if len(self.weights) != 1:
                raise ValueError(f"name the fields: {', '.join(self.weights)}")
            by_field: Mapping[str, list[str]] = {next(iter(self.weights)): fields}
        else:
            unknown = set(fields) - set(self.weights)
            if unknown:
                raise ValueError(f"unknown fields {sorted(unknown)}; known: {', '.join(self.weights)}")
            by_field = fields
        i = self.count
        for name in self.weights:
            terms = by_field.get(name, [])
            for term, tf in Counter(terms).items():
                self._terms[name].append(self.vocabulary.setdefault(term, len(self.vocabulary)))
                self._docs[name].append(i)
                self._tfs[name].append(tf)
            self._lengths[name].append(len(terms))
        self.count += 1

    def freeze(self) -> None:
        """Build the postings (once: a frozen field stays as it is)."""
        import numpy

        if not self._lengths:
            return
        n = max(self.count, 1)
        keys, values = [], []
        for name, weight in self.weights.items():
            lengths = numpy.asarray(self._lengths[name], dtype=numpy.float64)
            avg = max(float(lengths.mean()) if lengths.size else 1.0, 1e-9)
            in_field = numpy.asarray(self._docs[name], dtype=numpy.int64)
            counts = numpy.asarray(self._tfs[name], dtype=numpy.float64)
            keys.append(numpy.asarray(self._terms[name], dtype=numpy.int64) * n + in_field)
            values.append(weight * counts / (1 - B + B * lengths[in_field] / avg))
        # a (term, document) pair once, its fields' normalised frequencies added; sorted by
        # term (ids follow the vocabulary's insertion order), then document
        pairs, where = numpy.unique(numpy.concatenate(keys), return_inverse=True)
        tf = numpy.bincount(where, weights=numpy.concatenate(values), minlength=pairs.size)
        terms, owners = numpy.divmod(pairs, n)
        df = numpy.bincount(terms, minlength=len(self.vocabulary)).astype(numpy.float64)
        idf = numpy.log(1 + (self.count - df + 0.5) / (df + 0.5))
        weights = idf[terms] * tf * (K1 + 1) / (tf + K1)
        docs = owners.astype(numpy.intp)
        ends = numpy.cumsum(df.astype(numpy.intp)).tolist()
        start = 0
        for term, end in zip(self.vocabulary, ends, strict=True):
            self.postings[term] = (docs[start:end], weights[start:end])
            start = end
        # the lists are done with; an empty _lengths marks the field frozen
        self._terms, self._docs, self._tfs, self._lengths = {}, {}, {}, {}

    def add_scores(self, terms: Sequence[tuple[str, float]], out: np.ndarray, weight: float) -> None:
        """``out[doc] += weight × term weight × BM25F`` for every query term the field holds."""
        for term, w in terms:
            posting = self.postings.get(term)
            if posting is not None:
                out[posting[0]] += (weight * w) * posting[1]  # a term's documents are distinct


class _Sharded:
    """A :class:`_Field` per library over a shared numbering: each library's idf and field
    lengths are its own, so a query scoped to one library ranks as an index of that library
    alone would, whatever else is registered (and adds only that library's postings)."""

    __slots__ = ("pooled", "shards", "weights")

    def __init__(self, weights: Mapping[str, float] | None = None, *, pooled: bool = False) -> None:
        self.weights = dict(weights) if weights else None
        self.shards: list[tuple[str, int, _Field]] = []  # (library, its first document's number, field)
        #: with ``pooled``, also one field over every library's documents (one idf): scores
        #: that compare libraries with each other
        self.pooled = _Field(self.weights) if pooled else None

    def start(self, library: str, offset: int) -> None:
        """The next documents are ``library``'s, the first numbered ``offset``."""
        self.shards.append((library, offset, _Field(self.weights)))

    def add(self, fields: list[str] | Mapping[str, list[str]]) -> None:
        self.shards[-1][2].add(fields)
        if self.pooled is not None:
            self.pooled.add(fields)

    def freeze(self) -> None:
        for _, _, f in self.shards:
            f.freeze()
        if self.pooled is not None:
            self.pooled.freeze()

    @property
    def postings(self) -> Mapping[str, tuple[np.ndarray, np.ndarray]]:
        """Every library's postings (a term: the first library's that has it)."""
        return ChainMap(*(f.postings for _, _, f in self.shards))

    def add_scores(
        self,
        terms: Sequence[tuple[str, float]],
        out: np.ndarray,
        weight: float,
        library: str | None = None,
        *,
        pooled: bool = False,
    ) -> None:
        """:meth:`_Field.add_scores` for each library's field (only ``library``'s when given),
        or with ``pooled`` (and a pooled field) for the one over all libraries."""
        if pooled and self.pooled is not None:
            self.pooled.add_scores(terms, out, weight)
            return
        for lib, offset, f in self.shards:
            if library is None or lib == library:
                f.add_scores(terms, out[offset : offset + f.count], weight)  # a view: adds to ``out``


@dataclass(slots=True)
class ApiHit:
    entry: ApiEntry
    library: str
    relevance: float  # in [0, 1], normalised per query
    score: float  # the ranking key
    signals: dict[str, int | None] = field(default_factory=dict)  # rank in each ranking (1-based)
    details: dict[str, Any] | None = None  # the entry's parameters and returns, dumped once per index
    variants: list[str] = field(default_factory=list)  # its sync/async editions (:mod:`.twins`)

    def to_dict(self, rank: int) -> dict[str, Any]:
        e = self.entry
        details = self.details if self.details is not None else _details(e)
        return {
            "rank": rank,
            "api_id": e.api_id,
            "library": self.library,
            "signature": e.signature,
            "description": details["description"],
            "relevance": round(self.relevance, 4),
            "importance": round(e.importance_score, 4),
            "score": round(self.score, 4),
            "signals": dict(self.signals),
            "aliases": list(e.aliases),
            "import_path": import_path(e.api_id, e.aliases),
            "variants": list(self.variants),
            "kind": e.kind,
            "parameters": [dict(p) for p in details["parameters"]],
            "returns": dict(details["returns"]) if details["returns"] else None,
            "examples": list(e.examples[:3]),
            "deprecated": details["deprecated"],
        }


def _details(e: ApiEntry) -> dict[str, Any]:
    """What an answer shows of an API beyond its names, the texts as a reader sees them
    (worked out once per API: an index keeps them)."""
    returns = e.returns.model_dump() if e.returns else None
    if returns is not None:
        returns["description"] = field_text(returns["description"])
    return {
        "description": readable_summary(e.description),
        "deprecated": display(e.deprecated) if e.deprecated else None,
        "parameters": [{**p.model_dump(), "description": field_text(p.description)} for p in e.parameters],
        "returns": returns,
    }


def _name_terms(e: ApiEntry) -> list[str]:
    names = [e.name, e.api_id, *e.aliases]
    words = " ".join(" ".join(_WORDS.findall(n)) for n in names)
    return analyze(" ".join(names) + " " + words)


def name_words(name: str) -> str:
    """``iter_lines`` → ``iter lines``; ``HTTPTransport`` → ``http transport``."""
    return " ".join(_WORDS.findall(name)).lower()


def embedding_text(entry: ApiEntry, examples: Mapping[str, Example]) -> str:
    """What an API's vector is computed from: public path, name words, kind, summary, and
    the headings and opening prose of the docs' examples that use it."""
    public = entry.aliases[0] if entry.aliases else entry.api_id
    headings: list[str] = []
    for x in entry.examples[:5]:
        ex = examples.get(x)
        if ex is None:
            continue
        heading = (ex.heading_path or [ex.title])[-1]
        if heading and heading not in headings:
            headings.append(heading)
    first = next((examples[x] for x in entry.examples[:1] if x in examples), None)
    context = first.context[:200] if first is not None else ""
    text = f"{public} ({name_words(entry.name)}) {entry.kind}. {plain(entry.description)} "
    return (text + "; ".join(headings[:3]) + " " + context).strip()[:800]


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _worker() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="docmentor-embed")
        return _pool


Ranking = list[tuple[int, float]]  # (entry position, score in [0, 1] relative to the best), best first


def _fuse(rankings: Mapping[str, Ranking]) -> dict[int, float]:
    fused: dict[int, float] = {}
    for ranking in rankings.values():
        for rank, (i, score) in enumerate(ranking[:DEPTH]):
            fused[i] = fused.get(i, 0.0) + score / (RRF_K + rank + 1)
    return fused


def _ranked(positions: np.ndarray, scores: np.ndarray, tiebreak: np.ndarray, limit: int) -> Ranking:
    """The best ``limit`` entries, best first, scores divided by the best; ties go to the more
    important API, then by id (``tiebreak``: each entry's place among all in that order)."""
    import numpy

    if not positions.size:
        return []
    order = numpy.lexsort((tiebreak[positions], -scores))[:limit]
    top = float(scores[order[0]]) or 1.0
    return list(zip(positions[order].tolist(), (scores[order] / top).tolist(), strict=True))


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
    ) -> None:
        """
        Args:
            libraries: library → (API entries, examples).
            vectors: library → its API embeddings (libraries without them rank without).
            docs_sources: library → the indexed source of its docs, for ``section_search``.
            section_search: the engine's section search (None: no ``sections`` ranking).
            embedder: gives the query embedder (None: no ``semantic`` ranking).
        """
        self.entries: list[tuple[str, ApiEntry]] = []
        self.examples: dict[str, tuple[str, Example]] = {}
        # an API's name, signature and docstring: one BM25F document
        several = len(libraries) > 1
        self.text = _Sharded(
            {name: w for name, w in FIELD_WEIGHTS.items() if name != "examples"}, pooled=several
        )
        # one BM25 document per example; an API's "examples" score is its best example's
        self.example_field = _Sharded(pooled=several)
        self.example_heads = _Sharded()  # an example's title and headings alone (get_examples)
        self._example_apis: list[list[int]] = []  # example position → the entries it is linked to
        self._example_position: dict[str, int] = {}  # "library:example_id" → its position
        self._position: dict[tuple[str, str], int] = {}
        self._resolvers: dict[str, MentionResolver] = {}
        self._names: dict[str, frozenset[str]] = {}
        for library, (entries, examples) in sorted(libraries.items()):
            example_at: dict[str, int] = {}
            self.example_field.start(library, len(self._example_apis))
            self.example_heads.start(library, len(self._example_apis))
            self.text.start(library, len(self.entries))
            for ex in examples:
                self.examples[f"{library}:{ex.example_id}"] = (library, ex)
                self._example_position[f"{library}:{ex.example_id}"] = len(self._example_apis)
                example_at[ex.example_id] = len(self._example_apis)
                self._example_apis.append([])
                self.example_field.add(
                    analyze(f"{ex.title} {' '.join(ex.heading_path)} {ex.context} {ex.code[:2000]}")
                )
                self.example_heads.add(analyze(f"{ex.title} {' '.join(ex.heading_path)}"))
            names: set[str] = set()
            for e in entries:
                i = len(self.entries)
                self._position[(library, e.api_id)] = i
                self.entries.append((library, e))
                name_terms = _name_terms(e)
                names.update(name_terms)
                self.text.add(
                    {
                        "name": name_terms,
                        "signature": analyze(e.signature),
                        "doc": analyze(plain(e.docstring or e.description)),
                    }
                )
                for x in dict.fromkeys(e.examples[:MAX_LINKED_EXAMPLES]):
                    if x in example_at:
                        self._example_apis[example_at[x]].append(i)
            self._resolvers[library] = MentionResolver(entries, examples)
            self._names[library] = frozenset(names)  # what its API names say (synonyms)
        import numpy

        self._all_names = frozenset().union(*self._names.values())
        for f in (self.text, self.example_field, self.example_heads):
            f.freeze()
        # the language of each library's API (the examples in it come first in get_examples)
        self._api_language = {
            lib: Counter(e.language for lb, e in self.entries if lb == lib).most_common(1)[0][0]
            for lib in {lb for lb, _ in self.entries}
        }
        pairs = [(i, x) for x, apis in enumerate(self._example_apis) for i in apis]
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
                found = self._replacements(library, e)
                if found:
                    self._replaced_by[i] = found
        self._details: dict[int, dict[str, Any]] = {}  # entry position → _details(entry), on first use
        self._api_names: dict[str | None, frozenset[str]] = {}  # library → its API names (unknown_apis)
        self.docs_sources = dict(docs_sources or {})
        self.section_search = section_search
        self.embedder = embedder
        self.semantic_error: str | None = None
        self.vectors: dict[str, tuple[LibraryVectors, np.ndarray]] = {}  # row → entry position (-1: none)
        verb_synonyms()  # loaded with the index, not by the first query (~5 ms)
        second = {lib: secondary(entries, lib) for lib, (entries, _) in libraries.items()}
        self._secondary = {
            i for i, (lib, e) in enumerate(self.entries) if e.language == "python" and e.api_id in second[lib]
        }
        self._attributes = {
            i
            for i, (_, e) in enumerate(self.entries)
            if e.kind in ("attribute", "module") or (e.kind == "property" and e.writable is False)
        }
        # extension points: classes the library subclasses itself (MIN_SUBCLASSES times or
        # more), and their members a subclass overrides (:data:`EXTENSION_WEIGHT`)
        self._extension = self._extension_points()
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

    def deprecated_in(self, library: str, ex: Example) -> dict[str, str]:
        """The deprecated APIs an example uses: api_id → the library's reason."""
        out = {}
        for api in ex.apis_used:
            i = self._position.get((library, api))
            reason = self.entries[i][1].deprecated if i is not None else None
            if reason:
                out[api] = reason
        return out

    def _replacements(self, library: str, e: ApiEntry) -> list[int]:
        """Positions of the current APIs a deprecation reason names (``Use create_index()
        with config=FTS()`` → ``Table.create_index``, ``FTS``), siblings of the class first."""
        resolver = self._resolvers[library]
        context = [e.parent] if e.parent else []
        reason = e.deprecated or ""
        names = [m.group(1) for m in _USE_NAME.finditer(reason)]
        names += [next(g for g in m.groups() if g) for m in _REASON_NAMES.finditer(reason)]
        out: list[int] = []
        for name in names:
            for api in sorted(resolver.resolve(name, context)):
                i = self._position.get((library, api))
                if i is None or i in out:
                    continue
                other = self.entries[i][1]
                # not itself, nor a same-named copy of it (pydantic.v1's), nor deprecated
                if other.name != e.name and not other.deprecated:
                    out.append(i)
        return out

    @property
    def semantic(self) -> bool:
        """Whether queries are embedded (some library has vectors and an embedder is set)."""
        return bool(self.vectors) and self.embedder is not None

    def _extension_points(self) -> set[int]:
        """Positions of the classes their library subclasses MIN_SUBCLASSES times or more,
        and of the members those subclasses override. A base is the library's class of
        that name; of several so named, the one whose module shares the longest prefix with
        the subclass's, a first-hand copy before a mirror's (pydantic's `BaseModel` and
        `v1.BaseModel`); none when still undecided. `typing`, `abc` and `enum` bases and
        the builtins' names (`Protocol`, `Generic`, `Exception`) are no library's class."""
        by_name: dict[tuple[str, str], list[int]] = {}
        for i, (lib, e) in enumerate(self.entries):
            if e.kind == "class":
                by_name.setdefault((lib, e.name), []).append(i)

        def module(i: int) -> list[str]:
            return self.entries[i][1].api_id.split(".")[:-1]

        def shared(a: list[str], b: list[str]) -> int:
            n = 0
            while n < min(len(a), len(b)) and a[n] == b[n]:
                n += 1
            return n

        subclasses: dict[int, list[int]] = {}
        for i, (lib, e) in enumerate(self.entries):
            if e.kind != "class":
                continue
            for written in e.bases:
                path = written.split("[", 1)[0].strip()
                head, _, name = path.rpartition(".")
                if head.split(".")[0] in _FOREIGN_BASE_MODULES or name in _FOREIGN_BASE_NAMES:
                    continue
                found = [j for j in by_name.get((lib, name), ()) if j != i]
                if len(found) > 1:
                    rank = {j: (shared(module(j), module(i)), j not in self._secondary) for j in found}
                    best = max(rank.values())
                    found = [j for j in found if rank[j] == best]
                if len(found) == 1:
                    subclasses.setdefault(found[0], []).append(i)
        members: dict[tuple[str, str], dict[str, int]] = {}  # (library, class) → member name → position
        for i, (lib, e) in enumerate(self.entries):
            if e.parent:
                members.setdefault((lib, e.parent), {})[e.name] = i
        points: set[int] = set()
        for j, subs in subclasses.items():
            if len(subs) >= MIN_SUBCLASSES:
                points.add(j)
                lib = self.entries[j][0]
                own = members.get((lib, self.entries[j][1].api_id), {})
                for k in subs:
                    for name in members.get((lib, self.entries[k][1].api_id), {}):
                        if name in own:
                            points.add(own[name])
        return points

    # -- the three rankings -------------------------------------------------------------
    def _word_scores(
        self, terms: Sequence[tuple[str, float]], library: str | None, *, pooled: bool = False
    ) -> np.ndarray:
        """Per API: its text's BM25F plus EXAMPLES × its best example's BM25 (each library's
        own fields, or with ``pooled`` the fields over all libraries)."""
        import numpy

        total = numpy.zeros(len(self.entries))
        self.text.add_scores(terms, total, 1.0, library, pooled=pooled)
        if self._link_api.size:
            per_example = numpy.zeros(len(self._example_apis))
            self.example_field.add_scores(terms, per_example, 1.0, library, pooled=pooled)
            best = numpy.zeros(len(self.entries))
            numpy.maximum.at(best, self._link_api, per_example[self._link_example])
            total += FIELD_WEIGHTS["examples"] * best
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
        scored = (1 - IMPORTANCE_SHARE) * relevance + IMPORTANCE_SHARE * self._importance[matched]
        keep = 2 * DEPTH  # the fusion reads the best DEPTH: keep those (and any tied with the last)
        if matched.size > keep:
            cut = numpy.partition(scored, -keep)[-keep]
            chosen = scored >= cut
            matched, scored = matched[chosen], scored[chosen]
        return _ranked(matched, scored, self._tiebreak, len(matched))

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
        return _ranked(positions, values, self._tiebreak, len(credit))

    def _query_vector(self, query: str) -> Any:
        assert self.embedder is not None
        return self.embedder().embed_one(query)

    def _semantic_of(
        self, vector: Any, library: str | None, floor: float = SEMANTIC_FLOOR
    ) -> tuple[Ranking, float, float]:
        """Per API: the best of its description's cosine and PASSAGE_WEIGHT × its best passage's
        (of the best 2·DEPTH descriptions and 4·DEPTH passages at or above SEMANTIC_FLOOR);
        the mean cosine of the CLOSEST texts nearest the task (how well the library matches
        it, whichever its APIs); and the cosine of the API description closest to it (-1: none)."""
        import numpy

        best = numpy.full(len(self.entries), -1.0)
        closest: list[float] = []
        closest_one = -1.0
        for lib, (lv, rows) in self.vectors.items():
            if library is not None and lib != library:
                continue
            values = lv.matrix @ vector
            if lv.primary:
                closest_one = max(closest_one, float(values[: lv.primary].max()))
            if values.size and len(self._library_number) > 1:  # only merging libraries asks
                k = min(CLOSEST, values.size)
                closest = sorted(
                    [*closest, *numpy.partition(values, values.size - k)[values.size - k :].tolist()]
                )[-CLOSEST:]
            for part, weight, depth in (
                (slice(0, lv.primary), 1.0, 2 * DEPTH),
                (slice(lv.primary, len(rows)), PASSAGE_WEIGHT, 4 * DEPTH),
            ):
                sims = values[part] * weight if weight != 1.0 else values[part]
                owner = rows[part]
                if sims.size > depth:
                    top = numpy.argpartition(sims, sims.size - depth)[sims.size - depth :]
                    sims, owner = sims[top], owner[top]
                keep = (owner >= 0) & (sims >= floor)
                numpy.maximum.at(best, owner[keep], sims[keep])
        found = numpy.flatnonzero(best >= floor)
        nearness = float(numpy.mean(closest)) if closest else 0.0
        return _ranked(found, best[found], self._tiebreak, DEPTH), nearness, closest_one

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
        terms += [(t, SYNONYM_WEIGHT) for s in found for t in s.terms]
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
        well its best API matches the task against the best library's (:data:`LIBRARY_WEIGHT`).
        One ranking of all their APIs together would favour a library with documentation
        (one more ranking to score in) whatever the task.

        ``report``, when given, receives ``closeness``: per library with vectors, the cosine
        of its API closest to the task (the service warns when it is below WEAK_MATCH).
        """
        if not self.entries or not query.strip():
            return []
        libraries = [library] if library is not None else sorted(self._library_number)
        queries = {lib: self._expanded(query, lib) for lib in libraries}
        semantic: dict[str, tuple[Ranking, float, float]] = {}
        vector: Any = None
        if self.semantic:
            words = _worker().submit(self._all_word_rankings, queries)
            try:
                vector = self._query_vector(query)
                semantic = {lib: self._semantic_of(vector, lib) for lib in libraries}
            except EmbeddingUnavailable as exc:  # rank without vectors rather than fail
                self.semantic_error = str(exc)
                self.embedder = None
            per_library = words.result()
            if report is not None:  # how close each library's closest API came (the caller's)
                report["closeness"] = {
                    lib: found[2] for lib, found in semantic.items() if lib in self.vectors
                }
        else:
            per_library = self._all_word_rankings(queries)
        scored: dict[str, tuple[dict[int, float], dict[str, Ranking]]] = {}
        own = _OWN_INTENT.search(query) is not None  # "write my own class that …"
        for lib in libraries:
            rankings, _ = per_library[lib]
            rankings["semantic"] = semantic.get(lib, ([], 0.0))[0]
            wordless = rankings["semantic"] and not rankings["lexical"] and not rankings["sections"]
            if wordless and not self._known_words(query):
                # no word of the task is in the library, nor in the model's vocabulary: letters
                # that resemble a name ("asdf" came within 0.35 of `ASGITransport`) are no
                # likeness; a paraphrase in English words ("terminate when finished") is
                rankings["semantic"] = self._semantic_of(vector, lib, WORDLESS_FLOOR)[0]
            lib_fused = self._adjusted(_fuse(rankings))
            if own and self._extension:
                for i in self._extension.intersection(lib_fused):
                    lib_fused[i] *= EXTENSION_WEIGHT
            if lib_fused:
                scored[lib] = (lib_fused, rankings)
        if not scored:
            return []
        # each API's rank in each of its library's rankings (1-based, the best DEPTH)
        positions: dict[str, dict[int, int]] = {}
        for _, lib_rankings in scored.values():
            for name, ranking in lib_rankings.items():
                positions.setdefault(name, {}).update((i, r) for r, (i, _) in enumerate(ranking[:DEPTH], 1))
        fused: dict[int, float] = {}
        if len(scored) == 1:
            fused = next(iter(scored.values()))[0]
        else:
            # how well each library matches the task: the mean cosine of its 5 closest texts
            # (one model: comparable across libraries) and its best word score (one index, one
            # idf), each relative to the best library's, added
            words_best = max(per_library[lib][1] for lib in scored) or 1.0
            by_words = {lib: per_library[lib][1] / words_best for lib in scored}
            close = {lib: semantic[lib][1] for lib in scored if lib in semantic and lib in self.vectors}
            close_best = max(close.values(), default=0.0) or 1.0
            # a library without vectors counts its words twice: the same scale as the others
            strength = {
                lib: by_words[lib] + close.get(lib, close_best * by_words[lib]) / close_best for lib in scored
            }
            best_strength = max(strength.values()) or 1.0
            for lib, (lib_fused, _) in scored.items():
                weight = (strength[lib] / best_strength) ** LIBRARY_WEIGHT
                lib_top = max(lib_fused.values())
                if weight > 0:  # no strength at all: nothing of it is an answer
                    fused.update((i, weight * v / lib_top) for i, v in lib_fused.items())
            if not fused:
                return []
        return self._hits(fused, positions, limit)

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

    def _adjusted(self, fused: dict[int, float]) -> dict[int, float]:
        """The fused scores after the rules that weigh some APIs less (module docstring)."""
        if not fused:
            return fused
        # before the replacements of deprecated APIs are lifted: one that is an attribute
        # (`Mode.OVERWRITE`) keeps the place it is lifted to
        for i in self._attributes.intersection(fused):
            fused[i] *= ATTRIBUTE_WEIGHT
        # A deprecated API is still found, but after what replaces it: of the replacements
        # its reason names, the best-ranked one, takes its place if it ranked lower, and the
        # deprecated one comes right after it.
        for i in sorted((i for i in fused if self.entries[i][1].deprecated), key=lambda i: -fused[i]):
            replacements = self._replaced_by.get(i)
            if replacements:
                # every replacement it names ("Use create_index() with config=FTS()": both),
                # best-ranked first, takes a place at least as high; then the deprecated one
                ordered = sorted(replacements, key=lambda j: -fused.get(j, 0.0))[:MAX_REPLACEMENTS]
                step = fused[i] * 0.001
                for k, j in enumerate(ordered):
                    fused[j] = max(fused.get(j, 0.0), fused[i] - k * step)
                fused[i] = min(fused[i], min(fused[j] for j in ordered) - step)
            else:
                fused[i] *= DEPRECATED_WEIGHT
        # after the replacements are lifted: a replacement keeps its place even when what
        # it replaces is a second copy or off the path (and is judged by its own standing)
        for i in self._secondary.intersection(fused):
            fused[i] *= SECONDARY_WEIGHT
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
                self._details[i] = _details(e)
            signals = {name: positions.get(name, {}).get(i) for name in active}
            variants = [self.entries[j][1].api_id for j in self._twins.get(i, ())]
            hits.append(ApiHit(e, lib, fused[i] / top, score / top, signals, self._details[i], variants))
        return hits

    def _distinct(self, fused: dict[int, float], limit: int) -> list[tuple[int, float]]:
        """The best ``limit`` positions by fused score, where an API whose twin is already
        listed counts at ``TWIN_WEIGHT`` of its score (once per listed twin): the next
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
                heapq.heappush(heap, (*key(i, fused[i] * TWIN_WEIGHT**now), now, i))
                continue
            out.append((i, -score))
            for j in self._twins.get(i, ()):
                listed[j] = listed.get(j, 0) + 1
        return out

    def unknown_apis(self, apis: Iterable[str], library: str | None = None) -> list[str]:
        """Those of ``apis`` (ids, public paths or short names) that name no API of ``library``
        (of any library when None)."""
        apis = [a for a in apis if a]
        if not apis:
            return []
        if library not in self._api_names:
            names: set[str] = set()
            for lib, e in self.entries:
                if library is None or lib == library:
                    names.update((e.api_id, *e.aliases, e.name))
            self._api_names[library] = frozenset(names)
        names_of = self._api_names[library]
        return [a for a in apis if a not in names_of and a.rsplit(".", 1)[-1] not in names_of]

    def examples_for(
        self,
        task: str,
        *,
        apis: Iterable[str] = (),
        complexity: str = "any",
        library: str | None = None,
        limit: int = 3,
    ) -> list[tuple[str, Example, float]]:
        """Examples for a task: those using the named APIs first, then those of the APIs that
        find_api ranks for the task, then by how well their text matches it."""
        import numpy

        wanted = {a for a in apis if a}
        # the task's match with each example: BM25 over its title, headings, prose and code,
        # plus over its title and headings alone ("Add data to a table" says what it does),
        # relative to the best example's
        terms = analyze_query(task)
        match = numpy.zeros(len(self._example_apis))
        self.example_field.add_scores(terms, match, 1.0, library)
        self.example_heads.add_scores(terms, match, HEADING_WEIGHT, library)
        candidates = [
            (key, lib, ex)
            for key, (lib, ex) in self.examples.items()
            if (library is None or lib == library) and (complexity == "any" or ex.complexity == complexity)
        ]
        best = max((match[self._example_position[key]] for key, _, _ in candidates), default=0.0)
        # the APIs that do the task (find_api's best three): their examples are the answer
        implied = (
            {(h.library, h.entry.api_id): h.relevance for h in self.find(task, limit=3, library=library)}
            if task.strip()
            else {}
        )
        scored: list[tuple[float, str, Example]] = []
        for key, lib, ex in candidates:
            # relative to the best of the examples asked about (this library, this complexity)
            overlap = float(match[self._example_position[key]] / best) if best > 0 else 0.0
            uses = len(wanted & set(ex.apis_used)) + sum(
                1 for w in wanted for a in ex.apis_used if a.endswith("." + w.rsplit(".", 1)[-1])
            )
            # an example that failed validation is a last resort: it says how NOT to do it;
            # one that uses a deprecated API comes after those that do the same without
            bonus = (0.3 if ex.validated else -2.5 if ex.validated is False else 0.0) + (
                0.1 if ex.complete else 0.0
            )
            if self.deprecated_in(lib, ex):
                bonus -= 0.5
            if ex.drift:  # calls the installed version does not have or accept
                bonus -= 1.0
            # one that shows the library's own API, in the language it was read from, first
            # (a TypeScript reference snippet is no answer for a Python library)
            if ex.apis_used:
                bonus += 0.2
            if ex.language == self._api_language.get(lib, ex.language):
                bonus += 0.2
            shows = max((implied.get((lib, a), 0.0) for a in ex.apis_used), default=0.0)
            if not (uses or shows or overlap):
                continue  # nothing ties it to the task: its bonuses alone do not make it an answer
            score = 2.0 * min(uses, 3) + IMPLIED_WEIGHT * shows + overlap + bonus
            if score > 0.15:
                scored.append((score, lib, ex))
        scored.sort(key=lambda t: (-t[0], len(t[2].code), t[2].example_id))
        return [(lib, ex, s) for s, lib, ex in scored[: max(1, min(limit, 20))]]
