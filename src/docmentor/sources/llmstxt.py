"""llms.txt sources: parse an ``llms.txt`` (https://llmstxt.org) and fetch what it links.

An ``llms.txt`` has an H1 title, an optional blockquote summary, free-text details
and H2 sections, each a list of ``- [title](url): notes`` links. Links under
``## Optional`` are marked optional (``FetchSettings.include_optional=False`` skips
them). An ``llms-full.txt`` (or ``llms-ctx.txt`` / ``llms-ctx-full.txt``) is one
document: nothing is fetched from it. A local llms.txt file works too.

Linked documents are fetched concurrently through one shared HTTP/1.1 client
(``docmentor.sources.client``; httpx when a proxy is set) with a concurrency limit,
a per-request time limit, a response size cap, retries
with exponential backoff (5xx, 429, time-outs, connection errors; never other 4xx)
and conditional requests (``If-None-Match`` / ``If-Modified-Since``) on refresh.
HTML pages are converted to Markdown; Markdown and text are kept as served.
A per-document problem never raises: it is reported as a ``FetchOutcome``.

A 200 that is not the document is a failed fetch too: an empty body, and an HTML
page where the last good copy was served as Markdown or text (``PriorDoc.served``;
a login or error page served with 200). A body whose end the server did not mark
(no ``Content-Length``, not chunked: it ends when the connection closes) is flagged
``framed=False`` so the caller can compare it with its last good copy; a body shorter
than its ``Content-Length`` fails in the client.
The fetcher and the address rules below live in ``docmentor.sources.fetch``; the llms.txt
is parsed by ``docmentor.sources.llmstxt_parse``, one linked document fetched (or read) by
``docmentor.sources.llmstxt_links``; this module decides what to fetch and builds the listing.

Which addresses are refused, and why
------------------------------------
An llms.txt is written by someone else, so it may not send docmentor anywhere it likes:

* **Other hosts.** A link (and every redirect hop) must stay on the llms.txt's own
  origin: same scheme, host and port (an ``http`` llms.txt may also upgrade to
  ``https`` on the same host). ``127.0.0.1`` and ``localhost`` are different hosts.
  Other hosts are fetched only when listed in ``allowed_hosts``, as a host
  (``docs.example.com``, ``docs.example.com:8443``, ``*.example.com``) or a URL
  prefix (``https://cdn.example.com/docs/``).
* **Other paths.** Links must stay inside the llms.txt's folder:
  ``https://h/docs/llms.txt`` admits ``https://h/docs/...`` but not ``https://h/blog/x``.
  Dot segments and percent-encoded dots are resolved before the check.
* **Other schemes.** Only ``http`` and ``https`` are fetched; ``file:``, ``ftp:``,
  ``javascript:``, ``data:``, ``mailto:`` links are refused, as are URLs carrying
  credentials (``https://user:pass@host/``).
* **Redirects** are followed by hand (at most 5 hops) and each hop is checked by the
  same rules, so a redirect to another host is refused and reported, not followed.
* **Local llms.txt files.** Relative links are files in the llms.txt's folder or
  below; anything resolving outside it (``../../etc/passwd``, an absolute path, a
  symlink pointing out) is refused with a warning and never read. Absolute
  ``http(s)`` links in a local file are fetched with the link's own host as scope.

The llms.txt itself follows redirects on its own host (any path) or to allowed hosts;
if it cannot be fetched, or is not text, ``SourceUnavailableError`` is raised.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from docmentor.errors import SourceUnavailableError, UsageError
from docmentor.models import RawDocument
from docmentor.sources.client import make_client
from docmentor.sources.fetch import (
    Fetcher,
    FetchProblem,
    FetchSettings,
    PriorDoc,
    conditional_headers,
    fetch_scope,
    url_origin,
)
from docmentor.sources.html import HTML_TYPES, decode_text, is_text, looks_like_html, parse_content_type
from docmentor.sources.llmstxt_links import (
    FetchOutcome,
    fetch_link,
    framed,
    read_local,
    url_doc_path,
    url_to_path,
)
from docmentor.sources.llmstxt_parse import LlmsLink, ParsedLlmsTxt, parse_llms_txt
from docmentor.sources.sizes import human_size

if TYPE_CHECKING:
    import httpx

__all__ = [
    "FetchSettings",
    "LlmsListing",
    "PriorDoc",
    "detect_kind",
    "load_llms_source",
]

logger = logging.getLogger(__name__)

_FULL_NAME = re.compile(r"llms(?:-ctx)?-full\.txt$|llms-ctx\.txt$", re.I)
_ACCEPT = "text/markdown, text/plain;q=0.9, text/html;q=0.8, */*;q=0.5"

Kind = Literal["llms_txt", "llms_full"]
_Progress = Callable[[int, int], None] | None
_DEFAULT_SETTINGS = FetchSettings()


@dataclass
class LlmsListing:
    """An llms.txt (or llms-full.txt), its own document and one outcome per distinct link."""

    index_url: str
    kind: Kind
    title: str
    summary: str | None
    index_document: RawDocument
    outcomes: list[FetchOutcome]
    warnings: list[str]
    index_framed: bool = True  # False: the llms.txt's body ended when the connection closed


def detect_kind(target: str) -> Kind:
    """``llms_full`` for ``llms-full.txt`` / ``llms-ctx(-full).txt`` names, else ``llms_txt``."""
    name = urlsplit(target).path if _is_url(target) else target
    return "llms_full" if _FULL_NAME.search(name.rstrip("/")) else "llms_txt"


# ----------------------------------------------------------------------- the index


def _is_url(target: str) -> bool:
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", target))


def _index_text(data: bytes, content_type: str | None, where: str, kind: Kind) -> str:
    ctype, charset = parse_content_type(content_type)
    if looks_like_html(data) or (kind == "llms_txt" and ctype in HTML_TYPES and b"](" not in data):
        raise SourceUnavailableError(
            f"{where} is an HTML page, not an llms.txt",
            hint="check the address of the llms.txt; the source was left as it was",
        )
    if not is_text("text/plain" if ctype in HTML_TYPES else ctype, charset, data):
        raise SourceUnavailableError(f"{where} is not a text file ({ctype or 'binary content'})")
    warnings: list[str] = []
    text = decode_text(data, charset, warnings)
    if warnings:
        logger.warning("%s: %s", where, "; ".join(warnings))
    return text


async def _load_remote(url: str, kind: Kind, fetcher: Fetcher, progress: _Progress) -> LlmsListing:
    # The llms.txt itself may redirect anywhere on its own host (or to allowed hosts).
    index_scope = fetch_scope([url], fetcher.settings, folder=False)
    reason = index_scope.refusal(url)
    if reason is not None:
        raise UsageError(f"cannot fetch {url}: a URL {reason} is not supported")
    stored = fetcher.prior.get(url)
    # asked for again only when it changed, when its text is stored to stand for a 304
    ask = conditional_headers(stored) if stored is not None and stored.text is not None else {}
    try:
        response = await fetcher.fetch(url, index_scope, ask)
    except FetchProblem as problem:
        hint = None
        if problem.status == "refused" and "to another host" in problem.reason:  # not a scheme, credentials
            parts = urlsplit(problem.target or "")
            host = (parts.hostname or "HOST") + (f":{parts.port}" if parts.port else "")
            hint = (
                f"to follow it, add the source again with --allow-host {host} "
                "(allowed_hosts in docmentor.toml)"
            )
        raise SourceUnavailableError(f"cannot fetch {url}: {problem.reason}", hint=hint) from None
    headers = response.headers
    if response.status == 304 and ask and stored is not None and stored.text is not None:
        text = stored.text  # unchanged: its stored text, its validators unless new ones came
        etag = headers.get("etag") or stored.etag
        last_modified = headers.get("last-modified") or stored.last_modified
    else:
        if not 200 <= response.status < 300:
            raise SourceUnavailableError(f"cannot fetch {url}: unexpected HTTP {response.status}")
        if not response.content.strip():
            raise SourceUnavailableError(
                f"cannot fetch {url}: HTTP {response.status} with an empty body",
                hint="the source was left as it was; try again later",
            )
        text = _index_text(response.content, headers.get("content-type"), url, kind)
        etag, last_modified = headers.get("etag"), headers.get("last-modified")
    index_doc = RawDocument(
        path=url_doc_path(url, url_origin(url)),
        url=response.url,
        content=text,
        etag=etag,
        last_modified=last_modified,
    )
    parsed = parse_llms_txt(text, response.url)
    scope, origin = fetch_scope([url, response.url], fetcher.settings), url_origin(response.url)

    async def one(link: LlmsLink) -> FetchOutcome:
        return await fetch_link(fetcher, link, scope, origin)

    listing = await _finish(url, kind, parsed, index_doc, {url, response.url}, one, fetcher, progress)
    listing.index_framed = response.status == 304 or framed(headers)  # a 304 has no body to cut
    return listing


async def _load_local(path: Path, kind: Kind, fetcher: Fetcher, progress: _Progress) -> LlmsListing:
    cap = fetcher.settings.max_bytes
    try:
        path = path.expanduser().resolve()
        if path.is_dir():
            raise SourceUnavailableError(f"{path} is a folder, not an llms.txt file")
        if path.stat().st_size > cap:
            raise SourceUnavailableError(f"{path} is over the size cap of {human_size(cap)}")
        data = path.read_bytes()
    except OSError as exc:
        raise SourceUnavailableError(f"cannot read {path}: {exc.strerror or exc}") from None
    text = _index_text(data, None, str(path), kind)
    index_url = path.as_uri()
    index_doc = RawDocument(path=path.name, url=index_url, content=text)
    parsed = parse_llms_txt(text, index_url)

    async def one(link: LlmsLink) -> FetchOutcome:
        if urlsplit(link.url).scheme.lower() == "file":
            return read_local(link, path.parent, cap, fetcher.warnings)
        return await fetch_link(fetcher, link, None, "file://")

    return await _finish(index_url, kind, parsed, index_doc, {index_url}, one, fetcher, progress)


async def _finish(
    index_url: str,
    kind: Kind,
    parsed: ParsedLlmsTxt,
    index_doc: RawDocument,
    self_urls: set[str],
    fetch_one: Callable[[LlmsLink], Coroutine[Any, Any, FetchOutcome]],
    fetcher: Fetcher,
    progress: _Progress,
) -> LlmsListing:
    outcomes: list[FetchOutcome] = []
    if kind == "llms_txt":
        links = _select_links(parsed, fetcher.settings, self_urls)
        outcomes = await _run_all([fetch_one(link) for link in links], progress)
    title = parsed.title or _fallback_title(index_url)
    index_doc.title_hint = title
    errors = [o.error or "" for o in outcomes if o.status == "failed"]
    if "throttled" in fetcher.gave_up:
        n = sum(1 for e in errors if "429" in e)
        fetcher.warnings.append(
            f"the site answered HTTP 429 (too many requests) {fetcher.throttled} times in a row: gave up "
            f"on it for this refresh; {_not_fetched(n)} (try again later)"
        )
    if "deadline" in fetcher.gave_up:
        n = sum(1 for e in errors if "time limit" in e)
        fetcher.warnings.append(
            f"the time limit of this refresh passed: {_not_fetched(n)} "
            "(refresh --deadline SECONDS sets the limit)"
        )
    # an llms-full.txt is one document, not a list of links: what reads as a malformed link
    # in its text (prose with a link in a list item) is no problem of it
    link_warnings = parsed.warnings if kind == "llms_txt" else []
    warnings = list(dict.fromkeys([*link_warnings, *fetcher.warnings]))
    return LlmsListing(index_url, kind, title, parsed.summary, index_doc, outcomes, warnings)


def _select_links(parsed: ParsedLlmsTxt, settings: FetchSettings, index_urls: set[str]) -> list[LlmsLink]:
    """Distinct links in file order; a URL listed outside ``Optional`` too is not optional."""
    chosen: dict[str, LlmsLink] = {}
    for link in parsed.links:
        if link.url in index_urls:
            continue
        if detect_kind(link.url) == "llms_full":
            # the same documents again, concatenated: fetching it would double every hit
            continue
        first = chosen.get(link.url)
        if first is None:
            chosen[link.url] = link
        elif first.optional and not link.optional:
            chosen[link.url] = replace(first, optional=False, section=link.section)
    return [link for link in chosen.values() if settings.include_optional or not link.optional]


async def _run_all(jobs: list[Coroutine[Any, Any, FetchOutcome]], progress: _Progress) -> list[FetchOutcome]:
    tasks = [asyncio.create_task(job) for job in jobs]
    total = len(tasks)
    if progress is not None:
        progress(0, total)
    for done, future in enumerate(asyncio.as_completed(tasks), 1):
        await future
        if progress is not None:
            progress(done, total)
    return [task.result() for task in tasks]


def _fallback_title(index_url: str) -> str:
    parts = urlsplit(index_url)
    if parts.scheme == "file":
        return Path(url_to_path(parts.path)).parent.name or parts.path
    return parts.hostname or index_url


async def _load(
    target: str,
    kind: Kind,
    prior: Mapping[str, PriorDoc],
    settings: FetchSettings,
    progress: _Progress,
    transport: httpx.AsyncBaseTransport | None,
) -> LlmsListing:
    concurrency = max(settings.concurrency, 1)
    headers = {"User-Agent": settings.user_agent, "Accept": _ACCEPT}
    client = make_client(headers=headers, max_connections=concurrency, transport=transport)
    try:
        fetcher = Fetcher(client, settings, prior, asyncio.Semaphore(concurrency))
        if _is_url(target) and not target.lower().startswith("file://"):
            return await _load_remote(target, kind, fetcher, progress)
        local = Path(url_to_path(urlsplit(target).path)) if _is_url(target) else Path(target)
        return await _load_local(local, kind, fetcher, progress)
    finally:
        await client.aclose()


def load_llms_source(
    target: str,
    *,
    prior: Mapping[str, PriorDoc] | None = None,
    settings: FetchSettings = _DEFAULT_SETTINGS,
    progress: Callable[[int, int], None] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    kind: Kind | None = None,
) -> LlmsListing:
    """Read an llms.txt (URL or local file) and fetch the documents it links.

    Synchronous: runs its own event loop, so call it from a thread without a running loop.

    Args:
        target: An http(s) URL, a ``file://`` URL or a filesystem path.
        prior: What the store has per link URL; used for conditional requests.
        settings: Limits and scope policy.
        progress: Called with ``(done, total)`` as linked documents finish.
        transport: An httpx transport to use instead of the network (tests).
        kind: Force ``llms_txt`` or ``llms_full``; by default decided by the file name.

    Raises:
        SourceUnavailableError: The llms.txt itself could not be read or is not text.
        UsageError: ``target`` has an unsupported scheme.
    """
    if _is_url(target) and urlsplit(target).scheme.lower() not in ("http", "https", "file"):
        raise UsageError(
            f"unsupported llms.txt address {target!r}", hint="use an http(s) URL or a local path"
        )
    chosen: Kind = kind or detect_kind(target)
    # The listing is handed back through a list, not as the task's result: at its end
    # asyncio.run looks up the SIGINT handler, and Python 3.11 then builds repr() of that
    # handler, its task and so the result (all documents: ~1 MB of text, ~13 ms).
    out: list[LlmsListing] = []

    async def run() -> None:
        out.append(await _load(target, chosen, prior or {}, settings, progress, transport))

    asyncio.run(run())
    return out[0]


def _not_fetched(n: int) -> str:
    """``1 document not fetched keeps its last good copy``, ``2 documents … keep their …``."""
    if n == 1:
        return "1 document not fetched keeps its last good copy"
    return f"{n} documents not fetched keep their last good copy"
