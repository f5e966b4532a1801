"""The deterministic clarity checks: each with a failing and a passing snippet, fuzzed, and
run over slices of real documentation (tests/fixtures/httpx, tests/fixtures/lancedb).

The same checks over the whole corpora: benchmarks/corpus_checks.py (`make eval`)."""

from __future__ import annotations

import logging
import re
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docmentor.clarity.checks import CHECKS, SiteFiles, check, check_document, checked_document, run_checks
from docmentor.clarity.checks.links import heading_slugs
from docmentor.clarity.checks.python import prepare
from docmentor.clarity.models import DIMENSIONS, SEVERITIES, CheckedDocument, Issue
from docmentor.errors import NotFoundError
from docmentor.models import RawDocument
from docmentor.sources.local import scan_folder

FIXTURES = Path(__file__).parent / "fixtures" / "clarity"
SITE = FIXTURES / "site"
SLICES = Path(__file__).parent / "fixtures"  # httpx/, lancedb/: documentation slices (NOTICE)


def md(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def found(
    text: str, kind: str | None = None, *, path: str = "page.md", root: Path | None = None
) -> list[Issue]:
    issues = check_document(md(text), path=path, root=root).issues
    return [i for i in issues if kind is None or i.type == kind]


def types(text: str, *, path: str = "page.md", root: Path | None = None) -> set[str]:
    return {i.type for i in found(text, path=path, root=root)}


# -- registry and runner ------------------------------------------------------------------


def test_every_check_is_registered_once_with_a_docstring() -> None:
    names = [c.name for c in CHECKS]
    assert len(names) == len(set(names))
    assert {
        "links",
        "alt-text",
        "syntax",
        "code-language",
        "code-explanation",
        "undefined-names",
        "prerequisites",
        "headings",
        "placeholders",
        "terminology",
    } <= set(names)
    for c in CHECKS:
        assert len(c.description) > 30, c.name


def test_a_check_that_raises_is_logged_and_adds_nothing(caplog: pytest.LogCaptureFixture) -> None:
    @check("test-explodes")
    def explodes(doc: CheckedDocument) -> Iterator[Issue]:
        """Always fails."""
        raise RuntimeError("boom")
        yield  # pragma: no cover

    try:
        with caplog.at_level(logging.ERROR):
            result = check_document("# Title\n\nFine text.\n", path="page.md")
    finally:
        CHECKS[:] = [c for c in CHECKS if c.name != "test-explodes"]
    assert result.issues == []
    assert "test-explodes" in caplog.text


def test_issues_are_sorted_named_and_deterministic() -> None:
    text = (SITE / "bad.md").read_text(encoding="utf-8")
    first = check_document(text, path="bad.md", root=SITE)
    again = check_document(text, path="bad.md", root=SITE)
    assert [i.to_dict() for i in first.issues] == [i.to_dict() for i in again.issues]
    keys = [(i.line, i.type, i.message) for i in first.issues]
    assert keys == sorted(keys)
    assert all(i.check in {c.name for c in CHECKS} for i in first.issues)


def test_good_fixture_site_has_no_issues() -> None:
    for page in ("tutorial.md", "reference.md", "guide/index.md", "api/index.md"):
        result = check_document(SITE / page, path=page, root=SITE)
        assert result.issues == [], (page, [i.to_dict() for i in result.issues])
    metrics = check_document(SITE / "tutorial.md", path="tutorial.md", root=SITE).metrics
    assert metrics.total_code_blocks == 6
    assert metrics.executable_examples == 3  # the requests program, the pycon session, print(session.headers)


def test_bad_fixture_finds_one_of_each() -> None:
    result = check_document(SITE / "bad.md", path="bad.md", root=SITE)
    counts = Counter(i.type for i in result.issues)
    assert counts == {
        "broken_link": 4,
        "inconsistent_terminology": 1,
        "placeholder_text": 2,
        "missing_explanation": 1,
        "undefined_name": 1,
        "missing_code_language": 1,
        "syntax_error": 1,
        "skipped_heading_level": 1,
        "missing_alt_text": 2,
        "empty_section": 1,
        "multiple_h1": 1,
        "forward_reference": 1,
    }
    assert result.metrics.broken_links == 4
    assert result.metrics.missing_alt_text == 2
    assert result.metrics.total_code_blocks == 5
    assert result.metrics.executable_examples == 0
    syntax = next(i for i in result.issues if i.type == "syntax_error")
    assert (syntax.line, syntax.severity, syntax.dimensions, syntax.effort) == (
        22,
        "critical",
        ["instruction_clarity"],
        "low",
    )
    assert syntax.section == "Quickstart > Broken code"
    assert syntax.context_quote == "def broken(:"


def test_check_document_reads_a_path_and_reports_a_missing_one(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# T\n\nSee [gone](gone.md).\n", encoding="utf-8")
    issues = check_document(page, path="page.md").issues  # root defaults to the file's folder
    assert [i.type for i in issues] == ["broken_link"]
    with pytest.raises(NotFoundError):
        check_document(tmp_path / "nope.md", path="nope.md")


# -- links and anchors --------------------------------------------------------------------


def test_broken_relative_links_fail_and_existing_ones_pass() -> None:
    bad = found("# T\n\nSee [a](nowhere.md) and [b](../not-there.md).\n", "broken_link", root=SITE)
    assert sorted(i.message for i in bad) == [
        "Link target `../not-there.md` does not exist",
        "Link target `nowhere.md` does not exist",
    ]
    assert all(i.counts_as == "broken_links" and i.severity == "warning" for i in bad)
    good = """
    # T

    [file](reference.md), [folder](guide/), [folder no slash](guide), [html](reference.html),
    [no suffix](reference), [outside the root](../shared.md), [site-absolute](/docs/anything),
    [web](https://example.com/missing.md), [mail](mailto:a@example.com), [image link](pics/gone.png),
    [templated]({{ base }}/x.md), `[in code](nowhere.md)`

    ```markdown
    [in a fence](nowhere.md)
    ```
    """
    assert found(good, "broken_link", root=SITE) == []


def test_mkdocs_directory_url_links_resolve_from_the_page_url(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "setup.md").write_text("# Setup\n", encoding="utf-8")
    (tmp_path / "guide" / "usage.md").write_text("# Usage\n\n[setup](../setup/)\n", encoding="utf-8")
    assert check_document(tmp_path / "guide" / "usage.md", path="guide/usage.md", root=tmp_path).issues == []


def test_sphinx_cross_references_are_no_broken_links(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text("project = 'x'\n", encoding="utf-8")
    (tmp_path / "api.rst").write_text(
        "API\n===\n\n.. _api-validators:\n\nValidators\n----------\n", encoding="utf-8"
    )
    (tmp_path / "loggers.md").write_text(
        "# Loggers\n\n(filtering)=\n\n## Filtering\n\nText.\n", encoding="utf-8"
    )
    page = """
    # Guide

    See [the filters](filtering), [validators](api-validators), [the API page](api),
    [](pkg.processors.TimeStamper), [the index](genindex) and [search](search).

    But [a page](missing-page), [a file](gone.md) and [a label](nolabel) are broken, and so
    are [the settings](settings.yaml) and [the script](install.sh) (files, not objects).
    """
    (tmp_path / "guide.md").write_text(md(page), encoding="utf-8")
    bad = check_document(tmp_path / "guide.md", path="guide.md", root=tmp_path).issues
    assert sorted(i.message for i in bad if i.type == "broken_link") == [
        "Link target `gone.md` does not exist",
        "Link target `install.sh` does not exist",
        "Link target `missing-page` does not exist",
        "Link target `nolabel` does not exist",
        "Link target `settings.yaml` does not exist",
    ]
    # a dotted name is a Python object only in a Sphinx project: elsewhere it is a missing file
    (tmp_path / "conf.py").unlink()
    bad = check_document(tmp_path / "guide.md", path="guide.md", root=tmp_path).issues
    assert "Link target `pkg.processors.TimeStamper` does not exist" in {i.message for i in bad}
    assert "Link target `filtering` does not exist" not in {i.message for i in bad}


def test_myst_directives_that_hold_no_code_are_no_code_blocks() -> None:
    page = """
    # Directives

    Some text about them.

    ```{toctree}
    :maxdepth: 2

    getting-started
    ```

    ## Setup

    ```{note}
    :class: tip

    Configure it once.
    ```

    ## Warning

    ````{warning}
    ```python
    import os
    os.getcwd()
    ```
    ````

    ```{versionadded} 2.1
    ```
    """
    result = check_document(md(page), path="page.md")
    # the admonition's text explains nothing of its own code: it has none but the python fence,
    # and that fence is the page's one code block
    assert result.metrics.total_code_blocks == 1
    assert result.metrics.executable_examples == 1
    assert [i.line for i in result.issues if i.type == "missing_explanation"] == [22]


def test_an_untagged_fence_that_imports_defines_for_the_tagged_ones_after_it() -> None:
    page = """
    # Setup

    Import it:

    ```
    import structlog
    ```

    Then call it:

    ```python
    structlog.configure()
    ```

    A later one uses what only a later untagged fence imports:

    ```python
    logging.getLogger()
    ```

    ```
    import logging
    ```
    """
    issues = found(page)
    assert {
        (i.type, i.message.split("`")[1]) for i in issues if "name" in i.type or "reference" in i.type
    } == {("forward_reference", "logging")}


def test_rest_links_and_images_are_checked_as_markdown_ones_are(tmp_path: Path) -> None:
    (tmp_path / "here.rst").write_text("Here\n====\n", encoding="utf-8")
    page = """
    Title
    =====

    See `Other <other.rst>`_, `Here <here.rst>`_, :doc:`missing-page`, :doc:`here` and
    ``code `x <y.rst>`_`` (a literal, not a link).

    .. image:: a.png

    .. |logo| image:: logo.png
       :alt: The logo

    .. figure:: f.png

       A caption says what it shows.

    .. figure:: g.png
       :width: 200
    """
    (tmp_path / "page.rst").write_text(md(page), encoding="utf-8")
    issues = check_document(tmp_path / "page.rst", path="page.rst", root=tmp_path).issues
    assert sorted((i.type, i.line) for i in issues) == [
        ("broken_link", 4),
        ("broken_link", 4),
        ("missing_alt_text", 7),
        ("missing_alt_text", 16),
    ]
    assert {i.message for i in issues if i.type == "broken_link"} == {
        "Link target `other.rst` does not exist",
        "Link target `missing-page` does not exist",
    }
    assert all(":alt:" in i.suggested_fix for i in issues if i.type == "missing_alt_text")


def test_no_link_is_checked_on_disk_without_a_root() -> None:
    assert found("# T\n\n[x](nowhere.md)\n", "broken_link") == []


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Client options", "client-options"),
        ("Foo & Bar: `baz()`", "foo--bar-baz"),  # GitHub keeps one hyphen per space
        ("Foo & Bar: `baz()`", "foo-bar-baz"),  # MkDocs toc collapses them
        ("What's new in 2.0?", "whats-new-in-20"),
        ("`spec.owner` [required]", "specowner-required"),
        ("Café crème", "cafe-creme"),  # MkDocs' ASCII slugify
        ("Café crème", "café-crème"),  # GitHub and slugify_unicode
        ("Custom anchor {#custom-id}", "custom-id"),
    ],
)
def test_heading_slugs_follow_github_and_mkdocs(heading: str, anchor: str) -> None:
    explicit, slugs = heading_slugs(heading)
    assert anchor == explicit or anchor in slugs


def test_anchors_on_the_page_and_in_linked_pages() -> None:
    page = """
    # Title

    ## Setup

    First.

    ## Setup

    Second.

    ## Foo & Bar

    [a](#setup) [b](#setup-1) [c](#setup_1) [d](#foo--bar) [e](#foo-bar) [f](#Title)
    [g](reference.md#client-options) [h](reference.md#setup_1) [i](reference.md#custom-id)
    [j](reference.md#html-anchor) [k](api/index.md#client.Session.get)
    """
    assert found(page, "broken_link", root=SITE) == []
    bad = found("# T\n\n[x](#setup-2) [y](reference.md#nothing)\n", "broken_link", root=SITE)
    assert sorted(i.message for i in bad) == [
        "Anchor `#nothing` matches no heading in `reference.md`",
        "Anchor `#setup-2` matches no heading on this page",
    ]


def test_images_without_alt_text() -> None:
    bad = found('# T\n\n![](a.png) and <img src="b.png"> and <img\n  src="c.png">\n', "missing_alt_text")
    assert [i.context_quote for i in bad] == ["![](a.png)", '<img src="b.png">', '<img src="c.png">']
    assert all(i.counts_as == "missing_alt_text" and i.severity == "info" for i in bad)
    good = """
    # T

    ![A chart of latency](a.png) <img alt="" src="spacer.png"> <img src="c.png" alt="Logo">
    `![](in-code.png)`

    ```html
    <img src="in-a-fence.png">
    ```

    <!-- ![](in-a-comment.png) -->
    """
    assert found(good, "missing_alt_text") == []


# -- code blocks --------------------------------------------------------------------------


def test_python_that_does_not_parse_is_critical() -> None:
    (issue,) = found("# T\n\nText.\n\n```python\nx = 1\nif x\n    print(x)\n```\n", "syntax_error")
    assert issue.line == 7  # the page line of `if x`
    assert issue.context_quote == "if x"
    assert "line 2 of the block" in issue.message


def test_a_rest_directive_reports_the_line_of_its_code() -> None:
    """Options and a blank line come between ``.. code-block::`` and its code: the issue points
    at the broken line, not at the directive's."""
    rst = "Title\n=====\n\nText.\n\n.. code-block:: python\n   :caption: broken\n\n   x = 1\n   if x\n       print(x)\n"
    (issue,) = found(rst, "syntax_error", path="page.rst")
    assert issue.line == 10  # the page line of `if x`
    assert issue.context_quote == "if x"


@pytest.mark.parametrize(
    "code",
    [
        ">>> import math\n>>> math.sqrt(4)\n2.0\n>>> for i in range(2):\n...     print(i)\n...\n0\n1\n",
        "In [1]: x = 1\n\nIn [2]: x + 1\nOut[2]: 2\n",
        "client = make_client(api_key=...)\nresult = client.call(..., retries=3, ...)\n",
        "def handler(request, ...):\n    ...\n",
        "create(...params)\n",
        "f(\n    ...\n    name='x',\n)\n",
        "await client.get('/')\n",
        "%pip install requests\nimport requests\n",
        "$ python -m pip install requests\n",
        "pip install requests\n",
        "mkdir project\n",
        "{{ variable }} = 1\n",
        "this is not python  # doctest: +SKIP\n",
        '--8<-- "examples/missing.py:section"\n',
    ],
)
def test_python_tolerances(code: str) -> None:
    assert found(f"# T\n\nText.\n\n```python\n{code}```\n", "syntax_error") == []


def test_doctest_sessions_drop_output_and_keep_lines() -> None:
    source, offsets, session, skipped = prepare(">>> a = 1\n>>> a\n1\n>>> b = (a +\n...      2)\n", "pycon")
    assert session and not skipped
    assert source == "a = 1\na\nb = (a +\n     2)\n"
    assert offsets == [0, 1, 3, 4]
    # a session's error points at the right line of the page
    (issue,) = found("# T\n\nText.\n\n```pycon\n>>> ok = 1\nok\n>>> def f(:\n```\n", "syntax_error")
    assert issue.line == 8


@pytest.mark.parametrize(
    ("language", "bad", "good"),
    [
        ("json", '{"a": 1,}', '{"a": [1, 2], "b": null}'),
        ("json", '{"a": 1} // comment', '"key": {"nested": true},'),  # a member shown out of its file
        ("json", "{'a': 1}", '{"a": 1}\n{"a": 2}'),  # JSON Lines
        ("yaml", "a: [1, 2\nb: 3", "a: !!python/name:module.func\nb: !ENV HOME\n---\nc: 1"),
        ("toml", "[tool\nname = 1", '[tool.x]\nname = "v"\nlist = [1, 2]'),
    ],
)
def test_data_blocks_that_do_not_parse(language: str, bad: str, good: str) -> None:
    page = "# T\n\nText.\n\n```{lang}\n{code}\n```\n"
    (issue,) = found(page.format(lang=language, code=bad), "syntax_error")
    assert issue.severity == "critical" and issue.line >= 6
    assert found(page.format(lang=language, code=good), "syntax_error") == []


def test_json_with_comments_is_told_how_to_mark_it() -> None:
    """A `json` block that is JSON once its comments and trailing commas go (a fragment of a
    package.json with a `// comment`, an MDX tour) says so and names `jsonc`; other errors
    say only what the parser said."""
    page = '# T\n\nText.\n\n```json\n"packages": [\n  "packages/*", // the apps\n  "plugins/*",\n],\n```\n'
    (issue,) = found(page, "syntax_error")
    assert issue.message.startswith(
        "JSON does not parse: comments and trailing commas are not JSON (a block of JSON with comments is `jsonc`)"
    )

    (other,) = found('# T\n\nText.\n\n```json\n{"a": "// x" 1}\n```\n', "syntax_error")
    assert "jsonc" not in other.message
    assert found(page.replace("```json", "```jsonc"), "syntax_error") == []


def test_elided_and_templated_data_blocks_are_skipped() -> None:
    for language, code in [("json", '{"a": 1, ...}'), ("yaml", "a: {{ value }}\n  b"), ("toml", "a = …")]:
        assert found(f"# T\n\nText.\n\n```{language}\n{code}\n```\n", "syntax_error") == []


def test_fences_without_a_language() -> None:
    (issue,) = found("# T\n\nOutput:\n\n```\n200 OK\n```\n", "missing_code_language")
    assert (issue.severity, issue.dimensions, issue.line) == ("info", ["consistency"], 5)
    assert (
        found("# T\n\nOutput:\n\n```text\n200 OK\n```\n\n    indented code\n", "missing_code_language") == []
    )


def test_code_without_explanation() -> None:
    (issue,) = found(
        '# T\n\nIntro.\n\n## Install\n\n=== "pip"\n\n    ```bash\n    pip install x\n    ```\n',
        "missing_explanation",
    )
    assert (issue.line, issue.section, issue.severity) == (9, "T > Install", "warning")
    explained = "# T\n\nIntro.\n\n## Install\n\nInstall it with pip:\n\n```bash\npip install x\n```\n"
    assert found(explained, "missing_explanation") == []
    self_explained = "# T\n\nIntro.\n\n### Example\n\n```python\nprint(1)\n```\n"
    assert found(self_explained, "missing_explanation") == []
    signature = "# T\n\nIntro.\n\n## get()\n\n```ts\nget(key): string\n```\n\n### Parameters\n\nThe key.\n"
    assert found(signature, "missing_explanation") == []


# -- names across a page's examples -------------------------------------------------------


def test_forward_reference_versus_undefined_name() -> None:
    page = """
    # T

    Use the client:

    ```python
    response = client.get(os.environ["URL"])
    print(response.json(), len(client.headers))
    ```

    Create the client first:

    ```python
    import httpx

    client = httpx.Client()
    ```
    """
    issues = found(page, path="guide.md")
    named = {
        (i.type, i.message.split("`")[1]) for i in issues if i.type in ("undefined_name", "forward_reference")
    }
    assert named == {("forward_reference", "client"), ("undefined_name", "os")}
    forward = next(i for i in issues if i.type == "forward_reference")
    assert (forward.line, forward.dimensions) == (6, ["logical_flow"])
    undefined = next(i for i in issues if i.type == "undefined_name")
    assert undefined.dimensions == ["completeness"]


def test_names_defined_earlier_imported_or_builtin_are_fine() -> None:
    page = """
    # T

    Setup:

    ```python
    import os.path
    from pathlib import Path as P
    import numpy as np

    def helper(x, *args, **kwargs):
        return [y for y in args if y] or kwargs.get(x) or GLOBAL

    GLOBAL = 1
    class Thing:
        size = 2
        def grow(self):
            return self.size + len(dir(Thing))

    with open(__file__) as fh:
        first = fh.readline()
    for i, (a, b) in enumerate([(1, 2)]):
        pass
    try:
        pass
    except ValueError as err:
        print(err)
    if (n := 3) > 2:
        print(n)
    ```

    Later:

    ```python
    print(os.path.join("a"), P("x"), np.zeros(1), helper("a"), Thing().grow(), first, i, a, b, _)
    ```

    A session; `result` is output, not a name:

    ```pycon
    >>> value = 2
    >>> value
    result
    ```
    """
    assert found(page, "undefined_name") == [] and found(page, "forward_reference") == []


def test_one_issue_per_name_and_fragments_are_grouped() -> None:
    page = "# T\n\nA.\n\n```python\nimport json\nprint(tbl)\n```\n\nB.\n\n```python\ntbl.add(tbl)\n```\n"
    assert len(found(page, "undefined_name")) == 1
    fragments = "# T\n\nA.\n\n```python\ntbl.search(q)\n```\n\nB.\n\n```python\ntbl.delete(where)\n```\n"
    (issue,) = found(fragments, "undefined_name")
    assert "`q`, `tbl`, `where` are used" in issue.message


def test_hidden_setup_code_and_wildcards_define_names() -> None:
    hidden = (
        "# T\n\n<!-- Setup\n```python\ndb = connect()\n```\n-->\n\nUse it:\n\n```python\ndb.open()\n```\n"
    )
    assert found(hidden, "undefined_name") == []
    star = "# T\n\nA:\n\n```python\nfrom lib import *\nx = thing()\n```\n"
    assert found(star, "undefined_name") == []
    include = '# T\n\nA:\n\n```python\n--8<-- "missing.py:setup"\ndb.open()\n```\n'
    assert found(include, "undefined_name") == []


def test_rest_literal_blocks_are_python_examples() -> None:
    """A reST ``::`` literal block (Sphinx highlights it as Python) counts as Python when it
    parses and does something, as the library's examples count it: the same program scores
    alike however the reST page marks it; output does not. An untagged Markdown fence stays of
    no language (JavaScript's ``fetch('/x').then(show)`` parses as Python too)."""
    program = "import json\n\nprint(json.dumps({}))\nprint(missing)\n"
    indented = textwrap.indent(program, "    ")
    rest = f"Title\n=====\n\nRun it::\n\n{indented}\nIt prints::\n\n    {{}}\n"
    directive = f"Title\n=====\n\nRun it:\n\n.. code-block:: python\n\n{indented}\nIt prints::\n\n    {{}}\n"
    tagged = f"# Title\n\nRun it:\n\n```python\n{program}```\n\nShell:\n\n```\n$ pip install x\n```\n"
    results = [
        check_document(rest, path="a.rst"),
        check_document(directive, path="b.rst"),
        check_document(tagged, path="c.md"),
    ]
    for result in results:
        assert result.metrics.executable_examples == 0  # `missing` is undefined
        assert [i.type for i in result.issues if i.type == "undefined_name"] == ["undefined_name"]
    complete = rest.replace("print(missing)", "print(1)")
    assert check_document(complete, path="a.rst").metrics.executable_examples == 1
    javascript = "# W\n\n```\nfetch('/widgets').then(show)\n```\n"
    assert "undefined_name" not in {i.type for i in check_document(javascript, path="w.md").issues}


def test_executable_examples_metric() -> None:
    page = """
    # T

    A complete program, then one that uses an undefined name, then a definition only:

    ```python
    import json
    print(json.dumps({}))
    ```

    ```python
    print(missing)
    ```

    ```python
    x = 1
    ```
    """
    assert check_document(md(page), path="p.md").metrics.executable_examples == 1


# -- prerequisites ------------------------------------------------------------------------


def test_tutorial_importing_a_package_without_install_instructions() -> None:
    page = "# Quickstart\n\nFetch a page:\n\n```python\nimport requests\nimport json\n```\n"
    (issue,) = found(page, "missing_prerequisites", path="docs/quickstart.md")
    assert (issue.severity, issue.dimensions, issue.line) == ("warning", ["prerequisite_coverage"], 6)
    assert "`requests`" in issue.message and "json" not in issue.message
    # by title, too
    assert found(page.replace("Quickstart", "Getting started"), "missing_prerequisites", path="a.md")
    # install instructions, a non-tutorial page, or only the standard library: fine
    assert (
        found(page + "\n```bash\npip install requests\n```\n", "missing_prerequisites", path="quickstart.md")
        == []
    )
    assert found(page.replace("Quickstart", "Usage"), "missing_prerequisites", path="usage.md") == []
    stdlib = "# Tutorial\n\nText.\n\n```python\nimport json, os\n```\n"
    assert found(stdlib, "missing_prerequisites", path="tutorial.md") == []


# -- headings, placeholders, terminology --------------------------------------------------


def test_heading_structure() -> None:
    page = "# One\n\nText.\n\n## A\n\n#### Too deep\n\nText.\n\n## Empty\n\n## Parent\n\n### Child\n\nText.\n\n# Two\n\nText.\n"
    issues = found(page)
    assert [(i.type, i.line) for i in issues] == [
        ("skipped_heading_level", 7),
        ("empty_section", 11),
        ("multiple_h1", 19),
    ]
    assert next(i for i in issues if i.type == "multiple_h1").severity == "warning"
    good = "## Starts at H2\n\nText.\n\nSetext\n------\n\nText.\n\n## Only a comment?\n\n::: pkg.mod\n"
    assert found(good) == []


def test_placeholders() -> None:
    issues = found(
        "# T\n\nTODO: write this. FIXME later.\n\n## TBD\n\nLorem Ipsum dolor.\n", "placeholder_text"
    )
    assert [(i.line, i.message) for i in issues] == [
        (3, "Leftover placeholder “TODO”"),
        (5, "Leftover placeholder “TBD”"),
        (7, "Leftover placeholder “Lorem Ipsum”"),
    ]
    good = """
    # T

    A todo list, `TODO` in code, TODO_ITEMS, ADR-XXXX, a value of xxx.
    <!-- TODO: hidden from readers -->

    ```python
    # TODO: your code here
    ```
    """
    assert found(good, "placeholder_text") == []


def test_placeholders_in_rst_code_comments_and_literal_blocks_are_not_prose() -> None:
    """trio's docs: a ``TODO`` in a reST comment (``..`` then text, or its indented body) is
    invisible to readers, and an ``XXX`` in a ``.. code-block::``, a ``::`` literal block or a
    doctest block is code; the TODO in the page's text is the one finding."""
    text = """
    Title
    =====

    TODO: explain cancellation.

    ..
       TODO: what about Cancelled?

    .. TODO this page needs a diagram

    .. code-block:: pycon

       >>> x = 1

       >>> broken()   # XXX PyPy fix?

    It prints this::

        FIXME not a placeholder here

    >>> y = 2  # XXX also code

    .. note::

       A note's text is prose.

    .. _label:

    The end.
    """
    issues = found(text, "placeholder_text", path="page.rst")
    assert [(i.line, i.message) for i in issues] == [(4, "Leftover placeholder “TODO”")]


def test_terminology_drift() -> None:
    issues = found(
        "# Using GitHub\n\nPush to GitHub. Github is where lanceDB and LanceDB live.\n",
        "inconsistent_terminology",
    )
    assert sorted(i.message.split("”")[0] for i in issues) == ["“Github", "“lanceDB"]
    assert all(i.severity == "info" and i.dimensions == ["consistency"] for i in issues)
    good = """
    # Table

    The table holds rows. Table names are unique. Set `writeMode` with the WriteMode enum;
    writeMode defaults to create. NOTE and Note, JSON and Json are left alone, so is github.com.
    """
    assert found(good, "inconsistent_terminology") == []


# -- MkDocs and real-docs tolerance -------------------------------------------------------


def test_mkdocs_syntax_is_not_reported(tmp_path: Path) -> None:
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "hello.py").write_text("import sys\nprint(sys.argv)\n", encoding="utf-8")
    page = """
    # Page

    Text with {!includes/missing.md!} and [a link](other.md).

    --8<-- "snippets/missing.md"

    === "Python"

        Run this:

        ```python
        --8<-- "snippets/hello.py"
        ```

    !!! note "Careful"

        Admonition text:

        ```python
        print("inside an admonition"
        ```

    ::: package.module.Thing
        :docstring:

    <!-- a comment with [a broken link](gone.md) and TODO -->
    """
    (tmp_path / "other.md").write_text("# Other\n", encoding="utf-8")
    (tmp_path / "page.md").write_text(md(page), encoding="utf-8")
    issues = check_document(tmp_path / "page.md", path="page.md", root=tmp_path).issues
    # the only problem is the real one: the unclosed call inside the admonition
    assert [(i.type, i.line) for i in issues] == [("syntax_error", 20)]


