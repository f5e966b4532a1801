"""An object's docstring read for its parameters and return value: griffe's parsers
(Google, NumPy, Sphinx) and the Markdown and prose lists they miss
(:mod:`docmentor.library.surface.api_python`)."""

from __future__ import annotations

import functools
import logging
import re
import textwrap
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

import griffe

from docmentor.library.surface.docstrings import PARAGRAPHS, after_fields, is_name_list

logger = logging.getLogger(__name__)


_STRUCTURED = {"parameters", "other parameters", "returns", "yields", "raises", "receives"}
_PARSER_OPTIONS: dict[str, Any] = {"warnings": False, "warn_unknown_params": False}


def _sections(docstring: griffe.Docstring, parser: griffe.Parser) -> list[Any]:
    global _PARSER_OPTIONS
    try:
        try:
            return list(griffe.parse(docstring, parser, **_PARSER_OPTIONS))
        except TypeError:  # an older griffe without these options
            if not _PARSER_OPTIONS:
                raise
            _PARSER_OPTIONS = {}
            return list(griffe.parse(docstring, parser))
    except Exception as error:  # a parser choking on odd markup must not lose the whole API
        logger.debug("docstring parse failed (%s): %s", parser, error)
        return []


# a Markdown parameter list: "* **auth** - *(optional)* An authentication class …" (httpx)
# an item ends at the next item of the same indentation (a deeper one is a sub-list), a
# blank line or the end
_MD_PARAMETER = re.compile(
    r"^([ \t]*)[*-][ \t]+(?:\*\*`?(\w+)`?\*\*[ \t]*(?:[-–—:][ \t]*)?"
    r"|`{1,2}\*{0,2}(\w+)`{1,2}[ \t]*(?:\([^)\n]*\)[ \t]*)?[-–—:][ \t]*)"
    r"(.*?)(?=^\1[*-][ \t]|\n[ \t]*\n|\n[ \t]*(?:```|~~~)|\Z)",  # a fence ends it (httpx's stray one)
    re.M | re.S,
)
_OPTIONAL_MARK = re.compile(r"^\*?\(optional\)\*?[ \t]*", re.I)
# a line that opens the parameters (``Arguments:``, ``**Parameters:**``) or another section
_PARAMETERS_HEAD = re.compile(
    r"^[ \t]*\**(?:Parameters|Params|Arguments|Args|Keyword [Aa]rguments|Other [Pp]arameters)\**[ \t]*:?\**[ \t]*$",
    re.M,
)
_OTHER_HEAD = re.compile(
    r"^[ \t]*\**(?:Returns?|Yields?|Raises|Attributes|Examples?|Notes?|Warnings?|See [Aa]lso|Usage)\**[ \t]*:?\**[ \t]*$",
    re.M,
)


def _markdown_parameters(text: str) -> dict[str, str]:
    """Parameter descriptions from a Markdown list of bold names (httpx: ``* **verify** -
    *(optional)* Either `True` to use …``), or of code names with a dash or colon after them
    under a parameters heading (``Arguments:`` then ``* `app` - The ASGI application.``; such
    a list elsewhere may describe a returned dict's keys), which none of griffe's parsers
    reads. Names that are no parameter are dropped by the caller."""
    if "**" not in text and "`" not in text:
        return {}
    head = _PARAMETERS_HEAD.search(text)
    begin = head.end() if head else len(text)
    other = _OTHER_HEAD.search(text, begin)
    end = other.start() if other else len(text)
    out: dict[str, str] = {}
    for m in _MD_PARAMETER.finditer(text):
        if m.group(2) is None and not begin <= m.start() < end:
            continue  # a code-name item outside the parameters
        out.setdefault(m.group(2) or m.group(3), _OPTIONAL_MARK.sub("", " ".join(m.group(4).split())))
    return out


# "verify_ssl - Set to …", "- ``match_string`` - string to be matched", "**limit** - …"
_ITEM_HEAD = re.compile(
    r"^[*-]?[ \t]*(?:\*\*`?(\w+)`?\*\*|`{1,2}\*{0,2}(\w+)`{1,2}|([a-z_][a-z0-9_]*))[ \t]+[-–—][ \t]+(.*)$"
)
# what a list that follows says it lists, when not the parameters: "Returns a dict with:"
_RETURNS_LEAD = re.compile(r"^\W*(?:returns?|yields?|raises?)\b", re.I)
_PARAMETER_WORDS = re.compile(r"\b(?:param|arg|option|input|keyword|accept|take)", re.I)


