"""The catalog fields of an :class:`ApiEntry` besides the API itself.

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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from docmentor.library.models import ApiEntry, Example
from docmentor.parse.fences import Fence, closes, fence_open

if TYPE_CHECKING:
    from docmentor.library.knowledge.mentions import MentionResolver

__all__ = ["describe_from_docs", "docs_summary", "enrich_entries", "parameters_by_reference"]

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
    out: dict[str, None] = {}  # ordered and de-duplicated in one pass (a list's `in` was quadratic)
    for w in _WORD.findall(text):
        w = w.lower()
        if len(w) >= 3 and w not in _STOP:
            out.setdefault(w)
    return list(out)


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
    def path(self) -> str: ...

    @property
    def heading(self) -> str: ...

    @property
    def text(self) -> str: ...


# "**Parameters**: See `httpx.request`.", "Args:\n    See :py:func:`request`", "Parameters are
# the same as for ``open``", "See [`open`][pkg.open]": where a docstring sends the reader for
# its parameters. One whitespace run, possessive: a failed match cannot retry its splits
_SEE_PARAMETERS = re.compile(
    r"\b(?:Parameters|Params|Arguments|Args)\b\**+:?\**+:?\s*+"
    r"(?:are\s++)?(?i:see|(?:the\s++)?same\s++as(?:\s++(?:for|in|of))?)\s++"
    r"\[?(?::[\w:]+:)?`{1,2}~?([A-Za-z_][\w.]*?)(?:\(\))?`{1,2}"
)


def parameters_by_reference(entries: Sequence[ApiEntry], resolver: MentionResolver) -> int:
    """Describe the parameters of an API whose docstring sends the reader elsewhere for them
    ("**Parameters**: See `httpx.request`." on ``httpx.get`` and ``Client.get``) with the
    descriptions the same-named parameters have there, through chains of such references
    (until nothing changes). The reference is resolved as the docs' names are
    (:class:`MentionResolver`); when it may denote several APIs, the one that describes the
    most of the wanted parameters, if one does (two that describe them differently: none).
    Parameters that have a description keep it. Returns how many parameters got one."""
    by_id = {e.api_id: e for e in entries}
    referring: list[tuple[ApiEntry, str]] = []
    for entry in entries:
        found = _SEE_PARAMETERS.search(entry.docstring) if entry.parameters and entry.docstring else None
        if found is not None:
            referring.append((entry, found.group(1)))
    filled = 0
    changed = True
    while changed:  # each round fills at least one parameter, or it is the last
        changed = False
        for entry, name in referring:
            wanted = {p.name for p in entry.parameters if not p.description.strip()}
            if not wanted:
                continue
            best: dict[str, str] = {}
            tied = False
            # written as code, so a plain word ("`get`") may name any of the APIs so named
            for api in sorted(resolver.resolve(name) or ("." not in name and resolver.named(name)) or ()):
                target = by_id.get(api)
                if target is None or target is entry:
                    continue
                described = {p.name: p.description for p in target.parameters if p.name in wanted}
                described = {k: v for k, v in described.items() if v.strip()}
                if len(described) > len(best):
                    best, tied = described, False
                elif described and len(described) == len(best):
                    tied = tied or described != best
            if tied:
                continue
            for p in entry.parameters:
                if p.name in best:
                    p.description = best[p.name]
                    filled += 1
                    changed = True
    return filled


def describe_from_docs(
    entries: Sequence[ApiEntry], sections: Sequence[_Section], resolver: MentionResolver, *, package: str = ""
) -> int:
    """Give an API without a description (no docstring: httpx's ``Response``, Flask's
    ``request``) the first paragraph of prose of the docs that document it
    (:func:`docs_summary`):

    - the body of a reST directive naming it (``.. data:: request``), read as Sphinx does:
      under the page's ``.. currentmodule::`` (none of another package's), a member inside
      a ``.. class::`` as that class's (none when the class is not the library's), never
      in a code sample or a literal block;
    - a section whose heading names it and only it in code (``## `Response```; every code
      span a bare name, all the same API; a dotted name only when exactly the library's);
    - a section whose heading spells a class's name of two words or more ("Digest
      authentication": ``DigestAuth``), or is a one-word name or its plural ("Locks":
      ``Lock``).

    A directive documents the API it names: its body wins over any heading; otherwise docs
    order, the first such place wins. Returns how many got one.

    Every API a directive names also gets the prose of the directive's body as its
    ``docs_text`` (what its docstring does not already say; several directives' in docs
    order), described or not."""
    wanting = {e.api_id: e for e in entries if not e.description.strip() and e.kind != "module"}
    by_id = {e.api_id: e for e in entries if e.kind != "module"}
    spelled = _Spelled(_spelled_classes(entries))
    filled = 0
    module: dict[str, str] = {}  # page → its current module (``.. currentmodule::``)
    headed: list[tuple[str, str]] = []  # (API, text) of the sections whose heading names it

    def give(api: str, text: str) -> None:
        nonlocal filled
        if api in wanting and text:
            wanting.pop(api).description = text
            filled += 1

    for section in sections:
        current = module.get(section.path, package)
        for found in _directives(section.text):
            if found.module is not None:
                current = module[section.path] = found.module
                continue
            if package and current.split(".")[0] != package.split(".")[0]:
                continue  # another package's API, documented here
            api = _directive_api(resolver, found, package, current)
            if api in wanting:
                give(api, docs_summary(found.body))
            if api in by_id and found.prose:
                _add_docs_text(by_id[api], found.prose)
            if api in by_id and found.fields:
                _describe_parameters(by_id[api], found.fields)
        named = _heading_api(resolver, section.heading, package)
        if named is None and section.heading:  # "Digest authentication" is DigestAuth
            spelt = spelled.find(_heading_key(section.heading))
            named = next(iter(spelt)) if len(spelt) == 1 else None
        if named in wanting:
            headed.append((named, section.text))
    for named, text in headed:  # after every directive: a directive says what it documents
        if named in wanting:
            give(named, docs_summary(text))
    return filled


_RETURNS_LEAD = re.compile(r"(?i)^(?:returns?|returning)\b[:\s]*")


def describe_by_returns(entries: Sequence[ApiEntry]) -> int:
    """Describe a function or method that nothing else describes by what it returns: a
    docstring or a docs directive made only of fields (peewee's ``Database.table_exists``:
    ``:param str table: …`` and ``:returns: bool indicating whether table exists.``) says
    what the call is for in its ``:returns:`` line alone. "Returns " and that line, its own
    "Returns"/"return" lead dropped. How many got one."""
    filled = 0
    for entry in entries:
        said = entry.returns.description if entry.returns is not None else ""
        if entry.kind not in ("function", "method") or entry.description.strip() or not said.strip():
            continue
        text = _RETURNS_LEAD.sub("", " ".join(said.split()))
        if text:
            entry.description = f"Returns {text}"
            filled += 1
    return filled


def _describe_parameters(entry: ApiEntry, fields: str) -> None:
    """Describe the parameters (and the return) of ``entry`` that have no description with
    the field list of a directive documenting it, read as a Sphinx docstring: PyJWT's
    hand-written ``.. function:: jwt.encode(…)`` body says ``:param dict payload: JWT claims``
    where the method's docstring says nothing."""
    import griffe

    from docmentor.library.surface.api_python_docs import parse_docstring

    # after a first line, as a docstring's fields are: one field alone is read as a summary
    descriptions, returns, *_ = parse_docstring(griffe.Docstring(f"Fields.\n\n{fields}"))
    for p in entry.parameters:
        if not p.description.strip() and descriptions.get(p.name, "").strip():
            p.description = descriptions[p.name]
    if entry.returns is not None and not entry.returns.description.strip() and returns.strip():
        entry.returns.description = returns


