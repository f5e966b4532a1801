"""Where the index lives and which sources are configured (docmentor.toml, llmdoc.json, env)."""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from docmentor.errors import UsageError, did_you_mean
from docmentor.models import SourceOptions

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: seconds one ``refresh`` of every source may take (llms.txt fetching stops then; what was
#: not fetched keeps its last good copy, sources not reached are left as they were); here,
#: not in the engine, so that the CLI's ``--deadline`` default costs no engine import
DEFAULT_REFRESH_DEADLINE = 1800.0
MAX_RESULTS = 100  # a search's results at most (a larger limit gives these)


def home() -> Path:
    return Path(os.environ.get("DOCMENTOR_HOME") or Path.home() / ".docmentor").expanduser()


def cache_dir() -> Path:
    """Files derived once and reused (token vocabularies, the quantized embedding model):
    ``DOCMENTOR_CACHE``, else ``DOCMENTOR_HOME/cache``. Deleting it is always safe."""
    env = os.environ.get("DOCMENTOR_CACHE")
    return Path(env).expanduser() if env else home() / "cache"


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}://")


def local_folder(value: str, where: str, *, arguments: tuple[str, ...] = ()) -> Path:
    """``value`` as the index's local folder. A URL (``postgresql://…``, ``https://…``) is a
    :class:`UsageError` here (where a database is allowed, :func:`index_location` takes it
    first): a URL taken as a path would silently create a folder named ``postgresql:``. The
    message names the URL's scheme only (a URL may hold a password)."""
    if _URL.match(value.strip()):
        scheme = value.strip().split("://", 1)[0]
        if is_database_url(value):  # a database where only a folder may go (a config file)
            raise UsageError(
                f"{where} is a {scheme}:// URL; it takes a folder",
                hint="give a PostgreSQL index with --db URL or DOCMENTOR_DB",
                arguments=arguments,
            )
        raise UsageError(
            f"{where} is a {scheme}:// URL; docmentor keeps its index in a local folder or in PostgreSQL",
            hint="give a folder path, or a postgresql:// URL",
            arguments=arguments,
        )
    return Path(value).expanduser()


DATABASE_SCHEMES = ("postgresql", "postgres")


def is_database_url(value: str) -> bool:
    """Whether ``value`` names a PostgreSQL database (``postgresql://…``, ``postgres://…``)."""
    scheme, sep, _ = value.strip().partition("://")
    return bool(sep) and scheme.lower() in DATABASE_SCHEMES


def index_location(value: str, where: str, *, arguments: tuple[str, ...] = ()) -> Path | str:
    """``value`` as where the index lives: a PostgreSQL URL as given, else a local folder
    (:func:`local_folder`: any other URL is an error)."""
    if is_database_url(value):
        return value.strip()
    return local_folder(value, where, arguments=arguments)


def default_location() -> Path | str:
    """:func:`default_db`, except that ``DOCMENTOR_DB`` may also name a PostgreSQL database."""
    env = os.environ.get("DOCMENTOR_DB")
    if env:
        return index_location(env, "DOCMENTOR_DB")
    return default_db()


def default_db() -> Path:
    """The index folder when none is given: ``DOCMENTOR_DB``, else ``db`` in the working
    folder's ``docmentor.toml`` (``db_path`` in ``llmdoc.json``), else ``DOCMENTOR_HOME``,
    else ``~/.docmentor``. One rule for the library and the CLI; a folder given explicitly
    (``Docmentor(db)``, ``--db``) comes before all of these.

    Raises:
        UsageError: the config file is consulted and cannot be read (an error, not a silent
            fall-back to another index).
    """
    env = os.environ.get("DOCMENTOR_DB")
    if env:
        return local_folder(env, "DOCMENTOR_DB")
    return load_config().db or home()


_OFF = {"0", "false", "no", "off"}
_ON = {"1", "true", "yes", "on"}


