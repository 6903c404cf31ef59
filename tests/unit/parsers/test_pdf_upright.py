"""Turned pages read as upright ones (``parsers/pdf/upright.py``).

Each born-digital fixture is turned by pypdf three ways: the page shown turned by ``/Rotate``
(its text still upright in page space: a viewer's "rotate page", saved), its content drawn
turned and shown upright by ``/Rotate`` (Distiller's auto-rotated landscape pages), and its
content drawn turned on a page without ``/Rotate`` (a sideways page). Each must read exactly
as the upright file, with either engine: the same text, sections and pages.
"""

from __future__ import annotations

from pathlib import Path

import pypdf
import pypdfium2
import pytest

from ragchunk.model import Document
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.budget import Budget
from ragchunk.parsers.pdf.pdfium import pdfium_pages
from ragchunk.parsers.pdf.upright import reading_turn
from tests.conftest import FIXTURES

BORN_DIGITAL = sorted(path for path in (FIXTURES / "pdf").glob("*.pdf") if "scan" not in path.name)


def turned(source: Path, how: str, target: Path, degrees: int = 90) -> Path:
    """Write ``source`` turned ``how``: ``shown`` (by /Rotate), ``drawn`` then shown upright
    by /Rotate, or ``sideways`` (drawn turned, no /Rotate)."""
    writer = pypdf.PdfWriter(clone_from=source)
    for page in writer.pages:
        if how == "shown":
            page.rotate(degrees)
        else:  # the content itself turned, then (drawn) shown upright again
            page.rotate(360 - degrees)
            page.transfer_rotation_to_content()
            if how == "drawn":
                page.rotate(degrees)
    with target.open("wb") as handle:
        writer.write(handle)
    return target


def read(path: Path, engine: str = "pdfium") -> Document:
    request = ParseRequest(source=str(path), options=ParseOptions(pdf_engine=engine))
    return parse(path.read_bytes(), request)


def reading(doc: Document) -> tuple[object, ...]:
    """What a reader gets of a document: its text, sections and pages (not where glyphs are)."""
    sections = [(s.start, s.end, s.kind, s.headings, s.level) for s in doc.sections]
    return doc.text, sections, doc.pages


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
@pytest.mark.parametrize("how", ["shown", "drawn", "sideways"])
@pytest.mark.parametrize("path", BORN_DIGITAL, ids=lambda path: path.name)
def test_a_turned_page_reads_as_the_upright_one(
    path: Path, how: str, engine: str, tmp_path: Path
) -> None:
    upright = read(path, engine)
    assert reading(read(turned(path, how, tmp_path / "turned.pdf"), engine)) == reading(upright)


@pytest.mark.parametrize(("how", "degrees"), [("shown", 180), ("shown", 270), ("drawn", 270)])
def test_every_quarter_turn_reads_upright(how: str, degrees: int, tmp_path: Path) -> None:
    path = FIXTURES / "pdf" / "estuary-report.pdf"  # two columns, a ruled table, hyphens
    got = read(turned(path, how, tmp_path / "turned.pdf", degrees))
    assert reading(got) == reading(read(path))


def test_the_reading_turn_is_what_brings_most_characters_upright(tmp_path: Path) -> None:
    path = FIXTURES / "pdf" / "report-plain.pdf"
    cases = {
        "upright": (path, 0),
        "shown": (turned(path, "shown", tmp_path / "shown.pdf"), 0),
        "drawn": (turned(path, "drawn", tmp_path / "drawn.pdf"), 1),
        "sideways": (turned(path, "sideways", tmp_path / "sideways.pdf", 270), 3),
    }
    for name, (pdf, turn) in cases.items():
        document = pypdfium2.PdfDocument(pdf)
        textpage = document[0].get_textpage()
        assert reading_turn(textpage.raw) == turn, name


def test_a_page_without_text_has_no_reading_turn() -> None:
    document = pypdfium2.PdfDocument(FIXTURES / "pdf" / "inspection-letter-scan.pdf")
    assert reading_turn(document[0].get_textpage().raw) is None


def test_reading_leaves_each_page_as_it_was(tmp_path: Path) -> None:
    """The turn is made in memory and undone: the document shows and renders as before."""
    source = FIXTURES / "pdf" / "estuary-report.pdf"
    path = turned(source, "drawn", tmp_path / "drawn.pdf")
    document = pypdfium2.PdfDocument(path)
    before = [(p.get_rotation(), p.get_mediabox(), p.get_cropbox()) for p in document]
    pages = pdfium_pages(document, Budget(str(path), 10**9), ParseRequest(source=str(path)))
    assert [(p.get_rotation(), p.get_mediabox(), p.get_cropbox()) for p in document] == before
    # Lines were read upright (only the diagonal watermark is at an angle, as in the source);
    # each page keeps its size as shown, which its glyph boxes are in.
    upright = pdfium_pages(
        pypdfium2.PdfDocument(source), Budget(str(source), 10**9), ParseRequest(source=str(source))
    )
    angled = [[line.text for line in page.lines if line.rotated] for page in pages]
    assert angled == [[line.text for line in page.lines if line.rotated] for page in upright]
    assert any(angled)
    assert [page.shown for page in pages] == [tuple(p.get_size()) for p in document]
    assert [(page.width, page.height) for page in pages] == [p.shown for p in upright]
