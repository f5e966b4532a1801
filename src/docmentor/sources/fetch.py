"""Fetching for llms.txt sources: which addresses may be fetched, and a scoped HTTP fetcher.

``fetch_scope`` builds the address rules for an llms.txt (its origin and folder plus
``FetchSettings.allowed_hosts``); ``Fetcher`` GETs through one shared client
(``docmentor.sources.client``) with a per-request time limit, a response size cap,
retries with exponential backoff and redirects followed by hand, every hop checked
against the scope.

A whole load is bounded too: ``FetchSettings.deadline`` seconds for everything (what
is not fetched by then fails with "time limit"), ``Retry-After`` is honoured up to
``max_retry_after`` seconds (a longer wait is not waited for), and after
``max_throttled`` answers of HTTP 429 in a row (no success between) the fetcher stops
asking that site for the rest of the load. Documents that fail this way keep their last
good copy (the engine marks them stale).
The rules themselves, and why they exist, are described once, in the module docstring
of ``docmentor.sources.llmstxt`` ("Which addresses are refused, and why").
"""

from __future__ import annotations

import asyncio
import logging
import math
import posixpath
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from docmentor.errors import UsageError
from docmentor.sources.client import (
    BodyTooLarge,
    Client,
    RequestFailure,
    Response,
    TransportFailure,
    UndecodableBody,
)
from docmentor.sources.sizes import human_size

logger = logging.getLogger(__name__)

MAX_REDIRECTS = 5
DEFAULT_DEADLINE = 600.0  # seconds for one source's whole load
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


# ------------------------------------------------------------------------ settings


@dataclass(frozen=True)
class FetchSettings:
    """Limits and policy for fetching an llms.txt and its documents."""

    concurrency: int = 8
    timeout: float = 20.0  # seconds, per request (whole request, body included)
    max_bytes: int = 5_000_000
    retries: int = 2  # extra attempts after the first
    backoff: float = 0.5  # seconds, doubled per retry
    allowed_hosts: tuple[str, ...] = ()
    include_optional: bool = True
    user_agent: str = "docmentor"
    max_retry_after: float = 10.0  # seconds: a longer Retry-After is not waited for
    #: HTTP 429 answers in a row (no success between) before the rest is given up; at least
    #: twice ``concurrency`` (that many requests may be under way when a storm starts)
    max_throttled: int = 8
    deadline: float = DEFAULT_DEADLINE  # seconds for the whole load (the llms.txt and every document)


@dataclass(frozen=True)
class PriorDoc:
    """What the store already has for a link URL (``FetchOutcome.url``): validators for
    conditional GETs, and whether the last good copy was served as HTML ("html") or as
    Markdown / plain text ("text"; None: not known). The llms.txt itself is asked for
    conditionally too, when its stored text is given."""

    etag: str | None
    last_modified: str | None
    served: str | None = None
    #: the llms.txt's own stored text (its prior only): what a 304 for it stands for
    text: str | None = None


def conditional_headers(prior: PriorDoc | None) -> dict[str, str]:
    """The validators of what the store holds as request headers (``If-None-Match``,
    ``If-Modified-Since``): a 304 answers them when nothing changed; {} without a prior."""
    headers: dict[str, str] = {}
    if prior is not None and prior.etag:
        headers["If-None-Match"] = prior.etag
    if prior is not None and prior.last_modified:
        headers["If-Modified-Since"] = prior.last_modified
    return headers


# --------------------------------------------------------------------------- scope


def _clean_path(path: str) -> str:
    """The path a server will see: percent-decoded, backslashes as '/', dot segments gone."""
    raw = unquote(path or "/").replace("\\", "/")
    clean = posixpath.normpath(raw)
    if raw.endswith(("/", "/.", "/..")) and not clean.endswith("/"):
        clean += "/"
    return "/" + clean.lstrip("/")


def _within(path: str, prefix: str) -> bool:
    if prefix.endswith("/"):
        return path.startswith(prefix) or path == prefix[:-1]
    return path == prefix or path.startswith(prefix + "/")


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


