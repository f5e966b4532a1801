"""Links and images: broken relative links, broken ``#anchors``, images without alt text.

Link targets are resolved relative to the page, the way MkDocs, Docusaurus and GitHub
do, leniently: ``other/`` means ``other/index.md`` / ``other/README.md`` / ``other.md``
(also from the page's own directory URL), ``page.html`` means ``page.md``, a target
without a suffix may be a ``.md``/``.mdx`` file or a folder, or a page of that folder whose
name without its number prefix (``01-intro.md``) or whose front matter ``id`` it is, as
Docusaurus routes them. Not checked: URLs with a
scheme (``http:``, ``mailto:`` …), site-absolute ``/paths`` (their mapping to files
is the site generator's), templated targets, and links to media and other binary assets
(images, PDFs, notebooks — they are often not checked out with the docs). Images are
checked for alt text only.

Anchors are compared with every slug a heading can get — GitHub's, MkDocs' (``toc``,
ASCII and Unicode) — with the duplicate suffixes ``-1`` (GitHub) and ``_1`` (MkDocs),
plus ``{#id}`` attribute lists and HTML ``id``/``name`` attributes. A page with
mkdocstrings/mkautodoc ``:::`` directives has anchors we cannot know: not checked.
"""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from docmentor.clarity.checks._page import Page, page_of, strip_inline_code
from docmentor.clarity.checks._registry import check
from docmentor.clarity.models import CheckedDocument, Issue
from docmentor.models import Link, ParsedDocument
from docmentor.parse.common import ATTR_LIST, attr_list_id, slugify

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:|^//")
_HTML_ID = re.compile(r"<[A-Za-z][^<>]*?\s(?:id|name)\s*=\s*[\"']([^\"']+)[\"']")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# mkdocstrings' `::: package.module` (anchors made from the code: unknowable here), not a
# Docusaurus admonition (`:::note`, `:::tip Title`, `::: warning`) or a closing `:::`
_DIRECTIVE = re.compile(r"^[ \t]*+:::[ \t]++([A-Za-z_][\w.]*+)", re.M)
_ADMONITIONS = frozenset(
    {"note", "tip", "info", "warning", "danger", "caution", "important", "success", "secondary", "details"}
)
_RST_IMAGE = re.compile(r"[ \t]*+\.\.[ \t]++(?:\|[^|\n]++\|[ \t]++)?(image|figure)::")
_RST_IMAGE_OPTION = re.compile(r"[ \t]++:[\w-]++:")
_MD_IMAGE = re.compile(r"!\[([^\]\n]*)\](?:\([^)\n]*\)?|\[[^\]\n]*\]?)")
_HTML_IMG = re.compile(r"<img\b[^>]*>", re.IGNORECASE | re.S)
_ALT = re.compile(r"\balt\s*=", re.IGNORECASE)
DOC_SUFFIXES = (".md", ".mdx", ".markdown")
# pages Sphinx builds itself, named by links in its projects
_SPHINX_PAGES = frozenset({"genindex", "modindex", "py-modindex", "search"})
# a Python object's dotted path (``structlog.processors.TimeStamper``): linear, one character class
_DOTTED = re.compile(r"[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++")
_PAGE_SUFFIXES = frozenset({"md", "mdx", "markdown", "rst", "txt", "html", "htm"})
# what ends a file's name, not a Python object's (``settings.yaml``, ``install.sh``): such a
# target of two parts is a file, checked as one
_FILE_SUFFIXES = _PAGE_SUFFIXES | frozenset(
    {
        "yaml",
        "yml",
        "json",
        "toml",
        "cfg",
        "ini",
        "conf",
        "env",
        "lock",
        "sh",
        "bash",
        "bat",
        "ps1",
        "py",
        "pyi",
        "js",
        "mjs",
        "ts",
        "jsx",
        "tsx",
        "css",
        "scss",
        "csv",
        "tsv",
        "xml",
        "sql",
    }
)
_ASSET = re.compile(
    r"\.(png|jpe?g|gif|svg|webp|ico|bmp|tiff?|avif|mp[34]|webm|mov|wav|ogg|pdf|zip|t?gz|tar|whl|drawio"
    r"|excalidraw|ipynb|woff2?|ttf|eot)$",
    re.IGNORECASE,
)


# -- anchors ------------------------------------------------------------------------------


