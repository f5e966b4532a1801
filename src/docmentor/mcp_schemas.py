"""What the MCP tools take and return, as types the SDK turns into JSON schemas.

Input: the ranges and choices of each argument (``minimum``/``maximum``/``enum``/``pattern``
in the input schemas); a value outside them is a tool error that names the allowed range
(:mod:`docmentor.mcp_contract` words it). The ranges are the CLI's where the CLI has one,
and the MCP caps where a tool result must stay small enough for a model's context.

Output: one TypedDict per tool, published as its ``outputSchema``; the structured content
is checked against it by the SDK before it leaves. Objects may carry more keys than listed
(new fields are additions, never renames).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema
from typing_extensions import TypedDict  # pydantic needs it below Python 3.12

from docmentor import EXCERPT_CHUNKS_RANGE, EXCERPT_CONTEXT_RANGE, MAX_TOKENS_RANGE

# -- input ranges -----------------------------------------------------------------------------

MAX_SEARCH_LIMIT = 20  # search_docs results per call (an agent's context: the CLI allows 100)
MAX_DOC_CHARS = 100_000  # get_doc characters per page
MAX_FIND_RESULTS = 20  # find_api results per call (the CLI allows 50)
MAX_DIGEST_TOKENS = 20_000  # assemble_context budget: tool results must stay usable
MIN_DIGEST_TOKENS = MAX_TOKENS_RANGE[0]  # the CLI's lower bound
MAX_CHUNKS = EXCERPT_CHUNKS_RANGE[1]  # get_doc_excerpt passages (the engine's cap)
CONTEXT_CHARS = EXCERPT_CONTEXT_RANGE  # get_doc_excerpt characters around a match (the engine's range)
MAX_SECTIONS = 100  # assemble's --sections
MAX_DEPTH = 2  # assemble's --depth
LINES_PATTERN = r"^\s*\d+\s*(-\s*\d+\s*)?$"
#: a library version, as ``docmentor add --version`` takes it (``0.27``, ``2.1.0``, ``1.0.0-beta.1``)
VERSION_PATTERN = r"^v?[0-9][A-Za-z0-9_.+!-]{0,63}$"
VERSION_DESCRIPTION = (
    "Only this version of the library (e.g. 0.27; default: the one the project pins, else the newest)."
)
KB_VERSION_DESCRIPTION = (
    "That version's knowledge base (e.g. 0.27; default: the one the project pins, else the newest)."
)

Count = Annotated[int, Field(ge=0, description="A count of issues or items (0 or more).")]
MaybeCount = Annotated[int | None, Field(ge=0, description="A count (0 or more); omitted: unknown.")]
Score = Annotated[float, Field(ge=0, le=10, description="A clarity score, 0-10.")]
DigestFormat = Literal["markdown", "json"]

# -- output types -----------------------------------------------------------------------------


class AlsoHit(TypedDict, total=False):
    """A near-identical section elsewhere, collapsed into the hit that lists it."""

    source: str
    path: str
    heading: str
    line_start: int
    line_end: int


class SearchResult(TypedDict):
    rank: int
    source: str
    path: str
    url: str
    title: str
    heading: str
    heading_path: list[str]
    line_start: int
    line_end: int
    score: float
    snippet: str
    indexed_at: str
    source_version: str | None
    #: why this version of the library answered: "asked", "pinned" or "newest" (only when
    #: several versions of it are indexed, or one was asked for)
    version_reason: NotRequired[str]
    #: true when the last refresh could not update the document (a failed fetch, or gone from
    #: its origin and kept until a refresh with prune): this is its last good copy
    stale: NotRequired[bool]
    also: list[AlsoHit]


class SearchOut(TypedDict):
    query: str
    results: Annotated[list[SearchResult], FlatSchema()]  # checked by the client on every call
    notes: NotRequired[list[str]]  # what the version choice passed over (a pin no version fits)


class DocPageOut(TypedDict):
    source: str
    path: str
    url: str
    title: str
    content: str
    offset: int
    length: int
    total_length: int
    has_more: bool
    stale: bool
    error: str | None
    indexed_at: str
    source_version: NotRequired[str | None]  # the library version of the document's source
    note: NotRequired[str]  # only when the page is read from another version than searches answer from


class Excerpt(TypedDict):
    heading: str
    heading_path: list[str]
    line_start: int
    line_end: int
    score: float
    text: str


class ExcerptOut(TypedDict):
    source: str
    path: str
    url: str
    title: str
    query: str
    excerpts: list[Excerpt]
    stale: NotRequired[bool]  # only when true: the last refresh could not update the document
    error: NotRequired[str | None]  # why, then
    source_version: NotRequired[str]  # only when known: the library version the source describes


class SourceRow(TypedDict):
    name: str
    kind: str  # folder, llms.txt …; "configured" for a configured source that could not be indexed
    target: str
    title: str | None
    version: str | None
    #: where version was read: given, pyproject.toml, package.json, setup.cfg, llms.txt, installed
    version_origin: NotRequired[str | None]
    library: NotRequired[str]  # the source's name without @VERSION: one library's versions share it
    documents: int
    sections: int
    stale_documents: int
    status: str
    error: str | None
    created_at: str | None
    refreshed_at: str | None
    options: dict[str, Any]
    units: int
    embedded: int


class SourcesOut(TypedDict):
    sources: list[SourceRow]


class Failure(TypedDict):
    path: str
    error: str


class Skip(TypedDict):
    path: str
    reason: str


class Embedding(TypedDict):
    embedded: int
    pending: int
    seconds: float
    skipped: str | None
    sources: list[str]  # whose sections were embedded (a text sources share: each of them)


class RefreshRow(TypedDict):
    source: str
    error: str | None
    kind: str
    added: int
    updated: int
    unchanged: int
    removed: int
    failed: list[Failure]
    skipped: list[Skip]
    warnings: list[str]
    documents: int
    sections: int
    seconds: float
    embedding: Embedding | None


class RefreshOut(TypedDict):
    sources: list[RefreshRow]


class DigestDocument(TypedDict, total=False):
    path: str
    source: str
    url: str
    title: str
    score: float
    relevance: float
    canonicality: float
    status: str | None
    updated_at: str | None
    inlinks: int
    factors: dict[str, float]
    sections_included: int


class DigestSection(TypedDict, total=False):
    path: str
    source: str
    heading: str
    heading_path: list[str]
    line_start: int
    line_end: int
    section_line_start: int
    section_line_end: int
    relevance: float
    origin: str
    referenced_by: list[str]
    trimmed: bool
    stale: bool  # only when true: the last refresh could not update the document
    tokens: int
    text: str


class DigestOut(TypedDict):
    query: str
    format: DigestFormat
    token_budget: int
    actual_tokens: int
    sections_selected: int
    documents: list[DigestDocument]
    sections: list[DigestSection]
    digest: NotRequired[
        str
    ]  # format "markdown": the digest as text (format "json": the object is the digest)
    note: NotRequired[str]  # why the digest is empty, and what to try


class Tier(TypedDict):
    range: list[float]
    grade: str
    description: str
    criteria: dict[str, float]  # issue counts a tier allows (whole numbers)
    characteristics: list[str]


class Penalty(TypedDict, total=False):
    type: str
    count: int
    penalty: float
    explanation: str


class Breakdown(TypedDict):
    starting_score: float
    total_penalty: float
    penalties: list[Penalty]


class ClarityScoreOut(TypedDict):
    overall_score: float
    grade: str
    rubric_tier: str
    rubric_description: str
    calculation_breakdown: Breakdown
    calculation: str
    quality_rating: str
    meets_criteria: bool
    scoring_version: str
    rubric_hash: str


class DimensionOut(TypedDict):
    dimension: str
    score: float
    calculation: str
    scoring_version: str
    rubric_hash: str


class Fix(TypedDict, total=False):
    rank: int
    issue_type: str
    severity: str
    location: str
    line: int | None
    impact: str
    estimated_effort: str
    message: str


class RoadmapOut(TypedDict):
    current_score: float
    target_score: float
    estimated_new_score: float
    total_fixes_needed: int
    estimated_total_effort: str
    estimated_total_minutes: int
    target_reachable: bool
    priority_fixes: list[Fix]
    quick_wins: list[str]
    scoring_version: str
    rubric_hash: str


class ExplainBreakdown(TypedDict, total=False):
    starting_score: float
    critical_penalty: float
    warning_penalty: float
    info_penalty: float
    content_penalties: list[Penalty]


class ExplainOut(TypedDict):
    final_score: float
    grade: str
    rubric_tier: str
    tier_description: str
    formula: str
    calculation: str
    breakdown: ExplainBreakdown
    human_explanation: str
    rubric_match: bool
    meets_criteria: bool
    characteristics_of_tier: list[str]
    scoring_version: str
    rubric_hash: str
    given_score: NotRequired[float]  # the score passed in, when it differs from the formula's


class Criterion(TypedDict, total=False):
    score: float
    measured_by: list[str]
    key_issues: list[str]


class DocumentClarity(TypedDict, total=False):
    overall_score: float
    grade: str
    rubric_tier: str
    rubric_description: str
    instruction_clarity: float
    logical_flow: float
    completeness: float
    consistency: float
    prerequisite_coverage: float
    evaluation_criteria: dict[str, Criterion]
    scoring_rationale: str
    quality_rating: str
    meets_criteria: bool
    calculation_breakdown: Breakdown
    scoring_version: str
    rubric_hash: str


class Issue(TypedDict, total=False):
    type: str
    severity: str
    dimensions: list[str]
    line: int | None
    section: str | None
    message: str
    suggested_fix: str | None


class ScoredDocumentOut(TypedDict):
    path: str
    url: NotRequired[str]
    clarity_score: DocumentClarity
    score_explanation: ExplainOut
    improvement_roadmap: RoadmapOut
    dashboard_metrics: dict[str, Any]
    dimension_scores: dict[str, float]
    metrics: dict[str, float]  # counts (whole numbers)
    issues: list[Issue]
    clarity_issues: list[Issue]
    structural_issues: list[Issue]
    summary: dict[str, Any]


class OverviewOut(TypedDict):
    library: str
    aspect: str
    overview: str
    description: str | None
    versions: dict[str, str | None]
    warnings: list[str]
    version_reasons: NotRequired[dict[str, str]]  # library → "asked", "pinned" or "newest"


class ApiParameter(TypedDict, total=False):
    name: str
    type: str | None
    default: str | None
    required: bool
    kind: str
    description: str | None


class ApiReturns(TypedDict, total=False):
    type: str | None
    description: str | None
    class_id: str | None
    item_class_id: str | None


class ApiResult(TypedDict, total=False):
    rank: int
    api_id: str
    library: str
    signature: str
    description: str
    relevance: float
    importance: float
    score: float
    signals: dict[str, int | None]
    aliases: list[str]
    import_path: str  # the path users import it by (library.find.import_paths.import_path)
    variants: Annotated[
        list[Any],
        Field(
            description="The other editions of it (an async def beside a def): other functions, not aliases."
        ),
    ]
    kind: str
    parameters: list[ApiParameter]
    returns: ApiReturns | None
    examples: list[str]
    deprecated: str | None
    raised: list[str]  # an exception: where the library raises it ("Raised by …: message")


# Keywords that apply to values of one JSON type only: a schema made of them and a "type" takes
# null too once "null" joins its type list (not so with enum, const, anyOf … which apply to all).
_TYPE_ONLY_KEYWORDS = frozenset(
    {"type", "title", "description", "properties", "required", "additionalProperties", "items"}
    | {"minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum"}
)


def flat_schema(schema: Any, resolve: Any, seen: tuple[str, ...] = ()) -> Any:
    """``schema`` with every ``$ref`` replaced by its definition (``resolve``: pydantic's
    ``resolve_ref_schema``) and ``anyOf`` a plain type or null folded into one type list.

    The same values are valid. It is what the MCP client checks each answer against (the SDK
    validates structured content with jsonschema): a ``$ref`` is a registry lookup per value
    and ``anyOf`` a trial per alternative, so for find_api's answers (5 APIs, ~9 KB of JSON
    with their parameters) validation took 5.4–6.3 ms a call with the derived schema and
    2.0–2.7 ms with this one (measured with the SDK's cached validator, 2 CPUs, under load).

    Raises:
        ValueError: a recursive definition (it cannot be written out in place).
    """
    if isinstance(schema, list):
        return [flat_schema(x, resolve, seen) for x in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        ref = schema["$ref"]
        if ref in seen:
            raise ValueError(f"recursive schema definition {ref}")
        target = resolve({"$ref": ref})
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return flat_schema({**target, **rest}, resolve, (*seen, ref))
    out = {k: flat_schema(v, resolve, seen) for k, v in schema.items()}
    alternatives = out.get("anyOf")
    if isinstance(alternatives, list) and set(out) <= {"anyOf", "title", "description"}:
        folded = _or_null(alternatives)
        if folded is not None:  # the field's own title and description stay
            return {**folded, **{k: v for k, v in out.items() if k != "anyOf"}}
    return out


def _or_null(alternatives: list[Any]) -> dict[str, Any] | None:
    """``anyOf`` alternatives as one schema with a type list, when that means the same."""
    if not all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in alternatives):
        return None
    types = [a["type"] for a in alternatives]
    if all(set(a) == {"type"} for a in alternatives):
        return {"type": types}
    rich = [a for a in alternatives if set(a) != {"type"}]
    if (
        len(rich) == 1
        and types.count("null") == len(alternatives) - 1
        and set(rich[0]) <= _TYPE_ONLY_KEYWORDS
    ):
        return {**rich[0], "type": [rich[0]["type"], "null"]}
    return None


class FlatSchema:
    """Annotation: the field's published JSON schema written out flat (:func:`flat_schema`)."""

    def __get_pydantic_json_schema__(
        self, core: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        flat: JsonSchemaValue = flat_schema(handler(core), handler.resolve_ref_schema)
        return flat


class FindApiOut(TypedDict):
    query: str
    results: Annotated[list[ApiResult], FlatSchema()]  # each call's answer is checked against it
    versions: Annotated[dict[str, str | None], FlatSchema()]
    warnings: list[str]
    version_reasons: NotRequired[dict[str, str]]  # library → "asked", "pinned" or "newest"


class Example(TypedDict, total=False):
    example_id: str
    library: str
    title: str
    code: str
    language: str
    apis_used: list[str]
    complexity: str
    prerequisites: list[str]
    validated: bool | None
    deprecated_apis: dict[str, str | None]
    drift: list[Any]
    source: str
    relevance: float
    origin: str  # "docs", or "docstring": from the API's own docstring


class ExamplesOut(TypedDict):
    task: str
    examples: list[Example]
    versions: dict[str, str | None]
    warnings: list[str]
    version_reasons: NotRequired[dict[str, str]]  # library → "asked", "pinned" or "newest"


class ReportOut(TypedDict):
    status: str
    issue_type: str
    query: str
    library: str | None
    times_reported: int
    suggestions: list[str]


# -- repository documentation (the repodocs group) ---------------------------------------------

RepoDocsMode = Literal["model", "no_model"]


Problems = Annotated[
    int,
    Field(
        ge=0, description="Files of the repository that could not be read (listed in the tree's index.md)."
    ),
]
Tokens = Annotated[
    int, Field(ge=0, description="Tokens the run's model calls used so far (prompt and reply).")
]
UnitCount = Annotated[int, Field(ge=0, description="A number of units (functions, classes, modules).")]


class RepoDocsGenerateOut(TypedDict):
    root: str
    mode: RepoDocsMode
    finished: bool
    run_id: int | None
    out: str | None
    source: str | None
    documents: dict[str, int]
    problems: Problems
    message: str


class RepoDocsUnits(TypedDict):
    total: UnitCount
    done: UnitCount
    failed: UnitCount
    pending: UnitCount


class RepoDocsCode(TypedDict):
    """The code as it is now against the code documented: what a generate would redo."""

    current: bool
    changed: list[str]
    added: list[str]
    removed: list[str]


class RepoDocsStatusOut(TypedDict):
    root: str
    mode: RepoDocsMode
    run_id: int | None
    status: str
    finished: bool
    running: bool
    units: RepoDocsUnits
    tokens: Tokens
    current_unit: str | None
    out: str | None
    stopped: str | None  # why a run this server made stopped early (None: it did not, or not its)
    code: NotRequired[RepoDocsCode | None]  # units changed, added or removed since documented


class RepoDocsShowOut(TypedDict):
    root: str
    unit: str
    mode: RepoDocsMode
    kind: str
    document: str


JobStatus = Literal["queued", "running", "done", "failed"]


class JobOut(TypedDict):
    id: int
    kind: str
    args: dict[str, Any]
    status: JobStatus
    dedupe: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    heartbeat_at: str | None
    worker: str | None
    attempts: int
    result: Any
    error: str | None


class JobsOut(TypedDict):
    jobs: list[JobOut]


class QueuedJobOut(TypedDict):
    job: JobOut
    queued: bool  # False: the same refresh was already queued or running
