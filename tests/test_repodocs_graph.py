"""Repository documentation's units, graph and order (docmentor.repodocs), on the sample
repository in tests/fixtures/repodocs/sample, on generated repositories and on docmentor's
own src/."""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import replace
from pathlib import Path

import pytest

from docmentor.repodocs import build_graph, read_repository, traversal
from docmentor.repodocs.graph import Edge, Graph
from docmentor.repodocs.order import Traversal, strongly_connected
from docmentor.repodocs.python_units import discover
from docmentor.repodocs.units import Component, ImportRef, Parameter, RepoUnits, is_public

SAMPLE = Path(__file__).parent / "fixtures" / "repodocs" / "sample"
SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture(scope="module")
def sample() -> RepoUnits:
    return read_repository(SAMPLE)


@pytest.fixture(scope="module")
def graph(sample: RepoUnits) -> Graph:
    return build_graph(sample)


def components(units: RepoUnits) -> dict[str, Component]:
    return {c.id: c for c in units.components}


def edges(graph: Graph, kind: str) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in graph.edges if e.kind == kind}


# -- units ----------------------------------------------------------------------------------


def test_the_sample_units_have_their_ids(sample: RepoUnits) -> None:
    assert [p.id for p in sample.packages] == ["scripts/", "shop", "shop.sub"]
    assert [m.id for m in sample.modules] == [
        "checkout",
        "latin",
        "shop.__init__",
        "shop.models",
        "shop.pricing",
        "shop.sub.__init__",
        "shop.sub.even",
        "shop.sub.odd",
        "shop.util",
    ]
    assert set(components(sample)) == {
        "latin.greet",
        "shop.models.Base",
        "shop.models.Base.describe",
        "shop.models.Base.name_of",
        "shop.models.Item",
        "shop.models.Item.__init__",
        "shop.models.Item.describe",
        "shop.models.Item.label",
        "shop.models.Item.make",
        "shop.models.Money",
        "shop.pricing.total",
        "shop.pricing.make_item",
        "shop.pricing.discounted",
        "shop.pricing.fetch_prices",
        "shop.pricing.outer",  # its nested `inner` is part of it: no unit
        "shop.sub.even.is_even",
        "shop.sub.odd.is_odd",
        "shop.util.clamp",
        "shop.util.round2",
        "shop.util.logged",
    }
    assert sample.repository.id == "." and sample.repository.children == ("latin", "scripts/", "shop")
    packages = {p.id: p for p in sample.packages}
    assert packages["shop"].children == (
        "shop.__init__",
        "shop.models",
        "shop.pricing",
        "shop.sub",
        "shop.util",
    )
    assert packages["shop.sub"].parent == "shop" and packages["shop"].python_package
    assert packages["scripts/"].children == ("checkout",) and not packages["scripts/"].python_package
    modules = {m.id: m for m in sample.modules}
    assert modules["checkout"].package == "scripts/" and modules["shop.pricing"].package == "shop"
    assert modules["shop.models"].components == ("shop.models.Base", "shop.models.Item", "shop.models.Money")


def test_spans_signatures_and_hashes(sample: RepoUnits) -> None:
    c = components(sample)
    item = c["shop.models.Item"]
    assert (item.line_start, item.line_end, item.path) == (18, 35, "shop/models.py")
    assert item.signature == "class Item(Base)" and item.bases == ("Base",)
    assert item.init_signature == "(name: str, price: float = 0.0)"
    assert item.parameters == (
        Parameter("name", "positional_or_keyword", "str"),
        Parameter("price", "positional_or_keyword", "float", "0.0"),
    )
    assert item.members == (
        "shop.models.Item.__init__",
        "shop.models.Item.describe",
        "shop.models.Item.label",
        "shop.models.Item.make",
    )
    assert item.attributes == ("name", "price")
    assert item.docstring == "One thing for sale."
    assert c["shop.models.Base"].attributes == ("kind",)
    make = c["shop.models.Item.make"]
    assert (make.line_start, make.line_end, make.kind, make.method_kind) == (33, 35, "method", "class")
    assert make.signature == 'def make(cls, name: str) -> "Item"'  # as written, quotes and all
    money = c["shop.models.Money"]  # a dataclass: its fields are its __init__
    assert money.init_signature == '(amount: int, currency: str = "EUR")'
    assert c["shop.pricing.total"].signature == (
        "def total(items: list[m.Item], *, discount: float = 0.0) -> float"
    )
    assert c["shop.pricing.total"].parameters[1] == Parameter("discount", "keyword_only", "float", "0.0")
    assert c["shop.models.Item.label"].raises == ("ValueError",)
    # a decorated function's span starts at its decorator
    discounted = c["shop.pricing.discounted"]
    assert (discounted.line_start, discounted.line_end, discounted.decorators) == (18, 20, ("util.logged",))
    fetch = c["shop.pricing.fetch_prices"]
    assert fetch.is_async and fetch.signature.startswith("async def fetch_prices(names: list[str])")
    assert fetch.raises == ("LookupError",)
    # a nested function is part of its parent: its calls and raises are the parent's
    outer = c["shop.pricing.outer"]
    assert (outer.line_start, outer.line_end, outer.raises) == (30, 36, ("ValueError",))
    assert "util.clamp" in {call.name for call in outer.calls}
    lines = (SAMPLE / "shop/models.py").read_text(encoding="utf-8").split("\n")
    assert item.content_hash == hashlib.sha256("\n".join(lines[17:35]).encode()).hexdigest()
    module = {m.id: m for m in sample.modules}["shop.models"]
    text = (SAMPLE / "shop/models.py").read_text(encoding="utf-8")
    assert module.content_hash == hashlib.sha256(text.encode()).hexdigest()
    assert module.docstring == "The shop's records." and module.line_end == 41


