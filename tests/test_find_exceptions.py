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
    task = "which error is raised when a version string is not a valid version string"
    index = ApiIndex({"vers": (surface.entries, [])})
    assert index.find(task, limit=3)[0].entry.name == "InvalidVersion"
    flat = ApiIndex({"vers": (surface.entries, [])}, config=DEFAULT.replace(exception_weight=1.0))
    assert flat.find(task, limit=3)[0].entry.name == "parse_version"  # without it: the test can fail