def _add_docs_text(entry: ApiEntry, prose: str) -> None:
    """Add a directive's body prose to ``entry.docs_text``: the paragraphs that neither its
    docstring nor what it has already hold (compared by their words), within
    :data:`DOCS_TEXT_CHARS`."""
    held = " ".join(f"{entry.docstring}\n{entry.docs_text}".split()).lower()
    new = [p for p in prose.split("\n") if " ".join(p.split()).lower() not in held]
    if new:
        entry.docs_text = "\n".join(filter(None, [entry.docs_text, *new]))[:DOCS_TEXT_CHARS]


_HEADING_SPAN = re.compile(r"`([^`\n]+)`")
_BARE_NAME = re.compile(r"^[A-Za-z_][\w.]*(?:\(\))?$")


def _exact(resolver: MentionResolver, name: str, package: str) -> set[str]:
    """What a name written in the docs denotes, when it surely is the library's: a dotted
    name is a full path or alias of it, or starts with the package or one of its classes
    (``requests.Session`` in httpx's docs is not ``httpx.Session``)."""
    if "." in name:
        first = name.split(".")[0]
        if package and first != package.split(".")[0] and not resolver.is_class(first):
            exact = resolver.full(name)
            return {exact} if exact is not None else set()
    return resolver.resolve(name)


