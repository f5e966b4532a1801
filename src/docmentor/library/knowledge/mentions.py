"""Which APIs a documentation section is about: its examples, its code spans, its headings.

``find_api`` ranks documentation sections for the task with the engine's search and credits
the APIs each found section names. A section names an API

- in a mkdocstrings directive (``::: httpx.Client``), a Sphinx autodoc or Python-domain
  directive (``.. autoclass:: httpx.Client``, ``.. py:method:: Client.send(request)``, the
  default domain's ``.. data:: request``) or its own heading (``## `Client```): weight
  ``documents_weight`` (1.0) — the section documents that API (:meth:`MentionResolver.documented`);
  so does a section whose own heading *is* the name of a method (two words or more, word for
  word: "Context Processors") that it uses (:meth:`MentionResolver.titled`). A directive's
  short name is read in the page's current module, as Sphinx reads it (``parse_pattern``
  under ``.. module:: pkg.dates``: that one, not ``pkg.numbers.parse_pattern``); a class's
  directive with ``:members:`` documents those it names, or bare, the members autodoc shows
  (:meth:`MentionResolver.autodoc_members`), credited as uses;
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
from docmentor.library.surface.hierarchy import ClassTree
from docmentor.sources.autodoc import more_signatures

__all__ = ["MentionResolver", "SectionRef", "directive_names"]

CACHE_SIZE = 20_000  # sections whose APIs are remembered
MAX_TITLE_WORDS = 6  # a longer heading is a sentence, no method's name

# with the role before it, if any: Sphinx's ``:meth:`x` `` or MyST's ``{meth}`x` ``
# (the lookbehind keeps it linear on long runs of colons)
_INLINE = re.compile(r"((?<![\w.:+-]):[\w.:+-]+:|\{[\w.:+-]+\})?`([^`\n]+)`")
_DIRECTIVE = re.compile(
    r"^[ \t]*(?:(?:\#{1,6}[ \t]+)?:::|(?:\.\.\s+|(?:```+|~~~+|:::+)\{)"  # mkdocstrings (a heading too), reST, MyST
    r"(?:auto|py:)?(?P<kind>class|function|method|classmethod|staticmethod|attribute|property"
    r"|exception|data|decorator)(?:::|\}))"
    r"\s*(?P<name>[A-Za-z_][\w.]*)",
    re.M,
)
_CLASSLIKE = frozenset({"class", "exception"})  # a directive whose nested directives are its members'
# the line that sets the page's current module from there on (``.. currentmodule:: None``: none)
_MODULE = re.compile(
    r"^[ \t]*(?:\.\.[ \t]+|(?:```+|~~~+|:::+)\{)(?:py:)?(?:currentmodule|module|automodule)(?:::|\})"
    r"[ \t]*([A-Za-z_][\w.]*)?"
)


def directive_names(text: str) -> list[str]:
    """The APIs that mkdocstrings and Sphinx directives in ``text`` name (``::: httpx.Client``,
    ``.. autoclass:: httpx.Client``, ``.. data:: request``), as written."""
    return [m.group("name") for m in _DIRECTIVE.finditer(text)]


_TARGET = re.compile(r"<([^<>]+)>\s*$")  # a Sphinx reference with a title: `the client <httpx.Client>`
_LEADING = re.compile(r"^(?:async\s+def|def|class|await|from|import)\s+")
_DOTTED = re.compile(r"\.?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


_OPTION = re.compile(r"^([ \t]*):([\w-]+):[ \t]*(.*)$")  # a directive's option line
_OPTION_NAME = re.compile(r"[A-Za-z_]\w*")


def _directive_options(lines: Sequence[str], start: int, indent: int) -> dict[str, list[str]]:
    """The options of the directive whose head line (indented ``indent``) is just before
    ``start``: each option's name → the names its value lists, continuation lines included
    (``:members: a, b,`` then ``    c``); an empty list when it lists none (a bare
    ``:members:``: all of them)."""
    options: dict[str, list[str]] = {}
    names: list[str] | None = None  # the value of the option being read
    option_indent = 0
    for line in lines[start:]:
        stripped = line.strip()
        if not stripped:
            break
        current = len(line) - len(line.lstrip())
        m = _OPTION.match(line)
        if m is not None and (current > indent or line.startswith(":")):
            names = options.setdefault(m.group(2), [])
            option_indent = current
            names += _OPTION_NAME.findall(m.group(3))
        elif names is not None and current > option_indent:
            names += _OPTION_NAME.findall(stripped)
        else:
            break
    return options


def _special(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


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
        entries = list(entries)
        self._tree = ClassTree(entries)  # the bases each class's definition names
        self._full: dict[str, str] = {}
        self._qualified: dict[str, set[str]] = defaultdict(set)
        self._short: dict[str, set[str]] = defaultdict(set)
        self._classes: dict[str, set[str]] = defaultdict(set)  # lower-case class name → ids
        self._members: dict[str, dict[str, str]] = defaultdict(dict)  # class id → name → id
        self._kind: dict[str, str] = {}
        self._roots: set[str] = set()  # the libraries' root packages
        self._docstrings: set[str] = set()  # the APIs with a docstring (autodoc's :members: shows them)
        self._owner: dict[str, tuple[str, str]] = {}  # member id → (its class id, its name)
        for e in entries:
            if e.kind == "module":
                continue
            self._kind[e.api_id] = e.kind
            if e.docstring.strip():
                self._docstrings.add(e.api_id)
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
                self._owner[e.api_id] = (e.parent, e.name)
        # a name relative to a module → the modules it is a path of (`parse` → `pkg.dates`,
        # `Locale.parse` → `pkg.core`, `pkg`): what a short name is under `.. currentmodule::`
        self._homes: dict[str, set[str]] = defaultdict(set)
        for path in self._full:
            parts = path.split(".")
            for i in range(1, len(parts)):
                prefix = ".".join(parts[:i])
                if prefix in self._full:
                    break  # a class (or any API): the rest is a member's name, no module's
                self._homes[".".join(parts[i:])].add(prefix)
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
        """The api_id of class ``cls``'s member ``name`` (as listed under it; or one it
        inherits, by the path through ``cls``: ``Form.populate_obj`` is ``BaseForm``'s), or None."""
        return self._members.get(cls, {}).get(name) or self._full.get(f"{cls}.{name}")

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
        named, members = self.directive_apis(section.text, context)
        give(self._headed(headings, context) | named, documents)
        # the members a class's directive documents (nested directives, ``:members:``): one
        # section documents them all, so each is credited as a use
        give(members, uses)
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
        return self._headed(headings, scope) | self.directive_apis(text, scope)[0]

    def _headed(self, headings: Sequence[str], scope: set[str]) -> set[str]:
        """The APIs named in code in the last heading."""
        out: set[str] = set()
        if headings:
            for name in self._spans(headings[-1]):
                out |= self.resolve(name, scope)
        return out

    def directive_apis(
        self, text: str, scope: Iterable[str] = (), module: str | None = None
    ) -> tuple[set[str], set[str]]:
        """The APIs the directives in ``text`` name (resolved as written, in ``scope``), and
        the class members that only their class's directive resolves: a directive indented
        under a class's (``.. autoclass:: Template`` then ``    .. automethod:: generate``)
        and those of that directive's ``:members:`` option (:meth:`autodoc_members`). Sphinx
        documents them there, so that ``generate`` is ``Template.generate`` however many
        ``generate`` the library has.

        A name is read in the current module, as Sphinx does: one that is a path of it
        (``parse_pattern`` under ``.. module:: pkg.dates``) denotes that API only; any other
        as written. ``module`` is the current module at the text's start ("": none); None
        when not known (a section of a page whose ``.. module::`` line is in an earlier
        section): then the module every name the text's directives write before its own
        module line is a path of, when they share one (:meth:`_start_modules`). A
        ``.. module::``, ``.. currentmodule::`` or ``.. automodule::`` line in the text sets
        it from there on."""
        named: set[str] = set()
        members: set[str] = set()
        classes: list[tuple[int, str]] = []  # the enclosing class directives: (indent, class id)
        lines = text.splitlines()
        current = self._start_modules(lines) if module is None else {module} - {""}
        for k, line in enumerate(lines):
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            while classes and classes[-1][0] >= indent:  # the class's block has ended
                classes.pop()
            m = _DIRECTIVE.match(line)
            if m is None:
                setter = _MODULE.match(line)
                if setter is not None:
                    name = setter.group(1) or "None"
                    current = set() if name == "None" else {name}
                continue
            name = m.group("name")
            inner = self.member(classes[-1][1], name) if classes else None
            found = {inner} if inner is not None else self._in_modules(name, current, scope)
            named |= found
            for other in more_signatures(lines, k, indent):  # `lpluck(…)` below `pluck(…)`'s head
                more = self.member(classes[-1][1], other) if classes else None
                named |= {more} if more is not None else self._in_modules(other, current, scope)
            if len(found) == 1 and self._kind.get(next(iter(found))) == "class":
                cls = next(iter(found))
                classes.append((indent, cls))
                options = _directive_options(lines, k + 1, indent)
                if "members" in options:
                    members |= self.autodoc_members(cls, options)
        return named, members - named

    def _start_modules(self, lines: Sequence[str]) -> set[str]:
        """The modules a section's text may be read in at its start, when the page's current
        module is not known: Sphinx imports each name a directive writes (not nested in a
        class's) from the current module, so that is a module every such name before the
        text's own module line is a path of (names the library has in no module say nothing);
        none when they share none."""
        common: set[str] | None = None
        classes: list[int] = []  # the indentation of the enclosing class-like directives
        for line in lines:
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            while classes and classes[-1] >= indent:
                classes.pop()
            m = _DIRECTIVE.match(line)
            if m is None:
                if _MODULE.match(line):
                    break
                continue
            homes = self._homes.get(m.group("name")) if not classes else None
            if homes:
                common = set(homes) if common is None else common & homes
                if not common:
                    break
            if m.group("kind") in _CLASSLIKE:
                classes.append(indent)
        return common or set()

    def _in_modules(self, name: str, modules: set[str], scope: Iterable[str]) -> set[str]:
        """What a directive's name denotes read in the current module (one of ``modules``):
        the API it is a path of there, when one; else as :meth:`_target` reads it."""
        found = {self._full[f"{m}.{name}"] for m in modules if f"{m}.{name}" in self._full}
        return found if len(found) == 1 else self._target(name, scope)

    def autodoc_members(self, cls: str, options: dict[str, list[str]]) -> set[str]:
        """The members of class ``cls`` that an autodoc class directive with ``options``
        (:func:`_directive_options`; ``members`` among them) documents: those its
        ``:members:`` names; a bare ``:members:`` documents, as Sphinx does, the class's
        public members that have a docstring (their own or, autodoc's default, the
        same-named member's of a base class), those without one too with
        ``:undoc-members:``, the members its bases define too with ``:inherited-members:``
        (not past a base it names), ``_private`` ones with ``:private-members:`` and
        ``__special__`` ones with ``:special-members:`` (all, or those these name), less
        those ``:exclude-members:`` names."""
        listed = options.get("members", [])
        if listed:
            return {m for name in listed if (m := self.member(cls, name)) is not None}
        pool = dict(self._members.get(cls, {}))
        if "inherited-members" in options:
            for base in self._ancestors(cls, frozenset(options["inherited-members"])):
                for name, api in self._members.get(base, {}).items():
                    pool.setdefault(name, api)  # the nearest class's, as the method resolution order
        excluded = set(options.get("exclude-members", ()))
        undoc = "undoc-members" in options
        out: set[str] = set()
        for name, api in pool.items():
            if name in excluded:
                continue
            if name.startswith("_"):
                option = "special-members" if _special(name) else "private-members"
                wanted = options.get(option)
                if wanted is None or (wanted and name not in wanted):
                    continue
            if undoc or self._has_docstring(api):
                out.add(api)
        return out

    def _has_docstring(self, api: str) -> bool:
        """Whether autodoc finds a docstring for ``api``: its own, or a base class's member of
        the same name's (``autodoc_inherit_docstrings``, on by default)."""
        if api in self._docstrings:
            return True
        owner = self._owner.get(api)
        if owner is None:
            return False
        cls, name = owner
        return any(self._members.get(base, {}).get(name) in self._docstrings for base in self._ancestors(cls))

    def _ancestors(self, cls: str, stop: frozenset[str] = frozenset()) -> list[str]:
        """The library's classes ``cls`` derives from, nearest first (depth first, left to
        right, each once); not a base named in ``stop`` (``:inherited-members: Base``) nor
        the classes past it."""
        out: list[str] = []
        seen = {cls}
        todo = [cls]
        while todo:
            current = todo.pop()
            if current != cls:
                out.append(current)
            found = [
                base
                for base in self._tree.bases.get(current, ())
                if base not in seen and base not in stop and base.rsplit(".", 1)[-1] not in stop
            ]
            seen.update(found)
            todo += reversed(found)
        return out

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
