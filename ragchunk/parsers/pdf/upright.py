"""Pages read with their text upright, whichever way ``/Rotate`` shows them.

PDFium orders a page's text, finds its line ends, word gaps and hyphens as the page is shown,
and gives boxes in page space. Both go wrong when the text is not upright in page space as the
page is shown:

- a page turned by ``/Rotate`` while its text is drawn upright (a viewer's "rotate page",
  saved): shown, its lines run down the page and PDFium reads them out of order;
- text drawn turned in page space, whether ``/Rotate`` turns it back (Distiller's
  auto-rotated landscape pages) or not (a landscape table on a portrait page): PDFium misses
  line ends, puts spaces between the letters of a word, and layout sees every line at an angle.

``reading_turn`` tells from the angles of a page's characters how many quarter turns bring
its text upright; ``upright`` turns the open page's objects that far (in memory: the file is
never written), with its boxes to match and no ``/Rotate``, so that PDFium, layout and tables
read it like any upright page. Glyph boxes stay where the page shows them: ``upright`` yields
the map from the turned page space to the page as shown. The page's own boxes and rotation are
put back on leaving.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
from collections import Counter
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Iterator

Affine = tuple[float, float, float, float, float, float]
"""``(a, b, c, d, e, f)``: ``X = a x + b y + e``, ``Y = c x + d y + f``."""
Matrix = tuple[float, float, float, float, float, float]
"""A PDF matrix ``(a, b, c, d, e, f)``: ``x' = a x + c y + e``, ``y' = b x + d y + f``."""

_SCALE: Final = 100
"""Device units per point when PDFium maps page space to the page as shown."""
_PROBE: Final = 1000.0
_SAMPLES: Final = 64
"""How many of a page's characters vote on which way up its text stands."""
_SQUARE: Final = 0.05
"""Radians within which a character's angle counts as a quarter turn (else it is askew)."""
_QUARTER: Final = math.pi / 2


def shown_map(page: Any) -> Affine:
    """Return the map from page space to points from the top-left of the page as shown.

    PDFium's own ``FPDF_PageToDevice`` decides it (crop box and ``/Rotate``), probed at three
    points.
    """
    import pypdfium2.raw as pdfium_c  # imported with the PDF parser, before PDFium is needed

    width, height = page.get_size()
    x, y = ctypes.c_int(), ctypes.c_int()

    def shown(px: float, py: float) -> tuple[float, float]:
        pdfium_c.FPDF_PageToDevice(
            page.raw, 0, 0, round(width * _SCALE), round(height * _SCALE), 0, px, py, x, y
        )
        return x.value / _SCALE, y.value / _SCALE

    (e, f), (x1, y1), (x2, y2) = shown(0.0, 0.0), shown(_PROBE, 0.0), shown(0.0, _PROBE)
    return (x1 - e) / _PROBE, (x2 - e) / _PROBE, (y1 - f) / _PROBE, (y2 - f) / _PROBE, e, f


