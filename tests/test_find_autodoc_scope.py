"""A Sphinx docs section credits what its autodoc directives document, read as Sphinx reads
them: a short name in the page's current module (``.. module::``, ``.. currentmodule::``,
``.. automodule::``; in an earlier section of the page too), and a bare ``:members:`` as the
class's members autodoc shows (public, with a docstring; ``:undoc-members:``,
``:inherited-members:``, ``:exclude-members:``, ``:private-members:``, ``:special-members:``).
On a throwaway package read by the real surface (griffe) and its reST docs indexed by a real
Docmentor."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from docmentor.engine import Docmentor
from docmentor.library.find.config import DEFAULT
from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python import ApiSurface, load_api
from libtool import write_files

PACKAGE = {
    "loc/__init__.py": """
        '''Locales.'''
        from loc.core import Locale
        __all__ = ["Locale"]
    """,
    "loc/dates.py": """
        '''Dates.'''

        def parse_date(text):
            '''A date from its text.'''

        def parse_pattern(pattern):
            '''A date pattern.'''
    """,
    "loc/numbers.py": """
        '''Numbers.'''

        def parse_decimal(text):
            '''A decimal from its text.'''

        def parse_pattern(pattern):
            '''A number pattern.'''
    """,
    "loc/core.py": """
        '''The core.'''

        class Base:
            '''What every locale has.'''

            def describe(self):
                '''A description of it.'''

            def shared(self):
                '''What every locale shares.'''

        class Locale(Base):
            '''A locale.'''

            def parse(self, identifier):
                '''A locale from its identifier.'''

            @property
            def first_week_day(self):
                '''The first day of a week.'''

            def plain(self):
                return 0

            def shared(self):
                return 1
    """,
}

DOCS = """
Dates
=====

.. module:: loc.dates

Dates written and read the way each locale does.

Basic Parsing
-------------

.. autofunction:: parse_date

.. autofunction:: parse_pattern

Locales
-------

.. currentmodule:: loc.core

.. autoclass:: Locale
   :members:
"""

DATES, NUMBERS = "loc.dates.parse_pattern", "loc.numbers.parse_pattern"
PARSE, FIRST = "loc.core.Locale.parse", "loc.core.Locale.first_week_day"
PLAIN, SHARED, DESCRIBE = "loc.core.Locale.plain", "loc.core.Locale.shared", "loc.core.Base.describe"


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    root = tmp_path_factory.mktemp("pkg")
    write_files(root, PACKAGE)
    return load_api("loc", search_paths=[root])


@pytest.fixture(scope="module")
def resolver(surface: ApiSurface) -> MentionResolver:
    return MentionResolver(surface.entries)


@pytest.fixture(scope="module")
def sections(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The docs' sections as the engine's search finds them, by their last heading."""
    root = tmp_path_factory.mktemp("docs")
    (root / "docs").mkdir()
    (root / "docs" / "dates.rst").write_text(DOCS.lstrip(), encoding="utf-8")
    engine = Docmentor(root / "index")
    try:
        engine.add(str(root / "docs"), name="loc-docs")
        hits = list(engine.search("parse pattern locale", source="loc-docs", snippets=False))
    finally:
        engine.close()
    return {h.heading_path[-1]: h for h in hits if h.heading_path}


def test_the_fixture_shares_a_short_name_between_modules(surface: ApiSurface) -> None:
    ids = {e.api_id for e in surface.entries}
    assert {DATES, NUMBERS, PARSE, FIRST, PLAIN, SHARED, DESCRIBE} <= ids


def test_a_section_reads_short_names_in_the_module_an_earlier_section_set(
    resolver: MentionResolver, sections: dict[str, Any]
) -> None:
    section = sections["Basic Parsing"]
    assert ".. module::" not in section.text  # the page's first section has it
    credit = resolver.section_apis(section)
    assert credit.get(DATES) == DEFAULT.documents_weight
    assert credit.get("loc.dates.parse_date") == DEFAULT.documents_weight
    assert NUMBERS not in credit


