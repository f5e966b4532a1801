"""Plain data passed between the pipeline stages (sources → parse → store → search)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from docmentor.errors import UsageError, did_you_mean

DocFormat = Literal["markdown", "rst", "text"]  # what parse reads a document as

SourceKind = Literal["folder", "llms_txt", "llms_full"]


@dataclass(frozen=True, slots=True)
class SourceOptions:
    """How one source is read. ``None``: not given, the reader's default applies.

    Options enter once, through :meth:`parse` (``docmentor.toml``, ``Docmentor.add``'s
    ``options``) or :meth:`from_stored` (the index's JSON of them), or are made directly (the
    CLI's flags, a Python caller), and are passed typed from there. However they are made,
    the numbers are checked against :data:`WHOLE_RANGES` and :data:`SECONDS_OPTIONS`.
    :meth:`as_dict` is that JSON: the given options only, as they were given.
    """

    base_paths: tuple[str, ...] | None = None  # folders: extra folders includes may read from
    use_gitignore: bool | None = None  # folders: skip what .gitignore ignores (default true)
    max_bytes: int | None = None  # files and responses larger than this are skipped
    max_included_bytes: int | None = None  # folders: what includes may add in total
    translations: bool | None = None  # folders: index the trees that translate the docs (default false)
    allowed_hosts: tuple[str, ...] | None = None  # llms.txt: other hosts it may link to
    include_optional: bool | None = None  # llms.txt: fetch its "## Optional" links (default true)
    concurrency: int | None = None  # llms.txt: documents fetched at once
    timeout: float | None = None  # llms.txt: seconds per request
    retries: int | None = None  # llms.txt: extra attempts on 5xx, 429 and time-outs
    deadline: float | None = None  # llms.txt: seconds for one refresh of the source
    #: the library version the docs describe (the source is named ``NAME@VERSION``); None:
    #: read from the docs' package metadata, an llms.txt or the installed package
    version: str | None = None

    def __post_init__(self) -> None:
        """Raises :class:`UsageError` naming the option (``arguments``) out of its range."""
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            if f.name == "version" and not VERSION_TEXT.fullmatch(str(value)):
                raise UsageError(
                    f"version {value!r} is not a release number",
                    hint="for example 0.27, 2.1.0 or 1.0.0-beta.1",
                    arguments=("version",),
                )
            if f.name in WHOLE_RANGES:
                lo, hi = WHOLE_RANGES[f.name]
                if not _in_range(value, lo, hi):
                    raise UsageError(f"{f.name} must be {_range_words(lo, hi)}", arguments=(f.name,))
            elif f.name in SECONDS_OPTIONS and not _positive_seconds(value):
                raise UsageError(f"{f.name} must be positive", arguments=(f.name,))
            elif f.name in ("allowed_hosts", "base_paths") and any(not str(v).strip() for v in value):
                raise UsageError(f"{f.name} has an empty entry", arguments=(f.name,))

    @classmethod
    def parse(cls, given: Mapping[str, object], *, where: str = "source options") -> SourceOptions:
        """Options as a user gave them (a ``[[sources]]`` table, a Python mapping).

        Raises:
            UsageError: an unknown option (a typo must not be ignored) or a value of the wrong
                kind, naming ``where``, the option and the value.
        """
        known = {f.name for f in fields(cls)}
        for key in given:
            if key not in known:
                raise UsageError(
                    f"{where}: unknown source option {key!r}",
                    hint=f"{did_you_mean(key, known)}the source options are {', '.join(sorted(known))}",
                )
        return cls._read(given, where)

    @classmethod
    def from_stored(cls, stored: Mapping[str, object]) -> SourceOptions:
        """The index's JSON of a source's options. Keys this version does not know (a newer
        version's) are left out; a bad value raises :class:`UsageError` as :meth:`parse` does."""
        known = {f.name for f in fields(cls)}
        return cls._read({k: v for k, v in stored.items() if k in known}, "the stored source options")

    @classmethod
    def _read(cls, given: Mapping[str, object], where: str) -> SourceOptions:
        def get(key: str, read: Any) -> Any:
            value = given.get(key)
            return None if value is None else read(where, key, value)

        return cls(
            base_paths=get("base_paths", _strings),
            use_gitignore=get("use_gitignore", _flag),
            max_bytes=get("max_bytes", _whole),
            max_included_bytes=get("max_included_bytes", _whole),
            translations=get("translations", _flag),
            allowed_hosts=get("allowed_hosts", _strings),
            include_optional=get("include_optional", _flag),
            concurrency=get("concurrency", _whole),
            timeout=get("timeout", _seconds),
            retries=get("retries", _whole),
            deadline=get("deadline", _seconds),
            version=get("version", _version),
        )

    def as_dict(self) -> dict[str, object]:
        """The given options, JSON-ready (lists for sequences), as stored in the index."""
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


#: what a library version may look like (PEP 440 and semver alike: ``0.27``, ``1!2.0``,
#: ``1.0.0-beta.1``, ``2.0+local``): it is part of a source's name, so no spaces, slashes or ``@``
VERSION_TEXT = re.compile(r"v?[0-9][A-Za-z0-9_.+!-]{0,63}")

#: the whole-number options' ranges (lowest, highest; None: no limit), however options are made
WHOLE_RANGES: dict[str, tuple[int, int | None]] = {
    "max_bytes": (1, None),
    "max_included_bytes": (0, None),
    "concurrency": (1, 64),
    "retries": (0, None),
}
#: the options in seconds: positive, finite numbers
SECONDS_OPTIONS = ("timeout", "deadline")
#: a sensible value of each whole-number option, told with its error (a size in bytes: 5 MB)
WHOLE_EXAMPLES = {"max_bytes": 5_000_000, "max_included_bytes": 5_000_000, "concurrency": 8, "retries": 2}


def _in_range(value: object, lo: int, hi: int | None) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return lo <= value and (hi is None or value <= hi)


def _range_words(lo: int, hi: int | None) -> str:
    if hi is not None:
        return f"between {lo} and {hi}"
    return "positive" if lo == 1 else f"at least {lo}"


def _positive_seconds(value: object) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    return math.isfinite(value) and value > 0


def _whole(where: str, key: str, value: object) -> int:
    lo, hi = WHOLE_RANGES[key]
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())  # e.g. max_bytes = "5000" in docmentor.toml, as before
    if number is None or not _in_range(number, lo, hi):
        bound = f"of at least {lo}" if hi is None else f"between {lo} and {hi}"
        raise UsageError(
            f"{where}: {key} must be a whole number {bound}, not {value!r}",
            hint=f"for example {key} = {WHOLE_EXAMPLES.get(key, max(lo, 1) * 10)}",
        )
    return number


def _seconds(where: str, key: str, value: object) -> float:
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = value  # an int stays an int: the stored JSON keeps what was given
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not _positive_seconds(number):
        raise UsageError(
            f"{where}: {key} must be a positive number of seconds, not {value!r}",
            hint=f"for example {key} = 20",
        )
    return number


def _version(where: str, key: str, value: object) -> str:
    # a number is refused: TOML's 1.10 is the float 1.1
    text = value.strip() if isinstance(value, str) else ""
    if not VERSION_TEXT.fullmatch(text):
        raise UsageError(
            f'{where}: {key} must be a version in quotes such as "0.27" or "2.1.0", not {value!r}',
            hint=f'for example {key} = "2.1.0"',
        )
    return text


def _flag(where: str, key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{where}: {key} must be true or false, not {value!r}")
    return value


def _strings(where: str, key: str, value: object) -> tuple[str, ...]:
    items = value if isinstance(value, list | tuple) else None
    if items is None or not all(isinstance(v, str | os.PathLike) for v in items):
        raise UsageError(
            f"{where}: {key} must be a list of strings, not {value!r}",
            hint=f'for example {key} = ["one", "two"]',
        )
    return tuple(str(os.fspath(v)) for v in items)


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A registered source: a name and what it points at."""

    name: str
    kind: SourceKind
    target: str  # absolute folder path, URL, or absolute path of a local llms.txt
    options: SourceOptions = field(default_factory=SourceOptions)


@dataclass(slots=True)
class RawDocument:
    """A document as a source produced it, before parsing.

    ``content`` is the text we serve: Markdown (or reST) with includes resolved.
    ``line_map[i]`` is the 1-based line in the original file that line ``i + 1`` of
    ``content`` came from (included lines map to their directive's line). ``None``
    means the identity map.
    """

    path: str  # relative to the folder added, or the URL's path
    url: str  # file:// URL or http(s) URL
    content: str
    fmt: DocFormat = "markdown"
    line_map: list[int] | None = None
    etag: str | None = None
    last_modified: str | None = None
    title_hint: str | None = None  # e.g. the link title from llms.txt
    warnings: list[str] = field(default_factory=list)
    searchable: bool = True  # False: kept for `get`, left out of search (an llms.txt's table of contents)
    updated_at: str | None = None  # ISO time of the last change: git commit, mtime or Last-Modified


@dataclass(frozen=True, slots=True)
class CodeBlock:
    language: str
    code: str
    line: int  # 1-based line of the opening fence in the original file


@dataclass(frozen=True, slots=True)
class Link:
    target: str
    anchor: str | None
    text: str
    line: int


@dataclass(slots=True)
class Section:
    heading: str  # "" for the text before the first heading
    heading_path: list[str]
    level: int  # 0 for the preamble
    line_start: int  # 1-based, inclusive, in the original file
    line_end: int
    text: str  # the section's own text (heading line included, subsections excluded)
    code_blocks: list[CodeBlock] = field(default_factory=list)
    anchor: str = ""


@dataclass(slots=True)
class ParsedDocument:
    title: str
    meta: dict[str, object]
    sections: list[Section]
    links: list[Link]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked section. Field names are those of ``docmentor search --json``'s results."""

    rank: int
    source: str
    path: str
    url: str
    title: str
    heading: str
    heading_path: list[str]
    line_start: int
    line_end: int
    score: float
    snippet: str
    indexed_at: str = ""
    source_version: str | None = None
    #: why this version of its library answered, when several are indexed or one was asked
    #: for: "asked", "pinned" (the project's requirement) or "newest"; None: no choice was made
    version_reason: str | None = None
    document_id: int = 0  # internal handles for the library (not in ``search --json``)
    section_id: int = 0
    text: str = ""  # the whole section text as the index stored it (not in ``search --json``)
    #: near-identical sections elsewhere (source, path, heading, line_start, line_end), collapsed here
    also: list[dict[str, Any]] = field(default_factory=list)
    #: the last refresh could not update its document (a failed fetch, or gone from its origin
    #: and kept until ``refresh --prune``): said when true
    stale: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "source": self.source,
            "path": self.path,
            "url": self.url,
            "title": self.title,
            "heading": self.heading,
            "heading_path": list(self.heading_path),
            "line_start": self.line_start,
            "line_end": self.line_end,
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "indexed_at": self.indexed_at,
            "source_version": self.source_version,
            **({"version_reason": self.version_reason} if self.version_reason else {}),
            **({"stale": True} if self.stale else {}),
            "also": list(self.also),
        }
