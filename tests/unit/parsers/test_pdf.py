"""The PDF parser: page map, outline and font-size headings, encryption, metadata, warnings."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pypdf
import pytest

from ragchunk.engine import chunk_document
from ragchunk.errors import CorruptDocumentError
from ragchunk.model import PAGE_SEPARATOR, Document
from ragchunk.parsers import detect
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.pdf import parse, parse_pdf_date
from ragchunk.plan import make_plan
from tests.conftest import FIXTURES

OUTLINED = FIXTURES / "pdf" / "report-outline.pdf"
PLAIN = FIXTURES / "pdf" / "report-plain.pdf"
HEADINGS = [
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


def load(source: Path | bytes, **request: object) -> tuple[Document, list[tuple[str, str]]]:
    """Parse a fixture path or PDF bytes; return the document and the warnings given."""
    warnings: list[tuple[str, str]] = []
    data = source if isinstance(source, bytes) else source.read_bytes()
    doc = parse(
        data,
        ParseRequest(
            source="in.pdf",
            warn=lambda code, message: warnings.append((code, message)),
            **request,  # type: ignore[arg-type]
        ),
    )
    return doc, warnings


def write(writer: pypdf.PdfWriter) -> bytes:
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def encrypted(user: str, owner: str | None = None, algorithm: str = "AES-256") -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(OUTLINED.read_bytes()))
    writer.encrypt(user, owner_password=owner, algorithm=algorithm)
    return write(writer)


@pytest.mark.parametrize("path", [OUTLINED, PLAIN], ids=["outline", "font-sizes"])
def test_headings_from_the_outline_or_from_font_sizes(path: Path) -> None:
    doc, warnings = load(path)
    assert warnings == []
    found = [(s.level, s.headings) for s in doc.sections if s.kind == "heading"]
    assert found == HEADINGS
    for section in doc.sections:
        if section.kind == "heading":
            assert doc.text[section.start : section.end] == section.headings[-1]
    assert doc.format == "pdf"
    assert not doc.has_lines


def test_pages_map_each_page_text_joined_by_the_separator() -> None:
    doc, _ = load(OUTLINED)
    reader = pypdf.PdfReader(OUTLINED)
    texts = [page.extract_text() for page in reader.pages]
    assert doc.text == PAGE_SEPARATOR.join(texts)
    assert [p.number for p in doc.pages] == [1, 2, 3]
    for page, text in zip(doc.pages, texts, strict=True):
        assert doc.text[page.start : page.end] == text
    assert doc.text[doc.pages[0].end : doc.pages[1].start] == PAGE_SEPARATOR


def test_metadata_has_title_author_and_an_iso_creation_date() -> None:
    doc, _ = load(OUTLINED)
    assert doc.metadata["title"] == "Harbour Tide Gauge Network: Maintenance Report 2024"
    assert doc.metadata["author"] == "Coastal Observations Unit"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", str(doc.metadata["created"]))


def test_sections_are_ordered_disjoint_and_cover_the_text() -> None:
    doc, _ = load(PLAIN)
    position = 0
    for section in doc.sections:
        assert position <= section.start < section.end
        assert not doc.text[position : section.start].strip()
        position = section.end
    assert not doc.text[position:].strip()


def test_chunks_report_the_pages_they_span() -> None:
    doc, _ = load(OUTLINED)
    plan = make_plan("fixed", size=200, overlap=0)
    chunks = chunk_document(doc, plan.recipe)
    page_1, page_2 = doc.pages[0], doc.pages[1]
    spanning = [c for c in chunks if c.start < page_1.end and c.end > page_2.start]
    assert spanning
    assert all((c.page_start, c.page_end) == (1, 2) for c in spanning)
    inside = [c for c in chunks if page_2.start <= c.start and c.end <= page_2.end]
    assert inside
    assert all(c.page_start == c.page_end == 2 for c in inside)


def test_empty_user_password_opens_without_asking() -> None:
    doc, _ = load(encrypted("", owner="owner"))
    assert doc.text == load(OUTLINED)[0].text


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-128", "AES-256"])
def test_password_opens_an_encrypted_file(algorithm: str) -> None:
    doc, _ = load(encrypted("secret", algorithm=algorithm), password="secret")
    assert doc.text == load(OUTLINED)[0].text


def test_encrypted_without_password_is_one_clear_error() -> None:
    with pytest.raises(CorruptDocumentError) as caught:
        load(encrypted("secret"))
    assert str(caught.value) == (
        "in.pdf: encrypted PDF: a password is needed (give it with --password)"
    )


def test_wrong_password_is_one_clear_error() -> None:
    with pytest.raises(CorruptDocumentError) as caught:
        load(encrypted("secret"), password="guess")
    assert str(caught.value) == (
        "in.pdf: encrypted PDF: the password given with --password is wrong"
    )


def test_pages_without_text_are_reported() -> None:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(OUTLINED.read_bytes()))
    writer.add_blank_page()
    writer.insert_blank_page(index=0)
    doc, warnings = load(write(writer))
    assert [p.start == p.end for p in doc.pages] == [True, False, False, False, True]
    assert warnings == [
        (
            "pdf-no-text",
            "in.pdf: 2 of 5 page(s) have no text layer (scanned images?): page 1, 5",
        )
    ]


def test_outline_entry_not_found_on_its_page_starts_its_path_at_the_page() -> None:
    writer = pypdf.PdfWriter()
    writer.append(io.BytesIO(PLAIN.read_bytes()), import_outline=False)
    writer.add_outline_item(title="Network overview", page_number=0)
    writer.add_outline_item(title="Appendix (not printed)", page_number=1)
    doc, _ = load(write(writer))
    page_2 = doc.pages[1]
    assert [(s.kind, s.headings) for s in doc.sections] == [
        ("prose", ()),
        ("heading", ("Network overview",)),
        ("prose", ("Network overview",)),
        ("prose", ("Appendix (not printed)",)),
    ]
    assert doc.sections[3].start == page_2.start


def test_detected_by_extension_and_by_content() -> None:
    assert detect("x.PDF", b"") == "pdf"
    assert detect("no-extension", b"%PDF-1.7") == "pdf"


@pytest.mark.parametrize(
    ("raw", "iso"),
    [
        ("D:20261129133935Z'", "2026-11-29T13:39:35+00:00"),
        ("D:20240603093000+02'00'", "2024-06-03T09:30:00+02:00"),
        ("D:20240603093000-05'30", "2024-06-03T09:30:00-05:30"),
        ("D:2024", "2024-01-01T00:00:00"),
        ("20240603", "2024-06-03T00:00:00"),
        ("D:20240230", None),
        ("yesterday", None),
    ],
)
def test_pdf_dates(raw: str, iso: str | None) -> None:
    assert parse_pdf_date(raw) == iso


def test_a_repaired_file_is_read_with_one_warning() -> None:
    data = PLAIN.read_bytes()
    damaged = data[: data.rindex(b"startxref")] + b"startxref\n999999\n%%EOF\n"
    doc, warnings = load(damaged)
    assert doc.text == load(PLAIN)[0].text
    assert warnings == [
        (
            "pdf-repaired",
            "in.pdf: damaged PDF read with 2 repair(s); first: incorrect startxref pointer(2)",
        )
    ]


def test_outline_titles_prefer_a_whole_line_over_running_text() -> None:
    from ragchunk.parsers.pdf import _find_title

    text = "We saw drift in the data.\nDrift\nThe gauge drifted."
    assert _find_title(text, "drift", 0, len(text)) == (26, 31)
    assert _find_title("no drifted words", "drift", 0, 16) is None
    assert _find_title("the Drift  check", "drift check", 0, 16) == (4, 16)
