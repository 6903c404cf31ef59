"""Semantic breakpoints: where the meaning of a run of sentences changes, and chunks cut there.

Given sentences (absolute spans) and one unit vector per sentence, ``semantic_pieces``:

1. measures the distance at each sentence boundary: after sentence ``i`` it is
   ``1 - cos(before, after)``, ``before`` the sum of the vectors of sentences ``i - buffer .. i``
   and ``after`` that of ``i + 1 .. i + 1 + buffer``, both inside the scope. Each sentence is
   embedded once; windows are sums of its vectors, never new texts to embed. The two windows
   meet at the boundary and share no sentence, so a change of topic shows as one sharp peak
   (windows centred on each sentence, as LangChain compares, share all but one sentence
   and smear it over ``2 * buffer`` boundaries);
2. picks breakpoints among those distances: above a ``percentile``, above the mean plus
   ``threshold`` standard deviations (``stddev``) or interquartile ranges (``interquartile``),
   or where the distances' ``gradient`` is above a percentile; a change of scope (another
   parent heading) always breaks;
3. fits each group to the size: a group over it splits at its largest internal distance
   (its weakest link), again and again, down to single sentences; a single sentence over the
   size goes to ``refine`` (words) and its pieces are flagged ``split``;
4. merges groups smaller than ``min_size`` into the more similar neighbour of the same scope
   when the two fit together.

Pure Python on ``array('f')`` vectors: the work is a few dot products per sentence, nothing
next to embedding it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

Method: TypeAlias = Literal["percentile", "stddev", "interquartile", "gradient"]
METHODS: Final = ("percentile", "stddev", "interquartile", "gradient")
DEFAULT_THRESHOLDS: Final[dict[str, float]] = {
    "percentile": 95.0,
    "stddev": 3.0,
    "interquartile": 1.5,
    "gradient": 95.0,
}
"""The threshold of each method when none is given (percentiles are 0-100)."""

Refine: TypeAlias = Callable[[int, int], Sequence[tuple[int, int, bool]]]
"""``refine(start, end)`` covers one sentence too large for the size: ``(start, end, oversize)``."""


@dataclass(frozen=True, slots=True)
class Piece:
    """A chunk's span and why it starts where it does.

    Attributes:
        start: absolute start offset.
        end: absolute end offset (exclusive).
        opened_by: ``start`` (the first piece), ``semantic`` (a breakpoint), ``scope`` (another
            parent heading), ``size`` (a group split to fit), or ``words`` (a later piece of one
            sentence larger than the size).
        distance: the distance between the sentence windows either side of ``start``, when
            it starts a sentence after another.
        split: a piece of one sentence larger than the size (``oversize_split``).
        oversize: one code point larger than the size (SPEC §3.3 ``oversize``).
        first: the index of the piece's first sentence.
        last: the index of its last sentence.
    """

    start: int
    end: int
    opened_by: str
    distance: float | None
    split: bool = False
    oversize: bool = False
    first: int = 0
    last: int = 0


def semantic_pieces(
    units: Sequence[tuple[int, int]],
    vectors: Sequence[Sequence[float]],
    *,
    scopes: Sequence[object],
    size: Callable[[int, int], int],
    limit: int,
    method: Method = "percentile",
    threshold: float | None = None,
    buffer: int = 1,
    min_size: int = 0,
    refine: Refine,
) -> list[Piece]:
    """Return pieces covering every sentence in order (see the module docstring).

    Args:
        units: the sentences, absolute and half-open, in order, not overlapping.
        vectors: one unit vector per sentence.
        scopes: one key per sentence; a break is forced where it changes.
        size: the size of a span measured as a chunk.
        limit: the hard size limit every piece keeps.
        method: how breakpoints are picked from the distances.
        threshold: the method's threshold (None: ``DEFAULT_THRESHOLDS``).
        buffer: sentences besides the nearest one in each window either side of a boundary.
        min_size: groups smaller than this merge into a neighbour when they fit (0: never).
        refine: covers one sentence larger than the size.
    """
    n = len(units)
    if n == 0:
        return []
    sums = _prefix_sums(vectors)
    distances = window_distances(sums, scopes, buffer)
    forced = {i for i in range(n - 1) if scopes[i] != scopes[i + 1]}
    chosen = pick_breakpoints(
        [d for i, d in enumerate(distances) if i not in forced],
        method,
        DEFAULT_THRESHOLDS[method] if threshold is None else threshold,
    )
    free = [i for i in range(n - 1) if i not in forced]
    cuts = sorted(forced | {free[k] for k in chosen})
    groups = _groups(n, cuts)
    fitted: list[tuple[int, int]] = []
    fit = _Fitter(units, distances, size, limit)
    for first, last in groups:
        fitted += fit.split(first, last)
    if min_size > 0:
        fitted = _merge_small(fitted, units, sums, scopes, size, limit, min_size)
    reasons = {i + 1: "scope" for i in forced} | {free[k] + 1: "semantic" for k in chosen}
    return _pieces(fitted, units, distances, reasons, size, limit, refine)


def _prefix_sums(vectors: Sequence[Sequence[float]]) -> list[list[float]]:
    dimensions = len(vectors[0]) if vectors else 0
    sums = [[0.0] * dimensions]
    add = operator.add
    for vector in vectors:
        sums.append(list(map(add, sums[-1], vector)))
    return sums


def _range_sum(sums: Sequence[Sequence[float]], first: int, last: int) -> list[float]:
    """Return the sum of the vectors of sentences ``first..last`` (inclusive)."""
    return list(map(operator.sub, sums[last + 1], sums[first]))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Return the cosine similarity of two vectors (0 when either is zero)."""
    dot = sum(map(operator.mul, a, b))
    norms = math.sqrt(sum(map(operator.mul, a, a)) * sum(map(operator.mul, b, b)))
    return dot / norms if norms > 0 else 0.0


