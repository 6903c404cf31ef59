"""DOCX content outside plain paragraphs (issue 12): notes, boxes, equations, controls, changes.

The coverage check reads the parts with lxml, not with ragchunk: every ``w:t`` of the body and
the notes (and the comments, when asked for) must be in the text, unless it is deliberately
left out (a tracked deletion, moved-away text, the VML copy of a text box, a placeholder).
"""

from __future__ import annotations

import io
import re
import zipfile
from functools import cache
from pathlib import Path

import docx
import pytest
from docx.oxml import parse_xml
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from ragchunk.model import Document
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.docx import parse
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
HANDBOOK = FIXTURES / "docx" / "field-handbook.docx"
DOCX_FIXTURES = sorted(FIXTURES.rglob("*.docx"))
DELIBERATE = {W + "del", W + "moveFrom", MC + "Fallback"}


@cache
def read(path: Path, *, comments: bool = False) -> Document:
    options = ParseOptions(comments=comments)
    return parse(path.read_bytes(), ParseRequest(source=path.name, options=options))


def left_out_on_purpose(run: etree._Element) -> bool:
    for parent in run.iterancestors():
        if parent.tag in DELIBERATE:
            return True
        if parent.tag == W + "sdt" and parent.find(f"{W}sdtPr/{W}showingPlcHdr") is not None:
            return True
    return False


def assert_covered(data: bytes, doc: Document, *, comments: bool = False) -> int:
    """Assert every text run of the parts read is in the text; return how many were checked."""
    flat = " ".join(doc.text.split())
    parts = ["word/document.xml", "word/footnotes.xml", "word/endnotes.xml"]
    parts += ["word/comments.xml"] if comments else []
    checked = 0
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for part in (p for p in parts if p in archive.namelist()):
            root = etree.fromstring(archive.read(part))
            for run in root.iter(W + "t"):
                text = " ".join((run.text or "").split())
                if not text or left_out_on_purpose(run):
                    continue
                escaped = text.replace("|", "\\|")  # as a table cell writes it
                assert text in flat or escaped in flat, f"{part}: {text!r} is not in the text"
                checked += 1
    assert doc.extraction["unread"] == 0
    return checked


@pytest.mark.parametrize("path", DOCX_FIXTURES, ids=lambda p: p.name)
def test_coverage_on_every_docx_fixture(path: Path) -> None:
    assert assert_covered(path.read_bytes(), read(path)) > 0


def test_coverage_with_comments() -> None:
    assert_covered(HANDBOOK.read_bytes(), read(HANDBOOK, comments=True), comments=True)


def test_footnotes_and_endnotes_follow_the_body_linked_to_their_marks() -> None:
    doc = read(HANDBOOK)
    notes = [s for s in doc.sections if s.kind in ("footnote", "endnote")]
    body_end = max(s.end for s in doc.sections if s.kind not in ("footnote", "endnote"))
    assert [(s.kind, s.metadata["id"], s.headings) for s in notes] == [
        ("footnote", "1", ("Footnotes",)),
        ("footnote", "2", ("Footnotes",)),
        ("endnote", "1", ("Endnotes",)),
        ("endnote", "2", ("Endnotes",)),
    ]
    assert all(s.start > body_end for s in notes)
    assert doc.text[notes[0].start : notes[0].end].startswith("Version 2, issued in 2021")
    marks = {
        ("footnote", "1"): "3 June 2024.",
        ("footnote", "2"): "a stratified water column.",
        ("endnote", "1"): "the same day.",
        ("endnote", "2"): "where a site was skipped:",
    }
    for note in notes:
        reference = note.metadata["reference"]
        assert isinstance(reference, int)
        expected = marks[(note.kind, str(note.metadata["id"]))]
        assert doc.text[:reference].endswith(expected), (note.metadata, doc.text[:reference][-40:])
    assert (doc.extraction["footnotes"], doc.extraction["endnotes"]) == (2, 2)


