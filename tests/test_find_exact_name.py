"""A task that is only an API's name (``enable_fts``, ``Retrying.seconds_since_start``,
``pkg.wait_fixed()``) lists that API first, however well better-documented neighbours
match the name's words (two tours: an undocumented member came 5th on its own name)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from docmentor.library.find.config import DEFAULT
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.models import ApiEntry, Example


def entry(api_id: str, kind: str, description: str, importance: float, **kw: object) -> ApiEntry:
    parent = api_id.rpartition(".")[0] if kind in ("method", "property", "attribute") else None
    return ApiEntry(
        api_id=api_id,
        name=api_id.rpartition(".")[2],
        kind=kind,  # type: ignore[arg-type]
        parent=parent,
        description=description,
        importance_score=importance,
        **kw,  # type: ignore[arg-type]
    )


ENTRIES = [
    entry("db.core.Table", "class", "A table.", 0.9, aliases=["db.Table"]),
    entry("db.core.Table.enable_fts", "method", "Turn it on.", 0.1),
    entry(
        "db.core.Table.disable_fts",
        "method",
        "Disable FTS: full-text search (fts) enable and disable; fts tables removed.",
        0.9,
    ),
    entry("db.core.Table.populate_fts", "method", "Populate the fts index to enable full text search.", 0.8),
    entry("db.core.State", "class", "Retry state.", 0.5, aliases=["db.State"]),
    entry("db.core.State.seconds_since_start", "property", "", 0.05),
    entry("db.core.wait_since_start", "function", "Wait seconds since the start, seconds.", 0.9),
]
EXAMPLES = [
    Example(
        example_id="e1",
        title="Full-text search",
        # a call of each, which the matcher credited to the two others only (a receiver it
        # could not type): their best example says `enable_fts`, and `seconds_since_start`
        code=(
            "table.enable_fts(['name'])\ntable.disable_fts()\ntable.populate_fts(['name'])\n"
            "print(state.seconds_since_start)\nwait_since_start()\n"
        ),
        language="python",
        source="docs",
        path="fts.md",
        line=1,
        apis_used=["db.core.Table.disable_fts", "db.core.Table.populate_fts", "db.core.wait_since_start"],
    )
]


@dataclass
class Section:
    """A docs section the engine found: it names the neighbours, never the asked API."""

    source: str = "db-docs"
    path: str = "guide.md"
    heading_path: list[str] = field(default_factory=lambda: ["Full-text search"])
    line_start: int = 1
    line_end: int = 9
    text: str = "Call `Table.disable_fts()` or `Table.populate_fts()`; `wait_since_start()` waits."


def first(query: str) -> str:
    entries = [e.model_copy(deep=True) for e in ENTRIES]
    index = ApiIndex(
        {"db": (entries, EXAMPLES)},
        docs_sources={"db": "db-docs"},
        section_search=lambda query, source: [Section()],
    )
    return index.find(query, limit=5)[0].entry.api_id


def test_a_task_that_is_an_api_name_lists_it_first() -> None:
    assert first("enable_fts") == "db.core.Table.enable_fts"
    assert first("seconds_since_start") == "db.core.State.seconds_since_start"
    # a qualified name, a call, a public path
    assert first("State.seconds_since_start") == "db.core.State.seconds_since_start"
    assert first("table.enable_fts()") == "db.core.Table.enable_fts"
    assert first("db.Table.enable_fts") == "db.core.Table.enable_fts"


def test_words_or_a_name_no_api_has_are_ranked_as_words() -> None:
    assert first("turn on full text search") != "db.core.Table.enable_fts"
    assert first("enable_fts_now") != "db.core.Table.enable_fts"


def test_an_api_asked_about_by_an_aliass_short_name_is_that_api() -> None:
    jitter = entry(
        "db.wait.wait_random_exponential",
        "class",
        "Random exponential wait.",
        0.5,
        aliases=["db.wait_random_exponential", "db.wait_full_jitter"],
    )
    used = Example(
        example_id="w1",
        title="Jitter",
        code="wait_random_exponential(multiplier=1)\n",
        language="python",
        source="docs",
        path="wait.md",
        line=1,
        apis_used=[jitter.api_id],
    )
    index = ApiIndex({"db": ([*ENTRIES, jitter], [*EXAMPLES, used])})
    assert index.named("wait_full_jitter", "db") == {jitter.api_id}
    assert index.named("db.wait_full_jitter", "db") == {jitter.api_id}
    assert index.unknown_apis(["wait_full_jitter", "nosuch"], "db") == ["nosuch"]
    found = index.examples_for("wait", apis=["wait_full_jitter"], library="db")
    assert [ex.example_id for _, ex, _ in found][:1] == ["w1"]


def test_a_qualified_name_asked_about_keeps_its_class() -> None:
    """`MsgpackConverter.dumps`: the class's method, not every `dumps` (cattrs' JsonConverter
    one was shown, with no warning); a receiver no API has (`table.upsert`) still names by
    the method."""
    json_dumps = entry("db.json.JsonConverter.dumps", "method", "JSON text.", 0.5)
    msgpack_dumps = entry("db.msgpack.MsgpackConverter.dumps", "method", "Msgpack bytes.", 0.5)
    index = ApiIndex({"db": ([*ENTRIES, json_dumps, msgpack_dumps], [])})
    assert index.named("MsgpackConverter.dumps", "db") == {msgpack_dumps.api_id}
    assert index.named("converter.dumps", "db") == {msgpack_dumps.api_id, json_dumps.api_id}


@dataclass
class Scored:
    """A found section with the engine's score."""

    text: str
    score: float
    path: str
    source: str = "db-docs"
    heading_path: list[str] = field(default_factory=list)
    line_start: int = 1
    line_end: int = 9


def test_a_section_credit_is_relative_to_the_best_section_not_to_the_best_credited_api() -> None:
    """A watchdog tour: the quickstart, naming its event-handler class, matched a snapshot task
    at 0.39 of the best section's score (a platform page naming no API); re-scaled by the best
    credited API, that weak match took the ranking's full credit, and the handler came first
    for tasks it has nothing to do with. A weak section's credit now stays weak."""
    entries = [e.model_copy(deep=True) for e in ENTRIES]
    found = [
        Scored("Platforms compare directory snapshots when no native API exists.", 2.0, "install.md"),
        Scored(".. autoclass:: db.core.Table", 0.78, "api.rst"),
        Scored("Call `Table.disable_fts()`.", 0.5, "guide.md"),
    ]
    index = ApiIndex(
        {"db": (entries, EXAMPLES)}, docs_sources={"db": "db-docs"}, section_search=lambda q, s: found
    )
    credit = {index.entries[i][1].api_id: score for i, score in index._sections("compare snapshots", None)}
    assert credit["db.core.Table"] == pytest.approx(0.78 / 2.0 * DEFAULT.documents_weight)
    assert credit["db.core.Table.disable_fts"] == pytest.approx(0.5 / 2.0 * DEFAULT.uses_weight)
    # when the best section names an API, that API has the ranking's full credit
    index.section_search = lambda q, s: found[1:]
    assert max(s for _, s in index._sections("compare snapshots", None)) == DEFAULT.documents_weight == 1.0
