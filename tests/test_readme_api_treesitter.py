"""The TypeScript/JavaScript, Go and Rust API surfaces read with tree-sitter (fixtures in readme_ts/)."""

from __future__ import annotations

import shutil
import textwrap
import time
from pathlib import Path

import pytest

from docmentor.errors import SourceUnavailableError, UsageError
from docmentor.library.examples.matcher import match_examples
from docmentor.library.models import ApiEntry, Example
from docmentor.library.surface.treesitter import (
    SourceApiSurface,
    detect_source_language,
    load_source_api,
    load_source_surface,
)

FIXTURES = Path(__file__).parent / "fixtures" / "readme_ts"
LANCEDB = Path(__file__).parent / "fixtures" / "lancedb"  # a slice of the LanceDB docs (NOTICE)


def by_id(entries: list[ApiEntry]) -> dict[str, ApiEntry]:
    return {e.api_id: e for e in entries}


@pytest.fixture(scope="module")
def ts() -> dict[str, ApiEntry]:
    return by_id(load_source_api(FIXTURES / "ts", library="lib"))


@pytest.fixture(scope="module")
def js() -> dict[str, ApiEntry]:
    return by_id(load_source_api(FIXTURES / "js", library="lib"))


@pytest.fixture(scope="module")
def go() -> dict[str, ApiEntry]:
    return by_id(load_source_api(FIXTURES / "go", library="lib"))


@pytest.fixture(scope="module")
def rust() -> dict[str, ApiEntry]:
    return by_id(load_source_api(FIXTURES / "rust", library="lib"))


# -- TypeScript ---------------------------------------------------------------------------------


def test_ts_exports_only_exported_names(ts: dict[str, ApiEntry]) -> None:
    assert set(ts) == {
        "lib.connection.ConnectOptions",
        "lib.connection.ConnectOptions.timeout",
        "lib.connection.ConnectOptions.retry",
        "lib.connection.connect",
        "lib.connection.Connection",
        "lib.connection.Connection.uri",
        "lib.connection.Connection.openTable",
        "lib.connection.Connection.tableNames",
        "lib.connection.Connection.inMemory",
        "lib.connection.Connection.isOpen",
        "lib.connection.embed",
        "lib.connection.Mode",
        "lib.connection.VERSION",
        "lib.table.Table",
        "lib.table.Table.add",
        "lib.table.Table.search",
        "lib.table.Query",
        "lib.table.Query.limit",
        "lib.table.Query.toArray",
        "lib.table.openDefault",
    }  # not: helper, Base, private/protected/#/_/@internal members, *.test.ts, node_modules
    assert {e.language for e in ts.values()} == {"typescript"}


def test_ts_function_signature_parameters_and_docs(ts: dict[str, ApiEntry]) -> None:
    connect = ts["lib.connection.connect"]
    assert connect.kind == "function"
    assert connect.signature == (
        "async function connect(uri: string, options?: ConnectOptions, retries = 3): Promise<Connection>"
    )
    assert [(p.name, p.type, p.default, p.required) for p in connect.parameters] == [
        ("uri", "string", None, True),
        ("options", "ConnectOptions", None, False),
        ("retries", None, "3", False),
    ]
    assert connect.parameters[0].description == "where the database lives"
    assert connect.description == "Connect to a database."
    assert "Opens the folder at `uri`." in connect.docstring
    assert connect.returns is not None
    assert connect.returns.type == "Promise<Connection>"
    assert connect.returns.class_id == "lib.connection.Connection"
    assert connect.returns.description == "the open connection"
    assert connect.source_file == "src/connection.ts" and connect.line == 18


