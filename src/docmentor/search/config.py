"""Every constant of documentation search in one typed, documented object.

:class:`RankingConfig` holds each ranking constant with why it has its value and what it
was measured on. ``make eval`` judges every change on all three dev corpora at once (httpx,
pydantic, tanstack-query: ``benchmarks/eval_suite.py``); no value is chosen per corpus.
Tests pass a config in (``Docmentor(db, ranking=RankingConfig(...))``) instead of
patching module constants.

Two kinds of fields:

* **index shape** (``length_pad``, ``stub_chars``): how sections are written into the
  lexical index. They are part of :meth:`RankingConfig.index_signature`, stored with the
  index; a writer with another signature rebuilds the lexical index.
* **query time**: everything else, read on each search.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

SUITE = "httpx + pydantic + tanstack-query dev sets (make eval)"


def constant(value: Any, why: str, measured: str) -> Any:
    """A ranking config's field: its value, why it has it and the sets it was measured on
    (read back by :func:`describe_constants`; find_api's config uses it too)."""
    return field(default=value, metadata={"why": why, "measured_on": measured})


def describe_constants(cls: type) -> list[dict[str, Any]]:
    """Each field of a config dataclass made with :func:`constant`: name, default value, why,
    what it was measured on."""
    default = cls()
    return [
        {
            "name": f.name,
            "value": getattr(default, f.name),
            "why": f.metadata.get("why", ""),
            "measured_on": f.metadata.get("measured_on", ""),
        }
        for f in dataclasses.fields(cls)
    ]


def _c(value: Any, why: str, measured: str = SUITE) -> Any:
    return constant(value, why, measured)


@dataclass(frozen=True, slots=True)
class RankingConfig:
    """Ranking constants of ``search``, ``assemble`` and ``get_doc_excerpt``."""

    # -- index shape -------------------------------------------------------------------------
    length_pad: int = _c(
        150,
        "Filler terms added to every section's body (and identifier-part) field. tantivy's BM25 "
        "has b = 0.75 and does not expose it; a constant pad P turns it into b_eff = "
        "0.75·avg/(avg+P) (avg = mean section length in terms, 40–110 on the dev corpora, so "
        "b_eff ≈ 0.16–0.32), so a one-word match in a 100-character stub no longer outscores "
        "the same match in a guide section ~3×. 0 (plain b = 0.75) lost on all three sets.",
    )
    stub_chars: int = _c(
        80,
        "A section with fewer characters than this after its heading line and no sentence in "
        "them, right after a section it belongs to (a deeper heading under it), is indexed as "
        "part of that section: generated reference pages' 'Parameters' lists and 'Returns' "
        "types rank with their parent instead of as rivals of whole guide sections. A short "
        "section that says something ('Run pip install x.') stays on its own: merging those "
        "(any section under 160 characters) lost 0.008 doc-MRR on the suite's mean.",
    )

    # -- lexical, query time -----------------------------------------------------------------
    body_boost: float = _c(1.0, "The section's own words: the reference weight.")
    parts_boost: float = _c(
        0.3,
        "Parts of split identifiers in the text (MatchQuery → match, query). At full weight they "
        "made every type-named reference entry match plain question words.",
    )
    title_boost: float = _c(
        0.6,
        "The page title, copied onto each of its sections. At 1.0 a page whose title repeats the "
        "question's words outranks the section of another page that answers it. Doc-MRR (title "
        "and path together) on httpx / pydantic / tanstack-query / backstage's 10 held-out "
        "questions: 0.3 → 0.961 / 0.917 / 0.868 / 0.398; 0.6 → 0.944 / 0.894 / 0.859 / 0.520; "
        "1.0 → 0.944 / 0.889 / 0.840 / 0.557. 0.3 won the dev suite and lost the held-out set "
        "by 0.12: 0.6 is the value no set punishes much.",
        SUITE + " + benchmarks/backstage_search.jsonl",
    )
    heading_boost: float = _c(0.6, "The section's heading path below the title (1.0: −0.013 suite mean).")
    path_boost: float = _c(
        0.6,
        "The file name's words, copied onto each section like the title; measured with it (see title_boost).",
        SUITE + " + benchmarks/backstage_search.jsonl",
    )
    doc_weight: float = _c(
        0.3,
        "Share of the section's score that comes from its whole document's BM25: a section of "
        "the page about the question beats a lucky short section elsewhere.",
        "httpx dev set (issue 2), kept on the suite",
    )
    whole_weight: float = _c(0.8, "Query weight of a compound identifier itself (max_connections).")
    part_weight: float = _c(
        0.6, "Query weight shared by a compound identifier's parts (max, connections), together."
    )
    joined_weight: float = _c(
        0.5, "Query weight of two adjacent words joined ('time out' → timeout) the index does not hold."
    )

    # -- semantic and fusion -----------------------------------------------------------------
    semantic_weight: float = _c(
        0.4,
        "Share of the cosine similarity (MiniLM section embeddings) in the fused score; the "
        "lexical score has the rest. Scores are blended, each scaled by the query's best: plain "
        "reciprocal-rank fusion lost ~0.03 doc-MRR on httpx. With `semantic_flatness`, this "
        "is the share at a middling lexical flatness (0.5); 0 turns the blend off.",
    )
    semantic_flatness: float = _c(
        0.2,
        "How much the cosine's share moves with the query's lexical flatness (the mean score of "
        "the candidates ranked 2nd to `flatness_depth`th by words, each relative to the best): "
        "share = semantic_weight + this × (flatness − 0.5), so 0.3–0.5. When many sections match "
        "the question's words about as well as the best, the words do not tell them apart and "
        "meaning decides more; one section far ahead on words (a rare term matched) keeps the "
        "words' lead. Doc / section MRR, 0 → 0.2: httpx 0.942 / 0.917 → 0.958 / 0.933, pydantic "
        "0.917 / 0.749 → 0.917 / 0.752, tanstack-query 0.865 / 0.731 → 0.885 / 0.751; the 11 "
        "tour sets' mean 0.855 / 0.721 → 0.863 / 0.728, R@5 0.945 → 0.966 (one set loses a "
        "place: redux-toolkit 0.875 → 0.867). 0.3 / 0.4 (share from 0.25 / 0.2) gain more on "
        "tanstack-query and lose on pytest and celery.",
        SUITE + " + the 11 benchmarks/tour_search sets",
    )
    flatness_depth: int = _c(
        10,
        "Candidates by words (the best included) whose scores give the lexical flatness: a "
        "result page. 20 gives the same figures; one score alone (the 3rd, 5th, 8th) moves "
        "more from set to set than the mean.",
        SUITE + " + the 11 benchmarks/tour_search sets",
    )
    identifiers_by_words: bool = _c(
        True,
        "A query made only of code names (analyzer.identifiers_only: `abandon_on_cancel`, "
        "`httpx.get`) ranks by words alone: MiniLM reads an identifier as its parts, so on "
        "anyio's docs the sections about 'cancel' outranked the one page naming "
        "abandon_on_cancel (1st by words, 8th blended). The dev suite's questions are "
        "sentences: its figures are the same either way.",
    )
    lexical_pool: int = _c(20, "Lexical candidates read before fusion (at least 4× the limit).")
    embed_tokens: int = _c(
        192,
        "Tokens of a unit the embedding model reads (title and heading path first, code blocks "
        "cut to embed_code_lines). The model's time grows with the length. With code cut, doc-MRR "
        "httpx / pydantic / tanstack-query: 128 tokens 0.967 / 0.861 / 0.868, 192 0.961 / 0.917 / "
        "0.868, 256 0.961 / 0.894 / 0.846. Vectors are stored per model and this value.",
    )
    embed_code_lines: int = _c(
        3,
        "Lines of each code block the embedding model reads (the rest of the block is left out "
        "of what is embedded, not of the index): within embed_tokens, prose says more of what a "
        "section is about. Whole blocks: doc-MRR 0.950 / 0.861 / 0.851; 3 lines: 0.967 / 0.861 / "
        "0.868; 1 line: 0.958 / 0.856 / 0.873 (httpx / pydantic / tanstack-query).",
    )
    semantic_pool: int = _c(20, "Nearest sections by cosine added to the candidates before fusion.")
    semantic_only_min: float = _c(
        0.5,
        "A unit found by meaning alone (no query word in it) joins the candidates only when its "
        "scaled cosine is at least this: below, it is a neighbour of nothing in particular.",
    )
    semantic_only_cosine: float = _c(
        0.3,
        "A unit found by meaning alone also needs at least this raw cosine with the question: the "
        "scaled cosine above is relative to the query's best, so a question nothing in the docs is "
        "about (a made-up word: best cosine ~0.2) still had a best neighbour scoring 1, and a "
        "digest built on it. 0 / 0.2 / 0.25 / 0.3 / 0.35 give the same dev-suite figures.",
    )
    excerpt_only_cosine: float = _c(
        0.2,
        "get_doc_excerpt: a section of the one page asked about found by meaning alone needs "
        "at least this raw cosine (search's semantic_only_cosine, over every page, is 0.3). "
        "Within a page the answer to a paraphrase sits lower ('duplicates are dropped': 0.26 "
        "from 'Insert if not exists'), a made-up word near 0.1 ('zzqqxx': 0.13 from the page's "
        "nearest section); before, the page's nearest section always answered.",
        "tests/fixtures/hybrid (tests/test_hybrid.py::test_excerpts_rank_by_meaning_too)",
    )
    semantic_floor: float = _c(
        0.15,
        "Cosines are scaled as (cos − floor) / (best − floor): MiniLM gives unrelated sections "
        "0.0–0.2, so raw cosines would lift every candidate alike.",
    )

    rescue_place: int = _c(
        5,
        "The unit nearest the question by meaning, when the blend ranked it past "
        "`rescue_after` (the words of many sections outweighed it) and its raw cosine is at "
        "least `semantic_only_cosine`, is moved up to this place (1 = first; 0: never; never "
        "down). A linear blend gives a unit no query word is in little more than the cosine's "
        "share (0.3–0.5; its page's words add a little), so the page the model ranks first can end below any result "
        "page an agent reads: 'alt-tab back into the browser' has the window-focus refetching "
        "page 1st by meaning (cosine 0.57) and 22nd blended. At 5 only tanstack-query moves "
        "(doc MRR 0.886 → 0.898, R@5 0.850 → 0.883); 3 and 2 lose a place on vitest and router, "
        "and moving it without `rescue_after` (to 5th from anywhere below) loses places on "
        "celery, redux-toolkit, vite and trpc. It fired for 3 of the suite's 90 questions and 6 "
        "of the tour sets' 280 (2026-11-30).",
        SUITE + " + the 14 benchmarks/tour_search sets + benchmarks/backstage_search.jsonl",
    )
    rescue_after: int = _c(
        15,
        "See `rescue_place`: past this many units (1.5 result pages of 10) the nearest by meaning "
        "is out of sight. 8 / 10 / 12 lose a place on celery, vite, redux-toolkit and trpc; 15 and 20 "
        "change nothing but the rescued question; at 30 the window-focus page is no longer rescued.",
        SUITE + " + the 14 benchmarks/tour_search sets + benchmarks/backstage_search.jsonl",
    )

    # -- results -----------------------------------------------------------------------------
    per_document: int = _c(
        3,
        "Sections of one document in a window of `per_document_window` results: the rest of a "
        "document's sections wait and lead the next window (the window is what an agent reads).",
    )
    per_document_window: int = _c(
        10,
        "Results a `per_document` cap counts in. A cap over the whole list made a page's 4th "
        "section wait behind a section of every other matching page: with 84 pages matching, "
        "`--limit 60` never showed it (the SvelteKit and Textual tours: answers at 0.84 of the "
        "best score behind pages at 0.28). Every evaluation asks for 10 results: no figure moves.",
    )
    history_weight: float = _c(
        0.7,
        "A changelog's or release notes' section (CHANGES.rst, history/changelog-1.0.rst, "
        "announce/release-2.3.5.rst, release-notes.md; not a migration guide) counts this much: it "
        "records what changed, and its words (every API, every version) otherwise outrank the "
        "guide that explains the thing. The dev corpora have no such page (figures unchanged); "
        "on the pytest and celery tour sets (benchmarks/tour_search) doc MRR 0.833 -> 0.858 and "
        "0.883 -> 0.908, section MRR 0.708 -> 0.733 and 0.790 -> 0.815 (0.7 was set, not swept). "
        "Not for a query made only of code names (engine.lookup): where a name is written, a "
        "changelog included, is the answer there.",
        measured="httpx + pydantic + tanstack-query (unchanged), pytest + celery tour sets",
    )
    duplicate_jaccard: float = _c(
        0.8,
        "Two results whose word sets overlap this much (Jaccard) are one answer in several places "
        "(framework variants of a guide, copied pages): the lower one is listed under the first.",
    )

    # -- assemble ----------------------------------------------------------------------------
    subsection_chars: int = _c(
        2000,
        "Text of the subsections a section chosen for a digest brings with it (its deeper "
        "headings, in order, until this many characters). 0: each section alone, as the index "
        "splits it. eval assemble@8k covered 30/26/27 of 30 (httpx/pydantic/tanstack-query) "
        "with 0 and 800, 30/27/27 with 1,200, 2,000, 3,000 and 6,000: the answer of a section "
        "often sits in its short subsection (a typed alias under 'At the field level').",
    )

    def index_signature(self) -> str:
        """The index-shape part, stored with the index (a change rebuilds the lexical index)."""
        return f"pad{self.length_pad}-stub{self.stub_chars}"

    def for_api_sections(self) -> RankingConfig:
        """find_api's ranking of doc sections (which APIs a question's sections mention): by
        words, with title, heading, path and identifier parts at full weight: reference
        headings name the APIs. With this config's weights instead, httpx_api.jsonl fell from
        top-1 0.867 / top-3 0.900 / MRR 0.889 to 0.800 / 0.867 / 0.841."""
        return self.replace(title_boost=1.0, heading_boost=1.0, path_boost=1.0, parts_boost=1.0)

    def replace(self, **changes: Any) -> RankingConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def describe(cls) -> list[dict[str, Any]]:
        """Each constant: name, value, why, what it was measured on."""
        return describe_constants(cls)


DEFAULT = RankingConfig()
