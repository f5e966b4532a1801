"""Hybrid search: section embeddings blended with the lexical ranking (issue 18).

The fixture pages in ``fixtures/hybrid`` were written for these tests (Apache-2.0, as the
project). The real MiniLM model runs: nothing is faked but what counts its calls.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docmentor.embeddings import Embedder
from docmentor.engine import Docmentor
from docmentor.search.config import RankingConfig
from docmentor.search.units import build_units

FIXTURE = Path(__file__).parent / "fixtures" / "hybrid"
LEXICAL = RankingConfig(semantic_weight=0.0)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def embedded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The fixture pages indexed and embedded, on each backend (the embedded index; PostgreSQL,
    whose nearest units come from pgvector); the tests only read it."""
    if request.param == "postgres":
        db = str(request.getfixturevalue("module_postgres_url"))
    else:
        db = str(tmp_path_factory.mktemp("hybrid") / "db")
    engine = Docmentor(db, embeddings=True)
    report = engine.add(FIXTURE, name="fx")
    assert report.embedding is not None and report.embedding.pending == 0
    # 17 sections, 10 units: the 7 pages' titles, nothing of their own, open their sections
    assert (report.sections, report.embedding.embedded) == (17, 10)
    engine.close()
    return db


@pytest.fixture
def at(embedded: str) -> Iterator[Callable[..., Docmentor]]:
    """Opens the ``embedded`` index with the given engine options; closed after the test."""
    engines: list[Docmentor] = []

    def open_engine(**options: Any) -> Docmentor:
        engines.append(Docmentor(embedded, **options))
        return engines[-1]

    yield open_engine
    for engine in engines:
        engine.close()


def count(engine: Docmentor, sql: str) -> int:
    return int(engine.store.conn().execute(sql).fetchone()[0])


def _top(engine: Docmentor, query: str) -> str:
    hits = engine.search(query, limit=3)
    return hits[0].heading


@pytest.mark.parametrize(
    "query",
    [
        "avoid duplicate records on insert",
        "leave existing records untouched when adding new ones",
    ],
)
def test_meaning_finds_what_words_miss(at: Callable[..., Docmentor], query: str) -> None:
    # the words point at "Skipping records"; the answer says it in other words
    assert _top(at(ranking=LEXICAL, embeddings=True), query) == "Skipping records"
    assert _top(at(embeddings=True), query) == "Insert if not exists"


def test_a_ranking_passed_to_search_is_the_one_the_blend_uses(at: Callable[..., Docmentor]) -> None:
    # search(ranking=...) replaces the engine's query-time constants, the semantic ones too
    engine = at(embeddings=True)
    query = "avoid duplicate records on insert"
    assert engine.search(query, limit=3)[0].heading == "Insert if not exists"
    assert engine.search(query, limit=3, ranking=LEXICAL)[0].heading == "Skipping records"


def test_words_still_decide_identifier_questions(at: Callable[..., Docmentor]) -> None:
    # an error code means nothing to the model: the exact match keeps the first place
    hybrid = at(embeddings=True)
    for query in ("E1205", "pool_recycle", "max_keepalive"):
        lexical_first = _top(at(ranking=LEXICAL, embeddings=True), query)
        assert _top(hybrid, query) == lexical_first
    hits = hybrid.search("what does E1205 mean", limit=3)
    assert hits[0].heading == "Error codes"


def test_a_question_nothing_is_about_finds_nothing(at: Callable[..., Docmentor]) -> None:
    # no page holds the word, and no page is near it in meaning: the nearest unit (cosine ~0.2)
    # is no answer, though it is the best the embeddings have (it used to come first, scored 1)
    hybrid = at(embeddings=True)
    for query in ("blorptang wibblequx", "flibbertigibbet"):
        assert hybrid.search(query, limit=5) == []
    # with both guards off the nearest units come back (the raw cosine's floor alone sufficed
    # while the pages' bare titles, nearest to anything, were units of their own)
    unguarded = RankingConfig(semantic_only_cosine=-1.0, semantic_only_min=0.0)
    assert at(ranking=unguarded, embeddings=True).search("blorptang wibblequx", limit=5)


def test_words_decide_where_meaning_alone_barely_tells(at: Callable[..., Docmentor]) -> None:
    # the English model reads Chinese as near-unknown pieces: by meaning alone the pool and
    # timeout pages are within a few hundredths for "connection pool" and "connection count"
    # (while the pages' bare titles were units of their own, the timeout page even came first
    # on CPUs with AVX-512 VNNI); the blend puts the page that holds the words far ahead
    meaning_only = at(ranking=RankingConfig(semantic_weight=1.0), embeddings=True)
    hybrid = at(embeddings=True)
    for query in ("连接池", "连接数"):
        best: dict[str, float] = {}
        for hit in meaning_only.search(query, limit=10):
            best.setdefault(hit.path, hit.score)
        assert abs(best["zh-pool.md"] - best["zh-timeout.md"]) < 0.1
        blended = {h.path: h.score for h in reversed(hybrid.search(query, limit=10))}
        assert max(blended, key=blended.__getitem__) == "zh-pool.md"
        assert blended["zh-pool.md"] - blended["zh-timeout.md"] > 0.3


