"""The MCP server: tools over the library API, for Claude Code, Cursor and any MCP client.

Thin: each tool parses its arguments, calls :class:`docmentor.Docmentor` in a
worker thread, and returns structured content (the SDK mirrors it as JSON text).
Errors become tool errors written for the model: what went wrong and what to try.
"""

from __future__ import annotations

import json
import logging
import sys
import weakref
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from docmentor import (
    Authenticator,
    BackgroundEmbedder,
    Docmentor,
    DocmentorError,
    ReadPolicy,
    RefreshScheduler,
    UnindexedSources,
    UsageError,
    __version__,
    has_tokens,
    index_exists,
    mcp_sdk,
    refresh_pass,
)
from docmentor import mcp_schemas as out
from docmentor.mcp_auth import ScopedTools
from docmentor.mcp_contract import READ_ONLY, REFRESH, Contract, tool
from docmentor.mcp_contract import now as _now
from docmentor.mcp_contract import run as _run
from docmentor.mcp_contract import structured as _structured
from docmentor.mcp_contract import tool_error as _tool_error
from docmentor.mcp_http import check_port as _check_port
from docmentor.mcp_schemas import (
    CONTEXT_CHARS,
    LINES_PATTERN,
    MAX_CHUNKS,
    MAX_DEPTH,
    MAX_DIGEST_TOKENS,
    MAX_DOC_CHARS,
    MAX_FIND_RESULTS,
    MAX_SEARCH_LIMIT,
    MAX_SECTIONS,
    MIN_DIGEST_TOKENS,
    VERSION_DESCRIPTION,
    VERSION_PATTERN,
    DigestFormat,
)

if TYPE_CHECKING:
    from docmentor import OAuthConfig, OAuthVerifier

log = logging.getLogger(__name__)

TOOL_GROUPS = ("docs", "api", "assemble", "clarity", "feedback", "repodocs", "jobs")
# repodocs is asked for by name: it writes into the user's repositories (and, with a model,
# spends tokens), and reaches only the folders of --allow-path; jobs too: it serves a team's
# set-up, where `docmentor worker` processes take the queued work
DEFAULT_GROUPS = ("docs", "api", "assemble", "clarity", "feedback")
__all__ = [
    "MAX_DIGEST_TOKENS",
    "MAX_DOC_CHARS",
    "MAX_FIND_RESULTS",
    "MAX_SEARCH_LIMIT",
    "build_server",
    "run_server",
]


class ServerState:
    """What one server knows beyond the index: its tool groups, what score_document may read
    (the indexed documents and the folders a user allowed), and the configured sources that
    could not be indexed (listed by list_sources with their error until they are)."""

    def __init__(self, groups: list[str], allow_paths: Sequence[Path]) -> None:
        self.groups = groups
        self.policy = ReadPolicy.allowing(allow_paths)
        self.unindexed = UnindexedSources()


# each server's state, kept beside the SDK's object rather than injected into it
_STATES: weakref.WeakKeyDictionary[MCPServer, ServerState] = weakref.WeakKeyDictionary()


def _state(server: MCPServer) -> ServerState | None:
    return _STATES.get(server)


