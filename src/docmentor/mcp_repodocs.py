"""The repository-documentation tools of the MCP server (the ``repodocs`` group):
repo_docs_generate, repo_docs_status and repo_docs_show, over repositories in the folders a
user allowed (``serve --allow-path``) and nowhere else.

Without a model (``no_llm``, or no endpoint configured) a generation is synchronous (seconds
even for a large repository) and its tree is indexed as the docs source ``repo-NAME``; with a
model it runs in a background thread (one per repository) and the tool answers at once with
the run id, which repo_docs_status follows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from docmentor import DocmentorError, NotFoundError, UsageError
from docmentor import mcp_schemas as out
from docmentor.mcp_contract import READ_ONLY, run, structured, tool

if TYPE_CHECKING:
    from docmentor import Docmentor, ReadPolicy, RepoDocsJobs
    from docmentor.server import ServerState

# it replaces only the tree an earlier run wrote; with a model, it calls the model's endpoint
GENERATE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)
PATH_HELP = "The repository's folder (in a folder the server was allowed to read: serve --allow-path)."


def confined_repository(engine: Docmentor, policy: ReadPolicy, path: str) -> Path:
    """``path`` as a repository folder inside the policy's allowed folders. Anything outside
    them, existing or not, gets one answer (as :meth:`ReadPolicy.resolve` gives for files)."""
    if path.strip() and "://" not in path:
        real = Path(os.path.realpath(Path(path).expanduser()))
        if any(real.is_relative_to(root) for root in policy.allowed):
            if not real.is_dir():
                raise NotFoundError(f"no folder {path} in the allowed folders", hint="check the path")
            return real
    try:
        policy.resolve(engine, path)  # an indexed document is said as such; nothing else is
    except (NotFoundError, UsageError):  # one answer for everything outside, existing or not
        raise NotFoundError(
            f"{path!r} is not a folder this server may read",
            hint="give a repository folder inside the allowed folders "
            "(the user allows one with `docmentor serve --allow-path DIR`)",
        ) from None
    raise UsageError(
        f"{path} is an indexed document, not a repository folder", hint="give the repository's folder"
    )


def generate(engine: Docmentor, jobs: RepoDocsJobs, root: Path, *, no_llm: bool) -> dict[str, Any]:
    """One repo_docs_generate: the no-model tree written and indexed, or the agent started."""
    from docmentor import LLMConfig, generate_repo_docs

    config = None if no_llm else LLMConfig.from_env()
    if config is not None:
        run_id = jobs.start(root, config)
        if run_id is None and root in jobs.errors:
            raise DocmentorError(f"the documentation run of {root} failed: {jobs.errors[root]}")
        return {
            "root": str(root), "mode": "model", "finished": False, "run_id": run_id, "out": None,
            "source": None, "documents": {}, "problems": 0,
            "message": "the agent documents the repository in the background, then writes and indexes "
            "its tree: follow it with repo_docs_status",
        }  # fmt: skip
    if jobs.running(root):
        raise UsageError(
            f"the documentation of {root} is being generated with a model",
            hint="wait for it (repo_docs_status)",
        )
    generation = generate_repo_docs(engine, root)
    result, source = generation.tree, generation.source
    assert source is not None
    units = sum(result.documents.values())
    return {
        "root": result.root, "mode": "no_model", "finished": True, "run_id": None, "out": result.out,
        "source": source.name, "documents": dict(sorted(result.documents.items())), "problems": len(result.problems),
        "message": f"documented {units} units from the code alone; search_docs(source={source.name!r}) searches them",
    }  # fmt: skip


def repodocs_tools(server: MCPServer, engine: Docmentor, state: ServerState) -> None:
    from docmentor import RepoDocsJobs, repo_docs_progress, repo_docs_unit

    jobs = RepoDocsJobs(engine)

    @tool(server, annotations=GENERATE, title="Document a repository")
    async def repo_docs_generate(
        path: Annotated[str, Field(description=PATH_HELP)],
        no_llm: Annotated[
            bool, Field(description="Write from the code alone, even with a model configured.")
        ] = False,
    ) -> Annotated[CallToolResult, out.RepoDocsGenerateOut]:
        """Document a Python repository unit by unit (modules, classes, functions), dependencies
        first. Without a model (no_llm, or none configured for the server) it takes seconds:
        a Markdown tree is written under PATH/.docmentor-docs and indexed as the docs source
        repo-NAME (search_docs, get_doc and assemble_context serve it); the result is final.
        With a model it starts in the background and returns the run id at once: follow it
        with repo_docs_status, read a unit with repo_docs_show."""
        return structured(
            await run(
                lambda: generate(engine, jobs, confined_repository(engine, state.policy, path), no_llm=no_llm)
            )
        )

    @tool(server, annotations=READ_ONLY, title="Repository documentation status")
    async def repo_docs_status(
        path: Annotated[str, Field(description=PATH_HELP)],
    ) -> Annotated[CallToolResult, out.RepoDocsStatusOut]:
        """How far the latest documentation of a repository is: units done, failed and
        pending of the total, tokens used, the unit being worked on, finished or not,
        whether this server is still running it, and why its run stopped early (`stopped`:
        calling repo_docs_generate again goes on where it stopped)."""

        def status() -> dict[str, Any]:
            root = confined_repository(engine, state.policy, path)
            if root in jobs.errors and not jobs.running(root):
                raise DocmentorError(f"the documentation run of {root} failed: {jobs.errors[root]}")
            running = jobs.running(root)
            found = {**repo_docs_progress(engine, root).to_dict(), "running": running, "stopped": None}
            if not running and root in jobs.ended:  # a run this server made, and how it ended
                stopped, out = jobs.ended[root]
                found["stopped"] = stopped
                found["out"] = found["out"] or out
            return found

        return structured(await run(status))

    @tool(server, annotations=READ_ONLY, title="Show a unit's documentation")
    async def repo_docs_show(
        unit: Annotated[str, Field(description="The unit's id, a dotted name such as pkg.module.func.")],
        path: Annotated[str, Field(description=PATH_HELP)],
    ) -> Annotated[CallToolResult, out.RepoDocsShowOut]:
        """The document of one unit (module, class, function…) from the latest documentation
        of a repository; an unknown id names the closest ones."""
        return structured(
            await run(
                lambda: repo_docs_unit(
                    engine, confined_repository(engine, state.policy, path), unit
                ).to_dict()
            )
        )
