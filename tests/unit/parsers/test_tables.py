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
    assert kinds[7:9] == ["heading", "heading"]  # the sheet, then its caption
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


@pytest.mark.parametrize(
    ("text", "delimiter"),
    [
        ("a;b;c\n1,5;2;3\n4;5,5;6\n", ";"),
        ("a|b\n1|2\n3|4\n", "|"),
        ("a\tb\n1,2\t3\n", "\t"),
        ('name,note\nA,"x; y; z"\nB,"p; q"\n', ","),
        ("one column\nonly\n", ","),
        ("", ","),
    ],
)
def test_the_separator_is_the_one_giving_consistent_rows(text: str, delimiter: str) -> None:
    assert csv_parser._delimiter(text, "t.csv") == delimiter


def test_sniffing_reads_a_bounded_sample_in_linear_time() -> None:
    """Unclosed quotes made the standard library's sniffer quadratic (90 KB: half a minute)."""
    import time

    started = time.process_time()
    assert csv_parser._delimiter(',"' * 200_000, "t.csv") == ","
    assert time.process_time() - started < 2.0


def test_a_row_past_the_field_cap_is_refused_before_it_is_built() -> None:
    limit = csv_parser.MAX_ROW_FIELDS
    with pytest.raises(LimitExceededError) as caught:
        csv_doc("a,b\n1,2\n" + "x," * limit + "x\n")
    assert str(caught.value) == (
        f"t.csv: refused: line 3 holds {limit + 1} fields (limit {limit} per row)"
    )
    quoted = '"' + "," * limit + '",b\n'  # separators inside quotes are not fields
    assert csv_doc(quoted, header=False).text.startswith("," * 10)


def test_column_names_in_metadata_are_capped_with_a_count() -> None:
    header = ",".join(f"c{n}" for n in range(120))
    doc = csv_doc(header + "\n" + ",".join("v" for _ in range(120)) + "\n", header=True)
    assert doc.metadata == {"columns": [f"c{n}" for n in range(50)], "columns_more": 70}
    assert doc.sections[0].metadata["columns"] == [f"c{n}" for n in range(120)]  # per row: all