def test_docusaurus_routes_name_pages_by_id_and_without_number_prefixes(tmp_path: Path) -> None:
    """`[x](./install)` is `installation-guide.md` whose front matter says `id: install`, and
    `[x](./introduction)` is `01-introduction.md`, as Docusaurus routes them (an MDX tour:
    both reported broken); a route nothing has is still broken, and anchors are checked in
    the page routed to."""
    (tmp_path / "installation-guide.md").write_text(
        "---\nid: install\ntitle: Install\n---\n\n# Install\n\n## Pip\n\nText.\n", encoding="utf-8"
    )
    (tmp_path / "01-introduction.mdx").write_text("# Intro\n\nText.\n", encoding="utf-8")
    page = (
        "# Guide\n\nSee [a](./install), [b](./introduction), [c](install#pip), [d](./install#nope) "
        "and [e](./nowhere).\n"
    )
    (tmp_path / "guide.md").write_text(page, encoding="utf-8")
    bad = check_document(tmp_path / "guide.md", path="guide.md", root=tmp_path).issues
    assert sorted(i.message for i in bad if i.type == "broken_link") == [
        "Anchor `#nope` matches no heading in `installation-guide.md`",
        "Link target `./nowhere` does not exist",
    ]


def test_a_docusaurus_admonition_leaves_the_anchors_checked() -> None:
    """Only mkdocstrings' `::: package.module` makes a page's anchors unknowable; `:::note`,
    `:::tip Title` and `::: warning` are admonitions (an MDX tour: any admonition turned
    every anchor check of its page off)."""
    for opening in (":::note", ":::tip Careful", "::: warning"):
        page = f"# T\n\nText.\n\n{opening}\n\nBe careful.\n\n:::\n\nSee [x](#no-such-anchor) and [t](#t).\n"
        assert [i.message for i in found(page, "broken_link")] == [
            "Anchor `#no-such-anchor` matches no heading on this page"
        ], opening
    assert found("# T\n\n::: pkg.mod\n\nSee [x](#pkg.mod.thing).\n", "broken_link") == []


