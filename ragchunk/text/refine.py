"""Refining one block too large for the size: whole sentences first, then words.

A ``Refine`` covers one oversize unit with windows that fit the size (``text.units``). These
are the refinements strategies share: inside a sentence at lines, clauses, then words; inside a
paragraph (or any prose block) at whole sentences, a sentence still too large by words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragchunk.text.languages import DEFAULT_LANGUAGE
from ragchunk.text.sentences import split_sentences
from ragchunk.text.separators import INSIDE_SENTENCE, split_range
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.measure import Sizer
    from ragchunk.options import Capacity
    from ragchunk.text.pack import Window
    from ragchunk.text.units import Refine


def refine_by_words(sizer: Sizer, capacity: Capacity, text: str) -> Refine:
    """Return a ``refine`` that splits one oversize sentence at lines, clauses, then words."""

    def refine(start: int, end: int) -> Sequence[Window]:
        return split_range(text, start, end, sizer=sizer, capacity=capacity, levels=INSIDE_SENTENCE)

    return refine


def refine_by_sentences(
    sizer: Sizer, capacity: Capacity, text: str, *, language: str = DEFAULT_LANGUAGE
) -> Refine:
    """Return a ``refine`` that packs one oversize block as whole sentences (then words).

    ``language`` is a code of ``text.languages.LANGUAGES`` whose sentence rules apply.
    """
    by_words = refine_by_words(sizer, capacity, text)

    def refine(start: int, end: int) -> Sequence[Window]:
        return pack_units(
            split_sentences(text, start, end, language=language),
            sizer=sizer,
            size=capacity.size,
            overlap=capacity.overlap,
            refine=by_words,
        )

    return refine
