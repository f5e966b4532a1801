"""The link graph of indexed documents: which document links to which, and ADR numbers.

Every stored link (``document_id, target, anchor, line``) is resolved to an indexed
document of the *same source*:

* relative paths against the linking document's folder (``./``, ``../``); root-absolute
  paths (``/docs/x.md``) against the source root — when the source has no such folder
  (its root *is* ``docs/``, or the link carries a site prefix) leading folders are dropped
  and a unique match on the end of a path is taken; ``/`` is the home page;
* targets without an extension (``guide`` → ``guide.md``, ``guide/index.md``,
  ``guide/README.md``), folder links (``adr/`` → its ``index.md`` or ``README.md``),
  ``.html`` targets as the ``.md`` they were built from (MkDocs), URL-encoded names, and
  a case-insensitive match when it is unique;
* links written for the built site (MkDocs/Docusaurus serve ``page.md`` at ``page/``, so
  ``../other/`` from it means a sibling), tried when the plain reading finds nothing;
* for llms.txt sources (documents at http(s) URLs), relative links against the page's
  URL and absolute URLs on the hosts of that source.

Links to other hosts, ``mailto:`` and the like, and links to nothing indexed are kept in
:attr:`LinkGraph.unresolved` with the reason.

Authority is the log-normalised in-degree: ``log(1 + in) / log(1 + max_in)`` where ``in``
counts distinct documents linking to a document (self-links excluded). The logarithm
keeps a hub that every page links to (a home page) from flattening everything else to 0,
and a document with one in-link still gets something when the busiest has forty.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from math import log1p
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from docmentor.store.db import Store

__all__ = ["DocInfo", "LinkGraph", "ResolvedLink", "UnresolvedLink", "adr_number", "find_adr_mentions"]


class ResolvedLink(NamedTuple):
    """A link to an indexed document: where it goes and the line it is written on."""

    target_doc: int
    anchor: str | None
    line: int


class UnresolvedLink(NamedTuple):
    """A link that leads to no indexed document, and why."""

    document_id: int
    target: str
    anchor: str | None
    line: int
    reason: str  # external (other host, mailto: …) | missing | outside (above the source root) | empty


class DocInfo(NamedTuple):
    id: int
    source: str
    path: str
    url: str
    title: str


_DOC_EXTS = frozenset({".md", ".mdx", ".markdown", ".rst", ".txt"})
_HTML_EXTS = frozenset({".html", ".htm"})
_INDEX_NAMES = ("index.md", "README.md", "index.mdx", "readme.md", "Readme.md", "index.rst", "README.rst")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_ADR_DIRS = frozenset(
    {
        "adr",
        "adrs",
        "decisions",
        "architecture-decisions",
        "decision-records",
        "architecture-decision-records",
    }
)
_ADR_FILE = re.compile(r"^adr[-_ ]?0*(\d{1,5})(?!\d)", re.IGNORECASE)
_NUMBERED_FILE = re.compile(r"^0*(\d{1,5})[-_ .]")  # adr-tools: doc/adr/0001-record-decisions.md
_ADR_TITLE = re.compile(r"^\s*ADR[-_ ]?0*(\d{1,5})(?!\d)", re.IGNORECASE)
# A mention in prose: upper-case ADR (``adr001-x.md`` in a path is a file name, not a mention).
_ADR_MENTION = re.compile(r"(?<![\w/.-])ADR[-‐ ]?0*(\d{1,5})(?![\d])")


def _line(link: tuple[int, str | None, int]) -> int:
    return link[2]


def adr_number(path: str, title: str = "") -> int | None:
    """The ADR number a document carries in its file name (or, failing that, its title).

    ``ADR-0013-x.md``, ``adr-13.md``, ``adr001-add-adr-log.md``; ``0007-x.md`` inside an
    ``adr``/``decisions`` folder; a title ``ADR 13: …`` / ``ADR-0013 - …``.
    """
    n, _ = _adr_number(path, title)
    return n


def _adr_number(path: str, title: str) -> tuple[int | None, int]:
    """(number, priority): 0 from the file name, 1 from the title."""
    folder, _, name = path.rstrip("/").rpartition("/")
    m = _ADR_FILE.match(name)
    if m:
        return int(m.group(1)), 0
    parent = folder.rpartition("/")[2].lower()
    if parent in _ADR_DIRS:
        m = _NUMBERED_FILE.match(name)
        if m:
            return int(m.group(1)), 0
    m = _ADR_TITLE.match(title or "")
    if m:
        return int(m.group(1)), 1
    return None, 2


def find_adr_mentions(text: str) -> list[tuple[int, int]]:
    """``ADR-0013``, ``ADR 13``, ``ADR-13``, ``ADR013`` in ``text``: (number, character offset)."""
    return [(int(m.group(1)), m.start()) for m in _ADR_MENTION.finditer(text)]


class _SourceKeys:
    """Lookup tables for one source's documents."""

    __slots__ = ("files", "hosts", "keys", "lower", "roots", "suffixes")

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}
        self.lower: dict[str, int | None] = {}  # None: several documents share the case-folded key
        self.hosts: set[str] = set()
        self.roots: set[str] = set()  # first path segments of file documents
        self.files: list[tuple[str, int]] = []  # (path, id) of file documents
        self.suffixes: dict[str, int | None] | None = None  # built on first need

    def by_suffix(self, path: str) -> int | None:
        """The one file document whose path ends with ``path`` (whole segments), if only one does."""
        if self.suffixes is None:
            table: dict[str, int | None] = {}
            for full, doc_id in self.files:
                rest = full
                while True:
                    prev = table.get(rest, doc_id)
                    table[rest] = doc_id if prev == doc_id else None
                    if "/" not in rest:
                        break
                    rest = rest.partition("/")[2]
            self.suffixes = table
        return self.suffixes.get(path)

    def add(self, key: str, doc_id: int) -> None:
        self.keys.setdefault(key, doc_id)
        low = key.lower()
        prev = self.lower.get(low, doc_id)
        self.lower[low] = doc_id if prev == doc_id else None

    def get(self, key: str) -> int | None:
        found = self.keys.get(key)
        if found is None:
            found = self.lower.get(key.lower())
        return found


