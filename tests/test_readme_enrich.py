"""related_apis, tags and search_keywords of the API catalog."""

from __future__ import annotations

from docmentor.library.knowledge.enrich import enrich_entries
from docmentor.library.models import ApiEntry, Example


def entry(api_id: str, importance: float = 0.5, description: str = "") -> ApiEntry:
    return ApiEntry(
        api_id=api_id, kind="function", name=api_id.rsplit(".", 1)[-1], description=description,
        importance_score=importance,
    )  # fmt: skip


def example(n: int, apis: list[str], tags: list[str]) -> Example:
    return Example(
        example_id=f"e{n}", title="t", code="x", language="python", source="s", path="p.md", line=n,
        apis_used=apis, tags=tags,
    )  # fmt: skip


def test_related_tags_and_keywords() -> None:
    entries = [
        entry("pkg.connect", 0.9, "Open the database stored at a path."),
        entry("pkg.Db.insert", 0.6, "Insert rows into a table."),
        entry("pkg.Db.close", 0.4),
        entry("pkg.Db.iter_lines", 0.3),
        entry("pkg.lonely", 0.1, "The value of nothing."),
    ]
    examples = [
        example(1, ["pkg.connect", "pkg.Db.insert", "pkg.Db.close"], ["quickstart", "insert"]),
        example(2, ["pkg.connect", "pkg.Db.insert", "pkg.connect"], ["insert", "rows"]),
        example(3, ["pkg.connect", "pkg.Db.iter_lines", "pkg.unknown"], ["streaming"]),
    ]
    enrich_entries(entries, examples)
    connect, insert, close, lines, lonely = entries
    # most shared examples first; ties by importance; unknown ids and itself left out
    assert connect.related_apis == ["pkg.Db.insert", "pkg.Db.close", "pkg.Db.iter_lines"]
    assert insert.related_apis == ["pkg.connect", "pkg.Db.close"]
    assert connect.tags == ["insert", "quickstart", "rows", "streaming"]
    assert close.tags == ["insert", "quickstart"]
    assert connect.search_keywords == ["connect", "open", "database", "stored", "path"]
    assert lines.search_keywords == ["iter", "lines"]
    assert lonely.related_apis == [] and lonely.tags == [] and lonely.search_keywords == ["lonely", "nothing"]
