"""late: token windows whose embeddings saw the whole document (late chunking, SPEC §4).

The document is tokenized once by the local model, and its token vectors are computed once,
in windows of the model's maximum sequence length that overlap and are stitched back so each
token has one vector (``backends/local.py``). Chunks are windows cut between the model's
tokens, at most ``--size`` long and repeating at most ``--overlap`` (both in the budget's
unit: tokens of ``--tokenizer``, cl100k_base by default, or characters; give ``--tokenizer``
the model's ``tokenizer.json`` to count in the model's own tokens). Each chunk's
``embedding`` is the L2-normalised mean of the vectors of the tokens that start inside it.

When the model's tokenizer cannot map its tokens back to character offsets, the document is
chunked the same way between the budget tokenizer's tokens, without embeddings, and a warning
names the cause; a chunk holding no model token (only characters the tokenizer drops) has no
embedding either. Nothing is lost either way.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk.errors import TokenMappingError
from ragchunk.options import Budget
from ragchunk.strategies._spec import Bounds, Context, Strategy
from ragchunk.text.boundaries import grapheme_ceil, grapheme_floor
from ragchunk.text.pack import AlignStart, FindCut, pack
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import Document, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class LateOptions:
    """Options of the late strategy."""

    budget: Budget = Budget(size=256, overlap=32, unit="tokens")


def _cuts(starts: Sequence[int]) -> tuple[FindCut, AlignStart]:
    """Return cut and start rules that keep to token starts (and grapheme boundaries)."""

    def find_cut(text: str, lo: int, limit: int) -> int:
        k = bisect_right(starts, limit) - 1
        if k < 0 or starts[k] <= lo:  # no token starts in the window: cut between graphemes
            return grapheme_floor(text, limit, lo)
        return grapheme_floor(text, starts[k], lo)

    def align_start(text: str, lo: int, hi: int) -> int:
        k = bisect_left(starts, lo)
        start = starts[k] if k < len(starts) else hi
        return min(grapheme_ceil(text, min(start, hi), hi), hi)

    return find_cut, align_start


def split(doc: Document, options: LateOptions, ctx: Context) -> list[Span]:  # noqa: ARG001 - the seam's signature
    """Return token windows covering ``doc.text``, each with its late-pooled ``embedding``.

    Spans are absolute, half-open and in document order; each fits ``ctx.capacity``.

    Raises:
        BackendError: the local model failed.
    """
    text = doc.text
    if not text.strip():
        return []
    embedder = ctx.embedder()
    try:
        offsets = embedder.token_offsets(text)
    except TokenMappingError as exc:
        ctx.warn("late-no-offsets", f"{doc.source}: late chunking without embeddings: {exc}")
        tokens = ctx.tokens()
        starts = [tokens.offset(i) for i in range(tokens.total)]
        return _windows(doc, ctx, starts)
    spans = _windows(doc, ctx, sorted({start for start, _ in offsets}))
    vectors = embedder.pool(text, [(span.start, span.end) for span in spans])
    missing = 0
    for span, vector in zip(spans, vectors, strict=True):
        if vector is None:
            missing += 1
            continue
        span.embedding = vector
        span.metadata = {
            **span.metadata,
            "embedding_model": embedder.model,
            "embedding_dimensions": len(vector),
        }
    if missing:
        ctx.warn(
            "late-no-tokens",
            f"{doc.source}: {missing} chunk(s) hold no token of the model (only characters its "
            "tokenizer drops) and have no embedding",
        )
    return spans


def _windows(doc: Document, ctx: Context, starts: list[int]) -> list[Span]:
    capacity = ctx.capacity
    find_cut, align_start = _cuts(starts)
    windows = pack(
        doc.text,
        0,
        len(doc.text),
        sizer=ctx.sizer,
        size=capacity.size,
        overlap=capacity.overlap,
        find_cut=find_cut,
        align_start=align_start,
    )
    return spans_from_windows(doc.text, windows)


def _late_bounds(_options: LateOptions) -> Bounds:
    return Bounds(word_aligned=False)  # windows begin on a model token, not a word


STRATEGY = Strategy(
    name="late",
    summary="Token windows cut between the model's tokens, each with an embedding pooled from "
    "one pass of the local model over the whole text (late chunking). --size counts "
    "--tokenizer tokens (cl100k_base unless the model's tokenizer.json is given).",
    options=LateOptions,
    split=split,
    bounds=_late_bounds,
    embeds=True,
    token_vectors=True,
)
