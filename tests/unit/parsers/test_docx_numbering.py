"""DOCX list and heading numbers as Word prints them (issue 30): numbering.xml resolved."""

from __future__ import annotations

import io
from typing import Any

import docx
import pytest
from docx.oxml import parse_xml

from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.docx import parse
from ragchunk.parsers.docx.numbering import format_number, read_numbering

_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _lvl(ilvl: int, fmt: str, text: str, start: int = 1, extra: str = "") -> str:
    return (
        f'<w:lvl w:ilvl="{ilvl}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>'
        f'<w:lvlText w:val="{text}"/>{extra}</w:lvl>'
    )


def _numbering(abstract: str, nums: str) -> Any:
    return read_numbering(parse_xml(f"<w:numbering {_NS}>{abstract}{nums}</w:numbering>"))


OUTLINE = (
    '<w:abstractNum w:abstractNumId="0">'
    + _lvl(0, "decimal", "%1.")
    + _lvl(1, "decimal", "%1.%2")
    + _lvl(2, "lowerLetter", "%3)")
    + "</w:abstractNum>"
)


def test_levels_count_restart_deeper_levels_and_print_their_format() -> None:
    lists = _numbering(OUTLINE, '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>')
    printed = [lists.label("1", level) for level in (0, 1, 1, 2, 2, 0, 1, 2)]
    assert printed == ["1. ", "1.1 ", "1.2 ", "a) ", "b) ", "2. ", "2.1 ", "a) "]


def test_two_nums_of_one_list_continue_it_and_a_start_override_restarts_it() -> None:
    nums = (
        '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
        '<w:num w:numId="2"><w:abstractNumId w:val="0"/></w:num>'
        '<w:num w:numId="3"><w:abstractNumId w:val="0"/>'
        '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>'
    )
    lists = _numbering(OUTLINE, nums)
    assert [lists.label(n, 0) for n in ("1", "1", "2", "3", "3")] == [
        "1. ",
        "2. ",
        "3. ",
        "5. ",
        "6. ",
    ]


def test_a_skipped_level_counts_once_and_legal_numbering_is_decimal() -> None:
    abstract = (
        '<w:abstractNum w:abstractNumId="0">'
        + _lvl(0, "upperRoman", "%1.")
        + _lvl(1, "upperLetter", "%1.%2", extra="<w:isLgl/>")
        + _lvl(2, "decimal", "%1.%2.%3", extra='<w:suff w:val="nothing"/>')
        + "</w:abstractNum>"
    )
    lists = _numbering(abstract, '<w:num w:numId="7"><w:abstractNumId w:val="0"/></w:num>')
    assert lists.label("7", 0) == "I. "
    assert lists.label("7", 2) == "I.A.1"  # level 1 counted once when skipped
    assert lists.label("7", 1) == "1.2 "  # legal numbering: every number decimal
    assert lists.label("9", 0) == ""  # an unknown list prints nothing


def test_bullets_read_as_a_bullet_and_a_level_without_text_prints_nothing() -> None:
    abstract = (
        '<w:abstractNum w:abstractNumId="0">'
        + _lvl(0, "bullet", "\uf0b7")
        + _lvl(1, "none", "")
        + "</w:abstractNum>"
    )
    lists = _numbering(abstract, '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>')
    assert (lists.label("1", 0), lists.label("1", 1)) == ("\u2022 ", "")


@pytest.mark.parametrize(
    ("value", "fmt", "printed"),
    [
        (4, "lowerRoman", "iv"),
        (1994, "upperRoman", "MCMXCIV"),
        (27, "lowerLetter", "aa"),
        (3, "upperLetter", "C"),
        (7, "decimalZero", "07"),
        (12, "ordinal", "12"),
    ],
)
def test_number_formats(value: int, fmt: str, printed: str) -> None:
    assert format_number(value, fmt) == printed


def _build(fill: Any) -> bytes:
    document = docx.Document()
    fill(document)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_list_numbers_and_bullets_start_their_paragraphs_in_the_text() -> None:
    def fill(document: Any) -> None:
        document.add_paragraph("Steps:")
        document.add_paragraph("Open the valve.", style="List Number")
        document.add_paragraph("Read the gauge.", style="List Number")
        document.add_paragraph("a remark", style="List Bullet")

    doc = parse(_build(fill), ParseRequest(source="t.docx"))
    assert doc.text == "Steps:\n\n1. Open the valve.\n2. Read the gauge.\n• a remark"
    assert [s.kind for s in doc.sections] == ["prose", "list"]


def test_heading_numbers_from_the_style_are_in_the_heading_path() -> None:
    def fill(document: Any) -> None:
        numbering = document.part.numbering_part.element
        numbering.insert(
            0,
            parse_xml(
                OUTLINE.replace("<w:abstractNum ", f"<w:abstractNum {_NS} ").replace(
                    'w:abstractNumId="0"', 'w:abstractNumId="90"'
                )
            ),
        )
        numbering.append(
            parse_xml(f'<w:num {_NS} w:numId="90"><w:abstractNumId w:val="90"/></w:num>')
        )
        for name, level in (("Heading 1", 0), ("Heading 2", 1)):
            document.styles[name].element.get_or_add_pPr().append(
                parse_xml(
                    f'<w:numPr {_NS}><w:ilvl w:val="{level}"/><w:numId w:val="90"/></w:numPr>'
                )
            )
        document.add_heading("Scope", level=1)
        document.add_heading("Terms", level=2)
        document.add_paragraph("Body.")
        document.add_heading("Methods", level=1)

    doc = parse(_build(fill), ParseRequest(source="t.docx"))
    assert doc.text == "1. Scope\n\n1.1 Terms\n\nBody.\n\n2. Methods"
    body = next(s for s in doc.sections if doc.text[s.start : s.end] == "Body.")
    assert body.headings == ("1. Scope", "1.1 Terms")


def test_numbered_paragraphs_in_a_table_cell_carry_their_numbers() -> None:
    def fill(document: Any) -> None:
        cell = document.add_table(rows=1, cols=2).rows[0].cells
        cell[0].text = "Steps"
        cell[1].paragraphs[0].text = "open"
        cell[1].paragraphs[0].style = document.styles["List Number"]
        cell[1].add_paragraph("close", style="List Number")

    doc = parse(_build(fill), ParseRequest(source="t.docx"))
    assert doc.text == "| Steps | 1. open 2. close |"
