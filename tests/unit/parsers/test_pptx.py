"""PPTX: slides as pages, titles as headings, reading order, tables, notes, hidden slides."""

from __future__ import annotations

import io
import zipfile

import pytest

from ragchunk.errors import CorruptDocumentError
from ragchunk.model import Document
from ragchunk.parsers import detect
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pptx import parse
from tests.conftest import FIXTURES

DECK = FIXTURES / "pptx" / "results-briefing.pptx"


def deck(**options: bool) -> Document:
    return parse(DECK.read_bytes(), ParseRequest(options=ParseOptions(**options)))


def page_text(doc: Document, number: int) -> str:
    [page] = [p for p in doc.pages if p.number == number]
    return doc.text[page.start : page.end]


def test_slides_are_pages_with_their_titles_as_headings() -> None:
    doc = deck()
    assert [p.number for p in doc.pages] == [1, 2, 3, 4, 6, 7, 8]
    assert doc.metadata["hidden_slides"] == [5]
    headings = [doc.text[s.start : s.end] for s in doc.sections if s.kind == "heading"]
    assert headings == [
        "Water quality in the Wend estuary, 2023",
        "Agenda",
        "Dissolved oxygen",
        "Nutrients at a glance",
        "Bathing water",
        "Recommendations for 2024",
    ]
    assert page_text(doc, 8).startswith("Questions?")
    last = [s for s in doc.sections if s.start >= doc.pages[-1].start]
    assert all(s.headings == () for s in last)


def test_text_boxes_are_read_top_to_bottom_then_left_to_right() -> None:
    text = page_text(deck(), 3)
    order = ["Tanner's Reach fell", "Seaward sites", "Fewer low-oxygen", "Source: monthly"]
    assert [text.index(piece) for piece in order] == sorted(text.index(p) for p in order)


def test_outline_levels_indent_and_tables_read_as_rows() -> None:
    doc = deck()
    assert "The 2023 programme\n  Eleven sites, twenty-four survey days\nResults\n" in doc.text
    [table] = [s for s in doc.sections if s.kind == "table"]
    assert table.header is not None
    assert doc.text[table.header[0] : table.header[1]] == "| Indicator | 2022 | 2023 | Trend |"
    assert len(table.parts) == 4


def test_notes_and_hidden_slides_when_asked() -> None:
    plain = deck()
    assert "notes" in plain.metadata["left_out"]  # type: ignore[operator]
    full = deck(notes=True, hidden_slides=True)
    notes = [s for s in full.sections if s.kind == "notes"]
    assert len(notes) == 4
    assert all(s.metadata == {"notes": True} for s in notes)
    assert "Backup: sensor replacement costs" in full.text
    assert "left_out" not in full.metadata
    assert "hidden_slides" not in full.metadata


def rewritten(name: str, body: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(DECK) as source, zipfile.ZipFile(buffer, "w") as out:
        for info in source.infolist():
            out.writestr(info, body if info.filename == name else source.read(info))
    return buffer.getvalue()


def test_a_broken_slide_part_is_named() -> None:
    data = rewritten("ppt/slides/slide3.xml", b"<p:sld xmlns:p='x'><unclosed></p:sld>")
    with pytest.raises(CorruptDocumentError, match=r"ppt/slides/slide3\.xml cannot be read"):
        parse(data, ParseRequest(source="broken.pptx"))


def test_detection() -> None:
    data = DECK.read_bytes()
    assert detect("deck", data[:8], data) == "pptx"


def test_a_shape_without_geometry_is_read_and_the_deck_too() -> None:
    from tests.data.make_hostile_zip import pptx_shape_without_geometry

    doc = parse(pptx_shape_without_geometry(), ParseRequest())
    assert "Read without geometry.\n\nBoxed." in page_text(doc, 2)
    assert [p.number for p in doc.pages] == [1, 2, 3, 4, 6, 7, 8]


def test_a_slide_listed_twice_is_read_once_with_a_warning() -> None:
    from tests.data.make_hostile_zip import pptx_repeated_slide

    warnings: list[tuple[str, str]] = []
    request = ParseRequest(source="deck.pptx", warn=lambda *w: warnings.append(w))
    doc = parse(pptx_repeated_slide(count=3), request)
    assert [p.number for p in doc.pages] == [1]
    assert warnings == [
        (
            "repeated-part",
            "deck.pptx: 2 slide id(s) name a slide already read (the first: slide 2); "
            "each slide is read once",
        )
    ]