# -- fuzz ---------------------------------------------------------------------------------

_LANGS = st.sampled_from(
    ["python", "py", "pycon", "json", "yaml", "toml", "", "js", "bash", "{.python}", "text"]
)
_CODE = st.lists(
    st.sampled_from(
        [*"abxyz019 _=()[]{}:,.'\"#\n\t-+*/<>!%$@\\", ">>> ", "... ", "--8<--", "…", "{{", "import ", "def "]
    ),
    max_size=40,
).map("".join)
_WORDS = st.text(alphabet=st.sampled_from(list("aAbBgGhHtTuU TODOFIXMEXxé_`*#[]()!<>-:.")), max_size=40)
_TARGETS = st.sampled_from(
    [
        "",
        "#",
        "#a",
        "x.md",
        "x.md#b",
        "../y.md",
        "dir/",
        "/abs",
        "http://e.com",
        "reference.md#setup",
        "a b",
        "%zz",
    ]
)


@st.composite
def _markdown(draw: st.DrawFn) -> str:
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append("---\ntitle: " + draw(_WORDS) + "\n---")
    for _ in range(draw(st.integers(0, 10))):
        kind = draw(st.integers(0, 8))
        indent = " " * draw(st.sampled_from([0, 0, 4, 2]))
        if kind == 0:
            parts.append("#" * draw(st.integers(1, 7)) + " " + draw(_WORDS))
        elif kind == 1:
            fence = draw(st.sampled_from(["```", "~~~", "````"]))
            body = draw(_CODE)
            parts.append(
                f"{indent}{fence}{draw(_LANGS)}\n{body}\n{indent}{fence if draw(st.booleans()) else ''}"
            )
        elif kind == 2:
            parts.append(f"{draw(_WORDS)} [{draw(_WORDS)}]({draw(_TARGETS)}) {draw(_WORDS)}")
        elif kind == 3:
            parts.append(f"![{draw(_WORDS)}]({draw(_TARGETS)}) <img src='{draw(_TARGETS)}'>")
        elif kind == 4:
            parts.append(
                f'=== "{draw(_WORDS)}"\n\n    {draw(_WORDS)}\n\n    ```python\n    {draw(_CODE)}\n    ```'
            )
        elif kind == 5:
            parts.append(f"!!! note\n    {draw(_WORDS)}\n<!-- {draw(_WORDS)}")
        elif kind == 6:
            parts.append(
                draw(st.sampled_from(['--8<-- "x.md"', "::: mod.Name", "{!x.md!}", "-->", "Title\n====="]))
            )
        else:
            parts.append(indent + draw(_WORDS))
    text = "\n\n".join(parts)
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


