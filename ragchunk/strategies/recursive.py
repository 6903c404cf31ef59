"""recursive: cut after the coarsest separator that fits, pack greedily, stay verbatim (SPEC §4).

Separators run paragraph → line → sentence end → clause → space, then grapheme clusters. Each
chunk ends right after the coarsest separator found inside its budget, so the separator stays
with the text before it and chunks rejoin to the document; text that fits is never split.
Sizes in characters or tokens. The overlap never reaches back across the coarsest separator (a
paragraph break) and begins on the coarsest boundary it holds: a line, a sentence, a clause,
else a word. In wrapped text (PDF) a line feed that only wraps a paragraph ranks as a space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.separators import DEFAULT_LEVELS, Levels, split_range
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from ragchunk.model import Document, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class RecursiveOptions:
    """Options of the recursive strategy."""

    budget: Budget = Budget(size=512, overlap=50)
    separators: tuple[str, ...] = field(
        default=(),
        metadata={
            "help": "Separators, coarsest first, as a JSON list; each is one level. Default: "
            "paragraph, line, sentence end, clause, space (with CJK punctuation)."
        },
    )

    def __post_init__(self) -> None:
        if "" in self.separators:
            raise OptionError("separators", "must not contain an empty string")
        object.__setattr__(self, "separators", tuple(dict.fromkeys(self.separators)))

    @property
    def levels(self) -> Levels:
        """The separator hierarchy, coarsest first."""
        if not self.separators:
            return DEFAULT_LEVELS
        return tuple((separator,) for separator in self.separators)


def split(doc: Document, options: RecursiveOptions, ctx: Context) -> list[Span]:
    """Return spans covering ``doc.text`` in order, each within ``ctx.capacity``."""
    windows = split_range(
        doc.text,
        0,
        len(doc.text),
        sizer=ctx.sizer,
        capacity=ctx.capacity,
        levels=options.levels,
        wraps=doc.wraps,
    )
    return spans_from_windows(doc.text, windows)


STRATEGY = Strategy(
    name="recursive",
    summary="Separator hierarchy (paragraph, line, sentence, clause, word), greedy packing. "
    "The default.",
    options=RecursiveOptions,
    split=split,
)
