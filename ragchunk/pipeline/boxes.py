"""A chunk's boxes: the line runs of ``Document.boxes`` its span overlaps, cut to the span.

A run wholly inside the span keeps its rectangle; a run the span starts or ends inside is
narrowed, along its line, to the glyphs of the characters kept (``Boxes.lows``/``highs``). Each
box is ``(page, x0, y0, x1, y1)`` in points from the page's top-left corner, rounded outward to
a tenth of a point, so every glyph of the chunk lies inside one of them.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragchunk.model import Box, Boxes


class BoxLookup:
    """The boxes of spans of one document (runs found by bisection)."""

    __slots__ = ("_boxes", "_ends")

    def __init__(self, boxes: Boxes) -> None:
        self._boxes = boxes
        self._ends = [run[1] for run in boxes.runs]

    def __call__(self, start: int, end: int) -> tuple[Box, ...]:
        """Return the boxes of ``[start, end)``, in text order (none where nothing is placed)."""
        runs, lows, highs = self._boxes.runs, self._boxes.lows, self._boxes.highs
        out: list[Box] = []
        for k in range(bisect_right(self._ends, start), len(runs)):
            first, last, page, x0, y0, x1, y1, vertical = runs[k]
            if first >= end:
                break
            if first < start or last > end:  # cut: only the glyphs of the characters kept
                kept = range(max(first, start), min(last, end))
                low = min((lows[i] for i in kept if not math.isnan(lows[i])), default=None)
                high = max((highs[i] for i in kept if not math.isnan(highs[i])), default=None)
                if low is None or high is None:
                    continue
                if vertical:
                    y0, y1 = low, high
                else:
                    x0, x1 = low, high
            out.append((page, _down(x0), _down(y0), _up(x1), _up(y1)))
        return tuple(out)


def _down(value: float) -> float:
    return round(math.floor(value * 10 + 1e-3) / 10, 1)


def _up(value: float) -> float:
    return round(math.ceil(value * 10 - 1e-3) / 10, 1)
