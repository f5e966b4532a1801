"""The job tools of the MCP server (the ``jobs`` group): list_jobs and queue_refresh.

A team's replicas leave long work to ``docmentor worker`` processes: queue_refresh puts one
refresh in the index's job table (not again while the same one waits or runs), and
list_jobs shows what is queued, running, done or failed, with each job's result or error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from docmentor import mcp_schemas as out
from docmentor.mcp_contract import READ_ONLY, run, structured, tool

if TYPE_CHECKING:
    from docmentor import Docmentor

# it adds a row to the job table; queueing the same refresh twice is one job
QUEUE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def jobs_tools(server: MCPServer, engine: Docmentor) -> None:
    from docmentor import get_job, queue_job
    from docmentor import list_jobs as jobs_in

    @tool(server, annotations=READ_ONLY, title="List jobs")
    async def list_jobs(
        status: Annotated[
            out.JobStatus | None, Field(description="Only jobs in this state (default: all).")
        ] = None,
        job_id: Annotated[int | None, Field(description="Only this job.", ge=1)] = None,
        limit: Annotated[int, Field(description="At most this many, newest first.", ge=1, le=200)] = 20,
    ) -> Annotated[CallToolResult, out.JobsOut]:
        """List the jobs workers do (refreshes, README.LLM and repository documentation):
        state, worker, attempts, times, and the result or the error."""
        if job_id is not None:
            rows = [await run(lambda: get_job(engine, job_id))]
        else:
            rows = await run(lambda: jobs_in(engine, status=status, limit=limit))
        return structured({"jobs": [j.to_dict() for j in rows]})

    @tool(server, annotations=QUEUE, title="Queue a refresh for a worker")
    async def queue_refresh(
        source: Annotated[str | None, Field(description="Only this source (default: all).")] = None,
    ) -> Annotated[CallToolResult, out.QueuedJobOut]:
        """Queue a refresh of one source (or all) for a `docmentor worker`: answers at once;
        follow it with list_jobs. The same refresh is not queued twice while it waits or runs."""
        source = source or None  # a model's blank source means none given, as refresh_sources takes it
        args = {} if source is None else {"source": source}
        # an unknown source is the caller's error, said so
        job, new = await run(lambda: queue_job(engine, "refresh", args, dedupe=f"refresh:{source or '*'}"))
        return structured({"job": job.to_dict(), "queued": new})
