"""find_api: a task that asks which exception the library raises lists its exception classes
first (a packaging tour: "which error is raised when a version string does not follow the
standard scheme" put InvalidVersion 5th, behind the functions that raise it)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from docmentor.library.find.config import DEFAULT
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.find.roles import asks_for_error
from docmentor.library.knowledge.importance import score_importance
from docmentor.library.surface.api_python import load_api

PACKAGE = '''
    """Versions."""

    __all__ = ["parse_version", "InvalidVersion", "Version"]


    class InvalidVersion(ValueError):
        """Raised when a version string is not a valid version."""


    class Version:
        """A parsed version string."""


    def parse_version(text: str) -> Version:
        """Parse a version string; an error is raised when it is not a valid version string."""
'''


def test_which_tasks_ask_for_an_exception() -> None:
    for task in ("which exception is raised when the string is bad", "the error raised when parsing fails",
                 "exception thrown if the peer closed", "which error do I catch for bad input"):  # fmt: skip
        assert asks_for_error(task), task
    for task in ("raise a timeout error if it takes too long", "parse without raising errors",
                 "log every error", "errors of validation"):  # fmt: skip
        assert not asks_for_error(task), task


def test_a_task_asking_which_exception_lists_the_exception_class_first(tmp_path: Path) -> None:
    (tmp_path / "vers").mkdir()
    (tmp_path / "vers" / "__init__.py").write_text(textwrap.dedent(PACKAGE), encoding="utf-8")
    surface = load_api("vers", search_paths=[tmp_path])
    score_importance(surface.entries, [], {})
    task = "which error is raised when I parse a version string that is not a valid version"
    index = ApiIndex({"vers": (surface.entries, [])})
    assert index.find(task, limit=3)[0].entry.name == "InvalidVersion"
    flat = ApiIndex({"vers": (surface.entries, [])}, config=DEFAULT.replace(exception_weight=1.0))
    assert flat.find(task, limit=3)[0].entry.name == "parse_version"  # without it: the test can fail


GROUPS = '''
    """Requirements."""

    __all__ = ["parse_requirement", "InvalidRequirement", "ExceptionGroup"]


    class InvalidRequirement(ValueError):
        """A requirement string that could not be parsed."""


    class ExceptionGroup(Exception):
        """A minimal implementation of the exception group of newer Pythons: one exception
        that carries several exceptions."""


    def parse_requirement(text: str) -> str:
        """Parse a requirement string."""
'''


def test_an_error_tasks_intent_words_do_not_match_exception_names(tmp_path: Path) -> None:
    """ "Which exception …" says what kind of answer (the exception classes are lifted for it),
    not what it is about: an exception class named after exceptions (a compatibility
    ``ExceptionGroup``) is no better answer for it (a packaging tour task)."""
    (tmp_path / "reqs").mkdir()
    (tmp_path / "reqs" / "__init__.py").write_text(textwrap.dedent(GROUPS), encoding="utf-8")
    surface = load_api("reqs", search_paths=[tmp_path])
    score_importance(surface.entries, [], {})
    index = ApiIndex({"reqs": (surface.entries, [])})
    found = index.find("which exception signals that a requirement text could not be read", limit=3)
    assert found[0].entry.name == "InvalidRequirement"
    # the same words asked without that intent still match the class named after them
    found = index.find("an exception that carries several exceptions", limit=3)
    assert found[0].entry.name == "ExceptionGroup"


def test_a_task_of_intent_words_only_still_lists_exceptions(tmp_path: Path) -> None:
    """ "Which exception?" has no other words: its own words rank, as before."""
    (tmp_path / "reqs").mkdir()
    (tmp_path / "reqs" / "__init__.py").write_text(textwrap.dedent(GROUPS), encoding="utf-8")
    surface = load_api("reqs", search_paths=[tmp_path])
    score_importance(surface.entries, [], {})
    found = ApiIndex({"reqs": (surface.entries, [])}).find("which exception?", limit=3)
    assert found and found[0].entry.exception
