"""The PDF parser: page map, outline and font-size headings, encryption, metadata, warnings."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pypdf
import pytest

from ragchunk.errors import CorruptDocumentError
from ragchunk.model import PAGE_SEPARATOR, Document
from ragchunk.parsers import detect
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse, parse_pdf_date
from ragchunk.parsers.pdf.clean import SYMBOL_BULLETS
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
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


ENGINES = ["pdfium", "pypdf"]


def load(
    source: Path | bytes, engine: str = "pdfium", **request: object
) -> tuple[Document, list[tuple[str, str]]]:
    """Parse a fixture path or PDF bytes; return the document and the warnings given."""
    warnings: list[tuple[str, str]] = []
    data = source if isinstance(source, bytes) else source.read_bytes()
    doc = parse(
        data,
        ParseRequest(
            source="in.pdf",
            warn=lambda code, message: warnings.append((code, message)),
            options=ParseOptions(pdf_engine=engine),  # type: ignore[arg-type]
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


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("path", [OUTLINED, PLAIN], ids=["outline", "font-sizes"])
def test_headings_from_the_outline_or_from_font_sizes(path: Path, engine: str) -> None:
    doc, warnings = load(path, engine)
    assert warnings == []
    found = [(s.level, s.headings) for s in doc.sections if s.kind == "heading"]
    assert found == HEADINGS
    for section in doc.sections:
        if section.kind == "heading":
            assert doc.text[section.start : section.end] == section.headings[-1]
    assert doc.format == "pdf"
    assert not doc.has_lines


@pytest.mark.parametrize("engine", ENGINES)
def test_pages_map_each_page_text_joined_by_the_separator(engine: str) -> None:
    doc, _ = load(OUTLINED, engine)
    reader = pypdf.PdfReader(OUTLINED)
    # pypdf's words, with the bullets of Word's Symbol font as the characters they show.
    words = [
        [SYMBOL_BULLETS.get(word, word) for word in page.extract_text().split()]
        for page in reader.pages
    ]
    assert doc.text == PAGE_SEPARATOR.join(doc.text[p.start : p.end] for p in doc.pages)
    assert [p.number for p in doc.pages] == [1, 2, 3]
    for page, expected in zip(doc.pages, words, strict=True):
        # The same words as pypdf's text of the page; lines stripped, spaces single; a ruled
        # table's rows add their cell separators (PDFium engine).
        assert [w for w in doc.text[page.start : page.end].split() if w != "|"] == expected
        assert "  " not in doc.text[page.start : page.end]
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
    plan = make_plan(shortcuts({"strategy": "fixed", "size": 200, "overlap": 0}))
    chunks = chunk_document(doc, plan.recipe)
    page_1, page_2 = doc.pages[0], doc.pages[1]
    spanning = [c for c in chunks if c.start < page_1.end and c.end > page_2.start]
    assert spanning
    assert all((c.page_start, c.page_end) == (1, 2) for c in spanning)
    inside = [c for c in chunks if page_2.start <= c.start and c.end <= page_2.end]
    assert inside
    assert all(c.page_start == c.page_end == 2 for c in inside)


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_user_password_opens_without_asking(engine: str) -> None:
    doc, _ = load(encrypted("", owner="owner"), engine)
    assert doc.text == load(OUTLINED, engine)[0].text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-128", "AES-256"])
def test_password_opens_an_encrypted_file(algorithm: str, engine: str) -> None:
    doc, _ = load(encrypted("secret", algorithm=algorithm), engine, password="secret")
    assert doc.text == load(OUTLINED, engine)[0].text


@pytest.mark.parametrize("engine", ENGINES)
def test_encrypted_without_password_is_one_clear_error(engine: str) -> None:
    with pytest.raises(CorruptDocumentError) as caught:
        load(encrypted("secret"), engine)
    assert str(caught.value) == (
        "in.pdf: encrypted PDF: a password is needed (give it with --password)"
    )


def test_wrong_password_is_one_clear_error() -> None:
    with pytest.raises(CorruptDocumentError) as caught:
        load(encrypted("secret"), password="guess")
    assert str(caught.value) == (
        "in.pdf: encrypted PDF: the password given with --password is wrong"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_pages_without_text_are_reported(engine: str) -> None:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(OUTLINED.read_bytes()))
    writer.add_blank_page()
    writer.insert_blank_page(index=0)
    doc, warnings = load(write(writer), engine)
    assert [p.start == p.end for p in doc.pages] == [True, False, False, False, True]
    assert doc.extraction["no_text_pages"] == [1, 5]
    assert warnings == [
        (
            "pdf-no-text",
            "in.pdf: 2 of 5 page(s) have no text layer (scanned images?): page 1, 5",
        )
    ]


def outlined(*entries: tuple[str, int, float | None]) -> bytes:
    """Return the plain report with an outline of ``(title, page index, top or None)``."""
    writer = pypdf.PdfWriter()
    writer.append(io.BytesIO(PLAIN.read_bytes()), import_outline=False)
    for title, page, top in entries:
        if top is None:
            writer.add_outline_item(title=title, page_number=page)
        else:
            fit = pypdf.generic.Fit.xyz(left=0, top=top)
            writer.add_outline_item(title=title, page_number=page, fit=fit)
    return write(writer)


def test_an_unmatched_title_without_a_position_relabels_nothing() -> None:
    doc, _ = load(outlined(("Network overview", 0, None), ("Appendix (not printed)", 1, None)))
    # The outline is sparse, so the font headings complete it, under its printed title.
    assert {s.headings[:1] for s in doc.sections} == {(), ("Network overview",)}
    assert not any("Appendix (not printed)" in s.headings for s in doc.sections)
    assert doc.extraction["outline_not_found"] == ["Appendix (not printed)"]


def test_an_unmatched_title_starts_its_path_where_its_destination_points() -> None:
    page_2 = pypdf.PdfReader(PLAIN).pages[1]
    top = float(page_2.mediabox.top) - 330  # a third of the way down the page
    doc, _ = load(outlined(("Network overview", 0, None), ("Appendix (not printed)", 1, top)))
    appendix = [s for s in doc.sections if s.headings == ("Appendix (not printed)",)]
    assert appendix
    first = appendix[0]
    assert doc.pages[1].start < first.start  # not the page's start: the destination's line
    assert first.kind == "prose"
    before = [s for s in doc.sections if s.end <= first.start and s.start >= doc.pages[1].start]
    assert before
    assert all(s.headings == ("Network overview",) for s in before)


def test_outline_titles_match_printed_headings_loosely_and_paths_use_the_print() -> None:
    writer = pypdf.PdfWriter()
    writer.append(io.BytesIO(PLAIN.read_bytes()), import_outline=False)
    parent = writer.add_outline_item(title="1 network OVERVIEW", page_number=0)
    writer.add_outline_item(title="1.2 instruments", page_number=0, parent=parent)
    writer.add_outline_item(title="II. maintenance in 2024", page_number=1)
    writer.add_outline_item(title="Maintenance & repairs", page_number=1)  # not printed
    doc, _ = load(write(writer))
    found = [s.headings for s in doc.sections if s.kind == "heading"]
    assert found == [
        ("Network overview",),
        ("Network overview", "Instruments"),
        ("Maintenance in 2024",),
    ]
    assert doc.extraction["outline_not_found"] == ["Maintenance & repairs"]


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


@pytest.mark.parametrize(
    ("title", "printed"),
    [
        ("1 introduction", "I. INTRODUCTION"),
        ("2.1 sampling sites", "2.1 Sampling sites"),
        ("3.3 turbidity & suspended solids", "3.3 Turbidity and suspended solids"),
        ("annex a - preliminary data (2024)", "ANNEX A: PRELIMINARY DATA FOR 2024"),
        ("A.1 Winter surveys", "a.1 winter surveys"),
        ("Chapter IV The Weir", "The weir"),
    ],
)
def test_loose_titles_match(title: str, printed: str) -> None:
    from ragchunk.parsers.pdf.outline import MIN_SIMILARITY, loose, similarity

    assert similarity(loose(title), loose(printed)) >= MIN_SIMILARITY


@pytest.mark.parametrize(
    ("title", "printed"),
    [
        ("Introduction", "Introduction to the methods of the programme and its history"),
        ("2.1 Sampling sites", "2.2 Field measurements"),
        ("A guide", "Guide"),  # an article is a word, not a numbering
    ],
)
def test_loose_titles_do_not_match(title: str, printed: str) -> None:
    from ragchunk.parsers.pdf.outline import MIN_SIMILARITY, loose, similarity

    assert similarity(loose(title), loose(printed)) < MIN_SIMILARITY


@pytest.mark.parametrize(
    ("build", "engine", "message"),
    [
        (
            "pdf_font_bomb",
            "pypdf",
            "refused: 400000 bytes of text shown in a row, without a line break or move "
            "(limit 65536)",
        ),
        (
            "pdf_font_bomb",
            "pdfium",
            "refused: a font maps one code to 256 characters (a font map expanding each byte?)",
        ),
        ("pdf_deep_nesting", "pypdf", "refused: objects nested too deeply to read"),
        (
            "pdf_stream_flood",
            "pdfium",
            "refused: its content streams expand past --max-bytes 536870912 "
            "(a decompression bomb?)",
        ),
    ],
)
def test_caps_hold_for_either_engine(build: str, engine: str, message: str) -> None:
    from ragchunk.errors import LimitExceededError
    from tests.data import make_bad

    with pytest.raises(LimitExceededError) as caught:
        load(getattr(make_bad, build)(), engine)
    assert str(caught.value) == f"in.pdf: {message}"


def test_lone_surrogates_become_replacement_characters_with_pypdf() -> None:
    from tests.data import make_bad

    doc, warnings = load(make_bad.pdf_surrogate(), "pypdf")
    assert doc.text == "Hello \ufffd world"
    assert warnings == [
        (
            "pdf-surrogates",
            "in.pdf: 1 invalid character(s) (lone surrogates) in the text replaced with U+FFFD",
        )
    ]


def test_pdfium_leaves_out_a_lone_surrogate() -> None:
    from tests.data import make_bad

    doc, warnings = load(make_bad.pdf_surrogate(), "pdfium")
    assert (doc.text, warnings) == ("Hello world", [])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "name", ["estuary-report", "inspection-letter", "report-outline", "report-plain"]
)
def test_undamaged_files_read_without_a_repair_warning(name: str, engine: str) -> None:
    """pypdf reads CFF fonts with fonttools; without it, it "repaired" undamaged files."""
    _, warnings = load(FIXTURES / "pdf" / f"{name}.pdf", engine)
    assert warnings == []
