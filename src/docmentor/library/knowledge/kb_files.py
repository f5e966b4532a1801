"""Writing and loading a ``knowledge_base/`` folder (layout: :mod:`~docmentor.library.knowledge.kb_schema`).

A knowledge base is written into a temporary sibling folder and renamed over the old one
only when complete, so a failed generation leaves the previous knowledge base as it was;
the APIs' embeddings are stored beside the JSON files (``embeddings/``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from docmentor.embeddings import LibraryVectors
from docmentor.errors import NotFoundError, StoreError
from docmentor.library.find.config import DEFAULT as RANKING
from docmentor.library.knowledge.importance import SCORING, public_path
from docmentor.library.knowledge.kb_schema import (
    KB_FORMAT,
    KbEmbeddings,
    KbFiles,
    KbIndex,
    KbMetadata,
    KnowledgeBase,
    LibraryOverview,
)
from docmentor.library.models import ApiEntry, Example

__all__ = [
    "api_group",
    "as_created",
    "example_group",
    "load_kb",
    "write_kb",
]

# -- grouping ----------------------------------------------------------------------------------


def api_group(entry: ApiEntry, by_id: Mapping[str, ApiEntry]) -> str:
    """The catalog file an API goes in: its class (a class and its members) or its module."""
    owner = entry
    while owner.parent is not None and owner.parent in by_id:
        owner = by_id[owner.parent]
    path = public_path(owner)
    if owner.kind in ("class", "module"):
        return path
    return path.rsplit(".", 1)[0] if "." in path else path


def example_group(example: Example) -> str:
    """The examples_db file an example goes in: its documentation page."""
    stem = re.sub(r"\.(md|mdx|markdown|rst|txt|ipynb)$", "", example.path, flags=re.I)
    return stem or "examples"


def _file_names(groups: Sequence[str], folder: str) -> dict[str, str]:
    """group -> ``folder/<safe name>.json``, unique even on case-insensitive file systems."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for g in sorted(groups):
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", g).strip("._") or "group"
        if len(safe) > 100 or safe.lower() in taken:
            safe = f"{safe[:80]}-{hashlib.sha1(g.encode()).hexdigest()[:8]}"
        taken.add(safe.lower())
        out[g] = f"{folder}/{safe}.json"
    return out


# -- writing -------------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # allow_nan=False: NaN is not JSON; a value json cannot write fails here (TypeError/ValueError)
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")