def embeddings_enabled() -> bool:
    """``DOCMENTOR_EMBEDDINGS`` (``0``/``false``/``no``/``off`` or ``1``/``true``/``yes``/``on``),
    else ``embeddings`` in ``docmentor.toml`` of the working folder, else on: sections are
    embedded and searched by meaning as well as by words.

    Raises:
        UsageError: another value, or a ``docmentor.toml`` that is not TOML (a typo must not
            silently turn a feature on or off, also where ``--db`` names the index).
    """
    env = env_switch("DOCMENTOR_EMBEDDINGS")
    if env is not None:
        return env
    path = Path.cwd() / "docmentor.toml"
    if path.is_file():
        try:
            value = _toml(path).get("embeddings", True)
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
        if not isinstance(value, bool):
            raise UsageError(f"{path}: embeddings must be true or false, not {value!r}")
        return value
    return True


def indexed_name(name: str, version: str | None) -> str:
    """The name a source given as ``name`` with the ``version`` option (None: none) is
    indexed under: ``httpx`` at 0.27 is ``httpx@0.27`` (as ``Docmentor.make_spec`` names it)."""
    return f"{name}@{version}" if version else name


def env_switch(variable: str) -> bool | None:
    """The environment variable ``variable`` as a switch: ``0``/``false``/``no``/``off`` or
    ``1``/``true``/``yes``/``on`` (any case); None when it is unset or blank.

    Raises:
        UsageError: another value (a typo must not silently turn a feature on or off).
    """
    value = os.environ.get(variable, "").strip().lower()
    if not value:
        return None
    if value not in _OFF | _ON:
        raise UsageError(
            f"{variable}={value!r} is not a switch", hint="set it to 0 or 1, false or true, off or on"
        )
    return value in _ON


def env_count(variable: str) -> int | None:
    """The environment variable ``variable`` as a whole number of at least 1 (a count of
    threads); None when it is unset or blank.

    Raises:
        UsageError: another value (``abc``, ``0``, ``-3``): not silently the default.
    """
    value = os.environ.get(variable, "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise UsageError(
            f"{variable}={value!r} is not a whole number of at least 1",
            hint=f"set it to 2, say, or unset {variable}",
        )
    return int(value)


def check_environment() -> None:
    """Read every ``DOCMENTOR_*`` setting read later, deep in a refresh or an embedding run,
    so that a bad value is an error when an index is opened (a command, a server's start),
    not a setting silently ignored or a failure in a server's background thread."""
    env_switch("DOCMENTOR_PARALLEL")
    env_count("DOCMENTOR_EMBED_THREADS")


def is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


def validate_name(name: str) -> str:
    if not _NAME.match(name):
        raise UsageError(
            f"invalid source name {name!r}",
            hint="use letters, digits, '_', '-' or '.', starting with a letter or digit (at most 64)",
        )
    return name


def split_named(spec: str) -> tuple[str | None, str]:
    """LLMDoc's ``name:url`` form; a bare URL or path has no name.

    Raises:
        UsageError: the part before the colon is meant as a name (no ``/`` or ``\\`` in it,
            not starting with ``.`` or ``~``) and is not a valid one (``name with space:docs``,
            ``:docs``).
    """
    spec = spec.strip()
    if is_url(spec):
        return None, spec
    head, sep, rest = spec.partition(":")
    windows_drive = len(head) == 1 and rest.startswith(("\\", "/"))
    if not (sep and rest) or rest.startswith("//") or windows_drive:
        return None, spec
    if _NAME.match(head):
        return head, rest
    if not (head.startswith((".", "~")) or "/" in head or "\\" in head):
        # "name with space:/docs" (as a caller checks first, no such path): a name, malformed,
        # said as --name says it, not "no such file or folder"; ":url", a name left empty
        validate_name(head)
    return None, spec  # "./we:ird", "~/a:b": a path with a colon


# the VERSION of a folder named NAME-VERSION, as sdists and GitHub archives unpack (PEP 440;
# linear: each repetition starts with a dot or a pre/post/dev tag)
_RELEASE_VERSION = re.compile(r"v?\d+(?:\.\d+)*(?:[.-]?(?:a|b|rc|post|dev)\d*)*")


_DOCS_FOLDERS = frozenset({"docs", "doc", "documentation", "src", "site"})
_INNER_DOCS_FOLDERS = frozenset({"source", "src", "en", "content", "pages"})


