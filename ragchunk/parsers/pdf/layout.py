"""The document text of a PDF from its cleaned lines: pages, paragraphs, headings, wraps.

Each page's lines are joined, pages with ``PAGE_SEPARATOR``; offsets are exact into that text,
since it is built here. Between two lines is either a break (a paragraph ends, a heading
begins, a table row or list item ends), kept as a line feed, or a wrap inside a paragraph (or a
heading), written as a space: the paragraph reads as one line (``reflow=False``, from
``--keep linebreaks``, keeps a line feed there and lists it in ``Document.wraps``). A break
between two lines is a wrap when the second continues the first: it starts in lowercase, or
the first line is full (the second's first word would not have fit on it, measured against the
lines around it), or the first ends mid-sentence in the second's column and size, with no
paragraph gap, first-line indent, change of font size, table row or list item between them.
A page turn inside a paragraph, and the line feed after a heading (a heading stays with what
it heads), keep their line feeds and go to ``Document.wraps``, so chunk boundaries rank them
as spaces. Sections: a heading per heading, a ``prose`` section per paragraph, a ``table``
section per ruled table (``tables``: its rows are lines of their own, never wraps).
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Final

from ragchunk.model import PAGE_SEPARATOR, Page, Section
from ragchunk.parsers._builder import LINE_SEPARATOR, TextBuilder
from ragchunk.parsers.pdf.tables import table_sections

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.parsers.pdf.lines import Heading, Line, PageLines

PARAGRAPH_GAP: Final = 1.3
"""A line spaced this many times the page's usual line pitch (or more) starts a paragraph."""
INDENT: Final = 0.8
"""A line starting this many ems right of the line above starts a paragraph."""
NEIGHBOURS: Final = 3
"""Lines above and below that show how wide a line's column is."""
SLACK: Final = 0.12
"""A line mid-sentence that reaches this share of its column's width from its edge runs on."""
_RUNS_ON: Final = re.compile(r"^(?!.*\. \. \.)(?:\S+ ){4,}.*\b[^\W\d_A-Z]+,?$")
_LABEL: Final = re.compile(r"^\S+:(?:\s|$)")
_BROKEN: Final = re.compile(r"\w-$")
"""A line ending in a hyphen that cleaning left (``--keep hyphens``): its wrap stays a line feed."""
_SENTENCE_END: Final = re.compile(r"[.!?:;]['\")\]\u2019\u201d]*$")
_LIST_MARK: Final = re.compile(
    r"[\u2022\u2023\u25a0\u25aa\u25e6\u2666\u2714\u2756\u27a2\u2013\u2014*\uf0b7-]\s|\d{1,3}[.)]\s|[a-z][.)]\s|\([a-z0-9]{1,4}\)\s"
)


@dataclass(frozen=True, slots=True)
class Layout:
    """The document's text and what is known of it (see the module docstring)."""

    text: str
    pages: tuple[Page, ...]
    sections: tuple[Section, ...]
    wraps: tuple[int, ...]


def build(
    pages: Sequence[PageLines], headings: Sequence[Heading], *, reflow: bool = True
) -> Layout:
    """Return the text, page map, sections and wraps of the cleaned ``pages``.

    ``reflow``: a wrap inside a paragraph or heading becomes a space (else a listed line feed).
    """
    inside = {(h.page, k): h for h in headings for k in range(h.first, h.last + 1)}
    starts = {(h.page, h.first) for h in headings}
    builder = TextBuilder()
    offsets: list[list[tuple[int, int]]] = []
    wraps: list[int] = []
    joins: set[int] = set()  # every position between two lines of one paragraph
    for number, page in enumerate(pages):
        if number and _turn_wraps(pages, number, inside, starts):
            wraps += [builder.length, builder.length + 1]
            joins.add(builder.length)
        builder.open_page(PAGE_SEPARATOR if number else "")
        soft = _wrapping_breaks(page, number, inside, starts)
        spans = []
        for index, line in enumerate(page.lines):
            separator = LINE_SEPARATOR if index else ""
            if index and soft[index - 1] is not None:
                joins.add(builder.length)
                broken = _BROKEN.search(page.lines[index - 1].text)  # a kept hyphen
                if reflow and soft[index - 1] == _SPACE and not broken:
                    separator = " "
                else:
                    wraps.append(builder.length)
            start = builder.add(line.text, separator)
            spans.append((start, builder.length))
        offsets.append(spans)
        builder.close_page(number + 1, keep_empty=True)  # a blank page still has its number
    sections = _sections(offsets, headings, joins)
    sections = table_sections(sections, pages, offsets)  # tables.py: row lines into a table
    return Layout(builder.text(), tuple(builder.pages), tuple(sections), tuple(wraps))


_SPACE: Final = "space"
"""A wrap inside a paragraph or a heading: written as a space when reflowing."""
_KEPT: Final = "kept"
"""A heading that goes on into what it heads: its line feed stays, listed as a wrap."""


