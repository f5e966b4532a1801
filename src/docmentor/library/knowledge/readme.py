"""The monolithic README.LLM: the XML layout of Wijaya et al., "ReadMe.LLM" (2025), Appendix B/C.

::

    <ReadMe.LLM>
    <rules> ask when unsure; reuse the library; mind its dependencies; the version described,
            whether examples were run </rules>
    <context_description> library, purpose, how the context is organised </context_description>
    <context_N>
    <context_N_description> what the API is and does </context_N_description>
    <context_N_function> public path + signature, Parameters:, Returns: </context_N_function>
    <context_N_example> the best example using it </context_N_example>
    </context_N>
    ...
    </ReadMe.LLM>

Sections are the APIs by importance (modules are left out: they have no signature), at
most ``max_apis`` of them, fewer when ``max_tokens`` (exact, offline count) is reached.
The function block's first line is the API's shortest public path up to its name followed
by the introspected signature verbatim (``minidb.Database.insert(self, table: str) -> int``).

Nothing is escaped (the reader is an LLM), but text taken from the library or its docs
can never open or close one of our tags: the ``<`` of ``</context_``, ``</rules``,
``</ReadMe.LLM`` (and of their opening forms) becomes ``&lt;``, which keeps code inside a
string literal or comment valid.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
import warnings
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import lru_cache

from docmentor.assemble.tokens import DEFAULT_ENCODING, check_encoding, count_tokens
from docmentor.errors import UsageError
from docmentor.library.knowledge.importance import public_path
from docmentor.library.knowledge.mentions import heading_forms as _heading_forms
from docmentor.library.knowledge.mentions import heading_words as _heading_words
from docmentor.library.knowledge.mentions import spells as _spells
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.docstrings import (
    display,
    ended,
    field_text,
    is_label,
    prose_paragraphs,
    says_nothing,
    without_lead_in,
)
from docmentor.library.surface.raise_sites import SHOWN_SITES
from docmentor.library.surface.ref_titles import with_titles
from docmentor.parse.shown_code import code_as_shown
from docmentor.search.ranking import history_page

__all__ = [
    "HeadingNames",
    "api_words",
    "best_example",
    "example_code",
    "is_data",
    "ranked_entries",
    "render_readme",
]

_STRAY = re.compile(r"<(/?)(?=context_|rules\b|ReadMe\.LLM\b)", re.IGNORECASE)
_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?|Attributes)\s*:?\s*$",
    re.M,
)
_MAX_DESCRIPTION = 700
_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s")  # a list item: what a colon may announce


def _safe(text: str) -> str:
    """User text that cannot open or close one of our tags."""
    return _STRAY.sub(lambda m: "&lt;" + m.group(1), text)


def example_code(example: Example) -> str:
    """The example's code as README.LLM shows it: dedented, without blank edges; a doctest
    or IPython session (``>>> r = httpx.get(url)``, ``In [1]: …``) as the program its
    prompts spell, each output line a comment below the statement that printed it."""
    return _shown_code(example.code, example.language)


@lru_cache(maxsize=4096)
def _shown_code(code: str, language: str) -> str:
    """:func:`example_code`'s work, once per code (ranking asks for it several times): the
    code as its page shows it (no magic comments nor annotation markers; a twoslash set-up
    stays: an example keeps its block's language, not its info string)."""
    code = "\n".join(code_as_shown(language, textwrap.dedent(code).strip("\n").split("\n")))
    if language == "python" and _is_session(code):
        return _session_program(code)
    return code


_IN = re.compile(r"In \[\d*\]: ?")  # IPython's prompt
_IN_MORE = re.compile(r"[ \t]*\.\.\.+: ?")  # …and its continuation, "   ...: "
_OUT = re.compile(r"Out\[\d*\]: ?")


def _is_session(code: str) -> bool:
    """Whether the first line that is no comment is a doctest or IPython prompt."""
    for raw in code.split("\n"):
        line = raw.strip()
        if line and not line.startswith("#"):
            return (line[:3] == ">>>" and line[3:4] in ("", " ")) or bool(_IN.match(line))
    return False


def _session_program(code: str) -> str:
    out: list[str] = []
    statement = False
    for raw in code.split("\n"):
        line = raw.strip()
        prompt = line[:3]
        more = _IN_MORE.match(raw) if statement else None
        if prompt == ">>>" and line[3:4] in ("", " "):
            out.append(line[4:])
            statement = True
        elif (m := _IN.match(line)) is not None:
            out.append(line[m.end() :])
            statement = True
        elif statement and prompt == "..." and line[3:4] in ("", " "):
            out.append(raw.lstrip()[4:])  # the statement's own indentation after "... "
        elif more is not None:
            out.append(raw[more.end() :])
        elif line.startswith("#") and not statement:
            out.append(line)  # a comment of the session's own (a title above it)
        elif line:
            shown = line[o.end() :] if (o := _OUT.match(line)) else raw.rstrip()
            out.append("# " + shown)  # output, as printed
            statement = False
        else:
            out.append("")
            statement = False
    return "\n".join(out).strip("\n")


@lru_cache(maxsize=4096)
def _parses(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like are not our business
            ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


# ApiEntry.internal values of what is no API at all: a module constant nothing publishes, and a
# type variable (`F = TypeVar("F", bound=…)`: a name for the library's own annotations, never
# what a user's code calls or passes; a blinker tour found one in README.LLM). (A helper
# function or a marker class may still be one users call, and a sentinel is marked so whether
# it is published or not, `attrs.NOTHING`: those are shown, after the rest.)
_NO_API = frozenset({"constant", "type variable"})


def ranked_entries(entries: Sequence[ApiEntry]) -> list[ApiEntry]:
    """The entries README.LLM may show: what users call first (functions, methods,
    properties, classes), most important first (ties: shorter public path), then what they
    only read (:func:`is_data`), by the same order. Deprecated APIs are not shown:
    README.LLM teaches how to use the library today. Nor is a module constant nothing
    publishes (:data:`_NO_API`: ``TYPE_CHECKING = False``): it would only fill a spare context."""
    shown = [e for e in entries if e.kind != "module" and not e.deprecated and e.internal not in _NO_API]
    return sorted(
        shown, key=lambda e: (is_data(e), -e.importance_score, public_path(e).count("."), public_path(e))
    )


def is_data(entry: ApiEntry) -> bool:
    """An API users read or name rather than call: an attribute (an instance's, assigned in
    ``__init__``, or a module constant), or what the surface marks as no API users call
    (``ApiEntry.internal``: a helper or constant nothing publishes, a marker class). It never
    takes a context from an API users call."""
    return entry.kind == "attribute" or entry.instance_attribute or entry.internal is not None


def best_example(
    entry: ApiEntry,
    examples: Sequence[Example],
    *,
    validated: bool,
    shown: set[str] | None = None,
    deprecated: Collection[str] = (),
    names: HeadingNames | None = None,
) -> Example | None:
    """The example to show for ``entry``.

    Validated (passed) first, then one that uses no ``deprecated`` API, then one not on a
    page that records changes (a changelog's "previously you called it like this"), then one that
    imports no package beyond the library and the standard library (the truststore
    recipe is no example of ``Client``), then one that uses the API itself (a
    class's example may use only its members: ``tbl.search(...)`` shows ``Table``), then
    complete programs that import the library (a callback that names nothing is no program
    of it; a reader can run one, not a fragment of undefined names), then one of the docs
    rather than of a docstring (those fill the gaps the docs leave), then one under a
    heading that names it, then one not shown yet for
    another API, then the one most about it (the largest part of its API uses are the API
    or its members), then a docstring's first block before its later ones, then the
    shortest. When validation ran, only passed examples qualify; a
    Python example qualifies only when it parses (``ast``) once dedented. ``names``: the
    words of the library's API names (:func:`api_words`), so that a heading naming a longer
    one ("Async clients") does not name a shorter one in it (``Client``).
    """
    member = entry.api_id + "."
    members = entry.kind == "class"
    candidates = [
        ex
        for ex in examples
        if (entry.api_id in ex.apis_used or (members and any(a.startswith(member) for a in ex.apis_used)))
        and ex.code.strip()
        and (not validated or ex.validated is True)
        and (ex.language != "python" or _parses(example_code(ex)))
    ]
    if not candidates:
        return None
    seen = shown or set()
    own = _roots(entry)
    words = _heading_words(entry.name)
    return min(
        candidates,
        key=lambda ex: (
            ex.validated is not True,
            any(a in deprecated for a in ex.apis_used),
            history_page(ex.path),  # release notes show how it was, or how it changed
            ex.language == "python" and bool(_imported(example_code(ex)) - own - _STDLIB),
            entry.api_id not in ex.apis_used,
            # a program a reader can run before a fragment, wherever it is written (a tour:
            # IsJson showed the docs' `def test_user_endpoint(client, db_conn)` over its
            # docstring's whole example); then the docs' examples: a docstring's fills a gap
            not (ex.complete and (ex.language != "python" or bool(_imported(example_code(ex)) & own))),
            ex.origin != "docs",
            not _names(ex, words, names),
            ex.example_id in seen,
            -_share(ex, entry.api_id, member),
            _block(ex),
            len(ex.code),
            ex.example_id,
        ),
    )


def _block(example: Example) -> int:
    """A docstring example's place in its docstring (1, 2, …; 0 for the docs' examples): its
    first block shows the plain use and binds what later ones use (doctest runs them in one
    namespace), a later one is often an edge case (``metric(1e40)``)."""
    if example.origin != "docstring":
        return 0
    number = example.example_id.rpartition("-")[2]
    return int(number) if number.isdigit() else 0


def _share(example: Example, api_id: str, member: str) -> float:
    """The part of the example's API uses that are the API or its members: how much it is
    about it (the asyncio program that opens an ``AsyncClient`` and calls ``get`` on it, not
    the one that configures a transport for it)."""
    ours = sum(1 for a in example.apis_used if a == api_id or a.startswith(member))
    return ours / max(1, len(example.apis_used))


_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}


def _roots(entry: ApiEntry) -> frozenset[str]:
    """The top-level packages the API is imported from (``lancedb`` for ``lancedb.db.DBConnection``)."""
    return frozenset(path.split(".", 1)[0] for path in (entry.api_id, *entry.aliases))


@lru_cache(maxsize=4096)
def _imported(code: str) -> frozenset[str]:
    """The top-level packages a Python example imports (absolute imports only)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return frozenset()
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".", 1)[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".", 1)[0])
    return frozenset(out)


class HeadingNames:
    """Where a library's API names of two words or more occur in headings (``AsyncClient``
    in "Async clients"), each heading read once: for :func:`best_example`, a heading naming
    a longer name does not name a shorter one inside it."""

    def __init__(self, names: Iterable[tuple[str, ...]]) -> None:
        self._by_first: dict[str, list[tuple[str, ...]]] = {}
        for words in set(names):
            if len(words) >= 2:
                self._by_first.setdefault(words[0], []).append(words)
        self._seen: dict[str, tuple[tuple[frozenset[str], ...], list[tuple[int, int]]]] = {}

    def read(self, heading: str) -> tuple[tuple[frozenset[str], ...], list[tuple[int, int]]]:
        """The heading's words (each as the singulars it may be, :func:`~.mentions.word_forms`), and the
        spans (start, end) where an API name of 2+ words is."""
        seen = self._seen.get(heading)
        if seen is None:
            found = _heading_forms(heading)
            spans = [
                (j, j + len(w))
                for j, forms in enumerate(found)
                for first in forms
                for w in self._by_first.get(first, ())
                if _spells(found, j, w)
            ]
            seen = self._seen[heading] = (found, spans)
        return seen


def api_words(entries: Sequence[ApiEntry]) -> HeadingNames:
    """The words each API's name is written with in headings (``AsyncClient`` → ("async",
    "client")), for :func:`best_example`."""
    return HeadingNames(_heading_words(e.name) for e in entries)


def _names(example: Example, words: tuple[str, ...], names: HeadingNames | None = None) -> bool:
    """Whether the example's title or a heading above it names the API: its words in order
    (a plural for the last: "Clients" names ``Client``), and not as part of another API's
    longer name there ("Async clients" names ``AsyncClient``, not ``Client``, when the
    library has both)."""
    n = len(words)
    for heading in (example.title, *example.heading_path):
        found, longer = names.read(heading) if names is not None else (_heading_forms(heading), [])
        for i in range(len(found) - n + 1):
            if _spells(found, i, words) and not any(a <= i and i + n <= b and b - a > n for a, b in longer):
                return True
    return False


_INTERFACE = re.compile(r"(?:export\s+)?(?:declare\s+)?(?:interface\b|(?P<type>type)\s)")


def _is_interface(entry: ApiEntry) -> bool:
    """A TypeScript interface or object type (catalogued as a class): a shape, never constructed."""
    return (
        entry.kind == "class"
        and entry.language in ("typescript", "javascript")
        and bool(_INTERFACE.match(entry.signature))
    )


_GO_TYPE = re.compile(r"type\s++\w++(?:\[[^\]\n]*+\])?\s++(?P<kind>struct|interface|func)?")
_RUST_ITEM = re.compile(
    r"(?:pub(?:\([^)\n]*+\))?\s++)?(?:unsafe\s++|auto\s++)*+(?P<kind>struct|enum|trait|union|type|const|static)\b"
)
_RUST_WORDS = {"type": "type alias", "const": "constant"}
_GO_WORDS = {"struct": "struct", "interface": "interface", "func": "function type"}


def _kind_word(entry: ApiEntry) -> str:
    """What the entry is, in its language's words: a Go or Rust type is no "class" (a tour read
    "cobra.SliceValue is a class" of an interface, "anyhow.Context is a class" of a trait)."""
    if _is_interface(entry):
        return _shape_word(entry)
    if entry.language in ("go", "rust") and entry.kind == "property":
        return "field"
    if entry.language == "go" and entry.kind == "class":
        m = _GO_TYPE.match(entry.signature)
        return _GO_WORDS.get(m.group("kind") or "", "type") if m else "type"
    if entry.language == "rust" and entry.kind in ("class", "attribute"):
        m = _RUST_ITEM.match(entry.signature)
        return _RUST_WORDS.get(m.group("kind"), m.group("kind")) if m else entry.kind
    if entry.kind == "class" and entry.enum:
        return "enumeration"
    return entry.kind


def _constructed(entry: ApiEntry) -> bool:
    """A class whose call makes an instance: not a TypeScript interface, nor a Go or Rust type
    (made by a literal or a constructor function of its own)."""
    return entry.language not in ("go", "rust") and not _is_interface(entry)


def _shape_word(entry: ApiEntry) -> str:
    """ "type" for an object type alias (``type KyInstance = {…}``), "interface" for an interface."""
    m = _INTERFACE.match(entry.signature)
    return "type" if m is not None and m.group("type") else "interface"


def _description(entry: ApiEntry, by_id: dict[str, ApiEntry], titles: Mapping[str, str] | None = None) -> str:
    path = public_path(entry)
    kind = _kind_word(entry)
    article = "an" if kind[0] in "aeiou" else "a"
    if entry.bound_names and entry.parent and path in entry.bound_names:
        # `jwt.encode = _jwt_global_obj.encode`: called as a function, its instance made for it
        owner = public_path(by_id[entry.parent]) if entry.parent in by_id else entry.parent
        lead = f"{path} is the {entry.name} method of a module-level {owner} instance, called as a function."
    elif entry.parent and entry.parent in by_id:
        owner = public_path(by_id[entry.parent])
        lead = f"{path} is {article} {kind} of {owner}."
    else:
        lead = f"{path} is {article} {kind}."
    body = display(entry.description.strip())
    # the docstring's prose after the summary, up to its first section (Args:, :param x: …),
    # without directives, code and literal blocks: whole paragraphs, as many as fit
    paragraphs = prose_paragraphs(with_titles(entry.docstring, titles or {}))
    if body.endswith(":") and not (paragraphs and _ITEM.match(paragraphs[0])):
        # it announced code left out ("… are the same:"): its other sentences stay. One that
        # is all lead-in is left out when it is a label ("Usage:"), and gives way to the
        # paragraphs after it when it only points ahead ("… broken down like this:") and
        # one fits; else it ends there ("The query that defines a view, as stored.")
        fits = bool(paragraphs) and len(paragraphs[0]) < _MAX_DESCRIPTION
        body = without_lead_in(body) or body
        if body.endswith(":"):
            body = "" if is_label(body) or (fits and says_nothing(body)) else ended(body)
    for paragraph in paragraphs:
        if paragraph[:2] in _BULLETS:  # a bulleted list, flattened: its items as a sentence
            paragraph = _inline_list(paragraph)
        elif paragraph[:3] in _NUMBERS:  # a numbered one (reST's `#.`, `1.`): the same
            paragraph = _inline_numbered(paragraph)
        if len(body) + len(paragraph) >= _MAX_DESCRIPTION:
            break
        # a summary without its full stop ("An active LanceDB connection") ends before the next
        body = f"{body}{'' if body[-1:] in '.!?:' else '.'} {paragraph}" if body else paragraph
    if body.endswith(":"):  # it announced what did not fit ("… based on the Python version:")
        body = without_lead_in(body) or ended(body)
    return f"{lead} {body}".strip()


_BULLETS = ("* ", "- ", "+ ")
_NUMBERS = ("#. ", "1. ", "1) ")


def _inline_numbered(paragraph: str) -> str:
    """A flattened numbered list (reST's ``#. as a context manager #. as a decorator``, or
    ``1. … 2. …``) as one sentence, its items split at their markers (``#.``, or the next
    number in turn) between spaces, outside code spans."""
    auto = paragraph.startswith("#.")
    suffix = paragraph[1]
    items: list[str] = []
    start, number, in_code = 3, 2, False
    for i, c in enumerate(paragraph):
        if c == "`":
            in_code = not in_code
            continue
        if in_code or i == 0 or paragraph[i - 1] != " ":
            continue
        marker = "#" + suffix if auto else f"{number}{suffix}"
        if paragraph.startswith(marker + " ", i):
            items.append(paragraph[start:i])
            start = i + len(marker) + 1
            number += 1
    items.append(paragraph[start:])
    cleaned = [item.strip().rstrip(".;,") for item in items if item.strip()]
    return ", ".join(cleaned) + "." if len(cleaned) > 1 else paragraph


def _inline_list(paragraph: str) -> str:
    """A flattened bulleted list (``* read * read1 * readline``) as one sentence: ``read,
    read1, readline.`` Items are split only at the list's own marker between spaces, never
    inside a code span (``a[1 - 2]``)."""
    marker = paragraph[0]
    items: list[str] = []
    start, in_code = 1, False
    for i, c in enumerate(paragraph):
        if c == "`":
            in_code = not in_code
        elif (
            c == marker
            and not in_code
            and 0 < i < len(paragraph) - 1
            and paragraph[i - 1] == " "
            and paragraph[i + 1] == " "
        ):
            items.append(paragraph[start:i])
            start = i + 1
    items.append(paragraph[start:])
    cleaned = [item.strip().rstrip(".;,") for item in items if item.strip()]
    return ", ".join(cleaned) + "." if cleaned else paragraph


def _makers(entry: ApiEntry, by_id: Mapping[str, ApiEntry]) -> list[str]:
    """The public calls that give an instance of class ``entry`` (they return it, or an
    iterator or context manager of it), the most important first: at most three; a
    function before any method (anyio's ``create_task_group()``, not the backend
    interface's ``AsyncBackend.create_task_group()``)."""
    found = [
        e
        for e in by_id.values()
        if e.kind in ("function", "method")
        and e.internal is None
        and e.returns is not None
        and entry.api_id in (e.returns.class_id, e.returns.item_class_id)
        and e.parent != entry.api_id
    ]
    if any(e.kind == "function" for e in found):
        found = [e for e in found if e.kind == "function"]
    found.sort(key=lambda e: (-e.importance_score, e.api_id))
    return [f"{public_path(e)}()" for e in found[:3]]


SHOWN_MEMBERS = 12  # an enumeration's members listed in its context at most


def _enumeration(entry: ApiEntry, path: str, by_id: Mapping[str, ApiEntry]) -> str:
    """An enumeration's context: its members (its values, as the code writes them), and how it
    is used: a member passed, not a call that makes an instance."""
    members = [
        e
        for e in by_id.values()
        if e.parent == entry.api_id and e.kind == "attribute" and not e.name.startswith("_")
    ]
    members.sort(key=lambda e: (e.line or 0, e.name))
    lines = [path]
    if members:
        lines += ["", "Members:"]
        lines += [f"- {path}.{member.name}{_member_value(member)}" for member in members[:SHOWN_MEMBERS]]
        if len(members) > SHOWN_MEMBERS:
            lines.append(f"- … {len(members) - SHOWN_MEMBERS} more")
    example = f"`{path}.{members[0].name}`" if members else "one of its members"
    lines += ["", "Used as:", f"{entry.name} - an enumeration: pass a member ({example}), not a new instance"]
    return "\n".join(lines)


def _enumerated(entry: ApiEntry, path: str, by_id: Mapping[str, ApiEntry]) -> str | None:
    """The context of an enumeration or of one of its members; None for anything else."""
    if entry.kind == "class" and entry.enum:  # users pass its members; a call only looks one up
        return _enumeration(entry, path, by_id)
    owner = by_id.get(entry.parent) if entry.kind == "attribute" and entry.parent else None
    if owner is None or not owner.enum:
        return None
    return f"{path}{_member_value(entry)}\n\nUsed as:\n{entry.name} - a member of the enumeration {public_path(owner)}"


def _member_value(member: ApiEntry) -> str:
    """`` = VALUE`` of an enumeration's member as the code writes it; "" for ``auto()`` or none."""
    value = member.signature.partition(" = ")[2]
    return f" = {value}" if value and value != "auto()" else ""


def _function(entry: ApiEntry, by_id: Mapping[str, ApiEntry] | None = None) -> str:
    path = public_path(entry)
    if entry.kind == "class" and entry.internal == "sentinel":  # the class is the value itself
        return f"{path}\n\nUsed as:\n{entry.name} - a sentinel value: compare with `is {path}`; never called"
    enumerated = _enumerated(entry, path, by_id or {})
    if enumerated is not None:
        return enumerated
    sig = entry.signature or entry.name
    is_async = sig.startswith("async ") and entry.language == "python"
    bare = sig[len("async ") :] if is_async else sig
    if bare == entry.name or bare.startswith((entry.name + "(", entry.name + ":", entry.name + " =")):
        # the signature names the object as defined; show it under its public path
        first = ("async " if is_async else "") + path + bare[len(entry.name) :]
    else:  # another language's declaration ("function ok(a)"), or a re-export under another name
        first = f"{path}\n{sig}"
    lines = [first]
    if entry.overloads:  # the typed forms of an unannotated function, under its public path
        lines += ["", "Overloads:"]
        for o in entry.overloads:
            is_async_form = o.startswith("async ")
            bare_form = o.removeprefix("async ")
            shown = (
                path + bare_form[len(entry.name) :] if bare_form.startswith(entry.name + "(") else bare_form
            )
            lines.append(f"- {'async ' if is_async_form else ''}{shown}")
    if entry.parameters:
        lines += ["", "Parameters:"]
        for p in entry.parameters:
            name = {"var-positional": "*", "var-keyword": "**"}.get(p.kind, "") + p.name
            facts = [p.type] if p.type else []
            if p.kind in ("var-positional", "var-keyword"):
                facts.append("optional")
            elif p.required:
                facts.append("required")
            else:
                facts.append("optional")
                if p.default is not None:  # known (a keyword documented for **kwargs has none)
                    facts.append(f"default: {p.default}")
            if p.kind == "keyword-only":
                facts.append("keyword-only")
            elif p.kind == "positional-only":
                facts.append("positional-only")
            line = f"- {name} ({', '.join(facts)})"
            if p.description.strip():
                line += ": " + field_text(p.description)
            lines.append(line)
    r = entry.returns
    if entry.kind == "class" and entry.exception:  # raised by the library, caught by users
        lines += ["", "Raised as:", f"{entry.name} - an exception: `except {path}:`"]
        # where the library's code raises it, with what message (surface/raise_sites.py)
        lines += [f"- {line}" for line in entry.raised.splitlines()[:SHOWN_SITES]]
    elif entry.kind == "class" and entry.abstract:  # `Cls()` raises TypeError
        makers = _makers(entry, by_id or {})
        made = f"; get one from {', '.join(makers)}" if makers else "; subclass it"
        lines += ["", "Returns:", f"{entry.name} is abstract: not constructed directly{made}"]
    elif entry.kind == "class" and r is not None and r.type:  # its __new__ gives something else
        said = field_text(r.description) if r.description.strip() else ""
        lines += ["", "Returns:", f"{r.type} - {said}" if said else r.type]
    elif entry.kind == "class" and _constructed(entry):
        lines += ["", "Returns:", f"{entry.name} - a new instance"]
    elif r is not None and (r.type or r.description.strip()):
        text = r.type or ""
        if r.description.strip():
            said = field_text(r.description)
            text = f"{text} - {said}" if text else said
        lines += ["", "Returns:", text]
    return "\n".join(lines)


# an example already shown whole for another API is pointed to when it is longer than this
# (lines): the same 46-line program three times costs what three more APIs would
REPEAT_LINES = 10


def _bindings(node: ast.AST) -> set[str]:
    """The names a piece of code binds: imports, definitions, assignment and loop targets."""
    bound: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in sub.names)
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(sub.name)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            bound.add(sub.id)
    return bound