_SITE_FILES = SiteFiles(SITE)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_markdown(), st.sampled_from(["page.md", "guide/tutorial.md", "x.mdx"]))
def test_fuzz_checks_never_raise(text: str, path: str) -> None:
    doc = checked_document(RawDocument(path=path, url="", content=text), root=SITE, files=_SITE_FILES)
    for c in CHECKS:
        list(c.func(doc))  # a check that raises fails the test (run_checks would only log it)
    result = run_checks(doc)
    n_lines = text.replace("\r\n", "\n").count("\n") + 1
    for issue in result.issues:
        assert issue.severity in SEVERITIES
        assert issue.dimensions and set(issue.dimensions) <= set(DIMENSIONS)
        assert 0 <= issue.line <= n_lines, (issue.to_dict(), n_lines)
        assert issue.message and isinstance(issue.section, str)
        assert issue.effort in ("low", "medium", "high")
    assert result.metrics.executable_examples <= result.metrics.total_code_blocks


# -- slices of real documentation ----------------------------------------------------------


def _check_corpus(name: str) -> dict[str, list[Issue]]:
    root = SLICES / name
    files = SiteFiles(root)
    return {
        raw.path: run_checks(checked_document(raw, root=root, files=files)).issues
        for raw in scan_folder(root).documents
    }


