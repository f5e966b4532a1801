"""Byte counts as people read them, for the messages about size caps and budgets."""

from __future__ import annotations


def human_size(n: int) -> str:
    """``n`` bytes as ``1.5 MB``, ``2.0 KB`` or ``512 bytes`` (decimal units, one decimal)."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    return f"{n / 1000:.1f} KB" if n >= 1000 else f"{n} bytes"
