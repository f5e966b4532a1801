"""What the documentation agent says to the model: the system prompt (the MemDocAgent paper's,
Appendix A.2, adapted to a JSON action protocol), the granularity-specific document formats,
the task message of one unit and the corrective and verdict messages of the loop.

The model answers every turn with one JSON object naming one action; it writes only text
(the document, its claims, its scores), never code that is run. The action protocol::

    {"action": "READ", "target": "memory" | "callees" | "callers" | "owner" | "<unit id>"}
    {"action": "READ", "target": "search", "query": "<question about a library>"}
    {"action": "WRITE", "document": "<Markdown>", "claims": ["<atomic statement>", ...]}
    {"action": "VERIFY", "scores": {"consistency": 0.0-1.0, "completeness": 0.0-1.0,
                                    "helpfulness": 0.0-1.0}}
    {"action": "FINISH"}
"""

from __future__ import annotations

from collections.abc import Sequence

# The sections each granularity's document has, in order (headings ``## Name``).
FORMATS: dict[str, tuple[str, ...]] = {
    "function": ("Summary", "Description", "Args", "Returns", "Raises", "Examples"),
    "method": ("Summary", "Description", "Args", "Returns", "Raises", "Examples"),
    "class": ("Summary", "Description", "Args", "Attributes", "Methods", "Examples"),
    "module": ("Role", "Components", "Public API", "Dependencies", "Diagram"),
    "package": ("Purpose", "Overview"),
    "repository": ("Purpose", "Overview"),
}

_FORMAT_NOTES: dict[str, str] = {
    "function": (
        "Args: one line per parameter, `name (type): meaning`, every parameter of the signature "
        "and no other (omit the section when there are none; not self/cls). Returns: type and "
        "meaning (omit the section when it returns nothing; a generator's is headed Yields). Raises: `ExceptionType: when`, only exceptions the code raises (omit when none). "
        "Examples: a short realistic use."
    ),
    "class": (
        "Args: the __init__ parameters, `name (type): meaning`. Attributes: the state the class "
        "keeps, `name (type): meaning`. Methods: one line per method, `method_name`: what it is "
        "for (a map, not a copy of their documents)."
    ),
    "module": (
        "Role: what the module is for in the system, its responsibility and boundaries. "
        "Components: one line per component with what it does. Public API: what other modules "
        "use. Dependencies: the modules and libraries it relies on. Diagram: a Mermaid "
        "```mermaid flowchart of how its components interact."
    ),
    "package": (
        "Purpose: what the package is for. Overview: each module or sub-package with one line "
        "and a link to its document, [`id`](id.md)."
    ),
    "repository": (
        "Purpose: what the system does. Overview: the architecture and each top-level module or "
        "package with one line and a link to its document, [`id`](id.md)."
    ),
}
_FORMAT_NOTES["method"] = _FORMAT_NOTES["function"]

SYSTEM_PROMPT = """\
<ROLE>
You are an expert code documentation worker agent operating on a software repository. Your goal \
is documentation that is complete and helpful for developers.
</ROLE>
<OBJECTIVES>
Documentation sufficient for a developer to reconstruct a functional implementation using only it.
- Repository: "What does this system do, and how are its parts organized?"
- Module or package: "What does this module do, and how do its components interact?"
- Component (function, method, class): "How do I implement and use it correctly?"
</OBJECTIVES>
<WORKFLOW>
You receive one unit at a time, in dependency order: what it uses and what it contains are \
documented before it, and their documents are in memory. Every turn you answer with exactly one \
JSON object naming one action, nothing else. The usual sequence is READ, WRITE, VERIFY, FINISH; \
after a failed VERIFY you READ or WRITE again.
</WORKFLOW>
<ACTIONS>
1. READ: ask for information you need.
   {"action": "READ", "target": "memory"}   the committed documents of the unit's dependencies \
and children (read this first for modules, packages and the repository)
   {"action": "READ", "target": "callees"}  the source of the units it calls
   {"action": "READ", "target": "callers"}  the source of the units that call or instantiate it
   {"action": "READ", "target": "owner"}    the source of the class a method belongs to
   {"action": "READ", "target": "<unit id>"} the source of one unit of the repository
   {"action": "READ", "target": "search", "query": "<question>"}  the documentation of a \
third-party library (only when the code depends on it and the answer is not in the repository)
   Do not ask for the same thing twice: what you read stays in the conversation.
2. WRITE: the document, as Markdown text in the format given with the task.
   {"action": "WRITE", "document": "## Summary\\n...", "claims": ["atomic factual statement", ...]}
   Only documentation text: no source code copies, no docstring quotes. Name code in backticks \
only when it exists in the repository, the standard library or an imported library. Use precise \
statements, not hedges ("typically", "may").
3. VERIFY: score your latest document as a harsh, skeptical reviewer, each from 0.00 to 1.00.
   {"action": "VERIFY", "scores": {"consistency": 0.00, "completeness": 0.00, "helpfulness": 0.00}}
   Consistency: every statement is supported by the code (names, types, defaults, exceptions, \
behaviour); nothing invented. Completeness: every parameter, return value, raised exception, \
public attribute or component is documented. Helpfulness: the summary says what and why; a \
developer new to the code could use it. Start each at 0.50 and move with concrete evidence; \
deduct at least 0.05 per minor and 0.10 per major flaw. The document passes when the mean is at \
least {threshold:.2f} and the automatic checks find nothing; otherwise you get the findings and \
may revise up to {max_revisions} times.
4. FINISH: save the verified document to memory and end the task. Only after VERIFY passed.
   {"action": "FINISH"}
</ACTIONS>
"""


