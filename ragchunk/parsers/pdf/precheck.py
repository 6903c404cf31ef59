"""Checking a PDF's bytes before PDFium reads it, so that pypdf need not open a sound file.

``scan`` reads the cross-reference sections (``startxref``, each ``/Prev``, hybrid ``/XRefStm``
and cross-reference streams) and every object they list, and inflates every stream but images,
each capped, without building pypdf's object graph. It returns what the caps of ``budget`` need
(the decoded size of the streams a page may draw, how many pages the file declares) and whether
the file is encrypted. It raises ``DoubtError`` wherever pypdf's judgment could differ from a plain
reading: a cross-reference entry that does not point at its object, a loop of sections, a
stream longer than its ``/Length`` says or declaring more than pypdf allows, a filter other
than Flate on a stream that is not an image, inflated data past a cap (a stream past pypdf's
75 MB or ``max_bytes``, all of them past ``max_bytes``), a font map giving one code more than
``MAX_MAPPED`` characters, more than ``MAX_FORMS`` form XObjects, dictionaries or arrays nested
deeper than ``MAX_NESTING``. Every cap of ``budget`` is a superset here (all streams for the
content on the pages, all font maps for the maps used), so a file that passes passes pypdf's
pre-check too; a doubtful file goes to pypdf (``reader``), which gives the message it always
gave. An encrypted file's streams cannot be read here: it goes to pypdf once PDFium has checked
the password.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from typing import Final

from ragchunk.parsers.pdf.budget import MAX_FORMS, MAX_MAPPED, longest_destination

PYPDF_STREAM_CAP: Final = 75_000_000
"""pypdf's own cap on a stream's declared and decoded length (its ``Configuration``)."""
MAX_NESTING: Final = 32
"""Dictionaries or arrays nested deeper than this in an object go to pypdf."""
MAX_SECTIONS: Final = 1000
"""Cross-reference sections followed through ``/Prev`` before the file goes to pypdf."""
KEEP: Final = 4 * 1024 * 1024
"""Inflated streams up to this size are kept to be read (object streams, font maps)."""
_PIECE: Final = 1024 * 1024
_STARTXREF: Final = re.compile(rb"startxref\s+(\d+)\s+%%EOF")
_HEADER: Final = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")
_SUBSECTION: Final = re.compile(rb"\s*(\d+)\s+(\d+)[ \t]*(?:\r\n|\r|\n)")
_ENTRY: Final = re.compile(rb"(\d{10})[ \t](\d{5})[ \t]([nf])(?: \r| \n|\r\n)")
_TRAILER: Final = re.compile(rb"\s*trailer\s*(<<.*?)\s*startxref", re.DOTALL)
_BODY_END: Final = re.compile(rb"endobj|>>\s*stream(?:\r\n|\n|\r)")
_ENDSTREAM: Final = re.compile(rb"\s*endstream")
_LENGTH: Final = re.compile(rb"/Length\s+(\d+)(?:\s+(\d+)\s+R)?")
_FILTER: Final = re.compile(rb"/Filter\s*(\[[^\]]*\]|/[^\s/\[<>(]+)")
_NAME: Final = re.compile(rb"/([^\s/\[\]<>()]+)")
_INTEGER: Final = re.compile(rb"\s*(\d+)")
_INTEGERS: Final = re.compile(rb"-?\d+")
_PAGE: Final = re.compile(rb"/Type\s*/Page(?![A-Za-z0-9#])")
_FORM: Final = re.compile(rb"/Subtype\s*/Form(?![A-Za-z0-9#])")
_IMAGE: Final = re.compile(rb"/Subtype\s*/Image(?![A-Za-z0-9#])")
_NESTING: Final = re.compile(rb"<<|>>|\[|\]")
_NOT_CONTENT: Final = re.compile(
    rb"/Type\s*/(?:XRef|ObjStm|Metadata|EmbeddedFile)|/Length[123]\b|/Subtype\s*/(?!Form)"
)
_CMAP: Final = re.compile(rb"begincmap|beginbfchar|beginbfrange")
_FLATE: Final = frozenset({b"FlateDecode", b"Fl"})
_REFERENCE: Final = re.compile(rb"(?<![\d.])(\d+)\s+\d+\s+R(?![A-Za-z0-9#])")
_NEAR: Final = 64 * 1024
"""A trailer or a cross-reference stream's dictionary is looked for this far, no further."""
_PACKED: Final = -1
"""The offset given an object stored in an object stream (read with its stream)."""


