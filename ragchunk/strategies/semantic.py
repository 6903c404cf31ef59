"""semantic: chunks that end where the meaning changes, within the size (SPEC §4).

The document's sentences (``text.sentences``, found inside each section so none crosses a block)
are embedded in one pass, each once. At each sentence boundary, the distance between the
sentences before it and those after it (``buffer + 1`` each side) gives breakpoints by
``method`` and ``threshold`` (``text.breakpoints``). Sections are grouped across their
boundaries only when they share a parent heading (the document-level path); a chunk that spans
sections of different headings gets their common path as ``headings`` and the list of paths in
``metadata.merged_headings``, and its pages are the range its offsets touch. A group larger than
the size splits at its weakest internal links, a single sentence larger than the size at words
(``oversize_split``). With ``--min-size`` small groups merge into the more similar neighbour.
Each chunk's metadata says what opened it (``breakpoint``) and the distance there
(``breakpoint_distance``). Chunks never overlap: ``--overlap`` is not used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.boundaries import is_blank
from ragchunk.text.breakpoints import METHODS, Method, Piece, semantic_pieces
from ragchunk.text.sections import heading_lookup
from ragchunk.text.sentences import split_sentences
from ragchunk.text.separators import INSIDE_SENTENCE, split_range

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import Document, JSONValue

MAX_BUFFER = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class SemanticOptions:
    """Options of the semantic strategy."""

    budget: Budget = Budget(size=1000, overlap=0)
    method: Method = field(
        default="percentile",
        metadata={
            "help": "How breakpoints are picked from the distances between neighbouring "
            "sentence windows: percentile, stddev, interquartile or gradient."
        },
    )
    threshold: float | None = field(
        default=None,
        metadata={
            "help": "The method's threshold: a percentile 0-100 (percentile, gradient; "
            "default 95) or a number of standard deviations (stddev; default 3) or "
            "interquartile ranges (interquartile; default 1.5) above the mean distance. "
            "Higher means fewer, larger chunks."
        },
    )
    buffer: int = field(
        default=2,
        metadata={
            "help": "At each sentence boundary, the distance compares the buffer + 1 sentences "
            "before it with the buffer + 1 after it (0: single sentences)."
        },
    )

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            choices = ", ".join(METHODS)
            raise OptionError("method", f"must be one of {choices} (got {self.method!r})")
        if not 0 <= self.buffer <= MAX_BUFFER:
            raise OptionError("buffer", f"must be between 0 and {MAX_BUFFER} (got {self.buffer})")
        if self.threshold is None:
            return
        if self.method in {"percentile", "gradient"} and not 0 <= self.threshold <= 100:
            raise OptionError(
                "threshold", f"must be a percentile between 0 and 100 (got {self.threshold})"
            )
        if not 0 <= self.threshold < float("inf"):
            raise OptionError("threshold", f"must be 0 or more (got {self.threshold})")


def split(doc: Document, options: SemanticOptions, ctx: Context) -> list[Span]:
    """Return spans of whole sentences grouped by meaning, each within ``ctx.capacity``.

    Spans are absolute, half-open, in document order, and cover every sentence.

    Raises:
        BackendError: the embedder failed.
    """
    text = doc.text
    units, paths = sentences_with_headings(doc)
    if not units:
        return []
    vectors = ctx.embedder().embed([text[start:end] for start, end in units])
    words = ctx.capacity.without_overlap()

    def refine(start: int, end: int) -> list[tuple[int, int, bool]]:
        windows = split_range(
            text, start, end, sizer=ctx.sizer, capacity=words, levels=INSIDE_SENTENCE
        )
        return [(w.start, w.end, w.oversize) for w in windows]

    pieces = semantic_pieces(
        units,
        vectors,
        scopes=[path[:-1] for path in paths],
        size=ctx.sizer.size,
        limit=words.size,
        method=options.method,
        threshold=options.threshold,
        buffer=options.buffer,
        min_size=ctx.min_size,
        refine=refine,
    )
    return [_span(piece, paths) for piece in pieces if not is_blank(text, piece.start, piece.end)]


def sentences_with_headings(
    doc: Document,
) -> tuple[list[tuple[int, int]], list[tuple[str, ...]]]:
    """Return the document's sentences, none crossing a section, and each one's heading path.

    Text between sections (if any holds more than whitespace) is split into sentences too, so
    nothing is lost.
    """
    text = doc.text
    headings_at = heading_lookup(doc.sections)
    ranges: list[tuple[int, int]] = []
    at = 0
    for section in doc.sections:
        start, end = max(section.start, at), max(section.end, at)
        if start > at:
            ranges.append((at, start))
        if end > start:
            ranges.append((start, end))
        at = end
    if at < len(text):
        ranges.append((at, len(text)))
    units = [unit for start, end in ranges for unit in split_sentences(text, start, end)]
    return units, [headings_at(start) for start, _ in units]


def _span(piece: Piece, paths: Sequence[tuple[str, ...]]) -> Span:
    metadata: dict[str, JSONValue] = {"breakpoint": piece.opened_by}
    if piece.distance is not None:
        metadata["breakpoint_distance"] = piece.distance
    if piece.split:
        metadata["oversize_split"] = True
    if piece.oversize:
        metadata["oversize"] = True
    covered = list(dict.fromkeys(paths[piece.first : piece.last + 1]))
    headings = None
    if len(covered) > 1:
        headings = _common_prefix(covered)
        metadata["merged_headings"] = [list(path) for path in covered]
    return Span(piece.start, piece.end, headings, metadata)


def _common_prefix(paths: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    first = paths[0]
    length = 0
    while length < len(first) and all(
        len(path) > length and path[length] == first[length] for path in paths
    ):
        length += 1
    return first[:length]


STRATEGY = Strategy(
    name="semantic",
    summary="Sentences grouped where their meaning stays close (embedding distances), cut at "
    "the largest changes, within the size. Needs an embedder: one model pass per sentence.",
    options=SemanticOptions,
    split=split,
    embeds=True,
)
