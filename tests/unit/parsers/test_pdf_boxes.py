"""Boxes on the page (issue 30): a PDF chunk's ``boxes`` cover exactly its characters.

The expected place of every character comes from PDFium's ``FPDFText_GetCharBox`` read here,
independently of the parser: each page's text is aligned with PDFium's characters by difflib
(letters only, NFKC; one letter replaced by one counts), and each character found gets its
glyph's box, turned to points from the
page's top-left corner. Every such character of a chunk must lie inside one of the chunk's
boxes, and no character outside the chunk may lie inside one (a box that reached past the
chunk's first or last character would hold its neighbour).
"""

from __future__ import annotations

import ctypes
import difflib
import json
import unicodedata
from itertools import pairwise
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c
import pytest

from ragchunk.model import Chunk, Document
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.sinks.jsonl import lines
from tests.conftest import FIXTURES, ROOT

BORN_DIGITAL = sorted(path for path in (FIXTURES / "pdf").glob("*.pdf") if "scan" not in path.name)
SLACK = 0.11
"""Boxes are rounded outward to a tenth of a point; PDFium's boxes are float32."""
Rect = tuple[float, float, float, float]


def _chunked(path: Path, **settings: object) -> tuple[Document, list[Chunk]]:
    plan = make_plan(shortcuts({"strategy": "recursive", **settings}))  # type: ignore[arg-type]
    source = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    result = process(source, path.name, plan, keep_document=True)
    assert result.error is None
    assert result.document is not None
    return result.document, list(result.chunks)


def _pdfium_chars(path: Path) -> list[tuple[str, list[Rect | None]]]:
    """Return each page's PDFium text and its characters' boxes, top-left origin."""
    pages = []
    document = pypdfium2.PdfDocument(path)
    try:
        for page in document:
            left, bottom = page.get_cropbox()[:2]
            assert (left, bottom) == (0, 0)
            assert page.get_rotation() == 0
            height = page.get_height()
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            boxes: list[Rect | None] = []
            x0, x1, y0, y1 = (ctypes.c_double() for _ in range(4))
            for index, char in enumerate(text):
                found = not char.isspace() and pdfium_c.FPDFText_GetCharBox(
                    textpage.raw, index, x0, x1, y0, y1
                )
                box = (x0.value, height - y1.value, x1.value, height - y0.value)
                boxes.append(box if found else None)
            pages.append((text, boxes))
            textpage.close()
            page.close()
    finally:
        document.close()
    return pages


def _letters(text: str, start: int, end: int) -> tuple[str, list[int]]:
    letters, where = [], []
    for index in range(start, end):
        char = "-" if text[index] == "\ufffe" else text[index]
        for part in unicodedata.normalize("NFKC", char):
            if not part.isspace():
                letters.append(part)
                where.append(index)
    return "".join(letters), where


def _expected(doc: Document, path: Path) -> dict[int, tuple[int, Rect]]:
    """Return ``offset -> (page, glyph box)`` for every character of ``doc`` found in PDFium's.

    Each page's text is aligned with its glyphs and the first ones of the next page (a word
    joined across the page turn is printed there).
    """
    placed: dict[int, tuple[int, Rect]] = {}
    pdfium = _pdfium_chars(path)
    for page in doc.pages:
        mine, mine_at = _letters(doc.text, page.start, page.end)
        theirs, where = "", []
        for number in (page.number, page.number + 1)[: len(pdfium) - page.number + 1]:
            raw, boxes = pdfium[number - 1]
            end = len(raw) if number == page.number else min(300, len(raw))
            letters, at = _letters(raw, 0, end)
            theirs += letters
            where += [(number, boxes[k]) for k in at]
        matcher = difflib.SequenceMatcher(None, mine, theirs, autojunk=False)
        for kind, a, a_end, b, b_end in matcher.get_opcodes():
            # equal letters, and one letter for another (a symbol bullet cleaning replaced)
            if kind == "equal" or (kind == "replace" and a_end - a == b_end - b == 1):
                for k in range(a_end - a):
                    number, box = where[b + k]
                    if box is not None and box[2] > box[0]:
                        placed[mine_at[a + k]] = (number, box)
    return placed


def _inside(box: Rect, rect: Rect, slack: float = SLACK) -> bool:
    return (
        box[0] >= rect[0] - slack
        and box[1] >= rect[1] - slack
        and box[2] <= rect[2] + slack
        and box[3] <= rect[3] + slack
    )


def _centre_inside(box: Rect, rect: Rect) -> bool:
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return rect[0] < x < rect[2] and rect[1] < y < rect[3]


