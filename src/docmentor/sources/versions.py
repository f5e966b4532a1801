"""Library versions of documentation sources: which version a docs folder or an llms.txt
describes and where that was read (given, the docs' package metadata, the llms.txt, the
installed package), the names versions are indexed under (``httpx@0.27``: library
``httpx``), their order (PEP 440, else semver-like), and which indexed version answers a
question: the one asked for, else the one the user's project pins, else the newest.

Every regex here runs in linear time on any line.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Literal

from docmentor.models import SourceSpec
from docmentor.sources.project_files import ProjectRequirement, same_version

#: where a source's version was read
VersionOrigin = Literal[
    "given", "pyproject.toml", "package.json", "setup.cfg", "Cargo.toml", "PKG-INFO", "llms.txt", "installed"
]
#: why one version of a library answered: asked for, the project's requirement, the newest
VersionReason = Literal["asked", "pinned", "newest"]

#: lines of an llms.txt read for a stated version (its title, summary and first notes)
LLMS_HEAD_LINES = 40
#: metadata versions that say nothing (a docs site's placeholder)
PLACEHOLDERS = frozenset({"0.0.0", "0.0.0-development", "0.0.0-dev"})

# "version 1.2.3", "Version: v2.0", "version = 0.27" — the word, then the number
_STATED = re.compile(
    r"(?i)\bversion\b[ \t]*(?:[:=][ \t]*)?(v?\d+(?:\.\d+){0,3}(?:[-+][0-9A-Za-z.]{1,30})?)\b"
)
_NUMBERS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class FoundVersion:
    """A source's version and where it was read (:data:`VersionOrigin`)."""

    version: str
    origin: str


def library_of(source: str) -> str:
    """The library a source (or knowledge base) name belongs to: ``httpx@0.27`` → ``httpx``;
    a name without a version is its own library (``@scope/pkg`` too)."""
    head, at, _ = source.rpartition("@")
    return head if at and head else source


def docs_source_name(library: str) -> str:
    """The name of the docs source ``readme-llm generate`` indexes for ``library``
    (``httpx-docs``); a read naming the library finds it by that name too."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", library).strip("-._") or "library"
    return f"{name[:58]}-docs"


def versioned_name(library: str, version: str) -> str:
    """The name of version ``version`` of ``library``'s docs: ``httpx@0.27``."""
    return f"{library_of(library)}@{version}"


# -- reading the version -----------------------------------------------------------------------


def detect_version(
    *, given: str | None, folder: Path | None, llms_text: str | None, library: str
) -> FoundVersion | None:
    """The version a source describes: ``given`` (``--version``, ``version =`` in
    docmentor.toml), else the package metadata at the docs folder's project root, else the
    version an llms.txt states, else the installed package named as the library."""
    if given:
        return FoundVersion(given, "given")
    found = folder_version(folder) if folder is not None else None
    if found is None and llms_text is not None:
        stated = llms_version(llms_text)
        found = FoundVersion(stated, "llms.txt") if stated else None
    if found is None:
        installed = installed_version(library)
        found = FoundVersion(installed, "installed") if installed else None
    return found


def folder_version(folder: Path) -> FoundVersion | None:
    """The version in the package metadata of the project a docs folder belongs to: a
    pyproject.toml, package.json, setup.cfg or Cargo.toml in the folder itself or in its parent (the
    project root of ``project/docs``; for a folder inside the docs folder, ``docs/source`` or
    ``doc/en``, the one above), else the PKG-INFO of an unpacked sdist there (where
    the version the others leave dynamic is written out). Dynamic and placeholder versions
    say nothing."""
    roots = [folder, folder.parent]
    if folder.parent.name.lower() in ("docs", "doc", "documentation"):  # docs/source, doc/en
        roots.append(folder.parent.parent)
    for root in roots:
        for name, read in (
            ("pyproject.toml", _pyproject),
            ("package.json", _package_json),
            ("setup.cfg", _setup_cfg),
            ("Cargo.toml", _cargo_toml),
            ("PKG-INFO", _pkg_info),
        ):
            path = root / name
            if not path.is_file():
                continue
            try:
                version = read(path)
            except (OSError, UnicodeDecodeError, ValueError, tomllib.TOMLDecodeError, configparser.Error):
                version = None
            if version and version not in PLACEHOLDERS and _NUMBERS.match(version.lstrip("v")):
                return FoundVersion(version, name)
    return None


