"""The invariant checker: every point of SPEC §3 for one document and its chunks.

The test suite and ``ragchunk split --check`` both call ``find_violations`` (with the limits
``plan.limits_for`` derives from a recipe) and ``find_differences`` (determinism: two runs
compared); each violation is one sentence naming the chunk (its index and span) and the rule it
breaks, and violations come in document order, so the first one named is the first in the text.

What is checked: §3.1 verbatim (``text == document.text[start:end]``, ``chars`` agrees); §3.2
nothing lost (every non-whitespace character in some span); §3.3 the hard size limit, measured
alone, for the text and for the ``context`` that will be embedded, with one exception: a chunk
of a single code point larger than the limit, flagged ``oversize`` (a flag on any other chunk
is itself a violation), and the record's ``tokens`` is the text's own count; §3.4 order
(non-decreasing ``start``), contiguous indexes, unique ids,
records of this document (``doc_id``, ``source``), page and line ranges in order, and
byte-identical records across two runs; §3.5 the overlap of consecutive chunks within the
budget, starting on a grapheme cluster boundary and, where the overlap holds a word boundary,
on a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from ragchunk.text.boundaries import has_space, is_grapheme_boundary
from ragchunk.text.breadcrumb import format_breadcrumb
from ragchunk.text.languages import DEFAULT_LANGUAGE, detect_language
from ragchunk.text.sentences import split_sentences

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ragchunk.measure import Measure
    from ragchunk.model import Chunk, Document, Dropped

_Found = tuple[tuple[int, int], str]
"""A violation with its place: (chunk position, check order), then the sentence."""

_NON_SPACE: Final = re.compile(r"\S")
REWRITE_KINDS: Final = frozenset({"proposition", "field"})
"""``metadata.kind`` of records a model wrote (propositions, résumé fields): their text is not
``document.text[start:end]`` but their span is their source's, so the verbatim check and the
overlap checks skip them; every other check applies."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What the chunks were asked to respect.

    Attributes:
        size: the hard size limit, or None for a strategy unbounded by design.
        overlap: the most two consecutive chunks may share.
        measure: the unit both are counted in (each span measured alone).
        word_aligned: whether an overlap must begin on a word when the overlap holds one.
        sentences: the most sentences a chunk may hold (sentence-count mode), or None.
        overlap_sentences: when set, the overlap is counted in whole sentences (sentence-count
            mode) instead of in ``measure``.
        contextualize: every chunk has a ``context`` that starts with its heading breadcrumb,
            and breadcrumb + text fit the size limit.
        language: the sentence rules sentences are counted with: a code of
            ``text.languages.LANGUAGES``, or ``auto`` (detected per document, as the strategy
            does).
        drops: the strategy may leave text out on purpose (a template), reporting each span.
    """

    size: int | None
    overlap: int
    measure: Measure
    word_aligned: bool = True
    sentences: int | None = None
    overlap_sentences: int | None = None
    contextualize: bool = False
    language: str = DEFAULT_LANGUAGE
    drops: bool = False


def find_violations(
    doc: Document,
    chunks: Sequence[Chunk],
    limits: Limits,
    dropped: Sequence[Dropped] = (),
) -> list[str]:
    """Return every violation of SPEC §3 found, in document order; empty when the contract holds.

    ``dropped`` are the spans the strategy reported leaving out on purpose: their
    non-whitespace characters must lie in no chunk, every other one in some chunk.
    Violations are ordered by the chunk they concern (a lost character by the chunk after
    it), then by rule; the first is the first place where the contract breaks.
    """
    if limits.language == "auto" and limits.sentences is not None:
        limits = replace(limits, language=detect_language(doc.text))
    found: list[_Found] = [
        *_check_records(doc, chunks),
        *_check_sizes(chunks, limits),
        *_check_contexts(chunks, limits),
        *_check_sentence_counts(doc, chunks, limits),
        *_check_coverage(doc, chunks, dropped),
        *_check_dropped(doc, chunks, dropped, limits),
        *_check_overlaps(doc, chunks, limits),
    ]
    return [message for _, message in sorted(found, key=lambda item: item[0])]


def find_differences(first: Sequence[Chunk], second: Sequence[Chunk]) -> list[str]:
    """Return how a second run's chunks differ from the first's (SPEC §3.4: byte-identical).

    Names the first chunk and field that differ, or the first chunk one run has and the
    other has not; empty when the records are identical.
    """
    for position, (one, two) in enumerate(zip(first, second, strict=False)):
        record, again = one.to_record(), two.to_record()
        if record != again:
            field = next(
                key
                for key in sorted({*record, *again})
                if record.get(key, _MISSING) != again.get(key, _MISSING)
            )
            return [
                f"chunk {position} [{one.start}:{one.end}]: its {field} differs between two runs"
            ]
    if len(first) != len(second):
        return [f"a second run gave {len(second)} chunks, the first {len(first)}"]
    return []


_MISSING: Final = object()


def _name(chunk: Chunk) -> str:
    return f"chunk {chunk.index} [{chunk.start}:{chunk.end}]"


def _check_records(doc: Document, chunks: Sequence[Chunk]) -> Iterator[_Found]:
    """SPEC §3.1 and §3.4 for each record on its own and against the one before."""
    previous_start = 0
    ids: dict[str, int] = {}
    for position, chunk in enumerate(chunks):
        for message in _record_problems(doc, chunk, position, previous_start, ids):
            yield (position, 0), f"{_name(chunk)}: {message}"
        ids.setdefault(chunk.id, chunk.index)
        previous_start = chunk.start


def _record_problems(
    doc: Document, chunk: Chunk, position: int, previous_start: int, ids: dict[str, int]
) -> Iterator[str]:
    if chunk.index != position:
        yield f"index {chunk.index} where {position} was expected"
    if not 0 <= chunk.start < chunk.end <= len(doc.text):
        yield f"span outside the document (length {len(doc.text)})"
    verbatim = chunk.metadata.get("kind") in REWRITE_KINDS  # a model's words: not verbatim
    if not verbatim and chunk.text != doc.text[chunk.start : chunk.end]:
        yield "text differs from document.text[start:end]"
    if chunk.chars != chunk.end - chunk.start and not verbatim:
        yield f"chars is {chunk.chars}, the span holds {chunk.end - chunk.start}"
    if chunk.start < previous_start:
        yield f"starts before the previous chunk ({previous_start})"
    if chunk.id in ids:
        yield f"id {chunk.id} repeats that of chunk {ids[chunk.id]}"
    if (chunk.doc_id, chunk.source) != (doc.doc_id, doc.source):
        yield f"doc_id/source {chunk.doc_id!r}/{chunk.source!r} are not the document's"
    yield from _range_problems(chunk)


def _range_problems(chunk: Chunk) -> Iterator[str]:
    """Pages, lines and timestamps: both ends or neither, pages and lines 1-based, in order."""
    for kind, first, last in (
        ("page", chunk.page_start, chunk.page_end),
        ("line", chunk.line_start, chunk.line_end),
    ):
        if (first is None) != (last is None):
            yield f"{kind}_start and {kind}_end must both be present or absent"
        elif first is not None and last is not None and not 1 <= first <= last:
            yield f"{kind}s {first}-{last} are not in order"
    first_time, last_time = chunk.timestamp_start, chunk.timestamp_end
    if (first_time is None) != (last_time is None):
        yield "timestamp_start and timestamp_end must both be present or absent"
    elif first_time is not None and last_time is not None and not 0 <= first_time <= last_time:
        yield f"timestamps {first_time}-{last_time} are not in order"


def _check_sizes(chunks: Sequence[Chunk], limits: Limits) -> Iterator[_Found]:
    """SPEC §3.3: the text fits the size limit, and so does the context that will be embedded.

    A context may exceed it only when the chunk says so (``metadata.context_oversize``: a
    repeated table header or label too large to count); its breadcrumb + text still fit. The
    one chunk allowed over the limit is a single code point, flagged ``oversize``; the flag on
    any other chunk is a violation too (it would hide an oversize chunk from readers).
    """
    if limits.size is None:
        return
    for position, chunk in enumerate(chunks):
        measured = [("text", chunk.text)]
        if chunk.context is not None and not chunk.metadata.get("context_oversize"):
            measured.append(("context", chunk.context))
        elif limits.contextualize:
            measured.append(("breadcrumb + text", format_breadcrumb(chunk.headings) + chunk.text))
        sizes = [(name, limits.measure.count(text)) for name, text in measured]
        over = [(name, size) for name, size in sizes if size > limits.size]
        own = sizes[0][1]
        if chunk.tokens is not None and not limits.measure.is_length and chunk.tokens != own:
            message = f"tokens is {chunk.tokens}, its text encodes alone to {own}"
            yield (position, 1), f"{_name(chunk)}: {message}"
        if chunk.metadata.get("oversize"):
            if chunk.end - chunk.start != 1 or not over:
                yield (
                    (position, 1),
                    (
                        f"{_name(chunk)}: flagged oversize, but it is not one code point "
                        f"over the size limit {limits.size}"
                    ),
                )
            continue  # one code point is indivisible; flagged for the user
        for name, size in over:
            yield (
                (position, 1),
                (
                    f"{_name(chunk)}: its {name} has {size} {limits.measure.name}, over the size "
                    f"limit {limits.size}"
                ),
            )


def _check_contexts(chunks: Sequence[Chunk], limits: Limits) -> Iterator[_Found]:
    """A context is the breadcrumb (with ``--contextualize``), a prefix, then the text."""
    for position, chunk in enumerate(chunks):
        if chunk.context is None:
            if limits.contextualize:
                yield (position, 2), f"{_name(chunk)}: has no context"
            continue
        lead = format_breadcrumb(chunk.headings) if limits.contextualize else ""
        if not chunk.context.startswith(lead) or not chunk.context.endswith(chunk.text):
            yield (position, 2), f"{_name(chunk)}: its context is not breadcrumb + prefix + text"


def _check_sentence_counts(
    doc: Document, chunks: Sequence[Chunk], limits: Limits
) -> Iterator[_Found]:
    """Sentence-count mode: at most ``limits.sentences`` sentences in a chunk."""
    if limits.sentences is None:
        return
    for position, chunk in enumerate(chunks):
        count = len(split_sentences(doc.text, chunk.start, chunk.end, language=limits.language))
        if count > limits.sentences:
            yield (
                (position, 3),
                (f"{_name(chunk)}: holds {count} sentences, more than {limits.sentences}"),
            )


def _check_coverage(
    doc: Document, chunks: Sequence[Chunk], dropped: Sequence[Dropped]
) -> Iterator[_Found]:
    """SPEC §3.2: every non-whitespace character lies in some chunk's span (the first lost).

    Characters inside a reported dropped span are not looked for.
    """
    covered_to = 0
    spans = sorted((c.start, c.end, position) for position, c in enumerate(chunks))
    gaps = [(d.start, d.end) for d in dropped]
    for start, end, position in spans:
        lost = _search_outside(doc.text, covered_to, max(covered_to, start), gaps)
        if lost is not None:
            yield (position, -1), _lost(lost)
            return
        covered_to = max(covered_to, end)
    lost = _search_outside(doc.text, covered_to, len(doc.text), gaps)
    if lost is not None:
        yield (len(chunks), -1), _lost(lost)


def _search_outside(
    text: str, start: int, end: int, gaps: Sequence[tuple[int, int]]
) -> re.Match[str] | None:
    """Return the first non-whitespace in ``text[start:end]`` outside every gap, or None."""
    position = start
    while position < end:
        match = _NON_SPACE.search(text, position, end)
        if match is None:
            return None
        gap_end = next((e for s, e in gaps if s <= match.start() < e), None)
        if gap_end is None:
            return match
        position = gap_end
    return None


def _check_dropped(
    doc: Document, chunks: Sequence[Chunk], dropped: Sequence[Dropped], limits: Limits
) -> Iterator[_Found]:
    """SPEC §3.2: a dropped span is reported by a template only, and no chunk holds its text."""
    if dropped and not limits.drops:
        yield (0, -1), f"the strategy dropped {len(dropped)} span(s) but may drop no text"
    for span in dropped:
        if not 0 <= span.start <= span.end <= len(doc.text):
            yield (0, -1), f"dropped span [{span.start}:{span.end}] lies outside the document"
            continue
        for position, chunk in enumerate(chunks):
            start, end = max(chunk.start, span.start), min(chunk.end, span.end)
            if start < end and _NON_SPACE.search(doc.text, start, end):
                yield (
                    (position, -1),
                    f"{_name(chunk)}: holds text of the dropped {span.reason} "
                    f"[{span.start}:{span.end}]",
                )


def _lost(match: re.Match[str]) -> str:
    return f"character {match.start()} ({match.group()!r}) lies in no chunk"


def _check_overlaps(doc: Document, chunks: Sequence[Chunk], limits: Limits) -> Iterator[_Found]:
    """SPEC §3.5: consecutive chunks share at most the overlap, starting on a boundary."""
    text = doc.text
    for position in range(1, len(chunks)):
        before, after = chunks[position - 1], chunks[position]
        start = after.start
        if _rewrites_of_one_source(before, after):
            continue  # propositions of a passage (and the passage) share its span by design
        if start >= before.end or not 0 < start < len(text):
            continue  # no overlap, or a span the record checks already report
        name = f"chunks {before.index} and {after.index}"
        for message in _check_shared(doc, start, before.end, name, limits):
            yield (position, 5), message
        if not is_grapheme_boundary(text, start) and _has_grapheme_boundary(
            text, start, before.end
        ):
            yield (position, 5), f"{name}: the overlap begins inside a grapheme cluster at {start}"
        inside_word = text[start - 1].isalnum() and text[start].isalnum()
        if limits.word_aligned and inside_word and has_space(text, start, before.end):
            yield (position, 5), f"{name}: the overlap begins inside a word at {start}"


def _rewrites_of_one_source(before: Chunk, after: Chunk) -> bool:
    kinds = (before.metadata.get("kind"), after.metadata.get("kind"))
    same = (before.start, before.end) == (after.start, after.end)
    return any(kind in REWRITE_KINDS for kind in kinds) or (same and "passage" in kinds)


def _check_shared(doc: Document, start: int, end: int, name: str, limits: Limits) -> list[str]:
    """SPEC §3.5: the shared text is within the overlap, in units or in whole sentences."""
    if limits.overlap_sentences is not None:
        shared = len(split_sentences(doc.text, start, end, language=limits.language))
        if shared > limits.overlap_sentences:
            return [f"{name} share {shared} sentences, more than {limits.overlap_sentences}"]
        return []
    shared = limits.measure.count(doc.text[start:end])
    if shared > limits.overlap:
        return [f"{name} share {shared} {limits.measure.name}, more than {limits.overlap}"]
    return []


def _has_grapheme_boundary(text: str, start: int, end: int) -> bool:
    return any(is_grapheme_boundary(text, p) for p in range(start + 1, end))
