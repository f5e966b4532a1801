"""Validation (running the complete examples) and the drift report, on throwaway packages."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pytest

if TYPE_CHECKING:
    from docmentor.library import GenerationResult

from docmentor.errors import UsageError
from docmentor.library.examples.drift import DriftReport, clarity_counts, drift_report
from docmentor.library.examples.validate import validate_examples
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.api_python import ApiSurface, load_api


def example(
    code: str, *, example_id: str = "ex", path: str = "guide.md", line: int = 10, complete: bool = True
) -> Example:
    return Example(
        example_id=example_id,
        title=example_id,
        code=textwrap.dedent(code).lstrip(),
        language="python",
        source="docs",
        path=path,
        line=line,
        complete=complete,
    )


# -- validation -------------------------------------------------------------------------


def test_validation_records_pass_fail_timeout_and_runs_in_a_temporary_folder(tmp_path: Path) -> None:
    passing = example("print('hello')\n", example_id="pass")
    failing = example("raise ValueError('boom')\n", example_id="fail")
    hanging = example("import time\ntime.sleep(100)\n", example_id="hang")
    writer = example(
        """
        import os
        from pathlib import Path
        Path("out.txt").write_text("x")
        assert os.path.samefile(os.environ["HOME"], os.getcwd())
        assert "DOCMENTOR_HOME" not in os.environ
        """,
        example_id="write",
    )
    snippet = example("db.create_table('t')\n", example_id="snippet", complete=False)
    examples = [passing, failing, hanging, writer, snippet]

    started = time.monotonic()
    seen: list[tuple[int, int]] = []
    report = validate_examples(
        examples, timeout=2, jobs=4, version="1.2.3", progress=lambda *a: seen.append(a)
    )
    assert time.monotonic() - started < 10
    assert seen == [(n, 5) for n in range(1, 6)]  # one call as each example ends

    assert (report.passed, report.failed, report.skipped) == (2, 2, 1), report.results
    by_id = {r.example_id: r for r in report.results}
    assert by_id["pass"].status == "passed"
    assert by_id["write"].status == "passed", by_id["write"].error
    assert by_id["fail"].error == "ValueError: boom (exit code 1)"
    assert by_id["fail"].exit_code == 1
    assert by_id["hang"].error == "timed out after 2s"  # it should have ended: failed
    assert by_id["snippet"].status == "skipped"
    assert not (Path.cwd() / "out.txt").exists()

    assert passing.validated is True and failing.validated is False and hanging.validated is False
    assert snippet.validated is None and snippet.execution_context.validated_at is None
    ctx = failing.execution_context
    assert ctx.works_on_version == "1.2.3"
    assert ctx.error == "ValueError: boom (exit code 1)"
    assert ctx.validated_at is not None and len(ctx.validated_at) == 10  # ISO date
    assert passing.execution_context.error is None
    assert json.loads(json.dumps(report.to_dict()))["failed"] == 2


def test_sessions_run_as_programs_and_what_this_machine_lacks_is_not_a_failure(tmp_path: Path) -> None:
    session = example(
        ">>> import json\n>>> json.dumps([1])\n'[1]'\n>>> for x in [1]:\n...     print(x)\n1\n",
        example_id="session",
    )
    offline = example(
        "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=2)\n", example_id="offline"
    )  # nothing listens on the discard port: ConnectionRefusedError, as with no network
    optional = example("import some_optional_dependency_xyz\n", example_id="optional")
    own = example("import mylib_that_is_missing\n", example_id="own")
    broken = example("raise RuntimeError('the docs are wrong')\n", example_id="broken")
    report = validate_examples([session, offline, optional, own, broken], library="mylib_that_is_missing")
    by_id = {r.example_id: r for r in report.results}
    assert by_id["session"].status == "passed", by_id["session"].error
    assert session.validated is True
    for name, ex, why in (
        ("offline", offline, "needs the network"),
        ("optional", optional, "needs the module"),
    ):
        assert by_id[name].status == "skipped" and ex.validated is None, by_id[name]
        error = by_id[name].error
        assert error is not None and error.startswith(f"not run here: {why}")
        assert ex.execution_context.error == by_id[name].error
    # the library itself missing, or a plain error: the example failed
    assert by_id["own"].status == by_id["broken"].status == "failed"
    assert (report.passed, report.failed, report.skipped) == (1, 2, 2)


def test_an_exception_group_is_reported_by_its_group_and_last_error() -> None:
    """An example failing with an exception group (cattrs' ClassValidationError, an anyio task
    group's) is reported by the group's line and its last sub-exception's, not by the box the
    traceback draws; a group whose sub-exception is a network error is not run here."""
    from docmentor.library.examples.validate import not_run_here

    code = (  # a sub-exception that was raised prints its own traceback inside the box
        "class ClassValidationError(ExceptionGroup):\n    pass\n\nerrors = []\ntry:\n    {}['extra']\n"
        "except KeyError as e:\n    errors.append(e)\n"
        "raise ClassValidationError('While structuring C', errors)\n"
    )
    report = validate_examples([example(code, example_id="group")])
    (result,) = report.results
    assert result.status == "failed"
    assert result.error == (
        "ClassValidationError: While structuring C (1 sub-exception) — KeyError: 'extra' (exit code 1)"
    )
    offline = "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception) — ConnectionRefusedError: [Errno 111] (exit code 1)"
    assert (not_run_here(offline, "anyio") or "").startswith("not run here: needs the network")


def test_a_session_that_shows_an_error_passes_when_that_statement_raises(tmp_path: Path) -> None:
    """As doctest checks it: a statement whose expected output is a traceback may raise;
    any other statement that raises fails the example."""
    shown = ">>> d = {}\n>>> d['missing']\nTraceback (most recent call last):\n   ...\nKeyError: 'missing'\n>>> len(d)\n0\n"
    unexpected = ">>> d = {}\n>>> d['missing']\n1\n"
    # the example shows one error, the code raises another (a renamed function): failed
    other = (
        ">>> import json\n>>> json.loads_renamed('x')\nTraceback (most recent call last):\nValueError: bad\n"
    )
    report = validate_examples(
        [example(shown, example_id="shown"), example(unexpected, example_id="unexpected"),
         example(other, example_id="other")],
        library="json",
    )  # fmt: skip
    by_id = {r.example_id: r for r in report.results}
    assert by_id["shown"].status == "passed", by_id["shown"].error
    assert by_id["unexpected"].status == "failed" and "KeyError" in (by_id["unexpected"].error or "")
    assert by_id["other"].status == "failed" and "AttributeError" in (by_id["other"].error or "")


def test_a_session_passes_only_when_it_prints_what_it_shows(tmp_path: Path) -> None:
    """A tour on packaging and boltons: a docstring showing another message than the code
    raises, and Python 2 reprs (`[u'a']`), passed --validate and were published as validated.
    Each statement's output is compared as doctest compares it (ELLIPSIS and
    NORMALIZE_WHITESPACE, the statement's own `# doctest:` options, memory addresses equal);
    a statement with no output shown is not checked."""
    right = (
        ">>> words = ['a', 'b']\n>>> words\n['a', 'b']\n>>> print(len(words))\n2\n"
        ">>> list(range(30))\n[0, 1, ..., 29]\n>>> object()  # doctest: +ELLIPSIS\n<object object at 0x10f>\n"
        ">>> print('a  b')\na b\n>>> words.append('c')\n>>> len(words)\n3\n"
    )
    wrong = ">>> words = ['val1']\n>>> words\n[u'val1']\n>>> len(words)\n1\n"
    strict = ">>> print('a  b')  # doctest: -NORMALIZE_WHITESPACE\na b\n"
    # (a review) what an earlier statement took as stdout still writes where the session's
    # output is read, as in doctest; a statement marked SKIP is neither run nor compared
    kept = (
        ">>> import csv, sys\n>>> writer = csv.writer(sys.stdout)\n>>> writer.writerow(['a', 'b'])\na,b\n5\n"
    )
    skipped = ">>> import random\n>>> random.random()  #doctest:+SKIP\n0.5\n>>> 1 + 1\n2\n"
    never = ">>> int('5')\nTraceback (most recent call last):\n...\nValueError: bad\n"  # shows an error not raised
    report = validate_examples(
        [example(right, example_id="right"), example(wrong, example_id="wrong", line=20),
         example(strict, example_id="strict"), example(kept, example_id="kept"),
         example(skipped, example_id="skipped"), example(never, example_id="never")],
        library="json",
    )  # fmt: skip
    by_id = {r.example_id: r for r in report.results}
    assert by_id["kept"].status == by_id["skipped"].status == "passed", (by_id["kept"], by_id["skipped"])
    assert by_id["never"].status == "failed" and "ValueError raised by line 1; nothing was" in (
        by_id["never"].error or ""
    )
    assert by_id["right"].status == "passed", by_id["right"].error
    assert by_id["wrong"].status == "failed"
    assert (by_id["wrong"].error or "").startswith(
        "AssertionError: the example shows \"[u'val1']\" under line 2; it printed \"['val1']\""
    ), by_id["wrong"].error
    assert by_id["wrong"].line == 22  # the statement whose output differs, on the page (block at 20)
    assert by_id["strict"].status == "failed", by_id["strict"].error


def test_a_test_function_an_example_defines_is_run_as_pytest_runs_it(tmp_path: Path) -> None:
    """A dirty-equals tour: `def test_partial_dict(): assert …` passed --validate without a line
    of it running. A top-level test function the example does not call, that needs no
    argument a fixture would give, is called after the program."""
    failing = "def test_partial_dict():\n    assert {'a': 1} == {'a': 2}\n"
    passing = "def test_sum():\n    assert sum([1, 2]) == 3\n\ndef test_with_fixture(client):\n    raise SystemExit(3)\n"
    called = "def test_once():\n    print('ran')\n\ntest_once()\n"
    # a decorated one is pytest's to call or not (a fixture, a skip or xfail mark): not called
    marked = "import functools\n\n@functools.lru_cache\ndef test_cached():\n    raise SystemExit(4)\n"
    report = validate_examples(
        [example(failing, example_id="failing"), example(passing, example_id="passing"),
         example(called, example_id="called"), example(marked, example_id="marked")],
        library="json",
    )  # fmt: skip
    by_id = {r.example_id: r for r in report.results}
    assert by_id["failing"].status == "failed" and "AssertionError" in (by_id["failing"].error or "")
    assert by_id["passing"].status == by_id["called"].status == by_id["marked"].status == "passed", (
        report.results
    )


def test_an_example_with_placeholders_is_not_complete() -> None:
    from docmentor.library.examples.classify import is_complete

    assert not is_complete("import httpx\nhttpx.get(...)\n", "python")
    assert not is_complete("import httpx\nconfig = ...\n", "python")
    assert is_complete("import httpx\nclass A:\n    def f(self): ...\nhttpx.get('u')\n", "python")
    assert is_complete("import httpx\nx: tuple[int, ...] = (1,)\n", "python")


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    # the child is found by a tag on its command line (the example may not write outside its folder)
    tag = f"docmentor-test-child-{tmp_path.name}"
    code = f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100)", {tag!r}])
        time.sleep(100)
    """
    report = validate_examples([example(code)], timeout=1.5, jobs=1)
    assert report.results[0].error == "timed out after 1.5s"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        alive = []
        for proc in Path("/proc").iterdir():
            try:
                tagged = tag.encode() in (proc / "cmdline").read_bytes()
                if tagged and "\nState:\tZ" not in (proc / "status").read_text():
                    alive.append(proc.name)
            except OSError:
                continue
        if not alive:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the example's child process survived the timeout")


def test_a_docstrings_doctest_runs_in_its_modules_namespace(tmp_path: Path) -> None:
    """A doctest in a module's docstring uses the module's names unimported, its private helpers
    and imports too (doctest runs it in the module's globals): with the module's set-up it runs,
    and passes or fails. Its other blocks, and a docs example of the same file, are programs
    only when complete."""
    from docmentor.library.examples.docstring_examples import doctest_setup
    from docmentor.library.models import ApiEntry

    entries = [ApiEntry(api_id="textwrap.dedent", kind="function", name="dedent", source_file="textwrap.py")]
    setup = doctest_setup(entries)
    assert set(setup) == {"textwrap.py"}

    def docstring(code: str, example_id: str, origin: Literal["docs", "docstring"] = "docstring") -> Example:
        ex = example(code, example_id=example_id, path="textwrap.py", complete=False)
        ex.origin = origin
        return ex

    good = docstring(">>> dedent('  x')\n'x'\n", "good")
    private = docstring(">>> _whitespace_only_re.sub('', ' \\n')\n'\\n'\n", "private")  # a module global
    future = docstring(
        ">>> from __future__ import annotations\n>>> shorten('a b', width=9)\n'a b'\n", "future"
    )
    bad = docstring(">>> shorten('a b c', width=0)\n", "bad")  # width must be positive
    fragment = docstring("wrapper = TextWrapper(width=width)\n", "fragment")  # a :: block, no session
    docs = docstring(">>> dedent('  x')\n'x'\n", "docs", origin="docs")
    report = validate_examples([good, private, future, bad, fragment, docs], jobs=2, setup=setup)
    by_id = {r.example_id: r.status for r in report.results}
    assert by_id == {
        "good": "passed",
        "private": "passed",
        "future": "passed",
        "bad": "failed",
        "fragment": "skipped",
        "docs": "skipped",
    }, report.results
    assert (good.validated, bad.validated, fragment.validated, docs.validated) == (True, False, None, None)
    again = docstring(">>> dedent('  x')\n'x'\n", "again")
    assert validate_examples([again]).results[0].status == "skipped"  # no set-up: not a program


def test_a_failure_points_at_the_page_line_of_the_failing_statement() -> None:
    """The fence opens on line 10, the code starts on 11: the failing statement's page line, as
    drift gives a call's (a session's prompts and output, and blank lines, counted)."""
    program = example("import os\nx = 1\n\nraise ValueError('boom')\n", example_id="program")
    session = example(">>> a = 1\n>>> a\n1\n>>> b = (a,\n...      1 / 0)\n", example_id="session")
    passing = example("print('fine')\n", example_id="passing")
    report = validate_examples([program, session, passing], jobs=2)
    lines = {r.example_id: r.line for r in report.results}
    assert lines == {"program": 14, "session": 15, "passing": None}, report.results  # 15: `1 / 0`
    assert {r.example_id: r.to_dict()["line"] for r in report.results} == lines


def test_validation_uses_the_given_interpreter(tmp_path: Path) -> None:
    code = "import sys\nsys.exit('interpreter: ' + sys.executable)\n"  # told on stderr: no writes outside
    report = validate_examples([example(code)], python=sys.executable, jobs=1)
    assert report.failed == 1 and report.python == sys.executable
    said = (report.results[0].error or "").removeprefix("interpreter: ").removesuffix(" (exit code 1)")
    assert Path(said).resolve() == Path(sys.executable).resolve()


def test_validation_refuses_a_missing_interpreter(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no Python interpreter"):
        validate_examples([example("pass\n")], python=str(tmp_path / "nope" / "python"))


# -- drift --------------------------------------------------------------------------------

PACKAGE = {
    "pkg/__init__.py": """
        from pkg.core import Connection, PkgError, Settings, Table, connect, tables
        __all__ = ["Connection", "PkgError", "Settings", "Table", "connect", "helper", "tables"]

        def helper(a, b=1, /, c=2, *, flag: bool = False) -> None:
            '''A helper.'''
    """,
    "pkg/core.py": """
        class Table:
            def search(self, query: str, limit: int = 10) -> "Table": ...
            def to_list(self) -> list: ...

        class Connection:
            def __init__(self, uri: str) -> None:
                self.uri = uri
            def create_table(self, name: str, data=None, *, mode: str = "create") -> Table: ...
            def open_table(self, name: str, **kwargs) -> Table: ...
            def table_names(self, *names: str) -> list[str]: ...
            @classmethod
            def from_env(cls, prefix: str = "PKG") -> "Connection": ...
            def legacy_sync(self) -> None:
                '''Synchronise.

                .. deprecated:: 0.2
                   Use open_table.
                '''

        class Settings(dict):
            '''Members inherited from dict are not in the surface.'''

        def connect(uri: str, *, read_consistency: float | None = None) -> Connection:
            '''Connect.'''

        def tables() -> list[Table]: ...

        class _Base(Exception): ...

        class PkgError(_Base):
            code: int
    """,
}


def installed(root: Path, files: dict[str, str], package: str) -> ApiSurface:
    """The surface of a package written under ``root`` (``{"pkg/__init__.py": source}``)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return load_api(package, search_paths=[root])


@pytest.fixture(scope="module")
def surface(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    return installed(tmp_path_factory.mktemp("drift"), PACKAGE, "pkg")


def drift(surface: ApiSurface, *codes: str) -> DriftReport:
    examples = [example(code, example_id=f"ex{i}", line=10 * (i + 1)) for i, code in enumerate(codes)]
    return drift_report(examples, surface, library="pkg", version="0.1")


def test_correct_calls_and_flexible_signatures_are_not_drift(surface: ApiSurface) -> None:
    report = drift(
        surface,
        """
        import pkg
        db = pkg.connect("memory://", read_consistency=0.5)
        tbl = db.create_table("t", [1, 2], mode="overwrite")
        rows = tbl.search("q", 5).to_list()
        other = db.open_table("t", index_cache_size=10, storage_options={})  # **kwargs
        db.table_names("a", "b", "c", "d")  # *args
        print(db.uri)  # an instance attribute
        pkg.Connection.from_env("X")
        pkg.helper(1, 2, 3, flag=True)
        pkg.helper(1, 2, 3, ...)  # a placeholder, not a fourth argument
        s = pkg.Settings()
        s.items(); s.setdefault("k", 1)  # inherited from dict: unknown, never reported
        """,
        """
        import pkg

        class Logged(pkg.Connection):
            def open_table(self, name, cache=True):  # an override with its own signature
                self.log(name)  # the subclass's own method: not the base's to have
                self.table_names("a")
                return self.open_table(name, cache=False)  # its own signature, not the base's

            def log(self, name):
                print(self.uri, name)

        for name in pkg.connect("x").table_names():
            name.upper()
        """,
        """
        import pkg
        found = pkg.tables()
        found.append(1)  # a list's own members, not Table's
        firsts = [t.search("q", 3) for t in found]
        try:
            pkg.connect("x")
        except pkg.PkgError as e:
            print(e.args, e.code)  # Exception's members are not in the surface
        """,
    )
    assert report.findings == (), report.to_text()
    assert report.examples_checked == 3
    assert "No drift" in report.to_text()


def test_missing_apis_are_found_with_suggestions_and_original_lines(surface: ApiSurface) -> None:
    report = drift(
        surface,
        """
        import pkg
        from pkg import conect
        db = pkg.connect_old("memory://")
        """,
        """
        # a later block of the same page: `db` is still known
        db = pkg.connect("memory://")
        db.create_tabel("t")
        """,
    )
    found = [(f.kind, f.api, f.owner, f.line, f.suggestion) for f in report.findings]
    assert found == [
        ("missing_api", "from pkg import conect", "pkg", 12, "did you mean from pkg import connect?"),
        ("missing_api", "pkg.connect_old", "pkg", 13, "did you mean pkg.connect?"),
        ("missing_api", "db.create_tabel", "pkg.core.Connection", 23, "did you mean db.create_table?"),
    ]
    assert all(f.api_id is None and f.example_id.startswith("ex") for f in report.findings)
    assert "class pkg.core.Connection has no 'create_tabel'" in report.findings[2].message


def test_upgrade_guides_and_changelogs_show_removed_apis_on_purpose(surface: ApiSurface) -> None:
    old = "import pkg\ndb = pkg.connect_old('memory://')\n"
    pages = [
        "upgrading.rst",
        "docs/v2-migration.md",
        "CHANGES.rst",
        "whatsnew.md",
        "guide.md",
        "exchanges.md",
    ]
    examples = [example(old, example_id=f"e{i}", path=p) for i, p in enumerate(pages)]
    report = drift_report(examples, surface, library="pkg", version="0.1")
    # a guide's and a page merely named like one ("exchanges") are reported; the rest are not
    assert sorted(f.example_id for f in report.findings) == ["e4", "e5"] and report.examples_checked == 2
    assert report.to_dict()["counts"]["missing_api"] == 2 and "historical" not in report.to_dict()
    # but their old code is known, so it is shown as no example to follow
    assert sorted(f.example_id for f in report.historical) == ["e0", "e1", "e2", "e3"]
    from docmentor.library.stages import mark_drift

    current = example("import pkg\ndb = pkg.connect('memory://')\n", example_id="new", path="upgrading.rst")
    mark_drift([*examples, current], [surface], library="pkg", version="0.1")
    assert [bool(ex.drift) for ex in examples] == [True] * 6 and current.drift == []


def test_a_call_whose_comment_says_it_fails_is_shown_on_purpose(surface: ApiSurface) -> None:
    report = drift(
        surface,
        """
        import pkg
        pkg.connect_old("x")  # <- Mypy: error: Module has no attribute "connect_old"
        pkg.connect_gone("x")  # the old name, still here
        """,
    )
    assert [f.api for f in report.findings] == ["pkg.connect_gone"]


def test_an_example_that_needed_repairs_reports_nothing(surface: ApiSurface) -> None:
    # The broken chain is blanked by the parser: `cohere` would be read as the class itself.
    report = drift(
        surface,
        """
        import pkg
        cohere = pkg.Connection
            .from_env()
        cohere.create_tabel("t")
        """,
    )
    assert report.findings == ()


def test_the_first_block_defines_names_for_the_second(surface: ApiSurface) -> None:
    first = example("import pkg\ndb = pkg.connect('x')\n", example_id="a", line=5)
    second = example("tbl = db.open_table('t')\ntbl.serch('q')\n", example_id="b", line=40)
    report = drift_report([second, first], surface, library="pkg")
    assert [(f.example_id, f.api, f.line, f.suggestion) for f in report.findings] == [
        ("b", "tbl.serch", 42, "did you mean tbl.search?")
    ]
    assert report.version is None  # the throwaway package has no metadata


def test_bad_keywords_and_too_many_positional_arguments(surface: ApiSurface) -> None:
    report = drift(
        surface,
        """
        import pkg
        db = pkg.connect("x", read_consistancy=1)
        db.create_table("t", [1], "overwrite")
        pkg.Connection(url="x")
        pkg.helper(a=1)

        class Mine(pkg.Connection):
            def refresh(self):
                self.create_table("t", cache=True)  # inherited, not its own: checked
        """,
    )
    found = [(f.kind, f.api, f.api_id, f.line) for f in report.findings]
    assert found == [
        ("invalid_api_signature", "pkg.connect", "pkg.core.connect", 12),
        ("invalid_api_signature", "db.create_table", "pkg.core.Connection.create_table", 13),
        ("invalid_api_signature", "pkg.Connection", "pkg.core.Connection", 14),
        ("invalid_api_signature", "pkg.helper", "pkg.helper", 15),
        ("invalid_api_signature", "self.create_table", "pkg.core.Connection.create_table", 19),
    ]
    bad_kw, positional, ctor, posonly, _inherited = report.findings
    assert bad_kw.suggestion == "did you mean read_consistency=? accepted keywords: uri, read_consistency"
    assert "no parameter named 'read_consistancy'" in bad_kw.message
    assert "given 3 positional arguments but takes 2" in positional.message
    assert positional.suggestion == "positional parameters: name, data; pass the rest by keyword"
    assert ctor.suggestion == "did you mean uri=? accepted keywords: uri"
    assert "'a' is positional-only" in posonly.message


def test_report_formats_and_clarity_counts(surface: ApiSurface) -> None:
    report = drift(
        surface,
        """
        import pkg
        db = pkg.connect("x", timeout=3)
        db.create_tabel("t")
        db.drop_everything()
        """,
    )
    assert (report.missing, report.invalid) == (2, 1)
    data = report.to_dict()
    assert data["counts"] == {"missing_api": 2, "invalid_api_signature": 1, "deprecated_api": 0}
    assert data["library"] == "pkg" and data["version"] == "0.1"
    assert json.loads(json.dumps(data))["findings"][0]["line"] == 12
    text = report.to_text()
    assert text.startswith(
        "Drift report for pkg 0.1: 1 Python examples checked, 2 missing APIs, 1 invalid signature"
    )
    assert "guide.md (docs)" in text
    assert "  line 13: missing_api: db.create_tabel" in text
    assert "      → did you mean db.create_table?" in text
    assert clarity_counts(report) == {"guide.md": {"missing_api_signatures": 2, "invalid_api_signatures": 1}}


def test_uses_of_deprecated_apis_are_reported_but_not_scored(surface: ApiSurface) -> None:
    used = example("import pkg\ndb = pkg.connect('x')\ndb.legacy_sync()", example_id="ex0", line=10)
    report = drift_report([used], surface, library="pkg", version="0.1")
    assert [(f.kind, f.api, f.api_id, f.line) for f in report.findings] == [
        (
            "deprecated_api",
            "pkg.Connection.legacy_sync",
            "pkg.core.Connection.legacy_sync",
            13,
        )  # the line that calls it (fence at 10)
    ]
    assert (
        report.findings[0].message
        == "pkg.Connection.legacy_sync is deprecated in the installed pkg: since 0.2: Use open_table."
    )
    assert report.to_dict()["counts"] == {"missing_api": 0, "invalid_api_signature": 0, "deprecated_api": 1}
    assert "0 invalid signatures, 1 use of deprecated APIs" in report.to_text()
    assert clarity_counts(report) == {}  # the example still runs: not a clarity issue


def test_top_level_await_runs_and_only_real_network_or_module_failures_are_not_run_here() -> None:
    from docmentor.library.examples.validate import not_run_here

    awaiting = example(
        ">>> import asyncio\n>>> await asyncio.sleep(0)\n>>> print('done')\ndone\n", example_id="await"
    )
    report = validate_examples([awaiting])
    assert report.results[0].status == "passed", report.results[0].error
    for error in (
        "lancedb.LanceConnectionError: bad uri (exit code 1)",  # the library's own error: a failure
        "ModuleNotFoundError: No module named 'lancdb' (exit code 1)",  # a misspelt import of it
        "ValueError: Max retries exceeded, the docs say (exit code 1)",
    ):
        assert not_run_here(error, "lancedb") is None, error
    assert not_run_here("httpx.ConnectError: [Errno -3] Try again (exit code 1)", "httpx")
    assert not_run_here("ModuleNotFoundError: No module named 'pandas' (exit code 1)", "lancedb")
    # the same wrapped by the library (griffe.load of a package the reader would have)
    wrapped = "ImportError: … accessing 'my_package' raises ModuleNotFoundError: No module named 'my_package' (exit code 1)"
    assert (not_run_here(wrapped, "griffe") or "").startswith("not run here: needs the module 'my_package'")
    assert not_run_here(wrapped.replace("my_package", "griffe"), "griffe") is None  # its own: a failure
    # a file the reader would have, a write the sandbox refuses, a server still running
    for error, why in (
        (
            "FileNotFoundError: [Errno 2] No such file or directory: '/some/path' (exit code 1)",
            "needs a file",
        ),
        ("OSError: [Errno 30] Read-only file system: '/tmp/data' (exit code 1)", "writes outside"),
        ("timed out after 20s", "still running"),
    ):
        assert (not_run_here(error, "anyio") or "").startswith(f"not run here: {why}"), error
    for error in (
        "PermissionError: [Errno 13] Permission denied: 'x' (exit code 1)",  # not the sandbox's
        "mylib.FileNotFoundErrorish: x (exit code 1)",
        "ValueError: timed out after 20s (exit code 1)",  # the example's own error
    ):
        assert not_run_here(error, "anyio") is None, error


def test_placeholders_are_what_the_reader_fills_in_not_valid_uses_of_ellipsis() -> None:
    from docmentor.library.examples.classify import is_complete

    assert is_complete(
        "from pydantic import BaseModel, Field\nclass M(BaseModel):\n    x: int = Field(..., description='d')\nM(x=1)\n",
        "python",
    )
    assert is_complete("import json\ntry:\n    json.loads('1')\nexcept ValueError:\n    ...\n", "python")
    assert is_complete("import json\ndef f(x=...):\n    return x\nf()\n", "python")


WEB = {
    # flask's shape: the app's methods on a base class, proxies imported in __init__
    "web/__init__.py": "from .app import Flask as Flask\nfrom .globals import request as request\n",
    "web/app.py": """
        from typing import Iterator

        class Item:
            def run(self, x: int) -> None: ...

        class Config(dict):
            def from_envvar(self, name: str) -> bool: ...
            def load(self, path: str) -> bool: ...

        class App:
            def __init__(self) -> None:
                self.config = self.make_config()  # no annotation: the attribute has no type
                self.loader = self.make_config()

            def make_config(self):
                return Config()

            def route(self, rule: str, *, methods: list[str] | None = None): ...
            def items(self) -> Iterator[Item]: ...
            def old(self) -> None:
                '''Old.

                .. deprecated:: 2.0
                   Use route.
                '''

        class Flask(App):
            def run(self) -> None: ...

        class List:
            def append(self, item: str) -> None: ...

        class Loader:
            def load(self, path: str) -> bool: ...
    """,
    "web/globals.py": """
        class Request:
            def get_json(self) -> dict: ...

        request: Request = object()
    """,
    "web/logs.py": "default_handler = object()\n",
}


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> ApiSurface:
    return installed(tmp_path_factory.mktemp("web"), WEB, "web")


def test_names_the_docs_never_bind_are_typed_by_convention_for_links_not_for_drift(web: ApiSurface) -> None:
    from docmentor.library.examples.matcher import match_examples

    view = example(
        """
        @app.route("/", methods=["GET"])
        def index():
            data = request.get_json()
            list.append(1)  # the builtin, though the library has a class List
            return data
        """
    )
    match_examples([view], web, library="web")
    assert view.apis_used == ["web.app.App.route", "web.globals.Request.get_json"]

    guessed = drift_report(
        [example("app.rote('/')\napp.route('/', bogus=1)\nrequest.get_jsn()\napp.old()\n"
                 "for it in app.items():\n    it.nothing()\n    it.run(y=1)\n")],
        web,
        library="web",
    )  # fmt: skip
    assert guessed.findings == ()  # `app` may be any object, nor what it yields: nothing certain
    bound = drift_report(
        [
            example(
                "from web import Flask\napp = Flask()\napp.rote('/')\napp.route('/', bogus=1)\napp.old()\n"
            )
        ],
        web,
        library="web",
    )
    assert [f.kind for f in bound.findings] == ["missing_api", "invalid_api_signature", "deprecated_api"]


def test_a_class_the_page_never_imports_and_a_member_only_one_class_has_link_as_guesses(
    web: ApiSurface,
) -> None:
    from docmentor.library.examples.matcher import match_examples

    # `Flask` is never imported (the page before did), and `app.config` has no type (set
    # in __init__ from an unannotated call): `from_envvar` can only be Config's
    config = example(
        """
        app = Flask(__name__)
        app.config.from_envvar('SETTINGS')
        app.config.load('x.cfg')  # Config.load and Loader.load: anyone's
        app.config.update(DEBUG=True)  # a dict's method as much as anyone's
        app.route('/')
        """
    )
    match_examples([config], web, library="web")
    # the class named in passing is not credited: its members are what the block shows
    assert config.apis_used == [
        "web.app.App.config",
        "web.app.Config.from_envvar",
        "web.app.App.route",
    ]
    # guesses: drift reports nothing, not even the misspelt member of the guessed instance
    report = drift_report(
        [example("app = Flask()\napp.config.from_envvar(nope=1)\napp.rote('/')\n")], web, library="web"
    )
    assert report.findings == ()
    # whatever is reached through the guessed class stays a guess: its class attributes,
    # annotations, subclasses and `except` clauses (each would be reported were it imported)
    through = [
        "Flask.old()\nFlask.route('/', nope=1)\n",
        "def handler(app: Flask):\n    app.old()\n    app.rote('/')\n",
        "class Mine(Flask):\n    def old(self):\n        self.rote('/')\n",
        "try:\n    pass\nexcept Flask as exc:\n    exc.old()\n",
    ]
    assert [drift_report([example(code)], web, library="web").findings for code in through] == [
        (),
        (),
        (),
        (),
    ]
    imported = drift_report(
        [example("from web import Flask\n" + code) for code in through[:2]], web, library="web"
    )
    assert {f.kind for f in imported.findings} == {"deprecated_api", "invalid_api_signature", "missing_api"}
    # a name the page binds itself is its own, not the library's class
    own = example("class Flask:\n    pass\n\napp = Flask()\napp.route('/')\n")
    match_examples([own], web, library="web")
    assert own.apis_used == []


def test_a_name_a_module_has_is_not_missing_though_it_is_no_api(web: ApiSurface) -> None:
    report = drift_report(
        [example("from web.logs import default_handler\nfrom web.logs import nothere\n")], web, library="web"
    )
    assert [(f.kind, f.api) for f in report.findings] == [("missing_api", "from web.logs import nothere")]


def test_members_of_protocols_and_classes_with_getattr_are_never_missing(tmp_path: Path) -> None:
    source = """
        from typing import Any, Protocol
        __all__ = ["Cursor", "Proxy", "SubProxy", "Closed", "cursor", "proxy", "closed"]

        class Cursor(Protocol):
            def execute(self, sql: str) -> None: ...

        class Proxy:
            def __getattr__(self, key: str) -> Any: ...

        class SubProxy(Proxy): ...

        class Closed:
            def run(self) -> None: ...

        def cursor() -> Cursor: ...
        def proxy() -> SubProxy: ...
        def closed() -> Closed: ...
    """
    surface = installed(tmp_path, {"dyn/__init__.py": source}, "dyn")
    assert [surface.by_id[c].open_members for c in ("dyn.Cursor", "dyn.Proxy", "dyn.Closed")] == [
        True,
        True,
        False,
    ]
    code = "import dyn\ndyn.cursor().mogrify('x')\ndyn.proxy().anything()\ndyn.closed().walk()\n"
    report = drift_report([example(code)], surface, library="dyn")
    assert [f.api for f in report.findings] == ["dyn.closed().walk"]


def test_a_suggestion_for_an_api_renamed_by_a_word() -> None:
    from docmentor.library.examples.drift_arguments import closest

    members = ["get", "put", "scan", "delete", "_scan_all"]
    assert closest("gett", members) == "get"  # spelled alike
    assert closest("scan_prefix", members) == "scan"  # a word more than the real one
    assert closest("get_many", ["get", "get_all"]) == "get_all"  # spelled alike first
    assert closest("put", ["put_item", "put_many_items"]) == "put_item"  # a word less: the nearest
    assert closest("frobnicate", members) is None and closest("scan", ["_scan_all"]) is None


def test_a_docstrings_later_doctest_runs_after_its_earlier_ones_and_set_up_code_is_no_example(
    tmp_path: Path,
) -> None:
    """doctest runs a docstring's sessions in one namespace: the second uses what the first bound.
    sphinx.ext.doctest's ``testsetup`` is never shown, so it is no example. When validation leaves
    APIs with examples but none that passed (snippets are not run), a warning says README.LLM
    shows none for them. Through the real ``generate --validate``, on a throwaway package."""
    from docmentor.library.knowledge.kb_files import load_kb
    from libtool import write_files

    write_files(
        tmp_path / "lib",
        {
            "sess/__init__.py": '''
                """Sessions."""
                from datetime import timedelta

                __all__ = ["span", "other"]


                def span(delta: timedelta) -> str:
                    """Say how long a delta is.

                    >>> delta = timedelta(seconds=90)
                    >>> span(delta)
                    '90 seconds'

                    It takes the same delta again:

                    >>> span(delta + delta)
                    '180 seconds'
                    """
                    return f"{int(delta.total_seconds())} seconds"


                def other(name: str) -> str:
                    """Another function."""
                    return name
            ''',
            "docs/index.rst": """
                Sessions
                ========

                .. testsetup:: *

                    from unittest import mock
                    clock = mock.MagicMock()

                Call another one:

                .. code-block:: python

                    sess.other(name)
            """,
        },
    )
    result = _generate_validated(tmp_path, "sess")
    assert result.kb_path is not None
    kb = load_kb(Path(result.kb_path))
    assert not any("MagicMock" in x.code for x in kb.examples)  # the set-up is no example
    by_id = {x.example_id: x for x in kb.examples}
    assert by_id["docstring-sess.span-1"].validated is True
    second = by_id["docstring-sess.span-2"]
    assert second.validated is True, second.execution_context.error  # `delta` of the first
    assert result.validation is not None and result.validation["failed"] == 0
    assert any(w.startswith("1 API(s) have examples but none that passed") for w in result.warnings), (
        result.warnings
    )


def test_a_pages_doctests_run_after_its_sphinx_set_up(tmp_path: Path) -> None:
    """sphinx.ext.doctest runs conf.py's ``doctest_global_setup`` and the page's ``testsetup``
    before the page's doctests, in one namespace per page (cattrs' docs import ``cattrs`` only
    there): ``--validate`` runs the sessions so, and the matcher reads what the set-up binds.
    Through the real ``generate --validate``, on a throwaway package."""
    from docmentor.library.knowledge.kb_files import load_kb
    from libtool import write_files

    write_files(
        tmp_path / "lib",
        {
            "cfgpkg/__init__.py": '''
                """Arithmetic."""

                __all__ = ["add", "double"]


                def add(a: int, b: int) -> int:
                    """Add two numbers."""
                    return a + b


                def double(a: int) -> int:
                    """Twice a number.

                    >>> cfgpkg.double(add(1, 1))
                    4
                    """
                    return 2 * a
            ''',
            "docs/conf.py": '''
                project = "cfgpkg"
                doctest_global_setup = """
                import cfgpkg
                from cfgpkg import double
                """
            ''',
            "docs/index.rst": """
                Arithmetic
                ==========

                .. testsetup::

                    base = 40

                Add:

                .. doctest::

                    >>> cfgpkg.add(base, 2)
                    42

                Double, and keep the result:

                >>> result = double(1)
                >>> result
                2

                Later on the page:

                >>> result + 1
                3

                >>> undefined_name + 1
                3
            """,
            "docs/upgrading.rst": """
                Upgrading
                =========

                The old way, gone in 1.0::

                    from cfgpkg import old_add
                    print(old_add(1, 2))
            """,
        },
    )
    result = _generate_validated(tmp_path, "cfgpkg")
    assert result.kb_path is not None
    kb = load_kb(Path(result.kb_path))
    docs = sorted(
        (x for x in kb.examples if x.origin == "docs" and x.path == "index.rst"), key=lambda x: x.line
    )
    assert [x.validated for x in docs] == [True, True, True, False], [
        (x.code, x.execution_context.error) for x in docs
    ]
    assert "cfgpkg.add" in docs[0].apis_used and "cfgpkg.double" in docs[1].apis_used
    # a docstring's doctest runs after conf.py's doctest_global_setup too (`cfgpkg.` unimported)
    (own,) = [x for x in kb.examples if x.origin == "docstring"]
    assert own.validated is True, own.execution_context.error
    # the upgrade guide's old code fails on purpose: counted, not listed among the failures
    (warned,) = [w for w in result.warnings if "failed validation" in w]
    assert warned.startswith(
        "2 example(s) failed validation; README.LLM leaves them out (1 on upgrade guides"
    )
    assert "index.rst" in warned and "upgrading.rst" not in warned
    assert not any("base = 40" in x.code or "import cfgpkg\nfrom" in x.code for x in kb.examples)


def test_a_pages_testcode_blocks_run_after_its_set_up_and_the_blocks_before_them(tmp_path: Path) -> None:
    """sphinx.ext.doctest runs a group's ``testsetup`` and then its ``testcode``/``doctest``
    blocks in one namespace (tenacity's pages import only in ``testsetup``: 31 of 35 examples
    were skipped; jsonschema's errors page uses an earlier block's ``tree``). A block that
    fails does not fail the ones after it; a ``code-block`` fragment is still not run."""
    from docmentor.library.knowledge.kb_files import load_kb
    from libtool import write_files

    write_files(
        tmp_path / "lib",
        {
            "trypkg/__init__.py": '''
                """Retrying."""

                __all__ = ["retry", "Tree"]


                def retry(fn):
                    """Retry fn."""
                    return fn


                class Tree:
                    """A tree of errors."""

                    def __init__(self, errors: list) -> None:
                        self.errors = errors
            ''',
            "docs/index.rst": """
                Retrying
                ========

                .. testsetup::

                    from trypkg import *

                .. testcode::

                    @retry
                    def never_gives_up():
                        return 1

                    tree = Tree([1, 2])

                .. testcode::

                    raise RuntimeError("this one fails")

                .. testcode::

                    import sys
                    doc = \"\"\"a
                    b\"\"\"
                    sys.exit(0)

                .. testcode::

                    print 'python 2'

                .. testcode::

                    print(len(tree.errors), never_gives_up())
                    assert doc == "a\\nb", doc

                .. testcode:: other

                    print(tree)

                .. code-block:: python

                    print(tree.errors)
            """,
        },
    )
    result = _generate_validated(tmp_path, "trypkg")
    assert result.kb_path is not None
    kb = load_kb(Path(result.kb_path))
    docs = sorted((x for x in kb.examples if x.origin == "docs"), key=lambda x: x.line)
    assert [(x.doctest_group, x.validated) for x in docs] == [
        ("default", True),
        ("default", False),  # the block that raises
        ("default", True),  # it exits: no failure, and no end to the blocks after it
        ("default", False),  # a syntax this Python does not read: it fails alone
        ("default", True),  # runs after the blocks before it, as Sphinx runs it: `tree`, `doc`
        ("other", False),  # another group: no `tree` there
        (None, None),  # a code-block fragment: not run
    ], [(x.code, x.execution_context.error) for x in docs]


def _generate_validated(tmp_path: Path, library: str) -> GenerationResult:
    """``generate --validate`` of the throwaway package and docs under ``tmp_path / "lib"``, run
    by an interpreter that imports them."""
    from libtool import generated

    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{tmp_path / "lib"}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return generated(tmp_path, library, python=str(python), validate=True, version="1.0")


def test_doctest_sessions_are_the_earlier_sessions_of_the_same_docstring() -> None:
    from docmentor.library.examples.docstring_examples import doctest_sessions

    def ex(example_id: str, code: str, origin: Literal["docs", "docstring"] = "docstring") -> Example:
        made = example(code, example_id=example_id)
        made.origin = origin
        return made

    found = doctest_sessions(
        [
            ex("docstring-p.f-3", ">>> f(a)\n"),
            ex("docstring-p.f-1", ">>> a = 1\n>>> a\n1\n"),
            ex("docstring-p.f-2", "b = f(a)\n"),  # a literal block: doctest does not run it
            ex("docstring-p.g-1", ">>> g()\n"),
            ex("docstring-p.g-2", ">>> g(1)  # doctest: +SKIP\n"),
            ex("docstring-p.g-3", ">>> g(2)\n"),
            ex("page-1", ">>> h()\n", origin="docs"),
        ]
    )
    assert found == {
        "docstring-p.f-3": ">>> a = 1\n>>> a\n1",
        "docstring-p.g-2": ">>> g()",
        "docstring-p.g-3": ">>> g()",  # the skipped session binds nothing for the next
    }


def test_a_later_session_runs_after_the_earlier_ones_only_when_it_needs_their_names(tmp_path: Path) -> None:
    """doctest's one namespace, without its costs: a later session that runs alone is judged
    alone (an earlier one that raises, or is skipped, does not fail it); one that fails on a
    name runs again after the earlier sessions."""
    from docmentor.library.examples.docstring_examples import doctest_setup

    setup = doctest_setup(
        [ApiEntry(api_id="textwrap.dedent", kind="function", name="dedent", source_file="textwrap.py")]
    )

    def session(n: int, code: str) -> Example:
        ex = example(code, example_id=f"docstring-textwrap.dedent-{n}", path="textwrap.py", complete=False)
        ex.origin = "docstring"
        return ex

    first = session(1, ">>> x = dedent('  a')\n>>> 1 / 0\n")  # raises after binding x
    alone = session(2, ">>> dedent('  b')\n'b'\n")
    needs = session(3, ">>> x\n'a'\n")
    sessions = {alone.example_id: first.code, needs.example_id: first.code + alone.code}
    report = validate_examples([first, alone, needs], setup=setup, sessions=sessions, jobs=2)
    by_id = {r.example_id: r.status for r in report.results}
    assert by_id == {first.example_id: "failed", alone.example_id: "passed", needs.example_id: "failed"}
    assert "ZeroDivisionError" in (needs.execution_context.error or "")  # run after the first
    fixed = session(1, ">>> x = dedent('  a')\n")
    report = validate_examples([fixed, needs], setup=setup, sessions={needs.example_id: fixed.code}, jobs=1)
    assert [r.status for r in report.results] == ["passed", "passed"]


def test_a_member_missing_from_a_generic_class_is_drift_however_typing_is_imported(tmp_path: Path) -> None:
    """itsdangerous writes `class Serializer(t.Generic[_T])`: typing's Generic adds no members,
    so a misspelled method of it is missing, whatever name typing is imported under."""
    found = installed(
        tmp_path,
        {
            "gen/__init__.py": """
                import typing as t

                _T = t.TypeVar("_T")

                class Serializer(t.Generic[_T]):
                    def __init__(self, key: str) -> None: ...
                    def dumps(self, obj: object) -> _T: ...
            """
        },
        "gen",
    )
    code = "import gen\ns = gen.Serializer('k')\ns.dumps({})\ns.dumpz({})\n"
    report = drift_report([example(code)], found, library="gen", version="1")
    assert [(f.kind, f.api) for f in report.findings] == [("missing_api", "s.dumpz")], report.to_text()


def test_a_failure_the_line_says_it_shows_is_no_failed_example() -> None:
    """dirty-equals' `assert now == IsNow()  # this will fail!`: the docs show that failure, as
    drift reads such a comment; a failure on another line is still one."""
    on_purpose = example("x = 1\nassert x == 2  # this will fail!\n", example_id="purpose")
    elsewhere = example("x = 1  # this will fail later\nassert x == 2\n", example_id="elsewhere")
    report = validate_examples([on_purpose, elsewhere], jobs=2)
    by_id = {r.example_id: r.status for r in report.results}
    assert by_id == {"purpose": "passed", "elsewhere": "failed"}, report.results


def test_only_the_failure_a_comment_names_is_shown_on_purpose() -> None:
    """A comment that mentions errors is no promise of one; a failure must be the one the
    comment names (an AssertionError for a bare "this will fail!")."""
    cases = {
        "named": ("x = 'a'\nint(x)  # raises ValueError\n", "passed"),
        "other": ("import json\njson.loads('{bad')  # raises TypeError\n", "failed"),
        "mention": ("import json\njson.loads('{bad')  # never raises an error on valid input\n", "failed"),
        "not an assertion": ("1 / 0  # this will fail!\n", "failed"),
    }
    examples = [example(code, example_id=name) for name, (code, _) in cases.items()]
    report = validate_examples(examples, jobs=2)
    assert {r.example_id: r.status for r in report.results} == {n: want for n, (_, want) in cases.items()}


def test_the_global_doctest_set_up_is_read_from_conf_py_never_run(tmp_path: Path) -> None:
    """Only a literal string assigned to ``doctest_global_setup`` counts; conf.py is parsed,
    not executed, and one that does not parse, or is huge, gives nothing."""
    from docmentor.sources.sphinx_doctest import MAX_CONF_BYTES, global_setup

    docs = tmp_path / "docs"
    (docs / "source").mkdir(parents=True)
    (docs / "source" / "conf.py").write_text(
        'raise SystemExit("never run")\ndoctest_global_setup = """\nimport pkg\n"""\n', encoding="utf-8"
    )
    assert global_setup(docs) == "import pkg\n"
    (docs / "source" / "conf.py").write_text("doctest_global_setup = make()\n", encoding="utf-8")
    assert global_setup(docs) == ""
    (docs / "source" / "conf.py").write_text("doctest_global_setup = '''\n", encoding="utf-8")
    assert global_setup(docs) == "" and global_setup(None) == "" and global_setup(tmp_path / "nope") == ""
    (docs / "source" / "conf.py").write_text("x = 1\n" * (MAX_CONF_BYTES // 5), encoding="utf-8")
    assert global_setup(docs) == ""


def test_a_server_still_running_at_the_timeout_is_not_run_here_but_a_hang_fails() -> None:
    """A server runs until it is stopped (anyio's ``serve_forever`` pages): still running at
    the timeout, it is not run here. Code that should end and hangs (an event never set) has
    failed. An error the example's comment names is shown on purpose, a missing file too."""
    server = example(
        "import socket, time\n\ndef serve_forever():\n    while True:\n        time.sleep(1)\n\nserve_forever()\n",
        example_id="server",
    )
    from docmentor.library.examples.validate import _RUNS_UNTIL_STOPPED as serving

    for code in (
        'uvicorn.run(app, host="0.0.0.0")',
        "app.run(debug=True)",
        "web.run_app(app)",
        "while 1:\n    pass",
    ):
        assert serving.search(code), code
    assert not serving.search("asyncio.run(main())") and not serving.search("event.wait()")
    hang = example("import threading\nthreading.Event().wait()\n", example_id="hang")
    shown = example("open('/no/such/file.txt')  # raises FileNotFoundError\n", example_id="shown")
    report = validate_examples([server, hang, shown], timeout=1.5, jobs=2)
    by_id = {r.example_id: r for r in report.results}
    assert by_id["server"].status == "skipped" and server.validated is None
    assert (by_id["server"].error or "").startswith("not run here: still running when stopped")
    assert by_id["hang"].status == "failed" and hang.validated is False
    assert by_id["shown"].status == "passed" and shown.validated is True


def test_a_command_line_program_without_arguments_or_input_is_not_run_here() -> None:
    """typer's and click's docs are command-line programs: run bare, one stops with a usage
    error (exit status 2: "Error: Missing command.") and one at a prompt meets the end of
    input (click's "Aborted!", input()'s EOFError). Those need what a user gives them, not a
    fix; an exception the program raises is still a failure."""
    usage = example(
        "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('name')\n"
        "print(parser.parse_args().name)\n",
        example_id="usage",
    )
    prompt = example("name = input('Your name: ')\nprint(name)\n", example_id="prompt")
    aborted = example(
        "import sys\nprint('Password: Aborted!', file=sys.stderr)\nsys.exit(1)\n", example_id="abort"
    )
    broken = example("raise ValueError('boom')\n", example_id="broken")
    report = validate_examples([usage, prompt, aborted, broken])
    by_id = {r.example_id: r for r in report.results}
    assert by_id["usage"].status == "skipped", by_id["usage"].error
    assert (by_id["usage"].error or "").startswith(
        "not run here: a command-line program that needs arguments"
    )
    assert by_id["prompt"].status == "skipped" and "prompt" in (by_id["prompt"].error or "")
    assert by_id["abort"].status == "skipped"
    assert by_id["broken"].status == "failed" and usage.validated is None and broken.validated is False


def test_an_example_its_comment_says_does_not_work_is_marked() -> None:
    """rich's ``with console.status("working"):  # Will not work`` and trio's "Whoops, we
    forgot the 'await'!" show what not to do: marked as drifted, so README.LLM and the overview
    never offer them and get_examples ranks them last; a comment that only names a bad
    request, or a comment mark inside a string, is no such mark; linear on a line of marks."""
    from docmentor.library.stages import counterexample, mark_drift

    status = example('with console.status("working"):  # Will not work\n    pass\n', example_id="status")
    whoops = example(
        "async def main():\n    # Whoops, we forgot the 'await'!\n    trio.sleep(1)\n", example_id="w"
    )
    fine = example('x = get("http://h/#bad")  # bad request handling is below\n', example_id="fine")
    assert mark_drift([status, whoops, fine], [], library="rich", version=None) is None
    assert status.drift == ["the docs say this code does not work (# Will not work)"]
    assert whoops.drift and fine.drift == []
    assert counterexample("#" * 200_000) is None and counterexample("// " * 100_000, "javascript") is None
    # a caveat with a condition, or a // inside Python code, is no counterexample (review)
    for code in (
        "x()  # This will not work on Windows",
        "# does not work without a token",
        'u = "//bad.org"',
    ):
        assert counterexample(code) is None, code
    assert counterexample("ky.get(u)  // doesn't work", "javascript") == "// doesn't work"


def test_a_demo_that_sleeps_in_a_loop_is_not_run_here_at_the_timeout() -> None:
    """rich's progress examples sleep a second per step to show a bar (``for i in
    track(range(20)): time.sleep(1)``): still showing it at the timeout, not stuck; one long
    sleep, or a wait that never ends, is a failure."""
    demo = example("import time\nfor i in range(20):\n    time.sleep(1)\n", example_id="demo")
    stuck = example("import threading\nthreading.Event().wait()\n", example_id="stuck")
    report = validate_examples([demo, stuck], timeout=2)
    by_id = {r.example_id: r for r in report.results}
    assert by_id["demo"].status == "skipped" and "still running" in (by_id["demo"].error or "")
    assert by_id["stuck"].status == "failed" and demo.validated is None


def test_a_name_the_readers_program_has_is_not_run_here_but_a_misspelling_fails() -> None:
    """werkzeug's middleware pages: ``app = ProxyFix(app, x_for=1)`` wraps the reader's app,
    which the example never makes (NameError: not run here); ``reponse`` for the ``response``
    the example binds is the docs' mistake, a failure."""
    wraps = example("import functools\n\napp = functools.partial(app, x_for=1)\n", example_id="wraps")
    typo = example("response = {'a': 1}\nprint(reponse['a'])\n", example_id="typo")
    # used before the example binds it, or bound only inside a function: the docs' bug (review)
    early = example("print(total)\ntotal = 5\n", example_id="early")
    inner = example("def f():\n    result = 1\n\nf()\nprint(result)\n", example_id="inner")
    report = validate_examples([wraps, typo, early, inner])
    by_id = {r.example_id: r for r in report.results}
    assert by_id["wraps"].status == "skipped", by_id["wraps"].error
    assert (by_id["wraps"].error or "").startswith(
        "not run here: uses 'app', which the reader's own program has"
    )
    assert by_id["typo"].status == "failed" and typo.validated is False and wraps.validated is None
    assert by_id["early"].status == "failed" and by_id["inner"].status == "failed"


def test_a_drift_report_says_which_examples_it_did_not_read() -> None:
    """ky's 42 TypeScript examples: drift reads Python only, and its report said "0 examples
    checked … no drift" as if all were fine. It says how many it did not read, and no
    "No drift" when it checked nothing."""
    from docmentor.library.examples.drift import drift_report
    from docmentor.library.surface.api_python import ApiSurface

    ts = example("import ky from 'ky';\nawait ky.post('u');\n", example_id="ts").model_copy(
        update={"language": "typescript"}
    )
    report = drift_report([ts], ApiSurface(library="ky", version="1.0", entries=[]), library="ky")
    assert report.examples_checked == 0 and report.examples_not_checked == 1
    text = report.to_text()
    assert (
        "1 example in other languages not checked: drift reads Python only" in text and "No drift" not in text
    )
    assert report.to_dict()["examples_not_checked"] == 1
