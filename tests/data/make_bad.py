"""The bad-input corpus (SPEC §6): hostile and broken inputs, generated, never committed.

    python tests/data/make_bad.py [DIR]        # default: tests/data/bad/ (git-ignored)

``CORPUS`` maps a stable name to a ``BadInput``: the path to write under the corpus directory and
a builder of its bytes. ``TREES`` are directories with a symbolic link loop and an unreadable
entry. The tests build one input at a time (``build``) into a temporary directory; the memory
benchmark builds everything (``build_all``). Builders are deterministic and use only the standard
library, pypdf (to encrypt) and the committed fixtures. The big inputs (a 50 MB line, 5 MB
Markdown table and minified source) are written fast; the PDF bombs are a few hundred kilobytes
that expand to hundreds of megabytes.
"""

from __future__ import annotations

import io
import os
import random
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent.parent / "fixtures"
PDF = FIXTURES / "pdf" / "report-outline.pdf"
DOCX = FIXTURES / "docx" / "memo.docx"
PPTX = FIXTURES / "pptx" / "results-briefing.pptx"
XLSX = FIXTURES / "tables" / "survey-workbook.xlsx"
EPUB = FIXTURES / "epub" / "estuary-year.epub"
DEFAULT_DIR = HERE / "bad"
MB = 1_000_000


@dataclass(frozen=True, slots=True)
class BadInput:
    """One corpus file: its path under the corpus directory and the builder of its bytes."""

    path: str
    build: Callable[[], bytes]


# --- PDF, written object by object ------------------------------------------------------------

TEXT_OPS = b"BT /F1 12 Tf 72 720 Td (Hello hostile world) Tj ET"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def raw_pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """Return a PDF of ``objects`` (object 1 is the catalog) with a correct xref table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\n" % (len(objects) + 1, trailer)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def stream(data: bytes, entries: bytes = b"", length: int | None = None) -> bytes:
    """Return a stream object; ``length`` overrides the true /Length."""
    declared = len(data) if length is None else length
    return b"<< /Length %d %s>>\nstream\n%s\nendstream" % (declared, entries, data)


def flate(data: bytes) -> bytes:
    return stream(_compressed(data), b"/Filter /FlateDecode ")


@cache
def _compressed(data: bytes) -> bytes:
    return zlib.compress(data, 9)


def one_page(
    contents: bytes,
    resources: bytes = b"",
    *extra: bytes,
    fonts: bytes = b"/F1 3 0 R",
    catalog: bytes = b"",
) -> bytes:
    """Return a one-page PDF: ``contents`` is object 5 (or a reference list), ``extra`` 6 on."""
    reference = contents if contents.startswith(b"[") else b"5 0 R"
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << %s >> %s>> /Contents %s >>" % (fonts, resources, reference)
    )
    body = [] if contents.startswith(b"[") else [contents]
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R %s>>" % catalog,
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    ]
    return raw_pdf([*objects, FONT, page, *body, *extra])


def pdf_corrupt() -> bytes:
    return b"%PDF-1.7\n" + b"\x00garbage\xff" * 100


def pdf_truncated() -> bytes:
    data = PDF.read_bytes()
    return data[: len(data) // 2]


def pdf_encrypted() -> bytes:
    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(PDF.read_bytes()))
    writer.encrypt("secret", algorithm="AES-256")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def pdf_huge_length() -> bytes:
    return one_page(stream(TEXT_OPS, length=10**12))


def pdf_deep_nesting() -> bytes:
    """Arrays nested 200 000 deep in a content stream (pypdf parses them recursively)."""
    return one_page(stream(b"[" * 200_000 + b"]" * 200_000 + b" " + TEXT_OPS))


def pdf_deep_resources() -> bytes:
    """A page's resources hold dictionaries nested 50 000 deep."""
    deep = b"/Deep " + b"<< /A " * 50_000 + b">> " * 50_000
    return one_page(stream(TEXT_OPS), deep)


