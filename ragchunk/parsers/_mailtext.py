"""The plain-text body of an e-mail: its blocks' lines and the line feeds that only wrap.

Mail clients hard-wrap plain text at 72 to 78 columns. A line feed between two lines of a
paragraph only wraps it when the next line's first word would not have fitted on the line at
the body's wrap width (its longest line of at most 80 columns, counting only lines a paragraph
goes on after; at least 40), the line filling at least 60% of it, or after a ``format=flowed``
line's trailing space (RFC 3676). List items, indented lines, quoted (``>``) lines and short
lines (``Kind regards,`` above a name) are never joined.
"""

from __future__ import annotations

import re
from typing import Final


def lines_of(block: str) -> list[str]:
    """Return a block's lines (trailing spaces kept: ``format=flowed`` marks soft breaks so)."""
    lines = [line.rstrip("\t\r") for line in block.strip("\n").split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


_ITEM: Final = re.compile(r"\s*(?:[-*+\u2022]|\d+[.)]|[a-z][.)])\s")
_WRAP_WIDTH: Final = 80
"""Lines at most this long are taken for hard-wrapped ones (mail clients wrap at 72 to 78)."""
_MIN_WIDTH: Final = 40
"""A body whose longest such line is shorter is not hard-wrapped (short lines kept as sent)."""
_FULL: Final = 0.6
"""A line wraps only when it fills at least this share of the width."""


def wrap_width(blocks: list[list[str]]) -> int:
    """Return the width a plain body is wrapped at: its longest line of at most 80 columns.

    Only lines a paragraph goes on after count: not a block's last, nor quoted lines, nor the
    attribution above a quote or a signature.
    """
    lengths = [
        len(line.rstrip())
        for lines in blocks
        if lines and not is_quote(lines) and lines[0].rstrip() != "--"
        for line in lines[:-1]
    ]
    width = max((n for n in lengths if n <= _WRAP_WIDTH), default=0)
    return width if width >= _MIN_WIDTH else 0


def is_quote(lines: list[str]) -> bool:
    """A quoted reply: ``>`` lines, perhaps under an attribution (``On ..., X wrote:``)."""
    quoted = lines[1:] if len(lines) > 1 and lines[0].rstrip().endswith(":") else lines
    return all(line.startswith(">") for line in quoted if line.strip())


def wraps_at(line: str, after: str, width: int, *, flowed: bool) -> bool:
    """Return whether the line feed between ``line`` and ``after`` only wraps a paragraph.

    It does where the first word of ``after`` would not have fitted on ``line`` (a full line),
    or after a flowed line's trailing space; never before a list item or an indented line.
    """
    if not line.strip() or not after.strip() or _ITEM.match(after) or after[:1].isspace():
        return False
    if line.startswith(">") or after.startswith(">"):
        return False
    if flowed and line.endswith(" "):
        return True
    line, word = line.rstrip(), after.split()[0]
    full = len(line) >= _FULL * width  # a greeting or a closing line ("Kind regards,") is not
    return width > 0 and full and len(line) + 1 + len(word) > width