def _announces_other(paragraph: str) -> bool:
    """Whether a paragraph announces a list of something other than parameters."""
    text = paragraph.strip()
    if _RETURNS_LEAD.match(text):
        return True
    return text.endswith(":") and not text.endswith("::") and not _PARAMETER_WORDS.search(text)


def _listed_parameters(text: str) -> dict[str, str]:
    """Parameter descriptions from the first paragraph after the summary that lists names,
    each with a dash and what it is, deeper lines continuing an item (aiohttp's
    ``TCPConnector``: ``verify_ssl - Set to True to check ssl certifications.``; see
    :func:`~docmentor.library.surface.docstrings.is_name_list`), and the one-item paragraphs that
    continue it — not a list the paragraph before it announces as something else ("Returns
    a dict with:", "Each row has these fields:"; "The following arguments are accepted:"
    is the parameters). Names that are no parameter are dropped by the caller."""
    paragraphs = [p for p in PARAGRAPHS.split(textwrap.dedent(text).strip()) if p.strip()]
    out: dict[str, str] = {}
    listing = False  # a paragraph of one item continues the list before it
    for k, para in enumerate(paragraphs):
        lines = [line for line in para.split("\n") if line.strip()]
        if not listing and is_name_list(para) and _ITEM_HEAD.match(lines[0].strip()):
            if k == 0 or (k > 1 and _announces_other(paragraphs[k - 1])):
                continue  # the summary itself, or the keys of what it returns
            listing = True
        elif not (listing and _ITEM_HEAD.match(lines[0].strip())):
            if out:
                break  # the list is over
            continue
        base = min(len(line) - len(line.lstrip()) for line in lines)
        name = ""
        words: list[str] = []
        for line in lines:
            head = _ITEM_HEAD.match(line.strip()) if len(line) - len(line.lstrip()) == base else None
            if head is not None:
                if name:
                    out.setdefault(name, " ".join(words))
                name, words = head.group(1) or head.group(2) or head.group(3), [head.group(4).strip()]
            elif name:
                words.append(line.strip())
        if name:
            out.setdefault(name, " ".join(words))
    return {k: _OPTIONAL_MARK.sub("", " ".join(v.split())) for k, v in out.items()}


_TYPE_WORDS = frozenset({"int", "str", "float", "bool", "bytes", "dict", "list", "tuple", "set", "None"})
# capitalised words a returns section starts with that are prose, not a type
_NOT_TYPES = frozenset(
    {"Note", "Notes", "Example", "Examples", "Warning", "True", "False", "See", "If", "The", "A"}
)
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]*(?:\[.*\])?")


def _returned_type(item: Any) -> str | None:
    """The type a returns item gives: its annotation, or a Google-style ``Widget: the widget``
    griffe reads as a name (by default it takes ``name: description``) when that name reads
    as a type (a capital, a dotted path, a subscript, a builtin type)."""
    if item.annotation:
        return " ".join(str(item.annotation).split())
    name = str(getattr(item, "name", "") or "")
    typed = name[:1].isupper() or "." in name or "[" in name or name in _TYPE_WORDS
    return name if typed and name not in _NOT_TYPES and _TYPE_NAME.fullmatch(name) else None


class _Parsed(NamedTuple):
    params: dict[str, str]  # parameter → its description
    returns: str  # what the returns section says
    types: dict[str, str]  # parameter → the type the docstring gives it (`widget (Widget): …`)
    returns_type: str | None  # the type the returns section gives (one only)
    attributes: Mapping[str, str] = MappingProxyType({})  # ``Attributes:``: name → its description


# a Sphinx role griffe cut at its colon (``A :class:`Forecast`.`` read as ``A`` and
# ``class:`Forecast`.``)
_CUT_ROLE = re.compile(r"(?:[a-z]+:)+`")


def _returns_text(item: Any, body: Callable[[str], str] = str) -> str:
    """What a returns item says, whole: griffe reads ``name: description`` where a Google
    returns line is only a sentence (``A :class:`Forecast`.``, ``True if found: …``)."""
    text = " ".join(body(item.description).split())
    name = str(getattr(item, "name", "") or "").strip()
    if name and _CUT_ROLE.match(text):
        return f"{name} :{text}"
    if not name or item.annotation or _returned_type(item) is not None:
        return text
    return f"{name}: {text}"


def _attributes(docstring: griffe.Docstring) -> dict[str, str]:
    """A class's ``Attributes`` section (Google's ``Attributes:``, NumPy's underlined one):
    each attribute's description."""
    out: dict[str, str] = {}
    parsers = (
        [griffe.Parser.google, griffe.Parser.numpy] if "--" in docstring.value else [griffe.Parser.google]
    )
    for parser in parsers:
        for section in _sections(docstring, parser):
            if str(getattr(section.kind, "value", section.kind)) == "attributes":
                for item in section.value:
                    said = " ".join(item.description.split())
                    for name in _item_names(item.name):
                        out.setdefault(name, said)
        if out:
            break
    return out


