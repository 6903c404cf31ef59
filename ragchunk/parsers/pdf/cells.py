"""The text of a ruled grid's cells, from PDFium's characters and where each is printed.

``page_chars`` reads a page's characters once (only for a page that has a grid): each
printed character with the centre of its box, top-left origin; a character printed at an
angle (a diagonal watermark across a table) is left out. A space or line break PDFium
generated goes with the character before it; PDFium's mark of a hyphenated line end (U+FFFE)
and the line break after it are dropped, so the word reads joined. ``cell_rows`` puts each
character in the cell its centre lies in, in PDFium's order, and reads each cell on one line;
a grid whose rules split a word is no table.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import pypdfium2.raw as pdfium_c

if TYPE_CHECKING:
    from ragchunk.parsers.pdf.rulings import Grid

_ANGLE: Final = 0.01
"""Radians past which a character prints at an angle."""
_HYPHEN: Final = 0xFFFE


@dataclass(frozen=True, slots=True)
class Char:
    """A character (UTF-16 unit, as PDFium counts them) and its box's centre, or None."""

    unit: int
    x: float
    y: float
    placed: bool


def page_chars(textpage: Any, height: float, box: tuple[float, float, float, float]) -> list[Char]:
    """Return the page's characters in PDFium's order (see the module docstring).

    Only those printed inside ``box`` (a grid's, top-left origin) are placed: the others are
    read as gaps, so two calls into PDFium per character are all most of a page costs.
    """
    chars: list[Char] = []
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    x0, y0, x1, y1 = box
    skip_break = False
    gap = Char(0x20, 0.0, 0.0, placed=False)
    for index in range(pdfium_c.FPDFText_CountChars(textpage)):
        unit = pdfium_c.FPDFText_GetUnicode(textpage, index)
        if unit == _HYPHEN:
            skip_break = True
            continue
        if skip_break and unit in (0x0D, 0x0A):
            continue
        skip_break = False
        if not pdfium_c.FPDFText_GetCharBox(textpage, index, left, right, bottom, top):
            chars.append(gap)
            continue
        x, y = (left.value + right.value) / 2, height - (bottom.value + top.value) / 2
        if not (x0 <= x <= x1 and y0 <= y <= y1) or pdfium_c.FPDFText_IsGenerated(textpage, index):
            chars.append(gap)
            continue
        angle = pdfium_c.FPDFText_GetCharAngle(textpage, index)
        if _ANGLE < angle < 2 * math.pi - _ANGLE:
            chars.append(gap)  # a gap where it was
            continue
        chars.append(Char(unit, x, y, placed=True))
    return chars


def cell_rows(grid: Grid, chars: list[Char]) -> list[tuple[int, list[str]]] | None:
    """Return each row band of ``grid`` that holds text, with its cells' text, top to bottom.

    None when a rule of the grid runs between two letters of one word (a diagram, a frame
    around columns of prose): a table's cells never split a word.
    """
    bands = len(grid.ys) - 1
    cells = [grid.cells(band) for band in range(bands)]
    units: list[list[list[int]]] = [[[] for _ in row] for row in cells]
    where: tuple[int, int] | None = None
    letter = False  # whether the character before was printed and not a space
    for char in chars:
        if char.placed:
            cell = _cell(grid, cells, char.x, char.y)
            printed = not chr(char.unit).isspace()
            if letter and printed and cell != where and where is not None:
                return None  # a rule between two letters of one word: not a cell's border
            where, letter = cell, printed
        else:
            letter = False
        if where is not None:
            units[where[0]][where[1]].append(char.unit if char.placed else 0x20)
    found = []
    for band in range(bands):
        texts = [_text(cell) for cell in units[band]]
        if any(texts):
            found.append((band, texts))
    return found


def _cell(
    grid: Grid, cells: list[list[tuple[float, float]]], x: float, y: float
) -> tuple[int, int] | None:
    if not grid.ys[0] <= y <= grid.ys[-1]:
        return None
    band = next((k for k in range(len(grid.ys) - 1) if y <= grid.ys[k + 1]), None)
    if band is None:
        return None
    band = grid.top_band(band, x)  # a cell spanning rows holds its text in its first
    for column, (left, right) in enumerate(cells[band]):
        if left <= x <= right:
            return band, column
    return None


def _text(units: list[int]) -> str:
    text = b"".join(unit.to_bytes(2, "little") for unit in units).decode("utf-16-le", "replace")
    return " ".join(text.split())