@dataclass(frozen=True, slots=True)
class _Prefix:
    scheme: str | None  # None: http or https
    host: str  # lower case; "*.example.com" for subdomains
    port: int | None  # None: any port
    path: str

    @classmethod
    def of_url(cls, url: str, *, folder: bool) -> _Prefix:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        path = _clean_path(parts.path)
        if folder:
            path = path[: path.rfind("/") + 1]
        return cls(scheme, (parts.hostname or "").lower(), parts.port or _default_port(scheme), path)

    @classmethod
    def of_entry(cls, entry: str) -> _Prefix:
        entry = entry.strip()
        if "://" in entry:
            return cls.of_url(entry, folder=False)
        parts = urlsplit("//" + entry)
        return cls(None, (parts.hostname or "").lower(), parts.port, "/")

    def same_origin(self, scheme: str, host: str, port: int) -> bool:
        if self.host.startswith("*."):
            if not host.endswith(self.host[1:]):
                return False
        elif host != self.host:
            return False
        if self.scheme is None:  # an allowed_hosts host entry: http or https, port if given
            return self.port is None or port == self.port
        if scheme == self.scheme:
            return port == self.port
        # An http origin may upgrade to https on the default ports.
        return (self.scheme, self.port, scheme, port) == ("http", 80, "https", 443)

    def admits(self, scheme: str, host: str, port: int, path: str) -> bool:
        return self.same_origin(scheme, host, port) and _within(path, self.path)