class DoubtError(Exception):
    """A plain reading of the bytes is not enough: pypdf is to judge the file."""


@dataclass(slots=True)
class Scan:
    """What the bytes hold: content a page may draw (decoded bytes), pages declared, encryption."""

    content: int = 0
    pages: int = 0
    forms: int = 0
    encrypted: bool = False
    total: int = 0
    references: set[int] = field(default_factory=set)


def scan(data: bytes, max_bytes: int) -> Scan:
    """Return what ``data`` holds, or raise ``DoubtError`` when pypdf must judge it (see above)."""
    offsets, trailers = _cross_references(data)
    found = Scan(encrypted=any(b"/Encrypt" in trailer for trailer in trailers))
    if found.encrypted:
        return found
    listed = set(offsets)
    offsets = {number: offset for number, offset in offsets.items() if offset != _PACKED}
    # An object ends before the next one starts: each byte is searched once, whatever the table.
    starts = sorted(offsets.values())
    ends = dict(zip(starts, [*starts[1:], len(data)], strict=True))
    for number, offset in offsets.items():
        _object(data, number, (offset, ends[offset]), offsets, found, max_bytes)
    if found.forms > MAX_FORMS:
        raise DoubtError("form XObjects")
    for trailer in trailers:
        found.references.update(int(n) for n in _REFERENCE.findall(trailer))
    if not found.references <= listed:
        # PDFium would rebuild the table and read objects no table lists: unchecked here.
        raise DoubtError("a reference to an object no cross-reference section lists")
    return found


def _cross_references(data: bytes) -> tuple[dict[int, int], list[bytes]]:
    """Return each object's offset (the newest section's) and every trailer dictionary."""
    ends = list(_STARTXREF.finditer(data, max(0, len(data) - 2048)))
    if not ends:
        raise DoubtError("no startxref")
    offsets: dict[int, int] = {}
    trailers: list[bytes] = []
    pending = [int(ends[-1].group(1))]
    seen: set[int] = set()
    while pending:
        at = pending.pop(0)
        if at in seen or len(seen) >= MAX_SECTIONS or at >= len(data):
            raise DoubtError("cross-reference loop or offset")
        seen.add(at)
        if data.startswith(b"xref", at):
            entries, trailer = _table(data, at + 4)
        else:
            entries, trailer = _xref_stream(data, at)
        for number, offset in entries.items():
            offsets.setdefault(number, offset)
        trailers.append(trailer)
        for key in (rb"/XRefStm\s+(\d+)", rb"/Prev\s+(\d+)"):
            match = re.search(key, trailer)
            if match:
                pending.append(int(match.group(1)))
    for number, offset in offsets.items():
        if offset == _PACKED:
            continue
        header = _HEADER.match(data, offset)
        if header is None or int(header.group(1)) != number:
            raise DoubtError(f"object {number} is not at its offset")
    return offsets, trailers


def _table(data: bytes, at: int) -> tuple[dict[int, int], bytes]:
    entries: dict[int, int] = {}
    while (section := _SUBSECTION.match(data, at)) is not None:
        first, count = int(section.group(1)), int(section.group(2))
        at = section.end()
        for number in range(first, first + count):
            entry = _ENTRY.match(data, at)
            if entry is None:
                raise DoubtError("cross-reference entry")
            at = entry.end()
            if entry.group(3) == b"n" and number not in entries:
                entries[number] = int(entry.group(1))
    trailer = _TRAILER.match(data, at, at + _NEAR)
    if trailer is None:
        raise DoubtError("no trailer")
    return entries, trailer.group(1)