def window_distances(
    sums: Sequence[Sequence[float]], scopes: Sequence[object], buffer: int
) -> list[float]:
    """Return the distance after each sentence but the last (``n - 1`` values).

    ``sums`` are the prefix sums of the sentence vectors. The distance after sentence ``i``
    compares sentences ``i - buffer .. i`` with ``i + 1 .. i + 1 + buffer``; a window stays
    inside its sentences' scope.
    """
    n = len(sums) - 1
    if n < 2:
        return []
    starts, ends = _scope_bounds(scopes)
    return [
        1.0
        - cosine(
            _range_sum(sums, max(i - buffer, starts[i]), i),
            _range_sum(sums, i + 1, min(i + 1 + buffer, ends[i + 1])),
        )
        for i in range(n - 1)
    ]


def _scope_bounds(scopes: Sequence[object]) -> tuple[list[int], list[int]]:
    """Return, per sentence, the first and last sentence of its run of equal scope."""
    n = len(scopes)
    starts, ends = [0] * n, [n - 1] * n
    for i in range(1, n):
        starts[i] = starts[i - 1] if scopes[i] == scopes[i - 1] else i
    for i in range(n - 2, -1, -1):
        ends[i] = ends[i + 1] if scopes[i] == scopes[i + 1] else i
    return starts, ends


def pick_breakpoints(distances: Sequence[float], method: Method, threshold: float) -> list[int]:
    """Return the indexes of the distances that are breakpoints under ``method``."""
    if not distances:
        return []
    values: Sequence[float] = distances
    if method == "percentile":
        bar = percentile(distances, threshold)
    elif method == "stddev":
        mean = math.fsum(distances) / len(distances)
        spread = math.sqrt(math.fsum((d - mean) ** 2 for d in distances) / len(distances))
        bar = mean + threshold * spread
    elif method == "interquartile":
        mean = math.fsum(distances) / len(distances)
        spread = percentile(distances, 75) - percentile(distances, 25)
        bar = mean + threshold * spread
    else:
        values = gradient(distances)
        bar = percentile(values, threshold)
    return [i for i, value in enumerate(values) if value > bar]


