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