def test_imports_are_recorded_with_relative_ones_resolved(sample: RepoUnits) -> None:
    modules = {m.id: m for m in sample.modules}
    assert modules["shop.pricing"].imports == (
        ImportRef("asyncio", None, None, 0, 3),
        ImportRef("shop.models", None, "m", 0, 4),
        ImportRef("shop", "util", None, 1, 5),
        ImportRef("shop.util", "clamp", "cl", 1, 6),
    )
    # a lazy import in a function is the module's and the function's
    lazy = ImportRef("shop.sub.even", "is_even", None, 1, 2)
    assert modules["shop.sub.odd"].imports == (lazy,)
    assert components(sample)["shop.sub.odd.is_odd"].imports == (lazy,)
    assert modules["shop.__init__"].imports == (ImportRef("shop.models", "Item", None, 1, 3),)


def test_files_that_cannot_be_read_are_problems_and_the_rest_is_read(sample: RepoUnits) -> None:
    problems = {p.path: p for p in sample.problems}
    assert set(problems) == {"blob.py", "broken.py", "latin.py"}
    assert problems["blob.py"].skipped and "binary" in problems["blob.py"].error
    assert problems["broken.py"].skipped and problems["broken.py"].error.startswith(
        "does not parse: SyntaxError"
    )
    assert "(line 1)" in problems["broken.py"].error
    # not UTF-8: read with replacement characters, reported, kept
    assert not problems["latin.py"].skipped and "replacement" in problems["latin.py"].error
    assert "latin.greet" in components(sample)


def test_what_is_skipped_and_the_size_cap(tmp_path: Path) -> None:
    for folder in (".hidden", ".venv", "venv", "node_modules", "build", "dist", "__pycache__", "pkg/.cache"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "x.py").write_text("def f():\n    pass\n", encoding="utf-8")
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "big.py").write_text("x = 1\n" * 200, encoding="utf-8")
    (tmp_path / "pkg" / "small.py").write_text("def g():\n    pass\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not python", encoding="utf-8")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.py"
    outside.write_text("def secret():\n    pass\n", encoding="utf-8")
    (tmp_path / "link.py").symlink_to(outside)
    (tmp_path / "pkg" / "a.py").symlink_to("b.py")  # a loop of links: a problem, not a crash
    (tmp_path / "pkg" / "b.py").symlink_to("a.py")
    files, problems = discover(tmp_path, max_bytes=1000)
    assert files == ["pkg/__init__.py", "pkg/small.py"]
    assert [(p.path, p.error) for p in problems] == [
        ("link.py", "a symlink to outside the repository"),
        ("pkg/a.py", "a symlink that never reaches a file (a loop)"),
        ("pkg/b.py", "a symlink that never reaches a file (a loop)"),
        ("pkg/big.py", "larger than the size cap (1200 > 1000 bytes)"),
    ]
    units = read_repository(tmp_path, max_bytes=1000)
    assert [c.id for c in units.components] == ["pkg.small.g"]
    assert len(units.problems) == 4
    with pytest.raises(NotADirectoryError):
        read_repository(tmp_path / "notes.txt")