def pdf_bomb() -> bytes:
    """One content stream that inflates to 200 MB (past pypdf's 75 MB per stream)."""
    return one_page(flate(bytes(200 * MB)))


def pdf_stream_flood() -> bytes:
    """One page drawing eight content streams of 70 MB each (560 MB in all)."""
    contents = b"[" + b" ".join(b"%d 0 R" % (5 + k) for k in range(8)) + b"]"
    big = flate(TEXT_OPS + b" " * 70 * MB)
    return one_page(contents, b"", *[big] * 8)


def pdf_form_flood() -> bytes:
    """One page drawing eight form XObjects of 70 MB each."""
    names = b" ".join(b"/X%d %d 0 R" % (k, 6 + k) for k in range(8))
    draw = stream(b" ".join(b"/X%d Do" % k for k in range(8)))
    form = stream(
        _compressed(TEXT_OPS + b" " * 70 * MB),
        b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Filter /FlateDecode ",
    )
    return one_page(draw, b"/XObject << %s >> " % names, *[form] * 8)


def _font_map(destination: bytes) -> bytes:
    return stream(
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"1 beginbfchar <01> <%s> endbfchar endcmap CMapName currentdict /CMap "
        b"defineresource pop end end" % destination
    )


def _mapped_font_pdf(contents: bytes, destination: bytes) -> bytes:
    """A page whose font F2 maps byte 01 to ``destination`` (hex UTF-16) via ToUnicode."""
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>"
    return one_page(contents, b"", _font_map(destination), font, fonts=b"/F2 7 0 R")


def pdf_font_bomb() -> bytes:
    """One string of 400 000 bytes, each mapped to 256 characters (100 M characters)."""
    shown = b"BT /F2 12 Tf 72 720 Td (" + b"\x01" * 400_000 + b") Tj ET"
    return _mapped_font_pdf(flate(shown), b"0041" * 256)


def pdf_font_flood() -> bytes:
    """Forty lines under the in-a-row cap, each byte mapped to 256 characters (600 M)."""
    line = b"(" + b"\x01" * 60_000 + b") Tj 0 -14 Td "
    shown = b"BT /F2 12 Tf 72 720 Td " + line * 40 + b"ET"
    return _mapped_font_pdf(flate(shown), b"0041" * 256)


def pdf_surrogate() -> bytes:
    """A font map giving a lone surrogate (U+D800), which UTF-8 cannot encode."""
    return _mapped_font_pdf(stream(b"BT /F2 12 Tf 72 720 Td (Hello \x01 world) Tj ET"), b"D800")


def pdf_slow() -> bytes:
    """Ten pages of 4 MB content each: legal, but slow for pypdf to parse (a --timeout case)."""
    count = 10
    kids = b" ".join(b"%d 0 R" % (4 + 2 * k) for k in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
        FONT,
    ]
    content = flate(TEXT_OPS + b" " * 4 * MB)
    for k in range(count):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * k)
        )
        objects.append(content)
    return raw_pdf(objects)


def pdf_page_loop() -> bytes:
    """The page tree lists itself among its kids."""
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>"
    )
    pages = b"<< /Type /Pages /Kids [4 0 R 2 0 R] /Count 2 >>"
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", pages, FONT, page, stream(TEXT_OPS)])


def pdf_outline_loop() -> bytes:
    """An outline entry that is its own next sibling and first child."""
    return one_page(
        stream(TEXT_OPS),
        b"",
        b"<< /Type /Outlines /First 7 0 R /Last 7 0 R /Count 1 >>",
        b"<< /Title (Hello) /Parent 6 0 R /Dest [4 0 R /Fit] /Next 7 0 R /First 7 0 R >>",
        catalog=b"/Outlines 6 0 R ",
    )


def pdf_xref_loop() -> bytes:
    """An appended cross-reference section whose /Prev points at itself."""
    base = one_page(stream(TEXT_OPS))
    at = len(base)
    return base + (
        b"xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 6 /Root 1 0 R /Prev %d >>\n"
        b"startxref\n%d\n%%%%EOF\n" % (at, at)
    )


