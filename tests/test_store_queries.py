"""The store's typed reads and writes for the products and the search layer, on a real index.

Products never run SQL (tests/test_layers.py checks it); these are the functions they call
instead: a source's sections and code blocks (store/docs.py), feedback reports
(store/feedback.py), search units and their vectors (store/vectors.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.store.docs import (
    CodeBlockRow,
    DocumentRow,
    SectionRow,
    code_blocks,
    documents_by_path,
    section_text,
    sections_of_source,
)
from docmentor.store.feedback import feedback_rows, record_feedback
from docmentor.store.vectors import (
    UnitRow,
    delete_orphan_vectors,
    pending_units,
    unit_counts,
    vector_state,
    vectors_after,
    vectors_view,
    write_unit_rows,
    write_vectors,
)

GUIDE = """# Guide

Intro words that are long enough to be a sentence of prose here.

## Install

```bash
pip install lib
```

## Use it

```python
import lib
lib.run()
```

```python
lib.stop()
```
"""

API = """# API

The reference of every call the library has, in one page.

## run

Runs it.
"""


@pytest.fixture
def engine(tmp_path: Path, index_location: str) -> Iterator[Docmentor]:
    """On each backend (the embedded index, PostgreSQL)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE)
    (docs / "api.md").write_text(API)
    engine = Docmentor(index_location)
    engine.add(str(docs), name="lib", embed=False)
    yield engine
    engine.close()


def test_sections_and_documents_of_a_source_in_path_then_page_order(engine: Docmentor) -> None:
    rows = sections_of_source(engine.store, "lib")
    assert all(isinstance(r, SectionRow) for r in rows)
    assert [(r.path, r.heading, r.level) for r in rows] == [
        ("api.md", "API", 1),
        ("api.md", "run", 2),
        ("guide.md", "Guide", 1),
        ("guide.md", "Install", 2),
        ("guide.md", "Use it", 2),
    ]
    assert {r.title for r in rows} == {"API", "Guide"}
    assert rows[1].anchor == "run" and "Runs it." in rows[1].text
    assert sections_of_source(engine.store, "nope") == []

    docs = documents_by_path(engine.store, "lib")
    assert [(d.path, d.title) for d in docs] == [("api.md", "API"), ("guide.md", "Guide")]
    assert all(isinstance(d, DocumentRow) and d.id > 0 for d in docs)


def test_code_blocks_in_line_order_with_their_section(engine: Docmentor) -> None:
    guide = next(d for d in documents_by_path(engine.store, "lib") if d.path == "guide.md")
    blocks = code_blocks(engine.store, guide.id)
    assert all(isinstance(b, CodeBlockRow) for b in blocks)
    assert [(b.language, b.line, b.heading_path) for b in blocks] == [
        ("bash", 7, ("Guide", "Install")),
        ("python", 13, ("Guide", "Use it")),
        ("python", 18, ("Guide", "Use it")),
    ]
    assert blocks[1].code == "import lib\nlib.run()\n"
    assert blocks[1].section_id == blocks[2].section_id != blocks[0].section_id
    text = section_text(engine.store, blocks[1].section_id)
    assert text is not None and "lib.stop()" in text
    assert section_text(engine.store, 10**9) is None


def _report(engine: Docmentor, key: str, library: str | None, at: str, context: list[dict[str, str]]) -> int:
    return record_feedback(
        engine.store,
        key=key,
        library=library,
        query="how do I stop",
        issue_type="missing_example",
        apis_tried=["lib.stop", "lib.run"],
        error_message=None,
        code_attempted="lib.stop(",
        session_context=context,
        at=at,
    )


def test_feedback_is_counted_by_key_and_read_oldest_first(engine: Docmentor) -> None:
    assert _report(engine, "k1", "lib", "2026-01-02T00:00:00Z", [{"tool": "find_api"}]) == 1
    assert _report(engine, "k0", "other", "2026-01-01T00:00:00Z", []) == 1
    assert _report(engine, "k1", "lib", "2026-01-03T00:00:00Z", [{"tool": "get_examples"}]) == 2

    rows = feedback_rows(engine.store)
    assert [(r.key, r.count) for r in rows] == [("k0", 1), ("k1", 2)]
    (lib,) = feedback_rows(engine.store, "lib")
    assert lib.first_seen == "2026-01-02T00:00:00Z" and lib.last_seen == "2026-01-03T00:00:00Z"
    assert lib.session_context == ({"tool": "get_examples"},)  # a repeat's context replaces the old one
    assert lib.apis_tried == ("lib.stop", "lib.run") and lib.code_attempted == "lib.stop("
    assert lib.error_message is None and lib.issue_type == "missing_example"
    assert feedback_rows(engine.store, "nope") == []


def test_feedback_from_several_threads_is_all_counted(engine: Docmentor) -> None:
    def send() -> None:
        for _ in range(5):
            _report(engine, "same", "lib", "2026-01-01T00:00:00Z", [])

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (row,) = feedback_rows(engine.store, "lib")
    assert row.count == 20


def test_units_and_vectors_round_trip(engine: Docmentor) -> None:
    store = engine.store
    model = "test-model/t64"
    pending = pending_units(store, model)
    assert pending and all(isinstance(d, int) for d in pending.values())
    assert unit_counts(store, model) == {"lib": (len(vectors_view(store, model).units), 0)}
    before = vector_state(store)
    assert before.units_generation is not None and before.last_rowid == 0

    hashes = sorted(pending)
    write_vectors(store, model, [(h, bytes([i]) * 4) for i, h in enumerate(hashes)])
    assert pending_units(store, model) == {}
    units = len(vectors_view(store, model).units)
    assert unit_counts(store, model) == {"lib": (units, units)}
    state = vector_state(store)
    assert state.units_generation == before.units_generation and state.last_rowid >= len(hashes)

    view = vectors_view(store, model)
    assert view.last_rowid == state.last_rowid
    assert view.vectors == {h: bytes([i]) * 4 for i, h in enumerate(hashes)}
    assert vectors_view(store, "another/t1").vectors == {}
    # only the vectors written after a rowid
    write_vectors(store, "another/t1", [(hashes[0], b"\x01\x02")])
    assert vectors_after(store, "another/t1", state.last_rowid, vector_state(store).last_rowid) == [
        (hashes[0], b"\x01\x02")
    ]
    assert vectors_after(store, model, state.last_rowid, vector_state(store).last_rowid) == []

    # rewriting the units bumps the generation; vectors of hashes no unit has any more go
    guide = next(d for d in documents_by_path(store, "lib") if d.path == "guide.md")
    sid, doc, source = code_blocks(store, guide.id)[0].section_id, guide.id, "lib"
    write_unit_rows(store, [UnitRow(sid, doc, source, "changed")], clear_sources=["lib"])
    after = vector_state(store)
    assert after.units_generation != before.units_generation
    assert vectors_view(store, model).units == [(sid, source, "changed")]
    assert pending_units(store, model) == {"changed": doc}
    delete_orphan_vectors(store, model)
    assert vectors_view(store, model).vectors == {}
    assert vectors_view(store, "another/t1").vectors == {hashes[0]: b"\x01\x02"}  # another model's stay
