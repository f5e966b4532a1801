"""Search through the library API: golden queries on a fixture corpus, result fields and
line ranges, per-document caps, de-duplication, sources, round trips, refresh, a real corpus."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docmentor.engine import Docmentor
from docmentor.errors import NotFoundError, UsageError
from docmentor.models import SearchHit

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
HTTPX = Path(__file__).parent / "fixtures" / "httpx"  # a slice of the httpx docs (NOTICE)
N_CORPUS = 11

# What `docmentor search --json` gives for every result ...
CONTRACT_KEYS = {
    "rank", "source", "path", "url", "title", "heading", "heading_path",
    "line_start", "line_end", "score", "snippet",
}  # fmt: skip
# ... and what the project adds to it (freshness information).
EXTRA_KEYS = {"indexed_at", "source_version", "also"}  # also: near-identical sections collapsed here

NOTES = {
    "proxy-notes.md": "# Proxy notes\n\nOur office proxy needs a proxy password.\n",
    "timeouts.md": "# Team timeouts\n\nWe set every timeout to 30 seconds.\n",
}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("search")
    notes = root / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    return root / "db", notes


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def dm(request: pytest.FixtureRequest, folders: tuple[Path, Path]) -> Iterator[Docmentor]:
    """The fixture corpus and the notes, on each backend (the embedded index, PostgreSQL)."""
    db, notes = folders
    engine = Docmentor(db if request.param == "sqlite" else request.getfixturevalue("module_postgres_url"))
    report = engine.add(str(CORPUS), name="acme")
    assert (report.added, report.failed, report.skipped) == (N_CORPUS, [], [])
    engine.add(str(notes), name="notes")
    yield engine
    engine.close()


def top(hits: list[SearchHit], n: int = 3) -> list[tuple[str, str]]:
    return [(h.path, h.heading) for h in hits[:n]]


def lines_of(hit: SearchHit) -> list[str]:
    root = CORPUS if hit.source == "acme" else None
    path = root / hit.path if root else Path(unquote(urlparse(hit.url).path))
    return path.read_text(encoding="utf-8").split("\n")


# -- golden queries ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "path", "heading"),
    [
        ("max_keepalive_connections", "guide/connection-pool.md", "Pool limits"),
        ("maxConnections", "guide/connection-pool.md", "Pool limits"),  # camelCase finds snake_case
        ("acme.AsyncClient", "guide/async.md", "Opening an AsyncClient"),
        ("create_fts_index()", "reference/search-index.rst", "Creating an index"),
        ("createFtsIndex", "reference/search-index.rst", "Creating an index"),
        ("How do I set a timeout for a request?", "guide/timeouts.md", "Setting a timeout"),
        ("Rebuilding the index", "reference/search-index.rst", "Rebuilding the index"),
        ("Keep-alive expiry", "guide/connection-pool.md", "Keep-alive expiry"),
        ('"connection pool"', "guide/connection-pool.md", "Pool limits"),
        ("délai d'attente", "i18n/demarrage.md", "Délai d'attente"),
        ("DELAI", "i18n/demarrage.md", "Délai d'attente"),  # accents and case folded
        ("连接池", "i18n/zh.md", "连接池"),
        ("🚀 AsyncClient", "guide/async.md", "Opening an AsyncClient"),
        ("socks proxy", "faq.md", "Does Acme support SOCKS proxy servers?"),
        ("stream large downloads", "guide/async.md", "Streaming responses"),
    ],
)
def test_golden_queries_rank_one(dm: Docmentor, query: str, path: str, heading: str) -> None:
    hits = dm.search(query, source="acme")
    assert hits, query
    assert (hits[0].path, hits[0].heading) == (path, heading), top(hits, 5)


def test_a_heading_asked_word_for_word_is_near_the_top(dm: Docmentor) -> None:
    # headings weigh less than the section's own words (RankingConfig.heading_boost, measured
    # on the dev suite): a question that repeats a heading finds it, not always first
    hits = dm.search("Configure the client from the shell", source="acme")
    assert ("tutorials/tabs.md", "Configure the client from the shell") in top(hits, 2)


def test_snake_and_camel_case_queries_are_one_query(dm: Docmentor) -> None:
    forms = ["max_connections", "maxConnections", "MAX_CONNECTIONS"]
    results = [[(h.path, h.heading) for h in dm.search(q, source="acme")] for q in forms]
    assert results[0] == results[1] == results[2]
    paths = [p for p, _ in results[0]]
    # both spellings are found: the snake_case page first, the camelCase page among the rest
    assert paths[0] == "guide/connection-pool.md"
    assert "reference/javascript.mdx" in paths[:3]
    assert "i18n/zh.md" in paths[:5]


def test_words_written_apart_find_the_compound(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "clock.md").write_text(
        "# Clock\n\nThe time of day. Time zones. Out of time, time again, time after time.\n"
    )
    (docs / "limits.md").write_text("# Limits\n\nEach call has a timeout of five seconds.\n")
    (docs / "setup.md").write_text("# Install\n\nThe setup takes a minute.\n")
    (docs / "sets.md").write_text("# Notes\n\nA set of values; set it once, set it again.\n")
    dm = Docmentor(tmp_path / "index")
    dm.add(docs, name="d")
    # the compound counts as a word: the page saying "timeout" once is found beside the page
    # saying "time" six times (lengths barely count since RankingConfig.length_pad)
    assert "limits.md" in [h.path for h in dm.search("why does my call time out", limit=2)]
    assert dm.search("how long does set up take", limit=1)[0].path == "setup.md"


def test_a_changelog_counts_less_than_the_guide_it_records_changes_of(tmp_path: Path) -> None:
    """celery's history/changelog-1.0.rst held the very crontab example of the question and
    came first, above periodic-tasks.rst: a page that records changes counts
    ``RankingConfig.history_weight`` of its score; the guide keeps its own."""
    from docmentor.search.config import RankingConfig

    docs = tmp_path / "docs"
    (docs / "history").mkdir(parents=True)
    (docs / "history" / "changelog-1.0.rst").write_text(
        "1.0.3\n=====\n\nNew: run a task every Monday morning with crontab(hour=7, minute=30, "
        "day_of_week='mon'). A task every Monday morning at 7:30: crontab. Monday morning tasks "
        "run by crontab.\n",
        encoding="utf-8",
    )
    (docs / "periodic-tasks.rst").write_text(
        "Crontab schedules\n=================\n\nFor more control over when a task is executed, "
        "for example a particular time of day or day of the week, use a crontab schedule.\n",
        encoding="utf-8",
    )
    (docs / "migrating.rst").write_text(
        "Migrating\n=========\n\nSomething else entirely.\n", encoding="utf-8"
    )
    dm = Docmentor(tmp_path / "index", embeddings=False)
    dm.add(docs, name="d")
    question = "run a task every Monday morning at 7:30 with crontab schedule"
    weighed = {h.path: h.score for h in dm.search(question, limit=5)}
    dm.close()
    flat = Docmentor(tmp_path / "index", embeddings=False, ranking=RankingConfig(history_weight=1.0))
    plain = {h.path: h.score for h in flat.search(question, limit=5)}
    flat.close()
    changelog, guide = "history/changelog-1.0.rst", "periodic-tasks.rst"
    assert weighed[changelog] == pytest.approx(plain[changelog] * RankingConfig().history_weight)
    assert weighed[guide] == pytest.approx(plain[guide])
    assert plain[changelog] > plain[guide]  # its words match better; it still counts less


def test_a_preamble_a_reader_never_sees_is_no_result(tmp_path: Path) -> None:
    """A Sphinx page that opens with a label (and a MyST one with ``(name)=``) has a preamble
    before its title that renders nothing: tiny, it outranked the page's sections on the
    title's words. It is no search unit; a preamble with text still is one, and the label
    still names its page in the stored document."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "complex.rst").write_text(
        ".. _complex-guide:\n\n.. currentmodule:: click\n\nComplex Applications\n"
        "====================\n\nClick is designed to write complex and simple CLI tools alike.\n"
    )
    (docs / "how.md").write_text("(how)=\n\n# How it works\n\nCommands are parsed in order.\n")
    (docs / "intro.rst").write_text("Read this first about complex applications.\n\nIntro\n=====\n\nText.\n")
    dm = Docmentor(tmp_path / "index", embeddings=False)
    dm.add(docs, name="d")
    hits = dm.search("complex applications guide", limit=5)
    assert [(h.path, h.heading) for h in hits if h.path == "complex.rst"] == [
        ("complex.rst", "Complex Applications")
    ]
    assert [h.heading for h in dm.search("how it works", limit=5) if h.path == "how.md"] == ["How it works"]
    assert ("intro.rst", "") in [(h.path, h.heading) for h in hits]  # prose before the title
    assert dm.get("complex.rst", source="d").content.startswith(".. _complex-guide:")

    from docmentor.search.units import renders_nothing

    for prose in (
        ":class:`Foo` is the main entry point.",
        "<!-- a --> Visible text <!-- b -->",
        "[Note]: the API changed in 2.0",
        ".. [1] A footnote a reader sees.",
    ):
        assert not renders_nothing(prose), prose
    assert renders_nothing("[//]: # (a comment)\n[x]: https://example.com 'Title'\n:tocdepth: 2")
    # an MDX page's imports and spacer lines before its title (a redux-toolkit tour: 60 of 64
    # preambles were `&nbsp;`, one came 3rd for "polling")
    assert renders_nothing(
        "import Tabs from '@theme/Tabs';\nimport TabItem from \"@theme/TabItem\"\n\n&nbsp;\n"
    )
    assert not renders_nothing("import the data first, then call `load()`.")
    # a TypeDoc page's breadcrumb trails and thematic break before its title (a Pinia tour: 77
    # such units, one 5th for a type's name); a preamble that links in a sentence is prose
    crumbs = (
        "[**API Documentation**](../../index.md) • **Docs**\n\n***\n\n"
        "[API Documentation](../../index.md) / [pinia](../index.md) / MutationType\n"
    )
    assert renders_nothing(crumbs)
    assert renders_nothing("[Home](/) › [Guide](/guide) › Install the client")
    assert not renders_nothing("See [the guide](guide.md) to configure the client before you start.")
    from docmentor.assemble.crossrefs import introduction

    rows = [
        {"heading": "", "text": crumbs},
        {
            "heading": "Enumeration: MutationType",
            "text": "# Enumeration: MutationType\n\nHow a store changed.",
        },
    ]
    assert introduction(rows) is rows[1]


