"""What a model is asked for and what is made of its reply.

The JSON instruction added to a request, the reply's ``<think>`` reasoning removed, the JSON
object found in it (whole, fenced or inside prose; in linear time), and a validation error
described for the corrective turn.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError


def schema_instruction(model_cls: type[BaseModel]) -> str:
    schema = json.dumps(model_cls.model_json_schema(), separators=(",", ":"), ensure_ascii=False)
    return (
        "Reply with exactly one JSON object and nothing else (no prose, no Markdown code fences). "
        f"It must validate against this JSON Schema: {schema}"
    )


def with_instruction(messages: list[dict[str, Any]], instruction: str) -> list[dict[str, Any]]:
    # Appended to the leading system message, because some chat templates (llama.cpp,
    # Anthropic's endpoint) accept a system message only at the start.
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        first = {**messages[0], "content": f"{messages[0]['content']}\n\n{instruction}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


# Fixed strings, searched forward from where the last match ended: linear in the reply.
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
# Linear: a fence's lazy body stops at the next fence, so the text is scanned about once.
_FENCE = re.compile(r"```[ \t]*(?:json5?|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_JSON_MARK = re.compile(r'[{}"\\\n]')
_PARSE_BUDGET = 4  # the candidate objects parsed may add up to this many times the reply


def strip_think(text: str) -> tuple[str, bool]:
    """The reply without its ``<think>…</think>`` reasoning, and whether a ``<think>`` never ended.

    An unclosed ``<think>`` drops everything from it to the end: the model ran out of tokens
    (or was cut off) while reasoning, so nothing after it is the answer. Plain forward
    searches: linear however many tags the reply holds.
    """
    out: list[str] = []
    pos = 0
    unclosed = False
    while (opening := _THINK_OPEN.search(text, pos)) is not None:
        out.append(text[pos : opening.start()])
        closing = _THINK_CLOSE.search(text, opening.end())
        if closing is None:
            unclosed, pos = True, len(text)
            break
        pos = closing.end()
    out.append(text[pos:])
    return "".join(out), unclosed


def extract_json(text: str) -> dict[str, Any]:
    """The JSON object in a model's reply: the whole text, a fenced block, or the first ``{…}``.

    Linear in the reply: the ``{…}`` candidates are found in one pass (braces matched
    outside JSON strings), and parsing them stops after a few times the reply's length.

    Raises:
        ValueError: the reply holds no JSON object (or only one nested too deeply to read).
    """
    text, unclosed = strip_think(text)
    text = text.strip()
    if not text:
        if unclosed:
            raise ValueError("the reply is reasoning whose <think> never ended, with no answer after it")
        raise ValueError("the reply was empty")
    too_deep = False

    def parse(candidate: str) -> dict[str, Any] | None:
        nonlocal too_deep
        try:
            value = json.loads(candidate)
        except ValueError:
            return None
        except RecursionError:  # deeper than the parser goes: unusable, not fatal
            too_deep = True
            return None
        return value if isinstance(value, dict) else None

    for candidate in (text, *(m.group(1).strip() for m in _FENCE.finditer(text))):
        if (value := parse(candidate)) is not None:
            return value
    budget = _PARSE_BUDGET * len(text)
    for start, end in _brace_spans(text):
        budget -= end - start
        if budget < 0:
            break
        if (value := parse(text[start:end])) is not None:
            return value
    if too_deep:
        raise ValueError("the reply's JSON is nested too deeply to read")
    raise ValueError("the reply holds no valid JSON object")


def _brace_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every balanced ``{…}`` in ``text``, by start: one pass over it.

    Braces inside JSON strings do not count; a string is only tracked inside braces (prose
    quotes outside an object are not JSON) and ends at a newline, which JSON strings cannot
    hold (so a stray quote does not hide the rest of the reply).
    """
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    in_string = False
    skip = -1  # the character after a backslash in a string
    for match in _JSON_MARK.finditer(text):
        i = match.start()
        if i == skip:
            continue
        c = match.group()
        if in_string:
            if c == "\\":
                skip = i + 1
            elif c in '"\n':
                in_string = False
        elif c == "{":
            opened.append(i)
        elif c == "}" and opened:
            spans.append((opened.pop(), i + 1))
        elif c == '"' and opened:
            in_string = True
    spans.sort()
    return spans


def describe(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors(include_url=False)[:8]:
            loc = ".".join(str(p) for p in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
        more = exc.error_count() - len(parts)
        return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
    return str(exc)
