"""A library's extension points: the classes it subclasses itself and the members those
subclasses override, which a task to write "my own" one asks for
(:mod:`docmentor.library.find.retrieval`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from docmentor.library.models import ApiEntry

# "write my own class that a client hands each request to", "define my own parameter type":
# a task to implement is answered by what the library's own implementations subclass
# (BaseTransport, ParamType, BaseLoader, Extension) and the members they override
# (handle_request, convert), weighed ``extension_weight`` (:mod:`.config`). "its own
# credentials", "their own templates" ask for no such thing.
# "my own", "subclass it", "by subclassing"; not "is a subclass of" (a question about types)
OWN_INTENT = re.compile(r"\bmy own\b|\bsubclass(?:ing|es)?\b(?! of\b)", re.I)
_FOREIGN_BASE_MODULES = frozenset(
    {"typing", "typing_extensions", "t", "abc", "enum", "collections", "builtins"}
)
_FOREIGN_BASE_NAMES = frozenset(
    {"object", "Protocol", "Generic", "TypedDict", "NamedTuple", "ABC", "Enum", "IntEnum", "StrEnum",
     "Flag", "IntFlag", "Exception", "BaseException"}
)  # fmt: skip


def extension_points(
    entries: Sequence[tuple[str, ApiEntry]], secondary: AbstractSet[int], min_subclasses: int
) -> set[int]:
    """Positions of the classes their library subclasses ``min_subclasses`` times or more,
    and of the members those subclasses override. A base is the library's class of
    that name; of several so named, the one whose module shares the longest prefix with
    the subclass's, a first-hand copy before a mirror's (pydantic's `BaseModel` and
    `v1.BaseModel`); none when still undecided. `typing`, `abc` and `enum` bases and
    the builtins' names (`Protocol`, `Generic`, `Exception`) are no library's class."""
    by_name: dict[tuple[str, str], list[int]] = {}
    for i, (lib, e) in enumerate(entries):
        if e.kind == "class":
            by_name.setdefault((lib, e.name), []).append(i)

    def module(i: int) -> list[str]:
        return entries[i][1].api_id.split(".")[:-1]

    def shared(a: list[str], b: list[str]) -> int:
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n

    subclasses: dict[int, list[int]] = {}
    for i, (lib, e) in enumerate(entries):
        if e.kind != "class":
            continue
        for written in e.bases:
            path = written.split("[", 1)[0].strip()
            head, _, name = path.rpartition(".")
            if head.split(".")[0] in _FOREIGN_BASE_MODULES or name in _FOREIGN_BASE_NAMES:
                continue
            found = [j for j in by_name.get((lib, name), ()) if j != i]
            if len(found) > 1:
                rank = {j: (shared(module(j), module(i)), j not in secondary) for j in found}
                best = max(rank.values())
                found = [j for j in found if rank[j] == best]
            if len(found) == 1:
                subclasses.setdefault(found[0], []).append(i)
    members: dict[tuple[str, str], dict[str, int]] = {}  # (library, class) → member name → position
    for i, (lib, e) in enumerate(entries):
        if e.parent:
            members.setdefault((lib, e.parent), {})[e.name] = i
    points: set[int] = set()
    for j, subs in subclasses.items():
        if len(subs) >= min_subclasses:
            points.add(j)
            lib = entries[j][0]
            own = members.get((lib, entries[j][1].api_id), {})
            for k in subs:
                for name in members.get((lib, entries[k][1].api_id), {}):
                    if name in own:
                        points.add(own[name])
    return points
