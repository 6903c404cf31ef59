"""Where a PDF's text is printed: each character of the document text placed on its glyph.

PDFium gives every character of a page a box (``read_glyphs``, while the page is open); the
document text is what cleaning and layout made of those characters (spaces collapsed, headers
removed, hyphenated words joined, ligatures expanded, line wraps reflowed). ``place`` finds
each character of a page's text among the page's glyphs, front to back: equal characters
(compared after NFKC, spaces left out) are paired, and where they differ the next few letters
of the text are looked for further on among the glyphs (a removed header, a joined hyphen). The
characters paired with glyphs of one PDFium line, in order, make a line run: its rectangle is
the union of their boxes, and each character's extent along the line is kept so a chunk that
starts or ends inside the run gets only its part (``Boxes``). Characters not found (a word
moved across a page turn by a hyphen join, a symbol replaced by cleaning) have no box; pages
read by the pypdf engine or by OCR have no runs.
"""

from __future__ import annotations

import ctypes
import math
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Final

from ragchunk.model import Boxes, Run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import Page

_GRAM: Final = 8
"""How many letters of the text are looked for among the glyphs to find the text again."""
_SHORTEST: Final = 4
"""Fewer letters than this (at the end of a page) are too few to find the text again by."""
_NEAR_TOP: Final = 400
"""How many letters into the next page a word carried across the page turn is looked for."""
_SCALE: Final = 100
"""Device units per point when PDFium maps page space to the page as shown."""
_PROBE: Final = 1000.0
_BMP: Final = 0xFFFF
NAN: Final = float("nan")


@dataclass(frozen=True, slots=True)
class Glyphs:
    """A page's characters as PDFium reads them, each with its box as the page is shown.

    ``text`` has one character per PDFium index (a character outside the BMP is followed by a
    stand-in for its second UTF-16 unit); ``boxes`` holds ``left, top, right, bottom`` per
    index, in points from the top-left corner of the page as shown (crop box, rotation), NaN
    for a space or a character PDFium made.
    """

    text: str
    boxes: array[float]


def read_glyphs(page: Any, textpage: Any, text: str) -> Glyphs:
    """Return the glyphs of an open page; ``text`` is PDFium's text of the page."""
    import pypdfium2.raw as pdfium_c

    if len(text.encode("utf-16-le")) // 2 != len(text):
        text = "".join(char + "\uffff" if ord(char) > _BMP else char for char in text)
    a, b, c, d, e, f = _shown(page)
    boxes = array("f", [NAN]) * (4 * len(text))
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    get_box, raw = pdfium_c.FPDFText_GetCharBox, textpage.raw
    for index, char in enumerate(text):
        if char.isspace() or char == "\uffff":
            continue
        if not get_box(raw, index, left, right, bottom, top):
            continue
        xs = (a * left.value + b * bottom.value + e, a * right.value + b * top.value + e)
        ys = (c * left.value + d * bottom.value + f, c * right.value + d * top.value + f)
        at = 4 * index
        boxes[at : at + 4] = array("f", (min(xs), min(ys), max(xs), max(ys)))
    return Glyphs(text, boxes)


def _shown(page: Any) -> tuple[float, float, float, float, float, float]:
    """Return the map from page space to points from the top-left of the page as shown.

    ``(a, b, c, d, e, f)``: ``X = a x + b y + e``, ``Y = c x + d y + f``; PDFium's own
    ``FPDF_PageToDevice`` decides it (crop box and ``/Rotate``), probed at three points.
    """
    import pypdfium2.raw as pdfium_c

    width, height = page.get_size()
    x, y = ctypes.c_int(), ctypes.c_int()

    def shown(px: float, py: float) -> tuple[float, float]:
        pdfium_c.FPDF_PageToDevice(
            page.raw, 0, 0, round(width * _SCALE), round(height * _SCALE), 0, px, py, x, y
        )
        return x.value / _SCALE, y.value / _SCALE

    (e, f), (x1, y1), (x2, y2) = shown(0.0, 0.0), shown(_PROBE, 0.0), shown(0.0, _PROBE)
    return (x1 - e) / _PROBE, (x2 - e) / _PROBE, (y1 - f) / _PROBE, (y2 - f) / _PROBE, e, f


def place(text: str, pages: Sequence[Page], glyphs: Sequence[Glyphs | None]) -> Boxes | None:
    """Return where each page's text is printed; None when no page has glyphs."""
    if not any(glyphs):
        return None
    lows, highs = array("f", [NAN]) * len(text), array("f", [NAN]) * len(text)
    runs: list[Run] = []
    for page in pages:
        found = glyphs[page.number - 1] if page.number <= len(glyphs) else None
        if found is None:
            continue
        pairs = _pairs(text, page.start, page.end, found.text)
        _add_runs(text, pairs, found, page.number, runs, (lows, highs))
        after = glyphs[page.number] if page.number < len(glyphs) else None
        if after is not None:  # the end of a word joined across the page turn
            tail = pairs[-1][0] + 1 if pairs else page.start
            carried = _carried(text, tail, page.end, after.text)
            _add_runs(text, carried, after, page.number + 1, runs, (lows, highs))
    return Boxes(tuple(runs), lows, highs)