def test_units_found_by_meaning_keep_their_words_score(at: Callable[..., Docmentor]) -> None:
    # a unit just below the lexical pool, found again by meaning, is scored by its words as
    # the lexical search scores it (it used to count as 0: as if no query word were in it)
    engine = at(embeddings=True)
    index = engine._lexical_to_read()
    assert index is not None
    terms = engine.query_terms("records insert duplicate key", index)
    ranked = index.search(terms, limit=50)
    assert len(ranked) >= 3
    for hit in ranked[1:]:
        sid = int(hit.fields["section_id"])
        (again,) = index.units([sid], terms=terms)
        assert again.score == pytest.approx(hit.score)
        assert again.fields["s_heading"] == hit.fields["s_heading"]
        (bare,) = index.units([sid])
        assert bare.score == 0.0


def test_no_embeddings_is_the_lexical_ranking(at: Callable[..., Docmentor]) -> None:
    off = at(embeddings=False)
    lexical = at(ranking=LEXICAL, embeddings=True)
    for query in ("avoid duplicate records on insert", "reuse sockets"):
        assert [h.section_id for h in off.search(query)] == [h.section_id for h in lexical.search(query)]
    assert off.embed().skipped == "embeddings are turned off"


def test_sources_count_embedded_units(at: Callable[..., Docmentor]) -> None:
    (row,) = at(embeddings=True).sources()
    assert row["units"] == row["embedded"] > 0


def test_unchanged_sections_are_not_embedded_again(
    tmp_path: Path, index_location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts: list[str] = []
    real = Embedder.embed

    def counting(
        self: Embedder,
        batch: list[str],
        *,
        progress: Callable[[int], None] | None = None,
        max_tokens: int | None = None,
    ) -> np.ndarray:
        texts.extend(batch)
        return real(self, batch, progress=progress, max_tokens=max_tokens)

    monkeypatch.setattr(Embedder, "embed", counting)
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURE, folder)
    engine = Docmentor(index_location, embeddings=True)
    first = engine.add(folder, name="docs")
    assert (
        first.embedding is not None and len(texts) == first.embedding.embedded == 10
    )  # 17 sections: the titles open them
    texts.clear()
    # one section changes, one page is new: only their units are embedded
    page = folder / "pool.md"
    page.write_text(page.read_text().replace("idle ones kept", "idle connections kept"))
    (folder / "new.md").write_text("# Retries\n\n## Backoff\n\nWait twice as long after each failed call.\n")
    (second,) = engine.refresh("docs")
    assert second.embedding is not None
    # "Pool size", and the new page's section (its title opens it and is no unit)
    assert len(texts) == second.embedding.embedded == 2, texts
    assert any("idle connections kept" in t for t in texts)
    texts.clear()
    (third,) = engine.refresh("docs")
    assert texts == [] and third.embedding is not None and third.embedding.embedded == 0
    # vectors of sections that went away are collected (in pgvector's table too)
    n_units = count(engine, "SELECT COUNT(DISTINCT hash) FROM search_units")
    assert count(engine, "SELECT COUNT(*) FROM unit_vectors") == n_units
    if index_location.startswith("postgresql:"):
        assert count(engine, "SELECT COUNT(*) FROM unit_embeddings") == n_units
    engine.close()


def test_search_during_embedding_never_errors(index_location: str, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(12):  # ~240 sections: a few seconds of embedding
        (folder / f"page{i}.md").write_text(
            f"# Page {i}\n\n"
            + "".join(
                f"## Topic {i}-{k}\n\nHow to configure option{k} of service{i}: set it before the "
                f"first request, or call reset{k}() to clear retries and timeouts.\n\n"
                for k in range(20)
            )
        )
    engine = Docmentor(index_location, embeddings=True)
    engine.add(folder, name="docs", embed=False)  # searchable by words, nothing embedded
    assert engine.sources()[0]["embedded"] == 0
    assert engine.search("configure option3 of service5")  # no vectors: lexical, no model needed
    errors: list[BaseException] = []
    done = threading.Event()

    def embed() -> None:
        try:
            with closing(Docmentor(index_location, embeddings=True)) as other:
                other.embed()
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=embed)
    worker.start()
    searches = 0
    while not done.is_set():
        hits = engine.search("configure option3 of service5", limit=5)
        assert hits and hits[0].path.startswith("page")
        searches += 1
    worker.join()
    assert not errors
    assert searches > 5
    row = engine.sources()[0]
    assert row["embedded"] == row["units"]
    assert engine.search("configure option3 of service5", limit=1)[0].path == "page5.md"
    engine.close()


