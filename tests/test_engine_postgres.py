"""The whole engine on an index in PostgreSQL (``Docmentor("postgresql://…")``): the same
answers as the embedded index on the same documents, and the CLI through ``--db URL``."""

from __future__ import annotations

from pathlib import Path

import pytest

from clitool import Cli
from docmentor import assemble_context
from docmentor.engine import Docmentor
from docmentor.engine.core import index_exists

PAGES = {
    "index.md": "# Guide\n\nStart here. The client sends requests.\n\n## Install\n\npip install thing\n",
    "timeouts.md": (
        "# Timeouts\n\nEvery request has a timeout.\n\n## Connect timeout\n\n"
        "`connect_timeout=5` bounds the connection.\n\n## Read timeout\n\nThe read timeout bounds each read.\n"
    ),
    "retries.md": "# Retries\n\nRetry a failed request with `Retry(total=3)`; backoff grows.\n",
    "proxies.md": "# Proxies\n\nRoute requests through a proxy with `proxy=URL`.\n\n### Parameters\n\nurl\n",
    "api/client.md": "# Client\n\n## Client.send\n\nSend one request.\n\n## Client.close\n\nClose the pool.\n",
}
QUERIES = ["timeout", "connect timeout", "retry failed request", "proxy", "close the pool", "send request"]


def _docs(root: Path) -> Path:
    for rel, text in PAGES.items():
        path = root / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "docs"


def _results(engine: Docmentor, query: str) -> list[tuple[str, str, int, int]]:
    return [(h.path, h.heading, h.line_start, h.line_end) for h in engine.search(query, limit=5)]


def test_the_engine_answers_the_same_on_postgresql(tmp_path: Path, postgres_url: str) -> None:
    docs = _docs(tmp_path)
    embedded, pg = Docmentor(tmp_path / "index"), Docmentor(postgres_url)
    try:
        for engine in (embedded, pg):
            engine.add(docs, name="guide")
        for query in QUERIES:
            assert _results(pg, query) == _results(embedded, query), query
            lite, post = embedded.search(query, limit=5), pg.search(query, limit=5)
            for a, b in zip(lite, post, strict=True):
                assert b.score == pytest.approx(a.score, rel=0.05), (query, a.path)
        assert pg.get("guide:timeouts.md").content == embedded.get("guide:timeouts.md").content
        digests = [
            assemble_context(e, "how do I set a connect timeout?", max_tokens=1000) for e in (embedded, pg)
        ]
        chosen = [[(d.candidate.path, d.line_start) for d in g.sections] for g in digests]
        assert chosen[0] == chosen[1]
        assert pg.reindex() == embedded.reindex()  # the lexical tables rebuilt from the store
        assert [_results(pg, q) for q in QUERIES] == [_results(embedded, q) for q in QUERIES]
        (docs / "retries.md").write_text("# Retries\n\nGive up after three attempts.\n", encoding="utf-8")
        (docs / "proxies.md").unlink()
        pg.refresh("guide", prune=True)
        # tantivy's statistics keep deleted entries until its segments merge; an index built
        # afresh has the statistics the database keeps exactly
        fresh = Docmentor(tmp_path / "fresh")
        fresh.add(docs, name="guide")
        for query in [*QUERIES, "give up attempts"]:
            assert _results(pg, query) == _results(fresh, query), query
        assert [s["documents"] for s in pg.sources()] == [s["documents"] for s in fresh.sources()] == [4]
        fresh.close()
        pg.remove("guide")
        assert pg.search("timeout") == [] and pg.sources() == []
    finally:
        embedded.close()
        pg.close()


def test_two_engines_on_one_database_see_each_others_writes(tmp_path: Path, postgres_url: str) -> None:
    writer, reader = Docmentor(postgres_url), Docmentor(postgres_url, create=False)
    try:
        writer.add(_docs(tmp_path), name="guide")
        assert reader.search("connect timeout", limit=1)[0].heading == "Connect timeout"
        writer.remove("guide")
        assert reader.search("connect timeout") == []
    finally:
        writer.close()
        reader.close()