def _loads(node: ast.AST | None) -> set[str]:
    return (
        {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if node
        else set()
    )


def _read_before_bound(tree: ast.Module) -> set[str]:
    """The names the code reads before it binds them, statement by statement: an assignment
    reads its value first (``aot = aot()`` needs ``aot`` imported); a compound statement (a
    loop, a ``with``, a definition) counts what it binds itself as bound, since its own
    targets are what its body reads."""
    bound: set[str] = set()
    unbound: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            reads = _loads(statement.value)
            if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
                reads.add(statement.target.id)  # `x += 1` reads x
            unbound |= reads - bound
        elif not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            unbound |= _loads(statement) - bound - _bindings(statement)
        bound |= _bindings(statement)
    # a definition's body runs when called, after the code around it: what the whole example binds
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            unbound |= _loads(statement) - bound
    return unbound


def with_imports(example: Example, code: str, by_id: Mapping[str, ApiEntry]) -> str:
    """A docstring's example as a program a reader can run: a doctest in a module's docstring
    calls that module's names bare (humanize's ``clamp(123.456)``, ``format=intword``); the
    library's functions and classes it uses and does not import get their import from the
    public path (``from humanize import clamp, intword``). An example of the docs, or code
    that does not parse, is shown as written."""
    if example.origin != "docstring" or example.language != "python":
        return code
    try:
        with warnings.catch_warnings():  # a docstring's "\d" is no warning of ours to print
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return code
    unbound = _read_before_bound(tree)
    wanted: dict[str, set[str]] = {}
    for api in example.apis_used:
        entry = by_id.get(api)
        if entry is None or entry.kind not in ("function", "class"):
            continue
        module, _, name = public_path(entry).rpartition(".")
        if module and name in unbound:
            wanted.setdefault(module, set()).add(name)
    imports = [f"from {module} import {', '.join(sorted(names))}" for module, names in sorted(wanted.items())]
    return "\n".join([*imports, code]) if imports else code


def _context(
    n: int,
    entry: ApiEntry,
    by_id: dict[str, ApiEntry],
    example: Example | None,
    shown_in: int | None = None,
    titles: Mapping[str, str] | None = None,
) -> str:
    parts = [
        f"<context_{n}>",
        f"<context_{n}_description>",
        _safe(_description(entry, by_id, titles or {})),
        f"</context_{n}_description>",
        "",
        f"<context_{n}_function>",
        _safe(_function(entry, by_id)),
        f"</context_{n}_function>",
    ]
    if example is not None:
        code = with_imports(example, example_code(example), by_id)
        if shown_in is not None and code.count("\n") + 1 > REPEAT_LINES:
            code = (
                f"# the example of context_{shown_in} shows {entry.name} too ({example.path}:{example.line})"
            )
        parts += ["", f"<context_{n}_example>", _safe(code), f"</context_{n}_example>"]
    parts.append(f"</context_{n}>")
    return "\n".join(parts)


def _header(library: str, version: str | None, purpose: str, *, validated: bool) -> str:
    described = f"{library} {version}" if version else f"{library} (version unknown)"
    rule4 = f"Rule number 4: This context describes {described}."
    if validated and version:
        rule4 += f" Examples were validated on version {version}."
    elif validated:
        rule4 += " Examples were validated on the installed version."
    intro = f"The context will be for the {library} library."
    said = " ".join(purpose.split())
    if said:  # ended: a summary has no full stop ("Classes Without Boilerplate"), a lead-in a colon
        intro += " " + ended(said)
    intro += (
        " The context is organized into numbered sections using XML tags. Within each section,"
        " there is a description, a function signature with its parameters and return value,"
        " and, when the documentation has one, an example"
        + (" validated on this version." if validated else ".")
    )
    return "\n".join(
        [
            "<ReadMe.LLM>",
            "<rules>",
            "Rule number 1: When you are unsure about something, ask the user what information you need.",
            f"Rule number 2: Reuse {library} functions and code when applicable.",
            "Rule number 3: Consider library dependencies when generating code solutions.",
            _safe(rule4),
            "</rules>",
            "",
            "<context_description>",
            _safe(intro),
            "</context_description>",
        ]
    )


_FOOTER = "</ReadMe.LLM>\n"


def render_readme(
    library: str,
    version: str | None,
    entries: Sequence[ApiEntry],
    examples: Sequence[Example],
    *,
    max_apis: int = 50,
    max_tokens: int | None = None,
    encoding: str = DEFAULT_ENCODING,
    validated: bool,
    purpose: str = "",
    titles: Mapping[str, str] | None = None,
) -> str:
    """README.LLM for ``library``.

    Args:
        library: the library's name, as users import it.
        version: the version described (None: unknown).
        entries: the API surface, importance scored.
        examples: the docs' examples, matched (and validated when ``validated``).
        max_apis: at most this many ``<context_N>`` sections.
        max_tokens: the whole file stays within this many tokens of ``encoding``.
        encoding: the tokenizer for ``max_tokens``.
        validated: validation ran: only passed examples are shown, and the rules say so.
        purpose: what the library is for (package docstring or the docs' index page).
        titles: the docs' label → section title (:func:`.ref_titles.label_titles`): a
            docstring's ``:ref:`label``` is shown by its title, as Sphinx shows it.

    Raises:
        UsageError: ``max_apis`` < 0, or ``max_tokens`` too small for the rules and description.
    """
    if max_apis < 0:
        raise UsageError("max_apis must be ≥ 0", arguments=("max_apis",))
    check_encoding(encoding)
    by_id = {e.api_id: e for e in entries}
    head = _header(library, version, purpose, validated=validated)
    sections: list[str] = []
    shown: dict[str, int] = {}  # example_id → the context that shows it whole
    if max_tokens is not None:
        base = count_tokens(_join(head, [], _FOOTER), encoding)
        if base > max_tokens:
            raise UsageError(
                f"max_tokens {max_tokens} is below the {base} tokens of the rules and description alone",
                hint=f"use at least {base}",
                arguments=("max_tokens",),
            )
    deprecated = {e.api_id for e in entries if e.deprecated}
    names = api_words(entries)
    # what the contexts so far describe → their kind: one API under two names (cattrs'
    # `structure = global_converter.structure`, a function, beside the method
    # `BaseConverter.structure`) gets one context; two classes' methods (a sync and an async
    # client's `get`) are two APIs
    said: dict[tuple[str, str, tuple[str, ...]], str] = {}
    members: set[tuple[str, str]] = set()  # (name, call) of the methods and properties shown so far
    for entry in ranked_entries(entries):
        if len(sections) >= max_apis:
            break
        if entry.kind in ("method", "property") and not entry.description.strip():
            call = _call(entry)
            if (entry.name, call) in members or (
                call == _PASS_THROUGH and any(name == entry.name for name, _ in members)
            ):
                # another class's override with nothing to say, called as the one shown
                # (cachetools' seven `clear(self)`), or passing everything through to it
                # (`TTLCache.get(self, *args, **kwargs)` after `Cache.get`): no context of its own
                continue
        params = tuple(
            f"{p.name}:{p.type or ''}={p.default or ''}"
            for p in entry.parameters
            if p.name not in ("self", "cls")
        )
        same = (entry.name, entry.description.strip(), params)
        if entry.kind in ("function", "method"):
            if said.get(same, entry.kind) != entry.kind:
                continue
            said.setdefault(same, entry.kind)
        example = best_example(
            entry, examples, validated=validated, shown=set(shown), deprecated=deprecated, names=names
        )
        n = len(sections) + 1
        section = _context(
            n, entry, by_id, example, shown.get(example.example_id) if example else None, titles or {}
        )
        if (
            max_tokens is not None
            and count_tokens(_join(head, [*sections, section], _FOOTER), encoding) > max_tokens
        ):
            break
        sections.append(section)
        if entry.kind in ("method", "property"):
            members.add((entry.name, _call(entry)))
        if example is not None:
            shown.setdefault(example.example_id, n)
    return _join(head, sections, _FOOTER)


_PASS_THROUGH = "(*args, **kwargs)"


def _call(entry: ApiEntry) -> str:
    """How a method is called, whoever owns it: ``async`` or not, and its parameters after
    ``self`` (``(key, default=None)``)."""
    signature = entry.signature
    head, paren, rest = signature.partition("(")
    params = [p.strip() for p in rest.rsplit(")", 1)[0].split(",")] if paren else []
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    return ("async " if head.startswith("async ") else "") + f"({', '.join(params)})"


def _join(head: str, sections: list[str], footer: str) -> str:
    return "\n\n".join([head, *sections]) + "\n\n" + footer
