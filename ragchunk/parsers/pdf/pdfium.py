"""The ``pdfium`` engine: each page's lines as PDFium reads them, with exact boxes.

PDFium orders the characters of a page, joins its lines with a generated CR LF and marks a
hyphen that ends a line with U+FFFE (and then no line break): the hyphen is given back and the
line ends there, so hyphenation is undone by the shared cleaning, never by the engine. A line's
box is the union of PDFium's text rectangles, its size the printed size of most of its letters
(the font size times the text matrix's scale). A glyph or two drawn after the rest of its line
but placed in a gap inside it (a ligature from a fallback font, as LibreOffice writes it) is
moved back to where it is printed, replacing the space PDFium generated in the gap; a glyph
printed twice over itself is read once; nothing else is reordered, so PDFium's own order stands
for lines PDFium joined; a right-to-left line is put in reading order by ``rtl`` (what PDFium's
bidirectional pass leaves out of place). Reading runs only after ``budget`` has
checked every page's content and fonts; PDFium's errors become ``CorruptDocumentError``.
"""

from __future__ import annotations

import ctypes
import math
import re
from array import array
from collections import Counter
from typing import TYPE_CHECKING, Any, Final

import pypdfium2
import pypdfium2.raw as pdfium_c

from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers.pdf.boxes import read_glyphs
from ragchunk.parsers.pdf.lines import CELL_GAP, Line, PageLines, font_style, has_gap
from ragchunk.parsers.pdf.rtl import Char as _Char
from ragchunk.parsers.pdf.rtl import is_right_to_left, logical_line, same_glyph
from ragchunk.parsers.pdf.tables import with_tables
from ragchunk.parsers.pdf.upright import reading_turn, upright

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ragchunk.parsers._spec import ParseRequest
    from ragchunk.parsers.pdf.budget import Budget

_LINE_END: Final = re.compile("\r\n|[\r\n\ufffe]")
_ANGLE: Final = 0.01
"""Radians past which a line prints at an angle."""
_MISPLACED: Final = 0.5
"""A run starting this many points left of what came before it on its line was drawn late."""
_TOUCHING: Final = 0.2
"""A generated space between glyphs closer than this many ems is not a word gap."""
_SIZE_SAMPLES: Final = 9
"""How many of a line's letters its size is read from."""
_LATE_GLYPHS: Final = 4
"""The longest run of glyphs drawn late that is moved: a ligature or a fallback glyph or two."""
_DOUBLED: Final = 0.6
"""A glyph covering this much of a printed glyph of the same text repeats it (bold by overprint)."""
_SECOND_UNIT: Final = "\uffff"
"""Stands for the second UTF-16 unit of a character outside the BMP (a noncharacter)."""
_PASSWORD_ERROR: Final = 4
"""PDFium's FPDF_ERR_PASSWORD: the password is missing or wrong."""
NEEDS_PASSWORD: Final = "a password is needed (give it with --password)"
_NAME: Final = ctypes.create_string_buffer(256)
"""The buffer font names are read into (one thread reads a document at a time)."""


def open_document(data: bytes, password: str | None, request: ParseRequest) -> Any:
    """Return PDFium's document of ``data``.

    Raises:
        CorruptDocumentError: PDFium cannot open it.
    """
    try:
        return pypdfium2.PdfDocument(data, password=password)
    except pypdfium2.PdfiumError as exc:
        if getattr(exc, "err_code", None) == _PASSWORD_ERROR:  # encrypted: never "corrupt"
            why = "the password given with --password is wrong" if password else NEEDS_PASSWORD
            raise CorruptDocumentError(f"{request.source}: encrypted PDF: {why}") from exc
        raise CorruptDocumentError(f"{request.source}: corrupt or truncated PDF: {exc}") from exc