def instructions(engine: Docmentor, groups: list[str] | None = None) -> str:
    """Server instructions (< 2 KB): what is indexed and when to use which tool, for the
    tool groups this server has (all by default)."""
    groups = list(DEFAULT_GROUPS) if groups is None else groups
    parts = []
    if "docs" in groups or "assemble" in groups:
        rows = engine.sources()
        names = ", ".join(f"{r['name']} ({r['documents']} docs)" for r in rows[:12]) or "none yet"
        if len(rows) > 12:
            names += f", and {len(rows) - 12} more"
        parts.append(f"docmentor serves indexed documentation. Indexed sources: {names}.")
    if "docs" in groups:
        parts.append(
            "Use search_docs before writing code against a library or answering a question about these docs: "
            "it returns the best-matching sections with path, line range and a snippet. "
            "Then read more with get_doc_excerpt (passages of one document matching a query) or get_doc "
            '(the whole document, paginated: pass offset while has_more is true; lines="START-END" for a hit\'s lines). '
            "Pass source=NAME to search one source. list_sources shows what is indexed; refresh_sources "
            "re-reads sources when the docs changed. Quote the path and lines you relied on."
        )
    if "assemble" in groups:
        parts.append("For a how-to or design question, assemble_context gives one token-budgeted digest.")
    if "api" in groups:
        from docmentor import knowledge_bases

        try:
            rows_kb = knowledge_bases(engine)
        except DocmentorError:
            rows_kb = []
        kbs = ", ".join(f"{k.library} {k.version or '(version unknown)'}" for k in rows_kb[:12])
        if len(rows_kb) > 12:
            kbs += f", and {len(rows_kb) - 12} more"
        if rows_kb:
            parts.append(
                f"Library knowledge bases: {kbs}. Before calling an API of these libraries, "
                "find_api(task in words) gives the real signatures of the installed version; get_examples "
                "working code from the docs; get_library_overview the big picture."
            )
        else:  # find_api would only fail: say so instead of sending the model to it first
            parts.append(
                "No library knowledge base is registered yet, so find_api, get_examples and "
                "get_library_overview have nothing to answer from (a user creates one with "
                "`docmentor readme-llm generate`)."
            )
    if "feedback" in groups:
        parts.append(
            "When an answer was wrong or missing, or code from it failed, report_issue logs it and suggests what to try."
        )
    if "clarity" in groups:
        parts.append(
            "score_document scores how clear one indexed document is (SOURCE:PATH); "
            "calculate_clarity_score, calculate_dimension_score, explain_score and get_improvement_roadmap "
            "work from issue counts and issues you give; get_rubric shows the grades."
        )
    if "repodocs" in groups:
        parts.append(
            "repo_docs_generate documents a Python repository in an allowed folder; repo_docs_status "
            "follows it, repo_docs_show gives one unit's document."
        )
    if "jobs" in groups:
        parts.append(
            "queue_refresh queues a refresh of the indexed sources for a `docmentor worker` to do; "
            "list_jobs follows the queue."
        )
    return "\n".join(parts)[:2000]


def check_groups(tools: list[str] | None) -> list[str]:
    """The requested tool groups (DEFAULT_GROUPS by default); unknown names are an error."""
    groups = tools or list(DEFAULT_GROUPS)
    unknown = [g for g in groups if g not in TOOL_GROUPS]
    if unknown:
        raise UsageError(
            f"unknown tool group(s): {', '.join(unknown)}", hint=f"choose from {', '.join(TOOL_GROUPS)}"
        )
    return groups


def build_server(
    engine: Docmentor, *, tools: list[str] | None = None, allow_paths: Sequence[Path] = ()
) -> MCPServer:
    """An MCP server over ``engine`` with the requested tool groups. ``allow_paths``: folders
    whose files score_document may read besides the indexed documents (``serve --allow-path``)."""
    groups = check_groups(tools)
    server: MCPServer = MCPServer(
        name="docmentor", version=__version__, instructions=instructions(engine, groups), log_level="WARNING"
    )
    state = ServerState(groups, allow_paths)
    _STATES[server] = state  # for _background, _update_instructions
    server.middleware.append(Contract(server))
    server.middleware.append(ScopedTools(server))  # a read-scope token sees the read-only tools

    if "docs" in groups:
        _docs_tools(server, engine, state)
    if "assemble" in groups:
        _assemble_tools(server, engine)
    if "clarity" in groups:
        from docmentor.mcp_clarity import clarity_tools

        clarity_tools(server, engine, state)
    if "api" in groups or "feedback" in groups:
        from docmentor.mcp_api import api_tools

        api_tools(server, engine, api="api" in groups, feedback="feedback" in groups)
    if "repodocs" in groups:
        from docmentor.mcp_repodocs import repodocs_tools

        repodocs_tools(server, engine, state)
    if "jobs" in groups:
        from docmentor.mcp_jobs import jobs_tools

        jobs_tools(server, engine)
    _strict_arguments(server)
    return server