def _xref_stream(data: bytes, at: int) -> tuple[dict[int, int], bytes]:
    """Read a cross-reference stream: type-1 entries' offsets, type 2 (in object streams) packed."""
    header = _HEADER.match(data, at)
    if header is None:
        raise DoubtError("cross-reference offset")
    text, raw = _raw_object(data, header.end(), {}, len(data), near=True)
    if raw is None or not re.search(rb"/Type\s*/XRef\b", text):
        raise DoubtError("cross-reference stream")
    widths = [int(n) for n in _INTEGERS.findall(_array(text, b"W"))]
    size = _INTEGER.match(text, text.find(b"/Size") + 5) if b"/Size" in text else None
    index = [int(n) for n in _INTEGERS.findall(_array(text, b"Index"))]
    if not index and size is not None:
        index = [0, int(size.group(1))]
    if len(widths) != 3 or any(w < 0 or w > 8 for w in widths) or len(index) % 2:
        raise DoubtError("cross-reference stream fields")
    inflated = _inflate(raw, _filters(text), KEEP)
    if not isinstance(inflated, bytes):
        raise DoubtError("cross-reference stream size")
    rows = _unpredict(inflated, text, sum(widths))
    entries: dict[int, int] = {}
    numbers = (
        n
        for first, count in zip(index[::2], index[1::2], strict=True)
        for n in range(first, first + count)
    )
    for number, row in zip(numbers, rows, strict=False):  # a short stream lists fewer
        kind, offset, at_field = 1, 0, 0
        for k, width in enumerate(widths):
            value = int.from_bytes(row[at_field : at_field + width], "big") if width else None
            at_field += width
            if k == 0 and value is not None:
                kind = value
            elif k == 1 and value is not None:
                offset = value
        if kind in (1, 2) and number not in entries:
            entries[number] = offset if kind == 1 else _PACKED
    return entries, text


def _array(text: bytes, key: bytes) -> bytes:
    match = re.search(rb"/" + key + rb"\s*\[([^\]]*)\]", text)
    return match.group(1) if match else b""


def _unpredict(data: bytes, text: bytes, width: int) -> list[bytes]:
    """Return the rows of a cross-reference stream, undoing a PNG predictor (None, Sub, Up)."""
    if width < 1:
        raise DoubtError("cross-reference stream widths")
    predictor = re.search(rb"/Predictor\s+(\d+)", text)
    columns = re.search(rb"/Columns\s+(\d+)", text)
    if predictor is None or int(predictor.group(1)) < 10:
        if predictor is not None and int(predictor.group(1)) != 1:
            raise DoubtError("predictor")
        return [data[k : k + width] for k in range(0, len(data) - width + 1, width)]
    if columns is not None and int(columns.group(1)) != width:
        raise DoubtError("predictor columns")
    rows, previous = [], bytes(width)
    for k in range(0, len(data) - width, width + 1):
        kind, row = data[k], data[k + 1 : k + 1 + width]
        if kind == 2:
            row = bytes((a + b) & 0xFF for a, b in zip(row, previous, strict=True))
        elif kind == 1:
            out = bytearray(row)
            for i in range(1, width):
                out[i] = (out[i] + out[i - 1]) & 0xFF
            row = bytes(out)
        elif kind != 0:
            raise DoubtError("predictor row")
        rows.append(row)
        previous = row
    return rows


def _raw_object(
    data: bytes, at: int, offsets: dict[int, int], limit: int, *, near: bool = False
) -> tuple[bytes, bytes | None]:
    """Return an object's text (its dictionary for a stream) and its raw stream data, if any.

    The object lies before ``limit``; with ``near``, its dictionary within ``_NEAR`` bytes.
    """
    end = _BODY_END.search(data, at, min(limit, at + _NEAR) if near else limit)
    if end is None:
        raise DoubtError("object without end")
    if end.group().startswith(b"endobj"):
        return data[at : end.start()], None
    text = data[at : end.start() + 2]
    start = end.end()
    length = _length(data, text, offsets)
    if length is None or start + length > limit or not _ENDSTREAM.match(data, start + length):
        raise DoubtError("stream length")
    return text, data[start : start + length]


