"""Shared helpers for the tests that call docmentor's MCP tools through the official client."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, TextContent

CLARITY_TOOLS = (
    "get_rubric",
    "calculate_clarity_score",
    "calculate_dimension_score",
    "get_improvement_roadmap",
    "explain_score",
    "score_document",
)


def structured(result: CallToolResult) -> Any:
    """The structured content, after checking the text mirror says the same."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    (text,) = result.content
    assert isinstance(text, TextContent)
    assert json.loads(text.text) == result.structured_content
    return result.structured_content
