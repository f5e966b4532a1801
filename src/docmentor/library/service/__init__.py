"""Serving a knowledge base (find_api, get_examples, overview) and its feedback (report_issue)."""
