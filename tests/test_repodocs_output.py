"""Repository documentation without a model (docmentor.repodocs: deterministic, output,
generate): the sections each unit's document has, entity coverage, symbols and links that
resolve, byte-identical runs, atomic writes, and docmentor's own src/ end to end. Run on the
fixtures tests/fixtures/repodocs/sample and docs_sample and on src/."""

from __future__ import annotations

import ast
import builtins
import functools
import json
import keyword
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.deterministic import MAX_DIAGRAM_EDGES
from docmentor.repodocs.generate import DEFAULT_OUT, RepoDocs, build_documents, document_repository
from docmentor.repodocs.markdown import code, first_sentence, plain
from docmentor.repodocs.output import FORMAT, OutputError, render_tree, write_tree
from docmentor.repodocs.units import Component, Module, RepoUnits

FIXTURES = Path(__file__).parent / "fixtures" / "repodocs"
SAMPLE = FIXTURES / "sample"
DOCS_SAMPLE = FIXTURES / "docs_sample"
SRC = Path(__file__).resolve().parents[1] / "src"
REPOS = (SAMPLE, DOCS_SAMPLE)

HEADING = re.compile(r"^(#{1,6}) (.*)$")
LINK = re.compile(r"(?<!\\)\[([^\]\n]*)\]\(([^)\s]+)\)")
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
STRING = re.compile(r"[bBrRuUfF]{0,2}'(?:[^'\\\n]|\\.)*'|[bBrRuUfF]{0,2}\"(?:[^\"\\\n]|\\.)*\"")
NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
PATH_SPAN = re.compile(r"([^\s:`]+\.py):(\d+)-(\d+)")
MERMAID_LABEL = re.compile(r'^  n\d+\["([^"]*)"\]$')


def load(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "documentation.json").read_text(encoding="utf-8"))
    return data


