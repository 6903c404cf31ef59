"""Tabular data as text: each row a section of ``column: value`` lines (CSV, TSV, XLSX).

A row reads one line per non-empty cell, ``column: value`` under a header and the bare value
without one; a value's own line breaks continue on lines indented by two spaces. Rows are
separated by a blank line. Each row is a section of kind ``row`` whose ``parts`` are its lines,
with ``metadata.row`` (its 1-based row number in the file or sheet), ``metadata.columns`` (the
column of each part, by name, else by 1-based number) and ``metadata.label`` (its first line,
which a strategy repeats before every piece of a row it must split). A column whose header cell
is blank has no name: its values stand alone, and its number names it in ``metadata.columns``.

A grid's layout is found by ``add_table``: rows of one cell above the table (a caption, a merged
title) are its heading; the header is one row of labels, or up to ``MAX_HEADER_ROWS`` rows of
labels (or one of rising years) above a body of numbers (a band ``Sales (a)`` over
``January–June 2023`` names the column ``Sales (a) › January–June 2023``); a row repeating the
header inside the body is not data (it is counted in ``repeated_headers``); a note below the
table (one long text cell, or one cell after an empty row, once the body has begun) is prose.
The text is built with ``_builder``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import JSONValue
    from ragchunk.parsers._builder import Span, TextBuilder

MAX_HEADER_ROWS: Final = 3
"""The most rows of labels read as one header above a body of numbers."""
NOTE_CHARS: Final = 40
"""A single text cell at least this long below a table of numbers is a note, not a row."""
JOIN: Final = " › "
"""Between the rows of a multi-row header in a column's name."""
_NEWLINES: Final = re.compile(r"\r\n?|\n")
_NUMBER: Final = re.compile(r"[-+]?\d+(?:[.,]\d+)?%?")
# A value, not a label: a number (signs, currency, separators, percent, a negative in brackets),
# a date or a time; no letters but an exponent.
_VALUE: Final = re.compile(
    r"[-+−(]?[$€£¥]?\s?\d[\d\s.,'’ :/-]*(?:[eE][-+]?\d+)?\s?%?\)?|[-—–.]{1,3}|n/?a",
    re.IGNORECASE,
)
_NOTE_LEAD: Final = re.compile(r"(?:notes?|sources?)\b|[*†‡]|\(?[a-z0-9]\)\s", re.IGNORECASE)
_SAMPLE: Final = 100
_YEAR: Final = re.compile(r"1[89]\d\d|20\d\d|2100")


def add_row(
    builder: TextBuilder, number: int, columns: Sequence[str] | None, values: Sequence[str]
) -> None:
    """Add one row as a section; a row whose cells are all empty adds nothing."""
    lines: list[str] = []
    names: list[JSONValue] = []
    for index, value in enumerate(values):
        value = value.strip()
        if not value:
            continue
        value = _NEWLINES.sub("\n  ", value)
        name = columns[index] if columns is not None and index < len(columns) else ""
        lines.append(f"{name}: {value}" if name else value)
        names.append(name or str(index + 1))
    if not lines:
        return
    spans: list[Span] = []
    for line in lines:
        builder.line(line, spans)
    metadata: dict[str, JSONValue] = {"row": number, "columns": names, "label": lines[0]}
    builder.record(spans[0][0], "row", metadata=metadata, parts=tuple(spans))


def name_columns(header: Sequence[str]) -> list[str]:
    """Return the header's cells as column names; a blank one is ``""`` (its values stand alone)."""
    return [" ".join(cell.split()) for cell in header]


def looks_like_header(first: Sequence[str], rest: Sequence[Sequence[str]]) -> bool:
    """Guess whether ``first`` names the columns of ``rest``.

    A header's cells are short labels: all filled, distinct, none a number, none ending like
    a sentence or a question, and none repeated in its column below.
    """
    cells = [cell.strip() for cell in first]
    if len(cells) < 2 or not all(cells) or len(set(cells)) < len(cells):
        return False
    for index, cell in enumerate(cells):
        if len(cell) > 60 or "\n" in cell or _NUMBER.fullmatch(cell) or cell[-1] in ".?!:":
            return False
        if any(index < len(row) and row[index].strip() == cell for row in rest[:_SAMPLE]):
            return False
    return True


