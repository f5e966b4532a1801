"""What the model's document of a unit must hold: the sections of its granularity's format
(``prompts.FORMATS``), each required unless the code leaves it nothing to say, and a
conditional one absent when the code does not call for it. VERIFY (``verify.py``) and
``repodocs evaluate`` (``evaluate_checks.py``) read the same rules, so a document the agent
verified is not then marked down by the evaluation for its sections.
"""

from __future__ import annotations

from collections.abc import Mapping

from docmentor.repodocs.code_facts import CodeFacts
from docmentor.repodocs.deterministic import has_returns, receiver_free
from docmentor.repodocs.prompts import FORMATS
from docmentor.repodocs.units import Component, Module, Package, Unit, is_public

__all__ = [
    "ARGS_NAMES",
    "CONDITIONAL",
    "granularity",
    "has_mermaid",
    "model_section",
    "model_sections",
    "title",
]

ARGS_NAMES = ("args", "arguments", "parameters")
# sections that must be absent when the code does not call for them
CONDITIONAL = frozenset({"args", "returns", "yields", "raises"})
_TITLES = {"public api": "Public API"}


def granularity(unit: Unit) -> str:
    """The unit's format name: a component's kind, module, package or repository."""
    if isinstance(unit, Component):
        return unit.kind
    if isinstance(unit, Module):
        return "module"
    return "package" if isinstance(unit, Package) else "repository"


def title(name: str) -> str:
    """A section's name as a heading says it (``public api`` → ``Public API``)."""
    return _TITLES.get(name, name.title())


def model_sections(unit: Unit, facts: CodeFacts, components: Mapping[str, Unit]) -> list[tuple[str, bool]]:
    """(section, required) pairs of the model's format of ``unit``'s granularity, each required
    unless the code leaves it nothing to say: Args without parameters, Returns without a
    return value or ``yield``, Raises without a ``raise``; a class's Attributes and Methods
    without any; a module's Diagram without components, Public API without public ones,
    Dependencies without imports (its Components is required: "none" is something to say).
    ``components``: the repository's units by id (a module's components are looked up)."""
    when: dict[str, bool] = {}
    if isinstance(unit, Component) and unit.kind != "class":
        when = {
            "args": bool(receiver_free(unit)),
            "returns": has_returns(unit, facts) or unit.id in facts.yields,
            "raises": bool(unit.raises),
        }
    elif isinstance(unit, Component):
        when = {
            "args": bool(unit.parameters),
            "attributes": bool(unit.attributes),
            "methods": bool(unit.members),
        }
    elif isinstance(unit, Module):
        public = any(isinstance(c, Component) and is_public(c) for c in map(components.get, unit.components))
        when = {"diagram": bool(unit.components), "public api": public, "dependencies": bool(unit.imports)}
    return [(name.lower(), when.get(name.lower(), True)) for name in FORMATS[granularity(unit)]]


def model_section(found: Mapping[str, list[str]], name: str) -> list[str] | None:
    """The lines of section ``name`` of a model's document (``found``: ``verify.sections``);
    Args may be headed Arguments or Parameters, Returns may be Yields. None: absent."""
    if name == "args":
        return next((found[n] for n in ARGS_NAMES if n in found), None)
    if name == "returns":
        return found.get("returns", found.get("yields"))
    return found.get(name)


def has_mermaid(lines: list[str]) -> bool:
    return any(line.strip().startswith(("```mermaid", "~~~mermaid")) for line in lines)