def test_ts_classes_methods_and_visibility(ts: dict[str, ApiEntry]) -> None:
    conn = ts["lib.connection.Connection"]
    assert conn.kind == "class" and conn.signature == "class Connection extends Base"
    assert conn.description == "A connection to a database."
    assert [(p.name, p.type, p.description) for p in conn.parameters] == [("uri", "string", "the folder")]
    open_table = ts["lib.connection.Connection.openTable"]
    assert open_table.kind == "method" and open_table.parent == "lib.connection.Connection"
    assert (
        open_table.signature
        == "async openTable(name: string, { mode }: { mode?: string } = {}): Promise<Table>"
    )
    assert [(p.name, p.default, p.required) for p in open_table.parameters] == [
        ("name", None, True),
        ("{ mode }", "{}", False),
    ]
    assert open_table.returns is not None and open_table.returns.class_id == "lib.table.Table"
    rest = ts["lib.connection.Connection.tableNames"].parameters[0]
    assert (rest.name, rest.kind, rest.required) == ("prefixes", "var-positional", False)
    assert ts["lib.connection.Connection.inMemory"].signature == "static inMemory(): Connection"
    assert ts["lib.connection.Connection.isOpen"].kind == "property"
    assert ts["lib.connection.Connection.uri"].kind == "property"
    limit = ts["lib.table.Query.limit"].returns
    assert limit is not None and limit.class_id == "lib.table.Query"


def test_ts_interfaces_type_aliases_arrow_functions_and_default(ts: dict[str, ApiEntry]) -> None:
    options = ts["lib.connection.ConnectOptions"]
    assert options.kind == "class" and options.description == "Options for connect."
    assert ts["lib.connection.ConnectOptions.timeout"].description == "Seconds before giving up."
    assert ts["lib.connection.ConnectOptions.retry"].kind == "method"
    mode = ts["lib.connection.Mode"]
    assert mode.kind == "attribute" and mode.returns is not None
    assert mode.returns.type == '"create" | "overwrite"'
    embed = ts["lib.connection.embed"]
    assert embed.kind == "function" and embed.description == "Turn text into a vector."
    assert [(p.name, p.type, p.default) for p in embed.parameters] == [
        ("text", "string", None),
        ("dims", "number", "384"),
    ]
    assert embed.returns is not None and embed.returns.type == "Promise<number[]>"
    assert ts["lib.table.openDefault"].kind == "function"  # export default function openDefault


def test_ts_reexports_become_aliases(ts: dict[str, ApiEntry]) -> None:
    assert ts["lib.connection.Connection"].aliases == ["lib.Connection"]
    assert ts["lib.connection.Connection.openTable"].aliases == ["lib.Connection.openTable"]
    assert ts["lib.connection.connect"].aliases == ["lib.connect"]
    assert ts["lib.connection.ConnectOptions"].aliases == ["lib.ConnectOptions"]  # export type {…}
    assert ts["lib.table.Query"].aliases == ["lib.Query"]  # export *
    assert ts["lib.connection.embed"].aliases == []  # not re-exported by index.ts


# -- JavaScript ---------------------------------------------------------------------------------


def test_js_jsdoc_types_and_commonjs_exports(js: dict[str, ApiEntry]) -> None:
    assert set(js) == {
        "lib.greet",
        "lib.welcome",
        "lib.farewell",
        "lib.Greeting",
        "lib.Greeting.shout",
        "lib.esm.add",
        "lib.esm.twice",
    }
    greet = js["lib.greet"]
    assert greet.language == "javascript"
    assert greet.signature == "function greet(name, times = 1)"
    assert [(p.name, p.type, p.default, p.required, p.description) for p in greet.parameters] == [
        ("name", "string", None, True, "who to greet"),
        ("times", "number", "1", False, "how often"),
    ]
    assert greet.returns is not None and greet.returns.class_id == "lib.Greeting"
    shout = js["lib.Greeting.shout"].returns
    assert shout is not None and shout.type == "Promise<string>"
    assert js["lib.farewell"].signature == "exports.farewell = function (name)"
    add = js["lib.esm.add"]
    assert [(p.name, p.kind) for p in add.parameters][-1] == ("more", "var-positional")


# -- Go -----------------------------------------------------------------------------------------