class _Base:
    """Where the links of a document are resolved from: its folder (or URL folder)."""

    __slots__ = ("cache", "folder", "keys", "origin")

    def __init__(self, keys: _SourceKeys, folder: str, origin: str | None) -> None:
        self.keys = keys
        self.folder = folder  # "docs/guides" for files; "/docs/guides/" for web documents
        self.origin = origin  # "https://host" for web documents
        self.cache: dict[str, int | str] = {}


def _candidates(path: str, is_dir: bool) -> list[str]:
    """Keys a link path may name, best first (``path`` has no trailing slash)."""
    if is_dir and path[path.rfind(".") :].lower() in _DOC_EXTS:
        return [path]  # "page.md/" (a MkDocs-ism)
    if is_dir or not path or path == "/":
        pre = path if not path or path.endswith("/") else path + "/"
        out = [pre + n for n in _INDEX_NAMES]
        if path and path != "/":
            out += [path + ".md", path]  # MkDocs directory URLs: ``guide/`` is ``guide.md``
        return out
    slash = path.rfind("/")
    dot = path.rfind(".")
    ext = path[dot:].lower() if dot > slash + 1 else ""
    if ext in _DOC_EXTS:
        return [path]
    if ext in _HTML_EXTS:
        stem = path[:dot]
        out = [stem + ".md", path + ".md", stem + ".mdx", stem + ".rst", stem + ".markdown"]
        if stem.endswith("/index") or stem == "index":
            folder = stem[: -len("index")]
            out += [folder + "README.md", folder + "readme.md"]
        return out
    if ext:  # an image, a YAML file …: only an exact match
        return [path]
    return [
        path,
        path + ".md",
        path + ".mdx",
        path + ".rst",
        path + ".markdown",
        *(f"{path}/{n}" for n in _INDEX_NAMES),
        path + ".html.md",
        path + "/index.html.md",
    ]


