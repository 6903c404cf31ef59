"""Retrieval scores over spans: recall, precision, IoU and precision at perfect recall (Ω).

These are the span metrics of Chroma's report "Evaluating Chunking Strategies for Retrieval",
written on half-open intervals of positions (characters, or token indexes) rather than on sets
of tokens. A ``Piece`` is ``(document, start, end)``; positions of different documents never
meet. For one question with evidence ``E`` and retrieved chunks ``R`` (each the union of its
pieces):

- recall    = |E ∩ R| / |E|
- precision = |E ∩ R| / |R|
- IoU       = |E ∩ R| / |E ∪ R|
- precision Ω = precision when exactly the chunks that hold some evidence are retrieved (the
  best any retriever could do with these chunks at full recall).

Overlapping chunks count their shared positions once (the report's sets; Chroma's code sums
chunk lengths instead). A score whose denominator is empty is 0. Pure: no I/O, no imports
beyond the standard library.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

Piece: TypeAlias = tuple[str, int, int]
"""``(document, start, end)``: a half-open range of positions in one document."""


@dataclass(frozen=True, slots=True)
class Scores:
    """The four scores of one question (or a mean of several), each in [0, 1]."""

    recall: float
    precision: float
    iou: float
    precision_omega: float


def merge(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return the union of half-open intervals as sorted, disjoint, non-touching intervals.

    Empty intervals (``end <= start``) are dropped.
    """
    merged: list[tuple[int, int]] = []
    for start, end in sorted(pair for pair in intervals if pair[1] > pair[0]):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def length(merged: Sequence[tuple[int, int]]) -> int:
    """Return how many positions disjoint intervals cover."""
    return sum(end - start for start, end in merged)


def intersect(
    left: Sequence[tuple[int, int]], right: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Return the intersection of two sorted lists of disjoint intervals (``merge`` output)."""
    found: list[tuple[int, int]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        start = max(left[i][0], right[j][0])
        end = min(left[i][1], right[j][1])
        if start < end:
            found.append((start, end))
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return found


def covered(pieces: Iterable[Piece]) -> dict[str, list[tuple[int, int]]]:
    """Return the positions ``pieces`` cover, per document, as merged intervals."""
    by_document: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for document, start, end in pieces:
        by_document[document].append((start, end))
    return {document: merge(found) for document, found in by_document.items()}


def _size(cover: Mapping[str, Sequence[tuple[int, int]]]) -> int:
    return sum(length(intervals) for intervals in cover.values())


def _common(
    left: Mapping[str, Sequence[tuple[int, int]]], right: Mapping[str, Sequence[tuple[int, int]]]
) -> int:
    return sum(length(intersect(left[doc], right[doc])) for doc in left.keys() & right.keys())


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def score(evidence: Iterable[Piece], retrieved: Iterable[Piece], chunks: Iterable[Piece]) -> Scores:
    """Return the scores of one question.

    Args:
        evidence: the reference spans of the question.
        retrieved: the spans of the chunks retrieved for it (its top k).
        chunks: the spans of every chunk of the configuration (for precision Ω).
    """
    wanted = covered(evidence)
    got = covered(retrieved)
    hit = _common(wanted, got)
    total = _size(wanted)
    union = total + _size(got) - hit
    useful = covered(
        (doc, start, end)
        for doc, start, end in chunks
        if doc in wanted and intersect(wanted[doc], [(start, end)])
    )
    return Scores(
        recall=_ratio(hit, total),
        precision=_ratio(hit, _size(got)),
        iou=_ratio(hit, union),
        precision_omega=_ratio(_common(wanted, useful), _size(useful)),
    )


def mean(scores: Sequence[Scores]) -> Scores:
    """Return the mean of each score (all zero for no scores)."""
    count = len(scores)
    if not count:
        return Scores(0.0, 0.0, 0.0, 0.0)
    return Scores(
        recall=sum(s.recall for s in scores) / count,
        precision=sum(s.precision for s in scores) / count,
        iou=sum(s.iou for s in scores) / count,
        precision_omega=sum(s.precision_omega for s in scores) / count,
    )