# --- DOCX ---------------------------------------------------------------------------------------

Change = Callable[[str, bytes, zipfile.ZipFile], bytes | None]


def rewritten_docx(change: Change) -> bytes:
    """Copy the memo DOCX member by member through ``change`` (None drops a member)."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(DOCX.read_bytes())) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for info in source.infolist():
            body = change(info.filename, source.read(info.filename), out)
            if body is not None:
                out.writestr(info.filename, body)
    return buffer.getvalue()


def _with_prolog(body: bytes, doctype: bytes, replace: bytes) -> bytes:
    prolog = b'<?xml version="1.0"?>\n' + doctype
    return prolog + body[body.index(b"?>") + 2 :].replace(b"Gauge Memo", replace, 1)


LAUGHS = (
    b'<!DOCTYPE w [<!ENTITY l0 "lol">'
    + b"".join(b'<!ENTITY l%d "%s">' % (n, b"&l%d;" % (n - 1) * 10) for n in range(1, 10))
    + b"]>"
)


def docx_entity_bomb() -> bytes:
    def change(name: str, body: bytes, _out: zipfile.ZipFile) -> bytes:
        return _with_prolog(body, LAUGHS, b"&l9;") if name == "word/document.xml" else body

    return rewritten_docx(change)


def docx_external_entity() -> bytes:
    doctype = b'<!DOCTYPE w [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'

    def change(name: str, body: bytes, _out: zipfile.ZipFile) -> bytes:
        return _with_prolog(body, doctype, b"&secret;") if name == "word/document.xml" else body

    return rewritten_docx(change)


def docx_renamed_part() -> bytes:
    """The main document moved to ``word/main.dat`` (relationships say so), with an XML bomb."""

    def change(name: str, body: bytes, out: zipfile.ZipFile) -> bytes | None:
        if name == "word/document.xml":
            out.writestr("word/main.dat", _with_prolog(body, LAUGHS, b"&l9;"))
            return None
        if name == "word/_rels/document.xml.rels":
            out.writestr("word/_rels/main.dat.rels", body)
            return None
        if name in ("_rels/.rels", "[Content_Types].xml"):
            return body.replace(b"word/document.xml", b"word/main.dat")
        return body

    data = rewritten_docx(change)
    # Keep a harmless word/document.xml so the file passes the "is it a DOCX" check.
    buffer = io.BytesIO(data)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr("word/document.xml", b'<?xml version="1.0"?><w:document/>')
    return buffer.getvalue()


def docx_zip_bomb() -> bytes:
    def change(name: str, body: bytes, out: zipfile.ZipFile) -> bytes:
        if name == "word/document.xml":
            out.writestr("word/media/zeros.bin", bytes(8 * 1024 * 1024))
        return body

    return rewritten_docx(change)


def docx_many_members() -> bytes:
    def change(name: str, body: bytes, out: zipfile.ZipFile) -> bytes:
        if name == "word/document.xml":
            for k in range(10_001):
                out.writestr(f"customXml/item{k}.bin", b"")
        return body

    return rewritten_docx(change)


def docx_deep_xml() -> bytes:
    """Content controls nested 5 000 deep (past libxml2's depth limit of 256)."""
    deep = b"<w:sdt><w:sdtContent>" * 5_000 + b"</w:sdtContent></w:sdt>" * 5_000

    def change(name: str, body: bytes, _out: zipfile.ZipFile) -> bytes:
        if name == "word/document.xml":
            return body.replace(b"<w:body>", b"<w:body>" + deep, 1)
        return body

    return rewritten_docx(change)


def docx_no_document() -> bytes:
    return rewritten_docx(lambda name, body, _out: None if name == "word/document.xml" else body)


def docx_truncated() -> bytes:
    data = DOCX.read_bytes()
    return data[: len(data) // 2]


# --- issue 16: HTML, PPTX, XLSX, EPUB, e-mail ----------------------------------------------------

HTML_MALFORMED = (
    b"<html><head><title>Broken</title><body><p>Unclosed <b>bold <i>both</b> italic?"
    b"<table><tr><td>cell one<td>cell two</table><p>After the table &amp; &bogus; &#xZZ;"
    b"</body></html><p>After the end</p><div><span>never closed"
)


def html_deep() -> bytes:
    return b"<p>Before.</p>" + b"<div>" * 100_000 + b"deep" + b"</div>" * 100_000


def rewritten_zip(
    path: Path, change: Callable[[str, bytes, zipfile.ZipFile], bytes | None]
) -> bytes:
    """Copy a zip fixture member by member through ``change`` (None drops a member)."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(path.read_bytes())) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for info in source.infolist():
            body = change(info.filename, source.read(info.filename), out)
            if body is not None:
                out.writestr(info.filename, body)
    return buffer.getvalue()


def zip_bomb(path: Path, inside: str) -> bytes:
    """The fixture with an 8 MiB member of zeros added (it deflates a thousandfold)."""

    def change(name: str, body: bytes, out: zipfile.ZipFile) -> bytes:
        if name == next(iter(zipfile.ZipFile(path).namelist())):
            out.writestr(inside, bytes(8 * 1024 * 1024))
        return body

    return rewritten_zip(path, change)


def pptx_broken_slide() -> bytes:
    def change(name: str, body: bytes, _out: zipfile.ZipFile) -> bytes:
        return body[: len(body) // 2] if name == "ppt/slides/slide3.xml" else body

    return rewritten_zip(PPTX, change)


def mbox_broken_message() -> bytes:
    good = b"From a@example.org Mon Jun 10 09:00:00 2024\nSubject: %s\n\n%s\n\n"
    bad = b"From b@example.org Mon Jun 10 10:00:00 2024\n\x00\x01\x02 binary junk\n\n"
    return good % (b"First", b"The first message.") + bad + good % (b"Third", b"The third.")


def claims_one_gigabyte(data: bytes, member: str) -> bytes:
    """Patch a zip's central directory so that ``member`` claims 1 GB once expanded."""
    entry = data.rindex(b"PK\x01\x02", 0, data.rindex(member.encode()) + 1)
    return data[: entry + 24] + (10**9).to_bytes(4, "little") + data[entry + 28 :]


def email_gigabyte_attachment() -> bytes:
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"] = "a@example.org"
    message["Subject"] = "Report attached"
    message.set_content("The body survives.")
    attachment = claims_one_gigabyte(DOCX.read_bytes(), "word/document.xml")
    message.add_attachment(
        attachment,
        maintype="application",
        subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename="report.docx",
        params={"size": str(2**30)},
    )
    return message.as_bytes()


# --- text, Markdown, code -----------------------------------------------------------------------


def binary() -> bytes:
    generator = random.Random(7)
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + generator.randbytes(4000)


def invalid_utf8() -> bytes:
    return "Café au lait.\n".encode() + b"Bad \xff\xfe bytes and a cut \xe2\x82.\n" + b"End.\n"


UTF16_TEXT = "Tide gauge notes.\nCafé, 日本語, 👋.\n\nSecond paragraph.\n"


def utf16_bom() -> bytes:
    return UTF16_TEXT.encode("utf-16")  # with a BOM


def utf16_no_bom() -> bytes:
    return (UTF16_TEXT * 20).encode("utf-16-le")


def utf16_be_no_bom() -> bytes:
    return (UTF16_TEXT * 20).encode("utf-16-be")


def line_50mb() -> bytes:
    words = b"lorem ipsum dolor sit amet "
    return (words * (50 * MB // len(words) + 1))[: 50 * MB]


def nested_lists() -> bytes:
    return b"- " * 10_000 + b"deep item\n\n" + b"1. " * 10_000 + b"deep number\n"


def nested_quotes() -> bytes:
    return b"> " * 10_000 + b"deep quote\n\n" + b"> - " * 5_000 + b"mixed\n"


def table_5mb() -> bytes:
    rows = [b"| station | reading | note |", b"|---|---:|:---|"]
    size = 0
    k = 0
    while size < 5 * MB:
        row = b"| gauge %d | %d.%d | ok |" % (k, k % 97, k % 10)
        rows.append(row)
        size += len(row) + 1
        k += 1
    return b"\n".join(rows) + b"\n"


def minified_5mb() -> bytes:
    parts = []
    size = 0
    k = 0
    while size < 5 * MB:
        part = (
            b"function f%d(a,b){var c=a+b*%d;return c>%d?c-1:[c,a].map(function(x){return x*2})};"
            % (
                k,
                k,
                k,
            )
        )
        parts.append(part)
        size += len(part)
        k += 1
    return b"".join(parts)[: 5 * MB]


CORPUS: dict[str, BadInput] = {
    "pdf-corrupt": BadInput("corrupt.pdf", pdf_corrupt),
    "pdf-truncated": BadInput("truncated.pdf", pdf_truncated),
    "pdf-no-header": BadInput("fake.pdf", lambda: b"<html>not a pdf</html>"),
    "pdf-empty": BadInput("empty.pdf", lambda: b""),
    "pdf-encrypted": BadInput("encrypted.pdf", pdf_encrypted),
    "pdf-huge-length": BadInput("huge-length.pdf", pdf_huge_length),
    "pdf-deep-nesting": BadInput("deep-nesting.pdf", pdf_deep_nesting),
    "pdf-deep-resources": BadInput("deep-resources.pdf", pdf_deep_resources),
    "pdf-bomb": BadInput("bomb.pdf", pdf_bomb),
    "pdf-stream-flood": BadInput("stream-flood.pdf", pdf_stream_flood),
    "pdf-form-flood": BadInput("form-flood.pdf", pdf_form_flood),
    "pdf-font-bomb": BadInput("font-bomb.pdf", pdf_font_bomb),
    "pdf-font-flood": BadInput("font-flood.pdf", pdf_font_flood),
    "pdf-surrogate": BadInput("surrogate.pdf", pdf_surrogate),
    "pdf-slow": BadInput("slow.pdf", pdf_slow),
    "pdf-page-loop": BadInput("page-loop.pdf", pdf_page_loop),
    "pdf-outline-loop": BadInput("outline-loop.pdf", pdf_outline_loop),
    "pdf-xref-loop": BadInput("xref-loop.pdf", pdf_xref_loop),
    "docx-not-zip": BadInput("not-zip.docx", lambda: b"plain text, not a zip\n"),
    "docx-empty": BadInput("empty.docx", lambda: b""),
    "docx-truncated": BadInput("truncated.docx", docx_truncated),
    "docx-ole": BadInput("legacy.docx", lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512)),
    "docx-no-document": BadInput("hollow.docx", docx_no_document),
    "docx-entity-bomb": BadInput("laughs.docx", docx_entity_bomb),
    "docx-external-entity": BadInput("external-entity.docx", docx_external_entity),
    "docx-renamed-part": BadInput("renamed-part.docx", docx_renamed_part),
    "docx-zip-bomb": BadInput("zip-bomb.docx", docx_zip_bomb),
    "docx-many-members": BadInput("many-members.docx", docx_many_members),
    "docx-deep-xml": BadInput("deep-xml.docx", docx_deep_xml),
    "html-malformed": BadInput("malformed.html", lambda: HTML_MALFORMED),
    "html-deep": BadInput("deep.html", html_deep),
    "pptx-broken-slide": BadInput("broken-slide.pptx", pptx_broken_slide),
    "pptx-zip-bomb": BadInput("zip-bomb.pptx", lambda: zip_bomb(PPTX, "ppt/media/zeros.bin")),
    "xlsx-zip-bomb": BadInput("zip-bomb.xlsx", lambda: zip_bomb(XLSX, "xl/media/zeros.bin")),
    "epub-zip-bomb": BadInput("zip-bomb.epub", lambda: zip_bomb(EPUB, "EPUB/zeros.bin")),
    "mbox-broken-message": BadInput("broken.mbox", mbox_broken_message),
    "email-gigabyte-attachment": BadInput("claims-1gb.eml", email_gigabyte_attachment),
    "binary-txt": BadInput("binary.txt", binary),
    "binary-md": BadInput("binary.md", binary),
    "invalid-utf8": BadInput("invalid-utf8.txt", invalid_utf8),
    "utf16-bom": BadInput("utf16-bom.txt", utf16_bom),
    "utf16-no-bom": BadInput("utf16-no-bom.txt", utf16_no_bom),
    "utf16-be-no-bom": BadInput("utf16-be-no-bom.txt", utf16_be_no_bom),
    "line-50mb": BadInput("line-50mb.txt", line_50mb),
    "nested-lists": BadInput("nested-lists.md", nested_lists),
    "nested-quotes": BadInput("nested-quotes.md", nested_quotes),
    "table-5mb": BadInput("table-5mb.md", table_5mb),
    "minified-5mb": BadInput("minified-5mb.js", minified_5mb),
    "empty-txt": BadInput("empty.txt", lambda: b""),
    "empty-md": BadInput("empty.md", lambda: b""),
    "whitespace-txt": BadInput("whitespace.txt", lambda: b" \t\r\n\n  \n"),
    "whitespace-md": BadInput("whitespace.md", lambda: b"\n\n   \n\t\n"),
    "name-spaces": BadInput("names/name with spaces.txt", lambda: b"Spaces in the name.\n"),
    "name-newline": BadInput("names/line\nbreak.txt", lambda: b"A line feed in the name.\n"),
    "name-not-utf8": BadInput(
        os.fsdecode(b"names/latin1-\xe9t\xe9.txt"), lambda: b"A Latin-1 name.\n"
    ),
}
"""Every bad input file, by name."""


def build(name: str, directory: Path) -> Path:
    """Write the corpus file ``name`` under ``directory`` (once) and return its path."""
    item = CORPUS[name]
    path = directory / item.path
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(item.build())
    return path


def build_loop_tree(directory: Path) -> Path:
    """Return a directory holding a file and a symbolic link back to itself."""
    root = directory / "loop"
    if not root.exists():
        (root / "inner").mkdir(parents=True)
        (root / "inner" / "note.txt").write_text("Inside the loop.\n", encoding="utf-8")
        (root / "inner" / "back").symlink_to("..", target_is_directory=True)
    return root


def build_unreadable_tree(directory: Path) -> Path:
    """Return a directory with entries that cannot be read, even by root.

    ``io-error.txt`` links to ``/proc/self/mem``, whose read fails with EIO for every user;
    ``no-access.txt`` has mode 000, which stops every user but root.
    """
    root = directory / "unreadable"
    if not root.exists():
        root.mkdir(parents=True)
        (root / "fine.txt").write_text("A readable neighbour.\n", encoding="utf-8")
        if Path("/proc/self/mem").exists():
            (root / "io-error.txt").symlink_to("/proc/self/mem")
        locked = root / "no-access.txt"
        locked.write_text("Hidden by its mode.\n", encoding="utf-8")
        locked.chmod(0)
    return root


def build_all(directory: Path) -> list[Path]:
    """Write the whole corpus under ``directory``; return the files and trees written."""
    paths = [build(name, directory) for name in CORPUS]
    return [*paths, build_loop_tree(directory), build_unreadable_tree(directory)]


def main(argv: list[str]) -> None:
    directory = Path(argv[1]) if len(argv) > 1 else DEFAULT_DIR
    for path in build_all(directory):
        sys.stdout.write(f"{path}\n")


if __name__ == "__main__":
    main(sys.argv)