def test_a_heading_with_nothing_under_it_but_its_sections_is_no_result(tmp_path: Path) -> None:
    """A page's title ``# Getting Started`` right above ``## Installation`` says nothing of
    its own: it is no search unit (its sections keep its words as title words), in Markdown
    and in reST (over- and underlines are no text of a section's own). A title with text, an
    empty one with no section under it, or a deeper bare heading still is one."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "start.md").write_text(
        "# Getting Started\n\n## Installation\n\nInstall the store package with npm.\n\n"
        "## Usage\n\nDefine a store and use it in components.\n"
    )
    (docs / "tour.rst").write_text(
        "=====\nTour\n=====\n\nFirst steps\n-----------\n\nOpen the tour page and follow it.\n"
    )
    (docs / "empty.md").write_text("# Roadmap\n")
    (docs / "faq.md").write_text("# FAQ\n\nAnswers to common questions.\n\n## Why\n\nBecause.\n")
    (docs / "ref.md").write_text(
        "# Reference\n\nThe API.\n\n### `make` (function)\n\n#### Summary\n\nMakes an item.\n\n"
        "### `total` (function)\n\n#### Summary\n\nAdds the prices up.\n"
    )
    dm = Docmentor(tmp_path / "index", embeddings=False)
    dm.add(docs, name="d")
    headings = {(h.path, h.heading) for h in dm.search("getting started tour roadmap faq", limit=20)}
    assert ("start.md", "Getting Started") not in headings
    assert ("start.md", "Installation") in headings
    assert ("tour.rst", "Tour") not in headings and ("tour.rst", "First steps") in headings
    assert ("empty.md", "Roadmap") in headings  # nothing follows it: the page keeps a result
    assert ("faq.md", "FAQ") in headings  # it has text of its own
    # a deeper bare heading keeps its unit: a reference page's member, what its name asks for
    assert [(h.path, h.heading) for h in dm.search("total", limit=1)] == [("ref.md", "`total` (function)")]
    hits = dm.search("getting started", limit=3)
    assert (hits[0].path, hits[0].heading_path) == ("start.md", ["Getting Started", "Installation"])
    dm.close()

    from docmentor.search.units import is_stub, own_text

    assert own_text("Tour\n====\n\nText.", "Tour") == "Text."
    assert own_text("====\nTour\n====\nText.", "Tour") == "Text."
    assert own_text("## Tour\n\n---\n\nText.", "Tour") == "---\n\nText."  # a break, not an underline
    assert is_stub("Returns\n-------\n\n``int``", "Returns", 80)


def test_a_long_query_works(dm: Docmentor) -> None:
    hits = dm.search("create_fts_index() " * 500)
    assert top(hits, 1) == [("reference/search-index.rst", "Creating an index")]
    words = (CORPUS / "guide" / "connection-pool.md").read_text(encoding="utf-8").split()
    hits = dm.search(" ".join(words * 20), limit=5)  # ~2,000 words
    assert hits[0].path == "guide/connection-pool.md"


@pytest.mark.parametrize(
    "query", ["", "   ", "\n\t", "?!...;", "the of and", "🚀", "🚀🎉✨", "—", "() [] {}"]
)
def test_queries_with_nothing_to_search_return_nothing(dm: Docmentor, query: str) -> None:
    assert dm.search(query) == []


def test_function_words_alone_are_still_searched(dm: Docmentor) -> None:
    hits = dm.search("is not")  # code words: `is not None`
    assert all(isinstance(h, SearchHit) for h in hits)


# -- result shape and line ranges ------------------------------------------------------------


def test_result_fields(dm: Docmentor) -> None:
    hits = dm.search("timeout", limit=7)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert len(hits) == 7
    for hit in hits:
        d: dict[str, Any] = hit.to_dict()  # the JSON object: its values checked below
        assert set(d) == CONTRACT_KEYS | EXTRA_KEYS
        assert isinstance(d["score"], float)
        assert d["score"] > 0
        assert isinstance(d["heading_path"], list)
        assert all(isinstance(h, str) for h in d["heading_path"])
        assert d["heading"] == (d["heading_path"][-1] if d["heading_path"] else "")
        assert d["source"] in ("acme", "notes")
        assert not d["path"].startswith("/")
        assert "\\" not in d["path"]
        assert d["url"].startswith("file:///")
        root = CORPUS if d["source"] == "acme" else None
        if root:
            assert Path(unquote(urlparse(d["url"]).path)) == (root / d["path"]).resolve()
        assert d["title"]
        assert d["snippet"]
        assert d["indexed_at"]
        assert d["source_version"] is None  # a folder has no version


@pytest.mark.parametrize(
    "query",
    ["timeout", "proxy", "max_connections", "create_fts_index", "AsyncClient", "client", "JavaScript"],
)
def test_line_ranges_point_at_the_original_file(dm: Docmentor, query: str) -> None:
    hits = dm.search(query, limit=20)
    assert hits
    for hit in hits:
        lines = lines_of(hit)
        assert 1 <= hit.line_start <= hit.line_end <= len(lines)
        top = hit.line_start - 1
        while (
            hit.heading
            and top < hit.line_end - 1
            and (
                not lines[top].strip() or lines[top].lstrip().startswith(".. _")  # its reST labels first
            )
        ):
            top += 1
        head = lines[top]
        if hit.heading:
            if hit.path.endswith(".rst") and set(head.strip()) == {"="}:
                head = lines[top + 1]  # an overlined title starts at its overline
            assert hit.heading.split(" <")[0] in head.lstrip("#").strip(), (hit.path, hit.heading, head)
        else:
            assert head.strip(), (hit.path, hit.line_start)
        assert lines[hit.line_end - 1].strip(), "a section ends on a line with text"
        span = "\n".join(lines[hit.line_start - 1 : hit.line_end])
        for line in hit.snippet.split("\n"):
            assert line.rstrip("…").strip() in span, (hit.path, line)


# -- ranking rules ---------------------------------------------------------------------------


def test_at_most_three_sections_of_a_document_before_the_others(dm: Docmentor) -> None:
    hits = dm.search("proxy", source="acme", limit=10)
    paths = [h.path for h in hits]
    assert paths[:3] == ["faq.md"] * 3
    assert paths.count("faq.md") == 5  # the rest come after every other matching document
    others = [p for p in paths if p != "faq.md"]
    assert len(others) >= 2
    assert max(paths.index(p) for p in others) < [i for i, p in enumerate(paths) if p == "faq.md"][3]
    assert_per_document_rule(hits, per_document=3)


def assert_per_document_rule(hits: list[SearchHit], *, per_document: int, window: int = 10) -> None:
    """At most ``per_document`` sections of a document in each ``window`` of results, unless
    every other document found was shown before."""
    docs = {h.path for h in hits}
    for i, hit in enumerate(hits):
        shown = [h.path for h in hits[i - i % window : i + 1]].count(hit.path)
        if shown > per_document:
            assert docs <= {h.path for h in hits[:i]}, f"{hit.path} over the cap at rank {hit.rank}"


@pytest.mark.parametrize("query", ["client", "timeout", "the connection", "acme", "index"])
def test_per_document_rule_on_more_queries(dm: Docmentor, query: str) -> None:
    assert_per_document_rule(dm.search(query, limit=30), per_document=3)
    assert_per_document_rule(dm.search(query, limit=30, per_document=1), per_document=1)


def test_identical_section_texts_are_shown_once(dm: Docmentor) -> None:
    def support(rel: str) -> str:
        text = (CORPUS / rel).read_text(encoding="utf-8")
        return text[text.index("## Support") :].strip()

    assert support("guide/async.md") == support("guide/connection-pool.md")  # the precondition
    hits = dm.search("community forum support email", limit=20)
    assert hits[0].heading == "Support"
    assert [h.heading for h in hits].count("Support") == 1
    assert len({h.snippet for h in hits}) == len(hits)


# -- sources ------------------------------------------------------------------------------------


def test_source_filter(dm: Docmentor) -> None:
    everywhere = {h.source for h in dm.search("proxy password", limit=20)}
    assert everywhere == {"acme", "notes"}
    notes = dm.search("proxy", source="notes")
    assert [(h.source, h.path, h.heading) for h in notes] == [("notes", "proxy-notes.md", "Proxy notes")]
    assert all(h.source == "acme" for h in dm.search("proxy", source="acme", limit=20))
    team = dm.search("timeout", source="notes")
    assert [(h.path, h.line_start, h.line_end) for h in team] == [("timeouts.md", 1, 3)]


def test_unknown_source_is_not_found(dm: Docmentor) -> None:
    with pytest.raises(NotFoundError, match="unknown source 'nope'") as err:
        dm.search("proxy", source="nope")
    assert err.value.hint is not None
    assert "acme" in err.value.hint
    # SOURCE:PATH names its source as --source does: an unknown one is said so, not "no document"
    with pytest.raises(NotFoundError, match="unknown source 'nope'"):
        dm.get("nope:guide.md")
    with pytest.raises(NotFoundError, match=r"no indexed document 'acme:nothing\.md'"):
        dm.get("acme:nothing.md")
    for ref in ("a.md:12", "C:/docs/a.md", "std::vector"):  # no source named: no claim there is one
        with pytest.raises(NotFoundError, match="no indexed document"):
            dm.get(ref)


def test_limit(dm: Docmentor) -> None:
    assert len(dm.search("client", limit=2)) == 2
    assert len(dm.search("a the client of", limit=1)) == 1
    with pytest.raises(UsageError):
        dm.search("client", limit=0)


def test_sections_only_search_skips_snippets_and_reads_a_smaller_pool(dm: Docmentor) -> None:
    query = "connection pool limits keep-alive"
    full = dm.search(query, limit=10)
    lean = dm.search(query, limit=10, snippets=False)
    assert [(h.path, h.line_start) for h in lean] == [(h.path, h.line_start) for h in full]
    assert all(h.snippet for h in full) and not any(h.snippet for h in lean)
    assert [h.text for h in lean] == [h.text for h in full]
    # a pool of 20 instead of 40: the same best sections lead
    small = dm.search(query, limit=10, snippets=False, pool=20)
    assert len(small) == 10 and small[0].path == full[0].path
    assert dm.search(query, limit=10, pool=3) == dm.search(query, limit=10, pool=10)  # never below limit


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.one_of(st.text(max_size=120), st.sampled_from(["max_connections", "proxy", "連接", "é"])))
def test_search_never_raises(dm: Docmentor, query: str) -> None:
    hits = dm.search(query, limit=5)
    assert len(hits) <= 5
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


# -- persistence and refresh ----------------------------------------------------------------------


QUERIES = ["timeout", "maxConnections", "proxy", "连接池", "How do I set a timeout for a request?"]


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "db"
    first = Docmentor(db)
    first.add(str(CORPUS), name="acme")
    before = {q: [h.to_dict() for h in first.search(q)] for q in QUERIES}
    first.close()

    reader = Docmentor(db, create=False)
    try:
        after = {q: [h.to_dict() for h in reader.search(q)] for q in QUERIES}
        assert after == before
        assert all(before.values())
        assert [s["name"] for s in reader.sources()] == ["acme"]
    finally:
        reader.close()


def test_a_missing_index_is_not_found_for_readers(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        Docmentor(tmp_path / "nothing-here", create=False)


def test_re_adding_an_unchanged_folder_changes_nothing(tmp_path: Path) -> None:
    engine = Docmentor(tmp_path / "db")
    engine.add(str(CORPUS), name="acme")
    before = [h.to_dict() for h in engine.search("timeout")]
    report = engine.add(str(CORPUS), name="acme")
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 0, N_CORPUS, 0)
    assert report.documents == N_CORPUS
    assert report.seconds < 1.0
    assert [h.to_dict() for h in engine.search("timeout")] == before  # same indexed_at: nothing rewritten
    engine.close()


def test_re_adding_a_thousand_unchanged_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for i in range(1000):
        folder = docs / f"part{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page{i:04}.md").write_text(
            f"# Page {i}\n\nAbout topic{i} and the max_connections setting.\n\n## Details\n\nMore on {i}.\n",
            encoding="utf-8",
        )
    engine = Docmentor(tmp_path / "db")
    first = engine.add(str(docs), name="gen")
    assert (first.added, first.documents, first.sections) == (1000, 1000, 2000)
    # re-reading 1,000 unchanged files takes ~0.1 s here: hashes, no parsing, no index write
    again = engine.add(str(docs), name="gen")
    assert (again.added, again.updated, again.unchanged, again.removed) == (0, 0, 1000, 0)
    assert top(engine.search("topic512"), 1) == [("part5/page0512.md", "Page 512")]
    engine.close()


def test_refresh_reindexes_changed_and_removes_deleted_files(tmp_path: Path) -> None:
    docs = tmp_path / "corpus"
    shutil.copytree(CORPUS, docs)
    engine = Docmentor(tmp_path / "db")
    engine.add(str(docs), name="acme")
    assert engine.search("SOCKS", source="acme")[0].path == "faq.md"
    assert engine.search("2024-05-01")[0].path == "changelog.md"

    faq = docs / "faq.md"
    faq.write_text(
        "# Frequently asked questions\n\nIntro.\n\n## Can I pin a zebra certificate?\n\nYes, with `verify=`.\n",
        encoding="utf-8",
    )
    (docs / "changelog.md").unlink()
    (docs / "guide" / "new-page.md").write_text("# Retries\n\nSet `retries=3` on the transport.\n")

    (report,) = engine.refresh("acme")
    assert (report.added, report.updated, report.removed, report.unchanged) == (1, 1, 1, N_CORPUS - 2)
    assert report.documents == N_CORPUS

    zebra = engine.search("zebra certificate")
    assert top(zebra, 1) == [("faq.md", "Can I pin a zebra certificate?")]
    assert (zebra[0].line_start, zebra[0].line_end) == (5, 7)
    assert faq.read_text().split("\n")[4] == "## Can I pin a zebra certificate?"
    assert all(h.path != "faq.md" or "SOCKS" not in h.snippet for h in engine.search("SOCKS"))
    assert all(h.path != "changelog.md" for h in engine.search("2024-05-01 changelog", limit=50))
    with pytest.raises(NotFoundError):
        engine.get("acme:changelog.md")
    assert top(engine.search("retries transport"), 1) == [("guide/new-page.md", "Retries")]
    engine.close()


# -- a real corpus -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def httpx_dm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Docmentor]:
    engine = Docmentor(tmp_path_factory.mktemp("httpx") / "db")
    report = engine.add(str(HTTPX), name="httpx")
    assert report.documents == 15
    assert report.failed == []
    yield engine
    engine.close()


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("How do I set a timeout?", "docs/advanced/timeouts.md"),
        ("proxies", "docs/advanced/proxies.md"),
        ("max_connections", "docs/advanced/resource-limits.md"),
        ("HTTP/2", "docs/http2.md"),
        ("client side certificates", "docs/advanced/ssl.md"),
    ],
)
def test_httpx_smoke(httpx_dm: Docmentor, query: str, path: str) -> None:
    hits = httpx_dm.search(query, source="httpx")
    assert hits[0].path == path, top(hits, 5)
    lines = (HTTPX / hits[0].path).read_text(encoding="utf-8").split("\n")
    if hits[0].heading:
        assert hits[0].heading in lines[hits[0].line_start - 1]


def test_httpx_async_client(httpx_dm: Docmentor) -> None:
    paths = [h.path for h in httpx_dm.search("AsyncClient", limit=5)]
    # the guide first; the reference entry after the guide's sections (at most three of them)
    assert paths[0] == "docs/async.md"
    assert "docs/api.md" in paths[:4]


def test_chinese_and_japanese_words_inside_runs_are_found(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zh.md").write_text("# 连接池配置\n\n这里是中文内容，关于超时设置。\n", encoding="utf-8")
    (docs / "ja.md").write_text("# 日本語の見出し\n\n接続プールの設定について。\n", encoding="utf-8")
    dm = Docmentor(tmp_path / "index")
    dm.add(docs, name="d")
    assert dm.search("中文", limit=1)[0].path == "zh.md"
    assert dm.search("超时", limit=1)[0].path == "zh.md"
    assert dm.search("見出し", limit=1)[0].path == "ja.md"
    assert dm.search("接続プール", limit=1)[0].path == "ja.md"


def test_a_snippet_finds_the_words_past_a_huge_line() -> None:
    """The window is looked for in a section's first lines (8,000 characters); when the
    question's words are only further on (a 120 KB generated line before them), the
    snippet is cut where they are, not the section's heading alone."""
    from docmentor.search.analyzer import analyze
    from docmentor.search.ranking import snippet

    text = "# Long lines\n\n" + "lorem " * 20_000 + "narwhal\n\n## After long\nshort line with ocelot\n"
    got = snippet(text, set(analyze("ocelot")))
    assert "ocelot" in got and got.startswith("## After long"), got
    inside = "# Long\n\n" + "lorem " * 20_000 + "the okapi hides here " + "ipsum " * 1_000 + "\n"
    got = snippet(inside, set(analyze("okapi")))
    assert got.startswith("…") and "okapi" in got and len(got) <= 330, got
    assert snippet(text, set(analyze("giraffe"))).startswith("# Long lines")  # no term: as before


