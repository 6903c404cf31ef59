"""The DOCX parser: text in document order, heading paths, lists, tables, pages, metadata."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from ragchunk.model import Document, Page
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.docx import parse
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES

REPORT = FIXTURES / "docx" / "report.docx"
MEMO = FIXTURES / "docx" / "memo.docx"


def build(fill: Callable[[Any], None]) -> bytes:
    """Return the bytes of a new python-docx document after ``fill(document)``."""
    document = docx.Document()
    fill(document)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def parsed(fill: Callable[[Any], None]) -> Document:
    return parse(build(fill), ParseRequest(source="t.docx"))


def blocks(doc: Document) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(s.kind, doc.text[s.start : s.end], s.headings) for s in doc.sections]


def add_rendered_break(paragraph: Any, position: int = 0) -> None:
    """Put a w:lastRenderedPageBreak into the paragraph's run at ``position``."""
    run = paragraph.runs[position]._r
    run.insert(0, OxmlElement("w:lastRenderedPageBreak"))


def test_headings_lists_and_tables_in_document_order() -> None:
    def fill(document: Any) -> None:
        document.add_heading("Intro", level=1)
        document.add_paragraph("Plain text.")
        document.add_heading("Parts", level=2)
        document.add_paragraph("first", style="List Bullet")
        document.add_paragraph("second", style="List Number")
        table = document.add_table(rows=2, cols=2)
        for row, values in zip(table.rows, [("a", "b|c"), ("1", "2")], strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
        document.add_heading("Deep", level=3)
        document.add_paragraph("body")
        document.add_heading("Next", level=1)

    doc = parsed(fill)
    assert doc.text == (
        "Intro\n\nPlain text.\n\nParts\n\n• first\n1. second\n\n| a | b\\|c |\n| 1 | 2 |"
        "\n\nDeep\n\nbody\n\nNext"
    )
    assert blocks(doc) == [
        ("heading", "Intro", ("Intro",)),
        ("prose", "Plain text.", ("Intro",)),
        ("heading", "Parts", ("Intro", "Parts")),
        ("list", "• first\n1. second", ("Intro", "Parts")),  # numbers as Word prints them
        ("table", "| a | b\\|c |\n| 1 | 2 |", ("Intro", "Parts")),
        ("heading", "Deep", ("Intro", "Parts", "Deep")),
        ("prose", "body", ("Intro", "Parts", "Deep")),
        ("heading", "Next", ("Next",)),
    ]
    assert [s.level for s in doc.sections if s.kind == "heading"] == [1, 2, 3, 1]
    listing, table = doc.sections[3], doc.sections[4]
    assert [doc.text[s:e] for s, e in listing.parts] == ["• first", "1. second"]
    assert table.header is not None
    assert doc.text[slice(*table.header)] == "| a | b\\|c |"
    assert [doc.text[s:e] for s, e in table.parts] == ["| 1 | 2 |"]
    assert doc.pages == ()
    assert not doc.has_lines
    assert doc.format == "docx"


def test_title_is_the_root_of_the_path_and_outline_levels_count() -> None:
    def fill(document: Any) -> None:
        document.add_paragraph("The Title", style="Title")
        document.add_paragraph("lead")
        style = document.styles.add_style("Chapter", WD_STYLE_TYPE.PARAGRAPH)
        outline = OxmlElement("w:outlineLvl")
        outline.set(qn("w:val"), "0")
        style.element.get_or_add_pPr().append(outline)
        document.add_paragraph("Chapter one", style="Chapter")
        document.add_heading("Section", level=2)
        direct = document.add_paragraph("Direct outline")
        level = OxmlElement("w:outlineLvl")
        level.set(qn("w:val"), "1")
        direct._p.get_or_add_pPr().append(level)
        document.add_paragraph("Subtitle text", style="Subtitle")

    doc = parsed(fill)
    assert [(k, h) for k, _, h in blocks(doc)] == [
        ("heading", ("The Title",)),
        ("prose", ("The Title",)),
        ("heading", ("The Title", "Chapter one")),
        ("heading", ("The Title", "Chapter one", "Section")),
        ("heading", ("The Title", "Chapter one", "Direct outline")),
        ("prose", ("The Title", "Chapter one", "Direct outline")),
    ]
    assert doc.sections[0].metadata == {"style": "Title"}
    assert doc.sections[2].metadata == {"style": "Chapter"}


def test_explicit_page_breaks_make_pages() -> None:
    def fill(document: Any) -> None:
        document.add_paragraph("one")
        document.add_page_break()
        document.add_paragraph("two")
        paragraph = document.add_paragraph("three")
        paragraph.paragraph_format.page_break_before = True

    doc = parsed(fill)
    assert doc.text == "one\n\ntwo\n\nthree"
    assert [(p.number, doc.text[p.start : p.end]) for p in doc.pages] == [
        (1, "one"),
        (2, "two"),
        (3, "three"),
    ]


def test_rendered_break_after_an_explicit_one_is_the_same_page_turn() -> None:
    def fill(document: Any) -> None:
        document.add_paragraph("one")
        document.add_page_break()
        two = document.add_paragraph("two ")
        add_rendered_break(two)
        two.add_run("and more")
        later = document.add_paragraph("wrapped onto the next page")
        add_rendered_break(later)

    doc = parsed(fill)
    assert [doc.text[p.start : p.end] for p in doc.pages] == [
        "one",
        "two and more",
        "wrapped onto the next page",
    ]


def test_rendered_break_inside_a_paragraph_splits_it() -> None:
    def fill(document: Any) -> None:
        paragraph = document.add_paragraph("start of a paragraph ")
        run = paragraph.add_run("that ends on page two")
        run._r.insert(0, OxmlElement("w:lastRenderedPageBreak"))

    doc = parsed(fill)
    assert [doc.text[p.start : p.end] for p in doc.pages] == [
        "start of a paragraph",
        "that ends on page two",
    ]


def test_breaks_before_any_text_turn_no_page() -> None:
    def fill(document: Any) -> None:
        first = document.add_paragraph("first")
        first.paragraph_format.page_break_before = True
        add_rendered_break(first)

    doc = parsed(fill)
    # The file records its layout, so there is a page map: one page, not an empty first one.
    assert doc.pages == (Page(1, 0, 5),)


def test_inline_breaks_tabs_and_what_is_not_reading_text() -> None:
    def fill(document: Any) -> None:
        paragraph = document.add_paragraph("a")
        paragraph.add_run().add_break()
        paragraph.add_run("b\tc")
        deleted = OxmlElement("w:del")
        run = OxmlElement("w:r")
        gone = OxmlElement("w:delText")
        gone.text = "DELETED"
        run.append(gone)
        deleted.append(run)
        paragraph._p.append(deleted)
        field = paragraph.add_run()
        instruction = OxmlElement("w:instrText")
        instruction.text = " PAGE "
        field._r.append(instruction)
        paragraph.add_run(" end")
        document.add_paragraph("   ")
        numbered_off = document.add_paragraph("not a list", style="List Bullet")
        numbering = numbered_off._p.get_or_add_pPr().get_or_add_numPr()
        numbering.get_or_add_numId().val = 0

    doc = parsed(fill)
    assert doc.text == "a\nb\tc end\n\nnot a list"
    assert [s.kind for s in doc.sections] == ["prose", "prose"]


def test_core_properties_become_metadata() -> None:
    doc = parse(REPORT.read_bytes(), ParseRequest(source="r.docx"))
    assert doc.metadata == {
        "title": "Harbour Tide Gauge Network: Maintenance Report 2024",
        "author": "Coastal Observations Unit",
        "created": "2024-06-03T09:30:00+00:00",
    }


def test_report_fixture_structure_and_pages() -> None:
    doc = parse(REPORT.read_bytes(), ParseRequest(source="r.docx"))
    headings = [(s.level, s.headings) for s in doc.sections if s.kind == "heading"]
    assert headings == [
        (1, ("Network overview",)),
        (2, ("Network overview", "Stations")),
        (2, ("Network overview", "Instruments")),
        (1, ("Maintenance in 2024",)),
        (2, ("Maintenance in 2024", "Calibration")),
        (3, ("Maintenance in 2024", "Calibration", "Radar gauges")),
        (3, ("Maintenance in 2024", "Calibration", "Float gauges")),
        (1, ("Findings",)),
        (2, ("Findings", "Drift")),
        (2, ("Findings", "Recommendations")),
    ]
    assert [s.kind for s in doc.sections].count("list") == 2
    (table,) = (s for s in doc.sections if s.kind == "table")
    assert doc.text[table.start : table.end].splitlines()[0] == (
        "| Station | Sensor | Offset (m) | Calibrated |"
    )
    assert len(table.parts) == 5
    assert [p.number for p in doc.pages] == [1, 2, 3]
    assert doc.text[doc.pages[0].end - 12 : doc.pages[0].end] == "| 2024-05-09 |"[-12:]
    assert doc.text[doc.pages[1].start :].startswith("Maintenance in 2024")
    assert doc.text[doc.pages[2].start :].startswith("Findings")


def test_memo_fixture_has_a_title_root_and_no_pages() -> None:
    doc = parse(MEMO.read_bytes(), ParseRequest(source="m.docx"))
    assert doc.pages == ()
    assert doc.sections[0].headings == ("Gauge Memo",)
    staffing = next(s for s in doc.sections if s.headings[-1:] == ("Staffing",))
    assert staffing.headings == ("Gauge Memo", "Winter plan", "Staffing")
    assert doc.text.endswith("First line\nsecond line\tafter a tab")


@pytest.mark.parametrize(("size", "unit"), [(120, "chars"), (30, "tokens")])
def test_chunks_under_a_heading_2_carry_the_heading_1_to_heading_2_path(
    size: int, unit: str
) -> None:
    doc = parse(REPORT.read_bytes(), ParseRequest(source="r.docx"))
    plan = make_plan(shortcuts({"strategy": "recursive", "size": size, "overlap": 0, "unit": unit}))  # type: ignore[arg-type]
    chunks = chunk_document(doc, plan.recipe)
    heading_2 = next(s for s in doc.sections if s.headings[-1:] == ("Calibration",))
    heading_3 = next(s for s in doc.sections if s.headings[-1:] == ("Radar gauges",))
    under_h2 = [c for c in chunks if heading_2.start <= c.start < heading_3.start]
    assert len(under_h2) >= 2
    assert all(c.headings == ("Maintenance in 2024", "Calibration") for c in under_h2)
    drift = next(c for c in chunks if c.text.startswith("Radar R4"))
    assert drift.headings == ("Findings", "Drift")
    assert (drift.page_start, drift.page_end) == (3, 3)
    assert all(c.line_start is None for c in chunks)


def test_a_main_part_in_another_namespace_is_unsupported_not_an_internal_error() -> None:
    """Found by fuzzing: python-docx gives such a part no .body (a Strict main part that the
    package's relationships do not declare Strict is not translated)."""
    from ragchunk.errors import CorruptDocumentError
    from tests.data.make_bad import rewritten_docx

    strict = b"http://purl.oclc.org/ooxml/wordprocessingml/main"
    transitional = b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"

    def change(name: str, body: bytes, _out: object) -> bytes:
        return body.replace(transitional, strict) if name == "word/document.xml" else body

    with pytest.raises(CorruptDocumentError) as caught:
        parse(rewritten_docx(change), ParseRequest(source="strict.docx"))
    assert str(caught.value) == (
        "strict.docx: unsupported DOCX: its main part is not a WordprocessingML document"
    )


def _as_strict(name: str, body: bytes, _out: object) -> bytes:
    """Rename a Transitional part's namespaces and relationship types the Strict way."""
    del name
    for transitional, strict in (
        (
            b"schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties",
            b"purl.oclc.org/ooxml/officeDocument/relationships/extendedProperties",
        ),
        (
            b"schemas.openxmlformats.org/officeDocument/2006/",
            b"purl.oclc.org/ooxml/officeDocument/",
        ),
        (
            b"schemas.openxmlformats.org/wordprocessingml/2006/",
            b"purl.oclc.org/ooxml/wordprocessingml/",
        ),
        (b"schemas.openxmlformats.org/drawingml/2006/", b"purl.oclc.org/ooxml/drawingml/"),
    ):
        body = body.replace(transitional, strict)
    return body


def test_a_strict_open_xml_file_reads_like_its_transitional_twin() -> None:
    """Issue 30: Strict files failed with "no relationship of type …officeDocument"."""
    from tests.data.make_bad import DOCX, rewritten_docx

    strict = rewritten_docx(_as_strict)
    with zipfile.ZipFile(io.BytesIO(strict)) as archive:
        assert b"purl.oclc.org/ooxml/wordprocessingml" in archive.read("word/document.xml")
    twin = parse(DOCX.read_bytes(), ParseRequest(source="t.docx"))
    doc = parse(strict, ParseRequest(source="s.docx"))
    assert doc.text == twin.text
    assert blocks(doc) == blocks(twin)
    assert doc.metadata == twin.metadata


def test_a_strict_file_still_passes_the_doctype_check() -> None:
    from ragchunk.errors import LimitExceededError
    from tests.data.make_bad import rewritten_docx

    def change(name: str, body: bytes, out: object) -> bytes:
        body = _as_strict(name, body, out)
        if name == "word/styles.xml":
            return (
                b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "b">]>'
                + body[body.index(b"?>") + 2 :]
            )
        return body

    with pytest.raises(LimitExceededError, match="declares a DOCTYPE"):
        parse(rewritten_docx(change), ParseRequest(source="s.docx"))