def test_go_exported_functions_types_and_methods(go: dict[str, ApiEntry]) -> None:
    assert set(go) == {
        "lib.db.Connect",
        "lib.db.Option",
        "lib.db.Conn",
        "lib.db.Conn.URI",
        "lib.db.Conn.OpenTable",
        "lib.db.Base",
        "lib.db.Base.Close",
        "lib.db.Table",
        "lib.db.Store",
        "lib.db.Store.Get",
        "lib.db.Rows",
    }  # not: helper, config, reset, config.Apply, put, _test.go, internal/, package main
    connect = go["lib.db.Connect"]
    assert connect.language == "go"
    assert connect.signature == "func Connect(ctx context.Context, uri string, opts ...Option) (*Conn, error)"
    assert connect.description == "Connect opens a connection to the database at uri."
    assert connect.docstring == "Connect opens a connection to the database at uri.\n\nIt never blocks."
    assert [(p.name, p.type, p.kind) for p in connect.parameters] == [
        ("ctx", "context.Context", "positional or keyword"),
        ("uri", "string", "positional or keyword"),
        ("opts", "...Option", "var-positional"),
    ]
    assert connect.returns is not None and connect.returns.class_id == "lib.db.Conn"
    open_table = go["lib.db.Conn.OpenTable"]
    assert open_table.parent == "lib.db.Conn" and open_table.kind == "method"
    assert [p.name for p in open_table.parameters] == ["name", "a", "b"]
    assert open_table.returns is not None and open_table.returns.class_id == "lib.db.Table"
    assert go["lib.db.Conn"].bases == ["lib.db.Base"]  # embedded
    assert go["lib.db.Conn.URI"].description == "URI is where the database lives."
    assert go["lib.db.Table"].description == "Table is a table."  # inside a `type (…)` group
    assert go["lib.db.Rows"].kind == "attribute"


# -- Rust ---------------------------------------------------------------------------------------


def test_rust_pub_items_impl_methods_and_docs(rust: dict[str, ApiEntry]) -> None:
    assert set(rust) == {
        "lib.connection.connect",
        "lib.connection.Connection",
        "lib.connection.Connection.uri",
        "lib.connection.Connection.open_table",
        "lib.connection.Connection.new",
        "lib.Store",
        "lib.Store.get",
        "lib.Result",
        "lib.Error",
        "lib.table.Table",
        "lib.table.Table.count_rows",
    }  # not: private fns, pub(crate), private mod, trait impl methods
    connect = rust["lib.connection.connect"]
    assert connect.language == "rust"
    assert (
        connect.signature == "pub async fn connect(uri: &str, options: Option<Options>) -> Result<Connection>"
    )
    assert connect.docstring == "Connect to a database.\n\nOpens `uri`."  # past #[must_use]
    assert connect.returns is not None and connect.returns.class_id == "lib.connection.Connection"
    open_table = rust["lib.connection.Connection.open_table"]
    assert [(p.name, p.type) for p in open_table.parameters] == [("name", "impl Into<String>")]  # no &self
    assert open_table.returns is not None and open_table.returns.class_id == "lib.table.Table"
    new = rust["lib.connection.Connection.new"]
    assert new.description == "Make one." and new.parameters[0].name == "uri"
    assert new.returns is not None and new.returns.class_id == "lib.connection.Connection"  # Self
    assert rust["lib.table.Table"].bases == ["lib.Store"]  # impl crate::Store for Table
    assert rust["lib.Store.get"].kind == "method"
    assert rust["lib.Result"].kind == "attribute"


def test_rust_pub_use_becomes_aliases(rust: dict[str, ApiEntry]) -> None:
    assert rust["lib.table.Table"].aliases == ["lib.Table"]
    assert rust["lib.table.Table.count_rows"].aliases == ["lib.Table.count_rows"]
    assert rust["lib.connection.connect"].aliases == ["lib.connect"]
    assert rust["lib.connection.Connection"].aliases == ["lib.Conn"]  # `Connection as Conn`


