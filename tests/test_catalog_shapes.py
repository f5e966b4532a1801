"""Library shapes a new-user tour met (issue 22): a return class only the docstring names, an
``__all__`` of submodules only, a property made by calling ``property``, and class names that
are capitalised English words. On a throwaway package."""

from __future__ import annotations

import textwrap

import pytest

from docmentor.library.knowledge.importance import count_mentions, reached_products
from docmentor.library.knowledge.mentions import MentionResolver
from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python import ApiSurface, load_api
from docmentor.library.surface.declared_returns import Declared, declared_return

FILES = {
    "__init__.py": '''
        """A tiny SQL reader."""
        from tokpkg import sql

        __all__ = ["sql"]


        def parse(text, encoding=None):
            """Parse ``text`` into statements.

            :param text: the SQL.
            :param encoding: its encoding.
            :returns: A tuple of :class:`~tokpkg.sql.Statement` instances.
            """
            return ()


        def first(text):
            """The first statement of ``text``.

            :param text: the SQL.
            :rtype: :class:`~tokpkg.sql.Statement`
            """


        def made():
            """A statement made from nothing.

            :rtype: :class:`~tokpkg.sql.Statement`
            """


        def either(text):
            """A statement or a case.

            :returns: a :class:`~tokpkg.sql.Statement` or a :class:`~tokpkg.sql.Case`.
            """


        def _hidden():
            """Not an API."""
        ''',
    "sql.py": '''
        """Statements and tokens."""
        from __future__ import annotations


        class Statement:
            """One statement."""

            def get_type(self) -> str:
                """SELECT, INSERT, ..."""
                return "SELECT"

            def get_name(self) -> str:
                """The statement's name, if it has one."""
                return ""

            def set_name(self, value: str) -> None:
                """Rename it."""

            def get_case(self) -> Case | None:
                """Its CASE expression, if any."""
                return None

            name = property(get_name)
            label = property(get_name, doc="A label for display.")
            title = property(get_name, set_name)
            case = property(get_case)


        class Case:
            """A CASE expression."""


        def tokens(text: str) -> tuple[Statement, ...]:
            """Every statement."""
            return ()


        def pair(text: str) -> tuple[Statement, Case]:
            """A statement and a case."""
            raise NotImplementedError
        ''',
    "checks.py": '''
        """Checks, each a class, each also by a lower-case name."""

        __all__ = ["Length", "length", "LEN", "DEFAULT_CHECK", "Base", "Strict", "limit"]


        class Base:
            """What every check does."""

            def fix(self, value):
                """Fix ``value``."""


        class Strict(Base):
            """A check that fails loudly."""


        class Length:
            """The length is within bounds."""

            def __init__(self, low: int = 0, high: int = -1) -> None:
                self.low, self.high = low, high


        length = Length
        LEN = Length  # an acronym: another name too
        DEFAULT_CHECK = Length  # a constant's name: a setting that holds the class
        limit: type = Length  # a typed setting that holds a class, not another name for it
        ''',
    "locks.py": '''
        """Locks, where threads exist."""

        __all__ = ["RLock", "fast", "Guard", "cached_property"]

        try:
            from threading import RLock
        except ImportError:

            class RLock:
                """A stand-in for builds without threads."""

        try:
            from functools import cached_property
        except ImportError:

            @staticmethod
            class cached_property:
                """A decorated stand-in."""

        try:
            from tokpkg._speedups import fast
        except ImportError:

            def fast(x):
                """The pure-Python version: this package's own API."""


        class Guard:
            """Holds a lock."""
        ''',
}


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    root = tmp_path_factory.mktemp("site")
    (root / "tokpkg").mkdir()
    for name, text in FILES.items():
        (root / "tokpkg" / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return load_api("tokpkg", search_paths=[root])


def entry(surface: ApiSurface, api_id: str) -> ApiEntry:
    found = [e for e in surface.entries if e.api_id == api_id]
    assert len(found) == 1, (api_id, [e.api_id for e in surface.entries])
    return found[0]


def test_an_all_of_submodules_only_leaves_the_package_functions_public(surface: ApiSurface) -> None:
    ids = {e.api_id for e in surface.entries}
    assert {"tokpkg.parse", "tokpkg.first", "tokpkg.either"} <= ids
    assert entry(surface, "tokpkg.parse").internal is None
    assert "tokpkg._hidden" not in ids


def test_the_class_a_docstring_says_is_returned(surface: ApiSurface) -> None:
    parse = entry(surface, "tokpkg.parse").returns
    assert parse is not None and parse.item_class_id == "tokpkg.sql.Statement" and parse.class_id is None
    first = entry(surface, "tokpkg.first").returns
    assert first is not None and first.class_id == "tokpkg.sql.Statement"
    made = entry(surface, "tokpkg.made").returns  # an `:rtype:` field alone
    assert made is not None and made.class_id == "tokpkg.sql.Statement"
    # two classes named: a choice the text explains, no return class
    either = entry(surface, "tokpkg.either").returns
    assert either is not None and either.class_id is None and either.item_class_id is None


def test_a_tuple_of_one_type_gives_its_items_and_a_fixed_tuple_none(surface: ApiSurface) -> None:
    tokens = entry(surface, "tokpkg.sql.tokens").returns
    assert tokens is not None and tokens.item_class_id == "tokpkg.sql.Statement"
    pair = entry(surface, "tokpkg.sql.pair").returns
    assert pair is not None and pair.item_class_id is None and pair.class_id is None


def test_a_class_reached_through_returned_items_is_a_product(surface: ApiSurface) -> None:
    direct = ("tokpkg.first", "tokpkg.made")  # they return the class itself
    entries = [e for e in surface.entries if e.api_id not in direct]
    assert reached_products(entries, surface.products, "tokpkg").get("tokpkg.sql.Statement") == "tokpkg.parse"


def test_a_property_made_by_calling_property(surface: ApiSurface) -> None:
    name = entry(surface, "tokpkg.sql.Statement.name")
    assert name.kind == "property"
    assert name.signature == "name: str"
    assert name.description == "The statement's name, if it has one."
    label = entry(surface, "tokpkg.sql.Statement.label")
    assert label.kind == "property" and label.description == "A label for display."
    assert name.writable is False and entry(surface, "tokpkg.sql.Statement.title").writable is True
    case = entry(surface, "tokpkg.sql.Statement.case").returns  # the getter's `Case | None`
    assert case is not None and case.class_id == "tokpkg.sql.Case"


@pytest.mark.parametrize(
    ("type_text", "description", "expected"),
    [
        (None, "A tuple of :class:`~pkg.sql.Statement` instances.", Declared("pkg.sql.Statement", True)),
        (None, "the :class:`new table <Table>`", Declared("Table", False)),
        (None, ":py:class:`pkg.Row` objects, one per line", Declared("pkg.Row", True)),
        ("list of Statement", None, Declared("Statement", True)),
        ("list[Statement]", None, Declared("Statement", True)),
        ("Statement", "anything", Declared("Statement", False)),
        (None, "A list of strings.", None),
        (None, "a :class:`A` or a :class:`B`", None),
        (None, "The :class:`Config` set from the list.", Declared("Config", False)),
        (None, "the :class:`Foo`, or :obj:`None`", Declared("Foo", False)),
        (None, "dict mapping str to :class:`Foo`", None),
        ("Foo or None", None, Declared("Foo", False)),
        ("Optional[Foo]", None, Declared("Foo", False)),
        ("dict[str, Foo]", None, None),
        ("a list of every statement the text holds, in order " * 10, None, None),
    ],
)
def test_declared_return(type_text: str | None, description: str | None, expected: Declared | None) -> None:
    assert declared_return(type_text, description) == expected


def _named(api_id: str) -> ApiEntry:
    return ApiEntry(api_id=api_id, name=api_id.rsplit(".", 1)[-1], kind="class")


def test_a_capitalised_word_opening_a_sentence_is_no_mention_of_a_class() -> None:
    entries = [_named("tokpkg.sql.If"), _named("tokpkg.sql.Table"), _named("tokpkg.sql.ValueFilter")]
    texts = [
        "If ``True`` comments are removed.\n\n- If set, the output is indented.\n",
        "1. Case one. If it fails, try again: If not, stop.\n",
        "The Table holds rows; a Table is made by `connect`. Table rows are plain.\n",
        "ValueFilter drops values. Use ValueFilter here.\n",
        "Wrap it in an If when the condition is known.\n",
    ]
    texts += [
        "Open a table, wrap it in an\nIf and pass the\nTable on.\n",  # lines wrapped mid-sentence
        "Note: Table objects are plain. Returns:\nIf nothing else.\n",  # a label's colon; a field's
    ]
    counts = count_mentions(texts, entries)
    # "in an If", wrapped or not, and "again: If" (a colon inside a line ends a label, not a
    # sentence); none of the sentences, list items and fields it opens
    assert counts["tokpkg.sql.If"] == 3
    assert counts["tokpkg.sql.Table"] == 4  # "Table rows" opens a sentence
    assert counts["tokpkg.sql.ValueFilter"] == 2  # a name with inner capitals is one anywhere


def test_declared_return_runs_in_linear_time() -> None:
    import time

    # role openings without an end, and a long title before a `<` that never comes
    text = ":class:`" * 20_000 + ":class:`" + "x" * 100_000
    t = time.perf_counter()
    assert declared_return(text[:80_000], text) is None
    assert time.perf_counter() - t < 2.0


def test_a_module_name_bound_to_a_class_is_another_name_for_it(surface: ApiSurface) -> None:
    ids = {e.api_id for e in surface.entries}
    assert "tokpkg.checks.length" not in ids  # no data attribute of its own
    assert "tokpkg.checks.length" in entry(surface, "tokpkg.checks.Length").aliases
    assert "tokpkg.checks.LEN" in entry(surface, "tokpkg.checks.Length").aliases
    assert entry(surface, "tokpkg.checks.limit").kind == "attribute"
    assert entry(surface, "tokpkg.checks.DEFAULT_CHECK").kind == "attribute"


def test_a_member_directive_under_a_subclass_names_the_inherited_member(surface: ApiSurface) -> None:
    resolver = MentionResolver(surface.entries)
    assert resolver.member("tokpkg.checks.Strict", "fix") == "tokpkg.checks.Base.fix"
    assert resolver.member("tokpkg.checks.Strict", "nothing") is None
    text = ".. class:: Strict\n\n   .. automethod:: fix\n"
    assert "tokpkg.checks.Base.fix" in resolver.directive_apis(text)[0]


def test_a_stand_in_defined_when_another_package_import_fails_is_no_api(surface: ApiSurface) -> None:
    ids = {e.api_id for e in surface.entries}
    assert "tokpkg.locks.Guard" in ids
    assert "tokpkg.locks.RLock" not in ids  # at run time it is threading's
    assert "tokpkg.locks.fast" in ids  # the package's own fallback is its API
    assert "tokpkg.locks.cached_property" not in ids  # decorated: griffe's line is the decorator's
