"""Every ranking constant of ``find_api`` and ``get_examples`` in one typed, documented object.

:class:`ApiRankingConfig` holds each constant with why it has its value and the task sets
it was measured on, as :class:`docmentor.search.config.RankingConfig` does for
``search_docs``. A change is judged on every dev task set at once (``benchmarks/bench_api.py``
for httpx and lancedb, ``benchmarks/bench_api_blind.py`` for Flask, click, jinja2 and
marshmallow; the held-out sets of ``benchmarks/HELDOUT.md`` are only reported); no value
is chosen per library. ``docs/ranking.md`` explains how the signals combine.

The ranking code reads the config it is given: ``ApiIndex(..., config=...)``,
``LibraryKnowledge(engine, ranking=...)``, ``MentionResolver(..., config=...)``; each
defaults to :data:`DEFAULT`. Tests pass a config instead of patching module constants.

The fields under "what is indexed and embedded" are read when a knowledge base is
generated (the API texts embedded) or when the index is built, and ``max_candidates`` also
decides which names the generation's cross-references resolve: a change to them shows
after ``readme-llm generate``.

Task sets named below (top-1 / top-3 / MRR over 10 results): httpx (30 tasks, the dev set
``httpx_api.jsonl`` that ``benchmarks/bench_api.py`` reads), lancedb (20,
``benchmarks/lancedb_api.jsonl``), a pydantic probe (10, no docs), Flask (20), click (15), jinja2 (20) and marshmallow (20)
(``benchmarks/*_api.jsonl``). The figures quoted are those of the session that set the
value (BENCHMARKS.md's history in git); the sets were smaller then.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from docmentor.search.config import constant, describe_constants

__all__ = ["DEFAULT", "ApiRankingConfig"]

HTTPX_LANCEDB = "httpx + lancedb API sets"
THREE = "httpx + lancedb + pydantic-probe API sets"
FIVE = "httpx + lancedb + pydantic-probe + Flask + click API sets"
SIX = FIVE + " + jinja2"
UNSCOPED = FIVE + ", each set's tasks asked of one index of all five libraries without naming one"
ALL_SETS = (
    "all 55 find_api dev and tour sets at once (bench_api_blind.py --tours and httpx; the two "
    "held-out sets only reported), the twenty-second session"
)
ALL_60 = (
    "all 60 find_api sets at once (57 dev and tour sets, httpx, and the two held-out sets only "
    "reported), scored on one session's knowledge bases, the twenty-fourth session"
)
NOT_TUNED = "not tuned: a bound or a rule, unchanged since it was written"
DEV = "httpx + lancedb + Flask + click + jinja2 + marshmallow API sets"
EXAMPLES = "no labelled get_examples set: set by the rule it states, checked by tests"


def _c(value: Any, why: str, measured: str) -> Any:
    """A config field with its reason and the sets it was measured on (required: a value
    nobody measured says so, ``NOT_TUNED``)."""
    return constant(value, why, measured)


@dataclass(frozen=True, slots=True)
class ApiRankingConfig:
    """Ranking constants of ``find_api`` and ``get_examples`` (library knowledge)."""

    # -- lexical: BM25F over an API's text, plus its best example -----------------------------
    name_weight: float = _c(
        2.0,
        "BM25F weight of an API's names (short name, aliases, id and their word parts): it "
        "scales the field's term frequencies before the one saturation. Set when the name, "
        "signature and docstring were three added BM25 scores; kept when they became one BM25F "
        "document (name weight 3 kept the gains on Flask, click and pydantic within ±0.02 MRR).",
        FIVE,
    )
    signature_weight: float = _c(0.5, "BM25F weight of an API's signature (see name_weight).", FIVE)
    doc_weight: float = _c(
        1.5,
        "BM25F weight of an API's docstring (or description). 1.0 kept the BM25F gains within "
        "±0.02 MRR (see name_weight).",
        FIVE,
    )
    examples_weight: float = _c(
        1.5,
        "Weight of an API's best linked example's BM25 score, added to its text's BM25F after "
        "the saturation, so not on the fields' scale. Examples at 1.0 or 0.75 cost lancedb 0.05 "
        "MRR and httpx up to 0.03; 1.0–2.0 kept the gains on Flask, click and pydantic. An "
        "example is one BM25 document (title, headings, prose, code): the best of an API's "
        "examples counts, so an API used in ten places does not lose on length to one used once "
        "(the mean of its best two or three: httpx MRR 0.662 / 0.620 against 0.706).",
        FIVE,
    )
    bm25_k1: float = _c(
        1.2,
        "BM25 term-frequency saturation of find_api's fields (the usual value). 0.9 and 2.0 kept "
        "the BM25F gains within ±0.02 MRR.",
        FIVE,
    )
    bm25_b: float = _c(
        0.75,
        "BM25 length normalisation of find_api's fields (the usual value). 0.5 / 0.6: 30 up 22 "
        "down / 25 up 19 down of 60 sets, mean MRR +0.002 / +0.001 but median −0.013; 0.9: 13 up "
        "20 down (−0.003). A docstring that holds a domain's every word (glom's `glom()`) is "
        "not what length normalisation fixes.",
        ALL_60,
    )
    linked_examples: int = _c(
        10, "An API's examples (its first ones) that count for its examples score.", NOT_TUNED
    )
    importance_share: float = _c(
        0.15,
        "The lexical ranking is (1 − share) · relevance + share · importance, relevance scaled "
        "by the query's best. 0.25 / 0.35 cost httpx (MRR 0.830 / 0.791 against 0.880); "
        "importance after the fusion instead (× (1 − s + s·importance), s 0.2–0.4) lifted the "
        "pydantic probe but cost httpx top-1 0.467–0.700. On 60 sets: 0.10 kept the mean "
        "(15 up 12 down, +0.0005), 0.20 cost it 0.003 (17 up 21 down).",
        SIX + "; " + ALL_60,
    )
    synonym_weight: float = _c(
        1.0,
        "Query weight of a WordNet synonym a task's word calls for (find/synonyms.py: only "
        "words no API name holds, only synonyms one does): it stands for the word the library "
        "does not use. Half a word's weight: httpx 0.633 / 0.800 / 0.727 against 0.667 / "
        "0.800 / 0.744.",
        THREE,
    )

    # -- importance (knowledge/importance.py): what README.LLM keeps, the lexical prior above ---
    importance_exported: float = _c(
        0.25, "Importance weight of being exported (a top-level name, or a member of one).", NOT_TUNED
    )
    importance_examples: float = _c(
        0.30, "Importance weight of the docs' examples that use the API (log-scaled).", NOT_TUNED
    )
    importance_prose: float = _c(
        0.15, "Importance weight of mentions in the docs' prose (log-scaled).", NOT_TUNED
    )
    importance_docstring: float = _c(
        0.15, "Importance weight of a complete docstring (summary, parameters, return).", NOT_TUNED
    )
    importance_propagation: float = _c(
        0.15,
        "Importance weight of the best score of what returns a class or is its member. The five "
        "importance weights add up to 1.",
        NOT_TUNED,
    )
    member_of_exported: float = _c(
        0.6,
        "The exported factor of a member of an exported class or of a product (a class users "
        "get from a factory, obj[key], obj(...) or a union return). Giving products' members "
        "their producer's score as propagation too cost lancedb MRR 0.7375 → 0.7292: not kept.",
        NOT_TUNED,
    )
    min_example_scale: int = _c(
        3, "The examples factor is log(1+n) / log(1+max(top, this)): a library with few examples.", NOT_TUNED
    )
    min_mention_scale: int = _c(5, "The prose factor's floor, as min_example_scale.", NOT_TUNED)
    deprecated_share: float = _c(0.25, "The share of its importance a deprecated API keeps.", NOT_TUNED)

    # -- sections: the engine's search over the library's docs, credited to APIs ----------
    sections: int = _c(
        20,
        "Documentation sections asked of the engine per library (and its pool before "
        "re-ranking). 20 instead of 40: lancedb 0.45 / 0.85 / 0.617 → 0.55 / 0.90 / 0.688, "
        "httpx unchanged, the ranking 0.6 instead of ~1.0 ms.",
        THREE,
    )
    section_per_document: int = _c(
        3,
        "Sections of one document in each window of the engine's results while other "
        "documents match (the engine's own per_document default).",
        NOT_TUNED,
    )
    documents_weight: float = _c(
        1.0,
        "Credit (× the section's score relative to the best) of an API a section documents: a "
        "mkdocstrings / Sphinx directive names it, its own heading names it in code, or a "
        "heading of its path spells its name's words ('ASGI Transport' → ASGITransport). "
        "Ancestor headings at 0.6 or 0.8 instead moved httpx-017 only to 4th (1st at 1.0); "
        "names of one word as well ('Clients') cost every set 0.03–0.07 MRR.",
        SIX,
    )
    uses_weight: float = _c(
        0.6,
        "Credit of an API a section's linked example uses, or its prose names in a code span or "
        "cross-reference (divided among the candidates when the name is ambiguous). An "
        "example's APIs against prose mentions at 0.4–0.8 each: httpx ≤ 0.600 top-1 (against "
        "0.667); a section's credit divided by the number of APIs it names (n^0.25): httpx "
        "0.667 / 0.833 / 0.768 (against 0.733 / 0.833 / 0.801).",
        HTTPX_LANCEDB,
    )
    max_candidates: int = _c(
        3,
        "A name in the docs that may denote more APIs than this credits none (and resolves to "
        "none: also read at generation, for cross-references and replacements).",
        NOT_TUNED,
    )

    # -- semantic: the task's embedding against each API's texts --------------------------
    semantic_floor: float = _c(
        0.25,
        "Cosine below which an API text is not similar at all (MiniLM gives nonsense < 0.2). "
        "Chosen with the fusion on httpx and lancedb together.",
        HTTPX_LANCEDB,
    )
    wordless_floor: float = _c(
        0.50,
        "The semantic floor when no word of the task is in the library nor a word the query "
        "model knows (no lexical or section match): such nonsense came within 0.35 ('asdf' of "
        "ASGITransport, 0.41 of a one-line ASGITransport alone); a paraphrase in English words "
        "('terminate when finished') keeps semantic_floor.",
        NOT_TUNED,
    )
    passage_weight: float = _c(
        0.9,
        "A docstring passage's cosine (paragraph, bullet item, parameter description) counts "
        "× this: weaker evidence than the API's own description. Chosen with the fusion on "
        "httpx and lancedb together.",
        HTTPX_LANCEDB,
    )
    closest: int = _c(
        5,
        "Several libraries, a task naming none: a library's closeness to the task is the mean "
        "cosine of its this many texts nearest it (added to its best pooled word score). Of 95 "
        "unscoped tasks the best cosine alone misrouted 15, the mean of the best 5 13, the "
        "word score 16, their sum 4.",
        UNSCOPED,
    )
    library_weight: float = _c(
        4.0,
        "Several libraries, a task naming none: a library's scores × (its strength / the best "
        "library's) ** this. Cosines of related texts differ by little (0.45 against 0.6). "
        "1 / 2 / 4 / 8 moved the unscoped MRR by ±0.03 per set with no winner; 4 was the first "
        "set.",
        UNSCOPED,
    )
    weak_match: float = _c(
        0.30,
        "find_api warns that the library may not do the task when its closest API description "
        "is below this cosine. Of 125 labelled tasks over six libraries 2 came below it "
        "(marshmallow's); of the same tasks asked of the five other libraries 296 of 625 (some "
        "rightly close). 0.28: 2 and 245; 0.32: 4 and 335. Also the closeness a library without "
        "vectors (--no-embeddings) is taken to have beside libraries with them, a task naming "
        "none: mixed httpx and click knowledge bases routed the unembedded one's tasks to it "
        "7 → 8 of 15 and 7 → 14 of 15, the embedded one's 30 → 30 and 30 → 29 of 30 (2026-12-01).",
        DEV,
    )

    # -- what is indexed and embedded --------------------------------------------------------
    max_passages: int = _c(
        8,
        "Docstring passages embedded per API besides its description (paragraphs and bullet "
        "items first, then parameter descriptions). A parameter whose list item is a passage "
        "already is not embedded twice (twice: httpx 0.700 / 0.833 / 0.784); dropping "
        "parameter passages the docstring holds cost pydantic 0.575 → 0.543, Flask and click "
        "~0.005 MRR.",
        FIVE,
    )
    passage_paragraphs: int = _c(
        6, "Docstring paragraphs and bullet items embedded per API, the first ones.", NOT_TUNED
    )
    passage_min_chars: int = _c(
        25, "A docstring paragraph or bullet item shorter than this is no passage.", NOT_TUNED
    )
    passage_chars: int = _c(500, "A passage's text embedded (its public path first), at most.", NOT_TUNED)
    embedded_examples: int = _c(
        5,
        "An API's description vector also reads the headings of its first this many linked "
        "examples (and the opening prose of the first).",
        HTTPX_LANCEDB,
    )
    embedded_headings: int = _c(3, "Of those headings, the first this many distinct ones.", HTTPX_LANCEDB)
    embedded_context_chars: int = _c(
        200, "Characters of the first linked example's prose in the description vector.", HTTPX_LANCEDB
    )
    embedded_chars: int = _c(
        800,
        "An API's description text embedded (public path, name words, kind, summary, example "
        "headings and prose), at most.",
        HTTPX_LANCEDB,
    )
    example_code_chars: int = _c(
        2000,
        "Characters of an example's code in its BM25 document (after its title, headings and "
        "prose): the lexical ranking's examples score and get_examples' text match.",
        NOT_TUNED,
    )

    # -- fusion -------------------------------------------------------------------------------
    rrf_k: float = _c(
        40,
        "Reciprocal rank fusion Σ score / (k + rank), each score relative to its ranking's best. "
        "60 (the usual) until six task sets: 40 gained httpx and Flask a task each and jinja2 "
        "0.02 MRR, lost none; 20 and 30 cost pydantic 0.08 and 0.02, 100 cost all but click. "
        "Plain RRF (no scores): httpx 0.705 → 0.662 MRR, lancedb 0.688 → 0.612. On 60 sets: 30 "
        "kept the mean (22 up 25 down), 60 cost it 0.005 (18 up 31 down).",
        SIX + "; " + ALL_60,
    )
    lexical_fusion_weight: float = _c(
        1.0,
        "The lexical ranking's weight in the fusion (each of its terms × this): the scale the "
        "other two are weighed against. 0.8 / 1.25 (the others at 1.0): 29 up 22 down / 18 up "
        "32 down of 55 sets.",
        ALL_SETS,
    )
    sections_fusion_weight: float = _c(
        1.0,
        "The sections ranking's weight in the fusion. 0.7 with semantic 1.0: 38 up 11 down of "
        "55 sets (mean MRR +0.012), 1.3: 6 up 45 down; 0.7–0.9 beside semantic 1.5 gained the "
        "suite a little more (mean +0.014–0.017) but cost httpx its top-3 target (proxy "
        "credentials 1st → 4th–5th: 0.900 → 0.867), so it stays 1.0.",
        ALL_SETS,
    )
    semantic_fusion_weight: float = _c(
        1.5,
        "The semantic ranking's weight in the fusion: the task's cosine to an API's text finds "
        "paraphrases (most tasks of the 55 sets name none of their API's words) that the word "
        "rankings miss. 1.0 → 1.5: 39 sets up, 13 down (apispec −0.060, jsonschema −0.047, "
        "itsdangerous −0.037, Flask −0.025, trio −0.024, werkzeug −0.021, the rest ≤ 0.01), mean "
        "MRR 0.598 → 0.612, mean top-3 0.689 → 0.712; held out (not used to choose): arrow "
        "0.491 → 0.510, more-itertools 0.490 → 0.511. 0.8: 10 up 44 down; 1.25: 36 up 13 down "
        "(+0.006); 2.0 and 2.5 with sections 0.85–1.0: +0.012–0.016 but 18–22 sets down and "
        "httpx top-3 0.833.",
        ALL_SETS,
    )
    exception_weight: float = _c(
        2.0,
        "A task that asks which exception the library raises (roles.ERROR_INTENT: 'which error "
        "is raised when…', 'the exception raised when…', 'which exception do I catch…'; not "
        "'raise an error if…') counts the library's exception classes (ApiEntry.exception) × "
        "this after fusion. MRR at 1.5 / 2.0 / 3.0: packaging 0.4813 → 0.5392 at each, anyio "
        "0.4621 → 0.4696 / 0.4738 / 0.4738; every other set unchanged at each (their "
        "exception tasks already found theirs first, or ask no such thing). The middle of the "
        "plateau.",
        "every find_api dev and tour set (bench_api_blind.py --tours, bench_api.py)",
    )
    depth: int = _c(
        50,
        "Each ranking contributes its best this many (the lexical ranking keeps 2×, the "
        "semantic 2× descriptions and 4× passages before its cut). 20, 30 or 100: within "
        "±0.01 MRR, click −0.04 at 30 and 100.",
        FIVE,
    )

    # -- after the fusion: APIs a user does not call weigh less --------------------------
    attribute_weight: float = _c(
        0.7,
        "Data (attributes, read-only properties) and modules × this after fusion: a task asks "
        "what to call far more often than which value to read. Of 95 tasks 2 are answered by "
        "data; of the wrong answers above the right one in the first three places, 15 of 80 "
        "were (Result.exit_code above CliRunner). 1.0 → 0.7: pydantic 0.517 → 0.575, Flask "
        "0.688 → 0.693, click 0.657 → 0.678 MRR; flat from 0.6 to 0.75. A property with a "
        "setter is a setting one changes (httpx event_hooks 1st → 6th when weighed): not "
        "weighed. Modules weighed alike changed no rank.",
        FIVE,
    )
    internal_weight: float = _c(
        1.0,
        "An API the surface marks internal (ApiEntry.internal: a module-level helper or "
        "constant nothing publishes, a marker class, a sentinel, a type variable; "
        "find/roles.py) × this after fusion, besides attribute_weight for a constant. Unused "
        "(1.0): no value from 0.3 to 0.85 moved any dev set's top-1, top-3 or MRR (of 125 "
        "tasks one internal came in a first five, 4th, its answer 1st: jinja2's "
        "do_forceescape); kept unused rather than fitted to no evidence.",
        DEV,
    )
    instance_attribute_weight: float = _c(
        0.7,
        "An instance attribute (assigned on self in __init__: ApiEntry.instance_attribute: an "
        "instance's data, never called) × this after fusion, besides attribute_weight. 0.5–0.7: "
        "jinja2 MRR 0.3531 → 0.3556 (Template.blocks below the answer, 5th → 4th), every other "
        "set unchanged; 0.8: no change.",
        DEV,
    )
    command_weight: float = _c(
        0.7,
        "A CLI command object (ApiEntry.command: what a user runs from a shell, not what code "
        "calls) × this after fusion for a task worded as code, instead of attribute_weight (its "
        "weight when it was taken for data: unchanged); not weighed for a task worded as a "
        "command line (find/roles.py's COMMAND_INTENT). 0.5 and 1.0 moved no dev set (no "
        "command object came in a task's first five).",
        DEV,
    )
    deprecated_weight: float = _c(
        0.8,
        "A deprecated API whose reason names no replacement we know × this (one that names "
        "one comes right after it instead: max_replacements).",
        HTTPX_LANCEDB,
    )
    secondary_weight: float = _c(
        0.8,
        "An API of a mirror namespace (pydantic.v1) or one neither the root package nor the "
        "docs lead to (find/priors.py) × this, once whichever it is. 1.0: pydantic 0.386 MRR "
        "(against 0.583); 0.6: jinja2 ±0.01.",
        SIX,
    )
    max_replacements: int = _c(
        3,
        "Of the replacements a deprecation's reason names, this many (best-ranked first) are "
        "lifted to its place, the deprecated API right after them (lancedb: FTS and "
        "create_index above create_fts_index).",
        HTTPX_LANCEDB,
    )
    twin_weight: float = _c(
        0.5,
        "An edition of an API (sync/async twin, find/twins.py) counts × this per twin already "
        "listed: the next distinct answer comes first. 0.8: lancedb MRR 0.746; 0.5: 0.763 "
        "(from 0.738); httpx the same either way.",
        THREE,
    )
    extension_weight: float = _c(
        1.3,
        "A task to write 'my own' one (find/extension.py's OWN_INTENT) weighs the library's "
        "extension points × this. Of 115 tasks 5 say 'my own', each answered by one. 1.15: "
        "httpx MRR 0.858; 1.3 and 1.5: 0.880; no set lost at any.",
        SIX,
    )
    min_subclasses: int = _c(
        2,
        "A class the library subclasses this many times or more is an extension point (with "
        "the members its subclasses override).",
        SIX,
    )
    mirror_share: float = _c(
        0.5,
        "A subpackage repeating at least this share of its public names from the root package "
        "is a mirror namespace: pydantic.v1 repeats 62 of 93; lancedb's and httpx's "
        "subpackages share at most 13 %.",
        THREE,
    )
    mirror_min_names: int = _c(
        10, "A mirror namespace has at least this many public names (see mirror_share).", THREE
    )

    # -- get_examples -------------------------------------------------------------------------
    named_weight: float = _c(
        2.0,
        "get_examples: per API of apis_involved an example uses (or a same-named member), "
        "up to max_named: the named APIs' examples come first.",
        EXAMPLES,
    )
    max_named: int = _c(3, "get_examples: named APIs an example is credited for, at most.", EXAMPLES)
    heading_weight: float = _c(
        1.0,
        "get_examples: the task's BM25 over an example's title and headings, added to its BM25 "
        "over its whole text ('Add data to a table' says what it does).",
        EXAMPLES,
    )
    implied_weight: float = _c(
        1.0,
        "get_examples: an example of an API find_api ranks for the task adds this × that API's "
        "relevance (its examples are the answer).",
        EXAMPLES,
    )
    implied_apis: int = _c(
        3, "get_examples: find_api's results whose examples count as implied (its best three).", EXAMPLES
    )
    validated_bonus: float = _c(
        0.3, "get_examples: an example that ran and passed (--validate) adds this.", EXAMPLES
    )
    failed_penalty: float = _c(
        2.5,
        "get_examples: an example that failed validation loses this: a last resort, it shows "
        "how not to do it.",
        EXAMPLES,
    )
    complete_bonus: float = _c(0.1, "get_examples: a complete program adds this.", EXAMPLES)
    deprecated_penalty: float = _c(
        0.5,
        "get_examples: one that uses a deprecated API loses this: after those that do the same without.",
        EXAMPLES,
    )
    drift_penalty: float = _c(
        1.0,
        "get_examples: one the drift report finds broken (calls the installed version lacks "
        "or rejects) loses this.",
        EXAMPLES,
    )
    history_penalty: float = _c(
        1.0,
        "get_examples: one on a page that records changes (changelog, release notes: "
        "search.ranking.history_page) loses this, as a drifted one does: a release note shows "
        "how an API was called before (a Python-Markdown tour: `markdown(text, safe_mode=True)` "
        "from the 2.6 notes, ignored by 3.7, came 2nd for escaping raw HTML). Set equal to "
        "drift_penalty, not swept: no task set measures get_examples' order.",
        EXAMPLES,
    )
    own_api_bonus: float = _c(
        0.2,
        "get_examples: an example linked to some API of the library users call adds this (not "
        "one linked only to internals or instance attributes: find/roles.py).",
        EXAMPLES,
    )
    language_bonus: float = _c(
        0.2,
        "get_examples: an example in the language the library's API was read from adds this (a "
        "TypeScript reference snippet is no answer for a Python library).",
        EXAMPLES,
    )
    min_example_score: float = _c(
        0.15,
        "get_examples: an example tied to the task (a named API, an implied one or a word) "
        "scoring below this is not listed.",
        EXAMPLES,
    )

    def importance_weights(self) -> dict[str, float]:
        """The importance factors' weights, by factor (they add up to 1)."""
        return {
            "exported": self.importance_exported,
            "examples": self.importance_examples,
            "prose": self.importance_prose,
            "docstring": self.importance_docstring,
            "propagation": self.importance_propagation,
        }

    def field_weights(self) -> dict[str, float]:
        """The BM25F weights of an API's text fields (name, signature, doc)."""
        return {"name": self.name_weight, "signature": self.signature_weight, "doc": self.doc_weight}

    def replace(self, **changes: Any) -> ApiRankingConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def describe(cls) -> list[dict[str, Any]]:
        """Each constant: name, value, why, what it was measured on."""
        return describe_constants(cls)


DEFAULT = ApiRankingConfig()
