"""Examples a reST page writes as Sphinx reads them (issue 22): a doctest block (a paragraph
that opens with ``>>>``, no ``::`` before it) is an example; its names are those of the
page's current module (``.. module::`` / ``.. currentmodule::``), so ``NativeEnv()`` under
``.. module:: tpl.native`` is that module's class; a session whose strings hold a template
(``'{{ x + y }}'``) is still Python. Drift checks them. On a throwaway package through the
real ``generate``."""

from __future__ import annotations

from pathlib import Path

from docmentor.library.knowledge.kb_schema import KnowledgeBase
from libtool import generated_kb

PACKAGE = {
    "tpl/__init__.py": """
        '''Templates.'''
        from tpl.env import Env
        __all__ = ["Env"]
    """,
    "tpl/env.py": """
        '''The environment.'''

        class Env:
            '''Renders templates.'''

            def from_string(self, source: str) -> "Env":
                '''A template from its source.'''
                return self

            def render(self, **values: object) -> str:
                '''The template, rendered.'''
                return ""
    """,
    "tpl/native.py": """
        '''Native types.'''
        from tpl.env import Env

        class NativeEnv(Env):
            '''Renders to native Python types.'''

        def native_concat(values: list) -> object:
            '''Concatenate values natively.'''

        def open(url: str) -> object:
            '''Open a template by URL (a name Python's builtins have too).'''
    """,
    "docs/native.rst": """
        Native Types
        ============

        .. module:: tpl.native

        Render to Python types:

        >>> env = NativeEnv()
        >>> env.from_string('{{ x + y }}').render(x=4, y=2)
        6

        Join the parts:

        >>> native_concat(["a"], sep=",")
        'a'

        The builtin stays the builtin:

        >>> open("notes.txt", "w", encoding="utf-8").close()

        .. currentmodule:: tpl.env

        >>> Env().render()

        .. currentmodule:: None

        >>> Env()
    """,
    "docs/other.rst": """
        Other
        =====

        No current module here: a bare name is nobody's.

        >>> NativeEnv()
    """,
}


def _kb(tmp_path: Path) -> KnowledgeBase:
    return generated_kb(tmp_path, "tpl", PACKAGE)


def test_doctest_blocks_under_a_current_module_are_its_examples(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    examples = {(ex.path, ex.code.split("\n")[0]): ex for ex in kb.examples if ex.origin == "docs"}
    native = examples[("native.rst", ">>> env = NativeEnv()")]
    assert native.language == "python" and native.line == 7  # the line before the prompt
    # the page's module binds the class; its inherited methods are the base class's
    assert native.apis_used[:3] == ["tpl.native.NativeEnv", "tpl.env.Env.from_string", "tpl.env.Env.render"]
    assert examples[("native.rst", '>>> native_concat(["a"], sep=",")')].apis_used == [
        "tpl.native.native_concat"
    ]
    assert examples[("other.rst", ">>> NativeEnv()")].apis_used == []
    # the page's module does not shadow a builtin (Sphinx's current module is for references)
    assert examples[("native.rst", '>>> open("notes.txt", "w", encoding="utf-8").close()')].apis_used == []
    # a second directive on the page switches the module
    assert examples[("native.rst", ">>> Env().render()")].apis_used == ["tpl.env.Env", "tpl.env.Env.render"]
    # and `.. currentmodule:: None` unbinds its names
    assert examples[("native.rst", ">>> Env()")].apis_used == []
    # drift reads them: the keyword native_concat does not take is reported, at its line
    assert kb.drift is not None
    found = [(f["path"], f["api"], f["line"]) for f in kb.drift["findings"]]
    assert found == [("native.rst", "native_concat", 14)]


def test_where_a_blocks_code_starts() -> None:
    from docmentor.parse.common import code_start_line as _code_line

    page = [
        ".. code-block:: python",  # 1
        "   :caption: a caption",  # 2
        "",  # 3
        "   x = f(1)",  # 4
        "",  # 5
        "```python",  # 6
        "y = g(2)",  # 7
        "```",  # 8
        "",  # 9
        "    z = h(3)",  # 10: an indented Markdown block: its code starts on its own line
    ]
    assert _code_line(page, 1, "x = f(1)\n") == 4  # past the option and the blank line
    assert _code_line(page, 6, "y = g(2)\n") is None  # the next line: nothing to record
    assert _code_line(page, 10, "z = h(3)\n") == 10
    assert _code_line(page, 1, "not on the page\n") is None
    assert _code_line(page, 1, "\n\n") is None
