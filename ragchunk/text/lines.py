"""Line numbers for offsets: 1-based; a line ends after a line feed, so CRLF counts once."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final

_NEWLINE: Final = re.compile("\n")


class LineIndex:
    """Maps offsets of one text to 1-based line numbers and line starts to offsets."""

    __slots__ = ("starts",)

    def __init__(self, text: str) -> None:
        self.starts: list[int] = [0, *(m.end() for m in _NEWLINE.finditer(text))]

    def line_of(self, offset: int) -> int:
        """Return the 1-based line holding ``offset``."""
        return bisect_right(self.starts, offset)

    def offset_of(self, line: int) -> int:
        """Return the offset where 1-based ``line`` begins."""
        return self.starts[line - 1]


def line_range(text: str, start: int, end: int, first_line: int, line_at: int) -> tuple[int, int]:
    """Return the 1-based lines of the first and last character of ``text[start:end]``.

    ``first_line`` is the line of offset ``line_at`` (<= ``start``); counting forward from a
    known point keeps consecutive calls over a document linear in its length.
    """
    line_start = first_line + text.count("\n", line_at, start)
    line_end = line_start + text.count("\n", start, max(start, end - 1))
    return line_start, line_end
