"""The deterministic documents of TypeScript/JavaScript, Go and Rust repositories: written by
`docmentor repo-docs generate --no-llm`, scored by `repo-docs evaluate` (every metric 1.000 on
each fixture), byte-identical on a second run; code fences, Returns and the code facts by
language; a missing grammar reported, not fatal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clitool import Cli
from docmentor.library.surface.treesitter.core import GrammarsUnavailable
from docmentor.repodocs import treesitter_units
from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.generate import build_documents
from docmentor.repodocs.python_units import read_repository

FIXTURES = Path(__file__).parent / "fixtures" / "repodocs_langs"
NAMES = ["ts_repo", "go_repo", "rust_repo"]


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    for name in ("DOCMENTOR_LLM_BASE_URL", "DOCMENTOR_LLM_MODEL", "DOCMENTOR_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return Cli(tmp_path / "db", capsys)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", NAMES)
def test_generate_and_evaluate_score_every_metric_one(cli: Cli, tmp_path: Path, name: str) -> None:
    repo = tmp_path / name
    shutil.copytree(FIXTURES / name, repo)
    first: dict[str, bytes] = {}
    for run in range(2):  # each fixture's broken file is named on stderr, nothing else
        rc, _, err = cli("repo-docs", "generate", str(repo), "--no-llm", "--no-register")
        assert rc == 0 and all(line.startswith("warning: ") for line in err.splitlines()), err
        if run == 0:
            first = _tree(repo / ".docmentor-docs")
    assert _tree(repo / ".docmentor-docs") == first  # byte-identical
    data = cli.json("repo-docs", "evaluate", str(repo))
    values = {m: data["metrics"][m]["value"] for m in data["metrics"]}
    assert values and set(values.values()) == {1.0}, data["metrics"]
    assert {"sections", "coverage", "signatures", "symbols", "links"} <= set(values)
    # a dropped parameter lowers coverage: the metric can fail on these languages too
    page = repo / ".docmentor-docs" / "documentation.json"
    text = page.read_text(encoding="utf-8")
    for parameter in ("`radius` (`number`)", "`name` (`string`)", "`radius` (`f64`)"):
        text = text.replace(f"- {parameter}", "- nothing", 1)
    page.write_text(text, encoding="utf-8")
    lowered = cli.json("repo-docs", "evaluate", str(repo))["metrics"]
    assert lowered["coverage"]["value"] < 1.0


def test_documents_use_each_language_fence_and_returns_only_for_a_value() -> None:
    ts = build_documents(FIXTURES / "ts_repo").documents
    assert (
        "```typescript\nexport function round(value: number, digits = 2): number\n```"
        in ts["src.geo.util.round"].text()
    )
    assert "```javascript\nfunction total(list)\n```" in ts["src.legacy.total"].text()
    assert "Returns" not in ts["src.geo.util.unused"].section_names()  # (): void
    assert "Returns" in ts["src.legacy.total"].section_names()  # return round(sum), no annotation
    assert "Returns" in ts["src.geo.util.clamp"].section_names()
    assert "Yields" in ts["src.geo.shapes.areas"].section_names()
    args = ts["src.geo.shapes.Circle.area"].section_names()
    assert "Args" not in args  # `this` is the receiver, not an argument
    go = build_documents(FIXTURES / "go_repo").documents
    add = go["store.store.Store.Add"]
    assert "```go\nfunc (s *Store) Add(name string, price float64)\n```" in add.text()
    assert "Returns" not in add.section_names() and "- `name` (`string`)" in add.text()
    assert "`(float64, error)`" in go["store.store.Store.Price"].text()
    rust = build_documents(FIXTURES / "rust_repo").documents
    grow = rust["src.shapes.circle.Circle.grow"]
    assert "```rust\nfn grow(&mut self, by: f64)\n```" in grow.text()
    assert "Returns" not in grow.section_names()
    assert "Constructor" not in rust["src.shapes.circle.Circle"].section_names()
    assert "(static method)" in rust["src.shapes.circle.Circle"].text()  # Circle::new


def test_code_facts_by_language() -> None:
    for name, returns, not_returns, names in (
        (
            "ts_repo",
            {"src.geo.util.clamp", "src.legacy.total"},
            {"src.geo.util.unused"},
            {"src.legacy": {"round"}},
        ),
        ("go_repo", {"store.store.NewStore"}, {"store.store.Store.Add"}, {"store.store": {"ErrMissing"}}),
        ("rust_repo", {"src.util.round"}, {"src.util.check"}, {}),
    ):
        units = read_repository(FIXTURES / name)
        facts = read_facts(FIXTURES / name, units)
        assert returns <= facts.returns_value and not (not_returns & facts.returns_value)
        for module, expected in names.items():
            assert expected <= facts.module_names[module]
    ts = read_facts(FIXTURES / "ts_repo", read_repository(FIXTURES / "ts_repo"))
    assert ts.yields == {"src.geo.shapes.areas"}
    assert {"sum", "list"} <= ts.local_names["src.legacy.total"]


def test_a_missing_grammar_is_a_problem_and_python_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "go_repo", repo)
    (repo / "tool.py").write_text("def run():\n    return 1\n", encoding="utf-8")

    def unavailable(grammar: str) -> None:
        raise GrammarsUnavailable(f"no {grammar}", hint="install the languages extra")

    monkeypatch.setattr(treesitter_units, "grammar_parser", unavailable)
    units = read_repository(repo)
    assert [c.id for c in units.components] == ["tool.run"]
    assert all(p.error.startswith("not read: no go") for p in units.problems)
    assert len(units.problems) == 5
