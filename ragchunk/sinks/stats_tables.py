"""The summaries of ``split --stats`` and ``ragchunk stats`` as rich tables.

Sizes (count, min/median/p95/max), a histogram, documents, structure, chunks over the limit and
dropped text, from the counts of ``writers/stats.py``.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ragchunk.text.printable import one_line

if TYPE_CHECKING:
    from ragchunk.model import Dropped
    from ragchunk.sinks.stats import ChunkStats

_BAR_WIDTH: Final = 40


@dataclass(frozen=True, slots=True)
class SizeSummary:
    """Count and spread of one size measure over a set of chunks."""

    count: int
    minimum: int
    median: float
    p95: int
    maximum: int
    total: int

    @classmethod
    def of(cls, sizes: Sequence[int]) -> SizeSummary | None:
        """Return the summary of ``sizes``, or None when there are none."""
        if not sizes:
            return None
        ordered = sorted(sizes)
        p95 = ordered[min(len(ordered) - 1, max(0, -(-95 * len(ordered) // 100) - 1))]
        return cls(
            len(ordered), ordered[0], statistics.median(ordered), p95, ordered[-1], sum(ordered)
        )


def build(rows: Iterable[tuple[str, SizeSummary | None]], title: str) -> Table:
    """Return a table with one row per measure (chars, tokens)."""
    table = Table(title=Text(one_line(title)), title_justify="left")
    for name in ("unit", "chunks", "min", "median", "p95", "max", "total"):
        table.add_column(name, justify="left" if name == "unit" else "right")
    for unit, summary in rows:
        if summary is None:
            table.add_row(unit, "0", "–", "–", "–", "–", "0")
            continue
        median = f"{summary.median:g}"
        table.add_row(
            unit,
            str(summary.count),
            str(summary.minimum),
            median,
            str(summary.p95),
            str(summary.maximum),
            str(summary.total),
        )
    return table


def histogram(sizes: Sequence[int], *, bins: int = 10) -> list[tuple[int, int, int]]:
    """Return ``(low, high, count)`` rows covering ``sizes`` in bins of a round width.

    Each bin holds the sizes ``low <= size <= high``; the width is 1, 2 or 5 times a power of
    ten, the smallest that needs at most ``bins`` bins from the smallest size to the largest.
    """
    if not sizes:
        return []
    low, high = min(sizes), max(sizes)
    width = _round_width(max(1, -(-(high - low + 1) // bins)))
    first = low // width * width
    counts = [0] * ((high - first) // width + 1)
    for size in sizes:
        counts[(size - first) // width] += 1
    return [(first + k * width, first + (k + 1) * width - 1, n) for k, n in enumerate(counts)]


def _round_width(minimum: int) -> int:
    scale = 1
    while True:
        for step in (1, 2, 5):
            if step * scale >= minimum:
                return step * scale
        scale *= 10


def build_histogram(sizes: Sequence[int], unit: str, *, limit: int | None = None) -> Table:
    """Return the histogram of ``sizes`` as a table with a bar per bin."""
    rows = histogram(sizes)
    table = Table(title=Text(f"size histogram ({unit})"), title_justify="left", box=None)
    table.add_column(unit, justify="right", no_wrap=True)
    table.add_column("chunks", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    peak = max((n for _, _, n in rows), default=0)
    for low, high, n in rows:
        bar = "█" * (round(n / peak * _BAR_WIDTH) if peak else 0) or ("▏" if n else "")
        over = limit is not None and high > limit
        table.add_row(f"{low}–{high}", str(n), Text(bar, style="red" if over else "cyan"))
    return table


def build_documents(stats: ChunkStats, *, top: int) -> Group:
    """Return the per-document table: the ``top`` documents with the most chunks."""
    ranked = sorted(stats.documents.items(), key=lambda item: (-item[1][0], item[0]))
    shown = ranked if top <= 0 else ranked[:top]
    total = len(stats.documents)
    per = SizeSummary.of([chunks for chunks, _ in stats.documents.values()])
    title = f"{total} document(s)"
    if per is not None:
        title += (
            f"; chunks per document: min {per.minimum}, median {per.median:g}, max {per.maximum}"
        )
    if len(shown) < total:
        title += f"; the {len(shown)} with the most chunks"
    table = Table()
    table.add_column("doc_id")
    table.add_column("chunks", justify="right")
    table.add_column("chars", justify="right")
    for doc_id, (chunks, chars) in shown:
        table.add_row(Text(one_line(doc_id)), str(chunks), str(chars))
    return Group(Text(one_line(title)), table)


def describe_structure(stats: ChunkStats) -> list[str]:
    """Return one line each on pages, headings and overlaps."""
    count = stats.count
    if stats.paged:
        pages = (
            f"pages: {stats.paged} of {count} chunks carry pages, "
            f"{stats.multi_page} span more than one; last page {stats.last_page}"
        )
    else:
        pages = "pages: none (no paged inputs)"
    if stats.headed:
        headings = (
            f"headings: {stats.headed} of {count} chunks sit under a heading; "
            f"{len(stats.heading_paths)} distinct path(s), deepest {stats.deepest}"
        )
    else:
        headings = "headings: none"
    overlap = SizeSummary.of(stats.overlaps)
    if overlap is None:
        overlaps = f"overlap: none between {stats.pairs} consecutive pair(s)"
    else:
        spread = (
            f"{overlap.minimum} chars"
            if overlap.minimum == overlap.maximum
            else f"{overlap.minimum}–{overlap.maximum} chars (median {overlap.median:g})"
        )
        overlaps = (
            f"overlap: {overlap.count} of {stats.pairs} consecutive pairs overlap, by {spread}"
        )
    lines = [pages, headings, overlaps]
    if stats.marked or stats.gaps:  # --dedupe: gaps say dropped chunks (not those at the end)
        lines.append(
            f"duplicates: {stats.marked} of {count} chunks marked duplicate_of an earlier "
            f"chunk; at least {stats.gaps} dropped by --dedupe (gaps in their document's index)"
        )
    return lines


def build_over(stats: ChunkStats) -> Group | Text:
    """Return the table of chunks over ``stats.limit``: the first few, and how many in all."""
    title = f"{stats.over_count} of {stats.count} chunks are over {stats.limit} {stats.unit}" + (
        f"; the first {len(stats.over)}" if stats.over_count > len(stats.over) else ""
    )
    table = Table()
    table.add_column("doc_id")
    table.add_column("index", justify="right")
    table.add_column(stats.unit, justify="right")
    for doc_id, index, size in stats.over:
        table.add_row(Text(one_line(doc_id)), str(index), str(size))
    return Group(Text(one_line(title)), table) if stats.over else Text(one_line(title))


def build_sizes(stats: ChunkStats) -> Table:
    """Return the size summary: one row per unit, titled with the chunk and document counts."""
    rows = [("chars", SizeSummary.of(stats.chars))]
    if stats.tokens:
        rows.append(("tokens", SizeSummary.of(stats.tokens)))
    tokens = [n for _, n in stats.parents if n is not None]
    if stats.parents:  # --parents: the parents' sizes below the chunks'
        rows.append(("parent chars", SizeSummary.of([n for n, _ in stats.parents])))
    if tokens:
        rows.append(("parent tokens", SizeSummary.of(tokens)))
    used = ", ".join(sorted(stats.strategies)) or "–"
    title = f"{stats.count} chunks from {len(stats.documents)} document(s) · strategy {used}"
    if stats.parents:
        title += f" · {len(stats.parents)} parents"
    return build(rows, title)


def build_dropped(stats: ChunkStats) -> Group | None:
    """Return the table of text templates dropped on purpose (SPEC §3.2), or None if none."""
    if not stats.dropped:
        return None
    total = sum(span.end - span.start for _, span in stats.dropped)
    documents = len({doc_id for doc_id, _ in stats.dropped})
    title = (
        f"dropped on purpose: {total} chars in {len(stats.dropped)} span(s) of "
        f"{documents} document(s)"
    )
    table = Table()
    table.add_column("doc_id")
    table.add_column("what")
    table.add_column("span", no_wrap=True)
    table.add_column("chars", justify="right")
    for doc_id, span in stats.dropped:
        table.add_row(
            Text(one_line(doc_id)),
            Text(one_line(span.reason)),
            f"{span.start}–{span.end}",
            str(span.end - span.start),
        )
    return Group(Text(one_line(title)), table)


def describe_dropped(dropped: Sequence[tuple[str, Dropped]]) -> str:
    """Return ``"1234 chars dropped (table of contents, index)"`` for one input's spans."""
    total = sum(span.end - span.start for _, span in dropped)
    reasons = ", ".join(dict.fromkeys(span.reason for _, span in dropped))
    return f"{total} chars dropped ({reasons})"
