"""Turn a stored document's text into sections, code blocks and links."""

from __future__ import annotations

from docmentor.models import ParsedDocument, RawDocument

__all__ = ["parse_document"]


def parse_document(doc: RawDocument, *, mdx: bool | None = None) -> ParsedDocument:
    """Parse a raw document by its format. Never raises on odd input."""
    # imported here: markdown-it costs ~28 ms, and readers (search, assemble) never parse
    from docmentor.parse.markdown import parse_markdown
    from docmentor.parse.rst import parse_rst

    fallback = doc.title_hint or doc.path.rstrip("/").rsplit("/", 1)[-1] or doc.url
    if doc.fmt == "rst":
        return parse_rst(doc.content, line_map=doc.line_map, fallback_title=fallback)
    if mdx is None:
        mdx = doc.path.lower().endswith(".mdx")
    return parse_markdown(doc.content, line_map=doc.line_map, fallback_title=fallback, mdx=mdx)
