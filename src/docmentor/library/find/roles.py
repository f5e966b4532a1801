"""What find_api weighs by the surface's facts about what users call: the weight of each API
the surface marks as no API users call, and whether a task asks for a command line.

The facts are on the catalog entries (:class:`~docmentor.library.models.ApiEntry`, read by
:mod:`docmentor.library.surface.api_python_roles`): ``internal`` (a module-level helper or
constant nothing publishes, a marker class, a sentinel, a type variable),
``instance_attribute`` (data assigned on ``self`` in ``__init__``) and ``command`` (a
function a decorator made into a CLI command object, or registered on an application
object that runs it). Each counts × its own field of
:class:`~docmentor.library.find.config.ApiRankingConfig` (``internal_weight``,
``instance_attribute_weight``, ``command_weight``), after the fusion, as data does
(``attribute_weight``).

A CLI command object is what a user runs from a shell, not what code calls: for a task
worded as code it counts × ``command_weight`` instead of as data (``attribute_weight``); for
a task worded as a command line (:data:`COMMAND_INTENT`: "command line", "CLI", "terminal",
"from the shell") it is the answer's kind and is not weighed. A command object is judged as
a command only: one nothing publishes (``internal`` "helper" too, as command modules rarely
list their commands) is not weighed as an internal besides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docmentor.library.find.config import DEFAULT, ApiRankingConfig
from docmentor.library.models import ApiEntry

__all__ = ["COMMAND_INTENT", "ERROR_INTENT", "asks_for_command", "asks_for_error", "is_data", "role_weights"]

# a task worded as a command a user runs, not as code: fixed words, one pass (linear time)
COMMAND_INTENT = re.compile(
    r"\b(?:command[- ]?line|cli|terminal|console command|(?:from|in) (?:the|a) shell)\b", re.IGNORECASE
)


# a task that asks which exception (not how to raise one): "which error is raised when…",
# "the exception raised when…", "which exception do I catch…"; fixed words, one pass
ERROR_INTENT = re.compile(
    r"\b(?:which|what) (?:exception|error)s?\b"
    r"|\b(?:exception|error)s? (?:is |gets |are )?(?:raised|thrown) (?:when|if)\b"
    r"|\b(?:exception|error)s? (?:do|should|can|would) (?:i|we|you) catch\b",
    re.IGNORECASE,
)


def asks_for_error(task: str) -> bool:
    """Whether a task asks which exception the library raises (:data:`ERROR_INTENT`)."""
    return ERROR_INTENT.search(task) is not None


def asks_for_command(task: str) -> bool:
    """Whether a task is worded as a command line ("run it from the terminal")."""
    return COMMAND_INTENT.search(task) is not None


def is_data(e: ApiEntry) -> bool:
    """Data a user reads rather than calls (``attribute_weight``): attributes, read-only
    properties and modules. A CLI command object is no data (``command_weight``)."""
    if e.command:
        return False
    return e.kind in ("attribute", "module") or (e.kind == "property" and e.writable is False)


def role_weights(
    entries: Sequence[ApiEntry], config: ApiRankingConfig = DEFAULT
) -> tuple[dict[int, float], frozenset[int]]:
    """Per position of ``entries``: the weight its facts give it for any task (internal ×
    ``internal_weight`` unless a command object, instance attribute × ``instance_attribute_weight``; only those not
    1.0), and the positions of CLI command objects (× ``command_weight`` for a task worded as
    code: the caller decides, :func:`asks_for_command`)."""
    weights: dict[int, float] = {}
    commands: set[int] = set()
    for i, e in enumerate(entries):
        w = 1.0
        if e.internal and not e.command:  # a command object nothing publishes is still a command
            w *= config.internal_weight
        if e.instance_attribute:
            w *= config.instance_attribute_weight
        if w != 1.0:
            weights[i] = w
        if e.command:
            commands.add(i)
    return weights, frozenset(commands)