def test_rust_api_is_what_users_can_name_and_exported_macros(tmp_path: Path) -> None:
    """A tour on anyhow: 49 of 70 APIs sat in private modules or `#[doc(hidden)]` ones, and its
    `bail!` / `anyhow!` macros were missing."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.rs").write_text(
        "mod ptr;\nmod error;\npub mod public_mod;\npub use crate::error::Error;\n"
        "#[doc(hidden)]\npub mod __private {\n    pub fn format_err() {}\n}\n"
        "/// Return early with an error.\n#[macro_export]\nmacro_rules! bail {\n"
        "    ($msg:literal $(,)?) => {};\n    ($err:expr $(,)?) => {};\n}\n"
        "#[doc(hidden)]\n#[macro_export]\nmacro_rules! __hidden {\n    () => {};\n}\n"
        "macro_rules! local_only {\n    () => {};\n}\n"
        "#[doc(hidden)]\npub fn hidden_fn() {}\n/// Shown.\npub fn shown() {}\n"
    )
    (src / "ptr.rs").write_text("pub struct Own;\nimpl Own {\n    pub fn new() -> Own { Own }\n}\n")
    (src / "error.rs").write_text(
        "/// The error.\npub struct Error;\nimpl Error {\n    /// Its causes.\n    pub fn chain(&self) {}\n}\n"
    )
    (src / "public_mod.rs").write_text("pub fn f() {}\n")
    entries = by_id(load_source_api(tmp_path, library="lib"))
    assert set(entries) == {
        "lib.bail",
        "lib.shown",
        "lib.public_mod.f",
        "lib.error.Error",  # defined in a private module, published by `pub use`
        "lib.error.Error.chain",
    }
    assert entries["lib.error.Error"].aliases == ["lib.Error"]
    bail = entries["lib.bail"]
    assert (bail.kind, bail.signature, bail.description) == (
        "function",
        "bail!($msg:literal $(,)?)",
        "Return early with an error.",
    )


# -- the surface --------------------------------------------------------------------------------


def test_surface_resolves_aliases_members_through_bases_and_return_classes() -> None:
    s = load_source_surface(FIXTURES / "ts", library="lib", version="1.0")
    assert isinstance(s, SourceApiSurface) and s.language == "typescript" and s.version == "1.0"
    assert s.resolve("lib.Connection.openTable") is s.by_id["lib.connection.Connection.openTable"]
    assert s.return_class("lib.connect") == "lib.connection.Connection"  # Promise<> unwrapped
    assert s.return_class("lib.Connection") == "lib.connection.Connection"
    assert s.return_class("lib.Connection.tableNames") is None
    assert s.resolve("lib.nothing") is None
    g = load_source_surface(FIXTURES / "go", library="lib")
    close = g.resolve("lib.db.Conn.Close")  # promoted from the embedded Base
    assert close is not None and close.api_id == "lib.db.Base.Close"
    r = load_source_surface(FIXTURES / "rust", library="lib")
    get = r.resolve("lib.Table.get")  # from the trait Table implements
    assert get is not None and get.api_id == "lib.Store.get"


def test_matcher_propagates_ts_return_types() -> None:
    s = load_source_surface(FIXTURES / "ts", library="lib")
    code = """\
        import * as lib from "lib";
        const db = await lib.connect("data");
        const table = await db.openTable("t");
        const rows = await table.search([1, 2]).limit(5).toArray();
        """
    example = Example(
        example_id="p-1",
        title="t",
        code=textwrap.dedent(code),
        language="typescript",
        source="s",
        path="p.md",
        line=1,
    )
    match_examples([example], s, library="lib")
    assert example.apis_used == [
        "lib.connection.connect",
        "lib.connection.Connection.openTable",
        "lib.table.Table.search",
        "lib.table.Query.limit",
        "lib.table.Query.toArray",
    ]
    assert s.by_id["lib.connection.connect"].examples == ["p-1"]


# -- languages, files, errors -------------------------------------------------------------------


def test_language_detection_and_names(tmp_path: Path) -> None:
    assert detect_source_language(FIXTURES / "ts") == "typescript"
    assert detect_source_language(FIXTURES / "js") == "javascript"
    assert detect_source_language(FIXTURES / "go") == "go"
    assert detect_source_language(FIXTURES / "rust") == "rust"
    assert detect_source_language(tmp_path) is None
    assert load_source_api(tmp_path, library="lib") == []
    assert {e.language for e in load_source_api(FIXTURES / "ts", language="TS", library="lib")} == {
        "typescript"
    }
    assert load_source_api(FIXTURES / "ts", language="go", library="lib") == []
    with pytest.raises(UsageError):
        load_source_api(FIXTURES / "ts", language="cobol", library="lib")
    with pytest.raises(SourceUnavailableError):
        load_source_api(tmp_path / "missing", library="lib")


def test_an_npm_package_is_read_from_its_declarations_not_its_compiled_javascript(tmp_path: Path) -> None:
    """A package as npm ships it: compiled JavaScript (``.js``, ``.mjs``) beside its ``.d.ts``
    types (a tour read zod's lib/*.js: untyped signatures, every API two to four times)."""
    lib = tmp_path / "package" / "lib"
    lib.mkdir(parents=True)
    (lib / "index.mjs").write_text(
        "export class Schema { parse(data) { return data; } }\nexport const a = 1;\n"
    )
    (lib / "index.js").write_text(
        '"use strict";\nclass Schema { parse(data) { return data; } }\nexports.Schema = Schema;\n'
    )
    (lib / "types.js").write_text("function email(message) {}\nexports.email = email;\n")
    (lib / "index.d.ts").write_text(
        "/** A schema. */\nexport declare class Schema<T> {\n  /** Parse data. */\n  parse(data: unknown): T;\n}\n"
        'export * from "./types";\n'
    )
    (lib / "types.d.ts").write_text(
        "/** Check an email address. */\nexport declare function email(message?: string): boolean;\n"
    )
    assert detect_source_language(tmp_path / "package") == "typescript"
    entries = by_id(load_source_api(tmp_path / "package", library="pkg"))
    assert {e.language for e in entries.values()} == {"typescript"}
    assert entries["pkg.lib.Schema.parse"].signature == "parse(data: unknown): T"
    assert entries["pkg.lib.types.email"].aliases == ["pkg.lib.email"]
    # JavaScript without declarations is still JavaScript
    (lib / "index.d.ts").unlink()
    (lib / "types.d.ts").unlink()
    assert detect_source_language(tmp_path / "package") == "javascript"


def test_a_module_exported_as_a_namespace_gives_its_names_that_path(tmp_path: Path) -> None:
    """zod's lib/index: `import * as z from "./external"; export { z }` (or `export * as z
    from`), and its package root `export * from "./lib"`: its docs call `z.string()`, which a
    tour found matched no API (0 of 162 examples)."""
    from docmentor.library.examples.matcher import match_examples
    from docmentor.library.models import Example
    from docmentor.library.surface.treesitter.surface import load_source_surface

    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "external.ts").write_text(
        "/** A string schema. */\nexport function string(): ZodString { return new ZodString(); }\n"
        "/** Strings. */\nexport class ZodString {\n  /** Check an email. */\n  email(): ZodString { return this; }\n}\n"
    )
    (lib / "index.ts").write_text(
        'import * as z from "./external";\nexport * from "./external";\nexport { z };\nexport default z;\n'
    )
    (lib / "more.ts").write_text('export * as y from "./external";\n')
    (tmp_path / "index.ts").write_text('export * from "./lib";\n')
    surface = load_source_surface(tmp_path, library="zod")
    string = surface.resolve("zod.z.string")  # through the root's `export *`
    assert string is not None and string.api_id == "zod.lib.external.string"
    assert "zod.lib.z.string" in string.aliases
    assert "zod.lib.more.y.ZodString.email" in surface.resolve("zod.ZodString.email").aliases  # type: ignore[union-attr]
    example = Example(
        example_id="e", title="t", code='import { z } from "zod";\nconst s = z.string().email();\n',
        language="typescript", source="s", path="p.md", line=1,
    )  # fmt: skip
    match_examples([example], surface, library="zod")
    assert example.apis_used == ["zod.lib.external.string", "zod.lib.external.ZodString.email"]


