"""A code block that only lists names (imports, bare names, a ``testcode`` of what a page
documents) is the example of no API (issue 22, defect 4); a block that calls the API still is.
End to end: a throwaway package and its docs folder, indexed by the real engine."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from docmentor.engine import Docmentor
from docmentor.library import generate
from docmentor.library.examples.classify import names_only
from docmentor.library.knowledge.kb_files import load_kb

PACKAGE = '''
"""Retry things."""

__all__ = ["retry", "stop_after", "wait_fixed", "Retrying"]


def retry(*, stop: int = 3, wait: float = 0.0):
    """Retry the decorated function."""
    def wrap(fn):
        return fn
    return wrap


def stop_after(attempts: int) -> int:
    """Stop after ``attempts`` attempts."""
    return attempts


def wait_fixed(seconds: float) -> float:
    """Wait ``seconds`` between attempts."""
    return seconds


class Retrying:
    """A retrying controller."""

    def call(self, fn) -> None:
        """Call ``fn`` with retries."""
'''

DOCS = """
# API

The helpers this page documents:

```python
from backagain import retry, stop_after, wait_fixed
retry
stop_after, wait_fixed
backagain.Retrying.call
```

## Retry with a stop

```python
import backagain

@backagain.retry(stop=backagain.stop_after(5))
def flaky():
    pass
```
"""

REST = """
Reference
=========

.. testcode::

    backagain.wait_fixed
    backagain.Retrying
"""


@pytest.mark.parametrize(
    ("code", "junk"),
    [
        ("from pkg import a, b\na\nb\n", True),
        ("pkg.a\n(pkg.b, c)\n'''notes'''\npass\n", True),
        (">>> import pkg\n>>> pkg.a\n<function a>\n", True),
        ("import pkg\npkg.a()\n", False),
        ("x = pkg.a\n", False),
        ("@pkg.a\ndef f(): pass\n", False),
        ("pkg.a[0]\n", False),
        ("", False),
        ("this is not python (\n", False),
    ],
)
def test_a_block_that_lists_names_calls_nothing(code: str, junk: bool) -> None:
    assert names_only(code, "python") is junk
    assert names_only(code, "javascript") is False


def test_a_block_of_bare_names_is_shown_for_no_api(tmp_path: Path) -> None:
    lib = tmp_path / "site"
    (lib / "backagain").mkdir(parents=True)
    (lib / "backagain" / "__init__.py").write_text(PACKAGE.lstrip(), encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(textwrap.dedent(DOCS).lstrip(), encoding="utf-8")
    (docs / "reference.rst").write_text(textwrap.dedent(REST).lstrip(), encoding="utf-8")
    engine = Docmentor(tmp_path / "db")
    result = generate(
        engine,
        library="backagain",
        docs_path=docs,
        out=tmp_path / "out",
        search_paths=[lib],
        embeddings=False,
    )
    assert result.kb_path is not None and result.readme_path is not None
    kb = load_kb(result.kb_path)
    by_code = {ex.code.strip().split("\n")[0]: ex for ex in kb.examples}
    listing = by_code["from backagain import retry, stop_after, wait_fixed"]
    assert listing.apis_used == []
    assert all(listing.example_id not in e.examples for e in kb.entries)
    testcode = by_code["backagain.wait_fixed"]
    assert testcode.apis_used == []
    real = by_code["import backagain"]
    assert {"backagain.retry", "backagain.stop_after"} <= set(real.apis_used)
    readme = result.readme_path.read_text(encoding="utf-8")
    assert "@backagain.retry(stop=backagain.stop_after(5))" in readme
    assert "stop_after, wait_fixed\n" not in readme
