"""paragraph: blank-line paragraphs packed up to the size; a long one falls back to sentences.

Paragraphs are separated by blank lines (whitespace-only lines, CRLF included). A chunk runs
from a paragraph's first character to a later paragraph's last one, and the next chunk repeats
the last whole paragraphs that fit in ``--overlap``. A paragraph larger than the size alone is
packed as whole sentences (overlap in whole sentences), and a sentence still too large is split
at clauses, then words, then graphemes; all those pieces carry ``metadata.oversize_split``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.strategies.paragraph.paragraphs import split_paragraphs
from ragchunk.text.refine import refine_by_sentences
from ragchunk.text.spans import spans_from_windows
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from ragchunk.model import Document, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class ParagraphOptions:
    """Options of the paragraph strategy."""

    budget: Budget = Budget(size=1024, overlap=0)


def split(doc: Document, options: ParagraphOptions, ctx: Context) -> list[Span]:  # noqa: ARG001 - the seam\'s signature
    """Return spans of whole paragraphs covering ``doc.text`` in order, within the capacity."""
    text = doc.text
    capacity = ctx.capacity
    pieces = pack_units(
        split_paragraphs(text),
        sizer=ctx.sizer,
        size=capacity.size,
        overlap=capacity.overlap,
        refine=refine_by_sentences(ctx.sizer, capacity, text),
    )
    return spans_from_windows(text, pieces)


STRATEGY = Strategy(
    name="paragraph",
    summary="Blank-line paragraphs packed to the size; a long paragraph falls back to "
    "sentences, then words.",
    options=ParagraphOptions,
    split=split,
)