def _carried(text: str, start: int, end: int, raw: str) -> list[tuple[int, int]]:
    """Return the pairs of the letters of ``text[start:end]`` among the first glyphs of ``raw``.

    A hyphen join across a page turn moves the next page's first word up: its letters are
    printed near the top of the next page (after its running head, if any).
    """
    mine, mine_at = _folded(text, start, end)
    if not mine:
        return []
    theirs, theirs_at = _folded(raw, 0, len(raw))
    at = theirs.find(mine, 0, _NEAR_TOP + len(mine))
    return [] if at < 0 else [(mine_at[k], theirs_at[at + k]) for k in range(len(mine))]


def _folded(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """Return the letters of ``text[start:end]`` (NFKC, no spaces) and the index of each.

    PDFium's mark of a line-end hyphen (U+FFFE) is the hyphen it stands for.
    """
    letters: list[str] = []
    where: list[int] = []
    for index in range(start, end):
        char = text[index]
        if char.isspace() or char == "\uffff":
            continue
        if char == "\ufffe":
            char = "-"
        for part in unicodedata.normalize("NFKC", char) if not char.isascii() else char:
            if not part.isspace():
                letters.append(part)
                where.append(index)
    return "".join(letters), where


def _pairs(text: str, start: int, end: int, raw: str) -> list[tuple[int, int]]:
    """Return ``(offset in text, glyph index)`` for each character of the page found."""
    mine, mine_at = _folded(text, start, end)
    theirs, theirs_at = _folded(raw, 0, len(raw))
    found: dict[int, int] = {}  # a letter of mine -> a letter of theirs
    i = j = 0
    while i < len(mine) and j < len(theirs):
        if mine[i] == theirs[j]:
            found[i] = j
            i += 1
            j += 1
            continue
        gram = mine[i : i + _GRAM]
        ahead = theirs.find(gram, j) if len(gram) >= _SHORTEST else -1
        if ahead < 0:
            i += 1  # not among the glyphs left: no box
        else:
            j = ahead
    _fill_gaps(mine, theirs, found, _lines_of(raw, theirs_at))
    pairs: list[tuple[int, int]] = []
    for i in sorted(found):
        if not pairs or pairs[-1][0] != mine_at[i]:
            pairs.append((mine_at[i], theirs_at[found[i]]))
    return pairs


def _lines_of(raw: str, indices: list[int]) -> list[int]:
    """Return the number of PDFium's line on which each of ``indices`` (ascending) lies."""
    lines, line, at = [], 0, 0
    for index in indices:
        line += raw.count("\n", at, index) + raw.count("\ufffe", at, index)
        at = index
        lines.append(line)
    return lines


def _fill_gaps(mine: str, theirs: str, found: dict[int, int], lines: list[int]) -> None:
    """Pair the letters left between two letters found on one line with the line's glyphs left.

    A glyph drawn late (a ligature from a fallback font) comes later in PDFium's order than
    where the text reads it, so the pass front to back skips it.
    """
    used = set(found.values())
    for before, after in pairwise(sorted(found)):
        if after - before < 2 or lines[found[before]] != lines[found[after]]:
            continue
        line = lines[found[before]]  # ascending: a line's letters are one range of theirs
        first, last = bisect_left(lines, line), bisect_right(lines, line)
        left = [k for k in range(first, last) if k not in used]
        for i in range(before + 1, after):
            k = next((k for k in left if theirs[k] == mine[i]), None)
            if k is not None:
                found[i] = k
                used.add(k)
                left.remove(k)


def _add_runs(
    text: str,
    pairs: list[tuple[int, int]],
    glyphs: Glyphs,
    number: int,
    runs: list[Run],
    extents: tuple[array[float], array[float]],
) -> None:
    """Append the line runs of one page's pairs: a run ends with PDFium's line or the text's."""
    breaks = [index for index, char in enumerate(glyphs.text) if char in "\n\ufffe"]
    run: list[tuple[int, int]] = []
    for offset, index in pairs:
        if run:
            last_offset, last_index = run[-1]
            if (
                bisect_left(breaks, index) != bisect_left(breaks, last_index)
                or "\n" in text[last_offset:offset]
            ):
                _flush(run, glyphs, number, runs, extents)
                run = []
        run.append((offset, index))
    _flush(run, glyphs, number, runs, extents)


def _flush(
    run: list[tuple[int, int]],
    glyphs: Glyphs,
    number: int,
    runs: list[Run],
    extents: tuple[array[float], array[float]],
) -> None:
    boxes = glyphs.boxes
    placed = [(offset, 4 * index) for offset, index in run if not math.isnan(boxes[4 * index])]
    if not placed:
        return
    x0 = min(boxes[at] for _, at in placed)
    y0 = min(boxes[at + 1] for _, at in placed)
    x1 = max(boxes[at + 2] for _, at in placed)
    y1 = max(boxes[at + 3] for _, at in placed)
    first, last = placed[0][1], placed[-1][1]
    across = abs(boxes[last] + boxes[last + 2] - boxes[first] - boxes[first + 2])
    down = abs(boxes[last + 1] + boxes[last + 3] - boxes[first + 1] - boxes[first + 3])
    vertical = down > across
    lows, highs = extents
    for offset, at in placed:
        lows[offset] = boxes[at + 1] if vertical else boxes[at]
        highs[offset] = boxes[at + 3] if vertical else boxes[at + 2]
    runs.append((run[0][0], run[-1][0] + 1, number, x0, y0, x1, y1, vertical))
