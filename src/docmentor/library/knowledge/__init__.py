"""The knowledge base: importance, enrichment from the docs, the README.LLM writer, the
knowledge base files and their records in the index."""