def _heading_api(resolver: MentionResolver, heading: str, package: str) -> str | None:
    spans = _HEADING_SPAN.findall(heading)
    if not spans or not all(_BARE_NAME.match(s.strip()) for s in spans):
        return None  # no code, or an expression (`capture="sys"`): about a value, not an API
    found = [_exact(resolver, s.strip().removesuffix("()"), package) for s in spans]
    ids = set().union(*found)
    return next(iter(ids)) if len(ids) == 1 and all(found) else None


def _directive_api(resolver: MentionResolver, found: _Directive, package: str, module: str) -> str | None:
    if found.enclosing is not None:  # a member documented inside its class's directive
        owner = _named_in(resolver, found.enclosing, package, module)
        if owner is None:
            return None  # not the library's class (or not known): its members are not either
        return resolver.member(owner, found.name.rsplit(".", 1)[-1])
    return _named_in(resolver, found.name, package, module)


def _named_in(resolver: MentionResolver, name: str, package: str, module: str) -> str | None:
    """The one API a directive's ``name`` denotes: the library's only API by that name, else
    the one the current module has by it (``.. data:: request`` under ``.. currentmodule::
    flask``; ``.. py:class:: Model`` on peewee's page, whose ``Database`` has a ``Model``
    property too); None when neither says."""
    ids = _exact(resolver, name, package)
    if len(ids) != 1 and module:
        exact = resolver.full(f"{module}.{name}")
        ids = {exact} if exact is not None else ids
    return next(iter(ids)) if len(ids) == 1 else None


_LIST_OR_TABLE = re.compile(r"^\s*(?:[*+-]\s|\d+[.)]\s|\|)")
_EMPHASIS = re.compile(r"^([*_]{1,2})(\S(?:.*\S)?)\1$", re.S)
# a directive's option or a field list's line (`:members:`, `:param x:`, a typed
# `:param Union[str, Iterable] audience:`), not a role opening a line of prose (":class:`LFUCache`
# counts …"); possessive: no backtracking on a long line
_FIELD_LINE = re.compile(r"^\s*+:[\w-]++(?:[ \t][^:\n]*+)?:(?=\s|$)")


def _word_count(line: str) -> int:
    """Words of a line, those joined by a slash counted apart ("The OS/platform." is three);
    a URL or a code name is one."""
    count = 0
    for word in line.split():
        parts = [p for p in word.split("/") if p]
        count += len(parts) if "://" not in word and len(parts) > 1 else 1
    return count