def _wrapping_breaks(
    page: PageLines,
    number: int,
    inside: dict[tuple[int, int], Heading],
    starts: set[tuple[int, int]],
) -> list[str | None]:
    """Return, for each line but the last, the wrap after it (``_SPACE``, ``_KEPT``) or None."""
    lines = page.lines
    pitches = _pitches(lines)
    soft: list[str | None] = []
    for index in range(len(lines) - 1):
        here, after = inside.get((number, index)), inside.get((number, index + 1))
        if here is not None and after is not None:
            soft.append(_SPACE if here is after else _KEPT)  # a heading above its subheading
        elif (number, index + 1) in starts:
            soft.append(None)
        elif here is not None:
            soft.append(_KEPT)  # the line after a heading stays with it
        else:
            soft.append(_SPACE if is_wrap(lines, index, pitches.get(lines[index].size)) else None)
    return soft


def _turn_wraps(
    pages: Sequence[PageLines],
    number: int,
    inside: dict[tuple[int, int], Heading],
    starts: set[tuple[int, int]],
) -> bool:
    """Return whether a paragraph (or a heading) goes on across the turn to page ``number``."""
    before, after = pages[number - 1].lines, pages[number].lines
    if not before or not after or (number, 0) in starts:
        return False
    if (number - 1, len(before) - 1) in inside:
        return True
    above, below = before[-1], after[0]
    if above.spaced or below.spaced or _LIST_MARK.match(below.text):
        return False
    return below.text[:1].islower() or not _SENTENCE_END.search(above.text)


def is_wrap(lines: Sequence[Line], index: int, pitch: float | None) -> bool:
    """Return whether the line feed after ``lines[index]`` only wraps a paragraph."""
    above, below = lines[index], lines[index + 1]
    if above.rotated or below.rotated or above.spaced:
        return False
    if below.spaced and not (below.text[:1].islower() and not _SENTENCE_END.search(above.text)):
        return False  # a gap in a line that goes on in lowercase is a wide word space (pypdf)
    if _LIST_MARK.match(below.text) or (above.size and abs(above.size - below.size) > 0.5):
        return False
    if not (above.placed and below.placed):
        return below.text[:1].islower() or not _SENTENCE_END.search(above.text)
    step = below.top - above.top
    if step > 0 and pitch is not None and step > pitch * PARAGRAPH_GAP:
        return False
    if below.text[:1].islower():
        return True
    if step > 0 and below.left - above.left > INDENT * max(above.size, 1.0):
        return False
    return _is_full(lines, index)


def _is_full(lines: Sequence[Line], index: int) -> bool:
    """Return whether the next line's first word would not have fit at the end of this one."""
    line, below = lines[index], lines[index + 1]
    size = max(line.size, 1.0)
    nearby = lines[max(0, index - NEIGHBOURS) : index + NEIGHBOURS + 1]
    column = max(
        other.right
        for other in nearby
        if abs(other.left - line.left) <= 2 * size
        and abs(other.size - line.size) < 0.5
        and not other.spaced
    )
    width = (below.right - below.left) / max(len(below.text), 1)
    word = below.text.split(" ", 1)[0]
    if line.right + (len(word) + 1) * width > column - 0.2 * size:
        return True
    # A line of prose that stops mid-sentence, on a lowercase word, near its column's edge runs
    # on, even where the widths are estimates (pypdf) a word or two off; a table row ends in a
    # number or a name instead, and a ``Label:`` line starts an item.
    if not _RUNS_ON.search(line.text) or _LABEL.match(below.text):
        return False
    return line.right > column - SLACK * (column - line.left)


def _pitches(lines: Sequence[Line]) -> dict[float, float]:
    """Return the usual distance between the tops of consecutive lines, per font size."""
    steps: dict[float, list[float]] = {}
    for above, below in pairwise(lines):
        step = below.top - above.top
        if above.placed and below.placed and above.size == below.size and 0 < step < 3 * above.size:
            steps.setdefault(above.size, []).append(step)
    return {size: statistics.median(values) for size, values in steps.items()}


def _sections(
    offsets: Sequence[Sequence[tuple[int, int]]],
    headings: Sequence[Heading],
    wraps: set[int],
) -> list[Section]:
    """Return a heading section per heading and a prose section per paragraph, in order."""
    by_start: dict[tuple[int, int], list[Heading]] = {}
    for heading in headings:
        by_start.setdefault((heading.page, heading.first), []).append(heading)
    heading_lines = {(h.page, k) for h in headings for k in range(h.first, h.last + 1)}
    sections: list[Section] = []
    path: tuple[str, ...] = ()
    paragraph: tuple[int, int] | None = None
    for number, spans in enumerate(offsets):
        for index in range(len(spans) + 1):
            for heading in by_start.get((number, index), []):
                if paragraph is not None:
                    sections.append(Section(*paragraph, "prose", path))
                    paragraph = None
                path = heading.path
                if heading.last >= heading.first:
                    start, end = spans[heading.first][0], spans[heading.last][1]
                    sections.append(Section(start, end, "heading", path, len(path)))
            if index == len(spans) or (number, index) in heading_lines:
                continue
            start, end = spans[index]
            if paragraph is not None and paragraph[1] in wraps:
                paragraph = (paragraph[0], end)
            else:
                if paragraph is not None:
                    sections.append(Section(*paragraph, "prose", path))
                paragraph = (start, end)
    if paragraph is not None:
        sections.append(Section(*paragraph, "prose", path))
    return sections
