"""book: chunks within chapters; the table of contents and the index dropped and reported.

Chapters, parts, the contents and the index come from ``text.chapters`` (headings when the
document has them, as an EPUB's navigation gives; ``CHAPTER XII``, ``Part Two``, capitals
lines in plain text). No chunk crosses a chapter's start: each chapter (and the front matter
before the first) is split within the size at paragraphs, then sentences. The contents and
the index are left out of every chunk and reported through ``Context.drop`` (the run's
``--stats`` name them; ``--check`` verifies that exactly they are missing); a foreword or
preface is kept unless ``front_matter`` is false, and then dropped and reported the same way.
Every chunk has ``metadata.template = "book"``, and ``chapter`` and ``part`` where it lies in one.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.strategies.book.chapters import (
    BookParts,
    find_in_sections,
    find_in_text,
    kind_of,
)
from ragchunk.text.regions import Region, region_spans, without

if TYPE_CHECKING:
    from ragchunk.model import Document, JSONValue, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class BookOptions:
    """Options of the book template."""

    budget: Budget = Budget(size=1500, overlap=0)
    front_matter: bool = field(
        default=True,
        metadata={"help": "Keep a foreword, preface or acknowledgements (false: drop them)."},
    )


def split(doc: Document, options: BookOptions, ctx: Context) -> list[Span]:
    """Return spans within chapters, none holding the contents or the index, in order.

    Spans are absolute and half-open; every non-space character lies in a span or in a span
    reported to ``ctx.drop``.
    """
    parts = _structure(doc)
    # With --contextualize the breadcrumb is the document's own heading path (sized by the
    # engine), so chapters found in plain text name themselves in the metadata only.
    own = not doc.sections and not ctx.contextualize
    regions, drops = _regions(doc, parts, front_matter=options.front_matter, own_headings=own)
    for start, end, reason in drops:
        ctx.drop(start, end, reason)
    kept = without(regions, [(start, end) for start, end, _ in drops])
    return region_spans(doc.text, kept, sizer=ctx.sizer, capacity=ctx.capacity)


def _structure(doc: Document) -> BookParts:
    if any(section.kind == "heading" for section in doc.sections):
        return find_in_sections(doc.sections, len(doc.text))
    return find_in_text(doc.text)


_SHORT = 100
"""A region this short (a part's title page) joins the chapter after it."""


def _regions(
    doc: Document, parts: BookParts, *, front_matter: bool, own_headings: bool
) -> tuple[list[Region], list[tuple[int, int, str]]]:
    """Return a region per chapter (and before the first), and the spans to drop, in order."""
    starts = [heading.start for heading in parts.headings]
    bounds = sorted({0, *starts, len(doc.text)})
    regions: list[Region] = []
    drops: list[tuple[int, int, str]] = []
    for span, reason in ((parts.contents, "table of contents"), (parts.index, "index")):
        if span is not None:
            drops.append((*span, reason))
    carried: int | None = None  # the start of a short region joining the next
    for start, end in itertools.pairwise(bounds):
        k = bisect_right(starts, start) - 1
        heading = parts.headings[k] if k >= 0 else None
        metadata: dict[str, JSONValue] = {"template": "book"}
        if heading is not None and heading.part:
            metadata["part"] = heading.part
        if heading is not None and heading.chapter:
            metadata["chapter"] = heading.chapter
        is_front = heading is not None and heading.start == start and heading.kind == "front"
        named = _named_front(doc, start, end) if heading is None else ""
        if named:  # text before the first heading that the document names (EPUB's)
            metadata["chapter"], is_front = named, True
        if is_front and not front_matter:
            # front matter ends where the contents (or the index) start, if they are in it
            stop = next((a for a, _, _ in drops if start < a < end), end)
            drops.append((start, stop, "front matter"))
            if stop == end:
                continue
            start = stop
        first = start if carried is None else carried
        short = len(doc.text[start:end].strip()) < _SHORT and end < len(doc.text)
        if short and not any(a < end and b > first for a, b, _ in drops):
            carried = first
            continue
        carried = None
        path = tuple(t for t in (metadata.get("part"), metadata.get("chapter")) if t)
        regions.append(Region(first, end, path if own_headings else None, metadata))  # type: ignore[arg-type]
    drops.sort()
    return regions, _merge(drops)


def _named_front(doc: Document, start: int, end: int) -> str:
    """Return the front matter's title its first section's path starts with, else ``""``."""
    first = next((s for s in doc.sections if start <= s.start < end and s.headings), None)
    if first is None or kind_of(first.headings[0]) != "front":
        return ""
    return first.headings[0]


def _merge(drops: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Keep dropped spans apart: a later one starts where an earlier one that holds it ends."""
    merged: list[tuple[int, int, str]] = []
    for start, end, reason in drops:
        if merged and start < merged[-1][1]:
            start = merged[-1][1]
        if start < end:
            merged.append((start, end, reason))
    return merged


STRATEGY = Strategy(
    name="book",
    summary="Template: chunks within chapters (headings, CHAPTER XII, Part Two, EPUB "
    "navigation), chapter and part in metadata; the table of contents and the index are "
    "dropped and reported in the stats.",
    options=BookOptions,
    split=split,
    drops=True,
)
