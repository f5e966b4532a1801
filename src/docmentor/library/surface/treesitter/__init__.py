"""The exported API of a TypeScript/JavaScript, Go or Rust source folder, read with tree-sitter.

Grammars come from the individual wheels (``tree-sitter-typescript``, ``-javascript``,
``-go``, ``-rust``): nothing is downloaded at run time. What counts as exported:

* **TypeScript/JavaScript**: ``export`` declarations (functions, ``export const f = (…) =>``,
  ``export default``, classes, interfaces, type aliases, enums, constants), ``export { a as b }``,
  and CommonJS ``module.exports = {…}`` / ``exports.f = …``. Class and interface members
  are public unless ``private``/``protected``, ``#private``, ``_underscored`` or tagged
  ``@internal``/``@private``/``@hidden``/``@ignore``. JSDoc (``/** … */`` right before the
  declaration) gives the description, and for JavaScript the ``@param``/``@returns`` types.
* **Go**: capitalised functions, types (struct, interface and other defined types) and
  methods on capitalised types; exported struct fields; ``//`` doc comments directly above.
  ``package main``, ``internal/`` and ``_test.go`` files are not importable and are skipped.
* **Rust**: ``pub`` (not ``pub(crate)``) functions, structs, enums, unions, traits, type
  aliases, constants, inline ``pub mod``s, ``pub`` methods of inherent ``impl`` blocks and
  every method of a ``pub trait``; ``impl Trait for Type`` adds the trait to ``Type``'s
  bases so inherited methods resolve; ``///`` and ``/** */`` doc comments.

Kinds: classes, interfaces, structs, enums, traits and Go defined types are ``class``
(they have members); type aliases and constants are ``attribute``; getters, fields and
interface properties are ``property``. A TypeScript class's ``parameters`` are its
constructor's.

Naming: ``api_id`` = ``<library>.<module>.<Name>``, members ``<library>.<module>.<Class>.<member>``.
The module comes from the file's path relative to ``source_path`` without extension,
``/`` → ``.``, a leading ``src`` dropped, and ``index`` (TS/JS), ``lib``/``main``/``mod``
(Rust) dropped; Go names the package by its directory (files do not matter). Re-exports
(``export { X } from "./x"``, ``export * from``, Rust ``pub use``) add the public paths as
aliases: ``lancedb.Connection`` for ``lancedb.connection.Connection``. TS/JS sources without
a root ``index`` get ``<library>.<Name>`` aliases for names exported once.

``returns.type`` keeps the return type as written; ``returns.class_id`` is the api_id of
the class it names, with ``Promise<>``, ``Result<>``, ``Option<>``, pointers, ``| undefined``
and ``Self`` unwrapped — what :meth:`SourceApiSurface.return_class` answers.
"""

from __future__ import annotations

from docmentor.library.surface.treesitter.core import SourceLanguage, detect_source_language
from docmentor.library.surface.treesitter.surface import (
    SourceApiSurface,
    load_source_api,
    load_source_surface,
)

__all__ = [
    "SourceApiSurface",
    "SourceLanguage",
    "detect_source_language",
    "load_source_api",
    "load_source_surface",
]
