"""Where a PDF's text is printed: each character of the document text placed on its glyph.

PDFium gives every character of a page a box (``read_glyphs``, while the page is open); the
document text is what cleaning and layout made of those characters (spaces collapsed, headers
removed, hyphenated words joined, ligatures expanded, line wraps reflowed). ``place`` finds
each character of a page's text among the page's glyphs, front to back: equal characters
(compared after NFKC, spaces left out) are paired, one character between two agreeing
stretches is paired with the glyph in its place (a symbol bullet cleaning replaced), and where
they differ more the next few letters of the text are looked for further on among the glyphs
(a removed header, a joined hyphen); letters left between two found on one line are paired
with that line's glyphs left (a ligature drawn late). The characters paired with glyphs of one
PDFium line, in order, make a line run: its rectangle is the union of their boxes, and each
character's extent along the line is kept so a chunk that starts or ends inside the run gets
only its part (``Boxes``). The end of a word that a hyphen
join moved up across a page turn is looked for at the top of the next page. Characters not
found have no box; pages read by the pypdf engine or by OCR have no runs.
"""

from __future__ import annotations

import ctypes
import functools
import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import chain, pairwise, repeat
from typing import TYPE_CHECKING, Any, Final

from ragchunk.model import Boxes, Run
from ragchunk.parsers.pdf.upright import shown_map

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ragchunk.model import Page
    from ragchunk.parsers.pdf.upright import Affine

_GRAM: Final = 8
"""How many letters of the text are looked for among the glyphs to find the text again."""
_SHORTEST: Final = 4
"""Fewer letters than this (at the end of a page) are too few to find the text again by."""
_NEAR_TOP: Final = 400
"""How many letters into the next page a word carried across the page turn is looked for."""
NAN: Final = float("nan")
_NO_BOXES: Final = array("f", [NAN] * 4)
_BLANK: Final = re.compile("[\\s\uffff]")
_MARKS: Final = str.maketrans({"\ufffe": "-", "\uffff": " "})
"""PDFium's mark of a line-end hyphen is the hyphen; a second UTF-16 unit's stand-in is none."""
_LETTER: Final = re.compile(r"\S")
_SPACE: Final = re.compile(r"\s+")
_BREAK: Final = re.compile("[\n\ufffe]")
_RUN: Final = 64
"""Letters compared at once while the text and the glyphs agree."""


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
    turned: bool = False
    """Whether the page is shown turned a quarter: its lines run down the page."""


def read_glyphs(page: Any, textpage: Any, text: str, shown: Affine | None = None) -> Glyphs:
    """Return the glyphs of an open page; ``text`` is ``pdfium.page_text``: one char per index.

    ``shown`` maps page space to the page as shown (``upright``), else the page decides it.
    """
    count = len(text)
    sides = [(ctypes.c_double * count)() for _ in range(4)]  # left, right, bottom, top
    starts = [ctypes.addressof(side) for side in sides]
    step = ctypes.sizeof(ctypes.c_double)
    raw = ctypes.cast(textpage.raw, ctypes.c_void_p).value
    # One call per character, its four values written in place: no Python between calls.
    done = list(
        map(
            _char_box(),
            repeat(raw, count),
            range(count),
            *(range(start, start + step * count, step) for start in starts),
        )
    )
    left, right, bottom, top = (array("d", bytes(side)) for side in sides)
    a, b, c, d, e, f = shown_map(page) if shown is None else shown
    upright = b == 0 and c == 0
    if upright and a > 0 and d < 0:  # the page as printed: y turned to run down
        x0s, x1s = _scaled(left, a, e), _scaled(right, a, e)
        y0s, y1s = _scaled(top, d, f), _scaled(bottom, d, f)
    else:
        corners = [
            (a * x + b * y + e, c * x + d * y + f, a * u + b * v + e, c * u + d * v + f)
            for x, y, u, v in zip(left, bottom, right, top, strict=True)
        ]
        x0s = array("f", [min(k[0], k[2]) for k in corners])
        y0s = array("f", [min(k[1], k[3]) for k in corners])
        x1s = array("f", [max(k[0], k[2]) for k in corners])
        y1s = array("f", [max(k[1], k[3]) for k in corners])
    boxes = array("f", bytes(16 * count))
    boxes[0::4], boxes[1::4], boxes[2::4], boxes[3::4] = x0s, y0s, x1s, y1s
    for index in chain((k for k, ok in enumerate(done) if not ok), _blanks(text)):
        boxes[4 * index : 4 * index + 4] = _NO_BOXES
    return Glyphs(text, boxes, turned=not upright)


