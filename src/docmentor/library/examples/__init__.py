"""The docs' code examples: extracted, matched to APIs, run (``validate``) and checked for drift."""
