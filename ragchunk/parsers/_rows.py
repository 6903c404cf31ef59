"""Tabular data as text: each row a section of ``column: value`` lines (CSV, TSV, XLSX).

A row reads one line per non-empty cell, ``column: value`` under a header and the bare value
without one; a value's own line breaks continue on lines indented by two spaces. Rows are
separated by a blank line. Each row is a section of kind ``row`` whose ``parts`` are its lines,
with ``metadata.row`` (its 1-based row number in the file or sheet) and ``metadata.columns``
(the column of each part, by name, else by 1-based number). Rows of one cell above a header
(a sheet's title) are ``prose``; a sheet's name is a heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.model import Page, Section

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import JSONValue

BLOCK_SEPARATOR: Final = "\n\n"
_NEWLINES: Final = re.compile(r"\r\n?|\n")
_NUMBER: Final = re.compile(r"[-+]?\d+(?:[.,]\d+)?%?")


@dataclass(slots=True)
class RowBuilder:
    """Accumulates the text, sections and pages of tabular data."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    sections: list[Section] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    heading: tuple[str, ...] = ()

    def append(self, text: str) -> int:
        """Append a block after a blank line (none at the start); return its start."""
        if self.length:
            self.parts.append(BLOCK_SEPARATOR)
            self.length += len(BLOCK_SEPARATOR)
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        return start

    def add_heading(self, title: str) -> None:
        """Start a sheet: its name is a level-1 heading over its rows."""
        self.heading = (title,)
        start = self.append(title)
        self.sections.append(Section(start, self.length, "heading", self.heading, 1))

    def add_prose(self, text: str) -> None:
        start = self.append(text)
        self.sections.append(Section(start, self.length, "prose", self.heading))

    def add_row(self, number: int, columns: Sequence[str] | None, values: Sequence[str]) -> None:
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
        start = self.append(lines[0])
        spans = [(start, self.length)]
        for line in lines[1:]:
            self.parts.append("\n" + line)
            self.length += 1 + len(line)
            spans.append((self.length - len(line), self.length))
        metadata: dict[str, JSONValue] = {"row": number, "columns": names}
        self.sections.append(
            Section(start, self.length, "row", self.heading, metadata=metadata, parts=tuple(spans))
        )

    def close_page(self, number: int, start: int) -> None:
        """End the page (a sheet) that began at ``start``; an empty sheet gives no page."""
        if self.length > start:
            first = start + len(BLOCK_SEPARATOR) if start else 0
            self.pages.append(Page(number, min(first, self.length), self.length))

    def text(self) -> str:
        return "".join(self.parts)


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
