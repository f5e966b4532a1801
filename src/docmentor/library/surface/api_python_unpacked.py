"""Names a module binds by unpacking, which griffe's visitor skips.

``(YEARLY, MONTHLY, WEEKLY) = list(range(3))`` and ``MO, TU = weekdays = (...)`` bind public
constants (listed in ``__all__``, used by the docs) that static reading never saw: the
catalog lacked them and drift reported the docs' correct ``rrule.YEARLY`` as missing. Each
such name becomes an attribute of its module, valued when the right side is a tuple or
list written out with as many items.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import griffe

__all__ = ["add_unpacked"]

# a line that may open an unpacking assignment (`A, B =`, `(A,`, `[A,`): only such modules
# are parsed again; anchored, one pass over the line
_MAY_UNPACK = re.compile(r"(?:[(\[][ \t]*)?[A-Za-z_]\w*[ \t]*,")  # at the line's start: top level only


def add_unpacked(modules: Iterable[Any]) -> int:
    """Add to each of ``modules`` the names its top level binds by unpacking and griffe
    left out; returns how many were added. A module that cannot be read is left as is."""
    added = 0
    for mod in modules:
        try:
            filepath = mod.filepath
        except griffe.BuiltinModuleError:
            continue
        if not isinstance(filepath, Path) or filepath.suffix not in (".py", ".pyi"):
            continue
        try:
            text = filepath.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not any(_MAY_UNPACK.match(line) for line in text.splitlines()):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign):
                added += _bind(mod, node)
    return added


def _bind(mod: Any, node: ast.Assign) -> int:
    added = 0
    if not any(isinstance(t, ast.Tuple | ast.List) for t in node.targets):
        return 0  # griffe read it
    for target in node.targets:
        if isinstance(target, ast.Name) and target.id not in mod.members:
            # `weekdays` of `MO, TU = weekdays = …`: griffe skipped the whole statement
            written = ast.unparse(node.value)
            mod.set_member(
                target.id,
                griffe.Attribute(
                    target.id,
                    value=written if len(written) <= 80 else None,
                    lineno=node.lineno,
                    endlineno=node.end_lineno,
                ),
            )
            added += 1
        if not isinstance(target, ast.Tuple | ast.List):
            continue
        items = node.value.elts if isinstance(node.value, ast.Tuple | ast.List) else None
        if items is not None and (
            len(items) != len(target.elts) or any(isinstance(i, ast.Starred) for i in items)
        ):
            items = None
        for k, name in enumerate(target.elts):
            if not isinstance(name, ast.Name) or name.id in mod.members:
                continue
            item = ast.unparse(items[k]) if items is not None else None
            mod.set_member(
                name.id,
                griffe.Attribute(name.id, value=item, lineno=node.lineno, endlineno=node.end_lineno),
            )
            added += 1
    return added