def _strict_arguments(server: MCPServer) -> None:
    """An argument a tool does not take is an error, not silently dropped: an agent that
    guesses a name (``calculate_clarity_score(document=...)``) learns it, instead of an
    answer computed without it. The input schemas say so too (``additionalProperties``)."""
    mcp_sdk.forbid_extra_arguments(server)


def _background(
    engine: Docmentor, server: MCPServer | None, *, configured: bool, interval_hours: float
) -> None:
    """Start the refresh scheduler (:class:`docmentor.RefreshScheduler`): the
    configured sources that are missing indexed, then a refresh every ``interval_hours``;
    after each, the embedder woken and the instructions naming what is indexed (new sessions
    see them)."""
    state = _state(server) if server is not None else None
    RefreshScheduler(
        engine,
        configured=configured,
        interval_hours=interval_hours,
        embedder=EMBEDDER,
        unindexed=state.unindexed if state is not None else None,
        on_change=lambda: _update_instructions(server, engine),
    ).start()


def _update_instructions(server: MCPServer | None, engine: Docmentor) -> None:
    """Name the sources indexed now in the instructions that new sessions receive."""
    if server is None:
        return
    state = _state(server)
    try:
        mcp_sdk.set_instructions(server, instructions(engine, state.groups if state else None))
    except Exception as exc:  # never worth failing a refresh for
        log.debug("instructions not updated: %s", exc)


def run_server(
    *,
    db: str | Path | None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    tools: list[str] | None = None,
    refresh_interval_hours: float = 0.0,
    embeddings: bool | None = None,
    allow_paths: Sequence[Path] = (),
    token_file: Path | None = None,
    insecure: bool = False,
    allow_hosts: Sequence[str] = (),
    oauth: OAuthConfig | None = None,
) -> None:
    """Run until the client goes away (stdio) or the process is stopped (http).

    Sections without vectors are embedded by a background thread; until the model is
    loaded and they are, searches answer by words (never an error, never a wait).

    Over HTTP, an address other machines reach needs authentication — tokens stored in the
    index, ``token_file`` (a write-scope bearer token), or ``oauth`` (an issuer's JWTs) — or
    ``insecure``; Host and Origin are checked for every bind (:mod:`docmentor.mcp_http`,
    :mod:`docmentor.mcp_auth`)."""
    from docmentor.mcp_http import check_bind, read_token, serve_http

    # stdout belongs to the protocol in stdio mode: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=False)
    groups = check_groups(tools)  # before anything is created on disk
    if "repodocs" in groups and not allow_paths:
        sys.stderr.write(
            "docmentor: warning: --tools repodocs without --allow-path: its tools reach no repository "
            "(add --allow-path FOLDER for each one they may read and write)\n"
        )
    if refresh_interval_hours < 0:
        raise UsageError("the refresh interval must be 0 (off) or more hours")
    for folder in allow_paths:
        if not Path(folder).expanduser().is_dir():
            raise UsageError(f"--allow-path {folder}: not a folder", hint="name a folder of documents")
    token: str | None = None
    verifier: OAuthVerifier | None = None
    # an index that exists is opened first (its stored tokens decide whether HTTP needs
    # one); a new one only once the checks below pass
    engine = Docmentor(db, create=True, embeddings=embeddings) if index_exists(db) else None
    if transport == "stdio":
        given = [
            o
            for o, v in (
                ("--token-file", token_file),
                ("--insecure", insecure),
                ("--allow-host", allow_hosts),
                ("--oauth-issuer", oauth),
            )
            if v
        ]
        if given:
            raise UsageError(
                f"{', '.join(given)}: only for --transport http", hint="drop it, or serve over HTTP"
            )
    else:
        host = host.strip("[]")  # [::1] as in a URL
        token = read_token(token_file) if token_file is not None else None
        if oauth is not None:  # httpx and jwt load only for a server that checks JWTs
            from docmentor import OAuthVerifier

            verifier = OAuthVerifier(oauth)  # checks the URLs
        stored = engine is not None and has_tokens(engine)
        check_bind(host, authenticated=bool(token or verifier or stored), insecure=insecure)
        _check_port(host, port)  # before anything starts writing
        if verifier is not None and (warning := verifier.start()):
            sys.stderr.write(f"docmentor: warning: {warning}\n")
    if engine is None:
        engine = Docmentor(db, create=True, embeddings=embeddings)
    if transport != "stdio":  # a replica's log says what its background work did
        logging.getLogger("docmentor.scheduler").setLevel(logging.INFO)
    engine.wait_for_model = False
    engine.model_wait = MODEL_WAIT_SECONDS
    server = build_server(engine, tools=tools, allow_paths=allow_paths)
    EMBEDDER.start(engine)
    _background(engine, server, configured=True, interval_hours=refresh_interval_hours)
    if transport == "stdio":
        try:
            anyio.run(_serve_stdio, server)
        except* (BrokenPipeError, ConnectionResetError):  # the client stopped reading: done
            log.info("the client closed the connection")
    else:
        # a server that started with tokens required (or bound beyond loopback on them) keeps
        # requiring them, even if reading them fails now or all are revoked later
        auth = Authenticator(engine, file_token=token, oauth=verifier, required=stored)
        serve_http(server, host=host, port=port, auth=auth, allow_hosts=list(allow_hosts), insecure=insecure)


