"""Spans → chunk records: the only place that slices text and derives ids, lines and pages.

``text == doc.text[start:end]`` holds by construction (SPEC §3.1). Headings, pages, lines, a
transcript's timestamps and speakers, and a PDF's boxes on the page (``boxes``) are derived
from offsets, so every strategy gets them for free. ``context`` (the text to embed)
is the heading breadcrumb with ``--contextualize``, then the span's prefix, then the text.
"""

from __future__ import annotations

import contextlib
import gc
import struct
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from hashlib import blake2b
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import LimitExceededError
from ragchunk.model import TOP_LEVEL_SYMBOL, Chunk, Cue, Document, Page, Section, Span
from ragchunk.text.breadcrumb import format_breadcrumb
from ragchunk.text.sections import heading_lookup

if TYPE_CHECKING:
    from ragchunk.measure import Sizer
    from ragchunk.model import JSONValue


def chunk_id(doc_id: str, strategy: str, fingerprint: str, start: int, end: int, n: int) -> str:
    """Return a stable id: a hash of the document, strategy, options and span (no randomness).

    ``n`` tells apart chunks that share a span (proposition rewrites of one passage).
    """
    key = f"{doc_id}\0{strategy}\0{fingerprint}\0{start}\0{end}\0{n}"
    # surrogatepass: the doc_id of a file whose name is not UTF-8 holds lone surrogates.
    return blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a document is chunked (usable as a decorator).

    The tens of thousands of windows, spans and chunks of a large document hold no reference
    cycles, yet each few hundred of them started a collection that walked them all again:
    14 % of chunking 10 MB. The collector is left as found (off stays off).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def assemble(
    doc: Document,
    spans: Sequence[Span],
    *,
    strategy: str,
    fingerprint: str,
    tokens: Sizer | None = None,
    contextualize: bool = False,
) -> list[Chunk]:
    """Build the chunk records of ``doc`` from a strategy's spans.

    Args:
        doc: the document the spans index into.
        spans: absolute, half-open spans in document order.
        strategy: the name recorded in each chunk's ``strategy`` field (unless a span names
            the strategy that made it).
        fingerprint: a digest of the options, part of every id.
        tokens: when given, each chunk's ``tokens`` is its size measured alone.
        contextualize: give every chunk a ``context``: breadcrumb + prefix + text. Without
            it, only spans with a prefix get one.

    Raises:
        LimitExceededError: the contexts would exceed the document's repeat allowance.
    """
    text, doc_id, source = doc.text, doc.doc_id, doc.source
    headings_at = heading_lookup(doc.sections)
    symbols = _SymbolLookup(doc.sections) if doc.format == "code" else None
    pages = _PageLookup(doc.pages) if doc.pages else None
    cues = _CueLookup(doc.cues) if doc.cues else None
    times: tuple[float | None, float | None] = (None, None)
    boxes = None
    if doc.boxes is not None:  # a PDF's: its module only then
        from ragchunk.pipeline.boxes import BoxLookup

        boxes = BoxLookup(doc.boxes)
    allowance = repeat_allowance(text)
    repeated = 0  # characters of breadcrumbs and prefixes put into contexts so far
    chunks: list[Chunk] = []
    append, count, has_lines, doc_metadata = chunks.append, text.count, doc.has_lines, doc.metadata
    ids = _IdHasher(doc_id, fingerprint)
    line_start = line_end = page_start = page_end = None
    line, line_at = 1, 0  # the line of offset `line_at`: counting from there stays linear
    n, previous_start, previous_end = 0, -1, -1
    for index, span in enumerate(spans):
        start, end = span.start, span.end
        # Chunks sharing a span (rewrites of one passage) come together; number them.
        n = n + 1 if start == previous_start and end == previous_end else 0
        previous_start, previous_end = start, end
        if has_lines:
            # From the previous chunk's last character: back over the overlap, or on over the
            # gap, so each character is counted about once (str.count is most of this loop).
            if start >= line_at:
                line_start = line + count("\n", line_at, start)
            else:
                line_start = line - count("\n", start, line_at)
            line_at = max(start, end - 1)
            line = line_end = line_start + count("\n", start, line_at)
        if span.pages is not None:
            page_start, page_end = span.pages
        elif pages is not None:
            page_start, page_end = pages.range(start, end)
        metadata = {**doc_metadata, **span.metadata} if doc_metadata else span.metadata
        if symbols is not None and "symbol" not in metadata:
            metadata = {**metadata, "symbol": symbols(start, end)}
        if cues is not None:
            times, speakers = cues(start, end)
            if speakers:
                metadata = {**metadata, "speakers": speakers}
        headings = span.headings if span.headings is not None else headings_at(start)
        piece = text[start:end] if span.text is None else span.text
        context = None
        if contextualize or span.prefix is not None:
            lead = (format_breadcrumb(headings) if contextualize else "") + (span.prefix or "")
            repeated += len(lead)
            if repeated > allowance:  # checked before the repeated text is built
                raise LimitExceededError(_over_allowance(doc, allowance))
            context = lead + piece
        name = span.strategy or strategy
        append(
            Chunk(  # positional, in field order: keyword calls cost a third of this loop
                ids(name, start, end, n),
                doc_id,
                source,
                index,
                piece,
                start,
                end,
                name,
                end - start if span.text is None else len(piece),
                headings,
                page_start,
                page_end,
                line_start,
                line_end,
                None if tokens is None else tokens.size(start, end),
                metadata,
                context,
                None,
                None,
                None if span.embedding is None else compact_vector(span.embedding),
                timestamp_start=times[0],
                timestamp_end=times[1],
                boxes=None if boxes is None else boxes(start, end),
            )
        )
    return chunks


