"""The link check of repository documentation: every relative link of the Markdown tree
(outside code blocks and spans, its ``]`` not escaped) leads to a file of the tree and, with
an anchor, to an ``<a id>`` or a heading of that file (web and ``mailto:`` links are not
checked). Each failure is named by the unit whose document holds the link."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from docmentor.repodocs.evaluate_metrics import Failure, Metric

__all__ = ["link_metric"]

_LINK = re.compile(r"\]\(([^()\s]{1,400})\)")  # a Markdown link's target: bounded, linear
_ANCHOR = re.compile(r'<a id="([^"<>]{1,200})"')


def link_metric(out: Path, places: dict[tuple[str, str | None], str]) -> Metric:
    """Every relative link of every page, its failure named by the unit whose document holds
    it (the page's unit, or the component of the latest ``<a id>`` above it) or else the page."""
    anchors: dict[Path, set[str]] = {}
    checked = 0
    failures: list[Failure] = []
    for page in sorted(p for p in out.rglob("*.md") if p.is_file()):
        rel = page.relative_to(out).as_posix()
        for anchor, target in _link_targets(page.read_text(encoding="utf-8", errors="replace")):
            checked += 1
            problem = _link_problem(out, page, target, anchors)
            if problem:
                unit = places.get((rel, anchor)) or places.get((rel, None)) or rel
                failures.append(Failure(unit, f"{problem}: {target} (in {rel})"))
    return Metric("links", checked, checked - len(failures), tuple(failures))


def _link_targets(text: str) -> list[tuple[str | None, str]]:
    """(the latest ``<a id>`` above it, target) of each link not to the web."""
    out: list[tuple[str | None, str]] = []
    fenced = False
    anchor: str | None = None
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        found = _ANCHOR.match(line)
        if found:
            anchor = found.group(1)
        for i, piece in enumerate(line.replace("\\`", "").split("`")):
            if i % 2 == 0:  # outside code spans
                out += [
                    (anchor, m.group(1))
                    for m in _LINK.finditer(piece)
                    if not _escaped(piece, m.start()) and not _external(m.group(1))
                ]
    return out


def _escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd number of backslashes."""
    count = 0
    while at - count > 0 and text[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _external(target: str) -> bool:
    return "://" in target or target.startswith(("mailto:", "data:"))


def _link_problem(out: Path, page: Path, target: str, anchors: dict[Path, set[str]]) -> str | None:
    path, _, anchor = (unquote(part) for part in target.partition("#"))
    dest = (page.parent / path).resolve() if path else page
    if not dest.is_relative_to(out):
        return "link out of the documentation folder"
    if not dest.is_file():
        return "link to no file"
    if anchor:
        if dest not in anchors:
            anchors[dest] = _anchors(dest.read_text(encoding="utf-8", errors="replace"))
        if anchor not in anchors[dest]:
            return "link to no anchor"
    return None


def _anchors(text: str) -> set[str]:
    """``<a id>`` anchors and GitHub-style heading slugs (lower case, punctuation dropped,
    spaces as ``-``)."""
    found = {m.group(1) for m in _ANCHOR.finditer(text)}
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip().lower()
            found.add("".join(ch for ch in heading if ch.isalnum() or ch in "-_ ").replace(" ", "-"))
    return found
