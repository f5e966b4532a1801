"""Markdown and Mermaid text helpers for the repository documents: code spans that hold any
text, plain text escaped so a docstring cannot open a link, a tag or a code span, the first
sentence and paragraph of a docstring, and Mermaid node labels escaped. Every regex here runs
in linear time."""

from __future__ import annotations

import re

_SPACES = re.compile(r"\s+")
_BACKTICKS = re.compile(r"`+")
# a sentence's end: not the full stop of an abbreviation ("a human-readable size (e.g. 10 kB)")
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)[.!?](?=\s|$)")
_PLAIN_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")
# an include a docs reader would expand (markdown-include's and mdx_include's ``{!…!}``,
# mkdocs-include-markdown-plugin's ``{% … %}``; ``{*…*}`` is escaped with ``*`` above)
_INCLUDE_OPEN = re.compile(r"\{(?=[!%])")
_STRUCTURE = re.compile(r"[-=+#~]")  # a line starting with one could be read as structure
_ORDERED = re.compile(r"(\d+)([.)])")


def code(text: str) -> str:
    """``text`` (whitespace runs collapsed to one space) as one inline code span, with a
    fence longer than any run of backticks inside it."""
    text = _SPACES.sub(" ", text).strip()
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def fence(text: str, language: str = "") -> str:
    """``text`` as a fenced code block whose fence is longer than any backtick run inside."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text}\n{marks}"


def plain(text: str) -> str:
    """One line of outside text (a docstring's, a README's) as literal Markdown: whitespace
    collapsed, the characters that open emphasis, links, tags, code, tables or an include
    escaped."""
    text = _SPACES.sub(" ", text).strip()
    text = _PLAIN_SPECIAL.sub(r"\\\1", text)
    text = _INCLUDE_OPEN.sub(r"{\\", text)  # {\! shows {! and is no include
    if _STRUCTURE.match(text):
        return "\\" + text
    ordered = _ORDERED.match(text)
    if ordered:
        return f"{ordered.group(1)}\\{ordered.group(2)}{text[ordered.end() :]}"
    return text


def quote(text: str) -> str:
    """Outside text of several lines as a Markdown block quote, each line escaped
    (``plain``); blank lines kept as paragraph breaks."""
    out: list[str] = []
    for line in text.strip().splitlines():
        stripped = line.strip()
        out.append(f"> {plain(stripped)}" if stripped else ">")
    return "\n".join(out)


def first_paragraph(text: str | None) -> str:
    """The first paragraph of ``text`` (lines up to the first blank one), joined by spaces."""
    if not text:
        return ""
    lines: list[str] = []
    for line in text.strip().splitlines():
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.strip())
    return " ".join(lines)


def first_sentence(text: str | None) -> str:
    """The first sentence of ``text``'s first paragraph (up to its first ``.``, ``!`` or ``?``
    followed by a space or the end), or the whole paragraph."""
    paragraph = first_paragraph(text)
    match = _SENTENCE_END.search(paragraph)
    return paragraph[: match.end()] if match else paragraph


def without_lead_in(paragraph: str) -> str:
    """A paragraph without its last sentence when that only announces what follows (humanize's
    "It is localized to:", whose list is not shown); its colon a full stop when it is the
    only sentence."""
    if not paragraph.endswith(":"):
        return paragraph
    body = paragraph[:-1].rstrip()
    ends = [m.end() for m in _SENTENCE_END.finditer(body)]
    return body[: ends[-1]] if ends else body + "."


def rest_after_first_sentence(text: str | None) -> str:
    """``text`` without its first sentence (empty when nothing follows it)."""
    if not text:
        return ""
    body = text.strip()
    sentence = first_sentence(body)
    # the sentence is the first paragraph's lines joined: find where it ends in the text
    words = sentence.split()
    position = 0
    for word in words:
        position = body.find(word, position) + len(word)
    return body[position:].strip()


def mermaid_label(text: str) -> str:
    """``text`` as a quoted Mermaid label: quotes, ``#``, ``<``, ``>`` as entity codes."""
    escaped = text.replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    return f'"{escaped}"'
