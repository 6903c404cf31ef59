"""csv: comma-, semicolon- or tab-separated rows, each a section of ``column: value`` lines.

The text is decoded as for plain text (BOM, UTF-16, invalid UTF-8 replaced with a warning).
A ``.tsv`` file is split at tabs; otherwise the dialect is sniffed from the first rows among
``,`` ``;`` tab and ``|`` (quoted fields may hold separators and line breaks): the rows of a
bounded sample (``SNIFF_CHARS``) are read with each, and the one that splits them into the most
consistent number of fields wins (linear; the standard library's sniffer is quadratic on
quotes). Whether the first row is a header is ``ParseOptions.header``, else the layout is
guessed as in ``_rows``: a caption above the table is its heading, the header is a row of short
distinct labels or up to three rows of labels over numbers, a repeated header row is not data
and a note below the table is prose. Rows render as in ``_rows``; the file has no pages. The
column names in ``metadata.columns`` are capped (``_metadata``). A field longer than
``MAX_FIELD`` characters, or a row of more than ``MAX_ROW_FIELDS`` fields, is refused.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import PurePath
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.model import Document
from ragchunk.parsers._builder import TextBuilder
from ragchunk.parsers._decode import decode
from ragchunk.parsers._metadata import capped
from ragchunk.parsers._rows import add_table
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

MAX_FIELD: Final = 16 * 1024 * 1024
"""The longest field read, in characters."""
MAX_ROW_FIELDS: Final = 100_000
"""The most fields in one row (a row's fields cost some 60 times their characters)."""
SNIFF_CHARS: Final = 64 * 1024
"""The sample the separator is chosen on: the file's first characters, whole lines."""
_DELIMITERS: Final = ",;\t|"
_SNIFF_ROWS: Final = 100
_QUOTED: Final = re.compile(r'"[^"]*"')


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the rows of a CSV or TSV file as sections.

    Raises:
        InputError: binary data.
        CorruptDocumentError: a quoted field that never ends, or a malformed row.
        LimitExceededError: a field longer than ``MAX_FIELD`` characters, or a row of more
            than ``MAX_ROW_FIELDS`` fields.
    """
    text = decode(data, request)
    rows = _read(text, _delimiter(text, request.source), request)
    builder = TextBuilder()
    columns, repeated = add_table(builder, rows, header=request.options.header, rank=1)
    names: list[JSONValue] = [name or str(n) for n, name in enumerate(columns or (), start=1)]
    metadata: dict[str, JSONValue] = capped({"columns": names}) if names else {}
    if repeated:
        metadata["repeated_headers"] = repeated
    return builder.document(request, "csv", metadata)


def _delimiter(text: str, source: str) -> str:
    """Return the field separator: a tab for ``.tsv``, else the sniffed one, else a comma.

    Each candidate reads the sample's rows (quotes as Excel writes them); the one giving the
    same number of fields, more than one, to the most rows wins, then the one giving more
    fields; a tie goes to the first of comma, semicolon, tab and bar. Linear in the sample.
    """
    if PurePath(source).suffix.lower() == ".tsv":
        return "\t"
    sample = text[:SNIFF_CHARS]
    if len(text) > SNIFF_CHARS and "\n" in sample:  # whole lines only: the last one is cut
        sample = sample[: sample.rindex("\n")]
    best, best_score = ",", (0.0, 0)
    for delimiter in _DELIMITERS:
        widths = [len(row) for row in _sample_rows(sample, delimiter) if row]
        if not widths:
            continue
        width = max(set(widths), key=lambda n: (widths.count(n), n))
        if width < 2:
            continue
        score = (widths.count(width) / len(widths), width)
        if score > best_score:
            best, best_score = delimiter, score
    return best


def _sample_rows(sample: str, delimiter: str) -> list[list[str]]:
    reader = csv.reader(io.StringIO(sample, newline=""), csv.excel, delimiter=delimiter)
    rows: list[list[str]] = []
    try:
        for row in reader:
            rows.append(row)
            if len(rows) >= _SNIFF_ROWS:
                break
    except csv.Error:  # a quote left open by the cut, or a field past the limit: enough
        pass
    return rows


def _bounded_lines(text: str, delimiter: str, source: str) -> Iterator[str]:
    """Yield the lines of ``text``, refusing one of more than ``MAX_ROW_FIELDS`` fields.

    It is refused before the reader builds its fields; only a line at least that long can
    hold so many, and separators inside quotes do not count.

    Raises:
        LimitExceededError: a line holds more separators than that outside quotes.
    """
    for number, line in enumerate(io.StringIO(text, newline=""), start=1):
        if len(line) > MAX_ROW_FIELDS and line.count(delimiter) >= MAX_ROW_FIELDS:
            fields = (_QUOTED.sub("", line) if '"' in line else line).count(delimiter) + 1
            if fields > MAX_ROW_FIELDS:
                raise LimitExceededError(
                    f"{source}: refused: line {number} holds {fields} fields "
                    f"(limit {MAX_ROW_FIELDS} per row)"
                )
        yield line


def _read(text: str, delimiter: str, request: ParseRequest) -> list[list[str]]:
    previous = csv.field_size_limit(MAX_FIELD)
    lines = _bounded_lines(text, delimiter, request.source)
    reader = csv.reader(lines, csv.excel, delimiter=delimiter)
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
