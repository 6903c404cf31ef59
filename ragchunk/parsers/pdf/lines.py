"""The lines of a page as an engine reads them: text plus where and how large it is printed.

Every engine (pypdf, PDFium, OCR) gives each page as ``PageLines``: its lines in reading order,
each with its font size and its box in points, measured from the page's top-left corner, and
whether it is printed at an angle. Cleaning, headings and paragraphs work on these, never on an
engine's own objects. ``pypdf_pages`` reads them with pypdf, whose text pieces carry a position
but no width: a line's right edge is estimated from its characters.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from ragchunk.parsers.pdf.budget import forget_decoded
from ragchunk.parsers.pdf.upright import majority, quarter_turn, quarters, transform

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.parsers.pdf.boxes import Glyphs
    from ragchunk.parsers.pdf.budget import Budget
    from ragchunk.parsers.pdf.tables import TableRow
    from ragchunk.parsers.pdf.upright import Matrix

CHAR_WIDTH: Final = 0.5
"""A character's estimated width, in ems, where an engine does not say (pypdf)."""
CELL_GAP: Final = 1.5
"""A gap between two pieces of a line wider than this many ems splits cells or tab stops."""
_BOLD_NAME: Final = re.compile(
    r"bold|black|heavy|semibold|demi|(?:^|[^a-z])(?:sf|cm|ec|lm)?bx", re.I
)
_ITALIC_NAME: Final = re.compile(r"italic|oblique|(?:^|[^a-z])(?:sf|cm|ec|lm)(?:ti|it|sl)\d", re.I)
_FIXED_NAME: Final = re.compile(
    r"courier|mono|consol|menlo|inconsolata|typewriter|lettergothic|(?:^|[^a-z])(?:sf|cm|ec|lm)tt",
    re.I,
)
_FIXED_PITCH: Final = 1
_ITALIC_FLAG: Final = 1 << 6
_FORCE_BOLD: Final = 1 << 18
_ROTATED: Final = 0.1
"""A text matrix whose skew passes this share of its scale prints at an angle."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a page: its text (no line feed) and where it is printed.

    Attributes:
        text: the characters, stripped of spaces at both ends.
        size: the line's font size in points (0 when unknown): the printed size most of its
            letters have (PDFium), the largest on the line (pypdf).
        left, right, top, bottom: the line's box in points from the page's top-left corner.
        rotated: whether the text runs at an angle (a diagonal watermark).
        spaced: whether gaps wider than a word space split it (table cells, tab stops).
        bold, italic, fixed: whether most of its letters are set in a bold, an italic, a
            fixed-pitch (code) font, by the font's name or descriptor flags (``font_style``).
        row: set when the line is a row of a ruled table (``tables``), its cells separated.
    """

    text: str
    size: float = 0.0
    left: float = 0.0
    right: float = 0.0
    top: float = 0.0
    bottom: float = 0.0
    rotated: bool = False
    spaced: bool = False
    bold: bool = False
    italic: bool = False
    fixed: bool = False
    row: TableRow | None = None

    @property
    def placed(self) -> bool:
        """Whether the engine said where the line is printed."""
        return self.right > self.left


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading found on a page: its lines ``first`` to ``last`` (inclusive) and its path.

    An outline entry whose title is not printed but whose destination has a position is a
    heading of no lines (``last == first - 1``) before line ``first``: its path starts there.
    """

    page: int
    first: int
    last: int
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PageLines:
    """A page's lines in reading order, its size in points, and how its text was found.

    ``width`` and ``height`` are the page's as read, its text upright (``upright``), which
    ``shown_size`` gives as the page is shown when it differs. ``confidence`` is the mean OCR
    confidence (0-100) when the page was recognised by OCR, else None; ``glyphs``: PDFium's
    characters with their boxes as shown (``boxes``), else None.
    """

    lines: tuple[Line, ...]
    width: float
    height: float
    confidence: float | None = None
    glyphs: Glyphs | None = None
    shown_size: tuple[float, float] | None = None

    @property
    def shown(self) -> tuple[float, float]:
        """Return the page's ``(width, height)`` as shown: the size its glyph boxes are in."""
        return self.shown_size or (self.width, self.height)

    @property
    def has_text(self) -> bool:
        """Whether any line holds a character that is not a space."""
        return any(line.text.strip() for line in self.lines)


