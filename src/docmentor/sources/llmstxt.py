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
The fetcher and the address rules below live in ``docmentor.sources.fetch``.

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
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from docmentor.errors import SourceUnavailableError, UsageError
from docmentor.models import RawDocument
from docmentor.parse.fences import Fence, closes, fence_open
from docmentor.sources.client import make_client
from docmentor.sources.fetch import MAX_REDIRECTS as MAX_REDIRECTS
from docmentor.sources.fetch import (
    Fetcher,
    FetchProblem,
    FetchScope,
    FetchSettings,
    PriorDoc,
    fetch_scope,
    human_size,
    url_origin,
)
from docmentor.sources.html import (
    HTML_TYPES,
    MARKDOWN_TYPES,
    NotTextError,
    decode_body,
    decode_text,
    is_text,
    looks_like_html,
    parse_content_type,
)

if TYPE_CHECKING:
    import httpx

__all__ = [
    "FetchOutcome",
    "FetchSettings",
    "LlmsLink",
    "LlmsListing",
    "LlmsSection",
    "ParsedLlmsTxt",
    "PriorDoc",
    "detect_kind",
    "load_llms_source",
    "parse_llms_txt",
]

logger = logging.getLogger(__name__)

_FULL_NAME = re.compile(r"llms(?:-ctx)?-full\.txt$|llms-ctx\.txt$", re.I)
# Every pattern here reads someone else's text, so each runs in linear time on any line: no
# two quantifiers can trade the same characters (possessive ``*+`` where they could), and
# the headings are read with string methods (the pattern ``^#\s+(.+?)\s*#*\s*$`` was cubic
# on a line of spaces).
_LINK = re.compile(
    r"^\s*+(?:(?:[-*+]|\d++[.)])\s*+)?\[(?P<title>[^\]]*+)\]"
    r"\(\s*+(?:(?P<url><[^>]*+>|[^)\s]++)(?:\s++(?:\"[^\"]*+\"|'[^']*+'))?|(?<=\s)(?:\"[^\"]*+\"|'[^']*+'))?"
    r"\s*+\)(?P<rest>.*)$"
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_NOTES_SEP = re.compile(r"^\s*[:\-\u2013\u2014]\s*")
_ACCEPT = "text/markdown, text/plain;q=0.9, text/html;q=0.8, */*;q=0.5"

Kind = Literal["llms_txt", "llms_full"]
_Progress = Callable[[int, int], None] | None
Status = Literal["ok", "not_modified", "failed", "refused"]
_DEFAULT_SETTINGS = FetchSettings()


# --------------------------------------------------------------------- public data


@dataclass
class FetchOutcome:
    """What happened to one linked document."""

    url: str  # the link URL (before redirects, without #fragment)
    status: Status
    document: RawDocument | None
    error: str | None = None
    title: str | None = None
    section: str | None = None
    optional: bool = False
    html: bool = False  # the body was an HTML page (converted to Markdown)
    framed: bool = True  # False: the body ended when the server closed the connection (no length given)


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


@dataclass(frozen=True, slots=True)
class LlmsLink:
    title: str
    url: str  # absolute, fragment removed
    notes: str | None
    optional: bool
    section: str
    line: int


@dataclass(frozen=True, slots=True)
class LlmsSection:
    name: str
    links: tuple[LlmsLink, ...]

    @property
    def optional(self) -> bool:
        return self.name.strip().lower() == "optional"


@dataclass(frozen=True, slots=True)
class ParsedLlmsTxt:
    title: str | None
    summary: str | None
    details: str
    sections: tuple[LlmsSection, ...]
    warnings: tuple[str, ...] = ()

    @property
    def links(self) -> list[LlmsLink]:
        return [link for section in self.sections for link in section.links]


# ------------------------------------------------------------------------- parsing


def parse_llms_txt(text: str, base_url: str) -> ParsedLlmsTxt:
    """Parse llms.txt Markdown; relative link URLs are resolved against ``base_url``.

    Lenient where real files are: links may sit in nested or numbered lists, text in
    fenced code is ignored, and a file without any H2 keeps its list links in a
    section named ``""``. Lines that look like broken links become warnings.
    """
    title: str | None = None
    summary: list[str] = []
    details: list[str] = []
    warnings: list[str] = []
    sections: list[tuple[str, list[LlmsLink]]] = []
    preamble: list[LlmsLink] = []
    in_summary = False  # just after the H1, where the blockquote summary may be
    fence: Fence | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        opens = fence_open(line, any_indent=True) if fence is None else None
        if fence is not None or opens is not None:
            if opens is not None:
                fence = opens
            elif fence is not None and closes(line, fence, any_indent=True):
                fence = None
            if not sections:
                details.append(line)
            in_summary = False
            continue
        if (h2 := _heading(line, 2)) is not None:
            sections.append((h2, []))
            in_summary = False
            continue
        if not sections and title is None and (h1 := _heading(line, 1)) is not None:
            title = h1
            in_summary = True
            continue
        if in_summary:
            if line.lstrip().startswith(">"):
                summary.append(line.lstrip()[1:].strip())
                continue
            if not line.strip() and not summary:
                continue
            in_summary = False
        if not sections:
            details.append(line)
        section_name = sections[-1][0] if sections else ""
        link = _parse_link_line(line, lineno, base_url, section_name, warnings)
        if link is not None:
            (sections[-1][1] if sections else preamble).append(link)
    if title is None:
        warnings.append("no H1 title")
    built = [LlmsSection(name, tuple(links)) for name, links in sections]
    if not built and preamble:
        built = [LlmsSection("", tuple(preamble))]
    return ParsedLlmsTxt(
        title=title,
        summary=" ".join(s for s in summary if s) or None,
        details="\n".join(details).strip(),
        sections=tuple(built),
        warnings=tuple(warnings),
    )


def _heading(line: str, level: int) -> str | None:
    r"""The stripped title of an ATX heading of ``level`` (``# Title``, ``## Title ##``), else None.

    What ``^#{level}\s+(.+?)\s*#*\s*$`` matched, stripped, in linear time: at least one
    space after the marks, a title of at least one character, a closing run of ``#`` dropped.
    """
    marks = "#" * level
    if not line.startswith(marks):
        return None
    rest = line[level:]
    if len(rest) < 2 or not rest[0].isspace():
        return None
    body = rest.lstrip()
    if not body:  # spaces only: the title was one of them
        return ""
    core = body.rstrip().rstrip("#").rstrip()
    return body[: max(len(core), 1)].strip()


def _parse_link_line(
    line: str, lineno: int, base_url: str, section: str, warnings: list[str]
) -> LlmsLink | None:
    match = _LINK.match(line)
    if match is None:
        if _LIST_ITEM.match(line) and ("](" in line or line.split(maxsplit=1)[-1].startswith("[")):
            warnings.append(f"line {lineno}: malformed link skipped: {line.strip()[:80]}")
        return None
    raw = (match.group("url") or "").strip()
    if raw.startswith("<") and raw.endswith(">"):
        raw = raw[1:-1].strip().replace(" ", "%20")
    if not raw or raw.startswith("#"):
        warnings.append(f"line {lineno}: link without a document URL skipped: {line.strip()[:80]}")
        return None
    url = urldefrag(urljoin(base_url, raw)).url
    notes = _NOTES_SEP.sub("", match.group("rest"), count=1).strip() or None
    return LlmsLink(
        title=match.group("title").strip(),
        url=url,
        notes=notes,
        optional=section.strip().lower() == "optional",
        section=section,
        line=lineno,
    )


def detect_kind(target: str) -> Kind:
    """``llms_full`` for ``llms-full.txt`` / ``llms-ctx(-full).txt`` names, else ``llms_txt``."""
    name = urlsplit(target).path if _is_url(target) else target
    return "llms_full" if _FULL_NAME.search(name.rstrip("/")) else "llms_txt"


# ------------------------------------------------------------------------ fetching


def _document(
    data: bytes, headers: Mapping[str, str] | None, *, path: str, url: str, title: str | None
) -> RawDocument:
    try:
        body = decode_body(data, headers.get("content-type") if headers else None, name=path)
    except NotTextError as exc:
        raise FetchProblem("failed", str(exc)) from None
    return RawDocument(
        path=path,
        url=url,
        content=body.text,
        fmt=body.fmt,
        etag=headers.get("etag") if headers else None,
        last_modified=headers.get("last-modified") if headers else None,
        title_hint=title or body.title,
        warnings=body.warnings,
    )


def _served_html(data: bytes, headers: Mapping[str, str] | None, path: str) -> bool:
    """Whether ``decode_body`` treats the body as an HTML page (the same test)."""
    ctype, _ = parse_content_type(headers.get("content-type") if headers else None)
    if not ctype and path.lower().split("?", 1)[0].endswith((".html", ".htm", ".xhtml")):
        return True
    return ctype in HTML_TYPES or (ctype not in MARKDOWN_TYPES and looks_like_html(data))


def framed(headers: Mapping[str, str]) -> bool:
    """Whether the server said where the body ends (Content-Length or chunked), so a body
    cut short by a closed connection fails in the client rather than looking complete."""
    return "content-length" in headers or "chunked" in headers.get("transfer-encoding", "").lower()


def _outcome(link: LlmsLink) -> FetchOutcome:
    return FetchOutcome(link.url, "failed", None, None, link.title or None, link.section, link.optional)


async def _fetch_link(
    fetcher: Fetcher, link: LlmsLink, scope: FetchScope | None, index_origin: str
) -> FetchOutcome:
    """Fetch one linked document; never raises."""
    outcome = _outcome(link)
    try:
        if scope is None:  # a link in a local llms.txt that is not http(s)
            scope = fetch_scope([link.url], fetcher.settings, folder=False)
        reason = scope.refusal(link.url)
        if reason is not None:
            raise FetchProblem("refused", f"link {reason} refused")
        prior = fetcher.prior.get(link.url)
        headers: dict[str, str] = {}
        if prior is not None and prior.etag:
            headers["If-None-Match"] = prior.etag
        if prior is not None and prior.last_modified:
            headers["If-Modified-Since"] = prior.last_modified
        async with fetcher.semaphore:
            response = await fetcher.fetch(link.url, scope, headers)
        if response.status == 304 and headers:
            outcome.status = "not_modified"
            return outcome
        if not 200 <= response.status < 300:
            raise FetchProblem("failed", f"HTTP {response.status}")
        if not response.content.strip():
            raise FetchProblem("failed", f"HTTP {response.status} with an empty body")
        path = _url_doc_path(link.url, index_origin)
        html = _served_html(response.content, response.headers, path)
        # an HTML document labelled text/markdown is an error page too (a lying server)
        if (html or looks_like_html(response.content)) and prior is not None and prior.served == "text":
            raise FetchProblem(
                "failed", "an HTML page where Markdown or text was served before (an error or login page?)"
            )
        outcome.document = _document(
            response.content, response.headers, path=path, url=response.url, title=link.title
        )
        outcome.html, outcome.framed = html, framed(response.headers)
        outcome.status = "ok"
    except FetchProblem as problem:
        outcome.status, outcome.error = problem.status, problem.reason
    except Exception as exc:  # a per-document failure must never abort the listing
        logger.exception("unexpected error fetching %s", link.url)
        outcome.error = f"unexpected error ({type(exc).__name__}: {exc})"
    return outcome


def _url_doc_path(url: str, index_origin: str) -> str:
    """The URL's path (and query); ``//host:port/path`` for a host other than the index's."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return path if url_origin(url) == index_origin else f"//{parts.netloc.lower()}{path}"


# --------------------------------------------------------------------- local files


def _read_local(link: LlmsLink, folder: Path, max_bytes: int, warnings: list[str]) -> FetchOutcome:
    outcome = _outcome(link)
    parts = urlsplit(link.url)
    if parts.netloc not in ("", "localhost"):
        outcome.status, outcome.error = "refused", "link to a file on another machine refused"
        return outcome
    try:
        resolved = Path(_url2pathname(unquote(parts.path))).resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        outcome.error = f"bad path ({exc})"
        return outcome
    if not resolved.is_relative_to(folder):
        outcome.status = "refused"
        outcome.error = f"link outside the llms.txt folder refused: {link.url}"
        warnings.append(f"line {link.line}: refused {link.url!r}: outside {folder}")
        return outcome
    try:
        if not resolved.is_file():
            outcome.error = "file not found"
            return outcome
        size = resolved.stat().st_size
        if size > max_bytes:
            outcome.error = f"over the size cap of {human_size(max_bytes)} ({human_size(size)})"
            return outcome
        data = resolved.read_bytes()
        rel = resolved.relative_to(folder).as_posix()
        outcome.document = _document(data, None, path=rel, url=link.url, title=link.title)
        outcome.status = "ok"
    except FetchProblem as problem:
        outcome.status, outcome.error = problem.status, problem.reason
    except OSError as exc:
        outcome.error = f"cannot read file ({exc.strerror or exc})"
    return outcome


# ----------------------------------------------------------------------- the index


def _url2pathname(path: str) -> str:
    from urllib.request import url2pathname  # urllib.request costs ~6 ms to import

    return str(url2pathname(path))


def _is_url(target: str) -> bool:
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", target))


def _index_text(data: bytes, content_type: str | None, where: str, kind: Kind) -> str:
    ctype, charset = parse_content_type(content_type)
    if looks_like_html(data) or (kind == "llms_txt" and ctype in HTML_TYPES and b"](" not in data):
        raise SourceUnavailableError(
            f"{where} is an HTML page, not an llms.txt", hint="check the address of the llms.txt"
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
    try:
        response = await fetcher.fetch(url, index_scope, {})
    except FetchProblem as problem:
        hint = "add the host to allowed_hosts" if problem.status == "refused" else None
        raise SourceUnavailableError(f"cannot fetch {url}: {problem.reason}", hint=hint) from None
    if not 200 <= response.status < 300:
        raise SourceUnavailableError(f"cannot fetch {url}: unexpected HTTP {response.status}")
    headers = response.headers
    if not response.content.strip():
        raise SourceUnavailableError(
            f"cannot fetch {url}: HTTP {response.status} with an empty body",
            hint="the source was left as it was; try again later",
        )
    text = _index_text(response.content, headers.get("content-type"), url, kind)
    index_doc = RawDocument(
        path=_url_doc_path(url, url_origin(url)),
        url=response.url,
        content=text,
        etag=headers.get("etag"),
        last_modified=headers.get("last-modified"),
    )
    parsed = parse_llms_txt(text, response.url)
    scope, origin = fetch_scope([url, response.url], fetcher.settings), url_origin(response.url)

    async def one(link: LlmsLink) -> FetchOutcome:
        return await _fetch_link(fetcher, link, scope, origin)

    listing = await _finish(url, kind, parsed, index_doc, {url, response.url}, one, fetcher, progress)
    listing.index_framed = framed(headers)
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
            return _read_local(link, path.parent, cap, fetcher.warnings)
        return await _fetch_link(fetcher, link, None, "file://")

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
            f"on it for this refresh; {n} documents not fetched keep their last good copy (try again later)"
        )
    if "deadline" in fetcher.gave_up:
        n = sum(1 for e in errors if "time limit" in e)
        fetcher.warnings.append(
            f"the time limit of this refresh passed: {n} documents not fetched keep their last good copy "
            "(refresh --deadline SECONDS sets the limit)"
        )
    warnings = list(dict.fromkeys([*parsed.warnings, *fetcher.warnings]))
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
        return Path(_url2pathname(parts.path)).parent.name or parts.path
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
        local = Path(_url2pathname(urlsplit(target).path)) if _is_url(target) else Path(target)
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
