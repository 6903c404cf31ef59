"""PDF headings from font weight as well as size (issue 30 item 2), on PDFs PDFium makes here.

Each page is a list of ``(text, size, y, font)``: the text set in one of PDF's standard fonts,
scaled by the text matrix, at 72 points from the left. Both engines read the same files.
"""

from __future__ import annotations

import ctypes
import io

import pypdf
import pypdfium2
import pypdfium2.raw as pdfium_c
import pytest

from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.pdf import parse
from ragchunk.parsers.pdf.lines import font_style

ENGINES = ("pdfium", "pypdf")
BODY = "Helvetica"
BOLD = "Helvetica-Bold"
Placed = tuple[str, float, float, str]


def _pdf(pages: list[list[Placed]]) -> bytes:
    pdf = pypdfium2.PdfDocument.new()
    fonts: dict[str, object] = {}
    for lines in pages:
        page = pdf.new_page(612, 792)
        for text, size, y, name in lines:
            if name not in fonts:
                fonts[name] = pdfium_c.FPDFText_LoadStandardFont(pdf.raw, name.encode())
            obj = pdfium_c.FPDFPageObj_CreateTextObj(pdf.raw, fonts[name], 1.0)
            data = (text + "\0").encode("utf-16-le")
            chars = (ctypes.c_ushort * (len(data) // 2)).from_buffer_copy(data)
            pdfium_c.FPDFText_SetText(obj, chars)
            pdfium_c.FPDFPageObj_Transform(obj, size, 0, 0, size, 72, y)
            pdfium_c.FPDFPage_InsertObject(page.raw, obj)
        pdfium_c.FPDFPage_GenerateContent(page.raw)
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def _body(y: float, count: int = 3) -> list[Placed]:
    """Return ``count`` lines of a paragraph of body text from ``y`` down."""
    words = [
        "The harbour survey ran from March to May and measured the silt at every pier",
        "along the north shore, where the river slows down before it meets the sea and",
        "drops what it carries; the dredgers worked there through the whole summer.",
    ]
    return [(words[k % 3], 11, y - 14 * k, BODY) for k in range(count)]


def _headings(data: bytes, engine: str) -> list[tuple[str, ...]]:
    options = ParseOptions(pdf_engine=engine)  # type: ignore[arg-type]
    doc = parse(data, ParseRequest(options=options))
    return [s.headings for s in doc.sections if s.kind == "heading"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bold_body_size_line_standing_alone_is_a_heading_below_the_sized_ones(
    engine: str,
) -> None:
    data = _pdf(
        [
            [
                ("Harbour Survey", 20, 720, BOLD),
                *_body(690),
                ("Silt at the North Pier", 11, 630, BOLD),
                *_body(612),
                ("Dredging", 11, 556, BOLD),
                *_body(538),
            ]
        ]
    )
    assert _headings(data, engine) == [
        ("Harbour Survey",),
        ("Harbour Survey", "Silt at the North Pier"),
        ("Harbour Survey", "Dredging"),
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_bold_lines_that_are_sentences_or_run_on_are_not_headings(engine: str) -> None:
    data = _pdf(
        [
            [
                *_body(720),
                ("Every pier was measured twice.", 11, 664, BOLD),  # ends a sentence
                *_body(646),
                ("Silt at the north pier, which", 11, 590, BOLD),  # a clause
                ("grew all summer long at the bend", 11, 576, BODY),
                *_body(562),
            ]
        ]
    )
    assert _headings(data, engine) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_larger_code_line_and_a_page_number_are_never_headings(engine: str) -> None:
    data = _pdf(
        [
            [
                ("Harbour Survey", 20, 720, BOLD),
                *_body(690),
                ("silt = measure(pier)", 13, 630, "Courier"),
                *_body(612),
                ("11", 14, 40, BODY),
            ]
        ]
    )
    assert _headings(data, engine) == [("Harbour Survey",)]


@pytest.mark.parametrize("engine", ENGINES)
def test_when_most_text_is_bold_bold_is_no_heading_signal(engine: str) -> None:
    body = [(text, size, y, BOLD) for text, size, y, _ in _body(690)]
    data = _pdf([[*body, ("Silt at the North Pier", 11, 630, BOLD), *_body(612, 1)]])
    assert _headings(data, engine) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_sparse_outline_is_completed_by_the_font_headings(engine: str) -> None:
    printed = _pdf(
        [
            [
                ("Harbour Survey", 20, 720, BOLD),
                *_body(690),
                ("2.1 Silt at the North Pier", 11, 630, BOLD),
                *_body(612),
                ("2.2 Dredging", 11, 556, BOLD),
                *_body(538),
            ]
        ]
    )
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(printed))
    writer.add_outline_item(title="Harbour Survey", page_number=0)
    out = io.BytesIO()
    writer.write(out)
    assert _headings(out.getvalue(), engine) == [
        ("Harbour Survey",),
        ("Harbour Survey", "2.1 Silt at the North Pier"),
        ("Harbour Survey", "2.2 Dredging"),
    ]


def test_a_label_a_little_larger_between_small_lines_is_no_heading() -> None:
    data = _pdf(
        [
            [
                *_body(720),
                ("Figure 1 The north pier", 9, 664, BODY),
                ("CREATE PERMISSION", 12, 650, BOLD),
                ("Names the permission", 9, 636, BODY),
                *_body(600),
            ]
        ]
    )
    assert _headings(data, "pdfium") == []


@pytest.mark.parametrize(
    ("name", "flags", "style"),
    [
        ("SFBX1000", 0, (True, False, False)),  # TeX bold: PDFium reports weight 250
        ("ABCDEF+Helvetica-Bold", 0, (True, False, False)),
        ("LubalinGraphStd-Demi", 0, (True, False, False)),
        ("Calibri,Bold", 0, (True, False, False)),
        ("Helvetica", 1 << 18, (True, False, False)),  # ForceBold
        ("Times-Italic", 0, (False, True, False)),
        ("SFTI1000", 0, (False, True, False)),
        ("CMTT9", 0, (False, False, True)),
        ("Courier-Oblique", 0, (False, True, True)),
        ("Consolas", 0, (False, False, True)),
        ("Garamond", 1, (False, False, True)),  # FixedPitch
        ("TimesNewRomanPSMT", 0x80004, (False, False, False)),
        ("SFRM1000", 0x80020, (False, False, False)),
    ],
)
def test_font_style_reads_names_and_descriptor_flags(
    name: str, flags: int, style: tuple[bool, bool, bool]
) -> None:
    assert font_style(name, flags) == style


def test_a_page_with_a_character_outside_the_bmp_keeps_its_headings() -> None:
    # PDFium counts such a character as two indices (UTF-16 units); sizes must stay aligned.
    body = "The harbour survey ran from March to May and measured the silt at every pier"
    data = _raw_pdf(
        [
            ("Harbour Survey", 20, 720, True),
            ("Tide marks ~ at the pier were read at dawn.", 11, 690, False),
            (body, 11, 676, False),
            ("Findings", 16, 620, True),
            (body, 11, 600, False),
        ]
    )
    doc = parse(data, ParseRequest(options=ParseOptions(pdf_engine="pdfium")))
    assert "Tide marks \U0001d400 at the pier" in doc.text
    assert [s.headings for s in doc.sections if s.kind == "heading"] == [
        ("Harbour Survey",),
        ("Harbour Survey", "Findings"),
    ]


def _raw_pdf(lines: list[tuple[str, float, float, bool]]) -> bytes:
    """Return a PDF written by hand: Helvetica whose ``~`` reads as U+1D400 (its ToUnicode)."""
    content = "".join(
        f"BT /F{2 if bold else 1} {size} Tf 72 {y} Td ({text}) Tj ET\n"
        for text, size, y, bold in lines
    ).encode("latin-1")
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        b"/CMapName /U def 1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"1 beginbfchar <7E> <D835DC00> endbfchar endcmap CMapName currentdict /CMap defineresource"
        b" pop end end\n"
    )
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R /F2 7 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    size = len(objects) + 1
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)
