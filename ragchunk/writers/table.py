"""A rich table previewing chunks: span, lines or pages, size, headings, visible whitespace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import Chunk

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
    if chunk.page_start is not None:
        pages = f"p{chunk.page_start}"
        return pages if chunk.page_end == chunk.page_start else f"{pages}–{chunk.page_end}"
    if chunk.line_start is not None:
        return f"{chunk.line_start}–{chunk.line_end}"
    return ""


def build(chunks: Sequence[Chunk], title: str) -> Table:
    """Return a table with one row per chunk of one document."""
    has_tokens = any(c.tokens is not None for c in chunks)
    symbol = any("symbol" in c.metadata for c in chunks)
    table = Table(title=Text(title), title_justify="left", expand=True, show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("span", no_wrap=True)
    table.add_column("pages" if any(c.page_start for c in chunks) else "lines", no_wrap=True)
    table.add_column("chars", justify="right", no_wrap=True)
    if has_tokens:
        table.add_column("tokens", justify="right", no_wrap=True)
    table.add_column("symbol" if symbol else "headings", max_width=30, overflow="fold")
    table.add_column("text", ratio=1, overflow="fold")
    for chunk in chunks:
        label = str(chunk.metadata.get("symbol", "")) if symbol else " › ".join(chunk.headings)
        row = [str(chunk.index), f"{chunk.start}–{chunk.end}", _where(chunk), str(chunk.chars)]
        if has_tokens:
            row.append("" if chunk.tokens is None else str(chunk.tokens))
        table.add_row(*row, Text(label.translate(_VISIBLE)), Text(preview(chunk.text)))
    return table