def _scaled(values: array[float], scale: float, shift: float) -> array[float]:
    """Return ``scale * v + shift`` for each of ``values``, as float32."""
    if scale == 1 and shift == 0:
        return array("f", values)
    return array("f", [scale * value + shift for value in values])


def _blanks(text: str) -> Iterator[int]:
    """Yield the indices of spaces and stand-ins: characters with no glyph of their own."""
    return (match.start() for match in _BLANK.finditer(text))


@functools.cache
def _char_box() -> Any:
    """Return ``FPDFText_GetCharBox`` called through plain pointers.

    pypdfium2's binding checks each argument's pointer type on every call; one call per
    character of every page makes that a third of reading the boxes.
    """
    import pypdfium2.raw as pdfium_c

    pointer = ctypes.c_void_p
    prototype = ctypes.CFUNCTYPE(ctypes.c_int, pointer, ctypes.c_int, *[pointer] * 4)
    return prototype(ctypes.cast(pdfium_c.FPDFText_GetCharBox, pointer).value or 0)


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
    theirs, theirs_at = _folded(raw, 0, min(len(raw), 4 * (_NEAR_TOP + len(mine))))
    at = theirs.find(mine, 0, _NEAR_TOP + len(mine))
    return [] if at < 0 else [(mine_at[k], theirs_at[at + k]) for k in range(len(mine))]


