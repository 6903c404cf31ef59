"""Model windows over a long token sequence, and per-span sums of their token vectors.

Late chunking runs the local model over a text longer than its maximum sequence length in
windows (``backends/local.py``). The windows are laid out here: as few as cover the tokens
with the requested overlap, all of the full length (so a batch holds no padding), spread evenly
so the overlap between neighbours is as large as that number of windows allows. Each token
takes its vector from the window in which it lies farther from an edge, so every token gets
exactly one vector.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class Window:
    """One model window over the token ids, ``[start, end)``.

    The vectors of tokens ``[keep_start, keep_end)`` are kept: those farther from this
    window's edges than from its neighbours'.
    """

    start: int
    end: int
    keep_start: int
    keep_end: int


def layout(count: int, length: int, overlap: int) -> list[Window]:
    """Return windows of ``length`` tokens over ``count`` tokens, neighbours sharing ``overlap``.

    ``overlap`` is the least number of tokens consecutive windows share; it must be below
    ``length``. When the text is no longer than ``length`` there is one window, of the text.
    """
    if count == 0:
        return []
    if count <= length:
        return [Window(0, count, 0, count)]
    step = length - overlap
    number = -(-(count - overlap) // step)  # the fewest windows that keep the overlap
    spread = count - length
    starts = [i * spread // (number - 1) for i in range(number)]
    windows = []
    for k, start in enumerate(starts):
        keep_start = 0 if k == 0 else _middle(starts[k - 1], start, length)
        keep_end = count if k == number - 1 else _middle(start, starts[k + 1], length)
        windows.append(Window(start, start + length, keep_start, keep_end))
    return windows


def _middle(first: int, second: int, length: int) -> int:
    """Return the token where the shared part of two windows (starting there) is halved."""
    return second + (first + length - second) // 2


def add_sums(
    sums: NDArray[np.float64],
    ranges: Sequence[tuple[int, int]],
    first: int,
    vectors: NDArray[np.float32],
) -> None:
    """Add the vectors of tokens ``[first, first + len(vectors))`` to the sums of their spans.

    ``ranges`` are the spans' token ranges ``[lo, hi)``, in order; ``sums`` has a row each.
    """
    import numpy as np

    last = first + len(vectors)
    prefix = np.zeros((len(vectors) + 1, vectors.shape[1]), dtype=np.float64)
    np.cumsum(vectors, axis=0, dtype=np.float64, out=prefix[1:])
    k = bisect_left([end for _, end in ranges], first + 1)
    while k < len(ranges) and ranges[k][0] < last:
        lo, hi = max(ranges[k][0], first), min(ranges[k][1], last)
        if lo < hi:
            sums[k] += prefix[hi - first] - prefix[lo - first]
        k += 1
