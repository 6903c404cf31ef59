"""The invariant checker: every point of SPEC §3 for one document and its chunks.

The test suite and ``ragchunk split --check`` both call ``find_violations``; each violation is
one sentence naming the chunk and the rule it breaks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Final

from ragchunk.text.boundaries import has_space, is_grapheme_boundary
from ragchunk.text.breadcrumb import format_breadcrumb
from ragchunk.text.sentences import split_sentences

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.measure import Measure
    from ragchunk.model import Chunk, Document

_NON_SPACE: Final = re.compile(r"\S")


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
    """

    size: int | None
    overlap: int
    measure: Measure
    word_aligned: bool = True
    sentences: int | None = None
    overlap_sentences: int | None = None
    contextualize: bool = False


def find_violations(doc: Document, chunks: Sequence[Chunk], limits: Limits) -> list[str]:
    """Return every violation of SPEC §3 found, in chunk order; empty when the contract holds."""
    problems: list[str] = []
    problems += _check_records(doc, chunks)
    problems += _check_sizes(chunks, limits)
    problems += _check_contexts(chunks, limits)
    problems += _check_sentence_counts(doc, chunks, limits)
    problems += _check_coverage(doc, chunks)
    problems += _check_overlaps(doc, chunks, limits)
    return problems


def _check_records(doc: Document, chunks: Sequence[Chunk]) -> list[str]:
    problems = []
    previous_start = 0
    for position, chunk in enumerate(chunks):
        name = f"chunk {chunk.index} [{chunk.start}:{chunk.end}]"
        if chunk.index != position:
            problems.append(f"{name}: index {chunk.index} where {position} was expected")
        if not 0 <= chunk.start < chunk.end <= len(doc.text):
            problems.append(f"{name}: span outside the document (length {len(doc.text)})")
        verbatim = chunk.metadata.get("kind") == "proposition"
        if not verbatim and chunk.text != doc.text[chunk.start : chunk.end]:
            problems.append(f"{name}: text differs from document.text[start:end]")
        if chunk.chars != chunk.end - chunk.start and not verbatim:
            problems.append(
                f"{name}: chars is {chunk.chars}, the span holds {chunk.end - chunk.start}"
            )
        if chunk.start < previous_start:
            problems.append(f"{name}: starts before the previous chunk ({previous_start})")
        if (chunk.page_start is None) != (chunk.page_end is None):
            problems.append(f"{name}: page_start and page_end must both be present or absent")
        previous_start = chunk.start
    return problems


def _check_sizes(chunks: Sequence[Chunk], limits: Limits) -> list[str]:
    """SPEC §3.3: the text fits the size limit, and so does the context that will be embedded.

    A context may exceed it only when the chunk says so (``metadata.context_oversize``: a
    repeated table header or label too large to count); its breadcrumb + text still fit.
    """
    if limits.size is None:
        return []
    problems = []
    for chunk in chunks:
        if chunk.metadata.get("oversize") and chunk.end - chunk.start == 1:
            continue  # one code point is indivisible; flagged for the user
        measured = [("text", chunk.text)]
        if chunk.context is not None and not chunk.metadata.get("context_oversize"):
            measured.append(("context", chunk.context))
        elif limits.contextualize:
            measured.append(("breadcrumb + text", format_breadcrumb(chunk.headings) + chunk.text))
        for name, text in measured:
            size = limits.measure.count(text)
            if size > limits.size:
                problems.append(
                    f"chunk {chunk.index} [{chunk.start}:{chunk.end}]: its {name} has {size} "
                    f"{limits.measure.name}, over the size limit {limits.size}"
                )
    return problems


def _check_contexts(chunks: Sequence[Chunk], limits: Limits) -> list[str]:
    """A context is the breadcrumb (with ``--contextualize``), a prefix, then the text."""
    problems = []
    for chunk in chunks:
        name = f"chunk {chunk.index} [{chunk.start}:{chunk.end}]"
        if chunk.context is None:
            if limits.contextualize:
                problems.append(f"{name}: has no context")
            continue
        lead = format_breadcrumb(chunk.headings) if limits.contextualize else ""
        if not chunk.context.startswith(lead) or not chunk.context.endswith(chunk.text):
            problems.append(f"{name}: its context is not breadcrumb + prefix + text")
    return problems


def _check_sentence_counts(doc: Document, chunks: Sequence[Chunk], limits: Limits) -> list[str]:
    """Sentence-count mode: at most ``limits.sentences`` sentences in a chunk."""
    if limits.sentences is None:
        return []
    problems = []
    for chunk in chunks:
        count = len(split_sentences(doc.text, chunk.start, chunk.end))
        if count > limits.sentences:
            problems.append(
                f"chunk {chunk.index} [{chunk.start}:{chunk.end}]: holds {count} sentences, "
                f"more than {limits.sentences}"
            )
    return problems


def _check_coverage(doc: Document, chunks: Sequence[Chunk]) -> list[str]:
    """SPEC §3.2: every non-whitespace character lies in some chunk's span."""
    covered_to = 0
    for start, end in sorted((c.start, c.end) for c in chunks):
        if start > covered_to:
            lost = _NON_SPACE.search(doc.text, covered_to, start)
            if lost is not None:
                return [f"character {lost.start()} ({lost.group()!r}) lies in no chunk"]
        covered_to = max(covered_to, end)
    lost = _NON_SPACE.search(doc.text, covered_to)
    if lost is not None:
        return [f"character {lost.start()} ({lost.group()!r}) lies in no chunk"]
    return []


def _check_overlaps(doc: Document, chunks: Sequence[Chunk], limits: Limits) -> list[str]:
    problems = []
    text = doc.text
    for before, after in pairwise(chunks):
        if after.start >= before.end:
            continue
        name = f"chunks {before.index} and {after.index}"
        problems += _check_shared(doc, after.start, before.end, name, limits)
        start = after.start
        if not is_grapheme_boundary(text, start) and _has_grapheme_boundary(
            text, start, before.end
        ):
            problems.append(f"{name}: the overlap begins inside a grapheme cluster at {start}")
        inside_word = text[start - 1].isalnum() and text[start].isalnum()
        if limits.word_aligned and inside_word and has_space(text, start, before.end):
            problems.append(f"{name}: the overlap begins inside a word at {start}")
    return problems


def _check_shared(doc: Document, start: int, end: int, name: str, limits: Limits) -> list[str]:
    """SPEC §3.5: the shared text is within the overlap, in units or in whole sentences."""
    if limits.overlap_sentences is not None:
        shared = len(split_sentences(doc.text, start, end))
        if shared > limits.overlap_sentences:
            return [f"{name} share {shared} sentences, more than {limits.overlap_sentences}"]
        return []
    shared = limits.measure.count(doc.text[start:end])
    if shared > limits.overlap:
        return [f"{name} share {shared} {limits.measure.name}, more than {limits.overlap}"]
    return []


def _has_grapheme_boundary(text: str, start: int, end: int) -> bool:
    return any(is_grapheme_boundary(text, p) for p in range(start + 1, end))