def test_a_kill_during_embedding_leaves_a_searchable_index(tmp_path: Path) -> None:
    # Embedded only: it watches the index's SQLite file for the first vector (64 sections a
    # commit) and kills the add before its last (test_search_during_embedding_never_errors runs
    # on both backends).
    folder = tmp_path / "docs"
    folder.mkdir()
    filler = "The report lists every check that ran, how long it took and what it found. " * 2
    # 480 units of ~50 tokens (504 sections: the titles open their steps): ~1 s of embedding on a CPU with AVX-512 VNNI, ~8 s on two busy
    # cores without it (the model's time grows with a text's tokens; 128-token sections took
    # ~50 s for this test there), so the kill lands between the first commit and the last
    for i in range(24):
        (folder / f"guide{i}.md").write_text(
            f"# Guide {i}\n\n"
            + "".join(
                f"## Step {i}.{k}\n\nRun task{k} on node{i} and wait for its report. {filler}\n\n"
                for k in range(20)
            )
        )
    db = tmp_path / "db"
    env = {**os.environ, "DOCMENTOR_EMBEDDINGS": "1"}
    cli = [sys.executable, "-m", "docmentor", "--db", str(db)]
    log = (tmp_path / "add.log").open("w")
    proc = subprocess.Popen([*cli, "add", str(folder), "--name", "docs"], env=env, stderr=log)
    index = db / "index.sqlite3"
    deadline = time.monotonic() + 120
    embedded = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if index.exists():
            try:
                con = sqlite3.connect(index, timeout=1)
                embedded = con.execute("SELECT COUNT(*) FROM unit_vectors").fetchone()[0]
                con.close()
            except sqlite3.OperationalError:
                embedded = 0
            if embedded:
                break
        time.sleep(0.05)
    log.close()
    assert proc.poll() is None, (tmp_path / "add.log").read_text()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    found = subprocess.run(
        [*cli, "search", "task7 node12", "--json"], env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["path"] == "guide12.md"
    listed = json.loads(
        subprocess.run([*cli, "sources", "--json"], env=env, capture_output=True, text=True).stdout
    )
    (row,) = listed["sources"]
    assert 0 < row["embedded"] < row["units"] == 480
    refreshed = subprocess.run([*cli, "refresh", "--json"], env=env, capture_output=True, text=True)
    assert refreshed.returncode == 0, refreshed.stderr
    report = json.loads(refreshed.stdout)
    assert report["embedding"]["pending"] == 0
    assert report["embedding"]["embedded"] == 480 - row["embedded"]


def test_no_embeddings_never_loads_the_model(index_location: str) -> None:
    code = (
        "import sys; from docmentor.cli import main\n"
        f"db = {index_location!r}\n"
        f"assert main(['--no-embeddings', '--db', db, 'add', {str(FIXTURE)!r}, '--name', 'fx']) == 0\n"
        "assert main(['--no-embeddings', '--db', db, 'search', 'avoid duplicate records']) == 0\n"
        "assert 'onnxruntime' not in sys.modules, 'the model was loaded'\n"
    )
    env = {**os.environ, "DOCMENTOR_EMBEDDINGS": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with closing(Docmentor(index_location, embeddings=False)) as engine:
        assert count(engine, "SELECT COUNT(*) FROM unit_vectors") == 0


def test_env_and_config_turn_embeddings_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DOCMENTOR_EMBEDDINGS")
    assert Docmentor(tmp_path / "a").embeddings is True
    (tmp_path / "docmentor.toml").write_text("embeddings = false\n")
    assert Docmentor(tmp_path / "b").embeddings is False
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "1")
    assert Docmentor(tmp_path / "c").embeddings is True


def test_a_server_searches_by_words_until_the_model_is_loaded(at: Callable[..., Docmentor]) -> None:
    engine = at(embeddings=True)
    engine.wait_for_model = False
    import docmentor.embeddings as emb

    loaded = dict(emb._shared)
    emb._shared.clear()  # as a new process: the model not loaded yet
    try:
        first = engine.search("avoid duplicate records on insert", limit=1)
        assert first[0].heading == "Skipping records"  # by words, without waiting (model_wait 0)
        deadline = time.monotonic() + 60
        while not emb.embedder_loaded() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (
            engine.search("avoid duplicate records on insert", limit=1)[0].heading == "Insert if not exists"
        )
    finally:
        emb._shared.update(loaded)


def test_a_servers_first_search_waits_a_moment_for_the_model_it_is_loading(
    at: Callable[..., Docmentor],
) -> None:
    """An MCP tour: the agent's first question, asked right after the server started, was
    answered by words while the model loaded (~1 s), and the same question asked again got
    another first result. The server waits ``model_wait`` seconds for the load under way."""
    engine = at(embeddings=True)
    engine.wait_for_model = False
    engine.model_wait = 120.0  # the test's bound; the server's is MODEL_WAIT_SECONDS
    import docmentor.embeddings as emb

    loaded = dict(emb._shared)
    emb._shared.clear()  # as a new process: the model not loaded yet
    try:
        first = engine.search("avoid duplicate records on insert", limit=1)
        assert first[0].heading == "Insert if not exists"  # by meaning, at the first question
    finally:
        emb._shared.update(loaded)


def test_near_duplicates_are_one_result(index_location: str, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    for framework in ("react", "vue", "solid"):
        page = folder / framework / "caching.md"
        page.parent.mkdir(parents=True)
        page.write_text(
            "# Caching\n\n## Stale time\n\n"
            f"In {framework}, data stays fresh for `staleTime` milliseconds; after that a query refetches "
            "when a component mounts, the window regains focus or the network reconnects. Set it per "
            "query or as a default of the client.\n"
        )
    (folder / "other.md").write_text("# Polling\n\n## Interval\n\nRefetch every `refetchInterval` ms.\n")
    engine = Docmentor(index_location, embeddings=False)
    engine.add(folder, name="docs")
    hits = engine.search("how long does data stay fresh before a refetch", limit=5)
    fresh = [h for h in hits if h.heading == "Stale time"]
    assert len(fresh) == 1
    assert sorted(p["path"] for p in fresh[0].also) == sorted(
        p for p in ("react/caching.md", "vue/caching.md", "solid/caching.md") if p != fresh[0].path
    )
    assert fresh[0].to_dict()["also"]
    engine.close()
    off = Docmentor(index_location, ranking=RankingConfig(duplicate_jaccard=1.01), embeddings=False)
    assert (
        len(
            [
                h
                for h in off.search("how long does data stay fresh before a refetch", limit=5)
                if h.heading == "Stale time"
            ]
        )
        == 3
    )
    off.close()


def test_sections_sharing_a_long_code_block_but_not_their_prose_are_two_results(
    index_location: str, tmp_path: Path
) -> None:
    """FastAPI's steps each include one whole file (`{* app.py hl[…] *}`): the shared code
    made "Verify the scopes" a copy of "Use the scopes". Prose decides; framework editions of
    one step, whose prose is one and whose code differs, are still one result."""
    code = (
        "```python\n"
        + "".join(f"def handler_{i}(scopes, token, user):\n    return {i}\n" for i in range(300))
        + "```\n"
    )
    (tmp_path / "scopes.md").write_text(
        "# OAuth2 scopes\n\n## Use the scopes\n\nDeclare which scopes a path operation needs with a "
        "dependency that lists them; the client asks for them at login.\n\n" + code + "\n"
        "## Verify the scopes\n\nCheck every scope the token carries against those required, and "
        "refuse the request with a 401 when one is missing.\n\n" + code + "\n"
        "## Run it\n\nRun the app:\n\n" + code,
        encoding="utf-8",
    )
    for framework in ("react", "vue"):
        (tmp_path / framework).mkdir()
        (tmp_path / framework / "fresh.md").write_text(
            "# Caching\n\n## Stale time\n\nData stays fresh for `staleTime` milliseconds; after that a "
            "query refetches when a component mounts or the window regains focus.\n\n"
            f"```js\nuse{framework.title()}Query({{ staleTime: 1000, framework: '{framework}' }})\n```\n",
            encoding="utf-8",
        )
    engine = Docmentor(index_location, embeddings=False)
    try:
        engine.add(tmp_path, name="docs")
        headings = [h.heading for h in engine.search("verify the token scopes required", limit=5)]
        assert {"Use the scopes", "Verify the scopes"} <= set(headings), headings
        # a step whose prose is three words is no copy of one that says more around the same code
        run = [h for h in engine.search("run the app handler scopes token", limit=5) if h.heading == "Run it"]
        assert run and not any(
            p["heading"] == "Run it" for h in engine.search("scopes token", limit=5) for p in h.also
        )
        fresh = [
            h for h in engine.search("data fresh staleTime refetch", limit=5) if h.heading == "Stale time"
        ]
        assert len(fresh) == 1 and len(fresh[0].also) == 1
    finally:
        engine.close()


def test_also_does_not_depend_on_limit(index_location: str, tmp_path: Path) -> None:
    """The last result shown lists its copies as any other does: ``--limit 1`` gives the same
    ``also`` as ``--limit 5`` (a copy ranked after the last shown place is still its copy)."""
    page = "# Widgets\n\n## Removing a widget\n\nCall `WidgetGone()` to remove a widget for good.\n"
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "api.md").write_text(page, encoding="utf-8")
    for framework in ("react", "vue"):
        (tmp_path / "one" / framework).mkdir()
        (tmp_path / "one" / framework / "caching.md").write_text(
            "# Caching\n\n## Stale time\n\n"
            f"In {framework}, data stays fresh for `staleTime` milliseconds; after that a query refetches "
            "when a component mounts, the window regains focus or the network reconnects. Set it per "
            "query or as a default of the client.\n"
        )
    engine = Docmentor(index_location, embeddings=False)
    try:
        engine.add(tmp_path / "one", name="one")
        engine.add(tmp_path / "two", name="two")
        for query in ("WidgetGone remove a widget", "how long does data stay fresh before a refetch"):
            wide = engine.search(query, limit=5)[0]
            narrow = engine.search(query, limit=1)
            assert len(narrow) == 1 and narrow[0].path == wide.path
            assert narrow[0].also == wide.also and len(wide.also) == 1
    finally:
        engine.close()


def test_exact_copies_in_other_sources_are_listed_under_the_result(
    index_location: str, tmp_path: Path
) -> None:
    """The same page in two sources (a copy of a folder registered twice) is one result whose
    ``also`` names the other place, as a near-identical one would be: it does not vanish."""
    page = "# Widgets\n\n## Removing a widget\n\nCall `WidgetGone()` to remove a widget for good.\n"
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "api.md").write_text(page, encoding="utf-8")
    engine = Docmentor(index_location, embeddings=False)
    try:
        engine.add(tmp_path / "one", name="one")
        engine.add(tmp_path / "two", name="two")
        hits = [
            h
            for h in engine.search("WidgetGone remove a widget", limit=10)
            if h.heading == "Removing a widget"
        ]
        assert len(hits) == 1
        assert [(p["source"], p["path"], p["line_start"]) for p in hits[0].also] == [
            ({"one": "two", "two": "one"}[hits[0].source], "api.md", 3)
        ]
    finally:
        engine.close()


