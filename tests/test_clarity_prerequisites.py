"""The prerequisite-coverage check (issue 19, section 5): a tutorial's examples import a
third-party package that neither the page nor a linked install page tells the reader to
install. Through `clarity score` (score, dimension, roadmap) and `check_document`."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from clitool import Cli
from docmentor.clarity.checks import check_document
from docmentor.clarity.checks.prerequisites import Told, covers

FETCH = """\
    # Quickstart

    {install}

    Fetch a page and print it nicely:

    ```python
    import json
    import httpx
    from rich import print

    print(json.dumps(httpx.get("https://example.org").json()))
    ```
    """


def page(install: str) -> str:
    return textwrap.dedent(FETCH).replace("{install}", textwrap.dedent(install).strip("\n"))


def gaps(text: str, *, path: str = "docs/quickstart.md", root: Path | None = None) -> list[str]:
    """The message of each missing_prerequisites issue of the page."""
    if root is not None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
        issues = check_document(root / path, path=path, root=root).issues
    else:
        issues = check_document(text, path=path).issues
    return [i.message for i in issues if i.type == "missing_prerequisites"]


def test_an_untold_package_costs_points_and_is_on_the_roadmap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    # the page mentions installing, and installs httpx, but never rich
    text = page("Install it with your package manager:\n\n```bash\npip install httpx\n```")
    (docs / "quickstart.md").write_text(text, encoding="utf-8")
    cli = Cli(tmp_path / "index", capsys)
    data: dict[str, Any] = cli.json("clarity", "score", str(docs))["documents"][0]
    (issue,) = [i for i in data["issues"] if i["type"] == "missing_prerequisites"]
    assert issue["message"] == (
        "The examples import `rich`, which neither this page nor a linked install page tells the reader to install"
    )
    assert (issue["severity"], issue["dimensions"], issue["line"]) == (
        "warning",
        ["prerequisite_coverage"],
        14,
    )
    assert issue["context_quote"] == "from rich import print" and "pip install rich" in issue["suggested_fix"]
    assert issue["check"] == "prerequisites"
    cs = data["clarity_score"]
    assert (cs["overall_score"], cs["prerequisite_coverage"]) == (9.5, 9.5)
    assert any("missing prerequisites" in w for w in data["improvement_roadmap"]["quick_wins"])
    # told: the issue, the half point and the roadmap entry go
    (docs / "quickstart.md").write_text(
        text.replace("pip install httpx", "pip install httpx rich"), encoding="utf-8"
    )
    data = cli.json("clarity", "score", str(docs))["documents"][0]
    assert [i for i in data["issues"] if i["type"] == "missing_prerequisites"] == []
    assert (data["clarity_score"]["overall_score"], data["clarity_score"]["prerequisite_coverage"]) == (
        10.0,
        10.0,
    )


@pytest.mark.parametrize(
    "install",
    [
        "```bash\npip install httpx rich\n```",
        "```console\n$ python -m pip install -U 'httpx[http2]>=0.27' \"rich>=13\"\n```",
        "```bash\npip install httpx \\\n    rich\n```",
        "Run `uv add httpx rich` first.",
        "```bash\nuv pip install httpx rich\n```",
        "```bash\npoetry add httpx rich@^13\n```",
        "```bash\nconda install -c conda-forge httpx rich\n```",
        "```bash\npip install -r requirements.txt\n```",
        "```text\nhttpx>=0.27\nrich==13.7.1\n```",
        '```toml\n[project]\ndependencies = ["httpx>=0.27", "rich"]\n```',
        "```bash\npip install httpx git+https://github.com/Textualize/rich.git@main\n```",
        "```bash\npipx install httpx && pip install RICH\n```",
    ],
)
def test_every_way_of_telling_counts(install: str) -> None:
    assert gaps(page(install)) == []


@pytest.mark.parametrize(
    ("install", "untold"),
    [
        ("Install the dependencies first.", "`httpx`, `rich`"),  # words alone tell nothing
        ("```bash\npip install httpx\n```", "`rich`"),
        ("```bash\npip install httpx richer\n```", "`rich`"),
        ("```bash\npip install httpx  # and rich, later\n```", "`rich`"),  # a shell comment
        ("```text\nhttpx>=0.27\n```\n\nrich is nice.", "`rich`"),
        ("```bash\npip install --index-url rich httpx\n```", "`rich`"),  # an option's value
    ],
)
def test_what_does_not_tell(install: str, untold: str) -> None:
    (message,) = gaps(page(install))
    assert message.startswith(f"The examples import {untold}, which")


def test_no_gap_for_the_standard_library_other_pages_or_local_modules() -> None:
    stdlib = "# Tutorial\n\nText.\n\n```python\nimport json, os, sys, tomllib, asyncio\n```\n"
    assert gaps(stdlib, path="tutorial.md") == []
    usage = page("Nothing.").replace("# Quickstart", "# Usage")
    assert gaps(usage, path="docs/usage.md") == []  # not a tutorial (path and title)
    assert gaps(page("Nothing.").replace("# Quickstart", "# Getting started"), path="a.md")
    local = "# Tutorial\n\nCreate `main.py`:\n\n```python\nX = 1\n```\n\nThen:\n\n```python\nfrom main import X\n```\n"
    assert gaps(local, path="tutorial.md") == []


@pytest.mark.parametrize(
    ("distribution", "module"),
    [
        ("PyYAML", "yaml"),
        ("python-dateutil", "dateutil"),
        ("Pillow", "PIL"),
        ("beautifulsoup4", "bs4"),
        ("scikit-learn", "sklearn"),
        ("opencv-python-headless", "cv2"),
        ("google-cloud-storage", "google"),
        ("attrs", "attr"),
        ("typing_extensions", "typing_extensions"),
        ("Typing-Extensions", "typing_extensions"),
        ("zope.interface", "zope"),
        ("PyJWT", "jwt"),
    ],
)
def test_import_names_meet_distribution_names(distribution: str, module: str) -> None:
    assert covers(distribution, module)
    told = Told()
    told.read(f"pip install {distribution}", [])
    assert told.covers(module)


@pytest.mark.parametrize(
    ("distribution", "module"), [("richer", "rich"), ("httpx", "requests"), ("yaml2", "yaml")]
)
def test_other_names_do_not_meet(distribution: str, module: str) -> None:
    assert not covers(distribution, module)


def test_the_documented_librarys_own_package_is_no_gap(tmp_path: Path) -> None:
    text = "# Quickstart\n\nUse it:\n\n```python\nimport widgetlib\nimport rich\n```\n"
    # no project around the docs: both are untold
    assert gaps(text, root=tmp_path / "bare" / "docs") == [
        "The examples import `rich`, `widgetlib`, which neither this page nor a linked install page "
        "tells the reader to install"
    ]
    for name, files in {
        "pyproject": {"pyproject.toml": '[project]\nname = "Widget-Lib"\n'},
        "setup_cfg": {"setup.cfg": "[metadata]\nname = widgetlib\n"},
        "mkdocs": {"mkdocs.yml": "site_name: widgetlib\n"},
        "src_layout": {"src/widgetlib/__init__.py": ""},
    }.items():
        project = tmp_path / name
        for rel, content in files.items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(content, encoding="utf-8")
        assert gaps(text, root=project / "docs") == [
            "The examples import `rich`, which neither this page nor a linked install page tells the reader "
            "to install"
        ], name
    # installed from the project itself
    assert (
        gaps(text.replace("Use it:", "```bash\npip install -e . rich\n```"), root=tmp_path / "bare2" / "docs")
        == []
    )


def test_a_linked_install_page_is_read(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    text = page("First [install the prerequisites](setup/install.md).")
    (root / "setup").mkdir(parents=True)
    install = root / "setup" / "install.md"
    install.write_text("# Install\n\n```bash\npip install httpx rich\n```\n", encoding="utf-8")
    assert gaps(text, root=root, path="quickstart.md") == []
    install.write_text("# Install\n\n```bash\npip install httpx\n```\n", encoding="utf-8")
    (message,) = gaps(text, root=root, path="quickstart.md")
    assert message.startswith("The examples import `rich`,")
    # a link that is not about installing is not followed
    (root / "api.md").write_text("# API\n\n```bash\npip install httpx rich\n```\n", encoding="utf-8")
    assert gaps(page("See [the API](api.md)."), root=root, path="quickstart.md")
    # an install page on another site cannot be read here: trusted
    assert (
        gaps(page("See [Installation](https://example.org/install/)."), root=root, path="quickstart.md") == []
    )


@pytest.mark.parametrize(
    "line",
    [
        " " * 200_000,
        "pip " * 50_000,
        "pip install " + "-" * 200_000,
        '"' + "a" * 200_000,
        "'a" * 100_000,
        "a" * 200_000 + ">",
        "pip install \\\n" * 10_000,
    ],
)
def test_adversarial_lines_are_read_in_linear_time(line: str) -> None:
    start = time.perf_counter()
    told = Told()
    told.read(line, [("text", line), ("toml", "dependencies = " + line)])
    gaps(page(line))
    # ~0.7 s on a quiet two-core machine for the slowest; a quadratic read of these lines takes
    # minutes (1.0 s failed once with both cores busy)
    assert time.perf_counter() - start < 3.0


def test_the_json_issue_is_the_terminal_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    # below the target, so the terminal explains the page and lists its first fixes
    text = page("Nothing to install.") + "\n```python\nundefined_thing()\n```\n"
    (docs / "quickstart.md").write_text(text, encoding="utf-8")
    cli = Cli(tmp_path / "index", capsys)
    data = json.loads(cli.ok("clarity", "score", str(docs), "--json", "--target", "10"))
    assert [i["message"] for i in data["documents"][0]["issues"] if i["check"] == "prerequisites"] == [
        "The examples import `httpx`, `rich`, which neither this page nor a linked install page tells the "
        "reader to install"
    ]
    out = cli.ok("clarity", "score", str(docs), "--target", "10")
    assert "The examples import `httpx`, `rich`, which neither this page" in out
