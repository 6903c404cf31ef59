"""xlsx: each sheet a page headed by its name, each row a section of ``column: value`` lines.

Sheets are read in workbook order with openpyxl in read-only mode, after the zip and XML bomb
checks (``_archive``). A sheet's layout is found as in ``_rows``: a caption above the table (a
merged title) is a heading under the sheet's name, the header may span up to three rows, a
repeated header row is not data, and a note below the table is prose. Dates read as
ISO 8601, numbers as Python writes them; a formula reads as its cached value, or as the formula
when the file holds none (a workbook written by a program that does not compute). Hidden
sheets are read too. Rows render as in ``_rows``; ``page_start``/``page_end`` are sheet numbers.
Sheets naming a worksheet part already read are left out with a warning (a part is read once),
and the text counts against the input's ``--max-text`` (cells may share one long string).
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
import zlib
from typing import TYPE_CHECKING, Any, Final

from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers._archive import open_zip, refuse_doctypes
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._extras import need
from ragchunk.parsers._rows import add_table
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from ragchunk.parsers._spec import ParseRequest

_FORMULA_PREFIX = "="
MAX_ROWS: Final = 1_048_576
"""Excel's last row: a sheet yielding more rows is refused (openpyxl fills a gap in the row
numbers with empty rows, so one row numbered 200,000,000 made 200 million of them)."""


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the sheets of a workbook as pages of row sections.

    Raises:
        CorruptDocumentError: not a zip, no ``xl/workbook.xml``, or damaged parts.
        LimitExceededError: zip or XML bomb, or more data than ``request.max_bytes``.
    """
    with open_zip(data, request, kind="XLSX") as archive:
        if "xl/workbook.xml" not in archive.namelist():
            raise CorruptDocumentError(
                f"{request.source}: not an XLSX: the zip has no xl/workbook.xml"
            )
        refuse_doctypes(archive, request)
    formulas, repeated = _load(data, request, values=False)
    values = None
    builder = TextBuilder(spend=request.spend_text)
    headers = 0  # rows repeating a header, left out
    try:
        for number, sheet in enumerate(formulas.worksheets, start=1):
            rows = _rows(sheet, request)
            if any(cell.startswith(_FORMULA_PREFIX) for row in rows for cell in row):
                values = values or _load(data, request, values=True)[0]
                rows = _cached(rows, values.worksheets[number - 1], request)
            builder.open_page()
            builder.add_heading(sheet.title, 1)  # the sheet's name heads its rows
            headers += add_table(builder, rows, header=None, rank=2)[1]
            builder.close_page(number)
    except (KeyError, ValueError, TypeError, zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise CorruptDocumentError(f"{request.source}: corrupt XLSX: {_reason(exc)}") from exc
    finally:
        formulas.close()
        if values is not None:
            values.close()
    if repeated:
        request.warn(
            "repeated-part",
            f"{request.source}: {len(repeated)} sheet(s) name a worksheet part already read "
            f"(the first: {repeated[0]}); each part is read once",
        )
    metadata = _metadata(formulas)
    if headers:
        metadata["repeated_headers"] = headers
    return builder.document(request, "xlsx", metadata)


def _load(data: bytes, request: ParseRequest, *, values: bool) -> tuple[Any, list[str]]:
    """Open the workbook read-only, each worksheet part once; return it and the sheets left out.

    openpyxl parses every sheet's part as it opens the file (for its size): sheets naming a
    part already named are dropped from the workbook before that (their titles are returned).
    """
    need("openpyxl", extra="xlsx", what="XLSX", request=request)
    from openpyxl.reader.excel import ExcelReader

    repeated: list[str] = []

    class OncePerPart(ExcelReader):  # type: ignore[misc]  # openpyxl is untyped
        def read_workbook(self) -> None:
            super().read_workbook()
            self.parser.sheets = _first_per_part(self.parser, repeated)

    reader = OncePerPart(io.BytesIO(data), read_only=True, data_only=values, keep_links=False)
    try:
        reader.read()
    except (
        KeyError,
        ValueError,
        TypeError,
        SyntaxError,  # lxml's and expat's XML errors
        OSError,
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
    ) as exc:
        raise CorruptDocumentError(f"{request.source}: corrupt XLSX: {_reason(exc)}") from exc
    return reader.wb, repeated


def _first_per_part(parser: Any, repeated: list[str]) -> list[Any]:
    """Return the workbook's sheets, the first naming each part; note the others' titles."""
    kept: list[Any] = []
    parts: set[str] = set()
    for sheet in parser.sheets:
        relationship = parser.rels.get(sheet.id) if sheet.id else None
        part = getattr(relationship, "target", None)
        if part is not None and part in parts:
            repeated.append(sheet.name)
            continue
        if part is not None:
            parts.add(part)
        kept.append(sheet)
    return kept


def _rows(sheet: Any, request: ParseRequest) -> list[list[str]]:
    """Return a sheet's rows as text, each as wide as its last cell.

    The size a sheet declares is not trusted (``A1:XFD1048576`` made every row 16,384 cells);
    rows past Excel's last are refused, and every cell read counts one character against the
    input's text budget (a row's width is its last cell's column, empty cells included).

    Raises:
        LimitExceededError: more rows than ``MAX_ROWS`` (a row numbered 200,000,000).
        TextBudgetError: the cells and text read pass ``--max-text``.
    """
    sheet.reset_dimensions()
    rows: list[list[str]] = []
    for row in sheet.iter_rows(values_only=True):
        if len(rows) == MAX_ROWS:
            raise LimitExceededError(
                f"{request.source}: refused: sheet {sheet.title} has rows past row {MAX_ROWS}, "
                "the last a workbook may have"
            )
        request.spend_text(len(row))
        rows.append([_cell(value) for value in row])
    return rows


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _cached(rows: list[list[str]], sheet: Any, request: ParseRequest) -> list[list[str]]:
    """Replace formulas by their cached values where the file holds them."""
    cached = _rows(sheet, request)
    for row, values in zip(rows, cached, strict=False):
        for index, cell in enumerate(row):
            if cell.startswith(_FORMULA_PREFIX) and index < len(values) and values[index]:
                row[index] = values[index]
    return rows


def _cell(value: object) -> str:
    """Return a cell's value as text: ISO dates, numbers as Python writes them."""
    if value is None:
        return ""
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _metadata(workbook: Any) -> dict[str, Any]:
    properties = workbook.properties
    metadata: dict[str, Any] = {"sheets": [sheet.title for sheet in workbook.worksheets]}
    if properties.title:
        metadata["title"] = properties.title
    if properties.creator:
        metadata["author"] = properties.creator
    return metadata


FORMAT = Format(name="xlsx", parse=parse)
