"""The names a unit's document may use that its repository does not define, by the unit's
language: each language's own global names, not its standard library.

- **python**: the builtins, the keywords and the standard library's module names (a module's
  names follow it: ``os.path.join`` is known by ``os``).
- **javascript**: the ECMAScript global object's properties (``Promise``, ``Array``,
  ``JSON``, ``Math``, the error classes …) and the hosts' usual globals (``console``,
  ``setTimeout``, ``fetch``, ``URL``, ``process``, ``Buffer``, ``require``, ``window``,
  ``document`` …); **typescript** adds its utility and built-in types (``Partial``,
  ``Record``, ``ReturnType``, ``PromiseLike``, ``Iterable`` …).
- **go**: the predeclared identifiers (types such as ``error`` and ``string``, ``true``,
  ``false``, ``iota``, ``nil``, the built-in functions ``append``, ``len``, ``make``,
  ``panic`` …) and the keywords. A package's names are known through the module's import
  (``fmt.Println`` when ``fmt`` is imported: ``verify.SymbolTable``).
- **rust**: the standard prelude (``Option``, ``Some``, ``None``, ``Result``, ``Ok``, ``Err``,
  ``Vec``, ``String``, ``Box``, ``Clone``, ``Iterator``, ``From``, ``Into`` …), the primitive
  types, the standard macros' names (``println``, ``vec``, ``format``, ``assert_eq`` …), the
  crates every crate may name (``std``, ``core``, ``alloc``: ``std::mem::swap`` is known by
  ``std``) and the path keywords (``self``, ``Self``, ``crate``, ``super``).

A name written with a prefix is known by its first part, as an imported library's names are.
"""

from __future__ import annotations

import builtins
import keyword
import sys
from collections.abc import Iterable

__all__ = ["GO", "JAVASCRIPT", "KNOWN", "PYTHON", "RUST", "TYPESCRIPT", "known_names"]


def _words(text: str) -> frozenset[str]:
    """The space-separated words of ``text``."""
    return frozenset(text.split())


PYTHON = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(sys.stdlib_module_names)

JAVASCRIPT = _words(
    # the ECMAScript global object: values, functions, constructors, namespaces
    "globalThis Infinity NaN undefined null true false this super arguments "
    "eval isFinite isNaN parseFloat parseInt decodeURI decodeURIComponent encodeURI "
    "encodeURIComponent escape unescape "
    "AggregateError Array ArrayBuffer BigInt BigInt64Array BigUint64Array Boolean DataView Date "
    "Error EvalError FinalizationRegistry Float32Array Float64Array Function Int8Array Int16Array "
    "Int32Array Iterator Map Number Object Promise Proxy RangeError ReferenceError RegExp Set "
    "SharedArrayBuffer String Symbol SyntaxError TypeError Uint8Array Uint8ClampedArray "
    "Uint16Array Uint32Array URIError WeakMap WeakRef WeakSet "
    "Atomics Intl JSON Math Reflect "
    # the hosts' usual globals (web platform and Node.js)
    "console setTimeout clearTimeout setInterval clearInterval setImmediate clearImmediate "
    "queueMicrotask structuredClone fetch URL URLSearchParams TextEncoder TextDecoder "
    "AbortController AbortSignal Blob File FormData Headers Request Response Event EventTarget "
    "crypto performance atob btoa window document navigator location localStorage "
    "sessionStorage self process Buffer require module exports __dirname __filename global"
)

TYPESCRIPT = JAVASCRIPT | _words(
    # utility types and the built-in library's types
    "Partial Required Readonly Record Pick Omit Exclude Extract NonNullable Parameters "
    "ConstructorParameters ReturnType InstanceType ThisParameterType OmitThisParameter ThisType "
    "Awaited Uppercase Lowercase Capitalize Uncapitalize NoInfer ReadonlyArray ReadonlyMap "
    "ReadonlySet PromiseLike ArrayLike Iterable IterableIterator AsyncIterable "
    "AsyncIterableIterator Generator AsyncGenerator PropertyKey TemplateStringsArray "
    "any unknown never void object string number boolean bigint symbol keyof typeof readonly"
)

GO = _words(
    # predeclared identifiers: types, constants, the zero value, functions
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 "
    "int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil "
    "append cap clear close complex copy delete imag len make max min new panic print println "
    "real recover "
    # keywords
    "break case chan const continue default defer else fallthrough for func go goto if import "
    "interface map package range return select struct switch type var"
)

RUST = _words(
    # the standard prelude (2021 and 2024 editions)
    "Copy Send Sized Sync Unpin Drop Fn FnMut FnOnce drop Box ToOwned Clone PartialEq PartialOrd "
    "Eq Ord AsRef AsMut Into From Default Iterator Extend IntoIterator DoubleEndedIterator "
    "ExactSizeIterator Option Some None Result Ok Err String ToString Vec TryFrom TryInto "
    "FromIterator Future IntoFuture Debug Hash "
    # primitive types
    "bool char str i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 "
    # the standard macros
    "println print eprintln eprint format format_args vec panic assert assert_eq assert_ne "
    "debug_assert debug_assert_eq debug_assert_ne write writeln todo unimplemented unreachable "
    "matches dbg include include_str include_bytes env option_env concat stringify line column "
    "file module_path cfg compile_error "
    # the crates every crate may name, and path keywords
    "std core alloc self Self crate super"
)

KNOWN: dict[str, frozenset[str]] = {
    "python": PYTHON,
    "typescript": TYPESCRIPT,
    "javascript": JAVASCRIPT,
    "go": GO,
    "rust": RUST,
}


def known_names(languages: Iterable[str]) -> frozenset[str]:
    """The names known in any of ``languages`` (an unknown language adds none)."""
    out: frozenset[str] = frozenset()
    for language in languages:
        out |= KNOWN.get(language, frozenset())
    return out
