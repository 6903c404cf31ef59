"""Blocks into text: paragraphs, list items, tables and text boxes, with their sections.

Blocks are joined with ``BLOCK_SEPARATOR``; list items and table rows with ``LINE_SEPARATOR``;
a table row reads ``| a | b |``, and a row whose cells are all empty is left out (so is a table
with no other). A paragraph's text boxes follow it as blocks of their own (``kind`` ``prose``,
``metadata.container`` ``text box``). Page breaks are recorded as offsets for ``pages``; note
and comment references as offsets for the notes appended after the body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Final

from ragchunk.model import Page
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers.docx.charts import chart_references, chart_rows, chart_title
from ragchunk.parsers.docx.numbering import Numbering
from ragchunk.parsers.docx.runs import EXPLICIT, MC, Reading, read_runs
from ragchunk.parsers.docx.styles import (
    W,
    flag,
    heading_rank,
    list_reference,
    numbering,
    paragraph_style,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import Metadata
    from ragchunk.parsers._builder import Span
    from ragchunk.parsers.docx.styles import Style

_CONTAINERS: Final = frozenset({W + "sdt", W + "customXml", W + "sdtContent", MC + "Choice"})
_TEXT_BOX: Final = {"container": "text box"}
_CHART: Final = {"container": "chart"}


@dataclass(slots=True, kw_only=True)
class Builder(TextBuilder):
    """The text builder, with the page breaks, references and open list of the blocks read."""

    styles: dict[str, Style]
    reading: Reading
    breaks: list[tuple[int, str]] = field(default_factory=list)
    references: list[tuple[int, str, str]] = field(default_factory=list)
    items: list[Span] = field(default_factory=list)
    lists: Numbering = field(default_factory=Numbering)
    charts: dict[str, Any] = field(default_factory=dict)

    def close_list(self) -> None:
        """End the list being built, if any, as one ``list`` section."""
        if self.items:
            self.record(self.items[0][0], "list", parts=tuple(self.items))
            self.items = []


def add_blocks(container: Any, builder: Builder, metadata: Metadata | None = None) -> None:
    """Add a body's (or a text box's) paragraphs and tables in order."""
    for block in blocks(container):
        if block.tag == W + "tbl":
            add_table(block, builder)
        else:
            add_paragraph(block, builder, metadata)
    builder.close_list()


def blocks(body: Any) -> Iterator[Any]:
    """Yield paragraphs and tables in order, looking inside content controls."""
    stack = [iter(body)]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
        elif element.tag in (W + "p", W + "tbl"):
            yield element
        elif element.tag in _CONTAINERS:
            stack.append(iter(element))
        elif element.tag == MC + "AlternateContent":
            choice = element.find(MC + "Choice")
            stack.append(iter([] if choice is None else [choice]))


def add_paragraph(paragraph: Any, builder: Builder, metadata: Metadata | None = None) -> None:
    """Add one paragraph: a heading, a list item or prose, then its text boxes."""
    style, properties = paragraph_style(paragraph, builder.styles)
    breaks: list[tuple[int, str]] = []
    if flag(properties, "pageBreakBefore") or (
        flag(properties, "pageBreakBefore") is None and style.break_before
    ):
        breaks.append((0, "before"))
    inline = read_runs(paragraph, builder.reading)
    text = inline.text
    if metadata is not None and "note" in metadata:
        # A note starts with its own mark (w:footnoteRef, no text here) and a space.
        lead = len(text) - len(text.lstrip())
        text = text.strip()
        inline.references = [(max(at - lead, 0), kind, key) for at, kind, key in inline.references]
    label = list_label(style, properties, builder.lists)
    if label and text.strip():
        shift = len(label) - (len(text) - len(text.lstrip()))
        text = label + text.lstrip()
        inline.breaks = [(max(at + shift, 0), kind) for at, kind in inline.breaks]
        inline.references = [(max(at + shift, 0), kind, key) for at, kind, key in inline.references]
    breaks += inline.breaks
    rank = heading_rank(style, properties)
    numbered = numbering(properties)
    is_item = rank is None and (style.numbered if numbered is None else numbered)
    start = builder.length
    if not text.strip():
        builder.breaks.extend((builder.length, kind) for _, kind in breaks)
    elif is_item and metadata is None:
        start = _add_item(text, builder, breaks)
    else:
        builder.close_list()
        start = _add_block(text, rank, style.name, builder, metadata)
        builder.breaks.extend((start + offset, kind) for offset, kind in breaks)
    builder.references.extend((start + at, kind, key) for at, kind, key in inline.references)
    if properties is not None and properties.find(W + "sectPr") is not None:
        kind = properties.find(f"{W}sectPr/{W}type")
        if kind is None or kind.get(W + "val") not in ("continuous", "nextColumn"):
            builder.breaks.append((builder.length, EXPLICIT))
    for box in inline.boxes:
        builder.close_list()
        add_blocks(box, builder, _TEXT_BOX)
    for rid in chart_references(paragraph):
        if rid in builder.charts:
            builder.close_list()
            add_chart(builder.charts[rid], builder)


def add_chart(space: Any, builder: Builder) -> None:
    """Add a chart's title as a block and its data as a table section (``charts``)."""
    title = chart_title(space)
    if title:
        builder.add_block(title, metadata=_CHART)
    rows: list[Span] = []
    for cells in chart_rows(space):
        builder.line("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |", rows)
    if len(rows) > 1:
        builder.record(
            rows[0][0],
            "table",
            end=rows[-1][1],
            header=rows[0],
            parts=tuple(rows[1:]),
            metadata=_CHART,
        )
    elif rows:
        builder.record(rows[0][0], "table", end=rows[-1][1], metadata=_CHART)


