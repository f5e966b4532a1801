"""docmentor: documentation that works for AI coding agents.

The library API is :class:`Docmentor`; the CLI and the MCP server are thin layers over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Docmentor", "DocmentorError", "RefreshReport", "SearchHit", "__version__"]

if TYPE_CHECKING:
    from docmentor.engine import Docmentor, RefreshReport
    from docmentor.errors import DocmentorError
    from docmentor.models import SearchHit


def __getattr__(name: str) -> Any:  # lazy: keep `import docmentor` (and --help) light
    if name in ("Docmentor", "RefreshReport"):
        from docmentor import engine

        return getattr(engine, name)
    if name == "DocmentorError":
        from docmentor.errors import DocmentorError

        return DocmentorError
    if name == "SearchHit":
        from docmentor.models import SearchHit

        return SearchHit
    raise AttributeError(name)
