"""The MCP server: tools over the library API, for Claude Code, Cursor and any MCP client.

Thin: each tool parses its arguments, calls :class:`docmentor.engine.Docmentor` in a
worker thread, and returns structured content (the SDK mirrors it as JSON text).
Errors become tool errors written for the model: what went wrong and what to try.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from docmentor import __version__
from docmentor.engine import Docmentor
from docmentor.errors import DocmentorError, UsageError
from docmentor.readme_llm.feedback import ISSUE_TYPES
from docmentor.readme_llm.service import ASPECTS, COMPLEXITIES

log = logging.getLogger(__name__)

# the allowed values in the tools' input schemas ("enum"): an agent sees them before it
# guesses; a value outside them still gets the tool's own error, which names them
_Aspect = Annotated[str, Field(json_schema_extra={"enum": list(ASPECTS)})]
_Complexity = Annotated[str, Field(json_schema_extra={"enum": list(COMPLEXITIES)})]
_IssueType = Annotated[str, Field(json_schema_extra={"enum": list(ISSUE_TYPES)})]
T = TypeVar("T")
_WARMING: list[threading.Thread] = []  # background warm-ups, joined before a server exits
MAX_FIND_RESULTS = 20  # find_api results per call over MCP (an agent's context: the CLI allows 50)

MAX_SEARCH_LIMIT = 20
MAX_DOC_CHARS = 100_000
TOOL_GROUPS = ("docs", "api", "assemble", "clarity", "feedback")
AVAILABLE_GROUPS = ("docs", "api", "assemble", "clarity", "feedback")
MAX_DIGEST_TOKENS = 20_000  # a hard cap, whatever the client asks: tool results must stay usable
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
REFRESH = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)


def instructions(engine: Docmentor, groups: list[str] | None = None) -> str:
    """Server instructions (< 2 KB): what is indexed and when to use which tool, for the
    tool groups this server has (all by default)."""
    groups = list(AVAILABLE_GROUPS) if groups is None else groups
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
            "(the whole document, paginated: pass offset while has_more is true). "
            "Pass source=NAME to search one source. list_sources shows what is indexed; refresh_sources "
            "re-reads sources when the docs changed. Quote the path and lines you relied on."
        )
    if "assemble" in groups:
        parts.append("For a how-to or design question, assemble_context gives one token-budgeted digest.")
    if "api" in groups:
        from docmentor.store.kb import list_kbs

        try:
            rows_kb = list_kbs(engine.store)
        except DocmentorError:
            rows_kb = []
        kbs = ", ".join(f"{k.library} {k.version or '(version unknown)'}" for k in rows_kb[:12])
        if len(rows_kb) > 12:
            kbs += f", and {len(rows_kb) - 12} more"
        parts.append(
            f"Library knowledge bases: {kbs or 'none yet'}. Before calling an API of these libraries, "
            "find_api(task in words) gives the real signatures of the installed version; get_examples "
            "working code from the docs; get_library_overview the big picture."
        )
    if "feedback" in groups:
        parts.append(
            "When an answer was wrong or missing, or code from it failed, report_issue logs it and suggests what to try."
        )
    if "clarity" in groups:
        parts.append("calculate_clarity_score and get_improvement_roadmap judge how clear a document is.")
    return "\n".join(parts)[:2000]


def _tool_error(exc: DocmentorError) -> ToolError:
    """Our error as the model reads it: the message, then what to try."""
    hint = f" Try: {exc.hint}." if exc.hint else ""
    return ToolError(f"{exc.message}.{hint}")


async def _run(fn: Callable[[], T]) -> T:
    try:
        return await anyio.to_thread.run_sync(fn)
    except DocmentorError as exc:
        raise _tool_error(exc) from exc


def _now(fn: Callable[[], T]) -> T:
    """Run a call of a millisecond or less in the event loop itself: a worker thread's two
    hand-overs cost more than the call (a search: ~0.1–0.2 ms of a ~3 ms round trip)."""
    try:
        return fn()
    except DocmentorError as exc:
        raise _tool_error(exc) from exc


def _structured(data: dict[str, Any]) -> CallToolResult:
    """Structured content mirrored as compact JSON text (the SDK's own mirror is indented:
    half again as many bytes to write, read and parse for find_api's answers)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def check_groups(tools: list[str] | None) -> list[str]:
    """The requested tool groups (all available ones by default); unknown names are an error."""
    groups = tools or list(AVAILABLE_GROUPS)
    unknown = [g for g in groups if g not in TOOL_GROUPS]
    if unknown:
        raise DocmentorError(
            f"unknown tool group(s): {', '.join(unknown)}", hint=f"choose from {', '.join(TOOL_GROUPS)}"
        )
    return groups


def build_server(engine: Docmentor, *, tools: list[str] | None = None) -> MCPServer:
    """An MCP server over ``engine`` with the requested tool groups."""
    groups = check_groups(tools)
    unavailable = [g for g in groups if g not in AVAILABLE_GROUPS]
    if unavailable:
        log.warning("tool groups not available in this version, skipped: %s", ", ".join(unavailable))
    server: MCPServer = MCPServer(
        name="docmentor", version=__version__, instructions=instructions(engine, groups), log_level="WARNING"
    )
    server._docmentor_groups = groups  # type: ignore[attr-defined]  # for _update_instructions

    if "docs" in groups:
        _docs_tools(server, engine)
    if "assemble" in groups:
        _assemble_tools(server, engine)
    if "clarity" in groups:
        _clarity_tools(server, engine)
    if "api" in groups or "feedback" in groups:
        _api_tools(server, engine, api="api" in groups, feedback="feedback" in groups)
    _strict_arguments(server)
    return server


def _strict_arguments(server: MCPServer) -> None:
    """An argument a tool does not take is an error, not silently dropped: an agent that
    guesses a name (``calculate_clarity_score(document=...)``) learns it, instead of an
    answer computed without it. The input schemas say so too (``additionalProperties``)."""
    from pydantic import ConfigDict

    for tool in server._tool_manager.list_tools():
        model = tool.fn_metadata.arg_model
        tool.fn_metadata.arg_model = type(
            model.__name__,
            (model,),
            {"model_config": ConfigDict(extra="forbid"), "__module__": model.__module__},
        )
        tool.parameters = {**tool.parameters, "additionalProperties": False}


def _background(
    engine: Docmentor, server: MCPServer | None, *, configured: bool, interval_hours: float
) -> None:
    """Index configured sources that are missing; then refresh every ``interval_hours``.

    Each configured source on its own: one that cannot be read is one warning line, and the
    others are still indexed. The server's instructions then name what is indexed (new
    sessions see them)."""
    import time

    def loop() -> None:
        if configured:
            with engine.adding_configured:  # not twice, with a refresh_sources call meanwhile
                try:
                    known = {s["name"] for s in engine.sources()}
                except DocmentorError as exc:
                    log.warning("cannot list the indexed sources: %s", exc)
                    known = set()
                wanted = [src for src in _configured_sources() if src.name not in known]
                for src in wanted:
                    log.info("indexing configured source %s", src.name)
                    try:
                        engine.add(src.target, name=src.name, options=src.options, embed=False)
                    except DocmentorError as exc:
                        log.warning("configured source %s not indexed: %s", src.name, exc)
                    except Exception:
                        log.exception("indexing configured source %s failed", src.name)
            _update_instructions(server, engine)
        EMBEDDER.wake()  # sections indexed by words before (or just now) get their vectors
        while interval_hours > 0:
            time.sleep(interval_hours * 3600)
            try:
                reports = engine.refresh_with_config(_configured_sources() if configured else [], embed=False)
                EMBEDDER.wake()
                for r in reports:
                    if r.error:
                        log.warning("source %s not refreshed: %s", r.source, r.error)
            except DocmentorError as exc:
                log.warning("background refresh failed: %s", exc)
            except Exception:
                log.exception("background refresh failed")
            _update_instructions(server, engine)

    threading.Thread(target=loop, name="docmentor-refresh", daemon=True).start()


def _configured_sources() -> list[Any]:
    """The sources the working folder's config names; none (with a warning) when the config
    cannot be read: the indexed sources are still refreshed."""
    from docmentor.config import load_config

    try:
        return list(load_config().sources)
    except Exception as exc:  # a broken docmentor.toml must not stop a server's refreshes
        log.warning("the configured sources cannot be read: %s", exc)
        return []


def _update_instructions(server: MCPServer | None, engine: Docmentor) -> None:
    """Name the sources indexed now in the instructions that new sessions receive."""
    if server is None:
        return
    try:
        server._lowlevel_server.instructions = instructions(
            engine, getattr(server, "_docmentor_groups", None)
        )
    except Exception as exc:  # never worth failing a refresh for
        log.debug("instructions not updated: %s", exc)


def run_server(
    *,
    db: Path | None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    tools: list[str] | None = None,
    refresh_interval_hours: float = 0.0,
    embeddings: bool | None = None,
) -> None:
    """Run until the client goes away (stdio) or the process is stopped (http).

    Sections without vectors are embedded by a background thread; until the model is
    loaded and they are, searches answer by words (never an error, never a wait)."""
    # stdout belongs to the protocol in stdio mode: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, force=False)
    check_groups(tools)  # before anything is created on disk
    if transport != "stdio":
        host = host.strip("[]")  # [::1] as in a URL
        _check_port(host, port)  # before anything starts writing
    engine = Docmentor(db, create=True, embeddings=embeddings)
    engine.wait_for_model = False
    server = build_server(engine, tools=tools)
    EMBEDDER.start(engine)
    _background(engine, server, configured=True, interval_hours=refresh_interval_hours)
    if transport == "stdio":
        try:
            _serve_stdio(server)
        except* (BrokenPipeError, ConnectionResetError):  # the client stopped reading: done
            log.info("the client closed the connection")
    else:
        shown = f"[{host}]" if ":" in host else host
        sys.stderr.write(f"docmentor: MCP over streamable HTTP at http://{shown}:{port}/mcp\n")
        sys.stderr.flush()
        server.run("streamable-http", host=host, port=port, stateless_http=True, json_response=True)


def _serve_stdio(server: MCPServer) -> None:
    """stdio served by the event loop (:mod:`docmentor.stdio_pipes`) when stdin and stdout are
    pipes or files, else (a terminal, a socket) by the SDK's transport."""
    from contextlib import ExitStack

    from docmentor.stdio_pipes import claimed_stdio, servable

    with ExitStack() as stack:
        wires = None
        if servable():
            try:
                wires = stack.enter_context(claimed_stdio())
            except OSError as exc:  # e.g. the client closed its end already
                log.debug("stdio served by the SDK's transport: %s", exc)
        # before stdout is given back: an interpreter exiting under onnxruntime's start can abort
        stack.callback(_join_warming)
        if wires is None:
            server.run("stdio")
        else:
            anyio.run(_serve_pipes, server, *wires)


def _join_warming() -> None:
    EMBEDDER.stop()
    for thread in _WARMING:
        thread.join(timeout=10)


class BackgroundEmbedder:
    """One thread that embeds the sections still without vectors, whenever woken (at start,
    after each refresh). A stop ends it after the batch in hand; what is left is embedded by
    the next server or refresh."""

    def __init__(self) -> None:
        self._wanted = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._engine: Docmentor | None = None

    def start(self, engine: Docmentor) -> None:
        if not engine.embeddings or self._thread is not None:
            return
        self._engine = engine
        self._stopping.clear()
        self._thread = threading.Thread(target=self._loop, name="docmentor-embed", daemon=True)
        self._thread.start()
        self.wake()

    def wake(self) -> None:
        self._wanted.set()

    def stop(self, timeout: float = 10.0) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        self._wanted.set()
        thread.join(timeout=timeout)

    def _loop(self) -> None:
        engine = self._engine
        assert engine is not None
        while not self._stopping.is_set():
            self._wanted.wait()
            self._wanted.clear()
            if self._stopping.is_set():
                return
            try:
                done = engine.embed(stop=self._stopping)
                if done.embedded:
                    log.info("embedded %d sections in %.1f s", done.embedded, done.seconds)
            except DocmentorError as exc:
                log.warning("sections not embedded: %s", exc)
            except Exception:
                log.exception("embedding sections failed")


EMBEDDER = BackgroundEmbedder()


async def _serve_pipes(server: MCPServer, wire_in: int, wire_out: int) -> None:
    from mcp.server.stdio import stdio_server

    from docmentor.stdio_pipes import pipe_streams

    low = server._lowlevel_server
    async with (
        pipe_streams(wire_in, wire_out) as (lines, out),
        stdio_server(stdin=lines, stdout=out) as (read, write),  # type: ignore[arg-type]
    ):
        await low.run(read, write, low.create_initialization_options())


def _check_port(host: str, port: int) -> None:
    """A clear error when the address cannot be served (in use, not this machine's), before
    the HTTP server would print its own and exit."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise UsageError(f"cannot serve on {host}: {exc}", hint="pass --host 127.0.0.1") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            in_use = exc.errno == errno.EADDRINUSE
            shown = f"[{host}]" if ":" in host else host
            raise UsageError(
                f"cannot serve on {shown}:{port}: {exc.strerror or exc}",
                hint="pass another --port" if in_use else "pass a --host of this machine, e.g. 127.0.0.1",
            ) from None


def _docs_tools(server: MCPServer, engine: Docmentor) -> None:
    @server.tool(annotations=READ_ONLY, title="Search documentation")
    async def search_docs(query: str, limit: int = 5, source: str | None = None) -> dict[str, Any]:
        """Search the indexed documentation and return the best-matching sections, best first.

        Each result has source, path, url, title, heading, heading_path, line_start/line_end
        (1-based, in the original file), score and a snippet. Ask in words or with identifiers
        (`httpx.AsyncClient`, `max_connections`). Use get_doc_excerpt or get_doc to read more.

        Args:
            query: what to look for: a question, keywords or API names.
            limit: how many sections (1-20).
            source: only this source (see list_sources).
        """
        if not query.strip():  # as the CLI: a blank query is a mistake, not a search for nothing
            raise _tool_error(UsageError("empty query", hint="ask in words, or with an identifier"))
        n = max(1, min(int(limit), MAX_SEARCH_LIMIT))
        hits = _now(lambda: engine.search(query, source=source or None, limit=n))
        return {"query": query, "results": [h.to_dict() for h in hits]}

    @server.tool(annotations=READ_ONLY, title="Read a document")
    async def get_doc(url_or_path: str, offset: int = 0, limit: int = 50_000) -> dict[str, Any]:
        """Return one indexed document's Markdown, paginated by characters.

        url_or_path is a URL or path from search results (also SOURCE:PATH). When has_more
        is true, call again with offset = offset + length. limit is at most 100000.
        """
        n = max(1, min(int(limit), MAX_DOC_CHARS))
        page = await _run(lambda: engine.get(url_or_path, offset=max(0, int(offset)), limit=n))
        return page.to_dict()

    @server.tool(annotations=READ_ONLY, title="Excerpts of a document")
    async def get_doc_excerpt(
        url_or_path: str, query: str, max_chunks: int = 5, context_chars: int = 500
    ) -> dict[str, Any]:
        """Return the passages of one document that best match a query (cheaper than get_doc).

        Each excerpt has heading, heading_path, line_start/line_end and text of about
        2 x context_chars characters.
        """
        return await _run(
            lambda: engine.excerpt(
                url_or_path, query, max_chunks=int(max_chunks), context_chars=int(context_chars)
            )
        )

    @server.tool(annotations=READ_ONLY, title="List sources")
    async def list_sources() -> dict[str, Any]:
        """List the indexed documentation sources with document counts, status and last refresh."""
        return {"sources": _now(engine.sources)}

    @server.tool(annotations=REFRESH, title="Refresh sources")
    async def refresh_sources(source: str | None = None) -> dict[str, Any]:
        """Re-read one source (or all, and index the configured ones not indexed yet): changed
        documents are re-indexed, unchanged ones skipped.

        A document that fails to fetch keeps its last good copy. Takes seconds for large sources.
        """

        def refresh() -> list[Any]:
            if source:
                return engine.refresh(source, embed=False)
            # configured ones not yet indexed too
            return engine.refresh_with_config(_configured_sources(), embed=False)

        reports = await _run(refresh)
        EMBEDDER.wake()  # new sections are searchable by words now, by meaning once embedded
        _update_instructions(server, engine)
        return {"sources": [r.to_dict() for r in reports]}

    @server.resource("doc://sources", name="sources", mime_type="application/json")
    def sources_resource() -> str:
        """The indexed sources as JSON."""
        return json.dumps({"sources": engine.sources()}, ensure_ascii=False)


def _assemble_tools(server: MCPServer, engine: Docmentor) -> None:
    # The tokenizer tables (~60 MB, ~0.3 s to load, holding the GIL) load on the first
    # assemble_context call, not at start: a server used only for search stays small.
    @server.tool(annotations=READ_ONLY, title="Assemble context for a question")
    async def assemble_context(
        query: str,
        max_tokens: int = 8000,
        depth: int = 1,
        sections: int = 20,
        source: str | None = None,
        format: str = "markdown",
    ) -> CallToolResult:
        """Assemble the best documentation for one question into a single digest within a token budget.

        Use it before answering a how-to or design question, instead of many search_docs calls:
        canonical sources come first, linked sections (and ADRs) are followed, every passage
        says its source path and lines. max_tokens is capped at 20000. format is "markdown"
        (read it directly) or "json" (structured: documents with scores, sections).
        """
        if format not in ("markdown", "json"):
            raise ToolError('format must be "markdown" or "json"')
        budget = max(200, min(int(max_tokens), MAX_DIGEST_TOKENS))
        digest = await _run(
            lambda: engine.assemble(
                query,
                max_tokens=budget,
                depth=max(0, min(int(depth), 2)),
                sections=max(1, min(int(sections), 100)),
                source=source or None,
                allow_empty=True,
                fmt=format,
            )
        )
        from docmentor.assemble.render import render_json

        data = render_json(digest)
        if format == "json":
            text = digest.json_text  # fitted to the budget, like the markdown
        else:
            text = digest.markdown
            if not digest.sections and digest.stats.get("candidate_sections"):
                text += "\n\nNo matching section fit within max_tokens: raise it, or use search_docs.\n"
            elif not digest.sections:
                text += "\n\nNothing in the index matched this question: try search_docs with other words.\n"
        summary = {k: data[k] for k in ("query", "token_budget", "actual_tokens", "sections_selected")}
        summary["documents"] = [{"path": d["path"], "score": d["score"]} for d in data["documents"]]
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=summary)


def _clarity_tools(server: MCPServer, engine: Docmentor) -> None:
    from docmentor.clarity import scoring
    from docmentor.clarity.explain import explain_score as _explain
    from docmentor.clarity.roadmap import get_improvement_roadmap as _roadmap
    from docmentor.clarity.rubric import default_rubric

    @server.tool(annotations=READ_ONLY, title="Clarity rubric")
    async def get_rubric() -> dict[str, Any]:
        """The clarity scoring rubric: score tiers with grades, descriptions, criteria and characteristics."""
        return default_rubric().tiers_dict()

    @server.tool(annotations=READ_ONLY, title="Calculate a clarity score")
    async def calculate_clarity_score(
        critical_issues: int = 0,
        warning_issues: int = 0,
        info_issues: int = 0,
        total_code_blocks: int | None = None,
        successful_examples: int | None = None,
        failed_examples: int | None = None,
        skipped_examples: int | None = None,
        total_api_signatures: int | None = None,
        valid_api_signatures: int | None = None,
        invalid_api_signatures: int | None = None,
        missing_api_signatures: int | None = None,
        api_accuracy_score: float | None = None,
        broken_links: int = 0,
        missing_alt_text: int = 0,
    ) -> dict[str, Any]:
        """Overall clarity score (0-10), grade, rubric tier and the penalty breakdown, from issue
        counts and content metrics. Deterministic: the same counts always give the same score."""
        # locals() also holds the closure's names (``scoring``): keep the scoring inputs only
        inputs = {k: v for k, v in locals().items() if k in scoring.INPUT_KEYS and v is not None}
        return await _run(lambda: scoring.calculate_clarity_score(inputs))

    @server.tool(annotations=READ_ONLY, title="Calculate a dimension score")
    async def calculate_dimension_score(
        dimension: str,
        critical_issues_for_dimension: int = 0,
        warning_issues_for_dimension: int = 0,
        info_issues_for_dimension: int = 0,
    ) -> dict[str, Any]:
        """Score of one dimension (instruction_clarity, logical_flow, completeness, consistency,
        prerequisite_coverage) from the issues tagged with it, with the calculation as text."""
        return await _run(
            lambda: scoring.calculate_dimension_score(
                dimension,
                critical_issues_for_dimension,
                warning_issues_for_dimension,
                info_issues_for_dimension,
            )
        )

    @server.tool(annotations=READ_ONLY, title="Improvement roadmap")
    async def get_improvement_roadmap(
        current_score: float, target_score: float, issues: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Prioritised fixes to reach target_score: critical first, then low effort; stops when the
        target is reached. Each issue: type, severity, line, section, message."""
        return await _run(lambda: _roadmap(current_score, target_score, issues))

    @server.tool(annotations=READ_ONLY, title="Explain a score")
    async def explain_score(
        score: float | None = None,
        critical_issues: int = 0,
        warning_issues: int = 0,
        info_issues: int = 0,
        penalties_applied: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """How a clarity score is calculated: the formula with the actual numbers, the breakdown,
        a human explanation and the tier's characteristics."""
        return await _run(
            lambda: _explain(
                score,
                critical_issues=critical_issues,
                warning_issues=warning_issues,
                info_issues=info_issues,
                penalties_applied=penalties_applied or [],
            )
        )

    @server.tool(annotations=READ_ONLY, title="Score a document")
    async def score_document(path_or_url: str, target_score: float = 8.0) -> dict[str, Any]:
        """Run the clarity checks on one document and return its full result: score, grade, dimensions,
        explanation, roadmap and every issue with its line. path_or_url is a local file or an
        indexed document (URL or SOURCE:PATH)."""
        return await _run(lambda: _score_one(engine, path_or_url, target_score))


def _score_one(engine: Docmentor, ref: str, target: float) -> dict[str, Any]:
    from pathlib import Path as _Path

    from docmentor.clarity import score_paths

    local = _Path(ref).expanduser()
    if not ref.startswith(("http://", "https://", "file://")) and local.is_file():
        # A model may ask for any path: read only files under an indexed folder or the
        # server's working folder, never the rest of the machine.
        real = local.resolve()
        allowed = [_Path.cwd().resolve()] + [
            _Path(r["target"]).resolve() for r in engine.sources() if r["kind"] == "folder"
        ]
        if not any(real.is_relative_to(root) for root in allowed):
            raise DocmentorError(
                f"{ref} is outside the indexed folders and the working folder",
                hint="score an indexed document (SOURCE:PATH) or a file under an indexed folder",
            )
        return dict(score_paths([local], target=target)["documents"][0])
    from docmentor.clarity import score_raw
    from docmentor.models import RawDocument

    with engine.store.snapshot():
        doc = engine.find(ref)
        row = engine.store.source(doc.source)
        raw = RawDocument(
            path=doc.path,
            url=doc.url,
            content=engine.store.content(doc.id),
            fmt=doc.fmt,
            line_map=engine.store.line_map(doc.id),
        )
    root = _Path(row.target) if row.kind == "folder" else None
    return score_raw(raw, root=root if root is not None and root.is_dir() else None, target=target)


def _api_tools(server: MCPServer, engine: Docmentor, *, api: bool, feedback: bool) -> None:
    from docmentor.readme_llm.feedback import SessionLog
    from docmentor.readme_llm.feedback import report_issue as _report
    from docmentor.readme_llm.service import LibraryKnowledge

    knowledge = LibraryKnowledge(engine)
    session = SessionLog()
    try:
        registered = api and bool(knowledge.libraries())
    except DocmentorError as exc:  # the first call reports it; the server still starts
        log.warning("cannot list the knowledge bases: %s", exc)
        registered = False
    if registered:
        # the first find_api would otherwise load the index and the query model (~0.5 s)
        warming = threading.Thread(target=knowledge.warm, name="docmentor-warm", daemon=True)
        warming.start()
        _WARMING.append(warming)

    if api:

        @server.tool(annotations=READ_ONLY, title="Library overview")
        async def get_library_overview(aspect: _Aspect = "all", library: str | None = None) -> dict[str, Any]:
            """Overview of a library from its generated knowledge base: aspect is "architecture"
            (key modules and classes), "quickstart" (install and first example), "concepts" or "all".
            Name the library when several are registered (the instructions list them). States
            the library version it describes."""
            session.record("get_library_overview", {"aspect": aspect, "library": library})
            return await _run(lambda: knowledge.overview(library, aspect=aspect))

        @server.tool(annotations=READ_ONLY, title="Find an API")
        async def find_api(
            query: str, max_results: int = 5, library: str | None = None
        ) -> Annotated[CallToolResult, dict[str, Any]]:  # the schema of a dict, like the other tools
            """Find the library functions, classes and methods that do a task, with their real
            signatures (introspected from the installed package), parameters, return types and
            ids of examples that use them. Describe the task in words ("stream a large download").
            Use it before writing code against a library, instead of guessing names. An API
            the library marks deprecated says so ("deprecated": the reason, often the
            replacement) and comes after what replaces it."""
            session.record("find_api", {"query": query, "max_results": max_results, "library": library})
            n = max(1, min(int(max_results), MAX_FIND_RESULTS))
            call = lambda: knowledge.find_api(query, max_results=n, library=library or None)  # noqa: E731
            # a few milliseconds once the index and the model are loaded: in the event loop,
            # sparing a worker thread's two hand-overs (~1 ms of a round trip); else in one
            found = _now(call) if knowledge.ready() else await _run(call)
            if n != max_results:
                found["warnings"].append(
                    f"max_results {max_results} is out of 1-{MAX_FIND_RESULTS}: gave {n}"
                )
            return _structured(found)

        @server.tool(annotations=READ_ONLY, title="Get examples")
        async def get_examples(
            task_description: str,
            apis_involved: list[str] | None = None,
            complexity: _Complexity = "any",
            library: str | None = None,
        ) -> dict[str, Any]:
            """Working code examples from the library's documentation for a task; examples using
            apis_involved (api ids or names from find_api) come first. complexity: beginner,
            intermediate, advanced or any. An example that uses an API the installed version
            deprecates lists it in deprecated_apis (with the reason) and comes after the others."""
            session.record(
                "get_examples", {"task_description": task_description, "apis_involved": apis_involved}
            )
            return await _run(
                lambda: knowledge.get_examples(
                    task_description,
                    apis_involved=apis_involved,
                    complexity=complexity,
                    library=library or None,
                )
            )

    if feedback:

        @server.tool(
            annotations=ToolAnnotations(
                read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
            ),
            title="Report an issue",
        )
        async def report_issue(
            query: str,
            issue_type: _IssueType,
            apis_tried: list[str] | None = None,
            error_message: str | None = None,
            code_attempted: str | None = None,
            library: str | None = None,
        ) -> dict[str, Any]:
            """Report when you are stuck, got an error, or the documentation seems wrong: it is logged
            so the docs get fixed, and you get suggestions now. issue_type: error, unclear_docs,
            missing_example or wrong_signature."""
            context = session.recent()
            return await _run(
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
