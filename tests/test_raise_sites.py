"""Where a library raises its own exceptions (``surface/raise_sites.py``): an exception class
documented by one line or not at all is described by the functions that raise it and their
messages (the PyJWT tour: "what is raised when the key-set URL cannot be reached" is answered
by ``raise PyJWKClientConnectionError(f'Fail to fetch data from the url, err: …')`` in
``PyJWKClient.fetch_data``, and by nothing the class's docs say)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from docmentor.library.find.api_text import api_doc, passage_texts
from docmentor.library.find.retrieval import ApiIndex
from docmentor.library.knowledge.importance import score_importance
from docmentor.library.models import ApiEntry
from docmentor.library.surface.api_python import load_api
from docmentor.library.surface.raise_sites import raise_sites, read_sources
from libtool import generated, write_files

PACKAGE = {
    "keys/__init__.py": '''
        """Key sets."""

        from keys.errors import FetchFailed, KeysError, MissingKey, Stale, TimeoutError
        from keys.store import Store

        __all__ = ["FetchFailed", "KeysError", "MissingKey", "Stale", "Store", "TimeoutError"]
    ''',
    "keys/errors.py": '''
        class KeysError(Exception):
            """Base class of this package's errors."""


        class MissingKey(KeysError):
            def __init__(self, key):
                message = f'Key "{key}" does not exist.'
                super().__init__(message)


        class FetchFailed(KeysError):
            pass


        class Stale(KeysError):
            """The key set is older than its lifespan allows."""

            def __init__(self):
                super().__init__("The key set is older than its lifespan allows.")


        class TimeoutError(KeysError):
            """Shares a builtin's name."""
    ''',
    "keys/store.py": '''
        from keys import errors
        from keys.errors import FetchFailed, MissingKey


        class Store:
            """A key store."""

            def get(self, key):
                """The value of ``key``."""
                raise MissingKey(key)

            def fetch(self, url):
                """Read the keys at ``url``."""
                try:
                    return open(url)
                except OSError as e:
                    raise FetchFailed(f'Fail to fetch data from the url, err: "{e}"') from e

            def _check(self, body):
                raise errors.FetchFailed("The endpoint did not return %s (100%%)" % "JSON")

            def refresh(self):
                """Read the keys again."""
                raise errors.Stale()

            def wait(self):
                """Wait for the keys."""
                raise TimeoutError("the builtin one: this module never imports the package's")
    ''',
}


def _entries(tmp_path: Path) -> dict[str, ApiEntry]:
    write_files(tmp_path, PACKAGE)
    return {e.api_id: e for e in load_api("keys", search_paths=[tmp_path]).entries}


def test_an_exception_is_described_by_where_and_how_it_is_raised(tmp_path: Path) -> None:
    by_id = _entries(tmp_path)
    fetch_failed = by_id["keys.errors.FetchFailed"]
    assert fetch_failed.raised.splitlines() == [
        'Raised by keys.Store.fetch: Fail to fetch data from the url, err: "…"',
        "Raised with: The endpoint did not return … (100%)",  # a private raiser: its message only
    ]
    # the message its own __init__ builds counts as its message
    assert by_id["keys.errors.MissingKey"].raised.splitlines() == [
        'Its message: Key "…" does not exist.',  # first: answers and README.LLM show three lines
        "Raised by keys.Store.get.",
    ]
    # … but not when its docstring already says it
    assert by_id["keys.errors.Stale"].raised == "Raised by keys.Store.refresh."
    # a bare name the raising module never imports is not the library's class (a builtin)
    assert by_id["keys.errors.TimeoutError"].raised == ""
    assert by_id["keys.errors.KeysError"].raised == ""
    assert by_id["keys.store.Store.fetch"].raised == ""


def test_find_api_reads_the_raise_sites(tmp_path: Path) -> None:
    by_id = _entries(tmp_path)
    fetch_failed = by_id["keys.errors.FetchFailed"]
    assert "Fail to fetch data from the url" in api_doc(fetch_failed)
    assert any("Fail to fetch data from the url" in p for p in passage_texts(fetch_failed))
    entries = list(by_id.values())
    score_importance(entries, [], {})
    task = "which error is raised when the url cannot be reached"
    found = ApiIndex({"keys": (entries, [])}).find(task, limit=3)
    assert [h.entry.api_id for h in found[:2]] == ["keys.store.Store.fetch", "keys.errors.FetchFailed"]
    for e in entries:  # without what the code says, the task's words name nothing of it
        e.raised = ""
    found = ApiIndex({"keys": (entries, [])}).find(task, limit=3)
    assert "keys.errors.FetchFailed" not in {h.entry.api_id for h in found}


def test_a_module_that_cannot_be_read_or_parsed_is_skipped(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n    raise Oops('x')\n", encoding="utf-8")
    binary = tmp_path / "binary.py"
    binary.write_bytes(b"\x00\xff\xfe raise")
    good = tmp_path / "good.py"
    good.write_text("from x import Oops\n\ndef f():\n    raise Oops('went wrong')\n", encoding="utf-8")

    class Builtin:  # griffe raises for a builtin module's filepath
        path = "pkg.builtin"

        @property
        def filepath(self) -> Path:
            raise RuntimeError("a builtin module has no file")

    modules = [
        Builtin(),
        SimpleNamespace(path="pkg.broken", filepath=broken),
        SimpleNamespace(path="pkg.binary", filepath=binary),
        SimpleNamespace(path="pkg.gone", filepath=tmp_path / "gone.py"),
        SimpleNamespace(path="pkg.compiled", filepath=tmp_path / "fast.so"),
        SimpleNamespace(path="pkg.good", filepath=good),
    ]
    facts = read_sources(modules)
    assert {r.module for r in facts.raises} == {"pkg.good"}
    oops = SimpleNamespace(
        exception=True, kind="class", language="python", name="Oops", api_id="pkg.errors.Oops"
    )
    resolve = {"pkg.good.Oops": "pkg.errors.Oops"}.get
    sites = raise_sites([oops], facts, resolve)  # type: ignore[list-item]
    assert [(s.raiser, s.message) for s in sites["pkg.errors.Oops"]] == [("pkg.good.f", "went wrong")]


def test_readme_llm_says_where_an_exception_is_raised(tmp_path: Path) -> None:
    write_files(tmp_path / "lib", {**PACKAGE, "docs/index.md": "# Keys\n\nRead keys with `Store.fetch`.\n"})
    generated(tmp_path, "keys")
    readme = (tmp_path / "out" / "README.LLM").read_text(encoding="utf-8")
    block = readme[readme.index("FetchFailed - an exception: `except keys.FetchFailed:`") :]
    assert block.splitlines()[1:3] == [
        '- Raised by keys.Store.fetch: Fail to fetch data from the url, err: "…"',
        "- Raised with: The endpoint did not return … (100%)",
    ]


def test_a_find_api_answer_says_where_an_exception_is_raised(tmp_path: Path) -> None:
    by_id = _entries(tmp_path)
    entries = list(by_id.values())
    score_importance(entries, [], {})
    found = ApiIndex({"keys": (entries, [])}).find(
        "which error is raised when the url cannot be reached", limit=5
    )
    shown = {hit.entry.api_id: hit.to_dict(rank) for rank, hit in enumerate(found, 1)}
    assert shown["keys.errors.FetchFailed"]["raised"] == [
        'Raised by keys.Store.fetch: Fail to fetch data from the url, err: "…"',
        "Raised with: The endpoint did not return … (100%)",
    ]
    assert all("raised" not in answer for api, answer in shown.items() if not by_id[api].raised)


LEFT_OUT = {
    "soup/__init__.py": '''
        """Soup."""

        __all__ = ["Soup"]


        class Soup:
            """A parsed document."""

            def __init__(self, markup, features=None):
                if features == "missing":
                    raise FeatureNotFound(f"Couldn't find a tree builder with the features you requested: {features}.")
                self.markup = markup


        class FeatureNotFound(ValueError):
            pass


        class NeverRaised(ValueError):
            pass
    ''',
}


def test_an_exception_a_public_api_raises_is_public_though_all_leaves_it_out(tmp_path: Path) -> None:
    """bs4's ``__all__ = ['BeautifulSoup']`` left ``FeatureNotFound`` (which ``BeautifulSoup()``
    raises, and users catch) out of the catalog; a class nothing public raises stays out."""
    write_files(tmp_path, LEFT_OUT)
    by_id = {e.api_id: e for e in load_api("soup", search_paths=[tmp_path]).entries}
    found = by_id["soup.FeatureNotFound"]
    assert found.exception and found.kind == "class"
    # raised by the constructor: constructing the class raises it
    assert found.raised == (
        "Raised by soup.Soup: Couldn't find a tree builder with the features you requested: …."
    )
    assert "soup.NeverRaised" not in by_id


TRICKY = {
    "tricky/__init__.py": '''
        """Tricky raises."""

        import asyncio
        from concurrent.futures import TimeoutError as FutureTimeout

        from tricky.errors import *
        from tricky.errors import Hidden

        __all__ = ["run", "Runner", "TimeoutError", "Failed"]


        def _(text):
            return text


        def run(flag):
            """Run."""
            if flag == 1:
                raise asyncio.TimeoutError("another library's")  # not tricky.TimeoutError
            if flag == 2:
                raise FutureTimeout("imported from elsewhere")
            if flag == 3:
                raise Failed(flag, _("Could not run with the flag given."))  # star-imported
            raise TimeoutError("the package's own, through its star import")


        def _helper():
            raise Hidden("a private helper of a public module publishes nothing")


        def _quiet():
            raise Failed()


        class Runner:
            """Runs."""

            def go(self):
                """Go."""
                raise Failed("went wrong %08.3f%%" % 1.0)
    ''',
    "tricky/errors.py": '''
        __all__ = ["TimeoutError", "Failed"]


        class TimeoutError(Exception):
            """The package's own timeout."""


        class Failed(Exception):
            def __init__(self, *args):
                if args and args[0] == "x":  # a comparison's string is no message
                    pass
                self.message = "Failed to run."
                super().__init__(*args)


        class Hidden(Exception):
            pass
    ''',
}


def test_a_raise_counts_for_the_class_its_name_denotes(tmp_path: Path) -> None:
    """The name is resolved as Python does (imports, star imports): another library's
    exception of the same name counts for nobody (the review's urllib3 ``ssl.SSLError``),
    a private helper's bare raise shows nothing and takes no place, a private function of a
    public module makes nothing public, and a message wrapped for translation is read."""
    write_files(tmp_path, TRICKY)
    by_id = {e.api_id: e for e in load_api("tricky", search_paths=[tmp_path]).entries}
    assert by_id["tricky.errors.TimeoutError"].raised == (
        "Raised by tricky.run: the package's own, through its star import"
    )
    assert by_id["tricky.errors.Failed"].raised.splitlines() == [
        "Its message: Failed to run.",
        "Raised by tricky.run: Could not run with the flag given.",
        "Raised by tricky.Runner.go: went wrong …%",
    ]
    assert "tricky.errors.Hidden" not in by_id and "tricky.Hidden" not in by_id


def test_deeply_nested_or_generated_source_is_skipped(tmp_path: Path) -> None:
    deep = tmp_path / "deep.py"
    deep.write_text("def f():\n    raise Oops(" + " + ".join(["'a'"] * 5000) + ")\n", encoding="utf-8")
    nested = tmp_path / "nested.py"
    nested.write_text(
        "def f():\n    x = " + "[" * 1100 + "]" * 1100 + "\n    raise Oops('x')\n", encoding="utf-8"
    )
    facts = read_sources(
        [SimpleNamespace(path="pkg.deep", filepath=deep), SimpleNamespace(path="pkg.nested", filepath=nested)]
    )
    assert all(r.module == "pkg.nested" for r in facts.raises)  # read where Python can parse it


def test_message_templates_are_read_in_linear_time() -> None:
    import time

    from docmentor.library.surface.raise_sites import _PERCENT

    line = "%" + "0" * 200_000 + "!"
    start = time.perf_counter()
    _PERCENT.sub("…", line)
    assert time.perf_counter() - start < 1.0  # the quadratic pattern took 4 s at 16,000
