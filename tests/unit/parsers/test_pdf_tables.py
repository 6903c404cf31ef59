"""PDF tables (issue 30): ruled tables read as table sections, header rows repeated like DOCX's.

The fixture ``pdf/gauge-tables.pdf`` is printed by Chromium from HTML: two bordered tables, one
with a two-row header, and one ruled only across and between its columns. ``report-plain.pdf``
is LibreOffice's print of ``report.docx``, so the same table reaches the strategies from both
parsers.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pypdfium2
import pytest

from ragchunk.model import Chunk, Document
from ragchunk.parsers import docx as docx_parser
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.rulings import Edge, grids, page_edges
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES, ROOT
from tests.meaning import SHAPES

GAUGES = FIXTURES / "pdf" / "gauge-tables.pdf"
TABLES_PER_PDF = {
    "gauge-tables.pdf": 3,
    "report-plain.pdf": 1,
    "report-outline.pdf": 1,
    "estuary-report.pdf": 3,
    "basin-oxygen-paper.pdf": 2,
}
"""The ruled tables each PDF fixture prints; every other PDF fixture has none."""


@cache
def parsed(path: Path) -> Document:
    return parse(path.read_bytes(), ParseRequest(source=path.name))


def tables(doc: Document) -> list[tuple[str, list[str]]]:
    """Each table section's header text and its rows' texts."""
    return [
        (doc.text[slice(*s.header)] if s.header else "", [doc.text[a:b] for a, b in s.parts])
        for s in doc.sections
        if s.kind == "table"
    ]


def test_the_ruled_tables_are_table_sections_with_their_header_rows() -> None:
    doc = parsed(GAUGES)
    (header, rows), (header2, rows2), (header3, rows3) = tables(doc)
    assert header == "| Station | Sensor | Drift (mm) | Action |"
    assert rows[1] == (
        "| East basin | Radar R2 | 11 | lens cleaned and the bracket tightened; read again the "
        "next day |"  # a cell's wrapped text reads on one line
    )
    assert len(rows) == 5
    # Two header rows, each a line of its own: the group labels are not merged into the labels.
    assert header2.split("\n") == [
        "| Site | Oxygen (mg/l) | Temperature (°C) |",
        "| | Surface | Bed | Surface | Bed |",
    ]
    assert rows2[0] == "| North pier | 9.8 | 9.1 | 11.2 | 10.6 |"
    # Ruled across and between its columns only (no rule at its sides), on the next page.
    assert (header3, rows3) == (
        "| Month | Visits | Hours on site |",
        ["| March | 7 | 19.5 |", "| April | 9 | 26.0 |", "| May | 7 | 18.5 |"],
    )
    table = next(s for s in doc.sections if s.kind == "table")
    assert doc.text[table.start : table.end] == "\n".join([header, *rows])
    assert table.headings == ("Gauge readings, spring 2024", "Monthly drift")
    # The prose around the tables stays prose, its wraps spaces.
    assert "the mean difference of three readings taken a minute apart.\n| Station" in doc.text


@pytest.mark.parametrize(
    "path", sorted([*FIXTURES.glob("pdf/*.pdf"), *FIXTURES.glob("templates/*.pdf")]), ids=str
)
def test_no_pdf_fixture_has_a_table_it_does_not_print(path: Path) -> None:
    doc = parsed(path)
    found = tables(doc)
    assert len(found) == TABLES_PER_PDF.get(path.name, 0)
    for header, rows in found:
        assert all(line.startswith("| ") and line.endswith(" |") for line in [header, *rows])


def test_a_table_is_read_as_the_docx_parser_reads_the_same_table() -> None:
    docx = docx_parser.parse((FIXTURES / "docx" / "report.docx").read_bytes(), ParseRequest())
    assert tables(parsed(FIXTURES / "pdf" / "report-plain.pdf")) == tables(docx)


def chunks(path: Path, strategy: str, size: int = 200) -> list[Chunk]:
    plan = make_plan(shortcuts({"strategy": strategy, "size": size, "check": True}))  # type: ignore[arg-type]
    result = process(path.relative_to(ROOT).as_posix(), path.name, plan)
    assert result.error is None
    assert not result.violations
    return result.chunks


def repeats_header(chunk: Chunk, header: str) -> bool:
    """Whether a chunk of body rows (not holding the header itself) repeats it in its context."""
    return (
        chunk.text.startswith("| ")
        and header not in chunk.text
        and (chunk.context or "").startswith(header)
    )


def test_row_chunks_repeat_the_header_rows() -> None:
    doc = parsed(GAUGES)
    (header, _), (header2, _), _ = tables(doc)
    pieces = chunks(GAUGES, "markdown", 120)
    assert any(repeats_header(chunk, header) for chunk in pieces)
    assert any(repeats_header(chunk, header2) for chunk in pieces)  # both header rows
    for chunk in pieces:
        if chunk.text.startswith("| North pier | 9.8"):
            assert chunk.context is not None
            assert chunk.context.startswith(header2 + "\n| North pier")


@pytest.mark.parametrize("strategy", SHAPES)
def test_every_strategy_treats_a_pdf_table_as_it_treats_the_docx_table(strategy: str) -> None:
    header = "| Station | Sensor | Offset (m) | Calibrated |"
    pdf = chunks(FIXTURES / "pdf" / "report-plain.pdf", strategy)
    docx = chunks(FIXTURES / "docx" / "report.docx", strategy)
    assert any(repeats_header(c, header) for c in pdf) == any(
        repeats_header(c, header) for c in docx
    )
    chunks(GAUGES, strategy)  # --check: no violation on the fixture


def test_rulings_need_two_rows_and_two_columns() -> None:
    across = [Edge(y, 10, 110) for y in (10, 30, 50)]
    down = [Edge(x, 10, 50) for x in (10, 60, 110)]
    (grid,) = grids(across, down)
    assert grid.xs == (10, 60, 110)
    assert grid.ys == (10, 30, 50)
    # A frame around a paragraph, rules under headings, a box with one rule down it: no grid.
    assert grids(across[::2], [down[0], down[2]]) == []
    assert grids(across, []) == []
    assert grids(across[::2], down) == []


def test_a_cell_spanning_two_columns_has_no_border_between_them() -> None:
    across = [Edge(y, 0, 90) for y in (0, 10, 20)]
    down = [Edge(0, 0, 20), Edge(90, 0, 20), Edge(30, 0, 20), Edge(60, 10, 20)]
    (grid,) = grids(across, down)
    assert grid.cells(0) == [(0, 30), (30, 90)]
    assert grid.cells(1) == [(0, 30), (30, 60), (60, 90)]


def test_pages_without_rules_have_no_edges() -> None:
    # What such a page costs (a pass over its object types) is measured in benchmarks/README.md.
    document = pypdfium2.PdfDocument(FIXTURES / "pdf" / "bulletins.pdf")
    for page in (document[k] for k in range(len(document))):
        assert page_edges(page.raw, page.get_height()) == ([], [])


def saved(document: pypdfium2.PdfDocument, page: pypdfium2.PdfPage) -> bytes:
    """Return the bytes of ``document`` once ``page``'s new objects are in its content."""
    import io

    import pypdfium2.raw as pdfium_c

    pdfium_c.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def ruled_pdf(rules: int) -> bytes:
    """A page of ``rules`` horizontal and ``rules`` vertical lines (a hatching), made by PDFium."""
    import pypdfium2.raw as pdfium_c

    document = pypdfium2.PdfDocument.new()
    page = document.new_page(2600, 2600)
    for k in range(rules):
        for x0, y0, x1, y1 in (
            (10, 10 + k * 2.5, 2590, 10 + k * 2.5),
            (10 + k * 2.5, 10, 10 + k * 2.5, 2590),
        ):
            path = pdfium_c.FPDFPageObj_CreateNewPath(x0, y0)
            pdfium_c.FPDFPath_LineTo(path, x1, y1)
            pdfium_c.FPDFPath_SetDrawMode(path, 0, 1)  # no fill, stroked
            pdfium_c.FPDFPage_InsertObject(page.raw, path)
    return saved(document, page)


