"""Which APIs a TypeScript/JavaScript example uses, read with the tokenizer of
:mod:`docmentor.library.examples.code_analysis`; the rules are :mod:`docmentor.library.examples.matcher`'s,
the shared analysis :mod:`docmentor.library.examples.matcher_core`'s.

``import … from "lib"``, ``import x = require("lib")`` and ``const { f } = require("lib")``
bind names when the specifier is the library's npm package; ``new``, calls, ``await``,
member chains, non-null ``!`` and explicit generics ``f<T>(…)`` carry the values along.
"""

from __future__ import annotations

from collections.abc import Iterable

from docmentor.library.examples.code_analysis import JS_GLOBALS, JS_KEYWORDS, Token, js_tokens
from docmentor.library.examples.matcher_core import Analysis, Resolver, Value
from docmentor.library.models import Example

_STATEMENT = frozenset({"const", "let", "var", "import", "export", "function", "class", "return", "await"})


class JsAnalysis(Analysis):
    def __init__(self, resolver: Resolver, library: str, packages: Iterable[str]) -> None:
        super().__init__(resolver)
        self.library = library
        self.packages = set(packages)
        self.t: tuple[Token, ...] = ()
        self.close: dict[int, int] = {}

    def package(self, spec: str) -> bool:
        spec = spec.strip("\"'`")
        if spec in self.packages:
            return True
        parts = spec.split("/")
        if spec.startswith("@") and len(parts) >= 2:
            return self.library in (parts[0][1:], parts[1])
        return parts[0] == self.library

    def namespace(self, spec: str) -> Value | None:
        return Value("module", self.library) if self.package(spec) else None

    def run(self, example: Example) -> list[str]:
        self.t = js_tokens(example.code)
        texts = [tok.text for tok in self.t]
        self.start(example, "await" in texts or "async" in texts)
        self.close = {}
        stack: list[int] = []
        for k, text in enumerate(texts):
            if text in ("(", "[", "{"):
                stack.append(k)
            elif text in (")", "]", "}") and stack:
                self.close[stack.pop()] = k
        self.scan(0, len(self.t))
        return self.finish()

    def tx(self, i: int) -> str:
        return self.t[i].text if 0 <= i < len(self.t) else ""

    def match(self, i: int, hi: int) -> int:
        return min(self.close.get(i, hi), hi)

    def scan(self, i: int, hi: int) -> None:
        while i < hi:
            tok = self.t[i]
            text = tok.text
            if tok.kind == "name" and text == "import" and self.tx(i + 1) not in ("(", "."):
                i = self.imports(i + 1, hi)
            elif tok.kind == "name" and text in ("const", "let", "var"):
                i = self.declaration(i + 1, hi)
            elif tok.kind == "name" and text not in JS_KEYWORDS and self.tx(i + 1) == "=":
                value, i = self.expr(i + 2, hi)
                self.bind(text, value)
            elif (tok.kind == "name" and text not in JS_KEYWORDS) or text in ("new", "await", "("):
                _, i = self.expr(i, hi)
            else:
                i += 1

    def imports(self, i: int, hi: int) -> int:
        if self.tx(i) == "type":
            i += 1
        named: list[tuple[str, str]] = []  # (exported, local)
        whole: list[str] = []  # namespace imports (and a default one, below)
        default: list[str] = []  # `import ky from "ky"`: the module's default export
        while i < hi and self.t[i].kind != "str" and self.tx(i) not in (";", "from", "="):
            text = self.tx(i)
            if text == "*" and self.tx(i + 1) == "as":
                whole.append(self.tx(i + 2))
                i += 3
            elif text == "{":
                end = self.match(i, hi)
                k = i + 1
                while k < end:
                    if self.tx(k) == "type":
                        k += 1
                    name = self.tx(k)
                    if self.tx(k + 1) == "as":
                        named.append((name, self.tx(k + 2)))
                        k += 3
                    else:
                        named.append((name, name))
                        k += 1
                    k += self.tx(k) == ","
                i = end + 1
            elif self.t[i].kind == "name":
                default.append(text)
                i += 1
            else:
                i += 1
        if self.tx(i) == "=":  # import x = require("pkg")
            value, i = self.expr(i + 1, hi)
            for local in whole + default:
                self.bind(local, value)
            return i
        i += self.tx(i) == "from"
        spec = self.tx(i) if i < hi and self.t[i].kind == "str" else ""
        ns = self.namespace(spec) if spec else None
        for local in whole:
            self.bind(local, ns)
        for local in default:
            # the module's `default` export, else the export the import names (ky's `export
            # default ky`, imported as `ky`), else the module as a namespace
            found = self.attr(ns, "default", record=False) or self.attr(ns, local, record=False)
            self.bind(local, found or ns)
        for exported, local in named:
            self.bind(local, self.attr(ns, exported, record=False))
        return i + 1

    def declaration(self, i: int, hi: int) -> int:
        """``const a = …, { b, c: d } = …, [e] = …`` after the keyword."""
        while i < hi:
            text = self.tx(i)
            name = ""
            pattern: list[tuple[str, str]] = []  # destructured (key, local); key "" for arrays
            if text in ("{", "["):
                end = self.match(i, hi)
                for k in range(i + 1, end):
                    if self.t[k].kind == "name" and self.tx(k - 1) in ("{", "[", ","):
                        key = self.tx(k) if text == "{" else ""
                        local = (
                            self.tx(k + 2)
                            if self.tx(k + 1) == ":" and self.t[k + 2].kind == "name"
                            else self.tx(k)
                        )
                        pattern.append((key, local))
                i = end + 1
            elif self.t[i].kind == "name":
                name, i = text, i + 1
            else:
                return i
            if self.tx(i) == "!":
                i += 1
            if self.tx(i) == ":":  # a type annotation
                i += 1
                while i < hi and self.tx(i) not in ("=", ";", ",") and self.tx(i) not in _STATEMENT:
                    i = self.match(i, hi) + 1 if self.tx(i) in ("(", "[", "{") else i + 1
            value: Value | None = None
            if self.tx(i) == "=":
                value, i = self.expr(i + 1, hi)
            if name:
                self.bind(name, value)
            for key, local in pattern:
                self.bind(local, self.attr(value, key, record=False) if key else None)
            if self.tx(i) != ",":
                return i
            i += 1
        return i

    def expr(self, i: int, hi: int) -> tuple[Value | None, int]:
        start = i
        while i < hi and self.tx(i) in ("await", "void", "typeof", "!", "-", "+", "...", "yield"):
            i += 1
        value: Value | None = None
        tok = self.t[i] if i < hi else None
        if tok is None:
            return None, max(i, start + 1)
        if tok.text == "new":
            value, i = self.chain(i + 1, hi)
            if self.tx(i) == "(":
                end = self.match(i, hi)
                self.scan(i + 1, end)
                i = end + 1
            value = self.call(value) if value and self.r.entry(value.name) else None
            if value is not None and value.kind != "instance":
                value = None
        elif tok.text == "(":
            end = self.match(i, hi)
            inner, k = self.expr(i + 1, end)
            if k < end:
                self.scan(k, end)
                inner = None
            i = end + 1
            if self.tx(i) == "=>":
                return None, i + 1
            value = inner
        elif tok.kind == "name" and tok.text == "require" and self.tx(i + 1) == "(":
            end = self.match(i + 1, hi)
            spec = self.tx(i + 2)
            value = self.namespace(spec) if self.t[i + 2].kind == "str" else None
            i = end + 1
        elif tok.kind == "name" and tok.text not in JS_KEYWORDS:
            if self.tx(i + 1) == "=>":
                self.bind(tok.text, None)
                return None, i + 2
            value = None if tok.text in JS_GLOBALS else self.load(tok.text)
            i += 1
        else:
            return None, max(i, start + 1)
        return self.postfix(value, i, hi)

    def chain(self, i: int, hi: int) -> tuple[Value | None, int]:
        """``a.b.c`` after ``new``: names and dots only."""
        if i >= hi or self.t[i].kind != "name":
            return None, i
        value = self.load(self.tx(i))
        i += 1
        while self.tx(i) in (".", "?.") and i + 1 < hi and self.t[i + 1].kind == "name":
            value = self.attr(value, self.tx(i + 1))
            i += 2
        return value, i

    def postfix(self, value: Value | None, i: int, hi: int) -> tuple[Value | None, int]:
        while i < hi:
            text = self.tx(i)
            if text in (".", "?.") and i + 1 < hi and self.t[i + 1].kind == "name":
                value = self.attr(value, self.tx(i + 1))
                i += 2
            elif text == "!" and self.tx(i + 1) != "=":
                i += 1
            elif text == "(":
                end = self.match(i, hi)
                self.scan(i + 1, end)
                value = self.call(value)
                i = end + 1
            elif text == "[":
                end = self.match(i, hi)
                self.scan(i + 1, end)
                value = None
                i = end + 1
            elif text == "<" and value is not None and (after := self.generic_end(i, hi)) is not None:
                i = after
            else:
                break
        return value, i

    def generic_end(self, i: int, hi: int) -> int | None:
        """After ``f<T, U>`` when it is followed by a call: the index of the ``(``."""
        depth = 0
        for k in range(i, min(hi, i + 40)):
            text = self.tx(k)
            if text == "<":
                depth += 1
            elif text == ">":
                depth -= 1
                if depth == 0:
                    return k + 1 if self.tx(k + 1) == "(" else None
            elif text in (";", "=", "(", ")", "&&", "||"):
                return None
        return None
