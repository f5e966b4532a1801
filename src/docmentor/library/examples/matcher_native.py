"""Which APIs a Go or Rust example uses, by the names it writes (no type inference).

The TypeScript/JavaScript and Python matchers follow values through the code; these two read
what the code names, which is most of what a Go or Rust example shows:

- Go: the packages it imports (``cobra``, ``doc`` of ``github.com/spf13/cobra/doc``; the
  library's own name when a snippet shows no import), their exported names (``cobra.Command``),
  variables declared of their types (``cmd := &cobra.Command{…}``, ``cmd *cobra.Command``) and
  those variables' methods (``cmd.AddCommand(…)``).
- Rust: ``use`` declarations of the crate (``use anyhow::{Context, Result}``), paths from the
  crate or an imported name (``anyhow::Error::msg``, ``Error::msg``), macros (``bail!(…)``,
  ``anyhow::anyhow!(…)``) and the imported names wherever they appear.
- Both: a method called on a value of unknown type (``.with_context(…)``) when exactly one of
  the library's types has a method of that name and the example uses the library otherwise.

Comments and string literals are left out first; every pattern runs in linear time.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from docmentor.library.examples.matcher_core import ApiSurfaceLike
from docmentor.library.models import ApiEntry

__all__ = ["NATIVE_LANGUAGES", "NativeMatcher"]

NATIVE_LANGUAGES = frozenset({"go", "rust"})

# comments and string literals in one left-to-right pass: a `/*` inside a string is the
# string's (a router's "/static/*filepath"), a quote inside a comment the comment's
_GO_NOISE = re.compile(
    r"(?P<comment>//[^\n]*+|/\*(?:[^*]|\*(?!/))*+(?:\*/)?)|(?P<string>\"(?:[^\"\\\n]|\\.)*+\"?|`[^`]*+`?)"
)
_RUST_NOISE = re.compile(
    r"(?P<comment>//[^\n]*+|/\*(?:[^*]|\*(?!/))*+(?:\*/)?)|(?P<string>\"(?:[^\"\\]|\\.)*+\"?)"
    r"|(?P<char>'(?:[^'\\\n]|\\.)')"
)
_GO_IMPORT_ONE = re.compile(r"\bimport\s++(?:([A-Za-z_]\w*+|\.)\s++)?\"([^\"\n]++)\"")
_GO_IMPORT_BLOCK = re.compile(r"\bimport\s*+\(([^)]*+)\)?")  # unclosed: to the end, once (linear)
_GO_IMPORT_LINE = re.compile(r"(?:([A-Za-z_]\w*+|\.)\s++)?\"([^\"\n]++)\"")
_GO_SELECTOR = re.compile(r"\b([A-Za-z_]\w*+)\.([A-Z]\w*+)")
# `cmd := &cobra.Command{`, `var cmd = cobra.Command{`, `cmd *cobra.Command`, `c := cobra.NewX(`
_GO_TYPED = re.compile(r"\b([A-Za-z_]\w*+)\s*+(?::=|=)?\s*+[&*]?\s*+([A-Za-z_]\w*+)\.([A-Z]\w*+)\s*+([{(]?)")
_GO_LITERAL = re.compile(r"\b([A-Za-z_]\w*+)\.([A-Z]\w*+)\s*+\{")
_GO_KEY = re.compile(r"\b([A-Z]\w*+)\s*+:(?!=)")
_MAX_PATH = 8  # segments of a Rust path looked up (an API is named by far fewer)
_GO_METHOD = re.compile(r"\b([A-Za-z_]\w*+)\.([A-Z]\w*+)\s*+\(")
_RUST_USE = re.compile(
    r"\buse\s++([A-Za-z_]\w*+(?:::[A-Za-z_]\w*+)*+)(?:::\{([^{}]*+)\})?(?:\s++as\s++(\w++))?\s*+;"
)
_RUST_PATH = re.compile(r"\b([A-Za-z_]\w*+(?:::[A-Za-z_]\w*+)++)(!?)")
_RUST_MACRO = re.compile(r"(?<![\w:])([A-Za-z_]\w*+)!\s*+[(\[{]")
_WORD = re.compile(r"\b[A-Za-z_]\w*+\b")
_METHOD_CALL = re.compile(r"\.([A-Za-z_]\w*+)\s*+(?:::<[^<>]*+>)?\(")


class NativeMatcher:
    """The Go and Rust examples' uses of one library's surface."""

    def __init__(self, surface: ApiSurfaceLike, library: str) -> None:
        self.surface = surface
        self.library = library
        self.crate = library.replace("-", "_")
        methods: dict[str, set[str]] = defaultdict(set)
        for e in surface.entries:
            if e.kind == "method" and e.parent is not None:
                methods[e.name].add(e.api_id)
        # Go: the library's package names (`cobra`, its `doc` subpackage) → module under it
        self.go_packages = {library: ""}
        for e in surface.entries:
            module = e.api_id.removeprefix(library + ".").split(".")[0]
            if e.language == "go" and module.islower() and module != e.name:
                self.go_packages.setdefault(module, module)
        # a method name only one of the library's types has: its calls are that method's
        self.unique_methods = {name: next(iter(ids)) for name, ids in methods.items() if len(ids) == 1}

    def uses(self, code: str, language: str) -> list[str]:
        """The api_ids ``code`` uses, in order of first use."""
        if language == "go":
            return self._go(code)
        if language == "rust":
            return self._rust(code)
        return []

    # -- Go --------------------------------------------------------------------------------
    def _go(self, code: str) -> list[str]:
        packages = dict(self._go_imports(_without(_GO_NOISE, code, strings=False)))
        code = _without(_GO_NOISE, code)
        if not packages:  # a snippet without its imports: the library's packages by their names
            packages = {
                name: module
                for name, module in self.go_packages.items()
                if re.search(rf"\b{re.escape(name)}\.[A-Z]", code)
            }
        found = _Found()
        if not packages:
            return []
        types: dict[str, str] = {}  # variable → class api_id
        for m in _GO_TYPED.finditer(code):
            var, pkg, name, opener = m.groups()
            entry = self._go_entry(packages, pkg, name)
            if entry is None:
                continue
            cls = entry.api_id if entry.kind == "class" else self.surface.return_class(entry.api_id)
            if cls is not None and (opener != "(" or entry.kind != "class"):
                types[var] = cls
        for m in _GO_SELECTOR.finditer(code):
            pkg, name = m.groups()
            if pkg in packages:
                found.add(self._go_entry(packages, pkg, name))
            elif pkg in types:
                found.add(self.surface.resolve(f"{types[pkg]}.{name}"))
        literals: dict[int, str] = {}  # `&cobra.Command{Use: …, PersistentPreRun: …}`: brace → class
        for m in _GO_LITERAL.finditer(code):
            entry = self._go_entry(packages, m.group(1), m.group(2))
            if entry is not None and entry.kind == "class":
                literals[m.end() - 1] = entry.api_id
        for cls, key in _literal_keys(code, literals):
            found.add(self.surface.resolve(f"{cls}.{key}"))
        for m in _GO_METHOD.finditer(code):
            var, name = m.groups()
            if var not in packages and var not in types and name in self.unique_methods:
                found.add(self.surface.resolve(self.unique_methods[name]))
        return found.ids

    def _go_imports(self, code: str) -> Iterable[tuple[str, str]]:
        """(package name, module under the library: "" for its root) of each import of it."""
        specs = [m.groups() for m in _GO_IMPORT_ONE.finditer(code)]
        for block in _GO_IMPORT_BLOCK.finditer(code):
            specs += [m.groups() for m in _GO_IMPORT_LINE.finditer(block.group(1))]
        for alias, path in specs:
            parts = [p for p in path.split("/") if p]
            while len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
                parts.pop()  # github.com/x/lib/v2: the package is lib
            if self.library not in parts or alias in ("_", "."):
                continue
            under = parts[parts.index(self.library) + 1 :]
            yield alias or parts[-1], ".".join(under)

    def _go_entry(self, packages: dict[str, str], pkg: str, name: str) -> ApiEntry | None:
        if pkg not in packages:
            return None
        return self.surface.resolve(".".join(p for p in (self.library, packages[pkg], name) if p))

    # -- Rust ------------------------------------------------------------------------------
    def _rust(self, code: str) -> list[str]:
        code = _without(_RUST_NOISE, code)
        found = _Found()
        imported: dict[str, str] = {}  # local name → its path under the crate ("Context", "error.Error")
        for m in _RUST_USE.finditer(code):
            base, group, alias = m.groups()
            parts = base.split("::")
            if parts[0] != self.crate:
                continue
            for item in group.split(",") if group is not None else [""]:
                item_parts, _, item_alias = item.strip().partition(" as ")
                path = [*parts[1:], *[p for p in item_parts.strip().split("::") if p and p != "self"]]
                if not path:
                    continue
                local = (item_alias or alias or path[-1]).strip()
                imported[local] = ".".join(path)  # credited where the code uses it, below
        # a fragment with no `use` at all is taken as the documented crate's (`bail!("…")`)
        uses_crate = (
            bool(imported)
            or re.search(rf"\b{re.escape(self.crate)}::", code) is not None
            or re.search(r"\buse\s", code) is None
        )
        body = _RUST_USE.sub(" ", code)
        for m in _RUST_PATH.finditer(body):
            parts = m.group(1).split("::")
            if parts[0] == self.crate:
                path = parts[1:]
            elif parts[0] in imported:
                path = [*imported[parts[0]].split("."), *parts[1:]]
            else:
                continue
            found.add(self._rust_longest(path))
        for m in _RUST_MACRO.finditer(body):
            name = m.group(1)
            if name in imported:
                found.add(self.surface.resolve(f"{self.library}.{imported[name]}"))
            elif uses_crate:
                found.add(self.surface.resolve(f"{self.library}.{name}"))
        for word in _WORD.findall(body):
            if word in imported:
                found.add(self.surface.resolve(f"{self.library}.{imported[word]}"))
        if uses_crate:
            for name in _METHOD_CALL.findall(body):
                if name in self.unique_methods:
                    found.add(self.surface.resolve(self.unique_methods[name]))
        return found.ids

    def _rust_longest(self, path: list[str]) -> ApiEntry | None:
        """The API of the longest prefix of ``path`` that names one (``Error::msg`` → the method;
        ``Error::from_thing`` of no such method → ``Error``)."""
        path = path[:_MAX_PATH]
        for end in range(len(path), 0, -1):
            entry = self.surface.resolve(".".join([self.library, *path[:end]]))
            if entry is not None:
                return entry
        return None


def _without(noise: re.Pattern[str], code: str, *, strings: bool = True) -> str:
    """``code`` with its comments blanked and (``strings``) its string and char literals emptied."""

    def blank(m: re.Match[str]) -> str:
        if m.group("comment") is not None:
            return " "
        return ('""' if m.group("string") is not None else "' '") if strings else m.group(0)

    return noise.sub(blank, code)


def _literal_keys(code: str, literals: dict[int, str]) -> list[tuple[str, str]]:
    """(class, field) of each field a composite literal sets at its own level, ``literals``
    giving the class of each literal's opening brace: one pass over the code."""
    if not literals:
        return []
    keys = iter(_GO_KEY.finditer(code))
    key = next(keys, None)
    stack: list[str | None] = []  # the class of each open bracket (None: not a literal's)
    out = []
    for i, ch in enumerate(code):
        while key is not None and key.start() < i:
            if stack and stack[-1] is not None:
                out.append((stack[-1], key.group(1)))
            key = next(keys, None)
        if ch in "{([":
            stack.append(literals.get(i) if ch == "{" else None)
        elif ch in "})]" and stack:
            stack.pop()
    return out


class _Found:
    def __init__(self) -> None:
        self.ids: list[str] = []

    def add(self, entry: ApiEntry | None) -> None:
        if entry is not None and entry.kind != "module" and entry.api_id not in self.ids:
            self.ids.append(entry.api_id)