def system_prompt(threshold: float, max_revisions: int) -> str:
    """The system prompt with the verification threshold and revision limit filled in."""
    return SYSTEM_PROMPT.replace("{threshold:.2f}", f"{threshold:.2f}").replace(
        "{max_revisions}", str(max_revisions)
    )


def format_instructions(kind: str) -> str:
    """The document format of one granularity: its sections and what goes in them."""
    sections = FORMATS[kind]
    heads = "\n".join(f"## {name}" for name in sections)
    return f"Sections, in this order, as Markdown headings:\n{heads}\n{_FORMAT_NOTES[kind]}"


def task_message(
    *,
    unit_id: str,
    kind: str,
    path: str,
    span: str,
    signature: str,
    source: str,
    context: str,
    reads: Sequence[str],
) -> str:
    """The first user message of a unit: what to document, its code and the format."""
    parts = [
        f"Unit: {unit_id}",
        f"Kind: {kind}",
        f"Location: {path}{span}",
    ]
    if signature:
        parts.append(f"Signature: {signature}")
    parts.append(f"<SOURCE>\n{source}\n</SOURCE>" if source else "<SOURCE>(no code of its own)</SOURCE>")
    if context:
        parts.append(f"<CONTEXT>\n{context}\n</CONTEXT>")
    parts.append("Available READ targets: " + ", ".join(reads))
    parts.append(f"<FORMAT>\n{format_instructions(kind)}\n</FORMAT>")
    parts.append("Answer with one JSON action.")
    return "\n\n".join(parts)


def corrective(problem: str) -> str:
    """The answer to a malformed, unknown or out-of-order action."""
    return (
        f"That action could not be used: {problem}\n"
        'Answer with exactly one JSON object such as {"action": "READ", "target": "memory"}; '
        "the actions are READ, WRITE, VERIFY and FINISH."
    )


def verdict(passed: bool, mean: float | None, findings: Sequence[str], revisions_left: int) -> str:
    """The observation after VERIFY: PASS, or REVISE with every finding."""
    score = "no usable score" if mean is None else f"mean score {mean:.2f}"
    if passed:
        return f"PASS ({score}). Answer FINISH to save the document."
    lines = "\n".join(f"- {f}" for f in findings)
    return (
        f"REVISE ({score}); {revisions_left} revision(s) left.\nFindings:\n{lines}\n"
        "READ what you need or WRITE a corrected document, then VERIFY again."
    )


JUDGE_PROMPT = """\
You check a draft document of one unit of a software repository for contradictions with the \
documents of the units it depends on or contains, which were verified before it and are the \
reference. First list the draft's atomic factual claims (one statement each, as short as \
possible). Then, for every claim that a reference document contradicts (not one it merely does \
not mention), give the claim, the id of the contradicting unit and why. Answer with one JSON \
object: {"claims": ["..."], "conflicts": [{"claim": "...", "unit": "<unit id>", "reason": "..."}]} \
with "conflicts": [] when there are none.
"""


def judge_message(
    unit_id: str, draft: str, claims: Sequence[str], references: dict[str, str], note: str | None = None
) -> str:
    """The cross-document check's request: the draft (with the writer's claims, if any) and the
    reference documents by unit id (``note``: what of them was cut to fit the context)."""
    parts = [f"Unit: {unit_id}", f"<DRAFT>\n{draft}\n</DRAFT>"]
    if claims:
        parts.append("The writer's claims:\n" + "\n".join(f"- {c}" for c in claims))
    parts += [f'<REFERENCE unit="{uid}">\n{doc}\n</REFERENCE>' for uid, doc in references.items()]
    if note:
        parts.append(note)
    return "\n\n".join(parts)
