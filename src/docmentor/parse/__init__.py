"""Turn a stored document's text into sections, code blocks and links."""

from __future__ import annotations

from docmentor.models import ParsedDocument, RawDocument

__all__ = ["parse_document", "title_from_path"]

_PAGE_EXTENSIONS = (".md", ".mdx", ".markdown", ".rst", ".txt")


def title_from_path(path: str) -> str:
    """The title of a page with no title of its own, as MkDocs derives it from the file name:
    `testclient.md` → "Testclient", `getting-started.md` → "Getting started", an `index.md` or
    `README.md` its folder's name (`guide/index.md` → "Guide"). A name that is not a page's
    (`llms.txt` URL paths, no extension) stays as it is."""
    parts = [p for p in path.rstrip("/").split("/") if p]
    if not parts:
        return ""
    name = parts[-1]
    lowered = name.lower()
    ext = next((e for e in _PAGE_EXTENSIONS if lowered.endswith(e)), None)
    if ext is None:
        return name
    stem = name[: -len(ext)]
    if stem.lower() in ("index", "readme") and len(parts) > 1:
        stem = parts[-2]
    words = " ".join(stem.replace("_", " ").replace("-", " ").split())
    return (words[:1].upper() + words[1:]) if words else name


def parse_document(doc: RawDocument, *, mdx: bool | None = None) -> ParsedDocument:
    """Parse a raw document by its format. Never raises on odd input."""
    # imported here: markdown-it costs ~28 ms, and readers (search, assemble) never parse
    from docmentor.parse.markdown import parse_markdown
    from docmentor.parse.rst import parse_rst

    fallback = doc.title_hint or title_from_path(doc.path) or doc.url
    if doc.fmt == "rst":
        return parse_rst(doc.content, line_map=doc.line_map, fallback_title=fallback)
    if mdx is None:
        mdx = doc.path.lower().endswith(".mdx")
    return parse_markdown(doc.content, line_map=doc.line_map, fallback_title=fallback, mdx=mdx)
