"""Greedy packing of whole units (sentences, paragraphs, rows) into chunks within a budget.

``pack_units`` takes spans that must not be cut (units) and joins consecutive ones while the
chunk, measured alone from its first unit's start to its last unit's end, stays within the size.
The overlap is made of whole units too: the next chunk repeats the last units of the previous
one as long as they fit the overlap (in units of measure, or as a count of units). A unit that
is alone larger than the size is handed to ``refine``, whose windows are flagged ``split``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeAlias

from ragchunk.text.pack import Window, new_window

if TYPE_CHECKING:
    from ragchunk.measure import Sizer


Refine: TypeAlias = Callable[[int, int], Sequence["Window"]]
"""``refine(start, end)`` covers one oversize unit with windows that fit the size."""


def pack_units(
    units: Sequence[tuple[int, int]],
    *,
    sizer: Sizer,
    size: int | None,
    overlap: int = 0,
    max_units: int | None = None,
    overlap_units: int = 0,
    refine: Refine,
) -> list[Window]:
    """Pack consecutive units greedily into windows of at most ``size`` units of measure.

    Args:
        units: non-overlapping spans in order (absolute, half-open).
        sizer: measures a span alone; every piece is checked with it.
        size: the hard limit, or None for no limit in units of measure.
        overlap: the most a piece may repeat of the previous one, in units of measure.
        max_units: the most units in one piece (sentence-count mode), or None.
        overlap_units: with ``max_units``, the number of units a piece repeats (then
            ``overlap`` is not used); below ``max_units``.
        refine: covers a unit that is alone larger than ``size``.

    Returns:
        Windows in order, each from a unit's start to a (later) unit's end, or a refined
        piece of one unit (flagged ``split``).
    """
    pieces: list[Window] = []
    n = len(units)
    bounds = _Bounds(units, sizer)
    i = 0  # the first unit not yet in any piece
    first = 0  # the first unit of the next piece (before i when it repeats some)
    while i < n:
        last = _extend(bounds, size, first, i, max_units)
        if last is None and first < i:
            first += 1  # the overlap leaves no room for the next unit: repeat less
            continue
        if last is None:
            pieces.extend(_refined(refine, *units[i]))
            i = first = i + 1
            continue
        pieces.append(new_window((units[first][0], units[last][1], False, False)))
        previous_first, i = first, last + 1
        first = _overlap_start(bounds, previous_first, last, overlap, overlap_units, max_units)
    return pieces


class _Bounds:
    """The units' starts and ends as plain lists, and guesses of sizes from the whole text.

    Measuring a span alone re-encodes its edges; the whole text's encoding gives a guess for
    free (one offset lookup and a bisection over the units), and exact measurements then search
    outward from it: about two per piece and two per overlap when the guess is right.
    """

    __slots__ = ("ends", "sizer", "starts")

    def __init__(self, units: Sequence[tuple[int, int]], sizer: Sizer) -> None:
        self.starts = [start for start, _ in units]
        self.ends = [end for _, end in units]
        self.sizer = sizer

    def size(self, first: int, last: int) -> int:
        """Return the exact size of the span from unit ``first``'s start to unit ``last``'s end."""
        return self.sizer.size(self.starts[first], self.ends[last])

    def offset(self, boundary: int) -> int:
        """Return the character offset of the sizer's ``boundary`` (a token's, or a character's).

        Only a guess reads it, so a token that starts inside a code point may be off by one.
        """
        if boundary <= 0:
            return 0
        if boundary >= self.sizer.total:
            return self.ends[-1] + 1
        return self.sizer.offset(boundary)

    def guess_last(self, first: int, size: int) -> int:
        """Return the last unit whose span from unit ``first`` the whole text says fits."""
        limit = self.offset(self.sizer.index(self.starts[first]) + size)
        return bisect_right(self.ends, limit) - 1

    def guess_first(self, last: int, size: int) -> int:
        """Return the first unit whose span to unit ``last`` the whole text says fits."""
        end_token = self.sizer.index(self.ends[last] - 1)
        return bisect_left(self.starts, self.offset(end_token - size + 1))


def _extend(
    bounds: _Bounds, size: int | None, first: int, last: int, max_units: int | None
) -> int | None:
    """Return the last unit of the piece from unit ``first`` that holds unit ``last`` too.

    The piece takes the most units that fit; None when not even unit ``last`` fits. Only a
    span that was measured and fits is ever returned (the search assumes sizes grow with the
    units, so a fitting span that reaches past ``last`` shows that ``last`` fits too).
    """
    n = len(bounds.ends)
    limit = n - 1 if max_units is None else min(n - 1, first + max_units - 1)
    if size is None:
        return max(limit, last)

    def fits(k: int) -> bool:
        return bounds.size(first, k) <= size

    found = _search(fits, last - 1, limit + 1, bounds.guess_last(first, size))
    return None if found < last else found


def _search(fits: Callable[[int], bool], fit: int, miss: int, guess: int) -> int:
    """Return the largest ``k`` in ``[fit, miss)`` with ``fits(k)``; ``fits(fit)`` holds.

    Probes gallop away from ``guess`` (up while units fit, down while they do not), then
    bisect; assumes sizes grow with the units, and never returns an unmeasured unit.
    """
    probe = min(max(guess, fit + 1), miss - 1)
    step = 1
    while fit + 1 < miss:
        if fits(probe):
            fit = probe
            probe = min(fit + step, miss - 1) if probe + step < miss else fit + (miss - fit) // 2
        else:
            miss = probe
            probe = max(miss - step, fit + (miss - fit) // 2, fit + 1)
        step *= 2
        probe = min(max(probe, fit + 1), miss - 1)
    return fit


def _overlap_start(
    bounds: _Bounds,
    previous_first: int,
    last: int,
    overlap: int,
    overlap_units: int,
    max_units: int | None,
) -> int:
    """Return the first unit of the next piece: the earliest that keeps the overlap in budget.

    The overlap never reaches the previous piece's first unit, so pieces always move forward.
    """
    following = last + 1
    if max_units is not None:
        return max(previous_first + 1, following - overlap_units)
    if overlap <= 0:
        return following

    def fits(repeated: int) -> bool:  # whether the last ``repeated`` units fit the overlap
        return bounds.size(following - repeated, last) <= overlap

    guess = following - bounds.guess_first(last, overlap)
    return following - _search(fits, 0, last - previous_first + 1, guess)


def _refined(refine: Refine, start: int, end: int) -> list[Window]:
    return [Window(w.start, w.end, w.oversize, split=True) for w in refine(start, end)]