def _github_slug(text: str) -> str:
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _mkdocs_slug(text: str, *, ascii_only: bool) -> str:
    if ascii_only:
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def heading_slugs(heading: str) -> tuple[str | None, set[str]]:
    """(explicit ``{#id}``, every slug the heading may get) for one heading text."""
    explicit = None
    m = ATTR_LIST.search(heading)
    if m:
        explicit = attr_list_id(m.group(0))
        heading = heading[: m.start()]
    heading = _HTML_TAG.sub("", heading)
    plain = re.sub(r"`|\*\*|__|(?<!\w)[*_]|[*_](?!\w)", "", heading)
    slugs = {
        slugify(heading),
        _github_slug(plain),
        _github_slug(heading.replace("`", "")),
        _mkdocs_slug(plain, ascii_only=True),
        _mkdocs_slug(plain, ascii_only=False),
    }
    slugs.discard("")
    return explicit, slugs


def document_anchors(parsed: ParsedDocument, text: str) -> set[str] | None:
    """Every anchor a link may use on a page (lowercased), or ``None`` when unknowable."""
    if ":::" in text and any(m.group(1).lower() not in _ADMONITIONS for m in _DIRECTIVE.finditer(text)):
        return None
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for section in parsed.sections:
        if section.level <= 0:
            continue
        explicit, slugs = heading_slugs(section.heading)
        if explicit:
            anchors.add(explicit.lower())
            continue
        for slug in slugs:
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
            if n:
                anchors.add(f"{slug}_{n}")
        if section.anchor:
            anchors.add(section.anchor.lower())
    if "=" in text:
        anchors.update(m.group(1).lower() for m in _HTML_ID.finditer(text))
    return anchors


def _page_anchors(page: Page) -> set[str] | None:
    if "anchors" not in page.cache:
        page.cache["anchors"] = document_anchors(page.doc.parsed, page.text)
    return page.cache["anchors"]


def _anchor_ok(anchor: str, anchors: set[str]) -> bool:
    a = unquote(anchor).strip().lower()
    return not a or a in anchors or a.replace(" ", "-") in anchors


# -- files --------------------------------------------------------------------------------


class _Files:
    """Existence tests for root-relative POSIX paths: the known files first, then the disk."""

    def __init__(self, root: Path, known: frozenset[str]) -> None:
        self.root = root
        self.known = known
        dirs: set[str] = set()
        for f in known:
            parts = f.split("/")[:-1]
            for k in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:k]))
        self.dirs = dirs
        self._routes: dict[str, dict[str, str]] = {}

    def is_file(self, rel: str) -> bool:
        # the disk decides what the walk skipped (hidden folders) or never saw (outside the root)
        return rel in self.known or (self.root / rel).is_file()

    def is_dir(self, rel: str) -> bool:
        return rel in ("", ".") or rel in self.dirs or (self.root / rel).is_dir()

    def routes(self, folder: str) -> dict[str, str]:
        """The pages of a folder by the routes Docusaurus gives them besides their file name:
        the name without its number prefix (``01-intro.md`` is ``intro``) and the front
        matter's ``id`` (lowercased) → the root-relative file."""
        cached = self._routes.get(folder)
        if cached is not None:
            return cached
        names = [f for f in self.known if posixpath.dirname(f) == folder]
        if not names:
            try:
                names = [
                    posixpath.join(folder, e.name) for e in os.scandir(self.root / folder) if e.is_file()
                ]
            except OSError:
                names = []
        cached = {}
        for rel in sorted(names):
            stem, ext = posixpath.splitext(posixpath.basename(rel))
            if ext.lower() not in (".md", ".mdx"):
                continue
            cached.setdefault(_NUMBER_PREFIX.sub("", stem).lower(), rel)
            page_id = _front_matter_id(self.root / rel)
            if page_id:
                cached.setdefault(page_id.lower(), rel)
        self._routes[folder] = cached
        return cached


# Docusaurus drops a number prefix from a file's route (`01-intro.md` → `intro`)
_NUMBER_PREFIX = re.compile(r"^\d+[-_.]")
_FRONT_ID = re.compile(r"^id:[ \t]*+['\"]?([^'\"\s]+)", re.M)


