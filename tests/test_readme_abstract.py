"""README.LLM shows no constructor call for a class users never construct (an anyio tour:
`anyio.abc.TaskGroup()` "Returns: TaskGroup - a new instance" raises TypeError, and
`EndOfStream(...)` read as something to build)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from docmentor.library.knowledge.importance import score_importance
from docmentor.library.knowledge.readme import render_readme
from docmentor.library.surface.api_python import load_api

PACKAGE = '''
    """Tasks."""
    from abc import ABC, abstractmethod

    __all__ = ["TaskGroup", "create_task_group", "EndOfStream", "BrokenError", "Event", "Base", "Concrete",
               "create_stream", "Send", "Receive", "Backend"]


    class Send:
        """Sends."""


    class Receive:
        """Receives."""


    class create_stream(tuple["Send", "Receive"]):
        """Create a memory object stream."""

        def __new__(cls, max_buffer_size: float = 0) -> tuple[Send, Receive]:
            """Make both ends.

            :return: a tuple of (send stream, receive stream)
            """


    class TaskGroup(ABC):
        """Groups tasks."""

        @abstractmethod
        def start_soon(self, func):
            """Start a task."""


    def create_task_group() -> TaskGroup:
        """A new task group."""


    class Backend:
        """A backend interface."""

        def create_task_group(self) -> TaskGroup:
            """The backend's task group."""


    class EndOfStream(Exception):
        """The other end closed the stream."""


    class BrokenError(EndOfStream):
        """Broken."""


    class Event:
        """An event."""


    class Base(ABC):
        """A base."""

        @abstractmethod
        def run(self):
            """Run."""


    class Concrete(Base):
        """Runs."""

        def run(self):
            """Run it."""
'''


def test_abstract_classes_and_exceptions_are_shown_as_what_they_are(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "__init__.py").write_text(textwrap.dedent(PACKAGE), encoding="utf-8")
    surface = load_api("tasks", search_paths=[tmp_path])
    by_name = {e.name: e for e in surface.entries}
    assert by_name["TaskGroup"].abstract and by_name["Base"].abstract
    assert not by_name["Concrete"].abstract and not by_name["Event"].abstract  # implemented
    assert by_name["EndOfStream"].exception and by_name["BrokenError"].exception
    assert not by_name["Event"].exception
    score_importance(surface.entries, [], {})
    text = render_readme("tasks", "1.0", surface.entries, [], validated=False)
    # a function before a method: the backend interface's method is not named
    assert "TaskGroup is abstract: not constructed directly; get one from tasks.create_task_group()\n" in text
    assert "Base is abstract: not constructed directly; subclass it" in text
    assert "EndOfStream - an exception: `except tasks.EndOfStream:`" in text
    assert "Event - a new instance" in text and "Concrete - a new instance" in text
    assert "TaskGroup - a new instance" not in text and "EndOfStream - a new instance" not in text
    # a class whose __new__ gives something else (anyio's create_memory_object_stream)
    assert "tuple[Send, Receive] - a tuple of (send stream, receive stream)" in text, text
    assert "create_stream - a new instance" not in text


def test_a_keyword_taken_through_kwargs_shows_no_made_up_default(tmp_path: Path) -> None:
    """A Python-Markdown tour: the keywords a function documents and takes through
    `**kwargs` showed "default: None", contradicting their text ("Default: `True`")."""
    (tmp_path / "hl").mkdir()
    (tmp_path / "hl" / "__init__.py").write_text(
        '"""Highlight."""\n__all__ = ["highlight"]\n\n\ndef highlight(src, **options):\n'
        '    """Highlight code.\n\n    :param src: The code.\n    :param guess_lang: Guess the language. Default: `True`.\n    """\n',
        encoding="utf-8",
    )
    surface = load_api("hl", search_paths=[tmp_path])
    score_importance(surface.entries, [], {})
    text = render_readme("hl", "1.0", surface.entries, [], validated=False)
    assert "- guess_lang (optional, keyword-only): Guess the language. Default: `True`." in text, text