def test_slices_of_real_documentation(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="docmentor.clarity"):
        start = time.perf_counter()
        lancedb = _check_corpus("lancedb")
        elapsed = time.perf_counter() - start
        httpx = _check_corpus("httpx")
    assert not caplog.records, caplog.text  # no check crashed
    assert elapsed < 5
    assert (len(lancedb), len(httpx)) == (6, 15)
    every = [i for corpus in (lancedb, httpx) for issues in corpus.values() for i in issues]
    # snippet includes, mkdocstrings/mkautodoc directives are never reported
    assert not [i for i in every if "--8<--" in i.context_quote or i.context_quote.lstrip().startswith(":::")]
    # no syntax errors or undefined names: only links to pages the slice leaves out, an image alt
    # (and the quick start's pandas and pyarrow imports, which no install line on the page names)
    assert {i.type for i in lancedb["docs/src/basic.md"]} <= {
        "broken_link",
        "missing_alt_text",
        "missing_prerequisites",
    }
    # hidden "<!-- Setup Code -->" blocks define db/tbl for the visible examples
    assert not [
        i for i in lancedb["docs/src/search.md"] if i.type == "undefined_name" and "`db`" in i.message
    ]
    # mkautodoc pages: no link or anchor problems, no empty sections from "::: httpx.Client"
    assert not [i for i in httpx["docs/api.md"] if i.type in ("broken_link", "empty_section")]
    # `...` placeholders (`def __init__(self, a, ..., b=1)`) and shell lines in Python fences
    assert not [i for i in lancedb["docs/src/reranking/custom_reranker.md"] if i.type == "syntax_error"]
    # typedoc: a property and its type (writeMode / WriteMode) are not a spelling drift
    assert not [
        i
        for i in lancedb["docs/src/javascript/interfaces/WriteOptions.md"]
        if i.type == "inconsistent_terminology"
    ]
    # real problems are still found: a missing comma in httpx, a TOML block with // comments in lancedb
    assert any(i.type == "syntax_error" for i in httpx["docs/advanced/transports.md"])
    assert any(i.type == "syntax_error" for i in lancedb["docs/src/embeddings/embedding_functions.md"])


