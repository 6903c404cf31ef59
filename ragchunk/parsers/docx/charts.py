"""Charts as text: a chart's title, then its data as a table section, where it is placed.

A ``c:chart`` reference in a paragraph (``w:drawing``) names a chart part
(``word/charts/chartN.xml``) by relationship id. Its cached data is read, never the embedded
workbook: the title's text, then a table whose header row is an empty corner and the series
names, and one row per category with each series' value (``| Category 1 | 4.3 | 2.4 |``).
Scatter and bubble series read their x values as the categories. A chart without any series
gives only its title. Values keep Excel's General form (``4.4000000000000004`` reads ``4.4``).
The parts were checked with the rest of the archive (no DOCTYPE) and are parsed by
python-docx's parser (entities unresolved, no network).
"""

from __future__ import annotations

from typing import Any, Final

from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import parse_xml

C: Final = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A: Final = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R: Final = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_MAX_POINTS: Final = 10_000
"""Cached points read per series; a chart with more is cut here (its text is a table)."""


def chart_parts(document: Any) -> dict[str, Any]:
    """Return the main part's chart parts by relationship id, parsed (unparsable ones left out)."""
    found = {}
    for rid, rel in document.part.rels.items():
        if rel.reltype != RT.CHART or rel.is_external:
            continue
        try:
            found[rid] = parse_xml(rel.target_part.blob)
        except (ValueError, SyntaxError):  # lxml's XMLSyntaxError is a SyntaxError
            continue
    return found


def chart_references(paragraph: Any) -> list[str]:
    """Return the relationship ids of the charts drawn in a paragraph, in order."""
    return [rid for chart in paragraph.iter(C + "chart") if (rid := chart.get(R + "id"))]


def chart_title(space: Any) -> str:
    """Return the chart's own title text (empty for none or an automatic one)."""
    title = space.find(f"{C}chart/{C}title")
    if title is None:
        return ""
    texts = [t.text or "" for t in title.iter(A + "t")]
    if not texts:
        texts = [v.text or "" for v in title.iter(C + "v")]
    return " ".join("".join(texts).split())


def chart_rows(space: Any) -> list[list[str]]:
    """Return the chart's data as rows: a header of series names, then one row per category."""
    series = list(space.iter(C + "ser"))
    if not series:
        return []
    names: list[str] = []
    columns: list[dict[int, str]] = []
    categories: list[str] = []
    for number, ser in enumerate(series, start=1):
        name = _points(ser.find(C + "tx"))
        names.append(" ".join(name.values()) if name else f"Series {number}")
        columns.append(_points(ser.find(C + "val")) or _points(ser.find(C + "yVal")))
        if not categories:
            labels = _points(ser.find(C + "cat")) or _points(ser.find(C + "xVal"))
            categories = [labels[k] for k in sorted(labels)]
    count = max([len(categories), *(max(c, default=-1) + 1 for c in columns)])
    rows = [["", *names]]
    for index in range(min(count, _MAX_POINTS)):
        label = categories[index] if index < len(categories) else str(index + 1)
        rows.append([label, *(column.get(index, "") for column in columns)])
    return rows


def _points(element: Any) -> dict[int, str]:
    """Return a data reference's cached points by index (``c:pt``; a literal ``c:v`` too)."""
    if element is None:
        return {}
    points: dict[int, str] = {}
    for point in element.iter(C + "pt"):
        index = point.get("idx")
        value = point.find(C + "v")
        if (
            index is not None
            and index.isdigit()
            and value is not None
            and len(points) < _MAX_POINTS
        ):
            points[int(index)] = _general(value.text or "")
    if not points:
        value = element.find(C + "v")
        if value is not None:
            points[0] = value.text or ""
    return points


def _general(value: str) -> str:
    """Return a cached number as Excel's General format shows it (15 significant digits)."""
    try:
        number = float(value)
    except ValueError:
        return " ".join(value.split())
    return f"{number:.15g}"
