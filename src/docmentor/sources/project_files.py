"""What the user's project requires of a library: read from its uv.lock, poetry.lock,
pyproject.toml (PEP 621 and Poetry dependencies), requirements*.txt (and the files those
include), as pip, uv and Poetry read them, and package.json (npm ranges as PEP 440
specifiers: ``^4.2.0`` is ``>=4.2.0,<5``).

The library-knowledge answers use it to warn when a project pins another version of a
library than the one described, and searches to choose which indexed version of a library
answers (:mod:`docmentor.sources.versions`). Every regex here runs in linear time on any line.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

#: how deep ``-r other.txt`` includes are followed
MAX_INCLUDE_DEPTH = 5

_RELEASE = re.compile(r"v?(\d+(?:\.\d+)*)(.*)", re.DOTALL)  # DOTALL: fullmatch never backtracks
_SEPARATORS = re.compile(r"[-_.]+")
_CONTINUATION = re.compile(r"\\\s*\n")  # a backslash ending a line: it goes on
_COMMENT = re.compile(r"(?:^|\s)#")
_OPTION = re.compile(r"(?:^|\s)--?[A-Za-z]")
_INCLUDE = re.compile(r"^\s*(?:-r|--requirement|-c|--constraint)(?:\s+|=)(\S+)")
_OPERATOR_SPACE = re.compile(r"(\^|~>?|>=|<=|>|<|=)[ \t]+")  # ">= 1.2": the operator joined to its version
# one comparator of an npm (or Poetry) range: an operator, then a version that may hold x / *
_NPM_PART = re.compile(r"(\^|~>?|>=|<=|>|<|=)?\s*v?([0-9xX*]+(?:\.[0-9xX*]+){0,2})(-[0-9A-Za-z.-]{1,40})?")


class ProjectRequirement(NamedTuple):
    """What a project requires of a library: the name as the project writes it and the
    version specifier (``==1.0.0``, ``<0.25,>=0.20``)."""

    name: str
    specifier: str

    @property
    def pinned(self) -> str | None:
        """The exact version the specifier pins (``==1.0`` and ``===1.0`` alike), if it does."""
        spec = self.specifier
        if "," in spec or "*" in spec or not spec.startswith("=="):
            return None
        return spec.lstrip("=").strip() or None

    def excludes(self, version: str) -> bool:
        """Whether ``version`` is outside the specifier (False when either cannot be read)."""
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion, Version

        spec = self.specifier
        try:
            return not SpecifierSet(spec).contains(Version(version), prereleases=True)
        except (InvalidSpecifier, InvalidVersion):
            exact = spec.lstrip("=") if spec.startswith("==") and "," not in spec else None
            return exact is not None and not same_version(exact, version)


def normalize_name(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Py_YAML`` is ``py-yaml``."""
    return _SEPARATORS.sub("-", name).lower()


def same_version(a: str, b: str) -> bool:
    """PEP 440 equality for the usual cases: ``1.2`` is ``1.2.0``, ``V1.2`` is ``1.2``."""

    def key(v: str) -> tuple[tuple[str, ...], str] | str:
        m = _RELEASE.fullmatch(v.strip().lower())
        if m is None:
            return v.strip().lower()
        # numbers compared as digits without leading zeros (int() refuses very long ones)
        release = [x.lstrip("0") or "0" for x in m.group(1).split(".")]
        while len(release) > 1 and release[-1] == "0":
            release.pop()
        return tuple(release), m.group(2)

    return key(a) == key(b)


_Stamp = tuple[tuple[str, int, int], ...]
_CACHE: dict[tuple[str, tuple[str, ...]], tuple[_Stamp, ProjectRequirement | None]] = {}


def _stamp(folder: Path) -> _Stamp:
    # the .txt files beside them too: what a requirements file includes (`-r base.txt`)
    files = [
        folder / "uv.lock",
        folder / "poetry.lock",
        folder / "pyproject.toml",
        folder / "package.json",
        *sorted(folder.glob("*.txt")),
    ]
    stamp = []
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        stamp.append((str(f), st.st_mtime_ns, st.st_size))
    return tuple(stamp)


def _names_key(names: str | Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({normalize_name(n) for n in ([names] if isinstance(names, str) else names) if n}))


_MARKERS = ("pyproject.toml", "uv.lock", "poetry.lock", "package.json", "requirements.txt")