def reading_turn(textpage: Any) -> int | None:
    """Return the quarter turns (clockwise) that bring most of the page's text upright.

    None when no quarter turn has more than half of the sampled characters (no text, or askew
    text: a diagonal watermark votes for none).
    """
    import pypdfium2.raw as pdfium_c

    count = pdfium_c.FPDFText_CountChars(textpage)
    votes: Counter[int | None] = Counter()
    for index in range(0, max(count, 0), max(1, count // _SAMPLES)):
        if not chr(pdfium_c.FPDFText_GetUnicode(textpage, index)).isspace():
            angle = pdfium_c.FPDFText_GetCharAngle(textpage, index)  # clockwise; -1: none
            votes[None if angle < 0 else quarters(-angle)] += 1
    return majority(votes)


def quarters(angle: float) -> int | None:
    """Return the quarter turns (clockwise, 0-3) that bring text at ``angle`` upright.

    ``angle`` is in radians, counterclockwise; None when it is no quarter turn (askew text).
    """
    turns = round(angle / _QUARTER)
    return turns % 4 if abs(angle - turns * _QUARTER) <= _SQUARE else None


def majority(votes: Counter[int | None]) -> int | None:
    """Return the turn more than half of the votes are for (None votes for no turn), or None."""
    turns = Counter({turn: count for turn, count in votes.items() if turn is not None})
    turn, most = turns.most_common(1)[0] if turns else (None, 0)
    return turn if most * 2 > sum(votes.values()) else None


@contextlib.contextmanager
def upright(page: Any, turn: int | None) -> Iterator[Affine | None]:
    """Within the block, ``page`` holds its text upright in page space (module docstring).

    Yields the map from page space to the page as shown when the page was changed (its text
    page must then be loaded again), else None.
    """
    import pypdfium2.raw as pdfium_c

    rotation = page.get_rotation()
    if turn is None or (turn == 0 and rotation == 0):
        yield None
        return
    shown = shown_map(page)
    media, crop = page.get_mediabox(), page.get_cropbox()
    turned, size = quarter_turn(turn, media)
    if turn % 4:
        for index in range(pdfium_c.FPDFPage_CountObjects(page.raw)):
            pdfium_c.FPDFPageObj_Transform(pdfium_c.FPDFPage_GetObject(page.raw, index), *turned)
        page.set_mediabox(0.0, 0.0, *size)
        page.set_cropbox(*_turned_box(crop, turned))
    page.set_rotation(0)
    try:
        yield _then(_inverse(turned), shown) if turn % 4 else shown
    finally:
        page.set_rotation(rotation)
        page.set_mediabox(*media)
        page.set_cropbox(*crop)


def quarter_turn(
    turn: int, box: tuple[float, float, float, float]
) -> tuple[Matrix, tuple[float, float]]:
    """Return the PDF matrix that turns page space ``turn`` quarters clockwise, and the size.

    ``box`` is the media box ``(left, bottom, right, top)``; the turned box's lower-left
    corner is the origin, and ``(width, height)`` its size.
    """
    left, bottom, right, top = box
    width, height = right - left, top - bottom
    return {
        0: ((1.0, 0.0, 0.0, 1.0, -left, -bottom), (width, height)),
        1: ((0.0, -1.0, 1.0, 0.0, -bottom, right), (height, width)),
        2: ((-1.0, 0.0, 0.0, -1.0, right, top), (width, height)),
        3: ((0.0, 1.0, -1.0, 0.0, top, -left), (height, width)),
    }[turn % 4]


def transform(matrix: Matrix, x: float, y: float) -> tuple[float, float]:
    """Return the point ``(x, y)`` transformed by the PDF matrix ``matrix``."""
    a, b, c, d, e, f = matrix
    return a * x + c * y + e, b * x + d * y + f


def _turned_box(box: tuple[float, float, float, float], turned: Matrix) -> tuple[float, ...]:
    """Return ``(left, bottom, right, top)`` of ``box`` turned by the PDF matrix ``turned``."""
    corners = [transform(turned, x, y) for x in (box[0], box[2]) for y in (box[1], box[3])]
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _inverse(turned: Matrix) -> Matrix:
    """Return the inverse of a PDF matrix ``(a, b, c, d, e, f)`` that turns by quarters."""
    a, b, c, d, e, f = turned
    det = a * d - b * c
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return ia, ib, ic, id_, -(e * ia + f * ic), -(e * ib + f * id_)


def _then(pdf: Matrix, shown: Affine) -> Affine:
    """Return the map that applies the PDF matrix ``pdf``, then ``shown``."""
    a, b, c, d, e, f = pdf  # x' = a x + c y + e, y' = b x + d y + f
    sa, sb, sc, sd, se, sf = shown  # X = sa x' + sb y' + se, Y = sc x' + sd y' + sf
    return (
        sa * a + sb * b,
        sa * c + sb * d,
        sc * a + sd * b,
        sc * c + sd * d,
        sa * e + sb * f + se,
        sc * e + sd * f + sf,
    )
