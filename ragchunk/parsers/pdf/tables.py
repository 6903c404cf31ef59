r"""Ruled tables on a PDFium page: their lines replaced by one line per row, cells separated.

``with_tables`` runs on each page PDFium reads. Only a page whose path objects draw a ruled
grid (``rulings``) is read again; every other page keeps its lines as they are. Each cell's
text is PDFium's characters printed in it (``cells``; a cell spanning rows or columns once),
its line wraps read as spaces and hyphenated line ends joined; a row reads as the DOCX
parser writes one: ``| a | b |``, a ``|`` inside a cell as ``\|``, and a row whose cells are
all empty is left out. The row lines take the place of the lines printed inside the grid, and
each is marked with a ``TableRow``: layout makes one ``table`` section of them, whose header is
its first row, or its first rows when a header cell spans columns (a group label over the
labels under it: each row stays a line of its own). A table is only read when it has two rows
of two filled cells, no cell of more than ``MAX_CELL_WORDS`` words, when its cells hold
exactly the letters and digits of the lines it replaces (nothing lost, nothing read twice),
and when no line printed in it runs on past its sides; otherwise the page's lines stand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final
from unicodedata import bidirectional

from ragchunk.model import Section
from ragchunk.parsers.pdf.lines import Line

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.parsers.pdf.cells import Char
    from ragchunk.parsers.pdf.lines import PageLines
    from ragchunk.parsers.pdf.rulings import Grid

MAX_CELL_WORDS: Final = 80
"""A cell holding more words than this is a column of prose: its grid is the page's layout."""
MAX_HEADER_ROWS: Final = 3
"""The most rows a table's header takes (a header row under one or two rows of group labels)."""


@dataclass(frozen=True, slots=True)
class TableRow:
    """A line that is a table's row: which table of its page, and whether it is a header row."""

    table: int
    header: bool


def with_tables(
    page: object, textpage: object, lines: tuple[Line, ...], height: float
) -> tuple[Line, ...]:
    """Return the page's lines with each ruled table's lines replaced by its rows.

    ``page`` and ``textpage`` are pypdfium2's ``PdfPage`` and ``PdfTextPage`` of the page.
    """
    from ragchunk.parsers.pdf.cells import page_chars  # PDFium's: not for layout's import
    from ragchunk.parsers.pdf.rulings import grids, page_edges

    across, down = page_edges(page.raw, height)  # type: ignore[attr-defined]
    if not across:
        return lines
    found = grids(across, down)
    box = (
        (
            min(g.xs[0] for g in found),
            min(g.ys[0] for g in found),
            max(g.xs[-1] for g in found),
            max(g.ys[-1] for g in found),
        )
        if found
        else (0.0, 0.0, 0.0, 0.0)
    )
    chars: list[Char] = []

    def read() -> list[Char]:  # the page's characters, read once, when a grid needs them
        if not chars:
            chars.extend(page_chars(textpage.raw, height, box))  # type: ignore[attr-defined]
        return chars

    for number, grid in enumerate(found):
        lines = _replace(grid, number, read, lines)
    return lines


