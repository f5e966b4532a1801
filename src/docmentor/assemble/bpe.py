"""Exact o200k_base / cl100k_base token counts in plain Python, for short-lived processes.

toktok builds its o200k_base tables on first use: ~0.3 s holding the GIL, more than the rest
of a `docmentor assemble` call. This counter gives the same numbers without that start-up:

- **Pre-tokenization** runs the encoding's own split pattern, rewritten over a *class string*:
  ASCII stays itself and every other character becomes a stand-in of its Unicode class
  (upper/lower/other letter, mark, number, white space, other), so Python's ``re`` splits
  exactly where the tokenizer's Unicode-aware pattern does, with a pattern that compiles in
  about a millisecond.
- **BPE** merges each piece's UTF-8 bytes by rank, lowest first and leftmost on ties, as
  tiktoken and toktok do; pieces, and lines, seen before in this process are not counted again.
- **The vocabulary** (token bytes → rank) is read from a cache file derived once from
  toktok's own tables (:func:`build`), checked whole by CRC-32 (~1 ms). Its 2¹⁶ buckets are
  unmarshalled only when a lookup needs them: an assemble call touches ~4,000 of them, a few
  percent of the vocabulary, where building the whole dict would take ~45 ms.

Characters whose class could differ between Python's Unicode tables and toktok's (unassigned
here, or moved to another class since Unicode 3.2) make :meth:`Counter.count_many` answer ``None``,
and so do very long pieces; the caller then counts with toktok itself.

Why keep a second tokenizer: measured with ``.venv/bin/python benchmarks/bench_fast_paths.py bpe``
(2 CPUs, Python 3.11, 2026-11-28), ``docmentor assemble`` (a 4,000-token digest over
tests/fixtures/httpx) as a fresh process takes 250 ms counting with this module (15 ms of it
counting) and 681 ms with toktok (412 ms counting, nearly all of it the table build); 262 vs
755 ms on a busier machine. Every CLI ``assemble`` would be ~0.4 s slower without it. That it
counts what toktok counts is tested in tests/test_assemble_tokens.py against toktok itself: the
fixture documents, token bytes around every class of character, random texts over a tricky
alphabet (hypothesis), edge cases, and what it declines; and a whole digest comes out the
same either way (``test_assembly_with_a_warm_cache_never_loads_toktok``).
"""

from __future__ import annotations

import array
import marshal
import re
import struct
import sys
import zlib
from collections.abc import Callable, Sequence
from itertools import accumulate, chain, pairwise
from typing import Final

FORMAT: Final = 1
MAGIC: Final = b"DMBPE\x00\r\n"  # the CR LF catches a text-mode copy
ENCODINGS: Final = ("o200k_base", "cl100k_base")
_BUCKETS: Final = 1 << 16
_MASK: Final = _BUCKETS - 1
_HEAD = struct.Struct("<8sII")  # magic, length and CRC of the marshalled header
_MAX_PIECE: Final = 4096  # bytes; merging is quadratic in a piece's length
_MEMO_MAX: Final = 500_000  # pieces and lines remembered per encoding before starting over

# ------------------------------------------------------------------ pre-tokenization

# Stand-ins in the class string. Only non-ASCII characters are replaced, by one character each,
# so positions (and so pieces of the original text) line up.
_UPPER = "A"  # Lu, Lt: upper side of o200k's letter classes
_LOWER = "a"  # Ll: lower side
_LETTER = "\u01bb"  # Lm, Lo: both sides
_MARK = "\u0301"  # Mn, Mc, Me: both sides in o200k; not a letter (\p{L}) in either encoding
_NUMBER = "0"  # Nd, Nl, No
_SPACE = "\t"  # White_Space other than ASCII (NBSP, NEL, U+2000…, ideographic space …)
_OTHER = "#"  # symbols, punctuation, format and control characters, private use
_UNSAFE = "\uffff"  # a character this counter does not vouch for