def auto_name(target: str) -> str:
    """A source name derived from a URL's host or a folder's name (an unpacked release's
    ``anyio-4.6.2.post1`` is ``anyio``: its version is told by its package metadata)."""
    if is_url(target):
        parts = urlsplit(target)
        host = (parts.hostname or "docs").removeprefix("www.")
        if parts.port:
            host = f"{host}_{parts.port}"
        base = host
    else:
        p = Path(target).expanduser().resolve()
        base = p.stem if p.is_file() else p.name
        # a docs folder names its project (`trio-0.27.0/docs/source`, `pytest/doc/en`: the
        # Sphinx source or a language folder inside one, then the docs folder)
        for _ in range(2):
            low, parent = base.lower(), p.parent.name
            inner = low in _INNER_DOCS_FOLDERS and parent.lower() in _DOCS_FOLDERS
            if not parent or not (low in _DOCS_FOLDERS or inner):
                break
            p, base = p.parent, parent
        # an unpacked release (`anyio-4.6.2.post1/docs`): the project, its version told apart
        project, _, version = base.rpartition("-")
        if project[:1].isalpha() and _RELEASE_VERSION.fullmatch(version):
            base = project
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", base).strip("_.-")[:64]
    return name or "docs"


@dataclass(frozen=True)
class ConfiguredSource:
    """A source of ``docmentor.toml`` (or ``llmdoc.json``, ``DOCMENTOR_SOURCES``): ``options``
    as written there (file-wide defaults included), ``settings`` the same parsed and checked."""

    name: str
    target: str
    options: dict[str, Any] = field(default_factory=dict)
    settings: SourceOptions = field(default_factory=SourceOptions)
    origin: str | None = None  # the file that configures it, or DOCMENTOR_SOURCES

    @property
    def indexed_name(self) -> str:
        """The name it is indexed under (``NAME@VERSION`` with a ``version`` option)."""
        return indexed_name(self.name, self.settings.version)


@dataclass(frozen=True)
class Config:
    """What ``docmentor.toml`` (or ``llmdoc.json``, ``DOCMENTOR_SOURCES``) configures, as loaded
    by :func:`load_config`; ``origin`` is the file read (None: none, the environment only)."""

    sources: list[ConfiguredSource] = field(default_factory=list)
    db: Path | None = None
    fetch: dict[str, Any] = field(default_factory=dict)
    max_bytes: int | None = None
    refresh_interval_hours: float | None = None
    origin: str | None = None

    def defaults(self, *, llms: bool) -> dict[str, Any]:
        """The file-wide options a source takes where it sets none of its own: ``max_bytes``,
        and for an llms.txt source (``llms``) the ``[fetch]`` settings."""
        out = {k: v for k, v in self.fetch.items() if k in FETCH_DEFAULTS} if llms else {}
        if self.max_bytes is not None:
            out["max_bytes"] = self.max_bytes
        return out


#: the ``[fetch]`` settings, defaults of every llms.txt source
FETCH_DEFAULTS = ("concurrency", "timeout", "retries", "allowed_hosts", "include_optional")


def with_defaults(options: SourceOptions, cfg: Config, *, llms: bool) -> tuple[SourceOptions, dict[str, Any]]:
    """``options`` with ``cfg``'s file-wide defaults for the options not given (a given one
    wins), and the defaults so taken (empty: none applied), as ``docmentor add`` reads them.

    Raises:
        UsageError: a default of the wrong kind, naming the file.
    """
    taken = {k: v for k, v in cfg.defaults(llms=llms).items() if getattr(options, k) is None}
    if not taken:
        return options, {}
    parsed = SourceOptions.parse(taken, where=cfg.origin or "the configuration")
    return replace(options, **{k: getattr(parsed, k) for k in taken}), taken


#: the keys of a ``[[sources]]`` table that say what the source is (one of them, once)
_TARGET_KEYS = ("url", "path", "target")


