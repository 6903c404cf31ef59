"""The text budget of one input (``--max-text``): the characters its parse may build.

A zip-based document can name one part many times, or one string from many places, and stay
within every size cap: 20,000 cells pointing at one 10 KB shared string made a 69 KB workbook
into 200 million characters. The parsers that build their text count every character they add
(``TextBuilder(spend=request.spend_text)``) against one ``TextBudget`` per input: the requests of
an e-mail's attachments, of a book's chapters and of a container's members (the messages of an
mbox, whose chunks are all held until the input is written) are copies of the input's and hold
the same budget, so what they build adds up. Parts named twice (a slide, a spine document, a
sheet's part) are read once, with a warning, by their parsers.
"""

from __future__ import annotations

from ragchunk.defaults import DEFAULT_MAX_TEXT
from ragchunk.errors import LimitExceededError


class TextBudgetError(LimitExceededError):
    """The text of an input passed its budget; it fails the whole input, attachments included."""


class TextBudget:
    """The characters an input's parse has built so far, against ``limit``."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int = DEFAULT_MAX_TEXT) -> None:
        self.limit = limit
        self.used = 0

    def spend(self, count: int, source: str) -> None:
        """Count ``count`` more characters, before they are kept.

        Raises:
            TextBudgetError: the text passes ``limit``; ``source`` names the input (or part).
        """
        self.used += count
        if self.used > self.limit:
            raise TextBudgetError(
                f"{source}: refused: its text grows past --max-text {self.limit} characters "
                "(a part or string repeated many times?)"
            )
