"""Which indexed sources answer a read: ``source`` (a source's name, or a library's: every
version of it) and ``version`` narrowed to one version per library — the version asked
for, else the one the user's project pins, else the newest (:mod:`docmentor.sources.versions`).

With one version of each library indexed and no version asked, the scope is what it always
was: the source given, or every source.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docmentor.errors import DocmentorError, NotFoundError, UsageError
from docmentor.sources.project_files import requirement
from docmentor.sources.versions import choose_version, docs_source_name, library_of, matches, version_key

#: a lexical / vector search's source filter: one source, any of several, or every source
SourceFilter = str | tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class VersionScope:
    """The sources a read covers (``sources``: the search filter), and for each source
    chosen among its library's versions why (``reasons``: "asked", "pinned", "newest");
    ``notes`` say what the choice passed over (a pinned version that is not indexed)."""

    sources: SourceFilter
    reasons: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    versions: Mapping[str, str | None] = field(default_factory=dict)  # every source's version

    def names(self) -> list[str] | None:
        """The sources covered (None: every source)."""
        if self.sources is None:
            return None
        return [self.sources] if isinstance(self.sources, str) else list(self.sources)

    def to_dict(self) -> dict[str, Any]:
        covered = self.names()
        return {
            "sources": covered,
            "versions": {s: self.versions.get(s) for s in covered or self.versions},
            "reasons": dict(self.reasons),
            "notes": list(self.notes),
        }


def unknown_source(
    source: str, known: Iterable[str], configured: Mapping[str, str] | None = None
) -> DocmentorError:
    """The error for a source name no source has: the known ones, and those the name starts
    (``tenacity`` → ``tenacity-docs``, the source ``readme-llm generate`` indexed) or, failing
    that, those it misspells (``htpx`` → ``httpx``). A blank
    name is a usage error (an empty variable in a script), not a source that is missing.
    ``configured``: the configured sources not indexed yet (name → the file configuring it):
    one of them is told as such, with how to index it."""
    names, waiting = sorted(known), dict(configured or {})
    if not source.strip():
        return UsageError("empty source name", hint=f"name one of: {', '.join(names) or 'none'}")
    if source in waiting:
        return NotFoundError(
            f"{source!r} is configured in {waiting[source]} but not indexed yet",
            hint=f"`docmentor refresh {source}` indexes it",
        )
    candidates = [*names, *sorted(waiting)]
    near = [n for n in candidates if n.lower().startswith(source.lower()) and n != source]
    if not near:  # a typo ("htpx"): the names close in spelling
        lowered = {n.lower(): n for n in candidates}
        cutoff = 0.75 if len(source) > 3 else 0.6  # one letter of three wrong ("enk")
        near = [lowered[n] for n in difflib.get_close_matches(source.lower(), lowered, n=3, cutoff=cutoff)]
    hint = f"known sources: {', '.join(names) or 'none'}"
    if waiting:
        hint += f"; configured, not indexed yet: {', '.join(sorted(waiting))}"
    if near:
        hint = f"did you mean {' or '.join(repr(n) for n in near[:3])}? {hint}"
    return NotFoundError(f"unknown source {source!r}", hint=hint)


def generated_docs(library: str, versions: Mapping[str, str | None]) -> list[str]:
    """The sources ``readme-llm generate`` indexed for ``library``'s docs: ``httpx-docs``
    (and its ``@VERSION`` names) and, for another version of it, ``httpx-0.28-docs``."""
    docs = docs_source_name(library)
    stem = docs.removesuffix("-docs")
    return sorted(
        n
        for n in versions
        if library_of(n) == docs
        or (
            n.startswith(stem + "-")
            and n.endswith("-docs")
            and _VERSION_TAIL.fullmatch(n[len(stem) + 1 : -5])
        )
    )


_VERSION_TAIL = re.compile(r"v?\d+(?:[.\w-]*\w)?")


def version_scope(
    versions: Mapping[str, str | None],
    *,
    source: str | None = None,
    version: str | None = None,
    project: Path | None = None,
) -> VersionScope:
    """The scope of a read over sources with these ``versions`` (name → version).

    Raises:
        NotFoundError: ``source`` names neither a source nor a library; or no source of the
            scope has ``version`` (the hint lists the versions that are indexed).
        UsageError: ``source`` or ``version`` is blank.
    """
    if version is not None and not version.strip():
        raise UsageError(
            "empty version", hint="give a release number such as 2.1.0, or leave the version out"
        )
    groups: dict[str, list[str]] = {}
    for name in sorted(versions):
        groups.setdefault(library_of(name), []).append(name)
    if source is not None and source not in versions and source not in groups:
        # `-s blinker`: the docs `readme-llm generate` indexed for the library, every version
        # (`httpx-docs`, and `httpx-0.28-docs` for a second one)
        made = generated_docs(source, versions)
        if len(made) == 1:
            source = made[0]
        elif made:
            groups[source] = made
    if source is not None:
        if source in versions and ("@" in source or len(groups[library_of(source)]) == 1):
            return _one_source(versions, source, version)
        if source not in groups:
            raise unknown_source(source, versions)
        wanted = {source: groups[source]}
    else:
        wanted = groups
    if version is None and all(len(m) == 1 for m in wanted.values()):
        return VersionScope(sources=None if source is None else wanted[source][0], versions=versions)
    allowed: list[str] = []
    reasons: dict[str, str] = {}
    notes: list[str] = []
    left_out: list[str] = []  # libraries without the version asked for (no source named)
    for lib, members in wanted.items():
        if version is None and len(members) == 1:
            allowed += members
            continue
        pin = requirement(project or Path.cwd(), lib) if version is None else None
        choice = choose_version(lib, [versions[m] for m in members], asked=version, requirement=pin)
        if choice is None:
            left_out.append(lib)
            continue
        picked = [m for m in members if versions[m] == choice.version]
        allowed += picked
        reasons.update(dict.fromkeys(picked, choice.reason))
        if choice.note:
            notes.append(choice.note)
    if not allowed:
        raise NotFoundError(
            f"no indexed version {version} of {source}" if source else f"no source has version {version}",
            hint=f"indexed versions: {indexed_versions(versions, wanted)}",
        )
    if left_out:  # an agent tour: pydantic's answers vanished for a version meant for httpx
        notes.append(
            f"version {version} left out {', '.join(left_out)}, which {'has' if len(left_out) == 1 else 'have'} "
            "no such version indexed: name the library with source to search it alone"
        )
    return VersionScope(
        sources=allowed[0] if len(allowed) == 1 else tuple(allowed),
        reasons=reasons,
        notes=tuple(notes),
        versions=versions,
    )


def _one_source(versions: Mapping[str, str | None], source: str, version: str | None) -> VersionScope:
    if version is None:
        return VersionScope(sources=source, versions=versions)
    if not matches(versions[source], version):
        raise NotFoundError(
            f"source {source!r} is version {versions[source] or 'unknown'}, not {version}",
            hint=f"indexed versions: {indexed_versions(versions, {library_of(source): [source]})}",
        )
    return VersionScope(sources=source, reasons={source: "asked"}, versions=versions)


def indexed_versions(versions: Mapping[str, str | None], groups: Mapping[str, list[str]]) -> str:
    """``httpx 0.27, 0.28; pydantic 2.5`` for the libraries of ``groups`` (all when empty)."""
    parts = []
    for lib, members in sorted(groups.items()):
        known = sorted({v for m in members if (v := versions.get(m))}, key=version_key)
        parts.append(f"{lib} {', '.join(known) if known else '(no version known)'}")
    return "; ".join(parts) or "none"
