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
    assert "### The shorthand type" in field_level.text
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
