"""Checks across a page's Python examples: undefined names and forward references.

Also the content metric *executable examples*: a Python block counts when it parses,
does something (has an import or a call), and every name it uses is a builtin or is
defined or imported in it or in an earlier block of the page (or in setup code hidden
in an HTML comment, or after a ``from x import *``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from docmentor.clarity.checks._page import Page, page_of
from docmentor.clarity.checks._registry import check
from docmentor.clarity.checks.python import (
    WILDCARD,
    PyExample,
    analyse,
    hidden_definitions,
    untagged_definitions,
)
from docmentor.clarity.models import CheckedDocument, Issue

_FRAGMENT_NAMES_SHOWN = 5


@dataclass(slots=True)
class NameFinding:
    name: str
    example: PyExample
    source_line: int
    forward: bool  # defined in a later block


def name_findings(page: Page) -> list[NameFinding]:
    """First use of each name that no earlier block defines (cached on the page)."""
    cached = page.cache.get("names")
    if cached is not None:
        return cached
    examples = [ex for ex in analyse(page) if not ex.skipped]
    defined = hidden_definitions(page)
    untagged = untagged_definitions(page)  # by block index: read in order, never checked
    last_def: dict[str, int] = {}  # the last block defining each name (linear, not a set per block)
    for ex in examples:
        for name in ex.defines:
            last_def[name] = ex.index
    for index, names in untagged.items():
        for name in names:
            last_def[name] = max(last_def.get(name, -1), index)
    findings: list[NameFinding] = []
    seen: set[str] = set()
    wildcard = WILDCARD in defined  # set-up code's `from typing import *`
    before = sorted(untagged)
    for ex in examples:
        while before and before[0] < ex.index:
            defined |= untagged[before.pop(0)]
        if not (wildcard or ex.opaque or ex.wildcard):  # after ``import *`` anything may be defined
            for name, line in sorted(ex.uses.items(), key=lambda t: (t[1], t[0])):
                if name in defined or name in seen:
                    continue
                seen.add(name)
                findings.append(NameFinding(name, ex, line, forward=last_def.get(name, -1) > ex.index))
        defined |= ex.defines
        wildcard = wildcard or ex.wildcard
    page.cache["names"] = findings
    return findings


def executable_examples(page: Page) -> int:
    """How many Python blocks are complete programs (see the module docstring)."""
    defined = hidden_definitions(page)
    untagged = untagged_definitions(page)
    before = sorted(untagged)
    wildcard = WILDCARD in defined
    count = 0
    for ex in analyse(page):
        while before and before[0] < ex.index:
            defined |= untagged[before.pop(0)]
        if ex.skipped:
            continue
        does_something = ex.tree is not None and (ex.imports or ex.has_call)
        if does_something and (wildcard or all(n in defined for n in ex.uses)):
            count += 1
        defined |= ex.defines
        wildcard = wildcard or ex.wildcard
    return count


@check("undefined-names")
def undefined_names(doc: CheckedDocument) -> Iterator[Issue]:
    """Python examples that use a name the page never defines or imports, or defines only later.

    The page's Python blocks are read in order; a name is fine when it is a builtin, or is
    bound (assigned, imported, def/class, loop or ``with`` target) in the block itself or
    in an earlier one. Names defined only in a later block are forward references
    (``logical_flow``); names never defined are ``completeness`` problems. One issue per
    name per page, at its first use. ``self``, ``cls``, ``_``, dunders and REPL helpers
    (``display``) are ignored. A page whose examples import nothing at all is a page of
    fragments: it gets one issue that lists the names instead of one per name.
    """
    page = page_of(doc)
    findings = name_findings(page)
    if not findings:
        return
    fragments = not any(ex.imports or ex.wildcard for ex in analyse(page))
    forward = [f for f in findings if f.forward]
    undefined = [f for f in findings if not f.forward]
    for f in forward:
        yield _name_issue(page, f, forward=True)
    if fragments and len(undefined) > 1:
        first = undefined[0]
        names = [f.name for f in undefined]
        shown = ", ".join(f"`{n}`" for n in names[:_FRAGMENT_NAMES_SHOWN])
        more = f" and {len(names) - _FRAGMENT_NAMES_SHOWN} more" if len(names) > _FRAGMENT_NAMES_SHOWN else ""
        line = page.code_line(first.example.index, first.example.content_offset(first.source_line))
        yield page.issue(
            type="undefined_name",
            severity="warning",
            dimensions=["completeness"],
            line=line,
            message=(
                f"The examples are fragments: {shown}{more} are used but never defined or "
                "imported on this page"
            ),
            suggested_fix="Add one complete example with the imports and setup the fragments rely on.",
            quote=_quote(page, first),
            effort="medium",
        )
        return
    for f in undefined:
        yield _name_issue(page, f, forward=False)


def _quote(page: Page, f: NameFinding) -> str:
    offset = f.example.content_offset(f.source_line)
    lines = page.code_blocks[f.example.index].code.split("\n")
    return lines[offset] if 0 <= offset < len(lines) else ""


def _name_issue(page: Page, f: NameFinding, *, forward: bool) -> Issue:
    line = page.code_line(f.example.index, f.example.content_offset(f.source_line))
    if forward:
        return page.issue(
            type="forward_reference",
            severity="warning",
            dimensions=["logical_flow"],
            line=line,
            message=f"`{f.name}` is used before the example that defines it (it is defined further down)",
            suggested_fix=f"Move the code that defines `{f.name}` before its first use, or reorder the steps.",
            quote=_quote(page, f),
            effort="medium",
        )
    return page.issue(
        type="undefined_name",
        severity="warning",
        dimensions=["completeness"],
        line=line,
        message=f"`{f.name}` is used but never defined or imported in this page's examples",
        suggested_fix=f"Show where `{f.name}` comes from (its import or the code that creates it).",
        quote=_quote(page, f),
        effort="low",
    )