def files_of(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module", params=REPOS, ids=lambda p: p.name)
def generated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("docs") / "out"
    document_repository(request.param, out)
    return request.param, out


@pytest.fixture(scope="module")
def src_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot of docmentor's src/ (other work may edit src/ while the tests read it)."""
    copy = tmp_path_factory.mktemp("src") / "src"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return copy


def roots(request: pytest.FixtureRequest, name: str) -> Path:
    return request.getfixturevalue("src_copy") if name == "src" else FIXTURES / name


@functools.cache
def docs_for(root: Path) -> RepoDocs:
    """One build per repository for the tests that only read it."""
    return build_documents(root)


def units_of(root: Path) -> RepoUnits:
    return docs_for(root).units


# -- what the code determines, computed here from the units and the AST ---------------------


def own_parameters(c: Component) -> list[str]:
    params = list(c.parameters)
    if c.kind == "method" and c.method_kind != "static" and params and params[0].kind != "keyword_only":
        params = params[1:]
    return [p.name for p in params]


def function_node(root: Path, c: Component) -> ast.AST:
    """The function's node in its file (this file's own AST walk)."""
    tree = ast.parse((root / c.path).read_bytes().decode("utf-8", errors="replace"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if (start, node.end_lineno) == (c.line_start, c.line_end):
                return node
    raise AssertionError(f"no function at {c.path}:{c.line_start}")


def returns_value(root: Path, c: Component) -> bool:
    """A ``return <value>`` in the function's own body."""
    node = function_node(root, c)
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    stack: list[ast.AST] = list(node.body)
    while stack:
        inner = stack.pop()
        if isinstance(inner, ast.Return) and inner.value is not None:
            return True
        stack += [
            n
            for n in ast.iter_child_nodes(inner)
            if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda)
        ]
    return False


def expected_sections(root: Path, out: Path) -> dict[str, dict[str, bool]]:
    """For each unit, whether each code-determined section must be present."""
    docs = docs_for(root)
    units, graph = docs.units, docs.graph
    calls_from = {e.source for e in graph.edges if e.kind == "calls"}
    calls_to = {e.target for e in graph.edges if e.kind == "calls"}
    imports = {e.source for e in graph.edges if e.kind == "imports"}
    expected: dict[str, dict[str, bool]] = {}
    for c in units.components:
        always = {"Summary": True, "Signature": True, "Source": True}
        called = {
            "Calls": c.id in calls_from or bool(graph.external.get(c.id)),
            "Called by": c.id in calls_to,
        }
        if c.kind == "class":
            expected[c.id] = always | called
            expected[c.id] |= {
                "Bases": bool(c.bases),
                "Constructor": c.init_signature is not None,
                "Attributes": bool(c.attributes),
                "Methods": bool(c.members),
                "Args": False,
                "Returns": False,
                "Raises": False,
            }
        else:
            annotated = c.returns is not None and c.returns != "None"
            expected[c.id] = always | called
            expected[c.id] |= {
                "Args": bool(own_parameters(c)),
                "Returns": annotated or returns_value(root, c),
                "Raises": bool(c.raises),
                "Constructor": False,
                "Methods": False,
            }
    components = {c.id: c for c in units.components}
    for m in units.modules:
        public = [x for x in m.components if not components[x].name.startswith("_")]
        expected[m.id] = {
            "Role": True,
            "Source": True,
            "Public API": bool(public),
            "Private definitions": len(public) < len(m.components),
            "Dependencies": m.id in imports or bool(graph.external.get(m.id)),
            "Diagram": bool(m.components) or m.id in imports,
            "Args": False,
        }
    module_ids = {m.id for m in units.modules}
    for p in units.packages:
        expected[p.id] = {
            "Summary": True,
            "Modules": any(x in module_ids for x in p.children),
            "Subpackages": any(x not in module_ids for x in p.children),
        }
    expected["."] = {
        "Purpose": True,
        "Architecture": bool(units.modules),
        "Packages": bool(units.packages),
        "Modules": bool(units.modules),
        "Problems": bool(units.problems),
    }
    return expected


def test_every_section_is_present_exactly_when_the_code_determines_it(generated: tuple[Path, Path]) -> None:
    root, out = generated
    data = load(out)
    by_id = {u["id"]: u for u in data["units"]}
    expected = expected_sections(root, out)
    assert set(by_id) == set(expected)
    checked = 0
    for unit_id, sections in expected.items():
        unit = by_id[unit_id]
        headings = [m.group(2) for line in unit["text"].splitlines() if (m := HEADING.match(line))]
        assert headings == unit["sections"], unit_id  # the text's headings are the sections
        for name, present in sections.items():
            assert (name in unit["sections"]) == present, (unit_id, name, unit["sections"])
            checked += 1
    assert checked > 100


def test_the_sections_of_known_units(tmp_path: Path) -> None:
    document_repository(DOCS_SAMPLE, tmp_path / "out")
    by_id = {u["id"]: u for u in load(tmp_path / "out")["units"]}
    assert by_id["kit.count.count_words"]["sections"] == [
        "Summary",
        "Description",
        "Signature",
        "Args",
        "Returns",
        "Raises",
        "Called by",
        "Source",
    ]
    assert "Returns" not in by_id["kit.count.log"]["sections"]  # -> None
    assert "Returns" in by_id["kit.count.guess"]["sections"]  # return <value>, no annotation
    assert "Yields" in by_id["kit.count.words"]["sections"]
    assert "Args" not in by_id["kit.count.Counter.zero"]["sections"]  # a static method without
    assert "Args" not in by_id["kit.count.Counter.doubled"]["sections"]  # self is no argument
    guess = by_id["kit.count.guess"]["text"]
    assert "No docstring: this sentence is built from the signature" in guess
    load_doc = by_id["kit.read.load"]
    assert "- `OSError`" in load_doc["text"]
    assert "`json.loads` (outside the repository)" in load_doc["text"]
    assert "- `error` (a variable holding the exception: re-raised)" in by_id["kit.read.first_error"]["text"]
    assert "- `OSError`\n" in by_id["kit.read.load"]["text"] + "\n"
    assert by_id["kit.count.twice#2"]["anchor"] == "c-twice--2" != by_id["kit.count.twice"]["anchor"]
    assert by_id["kit.count.count_words"]["span"] == [19, 27]
    is_generator = by_id["kit.count.is_generator"]["text"]  # through kit.compat's alias
    assert "- `inspect.isgeneratorfunction` (outside the repository)" in is_generator
    assert "- `exc` (a variable holding the exception: re-raised)" in by_id["kit.read.strict"]["text"]
    assert "- `factor` (`int`, default `scale`)" in by_id["kit.count.Counter.scaled"]["text"]
    assert by_id["."]["sections"] == ["Purpose", "Architecture", "Packages", "Modules"]


def test_outside_text_is_escaped_and_the_readme_gives_the_purpose(tmp_path: Path) -> None:
    document_repository(DOCS_SAMPLE, tmp_path / "out")
    index = (tmp_path / "out" / "index.md").read_text(encoding="utf-8")
    assert (
        "> A toolkit for \\`counting\\` things; see \\[the guide\\](docs/guide.md) and \\<b\\>notes\\</b\\>. "
        "Second line of the first paragraph." in index
    )
    assert "Second paragraph" not in index
    run = (tmp_path / "out" / "modules" / "run.md").read_text(encoding="utf-8")
    assert "\\*the\\* entry point \\<script\\>" in run


def test_a_docstring_that_writes_an_include_is_text_when_the_tree_is_indexed(tmp_path: Path) -> None:
    """The tree is indexed as a docs source: a docstring's ``{!…!}``, ``{% include %}``,
    ``{*…*}`` or ``--8<--`` is text there, not another page pasted in (a tour: index.md was)."""
    from docmentor.sources.local import scan_folder

    repo = tmp_path / "repo"
    repo.mkdir()
    forms = ["{!index.md!}", '{% include "index.md" %}', "{* index.md *}", '--8<-- "index.md"']
    doc = "Mentions " + " and ".join(forms) + " in prose."
    (repo / "m.py").write_text(f'"""{doc}"""\n\n\ndef f() -> None:\n    """{forms[0]} too."""\n', "utf-8")
    document_repository(repo, tmp_path / "out")
    scan = scan_folder(tmp_path / "out")
    assert [w for w in scan.warnings if "include" in w] == []
    module = next(d for d in scan.documents if d.path == "modules/m.md")
    role = module.content.split("## Role", 1)[1].split("##", 1)[0]
    assert "Repository" not in role  # index.md's heading: nothing was pasted in
    assert role.replace("\\", "").strip() == "> " + doc


def test_a_folder_that_is_a_package_is_described_by_its_own_docstring(tmp_path: Path) -> None:
    """``repo-docs generate src/pkg``: without a README paragraph, pkg/__init__'s docstring is
    the purpose, not that of its one sub-package (a tour: clarity/ read as clarity/checks/)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "__init__.py").write_text('"""Score documentation."""\n', encoding="utf-8")
    (tmp_path / "sub" / "__init__.py").write_text('"""Checks, one registry."""\n', encoding="utf-8")
    (tmp_path / "README.md").write_text("# pkg\n", encoding="utf-8")
    document_repository(tmp_path, tmp_path / "out")
    index = (tmp_path / "out" / "index.md").read_text(encoding="utf-8")
    assert "## Purpose\n\n> Score documentation." in index


def test_a_readme_in_any_case_gives_the_purpose(tmp_path: Path) -> None:
    """immer's ``readme.md``: the README is found whatever the case of its name."""
    from docmentor.repodocs.deterministic import readme_paragraph

    (tmp_path / "readme.md").write_text("# immer\n\nCreate the next immutable state.\n", encoding="utf-8")
    assert readme_paragraph(tmp_path) == "Create the next immutable state."
    assert readme_paragraph(tmp_path / "missing") == ""


def test_the_markdown_helpers() -> None:
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("dict[str,\n   int]") == "`dict[str, int]`"
    assert plain("# not a heading [x](y) <b>") == "\\# not a heading \\[x\\](y) \\<b\\>"
    assert plain("1. not a list") == "1\\. not a list"
    assert first_sentence("Count words. Then stop.\n\nMore.") == "Count words."
    assert first_sentence("No end\nhere") == "No end here"
    assert first_sentence(None) == ""
    # an abbreviation's full stop ends no sentence (humanize's naturalsize)
    assert first_sentence("Format a size (e.g. 10 kB). Then more.") == "Format a size (e.g. 10 kB)."
    assert first_sentence("Use a list, i.e. a sequence, etc. for it. Done.") == (
        "Use a list, i.e. a sequence, etc. for it."
    )


# -- entity coverage -------------------------------------------------------------------------


def entities(units: RepoUnits) -> Iterator[tuple[str, str]]:
    """(unit id, entity) for every entity the code gives each unit: a function's parameters
    and raised exceptions, a class's constructor parameters, attributes and public methods, a
    module's public definitions, the repository's modules and packages."""
    components = {c.id: c for c in units.components}
    for c in units.components:
        if c.kind == "class":
            for p in c.parameters:
                yield c.id, "`" + {"var_positional": "*", "var_keyword": "**"}.get(p.kind, "") + p.name + "`"
            yield from ((c.id, f"`{a}`") for a in c.attributes)
            for member in c.members:
                if not components[member].name.startswith("_") or components[member].name == "__init__":
                    yield c.id, f"`{member}`"
        else:
            for p in c.parameters:
                if p.name in own_parameters(c):
                    prefix = {"var_positional": "*", "var_keyword": "**"}.get(p.kind, "")
                    yield c.id, f"`{prefix}{p.name}`"
            yield from ((c.id, f"`{r}`") for r in c.raises)
    for module in units.modules:
        for x in module.components:
            if not components[x].name.startswith("_"):
                yield module.id, f"`{x}`"
    yield from ((".", f"`{m.id}`") for m in units.modules)
    yield from ((".", f"`{p.id}`") for p in units.packages)


@pytest.mark.parametrize("name", ["sample", "docs_sample", "src"])
def test_entity_coverage_is_complete(name: str, request: pytest.FixtureRequest) -> None:
    root = roots(request, name)
    docs = docs_for(root)
    found = list(entities(docs.units))
    missing = [(u, e) for u, e in found if e not in docs.documents[u].text()]
    assert len(found) > 20
    assert missing == []


# -- symbols in code spans -------------------------------------------------------------------


def code_spans(text: str) -> Iterator[str]:
    """The inline code spans of Markdown ``text`` (fenced blocks skipped, escaped backticks
    are no span)."""
    in_fence = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if in_fence:
            if stripped.startswith(in_fence) and not stripped.strip("`"):
                in_fence = ""
            continue
        if stripped.startswith("```"):
            in_fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            continue
        i = 0
        while i < len(line):
            if line[i] == "\\":
                i += 2
                continue
            if line[i] != "`":
                i += 1
                continue
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            fence = line[i:j]
            end = line.find(fence, j)
            while end != -1 and end + len(fence) < len(line) and line[end + len(fence)] == "`":
                end = line.find(fence, end + len(fence) + 1)
            if end == -1:
                i = j
                continue
            yield line[j:end].strip()
            i = end + len(fence)


class Symbols:
    """What a name in a unit's document may resolve to: a unit (by id, or by its name or
    qualname in the unit's module), a builtin or keyword, a parameter or attribute of the
    unit, an import of its module (the name it binds, or the imported name), or a name its
    module assigns at top level."""

    def __init__(self, root: Path, units: RepoUnits, external: dict[str, tuple[str, ...]]) -> None:
        self.root = root
        self.external = external
        self.ids = set(units.units())
        self.components = {c.id: c for c in units.components}
        self.modules: dict[str, Module] = {m.id: m for m in units.modules}
        self.module_names = read_facts(root, units).module_names
        self.local: dict[str, set[str]] = {}
        for m in units.modules:
            names = {imp.bound for imp in m.imports} | {imp.target for imp in m.imports}
            names |= {f"{imp.target}.{imp.name}" for imp in m.imports if imp.name}
            names |= set(self.module_names.get(m.id, ()))
            self.local[m.id] = names
        for c in units.components:
            self.local[c.module] |= {c.name, c.qualname}
        self.global_names = set(dir(builtins)) | set(keyword.kwlist) | {"self", "cls"}

    def bound_in(self, c: Component) -> set[str]:
        """The names a function binds in its own code (a re-raised ``raise error`` names one)."""
        if c.kind == "class":
            return set()
        tree = function_node(self.root, c)
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
        return names

    def unresolved(self, unit_id: str, span: str) -> list[str]:
        if span in self.ids or (span.endswith(".py") and (self.root / span).is_file()):
            return []  # a unit id (``tests/``), a file's path (a problem's)
        path = PATH_SPAN.fullmatch(span)
        if path:
            lines = (self.root / path.group(1)).read_bytes().count(b"\n") + 1
            return [] if int(path.group(2)) <= int(path.group(3)) <= lines else [span]
        unit = self.components.get(unit_id) or self.modules.get(unit_id)
        module = unit.module if isinstance(unit, Component) else unit_id
        allowed = self.local.get(module, set()) | self.global_names
        if isinstance(unit, Component):
            allowed |= {p.name for p in unit.parameters} | set(unit.attributes)
            allowed |= set(self.external.get(unit_id, ()))  # resolved through imports and aliases
            owner = self.components.get(unit.parent)
            if owner is not None:  # a class-level name a method's default names
                allowed |= set(owner.attributes)
        bad: list[str] = []
        text = STRING.sub("", span)
        for match in NAME.finditer(text):
            name = match.group(0)
            if text[match.end() :].lstrip().startswith("=") and not text[match.end() :].lstrip().startswith(
                "=="
            ):
                continue  # a keyword argument's name
            parts = name.split(".")
            if name in self.ids or any(".".join(parts[:k]) in allowed for k in range(1, len(parts) + 1)):
                continue
            if isinstance(unit, Component) and parts[0] in self.bound_in(unit):
                continue
            bad.append(name)
        return bad


@pytest.mark.parametrize("name", ["sample", "docs_sample", "src"])
def test_every_symbol_in_a_code_span_resolves(name: str, request: pytest.FixtureRequest) -> None:
    root = roots(request, name)
    docs = docs_for(root)
    symbols = Symbols(root.resolve(), docs.units, docs.graph.external)
    spans = 0
    bad: list[tuple[str, str, list[str]]] = []
    for unit_id, doc in docs.documents.items():
        for span in code_spans(doc.text()):
            spans += 1
            unresolved = symbols.unresolved(unit_id, span)
            if unresolved:
                bad.append((unit_id, span, unresolved))
    assert spans > 50
    assert bad == []


def test_an_invented_symbol_is_caught() -> None:
    docs = build_documents(DOCS_SAMPLE)
    symbols = Symbols(DOCS_SAMPLE.resolve(), docs.units, docs.graph.external)
    assert symbols.unresolved("kit.count.count_words", "misc.helper(text)") == ["misc.helper"]
    assert symbols.unresolved("kit.count.count_words", "kit/count.py:17-999") == ["kit/count.py:17-999"]
    assert symbols.unresolved("kit.count.count_words", "limit") == []
    assert symbols.unresolved("kit.read.load", "json.loads") == []


def test_mermaid_labels_are_unit_ids(generated: tuple[Path, Path]) -> None:
    _, out = generated
    ids = {u["id"] for u in load(out)["units"]}
    labels = []
    for path in out.rglob("*.md"):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = MERMAID_LABEL.match(line)
            if m:
                labels.append(m.group(1).replace("#35;", "#").replace("#quot;", '"'))
    assert labels
    assert set(labels) <= ids


# -- links -----------------------------------------------------------------------------------


def broken_links(out: Path) -> list[tuple[str, str]]:
    anchors = {p: set(ANCHOR.findall(p.read_text(encoding="utf-8"))) for p in out.rglob("*.md")}
    broken: list[tuple[str, str]] = []
    count = 0
    for page in anchors:
        text = page.read_text(encoding="utf-8")
        for _, target in LINK.findall(text):
            count += 1
            file, _, anchor = target.partition("#")
            resolved = (page.parent / file).resolve()
            if resolved not in anchors or (anchor and anchor not in anchors[resolved]):
                broken.append((page.relative_to(out).as_posix(), target))
    assert count > 10
    return broken


def test_every_relative_link_resolves(generated: tuple[Path, Path]) -> None:
    _, out = generated
    assert broken_links(out) == []
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "](modules/" in index
    assert all(
        not t.startswith(("/", "http")) for p in out.rglob("*.md") for _, t in LINK.findall(p.read_text())
    )


def test_a_broken_link_or_anchor_is_caught(tmp_path: Path) -> None:
    out = tmp_path / "out"
    document_repository(DOCS_SAMPLE, out)
    assert broken_links(out) == []
    page = out / "modules" / "kit.count.md"
    text = page.read_text(encoding="utf-8")
    assert "](../modules/kit.count.md#c-count_words)" in text and "](../index.md)" in text
    text = text.replace("#c-count_words)", "#c-no_such_anchor)", 1).replace(
        "](../index.md)", "](../gone.md)", 1
    )
    page.write_text(text, encoding="utf-8")
    assert sorted(broken_links(out)) == [
        ("modules/kit.count.md", "../gone.md"),
        ("modules/kit.count.md", "../modules/kit.count.md#c-no_such_anchor"),
    ]


def test_a_large_diagram_draws_its_first_edges_and_counts_the_rest(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    n = MAX_DIAGRAM_EDGES + 5
    lines = ["def f0() -> int:\n    return 0\n"]
    lines += [f"def f{i}() -> int:\n    return f{i - 1}()\n" for i in range(1, n + 1)]
    (repo / "chain.py").write_text("\n\n".join(lines), encoding="utf-8")
    docs = build_documents(repo)
    diagram = dict((s.name, s.body) for s in docs.documents["chain"].sections)["Diagram"]
    assert diagram.count("-->|calls|") == MAX_DIAGRAM_EDGES
    assert diagram.endswith("5 more edges are not drawn.")
    assert build_documents(repo).documents == docs.documents


def test_every_component_is_a_heading_with_its_anchor_on_its_module_page(
    generated: tuple[Path, Path],
) -> None:
    _, out = generated
    for unit in load(out)["units"]:
        if unit["kind"] in ("function", "method", "class"):
            page = (out / unit["page"]).read_text(encoding="utf-8")
            assert f'<a id="{unit["anchor"]}"></a>\n\n' in page
            assert unit["title"] in page


# -- the files -------------------------------------------------------------------------------


def test_documentation_json_holds_every_unit(generated: tuple[Path, Path]) -> None:
    root, out = generated
    data = load(out)
    units = units_of(root)
    assert data["format"] == FORMAT
    assert [u["id"] for u in data["units"]] == sorted(units.units())
    assert sorted(data["order"]) == sorted(units.units())
    for entry in data["units"]:
        unit = units.units()[entry["id"]]
        assert entry["hash"] == unit.content_hash
        assert entry["path"] == unit.path
        assert entry["text"].startswith("## ")
        if isinstance(unit, Component):
            assert entry["span"] == [unit.line_start, unit.line_end]
            assert entry["children"] == sorted(unit.members)
    assert data["problems"] == [
        {"path": p.path, "error": p.error, "skipped": p.skipped}
        for p in sorted(units.problems, key=lambda p: p.path)
    ]


def test_two_runs_write_byte_identical_files(tmp_path: Path) -> None:
    for root in REPOS:
        first = document_repository(root, tmp_path / root.name / "a")
        second = document_repository(root, tmp_path / root.name / "b")
        assert files_of(Path(first.out)) == files_of(Path(second.out))
        again = document_repository(root, tmp_path / root.name / "a")  # over its own output
        assert files_of(Path(again.out)) == files_of(Path(second.out))
        assert first.files == len(files_of(Path(first.out)))


def test_the_default_output_folder_is_hidden_in_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text('"""A package."""\n')
    (repo / "pkg" / "a.py").write_text("def f(x: int) -> int:\n    return x\n")
    result = document_repository(repo)
    assert Path(result.out) == repo / DEFAULT_OUT
    assert (repo / DEFAULT_OUT / "modules" / "pkg.a.md").is_file()
    again = document_repository(repo)  # the output folder is not read as code
    assert again.documents == result.documents
    assert result.to_dict()["documents"] == {"function": 1, "module": 2, "package": 1, "repository": 1}


def test_a_failed_final_rename_leaves_the_previous_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    document_repository(SAMPLE, out)
    before = files_of(out)
    real_rename = os.rename

    def failing(src: Any, dst: Any) -> None:
        if Path(src).name.startswith(".out.new-"):
            raise OSError("simulated crash at the final rename")
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(OSError, match="simulated crash"):
        document_repository(DOCS_SAMPLE, out)
    monkeypatch.undo()
    assert files_of(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary folder left


def test_a_failure_while_writing_the_files_leaves_the_previous_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    document_repository(SAMPLE, out)
    before = files_of(out)
    real_write = Path.write_bytes
    written: list[Path] = []

    def failing(self: Path, data: bytes) -> int:
        written.append(self)
        if len(written) == 3:
            raise OSError("simulated full disk")
        return real_write(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    with pytest.raises(OSError, match="full disk"):
        document_repository(DOCS_SAMPLE, out)
    monkeypatch.undo()
    assert all(out not in p.parents for p in written)  # nothing was written into the output
    assert files_of(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_run_that_died_between_the_renames_is_recovered(tmp_path: Path) -> None:
    out = tmp_path / "out"
    document_repository(SAMPLE, out)
    before = files_of(out)
    os.rename(out, tmp_path / ".out.previous")  # the state after the first rename
    docs = build_documents(SAMPLE)
    files = render_tree(docs.units, docs.documents, docs.order.order)

    def failing(src: Any, dst: Any) -> None:
        raise OSError("simulated crash")

    with pytest.MonkeyPatch.context() as mp:
        real_rename = os.rename
        mp.setattr(
            os, "rename", lambda s, d: real_rename(s, d) if Path(s).name == ".out.previous" else failing(s, d)
        )
        with pytest.raises(OSError):
            write_tree(out, files)
    assert files_of(out) == before  # put back before the new write began
    write_tree(out, files)
    assert files_of(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_folder_that_is_not_ours_is_never_replaced(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(OutputError, match="not replaced"):
        document_repository(SAMPLE, out)
    assert (out / "notes.txt").read_text() == "keep me"
    empty = tmp_path / "empty"
    empty.mkdir()
    document_repository(SAMPLE, empty)
    assert (empty / "index.md").is_file()


def test_a_root_that_is_no_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        document_repository(tmp_path / "missing", tmp_path / "out")


# -- docmentor's own src/ --------------------------------------------------------------------


def test_docmentor_src_is_documented_end_to_end(tmp_path: Path, src_copy: Path) -> None:
    started = time.perf_counter()
    result = document_repository(src_copy, tmp_path / "out")
    elapsed = time.perf_counter() - started
    assert elapsed < 30
    assert result.problems == ()
    out = tmp_path / "out"
    data = load(out)
    assert len(data["units"]) == sum(result.documents.values()) > 1000
    assert result.documents["module"] > 100
    assert broken_links(out) == []
    by_id = {u["id"]: u for u in data["units"]}
    assert "docmentor.repodocs.generate.document_repository" in by_id
    assert by_id["."]["sections"][:2] == ["Purpose", "Architecture"]
    assert "documentation that works for AI coding agents" in by_id["."]["text"]
    assert (out / "modules" / "docmentor.repodocs.output.md").is_file()
    output = by_id["docmentor.repodocs.output"]
    assert output["sections"][0] == "Role"
    assert "The repository documentation on disk" in output["text"]
    assert plain("byte-identical") in output["text"]


def test_a_readme_purpose_ends_on_no_lead_in(tmp_path: Path) -> None:
    """humanize's first paragraph ends "It is localized to:" and a list the purpose leaves out."""
    from docmentor.repodocs.deterministic import readme_paragraph

    (tmp_path / "README.md").write_text(
        "# h\n\nThis modest package turns numbers into words. It is localized to:\n\n* French\n",
        encoding="utf-8",
    )
    assert readme_paragraph(tmp_path) == "This modest package turns numbers into words."
    (tmp_path / "README.md").write_text("# h\n\nIt is localized to:\n\n* French\n", encoding="utf-8")
    assert readme_paragraph(tmp_path) == "It is localized to."