def project_folder(folder: Path) -> Path:
    """The folder whose project files describe ``folder``: itself when it has one, else the
    nearest folder above it that has (as uv and npm look upward from a subfolder: a server
    started in ``project/src``), not past a repository's root (``.git``) or the home folder,
    nor to the file system's root; ``folder`` itself when none has."""
    here = folder
    for _ in range(64):
        if here != folder and here.parent == here:  # not the file system's root (a container's `/`)
            return folder
        if any((here / m).is_file() for m in _MARKERS) or any(here.glob("requirements*.txt")):
            return here
        if (here / ".git").exists() or here == Path.home() or here.parent == here:
            return folder
        here = here.parent
    return folder


def requirement_cached(folder: Path, names: str | Iterable[str]) -> bool:
    """Whether :func:`requirement` would answer from its cache (no file to parse)."""
    folder = project_folder(folder)
    cached = _CACHE.get((str(folder), _names_key(names)))
    return cached is not None and cached[0] == _stamp(folder)


def requirement(folder: Path, names: str | Iterable[str]) -> ProjectRequirement | None:
    """What the project in ``folder`` requires of a library known by any of ``names`` (its
    import and its distribution name: ``attr`` / ``attrs``). uv.lock's or poetry.lock's locked
    version first, then pyproject.toml's dependencies (PEP 621, then Poetry's), then
    requirements*.txt, then package.json's dependencies, then pyproject.toml's optional
    dependencies and groups. Files that cannot be read, or are of the wrong shape, are passed
    over. ``folder`` or the project folder above it (:func:`project_folder`). Cached while
    the files stay."""
    folder = project_folder(folder)
    stamp = _stamp(folder)
    key = (str(folder), _names_key(names))
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    if len(_CACHE) > 64:
        _CACHE.clear()
    found = _requirement(folder, set(key[1]))
    _CACHE[key] = (stamp, found)
    return found


def pinned_version(folder: Path, library: str) -> str | None:
    """The exact version the project in ``folder`` pins ``library`` to (``==V``), if it does."""
    found = requirement(folder, library)
    return found.pinned if found else None


def _requirement(folder: Path, want: set[str]) -> ProjectRequirement | None:
    locked = _locked(folder / "uv.lock", want) or _locked(folder / "poetry.lock", want)
    if locked:
        return locked
    # the project's own dependencies, then requirements files, then optional ones and groups
    # (a "min-versions" group pins on purpose what the project itself only bounds)
    main, extra = _pyproject(folder / "pyproject.toml")
    seen: set[Path] = set()
    for req in sorted(folder.glob("requirements*.txt")):
        main += _requirement_lines(req, seen)
    return (
        _first_requirement(main, want)
        or _poetry_requirement(folder / "pyproject.toml", want)
        or _package_json(folder / "package.json", want)
        or _first_requirement(extra, want)
    )


def npm_specifier(spec: str) -> str | None:
    """An npm (or Poetry) version range as a PEP 440 specifier: ``^4.2.0`` → ``>=4.2.0,<5``,
    ``~1.2`` → ``>=1.2,<1.3``, ``1.x`` → ``==1.*``, ``4.29.5`` → ``==4.29.5``, ``>=1 <2`` →
    ``>=1,<2``; None for what it cannot say (``a || b``, a tag such as ``latest``, a URL)."""
    spec = spec.strip()
    if not spec or "||" in spec or len(spec) > 200:
        return None
    head, dash, tail = spec.partition(" - ")
    if dash:  # a hyphen range: 1.2 - 2.3
        low, high = npm_specifier(head), npm_specifier(tail)
        if low is None or high is None or not low.startswith("==") or not high.startswith("=="):
            return None
        return f">={low[2:]},<={high[2:]}"
    out: list[str] = []
    for part in _OPERATOR_SPACE.sub(r"\1", spec).replace(",", " ").split():
        m = _NPM_PART.fullmatch(part)
        if m is None:
            return None
        out += _npm_part(m.group(1) or "", m.group(2), m.group(3) or "")
    return ",".join(out) if out else None


def _npm_part(op: str, version: str, pre: str) -> list[str]:
    numbers = [n for n in version.split(".") if n not in {"x", "X", "*"}]
    wild = len(numbers) < len(version.split("."))
    if not numbers:
        return []
    base = ".".join(numbers) + pre
    nums = [int(n[:18]) for n in numbers]
    if op == "^":
        first = next((i for i, n in enumerate(nums) if n != 0), len(nums) - 1)
        upper = [*nums[:first], nums[first] + 1]
        return [f">={base}", f"<{'.'.join(map(str, upper))}"]
    if op in {"~", "~>"}:
        upper = [nums[0] + 1] if len(nums) == 1 else [nums[0], nums[1] + 1]
        return [f">={base}", f"<{'.'.join(map(str, upper))}"]
    if op in {"", "="}:
        return [f"=={'.'.join(numbers)}.*" if wild else f"=={base}"]
    return [f"{op}{base}"]


