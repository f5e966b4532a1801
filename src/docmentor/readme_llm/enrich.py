"""The catalog fields the plan's schema asks for besides the API itself.

``related_apis``
    "Other APIs often used together": the APIs that share the most examples with this one
    (ties: the more important), at most five.
``tags``
    The use-case tags of its examples (from their headings and page titles), most common
    first, at most five; an API without examples gets none (a guess would mislead).
``search_keywords``
    The words of its name (``iter_lines`` → ``iter``, ``lines``) and the content words of
    its docstring summary, in order, at most ten.

All three are deterministic and computed from what generation already knows.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from docmentor.readme_llm.models import ApiEntry, Example

if TYPE_CHECKING:
    from docmentor.readme_llm.mentions import MentionResolver

__all__ = ["describe_from_docs", "docs_summary", "enrich_entries"]

MAX_RELATED = 5
MAX_TAGS = 5
MAX_KEYWORDS = 10
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "for",
        "from",
        "has",
        "have",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "then",
        "this",
        "to",
        "was",
        "were",
        "when",
        "which",
        "will",
        "with",
        "without",
        "you",
        "your",
        "return",
        "returns",
        "given",
        "new",
        "object",
        "instance",
        "value",
        "values",
        "default",
        "optional",
        "none",
        "true",
        "false",
        "use",
        "used",
        "using",
    ]
)


def _words(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text):
        w = w.lower()
        if len(w) >= 3 and w not in _STOP and w not in out:
            out.append(w)
    return out


def enrich_entries(entries: Sequence[ApiEntry], examples: Sequence[Example]) -> None:
    """Fill ``related_apis``, ``tags`` and ``search_keywords`` of every entry, in place."""
    by_id = {e.api_id: e for e in entries}
    together: dict[str, Counter[str]] = {}
    tags: dict[str, Counter[str]] = {}
    for ex in examples:
        used = [a for a in dict.fromkeys(ex.apis_used) if a in by_id]
        for a in used:
            together.setdefault(a, Counter()).update(b for b in used if b != a)
            tags.setdefault(a, Counter()).update(ex.tags)
    for e in entries:
        pals = together.get(e.api_id, Counter())
        e.related_apis = sorted(pals, key=lambda b: (-pals[b], -by_id[b].importance_score, b))[:MAX_RELATED]
        counts = tags.get(e.api_id, Counter())
        e.tags = sorted(counts, key=lambda t: (-counts[t], t))[:MAX_TAGS]
        e.search_keywords = _words(f"{e.name} {e.description}")[:MAX_KEYWORDS]


class _Section(Protocol):
    @property
    def heading(self) -> str: ...

    @property
    def text(self) -> str: ...


def describe_from_docs(
    entries: Sequence[ApiEntry], sections: Sequence[_Section], resolver: MentionResolver, *, package: str = ""
) -> int:
    """Give an API without a description (no docstring: httpx's ``Response``, Flask's
    ``request``) the first paragraph of prose of the docs that document it
    (:func:`docs_summary`): the body of a directive naming it (``.. data:: request``; a
    short name is also read under ``package``), or a section whose own heading names it and
    only it (``## `Response```). Docs order: the first such place wins. Returns how many
    got one."""
    wanting = {e.api_id: e for e in entries if not e.description.strip() and e.kind != "module"}
    spelled = _Spelled(_spelled_classes(entries))
    filled = 0
    for section in sections:
        if not wanting:
            break
        headings = [section.heading] if section.heading else []
        for name, body in _directive_bodies(section.text):
            # a name as the page's ``.. currentmodule::`` has it (``request`` is flask.request)
            found = resolver.resolve(name)
            if len(found) != 1 and package:
                found = resolver.resolve(f"{package}.{name}") or found
            for api in found & wanting.keys():
                text = docs_summary(body)
                if text:
                    wanting.pop(api).description = text
                    filled += 1
        named = resolver.documented(headings, "") & wanting.keys()
        if len(named) != 1 and section.heading:  # "Digest authentication" is DigestAuth
            named = {api for api in spelled.find(_heading_key(section.heading)) if api in wanting}
        if len(named) == 1:
            text = docs_summary(section.text)
            if text:
                wanting.pop(named.pop()).description = text
                filled += 1
    return filled


_NAME_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|\d+")


def _words_of(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _NAME_WORDS.findall(name))


def _heading_key(heading: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in re.findall(r"[A-Za-z]+|\d+", heading))


def _spelled_classes(entries: Sequence[ApiEntry]) -> dict[tuple[str, ...], set[str]]:
    """Heading words → the classes whose name they spell, word for word, each word of the
    name the start of the heading's ("Digest authentication": ``DigestAuth``; "Mock
    transports": ``MockTransport``). Keyed by the name's words; :func:`_spelled` matches."""
    out: dict[tuple[str, ...], set[str]] = {}
    for e in entries:
        if e.kind == "class" and not e.description.strip():
            words = _words_of(e.name)
            if len(words) >= 2:
                out.setdefault(words, set()).add(e.api_id)
    return out


_LIST_OR_TABLE = re.compile(r"^\s*(?:[*+-]\s|\d+[.)]\s|\|)")
_EMPHASIS = re.compile(r"^([*_]{1,2})(\S(?:.*\S)?)\1$", re.S)


def docs_summary(text: str) -> str:
    """The first paragraph of prose in a piece of the docs, as one line: not a heading, a
    list (an API page's list of members is no description), a table, a directive, an
    admonition or code; whole-paragraph emphasis unwrapped (``*An HTTP response.*``); at
    most ~400 characters; "" when there is none of three words or more."""
    from docmentor.readme_llm.docstrings import MARKUP, PARAGRAPHS, is_code, summary

    for para in PARAGRAPHS.split(text.strip()):
        stripped = para.strip()
        first = stripped.split("\n", 1)[0]
        if (
            not stripped
            or first.startswith(("#", "```", "~~~", ":::"))
            or MARKUP.match(stripped)
            or _LIST_OR_TABLE.match(first)
            or para[:1] in (" ", "\t")  # a directive's body or a literal block
            or is_code(para)
        ):
            continue
        line = " ".join(stripped.split())
        emphasis = _EMPHASIS.match(line)
        if emphasis is not None:
            line = emphasis.group(2)
        if len(line.split()) >= 3:
            return summary(line)
    return ""


def _directive_bodies(text: str) -> list[tuple[str, str]]:
    """(the name, its indented body, dedented) of each API directive in a section's text."""
    from docmentor.readme_llm.mentions import directive_names

    lines = text.split("\n")
    out: list[tuple[str, str]] = []
    for k, line in enumerate(lines):
        names = directive_names(line) if line.lstrip().startswith("..") else []  # reST: a body of prose
        if not names:
            continue
        indent = len(line) - len(line.lstrip())
        body: list[str] = []
        for nxt in lines[k + 1 :]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                break
            body.append(nxt)
        if any(b.strip() for b in body):
            out.append((names[0], textwrap.dedent("\n".join(body))))
    return out


class _Spelled:
    """Finds the classes a heading spells (see :func:`_spelled_classes`)."""

    def __init__(self, by_words: dict[tuple[str, ...], set[str]]) -> None:
        self._by_first: dict[str, list[tuple[tuple[str, ...], set[str]]]] = {}
        for words, ids in by_words.items():
            self._by_first.setdefault(words[0], []).append((words, ids))

    def find(self, heading: tuple[str, ...]) -> set[str]:
        out: set[str] = set()
        if not heading:
            return out
        first = heading[0]
        for k in range(1, len(first) + 1):  # each start of the heading's first word
            for words, ids in self._by_first.get(first[:k], ()):
                if len(words) == len(heading) and all(
                    h.startswith(w) for w, h in zip(words, heading, strict=True)
                ):
                    out |= ids
        return out
