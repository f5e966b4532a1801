"""A package whose ``__all__`` is built at run time and whose docs document two names by one
directive (a funcy tour: 198 of 199 APIs had no public path, and 46 entries documented on a
directive's second signature line had no words)."""

from __future__ import annotations

from pathlib import Path

from docmentor.library.knowledge.mentions import more_signatures
from docmentor.library.surface.api_python import load_api
from libtool import generated_kb, write_files

PACKAGE = {
    "fz/__init__.py": """
        from .compat import PY2

        if PY2:
            from .legacy import *  # noqa
            from .legacy import __all__
        else:
            from .modern import *  # noqa
            from .modern import __all__  # noqa
    """,
    "fz/compat.py": "PY2 = False\n",
    "fz/colls.py": '''
        __all__ = ["walk_values", "pluck", "lpluck"]


        def walk_values(f, coll):
            """Maps the values of a mapping through f."""
            return {k: f(v) for k, v in coll.items()}


        def pluck(key, mappings):
            """Iterates the values of key in each of the mappings."""
            return (m[key] for m in mappings)


        def lpluck(key, mappings):
            return list(pluck(key, mappings))
    ''',
    "fz/flow.py": '''
        __all__ = ["retry"]


        def retry(tries, errors=Exception):
            """Retries the decorated function up to tries times."""
            def decorator(func):
                return func
            return decorator
    ''',
    "fz/modern.py": """
        import sys

        from .colls import *
        from .flow import *

        modules = ("colls", "flow")
        __all__ = [name for m in modules for name in sys.modules["fz." + m].__all__]


        def lzip(*seqs):
            return list(zip(*seqs))


        __all__ += ["lzip"]
    """,
    "fz/legacy.py": """
        from .modern import *
        from .modern import __all__ as _all

        __all__ = [name for name in _all if name != "lzip"]
    """,
    "docs/colls.rst": """
        Collections
        ===========

        .. function:: walk_values(f, coll)

            Walks the values of a dict through a function::

                walk_values(str.upper, {"a": "x"})

        .. function:: pluck(key, mappings)
                      lpluck(key, mappings)

            Returns the values stored under one key in each of the mappings.
    """,
    "docs/flow.rst": """
        Flow
        ====

        .. decorator:: retry(tries, errors=Exception)

            Calls a flaky function again up to tries times::

                @retry(3, errors=HttpError)
                def download_image(url):
                    return url
    """,
}


def test_a_computed_all_publishes_what_the_interpreter_lists(tmp_path: Path) -> None:
    write_files(tmp_path, {k: v for k, v in PACKAGE.items() if k.startswith("fz/")})
    surface = load_api("fz", search_paths=[tmp_path])
    aliases = {e.api_id: set(e.aliases) for e in surface.entries}
    assert "fz.walk_values" in aliases["fz.colls.walk_values"]
    assert "fz.retry" in aliases["fz.flow.retry"]
    assert "fz.lzip" in aliases["fz.modern.lzip"]
    # the branch taken: the package's names come from `modern`, not `legacy`
    assert not any(a.startswith("fz.legacy.") for a in aliases["fz.modern.lzip"])


def test_a_further_signature_documents_its_name(tmp_path: Path) -> None:
    kb = generated_kb(tmp_path, "fz", PACKAGE)
    entries = {e.api_id: e for e in kb.entries}
    # the second signature line documents `lpluck` with the same body, as `pluck`
    assert "values stored under one key" in (entries["fz.colls.lpluck"].docs_text or "")
    assert "values stored under one key" in (entries["fz.colls.pluck"].docs_text or "")
    assert entries["fz.colls.lpluck"].documented == entries["fz.colls.pluck"].documented


def test_further_signatures_are_read_as_sphinx_reads_them() -> None:
    lines = [
        ".. function:: pluck(key, mappings)",
        "              lpluck(key, mappings)",
        "",
        ".. function:: long(a,",
        "                   b)",
        ".. function:: cont(a, \\",
        "                   b)",
        "   :noindex:",
        ".. autofunction:: fz.walk",
        "                  fz.other",
    ]
    assert more_signatures(lines, 0, 0) == ["lpluck"]
    assert more_signatures(lines, 3, 0) == []  # an open parenthesis goes on
    assert more_signatures(lines, 5, 0) == []  # a backslash goes on; an option ends the head
    assert more_signatures(lines, 8, 0) == []  # autodoc: one name per directive
