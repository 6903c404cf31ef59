"""The passes after a strategy: ``--contextualize`` sizing and fitting, ``--min-size`` merging.

``contextualized`` gives a strategy a sizer that counts each chunk's heading breadcrumb;
``fit_context_spans`` splits a span whose context the strategy undercounted (SPEC §3.3);
``merge_small_spans`` merges chunks smaller than ``--min-size`` into a neighbour under the same
heading, never across a span a template dropped; ``warn_if_large`` warns of chunks past what
an embedding model takes when a strategy is unbounded.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from ragchunk.pipeline.merge import merge_small
from ragchunk.pipeline.results import LARGE_CHUNK as LARGE_CHUNK  # the code, defined there
from ragchunk.text.breadcrumb import (
    PrefixedSizer,
    check_breadcrumbs,
    fit_contexts,
    format_breadcrumb,
)
from ragchunk.text.sections import heading_lookup, heading_scopes
from ragchunk.text.separators import split_range

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.measure import Sizer
    from ragchunk.model import Document, Dropped, Span
    from ragchunk.pipeline.plan import Recipe
    from ragchunk.strategies._spec import Context
    from ragchunk.text.pack import Window


def contextualized(doc: Document, ctx: Context) -> Context:
    """Return ``ctx`` whose sizer counts each chunk's heading breadcrumb (``--contextualize``).

    Raises:
        InputError: a breadcrumb alone leaves no room for text within the size limit.
    """
    headings_at = heading_lookup(doc.sections)

    def breadcrumb(start: int) -> str:
        return format_breadcrumb(headings_at(start))

    if ctx.capacity.hard:
        paths = (section.headings for section in doc.sections)
        check_breadcrumbs(doc.source, paths, ctx.measure, ctx.capacity.size)
    sizer = PrefixedSizer(
        doc.text,
        ctx.sizer,
        count=ctx.measure.count,
        prefix_at=breadcrumb,
        additive=ctx.measure.is_length,
    )
    return replace(ctx, sizer=sizer, breadcrumb=breadcrumb, contextualize=True)


def fit_context_spans(
    doc: Document, spans: list[Span], ctx: Context, sizer: Sizer, recipe: Recipe
) -> list[Span]:
    """SPEC §3.3 with --contextualize: split any span whose context the strategy undercounted."""
    no_overlap = recipe.capacity.without_overlap()

    def refine(start: int, end: int, lead_sizer: Sizer) -> list[Window]:
        return split_range(
            doc.text, start, end, sizer=lead_sizer, capacity=no_overlap, wraps=doc.wraps
        )

    return fit_contexts(
        doc.text,
        spans,
        sizer=sizer,
        count=ctx.measure.count,
        additive=ctx.measure.is_length,
        limit=recipe.capacity.size,
        headings_at=heading_lookup(doc.sections),
        refine=refine,
    )


def merge_small_spans(
    doc: Document,
    spans: list[Span],
    ctx: Context,
    sizer: Sizer,
    recipe: Recipe,
    drops: Sequence[Dropped],
) -> list[Span]:
    """Merge chunks smaller than ``--min-size`` into a neighbour under the same heading.

    Never across a dropped span: the merged chunk would hold the text dropped on purpose.
    """
    heading_scope = heading_scopes(doc.sections)
    ends = [span.end for span in drops]

    def scope(offset: int) -> int:
        return heading_scope(offset) * (len(ends) + 1) + bisect_right(ends, offset)

    def size_as_chunk(start: int, end: int, prefix: str | None) -> int:
        if not prefix:
            return ctx.sizer.size(start, end)
        # A repeated header or label: counted whole, as the merged chunk's context holds it.
        return ctx.measure.count(ctx.breadcrumb(start) + prefix + doc.text[start:end])

    return merge_small(
        spans,
        min_size=recipe.min_size,
        max_size=recipe.capacity.limit,
        size_alone=sizer.size,
        size_as_chunk=size_as_chunk,
        scope=scope if ends else heading_scope,
    )


EMBEDDING_WINDOW: Final = 8192
"""Tokens a typical embedding model takes at most: an unbounded chunk past it gets a warning."""


def warn_if_large(
    doc: Document,
    spans: Sequence[Span],
    tokens: Callable[[], Sizer],
    strategy: str,
    warn: Callable[[str, str], None],
) -> None:
    """Warn when an unbounded strategy made chunks larger than ``EMBEDDING_WINDOW`` tokens.

    A code point is at most four tokens (one per UTF-8 byte), so only spans longer than a
    quarter of the window are measured, and the text is encoded only if there is one.
    """
    long = [s for s in spans if 4 * (s.end - s.start) > EMBEDDING_WINDOW]
    if not long:
        return
    sizer = tokens()
    sizes = [n for n in (sizer.size(s.start, s.end) for s in long) if n > EMBEDDING_WINDOW]
    if sizes:
        noun = "chunk" if len(sizes) == 1 else "chunks"
        warn(
            LARGE_CHUNK,
            f"{doc.source}: {len(sizes)} {noun} over {EMBEDDING_WINDOW} tokens (the largest "
            f"{max(sizes)}), more than a typical embedding model takes: {strategy} is "
            "unbounded without --size; give --size, and longer parts are refined to it",
        )
