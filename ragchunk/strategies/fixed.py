"""fixed: windows of N units; each cut walks back to whitespace when some is nearby (SPEC §4).

"Nearby" is the last tenth of the window. With no whitespace there, the cut falls on a grapheme
cluster boundary. The overlap begins on a word. Sizes in characters or tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.boundaries import grapheme_floor, last_whitespace_end
from ragchunk.text.pack import align_to_word, pack
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from ragchunk.model import Document, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class FixedOptions:
    """Options of the fixed strategy."""

    budget: Budget = Budget(size=512, overlap=50)


def find_cut(text: str, lo: int, limit: int) -> int:
    """Return the end of the last whitespace run in the window's last tenth, else ``limit``."""
    nearby = max(1, (limit - lo) // 10)
    cut = last_whitespace_end(text, max(lo, limit - nearby), limit)
    return cut if cut > lo else grapheme_floor(text, limit, lo)


def split(doc: Document, options: FixedOptions, ctx: Context) -> list[Span]:  # noqa: ARG001 - the seam\'s signature
    """Return spans covering ``doc.text`` in order, each within ``ctx.capacity``."""
    windows = pack(
        doc.text,
        0,
        len(doc.text),
        sizer=ctx.sizer,
        size=ctx.capacity.size,
        overlap=ctx.capacity.overlap,
        find_cut=find_cut,
        align_start=align_to_word,
    )
    return spans_from_windows(doc.text, windows)


STRATEGY = Strategy(
    name="fixed",
    summary="Windows of N units, nudged back to the nearest whitespace.",
    options=FixedOptions,
    split=split,
)