def test_tiny_sections_rank_with_their_parent() -> None:
    def row(sid: int, heading: str, level: int, path: list[str], text: str) -> dict[str, object]:
        return {
            "section_id": sid, "document_id": 1, "source": "s", "path": "api.md", "url": "u", "title": "API",
            "heading": heading, "heading_path": json.dumps(path), "level": level, "line_start": sid * 10,
            "line_end": sid * 10 + 5, "text": text, "indexed_at": "",
        }  # fmt: skip

    rows = [
        row(
            1,
            "MatchQuery",
            2,
            ["API", "MatchQuery"],
            "## MatchQuery\n\n" + "A full-text match on one column. " * 4,
        ),
        row(2, "Parameters", 3, ["API", "MatchQuery", "Parameters"], "### Parameters\n\n- query: str"),
        row(3, "Returns", 3, ["API", "MatchQuery", "Returns"], "### Returns\n\nMatchQuery"),
        row(4, "VectorQuery", 2, ["API", "VectorQuery"], "## VectorQuery\n\nNearest neighbours."),
        row(5, "Guide", 3, ["API", "VectorQuery", "Guide"], "### Guide\n\n" + "Search by vector. " * 10),
    ]
    units = list(build_units(rows, stub_chars=80))
    assert [(u.section_id, u.line_start, u.line_end) for u in units] == [
        (1, 10, 35),
        (4, 40, 45),
        (5, 50, 55),
    ]
    assert "query: str" in units[0].text and "### Returns" in units[0].text
    assert [u.section_id for u in build_units(rows, stub_chars=0)] == [1, 2, 3, 4, 5]
    # a short section that says something is no stub
    rows[1]["text"] = "### Parameters\n\nThe query to run."
    assert [u.section_id for u in build_units(rows, stub_chars=80)] == [1, 2, 3, 4, 5]


