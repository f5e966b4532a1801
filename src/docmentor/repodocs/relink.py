"""A model's links rewritten for the page of the Markdown tree its document is placed on.

The model is asked to link a unit's document as ``[`id`](id.md)`` (``prompts.py``) and may link
a page of the tree (``modules/x.md``) or a file of the repository (``src/pkg/mod.py``), not
knowing where its document will be. On the tree, a unit's document is a page or a section of
its module's page (``deterministic.Layout``), and the tree may be written outside the
repository. So, outside fenced code blocks:

- ``(id.md)`` / ``(id.md#x)`` → the relative link to that unit's page and anchor;
- a page of the tree (after any ``./``/``../``) → relative to the page the document is on;
- a file of the repository → the link's text followed by the path as code (``text
  (`path`)``), as the code's documents cite source (a link out of the tree would break when
  the tree is copied or served elsewhere);
- web, ``mailto:`` and in-page (``#x``) links, and targets that name nothing, are kept.

One pass over each line, each character read a bounded number of times (no backtracking).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Links", "relink"]

_TARGET = re.compile(r"\]\(([^()\s]{1,300})\)")
_FENCES = ("```", "~~~")


@dataclass(frozen=True)
class Links:
    """Where the tree puts things: each unit's page and anchor, and the repository's files."""

    pages: Mapping[str, str]  # unit id → page under the tree (index.md, modules/x.md)
    anchors: Mapping[str, str]  # component id → anchor on its module's page
    files: frozenset[str]  # paths of the repository's files, "/"-separated

    def href(self, unit_id: str, from_page: str) -> str:
        prefix = "" if from_page == "index.md" else "../"
        anchor = self.anchors.get(unit_id)
        return prefix + self.pages[unit_id] + (f"#{anchor}" if anchor else "")


def relink(document: str, from_page: str, links: Links) -> str:
    """``document`` (a model's Markdown) with its links made to work from ``from_page``."""
    lines = document.split("\n")
    fenced = False
    tree_pages = frozenset(links.pages.values())
    for i, line in enumerate(lines):
        if line.lstrip().startswith(_FENCES):
            fenced = not fenced
            continue
        if not fenced and "](" in line:
            lines[i] = _line(line, from_page, links, tree_pages)
    return "\n".join(lines)


def _line(line: str, from_page: str, links: Links, tree_pages: frozenset[str]) -> str:
    out: list[str] = []
    done = 0  # line[:done] is in out
    floor = 0  # no "[" was looked for before this
    for m in _TARGET.finditer(line):
        target = m.group(1)
        if "://" in target or target.startswith(("mailto:", "#")):
            continue
        bare, _, fragment = target.partition("#")
        while bare.startswith(("../", "./")):
            bare = bare[3:] if bare.startswith("../") else bare[2:]
        if bare.endswith(".md") and bare[:-3] in links.pages:
            new = links.href(bare[:-3], from_page)
        elif bare in tree_pages:
            new = ("" if from_page == "index.md" else "../") + bare + (f"#{fragment}" if fragment else "")
        elif bare in links.files:
            start = line.rfind("[", max(done, floor), m.start())
            floor = m.end()
            if start < 0:
                continue
            text = line[start + 1 : m.start()]
            shown = text if bare in text else f"{text} (`{bare}`)"
            out.append(line[done:start] + shown)
            done = m.end()
            continue
        else:
            continue
        out.append(line[done : m.start()] + f"]({new})")
        done = m.end()
    out.append(line[done:])
    return "".join(out)
