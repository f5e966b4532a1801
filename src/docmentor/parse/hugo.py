"""Hugo shortcodes: markup a reader of the rendered page never sees.

A shortcode is ``{{< name args >}}`` (its output not read as Markdown) or ``{{% name args %}}``
(read as Markdown), closed by ``{{< /name >}}`` when it wraps a body, or self-closed
(``{{< name />}}``). The body is the text a reader sees; the tag is not, but for what it
prints in place: a glossary tooltip shows its ``text="Pod"``, and ``ref`` / ``relref`` print
the address of the page they name (``[Pods]({{< ref "pods.md" >}})``). Inside code, a site
shows a shortcode as an example by commenting it (``{{</* alert */>}}``): the page shows
``{{< alert >}}``.

What this module rewrites are lines (prose by :func:`shortcodes_out`, code by
:func:`examples_shown`); each scan looks at every character once: linear on any line.
"""

from __future__ import annotations

import re

from docmentor.parse.fences import code_spans

__all__ = ["examples_shown", "has_shortcode", "shortcodes_out"]

# `{{<` or `{{%`: searched from a position that only moves on, so each character is read once
_OPENER = re.compile(r"\{\{[<%]")
# a named argument whose value the reader sees where the shortcode stands
_SHOWN_ARGUMENT = re.compile(r"""(?<![\w-])text=(?:"([^"\n]*+)"|'([^'\n]*+)')""")
# the first argument of ref / relref: the page it names, quoted or not
_FIRST_ARGUMENT = re.compile(r"""[ \t]*+(?:"([^"\n]*+)"|'([^'\n]*+)'|([^\s"']++))""")
_NAME = re.compile(r"[ \t]*+(/?)[ \t]*+([\w./-]++)")
_ADDRESSES = frozenset({"ref", "relref"})
_PATH_ARGUMENT = re.compile(r"""(?<![\w-])path=(?:"([^"\n]*+)"|'([^'\n]*+)')""")
_CLOSER = {"<": ">", "%": "%"}


def has_shortcode(line: str) -> bool:
    """A quick test before a rewrite."""
    return "{{<" in line or "{{%" in line


def shortcodes_out(line: str) -> str:
    """``line`` of prose with its shortcodes replaced by what they print: nothing, a
    ``text=`` argument, or a ``ref`` / ``relref`` page's address; a commented one
    (``{{</* x */>}}``) shows as written without its comment. In a code span only the
    commented ones change (a page that shows the syntax in `` `{{< x >}}` `` keeps it)."""
    if "`" in line:
        pieces = [examples_shown(p) if code else _prose_out(p) for p, code in code_spans(line)]
        shown = "".join(pieces)
    else:
        shown = _prose_out(line)
    return "" if not shown.strip() else shown


def _prose_out(line: str) -> str:
    out: list[str] = []
    pos = 0
    while (m := _OPENER.search(line, pos)) is not None:
        at = m.start()
        kind = line[at + 2]
        close = line.find(_CLOSER[kind] + "}}", at + 3)
        if close == -1:
            break  # no tag closes on this line: text as written
        out.append(line[pos:at])
        inner = line[at + 3 : close]
        if inner.startswith("/*") and inner.endswith("*/"):
            out.append("{{" + kind + inner[2:-2] + _CLOSER[kind] + "}}")
        else:
            out.append(_printed(inner))
        pos = close + 3
    out.append(line[pos:])
    return "".join(out)


def examples_shown(line: str) -> str:
    """A line of code with its commented shortcodes as the page shows them
    (``{{</* alert */>}}`` → ``{{< alert >}}``); others are code as written."""
    if "{{</*" not in line and "{{%/*" not in line:
        return line
    out: list[str] = []
    pos = 0
    while (m := _OPENER.search(line, pos)) is not None:
        at = m.start()
        kind = line[at + 2]
        if not line.startswith("/*", at + 3):
            out.append(line[pos : at + 3])
            pos = at + 3
            continue
        close = line.find("*/" + _CLOSER[kind] + "}}", at + 5)
        if close == -1:
            break
        out += [line[pos:at], "{{" + kind, line[at + 5 : close], _CLOSER[kind] + "}}"]
        pos = close + 5
    out.append(line[pos:])
    return "".join(out)


def _printed(inner: str) -> str:
    """What a shortcode tag (``inner``: between its delimiters) prints in place."""
    name = _NAME.match(inner)
    if name is None or name[1]:
        return ""  # a closing tag, or no name: nothing shows
    rest = inner[name.end() :]
    if name[2] in _ADDRESSES and (first := _PATH_ARGUMENT.search(rest) or _FIRST_ARGUMENT.match(rest)):
        return next(g for g in first.groups() if g is not None)
    shown = _SHOWN_ARGUMENT.search(rest)
    return "" if shown is None else next(g for g in shown.groups() if g is not None)