def test_a_doctest_session_holding_a_template_string_is_python() -> None:
    from docmentor.clarity.checks.python import prepare

    session = ">>> t = env.from_string('{{ x + y }}')\n>>> t.render(x=1, y=2)\n'3'\n"
    source, _, is_session, skipped = prepare(session, "python")
    assert (is_session, skipped) == (True, "") and "env.from_string" in source
    # a template is still no Python, however long its unclosed runs (one scan each)
    assert prepare("Hello {{ name }}!", "python")[3] == "template"
    assert prepare("{% for x in xs %}{{ x }}{% endfor %}", "")[3] == "template"
    assert prepare("{{" * 50_000, "python")[3] != "template"


def test_names_the_sphinx_doctest_set_up_binds_are_defined(tmp_path: Path) -> None:
    """sphinx.ext.doctest runs ``conf.py``'s ``doctest_global_setup`` (cattrs' one line of
    ``;``-joined imports, a star import among them) and the page's ``testsetup`` before the
    page's doctests: the names they bind are no undefined names."""
    page = "Title\n=====\n\n.. testsetup::\n\n    base = 40\n\n>>> cattrs.structure(base, int)\n40\n>>> helper(1)\n"

    def undefined() -> set[str]:
        issues = check_document(page, path="p.rst", root=tmp_path).issues
        return {n for i in issues if i.type == "undefined_name" for n in re.findall(r"`(\w+)`", i.message)}

    assert undefined() == {"cattrs", "helper"}  # base: the page's testsetup binds it
    (tmp_path / "conf.py").write_text(
        'doctest_global_setup = ("import attr, cattrs;" "from typing import *")\n'
    )
    assert undefined() == set()
    (tmp_path / "conf.py").write_text('doctest_global_setup = "import cattrs"\n')
    assert undefined() == {"helper"}


