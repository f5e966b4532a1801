"""The ``knowledge_base/`` folder: the structured output the library-knowledge MCP tools read.

::

    knowledge_base/
    ├── index.json             library, version, counts, the file map
    ├── library_overview.json  description, key modules/classes, quickstart, concepts, and
    │                          the text get_library_overview(aspect) answers with
    ├── api_catalog/<group>.json   a list of ApiEntry: one file per class (the class and its
    │                              members) or module (its functions and attributes)
    ├── examples_db/<page>.json    a list of Example: one file per documentation page
    ├── drift.json             (when given) the drift report
    └── metadata.json          stats, generation settings, generated_at, scoring, versions

Every file is validated with these pydantic models when written and when loaded
(:mod:`~docmentor.library.knowledge.kb_files`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from docmentor.embeddings import LibraryVectors
from docmentor.library.models import ApiEntry, Example

__all__ = [
    "ASPECTS",
    "INDEX_PAGES",
    "KB_FORMAT",
    "Aspect",
    "Concept",
    "DocSection",
    "KbEmbeddings",
    "KbFiles",
    "KbIndex",
    "KbMetadata",
    "KnowledgeBase",
    "LibraryOverview",
    "NamedText",
]

Aspect = Literal["architecture", "quickstart", "concepts"]
ASPECTS: tuple[Aspect, ...] = ("architecture", "quickstart", "concepts")
# bumped when a catalog field is added: an older docmentor then says the knowledge base is
# newer than it, instead of failing its schema (2: open_members, item_class_id, writable;
# 3: internal, instance_attribute, command — what the surface knows is no API users call;
# 4: documented — the docs' directives document it; 5: Example.origin — examples from the
# APIs' docstrings; 6: ApiEntry.init_docstring(_line) — a class's __init__ text beside its
# own; 7: ApiEntry.overloads — typed @overload signatures of an unannotated function; 8:
# ApiEntry.foreign — an API another distribution defines and the library re-exports; 9:
# Example.doctest_group — the sphinx.ext.doctest group of a testcode/doctest block; 10:
# ApiEntry.docs_text — the docs' directive bodies on an API; 11: ApiEntry.abstract and
# ApiEntry.exception — README.LLM says where an abstract class's instances come from, and
# that an exception is raised; 12: ApiEntry.bound_names — the module-level names of a
# module-level instance's method; 13: ApiEntry.raised — where the code raises an exception,
# with what message; 14: ApiEntry.enum — README.LLM shows an enumeration's members, not a
# call); this one reads every format up to its own (new fields have defaults)
KB_FORMAT = 14
INDEX_PAGES = ("index.md", "readme.md", "index.rst", "readme.rst", "index.mdx")  # a docs home page


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KbFiles(_Model):
    overview: str = "library_overview.json"
    metadata: str = "metadata.json"
    api_catalog: dict[str, str] = Field(default_factory=dict)  # group -> relative path
    examples_db: dict[str, str] = Field(default_factory=dict)  # group -> relative path
    drift: str | None = None
    embeddings: str | None = None  # embeddings/api_embeddings.json (model, ids) beside its .npy


class KbEmbeddings(_Model):
    model: str
    dimensions: int
    api_ids: list[str]  # the API each row belongs to
    primary: int | None = None  # the first rows are one per API; after them, docstring passages
    matrix: str = "api_embeddings.npy"  # relative to this file's folder


class KbIndex(_Model):
    format: int = KB_FORMAT
    library: str
    version: str | None
    generated_at: str
    counts: dict[str, int]
    files: KbFiles


class NamedText(_Model):
    name: str
    description: str = ""


class Concept(_Model):
    name: str  # a heading
    description: str = ""  # the first sentences under it
    page: str = ""  # the title of its page
    source: str = ""  # document path#anchor


class LibraryOverview(_Model):
    library: str
    version: str | None
    description: str = ""
    key_modules: list[NamedText] = Field(default_factory=list)
    key_classes: list[NamedText] = Field(default_factory=list)
    install: list[str] = Field(default_factory=list)
    quickstart_examples: list[str] = Field(default_factory=list)  # example_ids
    concepts: list[Concept] = Field(default_factory=list)
    aspects: dict[Aspect, str] = Field(default_factory=dict)  # what get_library_overview(aspect) returns


class KbMetadata(_Model):
    library: str
    version: str | None
    generated_at: str
    stats: dict[str, Any]
    settings: dict[str, Any]
    scoring: dict[str, Any]
    versions: dict[str, str | None]


@dataclass(frozen=True)
class KnowledgeBase:
    """A knowledge base as loaded (every file validated)."""

    path: Path
    index: KbIndex
    overview: LibraryOverview
    entries: list[ApiEntry]
    examples: list[Example]
    metadata: KbMetadata
    drift: Any = None
    vectors: LibraryVectors | None = None  # the APIs' embeddings, when generated with them

    @property
    def library(self) -> str:
        return self.index.library

    @property
    def version(self) -> str | None:
        return self.index.version


@dataclass(frozen=True)
class DocSection:
    """One stored section of the docs, for the overview's concepts and prose mentions."""

    path: str
    title: str
    heading: str
    level: int
    anchor: str
    text: str


# -- the overview ------------------------------------------------------------------------