_S = "\t\n\x0b\x0c\r "  # \s: White_Space, which excludes \x1c-\x1f (Python's \s does not)
_L = "A-Za-z" + _LETTER
_UP = "A-Z" + _LETTER + _MARK
_LO = "a-z" + _LETTER + _MARK
_CONTRACTION = "(?i:'s|'t|'re|'ve|'m|'ll|'d)?"

# tiktoken's patterns with \p{…} and \s spelt over the class string ($ is \Z: end of text only).
_PATTERNS: Final = {
    "o200k_base": "|".join(
        [
            f"[^\r\n{_L}0-9]?[{_UP}]*[{_LO}]+{_CONTRACTION}",
            f"[^\r\n{_L}0-9]?[{_UP}]+[{_LO}]*{_CONTRACTION}",
            "[0-9]{1,3}",
            f" ?[^{_S}{_L}0-9]+[\r\n/]*",
            f"[{_S}]*[\r\n]+",
            f"[{_S}]+(?![^{_S}])",
            f"[{_S}]+",
        ]
    ),
    "cl100k_base": "|".join(
        [
            "'(?i:[sdmt]|ll|ve|re)",
            f"[^\r\n{_L}0-9]?+[{_L}]++",
            "[0-9]{1,3}+",
            f" ?[^{_S}{_L}0-9]++[\r\n]*+",
            f"[{_S}]++\\Z",
            f"[{_S}]*[\r\n]",
            f"[{_S}]+(?![^{_S}])",
            f"[{_S}]",
        ]
    ),
}


# Where a text can be cut into lines counted apart: after a newline, before a character no
# piece of either pattern can continue with (not white space, not "/", which o200k_base's
# punctuation pieces take after their newlines). A piece never spans such a point, and the
# patterns look only ahead, to "not followed by a non-space" or the end: so the count of a
# text is the sum of its lines' counts.
_LINES = re.compile(r"(?<=\n)(?=[A-Za-z0-9#*`|>\[(-])").split


def _class_of(char: str) -> str:
    """The stand-in of one non-ASCII character, or ``_UNSAFE``."""
    import unicodedata

    cat = unicodedata.category(char)
    then = unicodedata.ucd_3_2_0.category(char)
    # Trust a class only if Unicode has not moved the character to another stand-in since 3.2
    # (2002): then toktok's tables, of whatever version, agree. A move within one (・: Pc then,
    # Po now; symbols and punctuation added since: Cn then) changes nothing the patterns see.
    # ſ folds to s, so "'ſ" is a contraction.
    if cat in ("Cn", "Cs") or char == "\u017f":
        return _UNSAFE
    stand_in = _stand_in(cat, char)
    return stand_in if stand_in == _stand_in(then, char) else _UNSAFE


def _stand_in(cat: str, char: str) -> str:
    """The stand-in of a character of general category ``cat``."""
    if cat in ("Zs", "Zl", "Zp") or char == "\x85":
        return _SPACE
    if cat[0] == "L":
        return _LOWER if cat == "Ll" else _UPPER if cat in ("Lu", "Lt") else _LETTER
    return {"M": _MARK, "N": _NUMBER}.get(cat[0], _OTHER)


class _Classes(dict[int, str]):
    """A ``str.translate`` table filled on demand (a text uses a few dozen non-ASCII characters)."""

    def __missing__(self, code: int) -> str:
        stand_in = chr(code) if code < 128 else _class_of(chr(code))
        self[code] = stand_in
        return stand_in


_CLASSES = _Classes()


def class_string(text: str) -> str:
    """``text`` with each non-ASCII character replaced by its class stand-in (for tests)."""
    return text if text.isascii() else text.translate(_CLASSES)


# ------------------------------------------------------------------ the vocabulary file


class CacheError(Exception):
    """The vocabulary file is stale or damaged; count with toktok instead."""


