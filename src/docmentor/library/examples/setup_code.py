"""Set-up code a page hides in an HTML comment: the fenced blocks inside ``<!-- … -->``
(``<!-- Setup Code`` then a fence then ``-->``), which a renderer never shows and the parser
drops, but whose bindings (``db = lancedb.connect(uri)``, ``tbl = db.create_table(…)``) the
page's later examples rely on. The matcher reads them as the page's context, to type those
examples; they are never examples themselves.

Line by line with plain string operations (no regular expressions): linear in the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from docmentor.parse.fences import Fence, closes, fence_open

__all__ = ["HiddenBlock", "hidden_blocks"]


@dataclass(frozen=True, slots=True)
class HiddenBlock:
    """A fenced block inside an HTML comment."""

    line: int  # 1-based line of its opening fence in the text scanned
    info: str  # the fence's info string ("python", "javascript", "")
    code: str


def hidden_blocks(text: str) -> list[HiddenBlock]:
    """The fenced blocks inside HTML comments of ``text``, in order. A fence outside a
    comment is skipped whole (a ``<!--`` in code opens nothing); a comment left open at the
    end of the text, or a fence left open at its end, gives nothing more."""
    out: list[HiddenBlock] = []
    in_comment = False
    fence: Fence | None = None
    start = 0
    body: list[str] = []
    for k, line in enumerate(text.split("\n")):
        if fence is not None:  # inside a fence: only its closing line ends it
            if closes(line, fence, any_indent=True):
                if in_comment:
                    out.append(HiddenBlock(start + 1, fence.info, "\n".join(body) + "\n"))
                fence, body = None, []
            elif in_comment:
                body.append(line[len(fence.indent) :] if line.startswith(fence.indent) else line.lstrip())
            continue
        opened = fence_open(line, any_indent=True)
        if opened is not None:
            fence, start, body = opened, k, []
            continue
        in_comment = _comment_state(line, in_comment)
    return out


def _comment_state(line: str, in_comment: bool) -> bool:
    """Whether a comment is open after ``line``, given whether one was open before it."""
    pos = 0
    while True:
        if in_comment:
            end = line.find("-->", pos)
            if end < 0:
                return True
            in_comment, pos = False, end + 3
        else:
            begin = line.find("<!--", pos)
            if begin < 0:
                return False
            in_comment, pos = True, begin + 4