def write_kb(
    directory: Path,
    *,
    library: str,
    version: str | None,
    overview: LibraryOverview,
    entries: Sequence[ApiEntry],
    examples: Sequence[Example],
    settings: Mapping[str, Any],
    stats: Mapping[str, Any],
    drift: Any = None,
    vectors: LibraryVectors | None = None,
) -> KnowledgeBase:
    """Write ``directory`` (a ``knowledge_base`` folder), replacing what was there atomically.

    Args:
        directory: the knowledge base folder; its parent is created when missing.
        library, version: what it describes.
        overview: from :func:`~docmentor.library.knowledge.overview.build_overview`.
        entries: the API catalog (importance scored, examples linked).
        examples: the examples database.
        settings: the generation settings (recorded in metadata.json).
        stats: generation statistics (recorded in metadata.json).
        drift: a JSON-able drift report, written as drift.json when given.
        vectors: the APIs' embeddings, written to embeddings/ when given.

    Returns:
        The knowledge base as written (validated).

    Raises:
        StoreError: a record does not validate or cannot be written; the old folder is intact.
    """
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    stamp = _now()
    try:
        # validate on write: re-build every record from its data (in-place edits skip pydantic)
        checked_entries = [ApiEntry.model_validate(e.model_dump(warnings=False)) for e in entries]
        checked_examples = [Example.model_validate(x.model_dump(warnings=False)) for x in examples]
        checked_overview = LibraryOverview.model_validate(overview.model_dump(warnings=False))
    except ValidationError as exc:
        raise StoreError(f"invalid knowledge base record: {exc}") from exc
    checked_entries.sort(key=lambda e: (-e.importance_score, e.api_id))
    by_id = {e.api_id: e for e in checked_entries}
    api_groups: dict[str, list[ApiEntry]] = {}
    for e in checked_entries:
        api_groups.setdefault(api_group(e, by_id), []).append(e)
    ex_groups: dict[str, list[Example]] = {}
    for x in checked_examples:
        ex_groups.setdefault(example_group(x), []).append(x)
    files = KbFiles(
        api_catalog=_file_names(list(api_groups), "api_catalog"),
        examples_db=_file_names(list(ex_groups), "examples_db"),
        drift="drift.json" if drift is not None else None,
        embeddings=_EMBEDDINGS if vectors is not None else None,
    )
    index = KbIndex(
        library=library,
        version=version,
        generated_at=stamp,
        counts={
            "apis": len(checked_entries),
            "examples": len(checked_examples),
            "api_files": len(api_groups),
            "example_files": len(ex_groups),
        },
        files=files,
    )
    try:
        from docmentor import __version__ as docmentor_version

        metadata = KbMetadata(
            library=library,
            version=version,
            generated_at=stamp,
            stats=dict(stats),
            settings=dict(settings),
            scoring={"name": SCORING, "weights": RANKING.importance_weights(), "range": [0.0, 1.0]},
            versions={
                "library": version,
                "docmentor": docmentor_version,
                "python": ".".join(map(str, sys.version_info[:3])),
                "kb_format": str(KB_FORMAT),
            },
        )
    except ValidationError as exc:
        raise StoreError(f"invalid knowledge base metadata: {exc}") from exc

    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}-new-", dir=directory.parent))
    as_created(tmp)
    try:
        for group, rel in files.api_catalog.items():
            _dump(tmp / rel, [e.model_dump(mode="json") for e in api_groups[group]])
        for group, rel in files.examples_db.items():
            _dump(tmp / rel, [x.model_dump(mode="json") for x in ex_groups[group]])
        _dump(tmp / files.overview, checked_overview.model_dump(mode="json"))
        if drift is not None:
            _dump(tmp / "drift.json", drift)
        if vectors is not None:
            _dump_vectors(tmp, vectors)
        _dump(tmp / files.metadata, metadata.model_dump(mode="json"))
        _dump(tmp / "index.json", index.model_dump(mode="json"))  # last: its presence marks a whole KB
        written = load_kb(tmp)  # validate on write: what readers will load
        _swap(tmp, directory)
    except (TypeError, ValueError, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise StoreError(
            f"could not write the knowledge base {directory}: {exc}",
            hint="the previous knowledge base (if any) was left as it was",
        ) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return KnowledgeBase(
        path=directory,
        index=written.index,
        overview=written.overview,
        entries=written.entries,
        examples=written.examples,
        metadata=written.metadata,
        drift=written.drift,
        vectors=written.vectors,
    )


_EMBEDDINGS = "embeddings/api_embeddings.json"


def _dump_vectors(folder: Path, vectors: LibraryVectors) -> None:
    import numpy as np

    if vectors.matrix.ndim != 2 or vectors.matrix.shape[0] != len(vectors.api_ids):
        raise ValueError(f"embeddings: {vectors.matrix.shape} does not fit {len(vectors.api_ids)} APIs")
    meta = KbEmbeddings(
        model=vectors.model,
        dimensions=int(vectors.matrix.shape[1]),
        api_ids=vectors.api_ids,
        primary=vectors.primary,
    )
    target = folder / _EMBEDDINGS
    target.parent.mkdir(parents=True, exist_ok=True)
    np.save(target.parent / meta.matrix, np.ascontiguousarray(vectors.matrix, dtype=np.float32))
    _dump(target, meta.model_dump(mode="json"))


def _load_vectors(directory: Path, rel: str) -> LibraryVectors:
    import numpy as np

    path = directory / rel
    meta: KbEmbeddings = _valid(KbEmbeddings, _read(path, directory), path)
    matrix_path = path.parent / meta.matrix
    if Path(meta.matrix).name != meta.matrix:
        raise StoreError(f"knowledge base {directory}: embeddings file {meta.matrix!r} points elsewhere")
    try:
        matrix = np.load(matrix_path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise StoreError(
            f"knowledge base file {matrix_path} is not a readable embeddings matrix: {exc}",
            hint="regenerate it: docmentor readme-llm generate",
        ) from exc
    if matrix.dtype != np.float32 or matrix.shape != (len(meta.api_ids), meta.dimensions):
        raise StoreError(
            f"knowledge base file {matrix_path} holds {matrix.dtype} {matrix.shape},"
            f" not float32 ({len(meta.api_ids)}, {meta.dimensions})",
            hint="regenerate it: docmentor readme-llm generate",
        )
    primary = meta.primary if meta.primary is not None else len(meta.api_ids)
    return LibraryVectors(model=meta.model, api_ids=list(meta.api_ids), matrix=matrix, primary=primary)


def _umask() -> int:
    try:  # Linux says it without changing it (another thread may be creating files)
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere reading it means setting it: set back at once
    os.umask(mask)
    return mask


def as_created(path: Path) -> None:
    """Give a file or folder made by ``tempfile`` (private: 0600 / 0700) the mode an ordinary
    ``open`` or ``mkdir`` would have (0644 / 0755 under umask 022): outputs are for others to
    read too (a CI job, a container, another user)."""
    mode = 0o777 if path.is_dir() else 0o666
    os.chmod(path, mode & ~_umask())


def _swap(new: Path, target: Path) -> None:
    """Put the complete folder ``new`` at ``target``; the old one goes only once ``new`` is in place."""
    if not target.exists() and not target.is_symlink():
        os.rename(new, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
    os.rmdir(old)
    os.rename(target, old)
    try:
        os.rename(new, target)
    except OSError:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


# -- loading ----------------------------------------------------------------------------------------


def _read(path: Path, kb: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(
            f"knowledge base {kb} is incomplete: {path.relative_to(kb)} is missing",
            hint="regenerate it: docmentor readme-llm generate",
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(
            f"knowledge base file {path} is not readable JSON: {exc}",
            hint="regenerate it: docmentor readme-llm generate",
        ) from exc


def _valid(model: Any, data: Any, path: Path) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise StoreError(
            f"knowledge base file {path} does not match its schema"
            f" ({exc.error_count()} error(s); first at {where or 'top level'}: {first.get('msg')})",
            hint="regenerate it: docmentor readme-llm generate",
        ) from exc


def load_kb(directory: Path) -> KnowledgeBase:
    """Load and validate a knowledge base folder.

    Raises:
        NotFoundError: there is no knowledge base there.
        StoreError: a file is missing, is not JSON or does not match its schema.
    """
    directory = Path(directory)
    if not (directory / "index.json").is_file():
        raise NotFoundError(
            f"no knowledge base at {directory}", hint="generate one: docmentor readme-llm generate"
        )
    index: KbIndex = _valid(KbIndex, _read(directory / "index.json", directory), directory / "index.json")
    if index.format > KB_FORMAT:
        raise StoreError(
            f"knowledge base {directory} has format {index.format}, newer than this docmentor's {KB_FORMAT}",
            hint="upgrade docmentor or regenerate it",
        )
    files = index.files
    named = [files.overview, files.metadata, *files.api_catalog.values(), *files.examples_db.values()]
    for rel in [*named, *([files.embeddings] if files.embeddings else [])]:
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise StoreError(f"knowledge base {directory}: file map entry {rel!r} points outside it")
    overview = _valid(
        LibraryOverview, _read(directory / files.overview, directory), directory / files.overview
    )
    metadata = _valid(KbMetadata, _read(directory / files.metadata, directory), directory / files.metadata)
    entries: list[ApiEntry] = []
    for rel in files.api_catalog.values():
        data = _read(directory / rel, directory)
        if not isinstance(data, list):
            raise StoreError(f"knowledge base file {directory / rel} must hold a list of APIs")
        entries += [_valid(ApiEntry, item, directory / rel) for item in data]
    examples: list[Example] = []
    for rel in files.examples_db.values():
        data = _read(directory / rel, directory)
        if not isinstance(data, list):
            raise StoreError(f"knowledge base file {directory / rel} must hold a list of examples")
        examples += [_valid(Example, item, directory / rel) for item in data]
    drift = _read(directory / files.drift, directory) if files.drift else None
    vectors = _load_vectors(directory, files.embeddings) if files.embeddings else None
    if len(entries) != index.counts.get("apis", len(entries)) or len(examples) != index.counts.get(
        "examples", len(examples)
    ):
        raise StoreError(
            f"knowledge base {directory} is inconsistent: index.json counts differ from its files",
            hint="regenerate it: docmentor readme-llm generate",
        )
    entries.sort(key=lambda e: (-e.importance_score, e.api_id))
    return KnowledgeBase(
        path=directory,
        index=index,
        overview=overview,
        entries=entries,
        examples=examples,
        metadata=metadata,
        drift=drift,
        vectors=vectors,
    )
