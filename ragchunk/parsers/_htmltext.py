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

from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._htmltags import (
    HEADINGS,
    ITEMS,
    LAYOUT,
    LISTS,
    clean_heading,
    furniture_text,
    is_block,
    skip_reason,
    spaced,
)

if TYPE_CHECKING:
    from collections.abc import Callable

_SPACE: Final = re.compile(r"[ \t\n\r\f]+")


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
class HtmlBuilder(TextBuilder):
    """The text builder, with the left-out counts and the state of the walk over the tree."""

    keep_boilerplate: bool = False
    furniture: frozenset[Any] = frozenset()  # elements left out as boilerplate (a sidebar's h1)
    left_out: dict[str, int] = field(default_factory=dict)
    inline: list[str] = field(default_factory=list)
    heading: int = 0
    quote: int = 0
    lists: list[_List] = field(default_factory=list)
    marker: str | None = None
    items: list[tuple[int, int]] = field(default_factory=list)
    table: _Table | None = None
    tables: list[_Table | None] = field(default_factory=list)

    # --- output -------------------------------------------------------------------------------

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
        heading = self.heading and self.table is None
        if heading:
            text = clean_heading(text)
        elif text and not self.keep_boilerplate and furniture_text(text):
            self.left_out["boilerplate"] = self.left_out.get("boilerplate", 0) + len(text)
            return
        if text:
            self.emit(text, "heading" if heading else "prose")

    def emit(self, text: str, kind: str) -> None:
        """Add a block of ``kind``: a line of the open list, else a section of its own."""
        if self.lists:
            indent = "  " * (len(self.lists) - 1)
            lead = "  " if self.marker is None else self.marker
            self.marker = None
            text = indent + lead + text.replace("\n", "\n" + indent + "  ")
            self.line(text, self.items)
        elif kind == "heading":
            self.add_heading(text, self.heading, title=" ".join(text.split()))
        else:
            self.add_block(text, "quote" if kind == "prose" and self.quote else kind)

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
            self.record(self.items[0][0], "list", end=self.items[-1][1], parts=tuple(self.items))
            self.items = []

    def open_table(self, element: Any) -> None:
        self.end_line()
        self.tables.append(self.table)
        is_data = not self.lists and next(element.iterdescendants(*LAYOUT), None) is None
        self.table = _Table() if is_data else None

    def close_table(self) -> None:
        table = self.table
        self.table = self.tables.pop() if self.tables else None
        if table is not None and table.rows:
            self.add_table(table.rows, header=table.header is not None)

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
        self.line("| " + " | ".join(cells) + " |", table.rows)
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


def walk(root: Any, builder: HtmlBuilder, etree: Any) -> None:
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
            if spaced(element):
                builder.add_inline(" ")
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


def _start_other(builder: HtmlBuilder, tag: str, element: Any) -> None:
    if is_block(tag, element):
        builder.end_line()


def _end_other(builder: HtmlBuilder, tag: str, element: Any) -> None:
    if is_block(tag, element):
        builder.end_line()


def _start_heading(builder: HtmlBuilder, tag: str, _element: Any) -> None:
    builder.end_line()
    builder.heading = HEADINGS[tag]


def _end_heading(builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()
    builder.heading = 0


def _start_pre(builder: HtmlBuilder, _tag: str, element: Any) -> None:
    builder.end_line()
    text = "".join(element.itertext()).removeprefix("\n").rstrip()
    if text.strip():
        builder.emit(text, "code")


def _start_quote(builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()
    builder.quote += 1


def _end_quote(builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()
    builder.quote -= 1


def _start_table(builder: HtmlBuilder, _tag: str, element: Any) -> None:
    builder.open_table(element)


def _end_table(builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    builder.close_table()


def _start_row(builder: HtmlBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _start_other(builder, tag, element)
    else:
        builder.open_row()


def _end_row(builder: HtmlBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _end_other(builder, tag, element)
    else:
        builder.close_row()


def _start_cell(builder: HtmlBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _start_other(builder, tag, element)
    else:
        builder.open_cell(tag)


def _end_cell(builder: HtmlBuilder, tag: str, element: Any) -> None:
    if builder.table is None:
        _end_other(builder, tag, element)
    else:
        builder.close_cell()


def _start_section_head(builder: HtmlBuilder, tag: str, element: Any) -> None:
    if builder.table is not None:
        builder.table.in_head = tag == "thead"
    _start_other(builder, tag, element)


def _start_caption(builder: HtmlBuilder, tag: str, element: Any) -> None:
    _start_other(builder, tag, element)
    if builder.table is not None:
        builder.table.cells = None  # a caption's text is a block before the rows


def _start_list(builder: HtmlBuilder, tag: str, element: Any) -> None:
    builder.open_list(tag, element)


def _end_list(builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    builder.close_list()


def _start_item(builder: HtmlBuilder, tag: str, _element: Any) -> None:
    builder.open_item(tag)


def _end_item(builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    builder.end_line()


def _start_break(builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    builder.line_break()


def _nothing(_builder: HtmlBuilder, _tag: str, _element: Any) -> None:
    """Nothing happens at this end (the start did it all)."""


_START: Final[dict[str, Callable[[HtmlBuilder, str, Any], None]]] = {
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
_END: Final[dict[str, Callable[[HtmlBuilder, str, Any], None]]] = {
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