def _replace(
    grid: Grid, number: int, read: Callable[[], list[Char]], lines: tuple[Line, ...]
) -> tuple[Line, ...]:
    from ragchunk.parsers.pdf.cells import cell_rows
    from ragchunk.parsers.pdf.rulings import SNAP

    left, top, right, bottom = grid.box
    inside = [
        index
        for index, line in enumerate(lines)
        if line.placed
        and not line.rotated
        and left - SNAP <= (line.left + line.right) / 2 <= right + SNAP
        and top - SNAP <= (line.top + line.bottom) / 2 <= bottom + SNAP
    ]
    if not inside:
        return lines
    if any(
        lines[index].left < left - SNAP or lines[index].right > right + SNAP for index in inside
    ):
        return lines  # a line runs on beside the table: PDFium joined it, keep the page's order
    if any(_is_right_to_left(lines[index].text) for index in inside):
        return lines  # PDFium's order of right-to-left cells is not settled here: keep the lines
    rows = cell_rows(grid, read())
    if rows is None or sum(sum(1 for cell in cells if cell) >= 2 for _, cells in rows) < 2:
        return lines  # a table has two rows of two filled cells at least
    if any(len(cell.split()) > MAX_CELL_WORDS for _, cells in rows for cell in cells):
        return lines  # rules between columns of prose: a page's layout, not a table
    if _letters(" ".join(lines[index].text for index in inside)) != _letters(
        " ".join(" ".join(cells) for _, cells in rows)
    ):
        return lines
    size = Counter(lines[index].size for index in inside).most_common(1)[0][0]
    header = _header_rows([cells for _, cells in rows], grid)
    made = tuple(
        Line(
            "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |",
            size,
            left,
            right,
            grid.ys[band],
            grid.ys[band + 1],
            spaced=True,
            row=TableRow(number, header=position < header),
        )
        for position, (band, cells) in enumerate(rows)
    )
    first = inside[0]
    kept = [line for index, line in enumerate(lines) if index not in set(inside)]
    return (*kept[:first], *made, *kept[first:])


def _is_right_to_left(text: str) -> bool:
    return any(bidirectional(char) in ("R", "AL") for char in text)


def _letters(text: str) -> Counter[str]:
    return Counter(char for char in text if char.isalnum())


def _header_rows(rows: Sequence[Sequence[str]], grid: Grid) -> int:
    """Return how many of the first rows are the header: one, and more under spanning labels.

    A header row with a cell that spans columns (fewer cells than the grid has columns) labels
    a group of the columns below it: the row under it is a header row too.
    """
    columns = len(grid.xs) - 1
    count = 1
    while (
        count < min(MAX_HEADER_ROWS, len(rows) - 1)
        and len(rows[count - 1]) < columns
        and len(rows[count]) > len(rows[count - 1])
    ):
        count += 1
    return count


def table_sections(
    sections: Sequence[Section],
    pages: Sequence[PageLines],
    offsets: Sequence[Sequence[tuple[int, int]]],
) -> list[Section]:
    """Return ``sections`` with the paragraphs of each table's row lines made one ``table``.

    ``offsets`` are each page's line spans in the text. The table's header is the span of its
    header rows, its parts its other rows (as the DOCX parser records a table).
    """
    tables = [
        tables
        for page, spans in zip(pages, offsets, strict=True)
        for tables in _page_tables(page.lines, spans)
    ]
    if not tables:
        return list(sections)
    by_row = {(s.start, s.end): k for k, s in enumerate(sections) if s.kind == "prose"}
    out = list(sections)
    for rows in reversed(tables):  # from the end, so earlier indices stand
        found = [by_row.get(span) for span, _ in rows]
        indices = sorted(k for k in found if k is not None)
        if len(indices) < len(rows) or indices[-1] - indices[0] >= len(rows):
            continue  # a row was read as a heading: leave the table's lines as they are
        head = [span for span, header in rows if header]
        body = [span for span, header in rows if not header]
        table = Section(
            rows[0][0][0],
            rows[-1][0][1],
            "table",
            out[indices[0]].headings,
            header=(head[0][0], head[-1][1]) if head else None,
            parts=tuple(body),
        )
        out[indices[0] : indices[-1] + 1] = [table]
    return out


def _page_tables(
    lines: Sequence[Line], spans: Sequence[tuple[int, int]]
) -> list[list[tuple[tuple[int, int], bool]]]:
    """Return each table's rows on a page: the row's span and whether it is a header row."""
    tables: list[list[tuple[tuple[int, int], bool]]] = []
    previous: TableRow | None = None
    for line, span in zip(lines, spans, strict=True):
        row = line.row
        if row is not None:
            if previous is None or previous.table != row.table:
                tables.append([])
            tables[-1].append((span, row.header))
        previous = row
    return tables