def _front_matter_id(path: Path) -> str | None:
    """The ``id:`` of a page's front matter (its first 4 KB), if it has one."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4096).decode("utf-8", errors="replace")
    except OSError:
        return None
    if not head.startswith("---"):
        return None
    end = head.find("\n---", 3)
    found = _FRONT_ID.search(head[3 : end if end > 0 else len(head)])
    return found.group(1) if found else None


_FILES_CACHE: list[tuple[Path, frozenset[str], _Files]] = []


def _files(root: Path, known: frozenset[str]) -> _Files:
    for r, k, f in _FILES_CACHE:
        if r == root and k is known:
            return f
    files = _Files(root, known)
    _FILES_CACHE[:] = [(root, known, files)]
    return files


def page_location(doc: CheckedDocument) -> str:
    """The page's POSIX path relative to ``doc.root``."""
    if doc.file is not None and doc.root is not None:
        try:
            return doc.file.resolve().relative_to(doc.root.resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return doc.path.replace("\\", "/").lstrip("/")


def _candidates(path: str, *, trailing_slash: bool) -> list[str]:
    name = path.rsplit("/", 1)[-1]
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if trailing_slash or not suffix:  # `[x](api)` in a Sphinx site is api.rst
        stems = [f"{path}/index.md", f"{path}/README.md", f"{path}/readme.md", f"{path}/index.mdx"]
        return [
            *([] if trailing_slash else [path]),
            f"{path}.md",
            f"{path}.mdx",
            f"{path}.rst",
            *stems,
            f"{path}/index.rst",
        ]
    if suffix in ("html", "htm"):
        base = path.rsplit(".", 1)[0]
        extra = [f"{base[: -len('index')].rstrip('/')}/index.md"] if name.lower().startswith("index.") else []
        return [path, f"{base}.md", f"{base}.mdx", f"{base}/index.md", *extra]
    return [path]


def resolve_target(doc: CheckedDocument, target: str) -> tuple[bool, str | None]:
    """(exists, root-relative Markdown file to check anchors in) for a relative link target."""
    assert doc.root is not None
    files = _files(doc.root, doc.known_files)
    here = page_location(doc)
    folder = posixpath.dirname(here)
    trailing = target.endswith("/")
    bases = [folder]
    stem = posixpath.splitext(posixpath.basename(here))[0]
    name = target.rstrip("/").rsplit("/", 1)[-1]
    mkdocs_style = trailing or "." not in name or name.lower().endswith((".html", ".htm"))
    if mkdocs_style and stem.lower() not in ("index", "readme"):
        bases.append(posixpath.join(folder, stem))  # MkDocs directory URLs: page.md is served as page/
    for base in bases:
        joined = posixpath.normpath(posixpath.join(base, target)) if target.strip("/") else base
        if joined in ("", "."):
            return True, None
        for cand in _candidates(joined, trailing_slash=trailing):
            if files.is_file(cand):
                return True, cand if cand.lower().endswith(DOC_SUFFIXES) else None
        if files.is_dir(joined):
            return True, None
    if not trailing and "." not in name and target.strip("/"):  # a Docusaurus route: id, number prefix
        joined = posixpath.normpath(posixpath.join(folder, target))
        routed = files.routes(posixpath.dirname(joined)).get(posixpath.basename(joined).lower())
        if routed is not None:
            return True, routed
    return False, None


# -- the checks ---------------------------------------------------------------------------


def _in_code(page: Page, link: Link) -> bool:
    """Whether the link sits inside a backtick code span on its line."""
    needle = link.target or (f"#{link.anchor}" if link.anchor else "")
    if not needle:
        return False
    idx = _served_lines(page, link.line)
    lines = [page.lines[i] for i in idx]
    stripped = page.cache.setdefault("stripped", {})  # one strip per line, not one per link on it
    visible = any(needle in stripped.setdefault(i, page.without_code_spans(page.lines[i])) for i in idx)
    return not visible and any(needle in s for s in lines)


def _served_lines(page: Page, line: int) -> list[int]:
    if page.line_map is None:
        return [line - 1] if 0 < line <= len(page.lines) else []
    index = page.cache.get("served")
    if index is None:
        index = {}
        for i, orig in enumerate(page.line_map):
            index.setdefault(orig, []).append(i)
        page.cache["served"] = index
    return index.get(line, [])


def _link_quote(link: Link) -> str:
    href = link.target + (f"#{link.anchor}" if link.anchor else "")
    return f"[{link.text}]({href})"


@check("links")
def broken_links(doc: CheckedDocument) -> Iterator[Issue]:
    """Relative links whose file does not exist, and ``#anchors`` that no heading defines.

    See the module docstring for how targets and anchors are resolved. Counted as
    ``broken_links`` by the formula.
    """
    page = page_of(doc)
    for link in doc.parsed.links:
        target = link.target.strip()
        if _SCHEME.match(target) or "{{" in target or "{%" in target or target.startswith(("$", "<")):
            continue
        if _in_code(page, link):
            continue
        target = unquote(target.split("?", 1)[0])
        if not target:
            if link.anchor is None:
                continue
            anchors = _page_anchors(page)
            if anchors is not None and not _anchor_ok(link.anchor, anchors):
                yield _broken(page, link, f"Anchor `#{link.anchor}` matches no heading on this page")
            continue
        if target.startswith("/") or doc.root is None:
            continue
        if _ASSET.search(target.rstrip("/")):
            continue
        exists, md_file = resolve_target(doc, target)
        if not exists and not _sphinx_reference(doc, link, target):
            yield _broken(page, link, f"Link target `{link.target}` does not exist")
            continue
        if link.anchor and md_file and callable(doc.anchors_of):
            try:
                anchors = doc.anchors_of(md_file)
            except Exception:  # a broken anchor source is not the page's problem
                anchors = None
            if anchors is not None and not _anchor_ok(link.anchor, anchors):
                yield _broken(page, link, f"Anchor `#{link.anchor}` matches no heading in `{md_file}`")


def _sphinx_reference(doc: CheckedDocument, link: Link, target: str) -> bool:
    """Whether a link target that names no file is what Sphinx resolves by name: a label
    (MyST's ``(label)=``, reST's ``.. _label:``) on any page of the docs, a page Sphinx builds
    (``genindex``), or in a Sphinx project (a ``conf.py``) a Python object (``[](pkg.Class)``)."""
    if "/" in target or link.anchor:
        return False
    name = target.strip()
    if name.lower() in _SPHINX_PAGES:
        return True
    labels = doc.labels() if callable(doc.labels) else frozenset()
    if name.lower() in labels:
        return True
    if not doc.sphinx or _DOTTED.fullmatch(name) is None:
        return False
    parts = name.split(".")
    suffixes = _FILE_SUFFIXES if len(parts) == 2 else _PAGE_SUFFIXES  # settings.yaml; pkg.mod.Class
    return parts[-1].lower() not in suffixes


def _broken(page: Page, link: Link, message: str) -> Issue:
    return page.issue(
        type="broken_link",
        severity="warning",
        dimensions=["completeness"],
        line=link.line,
        message=message,
        suggested_fix="Point the link at an existing page or heading (or remove it).",
        quote=_link_quote(link),
        effort="low",
        counts_as="broken_links",
    )


@check("alt-text")
def missing_alt_text(doc: CheckedDocument) -> Iterator[Issue]:
    """Images without alt text: ``![](x.png)`` and ``<img>`` without an ``alt`` attribute.

    ``<img alt="">`` (a decorative image, on purpose) is fine. Images in code, HTML
    comments and front matter are ignored. Counted as ``missing_alt_text`` by the formula.
    """
    page = page_of(doc)
    if not page.markdown:
        yield from _rst_images_without_alt(page)
        return
    rows = [
        strip_inline_code(s) if page.kinds[i] in ("prose", "heading", "html") else ""
        for i, s in enumerate(page.lines)
    ]
    for i, s in enumerate(rows):
        if "![" not in s:
            continue
        for m in _MD_IMAGE.finditer(s):
            if not m.group(1).strip():
                yield _alt_issue(page, i, m.group(0))
    masked = "\n".join(rows)
    if "<img" not in masked.lower():
        return
    for m in _HTML_IMG.finditer(masked):
        if not _ALT.search(m.group(0)):
            yield _alt_issue(page, masked.count("\n", 0, m.start()), m.group(0))


def _rst_images_without_alt(page: Page) -> Iterator[Issue]:
    """reST ``.. image::`` (also as a ``|substitution|``) without an ``:alt:`` option, and a
    ``.. figure::`` with neither ``:alt:`` nor a caption."""
    if not page.doc.path.lower().endswith(".rst"):
        return
    lines = page.lines
    for i, line in enumerate(lines):
        if page.kinds[i] == "code" or "::" not in line:
            continue
        m = _RST_IMAGE.match(line)
        if m is None:
            continue
        indent = len(line) - len(line.lstrip())
        j, alt = i + 1, False
        while j < len(lines) and _RST_IMAGE_OPTION.match(lines[j]) and _indent(lines[j]) > indent:
            alt = alt or lines[j].lstrip().startswith(":alt:")
            j += 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        caption = m.group(1) == "figure" and j < len(lines) and _indent(lines[j]) > indent
        if not alt and not caption:
            yield _alt_issue(page, i, line.strip())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _alt_issue(page: Page, served: int, quote: str) -> Issue:
    return page.issue(
        type="missing_alt_text",
        severity="info",
        dimensions=["completeness"],
        line=page.orig(served),
        message="Image has no alt text",
        suggested_fix=(
            "Describe the image in its alt text: ![What the image shows](path)."
            if page.markdown
            else "Describe the image in an :alt: option under its directive (:alt: What the image shows)."
        ),
        quote=quote,
        effort="low",
        counts_as="missing_alt_text",
    )