def test_a_snippet_shows_the_name_asked_for_past_the_first_lines() -> None:
    """A long changelog names ``abandon_on_cancel`` once, past its first 8,000 characters,
    and says "cancel" on every screen: the snippet is where the name is (the line holding more
    of the query), not the first line about cancelling."""
    from docmentor.search.analyzer import analyze_query
    from docmentor.search.ranking import snippet

    entry = "- Fixed cancel scopes not propagating on exit (#{n})\n"
    text = "# Version history\n\n" + "".join(entry.format(n=n) for n in range(200))
    text += "- Call ``run_sync()`` using the ``abandon_on_cancel`` keyword argument\n"
    text += "".join(entry.format(n=n) for n in range(200, 260))
    assert text.index("abandon_on_cancel") > 8_000
    terms = {t for t, _ in analyze_query("abandon_on_cancel")}
    assert "abandon_on_cancel" in snippet(text, terms)
    # a word asked for that the text never holds changes nothing
    assert "(#0)" in snippet(text, {t for t, _ in analyze_query("cancel giraffe")})


def test_a_snippet_shows_headings_without_their_attr_list() -> None:
    """FastAPI writes `## Docker Cache { #docker-cache }`: the snippet shows the heading as a
    reader sees it; braces in prose and code stay. TanStack Router's marker comments
    (`<!-- ::start:framework -->`) are not shown either."""
    from docmentor.search.analyzer import analyze
    from docmentor.search.ranking import snippet

    short = "## Docker Cache { #docker-cache }\n\nCopy `requirements.txt` first: {a} stays.\n"
    assert snippet(short, set(analyze("docker cache"))) == (
        "## Docker Cache\n\nCopy `requirements.txt` first: {a} stays."
    )
    marked = "## Blocking\n\n<!-- ::start:framework -->\nUse `useBlocker` to stop a navigation.\n<!-- ::end:framework -->\n"
    assert (
        snippet(marked, set(analyze("useBlocker"))) == "## Blocking\n\nUse `useBlocker` to stop a navigation."
    )
    import time

    from docmentor.search.ranking import _as_read

    started = time.perf_counter()
    _as_read("<!--" + "-x" * 100_000 + "\n{a}\n")  # an unclosed comment: linear
    assert time.perf_counter() - started < 1
    # inside a code block, lines are shown as written
    code = "## Page {#p}\n\n```html\n<!-- your content here -->\n# not a heading {#x}\n```\n"
    assert _as_read(code) == "## Page\n\n```html\n<!-- your content here -->\n# not a heading {#x}\n```"
    # a reST role as Sphinx shows it, in prose; code keeps what it says
    rst = "Caches\n======\n\nSimilar to :class:`~cachetools.TTLCache`, see :func:`cached`.\n\n```rst\n:class:`X`\n```\n"
    assert (
        _as_read(rst) == "Caches\n======\n\nSimilar to `TTLCache`, see `cached`.\n\n```rst\n:class:`X`\n```"
    )
    long = "# Deploy\n\n" + "filler words here\n" * 40 + "### Docker Cache {#cache}\n\nThe cache layer.\n"
    got = snippet(long, set(analyze("docker cache layer")))
    assert "### Docker Cache\n" in got and "{#cache}" not in got, got
    # MkDocs tabs and admonitions read as their labels and titles (the Textual and DRF tours)
    # (their bodies dedented under them: left indented, the body read as an indented code block,
    # a mkdocs-material tour)
    boxed = '## Install\n\n=== "pip"\n\n    pip install x\n\n!!! warning "Pin it"\n    Pin.\n\n??? tip\n    Tip.\n'
    assert _as_read(boxed) == "## Install\n\npip\n\npip install x\n\nPin it\nPin.\n\nTip\nTip."
    nested = (
        '!!! note "Outer"\n\n    Outer text.\n\n    === "npm"\n\n        ```bash\n        npm i x\n        ```\n\n'
        "    Back in the outer box.\n\nAfter the boxes.\n\n    indented code after them\n"
    )
    assert _as_read(nested) == (
        "Outer\n\nOuter text.\n\nnpm\n\n```bash\nnpm i x\n```\n\nBack in the outer box.\n\n"
        "After the boxes.\n\n    indented code after them"
    )
    listed = '- Install it:\n\n    === "pip"\n\n        pip install x\n'  # a box in a list item
    assert _as_read(listed) == "- Install it:\n\n    pip\n\n    pip install x"
    assert _as_read("a === b !!! c") == "a === b !!! c"
    started = time.perf_counter()
    _as_read("!!! note" + " " * 50_000 + "!\n=== " + " " * 50_000 + "x\n")  # linear
    assert time.perf_counter() - started < 1
    # a link's destination (`[cite]: https://…`, the DRF tour) is not on the page either
    cited = "## Throttling\n\nLimit the rate [of requests][cite].\n\n[cite]: https://example.org/throttle\n"
    assert _as_read(cited) == "## Throttling\n\nLimit the rate [of requests][cite]."


