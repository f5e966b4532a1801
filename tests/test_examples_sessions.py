"""A doctest session's kind and its statements (a new-user tour of Babel 2.16.0): a ``pycon``
block or a ``::`` literal block whose first line is a ``# comment`` is still a session, and
credits what it calls; a session's statement that does not parse (a Python 2 ``print name``)
is dropped alone, its others still credited and checked for drift. On a throwaway package
through the real ``generate``."""

from __future__ import annotations

import ast
from pathlib import Path

from docmentor.library.examples.code_analysis import python_reading, untagged_python
from docmentor.library.knowledge.kb_schema import KnowledgeBase
from libtool import generated_kb

PACKAGE = {
    "nums/__init__.py": """
        '''Numbers and locales.'''
        from nums.core import Locale, format_decimal, format_percent
        __all__ = ["Locale", "format_decimal", "format_percent"]
    """,
    "nums/core.py": """
        '''Formatting.'''

        class Locale:
            '''A locale.'''

            def __init__(self, name: str) -> None:
                self.name = name

            def month_names(self) -> dict:
                '''The names of the months.'''
                return {}

        def format_decimal(number: float, locale: str = "en") -> str:
            '''A decimal number, formatted.'''
            return str(number)

        def format_percent(number: float, locale: str = "en") -> str:
            '''A percentage, formatted.'''
            return str(number)
    """,
    "docs/numbers.rst": """
        Numbers
        =======

        Examples:

        .. code-block:: pycon

            # Numbers with decimal places
            >>> from nums import format_decimal
            >>> format_decimal(1.2345, locale='en_US')
            u'1.234'
            # Integers with thousand grouping
            >>> format_decimal(12345, locale='de_DE')
            u'12.345'

        Percentages, in a literal block::

            # Percent
            >>> from nums import format_percent

            >>> format_percent(0.34, locale='en_US')
            u'34%'
    """,
    "docs/locale.rst": """
        Locales
        =======

        .. code-block:: pycon

            >>> from nums import Locale, format_decimal
            >>> locale = Locale('es')
            >>> for idx, name in sorted(locale.month_names()):
            ...     print name
            enero
            >>> format_decimal(1.5, locale='es', grouping=True)
            '1,5'
    """,
}


def _kb(tmp_path: Path) -> KnowledgeBase:
    return generated_kb(tmp_path, "nums", PACKAGE)


def test_a_session_led_by_a_comment_credits_what_it_calls(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    pycon, literal = [ex for ex in kb.examples if ex.origin == "docs" and ex.path == "numbers.rst"]
    assert pycon.language == literal.language == "python"
    assert pycon.code.startswith("# Numbers with decimal places")
    assert pycon.apis_used == ["nums.core.format_decimal"]
    assert literal.code.startswith("# Percent")  # an untagged block: Python all the same
    assert literal.apis_used == ["nums.core.format_percent"]


def test_a_statement_that_does_not_parse_drops_only_itself(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    (session,) = [ex for ex in kb.examples if ex.origin == "docs" and ex.path == "locale.rst"]
    assert session.apis_used == ["nums.core.Locale", "nums.core.format_decimal"]
    # drift reads the session's other statements: the keyword format_decimal does not take
    # is reported at its line; the Python 2 line is neither reported nor in the way
    assert kb.drift is not None
    found = [(f["path"], f["api"], f["kind"], f["line"]) for f in kb.drift["findings"]]
    assert found == [("locale.rst", "format_decimal", "invalid_api_signature", 11)]


def test_a_dropped_statement_unbinds_the_names_it_binds() -> None:
    code = (
        ">>> loc = make('es')\n"
        ">>> loc, other = make('fr'), print 'x'\n"  # does not parse: `loc` is no longer known
        ">>> loc.name\n"
        "'fr'\n"
    )
    tree, how = python_reading(code)
    assert how == "statements dropped" and tree is not None
    assert [ast.unparse(s) for s in tree.body] == ["loc = make('es')", "loc = other = None", "loc.name"]
    assert [s.lineno for s in tree.body] == [1, 2, 3]  # the prepared source's lines, in place


def test_a_blocks_kind_is_its_first_line_of_code() -> None:
    assert untagged_python("# a comment\n\n>>> import json\n>>> json.dumps(1)\n'1'\n") == "python"
    assert untagged_python(">>> import json\n>>> print json.dumps(1)\n") == "python"
    assert untagged_python("# Output\nenero\nfebrero\n") == ""  # prose stays prose
    assert python_reading("# install it\n$ pip install nums\n") == (None, "skipped")  # a shell session
    assert python_reading("# only a comment\n")[1] == "as written"
