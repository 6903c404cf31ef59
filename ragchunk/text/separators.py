"""Separator hierarchies: cut a range after the coarsest separator that fits (SPEC §4).

``split_range`` covers ``text[start:end]`` with windows within a budget, each ending right
after the coarsest separator found inside it (paragraph → line → sentence end → clause →
space, then grapheme clusters), so separators stay with the text before them and windows
rejoin to the text. The overlap never reaches back across the coarsest separator and begins on
the coarsest boundary it holds. The ``recursive`` strategy is this over the whole document;
others use it to refine a block too large for the size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ragchunk.text.boundaries import (
    first_separator_end,
    last_separator_cut,
    last_separator_end,
)
from ragchunk.text.pack import Window, align_to_word, new_window, pack

if TYPE_CHECKING:
    from ragchunk.measure import Sizer
    from ragchunk.options import Budget

Levels = tuple[tuple[str, ...], ...]
"""Separators grouped by level, coarsest first; every separator of a level ranks the same."""

DEFAULT_LEVELS: Final[Levels] = (
    ("\n\n", "\r\n\r\n"),
    ("\n",),
    (". ", "! ", "? ", "。", "！", "？"),
    ("; ", ", ", ": ", "；", "，", "、"),
    (" ", "\t"),
)

INSIDE_SENTENCE: Final[Levels] = (DEFAULT_LEVELS[1], DEFAULT_LEVELS[3], DEFAULT_LEVELS[4])
"""Inside one sentence its full stops are not boundaries (Dr., a.m.): lines, clauses, words."""


def split_range(
    text: str,
    start: int,
    end: int,
    *,
    sizer: Sizer,
    budget: Budget,
    levels: Levels = DEFAULT_LEVELS,
) -> list[Window]:
    """Return windows covering ``text[start:end]``, each within ``budget``, cut at separators."""
    if sizer.is_length:
        return char_windows(text, start, end, budget=budget, levels=levels)

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


def char_windows(
    text: str,
    start: int,
    end: int,
    *,
    budget: Budget,
    levels: Levels = DEFAULT_LEVELS,
) -> list[Window]:
    """``split_range`` when sizes are code points.

    The same windows as ``pack`` with ``last_separator_cut`` and ``align_to_separator``, in
    one loop: a window's size is its length, so nothing is measured, and the coarsest level,
    which ends most windows, is searched inline. A long range is taken in blocks of
    ``_BLOCK`` windows, each searched only for the separators it holds.
    """
    size, overlap = budget.size, budget.overlap
    all_levels, coarsest, finer = levels, levels[0], levels[1:]
    # Every search below lies in [s, s + size) for the current `s`, and `s` only grows, so
    # separators absent from [s, pruned_to) stay absent until `limit` passes `pruned_to`.
    pruned_to = start if end - start > _PRUNE_FROM * size else end
    rfind = text.rfind
    windows: list[Window] = []
    s = done = start  # the window starts at `s`; everything before `done` is covered
    while done < end:
        limit = s + size
        if limit >= end:
            windows.append(new_window((s, end, False, False)))
            break
        if limit > pruned_to:
            pruned_to = min(end, s + _BLOCK * size)
            levels = _present_separators(text, s, pruned_to, all_levels)
            coarsest, finer = levels[0], levels[1:]
        cut = after = -1  # the end of the coarsest level's last separator, and where it starts
        for separator in coarsest:
            p = rfind(separator, done, limit)
            if p >= 0 and p + len(separator) > cut:
                cut, after = p + len(separator), p
        if cut < 0:
            cut = last_separator_cut(text, done, limit, finer)
        windows.append(new_window((s, cut, False, False)))
        done = cut
        if not overlap:
            s = cut
        else:
            lo = max(cut - overlap, s + 1)
            # A coarsest separator inside the overlap's reach that ends the window leaves no
            # overlap: align_to_separator's answer, known without searching again.
            s = cut if after >= lo and finer else align_to_separator(text, lo, cut, levels)
    return windows


_PRUNE_FROM: Final = 16
"""Ranges longer than this many windows drop, block by block, the separators they lack."""
_BLOCK: Final = 64
"""Windows per block: its text stays in the CPU cache through its dozen scans (one scan of
all of a 10 MB text per absent character cost more than the searches it saved)."""


def _present_separators(text: str, start: int, end: int, levels: Levels) -> Levels:
    r"""Return ``levels`` without the separators that cannot occur in ``text[start:end]``.

    A separator with a character the range lacks is never found there, so dropping it changes
    no cut, and saves an ``rfind`` over every window (``\r\n\r\n`` and CJK punctuation in most
    text). Looking for single characters is fast (vectorised scans); levels stay in place.
    """
    absent = {
        ch for level in levels for sep in level for ch in sep if text.find(ch, start, end) < 0
    }
    return tuple(tuple(sep for sep in level if absent.isdisjoint(sep)) for level in levels)


def align_to_separator(text: str, lo: int, hi: int, levels: Levels) -> int:
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