def _source_from(item: Any, origin: str, base: Path) -> ConfiguredSource:
    if isinstance(item, str):
        name, target = split_named(item)
        options: dict[str, Any] = {}
    elif isinstance(item, dict) and any(k in item for k in _TARGET_KEYS):
        name, target = item.get("name"), _target_of(item, origin)
        options = {k: v for k, v in item.items() if k not in {"name", *_TARGET_KEYS}}
    else:
        raise UsageError(
            f"{origin}: a source must be 'name:url' or a table with name and url/path, got {item!r}"
        )
    if not is_url(target):
        target = str((base / Path(target).expanduser()).resolve())
    if "base_paths" in options:
        options["base_paths"] = _from_folder(options["base_paths"], base)
    return ConfiguredSource(
        name=_valid_name(name, origin) if name is not None else auto_name(target),
        target=target,
        options=options,
    )


def _target_of(item: dict[str, Any], origin: str) -> str:
    """What a ``[[sources]]`` table indexes: its one ``url`` or ``path`` (or ``target``)."""
    where = f"{origin}: source {item['name']!r}" if isinstance(item.get("name"), str) else origin
    given = [k for k in _TARGET_KEYS if k in item]
    if len(given) > 1:
        raise UsageError(
            f"{where}: both {given[0]} and {given[1]} are given",
            hint="a source is one llms.txt URL (url) or one folder or file (path): keep one",
        )
    value = item[given[0]]
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{where}: {given[0]} must be a URL or a path, not {value!r}")
    return value.strip()


def _valid_name(name: object, origin: str) -> str:
    """A configured source's name, checked as ``--name`` is; the error names the file."""
    if not isinstance(name, str):
        raise UsageError(
            f"{origin}: a source's name must be text, not {name!r}", hint='for example name = "handbook"'
        )
    try:
        return validate_name(name)
    except UsageError as exc:
        raise UsageError(f"{origin}: {exc.message}", hint=exc.hint) from None


def _source_list(value: Any, origin: str, base: Path) -> list[ConfiguredSource]:
    """A config file's ``sources``: a list of tables or ``name:target`` strings, each name once."""
    if not isinstance(value, list):
        raise UsageError(
            f"{origin}: sources must be a list, not {value!r}",
            hint='write one [[sources]] table per source, or sources = ["name:url", "folder"]',
        )
    return [_source_from(item, origin, base) for item in value]


def _names_once(sources: list[ConfiguredSource], origin: str) -> None:
    """Each source of ``origin`` is indexed under its own name (two versions of one library,
    ``version = …`` in each, are two names)."""
    seen: set[str] = set()
    for src in sources:
        name = src.indexed_name
        if name in seen:
            raise UsageError(
                f"{origin}: two sources are named {name!r}",
                hint="give each source its own name (or version): the second would be ignored",
            )
        seen.add(name)


def _from_folder(paths: Any, base: Path) -> Any:
    """A source's ``base_paths`` as written in a config file, read from the file's folder
    ``base`` (as its ``path`` is): absolute paths. Another kind of value is left as it is,
    for :meth:`SourceOptions.parse` to refuse with the file's name."""
    if not isinstance(paths, list) or not all(isinstance(p, str) and p.strip() for p in paths):
        return paths
    return [str((base / Path(p).expanduser()).resolve()) for p in paths]


def load_config(cwd: Path | None = None) -> Config:
    """Read ``docmentor.toml`` (or ``llmdoc.json``) in ``cwd`` and ``DOCMENTOR_SOURCES``."""
    cwd = cwd or Path.cwd()
    toml_path, json_path = cwd / "docmentor.toml", cwd / "llmdoc.json"
    if toml_path.is_file():
        cfg = _from_toml(toml_path, cwd)
    elif json_path.is_file():
        cfg = _from_json(json_path, cwd)
    else:
        cfg = Config()
    env = os.environ.get("DOCMENTOR_SOURCES", "").strip()
    from_env = [_source_from(s, "DOCMENTOR_SOURCES", cwd) for s in env.split(",") if s.strip()]
    where = cfg.origin or "DOCMENTOR_SOURCES"
    configured = [_settled(src, cfg, where) for src in cfg.sources]
    _names_once(configured, where)
    from_env = [_settled(src, cfg, "DOCMENTOR_SOURCES") for src in from_env]
    _names_once(from_env, "DOCMENTOR_SOURCES")
    return replace(cfg, sources=configured + from_env)


