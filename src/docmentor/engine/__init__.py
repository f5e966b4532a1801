"""The library API: one facade over sources → parse → store → search.

The CLI, the MCP server and the tests all call :class:`Docmentor`; nothing else writes
the index. Its parts, one job each:

- ``core``: opening the index, and keeping the lexical index at the store's state;
- ``embedding``: embedding sections, and the units nearest a query by meaning;
- ``refresh``: adding, refreshing, removing and re-indexing sources;
- ``read_source``: reading a folder or an llms.txt as it is now, against what is stored;
- ``lookup``: listing, searching and reading what the index holds;
- ``reports``: the result types.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from docmentor.engine.lookup import Lookup
from docmentor.engine.refresh import Refreshing
from docmentor.engine.reports import DocExcerpts, DocPage, RefreshReport, SourceInfo

if TYPE_CHECKING:
    from docmentor.assemble import Digest


class Docmentor(Refreshing, Lookup):
    """An index of documentation sources.

    Args:
        db: the index folder (``--db``); default ``$DOCMENTOR_DB`` or ``~/.docmentor``.
        create: create the index if it does not exist (writers); readers get
            :class:`NotFoundError` instead.
        ranking: the ranking constants (default :data:`docmentor.search.config.DEFAULT`).
    """

    def assemble(
        self,
        query: str,
        *,
        max_tokens: int = 8000,
        depth: int = 1,
        sections: int = 20,
        source: str | None = None,
        encoding: str = "o200k_base",
        allow_empty: bool = False,
        now: datetime | None = None,
        fmt: str = "markdown",
    ) -> Digest:
        """A token-budgeted digest for one question: see :func:`docmentor.assemble.assemble`
        (the same arguments and defaults; ``tests/test_public_api.py`` checks they agree)."""
        from docmentor.assemble import assemble

        return assemble(
            self,
            query,
            max_tokens=max_tokens,
            depth=depth,
            sections=sections,
            source=source,
            encoding=encoding,
            allow_empty=allow_empty,
            now=now,
            fmt=fmt,
        )


__all__: Sequence[str] = ["DocExcerpts", "DocPage", "Docmentor", "RefreshReport", "SourceInfo"]
