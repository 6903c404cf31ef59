"""code: chunks at the definitions of a tree-sitter syntax tree, packed up to the size (SPEC §4).

Top-level definitions and statements are packed greedily; one larger than the size splits at its
members (a class at its methods), a function at its statements, a leaf token at lines. Comments,
decorators and attributes directly above a definition stay with it, and a chunk never mixes the
parts of a split definition with what lies outside it, but for one chunk too small to stand alone
(an eighth of the size at most: ``export class Ky {``, a ``}`` tail) merged into a neighbour that
it fits beside. Every cut falls between syntax nodes, at a line start when they sit on different
lines. A chunk cutting through a function or statement gets ``oversize_split``; the one nearest
a syntax error gets ``syntax_error``. Standard input is read as code (its language from
``--language`` or a ``#!`` line, else it fails). Text that is not code is packed by lines;
minified code falls back to the recursive strategy.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Final

from ragchunk.code.languages import LANGUAGES
from ragchunk.code.syntax import describe_span, held_whole, not_held, parse
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.strategies.code.pieces import LINE_LEVELS, Piece, Walk, cover
from ragchunk.text.boundaries import is_blank
from ragchunk.text.separators import DEFAULT_LEVELS, split_range
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from collections.abc import Callable

    from ragchunk.code.syntax import Syntax
    from ragchunk.model import Document, JSONValue

_MINIFIED_LENGTH: Final = 1000
_MINIFIED_LINE: Final = 200
_TINY: Final = 8
"""A chunk of at most ``1 / _TINY`` of the size merges into a neighbour where it fits."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeOptions:
    """Options of the code strategy.

    The size defaults to tokens: code tokenizes unevenly (symbols, indentation, identifiers split
    into many tokens), so a character budget over- or under-fills an embedding model's window,
    which is counted in tokens. Overlap defaults to 0: definitions are self-contained.
    """

    budget: Budget = Budget(size=512, overlap=0, unit="tokens")


def split(doc: Document, options: CodeOptions, ctx: Context) -> list[Span]:  # noqa: ARG001 - the seam\'s signature
    """Return spans covering the code in ``doc.text`` in order, each within ``ctx.capacity``.

    Spans are absolute and half-open. A document whose format is not ``code`` (or whose
    language is unknown) is packed by lines; minified code is split like prose.
    """
    language = doc.metadata.get("language") if doc.format == "code" else None
    if not isinstance(language, str) or language not in LANGUAGES:
        return _split_text(doc.text, ctx, LINE_LEVELS)
    if is_minified(doc.text):
        return _split_text(doc.text, ctx, DEFAULT_LEVELS)
    return _split_tree(parse(doc.text, language), ctx)


def _split_text(text: str, ctx: Context, levels: tuple[tuple[str, ...], ...]) -> list[Span]:
    """Split text without a syntax tree with the recursive strategy's separator levels."""
    windows = split_range(text, 0, len(text), sizer=ctx.sizer, capacity=ctx.capacity, levels=levels)
    return spans_from_windows(text, windows)


def _split_tree(syntax: Syntax, ctx: Context) -> list[Span]:
    """Split parsed code: pieces that fit, packed; overlap; then headings and metadata."""
    walk = Walk(syntax, ctx.sizer, ctx.capacity)
    pieces = cover(walk)
    chunks = _absorb_tiny(_pack(pieces, walk), walk)
    starts = _overlap_starts(syntax.text, chunks, walk) if ctx.capacity.overlap else None
    errors = _error_chunks(chunks, syntax.error_offsets())
    return [
        _span(syntax, chunk.start if starts is None else starts[k], chunk, has_error=k in errors)
        for k, chunk in enumerate(chunks)
    ]


def is_minified(text: str) -> bool:
    """Return whether ``text`` looks minified: long, with lines far longer than code's."""
    return len(text) >= _MINIFIED_LENGTH and len(text) > _MINIFIED_LINE * (text.count("\n") + 1)


# --- packing, overlap, metadata ------------------------------------------------------------------


def _pack(pieces: list[Piece], walk: Walk) -> list[Piece]:
    """Join consecutive pieces greedily while they fit and belong to the same split level.

    Joined pieces leave room for the overlap, which the size includes (SPEC §3.3).
    """
    room = walk.capacity.size - walk.capacity.overlap
    chunks: list[Piece] = []
    for piece in pieces:
        last = chunks[-1] if chunks else None
        if (
            last is not None
            and not (last.oversize or piece.oversize)
            and _can_join(last.chain, piece)
            and walk.sizer.size(last.start, piece.end) <= room
        ):
            chunks[-1] = replace(last, end=piece.end, fragment=last.fragment or piece.fragment)
        else:
            chunks.append(piece)
    return chunks


def _can_join(chain: tuple[int, ...], piece: Piece) -> bool:
    """Return whether ``piece`` may join a chunk of split definitions ``chain``.

    Pieces of one split level join; a closing brace may also join the last part of a nested
    split (it leaves the nesting), but an opening keyword never enters one.
    """
    if piece.chain == chain:
        return True
    return piece.trivia and chain[: len(piece.chain)] == piece.chain


