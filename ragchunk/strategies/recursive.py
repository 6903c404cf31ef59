"""recursive: cut after the coarsest separator that fits, pack greedily, stay verbatim (SPEC §4).

Separators run paragraph → line → sentence end → clause → space, then grapheme clusters. Each
chunk ends right after the coarsest separator found inside its budget, so the separator stays
with the text before it and chunks rejoin to the document; text that fits is never split.
Sizes in characters or tokens. The overlap never reaches back across the coarsest separator (a
paragraph break) and begins on the coarsest boundary it holds: a line, a sentence, a clause,
else a word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.errors import OptionError
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy, spans_from_windows
from ragchunk.text.boundaries import (
    first_separator_end,
    last_separator_cut,
    last_separator_end,
)
from ragchunk.text.pack import Window, align_to_word, pack

if TYPE_CHECKING:
    from ragchunk.measure import Sizer
    from ragchunk.model import Document, Span

DEFAULT_LEVELS: Final = (
    ("\n\n", "\r\n\r\n"),
    ("\n",),
    (". ", "! ", "? ", "。", "！", "？"),
    ("; ", ", ", ": ", "；", "，", "、"),
    (" ", "\t"),
)


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
    def levels(self) -> tuple[tuple[str, ...], ...]:
        """The separator hierarchy, coarsest first."""
        if not self.separators:
            return DEFAULT_LEVELS
        return tuple((separator,) for separator in self.separators)


def split_range(
    text: str,
    start: int,
    end: int,
    *,
    sizer: Sizer,
    budget: Budget,
    levels: tuple[tuple[str, ...], ...] = DEFAULT_LEVELS,
) -> list[Window]:
    """Return windows covering ``text[start:end]``, each within ``budget``, cut at separators."""

    def find_cut(text: str, lo: int, limit: int) -> int:
        return last_separator_cut(text, lo, limit, levels)

    def align_start(text: str, lo: int, hi: int) -> int:
        return align_to_separator(text, lo, hi, levels)

    return pack(
        text,
        start,
        end,
        sizer=sizer,
        size=budget.size,
        overlap=budget.overlap,
        find_cut=find_cut,
        align_start=align_start,
    )


def align_to_separator(text: str, lo: int, hi: int, levels: tuple[tuple[str, ...], ...]) -> int:
    """Return where an overlap in ``[lo, hi)`` begins: after the coarsest separator it holds.

    A coarsest-level separator (a paragraph break) ends the overlap's reach: the overlap starts
    after the last one, or not at all when it ends at ``hi``. Otherwise the earliest boundary of
    the coarsest finer level that has one wins; failing all, the first word start.
    """
    if len(levels) > 1:
        after_break = last_separator_end(text, lo, hi, levels[0])
        if after_break >= hi:
            return hi
        lo = max(lo, after_break)
        for level in levels[1:-1]:
            first = first_separator_end(text, lo, hi, level)
            if 0 <= first < hi:
                return first
    return align_to_word(text, lo, hi)


def split(doc: Document, options: RecursiveOptions, ctx: Context) -> list[Span]:
    """Return spans covering ``doc.text`` in order, each within ``options.budget``."""
    windows = split_range(
        doc.text, 0, len(doc.text), sizer=ctx.sizer, budget=options.budget, levels=options.levels
    )
    return spans_from_windows(doc.text, windows)


STRATEGY = Strategy(
    name="recursive",
    summary="Separator hierarchy (paragraph, line, sentence, clause, word), greedy packing. "
    "The default.",
    options=RecursiveOptions,
    split=split,
)