def test_a_snippet_shows_prose_without_its_tags_and_headings_without_badges() -> None:
    """The Starlette and Vitest tours: snippets showed `<p align="center">`, `<div
    style="padding: 1.5rem">` and `## test.override <Version>4.1.0</Version>`. Prose reads
    without its tags (a line of only tags is left out, their text stays), a heading without
    its components' badges; code blocks and code spans as written; linear on long lines."""
    import time

    from docmentor.search.ranking import _as_read

    page = (
        '## test.override <Version>4.1.0</Version>\n\n<p align="center">\n  <img src="/x.svg">\n</p>\n\n'
        "Set a <b>fixture</b> with `<Fixture>` when a < b.\n\n"
        '<div style="padding: 1.5rem"><h3>Silver Sponsor</h3>\n\n'
        "```html\n<div>kept</div>\n```\n"
    )
    assert _as_read(page) == (
        "## test.override\n\nSet a fixture with `<Fixture>` when a < b.\n\nSilver Sponsor\n\n"
        "```html\n<div>kept</div>\n```"
    )
    assert _as_read("a < b and c > d") == "a < b and c > d"
    # a line indented four or more may be code (indented code, a reST literal block): as written
    assert _as_read("Template:\n\n    <ul>\n      <li>{{ a }}</li>\n    </ul>") == (
        "Template:\n\n    <ul>\n      <li>{{ a }}</li>\n    </ul>"
    )
    started = time.perf_counter()
    _as_read("## a " + "<A>" * 20_000 + "x" * 20_000 + "\n" + "<b " * 30_000 + "\n" + "y  " * 30_000 + "<i>")
    assert time.perf_counter() - started < 1