def pdfium_pages(document: Any, budget: Budget, request: ParseRequest) -> list[PageLines]:
    """Return every page's lines, counting the text against ``budget``.

    Raises:
        CorruptDocumentError: a page cannot be read.
        OverBudget: the text passes its cap.
    """
    pages = []
    for index in range(len(document)):
        try:
            page = document[index]
            textpage = page.get_textpage()
        except pypdfium2.PdfiumError as exc:
            raise CorruptDocumentError(
                f"{request.source}: corrupt or truncated PDF: page {index + 1}: {exc}"
            ) from exc
        try:
            shown_size = page.get_size()
            with upright(page, reading_turn(textpage.raw)) as shown:
                if shown is not None:  # its text turned upright (upright.py): read again
                    textpage.close()
                    textpage = page.get_textpage()
                width, height = page.get_size()
                text = page_text(textpage)
                budget.count_text(text)
                lines = tuple(_lines(textpage.raw, text, height))
                # tables hook (parsers/pdf/tables.py): a ruled table's lines become its rows
                lines = with_tables(page, textpage, lines, height)
                glyphs = read_glyphs(page, textpage, text, shown)  # where each glyph is shown
        finally:
            textpage.close()
            page.close()
        pages.append(PageLines(lines, width, height, glyphs=glyphs, shown_size=shown_size))
    return pages


def page_text(textpage: Any) -> str:
    """Return PDFium's text of a page with one character per index of PDFium's characters.

    A character outside the BMP takes two indices (UTF-16 units), and PDFium's text leaves out
    the control characters it keeps in its list (a bullet font's U+0002, as in IBM's books):
    a stand-in (``_SECOND_UNIT``, which lines drop) holds each such index, so that character
    ``k`` of the text is PDFium's character ``k``, whose box and font are read by index.
    """
    count = textpage.count_chars()
    text = textpage.get_text_range(0, count) if count > 0 else ""
    if len(text) == count:
        return text
    units = array("H", text.encode("utf-16-le"))
    if len(units) != count:  # characters left out: each index's unit looked up
        raw = textpage.raw
        at = [pdfium_c.FPDFText_GetTextIndexFromCharIndex(raw, index) for index in range(count)]
        base = min((k for k in at if k >= 0), default=0)
        units = array("H", (units[k - base] if 0 <= k - base < len(units) else 0xFFFF for k in at))
    out = []
    index = 0
    while index < count:
        unit = units[index]
        if 0xD800 <= unit < 0xDC00 and index + 1 < count and 0xDC00 <= units[index + 1] < 0xE000:
            out.append(chr(0x10000 + ((unit - 0xD800) << 10) + units[index + 1] - 0xDC00))
            out.append(_SECOND_UNIT)
            index += 2
            continue
        out.append(_SECOND_UNIT if 0xD800 <= unit < 0xE000 else chr(unit))
        index += 1
    return "".join(out)


def _lines(textpage: Any, text: str, height: float) -> Iterator[Line]:
    """Yield the page's lines; ``text`` is PDFium's text of the page, one char per index."""
    start = 0
    for match in _LINE_END.finditer(text + "\n"):
        end = match.start()
        if text[start:end].strip():
            hyphen = text[end : end + 1] == "\ufffe"
            yield _line(textpage, text, start, end, height, hyphen=hyphen)
        start = match.end()


def _line(textpage: Any, text: str, start: int, end: int, height: float, *, hyphen: bool) -> Line:
    rects = _rects(textpage, start, end - start)
    body = text[start:end]
    first = start + len(body) - len(body.lstrip())
    size = _line_size(textpage, text, start, end)
    bold, italic, fixed = _line_style(textpage, text, start, end)
    angle = pdfium_c.FPDFText_GetCharAngle(textpage, first)
    rotated = _ANGLE < angle < 2 * math.pi - _ANGLE
    if is_right_to_left(body):
        body = logical_line([_char(textpage, text, i) for i in range(start, end)], size or 10.0)
    elif not rotated and any(
        rects[k][0] < rects[k - 1][2] - _MISPLACED for k in range(1, len(rects))
    ):
        body = _reorder([_char(textpage, text, i) for i in range(start, end)], size or 10.0)
    words = " ".join(body.replace(_SECOND_UNIT, "").split()) + ("-" if hyphen else "")
    if not rects:
        return Line(words, size, bold=bold, italic=italic, fixed=fixed)
    return Line(
        words,
        size,
        min(r[0] for r in rects),
        max(r[2] for r in rects),
        height - max(r[1] for r in rects),
        height - min(r[3] for r in rects),
        rotated=rotated,
        spaced=has_gap([(r[0], r[2]) for r in rects], CELL_GAP * size),
        bold=bold,
        italic=italic,
        fixed=fixed,
    )