def _pyproject(path: Path) -> str | None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    project = data.get("project")
    if isinstance(project, dict) and isinstance(project.get("version"), str):
        return str(project["version"]).strip()
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    if isinstance(poetry, dict) and isinstance(poetry.get("version"), str):
        return str(poetry["version"]).strip()
    return None


def _cargo_toml(path: Path) -> str | None:
    """A Rust crate's ``[package] version`` (a workspace-inherited one says nothing)."""
    package = tomllib.loads(path.read_text(encoding="utf-8")).get("package")
    if isinstance(package, dict) and isinstance(package.get("version"), str):
        return str(package["version"]).strip()
    return None


def _package_json(path: Path) -> str | None:
    data = json.loads(path.read_text(encoding="utf-8"))
    version = data.get("version") if isinstance(data, dict) else None
    return version.strip() if isinstance(version, str) else None


def _setup_cfg(path: Path) -> str | None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(path.read_text(encoding="utf-8"))
    version = parser.get("metadata", "version", fallback=None)
    if version is None or version.strip().startswith(("attr:", "file:")):
        return None
    return version.strip()


def _pkg_info(path: Path) -> str | None:
    """``Version:`` of a PKG-INFO's header (core metadata: the lines before the first blank)."""
    with path.open(encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f):
            if not line.strip() or n > 200:
                break
            key, colon, value = line.partition(":")
            if colon and key.strip().lower() == "version":
                return value.strip() or None
    return None


def llms_version(text: str) -> str | None:
    """The version an llms.txt states in its head (title, summary, notes before the first
    section): ``> Docs for version 2.1.0``, ``Version: 0.27``."""
    for line in text.splitlines()[:LLMS_HEAD_LINES]:
        if line.startswith("## "):
            break
        m = _STATED.search(line[:1000])
        if m:
            return m.group(1)
    return None


def installed_version(library: str) -> str | None:
    """The version of the installed distribution named as the library, if there is one and
    it is not there for docmentor itself: a package docmentor requires (httpx, pydantic,
    starlette through mcp, …) has the version docmentor's environment resolved, which says
    nothing of the docs a user adds when docmentor runs in an environment of its own (an
    installed tool)."""
    if not library or "/" in library:
        return None
    from importlib import metadata  # ~25 ms: only where a version is looked up

    try:
        version = metadata.version(library)
    except (metadata.PackageNotFoundError, ValueError):
        return None
    return None if _canonical(library) in own_requirements() else version


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@lru_cache(maxsize=1)
def own_requirements() -> frozenset[str]:
    """The distributions docmentor needs to run (its requirements, theirs, and so on; extras
    only as a requirement names them), canonical names. Empty when docmentor's own metadata is
    not installed (run from a source tree)."""
    from packaging.requirements import InvalidRequirement, Requirement

    seen: set[str] = set()
    from importlib import metadata

    walked: set[tuple[str, frozenset[str]]] = set()  # a package again with other extras is walked again
    todo: list[tuple[str, frozenset[str]]] = [("docmentor", frozenset())]
    while todo:
        name, extras = todo.pop()
        if (_canonical(name), extras) in walked:
            continue
        walked.add((_canonical(name), extras))
        try:
            requires = metadata.requires(name) or []
        except (metadata.PackageNotFoundError, ValueError):
            continue
        for line in requires:
            try:
                req = Requirement(line)
            except InvalidRequirement:
                continue
            wanted = any(
                req.marker is None or req.marker.evaluate({"extra": extra}) for extra in (*extras, "")
            )
            if wanted:
                seen.add(_canonical(req.name))
                todo.append((req.name, frozenset(req.extras)))
    return frozenset(seen)


def beside_other_version(spec: SourceSpec, existing: Mapping[str, tuple[str, str | None]]) -> SourceSpec:
    """``spec`` named ``NAME@VERSION`` when other versions of its library are indexed
    (``existing``: name → (target, version) of the indexed sources) and its version can be
    read: the docs of httpx 0.28 added as ``httpx`` beside the 0.27 already there. The docs
    of an indexed source added again keep its name (a refresh). Otherwise ``spec`` as it is."""
    held = existing.get(spec.name)
    if spec.options.version or (held is not None and held[0] == spec.target):
        return spec
    library = library_of(spec.name)
    same = [n for n, (target, _) in existing.items() if target == spec.target and library_of(n) == library]
    if same:
        return replace(spec, name=same[0])
    if not any(library_of(n) == library for n in existing):
        return spec
    folder = Path(spec.target) if spec.kind == "folder" else None
    found = detect_version(given=None, folder=folder, llms_text=None, library=library)
    if found is None:
        return spec
    name = versioned_name(library, found.version)
    return spec if name in existing else replace(spec, name=name)


