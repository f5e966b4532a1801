"""Repository documentation of TypeScript/JavaScript, Go and Rust repositories: the units read
through tree-sitter (ids, spans, signatures, doc comments, parameters, calls, imports),
discovery (skipped folders, .gitignore) and files that do not parse."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from docmentor.repodocs.graph import build_graph
from docmentor.repodocs.order import traversal
from docmentor.repodocs.python_units import discover, read_repository
from docmentor.repodocs.treesitter_repo import module_ids
from docmentor.repodocs.units import Component, RepoUnits

FIXTURES = Path(__file__).parent / "fixtures" / "repodocs_langs"


def _copy(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return root


def _components(units: RepoUnits) -> dict[str, Component]:
    return {c.id: c for c in units.components}


@pytest.fixture(scope="module")
def ts() -> RepoUnits:
    return read_repository(FIXTURES / "ts_repo")


@pytest.fixture(scope="module")
def go() -> RepoUnits:
    return read_repository(FIXTURES / "go_repo")


@pytest.fixture(scope="module")
def rust() -> RepoUnits:
    return read_repository(FIXTURES / "rust_repo")


# -- TypeScript / JavaScript ------------------------------------------------------------------


def test_typescript_units_ids_and_packages(ts: RepoUnits) -> None:
    assert [m.id for m in ts.modules] == ["src.geo.shapes", "src.geo.util", "src.index", "src.legacy"]
    assert [(p.id, p.children) for p in ts.packages] == [
        ("src/", ("src.index", "src.legacy", "src/geo/")),
        ("src/geo/", ("src.geo.shapes", "src.geo.util")),
    ]
    c = _components(ts)
    assert c["src.geo.shapes.Circle"].members == (
        "src.geo.shapes.Circle.constructor",
        "src.geo.shapes.Circle.area",
        "src.geo.shapes.Circle.unit",
        "src.geo.shapes.Circle.diameter",
        "src.geo.shapes.Circle.check",
    )
    assert c["src.legacy.Registry.add"].kind == "method"
    assert c["src.geo.util.clamp"].kind == "function"  # const clamp = (…) => …
    assert ts.problems[0].path == "src/broken.ts"
    assert ts.problems[0].error == "does not parse: syntax error (line 1)"


def test_typescript_spans_signatures_docs_and_parameters(ts: RepoUnits) -> None:
    c = _components(ts)
    circle = c["src.geo.shapes.Circle"]
    assert (circle.line_start, circle.line_end) == (30, 63)  # from its doc comment
    assert circle.signature == "export class Circle extends Base implements Shape"
    assert circle.docstring == "A circle.\n\nIts radius is clamped to be at least zero."
    assert circle.bases == ("Base", "Shape")
    assert circle.init_signature == "(radius: number)"
    assert circle.attributes == ("name", "radius")
    scale = c["src.geo.shapes.scale"]
    assert scale.signature == "export const scale = (shape: Shape, factor = 2): number =>"
    assert [(p.name, p.annotation, p.default) for p in scale.parameters] == [
        ("shape", "Shape", None),
        ("factor", None, "2"),
    ]
    assert scale.returns == "number"
    areas = c["src.geo.shapes.areas"]
    assert [(p.name, p.kind) for p in areas.parameters] == [
        ("shapes", "positional_or_keyword"),
        ("more", "var_positional"),
    ]
    assert c["src.geo.shapes.Circle.unit"].method_kind == "static"
    assert c["src.geo.shapes.Circle.diameter"].method_kind == "property"
    assert c["src.geo.shapes.Circle.area"].parameters[0].name == "this"  # the receiver, as self
    assert c["src.geo.shapes.Circle.check"].raises == ("RangeError",)
    assert ts.modules[1].docstring == "Number helpers shared by the shapes."


def test_typescript_calls_and_imports(ts: RepoUnits) -> None:
    c = _components(ts)
    assert [x.name for x in c["src.geo.shapes.Circle.check"].calls] == ["RangeError", "self.describe"]
    assert [x.name for x in c["src.geo.shapes.Circle.constructor"].calls] == ["super().constructor", "limit"]
    assert [x.name for x in c["src.legacy.make"].calls] == ["shapes.Circle"]
    shapes = next(m for m in ts.modules if m.id == "src.geo.shapes")
    assert [(i.target, i.name, i.alias) for i in shapes.imports] == [
        ("src.geo.util", "round", None),
        ("src.geo.util", "clamp", "limit"),
        ("src.geo.util", None, "util"),
        ("events", "EventEmitter", None),
    ]
    legacy = next(m for m in ts.modules if m.id == "src.legacy")
    assert [(i.target, i.name, i.alias) for i in legacy.imports] == [
        ("src.geo.shapes", None, "shapes"),
        ("src.geo.util", "round", None),
    ]


def test_discovery_skips_dependency_folders_and_gitignored_paths(tmp_path: Path) -> None:
    root = _copy("ts_repo", tmp_path)
    for rel in ("node_modules/pad/index.js", "dist/out.js", "generated/x.ts", "src/gen/y.ts", "target/z.rs"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("export const x = 1;\n", encoding="utf-8")
    (root / ".gitignore").write_text("generated/\n", encoding="utf-8")
    (root / "src" / ".gitignore").write_text("gen/\n!keep.ts\n", encoding="utf-8")
    found, _ = discover(root)
    assert sorted(found) == [
        "src/broken.ts",
        "src/geo/shapes.ts",
        "src/geo/util.ts",
        "src/index.ts",
        "src/legacy.js",
    ]


def test_binary_and_oversized_files_are_problems_not_crashes(tmp_path: Path) -> None:
    root = _copy("ts_repo", tmp_path)
    (root / "src" / "blob.ts").write_bytes(b"export const a = 1;\0\0")
    (root / "src" / "big.go").write_text("package big\n" + "// x\n" * 100, encoding="utf-8")
    (root / "src" / "latin.js").write_bytes(b"// caf\xe9\nfunction f() { return 1; }\n")
    units = read_repository(root, max_bytes=300)
    problems = {p.path: (p.error, p.skipped) for p in units.problems}
    assert problems["src/blob.ts"] == ("binary file (it holds a NUL byte)", True)
    assert problems["src/big.go"][0].startswith("larger than the size cap")
    assert problems["src/latin.js"][1] is False  # read with replacement characters
    assert "src.latin.f" in _components(units)


def test_module_ids_keep_apart_files_that_would_share_one() -> None:
    ids = module_ids(["src/a.ts", "src/a.js", "lib/x.d.ts", "b.go"], {"b"})
    assert ids == {"src/a.ts": "src.a~ts", "src/a.js": "src.a~js", "lib/x.d.ts": "lib.x-d", "b.go": "b~go"}


def test_a_mixed_repository_is_read_whole(tmp_path: Path) -> None:
    root = _copy("ts_repo", tmp_path)
    (root / "tools").mkdir()
    (root / "tools" / "gen.py").write_text('"""Generate."""\n\ndef main():\n    pass\n', encoding="utf-8")
    units = read_repository(root)
    assert "gen" in {m.id for m in units.modules}
    assert {"gen.main", "src.geo.util.round"} <= set(_components(units))


# -- Go ---------------------------------------------------------------------------------------


def test_go_units_methods_join_their_type_across_files(go: RepoUnits) -> None:
    c = _components(go)
    store = c["store.store.Store"]
    assert store.members == ("store.store.Store.Add", "store.store.Store.Price", "store.store.Store.describe")
    add = c["store.store.Store.Add"]
    assert add.path == "store/methods.go" and add.module == "store.store"
    assert (add.line_start, add.line_end) == (3, 7)
    assert add.signature == "func (s *Store) Add(name string, price float64)"
    assert [(p.name, p.annotation) for p in add.parameters] == [
        ("s", "*Store"),
        ("name", "string"),
        ("price", "float64"),
    ]
    assert [x.name for x in add.calls] == ["self.Age"]
    assert store.bases == ("Base",) and store.attributes == ("items",)
    assert c["store.methods.Total"].returns == "(sum float64)"
    assert c["store.methods.Total"].parameters[0].kind == "var_positional"
    assert c["store.store.NewStore"].docstring == "NewStore makes an empty store."
    assert [x.name for x in c["store.store.NewStore"].calls] == ["Store"]  # &Store{…}
    base = next(m for m in go.modules if m.id == "store.base")
    assert base.docstring == "Package store keeps the shop's items."
    main = next(m for m in go.modules if m.id == "cmd.shop.main")
    assert [(i.target, i.alias) for i in main.imports] == [("fmt", "fmt"), ("store/", "st")]
    assert [p.path for p in go.problems] == ["store/broken.go"]


# -- Rust -------------------------------------------------------------------------------------


def test_rust_units_impl_blocks_traits_and_uses(rust: RepoUnits) -> None:
    c = _components(rust)
    circle = c["src.shapes.circle.Circle"]
    assert (circle.line_start, circle.line_end) == (5, 10)  # doc comment and #[derive]
    assert circle.signature == "pub struct Circle"
    assert circle.bases == ("Shape", "fmt::Display")
    assert circle.members[:2] == ("src.shapes.circle.Circle.new", "src.shapes.circle.Circle.unit")
    assert c["src.shapes.circle.Circle.new"].method_kind == "static"
    assert c["src.shapes.circle.Circle.grow"].parameters[0].name == "self"
    assert [x.name for x in c["src.shapes.circle.Circle.unit"].calls] == ["self.new"]
    assert c["src.shapes.mod.Shape"].members == ("src.shapes.mod.Shape.area", "src.shapes.mod.Shape.name")
    assert c["src.shapes.mod.Kind"].attributes == ("Round", "Square")
    assert c["src.util.round"].docstring == "Round to two decimals."
    lib = next(m for m in rust.modules if m.id == "src.lib")
    assert lib.docstring == "Shapes with areas.\n\nThe crate's root: it declares the modules."
    assert [(i.target, i.name, i.alias) for i in lib.imports] == [
        ("src.shapes.mod", None, "shapes"),
        ("src.util", None, "util"),
        ("src.shapes.circle", "Circle", None),
    ]
    circle_module = next(m for m in rust.modules if m.id == "src.shapes.circle")
    assert [(i.target, i.name) for i in circle_module.imports] == [
        ("src.util", "check"),
        ("src.util", "round"),
        ("src.shapes.mod", "Shape"),
        ("std", "fmt"),
    ]


# -- the graph and the documentation order ----------------------------------------------------


def _edges(units: RepoUnits) -> set[tuple[str, str, str]]:
    return {(e.source, e.kind, e.target) for e in build_graph(units).edges if e.kind != "contains"}


def test_typescript_edges(ts: RepoUnits) -> None:
    edges = _edges(ts)
    s, u = "src.geo.shapes", "src.geo.util"
    assert {
        (s, "imports", u),
        ("src.index", "imports", s),  # export … from
        ("src.legacy", "imports", s),  # require
        (f"{s}.Circle", "inherits", f"{s}.Base"),  # extends
        (f"{s}.Circle", "inherits", f"{s}.Shape"),  # implements
        (f"{s}.Circle.area", "calls", f"{u}.round"),  # a named import
        (f"{s}.Circle.constructor", "calls", f"{u}.clamp"),  # imported under an alias
        (f"{s}.Circle.diameter", "calls", f"{u}.round"),  # through a namespace import
        (f"{s}.Circle.constructor", "calls", f"{s}.Base.constructor"),  # super(…)
        (f"{s}.Circle.check", "calls", f"{s}.Base.describe"),  # this.m() found in a base
        (f"{s}.Circle.unit", "calls", f"{s}.Circle.constructor"),  # new Circle()
        ("src.legacy.make", "calls", f"{s}.Circle"),  # new shapes.Circle() through require
        ("src.legacy.Registry.add", "calls", "src.legacy.total"),
    } <= edges
    graph = build_graph(ts)
    assert graph.external[s] == ("events.EventEmitter",)


def test_go_edges(go: RepoUnits) -> None:
    assert _edges(go) >= {
        ("cmd.shop.main", "imports", "store/"),  # the package, by go.mod's module path
        ("cmd.shop.main.main", "calls", "store.store.NewStore"),
        ("cmd.shop.main.main", "calls", "store.methods.Total"),  # another file of the package
        ("store.store.NewStore", "calls", "store.store.Store"),  # &Store{…}
        ("store.store.Store", "inherits", "store.base.Base"),  # embedding
        ("store.store.Store.Add", "calls", "store.base.Base.Age"),  # s.Age() through the embedded type
    }
    assert "fmt.Println" in build_graph(go).external["cmd.shop.main.main"]


def test_rust_edges(rust: RepoUnits) -> None:
    assert _edges(rust) >= {
        ("src.lib", "imports", "src.shapes.mod"),  # mod shapes;
        ("src.shapes.circle", "imports", "src.util"),  # use crate::util::{…}
        ("src.shapes.circle", "imports", "src.shapes.mod"),  # use super::Shape
        ("src.shapes.circle.Circle", "inherits", "src.shapes.mod.Shape"),  # impl Shape for Circle
        ("src.shapes.circle.Circle.area", "calls", "src.util.round"),
        ("src.shapes.circle.Circle.new", "calls", "src.util.check"),
        ("src.shapes.circle.Circle.new", "calls", "src.shapes.circle.Circle"),  # Circle { … }
        ("src.shapes.circle.Circle.unit", "calls", "src.shapes.circle.Circle.new"),  # Self::new()
    }
    assert build_graph(rust).external["src.shapes.circle.Circle"] == ("std.fmt.Display",)


@pytest.mark.parametrize("name", ["ts_repo", "go_repo", "rust_repo"])
def test_traversal_puts_dependencies_first(name: str) -> None:
    units = read_repository(FIXTURES / name)
    graph = build_graph(units)
    walk = traversal(graph)
    position = walk.position()
    dropped = set(walk.dropped)
    assert set(walk.order) == set(units.units()) and walk.order[-1] == "."
    for e in graph.edges:
        if e not in dropped and e.source != e.target:
            assert position[e.target] < position[e.source], e


def test_a_destructured_parameter_over_several_lines_is_one_name(tmp_path: Path) -> None:
    (tmp_path / "opts.js").write_text(
        "function load({\n  a,\n  b = 2,\n}) {\n  return a + b;\n}\n", encoding="utf-8"
    )
    (component,) = read_repository(tmp_path).components
    assert [p.name for p in component.parameters] == ["{ a, b = 2, }"]
    assert component.signature == "function load({ a, b = 2, })"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_commonjs_exports_class_field_arrows_default_exports_and_star_chains(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "lib/math.js": "exports.add = function (a, b) { return a + b; };\n"
            "module.exports.twice = (x) => exports.add(x, x);\n",
            "lib/widget.ts": "export default class Widget {\n  onClick = (e: Event): void => { this.render(); };\n"
            "  render(): void {}\n}\n",
            "lib/all.ts": "export * from './math';\n",
            "lib/index.ts": "export * from './all';\n",
            "app.ts": "import Widget from './lib/widget';\nimport { add } from './lib/index';\n"
            "const total = add(1, 2);\nexport function main(): Widget { return new Widget(); }\n",
        },
    )
    units = read_repository(tmp_path)
    c = _components(units)
    assert {"lib.math.add", "lib.math.twice", "lib.widget.Widget.onClick", "app.main"} <= set(c)
    assert c["lib.widget.Widget.onClick"].kind == "method"
    assert c["lib.widget.Widget"].attributes == ()
    edges = _edges(units)
    assert ("app.main", "calls", "lib.widget.Widget") in edges  # the default import
    assert ("app", "calls", "lib.math.add") in edges  # module-level code, through two export *
    assert ("lib.widget.Widget.onClick", "calls", "lib.widget.Widget.render") in edges


def test_deep_nesting_and_odd_rust_impls_read_without_a_crash(tmp_path: Path) -> None:
    depth = 3000
    _write(
        tmp_path,
        {
            "deep.ts": "export function f() { return " + "[" * depth + "]" * depth + "; }\n",
            "src/lib.rs": "pub struct S;\nimpl<'a> Tr for &'a mut S { fn m(&self) {} }\n"
            "impl Tr for [u8] { fn n(&self) {} }\n"
            "use a::" + "{b::" * 200 + "c" + "}" * 200 + ";\n"
            "fn g() { x" + ".y" * depth + "(); }\n",
        },
    )
    units = read_repository(tmp_path)
    c = _components(units)
    assert "deep.f" in c
    assert "src.lib.S.m" in c and c["src.lib.S.m"].parent == "src.lib.S"
    assert "src.lib._.n" in c  # a type without a name: the method stays in its module
    assert units.problems == ()
    build_graph(units)


def test_go_tool_directives_are_no_documentation(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {"gen/gen.go": "package gen\n\n// Make builds it.\n//go:generate stringer\nfunc Make() {}\n"},
    )
    (make,) = read_repository(tmp_path).components
    assert make.docstring == "Make builds it." and (make.line_start, make.line_end) == (3, 5)


def test_no_component_shares_an_id_with_a_module(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/geo.ts": "export function util() {}\n",
            "src/geo/util.ts": "export function f() {}\n",
            "x.py": "def f():\n    pass\n",
            "x/f.js": "function g() {}\n",
        },
    )
    units = read_repository(tmp_path)
    assert [m.id for m in units.modules] == ["src.geo.util", "src.geo~ts", "x", "x.f~js"]
    ids = [m.id for m in units.modules] + [c.id for c in units.components] + [p.id for p in units.packages]
    assert len(ids) == len(set(ids)) == len(units.units()) - 1


def test_a_line_comment_inside_a_signature_is_left_out_and_a_quoted_member_gets_a_safe_anchor(
    tmp_path: Path,
) -> None:
    """zod writes ``ZodCatchDef<T>, // any input will pass`` inside a signature: joined on one
    line the comment would swallow the rest. A member named by a string (``"~validate"``)
    gets an anchor made of safe characters that its links reach."""
    from docmentor.repodocs.generate import document_repository

    _write(
        tmp_path / "repo",
        {
            "src/schema.ts": "export class Schema {\n"
            "  /** Check a value. */\n"
            '  "~validate"(value: unknown): boolean {\n    return true;\n  }\n'
            "  /** Catch. */\n"
            "  catch(\n    fallback: string, // any input will pass\n"
            '    url: string = "http://x", // a default\n  ): Schema {\n    return this;\n  }\n}\n',
        },
    )
    units = read_repository(tmp_path / "repo")
    catch = next(c for c in units.components if c.name == "catch")
    assert catch.signature == 'catch(fallback: string, url: string = "http://x"): Schema'
    document_repository(tmp_path / "repo", tmp_path / "out")
    page = next((tmp_path / "out").rglob("src.schema.md")).read_text(encoding="utf-8")
    anchors = re.findall(r'<a id="([^"]*)"', page)
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", a) for a in anchors), anchors
    assert any("validate" in a for a in anchors)


def test_a_file_with_a_syntax_error_is_read_around_it(tmp_path: Path) -> None:
    """A grammar older than the code (immer's overloads in an interface, zod's ``in``/``out``
    variance) leaves an error in one place: the declarations that parsed are still read, and
    the problem names the line where the code goes wrong, not the file's first line."""
    _write(
        tmp_path,
        {
            "src/types.ts": "import { X } from './x'\n\n"
            "/** A draft. */\nexport type Draft<T> = T\n\n"
            "/** Make a draft. */\nexport function createDraft<T>(base: T): Draft<T> {\n  return base\n}\n\n"
            "export interface Box<in out T> {\n  value: T\n  <U extends Function>(x: U\n}\n",
        },
    )
    units = read_repository(tmp_path)
    names = {c.name for c in units.components}
    assert "createDraft" in names
    (problem,) = units.problems
    assert problem.path == "src/types.ts" and problem.error.startswith("partly read: a syntax error at line ")
    assert problem.skipped is False  # read, around the error
    assert not problem.error.startswith("partly read: a syntax error at line 1;")