def is_value(cell: str) -> bool:
    """Return whether a cell holds a number, a date, a time or a mark for none (``n/a``)."""
    return _VALUE.fullmatch(cell.strip()) is not None


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a grid's caption, header, body and notes are (row indices, half-open)."""

    titles: tuple[int, ...]
    header: tuple[int, int]
    columns: tuple[str, ...] | None


def find_layout(rows: Sequence[Sequence[str]], *, header: bool | None = None) -> Layout:
    """Return the layout of a grid: its caption rows, header rows and the column names.

    ``header`` True reads the first row as the header, False reads no header (nor caption),
    None guesses both.
    """
    if header is False or not rows:
        return Layout((), (0, 0), None)
    if header is True:
        return Layout((), (0, 1), tuple(name_columns(rows[0])))
    start, titles = 0, []
    while start < len(rows) and _titles_row(rows, start):
        if _filled(rows[start]):
            titles.append(start)
        start += 1
    end = _header_end(rows, start)
    if end == start:
        return Layout(tuple(titles), (start, start), None)
    width = max(len(row) for row in rows)
    return Layout(tuple(titles), (start, end), tuple(_joined_names(rows[start:end], width)))


def _filled(row: Sequence[str]) -> list[int]:
    return [index for index, cell in enumerate(row) if cell.strip()]


def _titles_row(rows: Sequence[Sequence[str]], index: int) -> bool:
    """Whether a row above the header is a caption: empty, or one cell that is no band.

    One cell right of the first column, just above a row of two or more labels, is a band of
    a multi-row header (``Sales (a)`` over its months), not a caption.
    """
    filled = _filled(rows[index])
    if len(filled) > 1 or (filled and is_value(rows[index][filled[0]])):
        return False
    if not filled or filled[0] == 0:
        return True
    below = rows[index + 1] if index + 1 < len(rows) else ()
    return len(_filled(below)) < 2


def _label_row(row: Sequence[str]) -> bool:
    """Whether every filled cell of a row is a short label (no value, no sentence, no break)."""
    cells = [row[index].strip() for index in _filled(row)]
    return bool(cells) and all(len(c) <= 80 and "\n" not in c and not is_value(c) for c in cells)


def _header_end(rows: Sequence[Sequence[str]], start: int) -> int:
    """Return where the header starting at ``start`` ends (``start``: there is none).

    Labels over a body with numbers are a header (blank cells allowed), and so are the next
    rows of labels over the body's numbers, up to ``MAX_HEADER_ROWS``; a table of text alone
    has a header when its first row ``looks_like_header``.
    """
    if start >= len(rows):
        return start
    if _years(rows[start], rows[start + 1 : start + 1 + _SAMPLE]):
        return start + 1
    if not _label_row(rows[start]):
        return start
    end = start + 1
    while end < len(rows) and end - start < MAX_HEADER_ROWS and _label_row(rows[end]):
        end += 1
    numbers = _value_columns(rows[end : end + _SAMPLE])
    labelled = set(_filled(rows[start]))
    if numbers and any(index in labelled or index - 1 in labelled for index in numbers):
        filled = _filled(rows[start])
        if len(filled) >= 2 or (len(filled) == 1 and filled[0] > 0):
            while end > start + 1 and not numbers & set(_filled(rows[end - 1])):
                end -= 1  # a row of labels over no number is a row of the body
            return end
    cells = _cells(rows[start])
    rest = [row for row in rows[start + 1 : start + 1 + _SAMPLE] if _cells(row) != cells]
    return start + 1 if looks_like_header(rows[start], rest) else start


