"""Fetched bytes → text: charset decoding, text/HTML sniffing, and HTML → Markdown.

``decode_body`` turns a response body (or a local file's bytes) into the text we
store: Markdown and plain text are decoded as served (declared charset, else UTF-8;
whitespace untouched); HTML is converted to Markdown. Only the page's main content
is converted: ``<main>``, else ``<article>``, else ``[role=main]``, else ``<body>``.
Navigation, page chrome, scripts and styles are dropped; headings become ATX (``#``)
headings, code blocks become fenced blocks carrying the language from
``class="language-xxx"`` / ``lang-xxx`` / ``highlight-xxx`` (Sphinx) / ``data-lang``,
and tables become pipe tables.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from docmentor.parse.fences import Fence, closes, fence_open
from docmentor.parse.markdown import MARKDOWN_SUFFIXES
from docmentor.sources.encodings import byte_order_marked, western_text

if TYPE_CHECKING:  # bs4 and markdownify load only when a page is HTML (they cost ~70 ms)
    from bs4 import BeautifulSoup, Tag

__all__ = [
    "HTML_TYPES",
    "MARKDOWN_TYPES",
    "DecodedBody",
    "HtmlPage",
    "NotTextError",
    "decode_body",
    "decode_text",
    "html_to_markdown",
    "is_text",
    "looks_like_html",
    "parse_content_type",
]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
_HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_MD_HEADING = re.compile(r"^#{1,6}\s+\S", re.M)
_TEXT_APP = re.compile(r"^application/(?:.*[+/])?(?:json|xml|yaml|x-yaml|toml|javascript|x-sh)$")

# Always removed, wherever they appear inside the main element.
_DROP_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "iframe",
    "svg",
    "form",
    "button",
    "link",
    "meta",
)
# Removed unless they hold a heading (an <article><header><h1> keeps its title).
_CHROME_TAGS = ("header", "footer")
# Permalink anchors next to headings ("¶", "#") that would pollute heading text.
_ANCHOR_CLASSES = frozenset({"headerlink", "anchor-link", "hash-link", "anchor", "heading-anchor"})
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_LANG_CLASS = re.compile(r"^(?:language|lang|highlight|sourceCode)-([\w+#.-]+)$")
_NO_LANGUAGE = frozenset({"default", "none", "text", "plain", "plaintext", "nohighlight"})
# What an HTML page starts with after its leading comments (read by :func:`looks_like_html`
# with string methods: ``(?:<!--.*?-->\s*)*`` was exponential on a run of ``<!---->``).
_HTML_TAG = re.compile(rb"<(?:!doctype[ \t\n\r\f\v]++html|html|head|body)[ \t\n\r\f\v>]", re.I)
_SPACE = b" \t\n\r\f\v"


@dataclass(frozen=True, slots=True)
class HtmlPage:
    """The Markdown of a page's main content and the page's ``<title>`` (if any)."""

    markdown: str
    title: str | None


class NotTextError(ValueError):
    """The bytes are not a text document (an image, a PDF, binary data)."""


@dataclass(frozen=True, slots=True)
class DecodedBody:
    """A body as stored text: ``fmt`` is "markdown" for Markdown and converted HTML."""

    text: str
    fmt: Literal["markdown", "text"]
    title: str | None = None  # the HTML <title>, when the body was HTML
    warnings: list[str] = field(default_factory=list)


@lru_cache(maxsize=256)  # a site sends the same few values for all its pages
def parse_content_type(value: str | None) -> tuple[str, str | None]:
    """``"text/html; charset=UTF-8"`` → ``("text/html", "UTF-8")``; ``("", None)`` when absent."""
    if not value or not value.strip():
        return "", None
    from email.message import Message

    msg = Message()
    msg["content-type"] = value
    charset = msg.get_param("charset")
    return msg.get_content_type(), charset if isinstance(charset, str) and charset else None


def is_text(ctype: str, charset: str | None, data: bytes) -> bool:
    """True for text/*, textual application/* types, or untyped bytes without NULs."""
    known = not ctype or ctype == "application/octet-stream"
    if not (known or ctype.startswith("text/") or _TEXT_APP.match(ctype)):
        return False
    wide = charset is not None and charset.lower().replace("-", "").startswith(("utf16", "utf32"))
    marked = data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff"))  # UTF-16/32 by its mark
    return wide or marked or b"\x00" not in data[:8192]


def decode_text(data: bytes, charset: str | None, warnings: list[str]) -> str:
    """Decode a fetched text body as a local file is read, the declared charset a hint only:
    a UTF-16/32 byte-order mark decides; bytes that are valid UTF-8 are UTF-8 whatever the
    header says (a server's default ``charset=iso-8859-1`` on a UTF-8 page made "CafÃ©", and
    kept it: an unchanged page is not fetched again); other bytes are read in the declared
    charset, else as Windows-1252 when they read as Western letters, else as UTF-8 with
    U+FFFD for bad bytes — each with a warning. NUL characters are removed, with a warning."""
    codec = "utf-8"
    if charset:
        try:
            codec = codecs.lookup(charset).name
        except LookupError:
            warnings.append(f"unknown charset {charset!r}, decoded as UTF-8")
    marked = byte_order_marked(data)
    if marked is not None and marked[0] is not None:
        if codec.replace("_", "-") != marked[0].lower():
            warnings.append(f"read as {marked[0]} (its byte-order mark says so)")
        return _without_nuls(marked[1], warnings)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        if codec not in ("utf-8", "ascii") and not data.isascii():
            warnings.append(f"declared charset {charset!r}, but the bytes are UTF-8: read as UTF-8")
        return _without_nuls(text, warnings)
    if codec not in ("utf-8", "ascii"):
        try:
            return _without_nuls(data.decode(codec), warnings)
        except UnicodeDecodeError:
            warnings.append(f"invalid {codec} bytes replaced")
            return _without_nuls(data.decode(codec, errors="replace"), warnings)
    western = western_text(data)
    if western is not None:
        warnings.append("not valid UTF-8, read as Windows-1252 (Latin-1)")
        return _without_nuls(western, warnings)
    warnings.append("invalid utf-8 bytes replaced")
    return _without_nuls(data.decode("utf-8", errors="replace"), warnings)


def _without_nuls(text: str, warnings: list[str]) -> str:
    """``text`` without NUL characters (stray binary bytes past the binary probe of
    :func:`is_text`, not text to index), with a warning that counts them."""
    if "\0" not in text:
        return text
    warnings.append(
        f"{text.count(chr(0))} NUL character(s) removed (first at character {text.index(chr(0))})"
    )
    return text.replace("\0", "")


def decode_body(data: bytes, content_type: str | None, *, name: str = "") -> DecodedBody:
    """Turn fetched bytes into stored text (HTML → Markdown, text kept as served).

    Args:
        data: The body.
        content_type: The ``Content-Type`` header, or None (a local file).
        name: The URL path or file name; its suffix helps when the type is vague.

    Raises:
        NotTextError: The body is not text.
    """
    ctype, charset = parse_content_type(content_type)
    lower = name.lower().split("?", 1)[0]
    if not ctype and lower.endswith(_HTML_SUFFIXES):
        ctype = "text/html"
    if ctype in HTML_TYPES or (ctype not in MARKDOWN_TYPES and looks_like_html(data)):
        page = html_to_markdown(data, encoding=charset)
        found: list[str] = []
        return DecodedBody(_without_nuls(page.markdown, found), "markdown", page.title, found)
    if not is_text(ctype, charset, data):
        raise NotTextError(f"not a text document ({ctype or 'binary content'})")
    warnings: list[str] = []
    text = decode_text(data, charset, warnings)
    markdown = ctype in MARKDOWN_TYPES or lower.endswith(MARKDOWN_SUFFIXES) or _MD_HEADING.search(text)
    return DecodedBody(text, "markdown" if markdown else "text", None, warnings)


def looks_like_html(data: bytes) -> bool:
    """Return True when ``data`` starts like an HTML document (``<!doctype html``, ``<html``...)."""
    head = data[:2048].lstrip(b"\xef\xbb\xbf").lstrip(_SPACE)
    while head.startswith(b"<!--"):  # comments first; one ends at the first "-->", as in HTML
        end = head.find(b"-->", 4)
        if end < 0:
            return False
        head = head[end + 3 :].lstrip(_SPACE)
    return bool(_HTML_TAG.match(head))


def _classes(tag: Tag) -> list[str]:
    value = tag.get("class")
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    return [str(v) for v in value]


def _language_of(pre: Tag) -> str | None:
    """Find a code language on the <pre>, its <code> child, or a few ancestors."""
    from bs4 import Tag

    candidates: list[Tag] = []
    code = pre.find("code")
    if isinstance(code, Tag):
        candidates.append(code)
    candidates.append(pre)
    parent = pre.parent
    for _ in range(3):
        if not isinstance(parent, Tag):
            break
        candidates.append(parent)
        parent = parent.parent
    for tag in candidates:
        for attr in ("data-lang", "data-language"):
            value = tag.get(attr)
            if isinstance(value, str) and value.strip():
                lang = value.strip().lower()
                return None if lang in _NO_LANGUAGE else lang
        for cls in _classes(tag):
            match = _LANG_CLASS.match(cls)
            if match:
                lang = match.group(1).lower()
                return None if lang in _NO_LANGUAGE else lang
    return None


def _main_element(soup: BeautifulSoup) -> Tag:
    from bs4 import Tag

    found = soup.find("main") or soup.find("article") or soup.find(True, attrs={"role": "main"})
    if isinstance(found, Tag):
        return found
    return soup.body if isinstance(soup.body, Tag) else soup


def _strip_chrome(root: Tag) -> None:
    for tag in root.find_all(_DROP_TAGS):
        tag.decompose()
    for tag in root.find_all(_CHROME_TAGS):
        if not tag.decomposed and tag.find(_HEADINGS) is None:
            tag.decompose()
    for tag in root.find_all("a"):
        if not tag.decomposed and _ANCHOR_CLASSES.intersection(_classes(tag)):
            tag.decompose()
    # Sphinx/Pygments line-number columns would be glued into the code.
    for tag in root.find_all(class_=("linenos", "linenodiv", "lineno")):
        if not tag.decomposed:
            tag.decompose()


def _collapse_blank_lines(text: str) -> str:
    """Squeeze runs of blank lines to one, except inside fenced code blocks."""
    out: list[str] = []
    fence: Fence | None = None
    for line in text.split("\n"):
        if fence is None:
            fence = fence_open(line, any_indent=True)
            if fence is None and not line.strip() and out and not out[-1].strip():
                continue
        elif closes(line, fence, any_indent=True):
            fence = None
        out.append(line.rstrip() if fence is None else line)
    return "\n".join(out)


def html_to_markdown(html: str | bytes, *, encoding: str | None = None) -> HtmlPage:
    """Convert an HTML page to Markdown, keeping only its main content.

    Args:
        html: The page, as text or raw bytes.
        encoding: The charset declared by the server, used when ``html`` is bytes
            (otherwise the page's ``<meta charset>`` or detection decides).

    Returns:
        The Markdown and the page title.
    """
    from bs4 import BeautifulSoup
    from markdownify import ATX, MarkdownConverter

    if isinstance(html, bytes):
        soup = BeautifulSoup(html, "html.parser", from_encoding=encoding)
    else:
        soup = BeautifulSoup(html, "html.parser")
    title: str | None = None
    if soup.title is not None:
        title = " ".join(soup.title.get_text().split()) or None
    root = _main_element(soup)
    _strip_chrome(root)
    converter = MarkdownConverter(
        heading_style=ATX,
        bullets="-",
        code_language_callback=_language_of,
        escape_underscores=False,
        escape_asterisks=False,
        table_infer_header=True,
    )
    markdown = converter.convert_soup(root)
    markdown = _collapse_blank_lines(markdown).strip()
    return HtmlPage(markdown=markdown + "\n" if markdown else "", title=title)