def pypdf_pages(reader: Any, budget: Budget) -> list[PageLines]:
    """Return every page's lines as pypdf extracts them, within ``budget``.

    Raises:
        OverBudget, LimitExceededError: the content or the text passes its cap.
    """
    pages = []
    for page in reader.pages:
        streams = budget.count_page(page)
        box = page.mediabox
        media = (float(box.left), float(box.bottom), float(box.right), float(box.top))
        lines, (width, height) = _page_lines(page, budget, media)
        forget_decoded(streams)
        shown = (float(box.width), float(box.height))
        pages.append(PageLines(tuple(lines), width, height, shown_size=shown))
    return pages


@lru_cache(maxsize=1024)  # a document has a few fonts; PDFium asks per character
def font_style(name: str, flags: int) -> tuple[bool, bool, bool]:
    """Return whether a font is bold, italic, fixed-pitch, from its name and descriptor flags.

    The name decides first (``Helvetica-Bold``, ``Times-Italic``, ``Courier``; TeX's ``SFBX``,
    ``CMTI``, ``CMTT``): engines' weights are unreliable (PDFium gives TeX's bold 250).
    """
    name = name.split("+", 1)[-1]  # a subset's tag, ABCDEF+
    bold = bool(_BOLD_NAME.search(name)) or bool(flags & _FORCE_BOLD)
    italic = bool(_ITALIC_NAME.search(name)) or bool(flags & _ITALIC_FLAG)
    fixed = bool(_FIXED_NAME.search(name)) or bool(flags & _FIXED_PITCH)
    return bold, italic, fixed


def has_gap(extents: Sequence[tuple[float, float]], gap: float) -> bool:
    """Return whether ``(left, right)`` extents leave a horizontal gap wider than ``gap``."""
    reach = None
    for left, right in sorted(extents):
        if reach is not None and left - reach > gap:
            return True
        reach = right if reach is None else max(reach, right)
    return False


@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    x: float
    y: float
    size: float
    rotated: bool
    style: tuple[bool, bool, bool] = (False, False, False)
    axes: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 1.0)
    """The text's axes in page space: ``(a, b)`` runs along the line, ``(c, d)`` up it."""

    def turned(self, turn: Matrix) -> _Piece:
        """Return the piece on the page turned by the PDF matrix ``turn`` (``upright``)."""
        linear = (*turn[:4], 0.0, 0.0)  # the axes are directions: no shift
        a, b, c, d = self.axes
        axes = (*transform(linear, a, b), *transform(linear, c, d))
        x, y = transform(turn, self.x, self.y)
        return dataclasses.replace(self, x=x, y=y, rotated=_is_rotated(*axes), axes=axes)


def _page_lines(
    page: Any, budget: Budget, media: tuple[float, float, float, float]
) -> tuple[list[Line], tuple[float, float]]:
    """Return a page's lines from pypdf's text and the pieces its visitor saw, and its size.

    pypdf calls the visitor with exactly the pieces it joins into its result; when that ever
    does not hold, the lines keep their text and lose their geometry. A page whose text is
    mostly drawn turned has its pieces turned upright first (``_reading_turn``), and its size
    is the upright page's.
    """
    pieces: list[_Piece] = []

    styles: dict[int, tuple[bool, bool, bool]] = {}

    def visit(text: str, cm: Sequence[float], tm: Sequence[float], font: Any, size: Any) -> None:
        budget.count_text(text)
        if id(font) not in styles:
            styles[id(font)] = _pypdf_style(font)
        pieces.append(_piece(text, cm, tm, size, styles[id(font)]))

    def check(operator: bytes, operands: Any, _cm: Any, _tm: Any) -> None:
        budget.check_operation(operator, operands)

    text: str = page.extract_text(visitor_text=visit, visitor_operand_before=check)
    turns = _reading_turn(pieces)
    turn, size = quarter_turn(turns, media)
    if "".join(piece.text for piece in pieces) != text:
        return [Line(" ".join(part.split())) for part in text.split("\n") if part.strip()], size
    if turns:
        pieces = [piece.turned(turn) for piece in pieces]
    height = size[1]
    lines: list[Line] = []
    current: list[_Piece] = []
    for piece in pieces:
        head, *rest = piece.text.split("\n")
        current.append(_Piece(head, piece.x, piece.y, piece.size, piece.rotated, piece.style))
        for part in rest:  # a line feed in a piece ends the line; what follows starts the next
            lines += _line(current, height)
            current = [_Piece(part, piece.x, piece.y, piece.size, piece.rotated, piece.style)]
    lines += _line(current, height)
    return lines, size


