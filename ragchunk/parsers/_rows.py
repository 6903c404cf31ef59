"""Tabular data as text: each row a section of ``column: value`` lines (CSV, TSV, XLSX).

A row reads one line per non-empty cell, ``column: value`` under a header and the bare value
without one; a value's own line breaks continue on lines indented by two spaces. Rows are
separated by a blank line. Each row is a section of kind ``row`` whose ``parts`` are its lines,
with ``metadata.row`` (its 1-based row number in the file or sheet) and ``metadata.columns``
(the column of each part, by name, else by 1-based number). Rows of one cell above a header
(a sheet's title) are ``prose``; a sheet's name is a heading. The text is built with ``_builder``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import JSONValue
    from ragchunk.parsers._builder import Span, TextBuilder

_NEWLINES: Final = re.compile(r"\r\n?|\n")
_NUMBER: Final = re.compile(r"[-+]?\d+(?:[.,]\d+)?%?")


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
    metadata: dict[str, JSONValue] = {"row": number, "columns": names}
    builder.record(spans[0][0], "row", metadata=metadata, parts=tuple(spans))


def name_columns(header: Sequence[str]) -> list[str]:
    """Return the header's cells as column names; a blank one is named by its number."""
    return [" ".join(cell.split()) or f"column {n}" for n, cell in enumerate(header, start=1)]


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
        if any(index < len(row) and row[index].strip() == cell for row in rest[:100]):
            return False
    return True


def header_index(rows: Sequence[Sequence[str]]) -> int:
    """Return the index of a sheet's header: the first row with two or more filled cells."""
    for index, row in enumerate(rows):
        if sum(1 for cell in row if cell.strip()) >= 2:  # a row of one cell is a title
            return index
    return 0