def percentile(values: Sequence[float], q: float) -> float:
    """Return the ``q``-th percentile (0-100) with linear interpolation between ranks."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * min(max(q, 0.0), 100.0) / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def gradient(values: Sequence[float]) -> list[float]:
    """Return the discrete gradient: central differences inside, one-sided at the ends."""
    n = len(values)
    if n < 2:
        return [0.0] * n
    inner = [(values[i + 1] - values[i - 1]) / 2 for i in range(1, n - 1)]
    return [values[1] - values[0], *inner, values[-1] - values[-2]]


def _groups(n: int, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """Return ``(first, last)`` sentence runs, a cut after each index in ``cuts``."""
    groups, first = [], 0
    for cut in cuts:
        groups.append((first, cut))
        first = cut + 1
    groups.append((first, n - 1))
    return groups


class _Fitter:
    """Splits a group over the size at its largest internal distances (a range-max table)."""

    def __init__(
        self,
        units: Sequence[tuple[int, int]],
        distances: Sequence[float],
        size: Callable[[int, int], int],
        limit: int,
    ) -> None:
        self.units, self.size, self.limit = units, size, limit
        self.table = _MaxTable(distances)

    def split(self, first: int, last: int) -> list[tuple[int, int]]:
        """Return runs covering sentences ``first..last``, each fitting or one sentence."""
        done: list[tuple[int, int]] = []
        todo = [(first, last)]
        while todo:
            a, b = todo.pop()
            if a == b or self.size(self.units[a][0], self.units[b][1]) <= self.limit:
                done.append((a, b))
                continue
            k = self.table.argmax(a, b - 1)  # the weakest link inside the group
            todo += [(k + 1, b), (a, k)]  # the left part is handled first
        return done


class _MaxTable:
    """Range argmax over a list in O(1) per query after O(n log n) set-up (a sparse table)."""

    def __init__(self, values: Sequence[float]) -> None:
        self.values = values
        level = list(range(len(values)))
        self.levels = [level]
        width = 1
        while 2 * width <= len(values):
            previous = level
            level = [
                previous[i]
                if values[previous[i]] >= values[previous[i + width]]
                else previous[i + width]
                for i in range(len(values) - 2 * width + 1)
            ]
            self.levels.append(level)
            width *= 2

    def argmax(self, lo: int, hi: int) -> int:
        """Return the index of the largest value in ``[lo, hi]`` (the first one on ties)."""
        k = (hi - lo + 1).bit_length() - 1
        left, right = self.levels[k][lo], self.levels[k][hi - (1 << k) + 1]
        return left if self.values[left] >= self.values[right] else right


def _merge_small(
    runs: list[tuple[int, int]],
    units: Sequence[tuple[int, int]],
    sums: Sequence[Sequence[float]],
    scopes: Sequence[object],
    size: Callable[[int, int], int],
    limit: int,
    min_size: int,
) -> list[tuple[int, int]]:
    """Merge runs smaller than ``min_size`` into the more similar neighbour that fits."""

    def span_size(a: int, b: int) -> int:
        return size(units[a][0], units[b][1])

    def similarity(x: tuple[int, int], y: tuple[int, int]) -> float:
        return cosine(_range_sum(sums, *x), _range_sum(sums, *y))

    merged: list[tuple[int, int]] = []
    carry: tuple[int, int] | None = None
    for index, run in enumerate(runs):
        current = run if carry is None else (carry[0], run[1])
        carry = None
        if span_size(*current) >= min_size:
            merged.append(current)
            continue
        options: list[tuple[float, str]] = []
        if (
            merged
            and scopes[merged[-1][1]] == scopes[current[0]]
            and span_size(merged[-1][0], current[1]) <= limit
        ):
            options.append((similarity(merged[-1], current), "left"))
        following = runs[index + 1] if index + 1 < len(runs) else None
        if (
            following is not None
            and scopes[following[0]] == scopes[current[1]]
            and span_size(current[0], following[1]) <= limit
        ):
            options.append((similarity(current, following), "right"))
        if not options:
            merged.append(current)
        elif max(options)[1] == "left":
            merged[-1] = (merged[-1][0], current[1])
        else:
            carry = current
    return merged


def _pieces(
    runs: Sequence[tuple[int, int]],
    units: Sequence[tuple[int, int]],
    distances: Sequence[float],
    reasons: dict[int, str],
    size: Callable[[int, int], int],
    limit: int,
    refine: Refine,
) -> list[Piece]:
    pieces: list[Piece] = []
    for first, last in runs:
        opened_by = "start" if first == 0 else reasons.get(first, "size")
        distance = None if first == 0 else round(distances[first - 1], 6)
        start, end = units[first][0], units[last][1]
        if first != last or size(start, end) <= limit:
            pieces.append(Piece(start, end, opened_by, distance, first=first, last=last))
            continue
        for k, (s, e, oversize) in enumerate(refine(start, end)):
            opened: str
            at: float | None
            if k == 0:
                opened, at = opened_by, distance
            else:
                opened, at = "words", None
            pieces.append(
                Piece(s, e, opened, at, split=True, oversize=oversize, first=first, last=last)
            )
    return pieces
