"""Hostile zip-based inputs (issue 33): bombs by compression method, amplification, odd parts.

    python tests/data/make_hostile_zip.py DIR      # writes every case into DIR

``CASES`` maps a stable name to a ``BadInput`` (the path to write and a builder of its bytes),
like ``make_bad.CORPUS``. Each recipe, as the issue gives it:

- **bzip2 / LZMA members**: a DOCX, PPTX, XLSX or EPUB whose main part is compressed with
  method 12 (bzip2) or 14 (LZMA) and declares a small uncompressed size; the stream expands to
  hundreds of megabytes of zeros. OOXML and OCF allow only stored (0) and deflated (8) members.
- **Amplification inside the caps**: 20,000 cells pointing at one 10 KB shared string; 200 slide
  ids pointing at one 1 MB slide; 200 spine entries pointing at one chapter; 2,000 sheets on
  one part; an e-mail holding the same workbook several times.
- **Odd parts**: a slide shape without geometry; a DOCX whose main part is named ``.svg`` and
  holds an entity bomb; an HTML page with an internal DTD subset.

Zips are written by ``raw_zip`` (local headers, data, central directory) so that a member can
carry any method, any declared size and bytes compressed elsewhere. Builders are deterministic;
the compressed bombs are made once per process (``functools.cache``).
"""

from __future__ import annotations

import bz2
import sys
import zipfile
import zlib
from dataclasses import dataclass
from email.message import EmailMessage
from functools import cache
from pathlib import Path

from tests.data.make_bad import DOCX, EPUB, PPTX, XLSX, BadInput

MIB = 1024 * 1024
STORED, DEFLATED, BZIP2, LZMA = 0, 8, 12, 14
BOMB_BYTES = 512 * MIB
"""What a bzip2 bomb expands to (about 1 GB allocated before the fix: over the suite's limit)."""


# --- a zip writer that lets a member lie ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Raw:
    """One member as written: its name, method, bytes as stored, CRC and declared size."""

    name: str
    method: int
    payload: bytes
    crc: int
    size: int

    @classmethod
    def deflated(cls, name: str, body: bytes) -> Raw:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        payload = packer.compress(body) + packer.flush()
        return cls(name, DEFLATED, payload, zlib.crc32(body), len(body))


def raw_zip(members: list[Raw]) -> bytes:
    """Return a zip of ``members`` exactly as given (no recompression, sizes as declared)."""
    out = bytearray()
    directory = bytearray()
    for member in members:
        name = member.name.encode("utf-8")
        fields = (member.method, 0, 0x21, member.crc, len(member.payload), member.size)
        offset = len(out)
        out += b"PK\x03\x04" + _pack(20, 0x800, *fields[:1]) + _pack(*fields[1:3])
        out += _pack32(*fields[3:]) + _pack(len(name), 0) + name + member.payload
        directory += b"PK\x01\x02" + _pack(20, 20, 0x800, *fields[:1]) + _pack(*fields[1:3])
        directory += _pack32(*fields[3:]) + _pack(len(name), 0, 0, 0, 0) + _pack32(0, offset)
        directory += name
    end = _pack(0, 0, len(members), len(members)) + _pack32(len(directory), len(out)) + _pack(0)
    return bytes(out + directory + b"PK\x05\x06" + end)


def _pack(*values: int) -> bytes:
    return b"".join(value.to_bytes(2, "little") for value in values)


def _pack32(*values: int) -> bytes:
    return b"".join(value.to_bytes(4, "little") for value in values)


