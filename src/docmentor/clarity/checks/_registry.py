"""The one list of checks, filled by the ``@check("name")`` decorator."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from docmentor.clarity.models import CheckedDocument, Issue

CheckFunction = Callable[[CheckedDocument], Iterable[Issue]]


@dataclass(frozen=True, slots=True)
class Check:
    """A registered check: called like the function it wraps."""

    name: str
    func: CheckFunction

    @property
    def description(self) -> str:
        """What the check catches: the first paragraph of its docstring."""
        doc = (self.func.__doc__ or "").strip()
        return " ".join(doc.split("\n\n", 1)[0].split())

    def __call__(self, doc: CheckedDocument) -> Iterable[Issue]:
        return self.func(doc)


CHECKS: list[Check] = []


def check(name: str) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check under ``name``; the function is returned unchanged."""

    def register(func: CheckFunction) -> CheckFunction:
        if any(c.name == name for c in CHECKS):
            raise ValueError(f"duplicate check name: {name}")
        CHECKS.append(Check(name, func))
        return func

    return register
