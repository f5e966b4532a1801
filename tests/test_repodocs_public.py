"""What is public, and the names a document may use, by language, in repository documentation:
Go's capitalised names, Rust's ``pub`` (not ``pub(crate)``/``pub(super)``/``pub(in …)``; trait
methods with their trait), TypeScript/JavaScript exports (ES and CommonJS) and class members
that are not ``private``/``protected``/``#private``, recorded on the units, written into the
module documents and counted alike by the evaluator (1.000 on each fixture); Python's rule
unchanged; a name exported under another is an alias the graph follows. Each language's
globals/predeclared names/prelude known to the symbol check, an invented name or another
language's still failing."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from docmentor.repodocs.code_facts import read_facts
from docmentor.repodocs.evaluate import evaluate_docs
from docmentor.repodocs.evaluate_checks import CodeView, DocumentChecks
from docmentor.repodocs.generate import build_documents, document_repository
from docmentor.repodocs.graph import build_graph
from docmentor.repodocs.python_units import read_repository
from docmentor.repodocs.units import RepoUnits, is_public
from docmentor.repodocs.verify import SymbolTable, check_symbols, code_names, unit_file, unit_language

FIXTURES = Path(__file__).parent / "fixtures" / "repodocs_public"
SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
NAMES = ["ts_repo", "go_repo", "rust_repo"]


@pytest.fixture(scope="module")
def ts() -> RepoUnits:
    return read_repository(FIXTURES / "ts_repo")


@pytest.fixture(scope="module")
def go() -> RepoUnits:
    return read_repository(FIXTURES / "go_repo")


@pytest.fixture(scope="module")
def rust() -> RepoUnits:
    return read_repository(FIXTURES / "rust_repo")


def _public(units: RepoUnits) -> dict[str, bool]:
    return {c.id: is_public(c) for c in units.components}


# -- what is public, read with the units ----------------------------------------------------


def test_typescript_and_javascript_public_is_exported(ts: RepoUnits) -> None:
    public = _public(ts)
    assert not ts.problems
    # ES: export on the definition, export { a as b, c }, export default a, export = a
    for unit_id in ("shown", "listed", "plain", "fallback", "Account"):
        assert public[f"src.exports.{unit_id}"], unit_id
    assert not public["src.exports.hidden"] and not public["src.exports.Helper"]
    assert public["src.legacy.Legacy"] and not public["src.legacy.notExported"]
    # CommonJS: module.exports = { a, b: c }, module.exports.x = a / = function, exports.x = a
    for unit_id in ("total", "makeIt", "single", "direct"):
        assert public[f"src.cjs.{unit_id}"], unit_id
    assert not public["src.cjs.inner"]
    assert public["src.widget.Widget"] and not public["src.widget.helper"]
    assert public["src.entry.main"] and public["src.consumer.consume"]
    # members: public unless private, protected or #private; a member's rule is its own
    assert public["src.exports.Account.deposit"] and public["src.exports.Account.constructor"]
    for member in ("audit", "check", "#verify"):
        assert not public[f"src.exports.Account.{member}"], member
    assert public["src.exports.Helper.run"] and public["src.legacy.Legacy.run"]
    # every component carries the reader's decision
    assert all(c.public is not None for c in ts.components)


def test_names_exported_under_other_names_are_aliases_the_graph_follows(ts: RepoUnits) -> None:
    modules = {m.id: m for m in ts.modules}
    assert modules["src.exports"].aliases == (("renamed", "listed"), ("default", "fallback"))
    assert modules["src.cjs"].aliases == (("make", "makeIt"), ("one", "single"))
    graph = build_graph(ts)
    calls = {e.target for e in graph.edges if e.source == "src.consumer.consume" and e.kind == "calls"}
    assert calls == {"src.exports.listed", "src.cjs.makeIt", "src.cjs.single"}


def test_go_public_is_capitalised(go: RepoUnits) -> None:
    assert _public(go) == {
        "bank.format.Title": True,
        "bank.account.Account": True,
        "bank.account.Account.Deposit": True,
        "bank.account.Account.add": False,
        "bank.account.Open": True,
        "bank.account.describe": False,
        "bank.account.ledger": False,
        "bank.account.Élan": True,  # an upper-case letter outside ASCII
    }


def test_rust_public_is_pub(rust: RepoUnits) -> None:
    assert _public(rust) == {
        "src.ledger.Entry": True,
        "src.ledger.parent_only": False,  # pub(super)
        "src.ledger.pathed": False,  # pub(in crate::ledger)
        "src.ledger.private": False,
        "src.lib.Account": True,
        "src.lib.Account.bump": False,
        "src.lib.Account.fmt": True,  # impl fmt::Display for Account: no visibility of its own
        "src.lib.Account.new": True,
        "src.lib.Account.reset": False,  # pub(crate)
        "src.lib.Audit": True,
        "src.lib.Audit.audit": True,  # with its pub trait
        "src.lib.Secret": False,
        "src.lib.Secret.hide": False,  # with its private trait
        "src.lib.internal": False,  # pub(crate)
        "src.lib.open": True,
    }


def test_python_keeps_the_name_rule() -> None:
    units = read_repository(SAMPLE)
    assert units.components and all(c.public is None for c in units.components)
    assert {c.id for c in units.components if is_public(c)} == {
        c.id for c in units.components if not c.name.startswith("_")
    }


# -- the documents and the evaluator use it ------------------------------------------------


def _section(text: str, name: str) -> str:
    start = text.find(f"## {name}\n")
    if start == -1:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_module_documents_list_public_and_private_definitions_by_language() -> None:
    ts = build_documents(FIXTURES / "ts_repo").documents["src.exports"].text()
    public, private = _section(ts, "Public API"), _section(ts, "Private definitions")
    for name in ("shown", "listed", "plain", "fallback", "Account"):
        assert f"`src.exports.{name}`" in public and f"`src.exports.{name}`" not in private
    for name in ("hidden", "Helper"):
        assert f"`src.exports.{name}`" in private and f"`src.exports.{name}`" not in public
    go = build_documents(FIXTURES / "go_repo").documents["bank.account"].text()
    assert "`bank.account.Open`" in _section(go, "Public API")
    assert "`bank.account.describe`" in _section(go, "Private definitions")
    assert "`bank.account.ledger`" in _section(go, "Private definitions")
    rust = build_documents(FIXTURES / "rust_repo").documents
    ledger = rust["src.ledger"].text()
    assert "`src.ledger.Entry`" in _section(ledger, "Public API")
    for name in ("parent_only", "pathed", "private"):
        assert f"`src.ledger.{name}`" in _section(ledger, "Private definitions"), name
    assert "`src.lib.internal`" in _section(rust["src.lib"].text(), "Private definitions")


@pytest.mark.parametrize("name", NAMES)
def test_the_evaluator_agrees_with_the_writer(tmp_path: Path, name: str) -> None:
    repo = tmp_path / name
    shutil.copytree(FIXTURES / name, repo)
    document_repository(repo)
    ev = evaluate_docs(repo, repo / ".docmentor-docs")
    assert {m.name: m.value for m in ev.metrics} == dict.fromkeys(
        ("sections", "coverage", "signatures", "parameters", "symbols", "links"), 1.0
    ), [m.failures for m in ev.metrics]
    assert not ev.missing and not ev.unknown


def _checks(root: Path, unit_id: str, document: str, origin: str) -> DocumentChecks:
    units = read_repository(root)
    view = CodeView(root, units, build_graph(units), read_facts(root, units))
    checks = DocumentChecks()
    checks.unit(view, units.units()[unit_id], document, "model" if origin == "model" else "code")
    return checks


def test_coverage_asks_for_exactly_the_public_definitions() -> None:
    root = (FIXTURES / "go_repo").resolve()
    head = "## Role\n\nAccounts.\n\n## Components\n\n"
    exported = "- `Open`: opens.\n- `Account`: an account.\n- `Élan`: a name.\n"
    checks = _checks(root, "bank.account", head + exported, "model")
    assert checks.metric("coverage").value == 1.0  # describe and ledger are not asked for
    checks = _checks(root, "bank.account", head + "- `Open`: opens.\n- `Account`: an account.\n", "model")
    coverage = checks.metric("coverage")
    assert [f.what for f in coverage.failures] == [
        "public definition not under Components or Public API: bank.account.Élan"
    ]
    # a class's public methods: Deposit asked for under Methods, add (unexported) not
    doc = "## Summary\n\nAn account.\n\n## Methods\n\n- `Deposit`: adds.\n"
    assert _checks(root, "bank.account.Account", doc, "model").metric("coverage").value == 1.0
    rust = (FIXTURES / "rust_repo").resolve()
    doc = "## Summary\n\nAn account.\n\n## Methods\n\n- `new`: makes one.\n"
    failures = _checks(rust, "src.lib.Account", doc, "model").metric("coverage").failures
    assert [f.what for f in failures] == ["public method not under Methods: src.lib.Account.fmt"]


# -- the names a document may use, by language --------------------------------------------


def _table(root: Path) -> tuple[RepoUnits, SymbolTable]:
    units = read_repository(root)
    return units, SymbolTable(units, build_graph(units))


def _invented(findings: list[str]) -> list[str]:
    return [f.rsplit("`", 2)[-2] for f in findings]


def test_typescript_globals_are_known_and_invented_names_are_not() -> None:
    units, table = _table(FIXTURES / "ts_repo")
    unit = units.units()["src.exports.shown"]
    language = unit_language(unit)
    assert language == "typescript"
    doc = (
        "Returns a number; callers wrap it with `Promise.resolve()` or `Promise.all()`, log it with "
        "`console.log()`, check it with `Number.isFinite()` and `Array.isArray()`, serialise with "
        "`JSON.stringify()`, wait with `setTimeout()`; the type is `ReturnType`, not `Partial`. "
        "Invented: `makeWidgetFactory()`, `Vec::new()`, `fmt.Println()` and `this.nothingHere`."
    )
    findings = check_symbols(doc, table, (), language)
    assert _invented(findings) == ["makeWidgetFactory", "Vec.new", "fmt.Println", "this.nothingHere"]
    assert all("its imports or its language" in f for f in findings)
    # a JavaScript unit knows JavaScript's globals, not TypeScript's types
    js = unit_language(units.units()["src.cjs.total"])
    assert js == "javascript"
    assert _invented(check_symbols("`Promise.all()` and `ReturnType` and `Partial`", table, (), js)) == [
        "ReturnType",
        "Partial",
    ]
    # `this.x` is read as `x`: an attribute resolves, an invented member does not
    assert check_symbols("`this.balance`", table, (), language) == []


def test_go_predeclared_names_and_imported_packages_are_known() -> None:
    units, table = _table(FIXTURES / "go_repo")
    unit = units.units()["bank.account.Open"]
    language, path = unit_language(unit), unit_file(unit)
    assert (language, path) == ("go", "bank/account.go")
    doc = (
        "Builds the account; `fmt.Println()` and `errors.New()` (imported by its file), "
        "`append()`, `len()`, `make()`, `panic()` and `recover()` are Go's own. "
        "Invented: `make_buffer()`, `strings.ToUpper()` (imported by another file only), "
        "`Promise.all()`, `Vec::new()`."
    )
    findings = check_symbols(doc, table, (), language, path)
    assert _invented(findings) == ["make_buffer", "strings.ToUpper", "Promise.all", "Vec.new"]
    # in the file that imports it, or with no file given (any import counts), it resolves
    title = units.units()["bank.format.Title"]
    assert check_symbols("`strings.ToUpper()`", table, (), "go", unit_file(title)) == []
    assert check_symbols("`strings.ToUpper()`", table, (), "go") == []


def test_rust_prelude_and_std_paths_are_known() -> None:
    units, table = _table(FIXTURES / "rust_repo")
    language = unit_language(units.units()["src.lib.open"])
    assert language == "rust"
    doc = (
        "Returns an `Account` built by `Account::new()`; see `Vec::new()`, `String::from()`, "
        "`Some(value)`, `Ok(())`, `Box::new()`, `Option::is_some`, `std::mem::swap()`, "
        "`core::fmt::Display`, `Iterator::map`, `ToString::to_string` and std::mem::take(x) in prose. "
        "Invented: `HashMap::new()` (not in the prelude, not imported), `serde::Serialize`, "
        "`console.log()`, `open_vault()` and make_vault_key(x)."
    )
    findings = check_symbols(doc, table, (), language, "src/lib.rs")
    assert _invented(findings) == [
        "HashMap.new",
        "serde.Serialize",
        "console.log",
        "open_vault",
        "make_vault_key",
    ]
    # `use std::fmt;` makes `fmt::…` known in lib.rs, not in ledger.rs; a std path anywhere
    assert check_symbols("`fmt::Display`", table, (), "rust", "src/lib.rs") == []
    assert _invented(check_symbols("`fmt::Display`", table, (), "rust", "src/ledger.rs")) == ["fmt.Display"]
    assert check_symbols("`std::fmt::Display`", table, (), "rust", "src/ledger.rs") == []
    assert "std.mem.take" in code_names(doc)  # a Rust path in prose read with dots


def test_python_names_are_unchanged_and_other_languages_unknown() -> None:
    units, table = _table(SAMPLE)
    language = unit_language(next(iter(units.components)))
    assert language == "python"
    findings = check_symbols(
        "`isinstance()`, `os.path.join`, `console.log()`, `Vec::new()`", table, (), language
    )
    assert findings == [
        "names something that is not in the repository, its imports or Python: `console.log`",
        "names something that is not in the repository, its imports or Python: `Vec.new`",
    ]


def test_a_caller_that_names_no_language_gets_the_repository_languages() -> None:
    _, go_table = _table(FIXTURES / "go_repo")
    assert go_table.languages == ("go",)
    assert _invented(check_symbols("`append()` and `isinstance()`", go_table, ())) == ["isinstance"]
    _, ts_table = _table(FIXTURES / "ts_repo")
    assert ts_table.languages == ("javascript", "typescript")
    assert check_symbols("`Promise.all()` and `this.balance`", ts_table, ()) == []
    # the old two-argument call still works
    assert ts_table.resolves("Promise.all", frozenset())
    assert not ts_table.resolves("makeWidgetFactory", frozenset())


def test_the_evaluator_checks_symbols_by_the_unit_language() -> None:
    root = (FIXTURES / "rust_repo").resolve()
    doc = "## Summary\n\nOpens an account with `Account::new()` and `Vec::new()`; not `console.log()`.\n"
    symbols = _checks(root, "src.lib.open", doc, "model").metric("symbols")
    assert [f.what for f in symbols.failures] == ["names something that resolves nowhere: `console.log`"]
    assert symbols.checked == 3
    go = (FIXTURES / "go_repo").resolve()
    doc = "## Summary\n\nOpens one; `fmt.Sprintf()` formats it, `strings.ToUpper()` is another file's.\n"
    symbols = _checks(go, "bank.account.Open", doc, "model").metric("symbols")
    assert [f.what for f in symbols.failures] == ["names something that resolves nowhere: `strings.ToUpper`"]


def test_the_rust_path_scan_is_linear_on_hostile_text() -> None:
    _, table = _table(FIXTURES / "rust_repo")
    for doc in ("a::" * 100_000 + "(", "`" + "a::" * 60_000 + "`", ("x::y." * 50_000) + "(", ":" * 200_000):
        started = time.monotonic()
        check_symbols(doc, table, (), "rust")
        assert time.monotonic() - started < 2.0