class LinkGraph:
    """Resolved links between the documents of some sources.

    Build it with :meth:`build`; it holds plain data and nothing that ties it to the store.
    """

    def __init__(self) -> None:
        self.docs: dict[int, DocInfo] = {}
        self.unresolved: list[UnresolvedLink] = []
        self.adr_index: dict[int, int] = {}  # ADR number → document id (first source by name wins)
        self._keys: dict[str, _SourceKeys] = {}
        self._out: dict[int, list[tuple[int, str | None, int]]] = {}
        self._in_count: Counter[int] = Counter()
        self._pairs: set[tuple[int, int]] = set()
        self._adr_by_source: dict[str, dict[int, int]] = {}
        self._max_in = 0
        self._bases: dict[int, _Base] = {}
        self._shared: dict[tuple[str, str, str | None], _Base] = {}

    # -- building ------------------------------------------------------------------
    @classmethod
    def build(cls, store: Store, sources: list[str] | None) -> LinkGraph:
        """The graph of ``sources`` (all sources when ``None`` or empty)."""
        graph = cls()
        adr_rank: dict[tuple[str, int], tuple[int, str]] = {}
        for row in store.document_facts(sources):
            doc = DocInfo(int(row[0]), str(row[1]), str(row[2]), str(row[3]), str(row[4] or ""))
            graph._add_doc(doc)
            number, prio = _adr_number(doc.path, doc.title)
            if number is not None:
                rank = (prio, doc.path)
                prev = adr_rank.get((doc.source, number))
                if prev is None or rank < prev:
                    adr_rank[(doc.source, number)] = rank
                    graph._adr_by_source.setdefault(doc.source, {})[number] = doc.id
        for name in sorted(graph._adr_by_source, reverse=True):  # the first source by name wins
            graph.adr_index.update(graph._adr_by_source[name])

        out, unresolved, bases = graph._out, graph.unresolved, graph._bases
        pairs: set[tuple[int, int]] = set()  # (target, linking document), self-links excluded
        resolve = graph._resolve_from
        for doc_id, target, anchor, line in store.links(sources):
            base = bases.get(doc_id)
            if base is None:
                continue
            found = base.cache.get(target)
            if found is None:
                tgt = (target or "").strip()
                found = base.cache[target] = resolve(base, tgt) if tgt else "empty"
            if isinstance(found, str):
                if found == "missing":
                    found = graph._as_built(doc_id, target) or found
                if found == "empty" and anchor:
                    found = doc_id  # "#section": a link within the document
                elif isinstance(found, str):
                    unresolved.append(UnresolvedLink(doc_id, target, anchor, line, found))
                    continue
            lst = out.get(doc_id)
            if lst is None:
                lst = out[doc_id] = []
            lst.append((found, anchor or None, line))
            if found != doc_id:
                pairs.add((found, doc_id))
        for links in out.values():
            links.sort(key=_line)  # stable: same-line links keep their order
        graph._in_count = Counter(t for t, _ in pairs)
        graph._max_in = max(graph._in_count.values(), default=0)
        graph._pairs = pairs
        return graph

    def _add_doc(self, doc: DocInfo) -> None:
        self.docs[doc.id] = doc
        keys = self._keys.get(doc.source)
        if keys is None:
            keys = self._keys[doc.source] = _SourceKeys()
        if doc.url.startswith(("http://", "https://")):
            parts = urlsplit(doc.url)
            host = parts.netloc.lower()
            keys.hosts.add(host)
            keys.add(f"//{host}{unquote(parts.path)}", doc.id)
            if doc.path.startswith("/"):  # "/docs/a.md" (the index's host) or "//host/docs/a.md"
                keys.add(unquote(doc.path.partition("?")[0]), doc.id)
            path = parts.path or "/"
            self._base(doc, keys, path[: path.rfind("/") + 1], f"{parts.scheme}://{host}")
        else:
            keys.add(doc.path, doc.id)
            keys.roots.add(doc.path.partition("/")[0])
            keys.files.append((doc.path, doc.id))
            self._base(doc, keys, doc.path.rpartition("/")[0], None)
        keys.add(doc.url, doc.id)

    def _base(self, doc: DocInfo, keys: _SourceKeys, folder: str, origin: str | None) -> None:
        # documents of one folder share their base, and so the cache of resolved targets
        bkey = (doc.source, folder, origin)
        base = self._shared.get(bkey)
        if base is None:
            base = self._shared[bkey] = _Base(keys, folder, origin)
        self._bases[doc.id] = base

    # -- resolution ----------------------------------------------------------------
    def _resolve_from(self, base: _Base, target: str) -> int | str:
        """A document id for a non-empty link target, or the reason there is none."""
        keys, folder, origin = base.keys, base.folder, base.origin
        if origin is None:
            found = self._plain_relative(keys, folder, target)
            if found is not None:
                return found
        if target.startswith("//"):
            target = (origin.partition(":")[0] if origin else "https") + ":" + target
        if ":" in target and _SCHEME.match(target):
            return self._resolve_url(keys, target)
        target = target.partition("?")[0]
        if "%" in target:
            target = unquote(target)
        if not target:
            return "empty"
        is_dir = target.endswith("/") or target in (".", "..") or target.endswith(("/.", "/.."))
        if origin is not None:
            return self._resolve_on_site(keys, folder, origin, target, is_dir)
        return self._resolve_in_folder(keys, folder, target, is_dir)

    @staticmethod
    def _plain_relative(keys: _SourceKeys, folder: str, target: str) -> int | None:
        """The common case of a local source, without normpath: "page.md", "./sub/page.md",
        "../../x/page.md", "/x/page.md" found as written; ``None`` when not that simple or not found."""
        if not (
            target[-3:] == ".md"
            and ":" not in target
            and "%" not in target
            and "?" not in target
            and "//" not in target
        ):
            return None
        rel, up = target, folder
        if rel[0] == ".":
            while rel[:2] == "./":
                rel = rel[2:]
            while rel[:3] == "../" and up:
                up = up.rpartition("/")[0]
                rel = rel[3:]
        elif rel[0] == "/":
            up, rel = "", rel[1:]
        if "./" in rel:
            return None
        return keys.keys.get(f"{up}/{rel}" if up else rel)

    def _resolve_url(self, keys: _SourceKeys, target: str) -> int | str:
        """An absolute URL (with a scheme): a document of one of the source's hosts, or "external"/"missing"."""
        exact = keys.keys.get(target.partition("#")[0])
        if exact is not None:
            return exact
        if not keys.hosts or not target[:8].lower().startswith(("http://", "https://")):
            return "external"
        if target.split("/", 3)[2].partition("?")[0].partition("#")[0].lower() not in keys.hosts:
            return "external"  # (checked before urlsplit, which is slow)
        parts = urlsplit(target)
        host = parts.netloc.lower()
        if host not in keys.hosts:
            return "external"
        path = posixpath.normpath(unquote(parts.path) or "/")
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        is_dir = parts.path.endswith("/") or not parts.path
        found = self._lookup(keys, (f"//{host}", ""), path, is_dir)
        return "missing" if found is None else found

    def _resolve_on_site(
        self, keys: _SourceKeys, folder: str, origin: str, target: str, is_dir: bool
    ) -> int | str:
        """A relative or rooted target in a document fetched from ``origin``, joined to its URL's folder."""
        host = origin.partition("://")[2]
        joined = posixpath.normpath(target if target.startswith("/") else folder + target)
        if joined.startswith("//"):
            joined = "/" + joined.lstrip("/")
        found = self._lookup(keys, (f"//{host}", ""), joined, is_dir)
        return "missing" if found is None else found

    def _resolve_in_folder(self, keys: _SourceKeys, folder: str, target: str, is_dir: bool) -> int | str:
        """A relative or rooted target in a local document, joined to its folder (or the source's root)."""
        rooted = target.startswith("/")
        if rooted:
            joined = posixpath.normpath(target.lstrip("/")) if target.strip("/") else "."
        else:
            joined = posixpath.normpath(f"{folder}/{target}" if folder else target)
        if joined == ".." or joined.startswith("../"):
            return "outside"
        path = "" if joined == "." else joined
        found = self._lookup(keys, ("",), path, is_dir)
        if found is not None:
            return found
        if not rooted:
            return "missing"
        if not path:  # "/": the site's home page, often docs/index.md
            for home in ("docs", "doc", "documentation"):
                found = self._lookup(keys, ("",), home, True)
                if found is not None:
                    return found
            return "missing"
        return self._rooted_fallback(keys, path, is_dir)

    def _rooted_fallback(self, keys: _SourceKeys, path: str, is_dir: bool) -> int | str:
        """A rooted path not found as written: "/docs/x.md" in a source whose root *is* docs/, or
        "/site-prefix/x/". Drop leading folders the source does not have, then take a unique
        match on the path's end."""
        rest = path
        while "/" in rest and rest.partition("/")[0] not in keys.roots:
            rest = rest.partition("/")[2]
            found = self._lookup(keys, ("",), rest, is_dir)
            if found is not None:
                return found
        rest = path
        while "/" in rest:
            rest = rest.partition("/")[2]
            for key in _candidates(rest, is_dir):
                found = keys.by_suffix(key)
                if found is not None:
                    return found
        return "missing"

    def _as_built(self, doc_id: int, target: str) -> int | None:
        """A link written for the built site, where ``page.md`` is served at ``page/``.

        MkDocs (directory URLs) and Docusaurus pages link relative to that URL, so
        ``../other/`` from ``docs/page.md`` means ``docs/other``, not the page's parent.
        """
        doc = self.docs.get(doc_id)
        if doc is None or doc.url.startswith(("http://", "https://")):
            return None
        target = target.strip().partition("?")[0]
        if not target or target.startswith("/") or ":" in target:
            return None
        target = unquote(target) if "%" in target else target
        name = target.rpartition("/")[2]
        ext = name[name.rfind(".") :].lower() if "." in name.strip(".") else ""
        if ext and ext not in _HTML_EXTS:
            return None  # "x.md" is a source link, resolved as such; "x.png" is no page
        stem, dot, _ = doc.path.rpartition(".")
        if not dot or stem.rpartition("/")[2].lower() in ("index", "readme"):
            return None  # an index page is served at its folder already
        joined = posixpath.normpath(f"{stem}/{target}")
        if joined == ".." or joined.startswith("../"):
            return None
        is_dir = target.endswith("/") or target.endswith(("/.", "/..")) or target in (".", "..")
        return self._lookup(self._keys[doc.source], ("",), "" if joined == "." else joined, is_dir)

    @staticmethod
    def _lookup(keys: _SourceKeys, prefixes: tuple[str, ...], path: str, is_dir: bool) -> int | None:
        for key in _candidates(path, is_dir):
            for pre in prefixes:
                found = keys.get(pre + key)
                if found is not None:
                    return found
        return None

    def resolve(self, doc_id: int, target: str, anchor: str | None = None) -> tuple[int, str | None] | None:
        """Where a link written in document ``doc_id`` leads: (document id, anchor), or ``None``."""
        doc = self.docs.get(doc_id)
        if doc is None:
            return None
        if anchor is None and "#" in target:
            target, _, frag = target.partition("#")
            anchor = frag or None
        target = target.strip()
        if not target:
            return (doc_id, anchor) if anchor else None
        found = self._resolve_from(self._bases[doc_id], target)
        if found == "missing":
            found = self._as_built(doc_id, target) or found
        return None if isinstance(found, str) else (found, anchor or None)

    # -- queries ---------------------------------------------------------------------
    def document(self, doc_id: int) -> DocInfo | None:
        return self.docs.get(doc_id)

    def outlinks(self, doc_id: int) -> list[ResolvedLink]:
        """Resolved links written in a document, in line order."""
        return [ResolvedLink._make(t) for t in self._out.get(doc_id, ())]

    def inlinks(self, doc_id: int) -> int:
        """How many other documents link to this one."""
        return self._in_count.get(doc_id, 0)

    def linking_documents(self, doc_id: int) -> set[int]:
        """The other documents that link to this one."""
        return {src for dst, src in self._pairs if dst == doc_id}

    def authority(self, doc_id: int) -> float:
        """In [0, 1]: ``log(1 + in-links) / log(1 + max in-links)`` (0 when nothing links anywhere)."""
        if self._max_in <= 0:
            return 0.0
        return log1p(self.inlinks(doc_id)) / log1p(self._max_in)

    def adr(self, number: int, source: str | None = None) -> int | None:
        """The document of ADR ``number``, preferring ``source`` when it has one."""
        if source is not None:
            found = self._adr_by_source.get(source, {}).get(number)
            if found is not None:
                return found
        return self.adr_index.get(number)

    @staticmethod
    def mentions(text: str) -> list[tuple[int, int]]:
        """ADR mentions in ``text``: (ADR number, character offset)."""
        return find_adr_mentions(text)

    def __len__(self) -> int:
        return len(self.docs)
