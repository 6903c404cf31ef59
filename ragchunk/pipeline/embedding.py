"""Engine passes that use an embedder: ``--refine`` on the spans, ``--embed`` on the records.

``refine_spans`` sub-splits every span larger than the size semantically: its sentences are
embedded and cut at their largest distances until each piece fits (``text.breakpoints``), a
sentence still too large at words. The pieces keep their parent's heading path, page range,
prefix and metadata, plus ``refined`` and what opened each piece. ``embed_chunks`` gives every
record without one an ``embedding`` of what a vector store should see (its ``context`` when it
has one, else its text), all of a document's records in one call to the embedder.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ragchunk.model import Span
from ragchunk.pipeline.chunks import compact_vector, page_ranges
from ragchunk.text.boundaries import is_blank
from ragchunk.text.breakpoints import semantic_pieces
from ragchunk.text.sections import heading_lookup
from ragchunk.text.sentences import split_sentences
from ragchunk.text.separators import INSIDE_SENTENCE, split_range

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.backends import Embedder
    from ragchunk.model import Chunk, Document, JSONValue
    from ragchunk.options import Capacity
    from ragchunk.strategies._spec import Context


def refine_spans(
    doc: Document, spans: Sequence[Span], ctx: Context, *, capacity: Capacity
) -> list[Span]:
    """Return ``spans`` with every one over the hard ``capacity`` split semantically (``--refine``).

    Sizes are measured as the limit counts them (``ctx.sizer``, breadcrumbs included).

    Raises:
        BackendError: the embedder failed.
    """
    size, limit = ctx.sizer.size, capacity.size
    oversized = [k for k, span in enumerate(spans) if size(span.start, span.end) > limit]
    if not oversized:
        return list(spans)
    text = doc.text
    sentences = {k: split_sentences(text, spans[k].start, spans[k].end) for k in oversized}
    everything = [text[s:e] for k in oversized for s, e in sentences[k]]
    vectors = iter(ctx.embedder().embed(everything))
    words = capacity.without_overlap()
    headings_at = heading_lookup(doc.sections)
    pages = page_ranges(doc)

    def refine(start: int, end: int) -> list[tuple[int, int, bool]]:
        windows = split_range(
            text, start, end, sizer=ctx.sizer, capacity=words, levels=INSIDE_SENTENCE
        )
        return [(w.start, w.end, w.oversize) for w in windows]

    refined: list[Span] = []
    for k, span in enumerate(spans):
        if k not in sentences:
            refined.append(span)
            continue
        units = sentences[k]
        pieces = semantic_pieces(
            units,
            [next(vectors) for _ in units],
            scopes=[0] * len(units),
            size=size,
            limit=limit,
            refine=refine,
        )
        headings = span.headings if span.headings is not None else headings_at(span.start)
        page_range = span.pages or (pages(span.start, span.end) if pages else None)
        for piece in pieces:
            if is_blank(text, piece.start, piece.end):
                continue
            metadata: dict[str, JSONValue] = {**span.metadata, "refined": True}
            metadata["breakpoint"] = piece.opened_by
            if piece.distance is not None:
                metadata["breakpoint_distance"] = piece.distance
            if piece.split:
                metadata["oversize_split"] = True
            if piece.oversize:
                metadata["oversize"] = True
            refined.append(
                dataclasses.replace(
                    span,
                    start=piece.start,
                    end=piece.end,
                    headings=headings,
                    metadata=metadata,
                    pages=page_range,
                    embedding=None,
                )
            )
    return refined


def embed_chunks(chunks: Sequence[Chunk], embedder: Embedder) -> list[Chunk]:
    """Return the records with an ``embedding`` each (``--embed``); late chunks keep theirs.

    Raises:
        BackendError: the embedder failed.
    """
    todo = [chunk for chunk in chunks if chunk.embedding is None]
    if not todo:
        return list(chunks)
    vectors = embedder.embed([c.context if c.context is not None else c.text for c in todo])
    model = embedder.model
    made = {
        id(chunk): dataclasses.replace(
            chunk,
            embedding=compact_vector(vector),
            metadata={
                **chunk.metadata,
                "embedding_model": model,
                "embedding_dimensions": len(vector),
            },
        )
        for chunk, vector in zip(todo, vectors, strict=True)
    }
    return [made.get(id(chunk), chunk) for chunk in chunks]
