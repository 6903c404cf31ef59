"""``--min-size``: merge chunks smaller than a minimum into a neighbour under the same heading.

One pass, left to right: a span joins the one before it when either is small, both start in the
same heading scope (``text.sections.heading_scopes``) and the joined span still fits the hard
limit, its context prefix counted. Only those two refuse a merge: a merge never crosses a heading
and never breaks the size limit, and a small span that fits nowhere stays as it is. Metadata
that differs (a table piece beside prose) is not a reason: the merged span keeps the keys both
agree on, and the flags either has (``oversize_split``, ``oversize``, ``context_oversize``).
The merged span starts where the first did, so it keeps the first one's prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ragchunk.model import Metadata, Span


_FLAGS: Final = ("oversize_split", "oversize", "context_oversize")


def merge_small(
    spans: Sequence[Span],
    *,
    min_size: int,
    max_size: int | None,
    size_alone: Callable[[int, int], int],
    size_as_chunk: Callable[[int, int, str | None], int],
    scope: Callable[[int], int],
) -> list[Span]:
    """Return ``spans`` with small ones merged into a neighbour (see the module docstring).

    Args:
        spans: a strategy's spans, in order.
        min_size: spans smaller than this (measured alone) look for a neighbour.
        max_size: the hard limit a merged span must keep, or None when unbounded.
        size_alone: a span's own size, in the unit of the budget.
        size_as_chunk: ``size_as_chunk(start, end, prefix)``, a span's size as the limit
            counts it (with its breadcrumb and its prefix).
        scope: the heading scope of an offset (see ``text.sections.heading_scopes``).
    """
    merged: list[Span] = []
    for span in spans:
        if merged and is_mergeable(merged[-1], span, min_size, size_alone, scope):
            previous = merged[-1]
            end = max(previous.end, span.end)
            if max_size is None or size_as_chunk(previous.start, end, previous.prefix) <= max_size:
                merged[-1] = replace(previous, end=end, metadata=_merged(previous, span))
                continue
        merged.append(span)
    return merged


def is_mergeable(
    a: Span,
    b: Span,
    min_size: int,
    size_alone: Callable[[int, int], int],
    scope: Callable[[int], int],
) -> bool:
    """Return whether neighbours ``a`` and ``b`` may merge, size limit aside.

    One of them is smaller than ``min_size`` and no heading lies between their starts.
    """
    if size_alone(a.start, a.end) >= min_size and size_alone(b.start, b.end) >= min_size:
        return False
    return scope(a.start) == scope(b.start)


def _merged(a: Span, b: Span) -> Metadata:
    """Return the metadata of ``a`` and ``b`` merged: the keys they agree on, and any flag."""
    if a.metadata == b.metadata:
        return a.metadata
    common = {k: v for k, v in a.metadata.items() if k in b.metadata and b.metadata[k] == v}
    for flag in _FLAGS:
        if a.metadata.get(flag) or b.metadata.get(flag):
            common[flag] = True
    return common