def test_one_file_tests_and_broken_sources(tmp_path: Path) -> None:
    one = load_source_api(FIXTURES / "ts" / "src" / "table.ts", library="lib")
    assert "lib.table.Table" in by_id(one)
    with_tests = by_id(load_source_api(FIXTURES / "ts", library="lib", include_tests=True))
    assert "lib.table.testOnly" in with_tests  # table.test.ts
    (tmp_path / "broken.ts").write_bytes(
        b"export function ok(a: string): void {}\nexport class {{{ \xff\xfe\n"
    )
    (tmp_path / "index.tsx").write_text("export const App = (p: Props): JSX.Element => <div>{p.x}</div>;\n")
    entries = by_id(load_source_api(tmp_path, library="lib"))
    assert "lib.broken.ok" in entries and "lib.App" in entries


def test_speed_a_few_ms_per_file(tmp_path: Path) -> None:
    source = (FIXTURES / "ts" / "src" / "connection.ts").read_text()
    for i in range(40):
        (tmp_path / f"m{i}.ts").write_text(source)
    load_source_api(FIXTURES / "ts", library="lib")  # grammars loaded
    start = time.perf_counter()
    entries = load_source_api(tmp_path, library="lib")
    per_file = (time.perf_counter() - start) / 40
    assert len(entries) == 40 * 13
    # a few ms a file on a quiet machine (17 ms with every core busy); loading the grammars again
    # for each file, what this guards against, costs far more; speed figures are benchmarks' job
    assert per_file < 0.05, f"{per_file * 1000:.1f} ms per file"


