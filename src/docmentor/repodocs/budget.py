"""The documentation agent's context budget in tokens (issue 21, item 4): every request the loop
sends is counted with the project's exact offline counter (``assemble.tokens``: toktok's
tables, ``AgentConfig.encoding``) and fits the model's window with room for the reply.

``Budget.of`` splits the window once per run: the reply's room (``reply_tokens``), the system
prompt, the latest assistant reply and observation, one READ answer and the unit's task
(its first code page, the deterministic facts, imports). ``pages`` cuts code into pages of a
token size at line ends; ``trim`` cuts a text to a token budget saying how much was left
out; ``share`` fits several documents into one budget, cutting the largest first and naming
what it cut or left out; ``count_request`` counts a request as it is sent (each message's
text plus a fixed overhead for the chat template).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from docmentor.assemble.tokens import count_many, count_tokens
from docmentor.errors import UsageError

# A chat template wraps every message in a few tokens (role markers, separators: 3–5 in the
# OpenAI, Llama 3 and Qwen templates) and primes the reply with a few more: counted generously.
MESSAGE_OVERHEAD = 8
REQUEST_OVERHEAD = 16
# The reply's room when ``AgentConfig.reply_tokens`` is None (the server's default length).
DEFAULT_REPLY_RESERVE = 2_048
# Below this many tokens for the task and the conversation after the system prompt, no unit can
# be documented: the window is refused at the start of a run rather than overflowed in it.
MIN_WORKING_TOKENS = 1_200


@lru_cache(maxsize=8192)
def count(text: str, encoding: str) -> int:
    """The exact token count of ``text`` (memoised: a conversation is counted every step)."""
    return count_tokens(text, encoding) if text else 0


def fits(text: str, budget: int, encoding: str) -> bool:
    """Whether ``text`` is at most ``budget`` tokens; without counting when its UTF-8 bytes are
    (every token is at least one byte)."""
    return (len(text) <= budget and len(text.encode("utf-8")) <= budget) or count(text, encoding) <= budget


def count_request(messages: Sequence[dict[str, Any]], encoding: str) -> int:
    """The prompt tokens of a request: each message's content and its template overhead."""
    return REQUEST_OVERHEAD + sum(
        count(str(m.get("content") or ""), encoding) + MESSAGE_OVERHEAD for m in messages
    )


