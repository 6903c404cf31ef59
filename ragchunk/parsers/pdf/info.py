"""What both engines share of a PDF: the header check, outline entries, dates, metadata text.

Nothing here imports pypdf or PDFium: the ``pdfium`` engine reads a sound file with PDFium alone
(``precheck``, ``native``), the ``pypdf`` engine and doubtful files with pypdf (``reader``).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError

if TYPE_CHECKING:
    from ragchunk.model import JSONValue, Metadata
    from ragchunk.parsers._spec import ParseRequest

MAX_OUTLINE_DEPTH: Final = 32
SURROGATE: Final = re.compile("[\ud800-\udfff]")
_HEADER_WINDOW: Final = 1024
_PDF_DATE: Final = re.compile(
    r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?"
    r"(?:([Zz+-])(?:(\d{2})'?(?:(\d{2})'?)?)?)?'?"
)


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One outline (bookmark) entry: its title, page index, position and heading path.

    ``top`` is the destination's distance from the page's top edge in points, or None when
    the destination names no position (``/Fit``).
    """

    title: str
    page: int
    top: float | None
    path: tuple[str, ...]


def check_header(data: bytes, request: ParseRequest) -> None:
    """Raise ``CorruptDocumentError`` unless ``data`` starts like a PDF."""
    if not data:
        raise CorruptDocumentError(f"{request.source}: empty file, not a PDF")
    if b"%PDF-" not in data[:_HEADER_WINDOW]:
        raise CorruptDocumentError(f"{request.source}: not a PDF (no %PDF- header)")


def parse_pdf_date(raw: str) -> str | None:
    """Return a PDF date (``D:YYYYMMDDHHmmSSOHH'mm'``, parts optional) as ISO 8601, or None.

    Written here because real producers emit forms pypdf rejects (LibreOffice's ``Z'``).
    """
    match = _PDF_DATE.fullmatch(raw.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, sign, tz_hour, tz_minute = match.groups()
    try:
        tz = None
        if sign in ("Z", "z"):
            tz = dt.UTC
        elif sign:
            offset = dt.timedelta(hours=int(tz_hour or 0), minutes=int(tz_minute or 0))
            tz = dt.timezone(-offset if sign == "-" else offset)
        moment = dt.datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=tz,
        )
    except ValueError:
        return None
    return moment.isoformat()


def metadata_of(title: object, author: object, created: str | None) -> Metadata:
    """Return title, author and creation date (ISO 8601) as a document's metadata records them."""
    found: dict[str, JSONValue] = {}
    if isinstance(title, str) and title.strip():
        found["title"] = SURROGATE.sub("\ufffd", title.strip())
    if isinstance(author, str) and author.strip():
        found["author"] = SURROGATE.sub("\ufffd", author.strip())
    date = parse_pdf_date(created) if created is not None else None
    if date is not None:
        found["created"] = date
    return found
