"""One block larger than the size, split at the finest boundaries its kind allows.

A table splits between rows (``tables``: a row too large alone at its cells), a list between
items, a row of a sheet or CSV between its lines, prose between sentences (then words), a code
block between lines (a line too long at spaces); any other block at the separators. Table rows,
list items and sentences are packed whole, so only a piece of one that was itself too large is
flagged ``split``; every piece of a code block or of another block is a part of a block that
had to stay whole (SPEC §3.3).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from ragchunk.text.pack import Window
from ragchunk.text.refine import refine_by_words
from ragchunk.text.sentences import split_sentences
from ragchunk.text.separators import DEFAULT_LEVELS, Levels, split_range
from ragchunk.text.tables import split_table, widened
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.measure import Sizer
    from ragchunk.model import Section
    from ragchunk.options import Capacity

# A line from its first character (indentation kept) to its last non-space character.
_LINE: Final = re.compile(r"[^\S\n]*\S(?:[^\n]*\S)?")


def split_block(
    text: str, section: Section, start: int, end: int, *, sizer: Sizer, capacity: Capacity
) -> tuple[list[Window], bool]:
    """Return the pieces of a block too large for the size, and whether they hold whole units.

    ``[start, end)`` is the block widened over what shares its first and last pieces (the
    headings before it, a closer after it). Windows are absolute and half-open, within
    ``capacity.size`` as ``sizer`` measures them.
    """
    if section.kind == "table" and section.parts:
        return split_table(text, section, start, end, sizer=sizer, capacity=capacity), True
    if section.kind in ("list", "row") and section.parts:
        units = widened(section.parts, start, end)
        return _pack(text, units, sizer, capacity, DEFAULT_LEVELS), True
    if section.kind == "code":
        lines = [m.span() for m in _LINE.finditer(text, section.start, section.end)]
        return _lines(text, widened(lines, start, end), sizer, capacity), False
    if section.kind == "prose":
        sentences = split_sentences(text, section.start, section.end)
        windows = pack_units(
            widened(sentences, start, end),
            sizer=sizer,
            size=capacity.size,
            overlap=capacity.overlap,
            refine=refine_by_words(sizer, capacity, text),
        )
        return windows, True
    return split_range(text, start, end, sizer=sizer, capacity=capacity), False


def _pack(
    text: str, units: Sequence[tuple[int, int]], sizer: Sizer, capacity: Capacity, levels: Levels
) -> list[Window]:
    """Pack whole items; one too large alone is split at the separators."""
    whole = capacity.without_overlap()

    def refine(start: int, end: int) -> Sequence[Window]:
        return split_range(text, start, end, sizer=sizer, capacity=whole, levels=levels)

    return pack_units(
        units, sizer=sizer, size=capacity.size, overlap=capacity.overlap, refine=refine
    )


def _lines(
    text: str, lines: Sequence[tuple[int, int]], sizer: Sizer, capacity: Capacity
) -> list[Window]:
    """Split a code block by whole lines; a line too long alone is split at spaces."""
    return pack_units(
        lines,
        sizer=sizer,
        size=capacity.size,
        overlap=capacity.overlap,
        refine=lambda s, e: split_range(text, s, e, sizer=sizer, capacity=capacity),
    )