async def _serve_stdio(server: MCPServer) -> None:
    """stdio through the SDK's transport, with what it leaves out done by
    :mod:`docmentor.mcp_stdio` (malformed lines answered, requests read before the end of
    input answered)."""
    from mcp import stdio_server

    from docmentor.mcp_stdio import AnswerMalformed

    async with stdio_server() as (read, write):
        requests = AnswerMalformed(read, write)
        try:
            await mcp_sdk.serve(server, requests, requests.replies)
        finally:  # before fd 1 is the wire again
            _join_warming()  # an interpreter exiting under onnxruntime's start can abort
            with suppress(OSError, ValueError):  # what a handler printed goes to stderr too
                sys.stdout.flush()


def _join_warming() -> None:
    from docmentor.mcp_api import WARMING

    EMBEDDER.stop()
    for thread in WARMING:
        thread.join(timeout=10)


EMBEDDER = BackgroundEmbedder()
#: how long a search waits for the query model the server is loading (it loads in ~1 s at
#: start; past this the search answers by words): the first question is often the agent's key one
MODEL_WAIT_SECONDS = 2.0


def _version_notes(engine: Docmentor, source: str | None, version: str | None, hits: list[Any]) -> list[str]:
    """What a search's version choice passed over (a pin no indexed version fits), when a hit
    says a choice was made: the agent reads it, as a terminal user reads the CLI's note."""
    if not any(h.version_reason for h in hits):
        return []
    try:
        return list(engine.version_scope(source, version).notes)
    except DocmentorError:
        return []


