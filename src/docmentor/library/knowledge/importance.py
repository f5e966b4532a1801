"""How important each API is, in [0, 1]: what README.LLM keeps and ``find_api`` re-ranks with.

The score is a weighted sum of five factors, each in [0, 1] (the weights add up to 1):

========================  ======  ==========================================================
factor                    weight  value
========================  ======  ==========================================================
``exported``              0.25    1.0 for a top-level export (an alias ``pkg.name``: nothing
                                  between the package and the name); 0.6 for a member of a
                                  top-level class (``pkg.Class.method``) or of a class users
                                  get from one (a *product*, below) and that class itself,
                                  and for what a private
                                  module defines and a public namespace publishes
                                  (``trio.to_thread.run_sync``); 0 otherwise.
``examples``              0.30    doc examples that use it: ``log(1+n) / log(1+max(n))``,
                                  the maximum taken over the library (at least 3).
``prose``                 0.15    mentions in the docs' text outside code blocks, scaled the
                                  same way (at least 5), by the name it is defined with or a
                                  public path's last part, the most mentioned. A distinctive name (``Database``,
                                  ``to_list``: a capital, ``_`` or digit) counts wherever it
                                  is a word; a plain word (``connect``) only where it reads
                                  as code: ```connect```, ``connect(`` or ``.connect``,
                                  its count split among the APIs of that name (nine
                                  ``reset`` methods: a ninth each), unless its class is
                                  written before it (``HTTPResponse.stream``: that one's).
``docstring``             0.15    the mean of: a summary; every parameter described (or no
                                  parameters); the return value described (or nothing to
                                  return: classes, ``-> None``, attributes with a type).
``propagation``           0.15    one step over the other APIs' scores (the four factors
                                  above): a class gets the best score of the APIs that return
                                  it and of its own methods and properties (it is their
                                  receiver); a function or method returning a class gets
                                  nothing from it.
========================  ======  ==========================================================

A class's *products* are what users reach through it without naming it: the classes an
exported function or method (or a member of a product) returns — its return class, each
class of a union return — and what its instances give indexed or called (``db[name]``:
``__getitem__ -> Table | View``; ``obj(...)``: ``__call__``), from the surface's ``products``
(:func:`docmentor.library.surface.products.products`). Walked to a fixed point from the
exported APIs: ``Table`` is not re-exported, but ``Database.table`` returns it, so
``Table.insert_all`` counts as exported as ``Database.table`` does, and competes with it on
examples, prose and docstring. (Giving a product's members their producer's score as
propagation too was measured: lancedb MRR 0.7375 → 0.7292; not kept.)

A deprecated API (``ApiEntry.deprecated``) keeps a quarter of its score
(``ApiRankingConfig.deprecated_share``; every weight and floor here is a field of
:class:`~docmentor.library.find.config.ApiRankingConfig`): the docs may still use it everywhere, but it is not what to
learn. The factors are stored per API (``ApiEntry.importance_factors``), rounded to 4
places, so the knowledge base shows why an API ranks where it does.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.find.import_paths import import_path, private_path
from docmentor.library.models import ApiEntry, Example
from docmentor.parse.fences import outside_fences

__all__ = [
    "SCORING",
    "count_mentions",
    "prose_text",
    "public_path",
    "reached_products",
    "score_importance",
]

SCORING = "importance-v4"  # bump when the formula changes; recorded in the knowledge base

_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def public_path(entry: ApiEntry) -> str:
    """The path users import an API by, as find_api gives it (:func:`.import_path`): the
    shortest without a private part, the defining one first among those as short (an
    inherited attribute by the class that defines it, not by one of its subclasses)."""
    return import_path(entry.api_id, entry.aliases, entry.bound_names)


def prose_text(markdown: str) -> str:
    """``markdown`` without its fenced code blocks (inline code is kept: it is prose's code)."""
    return outside_fences(markdown)


def _distinctive(name: str) -> bool:
    return any(c.isupper() or c.isdigit() or c == "_" for c in name.lstrip("_"))


_SENTENCE_ENDS = frozenset(".!?")
_MARKERS = frozenset("*-+>#(0123456789")  # a list item's or a heading's opening, "1." and "(a)" too
_LOOK_BACK = 8  # spaces and a list marker ("- ", "1. ") between a sentence's end and its first word


def _opens_sentence(text: str, start: int, word: str) -> bool:
    """Whether ``word`` at ``start`` is a capitalised plain word opening a sentence, a paragraph
    or a list item ("If ``True``, …", "- Case matters"): a class named ``If`` or ``Case`` is
    not mentioned there, any more than ``Table`` is by "Table 2 shows". A line break inside a
    paragraph (text wrapped at 80 columns) opens nothing, nor does a label's colon ("Note:
    Session objects …"); a word with more than its first letter capitalised (``ValueError``,
    ``HTTPError``) is a name wherever it stands."""
    if not (word[:1].isupper() and word[1:].islower()):
        return False
    k = start - 1
    floor = max(-1, start - 1 - _LOOK_BACK)
    marked = False
    while k > floor and (text[k] in " \t" or text[k] in _MARKERS):
        marked = marked or text[k] in _MARKERS
        k -= 1
    if k < 0 or text[k] in _SENTENCE_ENDS:
        return True
    if text[k] != "\n":
        return False
    if marked:  # "- Case one", "## Table": a list item or heading opens with it
        return True
    j = k - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    # a wrapped line continues its sentence; after a blank line, a full stop or a line's
    # closing colon ("Returns:") a new one starts
    return j < 0 or text[j] in "\n:" or text[j] in _SENTENCE_ENDS


class _Mentions:
    """Identifier counts over prose: as words, and where they read as code."""

    def __init__(self, texts: Iterable[str], packages: frozenset[str] = frozenset()) -> None:
        self.words: Counter[str] = Counter()
        self.code: Counter[str] = Counter()
        self.qualified: Counter[str] = Counter()  # "Class.member" as written (its last two parts)
        for text in texts:
            for m in _DOTTED.finditer(text):
                parts = m.group(0).split(".")
                if len(parts) > 1:
                    self.qualified[".".join(parts[-2:])] += 1
                if len(parts) > 1 or not _opens_sentence(text, m.start(), parts[0]):
                    self.words.update(parts)
                called = text.startswith("(", m.end())
                # ``.name`` and ``name(`` read as code; so does every part after a dot, but
                # the modules of a path from the package down (``rich.console.Console``:
                # ``console`` is a module there, not rich's ``Status.console``)
                self.code.update(parts[-1:] if parts[0] in packages else parts[1:])
                if called and len(parts) == 1:
                    self.code[parts[0]] += 1
            for m in _INLINE_CODE.finditer(text):
                span = m.group(1).strip()
                if _IDENTIFIER.fullmatch(span):  # `connect` (`connect()` counted as a call above)
                    self.code[span] += 1

    def of(self, name: str) -> int:
        return self.words[name] if _distinctive(name) else self.code[name]


def count_mentions(texts: Iterable[str], entries: Iterable[ApiEntry]) -> dict[str, int]:
    """Mentions of each API's short name in prose (``api_id`` → count); see the module docstring.

    ``texts`` are the documents' texts with code blocks removed (:func:`prose_text`).
    """
    entries = list(entries)
    packages = frozenset(p.split(".")[0] for e in entries for p in (e.api_id, *e.aliases) if not e.foreign)
    mentions = _Mentions(texts, packages)
    shared = Counter(e.name for e in entries if e.kind != "module")
    # a plain name many APIs share (nine `reset` methods) is no mention of each of them
    # ... but `HTTPResponse.stream`, its class written before it, is a mention of that one
    class_names = {e.api_id: e.name for e in entries if e.kind == "class"}
    return {
        e.api_id: max(
            max(mentions.of(n) // (1 if _distinctive(n) else shared.get(n, 1) or 1) for n in _names(e)),
            mentions.qualified[f"{class_names[e.parent]}.{e.name}"] if e.parent in class_names else 0,
        )
        for e in entries
        if e.kind != "module"
    }


def _names(e: ApiEntry) -> set[str]:
    """The short names an API is known by: its own, and the last part of each public path
    (trio's ``to_thread_run_sync`` is ``trio.to_thread.run_sync``: the docs say ``run_sync``)."""
    return {e.name, *(a.rsplit(".", 1)[-1] for a in e.aliases)}


def _scaled(n: int, top: int, floor: int) -> float:
    if n <= 0:
        return 0.0
    return min(1.0, math.log1p(n) / math.log1p(max(top, floor)))


def _exported(entry: ApiEntry, by_id: Mapping[str, ApiEntry], package: str, member: float) -> float:
    paths = [entry.api_id, *entry.aliases]
    if any(p.count(".") == 1 and p.split(".")[0] == package for p in paths):
        return 1.0
    if entry.parent is not None:
        owner = by_id.get(entry.parent)
        if owner is not None and _exported(owner, by_id, package, member) == 1.0:
            return member
    elif private_path(entry.api_id) and any(_namespace_path(p, package) for p in entry.aliases):
        return member  # a private module's object a public namespace publishes (trio.to_thread.run_sync)
    return 0.0


def _namespace_path(path: str, package: str) -> bool:
    """``pkg.namespace.name``: a first-level public submodule's name."""
    parts = path.split(".")
    return len(parts) == 3 and parts[0] == package and not private_path(path)


_NOTHING_RETURNED = {"None", "NoReturn", "Never"}


def _docstring(entry: ApiEntry) -> float:
    summary = 1.0 if entry.description.strip() else 0.0
    params = [p for p in entry.parameters if p.name not in ("self", "cls")]
    documented = 1.0 if not params else sum(bool(p.description.strip()) for p in params) / len(params)
    if entry.kind in ("function", "method"):
        r = entry.returns
        nothing = r is None or (r.type or "").strip() in _NOTHING_RETURNED
        returns = 1.0 if nothing or (r is not None and r.description.strip()) else 0.0
    elif entry.kind in ("property", "attribute"):
        r = entry.returns
        returns = 1.0 if r is not None and (r.type or r.description.strip()) else 0.0
    else:
        returns = 1.0
    return (summary + documented + returns) / 3


def _produced(entry: ApiEntry, products: Mapping[str, Sequence[str]]) -> list[str]:
    """The classes calling (or reading) ``entry`` gives: its return class, a union's classes,
    the class of the items it returns (``-> list[Statement]``, ``Iterator[Row]``)."""
    out = list(products.get(entry.api_id, ()))
    if entry.returns is not None:
        out += [c for c in (entry.returns.class_id, entry.returns.item_class_id) if c]
    return out


def reached_products(
    entries: Sequence[ApiEntry], products: Mapping[str, Sequence[str]], package: str
) -> dict[str, str]:
    """Each product class (see the module docstring) → an API that produces it, walked
    breadth first from the exported APIs; a class exported itself is no product."""
    by_id = {e.api_id: e for e in entries}
    members: dict[str, list[ApiEntry]] = {}
    for e in entries:
        if e.parent is not None:
            members.setdefault(e.parent, []).append(e)
    # exported, or a member of an exported class (whatever weight the config gives members)
    exported = {e.api_id for e in entries if _exported(e, by_id, package, 1.0) > 0}
    reached: dict[str, str] = {}
    todo = [e for e in entries if e.api_id in exported]
    while todo:
        e = todo.pop()
        made = _produced(e, products)
        if e.kind == "class":
            made += [c for m in ("__getitem__", "__call__") for c in products.get(f"{e.api_id}.{m}", ())]
        for cls in made:
            target = by_id.get(cls)
            if target is None or target.kind != "class" or cls in reached or cls in exported:
                continue
            reached[cls] = e.api_id
            todo += [target, *members.get(cls, ())]
    return reached


def score_importance(
    surface_entries: Sequence[ApiEntry],
    examples: Sequence[Example],
    prose_mentions: Mapping[str, int],
    *,
    package: str | None = None,
    products: Mapping[str, Sequence[str]] | None = None,
    config: ApiRankingConfig = DEFAULT,
) -> None:
    """Fill ``importance_score`` and ``importance_factors`` of every entry, in place (the
    weights and floors of ``config``: ``importance_*``, ``member_of_exported``, …).

    Args:
        surface_entries: the library's API entries (one per ``api_id``).
        examples: the docs' examples, matched (``apis_used`` filled).
        prose_mentions: ``api_id`` → mentions in the docs' prose (:func:`count_mentions`).
        package: the top-level package; by default the first part of the first ``api_id``.
        products: the surface's ``products`` (``__getitem__``/``__call__`` and union returns).
    """
    if not surface_entries:
        return
    by_id = {e.api_id: e for e in surface_entries}
    package = package or surface_entries[0].api_id.split(".")[0]
    users: dict[str, set[str]] = {}
    for ex in examples:
        for api_id in ex.apis_used:
            users.setdefault(api_id, set()).add(ex.example_id)
    for e in surface_entries:
        users.setdefault(e.api_id, set()).update(e.examples)
    top_examples = max((len(v) for v in users.values()), default=0)
    top_mentions = max(prose_mentions.values(), default=0)

    weights = config.importance_weights()
    member = config.member_of_exported
    reached = reached_products(surface_entries, products or {}, package)
    factors: dict[str, dict[str, float]] = {}
    base: dict[str, float] = {}
    for e in surface_entries:
        exported = _exported(e, by_id, package, member)
        if e.parent in reached or e.api_id in reached:  # a class users get from a factory, its members
            exported = max(exported, member)
        f = {
            "exported": exported,
            "examples": _scaled(len(users.get(e.api_id, ())), top_examples, config.min_example_scale),
            "prose": _scaled(prose_mentions.get(e.api_id, 0), top_mentions, config.min_mention_scale),
            "docstring": _docstring(e),
        }
        factors[e.api_id] = f
        base[e.api_id] = sum(weights[k] * v for k, v in f.items()) / (1.0 - weights["propagation"])

    # One propagation step: classes inherit the importance of what returns them and of
    # what they are the receiver of.
    propagated: dict[str, float] = {}
    for e in surface_entries:
        targets: list[str] = []
        if e.returns is not None and e.returns.class_id and e.returns.class_id != e.parent:
            targets.append(e.returns.class_id)
        if e.parent is not None:
            targets.append(e.parent)
        for t in targets:
            if t in by_id and t != e.api_id:
                propagated[t] = max(propagated.get(t, 0.0), base[e.api_id])

    for e in surface_entries:
        f = factors[e.api_id]
        f["propagation"] = propagated.get(e.api_id, 0.0)
        score = sum(weights[k] * v for k, v in f.items())
        if e.deprecated:
            score *= config.deprecated_share
        e.importance_factors = {k: round(v, 4) for k, v in f.items()}
        e.importance_score = round(min(1.0, max(0.0, score)), 4)
