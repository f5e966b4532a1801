"""The real API surface: griffe for Python, tree-sitter for TS/JS/Go/Rust; docstrings,
deprecations, the class tree."""