def _item_names(text: str) -> list[str]:
    """The attribute names of one section item: NumPy's ``INT, I (default)`` names two that
    share a description (griffe splits such a line for parameters, not for attributes), and
    ``Markdown.htmlStash`` (Google's ``name (util.HtmlStash): …``) names its class too."""
    names: list[str] = []
    # not the words of a type or remark in brackets (`level (int, default 0)`)
    for part in text.split("(", 1)[0].split(","):
        words = part.split()
        name = words[0].rsplit(".", 1)[-1] if words else ""
        if name.isidentifier():
            names.append(name)
    return names


def _before_doctest(text: str) -> str:
    """A field's text up to a doctest session (a line starting ``>>>``): the Sphinx parser
    runs the last field on into the docstring's examples after a blank line (packaging's
    ``:param prereleases:`` held six ``>>> SpecifierSet(…)`` lines)."""
    lines = text.split("\n")
    at = next((k for k, line in enumerate(lines) if line.lstrip().startswith(">>>")), len(lines))
    return "\n".join(lines[:at])


def _field_body(text: str) -> str:
    """A Sphinx field's text without the paragraph after its field list, which griffe's
    parser runs the last field on into (pluggy's ``register``: ":returns: The plugin name …"
    then "If the plugin is already registered, raises …" at the margin). A field's body is
    indented under it: where griffe kept a continuation line's indent (it dedents a block
    with no line at the margin), a line at the margin after a blank line is past the body."""
    lines = text.split("\n")
    if not any(line[:1] in (" ", "\t") for line in lines[1:]):
        return text  # dedented by griffe, or one line: the body's end cannot be told
    for k in range(2, len(lines)):
        if lines[k][:1] not in ("", " ", "\t") and not lines[k - 1].strip():
            return "\n".join(lines[:k]).rstrip()
    return text


# a reST attribute directive in a docstring: `.. attribute:: method` (`py:attribute` too)
_ATTRIBUTE_DIRECTIVE = re.compile(r"^([ \t]*)\.\.[ \t]+(?:py:)?attribute ?::[ \t]+([A-Za-z_]\w*)[ \t]*$")


