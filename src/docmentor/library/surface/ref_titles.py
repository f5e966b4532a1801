"""The titles the docs give their cross-reference labels, and the ``:ref:`` roles of the
API descriptions a reader is shown given them: Sphinx shows ``:ref:`reference_db_table``` as the title of the section that
``.. _reference_db_table:`` (MyST: ``(reference_db_table)=``) marks, so the catalog says
"See Tables", not "See reference_db_table". Labels are read from the indexed docs
sections (a reST or MyST label starts the section it marks; in an index built before, a label line ends the section before); a label the docs do not
have is shown readable by :func:`~docmentor.library.surface.docstrings.display`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Protocol

from docmentor.library.models import ApiEntry

__all__ = ["label_titles", "titled_entries", "with_titles"]


class _Section(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def heading(self) -> str: ...
    @property
    def text(self) -> str: ...


# a label line: `.. _name:` (reST; not `.. __:`, an anonymous target, nor `.. _name: url`,
# a hyperlink target) or `(name)=` (MyST)
_LABEL_LINE = re.compile(r"^[ \t]*(?:\.\.[ \t]+_(?!_)([^:`\n]+?):|\(([^()\s]+)\)=)[ \t]*$")


def label_titles(sections: Iterable[_Section]) -> dict[str, str]:
    """label (lower case, as Sphinx keys it) → the heading of the section it marks: the
    labels on the lines that end one section (and nothing but blank lines or other labels
    after them) mark the next section of the same page."""
    out: dict[str, str] = {}
    pending: list[str] = []
    page: str | None = None
    for section in sections:
        if section.path != page:
            page, pending = section.path, []
        if section.heading:
            # a reST section starts at its labels; a MyST page's labels end the section before
            for label in [*pending, *_leading_labels(section.text)]:
                out.setdefault(label, section.heading)
        pending = _trailing_labels(section.text)
    return out


def _leading_labels(text: str) -> list[str]:
    return _labels(text.split("\n"))


def _trailing_labels(text: str) -> list[str]:
    return _labels(reversed(text.split("\n")))


def _labels(lines: Iterable[str]) -> list[str]:
    """The labels of the label lines ``lines`` start with (blank lines between skipped)."""
    labels: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        m = _LABEL_LINE.match(line)
        if m is None:
            break
        labels.append(" ".join((m.group(1) or m.group(2)).split()).lower())
    return labels


# a reference role without a title of its own: :ref:`label`, :std:ref:`label`, {ref}`label`.
# The role's name run is read once (the lookbehind: no restart inside ":a:a:a…"); the label
# runs to the next backtick at most
_REF = re.compile(
    r"(?P<role>(?<![\w:.+-]):(?:[\w.+-]+:)*ref:|(?<![\w{$])\{(?:[\w.+-]+:)*ref\})`(?P<label>[^`<>\n]+)`"
)


def with_titles(text: str, titles: Mapping[str, str]) -> str:
    """``text`` with each ``:ref:`label``` the docs title written ``:ref:`Title <label>```
    (what Sphinx shows); other roles, and labels the docs lack, as written."""
    if not titles or "ref" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        label = m.group("label").strip()
        title = titles.get(" ".join(label.split()).lower())
        if title is None or not label:
            return m.group(0)
        return f"{m.group('role')}`{title} <{label}>`"

    return _REF.sub(one, text)


def titled_entries(entries: Iterable[ApiEntry], titles: Mapping[str, str]) -> None:
    """The entries' summaries, parameter and return descriptions with their ``:ref:``
    labels titled (:func:`with_titles`), in place: what a reader is shown of an API.

    The whole docstring stays as written: it is what find_api indexes by words, and a
    section's title brings the words of another topic into it (click's ``Tuple``, whose
    docstring points at "Multi Value Options as Tuples", came first for "restrict an
    option's value to a fixed set": click top-1 0.800 → 0.733). Its labels read as words
    (:func:`~docmentor.library.surface.docstrings.display`)."""
    if not titles:
        return
    for entry in entries:
        entry.description = with_titles(entry.description, titles)
        for param in entry.parameters:
            param.description = with_titles(param.description, titles)
        if entry.returns is not None:
            entry.returns.description = with_titles(entry.returns.description, titles)
