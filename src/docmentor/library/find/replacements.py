"""What replaces a deprecated API: the current APIs its deprecation reason names, which
find_api lifts above it (:mod:`docmentor.library.find.retrieval`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.models import ApiEntry

# names a deprecation reason may point at: "use name" first, then `code`, :role:`target`, call()
_USE_NAME = re.compile(r"\b(?:[Uu]se|[Cc]all|[Ss]ee)\s+(?::\w+:)?[`'\"]*~?([A-Za-z_][\w.]*)")
_REASON_NAMES = re.compile(r"`(?::\w+:`)?~?([A-Za-z_][\w.]*)|([A-Za-z_][\w.]*)\(")


def replacements(
    resolver: MentionResolver,
    position: Mapping[tuple[str, str], int],
    entries: Sequence[tuple[str, ApiEntry]],
    library: str,
    e: ApiEntry,
) -> list[int]:
    """Positions of the current APIs a deprecation reason names (``Use create_index()
    with config=FTS()`` → ``Table.create_index``, ``FTS``), siblings of the class first."""
    context = [e.parent] if e.parent else []
    reason = e.deprecated or ""
    names = [m.group(1) for m in _USE_NAME.finditer(reason)]
    names += [next(g for g in m.groups() if g) for m in _REASON_NAMES.finditer(reason)]
    out: list[int] = []
    for name in names:
        for api in sorted(resolver.resolve(name, context)):
            i = position.get((library, api))
            if i is None or i in out:
                continue
            other = entries[i][1]
            # not itself, nor a same-named copy of it (pydantic.v1's), nor deprecated
            if other.name != e.name and not other.deprecated:
                out.append(i)
    return out