def test_the_cli_takes_a_database_url(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not index_exists(postgres_url)
    cli = Cli(tmp_path / "unused", capsys)
    rc, out, err = cli.raw("--db", postgres_url, "add", str(_docs(tmp_path)), "--name", "guide")
    assert rc == 0, err
    assert index_exists(postgres_url)
    rc, out, err = cli.raw("--db", postgres_url, "search", "retry failed request", "--json")
    assert rc == 0 and '"path": "retries.md"' in out
    rc, out, err = cli.raw("--db", "mysql://u:pw@db/x", "search", "x")
    assert rc == 2 and "mysql:// URL" in err and "pw" not in err


def test_replicas_on_one_database_make_each_periodic_refresh_once(tmp_path: Path, postgres_url: str) -> None:
    from docmentor.scheduler import RefreshScheduler

    docs = _docs(tmp_path)
    one, two = Docmentor(postgres_url), Docmentor(postgres_url)
    try:
        one.add(docs, name="guide")
        (docs / "new.md").write_text("# New page\n\nAdded later.\n", encoding="utf-8")
        schedulers = [RefreshScheduler(e, configured=False, interval_hours=1) for e in (one, two)]
        assert [s.refresh() for s in schedulers] == [True, False]  # the second replica skips
        assert two.search("added later", limit=1)[0].path == "new.md"
        with one.store.try_named_lock("periodic-refresh") as held:  # a pass under way elsewhere
            assert held and not schedulers[1].refresh()
        one.store.set_setting("periodic_refresh_at", "0")  # the period is over
        assert schedulers[1].refresh()
    finally:
        one.close()
        two.close()


def test_hybrid_search_through_pgvector_answers_as_the_embedded_index(
    tmp_path: Path, postgres_url: str
) -> None:
    from docmentor.search.semantic_pg import PgVectorSearch

    docs = _docs(tmp_path)
    embedded, pg = Docmentor(tmp_path / "index", embeddings=True), Docmentor(postgres_url, embeddings=True)
    try:
        for engine in (embedded, pg):
            engine.add(docs, name="guide")
        assert pg.store.has_pgvector
        search = pg._vector_cache()  # which search answers
        assert isinstance(search, PgVectorSearch)
        search.refresh()
        assert (
            len(search)
            == sum(s["units"] for s in pg.sources())
            == sum(s["embedded"] for s in pg.sources())
            > 0
        )
        for query in [*QUERIES, "how long may a request wait", "go through an intermediary server"]:
            lite, post = embedded.search(query, limit=5), pg.search(query, limit=5)
            assert [(h.path, h.heading) for h in post] == [(h.path, h.heading) for h in lite], query
            for a, b in zip(lite, post, strict=True):
                assert b.score == pytest.approx(a.score, abs=2e-3), (query, a.path)
        excerpt = pg.excerpt("guide:timeouts.md", "how long may a request wait")
        assert (
            excerpt["excerpts"]
            == embedded.excerpt("guide:timeouts.md", "how long may a request wait")["excerpts"]
        )
        (docs / "timeouts.md").unlink()
        pg.refresh("guide", prune=True)
        assert all(h.path != "timeouts.md" for h in pg.search("how long may a request wait", limit=5))
    finally:
        embedded.close()
        pg.close()


def test_a_source_filter_answers_as_the_embedded_index(tmp_path: Path, postgres_url: str) -> None:
    # a filter that narrows (one source of two) looks up the sources of the best-scored
    # entries; a filter naming every source is no filter
    docs = _docs(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "net.md").write_text(
        "# Network\n\nA timeout on every socket.\n\n## Retry\n\nRetry the request after a timeout.\n",
        encoding="utf-8",
    )
    embedded, pg = Docmentor(tmp_path / "index"), Docmentor(postgres_url)
    try:
        for engine in (embedded, pg):
            engine.add(docs, name="guide")
            engine.add(other, name="other")
        for query in QUERIES:
            for source in ("guide", "other", None):
                want = [(h.source, h.path, h.line_start) for h in embedded.search(query, source=source)]
                got = [(h.source, h.path, h.line_start) for h in pg.search(query, source=source)]
                assert got == want, (query, source)
                assert all(h[0] == source for h in got if source is not None)
    finally:
        embedded.close()
        pg.close()


def test_postings_not_kept_yet_are_read_from_the_postings_and_kept_by_the_next_write(
    tmp_path: Path, postgres_url: str
) -> None:
    # an index being filled by m019, or written by an older process, has terms without kept
    # postings: a search reads theirs from lex_postings (the same answers), and the next
    # lexical write keeps them
    from docmentor.store.lexical_tables import score_entries

    docs = _docs(tmp_path)
    pg = Docmentor(postgres_url)
    try:
        pg.add(docs, name="guide")
        want = [_results(pg, q) for q in QUERIES]
        with pg.store.transaction() as db:
            db.execute("UPDATE lex_terms SET top_keys = NULL, top_tfs = NULL, top_lens = NULL")
        assert [_results(pg, q) for q in QUERIES] == want
        (docs / "extra.md").write_text("# Extra\n\nOne more page.\n", encoding="utf-8")
        pg.refresh("guide")
        row = pg.store.conn().execute("SELECT COUNT(*) FROM lex_terms WHERE top_keys IS NULL").fetchone()
        assert row[0] == 0
        fresh = Docmentor(tmp_path / "fresh")  # the same documents, indexed afresh
        fresh.add(docs, name="guide")
        assert [_results(pg, q) for q in QUERIES] == [_results(fresh, q) for q in QUERIES]
        fresh.close()
        assert (
            score_entries(pg.store, [("timeout", "body", 1.0, 10.0)], kind="s", sources=None, limit=0) == []
        )
    finally:
        pg.close()
