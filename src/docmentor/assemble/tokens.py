"""Exact, offline token counts for the digest budget (``toktok-rs``; its BPE tables are compiled in)."""

from __future__ import annotations

from collections.abc import Sequence

import toktok

from docmentor.errors import UsageError

DEFAULT_ENCODING = "o200k_base"
# The exact encodings toktok bundles (its 'jev' is an estimate, so it is not offered).
ENCODINGS: tuple[str, ...] = ("o200k_base", "cl100k_base", "o200k_harmony", "qwen3.5")

# Worker threads cost more than they save on the small texts a digest is made of.
_PARALLEL_CHARS = 1_000_000


def check_encoding(encoding: str) -> str:
    """Return ``encoding`` if toktok can count it exactly.

    Raises:
        UsageError: for an unknown encoding, listing the valid ones.
    """
    if encoding not in ENCODINGS:
        raise UsageError(
            f"unknown token encoding {encoding!r}",
            hint=f"use one of: {', '.join(ENCODINGS)}",
        )
    return encoding


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Exact number of tokens of ``text`` in ``encoding`` (special-token strings count as text)."""
    return count_many([text], encoding)[0]


def count_many(texts: Sequence[str], encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Exact token count of each text, in order."""
    check_encoding(encoding)
    if not texts:
        return []
    threads = 0 if sum(map(len, texts)) >= _PARALLEL_CHARS else 1
    return list(toktok.batch_count(list(texts), encoding, threads=threads))
