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

from docmentor.engine.lookup import Lookup
from docmentor.engine.refresh import Refreshing
from docmentor.engine.reports import DocExcerpts, DocPage, RefreshReport, SourceInfo


class Docmentor(Refreshing, Lookup):
    """An index of documentation sources.

    Args:
        db: the index folder (``--db``); default :func:`docmentor.config.default_db`:
            ``$DOCMENTOR_DB``, else ``db`` in the working folder's ``docmentor.toml``, else
            ``$DOCMENTOR_HOME``, else ``~/.docmentor``.
        create: create the index if it does not exist (writers); readers get
            :class:`NotFoundError` instead. It does not make the engine read-only: an index
            on a read-only file system is (its writes are :class:`StoreError`).
        ranking: the ranking constants (default :data:`docmentor.search.config.DEFAULT`).
        embeddings: embed sections and search by meaning too (default: on, unless
            ``DOCMENTOR_EMBEDDINGS=0`` or ``embeddings = false`` in ``docmentor.toml``).

    One engine may be shared by threads (each gets its own connection) and called from
    asyncio code through ``asyncio.to_thread``. ``close()``, or leaving a ``with`` block,
    closes its threads' connections; the engine cannot be used after it. ``project``: the
    folder whose requirements choose among indexed versions of a library (default: the
    working folder; docs/versions.md).
    """


__all__: Sequence[str] = ["DocExcerpts", "DocPage", "Docmentor", "RefreshReport", "SourceInfo"]