def docs_summary(text: str) -> str:
    """The first paragraph of prose in a piece of the docs, as one line: not a heading or a
    reST title, a list (an API page's list of members is no description), a table, a
    directive or its options, a field list, an admonition or code; whole-paragraph emphasis
    unwrapped (``*An HTTP response.*``); without a last sentence that announced code
    ("Here an example::"); at most ~400 characters; "" when there is none of three words.
    When there is none, a paragraph that is all lead-in to a list is the summary if it says
    what something is ("Select fields take a ``choices`` parameter which is either:"), not
    when it only points ahead ("The options are as follows:")."""
    from docmentor.library.surface.docstrings import (
        MARKUP,
        PARAGRAPHS,
        ended,
        is_code,
        is_title,
        says_nothing,
        summary,
        without_lead_in,
    )

    paras = PARAGRAPHS.split(text.strip())
    list_lead_in = ""  # the first paragraph that is all lead-in to the list after it
    for at, para in enumerate(paras):
        stripped = para.strip()
        lines = stripped.split("\n")
        if (
            not stripped
            or lines[0].startswith(("#", "```", "~~~", ":::"))
            or is_title(stripped)
            or MARKUP.match(stripped)
            or _LIST_OR_TABLE.match(lines[0])
            or all(_FIELD_LINE.match(line) for line in lines)
            or para[:1] in (" ", "\t")  # a directive's body or a literal block
            or is_code(para)
        ):
            continue
        line = " ".join(stripped.split())
        emphasis = _EMPHASIS.match(line)
        if emphasis is not None:
            line = emphasis.group(2)
        if line.endswith(":"):
            lead_in, line = line, without_lead_in(line)
            following = paras[at + 1].lstrip("\n") if at + 1 < len(paras) else ""
            if (
                not line
                and not list_lead_in
                and not lead_in.endswith("::")  # a literal block follows: code, not a list
                and _LIST_OR_TABLE.match(following)
                and not following.lstrip().startswith("|")
                and not says_nothing(lead_in)
            ):
                list_lead_in = ended(lead_in)
        if _word_count(line) >= 3:  # "The OS/platform." is three words
            return summary(line)
    return summary(list_lead_in) if _word_count(list_lead_in) >= 3 else ""


@dataclass
class _Directive:
    name: str  # as written
    body: str = ""  # the first paragraph of prose of its body, dedented
    enclosing: str | None = None  # the ``.. class::`` it is inside of
    module: str | None = None  # a ``.. currentmodule::`` / ``.. module::`` line: the module
    prose: str = ""  # every paragraph of prose of its body (:class:`_Prose`)
    fields: str = ""  # its body's field list of parameters and returns (`:param dict payload: …`)


_DIRECTIVE_HEAD = re.compile(r"^([ \t]*)\.\.[ \t]+(?:(py|auto):)?([\w-]+) ?::[ \t]*(.*)$")
_CLASSLIKE = frozenset({"class", "exception", "autoclass", "autoexception"})
_MAX_BODY_LINES = 40


def _directives(text: str) -> list[_Directive]:
    """The reST API directives of a section's text in order, each with the first paragraph
    of its body, the class directive it is nested in, and the module lines among them;
    none inside a Markdown fence or a ``::`` literal block. One pass, each body read up to
    its first paragraph of prose (at most :data:`_MAX_BODY_LINES` lines)."""
    from docmentor.library.knowledge.mentions import directive_names
    from docmentor.sources.autodoc import more_signatures

    lines = text.split("\n")
    out: list[_Directive] = []
    prose = _Prose()  # each directive's body prose, read in this pass
    classes: list[tuple[int, str]] = []  # (indent, name) of the enclosing class directives
    fence: Fence | None = None
    literal = -1  # the indentation of a "::" paragraph whose literal block we are in
    stacks = _Stacks()
    sharing: list[tuple[_Directive, _Directive]] = []  # a further signature, and its head
    for k, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if fence is not None:
            if closes(line, fence, any_indent=True):
                fence = None
            continue
        fence = fence_open(line, any_indent=True)
        if fence is not None:
            continue
        if literal >= 0:
            if not stripped or indent > literal:
                continue
            literal = -1
        if not stripped:
            prose.blank()
            continue
        prose.line(stripped, indent)
        m = _DIRECTIVE_HEAD.match(line)
        if m is None:
            if stripped.startswith(".."):
                prose.open(indent, None)  # a comment, a label: nobody's prose under it
            if stripped.endswith("::"):
                literal = indent
            continue
        kind, argument = m.group(3), m.group(4).strip()
        if kind in ("currentmodule", "module"):
            if argument:
                out.append(_Directive(argument, module=argument))
            prose.open(indent, None)
            continue
        while classes and classes[-1][0] >= indent:
            classes.pop()
        names = directive_names(line)
        if not names:
            prose.open(indent, None)  # `.. note::`, `.. doctest::`: not the API's own words
            continue
        name = names[0]
        found = _Directive(name, _body(lines, k, indent), classes[-1][1] if classes else None)
        stacks.add(found, k, indent, kind if m.group(2) != "auto" and not kind.startswith("auto") else None)
        out.append(found)
        prose.open(indent, found)
        for other in more_signatures(lines, k, indent):  # `lpluck(…)` below `pluck(…)`: one body
            out.append(_Directive(other, found.body, found.enclosing))
            sharing.append((out[-1], found))
        if kind in _CLASSLIKE or (m.group(2) == "py" and kind in ("class", "exception")):
            classes.append((indent, name))
    prose.end()
    stacks.share()
    for further, head in sharing:
        further.prose, further.fields = head.prose, head.fields
    return out


