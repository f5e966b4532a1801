"""One document an llms.txt links, fetched (or read from the llms.txt's folder): a ``FetchOutcome``.

Never raises: a refused address, an HTTP error, an empty body, an HTML page where Markdown
or text was served before, a file outside the folder all become the outcome's status and
error. The fetcher and its address rules are ``docmentor.sources.fetch``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

from docmentor.models import RawDocument
from docmentor.sources.fetch import (
    Fetcher,
    FetchProblem,
    FetchScope,
    conditional_headers,
    fetch_scope,
    url_origin,
)
from docmentor.sources.html import (
    HTML_TYPES,
    MARKDOWN_TYPES,
    NotTextError,
    decode_body,
    looks_like_html,
    parse_content_type,
)
from docmentor.sources.llmstxt_parse import LlmsLink
from docmentor.sources.sizes import human_size

logger = logging.getLogger(__name__)

Status = Literal["ok", "not_modified", "failed", "refused"]


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


async def fetch_link(
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
        headers = conditional_headers(prior)
        async with fetcher.semaphore:
            response = await fetcher.fetch(link.url, scope, headers)
        if response.status == 304 and headers:
            outcome.status = "not_modified"
            return outcome
        if not 200 <= response.status < 300:
            raise FetchProblem("failed", f"HTTP {response.status}")
        if not response.content.strip():
            raise FetchProblem("failed", f"HTTP {response.status} with an empty body")
        path = url_doc_path(link.url, index_origin)
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


def url_doc_path(url: str, index_origin: str) -> str:
    """The URL's path (and query); ``//host:port/path`` for a host other than the index's."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return path if url_origin(url) == index_origin else f"//{parts.netloc.lower()}{path}"


# --------------------------------------------------------------------- local files


def read_local(link: LlmsLink, folder: Path, max_bytes: int, warnings: list[str]) -> FetchOutcome:
    outcome = _outcome(link)
    parts = urlsplit(link.url)
    if parts.netloc not in ("", "localhost"):
        outcome.status, outcome.error = "refused", "link to a file on another machine refused"
        return outcome
    try:
        resolved = Path(url_to_path(unquote(parts.path))).resolve()
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


def url_to_path(path: str) -> str:
    from urllib.request import url2pathname  # urllib.request costs ~6 ms to import

    return str(url2pathname(path))
