"""csv: comma-, semicolon- or tab-separated rows, each a section of ``column: value`` lines.

The text is decoded as for plain text (BOM, UTF-16, invalid UTF-8 replaced with a warning).
A ``.tsv`` file is split at tabs; otherwise the dialect is sniffed from the first rows among
``,`` ``;`` tab and ``|`` (quoted fields may hold separators and line breaks). Whether the
first row is a header is ``ParseOptions.header``, else guessed (short distinct labels, none a
number or a sentence). Rows render as in ``_rows``; the file has no pages. A field longer
than ``MAX_FIELD`` characters is refused.
"""

from __future__ import annotations

import csv
import io
from pathlib import PurePath
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._decode import decode
from ragchunk.parsers._rows import add_row, looks_like_header, name_columns
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

MAX_FIELD: Final = 16 * 1024 * 1024
"""The longest field read, in characters."""
_SAMPLE: Final = 64 * 1024
_DELIMITERS: Final = ",;\t|"


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the rows of a CSV or TSV file as sections.

    Raises:
        InputError: binary data.
        CorruptDocumentError: a quoted field that never ends, or a malformed row.
        LimitExceededError: a field longer than ``MAX_FIELD`` characters.
    """
    text = decode(data, request)
    rows = _read(text, _delimiter(text, request.source), request)
    header = request.options.header
    if header is None:
        header = bool(rows) and looks_like_header(rows[0], rows[1:])
    columns = name_columns(rows[0]) if header and rows else None
    builder = TextBuilder()
    for number, row in enumerate(rows[1:] if columns else rows, start=2 if columns else 1):
        add_row(builder, number, columns, row)
    metadata: dict[str, JSONValue] = {"columns": [*columns]} if columns else {}
    return builder.document(request, "csv", metadata)


def _delimiter(text: str, source: str) -> str:
    """Return the field separator: a tab for ``.tsv``, else the sniffed one, else a comma.

    Only the separator is taken from the sniffer: its guesses of quoting are unreliable
    (it reads ``""`` inside a quoted field as no doubled quotes), and files quote as Excel does.
    """
    if PurePath(source).suffix.lower() == ".tsv":
        return "\t"
    try:
        return csv.Sniffer().sniff(text[:_SAMPLE], delimiters=_DELIMITERS).delimiter
    except csv.Error:  # one column, or nothing to go by
        return ","


def _read(text: str, delimiter: str, request: ParseRequest) -> list[list[str]]:
    previous = csv.field_size_limit(MAX_FIELD)
    reader = csv.reader(io.StringIO(text, newline=""), csv.excel, delimiter=delimiter)
    try:
        return list(reader)
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise LimitExceededError(
                f"{request.source}: refused: a field longer than {MAX_FIELD} characters "
                f"(row {reader.line_num})"
            ) from None
        raise CorruptDocumentError(
            f"{request.source}: malformed CSV at line {reader.line_num}: {exc}"
        ) from None
    finally:
        csv.field_size_limit(previous)


FORMAT = Format(name="csv", parse=parse)