def _line_size(textpage: Any, text: str, start: int, end: int) -> float:
    """Return the size most of a line is printed in, from up to ``_SIZE_SAMPLES`` of its letters.

    Not the first letter's alone: a line may open with a drop cap or a symbol set apart.
    """
    letters = [index for index in range(start, end) if not text[index].isspace()]
    if not letters:
        return 0.0
    step = max(1, len(letters) // _SIZE_SAMPLES)
    sizes = Counter(round(_font_size(textpage, index), 1) for index in letters[::step])
    return max(sizes, key=lambda size: (sizes[size], size))


def _line_style(textpage: Any, text: str, start: int, end: int) -> tuple[bool, bool, bool]:
    """Return whether most of a line's sampled letters are bold, italic, and fixed-pitch."""
    letters = [index for index in range(start, end) if text[index].isalnum()]
    if not letters:
        return False, False, False
    sampled = letters[:: max(1, len(letters) // _SIZE_SAMPLES)]
    votes = [font_style(*_font_info(textpage, index)) for index in sampled]
    return tuple(sum(vote[k] for vote in votes) * 2 > len(votes) for k in range(3))  # type: ignore[return-value]


def _font_info(textpage: Any, index: int) -> tuple[str, int]:
    """Return the name and descriptor flags of a character's font."""
    flags = ctypes.c_int()
    length = pdfium_c.FPDFText_GetFontInfo(textpage, index, _NAME, len(_NAME), ctypes.byref(flags))
    if length <= 0:
        return "", 0
    if length > len(_NAME):  # a longer name than the shared buffer holds (rare)
        buffer = ctypes.create_string_buffer(length)
        pdfium_c.FPDFText_GetFontInfo(textpage, index, buffer, length, ctypes.byref(flags))
        return buffer.value.decode("latin-1"), flags.value
    return _NAME.value.decode("latin-1"), flags.value


def _font_size(textpage: Any, index: int) -> float:
    """Return the printed size of a character: its font size times its matrix's vertical scale.

    ``FPDFText_GetFontSize`` gives the size set by ``Tf``, which is 1 when a PDF scales its
    text with the text matrix instead (``/F1 1 Tf 12 0 0 12 x y Tm``, common in generated PDFs).
    """
    size = pdfium_c.FPDFText_GetFontSize(textpage, index)
    matrix = pdfium_c.FS_MATRIX()
    if pdfium_c.FPDFText_GetMatrix(textpage, index, matrix):
        scale = math.hypot(matrix.c, matrix.d)
        if scale > 0:
            return float(size * scale)
    return float(size)


def _rects(textpage: Any, start: int, count: int) -> list[tuple[float, float, float, float]]:
    """Return PDFium's text rectangles of a range as ``(left, top, right, bottom)``, y up."""
    left, top, right, bottom = (ctypes.c_double() for _ in range(4))
    return [
        (left.value, top.value, right.value, bottom.value)
        for index in range(pdfium_c.FPDFText_CountRects(textpage, start, count))
        if pdfium_c.FPDFText_GetRect(textpage, index, left, top, right, bottom)
    ]


def _char(textpage: Any, text: str, index: int) -> _Char:
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    pdfium_c.FPDFText_GetCharBox(textpage, index, left, right, bottom, top)
    generated = bool(pdfium_c.FPDFText_IsGenerated(textpage, index))
    return _Char(text[index], left.value, right.value, generated)


def reorder_line(chars: Sequence[tuple[str, float, float, bool]], size: float) -> str:
    """Return a line's text with glyphs drawn late put back where they are printed.

    ``chars`` are ``(text, left, right, generated)`` in PDFium's order; ``size`` is the font
    size (a test seam for ``_reorder``).
    """
    return _reorder([_Char(*char) for char in chars], size)


def _reorder(chars: list[_Char], size: float) -> str:
    """Move each run of glyphs printed left of what precedes it back into place.

    Only a provable repair is made: runs of at most ``_LATE_GLYPHS`` glyphs (a ligature or a
    fallback glyph) that land in a gap of the line. A run that repeats the glyphs already
    printed where it lands (a title laid twice) is dropped; any other run (a running head
    PDFium joined to a body line, table cells, a footnote) leaves the line in PDFium's order,
    and so does a line holding right-to-left characters, whose order is PDFium's logical one.
    The generated spaces just around a run leave with it; where it lands, a generated space
    between the run and a glyph it touches goes (PDFium filled the run's gap with it).
    """
    if is_right_to_left(_text(chars)):
        return logical_line(chars, size)
    late: list[list[int]] = []
    frontier = float("-inf")
    for index, char in enumerate(chars):
        if char.generated:
            continue
        if same_glyph(chars, index):  # a ligature's later letters share its first one's box
            if late and late[-1][-1] == index - 1:
                late[-1].append(index)
            continue
        if char.left < frontier - _MISPLACED:
            if late and late[-1][-1] == index - 1:
                late[-1].append(index)
            else:
                late.append([index])
        else:
            frontier = max(frontier, char.right)
    in_order = {index for run in late for index in run}
    printed = [char for index, char in enumerate(chars) if index not in in_order]
    doubled = [run for run in late if _doubled([chars[index] for index in run], printed)]
    late = [run for run in late if run not in doubled and not _kerned(chars, run)]
    if any(not _fits([chars[index] for index in run], printed, size) for run in late):
        return _text([char for index, char in enumerate(chars) if not _in(index, doubled)])
    gone = {index for run in late + doubled for index in run}
    for run in late + doubled:
        for side in (run[0] - 1, run[-1] + 1):
            if 0 <= side < len(chars) and chars[side].generated:
                gone.add(side)
    kept = [char for index, char in enumerate(chars) if index not in gone]
    for run in late:
        moving = [chars[index] for index in run]
        at = _landing(kept, moving[0].left)
        kept[at:at] = moving
        _drop_gap(kept, at - 1, moving[0].left, size)  # the space before the run
        _drop_gap(kept, at + len(moving), moving[-1].right, size, after=True)
    return _text(kept)


def _text(chars: list[_Char]) -> str:
    return "".join(char.text for char in chars)


def _in(index: int, runs: list[list[int]]) -> bool:
    return any(index in run for run in runs)


def _overlap(a: _Char, b: _Char) -> float:
    """Return how much of the narrower of two glyphs' boxes the other covers (0 to 1)."""
    width = min(a.right - a.left, b.right - b.left)
    shared = min(a.right, b.right) - max(a.left, b.left)
    return shared / width if width > 0 else float(shared >= 0 and a.left == b.left)


def _doubled(run: list[_Char], printed: list[_Char]) -> bool:
    """Whether every glyph of ``run`` repeats a printed glyph of its text at its place."""
    return all(
        any(
            other.text == char.text and _overlap(char, other) > _DOUBLED
            for other in printed
            if not other.generated
        )
        for char in run
    )


def _kerned(chars: list[_Char], run: list[int]) -> bool:
    """Whether ``run`` only overlaps the glyph before it (kerning: ``r,``), not drawn late.

    It starts right of where that glyph starts, so it already stands where it is printed, and
    the generated space after it is a word gap (moving the run would take the space along).
    """
    before = run[0] - 1
    return before >= 0 and not chars[before].generated and chars[before].left <= chars[run[0]].left


def _fits(run: list[_Char], printed: list[_Char], size: float) -> bool:
    """Whether ``run`` is a ligature or fallback glyph landing in a gap of the printed glyphs."""
    if len(run) > _LATE_GLYPHS:
        return False
    left, right = min(c.left for c in run), max(c.right for c in run)
    slack = _TOUCHING * size
    return not any(
        other.left < right - slack and other.right > left + slack
        for other in printed
        if not other.generated
    )


def _landing(kept: list[_Char], left: float) -> int:
    """Return where a run starting at ``left`` goes: after the last glyph starting before it."""
    at = 0
    for index, char in enumerate(kept):
        if not char.generated and char.left <= left:
            at = index + 1
    return at


def _drop_gap(
    kept: list[_Char], index: int, edge: float, size: float, *, after: bool = False
) -> None:
    """Drop the generated space at ``index`` when the glyph past it touches the run's ``edge``."""
    if not 0 <= index < len(kept) or not kept[index].generated:
        return
    neighbour = index + 1 if after else index - 1
    if not 0 <= neighbour < len(kept) or kept[neighbour].generated:
        return
    gap = kept[neighbour].left - edge if after else edge - kept[neighbour].right
    if gap < _TOUCHING * size:
        del kept[index]
