"""Separator hierarchies: cut a range after the coarsest separator that fits (SPEC §4).

``split_range`` covers ``text[start:end]`` with windows within a capacity, each ending right
after the coarsest separator found inside it (paragraph → line → sentence end → clause →
space, then grapheme clusters), so separators stay with the text before them and windows
rejoin to the text. The overlap never reaches back across the coarsest separator and begins on
the coarsest boundary it holds. The ``recursive`` strategy is this over the whole document;
others use it to refine a block too large for the size.

A document whose lines are wrapped (a PDF) lists the line feeds that only continue a paragraph
(``Document.wraps``). Given them, the default hierarchy ranks them with the spaces: paragraph
breaks and hard line breaks first, then sentence ends (also before a wrap), clauses, and words;
the text is not changed (``WRAPPED_LEVELS``).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Final

from ragchunk.text.boundaries import (
    first_separator_end,
    last_separator_cut,
    last_separator_end,
)
from ragchunk.text.pack import Window, align_to_word, new_window, pack

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.measure import Sizer
    from ragchunk.options import Capacity

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

WRAPPED_LEVELS: Final[Levels] = (
    DEFAULT_LEVELS[0],
    DEFAULT_LEVELS[1],
    (*DEFAULT_LEVELS[2], ".\n", "!\n", "?\n"),
    (*DEFAULT_LEVELS[3], ";\n", ",\n", ":\n"),
    (*DEFAULT_LEVELS[4], "\n"),
)
"""``DEFAULT_LEVELS`` for wrapped text: a separator of the first two levels never starts at a
wrap; a sentence end or a clause before a wrap counts as one, and a wrap ranks as a space."""
_HARD_LEVELS: Final = 2


def split_range(
    text: str,
    start: int,
    end: int,
    *,
    sizer: Sizer,
    capacity: Capacity,
    levels: Levels = DEFAULT_LEVELS,
    wraps: Sequence[int] = (),
) -> list[Window]:
    """Return windows covering ``text[start:end]``, each within ``capacity``, cut at separators.

    ``wraps`` (sorted offsets of line feeds that only wrap a paragraph, ``Document.wraps``)
    apply to the default hierarchy, which then becomes ``WRAPPED_LEVELS``; custom levels cut
    at every separator as written.
    """
    if wraps and levels == DEFAULT_LEVELS and _has_wraps(wraps, start, end):
        return _wrapped_windows(text, start, end, sizer=sizer, capacity=capacity, wraps=wraps)
    if sizer.is_length:
        return char_windows(text, start, end, capacity=capacity, levels=levels)

    def find_cut(text: str, lo: int, limit: int) -> int:
        return last_separator_cut(text, lo, limit, levels)

    def align_start(text: str, lo: int, hi: int) -> int:
        return align_to_separator(text, lo, hi, levels)

    return pack(
        text,
        start,
        end,
        sizer=sizer,
        size=capacity.size,
        overlap=capacity.overlap,
        find_cut=find_cut,
        align_start=align_start,
    )


def char_windows(
    text: str,
    start: int,
    end: int,
    *,
    capacity: Capacity,
    levels: Levels = DEFAULT_LEVELS,
) -> list[Window]:
    """``split_range`` when sizes are code points.

    The same windows as ``pack`` with ``last_separator_cut`` and ``align_to_separator``, in
    one loop: a window's size is its length, so nothing is measured, and the coarsest level,
    which ends most windows, is searched inline. A long range is taken in blocks of
    ``_BLOCK`` windows, each searched only for the separators it holds.
    """
    size, overlap = capacity.size, capacity.overlap
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


def _has_wraps(wraps: Sequence[int], start: int, end: int) -> bool:
    k = bisect_left(wraps, start)
    return k < len(wraps) and wraps[k] < end


def _wrapped_windows(
    text: str, start: int, end: int, *, sizer: Sizer, capacity: Capacity, wraps: Sequence[int]
) -> list[Window]:
    """``split_range`` over ``WRAPPED_LEVELS``: the first two levels skip ``wraps``."""

    def is_wrap(p: int) -> bool:
        k = bisect_left(wraps, p)
        return k < len(wraps) and wraps[k] == p

    def find_cut(text: str, lo: int, limit: int) -> int:
        for number, level in enumerate(WRAPPED_LEVELS):
            skip = is_wrap if number < _HARD_LEVELS else None
            best = _last_end(text, lo, limit, level, skip)
            if best > lo:
                return best
        return last_separator_cut(text, lo, limit, ())

    def align_start(text: str, lo: int, hi: int) -> int:
        after_break = _last_end(text, lo, hi, WRAPPED_LEVELS[0], is_wrap)
        if after_break >= hi:
            return hi
        lo = max(lo, after_break)
        for number, level in enumerate(WRAPPED_LEVELS[1:-1], start=1):
            first = _first_end(text, lo, hi, level, is_wrap if number < _HARD_LEVELS else None)
            if 0 <= first < hi:
                return first
        return align_to_word(text, lo, hi)

    return pack(
        text,
        start,
        end,
        sizer=sizer,
        size=capacity.size,
        overlap=capacity.overlap,
        find_cut=find_cut,
        align_start=align_start,
    )


def _last_end(
    text: str, lo: int, hi: int, level: tuple[str, ...], skip: Callable[[int], bool] | None
) -> int:
    """Return the end of the last separator of ``level`` wholly in ``[lo, hi)`` not skipped."""
    best = -1
    for separator in level:
        p = text.rfind(separator, lo, hi)
        while p >= 0 and skip is not None and skip(p):
            p = text.rfind(separator, lo, p + len(separator) - 1)
        if p >= 0 and p + len(separator) > best:
            best = p + len(separator)
    return best


def _first_end(
    text: str, lo: int, hi: int, level: tuple[str, ...], skip: Callable[[int], bool] | None
) -> int:
    """Return the end of the first separator of ``level`` wholly in ``[lo, hi)`` not skipped."""
    best = -1
    for separator in level:
        p = text.find(separator, lo, hi)
        while p >= 0 and skip is not None and skip(p):
            p = text.find(separator, p + 1, hi)
        if p >= 0 and (best < 0 or p + len(separator) < best):
            best = p + len(separator)
    return best