def _reading_turn(pieces: Sequence[_Piece]) -> int:
    """Return the quarter turns (clockwise) that bring most of the pieces' letters upright."""
    votes: Counter[int | None] = Counter()
    for piece in pieces:
        votes[quarters(math.atan2(piece.axes[1], piece.axes[0]))] += len(piece.text.strip())
    return majority(votes) or 0


def _is_rotated(a: float, b: float, c: float, d: float) -> bool:
    """Whether text with these axes runs at an angle to the page (a diagonal watermark)."""
    return abs(b) > _ROTATED * abs(a) or abs(c) > _ROTATED * abs(d)


def _pypdf_style(font: Any) -> tuple[bool, bool, bool]:
    """Return whether a pypdf font dictionary is bold, italic, fixed-pitch (``font_style``)."""
    try:
        name = str(font.get("/BaseFont", ""))
        descriptor = font.get("/FontDescriptor")
        if descriptor is None and "/DescendantFonts" in font:
            descriptor = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
        flags = int(descriptor.get_object().get("/Flags", 0)) if descriptor is not None else 0
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        return False, False, False
    return font_style(name.lstrip("/"), flags)


def _piece(
    text: str,
    cm: Sequence[float],
    tm: Sequence[float],
    font_size: Any,
    style: tuple[bool, bool, bool] = (False, False, False),
) -> _Piece:
    """Return a piece with its origin and rendered size from the text and CTM matrices."""
    try:
        a = tm[0] * cm[0] + tm[1] * cm[2]
        b = tm[0] * cm[1] + tm[1] * cm[3]
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        size = round(abs(float(font_size)) * math.hypot(c, d), 1)
    except (TypeError, ValueError, IndexError):
        return _Piece(text, 0.0, 0.0, 0.0, rotated=False, style=style)
    return _Piece(text, x, y, size, _is_rotated(a, b, c, d), style, (a, b, c, d))


def _line(pieces: Sequence[_Piece], height: float) -> list[Line]:
    """Return the line the pieces make (none when they hold no text)."""
    text = " ".join("".join(piece.text for piece in pieces).split())
    if not text:
        return []
    printed = [piece for piece in pieces if piece.text.strip()]
    size = max(piece.size for piece in printed)
    left = min(piece.x for piece in printed)
    right = max(piece.x + CHAR_WIDTH * piece.size * len(piece.text.strip()) for piece in printed)
    baseline = height - printed[0].y
    extents = [
        (piece.x, piece.x + CHAR_WIDTH * piece.size * len(piece.text.rstrip())) for piece in printed
    ]
    spaced = has_gap(extents, CELL_GAP * size)
    letters = sum(len(piece.text.strip()) for piece in printed)
    bold, italic, fixed = (
        sum(len(piece.text.strip()) for piece in printed if piece.style[k]) * 2 > letters
        for k in range(3)
    )
    return [
        Line(
            text,
            size,
            left,
            right,
            baseline - 0.8 * size,
            baseline + 0.2 * size,
            rotated=any(piece.rotated for piece in printed),
            spaced=spaced,
            bold=bold,
            italic=italic,
            fixed=fixed,
        )
    ]
