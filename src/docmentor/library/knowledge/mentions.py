"""Which APIs a documentation section is about: its examples, its code spans, its headings.

``find_api`` ranks documentation sections for the task with the engine's search and credits
the APIs each found section names. A section names an API

- in a mkdocstrings directive (``::: httpx.Client``), a Sphinx autodoc or Python-domain
  directive (``.. autoclass:: httpx.Client``, ``.. py:method:: Client.send(request)``, the
  default domain's ``.. data:: request``) or its own heading (``## `Client```): weight
  ``documents_weight`` (1.0) — the section documents that API (:meth:`MentionResolver.documented`);
  so does a section whose own heading *is* the name of a method (two words or more, word for
  word: "Context Processors") that it uses (:meth:`MentionResolver.titled`);
- in a code example that the matcher linked to the API (imports, aliases, return types):
  weight ``uses_weight`` (0.6);
- in an inline code span of its prose (```response.iter_lines()```, ```.aclose()```,
  ```DigestAuth```) or a Sphinx cross-reference (``:meth:`~httpx.Response.iter_lines```,
  ``:class:`the client <httpx.Client>```): ``uses_weight``, shared when the name is ambiguous.

A code span is resolved against the library's names: a full path or alias
(``httpx.Client.send``), ``Class.member`` (``Response.json``), a receiver named after a
class (``response.json()`` → ``Response.json``), a leading-dot member (``.aclose()``) of a
class named in the heading path, or a short name that is distinctive (a capital, ``_``)
or unique in the library. Ambiguous names (more than ``max_candidates``, three) credit nothing.
The weights are fields of :class:`~docmentor.library.find.config.ApiRankingConfig`.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Protocol

from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.knowledge.importance import prose_text
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.docstrings import PROSE_ROLES, role_name

__all__ = ["MentionResolver", "SectionRef", "directive_names"]

CACHE_SIZE = 20_000  # sections whose APIs are remembered
MAX_TITLE_WORDS = 6  # a longer heading is a sentence, no method's name

# with the role before it, if any: Sphinx's ``:meth:`x` `` or MyST's ``{meth}`x` ``
# (the lookbehind keeps it linear on long runs of colons)
_INLINE = re.compile(r"((?<![\w.:+-]):[\w.:+-]+:|\{[\w.:+-]+\})?`([^`\n]+)`")
_DIRECTIVE = re.compile(
    r"^[ \t]*(?:(?:\#{1,6}[ \t]+)?:::|(?:\.\.\s+|(?:```+|~~~+|:::+)\{)"  # mkdocstrings (a heading too), reST, MyST
    r"(?:auto|py:)?(?:class|function|method|classmethod|staticmethod|attribute|property"
    r"|exception|data|decorator)(?:::|\}))"
    r"\s*([A-Za-z_][\w.]*)",
    re.M,
)


def directive_names(text: str) -> list[str]:
    """The APIs that mkdocstrings and Sphinx directives in ``text`` name (``::: httpx.Client``,
    ``.. autoclass:: httpx.Client``, ``.. data:: request``), as written."""
    return _DIRECTIVE.findall(text)


_TARGET = re.compile(r"<([^<>]+)>\s*$")  # a Sphinx reference with a title: `the client <httpx.Client>`
_LEADING = re.compile(r"^(?:async\s+def|def|class|await|from|import)\s+")
_DOTTED = re.compile(r"\.?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


_OPTION = re.compile(r"^([ \t]*):([\w-]+):[ \t]*(.*)$")  # a directive's option line


def _member_option(lines: Sequence[str], start: int, indent: int) -> list[str]:
    """The names of the ``:members:`` option among the option lines of the directive whose
    head line (indented ``indent``) is just before ``start``, continuation lines included
    (``:members: a, b,`` then ``    c``); none when it lists no names (all members)."""
    names: list[str] = []
    inside = False
    option_indent = 0
    for line in lines[start:]:
        stripped = line.strip()
        if not stripped:
            break
        current = len(line) - len(line.lstrip())
        m = _OPTION.match(line)
        if m is not None and (current > indent or line.startswith(":")):
            inside = m.group(2) == "members"
            option_indent = current
            if inside:
                names += re.findall(r"[A-Za-z_]\w*", m.group(3))
        elif inside and current > option_indent:
            names += re.findall(r"[A-Za-z_]\w*", stripped)
        else:
            break
    return names


class SectionRef(Protocol):
    """What the resolver needs of a found section (an engine :class:`SearchHit` fits)."""

    source: str
    path: str
    heading_path: list[str]
    line_start: int
    line_end: int
    text: str


_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def heading_words(name: str) -> tuple[str, ...]:
    """The words of an API's name, lower case: ``iter_lines`` → ("iter", "lines"),
    ``AsyncClient`` → ("async", "client")."""
    return tuple(w.lower() for w in _NAME_WORD.findall(name)) or (name.lower(),)


def heading_forms(text: str) -> tuple[frozenset[str], ...]:
    """A heading's words, each as the singulars it may be (:func:`word_forms`)."""
    return tuple(word_forms(w.lower()) for w in _NAME_WORD.findall(text))