def build(encoding: str, tokens: Sequence[bytes], source: str) -> bytes:
    """The vocabulary file for ``tokens`` (token bytes, indexed by rank).

    ``source`` names where the ranks came from (e.g. ``toktok-rs 0.3.0``); :func:`load`
    accepts the file only for the same encoding and source.

    Built one bucket at a time (a counting sort of the ranks by bucket, then each bucket's
    dict marshalled and dropped): for o200k_base's 200,000 tokens the process's peak grows by
    ~12 MB (the file, and its copies while it is joined), where 2¹⁶ dicts held at once grew
    it by ~35 MB; and it takes 0.6 s instead of 0.7 s.
    """
    crc32 = zlib.crc32
    keys = array.array("H", (crc32(token) & _MASK for token in tokens))
    starts = array.array("I", bytes(4 * (_BUCKETS + 1)))  # bucket b's ranks: order[starts[b]:starts[b+1]]
    if starts.itemsize != 4 or keys.itemsize != 2:
        raise CacheError("no 16- and 32-bit array types on this platform")
    for key in keys:
        starts[key + 1] += 1
    for b in range(_BUCKETS):
        starts[b + 1] += starts[b]
    order, filled = array.array("I", bytes(4 * len(keys))), array.array("I", starts)
    for rank, key in enumerate(keys):  # ranks ascending within a bucket, as they were inserted
        order[filled[key]] = rank
        filled[key] += 1
    del filled
    offsets = array.array("I", [0])
    blobs = bytearray()
    for b in range(_BUCKETS):
        blob = marshal.dumps({tokens[r]: r for r in order[starts[b] : starts[b + 1]]}, 4)
        blobs += blob
        offsets.append(offsets[-1] + len(blob))
    if sys.byteorder == "big":
        offsets.byteswap()
    body = offsets.tobytes() + blobs
    del blobs
    header = marshal.dumps(
        {
            "format": FORMAT,
            "encoding": encoding,
            "source": source,
            "buckets": _BUCKETS,
            "tokens": len(keys),
            "size": len(body),
            "crc": zlib.crc32(body),
        },
        4,
    )
    return _HEAD.pack(MAGIC, len(header), zlib.crc32(header)) + header + body


def load(data: bytes, encoding: str, source: str) -> Callable[[bytes], int | None]:
    """A ``rank(token_bytes)`` lookup over a file made by :func:`build`, checked whole (CRC-32).

    Raises:
        CacheError: the file is not for this encoding and source, or is damaged.
    """
    if len(data) < _HEAD.size:
        raise CacheError("truncated")
    magic, head_len, head_crc = _HEAD.unpack_from(data)
    body_at = _HEAD.size + head_len
    if magic != MAGIC or zlib.crc32(data[_HEAD.size : body_at]) != head_crc:
        raise CacheError("bad header")
    header = marshal.loads(data[_HEAD.size : body_at])  # its CRC matched: it is what build wrote
    want = {"format": FORMAT, "encoding": encoding, "source": source, "buckets": _BUCKETS}
    if not isinstance(header, dict) or any(header.get(k) != v for k, v in want.items()):
        raise CacheError("made for another encoding, format or tokenizer version")
    body = memoryview(data)[body_at:]
    if len(body) != header.get("size") or zlib.crc32(body) != header.get("crc"):
        raise CacheError("damaged")
    offsets = array.array("I")
    if offsets.itemsize != 4:
        raise CacheError("no 32-bit array type on this platform")
    base = 4 * (_BUCKETS + 1)
    offsets.frombytes(body[:base])
    if sys.byteorder == "big":
        offsets.byteswap()
    ranks: dict[bytes, int] = {}
    loaded = bytearray(_BUCKETS)
    get = ranks.get
    crc32 = zlib.crc32

    def rank(token: bytes) -> int | None:
        r = get(token)
        if r is not None:
            return r
        b = crc32(token) & _MASK
        if loaded[b]:
            return None
        try:
            bucket = marshal.loads(body[base + offsets[b] : base + offsets[b + 1]])
        except (ValueError, EOFError, TypeError):
            bucket = None
        if not isinstance(bucket, dict):
            raise CacheError(f"bad bucket {b}")
        ranks.update(bucket)
        loaded[b] = 1  # after the update: another thread that sees the flag finds the ranks
        return bucket.get(token)

    return rank


