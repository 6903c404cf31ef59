"""DOCX charts (issue 30): title, series, categories and values as a table where drawn."""

from __future__ import annotations

import io
from typing import Any

import docx
from docx.opc.constants import CONTENT_TYPE as CT
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import parse_xml

from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.docx import parse

_C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"


def _series(name: str, values: list[str]) -> str:
    cats = "".join(
        f'<c:pt idx="{k}"><c:v>{label}</c:v></c:pt>' for k, label in enumerate(["Jan", "Feb"])
    )
    vals = "".join(f'<c:pt idx="{k}"><c:v>{v}</c:v></c:pt>' for k, v in enumerate(values))
    return (
        f'<c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>{name}</c:v></c:pt>'
        f"</c:strCache></c:strRef></c:tx><c:cat><c:strRef><c:strCache>{cats}</c:strCache>"
        f"</c:strRef></c:cat><c:val><c:numRef><c:numCache>{vals}</c:numCache></c:numRef>"
        "</c:val></c:ser>"
    )


CHART = (
    f'<c:chartSpace xmlns:c="{_C}" xmlns:a="{_A}"><c:chart><c:title><c:tx><c:rich>'
    "<a:p><a:r><a:t>Tide </a:t></a:r><a:r><a:t>range</a:t></a:r></a:p></c:rich></c:tx></c:title>"
    "<c:plotArea><c:barChart>"
    + _series("North", ["1.5", "4.4000000000000004"])
    + _series("East|West", ["2", "3"])
    + "</c:barChart></c:plotArea></c:chart></c:chartSpace>"
)


def _with_chart(document: Any, chart: str) -> None:
    document.add_paragraph("Before.")
    part = Part(
        PackURI("/word/charts/chart1.xml"), CT.DML_CHART, chart.encode(), document.part.package
    )
    rid = document.part.relate_to(part, RT.CHART)
    run = document.add_paragraph().add_run()
    run._r.append(
        parse_xml(
            f'<w:drawing xmlns:w="{_W}" xmlns:wp="{_WP}" xmlns:a="{_A}" xmlns:c="{_C}" '
            f'xmlns:r="{_R}"><wp:inline><a:graphic><a:graphicData uri="{_C}">'
            f'<c:chart r:id="{rid}"/></a:graphicData></a:graphic></wp:inline></w:drawing>'
        )
    )
    document.add_paragraph("After.")


def _parse(chart: str) -> Any:
    document = docx.Document()
    _with_chart(document, chart)
    buffer = io.BytesIO()
    document.save(buffer)
    return parse(buffer.getvalue(), ParseRequest(source="c.docx"))


def test_a_chart_reads_as_its_title_then_a_table_where_it_is_drawn() -> None:
    doc = _parse(CHART)
    assert doc.text == (
        "Before.\n\nTide range\n\n"
        "|  | North | East\\|West |\n| Jan | 1.5 | 2 |\n| Feb | 4.4 | 3 |\n\nAfter."
    )
    table = next(s for s in doc.sections if s.kind == "table")
    assert doc.text[slice(*table.header)] == "|  | North | East\\|West |"
    assert [doc.text[a:b] for a, b in table.parts] == ["| Jan | 1.5 | 2 |", "| Feb | 4.4 | 3 |"]
    assert table.metadata == {"container": "chart"}


def test_a_chart_without_a_title_or_series_adds_nothing() -> None:
    doc = _parse(f'<c:chartSpace xmlns:c="{_C}"><c:chart><c:plotArea/></c:chart></c:chartSpace>')
    assert doc.text == "Before.\n\nAfter."