def _settled(src: ConfiguredSource, cfg: Config, where: str) -> ConfiguredSource:
    """``src`` with the file-wide defaults it does not set, its options parsed and checked."""
    options = _with_defaults(src, cfg)
    settings = SourceOptions.parse(options, where=f"{where}: source {src.name!r}")
    return replace(src, options=options, settings=settings, origin=where)


def _with_defaults(src: ConfiguredSource, cfg: Config) -> dict[str, Any]:
    """``src``'s options with the file-wide defaults it does not set (a source's own win)."""
    return {**cfg.defaults(llms=is_url(src.target) or src.target.endswith(".txt")), **src.options}


def _toml(path: Path) -> dict[str, Any]:
    """The TOML file ``path``; a :class:`UsageError` naming it when it is not TOML."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from exc


#: what a ``docmentor.toml`` may set at its top level (``[fetch]``: :data:`FETCH_DEFAULTS`)
TOML_KEYS = ("db", "embeddings", "fetch", "max_bytes", "sources")
#: keys of other tools' files a docmentor.toml does not take, and where the setting is made
_ELSEWHERE = {
    "refresh_interval_hours": "a server's background refresh is docmentor serve --refresh-interval HOURS"
}


def _from_toml(path: Path, cwd: Path) -> Config:
    data, where = _toml(path), str(path)
    _known_keys(data, TOML_KEYS, where, "the keys are")
    fetch = data.get("fetch", {})
    if not isinstance(fetch, dict):
        raise UsageError(f"{where}: fetch must be a table ([fetch]), not {fetch!r}")
    _known_keys(fetch, FETCH_DEFAULTS, f"{where}: [fetch]", "its keys are")
    SourceOptions.parse(fetch, where=f"{where}: [fetch]")  # a wrong value: this file's error
    max_bytes = SourceOptions.parse({"max_bytes": data.get("max_bytes")}, where=where).max_bytes
    embeddings = data.get("embeddings", True)
    if not isinstance(embeddings, bool):
        raise UsageError(f"{where}: embeddings must be true or false, not {embeddings!r}")
    return Config(
        sources=_source_list(data.get("sources", []), where, cwd),
        db=_db_folder(data, "db", where, cwd),
        fetch=dict(fetch),
        max_bytes=max_bytes,
        origin=where,
    )


def _known_keys(table: dict[str, Any], known: tuple[str, ...], where: str, listing: str) -> None:
    """Every key of ``table`` is one of ``known``: a typo is an error, not a setting ignored."""
    for key in table:
        if key not in known:
            raise UsageError(
                f"{where}: unknown key {key!r}",
                hint=_ELSEWHERE.get(key) or f"{did_you_mean(key, known)}{listing} {', '.join(known)}",
            )


def _db_folder(data: dict[str, Any], key: str, where: str, cwd: Path) -> Path | None:
    """The index folder a config file names (``db``, ``db_path``), read from its folder."""
    value = data.get(key)
    if value is None:  # llmdoc.json's null too
        return None
    if not isinstance(value, str) or not value.strip():
        raise UsageError(
            f"{where}: {key} must be a folder path, not {value!r}",
            hint=f'for example {key} = ".docmentor"',
        )
    return (cwd / local_folder(value, f"{key} in {where}")).resolve()


def _hours(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
        raise UsageError(f"{where}: refresh_interval_hours must be a number of hours (0: off), not {value!r}")
    return float(value)


def _from_json(path: Path, cwd: Path) -> Config:
    """LLMDoc's ``llmdoc.json``: ``sources``, ``db_path``, ``max_concurrent_fetches``,
    ``refresh_interval_hours``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object")
    where = str(path)
    fetch: dict[str, Any] = {}
    if data.get("max_concurrent_fetches"):
        given = {"concurrency": data["max_concurrent_fetches"]}
        fetch["concurrency"] = SourceOptions.parse(
            given, where=f"{where} (max_concurrent_fetches)"
        ).concurrency
    return Config(
        sources=_source_list(data.get("sources", []), where, cwd),
        db=_db_folder(data, "db_path", where, cwd),
        fetch=fetch,
        refresh_interval_hours=_hours(data.get("refresh_interval_hours"), where),
        origin=where,
    )
