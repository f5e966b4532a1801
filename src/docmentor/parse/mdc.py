"""MDC components (Nuxt Content, Docus): markup a reader of the rendered page never sees.

A block component opens on a line of its own with two or more colons and a name, its
attributes in braces (``::note``, ``::card{title="…" to="/docs/x"}``, ``:::callout``), may
take its props as a YAML block between ``---`` lines right below, and closes with a line of
as many colons (``::``); slots inside it are ``#name`` lines. Its body is Markdown: the
text a reader sees. An inline component is a colon and a name with a label in brackets, or
attributes in braces, or both (``:badge[v4.3]``, ``:read-more{to="/docs/x"}``); its label
is what shows. An attribute list right after inline code (`` `x`{lang=ts} ``) says how to
highlight it.

What this module rewrites are lines of prose (the caller skips fenced code); patterns are
anchored or scan each character once: linear on any line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docmentor.parse.fences import code_spans

__all__ = ["Blocks", "component_links", "inline_links", "inline_out"]

# `::name`, `::name{attrs}`, `::name[label]{attrs}` alone on a line (VitePress' `::: tip`, a
# space before its name, is no MDC component; `::view-transition-old(root)` in CSS is none)
_OPEN = re.compile(r"([ \t]*)(:{2,})([A-Za-z][\w-]*+)(?:\[([^\[\]\n]*+)\])?(?:\{[^{}\n]*+\})?[ \t]*")
_CLOSE = re.compile(r"[ \t]*(:{2,})[ \t]*")
_SLOT = re.compile(r"[ \t]*#[A-Za-z][\w-]*+[ \t]*")
_PROPS_FENCE = re.compile(r"[ \t]*---[ \t]*")
# an inline component, with a label or attributes (a bare `:name` is text: `:smile:`), at a
# line's start or after a blank or `(` (not `a:b{}`, `https://x{}`, `` `key`:Optional[str] ``)
_INLINE = re.compile(r"(?<![^\s(]):[A-Za-z][\w-]*+(?:\[([^\[\]\n]*+)\](?:\{[^{}\n]*+\})?|\{[^{}\n]*+\})")
# one that ends a heading, with a label or attributes (a bare `:name` there is text)
_TRAILING = re.compile(r"(?<![^\s(]):[A-Za-z][\w-]*+(?:\[[^\[\]\n]*+\]|\{[^{}\n]*+\})++[ \t]*+\Z")
MAX_BADGES = 4  # components taken off one heading's end
_ATTRS_AFTER_CODE = re.compile(r"\{[^{}\n]*+\}")
# a `to` attribute (`to="/docs/x"`, `to='…'`, `to=/docs/x`) or prop (`to: /docs/x`)
_TO = re.compile(r"""(?<![\w-])to(?:=|:[ \t]+)(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'{}]+))""")


MAX_DEPTH = 32  # components open at once (a page nests a few)


@dataclass(slots=True)
class Blocks:
    """The block components open at a line, innermost last (each as its colons and
    indentation), read line by line."""

    open: list[tuple[int, int]] = field(default_factory=list)  # (colons, indent)
    props_until: int = -1  # a YAML props block runs to this line (its closing `---`)

    def markup(self, lines: list[str], i: int) -> str | None:
        """What a reader sees of line ``i`` when it is a component's markup — its opening
        line (its label: Docusaurus' ``:::tip[Pro tip]``, else nothing), its closing line, a
        line of its YAML props, a slot's name (nothing) — or None when it is no markup. An
        opening line is read with the props below it."""
        line = lines[i]
        if i <= self.props_until:
            return ""
        if ":" not in line and not self.open:
            return None
        if (m := _OPEN.fullmatch(line)) is not None:
            if len(self.open) >= MAX_DEPTH:  # never closed: a closing line looks this deep at most
                del self.open[0]
            self.open.append((len(m.group(2)), len(m.group(1))))
            if i + 1 < len(lines) and _PROPS_FENCE.fullmatch(lines[i + 1]):
                end = next((k for k in range(i + 2, len(lines)) if _PROPS_FENCE.fullmatch(lines[k])), -1)
                self.props_until = end
            return (m.group(4) or "").strip()
        if self.open and (c := _CLOSE.fullmatch(line)) is not None:
            colons = len(c.group(1))
            for k in range(len(self.open) - 1, -1, -1):
                if self.open[k][0] == colons:
                    del self.open[k:]
                    return ""
            return None
        return "" if self.open and "#" in line and _SLOT.fullmatch(line) is not None else None

    def indent(self) -> int:
        """The innermost open component's indentation (its body is dedented by it)."""
        return self.open[-1][1] if self.open else 0


def inline_out(line: str, *, heading: bool = False) -> str:
    """A line of prose without its inline components, outside code spans: each shows its
    label (``:badge[v4.3]`` reads ``v4.3``) or nothing (``:read-more{to=…}``); in a heading,
    those ending it are badges beside the title and go whole (``Server Alias :badge[v4.3]``
    reads ``Server Alias``). An attribute list right after inline code goes too."""
    if ":" not in line and "`{" not in line:
        return line
    if heading:
        for _ in range(MAX_BADGES):
            m = _TRAILING.search(line) if ":" in line else None
            if m is None or not line[: m.start()].lstrip(" #").strip():
                break  # none, or the component is the whole title: its label is the title
            line = line[: m.start()].rstrip()
    out: list[str] = []
    after_code = False
    for text, code in code_spans(line):
        if code:
            out.append(text)
            after_code = True
            continue
        if after_code and text.startswith("{") and (m := _ATTRS_AFTER_CODE.match(text)) is not None:
            text = text[m.end() :]
        if ":" in text:  # right after code, as the line reads: `` `key`:Optional[str] `` is text
            text = _INLINE.sub(_label, "`" + text)[1:] if after_code else _INLINE.sub(_label, text)
        after_code = False
        out.append(text)
    return "".join(out)


def _label(m: re.Match[str]) -> str:
    return m.group(1) or ""


def inline_links(line: str) -> list[str]:
    """The targets the inline components of a line of prose link to (``:read-more{to="/docs/x"}``)."""
    if "to" not in line or ":" not in line:
        return []
    return [
        t
        for text, code in code_spans(line)
        if not code
        for m in _INLINE.finditer(text)
        for t in component_links(m.group(0))
    ]


def component_links(markup: str) -> list[str]:
    """The targets a component's markup links to: a ``to`` attribute of its opening line
    (``::card{to="/docs/x"}``) or a ``to:`` line of its YAML props."""
    if "to" not in markup:
        return []
    return [m.group(1) or m.group(2) or m.group(3) for m in _TO.finditer(markup)]
