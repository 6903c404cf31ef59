"""The layout of a grid (CSV, XLSX): captions, multi-row headers, repeated headers, notes."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from ragchunk.model import Document
from ragchunk.parsers import csv as csv_parser
from ragchunk.parsers import xlsx
from ragchunk.parsers._rows import find_layout
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from tests.conftest import FIXTURES


def csv_doc(rows: list[list[str]], header: bool | None = None) -> Document:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    request = ParseRequest(source="t.csv", options=ParseOptions(header=header))
    return csv_parser.parse(out.getvalue().encode(), request)


SALES = [
    ["Table 3. Sales and costs by region, 2023 (thousands of euros)", "", "", "", ""],
    ["", "Sales (a)", "", "Costs", ""],
    ["Region", "January–June 2023", "July–December 2023", "January–June 2023", "Total"],
    ["North", "12,553", "13,020", "9,100", "18,640"],
    ["South", "8,410", "8,905", "6,200", "12,377"],
    ["Region", "January–June 2023", "July–December 2023", "January–June 2023", "Total"],
    ["East", "10,001", "9,876", "7,310", "14,702"],
    ["", "", "", "", ""],
    ["(a) Sales net of returns and of value added tax, as reported by the regional offices."],
    ["Source: regional offices' quarterly returns."],
]


def test_a_caption_row_is_the_heading_and_the_bands_join_the_column_names() -> None:
    doc = csv_doc(SALES)
    assert doc.metadata["columns"] == [
        "Region",
        "Sales (a) › January–June 2023",
        "Sales (a) › July–December 2023",
        "Costs › January–June 2023",
        "Costs › Total",
    ]
    heading = doc.sections[0]
    assert heading.kind == "heading"
    assert doc.text[heading.start : heading.end].startswith("Table 3. Sales and costs")
    first = doc.sections[1]
    assert first.headings == ("Table 3. Sales and costs by region, 2023 (thousands of euros)",)
    assert doc.text[first.start : first.end] == (
        "Region: North\nSales (a) › January–June 2023: 12,553\n"
        "Sales (a) › July–December 2023: 13,020\nCosts › January–June 2023: 9,100\n"
        "Costs › Total: 18,640"
    )
    assert "column 2" not in doc.text


def test_a_repeated_header_row_is_not_data_and_notes_are_prose() -> None:
    doc = csv_doc(SALES)
    rows = [s for s in doc.sections if s.kind == "row"]
    assert [s.metadata["row"] for s in rows] == [4, 5, 7]
    assert "Region: Region" not in doc.text
    assert doc.metadata["repeated_headers"] == 1
    prose = [doc.text[s.start : s.end] for s in doc.sections if s.kind == "prose"]
    assert prose == [SALES[8][0], SALES[9][0]]


def test_a_note_after_the_numbers_is_prose_without_an_empty_row() -> None:
    rows = [["Site", "Oxygen"], ["W3", "9.6"], ["W4", "9.3"]]
    doc = csv_doc([*rows, ["Readings from W11 on 16 April are unreliable (holding time)."]])
    assert [s.kind for s in doc.sections] == ["row", "row", "prose"]
    short = csv_doc([*rows, ["W5"]])  # a short label alone is a row with its number missing
    assert [s.kind for s in short.sections] == ["row", "row", "row"]


def test_words_over_numbers_are_a_header_even_with_a_blank_corner() -> None:
    doc = csv_doc(
        [["", "Jan", "Feb", "Mar"], ["Rain (mm)", "81", "60", "62"], ["Sun (h)", "1", "2", "3"]]
    )
    assert doc.metadata["columns"] == ["1", "Jan", "Feb", "Mar"]
    assert doc.text.startswith("Rain (mm)\nJan: 81\nFeb: 60")
    dotted = csv_doc([["Station", "Depth (m.)", "Temp."], ["A", "3.5", "11.2"], ["B", "4", "10.9"]])
    assert dotted.metadata["columns"] == ["Station", "Depth (m.)", "Temp."]


def test_a_row_of_rising_years_over_other_numbers_is_a_header() -> None:
    doc = csv_doc([["Region", "2021", "2022", "2023"], ["North", "12.5", "13.1", "14"]])
    assert doc.text == "Region: North\n2021: 12.5\n2022: 13.1\n2023: 14"
    events = [["Paris", "1990", "2000", "2010"], ["Lyon", "1991", "2001", "2011"]]
    assert find_layout(events).columns is None  # years over years: a table of dates


def test_numbers_alone_and_sentences_have_no_header() -> None:
    assert find_layout([["1", "2"], ["3", "4"]]).columns is None
    sentences = [["What is X?", "It is Y."], ["What is Z?", "It is W."]]
    assert find_layout(sentences).columns is None
    assert find_layout(sentences, header=True).columns == ("What is X?", "It is Y.")
    assert find_layout(SALES, header=False).columns is None


@pytest.mark.parametrize("band", ["Sales", ""])
def test_a_band_reaches_only_the_columns_under_it(band: str) -> None:
    layout = find_layout(
        [["", band, "", "", ""], ["Region", "Jan", "Feb", "", "Note"], ["N", "1", "2", "", "x"]]
    )
    lead = f"{band} › " if band else ""
    assert layout.columns == ("Region", f"{lead}Jan", f"{lead}Feb", "", "Note")


def test_a_workbook_sheet_with_a_caption_and_two_header_rows() -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    for row in SALES:
        sheet.append([float(c.replace(",", "")) if c[:1].isdigit() else (c or None) for c in row])
    sheet.merge_cells("B2:C2")
    out = io.BytesIO()
    book.save(out)
    doc = xlsx.parse(out.getvalue(), ParseRequest(source="s.xlsx"))
    row = next(s for s in doc.sections if s.kind == "row")
    assert row.headings == (
        "Sales",
        "Table 3. Sales and costs by region, 2023 (thousands of euros)",
    )
    assert "Sales (a) › January–June 2023: 12553" in doc.text[row.start : row.end]
    assert doc.metadata["repeated_headers"] == 1


def test_every_piece_of_a_split_row_repeats_its_label_in_context(tmp_path: Path) -> None:
    import ragchunk

    path = tmp_path / "wide.csv"
    names = [f"Indicator {n}" for n in range(1, 301)]
    with path.open("w", newline="") as out:
        csv.writer(out).writerows(
            [["Country", *names], ["France", *map(str, range(300))], ["Chile", *"1" * 300]]
        )
    chunks = ragchunk.chunk_file(str(path), strategy="markdown", size=400, overlap=0)
    assert len(chunks) > 20
    for chunk in chunks:
        if chunk.text.startswith("Country: "):
            assert chunk.context is None
            continue
        assert chunk.context is not None
        assert chunk.context.split("\n")[0] in ("Country: France", "Country: Chile")
        assert chunk.context.endswith(chunk.text)
        assert all(line.startswith("Indicator ") for line in chunk.text.split("\n"))
    chile = [c for c in chunks if c.context and c.context.startswith("Country: Chile")]
    assert chile
    assert all(c.start > chunks[0].end for c in chile)


def test_the_regional_sales_fixtures_read_alike_in_csv_and_xlsx() -> None:
    tables = FIXTURES / "tables"
    sheet = xlsx.parse((tables / "regional-sales.xlsx").read_bytes(), ParseRequest())
    flat = csv_parser.parse((tables / "regional-sales.csv").read_bytes(), ParseRequest())
    caption = "Table 3. Sales and costs by region, 2023 (thousands of euros)"
    for doc, path in ((sheet, ("Sales", caption)), (flat, (caption,))):
        rows = [s for s in doc.sections if s.kind == "row" and s.headings == path]
        assert [s.metadata["label"] for s in rows] == [
            f"Region: {name}" for name in ("North", "South", "East", "West", "Islands")
        ]
        assert "Sales (a) › January–June 2023: 12553\n" in doc.text
        assert "Costs (b) › July–December 2023: 2410" in doc.text
        assert "Region: Region" not in doc.text
        assert "column " not in doc.text
        assert doc.metadata["repeated_headers"] == 2
        notes = [doc.text[s.start : s.end] for s in doc.sections if s.kind == "prose"]
        assert [note[:4] for note in notes] == ["(a) ", "(b) "]
    wide = [s for s in sheet.sections if s.headings == ("Indicators",) and s.kind == "row"]
    assert [s.metadata["label"] for s in wide] == ["Country: Norway", "Country: Chile"]
    assert len(wide[0].parts) == 301


def test_the_rainfall_fixture_has_its_header_of_months() -> None:
    path = FIXTURES / "tables" / "rainfall-monthly.csv"
    doc = csv_parser.parse(path.read_bytes(), ParseRequest(source=str(path)))
    assert doc.text.startswith("Rainfall (mm)\nJan: 81.2\nFeb: 60.4")
    assert doc.metadata["columns"] == ["1", "Jan", "Feb", "Mar", "Apr", "May", "Jun"]


def test_a_split_row_of_the_wide_sheet_names_its_country_in_every_piece() -> None:
    import ragchunk

    path = FIXTURES / "tables" / "regional-sales.xlsx"
    chunks = ragchunk.chunk_file(str(path), strategy="markdown", size=300, overlap=0)
    pieces = [c for c in chunks if c.headings == ("Indicators",)]
    assert len(pieces) > 30
    for chunk in pieces:
        lead = chunk.text if chunk.context is None else chunk.context
        lead = lead.removeprefix("Indicators\n\n")  # the sheet's name leads its first piece
        assert lead.startswith(("Country: Norway\n", "Country: Chile\n")), chunk.text[:40]


def test_a_text_table_with_its_header_repeated_keeps_the_header() -> None:
    header = ["Question", "Answer", "Topic"]
    rows = [
        header,
        ["When are the surveys?", "Monthly, on a rising tide.", "surveys"],
        header,
        ["Who analyses the samples?", "An accredited laboratory.", "lab"],
    ]
    doc = csv_doc(rows)
    assert "Topic: Topic" not in doc.text
    assert doc.text.endswith(
        "Question: Who analyses the samples?\nAnswer: An accredited laboratory.\nTopic: lab"
    )
    assert doc.metadata["repeated_headers"] == 1