def test_a_page_of_mkdocstrings_headings_is_not_empty() -> None:
    """griffe's reference pages are ``# ::: griffe.Alias`` (mkdocstrings' heading form): the
    API's docs are rendered there, so the page is not empty, nor its sections."""
    assert found("# ::: griffe.Alias\n\n## ::: griffe.Alias.target\n", path="alias.md") == []
    from docmentor.library.knowledge.mentions import directive_names
    from docmentor.sources.autodoc import _DOCUMENTS

    assert [m["name"] for m in _DOCUMENTS.finditer("# ::: griffe.Alias\n::: griffe.load\n")] == [
        "griffe.Alias",
        "griffe.load",
    ]
    assert directive_names("## ::: griffe.Class\n") == ["griffe.Class"]


def test_python_syntax_newer_than_this_interpreters_is_not_an_error() -> None:
    """griffe's docs use PEP 695 (Python 3.12): ``type X = dict[str, int]`` and ``class
    Box[T]:`` parse on the reader's Python; here (3.11) they are not judged. A real error
    still is."""
    page = "# T\n\nText.\n\n```python\ntype Pairs = dict[str, int]\n\nclass Box[T]:\n    item: T\n```\n"
    assert found(page, "syntax_error") == []
    assert len(found("# T\n\nText.\n\n```python\ndef f(:\n    pass\n```\n", "syntax_error")) == 1