@dataclass(frozen=True)
class Budget:
    """One run's token budget: ``prompt`` is the most a request may count (the window less the
    reply's room); the rest are the sizes of what the loop puts in it."""

    window: int  # the model's context window
    reply: int  # room kept for the reply (max_tokens)
    prompt: int  # window - reply: the counted prompt tokens of any request
    system: int  # the system prompt, as counted in a request
    read: int  # one READ answer (and one verdict)
    task: int  # the unit's task message in all
    source: int  # a page of code
    facts: int  # the deterministic document in the task (0: none)
    encoding: str

    @classmethod
    def of(
        cls,
        *,
        window: int,
        reply_tokens: int | None,
        system: str,
        read_tokens: int,
        source_tokens: int,
        facts_tokens: int,
        encoding: str,
    ) -> Budget:
        """The budget for a model with a ``window``-token context.

        Raises:
            UsageError: the window cannot hold the system prompt, a reply and a minimal task.
        """
        reply = reply_tokens if reply_tokens is not None else DEFAULT_REPLY_RESERVE
        prompt = window - reply
        system_tokens = count(system, encoding) + MESSAGE_OVERHEAD
        # kept in every request: system, task, the latest reply (≤ reply) and observation (≤ read)
        working = prompt - REQUEST_OVERHEAD - system_tokens - reply - 3 * MESSAGE_OVERHEAD
        if working < MIN_WORKING_TOKENS:
            raise UsageError(
                f"a context window of {window} tokens is too small for the documentation agent "
                f"(its system prompt is {system_tokens} tokens and a reply may take {reply})",
                hint=f"set DOCMENTOR_LLM_CONTEXT (or AgentConfig.context_tokens) to at least "
                f"{window - working + MIN_WORKING_TOKENS}, or lower reply_tokens",
            )
        read = max(min(read_tokens, working // 3), 200)
        task = working - read
        return cls(
            window=window,
            reply=reply,
            prompt=prompt,
            system=system_tokens,
            read=read,
            task=task,
            source=min(source_tokens, task // 2, read - 100),  # a page's READ answer: header and note too
            facts=min(facts_tokens, task // 4),
            encoding=encoding,
        )


def _note(left: int) -> str:
    return f"\n[… {left} more lines left out to fit the context budget]"


def trim(text: str, budget: int, encoding: str) -> str:
    """``text`` within ``budget`` tokens: cut at a line end, saying how many lines were left out
    (a budget too small for the note: the text's first tokens' worth of characters)."""
    if fits(text, budget, encoding):
        return text
    room = budget - count(_note(10**6), encoding)
    if room < 1:
        return _cut_chars(text, max(budget, 0), encoding)
    first = pages(text, room, encoding)[0]
    kept = first.count("\n") + 1 if first else 0
    left = max(text.count("\n") + 1 - kept, 1)
    return first + _note(left)


def pages(text: str, size: int, encoding: str) -> list[str]:
    """``text`` cut into pages of at most ``size`` tokens at line ends (a longer line is cut into
    pieces); at least one page. Joined with newlines, the pages are the text."""
    lines = text.splitlines()
    if not lines:
        return [""]
    counts = count_many([line + "\n" for line in lines], encoding)
    out: list[str] = []
    current: list[str] = []
    used = 0
    for line, n in zip(lines, counts, strict=True):
        if n > size:
            if current:
                out.append("\n".join(current))
                current, used = [], 0
            out += _split_line(line, size, encoding)
            continue
        if current and used + n > size:
            out.append("\n".join(current))
            current, used = [], 0
        current.append(line)
        used += n
    if current:
        out.append("\n".join(current))
    exact: list[str] = []
    for page in out:
        exact += _exact(page, size, encoding)
    return exact


def _exact(page: str, size: int, encoding: str) -> list[str]:
    """``page`` as pages that count at most ``size`` tokens exactly (lines counted one by one
    can differ from their join by a token or two at the seams)."""
    if count(page, encoding) <= size:
        return [page]
    lines = page.split("\n")
    if len(lines) == 1:
        return _split_line(page, size, encoding)
    half = len(lines) // 2
    return _exact("\n".join(lines[:half]), size, encoding) + _exact("\n".join(lines[half:]), size, encoding)


def _split_line(line: str, size: int, encoding: str) -> list[str]:
    """One line longer than ``size`` tokens, in pieces of at most ``size`` tokens."""
    out: list[str] = []
    rest = line
    while rest:
        piece = _cut_chars(rest, size, encoding)
        if not piece:  # one character more than the size (never at size ≥ 1)
            piece = rest[:1]
        out.append(piece)
        rest = rest[len(piece) :]
    return out


def _cut_chars(text: str, budget: int, encoding: str) -> str:
    """The longest prefix of ``text`` within ``budget`` tokens, found by bisection on
    characters (a token count grows with the prefix)."""
    if budget <= 0:
        return ""
    lo, hi = 0, min(len(text), budget * 4)  # a first guess, doubled while it still fits
    while count(text[:hi], encoding) <= budget and hi < len(text):
        lo, hi = hi, min(len(text), hi * 2)
    if count(text[:hi], encoding) <= budget:
        return text[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if count(text[:mid], encoding) <= budget:
            lo = mid
        else:
            hi = mid
    return text[:lo]


def share(parts: Sequence[tuple[str, str]], budget: int, encoding: str, *, floor: int = 48) -> str:
    """Several ``(header, body)`` parts within ``budget`` tokens, joined by blank lines. When they
    do not all fit, the largest bodies are cut first (``fit_parts``) and a closing note names
    what was cut (with its size) or left out."""
    if not parts:
        return ""
    whole = "\n\n".join(f"{h}\n{b}" for h, b in parts)
    if fits(whole, budget, encoding):
        return whole
    kept, note = fit_parts(parts, budget, encoding, floor=floor)
    text = "\n\n".join([*(f"{parts[i][0]}\n{body}" for i, body in kept), *([note] if note else [])])
    return trim(text, budget, encoding)  # a guard: the counts above are per part


def fit_parts(
    parts: Sequence[tuple[str, str]], budget: int, encoding: str, *, floor: int = 48, per_part: int = 2
) -> tuple[list[tuple[int, str]], str | None]:
    """The ``(header, body)`` parts cut to add up to ``budget`` tokens (each part's header and
    ``per_part`` tokens of wrapping included), largest first: every body longer than a common
    cap is cut to it and the rest are whole; when even ``floor`` tokens each do not fit, the
    largest parts are left out. The kept parts as (index, body), and a note naming what was cut
    or left out (None: everything whole); the note's room is kept within the budget."""
    heads = [count(h, encoding) + per_part for h, _ in parts]
    bodies = [count(b, encoding) for _, b in parts]
    if sum(heads) + sum(bodies) <= budget:
        return [(i, b) for i, (_, b) in enumerate(parts)], None
    room = budget - 24 - 24 * min(len(parts), 12)  # the note names up to 12 parts
    kept = set(range(len(parts)))
    while kept and sum(heads[i] for i in kept) + floor * len(kept) > room:
        kept.remove(max(kept, key=lambda i: (bodies[i], i)))
    cap = _cap([bodies[i] for i in sorted(kept)], room - sum(heads[i] for i in kept))
    out: list[tuple[int, str]] = []
    cut, left = [], []
    for i, (head, body) in enumerate(parts):
        if i not in kept:
            left.append(f"{_name(head)} ({bodies[i]} tokens)")
        elif bodies[i] > cap:
            out.append((i, trim(body, cap, encoding)))
            cut.append(f"{_name(head)} (cut from {bodies[i]} tokens)")
        else:
            out.append((i, body))
    notes = []
    if cut:
        notes.append("cut: " + _listing(cut))
    if left:
        notes.append("left out: " + _listing(left))
    return out, f"[to fit the context budget, {'; '.join(notes)}]"


def _cap(sizes: list[int], room: int) -> int:
    """The largest cap such that the sizes, each cut to it, add up to at most ``room``."""
    if sum(sizes) <= room:
        return max(sizes, default=0)
    ordered = sorted(sizes)
    rest = room
    for i, size in enumerate(ordered):
        share_each = rest // (len(ordered) - i)
        if size > share_each:
            return max(share_each, 0)
        rest -= size
    return ordered[-1]


def _name(header: str) -> str:
    return header.lstrip("#").strip().split(" (")[0].strip("<>") or header.strip()


def _listing(items: list[str]) -> str:
    shown = ", ".join(items[:12])
    return shown + (f" and {len(items) - 12} more" if len(items) > 12 else "")
