"""Greedy packing of whole units (sentences, paragraphs, rows) into chunks within a budget.

``pack_units`` takes spans that must not be cut (units) and joins consecutive ones while the
chunk, measured alone from its first unit's start to its last unit's end, stays within the size.
The overlap is made of whole units too: the next chunk repeats the last units of the previous
one as long as they fit the overlap (in units of measure, or as a count of units). A unit that
is alone larger than the size is handed to ``refine``, whose pieces are flagged ``split``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from ragchunk.measure import Sizer
    from ragchunk.text.pack import Window


class Piece(NamedTuple):
    """A packed span; ``split`` marks a piece of one unit larger than the size.

    ``oversize`` marks a single code point larger than the size (see ``text.pack.Window``).
    """

    start: int
    end: int
    split: bool = False
    oversize: bool = False


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
) -> list[Piece]:
    """Pack consecutive units greedily into pieces of at most ``size`` units of measure.

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
        Pieces in order, each from a unit's start to a (later) unit's end, or a refined piece.
    """
    pieces: list[Piece] = []
    n = len(units)
    i = 0  # the first unit not yet in any piece
    first = 0  # the first unit of the next piece (before i when it repeats some)
    while i < n:
        while first < i and not _fits(sizer, size, units[first][0], units[i][1]):
            first += 1  # the overlap leaves no room for the next unit: repeat less
        if first == i and not _fits(sizer, size, units[i][0], units[i][1]):
            pieces.extend(_refined(refine, *units[i]))
            i = first = i + 1
            continue
        last = _extend(units, sizer, size, first, i, max_units)
        pieces.append(Piece(units[first][0], units[last][1]))
        previous_first, i = first, last + 1
        first = _overlap_start(
            units, sizer, previous_first, last, overlap, overlap_units, max_units
        )
    return pieces


def _fits(sizer: Sizer, size: int | None, start: int, end: int) -> bool:
    return size is None or sizer.size(start, end) <= size


def _extend(
    units: Sequence[tuple[int, int]],
    sizer: Sizer,
    size: int | None,
    first: int,
    last: int,
    max_units: int | None,
) -> int:
    """Return the last unit of the piece starting at ``first`` that already holds ``last``.

    The piece takes the most units that fit. Measuring a span alone re-encodes its edges, so
    the whole text's unit boundaries first give a guess (cheap: no encoding), and exact
    measurements then search outward from it: about two per piece when the guess is right.
    Only a span that was measured and fits is ever returned.
    """
    limit = len(units) - 1 if max_units is None else min(len(units) - 1, first + max_units - 1)
    if size is None:
        return limit
    if last >= limit:
        return last
    start = units[first][0]

    def fits(k: int) -> bool:
        return sizer.size(start, units[k][1]) <= size

    return _search(fits, last, limit + 1, _guess(units, sizer, size, start, last, limit))


def _guess(
    units: Sequence[tuple[int, int]], sizer: Sizer, size: int, start: int, last: int, limit: int
) -> int:
    """Return the last unit whose span from ``start`` the whole text's encoding says fits."""
    base = sizer.index(start)
    lo, hi = last, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sizer.index(units[mid][1] - 1) - base + 1 <= size:
            lo = mid
        else:
            hi = mid - 1
    return lo


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
    units: Sequence[tuple[int, int]],
    sizer: Sizer,
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
    end = units[last][1]
    k = following
    while k - 1 > previous_first and sizer.size(units[k - 1][0], end) <= overlap:
        k -= 1
    return k


def _refined(refine: Refine, start: int, end: int) -> list[Piece]:
    return [Piece(w.start, w.end, split=True, oversize=w.oversize) for w in refine(start, end)]