def _docs_tools(server: MCPServer, engine: Docmentor, state: ServerState) -> None:
    @tool(server, annotations=READ_ONLY, title="Search documentation")
    async def search_docs(
        query: Annotated[str, Field(description="What to look for: a question, keywords or API names.")],
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT, description="How many sections.")] = 5,
        source: Annotated[str | None, Field(description="Only this source (see list_sources).")] = None,
        version: Annotated[
            str | None,
            Field(pattern=VERSION_PATTERN, description=VERSION_DESCRIPTION),
        ] = None,
    ) -> Annotated[CallToolResult, out.SearchOut]:
        """Search the indexed documentation and return the best-matching sections, best first.

        Each result has source, path, url, title, heading, heading_path, line_start/line_end
        (1-based, in the original file), score, a snippet and source_version. Ask in words or
        with identifiers (`httpx.AsyncClient`, `max_connections`). Use get_doc_excerpt, or
        get_doc with lines="START-END", to read more. Where several versions of a library are
        indexed, the project's pinned one answers (else the newest) unless version names one;
        version_reason says why.
        """
        if not query.strip():  # as the CLI: a blank query is a mistake, not a search for nothing
            raise _tool_error(UsageError("empty query", hint="ask in words, or with an identifier"))
        hits = _now(lambda: engine.search(query, source=source or None, version=version or None, limit=limit))
        data: dict[str, Any] = {"query": query, "results": [h.to_dict() for h in hits]}
        if notes := _version_notes(engine, source or None, version or None, hits):
            data["notes"] = notes
        return _structured(data)

    @tool(server, annotations=READ_ONLY, title="Read a document")
    async def get_doc(
        url_or_path: Annotated[
            str,
            Field(
                description="A URL or path from search results, SOURCE:PATH, or LIBRARY:PATH (the "
                "version a search answers from); with #anchor (as the docs link: page.md#usage) only "
                "that section; a citation page.md:12-30 (as digests cite) only those lines, page.md:12 "
                "the section holding line 12."
            ),
        ],
        offset: Annotated[int, Field(ge=0, description="First character of the page.")] = 0,
        limit: Annotated[int, Field(ge=1, le=MAX_DOC_CHARS, description="Characters in the page.")] = 50_000,
        lines: Annotated[
            str | None,
            Field(
                pattern=LINES_PATTERN,
                description='Only lines START-END of the original file, e.g. "12-40" (as search results give them).',
            ),
        ] = None,
    ) -> Annotated[CallToolResult, out.DocPageOut]:
        """Return one indexed document's Markdown, paginated by characters.

        When has_more is true, call again with offset = offset + length. With lines, only
        those lines of the original file (a search result's line_start-line_end) are paged.
        """
        span: tuple[int, int] | None = None
        if lines is not None:
            a, _, b = lines.partition("-")
            span = (int(a), int(b) if b.strip() else int(a))
        page = await _run(lambda: engine.get(url_or_path, offset=offset, limit=limit, lines=span))
        return _structured(page.to_dict())

    @tool(server, annotations=READ_ONLY, title="Excerpts of a document")
    async def get_doc_excerpt(
        url_or_path: Annotated[
            str,
            Field(
                description="A URL or path from search results, SOURCE:PATH or LIBRARY:PATH; with "
                "#anchor or a citation's :12-30, only that part of the page is searched."
            ),
        ],
        query: Annotated[str, Field(description="What the passages should be about.")],
        max_chunks: Annotated[int, Field(ge=1, le=MAX_CHUNKS, description="How many passages.")] = 5,
        context_chars: Annotated[
            int,
            Field(
                ge=CONTEXT_CHARS[0], le=CONTEXT_CHARS[1], description="Characters of context around a match."
            ),
        ] = 500,
    ) -> Annotated[CallToolResult, out.ExcerptOut]:
        """Return the passages of one document that best match a query (cheaper than get_doc).

        Each excerpt has heading, heading_path, line_start/line_end and text of about
        2 x context_chars characters.
        """
        if not query.strip():  # as search_docs: a blank query is a mistake
            raise _tool_error(UsageError("empty query", hint="ask in words, or with an identifier"))
        found = await _run(
            lambda: engine.excerpt(url_or_path, query, max_chunks=max_chunks, context_chars=context_chars)
        )
        return _structured(found)

    @tool(server, annotations=READ_ONLY, title="List sources")
    async def list_sources() -> Annotated[CallToolResult, out.SourcesOut]:
        """List the documentation sources with document counts, status and last refresh.

        A configured source that could not be indexed is listed too, with kind "configured",
        status "error" and the error; one the server is indexing at its start, with status
        "not indexed", until it is indexed.
        """
        return _structured({"sources": state.unindexed.sources(_now(engine.sources))})

    @tool(server, annotations=REFRESH, title="Refresh sources")
    async def refresh_sources(
        source: Annotated[str | None, Field(description="Only this source (default: all).")] = None,
    ) -> Annotated[CallToolResult, out.RefreshOut]:
        """Re-read one source (or all, and index the configured ones not indexed yet): changed
        documents are re-indexed, unchanged ones skipped.

        A document that fails to fetch keeps its last good copy. Takes seconds for large sources.
        """
        # a model's blank source means none given, as search_docs takes it
        reports = await _run(lambda: refresh_pass(engine, source or None, unindexed=state.unindexed))
        EMBEDDER.wake()  # new sections are searchable by words now, by meaning once embedded
        _update_instructions(server, engine)
        return _structured({"sources": [r.to_dict() for r in reports]})

    @server.resource("doc://sources", name="sources", mime_type="application/json")
    def sources_resource() -> str:
        """The indexed sources as JSON."""
        return json.dumps({"sources": engine.sources()}, ensure_ascii=False)


