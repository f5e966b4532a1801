"""A knowledge base in the index: its models to the store's plain records and back.

The store (:mod:`docmentor.store.kb`) keeps a registered knowledge base as JSON texts and
knows none of this package's models; this module converts. Reading validates every record:
a damaged row is a :class:`~docmentor.errors.StoreError` that says what to regenerate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ValidationError

from docmentor.errors import StoreError
from docmentor.library.models import ApiEntry, Example
from docmentor.store.kb import KbRecords, load_entry_records, load_example_records, register_records

if TYPE_CHECKING:
    from docmentor.library.knowledge.kb_schema import KnowledgeBase
    from docmentor.store.db import Store

__all__ = ["load_entries", "load_examples", "register_kb"]

M = TypeVar("M", bound=BaseModel)


def register_kb(store: Store, kb: KnowledgeBase) -> int:
    """Register ``kb`` for its library, replacing the library's rows; returns the new generation."""
    return register_records(
        store,
        KbRecords(
            library=kb.index.library,
            version=kb.index.version,
            path=str(kb.path.resolve()),
            generated_at=kb.index.generated_at,
            entries=[(e.api_id, e.model_dump_json()) for e in kb.entries],
            examples=[(x.example_id, x.model_dump_json()) for x in kb.examples],
            overview=kb.overview.model_dump_json(),
            metadata=kb.metadata.model_dump_json(),
            vectors=kb.vectors,
        ),
    )


def load_entries(store: Store, library: str) -> list[ApiEntry]:
    """The library's API catalog, most important first (validated)."""
    return _validated(load_entry_records(store, library), library, ApiEntry, "API catalog of {} is")


def load_examples(store: Store, library: str) -> list[Example]:
    """The library's examples database, in document order (validated)."""
    return _validated(load_example_records(store, library), library, Example, "examples of {} are")


def _validated(records: list[str], library: str, model: type[M], what: str) -> list[M]:
    try:
        return [model.model_validate_json(r) for r in records]
    except ValidationError as exc:
        raise StoreError(
            f"the index's {what.format(repr(library))} invalid: {exc.error_count()} error(s)",
            hint=f"regenerate it: docmentor readme-llm generate --library {library}",
        ) from exc