def test_a_module_line_sets_the_module_of_the_names_after_it(resolver: MentionResolver) -> None:
    def named(text: str, module: str | None = None) -> set[str]:
        return resolver.directive_apis(text, module=module)[0]

    assert named(".. module:: loc.numbers\n\n.. autofunction:: parse_pattern\n") == {NUMBERS}
    assert named(".. currentmodule:: loc.dates\n\n.. autofunction:: parse_pattern\n") == {DATES}
    assert named(".. automodule:: loc.numbers\n\n.. autofunction:: parse_pattern\n") == {NUMBERS}
    assert named("```{currentmodule} loc.numbers\n```\n\n```{autofunction} parse_pattern\n```\n") == {NUMBERS}
    # each name in the module in force where it is written
    two = ".. module:: loc.dates\n\n.. autofunction:: parse_pattern\n\n.. module:: loc.numbers\n\n.. autofunction:: parse_decimal\n"
    assert named(two) == {DATES, "loc.numbers.parse_decimal"}
    # the module at the text's start, given; "" none
    assert named(".. autofunction:: parse_pattern\n", module="loc.numbers") == {NUMBERS}
    assert named(".. module:: loc.dates\n\n.. autofunction:: parse_pattern\n", module="loc.numbers") == {
        DATES
    }
    # a dotted path as written; a name the module has not, as before
    assert named(".. module:: loc.dates\n\n.. autofunction:: loc.numbers.parse_pattern\n") == {NUMBERS}
    assert named(".. module:: loc.dates\n\n.. autoclass:: Locale\n") == {"loc.core.Locale"}


def test_without_a_current_module_a_shared_name_is_each_api(resolver: MentionResolver) -> None:
    both = {DATES, NUMBERS}
    assert resolver.directive_apis(".. autofunction:: parse_pattern\n")[0] == both
    assert resolver.directive_apis(".. autofunction:: parse_pattern\n", module="")[0] == both
    reset = ".. module:: loc.dates\n\n.. currentmodule:: None\n\n.. autofunction:: parse_pattern\n"
    assert resolver.directive_apis(reset)[0] == both
    # names that share no module say nothing of the page's
    mixed = (
        ".. autofunction:: parse_date\n\n.. autofunction:: parse_decimal\n\n.. autofunction:: parse_pattern\n"
    )
    assert resolver.directive_apis(mixed)[0] == {"loc.dates.parse_date", "loc.numbers.parse_decimal", *both}


def test_a_bare_members_option_credits_the_members_autodoc_shows(
    resolver: MentionResolver, sections: dict[str, Any]
) -> None:
    credit = resolver.section_apis(sections["Locales"])
    assert credit.get("loc.core.Locale") == DEFAULT.documents_weight
    # public, with a docstring (its own, or its base's same-named method's: `shared`)
    assert {api for api in credit if api != "loc.core.Locale"} == {PARSE, FIRST, SHARED}
    assert all(credit[api] == DEFAULT.uses_weight for api in (PARSE, FIRST, SHARED))


def test_the_options_that_change_which_members_autodoc_shows(resolver: MentionResolver) -> None:
    def members(*options: str) -> set[str]:
        text = "\n".join([".. autoclass:: Locale", "   :members:", *(f"   {o}" for o in options)])
        return resolver.directive_apis(text + "\n")[1]

    assert members() == {PARSE, FIRST, SHARED}
    assert members(":undoc-members:") == {PARSE, FIRST, SHARED, PLAIN}
    assert members(":inherited-members:") == {PARSE, FIRST, SHARED, DESCRIBE}  # Locale's own `shared`
    assert members(":inherited-members: Base") == {PARSE, FIRST, SHARED}  # not Base's
    assert members(":exclude-members: parse,", "   first_week_day") == {SHARED}
    # the names it lists, as before
    assert resolver.directive_apis(".. autoclass:: Locale\n   :members: plain\n")[1] == {PLAIN}


def _api(api_id: str, kind: Literal["class", "method"], doc: str = "", parent: str | None = None) -> ApiEntry:
    return ApiEntry(api_id=api_id, kind=kind, name=api_id.rsplit(".", 1)[-1], parent=parent, docstring=doc)


def test_private_and_special_members_only_when_asked() -> None:
    cls = "pkg.Box"
    entries = [
        _api(cls, "class", "A box."),
        _api("pkg.Box.open", "method", "Open it.", cls),
        _api("pkg.Box._seal", "method", "Seal it.", cls),
        _api("pkg.Box.__iter__", "method", "Its items.", cls),
        _api("pkg.Box.__len__", "method", "How many.", cls),
    ]
    resolver = MentionResolver(entries)

    def members(*options: str) -> set[str]:
        text = "\n".join([".. autoclass:: pkg.Box", "   :members:", *(f"   {o}" for o in options)])
        return resolver.directive_apis(text + "\n")[1]

    assert members() == {"pkg.Box.open"}
    assert members(":private-members:") == {"pkg.Box.open", "pkg.Box._seal"}
    assert members(":special-members: __iter__") == {"pkg.Box.open", "pkg.Box.__iter__"}
    assert members(":special-members:") == {"pkg.Box.open", "pkg.Box.__iter__", "pkg.Box.__len__"}