# ------------------------------------------------------------------ counting


class Counter:
    """Exact token counts for one encoding from a vocabulary file's ``rank`` lookup."""

    def __init__(self, encoding: str, rank: Callable[[bytes], int | None]) -> None:
        self.encoding = encoding
        self._rank = rank
        self._findall = re.compile(_PATTERNS[encoding], re.ASCII).findall
        self._memo: dict[str, int] = {}  # piece → tokens
        self._lines: dict[str, int] = {}  # line → tokens (a digest counts its sections again and again)
        self.work = 0  # characters counted afresh, not found among the lines seen before

    def pieces(self, text: str) -> list[str] | None:
        """``text`` split as the encoding's pattern splits it, or ``None`` for a text it declines."""
        if text.isascii():
            return self._findall(text)  # ASCII is its own class string
        classes = text.translate(_CLASSES)
        if _UNSAFE in classes:
            return None
        ends = accumulate(map(len, self._findall(classes)))
        return [text[a:b] for a, b in pairwise(chain((0,), ends))]

    def count_many(self, texts: Sequence[str]) -> list[int] | None:
        """Exact counts, or ``None`` if a text needs toktok (see the module docstring).

        Raises:
            CacheError: a bucket of the vocabulary file does not unmarshal to a dict.
        """
        lines, memo = self._lines, self._memo
        if len(memo) + len(lines) > _MEMO_MAX:
            lines.clear()
            memo.clear()
        out = []
        for text in texts:
            n = 0
            for line in _LINES(text):
                c = lines.get(line)
                if c is None:
                    self.work += len(line)
                    pieces = self.pieces(line)
                    if pieces is None:
                        return None
                    counts = list(map(memo.get, pieces))
                    if None in counts:  # pieces not seen before in this process
                        for i, known in enumerate(counts):
                            if known is None:
                                parts = self._merge(pieces[i].encode())
                                if parts is None:
                                    return None
                                counts[i] = memo[pieces[i]] = len(parts)
                    c = lines[line] = sum(counts)  # type: ignore[arg-type]
                n += c
            out.append(n)
        return out

    def tokens(self, text: str) -> list[bytes] | None:
        """The tokens of ``text`` as byte strings, or ``None`` as :meth:`count_many` (for tests)."""
        pieces = self.pieces(text)
        if pieces is None:
            return None
        out: list[bytes] = []
        for piece in pieces:
            parts = self._merge(piece.encode())
            if parts is None:
                return None
            out += parts
        return out

    def _merge(self, piece: bytes) -> list[bytes] | None:
        """What byte-pair merging leaves of ``piece``: one token if it is one, else merges by rank."""
        rank = self._rank
        if len(piece) == 1 or rank(piece) is not None:
            return [piece]
        if len(piece) > _MAX_PIECE:
            return None
        parts = [piece[i : i + 1] for i in range(len(piece))]  # every byte is a token
        never = sys.maxsize
        pairs = [never if (r := rank(a + b)) is None else r for a, b in pairwise(parts)]
        while len(parts) > 1:
            low = min(pairs)
            if low == never:
                break
            i = pairs.index(low)  # the leftmost of equal ranks, as tiktoken
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
            del pairs[i]
            if i > 0:
                r = rank(parts[i - 1] + parts[i])
                pairs[i - 1] = never if r is None else r
            if i < len(pairs):
                r = rank(parts[i] + parts[i + 1])
                pairs[i] = never if r is None else r
        return parts