def list_label(style: Style, properties: Any, lists: Numbering) -> str:
    """Return the number (or bullet) Word prints before this paragraph, and a space; or ""."""
    num_id, ilvl = list_reference(properties)
    if num_id is None:
        num_id, ilvl = style.num_id, style.ilvl if ilvl is None else ilvl
    if num_id is None or num_id == "0":
        return ""
    return lists.label(num_id, ilvl, style.style_id)


def _add_item(text: str, builder: Builder, breaks: list[tuple[int, str]]) -> int:
    start = builder.line(text, builder.items)
    builder.breaks.extend((start + offset, kind) for offset, kind in breaks)
    return start


def _add_block(
    text: str, rank: int | None, style: str, builder: Builder, metadata: Metadata | None
) -> int:
    """Add a paragraph as a heading of ``rank`` or as prose; return where it starts."""
    if rank is None or metadata is not None:  # a text box's heading style heads nothing
        return builder.add_block(text, metadata=metadata or {})
    title = " ".join(text.split())
    return builder.add_heading(
        text, rank, title=title, level=max(rank, 1), metadata={"style": style}
    )


def add_table(table: Any, builder: Builder) -> None:
    """Add a table's rows that hold text, as one ``table`` section; nothing for an empty one."""
    builder.close_list()
    rows: list[Span] = []
    boxes: list[Any] = []
    for row in table.iter(W + "tr"):
        if row.getparent() is not table:
            continue  # a nested table's rows are read as part of their cell
        breaks: list[tuple[int, str]] = []
        cells = [_cell_text(cell, breaks, builder, boxes) for cell in row.findall(W + "tc")]
        if not any(cells):
            continue  # SPEC: an empty row makes no "|  |  |" line
        start = builder.line("| " + " | ".join(cells) + " |", rows)
        # A page break inside a row is placed at the row's start: row granularity is enough.
        builder.breaks.extend((start, kind) for _, kind in breaks)
    if rows:
        builder.add_table(rows)
    for box in boxes:
        add_blocks(box, builder, _TEXT_BOX)


def _cell_text(cell: Any, breaks: list[tuple[int, str]], builder: Builder, boxes: list[Any]) -> str:
    texts = []
    for paragraph in cell.iter(W + "p"):
        inline = read_runs(paragraph, builder.reading)
        label = list_label(*paragraph_style(paragraph, builder.styles), builder.lists)
        texts.append(label + inline.text if label and inline.text.strip() else inline.text)
        breaks += inline.breaks
        boxes += inline.boxes
        # A reference in a cell is placed at the end of the text so far (the row is built
        # after its cells): close enough to link the note.
        builder.references.extend((builder.length, kind, key) for _, kind, key in inline.references)
    joined = " ".join(" ".join(texts).split())
    return joined.replace("|", "\\|")


def pages(text: str, breaks: list[tuple[int, str]]) -> tuple[Page, ...]:
    """Return the page map from break offsets; empty when the file records no page breaks.

    Word writes a rendered break right after an explicit one for the same page turn, so a
    break other than an explicit page break, with only whitespace since the previous page
    start, turns no page (this also drops breaks before any text). Each page's span leaves out
    the separators around it.
    """
    if not breaks:
        return ()
    starts = [0]
    for offset, kind in sorted(breaks, key=lambda item: item[0]):
        if kind != EXPLICIT and not text[starts[-1] : offset].strip():
            continue
        starts.append(offset)
    bounds = [*starts, len(text)]
    found = []
    for number, (start, end) in enumerate(pairwise(bounds), start=1):
        first = _skip_space(text, start, end)
        found.append(Page(number, first, _trim_space(text, first, end)))
    return tuple(found)


def _skip_space(text: str, start: int, end: int) -> int:
    while start < end and text[start].isspace():
        start += 1
    return start


def _trim_space(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end
