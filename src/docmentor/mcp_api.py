"""The library-knowledge tools of the MCP server (find_api, get_examples,
get_library_overview) and report_issue."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from docmentor import DocmentorError
from docmentor import mcp_schemas as out
from docmentor.mcp_contract import READ_ONLY, now, run, structured, tool
from docmentor.mcp_schemas import KB_VERSION_DESCRIPTION, MAX_FIND_RESULTS, VERSION_PATTERN

if TYPE_CHECKING:
    from docmentor import Docmentor

log = logging.getLogger(__name__)
# the allowed values in the input schemas ("enum"): an agent sees them before it guesses
Aspect = Literal["architecture", "quickstart", "concepts", "all"]
Complexity = Literal["beginner", "intermediate", "advanced", "any"]
IssueType = Literal["error", "unclear_docs", "missing_example", "wrong_signature"]
WARMING: list[threading.Thread] = []  # background warm-ups, joined before a server exits


def api_tools(server: MCPServer, engine: Docmentor, *, api: bool, feedback: bool) -> None:
    from docmentor import LibraryKnowledge, SessionLog, knowledge_bases
    from docmentor import report_issue as _report

    knowledge = LibraryKnowledge(engine)
    session = SessionLog()
    try:
        registered = api and bool(knowledge_bases(engine))
    except DocmentorError as exc:  # the first call reports it; the server still starts
        log.warning("cannot list the knowledge bases: %s", exc)
        registered = False
    if registered:
        # the first find_api would otherwise load the index and the query model (~0.5 s)
        warming = threading.Thread(target=knowledge.warm, name="docmentor-warm", daemon=True)
        warming.start()
        WARMING.append(warming)

    if api:

        @tool(server, annotations=READ_ONLY, title="Library overview")
        async def get_library_overview(
            aspect: Annotated[Aspect, Field(description="Which part of the overview.")] = "all",
            library: Annotated[
                str | None, Field(description="The library (when several are registered).")
            ] = None,
            version: Annotated[
                str | None, Field(pattern=VERSION_PATTERN, description=KB_VERSION_DESCRIPTION)
            ] = None,
        ) -> Annotated[CallToolResult, out.OverviewOut]:
            """Overview of a library from its generated knowledge base: aspect is "architecture"
            (key modules and classes), "quickstart" (install and first example), "concepts" or "all".
            Name the library when several are registered (the instructions list them). States
            the library version it describes."""
            session.record("get_library_overview", {"aspect": aspect, "library": library})
            found = await run(lambda: knowledge.overview(library, aspect=aspect, version=version or None))
            return structured(found.to_dict())

        @tool(server, annotations=READ_ONLY, title="Find an API")
        async def find_api(
            query: Annotated[str, Field(description='The task in words ("stream a large download").')],
            max_results: Annotated[int, Field(ge=1, le=MAX_FIND_RESULTS, description="How many APIs.")] = 5,
            library: Annotated[str | None, Field(description="Only this library.")] = None,
            version: Annotated[
                str | None, Field(pattern=VERSION_PATTERN, description=KB_VERSION_DESCRIPTION)
            ] = None,
        ) -> Annotated[CallToolResult, out.FindApiOut]:
            """Find the library functions, classes and methods that do a task, with their real
            signatures (introspected from the installed package), parameters, return types and
            ids of examples that use them (get_examples takes them in apis_involved and shows
            those examples first). Describe the task in words ("stream a large download").
            Use it before writing code against a library, instead of guessing names. An API
            the library marks deprecated says so ("deprecated": the reason, often the
            replacement) and comes after what replaces it."""
            session.record("find_api", {"query": query, "max_results": max_results, "library": library})
            call = lambda: knowledge.find_api(  # noqa: E731
                query, max_results=max_results, library=library or None, version=version or None
            )
            # a few milliseconds once the index and the model are loaded: in the event loop,
            # sparing a worker thread's two hand-overs (~1 ms of a round trip); else in one
            found = now(call) if knowledge.ready() else await run(call)
            return structured(found.to_dict())

        @tool(server, annotations=READ_ONLY, title="Get examples")
        async def get_examples(
            task_description: Annotated[str, Field(description="The task in words.")],
            apis_involved: Annotated[
                list[str] | None,
                Field(
                    description="API ids or names (from find_api) the examples should use, or "
                    "example ids (find_api's examples) to show first."
                ),
            ] = None,
            complexity: Annotated[Complexity, Field(description="How involved an example.")] = "any",
            library: Annotated[str | None, Field(description="Only this library.")] = None,
            version: Annotated[
                str | None, Field(pattern=VERSION_PATTERN, description=KB_VERSION_DESCRIPTION)
            ] = None,
        ) -> Annotated[CallToolResult, out.ExamplesOut]:
            """Working code examples from the library's documentation for a task; examples using
            apis_involved (api ids or names from find_api) come first. complexity: beginner,
            intermediate, advanced or any. An example that uses an API the installed version
            deprecates lists it in deprecated_apis (with the reason) and comes after the others."""
            session.record(
                "get_examples", {"task_description": task_description, "apis_involved": apis_involved}
            )
            found = await run(
                lambda: knowledge.get_examples(
                    task_description,
                    apis_involved=apis_involved,
                    complexity=complexity,
                    library=library or None,
                    version=version or None,
                )
            )
            return structured(found.to_dict())

    if feedback:

        @tool(
            server,
            annotations=ToolAnnotations(
                read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
            ),
            title="Report an issue",
        )
        async def report_issue(
            query: Annotated[str, Field(description="What you were trying to do or find.")],
            issue_type: IssueType,
            apis_tried: Annotated[list[str] | None, Field(description="The APIs you tried.")] = None,
            error_message: Annotated[str | None, Field(description="The error you got.")] = None,
            code_attempted: Annotated[str | None, Field(description="The code that failed.")] = None,
            library: Annotated[str | None, Field(description="The library it is about.")] = None,
        ) -> Annotated[CallToolResult, out.ReportOut]:
            """Report when you are stuck, got an error, or the documentation seems wrong: it is logged
            so the docs get fixed, and you get suggestions now. issue_type: error, unclear_docs,
            missing_example or wrong_signature."""
            context = session.recent()
            reported = await run(
                lambda: _report(
                    engine.store,
                    query=query,
                    issue_type=issue_type,
                    library=library,
                    apis_tried=apis_tried,
                    error_message=error_message,
                    code_attempted=code_attempted,
                    session_context=context,
                )
            )
            return structured(reported.to_dict())