def test_a_snippet_starts_at_its_paragraph_and_shows_code_as_code() -> None:
    """A uv docs tour: snippets began mid-sentence ("also set the equivalent", the subject
    two lines up) and 32 of 194 held an unbalanced code fence. The window starts at the
    paragraph of its best line (a few lines back at most), and a window that starts or ends
    inside a code block shows its fences."""
    from docmentor.search.analyzer import analyze
    from docmentor.search.ranking import snippet

    filler = "Unrelated words about other things go here.\n" * 12
    wrapped = (
        f"# Resolution\n\n{filler}\nIf you use exclude-newer to keep to older\nreleases, you may "
        "also set the equivalent\ncooldown per package.\n\nMore text.\n"
    )
    got = snippet(wrapped, set(analyze("cooldown package")))
    assert got.startswith("If you use exclude-newer"), got
    # a list item is a paragraph of its own: the item before is not pulled in
    items = f"# Flags\n\n{filler}\n- `--first` does one thing\n- `--cooldown` waits a\n  while per package\n"
    got = snippet(items, set(analyze("cooldown package")))
    assert got.startswith("- `--cooldown` waits a"), got
    # a window that starts inside a code block opens it; one that ends inside closes it
    code = "# Install\n\n" + filler + "```bash\n" + "".join(f"echo line {n}\n" for n in range(20))
    code += 'eval "$(uv generate-shell-completion zsh)"\n' + "".join(f"echo more {n}\n" for n in range(40))
    code += "```\n"
    got = snippet(code, set(analyze("generate shell completion")))
    assert got.startswith("```bash\n") and got.endswith("\n```"), got
    assert got.count("```") == 2 and "generate-shell-completion" in got
    # a block the window would only open is left out (an empty code block, a bare `:::note`),
    # and code keeps its first line's indentation (a redux-toolkit tour)
    tail = (
        f"# Store\n\n{filler}\nConfigure the store with `reducer` here.\n\n```js\n"
        + "x = '"
        + "a" * 400
        + "'\n```\n"
    )
    got = snippet(tail, set(analyze("configure store reducer")))
    assert "```" not in got and got.endswith("`reducer` here."), got
    note = f"# Notes\n\n{filler}\nThe reducer runs here.\n\n:::note\n\n" + "Long note text. " * 40 + "\n:::\n"
    got = snippet(note, set(analyze("reducer runs")))
    assert ":::note" not in got, got
    rust = "# Maps\n\nCreate a map with the constructor:\n\n```rust\nlet m = HashMap::new();\n"
    rust += "let v = Vec::new();\n" * 30 + "```\n"
    got = snippet(rust, set(analyze("create map constructor")))
    assert "HashMap::new()" in got and got.endswith("Vec::new();\n```"), got  # code with `::` is code
    # past the first 8,000 characters too (review)
    far = "# Long\n\n```python\n" + "x = 1\n" * 2_000 + "okapi_call()\n" + "y = 2\n" * 100 + "```\n"
    got = snippet(far, set(analyze("okapi_call")))
    assert "okapi_call()" in got and got.startswith("```python\n") and got.endswith("\n```"), got
    nested = "# Code\n\n```js\n" + "".join(f"const v{n} = {n}\n" for n in range(30))
    nested += "\n    initialState: todos,\n" + "".join(f"// c{n}\n" for n in range(30)) + "```\n"
    got = snippet(nested, set(analyze("initialState todos")))
    assert got.startswith("```js\n    initialState: todos,\n"), got


