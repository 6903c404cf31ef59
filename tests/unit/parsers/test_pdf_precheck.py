"""PDFium alone on a sound PDF (issue 30): ``precheck`` reads the bytes, ``native`` the rest.

A file the byte scan finds sound is read without pypdf and gives exactly what the pypdf-checked
path gives; every hostile file is doubted (or found out by PDFium's page count or outline walk)
and goes to pypdf, whose messages ``tests/cli/test_hostile.py`` checks.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from ragchunk.parsers import pdf
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.pdf import native
from ragchunk.parsers.pdf.precheck import DoubtError, scan
from tests.conftest import FIXTURES
from tests.data import make_bad

MAX_BYTES = 512 * 1024 * 1024
SOUND = sorted((FIXTURES / "pdf").glob("*.pdf"))
DOUBTED = [
    "pdf_bomb",
    "pdf_corrupt",
    "pdf_deep_resources",
    "pdf_font_bomb",
    "pdf_font_flood",
    "pdf_form_flood",
    "pdf_huge_length",
    "pdf_stream_flood",
    "pdf_truncated",
    "pdf_xref_loop",
]


@pytest.mark.parametrize("path", SOUND, ids=lambda p: p.name)
def test_a_fixture_is_read_by_pdfium_alone_as_the_pypdf_checked_path_reads_it(path: Path) -> None:
    data = path.read_bytes()
    alone = pdf._pdfium_alone(data, ParseRequest(source=path.name))
    assert alone is not None
    pages, entries, info, password = pdf._with_pypdf(data, ParseRequest(source=path.name))
    assert (alone[2], alone[3]) == (info, password)
    assert repr(alone[0]) == repr(pages)  # by repr: a page's glyph boxes hold NaN for spaces
    # PDFium gives positions as 32-bit floats: a top is pypdf's within a thousandth of a point.
    assert [(e.title, e.page, e.path) for e in alone[1]] == [
        (e.title, e.page, e.path) for e in entries
    ]
    assert [e.top for e in alone[1]] == pytest.approx([e.top for e in entries], abs=1e-3)


@pytest.mark.parametrize("name", DOUBTED)
def test_a_hostile_file_is_left_to_pypdf(name: str) -> None:
    with pytest.raises(DoubtError):
        scan(getattr(make_bad, name)(), MAX_BYTES)


def test_a_page_tree_loop_is_found_by_the_page_count() -> None:
    data = make_bad.pdf_page_loop()
    assert scan(data, MAX_BYTES).pages == 1
    assert pdf._pdfium_alone(data, ParseRequest()) is None  # PDFium counts 2 pages


def test_an_outline_loop_is_found_by_the_walk() -> None:
    data = make_bad.pdf_outline_loop()
    scan(data, MAX_BYTES)
    opened = native.open_checked(data, ParseRequest())
    assert opened is not None
    document, _ = opened
    try:
        assert native.outline(document, len(document)) is None
    finally:
        document.close()


def test_an_encrypted_file_is_checked_by_pdfium_then_left_to_pypdf() -> None:
    data = make_bad.pdf_encrypted()
    assert scan(data, MAX_BYTES).encrypted
    opened = native.open_checked(data, ParseRequest(password="secret"))
    assert opened is not None
    assert opened[1] == "secret"
    opened[0].close()
    assert pdf._pdfium_alone(data, ParseRequest(password="secret")) is None


def test_a_stream_longer_than_its_length_is_doubted() -> None:
    data = make_bad.one_page(make_bad.stream(make_bad.TEXT_OPS, length=10))
    with pytest.raises(DoubtError, match="stream length"):
        scan(data, MAX_BYTES)


def test_the_caps_are_max_bytes() -> None:
    data = make_bad.one_page(make_bad.flate(make_bad.TEXT_OPS + b" " * 5000))
    assert scan(data, 6000).content == len(make_bad.TEXT_OPS) + 5000
    with pytest.raises(DoubtError, match="cap"):
        scan(data, 4000)


def _xref_stream_pdf() -> bytes:
    """A PDF whose page and font sit in an object stream, listed by a cross-reference stream."""
    inside = [b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", _PAGE]
    offsets, body = [], b""
    for text in inside:
        offsets.append(len(body))
        body += text + b"\n"
    head = b" ".join(b"%d %d" % (3 + k, at) for k, at in enumerate(offsets)) + b" "
    packed = zlib.compress(head + body)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        make_bad.flate(make_bad.TEXT_OPS),
        b"<< /Type /ObjStm /N 2 /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\n"
        b"endstream" % (len(head), len(packed), packed),
    ]
    out = bytearray(b"%PDF-1.7\n")
    at: dict[int, int] = {}
    for number, text in zip((1, 2, 5, 6), objects, strict=True):
        at[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, text)
    xref = len(out)
    entries = [(0, 0, 255), (1, at[1], 0), (1, at[2], 0), (2, 6, 0), (2, 6, 1), (1, at[5], 0)]
    entries += [(1, at[6], 0), (1, xref, 0)]
    rows, previous = b"", bytes(4)
    for kind, field, index in entries:
        row = bytes([kind, *field.to_bytes(2, "big"), index])
        rows += b"\x02" + bytes((a - b) & 0xFF for a, b in zip(row, previous, strict=True))
        previous = row
    data = zlib.compress(rows)
    out += (
        b"7 0 obj\n<< /Type /XRef /Size 8 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode "
        b"/DecodeParms << /Predictor 12 /Columns 4 >> /Length %d >>\nstream\n%s\nendstream\n"
        b"endobj\nstartxref\n%d\n%%%%EOF\n" % (len(data), data, xref)
    )
    return bytes(out)


_PAGE = (
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
    b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>"
)


def test_a_cross_reference_stream_and_an_object_stream_are_read() -> None:
    data = _xref_stream_pdf()
    found = scan(data, MAX_BYTES)
    assert (found.pages, found.encrypted) == (1, False)
    alone = pdf._pdfium_alone(data, ParseRequest())
    assert alone is not None
    assert [line.text for line in alone[0][0].lines] == ["Hello hostile world"]


def test_an_object_no_table_lists_is_doubted() -> None:
    """PDFium would rebuild the table and read it: its streams were never checked here."""
    data = make_bad.one_page(make_bad.stream(make_bad.TEXT_OPS))
    entry = b"%010d 00000 n " % data.index(b"5 0 obj")
    unlisted = data.replace(entry, entry[:-2] + b"f ")
    with pytest.raises(DoubtError, match="no cross-reference section lists"):
        scan(unlisted, MAX_BYTES)


def test_an_object_ends_before_the_next_one_starts() -> None:
    """Each object is looked for only up to the next one: the scan reads each byte once."""
    data = make_bad.one_page(make_bad.stream(make_bad.TEXT_OPS))
    font = data.index(b"3 0 obj")
    unended = data[:font] + data[font:].replace(b"endobj", b"      ", 1)
    with pytest.raises(DoubtError, match="object without end"):
        scan(unended, MAX_BYTES)