def test_smoke_lancedb_examples() -> None:
    examples = LANCEDB / "nodejs" / "examples"
    assert load_source_api(examples, library="lancedb") == []  # only *.test.ts files
    ts_entries = load_source_api(examples, library="lancedb", include_tests=True)
    assert len(ts_entries) < 10
    assert load_source_api(LANCEDB / "rust" / "lancedb" / "examples", library="lancedb") == []  # no pub items
    docs = load_source_api(LANCEDB / "docs" / "src", language="typescript", library="lancedb")
    assert all(e.language == "typescript" for e in docs)


def test_deprecated_tags_in_doc_comments(tmp_path: Path) -> None:
    (tmp_path / "index.ts").write_text(
        "/**\n * Open a table.\n * @deprecated use openTable instead\n */\n"
        "export function open(name: string): void {}\n"
        "/** Open a table by name. */\nexport function openTable(name: string): void {}\n"
    )
    (tmp_path / "go").mkdir()
    (tmp_path / "go" / "db.go").write_text(
        "package db\n\n// Connect opens a connection.\n//\n// Deprecated: use Open.\nfunc Connect() {}\n\n"
        "// Open opens a connection.\nfunc Open() {}\n"
    )
    ts_entries = by_id(load_source_api(tmp_path, library="lib", language="typescript"))
    assert ts_entries["lib.open"].deprecated == "use openTable instead"
    assert ts_entries["lib.openTable"].deprecated is None
    go_entries = by_id(load_source_api(tmp_path / "go", library="lib", language="go"))
    deprecated = {k: v.deprecated for k, v in go_entries.items() if v.deprecated}
    assert deprecated == {next(k for k in go_entries if k.endswith(".Connect")): "use Open."}


def test_generate_from_sources_reads_the_version_of_their_package_json(tmp_path: Path) -> None:
    """``readme-llm generate --source-path pkg/src``: the version is the project's
    (``pkg/package.json``), as ``add`` reads it for the docs; it was "unknown"."""
    from docmentor.engine import Docmentor
    from docmentor.library import generate

    project = tmp_path / "pkg"
    shutil.copytree(FIXTURES / "ts" / "src", project / "src")
    (project / "package.json").write_text('{"name": "fx", "version": "2.3.4"}', encoding="utf-8")
    engine = Docmentor(tmp_path / "index")
    try:
        result = generate(
            engine, library="fx", source=project / "src", out=tmp_path / "out", embeddings=False
        )
    finally:
        engine.close()
    assert result.version == "2.3.4"
    assert not any("version of fx is unknown" in w for w in result.warnings)