def members_of(path: Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def rebuilt(path: Path, replace: dict[str, Raw | bytes], add: tuple[Raw, ...] = ()) -> bytes:
    """The fixture at ``path`` with members replaced (bytes are deflated) and others added."""
    members = []
    for name, body in members_of(path):
        new = replace.get(name, body)
        members.append(new if isinstance(new, Raw) else Raw.deflated(name, new))
    return raw_zip(members + list(add))


# --- compression methods other than stored and deflated ------------------------------------------


@cache
def bzip2_zeros(size: int) -> bytes:
    """``size`` zero bytes compressed with bzip2 (512 MiB make 400 bytes; a few seconds)."""
    packer = bz2.BZ2Compressor(9)
    block = bytes(64 * MIB)
    chunks = [
        packer.compress(block[: min(len(block), size - done)])
        for done in range(0, size, len(block))
    ]
    return b"".join(chunks) + packer.flush()


@cache
def lzma_zeros(size: int) -> bytes:
    """``size`` zero bytes as a zip LZMA member stores them (zipfile's header and raw LZMA1)."""
    packer = zipfile.LZMACompressor()  # type: ignore[attr-defined]  # private, but it is the format
    return bytes(packer.compress(bytes(size)) + packer.flush())


def bomb(name: str, method: int = BZIP2) -> Raw:
    """A member that declares 1,000 bytes and expands to ``BOMB_BYTES`` (LZMA: 64 MiB)."""
    payload = bzip2_zeros(BOMB_BYTES) if method == BZIP2 else lzma_zeros(64 * MIB)
    return Raw(name, method, payload, 0, 1000)


def docx_bzip2() -> bytes:
    return rebuilt(DOCX, {"word/document.xml": bomb("word/document.xml")})


def pptx_bzip2() -> bytes:
    return rebuilt(PPTX, {"ppt/presentation.xml": bomb("ppt/presentation.xml")})


def xlsx_bzip2() -> bytes:
    return rebuilt(XLSX, {"xl/worksheets/sheet1.xml": bomb("xl/worksheets/sheet1.xml")})


def epub_bzip2() -> bytes:
    name = "EPUB/chapter-01.xhtml"
    return rebuilt(EPUB, {name: bomb(name)})


def xlsx_lzma() -> bytes:
    return rebuilt(XLSX, {"xl/workbook.xml": bomb("xl/workbook.xml", LZMA)})


# --- amplification: parts and strings referenced many times --------------------------------------

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_SHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"


def workbook(sheets: list[tuple[str, str]], parts: dict[str, str], strings: list[str]) -> bytes:
    """A minimal XLSX: ``sheets`` are (title, part name); ``parts`` hold the sheets' XML."""
    overrides = "".join(
        f'<Override PartName="/{name}" ContentType="{_SHEET}"/>' for name in sorted(parts)
    )
    types = (
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/sharedStrings'
        '.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.'
        f'sharedStrings+xml"/>{overrides}</Types>'
    )
    root_rels = (
        f'<Relationships xmlns="{_PKG}"><Relationship Id="rId1" Type="{_REL}/officeDocument" '
        'Target="xl/workbook.xml"/></Relationships>'
    )
    entries = "".join(
        f'<sheet name="{title}" sheetId="{n}" r:id="rId{n}"/>'
        for n, (title, _) in enumerate(sheets, start=1)
    )
    book = f'<workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets>{entries}</sheets></workbook>'
    targets = "".join(
        f'<Relationship Id="rId{n}" Type="{_REL}/worksheet" Target="/{part}"/>'
        for n, (_, part) in enumerate(sheets, start=1)
    )
    count = len(sheets) + 1
    rels = (
        f'<Relationships xmlns="{_PKG}">{targets}<Relationship Id="rId{count}" '
        f'Type="{_REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>'
    )
    table = "".join(f"<si><t>{text}</t></si>" for text in strings)
    shared = (
        f'<sst xmlns="{_MAIN}" count="{len(strings)}" uniqueCount="{len(strings)}">{table}</sst>'
    )
    files = {
        "[Content_Types].xml": types,
        "_rels/.rels": root_rels,
        "xl/workbook.xml": book,
        "xl/_rels/workbook.xml.rels": rels,
        "xl/sharedStrings.xml": shared,
        **parts,
    }
    return raw_zip([Raw.deflated(name, body.encode("utf-8")) for name, body in files.items()])


def sheet(rows: list[list[str]]) -> str:
    """A worksheet's XML; a cell ``s:N`` points at shared string N, any other is inline."""
    out = []
    for number, row in enumerate(rows, start=1):
        cells = []
        for column, value in enumerate(row):
            ref = f"{_column(column)}{number}"
            if value.startswith("s:"):
                cells.append(f'<c r="{ref}" t="s"><v>{value[2:]}</v></c>')
            else:
                cells.append(f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>')
        out.append(f'<row r="{number}">{"".join(cells)}</row>')
    return f'<worksheet xmlns="{_MAIN}"><sheetData>{"".join(out)}</sheetData></worksheet>'


def _column(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def long_string(size: int, seed: str = "tide") -> str:
    words = [f"{seed}{n % 97}" for n in range(size // 4)]
    return " ".join(words)[:size]


def shared_string_flood(cells: int = 20_000, size: int = 10_000) -> bytes:
    """``cells`` cells (100 a row) all pointing at one ``size``-character shared string."""
    rows = [["Station", "Reading"]] + [["s:0"] * 100 for _ in range(cells // 100)]
    return workbook(
        [("Flood", "xl/worksheets/sheet1.xml")],
        {"xl/worksheets/sheet1.xml": sheet(rows)},
        [long_string(size)],
    )


def sheets_on_one_part(count: int = 2_000) -> bytes:
    """``count`` sheets whose relationships all point at one worksheet of 100 KB of text."""
    rows = [["Station", "Note"]] + [
        [f"gauge {n}", long_string(1_000, f"r{n}-")] for n in range(100)
    ]
    sheets = [(f"Sheet {n}", "xl/worksheets/sheet1.xml") for n in range(1, count + 1)]
    return workbook(sheets, {"xl/worksheets/sheet1.xml": sheet(rows)}, [])


def sheet_row_gap() -> bytes:
    """One sheet: a header, then a row numbered 200,000,000 (openpyxl fills the gap)."""
    far = sheet([["Station", "Reading"], ["Harwick", "4.2"]])
    for old, new in (('r="2"', 'r="200000000"'), ('r="A2"', 'r="A200000000"')):
        far = far.replace(old, new)
    far = far.replace('r="B2"', 'r="B200000000"')
    return workbook([("Gap", "xl/worksheets/sheet1.xml")], {"xl/worksheets/sheet1.xml": far}, [])


def sheet_declared_huge(rows: int = 20_000) -> bytes:
    """``rows`` rows of two cells in a sheet that declares itself ``A1:XFD1048576``."""
    table = [["Station", "Reading"]] + [[f"gauge {n}", str(n)] for n in range(rows)]
    xml = sheet(table).replace("<sheetData>", '<dimension ref="A1:XFD1048576"/><sheetData>')
    return workbook([("Wide", "xl/worksheets/sheet1.xml")], {"xl/worksheets/sheet1.xml": xml}, [])


def good_workbook() -> bytes:
    """Two sheets on two parts: what the amplified workbooks are compared with."""
    first = sheet([["Station", "Reading"], ["Harwick", "4.2"], ["Quay", "3.9"]])
    second = sheet([["Site", "Note"], ["Weir", "in flood"]])
    sheets = [("Levels", "xl/worksheets/sheet1.xml"), ("Notes", "xl/worksheets/sheet2.xml")]
    parts = {"xl/worksheets/sheet1.xml": first, "xl/worksheets/sheet2.xml": second}
    return workbook(sheets, parts, [])


def _slide(text: str) -> bytes:
    return (
        '<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        f'xmlns:r="{_REL}"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/>'
        "<p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>"
        f"{text}</p:spTree></p:cSld></p:sld>"
    ).encode()


def _text_box(shape_id: int, text: str, geometry: bool = True) -> str:
    """A text box shape; without ``geometry`` it is a plain shape with no preset or path."""
    box = ' txBox="1"' if geometry else ""
    shape_properties = (
        '<p:spPr><a:xfrm><a:off x="457200" y="1600200"/><a:ext cx="8229600" cy="4525963"/>'
        '</a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>'
        if geometry
        else "<p:spPr/>"
    )
    return (
        f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name="Box {shape_id}"/><p:cNvSpPr{box}/>'
        f"<p:nvPr/></p:nvSpPr>{shape_properties}<p:txBody><a:bodyPr/><a:lstStyle/>"
        f"<a:p><a:r><a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>"
    )


def pptx_repeated_slide(count: int = 200) -> bytes:
    """The deck's first slide holds 1 MB of text and the slide list names it ``count`` times."""
    with zipfile.ZipFile(PPTX) as archive:
        presentation = archive.read("ppt/presentation.xml").decode("utf-8")
    head, _, rest = presentation.partition("<p:sldIdLst>")
    _, _, tail = rest.partition("</p:sldIdLst>")
    ids = "".join(f'<p:sldId id="{256 + n}" r:id="rId7"/>' for n in range(count))
    paragraphs = "".join(_text_box(10 + n, long_string(10_000)) for n in range(100))
    return rebuilt(
        PPTX,
        {
            "ppt/presentation.xml": f"{head}<p:sldIdLst>{ids}</p:sldIdLst>{tail}".encode(),
            "ppt/slides/slide1.xml": _slide(paragraphs),
        },
    )


def pptx_shape_without_geometry() -> bytes:
    """Slide 2's text sits in a shape with neither a preset nor a custom geometry."""
    shapes = _text_box(2, "Read without geometry.", geometry=False) + _text_box(3, "Boxed.")
    return rebuilt(PPTX, {"ppt/slides/slide2.xml": _slide(shapes)})


def epub_repeated_spine(count: int = 200) -> bytes:
    """The spine names one 1.7 MB chapter ``count`` times (the same itemref, then new items)."""
    with zipfile.ZipFile(EPUB) as archive:
        package = archive.read("EPUB/content.opf").decode("utf-8")
    aliases = "".join(
        f'<item href="chapter-01.xhtml" id="alias-{n}" media-type="application/xhtml+xml"/>'
        for n in range(count // 2)
    )
    spine = '<itemref idref="chapter-01"/>' * (count // 2) + "".join(
        f'<itemref idref="alias-{n}"/>' for n in range(count // 2)
    )
    package = package.replace("</manifest>", aliases + "</manifest>")
    package = package.replace('<spine toc="ncx">', f'<spine toc="ncx">{spine}')
    body = f"<p>{long_string(1_700)}</p>" * 1_000
    chapter = (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
        f"<head><title>Flood</title></head><body><h1>Flood</h1>{body}</body></html>"
    )
    return rebuilt(
        EPUB, {"EPUB/content.opf": package.encode(), "EPUB/chapter-01.xhtml": chapter.encode()}
    )


def email_with_workbooks(copies: int = 6) -> bytes:
    """A message attaching one workbook ``copies`` times; each holds 12 M characters of text.

    Any one copy fits the default text budget; together they pass it.
    """
    message = EmailMessage()
    message["From"] = "a@example.org"
    message["Subject"] = "Readings"
    message.set_content("The workbooks are attached.")
    data = shared_string_flood(cells=1_200, size=10_000)
    for n in range(1, copies + 1):
        message.add_attachment(
            data,
            maintype="application",
            subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            filename=f"readings-{n}.xlsx",
        )
    return message.as_bytes()


# --- parts that skipped the XML checks ------------------------------------------------------------

LAUGHS = (
    b'<!DOCTYPE w [<!ENTITY l0 "lol">'
    + b"".join(b'<!ENTITY l%d "%s">' % (n, b"&l%d;" % (n - 1) * 10) for n in range(1, 10))
    + b"]>"
)


def docx_svg_main_part() -> bytes:
    """The main document moved to ``word/document.svg`` (relationships say so), with a bomb."""
    members = dict(members_of(DOCX))
    body = members.pop("word/document.xml")
    bombed = b'<?xml version="1.0"?>\n' + LAUGHS + body[body.index(b"?>") + 2 :]
    members["word/document.svg"] = bombed.replace(b"Gauge Memo", b"&l9;", 1)
    members["word/_rels/document.svg.rels"] = members.pop("word/_rels/document.xml.rels")
    for name in ("_rels/.rels", "[Content_Types].xml"):
        members[name] = members[name].replace(b"word/document.xml", b"word/document.svg")
    members["word/document.xml"] = b'<?xml version="1.0"?><w:document/>'  # "is it a DOCX"
    return raw_zip([Raw.deflated(name, body) for name, body in members.items()])


HTML_DTD_SUBSET = (
    b'<!DOCTYPE html [<!ENTITY note "a note"><!ATTLIST p class CDATA "x">]>\n'
    b"<html><head><title>Subset</title></head><body><p>Only this.</p></body></html>\n"
)


CASES: dict[str, BadInput] = {
    "docx-bzip2": BadInput("bzip2.docx", docx_bzip2),
    "pptx-bzip2": BadInput("bzip2.pptx", pptx_bzip2),
    "xlsx-bzip2": BadInput("bzip2.xlsx", xlsx_bzip2),
    "epub-bzip2": BadInput("bzip2.epub", epub_bzip2),
    "xlsx-lzma": BadInput("lzma.xlsx", xlsx_lzma),
    "xlsx-shared-string-flood": BadInput("shared-string-flood.xlsx", shared_string_flood),
    "xlsx-sheets-on-one-part": BadInput("sheets-on-one-part.xlsx", sheets_on_one_part),
    "pptx-repeated-slide": BadInput("repeated-slide.pptx", pptx_repeated_slide),
    "epub-repeated-spine": BadInput("repeated-spine.epub", epub_repeated_spine),
    "email-repeated-workbook": BadInput("repeated-workbook.eml", email_with_workbooks),
    "pptx-no-geometry": BadInput("no-geometry.pptx", pptx_shape_without_geometry),
    "docx-svg-main-part": BadInput("svg-main-part.docx", docx_svg_main_part),
    "html-dtd-subset": BadInput("dtd-subset.html", lambda: HTML_DTD_SUBSET),
    "xlsx-row-gap": BadInput("row-gap.xlsx", sheet_row_gap),
    "xlsx-declared-huge": BadInput("declared-huge.xlsx", sheet_declared_huge),
    "xlsx-good": BadInput("good-workbook.xlsx", good_workbook),
}


def build(name: str, directory: Path) -> Path:
    """Write case ``name`` under ``directory`` (once) and return its path."""
    case = CASES[name]
    path = directory / case.path
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(case.build())
    return path


def main(argv: list[str]) -> None:
    directory = Path(argv[1]) if len(argv) > 1 else Path("hostile-zip")
    for name in CASES:
        sys.stdout.write(f"{build(name, directory)}\n")


if __name__ == "__main__":
    main(sys.argv)