def _years(row: Sequence[str], body: Sequence[Sequence[str]]) -> bool:
    """Whether a row is a header of years (``Region, 2021, 2022`` over sales figures).

    A label or nothing, then years rising left to right, over a body where those columns hold
    other numbers (years over years are a table of dates).
    """
    cells = [cell.strip() for cell in row]
    if len(cells) < 3 or is_value(cells[0]) or not all(_YEAR.fullmatch(c) for c in cells[1:]):
        return False
    years = [int(cell) for cell in cells[1:]]
    if any(later <= earlier for earlier, later in itertools.pairwise(years)):
        return False
    below = [r[i].strip() for r in body for i in range(1, min(len(r), len(cells))) if r[i].strip()]
    return bool(below) and not all(_YEAR.fullmatch(cell) for cell in below)


def _value_columns(body: Sequence[Sequence[str]]) -> set[int]:
    """Return the columns where most filled cells of ``body`` are values."""
    counts: dict[int, list[int]] = {}
    for row in body:
        for index in _filled(row):
            tally = counts.setdefault(index, [0, 0])
            tally[0] += is_value(row[index])
            tally[1] += 1
    return {index for index, (values, filled) in counts.items() if 2 * values > filled}


def _joined_names(header: Sequence[Sequence[str]], width: int) -> list[str]:
    """Return the column names of a header of one or more rows, joined with ``JOIN``.

    In a row above the last, an empty cell takes the band to its left (a merged cell's value
    sits in its first column) when that band has a label below it too, and the column has one.
    A column without a name is ``""``: its values stand alone, as in a row without a header.
    """
    grid = [[" ".join(cell.split()) for cell in row] + [""] * (width - len(row)) for row in header]
    names: list[str] = []
    for column in range(width):
        parts: list[str] = []
        for level, row in enumerate(grid):
            cell = row[column]
            if not cell and level < len(grid) - 1 and grid[level + 1][column]:
                cell = _band(grid, level, column)
            if cell and (not parts or parts[-1] != cell):
                parts.append(cell)
        names.append(JOIN.join(parts))
    return names


def _band(grid: Sequence[Sequence[str]], level: int, column: int) -> str:
    row, below = grid[level], grid[level + 1]
    left = column - 1
    while left >= 0 and not row[left]:
        if not below[left]:
            return ""  # a gap under the band: it does not reach this column
        left -= 1
    return row[left] if left >= 0 and below[left] else ""


def add_table(
    builder: TextBuilder, rows: Sequence[Sequence[str]], *, header: bool | None, rank: int
) -> tuple[tuple[str, ...] | None, int]:
    """Add a grid: its caption as a heading of ``rank``, then its rows.

    Returns the column names (None without a header) and how many rows repeating a header row
    were left out of the body; notes below the body are prose.
    """
    layout = find_layout(rows, header=header)
    if layout.titles:
        lines = [" ".join(_cells(rows[index])) for index in layout.titles]
        builder.add_heading("\n".join(lines), rank, title=" ".join(lines))
    start, end = layout.header
    headers = {tuple(_cells(row)) for row in rows[start:end]}
    numeric = bool(_value_columns(rows[end : end + _SAMPLE]))
    body = notes = after_gap = False
    repeated = 0
    for index in range(end, len(rows)):
        cells = _cells(rows[index])
        if headers and tuple(cells) in headers and body:
            repeated += 1
            continue
        if len(cells) == 1 and body and (notes or after_gap or _note(cells[0], numeric=numeric)):
            builder.add_block(cells[0])
            notes = True
        elif cells:
            add_row(builder, index + 1, layout.columns, rows[index])
            body = True
        after_gap = not cells
    return layout.columns, repeated


def _cells(row: Sequence[str]) -> list[str]:
    return [cell.strip() for cell in row if cell.strip()]


def _note(cell: str, *, numeric: bool) -> bool:
    """Whether one text cell below a table is a note: it says so, or is long below numbers."""
    if is_value(cell):
        return False
    return _NOTE_LEAD.match(cell) is not None or (numeric and len(cell) >= NOTE_CHARS)
