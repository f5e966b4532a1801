"""The text of an API that find_api indexes and embeds: its name words, its docstring's
passages, and what its vector is computed from (:mod:`docmentor.library.find.retrieval`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.docstrings import MARKUP, plain
from docmentor.search.analyzer import analyze

_PASSAGE_SPLIT = re.compile(r"\n\s*\n|\n\s*[*-]\s+")
_BULLET = re.compile(r"^[*-]\s+")
_WORDS = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])")
_NAMED_ITEM = re.compile(r"^[*`]*(\w+)[*`]*\s*[-–—:]")  # "**auth** - …", "`auth`: …"
_LONE_LINK = re.compile(r"^\[[^\]]*\]\([^)]*\)\s*$")  # like markup, not a passage


def api_doc(entry: ApiEntry) -> str:
    """What find_api reads as an API's documentation: its docstring (else its description),
    the prose the docs' directives write about it (``docs_text``) and, for an exception,
    where the code raises it (``raised``); a description the docs' prose holds already (an
    API without a docstring is described from it) is read once."""
    own = entry.docstring or ("" if entry.description in entry.docs_text else entry.description)
    # the raise lines with their leads ("Raised by …"): without them PyJWT −0.05, urllib3
    # −0.025, httpx −0.003 MRR (BENCHMARKS.md, "Tried and not kept (find_api)")
    return f"{own}\n\n{entry.docs_text}\n\n{entry.raised}".strip()


def passage_texts(entry: ApiEntry, config: ApiRankingConfig = DEFAULT) -> list[str]:
    """Docstring passages embedded besides the API's description: paragraphs and bullet
    items of ``passage_min_chars`` (25) or more (the first ``passage_paragraphs``, six),
    then parameter descriptions, ``max_passages`` in all; each prefixed with the API's
    public path, cut at ``passage_chars``. A task often matches one passage ("a custom HTTP
    verb" ~ "method: HTTP method for the new Request") better than the whole API."""
    if entry.kind == "module":
        return []
    public = entry.aliases[0] if entry.aliases else entry.api_id
    pieces = (_BULLET.sub("", c.strip()) for c in _PASSAGE_SPLIT.split(entry.docstring or ""))
    least = config.passage_min_chars
    chunks = [c for c in pieces if len(c) >= least and not MARKUP.match(c) and not _LONE_LINK.match(c)]
    chunks = chunks[: config.passage_paragraphs]
    # then the docs' words on it (a paragraph a line), within the same count of paragraphs
    said = f"{entry.docs_text}\n{entry.raised}"
    told = [c for c in said.split("\n") if len(c) >= least and not MARKUP.match(c)]
    chunks += told[: max(config.passage_paragraphs - len(chunks), 0)]
    # a parameter with a chunk of its own already (a Markdown list item "**auth** - …") once
    own = {m.group(1) for c in chunks if (m := _NAMED_ITEM.match(c))}
    chunks += [
        f"{p.name}: {p.description}" for p in entry.parameters if p.description.strip() and p.name not in own
    ]
    cut = config.passage_chars
    return [f"{public}: {' '.join(plain(c).split())}"[:cut] for c in chunks[: config.max_passages]]


def api_name_terms(e: ApiEntry) -> list[str]:
    names = [e.name, e.api_id, *e.aliases]
    words = " ".join(" ".join(_WORDS.findall(n)) for n in names)
    return analyze(" ".join(names) + " " + words)


def name_words(name: str) -> str:
    """``iter_lines`` → ``iter lines``; ``HTTPTransport`` → ``http transport``."""
    return " ".join(_WORDS.findall(name)).lower()


def embedding_text(
    entry: ApiEntry, examples: Mapping[str, Example], config: ApiRankingConfig = DEFAULT
) -> str:
    """What an API's vector is computed from: public path, name words, kind, summary, and
    the headings and opening prose of the docs' examples that use it (how much of each:
    ``config``'s ``embedded_*`` fields)."""
    public = entry.aliases[0] if entry.aliases else entry.api_id
    headings: list[str] = []
    for x in entry.examples[: config.embedded_examples]:
        ex = examples.get(x)
        if ex is None:
            continue
        heading = (ex.heading_path or [ex.title])[-1]
        if heading and heading not in headings:
            headings.append(heading)
    first = next((examples[x] for x in entry.examples[:1] if x in examples), None)
    context = first.context[: config.embedded_context_chars] if first is not None else ""
    text = f"{public} ({name_words(entry.name)}) {entry.kind}. {plain(entry.description)} "
    shown = "; ".join(headings[: config.embedded_headings])
    return (text + shown + " " + context).strip()[: config.embedded_chars]
