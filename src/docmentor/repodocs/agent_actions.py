"""The documentation agent's replies and context (``agent_unit.py``'s loop): the action in a
model's reply, or why there is none usable (``parse_action``; the reason goes back to the model
as a corrective message), and the conversation cut to the context budget (``fit``)."""

from __future__ import annotations

from typing import Any

from docmentor.llm.replies import extract_json

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


def fit(messages: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The messages to send within ``budget`` characters: the system prompt, the task and the
    latest two messages always; older ones, oldest first, replaced by a short note."""
    out = [dict(m) for m in messages]
    size = sum(len(str(m.get("content", ""))) for m in out)
    for m in out[2:-2]:
        if size <= budget:
            break
        content = str(m.get("content", ""))
        if content != _DROPPED_NOTE:
            size += len(_DROPPED_NOTE) - len(content)
            m["content"] = _DROPPED_NOTE
    return out
