"""Headings from font sizes, for PDFs without an outline.

The body size is the size most characters are set in. A line set ``HEADING_RATIO`` times larger
(or more) is a heading, unless it continues a sentence (it starts in lowercase after a line of
its size that does not end one), ends like a clause (``,`` ``;``), is printed at an angle, or is
too long to be a title (more than ``MAX_HEADING_LINES`` lines or ``MAX_HEADING_CHARS``). Running
headers and footers are gone before this runs, so their size never counts. Consecutive heading
lines of one size are one heading (a wrapped title, or a section number on a line of its own).
Sizes rank the headings: the largest is level 1.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Final

from ragchunk.parsers._builder import HeadingPath
from ragchunk.parsers.pdf.lines import Heading

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.parsers.pdf.lines import Line, PageLines

HEADING_RATIO: Final = 1.05
"""A line whose font is this many times the body size (or more) may be a heading."""
MAX_HEADING_CHARS: Final = 200
MAX_HEADING_LINES: Final = 3
_SENTENCE_END: Final = re.compile(r"[.!?:;]['\")\]]*$")
_CLAUSE_END: Final = re.compile(r"[,;]$")


def font_headings(pages: Sequence[PageLines]) -> list[Heading]:
    """Return the headings found by font size, in text order, with their paths."""
    body = _body_size(pages)
    if body is None:
        return []
    found: list[tuple[int, int, int, float]] = []  # page, first line, last line, size
    for number, page in enumerate(pages):
        lines = page.lines
        for index, line in enumerate(lines):
            if not _is_large(line, body):
                continue
            previous = found[-1] if found else None
            if (
                previous is not None
                and previous[0] == number
                and previous[2] == index - 1
                and abs(previous[3] - line.size) < 0.5
            ):  # the next line of a heading: a wrapped title, or the title after its number
                found[-1] = (number, previous[1], index, previous[3])
            elif not _continues(line, lines[index - 1] if index else None):
                found.append((number, index, index, line.size))
    found = [f for f in found if _is_title(pages[f[0]].lines[f[1] : f[2] + 1])]
    ranks = {size: rank for rank, size in enumerate(sorted({f[3] for f in found}, reverse=True))}
    headings: list[Heading] = []
    path = HeadingPath()
    for number, first, last, size in found:
        lines = pages[number].lines[first : last + 1]
        path.enter(ranks[size], " ".join(" ".join(line.text for line in lines).split()))
        headings.append(Heading(number, first, last, path.titles()))
    return headings


def _is_title(lines: Sequence[Line]) -> bool:
    """Return whether a run of large lines is short enough for a title (not a paragraph)."""
    return len(lines) <= MAX_HEADING_LINES and sum(len(line.text) for line in lines) <= (
        MAX_HEADING_CHARS
    )


def _body_size(pages: Sequence[PageLines]) -> float | None:
    weights: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            if line.size > 0:
                weights[line.size] += len(line.text)
    return weights.most_common(1)[0][0] if weights else None


def _is_large(line: Line, body: float) -> bool:
    """Return whether a line is set large enough for a heading and could be one."""
    text = line.text
    if line.size < body * HEADING_RATIO or line.rotated or len(text) > MAX_HEADING_CHARS:
        return False
    return not _CLAUSE_END.search(text)


def _continues(line: Line, before: Line | None) -> bool:
    """Return whether a line goes on with the sentence of the (not heading) line above."""
    return (
        before is not None
        and abs(before.size - line.size) < 0.5
        and not _SENTENCE_END.search(before.text)
        and line.text[:1].islower()
    )