_FLOAT32: Final = struct.Struct("<f")


def compact_vector(vector: Iterable[float]) -> tuple[float, ...]:
    """Return ``vector``'s float32 values, each as the shortest decimal that reads back to it.

    JSON then carries no needless digits (``0.0123`` rather than ``0.012299999594688416``)
    and a reader that parses the numbers as float32 gets the vector bit for bit.
    """
    return tuple(_shortest(value) for value in vector)


def _shortest(value: float) -> float:
    # Nine significant digits always read back (IEEE 754); most values of a unit vector need
    # eight, so the search walks down from there and stops at the first that does not.
    exact, pack = _FLOAT32.pack(value), _FLOAT32.pack
    best = float(f"{value:.8g}")
    if pack(best) != exact:
        return float(f"{value:.9g}")
    for digits in (7, 6, 5, 4, 3, 2, 1):
        candidate = float(f"{value:.{digits}g}")
        if pack(candidate) != exact:
            return best
        best = candidate
    return best


class _IdHasher:
    """``chunk_id`` for the chunks of one document, hashing the shared key prefix only once."""

    __slots__ = ("_doc_id", "_fingerprint", "_prefixes")

    def __init__(self, doc_id: str, fingerprint: str) -> None:
        self._doc_id, self._fingerprint = doc_id, fingerprint
        self._prefixes: dict[str, Any] = {}  # strategy name -> blake2b of the key's prefix

    def __call__(self, strategy: str, start: int, end: int, n: int) -> str:
        prefix = self._prefixes.get(strategy)
        if prefix is None:
            key = f"{self._doc_id}\0{strategy}\0{self._fingerprint}\0"
            # surrogatepass: as chunk_id() encodes the same key.
            prefix = blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8)
            self._prefixes[strategy] = prefix
        # The digest of prefix + rest equals chunk_id()'s; copying the prefix's state saves
        # hashing it (and building the whole key) again for every chunk.
        digest = prefix.copy()
        digest.update(b"%d\0%d\0%d" % (start, end, n))
        return str(digest.hexdigest())


def repeat_allowance(text: str) -> int:
    """Return the most characters of repeated text the contexts of one document may hold.

    Repeated breadcrumbs, table headers and labels must never turn a small document into an
    unbounded amount of text to embed: 32 times the document, and at least 64 Ki characters.
    """
    return max(65536, 32 * len(text))


def _over_allowance(doc: Document, allowance: int) -> str:
    return (
        f"{doc.source}: the breadcrumbs, table headers and labels repeated in the chunks' "
        f"contexts would exceed {allowance} characters (32 times the document); raise --size or "
        "drop --contextualize"
    )


class _SymbolLookup:
    """The symbols of the code definitions a span overlaps, for strategies that know none.

    SPEC §2: like headings, a code chunk's ``symbol`` is derived from offsets, so every
    strategy gets one; ``<top-level>`` when the span lies outside every definition.
    """

    __slots__ = ("_sections", "_starts")

    def __init__(self, sections: Sequence[Section]) -> None:
        self._sections = [s for s in sections if "symbol" in s.metadata]
        self._starts = [s.start for s in self._sections]

    def __call__(self, start: int, end: int) -> str:
        k = max(bisect_right(self._starts, start) - 1, 0)
        names: dict[str, None] = {}
        sections = self._sections
        # By index: slicing the rest of the list for every chunk made this quadratic.
        for section in (sections[i] for i in range(k, len(sections))):
            if section.start >= end:
                break
            if section.end > start:
                names[str(section.metadata["symbol"])] = None
        return ", ".join(names) or TOP_LEVEL_SYMBOL


def page_ranges(doc: Document) -> Callable[[int, int], tuple[int, int]] | None:
    """Return ``range(start, end)``: the first and last page a span touches; None: no pages."""
    return _PageLookup(doc.pages).range if doc.pages else None


class _PageLookup:
    """The 1-based pages a span touches (pages are contiguous and sorted)."""

    __slots__ = ("_ends", "_pages")

    def __init__(self, pages: Sequence[Page]) -> None:
        self._pages = pages
        self._ends = [p.end for p in pages]

    def range(self, start: int, end: int) -> tuple[int, int]:
        last = len(self._pages) - 1
        # The first page ending after `start`, and the last page starting before `end`; text
        # between pages (the separator) belongs to neither, so the span's real text decides.
        first = min(bisect_right(self._ends, start), last)
        k = first
        while k < last and self._pages[k + 1].start < end:
            k += 1
        return self._pages[first].number, self._pages[max(k, first)].number


class _CueLookup:
    """The time range and speakers of the cues a span touches (cues are sorted, disjoint)."""

    __slots__ = ("_cues", "_ends")

    def __init__(self, cues: Sequence[Cue]) -> None:
        self._cues = cues
        self._ends = [cue.end for cue in cues]

    def __call__(self, start: int, end: int) -> tuple[tuple[float, float], list[JSONValue]]:
        cues, last = self._cues, len(self._cues) - 1
        first = min(bisect_right(self._ends, start), last)
        k = first
        while k < last and cues[k + 1].start < end:
            k += 1
        touched = [cues[i] for i in range(first, k + 1)]
        speakers: dict[JSONValue, None] = {}
        for cue in touched:
            speakers.update(dict.fromkeys(cue.speakers))
        begin = min(cue.time_start for cue in touched)
        return (begin, max(cue.time_end for cue in touched)), list(speakers)
