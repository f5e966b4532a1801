"""A section chosen for a digest brings its short subsections (``RankingConfig.subsection_chars``)."""

from __future__ import annotations

from pathlib import Path

from docmentor import assemble_context
from docmentor.engine import Docmentor
from docmentor.search.config import RankingConfig

PAGE = """# Strictness

Intro of the page about quokka settings in general.

## Quokka mode at the field level

Set `quokka=True` on one field to make that field refuse coercion.

### Returns

`QuokkaField`

### The shorthand type

The alias `PinnedInt` is the same as an int with that behaviour switched on.

### A long tail

{long}

## Unrelated neighbour

Nothing about that here: wombats and their burrows.
"""


def _index(location: str, tmp_path: Path, ranking: RankingConfig | None = None) -> Docmentor:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    long = " ".join(f"Filler sentence number {i} says nothing new." for i in range(120))
    (docs / "strict.md").write_text(PAGE.format(long=long), encoding="utf-8")
    eng = Docmentor(location, ranking=ranking, embeddings=False)
    eng.add(str(docs), name="fx")
    return eng


QUESTION = "quokka mode on one field refuse coercion"


def test_a_chosen_section_brings_its_short_subsection(index_location: str, tmp_path: Path) -> None:
    eng = _index(index_location, tmp_path)
    try:
        digest = assemble_context(eng, QUESTION, max_tokens=4000, source="fx", depth=0, sections=2)
    finally:
        eng.close()
    field_level = next(s for s in digest.sections if s.candidate.heading == "Quokka mode at the field level")
    assert "PinnedInt" in field_level.text  # the subsection's words, under its own heading
    assert "### The shorthand type" in field_level.candidate.text.split("\n")
    assert "Filler sentence number 100" not in digest.markdown  # the long one is over the cap
    assert "wombats" not in field_level.text  # a section of the same level ends the growth
    assert field_level.line_end > field_level.candidate.line_start + 4  # the range covers it
    # the sentence-less "Returns" stub rides with its parent in the search unit: shown once
    assert digest.markdown.count("`QuokkaField`") == 1


def test_zero_keeps_each_section_alone(index_location: str, tmp_path: Path) -> None:
    eng = _index(index_location, tmp_path, RankingConfig(subsection_chars=0))
    try:
        digest = assemble_context(eng, QUESTION, max_tokens=4000, source="fx", depth=0, sections=2)
    finally:
        eng.close()
    field_level = next(s for s in digest.sections if s.candidate.heading == "Quokka mode at the field level")
    assert "PinnedInt" not in field_level.text


def test_a_subsection_chosen_on_its_own_is_not_shown_twice(index_location: str, tmp_path: Path) -> None:
    eng = _index(index_location, tmp_path)
    try:
        digest = assemble_context(
            eng, "PinnedInt alias quokka field refuse", max_tokens=4000, source="fx", depth=0, sections=2
        )
    finally:
        eng.close()
    headings = [s.candidate.heading for s in digest.sections]
    assert "The shorthand type" in headings and "Quokka mode at the field level" in headings
    assert digest.markdown.count("The alias `PinnedInt` is the same") == 1


LINKED = """# Setup

## Quokka setup

Turn quokka mode on: see [the first way](#strict-one), [the second](#strict-two) and the
[operations page](ops.md).

### Strict one

The first way sets `quokka=True` on the field.



### Strict two

The second way uses the `PinnedInt` alias.
"""


def test_links_into_the_grown_subsections_leave_the_cross_reference_slots_free(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "setup.md").write_text(LINKED, encoding="utf-8")
    (docs / "ops.md").write_text(
        "# Operations\n\nRestart the wombat service after a deploy.\n", encoding="utf-8"
    )
    eng = Docmentor(str(tmp_path / "db"), embeddings=False)
    try:
        eng.add(str(docs), name="fx")
        # one section chosen: two cross-reference slots, and the two anchors are inside it
        digest = assemble_context(
            eng, "turn quokka mode on", max_tokens=4000, source="fx", depth=1, sections=1
        )
    finally:
        eng.close()
    (setup,) = [s for s in digest.sections if s.candidate.origin == "search"]
    assert setup.candidate.heading == "Quokka setup" and "PinnedInt" in setup.text
    crossrefs = [
        (s.candidate.path, s.candidate.heading) for s in digest.sections if s.candidate.origin == "crossref"
    ]
    assert crossrefs == [("ops.md", "Operations")]
    # the grown text keeps the page's line numbers (a trimmed range and a mention's line are
    # counted from the section's first line): each of its lines is the page's line there
    page = LINKED.split("\n")
    grown = setup.candidate.text.split("\n")
    assert (setup.candidate.line_start, setup.candidate.line_end) == (3, 16)
    assert [i for i, line in enumerate(grown) if line.startswith("#")] == [0, 5, 11]
    for i, line in enumerate(grown):
        assert page[setup.candidate.line_start - 1 + i] == line, (i, line)


RST = """Strictness
==========

Field level
-----------

Set ``quokka=True`` on one field to make that field refuse coercion.

Using Strict
^^^^^^^^^^^^

The alias ``PinnedInt`` is the same as an int with that behaviour switched on.

Other level
-----------

Wombats and their burrows.
"""


def test_rest_subsections_come_as_headings(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "strict.rst").write_text(RST, encoding="utf-8")
    eng = Docmentor(str(tmp_path / "db"), embeddings=False)
    try:
        eng.add(str(docs), name="fx")
        digest = assemble_context(eng, QUESTION, max_tokens=4000, source="fx", depth=0, sections=1)
    finally:
        eng.close()
    (field,) = digest.sections
    assert field.candidate.heading == "Field level"
    assert "Using Strict" in field.text and "PinnedInt" in field.text
    assert "^^^" not in field.text and "Wombats" not in field.text
    heading = next(line for line in field.text.split("\n") if "Using Strict" in line)
    assert heading.lstrip("#").strip() == "Using Strict" and heading.startswith("#")