@pytest.mark.timeout(60)  # a hang guard only (1000 rules took 57 s before MAX_RULES); the cost
# of table finding is measured in benchmarks/README.md ("PDF tables"), never timed in a test
@pytest.mark.parametrize("rules", [490, 1000])  # the most under MAX_RULES, and past it
def test_a_hatching_is_no_table(rules: int) -> None:
    doc = parse(ruled_pdf(rules), ParseRequest(source="hatching.pdf"))
    assert not [s for s in doc.sections if s.kind == "table"]


def test_a_page_past_max_rules_is_a_drawing() -> None:
    data = ruled_pdf(1000)
    page = pypdfium2.PdfDocument(data)[0]  # kept: its raw handle lives as long as it does
    assert page_edges(page.raw, 2600) == ([], [])
    few = pypdfium2.PdfDocument(ruled_pdf(4))[0]
    across, down = page_edges(few.raw, 2600)
    assert (len(across), len(down)) == (4, 4)


def boxed_pdf(columns: int, rows: int) -> bytes:
    """A page whose table is drawn as one stroked rectangle per cell (PDFium's own rectangles)."""
    import pypdfium2.raw as pdfium_c

    document = pypdfium2.PdfDocument.new()
    page = document.new_page(600, 400)
    for row in range(rows):
        for column in range(columns):
            rect = pdfium_c.FPDFPageObj_CreateNewRect(50 + column * 120, 300 - row * 30, 120, 30)
            pdfium_c.FPDFPath_SetDrawMode(rect, 0, 1)  # no fill, stroked
            pdfium_c.FPDFPage_InsertObject(page.raw, rect)
    return saved(document, page)


def test_a_table_drawn_as_cell_rectangles_gives_its_grid() -> None:
    # Each cell a rectangle: no thin rule at all, so the rules are the rectangles' sides.
    document = pypdfium2.PdfDocument(boxed_pdf(columns=3, rows=4))
    page = document[0]
    across, down = page_edges(page.raw, page.get_height())
    assert len(across) == 4 * 3 * 2  # a top and a bottom side per cell
    assert len(down) == 4 * 3 * 2
    (grid,) = grids(across, down)
    assert grid.xs == (50.0, 170.0, 290.0, 410.0)
    assert grid.ys == (70.0, 100.0, 130.0, 160.0, 190.0)
    assert [grid.cells(row) for row in range(4)] == [
        [(50.0, 170.0), (170.0, 290.0), (290.0, 410.0)]
    ] * 4
