"""The documentation agent's replies and context (``agent_unit.py``'s loop): the action in a
model's reply, or why there is none usable (``parse_action``; the reason goes back to the model
as a corrective message), and the conversation cut to the context budget in counted tokens
(``fit``)."""

from __future__ import annotations

from typing import Any

from docmentor.llm.replies import extract_json
from docmentor.repodocs.budget import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, count, trim

ACTIONS = ("READ", "WRITE", "VERIFY", "FINISH")
_DROPPED_NOTE = "[earlier message left out to fit the context budget]"


def parse_action(reply: str) -> tuple[dict[str, Any] | None, str | None]:
    """The action in a model's reply, or why there is none usable."""
    try:
        obj = extract_json(reply)
    except ValueError as exc:
        return None, f"no JSON object in the reply ({exc})"
    name = obj.get("action")
    if not isinstance(name, str) or name.strip().upper() not in ACTIONS:
        return None, f"unknown action {name!r}"
    action = {**obj, "action": name.strip().upper()}
    if action["action"] == "READ" and (not isinstance(obj.get("target"), str) or not obj["target"].strip()):
        return None, 'READ needs a "target" string'
    if action["action"] == "WRITE" and (
        not isinstance(obj.get("document"), str) or not obj["document"].strip()
    ):
        return None, 'WRITE needs a non-empty "document" string'
    return action, None


def fit(
    messages: list[dict[str, Any]], budget: int, encoding: str, *, extra: int = 0
) -> list[dict[str, Any]]:
    """The messages to send within ``budget`` counted prompt tokens (``budget.count_request``;
    ``extra``: what the client adds, a JSON instruction): the system prompt, the task and the
    latest two messages always; older ones, oldest first, replaced by a short note. When that is
    not enough (a reply far past its max_tokens), the latest messages are cut, the last first,
    then the task: the request never exceeds the budget while the system prompt fits it."""
    out = [dict(m) for m in messages]
    sizes = [count(str(m.get("content") or ""), encoding) + MESSAGE_OVERHEAD for m in out]
    size = REQUEST_OVERHEAD + extra + sum(sizes)
    dropped = count(_DROPPED_NOTE, encoding) + MESSAGE_OVERHEAD
    for i in range(2, len(out) - 2):
        if size <= budget:
            break
        if out[i].get("content") != _DROPPED_NOTE:
            size += dropped - sizes[i]
            sizes[i] = dropped
            out[i]["content"] = _DROPPED_NOTE
    for i in range(len(out) - 1, 0, -1):
        if size <= budget:
            break
        room = sizes[i] - MESSAGE_OVERHEAD - (size - budget)
        content = trim(str(out[i].get("content") or ""), max(room, 0), encoding)
        size += count(content, encoding) + MESSAGE_OVERHEAD - sizes[i]
        sizes[i] = count(content, encoding) + MESSAGE_OVERHEAD
        out[i]["content"] = content
    return out