def word_forms(word: str) -> frozenset[str]:
    """The word, and the singulars it may be the plural of: "clients" → client, "responses"
    → response, "caches" → cache, "classes" → class, "queries" → query, "aliases" →
    alias; "notes" is no plural of "not", nor "uses" of "us"."""
    out = {word}
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        out.add(word[:-1])
        if word.endswith("ies"):
            out.add(word[:-3] + "y")
        elif len(word) > 4 and word[:-2].endswith(("ss", "sh", "ch", "x", "z", "as", "us", "is")):
            out.add(word[:-2])
    return frozenset(out)


def spells(found: tuple[frozenset[str], ...], at: int, words: tuple[str, ...]) -> bool:
    """Whether the heading's words from ``at`` on are ``words``."""
    return at + len(words) <= len(found) and all(w in found[at + t] for t, w in enumerate(words))


class MentionResolver:
    """Resolves names written in documentation to the ``api_id`` of one or more libraries."""

    def __init__(
        self,
        entries: Iterable[ApiEntry],
        examples: Iterable[Example] = (),
        *,
        config: ApiRankingConfig = DEFAULT,
    ) -> None:
        """``config``: its credits and how ambiguous a name may be (``documents_weight``,
        ``uses_weight``, ``max_candidates``)."""
        self.config = config
        self._full: dict[str, str] = {}
        self._qualified: dict[str, set[str]] = defaultdict(set)
        self._short: dict[str, set[str]] = defaultdict(set)
        self._classes: dict[str, set[str]] = defaultdict(set)  # lower-case class name → ids
        self._members: dict[str, dict[str, str]] = defaultdict(dict)  # class id → name → id
        self._kind: dict[str, str] = {}
        self._roots: set[str] = set()  # the libraries' root packages
        for e in entries:
            if e.kind == "module":
                continue
            self._kind[e.api_id] = e.kind
            self._roots.add(e.api_id.split(".", 1)[0])
            for path in (e.api_id, *e.aliases):
                self._full.setdefault(path, e.api_id)
                parts = path.split(".")
                if len(parts) >= 2:
                    self._qualified[".".join(parts[-2:])].add(e.api_id)
            self._short[e.name].add(e.api_id)
            if e.kind == "class":
                self._classes[e.name.lower()].add(e.api_id)
            if e.parent:
                self._members[e.parent][e.name] = e.api_id
        # the words of class and function names of two words or more, by their first:
        # a heading that spells one ("ASGI Transport", "Bytecode Cache") is about it
        self._spelled: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)
        # and methods' names of two words or more, by all their words (:meth:`titled`)
        self._titles: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for e in entries:
            words = heading_words(e.name)
            if len(words) < 2:  # one word ("Requests", "Timeouts") is too common a heading
                continue
            if e.kind in ("class", "function") and not e.parent:
                self._spelled[words[0]].append((words, e.api_id))
            elif e.kind == "method" and not e.name.startswith("_"):
                self._titles[words].add(e.api_id)
        self._cache: dict[tuple[str, str, int, int, int], dict[str, float]] = {}
        self._examples: dict[tuple[str, str], list[Example]] = defaultdict(list)
        for ex in examples:
            self._examples[(ex.source, ex.path)].append(ex)

    # -- names ----------------------------------------------------------------------------
    def full(self, name: str) -> str | None:
        """The api_id a full path or public alias denotes, exactly; else None."""
        return self._full.get(name)

    def is_class(self, name: str) -> bool:
        """Whether a short name is one of the library's classes' (any case)."""
        return name.lower() in self._classes

    def member(self, cls: str, name: str) -> str | None:
        """The api_id of class ``cls``'s member ``name`` (as listed under it), or None."""
        return self._members.get(cls, {}).get(name)

    def named(self, name: str) -> set[str]:
        """Every API whose short name is ``name`` (``get``: the function and each method)."""
        return set(self._short.get(name, ()))

    def resolve(self, name: str, context: Iterable[str] = ()) -> set[str]:
        """The APIs ``name`` may denote (empty when unknown or too ambiguous).

        ``context``: class ids in scope (from the heading path) for ``.member`` names.
        """
        relative = name.startswith(".")
        name = name.strip(".")
        if not name:
            return set()
        if name in self._full:
            return {self._full[name]}
        parts = name.split(".")
        last = parts[-1]
        if len(parts) >= 2:
            found = self._qualified.get(".".join(parts[-2:]), set())
            if 0 < len(found) <= self.config.max_candidates:
                return set(found)
            # a receiver named after a class: response.json() → Response.json
            owners = self._classes.get(parts[-2].lower(), set())
            members = {self._members[c][last] for c in owners if last in self._members[c]}
            if members:
                return members
        for cls in context:
            member = self._members.get(cls, {}).get(last)
            if member is not None:
                return {member}
        candidates = self._short.get(last, set())
        distinctive = any(c.isupper() or c.isdigit() or c == "_" for c in last.lstrip("_"))
        if len(parts) == 1 and not relative and not distinctive:
            return set(candidates) if len(candidates) == 1 else set()  # a plain word: unique only
        return set(candidates) if 0 < len(candidates) <= self.config.max_candidates else set()

    def _spans(self, text: str) -> list[str]:
        out: list[str] = []
        for m in _INLINE.finditer(text):
            span = m.group(2).strip()
            if m.group(1):  # a role: `title <target>`, ~ and ! only change the title
                if role_name(m.group(1)) in PROSE_ROLES:
                    continue  # {ref}`choice-opts`, :doc:`/testing`: a page or a label, not code
                target = _TARGET.search(span)
                span = (target.group(1) if target else span).strip().lstrip("~!")
            span = _LEADING.sub("", span)
            d = _DOTTED.match(span)
            if d is not None:
                out.append(d.group(0))
        return out

    # -- sections -------------------------------------------------------------------------
    def section_apis(self, section: SectionRef) -> dict[str, float]:
        """``api_id`` → weight in (0, 1] for the APIs a section names (see the module doc)."""
        key = (section.source, section.path, section.line_start, section.line_end, len(section.text))
        cached = self._cache.get(key)
        if cached is None:
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            cached = self._cache[key] = self._section_apis(section)
        return cached

    def _section_apis(self, section: SectionRef) -> dict[str, float]:
        credit: dict[str, float] = {}

        def give(ids: set[str], weight: float) -> None:
            for api in ids:
                if weight > credit.get(api, 0.0):
                    credit[api] = weight

        documents, uses = self.config.documents_weight, self.config.uses_weight
        headings = list(section.heading_path)
        context = self._context(headings)
        give(self.documented(headings, section.text, context), documents)
        # the members a class's directive documents (nested directives, ``:members:``): one
        # section documents them all, so each is credited as a use
        give(self.directive_apis(section.text, context)[1], uses)
        # a heading of the section's path that spells an API's name (a section "Example"
        # under "ASGI Transport" is about `ASGITransport`): as a directive would
        for heading in headings:
            give(self.spelled_by(heading), documents)
        for name in self._spans(prose_text(section.text)):
            found = self._target(name, context)
            if found:
                give(found, uses / len(found))
        for ex in self._examples.get((section.source, section.path), ()):
            if section.line_start <= ex.line <= section.line_end:
                give(set(ex.apis_used), uses)
        # a method the section uses whose name is its own heading: the section is about it
        if headings:
            give(self.titled(headings[-1]) & credit.keys(), documents)
        return credit

    def titled(self, heading: str) -> set[str]:
        """The methods whose name of two words or more is the whole heading, word for word, a
        plural for the last ("Context Processors" → ``context_processor``); a heading that
        only contains one ("Search with distance range") is about more than that method."""
        found = heading_forms(heading)
        if not 2 <= len(found) <= MAX_TITLE_WORDS:
            return set()
        out: set[str] = set()
        for words in itertools.product(*found):
            out |= self._titles.get(words, set())
        return out

    def spelled_by(self, heading: str) -> set[str]:
        """The classes and functions whose name's words (two or more) the heading spells, in
        order, a plural for the last ("ASGI Transport" → ``ASGITransport``; "Async clients"
        → ``AsyncClient``)."""
        found = heading_forms(heading)
        spans: list[tuple[int, int, str]] = []
        for j, forms in enumerate(found):
            for first in forms:
                for words, api_id in self._spelled.get(first, ()):
                    if spells(found, j, words):
                        spans.append((j, j + len(words), api_id))
        # not a name inside a longer one there ("Async HTTP Transport": `AsyncHTTPTransport`,
        # not `HTTPTransport` too)
        return {
            api_id
            for a, b, api_id in spans
            if not any(c <= a and b <= d and d - c > b - a for c, d, _ in spans)
        }

    def _context(self, headings: Sequence[str]) -> set[str]:
        """The classes the headings name: a ``.member`` below them is theirs."""
        context: set[str] = set()
        for heading in headings:
            for name in [*self._spans(heading), *_DOTTED.findall(heading)]:
                context.update(a for a in self.resolve(name) if self._kind.get(a) == "class")
        return context

    def documented(self, headings: Sequence[str], text: str, context: set[str] | None = None) -> set[str]:
        """The APIs a section documents: named in code in its own (last) heading, or by a
        mkdocstrings / Sphinx directive in its text."""
        scope = self._context(headings) if context is None else context
        out: set[str] = set()
        if headings:
            for name in self._spans(headings[-1]):
                out |= self.resolve(name, scope)
        out |= self.directive_apis(text, scope)[0]
        return out

    def directive_apis(self, text: str, scope: Iterable[str] = ()) -> tuple[set[str], set[str]]:
        """The APIs the directives in ``text`` name (resolved as written, in ``scope``), and
        the class members that only their class's directive resolves: a directive indented
        under a class's (``.. autoclass:: Template`` then ``    .. automethod:: generate``)
        and the names of that directive's ``:members:`` option. Sphinx documents them there,
        so that ``generate`` is ``Template.generate`` however many ``generate`` the library has."""
        named: set[str] = set()
        members: set[str] = set()
        classes: list[tuple[int, str]] = []  # the enclosing class directives: (indent, class id)
        lines = text.splitlines()
        for k, line in enumerate(lines):
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            while classes and classes[-1][0] >= indent:  # the class's block has ended
                classes.pop()
            m = _DIRECTIVE.match(line)
            if m is None:
                continue
            name = m.group(1)
            inner = self.member(classes[-1][1], name) if classes else None
            found = {inner} if inner is not None else self._target(name, scope)
            named |= found
            if len(found) == 1 and self._kind.get(next(iter(found))) == "class":
                cls = next(iter(found))
                classes.append((indent, cls))
                for name in _member_option(lines, k + 1, indent):
                    member = self.member(cls, name)
                    if member is not None:
                        members.add(member)
        return named, members - named

    def _target(self, name: str, scope: Iterable[str]) -> set[str]:
        """What a name a section writes denotes: as :meth:`resolve`, but a short name several
        APIs share is the one the library's root package exports under it, when one is
        (Sphinx resolves a directive's or a role's name in the current module, the package's
        by default: ``.. autoclass:: Template`` and ``:class:`Template``` are
        ``pkg.Template``, not ``pkg.nodes.Template``)."""
        found = self.resolve(name, scope)
        if len(found) > 1:
            top = {self._full[f"{root}.{name}"] for root in self._roots if f"{root}.{name}" in self._full}
            if len(top) == 1 and top <= found:
                return top
        return found

    def rank(self, sections: Sequence[SectionRef], scores: Sequence[float]) -> dict[str, float]:
        """API → best ``section score × weight`` over the found sections (scores in [0, 1])."""
        out: dict[str, float] = {}
        for section, score in zip(sections, scores, strict=True):
            for api, weight in self.section_apis(section).items():
                value = score * weight
                if value > out.get(api, 0.0):
                    out[api] = value
        return out