class _Stacks:
    """Hand-written directives of one kind whose heads follow each other line by line
    (psutil's ``.. data:: STATUS_RUNNING`` … ``.. data:: STATUS_ZOMBIE``, one body under the
    last): that body describes each of them, as the page reads. Heads apart by a blank line
    are separate entries (trio's bodiless ``.. function:: current_kqueue()`` before
    ``wait_kevent``); autodoc directives never stack (each takes its own docstring)."""

    def __init__(self) -> None:
        self._stacks: list[list[_Directive]] = []
        self._last: tuple[int, int, str] | None = None  # (line, indent, kind) of the last head

    def add(self, found: _Directive, k: int, indent: int, kind: str | None) -> None:
        """``found``'s head on line ``k``; ``kind`` None for an autodoc directive."""
        last, self._last = self._last, (k, indent, kind) if kind is not None else None
        if kind is None:
            return
        if last is not None and last == (k - 1, indent, kind):
            self._stacks[-1].append(found)
        else:
            self._stacks.append([found])

    def share(self) -> None:
        for stack in self._stacks:
            said = stack[-1]
            for bare in stack[:-1]:
                if not bare.body and not bare.prose and not bare.fields:
                    bare.body, bare.prose = said.body, said.prose


DOCS_TEXT_CHARS = 1_200  # of a directive's body prose kept for find_api (a page of a class's own words)
# the fields of a hand-written directive's body that describe its parameters and what it returns
_DESCRIBING_FIELD = re.compile(r"\s*+:(?:param|parameter|arg|argument|key|keyword|type|returns?|rtype)\b")


class _Body:
    """One open directive body's prose, as :class:`_Prose` reads it."""

    def __init__(self, indent: int, directive: _Directive | None) -> None:
        self.indent = indent
        self.directive = directive  # None: a block whose lines are nobody's prose
        self.arguments = True  # lines right after the head go on with its signature
        self.option = -1  # the indentation of an option line whose value may go on
        self.current: list[str] = []
        self.paragraphs: list[str] = []
        self.size = 0
        self.fields: list[str] = []  # the field list's lines (:data:`_DESCRIBING_FIELD`)
        self.in_field = False  # the open option is such a field: its next lines go on with it

    def read(self, stripped: str, depth: int) -> None:
        if self.option >= 0 and depth > self.option:
            if self.in_field:  # a parameter's description going on
                self.fields.append(f"    {stripped}")
            return  # an option's value going on ("get_template, join_path," under :members:)
        self.option, self.in_field = -1, False
        if _FIELD_LINE.match(stripped) and _DESCRIBING_FIELD.match(stripped):
            self.option, self.in_field = depth, True
            self.fields.append(stripped)
            return
        if self.size >= DOCS_TEXT_CHARS:
            return
        if self.arguments and not _FIELD_LINE.match(stripped):
            return  # "handler_args=None, client_max_size=1024**2, \\": still the signature
        self.arguments = False
        if stripped.startswith(".."):
            self.close()  # a nested directive or comment opens its own block
        elif _FIELD_LINE.match(stripped) and not self.current:
            self.option = depth  # an option, or a field list: the API's parameters, not prose
        else:
            self.current.append(stripped)
            if stripped.endswith("::"):
                self.close()  # its literal block follows (skipped by the caller)

    def close(self) -> None:
        from docmentor.library.surface.docstrings import is_code

        if self.current:
            text = " ".join(self.current)
            if not is_code("\n".join(self.current)):
                self.paragraphs.append(text)
                self.size += len(text) + 1
            self.current.clear()