def test_a_const_naming_a_static_or_an_instances_method_is_a_function(tmp_path: Path) -> None:
    """zod's ``const stringType = ZodString.create`` (exported as ``string``) and immer's
    ``export const produce = immer.produce`` (``const immer = new Immer()``) are what users
    call: functions with the method's parameters and text, not data."""
    (tmp_path / "index.ts").write_text(
        "/** A string schema. */\nexport class ZodString {\n  /** Make a string schema. */\n"
        "  static create(params?: string): ZodString {\n    return new ZodString()\n  }\n}\n\n"
        "export class Immer {\n  /** Produce the next state. */\n"
        "  produce<T>(base: T, recipe: (draft: T) => void): T {\n    return base\n  }\n}\n\n"
        "const immer = new Immer()\nexport const produce = immer.produce\n"
        "export const bound = immer.produce.bind(immer)\nconst stringType = ZodString.create\n"
        "export { stringType as string }\nexport const other = Math.max\n"
        "export class ZodNumber {\n  /** Make a number schema. */\n"
        "  static create = (params?: string): ZodNumber => {\n    return new ZodNumber()\n  }\n}\n"
        "export const number = ZodNumber.create\n",
        encoding="utf-8",
    )
    by_id = {e.api_id: e for e in load_source_api(tmp_path, library="fx")}
    string = by_id["fx.string"]
    assert (string.kind, string.signature) == ("function", "string(params?: string): ZodString")
    assert [p.name for p in string.parameters] == ["params"] and string.description == "Make a string schema."
    produce = by_id["fx.produce"]
    assert (produce.kind, produce.signature) == (
        "function",
        "produce<T>(base: T, recipe: (draft: T) => void): T",
    )
    assert by_id["fx.bound"].kind == "function"
    assert by_id["fx.other"].kind == "attribute"  # Math's, not the library's
    assert by_id["fx.number"].signature == "number(params?: string): ZodNumber"  # an arrow field


def test_an_underscored_export_is_a_helper(tmp_path: Path) -> None:
    """zod exports ``_optional`` and ``_parseAsync`` beside ``optional`` and ``parseAsync``:
    by the convention a leading underscore marks, they are the library's building blocks, so
    the surface marks them internal helpers (find_api and README.LLM weigh them less), unless a
    path without the underscore exports them too."""
    (tmp_path / "api.ts").write_text(
        "/** Make a schema optional. */\nexport function _optional(x: string): string {\n  return x\n}\n"
        "/** Make a schema optional. */\nexport function optional(x: string): string {\n  return _optional(x)\n}\n"
        "/** Parse. */\nexport function _parse(x: string): string {\n  return x\n}\n",
        encoding="utf-8",
    )
    (tmp_path / "index.ts").write_text(
        'export * from "./api"\nexport { _parse as parse2 } from "./api"\n', encoding="utf-8"
    )
    by_id = {e.api_id: e for e in load_source_api(tmp_path, library="fx")}
    assert by_id["fx.api._optional"].internal == "helper"
    assert by_id["fx.api.optional"].internal is None
    assert by_id["fx.api._parse"].internal is None  # also exported as `parse2`