def test_a_rust_lifetime_opens_no_string_and_a_template_literal_spans_lines(tmp_path: Path) -> None:
    from docmentor.library.surface.treesitter.core import squash_space

    _write(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "p"\nversion = "0.1.0"\n',
            "src/lib.rs": "/// Parse.\npub fn parse<'a>(\n    input: &'a str, // the input\n    rest: &str,\n) -> &'a str {\n    input\n}\n",
        },
    )
    (parse_fn,) = [c for c in read_repository(tmp_path).components if c.name == "parse"]
    assert parse_fn.signature == "pub fn parse<'a>(input: &'a str, rest: &str) -> &'a str"
    assert squash_space("f(\n a: string = `multi\n line https://x`, // c\n b: number)") == (
        "f(a: string = `multi line https://x`, b: number)"
    )


def test_an_object_types_members_one_per_line_stay_apart_when_joined() -> None:
    """immer's ``constructor(config?: {`` then ``autoFreeze?: boolean`` and
    ``useStrictShallowCopy?: StrictMode`` on lines of their own: joined, a ``;`` keeps them
    apart; parameters, unions and members already ended are left as they are."""
    from docmentor.library.surface.treesitter.core import squash_space

    assert squash_space(
        "constructor(config?: {\n  autoFreeze?: boolean\n  readonly strict?: StrictMode\n})"
    ) == ("constructor(config?: { autoFreeze?: boolean; readonly strict?: StrictMode })")
    assert squash_space("f(\n  a: string,\n  b: number\n): void") == "f(a: string, b: number): void"
    assert squash_space("type X = {\n  a: string;\n  b: number;\n}") == "type X = { a: string; b: number; }"
    assert squash_space("f(a: A\n  | B)") == "f(a: A | B)"
