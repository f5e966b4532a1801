"""The MCP protocol details docmentor's server keeps, through the SDK's public middleware,
and the helpers every tool uses (worker thread, errors for the model, compact mirrors).

- An unknown tool is a JSON-RPC error (-32602, invalid params), not a tool result.
- Arguments outside a tool's input schema (a range, a choice, a type, a name the tool does
  not take) are a tool error of one sentence saying what is allowed, not pydantic's text.
- Tool errors read without the SDK's ``Error executing tool NAME:`` prefix, and name the
  tool's arguments rather than the CLI's flags.
- No prompts capability is advertised: the server has no prompts.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import anyio
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from mcp import MCPError
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND, CallToolResult, TextContent, ToolAnnotations

from docmentor import DocmentorError

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
REFRESH = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)
_NO_PROMPTS = ("prompts/list", "prompts/get")
_TYPE_NAMES = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def tool(server: MCPServer, **options: Any) -> Callable[[F], F]:
    """``server.tool``, with the docstring as the description without its indentation."""

    def register(fn: F) -> F:
        server.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), **options)
        return fn

    return register


def tool_error(exc: DocmentorError) -> ToolError:
    """Our error as the model reads it: the message, then what to try (in the tools' words)."""
    # a hint that ends a sentence itself ("did you mean x.y?") gets no second full stop, and
    # one that asks ("did you mean 'httpx'? known sources: …") no "Try:" before its question
    hint = ""
    if exc.hint:
        lead = " " if exc.hint.startswith("did you mean") else " Try: "
        said = exc.hint[0].upper() + exc.hint[1:] if lead == " " else exc.hint
        hint = f"{lead}{said}{'' if exc.hint.endswith(('.', '?', '!')) else '.'}"
    return ToolError(f"{exc.message}.{hint}")


async def run(fn: Callable[[], T]) -> T:
    try:
        return await anyio.to_thread.run_sync(fn)
    except DocmentorError as exc:
        raise tool_error(exc) from exc


def now(fn: Callable[[], T]) -> T:
    """Run a call of a millisecond or less in the event loop itself: a worker thread's two
    hand-overs cost more than the call (a search: ~0.1–0.2 ms of a ~3 ms round trip)."""
    try:
        return fn()
    except DocmentorError as exc:
        raise tool_error(exc) from exc


def structured(data: Any, text: str | None = None) -> CallToolResult:
    """Structured content mirrored as compact JSON text (the SDK's own mirror is indented:
    half again as many bytes to write, read and parse for find_api's answers); ``text``
    instead of the mirror where the model reads something else (a Markdown digest)."""
    if text is None:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _where(error: ValidationError) -> str:
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _range(schema: Mapping[str, Any]) -> tuple[str, str]:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if lo is not None and hi is not None:
        return f"between {lo} and {hi}", f"a value from {lo} to {hi}"
    if lo is not None:
        return f"at least {lo}", f"{lo} or more"
    return f"at most {hi}", f"{hi} or less"


def _describe(tool_name: str, schema: Mapping[str, Any], error: ValidationError) -> str:
    """One sentence about the first problem, then what to try."""
    kind, where, value = error.validator, _where(error), error.instance
    if kind in ("anyOf", "oneOf") and error.context:
        # an optional argument (X or null): report the X branch's problem
        branches = [e for e in error.context if e.schema.get("type") != "null"]
        if branches:
            return _describe(tool_name, schema, best_match(branches))
    if kind == "required":
        missing = next((k for k in error.validator_value if k not in (value or {})), "?")
        return f"{tool_name} needs the argument {missing!r}. Try: pass {missing}"
    if kind == "additionalProperties":
        known = list((error.schema.get("properties") or {}).keys())
        extra = sorted(set(value) - set(known)) if isinstance(value, dict) else []
        names = ", ".join(map(repr, extra))
        if not known:
            return f"{tool_name} takes no argument {names}. Try: call it without arguments"
        return f"{tool_name} takes no argument {names}. Try: use only its arguments ({', '.join(known)})"
    if kind == "enum":
        choices = ", ".join(str(c) for c in error.validator_value)
        return f"unknown {where} {_shown(value)}. Try: one of {choices}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        allowed, hint = _range(error.schema)
        return f"{where} must be {allowed}, got {_shown(value)}. Try: {hint}"
    if kind == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        names = " or ".join(_TYPE_NAMES.get(str(t), str(t)) for t in wanted)
        return f"{where or 'the arguments'} must be {names}, got {_shown(value)}. Try: pass {names}"
    if kind == "pattern" and where == "lines":
        return f"lines {_shown(value)} is not a line range. Try: START-END, e.g. 12-40"
    if kind == "pattern" and where == "version":
        return (
            f"version {_shown(value)} is not a version number. Try: one such as 2.1 or v0.28.1 "
            "(list_sources shows the indexed ones), or leave it out for the newest"
        )
    if kind in ("minLength", "maxLength"):
        bound = error.validator_value
        size = "at least" if kind == "minLength" else "at most"
        return (
            f"{where} must be {size} {bound} characters, got {_shown(value)}. Try: {size} {bound} characters"
        )
    if kind in ("minItems", "maxItems"):
        bound = error.validator_value
        size = "at least" if kind == "minItems" else "at most"
        return f"{where} must have {size} {bound} items. Try: {size} {bound}"
    return f"{where or 'the arguments'} {_shown(value)} is not allowed here. Try: see the tool's input schema"


_VALUES = frozenset({"default", "const", "enum", "examples"})  # values, not schemas: kept whole
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def untitled(schema: Any) -> Any:
    """A JSON schema without its ``title`` annotations (pydantic's "Line Start" for
    ``line_start``: they say nothing the property's name does not): a fifth of the tool
    list's bytes (48.8 → 38.2 kB for the 16 default tools), which every session puts in the
    model's context. A property named ``title`` stays (its value is a schema, not a string)."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for k, v in schema.items():
            if k == "title" and isinstance(v, str):
                continue
            if k in _NAMED and isinstance(v, dict):  # names → schemas (a name is no keyword)
                out[k] = {name: untitled(sub) for name, sub in v.items()}
            else:
                out[k] = v if k in _VALUES else untitled(v)
        return out
    if isinstance(schema, list):
        return [untitled(v) for v in schema]
    return schema


class Contract:
    """The server middleware (``server.middleware``) that keeps the details above."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server
        self._validators: dict[str, tuple[Draft202012Validator, dict[str, Any]]] | None = None

    async def _tools(self) -> dict[str, tuple[Draft202012Validator, dict[str, Any]]]:
        if self._validators is None:  # the tools are fixed once the server is built
            tools = await self._server.list_tools()
            self._validators = {t.name: (Draft202012Validator(t.input_schema), t.input_schema) for t in tools}
        return self._validators

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        method = ctx.method
        if method in _NO_PROMPTS:
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=method)
        if (
            method == "tools/call"
            and isinstance(ctx.params, Mapping)
            and isinstance(ctx.params.get("name"), str)
        ):
            return await self._call_tool(ctx, call_next)
        result = await call_next(ctx)
        if method == "tools/list" and isinstance(result, dict):
            for listed in result.get("tools", []):
                for key in ("inputSchema", "outputSchema"):
                    if isinstance(listed, dict) and isinstance(listed.get(key), dict):
                        listed[key] = untitled(listed[key])
        if method in ("initialize", "server/discover") and isinstance(result, dict):
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict):
                capabilities.pop("prompts", None)
        return result

    async def _call_tool(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        assert ctx.params is not None
        name = str(ctx.params["name"])
        tools = await self._tools()
        if name not in tools:
            known = ", ".join(sorted(tools))
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name} (tools: {known})", data=name)
        validator, schema = tools[name]
        arguments = ctx.params.get("arguments")
        result = await call_next(ctx)
        if isinstance(result, dict) and result.get("isError"):
            # the arguments are checked against the schema only to explain a failed call
            errors = list(validator.iter_errors({} if arguments is None else arguments))
            problem = _describe(name, schema, best_match(errors)) if errors else None
            _reword(result, name, problem)
        return result


def _reword(result: dict[str, Any], name: str, problem: str | None) -> None:
    """The error text of a tool result, written for the model."""
    content = result.get("content")
    if not (isinstance(content, list) and content and isinstance(content[0], dict)):
        return
    text = str(content[0].get("text", ""))
    prefix = f"Error executing tool {name}"
    if text.startswith(prefix + ": "):
        text = text[len(prefix) + 2 :]
    elif text == prefix:  # a crash: its details stay in the server's log
        text = f"{name} failed unexpectedly (the server's log has the details). Try: call it again, or another tool"
    if problem is not None and ("validation error" in text or "errors.pydantic.dev" in text):
        text = problem
    elif "errors.pydantic.dev" in text or "validation error for" in text:
        text = f"the arguments of {name} do not fit its input schema. Try: check them against tools/list"
    if text and not text.endswith((".", "?", "!")):
        text += "."
    content[0] = {**content[0], "text": text}
