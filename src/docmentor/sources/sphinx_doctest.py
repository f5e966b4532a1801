"""The set-up code sphinx.ext.doctest runs before a page's doctests and no reader sees: the
``doctest_global_setup`` of the docs' ``conf.py`` (every page) and a page's own ``..
testsetup::`` directives or MyST ```` ```{testsetup} ```` fences. cattrs' docs import
``cattrs``, ``Factory`` and ``field`` only there, so its examples use names they never bind.

They are page context for the matcher and drift (what they bind types the page's examples)
and the code ``--validate`` runs first when an example of the page fails on a name it does
not define; never examples themselves. ``conf.py`` is read, never run: only a literal string
assigned to ``doctest_global_setup`` counts.
"""

from __future__ import annotations

import ast
import logging
from functools import lru_cache
from pathlib import Path

from docmentor.models import CodeBlock
from docmentor.parse.markdown import setup_blocks as markdown_setup_blocks
from docmentor.parse.rst import setup_blocks as rst_setup_blocks

__all__ = ["MAX_CONF_BYTES", "global_setup", "page_setup_blocks"]

logger = logging.getLogger(__name__)

MAX_CONF_BYTES = 1_000_000  # a Sphinx conf.py is a few kilobytes
_CONF_PLACES = ("conf.py", "source/conf.py", "docs/conf.py", "doc/conf.py")


def global_setup(folder: Path | None) -> str:
    """The ``doctest_global_setup`` string of the Sphinx ``conf.py`` of a docs folder (in it
    or its ``source/``), "" when there is none or it is not a literal string. Read once per
    version of the file (clarity asks for every page of a folder)."""
    if folder is None:
        return ""
    for place in _CONF_PLACES:
        conf = folder / place
        try:
            if not conf.is_file():
                continue
            stat = conf.stat()
        except OSError:
            continue
        if stat.st_size > MAX_CONF_BYTES:
            continue
        found = _conf_setup(str(conf), stat.st_mtime_ns, stat.st_size)
        if found is not None:
            return found  # the first conf.py that parses is the docs'
    return ""


@lru_cache(maxsize=32)
def _conf_setup(conf: str, _mtime_ns: int, _size: int) -> str | None:
    """:func:`global_setup` of one version of one ``conf.py`` (keyed by its time and size);
    None when it does not parse."""
    try:
        tree = ast.parse(Path(conf).read_bytes(), filename=conf)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        logger.info("cannot read %s for its doctest set-up: %s", conf, exc)
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "doctest_global_setup" for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value.strip("\n") + "\n"
    return ""


def page_setup_blocks(path: str, text: str) -> list[CodeBlock]:
    """A page's own set-up blocks, by its format (a reST or a Markdown page)."""
    if "testsetup" not in text:
        return []
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix in ("rst", "rest", "txt"):
        return rst_setup_blocks(text)
    if suffix in ("md", "markdown", "mdx"):
        return markdown_setup_blocks(text)
    return []
