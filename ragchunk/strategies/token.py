"""token: sliding windows cut at the tokenizer's token boundaries (SPEC §4).

The document is encoded once; windows hold N tokens and the next window repeats the last
``overlap`` tokens. Every window is re-measured alone and shrinks by whole tokens if its own
encoding is longer than N (BPE can merge differently at a window's edges). Cuts that would fall
inside a code point or a grapheme cluster move to the cluster's start. With ``--unit chars`` the
windows are bounded in characters but still cut between tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Bounds, Context, Strategy
from ragchunk.text.boundaries import grapheme_ceil, grapheme_floor
from ragchunk.text.pack import AlignStart, FindCut, pack
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from ragchunk.measure import Sizer
    from ragchunk.model import Document, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenOptions:
    """Options of the token strategy."""

    budget: Budget = Budget(size=512, overlap=50, unit="tokens")


def _cuts(tokens: Sizer) -> tuple[FindCut, AlignStart]:
    """Return cut and start rules that keep to token boundaries (and grapheme boundaries)."""

    def find_cut(text: str, lo: int, limit: int) -> int:
        cut = tokens.offset(tokens.index(limit))
        if cut <= lo:  # one token spans the whole window: cut inside it, between graphemes
            return grapheme_floor(text, limit, lo)
        return grapheme_floor(text, cut, lo)

    def align_start(text: str, lo: int, hi: int) -> int:
        i = tokens.index(lo)
        start = tokens.offset(i)
        if start < lo:
            start = tokens.offset(min(i + 1, tokens.total))
        return min(grapheme_ceil(text, start, hi), hi)

    return find_cut, align_start


def split(doc: Document, options: TokenOptions, ctx: Context) -> list[Span]:  # noqa: ARG001 - the seam\'s signature
    """Return token windows covering ``doc.text`` in order, each within ``ctx.capacity``."""
    capacity = ctx.capacity
    find_cut, align_start = _cuts(ctx.tokens())
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


def _token_bounds(_options: TokenOptions) -> Bounds:
    return Bounds(word_aligned=False)  # windows begin on a token, not a word


STRATEGY = Strategy(
    name="token",
    summary="Sliding windows of N tokens with exact character offsets.",
    options=TokenOptions,
    split=split,
    bounds=_token_bounds,
    tokenizes=True,
)