def _folded(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """Return the letters of ``text[start:end]`` (NFKC, no spaces) and the index of each.

    PDFium's mark of a line-end hyphen (U+FFFE) is the hyphen it stands for.
    """
    part = text[start:end].translate(_MARKS)
    if part.isascii() or unicodedata.is_normalized("NFKC", part):
        return _SPACE.sub("", part), [start + m.start() for m in _LETTER.finditer(part)]
    letters: list[str] = []
    where: list[int] = []
    for index, char in enumerate(part, start):
        if char.isspace():
            continue
        for piece in unicodedata.normalize("NFKC", char):
            if not piece.isspace():
                letters.append(piece)
                where.append(index)
    return "".join(letters), where


def _pairs(text: str, start: int, end: int, raw: str) -> list[tuple[int, int]]:
    """Return ``(offset in text, glyph index)`` for each character of the page found."""
    mine, mine_at = _folded(text, start, end)
    theirs, theirs_at = _folded(raw, 0, len(raw))
    found = [-1] * len(mine)  # a letter of mine -> a letter of theirs
    i = j = 0
    while i < len(mine) and j < len(theirs):
        if mine[i] == theirs[j]:
            same = _same_run(mine, theirs, i, j)
            found[i : i + same] = range(j, j + same)
            i += same
            j += same
            continue
        after = mine[i + 1 : i + 1 + _GRAM]
        if len(after) >= _SHORTEST and after == theirs[j + 1 : j + 1 + _GRAM]:
            found[i] = j  # one character for another (a symbol bullet cleaning replaced)
            i += 1
            j += 1
            continue
        gram = mine[i : i + _GRAM]
        ahead = theirs.find(gram, j) if len(gram) >= _SHORTEST else -1
        if ahead < 0:
            i += 1  # not among the glyphs left: no box
        else:
            j = ahead
    if -1 in found:  # letters left out: some may be glyphs drawn late
        _fill_gaps(mine, theirs, found, _lines_of(raw, theirs_at))
    pairs: list[tuple[int, int]] = []
    last = -1
    for i, k in enumerate(found):
        if k >= 0 and mine_at[i] != last:
            last = mine_at[i]
            pairs.append((last, theirs_at[k]))
    return pairs


def _same_run(mine: str, theirs: str, i: int, j: int) -> int:
    """Return how many letters from ``mine[i]`` and ``theirs[j]`` on are equal (at least 1)."""
    same = 1
    while mine[i + same : i + same + _RUN] == theirs[j + same : j + same + _RUN]:
        if i + same + _RUN > len(mine) or j + same + _RUN > len(theirs):
            break
        same += _RUN
    while i + same < len(mine) and j + same < len(theirs) and mine[i + same] == theirs[j + same]:
        same += 1
    return same


def _lines_of(raw: str, indices: list[int]) -> list[int]:
    """Return the number of PDFium's line on which each of ``indices`` (ascending) lies."""
    line_at = _line_at(raw)
    return [line_at[index] for index in indices]


def _line_at(raw: str) -> list[int]:
    """Return, for each index of ``raw``, how many line ends come before it."""
    ends = [match.start() for match in _BREAK.finditer(raw)]
    lengths = [b - a for a, b in pairwise([-1, *ends, len(raw) - 1])]
    return list(chain.from_iterable(repeat(line, length) for line, length in enumerate(lengths)))


def _fill_gaps(mine: str, theirs: str, found: list[int], lines: list[int]) -> None:
    """Pair the letters left between two letters found on one line with the line's glyphs left.

    A glyph drawn late (a ligature from a fallback font) comes later in PDFium's order than
    where the text reads it, so the pass front to back skips it.
    """
    used = bytearray(len(theirs))
    for k in found:
        if k >= 0:
            used[k] = 1
    before = -1
    for after, k in enumerate(found):
        if k < 0:
            continue
        if before >= 0 and after - before > 1 and lines[found[before]] == lines[k]:
            line = lines[k]  # ascending: a line's letters are one range of theirs
            left = [
                g for g in range(bisect_left(lines, line), bisect_right(lines, line)) if not used[g]
            ]
            for i in range(before + 1, after):
                g = next((g for g in left if theirs[g] == mine[i]), None)
                if g is not None:
                    found[i] = g
                    used[g] = 1
                    left.remove(g)
        before = after


def _add_runs(
    text: str,
    pairs: list[tuple[int, int]],
    glyphs: Glyphs,
    number: int,
    runs: list[Run],
    extents: tuple[array[float], array[float]],
) -> None:
    """Append the line runs of one page's pairs: a run ends with PDFium's line or the text's."""
    line_at = _line_at(glyphs.text)
    run: list[tuple[int, int]] = []
    last_offset, last_line = -2, -1
    for offset, index in pairs:
        line = line_at[index]
        if run and (
            line != last_line or (offset != last_offset + 1 and "\n" in text[last_offset:offset])
        ):
            _flush(text, run, glyphs, number, runs, extents)
            run = []
        run.append((offset, index))
        last_offset, last_line = offset, line
    _flush(text, run, glyphs, number, runs, extents)


def _flush(
    text: str,
    run: list[tuple[int, int]],
    glyphs: Glyphs,
    number: int,
    runs: list[Run],
    extents: tuple[array[float], array[float]],
) -> None:
    """Append one run's rectangle and keep its characters' extents along its line."""
    if not run:
        return
    boxes, lows, highs = glyphs.boxes, *extents
    (first, start), (last, end) = run[0], run[-1]
    if last - first == end - start and glyphs.text[start : end + 1] == text[first : last + 1]:
        # The text is the glyphs' own, character for character (most lines): by slices.
        x0s, y0s = boxes[4 * start : 4 * end + 4 : 4], boxes[4 * start + 1 : 4 * end + 4 : 4]
        x1s, y1s = boxes[4 * start + 2 : 4 * end + 4 : 4], boxes[4 * start + 3 : 4 * end + 4 : 4]
        placed = [k for k, x in enumerate(x0s) if x == x]  # NaN is not equal to itself: no box
        if not placed:
            return
        vertical = _vertical(x0s, y0s, x1s, y1s, placed, turned=glyphs.turned)
        lows[first : last + 1] = y0s if vertical else x0s
        highs[first : last + 1] = y1s if vertical else x1s
    else:
        at = [4 * index for _, index in run]
        placed = [k for k, a in enumerate(at) if boxes[a] == boxes[a]]
        if not placed:
            return
        x0s, y0s = array("f", [boxes[a] for a in at]), array("f", [boxes[a + 1] for a in at])
        x1s, y1s = array("f", [boxes[a + 2] for a in at]), array("f", [boxes[a + 3] for a in at])
        vertical = _vertical(x0s, y0s, x1s, y1s, placed, turned=glyphs.turned)
        for k in placed:
            lows[run[k][0]] = y0s[k] if vertical else x0s[k]
            highs[run[k][0]] = y1s[k] if vertical else x1s[k]
    rect = (
        min(x0s[k] for k in placed),
        min(y0s[k] for k in placed),
        max(x1s[k] for k in placed),
        max(y1s[k] for k in placed),
    )
    runs.append((first, last + 1, number, *rect, vertical))


def _vertical(
    x0s: array[float],
    y0s: array[float],
    x1s: array[float],
    y1s: array[float],
    placed: list[int],
    *,
    turned: bool,
) -> bool:
    """Whether a run's line goes down the page: its last glyph is more below than beside its first.

    A run of one glyph goes the way the page's lines go (``turned``: down).
    """
    a, b = placed[0], placed[-1]
    down = abs(y0s[b] + y1s[b] - y0s[a] - y1s[a])
    across = abs(x0s[b] + x1s[b] - x0s[a] - x1s[a])
    return turned if down == across else down > across
