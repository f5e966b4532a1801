"""What a user's project requires of a library, read from its pyproject.toml, uv.lock and
requirements files (docmentor.sources.project_files; the library-knowledge answers warn with it)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from docmentor.sources.project_files import (
    ProjectRequirement,
    pinned_version,
    requirement,
    requirement_cached,
    same_version,
)


def test_a_requirement_is_found_by_the_distribution_name_too(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("attrs==21.4.0\nPyYAML>=5,<6\n", encoding="utf-8")
    assert requirement(tmp_path, ["attr", "attrs"]) == ("attrs", "==21.4.0")
    assert requirement(tmp_path, ["yaml", "PyYAML"]) == ("PyYAML", "<6,>=5")
    assert requirement(tmp_path, ["attr"]) is None


@pytest.mark.parametrize(
    ("files", "found"),
    [
        # a marker that does not hold here is no requirement of this environment
        (
            {
                "requirements.txt": "minidb==0.1; python_version < '3.0'\nminidb==1.5; python_version >= '3.0'\n"
            },
            ("minidb", "==1.5"),
        ),
        # the project's own dependency before a group that pins the minimum on purpose
        (
            {
                "pyproject.toml": '[project]\nname = "a"\ndependencies = ["minidb>=1"]\n[dependency-groups]\nmin = ["minidb==1.0"]\n'
            },
            ("minidb", ">=1"),
        ),
        ({"requirements.txt": "minidb>=0.2,\\\n    <0.9\n"}, ("minidb", "<0.9,>=0.2")),
        ({"requirements.txt": "minidb==0.7\t# pinned\n"}, ("minidb", "==0.7")),
        ({"requirements.txt": "minidb==0.7 --hash=sha256:abc\n"}, ("minidb", "==0.7")),
        ({"requirements.txt": "minidb===0.7\n"}, ("minidb", "===0.7")),
        # what it includes, relative to it, each file once (a cycle is no loop)
        (
            {"requirements.txt": "-r base.txt\nflask\n", "base.txt": "-r requirements.txt\nminidb==0.4\n"},
            ("minidb", "==0.4"),
        ),
        ({"requirements.txt": "--constraint=pins.txt\nminidb\n", "pins.txt": "minidb<2\n"}, ("minidb", "<2")),
        # valid TOML of the wrong shapes: ignored, not a crash
        (
            {
                "uv.lock": 'package = ["minidb"]\n',
                "pyproject.toml": "[project]\ndependencies = 5\n[dependency-groups]\ndev = 3\n",
            },
            None,
        ),
        ({"uv.lock": '[package]\nname = "minidb"\n'}, None),
    ],
)
def test_requirements_as_pip_and_uv_read_them(tmp_path: Path, files: dict[str, str], found: object) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert requirement(tmp_path, ["minidb"]) == found
    if found == ("minidb", "===0.7"):
        assert pinned_version(tmp_path, "minidb") == "0.7"


def test_the_result_is_typed_and_says_what_it_pins(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("minidb==1.2\nother>=1,<2\n", encoding="utf-8")
    found = requirement(tmp_path, "MiniDB")
    assert isinstance(found, ProjectRequirement)
    assert (found.name, found.specifier, found.pinned) == ("minidb", "==1.2", "1.2")
    assert not found.excludes("1.2.0") and found.excludes("1.3")
    ranged = requirement(tmp_path, "other")
    assert ranged is not None and ranged.pinned is None
    assert ranged.excludes("2.0") and not ranged.excludes("1.5")
    # a specifier packaging cannot read: compared as an exact pin, PEP 440's way
    assert ProjectRequirement("x", "==v1.2-local build").excludes("1.2") is True
    assert same_version("V1.2", "1.2.0") and same_version("01.2", "1.2") and not same_version("1.2", "1.20")


def test_the_answer_is_cached_until_a_file_changes(tmp_path: Path) -> None:
    req = tmp_path / "requirements.txt"
    req.write_text("minidb==1.0\n", encoding="utf-8")
    assert not requirement_cached(tmp_path, ["minidb"])
    assert pinned_version(tmp_path, "minidb") == "1.0"
    assert requirement_cached(tmp_path, ["minidb"])
    req.write_text("minidb==1.10\n", encoding="utf-8")  # another size: seen as changed
    assert not requirement_cached(tmp_path, ["minidb"])
    assert pinned_version(tmp_path, "minidb") == "1.10"


def test_unreadable_files_are_passed_over(tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text("not = [toml", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_bytes(b"\xff\xfe[project]")
    (tmp_path / "requirements.txt").write_text("minidb<3\n", encoding="utf-8")
    assert requirement(tmp_path, ["minidb"]) == ("minidb", "<3")


@pytest.mark.parametrize(
    "text",
    [
        "\\" + " " * 200_000 + "x\n",  # a continuation that never ends
        ("\\ " * 100_000) + "\n",
        "-r" + " " * 200_000 + "\n",  # an include with no file
        " " * 200_000 + "-c\n",
        ("minidb " * 50_000) + "#" + (" -" * 50_000) + "\n",
        "minidb==" + "1" * 100_000 + "\n" + "1.1." * 50_000 + "\n",
    ],
)
def test_adversarial_requirement_lines_take_linear_time(tmp_path: Path, text: str) -> None:
    (tmp_path / "requirements.txt").write_text(text, encoding="utf-8")
    started = time.perf_counter()
    requirement(tmp_path, ["minidb"])
    assert time.perf_counter() - started < 1.0


def test_a_very_long_version_is_compared_without_backtracking_or_failing() -> None:
    started = time.perf_counter()
    assert not same_version("1" * 50_000 + "\n", "1")
    assert same_version("1." + "0" * 50_000, "1")
    assert ProjectRequirement("minidb", "==" + "1" * 50_000 + "\nx").excludes("1.0")  # not 1.0; no int()
    assert time.perf_counter() - started < 1.0
