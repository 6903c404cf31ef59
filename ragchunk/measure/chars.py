"""The ``chars`` unit: code points, as Python's ``len`` counts them; every size is a length."""

from __future__ import annotations

from typing import Final


class CharSizer:
    """Sizes in code points: every size is ``end - start``."""

    __slots__ = ("total",)
    unit: Final = "chars"
    is_length: Final = True

    def __init__(self, text: str) -> None:
        self.total = len(text)

    def size(self, start: int, end: int) -> int:
        """Return ``end - start``."""
        return end - start

    def offset(self, index: int) -> int:
        """Return ``index``: every code point boundary is a unit boundary."""
        return index

    def index(self, offset: int) -> int:
        """Return ``offset``."""
        return offset


class CharMeasure:
    """The ``chars`` unit: code points, as Python's ``len`` counts them."""

    name: Final = "chars"
    unit: Final = "chars"
    is_length: Final = True

    def count(self, text: str) -> int:
        """Return ``len(text)``."""
        return len(text)

    def prepare(self, text: str) -> CharSizer:
        """Return a sizer for ``text``."""
        return CharSizer(text)


CHARS: Final = CharMeasure()
"""The one character measure."""
