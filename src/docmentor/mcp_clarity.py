"""The clarity tools of the MCP server: the rubric, scores, roadmaps, explanations, and
score_document, which reads only indexed documents and the folders a user allowed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from docmentor import mcp_schemas as out
from docmentor.mcp_contract import READ_ONLY, run, structured, tool
from docmentor.mcp_schemas import Count, MaybeCount, Score

if TYPE_CHECKING:
    from docmentor import Docmentor
    from docmentor.server import ServerState

# the allowed values in the input schema ("enum"): an agent sees them before it guesses
Dimension = Literal[
    "instruction_clarity", "logical_flow", "completeness", "consistency", "prerequisite_coverage"
]


def clarity_tools(server: MCPServer, engine: Docmentor, state: ServerState) -> None:
    from docmentor import calculate_clarity_score as _score
    from docmentor import calculate_dimension_score as _dimension_score
    from docmentor import default_rubric
    from docmentor import explain_score as _explain
    from docmentor import get_improvement_roadmap as _roadmap
    from docmentor import score_document as score_allowed

    @tool(server, annotations=READ_ONLY, title="Clarity rubric")
    async def get_rubric() -> Annotated[CallToolResult, dict[str, out.Tier]]:
        """The clarity scoring rubric: score tiers with grades, descriptions, criteria and characteristics."""
        return structured(default_rubric().tiers_dict())

    @tool(server, annotations=READ_ONLY, title="Calculate a clarity score")
    async def calculate_clarity_score(
        critical_issues: Count = 0,
        warning_issues: Count = 0,
        info_issues: Count = 0,
        total_code_blocks: MaybeCount = None,
        successful_examples: MaybeCount = None,
        failed_examples: MaybeCount = None,
        skipped_examples: MaybeCount = None,
        total_api_signatures: MaybeCount = None,
        valid_api_signatures: MaybeCount = None,
        invalid_api_signatures: MaybeCount = None,
        missing_api_signatures: MaybeCount = None,
        api_accuracy_score: Annotated[
            float | None,
            Field(ge=0, le=1, description="Share of documented API signatures that are right, 0-1."),
        ] = None,
        broken_links: Count = 0,
        missing_alt_text: Count = 0,
    ) -> Annotated[CallToolResult, out.ClarityScoreOut]:
        """Overall clarity score (0-10), grade, rubric tier and the penalty breakdown, from issue
        counts and content metrics. Deterministic: the same counts always give the same score."""
        given = {
            "critical_issues": critical_issues,
            "warning_issues": warning_issues,
            "info_issues": info_issues,
            "total_code_blocks": total_code_blocks,
            "successful_examples": successful_examples,
            "failed_examples": failed_examples,
            "skipped_examples": skipped_examples,
            "total_api_signatures": total_api_signatures,
            "valid_api_signatures": valid_api_signatures,
            "invalid_api_signatures": invalid_api_signatures,
            "missing_api_signatures": missing_api_signatures,
            "api_accuracy_score": api_accuracy_score,
            "broken_links": broken_links,
            "missing_alt_text": missing_alt_text,
        }
        inputs = {k: v for k, v in given.items() if v is not None}  # an absent metric costs nothing
        return structured(await run(lambda: _score(inputs).to_dict()))

    @tool(server, annotations=READ_ONLY, title="Calculate a dimension score")
    async def calculate_dimension_score(
        dimension: Dimension,
        critical_issues_for_dimension: Count = 0,
        warning_issues_for_dimension: Count = 0,
        info_issues_for_dimension: Count = 0,
    ) -> Annotated[CallToolResult, out.DimensionOut]:
        """Score of one dimension (instruction_clarity, logical_flow, completeness, consistency,
        prerequisite_coverage) from the issues tagged with it, with the calculation as text."""
        return structured(
            await run(
                lambda: _dimension_score(
                    dimension,
                    critical_issues_for_dimension,
                    warning_issues_for_dimension,
                    info_issues_for_dimension,
                ).to_dict()
            )
        )

    @tool(server, annotations=READ_ONLY, title="Improvement roadmap")
    async def get_improvement_roadmap(
        current_score: Score,
        target_score: Score,
        issues: Annotated[
            list[dict[str, Any]],
            Field(description="The issues found: each with type, severity, line, section, message."),
        ],
    ) -> Annotated[CallToolResult, out.RoadmapOut]:
        """Prioritised fixes to reach target_score: critical first, then low effort; stops when the
        target is reached. Each issue: type, severity, line, section, message."""
        return structured(await run(lambda: _roadmap(current_score, target_score, issues).to_dict()))

    @tool(server, annotations=READ_ONLY, title="Explain a score")
    async def explain_score(
        score: Annotated[float | None, Field(ge=0, le=10, description="A score to explain, 0-10.")] = None,
        critical_issues: Count = 0,
        warning_issues: Count = 0,
        info_issues: Count = 0,
        penalties_applied: Annotated[
            list[dict[str, Any]] | None,
            Field(description="Content penalties: each with type and penalty (points)."),
        ] = None,
    ) -> Annotated[CallToolResult, out.ExplainOut]:
        """How a clarity score is calculated: the formula with the actual numbers, the breakdown,
        a human explanation and the tier's characteristics."""
        return structured(
            await run(
                lambda: _explain(
                    score,
                    critical_issues=critical_issues,
                    warning_issues=warning_issues,
                    info_issues=info_issues,
                    penalties_applied=penalties_applied or [],
                ).to_dict()
            )
        )

    @tool(server, annotations=READ_ONLY, title="Score a document")
    async def score_document(
        path_or_url: Annotated[
            str,
            Field(
                description="An indexed document (SOURCE:PATH, its URL or its file), or a file in an allowed folder."
            ),
        ],
        target_score: Score = 8.0,
    ) -> Annotated[CallToolResult, out.ScoredDocumentOut]:
        """Run the clarity checks on one document and return its full result: score, grade, dimensions,
        explanation, roadmap and every issue with its line.

        Only indexed documents can be scored, and files in the folders the user allowed when
        starting the server.
        """
        return structured(
            await run(
                lambda: score_allowed(engine, path_or_url, policy=state.policy, target=target_score).to_dict()
            )
        )
