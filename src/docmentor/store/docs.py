"""What the products read of an indexed source: its sections with their pages, its code blocks.

The store owns the SQL on its schema; products (library knowledge, clarity, assembly) call
these functions and get plain typed rows back, never a connection or a database row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = [
    "CodeBlockRow",
    "DocumentRow",
    "OutlineRow",
    "SectionRow",
    "code_blocks",
    "documents_by_path",
    "outline",
    "section_text",
    "sections_of_source",
]


@dataclass(frozen=True, slots=True)
class SectionRow:
    """One section of a source, with its page's path and title."""

    path: str
    title: str
    heading: str
    level: int
    anchor: str
    text: str


@dataclass(frozen=True, slots=True)
class DocumentRow:
    id: int
    path: str
    title: str


@dataclass(frozen=True, slots=True)
class CodeBlockRow:
    """One code block of a document, with the heading path of its section."""

    language: str
    code: str
    line: int  # the line of its opening fence in the original file
    section_id: int
    heading_path: tuple[str, ...]


def sections_of_source(store: Store, source: str) -> list[SectionRow]:
    """Every section of the source, by page path, then in page order."""
    rows = (
        store.conn()
        .execute(
            """SELECT d.path, d.title, x.heading, x.level, x.anchor, x.text FROM sections x
               JOIN documents d ON d.id = x.document_id WHERE d.source = ? ORDER BY d.path, x.ord""",
            (source,),
        )
        .fetchall()
    )
    return [SectionRow(r[0], r[1] or "", r[2] or "", int(r[3]), r[4] or "", r[5] or "") for r in rows]


@dataclass(frozen=True, slots=True)
class OutlineRow:
    """One section of a document: where it sits (its heading path, its level) and its text."""

    id: int
    heading_path: tuple[str, ...]
    level: int
    text: str


def outline(store: Store, document_id: int) -> list[OutlineRow]:
    """The document's sections in page order."""
    rows = (
        store.conn()
        .execute(
            "SELECT id, heading_path, level, text FROM sections WHERE document_id = ? ORDER BY ord",
            (document_id,),
        )
        .fetchall()
    )
    return [OutlineRow(int(r[0]), tuple(json.loads(r[1] or "[]")), int(r[2]), r[3] or "") for r in rows]


def documents_by_path(store: Store, source: str) -> list[DocumentRow]:
    """The source's documents (id, path, title), by path."""
    rows = (
        store.conn()
        .execute("SELECT id, path, title FROM documents WHERE source = ? ORDER BY path", (source,))
        .fetchall()
    )
    return [DocumentRow(int(r[0]), str(r[1]), r[2] or "") for r in rows]


def code_blocks(store: Store, document_id: int) -> list[CodeBlockRow]:
    """The document's code blocks in line order (the order they were parsed for equal lines)."""
    rows = (
        store.conn()
        .execute(
            """SELECT c.language, c.code, c.line, c.section_id, s.heading_path FROM code_blocks c
               JOIN sections s ON s.id = c.section_id WHERE c.document_id = ? ORDER BY c.line, c.id""",
            (document_id,),
        )
        .fetchall()
    )
    return [
        CodeBlockRow(str(r[0]), str(r[1]), int(r[2]), int(r[3]), tuple(json.loads(r[4] or "[]")))
        for r in rows
    ]


def section_text(store: Store, section_id: int) -> str | None:
    """The stored text of a section; None when it is gone."""
    row = store.conn().execute("SELECT text FROM sections WHERE id = ?", (section_id,)).fetchone()
    return None if row is None else str(row[0])
