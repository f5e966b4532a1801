"""A code block's lines as the rendered page shows them.

Documentation sites mark up code with comments their renderer acts on and never shows:

* twoslash (Shiki, VitePress, Docusaurus): in a block whose info string says ``twoslash``,
  the lines up to ``// ---cut---`` (or ``// ---cut-before---``) set the example up and are
  hidden, as is everything from ``// ---cut-after---``; compiler flags (``// @errors: 2322``,
  ``// @noErrors``, ``// @filename: a.ts``) and type queries (``// ^?``) are not shown;
* Docusaurus' magic comments: a line that is only ``// highlight-next-line``,
  ``// highlight-start`` or ``// highlight-end`` (or ``#``, ``/* */``, ``{/* */}``,
  ``<!-- -->`` around it) highlights the code, and is not shown;
* Shiki's notation: ``// [!code ++]``, ``# [!code focus]``, ``<!-- [!code highlight] -->``
  at a line's end style that line; the comment is not shown;
* Material for MkDocs' code annotations: ``# (1)!`` or ``// (2)`` at a line's end is the
  bubble that opens the annotation listed under the block; the marker is not shown as text;
* rustdoc's and mdBook's hidden lines: in a ``rust`` block (``rust,ignore``, ``rust editable``),
  a line that is ``#`` or starts with ``# `` (after its indentation) compiles with the example
  and is hidden (``# fn main() {``); ``##`` at a line's start is a shown ``#``.

Readers of the index (the words of a page), snippets and digests read code as shown: an
agent copies what the page shows, not ``import 'vite/client'`` from above a cut. Plain
string tests: linear in a line's length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["code_as_shown", "comment_text", "may_hide_code"]

_MAGIC = frozenset({"highlight-next-line", "highlight-start", "highlight-end"})
_CUT_BEFORE = ("// ---cut---", "// ---cut-before---")
_CUT_AFTER = "// ---cut-after---"
_WRAPPERS = (("{/*", "*/}"), ("/*", "*/"), ("<!--", "-->"), ("//", ""), ("#", ""))


def may_hide_code(text: str) -> bool:
    """Whether ``text`` may hold code its page does not show (a quick test before a walk)."""
    return (
        "twoslash" in text
        or ("rust" in text and "#" in text)
        or "highlight-" in text
        or "[!code " in text
        or (
            _may_end_in_marker(text)
            and any(_marker_at(line, _ANY) is not None for line in text.split("\n") if ")" in line)
        )
    )


def _may_end_in_marker(text: str) -> bool:
    """A quick test before that walk: a line of ``text`` ends like an annotation marker
    (`(1)`, `(1)!`, `(2) */`, `(3) -->`, blanks after it at most)."""
    return ")" in text and _MARKER_END.search(text) is not None


# linear: one run of blanks after a `)`, a second only after a closer (two runs side by side
# would split a long run every way: a review of the first form timed 207 s)
_MARKER_END = re.compile(r"\(\d{1,3}\)!?[ \t]*(?:(?:\*/|-->)[ \t]*)?(?:\n|$)")


# the comments a code annotation marker may be written in, by the block's language (`//` is
# Python's floor division: `size // (2)` is code); an untagged block's, any language's
_HASH = ("#",)
_SLASHES = ("//", "/*")
_OPENERS_OF: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("python", "py", "python3", "pycon", "bash", "sh", "shell", "console", "zsh", "yaml", "yml", "toml",
         "ruby", "rb", "r", "perl", "make", "makefile", "dockerfile", "ini", "cfg", "conf", "powershell",
         "ps1", "text", "txt", "nginx", "properties", "cmake", "elixir", "julia", "nim", "crystal"),
        _HASH,
    ),
    **dict.fromkeys(
        ("js", "javascript", "ts", "typescript", "jsx", "tsx", "mjs", "cjs", "c", "h", "cpp", "c++", "cc",
         "hpp", "java", "kotlin", "kt", "go", "golang", "rust", "rs", "swift", "scala", "dart", "php", "cs",
         "csharp", "json", "jsonc", "json5", "groovy", "gradle", "css", "scss", "less", "proto", "zig"),
        _SLASHES,
    ),
    **dict.fromkeys(("html", "xml", "svg", "vue", "svelte", "md", "markdown", "mdx", "xhtml"), ("<!--",)),
    **dict.fromkeys(("sql", "psql", "mysql", "plpgsql", "lua", "haskell", "hs", "elm", "ada"), ("--",)),
}  # fmt: skip
_ANY = ("<!--", "//", "/*", "--", "#")


def _openers(info: str) -> tuple[str, ...]:
    """The comment openers a marker may follow in a block whose info string is ``info``
    (``python title="app.py"``, ``{.python .annotate}``); none for a language not known."""
    words = info.replace("{", " ").replace("}", " ").split()
    language = words[0].lstrip(".").lower() if words else ""
    return _OPENERS_OF.get(language, _ANY if not language else ())


def _marker_at(line: str, openers: tuple[str, ...]) -> int | None:
    """Where a code annotation marker at the line's end starts (``# (1)!``, ``// (2)``,
    ``/* (3) */``, ``<!-- (4) -->``), the blanks before it included; None without one. Read
    from the line's end, by string tests: linear."""
    end = line.rstrip(" \t")
    for closer in ("*/", "-->"):
        if end.endswith(closer):
            end = end[: -len(closer)].rstrip(" \t")
            break
    end = end.removesuffix("!")
    if not end.endswith(")"):
        return None
    opening = end.rfind("(", max(0, len(end) - 5))
    if opening < 0 or not end[opening + 1 : -1].isdigit() or not end[opening + 1 : -1].isascii():
        return None
    head = end[:opening].rstrip(" \t")
    for opener in openers:
        if head.endswith(opener):
            return len(head[: -len(opener)].rstrip(" \t"))
    return None


