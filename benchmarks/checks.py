"""Correctness checks run on every contestant's output (untimed): offsets, size limit, loss.

Every contestant's native output is first turned into ``Piece``s (the chunk's text plus the
offsets the library reported, if any). Then:

- ``check_offsets``: with start and end, a chunk is exact when ``text[start:end] == chunk``;
  with a start only (langchain's ``add_start_index``), when ``text[start:start + len(chunk)]``
  is the chunk; with no offsets, we only look whether each chunk occurs verbatim in the text,
  in order (searching forward from the previous chunk's start).
- ``count_over``: how many chunks are larger than the size, each measured alone in the unit
  (characters, or tokens of the chunk's own encoding).
- ``count_lost``: non-whitespace characters of the text outside every reported span (SPEC §3.2),
  only when all offsets are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Offsets = Literal["span", "start", "none"]


@dataclass(frozen=True, slots=True)
class Piece:
    """One chunk as a contestant returned it: its text and the offsets it reported."""

    text: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True)
class OffsetReport:
    """How far a contestant's offsets can be trusted.

    Attributes:
        mode: what the library reports: a span, a start only, or nothing.
        exact: chunks whose reported offsets slice out exactly their text (for ``none``: chunks
            found verbatim, in order).
        total: chunks checked.
    """

    mode: Offsets
    exact: int
    total: int

    @property
    def is_exact(self) -> bool:
        """Whether every chunk's offsets (or verbatim text) checked out."""
        return self.exact == self.total

    def describe(self) -> str:
        """Return the verdict in words, for the results table."""
        share = f"{100 * self.exact / self.total:.1f} %" if self.total else "–"
        wrong = self.total - self.exact
        if self.mode == "span":
            return "exact" if self.is_exact else f"{share} exact ({wrong:,} wrong)"
        if self.mode == "start":
            verdict = "all right" if self.is_exact else f"{share} right ({wrong:,} wrong)"
            return f"start only: {verdict}"
        verdict = "all verbatim" if self.is_exact else f"{share} verbatim"
        return f"no offsets ({verdict})"


def check_offsets(text: str, pieces: Sequence[Piece], mode: Offsets) -> OffsetReport:
    """Check every piece's offsets against ``text`` (see the module docstring)."""
    if mode == "span":
        exact = sum(
            p.start is not None and p.end is not None and text[p.start : p.end] == p.text
            for p in pieces
        )
    elif mode == "start":
        exact = sum(
            p.start is not None and text[p.start : p.start + len(p.text)] == p.text for p in pieces
        )
    else:
        exact = _count_in_order(text, pieces)
    return OffsetReport(mode=mode, exact=exact, total=len(pieces))


def _count_in_order(text: str, pieces: Sequence[Piece]) -> int:
    """Count pieces found verbatim in ``text``, each after the previous found one's start."""
    cursor = 0
    found = 0
    for piece in pieces:
        at = text.find(piece.text, cursor)
        if at >= 0:
            found += 1
            cursor = at + 1
    return found


@dataclass(frozen=True, slots=True)
class SizeReport:
    """Chunks larger than the size limit, each measured alone in the unit."""

    over: int
    largest: int


def count_over(pieces: Sequence[Piece], size: int, measure: Callable[[str], int]) -> SizeReport:
    """Count pieces whose text measures more than ``size`` when measured alone."""
    sizes = [measure(p.text) for p in pieces]
    return SizeReport(over=sum(s > size for s in sizes), largest=max(sizes, default=0))


def count_lost(text: str, pieces: Sequence[Piece]) -> int:
    """Return how many non-whitespace characters of ``text`` lie outside every piece's span.

    Raises:
        ValueError: a piece has no span (the count needs offsets).
    """
    spans = sorted((p.start, p.end) for p in pieces if p.start is not None and p.end is not None)
    if len(spans) != len(pieces):
        raise ValueError("count_lost needs a start and an end for every piece")
    lost = 0
    covered = 0
    for start, end in spans:
        if start > covered:
            lost += _non_blank(text, covered, start)
        covered = max(covered, end)
    return lost + _non_blank(text, covered, len(text))


def _non_blank(text: str, start: int, end: int) -> int:
    gap = text[start:end]
    return len(gap) - sum(map(str.isspace, gap))