def test_encodings_a_bom_and_a_coding_line(tmp_path: Path) -> None:
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfdef f() -> str:\n    return '\xc3\xa9'\n")
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\ndef g(x='\xe9'):\n    return x\n")
    (tmp_path / "odd.py").write_bytes(b"# coding: no-such-codec\ndef h():\n    pass\n")
    (tmp_path / "nul.py").write_bytes(b"def f():\n    return 1\n\x00")
    units = read_repository(tmp_path)
    c = components(units)
    assert c["latin.g"].parameters[0].default == "'é'"
    assert c["bom.f"].line_start == 1
    assert [(p.path, p.skipped) for p in units.problems] == [("nul.py", True), ("odd.py", False)]
    assert "unknown encoding" in units.problems[1].error and "odd.h" in c


def test_ids_are_qualified_when_two_roots_share_a_name_and_duplicates_are_numbered(tmp_path: Path) -> None:
    files = {
        "tests/conftest.py": "def fixture():\n    pass\n",
        "tests/test_a.py": "import conftest\n\ndef test_a():\n    conftest.fixture()\n",
        "benchmarks/conftest.py": "def fixture():\n    pass\n",
        "pkg/__init__.py": "",
        "pkg/ns/deep.py": "from ..top import T\n\ndef d():\n    return T().v\n",
        "pkg/top.py": (
            "class T:\n    @property\n    def v(self):\n        return 1\n\n"
            "    @v.setter\n    def v(self, value):\n        self._v = value\n"
        ),
        "pkg/climb.py": "from ... import nothing\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    units = read_repository(tmp_path)
    assert [m.id for m in units.modules] == [
        "benchmarks:conftest",
        "pkg.__init__",
        "pkg.climb",
        "pkg.ns.deep",  # a folder without __init__.py inside a package: a namespace sub-package
        "pkg.top",
        "test_a",
        "tests:conftest",
    ]
    assert [p.id for p in units.packages] == ["benchmarks/", "pkg", "pkg.ns", "tests/"]
    assert set(components(units)) == {
        "benchmarks:conftest.fixture",
        "tests:conftest.fixture",
        "test_a.test_a",
        "pkg.ns.deep.d",
        "pkg.top.T",
        "pkg.top.T.v",
        "pkg.top.T.v#2",  # the setter
    }
    assert components(units)["pkg.top.T.v"].method_kind == "property"
    graph = build_graph(units)
    # an ambiguous import name resolves in the importer's own root first
    assert ("test_a.test_a", "tests:conftest.fixture") in edges(graph, "calls")
    assert ("pkg.ns.deep.d", "pkg.top.T") in edges(graph, "calls")
    assert {m.id: m for m in units.modules}["pkg.climb"].imports[0].target == "..."


def test_overload_stubs_are_the_overloads_of_their_implementation(tmp_path: Path) -> None:
    """`@overload` stubs are listed on the function implemented after them, not units of
    their own; a class's constructor is the implementation's; stubs with no implementation
    (a stub file, a Protocol) stay units (a repo-docs tour: six units, the implementation
    `#6`, the constructor the first stub's signature)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "import typing as t\nfrom typing import overload\n\n"
        "class S:\n"
        "    @t.overload\n    def __init__(self, key: str) -> None: ...\n"
        "    @t.overload\n    def __init__(self, key: bytes, salt: str) -> None: ...\n"
        "    def __init__(self, key, salt=None):\n        self.key = key\n\n"
        "@overload\ndef make(x: int) -> int: ...\n@overload\ndef make(x: str) -> str: ...\n"
        "def make(x):\n    return x\n\n"
        "def user():\n    return make(1)\n\n"
        "class P(t.Protocol):\n    @overload\n    def get(self, i: int) -> int: ...\n"
        "    @overload\n    def get(self, i: str) -> str: ...\n",
        encoding="utf-8",
    )
    units = read_repository(tmp_path)
    found = components(units)
    assert set(found) == {
        "pkg.__init__.S", "pkg.__init__.S.__init__", "pkg.__init__.make", "pkg.__init__.user",
        "pkg.__init__.P", "pkg.__init__.P.get", "pkg.__init__.P.get#2",
    }  # fmt: skip
    make = found["pkg.__init__.make"]
    assert make.signature == "def make(x)" and make.decorators == ()
    assert make.overloads == ("def make(x: int) -> int", "def make(x: str) -> str")
    assert (make.line_start, make.line_end) == (12, 17)  # from the first stub: editing one changes it
    assert found["pkg.__init__.S"].init_signature == "(key, salt=None)"
    assert len(found["pkg.__init__.S.__init__"].overloads) == 2
    assert ("pkg.__init__.user", "pkg.__init__.make") in edges(build_graph(units), "calls")
    from docmentor import generate_repo_docs

    generate_repo_docs(None, tmp_path, out=tmp_path / "tree", register=False)
    page = (tmp_path / "tree" / "modules" / "pkg.__init__.md").read_text(encoding="utf-8")
    assert "#### Overloads\n\n```python\ndef make(x: int) -> int\ndef make(x: str) -> str\n```" in page


def test_a_packages_all_re_exports_are_linked_to_their_definitions(tmp_path: Path) -> None:
    """`from ._client import *` and `from ._models import Request` with an `__all__` naming
    them: the module page and its package's list what `__all__` re-exports, in its order,
    linked to where each is defined (a repo-docs tour on httpx: its package page named no
    API, its `__init__` only its fallback `main`)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "from ._client import *\nfrom ._models import Request as Request\n\n"
        '__all__ = ["Client", "Request", "main", "Missing"]\n\ndef main():\n    pass\n',
        encoding="utf-8",
    )
    (pkg / "_client.py").write_text(
        '__all__ = ["Client"]\n\nclass Client:\n    """A client."""\n', encoding="utf-8"
    )
    (pkg / "_models.py").write_text('class Request:\n    """A request."""\n', encoding="utf-8")
    units = read_repository(tmp_path)
    graph = build_graph(units)
    assert graph.exports == {
        "pkg.__init__": (("Client", "pkg._client.Client"), ("Request", "pkg._models.Request"))
    }
    from docmentor import generate_repo_docs

    generate_repo_docs(None, tmp_path, out=tmp_path / "tree", register=False)
    module = (tmp_path / "tree" / "modules" / "pkg.__init__.md").read_text(encoding="utf-8")
    assert (
        "## Re-exported\n\n- Client: [`pkg._client.Client`](../modules/pkg._client.md#c-Client)\n" in module
    )
    package = (tmp_path / "tree" / "packages" / "pkg.md").read_text(encoding="utf-8")
    assert "## Public API\n\nWhat `pkg.__init__` re-exports:\n\n- Client:" in package


