"""A table larger than the size, split between rows, and never into a piece of syntax alone.

Whole rows are packed; a row too large alone is split at its cells, then at spaces. The header
rows (header and delimiter) are a unit of their own, unless the first row must be split: then
the two are one unit, so the header never makes a chunk of its own before the pieces of a split
row. A piece that is nothing but table syntax (a lone ``|``, a ``---|---`` run, a grid border)
says nothing: it joins a neighbour that it fits beside, else takes the first words of the next
piece or the last words of the previous one, else shares itself out between the two, whenever
the pieces still fit. Only a run of syntax too long to share a piece with any text is left.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Final, TypeGuard

from ragchunk.text.boundaries import is_blank, is_grapheme_boundary
from ragchunk.text.pack import Window
from ragchunk.text.separators import split_range
from ragchunk.text.units import pack_units

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.measure import Sizer
    from ragchunk.model import Section
    from ragchunk.options import Capacity

_CELL_LEVELS: Final = (("\n",), ("|",), (" ", "\t"))
# Table syntax and nothing else: pipes, dashes, colons (GFM), pluses and equals (grid tables).
_SYNTAX: Final = re.compile(r"[\s|:+=-]*")
_WORD_START: Final = re.compile(r"(?<=\s)\S")


def split_table(
    text: str, section: Section, start: int, end: int, *, sizer: Sizer, capacity: Capacity
) -> list[Window]:
    """Return the pieces of a table too large for the size, in order, each within it.

    ``[start, end)`` is the table widened over what shares its first and last pieces (the
    headings before it, a closer after it). Windows are absolute and half-open.
    """
    rows = [*section.parts]
    if section.header is not None:
        if sizer.size(*rows[0]) > capacity.size:
            rows[0] = (section.header[0], rows[0][1])
        else:
            rows.insert(0, section.header)
    units = widened(rows, start, end)
    whole = capacity.without_overlap()
    first = units[0]

    def refine(lo: int, hi: int) -> Sequence[Window]:
        levels = _CELL_LEVELS[1:] if (lo, hi) == first else _CELL_LEVELS
        return split_range(text, lo, hi, sizer=sizer, capacity=whole, levels=levels)

    windows = pack_units(units, sizer=sizer, size=capacity.size, refine=refine)
    joined = _join_syntax(text, windows, sizer, capacity.size)
    return _share_syntax(text, joined, units, sizer, capacity.size)


def widened(units: Sequence[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """Return ``units`` with the first starting at ``start`` and the last ending at ``end``."""
    result = list(units)
    if result:
        result[0] = (min(start, result[0][0]), result[0][1])
        result[-1] = (result[-1][0], max(end, result[-1][1]))
    return result


def is_syntax(text: str, start: int, end: int) -> bool:
    """Return whether ``text[start:end]`` is table syntax and whitespace only."""
    return _SYNTAX.fullmatch(text, start, end) is not None


def _join_syntax(text: str, windows: list[Window], sizer: Sizer, size: int) -> list[Window]:
    """Join each window of table syntax alone to a neighbour that fits beside it."""
    result: list[Window] = []
    pending: Window | None = None  # a syntax window that did not fit the one before it
    for window in windows:
        if pending is not None:
            if sizer.size(pending.start, window.end) <= size:
                window = _joined(pending, window)
            else:
                result.append(pending)
            pending = None
        if is_syntax(text, window.start, window.end):
            previous = result[-1] if result else None
            if previous is not None and sizer.size(previous.start, window.end) <= size:
                result[-1] = _joined(previous, window)
            else:
                pending = window
            continue
        result.append(window)
    if pending is not None:
        result.append(pending)
    return result


def _share_syntax(
    text: str,
    windows: list[Window],
    units: Sequence[tuple[int, int]],
    sizer: Sizer,
    size: int,
) -> list[Window]:
    """Give each window of syntax alone some text of a neighbour, where the pieces still fit.

    What is left of the neighbour joins the piece beyond it when both are pieces of one row
    (or the header) and fit together, so no needless fragment is left.
    """
    result = list(windows)
    same_unit = _same_unit(units)
    k = 0
    while k < len(result):
        window = result[k]
        if window.oversize or not is_syntax(text, window.start, window.end):
            k += 1
            continue
        before = result[k - 1] if k else None
        after = result[k + 1] if k + 1 < len(result) else None
        # Words are taken only from pieces of a split row: a row that fits stays whole.
        if _is_piece(after) and (head := _take_head(text, window, after, sizer, size)):
            result[k : k + 2] = head
            _rejoin(result, k + 1, same_unit, sizer, size)
        elif _is_piece(before) and (tail := _take_tail(text, before, window, sizer, size)):
            result[k - 1 : k + 1] = tail
            _rejoin(result, k - 2, same_unit, sizer, size)
        elif (
            before is not None
            and after is not None
            and (shared := _share_out(text, before, window, after, sizer, size))
        ):
            result[k - 1 : k + 2] = shared
        else:
            k += 1
            continue
        # Every change leaves fewer windows or fewer of syntax alone: look again from before.
        k = max(k - 2, 0)
    return result


def _is_piece(window: Window | None) -> TypeGuard[Window]:
    """Return whether ``window`` is a piece of a split row (or header), not one code point."""
    return window is not None and window.split and not window.oversize


def _same_unit(units: Sequence[tuple[int, int]]) -> Callable[[int, int], bool]:
    """Return ``same(start, end)``: whether ``[start, end)`` lies in one unit (row, header)."""
    starts = [start for start, _ in units]

    def same(start: int, end: int) -> bool:
        return bisect_right(starts, start) == bisect_right(starts, end - 1)

    return same


def _rejoin(
    windows: list[Window], k: int, same_unit: Callable[[int, int], bool], sizer: Sizer, size: int
) -> None:
    """Join ``windows[k]`` and ``windows[k + 1]`` when they are in one unit and fit together."""
    if k < 0 or k + 1 >= len(windows):
        return
    first, second = windows[k], windows[k + 1]
    if first.oversize or second.oversize or not same_unit(first.start, second.end):
        return
    if sizer.size(first.start, second.end) <= size:
        windows[k : k + 2] = [_joined(first, second)]


def _take_head(
    text: str, syntax: Window, after: Window, sizer: Sizer, size: int
) -> tuple[Window, Window] | None:
    """Return ``syntax`` with the most of ``after`` it fits with, and what is left of it.

    Both keep some text. Cuts fall at word starts; inside a word only when no word start
    will do (the piece is then a fragment of a word already cut to fit the size).
    """
    for cuts in (
        _word_starts(text, after.start, after.end),
        _clusters(text, after.start, after.end),
    ):
        found = None
        for cut in cuts:
            if sizer.size(syntax.start, cut) > size:
                break
            gains_text = not is_syntax(text, syntax.start, cut)
            leaves_text = _has_text(text, cut, after.end)
            if gains_text and leaves_text and sizer.size(cut, after.end) <= size:
                found = cut
        if found is not None:
            split = syntax.split or after.split
            return Window(syntax.start, found, split=split), Window(found, after.end, split=True)
    return None


def _take_tail(
    text: str, before: Window, syntax: Window, sizer: Sizer, size: int
) -> tuple[Window, Window] | None:
    """Return what is left of ``before``, and ``syntax`` with the most of it it fits with."""
    for cuts in (
        _word_starts(text, before.start, before.end),
        _clusters(text, before.start, before.end),
    ):
        found = None
        for cut in reversed(cuts):
            if sizer.size(cut, syntax.end) > size:
                break
            gains_text = not is_syntax(text, cut, syntax.end)
            leaves_text = _has_text(text, before.start, cut)
            if gains_text and leaves_text and sizer.size(before.start, cut) <= size:
                found = cut
        if found is not None:
            split = syntax.split or before.split
            return Window(before.start, found, split=True), Window(found, syntax.end, split=split)
    return None


def _share_out(
    text: str, before: Window, syntax: Window, after: Window, sizer: Sizer, size: int
) -> list[Window] | None:
    """Return ``before`` and ``after`` with ``syntax`` cut between them, if both then fit."""
    if before.oversize or after.oversize:
        return None
    for cut in _clusters(text, syntax.start, syntax.end):
        if sizer.size(before.start, cut) > size:
            break
        if sizer.size(cut, after.end) <= size:
            return [
                Window(before.start, cut, split=before.split or syntax.split),
                Window(cut, after.end, split=after.split or syntax.split),
            ]
    return None


def _word_starts(text: str, start: int, end: int) -> list[int]:
    """Return the offsets in ``(start, end)`` where a word begins after whitespace."""
    return [m.start() for m in _WORD_START.finditer(text, start + 1, end)]


def _clusters(text: str, start: int, end: int) -> list[int]:
    """Return the grapheme cluster boundaries in ``(start, end)``."""
    return [p for p in range(start + 1, end) if is_grapheme_boundary(text, p)]


def _has_text(text: str, start: int, end: int) -> bool:
    return not is_blank(text, start, end) and not is_syntax(text, start, end)


def _joined(first: Window, second: Window) -> Window:
    return Window(first.start, second.end, oversize=False, split=first.split or second.split)