def _length(data: bytes, text: bytes, offsets: dict[int, int]) -> int | None:
    match = _LENGTH.search(text)
    if match is None:
        return None
    if match.group(2) is None:
        value = int(match.group(1))
    else:
        offset = offsets.get(int(match.group(1)))
        header = _HEADER.match(data, offset) if offset is not None else None
        number = _INTEGER.match(data, header.end()) if header is not None else None
        if number is None:
            return None
        value = int(number.group(1))
    if value > PYPDF_STREAM_CAP:
        raise DoubtError("declared stream length")
    return value


def _filters(text: bytes) -> list[bytes]:
    match = _FILTER.search(text)
    return _NAME.findall(match.group(1)) if match else []


def _object(
    data: bytes,
    number: int,
    span: tuple[int, int],
    offsets: dict[int, int],
    found: Scan,
    max_bytes: int,
) -> None:
    header = _HEADER.match(data, span[0])
    assert header is not None  # checked by _cross_references
    text, raw = _raw_object(data, header.end(), offsets, span[1])
    _read_text(text, found)
    if raw is None or _IMAGE.search(text):
        return
    filters = _filters(text)
    cap = min(PYPDF_STREAM_CAP, max_bytes, max_bytes - found.total)
    if filters and not all(name in _FLATE for name in filters):
        raise DoubtError(f"object {number}: filter")
    inflated = _inflate(raw, filters, cap) if filters else raw
    size = len(inflated) if isinstance(inflated, bytes) else inflated
    found.total += size
    if not _NOT_CONTENT.search(text):
        found.content += size
    if not isinstance(inflated, bytes):
        return  # past KEEP: counted, not read
    if re.search(rb"/Type\s*/ObjStm\b", text):
        _read_text(inflated, found)
    elif _CMAP.search(inflated) and longest_destination(inflated) > MAX_MAPPED:
        raise DoubtError("font map")


def _read_text(text: bytes, found: Scan) -> None:
    """Count the pages and forms an object's text declares, note its references; no deep nesting."""
    found.pages += len(_PAGE.findall(text))
    found.references.update(int(n) for n in _REFERENCE.findall(text))
    found.forms += len(_FORM.findall(text))
    if text.count(b"<<") + text.count(b"[") <= MAX_NESTING:
        return
    depth = 0
    for token in _NESTING.findall(text):
        depth += 1 if token in (b"<<", b"[") else -1
        if depth > MAX_NESTING:
            raise DoubtError("nesting")


def _inflate(raw: bytes, filters: list[bytes], cap: int) -> bytes | int:
    """Return the inflated stream (or its size when past ``KEEP``); ``DoubtError`` past ``cap``."""
    data: bytes | int = raw
    for _ in filters:
        if not isinstance(data, bytes):
            raise DoubtError("filters after a large stream")
        data = _inflate_one(data, cap)
    return data


def _inflate_one(raw: bytes, cap: int) -> bytes | int:
    inflater = zlib.decompressobj()
    pieces: list[bytes] = []
    size = 0
    pending = raw
    try:
        while True:
            piece = inflater.decompress(pending, _PIECE)
            size += len(piece)
            if size > cap:
                raise DoubtError("inflated past a cap")
            if size <= KEEP:
                pieces.append(piece)
            elif pieces:
                if _CMAP.search(b"".join(pieces)):
                    raise DoubtError("large font map")
                pieces = []
            pending = inflater.unconsumed_tail
            if not pending:
                break
        size += len(tail := inflater.flush())
    except zlib.error as exc:
        raise DoubtError("inflate") from exc
    if not inflater.eof or size > cap:
        raise DoubtError("inflate")
    return b"".join([*pieces, tail]) if size <= KEEP else size
