"""Reading a source as it is now: a folder scanned, or an llms.txt and its links fetched
and reconciled with what the store holds (conditional requests, cut-short bodies, stale
copies kept), and when each document last changed at its origin."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from docmentor.config import is_url
from docmentor.engine.reports import Progress
from docmentor.errors import SourceUnavailableError
from docmentor.models import RawDocument, SourceSpec
from docmentor.store.db import Store

DEFAULT_MAX_BYTES = 5_000_000


@dataclass(frozen=True)
class SourceRead:
    """A source as read now, before anything is written: its documents and what the
    refresh report says of the reading."""

    docs: list[RawDocument]
    stale: dict[str, str]  # path → why its last good copy stays, marked stale
    fresh: list[str]  # stale documents served unchanged: no longer stale
    ok_paths: list[str]  # every document the source still lists and gave
    version: str | None = None
    title: str | None = None
    unchanged: int = 0  # documents the server said had not changed (conditional requests)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    refused: set[str] = field(default_factory=set)  # of ``failed``, links refused by policy


def read_folder(store: Store, spec: SourceSpec) -> SourceRead:
    from docmentor.sources.local import DOC_SUFFIXES, scan_folder

    root = Path(spec.target)
    if not root.is_dir():
        raise SourceUnavailableError(
            f"the folder {root} is gone; the source's documents are kept as they were",
            hint=f"put the folder back, or remove the source: docmentor remove {spec.name}",
        )
    opts = spec.options
    scan = scan_folder(
        root,
        max_bytes=opts.max_bytes or DEFAULT_MAX_BYTES,
        base_dirs=[Path(b) for b in opts.base_paths or ()],
        use_gitignore=opts.use_gitignore is not False,
        max_included_bytes=opts.max_included_bytes,
        translations=opts.translations is True,
    )
    # A file or folder that could not be read this time keeps what the index has of it.
    stale: dict[str, str] = {}
    if scan.unreadable:
        known = store.documents(spec.name) if store.has_source(spec.name) else {}
        for path in known:
            for prefix, error in scan.unreadable.items():
                if path == prefix or ((prefix == "" or prefix.endswith("/")) and path.startswith(prefix)):
                    stale[path] = error
                    break
    warnings = list(scan.warnings)
    if not scan.documents and not scan.skipped and not scan.unreadable:
        # a mistyped path, or the docs in another folder: said, not only "0 documents"
        warnings.append(
            f"no documentation files in {root} (files ending {', '.join(DOC_SUFFIXES)}, outside "
            "ignored folders): is it the right folder?"
        )
    return SourceRead(
        docs=scan.documents,
        stale=stale,
        fresh=[],
        ok_paths=[d.path for d in scan.documents],
        skipped=list(scan.skipped),
        warnings=warnings,
    )


def _stored_index(store: Store, target: str, existing: dict[str, Any]) -> Any:
    """The prior of an llms.txt at ``target`` whose last good copy is stored, with its text
    (a PriorDoc); None when there is none or it is stale (asked for in full again)."""
    from docmentor.sources.fetch import PriorDoc, url_origin
    from docmentor.sources.llmstxt_links import url_doc_path

    doc = existing.get(url_doc_path(target, url_origin(target)))
    if doc is None or doc.stale or not (doc.etag or doc.last_modified):
        return None
    return PriorDoc(etag=doc.etag, last_modified=doc.last_modified, text=store.content(doc.id))


def read_llms(
    store: Store,
    spec: SourceSpec,
    existing: dict[str, Any],
    progress: Progress | None,
    served: dict[str, str],
    ends: float | None,
) -> SourceRead:
    from docmentor.sources.fetch import DEFAULT_DEADLINE
    from docmentor.sources.llmstxt import FetchSettings, PriorDoc, load_llms_source

    opts = spec.options
    limit = opts.deadline or DEFAULT_DEADLINE
    if ends is not None:  # the whole refresh's limit, when it is closer
        limit = max(min(limit, ends - time.monotonic()), 0.001)
    settings = FetchSettings(
        concurrency=opts.concurrency or 8,
        timeout=opts.timeout or 20.0,
        max_bytes=opts.max_bytes or DEFAULT_MAX_BYTES,
        retries=2 if opts.retries is None else opts.retries,
        allowed_hosts=opts.allowed_hosts or (),
        include_optional=opts.include_optional is not False,
        deadline=limit,
    )
    # Outcomes are keyed by the link URL, the store keeps the final URL (after redirects):
    # look stored documents up by both, or a redirected document that fails is dropped.
    by_url = {d.url: d for d in existing.values()}
    if is_url(spec.target):
        for d in existing.values():
            by_url.setdefault(urljoin(spec.target, d.path), d)
    prior = {
        u: PriorDoc(etag=d.etag, last_modified=d.last_modified, served=d.served) for u, d in by_url.items()
    }
    if is_url(spec.target) and (index := _stored_index(store, spec.target, existing)) is not None:
        prior[spec.target] = index  # the llms.txt asked for conditionally: a 304 reads the stored one
    cb = (lambda done, total: progress(done, total, spec.name)) if progress else None
    listing = load_llms_source(spec.target, prior=prior, settings=settings, progress=cb)
    linked_before = [d for d in existing.values() if d.path != listing.index_document.path]
    if listing.kind == "llms_txt" and not listing.outcomes and linked_before:
        # An llms.txt that suddenly lists nothing is far more likely a broken page (an empty
        # body, an error text served with 200) than a site that deleted all its docs.
        raise SourceUnavailableError(
            f"{spec.target} lists no documents any more (it had {len(linked_before)})",
            hint="the source was left as it was; remove it if the site really is gone",
        )
    index_before = existing.get(listing.index_document.path)
    if not listing.index_framed and index_before is not None:
        cut = cut_short(store, index_before, listing.index_document.content)
        if cut is not None:
            raise SourceUnavailableError(
                f"{spec.target}: {cut}", hint="the source was left as it was; try again later"
            )
    if listing.kind == "llms_txt" and listing.outcomes:
        listing.index_document.searchable = False  # a table of contents: `get` serves it, search skips it
    docs: list[RawDocument] = [listing.index_document]
    ok_paths = [listing.index_document.path]
    stale: dict[str, str] = {}
    fresh: list[str] = []
    seen: set[str] = {listing.index_document.path}
    unchanged = 0
    failed: list[tuple[str, str]] = []
    refused: set[str] = set()
    said: list[str] = [f"{listing.index_document.url}: {w}" for w in listing.index_document.warnings]
    served[listing.index_document.path] = "text"
    for out in listing.outcomes:
        prev = by_url.get(out.url)
        if out.status == "ok" and out.document is not None and not out.framed and prev is not None:
            cut = cut_short(store, prev, out.document.content)
            if cut is not None:  # a failed fetch: the last good copy stays, marked stale
                out.status, out.document, out.error = "failed", None, cut
        if out.status == "ok" and out.document is not None:
            doc = out.document
            if doc.path in seen:
                doc.path = doc.url
            seen.add(doc.path)
            served[doc.path] = "html" if out.html else "text"
            docs.append(doc)
            ok_paths.append(doc.path)
            said.extend(f"{doc.url}: {w}" for w in doc.warnings)  # how its bytes were read
        elif out.status == "not_modified":
            if prev is not None:
                ok_paths.append(prev.path)
                unchanged += 1
                if prev.stale:
                    fresh.append(prev.path)
        else:
            failed.append((out.url, out.error or out.status))
            if out.status == "refused":  # by policy (another host …): not a failing source
                refused.add(out.url)
            if prev is not None:
                stale[prev.path] = out.error or out.status
    return SourceRead(
        docs=docs,
        stale=stale,
        fresh=fresh,
        ok_paths=ok_paths,
        title=listing.title,
        unchanged=unchanged,
        failed=failed,
        warnings=[*listing.warnings, *said],
        refused=refused,
    )


def cut_short(store: Store, prev: Any, text: str) -> str | None:
    """Why a body the server ended by closing the connection (no Content-Length, not
    chunked) is taken for a cut-short copy of the last good one: it is shorter, and the
    start of it (up to its last whole line). None: it may well be the document."""
    old = store.content(prev.id)
    new = text.rstrip("\ufffd")  # a multi-byte character cut in half
    if len(new) >= len(old):
        return None
    whole_lines = new if new.endswith("\n") else new[: new.rfind("\n") + 1]
    if old.startswith(new) or (whole_lines and old.startswith(whole_lines)):
        return (
            f"body cut short: the connection closed after {len(new)} of the {len(old)} characters of the "
            "last good copy, with no Content-Length to tell"
        )
    return None


def set_updated_times(spec: SourceSpec, docs: list[RawDocument]) -> None:
    """When each new or changed document last changed at its origin (for recency)."""
    if not docs:
        return
    if spec.kind == "folder":
        from docmentor.sources.gitdates import updated_times

        times = updated_times(Path(spec.target), [d.path for d in docs])
        for d in docs:
            d.updated_at = times.get(d.path)
        return
    for d in docs:
        if d.last_modified and d.updated_at is None:
            d.updated_at = http_date_iso(d.last_modified)


_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES, 1)}
_IMF_FIXDATE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT"
)


def http_date_iso(value: str) -> str | None:
    """An HTTP date (``Last-Modified``) as ISO 8601 UTC, or None when it is not a date."""
    m = _IMF_FIXDATE.fullmatch(value.strip())
    if m and m.group(2) in _MONTHS:  # the one format servers send today, without email.utils
        day, _, year, hh, mm, ss = m.groups()
        try:
            stamp = datetime(int(year), _MONTHS[m.group(2)], int(day), int(hh), int(mm), int(ss), tzinfo=UTC)
        except ValueError:
            return None
        return stamp.isoformat().replace("+00:00", "Z")
    from email.utils import parsedate_to_datetime  # obsolete formats (RFC 850, asctime)

    from docmentor.sources.gitdates import iso

    try:
        return iso(parsedate_to_datetime(value).timestamp())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
