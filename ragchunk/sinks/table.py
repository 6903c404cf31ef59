"""The table sink: a rich table per input previewing its chunks (``split --table``).

Each row shows a chunk's span, lines or pages, size, headings and text with visible whitespace.
It writes to a terminal (standard output), never to a file.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Final

from rich.table import Table
from rich.text import Text

from ragchunk.sinks._spec import SinkSpec
from ragchunk.text.printable import one_line

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from rich.console import Console

    from ragchunk.model import Chunk
    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

# Whitespace made visible; every other control character shown as its Unicode picture (or as
# U+FFFD for C1 controls), so that text from a document can never drive the terminal (an ESC
# sequence in a hostile file would otherwise recolour, retitle or rewrite the screen).
_CONTROLS: Final = {
    **{chr(code): chr(0x2400 + code) for code in range(0x20)},
    "\x7f": "␡",
    **{chr(code): "\ufffd" for code in range(0x80, 0xA0)},
    "\u2028": "↵",
    "\u2029": "↵",
}
_VISIBLE: Final = str.maketrans(
    {**_CONTROLS, "\n": "↵", "\r": "␍", "\t": "→", "\f": "␌", "\v": "␋"}
)
_HEAD: Final = 90
_TAIL: Final = 40
_WIDE: Final = 100
"""Terminal widths from which the span column is shown."""


def preview(text: str) -> str:
    """Return ``text`` on one line with whitespace made visible, its middle elided if long."""
    shown = text.translate(_VISIBLE)
    stripped = shown.lstrip(" ")
    shown = "·" * (len(shown) - len(stripped)) + stripped
    stripped = shown.rstrip(" ")
    shown = stripped + "·" * (len(shown) - len(stripped))
    if len(shown) > _HEAD + _TAIL + 1:
        shown = f"{shown[:_HEAD]}…{shown[-_TAIL:]}"
    return shown


def _where(chunk: Chunk) -> str:
    if chunk.timestamp_start is not None and chunk.timestamp_end is not None:
        return f"{_clock(chunk.timestamp_start)}–{_clock(chunk.timestamp_end)}"
    if chunk.page_start is not None:
        pages = f"p{chunk.page_start}"
        return pages if chunk.page_end == chunk.page_start else f"{pages}–{chunk.page_end}"
    if chunk.line_start is not None:
        return f"{chunk.line_start}–{chunk.line_end}"
    return ""


def _clock(seconds: float) -> str:
    """Return a media player's time: ``1:15.500``, ``1:02:03.000`` past the hour."""
    millis = round(seconds * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    clock = f"{minutes}:{rest / 1000:06.3f}"
    return f"{hours}:{minutes:02d}:{rest / 1000:06.3f}" if hours else clock


def build(chunks: Sequence[Chunk], title: str, width: int = 160) -> Table:
    """Return a table with one row per chunk of one document, laid out for ``width`` columns.

    Columns empty for every row are left out (no lines in a PDF, no headings in plain text,
    no tokens unless counted); the text column gets at least half the width, the headings
    column what is left beside it (a fifth at most); below 100 columns the span column goes
    (lines or pages and the size still place each chunk), so the text stays readable at 80.
    Parent and child records (``--parents``) get a ``level`` column, parents in bold.
    """
    symbol = any("symbol" in c.metadata for c in chunks)
    labels = [
        str(c.metadata.get("symbol", "")) if symbol else " › ".join(c.headings) for c in chunks
    ]
    places = [_where(c) for c in chunks]
    columns: list[tuple[str, list[str], dict[str, object]]] = [
        ("#", [str(c.index) for c in chunks], {"justify": "right", "no_wrap": True}),
    ]
    if any(c.parent_id is not None for c in chunks):  # --parents: each parent, then its children
        levels = ["child" if c.parent_id is not None else "parent" for c in chunks]
        columns.append(("level", levels, {"no_wrap": True}))
    if width >= _WIDE:
        spans = [f"{c.start}–{c.end}" for c in chunks]
        columns.append(("span", spans, {"no_wrap": True}))
    place = "pages" if any(c.page_start for c in chunks) else "lines"
    place = "time" if any(c.timestamp_start is not None for c in chunks) else place
    columns.append((place, places, {"no_wrap": True}))
    columns.append(("chars", [str(c.chars) for c in chunks], {"justify": "right", "no_wrap": True}))
    tokens = ["" if c.tokens is None else str(c.tokens) for c in chunks]
    columns.append(("tokens", tokens, {"justify": "right", "no_wrap": True}))
    kept = [column for column in columns if any(column[1])]
    # What is left beside the narrow columns, their padding and the borders, and half the width.
    used = sum(max(len(name), *map(len, values)) + 3 for name, values, _ in kept) + 1
    label_width = max(8, min(width // 5, width - width // 2 - used - 4))
    heading = "symbol" if symbol else "headings"
    if any(labels):
        kept.append((heading, labels, {"max_width": label_width, "overflow": "fold"}))
    table = Table(title=Text(title), title_justify="left", expand=True, show_lines=False)
    for name, _, settings in kept:
        table.add_column(name, **settings)  # type: ignore[arg-type]
    table.add_column("text", ratio=1, min_width=max(20, width // 2), overflow="fold")
    for row, chunk in enumerate(chunks):
        cells = [Text(values[row].translate(_VISIBLE)) for _, values, _ in kept]
        style = "bold" if chunk.metadata.get("kind") == "parent" else None
        table.add_row(*cells, Text(preview(chunk.text)), style=style)
    return table


class TableSink:
    """Prints one table per input on a console: ``doc_id · N chunks`` above its rows."""

    def __init__(self, console: Console) -> None:
        self._console = console

    def write(self, result: FileResult) -> None:
        """Print the table of one input's chunks, laid out for the console's width."""
        count = result.chunk_count
        title = f"{one_line(result.doc_id)} · {count} chunk{'' if count == 1 else 's'}"
        self._console.print(build(result.chunks, title, self._console.width))


@contextlib.contextmanager
def open_sink(to: Destination) -> Iterator[TableSink]:
    """Yield the table sink of a text stream (never a file: ``SINK.files``)."""
    from rich.console import Console

    if isinstance(to, str):
        raise TypeError("the table sink writes to a text stream, never to a file")
    yield TableSink(Console(file=to, highlight=False))


SINK = SinkSpec(
    name="table",
    summary="A table per input previewing its chunks, on the terminal (--table).",
    open=open_sink,
    files=False,
)
