"""What a library is for: its description, from its package's docstring, its docs' landing
page, or its distribution's summary (README.LLM and the overview open with it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docmentor.library.knowledge.doc_text import without_substitutions

if TYPE_CHECKING:
    from docmentor.engine import Docmentor
    from docmentor.library.knowledge.kb_schema import DocSection
    from docmentor.library.models import ApiEntry

__all__ = ["doc_sections", "purpose_of"]


def doc_sections(engine: Docmentor, source: str) -> list[DocSection]:
    from docmentor.library.knowledge.kb_schema import DocSection
    from docmentor.store.docs import sections_of_source

    return [
        DocSection(r.path, r.title, r.heading, r.level, r.anchor, r.text)
        for r in sections_of_source(engine.store, source)
    ]


def purpose_of(
    package: str, entries: Sequence[ApiEntry], sections: Sequence[DocSection], summary: str = ""
) -> str:
    """What the library is for: the first prose paragraph of its package's docstring (not
    a title such as "Requests HTTP Library ~~~~"), of three words or more; else the opening
    of the docs' landing page when it reads as prose (a sentence of six words or more; not a
    toctree, nor "Release 26.1.0 (What's new?)") — what comes before its first heading and
    under a top-level one, not a later section ("## Installation", "… hosted on PyPI") — an
    ``index`` page at the docs' root or in its ``docs``/``src`` folders, or a ``README`` at
    the root, shallowest first (a folder's index page is about that part: the exercises;
    ``docs/README.md`` tells how to build the docs); else the distribution's one-line
    summary. reST substitutions (``|pypi|``) are left out, and so is a short sentence that
    is nothing without one ("Current version is |release|.")."""
    from docmentor.library.knowledge.doc_text import first_sentences
    from docmentor.library.knowledge.kb_schema import INDEX_PAGES
    from docmentor.library.surface.docstrings import prose_paragraphs

    module = next((e for e in entries if e.kind == "module" and e.api_id == package), None)
    if module is not None and module.docstring.strip():
        paragraphs = prose_paragraphs(_without_title(module.docstring), skip_summary=False)
        text = paragraphs[0] if paragraphs else ""
        if len(text.split()) >= 3:  # the package says it in its own words, however briefly
            return text
    pages: dict[str, list[DocSection]] = {}
    for s in sections:
        folders, _, name = s.path.rpartition("/")
        name = name.lower()
        in_docs = all(f.lower() in _DOCS_FOLDERS for f in folders.split("/") if f)
        if name in INDEX_PAGES and in_docs and (not folders or name.startswith("index")):
            pages.setdefault(s.path, []).append(s)
    order = sorted(
        pages, key=lambda p: (p.count("/"), not p.rsplit("/", 1)[-1].lower().startswith("index"), p)
    )
    for path in order:
        for s in pages[path]:  # in the page's order: the preamble, then its top-level title
            if s.level > 1:
                break
            text = _prose_from(
                without_substitutions(first_sentences(s.text, limit=400, rest=path.endswith(".rst")))
            )
            if text:
                return text
            if s.level == 1:
                break
    return summary


_DOCS_FOLDERS = frozenset({"docs", "doc", "documentation", "src", "source", "en"})
_ADORNED_TITLE = re.compile(r"^\s*(\S[^\n]*)\n\s*([=\-~^\"'`#*+.:_])\2{2,}\s*(?:\n|$)")


def _without_title(docstring: str) -> str:
    """A docstring without the reST title it opens with ("Foo\n---\nFoo parses things.")."""
    m = _ADORNED_TITLE.match(docstring.strip("\n"))
    return docstring.strip("\n")[m.end() :] if m else docstring


_SENTENCE_END = re.compile(r"[.!?][)\]\"'*_]*(?=\s|$)")  # "(What's new?)" ends one too
_WORD = re.compile(r"[^\W\d_][\w'’-]*")  # a word, not a number: "Release 26.1 (What's new?)" has 3


def _prose_from(text: str) -> str:
    """The text when it has a sentence of six words or more ended by a full stop (or ! ?),
    without a tagline or release line before it ("*Simple. Powerful. Fast. Pick three.*",
    "Release 26.1 (What's new?)"); "" when it has no such sentence."""
    while True:
        m = _TAGLINE.match(text) or _RELEASE_LINE.match(text)
        if m is None:
            break
        text = text[m.end() :]
    start = 0
    for end in _SENTENCE_END.finditer(text):
        if len(_WORD.findall(text[start : end.start()])) >= 6:
            return text.strip()
        start = end.end()
    return ""


# a whole emphasised sentence or more before the prose (not a bold name: "**Requests** is …")
_TAGLINE = re.compile(r"\s*(?:\*{1,2}[^*\n]*[.!?]\*{1,2}|_[^_\n]*[.!?]_)(?=\s|$)")
# "Release 26.1 (What's new?)": a release banner, with its link (a sentence that starts
# "Version 2 of …" has none)
_RELEASE_LINE = re.compile(r"\s*(?:Release|Version)\b(?:[^!?().\n]|\.(?=\S)){0,24}\([^()\n]*\)(?=\s)")
