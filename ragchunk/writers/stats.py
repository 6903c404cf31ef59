"""Summaries of chunk sizes: count, min/median/max and totals, per run."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text


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
    table = Table(title=Text(title), title_justify="left")
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