def _absorb_tiny(chunks: list[Piece], walk: Walk) -> list[Piece]:
    """Merge each chunk of at most an eighth of the size into a neighbour when both fit.

    Such a chunk cannot stand alone (``export class Ky {``, a ``}`` tail, a source-map
    comment). It joins the next chunk when it opens a definition that chunk lies in, else the
    previous one, else the next: first only a neighbour lying in every definition the tiny
    chunk lies in or holds part of, and never while the tiny chunk holds a whole definition
    (that one keeps its chunk and symbol); then, for what is left, a neighbour as small as
    itself. So a split definition takes at most one tiny chunk from outside it on either side.
    A merged chunk that is still tiny is looked at again.
    """
    sizer, size = walk.sizer, walk.capacity.size
    room = size - walk.capacity.overlap

    def is_tiny(chunk: Piece) -> bool:
        return not chunk.oversize and sizer.size(chunk.start, chunk.end) * _TINY <= size

    def fits(first: Piece, second: Piece) -> bool:
        return sizer.size(min(first.start, second.start), max(first.end, second.end)) <= room

    def within(tiny: Piece, other: Piece) -> bool:
        return not other.oversize and _stays_within(walk.syntax, tiny, other) and fits(tiny, other)

    def beside(tiny: Piece, other: Piece) -> bool:
        return is_tiny(other) and fits(tiny, other)

    return _merge_tiny(_merge_tiny(chunks, walk, is_tiny, within), walk, is_tiny, beside)


def _merge_tiny(
    chunks: list[Piece],
    walk: Walk,
    is_tiny: Callable[[Piece], bool],
    may_merge: Callable[[Piece, Piece], bool],
) -> list[Piece]:
    """Merge each tiny chunk into the first neighbour ``may_merge`` allows (see above)."""
    k = 0
    while k < len(chunks):
        chunk = chunks[k]
        before = chunks[k - 1] if k else None
        after = chunks[k + 1] if k + 1 < len(chunks) else None
        partner = None
        if is_tiny(chunk):
            opens = after is not None and _opens(walk.syntax, chunk, after)
            order = (after, before) if opens else (before, after)
            partner = next((n for n in order if n is not None and may_merge(chunk, n)), None)
        if partner is None:
            k += 1
            continue
        k = k if partner is after else k - 1
        first, last = chunks[k], chunks[k + 1]
        chain = max(first.chain, last.chain, key=len)
        chunks[k : k + 2] = [Piece(first.start, last.end, chain, first.fragment or last.fragment)]
    return chunks


def _opens(syntax: Syntax, chunk: Piece, after: Piece) -> bool:
    """Return whether ``chunk`` holds the start of a split definition ``after`` lies in."""
    return any(chunk.start <= syntax.definitions[d].start < chunk.end for d in after.chain)


def _stays_within(syntax: Syntax, tiny: Piece, other: Piece) -> bool:
    """Return whether a tiny chunk merged with ``other`` stays within its definitions' bounds.

    That is: it holds no whole definition, and ``other`` lies in every definition the tiny
    chunk lies in or holds part of.
    """
    if held_whole(syntax, tiny.start, tiny.end):
        return False
    return all(
        definition.start <= other.start and other.end <= definition.end
        for definition in not_held(syntax, tiny.start, tiny.end)
    )


def _overlap_starts(text: str, chunks: list[Piece], walk: Walk) -> list[int]:
    """Return each chunk's start moved back over whole lines of the previous chunk.

    The repeated lines stay within the overlap and the chunk within the size (SPEC §3.3, §3.5);
    an overlap starts after a line break, so never inside a word or grapheme cluster.
    """
    capacity, sizer = walk.capacity, walk.sizer
    starts = [chunks[0].start] if chunks else []
    for previous, chunk in pairwise(chunks):
        lowest = starts[-1]
        best = chunk.start
        newline = text.rfind("\n", lowest, previous.end - 1)
        while newline >= lowest:
            line = newline + 1
            if sizer.size(line, previous.end) > capacity.overlap:
                break
            if sizer.size(line, chunk.end) > capacity.size:
                break
            if not is_blank(text, line, previous.end):
                best = line
            newline = text.rfind("\n", lowest, newline)
        starts.append(best)
    return starts


def _error_chunks(chunks: list[Piece], offsets: list[int]) -> set[int]:
    """Return the indexes of the chunks holding (or nearest to) each syntax error."""
    starts = [chunk.start for chunk in chunks]
    flagged: set[int] = set()
    for offset in offsets if chunks else ():
        k = max(bisect_right(starts, offset) - 1, 0)
        if offset >= chunks[k].end and k + 1 < len(chunks):
            before, after = offset - chunks[k].end + 1, chunks[k + 1].start - offset
            k = k + 1 if after < before else k
        flagged.add(k)
    return flagged


def _span(syntax: Syntax, start: int, chunk: Piece, *, has_error: bool) -> Span:
    """Return the span of one chunk with its headings, symbol, kind and flags."""
    headings, symbol, kind = describe_span(syntax, chunk.start, chunk.end, chunk.chain)
    metadata: dict[str, JSONValue] = {"symbol": symbol, "kind": kind}
    if chunk.fragment:
        metadata["oversize_split"] = True
    if chunk.oversize:
        metadata["oversize"] = True
    if has_error:
        metadata["syntax_error"] = True
    return Span(start, chunk.end, headings=headings, metadata=metadata)


STRATEGY = Strategy(
    name="code",
    summary="Source code on tree-sitter syntax trees: definitions, then members, statements, "
    "lines; comments and decorators stay with their definition. Sizes in tokens by default "
    "(code tokenizes unevenly and embedding models count tokens); overlap 0.",
    options=CodeOptions,
    split=split,
    stdin_format="code",  # never line packing for want of an extension: a #! line or --language
)