def _attribute_directives(text: str) -> dict[str, str]:
    """Each ``.. attribute:: name`` directive's body in a docstring, on one line (its options
    left out): h11's event classes describe their fields so, and the same-named parameters
    of their constructors take those words when their own docs say nothing."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    for k, line in enumerate(lines):
        m = _ATTRIBUTE_DIRECTIVE.match(line)
        if m is None:
            continue
        base = len(m.group(1))
        body: list[str] = []
        for j in range(k + 1, len(lines)):  # to the block's end, no copy of the rest
            following = lines[j]
            if following.strip() and len(following) - len(following.lstrip()) <= base:
                break
            if not following.lstrip().startswith(":"):  # `:type: bytes` and other options
                body.append(following)
        said = " ".join(" ".join(body).split())
        if said:
            out.setdefault(m.group(2), said)
    return out


def _before_tail(text: str, tail: str) -> str:
    """A field's text up to the line ``tail`` starts the docstring's prose with (after a blank line)."""
    text = _field_body(text)
    lines = text.split("\n")
    for k in range(1, len(lines)):
        if lines[k].strip() == tail and not lines[k - 1].strip():
            return "\n".join(lines[:k]).rstrip()
    return text


# a Sphinx `:rtype:` field, its indented continuation lines too
_RTYPE = re.compile(r"^[ \t]*:rtype:[ \t]*(\S[^\n]*(?:\n[ \t]+\S[^\n]*)*)", re.M)


def _rtype(text: str) -> str | None:
    """The type of the one `:rtype:` field in ``text`` (griffe reads it only beside a
    `:returns:` field), on one line; None without one, or with several."""
    if ":rtype:" not in text:
        return None
    found = [" ".join(m.group(1).split()) for m in _RTYPE.finditer(text)]
    return found[0] if len(found) == 1 else None


# three words or more of plain prose, no type expression ("The object to search within")
_PHRASE = re.compile(r"[A-Za-z]+(?: [A-Za-z,.'()-]+){2,}")
# a NumPy section's heading written in bold on a line of its own, as some docstrings do
_BOLD_SECTION = re.compile(r"^[ \t]*\*\*(Parameters|Returns|Yields|Raises|Attributes)\*\*[ \t]*$", re.M)


# a Google section's heading with blank lines before its indented items: napoleon reads the
# items, griffe's Google parser skips the section (boltons' `backoff_iter`, `remap`)
_SPACED_SECTION = re.compile(
    r"^([ \t]*)(Args|Arguments|Params|Parameters|Keyword Args|Keyword Arguments|Other Parameters"
    r"|Returns|Return|Yields|Raises|Attributes):[ \t]*\n(?:[ \t]*\n)+(?=\1[ \t]+\S)",
    re.M,
)


def _documented_attributes(docstring: griffe.Docstring) -> dict[str, str]:
    """The attributes a (class's) docstring describes, name → text: a Google ``Attributes:``
    section, whichever style the rest is in; Sphinx's ``:ivar name:`` / ``:cvar name:``
    fields; reST ``.. attribute:: name`` blocks (h11's ``Request``)."""
    text = docstring.value
    attributes = _attributes(docstring) if "Attributes" in text else {}
    if "attribute::" in text:
        for name, said in _attribute_directives(text).items():
            attributes.setdefault(name, said)
    if re.search(r":[ic]?var\b", text):
        for section in _sections(docstring, griffe.Parser.sphinx):
            if str(getattr(section.kind, "value", section.kind)) == "attributes":
                for item in section.value:
                    attributes.setdefault(item.name, " ".join(item.description.split()))
    return attributes


def parse_docstring(docstring: griffe.Docstring | None) -> _Parsed:
    """Parameter descriptions and types, the returns description and type; Google, then
    NumPy, then Sphinx."""
    if docstring is None:
        return _Parsed({}, "", {}, None)
    if "\n" not in docstring.value.strip():
        return _Parsed({}, "", {}, _rtype(docstring.value))
    text = docstring.value
    if _BOLD_SECTION.search(text):  # deepdiff's "**Parameters**" over NumPy-style "name : text"
        text = _BOLD_SECTION.sub(lambda m: f"{m.group(1)}\n{'-' * len(m.group(1))}", text)
        docstring = griffe.Docstring(text, lineno=docstring.lineno, parent=docstring.parent)
    if ":\n" in text and _SPACED_SECTION.search(text):  # boltons' "Args:", a blank line, the items
        text = _SPACED_SECTION.sub(r"\1\2:\n", text)
        docstring = griffe.Docstring(text, lineno=docstring.lineno, parent=docstring.parent)
    parsers = [griffe.Parser.google]
    if "--" in text:
        parsers.append(griffe.Parser.numpy)
    # Sphinx's field names, its aliases too (bleach's `:arg tags:`, `:keyword strip:`)
    if re.search(
        r":(param|parameter|arg|argument|key|keyword|kwarg|kwparam|returns?|rtype|type|raises?)\b", text
    ):
        parsers.append(griffe.Parser.sphinx)
    attributes = _documented_attributes(docstring)
    for parser in parsers:
        sections = _sections(docstring, parser)
        if any(str(getattr(s.kind, "value", s.kind)) in _STRUCTURED for s in sections):
            break
    else:
        listed = {**_listed_parameters(text), **_markdown_parameters(text)}
        return _Parsed(listed, "", {}, _rtype(text), attributes)
    params: dict[str, str] = {}
    types: dict[str, str] = {}
    returns: list[str] = []
    returned: list[str] = []
    body = _field_body if parser is griffe.Parser.sphinx else str
    if parser is griffe.Parser.sphinx and (tail := after_fields(text)):
        # the prose after a leading field list is no field's text: griffe ran the last field on into it
        body = functools.partial(_before_tail, tail=tail.split("\n", 1)[0].strip())
    for section in sections:
        kind = str(getattr(section.kind, "value", section.kind))
        if kind in ("parameters", "other parameters"):
            for item in section.value:
                name = item.name.lstrip("*")
                said = " ".join(_before_doctest(body(item.description)).split())
                annotation = " ".join(str(item.annotation or "").split())
                if not said and parser is griffe.Parser.numpy and _PHRASE.match(annotation):
                    # "obj : The object to search within": NumPy's type slot holds the description
                    said, annotation = annotation, ""
                params.setdefault(name, said)
                if annotation:
                    types.setdefault(name, annotation)
        elif kind == "returns":
            returns += [_returns_text(item, body) for item in section.value if item.description]
            returned += [t for item in section.value if (t := _returned_type(item))]
    found = returned[0] if len(returned) == 1 else None
    return _Parsed(params, " ".join(returns), types, found if returned else _rtype(text), attributes)
