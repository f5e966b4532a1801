"""The results evaluating repository documentation is made of: one failing check
(``Failure``), a metric's count of checks that passed (``Metric``) and a run's READ
statistics (``ReadStats``); each a frozen record whose ``to_dict()`` is its JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Failure", "Metric", "ReadStats"]


@dataclass(frozen=True, slots=True)
class Failure:
    """One failing check: the unit (or Markdown file, for a link) and what is wrong."""

    unit: str
    what: str

    def to_dict(self) -> dict[str, str]:
        return {"unit": self.unit, "what": self.what}


@dataclass(frozen=True, slots=True)
class Metric:
    """``passed`` of ``checked`` checks passed; ``failures`` lists the others."""

    name: str
    checked: int
    passed: int
    failures: tuple[Failure, ...] = ()

    @property
    def value(self) -> float:
        """The fraction that passed (1.0 when nothing was checked)."""
        return self.passed / self.checked if self.checked else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": round(self.value, 6),
            "checked": self.checked,
            "passed": self.passed,
            "failures": [f.to_dict() for f in self.failures],
        }


@dataclass(frozen=True, slots=True)
class ReadStats:
    """A run's READ actions: how many, how many repeated an earlier READ of the same unit, how
    many were answered from the cache, and the cache's hit count."""

    reads: int
    repeated: int
    cached: int
    cache_hits: int
    repeats: tuple[Failure, ...] = ()

    @property
    def redundant_rate(self) -> float:
        return self.repeated / self.reads if self.reads else 0.0

    @property
    def cached_rate(self) -> float:
        return self.cached / self.reads if self.reads else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "reads": self.reads,
            "repeated": self.repeated,
            "redundant_rate": round(self.redundant_rate, 6),
            "cached": self.cached,
            "cached_rate": round(self.cached_rate, 6),
            "cache_hits": self.cache_hits,
            "repeats": [f.to_dict() for f in self.repeats],
        }