def test_ranking_config_is_documented() -> None:
    described = RankingConfig.describe()
    assert {d["name"] for d in described} >= {
        "semantic_weight",
        "length_pad",
        "parts_boost",
        "duplicate_jaccard",
    }
    assert all(d["why"] and d["measured_on"] for d in described)
    assert RankingConfig().index_signature() != RankingConfig(length_pad=0).index_signature()


def test_another_index_shape_rebuilds_the_lexical_index(index_location: str) -> None:
    engine = Docmentor(index_location, embeddings=False)
    engine.add(FIXTURE, name="fx")
    before = [h.heading for h in engine.search("max_connections")]
    engine.close()
    other = Docmentor(index_location, ranking=RankingConfig(stub_chars=0), embeddings=False)
    assert other.search("max_connections")[0].heading == before[0]
    assert other.store.get_setting("analyzer") == other.index_version
    other.close()


def test_excerpts_rank_by_meaning_too(at: Callable[..., Docmentor]) -> None:
    def first(embeddings: bool, question: str) -> list[str]:
        found = at(embeddings=embeddings).excerpt("writing.md", question, max_chunks=1)
        return [e["heading"] for e in found["excerpts"]]

    # get_doc_excerpt ranks a page's sections as search does: words, blended with meaning
    assert first(False, "ignore conflicting rows") == ["Overwriting rows"]
    assert first(True, "ignore conflicting rows") == ["Insert if not exists"]
    assert first(False, "duplicates are dropped") == []  # no word of it on the page
    assert first(True, "duplicates are dropped") == ["Insert if not exists"]
    # a made-up word is near no section, though one is the page's nearest by cosine
    assert first(True, "zzqqxx") == [] and first(False, "zzqqxx") == []