def test_a_snippet_holds_its_best_line_even_when_a_short_line_opens_its_paragraph() -> None:
    """A Vite tour: a short first line (`::: tip NOTE`, "Short first line") right above a long
    line made a snippet of that first line only: the long line, which held the query's
    words, did not fit the window and was dropped whole. It is shown, cut at the window."""
    from docmentor.search.analyzer import analyze
    from docmentor.search.ranking import snippet

    long = "The zanzibar widget controls how frobnication is performed when the pipeline runs. " * 6
    for opener in ("::: tip NOTE", "Short first line"):
        page = f"# Snip\n\n## Part\n\n{opener}\n{long}\n:::\n"
        got = snippet(page, set(analyze("zanzibar widget frobnication")))
        assert "zanzibar widget" in got and got.endswith("…"), got
        assert len(got) <= 320, len(got)  # the window


def test_a_snippet_under_a_heading_shows_the_long_line_below_it() -> None:
    """A Pinia tour: the best line was the heading and the paragraph under it was one line longer
    than the window, so the snippet was the heading alone (`## TypeScript`). The paragraph is
    shown, cut at the window; in reST too, where the title's adornment is no paragraph."""
    from docmentor.search.analyzer import analyze
    from docmentor.search.ranking import snippet

    para = "Stores infer their types from the state you return, so no annotation is needed. " * 6
    got = snippet(f"## TypeScript\n\n{para}\n", set(analyze("typescript")))
    assert got.startswith("## TypeScript\n\nStores infer") and got.endswith("…"), got
    got = snippet(f"TypeScript\n==========\n\n{para}\n", set(analyze("typescript")), rest=True)
    assert got.startswith("TypeScript\n\nStores infer") and got.endswith("…"), got
    # a short line under the heading: the window ends before the long one, as before
    assert (
        snippet(f"## TypeScript\n\nShort.\n\n{para}\n", set(analyze("typescript")))
        == "## TypeScript\n\nShort."
    )