@dataclass(frozen=True, slots=True)
class FetchScope:
    own: tuple[_Prefix, ...]
    allowed: tuple[_Prefix, ...]

    def refusal(self, url: str) -> str | None:
        """None when ``url`` may be fetched, else why not (e.g. "to another host")."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            return f"with scheme '{scheme or '(none)'}:'"
        if parts.username is not None or parts.password is not None:
            return "with credentials in the URL"
        try:
            port = parts.port or _default_port(scheme)
        except ValueError:
            return "with an invalid port"
        host = (parts.hostname or "").lower()
        if not host:
            return "without a host"
        path = _clean_path(parts.path)
        if any(p.admits(scheme, host, port, path) for p in self.own + self.allowed):
            return None
        for prefix in self.own:
            if prefix.same_origin(scheme, host, port):
                return f"outside {prefix.path}"
        return "to another host"


def fetch_scope(own_urls: list[str], settings: FetchSettings, *, folder: bool = True) -> FetchScope:
    own = tuple(_Prefix.of_url(u, folder=folder) for u in own_urls)
    if not folder:
        own = tuple(replace(p, path="/") for p in own)
    try:
        allowed = tuple(_Prefix.of_entry(e) for e in settings.allowed_hosts if e.strip())
    except ValueError as exc:  # e.g. a port that is not a number
        raise UsageError(f"bad allowed_hosts entry: {exc}") from None
    return FetchScope(own, allowed)


# ------------------------------------------------------------------------ fetching


class FetchProblem(Exception):
    def __init__(
        self, status: Literal["failed", "refused"], reason: str, *, target: str | None = None
    ) -> None:
        super().__init__(reason)
        self.status: Literal["failed", "refused"] = status
        self.reason = reason
        self.target = target  # the URL refused (a redirect's), when there is one


_Response = Response  # url is the final URL (after redirects)


def retry_after(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delay-seconds or an HTTP date); None
    when absent or unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(when - time.time(), 0.0)


@dataclass
class Fetcher:
    client: Client
    settings: FetchSettings
    prior: Mapping[str, PriorDoc]
    semaphore: asyncio.Semaphore
    warnings: list[str] = field(default_factory=list)
    throttled: int = 0  # HTTP 429 answers in this load since the last success
    #: the event loop's time when the load must end (None: set on first use from ``settings.deadline``)
    deadline_at: float | None = None
    gave_up: set[str] = field(default_factory=set)  # why the load stopped early ("throttled", "deadline")

    def deadline(self) -> float:
        if self.deadline_at is None:
            limit = self.settings.deadline
            loop_now = asyncio.get_running_loop().time()
            self.deadline_at = loop_now + limit if math.isfinite(limit) else math.inf
        return self.deadline_at

    def throttle_limit(self) -> int:
        return max(self.settings.max_throttled, 2 * max(self.settings.concurrency, 1))

    def out_of_time(self) -> FetchProblem:
        """The failure of a document not fetched before the load's deadline."""
        self.gave_up.add("deadline")
        return FetchProblem("failed", "not fetched: the time limit of this refresh passed")

    async def fetch(self, url: str, scope: FetchScope, headers: dict[str, str]) -> _Response:
        """GET ``url``, following redirects that stay in ``scope``; within the load's deadline."""
        deadline = self.deadline()
        if asyncio.get_running_loop().time() >= deadline:
            raise self.out_of_time()
        try:
            async with asyncio.timeout_at(deadline if math.isfinite(deadline) else None):
                return await self._follow(url, scope, headers)
        except TimeoutError:
            raise self.out_of_time() from None

    async def _follow(self, url: str, scope: FetchScope, headers: dict[str, str]) -> _Response:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._with_retries(current, headers)
            if response.status not in _REDIRECTS:
                return response
            location = response.headers.get("location")
            if not location:
                raise FetchProblem("failed", f"HTTP {response.status} without a Location header")
            target = urldefrag(urljoin(current, location.strip())).url
            reason = scope.refusal(target)
            if reason is not None:
                raise FetchProblem("refused", f"redirect {reason} refused: {target}", target=target)
            logger.debug("redirect %s -> %s", current, target)
            current = target
        raise FetchProblem("failed", f"too many redirects (more than {MAX_REDIRECTS})")

    async def _with_retries(self, url: str, headers: dict[str, str]) -> _Response:
        attempts = max(self.settings.retries, 0) + 1
        problem = ""
        for attempt in range(attempts):
            wait = self.settings.backoff * (2**attempt)
            if self.throttled >= self.throttle_limit():
                self.gave_up.add("throttled")  # for good: the count is not reset any more
                raise FetchProblem(
                    "failed", f"not fetched: the site answered HTTP 429 {self.throttled} times in a row"
                )
            try:
                async with asyncio.timeout(self.settings.timeout):
                    response = await self._once(url, headers)
            except TimeoutError:
                problem = "timed out"
            except TransportFailure as exc:
                problem = f"connection failed ({exc})"
            except UndecodableBody as exc:  # the server's answer: asking again gets the same
                raise FetchProblem("failed", f"the response body is broken: {exc}") from exc
            except (RequestFailure, ValueError) as exc:
                raise FetchProblem("failed", f"request failed ({type(exc).__name__}: {exc})") from exc
            else:
                status = response.status
                if status < 400 or status in _REDIRECTS:
                    if "throttled" not in self.gave_up:
                        self.throttled = 0  # the site answers again: only a storm of 429s gives up
                    return response
                if status != 429 and status < 500:
                    raise FetchProblem("failed", f"HTTP {status}")
                problem = f"HTTP {status}"
                if status == 429:
                    self.throttled += 1
                asked = retry_after(response.headers.get("retry-after"))
                if asked is not None and asked > self.settings.max_retry_after:
                    raise FetchProblem(
                        "failed",
                        f"{problem}, Retry-After {asked:.0f} s (over the {self.settings.max_retry_after:g} s "
                        "docmentor waits)",
                    )
                if asked is not None:
                    wait = max(wait, asked)
            if attempt + 1 < attempts:
                logger.debug("%s: %s, retrying in %.2fs", url, problem, wait)
                await asyncio.sleep(wait)
        raise FetchProblem("failed", f"{problem} after {attempts} attempt{'s' if attempts > 1 else ''}")

    async def _once(self, url: str, headers: dict[str, str]) -> _Response:
        cap = self.settings.max_bytes
        try:
            return await self.client.get(url, headers, cap)
        except BodyTooLarge as exc:
            size = f" ({human_size(exc.declared)})" if exc.declared is not None else ""
            raise FetchProblem("failed", f"over the size cap of {human_size(cap)}{size}") from None


def url_origin(url: str) -> str:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return f"{scheme}://{(parts.hostname or '').lower()}:{parts.port or _default_port(scheme)}"