def comment_text(line: str) -> str | None:
    """What a line that is only a comment says (``// x``, ``# x``, ``/* x */``, ``{/* x */}``,
    ``<!-- x -->``), stripped; None for any other line."""
    text = line.strip()
    for opener, closer in _WRAPPERS:
        if text.startswith(opener) and text.endswith(closer) and len(text) >= len(opener) + len(closer):
            return text[len(opener) : len(text) - len(closer)].strip()
    return None


def code_as_shown(info: str, lines: Sequence[str]) -> list[str]:
    """The lines of a code block (fences excluded) whose info string is ``info``, as shown."""
    out = list(lines)
    if "twoslash" in info.split():
        cut = max((k for k, line in enumerate(out) if line.strip() in _CUT_BEFORE), default=-1)
        out = out[cut + 1 :]
        after = next((k for k, line in enumerate(out) if line.strip() == _CUT_AFTER), None)
        if after is not None:
            out = out[:after]
        out = [line for line in out if not _twoslash_note(line)]
    if any("highlight-" in line or "[!code " in line for line in out):
        out = [_without_notation(line) for line in out if not _magic(line)]
    if _rust(info) and any("#" in line for line in out):
        out = [_unescaped(line) for line in out if not _rust_hidden(line)]
    openers = _openers(info)
    if openers and _may_end_in_marker("\n".join(out)):
        out = [_without_marker(line, openers) for line in out]
    return out


def _without_marker(line: str, openers: tuple[str, ...]) -> str:
    """A line without the code annotation marker at its end (``x = 1  # (1)!`` → ``x = 1``)."""
    at = _marker_at(line, openers) if ")" in line else None
    return line if at is None else line[:at]


def _rust(info: str) -> bool:
    """Whether a block's info string says Rust (``rust``, ``rust,ignore``, ``rust editable``)."""
    words = info.replace(",", " ").split(maxsplit=1)
    return bool(words) and words[0].lower() == "rust"


def _rust_hidden(line: str) -> bool:
    """A rustdoc hidden line: ``#`` alone or ``# …``, after the indentation."""
    text = line.strip()
    return text == "#" or text.startswith("# ")


def _unescaped(line: str) -> str:
    """``##`` at a line's start (after its indentation) is rustdoc's escape of a shown ``#``."""
    text = line.lstrip()
    return line[: len(line) - len(text)] + text[1:] if text.startswith("##") else line


def _twoslash_note(line: str) -> bool:
    """``// @errors: 2322``, ``// @noErrors``, ``// ^?``: a compiler flag (a word, then the
    line's end or ``:``, at the line's start, as twoslash reads one: ``// @ts-expect-error``
    is shown) or a type query."""
    if line.lstrip().startswith("//") and line.lstrip()[2:].lstrip().startswith("^"):
        return True
    if not line.startswith("//"):
        return False
    rest = line[3:] if line[2:3] == " " else line[2:]
    if not rest.startswith("@"):
        return False
    word = rest[1:].split(":", 1)[0].rstrip()
    return bool(word) and (word.replace("_", "a").isalnum() and word.isascii())


def _magic(line: str) -> bool:
    """A line that is only a Docusaurus magic comment."""
    return comment_text(line) in _MAGIC


def _without_notation(line: str) -> str:
    """A line without the Shiki notation comment at its end (``x = 1 // [!code ++]``)."""
    at = line.rfind("[!code ")
    if at < 0:
        return line
    end = line.find("]", at)
    if end < 0 or line[end + 1 :].strip() not in ("", "*/", "-->"):
        return line
    head = line[:at].rstrip()
    for opener in ("//", "#", "/*", "<!--"):
        if head.endswith(opener):
            return head[: -len(opener)].rstrip()
    return line