@pytest.mark.parametrize("settings", [{"size": 200, "overlap": 40}, {}], ids=["200", "default"])
@pytest.mark.parametrize(
    # rtl-notes.pdf: ragchunk reads words PDFium gives in visual order from their right, which
    # this test's letter-by-letter alignment with PDFium's text cannot follow
    "path",
    [path for path in BORN_DIGITAL if path.name != "rtl-notes.pdf"],
    ids=lambda p: p.name,
)
def test_boxes_cover_exactly_the_chunks_characters(path: Path, settings: dict[str, int]) -> None:
    doc, chunks = _chunked(path, **settings)
    expected = _expected(doc, path)
    # The test's own alignment finds nearly every printed letter (a table's cell bars are not).
    letters = sum(1 for char in doc.text if not char.isspace() and char != "|")
    assert len(expected) > 0.97 * letters
    cut = 0
    for chunk in chunks:
        assert chunk.boxes, f"chunk {chunk.index} has no boxes"
        mine = {k: v for k, v in expected.items() if chunk.start <= k < chunk.end}
        for offset, (page, box) in mine.items():
            assert any(number == page and _inside(box, rect) for number, *rect in chunk.boxes), (
                f"chunk {chunk.index}: {doc.text[offset]!r} at {offset} lies in none of its boxes"
            )
        for number, *rect in chunk.boxes:
            assert rect[0] < rect[2]
            assert rect[1] < rect[3]
            assert all(round(value, 1) == value for value in rect)
            held = [box for page, box in mine.values() if page == number and _inside(box, rect)]
            assert held, f"chunk {chunk.index}: box {rect} holds none of its characters"
            assert rect[0] >= min(box[0] for box in held) - SLACK
            assert rect[2] <= max(box[2] for box in held) + SLACK
            for offset, (page, box) in expected.items():
                if page == number and not chunk.start <= offset < chunk.end:
                    assert not _centre_inside(box, rect), (
                        f"chunk {chunk.index} [{chunk.start}, {chunk.end}): box {rect} holds "
                        f"{doc.text[offset]!r} at {offset}, outside the chunk"
                    )
        cut += chunk.start > 0 and doc.text[chunk.start - 1] != "\n"
    if settings:
        assert cut  # some chunks start inside a line: their first box is narrowed


def test_boxes_are_one_per_line_run() -> None:
    doc, chunks = _chunked(FIXTURES / "pdf" / "report-plain.pdf")
    for chunk in chunks:
        assert chunk.boxes is not None
        for k, (page, _, y0, _, y1) in enumerate(chunk.boxes):
            assert y1 - y0 < 2 * 11  # one line of 11-point text (headings 14)
            for other in chunk.boxes[k + 1 :]:  # each line once: the next lies below
                assert other[0] > page or other[2] >= y1 - 1
    assert doc.boxes is not None
    runs = doc.boxes.runs
    assert all(a[1] <= b[0] for a, b in pairwise(runs))
    assert all("\n" not in doc.text[run[0] : run[1]] for run in runs)


def test_the_document_records_its_page_sizes() -> None:
    doc, _ = _chunked(FIXTURES / "pdf" / "inspection-letter.pdf")
    assert doc.page_sizes == ((595.3, 841.9), (595.3, 841.9))  # A4


def test_jsonl_records_carry_boxes_for_pdf_only() -> None:
    _, chunks = _chunked(FIXTURES / "pdf" / "report-outline.pdf")
    record = json.loads(lines(chunks).splitlines()[0])
    assert record["boxes"][0]["page"] == 1
    assert all(list(box) == ["page", "x0", "y0", "x1", "y1"] for box in record["boxes"])
    _, text_chunks = _chunked(FIXTURES / "text" / "field-notes.txt")
    assert "boxes" not in json.loads(lines(text_chunks).splitlines()[0])


def test_the_pypdf_engine_gives_no_boxes() -> None:
    doc, chunks = _chunked(FIXTURES / "pdf" / "report-outline.pdf", pdf_engine="pypdf")
    assert doc.boxes is None
    assert all(chunk.boxes is None for chunk in chunks)
    assert doc.page_sizes == ((612.0, 792.0),) * 3


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_boxes_follow_the_page_as_shown_when_it_is_rotated(turn: int, tmp_path: Path) -> None:
    import pypdf

    source = FIXTURES / "pdf" / "report-plain.pdf"
    writer = pypdf.PdfWriter(clone_from=source)
    for page in writer.pages:
        page.rotate(turn)
    rotated = tmp_path / "rotated.pdf"
    with rotated.open("wb") as handle:
        writer.write(handle)
    upright, _ = _chunked(source)
    turned, chunks = _chunked(rotated, size=200, overlap=40)
    width, height = upright.page_sizes[0]
    assert turned.page_sizes[0] == ((width, height) if turn == 180 else (height, width))

    def shown(x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
        """The upright rectangle on the page turned clockwise by ``turn`` degrees."""
        if turn == 90:
            return (height - y1, x0, height - y0, x1)
        if turn == 180:
            return (width - x1, height - y1, width - x0, height - y0)
        return (y0, width - x1, y1, width - x0)

    assert upright.boxes is not None
    assert turned.boxes is not None
    # The turned page reads as the upright one (upright.py): each printed line has its place
    # turned with the page.
    assert turned.text == upright.text
    assert [r[:3] for r in turned.boxes.runs] == [r[:3] for r in upright.boxes.runs]
    for before, after in zip(upright.boxes.runs, turned.boxes.runs, strict=True):
        assert after[7] == (turn != 180)  # vertical: the line runs down the page as shown
        assert after[3:7] == pytest.approx(shown(*before[3:7]), abs=0.05)
    # A chunk that starts inside a line gets the part of the line from its first character on:
    # down the page, when the page is turned a quarter.
    inside = {c.index: r for c in chunks for r in turned.boxes.runs if r[0] < c.start < r[1]}
    assert inside
    for chunk in chunks:
        if chunk.index not in inside:
            continue
        assert chunk.boxes
        page, x0, y0, x1, y1 = chunk.boxes[0]
        run = inside[chunk.index]
        assert x0 >= run[3] - SLACK
        assert y0 >= run[4] - SLACK
        assert x1 <= run[5] + SLACK
        assert y1 <= run[6] + SLACK
        along = (y1 - y0, run[6] - run[4]) if turn != 180 else (x1 - x0, run[5] - run[3])
        assert along[0] < along[1] - 1 or run[0] == chunk.start
