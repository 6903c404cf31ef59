"""CSV, TSV and XLSX: rows as sections of ``column: value`` lines, headers, dialects, sheets."""

from __future__ import annotations

import io

import pytest

from ragchunk.errors import LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers import csv as csv_parser
from ragchunk.parsers import detect, xlsx
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from tests.conftest import FIXTURES


def csv_doc(text: str, source: str = "t.csv", header: bool | None = None) -> Document:
    request = ParseRequest(source=source, options=ParseOptions(header=header))
    return csv_parser.parse(text.encode(), request)


def test_rows_with_a_header_read_column_value_lines() -> None:
    doc = csv_doc('name,value\r\nA,"1, two"\r\n,\r\nB,"x\r\ny ""q"""\r\n')
    assert doc.text == 'name: A\nvalue: 1, two\n\nname: B\nvalue: x\n  y "q"'
    rows = [(s.kind, s.metadata["row"], s.metadata["columns"]) for s in doc.sections]
    assert rows == [("row", 2, ["name", "value"]), ("row", 4, ["name", "value"])]
    assert [doc.text[a:b] for a, b in doc.sections[1].parts] == ["name: B", 'value: x\n  y "q"']
    assert doc.metadata["columns"] == ["name", "value"]


def test_without_a_header_values_stand_alone_and_columns_are_numbers() -> None:
    doc = csv_doc("What is X?,It is Y.\nWhat is Z?,It is W.\n")
    assert doc.text == "What is X?\nIt is Y.\n\nWhat is Z?\nIt is W."
    assert [s.metadata["columns"] for s in doc.sections] == [["1", "2"], ["1", "2"]]
    forced = csv_doc("What is X?,It is Y.\nWhat is Z?,It is W.\n", header=True)
    assert forced.text == "What is X?: What is Z?\nIt is Y.: It is W."


def test_dialects_semicolons_and_tabs() -> None:
    doc = csv_doc('a;b\n1,5;"x;y"\n')
    assert doc.text == "a: 1,5\nb: x;y"
    tsv = csv_doc("q\ta\nWhy, then?\tBecause, so.\n", source="g.tsv")
    assert tsv.text == "q: Why, then?\na: Because, so."


def test_the_faq_fixture_has_its_header_found_and_its_quotes_undoubled() -> None:
    doc = csv_parser.parse((FIXTURES / "tables" / "faq.csv").read_bytes(), ParseRequest())
    assert doc.text.startswith("question: When are the monthly surveys?\nanswer: On a rising")
    assert 'the "overflow alerts" before going in.' in doc.text
    glossary = FIXTURES / "tables" / "glossary-no-header.tsv"
    plain = csv_parser.parse(glossary.read_bytes(), ParseRequest(source=str(glossary)))
    assert plain.text.startswith("What is a salt wedge?\nSalt water is heavier")


def test_bad_csv_is_one_clear_error() -> None:
    with pytest.raises(LimitExceededError, match="a field longer than"):
        csv_doc('"' + "x" * (16 * 1024 * 1024 + 1) + '"\n')


def test_the_workbook_reads_sheets_as_pages() -> None:
    doc = xlsx.parse((FIXTURES / "tables" / "survey-workbook.xlsx").read_bytes(), ParseRequest())
    assert [(p.number, doc.text[p.start : p.start + 9]) for p in doc.pages] == [
        (1, "Questions"),
        (2, "Readings\n"),
    ]
    kinds = [s.kind for s in doc.sections]
    assert kinds[:2] == ["heading", "row"]
    assert kinds[7:9] == ["heading", "prose"]
    assert kinds[-1] == "prose"
    assert doc.sections[1].metadata["row"] == 2
    assert doc.sections[9].metadata["row"] == 3
    assert "Date: 2024-04-16\nOxygen (mg/l): 9.6\nSaturation (%): 98" in doc.text
    assert doc.metadata["sheets"] == ["Questions", "Readings"]


def test_a_workbook_with_cached_formula_values_reads_the_values() -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["a", "b"])
    sheet.append([1, "=A2*2"])
    buffer = io.BytesIO()
    book.save(buffer)
    doc = xlsx.parse(buffer.getvalue(), ParseRequest())
    assert doc.text == "Sheet\n\na: 1\nb: =A2*2"  # openpyxl writes no cached values


def test_detection() -> None:
    assert detect("x.tsv", b"") == "csv"
    data = (FIXTURES / "tables" / "survey-workbook.xlsx").read_bytes()
    assert detect("workbook", data[:8], data) == "xlsx"