def _assemble_tools(server: MCPServer, engine: Docmentor) -> None:
    # The tokenizer tables (~60 MB, ~0.3 s to load, holding the GIL) load on the first
    # assemble_context call, not at start: a server used only for search stays small.
    @tool(server, annotations=READ_ONLY, title="Assemble context for a question")
    async def assemble_context(
        query: Annotated[str, Field(description="The question, in words.")],
        max_tokens: Annotated[
            int,
            Field(
                ge=MIN_DIGEST_TOKENS, le=MAX_DIGEST_TOKENS, description="Token budget of the whole digest."
            ),
        ] = 8000,
        depth: Annotated[
            int, Field(ge=0, le=MAX_DEPTH, description="How far links are followed: 0, 1 or 2.")
        ] = 1,
        sections: Annotated[
            int,
            Field(ge=1, le=MAX_SECTIONS, description="At most this many sections (before cross-references)."),
        ] = 20,
        source: Annotated[str | None, Field(description="Only this source (see list_sources).")] = None,
        version: Annotated[
            str | None,
            Field(pattern=VERSION_PATTERN, description=VERSION_DESCRIPTION),
        ] = None,
        format: Annotated[
            DigestFormat, Field(description='"markdown" (read it directly) or "json" (structured).')
        ] = "markdown",
    ) -> Annotated[CallToolResult, out.DigestOut]:
        """Assemble the best documentation for one question into a single digest within a token budget.

        Use it before answering a how-to or design question, instead of many search_docs calls:
        canonical sources come first, linked sections (and ADRs) are followed, every passage
        says its source path and lines. The structured result holds the selected documents and
        sections; with format "markdown" also the digest as text (digest; the sections then
        carry no text of their own), with "json" the JSON digest itself.
        """
        from docmentor import assemble_context  # assembly loads on the first call

        digest = await _run(
            lambda: assemble_context(
                engine,
                query,
                max_tokens=max_tokens,
                depth=depth,
                sections=sections,
                source=source or None,
                allow_empty=True,
                fmt=format,
                version=version or None,
            )
        )
        note = None
        if digest.empty_reason == "nothing_fit":
            note = "No matching section fit within max_tokens: raise it, or use search_docs."
        elif digest.empty_reason == "nothing_matched":
            note = "Nothing in the index matched this question: try search_docs with other words."
        if format == "json":
            text = digest.json_text  # fitted to the budget, like the markdown
            data = {**digest.to_dict(), "format": "json"}  # json_text's data
        else:
            text = digest.markdown + (f"\n\n{note}\n" if note else "")
            data = digest.to_dict()
            # the passages are in the digest once: the sections list where each came from, not
            # their text again (a client that hands structured content to its model read the
            # budget three times over: digest, sections' text, and the text content)
            data["sections"] = [{k: v for k, v in s.items() if k != "text"} for s in data["sections"]]
            data.update(format="markdown", digest=text)
        if note:
            data["note"] = note
        return _structured(data, text=text)