def test_text_boxes_follow_their_paragraph_once_each() -> None:
    doc = read(HANDBOOK)
    for words in (
        "Never sample alone from the Tanner's Reach pontoon.",
        "Times are in UTC, not local time.",
        "Form WQ-7, 2019 edition",  # the VML-only legacy box
    ):
        assert doc.text.count(words) == 1, words
    box = doc.text.index("Never sample alone")
    assert doc.text.index("The launch waits") < box < doc.text.index("The sonde is calibrated")
    boxes = [s for s in doc.sections if s.metadata.get("container") == "text box"]
    assert len(boxes) == 4  # two paragraphs in the first box
    assert doc.extraction["text_boxes"] == 3


def test_equations_read_as_linear_text_in_their_sentences() -> None:
    doc = read(HANDBOOK)
    assert "per cent is S=100C/(C_s), where C is" in doc.text
    assert "σ=√((∑_(i=1)^n (x_i−x\u0304)^2)/(n−1))" in doc.text
    assert "A temperature step ΔT=T_(bed)−T_(surface) greater than 2 K" in doc.text
    assert doc.extraction["equations"] == 3


def test_content_controls_hyperlinks_and_fields() -> None:
    doc = read(HANDBOOK)
    assert "Survey leader: Dr Helen Marsh. Survey date: 3 June 2024." in doc.text
    assert "Access to site W5: by boat." in doc.text
    assert "\u2612 Life jackets checked" in doc.text
    assert "Check the tide tables and the inshore weather forecast the evening before" in doc.text
    assert "read Calculating saturation if you are new" in doc.text
    assert "HYPERLINK" not in doc.text
    assert "Click or tap here" not in doc.text  # the placeholder of an empty control


def test_tracked_insertions_in_deletions_out() -> None:
    doc = read(HANDBOOK)
    assert "The sonde is calibrated before every survey against air-saturated water" in doc.text
    assert "the oxygen sensor is replaced" in doc.text
    assert "weekly" not in doc.text
    assert "paper record sheets and typed up later" not in doc.text
    assert "Readings are entered on the tablet and synchronised every evening." in doc.text


EMPTY_ROW = re.compile(r"^(?:\|\s+)+\|$", re.MULTILINE)


def test_empty_tables_and_rows_make_no_lines() -> None:
    doc = read(HANDBOOK)
    assert not EMPTY_ROW.search(doc.text)
    tables = [s for s in doc.sections if s.kind == "table"]
    assert len(tables) == 1
    assert doc.text[tables[0].start : tables[0].end].count("\n") == 3  # header and three rows


def test_comments_headers_and_footers_are_left_out_and_named() -> None:
    doc = read(HANDBOOK)
    assert "volunteers who sample at Ferry Sands" not in doc.text
    assert "for survey crews only" not in doc.text
    left_out = doc.extraction["left_out"]
    assert left_out == [
        {"kind": "comments", "part": "word/comments.xml", "count": 1},
        {
            "kind": "footer",
            "part": "word/footer1.xml",
            "text": "Wend Estuary Partnership \u2013 page 1",
        },
        {
            "kind": "header",
            "part": "word/header1.xml",
            "text": "Field Handbook for Estuary Surveys \u2013 for survey crews only",
        },
        {"kind": "deleted", "part": "word/document.xml", "count": 2},
        {"kind": "placeholder", "part": "word/document.xml", "count": 1},
    ]


def test_comments_are_added_after_the_notes_when_asked_for() -> None:
    doc = read(HANDBOOK, comments=True)
    (comment,) = [s for s in doc.sections if s.kind == "comment"]
    assert doc.text[comment.start : comment.end] == (
        "Should this include the volunteers who sample at Ferry Sands?"
    )
    assert comment.metadata["author"] == "Helen Marsh"
    assert comment.headings == ("Comments",)
    assert comment.start > max(s.end for s in doc.sections if s.kind == "endnote")
    assert all(item["kind"] != "comments" for item in doc.extraction["left_out"])  # type: ignore[index,union-attr]


