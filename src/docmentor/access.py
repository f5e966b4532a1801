"""What a caller of the library may have read from this machine by naming it: the indexed
documents, and files in folders a user allowed (``docmentor serve --allow-path``).

An MCP client may name any path; :meth:`ReadPolicy.resolve` answers everything outside the
policy with one error, whether or not such a file exists, so that a caller learns nothing of
the rest of the machine. The server's ``score_document`` tool is :func:`score_document`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from docmentor.errors import NotFoundError, UsageError
from docmentor.models import DocFormat, RawDocument

if TYPE_CHECKING:
    from docmentor.clarity.results import DocumentClarity
    from docmentor.engine import Docmentor

_URL_SCHEMES = ("http://", "https://", "file://")


@dataclass(frozen=True, slots=True)
class Readable:
    """A reference the policy lets be read: a file on disk (read as ``docmentor clarity
    score FILE`` reads it), or an indexed document's stored text with its folder source's
    root (None: not a folder on this machine)."""

    file: Path | None = None
    document: RawDocument | None = None
    root: Path | None = None
    source: str | None = None  # the indexed document's source


@dataclass(frozen=True, slots=True)
class ReadPolicy:
    """The indexed documents, and the files under ``allowed`` (folders, resolved)."""

    allowed: tuple[Path, ...] = ()

    @classmethod
    def allowing(cls, folders: Iterable[Path | str]) -> ReadPolicy:
        return cls(tuple(Path(p).expanduser().resolve() for p in folders))

    def resolve(self, engine: Docmentor, ref: str) -> Readable:
        """``ref`` — a file in an allowed folder, an indexed document (SOURCE:PATH, its URL
        or its file) — as what may be read of it; :class:`NotFoundError` for anything else."""
        if not ref.strip():
            raise UsageError(
                "empty document reference", hint="give SOURCE:PATH or a URL as search_docs shows them"
            )
        local = None if ref.startswith(_URL_SCHEMES) else Path(ref).expanduser()
        in_allowed = False  # names no file in an allowed folder: an indexed document, perhaps
        if local is not None and self.allowed:
            real = Path(os.path.realpath(local))
            if any(real.is_relative_to(root) for root in self.allowed):
                if real.is_file():
                    return Readable(file=local)
                in_allowed = True  # SOURCE:PATH read from a working folder inside one, say
        try:
            with engine.store.snapshot():
                doc = engine.find(ref)
                row = engine.store.source(doc.source)
                raw = RawDocument(
                    path=doc.path,
                    url=doc.url,
                    content=engine.store.content(doc.id),
                    fmt=cast(DocFormat, doc.fmt),  # the store holds what parse wrote
                    line_map=engine.store.line_map(doc.id),
                )
        except NotFoundError:
            if in_allowed:
                raise NotFoundError(
                    f"no file {ref} in the allowed folders, and no indexed document {ref!r}",
                    hint="check the path, or give SOURCE:PATH as search_docs shows it",
                ) from None
            raise NotFoundError(
                f"{ref!r} is not an indexed document, nor a file in a folder this server may read",
                hint="score an indexed document: SOURCE:PATH or a URL as search_docs and list_sources show them "
                "(the user can allow a folder with `docmentor serve --allow-path DIR`)",
            ) from None
        root = Path(row.target) if row.kind == "folder" else None
        if root is not None and local is not None and local.is_absolute():
            # the indexed file itself, as `docmentor clarity score FILE` reads it
            real = Path(os.path.realpath(local))
            if real.is_relative_to(root.resolve()) and real.is_file():
                return Readable(file=local)
        return Readable(
            document=raw, root=root if root is not None and root.is_dir() else None, source=doc.source
        )


def score_document(
    engine: Docmentor, ref: str, *, policy: ReadPolicy, target: float = 8.0
) -> DocumentClarity:
    """The clarity result of one document the policy lets be read (see :meth:`ReadPolicy.resolve`)."""
    from docmentor.clarity import drift_counts, score_paths, score_raw

    found = policy.resolve(engine, ref)
    if found.file is not None:
        return score_paths([found.file], target=target, engine=engine).documents[0]
    assert found.document is not None
    counts = drift_counts(engine, found.source).get(found.document.path) if found.source else None
    return score_raw(found.document, root=found.root, target=target, api_counts=counts)