# -- order and choice -----------------------------------------------------------------------------


def version_key(version: str | None) -> tuple[int, object]:
    """A sort key: PEP 440 order where the text is a PEP 440 version (``1.0.0-beta.1`` too),
    else by its numbers; an unknown version first."""
    from packaging.version import InvalidVersion, Version

    if not version:
        return (0, ())
    try:
        return (2, Version(version))
    except InvalidVersion:
        return (1, tuple(int(n[:18]) for n in _NUMBERS.findall(version)))


def newest(versions: Iterable[str | None]) -> str | None:
    """The newest of ``versions`` (:func:`version_key`)."""
    return max(versions, key=version_key, default=None)


def newest_release(versions: Iterable[str | None]) -> str | None:
    """The newest of ``versions`` that is no pre-release or development release, as pip
    installs by default (``1.9`` over ``2.0rc1``); the newest of all when every one is."""
    known = list(versions)
    return newest(v for v in known if not _prerelease(v)) or newest(known)


def _prerelease(version: str | None) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return bool(version) and Version(str(version)).is_prerelease
    except InvalidVersion:
        return False


def matches(indexed: str | None, asked: str) -> bool:
    """Whether an indexed version is the one asked for: equal (``0.27`` is ``0.27.0``), or
    within it (``0.27`` asked, ``0.27.2`` indexed)."""
    if not indexed:
        return False
    return same_version(indexed, asked) or _release_within(indexed, asked)


def _release_within(version: str, prefix: str) -> bool:
    mine, theirs = _release(version), _release(prefix)
    return bool(theirs) and mine[: len(theirs)] == theirs and _is_release(prefix)


def _release(version: str) -> tuple[int, ...]:
    from packaging.version import InvalidVersion, Version

    try:
        return tuple(Version(version).release)
    except InvalidVersion:
        return tuple(int(n[:18]) for n in _NUMBERS.findall(version))


def _is_release(version: str) -> bool:
    """Only numbers and dots (``0.27``): a prefix of releases, not a pre-release."""
    return all(part.isdigit() for part in version.lstrip("vV").split("."))


@dataclass(frozen=True, slots=True)
class VersionChoice:
    """The version of one library that answers: ``version`` (None: unknown), ``reason``
    (:data:`VersionReason`), and ``note``: what the choice passed over (a pin not indexed)."""

    version: str | None
    reason: str
    note: str | None = None


def choose_version(
    library: str,
    versions: Sequence[str | None],
    *,
    asked: str | None = None,
    requirement: ProjectRequirement | None = None,
) -> VersionChoice | None:
    """Which of a library's indexed ``versions`` answers: the one ``asked`` for (the newest
    of those it names: ``0.27`` names ``0.27.2``; None when none does), else the one the
    project's ``requirement`` pins or allows (the newest it allows), else the newest release
    (a pre-release only when no release is indexed)."""
    known = [v for v in versions if v]
    if asked is not None:
        fitting = [v for v in known if matches(v, asked)]
        return VersionChoice(newest_release(fitting), "asked") if fitting else None
    if requirement is not None:
        pinned = _pinned(known, requirement)
        if pinned is not None:
            return VersionChoice(pinned, "pinned")
        note = (
            f"your project requires {requirement.name}{requirement.specifier}, which no indexed "
            f"version of {library} fits ({', '.join(sorted(known, key=version_key)) or 'none'})"
        )
        return VersionChoice(newest_release(versions), "newest", note)
    return VersionChoice(newest_release(versions), "newest")


def _pinned(known: Sequence[str], requirement: ProjectRequirement) -> str | None:
    exact = requirement.pinned
    if exact is not None:
        same = [v for v in known if same_version(v, exact)]
        if same:
            return same[0]
        # docs of a series: 0.27 describes the pinned 0.27.2 (the longest such prefix)
        within = [v for v in known if _is_release(v) and _release_within(exact, v)]
        if within:
            return max(within, key=lambda v: len(_release(v)))
    allowed = [v for v in known if not requirement.excludes(v)]
    return newest_release(allowed) if allowed and _readable(requirement) else None


def _readable(requirement: ProjectRequirement) -> bool:
    """Whether the requirement's specifier can be read (else it excludes nothing)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(requirement.specifier)
    except InvalidSpecifier:
        return False
    return True