def test_which_pages_record_changes() -> None:
    """Changelogs, release notes and release announcements; not a migration guide, nor a page
    on how to release (review: ``release.md``), and a version's ``v`` is no word."""
    from docmentor.library.examples.drift import historical_page
    from docmentor.search.ranking import history_page

    for path in ("CHANGES.rst", "docs/changelog.md", "history/changelog-1.0.rst", "announce/release-2.3.5.rst",
                 "release-notes.md", "release-notes/v2.0.md", "HISTORY.rst", "whats-new.md",
                 # two words run together (a typeguard tour: anyio's and typeguard's pages)
                 "versionhistory.rst", "releasenotes.md", "docs/releasehistory.rst"):  # fmt: skip
        assert history_page(path), path
        assert historical_page(path), path  # drift's: old calls there are shown on purpose
    for path in ("docs/migration.md", "release.md", "docs/guide/timeouts.md", "upgrading.rst",
                 "version.md", "docs/versioning.md", "conversion.md", "renewal.md"):  # fmt: skip
        assert not history_page(path), path


def test_a_label_line_is_not_shown_in_a_snippet_nor_a_digest() -> None:
    """A SQLAlchemy tour: snippets and digests kept `.. _tutorial_inserting_orm:` lines; a
    label is a link target (reST `.. _x:`, MyST `(x)=`), nothing a reader of the page sees."""
    from docmentor.assemble.blocks import prepare
    from docmentor.assemble.models import Candidate
    from docmentor.search.ranking import snippet

    text = ".. _tutorial_x:\n\nInserting\n---------\n\n(my-label)=\nUse :class:`~sqlalchemy.Insert` here.\n"
    assert snippet(text, {"insert"}) == "Inserting\n---------\n\nUse `Insert` here."
    c = Candidate(1, 1, "s", "a.rst", "", "A", "Inserting", ["Inserting"], "inserting", 1, 7, text, 1.0)
    shown = prepare(c, None).body
    assert "tutorial_x" not in shown and "my-label" not in shown and "Insert" in shown


