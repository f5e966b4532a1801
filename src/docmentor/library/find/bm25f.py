"""The lexical index of find_api: BM25F over weighted fields of a fixed set of documents,
one field per library (:mod:`docmentor.library.find.retrieval`)."""

from __future__ import annotations

from collections import ChainMap, Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from docmentor.library.find.config import DEFAULT

if TYPE_CHECKING:
    import numpy as np


class BM25Field:
    """BM25F over one or more weighted fields of a fixed set of documents (APIs or examples).

    As Robertson, Zaragoza and Taylor's "Simple BM25 extension to multiple weighted fields"
    (CIKM 2004), with each field's own length normalisation as in Zaragoza et al.'s TREC 2004
    BM25F: a term's frequency in each field is normalised by that field's length, the
    fields' frequencies are added with their weights, and the sum is saturated once (``k1``)
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

    __slots__ = (
        "_docs",
        "_lengths",
        "_terms",
        "_tfs",
        "b",
        "count",
        "k1",
        "postings",
        "vocabulary",
        "weights",
    )

    def __init__(
        self,
        weights: Mapping[str, float] | None = None,
        *,
        k1: float = DEFAULT.bm25_k1,
        b: float = DEFAULT.bm25_b,
    ) -> None:
        """``k1`` and ``b``: BM25's saturation and length normalisation (``ApiRankingConfig``)."""
        self.weights = dict(weights or {"text": 1.0})
        self.k1, self.b = k1, b
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
        k1, b = self.k1, self.b
        keys, values = [], []
        for name, weight in self.weights.items():
            lengths = numpy.asarray(self._lengths[name], dtype=numpy.float64)
            avg = max(float(lengths.mean()) if lengths.size else 1.0, 1e-9)
            in_field = numpy.asarray(self._docs[name], dtype=numpy.int64)
            counts = numpy.asarray(self._tfs[name], dtype=numpy.float64)
            keys.append(numpy.asarray(self._terms[name], dtype=numpy.int64) * n + in_field)
            values.append(weight * counts / (1 - b + b * lengths[in_field] / avg))
        # a (term, document) pair once, its fields' normalised frequencies added; sorted by
        # term (ids follow the vocabulary's insertion order), then document
        pairs, where = numpy.unique(numpy.concatenate(keys), return_inverse=True)
        tf = numpy.bincount(where, weights=numpy.concatenate(values), minlength=pairs.size)
        terms, owners = numpy.divmod(pairs, n)
        df = numpy.bincount(terms, minlength=len(self.vocabulary)).astype(numpy.float64)
        idf = numpy.log(1 + (self.count - df + 0.5) / (df + 0.5))
        weights = idf[terms] * tf * (k1 + 1) / (tf + k1)
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


class ShardedBM25:
    """A :class:`BM25Field` per library over a shared numbering: each library's idf and field
    lengths are its own, so a query scoped to one library ranks as an index of that library
    alone would, whatever else is registered (and adds only that library's postings)."""

    __slots__ = ("b", "k1", "pooled", "shards", "weights")

    def __init__(
        self,
        weights: Mapping[str, float] | None = None,
        *,
        pooled: bool = False,
        k1: float = DEFAULT.bm25_k1,
        b: float = DEFAULT.bm25_b,
    ) -> None:
        self.weights = dict(weights) if weights else None
        self.k1, self.b = k1, b
        self.shards: list[tuple[str, int, BM25Field]] = []  # (library, its first document's number, field)
        #: with ``pooled``, also one field over every library's documents (one idf): scores
        #: that compare libraries with each other
        self.pooled = BM25Field(self.weights, k1=k1, b=b) if pooled else None

    def start(self, library: str, offset: int) -> None:
        """The next documents are ``library``'s, the first numbered ``offset``."""
        self.shards.append((library, offset, BM25Field(self.weights, k1=self.k1, b=self.b)))

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
        """:meth:`BM25Field.add_scores` for each library's field (only ``library``'s when given),
        or with ``pooled`` (and a pooled field) for the one over all libraries."""
        if pooled and self.pooled is not None:
            self.pooled.add_scores(terms, out, weight)
            return
        for lib, offset, f in self.shards:
            if library is None or lib == library:
                f.add_scores(terms, out[offset : offset + f.count], weight)  # a view: adds to ``out``