class _Prose:
    """Every paragraph of prose in each directive's body, in the one pass of
    :func:`_directives` (linear: a line goes to the innermost open body only): not its
    signature's continuation, its options (and their values' next lines), nested
    directives (a member's ``.. method::``, a ``.. note::``) with their bodies, literal
    blocks or code; at most :data:`DOCS_TEXT_CHARS` each. What a hand-written page says of
    an API besides its docstring (cachetools' "This class counts how often an item is
    retrieved …" under ``.. autoclass:: LFUCache``)."""

    def __init__(self) -> None:
        self._open: list[_Body] = []

    def open(self, indent: int, directive: _Directive | None) -> None:
        self._open.append(_Body(indent, directive))

    def blank(self) -> None:
        if self._open:
            top = self._open[-1]
            top.arguments = False
            if not top.in_field:  # a parameter's description may go on after a blank line
                top.option = -1
            top.close()

    def line(self, stripped: str, depth: int) -> None:
        while self._open and self._open[-1].indent >= depth:
            self._done(self._open.pop())
        if self._open and self._open[-1].directive is not None:
            self._open[-1].read(stripped, depth)

    def end(self) -> None:
        while self._open:
            self._done(self._open.pop())

    @staticmethod
    def _done(body: _Body) -> None:
        body.close()
        if body.directive is not None:
            body.directive.prose = "\n".join(body.paragraphs)[:DOCS_TEXT_CHARS]
            body.directive.fields = "\n".join(body.fields)


def _body(lines: list[str], k: int, indent: int) -> str:
    """The first paragraph of prose of the directive on line ``k``: its options skipped, and
    the lines that continue its arguments (a signature broken with ``\\``, more signatures:
    what follows the directive line before a blank line or an option)."""
    body: list[str] = []
    arguments = True
    option = -1  # the indentation of the option line whose value may go on (-1: none)
    for j in range(k + 1, min(len(lines), k + 1 + _MAX_BODY_LINES)):
        line = lines[j]
        stripped = line.strip()
        depth = len(line) - len(line.lstrip())
        if stripped and depth <= indent:
            break  # dedented: the body is over
        if not stripped:
            arguments = False
            option = -1
            if body:
                break
            continue
        if arguments and not _FIELD_LINE.match(line):
            continue  # "handler_args=None, client_max_size=1024**2, \": still the signature
        arguments = False
        if not body and option >= 0 and depth > option:
            continue  # an option's value going on ("get_template, join_path," under :members:)
        if not body and (_FIELD_LINE.match(line) or stripped.startswith("..")):
            if stripped.startswith(".."):
                break  # a nested directive first: no prose of its own
            option = depth
            continue  # an option
        body.append(stripped)
    return "\n".join(body)


_NAME_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|\d+")


def _words_of(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _NAME_WORDS.findall(name))


def _heading_key(heading: str) -> tuple[str, ...]:
    """A heading's words, a run-together name's too: "DeepDiff" is ``deep diff``, as the
    class's name words are (:func:`_words_of`), so that a heading that is the class's name
    spells it (deepdiff's ``diff_doc.rst`` is headed "DeepDiff")."""
    return tuple(w.lower() for w in _NAME_WORDS.findall(heading))


def _spelled_classes(entries: Sequence[ApiEntry]) -> dict[tuple[str, ...], set[str]]:
    """Heading words → the classes whose name they spell, word for word, each word of the
    name the start of the heading's ("Digest authentication": ``DigestAuth``; "Mock
    transports": ``MockTransport``). Keyed by the name's words; :func:`_spelled` matches."""
    out: dict[tuple[str, ...], set[str]] = {}
    for e in entries:
        if e.kind == "class" and not e.description.strip():
            words = _words_of(e.name)
            if words:
                out.setdefault(words, set()).add(e.api_id)
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
        keys = [first[:k] for k in range(1, len(first) + 1)]  # each start of the heading's first word
        if first.endswith("ies"):
            keys.append(first[:-3] + "y")  # "Proxies": Proxy's words start with "proxy"
        for key in dict.fromkeys(keys):
            for words, ids in self._by_first.get(key, ()):
                if len(words) == 1:  # one word: the heading is the name or its plural ("Locks")
                    w = words[0]
                    plurals = (w, w + "s", w + "es", w[:-1] + "ies" if w.endswith("y") else w)
                    if len(heading) == 1 and first in plurals:  # "Proxies": Proxy
                        out |= ids
                elif len(words) == len(heading) and all(
                    h.startswith(w) for w, h in zip(words, heading, strict=True)
                ):
                    out |= ids
        return out