def test_a_comment_over_several_lines_is_not_shown_in_a_snippet_nor_a_digest() -> None:
    """A Pinia tour: the first snippet for "how do actions work" was the heading and a
    commented-out `<VueSchoolLink …/>` over three lines, with no prose. A comment over several
    lines is not on the page: not shown; one that never closes, or text after its end, is
    shown as written, and so is a comment in code."""
    from docmentor.assemble.blocks import prepare
    from docmentor.assemble.models import Candidate
    from docmentor.search.ranking import snippet

    text = (
        '# Actions\n\n<!--\n<VueSchoolLink href="x" title="Learn actions" />\n-->\n\n'
        "Actions are the methods of a store.\n\n```html\n<!--\nkept in code\n-->\n```\n"
    )
    got = snippet(text, {"action"}, size=2000)
    assert "VueSchoolLink" not in got and "Actions are the methods" in got and "kept in code" in got, got
    c = Candidate(1, 1, "s", "a.md", "", "A", "Actions", ["Actions"], "actions", 1, 12, text, 1.0)
    shown = prepare(c, None).body
    assert "VueSchoolLink" not in shown and "Actions are the methods" in shown and "kept in code" in shown
    assert "never closed" in snippet("# A\n\n<!--\nnever closed, a reader sees it\n", {"closed"})


def test_a_rest_snippet_reads_titles_as_titles_and_its_lines_keep_their_indentation(tmp_path: Path) -> None:
    """A Flask tour: a reST title underlined with `~` opened a "code fence" in the snippet (the
    title dropped, the text fenced as code, its roles raw); a window starting on an indented
    line lost that line's indentation only (`location / {` flush left over lines indented 12)."""
    from docmentor.search.analyzer import analyze
    from docmentor.search.ranking import snippet

    filler = "Unrelated words about other things go here.\n" * 12
    page = (
        f"Security\n========\n\n{filler}\nSet-Cookie options\n~~~~~~~~~~~~~~~~~~\n"
        "Set :data:`SESSION_COOKIE_SAMESITE` on the session cookie.\n\nMore.\n"
    )
    got = snippet(page, set(analyze("samesite session cookie")), rest=True)
    assert got == "Set-Cookie options\nSet `SESSION_COOKIE_SAMESITE` on the session cookie.\n\nMore.", got
    # a window inside an indented block: all its lines dedented together
    item = f"# Steps\n\n{filler}\n1. Start\n\n    Run the zanzibar command first.\n    Then check it.\n"
    got = snippet(item, set(analyze("zanzibar command")))
    assert got == "Run the zanzibar command first.\nThen check it.", got
    # one that runs out of the block keeps the block's indentation
    block = f"Errors\n======\n\n{filler}\n.. code-block:: text\n\n    RuntimeError: outside of zanzibar context.\n\n"
    block += "    Attempted to use it.\n\nThis happens in tests.\n"
    got = snippet(block, set(analyze("zanzibar context")), rest=True)
    assert got.startswith(
        "    RuntimeError: outside of zanzibar context.\n\n    Attempted to use it.\n\nThis"
    ), got

    docs = tmp_path / "docs"
    docs.mkdir()
    long = "Filler sentence about routing and other topics here.\n" * 30
    (docs / "web.rst").write_text(
        f"Web\n===\n\n{long}\nSet-Cookie options\n~~~~~~~~~~~~~~~~~~\n\n"
        "Set :data:`SESSION_COOKIE_SAMESITE` on the session cookie to limit it.\n\n" + long,
        encoding="utf-8",
    )
    with Docmentor(tmp_path / "db", create=True, embeddings=False) as eng:
        eng.add(str(docs), name="web")
        hit = eng.search("samesite session cookie", limit=1)[0]
        assert "~~~" not in hit.snippet and "```" not in hit.snippet, hit.snippet
        assert "`SESSION_COOKIE_SAMESITE`" in hit.snippet, hit.snippet
        found = eng.excerpt("web.rst", "samesite session cookie", context_chars=200)["excerpts"][0]
        assert "~~~" not in found["text"] and "```" not in found["text"], found
        assert "`SESSION_COOKIE_SAMESITE`" in found["text"], found


def test_a_window_that_starts_in_a_box_and_leaves_it_reads_as_the_page_shows_it() -> None:
    """A review: a window starting in a `=== "pip"` tab's body and running into the next tab
    showed its first line at the margin and the body's fence indented (literal backticks)."""
    from docmentor.search.analyzer import analyze
    from docmentor.search.ranking import snippet

    filler = "Unrelated words about other things go here.\n" * 12
    page = (
        f'# Install\n\n{filler}\n=== "pip"\n\n    Install frobnicate with pip and then configure the zanzibar option.\n\n'
        '    ```bash\n    pip install frobnicate\n    ```\n\n=== "conda"\n\n    conda install frobnicate\n'
    )
    assert snippet(page, set(analyze("zanzibar frobnicate pip"))) == (
        "Install frobnicate with pip and then configure the zanzibar option.\n\n```bash\npip install frobnicate\n```"
        "\n\nconda\n\nconda install frobnicate"
    )


def test_a_rest_snippet_keeps_indented_lines_that_look_like_underlines() -> None:
    """A review: a docstring's quotes, `...` and YAML's `---` inside a literal block were
    dropped as title underlines; a title is never indented."""
    from docmentor.search.ranking import _as_read

    text = (
        "Reading\n=======\n\n.. code-block:: python\n\n    def read(n):\n        '''\n        Read n bytes.\n"
        "        '''\n        ...\n\n.. code-block:: yaml\n\n    ---\n    key: 1\n    ---\n"
    )
    assert _as_read(text, rest=True) == (
        "Reading\n\n.. code-block:: python\n\n    def read(n):\n        '''\n        Read n bytes.\n"
        "        '''\n        ...\n\n.. code-block:: yaml\n\n    ---\n    key: 1\n    ---"
    )