def test_ts_object_types_and_function_typed_consts(tmp_path: Path) -> None:
    """ky's ``.d.ts``: ``type KyInstance = { <T>(url): …; post: (url) => …; create(…): … }``
    was one attribute holding the whole type, and ``declare const addDays: (date: Date) =>
    Date`` data without parameters. The object type is a shape whose members are collected
    (a member typed as a function is a method; its call signature gives its parameters), the
    const a function; README.LLM calls the shape a type."""
    from docmentor.library.knowledge.readme import _description

    (tmp_path / "index.d.ts").write_text(
        "/** Add days.\n * @param date - the date\n */\n"
        "export declare const addDays: (date: Date, amount: number) => Date;\n"
        "/** The main instance. */\nexport type KyInstance = {\n  /** Fetch. */\n"
        "  <T>(url: string, options?: Options): Promise<T>;\n  /** POST. */\n"
        "  post: (url: string, options?: Options) => Promise<Response>;\n"
        "  create(defaults?: Options): KyInstance;\n  readonly stop: symbol;\n};\n"
        "export type Mode = 'a' | 'b';\nexport interface Options { timeout?: number }\n",
        encoding="utf-8",
    )
    by_id = {e.api_id: e for e in load_source_api(tmp_path, library="ky")}
    add = by_id["ky.addDays"]
    assert add.kind == "function" and [(p.name, p.description) for p in add.parameters] == [
        ("date", "the date"),
        ("amount", ""),
    ]
    assert add.returns is not None and add.returns.type == "Date"
    shape = by_id["ky.KyInstance"]
    assert (shape.kind, shape.signature) == ("class", "type KyInstance = {…}")
    assert [p.name for p in shape.parameters] == ["url", "options"]
    assert by_id["ky.KyInstance.post"].kind == "method" and by_id["ky.KyInstance.create"].kind == "method"
    assert by_id["ky.KyInstance.stop"].kind == "property"
    assert by_id["ky.Mode"].kind == "attribute"  # a union of literals stays a type value
    assert _description(shape, by_id).startswith("ky.KyInstance is a type. The main instance.")
    assert _description(by_id["ky.Options"], by_id).startswith("ky.Options is an interface.")


def test_a_default_import_is_the_modules_default_export(tmp_path: Path) -> None:
    """ky's README: ``import ky from 'ky'`` then ``ky.post(…)``; ky exports ``const ky =
    createInstance()`` as its default. The constant is typed by what the function returns, and
    the default import binds that export, so the README's examples credit ``KyInstance.post``
    (38 of its 42 examples credited nothing)."""
    (tmp_path / "index.ts").write_text(
        "/** The instance type. */\nexport type KyInstance = {\n  (url: string): Promise<Response>;\n"
        "  /** POST. */\n  post: (url: string, options?: object) => Promise<Response>;\n};\n"
        "export const createInstance = (): KyInstance => { return null as any };\n"
        "/** The default instance. */\nconst ky = createInstance();\nexport default ky;\n",
        encoding="utf-8",
    )
    (tmp_path / "other.d.ts").write_text(
        "import type { KyInstance } from './index';\ndeclare const up: KyInstance;\nexport default up;\n",
        encoding="utf-8",
    )
    s = load_source_surface(tmp_path, library="ky")
    made = s.by_id["ky.ky"].returns
    assert made is not None and made.class_id == "ky.KyInstance"  # by its maker's return type
    example = Example(
        example_id="r-1",
        title="t",
        code="import ky from 'ky';\nconst json = await ky.post('https://x.org', {json: {a: 1}}).json();\n",
        language="typescript",
        source="s",
        path="readme.md",
        line=1,
    )
    match_examples([example], s, library="ky")
    assert "ky.KyInstance.post" in example.apis_used


def test_ts_overloads_are_kept(tmp_path: Path) -> None:
    """``function parse(input: string): Date; function parse(input: number, opts?): Date``
    kept only the first form; every overload signature is kept (README.LLM's "Overloads:"),
    the implementation's own is not (it cannot be called from outside)."""
    (tmp_path / "index.ts").write_text(
        "/** Parse a date. */\nexport function parse(input: string): Date;\n"
        "export function parse(input: number, opts?: { utc: boolean }): Date;\n"
        "export function parse(input: any, opts?: any): Date {\n  return new Date(input);\n}\n"
        "export class Client {\n  send(path: string): void;\n  send(path: string, body: object): void;\n"
        "  send(path: string, body?: object): void {}\n}\n",
        encoding="utf-8",
    )
    by_id = {e.api_id: e for e in load_source_api(tmp_path, library="sy")}
    assert by_id["sy.parse"].overloads == [
        "function parse(input: string): Date",
        "function parse(input: number, opts?: { utc: boolean }): Date",
    ]
    assert by_id["sy.Client.send"].overloads == [
        "send(path: string): void",
        "send(path: string, body: object): void",
    ]
    assert by_id["sy.parse"].description == "Parse a date."
