"""``--min-size``: merge chunks smaller than a minimum into a neighbour under the same heading.

One pass, left to right: a span joins the one before it when either is small, both start in the
same heading scope with the same heading path, strategy and metadata, and the joined span still
fits the hard limit. So a merge never crosses a heading and never breaks the size limit; a small
span that fits nowhere stays as it is. Spans with a context prefix of their own (table pieces,
labelled text) never merge: their strategy sized them with that prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragchunk.model import Span


def merge_small(
    spans: Sequence[Span],
    *,
    min_size: int,
    max_size: int | None,
    size_alone: Callable[[int, int], int],
    size_as_chunk: Callable[[int, int], int],
    scope: Callable[[int], int],
    headings_at: Callable[[int], tuple[str, ...]],
) -> list[Span]:
    """Return ``spans`` with small ones merged into a neighbour (see the module docstring).

    Args:
        spans: a strategy's spans, in order.
        min_size: spans smaller than this (measured alone) look for a neighbour.
        max_size: the hard limit a merged span must keep, or None when unbounded.
        size_alone: a span's own size, in the unit of the budget.
        size_as_chunk: a span's size as the limit counts it (with its breadcrumb).
        scope: the heading scope of an offset (see ``text.sections.heading_scopes``).
        headings_at: the heading path of an offset, for spans that carry none.
    """
    merged: list[Span] = []
    for span in spans:
        if merged and _can_merge(merged[-1], span, min_size, size_alone, scope, headings_at):
            previous = merged[-1]
            end = max(previous.end, span.end)
            if max_size is None or size_as_chunk(previous.start, end) <= max_size:
                merged[-1] = replace(previous, end=end)
                continue
        merged.append(span)
    return merged


def _can_merge(
    a: Span,
    b: Span,
    min_size: int,
    size_alone: Callable[[int, int], int],
    scope: Callable[[int], int],
    headings_at: Callable[[int], tuple[str, ...]],
) -> bool:
    if size_alone(a.start, a.end) >= min_size and size_alone(b.start, b.end) >= min_size:
        return False
    if a.prefix is not None or b.prefix is not None or scope(a.start) != scope(b.start):
        return False
    a_headings = a.headings if a.headings is not None else headings_at(a.start)
    b_headings = b.headings if b.headings is not None else headings_at(b.start)
    return a_headings == b_headings and a.strategy == b.strategy and a.metadata == b.metadata
