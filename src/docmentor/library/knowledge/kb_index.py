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
from docmentor.store.kb import (
    KbRecords,
    list_kbs,
    load_entry_records,
    load_example_records,
    register_records,
)

if TYPE_CHECKING:
    from docmentor.library.knowledge.kb_schema import KnowledgeBase
    from docmentor.store.db import Store

__all__ = ["load_entries", "load_examples", "register_kb", "registered_name"]

M = TypeVar("M", bound=BaseModel)


def register_kb(store: Store, kb: KnowledgeBase) -> int:
    """Register ``kb`` for its library, replacing the library's rows of the same version;
    returns the new generation. Another version of the library stays registered beside it:
    this one under ``LIBRARY@VERSION`` (:func:`registered_name`)."""
    return register_records(
        store,
        KbRecords(
            library=registered_name(store, kb.index.library, kb.index.version),
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


def registered_name(store: Store, library: str, version: str | None) -> str:
    """The name a knowledge base of ``library`` at ``version`` is registered under: that of
    the registered one of the same version, else the library's own name when it is free or
    holds no known version (regenerating replaces it, as before versions), else
    ``LIBRARY@VERSION``, beside the other versions."""
    from docmentor.sources.project_files import same_version
    from docmentor.sources.versions import library_of, versioned_name

    if not version:
        return library
    registered = {r.library: r.version for r in list_kbs(store)}
    for name, theirs in registered.items():
        if library_of(name) == library and theirs and same_version(theirs, version):
            return name
    if registered.get(library) is None:  # free, or of no known version
        return library
    return versioned_name(library, version)


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