@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize("name", ["recursive", "auto", "hierarchical", "markdown", "paragraph"])
def test_footnote_text_box_and_equation_text_is_in_chunks(name: str, unit: str) -> None:
    size, overlap = (300, 30) if unit == "chars" else (64, 8)
    plan = make_plan(shortcuts({"strategy": name, "size": size, "overlap": overlap, "unit": unit}))  # type: ignore[arg-type]
    chunks = assert_invariants(read(HANDBOOK), plan)
    joined = " ".join(" ".join(chunk.text.split()) for chunk in chunks)
    for words in ("Version 2, issued in 2021", "Two people stay", "(n−1)", "ΔT=T_(bed)"):
        assert words in joined, words


# --- generated documents ---------------------------------------------------------------

WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "Ω", "x|y", "", " ", "e\u0301"])
RUNS = st.lists(st.lists(WORDS, max_size=4).map(" ".join), min_size=1, max_size=4)
WRAPPERS = st.sampled_from(["plain", "ins", "del", "sdt", "hyperlink", "placeholder", "smartTag"])
BLOCKS = st.lists(
    st.one_of(
        st.tuples(st.just("paragraph"), RUNS, WRAPPERS),
        st.tuples(st.just("heading"), RUNS, WRAPPERS),
        st.tuples(
            st.just("table"),
            st.lists(
                st.lists(st.lists(WORDS, max_size=3).map(" ".join), min_size=2, max_size=2),
                max_size=3,
            ),
            st.just("plain"),
        ),
    ),
    max_size=8,
)


def _run(text: str) -> str:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;")
    return f'<w:r><w:t xml:space="preserve">{escaped}</w:t></w:r>'


def _wrapped(runs: list[str], wrapper: str) -> str:
    inner = "".join(_run(text) for text in runs)
    if wrapper == "del":
        return (
            inner.replace("<w:t ", "<w:delText ")
            .replace("</w:t>", "</w:delText>")
            .join(['<w:del w:id="1" w:author="a">', "</w:del>"])
        )
    if wrapper in ("ins", "hyperlink", "smartTag"):
        tag = {"ins": 'w:ins w:id="1" w:author="a"', "hyperlink": 'w:hyperlink w:anchor="x"'}.get(
            wrapper, 'w:smartTag w:element="place"'
        )
        return f"<{tag}>{inner}</{tag.split()[0]}>"
    if wrapper in ("sdt", "placeholder"):
        shown = "<w:showingPlcHdr/>" if wrapper == "placeholder" else ""
        return f"<w:sdt><w:sdtPr>{shown}</w:sdtPr><w:sdtContent>{inner}</w:sdtContent></w:sdt>"
    return inner


def build(blocks: list[tuple[str, object, str]]) -> bytes:
    document = docx.Document()
    body = document.element.body
    for kind, content, wrapper in blocks:
        if kind == "table":
            rows = content  # type: ignore[assignment]
            if not rows:
                continue
            table = document.add_table(rows=len(rows), cols=2)  # type: ignore[arg-type]
            for row, values in zip(table.rows, rows, strict=True):  # type: ignore[arg-type]
                for cell, value in zip(row.cells, values, strict=True):
                    cell.text = value
            continue
        style = '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>' if kind == "heading" else ""
        xml = f"<w:p {NS}>{style}{_wrapped(content, wrapper)}</w:p>"  # type: ignore[arg-type]
        body.insert(len(body) - 1, parse_xml(xml))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


@settings(max_examples=60)
@given(BLOCKS)
def test_coverage_and_invariants_on_generated_documents(
    blocks: list[tuple[str, object, str]],
) -> None:
    data = build(blocks)
    doc = parse(data, ParseRequest(source="generated.docx"))
    assert_covered(data, doc)
    assert not EMPTY_ROW.search(doc.text)
    assert_invariants(
        doc, make_plan(shortcuts({"strategy": "recursive", "size": 40, "overlap": 5}))
    )