def test_a_labelled_empty_section_is_still_empty() -> None:
    """A section starts at its label (``(lbl)=``, ``.. _lbl:``); the label is no body of it
    (review: such empty sections were no longer reported)."""
    md = found("# T\n\nText.\n\n(lbl)=\n## Empty\n\n## Full\n\nMore.\n", "empty_section")
    rst = found(
        "T\n=\n\nText.\n\n.. _lbl:\n\nEmpty\n-----\n\nFull\n----\n\nMore.\n", "empty_section", path="p.rst"
    )
    assert len(md) == 1 and len(rst) == 1


def test_a_comment_above_a_session_or_a_shell_session_does_not_make_it_code() -> None:
    source, offsets, session, skipped = prepare("# Numbers\n\n>>> a = 1\n>>> a\n1\n", "python")
    assert session and not skipped and source == "a = 1\na\n" and offsets == [2, 3]
    assert prepare("# install it\n$ pip install x\n", "python")[3] == "shell session"
    page = "# T\n\nText.\n\n```python\n# Decimals\n>>> round(1.25, 1)\n1.2\n```\n"
    assert found(page, "syntax_error") == []


@pytest.mark.parametrize(
    "line",
    [
        "``a`" * 12_000,  # reST literals that never close
        ".. |" + "x" * 48_000,  # a substitution that never closes before image::
        "a." * 24_000 + "-",  # a dotted name that fails at its end
    ],
)
def test_new_link_and_image_patterns_run_in_linear_time(line: str, tmp_path: Path) -> None:
    from docmentor.clarity.checks._page import strip_rst_literals
    from docmentor.clarity.checks.links import _DOTTED, _RST_IMAGE

    start = time.perf_counter()
    strip_rst_literals(line)
    _RST_IMAGE.match(line)
    _DOTTED.fullmatch(line)
    (tmp_path / "p.rst").write_text(f"T\n=\n\n{line}\n", encoding="utf-8")
    check_document(tmp_path / "p.rst", path="p.rst", root=tmp_path)
    assert time.perf_counter() - start < 2.0


def test_a_block_that_does_not_parse_says_its_names_are_not_checked_yet() -> None:
    """A tour fixed a roadmap's one syntax error expecting 8.8 and got 7.3: the fixed block's
    names (never checked while it did not parse) were undefined. The finding says so."""
    (issue,) = found(
        "# T\n\nRun:\n\n```python\nconfigure(processors=[Adapter(Renderer()])\n```\n", "syntax_error"
    )
    assert issue.message.endswith("; its names are checked once it parses")
