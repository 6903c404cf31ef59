"""Regions → spans for the templates: a region that fits is one chunk, a larger one is split.

A template (legal, book, academic, qa, email) cuts a document into regions: a clause subtree, a
chapter, a paper's section, a question/answer row, a part of an e-mail. Each region becomes one
span when it fits the size limit (or there is none), else it is split at paragraphs, then
sentence ends, then clauses, lines and spaces (``PROSE_LEVELS``: hard-wrapped text is not cut at
its line ends first), and its pieces are flagged ``oversize_split``. Regions are trimmed to
their non-whitespace, and a region that is only whitespace gives no span.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.model import EMPTY_METADATA, Span
from ragchunk.text.sentences import strip_span
from ragchunk.text.separators import split_range
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ragchunk.measure import Sizer
    from ragchunk.model import Metadata
    from ragchunk.options import Capacity
    from ragchunk.text.separators import Levels

PROSE_LEVELS: Final[Levels] = (
    ("\n\n", "\r\n\r\n"),
    (". ", "! ", "? ", ".\n", "!\n", "?\n", "。", "！", "？"),
    ("; ", ": ", ";\n", ":\n", "；", "，", "、", ", ", ",\n"),
    ("\n",),
    (" ", "\t"),
)
"""Paragraphs, sentence ends (also at a line end), clauses, lines, then spaces."""


@dataclass(frozen=True, slots=True)
class Region:
    """A run of text a template keeps together when it can.

    Attributes:
        start: absolute start offset.
        end: absolute end offset (exclusive).
        headings: the heading path of its chunks, or None to derive it from the sections.
        metadata: keys of its chunks (``template`` and the template's own).
    """

    start: int
    end: int
    headings: tuple[str, ...] | None = None
    metadata: Metadata = field(default_factory=lambda: EMPTY_METADATA)


def region_spans(
    text: str,
    regions: Iterable[Region],
    *,
    sizer: Sizer,
    capacity: Capacity,
) -> list[Span]:
    """Return the spans of ``regions`` (in document order, not overlapping one another).

    Spans are absolute and half-open; a region that does not fit ``capacity`` (a hard one)
    is split within it (its overlap applies between its own pieces only).
    """
    spans: list[Span] = []
    for region in regions:
        trimmed = strip_span(text, region.start, region.end)
        if trimmed is None:
            continue
        start, end = trimmed
        if capacity.fits(sizer, start, end):
            spans.append(Span(start, end, region.headings, region.metadata))
            continue
        windows = split_range(text, start, end, sizer=sizer, capacity=capacity, levels=PROSE_LEVELS)
        pieces = spans_from_windows(text, windows, metadata=region.metadata, split=True)
        spans += (
            Span(p.start, p.end, region.headings, p.metadata) if region.headings is not None else p
            for p in pieces
        )
    return spans


def without(regions: Sequence[Region], gaps: Sequence[tuple[int, int]]) -> list[Region]:
    """Return ``regions`` with the ``gaps`` (sorted, not overlapping) cut out of them."""
    kept: list[Region] = []
    for region in regions:
        start = region.start
        for gap_start, gap_end in gaps:
            if gap_end <= start or gap_start >= region.end:
                continue
            if gap_start > start:
                kept.append(Region(start, gap_start, region.headings, region.metadata))
            start = max(start, gap_end)
        if start < region.end:
            kept.append(Region(start, region.end, region.headings, region.metadata))
    return kept


def stamped(metadata: Metadata, template: str) -> dict[str, object]:
    """Return ``metadata`` with ``template`` first (every template chunk names its template)."""
    return {"template": template, **metadata}


def join_short(text: str, regions: Sequence[Region], *, shorter_than: int) -> list[Region]:
    """Return ``regions`` with each short one joined to the region right after it.

    A region of fewer than ``shorter_than`` characters (once trimmed; a heading right before
    its first subsection) joins the next one, which gives the joined region its headings and
    metadata.
    """
    joined: list[Region] = []
    carried: int | None = None
    for position, region in enumerate(regions):
        start = region.start if carried is None else carried
        is_last = position == len(regions) - 1
        adjacent = not is_last and regions[position + 1].start == region.end
        if adjacent and len(text[region.start : region.end].strip()) < shorter_than:
            carried = start
            continue
        carried = None
        joined.append(Region(start, region.end, region.headings, region.metadata))
    return joined
