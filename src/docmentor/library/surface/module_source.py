"""The text of a package module's source file, for the passes that read what griffe's
visitor leaves out (assigned docstrings, platform branches)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import griffe

__all__ = ["MAX_SOURCE_BYTES", "module_text"]

MAX_SOURCE_BYTES = 2_000_000  # a larger module is generated data, not read for these passes


def module_text(mod: Any, *, stubs: bool = True) -> str | None:
    """The module's Python source (a ``.py`` file, a ``.pyi`` too unless ``stubs`` is false),
    read past a byte-order mark; None for a compiled or builtin module, a file over
    :data:`MAX_SOURCE_BYTES`, or one that cannot be read as UTF-8."""
    try:
        path = mod.filepath
    except griffe.BuiltinModuleError:
        return None
    if not isinstance(path, Path) or path.suffix not in ((".py", ".pyi") if stubs else (".py",)):
        return None
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
