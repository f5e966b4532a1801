"""Feedback reports in the index (the ``feedback`` table of migration ``m005_feedback``).

An identical report shares its key with an earlier one and is counted, not stored twice.
Several processes may report at once: the write is one SQLite transaction. The store keeps
plain data; :mod:`docmentor.library.service.feedback` decides what a report is and analyses them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["FeedbackRow", "feedback_rows", "record_feedback"]


@dataclass(frozen=True, slots=True)
class FeedbackRow:
    """One stored report and how many times it came."""

    key: str
    library: str | None
    query: str
    issue_type: str
    apis_tried: tuple[str, ...]
    error_message: str | None
    code_attempted: str | None
    session_context: tuple[dict[str, Any], ...]
    first_seen: str
    last_seen: str
    count: int


def record_feedback(
    store: Store,
    *,
    key: str,
    library: str | None,
    query: str,
    issue_type: str,
    apis_tried: Sequence[str],
    error_message: str | None,
    code_attempted: str | None,
    session_context: Sequence[dict[str, Any]],
    at: str,
) -> int:
    """Store a report under ``key``, or count a repeat (its session context and time replace
    the earlier ones); the number of times it has come now."""
    with store.transaction() as db:
        db.execute(
            """INSERT INTO feedback (key, library, query, issue_type, apis_tried, error_message, code_attempted,
                                     session_context, first_seen, last_seen, count)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
               ON CONFLICT(key) DO UPDATE SET count = feedback.count + 1, last_seen = excluded.last_seen,
                   session_context = excluded.session_context""",
            (
                key,
                library,
                query,
                issue_type,
                json.dumps(list(apis_tried)),
                error_message,
                code_attempted,
                json.dumps(list(session_context)),
                at,
                at,
            ),
        )
        return int(db.execute("SELECT count FROM feedback WHERE key = ?", (key,)).fetchone()[0])


def feedback_rows(store: Store, library: str | None = None) -> list[FeedbackRow]:
    """The stored reports (of ``library``, or all), oldest first."""
    sql = "SELECT * FROM feedback" + (" WHERE library = ?" if library else "") + " ORDER BY first_seen, key"
    return [
        FeedbackRow(
            key=str(r["key"]),
            library=r["library"],
            query=str(r["query"]),
            issue_type=str(r["issue_type"]),
            apis_tried=tuple(json.loads(r["apis_tried"] or "[]")),
            error_message=r["error_message"],
            code_attempted=r["code_attempted"],
            session_context=tuple(json.loads(r["session_context"] or "[]")),
            first_seen=str(r["first_seen"]),
            last_seen=str(r["last_seen"]),
            count=int(r["count"]),
        )
        for r in store.conn().execute(sql, (library,) if library else ())
    ]
