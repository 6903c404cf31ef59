"""Opening a PDF with PDFium alone: the password, the outline and the metadata.

``open_checked`` loads the file without a password, then with ``--password``; PDFium's last error
tells a wrong or missing password (the same messages as ``reader``) from a file it cannot read,
which goes to pypdf (``None``) for pypdf's message. ``outline`` walks the bookmarks depth first
as ``reader.outline`` does (each entry's page and, for ``/XYZ``, ``/FitH`` and ``/FitBH``
destinations, its distance from the page's top edge, within a thousandth of a point of pypdf's:
PDFium gives positions as 32-bit floats); a loop, or nesting past
``MAX_OUTLINE_DEPTH``, gives ``None``: pypdf judges the file. ``metadata`` reads the Info
dictionary's title, author and creation date.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any, Final

import pypdfium2
import pypdfium2.raw as pdfium_c

from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers.pdf.info import MAX_OUTLINE_DEPTH, SURROGATE, OutlineEntry, metadata_of

if TYPE_CHECKING:
    from ragchunk.model import Metadata
    from ragchunk.parsers._spec import ParseRequest

MAX_ENTRIES: Final = 100_000
"""Outline entries read before the file goes to pypdf (its own cap)."""
_TOP_VIEWS: Final = {
    pdfium_c.PDFDEST_VIEW_XYZ: 1,  # [left, top, zoom]
    pdfium_c.PDFDEST_VIEW_FITH: 0,  # [top]
    pdfium_c.PDFDEST_VIEW_FITBH: 0,
}
"""Destination views naming a top, and which of their parameters it is."""


def open_checked(data: bytes, request: ParseRequest) -> tuple[Any, str | None] | None:
    """Return PDFium's document of ``data`` and the password that opened it (None: not needed).

    Returns None when PDFium cannot read the file for another reason than its password.

    Raises:
        CorruptDocumentError: encrypted, and neither the empty password nor ``--password``
            opens it.
    """
    document, error = _load(data, None)
    if document is not None:
        return document, None
    if error != pdfium_c.FPDF_ERR_PASSWORD:
        return None
    if request.password is None:
        raise CorruptDocumentError(
            f"{request.source}: encrypted PDF: a password is needed (give it with --password)"
        )
    document, error = _load(data, request.password)
    if document is not None:
        return document, request.password
    if error != pdfium_c.FPDF_ERR_PASSWORD:
        return None
    raise CorruptDocumentError(
        f"{request.source}: encrypted PDF: the password given with --password is wrong"
    )


def _load(data: bytes, password: str | None) -> tuple[Any, int | None]:
    """Return PDFium's document (or None) and its error code (``FPDF_GetLastError``)."""
    try:
        return pypdfium2.PdfDocument(data, password=password), None
    except pypdfium2.PdfiumError as exc:
        return None, exc.err_code


def metadata(document: Any) -> Metadata:
    """Return title, author and creation date (ISO 8601) when the file records them."""
    raw = document.raw
    title, author, created = (
        _meta_text(raw, key) for key in (b"Title", b"Author", b"CreationDate")
    )
    return metadata_of(title, author, created or None)


def _meta_text(raw: Any, key: bytes) -> str:
    size = pdfium_c.FPDF_GetMetaText(raw, key, None, 0)
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    pdfium_c.FPDF_GetMetaText(raw, key, buffer, size)
    return buffer.raw[: size - 2].decode("utf-16-le", errors="surrogatepass")


class PageTops:
    """Hands out PDFium's pages of a document, keeping each one's top edge (its media box's).

    The outline's positions are measured from it: read as the text is, no page loads twice.
    """

    def __init__(self, document: Any) -> None:
        self.document = document
        self.tops: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self.document)

    def __getitem__(self, index: int) -> Any:
        page = self.document[index]
        self.tops[index] = float(page.get_mediabox()[3])
        return page


def outline(
    document: Any, pages: int, tops: dict[int, float] | None = None
) -> list[OutlineEntry] | None:
    """Return the outline's entries in order (pages below ``pages``); None for a loop.

    ``tops``: the pages' top edges known already (``PageTops``); others are read here.
    """
    raw = document.raw
    entries: list[OutlineEntry] = []
    tops = {} if tops is None else tops
    seen: set[int] = set()
    stack: list[tuple[Any, tuple[str, ...]]] = [
        (pdfium_c.FPDFBookmark_GetFirstChild(raw, None), ())
    ]
    while stack:
        bookmark, parent = stack.pop()
        if not bookmark:
            continue
        address = ctypes.cast(bookmark, ctypes.c_void_p).value or 0
        if address in seen or len(seen) >= MAX_ENTRIES or len(parent) >= MAX_OUTLINE_DEPTH:
            return None
        seen.add(address)
        title = SURROGATE.sub("\ufffd", " ".join(_title(bookmark).split()))
        path = (*parent, title)
        page, top = _destination(document, raw, bookmark, tops)
        if title and page is not None and 0 <= page < pages:
            entries.append(OutlineEntry(title, page, top, path))
        # The next sibling after the children: push it first.
        stack.append((pdfium_c.FPDFBookmark_GetNextSibling(raw, bookmark), parent))
        stack.append((pdfium_c.FPDFBookmark_GetFirstChild(raw, bookmark), path))
    return entries


def _title(bookmark: Any) -> str:
    size = pdfium_c.FPDFBookmark_GetTitle(bookmark, None, 0)
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    pdfium_c.FPDFBookmark_GetTitle(bookmark, buffer, size)
    return buffer.raw[: size - 2].decode("utf-16-le", errors="surrogatepass")


def _destination(
    document: Any, raw: Any, bookmark: Any, tops: dict[int, float]
) -> tuple[int | None, float | None]:
    """Return a bookmark's page index and top (None: no page, or no position).

    ``tops`` keeps each page's top edge (its media box's), read once.
    """
    dest = pdfium_c.FPDFBookmark_GetDest(raw, bookmark)
    if not dest:
        action = pdfium_c.FPDFBookmark_GetAction(bookmark)
        if not action or pdfium_c.FPDFAction_GetType(action) != pdfium_c.PDFACTION_GOTO:
            return None, None
        dest = pdfium_c.FPDFAction_GetDest(raw, action)
        if not dest:
            return None, None
    page = pdfium_c.FPDFDest_GetDestPageIndex(raw, dest)
    if page < 0:
        return None, None
    count = ctypes.c_ulong()
    params = (pdfium_c.FS_FLOAT * 4)()
    view = pdfium_c.FPDFDest_GetView(dest, ctypes.byref(count), params)
    at = _TOP_VIEWS.get(view)
    if at is None or count.value <= at or not _has_top(dest, view):
        return page, None
    if page >= len(document):
        return page, None
    if page not in tops:
        tops[page] = float(document[page].get_mediabox()[3])
    return page, tops[page] - float(params[at])


def _has_top(dest: Any, view: int) -> bool:
    """Whether an ``/XYZ`` destination names its top (``null`` keeps the current one)."""
    if view != pdfium_c.PDFDEST_VIEW_XYZ:
        return True
    has_x, has_y, has_zoom = (pdfium_c.FPDF_BOOL() for _ in range(3))
    x, y, zoom = (pdfium_c.FS_FLOAT() for _ in range(3))
    pdfium_c.FPDFDest_GetLocationInPage(dest, has_x, has_y, has_zoom, x, y, zoom)
    return bool(has_y.value)
