"""Greedy windows over a range of text: the loop every size-bounded strategy shares.

``pack`` walks ``[start, end)`` left to right. Each window begins where the previous one's overlap
begins and ends at the best cut a strategy's ``find_cut`` offers inside the budget; the size of
every window is then checked with the sizer (a span measured alone) and the window shrinks until
it fits. So the hard size limit holds by construction, overlap included (SPEC §3.3).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, NamedTuple, TypeAlias

from ragchunk.text.boundaries import grapheme_ceil, has_space, next_word_start

if TYPE_CHECKING:
    from ragchunk.measure import Sizer

FindCut: TypeAlias = Callable[[str, int, int], int]
"""``find_cut(text, lo, limit)`` returns the preferred cut in ``(lo, limit]``."""

AlignStart: TypeAlias = Callable[[str, int, int], int]
"""``align_start(text, lo, hi)`` returns the first allowed chunk start in ``[lo, hi]``."""


class Window(NamedTuple):
    """A packed span of text.

    ``oversize`` marks one indivisible code point larger than the budget; ``split`` marks a
    piece of a unit that had to stay whole (a sentence, a row, a subtree) but was larger than
    the size and was split (SPEC §3.3: the chunk gets ``metadata.oversize_split``).
    """

    start: int
    end: int
    oversize: bool = False
    split: bool = False


new_window: Final = functools.partial(tuple.__new__, Window)
"""``new_window((start, end, oversize, split))``: a ``Window`` made in C, several times cheaper
than ``Window(start, end)`` (a NamedTuple's ``__new__`` is Python code), for the char loops'."""


def pack(
    text: str,
    start: int,
    end: int,
    *,
    sizer: Sizer,
    size: int,
    overlap: int,
    find_cut: FindCut,
    align_start: AlignStart,
) -> list[Window]:
    """Cover ``text[start:end]`` with windows of at most ``size`` units, overlap included.

    Returns:
        Windows in order; their union covers ``[start, end)`` and consecutive windows share at
        most ``overlap`` units, the shared part beginning where ``align_start`` allows.
    """
    if sizer.is_length:
        return _pack_chars(text, start, end, size, overlap, find_cut, align_start)
    windows: list[Window] = []
    s = start
    done = start  # everything before `done` is already covered
    while done < end:
        cut = _fit(text, s, done, end, sizer, size, find_cut)
        if cut < 0:  # the overlap leaves no room for new text: drop it for this window
            s = done
            continue
        oversize = cut == done + 1 and s == done and sizer.size(s, cut) > size
        windows.append(Window(s, cut, oversize))
        done = cut
        if overlap and done < end:
            s = _overlap_start(text, s, done, sizer, overlap, align_start)
        else:
            s = done
    return windows


def _pack_chars(
    text: str,
    start: int,
    end: int,
    size: int,
    overlap: int,
    find_cut: FindCut,
    align_start: AlignStart,
) -> list[Window]:
    """``pack`` when sizes are code points: a span's size is its length, so nothing is measured.

    Every window ``[s, cut)`` has ``cut <= s + size``; the next starts at or after
    ``cut - overlap``, and ``done - s <= overlap < size`` keeps each window making progress.
    """
    windows: list[Window] = []
    s = done = start
    while done < end:
        limit = s + size
        cut = end if limit >= end else find_cut(text, done, limit)
        windows.append(new_window((s, cut, False, False)))
        done = cut
        s = align_start(text, max(cut - overlap, s + 1), cut) if overlap and cut < end else cut
    return windows


def _fit(text: str, s: int, done: int, end: int, sizer: Sizer, size: int, find_cut: FindCut) -> int:
    """Return the best cut in ``(done, end]`` such that ``[s, cut)`` fits, or -1 if none does."""
    limit = min(end, sizer.offset(min(sizer.index(s) + size, sizer.total)))
    if limit <= done:
        limit = done + 1
    while True:
        cut = end if limit >= end else find_cut(text, done, limit)
        if sizer.size(s, cut) <= size:
            return cut
        if cut <= done + 1:
            # SPEC §3.3: not even one code point fits after the overlap; without overlap, the
            # code point is indivisible and is emitted alone (flagged by the caller).
            return done + 1 if s == done else -1
        limit = cut - 1


def _overlap_start(
    text: str, s: int, cut: int, sizer: Sizer, overlap: int, align_start: AlignStart
) -> int:
    """Return where the window after ``cut`` begins so that it repeats at most ``overlap`` units."""
    lo = max(sizer.offset(max(sizer.index(cut) - overlap, 0)), s + 1)
    q = align_start(text, lo, cut)
    while q < cut and sizer.size(q, cut) > overlap:
        q = align_start(text, q + 1, cut)
    return q


def align_to_word(text: str, lo: int, hi: int) -> int:
    """Return the first word start in ``[lo, hi)``; inside one long word, a grapheme boundary.

    SPEC §3.5: overlap never begins inside a word when a word boundary exists, and never inside
    a grapheme cluster. Returns ``hi`` (no overlap) when the range ends in whitespace.
    """
    q = next_word_start(text, lo, hi)
    if q >= 0:
        return q
    if has_space(text, lo, hi):
        return hi
    return grapheme_ceil(text, lo, hi)