def test_calls_on_objects_whose_type_the_code_states(tmp_path: Path) -> None:
    """A call on a parameter or a local whose type the code states — an annotation, a class
    called, a function or method whose return is annotated, `with X() as x` — is the
    method's call (a repo-docs tour on httpx: `transport.handle_request(request)` after
    `transport = self._transport_for_url(url)` was in no call list); a name bound two ways,
    or a container's annotation, says nothing."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "transports.py").write_text(
        "class Transport:\n    def handle(self, request):\n        return request\n\n"
        "class Mock(Transport):\n    pass\n",
        encoding="utf-8",
    )
    (pkg / "client.py").write_text(
        "from typing import Optional\n"
        "from .transports import Transport, Mock\n\n"
        "def make() -> 'Transport':\n    return Transport()\n\n"
        "class Client:\n"
        "    def _pick(self, url) -> Optional[Transport]:\n        return Transport()\n\n"
        "    def send(self, request):\n        transport = self._pick(request)\n        return transport.handle(request)\n\n"
        "    def close(self):\n        pass\n\n"
        "    def __enter__(self):\n        return self\n\n"
        "    def __exit__(self, *args):\n        pass\n\n"
        "def by_param(t: Transport | None, r):\n    return t.handle(r)\n\n"
        "def by_factory(r):\n    t = make()\n    return t.handle(r)\n\n"
        "def by_class(r):\n    m = Mock()\n    return m.handle(r)\n\n"
        "def by_with():\n    with Client() as c:\n        c.close()\n\n"
        "def two_ways(r, flag):\n    t = Mock()\n    if flag:\n        t = object()\n    return t.handle(r)\n\n"
        "def rebound(r, other):\n    t = Mock()\n    if r:\n        t = other\n    return t.handle(r)\n\n"
        "def looped(ts, r):\n    t = Mock()\n    for t in ts:\n        pass\n    return t.handle(r)\n\n"
        "def listed(ts: list[Transport], r):\n    return ts.handle(r)\n",
        encoding="utf-8",
    )
    calls = edges(build_graph(read_repository(tmp_path)), "calls")
    handle = "pkg.transports.Transport.handle"
    for caller in ("Client.send", "by_param", "by_factory", "by_class"):
        assert (f"pkg.client.{caller}", handle) in calls, caller  # Mock inherits it
    assert ("pkg.client.by_with", "pkg.client.Client.close") in calls
    unknown = ("pkg.client.two_ways", "pkg.client.listed", "pkg.client.rebound", "pkg.client.looped")
    assert not {c for c, t in calls if t == handle and c in unknown}


def test_files_given_by_the_caller_are_checked(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "mod").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "mod" / "__init__.py").write_text("def f():\n    pass\n", encoding="utf-8")
    (tmp_path / "pkg" / "mod.py").write_text("def g():\n    pass\n", encoding="utf-8")
    (tmp_path / "big.py").write_text("#" * 50, encoding="utf-8")
    given = ["pkg/__init__.py", "pkg/mod/__init__.py", "pkg/mod.py", "../x.py", "gone.py", "big.py", "a.txt"]
    units = read_repository(tmp_path, files=given, max_bytes=40)
    assert [c.id for c in units.components] == ["pkg.mod.__init__.f"]
    assert [(p.path, p.error) for p in units.problems] == [
        ("../x.py", "not a .py file inside the repository"),
        ("a.txt", "not a .py file inside the repository"),
        ("big.py", "larger than the size cap (50 > 40 bytes)"),
        ("gone.py", "no such file"),
        ("pkg/mod.py", "hidden by the package pkg/mod/ (Python imports the package)"),
    ]


def test_a_folder_beside_a_module_of_its_name_is_no_namespace_package(tmp_path: Path) -> None:
    for rel in ("pkg/__init__.py", "pkg/data.py", "pkg/data/helper.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("def f():\n    pass\n", encoding="utf-8")
    units = read_repository(tmp_path)
    assert [m.id for m in units.modules] == ["helper", "pkg.__init__", "pkg.data"]
    assert [p.id for p in units.packages] == ["pkg", "pkg/data/"]


# -- the graph ------------------------------------------------------------------------------


def test_calls_through_self_super_aliases_imports_and_constructors(graph: Graph) -> None:
    calls = edges(graph, "calls")
    expected = {
        # self. to the enclosing class's own method, and to an in-repo base's
        ("shop.models.Base.describe", "shop.models.Base.name_of"),
        ("shop.models.Item.describe", "shop.models.Item.label"),
        ("shop.models.Item.describe", "shop.models.Base.describe"),  # super().describe()
        # cls(name) in a classmethod: the class and its __init__
        ("shop.models.Item.make", "shop.models.Item"),
        ("shop.models.Item.make", "shop.models.Item.__init__"),
        # through `import shop.models as m`: a constructor call
        ("shop.pricing.make_item", "shop.models.Item"),
        ("shop.pricing.make_item", "shop.models.Item.__init__"),
        # `from .util import clamp as cl` and `from . import util`
        ("shop.pricing.total", "shop.util.clamp"),
        ("shop.pricing.total", "shop.util.round2"),
        ("shop.pricing.outer", "shop.util.clamp"),  # from its nested function
        # a decorator is called with what it decorates
        ("shop.pricing.discounted", "shop.util.logged"),
        ("shop.pricing.discounted", "shop.util.clamp"),
        # mutual recursion across two modules (a lazy relative import in one)
        ("shop.sub.even.is_even", "shop.sub.odd.is_odd"),
        ("shop.sub.odd.is_odd", "shop.sub.even.is_even"),
        # a script's module-level code, through the package's re-export of Item
        ("checkout", "shop.pricing.total"),
        ("checkout", "shop.models.Item"),
        ("checkout", "shop.models.Item.__init__"),
    }
    assert calls == expected


def test_imports_inheritance_and_containment(graph: Graph) -> None:
    assert edges(graph, "imports") == {
        ("checkout", "shop.__init__"),
        ("checkout", "shop.pricing"),
        ("shop.__init__", "shop.models"),
        ("shop.pricing", "shop.models"),
        ("shop.pricing", "shop.util"),
        ("shop.sub.even", "shop.sub.odd"),  # `from shop.sub import odd`: the module
        ("shop.sub.odd", "shop.sub.even"),
    }
    assert edges(graph, "inherits") == {("shop.models.Item", "shop.models.Base")}
    contains = edges(graph, "contains")
    for pair in [
        (".", "shop"),
        (".", "scripts/"),
        (".", "latin"),
        ("shop", "shop.sub"),
        ("shop", "shop.models"),
        ("shop.sub", "shop.sub.odd"),
        ("scripts/", "checkout"),
        ("shop.models", "shop.models.Item"),
        ("shop.models.Item", "shop.models.Item.make"),
    ]:
        assert pair in contains
    # every parent → child once: the repository 3, shop 5, shop.sub 3, scripts/ 1, latin 1,
    # shop.models 3 (Base 2, Item 4), shop.pricing 5, even 1, odd 1, util 3
    assert len(contains) == 3 + 5 + 3 + 1 + 1 + 3 + 2 + 4 + 5 + 1 + 1 + 3


def test_outside_the_repository_is_kept_by_name(graph: Graph) -> None:
    assert graph.external == {
        "shop.models": ("dataclasses.dataclass",),
        "shop.models.Money": ("dataclasses.dataclass",),
        "shop.pricing": ("asyncio",),
        "shop.pricing.fetch_prices": ("asyncio.sleep",),
        "shop.util": ("functools",),
        "shop.util.logged": ("functools.wraps",),
    }
    # builtins (sum, max, round, ValueError) and locals (fn, inner) are neither edges nor references
    assert not any(e.target in {"sum", "max", "fn", "inner"} for e in graph.edges)


def test_aliases_star_imports_inherited_init_nested_classes_and_recursion(tmp_path: Path) -> None:
    files = {
        "lib/__init__.py": "",
        "lib/core.py": (
            "class Base:\n    def __init__(self, x):\n        self.x = x\n\n"  # 1-4
            "class Sub(Base):\n    class Meta:\n        def tag(self):\n            return selfish()\n\n"  # 5-9
            "    def go(self):\n        self.x.strip()\n        return self.Meta().tag()\n\n"  # 10-13
            "Alias = Sub\nLoop = Loop2\nLoop2 = Loop\n\n"  # 14-17
            "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n\n"  # 18-20
            "def selfish():\n    pass\n"
        ),
        "lib/use.py": (
            "from lib.core import *\nfrom lib import core\n\n"
            "def build():\n    core.Alias(1)\n    Loop()\n    return fact(3)\n"
        ),
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    units = read_repository(tmp_path)
    assert "lib.core.Sub.Meta.tag" in components(units)
    assert components(units)["lib.core.Sub"].members == ("lib.core.Sub.Meta", "lib.core.Sub.go")
    graph = build_graph(units)
    calls = edges(graph, "calls")
    # an alias of a class, through a module; its __init__ inherited from an in-repo base
    assert ("lib.use.build", "lib.core.Sub") in calls
    assert ("lib.use.build", "lib.core.Base.__init__") in calls
    assert ("lib.use.build", "lib.core.fact") in calls  # through the star import
    assert ("lib.core.fact", "lib.core.fact") in calls  # recursion
    assert ("lib.core.Sub.Meta.tag", "lib.core.selfish") in calls  # a name that starts with "self"
    # self.Meta(): the nested class; self.x.strip(): what x holds is not known; a loop of
    # aliases (Loop = Loop2, Loop2 = Loop) ends unresolved
    assert {t for s, t in calls if s == "lib.core.Sub.go"} == {"lib.core.Sub.Meta"}
    assert not any(t.startswith("lib.core.Loop") for _, t in calls)
    assert [e.target for e in graph.dependencies("lib.core.Sub")] == [
        "lib.core.Base",
        "lib.core.Sub.Meta",
        "lib.core.Sub.go",
    ]
    assert {e.source for e in graph.dependents("lib.core.fact")} == {
        "lib.core",
        "lib.core.fact",
        "lib.use.build",
    }
    order = traversal(graph)
    check_order(graph, order)
    assert ("lib.core.fact",) in order.cycles
    assert Edge("lib.core.fact", "lib.core.fact", "calls", 19) in order.dropped


def test_a_root_that_is_itself_a_package(tmp_path: Path) -> None:
    root = tmp_path / "mylib"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from mylib.core import f\n", encoding="utf-8")
    (root / "core.py").write_text("def f():\n    pass\n", encoding="utf-8")
    (root / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (root / "sub" / "use.py").write_text("import mylib\n\ndef g():\n    mylib.f()\n", encoding="utf-8")
    units = read_repository(root)
    assert units.repository.package_name == "mylib"
    assert [m.id for m in units.modules] == ["__init__", "core", "sub.__init__", "sub.use"]
    graph = build_graph(units)
    assert edges(graph, "imports") == {("__init__", "core"), ("sub.use", "__init__")}
    assert edges(graph, "calls") == {("sub.use.g", "core.f")}  # re-exported by the root's __init__
    assert graph.external == {}


# -- the order ------------------------------------------------------------------------------


def check_order(graph: Graph, order: Traversal) -> None:
    """Every rule of the traversal, for every edge, except the dropped cycle edges."""
    assert sorted(order.order) == sorted(graph.units)
    assert order.order[-1] == "."
    position = order.position()
    dropped = set(order.dropped)
    assert all(e.kind != "contains" for e in dropped)
    for e in graph.edges:
        if e not in dropped:
            assert position[e.target] < position[e.source], e
    # a dropped edge lies inside a cycle
    in_cycle = {unit: k for k, cycle in enumerate(order.cycles) for unit in cycle}
    for e in dropped:
        assert in_cycle[e.source] == in_cycle[e.target]
    # the levels: the same units; no kept edge inside a level, every kept edge points lower
    assert sorted(u for level in order.levels for u in level) == sorted(order.order)
    level_of = {u: k for k, level in enumerate(order.levels) for u in level}
    for e in graph.edges:
        if e not in dropped:
            assert level_of[e.target] < level_of[e.source], e


def test_the_order_respects_every_rule(graph: Graph, sample: RepoUnits) -> None:
    order = traversal(graph)
    check_order(graph, order)
    assert order.cycles == (
        ("shop.models.Item.make", "shop.models.Item"),
        ("shop.sub.even.is_even", "shop.sub.odd.is_odd"),
        ("shop.sub.even", "shop.sub.odd"),
    )
    # the rule: inside a cycle, the unit with the fewest open dependencies first (a class after
    # its methods), ties by where the code ends (path, last line); its open edges are dropped
    assert order.dropped == (
        Edge("shop.models.Item.make", "shop.models.Item", "calls", 35),
        Edge("shop.sub.even", "shop.sub.odd", "imports", 1),
        Edge("shop.sub.even.is_even", "shop.sub.odd.is_odd", "calls", 5),
    )
    position = order.position()
    # the hierarchy, spelled out: components → module → package → repository
    for c in sample.components:
        assert position[c.id] < position[c.module]
    for m in sample.modules:
        assert position[m.id] < position[m.package]
    for p in sample.packages:
        assert position[p.id] < position[p.parent]
    assert position["shop.models.Base"] < position["shop.models.Item"]  # base before subclass
    assert position["shop.util.clamp"] < position["shop.pricing.total"]  # callee before caller
    assert order.levels[-1] == (".",)


def shuffled(units: RepoUnits, seed: int) -> RepoUnits:
    rng = random.Random(seed)

    packages, modules, parts = list(units.packages), list(units.modules), list(units.components)
    for items in (packages, modules, parts):
        rng.shuffle(items)
    return replace(units, packages=tuple(packages), modules=tuple(modules), components=tuple(parts))


def test_the_order_is_the_same_every_run_and_whatever_the_discovery_order(sample: RepoUnits) -> None:
    first = traversal(build_graph(sample))
    files, _ = discover(SAMPLE)
    for seed in range(3):
        rng = random.Random(seed)
        order = list(files)
        rng.shuffle(order)
        again = read_repository(SAMPLE, files=order)
        assert again.components == sample.components and again.modules == sample.modules
        graph = build_graph(shuffled(again, seed))
        assert graph.edges == build_graph(sample).edges
        assert traversal(graph) == first


def test_tarjan_is_iterative_and_finds_the_components() -> None:
    n = 50_000  # a chain this deep would pass Python's recursion limit many times over
    chain = {str(i): [str(i + 1)] for i in range(n - 1)}
    chain[str(n - 1)] = ["0"]  # one cycle through all of it
    found = strongly_connected([str(i) for i in range(n)], chain)
    assert len(found) == 1 and len(found[0]) == n
    graph = {"a": ["b"], "b": ["a", "c"], "c": ["d"], "d": ["c"], "e": ["e"], "f": []}
    parts = strongly_connected(sorted(graph), graph)
    assert sorted(sorted(p) for p in parts) == [["a", "b"], ["c", "d"], ["e"], ["f"]]
    # dependencies first: c/d comes out before a/b, which depends on it
    where = {node: i for i, part in enumerate(parts) for node in part}
    assert where["c"] < where["a"]


# -- scale and docmentor itself ---------------------------------------------------------------


def generate(root: Path, modules: int = 100, functions: int = 20) -> None:
    """``modules`` modules of ``functions`` functions in 10 packages; each function calls one
    in the next module (through an import), each module has a class hierarchy, and the last
    module calls back into the first (a cycle across the whole repository)."""
    for k in range(modules):
        package = root / "gen" / f"p{k // 10}"
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").touch()
        (root / "gen" / "__init__.py").touch()
        nxt = (k + 1) % modules
        lines = [f"from gen.p{nxt // 10} import m{nxt} as nxt", ""]
        for f in range(functions - 4):
            lines += [f"def f{f}(x: int, y: int = {f}) -> int:", f"    return nxt.f{f}(x) + helper{k}(y)", ""]
        lines += [
            f"def helper{k}(v: int) -> int:",
            "    if v < 0:",
            "        raise ValueError(v)",
            "    return v",
            "",
        ]
        lines += [
            "class A:",
            "    def run(self):",
            "        return self.step()",
            "",
            "    def step(self):",
            "        return 1",
            "",
        ]
        lines += ["class B(A):", "    def step(self):", "        return super().step() + f0(1)", ""]
        (package / f"m{k}.py").write_text("\n".join(lines), encoding="utf-8")


def test_a_generated_repository_of_2000_functions_is_read_and_ordered_fast(tmp_path: Path) -> None:
    generate(tmp_path)
    started = time.perf_counter()
    units = read_repository(tmp_path)
    graph = build_graph(units)
    order = traversal(graph)
    elapsed = time.perf_counter() - started
    functions = [c for c in units.components if c.kind in ("function", "method")]
    assert len(units.modules) == 100 + 11 and len(functions) == 100 * 20 and not units.problems
    assert elapsed < 10.0, f"{elapsed:.1f} s"
    check_order(graph, order)
    assert ("gen.p0.m0.f3", "gen.p0.m1.f3") in edges(graph, "calls")
    assert ("gen.p9.m99.B", "gen.p9.m99.A") in edges(graph, "inherits")
    # each ring of calls through the 100 modules (f0 … f15, and the modules' imports) loses one edge
    assert len(order.cycles) == 17 and all(len(c) == 100 for c in order.cycles)
    assert len(order.dropped) == 17
    assert ("gen.p0.m0.f3", "gen.p0.m1.f3") in {(e.source, e.target) for e in order.dropped}


def test_docmentor_itself_is_read_with_no_problem_and_ordered() -> None:
    units = read_repository(SRC)
    assert units.problems == ()
    assert {p.id for p in units.packages} >= {"docmentor", "docmentor.repodocs", "docmentor.store"}
    c = components(units)
    assert c["docmentor.repodocs.order.strongly_connected"].signature == (
        "def strongly_connected(nodes: Sequence[str], successors: Mapping[str, Sequence[str]]) -> list[list[str]]"
    )
    graph = build_graph(units)
    order = traversal(graph)
    check_order(graph, order)
    calls = edges(graph, "calls")
    assert ("docmentor.repodocs.order.traversal", "docmentor.repodocs.order.strongly_connected") in calls
    assert ("docmentor.repodocs.__init__", "docmentor.repodocs.graph") in edges(graph, "imports")


def test_a_modules_all_says_what_is_public_and_a_bare_raise_raises_what_it_caught(tmp_path: Path) -> None:
    """humanize's ``time.py`` leaves ``Unit`` out of its ``__all__``: not public API, though
    its name has no underscore. ``naturaldelta``'s bare ``raise`` in ``except OverflowError``
    raises that error."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "time.py").write_text(
        '__all__ = ["naturaldelta"]\n\n\nclass Unit:\n    """A unit."""\n\n\n'
        "def naturaldelta(value):\n    try:\n        return int(value)\n"
        "    except (OverflowError, ValueError):\n        raise\n\n\ndef helper():\n    pass\n",
        encoding="utf-8",
    )
    (tmp_path / "pkg" / "plain.py").write_text("class Shown:\n    pass\n\n\ndef _hidden():\n    pass\n")
    units = read_repository(tmp_path)
    by_name = {c.name: c for c in units.components}
    assert [n for n in ("Unit", "naturaldelta", "helper", "Shown", "_hidden") if is_public(by_name[n])] == [
        "naturaldelta",
        "Shown",
    ]
    assert by_name["naturaldelta"].raises == ("OverflowError", "ValueError")
    # a clean-up's `except BaseException: …; raise` and a nested handler's own raise: not theirs
    (tmp_path / "pkg" / "io.py").write_text(
        '__all__: list[str] = ["load"]\n__all__ += ["save"]\n\n\n'
        "def load(d):\n    try:\n        return d['k']\n    except KeyError:\n        try:\n"
        "            return int(d)\n        except ValueError:\n            raise\n\n\n"
        "def save(f):\n    try:\n        f.write('x')\n    except BaseException:\n        f.close()\n        raise\n",
        encoding="utf-8",
    )
    io = {c.name: c for c in read_repository(tmp_path).components if c.module.endswith("io")}
    assert io["load"].raises == ("ValueError",) and io["save"].raises == ()
    assert is_public(io["load"]) and is_public(io["save"])
