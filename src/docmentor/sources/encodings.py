"""Reading text whose encoding is not said, or said wrongly: a UTF-16/32 byte-order mark, a
Western page saved as Windows-1252 / Latin-1. Shared by local files and fetched documents."""

from __future__ import annotations

import re

_MIN_WESTERN_LETTERS = 0.7  # of the non-ASCII characters, read as Windows-1252
_WORD = re.compile(r"[^\W\d_]+")


def western_text(data: bytes) -> str | None:
    """The text of a page saved as Windows-1252 / Latin-1, or None when it is not one: its
    non-ASCII characters, read so, are mostly letters (é, ï, ß), not the symbols another
    encoding's bytes turn into (Shift-JIS ``\x82\xa0`` → ``‚\xa0``)."""
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    high = [c for c in text if ord(c) > 0x7F]
    if not high or sum(c.isalpha() for c in high) < _MIN_WESTERN_LETTERS * len(high):
        return None
    # a Western word has an accented letter or two among plain ones (été, Größe); a Cyrillic
    # or Greek word read this way is accented throughout (Óñòàíîâêà)
    words = [w for w in _WORD.findall(text) if len(w) >= 3 and not w.isascii()]
    if words and sum(all(ord(c) > 0x7F for c in w) for w in words) > 0.5 * len(words):
        return None
    return text


# byte-order marks of the encodings a text file announces that way (UTF-32's first: its
# little-endian mark begins with UTF-16's)
_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def byte_order_marked(data: bytes) -> tuple[str | None, str] | None:
    """A file that starts with a UTF-16 or UTF-32 byte-order mark: (its encoding, its text),
    or (None, why it is skipped) when it does not decode so; None for any other file."""
    for mark, encoding in _BOMS:
        if data.startswith(mark):
            try:
                return encoding, data.decode(encoding.lower().replace("-", ""))
            except UnicodeDecodeError as exc:
                return (
                    None,
                    f"starts with a {encoding} byte-order mark but is not {encoding} (at byte {exc.start})",
                )
    return None