@pytest.mark.parametrize("value", ["maybe", "2", "offf"])
def test_a_wrong_embeddings_switch_is_an_error(tmp_path: Path, value: str) -> None:
    db = tmp_path / "db"
    env = {**os.environ, "DOCMENTOR_EMBEDDINGS": "0"}
    added = subprocess.run(
        [sys.executable, "-m", "docmentor", "--db", str(db), "add", str(FIXTURE), "--name", "fx"],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    env["DOCMENTOR_EMBEDDINGS"] = value
    done = subprocess.run(
        [sys.executable, "-m", "docmentor", "--db", str(db), "search", "pool"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: DOCMENTOR_EMBEDDINGS=") and done.stderr.count("\n") <= 2
    # the index is as it was
    env["DOCMENTOR_EMBEDDINGS"] = "0"
    again = subprocess.run(
        [sys.executable, "-m", "docmentor", "--db", str(db), "search", "pool", "--json"],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert json.loads(again.stdout)["results"]


def test_a_wrong_embeddings_setting_in_the_config_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docmentor.errors import UsageError

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DOCMENTOR_EMBEDDINGS")
    (tmp_path / "docmentor.toml").write_text('embeddings = "no"\n')
    with pytest.raises(UsageError, match="embeddings must be true or false"):
        Docmentor(tmp_path / "db")


def test_an_mcp_server_embeds_in_the_background_and_answers_meanwhile(
    index_location: str, tmp_path: Path
) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    from mcptool import structured

    db = index_location
    with closing(Docmentor(db, embeddings=False)) as engine:
        engine.add(FIXTURE, name="fx")  # by words only, no vector yet
    env = {**os.environ, "DOCMENTOR_EMBEDDINGS": "1", "DOCMENTOR_HOME": str(tmp_path / "home")}
    env.pop("DOCMENTOR_DB", None)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "docmentor", "--db", db, "serve"], env=env, cwd=tmp_path
    )
    question = {"query": "avoid duplicate records on insert", "limit": 3}

    async def go() -> tuple[Any, Any, Any]:
        async with Client(params) as client:
            first = structured(await client.call_tool("search_docs", question))  # at once, by words
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                (row,) = structured(await client.call_tool("list_sources", {}))["sources"]
                if row["embedded"] == row["units"]:
                    break
                await anyio.sleep(0.2)
            later = structured(await client.call_tool("search_docs", question))
            return first, row, later

    first, row, later = anyio.run(go)
    assert first["results"]  # answered while nothing was embedded
    assert row["embedded"] == row["units"] > 0
    assert later["results"][0]["heading"] == "Insert if not exists"
    assert "also" in later["results"][0]


def test_add_and_refresh_of_one_source_embed_that_sources_sections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``add two`` and ``refresh two`` embed two's sections, not those ``one`` was added
    without (a user's choice, or a big source that would take minutes); ``refresh`` of every
    source embeds them. A text two sources share is one vector: the run names both."""
    from clitool import Cli

    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "page.md").write_text(
            f"# Page {name}\n\nAbout the {name} widget.\n", encoding="utf-8"
        )
    cli = Cli(tmp_path / "index", capsys)
    cli.ok("add", str(tmp_path / "one"), "--name", "one")  # embeddings off (the tests' default)
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "1")
    out = cli.ok("add", str(tmp_path / "two"), "--name", "two")
    assert "two: 1 search units embedded in" in out and "those of" not in out, out
    again = cli.json("refresh", "two")["embedding"]
    assert (again["embedded"], again["sources"]) == (0, [])
    counts = {s["name"]: (s["units"], s["embedded"]) for s in cli.json("sources")["sources"]}
    assert counts == {"one": (1, 0), "two": (1, 1)}, counts
    every = cli.json("refresh")["embedding"]
    assert (every["embedded"], every["sources"]) == (1, ["one"])
    # a page the two sources share is one vector for both: the run names both
    (tmp_path / "three").mkdir()
    shared = "# Shared page\n\nThe same words in two places.\n"
    for name in ("two", "three"):
        (tmp_path / name / "shared.md").write_text(shared, encoding="utf-8")
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "0")
    cli.ok("add", str(tmp_path / "three"), "--name", "three")
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "1")
    both = cli.json("refresh", "two")["embedding"]
    assert (both["embedded"], both["sources"]) == (1, ["three", "two"])
    (tmp_path / "two" / "page.md").write_text("# Page two\n\nAbout the new widget.\n", encoding="utf-8")
    report = cli.json("refresh", "two")["embedding"]
    assert report["sources"] == ["two"] and report["embedded"] >= 1


def _hit(score: float, doc: int, path: str, text: str) -> Any:
    from docmentor.search.lexical import LexicalHit

    fields = {"document_id": doc, "section_id": doc * 100 + int(score * 10), "s_path": path, "s_text": text}
    return LexicalHit(score=score, fields={**fields, "source": "fx", "line_start": 1, "line_end": 2})


def test_every_copy_of_a_result_is_listed_under_it() -> None:
    from docmentor.search.ranking import rank_hits

    words = " ".join(f"word{i}" for i in range(30))
    near = words + " and one more"  # Jaccard 30/33 with the first
    hits = [_hit(0.9, 1, "a.md", words), _hit(0.8, 2, "b.md", near), _hit(0.7, 3, "c.md", near)]
    (only,) = rank_hits(hits, [], limit=5, per_document=3, versions={}, fused=True, snippets=False)
    # b is near-identical to a, and c an exact copy of b: both are places of the one answer
    assert only.path == "a.md" and [p["path"] for p in only.also] == ["b.md", "c.md"]


def test_a_copy_answers_when_the_first_place_waits_behind_its_documents_cap() -> None:
    from docmentor.search.ranking import rank_hits

    hits = [
        _hit(3.0, 1, "a.md", "alpha text of the first section"),
        _hit(2.5, 1, "a.md", "beta text, the answer"),  # a.md's second section: over the cap of 1
        _hit(2.0, 2, "c.md", "beta text, the answer"),  # the same text in another document
        _hit(1.0, 3, "d.md", "delta text"),
    ]
    ranked = rank_hits(hits, [], limit=3, per_document=1, versions={}, fused=True, snippets=False)
    assert [(h.path, h.score) for h in ranked] == [("a.md", 3.0), ("c.md", 2.0), ("d.md", 1.0)]
    assert [p["path"] for p in ranked[1].also] == ["a.md"]


def test_a_documents_sections_over_the_cap_lead_the_next_window_of_results() -> None:
    from docmentor.search.ranking import rank_hits

    best = [_hit(10.0 - k / 10, 1, "guide.md", f"guide section {k} " * 3) for k in range(6)]
    rest = [_hit(5.0 - k / 10, 2 + k, f"page{k}.md", f"page {k} text " * 3) for k in range(30)]
    ranked = rank_hits(best + rest, [], limit=25, per_document=3, versions={}, fused=True, snippets=False)
    paths = [h.path for h in ranked]
    # three of the guide in the first ten, the other three lead the next ten: not after
    # every other page's section (a cap over the whole list: ranks 28-30, past the limit)
    assert paths[:3] == ["guide.md"] * 3 and "guide.md" not in paths[3:10]
    assert paths[10:13] == ["guide.md"] * 3 and paths[3:10] == [f"page{k}.md" for k in range(7)]
    assert paths[13:] == [f"page{k}.md" for k in range(7, 19)]
    # with one window as long as the list, the old rule: after every other document
    wide = RankingConfig(per_document_window=100)
    ranked = rank_hits(
        best + rest, [], limit=40, per_document=3, versions={}, fused=True, snippets=False, config=wide
    )
    assert [h.path for h in ranked][33:] == ["guide.md"] * 3


def test_add_and_refresh_report_before_the_embedding_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The words index is committed before the embedding run starts, so its report and the
    warnings (a skipped file) are printed then: a run stopped by Ctrl-C still said them."""
    from clitool import Cli

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.md").write_text("# Page\n\nAbout the widget.\n", encoding="utf-8")
    (docs / "blob.md").write_bytes(b"\x00\x01binary" * 50)

    def interrupted(self: Docmentor, **_: Any) -> None:
        raise KeyboardInterrupt  # what Ctrl-C does in the middle of the run

    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "1")
    monkeypatch.setattr(Docmentor, "embed", interrupted)
    cli = Cli(tmp_path / "index", capsys)
    rc, out, err = cli("add", str(docs), "--name", "d")
    assert rc == 130 and "interrupted while embedding" in err, (rc, out, err)  # as any Ctrl-C
    assert out.startswith("d: 1 document, 1 section (+1 new"), out
    assert "blob.md: skipped: binary file" in err and err.index("blob.md") < err.index("interrupted"), err
    (docs / "page.md").write_text("# Page\n\nAbout the gadget.\n", encoding="utf-8")
    rc, out, err = cli("refresh")
    assert rc == 130 and out.startswith("d: 1 document, 1 section (+0 new, 1 updated"), (rc, out, err)
    monkeypatch.setenv("DOCMENTOR_EMBEDDINGS", "0")
    assert "Page" in cli.ok("search", "gadget")  # searchable by words all along


def test_progress_off_a_terminal_is_a_line_now_and_then(capsys: pytest.CaptureFixture[str]) -> None:
    from docmentor.cli.app import plain_progress

    quiet = plain_progress(lambda _label: "embedding sections", every=3600)
    for done in range(5):
        quiet(done, 5, "x")
    assert capsys.readouterr().err == ""  # a short task says nothing
    chatty = plain_progress(lambda _label: "embedding sections", every=0)
    chatty(2, 5, "x")
    chatty(5, 5, "x")  # done: the report says the rest
    assert capsys.readouterr().err == "embedding sections: 2 of 5\n"


def test_a_query_of_code_names_ranks_by_words(index_location: str, tmp_path: Path) -> None:
    """``abandon_on_cancel`` is named once, in a changelog; the model reads it as "abandon on
    cancel", nearest to the sections about cancelling. A query made only of code names goes by
    its exact match (``RankingConfig.identifiers_by_words``); blended, the changelog was not in
    the top 3."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cancellation.md").write_text(
        "# Cancellation and timeouts\n\n## Cancelling a task\n\nCancel a running task by cancelling "
        "its scope. Cancellation is delivered at the next checkpoint.\n\n## Shielding from "
        "cancellation\n\nA shielded scope keeps cancellation out while cleanup runs, so on cancel the "
        "cleanup still finishes.\n\n## Timeouts\n\nA timeout cancels the scope when its deadline passes.\n"
    )
    entries = "".join(
        f"- Fixed a crash in the socket listener when the peer resets (#{n})\n" for n in range(40)
    )
    named = "- Call `run_sync()` with the `abandon_on_cancel` keyword argument instead of `cancellable`\n"
    (docs / "changes.md").write_text(f"# Version history\n\n## 4.1.0\n\n{entries}{named}{entries}")
    with closing(Docmentor(index_location, embeddings=True)) as engine:
        engine.add(docs, name="d")
        assert engine.search("abandon_on_cancel", limit=1)[0].path == "changes.md"
        assert engine.search("`abandon_on_cancel` run_sync()", limit=1)[0].path == "changes.md"
    blended = RankingConfig(identifiers_by_words=False)
    with closing(Docmentor(index_location, embeddings=True, ranking=blended)) as engine:
        assert "changes.md" not in [h.path for h in engine.search("abandon_on_cancel", limit=3)]
    from docmentor.search.analyzer import identifiers_only

    assert identifiers_only("httpx.get") and identifiers_only("QueryClient setQueryData")
    assert not identifiers_only("how do I cancel") and not identifiers_only("timeout")
    assert not identifiers_only("a_b c_d e_f g_h i_j k_l m_n")  # seven: a question's length


def test_flat_lexical_scores_give_meaning_a_larger_share() -> None:
    from docmentor.search.hybrid import semantic_share

    config = RankingConfig()
    # one section far ahead on words (a rare term matched): the words keep their lead
    peaked = semantic_share([1.0] + [0.1] * 12, config)
    # ten sections about as good as the best: the words do not tell them apart
    flat = semantic_share([1.0, 0.95, 0.9, 0.9, 0.88, 0.86, 0.85, 0.85, 0.84, 0.8, 0.2], config)
    assert peaked == pytest.approx(0.4 + 0.2 * (0.1 - 0.5))
    assert flat == pytest.approx(
        0.4 + 0.2 * (sum([0.95, 0.9, 0.9, 0.88, 0.86, 0.85, 0.85, 0.84, 0.8]) / 9 - 0.5)
    )
    assert peaked < config.semantic_weight < flat
    # order does not matter; only the 2nd to flatness_depth-th count
    assert semantic_share([0.1] * 12 + [1.0], config) == pytest.approx(peaked)
    assert semantic_share([1.0, 0.9, 0.0], RankingConfig(flatness_depth=2)) == pytest.approx(0.4 + 0.2 * 0.4)
    # a lone candidate has nothing to tell apart; a fixed share and the bounds
    assert semantic_share([1.0], config) == pytest.approx(0.3)
    assert semantic_share([1.0, 0.2], RankingConfig(semantic_flatness=0.0)) == 0.4
    assert semantic_share([1.0, 1.0, 1.0], RankingConfig(semantic_weight=1.0)) == 1.0
    assert semantic_share([1.0, 0.0], RankingConfig(semantic_weight=0.05, semantic_flatness=0.5)) == 0.0


def test_the_blend_leans_on_meaning_when_the_words_tie() -> None:
    from docmentor.search.hybrid import blend
    from docmentor.search.lexical import LexicalHit

    def first(ranked: list[LexicalHit]) -> int:
        return int(ranked[0].fields["section_id"])

    def hits(scores: list[float]) -> list[LexicalHit]:
        return [
            LexicalHit(score=s, fields={"section_id": i + 1, "doc_score": 0.0}) for i, s in enumerate(scores)
        ]

    # section 1 leads on words, section 2 is nearest in meaning (cosine 0.9 against 0.5)
    cosines = {1: 0.5, 2: 0.9}
    nearest = lambda sid: cosines.get(sid, 0.3)  # noqa: E731
    fixed = RankingConfig(semantic_flatness=0.0)
    # many sections nearly tie on words (0.9 of the best): with the adaptive share, meaning
    # decides between the two; a fixed share keeps the words' order
    tie = hits([1.0, 0.585, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9])
    assert first(blend(tie, [], nearest, RankingConfig())) == 2
    assert first(blend(tie, [], nearest, fixed)) == 1
    # one section far ahead on words: it keeps the lead either way
    ahead = hits([1.0, 0.585, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05])
    assert first(blend(ahead, [], nearest, RankingConfig())) == 1


def test_words_far_ahead_keep_their_lead(at: Callable[..., Docmentor]) -> None:
    # the paraphrase's words ("record", "key", "drop") put "Skipping records" far ahead (the
    # next section scores 0.58 of it, the rest under 0.4): the adaptive share leans on the
    # words, where a fixed 0.4 let meaning pick "Insert if not exists" (the price of the
    # dev suite's gain, see RankingConfig.semantic_flatness)
    query = "keep the first copy of a record and drop later ones with the same key"
    fixed = at(ranking=RankingConfig(semantic_flatness=0.0), embeddings=True)
    assert _top(fixed, query) == "Insert if not exists"
    assert [h.heading for h in at(embeddings=True).search(query, limit=2)] == [
        "Skipping records",
        "Insert if not exists",
    ]


def test_the_unit_nearest_by_meaning_is_kept_in_sight() -> None:
    from docmentor.search.hybrid import blend
    from docmentor.search.lexical import LexicalHit

    # 19 sections share the question's words about equally; the 20th to 30th barely do
    scores = [1.0 - i * 0.005 for i in range(19)] + [0.2 - i * 0.005 for i in range(11)]
    hits = [LexicalHit(score=s, fields={"section_id": i + 1, "doc_score": 0.0}) for i, s in enumerate(scores)]

    def order(cosine: Callable[[int], float], config: RankingConfig) -> list[int]:
        return [int(h.fields["section_id"]) for h in blend(hits, [], cosine, config)]

    # the 20th by words is the one nearest by meaning (cosine 0.6 against 0.45 for the rest):
    # the blend's share of meaning cannot lift it past the 19; it is moved up to 5th
    nearest = lambda sid: 0.6 if sid == 20 else 0.45  # noqa: E731
    unmoved = order(nearest, RankingConfig(rescue_place=0))
    assert unmoved.index(20) == 19
    moved = order(nearest, RankingConfig())
    assert moved == [*unmoved[:4], 20, *[s for s in unmoved[4:] if s != 20]]
    # it takes the score of the unit it displaces: the list stays ordered by score
    scores_after = [h.score for h in blend(hits, [], nearest, RankingConfig())]
    assert scores_after == sorted(scores_after, reverse=True) and scores_after[4] == scores_after[5]
    # `rescue_after` counts the units above it: 19 of them is past 19, not past 20
    assert order(nearest, RankingConfig(rescue_after=19)) == moved
    assert order(nearest, RankingConfig(rescue_after=20)) == unmoved
    # a nearest unit that is near nothing (raw cosine under semantic_only_cosine) stays buried
    faint = lambda sid: 0.28 if sid == 20 else 0.26  # noqa: E731
    assert order(faint, RankingConfig(rescue_place=0)).index(20) == 19
    assert order(faint, RankingConfig()) == order(faint, RankingConfig(rescue_place=0))
    assert order(faint, RankingConfig(semantic_only_cosine=0.27)).index(20) == 4
    # the place is the config's; a unit above the place is never moved down to it
    assert order(nearest, RankingConfig(rescue_place=2))[:3] == [unmoved[0], 20, unmoved[1]]
    near_first = lambda sid: 0.6 if sid == 2 else 0.45  # noqa: E731
    assert order(near_first, RankingConfig(rescue_after=0)) == order(
        near_first, RankingConfig(rescue_place=0)
    )