def _poetry_requirement(path: Path, want: set[str]) -> ProjectRequirement | None:
    """``[tool.poetry.dependencies]`` (and its groups): ``httpx = "^0.27"`` or ``{version = …}``."""
    data = _toml(path)
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    if not isinstance(poetry, dict):
        return None
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    groups = poetry.get("group")
    if isinstance(groups, dict):
        tables += [g.get("dependencies") for g in groups.values() if isinstance(g, dict)]
    return _first_range([t for t in tables if isinstance(t, dict)], want)


def _package_json(path: Path, want: set[str]) -> ProjectRequirement | None:
    """package.json's dependencies, then its dev and peer dependencies."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    tables = [data.get(k) for k in ("dependencies", "devDependencies", "peerDependencies")]
    return _first_range([t for t in tables if isinstance(t, dict)], want)


def _first_range(tables: list[dict[str, Any]], want: set[str]) -> ProjectRequirement | None:
    for table in tables:
        for name, value in table.items():
            if normalize_name(str(name)) not in want:
                continue
            text = value.get("version") if isinstance(value, dict) else value
            spec = npm_specifier(text) if isinstance(text, str) else None
            if spec:
                return ProjectRequirement(str(name), spec)
    return None


def _toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _locked(lock: Path, want: set[str]) -> ProjectRequirement | None:
    if not lock.is_file():
        return None
    try:
        packages = tomllib.loads(lock.read_text(encoding="utf-8")).get("package", [])
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    for pkg in packages if isinstance(packages, list) else []:
        if isinstance(pkg, dict) and normalize_name(str(pkg.get("name", ""))) in want and pkg.get("version"):
            return ProjectRequirement(str(pkg["name"]), f"=={pkg['version']}")
    return None


def _pyproject(path: Path) -> tuple[list[str], list[str]]:
    """pyproject.toml's dependencies, and its optional dependencies and groups."""
    main: list[str] = []
    extra: list[str] = []
    if not path.is_file():
        return main, extra
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return main, extra
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    main += _strings(project.get("dependencies"))
    optional = project.get("optional-dependencies") or {}
    groups = data.get("dependency-groups") or {}
    if isinstance(optional, dict) and isinstance(groups, dict):
        for group in (*optional.values(), *groups.values()):
            extra += _strings(group)
    return main, extra


def _requirement_lines(path: Path, seen: set[Path], depth: int = 0) -> list[str]:
    """A requirements file's requirements, then those of the files it includes (``-r
    base.txt``, ``-c constraints.txt``: relative to it), each file once."""
    try:
        real = path.resolve()
        if real in seen or depth > MAX_INCLUDE_DEPTH:
            return []
        seen.add(real)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, RuntimeError):
        return []
    joined = _CONTINUATION.sub(" ", text)
    lines = _logical_lines(joined)
    for raw in joined.splitlines():
        m = _INCLUDE.match(raw)
        if m:
            lines += _requirement_lines(path.parent / m.group(1), seen, depth + 1)
    return lines


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _logical_lines(joined: str) -> list[str]:
    """A requirements file's lines (continuations joined) with comments and options
    (``--hash=…``, ``-r base.txt``) cut."""
    out = []
    for line in joined.splitlines():
        line = _COMMENT.split(line, maxsplit=1)[0]
        line = _OPTION.split(line, maxsplit=1)[0].strip()
        if line:
            out.append(line)
    return out


def _first_requirement(lines: list[str], want: set[str]) -> ProjectRequirement | None:
    """The first of ``lines`` that requires a version of a library in ``want`` and applies to
    this environment (its marker, when it has one, holds here)."""
    from packaging.markers import UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement, Requirement

    for text in lines:
        try:
            parsed = Requirement(text.strip())
        except InvalidRequirement:
            continue
        if normalize_name(parsed.name) not in want or not str(parsed.specifier):
            continue
        try:
            if parsed.marker is not None and not parsed.marker.evaluate():
                continue
        except (UndefinedEnvironmentName, ValueError):
            pass
        return ProjectRequirement(parsed.name, str(parsed.specifier))
    return None
