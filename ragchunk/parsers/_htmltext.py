"""An HTML element tree → readable text and sections, in one pass without recursion.

Blocks (paragraphs, headings, captions, ``<pre>``) are separated by a blank line; the items of a
list and the rows of a table by a line feed. Inline whitespace collapses to one space as a
browser shows it, ``<br>`` is a line break, ``<pre>`` keeps its text as it is. A list item
reads ``- item`` (``1. item`` in an ordered list), nested items two spaces further in; a data
table (no block inside its cells) reads ``| a | b |`` per row, its ``<th>`` row the header, and a
layout table is read as the blocks in its cells. Headings h1–h6 make the heading path. What is
left out (scripts, styles, hidden elements, templates, boilerplate unless kept) never reaches
the text, and the characters of readable text left out are counted by reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from ragchunk.model import Section
from ragchunk.parsers._htmltags import BLOCKS, HEADINGS, ITEMS, LAYOUT, LISTS, skip_reason

if TYPE_CHECKING:
    from collections.abc import Callable

_SPACE: Final = re.compile(r"[ \t\n\r\f]+")
BLOCK_SEPARATOR: Final = "\n\n"
LINE_SEPARATOR: Final = "\n"


@dataclass(slots=True)
class _List:
    """An open list: its kind and the number of its next item."""

    ordered: bool
    number: int


@dataclass(slots=True)
class _Table:
    """An open data table: its rows (spans) and the row and cell being read."""

    rows: list[tuple[int, int]] = field(default_factory=list)
    header: tuple[int, int] | None = None
    cells: list[str] | None = None
    cell: list[str] | None = None
    header_row: bool = True
    in_head: bool = False


@dataclass(slots=True)
class TextBuilder:
    """Accumulates the text, sections and left-out counts while the tree is walked."""

    keep_boilerplate: bool = False
    parts: list[str] = field(default_factory=list)
    length: int = 0
    sections: list[Section] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)
    path: list[tuple[int, str]] = field(default_factory=list)
    inline: list[str] = field(default_factory=list)
    heading: int = 0
    quote: int = 0
    lists: list[_List] = field(default_factory=list)
    marker: str | None = None
    items: list[tuple[int, int]] = field(default_factory=list)
    table: _Table | None = None
    tables: list[_Table | None] = field(default_factory=list)

    # --- output -------------------------------------------------------------------------------

    def append(self, text: str, separator: str) -> int:
        """Append ``text`` after ``separator`` (none at the start); return its start."""
        if self.length:
            self.parts.append(separator)
            self.length += len(separator)
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        return start

    def headings(self) -> tuple[str, ...]:
        return tuple(title for _, title in self.path)

    def add_inline(self, text: str | None) -> None:
        """Add running text, its whitespace collapsed (the line is trimmed when it ends)."""
        if not text:
            return
        if self.table is not None and self.table.cell is not None:
            self.table.cell.append(_SPACE.sub(" ", text))
        else:
            self.inline.append(_SPACE.sub(" ", text))

    def line_break(self) -> None:
        target = self.table.cell if self.table is not None and self.table.cell is not None else None
        (self.inline if target is None else target).append("\n")

    def end_line(self) -> None:
        """End the running text: it becomes a block, a list line, or nothing if blank."""
        if not self.inline:
            return
        text = _tidy("".join(self.inline))
        self.inline = []
        if text:
            self.emit(text, "heading" if self.heading and self.table is None else "prose")

    def emit(self, text: str, kind: str) -> None:
        """Add a block of ``kind``: a line of the open list, else a section of its own."""
        if self.lists:
            indent = "  " * (len(self.lists) - 1)
            lead = "  " if self.marker is None else self.marker
            self.marker = None
            text = indent + lead + text.replace("\n", "\n" + indent + "  ")
            start = self.append(text, LINE_SEPARATOR if self.items else BLOCK_SEPARATOR)
            self.items.append((start, start + len(text)))
            return
        start = self.append(text, BLOCK_SEPARATOR)
        if kind == "prose" and self.quote:
            kind = "quote"
        if kind != "heading":
            self.sections.append(Section(start, self.length, kind, self.headings()))
            return
        while self.path and self.path[-1][0] >= self.heading:
            self.path.pop()
        self.path.append((self.heading, " ".join(text.split())))
        self.sections.append(Section(start, self.length, "heading", self.headings(), self.heading))

    def leave_out(self, reason: str, element: Any) -> None:
        """Count the readable characters of an element left out of the text."""
        size = len(" ".join("".join(element.itertext()).split()))
        if size:
            self.left_out[reason] = self.left_out.get(reason, 0) + size

    # --- lists and tables -------------------------------------------------------------------------

    def open_list(self, tag: str, element: Any) -> None:
        self.end_line()
        start = element.get("start", "1")
        number = int(start) if start.isdigit() else 1
        self.lists.append(_List(tag == "ol", number))

    def open_item(self, tag: str) -> None:
        self.end_line()
        if not self.lists:  # an item outside any list reads as an unordered one
            self.lists.append(_List(ordered=False, number=1))
        current = self.lists[-1]
        if tag == "li":
            self.marker = f"{current.number}. " if current.ordered else "- "
            current.number += 1
        else:
            self.marker = "" if tag == "dt" else "  "

    def close_list(self) -> None:
        self.end_line()
        if self.lists:
            self.lists.pop()
        if not self.lists and self.items:
            start, end = self.items[0][0], self.items[-1][1]
            self.sections.append(
                Section(start, end, "list", self.headings(), parts=tuple(self.items))
            )
            self.items = []

    def open_table(self, element: Any) -> None:
        self.end_line()
        self.tables.append(self.table)
        is_data = not self.lists and next(element.iterdescendants(*LAYOUT), None) is None
        self.table = _Table() if is_data else None

    def close_table(self) -> None:
        table = self.table
        self.table = self.tables.pop() if self.tables else None
        if table is None or not table.rows:
            return
        rows = table.rows
        header = table.header
        body = tuple(row for row in rows if row != header)
        self.sections.append(
            Section(rows[0][0], rows[-1][1], "table", self.headings(), header=header, parts=body)
        )

    def open_row(self) -> None:
        if self.table is not None:
            self.table.cells = []
            self.table.header_row = True

    def close_row(self) -> None:
        table = self.table
        if table is None or table.cells is None:
            return
        cells, table.cells = table.cells, None
        if not any(cells):
            return
        line = "| " + " | ".join(cells) + " |"
        start = self.append(line, LINE_SEPARATOR if table.rows else BLOCK_SEPARATOR)
        table.rows.append((start, start + len(line)))
        if table.header is None and len(table.rows) == 1 and (table.header_row or table.in_head):
            table.header = table.rows[0]

    def open_cell(self, tag: str) -> None:
        table = self.table
        if table is None or table.cells is None:
            return
        table.cell = []
        if tag != "th":
            table.header_row = False

    def close_cell(self) -> None:
        table = self.table
        if table is None or table.cell is None or table.cells is None:
            return
        text = " ".join("".join(table.cell).split()).replace("|", "\\|")
        table.cell = None
        table.cells.append(text)


def _tidy(text: str) -> str:
    """Trim each line of running text (a ``<br>`` leaves spaces around its line feed)."""
    if "\n" not in text:
        return text.strip()
    lines = [line.strip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def walk(root: Any, builder: TextBuilder, etree: Any) -> None:
    """Read the tree under ``root`` into ``builder``: iteratively, so any depth is safe."""
    walker = etree.iterwalk(root, events=("start", "end"))
    skipped = False
    for event, element in walker:
        tag = element.tag
        if not isinstance(tag, str):  # comments and processing instructions
            if event == "end":
                builder.add_inline(element.tail)
            continue
        tag = tag.rpartition("}")[2].lower()
        if event == "start":
            reason = skip_reason(tag, element, builder)
            if reason is not None:
                if reason:
                    builder.leave_out(reason, element)
                walker.skip_subtree()
                skipped = True
                continue
            _START.get(tag, _start_other)(builder, tag, element)
            if tag == "pre":
                walker.skip_subtree()
            else:
                builder.add_inline(element.text)
        else:
            if skipped:
                skipped = False
            else:
                _END.get(tag, _end_other)(builder, tag, element)
            builder.add_inline(element.tail)


def _start_other(builder: TextBuilder, tag: str, _element: Any) -> None:
    if tag in BLOCKS:
        builder.end_line()


def _end_other(builder: TextBuilder, tag: str, _element: Any) -> None:
    if tag in BLOCKS:
        builder.end_line()


def _start_heading(builder: TextBuilder, tag: str, _element: Any) -> None:
    builder.end_line()
    builder.heading = HEADINGS[tag]


def _end_heading(builder: TextBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()
    builder.heading = 0


def _start_pre(builder: TextBuilder, _tag: str, element: Any) -> None:
    builder.end_line()
    text = "".join(element.itertext()).removeprefix("\n").rstrip()
    if text.strip():
        builder.emit(text, "code")


def _start_quote(builder: TextBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()
    builder.quote += 1


def _end_quote(builder: TextBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()
    builder.quote -= 1


def _start_table(builder: TextBuilder, _tag: str, element: Any) -> None:
    builder.open_table(element)


def _end_table(builder: TextBuilder, _tag: str, _element: Any) -> None:
    builder.close_table()


def _start_row(builder: TextBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _start_other(builder, tag, element)
    else:
        builder.open_row()


def _end_row(builder: TextBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _end_other(builder, tag, element)
    else:
        builder.close_row()


def _start_cell(builder: TextBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _start_other(builder, tag, element)
    else:
        builder.open_cell(tag)


def _end_cell(builder: TextBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _end_other(builder, tag, element)
    else:
        builder.close_cell()


def _start_section_head(builder: TextBuilder, tag: str, element: Any) -> None:
    if builder.table is not None:
        builder.table.in_head = tag == "thead"
    _start_other(builder, tag, element)


def _start_caption(builder: TextBuilder, tag: str, element: Any) -> None:
    _start_other(builder, tag, element)
    if builder.table is not None:
        builder.table.cells = None  # a caption's text is a block before the rows


def _start_list(builder: TextBuilder, tag: str, element: Any) -> None:
    builder.open_list(tag, element)


def _end_list(builder: TextBuilder, _tag: str, _element: Any) -> None:
    builder.close_list()


def _start_item(builder: TextBuilder, tag: str, _element: Any) -> None:
    builder.open_item(tag)


def _end_item(builder: TextBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()


def _start_break(builder: TextBuilder, _tag: str, _element: Any) -> None:
    builder.line_break()


def _nothing(_builder: TextBuilder, _tag: str, _element: Any) -> None:
    """Nothing happens at this end (the start did it all)."""


_START: Final[dict[str, Callable[[TextBuilder, str, Any], None]]] = {
    **dict.fromkeys(HEADINGS, _start_heading),
    **dict.fromkeys(LISTS, _start_list),
    **dict.fromkeys(ITEMS, _start_item),
    "pre": _start_pre,
    "blockquote": _start_quote,
    "table": _start_table,
    "tr": _start_row,
    "td": _start_cell,
    "th": _start_cell,
    "thead": _start_section_head,
    "tbody": _start_section_head,
    "tfoot": _start_section_head,
    "caption": _start_caption,
    "br": _start_break,
}
_END: Final[dict[str, Callable[[TextBuilder, str, Any], None]]] = {
    **dict.fromkeys(HEADINGS, _end_heading),
    **dict.fromkeys(LISTS, _end_list),
    **dict.fromkeys(ITEMS, _end_item),
    "pre": _nothing,
    "blockquote": _end_quote,
    "table": _end_table,
    "tr": _end_row,
    "td": _end_cell,
    "th": _end_cell,
    "br": _nothing,
}
